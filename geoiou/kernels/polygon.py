"""The shared area of a polygon with a polygon, a rotated box or a box: the compiled kernels of `polygon_loops`.

Each registered function hands the regions' arrays to one compiled driver over the pairs, which
prunes each pair by bounds, measures it in its own frame and applies the caller's formula. The
loops' module is imported on first use (the command line does not pay for its dispatchers).
"""

from __future__ import annotations

import functools
from types import ModuleType

import numpy as np

from geoiou.dispatch import register
from geoiou.kernels.formulas import Formula, Pairs, with_formula
from geoiou.kernels.numba_formulas import CODES
from geoiou.regions import Box, Polygon, RotatedBox

__all__ = ["box_polygon_intersection_area", "polygon_intersection_area", "rotated_polygon_intersection_area"]


@functools.cache
def _loops() -> ModuleType:
    """`geoiou.kernels.polygon_loops`, imported on first use (the command line does not pay for its dispatchers)."""
    from geoiou.kernels import polygon_loops

    return polygon_loops


def _polygons(a: Polygon, b: Polygon, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Area of the intersection of the polygons of each pair (exact; holes and parts included).

    The two polygons of a pair are measured in a canonical order, so swapping `a` and `b` gives the same bits.
    """
    _loops().polygon_pairs(a._store, a._index.reshape(-1), b._store, b._index.reshape(-1), pairs, formula, out)


def _rotated_boxes(a: RotatedBox, b: Polygon, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Area of the intersection of each pair's rotated box and polygon, the box's edges built in the pair's frame
    (exact at any offset)."""
    _loops().rotated_polygon_pairs(a._coords, b._store, b._index.reshape(-1), pairs, formula, out)


def _boxes(a: Box, b: Polygon, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Area of the intersection of each pair's box and polygon, from the box's own corners in the pair's frame."""
    _loops().box_polygon_pairs(a._xyxy, b._store, b._index.reshape(-1), pairs, formula, out)


def _polygon_single(a: Polygon, b: Polygon, code: int, zero_division: float) -> float:
    """The formula `code` of the shared area of two single polygons, in one compiled call (the loop's pair function)."""
    loops = _loops()
    value: float = loops.polygon_single(a._store, int(a._index), b._store, int(b._index), CODES[code], zero_division)
    return value


polygon_intersection_area = register(Polygon, Polygon)(with_formula(_polygons, single=_polygon_single))
rotated_polygon_intersection_area = register(RotatedBox, Polygon)(with_formula(_rotated_boxes))
box_polygon_intersection_area = register(Box, Polygon)(with_formula(_boxes))
