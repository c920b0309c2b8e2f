//! Directions: a rotated box's unit vector from its angle in degrees, and the pseudo-angle that
//! orders directions without a trigonometric function.

use crate::numeric::{max, min, rint};

/// One turn in pseudo-angle units (see `pseudo_angle`).
pub const TURN: f64 = 4.0;

/// `cos, sin` of `angle` (degrees), exact at multiples of 90 degrees.
///
/// The operations of `geoiou.regions.rotated_box.unit_vectors`, so the kernels' frames and bounds
/// are those of the regions' corners: the quarter turns are applied exactly and only the residual
/// in [-45, 45] goes through cos and sin (`angle - 90 * turns` is exact by Sterbenz's lemma).
#[inline]
pub fn unit_vector(angle: f64) -> (f64, f64) {
    let turns = rint(angle / 90.0);
    let residual = (angle - 90.0 * turns) * (std::f64::consts::PI / 180.0);
    let quarter = turns - 4.0 * (0.25 * turns).floor(); // turns mod 4
    let quarter_cos = max(1.0 - quarter, quarter - 3.0);
    let quarter_sin = min(quarter, 2.0 - quarter);
    let (cos, sin) = (residual.cos(), residual.sin());
    // R(90 * quarter) R(residual): one product of each sum is a signed zero, so the sums are exact.
    (quarter_cos * cos - quarter_sin * sin, quarter_sin * cos + quarter_cos * sin)
}

/// A cheap stand-in for the angle of `(x, y) != (0, 0)`: increasing counter-clockwise from 0 on +x
/// to `TURN`.
#[inline(always)]
pub fn pseudo_angle(x: f64, y: f64) -> f64 {
    let r = x / (x.abs() + y.abs());
    if y >= 0.0 { 1.0 - r } else { 3.0 + r }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarter_turns_are_exact() {
        assert_eq!(unit_vector(0.0), (1.0, 0.0));
        assert_eq!(unit_vector(90.0), (0.0, 1.0));
        assert_eq!(unit_vector(180.0), (-1.0, 0.0));
        assert_eq!(unit_vector(-90.0), (0.0, -1.0));
        assert_eq!(unit_vector(450.0), (0.0, 1.0));
    }

    #[test]
    fn small_angles_keep_their_precision() {
        let (cos, sin) = unit_vector(-1e-10);
        assert_eq!(cos, 1.0);
        assert_eq!(sin, (-1e-10f64).to_radians());
        // A quarter turn on is applied exactly: (cos, sin) of 90.25° is (-sin, cos) of 0.25°.
        let residual = 0.25 * (std::f64::consts::PI / 180.0);
        assert_eq!(unit_vector(90.25), (-residual.sin(), residual.cos()));
    }

    #[test]
    fn pseudo_angles_of_the_axes() {
        let angles = [pseudo_angle(1.0, 0.0), pseudo_angle(0.0, 1.0), pseudo_angle(-1.0, 0.0), pseudo_angle(0.0, -1.0)];
        assert_eq!(angles, [0.0, 1.0, 2.0, 3.0]);
        assert!(pseudo_angle(1.0, 1.0) < pseudo_angle(-1.0, 1.0));
    }
}
