"""Closed-form kernels for axis-aligned boxes in any dimension: `Box` (2-D) and `Interval` (1-D).

Three forms of one computation, each registered in `geoiou.dispatch`:

- the batch kernels broadcast two batches like NumPy;
- the single-pair forms compute one pair in plain Python floats: the same operations in the same
  order, with NumPy's semantics from `geoiou.kernels.scalar`, so the same bits;
- `AlignedPairs` hands out the pairs of ``a × b`` as rectangular blocks (a few rows of `a` against a
  run of columns of `b`) whose coordinates are contiguous arrays broadcast against each other, so
  that every arithmetic pass of a pairwise metric runs over a block that stays in the CPU cache and
  no index of pairs is ever formed. Sorted by their lower x bound, each block of rows only needs
  the band of columns that can reach it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterator, NamedTuple, Sequence

import numpy as np

from geoiou._compiled import PARALLEL_MIN, jit, prange, use_threads
from geoiou.dispatch import register
from geoiou.kernels.scalar import maximum, minimum
from geoiou.regions import Box, Interval, Region

__all__ = [
    "AlignedPairs",
    "Extents",
    "aligned_intersection",
    "aligned_enclosures",
    "scalar_enclosing_measure",
]

Columns = Sequence[np.ndarray]

#: At most this many sorted rows of `a` per band block: the band of a block is the union of its
#: rows' runs, which widens with every row (16 rows measured best for boxes and intervals).
BAND_ROWS = 16
#: Pairs whose bounds are tested at once when looking for the pairs that overlap (bounds the memory).
RUN_CHUNK = 1 << 16


def overlap_length(low_a: np.ndarray, high_a: np.ndarray, low_b: np.ndarray, high_b: np.ndarray) -> np.ndarray:
    """Length of ``[low_a, high_a) ∩ [low_b, high_b)``, 0 when disjoint; broadcasts."""
    length = np.minimum(high_a, high_b)
    length -= np.maximum(low_a, low_b)
    # Single regions give NumPy scalars, which cannot be written in place.
    return np.maximum(length, 0.0, out=length if isinstance(length, np.ndarray) else None)


def overlap_measure(low_a: Columns, high_a: Columns, low_b: Columns, high_b: Columns) -> np.ndarray:
    """Measure of the intersection of axis-aligned boxes given by their bounds per axis; broadcasts."""
    measure = overlap_length(low_a[0], high_a[0], low_b[0], high_b[0])
    for axis in range(1, len(low_a)):
        measure *= overlap_length(low_a[axis], high_a[axis], low_b[axis], high_b[axis])
    return measure


def enclosing_extents(low_a: Columns, high_a: Columns, low_b: Columns, high_b: Columns) -> list[np.ndarray]:
    """Extent along each axis of the smallest axis-aligned box holding both boxes; broadcasts."""
    extents = []
    for axis in range(len(low_a)):  # one axis at a time: no (..., 2·ndim) temporaries of the pair shape
        extent = np.maximum(high_a[axis], high_b[axis])
        extent -= np.minimum(low_a[axis], low_b[axis])
        extents.append(extent)
    return extents


def enclosing_measure(low_a: Columns, high_a: Columns, low_b: Columns, high_b: Columns) -> np.ndarray:
    """Measure of the smallest axis-aligned box holding both boxes (GIoU's box enclosure); broadcasts."""
    extents = enclosing_extents(low_a, high_a, low_b, high_b)
    measure = extents[0]
    for extent in extents[1:]:
        measure *= extent
    return measure


def scalar_enclosing_measure(bounds_a: list[float], bounds_b: list[float]) -> float:
    """`enclosing_measure` of one pair from its bounds ``[lows..., highs...]``, in Python floats."""
    half = len(bounds_a) // 2
    measure = 1.0
    for axis in range(half):
        low_a, low_b, high_a, high_b = bounds_a[axis], bounds_b[axis], bounds_a[half + axis], bounds_b[half + axis]
        extent = maximum(high_a, high_b) - minimum(low_a, low_b)
        measure = extent if axis == 0 else measure * extent
    return measure


def columns(coords: np.ndarray) -> list[np.ndarray]:
    """The last axis of `coords` as contiguous arrays: ufuncs broadcast far faster over them than over strided views."""
    return [coords[..., i].copy() for i in range(coords.shape[-1])]  # copy() is C-ordered and keeps 0-d


def bound_columns(region: Region) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Lower and upper bounds per axis of any region, as contiguous arrays of its batch shape."""
    bounds = columns(region.bounds)
    return bounds[: region.ndim], bounds[region.ndim :]


@register(Box, Box, form="pairs")
@register(Interval, Interval, form="pairs")
def aligned_intersection(a: Region, b: Region, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Measure of the intersection of axis-aligned boxes (or intervals), one per pair ``(a[index_a[k]], b[index_b[k]])``."""
    use_threads(len(index_a))
    return _aligned_pairs(_bounds_table(a), _bounds_table(b), index_a, index_b, False)


@register(Interval, Interval, measure="hull", form="pairs")
def aligned_enclosures(a: Region, b: Region, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Measure of the smallest axis-aligned box holding both regions of each pair (for intervals, their hull).

    Any two regions of one dimension have it (from their bounds): GIoU's box enclosure C.
    """
    use_threads(len(index_a))
    return _aligned_pairs(_bounds_table(a), _bounds_table(b), index_a, index_b, True)


def _bounds_table(region: Region) -> np.ndarray:
    """The bounds ``(lows..., highs...)`` of a flat batch as a C-contiguous float64 table."""
    return np.ascontiguousarray(region.bounds, dtype=np.float64)


@jit
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


@jit
def _enclosing(bounds_a: np.ndarray, i: int, bounds_b: np.ndarray, j: int) -> float:
    """Measure of the smallest axis-aligned box holding bounds i of `a` and j of `b`."""
    half = bounds_a.shape[1] // 2
    measure = 1.0
    for axis in range(half):
        extent = max(bounds_a[i, half + axis], bounds_b[j, half + axis]) - min(bounds_a[i, axis], bounds_b[j, axis])
        measure = extent if axis == 0 else measure * extent
    return measure


@jit(parallel=True)
def _aligned_pairs(bounds_a: np.ndarray, bounds_b: np.ndarray, index_a: np.ndarray, index_b: np.ndarray,
                   enclosing: bool) -> np.ndarray:
    out = np.empty(index_a.shape[0])
    if out.shape[0] < PARALLEL_MIN:
        for k in range(out.shape[0]):
            out[k] = _aligned_pair(bounds_a, index_a[k], bounds_b, index_b[k], enclosing)
    else:
        for k in prange(out.shape[0]):
            out[k] = _aligned_pair(bounds_a, index_a[k], bounds_b, index_b[k], enclosing)
    return out


@jit
def _aligned_pair(bounds_a: np.ndarray, i: int, bounds_b: np.ndarray, j: int, enclosing: bool) -> float:
    return _enclosing(bounds_a, i, bounds_b, j) if enclosing else _overlap(bounds_a, i, bounds_b, j)


# --------------------------------------------------------------------------- pairwise blocks
@dataclass(frozen=True)
class AlignedBlock:
    """A block of pairs: rows of `a` against a run of columns of `b`, as broadcastable coordinates.

    ``low_a[axis]`` and friends have shape ``(rows, 1)``, those of `b` shape ``(1, columns)``.
    `rows` and `columns` say where the block's results go in the ``(N, M)`` result: slices, or
    index arrays when the sets were sorted.
    """

    low_a: list[np.ndarray]
    high_a: list[np.ndarray]
    area_a: np.ndarray
    low_b: list[np.ndarray]
    high_b: list[np.ndarray]
    area_b: np.ndarray
    rows: slice | np.ndarray
    columns: slice | np.ndarray

    @functools.cached_property
    def intersection(self) -> np.ndarray:
        return overlap_measure(self.low_a, self.high_a, self.low_b, self.high_b)

    def enclosure(self, enclosure: str) -> np.ndarray:
        """GIoU's enclosure C of each pair: for boxes and intervals, "box" (and "hull" of intervals) only."""
        return enclosing_measure(self.low_a, self.high_a, self.low_b, self.high_b)

    def write(self, result: np.ndarray, values: np.ndarray) -> None:
        """Store the block's `values` in the C-contiguous ``(N, M)`` `result`."""
        if isinstance(self.rows, slice):
            result[self.rows, self.columns] = values
            return
        # One flat scatter: a 2-D fancy index is several times slower.
        flat = (self.rows * result.shape[1])[:, None] + self.columns
        result.reshape(-1)[flat] = values


class Extents(NamedTuple):
    """What the blocks need of a flat batch: its lower and upper bounds per axis and its measures, each ``(N,)``."""

    low: list[np.ndarray]
    high: list[np.ndarray]
    area: np.ndarray

    @classmethod
    def of(cls, region: Region) -> Extents:
        low, high = bound_columns(region.reshape(region.size))
        return cls(low, high, region._area_array().reshape(region.size))

    @property
    def size(self) -> int:
        return len(self.area)

    @property
    def ndim(self) -> int:
        return len(self.low)

    def take(self, order: np.ndarray) -> Extents:
        return Extents([v[order] for v in self.low], [v[order] for v in self.high], self.area[order])

    def rows(self, part: slice) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
        """The bounds and measures of some rows as columns ``(rows, 1)``."""
        return [v[part, None] for v in self.low], [v[part, None] for v in self.high], self.area[part, None]

    def columns(self, part: slice) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
        """The bounds and measures of some boxes as a row ``(1, columns)``."""
        return [v[None, part] for v in self.low], [v[None, part] for v in self.high], self.area[None, part]

    def has_extent(self) -> np.ndarray:
        """Which boxes have positive extent on every axis."""
        return np.logical_and.reduce([low < high for low, high in zip(self.low, self.high)])


class AlignedPairs:
    """The pairs of two flat batches of boxes (or intervals), handed out as cache-sized blocks.

    `dense_blocks` covers every pair in the original order. `band_blocks` covers only the pairs
    whose x ranges can meet: both sets are sorted by their lower x bound; box ``b`` can meet ``a``
    only if ``b.xmin < a.xmax`` (a prefix of the sorted `b`) and ``b.xmax > a.xmin``, which no box
    before the first position where the running maximum of ``b.xmax`` exceeds ``a.xmin`` has. A
    block of consecutive rows of the sorted `a` takes the union of its rows' runs, a band of
    sorted columns; its pairs outside the runs share nothing and compute exactly as such.

    Parameters
    ----------
    a, b : Extents
        Bounds and measures of two flat batches of one dimension (`Extents.of` a Box or Interval).
    block_pairs : int
        Pairs per block, about: bounds the temporaries of one block.

    Examples
    --------
    >>> import geoiou
    >>> a = Extents.of(geoiou.Interval([[0, 1], [10, 12]]))
    >>> b = Extents.of(geoiou.Interval([[11, 20], [0.5, 3], [40, 41]]))
    >>> pairs = AlignedPairs(a, b, block_pairs=1)  # [0, 1] meets only [0.5, 3]; [10, 12] meets [11, 20]
    >>> [(block.rows.tolist(), block.columns.tolist(), block.intersection.tolist()) for block in pairs.band_blocks(2)]
    [([0], [1], [[0.5]]), ([1], [0], [[1.0]])]
    >>> pairs.band_blocks(1) is None  # more pairs than the limit
    True
    >>> [index.tolist() for index in pairs.overlapping_pairs(limit=10)]
    [[0, 1], [1, 0]]
    >>> pairs.overlapping_pairs(limit=1) is None
    True
    """

    def __init__(self, a: Extents, b: Extents, block_pairs: int) -> None:
        self.a, self.b, self.block_pairs = a, b, max(1, int(block_pairs))
        #: GIoU enclosures the blocks give: the enclosing box (for intervals also the hull, the same interval).
        self.enclosures = ("box", "hull") if a.ndim == 1 else ("box",)

    def dense_blocks(self) -> Iterator[AlignedBlock]:
        """Blocks of whole rows covering every pair, in the original order."""
        a, b = self.a, self.b
        every = slice(None)
        low_b, high_b, area_b = b.columns(every)
        step = max(1, self.block_pairs // max(1, self.b.size))
        for start in range(0, self.a.size, step):
            rows = slice(start, start + step)
            yield AlignedBlock(*a.rows(rows), low_b, high_b, area_b, rows, every)

    def band_blocks(self, limit: float) -> Iterator[AlignedBlock] | None:
        """Blocks of sorted rows against the band of sorted columns that can meet them.

        None if the blocks would hold more than `limit` pairs: then the dense blocks do better.
        """
        band = _Band(self.a, self.b, self.block_pairs)
        if band.pairs > limit:
            return None
        return (AlignedBlock(*band.a.rows(rows), *band.b.columns(columns), band.order_a[rows], band.order_b[columns])
                for rows, columns in band.blocks())

    def overlapping_pairs(self, limit: float) -> tuple[np.ndarray, np.ndarray] | None:
        """Indices ``(index_a, index_b)`` of the pairs whose bounds overlap with positive measure.

        For kinds whose pairs cost far more than a test of their bounds (rotated boxes). Both sets
        are sorted by their lower x bound; each row of the sorted `a` meets only a run of the sorted
        `b` (see the class), and the runs of many rows are tested at once as one flat array, on
        coordinates gathered from the sorted arrays. None once more than `limit` pairs overlap.
        """
        order_a, order_b = np.argsort(self.a.low[0], kind="stable"), np.argsort(self.b.low[0], kind="stable")
        a, b = self.a.take(order_a), self.b.take(order_b)
        # A box without extent on some axis overlaps nothing: its row gets no run, its column fails the x test.
        reach_b = np.where(b.has_extent(), b.high[0], -np.inf)
        first = np.searchsorted(np.maximum.accumulate(reach_b) if reach_b.size else reach_b, a.low[0], side="right")
        stop = np.searchsorted(b.low[0], a.high[0], side="left")
        counts = np.where(a.has_extent(), np.maximum(stop - first, 0), 0)
        found_a, found_b, count = [], [], 0
        for rows in _row_chunks(counts, RUN_CHUNK):
            runs = counts[rows]
            line = np.repeat(np.arange(rows.start, rows.stop), runs)
            # Position in the sorted `b`: the run's first position plus the place within the run.
            position = np.arange(line.size) + np.repeat(first[rows] - (np.cumsum(runs) - runs), runs)
            meet = reach_b[position] > a.low[0][line]  # and b.xmin < a.xmax, since position < stop
            for axis in range(1, self.a.ndim):
                meet &= b.low[axis][position] < a.high[axis][line]
                meet &= a.low[axis][line] < b.high[axis][position]
            hits = np.flatnonzero(meet)
            count += hits.size
            if count > limit:
                return None
            found_a.append(order_a[line[hits]])
            found_b.append(order_b[position[hits]])
        if not found_a:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
        return np.concatenate(found_a), np.concatenate(found_b)


def _row_chunks(counts: np.ndarray, budget: int) -> Iterator[slice]:
    """Consecutive rows whose counts add up to about `budget` (a single larger row alone)."""
    ends = np.cumsum(counts)
    start = 0
    while start < len(counts):
        done = ends[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(ends, done + budget, side="right")))
        yield slice(start, stop)
        start = stop


class _Band:
    """Both sets sorted by their lower x bound, and per block of sorted rows the run of sorted columns to visit."""

    def __init__(self, a: Extents, b: Extents, block_pairs: int) -> None:
        self.order_a = np.argsort(a.low[0], kind="stable")
        self.order_b = np.argsort(b.low[0], kind="stable")
        self.a, self.b = a.take(self.order_a), b.take(self.order_b)
        reach_b = np.maximum.accumulate(self.b.high[0]) if b.size else self.b.high[0]
        # Per sorted row of `a`, the run [first, stop) of sorted `b` that can meet it.
        first = np.searchsorted(reach_b, self.a.low[0], side="right")
        stop = np.searchsorted(self.b.low[0], self.a.high[0], side="left")
        width = float(np.maximum(stop - first, 0).mean()) if a.size else 0.0
        # Enough rows to fill a block, but few, since each sorted row widens the band.
        self.rows = max(1, min(BAND_ROWS, int(block_pairs / max(1.0, width))))
        starts = np.arange(0, a.size, self.rows)
        self.first = first[starts]  # `first` grows with the sorted rows: a block's first row has the smallest
        self.stop = np.maximum.reduceat(stop, starts) if a.size else stop
        rows_per_block = np.diff(np.append(starts, a.size))
        self.pairs = int((np.maximum(self.stop - self.first, 0) * rows_per_block).sum())

    def blocks(self) -> Iterator[tuple[slice, slice]]:
        """Rows of the sorted `a` and columns of the sorted `b` of each block that holds pairs."""
        for index, (first, stop) in enumerate(zip(self.first.tolist(), self.stop.tolist())):
            if stop > first:
                yield slice(index * self.rows, (index + 1) * self.rows), slice(first, stop)


def aligned_pairs(a: Region, b: Region, block_pairs: int) -> AlignedPairs:
    """The pairs of two flat batches of boxes (or of intervals) as blocks for the pairwise metrics."""
    return AlignedPairs(Extents.of(a), Extents.of(b), block_pairs)

