"""The convex hull of each polygon of a store, compiled: certain or silent, as `simple_rings` is.

The hull of a polygon is the hull of the vertices of its exterior rings (holes lie inside them).
Andrew's monotone chain builds it from the vertices sorted by x, then y, keeping a vertex only
where the chain turns left by an orientation sign that rounding cannot have flipped (Shewchuk's
bound, `simple_rings.orientation`). Its vertices are then exactly the extreme points GEOS's hull
has, with no collinear or repeated point. Where a sign is not certain (three points nearly on a
line), or a polygon has more than `MOST_POINTS` exterior vertices, it answers nothing, and the
store asks shapely for the hulls instead: the kernel's result is the same either way.

This module is compiled (numba) and imported when a store's hulls are first needed (GIoU), not by
``import geoiou``.
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import jit
from geoiou.regions.simple_rings import orientation

__all__ = ["MOST_POINTS", "exterior_hulls"]

#: Polygons with more exterior vertices go to shapely (its hull sorts them faster than an insertion sort).
MOST_POINTS = 256


@jit
def exterior_hulls(
    coords: np.ndarray,
    ring_offsets: np.ndarray,
    part_offsets: np.ndarray,
    geometry_offsets: np.ndarray,
    is_exterior: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, bool]:
    """The hull of each geometry (``ConvexHulls``' coordinates and offsets, counter-clockwise), and whether all
    were certain (False: the caller asks shapely for every hull).

    Examples
    --------
    >>> square = np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 1.0], [2.0, 2.0], [0.0, 2.0], [0.0, 0.0]])
    >>> offsets = np.array([0, 1])
    >>> hull, hull_offsets, certain = exterior_hulls(square, np.array([0, 6]), offsets, offsets, np.array([True]))
    >>> hull.tolist(), hull_offsets.tolist(), certain
    ([[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]], [0, 4], True)
    """
    size = geometry_offsets.shape[0] - 1
    hull_offsets = np.zeros(size + 1, dtype=np.int64)
    hulls = np.empty((coords.shape[0] + 1, 2))
    points = np.empty((MOST_POINTS, 2))
    chain = np.empty(2 * MOST_POINTS + 1, dtype=np.int64)
    for g in range(size):
        count = 0
        for part in range(geometry_offsets[g], geometry_offsets[g + 1]):
            for ring in range(part_offsets[part], part_offsets[part + 1]):
                if not is_exterior[ring]:
                    continue
                for k in range(ring_offsets[ring], ring_offsets[ring + 1] - 1):  # the closing vertex repeats
                    if count == MOST_POINTS:
                        return hulls, hull_offsets, False
                    points[count, 0], points[count, 1] = coords[k, 0], coords[k, 1]
                    count += 1
        length = _hull_of(points, count, chain)
        if length < 0:
            return hulls, hull_offsets, False
        start = hull_offsets[g]
        for k in range(length):
            hulls[start + k, 0], hulls[start + k, 1] = points[chain[k], 0], points[chain[k], 1]
        hull_offsets[g + 1] = start + length
    return hulls[: hull_offsets[size]], hull_offsets, True


@jit
def _hull_of(points: np.ndarray, count: int, chain: np.ndarray) -> int:
    """The hull of ``points[:count]`` (sorted here, in place) as indices into them in `chain`, counter-clockwise;
    its length (0 for no points), or -1 where an orientation is not certain or the points enclose no area."""
    if count == 0:
        return 0
    _sort_points(points, count)
    length = 0
    for turn in range(2):  # the lower chain left to right, then the upper one back
        floor = length
        for step in range(count):
            k = step if turn == 0 else count - 1 - step
            if length > 0 and _same_point(points, chain[length - 1], k):
                continue  # a repeated point (parts that touch)
            while length - floor >= 2:
                side = orientation(points, chain[length - 2], chain[length - 1], k)
                if side == 0:
                    return -1
                if side > 0:
                    break
                length -= 1
            chain[length] = k
            length += 1
        length -= 1  # each chain's last point starts the other
    return length if length >= 3 else -1


@jit
def _same_point(points: np.ndarray, i: int, j: int) -> bool:
    same: bool = points[i, 0] == points[j, 0] and points[i, 1] == points[j, 1]
    return same


@jit
def _sort_points(points: np.ndarray, count: int) -> None:
    """Sort ``points[:count]`` by x, then y (insertion: polygons have few vertices)."""
    for k in range(1, count):
        x, y = points[k, 0], points[k, 1]
        at = k
        while at > 0 and (points[at - 1, 0] > x or (points[at - 1, 0] == x and points[at - 1, 1] > y)):
            points[at, 0], points[at, 1] = points[at - 1, 0], points[at - 1, 1]
            at -= 1
        points[at, 0], points[at, 1] = x, y
