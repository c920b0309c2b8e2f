//! Boxes turned about z (`RotatedBox3D`): their intersection is a prism.
//!
//! The overlap of the footprints (the rotated-box kernel's `intersection_area`, exact) times the
//! overlap of the vertical extents (measured from the difference of the centres, the pair in
//! canonical order). Their hull is that of the oriented boxes of their turns about z.

use super::frame::Box15;
use crate::angles::unit_vector;
use crate::numeric::{max, min};
use crate::rotated::{RotatedBox, intersection_area};

/// A yaw box: `cx, cy, cz, dx, dy, dz, yaw` (degrees).
pub(super) type Yaw = [f64; 7];

/// The length shared by `a_z ± a_dz/2` and `b_z ± b_dz/2`, from the difference of the centres.
///
/// The pair is taken in a canonical order (by centre, then size), so swapping it gives the same bits.
#[inline(always)]
fn vertical_overlap(a_z: f64, a_dz: f64, b_z: f64, b_dz: f64) -> f64 {
    let ((a_z, a_dz), (b_z, b_dz)) =
        if b_z < a_z || (b_z == a_z && b_dz < a_dz) { ((b_z, b_dz), (a_z, a_dz)) } else { ((a_z, a_dz), (b_z, b_dz)) };
    let offset = b_z - a_z;
    let (a_half, b_half) = (0.5 * a_dz, 0.5 * b_dz);
    max(min(a_half, offset + b_half) - max(-a_half, offset - b_half), 0.0)
}

/// The footprint of a yaw box: `cx, cy, dx, dy, yaw`.
#[inline(always)]
fn footprint(a: &Yaw) -> RotatedBox {
    RotatedBox { cx: a[0], cy: a[1], w: a[3], h: a[4], angle: a[6] }
}

/// The volume shared by two yaw boxes: a prism's.
///
/// In `[0, min(volumes)]`, exactly the smaller volume for a box inside the other (so a box has IoU 1
/// with itself); the same bits for `(b, a)`; NaN when a number is NaN.
#[inline(always)]
pub(super) fn yaw_prism_volume(a: &Yaw, b: &Yaw) -> f64 {
    let height = vertical_overlap(a[2], a[5], b[2], b[5]);
    let sum = height + a[0] + a[1] + a[3] + a[4] + a[6] + b[0] + b[1] + b[3] + b[4] + b[6];
    if sum.is_nan() {
        return f64::NAN;
    }
    if !(height > 0.0) {
        return 0.0;
    }
    intersection_area(footprint(a), footprint(b)) * height + 0.0
}

/// A yaw box as an oriented one: its rotation about z (exact at quarter turns).
#[inline(always)]
pub(super) fn turned(a: &Yaw) -> Box15 {
    let (cos, sin) = unit_vector(a[6]);
    [a[0], a[1], a[2], a[3], a[4], a[5], cos, -sin, 0.0, sin, cos, 0.0, 0.0, 0.0, 1.0]
}
