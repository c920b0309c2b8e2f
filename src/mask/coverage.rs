//! The exact pixel coverage of a polygon, by signed-area accumulation, and the area of a mask inside
//! a polygon read from it.
//!
//! Every directed ring edge is cut at the grid's lines into pieces that each lie in one cell; a
//! piece deposits the area between itself and the right border of its cell, and its whole height
//! `dy` to every cell further right (through a running sum along the line). Summed over closed rings
//! this is the exact signed area of the polygon inside each pixel. The work is confined to a window
//! of the grid, `(row0, col0, height, width)`: an edge's part left of the window covers the whole
//! line (added at its first cell), its parts right of it, above or below it nothing.
//!
//! A mask held as dense pixels is read pixel by pixel against its packed window; one held as COCO
//! runs along its runs, where between two cells an edge touched the coverage is one number, so a
//! stretch of a run adds one product.

use crate::numeric::{max, min};
use crate::search::insertion_point;

use super::windows::{WORD_BITS, Windows};

/// A polygon store's directed edges (`RaggedPolygons.edges`): from `(x0, y0)` to `(x1, y1)`, each
/// with its ring's weight sign (summing `sign · cross(p, q)` over a polygon's edges gives twice its
/// area, whatever the direction of each ring: +1 for a counter-clockwise exterior).
#[derive(Clone, Copy)]
pub struct Edges<'a> {
    pub x0: &'a [f64],
    pub y0: &'a [f64],
    pub x1: &'a [f64],
    pub y1: &'a [f64],
    pub sign: &'a [f64],
}

/// A window of the grid: its first row and column and its size, `(row0, col0, height, width)`.
pub type Window = [i64; 4];

/// A coverage being accumulated: `lines` lines of `cells + 1` cells (the last catches what passes
/// beyond the window); a pixel's coverage is the running sum of its line up to its cell.
pub struct Accumulation {
    values: Vec<f64>,
    cells: usize,
}

impl Accumulation {
    fn zeros(lines: usize, cells: usize) -> Self {
        Accumulation { values: vec![0.0; lines * (cells + 1)], cells }
    }

    fn lines(&self) -> usize {
        self.values.len() / (self.cells + 1)
    }

    /// The cells of line `line`.
    #[inline(always)]
    pub fn line(&self, line: usize) -> &[f64] {
        &self.values[line * (self.cells + 1)..(line + 1) * (self.cells + 1)]
    }

    #[inline(always)]
    fn add(&mut self, line: usize, cell: usize, value: f64) {
        self.values[line * (self.cells + 1) + cell] += value;
    }
}

/// `truncated(min(max(x.floor(), lo), hi))` (the crate's `min` and `max`, which keep a NaN x) for small
/// integers `lo <= hi`, without `floor`, a libm call on baseline x86-64: below `lo` or at or beyond
/// `hi` the bound (the floor of x is below the integer `lo` exactly when x is), in between a cast.
#[inline(always)]
fn clamped_floor(x: f64, lo: i64, hi: i64) -> i64 {
    if x.is_nan() {
        i64::MIN // floor, max and min keep the NaN, and its integer is the smallest
    } else if x < lo as f64 {
        lo
    } else if x >= hi as f64 {
        hi
    } else {
        let whole = x as i64;
        if whole as f64 > x { whole - 1 } else { whole }
    }
}

/// `truncated(min(max(x.ceil(), lo), hi))` for small integers `lo <= hi`, without `ceil` (as
/// `clamped_floor`).
#[inline(always)]
fn clamped_ceiling(x: f64, lo: i64, hi: i64) -> i64 {
    if x.is_nan() {
        i64::MIN
    } else if x <= lo as f64 {
        lo
    } else if x > hi as f64 {
        hi
    } else {
        let whole = x as i64;
        if (whole as f64) < x { whole + 1 } else { whole }
    }
}

/// Add a piece of edge inside line band `row`, from x0 to x1 carrying `dy`, to the line's accumulation.
///
/// A cell receives the share of `dy` crossing it times the part of the cell right of the piece; the next
/// cell the rest, so that a running sum along the line gives each cell's coverage. The part left of the
/// window covers the whole line (added at cell 0); the part right of it, nothing.
fn add_row_piece(acc: &mut Accumulation, row: usize, x0: f64, x1: f64, dy: f64) {
    let width = acc.cells as i64;
    let (left, right) = (min(x0, x1), max(x0, x1));
    let span = right - left;
    if span == 0.0 {
        let cell = clamped_floor(left, -1, width);
        if cell < 0 {
            acc.add(row, 0, dy);
        } else if cell < width {
            let inside = dy * ((cell as f64 + 1.0) - left);
            acc.add(row, cell as usize, inside);
            acc.add(row, cell as usize + 1, dy - inside);
        }
        return;
    }
    if left < 0.0 {
        acc.add(row, 0, dy * ((min(right, 0.0) - left) / span));
    }
    let (first, stop) = (clamped_floor(left, 0, width), clamped_ceiling(right, 0, width));
    for cell in first..stop {
        let (low, high) = (max(left, cell as f64), min(right, cell as f64 + 1.0));
        if high <= low {
            continue;
        }
        let part = dy * ((high - low) / span);
        let inside = part * ((cell as f64 + 1.0) - 0.5 * (low + high));
        acc.add(row, cell as usize, inside);
        acc.add(row, cell as usize + 1, part - inside);
    }
}

/// Add one directed edge (window coordinates) to the accumulation, line band by line band.
fn add_edge(acc: &mut Accumulation, ax: f64, ay: f64, bx: f64, by: f64, weight: f64) {
    if ay == by {
        return;
    }
    let height = acc.lines() as i64;
    let (low, high) = (min(ay, by), max(ay, by));
    let direction = if by > ay { weight } else { -weight };
    let slope = (bx - ax) / (by - ay);
    let (first, stop) = (clamped_floor(low, 0, height), clamped_ceiling(high, 0, height));
    for row in first..stop {
        let (y0, y1) = (max(low, row as f64), min(high, row as f64 + 1.0));
        if y1 <= y0 {
            continue;
        }
        add_row_piece(acc, row as usize, ax + (y0 - ay) * slope, ax + (y1 - ay) * slope, direction * (y1 - y0));
    }
}

/// The coverage of the polygon whose edges are `first_edge..stop_edge` of `edges`, on a grid at
/// `origin`, accumulated on `window`: `(height, width + 1)` along rows from the left, or
/// `(width, height + 1)` `along_columns` from the top.
///
/// Along columns the plane is seen with x and y swapped, a mirror image: a ring's weight changes sign
/// (along rows the weights are -1 for rings adding area counter-clockwise).
pub fn coverage(
    edges: &Edges<'_>,
    first_edge: usize,
    stop_edge: usize,
    origin: [f64; 2],
    window: Window,
    along_columns: bool,
) -> Accumulation {
    let [row0, col0, height, width] = window;
    let (lines, cells) = if along_columns { (width, height) } else { (height, width) };
    let mut acc = Accumulation::zeros(lines.max(0) as usize, cells.max(0) as usize);
    for e in first_edge..stop_edge {
        // The origin first, then the integer window offset: the offset adds no rounding of its own.
        let (ax, ay) = ((edges.x0[e] - origin[0]) - col0 as f64, (edges.y0[e] - origin[1]) - row0 as f64);
        let (bx, by) = ((edges.x1[e] - origin[0]) - col0 as f64, (edges.y1[e] - origin[1]) - row0 as f64);
        if along_columns {
            add_edge(&mut acc, ay, ax, by, bx, edges.sign[e]);
        } else {
            add_edge(&mut acc, ax, ay, bx, by, -edges.sign[e]);
        }
    }
    acc
}

/// Area of mask m of `windows` inside a polygon (edges `first_edge..stop_edge`) on `window` of a grid
/// at `origin`: the coverage summed over the mask's true pixels, row by row.
#[allow(clippy::too_many_arguments)]
pub fn polygon_window_area(
    edges: &Edges<'_>,
    first_edge: usize,
    stop_edge: usize,
    origin: [f64; 2],
    window: Window,
    windows: &Windows<'_>,
    column_major: bool,
    m: usize,
) -> f64 {
    let [row0, col0, height, width] = window;
    if height <= 0 || width <= 0 {
        return 0.0;
    }
    let acc = coverage(edges, first_edge, stop_edge, origin, window, false);
    let at = windows.layout(m);
    let mut area = 0.0;
    for row in 0..height {
        let cells = acc.line(row as usize);
        let mut covered = 0.0;
        for col in 0..width {
            covered += cells[col as usize];
            let (line, bit) = if column_major { (col0 + col, row0 + row) } else { (row0 + row, col0 + col) };
            let word = at.offset + (line - at.line0) * at.stride + bit.div_euclid(WORD_BITS) - at.word0;
            if (windows.words[word as usize] >> bit.rem_euclid(WORD_BITS)) & 1 == 1 {
                area += covered;
            }
        }
    }
    area
}

/// The coverage of the polygon whose edges are `first_edge..stop_edge` of `edges`, on a grid at `origin`,
/// over `window`, into `out` (its pixels row by row): each pixel's running sum along its row, as
/// `polygon_window_area` sums it.
pub fn window_coverage(
    edges: &Edges<'_>,
    first_edge: usize,
    stop_edge: usize,
    origin: [f64; 2],
    window: Window,
    out: &mut [f64],
) {
    let [_, _, height, width] = window;
    if height <= 0 || width <= 0 {
        return;
    }
    let acc = coverage(edges, first_edge, stop_edge, origin, window, false);
    for (row, pixels) in out.chunks_exact_mut(width as usize).enumerate() {
        let mut covered = 0.0;
        for (pixel, &cell) in pixels.iter_mut().zip(acc.line(row)) {
            covered += cell;
            *pixel = covered;
        }
    }
}

/// A mask's runs `first_run..last_run` (column-major positions of its own `mask_height`).
#[derive(Clone, Copy)]
pub struct MaskRuns<'a> {
    pub starts: &'a [i64],
    pub stops: &'a [i64],
    pub first_run: usize,
    pub last_run: usize,
    pub mask_height: i64,
}

/// The coverage `acc` (`coverage` along columns, on `window`) summed over the pixels of a mask's runs
/// within the window.
///
/// Along a run's piece of a column the coverage changes only at the cells an edge touched: each
/// stretch between two such cells adds its coverage times its length.
pub fn covered_run_pixels(acc: &Accumulation, window: Window, runs: MaskRuns<'_>) -> f64 {
    let [row0, col0, height, width] = window;
    if height <= 0 || width <= 0 {
        return 0.0;
    }
    let (starts, stops, mask_height) = (runs.starts, runs.stops, runs.mask_height);
    // The runs' positions (column * mask_height + row) that can fall in the window.
    let (low, high) = (col0 * mask_height + row0, (col0 + width - 1) * mask_height + row0 + height);
    let mut r = insertion_point(stops, runs.first_run, runs.last_run, low, true);
    let mut area = 0.0;
    // The column walked, its next cell, the running sum before that cell.
    let (mut column, mut cell, mut coverage) = (-1i64, 0i64, 0.0);
    while r < runs.last_run && starts[r] < high {
        let (mut position, end) = (starts[r].max(low), stops[r].min(high));
        while position < end {
            // One piece per column the run crosses.
            let image_column = position.div_euclid(mask_height);
            let row = position - image_column * mask_height;
            let piece_end = end.min((image_column + 1) * mask_height);
            let c = image_column - col0;
            let (first, stop) = ((row - row0).max(0), (row + (piece_end - position) - row0).min(height));
            position = piece_end;
            if c < 0 || c >= width || first >= stop {
                continue;
            }
            if c != column {
                (column, cell, coverage) = (c, 0, 0.0);
            }
            let cells = acc.line(c as usize);
            while cell < first {
                // The cells above the piece.
                coverage += cells[cell as usize];
                cell += 1;
            }
            while cell < stop {
                // The coverage of this pixel and of the untouched ones below it.
                coverage += cells[cell as usize];
                let mut stretch_end = cell + 1;
                while stretch_end < stop && cells[stretch_end as usize] == 0.0 {
                    stretch_end += 1;
                }
                area += coverage * (stretch_end - cell) as f64;
                cell = stretch_end;
            }
        }
        r += 1;
    }
    area
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::truncated;

    #[test]
    fn clamped_floors_and_ceilings_are_the_float_formulas() {
        // Against the formulas they replace, on both sides of every integer near the bounds, signed
        // zeros, infinities and NaN (whose integer is the smallest, as the formula's cast gives).
        let mut values = vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1e300, -1e300];
        for k in -4..12 {
            let k = k as f64;
            values.extend([k, k.next_up(), k.next_down(), k + 0.5, k - 1e-9]);
        }
        for x in values {
            for (lo, hi) in [(0, 7), (-1, 7), (0, 0), (-1, 1)] {
                let floor = truncated(min(max(x.floor(), lo as f64), hi as f64));
                let ceiling = truncated(min(max(x.ceil(), lo as f64), hi as f64));
                assert_eq!(clamped_floor(x, lo, hi), floor, "floor of {x} in {lo}..{hi}");
                assert_eq!(clamped_ceiling(x, lo, hi), ceiling, "ceiling of {x} in {lo}..{hi}");
            }
        }
    }

    /// The rectangle `[x0, x1) × [y0, y1)` counter-clockwise, as a store's edges: an exterior of sign +1,
    /// which along rows adds with weight -1 (the accumulation gives minus the area of a counter-clockwise ring).
    fn rectangle(x0: f64, y0: f64, x1: f64, y1: f64) -> [Vec<f64>; 5] {
        let (xs, ys) = ([x0, x1, x1, x0, x0], [y0, y0, y1, y1, y0]);
        [xs[..4].to_vec(), ys[..4].to_vec(), xs[1..].to_vec(), ys[1..].to_vec(), vec![1.0; 4]]
    }

    fn edges(parts: &[Vec<f64>; 5]) -> Edges<'_> {
        Edges { x0: &parts[0], y0: &parts[1], x1: &parts[2], y1: &parts[3], sign: &parts[4] }
    }

    fn running(acc: &Accumulation, line: usize, cells: usize) -> Vec<f64> {
        acc.line(line)[..cells]
            .iter()
            .scan(0.0, |sum, &v| {
                *sum += v;
                Some(*sum)
            })
            .collect()
    }

    #[test]
    fn a_square_on_half_pixels_covers_quarters_halves_and_wholes() {
        // [0.5, 2.5)² on a 3 x 3 window: corner pixels a quarter, edge pixels a half, the centre whole.
        let parts = rectangle(0.5, 0.5, 2.5, 2.5);
        let acc = coverage(&edges(&parts), 0, 4, [0.0, 0.0], [0, 0, 3, 3], false);
        assert_eq!(running(&acc, 0, 3), [0.25, 0.5, 0.25]);
        assert_eq!(running(&acc, 1, 3), [0.5, 1.0, 0.5]);
        // Along columns the same numbers (the square is symmetric), from the mirrored plane.
        let acc = coverage(&edges(&parts), 0, 4, [0.0, 0.0], [0, 0, 3, 3], true);
        assert_eq!(running(&acc, 0, 3), [0.25, 0.5, 0.25]);
    }

    #[test]
    fn a_window_coverage_is_the_running_sums_of_its_rows() {
        // The square [0.5, 2.5)² again, on the window of rows 1..3 and columns 0..2 of the grid (a grid at
        // the origin): rows 1 and 2, columns 0 and 1.
        let parts = rectangle(0.5, 0.5, 2.5, 2.5);
        let mut out = [f64::NAN; 4];
        window_coverage(&edges(&parts), 0, 4, [0.0, 0.0], [1, 0, 2, 2], &mut out);
        assert_eq!(out, [0.5, 1.0, 0.25, 0.5]);
        // The same square on a grid whose origin is half a pixel off holds whole pixels.
        window_coverage(&edges(&parts), 0, 4, [0.5, 0.5], [0, 0, 2, 2], &mut out);
        assert_eq!(out, [1.0; 4]);
        // An empty window writes nothing.
        window_coverage(&edges(&parts), 0, 4, [0.0, 0.0], [0, 0, 0, 3], &mut []);
    }

    #[test]
    fn the_part_left_of_the_window_covers_the_whole_line() {
        // [-5, 1) x [0, 1) on a window starting at column 0: pixel 0 whole, pixel 1 nothing.
        let parts = rectangle(-5.0, 0.0, 1.0, 1.0);
        let acc = coverage(&edges(&parts), 0, 4, [0.0, 0.0], [0, 0, 1, 2], false);
        assert_eq!(running(&acc, 0, 2), [1.0, 0.0]);
    }

    #[test]
    fn runs_read_the_coverage_along_their_columns() {
        // A 2 x 2 grid (height 2) and [0, 1.5) x [0, 2): both pixels of column 0 whole, of column 1
        // half. Runs over all four pixels give 2 + 2 · 0.5.
        let parts = rectangle(0.0, 0.0, 1.5, 2.0);
        let window = [0, 0, 2, 2];
        let acc = coverage(&edges(&parts), 0, 4, [0.0, 0.0], window, true);
        let (starts, stops) = ([0i64], [4i64]);
        let runs = MaskRuns { starts: &starts, stops: &stops, first_run: 0, last_run: 1, mask_height: 2 };
        assert_eq!(covered_run_pixels(&acc, window, runs), 3.0);
        // The bottom row alone (positions 1 and 3): 1 + 0.5.
        let (starts, stops) = ([1i64, 3], [2i64, 4]);
        let runs = MaskRuns { starts: &starts, stops: &stops, first_run: 0, last_run: 2, mask_height: 2 };
        assert_eq!(covered_run_pixels(&acc, window, runs), 1.5);
    }

    #[test]
    fn an_empty_window_covers_nothing() {
        let parts = rectangle(0.0, 0.0, 1.0, 1.0);
        let acc = coverage(&edges(&parts), 0, 4, [0.0, 0.0], [0, 0, 0, 3], true);
        let runs = MaskRuns { starts: &[0], stops: &[1], first_run: 0, last_run: 1, mask_height: 1 };
        assert_eq!(covered_run_pixels(&acc, [0, 0, 0, 3], runs), 0.0);
    }
}
