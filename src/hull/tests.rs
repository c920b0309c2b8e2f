use super::pair::{STEPPED_VERTICES, twice_area, walked};
use super::tables::{self, ANGLE, RUNNING, Tables, X, Y};
use super::*;

/// The tables of hulls given as lists of vertices.
fn tables_of(hulls: &[Vec<(f64, f64)>]) -> Tables {
    let coords: Vec<f64> = hulls.iter().flatten().flat_map(|&(x, y)| [x, y]).collect();
    let mut offsets = vec![0];
    for hull in hulls {
        offsets.push(offsets[offsets.len() - 1] + hull.len());
    }
    tables::derive(&coords, &offsets)
}

/// Hull k of `tables`.
fn hull(tables: &Tables, k: usize) -> Hull<'_> {
    let (start, stop) = (tables.slots[k] as usize, tables.slots[k + 1] as usize);
    Hull {
        rows: &tables.vertices[start * WIDTH..stop * WIDTH],
        count: stop - start - 1,
        frame: &tables.frames[k * FRAME_WIDTH..(k + 1) * FRAME_WIDTH],
        guesses: &tables.guesses[k * GUESS_BUCKETS..(k + 1) * GUESS_BUCKETS],
    }
}

/// Twice the hull's area of hulls 0 and 1 of `hulls`, checked to be the same bits in both orders.
fn twice_of(hulls: &[Vec<(f64, f64)>]) -> f64 {
    let tables = tables_of(hulls);
    let (a, b) = (hull(&tables, 0), hull(&tables, 1));
    let twice = twice_area(&a, &b);
    assert_eq!(twice.to_bits(), twice_area(&b, &a).to_bits(), "the canonical order: the same bits");
    twice
}

fn square(x: f64, y: f64, side: f64) -> Vec<(f64, f64)> {
    vec![(x, y), (x + side, y), (x + side, y + side), (x, y + side), (x, y)]
}

/// A regular n-gon of radius r around (x, y), counter-clockwise.
fn regular(n: usize, x: f64, y: f64, r: f64) -> Vec<(f64, f64)> {
    (0..n)
        .map(|k| {
            let theta = k as f64 * (2.0 * std::f64::consts::PI / n as f64);
            (x + r * theta.cos(), y + r * theta.sin())
        })
        .collect()
}

#[test]
fn a_clockwise_rectangle_is_laid_out_counter_clockwise_from_its_smallest_normal() {
    // The rectangle [0, 3] × [0, 2] given clockwise: centred on (1.5, 1), its first edge is the one whose
    // outward normal is +x (pseudo-angle 0), then +y, -x, -y; the running sum ends at twice its area, 12.
    let tables = tables_of(&[vec![(0.0, 0.0), (0.0, 2.0), (3.0, 2.0), (3.0, 0.0)]]);
    assert_eq!(tables.frames, [1.5, 1.0, 0.0, 0.0, 3.0, 2.0]);
    let column = |c: usize| tables.vertices.chunks_exact(WIDTH).map(|row| row[c]).collect::<Vec<_>>();
    assert_eq!(column(X), [1.5, 1.5, -1.5, -1.5, 1.5]);
    assert_eq!(column(Y), [-1.0, 1.0, 1.0, -1.0, -1.0]);
    assert_eq!(column(ANGLE), [0.0, 1.0, 2.0, 3.0, f64::INFINITY]);
    assert_eq!(column(RUNNING)[4], 12.0);
    // Bucket d starts at pseudo-angle d / 16: below it, no normal for d = 0, one for 1..=16, ...
    let expected: Vec<i32> = (0..64).map(|d: i32| (d + 15) / 16).collect();
    assert_eq!(tables.guesses, expected);
}

#[test]
fn an_empty_hull_has_one_row_and_a_nan_frame() {
    let tables = tables_of(&[vec![], square(0.0, 0.0, 1.0)]);
    assert_eq!(tables.slots, [0, 1, 6]);
    assert_eq!(tables.vertices[ANGLE], f64::INFINITY);
    assert!(tables.frames[..FRAME_WIDTH].iter().all(|value| value.is_nan()));
    // An empty hull adds nothing: the square alone, twice its area.
    assert_eq!(twice_of(&[vec![], square(0.0, 0.0, 1.0)]), 2.0);
    assert_eq!(twice_of(&[vec![], vec![]]), 0.0);
}

#[test]
fn squares_apart_are_bridged_into_their_enclosing_rectangle() {
    // [0, 1]² and [2, 3] × [0, 1]: bounds apart (the bridges), the hull is [0, 3] × [0, 1].
    assert_eq!(twice_of(&[square(0.0, 0.0, 1.0), square(2.0, 0.0, 1.0)]), 6.0);
    // Diagonally apart: the hexagon (0,0) (1,0) (3,2) (3,3) (2,3) (0,1), 9 less two triangles of 2.
    assert_eq!(twice_of(&[square(0.0, 0.0, 1.0), square(2.0, 2.0, 1.0)]), 10.0);
}

#[test]
fn squares_sharing_a_corner_are_walked_into_a_hexagon() {
    // [0, 1]² and [1, 2]²: their bounds meet at (1, 1), so the walk; the hexagon (0,0) (1,0) (2,1) (2,2)
    // (1,2) (0,1) is the 2 × 2 square less two triangles of 1/2: area 3.
    assert_eq!(twice_of(&[square(0.0, 0.0, 1.0), square(1.0, 1.0, 1.0)]), 6.0);
}

#[test]
fn nested_and_identical_hulls_give_the_larger_one() {
    assert_eq!(twice_of(&[square(0.0, 0.0, 4.0), square(1.0, 1.0, 2.0)]), 32.0);
    assert_eq!(twice_of(&[square(0.0, 0.0, 4.0), square(0.0, 0.0, 4.0)]), 32.0);
}

#[test]
fn points_and_segments() {
    // Two points, collinear segments: no area. A point above a unit square adds the triangle
    // (0,1) (1,1) (0.5, 3) of area 1.
    assert_eq!(twice_of(&[vec![(0.0, 0.0)], vec![(5.0, 5.0)]]), 0.0);
    assert_eq!(twice_of(&[vec![(0.0, 0.0), (1.0, 1.0)], vec![(2.0, 2.0), (5.0, 5.0)]]), 0.0);
    assert_eq!(twice_of(&[square(0.0, 0.0, 1.0), vec![(0.5, 3.0)]]), 4.0);
    // A segment from (1, 3) to (3, 1) over the corner of [0, 2]²: the square plus a triangle of 2.
    assert_eq!(twice_of(&[square(0.0, 0.0, 2.0), vec![(1.0, 3.0), (3.0, 1.0)]]), 12.0);
}

#[test]
fn hulls_far_apart_keep_every_digit() {
    // [0, 1]² and [1e8, 1e8 + 1] × [0, 1]: the hull is (1e8 + 1) × 1, exact in binary; no term squares
    // the distance, so nothing of it is lost.
    assert_eq!(twice_of(&[square(0.0, 0.0, 1.0), square(1e8, 0.0, 1.0)]), 2.0 * (1e8 + 1.0));
    // Far from the origin too: the frames are centred on each hull, so the offset cancels exactly.
    assert_eq!(twice_of(&[square(1e12, 1e12, 1.0), square(1e12 + 3.0, 1e12, 1.0)]), 8.0);
}

#[test]
fn bridges_agree_with_the_walk() {
    // Regular polygons of many sizes around a circle of hulls: every pair apart is bridged, and the
    // walk of the same pair (in the canonical order) gives the same area up to rounding.
    let hulls: Vec<_> = (0..12)
        .map(|k| {
            let angle = k as f64 * 0.55;
            regular(3 + 2 * k, 10.0 * angle.cos() + 0.1 * k as f64, 7.0 * angle.sin(), 0.5 + 0.2 * k as f64)
        })
        .collect();
    let tables = tables_of(&hulls);
    for p in 0..hulls.len() {
        for q in 0..hulls.len() {
            let (a, b) = (hull(&tables, p), hull(&tables, q));
            let t = (b.frame[0] - a.frame[0], b.frame[1] - a.frame[1]);
            let (measured, by_walk) = (twice_area(&a, &b), walked(&a, &b, t.0, t.1));
            assert!((measured - by_walk).abs() <= 1e-13 * by_walk, "{p} {q}: {measured} {by_walk}");
            assert_eq!(measured.to_bits(), twice_area(&b, &a).to_bits());
        }
    }
}

#[test]
fn a_hull_of_many_vertices_is_walked() {
    // Past STEPPED_VERTICES the pair is walked even when apart: its area is the walk's, to the bit.
    let (many, small) = (regular(STEPPED_VERTICES + 10, 0.0, 0.0, 1.0), square(5.0, -0.5, 1.0));
    let tables = tables_of(&[small, many]);
    let (small, many) = (hull(&tables, 0), hull(&tables, 1));
    let t = (many.frame[0] - small.frame[0], many.frame[1] - small.frame[1]);
    assert_eq!(twice_area(&many, &small).to_bits(), walked(&small, &many, t.0, t.1).to_bits());
}

#[test]
fn a_negative_or_nan_doubled_area_is_no_area() {
    assert_eq!(area(-1e-300).to_bits(), 0.0f64.to_bits());
    assert_eq!(area(f64::NAN).to_bits(), 0.0f64.to_bits());
    assert_eq!(area(3.0), 1.5);
}

#[test]
fn opposite_pseudo_angles_are_those_of_both_directions() {
    // One division serves both directions: the same bits as two pseudo_angle calls (the axes, signed
    // zeros and a tiny component included).
    let vectors =
        [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0), (0.0, -0.0), (-0.0, 0.0), (3.0, -4.0), (-1e-300, 2.0)];
    for (x, y) in vectors {
        let (angle, opposite) = pair::opposite_pseudo_angles(x, y);
        assert_eq!(angle.to_bits(), crate::angles::pseudo_angle(x, y).to_bits(), "{x} {y}");
        let expected = crate::angles::pseudo_angle(-x, -y);
        assert!(opposite.to_bits() == expected.to_bits() || (opposite.is_nan() && expected.is_nan()), "{x} {y}");
    }
}
