//! RotatedBox × RotatedBox: intersection and convex hull of each pair (geoiou/kernels/rotated_loops.py moves here).

use pyo3::prelude::*;

pub fn register(_module: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
