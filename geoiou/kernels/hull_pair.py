"""The GIoU hull kernel for one pair of regions, in plain Python.

`hull.union_hull_area` spends hundreds of microseconds of NumPy calls on a single pair. This
module renders the same algorithm for one pair in plain Python floats, operation for operation:
the hull tables of `hull.ConvexHulls.from_rings` (centre, counter-clockwise order, normals,
start at the smallest normal angle), the fingerprints that order the pair, and then the two
bridges of hulls that are apart, or the walk along both hulls. The result is the batch
kernel's, bit for bit (`tests/kernels/test_hull_pair.py`).
"""

from __future__ import annotations

import math
import struct

import numpy as np

from geoiou.kernels.hull import BRIDGE_ITERATIONS, BUCKETS, CORRECTIONS
from geoiou.kernels.polygon_overlap import TURN
from geoiou.kernels.scalar import maximum, minimum, pseudo_angle

__all__ = ["HullTable", "pair_hull_area"]

_MASK = (1 << 64) - 1
_MIX, _COUNT_MIX = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F


class HullTable:
    """One convex hull as `hull.ConvexHulls` holds it (one row), as Python lists."""

    __slots__ = ("x", "y", "nx", "ny", "angle", "count", "centre", "bounds", "fingerprint", "_chain")

    def __init__(self, coords: np.ndarray) -> None:
        """`coords`: the hull's vertices ``(k, 2)`` as `shapely.get_coordinates` gives them (closed or not)."""
        points = coords.tolist()
        closed = len(points) > 1 and points[0] == points[-1]
        count = len(points) - closed
        points = points[:count]
        self.count = count
        if not count:
            self.bounds = (math.nan,) * 4
            self.centre = (math.nan, math.nan)
            self.x = self.y = self.nx = self.ny = [0.0, 0.0]
            self.angle = [math.inf, math.inf]
            self.fingerprint = 0
            self._chain = None
            return
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        self.bounds = (min(xs), min(ys), max(xs), max(ys))
        cx, cy = self.bounds[0] / 2 + self.bounds[2] / 2, self.bounds[1] / 2 + self.bounds[3] / 2
        self.centre = (cx, cy)
        x, y = [v - cx for v in xs], [v - cy for v in ys]
        following = list(range(1, count)) + [0]
        nx = [y[following[i]] - y[i] for i in range(count)]
        ny = [x[i] - x[following[i]] for i in range(count)]
        twice = 0.0
        for i in range(count):
            twice += x[i] * y[following[i]] - y[i] * x[following[i]]
        rank = list(range(count))
        if twice < 0:  # read backwards: edge i joins vertex i to vertex i - 1, its normal flips
            previous = [count - 1] + list(range(count - 1))
            nx, ny = [-nx[previous[i]] for i in range(count)], [-ny[previous[i]] for i in range(count)]
            rank = [(count - r) % count for r in rank]
        angle = [pseudo_angle(nx[i], ny[i]) if count > 1 else math.inf for i in range(count)]
        smallest = math.inf
        for value in angle:
            smallest = minimum(smallest, value)
        first = max([0] + [rank[i] for i in range(count) if angle[i] == smallest])
        slots = [(r - first) % count for r in rank]
        table = {name: [0.0] * (count + 2) for name in ("x", "y", "nx", "ny")}
        table["angle"] = [math.inf] * (count + 2)
        for i, slot in enumerate(slots):
            table["x"][slot], table["y"][slot] = x[i], y[i]
            table["nx"][slot], table["ny"][slot], table["angle"][slot] = nx[i], ny[i], angle[i]
        for extra in (0, 1):
            table["x"][count + extra], table["y"][count + extra] = table["x"][0], table["y"][0]
        self.x, self.y, self.nx, self.ny, self.angle = (table[name] for name in ("x", "y", "nx", "ny", "angle"))
        self.fingerprint = self._fingerprint()
        self._chain = None

    def _fingerprint(self) -> int:
        hashes = (self.count * _COUNT_MIX) & _MASK
        for rank in range(self.count):
            local = (self.x[rank] + self.centre[0], self.y[rank] + self.centre[1])
            xb, yb = struct.unpack("<QQ", struct.pack("<dd", *local))
            hashes = (hashes + ((xb * _MIX + yb) & _MASK) * (2 * rank + 1)) & _MASK
        return hashes

    @property
    def chain(self) -> list[float]:
        """Running shoelace sums along the hull, by slot (`ConvexHulls.chain`)."""
        if self._chain is None:
            running, sums = 0.0, [0.0]
            for slot in range(self.count + 1):
                # Past the last edge the batch kernel adds zeros: so does this (it can turn -0.0 into 0.0).
                running += self.x[slot] * self.y[slot + 1] - self.y[slot] * self.x[slot + 1] if slot < self.count else 0.0
                sums.append(running)
            self._chain = sums[:self.count + 2]
        return self._chain

    def support(self, angle: float) -> tuple[int, bool]:
        """`ConvexHulls.support`: the bucket's first guess, a few steps along the hull, and whether it was found."""
        bucket = min(int(angle * (BUCKETS / TURN)), BUCKETS - 1)
        start = bucket * (TURN / BUCKETS)
        slot = sum(1 for value in self.angle[:self.count] if value < start)
        for _ in range(CORRECTIONS):
            slot += self.angle[slot] < angle
        return slot, self.angle[slot] >= angle


def pair_hull_area(a: HullTable, b: HullTable) -> float:
    """Area of the convex hull of two hulls' union, as `hull.union_hull_area` computes it for the pair."""
    if b.fingerprint < a.fingerprint:
        a, b = b, a
    if a.count and b.count and _apart(a.bounds, b.bounds):
        area, found = _bridged_area(a, b)
        if found:
            return area
    return _walked_area(a, b)


def _apart(a: tuple, b: tuple) -> bool:
    return a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1]


def _bridged_area(a: HullTable, b: HullTable) -> tuple[float, bool]:
    origin = (a.centre[0] / 2 + b.centre[0] / 2, a.centre[1] / 2 + b.centre[1] / 2)
    shift_a = (a.centre[0] - origin[0], a.centre[1] - origin[1])
    shift_b = (b.centre[0] - origin[0], b.centre[1] - origin[1])
    towards = (shift_b[0] - shift_a[0], shift_b[1] - shift_a[1])
    left = (-towards[1], towards[0])
    upper_a, upper_b, found_upper = _bridge(a, shift_a, b, shift_b, left)
    lower_b, lower_a, found_lower = _bridge(b, shift_b, a, shift_a, (-left[0], -left[1]))
    twice = (_chain(a, shift_a, upper_a, lower_a) + _chain(b, shift_b, lower_b, upper_b)
             + _cross(_vertex(a, shift_a, lower_a), _vertex(b, shift_b, lower_b))
             + _cross(_vertex(b, shift_b, upper_b), _vertex(a, shift_a, upper_a)))
    return maximum(0.5 * twice, 0.0), found_upper and found_lower


def _bridge(a: HullTable, shift_a: tuple, b: HullTable, shift_b: tuple, direction: tuple) -> tuple[int, int, bool]:
    angle = pseudo_angle(*direction)
    slot_a, ok_a = a.support(angle)
    slot_b, ok_b = b.support(angle)
    pending, found = ok_a and ok_b, False
    for _ in range(BRIDGE_ITERATIONS):
        if not pending:
            break
        ax, ay = _vertex(a, shift_a, slot_a)
        bx, by = _vertex(b, shift_b, slot_b)
        angle = pseudo_angle(ay - by, bx - ax)
        next_a, ok_a = a.support(angle)
        next_b, ok_b = b.support(angle)
        settled = next_a == slot_a and next_b == slot_b and ok_a and ok_b
        found = found or settled
        slot_a, slot_b = next_a, next_b
        pending = not settled and ok_a and ok_b
    return slot_a, slot_b, found


def _vertex(hull: HullTable, shift: tuple, slot: int) -> tuple[float, float]:
    return hull.x[slot] + shift[0], hull.y[slot] + shift[1]


def _cross(p: tuple, q: tuple) -> float:
    return p[0] * q[1] - p[1] * q[0]


def _chain(hull: HullTable, shift: tuple, start: int, stop: int) -> float:
    chain = hull.chain
    running = chain[stop] - chain[start]
    running += chain[hull.count] if stop < start else 0.0
    sx, sy = _vertex(hull, (0.0, 0.0), start)
    ex, ey = _vertex(hull, (0.0, 0.0), stop)
    return running + shift[0] * (ey - sy) - shift[1] * (ex - sx)


def _walked_area(a: HullTable, b: HullTable) -> float:
    bounds_a = b.bounds if not a.count else a.bounds
    bounds_b = a.bounds if not b.count else b.bounds
    origin = (minimum(bounds_a[0], bounds_b[0]) / 2 + maximum(bounds_a[2], bounds_b[2]) / 2,
              minimum(bounds_a[1], bounds_b[1]) / 2 + maximum(bounds_a[3], bounds_b[3]) / 2)
    shift_a = (a.centre[0] - origin[0], a.centre[1] - origin[1]) if a.count else (0.0, 0.0)
    shift_b = (b.centre[0] - origin[0], b.centre[1] - origin[1]) if b.count else (0.0, 0.0)
    at_a = at_b = 0
    vx, vy = _vertex(a, shift_a, 0)
    wx, wy = _vertex(b, shift_b, 0)
    a_first = bool(a.count) and (not b.count or vx >= wx)
    start = (vx, vy) if a_first else (wx, wy)
    previous = start
    twice = 0.0
    for _ in range(a.count + b.count):
        angle_a, angle_b = a.angle[at_a], b.angle[at_b]
        take_a = angle_a <= angle_b
        if not math.isfinite(minimum(angle_a, angle_b)):
            twice += 0.0
            continue
        nx = a.nx[at_a] if take_a else b.nx[at_b]
        ny = a.ny[at_a] if take_a else b.ny[at_b]
        vx, vy = _vertex(a, shift_a, at_a)
        wx, wy = _vertex(b, shift_b, at_b)
        reach_a = vx * nx + vy * ny if a.count else -math.inf
        reach_b = wx * nx + wy * ny if b.count else -math.inf
        wins = reach_a >= reach_b if take_a else reach_b >= reach_a
        first = (vx, vy) if take_a == wins else (wx, wy)
        following = _vertex(a, shift_a, at_a + 1) if take_a else _vertex(b, shift_b, at_b + 1)
        second = following if wins else first
        twice += _cross(previous, first) + _cross(first, second)
        previous = second
        if take_a:
            at_a += 1
        else:
            at_b += 1
    twice += _cross(previous, start)
    return maximum(0.5 * twice, 0.0) if (a.count or b.count) else 0.0
