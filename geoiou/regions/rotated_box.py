"""Rotated boxes ``(cx, cy, w, h, angle)`` and adapters for the angle conventions people arrive with."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray

from geoiou._validation import (as_float_array, fail, plain_numbers, plain_region_fits, require_measurable,
                                require_nonnegative, require_within_range)
from geoiou.regions.base import Region, as_measure, readonly

if TYPE_CHECKING:
    from geoiou.regions.polygon import Polygon

__all__ = ["RotatedBox"]

MmrotateVersion = Literal["oc", "le90", "le135"]
# The range (radians) each mmrotate version keeps its angle in: "oc" (0, pi/2], "le90" [-pi/2, pi/2),
# "le135" [-pi/4, 3pi/4).
MMROTATE_RANGES = {"oc": (0.0, np.pi / 2), "le90": (-np.pi / 2, np.pi / 2), "le135": (-np.pi / 4, 3 * np.pi / 4)}
CORNER_FIT = ("strict", "min_area")


class RotatedBox(Region):
    """Rotated rectangles ``(cx, cy, w, h, angle)``, angle in degrees.

    The corners are ``centre + R(angle) @ (±w/2, ±h/2)`` with ``R = [[cos, -sin], [sin, cos]]``
    in the data's own ``(x, y)`` frame. In an image (y down) a positive angle turns the box
    clockwise on screen: the convention of OpenCV and of mmcv's default; detectron2's angle has
    the opposite sign (use `from_detectron2`).

    Parameters
    ----------
    coords : array_like of shape (..., 5)
        ``cx, cy, w, h, angle`` of one box or a batch.

    Raises
    ------
    InvalidRegionError
        If a value is NaN or infinite, a width or height is negative, or the last axis does not
        have length 5; or if a corner's coordinates exceed ``2**508`` in magnitude or a positive
        area is below ``2**-1000``, where float64 measures would overflow or underflow.

    Examples
    --------
    >>> import geoiou
    >>> box = geoiou.RotatedBox([0, 0, 4, 2, 90])
    >>> box.area
    8.0
    >>> box.to_corners().round(12) + 0.0
    array([[ 1., -2.],
           [ 1.,  2.],
           [-1.,  2.],
           [-1., -2.]])
    >>> geoiou.RotatedBox([5, 5, 0, 3, 30]).area  # a degenerate box is allowed; it has no area
    0.0
    """

    _fields = {"_coords": 1}
    _coords: NDArray[np.float64]

    def __init__(self, coords: ArrayLike) -> None:
        plain = plain_numbers(coords, 5)
        if plain is not None:
            # One box of plain numbers, the single-pair path: its checks in Python floats, no NumPy passes.
            cx, cy, w, h, _ = plain
            corner_reach = max(abs(cx), abs(cy)) + math.hypot(w, h) / 2  # as below, corners within it
            if w >= 0 and h >= 0 and plain_region_fits(corner_reach, w, h):
                object.__setattr__(self, "_coords", readonly(np.array(plain)))
                return
        array = as_float_array(coords, "coords", trailing=5)
        require_nonnegative(array[..., 2], "coords", "width w")
        require_nonnegative(array[..., 3], "coords", "height h")
        width, height = array[..., 2], array[..., 3]
        # The corners lie within half the diagonal of the centre.
        reach = np.maximum(np.abs(array[..., 0]), np.abs(array[..., 1])) + np.hypot(width, height) / 2
        require_within_range(reach, "coords")
        require_measurable(width * height, (width > 0) & (height > 0), "coords")
        object.__setattr__(self, "_coords", readonly(array))

    # ----------------------------------------------------------------- adapters
    @classmethod
    def from_radians(cls, coords: ArrayLike) -> RotatedBox:
        """Build from ``(cx, cy, w, h, angle)`` with the angle in radians, same direction.

        This is mmcv's ``box_iou_rotated`` input (``clockwise=True``, its default).

        Examples
        --------
        >>> import geoiou
        >>> geoiou.RotatedBox.from_radians([0, 0, 2, 1, 3.141592653589793 / 2]).angle
        90.0
        """
        array = as_float_array(coords, "coords", trailing=5)
        return cls(_with_angle(array, np.rad2deg(array[..., 4])))

    @classmethod
    def from_detectron2(cls, coords: ArrayLike) -> RotatedBox:
        """Build from detectron2's ``(cx, cy, w, h, angle)``: degrees, counter-clockwise on screen.

        detectron2 rotates by ``-angle`` in our frame, so the angle changes sign.

        Examples
        --------
        >>> import geoiou
        >>> geoiou.RotatedBox.from_detectron2([10, 10, 4, 2, 30]).angle
        -30.0
        """
        array = as_float_array(coords, "coords", trailing=5)
        return cls(_with_angle(array, -array[..., 4]))

    @classmethod
    def from_mmrotate(cls, coords: ArrayLike, *, version: MmrotateVersion = "le90") -> RotatedBox:
        """Build from mmrotate's ``(cx, cy, w, h, angle)`` in radians for angle version `version`.

        mmrotate's three versions ("oc", "le90", "le135") rotate in our direction and differ only in
        the range each keeps the angle in; an angle outside the version's range is refused, since it
        means the data was written under another convention.

        Examples
        --------
        >>> import geoiou
        >>> geoiou.RotatedBox.from_mmrotate([0, 0, 4, 2, 0.5], version="le90").angle
        28.64788975654116
        """
        array = as_float_array(coords, "coords", trailing=5)
        low, high = _mmrotate_range(version)
        angle = array[..., 4]
        tolerance = 1e-6  # radians; writers round-trip through float32
        outside = (angle < low - tolerance) | (angle > high + tolerance)
        if outside.any():
            value = angle[tuple(np.argwhere(outside)[0])]
            raise fail("coords", f"angles in mmrotate's {version!r} range [{low:.6f}, {high:.6f}] radians", value)
        return cls.from_radians(array)

    @classmethod
    def from_corners(cls, corners: ArrayLike, *, fit: Literal["strict", "min_area"] = "strict",
                     rtol: float = 1e-6) -> RotatedBox:
        """Build from four corner points, shape ``(..., 4, 2)`` or ``(..., 8)`` (DOTA's 8 numbers).

        Parameters
        ----------
        corners : array_like of shape (..., 4, 2) or (..., 8)
            Corners in order around the rectangle (either direction).
        fit : {"strict", "min_area"}
            ``"strict"`` refuses corners that are not a rectangle (within `rtol` of the box size);
            ``"min_area"`` takes the minimum-area rectangle enclosing the four points, as
            OpenCV's ``minAreaRect`` does when converting DOTA quadrilaterals (not exact for a
            general quadrilateral: compare those as `Polygon` for exact results).
        rtol : float
            Relative tolerance of the rectangle test of ``fit="strict"``.

        Examples
        --------
        >>> import geoiou
        >>> box = geoiou.RotatedBox.from_corners([0, 0, 4, 0, 4, 2, 0, 2])
        >>> box.to_array()
        array([2., 1., 4., 2., 0.])
        """
        points = _as_corner_array(corners)
        if fit == "min_area":
            points = _minimum_area_rectangles(points)
        elif fit != "strict":
            raise fail("fit", f"one of {CORNER_FIT}", fit)
        return cls(_rectangle_parameters(points, rtol))

    def to_array(self) -> np.ndarray:
        """Return ``cx, cy, w, h, angle`` (degrees) as an array of shape ``(*shape, 5)``."""
        return np.array(self._coords)

    def to_radians(self) -> np.ndarray:
        """Return ``cx, cy, w, h, angle`` with the angle in radians (mmcv's input)."""
        return _with_angle(self._coords, np.deg2rad(self._coords[..., 4]))

    def to_detectron2(self) -> np.ndarray:
        """Return ``cx, cy, w, h, angle`` in detectron2's convention (degrees, opposite sign)."""
        return _with_angle(self._coords, -self._coords[..., 4])

    def to_mmrotate(self, version: MmrotateVersion = "le90") -> np.ndarray:
        """Return ``cx, cy, w, h, angle`` (radians) normalised the way mmrotate version `version` keeps it.

        A rectangle turned by 180 degrees, or by 90 degrees with ``w`` and ``h`` swapped, is the same
        region, so each box has one representative per version: "oc" keeps the angle in
        ``(0, pi/2]`` (OpenCV's rule); "le90" and "le135" make ``w`` the long edge and keep the angle
        in ``[-pi/2, pi/2)`` and ``[-pi/4, 3pi/4)``.

        Examples
        --------
        >>> import geoiou
        >>> geoiou.RotatedBox([0, 0, 2, 4, 10]).to_mmrotate("le90").round(6)
        array([ 0.      ,  0.      ,  4.      ,  2.      , -1.396263])
        >>> geoiou.RotatedBox([0, 0, 4, 2, 0]).to_mmrotate("oc").round(6)
        array([0.      , 0.      , 2.      , 4.      , 1.570796])
        """
        low, high = _mmrotate_range(version)
        cx, cy, w, h, degrees = np.moveaxis(self._coords, -1, 0)
        angle = np.deg2rad(degrees)
        if version == "oc":
            # Quarter turns k put angle - k*pi/2 into (0, pi/2]; an odd k swaps the sides.
            turns = np.ceil((angle - high) / (np.pi / 2))
            swap = turns % 2 == 1
            angle = angle - turns * (np.pi / 2)
        else:
            # Long edge first: a quarter turn swaps the sides; then half turns bring the angle into range.
            swap = w < h
            angle = np.where(swap, angle + np.pi / 2, angle)
            angle = low + np.mod(angle - low, np.pi)
        width, height = np.where(swap, h, w), np.where(swap, w, h)
        return np.stack([cx, cy, width, height, angle], axis=-1)

    def to_corners(self) -> np.ndarray:
        """Return the corners, shape ``(*shape, 4, 2)``, counter-clockwise in a y-up frame.

        The order is the images of ``(-w/2, -h/2), (w/2, -h/2), (w/2, h/2), (-w/2, h/2)``.
        """
        from geoiou.kernels.rotated import rotated_box_corners

        return rotated_box_corners(self._coords)

    def to_polygon(self) -> Polygon:
        """Return the same boxes as `Polygon` objects (exact up to the rounding of the corners)."""
        from geoiou.regions.polygon import Polygon

        return Polygon._from_corners(self.to_corners())

    def to_shapely(self) -> np.ndarray | shapely.Polygon:
        """Return shapely polygons of the batch shape (a single polygon for one box)."""
        return self.to_polygon().to_shapely()

    # ----------------------------------------------------------------- measures
    @property
    def angle(self) -> float | np.ndarray:
        """Angle of each box in degrees."""
        return as_measure(self._coords[..., 4])

    @property
    def area(self) -> float | np.ndarray:
        return as_measure(self._coords[..., 2] * self._coords[..., 3])

    @property
    def bounds(self) -> np.ndarray:
        corners = self.to_corners()
        return np.concatenate([corners.min(axis=-2), corners.max(axis=-2)], axis=-1)

    @property
    def centroid(self) -> np.ndarray:
        return np.array(self._coords[..., :2])

    def _describe_one(self) -> str:
        return ", ".join(f"{v:g}" for v in self._coords)


def _with_angle(coords: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Return a copy of `coords` (..., 5) with its last column replaced by `angle`."""
    result = np.array(coords, dtype=np.float64, copy=True)
    result[..., 4] = angle
    return result


def _mmrotate_range(version: str) -> tuple[float, float]:
    if version not in MMROTATE_RANGES:
        raise fail("version", f"one of {tuple(MMROTATE_RANGES)}", version)
    return MMROTATE_RANGES[version]


def _as_corner_array(corners: ArrayLike) -> np.ndarray:
    array = as_float_array(corners, "corners")
    if array.ndim >= 1 and array.shape[-1] == 8:
        array = array.reshape((*array.shape[:-1], 4, 2))
    if array.ndim < 2 or array.shape[-2:] != (4, 2):
        raise fail("corners", "an array of shape (..., 4, 2) or (..., 8)", f"shape {array.shape}")
    return array


def _minimum_area_rectangles(points: np.ndarray) -> np.ndarray:
    """Corners (..., 4, 2) of the minimum-area rectangle around each set of four points."""
    batch = points.shape[:-2]
    multipoints = shapely.multipoints(points.reshape(-1, 4, 2))
    rectangles = shapely.oriented_envelope(multipoints)
    coords = np.asarray(shapely.get_coordinates(rectangles), dtype=np.float64).reshape(-1, 5, 2)[:, :4]
    return coords.reshape((*batch, 4, 2))


def _rectangle_parameters(points: np.ndarray, rtol: float) -> np.ndarray:
    """``cx, cy, w, h, angle`` of rectangles given by corners, refusing non-rectangles."""
    edge_w = points[..., 1, :] - points[..., 0, :]
    edge_h = points[..., 2, :] - points[..., 1, :]
    width = np.hypot(edge_w[..., 0], edge_w[..., 1])
    height = np.hypot(edge_h[..., 0], edge_h[..., 1])
    centre = points.mean(axis=-2)
    # A rectangle: both diagonals share their midpoint and have equal length.
    diagonal_a = points[..., 2, :] - points[..., 0, :]
    diagonal_b = points[..., 3, :] - points[..., 1, :]
    midpoint_gap = np.hypot(*np.moveaxis((points[..., 0, :] + points[..., 2, :]) - (points[..., 1, :] + points[..., 3, :]), -1, 0))
    length_gap = np.abs(np.hypot(*np.moveaxis(diagonal_a, -1, 0)) - np.hypot(*np.moveaxis(diagonal_b, -1, 0)))
    scale = np.maximum(width + height, np.finfo(float).tiny)
    bad = (midpoint_gap > rtol * scale) | (length_gap > rtol * scale)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise fail("corners", "the corners of a rectangle (use fit='min_area', or compare as Polygon)",
                   points[index].tolist())
    angle = np.rad2deg(np.arctan2(edge_w[..., 1], edge_w[..., 0]))
    # Corners given clockwise (in a y-up frame) describe the same rectangle with h measured the other way.
    return np.stack([centre[..., 0], centre[..., 1], width, height, angle], axis=-1)
