//! pycocotools' polygon rasterizer (geoiou/raster_loops.py moves here).

use pyo3::prelude::*;

pub fn register(_module: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
