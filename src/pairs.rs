//! Which pairs a kernel measures and what it writes for each: `Pairs` and `Formula`, the two
//! objects every kernel entry takes, and the loop over their rows.
//!
//! Pairs are lists (pair k is `(index_a[k], index_b[k])`) or the rows of a matrix (pair
//! `r · len(index_b) + c` is `(index_a[r], index_b[c])`, with no index array per pair). A kernel
//! measures a pair and hands the measure to its `Formula` (`formulas::value`), which turns it into
//! what the metric asks; one pass over the pairs computes a metric.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadwriteArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::invalid_argument;
use crate::formulas::{self, Code};
use crate::threads;

/// Two index arrays, one entry per pair.
type IndexLists<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>);

/// Which pairs of two flat batches a kernel measures: lists, or every `(index_a[r], index_b[c])`.
///
/// Indices are flat positions in the two batches (int64). With `outer`, pair `r * len(index_b) + c`
/// is `(index_a[r], index_b[c])` and the results come out as the rows of a matrix.
#[pyclass(frozen, module = "geoiou._core")]
pub struct Pairs {
    #[pyo3(get)]
    index_a: Py<PyArray1<i64>>,
    #[pyo3(get)]
    index_b: Py<PyArray1<i64>>,
    #[pyo3(get)]
    outer: bool,
}

#[pymethods]
impl Pairs {
    #[new]
    #[pyo3(signature = (index_a, index_b, outer = false))]
    fn new(index_a: &Bound<'_, PyArray1<i64>>, index_b: &Bound<'_, PyArray1<i64>>, outer: bool) -> PyResult<Self> {
        for (name, index) in [("index_a", index_a), ("index_b", index_b)] {
            if !index.is_c_contiguous() {
                return Err(invalid_argument(name, "a C-contiguous int64 array", "a strided view"));
            }
        }
        if !outer && index_a.len() != index_b.len() {
            let lengths = format!("{} and {}", index_a.len(), index_b.len());
            return Err(invalid_argument("index_a, index_b", "lists of equal length", lengths));
        }
        Ok(Pairs { index_a: index_a.clone().unbind(), index_b: index_b.clone().unbind(), outer })
    }

    /// The number of pairs.
    fn __len__(&self, py: Python<'_>) -> usize {
        let (a, b) = (self.index_a.bind(py).len(), self.index_b.bind(py).len());
        if self.outer { a * b } else { a }
    }

    /// The iterations of a kernel's outer loop: a row of the matrix, or one pair of the lists.
    fn rows(&self, py: Python<'_>) -> usize {
        self.index_a.bind(py).len()
    }

    /// The pairs as two index lists, one entry per pair.
    fn lists<'py>(&self, py: Python<'py>) -> PyResult<IndexLists<'py>> {
        let (a, b) = (self.index_a.bind(py), self.index_b.bind(py));
        if !self.outer {
            return Ok((a.clone(), b.clone()));
        }
        let (a, b) = (a.readonly(), b.readonly());
        let (a, b) = (a.as_slice()?, b.as_slice()?);
        let (repeated, tiled) = py.detach(|| {
            let repeated: Vec<i64> = a.iter().flat_map(|&i| std::iter::repeat_n(i, b.len())).collect();
            let tiled: Vec<i64> = (0..a.len()).flat_map(|_| b.iter().copied()).collect();
            (repeated, tiled)
        });
        Ok((PyArray1::from_vec(py, repeated), PyArray1::from_vec(py, tiled)))
    }
}

/// What a kernel writes for each pair: `code` (`formulas`) over the pair's measure, the two regions'
/// areas (indexed by the pairs' indices), the other measure `given` per pair for GIoU (else
/// empty), and `zero_division` where a denominator is 0.
#[pyclass(frozen, module = "geoiou._core")]
pub struct Formula {
    #[pyo3(get)]
    code: u8,
    #[pyo3(get)]
    areas_a: Py<PyArray1<f64>>,
    #[pyo3(get)]
    areas_b: Py<PyArray1<f64>>,
    #[pyo3(get)]
    given: Py<PyArray1<f64>>,
    #[pyo3(get)]
    zero_division: f64,
}

#[pymethods]
impl Formula {
    #[new]
    #[pyo3(signature = (code, areas_a, areas_b, given, zero_division = 0.0))]
    fn new(
        code: u8,
        areas_a: &Bound<'_, PyArray1<f64>>,
        areas_b: &Bound<'_, PyArray1<f64>>,
        given: &Bound<'_, PyArray1<f64>>,
        zero_division: f64,
    ) -> PyResult<Self> {
        Code::from_u8(code).ok_or_else(|| invalid_argument("code", "a formula code from 0 to 6", code))?;
        for (name, values) in [("areas_a", areas_a), ("areas_b", areas_b), ("given", given)] {
            if !values.is_c_contiguous() {
                return Err(invalid_argument(name, "a C-contiguous float64 array", "a strided view"));
            }
        }
        Ok(Formula {
            code,
            areas_a: areas_a.clone().unbind(),
            areas_b: areas_b.clone().unbind(),
            given: given.clone().unbind(),
            zero_division,
        })
    }
}

/// The arrays of a `Pairs` and a `Formula`, borrowed for a kernel's pass (the GIL released).
pub struct Job<'a> {
    pub index_a: &'a [i64],
    pub index_b: &'a [i64],
    pub outer: bool,
    pub code: Code,
    pub areas_a: &'a [f64],
    pub areas_b: &'a [f64],
    /// The other measure of each pair (GIoU's), or empty: none, or (with `given_in_out`) the output
    /// itself, whose value for a pair is read before the pair's result replaces it.
    pub given: &'a [f64],
    pub given_in_out: bool,
    pub zero_division: f64,
}

impl Pairs {
    /// Whether the pairs are every `(index_a[r], index_b[c])` (the rows of a matrix).
    pub fn outer(&self) -> bool {
        self.outer
    }

    /// The index arrays, borrowed for a pass that applies no formula.
    pub fn borrowed<'py>(&self, py: Python<'py>) -> (PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>) {
        (self.index_a.bind(py).readonly(), self.index_b.bind(py).readonly())
    }
}

/// The NumPy borrows a `Job` views; kept alive (by the caller, holding the GIL) while the job runs.
pub struct Borrowed<'py> {
    index_a: PyReadonlyArray1<'py, i64>,
    index_b: PyReadonlyArray1<'py, i64>,
    areas_a: PyReadonlyArray1<'py, f64>,
    areas_b: PyReadonlyArray1<'py, f64>,
    given: Given<'py>,
    outer: bool,
    code: Code,
    zero_division: f64,
}

/// Where a pass finds each pair's other measure.
enum Given<'py> {
    /// There is none.
    Nothing,
    /// In the output array, read before the pair's result replaces it.
    InOut,
    /// In an array of its own.
    Array(PyReadonlyArray1<'py, f64>),
}

impl<'py> Borrowed<'py> {
    /// Borrow the arrays of `pairs` and `formula` for a pass writing `out`, one value per pair.
    pub fn new(py: Python<'py>, pairs: &Pairs, formula: &Formula, out: &PyReadwriteArray1<'py, f64>) -> PyResult<Self> {
        let pairs_len = pairs.__len__(py);
        let out_len = out.len();
        if out_len != pairs_len {
            return Err(invalid_argument("out", "one value per pair", format!("{out_len} for {pairs_len} pairs")));
        }
        let given = formula.given.bind(py);
        let given_len = given.len();
        if given_len != 0 && given_len != pairs_len {
            return Err(invalid_argument(
                "given",
                "empty or one value per pair",
                format!("{given_len} for {pairs_len}"),
            ));
        }
        // `given` may be the output itself (GIoU turns each intersection into GIoU in place); an empty
        // one (no other measure) is not borrowed at all: it may be the output of an empty pass.
        let in_place = given_len != 0 && std::ptr::eq(given.data(), out.data());
        let given = if given_len == 0 {
            Given::Nothing
        } else if in_place {
            Given::InOut
        } else {
            Given::Array(given.try_readonly().map_err(|_| {
                invalid_argument("given", "the output itself or an array apart from it", "an overlapping view")
            })?)
        };
        Ok(Borrowed {
            index_a: pairs.index_a.bind(py).readonly(),
            index_b: pairs.index_b.bind(py).readonly(),
            areas_a: formula.areas_a.bind(py).readonly(),
            areas_b: formula.areas_b.bind(py).readonly(),
            given,
            outer: pairs.outer,
            code: Code::from_u8(formula.code).expect("checked when the formula was made"),
            zero_division: formula.zero_division,
        })
    }

    /// The job of these borrows.
    pub fn job(&self) -> PyResult<Job<'_>> {
        Ok(Job {
            index_a: self.index_a.as_slice()?,
            index_b: self.index_b.as_slice()?,
            outer: self.outer,
            code: self.code,
            areas_a: self.areas_a.as_slice()?,
            areas_b: self.areas_b.as_slice()?,
            given: match &self.given {
                Given::Array(given) => given.as_slice()?,
                _ => &[],
            },
            given_in_out: matches!(self.given, Given::InOut),
            zero_division: self.zero_division,
        })
    }
}

impl<'a> Job<'a> {
    /// A job over the pairs `index_a`, `index_b` (`outer`: every pair of the two) that writes their measure.
    pub fn of_pairs(index_a: &'a [i64], index_b: &'a [i64], outer: bool) -> Job<'a> {
        Job {
            index_a,
            index_b,
            outer,
            code: Code::Measure,
            areas_a: &[],
            areas_b: &[],
            given: &[],
            given_in_out: false,
            zero_division: 0.0,
        }
    }

    /// Values written per row: a row of the matrix, or one pair.
    pub fn columns(&self) -> usize {
        if self.outer { self.index_b.len() } else { 1 }
    }

    /// The number of pairs.
    pub fn len(&self) -> usize {
        self.index_a.len() * self.columns()
    }

    /// Whether each pair has another measure given (GIoU's), in `given` or in the output.
    pub fn has_given(&self) -> bool {
        self.given_in_out || !self.given.is_empty()
    }

    /// What the formula makes of pair k, `(i, j)`, whose measure is `measure`; `current` is the pair's
    /// output as it stands (its given measure when `given_in_out`).
    #[inline(always)]
    pub fn value(&self, measure: f64, i: usize, j: usize, k: usize, current: f64) -> f64 {
        if self.code == Code::Measure {
            return measure;
        }
        let given = if self.given_in_out {
            current
        } else if self.given.is_empty() {
            0.0
        } else {
            self.given[k]
        };
        formulas::value(self.code, measure, self.areas_a[i], self.areas_b[j], given, self.zero_division)
    }

    /// Run `row(i, pairs_of_row, out_of_row)` over the rows, where `pairs_of_row` yields `(j, k)` for
    /// each pair `(i, j)` of the row and `out_of_row[c]` is pair k's output; chunks of at least
    /// `min_pairs` pairs on the pool (`threads::for_chunks`).
    pub fn for_rows<F>(&self, out: &mut [f64], min_pairs: usize, row: F)
    where
        F: Fn(usize, RowPairs<'_>, &mut [f64]) + Sync,
    {
        let columns = self.columns();
        if columns == 0 {
            return;
        }
        threads::for_chunks(out, columns, min_pairs.div_ceil(columns), |first, part| {
            let first_row = first / columns;
            for (offset, row_out) in part.chunks_mut(columns).enumerate() {
                let r = first_row + offset;
                let pairs = RowPairs { job: self, r, first_k: r * columns };
                row(self.index_a[r] as usize, pairs, row_out);
            }
        });
    }
}

/// The pairs `(j, k)` of one row: each column's index in `b` and the pair's position.
#[derive(Clone, Copy)]
pub struct RowPairs<'a> {
    job: &'a Job<'a>,
    r: usize,
    first_k: usize,
}

impl RowPairs<'_> {
    fn len(&self) -> usize {
        self.job.columns()
    }

    /// `(j, k)` of column c.
    #[inline(always)]
    pub fn get(&self, c: usize) -> (usize, usize) {
        let j = if self.job.outer { self.job.index_b[c] } else { self.job.index_b[self.r] };
        (j as usize, self.first_k + c)
    }

    /// The pairs of the row in order.
    pub fn enumerate(self) -> impl Iterator<Item = (usize, (usize, usize))> {
        (0..self.len()).map(move |c| (c, self.get(c)))
    }
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Pairs>()?;
    module.add_class::<Formula>()?;
    Ok(())
}
