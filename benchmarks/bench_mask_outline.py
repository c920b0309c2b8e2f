"""Benchmark masks to polygons: geoiou's exact outline against the ways a user gets polygons from masks today.

Workload (fixed seed): object-like masks (ellipses and stars, from `run.blob_masks`) on one grid,
as a segmentation model's output. Rows, each timed end to end from the boolean array to polygons:

- geoiou: ``Mask(masks).to_polygons()``, the outline of the pixel squares of the whole batch, as a
  `Polygon` batch; and ``.to_shapely()`` of it, for users who want shapely objects;
- the union of pixel squares with shapely, one mask at a time (one ``shapely.box`` per horizontal
  run of true pixels, ``union_all``): exact too, what geoiou did before;
- OpenCV's ``findContours`` (``RETR_CCOMP``, ``CHAIN_APPROX_SIMPLE``) as polygons of pixel
  centres, and scikit-image's ``find_contours`` at level 0.5: both trace a contour through pixel
  centres or edge midpoints, not the pixel squares, so their areas differ (the "max abs diff"
  column is the largest difference of a mask's polygon area from its pixel count).

Benchmarks are not tests: nothing here asserts on speed.

    python benchmarks/bench_mask_outline.py            # 200 masks of 512 x 512
    python benchmarks/bench_mask_outline.py --quick    # 20 masks of 128 x 128: checks the script runs
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np
import shapely

import geoiou

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import run as bench  # noqa: E402  (the timing, tables and machine facts of benchmarks/run.py)

SEED = 20261125


def union_of_runs(masks: np.ndarray) -> np.ndarray:
    """Exact polygons by shapely: the union of one box per horizontal run of true pixels, mask by mask."""
    areas = np.empty(len(masks))
    for k, mask in enumerate(masks):
        padded = np.pad(mask, ((0, 0), (1, 1))).astype(np.int8)
        rows, starts = np.nonzero(np.diff(padded, axis=1) == 1)
        _, ends = np.nonzero(np.diff(padded, axis=1) == -1)
        areas[k] = shapely.union_all(shapely.box(starts, rows, ends, rows + 1)).area
    return areas


def opencv_contours(cv2: Any, masks: np.ndarray) -> np.ndarray:
    """Polygons of pixel centres by OpenCV (outer contours minus holes), their areas by shapely."""
    areas = np.empty(len(masks))
    for k, mask in enumerate(masks):
        contours, hierarchy = cv2.findContours(mask.astype(np.uint8), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        area = 0.0
        for contour, (_, _, _, parent) in zip(contours, hierarchy[0] if hierarchy is not None else []):
            points = contour[:, 0, :].astype(np.float64)
            ring_area = shapely.Polygon(points).area if len(points) >= 3 else 0.0
            area += ring_area if parent < 0 else -ring_area
        areas[k] = area
    return areas


def skimage_contours(masks: np.ndarray) -> np.ndarray:
    """Polygons through edge midpoints (marching squares at 0.5) by scikit-image, their areas by shapely."""
    from skimage import measure

    areas = np.empty(len(masks))
    for k, mask in enumerate(masks):
        padded = np.pad(mask.astype(np.float64), 1)  # closed contours also along the grid's border
        rings = [
            shapely.Polygon(contour[:, ::-1]) for contour in measure.find_contours(padded, 0.5) if len(contour) >= 4
        ]
        areas[k] = (
            abs(sum(shapely.geometry.polygon.orient(ring).area * (1 if ring.exterior.is_ccw else -1) for ring in rings))
            if rings
            else 0.0
        )
    return areas


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, 2 repeats")
    arguments = parser.parse_args(argv)
    settings = bench.Settings(quick=arguments.quick, repeats=2 if arguments.quick else 7)
    for name, value in bench.machine_facts():
        print(f"{name:<22} {value}")
    count, size = settings.size(200, 20), settings.size(512, 128)
    masks = bench.blob_masks(np.random.default_rng(SEED), count, size)
    pixels = masks.reshape(count, -1).sum(axis=1).astype(np.float64)
    table = bench.Table(
        "M", f"{count} object masks of {size} x {size} to polygons (areas compared with the pixel counts)"
    )
    table.reference = pixels
    table.reference_seconds = None
    first = table.add(
        "geoiou Mask(masks).to_polygons()",
        lambda: geoiou.Mask(masks).to_polygons().area,
        settings,
        kind="geoiou",
        exact=True,
    )
    table.reference_seconds = first.seconds
    table.add(
        "geoiou Mask(masks).to_polygons().to_shapely()",
        lambda: shapely.area(geoiou.Mask(masks).to_polygons().to_shapely()),
        settings,
        kind="geoiou",
        exact=True,
    )
    table.add("shapely union of pixel runs, per mask", lambda: union_of_runs(masks), settings, exact=True)
    cv2 = bench.optional("cv2")
    table.add(
        "OpenCV findContours (pixel centres)",
        None if cv2 is None else lambda: opencv_contours(cv2, masks),
        settings,
        missing="opencv-python-headless not installed",
    )
    table.add("scikit-image find_contours at 0.5", lambda: skimage_contours(masks), settings)
    print()
    print(bench.render_text(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
