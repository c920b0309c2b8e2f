"""The area of the convex hull of two convex polygons (the GIoU enclosure), without building it.

Both polygons are walked together in the order of their edges' outward normals, as rotating
calipers do: between two consecutive normal directions each polygon has one extreme vertex, and
the hull of the union passes through whichever is further out. Listing, at every normal
direction, the extreme points in order gives the vertices of the hull of the union (a bridge
joins a point of one polygon to the next point of the other), and the shoelace formula over
that list is twice the hull's area. Repeated points and points along one line add nothing to a
shoelace sum, so ties need no care. Every pair takes ``n + m`` steps of fixed work, all pairs at
once, in a frame centred on the pair (the shoelace loses digits far from its origin).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import shapely

from geoiou.kernels.polygon_overlap import TURN, pseudo_angle
from geoiou.regions.ragged import offsets_of, ragged_arange

__all__ = ["ConvexHulls", "union_hull_area"]

#: Pairs handled at once: large enough to pay NumPy's per-call cost rarely, small enough for the CPU cache.
PAIR_BLOCK = 1 << 14
#: Directions of the support lookup table of each hull (see `ConvexHulls.support`).
BUCKETS = 64
#: Steps from a bucket's first support vertex to the one of the direction asked for.
CORRECTIONS = 2
#: Refinements of a bridge before the pair is left to the walk.
BRIDGE_ITERATIONS = 6


@dataclass(frozen=True)
class ConvexHulls:
    """Convex polygons, counter-clockwise, each starting at the edge whose outward normal has the smallest angle.

    Hull k owns the flat slots ``offsets[k] .. offsets[k + 1] - 1``: its ``count[k]`` vertices,
    then vertex 0 again, then one more slot. Vertices are stored relative to the hull's
    ``centre`` (the centre of its bounds). Slot i also holds the edge from vertex i to vertex
    i + 1: its outward normal ``(nx, ny)`` and that normal's pseudo-angle ``angle``, rising along
    the hull; +inf from slot ``count[k]`` on. A hull of one point has no edges; an empty one no
    vertices (its centre is NaN).
    """

    x: np.ndarray
    y: np.ndarray
    nx: np.ndarray
    ny: np.ndarray
    angle: np.ndarray
    offsets: np.ndarray
    count: np.ndarray
    centre: np.ndarray
    bounds: np.ndarray

    @classmethod
    def from_rings(cls, coords: np.ndarray, offsets: np.ndarray) -> ConvexHulls:
        """Build from the vertices of convex rings: ring k is ``coords[offsets[k]:offsets[k + 1]]``.

        A ring is a convex polygon in either direction (open or closed, no other repeated
        vertex), a segment (2 vertices), a point, or nothing.

        Examples
        --------
        >>> square = np.array([[0, 0], [0, 1], [1, 1], [1, 0]], dtype=float)  # clockwise
        >>> hulls = ConvexHulls.from_rings(square, np.array([0, 4]))
        >>> hulls.count, hulls.x[:6] + hulls.centre[0, 0], hulls.angle[:6]
        (array([4]), array([1., 1., 0., 0., 1., 1.]), array([ 0.,  1.,  2.,  3., inf, inf]))
        """
        coords = np.asarray(coords, dtype=np.float64)
        starts, ends = offsets[:-1].astype(np.int64), offsets[1:].astype(np.int64)
        long = ends - starts > 1
        closed = np.zeros(len(starts), dtype=bool)
        closed[long] = (coords[starts[long]] == coords[ends[long] - 1]).all(axis=1)
        count = ends - starts - closed
        index, ring = ragged_arange(starts, starts + count)
        bounds = np.full((len(count), 4), np.nan)
        present = count > 0
        if index.size:
            firsts = offsets_of(count)[:-1][present]
            bounds[present, :2] = np.minimum.reduceat(coords[index], firsts, axis=0)
            bounds[present, 2:] = np.maximum.reduceat(coords[index], firsts, axis=0)
        centre = bounds[:, :2] / 2 + bounds[:, 2:] / 2
        x, y = coords[index, 0] - centre[ring, 0], coords[index, 1] - centre[ring, 1]
        rank = index - starts[ring]
        # Edges: to the next vertex of the ring (the last one back to the first).
        following = np.arange(len(index)) + np.where(rank + 1 < count[ring], 1, -rank)
        nx, ny = y[following] - y, x - x[following]  # outward normals of a counter-clockwise ring
        twice = np.bincount(ring, weights=x * y[following] - y * x[following], minlength=len(count))
        clockwise = (twice < 0)[ring]
        # Read clockwise rings backwards: edge i then joins vertex i to vertex i - 1, and its normal flips.
        previous = np.arange(len(index)) + np.where(rank > 0, -1, count[ring] - 1)
        nx = np.where(clockwise, -(nx[previous]), nx)
        ny = np.where(clockwise, -(ny[previous]), ny)
        rank = np.where(clockwise, (count[ring] - rank) % np.maximum(count[ring], 1), rank)
        angle = np.where(count[ring] > 1, pseudo_angle(nx, ny), np.inf)
        # Start each ring at its edge of smallest normal angle: angles then rise along it.
        smallest = np.full(len(count), np.inf)
        np.minimum.at(smallest, ring, angle)
        first_rank = np.zeros(len(count), dtype=np.int64)
        at_smallest = angle == smallest[ring]
        np.maximum.at(first_rank, ring[at_smallest], rank[at_smallest])  # any one of equal angles
        rank = (rank - first_rank[ring]) % np.maximum(count[ring], 1)
        slots = offsets_of(count + 2)  # an empty hull keeps two unused slots, so that every row can be read
        position = slots[ring] + rank
        table = {name: np.zeros(slots[-1]) for name in ("x", "y", "nx", "ny")}
        table["angle"] = np.full(slots[-1], np.inf)
        for name, values in (("x", x), ("y", y), ("nx", nx), ("ny", ny), ("angle", angle)):
            table[name][position] = values
        # The two slots after each hull repeat its vertex 0 (with no edge).
        for extra in (0, 1):
            wrap = slots[:-1][present] + count[present] + extra
            table["x"][wrap], table["y"][wrap] = table["x"][slots[:-1][present]], table["y"][slots[:-1][present]]
        return cls(table["x"], table["y"], table["nx"], table["ny"], table["angle"], slots, count, centre, bounds)

    @classmethod
    def from_shapely(cls, hulls: np.ndarray) -> ConvexHulls:
        """Build from a 1-D array of shapely convex hulls (Polygons, LineStrings, Points or empties)."""
        coords, owner = shapely.get_coordinates(hulls, return_index=True)
        return cls.from_rings(coords, offsets_of(np.bincount(owner, minlength=len(hulls))))

    @functools.cached_property
    def chain(self) -> np.ndarray:
        """Running shoelace sum along each hull: slot i holds the sum of ``v_t × v_{t+1}`` for t < i (local coordinates).

        Summed hull by hull (a row each), so a hull's sums do not depend on the hulls stored before it.
        """
        slot, hull = ragged_arange(self.offsets[:-1], self.offsets[1:])
        rank = slot - self.offsets[:-1][hull]
        following = np.minimum(slot + 1, len(self.x) - 1)
        cross = np.where(rank < self.count[hull], self.x[slot] * self.y[following] - self.y[slot] * self.x[following], 0.0)
        table = np.zeros((len(self.count), int(np.diff(self.offsets).max(initial=0)) + 1))
        table[hull, rank + 1] = cross
        running = np.cumsum(table, axis=1)
        return running[hull, rank]

    @functools.cached_property
    def _lookup(self) -> np.ndarray:
        """For hull k and bucket b, at ``k·BUCKETS + b``: how many of its normals point below direction ``TURN·b/BUCKETS``.

        Small integers in one flat array: the table of a few thousand hulls stays in the CPU cache.
        """
        starts = np.arange(BUCKETS) * (TURN / BUCKETS)
        index, hull = ragged_arange(self.offsets[:-1], self.offsets[:-1] + self.count)
        below = np.zeros((len(self.count), BUCKETS), dtype=np.int16 if self.count.max(initial=0) < 1 << 15 else np.int64)
        np.add.at(below, hull, self.angle[index][:, None] < starts)
        return below.ravel()

    @functools.cached_property
    def fingerprint(self) -> np.ndarray:
        """A 64-bit hash of each hull's vertices (equal for equal hulls): the canonical order of a pair."""
        index, hull = ragged_arange(self.offsets[:-1], self.offsets[:-1] + self.count)
        local = np.stack([self.x[index], self.y[index]], axis=1) + self.centre[hull]
        bits = np.ascontiguousarray(local).view(np.uint64)
        rank = (index - self.offsets[:-1][hull]).astype(np.uint64)
        mixed = (bits[:, 0] * np.uint64(0x9E3779B97F4A7C15) + bits[:, 1]) * (rank * np.uint64(2) + np.uint64(1))
        hashes = self.count.astype(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F)
        np.add.at(hashes, hull, mixed)
        return hashes

    def supports(self, rows: np.ndarray, slot: np.ndarray, angle: np.ndarray) -> np.ndarray:
        """Whether slot `slot` of ``hulls[rows]`` is the vertex `support` finds for pseudo-angle `angle`.

        It is when the normal of the edge before it points below `angle` and that of its own edge
        does not: `support` counts the normals below the angle.
        """
        at = self.offsets[rows] + slot
        before = np.where(slot > 0, self.angle[np.maximum(at - 1, 0)], -np.inf)
        found: np.ndarray = (before < angle) & (self.angle[at] >= angle)
        return found

    def support(self, rows: np.ndarray, angle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Slot (from each hull's start) of the vertex of ``hulls[rows]`` furthest in the direction of pseudo-angle `angle`.

        Returns the slots and whether each was found: a bucket table gives a first guess, and a
        few steps along the hull finish it; a hull with more normals in one bucket is not found.
        """
        bucket = np.minimum((angle * (BUCKETS / TURN)).astype(np.int64), BUCKETS - 1)
        slot = self._lookup[rows * BUCKETS + bucket].astype(np.int64)
        first = self.offsets[rows]
        for _ in range(CORRECTIONS):
            slot += self.angle[first + slot] < angle
        return slot, self.angle[first + slot] >= angle


def union_hull_area(a: ConvexHulls, index_a: np.ndarray, b: ConvexHulls, index_b: np.ndarray) -> np.ndarray:
    """Area of the convex hull of ``a[index_a[k]] ∪ b[index_b[k]]`` for every k.

    The two hulls of a pair are taken in a canonical order (by a fingerprint of their vertices),
    so swapping `a` and `b` gives the same bits.

    Examples
    --------
    >>> square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    >>> hulls = ConvexHulls.from_rings(np.concatenate([square, square + [2, 0]]), np.array([0, 4, 8]))
    >>> union_hull_area(hulls, np.array([0, 0]), hulls, np.array([1, 0]))  # side by side: a 3 x 1 box; itself
    array([3., 1.])
    """
    index_a, index_b = np.asarray(index_a, dtype=np.int64), np.asarray(index_b, dtype=np.int64)
    area = np.empty(len(index_a))
    # Pairs left to walk, by which side comes first: (pair positions, rows of the first side, of the second).
    walks: dict[bool, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {False: [], True: []}
    for start in range(0, len(index_a), PAIR_BLOCK):
        block = np.arange(start, min(start + PAIR_BLOCK, len(index_a)))
        ia, ib = index_a[block], index_b[block]
        swap = b.fingerprint[ib] < a.fingerprint[ia]
        for swapped in (False, True):
            first, first_rows, second, second_rows = (b, ib, a, ia) if swapped else (a, ia, b, ib)
            rows = np.flatnonzero(swap == swapped)
            # Hulls apart are measured from their bridges; the rest (and any bridge not found) by walking.
            bounds_1, bounds_2 = first.bounds[first_rows[rows]], second.bounds[second_rows[rows]]
            apart = ((bounds_1[:, 2] < bounds_2[:, 0]) | (bounds_2[:, 2] < bounds_1[:, 0])
                     | (bounds_1[:, 3] < bounds_2[:, 1]) | (bounds_2[:, 3] < bounds_1[:, 1]))
            bridged_rows = rows[apart]
            bridged, found = _bridged_area(first, first_rows[bridged_rows], second, second_rows[bridged_rows])
            area[block[bridged_rows[found]]] = bridged[found]
            rest = np.concatenate([rows[~apart], bridged_rows[~found]])
            walks[swapped].append((block[rest], first_rows[rest], second_rows[rest]))
    # Walked in large batches: a step costs about the same for a few pairs as for thousands.
    for swapped, pieces in walks.items():
        if not pieces:
            continue
        first, second = (b, a) if swapped else (a, b)
        at, rows_1, rows_2 = (np.concatenate([piece[k] for piece in pieces]) for k in range(3))
        for start in range(0, len(at), PAIR_BLOCK):
            part = slice(start, start + PAIR_BLOCK)
            area[at[part]] = _walked_area(first, rows_1[part], second, rows_2[part])
    return area


def _bridged_area(a: ConvexHulls, index_a: np.ndarray, b: ConvexHulls, index_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hull areas of pairs of disjoint hulls from their two outer tangents (bridges), and where those were found.

    With centres c_a, c_b, the bridge on the left of c_b - c_a joins u_a to u_b and the one on
    the right joins l_a to l_b; the hull runs u_b -> u_a, along a from u_a to l_a, l_a -> l_b,
    along b from l_b to u_b (counter-clockwise), so its shoelace sum is made of two running sums
    along the hulls (`ConvexHulls.chain`) and two bridge terms.
    """
    origin = a.centre[index_a] / 2 + b.centre[index_b] / 2
    shift_a, shift_b = a.centre[index_a] - origin, b.centre[index_b] - origin
    towards = shift_b - shift_a
    left = np.stack([-towards[:, 1], towards[:, 0]], axis=1)
    upper_a, upper_b, found_upper = _bridge(a, index_a, shift_a, b, index_b, shift_b, left)
    lower_b, lower_a, found_lower = _bridge(b, index_b, shift_b, a, index_a, shift_a, -left)
    twice = (_chain(a, index_a, shift_a, upper_a, lower_a) + _chain(b, index_b, shift_b, lower_b, upper_b)
             + _cross_of_vertices(a, index_a, shift_a, lower_a, b, index_b, shift_b, lower_b)
             + _cross_of_vertices(b, index_b, shift_b, upper_b, a, index_a, shift_a, upper_a))
    return np.maximum(0.5 * twice, 0.0), found_upper & found_lower


def _bridge(a: ConvexHulls, index_a: np.ndarray, shift_a: np.ndarray, b: ConvexHulls, index_b: np.ndarray,
            shift_b: np.ndarray, direction: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The outer tangent of disjoint hulls a, b whose normal is near `direction`: its two vertex slots, and whether found.

    The line through both hulls' furthest vertices in a direction is turned to its own normal
    (on the left of a -> b) until the furthest vertices no longer change: then it touches both.
    """
    angle = pseudo_angle(direction[:, 0], direction[:, 1])
    slot_a, ok_a = a.support(index_a, angle)
    slot_b, ok_b = b.support(index_b, angle)
    found = np.zeros(len(index_a), dtype=bool)
    pending = np.flatnonzero(ok_a & ok_b)
    for _ in range(BRIDGE_ITERATIONS):
        if not pending.size:
            break
        rows_a, rows_b = index_a[pending], index_b[pending]
        ax, ay = _vertex(a, rows_a, shift_a[pending], slot_a[pending])
        bx, by = _vertex(b, rows_b, shift_b[pending], slot_b[pending])
        angle = pseudo_angle(ay - by, bx - ax)  # the left normal of a -> b
        # Settled when both vertices are still the furthest in the line's own normal: a test of
        # the two edges at each vertex, cheaper than looking the furthest vertices up again.
        settled = a.supports(rows_a, slot_a[pending], angle) & b.supports(rows_b, slot_b[pending], angle)
        found[pending[settled]] = True
        pending, angle = pending[~settled], angle[~settled]
        next_a, ok_a = a.support(index_a[pending], angle)
        next_b, ok_b = b.support(index_b[pending], angle)
        slot_a[pending], slot_b[pending] = next_a, next_b
        pending = pending[ok_a & ok_b]
    return slot_a, slot_b, found


def _vertex(hulls: ConvexHulls, rows: np.ndarray, shift: np.ndarray, slot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    at = hulls.offsets[rows] + slot
    return hulls.x[at] + shift[:, 0], hulls.y[at] + shift[:, 1]


def _chain(hulls: ConvexHulls, rows: np.ndarray, shift: np.ndarray, start: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """Shoelace sum along each hull from slot `start` to slot `stop` counter-clockwise, in the pair's frame."""
    first = hulls.offsets[rows]
    running = hulls.chain[first + stop] - hulls.chain[first + start]
    running += np.where(stop < start, hulls.chain[first + hulls.count[rows]], 0.0)  # around past vertex 0
    # Moving the frame by `shift` adds shift × (end - start) to a chain's sum.
    sx, sy = _vertex(hulls, rows, np.zeros_like(shift), start)
    ex, ey = _vertex(hulls, rows, np.zeros_like(shift), stop)
    return running + shift[:, 0] * (ey - sy) - shift[:, 1] * (ex - sx)


def _cross_of_vertices(a: ConvexHulls, index_a: np.ndarray, shift_a: np.ndarray, slot_a: np.ndarray,
                       b: ConvexHulls, index_b: np.ndarray, shift_b: np.ndarray, slot_b: np.ndarray) -> np.ndarray:
    ax, ay = _vertex(a, index_a, shift_a, slot_a)
    bx, by = _vertex(b, index_b, shift_b, slot_b)
    return ax * by - ay * bx


class _Side:
    """One side of a block of pairs: where each row is in the hull tables, and the shift into the pair's frame."""

    def __init__(self, hulls: ConvexHulls, index: np.ndarray, origin: np.ndarray) -> None:
        self.hulls = hulls
        self.at = hulls.offsets[index].copy()
        self.present = hulls.count[index] > 0
        # An empty hull has no centre; it never reaches anywhere (see `_walked_area`), any shift will do.
        self.shift_x = np.where(self.present, hulls.centre[index, 0] - origin[:, 0], 0.0)
        self.shift_y = np.where(self.present, hulls.centre[index, 1] - origin[:, 1], 0.0)
        self.steps = int(hulls.count[index].max(initial=0))

    def vertex(self, step: int = 0) -> tuple[np.ndarray, np.ndarray]:
        return self.hulls.x[self.at + step] + self.shift_x, self.hulls.y[self.at + step] + self.shift_y


def _walked_area(a: ConvexHulls, index_a: np.ndarray, b: ConvexHulls, index_b: np.ndarray) -> np.ndarray:
    """Hull area of the union of ``a[index_a[k]]`` and ``b[index_b[k]]``, for every k."""
    bounds_a, bounds_b = a.bounds[index_a], b.bounds[index_b]
    bounds_a, bounds_b = np.where(np.isnan(bounds_a), bounds_b, bounds_a), np.where(np.isnan(bounds_b), bounds_a, bounds_b)
    # The pair's frame: centred on the bounds of both, where the shoelace keeps its digits.
    origin = np.minimum(bounds_a[:, :2], bounds_b[:, :2]) / 2 + np.maximum(bounds_a[:, 2:], bounds_b[:, 2:]) / 2
    side_a, side_b = _Side(a, index_a, origin), _Side(b, index_b, origin)
    # Direction 0 (+x) first: the further of the two first vertices starts the list.
    vx, vy = side_a.vertex()
    wx, wy = side_b.vertex()
    a_first = side_a.present & (~side_b.present | (vx >= wx))
    start_x, start_y = np.where(a_first, vx, wx), np.where(a_first, vy, wy)
    previous_x, previous_y = start_x, start_y
    twice = np.zeros(len(index_a))
    for _ in range(side_a.steps + side_b.steps):
        angle_a, angle_b = a.angle[side_a.at], b.angle[side_b.at]
        take_a = angle_a <= angle_b
        active = np.isfinite(np.minimum(angle_a, angle_b))
        nx = np.where(take_a, a.nx[side_a.at], b.nx[side_b.at])
        ny = np.where(take_a, a.ny[side_a.at], b.ny[side_b.at])
        vx, vy = side_a.vertex()
        wx, wy = side_b.vertex()
        reach_a = np.where(side_a.present, vx * nx + vy * ny, -np.inf)
        reach_b = np.where(side_b.present, wx * nx + wy * ny, -np.inf)
        # The side this edge belongs to keeps it on the hull if it reaches at least as far.
        wins = np.where(take_a, reach_a >= reach_b, reach_b >= reach_a)
        from_a = take_a == wins  # the point at this direction is a's vertex: a's edge wins or b's loses to a
        first_x, first_y = np.where(from_a, vx, wx), np.where(from_a, vy, wy)
        next_ax, next_ay = side_a.vertex(1)
        next_bx, next_by = side_b.vertex(1)
        second_x = np.where(wins, np.where(take_a, next_ax, next_bx), first_x)
        second_y = np.where(wins, np.where(take_a, next_ay, next_by), first_y)
        step = (previous_x * first_y - previous_y * first_x) + (first_x * second_y - first_y * second_x)
        twice += np.where(active, step, 0.0)
        previous_x = np.where(active, second_x, previous_x)
        previous_y = np.where(active, second_y, previous_y)
        side_a.at += active & take_a
        side_b.at += active & ~take_a
    twice += previous_x * start_y - previous_y * start_x
    # Two empty hulls enclose nothing (their frame has no centre: the sum is NaN there).
    return np.where(side_a.present | side_b.present, np.maximum(0.5 * twice, 0.0), 0.0)
