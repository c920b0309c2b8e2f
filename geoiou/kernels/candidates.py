"""Candidate pairs: the pairs of two sets of bounds that overlap with positive measure, found by a compiled sweep.

`b` is cut into blocks and sorted by block and then by its lower x bound. A block is a group
(when regions are grouped, by image or category: only regions of one group meet) or, for one
ungrouped set in the plane or in space, a strip (by the lower y bound), so that two axes prune:
a region of `a` searches only the strips that can reach its y range (those below its upper y bound
whose running maximum of upper y bounds passes its lower one). In each block it searches, a
region can only meet the run of that order between the first region whose running maximum of
upper x bounds passes its lower x bound and the last whose lower x bound is below its upper x
bound. Both ends come from binary searches; the run is then tested on every axis in compiled
code, rows in parallel. Touching bounds share no area, and NaN bounds (empty regions) or bounds
of no extent on some axis meet nothing, so both are never candidates. Pairs come out sorted by
``index_a``, a chunk of rows at a time, so the memory beside the result stays bounded; within a
row, by ``index_b`` where asked (`overlaps`), else in the order of the search.

This is the one candidate search of the pairwise metrics, `overlaps` and grouped matching
(`match`, evaluations).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from geoiou._compiled import in_parallel, jit, prange, prefaulted
from geoiou.kernels.sorted_search import insertion_point, insertion_points

__all__ = ["Candidates", "candidate_pairs", "scatter", "stable_by_code"]

#: Pairs handed out per chunk: 16 MB of indices.
CHUNK_PAIRS = 1 << 20
#: Nanoseconds on one thread to search a row's runs (binary searches and the tests of the runs), to
#: write a pair found, and to scatter a value, for `in_parallel`.
ROW_COST_NS = 200.0
FILL_COST_NS = 2.0
SCATTER_COST_NS = 3.0
#: Rows of `a` per iteration of the parallel search.
ROW_RUN = 64
_NO_INDEX = np.empty(0, dtype=np.int64)
_AFTER_EQUAL, _BEFORE_EQUAL = np.bool_(True), np.bool_(False)
#: Regions of an ungrouped `b` in the plane from which it is cut into horizontal strips.
STRIPS_FROM = 256
#: A strip is about this many times the median height of `b`'s bounds (fewer strips to visit per
#: row, against more regions of a strip to test).
STRIP_HEIGHTS = 2.0


class Candidates:
    """The overlapping pairs of two sets of bounds, counted first and handed out a chunk of rows at a time.

    Parameters
    ----------
    bounds_a : ndarray of shape (N, 2·ndim)
    bounds_b : ndarray of shape (M, 2·ndim)
        ``(xmin, ymin, xmax, ymax)`` in 2-D, ``(start, end)`` for intervals.
    group_a, group_b : ndarray of int of shape (N,) and (M,), optional
        Group codes: only pairs of one code are candidates. None: one group.
    sort_b : bool, default False
        Within each row, hand out the pairs sorted by ``index_b`` (else in the order of the search).

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
        *,
        sort_b: bool = False,
    ) -> None:
        self.low_a, self.high_a = _columns(bounds_a)
        # A region of `a` with NaN or flat bounds on any axis meets nothing: its x run is made empty.
        self.low_a[0, ~np.all(self.low_a < self.high_a, axis=0)] = np.nan
        low_b, high_b = _columns(bounds_b)
        valid_b = np.flatnonzero(np.all(low_b < high_b, axis=0))  # NaN compares false
        n_rows = self.low_a.shape[1]
        if group_b is None and low_b.shape[0] >= 2 and len(valid_b) >= STRIPS_FROM:
            codes_b, strip = _strip_codes(low_b[1, valid_b], high_b[1, valid_b])
            order = _by_code_then_x(codes_b, low_b[0, valid_b], strip.count)
            # Rows searched in the same order (by strip, then x): neighbours search neighbouring runs of b,
            # which stay in the CPU cache.
            self.row_order = _by_code_then_x(
                np.maximum(strip.of(np.nan_to_num(self.low_a[1])), 0), np.nan_to_num(self.low_a[0]), strip.count
            )
        else:
            codes_b, strip = _codes(group_b, low_b.shape[1])[valid_b], None
            order = np.lexsort((low_b[0, valid_b], codes_b))
            self.row_order = np.arange(n_rows, dtype=np.int64)
        self.order_b, sorted_codes = valid_b[order], codes_b[order]
        self.low_b = np.ascontiguousarray(low_b[:, self.order_b])
        self.high_b = np.ascontiguousarray(high_b[:, self.order_b])
        # Blocks: runs of one code in the order of b; each row searches a range of blocks.
        self.block_starts = _block_starts(sorted_codes)
        block_codes = sorted_codes[self.block_starts[:-1]]
        if strip is None:
            codes_a = _codes(group_a, self.low_a.shape[1])
            self.first_block = np.searchsorted(block_codes, codes_a, side="left").astype(np.int64)
            self.stop_block = np.searchsorted(block_codes, codes_a, side="right").astype(np.int64)
        else:
            self.first_block, self.stop_block = strip.blocks_of(self.low_a[1], self.high_a[1], block_codes, self)
        self.sort_b = sort_b
        self.reach = _running_reach(self.high_b[0], sorted_codes)
        self.counts = np.empty(n_rows, dtype=np.int64)
        self._run(self.row_order, 0, _NO_INDEX, _NO_INDEX, _NO_INDEX)
        self._ends = np.cumsum(self.counts)
        self.count = int(self._ends[-1]) if len(self._ends) else 0

    def _run(self, rows: np.ndarray, row0: int, offsets: np.ndarray, index_a: np.ndarray, index_b: np.ndarray) -> None:
        """Search `rows` of `a`: count their pairs (no `offsets`), or write them from `offsets` into the indices."""
        data = (
            rows,
            self.low_a,
            self.high_a,
            self.low_b,
            self.high_b,
            self.reach,
            self.block_starts,
            self.first_block,
            self.stop_block,
            self.order_b,
            self.sort_b,
            row0,
            offsets,
            index_a,
            index_b,
            self.counts,
        )
        # Filling writes each pair found besides searching the row.
        row_cost_ns = ROW_COST_NS + FILL_COST_NS * len(index_b) / max(1, len(rows))
        if in_parallel(len(rows), row_cost_ns):
            _search_parallel(data)
        else:
            _search_rows(data, 0, len(rows))

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
        index_a, index_b = prefaulted(np.empty(total, dtype=np.int64)), prefaulted(np.empty(total, dtype=np.int64))
        whole = start == 0 and stop == len(self.counts)
        rows = self.row_order if whole else np.arange(start, stop, dtype=np.int64)
        self._run(rows, start, offsets, index_a, index_b)
        return index_a, index_b


class _Strips:
    """Horizontal strips of equal height over `b`'s lower y bounds, and the running reach of their upper ones."""

    def __init__(self, bottom: float, height: float, count: int) -> None:
        self.bottom, self.height, self.count = bottom, height, count

    def of(self, y: np.ndarray) -> np.ndarray:
        """The strip of each y, clipped to the strips (rounding is monotonic: a lower y never gets a higher strip)."""
        return np.clip(np.floor((y - self.bottom) / self.height), -1, self.count - 1).astype(np.int64)

    def blocks_of(
        self, low_y: np.ndarray, high_y: np.ndarray, block_codes: np.ndarray, found: Candidates
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each row's blocks: from the first whose running reach of upper y bounds passes the row's lower y bound,
        up to the strip of its upper y bound (regions of later strips start above it)."""
        reach_y = np.maximum.accumulate(_block_maxima(found.high_b[1], found.block_starts))
        first = insertion_points(reach_y, low_y, True)
        with np.errstate(invalid="ignore"):
            stop = insertion_points(block_codes, self.of(np.nan_to_num(high_y, nan=-np.inf)), True)
        return first, np.maximum(stop, first)


def _strip_codes(low_y: np.ndarray, high_y: np.ndarray) -> tuple[np.ndarray, _Strips]:
    """Each region's strip, and the strips: about `STRIP_HEIGHTS` median heights tall, at least 8 regions a strip."""
    bottom, top = float(low_y.min()), float(low_y.max())
    height = STRIP_HEIGHTS * float(np.median(high_y - low_y))
    count = int(min(max((top - bottom) / height, 1.0) if height > 0 else 1.0, max(1, len(low_y) // 8)))
    strips = _Strips(bottom, (top - bottom) / count if top > bottom else 1.0, count)
    return strips.of(low_y), strips


def _by_code_then_x(codes: np.ndarray, x: np.ndarray, count: int) -> np.ndarray:
    """The order that sorts by code (``0 <= code < count``), then by x: NumPy's sort by x, then a counting sort."""
    return stable_by_code(np.argsort(x), codes, count)


@jit
def stable_by_code(order: np.ndarray, codes: np.ndarray, count: int) -> np.ndarray:
    """`order` rearranged by ``codes[order]`` (``0 <= code < count``), stably: a counting sort.

    Examples
    --------
    >>> stable_by_code(np.arange(5), np.array([2, 0, 2, 1, 0]), 3).tolist()
    [1, 4, 3, 0, 2]
    """
    starts = np.zeros(count + 1, dtype=np.int64)
    for k in range(order.shape[0]):
        starts[codes[order[k]] + 1] += 1
    for code in range(count):
        starts[code + 1] += starts[code]
    result = np.empty_like(order)
    for k in range(order.shape[0]):
        code = codes[order[k]]
        result[starts[code]] = order[k]
        starts[code] += 1
    return result


def _block_starts(sorted_codes: np.ndarray) -> np.ndarray:
    """Where each run of equal codes starts in the sorted codes, and their count at the end ``(blocks + 1,)``."""
    changes = np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1
    return (
        np.concatenate([[0], changes, [len(sorted_codes)]]).astype(np.int64)
        if len(sorted_codes)
        else np.zeros(1, np.int64)
    )


@jit
def _block_maxima(values: np.ndarray, block_starts: np.ndarray) -> np.ndarray:
    """The largest of `values` in each block ``block_starts[k] <= p < block_starts[k + 1]``."""
    maxima = np.empty(block_starts.shape[0] - 1)
    for k in range(maxima.shape[0]):
        largest = -np.inf
        for p in range(block_starts[k], block_starts[k + 1]):
            largest = max(largest, values[p])
        maxima[k] = largest
    return maxima


def candidate_pairs(
    bounds_a: np.ndarray,
    bounds_b: np.ndarray,
    group_a: np.ndarray | None = None,
    group_b: np.ndarray | None = None,
    *,
    sort_b: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(index_a, index_b)`` of the pairs (of one group) whose bounds overlap with positive measure, by index_a.

    With `sort_b`, the pairs of each row are sorted by ``index_b`` (the pairs are then sorted).

    Examples
    --------
    >>> import numpy as np
    >>> candidate_pairs(np.array([[0.0, 2], [5, 6]]), np.array([[1.0, 3], [2, 5], [5.5, 9]]))
    (array([0, 1]), array([0, 2]))
    """
    found = Candidates(bounds_a, bounds_b, group_a, group_b, sort_b=sort_b)
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
    """The running maximum of upper x bounds in the order of `b`, restarted at each block."""
    reach = np.empty_like(high_x)
    for p in range(high_x.shape[0]):
        same_block = p > 0 and sorted_codes[p] == sorted_codes[p - 1]
        reach[p] = max(reach[p - 1], high_x[p]) if same_block else high_x[p]
    return reach


def _columns(bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds as contiguous ``(ndim, N)`` float64 arrays."""
    bounds = np.asarray(bounds, dtype=np.float64)
    half = bounds.shape[1] // 2
    # Copies, never views of the caller's bounds (for one region the transposed slice is already contiguous):
    # `Candidates` marks the rows that meet nothing in them.
    return np.array(bounds[:, :half].T, order="C"), np.array(bounds[:, half:].T, order="C")


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
    """The positions of sorted `b` (in a block ``[lo, hi)``) that can meet row i on x (none for NaN, flat bounds)."""
    xmin, xmax = low_a[0, i], high_a[0, i]
    if not xmin < xmax:
        return lo, lo
    return insertion_point(reach, lo, hi, xmin, _AFTER_EQUAL), insertion_point(low_b[0], lo, hi, xmax, _BEFORE_EQUAL)


#: What the search reads and writes (flat: numba's parallel loops cannot take nested tuples): the rows of
#: `a` to search, both sides' bounds, the running reach, the blocks and each row's range of them, the
#: order of `b`, whether to sort each row's pairs, then the first row and each row's offset (none: count
#: only), the output indices of `a` and of `b`, and the counts.
Search = tuple[Any, ...]


@jit
def _search_rows(data: Search, begin: int, end: int) -> None:
    """Search the rows ``rows[begin:end]`` of `a`: count each row's pairs into `counts`, or, given the
    `offsets` of the rows from `row0`, write each row's pairs into `index_a` and `index_b` (sorted by
    `index_b` with `sort_b`)."""
    rows, low_a, high_a, low_b, high_b, reach, block_starts, first_block, stop_block = data[:9]
    order_b, sort_b, row0, offsets, index_a, index_b, counts = data[9:]
    fill = offsets.shape[0] > 0
    for t in range(begin, end):
        i = rows[t]
        first = at = offsets[i - row0] if fill else 0
        for block in range(first_block[i], stop_block[i]):
            start, stop = _run_of(low_a, high_a, i, low_b, reach, block_starts[block], block_starts[block + 1])
            for p in range(start, stop):
                if _meets(low_a, high_a, i, low_b, high_b, p):
                    if fill:
                        index_a[at], index_b[at] = i, order_b[p]
                    at += 1
        if not fill:
            counts[i] = at
        elif sort_b:
            _sort(index_b, first, at)


@jit(parallel=True)
def _search_parallel(data: Search) -> None:
    """`_search_rows` over all rows, `ROW_RUN` rows an iteration of a loop on every core."""
    size = data[0].shape[0]
    for step in prange((size + ROW_RUN - 1) // ROW_RUN):
        _search_rows(data, step * ROW_RUN, min(size, (step + 1) * ROW_RUN))


@jit
def _sort(values: np.ndarray, begin: int, end: int) -> None:
    """Sort ``values[begin:end]`` in place (Shell's sort: rows of candidates are short, and numba's own sort
    takes seconds to compile)."""
    gap = (end - begin) // 2
    while gap > 0:
        for k in range(begin + gap, end):
            item, at = values[k], k
            while at - gap >= begin and values[at - gap] > item:
                values[at] = values[at - gap]
                at -= gap
            values[at] = item
        gap //= 2


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
