//! pycocotools' polygon rasterization (`rleFrPoly` in `maskApi.c`), reproduced bit for bit, each
//! object on its own (objects in parallel), as the column-major runs of its raster.
//!
//! Per ring, as pycocotools does it (the steps of `geoiou.rle_rasterize`'s docstring):
//!
//! 1. the vertices scaled by 5 and cast to an integer (truncation toward zero);
//! 2. every edge, the closing one included, walked one upsampled step at a time along its longer axis
//!    from the end with the smaller value there, the other coordinate rounded from a double slope (a
//!    zero-length edge's 0 / 0 slope gives the value x86 gives a NaN cast: INT_MIN);
//! 3. where the walked column changes between two consecutive points, the crossed column, if it is a
//!    pixel-centre column inside the image, marks the first pixel below the boundary there;
//! 4. the marks toggle the mask in column-major order (a mark made twice cancels).
//!
//! The rings of one object are then united. Integers follow the loop this replaces (numba's int64,
//! wrapping, and x86's conversion of a float beyond them); runs are integers, so any order of sorting
//! gives the same ones.

use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::invalid_argument;
use crate::numeric::truncated;
use crate::threads;

/// pycocotools' upsampling factor.
const SCALE: f64 = 5.0;
/// What x86's `cvttsd2si` returns for a NaN (the C cast of a zero-length edge's slope is undefined).
const INT_MIN: i64 = -(1 << 31);
/// Nanoseconds one object costs on one thread (a COCO polygon of some hundred walked points).
const OBJECT_NS: usize = 5_000;

/// `(int)(5 * value + 0.5)`: C's cast truncates toward zero.
#[inline(always)]
fn upsampled(value: f64) -> i64 {
    truncated(SCALE * value + 0.5)
}

/// `x.ceil() as i64` for `x` in `[0, height]` (`height` an `i64`), without `ceil`, a libm call on baseline x86-64.
#[inline(always)]
fn ceiling(x: f64) -> i64 {
    let whole = x as i64;
    if (whole as f64) < x { whole + 1 } else { whole }
}

/// The rings of every object: `xy` vertices (x, y pairs) of every ring end to end, not closed, ring r
/// being `ring_start[r]..ring_start[r + 1]`, object o's rings `object_ring[o]..object_ring[o + 1]`.
struct Rings<'a> {
    xy: &'a [f64],
    ring_start: &'a [i64],
    object_ring: &'a [i64],
}

/// Append the ring's boundary marks (column-major pixel positions of an image `height × width`) to `marks`.
fn ring_marks(xy: &[f64], first: usize, stop: usize, height: i64, width: i64, marks: &mut Vec<i64>) {
    let (mut have_previous, mut previous_u, mut previous_v) = (false, 0i64, 0i64);
    for j in first..stop {
        let k = if j + 1 < stop { j + 1 } else { first };
        let (mut xs, mut xe) = (upsampled(xy[2 * j]), upsampled(xy[2 * k]));
        let (mut ys, mut ye) = (upsampled(xy[2 * j + 1]), upsampled(xy[2 * k + 1]));
        let (dx, dy) = (xe.wrapping_sub(xs).wrapping_abs(), ys.wrapping_sub(ye).wrapping_abs());
        let flip = (dx >= dy && xs > xe) || (dx < dy && ys > ye);
        if flip {
            (xs, xe, ys, ye) = (xe, xs, ye, ys);
        }
        let steps = if dx >= dy { dx } else { dy };
        let slope = if steps == 0 {
            0.0
        } else if dx >= dy {
            ye.wrapping_sub(ys) as f64 / dx as f64
        } else {
            xe.wrapping_sub(xs) as f64 / dy as f64
        };
        for d in 0..=steps {
            let t = if flip { steps - d } else { d };
            let (u, v) = if dx >= dy {
                (t.wrapping_add(xs), if steps == 0 { INT_MIN } else { truncated(ys as f64 + slope * t as f64 + 0.5) })
            } else {
                (truncated(xs as f64 + slope * t as f64 + 0.5), t.wrapping_add(ys))
            };
            if have_previous && u != previous_u {
                let column = (if u < previous_u { u } else { u.wrapping_sub(1) }) as f64;
                let column = (column + 0.5) / SCALE - 0.5;
                // pycocotools' test is `floor(column) == column` and the range; inside the range (below
                // 2^63) a cast both ways is the same test without `floor`, a libm call on baseline x86-64.
                if column >= 0.0 && column <= (width - 1) as f64 && (column as i64) as f64 == column {
                    let row = (v.min(previous_v) as f64 + 0.5) / SCALE - 0.5;
                    let row = crate::numeric::min(crate::numeric::max(row, 0.0), height as f64);
                    marks.push((column as i64).wrapping_mul(height).wrapping_add(ceiling(row)));
                }
            }
            (have_previous, previous_u, previous_v) = (true, u, v);
        }
    }
}

/// The runs between the marks made an odd number of times (sorted here), appended to `runs`; an image
/// of `pixels` positions (a run still open at the last mark reaches its end).
fn toggled_runs(marks: &mut [i64], pixels: i64, runs: &mut Vec<(i64, i64)>) {
    marks.sort_unstable();
    let (mut is_start, mut start) = (true, 0);
    let mut i = 0;
    while i < marks.len() && marks[i] < pixels {
        let mut j = i;
        while j < marks.len() && marks[j] == marks[i] {
            j += 1;
        }
        if (j - i) % 2 == 1 {
            if is_start {
                start = marks[i];
            } else {
                runs.push((start, marks[i]));
            }
            is_start = !is_start;
        }
        i = j;
    }
    if !is_start {
        runs.push((start, pixels));
    }
}

/// Sort the runs by start and merge the overlapping and touching ones, in place. Runs of equal starts
/// merge into one whatever their order, so the sort need not be stable.
fn united(runs: &mut Vec<(i64, i64)>) {
    runs.sort_unstable_by_key(|run| run.0);
    let mut kept = 0;
    for i in 0..runs.len() {
        let run = runs[i];
        if kept > 0 && run.0 <= runs[kept - 1].1 {
            runs[kept - 1].1 = runs[kept - 1].1.max(run.1);
        } else {
            runs[kept] = run;
            kept += 1;
        }
    }
    runs.truncate(kept);
}

/// The runs of object o (image `height × width`): the union of its rings' rasters, into `runs`.
fn object_runs_of(
    rings: &Rings<'_>,
    o: usize,
    height: i64,
    width: i64,
    marks: &mut Vec<i64>,
    runs: &mut Vec<(i64, i64)>,
) {
    runs.clear();
    let (first_ring, stop_ring) = (rings.object_ring[o] as usize, rings.object_ring[o + 1] as usize);
    for r in first_ring..stop_ring {
        marks.clear();
        ring_marks(rings.xy, rings.ring_start[r] as usize, rings.ring_start[r + 1] as usize, height, width, marks);
        toggled_runs(marks, height.wrapping_mul(width), runs);
    }
    if stop_ring - first_ring > 1 {
        united(runs);
    }
}

/// Runs handed back to Python: `(starts, stops, offsets)`.
type RunTable<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>);

/// One range of objects' runs, end to end, and how many each has.
type ObjectsRuns = (Vec<i64>, Vec<i64>, Vec<i64>);

/// Column-major true runs `[start, stop)` of each object's raster, and where each object's runs start
/// (and the end).
///
/// `xy` `(V, 2)` holds the vertices of every ring, rings end to end, not closed; `ring_start` `(R + 1,)`
/// where each ring's vertices start; `object_ring` `(N + 1,)` where each object's rings start; `sizes`
/// `(N, 2)` each object's image `(height, width)`.
#[pyfunction]
fn object_runs<'py>(
    py: Python<'py>,
    xy: PyReadonlyArray2<'py, f64>,
    ring_start: PyReadonlyArray1<'py, i64>,
    object_ring: PyReadonlyArray1<'py, i64>,
    sizes: PyReadonlyArray2<'py, i64>,
) -> PyResult<RunTable<'py>> {
    if xy.shape()[1] != 2 {
        return Err(invalid_argument("xy", "vertices (V, 2)", format!("{} columns", xy.shape()[1])));
    }
    let rings = Rings { xy: xy.as_slice()?, ring_start: ring_start.as_slice()?, object_ring: object_ring.as_slice()? };
    let objects = rings.object_ring.len().saturating_sub(1);
    let sizes = sizes.as_slice()?;
    if sizes.len() != 2 * objects {
        return Err(invalid_argument(
            "sizes",
            "(height, width) per object",
            format!("{} values for {objects}", sizes.len()),
        ));
    }
    let (starts, stops, offsets) = py.detach(|| {
        let parts: Vec<ObjectsRuns> = threads::map_ranges(objects, threads::chunk_of(OBJECT_NS), |begin, end| {
            let (mut marks, mut runs) = (Vec::new(), Vec::new());
            let (mut starts, mut stops, mut counts) = (Vec::new(), Vec::new(), Vec::with_capacity(end - begin));
            for o in begin..end {
                object_runs_of(&rings, o, sizes[2 * o], sizes[2 * o + 1], &mut marks, &mut runs);
                starts.extend(runs.iter().map(|run| run.0));
                stops.extend(runs.iter().map(|run| run.1));
                counts.push(runs.len() as i64);
            }
            (starts, stops, counts)
        });
        joined(parts)
    });
    Ok((PyArray1::from_vec(py, starts), PyArray1::from_vec(py, stops), PyArray1::from_vec(py, offsets)))
}

/// The runs of consecutive ranges of objects, end to end, and the offsets of each object's runs.
pub fn joined(parts: Vec<ObjectsRuns>) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
    if parts.len() == 1 {
        let (starts, stops, counts) = parts.into_iter().next().expect("one part");
        return (starts, stops, offsets_of(&counts));
    }
    let total = parts.iter().map(|part| part.0.len()).sum();
    let (mut starts, mut stops) = (Vec::with_capacity(total), Vec::with_capacity(total));
    let mut counts = Vec::new();
    for (part_starts, part_stops, part_counts) in parts {
        starts.extend_from_slice(&part_starts);
        stops.extend_from_slice(&part_stops);
        counts.extend_from_slice(&part_counts);
    }
    (starts, stops, offsets_of(&counts))
}

/// `[0, c0, c0 + c1, ...]`.
fn offsets_of(counts: &[i64]) -> Vec<i64> {
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    offsets.push(0);
    let mut total = 0;
    for &count in counts {
        total += count;
        offsets.push(total);
    }
    offsets
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(object_runs, module)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs_of(xy: &[f64], height: i64, width: i64) -> Vec<(i64, i64)> {
        let ring_start = [0, (xy.len() / 2) as i64];
        let rings = Rings { xy, ring_start: &ring_start, object_ring: &[0, 1] };
        let (mut marks, mut runs) = (Vec::new(), Vec::new());
        object_runs_of(&rings, 0, height, width, &mut marks, &mut runs);
        runs
    }

    #[test]
    fn the_ceiling_without_ceil_is_ceils() {
        // Integers stay, fractions go up, -0.0 is 0, and 2^63 saturates as `ceil(x) as i64` does.
        for x in [0.0, -0.0, 0.25, 1.0, 1.5, 7.999, 4096.0, (1u64 << 53) as f64, (1u64 << 63) as f64] {
            assert_eq!(ceiling(x), x.ceil() as i64, "{x}");
        }
    }

    #[test]
    fn a_rectangle_on_pixel_corners_covers_the_pixels_whose_centres_it_holds() {
        // [1, 4) x [1, 3) on a 4 x 6 image: rows 1 and 2 of columns 1, 2, 3 (positions 4c + 1, 4c + 2).
        let square = [1.0, 1.0, 4.0, 1.0, 4.0, 3.0, 1.0, 3.0];
        assert_eq!(runs_of(&square, 4, 6), [(5, 7), (9, 11), (13, 15)]);
    }

    #[test]
    fn a_triangle_holds_45_pixel_centres() {
        // The exact triangle has area 50; pycocotools' raster of it has 45 pixels.
        let runs = runs_of(&[0.0, 0.0, 10.0, 0.0, 0.0, 10.0], 10, 10);
        assert_eq!(runs.iter().map(|(s, e)| e - s).sum::<i64>(), 45);
    }

    #[test]
    fn marks_made_twice_cancel_and_an_open_run_reaches_the_end() {
        let mut runs = Vec::new();
        toggled_runs(&mut [7, 3, 3, 5], 10, &mut runs);
        assert_eq!(runs, [(5, 7)]);
        runs.clear();
        toggled_runs(&mut [2, 6, 8], 10, &mut runs);
        assert_eq!(runs, [(2, 6), (8, 10)]);
    }

    #[test]
    fn rings_of_one_object_unite_touching_and_overlapping_runs() {
        let mut runs = vec![(5, 8), (1, 3), (3, 4), (6, 9)];
        united(&mut runs);
        assert_eq!(runs, [(1, 4), (5, 9)]);
    }

    #[test]
    fn an_integer_of_a_nan_or_a_huge_float_is_the_smallest_integer() {
        assert_eq!(truncated(f64::NAN), i64::MIN);
        assert_eq!(truncated(-1e19), i64::MIN);
        assert_eq!(truncated(-0.9), 0);
        assert_eq!(upsampled(1.0), 5);
        assert_eq!(upsampled(-0.15), 0); // -0.75 + 0.5 = -0.25, truncated toward zero
    }
}
