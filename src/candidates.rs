//! The candidate search: the pairs of two sets of bounds that overlap with positive measure.
//!
//! The Python side (`geoiou.kernels.candidates.Candidates`) sorts `b` by block (a group, or a
//! horizontal strip of an ungrouped planar set) and then by lower x bound, with NumPy; this module
//! holds the loops over the rows of `a`. In each block a row searches only the run between the
//! first region whose running maximum of upper x bounds passes its lower x bound and the last whose
//! lower x bound is below its upper x bound (two binary searches), and tests that run on every
//! axis. Touching bounds share no area; NaN bounds or bounds of no extent meet nothing.
//!
//! The rows are counted first, then their pairs written at their offsets, a chunk of rows at a time
//! (the memory beside the result stays bounded), on every core. Each row's pairs are its own, so
//! the result does not depend on the threads.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadwriteArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::errors::invalid_argument;
use crate::numeric::max;
use crate::search::insertion_point;
use crate::threads;

/// Nanoseconds on one thread to search a row's runs (binary searches and the tests of its run).
const ROW_NS: usize = 200;
/// Nanoseconds on one thread to search a key.
const SEARCH_NS: usize = 50;

/// Both sides' bounds and `b`'s blocks, as the search reads them.
///
/// Bounds are `(ndim, n)` tables of lower and upper bounds (axis-major: the search reads one axis
/// of many regions in a row); `b` is in the order of the search (by block, then by lower x).
pub struct Search<'a> {
    pub ndim: usize,
    pub low_a: &'a [f64],
    pub high_a: &'a [f64],
    pub low_b: &'a [f64],
    pub high_b: &'a [f64],
    /// The running maximum of `b`'s upper x bounds, restarted at each block.
    pub reach: &'a [f64],
    /// Where each block starts in the order of `b`, and the count of `b` at the end.
    pub block_starts: &'a [i64],
    /// Each row's blocks: `first_block[i] <= block < stop_block[i]`.
    pub first_block: &'a [i64],
    pub stop_block: &'a [i64],
    /// The index of each position of `b`'s order in `b`.
    pub order_b: &'a [i64],
}

impl Search<'_> {
    fn rows_a(&self) -> usize {
        self.low_a.len() / self.ndim.max(1)
    }

    fn rows_b(&self) -> usize {
        self.low_b.len() / self.ndim.max(1)
    }

    /// Whether bounds i of `a` and position p of `b` overlap with positive measure on every axis.
    #[inline(always)]
    fn meets(&self, i: usize, p: usize) -> bool {
        let (n_a, n_b) = (self.rows_a(), self.rows_b());
        (0..self.ndim).all(|axis| {
            let low = max(self.low_a[axis * n_a + i], self.low_b[axis * n_b + p]);
            low < crate::numeric::min(self.high_a[axis * n_a + i], self.high_b[axis * n_b + p])
        })
    }

    /// The positions of block `[lo, hi)` of `b` that can meet row i on x (none for NaN or flat bounds).
    #[inline(always)]
    fn run_of(&self, i: usize, lo: usize, hi: usize) -> (usize, usize) {
        let (xmin, xmax) = (self.low_a[i], self.high_a[i]);
        if !(xmin < xmax) {
            return (lo, lo);
        }
        let low_x = &self.low_b[..self.rows_b()];
        (insertion_point(self.reach, lo, hi, xmin, true), insertion_point(low_x, lo, hi, xmax, false))
    }

    /// Call `found(p)` for each position p of `b` that row i meets, in the order of the search.
    #[inline(always)]
    fn each_pair(&self, i: usize, mut found: impl FnMut(usize)) {
        for block in self.first_block[i] as usize..self.stop_block[i] as usize {
            let (lo, hi) = (self.block_starts[block] as usize, self.block_starts[block + 1] as usize);
            let (start, stop) = self.run_of(i, lo, hi);
            for p in start..stop {
                if self.meets(i, p) {
                    found(p);
                }
            }
        }
    }

    /// The number of pairs of each of `rows`.
    pub fn counts(&self, rows: &[i64]) -> Vec<i64> {
        let mut counts = vec![0i64; rows.len()];
        threads::for_chunks(&mut counts, 1, threads::chunk_of(ROW_NS), |first, part| {
            for (t, count) in part.iter_mut().enumerate() {
                let mut found = 0;
                self.each_pair(rows[first + t] as usize, |_| found += 1);
                *count = found;
            }
        });
        counts
    }

    /// Write the pairs of `rows` (each row's `counts[t]`, counted by `counts`) into `index_a` and
    /// `index_b`, by row index (the rows may come in another order, that of `b`'s strips, which
    /// keeps neighbouring rows' runs of `b` in the cache); with `sort_b` each row's pairs by `index_b`.
    pub fn fill(&self, rows: &[i64], counts: &[i64], sort_b: bool, index_a: &mut [i64], index_b: &mut [i64]) {
        if rows.windows(2).all(|pair| pair[0] < pair[1]) {
            self.write_rows(rows, counts, sort_b, index_a, index_b);
            return;
        }
        let (mut searched_a, mut searched_b) = (vec![0i64; index_a.len()], vec![0i64; index_b.len()]);
        self.write_rows(rows, counts, sort_b, &mut searched_a, &mut searched_b);
        // Each row's block, from where the search wrote it to its place by row index.
        let mut blocks: Vec<(i64, usize, usize)> = Vec::with_capacity(rows.len());
        let mut at = 0usize;
        for (&row, &count) in rows.iter().zip(counts) {
            blocks.push((row, at, count as usize));
            at += count as usize;
        }
        blocks.sort_unstable_by_key(|&(row, _, _)| row);
        let mut at = 0usize;
        for &(_, from, count) in &blocks {
            index_a[at..at + count].copy_from_slice(&searched_a[from..from + count]);
            index_b[at..at + count].copy_from_slice(&searched_b[from..from + count]);
            at += count;
        }
    }

    /// Write the pairs of `rows` one row after the other, in the order of `rows`.
    fn write_rows(&self, rows: &[i64], counts: &[i64], sort_b: bool, index_a: &mut [i64], index_b: &mut [i64]) {
        // Chunks of about the same work, each with the part of the outputs its rows fill.
        let chunk_rows = threads::chunk_of(ROW_NS);
        let mut parts = Vec::new();
        let (mut rest_a, mut rest_b) = (index_a, index_b);
        for (c, chunk) in counts.chunks(chunk_rows).enumerate() {
            let length = chunk.iter().sum::<i64>() as usize;
            let (part_a, tail_a) = rest_a.split_at_mut(length);
            let (part_b, tail_b) = rest_b.split_at_mut(length);
            (rest_a, rest_b) = (tail_a, tail_b);
            parts.push((c * chunk_rows, chunk, part_a, part_b));
        }
        let write = |(first, chunk, part_a, part_b): (usize, &[i64], &mut [i64], &mut [i64])| {
            let mut at = 0;
            for (t, &count) in chunk.iter().enumerate() {
                let i = rows[first + t];
                let begin = at;
                self.each_pair(i as usize, |p| {
                    part_a[at] = i;
                    part_b[at] = self.order_b[p];
                    at += 1;
                });
                assert_eq!(at - begin, count as usize, "a row found other pairs than it counted");
                if sort_b {
                    part_b[begin..at].sort_unstable();
                }
            }
        };
        if parts.len() <= 1 || threads::count() == 1 {
            parts.into_iter().for_each(write);
        } else {
            threads::install(|| parts.into_par_iter().for_each(write));
        }
    }
}

/// `order` rearranged by `codes[order]` (`0 <= code < count`), stably: a counting sort.
pub fn stable_by_code(order: &[i64], codes: &[i64], count: usize) -> Vec<i64> {
    let mut starts = vec![0usize; count + 1];
    for &k in order {
        starts[codes[k as usize] as usize + 1] += 1;
    }
    for code in 0..count {
        starts[code + 1] += starts[code];
    }
    let mut result = vec![0i64; order.len()];
    for &k in order {
        let code = codes[k as usize] as usize;
        result[starts[code]] = k;
        starts[code] += 1;
    }
    result
}

/// The largest of `values` in each block `block_starts[k] <= p < block_starts[k + 1]` (-inf if empty).
pub fn block_maxima(values: &[f64], block_starts: &[i64]) -> Vec<f64> {
    block_starts
        .windows(2)
        .map(|bounds| values[bounds[0] as usize..bounds[1] as usize].iter().fold(f64::NEG_INFINITY, |m, &v| max(m, v)))
        .collect()
}

/// The running maximum of upper x bounds in the order of `b`, restarted where the code changes.
pub fn running_reach(high_x: &[f64], sorted_codes: &[i64]) -> Vec<f64> {
    let mut reach = Vec::with_capacity(high_x.len());
    for (p, &high) in high_x.iter().enumerate() {
        let same_block = p > 0 && sorted_codes[p] == sorted_codes[p - 1];
        reach.push(if same_block { max(reach[p - 1], high) } else { high });
    }
    reach
}

/// `np.searchsorted(values, keys, side)` for every key, a NaN key after every value.
pub fn insertion_points(values: &[f64], keys: &[f64], after_equal: bool) -> Vec<i64> {
    let mut points = vec![0i64; keys.len()];
    threads::for_chunks(&mut points, 1, threads::chunk_of(SEARCH_NS), |first, part| {
        for (t, point) in part.iter_mut().enumerate() {
            let key = keys[first + t];
            *point =
                if key.is_nan() { values.len() } else { insertion_point(values, 0, values.len(), key, after_equal) }
                    as i64;
        }
    });
    points
}

/// `matrix[index_a[k], index_b[k]] = values[k]` for every k, on the calling thread.
///
/// Not on the pool: the matrix is fresh zeros from the allocator, its pages untouched, and a sparse
/// scatter touches most of them. Pages that two threads fault in at once come far slower than one
/// thread's (the kernel takes its memory lock one fault at a time): on the benchmark VM a 4000²
/// matrix's scatter took 7 ms on one thread and 52 ms on two.
pub fn scatter<T: Copy>(matrix: &mut [T], columns: usize, index_a: &[i64], index_b: &[i64], values: &[T]) {
    for ((&i, &j), &value) in index_a.iter().zip(index_b).zip(values) {
        matrix[i as usize * columns + j as usize] = value;
    }
}

// --------------------------------------------------------------------------- the binding
/// The search's tables, borrowed from the Python `Candidates` for one pass.
fn search_of<'a>(
    ndim: usize,
    tables: &'a [PyReadonlyArray1<'_, f64>; 5],
    blocks: &'a [PyReadonlyArray1<'_, i64>; 4],
) -> PyResult<Search<'a>> {
    Ok(Search {
        ndim,
        low_a: tables[0].as_slice()?,
        high_a: tables[1].as_slice()?,
        low_b: tables[2].as_slice()?,
        high_b: tables[3].as_slice()?,
        reach: tables[4].as_slice()?,
        block_starts: blocks[0].as_slice()?,
        first_block: blocks[1].as_slice()?,
        stop_block: blocks[2].as_slice()?,
        order_b: blocks[3].as_slice()?,
    })
}

/// The two sides' bounds `(ndim, n)` and `b`'s blocks, as one object the Python side keeps.
#[pyclass(frozen, module = "geoiou._core")]
pub struct CandidateSearch {
    ndim: usize,
    low_a: Py<PyArray1<f64>>,
    high_a: Py<PyArray1<f64>>,
    low_b: Py<PyArray1<f64>>,
    high_b: Py<PyArray1<f64>>,
    reach: Py<PyArray1<f64>>,
    block_starts: Py<PyArray1<i64>>,
    first_block: Py<PyArray1<i64>>,
    stop_block: Py<PyArray1<i64>>,
    order_b: Py<PyArray1<i64>>,
}

#[pymethods]
impl CandidateSearch {
    #[new]
    #[allow(clippy::too_many_arguments)] // the search's tables, each named as the Python side names it
    fn new(
        low_a: &Bound<'_, PyArray2<f64>>,
        high_a: &Bound<'_, PyArray2<f64>>,
        low_b: &Bound<'_, PyArray2<f64>>,
        high_b: &Bound<'_, PyArray2<f64>>,
        reach: &Bound<'_, PyArray1<f64>>,
        block_starts: &Bound<'_, PyArray1<i64>>,
        first_block: &Bound<'_, PyArray1<i64>>,
        stop_block: &Bound<'_, PyArray1<i64>>,
        order_b: &Bound<'_, PyArray1<i64>>,
    ) -> PyResult<Self> {
        let ndim = low_a.shape()[0];
        let (rows_a, rows_b) = (low_a.shape()[1], low_b.shape()[1]);
        for (name, table, rows) in
            [("low_a", low_a, rows_a), ("high_a", high_a, rows_a), ("low_b", low_b, rows_b), ("high_b", high_b, rows_b)]
        {
            if table.shape() != [ndim, rows] || !table.is_c_contiguous() {
                let shape = format!("{:?}", table.shape());
                return Err(invalid_argument(name, &format!("a C-contiguous ({ndim}, {rows}) table"), shape));
            }
        }
        let flat = |table: &Bound<'_, PyArray2<f64>>| -> PyResult<Py<PyArray1<f64>>> {
            Ok(table.reshape([table.len()])?.unbind())
        };
        if reach.len() != rows_b || order_b.len() != rows_b || first_block.len() != rows_a || stop_block.len() != rows_a
        {
            return Err(invalid_argument(
                "reach, order_b, first_block, stop_block",
                "one entry per region",
                "other lengths",
            ));
        }
        let blocks = block_starts.readonly();
        let blocks = blocks.as_slice()?;
        if blocks.is_empty() || blocks.last().is_some_and(|&last| last as usize != rows_b) {
            return Err(invalid_argument("block_starts", "block starts ending with the count of b", blocks.len()));
        }
        Ok(CandidateSearch {
            ndim,
            low_a: flat(low_a)?,
            high_a: flat(high_a)?,
            low_b: flat(low_b)?,
            high_b: flat(high_b)?,
            reach: reach.clone().unbind(),
            block_starts: block_starts.clone().unbind(),
            first_block: first_block.clone().unbind(),
            stop_block: stop_block.clone().unbind(),
            order_b: order_b.clone().unbind(),
        })
    }

    /// The number of pairs of each of `rows` (indices of `a`), in their order.
    fn counts<'py>(&self, py: Python<'py>, rows: PyReadonlyArray1<'py, i64>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let (tables, blocks) = self.borrowed(py);
        let search = search_of(self.ndim, &tables, &blocks)?;
        let rows = self.checked_rows(py, &rows)?;
        let counts = py.detach(|| search.counts(rows));
        Ok(PyArray1::from_vec(py, counts))
    }

    /// Write the pairs of `rows`, row after row (`counts` of each, from `counts`), into `index_a` and
    /// `index_b`; with `sort_b` each row's pairs sorted by `index_b`.
    fn fill(
        &self,
        py: Python<'_>,
        rows: PyReadonlyArray1<'_, i64>,
        counts: PyReadonlyArray1<'_, i64>,
        sort_b: bool,
        mut index_a: PyReadwriteArray1<'_, i64>,
        mut index_b: PyReadwriteArray1<'_, i64>,
    ) -> PyResult<()> {
        let (tables, blocks) = self.borrowed(py);
        let search = search_of(self.ndim, &tables, &blocks)?;
        let (rows, counts) = (self.checked_rows(py, &rows)?, counts.as_slice()?);
        let (index_a, index_b) = (index_a.as_slice_mut()?, index_b.as_slice_mut()?);
        let total: i64 = counts.iter().sum();
        if counts.len() != rows.len() || index_a.len() != total as usize || index_b.len() != total as usize {
            return Err(invalid_argument("index_a, index_b", "one entry per pair the counts hold", index_a.len()));
        }
        py.detach(|| search.fill(rows, counts, sort_b, index_a, index_b));
        Ok(())
    }
}

impl CandidateSearch {
    fn borrowed<'py>(&self, py: Python<'py>) -> ([PyReadonlyArray1<'py, f64>; 5], [PyReadonlyArray1<'py, i64>; 4]) {
        (
            [
                self.low_a.bind(py).readonly(),
                self.high_a.bind(py).readonly(),
                self.low_b.bind(py).readonly(),
                self.high_b.bind(py).readonly(),
                self.reach.bind(py).readonly(),
            ],
            [
                self.block_starts.bind(py).readonly(),
                self.first_block.bind(py).readonly(),
                self.stop_block.bind(py).readonly(),
                self.order_b.bind(py).readonly(),
            ],
        )
    }

    /// `rows` as indices of `a`, each one of its regions.
    fn checked_rows<'a>(&self, py: Python<'_>, rows: &'a PyReadonlyArray1<'_, i64>) -> PyResult<&'a [i64]> {
        let rows = rows.as_slice()?;
        let count = self.first_block.bind(py).len();
        if rows.iter().any(|&i| i < 0 || i as usize >= count) {
            return Err(invalid_argument("rows", &format!("indices of the {count} regions of a"), "others"));
        }
        Ok(rows)
    }
}

#[pyfunction(name = "stable_by_code")]
fn stable_by_code_py<'py>(
    py: Python<'py>,
    order: PyReadonlyArray1<'py, i64>,
    codes: PyReadonlyArray1<'py, i64>,
    count: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (order, codes) = (order.as_slice()?, codes.as_slice()?);
    let in_range = |&k: &i64| (k as usize) < codes.len() && (codes[k as usize] as usize) < count;
    if !order.iter().all(in_range) {
        return Err(invalid_argument("codes", &format!("codes from 0 to {count} of the ordered items"), "others"));
    }
    let result = py.detach(|| stable_by_code(order, codes, count));
    Ok(PyArray1::from_vec(py, result))
}

#[pyfunction(name = "block_maxima")]
fn block_maxima_py<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, f64>,
    block_starts: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (values, starts) = (values.as_slice()?, block_starts.as_slice()?);
    let result = py.detach(|| block_maxima(values, starts));
    Ok(PyArray1::from_vec(py, result))
}

#[pyfunction(name = "running_reach")]
fn running_reach_py<'py>(
    py: Python<'py>,
    high_x: PyReadonlyArray1<'py, f64>,
    sorted_codes: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (high_x, codes) = (high_x.as_slice()?, sorted_codes.as_slice()?);
    if high_x.len() != codes.len() {
        return Err(invalid_argument("sorted_codes", "one code per bound", codes.len()));
    }
    let result = py.detach(|| running_reach(high_x, codes));
    Ok(PyArray1::from_vec(py, result))
}

#[pyfunction(name = "insertion_points")]
fn insertion_points_py<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, f64>,
    keys: PyReadonlyArray1<'py, f64>,
    after_equal: bool,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (values, keys) = (values.as_slice()?, keys.as_slice()?);
    let result = py.detach(|| insertion_points(values, keys, after_equal));
    Ok(PyArray1::from_vec(py, result))
}

/// `matrix[index_a[k], index_b[k]] = values[k]` for a float64 or float32 matrix (values cast once).
#[pyfunction(name = "scatter")]
fn scatter_py(
    py: Python<'_>,
    matrix: &Bound<'_, PyAny>,
    index_a: PyReadonlyArray1<'_, i64>,
    index_b: PyReadonlyArray1<'_, i64>,
    values: PyReadonlyArray1<'_, f64>,
) -> PyResult<()> {
    let (index_a, index_b, values) = (index_a.as_slice()?, index_b.as_slice()?, values.as_slice()?);
    if index_b.len() != index_a.len() || values.len() != index_a.len() {
        return Err(invalid_argument("index_b, values", "one entry per pair of index_a", index_b.len()));
    }
    if let Ok(matrix) = matrix.cast::<PyArray2<f64>>() {
        let (rows, columns) = (matrix.shape()[0], matrix.shape()[1]);
        check_pairs_within(index_a, index_b, rows, columns)?;
        let mut matrix = matrix.try_readwrite()?;
        let cells = matrix.as_slice_mut()?;
        py.detach(|| scatter(cells, columns, index_a, index_b, values));
        return Ok(());
    }
    if let Ok(matrix) = matrix.cast::<PyArray2<f32>>() {
        let (rows, columns) = (matrix.shape()[0], matrix.shape()[1]);
        check_pairs_within(index_a, index_b, rows, columns)?;
        let mut matrix = matrix.try_readwrite()?;
        let cells = matrix.as_slice_mut()?;
        let narrowed: Vec<f32> = values.iter().map(|&v| v as f32).collect();
        py.detach(|| scatter(cells, columns, index_a, index_b, &narrowed));
        return Ok(());
    }
    Err(invalid_argument("matrix", "a C-contiguous float64 or float32 matrix", matrix.get_type().name()?))
}

fn check_pairs_within(index_a: &[i64], index_b: &[i64], rows: usize, columns: usize) -> PyResult<()> {
    let within = |&(i, j): &(&i64, &i64)| (*i as usize) < rows && (*j as usize) < columns;
    if index_a.iter().zip(index_b).all(|pair| within(&pair)) {
        Ok(())
    } else {
        Err(invalid_argument("index_a, index_b", &format!("cells of the ({rows}, {columns}) matrix"), "others"))
    }
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<CandidateSearch>()?;
    module.add_function(wrap_pyfunction!(stable_by_code_py, module)?)?;
    module.add_function(wrap_pyfunction!(block_maxima_py, module)?)?;
    module.add_function(wrap_pyfunction!(running_reach_py, module)?)?;
    module.add_function(wrap_pyfunction!(insertion_points_py, module)?)?;
    module.add_function(wrap_pyfunction!(scatter_py, module)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counting_sort_keeps_the_order_of_equal_codes() {
        assert_eq!(stable_by_code(&[0, 1, 2, 3, 4], &[2, 0, 2, 1, 0], 3), vec![1, 4, 3, 0, 2]);
    }

    #[test]
    fn the_reach_restarts_at_each_block() {
        assert_eq!(running_reach(&[3.0, 1.0, 5.0, 2.0], &[0, 0, 1, 1]), vec![3.0, 3.0, 5.0, 5.0]);
        assert_eq!(block_maxima(&[3.0, 1.0, 5.0, 2.0], &[0, 2, 2, 4]), vec![3.0, f64::NEG_INFINITY, 5.0]);
    }

    #[test]
    fn nan_keys_go_after_every_value() {
        assert_eq!(insertion_points(&[1.0, 2.0, 2.0, 3.0], &[2.0, 0.0, f64::NAN], true), vec![3, 0, 4]);
    }

    #[test]
    fn one_block_of_two_dimensional_bounds() {
        // a[0] = [0, 2]², a[1] = [10, 11]²; b sorted by lower x: [1, 3]², [2, 4]×[0, 2] (touches a[0]).
        let (low_a, high_a) = ([0.0, 10.0, 0.0, 10.0], [2.0, 11.0, 2.0, 11.0]);
        let (low_b, high_b) = ([1.0, 2.0, 1.0, 0.0], [3.0, 4.0, 3.0, 2.0]);
        let reach = running_reach(&high_b[..2], &[0, 0]);
        let search = Search {
            ndim: 2,
            low_a: &low_a,
            high_a: &high_a,
            low_b: &low_b,
            high_b: &high_b,
            reach: &reach,
            block_starts: &[0, 2],
            first_block: &[0, 0],
            stop_block: &[1, 1],
            order_b: &[0, 1],
        };
        let counts = search.counts(&[0, 1]);
        assert_eq!(counts, vec![1, 0]);
        let (mut index_a, mut index_b) = (vec![0; 1], vec![0; 1]);
        search.fill(&[0, 1], &counts, true, &mut index_a, &mut index_b);
        assert_eq!((index_a, index_b), (vec![0], vec![0]));
    }

    #[test]
    fn scattered_values_land_in_their_cells() {
        let mut matrix = vec![0.0; 6];
        scatter(&mut matrix, 3, &[0, 1], &[2, 0], &[0.5, 1.0]);
        assert_eq!(matrix, vec![0.0, 0.0, 0.5, 1.0, 0.0, 0.0]);
    }
}
