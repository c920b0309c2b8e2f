//! The mask kernels and the masks' compiled region work: runs, packed windows, pixel coverage, bands (geoiou/kernels/mask.py, regions/mask_windows.py, mask_bands.py move here).

use pyo3::prelude::*;

pub fn register(_module: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
