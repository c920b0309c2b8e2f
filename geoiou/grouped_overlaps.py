"""Overlapping pairs within groups: the edges of the overlap graph that `geoiou.match` assigns.

Two sides of an annotation table (one row per region, each with a group such as its image and
category) overlap only within a group. Searching every image's pairs with its own spatial index
costs a Python call per image; searching all rows at once with one index would pair regions of
different images that happen to share coordinates. Here one compiled sweep handles every group
at once (`geoiou.kernels.candidates`, with group codes): the rows of ``b`` are sorted by
``(group, xmin)``, and a row of ``a`` meets only the rows of its own group whose x range can reach
it. The pairs whose bounds then overlap with positive measure on every axis are measured exactly
by their kernel (`metrics.iou_of_pairs`), one call per pair of region kinds.

The rows of a side may come in several batches of different kinds (COCO polygons with crowd
masks, masks of images of different sizes): `RowBlocks` indexes them so that the pairs of each
combination of kinds are measured in one vectorized call.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from geoiou.dispatch import find_kernel
from geoiou.errors import UnsupportedPairError
from geoiou.metrics import iou_of_pairs
from geoiou.regions import Box, Interval, Mask, Polygon, Region, RotatedBox

__all__ = ["RowBlocks", "by_combination", "grouped_overlaps", "pair_intersections"]

#: Pairs measured per call of `iou`; bounds the memory of the gathered regions.
MEASURE_CHUNK = 1 << 18
#: Kinds whose batches join into one batch per kind (their data are plain arrays); masks join by
#: form (`_join_key`).
JOINABLE_KINDS = (Box, RotatedBox, Polygon, Interval)


class RowBlocks:
    """The rows of one side as a few batches: row ``r`` is ``blocks[block_of[r]][index[r]]``.

    Batches of a joinable kind (boxes, rotated boxes, polygons, intervals) are joined into one
    block per kind; masks held as COCO runs into one block (their runs on the largest grid, nothing
    decoded), dense masks into one block per grid; batches of other kinds are blocks of their own.

    Parameters
    ----------
    pieces : sequence of Region
        1-D batches whose rows follow one another.

    Examples
    --------
    >>> import geoiou
    >>> rows = RowBlocks([geoiou.Box([[0, 0, 1, 1]]), geoiou.Polygon([(0, 0), (2, 0), (0, 2)]).reshape(1),
    ...                   geoiou.Box([[5, 5, 6, 6]])])
    >>> len(rows.blocks), rows.block_of.tolist(), rows.index.tolist()
    (2, [0, 1, 0], [0, 0, 1])
    """

    def __init__(self, pieces: Sequence[Region]) -> None:
        entries, start = [], 0
        for piece in pieces:
            entries.append((piece, np.arange(start, start + len(piece))))
            start += len(piece)
        self._index_entries(entries, start)

    @classmethod
    def of_entries(cls, entries: Sequence[tuple[Region, np.ndarray]], size: int) -> RowBlocks:
        """Rows in any order: each entry is a 1-D batch and the rows its regions are (together, every row once).

        Examples
        --------
        >>> import numpy as np, geoiou
        >>> rows = RowBlocks.of_entries([(geoiou.Box([[0, 0, 1, 1], [2, 2, 3, 3]]), np.array([2, 0])),
        ...                              (geoiou.Box([[5, 5, 6, 6]]), np.array([1]))], 3)
        >>> rows.index.tolist(), rows.areas().tolist()
        ([1, 2, 0], [1.0, 1.0, 1.0])
        """
        rows = cls.__new__(cls)
        rows._index_entries(entries, size)
        return rows

    def _index_entries(self, entries: Sequence[tuple[Region, np.ndarray]], size: int) -> None:
        groups: dict[object, list[tuple[Region, np.ndarray]]] = {}
        for piece, rows in entries:
            groups.setdefault(_join_key(piece, len(groups)), []).append((piece, rows))
        self.size = size
        self.blocks: list[Region] = []
        self.block_of = np.zeros(size, dtype=np.int64)
        self.index = np.zeros(size, dtype=np.int64)
        for members in groups.values():
            batches = [piece for piece, _ in members]
            rows = np.concatenate([rows for _, rows in members])
            self.block_of[rows] = len(self.blocks)
            self.index[rows] = np.arange(len(rows))
            self.blocks.append(batches[0] if len(batches) == 1 else type(batches[0]).concatenate(batches))
        self.ndim = self.blocks[0].ndim if self.blocks else 2
        #: One block whose regions are the rows, in order (`positions` are the rows).
        self.in_order = len(self.blocks) == 1 and bool((self.index == np.arange(size)).all())

    @property
    def kinds(self) -> set[type[Region]]:
        """The region kinds present."""
        return {type(block) for block in self.blocks if len(block)}

    def bounds(self) -> np.ndarray:
        """Bounds of every row, shape ``(size, 2 * ndim)``; NaN for empty regions."""
        width = 2 * self.ndim
        return self._per_row(lambda block: block.bounds.reshape(len(block), width), (width,))

    def positions(self, rows: np.ndarray) -> np.ndarray:
        """The positions of `rows` in their blocks (`rows` themselves when one block holds every row in order)."""
        return rows if self.in_order else self.index[rows]

    def areas(self) -> np.ndarray:
        """The measure (area, or length for intervals) of every row, shape ``(size,)``."""
        return self._per_row(lambda block: block._area_array().reshape(len(block)), ())

    def _per_row(self, values_of: Callable[[Region], np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
        """A per-region value of every block, laid out by row."""
        if self.in_order:
            return values_of(self.blocks[0])
        result = np.empty((self.size, *shape))
        for block, rows in zip(self.blocks, runs_by_key(self.block_of, len(self.blocks))):
            result[rows] = values_of(block)[self.index[rows]]
        return result


def _join_key(piece: Region, fresh: int) -> object:
    """Which batches join into one block: one per vector kind, masks held as runs (their runs join on the largest
    grid), dense masks of one grid; anything else (kinds from plug-ins) stays a block of its own."""
    if isinstance(piece, JOINABLE_KINDS):
        return type(piece)
    if isinstance(piece, Mask):
        return ("runs",) if piece._store.held_as_runs else ("pixels", piece.grid_shape)
    return fresh


def runs_by_key(keys: np.ndarray, count: int) -> list[np.ndarray]:
    """For each key ``0..count-1``, the positions holding it (one sort, not one scan per key).

    Examples
    --------
    >>> import numpy as np
    >>> runs_by_key(np.array([1, 0, 1, 2]), 3)
    [array([1]), array([0, 2]), array([3])]
    """
    order = np.argsort(keys, kind="stable")
    return np.split(order, np.searchsorted(keys[order], np.arange(1, count)))


def check_comparable(a: RowBlocks, b: RowBlocks) -> None:
    """Raise `UnsupportedPairError` unless every kind of `a` compares with every kind of `b`."""
    if a.kinds and b.kinds and a.ndim != b.ndim:
        names = sorted(kind.__name__ for kind in a.kinds | b.kinds)
        raise UnsupportedPairError(f"intervals compare only with intervals (got {', '.join(names)})")
    for kind_a in a.kinds:
        for kind_b in b.kinds:
            find_kernel(kind_a, kind_b)


def grouped_overlaps(
    a: RowBlocks, b: RowBlocks, group_a: np.ndarray, group_b: np.ndarray, min_iou: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows ``(row_a, row_b)`` of the same group whose IoU is positive and at least `min_iou`, with the IoU.

    Parameters
    ----------
    a, b : RowBlocks
        The two sides.
    group_a, group_b : ndarray of int
        The group code of each row (equal codes: same group).
    min_iou : float
        Pairs below it are left out; a pair that shares no area never counts.

    Returns
    -------
    row_a, row_b : ndarray of int64
        The pairs, sorted by ``(row_a, row_b)``.
    iou : ndarray of float64
        Their IoU.

    Examples
    --------
    >>> import numpy as np, geoiou
    >>> boxes = RowBlocks([geoiou.Box([[0, 0, 2, 2], [0, 0, 2, 2]])])
    >>> grouped_overlaps(boxes, boxes, np.array([0, 1]), np.array([1, 1]), 0.5)  # a's row 0 is alone in group 0
    (array([1, 1]), array([0, 1]), array([1., 1.]))
    """
    from geoiou.kernels.candidates import candidate_pairs  # the kernels: loaded on first use, not at `import geoiou`

    row_a, row_b = candidate_pairs(a.bounds(), b.bounds(), group_a, group_b)
    values = _measure(a, b, row_a, row_b)
    keep = (values > 0) & (values >= min_iou)
    row_a, row_b, values = row_a[keep], row_b[keep], values[keep]
    order = np.lexsort((row_b, row_a))
    return row_a[order], row_b[order], values[order]


def _measure(a: RowBlocks, b: RowBlocks, row_a: np.ndarray, row_b: np.ndarray) -> np.ndarray:
    """Exact IoU of each pair of rows."""
    return by_combination(
        a,
        b,
        row_a,
        row_b,
        lambda block_a, block_b, index_a, index_b: iou_of_pairs(block_a, block_b, index_a, index_b, zero_division=0.0),
    )


def pair_intersections(a: RowBlocks, b: RowBlocks, row_a: np.ndarray, row_b: np.ndarray) -> np.ndarray:
    """The exact intersection measure of each pair of rows ``(row_a[k], row_b[k])``.

    Examples
    --------
    >>> import numpy as np, geoiou
    >>> boxes = RowBlocks([geoiou.Box([[0, 0, 2, 2]]), geoiou.Polygon([(0, 0), (2, 0), (0, 2)]).reshape(1)])
    >>> pair_intersections(boxes, boxes, np.array([0, 0]), np.array([0, 1]))
    array([4., 2.])
    """
    return by_combination(
        a,
        b,
        row_a,
        row_b,
        lambda block_a, block_b, index_a, index_b: find_kernel(type(block_a), type(block_b)).pairs(
            block_a, block_b, index_a, index_b
        ),
    )


def by_combination(
    a: RowBlocks,
    b: RowBlocks,
    row_a: np.ndarray,
    row_b: np.ndarray,
    measure: Callable[[Region, Region, np.ndarray, np.ndarray], np.ndarray],
) -> np.ndarray:
    """``measure(block_a, block_b, index_a, index_b)`` of each pair of rows: one call per combination of blocks
    (and chunk), so that pairs of a kind are measured together whatever the order of the rows."""
    if len(a.blocks) == 1 and len(b.blocks) == 1:  # one combination: nothing to sort, the chunks are slices
        if len(row_a) <= MEASURE_CHUNK:
            return measure(a.blocks[0], b.blocks[0], a.positions(row_a), b.positions(row_b))
        keys, groups = [0], [np.arange(len(row_a))]
    else:
        combination = a.block_of[row_a] * len(b.blocks) + b.block_of[row_b]
        unique, combination = np.unique(combination, return_inverse=True)
        keys, groups = unique.tolist(), runs_by_key(combination.ravel(), len(unique))
    values = np.empty(len(row_a))
    for key, pairs in zip(keys, groups):
        block_a, block_b = a.blocks[key // len(b.blocks)], b.blocks[key % len(b.blocks)]
        for start in range(0, len(pairs), MEASURE_CHUNK):
            chunk = pairs[start : start + MEASURE_CHUNK]
            values[chunk] = measure(block_a, block_b, a.positions(row_a[chunk]), b.positions(row_b[chunk]))
    return values
