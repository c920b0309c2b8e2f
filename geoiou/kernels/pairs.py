"""Pruning the asked pairs whose bounds cannot overlap, for the kernels that are not one compiled pair loop."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from geoiou.regions import Region

__all__ = ["bounds_overlap", "pruned"]

#: Pairs whose bounds are tested at once; bounds the working memory of one step.
CANDIDATE_CHUNK = 1 << 16
#: Calls of at most this many pairs go to the measure without the bounds test: it exists to skip
#: work, and costs more than a few pairs (a mask's bounds are computed from its box each time).
UNPRUNED_PAIRS = 4


def bounds_overlap(bounds_a: np.ndarray, bounds_b: np.ndarray) -> np.ndarray:
    """True where two bounds ``(..., 2·ndim)`` overlap with positive measure.

    Touching bounds share no area, and NaN bounds (empty regions) compare false, so both are pruned.
    """
    half = bounds_a.shape[-1] // 2

    def overlap_on(axis: int) -> np.ndarray:
        low = np.maximum(bounds_a[..., axis], bounds_b[..., axis])
        result: np.ndarray = np.less(low, np.minimum(bounds_a[..., half + axis], bounds_b[..., half + axis]))
        return result

    # Axis by axis on the columns: `np.all(..., axis=-1)` over a last axis of 2 or 4 costs more than the tests.
    overlap = overlap_on(0)
    for axis in range(1, half):
        overlap &= overlap_on(axis)
    return overlap


#: ``measure(a, b, index_a, index_b)`` of two flat batches of some kinds (Any: each kernel names its own).
PairMeasure = Callable[[Any, Any, np.ndarray, np.ndarray], np.ndarray]


def pruned(measure_pairs: PairMeasure) -> PairMeasure:
    """A kernel in the "pairs" form that hands `measure_pairs` only the pairs whose bounds overlap; the rest measure 0.

    `measure_pairs` must itself measure 0 for a pair whose bounds do not overlap (it gets a few such
    pairs: `UNPRUNED_PAIRS`). For kernels that cannot prune a pair in a few comparisons inside a loop:
    the bounds of the asked pairs are tested a chunk at a time (bounded memory), and
    `measure_pairs(a, b, index_a, index_b)` gathers what it needs itself, so a large region (a
    mask) is never copied once per pair.
    """

    def kernel(a: Region, b: Region, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
        if len(index_a) <= UNPRUNED_PAIRS:  # a pair whose bounds do not meet measures 0 there too
            return measure_pairs(a, b, index_a, index_b)
        width = 2 * a.ndim  # explicit: reshape cannot infer the bounds width of an empty batch
        bounds_a, bounds_b = a.bounds.reshape(a.size, width), b.bounds.reshape(b.size, width)
        result = np.zeros(len(index_a))
        for start in range(0, len(index_a), CANDIDATE_CHUNK):
            ia, ib = index_a[start : start + CANDIDATE_CHUNK], index_b[start : start + CANDIDATE_CHUNK]
            hits = np.flatnonzero(bounds_overlap(bounds_a[ia], bounds_b[ib]))
            if hits.size:
                result[start + hits] = measure_pairs(a, b, ia[hits], ib[hits])
        return result

    kernel.__doc__ = measure_pairs.__doc__
    return kernel
