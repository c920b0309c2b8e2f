//! The candidate search: the pairs of two sets of bounds that overlap (geoiou/kernels/candidates.py moves here).

use pyo3::prelude::*;

pub fn register(_module: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
