"""pycocotools' polygon rasterization, reproduced bit for bit: the COCO compatibility mode.

geoiou never rasterizes a polygon on its own: a polygon is compared exactly. COCO's official
segmentation numbers, however, are computed on rasters: pycocotools turns every ground-truth
polygon into a mask with its own scan conversion (``rleFrPoly`` in ``maskApi.c``) before it counts
pixels. To reproduce those numbers, `coco_compat_rasterize` follows the same steps with the same
floating-point operations:

1. Scale the vertices by 5 and round each to an integer (``(int)(5 * x + 0.5)``, which truncates
   toward zero, as C does).
2. Walk every edge, closing edge included, one upsampled step at a time along its longer axis,
   rounding the other coordinate from the endpoint with the smaller value of the walked axis
   (so the walk does not depend on the edge's direction).
3. Keep the points where the walk crosses the centre column of an original pixel (upsampled
   ``x ≡ 2 (mod 5)``); each marks the first pixel below the boundary in that column.
4. Fill: in column-major order (COCO's run-length order), every boundary mark toggles the mask.

Several rings of one object are rasterized separately and united, as ``annToRLE`` merges them.

Examples
--------
>>> from geoiou.evaluation.coco_rasterize import coco_compat_rasterize
>>> coco_compat_rasterize([[1, 1, 4, 1, 4, 3, 1, 3]], height=4, width=6).astype(int)  # [1, 4) x [1, 3)
array([[0, 0, 0, 0, 0, 0],
       [0, 1, 1, 1, 0, 0],
       [0, 1, 1, 1, 0, 0],
       [0, 0, 0, 0, 0, 0]])
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import shapely

from geoiou._validation import invalid_argument as _fail
from geoiou.regions import Mask

__all__ = ["coco_compat_counts", "coco_compat_polygon_masks", "coco_compat_rasterize"]

#: pycocotools' upsampling factor.
SCALE = 5.0
#: What x86's ``cvttsd2si`` returns for a NaN (the C cast of a zero-length edge's slope is undefined).
INT_MIN = -(2**31)




def _c_int(values: np.ndarray) -> np.ndarray:
    """C's ``(int)`` cast of doubles: truncation toward zero (NaN becomes INT_MIN, as on x86)."""
    nan = np.isnan(values)
    result = np.trunc(np.where(nan, 0.0, values)).astype(np.int64)
    result[nan] = INT_MIN
    return result


def _ring_array(ring: Any, param: str) -> np.ndarray:
    """A ring as an ``(n, 2)`` float64 array, from ``(n, 2)`` vertices or COCO's flat ``[x0, y0, x1, ...]``."""
    try:
        array = np.asarray(ring, dtype=np.float64)
    except (TypeError, ValueError):
        raise _fail(param, "a ring of numbers: [x0, y0, x1, y1, ...] or (n, 2) vertices", ring) from None
    if array.ndim == 1 and array.size % 2 == 0:
        array = array.reshape(-1, 2)
    if array.ndim != 2 or array.shape[1] != 2 or len(array) < 3:
        raise _fail(param, "a ring of at least 3 vertices: [x0, y0, x1, y1, ...] or (n, 2) vertices",
                    f"shape {np.shape(ring)}")
    if not np.isfinite(array).all():
        raise _fail(param, "finite coordinates (no NaN or inf)", array[~np.isfinite(array).all(axis=1)][0])
    return array


def _check_size(height: Any, width: Any) -> tuple[int, int]:
    for name, value in (("height", height), ("width", width)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) or value < 1:
            raise _fail(name, "a positive integer", value)
    return int(height), int(width)


def _boundary_positions(xy: np.ndarray, height: int, width: int) -> np.ndarray:
    """Column-major pixel positions ``x * height + y`` where pycocotools' fill toggles, for one ring."""
    # 1. Upsample and round the vertices; close the ring.
    x = _c_int(SCALE * xy[:, 0] + 0.5)
    y = _c_int(SCALE * xy[:, 1] + 0.5)
    x_start, x_end = x, np.roll(x, -1)
    y_start, y_end = y, np.roll(y, -1)
    # 2. Walk each edge (int arithmetic as in C; only the slope is a double).
    dx = np.abs(x_end - x_start)
    dy = np.abs(y_start - y_end)
    along_x = dx >= dy
    flip = (along_x & (x_start > x_end)) | (~along_x & (y_start > y_end))
    xs = np.where(flip, x_end, x_start)
    xe = np.where(flip, x_start, x_end)
    ys = np.where(flip, y_end, y_start)
    ye = np.where(flip, y_start, y_end)
    steps = np.where(along_x, dx, dy)
    with np.errstate(invalid="ignore", divide="ignore"):  # a zero-length edge: 0 / 0, as in C
        slope = np.where(along_x, (ye - ys).astype(np.float64) / dx, (xe - xs).astype(np.float64) / dy)
    count = steps + 1
    edge = np.repeat(np.arange(len(x)), count)
    first = np.cumsum(count) - count
    d = np.arange(int(count.sum())) - first[edge]
    t = np.where(flip[edge], steps[edge] - d, d)
    rounded_base = np.where(along_x[edge], ys[edge], xs[edge]).astype(np.float64)
    with np.errstate(invalid="ignore"):
        rounded = _c_int(rounded_base + slope[edge] * t.astype(np.float64) + 0.5)
    walked = t + np.where(along_x[edge], xs[edge], ys[edge])
    u = np.where(along_x[edge], walked, rounded)
    v = np.where(along_x[edge], rounded, walked)
    # 3. Keep the crossings of pixel-centre columns, downsampled.
    changed = np.flatnonzero(u[1:] != u[:-1]) + 1
    u_now, u_before = u[changed], u[changed - 1]
    xd = np.where(u_now < u_before, u_now, u_now - 1).astype(np.float64)
    xd = (xd + 0.5) / SCALE - 0.5
    keep = (np.floor(xd) == xd) & (xd >= 0) & (xd <= width - 1)
    yd = np.minimum(v[changed], v[changed - 1]).astype(np.float64)
    yd = (yd + 0.5) / SCALE - 0.5
    yd = np.ceil(np.clip(yd, 0, height))
    return xd[keep].astype(np.int64) * height + yd[keep].astype(np.int64)


def _toggle_runs(positions: np.ndarray, pixels: int) -> tuple[np.ndarray, np.ndarray]:
    """The runs ``[start, stop)`` of the column-major scan that toggles at each position (an even count cancels)."""
    values, counts = np.unique(positions[positions < pixels], return_counts=True)
    toggles = values[counts % 2 == 1]
    starts, stops = toggles[0::2], toggles[1::2]
    if len(stops) < len(starts):  # the last run reaches the end of the image
        stops = np.append(stops, pixels)
    return starts, stops


def _union_runs(starts: np.ndarray, stops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted, disjoint, non-touching runs covering the same pixels as the runs given (pycocotools' merge)."""
    if len(starts) == 0:
        return starts, stops
    order = np.argsort(starts, kind="stable")
    starts, stops = starts[order], stops[order]
    reach = np.maximum.accumulate(stops)
    first = np.ones(len(starts), dtype=bool)
    first[1:] = starts[1:] > reach[:-1]  # a run that starts past everything before it opens a new one
    return starts[first], np.maximum.reduceat(stops, np.flatnonzero(first))


def _object_runs(rings: Sequence[np.ndarray], height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Column-major runs of the union of the rings' rasters."""
    pixels = height * width
    runs = [_toggle_runs(_boundary_positions(ring, height, width), pixels) for ring in rings]
    if not runs:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return _union_runs(np.concatenate([r[0] for r in runs]), np.concatenate([r[1] for r in runs]))


def coco_compat_rasterize(rings: Sequence[Any], height: int, width: int) -> np.ndarray:
    """Rasterize polygon rings exactly as pycocotools does (``frPyObjects`` then ``merge``).

    Parameters
    ----------
    rings : sequence of rings
        The rings of one object, each COCO's flat ``[x0, y0, x1, y1, ...]`` or an ``(n, 2)`` array
        of vertices (at least 3). Any ring is accepted, also self-intersecting or reaching outside
        the image: the fill follows pycocotools' even-odd scan whatever the ring.
    height, width : int
        The image size in pixels.

    Returns
    -------
    ndarray of bool, shape (height, width)
        The union of the rings' rasters: equal, pixel for pixel, to
        ``pycocotools.mask.decode(pycocotools.mask.merge(pycocotools.mask.frPyObjects(rings, height, width)))``.

    See Also
    --------
    geoiou.evaluation.detection.evaluate_coco : ``polygon_iou="pycocotools"`` rasterizes polygons with this.

    Notes
    -----
    This is pycocotools' scan conversion, not an exact one: a pixel belongs to the raster when the
    polygon covers its centre, up to the rounding of the vertices to a fifth of a pixel. Use it only
    to reproduce official COCO numbers; geoiou's own comparisons of polygons are exact.

    Examples
    --------
    >>> import numpy as np
    >>> raster = coco_compat_rasterize([[(0, 0), (10, 0), (0, 10)]], height=10, width=10)
    >>> int(raster.sum())  # the exact triangle has area 50; the pixels whose centre it covers
    45
    """
    height, width = _check_size(height, width)
    if isinstance(rings, np.ndarray) and rings.ndim == 2 and rings.shape[1] == 2:
        raise _fail("rings", "a sequence of rings (wrap a single ring in a list)", f"an array of shape {rings.shape}")
    starts, stops = _object_runs([_ring_array(ring, f"rings[{i}]") for i, ring in enumerate(rings)], height, width)
    steps = np.zeros(height * width + 1, dtype=np.int8)
    steps[starts] = 1  # entering the raster (runs are disjoint and never touch)
    steps[stops] = -1  # leaving it
    inside = np.cumsum(steps[:-1], dtype=np.int8).view(bool)
    return np.ascontiguousarray(inside.reshape(width, height).T)


def coco_compat_polygon_masks(geometries: np.ndarray, height: int, width: int, param: str) -> Mask:
    """Rasterize shapely (Multi)Polygons as pycocotools rasterizes their rings: a `Mask` batch of shape ``(N,)``.

    Each part's exterior ring is one COCO ring (vertices as stored, closing vertex dropped); a hole
    cannot be written in COCO's polygon format and is refused. The masks are built from their runs,
    as pycocotools keeps them: no ``height x width`` array is made per object.
    """
    rles = []
    for i, geometry in enumerate(geometries):
        rings = []
        for part in shapely.get_parts(geometry):
            if part.is_empty:
                continue
            if len(part.interiors):
                raise _fail(param, "polygons without holes for polygon_iou='pycocotools' (COCO's polygon "
                            "format has none)", f"a polygon with {len(part.interiors)} hole(s) at index {i}")
            rings.append(np.asarray(part.exterior.coords)[:-1])
        rles.append({"size": [height, width], "counts": coco_compat_counts(rings, height, width)})
    return Mask.from_rle(rles) if rles else Mask(np.zeros((0, height, width), dtype=bool))


def coco_compat_counts(rings: Sequence[np.ndarray], height: int, width: int) -> list[int]:
    """Uncompressed COCO RLE counts of the rings' raster as pycocotools makes it, without any pixel array.

    The counts are the lengths of alternating false and true runs in column-major order, from the
    first pixel; ``{"size": [height, width], "counts": ...}`` is then a COCO RLE.

    Examples
    --------
    >>> triangle = np.array([(0, 0), (10, 0), (0, 10)])
    >>> counts = coco_compat_counts([triangle], 10, 10)
    >>> sum(counts[1::2]), int(coco_compat_rasterize([triangle], 10, 10).sum())  # the true pixels, both ways
    (45, 45)
    """
    starts, stops = _object_runs(rings, height, width)
    edges = np.concatenate([[0], np.column_stack([starts, stops]).ravel(), [height * width]])
    return np.diff(edges).tolist()
