//! The metric formulas over the measure of a pair: what a kernel writes for each pair.
//!
//! Every kernel's loop measures a pair and hands the measure to `value`, which turns it into what
//! the caller asked (the intersection itself, IoU, IoF, the union, GIoU), reading the two regions'
//! areas. Divisions follow NumPy: `ratio` returns `zero_division` where the denominator is 0.

use numpy::{PyArray1, PyReadonlyArray1, PyReadwriteArray1};
use pyo3::prelude::*;

use crate::errors::invalid_argument;
use crate::numeric::maximum;
use crate::pairs::{Borrowed, Formula, Pairs};
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

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
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
    fn giou_of_two_unit_squares_one_apart() {
        // Union 2 inside the enclosing 3×1 box: 0 - (3 - 2) / 3.
        assert_eq!(value(Code::Giou, 0.0, 1.0, 1.0, 3.0, f64::NAN), -1.0 / 3.0);
        assert_eq!(value(Code::GiouOfHull, 3.0, 1.0, 1.0, 0.0, f64::NAN), -1.0 / 3.0);
        // An enclosure rounded below the union is taken as the union.
        assert_eq!(value(Code::GiouOfHull, 1.9999, 1.0, 1.0, 0.0, f64::NAN), 0.0);
    }
}
