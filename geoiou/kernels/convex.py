"""Vectorized area kernels for batches of small polygons.

Every function works on a batch of ``K`` independent rows at once; the only Python loops
run over a fixed, small number of polygon edges or points, never over the rows.
Only NumPy is used so that the kernels can be reused by every geometry of the package.

- :func:`convex_intersection_area` clips convex polygons (Sutherland-Hodgman) and
  :func:`convex_hull_area` takes hulls (monotone chain): general, with vertex lists per row.
- :func:`polygon_box_intersection_area` intersects any polygon with an axis-aligned box by
  clamping its boundary into the box: the same fixed work for every row, no vertex lists.
  Its core, :func:`unit_square_clipped_area`, works on vertex planes and :class:`Scratch` work
  arrays, for kernels that call it chunk after chunk (the rotated boxes).
"""

from __future__ import annotations

import contextlib
import math
from typing import Iterator

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "Scratch",
    "convex_hull_area",
    "convex_intersection_area",
    "polygon_area",
    "polygon_box_intersection_area",
    "sum_planes",
    "unit_square_clipped_area",
]

FloatArray = NDArray[np.float64]


def polygon_area(poly: ArrayLike) -> FloatArray:
    """Compute the signed shoelace area of each polygon in a batch.

    The area is positive for counter-clockwise vertices (in a y-up frame) and negative for
    clockwise ones. It is computed as a fan of triangles around each polygon's first vertex,
    which is the shoelace formula with the coordinates taken relative to that vertex: this
    avoids the cancellation of large products when the polygon is far from the origin.

    Parameters
    ----------
    poly : array_like of shape (..., n, 2)
        Vertices of each polygon, in order; the closing edge is implied.

    Returns
    -------
    ndarray of shape (...,)
        Signed area of each polygon. Fewer than three vertices give 0.

    Examples
    --------
    >>> polygon_area([[[0, 0], [2, 0], [2, 1], [0, 1]]])
    array([2.])
    >>> polygon_area([[[0, 0], [0, 1], [1, 0]]])  # clockwise: negative
    array([-0.5])
    >>> polygon_area([[[0, 0], [1, 1], [2, 2]]])  # collinear: degenerate
    array([0.])
    """
    vertices = np.asarray(poly, dtype=np.float64)
    if vertices.ndim < 2 or vertices.shape[-1] != 2:
        raise ValueError(f"poly must have shape (..., n, 2), got {vertices.shape}")
    return _fan_area(vertices[..., 0], vertices[..., 1])


def convex_intersection_area(a: ArrayLike, b: ArrayLike) -> FloatArray:
    """Compute the area of the intersection of two convex polygons, row by row.

    Polygon ``a[k]`` is clipped by the half-planes of every edge of ``b[k]``
    (Sutherland-Hodgman) and the area of what remains is taken with the shoelace formula.
    Both polygons must be convex and counter-clockwise (positive :func:`polygon_area`);
    repeated vertices and zero-area polygons are allowed.

    Parameters
    ----------
    a : array_like of shape (K, n, 2)
        Vertices of the first polygon of each pair.
    b : array_like of shape (K, m, 2)
        Vertices of the second polygon of each pair.

    Returns
    -------
    ndarray of shape (K,)
        Area of ``a[k] ∩ b[k]``, clamped to ``[0, min(area(a[k]), area(b[k]))]``.

    Examples
    --------
    >>> square = [[0, 0], [1, 0], [1, 1], [0, 1]]
    >>> shifted = [[0.5, 0], [1.5, 0], [1.5, 1], [0.5, 1]]
    >>> segment = [[0.5, 0], [0.5, 0], [0.5, 1], [0.5, 1]]  # zero width
    >>> convex_intersection_area([square, square, square], [shifted, square, segment])
    array([0.5, 1. , 0. ])
    """
    subject = _as_polygon_batch(a, "a")
    clip = _as_polygon_batch(b, "b")
    if subject.shape[0] != clip.shape[0]:
        raise ValueError(
            f"a and b must hold the same number of polygons, got {subject.shape[0]} and {clip.shape[0]}"
        )
    # Separate, contiguous x and y planes of shape (K, slots) make every step a fast 1-D op.
    x, y = np.ascontiguousarray(subject[..., 0]), np.ascontiguousarray(subject[..., 1])
    count = np.full(subject.shape[0], subject.shape[1])
    edge_count = clip.shape[1]
    for edge in range(edge_count):
        x, y, count = _clip_by_half_plane(x, y, count, clip[:, edge], clip[:, (edge + 1) % edge_count])
    valid = np.arange(x.shape[1]) < count[:, None]
    area = _fan_area(_pad_with_first(x, valid), _pad_with_first(y, valid))
    # The true area lies in [0, min(area(a), area(b))]; outside it only by rounding, and a
    # zero-area clip polygon (whose edges of length zero constrain nothing) must give 0.
    upper = np.maximum(np.minimum(polygon_area(subject), polygon_area(clip)), 0.0)
    return np.minimum(np.maximum(area, 0.0), upper)


def polygon_box_intersection_area(poly: ArrayLike, box: ArrayLike) -> FloatArray:
    """Compute the area of each polygon inside an axis-aligned box, without clipping.

    The boundary of the polygon is mapped into the box by clamping each coordinate, and the
    signed area of that clamped loop is ``area(poly ∩ box)`` (see Notes). Each edge is split
    where it crosses the box's sides and integrated piece by piece, so every row does the same
    fixed amount of work: no vertex lists grow, and nothing is sorted or compacted.

    Parameters
    ----------
    poly : array_like of shape (K, n, 2)
        Vertices of each polygon, in order; any simple polygon, convex or not, and repeated
        vertices are allowed. Counter-clockwise rows give positive areas, clockwise ones negative.
    box : array_like of shape (K, 4)
        ``xmin, ymin, xmax, ymax`` of the box of each row; a box with ``xmax <= xmin`` or
        ``ymax <= ymin`` is empty.

    Returns
    -------
    ndarray of shape (K,)
        Signed area of ``poly[k] ∩ box[k]`` (the sign of :func:`polygon_area`).

    Notes
    -----
    For a box ``[x0, x1] × [y0, y1]`` and a counter-clockwise polygon P, the length of the
    vertical slice of ``P ∩ box`` at ``x`` is ``clamp(upper(x)) - clamp(lower(x))``, with
    ``clamp`` to ``[y0, y1]``; so ``area(P ∩ box) = -∮ clamp(y) 1[x0 <= x <= x1] dx`` along
    the boundary of P. That integrand is continuous along each edge, so rounding moves the
    result continuously: there are no inside/outside decisions that could drop a piece.

    Examples
    --------
    >>> square = [[0, 0], [2, 0], [2, 2], [0, 2]]
    >>> polygon_box_intersection_area([square, square], [[1, 1, 3, 3], [-1, -1, 3, 3]])
    array([1., 4.])
    >>> ell = [[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]]  # not convex, area 3
    >>> polygon_box_intersection_area([ell, ell[::-1]], [[0.5, 0.5, 2, 2], [0.5, 0.5, 2, 2]])
    array([ 1.25, -1.25])
    """
    vertices = _as_polygon_batch(poly, "poly")
    bounds = np.asarray(box, dtype=np.float64)
    if bounds.shape != (vertices.shape[0], 4):
        raise ValueError(f"box must have shape ({vertices.shape[0]}, 4), got {bounds.shape}")
    x_min, y_min, x_max, y_max = bounds.T
    half_w, half_h = 0.5 * (x_max - x_min), 0.5 * (y_max - y_min)
    # Map each box to the square [-1, 1]²; a flat box keeps scale 1 and is zeroed below.
    scale_x, scale_y = half_w + (half_w == 0), half_h + (half_h == 0)
    # Vertex planes of shape (n, K): every step below is a fast operation on whole rows.
    x = (vertices[..., 0].T - 0.5 * (x_min + x_max)) / scale_x
    y = (vertices[..., 1].T - 0.5 * (y_min + y_max)) / scale_y
    edge_x, edge_y = np.roll(x, -1, axis=0) - x, np.roll(y, -1, axis=0) - y
    area = unit_square_clipped_area(x, y, edge_x, edge_y, Scratch())
    return area * (np.maximum(half_w, 0.0) * np.maximum(half_h, 0.0))


class Scratch:
    """Work arrays reused from one chunk of a batch to the next.

    NumPy allocates every intermediate result afresh. In a loop over chunks that is dozens of
    arrays of tens to hundreds of kB per chunk, and glibc hands such blocks back to the OS
    when they are freed and faults them in again for the next chunk (about 0.5 ns per byte
    here): measured 2-3 times slower than computing into arrays that stay allocated, and in
    the CPU cache. A kernel asks for its work arrays in the same order on every chunk, and the
    loop calls :meth:`reset` between chunks; arrays asked for inside :meth:`temporaries` are
    handed out again after it. Each array is a view of a buffer that grows when a larger one
    is asked for, so a smaller last chunk allocates nothing.

    Examples
    --------
    >>> scratch = Scratch()
    >>> first = scratch((2, 3))
    >>> scratch.reset()
    >>> np.shares_memory(scratch((3,)), first)  # a smaller request reuses the buffer
    True
    """

    def __init__(self) -> None:
        self._pools: dict[type, _Pool] = {}

    def __call__(self, shape: tuple[int, ...], dtype: type = np.float64) -> np.ndarray:
        """Return a work array of `shape` and `dtype`; its values are arbitrary."""
        pool = self._pools.get(dtype)
        if pool is None:
            pool = self._pools[dtype] = _Pool(dtype)
        return pool.next(shape)

    def reset(self) -> None:
        """Make every work array available again (the previous chunk's results are dead)."""
        for pool in self._pools.values():
            pool.used = 0

    @contextlib.contextmanager
    def temporaries(self) -> Iterator[None]:
        """Hand out again, on exit, the work arrays asked for inside the block.

        Results that outlive the block must be asked for before it.
        """
        used = {dtype: pool.used for dtype, pool in self._pools.items()}
        try:
            yield
        finally:
            for dtype, pool in self._pools.items():
                pool.used = used.get(dtype, 0)


class _Pool:
    """The work arrays of one dtype, handed out in turn.

    Kernels ask for a hundred or so arrays per chunk, so the common case (a shape this slot
    served before) returns a view made before, without slicing anything anew.
    """

    def __init__(self, dtype: type) -> None:
        self.dtype = dtype
        self.buffers: list[np.ndarray] = []
        self.views: list[dict[tuple[int, ...], np.ndarray]] = []
        self.used = 0

    def next(self, shape: tuple[int, ...]) -> np.ndarray:
        slot = self.used
        self.used += 1
        if slot < len(self.views):
            view = self.views[slot].get(shape)
            if view is not None:
                return view
        size = math.prod(shape)
        if slot == len(self.buffers):
            self.buffers.append(np.empty(size, self.dtype))
            self.views.append({})
        elif self.buffers[slot].size < size:
            self.buffers[slot] = np.empty(size, self.dtype)
            self.views[slot] = {}
        view = self.views[slot][shape] = self.buffers[slot][:size].reshape(shape)
        return view


def unit_square_clipped_area(
    x: FloatArray, y: FloatArray, edge_x: FloatArray, edge_y: FloatArray, scratch: Scratch
) -> FloatArray:
    """Return the signed area of polygons inside the square ``[-1, 1]²``, from vertex planes.

    This is the core of :func:`polygon_box_intersection_area` for callers that already hold
    a polygon in the frame of its box, as the rotated-box kernel does.

    Parameters
    ----------
    x, y : ndarray of shape (n, K)
        Vertex ``i`` of every row in ``x[i], y[i]``.
    edge_x, edge_y : ndarray of shape (n, K)
        Edge ``i`` from vertex ``i`` to vertex ``i + 1`` (the last one closing the polygon);
        passed in so that a caller can give them exactly.
    scratch : Scratch
        Where the work arrays come from; the result is one of them.

    Returns
    -------
    ndarray of shape (K,)
        Signed area of each polygon's part inside the square; NaN where a vertex is NaN.

    Examples
    --------
    >>> x, y = np.array([[0.0], [2.0], [2.0], [0.0]]), np.array([[0.0], [0.0], [2.0], [2.0]])
    >>> unit_square_clipped_area(x, y, np.roll(x, -1, axis=0) - x, np.roll(y, -1, axis=0) - y, Scratch())
    array([1.])
    """
    if x.shape[0] == 0:
        return np.zeros(x.shape[1:])
    shape = x.shape
    area = scratch(shape[1:])
    with scratch.temporaries():
        # Edge parameters t where each edge meets the lines x = ±1 and y = ±1.
        at_left, at_right = _crossings(x, edge_x, scratch)
        at_bottom, at_top = _crossings(y, edge_y, scratch)
        # [enter, leave]: the part of the edge inside the vertical strip -1 <= x <= 1.
        enter = np.minimum(at_left, at_right, out=scratch(shape))
        np.clip(enter, 0.0, 1.0, out=enter)
        leave = np.maximum(at_left, at_right, out=at_right)
        np.clip(leave, 0.0, 1.0, out=leave)
        np.maximum(leave, enter, out=leave)
        # Within it, y is clamped before `first` and after `second` (constant there) and
        # linear in between: three pieces, each integrated exactly.
        first = _clamp(np.minimum(at_bottom, at_top, out=at_left), enter, leave)
        second = _clamp(np.maximum(at_bottom, at_top, out=at_bottom), enter, leave)

        def clamped_y(t: FloatArray, out: FloatArray) -> FloatArray:
            np.multiply(t, edge_y, out=out)
            out += y
            return np.clip(out, -1.0, 1.0, out=out)

        # Integral of the clamped y over [enter, leave]: constant, linear, constant pieces.
        integral, term = scratch(shape), scratch(shape)
        np.subtract(first, enter, out=integral)
        integral *= clamped_y(enter, at_top)
        np.add(clamped_y(first, term), clamped_y(second, enter), out=term)  # `enter` is used up
        term *= np.subtract(second, first, out=at_top)
        term *= 0.5
        integral += term
        np.subtract(leave, second, out=term)
        term *= clamped_y(leave, at_top)
        integral += term
        integral *= edge_x
        sum_planes(integral, out=area)
    return np.negative(area, out=area)


def _crossings(coordinate: FloatArray, edge: FloatArray, scratch: Scratch) -> tuple[FloatArray, FloatArray]:
    """Return the edge parameters t where ``coordinate + t * edge`` is -1 and where it is 1.

    An edge parallel to those lines gets a huge finite slope instead of an infinite one, so
    that ``0 * slope`` stays 0 rather than NaN. Every use clamps t into [0, 1], where the
    result no longer depends on it: an edge of zero width contributes ``edge_x * ... = 0``,
    one of zero height has a constant clamped y.
    """
    at_low, at_high = scratch(edge.shape), scratch(edge.shape)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        slope = np.divide(1.0, edge, out=at_high)
        np.clip(slope, -_HUGE, _HUGE, out=slope)
        np.multiply(np.subtract(-1.0, coordinate, out=at_low), slope, out=at_low)
        # 1 - coordinate is (-1 - coordinate) + 2: the second parameter is the first plus 2 * slope.
        slope *= 2.0
        at_high += at_low
    return at_low, at_high


def _clamp(value: FloatArray, low: FloatArray, high: FloatArray) -> FloatArray:
    """Clamp `value` into ``[low, high]`` elementwise, in place."""
    return np.minimum(np.maximum(value, low, out=value), high, out=value)


# A slope standing in for the infinite one of an edge parallel to a side of the square.
_HUGE = 1e300


def sum_planes(planes: FloatArray, out: FloatArray | None = None) -> FloatArray:
    """Sum planes of shape (n, K) over the first axis, one plane after another.

    ``np.sum`` over axis 0 takes that order only while K > 1: a single row is contiguous and
    summed in pairwise blocks. The fixed order keeps a row's value bit-identical in any batch.

    Examples
    --------
    >>> sum_planes(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    array([ 9., 12.])
    """
    total = np.empty(planes.shape[1:]) if out is None else out
    if planes.shape[0] == 0:
        total.fill(0.0)
        return total
    np.copyto(total, planes[0])
    for plane in planes[1:]:
        total += plane
    return total


def convex_hull_area(points: ArrayLike) -> FloatArray:
    """Compute the area of the convex hull of each row of points.

    Uses Andrew's monotone chain on every row at once: the points are sorted by ``(x, y)``,
    then the lower and upper chains are built with a vertex stack per row. Collinear and
    repeated points are allowed.

    Parameters
    ----------
    points : array_like of shape (K, P, 2)
        ``P`` points per row (``P`` small: the work grows as ``P**2`` per row).

    Returns
    -------
    ndarray of shape (K,)
        Area of the convex hull of each row; 0 when the points are collinear or identical.

    Examples
    --------
    >>> convex_hull_area([[[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]]])  # (1, 1) is inside
    array([4.])
    >>> convex_hull_area([[[3, 3], [3, 3], [3, 3]], [[0, 0], [1, 1], [2, 2]]])  # degenerate
    array([0., 0.])
    """
    cloud = _as_polygon_batch(points, "points")
    if cloud.shape[1] == 0:
        return np.zeros(cloud.shape[0])
    order = np.lexsort((cloud[..., 1], cloud[..., 0]), axis=-1)
    # Coordinates relative to the leftmost point keep the cross products small.
    x = np.take_along_axis(cloud[..., 0], order, axis=1)
    y = np.take_along_axis(cloud[..., 1], order, axis=1)
    x, y = x - x[:, :1], y - y[:, :1]
    # Lower chain left to right plus upper chain right to left: the closed hull boundary.
    twice_area = _chain_cross_sum(x, y) + _chain_cross_sum(x[:, ::-1], y[:, ::-1])
    return np.maximum(0.5 * twice_area, 0.0)


def _as_polygon_batch(value: ArrayLike, name: str) -> FloatArray:
    """Return `value` as a float64 array of shape (K, n, 2) or raise ValueError."""
    array = np.asarray(value, dtype=np.float64)
    if array.ndim != 3 or array.shape[-1] != 2:
        raise ValueError(f"{name} must have shape (K, n, 2), got {array.shape}")
    return array


def _cross(ux: FloatArray, uy: FloatArray, vx: FloatArray, vy: FloatArray) -> FloatArray:
    """Return the z component of the cross product ``u × v``."""
    return ux * vy - uy * vx


def _sequential_sum(terms: FloatArray) -> FloatArray:
    """Sum over the last axis strictly left to right.

    ``np.sum`` uses pairwise blocks whose grouping depends on the axis length, so padding a
    row with zeros could change its last bit. A running sum does not, which keeps the kernels
    bit-identical whatever batch (and hence buffer width) a row is processed in.
    """
    return sum_planes(np.moveaxis(terms, -1, 0))


def _fan_area(x: FloatArray, y: FloatArray) -> FloatArray:
    """Return the signed shoelace area of polygons given as x and y planes of shape (..., n).

    The fan of triangles around the first vertex is the shoelace formula in coordinates
    relative to that vertex, which avoids cancelling large products far from the origin.
    """
    if x.shape[-1] == 0:
        return np.zeros(x.shape[:-1])
    x, y = x - x[..., :1], y - y[..., :1]
    return 0.5 * _sequential_sum(_cross(x[..., :-1], y[..., :-1], x[..., 1:], y[..., 1:]))


def _clip_by_half_plane(
    x: FloatArray, y: FloatArray, count: NDArray[np.intp], start: FloatArray, end: FloatArray
) -> tuple[FloatArray, FloatArray, NDArray[np.intp]]:
    """Keep the part of each polygon left of (or on) the directed line ``start -> end``.

    Parameters
    ----------
    x, y : ndarray of shape (K, C)
        Polygon buffers; only the first ``count[k]`` vertices of row ``k`` are meaningful.
    count : ndarray of shape (K,)
        Number of valid vertices per row.
    start, end : ndarray of shape (K, 2)
        Clip edge of each row; a counter-clockwise polygon is on the left of its edges.

    Returns
    -------
    x, y : ndarray of shape (K, C')
        Clipped polygons, valid vertices first, ``C'`` the largest new count.
    count : ndarray of shape (K,)
        New number of valid vertices per row.
    """
    slots = np.arange(x.shape[1])
    valid = slots < count[:, None]
    edge_x, edge_y = (end - start).T[..., None]
    side = _cross(edge_x, edge_y, x - start[:, :1], y - start[:, 1:])
    # ">= 0" puts points on the line inside; with the strict opposite test outside, an edge
    # whose endpoints are classified differently has side values of opposite signs (one may
    # be 0), so `side - next_side` below is never zero.
    inside = valid & (side >= 0)
    is_last = slots == count[:, None] - 1
    next_x, next_y, next_side, next_inside = (
        _next_in_cycle(plane, is_last) for plane in (x, y, side, inside)
    )
    crosses = valid & (inside != next_inside)
    fraction = side / np.where(crosses, side - next_side, 1.0)
    fraction = np.clip(fraction, 0.0, 1.0)  # in [0, 1] in exact arithmetic; clamp rounding
    crossing_x = x + fraction * (next_x - x)
    crossing_y = y + fraction * (next_y - y)
    # Each input edge emits its start vertex if inside, then its crossing point if any.
    keep = _interleave(inside, crosses)
    count = keep.sum(axis=1)
    new_x = _compact(_interleave(x, crossing_x), keep, count)
    new_y = _compact(_interleave(y, crossing_y), keep, count)
    return new_x, new_y, count


def _next_in_cycle(plane: NDArray, is_last: NDArray[np.bool_]) -> NDArray:
    """Return, for each slot, the value at the next vertex of its polygon.

    The valid vertices fill the first slots of each row, so the next vertex is in the next
    slot, except after the last valid vertex, which wraps around to slot 0 (slices, no gather).
    """
    if plane.shape[1] == 0:
        return plane
    return np.where(is_last, plane[:, :1], np.concatenate([plane[:, 1:], plane[:, :1]], axis=1))


def _interleave(first: NDArray, second: NDArray) -> NDArray:
    """Return ``first[:, 0], second[:, 0], first[:, 1], second[:, 1], ...`` along axis 1."""
    return np.stack([first, second], axis=2).reshape(first.shape[0], 2 * first.shape[1])


def _compact(plane: FloatArray, keep: NDArray[np.bool_], count: NDArray[np.intp]) -> FloatArray:
    """Move the kept entries of each row to its front, in order, and trim the buffer.

    The width becomes the largest count rather than a fixed ``n + m`` bound: rounding can make
    a nearly degenerate polygon slightly non-convex, and a fixed bound could drop vertices.
    """
    width = int(count.max()) if count.size else 0
    compacted = np.zeros(plane.shape[0] * width)
    # Boolean selection lists the kept entries row by row, in order: scatter each one to its
    # row's next free slot.
    slot = np.cumsum(keep, axis=1) - 1
    row_start = width * np.arange(plane.shape[0])[:, None]
    compacted[(row_start + slot)[keep]] = plane[keep]
    return compacted.reshape(plane.shape[0], width)


def _pad_with_first(plane: FloatArray, valid: NDArray[np.bool_]) -> FloatArray:
    """Overwrite the unused slots of each row with the value at its first vertex.

    Repeats of the first vertex add exactly zero to the fan area, so the padded buffer has
    the area of the valid vertices alone.
    """
    if plane.shape[1] == 0:
        return plane
    return np.where(valid, plane, plane[:, :1])


def _chain_cross_sum(x: FloatArray, y: FloatArray) -> FloatArray:
    """Return twice the signed area contribution of the monotone chain through the points.

    The chain keeps only counter-clockwise turns while walking each row's points in the
    given order: for points sorted by ``(x, y)`` that is the lower hull, for the reverse order
    the upper hull. The sum of ``p_i × p_{i+1}`` over its edges is the chain's shoelace share.

    Parameters
    ----------
    x, y : ndarray of shape (K, P)
        Points of each row, sorted along the chain's direction.

    Returns
    -------
    ndarray of shape (K,)
        Sum of the cross products of consecutive chain vertices.
    """
    rows, width = x.shape
    # Flat stack buffers (row k at slots k*width ...): 1-D gathers are much faster than
    # indexing with (row, slot) pairs.
    row_start = width * np.arange(rows)
    chain_x, chain_y = np.zeros(rows * width), np.zeros(rows * width)
    size = np.zeros(rows, dtype=np.intp)
    for index in range(width):
        point_x, point_y = x[:, index], y[:, index]
        # Only rows that just popped can pop again: shrink to them instead of re-testing all.
        # Each round pops one vertex from every remaining row, so it ends within `index` rounds.
        active = np.flatnonzero(size >= 2)
        while active.size:
            top = row_start[active] + size[active] - 1
            below_x, below_y = chain_x.take(top - 1), chain_y.take(top - 1)
            turn = _cross(
                chain_x.take(top) - below_x, chain_y.take(top) - below_y,
                point_x[active] - below_x, point_y[active] - below_y,
            )
            # "<= 0" also pops collinear and repeated points, so they never stay on the chain.
            active = active[turn <= 0]
            size[active] -= 1
            active = active[size[active] >= 2]
        chain_x[row_start + size], chain_y[row_start + size] = point_x, point_y
        size += 1
    chain_x, chain_y = chain_x.reshape(rows, width), chain_y.reshape(rows, width)
    terms = _cross(chain_x[:, :-1], chain_y[:, :-1], chain_x[:, 1:], chain_y[:, 1:])
    on_chain = np.arange(width - 1) < (size - 1)[:, None]
    return _sequential_sum(np.where(on_chain, terms, 0.0))
