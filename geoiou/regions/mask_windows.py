"""Masks packed 64 pixels to a word over their bounding boxes, compiled: from COCO runs or from packed rows.

The layout is `regions.mask._Windows`': mask m keeps the lines of its box from ``line0[m]`` on,
each as ``stride[m]`` words starting at word ``word0[m]`` of the line, from ``words[offsets[m]]``
on. Each mask is packed on its own (masks in parallel) and writes only its own words, so the
bits do not depend on the number of threads, and the memory beside the words is one mask's.

This module is compiled (numba) and imported when a store's windows are first needed, not by
``import geoiou``.
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import PARALLEL_MIN, in_parallel, jit, prange, use_threads

__all__ = ["copy_row_windows", "pack_run_columns", "pack_run_rows", "packed_row_boxes"]

WORD_BITS = 64
#: Nanoseconds a packed word costs a pass on one thread (read, test or copy), for `in_parallel`: the dense
#: masks' passes (their boxes, their windows) run serially for small batches and compile no parallel loop then.
WORD_COST_NS = 1.0


# --------------------------------------------------------------------------- from runs
def pack_run_columns(
    starts: np.ndarray,
    stops: np.ndarray,
    run_offsets: np.ndarray,
    heights: np.ndarray,
    line0: np.ndarray,
    word0: np.ndarray,
    stride: np.ndarray,
    offsets: np.ndarray,
    words: np.ndarray,
) -> None:
    """Set the bits of each mask's runs in its column windows (a line is a grid column, its bits the rows).

    Runs are column-major positions of the mask's own height: a run cut at the ends of its
    columns sets a range of bits in one line, whole words in its middle. `words` starts zeroed.

    Examples
    --------
    >>> import numpy as np
    >>> words = np.zeros(2, dtype="<u8")  # one 3 x 2 mask, box rows 0-3, columns 0-2: one word per column
    >>> pack_run_columns(np.array([1]), np.array([5]), np.array([0, 1]), np.array([3]), np.array([0]),
    ...                  np.array([0]), np.array([1]), np.array([0]), words)
    >>> words.tolist()  # rows 1, 2 of column 0 (bits 1, 2) and rows 0, 1 of column 1
    [6, 3]
    """
    use_threads(len(line0))
    _run_columns(starts, stops, run_offsets, heights, line0, word0, stride, offsets, words)


@jit(inline=True)
def _set_bits(words: np.ndarray, at: int, first: int, stop: int) -> None:
    """Set bits ``first <= b < stop`` of the bit string starting at word `at` (bit b is bit b % 64 of word b // 64)."""
    while first < stop:
        word = first // WORD_BITS
        end = min(stop, (word + 1) * WORD_BITS)
        low, count = first - word * WORD_BITS, end - first
        ones = (
            np.uint64(0xFFFFFFFFFFFFFFFF) if count == WORD_BITS else (np.uint64(1) << np.uint64(count)) - np.uint64(1)
        )
        words[at + word] |= ones << np.uint64(low)
        first = end


@jit(inline=True)
def _run_columns_of(
    starts: np.ndarray,
    stops: np.ndarray,
    run_offsets: np.ndarray,
    heights: np.ndarray,
    line0: np.ndarray,
    word0: np.ndarray,
    stride: np.ndarray,
    offsets: np.ndarray,
    words: np.ndarray,
    m: int,
) -> None:
    height = heights[m]
    for r in range(run_offsets[m], run_offsets[m + 1]):
        position, stop = starts[r], stops[r]
        while position < stop:  # one piece per column the run crosses
            column = position // height
            row, end = position - column * height, min(stop, (column + 1) * height)
            line_at = offsets[m] + (column - line0[m]) * stride[m] - word0[m]
            _set_bits(words, line_at, row, row + end - position)
            position = end


@jit(parallel=True)
def _run_columns(
    starts: np.ndarray,
    stops: np.ndarray,
    run_offsets: np.ndarray,
    heights: np.ndarray,
    line0: np.ndarray,
    word0: np.ndarray,
    stride: np.ndarray,
    offsets: np.ndarray,
    words: np.ndarray,
) -> None:
    n = line0.shape[0]
    if n < PARALLEL_MIN:
        for m in range(n):
            _run_columns_of(starts, stops, run_offsets, heights, line0, word0, stride, offsets, words, m)
    else:
        for m in prange(n):
            _run_columns_of(starts, stops, run_offsets, heights, line0, word0, stride, offsets, words, m)


def pack_run_rows(
    starts: np.ndarray,
    stops: np.ndarray,
    run_offsets: np.ndarray,
    heights: np.ndarray,
    line0: np.ndarray,
    word0: np.ndarray,
    stride: np.ndarray,
    offsets: np.ndarray,
    words: np.ndarray,
) -> None:
    """Set the bits of each mask's runs in its row windows (a line is a grid row, its bits the columns).

    Only to compare masks held as runs with dense masks, which are packed along rows: each run
    piece, rows ``low:high`` of one column, sets that column's bit in those rows' lines.

    Examples
    --------
    >>> import numpy as np
    >>> words = np.zeros(3, dtype="<u8")  # the 3 x 2 mask above, box rows 0-3: one word per row
    >>> pack_run_rows(np.array([1]), np.array([5]), np.array([0, 1]), np.array([3]), np.array([0]),
    ...               np.array([0]), np.array([1]), np.array([0]), words)
    >>> words.tolist()  # row 0: column 1; row 1: columns 0 and 1; row 2: column 0
    [2, 3, 1]
    """
    use_threads(len(line0))
    _run_rows(starts, stops, run_offsets, heights, line0, word0, stride, offsets, words)


@jit(inline=True)
def _run_rows_of(
    starts: np.ndarray,
    stops: np.ndarray,
    run_offsets: np.ndarray,
    heights: np.ndarray,
    line0: np.ndarray,
    word0: np.ndarray,
    stride: np.ndarray,
    offsets: np.ndarray,
    words: np.ndarray,
    m: int,
) -> None:
    height = heights[m]
    for r in range(run_offsets[m], run_offsets[m + 1]):
        position, stop = starts[r], stops[r]
        while position < stop:
            column = position // height
            row, end = position - column * height, min(stop, (column + 1) * height)
            word, bit = column // WORD_BITS - word0[m], np.uint64(column % WORD_BITS)
            for line in range(row, row + end - position):
                words[offsets[m] + (line - line0[m]) * stride[m] + word] |= np.uint64(1) << bit
            position = end


@jit(parallel=True)
def _run_rows(
    starts: np.ndarray,
    stops: np.ndarray,
    run_offsets: np.ndarray,
    heights: np.ndarray,
    line0: np.ndarray,
    word0: np.ndarray,
    stride: np.ndarray,
    offsets: np.ndarray,
    words: np.ndarray,
) -> None:
    n = line0.shape[0]
    if n < PARALLEL_MIN:
        for m in range(n):
            _run_rows_of(starts, stops, run_offsets, heights, line0, word0, stride, offsets, words, m)
    else:
        for m in prange(n):
            _run_rows_of(starts, stops, run_offsets, heights, line0, word0, stride, offsets, words, m)


def run_boxes(starts: np.ndarray, stops: np.ndarray, run_offsets: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """The bounding box of each mask from its column-major runs, each of its own height (at least 1).

    Returns ``(first row, last row + 1, first column, last column + 1)`` per mask, zeros when empty.
    A run that crosses into the next column covers the bottom row of one and the top row of the other.

    Examples
    --------
    >>> import numpy as np
    >>> run_boxes(np.array([1, 7]), np.array([2, 10]), np.array([0, 1, 2, 2]), np.array([3, 3, 3])).tolist()
    [[1, 2, 0, 1], [0, 3, 2, 4], [0, 0, 0, 0]]
    """
    boxes = np.zeros((len(heights), 4), dtype=np.int64)  # NumPy's memory (huge pages for many masks)
    use_threads(len(heights))
    _run_boxes(starts, stops, run_offsets, heights, boxes)
    return boxes


@jit(inline=True)
def _run_box(
    starts: np.ndarray, stops: np.ndarray, run_offsets: np.ndarray, heights: np.ndarray, boxes: np.ndarray, m: int
) -> None:
    first, last = run_offsets[m], run_offsets[m + 1]
    if first == last:
        return
    height = heights[m]
    top, bottom = height, 0
    for r in range(first, last):
        start_row = starts[r] % height
        stop_row = start_row + (stops[r] - starts[r])
        top = min(top, 0 if stop_row > height else start_row)
        bottom = max(bottom, min(stop_row, height))
    boxes[m, 0], boxes[m, 1] = top, bottom
    boxes[m, 2], boxes[m, 3] = starts[first] // height, (stops[last - 1] - 1) // height + 1


@jit(parallel=True)
def _run_boxes(
    starts: np.ndarray, stops: np.ndarray, run_offsets: np.ndarray, heights: np.ndarray, boxes: np.ndarray
) -> None:
    n = heights.shape[0]
    if n < PARALLEL_MIN:
        for m in range(n):
            _run_box(starts, stops, run_offsets, heights, boxes, m)
    else:
        for m in prange(n):
            _run_box(starts, stops, run_offsets, heights, boxes, m)


# --------------------------------------------------------------------------- from dense pixels
def packed_row_boxes(lines: np.ndarray, width: int) -> np.ndarray:
    """The bounding box of each mask from its rows packed into words ``(M, H, S)`` (bit b of word w: column 64w + b).

    Returns ``(first row, last row + 1, first column, last column + 1)`` per mask, zeros when empty.

    Examples
    --------
    >>> import numpy as np
    >>> lines = np.zeros((1, 3, 1), dtype="<u8")
    >>> lines[0, 1, 0] = 0b0110  # row 1: columns 1 and 2
    >>> packed_row_boxes(lines, 4).tolist()
    [[1, 2, 1, 3]]
    """
    boxes = np.empty((lines.shape[0], 4), dtype=np.int64)
    if in_parallel(lines.shape[0], WORD_COST_NS * lines.shape[1] * lines.shape[2]):
        _packed_boxes_parallel(lines, boxes)
    else:
        _packed_boxes(lines, boxes, 0, lines.shape[0])
    return boxes


@jit(inline=True)
def _lowest_bit(word: np.uint64) -> int:
    bit = 0
    while not (word >> np.uint64(bit)) & np.uint64(1):
        bit += 1
    return bit


@jit(inline=True)
def _highest_bit(word: np.uint64) -> int:
    bit = WORD_BITS - 1
    while not (word >> np.uint64(bit)) & np.uint64(1):
        bit -= 1
    return bit


@jit(inline=True)
def _packed_box(lines: np.ndarray, boxes: np.ndarray, m: int) -> None:
    height, stride = lines.shape[1], lines.shape[2]
    row0, row1, col0, col1 = height, 0, stride * WORD_BITS, 0
    for row in range(height):
        for w in range(stride):  # the first word with a pixel gives the row's first column
            if lines[m, row, w]:
                row0, row1 = min(row0, row), row + 1
                col0 = min(col0, w * WORD_BITS + _lowest_bit(lines[m, row, w]))
                break
        for w in range(stride - 1, -1, -1):  # the last gives its last
            if lines[m, row, w]:
                col1 = max(col1, w * WORD_BITS + _highest_bit(lines[m, row, w]) + 1)
                break
    if row1 == 0:
        row0, row1, col0, col1 = 0, 0, 0, 0
    boxes[m, 0], boxes[m, 1], boxes[m, 2], boxes[m, 3] = row0, row1, col0, col1


@jit
def _packed_boxes(lines: np.ndarray, boxes: np.ndarray, begin: int, end: int) -> None:
    for m in range(begin, end):
        _packed_box(lines, boxes, m)


@jit(parallel=True)
def _packed_boxes_parallel(lines: np.ndarray, boxes: np.ndarray) -> None:
    for m in prange(lines.shape[0]):  # each mask on its own
        _packed_boxes(lines, boxes, m, m + 1)


def copy_row_windows(
    lines: np.ndarray, line0: np.ndarray, word0: np.ndarray, stride: np.ndarray, offsets: np.ndarray, words: np.ndarray
) -> None:
    """Copy each mask's window (the rows and words of its box) out of its packed rows ``(M, H, S)`` into `words`.

    Examples
    --------
    >>> import numpy as np
    >>> lines = np.arange(6, dtype="<u8").reshape(1, 3, 2)
    >>> words = np.zeros(2, dtype="<u8")
    >>> copy_row_windows(lines, np.array([1]), np.array([1]), np.array([1]), np.array([0]), words)
    >>> words.tolist()  # rows 1 and 2, their second word
    [3, 5]
    """
    if in_parallel(lines.shape[0], WORD_COST_NS * max(1, words.shape[0] // max(1, lines.shape[0]))):
        _copy_rows_parallel(lines, line0, word0, stride, offsets, words)
    else:
        _copy_rows(lines, line0, word0, stride, offsets, words, 0, lines.shape[0])


@jit(inline=True)
def _copy_rows_of(
    lines: np.ndarray,
    line0: np.ndarray,
    word0: np.ndarray,
    stride: np.ndarray,
    offsets: np.ndarray,
    words: np.ndarray,
    m: int,
) -> None:
    if stride[m] == 0:
        return
    end = offsets[m + 1] if m + 1 < offsets.shape[0] else words.shape[0]
    for line in range((end - offsets[m]) // stride[m]):
        at = offsets[m] + line * stride[m]
        for w in range(stride[m]):
            words[at + w] = lines[m, line0[m] + line, word0[m] + w]


@jit
def _copy_rows(
    lines: np.ndarray,
    line0: np.ndarray,
    word0: np.ndarray,
    stride: np.ndarray,
    offsets: np.ndarray,
    words: np.ndarray,
    begin: int,
    end: int,
) -> None:
    for m in range(begin, end):
        _copy_rows_of(lines, line0, word0, stride, offsets, words, m)


@jit(parallel=True)
def _copy_rows_parallel(
    lines: np.ndarray, line0: np.ndarray, word0: np.ndarray, stride: np.ndarray, offsets: np.ndarray, words: np.ndarray
) -> None:
    for m in prange(lines.shape[0]):  # each mask on its own
        _copy_rows(lines, line0, word0, stride, offsets, words, m, m + 1)
