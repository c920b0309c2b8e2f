//! Polygon × Polygon, RotatedBox × Polygon, Box × Polygon: the shared area from the edges (geoiou/kernels/polygon_loops.py moves here).

use pyo3::prelude::*;

pub fn register(_module: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
