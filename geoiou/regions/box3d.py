"""Axis-aligned 3-D boxes ``[x1, x2) × [y1, y2) × [z1, z2)``."""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Literal

import numpy as np
from numpy.typing import ArrayLike

from geoiou._validation import (
    LARGEST_COORDINATE_3D,
    SMALLEST_VOLUME,
    as_float_array,
    fail,
    plain_numbers,
    require_measurable,
    require_ordered,
    require_within_range,
    xywh_lost_size,
)
from geoiou.regions.base import readonly
from geoiou.regions.solid import Solid

if TYPE_CHECKING:
    from geoiou.regions.box import Box
    from geoiou.regions.oriented_box3d import OrientedBox3D
    from geoiou.regions.rotated_box3d import RotatedBox3D

__all__ = ["Box3D"]

Box3DFormat = Literal["xyzxyz", "xyzwhd", "cxcyczwhd"]
FORMATS_3D = ("xyzxyz", "xyzwhd", "cxcyczwhd")


class Box3D(Solid):
    """Axis-aligned 3-D boxes ``[x1, x2) × [y1, y2) × [z1, z2)``; their measure is the volume.

    3-D regions compare only with 3-D regions (`RotatedBox3D`, `OrientedBox3D`, promoted exactly).

    Parameters
    ----------
    coords : array_like of shape (..., 6)
        One box or a batch, in the format `fmt`.
    fmt : {"xyzxyz", "xyzwhd", "cxcyczwhd"}, default "xyzxyz"
        ``xyzxyz`` is the corners ``x1, y1, z1, x2, y2, z2`` with ``x1 <= x2``, ``y1 <= y2`` and
        ``z1 <= z2``; ``xyzwhd`` the lower corner and the sizes along x, y and z; ``cxcyczwhd`` the
        centre and the sizes (ScanNet's and votenet's axis-aligned boxes).

    Raises
    ------
    InvalidRegionError
        If a value is NaN or infinite, a corner pair is out of order, a size is negative, or the
        last axis does not have length 6; or if a coordinate's magnitude exceeds ``2**336`` or a
        positive volume is below ``2**-1000``, where float64 volumes would overflow or underflow.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.Box3D([0, 0, 0, 4, 2, 1]).volume
    8.0
    >>> geoiou.Box3D([[1, 1, 1, 2, 2, 2], [0, 0, 0, 3, 0, 1]], fmt="cxcyczwhd").volume  # a flat box
    array([8., 0.])
    """

    def __init__(self, coords: ArrayLike, *, fmt: Box3DFormat = "xyzxyz") -> None:
        plain = plain_numbers(coords, 6) if fmt == "xyzxyz" else None
        if plain is not None and _plain_box_fits(plain):
            # One box of plain numbers, the single-pair path: checked in Python floats, no NumPy passes; the
            # array is read-only as made (over the packed bytes), without a flags object.
            object.__setattr__(self, "_coords", np.frombuffer(_SIX.pack(*plain)))
            return
        array = as_float_array(coords, "coords", trailing=6)
        corners = _to_corners(array, fmt)
        for axis, name in enumerate("xyz"):
            require_ordered(corners[..., axis], corners[..., axis + 3], "coords", f"{name}1 <= {name}2")
        require_within_range(np.abs(corners).max(axis=-1, initial=0.0), "coords", largest=LARGEST_COORDINATE_3D)
        sizes = corners[..., 3:] - corners[..., :3]
        require_measurable(
            np.prod(sizes, axis=-1), (sizes > 0).all(axis=-1), "coords", smallest=SMALLEST_VOLUME, what="volume"
        )
        object.__setattr__(self, "_coords", readonly(corners))

    def to_array(self, fmt: Box3DFormat = "xyzxyz") -> np.ndarray:
        """Return the coordinates as an array of shape ``(*shape, 6)`` in format `fmt`.

        Examples
        --------
        >>> import geoiou
        >>> geoiou.Box3D([0, 0, 0, 4, 2, 2]).to_array("cxcyczwhd")
        array([2., 1., 1., 4., 2., 2.])
        """
        low, high = self._coords[..., :3], self._coords[..., 3:]
        if fmt == "xyzxyz":
            return np.array(self._coords)
        if fmt == "xyzwhd":
            return np.concatenate([low, high - low], axis=-1)
        if fmt == "cxcyczwhd":
            return np.concatenate([(low + high) / 2, high - low], axis=-1)
        raise fail("fmt", f"one of {FORMATS_3D}", fmt)

    def _area_array(self) -> np.ndarray:
        coords = self._coords
        if coords.ndim == 1:  # one box: Python floats round as NumPy does, without its per-call costs
            x1, y1, z1, x2, y2, z2 = coords.tolist()
            return np.array((x2 - x1) * (y2 - y1) * (z2 - z1))
        sizes = coords[..., 3:] - coords[..., :3]
        return np.asarray(sizes[..., 0] * sizes[..., 1] * sizes[..., 2])

    @property
    def bounds(self) -> np.ndarray:
        """``xmin, ymin, zmin, xmax, ymax, zmax``, shape ``(*shape, 6)``: the corners themselves."""
        return np.array(self._coords)

    @property
    def centroid(self) -> np.ndarray:
        centre: np.ndarray = (self._coords[..., :3] + self._coords[..., 3:]) / 2
        return centre

    def footprint(self) -> Box:
        """Return the boxes seen from above (along -z): the `Box` ``x1, y1, x2, y2`` of each.

        Examples
        --------
        >>> import geoiou
        >>> geoiou.Box3D([0, 0, 0, 4, 2, 1]).footprint()
        Box(0, 0, 4, 2)
        """
        from geoiou.regions.box import Box

        coords = self._coords
        return Box._from_fields(_xyxy=coords[..., [0, 1, 3, 4]], _size=coords[..., 3:5] - coords[..., :2])

    def to_rotated_box3d(self) -> RotatedBox3D:
        """Return the same boxes as `RotatedBox3D` at yaw 0 (exact up to the rounding of the centres)."""
        from geoiou.regions.rotated_box3d import RotatedBox3D

        centre_size = self.to_array("cxcyczwhd")
        return RotatedBox3D._from_fields(_coords=np.concatenate([centre_size, np.zeros((*self.shape, 1))], axis=-1))

    def to_oriented_box3d(self) -> OrientedBox3D:
        """Return the same boxes as `OrientedBox3D` with the identity rotation."""
        return self.to_rotated_box3d().to_oriented_box3d()

    def corners(self) -> np.ndarray:
        """Return the eight corners, shape ``(*shape, 8, 3)``, in the order of `RotatedBox3D.to_corners`."""
        return self.to_rotated_box3d().to_corners()


#: Six float64 as bytes, for the read-only array of one box.
_SIX = struct.Struct("6d")


def _plain_box_fits(plain: tuple[float, ...]) -> bool:
    """For one box of plain numbers: ordered corners, in range, a volume of 0 or a measurable one."""
    x1, y1, z1, x2, y2, z2 = plain
    if not (x1 <= x2 and y1 <= y2 and z1 <= z2):
        return False
    if max(map(abs, plain)) > LARGEST_COORDINATE_3D:
        return False
    dx, dy, dz = x2 - x1, y2 - y1, z2 - z1
    # A box with three positive sizes must have a measurable volume (its product may underflow to 0).
    return not (dx > 0 and dy > 0 and dz > 0) or dx * dy * dz >= SMALLEST_VOLUME


def _to_corners(array: np.ndarray, fmt: str) -> np.ndarray:
    """Convert `array` from `fmt` to corners, refusing negative sizes and sizes the conversion rounds away."""
    if fmt == "xyzxyz":
        return array
    if fmt not in FORMATS_3D:
        raise fail("fmt", f"one of {FORMATS_3D}", fmt)
    first, sizes = array[..., :3], array[..., 3:]
    negative = sizes < 0
    if negative.any():
        index = tuple(int(i) for i in np.argwhere(negative.any(axis=-1))[0])
        raise fail("coords", "non-negative sizes w, h, d", f"{sizes[index].tolist()} at batch index {index}")
    with np.errstate(over="ignore"):  # a corner beyond float64 becomes inf, which the range check refuses
        low = first if fmt == "xyzwhd" else first - sizes / 2
        high = first + sizes if fmt == "xyzwhd" else first + sizes / 2
    lost = np.zeros(array.shape[:-1], dtype=bool)
    for axis in range(3):
        lost |= xywh_lost_size(low[..., axis], sizes[..., axis], high[..., axis])
    if lost.any():
        index = tuple(int(i) for i in np.argwhere(lost)[0])
        raise fail(
            "coords",
            f"sizes that survive the conversion to corners (fmt={fmt!r}): a size below float64's resolution "
            "at its coordinates rounds away; shift the data towards the origin",
            f"{array[index].tolist()} at batch index {index}",
        )
    return np.concatenate([low, high], axis=-1)
