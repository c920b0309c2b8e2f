use super::*;

fn flat(points: &[(f64, f64)]) -> Vec<f64> {
    points.iter().flat_map(|&(x, y)| [x, y]).collect()
}

const SQUARE: [(f64, f64); 4] = [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)];

#[test]
fn simple_rings_are_proven_and_others_are_left_to_geos() {
    assert!(is_simple(&flat(&SQUARE)));
    let reversed: Vec<(f64, f64)> = SQUARE.iter().rev().copied().collect();
    assert!(is_simple(&flat(&reversed)));
    assert!(!is_simple(&flat(&[(0.0, 0.0), (2.0, 2.0), (2.0, 0.0), (0.0, 2.0)]))); // a bow-tie
    assert!(!is_simple(&flat(&[(0.0, 0.0), (1.0, 0.0), (1.0, 0.0), (0.0, 1.0)]))); // a repeated vertex
    assert!(!is_simple(&flat(&[(0.0, 0.0), (2.0, 0.0), (1.0, 0.0), (1.0, 1.0)]))); // folding back
    assert!(!is_simple(&flat(&[(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (2.0, 0.0), (0.0, 4.0)]))); // touching
    let circle: Vec<(f64, f64)> = (0..=MOST_VERTICES)
        .map(|k| {
            let theta = k as f64 * (2.0 * std::f64::consts::PI / (MOST_VERTICES + 1) as f64);
            (theta.cos(), theta.sin())
        })
        .collect();
    assert!(!is_simple(&flat(&circle))); // too many vertices: GEOS decides
    assert!(is_simple(&flat(&circle[..MOST_VERTICES])));
}

#[test]
fn orientation_is_certain_or_zero() {
    let points = flat(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (2.0, 0.0), (f64::NAN, 0.0)]);
    assert_eq!(orientation(&points, 0, 1, 2), 1);
    assert_eq!(orientation(&points, 0, 2, 1), -1);
    assert_eq!(orientation(&points, 0, 1, 3), 0); // collinear
    assert_eq!(orientation(&points, 0, 1, 4), 0); // NaN
    // Far from the origin, a turn of one unit in the last place is below the error bound: not decided.
    let far = flat(&[(1e15, 1e15), (1e15 + 1.0, 1e15), (1e15 + 2.0, 1e15 + 0.125)]);
    assert_eq!(orientation(&far, 0, 1, 2), 1);
    let tiny = flat(&[(0.0, 0.0), (1e-300, 0.0), (0.0, 1e-300)]);
    assert_eq!(orientation(&tiny, 0, 1, 2), 0); // products underflow
}

#[test]
fn a_ring_is_closed_once_with_its_signed_area() {
    let open = close_ring(&flat(&[(0.0, 0.0), (2.0, 0.0), (0.0, -3.0)]));
    assert_eq!(open.coords, flat(&[(0.0, 0.0), (2.0, 0.0), (0.0, -3.0), (0.0, 0.0)]));
    assert_eq!((open.signed_area, open.largest, open.simple), (-3.0, 3.0, true));
    let again = close_ring(&open.coords);
    assert_eq!(again, open);
    let not_finite = close_ring(&flat(&[(0.0, 0.0), (f64::NAN, 0.0), (0.0, 1.0)]));
    assert_eq!((not_finite.largest, not_finite.simple), (f64::INFINITY, false));
}

fn hulls_of(rings: &[(Vec<(f64, f64)>, bool)], geometry_offsets: &[i64]) -> Option<(Vec<f64>, Vec<i64>)> {
    let mut coords = vec![];
    let mut ring_offsets = vec![0];
    for (ring, _) in rings {
        coords.extend(flat(ring));
        coords.extend(flat(&ring[..1]));
        ring_offsets.push((coords.len() / 2) as i64);
    }
    let part_offsets: Vec<i64> = {
        let mut parts = vec![0];
        for (k, (_, exterior)) in rings.iter().enumerate().skip(1) {
            if *exterior {
                parts.push(k as i64);
            }
        }
        parts.push(rings.len() as i64);
        parts
    };
    let layout = Layout { coords: &coords, ring_offsets: &ring_offsets, part_offsets: &part_offsets, geometry_offsets };
    exterior_hulls_of(&layout)
}

#[test]
fn hulls_keep_the_extreme_points_counter_clockwise() {
    // A square with a notch (a reflex vertex) and a hole: the hull is the square's corners.
    let notched = vec![(0.0, 0.0), (2.0, 0.0), (1.0, 1.0), (2.0, 2.0), (0.0, 2.0)];
    let hole = vec![(0.5, 0.5), (0.5, 0.7), (0.7, 0.5)];
    let (hulls, offsets) = hulls_of(&[(notched, true), (hole, false)], &[0, 1]).expect("certain");
    assert_eq!(hulls, flat(&SQUARE));
    assert_eq!(offsets, [0, 4]);
    // Two parts touching at a corner: one hull, the repeated point once.
    let (hulls, offsets) =
        hulls_of(&[(SQUARE.to_vec(), true), (vec![(2.0, 2.0), (3.0, 2.0), (3.0, 3.0)], true)], &[0, 2])
            .expect("certain");
    assert_eq!(hulls, flat(&[(0.0, 0.0), (2.0, 0.0), (3.0, 2.0), (3.0, 3.0), (0.0, 2.0)]));
    assert_eq!(offsets, [0, 5]);
}

#[test]
fn uncertain_turns_and_large_polygons_give_no_hulls() {
    // A vertex on the line of two others: its turn is 0, not certain.
    assert!(hulls_of(&[(vec![(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (1.0, 1.0)], true)], &[0, 1]).is_none());
    let circle: Vec<(f64, f64)> = (0..=MOST_POINTS)
        .map(|k| {
            let theta = k as f64 * (2.0 * std::f64::consts::PI / (MOST_POINTS + 1) as f64);
            (theta.cos(), theta.sin())
        })
        .collect();
    assert!(hulls_of(&[(circle.clone(), true)], &[0, 1]).is_none());
    assert!(hulls_of(&[(circle[..MOST_POINTS].to_vec(), true)], &[0, 1]).is_some());
    assert!(hulls_of(&[(vec![(0.0, 0.0), (f64::NAN, 0.0), (1.0, 1.0)], true)], &[0, 1]).is_none());
    // An empty geometry has an empty hull.
    assert_eq!(hulls_of(&[(SQUARE.to_vec(), true)], &[0, 0, 1]).expect("certain").1, [0, 0, 4]);
}
