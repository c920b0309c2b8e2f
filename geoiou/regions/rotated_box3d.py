"""3-D boxes turned about the vertical axis ``(cx, cy, cz, dx, dy, dz, yaw)``, and the conventions of the 3-D toolkits.

geoiou's frame is right-handed with z up (the LiDAR frames of OpenPCDet, mmdet3d, nuScenes and
Waymo). A box's footprint is the `RotatedBox` ``(cx, cy, dx, dy, yaw)``: ``dx`` lies along the
heading, which turns counter-clockwise seen from above (from +x towards +y) as `yaw` grows, and
``dz`` spans ``cz ± dz/2``. KITTI's camera labels (y down, z forward, the bottom centre given) are
turned into this frame by an exact rotation of the axes, so volumes and IoUs are unchanged.
"""

from __future__ import annotations

import math
import struct
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from geoiou._validation import (
    LARGEST_COORDINATE_3D,
    SMALLEST_VOLUME,
    as_float_array,
    fail,
    require_measurable,
    require_nonnegative,
    require_within_range,
)
from geoiou.regions.base import as_measure, readonly
from geoiou.regions.rotated_box import RotatedBox, corner_bounds
from geoiou.regions.solid import Solid

if TYPE_CHECKING:
    from geoiou.regions.oriented_box3d import OrientedBox3D

__all__ = ["CORNER_ORDERS", "RotatedBox3D", "box_corners_3d"]

Mmdet3dMode = Literal["lidar", "depth", "camera"]
MMDET3D_MODES = ("lidar", "depth", "camera")
CornerOrder = Literal["pytorch3d", "objectron"]
#: Signs of the half sizes of each corner, per order. geoiou's (and pytorch3d's): the bottom face
#: (-dz/2) counter-clockwise seen from above, from (-, -), then the top face alike. Objectron's:
#: its centre keypoint first (not a corner), then the corners with the signs of x, y, z as the bits
#: of 0..7, x the highest.
CORNER_ORDERS: dict[str, np.ndarray] = {
    "pytorch3d": np.array(
        [[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1], [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]],
        dtype=np.float64,
    ),
    "objectron": np.array(
        [[-1, -1, -1], [-1, -1, 1], [-1, 1, -1], [-1, 1, 1], [1, -1, -1], [1, -1, 1], [1, 1, -1], [1, 1, 1]],
        dtype=np.float64,
    ),
}


class RotatedBox3D(Solid):
    """3-D boxes turned about the vertical axis: ``cx, cy, cz, dx, dy, dz, yaw``, yaw in degrees.

    The corners are ``(cx, cy, cz) + Rz(yaw) @ (±dx/2, ±dy/2, ±dz/2)`` with ``Rz`` the turn by
    `yaw` about +z, in a right-handed frame with z up: seen from above, a positive yaw turns the
    heading (the ``dx`` axis) from +x towards +y. The footprint is ``RotatedBox([cx, cy, dx, dy,
    yaw])``. Adapters read the conventions of KITTI, OpenPCDet, mmdet3d, nuScenes and Waymo.

    Parameters
    ----------
    coords : array_like of shape (..., 7)
        ``cx, cy, cz, dx, dy, dz, yaw`` of one box or a batch: the centre, the sizes along the box's
        own axes, and the yaw in degrees.

    Raises
    ------
    InvalidRegionError
        If a value is NaN or infinite, a size is negative, or the last axis does not have length 7;
        or if a corner's coordinates exceed ``2**336`` in magnitude or a positive volume is below
        ``2**-1000``, where float64 volumes would overflow or underflow.

    Examples
    --------
    >>> import geoiou
    >>> box = geoiou.RotatedBox3D([0, 0, 1, 4, 2, 2, 90])
    >>> box.volume
    16.0
    >>> box.bounds  # the heading points along +y
    array([-1., -2.,  0.,  1.,  2.,  2.])
    >>> geoiou.RotatedBox3D([0, 0, 0, 4, 2, 0, 30]).volume  # a flat box is allowed; it has no volume
    0.0
    """

    def __init__(self, coords: ArrayLike) -> None:
        packed = _plain_box_bytes(coords)
        if packed is not None:
            # One box of plain numbers, the single-pair path: checked in Python floats, no NumPy passes; the
            # array is read-only as made (over the packed bytes), without a flags object.
            object.__setattr__(self, "_coords", np.frombuffer(packed))
            return
        array = as_float_array(coords, "coords", trailing=7)
        for axis, name in zip((3, 4, 5), ("dx", "dy", "dz")):
            require_nonnegative(array[..., axis], "coords", f"size {name}")
        sizes = array[..., 3:6]
        # The corners lie within half the diagonal of the centre.
        with np.errstate(over="ignore"):  # sizes beyond 2**511 square to inf: refused just below, no warning
            reach = np.abs(array[..., :3]).max(axis=-1) + np.sqrt((sizes * sizes).sum(axis=-1)) / 2
        require_within_range(reach, "coords", largest=LARGEST_COORDINATE_3D)
        require_measurable(
            np.prod(sizes, axis=-1),
            np.asarray((sizes > 0).all(axis=-1)),
            "coords",
            smallest=SMALLEST_VOLUME,
            what="volume",
        )
        object.__setattr__(self, "_coords", readonly(array))

    # ----------------------------------------------------------------- adapters
    @classmethod
    def from_radians(cls, coords: ArrayLike) -> RotatedBox3D:
        """Build from ``cx, cy, cz, dx, dy, dz, yaw`` with the yaw in radians (OpenPCDet's and Waymo's boxes).

        Examples
        --------
        >>> import geoiou
        >>> geoiou.RotatedBox3D.from_radians([0, 0, 0, 4, 2, 1, 3.141592653589793 / 2]).yaw
        90.0
        """
        array = as_float_array(coords, "coords", trailing=7)
        return cls(_with_yaw(array, np.rad2deg(array[..., 6])))

    @classmethod
    def from_openpcdet(cls, boxes: ArrayLike) -> RotatedBox3D:
        """Build from OpenPCDet's LiDAR boxes ``x, y, z, dx, dy, dz, heading``: the centre, radians.

        The same numbers as Waymo's ``center_x, center_y, center_z, length, width, height, heading``
        (`from_waymo`). Extra columns (velocities) are refused: pass ``boxes[:, :7]``.

        Examples
        --------
        >>> import geoiou
        >>> geoiou.RotatedBox3D.from_openpcdet([10, 2, -1, 4, 2, 1.5, 0]).to_array()
        array([10. ,  2. , -1. ,  4. ,  2. ,  1.5,  0. ])
        """
        return cls.from_radians(boxes)

    @classmethod
    def from_waymo(cls, boxes: ArrayLike) -> RotatedBox3D:
        """Build from Waymo's ``center_x, center_y, center_z, length, width, height, heading`` (radians).

        Examples
        --------
        >>> import geoiou
        >>> geoiou.RotatedBox3D.from_waymo([10, 2, -1, 4, 2, 1.5, 0]).volume
        12.0
        """
        return cls.from_radians(boxes)

    @classmethod
    def from_mmdet3d(cls, boxes: ArrayLike, *, mode: Mmdet3dMode = "lidar") -> RotatedBox3D:
        """Build from mmdet3d's (1.x) box tensors ``x, y, z, x_size, y_size, z_size, yaw`` (radians).

        ``mode="lidar"`` (`LiDARInstance3DBoxes`) and ``"depth"`` (`DepthInstance3DBoxes`, ScanNet,
        SUN RGB-D): z up, ``(x, y, z)`` the bottom centre, the yaw counter-clockwise from +x.
        ``"camera"`` (`CameraInstance3DBoxes`): KITTI's camera frame, ``(x, y, z)`` the bottom centre
        with y down, sizes ``l, h, w``, the yaw about +y (`from_kitti_camera` with the sizes reordered).

        Examples
        --------
        >>> import geoiou
        >>> geoiou.RotatedBox3D.from_mmdet3d([10, 2, -1, 4, 2, 1.5, 0]).to_array()  # the centre is 0.75 higher
        array([10.  ,  2.  , -0.25,  4.  ,  2.  ,  1.5 ,  0.  ])
        """
        array = as_float_array(boxes, "boxes", trailing=7)
        if mode == "camera":
            x, y, z, length, height, width, yaw = np.moveaxis(array, -1, 0)
            return cls.from_kitti_camera(np.stack([height, width, length, x, y, z, yaw], axis=-1))
        if mode not in MMDET3D_MODES:
            raise fail("mode", f"one of {MMDET3D_MODES}", mode)
        centred = np.array(array)
        centred[..., 2] = array[..., 2] + array[..., 5] / 2
        return cls.from_radians(centred)

    @classmethod
    def from_kitti_camera(cls, labels: ArrayLike) -> RotatedBox3D:
        """Build from KITTI's camera-frame 3-D boxes ``h, w, l, x, y, z, ry`` (the order of its label files).

        KITTI's rectified camera frame has x right, y down and z forward; ``(x, y, z)`` is the bottom
        centre of the box, and ``ry`` (radians) turns it about +y, the length ``l`` lying along
        ``(cos ry, 0, -sin ry)``. geoiou reads it in the z-up frame ``(z, -x, -y)``, an exact proper
        rotation of the axes (no mirror: volumes, IoUs and BEV overlaps are KITTI's own): centre
        ``(z, -x, h/2 - y)``, sizes ``(l, w, h)`` and yaw ``-90° - ry``.

        Examples
        --------
        >>> import geoiou
        >>> car = geoiou.RotatedBox3D.from_kitti_camera([1.5, 1.6, 3.9, 2.0, 1.7, 20.0, 0.0])
        >>> car.to_array()
        array([ 20.  ,  -2.  ,  -0.95,   3.9 ,   1.6 ,   1.5 , -90.  ])
        >>> car.to_kitti_camera()
        array([ 1.5,  1.6,  3.9,  2. ,  1.7, 20. ,  0. ])
        """
        array = as_float_array(labels, "labels", trailing=7)
        h, w, length, x, y, z, ry = np.moveaxis(array, -1, 0)
        return cls(np.stack([z, -x, h / 2 - y, length, w, h, -90.0 - np.rad2deg(ry)], axis=-1))

    @classmethod
    def from_nuscenes(cls, center: ArrayLike, wlh: ArrayLike, rotation: ArrayLike) -> RotatedBox3D:
        """Build from nuScenes' boxes: ``center``, ``wlh`` (width, length, height) and the rotation quaternion
        ``w, x, y, z`` (pyquaternion's order), which must turn about the z axis only.

        The length lies along the box's x axis (the heading), the width along y. A tilted box is an
        `OrientedBox3D` (`OrientedBox3D.from_nuscenes`).

        Examples
        --------
        >>> import geoiou, math
        >>> half = math.radians(30) / 2
        >>> box = geoiou.RotatedBox3D.from_nuscenes([1, 2, 3], [2, 4, 1.5], [math.cos(half), 0, 0, math.sin(half)])
        >>> box.to_array().round(9)
        array([ 1. ,  2. ,  3. ,  4. ,  2. ,  1.5, 30. ])
        """
        from geoiou.regions.rotations import yaw_of_quaternions

        centre = as_float_array(center, "center", trailing=3)
        sizes = as_float_array(wlh, "wlh", trailing=3)
        yaw = yaw_of_quaternions(np.asarray(rotation), "rotation")
        centre, sizes, yaw = np.broadcast_arrays(centre, sizes, yaw[..., None])
        return cls(np.concatenate([centre, sizes[..., [1, 0, 2]], yaw[..., :1]], axis=-1))

    def to_array(self) -> np.ndarray:
        """Return ``cx, cy, cz, dx, dy, dz, yaw`` (degrees) as an array of shape ``(*shape, 7)``."""
        return np.array(self._coords)

    def to_radians(self) -> np.ndarray:
        """Return ``cx, cy, cz, dx, dy, dz, yaw`` with the yaw in radians (OpenPCDet's and Waymo's boxes)."""
        return _with_yaw(self._coords, np.deg2rad(self._coords[..., 6]))

    def to_kitti_camera(self) -> np.ndarray:
        """Return KITTI's camera-frame ``h, w, l, x, y, z, ry`` (the inverse of `from_kitti_camera`)."""
        cx, cy, cz, dx, dy, dz, yaw = np.moveaxis(self._coords, -1, 0)
        ry = np.deg2rad(-90.0 - yaw)
        # ry in (-pi, pi], as KITTI writes it.
        ry = np.where(ry <= -math.pi, ry + 2 * math.pi, np.where(ry > math.pi, ry - 2 * math.pi, ry))
        return np.stack([dz, dy, dx, -cy, dz / 2 - cz, cx, ry], axis=-1)

    def to_corners(self, order: CornerOrder = "pytorch3d") -> np.ndarray:
        """Return the eight corners, shape ``(*shape, 8, 3)``, in the order `order`.

        ``"pytorch3d"`` (geoiou's own, and `pytorch3d.ops.box3d_overlap`'s input): the bottom face
        counter-clockwise seen from above, starting at ``(-dx/2, -dy/2)``, then the top face alike.
        ``"objectron"``: Objectron's keypoints 1 to 8 (the signs of x, y, z as bits, x the highest;
        its keypoint 0 is the centre, `centroid`).

        Examples
        --------
        >>> import geoiou
        >>> geoiou.RotatedBox3D([0, 0, 0, 2, 2, 2, 0]).to_corners()[:4]
        array([[-1., -1., -1.],
               [ 1., -1., -1.],
               [ 1.,  1., -1.],
               [-1.,  1., -1.]])
        """
        return self.to_oriented_box3d().to_corners(order)

    def footprint(self) -> RotatedBox:
        """Return the boxes seen from above: the `RotatedBox` ``cx, cy, dx, dy, yaw`` of each (bird's-eye view).

        Examples
        --------
        >>> import geoiou
        >>> geoiou.RotatedBox3D([1, 2, 3, 4, 2, 1, 30]).footprint()
        RotatedBox(1, 2, 4, 2, 30)
        """
        return RotatedBox._from_fields(_coords=self._coords[..., [0, 1, 3, 4, 6]])

    def to_oriented_box3d(self) -> OrientedBox3D:
        """Return the same boxes as `OrientedBox3D` (their rotation matrix about z; exact at quarter turns)."""
        from geoiou.regions.oriented_box3d import OrientedBox3D
        from geoiou.regions.rotations import yaw_rotations

        rotation = yaw_rotations(self._coords[..., 6]).reshape((*self.shape, 9))
        return OrientedBox3D._from_fields(_coords=np.concatenate([self._coords[..., :6], rotation], axis=-1))

    # ----------------------------------------------------------------- measures
    @property
    def shape(self) -> tuple[int, ...]:
        """Batch shape: ``()`` for a single box, ``(N,)`` for a batch of N (read on every metric's call)."""
        shape: tuple[int, ...] = self._coords.shape[:-1]
        return shape

    @property
    def yaw(self) -> float | np.ndarray:
        """Yaw of each box in degrees."""
        return as_measure(self._coords[..., 6])

    @property
    def bounds(self) -> np.ndarray:
        """``xmin, ymin, zmin, xmax, ymax, zmax`` of the corners, shape ``(*shape, 6)``.

        x and y are the footprint's bounds (`RotatedBox.bounds`, which span the neighbouring floats
        of a box too narrow for float64 at its centre); z is ``cz ± dz/2`` alike.
        """
        coords = self._coords
        plane = corner_bounds(coords[..., [0, 1, 3, 4, 6]])
        low, high = _vertical_extent(coords)
        return np.stack([plane[..., 0], plane[..., 1], low, plane[..., 2], plane[..., 3], high], axis=-1)


def _vertical_extent(coords: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``cz ∓ dz/2`` of boxes ``(..., >= 6)`` with a volume, spanning the neighbouring floats where it collapses."""
    centre, half = coords[..., 2], 0.5 * coords[..., 5]
    low, high = centre - half, centre + half
    collapsed = (low == high) & (np.prod(coords[..., 3:6], axis=-1) > 0)
    if collapsed.any():
        low = np.where(collapsed, np.nextafter(centre, -np.inf), low)
        high = np.where(collapsed, np.nextafter(centre, np.inf), high)
    return low, high


def box_corners_3d(centre: np.ndarray, sizes: np.ndarray, rotation: np.ndarray, order: str) -> np.ndarray:
    """Corners ``(..., 8, 3)`` of boxes of `centre` ``(..., 3)``, `sizes` ``(..., 3)``, `rotation` ``(..., 3, 3)``."""
    if order not in CORNER_ORDERS:
        raise fail("order", f"one of {tuple(CORNER_ORDERS)}", order)
    local = CORNER_ORDERS[order] * (0.5 * sizes[..., None, :])  # (..., 8, 3)
    corners: np.ndarray = centre[..., None, :] + np.einsum("...ij,...kj->...ki", rotation, local)
    return corners


def _plain_box_bytes(coords: Any) -> bytes | None:
    """The seven float64 of one box given as a list or tuple of Python ints and floats, if it passes every check
    in Python floats (finite, sizes non-negative, corners in range, a volume of 0 or a measurable one); else
    None, and the general checks decide (and name what is wrong)."""
    if type(coords) not in _PLAIN_SEQUENCES or len(coords) != 7 or not _PLAIN_NUMBERS.issuperset(map(type, coords)):
        return None
    try:
        packed = _SEVEN.pack(*coords)
    except (OverflowError, struct.error):  # an int beyond float range
        return None
    cx, cy, cz, dx, dy, dz, yaw = _SEVEN.unpack(packed)
    # One sum tests them all for NaN and inf (a sum that overflows sends finite numbers to the general checks).
    # Half the sum of the sizes is at least half the diagonal: within it, the corners are in range (a box
    # beyond it takes the general checks, which measure the diagonal).
    if (
        not math.isfinite(cx + cy + cz + dx + dy + dz + yaw)
        or not (dx >= 0 and dy >= 0 and dz >= 0)
        or max(abs(cx), abs(cy), abs(cz)) + 0.5 * (dx + dy + dz) > _PLAIN_REACH
    ):
        return None
    # A box with three positive sizes must have a measurable volume (its product may underflow to 0).
    return packed if not (dx > 0 and dy > 0 and dz > 0) or dx * dy * dz >= SMALLEST_VOLUME else None


_PLAIN_REACH = LARGEST_COORDINATE_3D
_PLAIN_SEQUENCES = (list, tuple)
_PLAIN_NUMBERS = frozenset((int, float))


#: Seven float64 as bytes, for the read-only array of one box.
_SEVEN = struct.Struct("7d")


def _with_yaw(coords: np.ndarray, yaw: np.ndarray) -> np.ndarray:
    """A copy of `coords` (..., 7) with its last column replaced by `yaw`."""
    result = np.array(coords, dtype=np.float64, copy=True)
    result[..., 6] = yaw
    return result
