"""Candidate pairs: the pairs of two sets of bounds that overlap with positive measure, found by a compiled sweep.

`b` is sorted by group (when regions are grouped, by image or category: only regions of one group
meet) and then by its lower x bound; a region of `a` can only meet the regions of `b` of its group
in the run of that order between the first whose running maximum of upper x bounds passes its
lower x bound and the last whose lower x bound is below its upper x bound. Both ends come from
binary searches; the run is then tested on every axis in compiled code, rows in parallel.
Touching bounds share no area, and NaN bounds (empty regions) or bounds of no extent on some axis
meet nothing, so both are never candidates. Pairs come out sorted by ``index_a`` and then by the
order of `b`, a chunk of rows at a time, so the memory beside the result stays bounded.

This is the one candidate search of the pairwise metrics and of grouped matching (`match`,
evaluations); `overlaps` of two large ungrouped sets uses shapely's STRtree, which prunes both
axes at once.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from geoiou._compiled import in_parallel, jit, prange

__all__ = ["Candidates", "candidate_pairs", "scatter"]

#: Pairs handed out per chunk: 16 MB of indices.
CHUNK_PAIRS = 1 << 20
#: Nanoseconds on one thread to search a row's run (two binary searches and the tests of the run),
#: and to scatter a value, for `in_parallel`.
ROW_COST_NS = 200.0
SCATTER_COST_NS = 3.0


class Candidates:
    """The overlapping pairs of two sets of bounds, counted first and handed out a chunk of rows at a time.

    Parameters
    ----------
    bounds_a : ndarray of shape (N, 2·ndim)
    bounds_b : ndarray of shape (M, 2·ndim)
        ``(xmin, ymin, xmax, ymax)`` in 2-D, ``(start, end)`` for intervals.
    group_a, group_b : ndarray of int of shape (N,) and (M,), optional
        Group codes: only pairs of one code are candidates. None: one group.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[0.0, 0, 2, 2], [10, 10, 11, 11]])
    >>> b = np.array([[1.0, 1, 3, 3], [2, 0, 4, 2], [np.nan] * 4])
    >>> found = Candidates(a, b)
    >>> found.count  # [2, 0, 4, 2] only touches a[0]; a[1] meets nothing
    1
    >>> [pair.tolist() for pair in next(found.chunks())]
    [[0], [0]]
    """

    def __init__(
        self,
        bounds_a: np.ndarray,
        bounds_b: np.ndarray,
        group_a: np.ndarray | None = None,
        group_b: np.ndarray | None = None,
    ) -> None:
        self.low_a, self.high_a = _columns(bounds_a)
        # A region of `a` with NaN or flat bounds on any axis meets nothing: its x run is made empty.
        self.low_a[0, ~np.all(self.low_a < self.high_a, axis=0)] = np.nan
        low_b, high_b = _columns(bounds_b)
        valid_b = np.flatnonzero(np.all(low_b < high_b, axis=0))  # NaN compares false
        codes_a, codes_b = _codes(group_a, self.low_a.shape[1]), _codes(group_b, low_b.shape[1])[valid_b]
        order = np.lexsort((low_b[0, valid_b], codes_b))
        self.order_b, sorted_codes = valid_b[order], codes_b[order]
        self.low_b = np.ascontiguousarray(low_b[:, self.order_b])
        self.high_b = np.ascontiguousarray(high_b[:, self.order_b])
        # The positions of each row's group in the order of b.
        group_lo = np.searchsorted(sorted_codes, codes_a, side="left").astype(np.int64)
        group_hi = np.searchsorted(sorted_codes, codes_a, side="right").astype(np.int64)
        reach = _running_reach(self.high_b[0], sorted_codes)
        count_runs = _count_runs_parallel if in_parallel(self.low_a.shape[1], ROW_COST_NS) else _count_runs_serial
        self.first, self.stop, self.counts = count_runs(
            self.low_a, self.high_a, self.low_b, self.high_b, reach, group_lo, group_hi
        )
        self._ends = np.cumsum(self.counts)
        self.count = int(self._ends[-1]) if len(self._ends) else 0

    def chunks(self, max_pairs: int = CHUNK_PAIRS) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(index_a, index_b)`` of the overlapping pairs, rows in order, about `max_pairs` at a time."""
        start, n_rows = 0, len(self.counts)
        while start < n_rows:
            done = int(self._ends[start - 1]) if start else 0
            stop = max(start + 1, int(np.searchsorted(self._ends, done + max_pairs, side="right")))
            yield self.of_rows(start, stop)
            start = stop

    def of_rows(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """``(index_a, index_b)`` of the overlapping pairs of the rows ``start <= i < stop`` of `a`, rows in order."""
        done = int(self._ends[start - 1]) if start else 0
        offsets = self._ends[start:stop] - self.counts[start:stop] - done
        total = int(self._ends[stop - 1]) - done if stop > start else 0
        index_a, position_b = np.empty(total, dtype=np.int64), np.empty(total, dtype=np.int64)
        fill_runs = _fill_runs_parallel if in_parallel(stop - start, ROW_COST_NS) else _fill_runs_serial
        fill_runs(
            start,
            self.first[start:stop],
            self.stop[start:stop],
            offsets,
            self.low_a,
            self.high_a,
            self.low_b,
            self.high_b,
            index_a,
            position_b,
        )
        return index_a, self.order_b[position_b]


def candidate_pairs(
    bounds_a: np.ndarray, bounds_b: np.ndarray, group_a: np.ndarray | None = None, group_b: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(index_a, index_b)`` of the pairs (of one group) whose bounds overlap with positive measure, by index_a.

    Examples
    --------
    >>> import numpy as np
    >>> candidate_pairs(np.array([[0.0, 2], [5, 6]]), np.array([[1.0, 3], [2, 5], [5.5, 9]]))
    (array([0, 1]), array([0, 2]))
    """
    found = Candidates(bounds_a, bounds_b, group_a, group_b)
    parts = list(found.chunks())
    if len(parts) == 1:
        return parts[0]
    empty = np.empty(0, dtype=np.int64)
    return (
        np.concatenate([p[0] for p in parts]) if parts else empty,
        np.concatenate([p[1] for p in parts]) if parts else empty,
    )


def _codes(group: np.ndarray | None, size: int) -> np.ndarray:
    """Group codes as int64 (one group when None)."""
    if group is None:
        return np.zeros(size, dtype=np.int64)
    return np.asarray(group, dtype=np.int64).reshape(size)


@jit
def _running_reach(high_x: np.ndarray, sorted_codes: np.ndarray) -> np.ndarray:
    """The running maximum of upper x bounds in the order of `b`, restarted at each group."""
    reach = np.empty_like(high_x)
    for p in range(high_x.shape[0]):
        same_group = p > 0 and sorted_codes[p] == sorted_codes[p - 1]
        reach[p] = max(reach[p - 1], high_x[p]) if same_group else high_x[p]
    return reach


def _columns(bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds as contiguous ``(ndim, N)`` float64 arrays."""
    bounds = np.asarray(bounds, dtype=np.float64)
    half = bounds.shape[1] // 2
    return np.ascontiguousarray(bounds[:, :half].T), np.ascontiguousarray(bounds[:, half:].T)


@jit(inline=True)
def _meets(low_a: np.ndarray, high_a: np.ndarray, i: int, low_b: np.ndarray, high_b: np.ndarray, p: int) -> bool:
    """Whether bounds i of `a` and p of `b` overlap with positive measure on every axis."""
    for axis in range(low_a.shape[0]):
        low = max(low_a[axis, i], low_b[axis, p])
        if not low < min(high_a[axis, i], high_b[axis, p]):
            return False
    return True


@jit(inline=True)
def _run_of(
    low_a: np.ndarray, high_a: np.ndarray, i: int, low_b: np.ndarray, reach: np.ndarray, lo: int, hi: int
) -> tuple[int, int]:
    """The positions of sorted `b` (in its group ``[lo, hi)``) that can meet row i on x (none for NaN, flat bounds)."""
    xmin, xmax = low_a[0, i], high_a[0, i]
    if not xmin < xmax:
        return lo, lo
    return (
        lo + int(np.searchsorted(reach[lo:hi], xmin, side="right")),
        lo + int(np.searchsorted(low_b[0, lo:hi], xmax, side="left")),
    )


@jit(inline=True)
def _count_run(
    low_a: np.ndarray, high_a: np.ndarray, i: int, low_b: np.ndarray, high_b: np.ndarray, start: int, stop: int
) -> int:
    found = 0
    for p in range(start, stop):
        if _meets(low_a, high_a, i, low_b, high_b, p):
            found += 1
    return found


@jit(inline=True)
def _count_row(
    low_a: np.ndarray,
    high_a: np.ndarray,
    low_b: np.ndarray,
    high_b: np.ndarray,
    reach: np.ndarray,
    group_lo: np.ndarray,
    group_hi: np.ndarray,
    first: np.ndarray,
    stop: np.ndarray,
    counts: np.ndarray,
    i: int,
) -> None:
    first[i], stop[i] = _run_of(low_a, high_a, i, low_b, reach, group_lo[i], group_hi[i])
    counts[i] = _count_run(low_a, high_a, i, low_b, high_b, first[i], stop[i])


@jit
def _count_runs_serial(
    low_a: np.ndarray,
    high_a: np.ndarray,
    low_b: np.ndarray,
    high_b: np.ndarray,
    reach: np.ndarray,
    group_lo: np.ndarray,
    group_hi: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = low_a.shape[1]
    first, stop, counts = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    for i in range(n):
        _count_row(low_a, high_a, low_b, high_b, reach, group_lo, group_hi, first, stop, counts, i)
    return first, stop, counts


@jit(parallel=True)
def _count_runs_parallel(
    low_a: np.ndarray,
    high_a: np.ndarray,
    low_b: np.ndarray,
    high_b: np.ndarray,
    reach: np.ndarray,
    group_lo: np.ndarray,
    group_hi: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = low_a.shape[1]
    # np.empty, not np.zeros: in a parallel function numba turns np.zeros into a parallel loop of its own,
    # whose start costs more than a small call's whole work. Every row writes its three values.
    first, stop, counts = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    for i in prange(n):
        _count_row(low_a, high_a, low_b, high_b, reach, group_lo, group_hi, first, stop, counts, i)
    return first, stop, counts


@jit(inline=True)
def _fill_row(
    row0: int,
    first: np.ndarray,
    stop: np.ndarray,
    offsets: np.ndarray,
    low_a: np.ndarray,
    high_a: np.ndarray,
    low_b: np.ndarray,
    high_b: np.ndarray,
    index_a: np.ndarray,
    position_b: np.ndarray,
    r: int,
) -> None:
    i = row0 + r
    at = offsets[r]
    for p in range(first[r], stop[r]):
        if _meets(low_a, high_a, i, low_b, high_b, p):
            index_a[at] = i
            position_b[at] = p
            at += 1


@jit
def _fill_runs_serial(
    row0: int,
    first: np.ndarray,
    stop: np.ndarray,
    offsets: np.ndarray,
    low_a: np.ndarray,
    high_a: np.ndarray,
    low_b: np.ndarray,
    high_b: np.ndarray,
    index_a: np.ndarray,
    position_b: np.ndarray,
) -> None:
    for r in range(first.shape[0]):
        _fill_row(row0, first, stop, offsets, low_a, high_a, low_b, high_b, index_a, position_b, r)


@jit(parallel=True)
def _fill_runs_parallel(
    row0: int,
    first: np.ndarray,
    stop: np.ndarray,
    offsets: np.ndarray,
    low_a: np.ndarray,
    high_a: np.ndarray,
    low_b: np.ndarray,
    high_b: np.ndarray,
    index_a: np.ndarray,
    position_b: np.ndarray,
) -> None:
    for r in prange(first.shape[0]):
        _fill_row(row0, first, stop, offsets, low_a, high_a, low_b, high_b, index_a, position_b, r)


def scatter(rows: np.ndarray, index_a: np.ndarray, index_b: np.ndarray, values: np.ndarray) -> None:
    """``rows[index_a[k], index_b[k]] = values[k]`` for every k, in compiled code (NumPy's 2-D fancy assignment
    costs several times more per pair).

    Examples
    --------
    >>> rows = np.zeros((2, 3))
    >>> scatter(rows, np.array([0, 1]), np.array([2, 0]), np.array([0.5, 1.0]))
    >>> rows
    array([[0. , 0. , 0.5],
           [1. , 0. , 0. ]])
    """
    if in_parallel(len(index_a), SCATTER_COST_NS):
        _scatter_parallel(rows, index_a, index_b, values)
    else:
        _scatter_serial(rows, index_a, index_b, values)


@jit
def _scatter_serial(rows: np.ndarray, index_a: np.ndarray, index_b: np.ndarray, values: np.ndarray) -> None:
    for k in range(index_a.shape[0]):
        rows[index_a[k], index_b[k]] = values[k]


@jit(parallel=True)
def _scatter_parallel(rows: np.ndarray, index_a: np.ndarray, index_b: np.ndarray, values: np.ndarray) -> None:
    for k in prange(index_a.shape[0]):
        rows[index_a[k], index_b[k]] = values[k]
