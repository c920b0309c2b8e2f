//! The 3-D kernels: yaw boxes (prisms), oriented boxes and their convex hulls (geoiou/kernels/boxes3d_loops.py, oriented_overlap.py, convex_hull3d.py move here).

use pyo3::prelude::*;

pub fn register(_module: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
