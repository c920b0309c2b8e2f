//! The compiled core of geoiou: every loop that grows with the data, as the extension module
//! `geoiou._core`.
//!
//! The Python package holds the API, the regions, the validation messages users read and the
//! orchestration; it hands this crate plain arrays (the regions' coordinate tables and stores,
//! the pairs to measure, the formula to apply, the output to write) and the crate runs the loops
//! with the GIL released, on one thread pool (`threads`).
//!
//! Modules, one per concept:
//!
//! - the foundations: `threads` (the pool and the one driver convention: chunks of a minimum
//!   size, small loops inline), `numeric` (the float semantics the kernels are defined by),
//!   `angles` (unit vectors of angles in degrees, pseudo-angles), `search` (binary search),
//!   `errors` (geoiou's own exceptions);
//! - what a kernel pass takes: `pairs` (which pairs, the formula, the loop over rows) and
//!   `formulas` (IoU, GIoU, IoF, the union... of a pair's measure);
//! - the pair kernels, one module per kind or family of kinds: `aligned` (Box, Interval, Box3D),
//!   `rotated` (RotatedBox), `polygon` (Polygon, and boxes with polygons), `hull` (GIoU's convex
//!   hull of polygons and masks), `mask` (Mask with Mask, Box and Polygon), `boxes3d` (yaw and
//!   oriented 3-D boxes);
//! - the candidate search: `candidates`;
//! - the region layer's loops: `box_checks` (large batches of boxes), `rings` (simple rings,
//!   exterior hulls), `raster` (pycocotools' polygon rasterizer).

mod aligned;
mod angles;
mod box_checks;
mod boxes3d;
mod candidates;
mod errors;
mod formulas;
mod hull;
mod mask;
mod numeric;
mod pairs;
mod polygon;
mod raster;
mod rings;
mod rotated;
mod search;
mod threads;

use pyo3::prelude::*;

/// The extension module `geoiou._core` (typed by `geoiou/_core.pyi`).
#[pymodule]
fn _core(module: &Bound<'_, PyModule>) -> PyResult<()> {
    threads::register(module)?;
    pairs::register(module)?;
    formulas::register(module)?;
    aligned::register(module)?;
    rotated::register(module)?;
    polygon::register(module)?;
    hull::register(module)?;
    mask::register(module)?;
    boxes3d::register(module)?;
    candidates::register(module)?;
    box_checks::register(module)?;
    rings::register(module)?;
    raster::register(module)?;
    Ok(())
}
