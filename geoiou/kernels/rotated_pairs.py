"""Registers the exact rotated-box kernels of `geoiou.kernels.rotated` in the dispatch table.

The batch kernels broadcast; the single-pair forms (`geoiou.kernels.rotated_single`) compute one
pair with the same operations in Python floats, for `iou` and friends on two single boxes; the
blocks form measures the pairs of the pairwise metrics from per-box tables built once.
"""

from __future__ import annotations

import functools
from typing import Callable, Iterator

import numpy as np

from geoiou.dispatch import register
from geoiou.kernels.box import AlignedPairs, Extents
from geoiou.kernels.pairs import bounds_overlap
from geoiou.kernels.rotated import RotatedBoxPairs, rotated_box_hull_area, rotated_box_intersection_area
from geoiou.kernels.rotated_single import single_hull_area, single_intersection_area
from geoiou.regions import RotatedBox

#: Pairwise batches of at most this many pairs look for the pairs whose bounds overlap with one test of
#: every pair (a sweep costs more there) ...
DENSE_TEST_PAIRS = 1 << 13
#: ... and measure them one by one in plain Python (`rotated_single`, the same bits) when there are at
#: most this many: about 12 µs a pair, against the batch kernel's 0.2 ms of NumPy calls per call.
PYTHON_PAIRS = 8

__all__ = ["RotatedPairBlocks", "rotated_hull_area", "rotated_intersection_area", "rotated_pair_hull", "rotated_pair_intersection"]


@register(RotatedBox, RotatedBox)
def rotated_intersection_area(a: RotatedBox, b: RotatedBox) -> np.ndarray:
    """Area of the intersection of rotated boxes by exact convex clipping, with broadcasting."""
    return rotated_box_intersection_area(a._coords, b._coords)


@register(RotatedBox, RotatedBox, measure="hull")
def rotated_hull_area(a: RotatedBox, b: RotatedBox) -> np.ndarray:
    """Area of the convex hull of each pair of rotated boxes, with broadcasting."""
    return rotated_box_hull_area(a._coords, b._coords)


@register(RotatedBox, RotatedBox, form="single")
def rotated_pair_intersection(a: RotatedBox, b: RotatedBox) -> tuple[float, float, float]:
    """Area of the intersection of two single rotated boxes, and their areas ``w * h``, in Python floats."""
    (_, _, width_a, height_a, _), (_, _, width_b, height_b, _) = a._coords.tolist(), b._coords.tolist()
    return single_intersection_area(a._coords, b._coords), width_a * height_a, width_b * height_b


@register(RotatedBox, RotatedBox, measure="hull", form="single")
def rotated_pair_hull(a: RotatedBox, b: RotatedBox) -> float:
    """Area of the convex hull of two single rotated boxes, in Python floats."""
    return single_hull_area(a._coords, b._coords)


class RotatedPairBlocks:
    """The pairs of two flat batches of rotated boxes as blocks for the pairwise metrics.

    The per-box tables are built once for the whole matrix (`RotatedBoxPairs`). `band_blocks`
    measures only the pairs whose bounds overlap, found by testing the bounds of both sets sorted
    by x (`AlignedPairs.overlapping_pairs`), in blocks of several kernel chunks; `dense_blocks`
    measures blocks of rows. Both give the bits of the batch kernels.
    """

    #: GIoU enclosures the blocks give (the "box" enclosure of rotated boxes takes the general path).
    enclosures = ("hull",)

    def __init__(self, a: RotatedBox, b: RotatedBox, block_pairs: int) -> None:
        self.a, self.b, self.block_pairs = a, b, max(1, int(block_pairs))

    @functools.cached_property
    def pairs(self) -> RotatedBoxPairs:
        return RotatedBoxPairs(self.a._coords, self.b._coords)

    def band_blocks(self, limit: float) -> Iterator[_RotatedBlock] | None:
        """Blocks of the pairs whose bounds overlap, or None if more than `limit` pairs do."""
        if self.a.size * self.b.size <= DENSE_TEST_PAIRS:
            index_a, index_b = self._overlapping_by_one_test()
            if len(index_a) > limit:
                return None
            block = _PythonBlock if len(index_a) <= PYTHON_PAIRS else _RotatedBlock
            return iter([block(self, index_a, index_b)])
        # The tables' bounds are those of RotatedBox.bounds, without computing the corners again.
        extents = (Extents([table.x_min, table.y_min], [table.x_max, table.y_max], table.area)
                   for table in (self.pairs.table_a, self.pairs.table_b))
        found = AlignedPairs(*extents, self.block_pairs).overlapping_pairs(limit)
        if found is None:
            return None
        index_a, index_b = found
        return (_RotatedBlock(self, index_a[part], index_b[part])
                for part in (slice(start, start + self.block_pairs) for start in range(0, len(index_a), self.block_pairs)))

    def _overlapping_by_one_test(self) -> tuple[np.ndarray, np.ndarray]:
        """Indices of the pairs whose bounds overlap with positive area (`pairs.bounds_overlap`), all tested at once."""
        bounds_a, bounds_b = (np.stack([table.x_min, table.y_min, table.x_max, table.y_max], axis=1)
                              for table in (self.pairs.table_a, self.pairs.table_b))
        index_a, index_b = np.nonzero(bounds_overlap(bounds_a[:, None], bounds_b[None, :]))
        return index_a, index_b

    def dense_blocks(self) -> Iterator[_RotatedBlock]:
        """Blocks of whole rows covering every pair."""
        step = max(1, self.block_pairs // max(1, self.b.size))
        for start in range(0, self.a.size, step):
            yield _RotatedBlock(self, slice(start, min(start + step, self.a.size)), slice(None))


class _RotatedBlock:
    """Pairs of `RotatedPairBlocks`: index arrays of the pairs, or a slice of rows against every column."""

    def __init__(self, blocks: RotatedPairBlocks, rows: slice | np.ndarray, columns: slice | np.ndarray) -> None:
        self.blocks, self.rows, self.columns = blocks, rows, columns
        self.area_a, self.area_b = blocks.a._area_array()[rows], blocks.b._area_array()[columns]
        if isinstance(rows, slice):
            self.area_a = self.area_a[:, None]

    @functools.cached_property
    def intersection(self) -> np.ndarray:
        pairs = self.blocks.pairs
        if isinstance(self.rows, slice):
            return pairs.intersection_rows(self.rows)
        return pairs.intersection(self.rows, self.columns)

    def enclosure(self, enclosure: str) -> np.ndarray:
        pairs = self.blocks.pairs
        return pairs.hull_rows(self.rows) if isinstance(self.rows, slice) else pairs.hull(self.rows, self.columns)

    def write(self, result: np.ndarray, values: np.ndarray) -> None:
        if isinstance(self.rows, slice):
            result[self.rows] = values
        else:
            result.reshape(-1)[self.rows * result.shape[1] + self.columns] = values


class _PythonBlock(_RotatedBlock):
    """A few pairs by index, measured one by one by the plain-Python kernels (`rotated_single`): the same bits."""

    @functools.cached_property
    def intersection(self) -> np.ndarray:
        return self._each(single_intersection_area)

    def enclosure(self, enclosure: str) -> np.ndarray:
        return self._each(single_hull_area)

    def _each(self, measure: Callable[[np.ndarray, np.ndarray], float]) -> np.ndarray:
        coords_a, coords_b = self.blocks.a._coords, self.blocks.b._coords
        pairs = zip(np.asarray(self.rows).tolist(), np.asarray(self.columns).tolist())
        return np.array([measure(coords_a[i], coords_b[j]) for i, j in pairs], dtype=np.float64)


@register(RotatedBox, RotatedBox, form="blocks")
def rotated_pair_blocks(a: RotatedBox, b: RotatedBox, block_pairs: int) -> RotatedPairBlocks:
    """The pairs of two flat batches of rotated boxes as blocks for the pairwise metrics."""
    return RotatedPairBlocks(a, b, block_pairs)
