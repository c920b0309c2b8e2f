"""Closed-form kernels for axis-aligned boxes in any dimension: `Box` (2-D) and `Interval` (1-D).

One compiled loop over the pairs measures either the intersection of the two boxes' bounds or the
smallest box holding both (the interval hull, and GIoU's box enclosure of any two regions).
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import PARALLEL_MIN, jit, prange, use_threads
from geoiou.dispatch import register
from geoiou.regions import Box, Interval, Region

__all__ = ["aligned_enclosures", "aligned_intersection"]


@register(Box, Box)
@register(Interval, Interval)
def aligned_intersection(a: Region, b: Region, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Measure of the intersection of the axis-aligned boxes (intervals) ``a[index_a[k]]`` and ``b[index_b[k]]``."""
    use_threads(len(index_a))
    return _aligned_pairs(_bounds_table(a), _bounds_table(b), index_a, index_b, False)


@register(Interval, Interval, measure="hull")
def aligned_enclosures(a: Region, b: Region, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Measure of the smallest axis-aligned box holding both regions of each pair (for intervals, their hull).

    Any two regions of one dimension have it (from their bounds): GIoU's box enclosure C.
    """
    use_threads(len(index_a))
    return _aligned_pairs(_bounds_table(a), _bounds_table(b), index_a, index_b, True)


def _bounds_table(region: Region) -> np.ndarray:
    """The bounds ``(lows..., highs...)`` of a flat batch as a C-contiguous float64 table."""
    return np.ascontiguousarray(region.bounds, dtype=np.float64)


@jit(inline=True)
def _overlap(bounds_a: np.ndarray, i: int, bounds_b: np.ndarray, j: int) -> float:
    """Measure of the intersection of bounds i of `a` and j of `b`, +0.0 when they share nothing."""
    half = bounds_a.shape[1] // 2
    measure = 1.0
    for axis in range(half):
        length = min(bounds_a[i, half + axis], bounds_b[j, half + axis]) - max(bounds_a[i, axis], bounds_b[j, axis])
        if not length > 0.0:
            return 0.0
        measure = length if axis == 0 else measure * length
    return measure


@jit(inline=True)
def _enclosing(bounds_a: np.ndarray, i: int, bounds_b: np.ndarray, j: int) -> float:
    """Measure of the smallest axis-aligned box holding bounds i of `a` and j of `b`."""
    half = bounds_a.shape[1] // 2
    measure = 1.0
    for axis in range(half):
        extent = max(bounds_a[i, half + axis], bounds_b[j, half + axis]) - min(bounds_a[i, axis], bounds_b[j, axis])
        measure = extent if axis == 0 else measure * extent
    return measure


@jit(parallel=True)
def _aligned_pairs(
    bounds_a: np.ndarray, bounds_b: np.ndarray, index_a: np.ndarray, index_b: np.ndarray, enclosing: bool
) -> np.ndarray:
    out = np.empty(index_a.shape[0])
    if out.shape[0] < PARALLEL_MIN:
        for k in range(out.shape[0]):
            out[k] = _aligned_pair(bounds_a, index_a[k], bounds_b, index_b[k], enclosing)
    else:
        for k in prange(out.shape[0]):
            out[k] = _aligned_pair(bounds_a, index_a[k], bounds_b, index_b[k], enclosing)
    return out


@jit(inline=True)
def _aligned_pair(bounds_a: np.ndarray, i: int, bounds_b: np.ndarray, j: int, enclosing: bool) -> float:
    return _enclosing(bounds_a, i, bounds_b, j) if enclosing else _overlap(bounds_a, i, bounds_b, j)
