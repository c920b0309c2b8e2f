//! The intersection volume of two oriented boxes, measured in the frame of the smaller one.
//!
//! The frame box `f` is the one of smaller volume (the canonical first of equal ones): its cube
//! bounds the error. Then:
//!
//! - a box inside the other: exactly the smaller volume (so a box has IoU 1 with itself);
//! - all axes shared (a signed permutation): the product of three overlaps of intervals, exact;
//! - one axis shared: the overlap along it times the area of two rectangles in the plane of the
//!   other two, by the rotated-box kernel's own function (`rotated::local_area`);
//! - otherwise the divergence theorem: scaled so that `f` is the cube `[-1, 1]³`, the volume of
//!   `o ∩ cube` is the flux of `F = (0, 0, clamp(z) · 1[|x| <= 1] · 1[|y| <= 1])` (whose divergence is
//!   the cube's indicator) through the faces of `o`, that is `Σ_faces ∫∫ clamp(z)` over each face's
//!   projection clipped to the square, signed by the face's orientation. Each face is clipped to the
//!   square (four half-planes) and split at `z = ±1`, and the integrals of a linear function over
//!   the pieces are exact sums over triangles. Nothing in it is an inside/outside decision whose
//!   error could exceed rounding: coplanar, touching and nearly parallel faces need no special case.

use super::frame::{Box15, Frame, any_nan, bounds_apart, comes_before, contained, pair_in_frame};
use crate::numeric::min;
use crate::rotated::{Local, local_area, overlap_length};

/// Vertices a clipped face can have: 4, then one more per clipping plane (4 sides, 2 levels).
const MAX_VERTICES: usize = 16;

/// A polygon's vertices in space, the first `n` of them used.
type Polygon = [[f64; 3]; MAX_VERTICES];

/// An axis k of `f` that is axis j of `o` exactly (its row and column ±1 and 0s), and how many axes
/// are shared so (3: aligned boxes).
#[inline(always)]
fn shared_axis(rel: &[[f64; 3]; 3]) -> (Option<(usize, usize)>, usize) {
    let (mut found, mut count) = (None, 0);
    for k in 0..3 {
        for j in 0..3 {
            if rel[k][j].abs() == 1.0 {
                let alone =
                    (0..3).all(|other| (other == j || rel[k][other] == 0.0) && (other == k || rel[other][j] == 0.0));
                if alone {
                    count += 1;
                    found = found.or(Some((k, j)));
                }
            }
        }
    }
    (found, count)
}

/// Two boxes sharing axis k of `f` (axis j of `o`): the overlap along it times a rectangles' area.
fn prism_volume(frame: &Frame, k: usize, j: usize) -> f64 {
    let Frame { t, rel, half_f, half_o } = frame;
    let length = overlap_length(t[k], half_o[j], half_f[k]);
    if !(length > 0.0) {
        return 0.0;
    }
    let ordered = |first: usize, second: usize| if first > second { (second, first) } else { (first, second) };
    let (k1, k2) = ordered((k + 1) % 3, (k + 2) % 3);
    let (j1, j2) = ordered((j + 1) % 3, (j + 2) % 3);
    // The direction of o's axis j1 in the plane of f's axes k1, k2; o's axis j2 is perpendicular to it
    // (its sign does not matter: a rectangle is symmetric). Exact at quarter turns, as the 2-D kernel makes it.
    let (mut cos, mut sin) = (rel[k1][j1], rel[k2][j1]);
    if sin == 0.0 {
        cos = 1.0f64.copysign(cos);
    } else if cos == 0.0 {
        sin = 1.0f64.copysign(sin);
    }
    let plane_smaller = min(4.0 * (half_f[k1] * half_f[k2]), 4.0 * (half_o[j1] * half_o[j2]));
    let (x, y) = (t[k1], t[k2]);
    let local = Local { x, y, cos, sin, a_hw: half_f[k1], a_hh: half_f[k2], b_hw: half_o[j1], b_hh: half_o[j2] };
    let mut area = local_area(local, plane_smaller);
    if area.is_nan() {
        // `f` so much smaller than `o` in this plane that its scaled frame overflows: `f` in the frame of `o`.
        let (x, y) = (-(cos * x + sin * y), -(cos * y - sin * x));
        let swapped =
            Local { x, y, cos, sin: -sin, a_hw: half_o[j1], a_hh: half_o[j2], b_hw: half_f[k1], b_hh: half_f[k2] };
        area = local_area(swapped, plane_smaller);
    }
    area * length
}

/// Clip the polygon `src[..n]` to `p[axis] >= value` (`above`) or `<= value`, into `dst`; its size.
///
/// The crossing points lie exactly on the plane; a vertex on the plane is kept and not repeated.
#[inline(always)]
fn clip(src: &Polygon, n: usize, dst: &mut Polygon, axis: usize, value: f64, above: bool) -> usize {
    let mut m = 0;
    for v in 0..n {
        let w = if v + 1 < n { v + 1 } else { 0 };
        let (mut dv, mut dw) = (src[v][axis] - value, src[w][axis] - value);
        if !above {
            (dv, dw) = (-dv, -dw);
        }
        if dv >= 0.0 {
            dst[m] = src[v];
            m += 1;
        }
        if (dv > 0.0 && dw < 0.0) || (dv < 0.0 && dw > 0.0) {
            let s = dv / (dv - dw);
            for c in 0..3 {
                dst[m][c] = src[v][c] + s * (src[w][c] - src[v][c]);
            }
            dst[m][axis] = value;
            m += 1;
        }
    }
    m
}

/// `∫∫ (z - level)` over the polygon `poly[..n]` projected on (x, y), signed by its orientation (a fan).
#[inline(always)]
fn linear_integral(poly: &Polygon, n: usize, level: f64) -> f64 {
    let mut total = 0.0;
    let (x0, y0, z0) = (poly[0][0], poly[0][1], poly[0][2] - level);
    for v in 1..n - 1 {
        let (ux, uy) = (poly[v][0] - x0, poly[v][1] - y0);
        let (wx, wy) = (poly[v + 1][0] - x0, poly[v + 1][1] - y0);
        let twice = ux * wy - uy * wx;
        total += twice * ((z0 + (poly[v][2] - level)) + (poly[v + 1][2] - level));
    }
    total / 6.0
}

/// The signed area of the polygon `poly[..n]` projected on (x, y).
#[inline(always)]
fn signed_area(poly: &Polygon, n: usize) -> f64 {
    let mut total = 0.0;
    let (x0, y0) = (poly[0][0], poly[0][1]);
    for v in 1..n - 1 {
        total += (poly[v][0] - x0) * (poly[v + 1][1] - y0) - (poly[v][1] - y0) * (poly[v + 1][0] - x0);
    }
    total / 2.0
}

/// `∫∫ clamp(z, -1, 1)` over the face's projection clipped to the square `[-1, 1]²`, signed by its
/// orientation: `clamp(z) = -1 + (z + 1)⁺ - (z - 1)⁺`, the clipped face's signed area and two
/// integrals of a linear function over its parts above `z = -1` and above `z = 1`.
fn face_flux(face: &Polygon, work: &mut Polygon, spare: &mut Polygon) -> f64 {
    let n = clip(face, 4, work, 0, -1.0, true);
    let n = clip(work, n, spare, 0, 1.0, false);
    let n = clip(spare, n, work, 1, -1.0, true);
    let n = clip(work, n, spare, 1, 1.0, false);
    if n < 3 {
        return 0.0;
    }
    let mut total = -signed_area(spare, n);
    let m = clip(spare, n, work, 2, -1.0, true);
    if m >= 3 {
        total += linear_integral(work, m, -1.0);
    }
    let m = clip(spare, n, work, 2, 1.0, true);
    if m >= 3 {
        total -= linear_integral(work, m, 1.0);
    }
    total
}

/// The volume of `o` inside `f` by the divergence theorem, in the frame scaled to make `f` the cube `[-1, 1]³`.
fn flux_volume(frame: &Frame) -> f64 {
    let Frame { t, rel, half_f, half_o } = frame;
    let (mut face, mut work, mut spare) =
        ([[0.0; 3]; MAX_VERTICES], [[0.0; 3]; MAX_VERTICES], [[0.0; 3]; MAX_VERTICES]);
    let mut axes = [[0.0; 3]; 3]; // axes[j] = o's half axis j, scaled
    let mut centre = [0.0; 3];
    for k in 0..3 {
        centre[k] = t[k] / half_f[k];
        for j in 0..3 {
            axes[j][k] = rel[k][j] * half_o[j] / half_f[k];
        }
    }
    // The faces below are outward and counter-clockwise for a right-handed (u, v, w); the sign fixes the others.
    let det = axes[0][0] * (axes[1][1] * axes[2][2] - axes[1][2] * axes[2][1])
        - axes[0][1] * (axes[1][0] * axes[2][2] - axes[1][2] * axes[2][0])
        + axes[0][2] * (axes[1][0] * axes[2][1] - axes[1][1] * axes[2][0]);
    let mut total = 0.0;
    for j in 0..3 {
        let (p, q) = ((j + 1) % 3, (j + 2) % 3);
        for side in [1.0, -1.0] {
            // Corners centre + side·w ∓ u ∓ v around the face (u = axis p, v = axis q), reversed on the far side.
            for corner in 0..4 {
                let su = if corner == 0 || corner == 3 { -1.0 } else { 1.0 };
                let sv = if corner < 2 { -1.0 } else { 1.0 };
                let row = if side > 0.0 { corner } else { 3 - corner };
                for c in 0..3 {
                    face[row][c] = centre[c] + side * axes[j][c] + su * axes[p][c] + sv * axes[q][c];
                }
            }
            total += face_flux(&face, &mut work, &mut spare);
        }
    }
    if det < 0.0 {
        total = -total;
    }
    total * ((half_f[0] * half_f[1]) * half_f[2])
}

/// The volume of the intersection of two oriented boxes.
///
/// In `[0, min(volume_a, volume_b)]`, exactly the smaller volume when a box is inside the other,
/// exactly 0 when the bounds do not overlap with positive volume; the same bits for `(b, a)`; NaN
/// when a number is NaN.
pub(super) fn oriented_volume(a: &Box15, b: &Box15) -> f64 {
    if any_nan(a, b) {
        return f64::NAN;
    }
    let (volume_a, volume_b) = ((a[3] * a[4]) * a[5], (b[3] * b[4]) * b[5]);
    if !(volume_a > 0.0 && volume_b > 0.0) || bounds_apart(a, b) {
        return 0.0;
    }
    let smaller = min(volume_a, volume_b);
    // The frame box: the smaller one (its cube bounds the error), the canonical first of equal volumes.
    let (f, o) = if volume_b < volume_a || (volume_b == volume_a && comes_before(b, a)) { (b, a) } else { (a, b) };
    let frame = pair_in_frame(f, o);
    if contained(&frame) {
        return smaller;
    }
    let volume = match shared_axis(&frame.rel) {
        (_, 3) => {
            let mut volume = 1.0;
            for k in 0..3 {
                for j in 0..3 {
                    if frame.rel[k][j] != 0.0 {
                        volume *= overlap_length(frame.t[k], frame.half_o[j], frame.half_f[k]);
                    }
                }
            }
            volume
        }
        (Some((k, j)), _) => prism_volume(&frame, k, j),
        _ => flux_volume(&frame),
    };
    if !(volume > 0.0) {
        return 0.0;
    }
    min(volume, smaller) + 0.0
}
