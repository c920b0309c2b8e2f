"""pycocotools' API on geoiou's engine (see docs/pycocotools.md)."""
