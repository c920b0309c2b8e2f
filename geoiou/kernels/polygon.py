"""The shared area of a polygon with a polygon, a rotated box or a box: one pass of the crate over the pairs.

Each registered function hands the regions' arrays (the polygons' store and each region's geometry
in it, the boxes' coordinates) to one pass of the crate (src/polygon.rs), which prunes each pair by
bounds, measures it in its own frame and applies the caller's formula. The area comes from the edges
alone: with a point O at the centre of the pair's common bounds, every ring edge spans a triangle
with O signed by its direction, and the shared area is the sum over edge pairs of the signed areas
the two triangles share, each in closed form; the intersection polygon is never built. Nested and
identical regions share exactly the smaller area, touching ones exactly 0, and ``(a, b)`` gives the
bits of ``(b, a)``.
"""

from __future__ import annotations

import numpy as np

from geoiou import _core
from geoiou._contiguous import contiguous
from geoiou.dispatch import register
from geoiou.kernels.formulas import MEASURED, Formula, Pairs, indices, with_formula
from geoiou.regions import Box, Polygon, RotatedBox
from geoiou.regions.ragged import RaggedPolygons

__all__ = [
    "box_polygon_intersection_area",
    "polygon_intersection_area",
    "polygon_shared_area",
    "rotated_polygon_intersection_area",
]


def polygon_shared_area(
    a: RaggedPolygons, geometry_a: np.ndarray, b: RaggedPolygons, geometry_b: np.ndarray
) -> np.ndarray:
    """``|a[geometry_a[k]] ∩ b[geometry_b[k]]|`` for every k: the shared area of polygon pairs of two stores.

    Examples
    --------
    >>> square = np.array([[0, 0], [2, 0], [2, 2], [0, 2], [0, 0]], dtype=float)
    >>> a = RaggedPolygons.from_closed_rings(square, np.array([0, 5]))
    >>> b = RaggedPolygons.from_closed_rings(np.concatenate([square + 1, square + 2]), np.array([0, 5, 10]))
    >>> polygon_shared_area(a, np.array([0, 0]), b, np.array([0, 1]))  # an overlap, and a corner touching
    array([1., 0.])
    """
    geometry_a, geometry_b = indices(geometry_a), indices(geometry_b)
    out = np.empty(len(geometry_a))
    rows = np.arange(len(geometry_a), dtype=np.int64)
    _core.polygon_pairs((a.arrays, geometry_a), (b.arrays, geometry_b), Pairs(rows, rows), MEASURED, out)
    return out


def _polygons(a: Polygon, b: Polygon, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Area of the intersection of the polygons of each pair (exact; holes and parts included).

    The two polygons of a pair are measured in a canonical order, so swapping `a` and `b` gives the same bits.
    """
    side_a = (a._store.arrays, indices(a._index))
    _core.polygon_pairs(side_a, (b._store.arrays, indices(b._index)), pairs, formula, out)


def _rotated_boxes(a: RotatedBox, b: Polygon, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Area of the intersection of each pair's rotated box and polygon, the box's edges built in the pair's frame
    (exact at any offset)."""
    boxes = contiguous(a._coords).reshape(-1, 5)
    _core.rotated_polygon_pairs(boxes, b._store.arrays, indices(b._index), pairs, formula, out)


def _boxes(a: Box, b: Polygon, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Area of the intersection of each pair's box and polygon, from the box's own corners in the pair's frame."""
    boxes = contiguous(a._xyxy).reshape(-1, 4)
    _core.box_polygon_pairs(boxes, b._store.arrays, indices(b._index), pairs, formula, out)


def _polygon_single(a: Polygon, b: Polygon, code: int, zero_division: float) -> float:
    """The formula `code` of the shared area of two single polygons, in one call (the pass's pair function)."""
    return _core.polygon_single(a._store.arrays, int(a._index), b._store.arrays, int(b._index), code, zero_division)


polygon_intersection_area = register(Polygon, Polygon)(with_formula(_polygons, single=_polygon_single))
rotated_polygon_intersection_area = register(RotatedBox, Polygon)(with_formula(_rotated_boxes))
box_polygon_intersection_area = register(Box, Polygon)(with_formula(_boxes))
