"""Pairing two batches by broadcasting, and pruning pairs whose bounds cannot overlap."""

from __future__ import annotations

from typing import Callable, Iterator

import numpy as np

from geoiou.regions import Region

__all__ = ["SweepCandidates", "broadcast_indices", "bounds_overlap", "over_candidates"]

#: Pairs handed to a per-candidate kernel at once; bounds the working memory of one step.
CANDIDATE_CHUNK = 1 << 16


def broadcast_indices(shape_a: tuple[int, ...], shape_b: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """Flat indices into each batch for every element of their broadcast shape, and that shape."""
    shape = np.broadcast_shapes(shape_a, shape_b)
    index_a = np.broadcast_to(np.arange(int(np.prod(shape_a, dtype=np.int64))).reshape(shape_a), shape)
    index_b = np.broadcast_to(np.arange(int(np.prod(shape_b, dtype=np.int64))).reshape(shape_b), shape)
    return index_a.ravel(), index_b.ravel(), shape


def bounds_overlap(bounds_a: np.ndarray, bounds_b: np.ndarray) -> np.ndarray:
    """True where two bounds ``(..., 2·ndim)`` overlap with positive measure.

    Touching bounds share no area, and NaN bounds (empty regions) compare false, so both are pruned.
    """
    half = bounds_a.shape[-1] // 2

    def overlap_on(axis: int) -> np.ndarray:
        low = np.maximum(bounds_a[..., axis], bounds_b[..., axis])
        return np.less(low, np.minimum(bounds_a[..., half + axis], bounds_b[..., half + axis]))

    # Axis by axis on the columns: `np.all(..., axis=-1)` over a last axis of 2 or 4 costs more than the tests.
    overlap = overlap_on(0)
    for axis in range(1, half):
        overlap &= overlap_on(axis)
    return overlap


PairMeasure = Callable[[Region, Region, np.ndarray, np.ndarray], np.ndarray]


def over_candidates(a: Region, b: Region, measure_pairs: PairMeasure) -> np.ndarray:
    """Evaluate `measure_pairs` only on the pairs whose bounds overlap; the rest measure 0.

    `measure_pairs(flat_a, flat_b, index_a, index_b)` receives both batches flattened and the
    indices of the candidate pairs (a chunk at a time), and returns one measure per pair; it
    gathers what it needs itself, so a large region (a mask) is never copied once per pair.
    """
    index_a, index_b, shape = broadcast_indices(a.shape, b.shape)
    flat_a, flat_b = a.reshape(-1), b.reshape(-1)
    width = 2 * a.ndim  # explicit: reshape cannot infer the bounds width of an empty batch
    bounds_a, bounds_b = a.bounds.reshape(a.size, width), b.bounds.reshape(b.size, width)
    result = np.zeros(len(index_a))
    for start in range(0, len(index_a), CANDIDATE_CHUNK):
        chunk = slice(start, start + CANDIDATE_CHUNK)
        ia, ib = index_a[chunk], index_b[chunk]
        hits = np.flatnonzero(bounds_overlap(bounds_a[ia], bounds_b[ib]))
        if hits.size:
            result[start + hits] = measure_pairs(flat_a, flat_b, ia[hits], ib[hits])
    return result.reshape(shape)


class SweepCandidates:
    """The pairs of two sets of bounds that overlap, found by a sweep along x instead of N × M tests.

    `b` is sorted by ``xmin``; a box of `a` can only meet the boxes of `b` whose ``xmin`` lies in
    ``(a.xmin - widest_b, a.xmax)``, a contiguous run of the sorted order found by binary search.
    Counting those runs costs ``O(N log M)``, so callers can decide between a sparse and a dense
    computation before forming any pair. Bounds with NaN (empty regions) or with no extent on some
    axis have no candidates.

    Parameters
    ----------
    bounds_a : ndarray of shape (N, 2·ndim)
    bounds_b : ndarray of shape (M, 2·ndim)

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[0.0, 0, 2, 2], [10, 10, 11, 11]])
    >>> b = np.array([[1.0, 1, 3, 3], [2, 0, 4, 2], [np.nan] * 4])
    >>> sweep = SweepCandidates(a, b)
    >>> sweep.upper_bound  # pairs to inspect: [2, 0, 4, 2] only touches a[0], [10, ...] meets nothing
    1
    >>> [pair.tolist() for pair in next(sweep.chunks(100))]
    [[0], [0]]
    """

    def __init__(self, bounds_a: np.ndarray, bounds_b: np.ndarray) -> None:
        # One contiguous array per bound: gathers and comparisons on them are several times faster
        # than on strided columns of an (N, 4) array.
        self.low_a, self.high_a = _bound_columns(bounds_a)
        self.low_b, self.high_b = _bound_columns(bounds_b)
        valid_b = np.flatnonzero(_has_extent(self.low_b, self.high_b))
        self.order_b = valid_b[np.argsort(self.low_b[0][valid_b], kind="stable")]
        sorted_xmin = self.low_b[0][self.order_b]
        widths = self.high_b[0][self.order_b] - sorted_xmin
        # Widen by a few ulps: the widest width is itself rounded, and a missed pair would be a wrong 0.
        widest = float(widths.max()) * (1 + 1e-12) if len(widths) else 0.0
        valid_a = _has_extent(self.low_a, self.high_a)
        xmin_a = np.where(valid_a, self.low_a[0], np.inf)
        xmax_a = np.where(valid_a, self.high_a[0], -np.inf)
        self.first = np.searchsorted(sorted_xmin, xmin_a - widest, side="left")
        self.counts = np.maximum(np.searchsorted(sorted_xmin, xmax_a, side="left") - self.first, 0)
        self.upper_bound = int(self.counts.sum())

    def chunks(self, max_pairs: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(index_a, index_b)`` of the overlapping pairs, about `max_pairs` inspected at a time."""
        ends = np.cumsum(self.counts)
        start = 0
        while start < len(self.counts):
            done = ends[start - 1] if start else 0
            stop = max(start + 1, int(np.searchsorted(ends, done + max_pairs, side="right")))
            yield self._overlapping(*self._pairs_of_rows(start, stop))
            start = stop

    def _pairs_of_rows(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        counts = self.counts[start:stop]
        index_a = np.repeat(np.arange(start, stop), counts)
        # Position within each row's run: a global arange minus the run's offset, plus its first slot.
        offsets = np.repeat(np.cumsum(counts) - counts, counts)
        positions = np.arange(len(index_a)) - offsets + np.repeat(self.first[start:stop], counts)
        return index_a, self.order_b[positions]

    def _overlapping(self, index_a: np.ndarray, index_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Keep the pairs that overlap with positive measure on every axis (x's upper side holds already)."""
        keep = self.high_b[0][index_b] > self.low_a[0][index_a]
        for axis in range(1, len(self.low_a)):
            index_a, index_b = index_a[keep], index_b[keep]
            low = np.maximum(self.low_a[axis][index_a], self.low_b[axis][index_b])
            keep = low < np.minimum(self.high_a[axis][index_a], self.high_b[axis][index_b])
        return index_a[keep], index_b[keep]


def _has_extent(low: list[np.ndarray], high: list[np.ndarray]) -> np.ndarray:
    """True for bounds with positive extent on every axis; NaN (empty) and flat bounds overlap nothing.

    Dropping flat bounds up front is also what makes the sweep's one-sided x test exact.
    """
    valid = np.ones(len(low[0]), dtype=bool)
    for lower, upper in zip(low, high):
        valid &= lower < upper
    return valid


def _bound_columns(bounds: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Lower and upper bounds per axis as contiguous 1-D arrays."""
    half = bounds.shape[1] // 2
    return [bounds[:, i].copy() for i in range(half)], [bounds[:, half + i].copy() for i in range(half)]
