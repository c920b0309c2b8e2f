"""Registers the exact rotated-box kernels of `geoiou.kernels.rotated` in the dispatch table."""

from __future__ import annotations

import numpy as np

from geoiou.dispatch import register
from geoiou.kernels.rotated import rotated_box_hull_area, rotated_box_intersection_area
from geoiou.regions import RotatedBox

__all__ = ["rotated_hull_area", "rotated_intersection_area"]


@register(RotatedBox, RotatedBox)
def rotated_intersection_area(a: RotatedBox, b: RotatedBox) -> np.ndarray:
    """Area of the intersection of rotated boxes by exact convex clipping, with broadcasting."""
    return rotated_box_intersection_area(a._coords, b._coords)


@register(RotatedBox, RotatedBox, measure="hull")
def rotated_hull_area(a: RotatedBox, b: RotatedBox) -> np.ndarray:
    """Area of the convex hull of each pair of rotated boxes, with broadcasting."""
    return rotated_box_hull_area(a._coords, b._coords)
