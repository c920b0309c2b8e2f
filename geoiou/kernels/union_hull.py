"""The GIoU enclosure of polygons and masks: the area of the convex hull of each pair's union.

The registrations: the kernel is the crate's pass over the pairs (`geoiou.kernels.hull`).
"""

from __future__ import annotations

import numpy as np

from geoiou.dispatch import register
from geoiou.kernels.formulas import Formula, Pairs, with_formula
from geoiou.kernels.hull import hull_pairs
from geoiou.regions import Mask, Polygon

__all__ = ["hull_area"]


def _hulls(a: Polygon | Mask, b: Polygon | Mask, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Area of the convex hull of the union of each pair (the GIoU enclosure).

    Each region's hull is computed once (per polygon store; per pixel store for masks, moved to
    each mask's origin for the masks the pairs name); every pair is then measured from the two
    hulls (`hull.hull_pairs`).
    """
    hulls_a, rows_a = a._hull_table(pairs.index_a)  # the regions the pairs use: their rows or columns
    hulls_b, rows_b = b._hull_table(pairs.index_b)
    hull_pairs(hulls_a, rows_a.reshape(-1), hulls_b, rows_b.reshape(-1), pairs, formula, out)


hull_area = register(Polygon, Polygon, measure="hull")(
    register(Mask, Polygon, measure="hull")(register(Mask, Mask, measure="hull")(with_formula(_hulls)))
)
