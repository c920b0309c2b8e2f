//! The 3-D kernels: boxes turned about z (`RotatedBox3D`, 7 numbers) and in any orientation
//! (`OrientedBox3D`, 15 numbers), their intersection volumes and the volumes of their convex hulls.
//!
//! - Yaw boxes (`yaw`): their intersection is a prism, the rotated-box kernel's exact footprint
//!   area times the overlap of their vertical extents.
//! - Oriented boxes (`oriented`): in the frame of the smaller box (`frame`), by containment, shared
//!   axes (exact closed forms, the rotated kernel's `local_area` for one shared axis) or else the
//!   divergence theorem over the clipped faces.
//! - Hulls of either (GIoU's enclosure, `hull3d`): the convex hull of the sixteen corners, a yaw box
//!   being the oriented box of its turn about z.
//!
//! Each pass reads the rows of the pairs (`Pairs`), measures each pair with one call and applies
//! the caller's formula; a single pair is that call once. Each pair is measured in a canonical order
//! and writes only its own output: the same bits for `(b, a)` and for any number of threads.
//! `Box3D` has the closed form of `aligned` and meets these kinds by promotion.

mod frame;
mod hull3d;
mod oriented;
#[cfg(test)]
mod tests;
mod yaw;

use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyReadwriteArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::invalid_argument;
use crate::formulas::{self, Code};
use crate::pairs::{Borrowed, Formula, Pairs};
use crate::threads;
use frame::Box15;
use yaw::Yaw;

/// Nanoseconds a pair costs on one thread: of yaw boxes whose bounds overlap, of oriented ones, of a
/// matrix's intersections (most of them pruned by their bounds, yaw then oriented), and a hull.
const YAW_NS: usize = 60;
const ORIENTED_NS: usize = 1500;
const PRUNED_YAW_NS: usize = 5;
const PRUNED_ORIENTED_NS: usize = 20;
const HULL_NS: usize = 8000;

/// The boxes of `W` numbers each of a batch `(n, W)`, as rows.
fn rows<'a, const W: usize>(name: &str, coords: &'a PyReadonlyArray2<'_, f64>) -> PyResult<&'a [f64]> {
    if coords.shape()[1] != W {
        return Err(invalid_argument(name, &format!("3-D boxes (n, {W})"), format!("{:?}", coords.shape())));
    }
    Ok(coords.as_slice()?)
}

/// Box i of rows of `W` numbers.
#[inline(always)]
fn row<const W: usize>(rows: &[f64], i: usize) -> [f64; W] {
    rows[i * W..(i + 1) * W].try_into().expect("W numbers a row")
}

/// What a pass measures: `measure` of a pair, which costs about `pair_ns` on one thread
/// (`matrix_ns` a pair of a matrix).
struct Measure<F> {
    pair_ns: usize,
    matrix_ns: usize,
    measure: F,
}

/// Write `formula` of `kind`'s measure of each of `pairs` of two batches of boxes of `W` numbers into `out`.
fn pass<const W: usize, F>(
    py: Python<'_>,
    coords_a: PyReadonlyArray2<'_, f64>,
    coords_b: PyReadonlyArray2<'_, f64>,
    pairs: PyRef<'_, Pairs>,
    formula: PyRef<'_, Formula>,
    mut out: PyReadwriteArray1<'_, f64>,
    kind: Measure<F>,
) -> PyResult<()>
where
    F: Fn(&[f64; W], &[f64; W]) -> f64 + Sync,
{
    let (a, b) = (rows::<W>("coords_a", &coords_a)?, rows::<W>("coords_b", &coords_b)?);
    let borrowed = Borrowed::new(py, &pairs, &formula, &out)?;
    let job = borrowed.job()?;
    let out = out.as_slice_mut()?;
    let chunk = threads::chunk_of(if job.outer { kind.matrix_ns } else { kind.pair_ns });
    py.detach(|| {
        job.for_rows(out, chunk, |i, pairs, row_out| {
            let box_a = row::<W>(a, i);
            for (c, (j, k)) in pairs.enumerate() {
                row_out[c] = job.value((kind.measure)(&box_a, &row::<W>(b, j)), i, j, k, row_out[c]);
            }
        })
    });
    Ok(())
}

/// Write `formula` of the intersection (with `hull`: the convex hull) volume of each of `pairs` of
/// two batches of yaw boxes `(n, 7)` into `out`.
#[pyfunction]
fn yaw_pairs(
    py: Python<'_>,
    coords_a: PyReadonlyArray2<'_, f64>,
    coords_b: PyReadonlyArray2<'_, f64>,
    hull: bool,
    pairs: PyRef<'_, Pairs>,
    formula: PyRef<'_, Formula>,
    out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    if hull {
        let measure = |a: &Yaw, b: &Yaw| hull3d::hull_volume(&yaw::turned(a), &yaw::turned(b));
        pass(py, coords_a, coords_b, pairs, formula, out, Measure { pair_ns: HULL_NS, matrix_ns: HULL_NS, measure })
    } else {
        let kind = Measure { pair_ns: YAW_NS, matrix_ns: PRUNED_YAW_NS, measure: yaw::yaw_prism_volume };
        pass(py, coords_a, coords_b, pairs, formula, out, kind)
    }
}

/// Write `formula` of the intersection (with `hull`: the convex hull) volume of each of `pairs` of
/// two batches of oriented boxes `(n, 15)` into `out`.
#[pyfunction]
fn oriented_pairs(
    py: Python<'_>,
    coords_a: PyReadonlyArray2<'_, f64>,
    coords_b: PyReadonlyArray2<'_, f64>,
    hull: bool,
    pairs: PyRef<'_, Pairs>,
    formula: PyRef<'_, Formula>,
    out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    if hull {
        let kind = Measure { pair_ns: HULL_NS, matrix_ns: HULL_NS, measure: hull3d::hull_volume };
        pass(py, coords_a, coords_b, pairs, formula, out, kind)
    } else {
        let kind = Measure { pair_ns: ORIENTED_NS, matrix_ns: PRUNED_ORIENTED_NS, measure: oriented::oriented_volume };
        pass(py, coords_a, coords_b, pairs, formula, out, kind)
    }
}

/// Two single boxes of `W` numbers and the formula code, checked.
fn single<const W: usize>(a: &[f64], b: &[f64], code: u8) -> PyResult<([f64; W], [f64; W], Code)> {
    let (Ok(a), Ok(b)) = (a.try_into(), b.try_into()) else {
        let lengths = format!("{} and {}", a.len(), b.len());
        return Err(invalid_argument("a, b", &format!("two 3-D boxes of {W} numbers"), lengths));
    };
    let code = Code::from_u8(code).ok_or_else(|| invalid_argument("code", "a formula code from 0 to 6", code))?;
    Ok((a, b, code))
}

/// The volume of a box `(cx, cy, cz, dx, dy, dz, ...)` as the regions give it: `(dx · dy) · dz`.
#[inline(always)]
fn volume(numbers: &[f64]) -> f64 {
    (numbers[3] * numbers[4]) * numbers[5]
}

/// The formula `code` of one pair of yaw boxes (rows of 7 numbers): the pass's measure and formula
/// of one pair, the volumes those of `RotatedBox3D`.
#[pyfunction]
fn yaw_single(
    a: PyReadonlyArray1<'_, f64>,
    b: PyReadonlyArray1<'_, f64>,
    code: u8,
    zero_division: f64,
) -> PyResult<f64> {
    let (a, b, code) = single::<7>(a.as_slice()?, b.as_slice()?, code)?;
    let measure = yaw::yaw_prism_volume(&a, &b);
    Ok(formulas::value(code, measure, volume(&a), volume(&b), 0.0, zero_division))
}

/// The formula `code` of one pair of oriented boxes (rows of 15 numbers), one call.
#[pyfunction]
fn oriented_single(
    a: PyReadonlyArray1<'_, f64>,
    b: PyReadonlyArray1<'_, f64>,
    code: u8,
    zero_division: f64,
) -> PyResult<f64> {
    let (a, b, code): (Box15, Box15, Code) = single::<15>(a.as_slice()?, b.as_slice()?, code)?;
    let measure = oriented::oriented_volume(&a, &b);
    Ok(formulas::value(code, measure, volume(&a), volume(&b), 0.0, zero_division))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(yaw_pairs, module)?)?;
    module.add_function(wrap_pyfunction!(oriented_pairs, module)?)?;
    module.add_function(wrap_pyfunction!(yaw_single, module)?)?;
    module.add_function(wrap_pyfunction!(oriented_single, module)?)?;
    Ok(())
}
