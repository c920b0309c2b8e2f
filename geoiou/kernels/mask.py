"""Exact kernels for masks under the unit-square pixel model.

Mask×Mask counts coinciding pixels: on one grid by ANDing the packed windows of the two masks over
the overlap of their bounding boxes (see `geoiou.regions.mask`), on offset grids with fractional
weights from four shifted counts. Mask×Box and Mask×Polygon weight each true pixel by the exact
area of the vector region inside it. Nothing is sampled at pixel centres.
"""

from __future__ import annotations

import numpy as np

from geoiou.dispatch import register
from geoiou.kernels.box import overlap_length
from geoiou.regions.coverage import Edges, rasterize_canvases
from geoiou.regions.ragged import ragged_arange
from geoiou.kernels.pairs import pruned
from geoiou.regions import Box, Mask, Polygon
from geoiou.regions.mask import WORD_BITS, _Windows
from geoiou import rle as coco_rle
from geoiou.rle import RunIndex, Runs

__all__ = ["mask_box_intersection_area", "mask_intersection_area", "mask_polygon_intersection_area"]

#: Pixels gathered at once by the batched kernels (bounds the working memory).
PIXEL_CHUNK = 1 << 25

#: Windows of at least this many pixels read their mask pixels as one slice (see `_covered_pixels`).
LARGE_WINDOW = 1 << 14

#: Runs looked up per step of the run kernel (bounds its temporaries).
RUN_CHUNK = 1 << 17

#: Packed words compared per step of the Mask×Mask kernel: bounds its temporaries (a few arrays
#: of this many 8-byte values) without paying NumPy's per-call cost too often.
WORD_CHUNK = 1 << 16


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
    runs_a, runs_b = a._store.run_index, b._store.run_index
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


def run_overlap_counts(index_a: RunIndex, masks_a: np.ndarray, index_b: RunIndex, masks_b: np.ndarray) -> np.ndarray:
    """Pixels true in both masks ``masks_a[k]`` of `index_a` and ``masks_b[k]`` of `index_b`, counted from the runs.

    Runs are column-major positions on grids of one height, so a position means the same pixel
    in both. The batch with fewer runs is looked up: with ``F(x)`` its mask's true pixels before
    position x (one interpolation of its running count, small enough to stay in cache), each run
    ``[s, e)`` of the other mask that lies within the looked-up mask's span shares ``F(e) - F(s)``
    pixels. The work follows the runs, never the pixels, as pycocotools' ``rleIou`` does, for all
    pairs at once; the other batch is never indexed.

    Examples
    --------
    >>> from geoiou import rle
    >>> runs = rle.RunIndex(rle.to_runs([{"size": [3, 3], "counts": [1, 3, 5]}, {"size": [3, 3], "counts": [2, 4, 3]}]))
    >>> run_overlap_counts(runs, np.array([0, 0]), runs, np.array([1, 0]))  # pixels 2, 3 shared; 3 with itself
    array([2, 3])
    """
    target, masks_t, query, masks_q = index_b, masks_b, index_a.runs, masks_a
    if len(index_a.runs.starts) < len(index_b.runs.starts):
        target, masks_t, query, masks_q = index_a, masks_a, index_b.runs, masks_b
    if target.keyable:
        return _shared_pixels(target, masks_t, query, masks_q)
    # Keys of so many pixels would pass 2**53: index the masks the pairs ask for, a group at a time.
    counts = np.zeros(len(masks_a), dtype=np.int64)
    wanted, renumbered = np.unique(masks_t, return_inverse=True)
    group = max(1, coco_rle.KEY_LIMIT // target.stride - 1)
    for start in range(0, len(wanted), group):
        pairs = np.flatnonzero((renumbered >= start) & (renumbered < start + group))
        part = RunIndex(target.runs.take(wanted[start:start + group]))
        counts[pairs] = _shared_pixels(part, renumbered[pairs] - start, query, masks_q[pairs])
    return counts


def _shared_pixels(target: RunIndex, masks_t: np.ndarray, query: Runs, masks_q: np.ndarray) -> np.ndarray:
    """`run_overlap_counts` with the looked-up side chosen: its masks `masks_t`, the other's `masks_q`."""
    low, high = query.overlapping(masks_q, *target.runs.spans(masks_t))
    counts = np.zeros(len(masks_t), dtype=np.int64)
    for step in _steps(high - low, RUN_CHUNK):
        run, pair = ragged_arange(low[step], high[step])
        shared = target.pixels_between(masks_t[step][pair], query.starts[run], query.stops[run])
        counts[step] = np.bincount(pair, weights=shared, minlength=len(masks_t[step])).astype(np.int64)
    return counts


def _window_overlap_counts(windows_a: _Windows, masks_a: np.ndarray,
                           windows_b: _Windows, masks_b: np.ndarray) -> np.ndarray:
    """Pixels true in both masks ``masks_a[k]`` of `windows_a` and ``masks_b[k]`` of `windows_b`.

    Both windows are on one grid and in one orientation. Only the overlap of the two bounding
    boxes is compared, line by line, over the words that cover its bits: both windows hold it,
    aligned to the same words of each line. Pairs go at most `WORD_CHUNK` words per step.
    """
    line_lo_a, line_hi_a, bit_lo_a, bit_hi_a = windows_a.spans(masks_a)
    line_lo_b, line_hi_b, bit_lo_b, bit_hi_b = windows_b.spans(masks_b)
    line0, line1 = np.maximum(line_lo_a, line_lo_b), np.minimum(line_hi_a, line_hi_b)
    bit0, bit1 = np.maximum(bit_lo_a, bit_lo_b), np.minimum(bit_hi_a, bit_hi_b)
    overlap = (line1 > line0) & (bit1 > bit0)
    n_lines = np.where(overlap, line1 - line0, 0)
    word0 = bit0 // WORD_BITS
    n_words = np.where(overlap, -(-bit1 // WORD_BITS) - word0, 0)
    first_a, stride_a = _first_words(windows_a, masks_a, line0, word0)
    first_b, stride_b = _first_words(windows_b, masks_b, line0, word0)
    counts = np.zeros(len(masks_a), dtype=np.int64)
    for width in np.unique(n_words[n_lines > 0]):
        # Pairs with as many words per line go together: each word is then one 1-D gather.
        pairs = np.flatnonzero((n_words == width) & (n_lines > 0))
        for step in _steps(n_lines[pairs] * width, WORD_CHUNK):
            chosen = pairs[step]
            counts[chosen] = _count_shared_words(windows_a.words, first_a[chosen], stride_a[chosen], windows_b.words,
                                                 first_b[chosen], stride_b[chosen], n_lines[chosen], int(width))
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


def _first_words(windows: _Windows, masks: np.ndarray, line0: np.ndarray,
                 word0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Position in ``windows.words`` of word `word0` of line `line0` of each mask, and its words per line."""
    stride = windows.stride[masks]
    first = windows.offsets[masks] + (line0 - windows.line0[masks]) * stride + word0 - windows.word0[masks]
    return first, stride


def _count_shared_words(words_a: np.ndarray, first_a: np.ndarray, stride_a: np.ndarray, words_b: np.ndarray,
                        first_b: np.ndarray, stride_b: np.ndarray, n_lines: np.ndarray, width: int) -> np.ndarray:
    """Shared true pixels of each pair: `n_lines` (> 0) lines of `width` words from each window, ANDed and counted."""
    at_a, at_b = _line_starts(first_a, stride_a, n_lines), _line_starts(first_b, stride_b, n_lines)
    shared = np.bitwise_count(words_a[at_a] & words_b[at_b]).astype(np.int64)
    for word in range(1, width):  # one 1-D gather per word of the lines: much faster than a 2-D fancy index
        shared += np.bitwise_count(words_a[at_a + word] & words_b[at_b + word])
    return np.add.reduceat(shared, np.cumsum(n_lines) - n_lines)


def _line_starts(first: np.ndarray, stride: np.ndarray, n_lines: np.ndarray) -> np.ndarray:
    """``first[p] + k·stride[p]`` for ``k < n_lines[p]`` (all > 0), pair after pair: a running sum of steps.

    The step is the stride, except at the first line of a pair, where it jumps there from the
    last line of the pair before.
    """
    steps = np.repeat(stride, n_lines)
    last = first + (n_lines - 1) * stride
    steps[np.cumsum(n_lines) - n_lines] = first - np.concatenate([[0], last[:-1]])
    return np.cumsum(steps)


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
