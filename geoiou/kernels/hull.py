"""The area of the convex hull of two convex polygons (the GIoU enclosure), one compiled loop over the pairs.

Each region's convex hull comes from the region layer (`geoiou.regions.hulls.ConvexHulls`,
computed once per polygon store). This module derives, once per hull table (`hull_tables`): each
hull counter-clockwise, in a frame centred on its bounds, starting at the edge whose outward
normal has the smallest angle, with the pseudo-angle of every edge's normal (rising along the
hull) and the running shoelace sum. Then every pair costs (`_pair_area`):

- *hulls whose bounds are apart* (most pairs of a pairwise matrix): their two outer tangents
  (bridges). A bridge starts from both hulls' furthest vertices in the direction normal to the
  line between the centres (a binary search over the normals' angles), and is turned to the
  normal of the line through its ends until both ends stay the furthest vertices in that normal
  (then both hulls lie on one side of it). The area is the two caps the bridges cut off the
  hulls (running sums, each in its hull's frame) and the quadrilateral between them;
- *other pairs*, and a bridge not settled in `BRIDGE_TURNS` turns: both hulls walked together
  in the order of their edges' normals, as rotating calipers do. Between two consecutive normal
  directions each hull has one extreme vertex, and the hull of the union passes through the one
  further out: listing the extreme points in order gives the hull's vertices, and the shoelace
  sum over them is twice its area.

Every point is held as its hull's centre plus a vertex in the hull's own frame, and the pair is
measured in the frame of its first hull: a cross product with a point of the second hull is
expanded (``(t + p) × (t + q) = t × (q - p) + p × q`` with t joining the centres), so no term is
the distance between the hulls times itself, and hulls 1e8 apart keep every digit. A pair is
measured in a canonical order of its two hulls (by vertex count, centre, vertices), so
``(a, b)`` and ``(b, a)`` give the same bits, and each pair writes only its own output cell, so
any number of threads gives the same bits too.
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import jit, prange, use_threads
from geoiou.regions.hulls import ConvexHulls

__all__ = ["BRIDGE_TURNS", "hull_tables", "union_hull_areas"]

#: Turns of a bridge towards the normal of the line through its ends before the pair is walked instead.
BRIDGE_TURNS = 8
#: Calls with at most this many pairs run on the calling thread: waking the other threads costs more.
SERIAL_PAIRS = 256
#: The key under which `hull_tables` caches its tables on a `ConvexHulls`.
_TABLES = "union_hull"

# Columns of the vertex table: the vertex in its hull's frame, the pseudo-angle of the outward
# normal of the edge it starts (inf past the last edge), the running shoelace sum up to it.
X, Y, ANGLE, RUNNING = 0, 1, 2, 3
# Columns of the frame table: the hull's centre (the centre of its bounds), then its bounds.
CENTRE_X, CENTRE_Y, MIN_X, MIN_Y, MAX_X, MAX_Y = range(6)


def hull_tables(hulls: ConvexHulls) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's tables of `hulls` (derived on first use, then cached on them): vertices, frames, slots.

    Hull k owns the rows ``slots[k] .. slots[k + 1] - 1`` of ``vertices`` ``(V, 4)``: its
    ``count`` vertices counter-clockwise, then vertex 0 again (with an infinite angle and the
    whole running sum, twice the hull's area). ``frames[k]`` ``(6,)`` holds its centre and bounds
    (NaN for an empty hull).

    Examples
    --------
    >>> import shapely
    >>> square = ConvexHulls.from_shapely(np.array([shapely.box(0, 0, 2, 2)], dtype=object))
    >>> vertices, frames, slots = hull_tables(square)
    >>> vertices.tolist(), frames.tolist(), slots.tolist()  # doctest: +NORMALIZE_WHITESPACE
    ([[1.0, -1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 2.0], [-1.0, 1.0, 2.0, 4.0], [-1.0, -1.0, 3.0, 6.0],
      [1.0, -1.0, inf, 8.0]], [[1.0, 1.0, 0.0, 0.0, 2.0, 2.0]], [0, 5])
    """
    tables: tuple[np.ndarray, np.ndarray, np.ndarray] | None = hulls.derived.get(_TABLES)
    if tables is None:
        tables = _derive_tables(np.ascontiguousarray(hulls.coords, dtype=np.float64),
                                np.ascontiguousarray(hulls.offsets, dtype=np.int64))
        hulls.derived[_TABLES] = tables
    return tables


def union_hull_areas(hulls_a: ConvexHulls, rows_a: np.ndarray, index_a: np.ndarray,
                     hulls_b: ConvexHulls, rows_b: np.ndarray, index_b: np.ndarray) -> np.ndarray:
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
    vertices_a, frames_a, slots_a = hull_tables(hulls_a)
    vertices_b, frames_b, slots_b = hull_tables(hulls_b)
    out = np.empty(len(index_a))
    if len(out) > SERIAL_PAIRS:
        use_threads()
        driver = _union_hull_areas
    else:
        driver = _union_hull_areas_here
    driver(vertices_a, frames_a, slots_a, _int64(rows_a), _int64(index_a),
           vertices_b, frames_b, slots_b, _int64(rows_b), _int64(index_b), out)
    return out


def _int64(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.int64)


# --------------------------------------------------------------------------- the tables of each hull
@jit
def _pseudo_angle(x: float, y: float) -> float:
    """A stand-in for the angle of (x, y), rising counter-clockwise from 0 on +x to 4 (one turn); NaN for (0, 0)."""
    r = x / (abs(x) + abs(y))
    return 1.0 - r if y >= 0 else 3.0 + r


@jit
def _derive_tables(coords: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`hull_tables` of the hulls ``coords[offsets[k]:offsets[k + 1]]``."""
    size = len(offsets) - 1
    counts = np.empty(size, dtype=np.int64)
    for k in range(size):
        start, stop = offsets[k], offsets[k + 1]
        count = stop - start
        if count > 1 and coords[start, 0] == coords[stop - 1, 0] and coords[start, 1] == coords[stop - 1, 1]:
            count -= 1  # a closed ring
        counts[k] = count
    slots = np.zeros(size + 1, dtype=np.int64)
    slots[1:] = np.cumsum(counts + 1)
    vertices = np.empty((slots[size], 4))
    frames = np.empty((size, 6))
    for k in range(size):
        _derive_hull(coords[offsets[k]:offsets[k] + counts[k]], vertices[slots[k]:slots[k + 1]], frames[k])
    return vertices, frames, slots


@jit
def _derive_hull(points: np.ndarray, table: np.ndarray, frame: np.ndarray) -> None:
    """Fill one hull's rows of the vertex table and its frame from its vertices (a ring in either direction)."""
    count = len(points)
    if count == 0:
        frame[:] = np.nan
        table[0, X] = table[0, Y] = table[0, RUNNING] = 0.0
        table[0, ANGLE] = np.inf
        return
    min_x = max_x = points[0, 0]
    min_y = max_y = points[0, 1]
    for i in range(1, count):
        min_x, max_x = min(min_x, points[i, 0]), max(max_x, points[i, 0])
        min_y, max_y = min(min_y, points[i, 1]), max(max_y, points[i, 1])
    centre_x, centre_y = min_x / 2 + max_x / 2, min_y / 2 + max_y / 2  # halves first: no overflow
    frame[CENTRE_X], frame[CENTRE_Y] = centre_x, centre_y
    frame[MIN_X], frame[MIN_Y], frame[MAX_X], frame[MAX_Y] = min_x, min_y, max_x, max_y
    local = np.empty((count, 2))
    for i in range(count):
        local[i, 0], local[i, 1] = points[i, 0] - centre_x, points[i, 1] - centre_y
    twice = 0.0
    for i in range(count):
        following = i + 1 if i + 1 < count else 0
        twice += local[i, 0] * local[following, 1] - local[i, 1] * local[following, 0]
    backwards = twice < 0  # clockwise: read it backwards
    # Start at the edge whose outward normal has the smallest angle: the angles then rise along the hull.
    first, smallest = 0, np.inf
    if count > 1:
        for rank in range(count):
            i = _source(rank, count, backwards)
            following = _source(rank + 1 if rank + 1 < count else 0, count, backwards)
            angle = _pseudo_angle(local[following, 1] - local[i, 1], local[i, 0] - local[following, 0])
            if angle < smallest:
                first, smallest = rank, angle
    for rank in range(count + 1):
        i = _source((rank + first) % count, count, backwards)
        table[rank, X], table[rank, Y] = local[i, 0], local[i, 1]
    running = 0.0
    for rank in range(count):
        x0, y0, x1, y1 = table[rank, X], table[rank, Y], table[rank + 1, X], table[rank + 1, Y]
        table[rank, ANGLE] = _pseudo_angle(y1 - y0, x0 - x1) if count > 1 else np.inf
        table[rank, RUNNING] = running
        running += x0 * y1 - y0 * x1
    table[count, ANGLE] = np.inf
    table[count, RUNNING] = running


@jit
def _source(rank: int, count: int, backwards: bool) -> int:
    """The input vertex at `rank` counter-clockwise: vertex `rank`, or read backwards from vertex 0."""
    return (count - rank) % count if backwards else rank


# --------------------------------------------------------------------------- the pairs
@jit(parallel=True)
def _union_hull_areas(vertices_a: np.ndarray, frames_a: np.ndarray, slots_a: np.ndarray, rows_a: np.ndarray,
                      index_a: np.ndarray, vertices_b: np.ndarray, frames_b: np.ndarray, slots_b: np.ndarray,
                      rows_b: np.ndarray, index_b: np.ndarray, out: np.ndarray) -> None:
    for k in prange(len(out)):
        out[k] = _pair_area(vertices_a, frames_a, slots_a, rows_a[index_a[k]],
                            vertices_b, frames_b, slots_b, rows_b[index_b[k]])


@jit
def _union_hull_areas_here(vertices_a: np.ndarray, frames_a: np.ndarray, slots_a: np.ndarray, rows_a: np.ndarray,
                           index_a: np.ndarray, vertices_b: np.ndarray, frames_b: np.ndarray, slots_b: np.ndarray,
                           rows_b: np.ndarray, index_b: np.ndarray, out: np.ndarray) -> None:
    """`_union_hull_areas` on the calling thread alone (the same function of each pair, the same bits)."""
    for k in range(len(out)):
        out[k] = _pair_area(vertices_a, frames_a, slots_a, rows_a[index_a[k]],
                            vertices_b, frames_b, slots_b, rows_b[index_b[k]])


@jit
def _pair_area(vertices_a: np.ndarray, frames_a: np.ndarray, slots_a: np.ndarray, row_a: int,
               vertices_b: np.ndarray, frames_b: np.ndarray, slots_b: np.ndarray, row_b: int) -> float:
    """Area of the convex hull of the union of hull `row_a` of the first tables and hull `row_b` of the second."""
    a = vertices_a[slots_a[row_a]:slots_a[row_a + 1]]
    b = vertices_b[slots_b[row_b]:slots_b[row_b + 1]]
    frame_a, frame_b = frames_a[row_a], frames_b[row_b]
    if _comes_after(a, frame_a, b, frame_b):
        a, b, frame_a, frame_b = b, a, frame_b, frame_a
    count_a, count_b = len(a) - 1, len(b) - 1
    if count_a == 0 or count_b == 0:  # an empty hull adds nothing
        twice = a[count_a, RUNNING] + b[count_b, RUNNING]
    else:
        twice = np.nan
        t_x, t_y = frame_b[CENTRE_X] - frame_a[CENTRE_X], frame_b[CENTRE_Y] - frame_a[CENTRE_Y]
        if (frame_a[MAX_X] < frame_b[MIN_X] or frame_b[MAX_X] < frame_a[MIN_X]
                or frame_a[MAX_Y] < frame_b[MIN_Y] or frame_b[MAX_Y] < frame_a[MIN_Y]):
            twice = _bridged(a, b, t_x, t_y)
        if twice != twice:  # not apart, or a bridge not settled
            twice = _walked(a, b, t_x, t_y)
    return 0.5 * twice if twice > 0 else 0.0


@jit
def _comes_after(a: np.ndarray, frame_a: np.ndarray, b: np.ndarray, frame_b: np.ndarray) -> bool:
    """Whether hull `a` comes after hull `b` in the canonical order: vertex count, centre, then vertices."""
    if len(a) != len(b):
        return len(a) > len(b)
    for column in (CENTRE_X, CENTRE_Y):
        if frame_a[column] != frame_b[column]:
            return frame_a[column] > frame_b[column]
    for rank in range(len(a) - 1):
        for column in (X, Y):
            if a[rank, column] != b[rank, column]:
                return a[rank, column] > b[rank, column]
    return False  # the same hull


@jit
def _support(hull: np.ndarray, angle: float) -> int:
    """The vertex furthest in the direction of pseudo-angle `angle`: the one after every normal below it."""
    low, high = 0, len(hull) - 1
    while low < high:
        middle = (low + high) >> 1
        if hull[middle, ANGLE] < angle:
            low = middle + 1
        else:
            high = middle
    return low if low < len(hull) - 1 else 0


@jit
def _supports(hull: np.ndarray, i: int, angle: float) -> bool:
    """Whether vertex `i` is the one `_support` finds for `angle` (two comparisons instead of a search)."""
    if i == 0:  # past the last normal, or up to the first
        return angle <= hull[0, ANGLE] or hull[len(hull) - 2, ANGLE] < angle
    return hull[i - 1, ANGLE] < angle <= hull[i, ANGLE]


@jit
def _bridge(a: np.ndarray, b: np.ndarray, t_x: float, t_y: float, side: float) -> tuple[int, int, bool]:
    """The outer tangent of two apart hulls on the right (`side` 1) or left (-1) of the line from a's centre to b's.

    Returns where it touches each hull, and whether it settled: both ends the furthest vertices
    of their hulls in the normal of the line through them.
    """
    angle = _pseudo_angle(side * t_y, -side * t_x)
    i, j = _support(a, angle), _support(b, angle)
    for _ in range(BRIDGE_TURNS):
        e_x, e_y = t_x + (b[j, X] - a[i, X]), t_y + (b[j, Y] - a[i, Y])  # from a's end to b's
        angle = _pseudo_angle(side * e_y, -side * e_x)
        if _supports(a, i, angle) and _supports(b, j, angle):
            return i, j, True
        i, j = _support(a, angle), _support(b, angle)
    return i, j, False


@jit
def _chain(hull: np.ndarray, start: int, stop: int) -> float:
    """The shoelace sum along `hull` from vertex `start` counter-clockwise to vertex `stop`, in its frame."""
    running = hull[stop, RUNNING] - hull[start, RUNNING]
    if stop < start:  # around past vertex 0
        running += hull[len(hull) - 1, RUNNING]
    return running


@jit
def _bridged(a: np.ndarray, b: np.ndarray, t_x: float, t_y: float) -> float:
    """Twice the hull's area for hulls whose bounds are apart (`t` joins a's centre to b's), or NaN if a bridge did not settle.

    The lower bridge runs from a's vertex L_a to b's L_b, the upper one from b's U_b to a's U_a;
    the hull runs U_a -> (along a) -> L_a -> L_b -> (along b) -> U_b -> U_a. With a's vertices
    ``w`` and b's ``t + z``, its shoelace sum is the two chains in their hulls' frames, plus
    ``t × (z_U - z_L + w_U - w_L) + w_L × z_L + z_U × w_U``.
    """
    lower_a, lower_b, settled = _bridge(a, b, t_x, t_y, 1.0)
    if not settled:
        return np.nan
    upper_a, upper_b, settled = _bridge(a, b, t_x, t_y, -1.0)
    if not settled:
        return np.nan
    twice = _chain(a, upper_a, lower_a) + _chain(b, lower_b, upper_b)
    q_x = (b[upper_b, X] - b[lower_b, X]) + (a[upper_a, X] - a[lower_a, X])
    q_y = (b[upper_b, Y] - b[lower_b, Y]) + (a[upper_a, Y] - a[lower_a, Y])
    twice += t_x * q_y - t_y * q_x
    twice += a[lower_a, X] * b[lower_b, Y] - a[lower_a, Y] * b[lower_b, X]
    twice += b[upper_b, X] * a[upper_a, Y] - b[upper_b, Y] * a[upper_a, X]
    return twice


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
def _walked(a: np.ndarray, b: np.ndarray, t_x: float, t_y: float) -> float:
    """Twice the hull's area by walking both hulls in the order of their normals (rotating calipers).

    At each edge, taken in the order of the normals' angles, each hull's current vertex is its
    furthest in that normal: the edge is on the hull of the union if its hull reaches at least as
    far (its two ends are listed), else the other hull's vertex is (listed once). The list starts
    at the vertex further along +x.
    """
    count_a, count_b = len(a) - 1, len(b) - 1
    start_of_b = not a[0, X] >= t_x + b[0, X]
    start_x, start_y = (b[0, X], b[0, Y]) if start_of_b else (a[0, X], a[0, Y])
    previous_of_b, previous_x, previous_y = start_of_b, start_x, start_y
    twice = 0.0
    i = j = 0
    for _ in range(count_a + count_b):
        angle_a, angle_b = a[i, ANGLE], b[j, ANGLE]
        take_a = angle_a <= angle_b
        if not (angle_a if take_a else angle_b) < np.inf:
            break
        edge, at = (a, i) if take_a else (b, j)
        n_x, n_y = edge[at + 1, Y] - edge[at, Y], edge[at, X] - edge[at + 1, X]
        reach_a = a[i, X] * n_x + a[i, Y] * n_y
        reach_b = (t_x * n_x + t_y * n_y) + (b[j, X] * n_x + b[j, Y] * n_y)
        wins = reach_a >= reach_b if take_a else reach_b >= reach_a
        first_of_b = take_a != wins  # a's vertex when a's edge wins or b's edge loses to a
        first_x, first_y = (b[j, X], b[j, Y]) if first_of_b else (a[i, X], a[i, Y])
        if wins:
            second_of_b, second_x, second_y = not take_a, edge[at + 1, X], edge[at + 1, Y]
        else:
            second_of_b, second_x, second_y = first_of_b, first_x, first_y
        twice += (_cross(previous_of_b, previous_x, previous_y, first_of_b, first_x, first_y, t_x, t_y)
                  + _cross(first_of_b, first_x, first_y, second_of_b, second_x, second_y, t_x, t_y))
        previous_of_b, previous_x, previous_y = second_of_b, second_x, second_y
        if take_a:
            i += 1
        else:
            j += 1
    twice += _cross(previous_of_b, previous_x, previous_y, start_of_b, start_x, start_y, t_x, t_y)
    return twice
