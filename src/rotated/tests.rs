use super::hull::hull_area;
use super::*;

fn rect(cx: f64, cy: f64, w: f64, h: f64, angle: f64) -> RotatedBox {
    RotatedBox { cx, cy, w, h, angle }
}

/// Both measures of `(a, b)`, checked to have the bits of `(b, a)`.
fn both(a: RotatedBox, b: RotatedBox) -> (f64, f64) {
    let (inter, hull) = (intersection_area(a, b), hull_area(a, b));
    assert_eq!(inter.to_bits(), intersection_area(b, a).to_bits(), "{a:?} {b:?}");
    assert_eq!(hull.to_bits(), hull_area(b, a).to_bits(), "{a:?} {b:?}");
    (inter, hull)
}

#[test]
fn golden_pairs() {
    let square = rect(0.5, 0.5, 1.0, 1.0, 0.0);
    assert_eq!(both(square, rect(1.0, 0.5, 1.0, 1.0, 0.0)), (0.5, 1.5));
    // The square turned 45 degrees about its centre: the regular octagon of area 2 (sqrt 2 - 1).
    let (octagon, _) = both(square, rect(0.5, 0.5, 1.0, 1.0, 45.0));
    assert!((octagon - 2.0 * (2f64.sqrt() - 1.0)).abs() < 1e-15);
    // A 4 x 1 bar and its quarter turn cross in the 1 x 1 square.
    assert_eq!(both(rect(0.0, 0.0, 4.0, 1.0, 0.0), rect(0.0, 0.0, 4.0, 1.0, 90.0)).0, 1.0);
    // Two unit squares two apart: the hull is the 1 x 3 rectangle.
    assert_eq!(both(square, rect(2.5, 0.5, 1.0, 1.0, 0.0)), (0.0, 3.0));
}

#[test]
fn identical_and_nested_boxes_give_exact_areas_at_any_offset() {
    for offset in [0.0, 1e6, 1e9, 1e15] {
        let outer = rect(offset + 0.25, -offset, 4.0, 2.5, 30.0);
        assert_eq!(both(outer, outer), (10.0, 10.0));
        // The same rectangle, sides swapped and a quarter turn on.
        let twin = rect(offset + 0.25, -offset, 2.5, 4.0, 120.0);
        assert_eq!(both(outer, twin), (10.0, 10.0));
        let inner = rect(offset + 0.25, -offset, 1.0, 0.5, 47.0);
        assert_eq!(both(outer, inner), (0.5, 10.0));
    }
}

#[test]
fn disjoint_touching_and_empty_boxes_share_positive_zero() {
    let a = rect(0.5, 0.5, 1.0, 1.0, 0.0);
    for b in [
        rect(100.0, 0.0, 1.0, 1.0, 0.0),  // far apart
        rect(1.5, 0.5, 1.0, 1.0, 0.0),    // a shared edge
        rect(1.5, 1.5, 1.0, 1.0, 90.0),   // a shared corner
        rect(0.5, 0.5, 0.0, 2.0, 10.0),   // no width
        rect(1.5, 0.5, 1.0, 1.0, 180.0),  // a shared edge, half a turn on
        rect(1e15, 1e15, 1.0, 1.0, 33.0), // far away, turned
    ] {
        assert_eq!(both(a, b).0.to_bits(), 0.0f64.to_bits(), "{b:?}");
    }
    // The hull of a box and a point beside it: the triangle it adds.
    let (_, hull) = both(a, rect(2.0, 0.5, 0.0, 0.0, 0.0));
    assert_eq!(hull, 1.5);
}

#[test]
fn nan_and_opposite_infinities_give_nan() {
    let a = rect(0.0, 0.0, 1.0, 1.0, 0.0);
    for b in [rect(0.0, 0.0, 1.0, 1.0, f64::NAN), rect(f64::NAN, 0.0, 1.0, 1.0, 0.0)] {
        let (inter, hull) = (intersection_area(a, b), hull_area(b, a));
        assert!(inter.is_nan() && hull.is_nan());
    }
    let (plus, minus) = (rect(f64::INFINITY, 0.0, 1.0, 1.0, 0.0), rect(f64::NEG_INFINITY, 0.0, 1.0, 1.0, 0.0));
    assert!(intersection_area(plus, minus).is_nan() && hull_area(plus, minus).is_nan());
}

#[test]
fn boxes_whose_frame_overflows_are_measured_in_the_other_frame() {
    // A box 1e-310 wide scaled by the other's 1e-300: the frame of the smaller overflows.
    let (tiny, big) = (rect(0.0, 0.0, 1e-310, 1.0, 10.0), rect(0.0, 0.0, 1.0, 1.0, 20.0));
    let (inter, hull) = both(tiny, big);
    assert!((0.0..=1e-310).contains(&inter));
    assert!(hull >= 1.0);
    // Hull products near 2**512 overflow: the walk runs on lengths scaled down, exact.
    // Squares of side s = 1e150 d = 1e155 apart along the diagonal: a hull of area 2 d s + s².
    let (a, b) = (rect(0.0, 0.0, 1e150, 1e150, 0.0), rect(1e155, 1e155, 1e150, 1e150, 0.0));
    let hull = both(a, b).1;
    assert!((hull / 2.00001e305 - 1.0).abs() < 1e-12, "{hull}");
}

#[test]
fn local_area_of_parallel_boxes_is_the_closed_form() {
    // b 1 x 3 at (0.5, 0) turned 90 degrees in the frame of a 2 x 2: x in [-1, 2], y in [-0.5, 0.5].
    let p = Local { x: 0.5, y: 0.0, cos: 0.0, sin: 1.0, a_hw: 1.0, a_hh: 1.0, b_hw: 0.5, b_hh: 1.5 };
    assert_eq!(local_area(p, 3.0), 2.0 * 1.0);
}

#[test]
fn unit_vectors_from_the_table_are_those_of_the_angles() {
    let angles = [0.0, 90.0, -1e-10, 30.0, 1e15, f64::NAN];
    let table = unit_vectors(angles.len(), |i| angles[i]);
    for (k, angle) in angles.iter().enumerate() {
        let (cos, sin) = unit_vector(*angle);
        assert_eq!((table[2 * k].to_bits(), table[2 * k + 1].to_bits()), (cos.to_bits(), sin.to_bits()));
    }
    // A pair measured with tabled unit vectors has the bits of one that computes them.
    let (a, b) = (rect(0.0, 0.0, 2.0, 1.0, 30.0), rect(0.3, 0.2, 1.5, 1.0, -17.0));
    let none = (f64::NAN, f64::NAN);
    for hull in [false, true] {
        let tabled = measure(hull, a, unit_vector(30.0), b, unit_vector(-17.0));
        assert_eq!(tabled.to_bits(), measure(hull, a, none, b, none).to_bits());
    }
}
