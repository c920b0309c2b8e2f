//! The convex hull of two rotated boxes (GIoU's enclosure), in the frame of the first.
//!
//! The support of a convex polygon along a direction is its vertex (or edge) that reaches furthest.
//! Describe `b` so that its width makes an angle `phi` in [0, 90) with the x axis of `a`. Then the
//! eight edge normals alternate: normal i of `a`, normal i of `b` (`phi` further), normal i + 1 of
//! `a`, ... Between two consecutive normals each box has one support vertex, and which box reaches
//! further changes at most once there (the difference of the two supports is a sinusoid of the
//! direction). So walking the eight normals and emitting, for each, the edge of its own box if that
//! box reaches at least as far, else the other box's support vertex twice, lists the vertices of
//! the hull counter-clockwise (the switches between boxes are the hull's bridges). Every emitted
//! point is a true corner, so rounding in the comparisons can only add or drop a point that lies on
//! the hull's boundary up to rounding.
//!
//! Along normal i of `a` the supports are its edge `(a_i, a_{i+1})` and the corner `b_i`; along
//! normal i of `b`, its edge `(b_i, b_{i+1})` and the corner `a_{i+1}`. With `A_i` and `B_i` 1 where
//! `a` wins (else 0), the shoelace sum of the emitted loop
//! `[A_i ? a_i : b_i, A_i ? a_{i+1} : b_i, B_i ? a_{i+1} : b_i, B_i ? a_{i+1} : b_{i+1}]` needs no
//! selection: the cross product of two consecutive points is 0 when they are the same corner, which
//! leaves, per i,
//! `A_i a_i×a_{i+1} + (A_i - B_i) a_{i+1}×b_i + (1 - B_i) b_i×b_{i+1} + (B_i - A_{i+1}) a_{i+1}×b_{i+1}`.

use super::intersection::contained;
use super::{Local, Turned, comes_first, relative_direction, turn_back};
#[cfg(test)]
use super::{RotatedBox, turned};
use crate::numeric::{cross, max};

/// 2**-64 and 2**128: the hull's lengths scaled down, and its area back (both exact).
const TWO_TO_MINUS_64: f64 = 1.0 / 18446744073709551616.0;
const TWO_TO_128: f64 = 18446744073709551616.0 * 18446744073709551616.0;

/// 1.0 where `value` >= 0, else 0.0: the walk's choices as factors of the shoelace terms.
#[inline(always)]
fn at_least_zero(value: f64) -> f64 {
    if value >= 0.0 { 1.0 } else { 0.0 }
}

/// Twice the area of the convex hull of `a` and `b`, the pair in the frame of `a`.
#[inline(always)]
fn twice_hull_area(p: &Local) -> f64 {
    let (x, y, a_hw, a_hh) = (p.x, p.y, p.a_hw, p.a_hh);
    // The same rectangle turned by a multiple of 90 degrees (sides swapped for odd ones) has its
    // width at an angle in [0, 90): (|cos|, |sin|) for a relative angle in [0, 90) or [180, 270).
    let (cos, sin, b_hw, b_hh) = if (p.cos > 0.0 && p.sin >= 0.0) || (p.cos < 0.0 && p.sin <= 0.0) {
        (p.cos.abs(), p.sin.abs(), p.b_hw, p.b_hh)
    } else {
        (p.sin.abs(), p.cos.abs(), p.b_hh, p.b_hw)
    };
    let (ux, uy, vx, vy) = (b_hw * cos, b_hw * sin, -(b_hh * sin), b_hh * cos);
    let (plus_x, plus_y, minus_x, minus_y) = (ux + vx, uy + vy, ux - vx, uy - vy);
    // The corners b_i of `b`; corner i + 1 of `a` is (a_hw, -a_hh), (a_hw, a_hh), (-a_hw, a_hh), (-a_hw, -a_hh).
    let (b0x, b0y) = (-plus_x + x, -plus_y + y);
    let (b1x, b1y) = (minus_x + x, minus_y + y);
    let (b2x, b2y) = (plus_x + x, plus_y + y);
    let (b3x, b3y) = (-minus_x + x, -minus_y + y);
    // How far corner i + 1 of `a` is beyond corner i of `b`.
    let (e0x, e0y) = (a_hw - b0x, -a_hh - b0y);
    let (e1x, e1y) = (a_hw - b1x, a_hh - b1y);
    let (e2x, e2y) = (-a_hw - b2x, a_hh - b2y);
    let (e3x, e3y) = (-a_hw - b3x, -a_hh - b3y);
    // Does `a` reach at least as far along normal i of `a` (bottom, right, top, left) ...
    let (w0, w1, w2, w3) = (at_least_zero(-e0y), at_least_zero(e1x), at_least_zero(e2y), at_least_zero(-e3x));
    // ... and along normal i of `b`: those of `a` turned by phi, (sin, -cos), (cos, sin), (-sin, cos), (-cos, -sin)?
    let v0 = at_least_zero(sin * e0x + -cos * e0y);
    let v1 = at_least_zero(cos * e1x + sin * e1y);
    let v2 = at_least_zero(-sin * e2x + cos * e2y);
    let v3 = at_least_zero(-cos * e3x + -sin * e3y);
    // The shoelace sum, term by term.
    let mut total = (w0 - v0) * cross(a_hw, -a_hh, b0x, b0y)
        + (1.0 - v0) * cross(b0x, b0y, b1x, b1y)
        + (v0 - w1) * cross(a_hw, -a_hh, b1x, b1y);
    total += (w1 - v1) * cross(a_hw, a_hh, b1x, b1y)
        + (1.0 - v1) * cross(b1x, b1y, b2x, b2y)
        + (v1 - w2) * cross(a_hw, a_hh, b2x, b2y);
    total += (w2 - v2) * cross(-a_hw, a_hh, b2x, b2y)
        + (1.0 - v2) * cross(b2x, b2y, b3x, b3y)
        + (v2 - w3) * cross(-a_hw, a_hh, b3x, b3y);
    total += (w3 - v3) * cross(-a_hw, -a_hh, b3x, b3y)
        + (1.0 - v3) * cross(b3x, b3y, b0x, b0y)
        + (v3 - w0) * cross(-a_hw, -a_hh, b0x, b0y);
    // a_i × a_{i+1} is 2 * a_hw * a_hh for every edge of `a`.
    let wins = ((w0 + w1) + w2) + w3;
    total + wins * ((a_hw * a_hh) * 2.0)
}

/// `hull_area`, the unit vectors of both boxes given.
#[inline(always)]
pub(super) fn hull_of_turned(a: Turned, b: Turned) -> f64 {
    let (a, b) = if comes_first(&a.rect, &b.rect) { (b, a) } else { (a, b) };
    let (a_hw, a_hh, b_hw, b_hh) = (0.5 * a.rect.w, 0.5 * a.rect.h, 0.5 * b.rect.w, 0.5 * b.rect.h);
    let (x, y) = turn_back(b.rect.cx - a.rect.cx, b.rect.cy - a.rect.cy, a.cos, a.sin);
    let (cos, sin) = relative_direction(a.cos, a.sin, b.cos, b.sin);
    let larger = max(a.rect.w * a.rect.h, b.rect.w * b.rect.h);
    let local = Local { x, y, cos, sin, a_hw, a_hh, b_hw, b_hh };
    if contained(&local) {
        return larger;
    }
    let mut twice = twice_hull_area(&local);
    if !twice.is_finite() {
        // Products of coordinates near 2**512 overflow: the same walk on lengths scaled by 2**-64 (exact).
        let s = TWO_TO_MINUS_64;
        let scaled =
            Local { x: x * s, y: y * s, cos, sin, a_hw: a_hw * s, a_hh: a_hh * s, b_hw: b_hw * s, b_hh: b_hh * s };
        twice = twice_hull_area(&scaled) * TWO_TO_128;
    }
    // The hull holds both boxes: falling below the larger area can only be rounding.
    max(twice * 0.5, larger)
}

/// The area of the convex hull of two rotated boxes (GIoU's enclosure).
///
/// At least `max(w_a h_a, w_b h_b)`, exactly that when a box is inside the other; NaN when a number
/// is NaN. (The kernels call `hull_of_turned` with their unit vectors; this is the tests' entry.)
#[cfg(test)]
pub(crate) fn hull_area(a: RotatedBox, b: RotatedBox) -> f64 {
    if a.any_nan_with(&b) {
        return f64::NAN;
    }
    hull_of_turned(turned(a), turned(b))
}
