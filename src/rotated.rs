//! RotatedBox × RotatedBox: the intersection and the convex hull of each pair.
//!
//! A box is `(cx, cy, w, h, angle)`, its corners `centre + R(angle) @ (±w/2, ±h/2)`
//! (`geoiou.regions.rotated_box`). Each pair is measured in the frame of its first box `a`
//! (centred on it, turned by minus its angle), where `a` is an axis-aligned rectangle:
//!
//! - the intersection clamps the second box into that rectangle, the frame scaled to make it the
//!   square `[-1, 1]²` (`intersection`): a fixed amount of branch-free work per pair, no clipped
//!   polygons to grow. Parallel boxes (relative angle a multiple of 90 degrees) take the exact
//!   closed form of two rectangles, and a box inside the other its exact area;
//! - the hull (GIoU's enclosure) walks the eight edge normals of the two boxes in angular order and
//!   keeps, for each, the box that reaches further (`hull`).
//!
//! Only differences of centres and of angles enter the frame, so boxes far from the origin keep the
//! precision of their sizes, and boxes whose angles differ by a multiple of 90 degrees are exactly
//! aligned in it (`angles::unit_vector` applies quarter turns exactly, as the regions' corners do).
//! The first box of a pair is the one that comes first in `(cx, cy, w, h, angle)`, so `(a, b)` and
//! `(b, a)` run the same arithmetic: the same bits. An intersection whose boxes' bounds (those of
//! `RotatedBox.bounds`) do not overlap with positive area is 0 without the clamping. Each pair
//! writes only its own output, so any number of threads gives the same bits too.
//!
//! The 3-D kernels (`boxes3d`) measure the footprints of yaw boxes with `intersection_area` and
//! `hull_area`, and the rectangles of oriented boxes that share an axis with `local_area`.

mod hull;
mod intersection;
#[cfg(test)]
mod tests;

pub(crate) use intersection::{extent, intersection_area, local_area, overlap_length};

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyReadwriteArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::angles::unit_vector;
use crate::errors::invalid_argument;
use crate::formulas::{self, Code};
use crate::pairs::{Borrowed, Formula, Pairs};
use crate::threads;

/// Nanoseconds a pair costs on one thread (of boxes whose bounds overlap), a pair of a matrix's
/// intersections (most of them pruned by their bounds) and a box's unit vector.
const PAIR_NS: usize = 40;
const PRUNED_PAIR_NS: usize = 5;
const UNIT_VECTOR_NS: usize = 30;
/// Pairs per box from which each box's cos and sin are computed once, into a table, rather than per
/// pair (a table costs about a pair's worth of work per box; reading it saves a third of a pair's).
const TABLE_PAIRS_PER_BOX: usize = 4;
/// Pairs below which no table is computed, however few boxes there are (a small call is mostly
/// pruned pairs, which need no cos or sin).
const TABLE_MIN_PAIRS: usize = 1024;
/// Numbers per box.
const WIDTH: usize = 5;

/// A rotated box: centre, width, height and angle (degrees, counter-clockwise).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RotatedBox {
    pub cx: f64,
    pub cy: f64,
    pub w: f64,
    pub h: f64,
    pub angle: f64,
}

impl RotatedBox {
    /// The box of a row `(cx, cy, w, h, angle)`.
    #[inline(always)]
    pub fn from_row(row: &[f64]) -> Self {
        RotatedBox { cx: row[0], cy: row[1], w: row[2], h: row[3], angle: row[4] }
    }

    /// Whether the sum of both boxes' numbers is NaN (a NaN, or infinities of both signs).
    #[inline(always)]
    fn any_nan_with(&self, other: &RotatedBox) -> bool {
        let a = self.cx + self.cy + self.w + self.h + self.angle;
        (a + other.cx + other.cy + other.w + other.h + other.angle).is_nan()
    }
}

/// A box with its unit vector `(cos, sin)`.
#[derive(Clone, Copy)]
struct Turned {
    rect: RotatedBox,
    cos: f64,
    sin: f64,
}

#[inline(always)]
fn turned(rect: RotatedBox) -> Turned {
    let (cos, sin) = unit_vector(rect.angle);
    Turned { rect, cos, sin }
}

/// A pair in the frame of its first box `a`: the centre `(x, y)` and direction `(cos, sin)` of `b`
/// there, and both boxes' half sizes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Local {
    pub x: f64,
    pub y: f64,
    pub cos: f64,
    pub sin: f64,
    pub a_hw: f64,
    pub a_hh: f64,
    pub b_hw: f64,
    pub b_hh: f64,
}

/// Whether box `b` comes before box `a` in `(cx, cy, w, h, angle)`: the pair's canonical order.
#[inline(always)]
fn comes_first(a: &RotatedBox, b: &RotatedBox) -> bool {
    if b.cx != a.cx {
        return b.cx < a.cx;
    }
    if b.cy != a.cy {
        return b.cy < a.cy;
    }
    if b.w != a.w {
        return b.w < a.w;
    }
    if b.h != a.h {
        return b.h < a.h;
    }
    b.angle < a.angle
}

/// `R(-angle) (x, y)` for the unit vector `(cos, sin)` of the angle.
#[inline(always)]
fn turn_back(x: f64, y: f64, cos: f64, sin: f64) -> (f64, f64) {
    (cos * x + sin * y, cos * y - sin * x)
}

/// The direction of `b` in the frame of `a`, exact when the relative angle is a multiple of 90 degrees.
///
/// Equal angles give `sin` exactly 0 and angles 90 degrees apart `cos` exactly 0 (the same products
/// cancel); the other one is ±1 up to rounding, made exact so that such pairs are exactly aligned in
/// the frame and shared edges and corners give exactly 0.
#[inline(always)]
fn relative_direction(a_cos: f64, a_sin: f64, b_cos: f64, b_sin: f64) -> (f64, f64) {
    let (mut cos, mut sin) = turn_back(b_cos, b_sin, a_cos, a_sin);
    if sin == 0.0 {
        cos = 1.0f64.copysign(cos);
    } else if cos == 0.0 {
        sin = 1.0f64.copysign(sin);
    }
    (cos, sin)
}

/// `hull_area` or `intersection_area` of two boxes whose unit vectors come from a table, or (NaN)
/// are computed here: a pair's value is this one function's, table or not.
#[inline(always)]
fn measure(hull: bool, a: RotatedBox, a_unit: (f64, f64), b: RotatedBox, b_unit: (f64, f64)) -> f64 {
    if a.any_nan_with(&b) {
        return f64::NAN;
    }
    if !hull && intersection::certainly_empty(&a, &b) {
        return 0.0; // before any cos or sin: a few comparisons
    }
    let with_unit = |rect: RotatedBox, (cos, sin): (f64, f64)| {
        if cos.is_nan() { turned(rect) } else { Turned { rect, cos, sin } }
    };
    let (a, b) = (with_unit(a, a_unit), with_unit(b, b_unit));
    if hull { hull::hull_of_turned(a, b) } else { intersection::intersection_of_turned(a, b) }
}

/// The unit vector `(cos, sin)` of `angle(k)` for each of `count` boxes, flat: `2k`, `2k + 1`.
fn unit_vectors(count: usize, angle: impl Fn(usize) -> f64 + Sync) -> Vec<f64> {
    let mut table = vec![0.0; 2 * count];
    threads::for_chunks(&mut table, 2, threads::chunk_of(UNIT_VECTOR_NS), |first, part| {
        for (offset, unit) in part.chunks_mut(2).enumerate() {
            (unit[0], unit[1]) = unit_vector(angle(first / 2 + offset));
        }
    });
    table
}

/// Box i's unit vector from `table`, or NaN (to compute) when there is no table.
#[inline(always)]
fn tabled(table: &[f64], i: usize) -> (f64, f64) {
    if table.is_empty() { (f64::NAN, f64::NAN) } else { (table[2 * i], table[2 * i + 1]) }
}

/// A batch of boxes `(n, 5)` as rows.
fn rows<'a>(name: &str, coords: &'a PyReadonlyArray2<'_, f64>) -> PyResult<&'a [f64]> {
    if coords.shape()[1] != WIDTH {
        return Err(invalid_argument(name, "rotated boxes (n, 5)", format!("{:?}", coords.shape())));
    }
    Ok(coords.as_slice()?)
}

/// Write `formula` of the intersection (with `hull`: the convex hull) area of each of `pairs` of two
/// batches of rotated boxes `(n, 5)` into `out`.
///
/// When there are at least `TABLE_PAIRS_PER_BOX` pairs per box (a pairwise matrix), each box's cos
/// and sin are computed once, into a table, rather than for each of its pairs; with fewer pairs
/// nothing is computed per box, so a call's cost follows the pairs asked, not the batches.
#[pyfunction]
fn rotated_pairs(
    py: Python<'_>,
    coords_a: PyReadonlyArray2<'_, f64>,
    coords_b: PyReadonlyArray2<'_, f64>,
    hull: bool,
    pairs: PyRef<'_, Pairs>,
    formula: PyRef<'_, Formula>,
    mut out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let (a, b) = (rows("coords_a", &coords_a)?, rows("coords_b", &coords_b)?);
    let borrowed = Borrowed::new(py, &pairs, &formula, &out)?;
    let job = borrowed.job()?;
    let out = out.as_slice_mut()?;
    let (count_a, count_b) = (a.len() / WIDTH, b.len() / WIDTH);
    let tables = job.len() >= TABLE_MIN_PAIRS && job.len() >= TABLE_PAIRS_PER_BOX * (count_a + count_b);
    py.detach(|| {
        let (table_a, table_b) = if tables {
            (unit_vectors(count_a, |i| a[i * WIDTH + 4]), unit_vectors(count_b, |i| b[i * WIDTH + 4]))
        } else {
            (Vec::new(), Vec::new())
        };
        let pair_ns = if job.outer && !hull { PRUNED_PAIR_NS } else { PAIR_NS };
        job.for_rows(out, threads::chunk_of(pair_ns), |i, row, row_out| {
            let (box_a, unit_a) = (RotatedBox::from_row(&a[i * WIDTH..]), tabled(&table_a, i));
            for (c, (j, k)) in row.enumerate() {
                let box_b = RotatedBox::from_row(&b[j * WIDTH..(j + 1) * WIDTH]);
                let value = measure(hull, box_a, unit_a, box_b, tabled(&table_b, j));
                row_out[c] = job.value(value, i, j, k, row_out[c]);
            }
        })
    });
    Ok(())
}

/// The formula `code` of the intersection of two single boxes (rows of 5 numbers), one call: the
/// pass's measure and formula of one pair, the areas `w * h` as `RotatedBox` gives them.
/// `GiouOfHull` is the two passes of GIoU with the hull in one: the intersection's formula, then
/// the hull's with it given.
#[pyfunction]
fn rotated_single(
    a: PyReadonlyArray1<'_, f64>,
    b: PyReadonlyArray1<'_, f64>,
    code: u8,
    zero_division: f64,
) -> PyResult<f64> {
    let (a, b) = (a.as_slice()?, b.as_slice()?);
    if a.len() != WIDTH || b.len() != WIDTH {
        let lengths = format!("{} and {}", a.len(), b.len());
        return Err(invalid_argument("a, b", "two rotated boxes of 5 numbers", lengths));
    }
    let code = Code::from_u8(code).ok_or_else(|| invalid_argument("code", "a formula code from 0 to 6", code))?;
    let (box_a, box_b) = (RotatedBox::from_row(a), RotatedBox::from_row(b));
    let no_table = (f64::NAN, f64::NAN);
    let (area_a, area_b) = (a[2] * a[3], b[2] * b[3]);
    let intersection = measure(false, box_a, no_table, box_b, no_table);
    if code == Code::GiouOfHull {
        let given = formulas::value(Code::Intersection, intersection, area_a, area_b, 0.0, zero_division);
        let enclosure = measure(true, box_a, no_table, box_b, no_table);
        return Ok(formulas::value(code, enclosure, area_a, area_b, given, zero_division));
    }
    Ok(formulas::value(code, intersection, area_a, area_b, 0.0, zero_division))
}

/// The unit vector `(cos, sin)` of each angle (degrees) as the kernels compute it, `(n, 2)`: the
/// table of a pass (for the tests, which hold it to the regions' corners).
#[pyfunction]
fn rotated_unit_vectors<'py>(
    py: Python<'py>,
    angles: PyReadonlyArray1<'py, f64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let angles = angles.as_slice()?;
    let table = py.detach(|| unit_vectors(angles.len(), |i| angles[i]));
    Ok(Array2::from_shape_vec((angles.len(), 2), table).expect("two numbers a box").into_pyarray(py))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(rotated_pairs, module)?)?;
    module.add_function(wrap_pyfunction!(rotated_single, module)?)?;
    module.add_function(wrap_pyfunction!(rotated_unit_vectors, module)?)?;
    Ok(())
}
