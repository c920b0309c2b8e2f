use super::overlap::{SORTED_CELLS, cells_by_angle, every_cell};
use super::pair::{
    RotatedFrame, Scratch, box_polygon_pair, fans_of, geometry_bounds, polygon_pair, rotated_polygon_pair,
};
use super::*;

/// A ring's vertices (not closed), a part's rings (exterior first), a polygon's parts.
type Ring = Vec<(f64, f64)>;
type Polygon = Vec<Vec<Ring>>;

/// A store's arrays built from polygons given as parts of rings (each ring closed here).
struct Owned {
    coords: Vec<f64>,
    ring_offsets: Vec<i64>,
    part_offsets: Vec<i64>,
    geometry_offsets: Vec<i64>,
    area: Vec<f64>,
}

impl Owned {
    fn of(polygons: &[Polygon]) -> Owned {
        let mut owned = Owned {
            coords: vec![],
            ring_offsets: vec![0],
            part_offsets: vec![0],
            geometry_offsets: vec![0],
            area: vec![],
        };
        for polygon in polygons {
            let mut area = 0.0;
            for part in polygon {
                for (r, ring) in part.iter().enumerate() {
                    let closed: Vec<(f64, f64)> = ring.iter().chain(ring.first()).copied().collect();
                    let (x0, y0) = closed[0];
                    let twice: f64 =
                        closed.windows(2).map(|w| (w[0].0 - x0) * (w[1].1 - y0) - (w[1].0 - x0) * (w[0].1 - y0)).sum();
                    area += if r == 0 { twice.abs() / 2.0 } else { -twice.abs() / 2.0 };
                    owned.coords.extend(closed.iter().flat_map(|&(x, y)| [x, y]));
                    owned.ring_offsets.push((owned.coords.len() / 2) as i64);
                }
                owned.part_offsets.push((owned.ring_offsets.len() - 1) as i64);
            }
            owned.geometry_offsets.push((owned.part_offsets.len() - 1) as i64);
            owned.area.push(area);
        }
        owned
    }

    fn store(&self) -> Store<'_> {
        Store {
            coords: &self.coords,
            ring_offsets: &self.ring_offsets,
            part_offsets: &self.part_offsets,
            geometry_offsets: &self.geometry_offsets,
            area: &self.area,
        }
    }
}

fn square(x: f64, y: f64, side: f64) -> Vec<(f64, f64)> {
    vec![(x, y), (x + side, y), (x + side, y + side), (x, y + side)]
}

fn simple(ring: Ring) -> Polygon {
    vec![vec![ring]]
}

/// The shared area of polygons 0 and 1 of `polygons`, checked to be the same bits in both orders.
fn shared(polygons: &[Polygon]) -> f64 {
    let owned = Owned::of(polygons);
    let store = owned.store();
    let (bounds_a, bounds_b) = (geometry_bounds(&store, 0), geometry_bounds(&store, 1));
    let mut scratch = Scratch::default();
    let ab = polygon_pair(&mut scratch, (&store, 0, &bounds_a), (&store, 1, &bounds_b));
    let ba = polygon_pair(&mut scratch, (&store, 1, &bounds_b), (&store, 0, &bounds_a));
    assert_eq!(ab.to_bits(), ba.to_bits(), "the canonical order: the same bits");
    ab
}

/// A star of `n` vertices around (x, y), radii alternating between r and r / 2.
fn star(n: usize, x: f64, y: f64, r: f64) -> Vec<(f64, f64)> {
    (0..n)
        .map(|k| {
            let theta = k as f64 * (2.0 * std::f64::consts::PI / n as f64);
            let radius = if k % 2 == 0 { r } else { r / 2.0 };
            (x + radius * theta.cos(), y + radius * theta.sin())
        })
        .collect()
}

#[test]
fn overlapping_squares_share_their_common_rectangle() {
    assert_eq!(shared(&[simple(square(0.0, 0.0, 1.0)), simple(square(0.5, 0.0, 1.0))]), 0.5);
    assert_eq!(shared(&[simple(square(0.0, 0.0, 2.0)), simple(square(1.0, 1.0, 2.0))]), 1.0);
}

#[test]
fn identical_and_nested_polygons_share_exactly_the_smaller_area() {
    let star = star(24, 0.3, -0.2, 5.0);
    let owned = Owned::of(&[simple(star.clone())]);
    assert_eq!(shared(&[simple(star.clone()), simple(star)]), owned.area[0]);
    assert_eq!(shared(&[simple(square(0.0, 0.0, 4.0)), simple(square(1.0, 1.0, 1.0))]), 1.0);
}

#[test]
fn touching_and_disjoint_polygons_share_exactly_zero() {
    let zero = shared(&[simple(square(0.0, 0.0, 1.0)), simple(square(1.0, 0.0, 1.0))]);
    assert_eq!(zero.to_bits(), 0.0f64.to_bits());
    assert_eq!(shared(&[simple(square(0.0, 0.0, 1.0)), simple(square(1.0, 1.0, 1.0))]), 0.0); // a corner
    assert_eq!(shared(&[simple(square(0.0, 0.0, 1.0)), simple(square(3.0, 0.0, 1.0))]), 0.0);
}

#[test]
fn holes_and_parts_count_with_their_signs() {
    // [0, 4]² with the hole [1, 3]², against [2, 6] × [0, 4]: the right half minus half the hole.
    let with_hole = vec![vec![square(0.0, 0.0, 4.0), square(1.0, 1.0, 2.0).into_iter().rev().collect()]];
    assert_eq!(shared(&[with_hole.clone(), simple(vec![(2.0, 0.0), (6.0, 0.0), (6.0, 4.0), (2.0, 4.0)])]), 6.0);
    // A hole given counter-clockwise removes area all the same.
    let same_direction = vec![vec![square(0.0, 0.0, 4.0), square(1.0, 1.0, 2.0)]];
    assert_eq!(shared(&[same_direction, simple(square(0.0, 0.0, 4.0))]), 12.0);
    // Two parts, each half inside the square [1, 3]²: 1 + 1.
    let two_parts = vec![vec![square(0.0, 0.0, 2.0)], vec![square(2.0, 2.0, 2.0)]];
    assert_eq!(shared(&[two_parts, simple(square(1.0, 1.0, 2.0))]), 2.0);
}

#[test]
fn far_offsets_keep_the_result() {
    for offset in [1e6, 2f64.powi(40), 1e15] {
        let moved = shared(&[simple(square(offset, offset, 1.0)), simple(square(offset + 0.5, offset, 1.0))]);
        assert_eq!(moved, 0.5);
    }
    let tiny = 2f64.powi(-1000);
    assert_eq!(shared(&[simple(square(0.0, 0.0, tiny)), simple(square(0.5 * tiny, 0.0, tiny))]), 0.5 * tiny * tiny);
}

#[test]
fn empty_and_nan_polygons_share_nothing() {
    let owned = Owned {
        coords: vec![],
        ring_offsets: vec![0],
        part_offsets: vec![0],
        geometry_offsets: vec![0, 0],
        area: vec![0.0],
    };
    let bounds = geometry_bounds(&owned.store(), 0);
    assert!(bounds.iter().all(|v| v.is_nan()));
    let nan = shared(&[simple(square(f64::NAN, 0.0, 1.0)), simple(square(0.0, 0.0, 1.0))]);
    assert_eq!(nan, 0.0);
}

#[test]
fn the_walks_by_angle_keep_the_pairs_of_the_full_test() {
    // Stars of many vertices, one turned a quarter and moved: shared vertices, tied angles.
    let a = star(400, 0.0, 0.0, 10.0);
    let b: Vec<(f64, f64)> = a.iter().map(|&(x, y)| (-y + 1.0, x)).collect();
    let owned = Owned::of(&[simple(a.clone()), simple(b), simple(a)]);
    let store = owned.store();
    for other in [1, 2] {
        let (fan_a, fan_b) = fans_of(&store, 0, &store, other);
        assert!(fan_a.len() * fan_b.len() > SORTED_CELLS);
        let (every, walked) = (every_cell(&fan_a, &fan_b), cells_by_angle(&fan_a, &fan_b));
        assert!((walked.magnitude - every.magnitude).abs() <= 1e-13 * every.magnitude);
        let difference = (walked.total + walked.compensation) - (every.total + every.compensation);
        assert!(difference.abs() <= 1e-13 * every.magnitude);
    }
}

#[test]
fn boxes_against_polygons() {
    let owned = Owned::of(&[simple(square(0.0, 0.0, 5.0))]);
    let store = owned.store();
    let bounds = geometry_bounds(&store, 0);
    let mut scratch = Scratch::default();
    assert_eq!(box_polygon_pair(&mut scratch, &[1.0, 1.0, 2.0, 3.0], &store, 0, &bounds), 2.0);
    assert_eq!(box_polygon_pair(&mut scratch, &[5.0, 1.0, 6.0, 3.0], &store, 0, &bounds), 0.0);
    let turned = RotatedFrame::of(1.5, 2.0, 1.0, 2.0, 90.0);
    assert_eq!(rotated_polygon_pair(&mut scratch, &turned, &store, 0, &bounds), 2.0);
    let corner = RotatedFrame::of(0.0, 0.0, 2.0, 2.0, 0.0);
    assert_eq!(rotated_polygon_pair(&mut scratch, &corner, &store, 0, &bounds), 1.0);
    let far = RotatedFrame::of(1e15, 1e15, 2.0, 2.0, 30.0);
    assert_eq!(rotated_polygon_pair(&mut scratch, &far, &store, 0, &bounds), 0.0);
}

#[test]
fn the_order_of_a_pair_is_total_and_reversible() {
    use super::pair::polygon_order;
    use std::cmp::Ordering;
    let negative_zero = vec![(-0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)];
    let owned = Owned::of(&[simple(square(0.0, 0.0, 2.0)), simple(negative_zero), simple(square(0.0, 0.0, 2.0))]);
    let store = owned.store();
    assert_eq!(polygon_order(&store, 1, &store, 0), Ordering::Less); // -0.0 before 0.0
    assert_eq!(polygon_order(&store, 0, &store, 1), Ordering::Greater);
    assert_eq!(polygon_order(&store, 0, &store, 2), Ordering::Equal);
    assert_eq!(
        shared(&[simple(square(0.0, 0.0, 2.0)), simple(vec![(-0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)])]),
        4.0
    );
}
