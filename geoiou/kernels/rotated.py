"""The exact kernels of rotated boxes ``(cx, cy, w, h, angle)``: intersection and convex hull of each pair.

Each registered function hands the boxes' coordinates to one pass of the crate over the pairs
(`rotated_pairs`, src/rotated.rs), which measures each pair in the frame of its first box, clamped
into the square ``[-1, 1]²`` for the intersection and by a walk of the eight edge normals for the
hull, after pruning the pairs whose bounds do not overlap, and applies the caller's formula.
"""

from __future__ import annotations

import numpy as np

from geoiou import _core
from geoiou._contiguous import contiguous
from geoiou.dispatch import register
from geoiou.kernels.formulas import Formula, Pairs, with_formula
from geoiou.regions import RotatedBox

__all__ = ["rotated_hull_pairs", "rotated_intersection_pairs"]


def _intersections(a: RotatedBox, b: RotatedBox, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Intersection areas of the pairs of two batches of rotated boxes.

    Exact up to rounding, in ``[0, min(area_a, area_b)]``; exactly the smaller area when a box is
    inside the other, exactly 0 when the bounds do not overlap; the same bits for ``(b, a)``.
    """
    _core.rotated_pairs(_rows(a), _rows(b), False, pairs, formula, out)


def _hulls(a: RotatedBox, b: RotatedBox, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Convex hull areas (the GIoU enclosure) of the pairs of two batches of rotated boxes.

    At least ``max(area_a, area_b)``, exactly that when a box is inside the other; the same bits for ``(b, a)``.
    """
    _core.rotated_pairs(_rows(a), _rows(b), True, pairs, formula, out)


def _single(a: RotatedBox, b: RotatedBox, code: int, zero_division: float) -> float:
    """The formula `code` of the intersection of two single boxes, in one call (the pass's pair function)."""
    return _core.rotated_single(contiguous(a._coords), contiguous(b._coords), code, zero_division)


def _rows(boxes: RotatedBox) -> np.ndarray:
    """A batch's coordinates (any shape, flattened) as the rows ``(n, 5)`` the crate reads."""
    return contiguous(boxes._coords).reshape(-1, 5)


rotated_intersection_pairs = register(RotatedBox, RotatedBox)(
    with_formula(_intersections, single=_single, hull_giou=True)
)
rotated_hull_pairs = register(RotatedBox, RotatedBox, measure="hull")(with_formula(_hulls))
