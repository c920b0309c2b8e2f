"""Closed-form kernels for axis-aligned boxes in any dimension: `Box` (2-D), `Box3D` (3-D) and `Interval` (1-D).

One pass of the crate (`aligned_pairs`, src/aligned.rs) runs over the pairs and measures either the
intersection of the two boxes' bounds or the smallest box holding both (the interval hull, and
GIoU's box enclosure of any two regions), then applies the caller's formula in the same pass.
"""

from __future__ import annotations

import numpy as np

from geoiou import _core
from geoiou._contiguous import contiguous
from geoiou.dispatch import PairKernel, register
from geoiou.kernels.formulas import Formula, Pairs, with_formula
from geoiou.regions import Box, Box3D, Interval, Region

__all__ = ["BOX_ENCLOSURE", "aligned_enclosures", "aligned_intersection"]


def _aligned_intersection(a: Region, b: Region, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Measure of the intersection of the axis-aligned boxes (intervals) of each pair."""
    _core.aligned_pairs(_bounds_table(a), _bounds_table(b), False, pairs, formula, out)


def _aligned_enclosures(a: Region, b: Region, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Measure of the smallest axis-aligned box holding both regions of each pair (for intervals, their hull).

    Any two regions of one dimension have it (from their bounds): GIoU's box enclosure C.
    """
    _core.aligned_pairs(_bounds_table(a), _bounds_table(b), True, pairs, formula, out)


def _aligned_single(a: Region, b: Region, code: int, zero_division: float) -> float:
    """The formula `code` of two single regions of one dimension, in one call (the pass's pair function)."""
    return _core.aligned_single(_own_bounds(a), _own_bounds(b), code, _single_area(a), _single_area(b), zero_division)


def _own_bounds(region: Region) -> np.ndarray:
    """A single region's bounds ``(lows..., highs...)``: a box's corners, an interval's or a 3-D box's coordinates."""
    own: np.ndarray = region._xyxy if type(region) is Box else region._coords  # type: ignore[attr-defined]
    return own


def _single_area(region: Region) -> float:
    """A single region's measure, with the bits of `Region._area_array` (a box's w * h as given)."""
    if type(region) is Box:
        width, height = region._size.tolist()
        area: float = width * height
        return area
    return float(region._area_array())


aligned_intersection = register(Box, Box)(
    register(Box3D, Box3D)(
        register(Interval, Interval)(with_formula(_aligned_intersection, box_enclosure=True, single=_aligned_single))
    )
)
aligned_enclosures = register(Interval, Interval, measure="hull")(with_formula(_aligned_enclosures))
#: GIoU's box enclosure of any two regions of one dimension, as a kernel of the table.
BOX_ENCLOSURE = PairKernel(aligned_enclosures, (), (), False, "hull")


def _bounds_table(region: Region) -> np.ndarray:
    """The bounds ``(lows..., highs...)`` of a batch (any shape, flattened) as a float64 table the crate reads.

    A box's, an interval's and a 3-D box's own coordinates are their bounds, used as they are (no copy).
    """
    if type(region) is Box:
        own: np.ndarray = region._xyxy
    elif type(region) in (Interval, Box3D):
        own = region._coords  # type: ignore[attr-defined]  # both keep their bounds as their coordinates
    else:
        own = region.bounds
    return contiguous(own).reshape(-1, 2 * region.ndim)
