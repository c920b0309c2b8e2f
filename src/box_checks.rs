//! The checks and corners of a large batch of boxes (geoiou/regions/box_checks.py moves here).

use pyo3::prelude::*;

pub fn register(_module: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
