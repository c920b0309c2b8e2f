use super::frame::Box15;
use super::hull3d::{POINTS, hull_volume, points_hull_volume};
use super::oriented::oriented_volume;
use super::yaw::{Yaw, turned, yaw_prism_volume};

/// An oriented box with the rotation `rotation` (row by row).
fn oriented(centre: [f64; 3], sizes: [f64; 3], rotation: [f64; 9]) -> Box15 {
    let mut numbers = [0.0; 15];
    numbers[..3].copy_from_slice(&centre);
    numbers[3..6].copy_from_slice(&sizes);
    numbers[6..].copy_from_slice(&rotation);
    numbers
}

const IDENTITY: [f64; 9] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

/// A rotation by `degrees` about the axis (1, 1, 1) / √3: no axis shared with the identity.
fn tilted(degrees: f64) -> [f64; 9] {
    let (c, s) = (degrees.to_radians().cos(), degrees.to_radians().sin());
    let (t, u) = (1.0 - c, 1.0 / 3f64.sqrt());
    let (x, y, z) = (u, u, u);
    [
        t * x * x + c,
        t * x * y - s * z,
        t * x * z + s * y,
        t * x * y + s * z,
        t * y * y + c,
        t * y * z - s * x,
        t * x * z - s * y,
        t * y * z + s * x,
        t * z * z + c,
    ]
}

/// Both measures of `(a, b)`, checked to have the bits of `(b, a)`.
fn both(a: &Box15, b: &Box15) -> (f64, f64) {
    let (volume, hull) = (oriented_volume(a, b), hull_volume(a, b));
    assert_eq!(volume.to_bits(), oriented_volume(b, a).to_bits());
    assert_eq!(hull.to_bits(), hull_volume(b, a).to_bits());
    (volume, hull)
}

#[test]
fn identical_and_nested_boxes_give_exact_volumes_at_any_offset() {
    for offset in [0.0, 1e6, 1e9, 1e15] {
        let outer = oriented([offset, -offset, 0.5], [4.0, 3.0, 2.0], tilted(30.0));
        assert_eq!(both(&outer, &outer), (24.0, 24.0));
        let inner = oriented([offset, -offset, 0.5], [1.0, 0.5, 0.25], tilted(-70.0));
        assert_eq!(both(&outer, &inner), (0.125, 24.0));
    }
}

#[test]
fn aligned_boxes_multiply_three_overlaps() {
    // Unit cubes offset by (0.5, 0.25, 0): the shared axes give the exact closed form.
    let (a, b) = (oriented([0.0; 3], [1.0; 3], IDENTITY), oriented([0.5, 0.25, 0.0], [1.0; 3], IDENTITY));
    // The hull: the box 1.5 x 1.25 x 1 less two prisms of 0.5 · 0.25 / 2 x 1 at the corners it skips.
    assert_eq!(both(&a, &b), (0.5 * 0.75, 1.5 * 1.25 - 0.125));
    // A quarter turn about z swaps the sides: still exact.
    let quarter = [0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    let bar = oriented([0.0; 3], [4.0, 1.0, 1.0], IDENTITY);
    assert_eq!(oriented_volume(&bar, &oriented([0.0; 3], [4.0, 1.0, 1.0], quarter)), 1.0);
}

#[test]
fn disjoint_touching_and_flat_boxes_share_positive_zero() {
    let a = oriented([0.0; 3], [1.0; 3], IDENTITY);
    for b in [
        oriented([10.0, 0.0, 0.0], [1.0; 3], tilted(10.0)), // far apart
        oriented([1.0, 0.0, 0.0], [1.0; 3], IDENTITY),      // a shared face
        oriented([1.0, 1.0, 1.0], [1.0; 3], IDENTITY),      // a shared corner
        oriented([0.0; 3], [1.0, 0.0, 1.0], tilted(20.0)),  // flat
    ] {
        assert_eq!(both(&a, &b).0.to_bits(), 0.0f64.to_bits(), "{b:?}");
    }
    // Two flat boxes in one plane: their hull has no volume, so it is the larger volume, 0.
    let (flat_a, flat_b) =
        (oriented([0.0; 3], [1.0, 1.0, 0.0], IDENTITY), oriented([3.0, 0.0, 0.0], [1.0, 2.0, 0.0], IDENTITY));
    assert_eq!(both(&flat_a, &flat_b), (0.0, 0.0));
}

#[test]
fn general_pairs_agree_with_their_bounds() {
    // A cube and the same cube turned about (1, 1, 1): the intersection is inside both, the hull holds both.
    let a = oriented([0.0; 3], [2.0; 3], IDENTITY);
    let b = oriented([0.3, -0.2, 0.1], [2.0; 3], tilted(40.0));
    let (volume, hull) = both(&a, &b);
    assert!(volume > 4.0 && volume < 8.0, "{volume}");
    assert!(hull > 8.0 && hull < 27.0, "{hull}");
    // Far from the origin the pair keeps its digits.
    let shift = |box_: &Box15| {
        let mut moved = *box_;
        (moved[0], moved[1]) = (moved[0] + 1e9, moved[1] - 1e9);
        moved
    };
    let (far_volume, far_hull) = both(&shift(&a), &shift(&b));
    assert!((far_volume / volume - 1.0).abs() < 1e-6 && (far_hull / hull - 1.0).abs() < 1e-6);
}

#[test]
fn nan_and_opposite_infinities_give_nan() {
    let a = oriented([0.0; 3], [1.0; 3], IDENTITY);
    let mut b = a;
    b[7] = f64::NAN;
    assert!(oriented_volume(&a, &b).is_nan() && hull_volume(&b, &a).is_nan());
    let (mut plus, mut minus) = (a, a);
    (plus[0], minus[0]) = (f64::INFINITY, f64::NEG_INFINITY);
    assert!(oriented_volume(&plus, &minus).is_nan());
    let yaw: Yaw = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, f64::NAN];
    assert!(yaw_prism_volume(&yaw, &[0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0]).is_nan());
}

#[test]
fn yaw_boxes_are_prisms_and_their_turns_are_exact() {
    let a: Yaw = [0.0, 0.0, 0.0, 2.0, 2.0, 2.0, 0.0];
    // Half the height above, a quarter turn on: the footprint is the whole square.
    let b: Yaw = [0.0, 0.0, 1.0, 2.0, 2.0, 2.0, 90.0];
    assert_eq!(yaw_prism_volume(&a, &b), 4.0);
    assert_eq!(yaw_prism_volume(&b, &a), 4.0);
    // Touching tops and bottoms: +0.
    let above: Yaw = [0.0, 0.0, 2.0, 2.0, 2.0, 2.0, 17.0];
    assert_eq!(yaw_prism_volume(&a, &above).to_bits(), 0.0f64.to_bits());
    // The oriented box of a quarter turn about z is a signed permutation, exactly.
    assert_eq!(turned(&b)[6..], [0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
    assert_eq!(hull_volume(&turned(&a), &turned(&b)), 12.0);
}

#[test]
fn the_hull_of_a_cube_and_a_point_adds_a_pyramid() {
    let mut points = [[0.0; 3]; POINTS];
    for (corner, point) in points.iter_mut().enumerate().take(8) {
        *point = [(corner & 4) as f64 / 4.0, (corner & 2) as f64 / 2.0, (corner & 1) as f64];
    }
    // Corners repeated, and an apex 3 above the top face's centre: 1 + 1 · 3 / 3.
    for k in 8..POINTS - 1 {
        points[k] = points[k - 8];
    }
    points[POINTS - 1] = [0.5, 0.5, 4.0];
    assert!((points_hull_volume(&points) - 2.0).abs() < 1e-15);
}
