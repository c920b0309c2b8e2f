//! GIoU's enclosure of polygons and masks: the area of the convex hull of the union of each pair.
//!
//! Each region's convex hull comes from the region layer (`geoiou.regions.hulls.ConvexHulls`); this
//! module derives the kernel's tables from them once per `ConvexHulls` (`tables`: each hull
//! counter-clockwise in a frame centred on its bounds, with its normals' pseudo-angles, its running
//! shoelace sums and a first guess of its furthest vertex in each of 64 directions), and measures each
//! pair from the two hulls (`pair`): by the bridges between hulls whose bounds are apart (most pairs
//! of a pairwise matrix), else by walking both hulls in the order of their normals. `(a, b)` and
//! `(b, a)` give the same bits, and each pair writes only its own output, so any number of threads
//! gives the same bits too.

mod pair;
mod tables;

use numpy::ndarray::{Array1, Array2};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyReadwriteArray1, PyUntypedArrayMethods,
};
use pyo3::prelude::*;

use crate::errors::invalid_argument;
use crate::pairs::{Borrowed, Formula, Pairs};
use crate::threads;
use pair::{Hull, NO_FRAME, NO_GUESSES};
use tables::{FRAME_WIDTH, GUESS_BUCKETS, WIDTH};

/// Nanoseconds a pair costs on one thread (star polygons' hulls, mostly apart).
const PAIR_NS: usize = 50;

/// One side of a pass as Python hands it over: its hulls' tables (vertices, frames, slots, guesses, as
/// `hull_tables` made them) and each region's row in them.
type Side<'py> = (
    PyReadonlyArray2<'py, f64>,
    PyReadonlyArray2<'py, f64>,
    PyReadonlyArray1<'py, i64>,
    PyReadonlyArray2<'py, i32>,
    PyReadonlyArray1<'py, i64>,
);

/// The tables of a set of hulls, borrowed, with each region's hull.
struct View<'a> {
    vertices: &'a [f64],
    frames: &'a [f64],
    slots: &'a [i64],
    guesses: &'a [i32],
    rows: &'a [i64],
}

impl<'a> View<'a> {
    /// The borrowed side `name`, its tables' shapes and slots checked (so no hull's rows leave the
    /// tables). The rows are not: the region layer gathers the hulls of the regions the pairs name
    /// only (`Mask._hull_table`), and the others' rows are placeholders that may name no hull; a row
    /// out of range where a pair reads it is a broken promise of that layer, and the slice lookups
    /// panic on it.
    fn new(name: &str, side: &'a Side<'_>) -> PyResult<Self> {
        let (vertices, frames, slots, guesses, rows) = side;
        let hulls = frames.shape()[0];
        if vertices.shape()[1] != WIDTH || frames.shape()[1] != FRAME_WIDTH || guesses.shape()[1] != GUESS_BUCKETS {
            let shapes = format!("{:?}, {:?}, {:?}", vertices.shape(), frames.shape(), guesses.shape());
            return Err(invalid_argument(name, "the tables of hull_tables", shapes));
        }
        let slots_slice = slots.as_slice()?;
        let rising = slots_slice.first() == Some(&0) && slots_slice.windows(2).all(|pair| pair[0] < pair[1]);
        if slots.len() != hulls + 1
            || guesses.shape()[0] != hulls
            || !rising
            || slots_slice[hulls] as usize != vertices.shape()[0]
        {
            return Err(invalid_argument(name, "the tables of hull_tables", "slots that do not match them"));
        }
        Ok(View {
            vertices: vertices.as_slice()?,
            frames: frames.as_slice()?,
            slots: slots_slice,
            guesses: guesses.as_slice()?,
            rows: rows.as_slice()?,
        })
    }

    /// The hull of region `region`.
    #[inline(always)]
    fn hull(&self, region: usize) -> Hull<'a> {
        let row = self.rows[region] as usize;
        let (start, stop) = (self.slots[row] as usize, self.slots[row + 1] as usize);
        Hull {
            rows: &self.vertices[start * WIDTH..stop * WIDTH],
            count: stop - start - 1,
            frame: &self.frames[row * FRAME_WIDTH..(row + 1) * FRAME_WIDTH],
            guesses: &self.guesses[row * GUESS_BUCKETS..(row + 1) * GUESS_BUCKETS],
        }
    }
}

/// The area of a hull of doubled area `twice`: 0 where rounding left it negative (or NaN).
#[inline(always)]
fn area(twice: f64) -> f64 {
    if twice > 0.0 { 0.5 * twice } else { 0.0 }
}

/// The kernel's tables of the hulls `coords[offsets[k]:offsets[k + 1]]` (rows of x, y): vertices
/// `(V, 6)`, frames `(H, 6)`, slots `(H + 1,)`, guesses `(H, 64)` (int32).
#[pyfunction]
#[allow(clippy::type_complexity)] // the four tables, as the stub names them
fn hull_tables<'py>(
    py: Python<'py>,
    coords: PyReadonlyArray2<'py, f64>,
    offsets: PyReadonlyArray1<'py, i64>,
) -> PyResult<(
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray2<i32>>,
)> {
    if coords.shape()[1] != 2 {
        return Err(invalid_argument("coords", "vertices (V, 2)", format!("{:?}", coords.shape())));
    }
    let (points, given) = (coords.as_slice()?, offsets.as_slice()?);
    let rising = given.first() == Some(&0) && given.windows(2).all(|pair| pair[0] <= pair[1]);
    if !rising || given[given.len() - 1] as usize > coords.shape()[0] {
        return Err(invalid_argument("offsets", "rising from 0 to at most the number of vertices", "other values"));
    }
    let offsets: Vec<usize> = given.iter().map(|&offset| offset as usize).collect();
    let derived = py.detach(|| tables::derive(points, &offsets));
    let hulls = offsets.len() - 1;
    let table = |values: Vec<f64>, width: usize| Array2::from_shape_vec((values.len() / width, width), values);
    let vertices = table(derived.vertices, WIDTH).expect("whole rows");
    let frames = table(derived.frames, FRAME_WIDTH).expect("whole rows");
    let guesses = Array2::from_shape_vec((hulls, GUESS_BUCKETS), derived.guesses).expect("whole rows");
    Ok((
        vertices.into_pyarray(py),
        frames.into_pyarray(py),
        Array1::from_vec(derived.slots).into_pyarray(py),
        guesses.into_pyarray(py),
    ))
}

/// Write `formula` of the area of the convex hull of each of `pairs` into `out`, region i of side a
/// being hull `rows_a[i]` of its tables.
#[pyfunction]
fn hull_pairs(
    py: Python<'_>,
    side_a: Side<'_>,
    side_b: Side<'_>,
    pairs: PyRef<'_, Pairs>,
    formula: PyRef<'_, Formula>,
    mut out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let (a, b) = (View::new("side_a", &side_a)?, View::new("side_b", &side_b)?);
    let borrowed = Borrowed::new(py, &pairs, &formula, &out)?;
    let job = borrowed.job()?;
    let out = out.as_slice_mut()?;
    py.detach(|| {
        job.for_rows(out, threads::chunk_of(PAIR_NS), |i, row, row_out| {
            let hull_a = a.hull(i);
            for (c, (j, k)) in row.enumerate() {
                let twice = pair::twice_area(&hull_a, &b.hull(j));
                row_out[c] = job.value(area(twice), i, j, k, row_out[c]);
            }
        })
    });
    Ok(())
}

/// Twice the area of the convex hull of two hulls by the walk alone (for the tests): the rows
/// `start .. start + count + 1` of each vertex table, b's centre at `t` in a's frame.
#[pyfunction]
fn hull_walked(
    vertices_a: PyReadonlyArray2<'_, f64>,
    slot_a: (usize, usize),
    vertices_b: PyReadonlyArray2<'_, f64>,
    slot_b: (usize, usize),
    t: (f64, f64),
) -> PyResult<f64> {
    let ring = |name: &str, vertices: &PyReadonlyArray2<'_, f64>, (start, count): (usize, usize)| {
        if vertices.shape()[1] != WIDTH || count == 0 || start + count >= vertices.shape()[0] {
            let shape = format!("{count} vertices from row {start} of {:?}", vertices.shape());
            return Err(invalid_argument(name, "a hull of the vertex table", shape));
        }
        Ok((start * WIDTH, (start + count + 1) * WIDTH, count))
    };
    let (begin_a, end_a, count_a) = ring("slot_a", &vertices_a, slot_a)?;
    let (begin_b, end_b, count_b) = ring("slot_b", &vertices_b, slot_b)?;
    let hull = |rows, count| Hull { rows, count, frame: &NO_FRAME, guesses: &NO_GUESSES };
    let a = hull(&vertices_a.as_slice()?[begin_a..end_a], count_a);
    let b = hull(&vertices_b.as_slice()?[begin_b..end_b], count_b);
    Ok(pair::walked(&a, &b, t.0, t.1))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(hull_tables, module)?)?;
    module.add_function(wrap_pyfunction!(hull_pairs, module)?)?;
    module.add_function(wrap_pyfunction!(hull_walked, module)?)?;
    Ok(())
}

#[cfg(test)]
mod tests;
