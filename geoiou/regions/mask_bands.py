"""The boundary bands of masks held as COCO runs, compiled: ``mask − erode(mask, d)``, as runs.

The erosion is boundary-iou-api's: ``d`` passes of a 3 × 3 erosion of the mask padded with one
false pixel, so a pixel stays only if every pixel within Chebyshev distance ``d`` is true, pixels
beyond the mask's own grid counting as false. A square erosion is a vertical one followed by a
horizontal one, and both are read off the runs, column by column (COCO runs go down the columns):

- vertically, each piece of a run in a column, rows ``[s, e)``, keeps ``[s + d, e − d)``;
- horizontally, a row stays in column ``o`` when it stayed vertically in the ``2d + 1`` columns
  ``o − d .. o + d``: the intersection of those columns' intervals, which is one interval (the
  largest start, the smallest end) when each column has one piece that stays, as a blob's columns
  do; otherwise the columns' lists are intersected;
- the band of column ``o`` is then the mask's pieces in it minus those intervals, written as runs
  in the mask's own column-major positions (touching runs joined).

Work per mask follows its runs, not its pixels: the window slides over the columns with two
queues (each column enters and leaves each once); memory is a few integers per column of one mask
at a time; nothing is decoded. Each mask is computed on its own (chunks of masks in parallel) and
written only into its own room, so the bits do not depend on the number of threads.

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


def band_runs(runs: coco_rle.Runs, distances: np.ndarray, masks: np.ndarray | None = None) -> coco_rle.Runs:
    """The band ``mask − erode(mask, d)`` of each mask of `runs` (or of those at `masks`), eroded by its own
    distance ``d`` (≥ 1, one per mask banded).

    One pass writes each mask's band into room for twice its pieces (its runs cut at the ends of
    columns) plus two: a column's band has at most its pieces plus its eroded intervals, which its
    pieces bound unless the erosion splits a piece (a comb). The few masks that need more are
    counted by that pass and banded again into room of their exact size.

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
    masks = np.arange(len(runs.sizes), dtype=np.int64) if masks is None else np.asarray(masks, dtype=np.int64)
    n = len(masks)
    heights = np.ascontiguousarray(runs.sizes[:, 0], dtype=np.int64)
    distances = np.ascontiguousarray(np.broadcast_to(distances, (n,)), dtype=np.int64)
    room = np.empty(n, dtype=np.int64)
    use_threads(n)
    _rooms(runs.starts, runs.stops, runs.offsets, heights, masks, room)
    starts, stops, found = _pass(runs, heights, distances, masks, room)
    at = np.cumsum(room) - room  # where each mask's room starts
    over = np.flatnonzero(found > room)
    if len(over):  # banded again into exact room, appended after the first pass's rooms
        more_starts, more_stops, _ = _pass(runs, heights, distances[over], masks[over], found[over])
        at[over] = len(starts) + np.cumsum(found[over]) - found[over]
        starts, stops = np.concatenate([starts, more_starts]), np.concatenate([stops, more_stops])
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(found, out=offsets[1:])
    band_starts, band_stops = np.empty(offsets[-1], dtype=np.int64), np.empty(offsets[-1], dtype=np.int64)
    use_threads(n)
    _gather(starts, stops, at, offsets, band_starts, band_stops)
    return coco_rle.Runs(runs.sizes[masks], band_starts, band_stops, offsets)


@jit(parallel=True)
def _rooms(
    starts: np.ndarray, stops: np.ndarray, offsets: np.ndarray, heights: np.ndarray, masks: np.ndarray,
    room: np.ndarray,
) -> None:  # fmt: skip
    """Room for the band of each mask ``masks[k]``: twice its pieces (runs cut at the ends of columns), plus two."""
    n = masks.shape[0]
    if n < PARALLEL_MIN:
        for k in range(n):
            room[k] = _room_of(starts, stops, offsets[masks[k]], offsets[masks[k] + 1], heights[masks[k]])
    else:
        for k in prange(n):
            room[k] = _room_of(starts, stops, offsets[masks[k]], offsets[masks[k] + 1], heights[masks[k]])


@jit(inline=True)
def _room_of(starts: np.ndarray, stops: np.ndarray, lo: int, hi: int, height: int) -> int:
    height, pieces = max(height, 1), 0
    for j in range(lo, hi):
        pieces += (stops[j] - 1) // height - starts[j] // height + 1
    return 2 * pieces + 2


@jit(parallel=True)
def _gather(
    starts: np.ndarray, stops: np.ndarray, at: np.ndarray, offsets: np.ndarray, out_starts: np.ndarray,
    out_stops: np.ndarray,
) -> None:  # fmt: skip
    """Each mask's runs from its room (from ``at[m]``) to their place ``offsets[m]:offsets[m + 1]``."""
    n = at.shape[0]
    if n < PARALLEL_MIN:
        for m in range(n):
            _move(starts, stops, at[m] - offsets[m], offsets[m], offsets[m + 1], out_starts, out_stops)
    else:
        for m in prange(n):
            _move(starts, stops, at[m] - offsets[m], offsets[m], offsets[m + 1], out_starts, out_stops)


@jit(inline=True)
def _move(
    starts: np.ndarray, stops: np.ndarray, shift: int, lo: int, hi: int, out_starts: np.ndarray, out_stops: np.ndarray
) -> None:
    for k in range(lo, hi):
        out_starts[k], out_stops[k] = starts[k + shift], stops[k + shift]


def _pass(
    runs: coco_rle.Runs, heights: np.ndarray, distances: np.ndarray, masks: np.ndarray, room: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The bands of `masks`, each written into its `room` (runs beyond it counted, not written); their counts."""
    at = np.zeros(len(masks) + 1, dtype=np.int64)
    np.cumsum(room, out=at[1:])
    starts, stops = np.empty(int(at[-1]), dtype=np.int64), np.empty(int(at[-1]), dtype=np.int64)
    found = np.zeros(len(masks), dtype=np.int64)
    use_threads(len(masks))
    _bands(runs.starts, runs.stops, runs.offsets, heights, distances, masks, at, starts, stops, found)
    return starts, stops, found


#: Masks banded one after another by one task, sharing its scratch arrays (grown as needed).
CHUNK = 32


@jit(parallel=True)
def _bands(
    starts: np.ndarray,
    stops: np.ndarray,
    offsets: np.ndarray,
    heights: np.ndarray,
    distances: np.ndarray,
    masks: np.ndarray,
    at: np.ndarray,
    out_starts: np.ndarray,
    out_stops: np.ndarray,
    found: np.ndarray,
) -> None:
    """Band each mask ``masks[k]`` by ``distances[k]`` into ``at[k]:at[k + 1]``; its runs' number into ``found[k]``."""
    chunks = (masks.shape[0] + CHUNK - 1) // CHUNK
    if masks.shape[0] < PARALLEL_MIN:
        for c in range(chunks):
            _band_chunk(starts, stops, offsets, heights, distances, masks, at, out_starts, out_stops, found, c)
    else:
        for c in prange(chunks):
            _band_chunk(starts, stops, offsets, heights, distances, masks, at, out_starts, out_stops, found, c)


@jit
def _band_chunk(
    starts: np.ndarray,
    stops: np.ndarray,
    offsets: np.ndarray,
    heights: np.ndarray,
    distances: np.ndarray,
    masks: np.ndarray,
    at: np.ndarray,
    out_starts: np.ndarray,
    out_stops: np.ndarray,
    found: np.ndarray,
    c: int,
) -> None:
    """The masks of chunk `c`, one after another, with one set of scratch arrays."""
    column = np.empty((0, 6), dtype=np.int64)
    eroded = np.empty((3, 2, 4), dtype=np.int64)
    for k in range(c * CHUNK, min((c + 1) * CHUNK, masks.shape[0])):
        m = masks[k]
        lo, hi, height = offsets[m], offsets[m + 1], heights[m]
        if lo == hi:
            found[k] = 0
            continue
        width = (stops[hi - 1] - 1) // height + 1 - starts[lo] // height
        if column.shape[0] < width + 1:
            column = np.empty((2 * width + 1, 6), dtype=np.int64)
        found[k], eroded = _band_of(starts, stops, lo, hi, height, distances[k], out_starts, out_stops, at[k],
                                    at[k + 1], column, eroded)  # fmt: skip


@jit
def _band_of(
    starts: np.ndarray,
    stops: np.ndarray,
    lo: int,
    hi: int,
    height: int,
    d: int,
    out_starts: np.ndarray,
    out_stops: np.ndarray,
    at: int,
    end: int,
    column: np.ndarray,
    eroded: np.ndarray,
) -> tuple[int, np.ndarray]:
    """The band runs of the mask whose runs are ``lo:hi`` (see the module docstring), written into ``at:end`` while
    they fit: their number, and the scratch `eroded` (larger when it had too little room).

    `column` has a row per column of the mask's box: its first run, how many of its pieces stay vertically, the
    last one that does, and two queues of columns (the window's largest start and smallest end, as the window
    slides: each column enters and leaves each queue once).
    """
    first_column = starts[lo] // height
    width = (stops[hi - 1] - 1) // height + 1 - first_column
    j = lo
    for i in range(width):
        top = (first_column + i) * height
        while stops[j] <= top:
            j += 1
        column[i, 0], column[i, 1] = j, 0
        k = j
        while k < hi and starts[k] < top + height:
            low, high = max(starts[k], top) - top + d, min(stops[k], top + height) - top - d
            if high > low:
                column[i, 1] += 1
                column[i, 2], column[i, 3] = low, high
            k += 1
    column[width, 0] = hi
    found, last_stop = 0, -1
    # The window i - d .. i + d: its columns with no piece staying, with several, and the queues of the others.
    empty, several, first_low, end_low, first_high, end_high = 0, 0, 0, 0, 0, 0
    for i in range(-d, width):
        w = i + d  # enters the window
        if w < width:
            if column[w, 1] == 1:
                while end_low > first_low and column[column[end_low - 1, 4], 2] <= column[w, 2]:
                    end_low -= 1
                column[end_low, 4] = w
                end_low += 1
                while end_high > first_high and column[column[end_high - 1, 5], 3] >= column[w, 3]:
                    end_high -= 1
                column[end_high, 5] = w
                end_high += 1
            else:
                empty += column[w, 1] == 0
                several += column[w, 1] > 1
        w = i - d - 1  # leaves the window
        if w >= 0:
            if column[w, 1] == 1:  # at the front of a queue unless a later column pushed it out
                first_low += first_low < end_low and column[first_low, 4] == w
                first_high += first_high < end_high and column[first_high, 5] == w
            else:
                empty -= column[w, 1] == 0
                several -= column[w, 1] > 1
        if i < 0:
            continue
        count = 0
        if i - d >= 0 and i + d < width and empty == 0:
            if several == 0:
                low, high = column[column[first_low, 4], 2], column[column[first_high, 5], 3]
                if high > low:
                    eroded[0, 0, 0], eroded[0, 1, 0], count = low, high, 1
            else:
                count, eroded = _eroded_rows(starts, stops, hi, height, d, first_column, column, i, eroded)
        top = (first_column + i) * height
        e = 0  # the next eroded interval
        k = column[i, 0]
        while k < hi and starts[k] < top + height:
            r, high = max(starts[k], top) - top, min(stops[k], top + height) - top
            while r < high:  # the piece's rows less the eroded intervals
                while e < count and eroded[0, 1, e] <= r:
                    e += 1
                stop = high if e == count else min(high, eroded[0, 0, e])
                if stop > r:
                    if top + r == last_stop:  # joins the run before (the previous column's bottom)
                        if found <= end - at:
                            out_stops[at + found - 1] = top + stop
                    else:
                        if found < end - at:
                            out_starts[at + found] = top + r
                            out_stops[at + found] = top + stop
                        found += 1
                    last_stop = top + stop
                r = stop if e == count else max(stop, eroded[0, 1, e])
            k += 1
    return found, eroded


@jit
def _eroded_rows(
    starts: np.ndarray,
    stops: np.ndarray,
    hi: int,
    height: int,
    d: int,
    first_column: int,
    column: np.ndarray,
    i: int,
    eroded: np.ndarray,
) -> tuple[int, np.ndarray]:
    """The rows of column `i` that stay in the erosion when some column of its window has several pieces that stay
    vertically: the intersection of the window's lists (it has at most as many intervals as they have together),
    into ``eroded[0]``; their number, and `eroded` (a larger one when it had too little room)."""
    pieces = 0
    for w in range(i - d, i + d + 1):
        pieces += column[w, 1]
    if eroded.shape[2] < pieces:
        eroded = np.empty((3, 2, 2 * pieces), dtype=np.int64)
    count = _stayed(starts, stops, hi, height, d, first_column, column, i - d, eroded[0])
    for w in range(i - d + 1, i + d + 1):
        other = _stayed(starts, stops, hi, height, d, first_column, column, w, eroded[1])
        count = _intersect(eroded[0], count, eroded[1], other, eroded[2])
        eroded[0, :, :count] = eroded[2, :, :count]
        if count == 0:
            break
    return count, eroded


@jit
def _stayed(
    starts: np.ndarray,
    stops: np.ndarray,
    hi: int,
    height: int,
    d: int,
    first_column: int,
    column: np.ndarray,
    w: int,
    into: np.ndarray,
) -> int:
    """The pieces of column `w` that stay vertically, as intervals into `into`; their number."""
    top = (first_column + w) * height
    count, k = 0, column[w, 0]
    while k < hi and starts[k] < top + height:
        low, high = max(starts[k], top) - top + d, min(stops[k], top + height) - top - d
        if high > low:
            into[0, count], into[1, count] = low, high
            count += 1
        k += 1
    return count


@jit
def _intersect(a: np.ndarray, count_a: int, b: np.ndarray, count_b: int, into: np.ndarray) -> int:
    """``a ∩ b`` of two sorted lists of disjoint intervals, written into `into`; their number."""
    count, i, j = 0, 0, 0
    while i < count_a and j < count_b:
        low, high = max(a[0, i], b[0, j]), min(a[1, i], b[1, j])
        if high > low:
            into[0, count], into[1, count] = low, high
            count += 1
        if a[1, i] < b[1, j]:
            i += 1
        else:
            j += 1
    return count
