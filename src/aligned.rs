//! Axis-aligned boxes in any dimension (`Box`, `Box3D`, `Interval`): closed forms from the bounds.
//!
//! A region's bounds are `(lows..., highs...)`. The intersection of two is the product of the
//! overlaps along each axis (+0.0 when an axis has none), the enclosure (GIoU's box C, the
//! interval hull) the product of the spans. Box GIoU measures both in one pass.

use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyReadwriteArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::invalid_argument;
use crate::formulas::{self, Code};
use crate::numeric::{max, maximum, min, minimum};
use crate::pairs::{Borrowed, Formula, Job, Pairs};
use crate::threads;

/// Nanoseconds a pair costs on one thread (bounds, measure and formula).
const PAIR_NS: usize = 3;

/// The measure of the intersection of two bounds, +0.0 when they share nothing.
#[inline(always)]
pub fn overlap(a: &[f64], b: &[f64]) -> f64 {
    let half = a.len() / 2;
    let mut measure = 1.0;
    for axis in 0..half {
        let length = min(a[half + axis], b[half + axis]) - max(a[axis], b[axis]);
        if !(length > 0.0) {
            return 0.0;
        }
        measure = if axis == 0 { length } else { measure * length };
    }
    measure
}

/// The measure of the smallest axis-aligned box holding two bounds.
#[inline(always)]
pub fn enclosing(a: &[f64], b: &[f64]) -> f64 {
    let half = a.len() / 2;
    let mut measure = 1.0;
    for axis in 0..half {
        let extent = max(a[half + axis], b[half + axis]) - min(a[axis], b[axis]);
        measure = if axis == 0 { extent } else { measure * extent };
    }
    measure
}

/// Signed IoU (Simonelli et al. 2019) of two bounds: IoU where they overlap, negative where apart.
///
/// The intersection box `(max lows, min highs)` is turned inside out when the bounds are apart; its
/// signed measure is the product of its sides when all are positive, else minus that product's
/// magnitude. NumPy's operations of `geoiou.signed` in its order; `zero_division` where the
/// denominator is 0 unless it is NaN (then the division's own NaN), and -0.0 made +0.0.
#[inline(always)]
pub fn signed_iou(a: &[f64], b: &[f64], zero_division: f64) -> f64 {
    let half = a.len() / 2;
    let (mut signed, mut outside, mut measure_a, mut measure_b) = (1.0, false, 1.0, 1.0);
    for axis in 0..half {
        let side = minimum(a[half + axis], b[half + axis]) - maximum(a[axis], b[axis]);
        signed *= side;
        outside |= side <= 0.0;
        measure_a *= a[half + axis] - a[axis];
        measure_b *= b[half + axis] - b[axis];
    }
    if outside {
        signed = -signed.abs(); // two negative sides must not make a positive area
    }
    let denominator = measure_a + measure_b - signed;
    let result = if !zero_division.is_nan() && denominator == 0.0 { zero_division } else { signed / denominator };
    result + 0.0
}

/// The bounds table `(n, 2·ndim)` as rows.
fn rows<'a>(name: &str, bounds: &'a PyReadonlyArray2<'_, f64>) -> PyResult<(&'a [f64], usize)> {
    let width = bounds.shape()[1];
    if width == 0 || width % 2 != 0 {
        return Err(invalid_argument(name, "bounds (lows..., highs...) of 2·ndim columns", format!("{width} columns")));
    }
    Ok((bounds.as_slice()?, width))
}

/// Write the formula of each of `pairs` of two batches of bounds into `out`: of the intersection, or
/// with `enclosing` of the enclosing box. `Giou` with no `given` measure measures both in this pass.
#[pyfunction]
fn aligned_pairs(
    py: Python<'_>,
    bounds_a: PyReadonlyArray2<'_, f64>,
    bounds_b: PyReadonlyArray2<'_, f64>,
    enclosing_box: bool,
    pairs: PyRef<'_, Pairs>,
    formula: PyRef<'_, Formula>,
    mut out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let (a, width) = rows("bounds_a", &bounds_a)?;
    let (b, width_b) = rows("bounds_b", &bounds_b)?;
    if width != width_b {
        return Err(invalid_argument("bounds_b", &format!("{width} columns, as bounds_a"), width_b));
    }
    let borrowed = Borrowed::new(py, &pairs, &formula, &out)?;
    let job = borrowed.job()?;
    let out = out.as_slice_mut()?;
    let both = job.code == Code::Giou && !job.has_given();
    py.detach(|| {
        job.for_rows(out, threads::chunk_of(PAIR_NS), |i, row, row_out| {
            let bounds_a = &a[i * width..(i + 1) * width];
            for (c, (j, k)) in row.enumerate() {
                let bounds_b = &b[j * width..(j + 1) * width];
                let measure = if enclosing_box { enclosing(bounds_a, bounds_b) } else { overlap(bounds_a, bounds_b) };
                row_out[c] = if both {
                    let other = enclosing(bounds_a, bounds_b);
                    formulas::value(job.code, measure, job.areas_a[i], job.areas_b[j], other, job.zero_division)
                } else {
                    job.value(measure, i, j, k, row_out[c])
                };
            }
        })
    });
    Ok(())
}

/// The formula `code` of two single regions' bounds and areas (GIoU's box enclosure measured too).
#[pyfunction]
fn aligned_single(
    bounds_a: PyReadonlyArray1<'_, f64>,
    bounds_b: PyReadonlyArray1<'_, f64>,
    code: u8,
    area_a: f64,
    area_b: f64,
    zero_division: f64,
) -> PyResult<f64> {
    let (a, b) = (bounds_a.as_slice()?, bounds_b.as_slice()?);
    if a.len() != b.len() || a.is_empty() || a.len() % 2 != 0 {
        let lengths = format!("{} and {}", a.len(), b.len());
        return Err(invalid_argument("bounds_a, bounds_b", "bounds of one dimension", lengths));
    }
    let code = Code::from_u8(code).ok_or_else(|| invalid_argument("code", "a formula code from 0 to 6", code))?;
    let other = if code == Code::Giou { enclosing(a, b) } else { 0.0 };
    Ok(formulas::value(code, overlap(a, b), area_a, area_b, other, zero_division))
}

/// Write the signed IoU of each of `pairs` of two batches of bounds `(n, 2·ndim)` into `out`.
#[pyfunction]
fn signed_ious(
    py: Python<'_>,
    bounds_a: PyReadonlyArray2<'_, f64>,
    bounds_b: PyReadonlyArray2<'_, f64>,
    pairs: PyRef<'_, Pairs>,
    zero_division: f64,
    mut out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let (a, width) = rows("bounds_a", &bounds_a)?;
    let (b, width_b) = rows("bounds_b", &bounds_b)?;
    if width != width_b {
        return Err(invalid_argument("bounds_b", &format!("{width} columns, as bounds_a"), width_b));
    }
    let (index_a, index_b) = pairs.borrowed(py);
    let job = Job::of_pairs(index_a.as_slice()?, index_b.as_slice()?, pairs.outer());
    let out = out.as_slice_mut()?;
    if out.len() != job.len() {
        return Err(invalid_argument("out", "one value per pair", out.len()));
    }
    py.detach(|| {
        job.for_rows(out, threads::chunk_of(PAIR_NS), |i, row, row_out| {
            for (c, (j, _)) in row.enumerate() {
                row_out[c] = signed_iou(&a[i * width..(i + 1) * width], &b[j * width..(j + 1) * width], zero_division);
            }
        })
    });
    Ok(())
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(signed_ious, module)?)?;
    module.add_function(wrap_pyfunction!(aligned_pairs, module)?)?;
    module.add_function(wrap_pyfunction!(aligned_single, module)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_sharing_a_corner_square() {
        // [0, 2]² and [1, 3]² share [1, 2]², inside the enclosing [0, 3]².
        let (a, b) = ([0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 3.0]);
        assert_eq!(overlap(&a, &b), 1.0);
        assert_eq!(enclosing(&a, &b), 9.0);
    }

    #[test]
    fn touching_and_nan_bounds_share_positive_zero() {
        let touching = overlap(&[0.0, 1.0], &[1.0, 2.0]);
        assert_eq!(touching.to_bits(), 0.0f64.to_bits());
        assert_eq!(overlap(&[f64::NAN, 1.0], &[0.0, 2.0]).to_bits(), 0.0f64.to_bits());
    }

    #[test]
    fn signed_iou_goes_negative_with_the_gap() {
        // Apart along x by 1, overlapping along y by 1: sides -1 and 1, signed area -1; -1 / (1 + 1 + 1).
        assert_eq!(signed_iou(&[0.0, 0.0, 1.0, 1.0], &[2.0, 0.0, 3.0, 1.0], f64::NAN), -1.0 / 3.0);
        // Apart along both axes by 2: the sides' product is positive, the signed area -4: -4 / (1 + 1 + 4).
        assert_eq!(signed_iou(&[0.0, 0.0, 1.0, 1.0], &[3.0, 3.0, 4.0, 4.0], f64::NAN), -4.0 / 6.0);
        // Touching edges: +0.0, never -0.0.
        assert_eq!(signed_iou(&[0.0, 0.0, 1.0, 1.0], &[1.0, 0.0, 2.0, 1.0], f64::NAN).to_bits(), 0.0f64.to_bits());
        // Two points at one place: 0 / 0, NaN or the zero_division asked for.
        assert!(signed_iou(&[1.0, 1.0], &[1.0, 1.0], f64::NAN).is_nan());
        assert_eq!(signed_iou(&[1.0, 1.0], &[1.0, 1.0], 1.0), 1.0);
    }

    #[test]
    fn three_dimensional_boxes_multiply_three_overlaps() {
        let a = [0.0, 0.0, 0.0, 2.0, 3.0, 4.0];
        let b = [1.0, 1.0, 1.0, 5.0, 5.0, 5.0];
        assert_eq!(overlap(&a, &b), 1.0 * 2.0 * 3.0);
        assert_eq!(enclosing(&a, &b), 5.0 * 5.0 * 5.0);
    }
}
