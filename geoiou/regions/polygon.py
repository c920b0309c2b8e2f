"""Polygons with holes and several parts, held as coordinate arrays (the GeoArrow layout).

A Polygon's only field is ``_index`` (one integer per polygon, pointing into a
`RaggedPolygons` store shared by every polygon indexed from the same construction), as Mask
does with its pixel store: indexing and reshaping move integers, never vertices. The store
holds the vertices with ring, part and geometry offsets and caches what the kernels derive
(areas, bounds, edges, convex hulls, shapely objects).

Every constructor turns its input into the store's arrays first and validates the whole batch
with vectorized checks (finite coordinates, enough distinct vertices, positive area, and
shapely's validity test run once over the batch); the region named in an error is found after
a check fails.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import shapely
from numpy.typing import ArrayLike

from geoiou import _core
from geoiou._contiguous import contiguous
from geoiou._validation import (
    LARGEST_COORDINATE,
    SMALLEST_AREA,
    arrays_as_numpy,
    as_real_array,
    describe,
    fail,
    require_measurable,
    require_within_range,
)
from geoiou.errors import InvalidRegionError
from geoiou.regions.base import Region, as_measure, readonly
from geoiou.regions.hulls import ConvexHulls
from geoiou.regions.ragged import RaggedPolygons, offsets_of, ragged_arange

__all__ = ["Polygon"]

#: shapely type ids of the geometries a Polygon holds.
POLYGON_TYPE_IDS = (shapely.GeometryType.POLYGON, shapely.GeometryType.MULTIPOLYGON)


class Polygon(Region):
    """Polygons: simple rings, or polygons with holes and several parts (MultiPolygons).

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
        If a coordinate is NaN or infinite, there are fewer than three distinct vertices, or the
        ring is not a valid simple polygon (the message gives shapely's reason).

    See Also
    --------
    Polygon.from_rings : a batch of simple polygons, from a list of rings or an ``(N, k, 2)`` array.
    Polygon.from_shapely : polygons with holes, multi-part polygons and batches.
    Polygon.from_ragged : a batch from coordinate arrays with offsets (GeoArrow, ``shapely.to_ragged_array``).

    Examples
    --------
    >>> import geoiou
    >>> triangle = geoiou.Polygon([(0, 0), (4, 0), (0, 3)])
    >>> triangle.area
    6.0
    >>> geoiou.Polygon([(0, 0), (2, 2), (2, 0), (0, 2)], repair=True).area  # a bow-tie, repaired
    2.0
    """

    _fields = {"_index": 0}
    _shared = ("_store",)  # the vertices of every polygon of the batch: indexing moves indices only
    _index: np.ndarray
    _store: RaggedPolygons

    def __init__(self, ring: ArrayLike, *, repair: bool = False) -> None:
        vertices = _float_vertices(ring, "ring")
        if vertices.ndim != 2:
            hint = "; for N rings of k vertices use Polygon.from_rings" if vertices.ndim == 3 else ""
            raise fail("ring", f"an array of vertices of shape (n, 2){hint}", f"shape {vertices.shape}")
        store = _valid_ring_store(vertices)
        if store is None:  # refused, or to be repaired: the batch path says why, or repairs
            store = _rings_store(vertices, np.array([0, len(vertices)]), "ring", repair=repair)
        object.__setattr__(self, "_store", store)
        object.__setattr__(self, "_index", _FIRST)

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_rings(cls, rings: Sequence[ArrayLike] | np.ndarray, *, repair: bool = False) -> Polygon:
        """Build a batch of shape ``(N,)`` of simple polygons from N rings.

        Parameters
        ----------
        rings : array_like of shape (N, k, 2), or a sequence of N arrays of shape ``(k_i, 2)``
            The vertices of each ring, in either direction, closed or not.
        repair : bool, default False
            As for `Polygon`.

        Raises
        ------
        InvalidRegionError
            As for `Polygon`; the message names the ring's batch index.

        Examples
        --------
        >>> import numpy as np, geoiou
        >>> geoiou.Polygon.from_rings([[(0, 0), (1, 0), (0, 1)], [(0, 0), (2, 0), (2, 2), (0, 2)]]).area
        array([0.5, 4. ])
        >>> squares = np.array([[(0, 0), (1, 0), (1, 1), (0, 1)]]) + np.arange(3)[:, None, None]
        >>> geoiou.Polygon.from_rings(squares).bounds[:, 0]
        array([0., 1., 2.])
        """
        rings = arrays_as_numpy(rings, "rings")
        if isinstance(rings, np.ndarray) and rings.ndim == 3:
            vertices = _float_vertices(rings, "rings")
            count, size = vertices.shape[:2]
            vertices, offsets = vertices.reshape(count * size, 2), np.arange(count + 1) * size
        else:
            vertices, offsets = _concatenated_rings(list(rings))
        store = _rings_store(vertices, offsets, "rings", repair=repair)
        return cls._attached(store, np.arange(store.size))

    @classmethod
    def from_shapely(cls, geometry: Any, *, repair: bool = False) -> Polygon:
        """Build from a shapely Polygon or MultiPolygon, or an array of them (a batch of its shape).

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
        _require_polygonal(geoms, "geometry")
        store = RaggedPolygons.from_shapely(geoms.ravel())
        store = _validated(store, "geometry", geoms.shape, repair=repair)
        return cls._attached(store, np.arange(store.size).reshape(geoms.shape))

    @classmethod
    def from_ragged(
        cls,
        coords: ArrayLike,
        ring_offsets: ArrayLike,
        part_offsets: ArrayLike,
        geometry_offsets: ArrayLike,
        *,
        repair: bool = False,
    ) -> Polygon:
        """Build a batch of shape ``(G,)`` from coordinate arrays with offsets (GeoArrow's MultiPolygon layout).

        This is the layout of ``shapely.to_ragged_array`` for MultiPolygons and of GeoArrow: no
        shapely object is needed to build polygons this way.

        Parameters
        ----------
        coords : array_like of shape (V, 2)
            The vertices of every ring, each ring closed (its last vertex repeats its first).
        ring_offsets : array_like of int, shape (R + 1,)
            Ring r is ``coords[ring_offsets[r]:ring_offsets[r + 1]]``.
        part_offsets : array_like of int, shape (P + 1,)
            Part p (an exterior ring, then its holes) is rings ``part_offsets[p]`` up to ``part_offsets[p + 1]``.
        geometry_offsets : array_like of int, shape (G + 1,)
            Polygon g is parts ``geometry_offsets[g]`` up to ``geometry_offsets[g + 1]``; none for an empty one.
        repair : bool, default False
            As for `Polygon`.

        Examples
        --------
        >>> import geoiou
        >>> square = [(0, 0), (4, 0), (4, 4), (0, 4), (0, 0)]
        >>> hole = [(1, 1), (1, 3), (3, 3), (3, 1), (1, 1)]
        >>> triangle = [(5, 0), (6, 0), (5, 1), (5, 0)]
        >>> polygons = geoiou.Polygon.from_ragged(square + hole + triangle, [0, 5, 10, 14], [0, 2, 3], [0, 2, 2])
        >>> polygons.area  # one polygon with a hole and a second part, then an empty one
        array([12.5,  0. ])
        """
        store = _ragged_store(coords, ring_offsets, part_offsets, geometry_offsets)
        store = _validated(store, "coords", (store.size,), repair=repair)
        return cls._attached(store, np.arange(store.size))

    @classmethod
    def _from_valid_shapely(cls, geoms: np.ndarray) -> Polygon:
        """Build a batch from a 1-D array of shapely (Multi)Polygons already validated (internal, no checks)."""
        return cls._attached(RaggedPolygons.from_shapely(geoms), np.arange(len(geoms)))

    @classmethod
    def _from_corners(cls, corners: np.ndarray) -> Polygon:
        """Build convex polygons from vertex arrays ``(..., n, 2)`` known to be valid (internal, no checks)."""
        batch, n = corners.shape[:-2], corners.shape[-2]
        flat = corners.reshape(-1, n, 2)
        closed = np.concatenate([flat, flat[:, :1]], axis=1).reshape(-1, 2)
        count = len(flat)
        store = RaggedPolygons.from_closed_rings(
            np.ascontiguousarray(closed, dtype=np.float64), np.arange(count + 1, dtype=np.int64) * (n + 1)
        )
        return cls._attached(store, np.arange(count).reshape(batch))

    @classmethod
    def _attached(cls, store: RaggedPolygons, index: np.ndarray) -> Polygon:
        polygon = object.__new__(cls)
        polygon._attach(store, index)
        return polygon

    def _attach(self, store: RaggedPolygons, index: np.ndarray) -> None:
        object.__setattr__(self, "_store", store)
        object.__setattr__(self, "_index", readonly(np.asarray(index, dtype=np.int64)))

    @classmethod
    def _joined(cls, regions: list[Polygon], join: Any) -> Polygon:
        """Join polygons that may live in different stores: one store (merged if need be), joined indices."""
        stores = list({id(region._store): region._store for region in regions}.values())
        if len(stores) == 1:
            return cls._attached(stores[0], join([region._index for region in regions]))
        # Keep only the geometries the regions use, store by store, and renumber the indices.
        pieces, indices, shift = [], [], 0
        for region in regions:
            pieces.append(region._store.take(region._index.ravel()))
            indices.append(np.arange(shift, shift + region.size).reshape(region.shape))
            shift += region.size
        return cls._attached(RaggedPolygons.concatenate(pieces), join(indices))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the vertices of these polygons only (a slice of a large batch shares its store), as arrays."""
        index = self._index.ravel()
        store = self._store if np.array_equal(index, np.arange(self._store.size)) else self._store.take(index)
        return Polygon._attached, (store, np.arange(self.size).reshape(self.shape))

    # ----------------------------------------------------------------- export
    def to_shapely(self) -> Any:
        """Return the shapely geometry (one region) or an object array of them (a batch).

        Examples
        --------
        >>> import geoiou
        >>> geoiou.Polygon([(0, 0), (2, 0), (0, 2)]).to_shapely().wkt
        'POLYGON ((0 0, 2 0, 0 2, 0 0))'
        """
        geoms = self._store.shapely[self._index.ravel()].reshape(self.shape)
        return geoms[()] if not self.shape else geoms

    def to_ragged(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Return the polygons, flattened in order, as ``(coords, ring_offsets, part_offsets, geometry_offsets)``.

        The layout of `from_ragged`: rings closed and in the direction they were given.

        Examples
        --------
        >>> import geoiou
        >>> coords, rings, parts, geometries = geoiou.Polygon([(0, 0), (2, 0), (0, 2)]).to_ragged()
        >>> coords.tolist(), rings.tolist(), parts.tolist(), geometries.tolist()
        ([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [0.0, 0.0]], [0, 4], [0, 1], [0, 1])
        """
        store = self._store.take(self._index.ravel())
        return (
            store.coords.copy(),
            store.ring_offsets.copy(),
            store.part_offsets.copy(),
            store.geometry_offsets.copy(),
        )

    # ----------------------------------------------------------------- measures
    @property
    def area(self) -> float | np.ndarray:
        return as_measure(self._store.area[self._index])

    def _area_array(self) -> np.ndarray:
        # The store's areas gathered by index, of the batch shape (the general path converts a float back).
        return np.asarray(self._store.area[self._index])

    @property
    def bounds(self) -> np.ndarray:
        result: np.ndarray = self._store.bounds[self._index]
        return result

    @property
    def centroid(self) -> np.ndarray:
        result: np.ndarray = self._store.centroid[self._index]
        return result

    def _hull_table(self, needed: np.ndarray | None = None) -> tuple[ConvexHulls, np.ndarray]:
        """The convex hulls of the store (computed once) and each polygon's row in them (the GIoU hull kernel's input).

        `needed` (flat indices of the polygons to be measured) makes no difference: the store's
        hulls serve every polygon indexed from it.
        """
        return self._store.convex_hulls, self._index

    def _describe_one(self) -> str:
        return describe(shapely.to_wkt(self.to_shapely(), rounding_precision=6), limit=60)


# --------------------------------------------------------------------------- building the store
def _float_vertices(value: ArrayLike, param: str) -> np.ndarray:
    """`value` as a float64 array whose last axis holds ``(x, y)`` (finite values are checked later)."""
    array = as_real_array(value, param)
    if array.ndim == 0 or array.shape[-1] != 2:
        hint = ""
        if array.ndim == 1 and array.size % 2 == 0:  # COCO's flat x1, y1, x2, y2, ... list
            hint = f"; a flat list x1, y1, x2, y2, ... becomes vertices with np.reshape({param}, (-1, 2))"
        elif array.ndim == 2 and len(array) == 1 and array.shape[1] % 2 == 0:  # a COCO segmentation of one part
            hint = f"; a COCO segmentation [[x1, y1, ...]] becomes vertices with np.reshape({param}[0], (-1, 2))"
        raise fail(param, f"an array of shape (..., 2){hint}", f"shape {array.shape}")
    return array


def _concatenated_rings(rings: Sequence[ArrayLike]) -> tuple[np.ndarray, np.ndarray]:
    """All rings' vertices in one ``(V, 2)`` array, and where each ring starts and ends."""
    try:
        # A ring without a length (a scalar) fails here and is reported below as not an array of vertices.
        lengths = np.fromiter((len(ring) for ring in rings), dtype=np.int64, count=len(rings))  # type: ignore[arg-type]
        vertices = np.concatenate(rings, axis=0).astype(np.float64) if len(rings) else np.zeros((0, 2))
    except (TypeError, ValueError):
        vertices = None
    if vertices is None or vertices.ndim != 2 or vertices.shape[1] != 2:
        # Something is not a (k, 2) array of numbers: find which ring, for the message.
        for i, ring in enumerate(rings):
            _float_vertices(ring, f"rings[{i}]")
            if np.ndim(ring) != 2:
                raise fail(f"rings[{i}]", "an array of vertices of shape (n, 2)", f"shape {np.shape(ring)}")
        raise fail("rings", "a sequence of (n, 2) vertex arrays or an (N, k, 2) array", type(rings).__name__)
    return vertices, offsets_of(lengths)


def _rings_store(vertices: np.ndarray, offsets: np.ndarray, param: str, *, repair: bool) -> RaggedPolygons:
    """One simple polygon per ring ``vertices[offsets[k]:offsets[k + 1]]``: checked, closed and validated.

    shapely's validity test runs once over the batch; only rings it refuses are looked at again,
    to tell a flat ring (too few distinct vertices, all on one line: refused even with `repair`)
    from a self-intersecting one.
    """
    single = param == "ring"

    def name(k: int) -> str:
        return param if single else f"{param}[{k}]"

    finite = np.isfinite(vertices).all(axis=1)
    if not finite.all():
        k = int(np.searchsorted(offsets, int(np.argmin(finite)), side="right") - 1)
        raise fail(name(k), "finite coordinates (no NaN or inf)", vertices[offsets[k] : offsets[k + 1]])
    vertices, offsets = _opened(vertices, offsets)
    empty = np.flatnonzero(np.diff(offsets) == 0)
    if empty.size:  # shapely's ragged-array reader would fail on it with a message about offsets
        where = param if single else f"{param}[{int(empty[0])}]"
        raise fail(
            where,
            "a ring of at least 3 vertices (x, y); for an empty polygon use Polygon.from_shapely(shapely.Polygon())",
            "no vertices",
        )
    coords, ring_offsets = _closed(vertices, offsets)
    store = RaggedPolygons.from_closed_rings(coords, ring_offsets)
    invalid = ~shapely.is_valid(store.shapely)
    if invalid.any():
        suspects = np.flatnonzero(invalid)
        flat = suspects[_all_collinear(vertices, offsets, suspects)]
        if flat.size:
            k = int(flat[0])
            ring = vertices[offsets[k] : offsets[k + 1]]
            if len(np.unique(ring, axis=0)) < 3:
                raise fail(name(k), "at least 3 distinct vertices", ring)
            raise fail(name(k), "vertices enclosing a positive area (these are collinear)", ring)
    return _validated(store, param, (store.size,), repair=repair, where=None if not single else "", invalid=invalid)


#: The index of a store's one polygon (shared: read-only).
_FIRST = readonly(np.array(0, dtype=np.int64))


def _valid_ring_store(vertices: np.ndarray) -> RaggedPolygons | None:
    """The store of one valid ring, built with as few calls as possible (one polygon is often built per call).

    None if the ring is not finite and valid: `_rings_store` then finds the fault. One compiled
    call of the crate closes the ring and gives what is checked (`_core.closed_ring`); a ring it
    cannot prove simple goes to shapely's validity test, whose object the store keeps.
    """
    if len(vertices) < 3:
        return None
    # The store's own copy, closed (it makes its vertices read-only; the caller's array stays as it was).
    coords, signed_area, largest, simple = _core.closed_ring(contiguous(vertices))
    area = 0.0 + abs(signed_area)  # store.area's bits
    if not (largest <= LARGEST_COORDINATE and area >= SMALLEST_AREA):
        return None
    store = RaggedPolygons.of_one_ring(coords, area)
    if simple:  # proven simple: GEOS would say valid (the shapely object is made when asked for)
        return store
    geometry = shapely.polygons(coords)
    if not shapely.is_valid(geometry):
        return None
    store.__dict__["shapely"] = np.array([geometry], dtype=object)  # the validated object is the store's own
    return store


def _opened(vertices: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop the closing vertex of rings whose last vertex repeats the first."""
    starts, ends = offsets[:-1], offsets[1:]
    long_enough = ends - starts > 1
    closed = np.zeros(len(starts), dtype=bool)
    closed[long_enough] = (vertices[starts[long_enough]] == vertices[ends[long_enough] - 1]).all(axis=1)
    if not closed.any():
        return vertices, offsets
    keep = np.ones(len(vertices), dtype=bool)
    keep[ends[closed] - 1] = False
    return vertices[keep], offsets - np.concatenate([[0], np.cumsum(closed)])


def _closed(vertices: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Repeat each ring's first vertex at its end, as the store's layout wants."""
    if len(offsets) == 2:  # one ring: no index arithmetic
        return np.concatenate([vertices, vertices[:1]]), offsets + np.arange(2)
    coords = np.insert(vertices, offsets[1:], vertices[offsets[:-1]], axis=0)
    return np.ascontiguousarray(coords), offsets + np.arange(len(offsets))


def _all_collinear(vertices: np.ndarray, offsets: np.ndarray, rings: np.ndarray) -> np.ndarray:
    """Whether all vertices of each of `rings` lie on one line (no triangle from its first vertex has area)."""
    index, owner = ragged_arange(offsets[rings], offsets[rings + 1])
    local = vertices[index] - vertices[offsets[rings]][owner]
    following = np.roll(local, -1, axis=0)
    cross = local[:, 0] * following[:, 1] - local[:, 1] * following[:, 0]
    # The roll pairs each ring's last vertex with the next ring's first: that term is ignored.
    cross[offsets_of(offsets[rings + 1] - offsets[rings])[1:] - 1] = 0.0
    result: np.ndarray = np.bincount(owner, weights=np.abs(cross), minlength=len(rings)) == 0
    return result


def _ragged_store(
    coords: ArrayLike, ring_offsets: ArrayLike, part_offsets: ArrayLike, geometry_offsets: ArrayLike
) -> RaggedPolygons:
    """Check the arrays of `Polygon.from_ragged` (shapes, offsets, finite values, closed rings)."""
    vertices = _float_vertices(coords, "coords")
    if vertices.ndim != 2:
        raise fail("coords", "an array of vertices of shape (V, 2)", f"shape {vertices.shape}")
    arrays: dict[str, np.ndarray] = {}
    previous = ""
    for name, offsets, count in (
        ("ring_offsets", ring_offsets, len(vertices)),
        ("part_offsets", part_offsets, None),
        ("geometry_offsets", geometry_offsets, None),
    ):
        values = np.asarray(offsets)
        if values.ndim != 1 or len(values) == 0 or not np.issubdtype(values.dtype, np.integer):
            raise fail(name, "a 1-D array of integer offsets starting at 0", values)
        expected = count if count is not None else len(arrays[previous]) - 1
        if values[0] != 0 or values[-1] != expected or (np.diff(values) < 0).any():
            raise fail(name, f"offsets rising from 0 to {expected}", values)
        arrays[name], previous = values.astype(np.int64), name
    finite = np.isfinite(vertices).all(axis=1)
    if not finite.all():
        raise fail("coords", "finite coordinates (no NaN or inf)", vertices[int(np.argmin(finite))])
    ring_offsets = arrays["ring_offsets"]
    starts, ends = ring_offsets[:-1], ring_offsets[1:]
    short = ends - starts < 4
    if short.any():
        r = int(np.argmax(short))
        raise fail(
            "ring_offsets",
            "rings of at least 4 coordinates (3 vertices, closed)",
            f"ring {r} with {ends[r] - starts[r]}",
        )
    open_ring = (vertices[starts] != vertices[ends - 1]).any(axis=1)
    if open_ring.any():
        r = int(np.argmax(open_ring))
        raise fail(
            "coords",
            "closed rings (each ring's last vertex repeats its first)",
            f"ring {r}: {vertices[starts[r] : ends[r]]}",
        )
    return RaggedPolygons(
        np.ascontiguousarray(vertices), ring_offsets, arrays["part_offsets"], arrays["geometry_offsets"]
    )


# --------------------------------------------------------------------------- validity
def _require_polygonal(geoms: np.ndarray, param: str) -> None:
    """Refuse anything but shapely Polygons and MultiPolygons, naming the first offender."""
    try:
        type_ids = shapely.get_type_id(geoms)
    except TypeError:
        type_ids = None
    ok = None if type_ids is None else np.isin(type_ids, POLYGON_TYPE_IDS)
    if ok is not None and ok.all():
        return
    for index, geometry in np.ndenumerate(geoms):
        if not isinstance(geometry, (shapely.Polygon, shapely.MultiPolygon)):
            raise fail(
                param if not index else f"{param}[{', '.join(map(str, index))}]",
                "a shapely Polygon or MultiPolygon",
                type(geometry).__name__,
            )


def _validated(
    store: RaggedPolygons,
    param: str,
    shape: tuple[int, ...],
    *,
    repair: bool,
    where: str | None = None,
    invalid: np.ndarray | None = None,
) -> RaggedPolygons:
    """Check every geometry with shapely's validity test, at once; repair the invalid ones only when asked.

    `invalid` passes the result of a validity test already run on the store.
    """
    coords_ok = np.isfinite(store.coords).all(axis=1)
    if not coords_ok.all():
        raise fail(param, "finite coordinates (no NaN or inf)", store.coords[int(np.argmin(coords_ok))])
    geoms = store.shapely
    invalid = ~shapely.is_valid(geoms) if invalid is None else invalid
    _require_representable(store, param, shape, ~invalid)
    if not invalid.any():
        return store
    if repair:
        return _repaired(store, invalid)
    flat = int(np.argmax(invalid))
    index = np.unravel_index(flat, shape) if shape else ()
    if where is None:
        where = f" at batch index {tuple(int(i) for i in index)}" if index else ""
    raise InvalidRegionError(
        f"{param!r} must be a valid polygon (got {shapely.is_valid_reason(geoms[flat])}{where}); "
        "pass repair=True to repair it with shapely.make_valid, or fix the vertices"
    )


def _require_representable(store: RaggedPolygons, param: str, shape: tuple[int, ...], valid: np.ndarray) -> None:
    """Refuse coordinates whose areas would overflow float64, and valid polygons whose areas underflow."""
    present = ~np.isnan(store.bounds[:, 0])  # empty polygons have NaN bounds and area 0
    magnitude = np.where(present, np.abs(np.nan_to_num(store.bounds)).max(axis=-1, initial=0.0), 0.0)
    require_within_range(magnitude.reshape(shape), param)
    require_measurable(store.area.reshape(shape), (present & valid).reshape(shape), param)


def _repaired(store: RaggedPolygons, invalid: np.ndarray) -> RaggedPolygons:
    """Replace invalid geometries by their valid polygonal part (lines and points left by the repair are dropped)."""
    geoms = store.shapely.copy()
    fixed = shapely.make_valid(geoms[invalid])
    # make_valid gives (Multi)Polygons, or collections mixing them with lines and points: keep the polygons.
    parts, owner = shapely.get_parts(fixed, return_index=True)
    polygonal = np.isin(shapely.get_type_id(parts), POLYGON_TYPE_IDS)
    pieces, piece = shapely.get_parts(parts[polygonal], return_index=True)
    replacement = np.full(len(fixed), None, dtype=object)
    shapely.multipolygons(pieces, indices=owner[polygonal][piece], out=replacement)
    replacement[shapely.is_missing(replacement)] = shapely.Polygon()
    # Pieces that touch along an edge make an invalid MultiPolygon: unite those (rare, and only when repairing).
    for k in np.flatnonzero(~shapely.is_valid(replacement)):
        replacement[k] = shapely.union_all(shapely.get_parts(replacement[k]))
    geoms[invalid] = replacement
    return RaggedPolygons.from_shapely(geoms)
