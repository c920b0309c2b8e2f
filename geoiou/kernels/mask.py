"""Exact kernels for masks under the unit-square pixel model, run by the compiled core (src/mask.rs).

Mask×Mask counts coinciding pixels: from the COCO runs of masks held as runs on grids of one height
(a merge walk per pair), else by ANDing the packed windows of the two masks over the overlap of
their bounding boxes (see `geoiou.regions.mask`), and on offset grids with fractional weights from
four shifted counts. Mask×Box and Mask×Polygon weight each true pixel by the exact area of the
vector region inside it. Nothing is sampled at pixel centres. This module picks, per pair and
vectorized, which of the crate's passes measures it and hands each pass its pairs in one call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from geoiou import _core
from geoiou._contiguous import contiguous
from geoiou.dispatch import register
from geoiou.kernels.pairs import pruned
from geoiou.regions import Box, Mask, Polygon
from geoiou.regions.mask import _Windows
from geoiou.rle import Runs

__all__ = ["mask_box_intersection_area", "mask_intersection_area", "mask_polygon_intersection_area"]


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

    Pairs with equal origins lie on one grid (whatever their sizes) and are counted from their runs
    (both held as runs, of one height) or word by word on their packed windows; pairs on offset
    grids use four shifted counts of their windows. Each kind of pair is one call of the crate.
    """
    same_grid = (a._origin[index_a] == b._origin[index_b]).all(axis=-1)
    result = np.empty(len(index_a))
    masks_a, masks_b = a._index[index_a], b._index[index_b]
    runs_a, runs_b = a._store.runs, b._store.runs
    by_runs = np.zeros(len(index_a), dtype=bool)
    if runs_a is not None and runs_b is not None:
        # Both held as COCO runs, each pair of masks of one height: positions mean the same pixels in both.
        by_runs = same_grid & (runs_a.sizes[masks_a, 0] == runs_b.sizes[masks_b, 0])
        if by_runs.any():  # counted from the runs: no pixels or words built
            result[by_runs] = run_overlap_counts(runs_a, masks_a[by_runs], runs_b, masks_b[by_runs])
    # Masks from RLE are packed along columns, dense ones along rows: a mixed pair uses rows.
    rows = not (a._store.column_major and b._store.column_major)
    by_windows = same_grid & ~by_runs
    if by_windows.any():
        windows_a, windows_b = a._store.windows(rows), b._store.windows(rows)
        result[by_windows] = _window_overlap_counts(windows_a, masks_a[by_windows], windows_b, masks_b[by_windows])
    offset = ~same_grid
    if offset.any():
        windows_a, windows_b = a._store.windows(rows), b._store.windows(rows)
        out = np.empty(int(offset.sum()))
        _core.offset_grid_overlaps(
            _window_arrays(windows_a),
            _indices(masks_a[offset]),
            contiguous(a._origin[index_a[offset]]),
            _window_arrays(windows_b),
            _indices(masks_b[offset]),
            contiguous(b._origin[index_b[offset]]),
            windows_a.column_major,
            out,
        )
        result[offset] = out
    return result


def run_overlap_counts(runs_a: Runs, masks_a: np.ndarray, runs_b: Runs, masks_b: np.ndarray) -> np.ndarray:
    """Pixels true in both masks ``masks_a[k]`` of `runs_a` and ``masks_b[k]`` of `runs_b`, counted from the runs.

    Runs are column-major positions on grids of one height, so a position means the same pixel
    in both. Each pair walks its two masks' runs together, as pycocotools' ``rleIou`` does, from
    the first run of each that can meet the other's span (binary searches): the work follows the
    runs, never the pixels. Pairs run in parallel (one call of the crate).

    Examples
    --------
    >>> from geoiou import rle
    >>> runs = rle.to_runs([{"size": [3, 3], "counts": [1, 3, 5]}, {"size": [3, 3], "counts": [2, 4, 3]}])
    >>> run_overlap_counts(runs, np.array([0, 0]), runs, np.array([1, 0]))  # pixels 2, 3 shared; 3 with itself
    array([2, 3])
    """
    out = np.empty(len(masks_a), dtype=np.int64)
    _core.run_overlap_counts(_run_arrays(runs_a), _indices(masks_a), _run_arrays(runs_b), _indices(masks_b), out)
    return out


def _run_arrays(runs: Runs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A run table as the crate reads it: ``(starts, stops, offsets)``, int64."""
    return contiguous(runs.starts, np.int64), contiguous(runs.stops, np.int64), contiguous(runs.offsets, np.int64)


def _indices(values: np.ndarray) -> np.ndarray:
    return contiguous(values, np.int64).reshape(-1)


def _window_overlap_counts(
    windows_a: _Windows, masks_a: np.ndarray, windows_b: _Windows, masks_b: np.ndarray
) -> np.ndarray:
    """Pixels true in both masks ``masks_a[k]`` of `windows_a` and ``masks_b[k]`` of `windows_b`.

    Both windows are on one grid and in one orientation. Only the overlap of the two bounding
    boxes is compared, line by line, over the words that cover its bits: both windows hold it,
    aligned to the same words of each line, so a pair is an AND and a bit count per word. Pairs
    run in parallel.
    """
    out = np.empty(len(masks_a), dtype=np.int64)
    _core.window_overlap_counts(
        _window_arrays(windows_a), _indices(masks_a), _window_arrays(windows_b), _indices(masks_b), out
    )
    return out


def _window_arrays(windows: _Windows) -> tuple[np.ndarray, np.ndarray]:
    """Windows as the crate reads them: their table (`_window_table`) and their words."""
    return _window_table(windows), windows.words


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
        ).reshape(-1, 8)
        windows.__dict__[_TABLE] = table
    return table


#: The key under which `_window_table` keeps its table in a windows object.
_TABLE = "kernel_table"


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


def _mask_box_pairs(a: Mask, b: Box, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Area of masks inside boxes: each true pixel weighted by the box's share of its row and of its column.

    Read from the masks' packed windows pair by pair in the crate (masks held as COCO runs are
    never decoded), pairs in parallel: only the pixels of the mask's bounding box that the box
    touches are visited.
    """
    windows = a._store.windows()
    out = np.empty(len(index_a))
    _core.mask_box_areas(
        _window_arrays(windows),
        windows.column_major,
        _indices(a._index[index_a]),
        contiguous(a._origin[index_a]).reshape(-1, 2),
        contiguous(b._xyxy[index_b]).reshape(-1, 4),
        out,
    )
    return out


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


def _edge_arrays(store: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A polygon store's edges as the crate reads them: ``(x0, y0, x1, y1, weight_sign, offsets)``."""
    edges = store.edges
    return (
        contiguous(edges.x0),
        contiguous(edges.y0),
        contiguous(edges.x1),
        contiguous(edges.y1),
        contiguous(edges.weight_sign),
        contiguous(edges.offsets, np.int64),
    )


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
    out = np.empty(len(masks))
    _core.mask_polygon_window_areas(
        _edge_arrays(store),
        _indices(geometry),
        contiguous(origin).reshape(-1, 2),
        contiguous(np.column_stack([rows[0], cols[0], rows[1] - rows[0], cols[1] - cols[0]]), np.int64).reshape(-1, 4),
        _indices(masks),
        _window_arrays(windows),
        windows.column_major,
        out,
    )
    return out


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
    out = np.empty(len(masks))
    _core.mask_polygon_run_areas(
        _edge_arrays(store),
        _indices(geometry[first]),
        contiguous(corner).reshape(-1, 2),
        contiguous(np.column_stack([rows[0], cols[0], rows[1] - rows[0], cols[1] - cols[0]]), np.int64).reshape(-1, 4),
        group_start,
        order,
        _indices(masks),
        _run_arrays(runs),
        contiguous(np.maximum(runs.sizes[:, 0], 1), np.int64),
        out,
    )
    return out


_pruned_mask_pairs = pruned(_mask_pairs)
_pruned_mask_box_pairs = pruned(_mask_box_pairs)
_pruned_mask_polygon_pairs = pruned(_mask_polygon_pairs)
