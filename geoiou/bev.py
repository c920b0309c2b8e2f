"""Bird's-eye-view IoU of 3-D regions: the IoU of their footprints seen from above (along -z).

KITTI and the LiDAR toolkits (OpenPCDet, mmdet3d) report it beside the 3-D IoU. A yaw box's
footprint is the rotated box ``(cx, cy, dx, dy, yaw)``, an axis-aligned box's the box ``(x1, y1,
x2, y2)`` and an oriented box's the convex hull of its corners' ``(x, y)`` (a hexagon for a tilted
box); the 2-D kernels measure them exactly.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import DTypeLike

from geoiou._validation import not_a_region
from geoiou.errors import UnsupportedPairError
from geoiou.metrics import iou, pairwise_iou
from geoiou.regions import Box3D, OrientedBox3D, Region, RotatedBox3D

__all__ = ["bev_iou", "footprint", "pairwise_bev_iou"]

_SOLIDS = (Box3D, RotatedBox3D, OrientedBox3D)


def footprint(region: Region) -> Region:
    """Return the 3-D regions seen from above: `Box` for `Box3D`, `RotatedBox` for `RotatedBox3D`, `Polygon`
    (the convex hull of the corners' ``(x, y)``) for `OrientedBox3D`.

    Raises
    ------
    UnsupportedPairError
        If `region` is not a 3-D region.

    Examples
    --------
    >>> import geoiou
    >>> footprint(geoiou.RotatedBox3D([0, 0, 1, 4, 2, 2, 30]))
    RotatedBox(0, 0, 4, 2, 30)
    >>> footprint(geoiou.Box3D([0, 0, 0, 1, 2, 0]))  # a flat box has a footprint all the same
    Box(0, 0, 1, 2)
    """
    if not isinstance(region, Region):
        raise not_a_region("region", region)
    if not isinstance(region, _SOLIDS):
        raise UnsupportedPairError(
            f"bird's-eye views are of 3-D regions (Box3D, RotatedBox3D, OrientedBox3D), not {type(region).__name__}"
        )
    shadow: Region = region.footprint()
    return shadow


def bev_iou(a: Region, b: Region, *, zero_division: float = math.nan) -> float | np.ndarray:
    """Return the bird's-eye-view IoU of 3-D regions: the IoU of their footprints, elementwise.

    Parameters
    ----------
    a, b : Box3D, RotatedBox3D or OrientedBox3D
        Batches with broadcastable shapes.
    zero_division : float, default NaN
        The result where both footprints have no area.

    Returns
    -------
    float or ndarray of the broadcast batch shape

    Examples
    --------
    >>> import geoiou
    >>> a = geoiou.RotatedBox3D([0, 0, 0, 4, 2, 2, 0])
    >>> b = geoiou.RotatedBox3D([0, 0, 5, 4, 2, 2, 90])  # above it: no volume shared
    >>> geoiou.bev_iou(a, b), geoiou.iou(a, b)  # the footprints share a 2 x 2 square: 4 / 12
    (0.3333333333333333, 0.0)
    """
    return iou(footprint(a), footprint(b), zero_division=zero_division)


def pairwise_bev_iou(
    a: Region, b: Region, *, zero_division: float = math.nan, dtype: DTypeLike = np.float64
) -> np.ndarray:
    """Return the bird's-eye-view IoU of every region of `a` with every region of `b`, shape ``a.shape + b.shape``.

    Examples
    --------
    >>> import geoiou
    >>> boxes = geoiou.RotatedBox3D([[0, 0, 0, 4, 2, 2, 0], [0, 0, 9, 4, 2, 2, 0]])
    >>> geoiou.pairwise_bev_iou(boxes, boxes)  # stacked boxes: the same footprint
    array([[1., 1.],
           [1., 1.]])
    """
    return pairwise_iou(footprint(a), footprint(b), zero_division=zero_division, dtype=dtype)
