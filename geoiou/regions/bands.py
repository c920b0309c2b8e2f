"""Boundary bands: the part of a region within a distance of its outline, ``region − erode(region, d)``.

Two forms, one per representation:

- **Masks**: boundary-iou-api's raster band, ``mask − erode(mask, d)`` with ``d`` passes of a
  3 × 3 erosion (every pixel within Chebyshev distance ``d`` of a kept pixel is true, pixels beyond
  the mask's grid count as false), computed from the masks' COCO runs by the compiled core
  (`geoiou.regions.mask_bands`); the band is a `Mask` held as runs, at the mask's own size and origin.
- **Polygons** (and boxes, rotated boxes, converted exactly): the region minus its inward offset
  by ``d`` (shapely's ``buffer`` with distance ``−d``), a `Polygon` whose area is exact. The
  offset's arcs at reflex corners are drawn with ``quad_segs`` segments per quarter circle, as
  GEOS draws every buffer; everything else is exact.
"""

from __future__ import annotations

import numpy as np
import shapely

from geoiou import rle as coco_rle
from geoiou.regions.mask import Mask
from geoiou.regions.mask_bands import band_runs
from geoiou.regions.polygon import Polygon

__all__ = ["QUAD_SEGS", "mask_bands", "polygon_bands"]

#: Segments per quarter circle of the inward offset's arcs (GEOS's default is 8): the arc's chord error
#: then stays below 0.1% of the band's width squared per reflex corner.
QUAD_SEGS = 32


def mask_bands(masks: Mask, distances: np.ndarray) -> Mask:
    """The band ``mask − erode(mask, d)`` of each mask, `distances` (integers ≥ 1) by mask, as masks of its shape.

    Examples
    --------
    >>> import numpy as np
    >>> square = np.zeros((5, 5), dtype=bool); square[:4, :4] = True  # touches the top and left edges
    >>> mask_bands(Mask(square), np.array([1])).data.astype(int)  # the image's edge is a boundary too
    array([[1, 1, 1, 1, 0],
           [1, 0, 0, 1, 0],
           [1, 0, 0, 1, 0],
           [1, 1, 1, 1, 0],
           [0, 0, 0, 0, 0]])
    """
    flat = masks.reshape(-1)
    store, index = flat._store, flat._index
    runs = store.runs
    at: np.ndarray | None = index
    if runs is None:  # dense pixels: their runs first (each at the store's grid, its own size)
        runs, at = coco_rle.to_runs(store.encode(index)), None
    bands = band_runs(runs, np.broadcast_to(np.asarray(distances, dtype=np.int64), (len(flat),)), at)
    return Mask._from_runs(bands, origin=flat.origin.reshape(-1, 2)).reshape(masks.shape)


def polygon_bands(polygons: Polygon, distances: np.ndarray, quad_segs: int = QUAD_SEGS) -> Polygon:
    """The exact band ``polygon − buffer(polygon, −d)`` of each polygon, `distances` (> 0) by polygon.

    Examples
    --------
    >>> square = Polygon([(0, 0), (10, 0), (10, 10), (0, 10)])
    >>> float(polygon_bands(square, np.array([2.0])).area)  # 100 less the inner 6 x 6 square
    64.0
    >>> float(polygon_bands(square, np.array([6.0])).area)  # thinner than twice the distance: all of it
    100.0
    """
    flat = polygons.reshape(-1)
    geometries = np.asarray(flat.to_shapely(), dtype=object).reshape(-1)
    inner = shapely.buffer(geometries, -np.broadcast_to(distances, geometries.shape), quad_segs=quad_segs)
    bands = shapely.difference(geometries, inner)
    return Polygon.from_shapely(bands).reshape(polygons.shape)
