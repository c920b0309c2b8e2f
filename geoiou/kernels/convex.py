"""Vectorized area kernels for batches of small convex polygons.

Every function works on a batch of ``K`` independent rows at once; the only Python loops
run over a fixed, small number of polygon edges or points, never over the rows.
Only NumPy is used so that the kernels can be reused by every geometry of the package.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["convex_hull_area", "convex_intersection_area", "polygon_area"]

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
    if terms.shape[-1] == 0:
        return np.zeros(terms.shape[:-1])
    return np.add.accumulate(terms, axis=-1)[..., -1]


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
