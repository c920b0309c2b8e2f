//! The metric formulas over the measure of a pair: what a kernel writes for each pair.
//!
//! Every kernel's loop measures a pair and hands the measure to `value`, which turns it into what
//! the caller asked (the intersection itself, IoU, IoF, the union, GIoU), reading the two regions'
//! areas. Divisions follow NumPy: `ratio` returns `zero_division` where the denominator is 0.

use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyReadwriteArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::invalid_argument;
use crate::numeric::{maximum, minimum};
use crate::pairs::{Borrowed, Formula, Job, Pairs};
use crate::threads;

/// What a kernel writes for a pair whose measure is m.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Code {
    /// m itself: a hull or an enclosure.
    Measure = 0,
    /// m, an intersection, capped at both areas (a promoted region's rounded corners may enclose a
    /// few ulps more than the region itself).
    Intersection = 1,
    Iou = 2,
    Union = 3,
    /// The intersection over the area of `a`.
    Iof = 4,
    /// m the intersection, `given` the enclosure C.
    Giou = 5,
    /// m the enclosure C, `given` the intersection.
    GiouOfHull = 6,
}

impl Code {
    pub fn from_u8(code: u8) -> Option<Code> {
        Some(match code {
            0 => Code::Measure,
            1 => Code::Intersection,
            2 => Code::Iou,
            3 => Code::Union,
            4 => Code::Iof,
            5 => Code::Giou,
            6 => Code::GiouOfHull,
            _ => return None,
        })
    }
}

/// `numerator / denominator`, or `zero_division` where the denominator is 0.
#[inline(always)]
pub fn ratio(numerator: f64, denominator: f64, zero_division: f64) -> f64 {
    if denominator == 0.0 { zero_division } else { numerator / denominator }
}

/// `|a| + |b| - i`. IoU needs no cap at 1: with i <= min(|a|, |b|), |a| + |b| >= 2i, so rounding
/// (monotonic) gives fl(|a| + |b|) >= 2i and then fl(fl(|a| + |b|) - i) >= i.
#[inline(always)]
fn union(intersection: f64, area_a: f64, area_b: f64) -> f64 {
    area_a + area_b - intersection
}

#[inline(always)]
fn giou(intersection: f64, area_a: f64, area_b: f64, enclosure: f64, zero_division: f64) -> f64 {
    let union = union(intersection, area_a, area_b);
    let overlap = ratio(intersection, union, zero_division);
    // Rounding in a hull could leave it a hair below the union; C >= union always holds exactly.
    let enclosing = maximum(enclosure, union);
    overlap - ratio(enclosing - union, enclosing, 0.0)
}

/// `intersection` capped at both areas, as NumPy's `minimum` (a NaN intersection stays NaN).
#[inline(always)]
fn capped(intersection: f64, area_a: f64, area_b: f64) -> f64 {
    let mut capped = intersection;
    if area_a < capped {
        capped = area_a;
    }
    if area_b < capped {
        capped = area_b;
    }
    capped
}

/// What the formula `code` makes of a pair's `measure`, its regions' areas and its `given` measure.
#[inline(always)]
pub fn value(code: Code, measure: f64, area_a: f64, area_b: f64, given: f64, zero_division: f64) -> f64 {
    match code {
        Code::Measure => measure,
        Code::GiouOfHull => giou(given, area_a, area_b, measure, zero_division),
        _ => {
            let intersection = capped(measure, area_a, area_b);
            match code {
                Code::Iou => ratio(intersection, union(intersection, area_a, area_b), zero_division),
                Code::Union => union(intersection, area_a, area_b),
                Code::Iof => ratio(intersection, area_a, zero_division),
                Code::Giou => giou(intersection, area_a, area_b, given, zero_division),
                _ => intersection,
            }
        }
    }
}

/// Nanoseconds a formula costs per pair on one thread.
const FORMULA_NS: usize = 2;

/// Apply `formula` to the measures a kernel computed for `pairs` (one per pair) into `out`.
#[pyfunction]
fn apply_to_measures(
    py: Python<'_>,
    measures: PyReadonlyArray1<'_, f64>,
    pairs: PyRef<'_, Pairs>,
    formula: PyRef<'_, Formula>,
    mut out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let borrowed = Borrowed::new(py, &pairs, &formula, &out)?;
    let job = borrowed.job()?;
    let measures = measures.as_slice()?;
    if measures.len() != job.len() {
        let given = format!("{} for {} pairs", measures.len(), job.len());
        return Err(invalid_argument("measures", "one measure per pair", given));
    }
    let out = out.as_slice_mut()?;
    py.detach(|| {
        job.for_rows(out, threads::chunk_of(FORMULA_NS), |i, row, row_out| {
            for (c, (j, k)) in row.enumerate() {
                row_out[c] = job.value(measures[k], i, j, k, row_out[c]);
            }
        })
    });
    Ok(())
}

/// `numerator / denominator` elementwise, `zero_division` where the denominator is 0.
#[pyfunction]
fn ratios<'py>(
    py: Python<'py>,
    numerator: PyReadonlyArray1<'py, f64>,
    denominator: PyReadonlyArray1<'py, f64>,
    zero_division: f64,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (numerator, denominator) = (numerator.as_slice()?, denominator.as_slice()?);
    if numerator.len() != denominator.len() {
        let lengths = format!("{} and {}", numerator.len(), denominator.len());
        return Err(invalid_argument("numerator, denominator", "arrays of equal length", lengths));
    }
    let out: Vec<f64> =
        py.detach(|| numerator.iter().zip(denominator).map(|(&n, &d)| ratio(n, d, zero_division)).collect());
    Ok(PyArray1::from_vec(py, out))
}

/// DIoU's `d² / c²` of a pair: the squared distance between the centroids over the squared diagonal
/// of the smallest axis-aligned box holding both bounds; 0 where that box is a point.
///
/// NumPy's operations in NumPy's order: `np.sum((ca - cb) ** 2, axis=-1)` adds the axes in turn, the
/// diagonal starts from 0 and adds each axis's squared extent, the extent from NumPy's `maximum` and
/// `minimum` (NaN for an empty region's bounds).
#[inline(always)]
fn centre_penalty(centroid_a: &[f64], centroid_b: &[f64], bounds_a: &[f64], bounds_b: &[f64]) -> f64 {
    let mut distance2 = 0.0;
    for (axis, (&a, &b)) in centroid_a.iter().zip(centroid_b).enumerate() {
        let d = a - b;
        distance2 = if axis == 0 { d * d } else { distance2 + d * d };
    }
    let half = bounds_a.len() / 2;
    let mut diagonal2 = 0.0;
    for axis in 0..half {
        let extent = maximum(bounds_a[half + axis], bounds_b[half + axis]) - minimum(bounds_a[axis], bounds_b[axis]);
        diagonal2 += extent * extent;
    }
    ratio(distance2, diagonal2, 0.0)
}

/// CIoU of a pair from its IoU, DIoU's penalty and the two boxes' aspect angles `atan2(w, h)`:
/// `IoU - d²/c² - α v`, `v = 4/π² (aspect_b - aspect_a)²`, `α = v / (1 - IoU + v)` (0 where both vanish).
#[inline(always)]
fn ciou(overlap: f64, penalty: f64, aspect_a: f64, aspect_b: f64) -> f64 {
    let turn = aspect_b - aspect_a;
    let v = (4.0 / (std::f64::consts::PI * std::f64::consts::PI)) * (turn * turn);
    let alpha = ratio(v, 1.0 - overlap + v, 0.0);
    (overlap - penalty) - alpha * v
}

/// Nanoseconds the centre penalty of a pair costs on one thread.
const PENALTY_NS: usize = 5;

/// The tables of DIoU's and CIoU's per-region terms: centroids `(n, d)` and bounds `(n, 2d)` of both sides.
fn terms<'a>(
    centroids_a: &'a PyReadonlyArray2<'_, f64>,
    centroids_b: &'a PyReadonlyArray2<'_, f64>,
    bounds_a: &'a PyReadonlyArray2<'_, f64>,
    bounds_b: &'a PyReadonlyArray2<'_, f64>,
) -> PyResult<(usize, [&'a [f64]; 4])> {
    let d = centroids_a.shape()[1];
    let shapes_agree = centroids_b.shape()[1] == d && bounds_a.shape()[1] == 2 * d && bounds_b.shape()[1] == 2 * d;
    if d == 0
        || !shapes_agree
        || bounds_a.shape()[0] != centroids_a.shape()[0]
        || bounds_b.shape()[0] != centroids_b.shape()[0]
    {
        return Err(invalid_argument(
            "centroids, bounds",
            "(n, d) centroids and (n, 2d) bounds of each side",
            "others",
        ));
    }
    Ok((d, [centroids_a.as_slice()?, centroids_b.as_slice()?, bounds_a.as_slice()?, bounds_b.as_slice()?]))
}

/// Subtract DIoU's penalty `d² / c²` of each of `pairs` from `out` (which holds their IoU): DIoU in place.
#[pyfunction]
fn subtract_centre_penalties(
    py: Python<'_>,
    centroids_a: PyReadonlyArray2<'_, f64>,
    centroids_b: PyReadonlyArray2<'_, f64>,
    bounds_a: PyReadonlyArray2<'_, f64>,
    bounds_b: PyReadonlyArray2<'_, f64>,
    pairs: PyRef<'_, Pairs>,
    mut out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let (d, [ca, cb, ba, bb]) = terms(&centroids_a, &centroids_b, &bounds_a, &bounds_b)?;
    let (index_a, index_b) = pairs.borrowed(py);
    let job = Job::of_pairs(index_a.as_slice()?, index_b.as_slice()?, pairs.outer());
    let out = out.as_slice_mut()?;
    if out.len() != job.len() {
        return Err(invalid_argument("out", "one value per pair", out.len()));
    }
    py.detach(|| {
        job.for_rows(out, threads::chunk_of(PENALTY_NS), |i, row, row_out| {
            for (c, (j, _)) in row.enumerate() {
                let penalty = centre_penalty(
                    &ca[i * d..][..d],
                    &cb[j * d..][..d],
                    &ba[i * 2 * d..][..2 * d],
                    &bb[j * 2 * d..][..2 * d],
                );
                row_out[c] -= penalty;
            }
        })
    });
    Ok(())
}

/// Turn the IoU of each of `pairs` in `out` into CIoU, from the boxes' aspect angles `atan2(w, h)`.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // both sides' four per-region tables, as the metric names them
fn complete_ious(
    py: Python<'_>,
    centroids_a: PyReadonlyArray2<'_, f64>,
    centroids_b: PyReadonlyArray2<'_, f64>,
    bounds_a: PyReadonlyArray2<'_, f64>,
    bounds_b: PyReadonlyArray2<'_, f64>,
    aspects_a: PyReadonlyArray1<'_, f64>,
    aspects_b: PyReadonlyArray1<'_, f64>,
    pairs: PyRef<'_, Pairs>,
    mut out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let (d, [ca, cb, ba, bb]) = terms(&centroids_a, &centroids_b, &bounds_a, &bounds_b)?;
    let (aspects_a, aspects_b) = (aspects_a.as_slice()?, aspects_b.as_slice()?);
    if aspects_a.len() * d != ca.len() || aspects_b.len() * d != cb.len() {
        return Err(invalid_argument("aspects_a, aspects_b", "one aspect angle per region", aspects_a.len()));
    }
    let (index_a, index_b) = pairs.borrowed(py);
    let job = Job::of_pairs(index_a.as_slice()?, index_b.as_slice()?, pairs.outer());
    let out = out.as_slice_mut()?;
    if out.len() != job.len() {
        return Err(invalid_argument("out", "one value per pair", out.len()));
    }
    py.detach(|| {
        job.for_rows(out, threads::chunk_of(PENALTY_NS), |i, row, row_out| {
            for (c, (j, _)) in row.enumerate() {
                let penalty = centre_penalty(
                    &ca[i * d..][..d],
                    &cb[j * d..][..d],
                    &ba[i * 2 * d..][..2 * d],
                    &bb[j * 2 * d..][..2 * d],
                );
                row_out[c] = ciou(row_out[c], penalty, aspects_a[i], aspects_b[j]);
            }
        })
    });
    Ok(())
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(subtract_centre_penalties, module)?)?;
    module.add_function(wrap_pyfunction!(complete_ious, module)?)?;
    module.add_function(wrap_pyfunction!(apply_to_measures, module)?)?;
    module.add_function(wrap_pyfunction!(ratios, module)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iou_of_a_quarter_overlap() {
        // Two 2×2 squares sharing a 1×1 corner: 1 / (4 + 4 - 1).
        assert_eq!(value(Code::Iou, 1.0, 4.0, 4.0, 0.0, f64::NAN), 1.0 / 7.0);
    }

    #[test]
    fn zero_union_gives_zero_division() {
        assert!(value(Code::Iou, 0.0, 0.0, 0.0, 0.0, f64::NAN).is_nan());
        assert_eq!(value(Code::Iou, 0.0, 0.0, 0.0, 0.0, 1.0), 1.0);
        assert_eq!(value(Code::Iof, 0.0, 0.0, 5.0, 0.0, 0.5), 0.5);
    }

    #[test]
    fn an_intersection_is_capped_at_both_areas_and_nan_stays() {
        assert_eq!(value(Code::Intersection, 4.000000001, 4.0, 9.0, 0.0, 0.0), 4.0);
        assert!(value(Code::Intersection, f64::NAN, 4.0, 9.0, 0.0, 0.0).is_nan());
    }

    #[test]
    fn the_centre_penalty_of_boxes_side_by_side() {
        // [0, 1]² and [1, 2]×[0, 1]: centres 1 apart, the enclosing 2×1 box's diagonal² is 5.
        let penalty = centre_penalty(&[0.5, 0.5], &[1.5, 0.5], &[0.0, 0.0, 1.0, 1.0], &[1.0, 0.0, 2.0, 1.0]);
        assert_eq!(penalty, 1.0 / 5.0);
        // Two points at one place: an enclosing box of no extent, no penalty.
        assert_eq!(centre_penalty(&[1.0, 1.0], &[1.0, 1.0], &[1.0, 1.0, 1.0, 1.0], &[1.0, 1.0, 1.0, 1.0]), 0.0);
    }

    #[test]
    fn ciou_of_boxes_of_one_aspect_is_diou() {
        assert_eq!(ciou(0.5, 0.1, 0.7, 0.7), 0.5 - 0.1);
        // Both terms vanish (IoU 1, v 0): α is 0, not 0/0.
        assert_eq!(ciou(1.0, 0.0, 0.3, 0.3), 1.0);
    }

    #[test]
    fn giou_of_two_unit_squares_one_apart() {
        // Union 2 inside the enclosing 3×1 box: 0 - (3 - 2) / 3.
        assert_eq!(value(Code::Giou, 0.0, 1.0, 1.0, 3.0, f64::NAN), -1.0 / 3.0);
        assert_eq!(value(Code::GiouOfHull, 3.0, 1.0, 1.0, 0.0, f64::NAN), -1.0 / 3.0);
        // An enclosure rounded below the union is taken as the union.
        assert_eq!(value(Code::GiouOfHull, 1.9999, 1.0, 1.0, 0.0, f64::NAN), 0.0);
    }
}
