"""Binary raster masks under the unit-square pixel model."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import shapely
from numpy.typing import ArrayLike

from geoiou._validation import as_float_array, fail
from geoiou.regions.base import Region, as_measure, readonly

__all__ = ["Mask"]


class Mask(Region):
    """Binary masks: pixel ``(row r, col c)`` is the unit square ``[x0 + c, x0 + c + 1) × [y0 + r, y0 + r + 1)``.

    Because pixels are squares, a mask compares exactly with vector regions: a polygon covering
    half of a true pixel counts half. Masks of different shapes and origins compare correctly.

    Parameters
    ----------
    array : array_like of shape (H, W) or (..., H, W)
        Boolean values, or numbers that are all 0 or 1.
    origin : array_like of shape (2,) or (..., 2), default (0, 0)
        ``(x0, y0)``: where the top-left corner of pixel (0, 0) lies; one per mask or shared.

    Raises
    ------
    InvalidRegionError
        If the array has fewer than two axes or holds values other than 0 and 1 (probabilities
        must be thresholded, label maps compared with one label), or the origin is not finite.

    Examples
    --------
    >>> import numpy as np, geoiou
    >>> mask = geoiou.Mask(np.eye(3, dtype=bool), origin=(10, 20))
    >>> mask.area
    3.0
    >>> mask.bounds
    array([10., 20., 13., 23.])
    >>> geoiou.Mask(np.zeros((2, 2), dtype=bool)).area  # an empty mask is allowed
    0.0
    """

    _fields = {"_data": 2, "_origin": 1}
    _data: np.ndarray
    _origin: np.ndarray

    def __init__(self, array: ArrayLike, *, origin: ArrayLike = (0.0, 0.0)) -> None:
        data = _binary(array)
        origin_array = as_float_array(origin, "origin", trailing=2)
        try:
            origin_array = np.broadcast_to(origin_array, (*data.shape[:-2], 2))
        except ValueError:
            raise fail("origin", f"of shape (2,) or {(*data.shape[:-2], 2)}", f"shape {origin_array.shape}") from None
        object.__setattr__(self, "_data", readonly(data))
        object.__setattr__(self, "_origin", readonly(origin_array))

    @classmethod
    def stack(cls, masks: Sequence[Mask]) -> Mask:
        """Stack single masks of any sizes and origins into one batch of shape ``(N,)``.

        Each mask keeps its origin and is padded with false pixels to the largest height and width,
        so its region is unchanged.

        Examples
        --------
        >>> import numpy as np, geoiou
        >>> batch = geoiou.Mask.stack([geoiou.Mask(np.ones((2, 2))), geoiou.Mask(np.ones((1, 3)), origin=(5, 5))])
        >>> batch.shape, batch.area
        ((2,), array([4., 3.]))
        """
        if any(mask.shape for mask in masks):
            raise fail("masks", "single masks (shape ())", [mask.shape for mask in masks])
        height = max((mask._data.shape[0] for mask in masks), default=0)
        width = max((mask._data.shape[1] for mask in masks), default=0)
        data = np.zeros((len(masks), height, width), dtype=bool)
        origins = np.zeros((len(masks), 2))
        for i, mask in enumerate(masks):
            h, w = mask._data.shape
            data[i, :h, :w] = mask._data
            origins[i] = mask._origin
        return cls._from_fields(_data=data, _origin=origins)

    @property
    def data(self) -> np.ndarray:
        """The boolean pixels, shape ``(*shape, H, W)`` (read-only)."""
        return self._data

    @property
    def origin(self) -> np.ndarray:
        """``(x0, y0)`` of each mask, shape ``(*shape, 2)``."""
        return self._origin.copy()

    @property
    def area(self) -> float | np.ndarray:
        return as_measure(np.count_nonzero(self._data, axis=(-2, -1)).astype(np.float64))

    @property
    def bounds(self) -> np.ndarray:
        rows = self._data.any(axis=-1)
        cols = self._data.any(axis=-2)
        row_min, row_max = _first_last(rows)
        col_min, col_max = _first_last(cols)
        x0, y0 = self._origin[..., 0], self._origin[..., 1]
        return np.stack([x0 + col_min, y0 + row_min, x0 + col_max + 1, y0 + row_max + 1], axis=-1)

    @property
    def centroid(self) -> np.ndarray:
        height, width = self._data.shape[-2:]
        count = np.count_nonzero(self._data, axis=(-2, -1))
        with np.errstate(invalid="ignore", divide="ignore"):
            # Pixel centres lie at half-integers; an empty mask has no centroid (NaN).
            cx = (self._data.sum(axis=-2) @ (np.arange(width) + 0.5)) / count
            cy = (self._data.sum(axis=-1) @ (np.arange(height) + 0.5)) / count
        return np.stack([cx, cy], axis=-1) + self._origin

    def to_shapely(self) -> shapely.Geometry | np.ndarray:
        """Return the exact region as shapely (Multi)Polygons: the union of the true pixel squares.

        Examples
        --------
        >>> import numpy as np, geoiou
        >>> geoiou.Mask(np.array([[1, 1], [0, 1]])).to_shapely().area
        3.0
        """
        geoms = np.empty(self.shape, dtype=object)
        for index in np.ndindex(self.shape):
            geoms[index] = _pixels_to_shapely(self._data[index], self._origin[index])
        return geoms[()] if not self.shape else geoms

    def _describe_one(self) -> str:
        h, w = self._data.shape
        x0, y0 = self._origin
        return f"<{h}x{w} pixels, {int(self._data.sum())} true, origin=({x0:g}, {y0:g})>"


def _binary(array: ArrayLike) -> np.ndarray:
    """Validate a 0/1 raster and return it as bool, explaining the usual mistakes."""
    data = np.asarray(array)
    if data.ndim < 2:
        raise fail("array", "a 2-D raster (H, W) or a batch (..., H, W)", f"shape {data.shape}")
    if data.dtype == bool:
        return data
    if not (np.issubdtype(data.dtype, np.number)):
        raise fail("array", "boolean or 0/1 numbers", f"dtype {data.dtype}")
    binary = (data == 0) | (data == 1)
    if binary.all():
        return data.astype(bool)
    value = data[tuple(np.argwhere(~binary)[0])]
    if np.issubdtype(data.dtype, np.floating) and np.nanmin(data) >= 0 and np.nanmax(data) <= 1:
        hint = "; it looks like probabilities: threshold them first, e.g. Mask(probs >= 0.5)"
    elif np.issubdtype(data.dtype, np.integer):
        hint = "; it looks like a label map: select one label, e.g. Mask(labels == k)"
    else:
        hint = ""
    raise fail("array", "boolean or only 0 and 1" + hint, value)


def _first_last(flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and last true index along the last axis; NaN where there is none."""
    n = flags.shape[-1]
    any_true = flags.any(axis=-1)
    first = np.argmax(flags, axis=-1).astype(np.float64)
    last = (n - 1 - np.argmax(flags[..., ::-1], axis=-1)).astype(np.float64)
    return np.where(any_true, first, np.nan), np.where(any_true, last, np.nan)


def _pixels_to_shapely(data: np.ndarray, origin: np.ndarray) -> shapely.Geometry:
    """Union of the true pixel squares, built from horizontal runs so that it stays fast."""
    padded = np.pad(data, ((0, 0), (1, 1))).astype(np.int8)
    rows, starts = np.nonzero(np.diff(padded, axis=1) == 1)
    _, ends = np.nonzero(np.diff(padded, axis=1) == -1)
    x0, y0 = origin
    runs = shapely.box(x0 + starts, y0 + rows, x0 + ends, y0 + rows + 1)
    union = shapely.union_all(runs)
    return union if isinstance(union, (shapely.Polygon, shapely.MultiPolygon)) else shapely.Polygon()
