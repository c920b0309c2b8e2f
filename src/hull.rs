//! GIoU's convex hull of the union of two polygons or masks (geoiou/kernels/hull.py moves here).

use pyo3::prelude::*;

pub fn register(_module: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
