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

The rasterizer sits beside the RLE codec (`geoiou.rle`), below both of its users: the COCO reader
of `geoiou.io` (``polygons="pycocotools"``) and the COCO evaluation (``polygon_iou="pycocotools"``).
`coco_compat_rasterize` is also importable from `geoiou.evaluation`.

Examples
--------
>>> from geoiou.rle_rasterize import coco_compat_rasterize
>>> coco_compat_rasterize([[1, 1, 4, 1, 4, 3, 1, 3]], height=4, width=6).astype(int)  # [1, 4) x [1, 3)
array([[0, 0, 0, 0, 0, 0],
       [0, 1, 1, 1, 0, 0],
       [0, 1, 1, 1, 0, 0],
       [0, 0, 0, 0, 0, 0]])
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

from geoiou import rle as coco_rle
from geoiou._validation import invalid_argument as _fail
from geoiou.raster_loops import object_runs
from geoiou.regions import Polygon
from geoiou.regions.ragged import ragged_arange

__all__ = ["coco_compat_counts", "coco_compat_rasterize"]


def _ring_array(ring: Any, param: str) -> np.ndarray:
    """A ring as an ``(n, 2)`` float64 array, from ``(n, 2)`` vertices or COCO's flat ``[x0, y0, x1, ...]``."""
    try:
        array = np.asarray(ring, dtype=np.float64)
    except (TypeError, ValueError):
        raise _fail(param, "a ring of numbers: [x0, y0, x1, y1, ...] or (n, 2) vertices", ring) from None
    if array.ndim == 1 and array.size % 2 == 0:
        array = array.reshape(-1, 2)
    if array.ndim != 2 or array.shape[1] != 2 or len(array) < 3:
        raise _fail(
            param, "a ring of at least 3 vertices: [x0, y0, x1, y1, ...] or (n, 2) vertices", f"shape {np.shape(ring)}"
        )
    if not np.isfinite(array).all():
        raise _fail(param, "finite coordinates (no NaN or inf)", array[~np.isfinite(array).all(axis=1)][0])
    return array


def _check_size(height: Any, width: Any) -> tuple[int, int]:
    for name, value in (("height", height), ("width", width)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) or value < 1:
            raise _fail(name, "a positive integer", value)
    return int(height), int(width)


class _Rings(NamedTuple):
    """Open rings laid end to end (no closing vertex), each with its object."""

    xy: np.ndarray  #: (V, 2) float64 vertices
    offsets: np.ndarray  #: (R + 1,) int64: ring r is ``xy[offsets[r]:offsets[r + 1]]``
    owner: np.ndarray  #: (R,) int64: the object of each ring, non-decreasing


def _object_runs(rings: _Rings, sizes: np.ndarray) -> coco_rle.Runs:
    """Column-major runs of each object (`sizes` ``(n, 2)``): the union of its rings' rasters, objects in parallel."""
    object_ring = np.searchsorted(rings.owner, np.arange(len(sizes) + 1)).astype(np.int64)
    starts, stops, offsets = object_runs(
        np.ascontiguousarray(rings.xy, dtype=np.float64), rings.offsets.astype(np.int64), object_ring, sizes
    )
    return coco_rle.Runs(sizes, starts, stops, offsets)


def _single_object_runs(rings: Sequence[np.ndarray], height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Column-major runs of the union of the rasters of one object's rings."""
    if not rings:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    lengths = np.array([len(ring) for ring in rings], dtype=np.int64)
    runs = _object_runs(
        _Rings(np.concatenate(rings), np.concatenate([[0], np.cumsum(lengths)]), np.zeros(len(rings), dtype=np.int64)),
        np.array([[height, width]]),
    )
    return runs.starts, runs.stops


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
    geoiou.evaluation.evaluate_coco : ``polygon_iou="pycocotools"`` rasterizes polygons with this.

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
    starts, stops = _single_object_runs(
        [_ring_array(ring, f"rings[{i}]") for i, ring in enumerate(rings)], height, width
    )
    steps = np.zeros(height * width + 1, dtype=np.int8)
    steps[starts] = 1  # entering the raster (runs are disjoint and never touch)
    steps[stops] = -1  # leaving it
    inside = np.cumsum(steps[:-1], dtype=np.int8).view(bool)
    return np.ascontiguousarray(inside.reshape(width, height).T)


def coco_compat_polygon_runs(polygons: Polygon, sizes: np.ndarray, param: str) -> coco_rle.Runs:
    """Rasterize a batch of polygons as pycocotools rasterizes their rings, each at its own image size.

    Each part's exterior ring is one COCO ring (vertices as stored, closing vertex dropped); a hole
    cannot be written in COCO's polygon format and is refused. All rings are rasterized together
    from the polygons' coordinate arrays, objects in parallel, and kept as runs, as pycocotools
    keeps them: no ``height x width`` array is made per object.

    Parameters
    ----------
    polygons : Polygon
        A 1-D batch.
    sizes : ndarray of shape (N, 2)
        ``(height, width)`` of each polygon's image.
    param : str
        The name of the polygons in messages.

    Examples
    --------
    >>> import numpy as np, geoiou
    >>> triangles = geoiou.Polygon.from_rings(np.array([[(0, 0), (10, 0), (0, 10)], [(1, 1), (3, 1), (3, 3)]]))
    >>> runs = coco_compat_polygon_runs(triangles, np.array([[10, 10], [4, 5]]), "triangles")
    >>> pixels = np.add.reduceat(runs.stops - runs.starts, runs.offsets[:-1])
    >>> pixels.tolist(), runs.sizes.tolist()  # 45 pixel centres in the first triangle, as pycocotools finds
    ([45, 1], [[10, 10], [4, 5]])
    """
    ragged = polygons._store.take(polygons._index.ravel())  # the batch's coordinate arrays, in batch order
    holes = np.flatnonzero(~ragged.is_exterior)
    if holes.size:
        index = int(ragged.ring_geometry[holes[0]])
        raise _fail(
            param,
            "polygons without holes for polygon_iou='pycocotools' (COCO's polygon format has none)",
            f"a polygon with {int((ragged.ring_geometry[holes] == index).sum())} hole(s) at index {index}",
        )
    sizes = np.asarray(sizes, dtype=np.int64).reshape(-1, 2)
    rings = np.arange(len(ragged.ring_geometry))
    starts, stops = ragged.ring_offsets[rings], ragged.ring_offsets[rings + 1] - 1  # the closing vertex dropped
    vertex, _ = ragged_arange(starts, stops)
    ring_start = np.concatenate([[0], np.cumsum(stops - starts)]).astype(np.int64)
    return _object_runs(_Rings(ragged.coords[vertex], ring_start, ragged.ring_geometry.astype(np.int64)), sizes)


def coco_compat_parts_runs(
    vertices: np.ndarray, lengths: np.ndarray, counts: np.ndarray, sizes: np.ndarray
) -> coco_rle.Runs:
    """Rasterize objects written as COCO polygon parts, all at once, as pycocotools' ``annToRLE`` does.

    Object ``k`` has ``counts[k]`` parts (rings as written, not closed, no validity check), the
    union of whose rasters is its mask on a ``sizes[k]`` image. The rings of all objects are laid
    end to end: ``lengths`` vertices each in ``vertices``.

    Examples
    --------
    >>> square = np.array([(1, 1), (4, 1), (4, 4), (1, 4)], dtype=float)
    >>> runs = coco_compat_parts_runs(np.concatenate([square, square + 2]), np.array([4, 4]), np.array([2]),
    ...                               np.array([[8, 8]]))
    >>> int((runs.stops - runs.starts).sum()) == int(coco_compat_rasterize([square, square + 2], 8, 8).sum())
    True
    """
    sizes = np.asarray(sizes, dtype=np.int64).reshape(-1, 2)
    owner = np.repeat(np.arange(len(counts)), counts).astype(np.int64)
    ring_start = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return _object_runs(_Rings(np.asarray(vertices, dtype=np.float64), ring_start, owner), sizes)


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
    starts, stops = _single_object_runs([np.asarray(ring, dtype=np.float64) for ring in rings], height, width)
    edges = np.concatenate([[0], np.column_stack([starts, stops]).ravel(), [height * width]])
    counts: list[int] = np.diff(edges).tolist()
    return counts
