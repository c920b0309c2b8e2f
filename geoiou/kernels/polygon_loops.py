"""The exact area shared by two regions with straight edges, from their edges alone: compiled loops.

Pick a point O. Every directed ring edge e = (p, q) spans the triangle T_e = (O, p, q), signed
by its orientation. For a valid polygon A (exteriors and holes, several parts), the signed
triangles add up to A's indicator function almost everywhere:

    1_A(x) = Σ_e σ_e · 1_{T_e}(x),    σ_e = ±1,

which is the shoelace formula before it is integrated. Multiplying the sums for A and B and
integrating gives an identity with no approximation in it:

    |A ∩ B| = Σ_{e ∈ ∂A} Σ_{f ∈ ∂B} σ_e σ_f · |T_e ∩ T_f|.

Each term is the area shared by two triangles with the common apex O, which has a closed form:
inside the angle the two triangles share, each triangle reaches from O to its edge's line, so the
shared part reaches to the nearer of the two lines, switching at most once, where they cross.
The intersection polygon is never built, and each term needs a fixed handful of operations.

Why this is exact and robust: every term is a continuous function of the vertices, bounded by
the smaller of the two triangles' areas. There are no topological decisions whose error could
be larger than rounding (a vertex on an edge, shared or overlapping edges, touching holes and
identical polygons are not special cases), so no configuration needs another method. O is
placed at the centre of the pair's common bounds and coordinates are taken relative to it and
scaled by a power of two, so the result does not depend on where the pair lies (coordinates at
1e15, near 1e-300, or near the smallest normal float behave alike). A rotated box or a box
paired with a polygon is measured the same way: its four edges are built relative to O (its
centre minus O first, then its rotated half sizes), never as a polygon in absolute coordinates.

How it runs: one compiled function measures one pair (`_polygon_pair`, `_rotated_polygon_pair`,
`_box_polygon_pair`): it prunes the pair by bounds, puts its frame at O, lays out each side's
edges in that frame (a "fan": per edge its two rays from O, twice its triangle's area, its sign
and the pseudo-angles the triangle spans), then `_fan_overlap` runs over the edge pairs. A cheap
test on the pseudo-angles keeps the edge pairs whose triangles share an angle (for two convex
polygons around O, about ``n + m`` of the ``n · m``) and the closed form runs on those. Large
polygons (more than `SORTED_CELLS` edge pairs) do not test every pair: with each side's edges
sorted by angle, short walks find the pairs the test keeps (`_cells_by_angle`). One
parallel loop per kind of pair runs that function over the pairs; each pair writes only its own
output, so the result has the same bits for any number of threads.

The terms have both signs and cancel, so they are summed with Neumaier's compensation: the sum
is the rounded sum of the rounded terms (shared edges on integer grids then come out exact). The
result is within a rounding bound (`ROUNDING` times the sum of the terms' magnitudes) of the
true area, which lies in ``[0, min(|a|, |b|)]``; where an end of that range is within the bound
it is the answer, so nested and identical regions share exactly the smaller area and touching
ones exactly 0. Two polygons are measured in a canonical order (`_polygon_order`: by their
vertices), so ``(a, b)`` and ``(b, a)`` run the same arithmetic and give the same bits.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from geoiou._compiled import jit, prange
from geoiou.kernels.formulas import MEASURE, MEASURED, Formula, Pairs
from geoiou.kernels.numba_formulas import PRUNED_COST_NS, Job, run_rows, value
from geoiou.kernels.sorted_search import insertion_point
from geoiou.regions.ragged import RaggedPolygons

__all__ = [
    "ROUNDING",
    "FRAME_PAIRS",
    "TABLE_PAIRS",
    "box_polygon_pairs",
    "box_polygon_shared_area",
    "polygon_pairs",
    "polygon_shared_area",
    "pseudo_angle",
    "region_rows",
    "rotated_polygon_pairs",
    "rotated_polygon_shared_area",
]

#: Zero as a plain int64: numba compiles a function called with a literal constant separately from the
#: same function called with a variable (likewise np.bool_ for booleans), which costs compile time.
_ZERO = np.int64(0)
_BEFORE_EQUAL = np.bool_(False)
#: One turn in pseudo-angle units (see `pseudo_angle`).
TURN = 4.0

#: Bound on the relative rounding error of one term (a generous count of its roundings, times 2^-53).
ROUNDING = 64 * float(np.finfo(np.float64).eps)
#: Rows of a fan (the edges of one side of a pair in its frame), one column per edge; see `_add_ring`.
_UX, _UY, _VX, _VY, _TWICE, _SIGN, _ANGLE, _WIDTH, _REST = range(9)
#: Pairs from which each region's bounds are read from its store's (cached) bounds rather than
#: computed by the pair from its vertices (the same numbers: minima and maxima are exact).
TABLE_PAIRS = 16
#: Pairs from which rotated boxes' frames (cos, sin, reach) are computed once per box, when the pairs
#: also outnumber the boxes: a small call (the sets of one image) is mostly pruned pairs, and an extra
#: compiled call costs tens of µs when the CPU's caches are cold (between one image and the next).
FRAME_PAIRS = 1024
#: Nanoseconds on one thread for a pair whose bounds overlap (two star polygons of about 20
#: vertices), for `in_parallel`.
PAIR_COST_NS = 800.0
#: Edge pairs of a polygon pair above which only those whose angles may overlap are visited (both
#: sides' edges sorted by angle): below, testing every pair costs less than the sorts (measured on
#: star polygons: even at 60 × 60 vertices, 1.7x faster at 200 × 200, 2.6x at 1000 × 1000).
SORTED_CELLS = 1 << 14
#: How much further than f's width the walk from f goes: covers the rounding of angles reckoned from f
#: rather than from e (a few units of 2^-52 on angles below TURN).
ANGLE_SLACK = 1e-12

#: A batch of polygons as the loops read it: the vertices of its closed rings ``(V, 2)``, its ring,
#: part and geometry offsets (`RaggedPolygons`' layout) and each geometry's area.
Store = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
Bounds = tuple[float, float, float, float]
Fan = np.ndarray


# --------------------------------------------------------------------------- Python entry points
def polygon_shared_area(
    a: RaggedPolygons, geometry_a: np.ndarray, b: RaggedPolygons, geometry_b: np.ndarray
) -> np.ndarray:
    """``|a[geometry_a[k]] ∩ b[geometry_b[k]]|`` for every k: the shared area of polygon pairs of two stores.

    Examples
    --------
    >>> square = np.array([[0, 0], [2, 0], [2, 2], [0, 2], [0, 0]], dtype=float)
    >>> a = RaggedPolygons.from_closed_rings(square, np.array([0, 5]))
    >>> b = RaggedPolygons.from_closed_rings(np.concatenate([square + 1, square + 2]), np.array([0, 5, 10]))
    >>> polygon_shared_area(a, np.array([0, 0]), b, np.array([0, 1]))  # an overlap, and a corner touching
    array([1., 0.])
    """
    which_a, rows_a = region_rows(geometry_a, a.size)
    which_b, rows_b = region_rows(geometry_b, b.size)
    out = np.empty(len(rows_a))
    polygon_pairs(a, which_a, b, which_b, Pairs(rows_a, rows_b), MEASURED, out)
    return out


def polygon_pairs(
    a: RaggedPolygons,
    geometry_a: np.ndarray,
    b: RaggedPolygons,
    geometry_b: np.ndarray,
    pairs: Pairs,
    formula: Formula,
    out: np.ndarray,
) -> None:
    """`apply` `formula` to the shared area of each of `pairs`, regions i of `a` being geometry ``geometry_a[i]``."""
    store_a, store_b = _store(a), _store(b)
    geometry_a, geometry_b = _geometries(geometry_a), _geometries(geometry_b)
    bounds_a, bounds_b = _bounds_table(a, geometry_a, pairs), _bounds_table(b, geometry_b, pairs)
    data = (*store_a, geometry_a, bounds_a, *store_b, geometry_b, bounds_b)
    run_rows(_polygon_pairs_serial, _polygon_pairs_parallel, data, pairs, formula, out, PAIR_COST_NS, PRUNED_COST_NS)


def polygon_single(a: RaggedPolygons, g_a: int, b: RaggedPolygons, g_b: int, code: int, zero_division: float) -> float:
    """The formula `code` of the shared area of polygon `g_a` of `a` and `g_b` of `b`: `_polygon_pairs_serial`'s
    measure and formula of one pair, in one compiled call."""
    value: float = _single_pair(_store(a), g_a, _store(b), g_b, code, zero_division)
    return value


def rotated_polygon_pairs(
    boxes: np.ndarray, polygons: RaggedPolygons, geometry: np.ndarray, pairs: Pairs, formula: Formula, out: np.ndarray
) -> None:
    """`apply` `formula` to ``|box ∩ polygon|`` of each of `pairs`, rotated boxes ``(..., 5)`` ``cx, cy, w, h, angle``.

    The box's edges are built in the pair's frame, so the result keeps its precision at any
    offset. ``cos`` and ``sin`` are exact at multiples of 90 degrees, as for `RotatedBox`.
    """
    _boxes_with_polygons(_floats(boxes.reshape(-1, 5)), polygons, geometry, pairs, formula, out)


def box_polygon_pairs(
    boxes: np.ndarray, polygons: RaggedPolygons, geometry: np.ndarray, pairs: Pairs, formula: Formula, out: np.ndarray
) -> None:
    """`apply` `formula` to ``|box ∩ polygon|`` of each of `pairs`, boxes ``(..., 4)`` ``x1, y1, x2, y2``."""
    _boxes_with_polygons(_floats(boxes.reshape(-1, 4)), polygons, geometry, pairs, formula, out)


def _boxes_with_polygons(
    boxes: np.ndarray, polygons: RaggedPolygons, geometry: np.ndarray, pairs: Pairs, formula: Formula, out: np.ndarray
) -> None:
    """Rotated boxes (5 columns: their frames tabled when they pay) or boxes (4 columns) against polygons."""
    store, geometry = _store(polygons), _geometries(geometry)
    tables = len(pairs) >= FRAME_PAIRS and len(pairs) >= len(boxes)
    frames = _rotated_table(boxes) if tables and boxes.shape[1] == 5 else _NO_FRAMES
    bounds = _bounds_table(polygons, geometry, pairs)
    data = (boxes, frames, *store, geometry, bounds)
    run_rows(_box_pairs_serial, _box_pairs_parallel, data, pairs, formula, out, PAIR_COST_NS, PRUNED_COST_NS)


def rotated_polygon_shared_area(
    boxes: np.ndarray, box_index: np.ndarray, polygons: RaggedPolygons, geometry: np.ndarray
) -> np.ndarray:
    """``|box ∩ polygon|`` of rotated boxes ``boxes[box_index[k]]`` and polygons ``geometry[k]`` of a store.

    Examples
    --------
    >>> ring = np.array([[0, 0], [2, 0], [2, 2], [0, 2], [0, 0.0]])
    >>> square = RaggedPolygons.from_closed_rings(ring, np.array([0, 5]))
    >>> rotated_polygon_shared_area(np.array([[2.0, 2.0, 2.0, 2.0, 90.0]]), np.array([0]), square, np.array([0]))
    array([1.])
    """
    out = np.empty(len(box_index))
    rotated_polygon_pairs(
        boxes, polygons, geometry, Pairs(_indices(box_index), _positions(len(geometry))), MEASURED, out
    )
    return out


def box_polygon_shared_area(
    boxes: np.ndarray, box_index: np.ndarray, polygons: RaggedPolygons, geometry: np.ndarray
) -> np.ndarray:
    """``|box ∩ polygon|`` of axis-aligned boxes ``boxes[box_index[k]]`` (``x1, y1, x2, y2``), polygons ``geometry[k]``.

    Examples
    --------
    >>> ring = np.array([[0, 0], [2, 0], [2, 2], [0, 2], [0, 0.0]])
    >>> square = RaggedPolygons.from_closed_rings(ring, np.array([0, 5]))
    >>> box_polygon_shared_area(np.array([[1.0, 1.0, 3.0, 3.0]]), np.array([0]), square, np.array([0]))
    array([1.])
    """
    out = np.empty(len(box_index))
    box_polygon_pairs(boxes, polygons, geometry, Pairs(_indices(box_index), _positions(len(geometry))), MEASURED, out)
    return out


def _bounds_table(polygons: RaggedPolygons, geometry: np.ndarray, pairs: Pairs) -> np.ndarray:
    """The bounds of each region (its geometry's, from the store's cached bounds) for a call of at least
    `TABLE_PAIRS` pairs; none for fewer (each pair computes its regions' bounds: the same numbers)."""
    if len(pairs) < TABLE_PAIRS:
        return _NO_BOUNDS
    return np.ascontiguousarray(polygons.bounds[geometry])


def region_rows(index: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Which regions of a batch of `size` to build per-region tables for, and each pair's row in them.

    Tables of the whole batch pay when there are at least as many pairs as regions; for fewer
    pairs each pair gets its own row, so a call's cost follows the pairs asked for, not the batch.
    """
    if len(index) >= size:
        return np.arange(size, dtype=np.int64), _indices(index)
    return _indices(index), np.arange(len(index), dtype=np.int64)


def _positions(count: int) -> np.ndarray:
    return np.arange(count, dtype=np.int64)


def _store(polygons: RaggedPolygons) -> Store:
    area = polygons.area
    if not (area.dtype == np.float64 and area.flags.c_contiguous and area.flags.writeable):
        area = _floats(area)
    return polygons.coords, polygons.ring_offsets, polygons.part_offsets, polygons.geometry_offsets, area


# numba compiles a read-only or non-contiguous array type apart, and the callers' arrays may be such
# views: the loops get writable contiguous copies of what is gathered per call (pairs, their boxes).
def _indices(index: np.ndarray) -> np.ndarray:
    index = np.asarray(index, dtype=np.int64)
    return index if index.flags.writeable and index.flags.c_contiguous else np.array(index)


def _geometries(index: np.ndarray) -> np.ndarray:
    """Each region's geometry in its store as a read-only C-contiguous int64 vector, as a Polygon's index is."""
    index = np.asarray(index, dtype=np.int64).reshape(-1)
    if index.flags.writeable or not index.flags.c_contiguous:
        index = np.array(index)
        index.flags.writeable = False
    return index


def _floats(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    return values if values.flags.writeable and values.flags.c_contiguous else np.array(values, order="C")


#: No per-region table: each pair computes its regions' bounds (or a box's frame) on the spot.
_NO_BOUNDS = np.empty((0, 4))
_NO_FRAMES = np.empty((0, 9))
#: The frame of an axis-aligned box, which its loop does not use.
_NO_FRAME = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


# --------------------------------------------------------------------------- per-region tables
@jit
def _geometry_bounds(store: Store, g: int) -> Bounds:
    coords, ring_offsets, part_offsets, geometry_offsets, _ = store
    start = ring_offsets[part_offsets[geometry_offsets[g]]]
    stop = ring_offsets[part_offsets[geometry_offsets[g + 1]]]
    if stop == start:
        return math.nan, math.nan, math.nan, math.nan
    xmin, ymin = coords[start, 0], coords[start, 1]
    xmax, ymax = xmin, ymin
    for k in range(start + 1, stop):
        x, y = coords[k, 0], coords[k, 1]
        xmin, xmax = min(xmin, x), max(xmax, x)
        ymin, ymax = min(ymin, y), max(ymax, y)
    return xmin, ymin, xmax, ymax


@jit
def _rotated_table(boxes: np.ndarray) -> np.ndarray:
    """`_rotated_row` of every box, as rows of a table."""
    table = np.empty((len(boxes), 9))
    for row in range(len(boxes)):
        (
            table[row, 0],
            table[row, 1],
            table[row, 2],
            table[row, 3],
            table[row, 4],
            table[row, 5],
            table[row, 6],
            table[row, 7],
            table[row, 8],
        ) = _rotated_row(boxes[row])
    return table


@jit(inline=True)
def _row_frame(frames: np.ndarray, i: int) -> tuple[float, float, float, float, float, float, float, float, float]:
    return (
        frames[i, 0],
        frames[i, 1],
        frames[i, 2],
        frames[i, 3],
        frames[i, 4],
        frames[i, 5],
        frames[i, 6],
        frames[i, 7],
        frames[i, 8],
    )


@jit
def _frame_meets(box: tuple[float, float, float, float, float, float, float, float, float], bounds: Bounds) -> bool:
    """Whether a rotated box (`_rotated_row`) and a polygon's bounds overlap with positive area.

    Bounds relative to the box's centre: differences of nearby floats are exact, so a sliver of
    overlap is not lost to the rounding of the box's absolute bounds far from the origin.
    """
    cx, cy, _, _, _, _, reach_x, reach_y, _ = box
    x0, y0, x1, y1 = bounds
    return _bounds_overlap((-reach_x, -reach_y, reach_x, reach_y), (x0 - cx, y0 - cy, x1 - cx, y1 - cy))


@jit
def _rotated_row(box: np.ndarray) -> tuple[float, float, float, float, float, float, float, float, float]:
    """``cx, cy, cos, sin, w/2, h/2``, the half extents along x and y, and the area ``w · h`` of a box."""
    cos, sin = _unit_vector(box[4])
    half_w, half_h = 0.5 * box[2], 0.5 * box[3]
    return (
        box[0],
        box[1],
        cos,
        sin,
        half_w,
        half_h,
        abs(cos) * half_w + abs(sin) * half_h,
        abs(sin) * half_w + abs(cos) * half_h,
        box[2] * box[3],
    )


@jit
def _unit_vector(angle: float) -> tuple[float, float]:
    """``cos, sin`` of `angle` in degrees, exact at multiples of 90 degrees, as `geoiou.kernels.rotated` computes them.

    Only the residual after whole quarter turns goes through cos and sin; the quarter turns are
    applied exactly (one of the two products in each sum is a signed zero).
    """
    turns: float = np.rint(angle / 90.0)
    residual = (angle - 90.0 * turns) * (np.pi / 180.0)
    quarter: float = turns - 4.0 * np.floor(0.25 * turns)
    quarter_cos = max(1.0 - quarter, quarter - 3.0)
    quarter_sin = min(quarter, 2.0 - quarter)
    cos, sin = math.cos(residual), math.sin(residual)
    return quarter_cos * cos - quarter_sin * sin, quarter_sin * cos + quarter_cos * sin


# --------------------------------------------------------------------------- drivers: one loop over the pairs
# Each kind of pair has one loop over the rows ``begin <= r < end`` of its pairs (`Pairs`), and a
# parallel driver that runs it over runs of rows (`run_rows`): the bits do not depend on the driver.
# A pair whose bounds do not meet (most of a matrix) shares nothing, decided without a call.
# The data of a loop is a flat tuple (`Job`): each side's store unpacked, then each region's geometry
# and the regions' bounds (or none); for boxes, the boxes and their frames (or none) first.
PolygonData = tuple[Any, ...]
BoxData = tuple[Any, ...]


@jit
def _polygon_pairs_serial(data: PolygonData, job: Job, begin: int, end: int) -> None:
    store_a, store_b = (data[0], data[1], data[2], data[3], data[4]), (data[7], data[8], data[9], data[10], data[11])
    geometry_a, bounds_a, geometry_b, bounds_b = data[5], data[6], data[12], data[13]
    index_a, index_b, outer, out, code, areas_a, areas_b, given, zero_division = job
    has_given, tables_a, tables_b = given.shape[0] > 0, bounds_a.shape[0] > 0, bounds_b.shape[0] > 0
    columns = index_b.shape[0] if outer else 1
    for r in range(begin, end):
        i = index_a[r]
        g_a = geometry_a[i]
        box_a = (
            (bounds_a[i, 0], bounds_a[i, 1], bounds_a[i, 2], bounds_a[i, 3])
            if tables_a
            else _geometry_bounds(store_a, g_a)
        )
        for c in range(columns):
            k = r * columns + c
            j = index_b[c] if outer else index_b[r]
            g_b = geometry_b[j]
            box_b = (
                (bounds_b[j, 0], bounds_b[j, 1], bounds_b[j, 2], bounds_b[j, 3])
                if tables_b
                else _geometry_bounds(store_b, g_b)
            )
            shared = _polygon_pair(store_a, g_a, box_a, store_b, g_b, box_b) if _bounds_overlap(box_a, box_b) else 0.0
            out[k] = (
                shared
                if code == MEASURE
                else value(code, shared, areas_a[i], areas_b[j], given[k] if has_given else 0.0, zero_division)
            )


@jit
def _single_pair(store_a: Store, g_a: int, store_b: Store, g_b: int, code: int, zero_division: float) -> float:
    box_a, box_b = _geometry_bounds(store_a, g_a), _geometry_bounds(store_b, g_b)
    shared = _polygon_pair(store_a, g_a, box_a, store_b, g_b, box_b) if _bounds_overlap(box_a, box_b) else 0.0
    return value(code, shared, store_a[4][g_a], store_b[4][g_b], 0.0, zero_division)


@jit(parallel=True)
def _polygon_pairs_parallel(data: PolygonData, job: Job, run: int) -> None:
    rows = job[0].shape[0]
    for step in prange((rows + run - 1) // run):
        _polygon_pairs_serial(data, job, step * run, min(rows, (step + 1) * run))


@jit
def _box_pairs_serial(data: BoxData, job: Job, begin: int, end: int) -> None:
    """Rotated boxes (frames given or computed, `_rotated_row`) or boxes (no frames) against polygons."""
    boxes, frames, store = data[0], data[1], (data[2], data[3], data[4], data[5], data[6])
    geometry, bounds = data[7], data[8]
    index_a, index_b, outer, out, code, areas_a, areas_b, given, zero_division = job
    has_given, tables, rotated, frames_given = (
        given.shape[0] > 0,
        bounds.shape[0] > 0,
        boxes.shape[1] == 5,
        frames.shape[0] > 0,
    )
    columns = index_b.shape[0] if outer else 1
    for r in range(begin, end):
        i = index_a[r]
        frame = _row_frame(frames, i) if frames_given else _rotated_row(boxes[i]) if rotated else _NO_FRAME
        box_a = (boxes[i, 0], boxes[i, 1], boxes[i, 2], boxes[i, 3])
        for c in range(columns):
            k = r * columns + c
            j = index_b[c] if outer else index_b[r]
            g = geometry[j]
            box = (bounds[j, 0], bounds[j, 1], bounds[j, 2], bounds[j, 3]) if tables else _geometry_bounds(store, g)
            if rotated:
                shared = _rotated_polygon_pair(frame, store, g, box) if _frame_meets(frame, box) else 0.0
            else:
                shared = _box_polygon_pair(box_a, store, g, box) if _bounds_overlap(box_a, box) else 0.0
            out[k] = (
                shared
                if code == MEASURE
                else value(code, shared, areas_a[i], areas_b[j], given[k] if has_given else 0.0, zero_division)
            )


@jit(parallel=True)
def _box_pairs_parallel(data: BoxData, job: Job, run: int) -> None:
    rows = job[0].shape[0]
    for step in prange((rows + run - 1) // run):
        _box_pairs_serial(data, job, step * run, min(rows, (step + 1) * run))


# --------------------------------------------------------------------------- one pair
@jit
def _polygon_pair(store_a: Store, g_a: int, bounds_a: Bounds, store_b: Store, g_b: int, bounds_b: Bounds) -> float:
    """The shared area of polygon `g_a` of store a and `g_b` of store b (0 when their bounds do not overlap)."""
    if not _bounds_overlap(bounds_a, bounds_b):
        return 0.0
    ox, oy, scale = _frame(bounds_a, bounds_b)
    inverse = 1.0 / scale
    fan_a = _polygon_fan(store_a, g_a, ox, oy, inverse)
    fan_b = _polygon_fan(store_b, g_b, ox, oy, inverse)
    upper = min(store_a[4][g_a], store_b[4][g_b])
    if _polygon_order(store_b, g_b, store_a, g_a) < 0:
        return _fan_overlap(fan_b, fan_a, scale, upper)
    return _fan_overlap(fan_a, fan_b, scale, upper)


@jit
def _rotated_polygon_pair(
    box: tuple[float, float, float, float, float, float, float, float, float], store: Store, g: int, bounds: Bounds
) -> float:
    """The shared area of a rotated box (`_rotated_row`) and polygon `g`."""
    cx, cy, cos, sin, half_w, half_h, reach_x, reach_y, box_area = box
    x0, y0, x1, y1 = bounds
    # Bounds relative to the box's centre: differences of nearby floats are exact, so a sliver of
    # overlap is not lost to the rounding of the box's absolute bounds far from the origin.
    if not _bounds_overlap((-reach_x, -reach_y, reach_x, reach_y), (x0 - cx, y0 - cy, x1 - cx, y1 - cy)):
        return 0.0
    ox, oy, scale = _frame((cx - reach_x, cy - reach_y, cx + reach_x, cy + reach_y), bounds)
    inverse = 1.0 / scale
    # The corners (-, -), (+, -), (+, +), (-, +) of the half sizes and back to the first, counter-clockwise:
    # the centre relative to O first (exact near O), then the rotated half sizes.
    corners = np.empty((5, 2))
    centre_x, centre_y = cx - ox, cy - oy
    for corner in range(5):
        x = -half_w if corner == 0 or corner >= 3 else half_w
        y = -half_h if corner <= 1 or corner == 4 else half_h
        corners[corner, 0], corners[corner, 1] = centre_x + (cos * x - sin * y), centre_y + (sin * x + cos * y)
    fan_box = np.empty((9, 4))
    count = _add_ring(fan_box, _ZERO, corners, _ZERO, np.int64(5), 0.0, 0.0, inverse, 1.0)
    fan_polygon = _polygon_fan(store, g, ox, oy, inverse)
    return _fan_overlap(fan_box[:, :count], fan_polygon, scale, min(box_area, store[4][g]))


@jit
def _box_polygon_pair(box: Bounds, store: Store, g: int, bounds: Bounds) -> float:
    """The shared area of an axis-aligned box ``x1, y1, x2, y2`` and polygon `g`."""
    x1, y1, x2, y2 = box
    if not _bounds_overlap((x1, y1, x2, y2), bounds):
        return 0.0
    ox, oy, scale = _frame((x1, y1, x2, y2), bounds)
    inverse = 1.0 / scale
    corners = np.empty((5, 2))
    corners[0, 0], corners[0, 1], corners[1, 0], corners[1, 1] = x1, y1, x2, y1
    corners[2, 0], corners[2, 1], corners[3, 0], corners[3, 1] = x2, y2, x1, y2
    corners[4, 0], corners[4, 1] = x1, y1
    fan_box = np.empty((9, 4))
    count = _add_ring(fan_box, _ZERO, corners, _ZERO, np.int64(5), ox, oy, inverse, 1.0)
    fan_polygon = _polygon_fan(store, g, ox, oy, inverse)
    # The box's area as `Box.area` computes it, so a box inside the polygon shares exactly its area.
    return _fan_overlap(fan_box[:, :count], fan_polygon, scale, min((x2 - x1) * (y2 - y1), store[4][g]))


# --------------------------------------------------------------------------- the pieces of a pair
@jit
def _bounds_overlap(a: Bounds, b: Bounds) -> bool:
    """Whether two bounds overlap with positive area; touching and NaN (empty) bounds do not."""
    return max(a[0], b[0]) < min(a[2], b[2]) and max(a[1], b[1]) < min(a[3], b[3])


@jit
def _frame(a: Bounds, b: Bounds) -> tuple[float, float, float]:
    """Origin (the centre of the common bounds) and power-of-two scale of a pair's frame."""
    ox = max(a[0], b[0]) / 2 + min(a[2], b[2]) / 2  # halves first: the sum could overflow near the largest float
    oy = max(a[1], b[1]) / 2 + min(a[3], b[3]) / 2
    reach = max(
        max(abs(min(a[0], b[0]) - ox), abs(min(a[1], b[1]) - oy)),
        max(abs(max(a[2], b[2]) - ox), abs(max(a[3], b[3]) - oy)),
    )
    _, exponent = math.frexp(reach if reach > 0 else 1.0)
    return ox, oy, math.ldexp(1.0, exponent)


@jit
def _polygon_fan(store: Store, g: int, ox: float, oy: float, inverse: float) -> Fan:
    """The edges of polygon `g` in the frame at ``(ox, oy)`` scaled by `inverse`, as a fan (see `_add_ring`)."""
    coords, ring_offsets, part_offsets, geometry_offsets, _ = store
    first_ring, stop_ring = part_offsets[geometry_offsets[g]], part_offsets[geometry_offsets[g + 1]]
    fan = np.empty((9, ring_offsets[stop_ring] - ring_offsets[first_ring] - (stop_ring - first_ring)))
    count = _ZERO
    for part in range(geometry_offsets[g], geometry_offsets[g + 1]):
        for ring in range(part_offsets[part], part_offsets[part + 1]):
            start, stop = ring_offsets[ring], ring_offsets[ring + 1]
            weight = _ring_weight(coords, start, stop, ring == part_offsets[part])
            count = _add_ring(fan, count, coords, start, stop, ox, oy, inverse, weight)
    return fan[:, :count]


@jit
def _ring_weight(coords: np.ndarray, start: int, stop: int, exterior: bool) -> float:
    """+1 if the ring's direction adds area (counter-clockwise exterior, clockwise hole), else -1.

    The direction is the sign of the shoelace sum taken relative to the ring's first vertex, as
    `RaggedPolygons.ring_signed_area` takes it.
    """
    x0, y0 = coords[start, 0], coords[start, 1]
    total = 0.0
    for k in range(start, stop - 1):
        px, py = coords[k, 0] - x0, coords[k, 1] - y0
        qx, qy = coords[k + 1, 0] - x0, coords[k + 1, 1] - y0
        total += px * qy - qx * py
    return 1.0 if (total / 2 > 0) == exterior else -1.0


@jit
def _add_ring(
    fan: Fan, count: int, points: np.ndarray, start: int, stop: int, ox: float, oy: float, inverse: float, weight: float
) -> int:
    """Add the edges of the closed ring ``points[start:stop]`` (of `weight`) to the fan from column `count`.

    The points are taken in the frame at ``(ox, oy)`` scaled by `inverse`. As a triangle with O,
    each edge runs counter-clockwise from ray u to ray v: ``twice`` is twice its area, ``sign`` its
    sign in the polygon's sum, ``angle`` the pseudo-angle of u, ``width`` the triangle's angle
    (below half a turn) and ``rest`` ``TURN - width``. A flat triangle (O on the edge's line) has
    no area and shares none: it is left out. Returns the new count.
    """
    px, py = (points[start, 0] - ox) * inverse, (points[start, 1] - oy) * inverse
    angle_p = pseudo_angle(px, py)  # each vertex's angle serves both its edges
    for k in range(start + 1, stop):
        qx, qy = (points[k, 0] - ox) * inverse, (points[k, 1] - oy) * inverse
        angle_q = pseudo_angle(qx, qy)
        cross = px * qy - py * qx
        if cross > 0:
            _set_edge(fan, count, px, py, qx, qy, angle_p, angle_q, cross, weight)
            count += 1
        elif cross < 0:
            _set_edge(fan, count, qx, qy, px, py, angle_q, angle_p, -cross, -weight)
            count += 1
        px, py, angle_p = qx, qy, angle_q
    return count


@jit
def _set_edge(
    fan: Fan,
    column: int,
    ux: float,
    uy: float,
    vx: float,
    vy: float,
    angle_u: float,
    angle_v: float,
    twice: float,
    sign: float,
) -> None:
    fan[_UX, column], fan[_UY, column], fan[_VX, column], fan[_VY, column] = ux, uy, vx, vy
    fan[_TWICE, column], fan[_SIGN, column] = twice, sign
    width = angle_v - angle_u
    if width < 0:
        width += TURN
    fan[_ANGLE, column], fan[_WIDTH, column], fan[_REST, column] = angle_u, width, TURN - width


@jit
def pseudo_angle(x: float, y: float) -> float:
    """A cheap stand-in for the angle of ``(x, y) != (0, 0)``: increasing counter-clockwise from 0 on +x to `TURN`.

    Examples
    --------
    >>> [pseudo_angle(1.0, 0.0), pseudo_angle(0.0, 1.0), pseudo_angle(-1.0, 0.0), pseudo_angle(0.0, -1.0)]
    [0.0, 1.0, 2.0, 3.0]
    """
    r = x / (abs(x) + abs(y))
    return 1.0 - r if y >= 0 else 3.0 + r


@jit
def _polygon_order(store_a: Store, g_a: int, store_b: Store, g_b: int) -> int:
    """-1, 0 or 1 as polygon a comes before, is the same as, or comes after polygon b in a total order.

    The order compares the vertices in turn (the sign of a zero counts), then the layout of rings
    and parts; the first vertex decides almost always. Only equal polygons compare 0.
    """
    coords_a, ring_offsets_a, part_offsets_a, geometry_offsets_a, _ = store_a
    coords_b, ring_offsets_b, part_offsets_b, geometry_offsets_b, _ = store_b
    start_a = ring_offsets_a[part_offsets_a[geometry_offsets_a[g_a]]]
    stop_a = ring_offsets_a[part_offsets_a[geometry_offsets_a[g_a + 1]]]
    start_b = ring_offsets_b[part_offsets_b[geometry_offsets_b[g_b]]]
    stop_b = ring_offsets_b[part_offsets_b[geometry_offsets_b[g_b + 1]]]
    order = _int_order(stop_a - start_a, stop_b - start_b)
    if order != 0:
        return order
    for k in range(stop_a - start_a):
        for axis in range(2):
            order = _float_order(coords_a[start_a + k, axis], coords_b[start_b + k, axis])
            if order != 0:
                return order
    parts = geometry_offsets_a[g_a + 1] - geometry_offsets_a[g_a]
    order = _int_order(parts, geometry_offsets_b[g_b + 1] - geometry_offsets_b[g_b])
    if order != 0:
        return order
    for p in range(parts):
        part_a, part_b = geometry_offsets_a[g_a] + p, geometry_offsets_b[g_b] + p
        rings = part_offsets_a[part_a + 1] - part_offsets_a[part_a]
        order = _int_order(rings, part_offsets_b[part_b + 1] - part_offsets_b[part_b])
        if order != 0:
            return order
        for r in range(rings):
            ring_a, ring_b = part_offsets_a[part_a] + r, part_offsets_b[part_b] + r
            order = _int_order(
                ring_offsets_a[ring_a + 1] - ring_offsets_a[ring_a], ring_offsets_b[ring_b + 1] - ring_offsets_b[ring_b]
            )
            if order != 0:
                return order
    return 0


@jit
def _int_order(x: int, y: int) -> int:
    return -1 if x < y else 1 if x > y else 0


@jit
def _float_order(x: float, y: float) -> int:
    if x != y:
        return -1 if x < y else 1
    # -0.0 before 0.0: equal as numbers, but not the same bits.
    return _int_order(int(math.copysign(1.0, x)), int(math.copysign(1.0, y)))


# --------------------------------------------------------------------------- the sum over edge pairs
@jit
def _fan_overlap(fan_a: Fan, fan_b: Fan, scale: float, upper: float) -> float:
    """``|A ∩ B|`` from the two sides' fans in a frame of `scale`, clamped to the ends of ``[0, upper]`` in reach."""
    if fan_a.shape[1] * fan_b.shape[1] <= SORTED_CELLS:
        total, compensation, magnitude = _every_cell(fan_a, fan_b)
    else:
        total, compensation, magnitude = _cells_by_angle(fan_a, fan_b)
    area: float = (total + compensation) * scale * scale
    rounding = magnitude * (ROUNDING * scale * scale)
    # The result is within `rounding` of the true area, which lies in [0, upper]. Where an end of
    # that range is within reach, it is the answer: a polygon inside the other (also an identical
    # one) shares exactly its own area, and polygons that only touch share exactly 0.
    if area >= upper - rounding:
        area = upper
    return 0.0 if area <= rounding else area


@jit
def _every_cell(fan_a: Fan, fan_b: Fan) -> tuple[float, float, float]:
    """The sum of the terms of the edge pairs whose angles overlap, testing every pair: its two parts and magnitude."""
    total, compensation, magnitude = 0.0, 0.0, 0.0
    angle_b, rest_b = fan_b[_ANGLE], fan_b[_REST]
    for e in range(fan_a.shape[1]):
        angle_e, width_e = fan_a[_ANGLE, e], fan_a[_WIDTH, e]
        for f in range(fan_b.shape[1]):
            # The angle from the start of e's triangle to the start of f's, in [0, TURN].
            turn = angle_b[f] - angle_e
            if turn < 0:
                turn += TURN
            # Two angles (each below half a turn) overlap when either starts inside the other.
            f_starts_in_e = turn < width_e
            if f_starts_in_e or turn > rest_b[f]:
                term = _triangle_overlap(fan_a, e, fan_b, f, turn, f_starts_in_e)
                total, compensation, magnitude = _add_term(total, compensation, magnitude, term)
    return total, compensation, magnitude


@jit
def _cells_by_angle(fan_a: Fan, fan_b: Fan) -> tuple[float, float, float]:
    """`_every_cell`'s sum (in another order), visiting only the edge pairs whose angles may overlap: for large fans.

    A pair's angles overlap when f starts inside e's angle or e inside f's. With each side's edges
    sorted by their start angle, the edges f that start inside e's angle follow the first one at
    or after e's start: ``turn`` grows along the sorted order from there (round the turn), so a
    walk forward from e stops at the first f with ``turn >= width_e``. The edges e that start
    inside f's angle are found the same way from f, over a's sorted edges; there the walk reckons
    the turn from f, whose roundings differ from ``TURN - turn``, so it goes a little further
    (`ANGLE_SLACK`) and the test of `_every_cell` decides. Each kept pair is visited once.
    """
    total, compensation, magnitude = 0.0, 0.0, 0.0
    angle_a, width_a = fan_a[_ANGLE], fan_a[_WIDTH]
    angle_b, width_b, rest_b = fan_b[_ANGLE], fan_b[_WIDTH], fan_b[_REST]
    (order_a, sorted_a), (order_b, sorted_b) = _sorted(angle_a), _sorted(angle_b)
    count_a, count_b = len(order_a), len(order_b)
    for e in range(count_a):
        first = insertion_point(sorted_b, _ZERO, count_b, angle_a[e], _BEFORE_EQUAL)
        for step in range(count_b):
            f = order_b[(first + step) % count_b]
            turn = angle_b[f] - angle_a[e]
            if turn < 0:
                turn += TURN
            if not turn < width_a[e]:
                break
            term = _triangle_overlap(fan_a, e, fan_b, f, turn, np.bool_(True))
            total, compensation, magnitude = _add_term(total, compensation, magnitude, term)
    for f in range(count_b):
        first = insertion_point(sorted_a, _ZERO, count_a, angle_b[f], _BEFORE_EQUAL)
        for step in range(count_a):
            e = order_a[(first + step) % count_a]
            from_f = angle_a[e] - angle_b[f]
            if from_f < 0:
                from_f += TURN
            if not from_f < width_b[f] + ANGLE_SLACK:
                break
            turn = angle_b[f] - angle_a[e]
            if turn < 0:
                turn += TURN
            if not turn < width_a[e] and turn > rest_b[f]:
                term = _triangle_overlap(fan_a, e, fan_b, f, turn, np.bool_(False))
                total, compensation, magnitude = _add_term(total, compensation, magnitude, term)
    return total, compensation, magnitude


# A heap sort of our own (and `sorted_search`): numba's np.argsort and np.searchsorted took seconds
# more to compile than the rest of the kernel.
@jit
def _sorted(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The indices that sort `keys` (no NaN among them) in ascending order, and the sorted keys."""
    count = len(keys)
    order = np.arange(count)
    for root in range(count // 2 - 1, -1, -1):
        _sift_down(keys, order, root, count)
    for end in range(count - 1, 0, -1):
        order[0], order[end] = order[end], order[0]
        _sift_down(keys, order, _ZERO, end)
    sorted_keys = np.empty(count)
    for k in range(count):
        sorted_keys[k] = keys[order[k]]
    return order, sorted_keys


@jit
def _sift_down(keys: np.ndarray, order: np.ndarray, root: int, end: int) -> None:
    """Restore the max-heap of ``order[:end]`` (by key) below `root`."""
    while 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end and keys[order[child]] < keys[order[child + 1]]:
            child += 1
        if not keys[order[root]] < keys[order[child]]:
            return
        order[root], order[child] = order[child], order[root]
        root = child


@jit
def _add_term(total: float, compensation: float, magnitude: float, term: float) -> tuple[float, float, float]:
    """Add `term` to a sum kept by Neumaier's method: the terms cancel (both signs), so each rounding is kept."""
    running = total + term
    if abs(total) >= abs(term):
        compensation += (total - running) + term
    else:
        compensation += (term - running) + total
    return running, compensation, magnitude + abs(term)


@jit
def _triangle_overlap(fan_a: Fan, e: int, fan_b: Fan, f: int, turn: float, f_starts_in_e: bool | np.bool_) -> float:
    """Signed ``σ_e σ_f |T_e ∩ T_f|`` of two edges whose angles overlap.

    `turn` is the angle from the start of e to the start of f and `f_starts_in_e` whether f's
    start lies in e's angle: the shared angle then runs from f's start, else from e's.
    """
    uex, uey, vex, vey = fan_a[_UX, e], fan_a[_UY, e], fan_a[_VX, e], fan_a[_VY, e]
    ufx, ufy, vfx, vfy = fan_b[_UX, f], fan_b[_UY, f], fan_b[_VX, f], fan_b[_VY, f]
    twice_e: float = fan_a[_TWICE, e]
    twice_f: float = fan_b[_TWICE, f]
    # The shared angle runs from s (the later start) to t (the earlier end).
    end_turn = turn + fan_b[_WIDTH, f]
    if end_turn >= TURN:
        end_turn -= TURN
    f_ends_in_e = end_turn <= fan_a[_WIDTH, e]
    sx, sy = (ufx, ufy) if f_starts_in_e else (uex, uey)
    tx, ty = (vfx, vfy) if f_ends_in_e else (vex, vey)
    wedge = sx * ty - sy * tx
    if not wedge > 0:
        return 0.0
    # How far each triangle reaches along s and t: its edge's line at λ·s, λ·t.
    dex, dey = vex - uex, vey - uey
    dfx, dfy = vfx - ufx, vfy - ufy
    se = twice_e / (sx * dey - sy * dex)
    sf = twice_f / (sx * dfy - sy * dfx)
    te = twice_e / (tx * dey - ty * dex)
    tf = twice_f / (tx * dfy - ty * dfx)
    near_s, near_t = _minimum(se, sf), _minimum(te, tf)
    if (se <= sf) != (te <= tf):
        area = _area_past_crossing(sx, sy, tx, ty, se, sf, te, tf, near_s, near_t)
    else:
        area = 0.5 * near_s * near_t * wedge
    # A term is at most the smaller triangle. Only a nearly flat triangle (O almost on its edge's
    # line) can make the closed form overflow; its whole area, the most this can be off by, is tiny.
    if not math.isfinite(area):
        return 0.0
    sign: float = fan_a[_SIGN, e] * fan_b[_SIGN, f]
    return min(max(area, 0.0), 0.5 * min(twice_e, twice_f)) * sign


@jit
def _area_past_crossing(
    sx: float, sy: float, tx: float, ty: float, se: float, sf: float, te: float, tf: float, near_s: float, near_t: float
) -> float:
    """Area from O to the nearer line when the nearer line changes inside the angle: O, n_s, X, n_t."""
    # The two lines between the rays: e from (se·s) to (te·t), f from (sf·s) to (tf·t); X where they cross.
    ax, ay = se * sx, se * sy
    aex, aey = te * tx - ax, te * ty - ay
    bx, by = sf * sx, sf * sy
    bfx, bfy = tf * tx - bx, tf * ty - by
    tau = ((bx - ax) * bfy - (by - ay) * bfx) / (aex * bfy - aey * bfx)
    tau = 0.0 if tau != tau else min(max(tau, 0.0), 1.0)
    xx, xy = ax + tau * aex, ay + tau * aey
    nsx, nsy = near_s * sx, near_s * sy
    ntx, nty = near_t * tx, near_t * ty
    return 0.5 * ((nsx * xy - nsy * xx) + (xx * nty - xy * ntx))


@jit
def _minimum(a: float, b: float) -> float:
    """``np.minimum``: NaN if either is NaN, else the smaller."""
    if a != a or b != b:
        return math.nan
    return a if a < b else b
