//! The region layer's ring work: the simplicity test of a single ring and the polygons' exterior hulls (geoiou/regions/simple_rings.py, exterior_hulls.py move here).

use pyo3::prelude::*;

pub fn register(_module: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
