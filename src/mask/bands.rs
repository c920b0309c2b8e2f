//! The boundary band `mask − erode(mask, d)` of a mask held as COCO runs, as runs.
//!
//! The erosion is boundary-iou-api's: `d` passes of a 3 × 3 erosion of the mask padded with one false
//! pixel, so a pixel stays only if every pixel within Chebyshev distance `d` is true, pixels beyond the
//! mask's own grid counting as false. A square erosion is a vertical one followed by a horizontal one,
//! and both are read off the runs, column by column (COCO runs go down the columns):
//!
//! - vertically, each piece of a run in a column, rows `[s, e)`, keeps `[s + d, e − d)`;
//! - horizontally, a row stays in column `o` when it stayed vertically in the `2d + 1` columns
//!   `o − d ..= o + d`: the intersection of those columns' intervals, which is one interval (the
//!   largest start, the smallest end) when each column has one piece that stays, as a blob's columns
//!   do; otherwise the columns' lists are intersected;
//! - the band of column `o` is then the mask's pieces in it minus those intervals, written as runs in
//!   the mask's own column-major positions (touching runs joined).
//!
//! Work per mask follows its runs, not its pixels: the window slides over the columns with two
//! monotonic queues (each column enters and leaves each once); memory is a few integers per column of
//! one mask at a time; nothing is decoded.

use std::cmp::{max, min};

use super::runs::Runs;

/// What is known of one column of the mask's box.
#[derive(Clone, Copy, Default)]
struct Column {
    /// Its first run (the first that ends below its top).
    first_run: usize,
    /// How many of its pieces stay after the vertical erosion.
    staying: i64,
    /// The last piece that stays: its rows `[low, high)`.
    low: i64,
    high: i64,
}

/// The scratch memory of banding masks one after another (grown as needed, reused).
#[derive(Default)]
pub struct Scratch {
    columns: Vec<Column>,
    /// The two queues of columns: the window's largest start first, its smallest end first.
    queue_low: Vec<usize>,
    queue_high: Vec<usize>,
    /// The rows of the column banded that stay in the erosion, and two lists to intersect them with.
    eroded: Vec<(i64, i64)>,
    other: Vec<(i64, i64)>,
    met: Vec<(i64, i64)>,
}

/// The band of mask m (runs of its own `height`, at least 1) eroded by `d` (at least 1), appended to
/// `starts` and `stops` as runs in its own column-major positions; how many runs it has.
pub fn band_of(
    runs: &Runs<'_>,
    m: usize,
    height: i64,
    d: i64,
    scratch: &mut Scratch,
    starts: &mut Vec<i64>,
    stops: &mut Vec<i64>,
) -> usize {
    let (lo, hi) = runs.of(m);
    if lo == hi {
        return 0;
    }
    let (run_starts, run_stops) = (runs.starts, runs.stops);
    let first_column = run_starts[lo].div_euclid(height);
    let width = ((run_stops[hi - 1] - 1).div_euclid(height) + 1 - first_column) as usize;
    let Scratch { columns, queue_low, queue_high, eroded, other, met } = scratch;
    columns.clear();
    columns.resize(width + 1, Column::default());
    queue_low.clear();
    queue_low.resize(width + 1, 0);
    queue_high.clear();
    queue_high.resize(width + 1, 0);
    let mut j = lo;
    for (i, column) in columns.iter_mut().take(width).enumerate() {
        let top = (first_column + i as i64) * height;
        while run_stops[j] <= top {
            j += 1;
        }
        column.first_run = j;
        let mut k = j;
        while k < hi && run_starts[k] < top + height {
            let low = max(run_starts[k], top) - top + d;
            let high = min(run_stops[k], top + height) - top - d;
            if high > low {
                column.staying += 1;
                (column.low, column.high) = (low, high);
            }
            k += 1;
        }
    }
    columns[width].first_run = hi;
    let columns = &columns[..];
    let first_found = starts.len();
    let mut last_stop = -1;
    // The window i - d ..= i + d: its columns with no piece staying, with several, and the queues of the others.
    let (mut empty, mut several) = (0i64, 0i64);
    let (mut first_low, mut end_low, mut first_high, mut end_high) = (0usize, 0usize, 0usize, 0usize);
    let width = width as i64;
    for i in -d..width {
        let w = i + d; // enters the window
        if w < width {
            let entering = columns[w as usize];
            if entering.staying == 1 {
                while end_low > first_low && columns[queue_low[end_low - 1]].low <= entering.low {
                    end_low -= 1;
                }
                queue_low[end_low] = w as usize;
                end_low += 1;
                while end_high > first_high && columns[queue_high[end_high - 1]].high >= entering.high {
                    end_high -= 1;
                }
                queue_high[end_high] = w as usize;
                end_high += 1;
            } else {
                empty += (entering.staying == 0) as i64;
                several += (entering.staying > 1) as i64;
            }
        }
        let w = i - d - 1; // leaves the window
        if w >= 0 {
            if columns[w as usize].staying == 1 {
                // At the front of a queue unless a later column pushed it out.
                first_low += (first_low < end_low && queue_low[first_low] == w as usize) as usize;
                first_high += (first_high < end_high && queue_high[first_high] == w as usize) as usize;
            } else {
                empty -= (columns[w as usize].staying == 0) as i64;
                several -= (columns[w as usize].staying > 1) as i64;
            }
        }
        if i < 0 {
            continue;
        }
        eroded.clear();
        if i - d >= 0 && i + d < width && empty == 0 {
            if several == 0 {
                let (low, high) = (columns[queue_low[first_low]].low, columns[queue_high[first_high]].high);
                if high > low {
                    eroded.push((low, high));
                }
            } else {
                eroded_rows(runs, hi, height, d, first_column, columns, i as usize, eroded, other, met);
            }
        }
        let top = (first_column + i) * height;
        let count = eroded.len();
        let mut e = 0; // the next eroded interval
        let mut k = columns[i as usize].first_run;
        while k < hi && run_starts[k] < top + height {
            let (mut r, high) = (max(run_starts[k], top) - top, min(run_stops[k], top + height) - top);
            while r < high {
                // The piece's rows less the eroded intervals.
                while e < count && eroded[e].1 <= r {
                    e += 1;
                }
                let stop = if e == count { high } else { min(high, eroded[e].0) };
                if stop > r {
                    if top + r == last_stop {
                        // Joins the run before (the previous column's bottom).
                        *stops.last_mut().expect("a run ends where this one starts") = top + stop;
                    } else {
                        starts.push(top + r);
                        stops.push(top + stop);
                    }
                    last_stop = top + stop;
                }
                r = if e == count { stop } else { max(stop, eroded[e].1) };
            }
            k += 1;
        }
    }
    starts.len() - first_found
}

/// The rows of column `i` that stay in the erosion when some column of its window has several pieces
/// that stay vertically: the intersection of the window's lists, into `eroded`.
#[allow(clippy::too_many_arguments)]
fn eroded_rows(
    runs: &Runs<'_>,
    hi: usize,
    height: i64,
    d: i64,
    first_column: i64,
    columns: &[Column],
    i: usize,
    eroded: &mut Vec<(i64, i64)>,
    other: &mut Vec<(i64, i64)>,
    met: &mut Vec<(i64, i64)>,
) {
    let d = d as usize;
    stayed(runs, hi, height, d as i64, first_column, columns, i - d, eroded);
    for w in i - d + 1..=i + d {
        stayed(runs, hi, height, d as i64, first_column, columns, w, other);
        intersect(eroded, other, met);
        std::mem::swap(eroded, met);
        if eroded.is_empty() {
            break;
        }
    }
}

/// The pieces of column `w` that stay vertically, as intervals into `into`.
#[allow(clippy::too_many_arguments)]
fn stayed(
    runs: &Runs<'_>,
    hi: usize,
    height: i64,
    d: i64,
    first_column: i64,
    columns: &[Column],
    w: usize,
    into: &mut Vec<(i64, i64)>,
) {
    into.clear();
    let top = (first_column + w as i64) * height;
    let mut k = columns[w].first_run;
    while k < hi && runs.starts[k] < top + height {
        let low = max(runs.starts[k], top) - top + d;
        let high = min(runs.stops[k], top + height) - top - d;
        if high > low {
            into.push((low, high));
        }
        k += 1;
    }
}

/// `a ∩ b` of two sorted lists of disjoint intervals, into `into`.
fn intersect(a: &[(i64, i64)], b: &[(i64, i64)], into: &mut Vec<(i64, i64)>) {
    into.clear();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (low, high) = (max(a[i].0, b[j].0), min(a[i].1, b[j].1));
        if high > low {
            into.push((low, high));
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The column-major runs of a dense `height × width` mask given row by row.
    fn runs_of(rows: &[&str]) -> (Vec<i64>, Vec<i64>, i64) {
        let (height, width) = (rows.len(), rows[0].len());
        let (mut starts, mut stops) = (Vec::new(), Vec::new());
        let mut inside = false;
        for p in 0..height * width {
            let (c, r) = (p / height, p % height);
            let on = rows[r].as_bytes()[c] == b'1';
            if on && !inside {
                starts.push(p as i64);
            } else if !on && inside {
                stops.push(p as i64);
            }
            inside = on;
        }
        if inside {
            stops.push((height * width) as i64);
        }
        (starts, stops, height as i64)
    }

    fn band(rows: &[&str], d: i64) -> Vec<String> {
        let (starts, stops, height) = runs_of(rows);
        let offsets = [0, starts.len() as i64];
        let runs = Runs { starts: &starts, stops: &stops, offsets: &offsets };
        let (mut band_starts, mut band_stops) = (Vec::new(), Vec::new());
        band_of(&runs, 0, height, d, &mut Scratch::default(), &mut band_starts, &mut band_stops);
        let width = rows[0].len();
        let mut out = vec![vec![b'0'; width]; rows.len()];
        for (&s, &e) in band_starts.iter().zip(&band_stops) {
            for p in s..e {
                out[(p % height) as usize][(p / height) as usize] = b'1';
            }
        }
        out.into_iter().map(|row| String::from_utf8(row).unwrap()).collect()
    }

    #[test]
    fn a_square_keeps_its_ring() {
        // A 4 x 4 square eroded by 1 keeps its 2 x 2 centre: the band is the ring of width 1.
        let square = ["000000", "011110", "011110", "011110", "011110", "000000"];
        assert_eq!(band(&square, 1), ["000000", "011110", "010010", "010010", "011110", "000000"]);
        // Eroded by 2 nothing stays: the band is the whole square.
        assert_eq!(band(&square, 2), square);
    }

    #[test]
    fn the_grid_edge_is_a_boundary_too() {
        // A full 3 x 3 grid: pixels beyond it are false, so only the centre stays at distance 1.
        assert_eq!(band(&["111", "111", "111"], 1), ["111", "101", "111"]);
    }

    #[test]
    fn a_comb_intersects_the_lists_of_its_columns() {
        // Columns with two pieces each (a gap in row 3): the erosion keeps rows 1-2 and 4-5 of the
        // middle columns, the band is the rest.
        let comb = ["11111", "11111", "11111", "11111", "00000", "11111", "11111", "11111"];
        let banded = band(&comb, 1);
        assert_eq!(banded, ["11111", "10001", "10001", "11111", "00000", "11111", "10001", "11111"]);
    }

    #[test]
    fn intervals_intersect_in_order() {
        let mut into = Vec::new();
        intersect(&[(0, 4), (6, 9)], &[(2, 7), (8, 10)], &mut into);
        assert_eq!(into, [(2, 4), (6, 7), (8, 9)]);
    }
}
