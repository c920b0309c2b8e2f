"""Exact kernels for masks under the unit-square pixel model.

Mask×Mask counts coinciding pixels: on one grid by ANDing the packed windows of the two masks over
the overlap of their bounding boxes (see `geoiou.regions.mask`), on offset grids with fractional
weights from four shifted counts. Mask×Box and Mask×Polygon weight each true pixel by the exact
area of the vector region inside it. Nothing is sampled at pixel centres.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from geoiou._compiled import in_parallel, jit, prange
from geoiou.dispatch import register
from geoiou.kernels.pairs import pruned
from geoiou.regions import Box, Mask, Polygon
from geoiou.regions.mask import WORD_BITS, _Windows
from geoiou.rle import Runs

__all__ = ["mask_box_intersection_area", "mask_intersection_area", "mask_polygon_intersection_area"]

#: Pairs per iteration of a parallel loop (each runs the kernel's loop once).
PAIR_RUN = 64
#: The data of each loop: flat tuples (numba's parallel loops cannot take nested ones).
WindowPairs = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
WindowBoxes = tuple[np.ndarray, np.ndarray, bool, np.ndarray, np.ndarray, np.ndarray]
PolygonWindows = tuple[Any, ...]
#: Nanoseconds on one thread for a pair of masks (runs walked, or windows ANDed) and for a pair whose
#: pixels are weighted one by one (by a box or a polygon's coverage), for `in_parallel`.
PAIR_COST_NS = 300.0
PIXEL_PAIR_COST_NS = 3000.0
#: Nanoseconds on one thread for a polygon's coverage and its masks' runs (a group of pairs), for `in_parallel`:
#: about 23 µs measured on the COCO benchmark's polygons and their 11 masks each.
RUN_GROUP_COST_NS = 20000.0


@register(Mask, Mask)
def mask_intersection_area(a: Mask, b: Mask, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Area shared by the masks of each pair; grids may differ in shape and origin."""
    return _pruned_mask_pairs(a, b, index_a, index_b)


@register(Mask, Box)
def mask_box_intersection_area(a: Mask, b: Box, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Area of each mask inside each box: the box covers pixel (r, c) by row weight × column weight."""
    return _pruned_mask_box_pairs(a, b, index_a, index_b)


@register(Mask, Polygon)
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
    by_runs = np.zeros(len(index_a), dtype=bool)
    if runs_a is not None and runs_b is not None:
        # Both held as COCO runs, each pair of masks of one height: positions mean the same pixels in both.
        by_runs = same_grid & (runs_a.sizes[a._index[index_a], 0] == runs_b.sizes[b._index[index_b], 0])
        if by_runs.any():  # counted from the runs: no pixels or words built
            result[by_runs] = run_overlap_counts(runs_a, a._index[index_a[by_runs]], runs_b, b._index[index_b[by_runs]])
    by_windows = same_grid & ~by_runs
    if by_windows.any():
        # Masks from RLE are packed along columns, dense ones along rows: a mixed pair uses rows.
        rows = not (a._store.column_major and b._store.column_major)
        result[by_windows] = _window_overlap_counts(
            a._store.windows(rows), a._index[index_a[by_windows]], b._store.windows(rows), b._index[index_b[by_windows]]
        )
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
    data = (runs_a.starts, runs_a.stops, runs_a.offsets, masks_a, runs_b.starts, runs_b.stops, runs_b.offsets, masks_b)
    return _run(_run_pair_counts, _run_pair_counts_parallel, data, np.empty(len(masks_a), dtype=np.int64), PAIR_COST_NS)


def _run(
    serial: Callable[..., None], parallel: Callable[..., None], data: tuple[Any, ...], out: np.ndarray, cost_ns: float
) -> np.ndarray:
    """Fill `out`, one value per pair, by a kernel's loop: ``serial(data, out, begin, end)`` on the calling
    thread, or ``parallel(data, out, run)`` over runs of pairs on every core (`in_parallel`)."""
    if in_parallel(len(out), cost_ns):
        parallel(data, out, PAIR_RUN)
    else:
        serial(data, out, 0, len(out))
    return out


@jit(inline=True)
def _shared_run_pixels(
    starts_a: np.ndarray,
    stops_a: np.ndarray,
    first_a: int,
    last_a: int,
    starts_b: np.ndarray,
    stops_b: np.ndarray,
    first_b: int,
    last_b: int,
) -> int:
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


@jit
def _run_pair_counts(data: tuple[np.ndarray, ...], counts: np.ndarray, begin: int, end: int) -> None:
    starts_a, stops_a, offsets_a, masks_a, starts_b, stops_b, offsets_b, masks_b = data
    for k in range(begin, end):
        counts[k] = _shared_run_pixels(
            starts_a,
            stops_a,
            offsets_a[masks_a[k]],
            offsets_a[masks_a[k] + 1],
            starts_b,
            stops_b,
            offsets_b[masks_b[k]],
            offsets_b[masks_b[k] + 1],
        )


@jit(parallel=True)
def _run_pair_counts_parallel(data: tuple[np.ndarray, ...], counts: np.ndarray, run: int) -> None:
    size = counts.shape[0]
    for step in prange((size + run - 1) // run):
        _run_pair_counts(data, counts, step * run, min(size, (step + 1) * run))


def _window_overlap_counts(
    windows_a: _Windows, masks_a: np.ndarray, windows_b: _Windows, masks_b: np.ndarray
) -> np.ndarray:
    """Pixels true in both masks ``masks_a[k]`` of `windows_a` and ``masks_b[k]`` of `windows_b`.

    Both windows are on one grid and in one orientation. Only the overlap of the two bounding
    boxes is compared, line by line, over the words that cover its bits: both windows hold it,
    aligned to the same words of each line, so a pair is an AND and a bit count per word. Pairs
    run in parallel.
    """
    data = (
        _window_table(windows_a),
        windows_a.words,
        np.asarray(masks_a, dtype=np.int64),
        _window_table(windows_b),
        windows_b.words,
        np.asarray(masks_b, dtype=np.int64),
    )
    out = np.empty(len(masks_a), dtype=np.int64)
    return _run(_window_pair_counts, _window_pair_counts_parallel, data, out, PAIR_COST_NS)


def _window_table(windows: _Windows) -> np.ndarray:
    """Per mask: its box's first and last line + 1 and first and last bit + 1, then the first line and word
    kept, the words per line and the first word. Made once per windows object and kept in it, as its own
    derived values are (the windows are immutable)."""
    table: np.ndarray | None = windows.__dict__.get(_TABLE)
    if table is None:
        boxes = windows.boxes
        lines, bits = (boxes[:, 2:], boxes[:, :2]) if windows.column_major else (boxes[:, :2], boxes[:, 2:])
        table = np.ascontiguousarray(
            np.column_stack([lines, bits, windows.line0, windows.word0, windows.stride, windows.offsets]),
            dtype=np.int64,
        )
        windows.__dict__[_TABLE] = table
    return table


#: The key under which `_window_table` keeps its table in a windows object.
_TABLE = "kernel_table"


@jit
def _bit_count(word: np.uint64) -> int:
    """Set bits of a 64-bit word (the SWAR count, which LLVM turns into one instruction where there is one)."""
    word = word - ((word >> np.uint64(1)) & np.uint64(0x5555555555555555))
    word = (word & np.uint64(0x3333333333333333)) + ((word >> np.uint64(2)) & np.uint64(0x3333333333333333))
    word = (word + (word >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((word * np.uint64(0x0101010101010101)) >> np.uint64(56))


@jit(inline=True)
def _shared_window_pixels(
    table_a: np.ndarray, words_a: np.ndarray, i: int, table_b: np.ndarray, words_b: np.ndarray, j: int
) -> int:
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


@jit
def _window_pair_counts(data: WindowPairs, counts: np.ndarray, begin: int, end: int) -> None:
    table_a, words_a, masks_a, table_b, words_b, masks_b = data
    for k in range(begin, end):
        counts[k] = _shared_window_pixels(table_a, words_a, masks_a[k], table_b, words_b, masks_b[k])


@jit(parallel=True)
def _window_pair_counts_parallel(data: WindowPairs, counts: np.ndarray, run: int) -> None:
    size = counts.shape[0]
    for step in prange((size + run - 1) // run):
        _window_pair_counts(data, counts, step * run, min(size, (step + 1) * run))


def _touched(
    low: np.ndarray, high: np.ndarray, box_low: np.ndarray, box_high: np.ndarray, cells: int
) -> tuple[np.ndarray, np.ndarray]:
    """The grid lines ``[start, stop)`` whose cells meet ``(low, high)`` and lie in the mask's box (and the grid).

    NaN bounds (an empty polygon) meet no cell."""
    empty = ~(low <= high)
    low, high = np.where(empty, 0.0, low), np.where(empty, 0.0, high)
    start = np.clip(np.floor(low), 0, cells)
    stop = np.clip(np.ceil(high), start, cells)
    start, stop = np.maximum(start, box_low), np.minimum(stop, box_high)
    return start.astype(np.int64), np.maximum(stop, start).astype(np.int64)


def _overlap_on_offset_grids(
    data_a: np.ndarray, origin_a: np.ndarray, data_b: np.ndarray, origin_b: np.ndarray
) -> float:
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
    """Area of masks inside boxes: each true pixel weighted by the box's share of its row and of its column.

    Read from the masks' packed windows pair by pair in compiled code (masks held as COCO runs are
    never decoded), pairs in parallel: only the pixels of the mask's bounding box that the box
    touches are visited.
    """
    windows = a._store.windows()
    data = (
        _window_table(windows),
        windows.words,
        windows.column_major,
        np.ascontiguousarray(a._index[index_a], dtype=np.int64),
        np.ascontiguousarray(a._origin[index_a], dtype=np.float64),
        np.ascontiguousarray(b._xyxy[index_b], dtype=np.float64),
    )
    return _run(_window_box_areas, _window_box_areas_parallel, data, np.empty(len(index_a)), PIXEL_PAIR_COST_NS)


@jit
def _cell_share(cell: int, origin: float, low: float, high: float) -> float:
    """Length of ``[origin + cell, origin + cell + 1) ∩ [low, high)``, 0 when they do not meet."""
    return max(min(origin + cell + 1.0, high) - max(origin + cell, low), 0.0)


@jit
def _touched_cells(origin: float, low: float, high: float, first: int, stop: int) -> tuple[int, int]:
    """The cells ``[start, end)`` of ``[first, stop)`` that ``[low, high)`` meets, on a grid starting at `origin`."""
    # Clamped in floats first: a box's bounds may lie far beyond any integer a cell index can hold.
    start = int(min(max(float(first), np.floor(low - origin)), float(stop)))
    end = int(max(min(float(stop), np.ceil(high - origin)), float(start)))
    return start, end


@jit(inline=True)
def _window_box_area(
    table: np.ndarray, words: np.ndarray, column_major: bool, mask: int, origin: np.ndarray, box: np.ndarray
) -> float:
    # Lines are rows (bits are columns), or columns when the window is column-major.
    line_axis, bit_axis = (0, 1) if column_major else (1, 0)
    line0, line1 = _touched_cells(origin[line_axis], box[line_axis], box[line_axis + 2], table[mask, 0], table[mask, 1])
    bit0, bit1 = _touched_cells(origin[bit_axis], box[bit_axis], box[bit_axis + 2], table[mask, 2], table[mask, 3])
    area = 0.0
    for line in range(line0, line1):
        line_weight = _cell_share(line, origin[line_axis], box[line_axis], box[line_axis + 2])
        first_word = table[mask, 7] + (line - table[mask, 4]) * table[mask, 6] - table[mask, 5]
        covered = 0.0
        for bit in range(bit0, bit1):
            if (words[first_word + bit // WORD_BITS] >> np.uint64(bit % WORD_BITS)) & np.uint64(1):
                covered += _cell_share(bit, origin[bit_axis], box[bit_axis], box[bit_axis + 2])
        area += line_weight * covered
    return area


@jit
def _window_box_areas(data: WindowBoxes, areas: np.ndarray, begin: int, end: int) -> None:
    table, words, column_major, masks, origins, boxes = data
    for k in range(begin, end):
        areas[k] = _window_box_area(table, words, column_major, masks[k], origins[k], boxes[k])


@jit(parallel=True)
def _window_box_areas_parallel(data: WindowBoxes, areas: np.ndarray, run: int) -> None:
    size = areas.shape[0]
    for step in prange((size + run - 1) // run):
        _window_box_areas(data, areas, step * run, min(size, (step + 1) * run))


def _mask_polygon_pairs(a: Mask, b: Polygon, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Area of masks inside polygons: each polygon's exact pixel coverage summed over the mask's true pixels.

    The coverage is rasterized from the polygon's edge arrays by signed-area accumulation (exact to
    rounding: a pixel half covered counts half). Masks held as COCO runs are read along their runs
    (`_runs_in_polygons`), dense masks against their packed windows (`_windows_in_polygons`).
    """
    geometry, masks, origin = b._index[index_b], a._index[index_a], a._origin[index_a]
    store = b._store
    if a._store.runs is not None:
        covered = _runs_in_polygons(a, store, geometry, masks, origin)
    else:
        covered = _windows_in_polygons(a, store, geometry, masks, origin)
    # Each pixel's coverage is at most 1, so only the polygon's side can be overshot, by rounding.
    result: np.ndarray = np.minimum(covered, store.area[geometry])
    return result


def _edge_arrays(store: Any) -> tuple[np.ndarray, ...]:
    edges = store.edges
    return edges.x0, edges.y0, edges.x1, edges.y1, edges.weight_sign.astype(np.float64), edges.offsets


def _windows_in_polygons(
    a: Mask, store: Any, geometry: np.ndarray, masks: np.ndarray, origin: np.ndarray
) -> np.ndarray:
    """Each pair rasterized on the window where its polygon's bounds meet its mask's box, read pixel by pixel
    against the mask's packed window. Pairs in parallel, each on its own window."""
    height, width = a.grid_shape
    box = a._store.boxes[masks]  # first row, last row + 1, first column, last column + 1
    bounds = store.bounds[geometry]
    rows = _touched(bounds[:, 1] - origin[:, 1], bounds[:, 3] - origin[:, 1], box[:, 0], box[:, 1], height)
    cols = _touched(bounds[:, 0] - origin[:, 0], bounds[:, 2] - origin[:, 0], box[:, 2], box[:, 3], width)
    windows = a._store.windows()
    data = (
        *_edge_arrays(store),
        np.ascontiguousarray(geometry, dtype=np.int64),
        np.ascontiguousarray(origin, dtype=np.float64),
        np.ascontiguousarray(np.column_stack([rows[0], cols[0], rows[1] - rows[0], cols[1] - cols[0]]), np.int64),
        np.ascontiguousarray(masks, dtype=np.int64),
        _window_table(windows),
        windows.words,
        windows.column_major,
    )
    return _run(_polygon_window_areas, _polygon_window_areas_parallel, data, np.empty(len(masks)), PIXEL_PAIR_COST_NS)


def _runs_in_polygons(a: Mask, store: Any, geometry: np.ndarray, masks: np.ndarray, origin: np.ndarray) -> np.ndarray:
    """Pairs grouped by polygon (and mask origin): each polygon's coverage rasterized once, on the window of its
    bounds within the grid, and read along the runs of each of its masks. Groups in parallel.

    The window and so every bit of a pair's result depend only on the polygon, the origin and the
    grid: not on the other pairs of the call, nor on the number of threads.
    """
    runs = a._store.runs
    assert runs is not None
    height, width = a.grid_shape
    order = np.lexsort((origin[:, 1], origin[:, 0], geometry)).astype(np.int64)
    same = (geometry[order][1:] == geometry[order][:-1]) & (origin[order][1:] == origin[order][:-1]).all(axis=1)
    group_start = np.concatenate([[0], np.flatnonzero(~same) + 1, [len(order)]]).astype(np.int64)
    first = order[group_start[:-1]]
    bounds, corner = store.bounds[geometry[first]], origin[first]
    everywhere = np.zeros(len(first), dtype=np.int64)
    rows = _touched(bounds[:, 1] - corner[:, 1], bounds[:, 3] - corner[:, 1], everywhere, everywhere + height, height)
    cols = _touched(bounds[:, 0] - corner[:, 0], bounds[:, 2] - corner[:, 0], everywhere, everywhere + width, width)
    data = (
        *_edge_arrays(store),
        np.ascontiguousarray(geometry[first], dtype=np.int64),
        np.ascontiguousarray(corner, dtype=np.float64),
        np.ascontiguousarray(np.column_stack([rows[0], cols[0], rows[1] - rows[0], cols[1] - cols[0]]), np.int64),
        group_start,
        order,
        np.ascontiguousarray(masks, dtype=np.int64),
        runs.starts,
        runs.stops,
        runs.offsets,
        np.maximum(runs.sizes[:, 0], 1),
    )
    areas = np.empty(len(masks))
    groups = len(group_start) - 1
    if in_parallel(groups, RUN_GROUP_COST_NS):
        _polygon_run_groups_parallel(data, areas, PAIR_RUN)
    else:
        _polygon_run_groups(data, areas, 0, groups)
    return areas


@jit
def _add_row_piece(acc: np.ndarray, row: int, x0: float, x1: float, dy: float, width: int) -> None:
    """Add a piece of edge inside row band `row`, from x0 to x1 carrying `dy`, to the row's accumulation.

    A cell receives the share of `dy` crossing it times the part of the cell right of the piece;
    the next cell the rest, so that a running sum along the row gives each cell's coverage. The
    part left of the window covers the whole row (added at column 0); the part right of it, nothing.
    """
    left, right = min(x0, x1), max(x0, x1)
    span = right - left
    if span == 0.0:
        cell = int(min(max(np.floor(left), -1.0), float(width)))
        if cell < 0:
            acc[row, 0] += dy
        elif cell < width:
            inside = dy * (cell + 1.0 - left)
            acc[row, cell] += inside
            acc[row, cell + 1] += dy - inside
        return
    if left < 0.0:
        acc[row, 0] += dy * ((min(right, 0.0) - left) / span)
    first = int(min(max(np.floor(left), 0.0), float(width)))
    stop = int(min(max(np.ceil(right), 0.0), float(width)))
    for cell in range(first, stop):
        low, high = max(left, float(cell)), min(right, cell + 1.0)
        if high <= low:
            continue
        part = dy * ((high - low) / span)
        inside = part * (cell + 1.0 - 0.5 * (low + high))
        acc[row, cell] += inside
        acc[row, cell + 1] += part - inside


@jit
def _add_edge(acc: np.ndarray, ax: float, ay: float, bx: float, by: float, weight: float) -> None:
    """Add one directed edge (window coordinates) to the accumulation, row band by row band."""
    if ay == by:
        return
    height, width = acc.shape[0], acc.shape[1] - 1
    low, high = min(ay, by), max(ay, by)
    direction = weight if by > ay else -weight
    slope = (bx - ax) / (by - ay)
    first = int(min(max(np.floor(low), 0.0), float(height)))
    stop = int(min(max(np.ceil(high), 0.0), float(height)))
    for row in range(first, stop):
        y0, y1 = max(low, float(row)), min(high, row + 1.0)
        if y1 <= y0:
            continue
        _add_row_piece(acc, row, ax + (y0 - ay) * slope, ax + (y1 - ay) * slope, direction * (y1 - y0), width)


@jit
def _polygon_window_area(
    x0: np.ndarray,
    y0: np.ndarray,
    x1: np.ndarray,
    y1: np.ndarray,
    sign: np.ndarray,
    first_edge: int,
    stop_edge: int,
    origin: np.ndarray,
    window: np.ndarray,
    table: np.ndarray,
    words: np.ndarray,
    column_major: bool,
    mask: int,
) -> float:
    row0, col0, height, width = window[0], window[1], window[2], window[3]
    if height <= 0 or width <= 0:
        return 0.0
    acc = _coverage(x0, y0, x1, y1, sign, first_edge, stop_edge, origin, window, False)
    area = 0.0
    for row in range(height):
        coverage = 0.0
        for col in range(width):
            coverage += acc[row, col]
            line, bit = (col0 + col, row0 + row) if column_major else (row0 + row, col0 + col)
            at = table[mask, 7] + (line - table[mask, 4]) * table[mask, 6] + bit // WORD_BITS - table[mask, 5]
            if (words[at] >> np.uint64(bit % WORD_BITS)) & np.uint64(1):
                area += coverage
    return area


@jit
def _polygon_window_areas(data: PolygonWindows, areas: np.ndarray, begin: int, end: int) -> None:
    x0, y0, x1, y1, sign, edge_offsets, geometry, origins, windows, masks, table, words, column_major = data
    for k in range(begin, end):
        areas[k] = _polygon_window_area(
            x0,
            y0,
            x1,
            y1,
            sign,
            edge_offsets[geometry[k]],
            edge_offsets[geometry[k] + 1],
            origins[k],
            windows[k],
            table,
            words,
            column_major,
            masks[k],
        )


@jit(parallel=True)
def _polygon_window_areas_parallel(data: PolygonWindows, areas: np.ndarray, run: int) -> None:
    size = areas.shape[0]
    for step in prange((size + run - 1) // run):
        _polygon_window_areas(data, areas, step * run, min(size, (step + 1) * run))


@jit(inline=True)
def _coverage(
    x0: np.ndarray,
    y0: np.ndarray,
    x1: np.ndarray,
    y1: np.ndarray,
    sign: np.ndarray,
    first_edge: int,
    stop_edge: int,
    origin: np.ndarray,
    window: np.ndarray,
    along_columns: bool,
) -> np.ndarray:
    """The polygon's coverage accumulated on a window ``(row0, col0, height, width)``: a pixel's coverage is the
    running sum of its line's cells, ``(height, width + 1)`` along rows from the left, or ``(width, height + 1)``
    `along_columns` from the top.

    Along columns the plane is seen with x and y swapped, a mirror image: a ring's weight changes sign
    (along rows the weights are -1 for rings adding area counter-clockwise).
    """
    row0, col0, height, width = window[0], window[1], window[2], window[3]
    lines, cells = (width, height) if along_columns else (height, width)
    acc = np.zeros((max(lines, 0), max(cells, 0) + 1))
    for e in range(first_edge, stop_edge):
        # The origin first, then the integer window offset: the offset adds no rounding of its own.
        ax, ay = (x0[e] - origin[0]) - col0, (y0[e] - origin[1]) - row0
        bx, by = (x1[e] - origin[0]) - col0, (y1[e] - origin[1]) - row0
        if along_columns:
            _add_edge(acc, ay, ax, by, bx, sign[e])
        else:
            _add_edge(acc, ax, ay, bx, by, -sign[e])
    return acc


@jit(inline=True)
def _covered_run_pixels(
    acc: np.ndarray,
    window: np.ndarray,
    starts: np.ndarray,
    stops: np.ndarray,
    first_run: int,
    last_run: int,
    mask_height: int,
) -> float:
    """The coverage `acc` (`_coverage` along columns) summed over the pixels of a mask's runs within the window.

    Along a run's piece of a column the coverage changes only at the cells an edge touched: each
    stretch between two such cells adds its coverage times its length.
    """
    row0, col0, height, width = window[0], window[1], window[2], window[3]
    if height <= 0 or width <= 0:
        return 0.0
    # The runs' positions (column * mask_height + row) that can fall in the window.
    low, high = col0 * mask_height + row0, (col0 + width - 1) * mask_height + row0 + height
    r = first_run + np.searchsorted(stops[first_run:last_run], low, side="right")
    area = 0.0
    column, cell, coverage = -1, 0, 0.0  # the column walked, its next cell, the running sum before that cell
    while r < last_run and starts[r] < high:
        position, end = max(starts[r], low), min(stops[r], high)
        while position < end:  # one piece per column the run crosses
            image_column = position // mask_height
            row = position - image_column * mask_height
            piece_end = min(end, (image_column + 1) * mask_height)
            c = image_column - col0
            first, stop = max(row - row0, 0), min(row + (piece_end - position) - row0, height)
            position = piece_end
            if c < 0 or c >= width or first >= stop:
                continue
            if c != column:
                column, cell, coverage = c, 0, 0.0
            while cell < first:  # the cells above the piece
                coverage += acc[c, cell]
                cell += 1
            while cell < stop:
                coverage += acc[c, cell]  # the coverage of this pixel and of the untouched ones below it
                stretch_end = cell + 1
                while stretch_end < stop and acc[c, stretch_end] == 0.0:
                    stretch_end += 1
                area += coverage * (stretch_end - cell)
                cell = stretch_end
        r += 1
    return area


@jit
def _polygon_run_groups(data: PolygonWindows, areas: np.ndarray, begin: int, end: int) -> None:
    x0, y0, x1, y1, sign, edge_offsets, geometry, origins, windows, group_start, order, masks = data[:12]
    starts, stops, run_offsets, heights = data[12:]
    for g in range(begin, end):
        acc = _coverage(
            x0, y0, x1, y1, sign, edge_offsets[geometry[g]], edge_offsets[geometry[g] + 1], origins[g], windows[g], True
        )
        for k in range(group_start[g], group_start[g + 1]):
            pair = order[k]
            m = masks[pair]
            areas[pair] = _covered_run_pixels(
                acc, windows[g], starts, stops, run_offsets[m], run_offsets[m + 1], heights[m]
            )


@jit(parallel=True)
def _polygon_run_groups_parallel(data: PolygonWindows, areas: np.ndarray, run: int) -> None:
    groups = data[9].shape[0] - 1
    for step in prange((groups + run - 1) // run):  # each group writes only its own pairs' areas
        _polygon_run_groups(data, areas, step * run, min(groups, (step + 1) * run))


_pruned_mask_pairs = pruned(_mask_pairs)
_pruned_mask_box_pairs = pruned(_mask_box_pairs)
_pruned_mask_polygon_pairs = pruned(_mask_polygon_pairs)
