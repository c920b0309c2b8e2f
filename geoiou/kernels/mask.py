"""Exact kernels for masks under the unit-square pixel model.

Mask×Mask counts coinciding pixels: on one grid by ANDing the packed windows of the two masks over
the overlap of their bounding boxes (see `geoiou.regions.mask`), on offset grids with fractional
weights from four shifted counts. Mask×Box and Mask×Polygon weight each true pixel by the exact
area of the vector region inside it. Nothing is sampled at pixel centres.
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import PARALLEL_MIN, jit, prange, use_threads
from geoiou.dispatch import register
from geoiou.kernels.box import overlap_length
from geoiou.regions.coverage import Edges, rasterize_canvases
from geoiou.regions.ragged import ragged_arange
from geoiou.kernels.pairs import pruned
from geoiou.regions import Box, Mask, Polygon
from geoiou.regions.mask import WORD_BITS, _Windows
from geoiou.rle import Runs

__all__ = ["mask_box_intersection_area", "mask_intersection_area", "mask_polygon_intersection_area"]

#: Pixels gathered at once by the batched kernels (bounds the working memory).
PIXEL_CHUNK = 1 << 25

#: Windows of at least this many pixels read their mask pixels as one slice (see `_covered_pixels`).
LARGE_WINDOW = 1 << 14


@register(Mask, Mask, form="pairs")
def mask_intersection_area(a: Mask, b: Mask, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Area shared by the masks of each pair; grids may differ in shape and origin."""
    return _pruned_mask_pairs(a, b, index_a, index_b)


@register(Mask, Box, form="pairs")
def mask_box_intersection_area(a: Mask, b: Box, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Area of each mask inside each box: the box covers pixel (r, c) by row weight × column weight."""
    return _pruned_mask_box_pairs(a, b, index_a, index_b)


@register(Mask, Polygon, form="pairs")
def mask_polygon_intersection_area(a: Mask, b: Polygon, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Area of each mask inside each polygon, from the polygon's exact coverage of every pixel."""
    return _pruned_mask_polygon_pairs(a, b, index_a, index_b)


def _mask_pairs(a: Mask, b: Mask, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Shared area of the pairs ``(a[index_a[k]], b[index_b[k]])``.

    Pairs with equal origins lie on one grid (whatever their sizes) and are counted word by word
    on their packed windows; pairs on offset grids use four shifted counts of their pixels.
    """
    same_grid = (a._origin[index_a] == b._origin[index_b]).all(axis=-1)
    result = np.empty(len(index_a))
    runs_a, runs_b = a._store.runs, b._store.runs
    if same_grid.any() and runs_a is not None and runs_b is not None and a._store.grid[0] == b._store.grid[0]:
        # Both held as COCO runs on grids of one height: count from the runs, no pixels or words built.
        result[same_grid] = run_overlap_counts(runs_a, a._index[index_a[same_grid]], runs_b, b._index[index_b[same_grid]])
    elif same_grid.any():
        # Masks from RLE are packed along columns, dense ones along rows: a mixed pair uses rows.
        rows = not (a._store.column_major and b._store.column_major)
        result[same_grid] = _window_overlap_counts(a._store.windows(rows), a._index[index_a[same_grid]],
                                                   b._store.windows(rows), b._index[index_b[same_grid]])
    for k in np.flatnonzero(~same_grid):
        first, second = (a, index_a[k]), (b, index_b[k])
        # The mask with the smaller origin (x, then y) goes first, so that the weights of the shifted
        # counts, and hence the bits of the result, do not depend on the order of the pair.
        if tuple(second[0]._origin[second[1]]) < tuple(first[0]._origin[first[1]]):
            first, second = second, first
        (mask_a, i), (mask_b, j) = first, second
        result[k] = _overlap_on_offset_grids(mask_a._data[i], mask_a._origin[i], mask_b._data[j], mask_b._origin[j])
    return result


def run_overlap_counts(runs_a: Runs, masks_a: np.ndarray, runs_b: Runs, masks_b: np.ndarray) -> np.ndarray:
    """Pixels true in both masks ``masks_a[k]`` of `runs_a` and ``masks_b[k]`` of `runs_b`, counted from the runs.

    Runs are column-major positions on grids of one height, so a position means the same pixel
    in both. Each pair walks its two masks' runs together, as pycocotools' ``rleIou`` does, from
    the first run of each that can meet the other's span (binary searches): the work follows the
    runs, never the pixels. Pairs run in parallel.

    Examples
    --------
    >>> from geoiou import rle
    >>> runs = rle.to_runs([{"size": [3, 3], "counts": [1, 3, 5]}, {"size": [3, 3], "counts": [2, 4, 3]}])
    >>> run_overlap_counts(runs, np.array([0, 0]), runs, np.array([1, 0]))  # pixels 2, 3 shared; 3 with itself
    array([2, 3])
    """
    masks_a, masks_b = np.asarray(masks_a, dtype=np.int64), np.asarray(masks_b, dtype=np.int64)
    use_threads(len(masks_a))
    return _run_pair_counts(runs_a.starts, runs_a.stops, runs_a.offsets, masks_a,
                            runs_b.starts, runs_b.stops, runs_b.offsets, masks_b)


@jit
def _shared_run_pixels(starts_a: np.ndarray, stops_a: np.ndarray, first_a: int, last_a: int,
                       starts_b: np.ndarray, stops_b: np.ndarray, first_b: int, last_b: int) -> int:
    """Positions covered by a run of mask a (runs ``first_a:last_a``) and a run of mask b; runs sorted, disjoint."""
    if first_a >= last_a or first_b >= last_b:
        return 0
    # Skip the runs that end before the other mask's first run starts.
    i = first_a + np.searchsorted(stops_a[first_a:last_a], starts_b[first_b], side="right")
    j = first_b + np.searchsorted(stops_b[first_b:last_b], starts_a[first_a], side="right")
    shared = 0
    while i < last_a and j < last_b:
        low, high = max(starts_a[i], starts_b[j]), min(stops_a[i], stops_b[j])
        if high > low:
            shared += high - low
        if stops_a[i] <= stops_b[j]:
            i += 1
        else:
            j += 1
    return shared


@jit(parallel=True)
def _run_pair_counts(starts_a: np.ndarray, stops_a: np.ndarray, offsets_a: np.ndarray, masks_a: np.ndarray,
                     starts_b: np.ndarray, stops_b: np.ndarray, offsets_b: np.ndarray, masks_b: np.ndarray) -> np.ndarray:
    counts = np.empty(masks_a.shape[0], dtype=np.int64)
    if counts.shape[0] < PARALLEL_MIN:
        for k in range(counts.shape[0]):
            counts[k] = _shared_run_pixels(starts_a, stops_a, offsets_a[masks_a[k]], offsets_a[masks_a[k] + 1],
                                           starts_b, stops_b, offsets_b[masks_b[k]], offsets_b[masks_b[k] + 1])
    else:
        for k in prange(counts.shape[0]):
            counts[k] = _shared_run_pixels(starts_a, stops_a, offsets_a[masks_a[k]], offsets_a[masks_a[k] + 1],
                                           starts_b, stops_b, offsets_b[masks_b[k]], offsets_b[masks_b[k] + 1])
    return counts


def _window_overlap_counts(windows_a: _Windows, masks_a: np.ndarray,
                           windows_b: _Windows, masks_b: np.ndarray) -> np.ndarray:
    """Pixels true in both masks ``masks_a[k]`` of `windows_a` and ``masks_b[k]`` of `windows_b`.

    Both windows are on one grid and in one orientation. Only the overlap of the two bounding
    boxes is compared, line by line, over the words that cover its bits: both windows hold it,
    aligned to the same words of each line, so a pair is an AND and a bit count per word. Pairs
    run in parallel.
    """
    use_threads(len(masks_a))
    return _window_pair_counts(_window_table(windows_a), windows_a.words, np.asarray(masks_a, dtype=np.int64),
                               _window_table(windows_b), windows_b.words, np.asarray(masks_b, dtype=np.int64))


def _window_table(windows: _Windows) -> np.ndarray:
    """Per mask: first and last line + 1, first and last bit + 1 of its box, first line and word kept, words per line, first word."""
    boxes = windows.boxes
    lines, bits = (boxes[:, 2:], boxes[:, :2]) if windows.column_major else (boxes[:, :2], boxes[:, 2:])
    return np.ascontiguousarray(np.column_stack([lines, bits, windows.line0, windows.word0, windows.stride,
                                                 windows.offsets]), dtype=np.int64)


@jit
def _bit_count(word: np.uint64) -> int:
    """Set bits of a 64-bit word (the SWAR count, which LLVM turns into one instruction where there is one)."""
    word = word - ((word >> np.uint64(1)) & np.uint64(0x5555555555555555))
    word = (word & np.uint64(0x3333333333333333)) + ((word >> np.uint64(2)) & np.uint64(0x3333333333333333))
    word = (word + (word >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((word * np.uint64(0x0101010101010101)) >> np.uint64(56))


@jit
def _shared_window_pixels(table_a: np.ndarray, words_a: np.ndarray, i: int,
                          table_b: np.ndarray, words_b: np.ndarray, j: int) -> int:
    line0, line1 = max(table_a[i, 0], table_b[j, 0]), min(table_a[i, 1], table_b[j, 1])
    bit0, bit1 = max(table_a[i, 2], table_b[j, 2]), min(table_a[i, 3], table_b[j, 3])
    if line1 <= line0 or bit1 <= bit0:
        return 0
    word0, word1 = bit0 // WORD_BITS, -(-bit1 // WORD_BITS)
    shared = 0
    for line in range(line0, line1):
        at_a = table_a[i, 7] + (line - table_a[i, 4]) * table_a[i, 6] + word0 - table_a[i, 5]
        at_b = table_b[j, 7] + (line - table_b[j, 4]) * table_b[j, 6] + word0 - table_b[j, 5]
        for word in range(word1 - word0):
            shared += _bit_count(words_a[at_a + word] & words_b[at_b + word])
    return shared


@jit(parallel=True)
def _window_pair_counts(table_a: np.ndarray, words_a: np.ndarray, masks_a: np.ndarray,
                        table_b: np.ndarray, words_b: np.ndarray, masks_b: np.ndarray) -> np.ndarray:
    counts = np.empty(masks_a.shape[0], dtype=np.int64)
    if counts.shape[0] < PARALLEL_MIN:
        for k in range(counts.shape[0]):
            counts[k] = _shared_window_pixels(table_a, words_a, masks_a[k], table_b, words_b, masks_b[k])
    else:
        for k in prange(counts.shape[0]):
            counts[k] = _shared_window_pixels(table_a, words_a, masks_a[k], table_b, words_b, masks_b[k])
    return counts


def _touched(low: np.ndarray, high: np.ndarray, box_low: np.ndarray, box_high: np.ndarray,
             cells: int) -> tuple[np.ndarray, np.ndarray]:
    """The grid lines ``[start, stop)`` whose cells meet ``(low, high)`` and lie in the mask's box (and the grid)."""
    start = np.clip(np.floor(low), 0, cells)
    stop = np.clip(np.ceil(high), start, cells)
    start, stop = np.maximum(start, box_low), np.minimum(stop, box_high)
    return start.astype(np.int64), np.maximum(stop, start).astype(np.int64)


def _covered_pixels(a: Mask, store, geometry: np.ndarray, masks: np.ndarray, origin: np.ndarray, row0: np.ndarray,
                    col0: np.ndarray, heights: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """Sum of each polygon's exact coverage over its mask's true pixels, for a chunk of pairs (windows given)."""
    edges = store.edges
    edge, canvas = ragged_arange(edges.offsets[geometry], edges.offsets[geometry + 1])
    # Subtract the origin first, then the integer window offset: the offset adds no rounding of its own.
    shift_x, shift_y = origin[canvas, 0], origin[canvas, 1]
    window = Edges((edges.x0[edge] - shift_x) - col0[canvas], (edges.y0[edge] - shift_y) - row0[canvas],
                   (edges.x1[edge] - shift_x) - col0[canvas], (edges.y1[edge] - shift_y) - row0[canvas],
                   -edges.weight_sign[edge], canvas)  # coverage weights: -1 for rings that add area counter-clockwise
    coverage, row_offsets = rasterize_canvases(window, heights, widths)
    result = np.zeros(len(heights))
    # Large windows read their pixels as a slice (of the dense pixels, or decoded from the runs of
    # that window only); the many small ones read them all at once from the packed words.
    large = heights * widths >= LARGE_WINDOW
    for k in np.flatnonzero(large):
        rows = slice(int(row0[k]), int(row0[k] + heights[k]))
        cols = slice(int(col0[k]), int(col0[k] + widths[k]))
        block = coverage[row_offsets[k]:row_offsets[k] + heights[k], :widths[k]]
        result[k] = float(np.sum(block, where=a._store.window(int(masks[k]), rows, cols)))
    small = np.flatnonzero(~large)
    if small.size:
        row_at, owner = ragged_arange(row_offsets[small], row_offsets[small] + heights[small])
        row_canvas = small[owner]
        row_in_window = row_at - row_offsets[row_canvas]
        column = np.arange(coverage.shape[1])
        inside = column < widths[row_canvas][:, None]
        cell_canvas = np.broadcast_to(row_canvas[:, None], inside.shape)[inside]
        grid_rows = np.broadcast_to((row0[row_canvas] + row_in_window)[:, None], inside.shape)[inside]
        grid_cols = (col0[row_canvas][:, None] + column)[inside]
        true = a._store.windows().pixels(masks[cell_canvas], grid_rows, grid_cols)
        # bincount sums each pair's cells in order: the same bits whatever else is in the chunk.
        sums = np.bincount(cell_canvas, weights=np.where(true, coverage[row_at][inside], 0.0), minlength=len(heights))
        result[small] = sums[small]
    return result


def _steps(sizes: np.ndarray, budget: int) -> list[slice]:
    """Consecutive slices of the items, each of at most `budget` in total (or of a single larger item)."""
    ends = np.cumsum(sizes)
    steps, first = [], 0
    while first < len(sizes):
        before = ends[first - 1] if first else 0
        stop = max(first + 1, int(np.searchsorted(ends, before + budget, side="right")))
        steps.append(slice(first, stop))
        first = stop
    return steps


def _overlap_on_offset_grids(data_a: np.ndarray, origin_a: np.ndarray, data_b: np.ndarray,
                             origin_b: np.ndarray) -> float:
    """Shared area of two masks whose grids are offset by any amount.

    With ``origin_b - origin_a = k + f`` (integer part k, fraction f per axis), a pixel of B
    overlaps the pixels of A at offsets k and k + 1 with widths ``1 - f`` and ``f``: the shared
    area is the sum of four shifted pixel counts, weighted by the products of those widths.
    """
    offset = origin_b - origin_a
    whole = np.floor(offset)
    fraction = offset - whole
    total = 0.0
    for step_x, weight_x in ((0, 1 - fraction[0]), (1, fraction[0])):
        for step_y, weight_y in ((0, 1 - fraction[1]), (1, fraction[1])):
            if weight_x * weight_y > 0:
                shift = (int(whole[1]) + step_y, int(whole[0]) + step_x)
                total += weight_x * weight_y * _shifted_count(data_a, data_b, shift)
    return total


def _shifted_count(data_a: np.ndarray, data_b: np.ndarray, shift: tuple[int, int]) -> int:
    """Number of (r, c) with ``data_b[r, c]`` and ``data_a[r + shift_r, c + shift_c]`` both true."""
    window_a, window_b = [], []
    for axis, offset in enumerate(shift):
        size_a, size_b = data_a.shape[axis], data_b.shape[axis]
        low, high = max(0, -offset), min(size_b, size_a - offset)
        if low >= high:
            return 0
        window_b.append(slice(low, high))
        window_a.append(slice(low + offset, high + offset))
    return int(np.count_nonzero(data_a[tuple(window_a)] & data_b[tuple(window_b)]))


def _mask_box_pairs(a: Mask, b: Box, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Area of masks inside boxes: ``row_weights @ mask @ col_weights`` for each pair."""
    height, width = a._data.shape[-2:]
    origins, boxes = a._origin[index_a], b._xyxy[index_b]
    x0, y0 = origins[:, :1], origins[:, 1:]
    x1, y1, x2, y2 = (boxes[:, i : i + 1] for i in range(4))
    columns, rows = np.arange(width), np.arange(height)
    result = np.empty(len(index_a))
    step = max(1, PIXEL_CHUNK // max(1, height * width))
    for start in range(0, len(index_a), step):
        part = slice(start, start + step)
        col_weights = overlap_length(x0[part] + columns, x0[part] + columns + 1, x1[part], x2[part])
        row_weights = overlap_length(y0[part] + rows, y0[part] + rows + 1, y1[part], y2[part])
        pixels = a._data[index_a[part]].astype(np.float64)
        result[part] = np.einsum("kh,khw,kw->k", row_weights, pixels, col_weights)
    return result


def _mask_polygon_pairs(a: Mask, b: Polygon, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Area of masks inside polygons: each polygon's exact pixel coverage summed over true pixels.

    All pairs are rasterized together (`coverage.rasterize_canvases`), each on the window where
    its polygon's bounds meet its mask's bounding box, from the polygon's edge arrays; the
    pixels are read from the masks' packed words (masks from COCO runs are never decoded).
    """
    store, windows = b._store, a._store.windows()
    geometry, masks, origin = b._index[index_b], a._index[index_a], a._origin[index_a]
    height, width = a.grid_shape
    box = windows.boxes[masks]  # first row, last row + 1, first column, last column + 1
    bounds = store.bounds[geometry]
    rows = _touched(bounds[:, 1] - origin[:, 1], bounds[:, 3] - origin[:, 1], box[:, 0], box[:, 1], height)
    cols = _touched(bounds[:, 0] - origin[:, 0], bounds[:, 2] - origin[:, 0], box[:, 2], box[:, 3], width)
    heights, widths = rows[1] - rows[0], cols[1] - cols[0]
    result = np.zeros(len(index_a))
    pairs = np.flatnonzero((heights > 0) & (widths > 0))
    pairs = pairs[np.argsort(widths[pairs], kind="stable")]  # similar widths together: little padding
    for step in _steps(heights[pairs] * widths[pairs], PIXEL_CHUNK >> 5):
        chosen = pairs[step]
        result[chosen] = _covered_pixels(a, store, geometry[chosen], masks[chosen], origin[chosen],
                                         rows[0][chosen], cols[0][chosen], heights[chosen], widths[chosen])
    # Each pixel's coverage is at most 1, so only the polygon's side can be overshot, by rounding.
    return np.minimum(result, b._store.area[b._index[index_b]])


_pruned_mask_pairs = pruned(_mask_pairs)
_pruned_mask_box_pairs = pruned(_mask_box_pairs)
_pruned_mask_polygon_pairs = pruned(_mask_polygon_pairs)
