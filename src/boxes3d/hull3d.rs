//! The volume of the convex hull of two oriented boxes (GIoU's enclosure in 3-D).
//!
//! The pair is put in the frame of its canonical first box (centred on it, along its axes: only
//! differences of centres enter), a box inside the other gives the larger volume exactly, and
//! otherwise the hull of the sixteen corners is built incrementally: a tetrahedron, then each corner
//! that sees some faces replaces them by a fan of faces from the horizon to it. A corner within a
//! tolerance of a face's plane (`1e-13` of the cube of the points' extent in the triple product)
//! does not see it, so coplanar corners (every face of a box has four) and repeated ones are
//! skipped; the volume is then within that tolerance of the true hull's. Sixteen corners coplanar
//! within it (two flat boxes in one plane) have a hull of volume 0. The volume is the sum of the
//! tetrahedra from an interior point to each face.

use super::frame::{Box15, any_nan, comes_before, contained, pair_in_frame};
use crate::numeric::{max, min};

/// The corners of a pair of boxes.
pub(super) const POINTS: usize = 16;
/// Face slots: a hull of n points has at most 2n - 4 faces; dead faces are reused.
const MAX_FACES: usize = 64;
/// Relative tolerance of the orientation tests (of the triple product, against the extent cubed).
const TOLERANCE: f64 = 1e-13;
/// 2**-128 and 2**384: the corners scaled down, and the volume back (both exact).
const TWO_TO_MINUS_128: f64 = 1.0 / (18446744073709551616.0 * 18446744073709551616.0);
const TWO_TO_384: f64 = (18446744073709551616.0 * 18446744073709551616.0)
    * (18446744073709551616.0 * 18446744073709551616.0)
    * (18446744073709551616.0 * 18446744073709551616.0);

type Points = [[f64; 3]; POINTS];

/// `((b - a) × (c - a)) · (q - a)`: positive when `q` is on the side the face (a, b, c) faces.
#[inline(always)]
fn orient(points: &Points, a: usize, b: usize, c: usize, q: usize) -> f64 {
    let (pa, pb, pc, pq) = (points[a], points[b], points[c], points[q]);
    let (ux, uy, uz) = (pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]);
    let (vx, vy, vz) = (pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]);
    let (wx, wy, wz) = (pq[0] - pa[0], pq[1] - pa[1], pq[2] - pa[2]);
    wx * (uy * vz - uz * vy) + wy * (uz * vx - ux * vz) + wz * (ux * vy - uy * vx)
}

/// Four points spanning a tetrahedron, or None if all are coplanar within the tolerance.
fn first_simplex(points: &Points, extent: f64) -> Option<[usize; 4]> {
    let mut i0 = 0;
    for k in 1..POINTS {
        if points[k][0] < points[i0][0] {
            i0 = k;
        }
    }
    let p0 = points[i0];
    let (mut i1, mut best) = (None, (TOLERANCE * extent) * (TOLERANCE * extent));
    for (k, p) in points.iter().enumerate() {
        let (dx, dy, dz) = (p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]);
        let d = dx * dx + dy * dy + dz * dz;
        if d > best {
            (i1, best) = (Some(k), d);
        }
    }
    let i1 = i1?;
    let (ux, uy, uz) = (points[i1][0] - p0[0], points[i1][1] - p0[1], points[i1][2] - p0[2]);
    let limit = TOLERANCE * extent * extent;
    let (mut i2, mut best) = (None, limit * limit);
    for (k, p) in points.iter().enumerate() {
        let (vx, vy, vz) = (p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]);
        let (cx, cy, cz) = (uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
        let d = cx * cx + cy * cy + cz * cz;
        if d > best {
            (i2, best) = (Some(k), d);
        }
    }
    let i2 = i2?;
    let (mut i3, mut best) = (None, TOLERANCE * (extent * (extent * extent)));
    for k in 0..POINTS {
        let d = orient(points, i0, i1, i2, k).abs();
        if d > best {
            (i3, best) = (Some(k), d);
        }
    }
    Some([i0, i1, i2, i3?])
}

/// The volume of the convex hull of `points`, 0 for coplanar points (NaN beyond `MAX_FACES` slots,
/// which sixteen points never need).
pub(super) fn points_hull_volume(points: &Points) -> f64 {
    let mut extent = 0.0;
    for c in 0..3 {
        let (mut low, mut high) = (points[0][c], points[0][c]);
        for point in &points[1..] {
            (low, high) = (min(low, point[c]), max(high, point[c]));
        }
        extent = max(extent, high - low);
    }
    if !(extent > 0.0) {
        return 0.0;
    }
    let Some([i0, mut i1, mut i2, i3]) = first_simplex(points, extent) else {
        return 0.0;
    };
    if orient(points, i0, i1, i2, i3) > 0.0 {
        (i1, i2) = (i2, i1); // the fourth point below the first face: every face then faces outwards
    }
    let mut faces = [[0usize; 3]; MAX_FACES];
    let mut alive = [false; MAX_FACES];
    let mut visible = [false; MAX_FACES];
    let mut edge_face = [[usize::MAX; POINTS]; POINTS]; // edge_face[u][v]: the face holding the directed edge u -> v
    let mut horizon = [[0usize; 2]; MAX_FACES * 3];
    let mut count = 0;
    for [a, b, c] in [[i0, i1, i2], [i0, i3, i1], [i1, i3, i2], [i2, i3, i0]] {
        faces[count] = [a, b, c];
        alive[count] = true;
        (edge_face[a][b], edge_face[b][c], edge_face[c][a]) = (count, count, count);
        count += 1;
    }
    let tolerance = TOLERANCE * (extent * (extent * extent));
    for q in 0..POINTS {
        if q == i0 || q == i1 || q == i2 || q == i3 {
            continue;
        }
        let mut seen = false;
        for f in 0..count {
            let [a, b, c] = faces[f];
            visible[f] = alive[f] && orient(points, a, b, c, q) > tolerance;
            seen = seen || visible[f];
        }
        if !seen {
            continue;
        }
        let mut edges = 0;
        for f in 0..count {
            if visible[f] {
                for e in 0..3 {
                    let (u, v) = (faces[f][e], faces[f][(e + 1) % 3]);
                    let other = edge_face[v][u];
                    if other == usize::MAX || !visible[other] {
                        horizon[edges] = [u, v];
                        edges += 1;
                    }
                }
            }
        }
        for f in 0..count {
            if visible[f] {
                alive[f] = false;
                visible[f] = false;
            }
        }
        for &[u, v] in &horizon[..edges] {
            let mut slot = 0;
            while slot < count && alive[slot] {
                slot += 1;
            }
            if slot == count {
                if count == MAX_FACES {
                    return f64::NAN;
                }
                count += 1;
            }
            faces[slot] = [u, v, q];
            alive[slot] = true;
            (edge_face[u][v], edge_face[v][q], edge_face[q][u]) = (slot, slot, slot);
        }
    }
    // Tetrahedra from the first simplex's centroid, inside the hull: every term is positive.
    let centroid = |c: usize| (points[i0][c] + points[i1][c] + points[i2][c] + points[i3][c]) / 4.0;
    let (ox, oy, oz) = (centroid(0), centroid(1), centroid(2));
    let mut total = 0.0;
    for f in 0..count {
        if alive[f] {
            let [a, b, c] = faces[f].map(|k| [points[k][0] - ox, points[k][1] - oy, points[k][2] - oz]);
            total += a[0] * (b[1] * c[2] - b[2] * c[1])
                + a[1] * (b[2] * c[0] - b[0] * c[2])
                + a[2] * (b[0] * c[1] - b[1] * c[0]);
        }
    }
    total / 6.0
}

/// The volume of the convex hull of two oriented boxes, at least the larger volume.
///
/// Exactly the larger volume when a box is inside the other; the same bits for `(b, a)`; NaN when a
/// number is NaN.
pub(super) fn hull_volume(a: &Box15, b: &Box15) -> f64 {
    if any_nan(a, b) {
        return f64::NAN;
    }
    let (a, b) = if comes_before(b, a) { (b, a) } else { (a, b) };
    let larger = max((a[3] * a[4]) * a[5], (b[3] * b[4]) * b[5]);
    let frame = pair_in_frame(a, b);
    if contained(&frame) {
        return larger;
    }
    let mut points = [[0.0; 3]; POINTS];
    for corner in 0..8 {
        let sign = |bit: usize| if corner & bit == 0 { -1.0 } else { 1.0 };
        let signs = [sign(4), sign(2), sign(1)];
        for k in 0..3 {
            points[corner][k] = signs[k] * frame.half_f[k];
            let mut offset = frame.t[k];
            for ((along, sign), half) in frame.rel[k].iter().zip(signs).zip(frame.half_o) {
                offset += along * (sign * half);
            }
            points[8 + corner][k] = offset;
        }
    }
    let mut volume = points_hull_volume(&points);
    if !volume.is_finite() {
        // Products of coordinates near 2**336 overflow: the same hull on lengths scaled by 2**-128 (exact).
        for point in points.iter_mut() {
            for value in point.iter_mut() {
                *value *= TWO_TO_MINUS_128;
            }
        }
        volume = points_hull_volume(&points) * TWO_TO_384;
    }
    max(volume, larger)
}
