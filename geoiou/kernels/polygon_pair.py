"""The polygon kernel for one pair of small simple polygons, in plain Python.

For a single pair, NumPy's per-call cost dwarfs the arithmetic: the batch kernel
(`polygon_overlap.shared_area`) spends hundreds of microseconds on a pair of quadrilaterals
that takes a few dozen floating-point operations per edge pair. This module renders the same
algorithm in plain Python floats, operation for operation, in the same order: the local frame,
the oriented edge triangles and their pseudo-angles, the cells in row order, the closed form of
each term, the sums, the rounding bound and the snapping, and the canonical order of the pair
(by the same 64-bit fingerprint). Python floats and NumPy's float64 ufuncs are the same IEEE
operations, so the result is the batch kernel's, bit for bit; `tests/kernels/test_polygon_pair.py`
holds them equal with Hypothesis. It serves polygons of one ring with at most
`MAX_VERTICES` vertices; anything else goes to the batch kernel.
"""

from __future__ import annotations

import math
import struct

import numpy as np

from geoiou.kernels.polygon_overlap import ROUNDING, TURN
from geoiou.kernels.scalar import NAN, clip, divide, maximum, minimum, pseudo_angle
from geoiou.regions.ragged import RaggedPolygons, ring_signed_area_of

__all__ = ["MAX_VERTICES", "RingPolygon", "pair_shared_area"]

#: Largest ring served here (edge pairs grow as the product of the two counts).
MAX_VERTICES = 24

_MASK = (1 << 64) - 1
_MIX, _COUNT_MIX = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F


class RingPolygon:
    """One simple polygon of a store (a single ring): its closed vertex list and the store's derived values.

    The area, bounds and fingerprint are computed as `RaggedPolygons` computes them (same
    operations, same order), so they are the same bits.
    """

    __slots__ = ("xs", "ys", "area", "bounds", "fingerprint", "weight")

    def __init__(self, store: RaggedPolygons, geometry: int) -> None:
        start, stop = int(store.geometry_vertex_offsets[geometry]), int(store.geometry_vertex_offsets[geometry + 1])
        coords = store.coords[start:stop]
        self.xs, self.ys = coords[:, 0].tolist(), coords[:, 1].tolist()
        signed = ring_signed_area_of(self.xs, self.ys)
        self.area = 0.0 + abs(signed)  # the store's per-geometry sum starts at 0.0
        # The ring is an exterior: its edges add area when it turns counter-clockwise.
        self.weight = 1.0 if signed > 0 else -1.0
        self.bounds = (min(self.xs), min(self.ys), max(self.xs), max(self.ys))
        self.fingerprint = _fingerprint(coords)
        if store.size == 1 and "area" not in store.__dict__:
            # The store's own computation gives the same bits (tested): spare a single polygon that NumPy work.
            store.__dict__["area"] = np.array([self.area])

    @staticmethod
    def serves(store: RaggedPolygons, geometry: int) -> bool:
        """Whether the polygon is one ring small enough for this module."""
        parts = store.geometry_offsets[geometry + 1] - store.geometry_offsets[geometry]
        if parts != 1:
            return False
        part = store.geometry_offsets[geometry]
        rings = store.part_offsets[part + 1] - store.part_offsets[part]
        ring = store.part_offsets[part]
        return bool(rings == 1 and store.ring_offsets[ring + 1] - store.ring_offsets[ring] <= MAX_VERTICES + 1)


def _fingerprint(coords: np.ndarray) -> int:
    hashes = (len(coords) * _COUNT_MIX) & _MASK
    for rank, (x, y) in enumerate(coords.tolist()):
        xb, yb = struct.unpack("<QQ", struct.pack("<dd", x, y))
        hashes = (hashes + ((xb * _MIX + yb) & _MASK) * (2 * rank + 1)) & _MASK
    return hashes


def pair_shared_area(a: RingPolygon, b: RingPolygon) -> float:
    """The shared area of two polygons, as `polygon.canonical_shared_area` computes it for the pair."""
    if not _bounds_overlap(a.bounds, b.bounds):
        return 0.0
    if b.fingerprint < a.fingerprint:
        a, b = b, a
    return _shared_area(a, b)


def _bounds_overlap(a: tuple, b: tuple) -> bool:
    return max(a[0], b[0]) < min(a[2], b[2]) and max(a[1], b[1]) < min(a[3], b[3])


def _shared_area(a: RingPolygon, b: RingPolygon) -> float:
    origin_x, origin_y, scale = _frame(a.bounds, b.bounds)
    inverse = 1.0 / scale
    side_a = _fan_edges(a, origin_x, origin_y, inverse)
    side_b = _fan_edges(b, origin_x, origin_y, inverse)
    total, magnitude = 0.0, 0.0
    for e in side_a:
        angle_e, width_e = e[6], e[7]
        for f in side_b:
            turn = f[6] - angle_e
            turn = turn + (TURN if turn < 0 else 0.0)
            f_starts_in_e = turn < width_e
            if f_starts_in_e or turn > f[8]:
                term = _term(e, f, turn, f_starts_in_e)
                total += term
                magnitude += abs(term)
    area = total * scale * scale
    rounding = magnitude * (ROUNDING * scale * scale)
    upper = minimum(a.area, b.area)
    area = upper if area >= upper - rounding else area
    return 0.0 if area <= rounding else area


def _frame(bounds_a: tuple, bounds_b: tuple) -> tuple[float, float, float]:
    low_x, low_y = maximum(bounds_a[0], bounds_b[0]), maximum(bounds_a[1], bounds_b[1])
    high_x, high_y = minimum(bounds_a[2], bounds_b[2]), minimum(bounds_a[3], bounds_b[3])
    origin_x, origin_y = low_x / 2 + high_x / 2, low_y / 2 + high_y / 2
    reach = maximum(maximum(abs(minimum(bounds_a[0], bounds_b[0]) - origin_x),
                              abs(minimum(bounds_a[1], bounds_b[1]) - origin_y)),
                     maximum(abs(maximum(bounds_a[2], bounds_b[2]) - origin_x),
                              abs(maximum(bounds_a[3], bounds_b[3]) - origin_y)))
    _, exponent = math.frexp(reach if reach > 0 else 1.0)
    return origin_x, origin_y, math.ldexp(1.0, exponent)


def _fan_edges(polygon: RingPolygon, origin_x: float, origin_y: float, inverse: float) -> list[tuple]:
    """Per edge: ux, uy, vx, vy, twice, sign, angle, width, rest (as `polygon_overlap._FanEdges`)."""
    xs, ys, weight = polygon.xs, polygon.ys, polygon.weight
    edges = []
    for k in range(len(xs) - 1):
        px, py = (xs[k] - origin_x) * inverse, (ys[k] - origin_y) * inverse
        qx, qy = (xs[k + 1] - origin_x) * inverse, (ys[k + 1] - origin_y) * inverse
        cross = px * qy - py * qx
        if cross < 0:
            ux, uy, vx, vy, sign = qx, qy, px, py, -weight
        else:
            ux, uy, vx, vy, sign = px, py, qx, qy, weight
        angle = pseudo_angle(ux, uy) if cross != 0 else NAN
        width = pseudo_angle(vx, vy) - angle
        width = width + (TURN if width < 0 else 0.0)
        edges.append((ux, uy, vx, vy, abs(cross), sign, angle, width, TURN - width))
    return edges


def _term(e: tuple, f: tuple, turn: float, f_starts_in_e: bool) -> float:
    """``σ_e σ_f |T_e ∩ T_f|``, as `polygon_overlap._triangle_overlaps` computes it."""
    uex, uey, vex, vey, twice_e, sign_e, _, width_e, _ = e
    ufx, ufy, vfx, vfy, twice_f, sign_f, _, width_f, _ = f
    end_turn = turn + width_f
    end_turn = end_turn - (TURN if end_turn >= TURN else 0.0)
    f_ends_in_e = end_turn <= width_e
    sx, sy = (ufx, ufy) if f_starts_in_e else (uex, uey)
    tx, ty = (vfx, vfy) if f_ends_in_e else (vex, vey)
    wedge = sx * ty - sy * tx
    dex, dey = vex - uex, vey - uey
    dfx, dfy = vfx - ufx, vfy - ufy
    se = divide(twice_e, sx * dey - sy * dex)
    sf = divide(twice_f, sx * dfy - sy * dfx)
    te = divide(twice_e, tx * dey - ty * dex)
    tf = divide(twice_f, tx * dfy - ty * dfx)
    near_s, near_t = minimum(se, sf), minimum(te, tf)
    area = 0.5 * near_s * near_t * wedge
    if wedge > 0 and ((se <= sf) != (te <= tf)):
        area = _area_past_crossing(sx, sy, tx, ty, se, sf, te, tf, near_s, near_t)
    if not (wedge > 0 and math.isfinite(area)):
        area = 0.0
    cap = 0.5 * minimum(twice_e, twice_f)
    return clip(area, 0.0, cap) * (sign_e * sign_f)


def _area_past_crossing(sx, sy, tx, ty, se, sf, te, tf, near_s, near_t) -> float:
    ax, ay = se * sx, se * sy
    aex, aey = te * tx - ax, te * ty - ay
    bx, by = sf * sx, sf * sy
    bfx, bfy = tf * tx - bx, tf * ty - by
    tau = clip(divide((bx - ax) * bfy - (by - ay) * bfx, aex * bfy - aey * bfx), 0.0, 1.0)
    tau = tau if math.isfinite(tau) else 0.0
    xx, xy = ax + tau * aex, ay + tau * aey
    nsx, nsy = near_s * sx, near_s * sy
    ntx, nty = near_t * tx, near_t * ty
    return 0.5 * ((nsx * xy - nsy * xx) + (xx * nty - xy * ntx))
