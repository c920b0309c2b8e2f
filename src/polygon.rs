//! Polygon × Polygon (holes and parts included), RotatedBox × Polygon and Box × Polygon: the exact
//! shared area from the edges alone.
//!
//! Pick a point O. Every directed ring edge e = (p, q) spans the triangle T_e = (O, p, q), signed by
//! its orientation. For a valid polygon A (exteriors and holes, several parts), the signed triangles
//! add up to A's indicator function almost everywhere, `1_A(x) = Σ_e σ_e · 1_{T_e}(x)` (the shoelace
//! formula before it is integrated). Multiplying the sums for A and B and integrating gives an identity
//! with no approximation in it:
//!
//! ```text
//! |A ∩ B| = Σ_{e ∈ ∂A} Σ_{f ∈ ∂B} σ_e σ_f · |T_e ∩ T_f|
//! ```
//!
//! Each term is the area shared by two triangles with the common apex O, which has a closed form
//! (`overlap`): the intersection polygon is never built, and each term needs a fixed handful of
//! operations. Every term is a continuous function of the vertices, bounded by the smaller of the two
//! triangles' areas, so there are no topological decisions whose error could be larger than rounding:
//! a vertex on an edge, shared or overlapping edges, touching holes and identical polygons are not
//! special cases.
//!
//! How a pass runs: one function measures one pair (`pair`): it prunes the pair by bounds, puts its
//! frame at O, lays out each side's edges in that frame (a fan, `fan`), then sums the terms over the
//! edge pairs whose triangles share an angle. Each region's bounds come from a table of its side when
//! the pairs are at least as many as the side's regions, else each pair computes them (the same
//! numbers: minima and maxima are exact), so a call's cost follows the pairs asked for, not the batch.
//! Each pair writes only its own output, so the result has the same bits for any number of threads;
//! two polygons are measured in a canonical order (`pair::polygon_order`), so `(a, b)` and `(b, a)`
//! give the same bits too.

mod fan;
mod overlap;
mod pair;

use std::cell::RefCell;

use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyReadwriteArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::invalid_argument;
use crate::formulas::{self, Code};
use crate::pairs::{Borrowed, Formula, Job, Pairs};
use crate::threads;
use pair::{Bounds, RotatedFrame, Scratch};

/// Nanoseconds on one thread for a pair whose bounds overlap (two star polygons of about 20 vertices).
const PAIR_NS: usize = 800;
/// Nanoseconds a pair of a matrix costs (most pairs of a matrix are pruned by their bounds).
const MATRIX_PAIR_NS: usize = 5;
/// Nanoseconds a region's bounds cost (a polygon of about 20 vertices).
const BOUNDS_NS: usize = 20;
/// Edges a thread's fans keep room for between passes; beyond, the room goes back after each row.
const KEPT_EDGES: usize = 1 << 16;

/// A polygon store as Python hands it over (`RaggedPolygons`' layout): the vertices of its closed rings
/// `(V, 2)`, its ring, part and geometry offsets, and each geometry's area.
type StoreArrays<'py> = (
    PyReadonlyArray2<'py, f64>,
    PyReadonlyArray1<'py, i64>,
    PyReadonlyArray1<'py, i64>,
    PyReadonlyArray1<'py, i64>,
    PyReadonlyArray1<'py, f64>,
);

/// One side of a polygon pass: its store and each region's geometry in it.
type SideArrays<'py> = (StoreArrays<'py>, PyReadonlyArray1<'py, i64>);

/// A polygon store, borrowed: ring r is the vertices `ring_offsets[r]..ring_offsets[r + 1]` (x, y pairs
/// in `coords`), part p the rings `part_offsets[p]..`, geometry g the parts `geometry_offsets[g]..`.
pub struct Store<'a> {
    coords: &'a [f64],
    ring_offsets: &'a [i64],
    part_offsets: &'a [i64],
    geometry_offsets: &'a [i64],
    area: &'a [f64],
}

impl<'a> Store<'a> {
    /// The borrowed store `name`, its layout checked (every offset rising and inside the next table),
    /// so no geometry reaches outside its arrays.
    fn new(name: &str, arrays: &'a StoreArrays<'_>) -> PyResult<Self> {
        let (coords, ring_offsets, part_offsets, geometry_offsets, area) = arrays;
        if coords.shape()[1] != 2 {
            return Err(invalid_argument(
                name,
                "a polygon store (vertices (V, 2) first)",
                format!("{:?}", coords.shape()),
            ));
        }
        let offsets = |values: &'a PyReadonlyArray1<'_, i64>, within: usize| -> PyResult<&'a [i64]> {
            let values = values.as_slice()?;
            let rising = values.windows(2).all(|pair| pair[0] <= pair[1]);
            match (values.first(), values.last()) {
                (Some(&first), Some(&last)) if first >= 0 && last as usize <= within && rising => Ok(values),
                _ => {
                    Err(invalid_argument(name, "a polygon store (rising offsets inside their tables)", "other offsets"))
                }
            }
        };
        let ring_offsets = offsets(ring_offsets, coords.shape()[0])?;
        let part_offsets = offsets(part_offsets, ring_offsets.len() - 1)?;
        let geometry_offsets = offsets(geometry_offsets, part_offsets.len() - 1)?;
        let area = area.as_slice()?;
        if area.len() != geometry_offsets.len() - 1 {
            let given = format!("{} areas for {} geometries", area.len(), geometry_offsets.len() - 1);
            return Err(invalid_argument(name, "a polygon store (one area per geometry)", given));
        }
        Ok(Store { coords: coords.as_slice()?, ring_offsets, part_offsets, geometry_offsets, area })
    }

    /// The number of geometries.
    fn size(&self) -> usize {
        self.area.len()
    }

    /// Where geometry g's vertices start and stop.
    #[inline(always)]
    fn vertices(&self, g: usize) -> (usize, usize) {
        let vertex = |part: i64| self.ring_offsets[self.part_offsets[part as usize] as usize] as usize;
        (vertex(self.geometry_offsets[g]), vertex(self.geometry_offsets[g + 1]))
    }

    /// Geometry g checked to be one of the store's.
    fn geometry(&self, name: &str, g: i64) -> PyResult<usize> {
        if g < 0 || g as usize >= self.size() {
            return Err(invalid_argument(name, &format!("a geometry of the store (0 to {})", self.size()), g));
        }
        Ok(g as usize)
    }
}

/// One side of a pass: a store, each region's geometry in it, and the regions' bounds (a table, or
/// none: each pair computes them).
struct Regions<'a> {
    store: Store<'a>,
    geometry: &'a [i64],
    bounds: Vec<Bounds>,
}

impl<'a> Regions<'a> {
    /// The regions `geometry` of `store`, each checked to be one of its geometries.
    fn new(name: &str, store: Store<'a>, geometry: &'a PyReadonlyArray1<'_, i64>) -> PyResult<Self> {
        let geometry = geometry.as_slice()?;
        if let Some(&g) = geometry.iter().find(|&&g| g < 0 || g as usize >= store.size()) {
            return Err(invalid_argument(name, &format!("geometries of the store (0 to {})", store.size()), g));
        }
        Ok(Regions { store, geometry, bounds: Vec::new() })
    }

    /// Table the regions' bounds when the pairs are at least as many as the regions (each region's
    /// bounds then serve several pairs); with fewer, each pair computes its own.
    fn table_bounds(&mut self, pairs: usize) {
        if pairs < self.geometry.len() {
            return;
        }
        let mut table = vec![[0.0; 4]; self.geometry.len()];
        let (store, geometry) = (&self.store, self.geometry);
        threads::for_chunks(&mut table, 1, threads::chunk_of(BOUNDS_NS), |first, part| {
            for (k, bounds) in part.iter_mut().enumerate() {
                *bounds = pair::geometry_bounds(store, geometry[first + k] as usize);
            }
        });
        self.bounds = table;
    }

    /// Region i's geometry and bounds.
    #[inline(always)]
    fn region(&self, i: usize) -> (usize, Bounds) {
        let g = self.geometry[i] as usize;
        let bounds = if self.bounds.is_empty() { pair::geometry_bounds(&self.store, g) } else { self.bounds[i] };
        (g, bounds)
    }
}

thread_local! {
    /// Each thread's fans, kept from pair to pair.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Run `work` with this thread's fans, giving back their room if a pair left them large.
fn with_scratch<R>(work: impl FnOnce(&mut Scratch) -> R) -> R {
    SCRATCH.with_borrow_mut(|scratch| {
        let result = work(scratch);
        if scratch.capacity() > KEPT_EDGES {
            *scratch = Scratch::default();
        }
        result
    })
}

/// The minimum chunk of a pass over `job`'s pairs.
fn chunk(job: &Job<'_>) -> usize {
    threads::chunk_of(if job.outer { MATRIX_PAIR_NS } else { PAIR_NS })
}

/// Write `formula` of the shared area of each of `pairs` into `out`, region i of side a being geometry
/// `geometry[i]` of its store.
#[pyfunction]
fn polygon_pairs(
    py: Python<'_>,
    side_a: SideArrays<'_>,
    side_b: SideArrays<'_>,
    pairs: PyRef<'_, Pairs>,
    formula: PyRef<'_, Formula>,
    mut out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let borrowed = Borrowed::new(py, &pairs, &formula, &out)?;
    let job = borrowed.job()?;
    let ((store_a, geometry_a), (store_b, geometry_b)) = (&side_a, &side_b);
    let mut a = Regions::new("side_a", Store::new("side_a", store_a)?, geometry_a)?;
    let mut b = Regions::new("side_b", Store::new("side_b", store_b)?, geometry_b)?;
    let out = out.as_slice_mut()?;
    py.detach(|| {
        a.table_bounds(job.len());
        b.table_bounds(job.len());
        job.for_rows(out, chunk(&job), |i, row, row_out| {
            let (g_a, bounds_a) = a.region(i);
            with_scratch(|scratch| {
                for (c, (j, k)) in row.enumerate() {
                    let (g_b, bounds_b) = b.region(j);
                    let shared = pair::polygon_pair(scratch, (&a.store, g_a, &bounds_a), (&b.store, g_b, &bounds_b));
                    row_out[c] = job.value(shared, i, j, k, row_out[c]);
                }
            })
        })
    });
    Ok(())
}

/// The formula `code` of the shared area of polygon `g_a` of `store_a` and `g_b` of `store_b`, the
/// stores' areas the two areas: `polygon_pairs`' pair function, once.
#[pyfunction]
fn polygon_single(
    store_a: StoreArrays<'_>,
    g_a: i64,
    store_b: StoreArrays<'_>,
    g_b: i64,
    code: u8,
    zero_division: f64,
) -> PyResult<f64> {
    let (a, b) = (Store::new("store_a", &store_a)?, Store::new("store_b", &store_b)?);
    let (g_a, g_b) = (a.geometry("g_a", g_a)?, b.geometry("g_b", g_b)?);
    let code = Code::from_u8(code).ok_or_else(|| invalid_argument("code", "a formula code from 0 to 6", code))?;
    let (bounds_a, bounds_b) = (pair::geometry_bounds(&a, g_a), pair::geometry_bounds(&b, g_b));
    let shared = with_scratch(|scratch| pair::polygon_pair(scratch, (&a, g_a, &bounds_a), (&b, g_b, &bounds_b)));
    Ok(formulas::value(code, shared, a.area[g_a], b.area[g_b], 0.0, zero_division))
}

/// The boxes of a mixed pass, `(n, width)` as rows.
fn box_rows<'a>(boxes: &'a PyReadonlyArray2<'_, f64>, width: usize, expected: &str) -> PyResult<&'a [f64]> {
    if boxes.shape()[1] != width {
        return Err(invalid_argument("boxes", expected, format!("{:?}", boxes.shape())));
    }
    Ok(boxes.as_slice()?)
}

/// Write `formula` of `|box ∩ polygon|` of each of `pairs` into `out`: rotated boxes `(n, 5)`
/// `cx, cy, w, h, angle` (degrees) against the regions `geometry` of `store`.
///
/// The box's edges are built in the pair's frame, so the result keeps its precision at any offset;
/// `cos` and `sin` are exact at multiples of 90 degrees, as for `RotatedBox`.
#[pyfunction]
fn rotated_polygon_pairs(
    py: Python<'_>,
    boxes: PyReadonlyArray2<'_, f64>,
    store: StoreArrays<'_>,
    geometry: PyReadonlyArray1<'_, i64>,
    pairs: PyRef<'_, Pairs>,
    formula: PyRef<'_, Formula>,
    mut out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let boxes = box_rows(&boxes, 5, "rotated boxes (n, 5)")?;
    let borrowed = Borrowed::new(py, &pairs, &formula, &out)?;
    let job = borrowed.job()?;
    let mut polygons = Regions::new("geometry", Store::new("store", &store)?, &geometry)?;
    let out = out.as_slice_mut()?;
    py.detach(|| {
        polygons.table_bounds(job.len());
        job.for_rows(out, chunk(&job), |i, row, row_out| {
            let row_box = &boxes[5 * i..5 * i + 5];
            let frame = RotatedFrame::of(row_box[0], row_box[1], row_box[2], row_box[3], row_box[4]);
            with_scratch(|scratch| {
                for (c, (j, k)) in row.enumerate() {
                    let (g, bounds) = polygons.region(j);
                    let shared = pair::rotated_polygon_pair(scratch, &frame, &polygons.store, g, &bounds);
                    row_out[c] = job.value(shared, i, j, k, row_out[c]);
                }
            })
        })
    });
    Ok(())
}

/// Write `formula` of `|box ∩ polygon|` of each of `pairs` into `out`: boxes `(n, 4)` `x1, y1, x2, y2`
/// against the regions `geometry` of `store`.
#[pyfunction]
fn box_polygon_pairs(
    py: Python<'_>,
    boxes: PyReadonlyArray2<'_, f64>,
    store: StoreArrays<'_>,
    geometry: PyReadonlyArray1<'_, i64>,
    pairs: PyRef<'_, Pairs>,
    formula: PyRef<'_, Formula>,
    mut out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let boxes = box_rows(&boxes, 4, "boxes (n, 4)")?;
    let borrowed = Borrowed::new(py, &pairs, &formula, &out)?;
    let job = borrowed.job()?;
    let mut polygons = Regions::new("geometry", Store::new("store", &store)?, &geometry)?;
    let out = out.as_slice_mut()?;
    py.detach(|| {
        polygons.table_bounds(job.len());
        job.for_rows(out, chunk(&job), |i, row, row_out| {
            let corners: Bounds = [boxes[4 * i], boxes[4 * i + 1], boxes[4 * i + 2], boxes[4 * i + 3]];
            with_scratch(|scratch| {
                for (c, (j, k)) in row.enumerate() {
                    let (g, bounds) = polygons.region(j);
                    let shared = pair::box_polygon_pair(scratch, &corners, &polygons.store, g, &bounds);
                    row_out[c] = job.value(shared, i, j, k, row_out[c]);
                }
            })
        })
    });
    Ok(())
}

/// A Neumaier sum as `(total, compensation, magnitude)`.
type SumParts = (f64, f64, f64);

/// The sums over the edge pairs of polygons `g_a` and `g_b` (laid out in their pair's frame, in this
/// order) by testing every pair and by the walks along the edges sorted by angle (for the tests).
#[pyfunction]
fn polygon_cell_sums(
    store_a: StoreArrays<'_>,
    g_a: i64,
    store_b: StoreArrays<'_>,
    g_b: i64,
) -> PyResult<(SumParts, SumParts)> {
    let (a, b) = (Store::new("store_a", &store_a)?, Store::new("store_b", &store_b)?);
    let (g_a, g_b) = (a.geometry("g_a", g_a)?, b.geometry("g_b", g_b)?);
    let (fan_a, fan_b) = pair::fans_of(&a, g_a, &b, g_b);
    let parts = |sum: overlap::Sum| (sum.total, sum.compensation, sum.magnitude);
    Ok((parts(overlap::every_cell(&fan_a, &fan_b)), parts(overlap::cells_by_angle(&fan_a, &fan_b))))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(polygon_pairs, module)?)?;
    module.add_function(wrap_pyfunction!(polygon_single, module)?)?;
    module.add_function(wrap_pyfunction!(rotated_polygon_pairs, module)?)?;
    module.add_function(wrap_pyfunction!(box_polygon_pairs, module)?)?;
    module.add_function(wrap_pyfunction!(polygon_cell_sums, module)?)?;
    module.add("POLYGON_SORTED_CELLS", overlap::SORTED_CELLS)?;
    Ok(())
}

#[cfg(test)]
mod tests;
