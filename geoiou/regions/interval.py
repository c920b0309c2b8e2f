"""Half-open intervals ``[start, end)`` on a line, such as time segments."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from geoiou._validation import (
    SMALLEST_LENGTH,
    as_float_array,
    require_measurable,
    require_ordered,
    require_within_range,
)
from geoiou.regions.base import Region, as_measure, readonly

__all__ = ["Interval"]


class Interval(Region):
    """Intervals ``[start, end)`` with ``start <= end``; their measure is the length.

    Intervals compare only with intervals (temporal IoU); a pair with a 2-D region raises
    `UnsupportedPairError`.

    Parameters
    ----------
    coords : array_like of shape (..., 2)
        ``start, end`` of one interval or a batch.

    Raises
    ------
    InvalidRegionError
        If a value is NaN or infinite, ``end < start``, or the last axis does not have length 2; or
        if a value's magnitude exceeds ``2**508`` or a positive length is below ``2**-500``, where
        float64 measures would overflow or underflow.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.Interval([2.5, 7.5]).area
    5.0
    >>> geoiou.Interval([[0, 10], [3, 3]]).area  # a zero-length interval is allowed
    array([10.,  0.])
    """

    ndim = 1
    _fields = {"_coords": 1}
    _coords: NDArray[np.float64]

    def __init__(self, coords: ArrayLike) -> None:
        array = as_float_array(coords, "coords", trailing=2)
        require_ordered(array[..., 0], array[..., 1], "coords", "start <= end")
        require_within_range(np.abs(array).max(axis=-1, initial=0.0), "coords")
        length = array[..., 1] - array[..., 0]
        require_measurable(length, length > 0, "coords", smallest=SMALLEST_LENGTH, what="length")
        object.__setattr__(self, "_coords", readonly(array))

    @property
    def start(self) -> float | np.ndarray:
        """Start of each interval."""
        return as_measure(self._coords[..., 0])

    @property
    def end(self) -> float | np.ndarray:
        """End of each interval."""
        return as_measure(self._coords[..., 1])

    @property
    def area(self) -> float | np.ndarray:
        return as_measure(self._area_array())

    def _area_array(self) -> np.ndarray:
        return np.asarray(self._coords[..., 1] - self._coords[..., 0])

    length = area

    @property
    def bounds(self) -> np.ndarray:
        return np.array(self._coords)

    @property
    def centroid(self) -> np.ndarray:
        return (self._coords[..., :1] + self._coords[..., 1:]) / 2

    def to_array(self) -> np.ndarray:
        """Return ``start, end`` as an array of shape ``(*shape, 2)``."""
        return np.array(self._coords)

    def _describe_one(self) -> str:
        return f"{self._coords[0]:g}, {self._coords[1]:g}"
