//! The mask kernels and the masks' compiled region work.
//!
//! Masks are held as COCO runs or as dense pixels; either way the Python side (`regions.mask`) keeps
//! what the crate reads: the run table (`runs`), and each mask's pixels packed 64 to a word over its
//! bounding box (`windows`, built here from the runs or from the dense pixels). The kernels measure
//! pairs from those: Mask × Mask as the pixels two masks share (a merge walk over runs, an AND and a
//! bit count over windows, four shifted counts on grids offset by a fraction), Mask × Box and Mask ×
//! Polygon as the exact area of the vector region inside each true pixel (`coverage`). The region
//! work: boxes and windows (`runs`, `windows`), boundary bands (`bands`), and the polygons' coverage
//! of the pixels for `Mask.from_polygon` (`coverage`).
//!
//! Every loop runs over pairs, masks or groups of pairs, each writing only its own outputs: the bits
//! do not depend on the number of threads. The kernels measure (an area or a pixel count); the
//! formulas are applied after them (`formulas.evaluate`).

mod bands;
mod coverage;
mod runs;
mod windows;

use numpy::{
    PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyReadonlyArray3, PyReadwriteArray1, PyReadwriteArray2,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;

use crate::errors::invalid_argument;
use crate::threads;
use coverage::{Edges, MaskRuns};
use runs::{Placement, Runs};
use windows::{TABLE_COLUMNS, Windows};

/// Nanoseconds on one thread for a pair of masks on one grid (runs walked, or windows ANDed).
const PAIR_NS: usize = 300;
/// Nanoseconds on one thread for a pair of masks on offset grids (four shifted counts).
const OFFSET_PAIR_NS: usize = 1_200;
/// Nanoseconds on one thread for a pair whose pixels are weighted one by one (by a box or a polygon's
/// coverage on a window).
const PIXEL_PAIR_NS: usize = 3_000;
/// Nanoseconds on one thread for a polygon's coverage and its masks' runs (a group of pairs): about
/// 23 µs measured on the COCO benchmark's polygons and their 11 masks each.
const RUN_GROUP_NS: usize = 20_000;
/// Nanoseconds on one thread for a mask's box, packing or band, per run or per packed word it reads.
const ITEM_NS: usize = 2;
/// Nanoseconds on one thread for a mask's own work besides its runs or words.
const MASK_NS: usize = 50;

/// A run table from Python: `(starts, stops, offsets)` (`rle.Runs`' arrays, int64).
type RunArrays<'py> = (PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>);
/// Packed windows from Python: the window table `(M, 8)` (`kernels.mask._window_table`) and the words.
type WindowArrays<'py> = (PyReadonlyArray2<'py, i64>, PyReadonlyArray1<'py, u64>);
/// Where each mask's window lies in the words: `(line0, word0, stride, offsets)` (`_Windows`' arrays).
type LayoutArrays<'py> =
    (PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>);
/// A polygon store's edges: `(x0, y0, x1, y1, weight_sign, offsets)`, geometry g's edges
/// `offsets[g]..offsets[g + 1]`.
type EdgeArrays<'py> = (
    PyReadonlyArray1<'py, f64>,
    PyReadonlyArray1<'py, f64>,
    PyReadonlyArray1<'py, f64>,
    PyReadonlyArray1<'py, f64>,
    PyReadonlyArray1<'py, f64>,
    PyReadonlyArray1<'py, i64>,
);
/// Three int64 arrays handed back to Python.
type ThreeArrays<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>);

fn run_table<'a>(name: &str, arrays: &'a RunArrays<'_>) -> PyResult<Runs<'a>> {
    let runs = Runs { starts: arrays.0.as_slice()?, stops: arrays.1.as_slice()?, offsets: arrays.2.as_slice()? };
    let total = runs.starts.len();
    let last = runs.offsets.last().copied().unwrap_or(0);
    if runs.stops.len() != total || runs.offsets.is_empty() || last < 0 || last as usize > total {
        return Err(invalid_argument(
            name,
            "runs (starts, stops, offsets) of one table",
            format!("{total} starts, offsets to {last}"),
        ));
    }
    if runs.offsets.windows(2).any(|pair| pair[1] < pair[0]) || runs.offsets[0] < 0 {
        return Err(invalid_argument(name, "non-decreasing run offsets", "offsets out of order"));
    }
    Ok(runs)
}

fn window_table<'a>(name: &str, arrays: &'a WindowArrays<'_>) -> PyResult<Windows<'a>> {
    if arrays.0.shape()[1] != TABLE_COLUMNS {
        return Err(invalid_argument(name, "a window table of 8 columns", format!("{} columns", arrays.0.shape()[1])));
    }
    Ok(Windows { table: arrays.0.as_slice()?, words: arrays.1.as_slice()? })
}

fn edge_table<'a>(arrays: &'a EdgeArrays<'_>) -> PyResult<(Edges<'a>, &'a [i64])> {
    let edges = Edges {
        x0: arrays.0.as_slice()?,
        y0: arrays.1.as_slice()?,
        x1: arrays.2.as_slice()?,
        y1: arrays.3.as_slice()?,
        sign: arrays.4.as_slice()?,
    };
    let count = edges.x0.len();
    if [edges.y0.len(), edges.x1.len(), edges.y1.len(), edges.sign.len()].iter().any(|&n| n != count) {
        return Err(invalid_argument("edges", "edge arrays of one length", "arrays of several lengths"));
    }
    Ok((edges, arrays.5.as_slice()?))
}

/// `values` as indices below `count`, or geoiou's error naming `name`.
fn indices<'a>(name: &str, values: &'a PyReadonlyArray1<'_, i64>, count: usize) -> PyResult<&'a [i64]> {
    let values = values.as_slice()?;
    if let Some(&bad) = values.iter().find(|&&v| v < 0 || v as usize >= count) {
        return Err(invalid_argument(name, &format!("indices below {count}"), bad));
    }
    Ok(values)
}

/// An error unless `length` is `expected`.
fn same_length(name: &str, length: usize, expected: usize) -> PyResult<()> {
    if length != expected {
        return Err(invalid_argument(name, &format!("{expected} values, one per pair or mask"), length));
    }
    Ok(())
}

/// Rows of a `(n, width)` float64 table (origins, boxes), checked to be `n` rows of `width`.
fn float_rows<'a>(name: &str, table: &'a PyReadonlyArray2<'_, f64>, n: usize, width: usize) -> PyResult<&'a [f64]> {
    if table.shape() != [n, width] {
        return Err(invalid_argument(name, &format!("an ({n}, {width}) table"), format!("{:?}", table.shape())));
    }
    Ok(table.as_slice()?)
}

// --------------------------------------------------------------------------- Mask × Mask
/// Pixels true in both masks `masks_a[k]` of `runs_a` and `masks_b[k]` of `runs_b`, into `out`, counted
/// from the runs (grids of one height: a position means the same pixel in both).
#[pyfunction]
fn run_overlap_counts(
    py: Python<'_>,
    runs_a: RunArrays<'_>,
    masks_a: PyReadonlyArray1<'_, i64>,
    runs_b: RunArrays<'_>,
    masks_b: PyReadonlyArray1<'_, i64>,
    mut out: PyReadwriteArray1<'_, i64>,
) -> PyResult<()> {
    let (a, b) = (run_table("runs_a", &runs_a)?, run_table("runs_b", &runs_b)?);
    let (masks_a, masks_b) = (indices("masks_a", &masks_a, a.len())?, indices("masks_b", &masks_b, b.len())?);
    same_length("masks_b", masks_b.len(), masks_a.len())?;
    same_length("out", out.len(), masks_a.len())?;
    let out = out.as_slice_mut()?;
    py.detach(|| {
        threads::for_chunks(out, 1, threads::chunk_of(PAIR_NS), |first, part| {
            for (k, count) in (first..).zip(part.iter_mut()) {
                *count = runs::shared_run_pixels(&a, masks_a[k] as usize, &b, masks_b[k] as usize);
            }
        })
    });
    Ok(())
}

/// Pixels true in both masks `masks_a[k]` of `windows_a` and `masks_b[k]` of `windows_b` (one grid, one
/// orientation), into `out`: an AND and a bit count per word over the overlap of their boxes.
#[pyfunction]
fn window_overlap_counts(
    py: Python<'_>,
    windows_a: WindowArrays<'_>,
    masks_a: PyReadonlyArray1<'_, i64>,
    windows_b: WindowArrays<'_>,
    masks_b: PyReadonlyArray1<'_, i64>,
    mut out: PyReadwriteArray1<'_, i64>,
) -> PyResult<()> {
    let (a, b) = (window_table("windows_a", &windows_a)?, window_table("windows_b", &windows_b)?);
    let (masks_a, masks_b) = (indices("masks_a", &masks_a, a.len())?, indices("masks_b", &masks_b, b.len())?);
    same_length("masks_b", masks_b.len(), masks_a.len())?;
    same_length("out", out.len(), masks_a.len())?;
    let out = out.as_slice_mut()?;
    py.detach(|| {
        threads::for_chunks(out, 1, threads::chunk_of(PAIR_NS), |first, part| {
            for (k, count) in (first..).zip(part.iter_mut()) {
                *count = windows::shared_window_pixels(&a, masks_a[k] as usize, &b, masks_b[k] as usize);
            }
        })
    });
    Ok(())
}

/// Shared area of masks `masks_a[k]` of `windows_a` at `origins_a[k]` and `masks_b[k]` of `windows_b` at
/// `origins_b[k]`, grids offset by any amount, into `out`: the mask with the smaller origin (x, then y)
/// first, so that a swapped pair gives the same bits, then four weighted shifted counts.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn offset_grid_overlaps(
    py: Python<'_>,
    windows_a: WindowArrays<'_>,
    masks_a: PyReadonlyArray1<'_, i64>,
    origins_a: PyReadonlyArray2<'_, f64>,
    windows_b: WindowArrays<'_>,
    masks_b: PyReadonlyArray1<'_, i64>,
    origins_b: PyReadonlyArray2<'_, f64>,
    column_major: bool,
    mut out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let (a, b) = (window_table("windows_a", &windows_a)?, window_table("windows_b", &windows_b)?);
    let (masks_a, masks_b) = (indices("masks_a", &masks_a, a.len())?, indices("masks_b", &masks_b, b.len())?);
    let n = masks_a.len();
    same_length("masks_b", masks_b.len(), n)?;
    same_length("out", out.len(), n)?;
    let (origins_a, origins_b) =
        (float_rows("origins_a", &origins_a, n, 2)?, float_rows("origins_b", &origins_b, n, 2)?);
    let out = out.as_slice_mut()?;
    py.detach(|| {
        threads::for_chunks(out, 1, threads::chunk_of(OFFSET_PAIR_NS), |first, part| {
            for (k, area) in (first..).zip(part.iter_mut()) {
                let mut first = (&a, masks_a[k] as usize, [origins_a[2 * k], origins_a[2 * k + 1]]);
                let mut second = (&b, masks_b[k] as usize, [origins_b[2 * k], origins_b[2 * k + 1]]);
                // The mask with the smaller origin goes first: the weights of the shifted counts, and so
                // the bits of the result, do not depend on the order of the pair.
                if windows::origin_before(second.2, first.2) {
                    std::mem::swap(&mut first, &mut second);
                }
                let ((wa, i, oa), (wb, j, ob)) = (first, second);
                *area = windows::overlap_on_offset_grids(wa, i, oa, wb, j, ob, column_major);
            }
        })
    });
    Ok(())
}

// --------------------------------------------------------------------------- Mask × Box, Mask × Polygon
/// Area of masks `masks[k]` of `windows` (at `origins[k]`) inside boxes `boxes[k]` (x1, y1, x2, y2), into
/// `out`: each true pixel weighted by the box's share of its row and of its column.
#[pyfunction]
fn mask_box_areas(
    py: Python<'_>,
    windows: WindowArrays<'_>,
    column_major: bool,
    masks: PyReadonlyArray1<'_, i64>,
    origins: PyReadonlyArray2<'_, f64>,
    boxes: PyReadonlyArray2<'_, f64>,
    mut out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let windows = window_table("windows", &windows)?;
    let masks = indices("masks", &masks, windows.len())?;
    let n = masks.len();
    same_length("out", out.len(), n)?;
    let (origins, boxes) = (float_rows("origins", &origins, n, 2)?, float_rows("boxes", &boxes, n, 4)?);
    let out = out.as_slice_mut()?;
    py.detach(|| {
        threads::for_chunks(out, 1, threads::chunk_of(PIXEL_PAIR_NS), |first, part| {
            for (k, area) in (first..).zip(part.iter_mut()) {
                let origin = [origins[2 * k], origins[2 * k + 1]];
                let xyxy = [boxes[4 * k], boxes[4 * k + 1], boxes[4 * k + 2], boxes[4 * k + 3]];
                *area = windows::window_box_area(&windows, masks[k] as usize, column_major, origin, xyxy);
            }
        })
    });
    Ok(())
}

/// The pair windows `(row0, col0, height, width)` per pair or group, checked to be `n` of them.
fn pair_windows<'a>(table: &'a PyReadonlyArray2<'_, i64>, n: usize) -> PyResult<&'a [i64]> {
    if table.shape() != [n, 4] {
        return Err(invalid_argument("windows", &format!("an ({n}, 4) table"), format!("{:?}", table.shape())));
    }
    Ok(table.as_slice()?)
}

/// The edges `first..stop` of geometry g, checked against the edge arrays.
fn edges_of(offsets: &[i64], g: usize, count: usize) -> (usize, usize) {
    let (first, stop) = (offsets[g] as usize, offsets[g + 1] as usize);
    assert!(first <= stop && stop <= count, "edge offsets beyond the edges");
    (first, stop)
}

/// Area of masks `masks[k]` of `windows` (dense masks, at `origins[k]`) inside polygons `geometry[k]` of
/// `edges`, into `out`: each pair's polygon rasterized on its window `pair_window[k]` (where the polygon's
/// bounds meet the mask's box) and read pixel by pixel against the mask's packed window.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn mask_polygon_window_areas(
    py: Python<'_>,
    edges: EdgeArrays<'_>,
    geometry: PyReadonlyArray1<'_, i64>,
    origins: PyReadonlyArray2<'_, f64>,
    pair_window: PyReadonlyArray2<'_, i64>,
    masks: PyReadonlyArray1<'_, i64>,
    windows: WindowArrays<'_>,
    column_major: bool,
    mut out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let (edges, edge_offsets) = edge_table(&edges)?;
    let geometry = indices("geometry", &geometry, edge_offsets.len().saturating_sub(1))?;
    let windows = window_table("windows", &windows)?;
    let masks = indices("masks", &masks, windows.len())?;
    let n = masks.len();
    same_length("geometry", geometry.len(), n)?;
    same_length("out", out.len(), n)?;
    let origins = float_rows("origins", &origins, n, 2)?;
    let pair_window = pair_windows(&pair_window, n)?;
    let out = out.as_slice_mut()?;
    py.detach(|| {
        threads::for_chunks(out, 1, threads::chunk_of(PIXEL_PAIR_NS), |first, part| {
            for (k, area) in (first..).zip(part.iter_mut()) {
                let (first_edge, stop_edge) = edges_of(edge_offsets, geometry[k] as usize, edges.x0.len());
                let window =
                    [pair_window[4 * k], pair_window[4 * k + 1], pair_window[4 * k + 2], pair_window[4 * k + 3]];
                let origin = [origins[2 * k], origins[2 * k + 1]];
                *area = coverage::polygon_window_area(
                    &edges,
                    first_edge,
                    stop_edge,
                    origin,
                    window,
                    &windows,
                    column_major,
                    masks[k] as usize,
                );
            }
        })
    });
    Ok(())
}

/// The exact coverage of polygons `geometry[k]` of `edges` on grids at `origins[k]`, each over its window
/// `windows[k]` `(row0, col0, height, width)` of the grid: window k's pixels, row by row, into `out` after
/// those of the windows before it (`Mask.from_polygon`, `regions.coverage`). A pixel's value is the one
/// the Mask × Polygon kernel sums for it (the same running sum along its row).
#[pyfunction]
fn polygon_coverages(
    py: Python<'_>,
    edges: EdgeArrays<'_>,
    geometry: PyReadonlyArray1<'_, i64>,
    origins: PyReadonlyArray2<'_, f64>,
    windows: PyReadonlyArray2<'_, i64>,
    mut out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let (edges, edge_offsets) = edge_table(&edges)?;
    let geometry = indices("geometry", &geometry, edge_offsets.len().saturating_sub(1))?;
    let n = geometry.len();
    let origins = float_rows("origins", &origins, n, 2)?;
    let windows = pair_windows(&windows, n)?;
    if let Some(k) = (0..n).find(|&k| windows[4 * k + 2] < 0 || windows[4 * k + 3] < 0) {
        return Err(invalid_argument("windows", "windows of non-negative size", format!("window {k}")));
    }
    let mut ends = vec![0i64; n + 1];
    for k in 0..n {
        ends[k + 1] = ends[k] + windows[4 * k + 2] * windows[4 * k + 3];
    }
    same_length("out", out.len(), ends[n] as usize)?;
    let out = out.as_slice_mut()?;
    let mut by_window = pieces(out, &ends);
    let per_window = MASK_NS + ITEM_NS * (ends[n] as usize + edges.x0.len()) / n.max(1);
    py.detach(|| {
        threads::for_chunks(&mut by_window, 1, threads::chunk_of(per_window), |first, part| {
            for (k, own) in (first..).zip(part.iter_mut()) {
                let (first_edge, stop_edge) = edges_of(edge_offsets, geometry[k] as usize, edges.x0.len());
                let window = [windows[4 * k], windows[4 * k + 1], windows[4 * k + 2], windows[4 * k + 3]];
                let origin = [origins[2 * k], origins[2 * k + 1]];
                coverage::window_coverage(&edges, first_edge, stop_edge, origin, window, own);
            }
        })
    });
    Ok(())
}

/// Area of masks held as runs inside polygons, pairs grouped by polygon and mask origin, into `out`.
///
/// Group g is polygon `geometry[g]` at `origins[g]` on the window `group_window[g]` of the grid (its
/// bounds within it): its coverage is accumulated once, along columns, and read along the runs of the
/// masks of its pairs `order[group_start[g]..group_start[g + 1]]`, pair p being mask `masks[p]` (runs of
/// its own height `heights[m]`). A pair's bits depend only on its polygon, origin and grid.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn mask_polygon_run_areas(
    py: Python<'_>,
    edges: EdgeArrays<'_>,
    geometry: PyReadonlyArray1<'_, i64>,
    origins: PyReadonlyArray2<'_, f64>,
    group_window: PyReadonlyArray2<'_, i64>,
    group_start: PyReadonlyArray1<'_, i64>,
    order: PyReadonlyArray1<'_, i64>,
    masks: PyReadonlyArray1<'_, i64>,
    runs: RunArrays<'_>,
    heights: PyReadonlyArray1<'_, i64>,
    mut out: PyReadwriteArray1<'_, f64>,
) -> PyResult<()> {
    let (edges, edge_offsets) = edge_table(&edges)?;
    let geometry = indices("geometry", &geometry, edge_offsets.len().saturating_sub(1))?;
    let groups = geometry.len();
    let origins = float_rows("origins", &origins, groups, 2)?;
    let group_window = pair_windows(&group_window, groups)?;
    let runs = run_table("runs", &runs)?;
    let heights = heights.as_slice()?;
    same_length("heights", heights.len(), runs.len())?;
    let masks = indices("masks", &masks, runs.len())?;
    let n = masks.len();
    let order = indices("order", &order, n)?;
    let group_start = group_start.as_slice()?;
    same_length("out", out.len(), n)?;
    same_length("group_start", group_start.len(), groups + 1)?;
    if group_start.first() != Some(&0)
        || group_start.last() != Some(&(n as i64))
        || group_start.windows(2).any(|w| w[1] < w[0])
    {
        return Err(invalid_argument(
            "group_start",
            "non-decreasing group offsets from 0 to the pairs",
            "other offsets",
        ));
    }
    let out = out.as_slice_mut()?;
    let mut ordered = vec![0.0; n];
    py.detach(|| {
        // Each group's pairs are consecutive in `order`: its results are one slice of `ordered`.
        let mut by_group = pieces(&mut ordered, group_start);
        threads::for_chunks(&mut by_group, 1, threads::chunk_of(RUN_GROUP_NS), |first, part| {
            for (g, areas) in (first..).zip(part.iter_mut()) {
                let (first_edge, stop_edge) = edges_of(edge_offsets, geometry[g] as usize, edges.x0.len());
                let window =
                    [group_window[4 * g], group_window[4 * g + 1], group_window[4 * g + 2], group_window[4 * g + 3]];
                let origin = [origins[2 * g], origins[2 * g + 1]];
                let acc = coverage::coverage(&edges, first_edge, stop_edge, origin, window, true);
                let pairs = &order[group_start[g] as usize..group_start[g + 1] as usize];
                for (area, &pair) in areas.iter_mut().zip(pairs) {
                    let m = masks[pair as usize] as usize;
                    let (first_run, last_run) = runs.of(m);
                    let mask = MaskRuns {
                        starts: runs.starts,
                        stops: runs.stops,
                        first_run,
                        last_run,
                        mask_height: heights[m],
                    };
                    *area = coverage::covered_run_pixels(&acc, window, mask);
                }
            }
        });
        for (&pair, &area) in order.iter().zip(&ordered) {
            out[pair as usize] = area;
        }
    });
    Ok(())
}

/// `values` cut at `offsets` (non-decreasing, from 0 to its length): piece i is `offsets[i]..offsets[i + 1]`.
fn pieces<'a, T>(values: &'a mut [T], offsets: &[i64]) -> Vec<&'a mut [T]> {
    let mut cut = Vec::with_capacity(offsets.len().saturating_sub(1));
    let mut rest = values;
    for pair in offsets.windows(2) {
        let (piece, after) = std::mem::take(&mut rest).split_at_mut((pair[1] - pair[0]) as usize);
        cut.push(piece);
        rest = after;
    }
    cut
}

// --------------------------------------------------------------------------- boxes and windows
/// Each mask's bounding box `(first row, last row + 1, first column, last column + 1)` from its runs,
/// each of its own height `heights[m]` (at least 1), into `boxes` `(M, 4)` (zeros when empty).
#[pyfunction]
fn run_boxes(
    py: Python<'_>,
    runs: RunArrays<'_>,
    heights: PyReadonlyArray1<'_, i64>,
    mut boxes: PyReadwriteArray2<'_, i64>,
) -> PyResult<()> {
    let runs = run_table("runs", &runs)?;
    let heights = positive_heights(&heights, runs.len())?;
    if boxes.shape() != [runs.len(), 4] {
        return Err(invalid_argument("boxes", "(M, 4), one box per mask", format!("{:?}", boxes.shape())));
    }
    let boxes = boxes.as_slice_mut()?;
    let per_mask = MASK_NS + ITEM_NS * runs.starts.len() / runs.len().max(1);
    py.detach(|| {
        threads::for_chunks(boxes, 4, threads::chunk_of(per_mask), |first, part| {
            for (m, out) in (first / 4..).zip(part.chunks_exact_mut(4)) {
                out.copy_from_slice(&runs::run_box(&runs, m, heights[m]));
            }
        })
    });
    Ok(())
}

fn positive_heights<'a>(heights: &'a PyReadonlyArray1<'_, i64>, masks: usize) -> PyResult<&'a [i64]> {
    let heights = heights.as_slice()?;
    same_length("heights", heights.len(), masks)?;
    if let Some(&bad) = heights.iter().find(|&&h| h < 1) {
        return Err(invalid_argument("heights", "heights of at least 1", bad));
    }
    Ok(heights)
}

/// Each mask's words in `words`, by the windows' layout: mask m's from `offsets[m]` to the next mask's.
fn mask_words<'a>(words: &'a mut [u64], offsets: &[i64]) -> PyResult<Vec<&'a mut [u64]>> {
    let mut ends = Vec::with_capacity(offsets.len() + 1);
    ends.extend_from_slice(offsets);
    ends.push(words.len() as i64);
    if ends[0] != 0 || ends.windows(2).any(|w| w[1] < w[0]) {
        return Err(invalid_argument(
            "offsets",
            "non-decreasing word offsets from 0 within the words",
            "other offsets",
        ));
    }
    Ok(pieces(words, &ends))
}

/// Set the bits of each mask's runs in its window (`layout`; `words` zeroed): along columns
/// (`column_major`: a line is a grid column, its bits the rows), else along rows.
#[pyfunction]
fn pack_run_windows(
    py: Python<'_>,
    runs: RunArrays<'_>,
    heights: PyReadonlyArray1<'_, i64>,
    layout: LayoutArrays<'_>,
    column_major: bool,
    mut words: PyReadwriteArray1<'_, u64>,
) -> PyResult<()> {
    let runs = run_table("runs", &runs)?;
    let heights = positive_heights(&heights, runs.len())?;
    let (line0, word0, stride, offsets) =
        (layout.0.as_slice()?, layout.1.as_slice()?, layout.2.as_slice()?, layout.3.as_slice()?);
    for (name, values) in [("line0", line0), ("word0", word0), ("stride", stride), ("offsets", offsets)] {
        same_length(name, values.len(), runs.len())?;
    }
    let words = words.as_slice_mut()?;
    let per_mask = MASK_NS + ITEM_NS * (runs.starts.len() + words.len()) / runs.len().max(1);
    let mut by_mask = mask_words(words, offsets)?;
    py.detach(|| {
        threads::for_chunks(&mut by_mask, 1, threads::chunk_of(per_mask), |first, part| {
            for (m, own) in (first..).zip(part.iter_mut()) {
                let place = Placement { line0: line0[m], word0: word0[m], stride: stride[m] };
                if column_major {
                    runs::pack_columns(&runs, m, heights[m], place, own);
                } else {
                    runs::pack_rows(&runs, m, heights[m], place, own);
                }
            }
        })
    });
    Ok(())
}

/// Each mask's bounding box from its dense pixels `pixels` `(M, H, W)` (one byte each, nonzero: true), into
/// `boxes` `(M, 4)` (zeros when empty).
#[pyfunction]
fn dense_boxes(
    py: Python<'_>,
    pixels: PyReadonlyArray3<'_, u8>,
    mut boxes: PyReadwriteArray2<'_, i64>,
) -> PyResult<()> {
    let &[masks, height, width] = pixels.shape() else { unreachable!("a three-dimensional array") };
    if boxes.shape() != [masks, 4] {
        return Err(invalid_argument("boxes", "(M, 4), one box per mask", format!("{:?}", boxes.shape())));
    }
    let (pixels, boxes) = (pixels.as_slice()?, boxes.as_slice_mut()?);
    let per_mask = MASK_NS + ITEM_NS * height * width / 8;
    py.detach(|| {
        threads::for_chunks(boxes, 4, threads::chunk_of(per_mask), |first, part| {
            for (m, out) in (first / 4..).zip(part.chunks_exact_mut(4)) {
                let own = &pixels[m * height * width..(m + 1) * height * width];
                out.copy_from_slice(&windows::dense_box(own, height, width));
            }
        })
    });
    Ok(())
}

/// Pack each mask's window (`layout`: the rows and words of its box) from its dense pixels `pixels`
/// `(M, H, W)` (one byte each) into `words`.
#[pyfunction]
fn pack_dense_windows(
    py: Python<'_>,
    pixels: PyReadonlyArray3<'_, u8>,
    layout: LayoutArrays<'_>,
    mut words: PyReadwriteArray1<'_, u64>,
) -> PyResult<()> {
    let &[masks, height, width] = pixels.shape() else { unreachable!("a three-dimensional array") };
    let (line0, word0, stride, offsets) =
        (layout.0.as_slice()?, layout.1.as_slice()?, layout.2.as_slice()?, layout.3.as_slice()?);
    for (name, values) in [("line0", line0), ("word0", word0), ("stride", stride), ("offsets", offsets)] {
        same_length(name, values.len(), masks)?;
    }
    let pixels = pixels.as_slice()?;
    let words = words.as_slice_mut()?;
    let per_mask = MASK_NS + 8 * ITEM_NS * words.len() / masks.max(1);
    let mut by_mask = mask_words(words, offsets)?;
    let words_of_rows = width.div_ceil(64) as i64;
    for (m, own) in by_mask.iter().enumerate() {
        let rows = if stride[m] == 0 { 0 } else { own.len() as i64 / stride[m] };
        if stride[m] < 0
            || line0[m] < 0
            || line0[m] + rows > height as i64
            || word0[m] < 0
            || word0[m] + stride[m] > words_of_rows
        {
            return Err(invalid_argument("layout", "windows inside the masks' rows", format!("mask {m}")));
        }
    }
    py.detach(|| {
        threads::for_chunks(&mut by_mask, 1, threads::chunk_of(per_mask), |first, part| {
            for (m, own) in (first..).zip(part.iter_mut()) {
                let rows = &pixels[m * height * width..(m + 1) * height * width];
                windows::pack_dense_window(rows, width, line0[m], word0[m], stride[m], own);
            }
        })
    });
    Ok(())
}

// --------------------------------------------------------------------------- boundary bands
/// The band `mask − erode(mask, d)` of each mask `masks[k]` of `runs` (runs of its own height
/// `heights[m]`, at least 1), eroded by `distances[k]` (at least 1): the bands' runs
/// `(starts, stops, offsets)`, band k owning `offsets[k]..offsets[k + 1]`.
#[pyfunction]
fn band_runs<'py>(
    py: Python<'py>,
    runs: RunArrays<'py>,
    heights: PyReadonlyArray1<'py, i64>,
    distances: PyReadonlyArray1<'py, i64>,
    masks: PyReadonlyArray1<'py, i64>,
) -> PyResult<ThreeArrays<'py>> {
    let runs = run_table("runs", &runs)?;
    let heights = positive_heights(&heights, runs.len())?;
    let masks = indices("masks", &masks, runs.len())?;
    let distances = distances.as_slice()?;
    same_length("distances", distances.len(), masks.len())?;
    if let Some(&bad) = distances.iter().find(|&&d| d < 1) {
        return Err(invalid_argument("distances", "erosion distances of at least 1", bad));
    }
    let per_mask = MASK_NS + 10 * ITEM_NS * runs.starts.len() / runs.len().max(1);
    let (starts, stops, offsets) = py.detach(|| {
        let parts = threads::map_ranges(masks.len(), threads::chunk_of(per_mask), |begin, end| {
            let mut scratch = bands::Scratch::default();
            let (mut starts, mut stops, mut counts) = (Vec::new(), Vec::new(), Vec::with_capacity(end - begin));
            for k in begin..end {
                let m = masks[k] as usize;
                let found = bands::band_of(&runs, m, heights[m], distances[k], &mut scratch, &mut starts, &mut stops);
                counts.push(found as i64);
            }
            (starts, stops, counts)
        });
        crate::raster::joined(parts)
    });
    Ok((PyArray1::from_vec(py, starts), PyArray1::from_vec(py, stops), PyArray1::from_vec(py, offsets)))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(run_overlap_counts, module)?)?;
    module.add_function(wrap_pyfunction!(window_overlap_counts, module)?)?;
    module.add_function(wrap_pyfunction!(offset_grid_overlaps, module)?)?;
    module.add_function(wrap_pyfunction!(mask_box_areas, module)?)?;
    module.add_function(wrap_pyfunction!(mask_polygon_window_areas, module)?)?;
    module.add_function(wrap_pyfunction!(mask_polygon_run_areas, module)?)?;
    module.add_function(wrap_pyfunction!(polygon_coverages, module)?)?;
    module.add_function(wrap_pyfunction!(run_boxes, module)?)?;
    module.add_function(wrap_pyfunction!(pack_run_windows, module)?)?;
    module.add_function(wrap_pyfunction!(dense_boxes, module)?)?;
    module.add_function(wrap_pyfunction!(pack_dense_windows, module)?)?;
    module.add_function(wrap_pyfunction!(band_runs, module)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_follow_the_offsets() {
        let mut values = [1, 2, 3, 4, 5];
        let cut = pieces(&mut values, &[0, 2, 2, 5]);
        assert_eq!(cut.len(), 3);
        assert_eq!((cut[0].len(), cut[1].len(), cut[2].len()), (2, 0, 3));
    }
}
