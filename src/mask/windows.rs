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
    let (count, lines) = ((word1 - word0) as usize, (line1 - line0) as usize);
    // Each window's lines follow one another `stride` words apart: the overlap's words of line
    // `line0 + k` start `k` strides after those of `line0`.
    let (first_a, first_b) =
        (Windows::position(&at_a, line0, word0) as usize, Windows::position(&at_b, line0, word0) as usize);
    let (stride_a, stride_b) = (at_a.stride as usize, at_b.stride as usize);
    let (words_a, words_b) = (
        &a.words[first_a..first_a + (lines - 1) * stride_a + count],
        &b.words[first_b..first_b + (lines - 1) * stride_b + count],
    );
    let mut shared = BitCounter::new();
    for k in 0..lines {
        let (line_a, line_b) =
            (&words_a[k * stride_a..k * stride_a + count], &words_b[k * stride_b..k * stride_b + count]);
        for (x, y) in line_a.iter().zip(line_b) {
            shared.add(x & y);
        }
    }
    shared.total()
}

/// Words of a `BitCounter`'s buffer.
const BUFFERED: usize = 32;

/// The set bits of a stream of words, counted a buffer at a time.
///
/// The crate is built for baseline x86-64, which has no bit-count instruction: `count_ones` of one word
/// is a dozen scalar operations. Counted over a full buffer of fixed length, the count vectorizes
/// (SSE2: two words at a time, the bytes' counts summed by `psadbw`), which costs about half as much
/// per word. A window pair's words come a few to a line, too few for that, so they are gathered here.
struct BitCounter {
    buffer: [u64; BUFFERED],
    len: usize,
    counted: u64,
}

impl BitCounter {
    #[inline(always)]
    fn new() -> Self {
        BitCounter { buffer: [0; BUFFERED], len: 0, counted: 0 }
    }

    #[inline(always)]
    fn add(&mut self, word: u64) {
        self.buffer[self.len] = word;
        self.len += 1;
        if self.len == BUFFERED {
            self.counted += count_buffer(&self.buffer);
            self.len = 0;
        }
    }

    #[inline(always)]
    fn total(&self) -> i64 {
        let rest: u64 = self.buffer[..self.len].iter().map(|w| w.count_ones() as u64).sum();
        (self.counted + rest) as i64
    }
}

#[inline(always)]
fn count_buffer(buffer: &[u64; BUFFERED]) -> u64 {
    buffer.iter().map(|w| w.count_ones() as u64).sum()
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
    let mut count = BitCounter::new();
    for line in line0..line1 {
        let words_b = b.line_words(&at_b, line, word0, word1 - word0);
        for (w, &word_b) in (word0..word1).zip(words_b) {
            // Bits of `b`'s window outside its box are zero, and so are `a`'s read outside its window:
            // no bit beyond the overlap is counted.
            count.add(word_b & a.bits_from(&at_a, line + line_shift, w * WORD_BITS + bit_shift));
        }
    }
    count.total()
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

/// The eight bytes at `at` of `bytes` as one little-endian word.
#[inline(always)]
fn eight(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"))
}

/// The first and last nonzero byte of `row`, if any.
#[inline(always)]
fn row_span(row: &[u8]) -> Option<(usize, usize)> {
    let words = row.len() / 8;
    // Most rows of a mask are empty: an OR over the row's words (which vectorizes) decides them.
    let any = (0..words).fold(0u64, |any, w| any | eight(row, 8 * w))
        | row[8 * words..].iter().fold(0u64, |any, &b| any | b as u64);
    if any == 0 {
        return None;
    }
    let first = match (0..words).find(|&w| eight(row, 8 * w) != 0) {
        Some(w) => 8 * w + (eight(row, 8 * w).trailing_zeros() / 8) as usize,
        None => 8 * words + row[8 * words..].iter().position(|&b| b != 0).expect("a nonzero byte"),
    };
    let last = match row[8 * words..].iter().rposition(|&b| b != 0) {
        Some(k) => 8 * words + k,
        None => {
            let w = (0..words).rev().find(|&w| eight(row, 8 * w) != 0).expect("a nonzero word");
            8 * w + 7 - (eight(row, 8 * w).leading_zeros() / 8) as usize
        }
    };
    Some((first, last))
}

/// The bounding box `(first row, last row + 1, first column, last column + 1)` of a mask given as
/// dense pixels, one byte each (nonzero: true), `height` rows of `width`; zeros when empty.
pub fn dense_box(pixels: &[u8], height: usize, width: usize) -> [i64; 4] {
    let (mut row0, mut row1, mut col0, mut col1) = (height, 0, width, 0);
    for row in 0..height {
        if let Some((first, last)) = row_span(&pixels[row * width..(row + 1) * width]) {
            (row0, row1) = (row0.min(row), row + 1);
            (col0, col1) = (col0.min(first), col1.max(last + 1));
        }
    }
    if row1 == 0 { [0; 4] } else { [row0 as i64, row1 as i64, col0 as i64, col1 as i64] }
}

/// Pixels `first..first + count` (at most 64) of a row of bytes packed into a word: bit b is pixel
/// `first + b`, set when its byte is nonzero.
#[inline(always)]
fn packed_bits(row: &[u8], first: usize, count: usize) -> u64 {
    let mut word = 0;
    let groups = count / 8;
    for group in 0..groups {
        let mut bytes = eight(row, first + 8 * group);
        // Each byte to 0 or 1 (its bits folded into its lowest), then the eight gathered into the top byte
        // by one product: byte j, at bit 8j, lands at bit 56 + j.
        bytes |= bytes >> 4;
        bytes |= bytes >> 2;
        bytes |= bytes >> 1;
        bytes &= 0x0101_0101_0101_0101;
        word |= (bytes.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * group);
    }
    for (b, &byte) in row[first + 8 * groups..first + count].iter().enumerate() {
        word |= ((byte != 0) as u64) << (8 * groups + b);
    }
    word
}

/// Pack a mask's window (the rows of its box from `line0`, `stride` words from `word0`) from its dense
/// pixels (one byte each, `width` to a row) into `words`, the mask's own slice of the windows. A word's
/// pixels beyond the row are false.
pub fn pack_dense_window(pixels: &[u8], width: usize, line0: i64, word0: i64, stride: i64, words: &mut [u64]) {
    if stride == 0 {
        return;
    }
    let (stride, word0) = (stride as usize, word0 as usize);
    for (line, out) in words.chunks_exact_mut(stride).enumerate() {
        let row = &pixels[(line0 as usize + line) * width..(line0 as usize + line + 1) * width];
        for (w, word) in out.iter_mut().enumerate() {
            let first = 64 * (word0 + w);
            *word = packed_bits(row, first, 64.min(width.saturating_sub(first)));
        }
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
pub fn window_box_area(
    windows: &Windows<'_>,
    m: usize,
    column_major: bool,
    origin: [f64; 2],
    box_xyxy: [f64; 4],
) -> f64 {
    let at = windows.layout(m);
    // Lines are rows (bits are columns), or columns when the window is column-major.
    let (line_axis, bit_axis) = if column_major { (0, 1) } else { (1, 0) };
    let (line_origin, line_low, line_high) = (origin[line_axis], box_xyxy[line_axis], box_xyxy[line_axis + 2]);
    let (bit_origin, bit_low, bit_high) = (origin[bit_axis], box_xyxy[bit_axis], box_xyxy[bit_axis + 2]);
    let (line0, line1) = touched_cells(line_origin, line_low, line_high, at.line_lo, at.line_hi);
    let (bit0, bit1) = touched_cells(bit_origin, bit_low, bit_high, at.bit_lo, at.bit_hi);
    let mut area = 0.0;
    if bit1 <= bit0 {
        return area;
    }
    // The words of a line that hold bits `bit0..bit1` (inside the box, so inside the window).
    let (word0, word1) = (bit0.div_euclid(WORD_BITS), (bit1 - 1).div_euclid(WORD_BITS) + 1);
    for line in line0..line1 {
        let line_weight = cell_share(line, line_origin, line_low, line_high);
        let mut covered = 0.0;
        for (word, &bits) in (word0..word1).zip(windows.line_words(&at, line, word0, word1 - word0)) {
            // Only the true pixels add to the sum, in increasing order as a walk over every bit would add
            // them: the word's set bits within `bit0..bit1`, lowest first.
            let mut set = bits & span_mask(bit0 - word * WORD_BITS, bit1 - word * WORD_BITS);
            while set != 0 {
                let bit = word * WORD_BITS + set.trailing_zeros() as i64;
                covered += cell_share(bit, bit_origin, bit_low, bit_high);
                set &= set - 1;
            }
        }
        area += line_weight * covered;
    }
    area
}

/// The bits `low..high` of a word (each clamped to `0..=64`).
#[inline(always)]
fn span_mask(low: i64, high: i64) -> u64 {
    let below = |k: i64| {
        if k >= WORD_BITS {
            u64::MAX
        } else if k <= 0 {
            0
        } else {
            (1u64 << k) - 1
        }
    };
    below(high) & !below(low)
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
    fn boxes_of_dense_pixels() {
        // Rows 1 and 2 of a 3 x 75 mask: columns 1..3, then 70 (beyond the first word of bytes).
        let mut pixels = vec![0u8; 3 * 75];
        pixels[75 + 1] = 1;
        pixels[75 + 2] = 1;
        pixels[2 * 75 + 70] = 1;
        assert_eq!(dense_box(&pixels, 3, 75), [1, 3, 1, 71]);
        assert_eq!(dense_box(&vec![0u8; 3 * 75], 3, 75), [0; 4]);
        // One pixel in the last byte of a row whose length is a multiple of 8.
        let mut pixels = vec![0u8; 16];
        pixels[15] = 1;
        assert_eq!(dense_box(&pixels, 1, 16), [0, 1, 15, 16]);
    }

    #[test]
    fn windows_are_packed_from_the_pixels_of_their_box() {
        // One row of 130 pixels, true at 3, 64..72 and 129 (a byte of 2 counts as true, as NumPy's bools do).
        let mut pixels = vec![0u8; 130];
        pixels[3] = 2;
        pixels[64..72].fill(1);
        pixels[129] = 1;
        let mut words = [0u64; 3];
        pack_dense_window(&pixels, 130, 0, 0, 3, &mut words);
        assert_eq!(words, [1 << 3, 0xFF, 1 << 1]);
        // Only the second word of the line.
        let mut words = [0u64; 1];
        pack_dense_window(&pixels, 130, 0, 1, 1, &mut words);
        assert_eq!(words, [0xFF]);
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

    #[test]
    fn a_box_reads_only_its_bits_of_words_across_a_word_boundary() {
        // One row of 130 pixels, true at 3, 63, 64 and 129; the box [63.5, 129.25) x [0, 1) meets
        // half of pixel 63, all of 64 and a quarter of 129 (pixel 3 lies outside): 1.75.
        let mut row = [0u64; 3];
        row[0] = (1 << 3) | (1 << 63);
        row[1] = 1;
        row[2] = 1 << 1;
        let (table, words) = (vec![0, 1, 3, 130, 0, 0, 3, 0], row.to_vec());
        let windows = Windows { table: &table, words: &words };
        assert_eq!(window_box_area(&windows, 0, false, [0.0, 0.0], [63.5, 0.0, 129.25, 1.0]), 1.75);
        // A box between the true pixels (64 < x < 129) covers none of them.
        assert_eq!(window_box_area(&windows, 0, false, [0.0, 0.0], [65.0, 0.0, 129.0, 1.0]), 0.0);
    }

    #[test]
    fn word_spans_clamp_to_the_word() {
        assert_eq!(span_mask(0, 64), u64::MAX);
        assert_eq!(span_mask(-5, 3), 0b111);
        assert_eq!(span_mask(62, 100), 0b11 << 62);
        assert_eq!(span_mask(4, 4), 0);
    }

    #[test]
    fn counted_words_are_the_bits_of_every_word_through_full_and_partial_buffers() {
        // 100 words (three full buffers and four left over) of k ones each: the sum of 0..100 mod 65.
        let mut counter = BitCounter::new();
        let mut expected = 0;
        for k in 0..100u32 {
            let ones = k % 65;
            counter.add(if ones == 64 { u64::MAX } else { (1u64 << ones) - 1 });
            expected += ones as i64;
        }
        assert_eq!(counter.total(), expected);
        assert_eq!(BitCounter::new().total(), 0);
    }
}
