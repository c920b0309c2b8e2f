"""The area of the convex hull of two convex polygons (the GIoU enclosure), one compiled loop over the pairs.

Each region's convex hull comes from the region layer (`geoiou.regions.hulls.ConvexHulls`,
computed once per polygon store, once per pixel store for masks). This module derives, once per
`ConvexHulls` (`hull_tables`): each hull counter-clockwise, in a frame centred on its bounds,
starting at the edge whose outward normal has the smallest angle, with the pseudo-angle of every
edge's normal (rising along the hull), the running shoelace sum, and a first guess of the
furthest vertex for each of 64 direction buckets. Then each pair (`_measure_rows`) is measured:

- *hulls whose bounds are apart* (most pairs of a pairwise matrix): from their two outer
  tangents (bridges). A bridge starts from both hulls' furthest vertices in the direction normal
  to the line between the centres (the bucket's guess and a step), and is turned to the normal
  of the line through its ends until both ends stay the furthest vertices in that normal (then
  both hulls lie on one side of it). The area is the two chains the bridges cut off the hulls
  (running sums, each in its hull's frame) and the quadrilateral between them. This path is
  symmetric by construction;
- *other pairs*, a bridge not settled in `BRIDGE_TURNS` turns, and hulls of more than
  `STEPPED_VERTICES` vertices: both hulls walked together in the order of their edges' normals,
  as rotating calipers do (`_walked`). Between two consecutive normal directions each hull has
  one extreme vertex, and the hull of the union passes through the one further out: listing the
  extreme points in order gives the hull's vertices, and the shoelace sum over them is twice its
  area. The walk takes the pair in a canonical order (vertex count, centre, vertices).

Every point is held as its hull's centre plus a vertex in the hull's own frame, and the pair is
measured in the frame of its first hull: a product with a point of the second hull is expanded
(``(t + p) × (t + q) = t × (q - p) + p × q`` with t joining the centres), so no term is the
distance between the hulls times itself, and hulls 1e8 apart keep every digit. ``(a, b)`` and
``(b, a)`` give the same bits, and each pair writes only its own output cell, so any number of
threads gives the same bits too.
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import jit, prange
from geoiou.kernels.formulas import MEASURE, MEASURED, Formula, Pairs, indices
from geoiou.kernels.numba_formulas import Job, run_rows, value
from geoiou.kernels.polygon_loops import pseudo_angle
from geoiou.regions.hulls import ConvexHulls

__all__ = ["BRIDGE_TURNS", "hull_pairs", "hull_tables", "union_hull_areas"]

#: Turns of a bridge towards the normal of the line through its ends before the pair is walked instead.
BRIDGE_TURNS = 8
#: Directions of the first-guess table of each hull: one per 1/16 of pseudo-angle (a turn is 4).
GUESS_BUCKETS = 64
#: Pairs with a hull of more vertices than this are walked: the search on from a guess would take long steps.
STEPPED_VERTICES = 256
#: Nanoseconds on one thread for a pair (of star polygons' hulls, mostly apart), for `in_parallel`.
PAIR_COST_NS = 50.0
#: The key under which `hull_tables` caches its tables on a `ConvexHulls`.
_TABLES = "union_hull"

# Columns of the vertex table: the vertex in its hull's frame, the pseudo-angle of the outward
# normal of the edge it starts (inf past the last edge), the running shoelace sum up to it, and
# that edge as a vector (past the last edge: the last edge, the one before vertex 0).
X, Y, ANGLE, RUNNING, EDGE_X, EDGE_Y = range(6)
# Columns of the frame table: the hull's centre (the centre of its bounds), then its bounds.
CENTRE_X, CENTRE_Y, MIN_X, MIN_Y, MAX_X, MAX_Y = range(6)


def hull_tables(hulls: ConvexHulls) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's tables of `hulls` (derived on first use, then cached on them): vertices, frames, slots, guesses.

    Hull k owns the rows ``slots[k] .. slots[k + 1] - 1`` of ``vertices`` ``(V, 6)``: its
    ``count`` vertices counter-clockwise, then vertex 0 again (with an infinite angle and the
    whole running sum, twice the hull's area); the columns are x, y, angle, running sum, edge.
    ``frames[k]`` ``(6,)`` holds its centre and bounds
    (NaN for an empty hull). ``guesses[k, d]`` is the number of the hull's normals whose
    pseudo-angle is below ``d / 16``: where the search for the vertex furthest in a direction of
    that bucket starts.

    Examples
    --------
    >>> import shapely
    >>> square = ConvexHulls.from_shapely(np.array([shapely.box(0, 0, 2, 2)], dtype=object))
    >>> vertices, frames, slots, guesses = hull_tables(square)
    >>> vertices[:, :4].tolist(), frames.tolist(), slots.tolist()  # doctest: +NORMALIZE_WHITESPACE
    ([[1.0, -1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 2.0], [-1.0, 1.0, 2.0, 4.0], [-1.0, -1.0, 3.0, 6.0],
      [1.0, -1.0, inf, 8.0]], [[1.0, 1.0, 0.0, 0.0, 2.0, 2.0]], [0, 5])
    """
    tables: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = hulls.derived.get(_TABLES)
    if tables is None:
        tables = _derive_tables(
            np.ascontiguousarray(hulls.coords, dtype=np.float64), np.ascontiguousarray(hulls.offsets, dtype=np.int64)
        )
        hulls.derived[_TABLES] = tables
    return tables


def union_hull_areas(
    hulls_a: ConvexHulls,
    rows_a: np.ndarray,
    index_a: np.ndarray,
    hulls_b: ConvexHulls,
    rows_b: np.ndarray,
    index_b: np.ndarray,
) -> np.ndarray:
    """Area of the convex hull of ``hull_a[rows_a[index_a[k]]] ∪ hull_b[rows_b[index_b[k]]]`` for every k.

    `rows_a` maps a batch's regions to their hulls (int64), `index_a` picks the pairs' regions.

    Examples
    --------
    >>> import shapely
    >>> squares = ConvexHulls.from_shapely(np.array([shapely.box(0, 0, 1, 1), shapely.box(2, 0, 3, 1)], dtype=object))
    >>> rows = np.array([0, 1])
    >>> union_hull_areas(squares, rows, np.array([0, 0]), squares, rows, np.array([1, 0]))  # side by side; itself
    array([3., 1.])
    """
    out = np.empty(len(index_a))
    hull_pairs(hulls_a, rows_a, hulls_b, rows_b, Pairs(indices(index_a), indices(index_b)), MEASURED, out)
    return out


def hull_pairs(
    hulls_a: ConvexHulls,
    rows_a: np.ndarray,
    hulls_b: ConvexHulls,
    rows_b: np.ndarray,
    pairs: Pairs,
    formula: Formula,
    out: np.ndarray,
) -> None:
    """`apply` `formula` to the area of the convex hull of each of `pairs`, region i of `a` being hull ``rows_a[i]``."""
    vertices_a, frames_a, slots_a, guesses_a = hull_tables(hulls_a)
    vertices_b, frames_b, slots_b, guesses_b = hull_tables(hulls_b)
    data = (
        vertices_a,
        frames_a,
        slots_a,
        guesses_a,
        indices(rows_a),
        vertices_b,
        frames_b,
        slots_b,
        guesses_b,
        indices(rows_b),
    )
    run_rows(_measure_rows, _union_hull_areas, data, pairs, formula, out, PAIR_COST_NS)


# --------------------------------------------------------------------------- the tables of each hull
@jit
def _derive_tables(coords: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`hull_tables` of the hulls ``coords[offsets[k]:offsets[k + 1]]`` (rings in either direction, closed or not)."""
    size = len(offsets) - 1
    slots = np.zeros(size + 1, dtype=np.int64)
    longest = 0
    for k in range(size):
        first, stop = offsets[k], offsets[k + 1]
        count = stop - first
        if count > 1 and coords[first, 0] == coords[stop - 1, 0] and coords[first, 1] == coords[stop - 1, 1]:
            count -= 1  # a closed ring
        slots[k + 1] = slots[k] + count + 1
        longest = max(longest, count)
    vertices = np.zeros((slots[size], 6))
    frames = np.full((size, 6), np.nan)
    guesses = np.zeros((size, GUESS_BUCKETS), dtype=np.int32)
    local = np.empty((longest, 2))
    for k in range(size):
        first, start = offsets[k], slots[k]
        count = slots[k + 1] - start - 1
        vertices[start + count, ANGLE] = np.inf  # past the last edge (an empty hull's only row)
        if count == 0:
            continue
        min_x = max_x = coords[first, 0]
        min_y = max_y = coords[first, 1]
        for i in range(first + 1, first + count):
            min_x, max_x = min(min_x, coords[i, 0]), max(max_x, coords[i, 0])
            min_y, max_y = min(min_y, coords[i, 1]), max(max_y, coords[i, 1])
        centre_x, centre_y = min_x / 2 + max_x / 2, min_y / 2 + max_y / 2  # halves first: no overflow
        frames[k, CENTRE_X], frames[k, CENTRE_Y] = centre_x, centre_y
        frames[k, MIN_X], frames[k, MIN_Y], frames[k, MAX_X], frames[k, MAX_Y] = min_x, min_y, max_x, max_y
        twice = 0.0
        for i in range(count):
            local[i, 0], local[i, 1] = coords[first + i, 0] - centre_x, coords[first + i, 1] - centre_y
        for i in range(count):
            following = i + 1 if i + 1 < count else 0
            twice += local[i, 0] * local[following, 1] - local[i, 1] * local[following, 0]
        # Counter-clockwise: vertex `rank` is input vertex `rank`, or, for a clockwise ring, input
        # vertex `-rank` (read backwards from vertex 0). Start at the edge whose outward normal has
        # the smallest angle: the angles then rise along the hull.
        step = -1 if twice < 0 else 1
        shift, smallest = 0, np.inf
        for rank in range(count if count > 1 else 0):
            i, following = (step * rank) % count, (step * (rank + 1)) % count
            angle = pseudo_angle(local[following, 1] - local[i, 1], local[i, 0] - local[following, 0])
            if angle < smallest:
                shift, smallest = rank, angle
        for rank in range(count + 1):
            i = (step * (rank + shift)) % count
            vertices[start + rank, X], vertices[start + rank, Y] = local[i, 0], local[i, 1]
        running = 0.0
        for rank in range(count):
            x0, y0 = vertices[start + rank, X], vertices[start + rank, Y]
            x1, y1 = vertices[start + rank + 1, X], vertices[start + rank + 1, Y]
            vertices[start + rank, ANGLE] = pseudo_angle(y1 - y0, x0 - x1) if count > 1 else np.inf
            vertices[start + rank, RUNNING] = running
            vertices[start + rank, EDGE_X], vertices[start + rank, EDGE_Y] = x1 - x0, y1 - y0
            running += x0 * y1 - y0 * x1
        vertices[start + count, RUNNING] = running
        vertices[start + count, EDGE_X] = vertices[start + count - 1, EDGE_X]
        vertices[start + count, EDGE_Y] = vertices[start + count - 1, EDGE_Y]
        below = 0
        for bucket in range(GUESS_BUCKETS):
            while below < count and vertices[start + below, ANGLE] < bucket * (4.0 / GUESS_BUCKETS):
                below += 1
            guesses[k, bucket] = below
    return vertices, frames, slots, guesses


# --------------------------------------------------------------------------- the pairs
#: What the hull loop reads of each side: its tables (`hull_tables`) and each region's hull.
Data = tuple[
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
]


@jit(parallel=True)
def _union_hull_areas(data: Data, job: Job, run: int) -> None:
    """`_measure_rows` over all rows of the pairs, a run of `run` rows per iteration of the parallel loop."""
    rows = job[0].shape[0]
    for step in prange((rows + run - 1) // run):
        _measure_rows(data, job, step * run, min(rows, (step + 1) * run))


@jit
def _measure_rows(data: Data, job: Job, begin: int, end: int) -> None:
    """`apply` `formula` to the area of the convex hull of the union of each pair of the rows
    ``begin <= r < end`` of the pairs (`Pairs`), into ``out[k]``.

    Each pair is measured on its own, by the same operations whatever the run it is in. The
    common path (bounds apart, bridges settled) is written out in this loop and calls no function
    that takes an array: numba counts references to the arrays it passes on (atomic operations
    on counters all threads share), which would cost more than the geometry. That path is
    symmetric by construction: from (b, a), t is exactly negated, each bridge comes out as the
    other one, and every group of the sum has the same terms. The walk takes the pair in a
    canonical order (vertex count, centre, then vertices).
    """
    a, frames_a, slots_a, guesses_a, rows_a, b, frames_b, slots_b, guesses_b, rows_b = data
    index_a, index_b, outer, out, code, areas_a, areas_b, given, zero_division = job
    plain, has_given = code == MEASURE, given.shape[0] > 0
    columns = index_b.shape[0] if outer else 1
    for r in range(begin, end):
        region_a = index_a[r]
        row_a = rows_a[region_a]
        area_a = 0.0 if plain else areas_a[region_a]
        for c in range(columns):
            k = r * columns + c
            region_b = index_b[c] if outer else index_b[r]
            row_b = rows_b[region_b]
            area_b = 0.0 if plain else areas_b[region_b]
            other = given[k] if has_given else 0.0
            start_a, start_b = slots_a[row_a], slots_b[row_b]
            count_a, count_b = slots_a[row_a + 1] - start_a - 1, slots_b[row_b + 1] - start_b - 1
            if count_a == 0 or count_b == 0:  # an empty hull adds nothing
                twice = a[start_a + count_a, RUNNING] + b[start_b + count_b, RUNNING]
                out[k] = _result(code, twice, area_a, area_b, other, zero_division)
                continue
            t_x = frames_b[row_b, CENTRE_X] - frames_a[row_a, CENTRE_X]
            t_y = frames_b[row_b, CENTRE_Y] - frames_a[row_a, CENTRE_Y]
            apart = (
                frames_a[row_a, MAX_X] < frames_b[row_b, MIN_X]
                or frames_b[row_b, MAX_X] < frames_a[row_a, MIN_X]
                or frames_a[row_a, MAX_Y] < frames_b[row_b, MIN_Y]
                or frames_b[row_b, MAX_Y] < frames_a[row_a, MIN_Y]
            )
            settled = apart and count_a <= STEPPED_VERTICES and count_b <= STEPPED_VERTICES
            if settled:
                # Bounds apart: the bridges. The lower one runs from a's vertex L_a to b's L_b (both
                # hulls on its left: its outward normal points right of t), the upper one from b's U_b
                # to a's U_a. Each starts from both hulls' furthest vertices in the normal of t: the
                # one after every normal below its angle, found from the hull's guess for the angle's
                # bucket and a step or two. The four searches are written out side by side so that
                # the processor overlaps them.
                angle_l, angle_u = pseudo_angle(t_y, -t_x), pseudo_angle(-t_y, t_x)
                bucket_l, bucket_u = _bucket(angle_l), _bucket(angle_u)
                lower_a, upper_a = guesses_a[row_a, bucket_l], guesses_a[row_a, bucket_u]
                lower_b, upper_b = guesses_b[row_b, bucket_l], guesses_b[row_b, bucket_u]
                lower_a += a[start_a + lower_a, ANGLE] < angle_l  # the row after the last vertex has an infinite angle
                upper_a += a[start_a + upper_a, ANGLE] < angle_u
                lower_b += b[start_b + lower_b, ANGLE] < angle_l
                upper_b += b[start_b + upper_b, ANGLE] < angle_u
                while a[start_a + lower_a, ANGLE] < angle_l:  # rare: more normals in the bucket
                    lower_a += 1
                while a[start_a + upper_a, ANGLE] < angle_u:
                    upper_a += 1
                while b[start_b + lower_b, ANGLE] < angle_l:
                    lower_b += 1
                while b[start_b + upper_b, ANGLE] < angle_u:
                    upper_b += 1
                # Past the last normal: vertex 0.
                lower_a, upper_a = lower_a if lower_a < count_a else 0, upper_a if upper_a < count_a else 0
                lower_b, upper_b = lower_b if lower_b < count_b else 0, upper_b if upper_b < count_b else 0
                side = 1.0
                while settled and side > -2.0:
                    i, j = (lower_a, lower_b) if side > 0 else (upper_a, upper_b)
                    settled = False
                    for _ in range(BRIDGE_TURNS):
                        # Turned to the normal of the line through its ends, the bridge is settled when
                        # both ends are still the furthest vertices: both hulls then lie on one side of it.
                        # Vertex i is furthest in n when the edge before it runs towards n and the one after not.
                        e_x = t_x + (b[start_b + j, X] - a[start_a + i, X])  # from a's end to b's
                        e_y = t_y + (b[start_b + j, Y] - a[start_a + i, Y])
                        n_x, n_y = side * e_y, -side * e_x
                        before = start_a + (i - 1 if i > 0 else count_a)  # the row past the last edge holds it
                        at = start_a + i
                        settled = count_a == 1 or (
                            a[before, EDGE_X] * n_x + a[before, EDGE_Y] * n_y > 0
                            and a[at, EDGE_X] * n_x + a[at, EDGE_Y] * n_y <= 0
                        )
                        if settled:
                            before = start_b + (j - 1 if j > 0 else count_b)
                            at = start_b + j
                            settled = count_b == 1 or (
                                b[before, EDGE_X] * n_x + b[before, EDGE_Y] * n_y > 0
                                and b[at, EDGE_X] * n_x + b[at, EDGE_Y] * n_y <= 0
                            )
                        if settled:
                            break
                        angle = pseudo_angle(n_x, n_y)
                        bucket = _bucket(angle)
                        i, j = guesses_a[row_a, bucket], guesses_b[row_b, bucket]
                        while a[start_a + i, ANGLE] < angle:
                            i += 1
                        while b[start_b + j, ANGLE] < angle:
                            j += 1
                        i, j = i if i < count_a else 0, j if j < count_b else 0
                    if side > 0:
                        lower_a, lower_b = i, j
                    else:
                        upper_a, upper_b = i, j
                    side -= 2.0
            if not settled:  # not apart, or a bridge not settled: the walk, in the canonical order
                if count_a != count_b:
                    after = count_a > count_b
                else:
                    after = _comes_after(a, frames_a, row_a, start_a, b, frames_b, row_b, start_b, count_a)
                if after:
                    twice = _walked(b, start_b, count_b, a, start_a, count_a, -t_x, -t_y)
                else:
                    twice = _walked(a, start_a, count_a, b, start_b, count_b, t_x, t_y)
                out[k] = _result(code, twice, area_a, area_b, other, zero_division)
                continue
            # The hull runs U_a -> (along a) -> L_a -> L_b -> (along b) -> U_b -> U_a. With a's vertices
            # w and b's t + z, its shoelace sum is the two chains, each in its hull's frame (running sums),
            # plus t × (z_U - z_L + w_U - w_L) + w_L × z_L + z_U × w_U.
            chain_a = a[start_a + lower_a, RUNNING] - a[start_a + upper_a, RUNNING]
            if lower_a < upper_a:  # around past vertex 0
                chain_a += a[start_a + count_a, RUNNING]
            chain_b = b[start_b + upper_b, RUNNING] - b[start_b + lower_b, RUNNING]
            if upper_b < lower_b:
                chain_b += b[start_b + count_b, RUNNING]
            w_lx, w_ly = a[start_a + lower_a, X], a[start_a + lower_a, Y]
            w_ux, w_uy = a[start_a + upper_a, X], a[start_a + upper_a, Y]
            z_lx, z_ly = b[start_b + lower_b, X], b[start_b + lower_b, Y]
            z_ux, z_uy = b[start_b + upper_b, X], b[start_b + upper_b, Y]
            q_x, q_y = (z_ux - z_lx) + (w_ux - w_lx), (z_uy - z_ly) + (w_uy - w_ly)
            twice = (
                (chain_a + chain_b)
                + (t_x * q_y - t_y * q_x)
                + ((w_lx * z_ly - w_ly * z_lx) + (z_ux * w_uy - z_uy * w_ux))
            )
            out[k] = _result(code, twice, area_a, area_b, other, zero_division)


@jit
def _result(code: int, twice: float, area_a: float, area_b: float, other: float, zero_division: float) -> float:
    """The formula `code` of a pair whose hull has the doubled area `twice` (0 where rounding left it negative)."""
    hull = 0.5 * twice if twice > 0 else 0.0
    return hull if code == MEASURE else value(code, hull, area_a, area_b, other, zero_division)


@jit
def _bucket(angle: float) -> int:
    """The guess bucket of a pseudo-angle: the last one for NaN (no direction) and for a whole turn (rounded up)."""
    return int(angle * (GUESS_BUCKETS / 4.0)) if 0.0 <= angle < 4.0 else GUESS_BUCKETS - 1


@jit
def _comes_after(
    a: np.ndarray,
    frames_a: np.ndarray,
    row_a: int,
    start_a: int,
    b: np.ndarray,
    frames_b: np.ndarray,
    row_b: int,
    start_b: int,
    count: int,
) -> bool:
    """Whether hull a comes after hull b (both of `count` vertices) in the canonical order: centre, then vertices."""
    if frames_a[row_a, CENTRE_X] != frames_b[row_b, CENTRE_X]:
        return bool(frames_a[row_a, CENTRE_X] > frames_b[row_b, CENTRE_X])
    if frames_a[row_a, CENTRE_Y] != frames_b[row_b, CENTRE_Y]:
        return bool(frames_a[row_a, CENTRE_Y] > frames_b[row_b, CENTRE_Y])
    for rank in range(count):
        if a[start_a + rank, X] != b[start_b + rank, X]:
            return bool(a[start_a + rank, X] > b[start_b + rank, X])
        if a[start_a + rank, Y] != b[start_b + rank, Y]:
            return bool(a[start_a + rank, Y] > b[start_b + rank, Y])
    return False  # the same hull


@jit
def _cross(p_of_b: bool, p_x: float, p_y: float, q_of_b: bool, q_x: float, q_y: float, t_x: float, t_y: float) -> float:
    """``P × Q`` in a's frame, where a point of b is ``t +`` its vertex: expanded, so no term is ``t × t``."""
    cross = p_x * q_y - p_y * q_x
    if p_of_b and q_of_b:
        cross += t_x * (q_y - p_y) - t_y * (q_x - p_x)
    elif q_of_b:
        cross += p_x * t_y - p_y * t_x
    elif p_of_b:
        cross += t_x * q_y - t_y * q_x
    return cross


@jit
def _walked(
    a: np.ndarray, start_a: int, count_a: int, b: np.ndarray, start_b: int, count_b: int, t_x: float, t_y: float
) -> float:
    """Twice the hull's area by walking both hulls in the order of their normals (rotating calipers).

    At each edge, taken in the order of the normals' angles, each hull's current vertex is its
    furthest in that normal: the edge is on the hull of the union if its hull reaches at least as
    far (its two ends are listed), else the other hull's vertex is (listed once). The list starts
    at the vertex further along +x.
    """
    start_of_b = not a[start_a, X] >= t_x + b[start_b, X]
    start_x = b[start_b, X] if start_of_b else a[start_a, X]
    start_y = b[start_b, Y] if start_of_b else a[start_a, Y]
    previous_of_b, previous_x, previous_y = start_of_b, start_x, start_y
    twice: float = 0.0
    i, j = start_a, start_b  # rows of the current vertices
    for _ in range(count_a + count_b):
        angle_a, angle_b = a[i, ANGLE], b[j, ANGLE]
        take_a = angle_a <= angle_b
        if not (angle_a if take_a else angle_b) < np.inf:
            break
        if take_a:
            n_x, n_y = a[i + 1, Y] - a[i, Y], a[i, X] - a[i + 1, X]
        else:
            n_x, n_y = b[j + 1, Y] - b[j, Y], b[j, X] - b[j + 1, X]
        reach_a = a[i, X] * n_x + a[i, Y] * n_y
        reach_b = (t_x * n_x + t_y * n_y) + (b[j, X] * n_x + b[j, Y] * n_y)
        wins = reach_a >= reach_b if take_a else reach_b >= reach_a
        first_of_b = take_a != wins  # a's vertex when a's edge wins or b's edge loses to a
        first_x = b[j, X] if first_of_b else a[i, X]
        first_y = b[j, Y] if first_of_b else a[i, Y]
        if not wins:
            second_of_b, second_x, second_y = first_of_b, first_x, first_y
        elif take_a:
            second_of_b, second_x, second_y = False, a[i + 1, X], a[i + 1, Y]
        else:
            second_of_b, second_x, second_y = True, b[j + 1, X], b[j + 1, Y]
        twice += _cross(previous_of_b, previous_x, previous_y, first_of_b, first_x, first_y, t_x, t_y) + _cross(
            first_of_b, first_x, first_y, second_of_b, second_x, second_y, t_x, t_y
        )
        previous_of_b, previous_x, previous_y = second_of_b, second_x, second_y
        if take_a:
            i += 1
        else:
            j += 1
    twice += _cross(previous_of_b, previous_x, previous_y, start_of_b, start_x, start_y, t_x, t_y)
    return twice
