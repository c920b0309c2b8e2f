"""The exact kernels of rotated boxes ``(cx, cy, w, h, angle)``: intersection and convex hull of each pair.

Each registered function hands the boxes' coordinates to one compiled driver over the pairs
(`geoiou.kernels.rotated_loops`), which measures each pair in the frame of its first box, clamped
into the square ``[-1, 1]²`` for the intersection and by a walk of the eight edge normals for the
hull, after pruning the pairs whose bounds do not overlap, and applies the caller's formula. The
loops' module is imported on first use (the command line does not pay for its dispatchers).
"""

from __future__ import annotations

import functools
from types import ModuleType

import numpy as np

from geoiou.dispatch import register
from geoiou.kernels.formulas import Formula, Pairs, with_formula
from geoiou.kernels.numba_formulas import CODES
from geoiou.regions import RotatedBox

__all__ = ["rotated_hull_pairs", "rotated_intersection_pairs"]


@functools.cache
def _loops() -> ModuleType:
    """`geoiou.kernels.rotated_loops`, imported on first use (the command line does not pay for its dispatchers)."""
    from geoiou.kernels import rotated_loops

    return rotated_loops


def _intersections(a: RotatedBox, b: RotatedBox, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Intersection areas of the pairs of two batches of rotated boxes.

    Exact up to rounding, in ``[0, min(area_a, area_b)]``; exactly the smaller area when a box is
    inside the other, exactly 0 when the bounds do not overlap; the same bits for ``(b, a)``.
    """
    _loops().intersection_pairs(a._coords, b._coords, pairs, formula, out)


def _hulls(a: RotatedBox, b: RotatedBox, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Convex hull areas (the GIoU enclosure) of the pairs of two batches of rotated boxes.

    At least ``max(area_a, area_b)``, exactly that when a box is inside the other; the same bits for ``(b, a)``.
    """
    _loops().hull_pairs(a._coords, b._coords, pairs, formula, out)


def _single(a: RotatedBox, b: RotatedBox, code: int, zero_division: float) -> float:
    """The formula `code` of the intersection of two single boxes, in one compiled call (the loop's pair function)."""
    value: float = _loops().single_pair(a._coords, b._coords, CODES[code], zero_division)
    return value


rotated_intersection_pairs = register(RotatedBox, RotatedBox)(
    with_formula(_intersections, single=_single, hull_giou=True)
)
rotated_hull_pairs = register(RotatedBox, RotatedBox, measure="hull")(with_formula(_hulls))
