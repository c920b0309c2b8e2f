"""The compiled loops of the rotated-box kernels (`geoiou.kernels.rotated`): one function per pair.

A box's corners are ``centre + R(angle) @ (±w/2, ±h/2)`` (`geoiou.regions.rotated_box`). Each
pair is measured in the frame of its first box `a` (centred on it, turned by minus its angle),
where `a` is an axis-aligned rectangle:

- the intersection clamps the second box into that rectangle, the frame scaled to make it the
  square ``[-1, 1]²`` (`_square_clipped_area`): a fixed amount of branch-free work per pair, no
  clipped polygons to grow. Parallel boxes (relative angle a multiple of 90 degrees) take the
  exact closed form of two rectangles, and a box inside the other its exact area;
- the hull (GIoU's enclosure) walks the eight edge normals of the two boxes in angular order and
  keeps, for each, the box that reaches further (`_twice_hull_area`).

Only differences of centres and of angles enter the frame, so boxes far from the origin keep the
precision of their sizes, and boxes whose angles differ by a multiple of 90 degrees are exactly
aligned in it. The first box of a pair is the one that comes first in ``(cx, cy, w, h, angle)``,
so ``(a, b)`` and ``(b, a)`` give the same bits. An intersection whose boxes' bounds (those of
`RotatedBox.bounds`) do not overlap with positive area is 0 without the clamping.
"""

from __future__ import annotations

import math

import numpy as np

from geoiou._compiled import PARALLEL_WORK_NS, in_parallel, jit, prange
from geoiou.kernels.formulas import GIOU_OF_HULL, INTERSECTION, MEASURE, Formula, Pairs
from geoiou.kernels.numba_formulas import PRUNED_COST_NS, Job, run_rows, value

__all__ = ["hull_area", "hull_pairs", "intersection_area", "intersection_pairs", "local_area", "unit_vector"]

#: A slope standing in for the infinite one of an edge parallel to a side of the square.
_HUGE = 1e300
#: Pairs per box from which each box's cos and sin are computed once, into a table, rather than per
#: pair (a table costs about a pair's worth of work per box; reading it saves a third of a pair's).
TABLE_PAIRS_PER_BOX = 4
#: Pairs below which no table is computed, however few boxes there are: a small call (the sets of
#: one image) is mostly pruned pairs, and each compiled call it makes costs tens of µs when the CPU's
#: caches are cold (between one image and the next), more than the cos and sin it would save.
TABLE_MIN_PAIRS = 1024
#: Nanoseconds on one thread for a pair (of boxes whose bounds overlap) and for a box's unit vector,
#: for `in_parallel`.
PAIR_COST_NS = 40.0
UNIT_VECTOR_COST_NS = 30.0
#: Boxes from which a table is computed on every core (below it, on the calling thread).
TABLE_PARALLEL_MIN = int(PARALLEL_WORK_NS / UNIT_VECTOR_COST_NS)


@jit
def unit_vector(angle: float) -> tuple[float, float]:
    """``cos, sin`` of `angle` (degrees), exact at multiples of 90 degrees.

    The operations of `geoiou.regions.rotated_box.unit_vectors`, so the kernels' frames and bounds
    are those of the regions' corners: the quarter turns are applied exactly and only the residual
    in [-45, 45] goes through cos and sin (``angle - 90 * turns`` is exact by Sterbenz's lemma).
    """
    turns = np.rint(angle / 90.0)
    residual = (angle - 90.0 * turns) * (np.pi / 180.0)
    quarter = turns - 4.0 * np.floor(0.25 * turns)  # turns mod 4
    quarter_cos = max(1.0 - quarter, quarter - 3.0)
    quarter_sin = min(quarter, 2.0 - quarter)
    cos, sin = math.cos(residual), math.sin(residual)
    # R(90 * quarter) R(residual): one product of each sum is a signed zero, so the sums are exact.
    return quarter_cos * cos - quarter_sin * sin, quarter_sin * cos + quarter_cos * sin


@jit
def _extent(centre: float, reach: float, has_area: bool) -> tuple[float, float]:
    """``centre ∓ reach``: the bounds of `RotatedBox.bounds` along one axis (`rotated_box.corner_bounds`).

    A box with area whose reach is below half a unit in the last place of its centre would have
    bounds of zero extent, and a pair of such bounds no overlap: they span the neighbouring floats.
    """
    low, high = centre - reach, centre + reach
    if low == high and has_area:
        return np.nextafter(centre, -np.inf), np.nextafter(centre, np.inf)
    return low, high


@jit
def _bounds_apart(
    ax: float,
    ay: float,
    aw: float,
    ah: float,
    a_cos: float,
    a_sin: float,
    bx: float,
    by: float,
    bw: float,
    bh: float,
    b_cos: float,
    b_sin: float,
) -> bool:
    """Whether the bounds of the two boxes overlap with no positive area (the test of `pairs.bounds_overlap`)."""
    a_hw, a_hh, b_hw, b_hh = 0.5 * aw, 0.5 * ah, 0.5 * bw, 0.5 * bh
    a_area, b_area = aw > 0.0 and ah > 0.0, bw > 0.0 and bh > 0.0
    # The extreme corner offsets are ±fl(|cos half_w| + |sin half_h|) (and alike along y).
    a_low, a_high = _extent(ax, abs(a_cos * a_hw) + abs(a_sin * a_hh), a_area)
    b_low, b_high = _extent(bx, abs(b_cos * b_hw) + abs(b_sin * b_hh), b_area)
    if max(a_low, b_low) >= min(a_high, b_high):
        return True
    a_low, a_high = _extent(ay, abs(a_sin * a_hw) + abs(a_cos * a_hh), a_area)
    b_low, b_high = _extent(by, abs(b_sin * b_hw) + abs(b_cos * b_hh), b_area)
    return max(a_low, b_low) >= min(a_high, b_high)


@jit
def _comes_first(
    ax: float,
    ay: float,
    aw: float,
    ah: float,
    a_angle: float,
    bx: float,
    by: float,
    bw: float,
    bh: float,
    b_angle: float,
) -> bool:
    """Whether box `b` comes before box `a` in ``(cx, cy, w, h, angle)``: the pair's canonical order."""
    if bx != ax:
        return bx < ax
    if by != ay:
        return by < ay
    if bw != aw:
        return bw < aw
    if bh != ah:
        return bh < ah
    return b_angle < a_angle


@jit
def _turn_back(x: float, y: float, cos: float, sin: float) -> tuple[float, float]:
    """``R(-angle) (x, y)`` for the unit vector ``(cos, sin)`` of the angle."""
    return cos * x + sin * y, cos * y - sin * x


@jit
def _relative_direction(a_cos: float, a_sin: float, b_cos: float, b_sin: float) -> tuple[float, float]:
    """The direction of `b` in the frame of `a`, exact when the relative angle is a multiple of 90 degrees.

    Equal angles give ``sin`` exactly 0 and angles 90 degrees apart ``cos`` exactly 0 (the same
    products cancel); the other one is ±1 up to rounding, made exact so that such pairs are exactly
    aligned in the frame and shared edges and corners give exactly 0.
    """
    cos, sin = _turn_back(b_cos, b_sin, a_cos, a_sin)
    if sin == 0.0:
        cos = math.copysign(1.0, cos)
    elif cos == 0.0:
        sin = math.copysign(1.0, sin)
    return cos, sin


@jit
def _fits(
    x: float, y: float, half_w: float, half_h: float, abs_cos: float, abs_sin: float, limit_w: float, limit_h: float
) -> bool:
    """Whether a box (centre, half sizes, ``|cos|, |sin|`` of its direction) lies in ``[±limit_w] × [±limit_h]``.

    The furthest corner from the centre along each axis reaches ``|offset| + half_w |along| +
    half_h |across|``. Rounding can only misjudge a box that sticks out by a rounding-sized sliver,
    whose area is negligible.
    """
    return (
        abs(x) + half_w * abs_cos + half_h * abs_sin <= limit_w
        and abs(y) + half_w * abs_sin + half_h * abs_cos <= limit_h
    )


@jit
def _contained(x: float, y: float, cos: float, sin: float, a_hw: float, a_hh: float, b_hw: float, b_hh: float) -> bool:
    """Whether one box lies inside the other, `b` at ``(x, y)`` turned by ``(cos, sin)`` in the frame of `a`."""
    abs_cos, abs_sin = abs(cos), abs(sin)
    if _fits(x, y, b_hw, b_hh, abs_cos, abs_sin, a_hw, a_hh):
        return True
    a_x, a_y = _turn_back(x, y, cos, sin)  # the centre of `a` in the frame of `b`
    return _fits(a_x, a_y, a_hw, a_hh, abs_cos, abs_sin, b_hw, b_hh)


@jit
def _overlap_length(centre: float, reach: float, half: float) -> float:
    """Length of ``[centre - reach, centre + reach] ∩ [-half, half]`` (0 if apart)."""
    return max(min(centre + reach, half) - max(centre - reach, -half), 0.0)


@jit
def _slope(edge: float) -> float:
    """``1 / edge``, with a huge finite slope standing in for the infinite one of an edge of length 0 along the axis.

    So ``0 * slope`` stays 0 rather than NaN; every use clamps its parameters into [0, 1]. The
    slope of ``-edge`` is exactly minus that of `edge`.
    """
    return min(max(1.0 / edge, -_HUGE), _HUGE)


@jit
def _crossings(coordinate: float, slope: float) -> tuple[float, float]:
    """The parameters t where ``coordinate + t * edge`` is -1 and where it is 1, `slope` being `_slope` of the edge."""
    at_low = (-1.0 - coordinate) * slope
    return at_low, 2.0 * slope + at_low


@jit
def _clamped(value: float) -> float:
    return min(max(value, -1.0), 1.0)


@jit
def _edge_integral(x: float, y: float, edge_x: float, edge_y: float, slope_x: float, slope_y: float) -> float:
    """``∫ clamp(y) dx`` along one edge, over its part in the strip ``-1 <= x <= 1``, y clamped into [-1, 1].

    Within the strip ``[enter, leave]`` the clamped y is constant before `first` and after `second`
    and linear in between: three pieces, each integrated exactly.
    """
    at_left, at_right = _crossings(x, slope_x)
    at_bottom, at_top = _crossings(y, slope_y)
    enter = min(max(min(at_left, at_right), 0.0), 1.0)
    leave = max(min(max(max(at_left, at_right), 0.0), 1.0), enter)
    first = min(max(min(at_bottom, at_top), enter), leave)
    second = min(max(max(at_bottom, at_top), enter), leave)
    integral = (first - enter) * _clamped(enter * edge_y + y)
    integral += (_clamped(first * edge_y + y) + _clamped(second * edge_y + y)) * (second - first) * 0.5
    integral += (leave - second) * _clamped(leave * edge_y + y)
    return integral * edge_x


@jit
def _square_clipped_area(x: float, y: float, ux: float, uy: float, vx: float, vy: float) -> float:
    """The area of the rectangle centred at ``(x, y)`` with half side vectors `u`, `v` inside ``[-1, 1]²``.

    For the square and a counter-clockwise polygon P, the vertical slice of ``P ∩ square`` at x has
    length ``clamp(upper(x)) - clamp(lower(x))``; so ``area = -∮ clamp(y) 1[-1 <= x <= 1] dx`` along
    the boundary of P. That integrand is continuous along each edge: rounding moves the result
    continuously, with no inside/outside decision that could drop a piece. The corners are
    ``centre - u - v, centre + u - v, centre + u + v, centre - u + v``, the edges ``2u, 2v, -2u, -2v``
    exactly.
    """
    plus_x, plus_y, minus_x, minus_y = ux + vx, uy + vy, ux - vx, uy - vy
    # Opposite edges have opposite slopes: four divisions for the four edges.
    slope_ux, slope_uy, slope_vx, slope_vy = _slope(2.0 * ux), _slope(2.0 * uy), _slope(2.0 * vx), _slope(2.0 * vy)
    total = _edge_integral(-plus_x + x, -plus_y + y, 2.0 * ux, 2.0 * uy, slope_ux, slope_uy)
    total += _edge_integral(minus_x + x, minus_y + y, 2.0 * vx, 2.0 * vy, slope_vx, slope_vy)
    total += _edge_integral(plus_x + x, plus_y + y, -(2.0 * ux), -(2.0 * uy), -slope_ux, -slope_uy)
    total += _edge_integral(-minus_x + x, -minus_y + y, -(2.0 * vx), -(2.0 * vy), -slope_vx, -slope_vy)
    return -total


@jit
def _clipped_area(
    x: float, y: float, cos: float, sin: float, a_hw: float, a_hh: float, b_hw: float, b_hh: float
) -> float:
    """The area of `b` (centre ``(x, y)``, direction ``(cos, sin)`` in the frame of `a`) inside `a`.

    The frame is scaled so that `a` becomes the square ``[-1, 1]²``, whose constant bounds make the
    clamps cheap; the area scales back by ``a_hw * a_hh``. A flat `a` keeps scale 1 (its area 0
    makes the result 0). NaN when the scaled `b` overflows (a box below 1e-300 of the other's size).
    """
    scale_x = a_hw if a_hw != 0.0 else 1.0
    scale_y = a_hh if a_hh != 0.0 else 1.0
    # Centre, half the width vector (u) and half the height vector (v) of `b`, scaled.
    ux, uy = b_hw * cos / scale_x, b_hw * sin / scale_y
    vx, vy = -(b_hh * sin / scale_x), b_hh * cos / scale_y
    x, y = x / scale_x, y / scale_y
    if not (
        math.isfinite(x)
        and math.isfinite(y)
        and math.isfinite(ux)
        and math.isfinite(uy)
        and math.isfinite(vx)
        and math.isfinite(vy)
    ):
        return np.nan
    return _square_clipped_area(x, y, ux, uy, vx, vy) * (a_hw * a_hh)


@jit
def _certainly_empty(ax: float, ay: float, aw: float, ah: float, bx: float, by: float, bw: float, bh: float) -> bool:
    """Whether the intersection is 0 for a reason that needs no cos or sin: no area, or apart beyond any turn.

    A box's bounds reach at most its half width plus its half height from its centre, so boxes
    further apart than the sum of those along x or y (with a margin for rounding) have bounds apart.
    """
    if aw * ah == 0.0 or bw * bh == 0.0:
        return True
    reach = 1.000001 * ((0.5 * aw + 0.5 * ah) + (0.5 * bw + 0.5 * bh))
    return abs(bx - ax) > reach or abs(by - ay) > reach


@jit
def _in_canonical_order(
    ax: float,
    ay: float,
    aw: float,
    ah: float,
    a_angle: float,
    a_cos: float,
    a_sin: float,
    bx: float,
    by: float,
    bw: float,
    bh: float,
    b_angle: float,
    b_cos: float,
    b_sin: float,
) -> tuple[float, float, float, float, float, float, float, float, float, float, float, float]:
    """The two boxes (centre, size, unit vector) with the one that comes first in ``(cx, cy, w, h, angle)`` first.

    Measuring a pair in this order makes (a, b) and (b, a) run the same arithmetic: the same bits.
    """
    if _comes_first(ax, ay, aw, ah, a_angle, bx, by, bw, bh, b_angle):
        return bx, by, bw, bh, b_cos, b_sin, ax, ay, aw, ah, a_cos, a_sin
    return ax, ay, aw, ah, a_cos, a_sin, bx, by, bw, bh, b_cos, b_sin


@jit
def _intersection_of_turned(
    ax: float,
    ay: float,
    aw: float,
    ah: float,
    a_angle: float,
    a_cos: float,
    a_sin: float,
    bx: float,
    by: float,
    bw: float,
    bh: float,
    b_angle: float,
    b_cos: float,
    b_sin: float,
) -> float:
    """`intersection_area`, the unit vectors of both boxes given."""
    ax, ay, aw, ah, a_cos, a_sin, bx, by, bw, bh, b_cos, b_sin = _in_canonical_order(
        ax, ay, aw, ah, a_angle, a_cos, a_sin, bx, by, bw, bh, b_angle, b_cos, b_sin
    )
    if _bounds_apart(ax, ay, aw, ah, a_cos, a_sin, bx, by, bw, bh, b_cos, b_sin):
        return 0.0
    a_hw, a_hh, b_hw, b_hh = 0.5 * aw, 0.5 * ah, 0.5 * bw, 0.5 * bh
    # The centre difference comes first, so far-away pairs keep the precision of their sizes.
    x, y = _turn_back(bx - ax, by - ay, a_cos, a_sin)
    cos, sin = _relative_direction(a_cos, a_sin, b_cos, b_sin)
    smaller = min(aw * ah, bw * bh)
    area = local_area(x, y, cos, sin, a_hw, a_hh, b_hw, b_hh, smaller)
    if math.isnan(area):
        # `a` is so much smaller than `b` that the frame of `a` overflows: measure `a` in the frame of `b`.
        x, y = _turn_back(ax - bx, ay - by, b_cos, b_sin)
        area = _clipped_area(x, y, cos, -sin, b_hw, b_hh, a_hw, a_hh)
    # The exact area lies in [0, min(area_a, area_b)]; outside it only by rounding (or 0 for a NaN
    # of the frame of both boxes). Adding 0 makes a zero +0.
    if not area > 0.0:
        return 0.0
    return min(area, smaller) + 0.0


@jit
def local_area(
    x: float, y: float, cos: float, sin: float, a_hw: float, a_hh: float, b_hw: float, b_hh: float, smaller: float
) -> float:
    """The area of `b` (centre ``(x, y)``, direction ``(cos, sin)`` in the frame of `a`, half sizes given) inside `a`.

    `smaller` (the smaller of the two areas) when a box lies inside the other; NaN when the frame of
    `a` overflows (a box below 1e-300 of the other's size: measure in the frame of `b`). The 3-D
    kernels use it for boxes that share an axis (`geoiou.kernels.oriented_overlap`).
    """
    if _contained(x, y, cos, sin, a_hw, a_hh, b_hw, b_hh):
        return smaller
    if sin == 0.0 or cos == 0.0:
        # Parallel boxes: sums, differences and one product, exact for exact inputs (integer boxes),
        # where scaling the frame would round (2.5 / 1.5).
        reach_x, reach_y = (b_hh, b_hw) if cos == 0.0 else (b_hw, b_hh)
        return _overlap_length(x, reach_x, a_hw) * _overlap_length(y, reach_y, a_hh)
    return _clipped_area(x, y, cos, sin, a_hw, a_hh, b_hw, b_hh)


@jit
def intersection_area(
    ax: float,
    ay: float,
    aw: float,
    ah: float,
    a_angle: float,
    bx: float,
    by: float,
    bw: float,
    bh: float,
    b_angle: float,
) -> float:
    """The area of the intersection of two rotated boxes ``(cx, cy, w, h, angle)``.

    In ``[0, min(w_a h_a, w_b h_b)]``, exactly the smaller area when a box is inside the other (so
    a box has IoU exactly 1 with itself), exactly 0 when the boxes' bounds do not overlap with
    positive area; NaN when a number is NaN.
    """
    if math.isnan(ax + ay + aw + ah + a_angle + bx + by + bw + bh + b_angle):
        return np.nan
    if _certainly_empty(ax, ay, aw, ah, bx, by, bw, bh):
        return 0.0
    a_cos, a_sin = unit_vector(a_angle)
    b_cos, b_sin = unit_vector(b_angle)
    return _intersection_of_turned(ax, ay, aw, ah, a_angle, a_cos, a_sin, bx, by, bw, bh, b_angle, b_cos, b_sin)


@jit
def _twice_hull_area(
    x: float, y: float, cos: float, sin: float, a_hw: float, a_hh: float, b_hw: float, b_hh: float
) -> float:
    """Twice the area of the convex hull of `a` and `b`, `b` at ``(x, y)`` turned by ``(cos, sin)`` in the frame of `a`.

    The support of a convex polygon along a direction is its vertex (or edge) that reaches
    furthest. Describe `b` so that its width makes an angle ``phi`` in [0, 90) with the x axis of
    `a`. Then the eight edge normals alternate: normal ``i`` of `a`, normal ``i`` of `b` (``phi``
    further), normal ``i + 1`` of `a`, ... Between two consecutive normals each box has one support
    vertex, and which box reaches further changes at most once there (the difference of the two
    supports is a sinusoid of the direction). So walking the eight normals and emitting, for each,
    the edge of its own box if that box reaches at least as far, else the other box's support vertex
    twice, lists the vertices of the hull counter-clockwise (the switches between boxes are the
    hull's bridges). Every emitted point is a true corner, so rounding in the comparisons can only
    add or drop a point that lies on the hull's boundary up to rounding.

    Along normal ``i`` of `a` the supports are its edge ``(a_i, a_{i+1})`` and the corner ``b_i``;
    along normal ``i`` of `b`, its edge ``(b_i, b_{i+1})`` and the corner ``a_{i+1}``. With ``A_i``
    and ``B_i`` 1 where `a` wins (else 0), the shoelace sum of the emitted loop
    ``[A_i ? a_i : b_i, A_i ? a_{i+1} : b_i, B_i ? a_{i+1} : b_i, B_i ? a_{i+1} : b_{i+1}]`` needs
    no selection: the cross product of two consecutive points is 0 when they are the same corner,
    which leaves, per i,
    ``A_i a_i×a_{i+1} + (A_i - B_i) a_{i+1}×b_i + (1 - B_i) b_i×b_{i+1} + (B_i - A_{i+1}) a_{i+1}×b_{i+1}``.
    """
    # The same rectangle turned by a multiple of 90 degrees (sides swapped for odd ones) has its
    # width at an angle in [0, 90): (|cos|, |sin|) for a relative angle in [0, 90) or [180, 270).
    if (cos > 0.0 and sin >= 0.0) or (cos < 0.0 and sin <= 0.0):
        cos, sin = abs(cos), abs(sin)
    else:
        cos, sin, b_hw, b_hh = abs(sin), abs(cos), b_hh, b_hw
    ux, uy, vx, vy = b_hw * cos, b_hw * sin, -(b_hh * sin), b_hh * cos
    plus_x, plus_y, minus_x, minus_y = ux + vx, uy + vy, ux - vx, uy - vy
    # The corners b_i of `b`; corner i + 1 of `a` is (a_hw, -a_hh), (a_hw, a_hh), (-a_hw, a_hh), (-a_hw, -a_hh).
    b0x, b0y = -plus_x + x, -plus_y + y
    b1x, b1y = minus_x + x, minus_y + y
    b2x, b2y = plus_x + x, plus_y + y
    b3x, b3y = -minus_x + x, -minus_y + y
    # How far corner i + 1 of `a` is beyond corner i of `b`.
    e0x, e0y = a_hw - b0x, -a_hh - b0y
    e1x, e1y = a_hw - b1x, a_hh - b1y
    e2x, e2y = -a_hw - b2x, a_hh - b2y
    e3x, e3y = -a_hw - b3x, -a_hh - b3y
    # Does `a` reach at least as far along normal i of `a` (bottom, right, top, left) ...
    w0, w1, w2, w3 = _at_least_zero(-e0y), _at_least_zero(e1x), _at_least_zero(e2y), _at_least_zero(-e3x)
    # ... and along normal i of `b`: those of `a` turned by phi, (sin, -cos), (cos, sin), (-sin, cos), (-cos, -sin)?
    v0 = _at_least_zero(sin * e0x + -cos * e0y)
    v1 = _at_least_zero(cos * e1x + sin * e1y)
    v2 = _at_least_zero(-sin * e2x + cos * e2y)
    v3 = _at_least_zero(-cos * e3x + -sin * e3y)
    # The shoelace sum, term by term, unrolled (a loop over tuples indexes them through memory: 3x slower).
    total = (
        (w0 - v0) * _cross(a_hw, -a_hh, b0x, b0y)
        + (1.0 - v0) * _cross(b0x, b0y, b1x, b1y)
        + (v0 - w1) * _cross(a_hw, -a_hh, b1x, b1y)
    )
    total += (
        (w1 - v1) * _cross(a_hw, a_hh, b1x, b1y)
        + (1.0 - v1) * _cross(b1x, b1y, b2x, b2y)
        + (v1 - w2) * _cross(a_hw, a_hh, b2x, b2y)
    )
    total += (
        (w2 - v2) * _cross(-a_hw, a_hh, b2x, b2y)
        + (1.0 - v2) * _cross(b2x, b2y, b3x, b3y)
        + (v2 - w3) * _cross(-a_hw, a_hh, b3x, b3y)
    )
    total += (
        (w3 - v3) * _cross(-a_hw, -a_hh, b3x, b3y)
        + (1.0 - v3) * _cross(b3x, b3y, b0x, b0y)
        + (v3 - w0) * _cross(-a_hw, -a_hh, b0x, b0y)
    )
    # a_i × a_{i+1} is 2 * a_hw * a_hh for every edge of `a`.
    wins = ((w0 + w1) + w2) + w3
    return total + wins * ((a_hw * a_hh) * 2.0)


@jit
def _at_least_zero(value: float) -> float:
    """1.0 where `value` >= 0, else 0.0: the walk's choices as factors of the shoelace terms."""
    return 1.0 if value >= 0.0 else 0.0


@jit
def _cross(ux: float, uy: float, vx: float, vy: float) -> float:
    """The z component of the cross product ``u × v``."""
    return ux * vy - uy * vx


@jit
def _hull_of_turned(
    ax: float,
    ay: float,
    aw: float,
    ah: float,
    a_angle: float,
    a_cos: float,
    a_sin: float,
    bx: float,
    by: float,
    bw: float,
    bh: float,
    b_angle: float,
    b_cos: float,
    b_sin: float,
) -> float:
    """`hull_area`, the unit vectors of both boxes given."""
    ax, ay, aw, ah, a_cos, a_sin, bx, by, bw, bh, b_cos, b_sin = _in_canonical_order(
        ax, ay, aw, ah, a_angle, a_cos, a_sin, bx, by, bw, bh, b_angle, b_cos, b_sin
    )
    a_hw, a_hh, b_hw, b_hh = 0.5 * aw, 0.5 * ah, 0.5 * bw, 0.5 * bh
    x, y = _turn_back(bx - ax, by - ay, a_cos, a_sin)
    cos, sin = _relative_direction(a_cos, a_sin, b_cos, b_sin)
    larger = max(aw * ah, bw * bh)
    if _contained(x, y, cos, sin, a_hw, a_hh, b_hw, b_hh):
        return larger
    twice = _twice_hull_area(x, y, cos, sin, a_hw, a_hh, b_hw, b_hh)
    if not math.isfinite(twice):
        # Products of coordinates near 2**512 overflow: the same walk on lengths scaled by 2**-64 (exact).
        s = 2.0**-64
        twice = _twice_hull_area(x * s, y * s, cos, sin, a_hw * s, a_hh * s, b_hw * s, b_hh * s) * 2.0**128
    # The hull holds both boxes: falling below the larger area can only be rounding.
    return max(twice * 0.5, larger)


@jit
def hull_area(
    ax: float,
    ay: float,
    aw: float,
    ah: float,
    a_angle: float,
    bx: float,
    by: float,
    bw: float,
    bh: float,
    b_angle: float,
) -> float:
    """The area of the convex hull of two rotated boxes ``(cx, cy, w, h, angle)`` (GIoU's enclosure).

    At least ``max(w_a h_a, w_b h_b)``, exactly that when a box is inside the other; NaN when a
    number is NaN.
    """
    if math.isnan(ax + ay + aw + ah + a_angle + bx + by + bw + bh + b_angle):
        return np.nan
    a_cos, a_sin = unit_vector(a_angle)
    b_cos, b_sin = unit_vector(b_angle)
    return _hull_of_turned(ax, ay, aw, ah, a_angle, a_cos, a_sin, bx, by, bw, bh, b_angle, b_cos, b_sin)


# --------------------------------------------------------------------------- the loops over pairs
# A pair's value comes from one call of the functions above, whatever the loop (serial or parallel,
# unit vectors from a table or not): the same bits for any batch, thread count or position.


#: A box as the loops hand it over: ``cx, cy, w, h, angle, cos, sin`` (NaN cos and sin: not tabled).
Turned = tuple[float, float, float, float, float, float, float]


@jit
def _measure(hull: bool, box_a: Turned, box_b: Turned) -> float:
    """`hull_area` or `intersection_area` of two boxes whose unit vectors come from a table, or (NaN) are computed."""
    ax, ay, aw, ah, a_angle, a_cos, a_sin = box_a
    bx, by, bw, bh, b_angle, b_cos, b_sin = box_b
    if math.isnan(ax + ay + aw + ah + a_angle + bx + by + bw + bh + b_angle):
        return np.nan
    if not hull and _certainly_empty(ax, ay, aw, ah, bx, by, bw, bh):  # before any cos or sin: a few comparisons
        return 0.0
    if math.isnan(a_cos):
        a_cos, a_sin = unit_vector(a_angle)
    if math.isnan(b_cos):
        b_cos, b_sin = unit_vector(b_angle)
    if hull:
        return _hull_of_turned(ax, ay, aw, ah, a_angle, a_cos, a_sin, bx, by, bw, bh, b_angle, b_cos, b_sin)
    return _intersection_of_turned(ax, ay, aw, ah, a_angle, a_cos, a_sin, bx, by, bw, bh, b_angle, b_cos, b_sin)


@jit
def single_pair(a: np.ndarray, b: np.ndarray, code: int, zero_division: float) -> float:
    """The formula `code` of the intersection of two single boxes (rows of 5 numbers), one call: `_pairs_serial`'s
    measure and formula of one pair, the areas ``w * h`` as `RotatedBox` gives them. `GIOU_OF_HULL` is the two
    passes of GIoU with the hull in one: the intersection's formula, then the hull loop's with it given."""
    box_a = (a[0], a[1], a[2], a[3], a[4], math.nan, math.nan)
    box_b = (b[0], b[1], b[2], b[3], b[4], math.nan, math.nan)
    area_a, area_b = a[2] * a[3], b[2] * b[3]
    measure = _measure(False, box_a, box_b)
    if code == GIOU_OF_HULL:
        given = value(INTERSECTION, measure, area_a, area_b, 0.0, zero_division)
        return value(GIOU_OF_HULL, _measure(True, box_a, box_b), area_a, area_b, given, zero_division)
    return value(code, measure, area_a, area_b, 0.0, zero_division)


#: What the rotated loops read: both batches' rows, their unit vector tables (or none) and whether to
#: measure the hull rather than the intersection.
Data = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]


@jit
def _pairs_serial(data: Data, job: Job, begin: int, end: int) -> None:
    """The formula of the pairs of the rows ``begin <= r < end`` (`Pairs`): `_measure` of each, the unit
    vectors from the tables when there are tables (NaN tells `_measure` to compute them)."""
    a, b, table_a, table_b, hull = data
    index_a, index_b, outer, out, code, areas_a, areas_b, given, zero_division = job
    has_given, tables_a, tables_b = given.shape[0] > 0, table_a.shape[0] > 0, table_b.shape[0] > 0
    columns = index_b.shape[0] if outer else 1
    for r in range(begin, end):
        i = index_a[r]
        a_cos, a_sin = (table_a[i, 0], table_a[i, 1]) if tables_a else (math.nan, math.nan)
        box_a = (a[i, 0], a[i, 1], a[i, 2], a[i, 3], a[i, 4], a_cos, a_sin)
        for c in range(columns):
            k = r * columns + c
            j = index_b[c] if outer else index_b[r]
            b_cos, b_sin = (table_b[j, 0], table_b[j, 1]) if tables_b else (math.nan, math.nan)
            measure = _measure(hull, box_a, (b[j, 0], b[j, 1], b[j, 2], b[j, 3], b[j, 4], b_cos, b_sin))
            out[k] = (
                measure
                if code == MEASURE
                else value(code, measure, areas_a[i], areas_b[j], given[k] if has_given else 0.0, zero_division)
            )


@jit(parallel=True)
def _pairs_parallel(data: Data, job: Job, run: int) -> None:
    rows = job[0].shape[0]
    for step in prange((rows + run - 1) // run):
        _pairs_serial(data, job, step * run, min(rows, (step + 1) * run))


@jit
def _unit_vector_table_serial(coords: np.ndarray) -> np.ndarray:
    """The unit vector ``(cos, sin)`` of every box, shape ``(n, 2)``."""
    table = np.empty((coords.shape[0], 2))
    for i in range(coords.shape[0]):
        table[i, 0], table[i, 1] = unit_vector(coords[i, 4])
    return table


@jit(parallel=True)
def _unit_vector_table_parallel(coords: np.ndarray) -> np.ndarray:
    """`_unit_vector_table_serial`, boxes on every core."""
    table = np.empty((coords.shape[0], 2))
    for i in prange(coords.shape[0]):
        table[i, 0], table[i, 1] = unit_vector(coords[i, 4])
    return table


def _unit_vector_table(coords: np.ndarray) -> np.ndarray:
    if in_parallel(coords.shape[0], UNIT_VECTOR_COST_NS):
        return _unit_vector_table_parallel(coords)
    return _unit_vector_table_serial(coords)


#: The table of no box: the loops compute each pair's unit vectors.
_NO_TABLE = np.empty((0, 2))


def intersection_pairs(a: np.ndarray, b: np.ndarray, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """`apply` of `formula` to the `intersection_area` of `pairs` of two batches of boxes ``(..., 5)``, into `out`."""
    _measure_pairs(a, b, pairs, formula, out, False)


def hull_pairs(a: np.ndarray, b: np.ndarray, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """`apply` of `formula` to the `hull_area` of `pairs` of two batches of boxes ``(..., 5)``, into `out`."""
    _measure_pairs(a, b, pairs, formula, out, True)


def _measure_pairs(a: np.ndarray, b: np.ndarray, pairs: Pairs, formula: Formula, out: np.ndarray, hull: bool) -> None:
    """Run the driver on the boxes `a`, `b` (flattened) and `pairs`.

    When there are at least `TABLE_PAIRS_PER_BOX` pairs per box (a pairwise matrix), each box's cos
    and sin are computed once, into a table, rather than for each of its pairs; with fewer pairs
    nothing is computed per box, so a call's cost follows the pairs asked, not the batches.
    """
    coords_a, coords_b = _float_rows(a), _float_rows(b)
    count = len(pairs)
    if count >= TABLE_MIN_PAIRS and count >= TABLE_PAIRS_PER_BOX * (coords_a.shape[0] + coords_b.shape[0]):
        table_a, table_b = _unit_vector_table(coords_a), _unit_vector_table(coords_b)
    else:
        table_a = table_b = _NO_TABLE
    data = (coords_a, coords_b, table_a, table_b, hull)
    # Hulls are measured for every pair; intersections prune the disjoint pairs of a matrix first.
    matrix_cost = None if hull else PRUNED_COST_NS
    run_rows(_pairs_serial, _pairs_parallel, data, pairs, formula, out, PAIR_COST_NS, matrix_cost)


def _float_rows(coords: np.ndarray) -> np.ndarray:
    """`coords` as read-only C-contiguous rows ``(n, 5)``, as a region's usually are: one array type."""
    rows = coords if coords.ndim == 2 else coords.reshape(-1, 5)
    return rows if rows.flags.c_contiguous and not rows.flags.writeable else _read_only(np.ascontiguousarray(rows))


def _read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of `array` (numba compiles a loop once per array type, and read-only is one)."""
    view: np.ndarray = array.view()
    view.flags.writeable = False
    return view
