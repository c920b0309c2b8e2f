"""The shared area of a polygon with a polygon, a rotated box or a box: the compiled kernels of `polygon_loops`.

Each registered function hands the regions' arrays to one compiled loop over the pairs, which
prunes each pair by bounds and measures it in its own frame. The loops are imported on first
use, so ``import geoiou`` does not load numba.
"""

from __future__ import annotations

import numpy as np

from geoiou.dispatch import register
from geoiou.regions import Box, Polygon, RotatedBox

__all__ = ["box_polygon_intersection_area", "polygon_intersection_area", "rotated_polygon_intersection_area"]


@register(Polygon, Polygon)
def polygon_intersection_area(a: Polygon, b: Polygon, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Area of ``a[index_a[k]] ∩ b[index_b[k]]`` for each k (exact; holes and parts included).

    The two polygons of a pair are measured in a canonical order, so swapping `a` and `b` gives the same bits.
    """
    from geoiou.kernels.polygon_loops import polygon_shared_area

    return polygon_shared_area(a._store, a._index[index_a], b._store, b._index[index_b])


@register(RotatedBox, Polygon)
def rotated_polygon_intersection_area(
    a: RotatedBox, b: Polygon, index_a: np.ndarray, index_b: np.ndarray
) -> np.ndarray:
    """Area of ``a[index_a[k]] ∩ b[index_b[k]]``, the box's edges built in the pair's frame (exact at any offset)."""
    from geoiou.kernels.polygon_loops import rotated_polygon_shared_area

    return rotated_polygon_shared_area(a._coords, index_a, b._store, b._index[index_b])


@register(Box, Polygon)
def box_polygon_intersection_area(a: Box, b: Polygon, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Area of ``a[index_a[k]] ∩ b[index_b[k]]`` for each k, from the box's own corners in the pair's frame."""
    from geoiou.kernels.polygon_loops import box_polygon_shared_area

    return box_polygon_shared_area(a._xyxy, index_a, b._store, b._index[index_b])
