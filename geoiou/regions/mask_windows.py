"""Masks packed 64 pixels to a word over their bounding boxes, by the compiled core: from COCO runs or dense pixels.

The layout is `regions.mask._Windows`': mask m keeps the lines of its box from ``line0[m]`` on,
each as ``stride[m]`` words starting at word ``word0[m]`` of the line, from ``words[offsets[m]]``
on. Each mask is packed on its own (masks in parallel, src/mask.rs) and writes only its own words,
so the bits do not depend on the number of threads, and the memory beside the words is one mask's.
These are the crate's entries with their arrays made as it reads them (int64, C-contiguous).
"""

from __future__ import annotations

import numpy as np

from geoiou import _core
from geoiou._contiguous import contiguous

__all__ = ["dense_boxes", "pack_dense_windows", "pack_run_columns", "pack_run_rows", "run_boxes"]


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
    _pack(starts, stops, run_offsets, heights, (line0, word0, stride, offsets), True, words)


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
    _pack(starts, stops, run_offsets, heights, (line0, word0, stride, offsets), False, words)


def _pack(
    starts: np.ndarray,
    stops: np.ndarray,
    run_offsets: np.ndarray,
    heights: np.ndarray,
    layout: tuple[np.ndarray, ...],
    column_major: bool,
    words: np.ndarray,
) -> None:
    line0, word0, stride, offsets = (_ints(values) for values in layout)
    runs = (_ints(starts), _ints(stops), _ints(run_offsets))
    _core.pack_run_windows(runs, _ints(heights), (line0, word0, stride, offsets), column_major, words)


def _ints(values: np.ndarray) -> np.ndarray:
    return contiguous(values, np.int64).reshape(-1)


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
    _core.run_boxes((_ints(starts), _ints(stops), _ints(run_offsets)), _ints(heights), boxes)
    return boxes


# --------------------------------------------------------------------------- from dense pixels
def dense_boxes(dense: np.ndarray) -> np.ndarray:
    """The bounding box of each of the dense masks ``(M, H, W)`` (booleans, or bytes: nonzero is true).

    Returns ``(first row, last row + 1, first column, last column + 1)`` per mask, zeros when empty.

    Examples
    --------
    >>> import numpy as np
    >>> dense = np.zeros((2, 3, 4), dtype=bool)
    >>> dense[0, 1, 1:3] = True  # row 1: columns 1 and 2
    >>> dense_boxes(dense).tolist()
    [[1, 2, 1, 3], [0, 0, 0, 0]]
    """
    boxes = np.empty((dense.shape[0], 4), dtype=np.int64)
    _core.dense_boxes(_bytes(dense), boxes)
    return boxes


def pack_dense_windows(
    dense: np.ndarray, line0: np.ndarray, word0: np.ndarray, stride: np.ndarray, offsets: np.ndarray, words: np.ndarray
) -> None:
    """Pack each dense mask's window (the rows and words of its box) from its pixels ``(M, H, W)`` into `words`.

    Bit b of a line's word w is column ``64·w + b``; columns beyond the grid are false.

    Examples
    --------
    >>> import numpy as np
    >>> dense = np.zeros((1, 3, 70), dtype=bool)
    >>> dense[0, 1, [0, 3]] = dense[0, 2, 65] = True
    >>> words = np.zeros(4, dtype="<u8")  # rows 1 and 2, both words of each
    >>> pack_dense_windows(dense, np.array([1]), np.array([0]), np.array([2]), np.array([0]), words)
    >>> words.tolist()  # row 1: columns 0 and 3; row 2: column 65 (bit 1 of its second word)
    [9, 0, 0, 2]
    """
    layout = (_ints(line0), _ints(word0), _ints(stride), _ints(offsets))
    _core.pack_dense_windows(_bytes(dense), layout, words)


def _bytes(dense: np.ndarray) -> np.ndarray:
    """Dense masks as the crate reads them: one byte a pixel, C-contiguous (booleans are viewed, not copied)."""
    array = np.asarray(dense)
    return contiguous(array, np.bool_ if array.dtype == np.bool_ else np.uint8).view(np.uint8)
