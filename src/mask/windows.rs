//! Masks packed 64 pixels to a word over their bounding boxes (`regions.mask._Windows`), and what is
//! counted on them: the pixels two masks share on one grid (an AND and a bit count per word) or on
//! grids offset by any amount (four shifted counts), and the area of a mask inside a box.
//!
//! A line is a grid row (its bits are the columns), or a grid column when the windows are
//! column-major (its bits are the rows). Mask m keeps the lines of its box from `line0` on, each as
//! `stride` words starting at word `word0` of the line, from `words[offset]` on: the windows of two
//! masks in one orientation are aligned word for word over the overlap of their boxes. Bits outside a
//! mask's box are zero (the box bounds its pixels).

use std::cmp::{max, min};

use crate::numeric::{max as float_max, min as float_min};

/// Bits of a word.
pub const WORD_BITS: i64 = 64;

/// Mask m's row of the window table the Python side builds once per windows (`_window_table`): its
/// box's lines and bits `[line_lo, line_hi)`, `[bit_lo, bit_hi)`, then the first line and word kept,
/// the words per line and the first word.
#[derive(Clone, Copy)]
pub struct Layout {
    pub line_lo: i64,
    pub line_hi: i64,
    pub bit_lo: i64,
    pub bit_hi: i64,
    pub line0: i64,
    pub word0: i64,
    pub stride: i64,
    pub offset: i64,
}

/// The columns of the window table.
pub const TABLE_COLUMNS: usize = 8;

/// The packed windows of a batch: the table (`TABLE_COLUMNS` per mask) and the words.
#[derive(Clone, Copy)]
pub struct Windows<'a> {
    pub table: &'a [i64],
    pub words: &'a [u64],
}

impl Windows<'_> {
    /// Mask m's layout.
    #[inline(always)]
    pub fn layout(&self, m: usize) -> Layout {
        let row = &self.table[m * TABLE_COLUMNS..(m + 1) * TABLE_COLUMNS];
        Layout {
            line_lo: row[0],
            line_hi: row[1],
            bit_lo: row[2],
            bit_hi: row[3],
            line0: row[4],
            word0: row[5],
            stride: row[6],
            offset: row[7],
        }
    }

    /// The number of masks.
    pub fn len(&self) -> usize {
        self.table.len() / TABLE_COLUMNS
    }

    /// Where word `word` (of the whole line) of line `line` of a mask laid out as `at` is in `words`.
    #[inline(always)]
    fn position(at: &Layout, line: i64, word: i64) -> i64 {
        at.offset + (line - at.line0) * at.stride + word - at.word0
    }

    /// The words `word..word + count` of line `line` of a mask (all inside its window).
    #[inline(always)]
    fn line_words(&self, at: &Layout, line: i64, word: i64, count: i64) -> &[u64] {
        let first = Self::position(at, line, word) as usize;
        &self.words[first..first + count as usize]
    }

    /// Whether bit `bit` of line `line` of a mask laid out as `at` is set (the pixel inside its box).
    #[inline(always)]
    fn bit(&self, at: &Layout, line: i64, bit: i64) -> bool {
        (self.words[Self::position(at, line, bit.div_euclid(WORD_BITS)) as usize] >> bit.rem_euclid(WORD_BITS)) & 1 == 1
    }

    /// Bits `start..start + 64` of line `line` (inside the mask's box lines) as one word, zeros outside
    /// its window.
    #[inline(always)]
    fn bits_from(&self, at: &Layout, line: i64, start: i64) -> u64 {
        let (word, shift) = (start.div_euclid(WORD_BITS), start.rem_euclid(WORD_BITS));
        let low = self.word_or_zero(at, line, word) >> shift;
        if shift == 0 { low } else { low | (self.word_or_zero(at, line, word + 1) << (WORD_BITS - shift)) }
    }

    #[inline(always)]
    fn word_or_zero(&self, at: &Layout, line: i64, word: i64) -> u64 {
        if word < at.word0 || word >= at.word0 + at.stride {
            return 0;
        }
        self.words[Self::position(at, line, word) as usize]
    }
}

/// Pixels true in both mask i of `a` and mask j of `b`, on one grid and in one orientation.
///
/// Only the overlap of the two boxes is compared, line by line, over the words that cover its bits:
/// both windows hold it, aligned to the same words of each line, so a pair is an AND and a bit
/// count per word.
pub fn shared_window_pixels(a: &Windows<'_>, i: usize, b: &Windows<'_>, j: usize) -> i64 {
    let (at_a, at_b) = (a.layout(i), b.layout(j));
    let (line0, line1) = (max(at_a.line_lo, at_b.line_lo), min(at_a.line_hi, at_b.line_hi));
    let (bit0, bit1) = (max(at_a.bit_lo, at_b.bit_lo), min(at_a.bit_hi, at_b.bit_hi));
    if line1 <= line0 || bit1 <= bit0 {
        return 0;
    }
    let (word0, word1) = (bit0.div_euclid(WORD_BITS), -(-bit1).div_euclid(WORD_BITS));
    let mut shared = 0;
    for line in line0..line1 {
        let words_a = a.line_words(&at_a, line, word0, word1 - word0);
        let words_b = b.line_words(&at_b, line, word0, word1 - word0);
        shared += words_a.iter().zip(words_b).map(|(x, y)| (x & y).count_ones() as i64).sum::<i64>();
    }
    shared
}

/// The number of `(line, bit)` with mask j of `b` true there and mask i of `a` true at
/// `(line + line_shift, bit + bit_shift)`: the pixels of `b` over those of `a` moved by whole cells.
pub fn shifted_count(a: &Windows<'_>, i: usize, b: &Windows<'_>, j: usize, line_shift: i64, bit_shift: i64) -> i64 {
    let (at_a, at_b) = (a.layout(i), b.layout(j));
    // The box of `a` in the coordinates of `b`, met with the box of `b`.
    let (line0, line1) = (max(at_b.line_lo, at_a.line_lo - line_shift), min(at_b.line_hi, at_a.line_hi - line_shift));
    let (bit0, bit1) = (max(at_b.bit_lo, at_a.bit_lo - bit_shift), min(at_b.bit_hi, at_a.bit_hi - bit_shift));
    if line1 <= line0 || bit1 <= bit0 {
        return 0;
    }
    let (word0, word1) = (bit0.div_euclid(WORD_BITS), -(-bit1).div_euclid(WORD_BITS));
    let mut count = 0;
    for line in line0..line1 {
        let words_b = b.line_words(&at_b, line, word0, word1 - word0);
        for (w, &word_b) in (word0..word1).zip(words_b) {
            // Bits of `b`'s window outside its box are zero, and so are `a`'s read outside its window:
            // no bit beyond the overlap is counted.
            count += (word_b & a.bits_from(&at_a, line + line_shift, w * WORD_BITS + bit_shift)).count_ones() as i64;
        }
    }
    count
}

/// The largest whole shift that can still overlap a grid: beyond it a shifted count is 0 (and the
/// integer arithmetic of the shift stays far from overflowing).
const FAR: f64 = (1u64 << 52) as f64;

/// Shared area of mask i of `a` at `origin_a` and mask j of `b` at `origin_b`, whose grids are offset by
/// any amount, `a` being the mask with the smaller origin (x, then y).
///
/// With `origin_b - origin_a = k + f` (integer part k, fraction f per axis), a pixel of B overlaps the
/// pixels of A at offsets k and k + 1 with widths `1 - f` and `f`: the shared area is the sum of four
/// shifted pixel counts, weighted by the products of those widths. `column_major` says which axis the
/// windows' lines follow (x for column-major windows).
pub fn overlap_on_offset_grids(
    a: &Windows<'_>,
    i: usize,
    origin_a: [f64; 2],
    b: &Windows<'_>,
    j: usize,
    origin_b: [f64; 2],
    column_major: bool,
) -> f64 {
    let offset = [origin_b[0] - origin_a[0], origin_b[1] - origin_a[1]];
    let whole = [offset[0].floor(), offset[1].floor()];
    let fraction = [offset[0] - whole[0], offset[1] - whole[1]];
    let mut total = 0.0;
    for (step_x, weight_x) in [(0, 1.0 - fraction[0]), (1, fraction[0])] {
        for (step_y, weight_y) in [(0, 1.0 - fraction[1]), (1, fraction[1])] {
            if weight_x * weight_y > 0.0 {
                let count = if whole[0].abs() < FAR && whole[1].abs() < FAR {
                    // Shift (rows, columns): b's pixel (r, c) meets a's (r + shift_r, c + shift_c).
                    let (shift_x, shift_y) = (whole[0] as i64 + step_x, whole[1] as i64 + step_y);
                    let (line_shift, bit_shift) = if column_major { (shift_x, shift_y) } else { (shift_y, shift_x) };
                    shifted_count(a, i, b, j, line_shift, bit_shift)
                } else {
                    0
                };
                total += weight_x * weight_y * count as f64;
            }
        }
    }
    total
}

/// Whether `(x_b, y_b) < (x_a, y_a)` as Python compares tuples: the first coordinates unless they are
/// equal, then the second.
#[inline(always)]
pub fn origin_before(b: [f64; 2], a: [f64; 2]) -> bool {
    if b[0] != a[0] { b[0] < a[0] } else { b[1] < a[1] }
}

/// The bounding box `(first row, last row + 1, first column, last column + 1)` of a mask from its rows
/// packed into words (`height` rows of `stride` words; bit b of word w is column 64w + b); zeros when
/// empty.
pub fn packed_row_box(lines: &[u64], height: usize, stride: usize) -> [i64; 4] {
    let (mut row0, mut row1, mut col0, mut col1) = (height as i64, 0i64, (stride as i64) * WORD_BITS, 0i64);
    for row in 0..height {
        let words = &lines[row * stride..(row + 1) * stride];
        // The first word with a pixel gives the row's first column, the last its last.
        if let Some(w) = words.iter().position(|&word| word != 0) {
            row0 = min(row0, row as i64);
            row1 = row as i64 + 1;
            col0 = min(col0, w as i64 * WORD_BITS + words[w].trailing_zeros() as i64);
            let last = words.iter().rposition(|&word| word != 0).expect("a word with a pixel was found");
            col1 = max(col1, last as i64 * WORD_BITS + (WORD_BITS - 1 - words[last].leading_zeros() as i64) + 1);
        }
    }
    if row1 == 0 { [0; 4] } else { [row0, row1, col0, col1] }
}

/// Copy a mask's window (`lines` of its box from `line0`, `stride` words from `word0`) out of its packed
/// rows (`stride_of_rows` words a row) into `words`, the mask's own slice of the windows.
pub fn copy_row_window(lines: &[u64], stride_of_rows: usize, line0: i64, word0: i64, stride: i64, words: &mut [u64]) {
    if stride == 0 {
        return;
    }
    let (stride, word0) = (stride as usize, word0 as usize);
    for (line, out) in words.chunks_exact_mut(stride).enumerate() {
        let row = (line0 as usize + line) * stride_of_rows;
        out.copy_from_slice(&lines[row + word0..row + word0 + stride]);
    }
}

/// Length of `[origin + cell, origin + cell + 1) ∩ [low, high)`, 0 when they do not meet.
#[inline(always)]
fn cell_share(cell: i64, origin: f64, low: f64, high: f64) -> f64 {
    let corner = origin + cell as f64;
    float_max(float_min(corner + 1.0, high) - float_max(corner, low), 0.0)
}

/// The cells `[start, end)` of `[first, stop)` that `[low, high)` meets, on a grid starting at `origin`.
#[inline(always)]
pub fn touched_cells(origin: f64, low: f64, high: f64, first: i64, stop: i64) -> (i64, i64) {
    // Clamped in floats first: a box's bounds may lie far beyond any integer a cell index can hold.
    let start = float_min(float_max(first as f64, (low - origin).floor()), stop as f64) as i64;
    let end = float_max(float_min(stop as f64, (high - origin).ceil()), start as f64) as i64;
    (start, end)
}

/// Area of mask m of `windows` at `origin` inside `box_xyxy`: each true pixel the box touches, weighted
/// by the box's share of its row times its share of its column (`column_major`: lines are columns).
pub fn window_box_area(windows: &Windows<'_>, m: usize, column_major: bool, origin: [f64; 2], box_xyxy: [f64; 4]) -> f64 {
    let at = windows.layout(m);
    // Lines are rows (bits are columns), or columns when the window is column-major.
    let (line_axis, bit_axis) = if column_major { (0, 1) } else { (1, 0) };
    let (line_origin, line_low, line_high) = (origin[line_axis], box_xyxy[line_axis], box_xyxy[line_axis + 2]);
    let (bit_origin, bit_low, bit_high) = (origin[bit_axis], box_xyxy[bit_axis], box_xyxy[bit_axis + 2]);
    let (line0, line1) = touched_cells(line_origin, line_low, line_high, at.line_lo, at.line_hi);
    let (bit0, bit1) = touched_cells(bit_origin, bit_low, bit_high, at.bit_lo, at.bit_hi);
    let mut area = 0.0;
    for line in line0..line1 {
        let line_weight = cell_share(line, line_origin, line_low, line_high);
        let mut covered = 0.0;
        for bit in bit0..bit1 {
            if windows.bit(&at, line, bit) {
                covered += cell_share(bit, bit_origin, bit_low, bit_high);
            }
        }
        area += line_weight * covered;
    }
    area
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Windows of whole rows (one word a row) of a `height`-row grid for masks given as row bit patterns.
    fn row_windows(masks: &[&[u64]]) -> (Vec<i64>, Vec<u64>) {
        let (mut table, mut words) = (Vec::new(), Vec::new());
        for rows in masks {
            let width = rows.iter().map(|&w| 64 - w.leading_zeros() as i64).max().unwrap_or(0);
            let offset = words.len() as i64;
            table.extend([0, rows.len() as i64, 0, width.max(1), 0, 0, 1, offset]);
            words.extend_from_slice(rows);
        }
        (table, words)
    }

    #[test]
    fn shared_pixels_are_the_bits_of_the_and() {
        let (table, words) = row_windows(&[&[0b0110, 0b1111], &[0b0011, 0b0101]]);
        let windows = Windows { table: &table, words: &words };
        // Row 0: 0110 & 0011 = 0010 (1 pixel); row 1: 1111 & 0101 = 0101 (2).
        assert_eq!(shared_window_pixels(&windows, 0, &windows, 1), 3);
        assert_eq!(shared_window_pixels(&windows, 0, &windows, 0), 6);
    }

    #[test]
    fn a_zero_shift_counts_the_shared_pixels_and_a_shift_moves_a_over_b() {
        let (table, words) = row_windows(&[&[0b0110, 0b1111], &[0b0011, 0b0101]]);
        let windows = Windows { table: &table, words: &words };
        assert_eq!(shifted_count(&windows, 0, &windows, 1, 0, 0), 3);
        // b's (r, c) against a's (r + 1, c + 1): b row 0 (columns 0, 1) against a row 1 (columns 1, 2): 2.
        assert_eq!(shifted_count(&windows, 0, &windows, 1, 1, 1), 2);
        // Beyond the boxes nothing is shared.
        assert_eq!(shifted_count(&windows, 0, &windows, 1, 2, 0), 0);
        assert_eq!(shifted_count(&windows, 0, &windows, 1, 0, -70), 0);
    }

    #[test]
    fn a_shift_across_a_word_boundary_reads_the_next_word() {
        // Mask a: one row with columns 60..68 (bits 60..63 of word 0, 0..3 of word 1); b: columns 0..8.
        let table = vec![0, 1, 60, 68, 0, 0, 2, 0, 0, 1, 0, 8, 0, 0, 1, 2];
        let words = vec![0xF << 60, 0xF, 0xFF];
        let windows = Windows { table: &table, words: &words };
        assert_eq!(shifted_count(&windows, 0, &windows, 1, 0, 60), 8);
        assert_eq!(shifted_count(&windows, 0, &windows, 1, 0, 62), 6);
    }

    #[test]
    fn a_unit_square_half_a_pixel_off_shares_a_quarter_per_neighbour() {
        // One true pixel each; b's grid moved by (0.5, 0.5): its pixel covers a quarter of a's.
        let (table, words) = row_windows(&[&[1], &[1]]);
        let windows = Windows { table: &table, words: &words };
        let area = overlap_on_offset_grids(&windows, 0, [0.0, 0.0], &windows, 1, [0.5, 0.5], false);
        assert_eq!(area, 0.25);
        // A whole pixel apart: nothing; far beyond any grid: nothing either.
        assert_eq!(overlap_on_offset_grids(&windows, 0, [0.0, 0.0], &windows, 1, [1.0, 0.0], false), 0.0);
        assert_eq!(overlap_on_offset_grids(&windows, 0, [0.0, 0.0], &windows, 1, [1e300, 0.5], false), 0.0);
    }

    #[test]
    fn origins_compare_as_python_tuples() {
        assert!(origin_before([0.0, 5.0], [1.0, 0.0]));
        assert!(origin_before([1.0, 0.0], [1.0, 2.0]));
        assert!(!origin_before([1.0, 2.0], [1.0, 2.0]));
        assert!(!origin_before([-0.0, 2.0], [0.0, 2.0])); // equal coordinates
    }

    #[test]
    fn boxes_of_packed_rows() {
        // Rows 1 and 2 of a 3-row mask two words wide: columns 1..3, then 70.
        let lines = [0, 0, 0b0110, 0, 0, 1 << 6];
        assert_eq!(packed_row_box(&lines, 3, 2), [1, 3, 1, 71]);
        assert_eq!(packed_row_box(&[0; 6], 3, 2), [0; 4]);
    }

    #[test]
    fn a_window_is_copied_out_of_its_rows() {
        let lines: Vec<u64> = (0..6).collect(); // 3 rows of 2 words
        let mut words = [0u64; 2];
        copy_row_window(&lines, 2, 1, 1, 1, &mut words);
        assert_eq!(words, [3, 5]); // rows 1 and 2, their second word
    }

    #[test]
    fn a_box_weights_each_pixel_by_its_shares() {
        // A 2 x 2 full mask at the origin; the box [0.5, 2) x [0, 0.5) covers half of row 0's height
        // and 1.5 pixels of width: 0.5 · (0.5 + 1).
        let (table, words) = row_windows(&[&[0b11, 0b11]]);
        let windows = Windows { table: &table, words: &words };
        assert_eq!(window_box_area(&windows, 0, false, [0.0, 0.0], [0.5, 0.0, 2.0, 0.5]), 0.75);
        // A box far beyond the grid meets no cell (its bounds are clamped before any integer is made).
        assert_eq!(window_box_area(&windows, 0, false, [0.0, 0.0], [1e300, 0.0, f64::INFINITY, 1.0]), 0.0);
    }
}
