//! The intersection of two rotated boxes, measured in the frame of the first (see the module above).
//!
//! In that frame the first box is the rectangle `[±a_hw] × [±a_hh]`; scaled to the square
//! `[-1, 1]²`, the area of the second inside it is `-∮ clamp(y) 1[-1 <= x <= 1] dx` along the
//! second's boundary (`square_clipped_area`): a fixed amount of branch-free work per pair, no clipped
//! polygon to grow, and an integrand continuous along each edge, so rounding moves the result
//! continuously with no inside/outside decision that could drop a piece. Parallel boxes take the
//! exact closed form of two rectangles, and a box inside the other its exact area.

use super::{Local, RotatedBox, Turned, comes_first, relative_direction, turn_back, turned};
use crate::numeric::{clamp, max, min, next_down, next_up};

/// A slope standing in for the infinite one of an edge parallel to a side of the square.
const HUGE: f64 = 1e300;

/// `centre ∓ reach`: the bounds of `RotatedBox.bounds` along one axis (`rotated_box.corner_bounds`),
/// and of `OrientedBox3D.bounds` (`boxes3d`).
///
/// A box with area (volume) whose reach is below half a unit in the last place of its centre would have
/// bounds of zero extent, and a pair of such bounds no overlap: they span the neighbouring floats.
#[inline(always)]
pub(crate) fn extent(centre: f64, reach: f64, has_area: bool) -> (f64, f64) {
    let (low, high) = (centre - reach, centre + reach);
    if low == high && has_area { (next_down(centre), next_up(centre)) } else { (low, high) }
}

/// Whether the bounds of the two boxes overlap with no positive area (the test of the candidate search).
#[inline(always)]
fn bounds_apart(a: &Turned, b: &Turned) -> bool {
    let (a_hw, a_hh, b_hw, b_hh) = (0.5 * a.rect.w, 0.5 * a.rect.h, 0.5 * b.rect.w, 0.5 * b.rect.h);
    let a_area = a.rect.w > 0.0 && a.rect.h > 0.0;
    let b_area = b.rect.w > 0.0 && b.rect.h > 0.0;
    // The extreme corner offsets are ±fl(|cos half_w| + |sin half_h|) (and alike along y).
    let (a_low, a_high) = extent(a.rect.cx, (a.cos * a_hw).abs() + (a.sin * a_hh).abs(), a_area);
    let (b_low, b_high) = extent(b.rect.cx, (b.cos * b_hw).abs() + (b.sin * b_hh).abs(), b_area);
    if max(a_low, b_low) >= min(a_high, b_high) {
        return true;
    }
    let (a_low, a_high) = extent(a.rect.cy, (a.sin * a_hw).abs() + (a.cos * a_hh).abs(), a_area);
    let (b_low, b_high) = extent(b.rect.cy, (b.sin * b_hw).abs() + (b.cos * b_hh).abs(), b_area);
    max(a_low, b_low) >= min(a_high, b_high)
}

/// Whether a box (centre, half sizes, `|cos|, |sin|` of its direction) lies in `[±limit_w] × [±limit_h]`.
///
/// The furthest corner from the centre along each axis reaches `|offset| + half_w |along| +
/// half_h |across|`. Rounding can only misjudge a box that sticks out by a rounding-sized sliver,
/// whose area is negligible.
#[inline(always)]
fn fits((x, y): (f64, f64), (half_w, half_h): (f64, f64), (abs_cos, abs_sin): (f64, f64), limit: (f64, f64)) -> bool {
    x.abs() + half_w * abs_cos + half_h * abs_sin <= limit.0 && y.abs() + half_w * abs_sin + half_h * abs_cos <= limit.1
}

/// Whether one box lies inside the other.
#[inline(always)]
pub(super) fn contained(p: &Local) -> bool {
    let direction = (p.cos.abs(), p.sin.abs());
    if fits((p.x, p.y), (p.b_hw, p.b_hh), direction, (p.a_hw, p.a_hh)) {
        return true;
    }
    let a_centre = turn_back(p.x, p.y, p.cos, p.sin); // the centre of `a` in the frame of `b`
    fits(a_centre, (p.a_hw, p.a_hh), direction, (p.b_hw, p.b_hh))
}

/// Length of `[centre - reach, centre + reach] ∩ [-half, half]` (0 if apart).
#[inline(always)]
pub(crate) fn overlap_length(centre: f64, reach: f64, half: f64) -> f64 {
    max(min(centre + reach, half) - max(centre - reach, -half), 0.0)
}

/// `1 / edge`, with a huge finite slope standing in for the infinite one of an edge of length 0 along
/// the axis: `0 * slope` stays 0 rather than NaN (every use clamps its parameters into [0, 1]). The
/// slope of `-edge` is exactly minus that of `edge`.
#[inline(always)]
fn slope(edge: f64) -> f64 {
    min(max(1.0 / edge, -HUGE), HUGE)
}

/// The parameters t where `coordinate + t * edge` is -1 and where it is 1, `slope` being `slope(edge)`.
#[inline(always)]
fn crossings(coordinate: f64, slope: f64) -> (f64, f64) {
    let at_low = (-1.0 - coordinate) * slope;
    (at_low, 2.0 * slope + at_low)
}

#[inline(always)]
fn clamped(value: f64) -> f64 {
    clamp(value, -1.0, 1.0)
}

/// `∫ clamp(y) dx` along one edge, over its part in the strip `-1 <= x <= 1`, y clamped into [-1, 1].
///
/// Within the strip `[enter, leave]` the clamped y is constant before `first` and after `second`
/// and linear in between: three pieces, each integrated exactly.
#[inline(always)]
fn edge_integral(x: f64, y: f64, edge_x: f64, edge_y: f64, slope_x: f64, slope_y: f64) -> f64 {
    let (at_left, at_right) = crossings(x, slope_x);
    let (at_bottom, at_top) = crossings(y, slope_y);
    let enter = min(max(min(at_left, at_right), 0.0), 1.0);
    let leave = max(min(max(max(at_left, at_right), 0.0), 1.0), enter);
    let first = min(max(min(at_bottom, at_top), enter), leave);
    let second = min(max(max(at_bottom, at_top), enter), leave);
    let mut integral = (first - enter) * clamped(enter * edge_y + y);
    integral += (clamped(first * edge_y + y) + clamped(second * edge_y + y)) * (second - first) * 0.5;
    integral += (leave - second) * clamped(leave * edge_y + y);
    integral * edge_x
}

/// The area of the rectangle centred at `(x, y)` with half side vectors `u`, `v` inside `[-1, 1]²`.
///
/// For the square and a counter-clockwise polygon P, the vertical slice of `P ∩ square` at x has
/// length `clamp(upper(x)) - clamp(lower(x))`; so `area = -∮ clamp(y) 1[-1 <= x <= 1] dx` along
/// the boundary of P. The corners are `centre - u - v, centre + u - v, centre + u + v, centre - u + v`,
/// the edges `2u, 2v, -2u, -2v` exactly.
#[inline(always)]
fn square_clipped_area(x: f64, y: f64, (ux, uy): (f64, f64), (vx, vy): (f64, f64)) -> f64 {
    let (plus_x, plus_y, minus_x, minus_y) = (ux + vx, uy + vy, ux - vx, uy - vy);
    // Opposite edges have opposite slopes: four divisions for the four edges.
    let (slope_ux, slope_uy) = (slope(2.0 * ux), slope(2.0 * uy));
    let (slope_vx, slope_vy) = (slope(2.0 * vx), slope(2.0 * vy));
    let mut total = edge_integral(-plus_x + x, -plus_y + y, 2.0 * ux, 2.0 * uy, slope_ux, slope_uy);
    total += edge_integral(minus_x + x, minus_y + y, 2.0 * vx, 2.0 * vy, slope_vx, slope_vy);
    total += edge_integral(plus_x + x, plus_y + y, -(2.0 * ux), -(2.0 * uy), -slope_ux, -slope_uy);
    total += edge_integral(-minus_x + x, -minus_y + y, -(2.0 * vx), -(2.0 * vy), -slope_vx, -slope_vy);
    -total
}

/// The area of `b` inside `a`, the frame scaled so that `a` becomes the square `[-1, 1]²` (whose
/// constant bounds make the clamps cheap); the area scales back by `a_hw * a_hh`. A flat `a` keeps
/// scale 1 (its area 0 makes the result 0). NaN when the scaled `b` overflows (a box below 1e-300
/// of the other's size).
#[inline(always)]
fn clipped_area(p: &Local) -> f64 {
    let scale_x = if p.a_hw != 0.0 { p.a_hw } else { 1.0 };
    let scale_y = if p.a_hh != 0.0 { p.a_hh } else { 1.0 };
    // Centre, half the width vector (u) and half the height vector (v) of `b`, scaled.
    let (ux, uy) = (p.b_hw * p.cos / scale_x, p.b_hw * p.sin / scale_y);
    let (vx, vy) = (-(p.b_hh * p.sin / scale_x), p.b_hh * p.cos / scale_y);
    let (x, y) = (p.x / scale_x, p.y / scale_y);
    if !(x.is_finite() && y.is_finite() && ux.is_finite() && uy.is_finite() && vx.is_finite() && vy.is_finite()) {
        return f64::NAN;
    }
    square_clipped_area(x, y, (ux, uy), (vx, vy)) * (p.a_hw * p.a_hh)
}

/// Whether the intersection is 0 for a reason that needs no cos or sin: no area, or apart beyond any turn.
///
/// A box's bounds reach at most its half width plus its half height from its centre, so boxes
/// further apart than the sum of those along x or y (with a margin for rounding) have bounds apart.
#[inline(always)]
pub(super) fn certainly_empty(a: &RotatedBox, b: &RotatedBox) -> bool {
    if a.w * a.h == 0.0 || b.w * b.h == 0.0 {
        return true;
    }
    let reach = 1.000001 * ((0.5 * a.w + 0.5 * a.h) + (0.5 * b.w + 0.5 * b.h));
    (b.cx - a.cx).abs() > reach || (b.cy - a.cy).abs() > reach
}

/// The area of `b` inside `a`, the pair in the frame of `a` (`Local`); `smaller` (the smaller of the
/// two areas) when a box lies inside the other; NaN when the frame of `a` overflows (a box below
/// 1e-300 of the other's size: measure in the frame of `b`). The 3-D kernels use it for boxes that
/// share an axis (`boxes3d::oriented`).
#[inline(always)]
pub(crate) fn local_area(p: Local, smaller: f64) -> f64 {
    if contained(&p) {
        return smaller;
    }
    if p.sin == 0.0 || p.cos == 0.0 {
        // Parallel boxes: sums, differences and one product, exact for exact inputs (integer boxes),
        // where scaling the frame would round (2.5 / 1.5).
        let (reach_x, reach_y) = if p.cos == 0.0 { (p.b_hh, p.b_hw) } else { (p.b_hw, p.b_hh) };
        return overlap_length(p.x, reach_x, p.a_hw) * overlap_length(p.y, reach_y, p.a_hh);
    }
    clipped_area(&p)
}

/// `intersection_area`, the unit vectors of both boxes given.
#[inline(always)]
pub(super) fn intersection_of_turned(a: Turned, b: Turned) -> f64 {
    let (a, b) = if comes_first(&a.rect, &b.rect) { (b, a) } else { (a, b) };
    if bounds_apart(&a, &b) {
        return 0.0;
    }
    let (a_hw, a_hh, b_hw, b_hh) = (0.5 * a.rect.w, 0.5 * a.rect.h, 0.5 * b.rect.w, 0.5 * b.rect.h);
    // The centre difference comes first, so far-away pairs keep the precision of their sizes.
    let (x, y) = turn_back(b.rect.cx - a.rect.cx, b.rect.cy - a.rect.cy, a.cos, a.sin);
    let (cos, sin) = relative_direction(a.cos, a.sin, b.cos, b.sin);
    let smaller = min(a.rect.w * a.rect.h, b.rect.w * b.rect.h);
    let mut area = local_area(Local { x, y, cos, sin, a_hw, a_hh, b_hw, b_hh }, smaller);
    if area.is_nan() {
        // `a` is so much smaller than `b` that the frame of `a` overflows: measure `a` in the frame of `b`.
        let (x, y) = turn_back(a.rect.cx - b.rect.cx, a.rect.cy - b.rect.cy, b.cos, b.sin);
        let swapped = Local { x, y, cos, sin: -sin, a_hw: b_hw, a_hh: b_hh, b_hw: a_hw, b_hh: a_hh };
        area = clipped_area(&swapped);
    }
    // The exact area lies in [0, min(area_a, area_b)]; outside it only by rounding (or 0 for a NaN
    // of the frame of both boxes). Adding 0 makes a zero +0.
    if !(area > 0.0) {
        return 0.0;
    }
    min(area, smaller) + 0.0
}

/// The area of the intersection of two rotated boxes.
///
/// In `[0, min(w_a h_a, w_b h_b)]`, exactly the smaller area when a box is inside the other (so a
/// box has IoU exactly 1 with itself), exactly 0 when the boxes' bounds do not overlap with
/// positive area; NaN when a number is NaN.
pub(crate) fn intersection_area(a: RotatedBox, b: RotatedBox) -> f64 {
    if a.any_nan_with(&b) {
        return f64::NAN;
    }
    if certainly_empty(&a, &b) {
        return 0.0;
    }
    intersection_of_turned(turned(a), turned(b))
}
