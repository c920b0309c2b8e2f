"""Exact kernels for masks under the unit-square pixel model.

Mask×Mask counts coinciding pixels (with fractional weights when the two grids are offset by a
non-integer amount); Mask×Box and Mask×Polygon weight each true pixel by the exact area of the
vector region inside it. Nothing is sampled at pixel centres.
"""

from __future__ import annotations

import numpy as np

from geoiou.dispatch import register
from geoiou.kernels.box import overlap_length
from geoiou.kernels.coverage import polygon_coverage_window
from geoiou.kernels.pairs import over_candidates
from geoiou.regions import Box, Mask, Polygon

__all__ = ["mask_box_intersection_area", "mask_intersection_area", "mask_polygon_intersection_area"]

#: Pixels gathered at once by the batched kernels (bounds the working memory).
PIXEL_CHUNK = 1 << 25


@register(Mask, Mask)
def mask_intersection_area(a: Mask, b: Mask) -> np.ndarray:
    """Area shared by masks, elementwise with broadcasting; grids may differ in shape and origin."""
    return over_candidates(a, b, _mask_pairs)


@register(Mask, Box)
def mask_box_intersection_area(a: Mask, b: Box) -> np.ndarray:
    """Area of each mask inside each box: the box covers pixel (r, c) by row weight × column weight."""
    return over_candidates(a, b, _mask_box_pairs)


@register(Mask, Polygon)
def mask_polygon_intersection_area(a: Mask, b: Polygon) -> np.ndarray:
    """Area of each mask inside each polygon, from the polygon's exact coverage of every pixel."""
    return over_candidates(a, b, _mask_polygon_pairs)


def _mask_pairs(a: Mask, b: Mask, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Shared area of the pairs ``(a[index_a[k]], b[index_b[k]])``."""
    if _same_grid(a, b):
        return _aligned_overlap_counts(a._data, b._data, index_a, index_b)
    return np.array([_overlap_on_offset_grids(a._data[i], a._origin[i], b._data[j], b._origin[j])
                     for i, j in zip(index_a, index_b)])


def _same_grid(a: Mask, b: Mask) -> bool:
    """True when every mask of both batches lies on one grid (same size, same origin)."""
    origins = np.concatenate([a._origin.reshape(-1, 2), b._origin.reshape(-1, 2)])
    return a._data.shape[-2:] == b._data.shape[-2:] and bool((origins == origins[:1]).all())


def _aligned_overlap_counts(data_a: np.ndarray, data_b: np.ndarray, index_a: np.ndarray,
                            index_b: np.ndarray) -> np.ndarray:
    """Count pixels true in both, pair by pair, on packed bits (8 pixels per byte).

    Each mask is packed once; pairs are then gathered from the packed rows a chunk at a time.
    """
    pixels = data_a.shape[-1] * data_a.shape[-2]
    packed_a = np.packbits(data_a.reshape(-1, pixels), axis=1)
    packed_b = np.packbits(data_b.reshape(-1, pixels), axis=1)
    counts = np.empty(len(index_a))
    step = max(1, PIXEL_CHUNK // max(1, pixels))
    for start in range(0, len(index_a), step):
        part = slice(start, start + step)
        shared = packed_a[index_a[part]] & packed_b[index_b[part]]
        counts[part] = np.bitwise_count(shared).sum(axis=1, dtype=np.int64)
    return counts


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
    """Area of masks inside polygons: each polygon's exact pixel coverage summed over true pixels."""
    result = np.empty(len(index_a))
    for k, (i, j) in enumerate(zip(index_a, index_b)):
        data = a._data[i]
        rows, cols, coverage = polygon_coverage_window(b._geoms[j], data.shape, tuple(a._origin[i]))
        result[k] = float(np.sum(coverage, where=data[rows, cols]))
    return result
