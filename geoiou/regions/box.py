"""Axis-aligned boxes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray

from geoiou import _core
from geoiou._validation import (
    LARGEST_COORDINATE,
    SMALLEST_AREA,
    as_float_array,
    fail,
    require_measurable,
    require_ordered,
    require_within_range,
    boxes_lost_size,
)
from geoiou.regions.base import Region, as_measure, readonly
from geoiou.regions.box_checks import accepted_corners

if TYPE_CHECKING:
    from geoiou.regions.polygon import Polygon
    from geoiou.regions.rotated_box import RotatedBox

__all__ = ["Box"]

BoxFormat = Literal["xyxy", "xywh", "cxcywh"]
FORMATS = ("xyxy", "xywh", "cxcywh")
#: Batches of at least this many boxes are checked in one pass of the crate (`geoiou.regions.box_checks`: 5 µs for
#: two boxes against 14 µs for the NumPy checks, 0.9 ms for 144,000 against 6.2 ms); a batch it does not accept
#: goes through the NumPy checks, which name the box at fault.
COMPILED_CHECKS_FROM = 2


class Box(Region):
    """Axis-aligned boxes ``[x1, x2) × [y1, y2)``.

    Parameters
    ----------
    coords : array_like of shape (..., 4)
        One box or a batch, in the format `fmt`.
    fmt : {"xyxy", "xywh", "cxcywh"}, default "xyxy"
        ``xyxy`` is the corners ``x1, y1, x2, y2`` with ``x1 <= x2`` and ``y1 <= y2``; ``xywh`` the
        top-left corner and size (COCO); ``cxcywh`` the centre and size (YOLO, DETR).

    Raises
    ------
    InvalidRegionError
        If a coordinate is NaN or infinite, ``x2 < x1`` or ``y2 < y1``, a width or height is
        negative, or the last axis does not have length 4; or if a coordinate's magnitude exceeds
        ``2**508`` or a positive area is below ``2**-1000``, where float64 measures would overflow
        or underflow (see the "Errors and refusals" page).

    Examples
    --------
    >>> import geoiou
    >>> box = geoiou.Box([0, 0, 10, 5])
    >>> box.area
    50.0
    >>> geoiou.Box([[0, 0, 2, 2], [5, 5, 0, 0]], fmt="xywh").area
    array([4., 0.])
    """

    # The sides as given: [x, y, w, h] (COCO) keeps w and h, which (x + w) - x may not give back to the last bit;
    # a box's area is w * h, as pycocotools computes it, so COCO boxes overlap exactly as COCOeval measures them.
    _fields = {"_xyxy": 1, "_size": 1}
    _xyxy: NDArray[np.float64]
    _size: NDArray[np.float64]

    def __init__(self, coords: ArrayLike, *, fmt: BoxFormat = "xyxy") -> None:
        # One box of plain numbers, the single-pair path: checked in one call of the crate, no NumPy passes.
        plain = _core.plain_box(coords, fmt, LARGEST_COORDINATE, SMALLEST_AREA)
        if plain is not None:
            # Both arrays over one buffer of packed bytes: read-only as made, without a flags object.
            packed = np.frombuffer(plain)
            object.__setattr__(self, "_xyxy", packed[:4])
            object.__setattr__(self, "_size", packed[4:])
            return
        array = as_float_array(coords, "coords", trailing=4)
        if array.size >= 4 * COMPILED_CHECKS_FROM:
            accepted = accepted_corners(array.reshape(-1, 4), fmt)
            if accepted is not None:  # else the checks below name the box at fault
                object.__setattr__(self, "_xyxy", readonly(accepted[0].reshape(array.shape)))
                object.__setattr__(self, "_size", readonly(accepted[1].reshape(*array.shape[:-1], 2)))
                return
        xyxy = _to_xyxy(array, fmt)
        # [x, y, w, h] read as corners is the usual cause (a COCO box): say so when the values read as one.
        hint = "; a COCO [x, y, w, h] box? pass fmt='xywh'" if fmt == "xyxy" and (array[..., 2:] >= 0).all() else ""
        require_ordered(xyxy[..., 0], xyxy[..., 2], "coords", "x1 <= x2", hint)
        require_ordered(xyxy[..., 1], xyxy[..., 3], "coords", "y1 <= y2", hint)
        require_within_range(np.abs(xyxy).max(axis=-1, initial=0.0), "coords")
        size = xyxy[..., 2:] - xyxy[..., :2] if fmt == "xyxy" else np.array(array[..., 2:])
        width, height = size[..., 0], size[..., 1]
        require_measurable(width * height, (width > 0) & (height > 0), "coords")
        object.__setattr__(self, "_xyxy", readonly(xyxy))
        object.__setattr__(self, "_size", readonly(size))

    @classmethod
    def from_pixel_indices(cls, coords: ArrayLike) -> Box:
        """Build boxes from inclusive pixel indices ``x1, y1, x2, y2`` (the legacy "+1" convention).

        Pixels ``x1..x2`` cover ``[x1, x2 + 1)``, so the box of a single pixel has area 1.

        Examples
        --------
        >>> import geoiou
        >>> geoiou.Box.from_pixel_indices([3, 3, 3, 3]).area
        1.0
        >>> geoiou.Box.from_pixel_indices([0, 0, 9, 4]).area
        50.0
        """
        array = as_float_array(coords, "coords", trailing=4)
        require_ordered(array[..., 0], array[..., 2], "coords", "x1 <= x2 (inclusive indices)")
        require_ordered(array[..., 1], array[..., 3], "coords", "y1 <= y2 (inclusive indices)")
        xyxy = array + np.array([0.0, 0.0, 1.0, 1.0])
        _require_sizes_kept(
            xyxy, array[..., 2] - array[..., 0] + 1, array[..., 3] - array[..., 1] + 1, "inclusive pixel indices"
        )
        return cls(xyxy)

    def to_array(self, fmt: BoxFormat = "xyxy") -> np.ndarray:
        """Return the coordinates as an array of shape ``(*shape, 4)`` in format `fmt`.

        Examples
        --------
        >>> import geoiou
        >>> geoiou.Box([2, 2, 6, 4]).to_array("cxcywh")
        array([4., 3., 4., 2.])
        """
        x1, y1, x2, y2 = np.moveaxis(self._xyxy, -1, 0)
        if fmt == "xyxy":
            return np.array(self._xyxy)
        if fmt == "xywh":
            return np.concatenate([self._xyxy[..., :2], self._size], axis=-1)
        if fmt == "cxcywh":
            return np.concatenate([np.stack([(x1 + x2) / 2, (y1 + y2) / 2], axis=-1), self._size], axis=-1)
        raise fail("fmt", f"one of {FORMATS}", fmt)

    @property
    def width(self) -> float | np.ndarray:
        """Width of each box: ``w`` as given (``x2 - x1`` for corners)."""
        return as_measure(self._size[..., 0])

    @property
    def height(self) -> float | np.ndarray:
        """Height of each box: ``h`` as given (``y2 - y1`` for corners)."""
        return as_measure(self._size[..., 1])

    @property
    def area(self) -> float | np.ndarray:
        return as_measure(self._area_array())

    def _area_array(self) -> np.ndarray:
        size = self._size
        if size.ndim == 1:  # one box: Python floats round as NumPy does, without its per-call costs
            width, height = size.tolist()
            return np.array(width * height)
        return np.asarray(size[..., 0] * size[..., 1])

    @property
    def bounds(self) -> np.ndarray:
        return np.array(self._xyxy)

    @property
    def centroid(self) -> np.ndarray:
        return (self._xyxy[..., :2] + self._xyxy[..., 2:]) / 2

    def to_rotated_box(self) -> RotatedBox:
        """Return the same boxes as `RotatedBox` objects at angle 0 (an exact conversion)."""
        from geoiou.regions.rotated_box import RotatedBox

        cxcywh = self.to_array("cxcywh")
        coords = np.concatenate([cxcywh, np.zeros((*self.shape, 1))], axis=-1)
        return RotatedBox._from_fields(_coords=coords)

    def to_polygon(self) -> Polygon:
        """Return the same boxes as `Polygon` objects (an exact conversion)."""
        from geoiou.regions.polygon import Polygon

        return Polygon._from_corners(self.corners())

    def to_shapely(self) -> np.ndarray | shapely.Polygon:
        """Return the boxes as shapely Polygons: one, or an object array of the batch shape.

        Examples
        --------
        >>> import geoiou
        >>> geoiou.Box([0, 0, 2, 1]).to_shapely().area
        2.0
        """
        return self.to_polygon().to_shapely()

    def corners(self) -> np.ndarray:
        """Return the four corners, shape ``(*shape, 4, 2)``, in the order of `RotatedBox.to_corners`."""
        x1, y1, x2, y2 = np.moveaxis(self._xyxy, -1, 0)
        return np.stack(
            [np.stack([x1, y1], -1), np.stack([x2, y1], -1), np.stack([x2, y2], -1), np.stack([x1, y2], -1)], axis=-2
        )

    def _describe_one(self) -> str:
        return ", ".join(f"{v:g}" for v in self._xyxy)


def _to_xyxy(array: np.ndarray, fmt: str) -> np.ndarray:
    """Convert `array` from `fmt` to corners, refusing negative sizes before they turn into x2 < x1."""
    if fmt == "xyxy":
        return array
    if fmt not in FORMATS:
        raise fail("fmt", f"one of {FORMATS}", fmt)
    a, b, w, h = np.moveaxis(array, -1, 0)
    if (w < 0).any() or (h < 0).any():
        bad = np.argwhere((w < 0) | (h < 0))[0]
        index = tuple(int(i) for i in bad)
        raise fail("coords", "a non-negative width and height", f"w={w[index]}, h={h[index]} at batch index {index}")
    with np.errstate(over="ignore"):  # a corner beyond float64 becomes inf, which the range check refuses
        if fmt == "xywh":
            xyxy = np.stack([a, b, a + w, b + h], axis=-1)
        else:
            xyxy = np.stack([a - w / 2, b - h / 2, a + w / 2, b + h / 2], axis=-1)
    _require_sizes_kept(xyxy, w, h, f"fmt={fmt!r}")
    return xyxy


def _require_sizes_kept(xyxy: np.ndarray, w: np.ndarray, h: np.ndarray, what: str) -> None:
    """Refuse sizes that the conversion to corners rounded away (``1e16 + 1 == 1e16`` in float64: area 0)."""
    lost = boxes_lost_size(xyxy, w, h)
    if lost.any():
        index = tuple(int(i) for i in np.argwhere(lost)[0])
        raise fail(
            "coords",
            f"sizes that survive the conversion to corners ({what}): a size below float64's "
            "resolution at its coordinates rounds away; shift the data towards the origin",
            f"w={float(w[index]):.17g}, h={float(h[index]):.17g} at x={float(xyxy[index][0]):.17g}, "
            f"y={float(xyxy[index][1]):.17g}, batch index {index}",
        )
