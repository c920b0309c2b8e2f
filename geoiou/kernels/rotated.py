"""The exact kernels of rotated boxes ``(cx, cy, w, h, angle)``: intersection and convex hull of each pair.

Each registered function hands the boxes' coordinates to one compiled loop over the pairs
(`geoiou.kernels.rotated_loops`), which measures each pair in the frame of its first box, clamped
into the square ``[-1, 1]²`` for the intersection and by a walk of the eight edge normals for the
hull, after pruning the pairs whose bounds do not overlap. The loops are imported on first use, so
``import geoiou`` does not load numba.
"""

from __future__ import annotations

import numpy as np

from geoiou.dispatch import register
from geoiou.regions import RotatedBox

__all__ = ["rotated_hull_pairs", "rotated_intersection_pairs"]


@register(RotatedBox, RotatedBox)
def rotated_intersection_pairs(a: RotatedBox, b: RotatedBox, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Intersection areas of the pairs ``(a[index_a[k]], b[index_b[k]])`` of two flat batches of rotated boxes.

    Exact up to rounding, in ``[0, min(area_a, area_b)]``; exactly the smaller area when a box is
    inside the other, exactly 0 when the bounds do not overlap; the same bits for ``(b, a)``.
    """
    from geoiou.kernels.rotated_loops import intersection_pairs

    return intersection_pairs(a._coords, b._coords, index_a, index_b)


@register(RotatedBox, RotatedBox, measure="hull")
def rotated_hull_pairs(a: RotatedBox, b: RotatedBox, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    """Convex hull areas (the GIoU enclosure) of the pairs ``(a[index_a[k]], b[index_b[k]])`` of two flat batches.

    At least ``max(area_a, area_b)``, exactly that when a box is inside the other; the same bits for ``(b, a)``.
    """
    from geoiou.kernels.rotated_loops import hull_pairs

    return hull_pairs(a._coords, b._coords, index_a, index_b)
