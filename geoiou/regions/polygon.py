"""Polygons with holes and several parts, stored as shapely geometries."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import shapely
from numpy.typing import ArrayLike

from geoiou._validation import as_float_array, describe, fail
from geoiou.errors import InvalidRegionError
from geoiou.regions.base import Region, as_measure, readonly

__all__ = ["Polygon"]

POLYGONAL = (shapely.Polygon, shapely.MultiPolygon)


class Polygon(Region):
    """Polygons: simple rings, or shapely Polygons and MultiPolygons with holes and several parts.

    Parameters
    ----------
    ring : array_like of shape (n, 2)
        The vertices ``(x, y)`` of one simple polygon, in either direction, closed or not
        (the last vertex may repeat the first). At least three distinct vertices.
    repair : bool, default False
        Repair an invalid ring (self-intersection, bow-tie) with `shapely.make_valid`, keeping its
        polygonal parts, instead of refusing it. Off by default: a repaired polygon is a different
        region, and that is the caller's decision.

    Raises
    ------
    InvalidRegionError
        If a coordinate is NaN or infinite, there are fewer than three vertices, or the ring is not
        a valid simple polygon (the message gives shapely's reason).

    See Also
    --------
    Polygon.from_shapely : polygons with holes, multi-part polygons and batches.
    Polygon.from_rings : a batch of simple polygons.

    Examples
    --------
    >>> import geoiou
    >>> triangle = geoiou.Polygon([(0, 0), (4, 0), (0, 3)])
    >>> triangle.area
    6.0
    >>> geoiou.Polygon([(0, 0), (2, 2), (2, 0), (0, 2)], repair=True).area  # a bow-tie, repaired
    2.0
    """

    _fields = {"_geoms": 0}
    _geoms: np.ndarray

    def __init__(self, ring: ArrayLike, *, repair: bool = False) -> None:
        geometry = _polygon_from_ring(ring, "ring")
        geoms = _validated(np.array(geometry, dtype=object), "ring", repair=repair)
        object.__setattr__(self, "_geoms", readonly(geoms))

    @classmethod
    def from_rings(cls, rings: Sequence[ArrayLike], *, repair: bool = False) -> Polygon:
        """Build a batch of shape ``(N,)`` from N rings, each an array of shape ``(n_i, 2)``.

        Examples
        --------
        >>> import geoiou
        >>> geoiou.Polygon.from_rings([[(0, 0), (1, 0), (0, 1)], [(0, 0), (2, 0), (2, 2), (0, 2)]]).area
        array([0.5, 4. ])
        """
        geoms = np.empty(len(rings), dtype=object)
        for i, ring in enumerate(rings):
            geoms[i] = _polygon_from_ring(ring, f"rings[{i}]")
        return cls._from_fields(_geoms=_validated(geoms, "rings", repair=repair))

    @classmethod
    def from_shapely(cls, geometry: Any, *, repair: bool = False) -> Polygon:
        """Build from a shapely Polygon or MultiPolygon, or an array of them (a batch).

        Holes and several parts are kept, as COCO objects need. Empty geometries are empty regions
        (area 0).

        Examples
        --------
        >>> import shapely, geoiou
        >>> ring = shapely.box(0, 0, 4, 4, ccw=True)
        >>> hole = shapely.box(1, 1, 3, 3)
        >>> geoiou.Polygon.from_shapely(shapely.Polygon(ring.exterior, [hole.exterior])).area
        12.0
        >>> geoiou.Polygon.from_shapely(shapely.Polygon()).area  # empty
        0.0
        """
        geoms = np.asarray(geometry, dtype=object)
        if geoms.ndim == 0:
            geoms = np.array(geometry, dtype=object)
        return cls._from_fields(_geoms=_validated(geoms, "geometry", repair=repair))

    @classmethod
    def _from_corners(cls, corners: np.ndarray) -> Polygon:
        """Build convex polygons from vertex arrays ``(..., n, 2)`` known to be valid (internal)."""
        batch = corners.shape[:-2]
        flat = corners.reshape(-1, corners.shape[-2], 2)
        geoms = shapely.polygons(flat).reshape(batch)
        return cls._from_fields(_geoms=geoms if batch else np.array(geoms, dtype=object))

    def to_shapely(self) -> Any:
        """Return the shapely geometry (one region) or an object array of them (a batch)."""
        return self._geoms[()] if not self.shape else self._geoms.copy()

    @property
    def area(self) -> float | np.ndarray:
        return as_measure(shapely.area(self._geoms))

    @property
    def bounds(self) -> np.ndarray:
        return shapely.bounds(self._geoms)

    @property
    def centroid(self) -> np.ndarray:
        # shapely cannot read x/y of an empty point; an empty polygon has no centroid: NaN.
        xy = np.full((*self.shape, 2), np.nan)
        present = ~shapely.is_empty(self._geoms)
        centroids = shapely.centroid(self._geoms[present])
        xy[present] = np.stack([shapely.get_x(centroids), shapely.get_y(centroids)], axis=-1)
        return xy

    def _convex_hulls(self) -> np.ndarray:
        """Convex hull of each polygon as shapely geometries (the GIoU hull kernel's input)."""
        return shapely.convex_hull(self._geoms)

    def _describe_one(self) -> str:
        return describe(shapely.to_wkt(self._geoms[()], rounding_precision=6), limit=60)


def _polygon_from_ring(ring: ArrayLike, param: str) -> shapely.Polygon:
    vertices = as_float_array(ring, param, trailing=2)
    if vertices.ndim != 2:
        raise fail(param, "an array of vertices of shape (n, 2)", f"shape {vertices.shape}")
    if len(vertices) > 1 and np.array_equal(vertices[0], vertices[-1]):
        vertices = vertices[:-1]
    if len(np.unique(vertices, axis=0)) < 3:
        raise fail(param, "at least 3 distinct vertices", vertices)
    polygon = shapely.Polygon(vertices)
    if shapely.convex_hull(polygon).area == 0:
        raise fail(param, "vertices enclosing a positive area (these are collinear)", vertices)
    return polygon


def _validated(geoms: np.ndarray, param: str, *, repair: bool) -> np.ndarray:
    """Check every geometry is a valid (Multi)Polygon; repair the invalid ones only when asked."""
    geoms = np.array(geoms, dtype=object)
    for index, geometry in np.ndenumerate(geoms):
        if not isinstance(geometry, POLYGONAL):
            raise fail(param if not index else f"{param}[{', '.join(map(str, index))}]",
                       "a shapely Polygon or MultiPolygon", type(geometry).__name__)
    coords = shapely.get_coordinates(geoms.ravel())
    if not np.isfinite(coords).all():
        raise fail(param, "finite coordinates (no NaN or inf)", coords[~np.isfinite(coords).all(axis=1)][0])
    invalid = ~shapely.is_valid(geoms)
    if not invalid.any():
        return geoms
    if repair:
        return _repaired(geoms, invalid)
    index = tuple(int(i) for i in np.argwhere(invalid)[0])
    where = f" at batch index {index}" if index else ""
    raise InvalidRegionError(
        f"{param!r} must be a valid polygon (got {shapely.is_valid_reason(geoms[index])}{where}); "
        "pass repair=True to repair it with shapely.make_valid, or fix the vertices"
    )


def _repaired(geoms: np.ndarray, invalid: np.ndarray) -> np.ndarray:
    """Replace invalid geometries by their valid polygonal part (lines and points left by the repair are dropped)."""
    repaired = geoms.copy()
    fixed = shapely.make_valid(geoms[invalid])
    for k, geometry in enumerate(fixed):
        parts = [part for part in shapely.get_parts(geometry) if isinstance(part, POLYGONAL)]
        fixed[k] = shapely.unary_union(parts) if parts else shapely.Polygon()
        if isinstance(fixed[k], shapely.GeometryCollection):
            fixed[k] = shapely.Polygon()
    repaired[invalid] = fixed
    return repaired
