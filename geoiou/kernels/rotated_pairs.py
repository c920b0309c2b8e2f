"""Registers the exact rotated-box kernels of `geoiou.kernels.rotated` in the dispatch table.

The batch kernels broadcast; the single-pair forms (`geoiou.kernels.rotated_single`) compute one
pair with the same operations in Python floats, for `iou` and friends on two single boxes.
"""

from __future__ import annotations

import numpy as np

from geoiou.dispatch import register
from geoiou.kernels.rotated import rotated_box_hull_area, rotated_box_intersection_area
from geoiou.kernels.rotated_single import single_hull_area, single_intersection_area
from geoiou.regions import RotatedBox

__all__ = ["rotated_hull_area", "rotated_intersection_area", "rotated_pair_hull", "rotated_pair_intersection"]


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
