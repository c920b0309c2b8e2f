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

import numpy as np

from geoiou import _core
from geoiou._contiguous import contiguous
from geoiou._pages import prefaulted

__all__ = ["Candidates", "candidate_pairs", "scatter", "stable_by_code"]

#: Pairs handed out per chunk: 16 MB of indices.
CHUNK_PAIRS = 1 << 20
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
        self.reach = _core.running_reach(self.high_b[0], contiguous(sorted_codes, np.int64))
        self._search = _core.CandidateSearch(
            self.low_a, self.high_a, self.low_b, self.high_b, self.reach,
            self.block_starts, self.first_block, self.stop_block, contiguous(self.order_b, np.int64),
        )  # fmt: skip
        self.counts = np.empty(n_rows, dtype=np.int64)
        self.counts[self.row_order] = self._search.counts(self.row_order)
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
        total = int(self._ends[stop - 1]) - done if stop > start else 0
        index_a, index_b = prefaulted(np.empty(total, dtype=np.int64)), prefaulted(np.empty(total, dtype=np.int64))
        # All rows are searched in the order of b's strips (neighbouring rows meet neighbouring runs of b);
        # the pairs still come out by row.
        whole = start == 0 and stop == len(self.counts)
        rows = self.row_order if whole else np.arange(start, stop, dtype=np.int64)
        self._search.fill(rows, self.counts[rows], self.sort_b, index_a, index_b)
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
        reach_y = np.maximum.accumulate(_core.block_maxima(found.high_b[1], found.block_starts))
        first = _core.insertion_points(reach_y, contiguous(low_y), True)
        with np.errstate(invalid="ignore"):
            stop_strip = self.of(np.nan_to_num(high_y, nan=-np.inf)).astype(np.float64)  # small integers: exact
            stop = _core.insertion_points(contiguous(block_codes, np.float64), stop_strip, True)
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


def stable_by_code(order: np.ndarray, codes: np.ndarray, count: int) -> np.ndarray:
    """`order` rearranged by ``codes[order]`` (``0 <= code < count``), stably: a counting sort.

    Examples
    --------
    >>> stable_by_code(np.arange(5), np.array([2, 0, 2, 1, 0]), 3).tolist()
    [1, 4, 3, 0, 2]
    """
    return _core.stable_by_code(contiguous(order, np.int64), contiguous(codes, np.int64), int(count))


def _block_starts(sorted_codes: np.ndarray) -> np.ndarray:
    """Where each run of equal codes starts in the sorted codes, and their count at the end ``(blocks + 1,)``."""
    changes = np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1
    return (
        np.concatenate([[0], changes, [len(sorted_codes)]]).astype(np.int64)
        if len(sorted_codes)
        else np.zeros(1, np.int64)
    )


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


def _columns(bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds as contiguous ``(ndim, N)`` float64 arrays."""
    bounds = np.asarray(bounds, dtype=np.float64)
    half = bounds.shape[1] // 2
    # Copies, never views of the caller's bounds (for one region the transposed slice is already contiguous):
    # `Candidates` marks the rows that meet nothing in them.
    return np.array(bounds[:, :half].T, order="C"), np.array(bounds[:, half:].T, order="C")


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
    _core.scatter(rows, contiguous(index_a, np.int64), contiguous(index_b, np.int64), contiguous(values))
