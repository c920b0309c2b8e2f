"""3-D boxes in any orientation: a centre, three sizes and a rotation (matrix or quaternion)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import shapely
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
from geoiou.regions.base import readonly
from geoiou.regions.rotated_box3d import CORNER_ORDERS, CornerOrder, box_corners_3d
from geoiou.regions.rotations import checked_rotations, quaternion_rotations
from geoiou.regions.solid import Solid

if TYPE_CHECKING:
    from geoiou.regions.polygon import Polygon

__all__ = ["OrientedBox3D"]


class OrientedBox3D(Solid):
    """3-D boxes in any orientation: ``centre + R @ (±dx/2, ±dy/2, ±dz/2)`` for a rotation matrix ``R``.

    The columns of ``R`` are the box's own axes in the data's frame (any right-handed frame:
    nothing depends on which axis is up). Boxes of Objectron, pytorch3d's corners, nuScenes' tilted
    quaternions and ScanNet's oriented boxes all read into this kind.

    Parameters
    ----------
    centre : array_like of shape (..., 3)
    size : array_like of shape (..., 3)
        ``dx, dy, dz``: the sizes along the box's axes (the columns of `rotation`), non-negative.
    rotation : array_like of shape (..., 3, 3)
        Proper rotation matrices (orthonormal within 1e-5, determinant +1). A matrix that is off by
        more than rounding (a float32 one) is replaced by the nearest rotation.

    Raises
    ------
    InvalidRegionError
        If a value is NaN or infinite, a size is negative, a matrix is not a rotation, or the
        shapes do not fit; or if a corner's coordinates exceed ``2**336`` in magnitude or a positive
        volume is below ``2**-1000``.

    Examples
    --------
    >>> import geoiou, numpy as np
    >>> tilted = geoiou.OrientedBox3D([0, 0, 0], [2, 2, 2], [[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    >>> tilted.volume
    8.0
    >>> geoiou.iou(tilted, geoiou.Box3D([-1, -1, -1, 1, 1, 1]))  # a quarter turn of a cube is the cube
    1.0
    >>> geoiou.OrientedBox3D([0, 0, 0], [2, 2, 0], np.eye(3)).volume  # flat
    0.0
    """

    # `_coords` (Solid's table): ``cx, cy, cz, dx, dy, dz`` and the rotation matrix row by row.

    def __init__(self, centre: ArrayLike, size: ArrayLike, rotation: ArrayLike) -> None:
        centres = as_float_array(centre, "centre", trailing=3)
        sizes = as_float_array(size, "size", trailing=3)
        matrices = as_float_array(rotation, "rotation")
        matrices = checked_rotations(matrices, "rotation")
        try:
            shape = np.broadcast_shapes(centres.shape[:-1], sizes.shape[:-1], matrices.shape[:-2])
        except ValueError:
            raise fail(
                "centre, size, rotation",
                "batches whose shapes broadcast: (..., 3), (..., 3) and (..., 3, 3)",
                f"shapes {centres.shape}, {sizes.shape}, {matrices.shape}",
            ) from None
        centres = np.broadcast_to(centres, (*shape, 3))
        sizes = np.broadcast_to(sizes, (*shape, 3))
        matrices = np.broadcast_to(matrices, (*shape, 3, 3))
        for axis, name in enumerate(("dx", "dy", "dz")):
            require_nonnegative(sizes[..., axis], "size", name)
        with np.errstate(over="ignore"):  # sizes beyond 2**511 square to inf: refused just below, no warning
            reach = np.abs(centres).max(axis=-1) + np.sqrt((sizes * sizes).sum(axis=-1)) / 2
        require_within_range(reach, "centre, size", largest=LARGEST_COORDINATE_3D)  # the corners: both
        require_measurable(
            np.prod(sizes, axis=-1),
            np.asarray((sizes > 0).all(axis=-1)),
            "size",
            smallest=SMALLEST_VOLUME,
            what="volume",
        )
        coords = np.concatenate([centres, sizes, matrices.reshape((*shape, 9))], axis=-1)
        object.__setattr__(self, "_coords", readonly(coords))

    # ----------------------------------------------------------------- adapters
    @classmethod
    def from_quaternion(
        cls, centre: ArrayLike, size: ArrayLike, quaternion: ArrayLike, *, scalar_first: bool = True
    ) -> OrientedBox3D:
        """Build from a rotation quaternion: ``w, x, y, z`` (pyquaternion, nuScenes), or ``x, y, z, w`` with
        ``scalar_first=False`` (SciPy's `Rotation.as_quat`, ROS). Quaternions are normalized.

        Examples
        --------
        >>> import geoiou, math
        >>> half = math.radians(90) / 2
        >>> box = geoiou.OrientedBox3D.from_quaternion([0, 0, 0], [4, 2, 2], [math.cos(half), math.sin(half), 0, 0])
        >>> box.bounds.round(12) + 0.0  # turned about x: the y and z sides swap
        array([-2., -1., -1.,  2.,  1.,  1.])
        """
        return cls(centre, size, quaternion_rotations(np.asarray(quaternion), "quaternion", scalar_first=scalar_first))

    @classmethod
    def from_nuscenes(cls, center: ArrayLike, wlh: ArrayLike, rotation: ArrayLike) -> OrientedBox3D:
        """Build from nuScenes' ``center``, ``wlh`` (width, length, height) and quaternion ``w, x, y, z``.

        nuScenes' `Box.corners` puts the length along the box's x axis and the width along y.

        Examples
        --------
        >>> import geoiou
        >>> geoiou.OrientedBox3D.from_nuscenes([0, 0, 0], [2, 4, 1], [1, 0, 0, 0]).sizes
        array([4., 2., 1.])
        """
        sizes = as_float_array(wlh, "wlh", trailing=3)
        return cls.from_quaternion(center, sizes[..., [1, 0, 2]], rotation)

    @classmethod
    def from_corners(cls, corners: ArrayLike, *, order: CornerOrder = "pytorch3d", rtol: float = 1e-6) -> OrientedBox3D:
        """Build from the corners of boxes, shape ``(..., 8, 3)`` (or ``(..., 9, 3)`` for Objectron, centre first).

        Parameters
        ----------
        corners : array_like of shape (..., 8, 3)
            The corners in the order `order` (see `to_corners`).
        order : {"pytorch3d", "objectron"}
            pytorch3d's ``box3d_overlap`` order (geoiou's own), or Objectron's keypoints. The same order
            in a mirrored (left-handed) frame describes the same box and is read as well (votenet's corners).
        rtol : float
            Corners that are not those of a box within `rtol` of its size are refused.

        Examples
        --------
        >>> import geoiou
        >>> box = geoiou.RotatedBox3D([1, 2, 3, 4, 2, 1, 30])
        >>> round(geoiou.iou(geoiou.OrientedBox3D.from_corners(box.to_corners()), box), 12)  # corners round
        1.0
        >>> flat = geoiou.OrientedBox3D.from_corners([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]] * 2)
        >>> flat.sizes  # pytorch3d's NaN case (issue 1178): a box of no height
        array([1., 1., 0.])
        """
        if order not in CORNER_ORDERS:
            raise fail("order", f"one of {tuple(CORNER_ORDERS)}", order)
        points = as_float_array(corners, "corners")
        if order == "objectron" and points.ndim >= 2 and points.shape[-2:] == (9, 3):
            points = points[..., 1:, :]  # keypoint 0 is the centre
        if points.ndim < 2 or points.shape[-2:] != (8, 3):
            raise fail("corners", "an array of shape (..., 8, 3)", f"shape {points.shape}")
        signs = CORNER_ORDERS[order]
        centre = points.mean(axis=-2)
        # The mean of the four edges along axis j is the box's j-th axis times its size: a column of R·diag(d).
        # (Differences of corners first: equal corners, a flat box's, give exactly 0.)
        axes = np.stack([(points[..., high, :] - points[..., low, :]).mean(axis=-2) for low, high in _edges(signs)], -1)
        sizes = np.sqrt((axes * axes).sum(axis=-2))
        u, _, vt = np.linalg.svd(axes)
        rotation = u @ vt  # the polar factor: R with axes = R·diag(sizes), mirrored for a mirrored order
        rebuilt = box_corners_3d(centre, sizes, rotation, order)
        scale = np.maximum(sizes.max(axis=-1), np.finfo(float).tiny)
        off = np.abs(rebuilt - points).max(axis=(-2, -1)) > rtol * scale
        if off.any():
            index = tuple(int(i) for i in np.argwhere(off)[0])
            raise fail("corners", f"the corners of a box in {order}'s order", points[index].tolist())
        return cls(centre, sizes, _proper(rotation, sizes))

    # ----------------------------------------------------------------- conversions
    def to_array(self) -> np.ndarray:
        """Return ``cx, cy, cz, dx, dy, dz`` and the rotation matrix row by row, shape ``(*shape, 15)``."""
        return np.array(self._coords)

    @property
    def centre(self) -> np.ndarray:
        """Centre of each box, shape ``(*shape, 3)``."""
        return np.array(self._coords[..., :3])

    @property
    def sizes(self) -> np.ndarray:
        """Sizes ``dx, dy, dz`` of each box along its own axes, shape ``(*shape, 3)``."""
        return np.array(self._coords[..., 3:6])

    @property
    def rotation(self) -> np.ndarray:
        """Rotation matrix of each box (its axes as columns), shape ``(*shape, 3, 3)``."""
        matrices: np.ndarray = self._coords[..., 6:].reshape((*self.shape, 3, 3)).copy()
        return matrices

    def to_corners(self, order: CornerOrder = "pytorch3d") -> np.ndarray:
        """Return the eight corners, shape ``(*shape, 8, 3)``, in the order `order` (see `RotatedBox3D.to_corners`).

        Examples
        --------
        >>> import geoiou, numpy as np
        >>> geoiou.OrientedBox3D([0, 0, 0], [2, 2, 2], np.eye(3)).to_corners("objectron")[:2]
        array([[-1., -1., -1.],
               [-1., -1.,  1.]])
        """
        coords = self._coords
        return box_corners_3d(coords[..., :3], coords[..., 3:6], self.rotation, order)

    def footprint(self) -> Polygon:
        """Return the boxes seen from above (along -z): the convex hull of their corners' (x, y), as `Polygon`.

        A box turned about z only has a rectangle as its footprint; a tilted one a hexagon.

        Examples
        --------
        >>> import geoiou, numpy as np
        >>> geoiou.OrientedBox3D([0, 0, 0], [2, 2, 2], np.eye(3)).footprint().area
        4.0
        """
        from geoiou.regions.polygon import Polygon

        plane = self.to_corners()[..., :2].reshape(-1, 8, 2)
        hulls = shapely.convex_hull(shapely.multipoints(plane))
        polygonal = np.array([h if h.geom_type == "Polygon" else shapely.Polygon() for h in hulls], dtype=object)
        return Polygon.from_shapely(polygonal.reshape(self.shape) if self.shape else polygonal[0])

    # ----------------------------------------------------------------- measures
    @property
    def bounds(self) -> np.ndarray:
        """``xmin, ymin, zmin, xmax, ymax, zmax`` of the corners, shape ``(*shape, 6)``.

        The reach along axis i is ``Σ_j |R_ij| d_j / 2``; a box whose reach rounds away at its centre
        spans the neighbouring floats there (so it still overlaps itself).
        """
        coords = self._coords
        rotation = coords[..., 6:].reshape((*self.shape, 3, 3))
        reach = (np.abs(rotation) * (0.5 * coords[..., None, 3:6])).sum(axis=-1)
        centre = coords[..., :3]
        low, high = centre - reach, centre + reach
        collapsed = (low == high) & (np.prod(coords[..., 3:6], axis=-1) > 0)[..., None]
        if collapsed.any():
            low = np.where(collapsed, np.nextafter(centre, -np.inf), low)
            high = np.where(collapsed, np.nextafter(centre, np.inf), high)
        return np.concatenate([low, high], axis=-1)

    def _describe_one(self) -> str:
        centre = ", ".join(f"{v:g}" for v in self._coords[:3])
        sizes = ", ".join(f"{v:g}" for v in self._coords[3:6])
        return f"centre=({centre}), sizes=({sizes}), rotation={self._coords[6:].reshape(3, 3).tolist()}"


def _edges(signs: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per axis j, the corners at its low end and their partners at the high end (the same signs but j's)."""
    pairs = []
    for j in range(3):
        low = np.flatnonzero(signs[:, j] < 0)
        high = np.array(
            [int(np.flatnonzero((signs == signs[k] * np.where(np.arange(3) == j, -1, 1)).all(axis=1))[0]) for k in low]
        )
        pairs.append((low, high))
    return pairs


def _proper(rotation: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """`rotation` with one axis turned over where it is mirrored (corners listed in a left-handed order, as
    votenet's): the box, a set symmetric about its centre, is the same region."""
    mirrored = np.linalg.det(rotation) < 0
    if not mirrored.any():
        return rotation
    flip = np.where(mirrored[..., None] & (np.arange(3) == np.argmin(sizes, axis=-1)[..., None]), -1.0, 1.0)
    proper: np.ndarray = rotation * flip[..., None, :]
    return proper
