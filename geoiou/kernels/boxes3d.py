"""The exact kernels of 3-D boxes turned about z (`RotatedBox3D`) and in any orientation (`OrientedBox3D`).

Each registered function hands the boxes' coordinates to one compiled loop over the pairs
(`geoiou.kernels.boxes3d_loops`), which measures each pair (its intersection volume, or the volume
of the convex hull of the pair for GIoU) and applies the caller's formula. `Box3D` has the closed
form of `geoiou.kernels.box` and meets these kinds by promotion. The loops' module is imported on
first use (the command line does not pay for its compilation).
"""

from __future__ import annotations

import functools
from types import ModuleType

import numpy as np

from geoiou.dispatch import register
from geoiou.kernels.formulas import Formula, Pairs, with_formula
from geoiou.kernels.numba_formulas import CODES
from geoiou.regions import OrientedBox3D, RotatedBox3D

__all__ = ["oriented_hull_pairs", "oriented_intersection_pairs", "yaw_hull_pairs", "yaw_intersection_pairs"]


@functools.cache
def _loops() -> ModuleType:
    """`geoiou.kernels.boxes3d_loops`, imported on first use."""
    from geoiou.kernels import boxes3d_loops

    return boxes3d_loops


def _yaw_intersections(a: RotatedBox3D, b: RotatedBox3D, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Intersection volumes of the pairs of two batches of yaw boxes: the footprints' overlap times the heights'.

    Exact up to rounding, in ``[0, min(volume_a, volume_b)]``; exactly the smaller volume when a box
    is inside the other, exactly 0 when the bounds do not overlap; the same bits for ``(b, a)``.
    """
    _loops().yaw_pairs(a._coords, b._coords, pairs, formula, out, False)


def _yaw_hulls(a: RotatedBox3D, b: RotatedBox3D, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Volumes of the convex hulls of the pairs of two batches of yaw boxes (the 3-D GIoU enclosure)."""
    _loops().yaw_pairs(a._coords, b._coords, pairs, formula, out, True)


def _oriented_intersections(
    a: OrientedBox3D, b: OrientedBox3D, pairs: Pairs, formula: Formula, out: np.ndarray
) -> None:
    """Intersection volumes of the pairs of two batches of oriented boxes (`geoiou.kernels.oriented_overlap`).

    Exact up to rounding, in ``[0, min(volume_a, volume_b)]``; exactly the smaller volume when a box
    is inside the other, exactly 0 when the bounds do not overlap; the same bits for ``(b, a)``.
    """
    _loops().oriented_pairs(a._coords, b._coords, pairs, formula, out, False)


def _oriented_hulls(a: OrientedBox3D, b: OrientedBox3D, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Volumes of the convex hulls of the pairs of two batches of oriented boxes (`geoiou.kernels.convex_hull3d`)."""
    _loops().oriented_pairs(a._coords, b._coords, pairs, formula, out, True)


def _yaw_single(a: RotatedBox3D, b: RotatedBox3D, code: int, zero_division: float) -> float:
    """The formula `code` of two single yaw boxes, in one compiled call (the loop's pair function)."""
    value: float = _loops().yaw_single(a._coords, b._coords, CODES[code], zero_division)
    return value


def _oriented_single(a: OrientedBox3D, b: OrientedBox3D, code: int, zero_division: float) -> float:
    """The formula `code` of two single oriented boxes, in one compiled call (the loop's pair function)."""
    value: float = _loops().oriented_single(a._coords, b._coords, CODES[code], zero_division)
    return value


yaw_intersection_pairs = register(RotatedBox3D, RotatedBox3D)(with_formula(_yaw_intersections, single=_yaw_single))
yaw_hull_pairs = register(RotatedBox3D, RotatedBox3D, measure="hull")(with_formula(_yaw_hulls))
oriented_intersection_pairs = register(OrientedBox3D, OrientedBox3D)(
    with_formula(_oriented_intersections, single=_oriented_single)
)
oriented_hull_pairs = register(OrientedBox3D, OrientedBox3D, measure="hull")(with_formula(_oriented_hulls))
