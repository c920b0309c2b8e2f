//! Masks held as COCO runs: true runs `[start, stop)` of column-major positions (pixel `(r, c)` of an
//! `h × w` mask is `c·h + r`), mask m owning the runs `offsets[m]..offsets[m + 1]`, sorted and
//! disjoint. What is read off the runs alone, never decoding a pixel: the pixels two masks share, each
//! mask's bounding box, and its bits packed into its window (`windows`).

use std::cmp::{max, min};

use crate::search::insertion_point;

/// The run table of a batch of masks.
#[derive(Clone, Copy)]
pub struct Runs<'a> {
    pub starts: &'a [i64],
    pub stops: &'a [i64],
    pub offsets: &'a [i64],
}

impl Runs<'_> {
    /// The runs of mask m, as positions in `starts` and `stops`.
    #[inline(always)]
    pub fn of(&self, m: usize) -> (usize, usize) {
        (self.offsets[m] as usize, self.offsets[m + 1] as usize)
    }

    /// The number of masks.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
}

/// Positions covered by a run of mask `ma` of `a` and a run of mask `mb` of `b` (grids of one height).
///
/// The two masks' runs are walked together, as pycocotools' `rleIou` does, from the first run of each
/// that ends after the other mask's first run starts (binary searches): the work follows the runs.
pub fn shared_run_pixels(a: &Runs<'_>, ma: usize, b: &Runs<'_>, mb: usize) -> i64 {
    let ((first_a, last_a), (first_b, last_b)) = (a.of(ma), b.of(mb));
    if first_a >= last_a || first_b >= last_b {
        return 0;
    }
    // Skip the runs that end before the other mask's first run starts.
    let i = insertion_point(a.stops, first_a, last_a, b.starts[first_b], true);
    let j = insertion_point(b.stops, first_b, last_b, a.starts[first_a], true);
    // The runs left to walk, as slices of one length per mask: their reads need no bounds check.
    let (starts_a, stops_a) = (&a.starts[i..last_a], &a.stops[i..last_a]);
    let (starts_b, stops_b) = (&b.starts[j..last_b], &b.stops[j..last_b]);
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < starts_a.len() && j < starts_b.len() {
        let (low, high) = (max(starts_a[i], starts_b[j]), min(stops_a[i], stops_b[j]));
        shared += max(high - low, 0);
        // The run that ends first is done (a's on a tie); without a branch, which a walk cannot predict.
        let a_done = (stops_a[i] <= stops_b[j]) as usize;
        i += a_done;
        j += 1 - a_done;
    }
    shared
}

/// The bounding box `(first row, last row + 1, first column, last column + 1)` of mask m, whose runs
/// are read with its own `height` (at least 1); zeros when it has no run.
///
/// A run that crosses into the next column covers the bottom row of one and the top row of the other.
pub fn run_box(runs: &Runs<'_>, m: usize, height: i64) -> [i64; 4] {
    let (first, last) = runs.of(m);
    if first == last {
        return [0; 4];
    }
    let (mut top, mut bottom) = (height, 0);
    for r in first..last {
        let start_row = runs.starts[r].rem_euclid(height);
        let stop_row = start_row + (runs.stops[r] - runs.starts[r]);
        top = min(top, if stop_row > height { 0 } else { start_row });
        bottom = max(bottom, min(stop_row, height));
    }
    [top, bottom, runs.starts[first].div_euclid(height), (runs.stops[last - 1] - 1).div_euclid(height) + 1]
}

/// Where a mask's window sits in its words: its first line, the first word kept of each line and the
/// words kept per line (`windows::Layout` less the offset, since a mask packs into its own slice).
#[derive(Clone, Copy)]
pub struct Placement {
    pub line0: i64,
    pub word0: i64,
    pub stride: i64,
}

/// Set bits `first <= b < stop` of the bit string that starts at word `at` of `words` (bit b is bit
/// b % 64 of word b / 64).
#[inline(always)]
fn set_bits(words: &mut [u64], at: i64, mut first: i64, stop: i64) {
    while first < stop {
        let word = first.div_euclid(64);
        let end = min(stop, (word + 1) * 64);
        let (low, count) = (first - word * 64, end - first);
        let ones = if count == 64 { u64::MAX } else { (1u64 << count) - 1 };
        words[(at + word) as usize] |= ones << low;
        first = end;
    }
}

/// Set the bits of mask m's runs (of its own `height`) in its column window `words` (zeroed; a line is
/// a grid column, its bits the rows): a run cut at the ends of its columns sets a range of bits in one
/// line, whole words in its middle.
pub fn pack_columns(runs: &Runs<'_>, m: usize, height: i64, place: Placement, words: &mut [u64]) {
    let (first, last) = runs.of(m);
    for r in first..last {
        let (mut position, stop) = (runs.starts[r], runs.stops[r]);
        while position < stop {
            // One piece per column the run crosses.
            let column = position.div_euclid(height);
            let (row, end) = (position - column * height, min(stop, (column + 1) * height));
            let line_at = (column - place.line0) * place.stride - place.word0;
            set_bits(words, line_at, row, row + end - position);
            position = end;
        }
    }
}

/// Set the bits of mask m's runs in its row window `words` (zeroed; a line is a grid row, its bits the
/// columns): each run piece, rows `low..high` of one column, sets that column's bit in those lines.
pub fn pack_rows(runs: &Runs<'_>, m: usize, height: i64, place: Placement, words: &mut [u64]) {
    let (first, last) = runs.of(m);
    for r in first..last {
        let (mut position, stop) = (runs.starts[r], runs.stops[r]);
        while position < stop {
            let column = position.div_euclid(height);
            let (row, end) = (position - column * height, min(stop, (column + 1) * height));
            let (word, bit) = (column.div_euclid(64) - place.word0, column.rem_euclid(64));
            for line in row..row + end - position {
                words[((line - place.line0) * place.stride + word) as usize] |= 1u64 << bit;
            }
            position = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two 3-row masks: pixels 1..4 and 5..8 (positions), and pixels 2..6 and 9..12.
    fn two_masks() -> (Vec<i64>, Vec<i64>, Vec<i64>) {
        (vec![1, 5, 2, 9], vec![4, 8, 6, 12], vec![0, 2, 4])
    }

    #[test]
    fn shared_pixels_of_two_masks_and_of_a_mask_with_itself() {
        let (starts, stops, offsets) = two_masks();
        let runs = Runs { starts: &starts, stops: &stops, offsets: &offsets };
        // [1, 4) ∩ [2, 6) = 2 pixels, [5, 8) ∩ [2, 6) = 1; nothing meets [9, 12).
        assert_eq!(shared_run_pixels(&runs, 0, &runs, 1), 3);
        assert_eq!(shared_run_pixels(&runs, 1, &runs, 0), 3);
        assert_eq!(shared_run_pixels(&runs, 0, &runs, 0), 6);
    }

    #[test]
    fn an_empty_mask_shares_nothing_and_has_a_zero_box() {
        let (starts, stops, offsets) = (vec![0], vec![3], vec![0, 1, 1]);
        let runs = Runs { starts: &starts, stops: &stops, offsets: &offsets };
        assert_eq!(shared_run_pixels(&runs, 0, &runs, 1), 0);
        assert_eq!(run_box(&runs, 1, 3), [0; 4]);
    }

    #[test]
    fn a_run_crossing_columns_spans_every_row_of_its_box() {
        // Height 3: run [2, 4) is row 2 of column 0 and row 0 of column 1, so the box is rows 0..3.
        let (starts, stops, offsets) = (vec![2], vec![4], vec![0, 1]);
        let runs = Runs { starts: &starts, stops: &stops, offsets: &offsets };
        assert_eq!(run_box(&runs, 0, 3), [0, 3, 0, 2]);
        // [7, 8) alone is row 1 of column 2.
        let (starts, stops) = (vec![7], vec![8]);
        let runs = Runs { starts: &starts, stops: &stops, offsets: &offsets };
        assert_eq!(run_box(&runs, 0, 3), [1, 2, 2, 3]);
    }

    #[test]
    fn packing_along_columns_and_along_rows() {
        // The 3 x 2 mask of positions 1..5: rows 1, 2 of column 0 and rows 0, 1 of column 1.
        let (starts, stops, offsets) = (vec![1], vec![5], vec![0, 1]);
        let runs = Runs { starts: &starts, stops: &stops, offsets: &offsets };
        let place = Placement { line0: 0, word0: 0, stride: 1 };
        let mut columns = [0u64; 2];
        pack_columns(&runs, 0, 3, place, &mut columns);
        assert_eq!(columns, [0b110, 0b011]);
        let mut rows = [0u64; 3];
        pack_rows(&runs, 0, 3, place, &mut rows);
        assert_eq!(rows, [0b10, 0b11, 0b01]);
    }

    #[test]
    fn a_long_run_sets_whole_words() {
        // One column of 130 rows, rows 1..129: bits 1..64 of word 0, all of word 1, bit 0 of word 2.
        let (starts, stops, offsets) = (vec![1], vec![129], vec![0, 1]);
        let runs = Runs { starts: &starts, stops: &stops, offsets: &offsets };
        let mut words = [0u64; 3];
        pack_columns(&runs, 0, 130, Placement { line0: 0, word0: 0, stride: 3 }, &mut words);
        assert_eq!(words, [u64::MAX - 1, u64::MAX, 1]);
    }
}
