"""The compiled intersection volume of two oriented 3-D boxes, one pair per call.

A box is 15 numbers: its centre, its sizes along its own axes and the rotation matrix whose columns
are those axes, row by row (`geoiou.regions.OrientedBox3D`). A pair is measured in the frame of one
of its boxes, the *frame box* `f` (the one of smaller volume, the canonical first of equal ones),
where `f` is axis-aligned and centred, and the other box `o` is known by its centre ``t`` and the
directions of its axes (``rel``, f's axes dotted with o's). Only differences of centres enter, so
boxes far from the origin keep the precision of their sizes; an axis of `o` that equals an axis of
`f` up to sign, bit for bit, is taken as exactly that axis (yaw boxes share their vertical axis).

- A box inside the other: exactly the smaller volume (so a box has IoU 1 with itself).
- All axes shared (a signed permutation): the product of three overlaps of intervals, exact.
- One axis shared: the overlap along it times the area of two rectangles in the plane of the other
  two, by the rotated-box kernel's own function (`rotated_loops.local_area`).
- Otherwise the divergence theorem: scaled so that `f` is the cube ``[-1, 1]³``, the volume of
  ``o ∩ cube`` is the flux of ``F = (0, 0, clamp(z) · 1[|x| <= 1] · 1[|y| <= 1])`` (whose divergence
  is the cube's indicator) through the faces of `o`, that is ``Σ_faces ∫∫ clamp(z)`` over each face's
  projection clipped to the square, signed by the face's orientation. Each face is clipped to the
  square (four half-planes) and split at ``z = ±1``, and the integrals of a linear function over the
  pieces are exact sums over triangles. Nothing in it is an inside/outside decision whose error
  could exceed rounding: coplanar, touching and nearly parallel faces need no special case.
"""

from __future__ import annotations

import math

import numpy as np

from geoiou._compiled import jit
from geoiou.kernels.rotated_loops import local_area

__all__ = [
    "Box15",
    "any_nan",
    "bounds_apart",
    "comes_before",
    "contained",
    "oriented_volume",
    "pair_in_frame",
    "relative_frame",
]

#: A box as the loops hand it over: ``cx, cy, cz, dx, dy, dz, r00, r01, r02, r10, r11, r12, r20, r21, r22``.
Box15 = tuple[float, float, float, float, float, float, float, float, float, float, float, float, float, float, float]
#: Vertices a clipped face can have: 4, then one more per clipping plane (4 sides, 2 levels).
_MAX_VERTICES = 16


@jit
def _reach(box: Box15, axis: int) -> float:
    """Half the extent of `box` along the data's `axis`: ``Σ_j |R[axis, j]| · d_j / 2`` (as `OrientedBox3D.bounds`)."""
    row = 6 + 3 * axis
    return (abs(box[row]) * (0.5 * box[3]) + abs(box[row + 1]) * (0.5 * box[4])) + abs(box[row + 2]) * (0.5 * box[5])


@jit
def _extent(centre: float, reach: float, has_volume: bool) -> tuple[float, float]:
    """``centre ∓ reach``, spanning the neighbouring floats where it collapses (as `OrientedBox3D.bounds`)."""
    low, high = centre - reach, centre + reach
    if low == high and has_volume:
        return np.nextafter(centre, -np.inf), np.nextafter(centre, np.inf)
    return low, high


@jit
def bounds_apart(a: Box15, b: Box15) -> bool:
    """Whether the bounds of the two boxes overlap with no positive volume (the test of the candidate search)."""
    a_volume, b_volume = a[3] * a[4] * a[5] > 0.0, b[3] * b[4] * b[5] > 0.0
    for axis in range(3):
        a_low, a_high = _extent(a[axis], _reach(a, axis), a_volume)
        b_low, b_high = _extent(b[axis], _reach(b, axis), b_volume)
        if max(a_low, b_low) >= min(a_high, b_high):
            return True
    return False


@jit
def comes_before(a: Box15, b: Box15) -> bool:
    """Whether `a` comes before `b` in the order of their 15 numbers: the canonical order of a pair."""
    for k in range(15):
        if a[k] != b[k]:
            return a[k] < b[k]
    return False


@jit
def _axis_sign(f: Box15, k: int, o: Box15, j: int) -> float:
    """1 or -1 when axis j of `o` is axis k of `f` or its opposite, bit for bit; else 0."""
    same = opposite = True
    for i in range(3):
        fi, oi = f[6 + 3 * i + k], o[6 + 3 * i + j]
        same = same and fi == oi
        opposite = opposite and fi == -oi
    return 1.0 if same else -1.0 if opposite else 0.0


@jit
def relative_frame(f: Box15, o: Box15, rel: np.ndarray) -> tuple[float, float, float]:
    """The centre of `o` in the frame of `f` (returned) and ``rel[k, j]``, axis k of `f` dotted with axis j of `o`.

    An axis of `o` equal to one of `f` up to sign (bit for bit) gives exactly ±1 there and 0 in the
    rest of its row and column, so boxes that share an axis are exactly aligned along it.
    """
    dx, dy, dz = o[0] - f[0], o[1] - f[1], o[2] - f[2]  # the difference first: far pairs keep their digits
    for k in range(3):
        for j in range(3):
            rel[k, j] = (f[6 + k] * o[6 + j] + f[9 + k] * o[9 + j]) + f[12 + k] * o[12 + j]
    for j in range(3):
        for k in range(3):
            sign = _axis_sign(f, k, o, j)
            if sign != 0.0:
                for other in range(3):
                    rel[k, other] = 0.0
                    rel[other, j] = 0.0
                rel[k, j] = sign
    tx = (f[6] * dx + f[9] * dy) + f[12] * dz
    ty = (f[7] * dx + f[10] * dy) + f[13] * dz
    tz = (f[8] * dx + f[11] * dy) + f[14] * dz
    return tx, ty, tz


@jit
def any_nan(a: Box15, b: Box15) -> bool:
    """Whether a number of either box is NaN."""
    total = 0.0
    for k in range(15):
        total += a[k] + b[k]
    return math.isnan(total)


@jit
def pair_in_frame(f: Box15, o: Box15) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(t, rel, half_f, half_o)``: `o`'s centre and axes in the frame of `f` (`relative_frame`), the half sizes."""
    rel = np.empty((3, 3))
    t = np.empty(3)
    t[0], t[1], t[2] = relative_frame(f, o, rel)
    half_f = np.empty(3)
    half_o = np.empty(3)
    for k in range(3):
        half_f[k], half_o[k] = 0.5 * f[3 + k], 0.5 * o[3 + k]
    return t, rel, half_f, half_o


@jit
def contained(t: np.ndarray, rel: np.ndarray, half_f: np.ndarray, half_o: np.ndarray) -> bool:
    """Whether one box lies inside the other (`o` at `t`, axes `rel`, in the frame of `f`).

    Rounding can misjudge only a box that sticks out by a rounding-sized sliver.
    """
    inside_f = inside_o = True
    for k in range(3):
        reach = abs(t[k])
        for j in range(3):
            reach += abs(rel[k, j]) * half_o[j]
        inside_f = inside_f and reach <= half_f[k]
    for j in range(3):
        along = 0.0
        reach = 0.0
        for k in range(3):
            along += rel[k, j] * t[k]
            reach += abs(rel[k, j]) * half_f[k]
        inside_o = inside_o and abs(along) + reach <= half_o[j]
    return inside_f or inside_o


@jit
def _overlap_length(centre: float, reach: float, half: float) -> float:
    """Length of ``[centre - reach, centre + reach] ∩ [-half, half]`` (0 if apart)."""
    return max(min(centre + reach, half) - max(centre - reach, -half), 0.0)


@jit
def _shared_axis(rel: np.ndarray) -> tuple[int, int, int]:
    """``(k, j, count)``: an axis k of `f` that is axis j of `o` exactly (its row and column ±1 and 0s), and how
    many axes are shared so (3: aligned boxes); ``(-1, -1, 0)`` when none is."""
    found_k, found_j, count = -1, -1, 0
    for k in range(3):
        for j in range(3):
            if abs(rel[k, j]) == 1.0:
                alone = True
                for other in range(3):
                    if other != j and rel[k, other] != 0.0:
                        alone = False
                    if other != k and rel[other, j] != 0.0:
                        alone = False
                if alone:
                    count += 1
                    if found_k < 0:
                        found_k, found_j = k, j
    return found_k, found_j, count


@jit
def _prism_volume(
    t: np.ndarray, rel: np.ndarray, half_f: np.ndarray, half_o: np.ndarray, k: int, j: int, smaller: float
) -> float:
    """The volume of two boxes sharing axis k of `f` (axis j of `o`): an overlap along it times a rectangles' area."""
    length = _overlap_length(t[k], half_o[j], half_f[k])
    if not length > 0.0:
        return 0.0
    k1, k2 = (k + 1) % 3, (k + 2) % 3
    if k1 > k2:
        k1, k2 = k2, k1
    j1, j2 = (j + 1) % 3, (j + 2) % 3
    if j1 > j2:
        j1, j2 = j2, j1
    # The direction of o's axis j1 in the plane of f's axes k1, k2; o's axis j2 is perpendicular to it
    # (its sign does not matter: a rectangle is symmetric). Exact at quarter turns, as the 2-D kernel makes it.
    cos, sin = rel[k1, j1], rel[k2, j1]
    if sin == 0.0:
        cos = math.copysign(1.0, cos)
    elif cos == 0.0:
        sin = math.copysign(1.0, sin)
    plane_smaller = min(4.0 * (half_f[k1] * half_f[k2]), 4.0 * (half_o[j1] * half_o[j2]))
    area = local_area(t[k1], t[k2], cos, sin, half_f[k1], half_f[k2], half_o[j1], half_o[j2], plane_smaller)
    if math.isnan(area):
        # `f` so much smaller than `o` in this plane that its scaled frame overflows: `f` in the frame of `o`.
        x, y = -(cos * t[k1] + sin * t[k2]), -(cos * t[k2] - sin * t[k1])
        area = local_area(x, y, cos, -sin, half_o[j1], half_o[j2], half_f[k1], half_f[k2], plane_smaller)
    return area * length


@jit
def _clip(src: np.ndarray, n: int, dst: np.ndarray, axis: int, value: float, above: bool) -> int:
    """Clip the polygon ``src[:n]`` to ``p[axis] >= value`` (`above`) or ``<= value``, into `dst`; return its size.

    The crossing points lie exactly on the plane; a vertex on the plane is kept and not repeated.
    """
    m = 0
    for v in range(n):
        w = v + 1 if v + 1 < n else 0
        dv, dw = src[v, axis] - value, src[w, axis] - value
        if not above:
            dv, dw = -dv, -dw
        if dv >= 0.0:
            dst[m, 0], dst[m, 1], dst[m, 2] = src[v, 0], src[v, 1], src[v, 2]
            m += 1
        if (dv > 0.0 and dw < 0.0) or (dv < 0.0 and dw > 0.0):
            s = dv / (dv - dw)
            for c in range(3):
                dst[m, c] = src[v, c] + s * (src[w, c] - src[v, c])
            dst[m, axis] = value
            m += 1
    return m


@jit
def _linear_integral(poly: np.ndarray, n: int, level: float) -> float:
    """``∫∫ (z - level)`` over the polygon ``poly[:n]`` projected on (x, y), signed by its orientation (a fan)."""
    total = 0.0
    x0, y0, z0 = poly[0, 0], poly[0, 1], poly[0, 2] - level
    for v in range(1, n - 1):
        ux, uy = poly[v, 0] - x0, poly[v, 1] - y0
        wx, wy = poly[v + 1, 0] - x0, poly[v + 1, 1] - y0
        twice = ux * wy - uy * wx
        total += twice * ((z0 + (poly[v, 2] - level)) + (poly[v + 1, 2] - level))
    return total / 6.0


@jit
def _signed_area(poly: np.ndarray, n: int) -> float:
    """The signed area of the polygon ``poly[:n]`` projected on (x, y)."""
    total = 0.0
    x0, y0 = poly[0, 0], poly[0, 1]
    for v in range(1, n - 1):
        total += (poly[v, 0] - x0) * (poly[v + 1, 1] - y0) - (poly[v, 1] - y0) * (poly[v + 1, 0] - x0)
    return total / 2.0


@jit
def _face_flux(face: np.ndarray, work: np.ndarray, spare: np.ndarray) -> float:
    """``∫∫ clamp(z, -1, 1)`` over the face's projection clipped to the square ``[-1, 1]²``, signed by its orientation.

    ``clamp(z) = -1 + (z + 1)⁺ - (z - 1)⁺``: the clipped face's signed area, and two integrals of a
    linear function over its parts above ``z = -1`` and above ``z = 1``.
    """
    n = _clip(face, 4, work, 0, -1.0, True)
    n = _clip(work, n, spare, 0, 1.0, False)
    n = _clip(spare, n, work, 1, -1.0, True)
    n = _clip(work, n, spare, 1, 1.0, False)
    if n < 3:
        return 0.0
    total = -_signed_area(spare, n)
    m = _clip(spare, n, work, 2, -1.0, True)
    if m >= 3:
        total += _linear_integral(work, m, -1.0)
    m = _clip(spare, n, work, 2, 1.0, True)
    if m >= 3:
        total -= _linear_integral(work, m, 1.0)
    return total


@jit
def _flux_volume(t: np.ndarray, rel: np.ndarray, half_f: np.ndarray, half_o: np.ndarray) -> float:
    """The volume of `o` inside `f` by the divergence theorem, in the frame scaled to make `f` the cube ``[-1, 1]³``."""
    face = np.empty((4, 3))
    work = np.empty((_MAX_VERTICES, 3))
    spare = np.empty((_MAX_VERTICES, 3))
    axes = np.empty((3, 3))  # axes[j] = o's half axis j, scaled
    centre = np.empty(3)
    for k in range(3):
        centre[k] = t[k] / half_f[k]
        for j in range(3):
            axes[j, k] = rel[k, j] * half_o[j] / half_f[k]
    # The faces below are outward and counter-clockwise for a right-handed (u, v, w); the sign fixes the others.
    det = (
        axes[0, 0] * (axes[1, 1] * axes[2, 2] - axes[1, 2] * axes[2, 1])
        - axes[0, 1] * (axes[1, 0] * axes[2, 2] - axes[1, 2] * axes[2, 0])
        + axes[0, 2] * (axes[1, 0] * axes[2, 1] - axes[1, 1] * axes[2, 0])
    )
    total = 0.0
    for j in range(3):
        p, q = (j + 1) % 3, (j + 2) % 3
        for side in (1.0, -1.0):
            # Corners centre + side·w ∓ u ∓ v around the face (u = axis p, v = axis q), reversed on the far side.
            for corner in range(4):
                su = -1.0 if corner == 0 or corner == 3 else 1.0
                sv = -1.0 if corner < 2 else 1.0
                row = corner if side > 0.0 else 3 - corner
                for c in range(3):
                    face[row, c] = centre[c] + side * axes[j, c] + su * axes[p, c] + sv * axes[q, c]
            total += _face_flux(face, work, spare)
    if det < 0.0:
        total = -total
    return float(total * ((half_f[0] * half_f[1]) * half_f[2]))


@jit
def oriented_volume(a: Box15, b: Box15) -> float:
    """The volume of the intersection of two oriented boxes (15 numbers each, `Box15`).

    In ``[0, min(volume_a, volume_b)]``, exactly the smaller volume when a box is inside the other,
    exactly 0 when the bounds do not overlap with positive volume; the same bits for ``(b, a)``; NaN
    when a number is NaN.
    """
    if any_nan(a, b):
        return np.nan
    volume_a, volume_b = (a[3] * a[4]) * a[5], (b[3] * b[4]) * b[5]
    if not (volume_a > 0.0 and volume_b > 0.0) or bounds_apart(a, b):
        return 0.0
    # The frame box: the smaller one (its cube bounds the error), the canonical first of equal volumes.
    if volume_b < volume_a or (volume_b == volume_a and comes_before(b, a)):
        a, b = b, a
    smaller = min(volume_a, volume_b)
    t, rel, half_f, half_o = pair_in_frame(a, b)
    if contained(t, rel, half_f, half_o):
        return smaller
    k, j, shared = _shared_axis(rel)
    if shared == 3:
        volume = 1.0
        for k in range(3):
            for j in range(3):
                if rel[k, j] != 0.0:
                    volume *= _overlap_length(t[k], half_o[j], half_f[k])
    elif shared >= 1:
        volume = _prism_volume(t, rel, half_f, half_o, k, j, smaller)
    else:
        volume = _flux_volume(t, rel, half_f, half_o)
    if not volume > 0.0:
        return 0.0
    return float(min(volume, smaller)) + 0.0
