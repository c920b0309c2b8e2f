//! The region layer's ring work: whether a single ring is certainly simple (the fast half of
//! `Polygon`'s validity check), and the convex hulls of a polygon store's geometries. Both are
//! certain or silent.
//!
//! A ring (a closed chain of vertices) is a valid polygon when no two of its edges meet except
//! consecutive edges at their shared vertex. `is_simple` answers true only when it can prove that with
//! exact reasoning in floating point: every pair of edges whose bounds meet is shown apart by the signs
//! of orientation determinants that rounding cannot have flipped (Shewchuk's error bound for
//! `orient2d`, `orientation`), and consecutive edges turn by a certain angle. Anything it cannot prove
//! (a touching vertex, collinear edges, a repeated vertex, a crossing, a ring of more than
//! `MOST_VERTICES` vertices, numbers whose products underflow) makes it answer false, and the caller
//! asks GEOS, which also gives the reason: the answer never differs from GEOS's for a ring it accepts.
//!
//! The hull of a polygon is the hull of the vertices of its exterior rings (holes lie inside them).
//! Andrew's monotone chain builds it from the vertices sorted by x, then y, keeping a vertex only where
//! the chain turns left by a certain orientation sign, so its vertices are exactly the extreme points
//! GEOS's hull has, with no collinear or repeated point. Where a sign is not certain (three points
//! nearly on a line), or a polygon has more than `MOST_POINTS` exterior vertices, it answers nothing
//! and the store asks shapely for the hulls instead.

use numpy::ndarray::{Array1, Array2};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::invalid_argument;
use crate::numeric::{max, min};

/// Rings of more vertices go to GEOS, whose sweep beats testing every pair of edges.
pub const MOST_VERTICES: usize = 64;
/// Polygons with more exterior vertices go to shapely (its hull sorts them faster).
pub const MOST_POINTS: usize = 256;
/// Shewchuk's bound on the relative error of the fast `orient2d` determinant, `(3 + 16ε)ε`.
const ORIENT_ERROR: f64 = (3.0 + 16.0 * HALF_EPSILON) * HALF_EPSILON;
const HALF_EPSILON: f64 = f64::EPSILON / 2.0;
/// Below this sum of magnitudes the determinant's products may have lost bits to underflow: 2^-900.
const SMALLEST_PRODUCTS: f64 = f64::from_bits((1023 - 900) << 52);

/// Points as `(x, y)` pairs in one flat slice.
#[inline(always)]
fn point(points: &[f64], k: usize) -> (f64, f64) {
    (points[2 * k], points[2 * k + 1])
}

/// The sign of the turn a -> b -> c (1 left, -1 right) when rounding cannot have decided it, else 0.
pub fn orientation(points: &[f64], a: usize, b: usize, c: usize) -> i32 {
    let ((ax, ay), (bx, by), (cx, cy)) = (point(points, a), point(points, b), point(points, c));
    let left = (ax - cx) * (by - cy);
    let right = (ay - cy) * (bx - cx);
    let determinant = left - right;
    let magnitude = left.abs() + right.abs();
    if !(magnitude >= SMALLEST_PRODUCTS) {
        return 0; // also NaN
    }
    if determinant > ORIENT_ERROR * magnitude {
        1
    } else if determinant < -ORIENT_ERROR * magnitude {
        -1
    } else {
        0
    }
}

/// Whether the ring `points` (not closed: the last vertex differs from the first) is certainly
/// simple; false means "not proven", not "invalid".
pub fn is_simple(points: &[f64]) -> bool {
    let n = points.len() / 2;
    if !(3..=MOST_VERTICES).contains(&n) {
        return false;
    }
    // Consecutive edges meet only at their shared vertex when they turn by a certain angle.
    if (0..n).any(|k| orientation(points, k, (k + 1) % n, (k + 2) % n) == 0) {
        return false;
    }
    for k in 0..n - 2 {
        // Edge k against the edges that do not share a vertex with it.
        let last = if k > 0 { n - 1 } else { n - 2 };
        for m in k + 2..=last {
            if !apart(points, (k, (k + 1) % n), (m, (m + 1) % n)) {
                return false;
            }
        }
    }
    true
}

/// Whether segments ab and cd certainly share no point.
fn apart(points: &[f64], (a, b): (usize, usize), (c, d): (usize, usize)) -> bool {
    for axis in 0..2 {
        let at = |k: usize| points[2 * k + axis];
        if max(at(a), at(b)) < min(at(c), at(d)) || max(at(c), at(d)) < min(at(a), at(b)) {
            return true;
        }
    }
    // Both ends of one segment strictly on one side of the other's line.
    let (side_c, side_d) = (orientation(points, a, b, c), orientation(points, a, b, d));
    if side_c != 0 && side_c == side_d {
        return true;
    }
    let (side_a, side_b) = (orientation(points, c, d, a), orientation(points, c, d, b));
    side_a != 0 && side_a == side_b
}

/// A ring as a polygon store keeps it, with what its constructor checks.
#[derive(Debug, PartialEq)]
pub struct ClosedRing {
    /// The ring closed: its first vertex repeated at the end, unless it already is.
    pub coords: Vec<f64>,
    /// Its signed area: the operations of `RaggedPolygons.ring_signed_area`, summed in order.
    pub signed_area: f64,
    /// Its largest coordinate magnitude (infinite if a coordinate is not finite).
    pub largest: f64,
    /// Whether it is certainly simple (`is_simple`).
    pub simple: bool,
}

/// The ring `vertices` (x, y pairs, at least one) closed, with its signed area, largest coordinate and
/// simplicity.
pub fn close_ring(vertices: &[f64]) -> ClosedRing {
    let count = vertices.len() / 2;
    let closed = count > 1 && point(vertices, 0) == point(vertices, count - 1);
    let size = if closed { count } else { count + 1 };
    let mut coords = Vec::with_capacity(2 * size);
    let (mut largest, mut finite) = (0.0, true);
    for k in 0..size {
        let (x, y) = point(vertices, k % count);
        coords.extend([x, y]);
        finite = finite && x.is_finite() && y.is_finite();
        largest = max(max(largest, x.abs()), y.abs());
    }
    let (x0, y0) = point(&coords, 0);
    let mut total = 0.0;
    for k in 0..size - 1 {
        let (px, py) = (coords[2 * k] - x0, coords[2 * k + 1] - y0);
        let (qx, qy) = (coords[2 * k + 2] - x0, coords[2 * k + 3] - y0);
        total += px * qy - qx * py;
    }
    let signed_area = total / 2.0;
    if !finite {
        return ClosedRing { coords, signed_area, largest: f64::INFINITY, simple: false };
    }
    let simple = is_simple(&coords[..2 * (size - 1)]);
    ClosedRing { coords, signed_area, largest, simple }
}

/// A polygon store's layout, borrowed (`RaggedPolygons`): a part's first ring is its exterior.
pub struct Layout<'a> {
    pub coords: &'a [f64],
    pub ring_offsets: &'a [i64],
    pub part_offsets: &'a [i64],
    pub geometry_offsets: &'a [i64],
}

/// The hull of each geometry (coordinates, counter-clockwise, and offsets), or none if any is not
/// certain (or has more than `MOST_POINTS` exterior vertices).
pub fn exterior_hulls_of(layout: &Layout<'_>) -> Option<(Vec<f64>, Vec<i64>)> {
    let size = layout.geometry_offsets.len() - 1;
    let mut offsets = vec![0i64; size + 1];
    let mut hulls = Vec::new();
    let mut points = Vec::with_capacity(2 * MOST_POINTS);
    let mut chain = vec![0usize; 2 * MOST_POINTS + 1];
    for g in 0..size {
        points.clear();
        let parts = layout.geometry_offsets[g] as usize..layout.geometry_offsets[g + 1] as usize;
        for part in parts {
            let ring = layout.part_offsets[part] as usize;
            if ring == layout.part_offsets[part + 1] as usize {
                continue; // a part without rings
            }
            let (start, stop) = (layout.ring_offsets[ring] as usize, layout.ring_offsets[ring + 1] as usize);
            for k in start..stop.saturating_sub(1) {
                // (the closing vertex repeats the first)
                if points.len() == 2 * MOST_POINTS {
                    return None;
                }
                points.extend([layout.coords[2 * k], layout.coords[2 * k + 1]]);
            }
        }
        let length = hull_of(&mut points, &mut chain)?;
        for &k in &chain[..length] {
            hulls.extend_from_slice(&points[2 * k..2 * k + 2]);
        }
        offsets[g + 1] = offsets[g] + length as i64;
    }
    Some((hulls, offsets))
}

/// The hull of `points` (sorted here, in place, by x then y) as indices into them in `chain`,
/// counter-clockwise: its length (0 for no points), or none where an orientation is not certain or the
/// points enclose no area.
fn hull_of(points: &mut [f64], chain: &mut [usize]) -> Option<usize> {
    let count = points.len() / 2;
    if count == 0 {
        return Some(0);
    }
    if points.iter().any(|v| v.is_nan()) {
        return None; // an orientation with a NaN point is never certain
    }
    sort_points(points);
    let mut length = 0;
    for turn in 0..2 {
        // The lower chain left to right, then the upper one back.
        let floor = length;
        for step in 0..count {
            let k = if turn == 0 { step } else { count - 1 - step };
            if length > 0 && point(points, chain[length - 1]) == point(points, k) {
                continue; // a repeated point (parts that touch)
            }
            while length - floor >= 2 {
                match orientation(points, chain[length - 2], chain[length - 1], k) {
                    0 => return None,
                    side if side > 0 => break,
                    _ => length -= 1,
                }
            }
            chain[length] = k;
            length += 1;
        }
        length -= 1; // each chain's last point starts the other
    }
    if length >= 3 { Some(length) } else { None }
}

/// Sort the points (no NaN among them) by x, then y, keeping the order of equal ones (as an insertion
/// sort does: -0.0 and 0.0 are equal).
fn sort_points(points: &mut [f64]) {
    let mut pairs: Vec<(f64, f64)> = points.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    pairs.sort_by(|p, q| p.0.partial_cmp(&q.0).and_then(|o| Some(o.then(p.1.partial_cmp(&q.1)?))).expect("no NaN"));
    for (k, (x, y)) in pairs.into_iter().enumerate() {
        (points[2 * k], points[2 * k + 1]) = (x, y);
    }
}

/// One ring `(n, 2)` as a polygon store keeps it, in one call: the ring closed, its signed area (the
/// bits of the store's), its largest coordinate magnitude (inf if one is not finite) and whether it is
/// certainly simple.
#[pyfunction]
fn closed_ring<'py>(
    py: Python<'py>,
    vertices: PyReadonlyArray2<'py, f64>,
) -> PyResult<(Bound<'py, PyArray2<f64>>, f64, f64, bool)> {
    if vertices.shape()[1] != 2 || vertices.shape()[0] == 0 {
        return Err(invalid_argument(
            "vertices",
            "a ring of vertices (n, 2), n > 0",
            format!("{:?}", vertices.shape()),
        ));
    }
    let ring = close_ring(vertices.as_slice()?);
    let coords = Array2::from_shape_vec((ring.coords.len() / 2, 2), ring.coords).expect("whole rows");
    Ok((coords.into_pyarray(py), ring.signed_area, ring.largest, ring.simple))
}

/// Whether the ring `vertices` `(n, 2)` (not closed) is certainly simple.
#[pyfunction]
fn ring_is_simple(vertices: PyReadonlyArray2<'_, f64>) -> PyResult<bool> {
    if vertices.shape()[1] != 2 {
        return Err(invalid_argument("vertices", "a ring of vertices (n, 2)", format!("{:?}", vertices.shape())));
    }
    Ok(is_simple(vertices.as_slice()?))
}

/// The offsets `name`, rising from 0 to at most `within`.
fn offsets<'a>(name: &str, values: &'a PyReadonlyArray1<'_, i64>, within: usize) -> PyResult<&'a [i64]> {
    let values = values.as_slice()?;
    let rising = values.windows(2).all(|pair| pair[0] <= pair[1]);
    match (values.first(), values.last()) {
        (Some(&0), Some(&last)) if last as usize <= within && rising => Ok(values),
        _ => Err(invalid_argument(name, &format!("offsets rising from 0 to at most {within}"), "other values")),
    }
}

/// The convex hull of each geometry of a polygon store: coordinates `(H, 2)` and offsets
/// (`ConvexHulls`' arrays, counter-clockwise), and whether every hull was certain (if not, no hull:
/// the caller asks shapely for all of them).
#[pyfunction]
#[allow(clippy::type_complexity)] // the hulls' two arrays and the flag, as the stub names them
fn exterior_hulls<'py>(
    py: Python<'py>,
    coords: PyReadonlyArray2<'py, f64>,
    ring_offsets: PyReadonlyArray1<'py, i64>,
    part_offsets: PyReadonlyArray1<'py, i64>,
    geometry_offsets: PyReadonlyArray1<'py, i64>,
) -> PyResult<(Bound<'py, PyArray2<f64>>, Bound<'py, PyArray1<i64>>, bool)> {
    if coords.shape()[1] != 2 {
        return Err(invalid_argument("coords", "vertices (V, 2)", format!("{:?}", coords.shape())));
    }
    let ring_offsets = offsets("ring_offsets", &ring_offsets, coords.shape()[0])?;
    let part_offsets = offsets("part_offsets", &part_offsets, ring_offsets.len() - 1)?;
    let geometry_offsets = offsets("geometry_offsets", &geometry_offsets, part_offsets.len() - 1)?;
    let layout = Layout { coords: coords.as_slice()?, ring_offsets, part_offsets, geometry_offsets };
    let size = geometry_offsets.len() - 1;
    let (hulls, offsets, certain) = match py.detach(|| exterior_hulls_of(&layout)) {
        Some((hulls, offsets)) => (hulls, offsets, true),
        None => (Vec::new(), vec![0; size + 1], false),
    };
    let hulls = Array2::from_shape_vec((hulls.len() / 2, 2), hulls).expect("whole rows");
    Ok((hulls.into_pyarray(py), Array1::from_vec(offsets).into_pyarray(py), certain))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(closed_ring, module)?)?;
    module.add_function(wrap_pyfunction!(ring_is_simple, module)?)?;
    module.add_function(wrap_pyfunction!(exterior_hulls, module)?)?;
    module.add("RING_MOST_VERTICES", MOST_VERTICES)?;
    module.add("HULL_MOST_POINTS", MOST_POINTS)?;
    Ok(())
}

#[cfg(test)]
mod tests;
