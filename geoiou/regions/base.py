"""The abstract `Region`: one region or a batch of regions of one kind, stored as NumPy arrays."""

from __future__ import annotations

import abc
import math
from typing import Any, ClassVar, Iterator, Sequence, TypeVar

import numpy as np

from geoiou.errors import BatchIndexError, FrozenRegionError, InvalidArgumentError, InvalidTypeError

__all__ = ["Region"]

R = TypeVar("R", bound="Region")


def as_measure(values: np.ndarray) -> float | np.ndarray:
    """Return a Python float for a 0-d result and the array otherwise, as NumPy reductions do."""
    return float(values) if np.ndim(values) == 0 else values


def readonly(array: np.ndarray) -> np.ndarray:
    """Return a read-only view, leaving the caller's own array writable (no copy)."""
    view: np.ndarray = array.view()
    view.flags.writeable = False
    return view


def _same_kind(cls: type, regions: Sequence[Any], param: str) -> list[Any]:
    """`regions` as a list after checking it holds at least one region, all of kind `cls`."""
    regions = list(regions)
    wrong = [type(region).__name__ for region in regions if type(region) is not cls]
    if wrong:
        raise InvalidTypeError(f"{param!r} must all be {cls.__name__} (got {wrong[0]})")
    if not regions:
        raise InvalidArgumentError(f"{param!r} must hold at least one {cls.__name__} (got an empty sequence)")
    return regions


class Region(abc.ABC):
    """A region of the plane (or of a line) that geoiou can measure and compare.

    A region object holds one region (``shape == ()``) or a batch of regions of the same kind
    (``shape == (N,)`` or more dimensions). Batches index, reshape and broadcast like NumPy arrays
    of regions: ``boxes[:, None]`` has shape ``(N, 1)``. Region objects are immutable.

    Subclasses store their data in the attributes named by `_fields`, each an array whose leading
    axes are the batch shape, followed by as many trailing axes as the mapping says.
    """

    #: Spatial dimension: 2 for the plane, 1 for intervals on a line.
    ndim: ClassVar[int] = 2
    #: Attribute name -> number of trailing (per-region) axes of that array.
    _fields: ClassVar[dict[str, int]] = {}
    #: Attributes shared by every region of a batch (a store that the fields index into): kept as they
    #: are by indexing and reshaping.
    _shared: ClassVar[tuple[str, ...]] = ()

    #: The first of `_fields` and its trailing axes, which tell the batch shape (set per subclass).
    _shape_field: ClassVar[tuple[str, int]] = ("", 0)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls._fields:
            cls._shape_field = next(iter(cls._fields.items()))

    # ----------------------------------------------------------------- batch structure
    @property
    def shape(self) -> tuple[int, ...]:
        """Batch shape: ``()`` for a single region, ``(N,)`` for a batch of N."""
        name, trailing = self._shape_field
        shape: tuple[int, ...] = getattr(self, name).shape
        return shape[: len(shape) - trailing]

    @property
    def size(self) -> int:
        """Number of regions held."""
        return math.prod(self.shape)

    def __len__(self) -> int:
        if not self.shape:
            raise InvalidTypeError(f"len() of a single {type(self).__name__} (shape ()): only batches have a length")
        return self.shape[0]

    def __iter__(self: R) -> Iterator[R]:
        for i in range(len(self)):
            yield self[i]

    def __getitem__(self: R, index: Any) -> R:
        """Select regions as NumPy would select from an array of shape `self.shape`."""
        try:
            flat_index = np.arange(self.size).reshape(self.shape)[index]
        except IndexError as error:
            raise BatchIndexError(f"{error} (a {type(self).__name__} batch of shape {self.shape})") from None
        return self._take(flat_index)

    @classmethod
    def stack(cls: type[R], regions: Sequence[R]) -> R:
        """Stack single regions (or batches of one shape) of this kind into a batch along a new first axis.

        Examples
        --------
        >>> import geoiou
        >>> boxes = geoiou.Box.stack([geoiou.Box([0, 0, 1, 1]), geoiou.Box([0, 0, 2, 2])])
        >>> boxes.shape, boxes.area
        ((2,), array([1., 4.]))
        """
        regions = _same_kind(cls, regions, "regions")
        shapes = {region.shape for region in regions}
        if len(shapes) > 1:
            raise InvalidArgumentError(
                f"'regions' must all have one shape to be stacked (got {sorted(shapes)}); "
                "concatenate joins batches of different lengths"
            )
        return cls._joined(regions, np.stack)

    @classmethod
    def concatenate(cls: type[R], batches: Sequence[R]) -> R:
        """Join batches of this kind along their first axis, as ``np.concatenate`` joins arrays.

        Examples
        --------
        >>> import geoiou
        >>> boxes = geoiou.Box.concatenate([geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[0, 0, 2, 2], [0, 0, 3, 3]])])
        >>> boxes.shape, boxes.area
        ((3,), array([1., 4., 9.]))
        """
        batches = _same_kind(cls, batches, "batches")
        if any(not batch.shape for batch in batches):
            raise InvalidArgumentError(
                f"'batches' must be batches with at least one axis (got a single "
                f"{cls.__name__}, shape ()); stack joins single regions"
            )
        tails = {batch.shape[1:] for batch in batches}
        if len(tails) > 1:
            raise InvalidArgumentError(f"'batches' must have the same shape after the first axis (got {sorted(tails)})")
        return cls._joined(batches, np.concatenate)

    @classmethod
    def _joined(cls: type[R], regions: list[R], join: Any) -> R:
        """Join the regions' fields with `join` (``np.stack`` or ``np.concatenate``); kinds with stores override it."""
        return cls._from_fields(**{name: join([getattr(region, name) for region in regions]) for name in cls._fields})

    def reshape(self: R, *shape: int | tuple[int, ...]) -> R:
        """Return the same regions with a new batch shape."""
        new_shape = shape[0] if len(shape) == 1 and isinstance(shape[0], tuple) else shape
        own_shape = self.shape
        if tuple(new_shape) == own_shape:
            return self  # immutable: the same regions need no copy
        try:
            flat = (math.prod(own_shape),)
            # Flattening is always valid; any other shape is checked by NumPy.
            batch_shape = (
                flat if tuple(new_shape) == flat else np.empty(own_shape, dtype=np.bool_).reshape(new_shape).shape
            )
        except (TypeError, ValueError):
            raise InvalidArgumentError(
                f"'shape' must hold the batch's {self.size} regions (got {new_shape!r} for a "
                f"{type(self).__name__} batch of shape {self.shape})"
            ) from None
        arrays = {}
        for name, trailing in self._fields.items():
            array = getattr(self, name)
            # A view where NumPy can make one.
            arrays[name] = array.reshape((*batch_shape, *array.shape[array.ndim - trailing :]))
        return self._with_shared(self._from_fields(**arrays))

    def _take(self: R, flat_index: np.ndarray) -> R:
        """Return the regions at `flat_index` (an integer array; its shape becomes the batch shape)."""
        arrays = {}
        for name, trailing in self._fields.items():
            array = getattr(self, name)
            per_region = array.shape[array.ndim - trailing :]
            # Index with a 1-D array and reshape: a 0-d index would return a bare object from object arrays.
            taken = array.reshape((self.size, *per_region))[flat_index.ravel()]
            arrays[name] = taken.reshape((*flat_index.shape, *per_region))
        return self._with_shared(self._from_fields(**arrays))

    def _with_shared(self: R, region: R) -> R:
        """`region` with this batch's shared attributes (`_shared`) set on it."""
        for name in self._shared:
            object.__setattr__(region, name, getattr(self, name))
        return region

    @classmethod
    def _from_fields(cls: type[R], **arrays: np.ndarray) -> R:
        """Build a region from already validated arrays (no checks, no copies)."""
        region = object.__new__(cls)
        for name, array in arrays.items():
            object.__setattr__(region, name, readonly(array))
        return region

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenRegionError(f"{type(self).__name__} is immutable: build a new region instead of setting {name!r}")

    # ----------------------------------------------------------------- geometry
    @property
    @abc.abstractmethod
    def area(self) -> float | np.ndarray:
        """Measure of each region: area in the plane, length for intervals."""

    @property
    @abc.abstractmethod
    def bounds(self) -> np.ndarray:
        """Axis-aligned bounds, shape ``(*shape, 2 * ndim)``: ``(xmin, ymin, xmax, ymax)`` or ``(start, end)``.

        NaN for a region with no points (an empty polygon or mask).
        """

    @property
    @abc.abstractmethod
    def centroid(self) -> np.ndarray:
        """Centre of mass of each region, shape ``(*shape, ndim)``; NaN for an empty polygon or mask."""

    def _area_array(self) -> np.ndarray:
        """Measures as an array of the batch shape (never a Python float)."""
        return np.asarray(self.area, dtype=np.float64).reshape(self.shape)

    # ----------------------------------------------------------------- comparisons
    def intersection_area(self, other: Region) -> float | np.ndarray:
        """Measure of the intersection with `other`, elementwise; see `geoiou.intersection_area`."""
        from geoiou.metrics import intersection_area

        return intersection_area(self, other)

    def union_area(self, other: Region) -> float | np.ndarray:
        """Measure of the union with `other`, elementwise; see `geoiou.union_area`."""
        from geoiou.metrics import union_area

        return union_area(self, other)

    def iou(self, other: Region, **options: Any) -> float | np.ndarray:
        """Intersection over union with `other`, elementwise; see `geoiou.iou`."""
        from geoiou.metrics import iou

        return iou(self, other, **options)

    def to_shapely(self) -> Any:
        """Return the regions as shapely geometries: one, or an object array of the batch shape (2-D kinds)."""
        raise InvalidTypeError(f"{type(self).__name__} has no shapely form (shapely holds 2-D geometries)")

    # ----------------------------------------------------------------- WKT
    def to_wkt(self, *, precision: int | None = None) -> str | np.ndarray:
        """Return the regions as WKT text: one string, or an array of the batch shape.

        Written by shapely from the exact geometry (a mask's outline, a rotated box's corners), at
        full float precision so that `from_wkt` reads back the same numbers, or rounded to
        `precision` decimals.

        Examples
        --------
        >>> import geoiou
        >>> geoiou.Box([0, 0, 2, 1.5]).to_wkt()
        'POLYGON ((0 0, 2 0, 2 1.5, 0 1.5, 0 0))'
        >>> import numpy as np
        >>> geoiou.Mask(np.array([[1, 1], [0, 1]])).to_wkt()  # the outline of the true pixels
        'POLYGON ((0 0, 2 0, 2 2, 1 2, 1 1, 0 1, 0 0))'
        >>> geoiou.Polygon([(0, 0), (1 / 3, 0), (0, 1)]).to_wkt(precision=3)
        'POLYGON ((0 0, 0.333 0, 0 1, 0 0))'
        """
        from geoiou.regions.wkt import regions_to_wkt

        return regions_to_wkt(self, precision)

    @classmethod
    def from_wkt(cls: type[R], text: Any, *, repair: bool = False) -> R:
        """Build regions of this kind from WKT text: one string, or an array-like of them (a batch of its shape).

        `Polygon` reads POLYGON and MULTIPOLYGON text (holes and parts kept; `repair` as in
        `Polygon`); `Box` and `RotatedBox` read polygons that are (axis-aligned) rectangles and
        refuse any other shape. Parsing is shapely's, for the whole batch at once.

        Examples
        --------
        >>> import geoiou
        >>> geoiou.Polygon.from_wkt("POLYGON ((0 0, 4 0, 0 3, 0 0))").area
        6.0
        >>> geoiou.Box.from_wkt(["POLYGON ((0 0, 2 0, 2 1, 0 1, 0 0))"]).to_array()
        array([[0., 0., 2., 1.]])
        >>> geoiou.RotatedBox.from_wkt(geoiou.RotatedBox([5, 5, 4, 2, 30]).to_wkt()).to_array().round(9)
        array([ 5.,  5.,  4.,  2., 30.])
        """
        from geoiou.regions.wkt import regions_from_wkt

        return regions_from_wkt(cls, text, repair)  # type: ignore[return-value]

    def __repr__(self) -> str:
        name = type(self).__name__
        if not self.shape:
            return f"{name}({self._describe_one()})"
        return f"<{name} batch of shape {self.shape}>"

    @abc.abstractmethod
    def _describe_one(self) -> str:
        """Text that shows a single region's defining values, for `repr`."""
