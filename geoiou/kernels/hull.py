"""The area of the convex hull of two convex polygons (the GIoU enclosure), without building it.

Hulls whose bounds are apart (most pairs of a pairwise matrix) are measured from their two
bridges, the outer tangents: each is found from a first guess in a small table per hull (the
vertex furthest in the direction normal to the line between the centres), checked, and turned
to its own normal when wrong. The area is then a handful of terms per pair (`_bridged_area`).

Other pairs, and the rare bridge not found, are walked: both polygons together in the order of
their edges' outward normals, as rotating calipers do. Between two consecutive normal
directions each polygon has one extreme vertex, and the hull of the union passes through
whichever is further out. Listing, at every normal direction, the extreme points in order gives
the vertices of the hull of the union (a bridge joins a point of one polygon to the next point
of the other), and the shoelace formula over that list is twice the hull's area. Repeated points
and points along one line add nothing to a shoelace sum, so ties need no care. Every pair takes
``n + m`` steps of fixed work, all pairs at once, in a frame centred on the pair (the shoelace
loses digits far from its origin).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import shapely

from geoiou.kernels.polygon_overlap import TURN, pseudo_angle
from geoiou.regions.ragged import offsets_of, ragged_arange

__all__ = ["ConvexHulls", "guess_bucket", "union_hull_area"]

#: Pairs handled at once: large enough to pay NumPy's per-call cost rarely, small enough for the CPU cache.
PAIR_BLOCK = 1 << 15
#: Directions of the first-guess table of each hull (see `ConvexHulls.guess`).
GUESS_DIRECTIONS = 64
#: Refinements of a bridge whose first guess was wrong before the pair is left to the walk.
BRIDGE_ITERATIONS = 3
#: Walked pairs are grouped by their number of steps, this many to a group at most.
WALK_GROUP = 1 << 13
#: Pairs walk in plain Python when all their steps add up to at most this many times the longest
#: walk's: a step costs about 0.6 µs there, and about 50 µs of NumPy calls in the batch walk.
PYTHON_WALK_STEPS = 64


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
        chain: np.ndarray = running[hull, rank]
        return chain

    @functools.cached_property
    def total(self) -> np.ndarray:
        """Twice each hull's area in its local frame: the running shoelace sum once around (`chain` at slot ``count``)."""
        total: np.ndarray = self.chain[self.offsets[:-1] + self.count]
        return total

    @functools.cached_property
    def before(self) -> np.ndarray:
        """By slot: the pseudo-angle of the normal of the edge before it (-inf at slot 0)."""
        before = np.empty_like(self.angle)
        before[1:] = self.angle[:-1]
        before[self.offsets[:-1]] = -np.inf
        return before

    @functools.cached_property
    def columns(self) -> dict[str, np.ndarray]:
        """The centre and bounds of each hull as contiguous columns (gathered pair by pair)."""
        names = ("centre_x", "centre_y", "min_x", "min_y", "max_x", "max_y")
        values = np.concatenate([self.centre, self.bounds], axis=1)
        return {name: np.ascontiguousarray(values[:, k]) for k, name in enumerate(names)}

    @functools.cached_property
    def _guesses(self) -> tuple[np.ndarray, np.ndarray]:
        """For hull k and direction bucket j, at ``k·(GUESS_DIRECTIONS + 1) + j``: a slot and a pseudo-angle.

        The slot is that of the first normal at or past the bucket's start ``TURN·j/GUESS_DIRECTIONS``,
        counted from the hull's first slot; the pseudo-angle is that normal's, rounded up to float32.
        Bucket ``GUESS_DIRECTIONS`` holds the pseudo-angle `TURN` itself. Small types keep the table
        at 6 bytes an entry (390 a hull), about the size of the hull's own vertices.
        """
        width = GUESS_DIRECTIONS + 1
        starts = np.arange(width) * (TURN / GUESS_DIRECTIONS)  # exact: TURN / GUESS_DIRECTIONS is a power of two
        first = self.offsets[:-1]
        index, hull = ragged_arange(first, first + self.count)
        # Each normal counts in the buckets that start past it: a histogram of its first such bucket, summed up.
        past = np.searchsorted(starts, self.angle[index], side="right")
        histogram = np.bincount(hull * (width + 1) + past, minlength=len(self.count) * (width + 1))
        below = np.cumsum(histogram.reshape(len(self.count), width + 1), axis=1)[:, :width]
        return below.astype(np.int16 if self.count.max(initial=0) < 1 << 15 else np.int64).ravel(), \
            _rounded_up_to_float32(self.angle[(below + first[:, None]).ravel()])

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
        fingerprints: np.ndarray = hashes
        return fingerprints

    def guess_rows(self, rows: np.ndarray) -> np.ndarray:
        """Where the first-guess table of each of ``hulls[rows]`` starts (add a `guess_bucket` to it for `guess`)."""
        return rows * (GUESS_DIRECTIONS + 1)

    def guess(self, bucket: np.ndarray, first: np.ndarray, angle: np.ndarray) -> np.ndarray:
        """A first guess at the slot of the vertex furthest in the direction of pseudo-angle `angle`.

        `bucket` is the direction's `guess_bucket` added to the hull's `guess_rows`, `first` the
        hull's first slot. The guess is right unless two normals of the hull fall between the
        direction and the start of its bucket, or the direction is within float32 rounding
        above one; it is never past the right slot (`support` goes on from it).
        """
        slots, thresholds = self._guesses
        at: np.ndarray = first + slots[bucket]
        at += thresholds[bucket] < angle
        return at

    def support(self, rows: np.ndarray, angle: np.ndarray) -> np.ndarray:
        """Slot (in the flat table) of the vertex of ``hulls[rows]`` furthest in the direction of pseudo-angle `angle`.

        The vertex after every normal that points below the angle: the first guess, then steps
        along the hull while the next normal still does.
        """
        bucket = guess_bucket(angle)
        bucket += self.guess_rows(rows)
        at = self.guess(bucket, self.offsets[rows], angle)
        while True:
            step = self.angle[at] < angle
            if not step.any():
                return at
            at += step

    def supports(self, at: np.ndarray, angle: np.ndarray) -> np.ndarray:
        """Whether slot `at` holds the vertex furthest in the direction of pseudo-angle `angle` (the one `support` finds).

        It does when the normal of the edge before it points below `angle` and that of its own
        edge does not.
        """
        found: np.ndarray = self.before[at] < angle
        found &= self.angle[at] >= angle
        return found


def _rounded_up_to_float32(values: np.ndarray) -> np.ndarray:
    """`values` as float32, each rounded up: a float32 threshold below a float64 angle is then below the exact one too.

    Examples
    --------
    >>> _rounded_up_to_float32(np.array([0.1, 0.5, np.inf])) >= np.array([0.1, 0.5, np.inf])
    array([ True,  True,  True])
    """
    rounded = values.astype(np.float32)
    low = rounded < values
    rounded[low] = np.nextafter(rounded[low], np.float32(np.inf))
    return rounded


def guess_bucket(angle: np.ndarray) -> np.ndarray:
    """The bucket of the first-guess tables (`ConvexHulls.guess`) that holds each pseudo-angle.

    Examples
    --------
    >>> guess_bucket(np.array([0.0, 1.0, 3.99, TURN, np.nan]))
    array([ 0, 16, 63, 64, 64])
    """
    # fmin: a NaN direction (from an overflow) takes the last bucket; its pair is then not settled.
    bucket: np.ndarray = np.fmin(angle * (GUESS_DIRECTIONS / TURN), GUESS_DIRECTIONS).astype(np.int64)
    return bucket


def union_hull_area(a: ConvexHulls, index_a: np.ndarray, b: ConvexHulls, index_b: np.ndarray) -> np.ndarray:
    """Area of the convex hull of ``a[index_a[k]] ∪ b[index_b[k]]`` for every k of the indices broadcast together.

    A column ``(n, 1)`` against a row ``(1, m)`` (a pairwise matrix) is measured in that form:
    what belongs to one hull is looked up once per row or column, not once per pair.
    Swapping `a` and `b` gives the same bits: the bridges are found and summed alike from either
    side, and a walked pair takes its two hulls in a canonical order (by a fingerprint of their
    vertices).

    Examples
    --------
    >>> square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    >>> hulls = ConvexHulls.from_rings(np.concatenate([square, square + [2, 0]]), np.array([0, 4, 8]))
    >>> union_hull_area(hulls, np.array([0, 0]), hulls, np.array([1, 0]))  # side by side: a 3 x 1 box; itself
    array([3., 1.])
    """
    index_a, index_b = np.asarray(index_a, dtype=np.int64), np.asarray(index_b, dtype=np.int64)
    shape = np.broadcast_shapes(index_a.shape, index_b.shape)
    area = np.empty(shape)
    flat_area = area.reshape(-1)
    walked: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for start, rows_a, rows_b in _pair_blocks(index_a, index_b):
        # Hulls whose bounds are apart are measured from their two bridges; the rest (and any
        # bridge not found) by walking both hulls. The whole block is bridged: cheaper than
        # picking out the apart pairs first, and harmless for the others (a NaN direction
        # settles nothing, and the walk overwrites them).
        with np.errstate(invalid="ignore", over="ignore"):
            bridged, found = _bridged_area(a, rows_a, b, rows_b)
        found &= _bounds_apart(a, rows_a, b, rows_b)
        flat_area[start:start + bridged.size] = bridged.reshape(-1)
        left = np.flatnonzero(~found)
        walked.append((start + left, _rows_at(rows_a, left, found.shape), _rows_at(rows_b, left, found.shape)))
    if walked:
        at, walked_a, walked_b = (np.concatenate([piece[k] for piece in walked]) for k in range(3))
        if at.size:
            flat_area[at] = _walked_in_canonical_order(a, walked_a, b, walked_b)
    return area


def _pair_blocks(index_a: np.ndarray, index_b: np.ndarray) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """Blocks of about `PAIR_BLOCK` pairs: (flat position of the first, the rows of each side).

    The rows of a matrix (an ``(n, 1)`` column against a ``(1, m)`` row, as pairwise metrics ask)
    stay in that form, so per-hull values broadcast instead of being gathered pair by pair.
    """
    if index_a.ndim == 2 and index_b.ndim == 2 and index_a.shape[1] == 1 and index_b.shape[0] == 1:
        width = index_b.shape[1]
        step = max(1, PAIR_BLOCK // max(1, width))
        for row in range(0, index_a.shape[0], step):
            yield row * width, index_a[row:row + step], index_b
        return
    shape = np.broadcast_shapes(index_a.shape, index_b.shape)
    flat_a, flat_b = np.broadcast_to(index_a, shape).reshape(-1), np.broadcast_to(index_b, shape).reshape(-1)
    for start in range(0, flat_a.size, PAIR_BLOCK):
        yield start, flat_a[start:start + PAIR_BLOCK], flat_b[start:start + PAIR_BLOCK]


def _rows_at(rows: np.ndarray, pairs: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The hull rows of one side for some pairs of a block of `shape`, by the pairs' flat positions.

    A block (`_pair_blocks`) is flat, or a column of rows ``(h, 1)`` against a row ``(1, m)``.
    """
    flat = rows.reshape(-1)
    if rows.shape == shape:
        position = pairs
    elif flat.size == 1:  # one hull against all
        position = np.zeros_like(pairs)
    elif rows.shape[1] == 1:  # a column: one hull per row of the block
        position = pairs // shape[1]
    else:  # a row: one hull per column
        position = pairs % shape[1]
    picked: np.ndarray = flat[position]
    return picked


def _bounds_apart(a: ConvexHulls, rows_a: np.ndarray, b: ConvexHulls, rows_b: np.ndarray) -> np.ndarray:
    """Whether the bounds of each pair are apart (an empty hull's NaN bounds never are)."""
    columns_a, columns_b = a.columns, b.columns
    apart: np.ndarray = columns_a["max_x"][rows_a] < columns_b["min_x"][rows_b]
    apart |= columns_b["max_x"][rows_b] < columns_a["min_x"][rows_a]
    apart |= columns_a["max_y"][rows_a] < columns_b["min_y"][rows_b]
    apart |= columns_b["max_y"][rows_b] < columns_a["min_y"][rows_a]
    return apart


class _End(NamedTuple):
    """Where a bridge touches one hull: the slots, and the vertices in the hull's own frame."""

    at: np.ndarray
    x: np.ndarray
    y: np.ndarray


@dataclass(frozen=True)
class _Bridged:
    """One side of a block of pairs whose hulls are apart: the hull rows."""

    hulls: ConvexHulls
    rows: np.ndarray

    @functools.cached_property
    def guess_rows(self) -> np.ndarray:
        return self.hulls.guess_rows(self.rows)

    @functools.cached_property
    def first(self) -> np.ndarray:
        first: np.ndarray = self.hulls.offsets[self.rows]
        return first

    def end(self, at: np.ndarray) -> _End:
        return _End(at, self.hulls.x[at], self.hulls.y[at])

    def cap(self, start: _End, stop: _End) -> np.ndarray:
        """Twice the area cut off each hull by the chord from `stop` to `start`: the hull from `start` to `stop`, closed.

        The running shoelace sum along the hull from `start` to `stop` counter-clockwise, and the
        chord's term, in the hull's own frame.
        """
        chain = self.hulls.chain
        twice: np.ndarray = chain[stop.at] - chain[start.at]
        twice += self.hulls.total[self.rows] * (stop.at < start.at)  # around past vertex 0
        twice += stop.x * start.y - stop.y * start.x
        return twice


def _bridged_area(a: ConvexHulls, rows_a: np.ndarray, b: ConvexHulls, rows_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hull areas of pairs of hulls whose bounds are apart, from their two outer tangents (bridges), and where found.

    With centres c_a, c_b, the bridge on the left of t = c_b - c_a joins U_a to U_b and the one on
    the right joins L_b to L_a; the hull runs U_b -> U_a, along a to L_a, L_a -> L_b, along b back
    to U_b (counter-clockwise). It is the cap of a cut off by the chord L_a U_a, the cap of b cut
    off by U_b L_b (each from running sums along its hull, `ConvexHulls.chain`), and the
    quadrilateral U_a L_a L_b U_b between them. Twice the quadrilateral's area is the cross
    product of its diagonals, (t + p) × (t + q) with p = l_b - u_a and q = u_b - l_a from the
    hulls' own frames, which is t × (q - p) + p × q: no product of the distance with itself, so
    far-apart hulls keep their digits. From (b, a) the same bridges come out, as the other one
    of each, and the same terms: the same bits.
    """
    towards_x = b.columns["centre_x"][rows_b] - a.columns["centre_x"][rows_a]
    towards_y = b.columns["centre_y"][rows_b] - a.columns["centre_y"][rows_a]  # exactly negated from (b, a)
    side_a, side_b = _Bridged(a, rows_a), _Bridged(b, rows_b)
    upper, lower = pseudo_angle(-towards_y, towards_x), pseudo_angle(towards_y, -towards_x)  # left and right of t
    upper_a, upper_b, found = _bridge(side_a, side_b, towards_x, towards_y, upper)
    lower_b, lower_a, found_lower = _bridge(side_b, side_a, -towards_x, -towards_y, lower)
    found &= found_lower
    twice = side_a.cap(upper_a, lower_a)
    twice += side_b.cap(lower_b, upper_b)
    px, py = lower_b.x - upper_a.x, lower_b.y - upper_a.y
    qx, qy = upper_b.x - lower_a.x, upper_b.y - lower_a.y
    twice += towards_x * (qy - py) - towards_y * (qx - px)
    twice += px * qy - py * qx
    twice *= 0.5
    return np.maximum(twice, 0.0, out=twice), found


def _bridge(first: _Bridged, second: _Bridged, towards_x: np.ndarray, towards_y: np.ndarray,
            angle: np.ndarray) -> tuple[_End, _End, np.ndarray]:
    """The outer tangent of apart hulls on the left of the line from the first's centre towards the second's.

    `angle` is the pseudo-angle of that line's left normal. Returns where the tangent touches
    each hull, and whether it was found. The first guess joins both hulls' furthest vertices in
    that direction. A guess is settled when both vertices are still the furthest in the normal
    of the line through them: then it touches both. Until then the line is turned to its own
    normal.
    """
    bucket = guess_bucket(angle)  # the tables of both hulls have the same buckets
    end_1 = first.end(first.hulls.guess(first.guess_rows + bucket, first.first, angle))
    end_2 = second.end(second.hulls.guess(second.guess_rows + bucket, second.first, angle))
    normal = _left_normal(end_1, end_2, towards_x, towards_y)
    found = first.hulls.supports(end_1.at, normal) & second.hulls.supports(end_2.at, normal)
    # The pairs left are few: they are handled by flat positions in the block (views of its arrays).
    shape = found.shape
    pending = np.flatnonzero(~found)
    normal = normal.reshape(-1)[pending]
    for _ in range(BRIDGE_ITERATIONS):
        if not pending.size:
            break
        moved_1 = first.end(first.hulls.support(_rows_at(first.rows, pending, shape), normal))
        moved_2 = second.end(second.hulls.support(_rows_at(second.rows, pending, shape), normal))
        for end, moved in ((end_1, moved_1), (end_2, moved_2)):
            for name in _End._fields:
                getattr(end, name).reshape(-1)[pending] = getattr(moved, name)
        normal = _left_normal(moved_1, moved_2, towards_x.reshape(-1)[pending], towards_y.reshape(-1)[pending])
        settled = first.hulls.supports(moved_1.at, normal) & second.hulls.supports(moved_2.at, normal)
        found.reshape(-1)[pending[settled]] = True
        pending, normal = pending[~settled], normal[~settled]
    return end_1, end_2, found


def _left_normal(end_1: _End, end_2: _End, towards_x: np.ndarray, towards_y: np.ndarray) -> np.ndarray:
    """Pseudo-angle of the left normal of the line from `end_1` to `end_2` (on hulls whose centres are `towards` apart)."""
    return pseudo_angle((end_1.y - end_2.y) - towards_y, (end_2.x - end_1.x) + towards_x)


def _walked_in_canonical_order(a: ConvexHulls, index_a: np.ndarray, b: ConvexHulls, index_b: np.ndarray) -> np.ndarray:
    """`_walked_area` of each pair, its hulls taken in the order of their fingerprints, in groups of like length.

    A few pairs are walked one by one in plain Python (`hull_pair`), with the same bits: each step
    of the batch walk costs a few dozen NumPy calls, whatever the number of pairs.
    """
    steps = a.count[index_a] + b.count[index_b]
    if steps.sum() <= PYTHON_WALK_STEPS * steps.max(initial=0):
        from geoiou.kernels.hull_pair import walked_pair_areas  # it imports this module

        return walked_pair_areas(a, index_a, b, index_b)
    area = np.empty(len(index_a))
    swap = b.fingerprint[index_b] < a.fingerprint[index_a]
    for swapped in (False, True):
        first, rows_1, second, rows_2 = (b, index_b, a, index_a) if swapped else (a, index_a, b, index_b)
        pairs = np.flatnonzero(swap == swapped)
        # A group walks as many steps as its longest pair: pairs of like length go together.
        pairs = pairs[np.argsort(first.count[rows_1[pairs]] + second.count[rows_2[pairs]], kind="stable")]
        for start in range(0, len(pairs), WALK_GROUP):
            group = pairs[start:start + WALK_GROUP]
            area[group] = _walked_area(first, rows_1[group], second, rows_2[group])
    return area


class _Side:
    """One side of a block of pairs: where each row is in the hull tables, and the shift into the pair's frame."""

    def __init__(self, hulls: ConvexHulls, index: np.ndarray, origin: np.ndarray) -> None:
        self.hulls = hulls
        self.at = hulls.offsets[index].copy()
        self.present = hulls.count[index] > 0
        # An empty hull has no centre; it never reaches anywhere (see `_walked_area`), any shift will do.
        self.shift_x = np.where(self.present, hulls.centre[index, 0] - origin[:, 0], 0.0)
        self.shift_y = np.where(self.present, hulls.centre[index, 1] - origin[:, 1], 0.0)

        # Added to how far this side reaches in a direction: an empty hull reaches nowhere.
        self.unreachable = np.where(self.present, 0.0, -np.inf)

    def vertex(self, step: int = 0) -> tuple[np.ndarray, np.ndarray]:
        return self.hulls.x[self.at + step] + self.shift_x, self.hulls.y[self.at + step] + self.shift_y


def _pick(weight: np.ndarray, if_one: np.ndarray, if_zero: np.ndarray) -> np.ndarray:
    """``np.where(weight == 1, if_one, if_zero)`` for finite values and weights of 1.0 or 0.0, without a branch per element.

    ``x·1 + y·0`` is x exactly, up to the sign of a zero: a hull's shoelace sum can only be
    touched by that when it is zero, and its area is then ``max(0, ±0) = +0`` either way.
    """
    picked: np.ndarray = if_one * weight
    picked += if_zero * (1.0 - weight)
    return picked


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
    for _ in range(int((a.count[index_a] + b.count[index_b]).max(initial=0))):
        angle_a, angle_b = a.angle[side_a.at], b.angle[side_b.at]
        take_a = angle_a <= angle_b
        active = np.isfinite(np.minimum(angle_a, angle_b))
        of_a = take_a * 1.0
        nx, ny = _pick(of_a, a.nx[side_a.at], b.nx[side_b.at]), _pick(of_a, a.ny[side_a.at], b.ny[side_b.at])
        vx, vy = side_a.vertex()
        wx, wy = side_b.vertex()
        reach_a, reach_b = vx * nx + vy * ny, wx * nx + wy * ny
        reach_a += side_a.unreachable
        reach_b += side_b.unreachable
        # The side this edge belongs to keeps it on the hull if it reaches at least as far.
        wins = take_a & (reach_a >= reach_b)
        wins |= ~take_a & (reach_b >= reach_a)
        from_a = (take_a == wins) * 1.0  # the point at this direction is a's vertex: a's edge wins or b's loses to a
        first_x, first_y = _pick(from_a, vx, wx), _pick(from_a, vy, wy)
        next_ax, next_ay = side_a.vertex(1)
        next_bx, next_by = side_b.vertex(1)
        kept = wins * 1.0
        second_x = _pick(kept, _pick(of_a, next_ax, next_bx), first_x)
        second_y = _pick(kept, _pick(of_a, next_ay, next_by), first_y)
        step = (previous_x * first_y - previous_y * first_x) + (first_x * second_y - first_y * second_x)
        moves = active * 1.0
        step *= moves
        twice += step
        previous_x, previous_y = _pick(moves, second_x, previous_x), _pick(moves, second_y, previous_y)
        side_a.at += active & take_a
        side_b.at += active & ~take_a
    twice += previous_x * start_y - previous_y * start_x
    # Two empty hulls enclose nothing (their frame has no centre: the sum is NaN there).
    return np.where(side_a.present | side_b.present, np.maximum(0.5 * twice, 0.0), 0.0)
