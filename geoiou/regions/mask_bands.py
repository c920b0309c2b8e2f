"""The boundary bands of masks held as COCO runs, compiled: ``mask − erode(mask, d)``, as runs.

The erosion is boundary-iou-api's: ``d`` passes of a 3 × 3 erosion of the mask padded with one
false pixel, so a pixel stays only if every pixel within Chebyshev distance ``d`` is true, pixels
beyond the mask's own grid counting as false. A square erosion is a vertical one followed by a
horizontal one, and both are read off the runs, column by column (COCO runs go down the columns):

- vertically, each piece of a run in a column, rows ``[s, e)``, keeps ``[s + d, e − d)``;
- horizontally, a row stays in column ``o`` when it stayed vertically in the ``2d + 1`` columns
  ``o − d .. o + d``: one counter per row of the mask's bounding box counts the columns in a row
  where it stayed, so column ``o`` is settled when column ``o + d`` is read;
- the band of column ``o`` is then the mask's pieces in it minus the rows whose counter reached
  ``2d + 1``, written as runs in the mask's own column-major positions (touching runs joined).

Work per mask is its bounding box's rows times its columns plus ``d``, memory one counter per row;
nothing is decoded to the image's size. Each mask is computed on its own (masks in parallel) and
written only where its own runs go (a count pass, then a write pass), so the bits do not depend on
the number of threads.

This module is compiled (numba) and imported when a band is first asked for, not by ``import geoiou``.
"""

from __future__ import annotations

import numpy as np

from geoiou import rle as coco_rle
from geoiou._compiled import PARALLEL_MIN, jit, prange, use_threads

__all__ = ["band_runs", "erosion_distances"]


def erosion_distances(sizes: np.ndarray, dilation_ratio: float) -> np.ndarray:
    """boundary-iou-api's erosion distance of masks of `sizes` ``(n, 2)``: ``max(1, round(ratio · diagonal))``.

    Python's ``round`` (boundary-iou-api's) rounds halves to even, as ``np.rint`` does; the
    diagonal is ``sqrt(h² + w²)`` in float64, as there.

    Examples
    --------
    >>> erosion_distances(np.array([[480, 640], [10, 10]]), 0.02).tolist()  # 800 · 0.02 = 16; at least 1
    [16, 1]
    """
    sizes = np.asarray(sizes, dtype=np.int64).reshape(-1, 2)
    diagonal = np.sqrt((sizes[:, 0] * sizes[:, 0] + sizes[:, 1] * sizes[:, 1]).astype(np.float64))
    return np.maximum(1, np.rint(dilation_ratio * diagonal)).astype(np.int64)


def band_runs(runs: coco_rle.Runs, distances: np.ndarray) -> coco_rle.Runs:
    """The band ``mask − erode(mask, d)`` of each mask of `runs`, eroded by its own distance ``d`` (≥ 1).

    Examples
    --------
    >>> from geoiou import rle
    >>> square = np.zeros((6, 6), dtype=bool); square[1:5, 1:5] = True  # a 4 x 4 square: its ring of width 1
    >>> band = band_runs(rle.to_runs([rle.encode(square)]), np.array([1]))
    >>> band.paint(0, 1, 0, 6).reshape(6, 6).T.astype(int)
    array([[0, 0, 0, 0, 0, 0],
           [0, 1, 1, 1, 1, 0],
           [0, 1, 0, 0, 1, 0],
           [0, 1, 0, 0, 1, 0],
           [0, 1, 1, 1, 1, 0],
           [0, 0, 0, 0, 0, 0]])
    """
    n = len(runs.sizes)
    heights = np.ascontiguousarray(runs.sizes[:, 0], dtype=np.int64)
    distances = np.ascontiguousarray(np.broadcast_to(distances, (n,)), dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    use_threads(n)
    _bands(runs.starts, runs.stops, runs.offsets, heights, distances, counts, empty, empty, False)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    starts, stops = np.empty(offsets[-1], dtype=np.int64), np.empty(offsets[-1], dtype=np.int64)
    use_threads(n)
    _bands(runs.starts, runs.stops, runs.offsets, heights, distances, offsets, starts, stops, True)
    return coco_rle.Runs(runs.sizes, starts, stops, offsets)


@jit(parallel=True)
def _bands(
    starts: np.ndarray,
    stops: np.ndarray,
    offsets: np.ndarray,
    heights: np.ndarray,
    distances: np.ndarray,
    at: np.ndarray,
    out_starts: np.ndarray,
    out_stops: np.ndarray,
    write: bool,
) -> None:
    """Count each mask's band runs into `at` (``write`` false), or write them from ``at[m]`` on (``write`` true)."""
    n = heights.shape[0]
    if n < PARALLEL_MIN:
        for m in range(n):
            found = _band_of(starts, stops, offsets, heights[m], distances[m], m, out_starts, out_stops, at[m], write)
            if not write:
                at[m] = found
    else:
        for m in prange(n):
            found = _band_of(starts, stops, offsets, heights[m], distances[m], m, out_starts, out_stops, at[m], write)
            if not write:
                at[m] = found


@jit
def _band_of(
    starts: np.ndarray,
    stops: np.ndarray,
    offsets: np.ndarray,
    height: int,
    d: int,
    m: int,
    out_starts: np.ndarray,
    out_stops: np.ndarray,
    at: int,
    write: bool,
) -> int:
    """The band runs of mask `m` (see the module docstring), written from `at` on when `write`; their number."""
    lo, hi = offsets[m], offsets[m + 1]
    if lo == hi:
        return 0
    first_column, stop_column = starts[lo] // height, (stops[hi - 1] - 1) // height + 1
    row0, row1 = height, 0  # the rows of the bounding box
    for j in range(lo, hi):
        column = starts[j] // height
        if (stops[j] - 1) // height != column:  # a run over the end of a column: every row
            row0, row1 = 0, height
            break
        row0, row1 = min(row0, starts[j] - column * height), max(row1, stops[j] - column * height)
    stayed = np.zeros(row1 - row0, dtype=np.int64)  # per row: columns in a row where it stayed vertically
    full = 2 * d + 1
    found, last_stop = 0, -1
    eroding, output = lo, lo  # the first run not yet passed by the column eroded and by the column written
    for column in range(first_column, stop_column + d):
        top = column * height
        if column < stop_column:
            row = row0
            while eroding < hi and starts[eroding] < top + height:
                low = d + max(starts[eroding], top) - top
                high = min(stops[eroding], top + height) - top - d
                if high > low:
                    for r in range(row, low):
                        stayed[r - row0] = 0
                    for r in range(low, high):
                        stayed[r - row0] += 1
                    row = high
                if stops[eroding] > top + height:
                    break  # the run goes on in the next column
                eroding += 1
            for r in range(row, row1):
                stayed[r - row0] = 0
        elif column == stop_column:
            stayed[:] = 0  # beyond the mask's last column nothing stays
        out = column - d
        if out < first_column:
            continue
        top = out * height
        while output < hi and starts[output] < top + height:
            low, high = max(starts[output], top) - top, min(stops[output], top + height) - top
            r = low
            while r < high:
                if stayed[r - row0] >= full:  # eroded: not in the band
                    r += 1
                    continue
                end = r + 1
                while end < high and stayed[end - row0] < full:
                    end += 1
                if top + r == last_stop:  # joins the run before (the previous column's bottom)
                    if write:
                        out_stops[at + found - 1] = top + end
                else:
                    if write:
                        out_starts[at + found] = top + r
                        out_stops[at + found] = top + end
                    found += 1
                last_stop = top + end
                r = end
            if stops[output] > top + height:
                break
            output += 1
    return found
