"""The boundary bands of masks held as COCO runs, by the compiled core: ``mask − erode(mask, d)``, as runs.

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
at a time; nothing is decoded. The bands are computed by the compiled core (src/mask/bands.rs),
each mask on its own (ranges of masks in parallel, joined in order), so the bits do not depend on
the number of threads.
"""

from __future__ import annotations

import numpy as np

from geoiou import _core
from geoiou import rle as coco_rle
from geoiou._contiguous import contiguous

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
    masks = np.arange(len(runs.sizes), dtype=np.int64) if masks is None else contiguous(masks, np.int64).reshape(-1)
    table = (contiguous(runs.starts, np.int64), contiguous(runs.stops, np.int64), contiguous(runs.offsets, np.int64))
    heights = contiguous(np.maximum(runs.sizes[:, 0], 1), np.int64)
    distances = contiguous(np.broadcast_to(distances, (len(masks),)), np.int64)
    starts, stops, offsets = _core.band_runs(table, heights, distances, masks)
    return coco_rle.Runs(runs.sizes[masks], starts, stops, offsets)
