"""The exact kernels of 3-D boxes turned about z (`RotatedBox3D`) and in any orientation (`OrientedBox3D`).

Each registered function hands the boxes' coordinates to one pass of the crate over the pairs
(`yaw_pairs`, `oriented_pairs`, src/boxes3d.rs), which measures each pair (its intersection volume,
or the volume of the convex hull of the pair for GIoU) and applies the caller's formula. `Box3D`
has the closed form of `geoiou.kernels.box` and meets these kinds by promotion.
"""

from __future__ import annotations

import numpy as np

from geoiou import _core
from geoiou._contiguous import contiguous
from geoiou.dispatch import register
from geoiou.kernels.formulas import Formula, Pairs, with_formula
from geoiou.regions import OrientedBox3D, RotatedBox3D

__all__ = ["oriented_hull_pairs", "oriented_intersection_pairs", "yaw_hull_pairs", "yaw_intersection_pairs"]


def _yaw_intersections(a: RotatedBox3D, b: RotatedBox3D, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Intersection volumes of the pairs of two batches of yaw boxes: the footprints' overlap times the heights'.

    Exact up to rounding, in ``[0, min(volume_a, volume_b)]``; exactly the smaller volume when a box
    is inside the other, exactly 0 when the bounds do not overlap; the same bits for ``(b, a)``.
    """
    _core.yaw_pairs(_rows(a._coords, 7), _rows(b._coords, 7), False, pairs, formula, out)


def _yaw_hulls(a: RotatedBox3D, b: RotatedBox3D, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Volumes of the convex hulls of the pairs of two batches of yaw boxes (the 3-D GIoU enclosure)."""
    _core.yaw_pairs(_rows(a._coords, 7), _rows(b._coords, 7), True, pairs, formula, out)


def _oriented_intersections(
    a: OrientedBox3D, b: OrientedBox3D, pairs: Pairs, formula: Formula, out: np.ndarray
) -> None:
    """Intersection volumes of the pairs of two batches of oriented boxes (in the frame of the smaller box).

    Exact up to rounding, in ``[0, min(volume_a, volume_b)]``; exactly the smaller volume when a box
    is inside the other, exactly 0 when the bounds do not overlap; the same bits for ``(b, a)``.
    """
    _core.oriented_pairs(_rows(a._coords, 15), _rows(b._coords, 15), False, pairs, formula, out)


def _oriented_hulls(a: OrientedBox3D, b: OrientedBox3D, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Volumes of the convex hulls of the pairs of two batches of oriented boxes (of their sixteen corners)."""
    _core.oriented_pairs(_rows(a._coords, 15), _rows(b._coords, 15), True, pairs, formula, out)


def _yaw_single(a: RotatedBox3D, b: RotatedBox3D, code: int, zero_division: float) -> float:
    """The formula `code` of two single yaw boxes, in one call (the pass's pair function)."""
    return _core.yaw_single(contiguous(a._coords), contiguous(b._coords), code, zero_division)


def _oriented_single(a: OrientedBox3D, b: OrientedBox3D, code: int, zero_division: float) -> float:
    """The formula `code` of two single oriented boxes, in one call (the pass's pair function)."""
    return _core.oriented_single(contiguous(a._coords), contiguous(b._coords), code, zero_division)


def _rows(coords: np.ndarray, width: int) -> np.ndarray:
    """A batch's coordinates (any shape, flattened) as the rows ``(n, width)`` the crate reads."""
    return contiguous(coords).reshape(-1, width)


yaw_intersection_pairs = register(RotatedBox3D, RotatedBox3D)(with_formula(_yaw_intersections, single=_yaw_single))
yaw_hull_pairs = register(RotatedBox3D, RotatedBox3D, measure="hull")(with_formula(_yaw_hulls))
oriented_intersection_pairs = register(OrientedBox3D, OrientedBox3D)(
    with_formula(_oriented_intersections, single=_oriented_single)
)
oriented_hull_pairs = register(OrientedBox3D, OrientedBox3D, measure="hull")(with_formula(_oriented_hulls))
