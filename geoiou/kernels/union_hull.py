"""The GIoU enclosure of polygons and masks: the area of the convex hull of each pair's union.

The registrations only: the compiled kernel (`geoiou.kernels.hull`, and with it numba) is
imported on the first call, so that ``import geoiou`` does not load numba.
"""

from __future__ import annotations

import numpy as np

from geoiou.dispatch import register
from geoiou.regions import Mask, Polygon

__all__ = ["hull_area"]


@register(Polygon, Polygon, measure="hull")
@register(Mask, Polygon, measure="hull")
@register(Mask, Mask, measure="hull")
def hull_area(a: Polygon | Mask, b: Polygon | Mask, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Area of the convex hull of the union of each pair ``(a[index_a[k]], b[index_b[k]])`` (the GIoU enclosure).

    Each region's hull is computed once (per polygon store; per pixel store for masks, moved to
    each mask's origin for the masks the pairs name); every pair is then measured from the two
    hulls (`hull.union_hull_areas`).
    """
    from geoiou.kernels.hull import union_hull_areas

    hulls_a, rows_a = a._hull_table(index_a)
    hulls_b, rows_b = b._hull_table(index_b)
    return union_hull_areas(hulls_a, rows_a, index_a, hulls_b, rows_b, index_b)
