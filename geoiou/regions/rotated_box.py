"""Rotated boxes ``(cx, cy, w, h, angle)`` and adapters for the angle conventions people arrive with."""

from __future__ import annotations

import math
import struct
from typing import TYPE_CHECKING, Literal

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray

from geoiou._validation import (
    as_float_array,
    fail,
    plain_numbers,
    plain_region_fits,
    require_measurable,
    require_nonnegative,
    require_within_range,
)
from geoiou.regions.base import Region, as_measure, readonly

if TYPE_CHECKING:
    from geoiou.regions.polygon import Polygon

__all__ = ["RotatedBox", "corner_bounds", "rotated_box_corners", "unit_vectors"]

#: One box's five numbers, packed: the single-box path's array is a view of these bytes.
_FIVE_FLOATS = struct.Struct("5d")

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
                # Over the packed bytes: read-only as made, without a flags object.
                object.__setattr__(self, "_coords", np.frombuffer(_FIVE_FLOATS.pack(*plain)))
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
    def from_corners(
        cls, corners: ArrayLike, *, fit: Literal["strict", "min_area"] = "strict", rtol: float = 1e-6
    ) -> RotatedBox:
        """Build from four corner points, shape ``(..., 4, 2)`` or ``(..., 8)`` (DOTA's 8 numbers).

        Parameters
        ----------
        corners : array_like of shape (..., 4, 2) or (..., 8)
            Corners in order around the rectangle (either direction).
        fit : {"strict", "min_area"}
            ``"strict"`` refuses corners that are not a rectangle (within `rtol` of the box size);
            ``"min_area"`` takes a minimum-area rectangle enclosing the four points, of the area
            OpenCV's ``minAreaRect`` finds when converting DOTA quadrilaterals; where several
            rectangles have that area, the one chosen may differ from OpenCV's (48 of the 984
            bundled DOTA objects; docs/howto/dota.md says how to reproduce OpenCV's). Not exact
            for a general quadrilateral: compare those as `Polygon` for exact results.
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

    def _area_array(self) -> np.ndarray:
        # w * h, of the batch shape: one product instead of the general path's conversions.
        coords = self._coords
        if coords.ndim == 1:  # one box: Python floats round as NumPy does, without its per-call costs
            return np.array(float(coords[2]) * float(coords[3]))
        return np.asarray(coords[..., 2] * coords[..., 3])

    @property
    def bounds(self) -> np.ndarray:
        """``xmin, ymin, xmax, ymax`` of the corners, shape ``(*shape, 4)`` (`corner_bounds`).

        A box with area that is narrower than the spacing of floats at its centre (all its corners
        round to the centre) spans the neighbouring floats, so that it still overlaps itself.
        """
        return corner_bounds(self._coords)

    @property
    def centroid(self) -> np.ndarray:
        return np.array(self._coords[..., :2])

    def _describe_one(self) -> str:
        return ", ".join(f"{v:g}" for v in self._coords)


# Corner signs of (w/2, h/2) in the order of the convention (counter-clockwise).
_CORNER_SIGNS = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])


def unit_vectors(angle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``cos(angle), sin(angle)`` (degrees), exact at multiples of 90 degrees.

    The angle is split as ``90 * turns + residual`` with ``residual`` in [-45, 45]. The quarter
    turns are applied exactly and only the residual goes through cos/sin, which are exactly 1
    and 0 at residual 0. ``angle - 90 * turns`` is exact (for ``turns != 0`` the two terms are
    within a factor 2 of each other: Sterbenz's lemma), so small angles such as -1e-10 keep
    their full precision, unlike a reduction modulo 360. The rotated-box kernels
    (`unit_vector` of the crate's src/angles.rs) do the same operations, so their frames and bounds are
    those of these corners.
    """
    turns = np.rint(angle / 90.0)
    residual = (angle - 90.0 * turns) * (np.pi / 180.0)  # np.deg2rad, bit for bit, but faster
    # cos and sin of 90 * quarter for quarter in {0, 1, 2, 3}: (1, 0), (0, 1), (-1, 0), (0, -1).
    quarter = turns - 4.0 * np.floor(0.25 * turns)  # turns mod 4 (np.mod is much slower)
    quarter_cos = np.maximum(1.0 - quarter, quarter - 3.0)
    quarter_sin = np.minimum(quarter, 2.0 - quarter)
    cos, sin = np.cos(residual), np.sin(residual)
    # R(90 * quarter) R(residual): one of the two products in each sum is a signed zero, so
    # the sums are exact (quarter 1 maps (cos, sin) to (-sin, cos), and so on).
    return quarter_cos * cos - quarter_sin * sin, quarter_sin * cos + quarter_cos * sin


def rotated_box_corners(coords: ArrayLike) -> np.ndarray:
    """Return the four corners ``(..., 4, 2)`` of each rotated box of `coords` ``(..., 5)``.

    In the order ``(-w/2, -h/2), (+w/2, -h/2), (+w/2, +h/2), (-w/2, +h/2)`` relative to the box,
    rotated and moved to its centre. Angles that are multiples of 90 degrees give exact corners
    (``cos`` and ``sin`` exactly 0 or ±1), so an unrotated box has the same corners as its
    axis-aligned twin, and boxes whose angles differ by 180 degrees have exactly the same corner set.

    Examples
    --------
    >>> rotated_box_corners([10, 20, 4, 2, 90])
    array([[11., 18.],
           [11., 22.],
           [ 9., 22.],
           [ 9., 18.]])
    """
    coords = np.asarray(coords, dtype=np.float64)
    cos, sin = (value[..., None] for value in unit_vectors(coords[..., 4]))
    x = _CORNER_SIGNS[:, 0] * (0.5 * coords[..., 2:3])
    y = _CORNER_SIGNS[:, 1] * (0.5 * coords[..., 3:4])
    offsets = np.stack([cos * x - sin * y, sin * x + cos * y], axis=-1)
    return coords[..., None, 0:2] + offsets


def corner_bounds(coords: ArrayLike) -> np.ndarray:
    """Return ``xmin, ymin, xmax, ymax`` ``(..., 4)`` of each rotated box of `coords` ``(..., 5)``.

    The extreme corner coordinates of `rotated_box_corners`, without the corners: the corner
    offsets along x are ``±fl(cos w/2) ∓ fl(sin h/2)``, so the largest is ``fl(|cos w/2| + |sin h/2|)``
    and, rounding being monotonic, the centre plus it is exactly the largest corner coordinate. A box
    with area whose corners all round to its centre along an axis (a size below half a unit in the
    last place of the centre) would have bounds of zero extent there, and no overlap with anything,
    itself included: its bounds span the neighbouring floats of the centre instead.

    Examples
    --------
    >>> corner_bounds([10, 20, 4, 2, 90])
    array([ 9., 18., 11., 22.])
    >>> corner_bounds([1, 1, 1e-17, 1e-17, 30]) - 1  # one float on either side of 1
    array([-1.11022302e-16, -1.11022302e-16,  2.22044605e-16,  2.22044605e-16])
    """
    coords = np.asarray(coords, dtype=np.float64)
    cos, sin = unit_vectors(coords[..., 4])
    half_w, half_h = 0.5 * coords[..., 2], 0.5 * coords[..., 3]
    reach_x = np.abs(cos * half_w) + np.abs(sin * half_h)
    reach_y = np.abs(sin * half_w) + np.abs(cos * half_h)
    centre_x, centre_y = coords[..., 0], coords[..., 1]
    bounds = np.stack([centre_x - reach_x, centre_y - reach_y, centre_x + reach_x, centre_y + reach_y], axis=-1)
    collapsed = (bounds[..., :2] == bounds[..., 2:]) & ((coords[..., 2] > 0) & (coords[..., 3] > 0))[..., None]
    if collapsed.any():
        centres = coords[..., :2]
        bounds[..., :2] = np.where(collapsed, np.nextafter(centres, -np.inf), bounds[..., :2])
        bounds[..., 2:] = np.where(collapsed, np.nextafter(centres, np.inf), bounds[..., 2:])
    return bounds


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
    midpoint_gap = np.hypot(
        *np.moveaxis((points[..., 0, :] + points[..., 2, :]) - (points[..., 1, :] + points[..., 3, :]), -1, 0)
    )
    length_gap = np.abs(np.hypot(*np.moveaxis(diagonal_a, -1, 0)) - np.hypot(*np.moveaxis(diagonal_b, -1, 0)))
    scale = np.maximum(width + height, np.finfo(float).tiny)
    bad = (midpoint_gap > rtol * scale) | (length_gap > rtol * scale)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise fail(
            "corners", "the corners of a rectangle (use fit='min_area', or compare as Polygon)", points[index].tolist()
        )
    angle = np.rad2deg(np.arctan2(edge_w[..., 1], edge_w[..., 0]))
    # Corners given clockwise (in a y-up frame) describe the same rectangle with h measured the other way.
    return np.stack([centre[..., 0], centre[..., 1], width, height, angle], axis=-1)
