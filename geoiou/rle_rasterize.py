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
from geoiou.regions import Polygon
from geoiou.regions.ragged import ragged_arange

__all__ = ["coco_compat_counts", "coco_compat_rasterize"]

#: pycocotools' upsampling factor.
SCALE = 5.0
#: Walked points of the rasterizer held at once (each costs about 100 bytes of working arrays).
RASTER_CHUNK = 1 << 21
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
    """Open rings laid end to end (no closing vertex), each with its object and the image size it is drawn on."""

    xy: np.ndarray  #: (V, 2) float64 vertices
    offsets: np.ndarray  #: (R + 1,) int64: ring r is ``xy[offsets[r]:offsets[r + 1]]``
    owner: np.ndarray  #: (R,) int64: the object of each ring, non-decreasing
    heights: np.ndarray  #: (R,) int64
    widths: np.ndarray  #: (R,) int64


def _boundary_positions(rings: _Rings) -> tuple[np.ndarray, np.ndarray]:
    """Column-major pixel positions ``x * height + y`` where pycocotools' fill toggles, and the ring of each.

    pycocotools walks every edge one upsampled step at a time and keeps the steps whose walked
    column ``u`` changes across a pixel-centre column (``min(u) ≡ 2 mod 5``). Only those steps
    are computed here, with the same floating-point expressions: on an edge walked along x every
    step changes ``u``, so the kept steps are every fifth one, found by arithmetic; on an edge
    walked along y, ``u`` is rounded at every step (a cheap expression) and the changes found.
    The step between one edge's last point and the next edge's first point is checked as well.
    """
    edges = _Edges.of(rings)
    parts = [_crossings_along_x(edges), _crossings_along_y(edges), _crossings_at_joints(edges)]
    ring = np.concatenate([part[2] for part in parts])
    column = np.concatenate([part[0] for part in parts]).astype(np.float64)
    low_v = np.concatenate([part[1] for part in parts]).astype(np.float64)
    height, width = rings.heights[ring], rings.widths[ring]
    # 3. Downsample: keep the crossings of pixel-centre columns inside the image.
    xd = (column + 0.5) / SCALE - 0.5
    keep = (np.floor(xd) == xd) & (xd >= 0) & (xd <= width - 1)
    yd = np.ceil(np.clip((low_v + 0.5) / SCALE - 0.5, 0, height))
    return xd[keep].astype(np.int64) * height[keep] + yd[keep].astype(np.int64), ring[keep]


class _Edges(NamedTuple):
    """Every edge of every ring, upsampled and rounded, ordered so that the walk does not depend on its direction."""

    xs: np.ndarray
    ys: np.ndarray
    dx: np.ndarray
    dy: np.ndarray
    along_x: np.ndarray
    flip: np.ndarray
    slope: np.ndarray
    ring: np.ndarray
    last_of_ring: np.ndarray  #: bool: the ring's closing edge (no step follows it)

    @classmethod
    def of(cls, rings: _Rings) -> _Edges:
        xy, offsets = rings.xy, rings.offsets
        filled = offsets[1:] > offsets[:-1]
        ring = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        following = np.arange(1, len(xy) + 1)
        following[offsets[1:][filled] - 1] = offsets[:-1][filled]  # close each ring
        # 1. Upsample and round the vertices.
        x = _c_int(SCALE * xy[:, 0] + 0.5)
        y = _c_int(SCALE * xy[:, 1] + 0.5)
        x_start, x_end, y_start, y_end = x, x[following], y, y[following]
        # 2. Each edge as pycocotools walks it (int arithmetic as in C; only the slope is a double).
        dx, dy = np.abs(x_end - x_start), np.abs(y_start - y_end)
        along_x = dx >= dy
        flip = (along_x & (x_start > x_end)) | (~along_x & (y_start > y_end))
        xs, xe = np.where(flip, x_end, x_start), np.where(flip, x_start, x_end)
        ys, ye = np.where(flip, y_end, y_start), np.where(flip, y_start, y_end)
        with np.errstate(invalid="ignore", divide="ignore"):  # a zero-length edge: 0 / 0, as in C
            slope = np.where(along_x, (ye - ys).astype(np.float64) / dx, (xe - xs).astype(np.float64) / dy)
        last_of_ring = np.zeros(len(xy), dtype=bool)
        last_of_ring[offsets[1:][filled] - 1] = True
        return cls(xs, ys, dx, dy, along_x, flip, slope, ring, last_of_ring)

    def point(self, edge: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(u, v)`` of the point at step `t` (from the edge's normalized start) of each edge."""
        along_x = self.along_x[edge]
        walked = t + np.where(along_x, self.xs[edge], self.ys[edge])
        with np.errstate(invalid="ignore"):
            rounded = _c_int(
                np.where(along_x, self.ys[edge], self.xs[edge]).astype(np.float64)
                + self.slope[edge] * t.astype(np.float64)
                + 0.5
            )
        return np.where(along_x, walked, rounded), np.where(along_x, rounded, walked)


def _crossings_along_x(edges: _Edges) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Steps ``t -> t + 1`` of edges walked along x whose lower column ``xs + t`` is a pixel-centre column (2 mod 5)."""
    edge = np.flatnonzero(edges.along_x)
    first = (2 - edges.xs[edge]) % 5  # the first step from a centre column
    count = np.maximum((edges.dx[edge] - 1 - first) // 5 + 1, 0)
    t, owner = ragged_arange(np.zeros(len(edge), dtype=np.int64), count)
    edge, t = edge[owner], first[owner] + 5 * t
    _, v_before = edges.point(edge, t)
    _, v_after = edges.point(edge, t + 1)
    return edges.xs[edge] + t, np.minimum(v_before, v_after), edges.ring[edge]


def _crossings_along_y(edges: _Edges) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Steps ``t -> t + 1`` of edges walked along y where the rounded column changes."""
    edge = np.flatnonzero(~edges.along_x)
    t, owner = ragged_arange(np.zeros(len(edge), dtype=np.int64), edges.dy[edge] + 1)
    edge = edge[owner]
    with np.errstate(invalid="ignore"):
        u = _c_int(edges.xs[edge].astype(np.float64) + edges.slope[edge] * t.astype(np.float64) + 0.5)
    changed = np.flatnonzero((u[1:] != u[:-1]) & (edge[1:] == edge[:-1]))
    # The slope is below 1, so the column moves by one: the lower one is the crossed column's left neighbour.
    return np.minimum(u[changed], u[changed + 1]), edges.ys[edge[changed]] + t[changed], edges.ring[edge[changed]]


def _crossings_at_joints(edges: _Edges) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The step from each edge's last walked point to the next edge's first (not across the ring's start)."""
    edge = np.flatnonzero(~edges.last_of_ring)
    steps = np.where(edges.along_x, edges.dx, edges.dy)
    # The walk goes from t = 0 to t = steps, or back when the edge was flipped.
    u_before, v_before = edges.point(edge, np.where(edges.flip[edge], 0, steps[edge]))
    u_after, v_after = edges.point(edge + 1, np.where(edges.flip[edge + 1], steps[edge + 1], 0))
    changed = u_after != u_before
    column = np.where(u_after < u_before, u_after, u_after - 1)
    return column[changed], np.minimum(v_before, v_after)[changed], edges.ring[edge[changed]]


def _toggle_runs(
    positions: np.ndarray, ring: np.ndarray, pixels: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Runs ``[start, stop)`` of each ring's column-major scan that toggles at its positions, and their rings.

    A position toggled an even number of times cancels; a ring whose last run stays open runs to
    the end of its image (`pixels` per ring).
    """
    inside = positions < pixels[ring]
    # One sort of ``ring · stride + position`` (SIMD-sorted integers) orders by ring, then position.
    stride = int(pixels.max(initial=0)) + 1
    keys = np.sort(ring[inside] * stride + positions[inside])
    ring = keys // stride
    positions = keys - ring * stride
    new = np.ones(len(positions), dtype=bool)
    new[1:] = (positions[1:] != positions[:-1]) | (ring[1:] != ring[:-1])
    firsts = np.flatnonzero(new)
    odd = np.diff(firsts, append=len(positions)) % 2 == 1
    toggles, ring = positions[firsts[odd]], ring[firsts[odd]]
    # Within each ring, toggles alternate: start, stop, start, ...
    ring_first = np.flatnonzero(np.concatenate([[True], ring[1:] != ring[:-1]])) if len(ring) else ring
    rank = np.arange(len(ring)) - np.repeat(ring_first, np.diff(ring_first, append=len(ring)))
    is_start = rank % 2 == 0
    following_same_ring = np.concatenate([ring[1:] == ring[:-1], [False]])
    stops = np.where(following_same_ring, np.roll(toggles, -1), pixels[ring])
    return toggles[is_start], stops[is_start], ring[is_start]


def _union_runs(starts: np.ndarray, stops: np.ndarray, owner: np.ndarray, pixels: int) -> tuple[np.ndarray, ...]:
    """Sorted, disjoint, non-touching runs of each owner covering the same pixels as its runs (pycocotools' merge).

    Runs of owner k are shifted by ``k * (pixels + 1)`` so that one running maximum serves all
    owners without one reaching into the next.
    """
    if len(starts) == 0:
        return starts, stops, owner
    shifted = owner * (pixels + 1)
    order = np.argsort(starts + shifted)  # by owner, then start (runs with equal keys merge in any order)
    shift = shifted[order]
    starts, stops, owner = starts[order] + shift, stops[order] + shift, owner[order]
    reach = np.maximum.accumulate(stops)
    first = np.ones(len(starts), dtype=bool)
    first[1:] = starts[1:] > reach[:-1]  # a run that starts past everything before it opens a new one
    at = np.flatnonzero(first)
    shift = shift[at]
    return starts[at] - shift, np.maximum.reduceat(stops, at) - shift, owner[at]


def _object_runs(rings: _Rings, sizes: np.ndarray) -> coco_rle.Runs:
    """Column-major runs of each object (of `sizes` ``(n, 2)``): the union of its rings' rasters, all at once."""
    n_objects = len(sizes)
    pixels = rings.heights * rings.widths
    most = int(pixels.max(initial=0))
    if (
        max(n_objects, len(pixels)) * (most + 1) >= 2**62
    ):  # pragma: no cover - beyond any image set: keys would overflow
        raise ValueError("too many pixels to rasterize at once")
    positions, ring = _boundary_positions(rings)
    starts, stops, ring = _toggle_runs(positions, ring, pixels)
    starts, stops, owner = _union_runs(starts, stops, rings.owner[ring], most)
    offsets = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=n_objects))]).astype(np.int64)
    return coco_rle.Runs(sizes, starts, stops, offsets)


def _single_object_runs(rings: Sequence[np.ndarray], height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Column-major runs of the union of the rasters of one object's rings."""
    if not rings:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    lengths = np.array([len(ring) for ring in rings], dtype=np.int64)
    runs = _object_runs(
        _Rings(
            np.concatenate(rings),
            np.concatenate([[0], np.cumsum(lengths)]),
            np.zeros(len(rings), dtype=np.int64),
            np.full(len(rings), height),
            np.full(len(rings), width),
        ),
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
    from the polygons' coordinate arrays, `RASTER_CHUNK` walked points at a time, and kept as runs,
    as pycocotools keeps them: no ``height x width`` array is made per object.

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
    rings_of = np.searchsorted(ragged.ring_geometry, np.arange(len(sizes) + 1))  # objects' rings, in order
    pieces = [
        _runs_of_objects(ragged, rings_of[first : stop + 1], sizes[first:stop])
        for first, stop in _chunks(ragged, len(sizes))
    ]
    return coco_rle.Runs.concatenate(pieces)


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
    owner = np.repeat(np.arange(len(counts)), counts)
    ring_start = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    object_ring = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    pieces = []
    # Objects in chunks of about RASTER_CHUNK vertices (a bound on the walked points' memory, as above).
    per_object = ring_start[object_ring[1:]]
    bounds = (
        np.unique(
            np.r_[
                0,
                np.searchsorted(per_object, np.arange(1, int(per_object[-1] // RASTER_CHUNK) + 1) * RASTER_CHUNK) + 1,
                len(counts),
            ].clip(0, len(counts))
        )
        if len(counts)
        else np.array([0, 0])
    )
    for first, stop in zip(bounds[:-1], bounds[1:]):
        rings = np.arange(object_ring[first], object_ring[stop])
        vertex_first, vertex_stop = ring_start[object_ring[first]], ring_start[object_ring[stop]]
        local_owner = owner[rings] - first
        pieces.append(
            _object_runs(
                _Rings(
                    vertices[vertex_first:vertex_stop],
                    ring_start[object_ring[first] : object_ring[stop] + 1] - vertex_first,
                    local_owner,
                    sizes[owner[rings], 0],
                    sizes[owner[rings], 1],
                ),
                sizes[first:stop],
            )
        )
    return coco_rle.Runs.concatenate(pieces)


def _chunks(ragged: Any, n: int) -> list[tuple[int, int]]:
    """Ranges of objects of about `RASTER_CHUNK` walked points each (about 5 per perimeter pixel, plus 1 per edge)."""
    if n == 0:
        return [(0, 0)]
    steps = (
        np.abs(np.diff(ragged.coords, axis=0)).max(axis=1, initial=0) * SCALE + 2 if len(ragged.coords) else np.zeros(0)
    )
    walked = np.concatenate([[0.0], np.cumsum(steps)])  # up to each vertex; pairs across rings only add a little
    first, stop = ragged.geometry_vertex_offsets[:-1], ragged.geometry_vertex_offsets[1:]
    per_object = np.cumsum(
        np.where(stop > first, walked[np.maximum(stop - 1, 0)] - walked[np.minimum(first, len(walked) - 1)], 0)
    )
    ends = np.unique(
        np.searchsorted(per_object, np.arange(1, int(per_object[-1] // RASTER_CHUNK) + 1) * RASTER_CHUNK) + 1
    )
    bounds = [0, *ends[(ends > 0) & (ends < n)].tolist(), n]
    return list(zip(bounds[:-1], bounds[1:]))


def _runs_of_objects(ragged: Any, ring_range: np.ndarray, sizes: np.ndarray) -> coco_rle.Runs:
    """Runs of the objects whose rings are ``ring_range[0]:ring_range[-1]`` of `ragged` (sizes given)."""
    rings = np.arange(ring_range[0], ring_range[-1])
    starts, stops = ragged.ring_offsets[rings], ragged.ring_offsets[rings + 1] - 1  # the closing vertex dropped
    vertex, _ = ragged_arange(starts, stops)
    lengths = stops - starts
    owner = np.repeat(np.arange(len(ring_range) - 1), np.diff(ring_range))
    return _object_runs(
        _Rings(
            ragged.coords[vertex], np.concatenate([[0], np.cumsum(lengths)]), owner, sizes[owner, 0], sizes[owner, 1]
        ),
        sizes,
    )


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
