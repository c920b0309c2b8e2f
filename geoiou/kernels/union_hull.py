"""The GIoU enclosure of polygons and masks: the area of the convex hull of each pair's union."""

from __future__ import annotations

import numpy as np

from geoiou.dispatch import register
from geoiou.kernels.hull import union_hull_area
from geoiou.kernels.hull_pair import HullTable, pair_hull_area
from geoiou.regions import Mask, Polygon, Region

__all__ = ["hull_area", "pair_hull_measure"]


@register(Polygon, Polygon, measure="hull", form="single")
@register(Mask, Polygon, measure="hull", form="single")
@register(Mask, Mask, measure="hull", form="single")
def pair_hull_measure(a: Region, b: Region) -> float:
    """One pair's hull area by the plain-Python rendering of the hull kernel (`hull_pair`, the same bits)."""
    return pair_hull_area(HullTable(a._hull_vertices()), HullTable(b._hull_vertices()))


@register(Polygon, Polygon, measure="hull")
@register(Mask, Polygon, measure="hull")
@register(Mask, Mask, measure="hull")
def hull_area(a: Region, b: Region) -> np.ndarray:
    """Area of the convex hull of the union of each pair (the GIoU enclosure), with broadcasting.

    Each region's hull is computed once; every pair then walks the two hulls together
    (`hull.union_hull_area`), with no geometry built per pair.
    """
    hulls_a, rows_a = a._hull_table()
    hulls_b, rows_b = b._hull_table()
    return union_hull_area(hulls_a, rows_a, hulls_b, rows_b)
