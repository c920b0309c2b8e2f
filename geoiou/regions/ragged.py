"""Polygonal geometries as coordinate arrays: vertices with ring, part and geometry offsets.

The layout is GeoArrow's and ``shapely.to_ragged_array``'s for MultiPolygons:

- ``coords`` ``(V, 2)``: the vertices of every ring, each ring closed (its last vertex repeats
  its first);
- ``ring_offsets`` ``(R + 1,)``: ring ``r`` is ``coords[ring_offsets[r]:ring_offsets[r + 1]]``;
- ``part_offsets`` ``(P + 1,)``: part ``p`` (one polygon: its exterior ring, then its holes) is
  rings ``part_offsets[p]`` to ``part_offsets[p + 1] - 1``;
- ``geometry_offsets`` ``(G + 1,)``: geometry ``g`` is parts ``geometry_offsets[g]`` to
  ``geometry_offsets[g + 1] - 1``; an empty geometry has none.

Rings keep the direction they were given in. What the kernels need is derived once per batch
and cached: each ring's signed area and its `ring_weight` (+1 where the ring adds area, -1 where
it removes it, whatever its direction), each geometry's area, bounds, centroid and edge list.
Everything here is vectorized over the whole batch; shapely objects exist only at the edges
(`from_shapely`, `to_shapely`) and to check validity.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import shapely

from geoiou import _core
from geoiou._contiguous import contiguous
from geoiou._ranges import ragged_arange
from geoiou.regions.hulls import ConvexHulls

__all__ = ["Edges", "RaggedPolygons", "offsets_of", "ragged_arange"]


def offsets_of(lengths: np.ndarray) -> np.ndarray:
    """Offsets ``0, l0, l0 + l1, ...`` of consecutive runs of the given lengths, (len + 1,) int64."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


#: The part and geometry offsets of a store of one polygon of one ring (shared: read-only).
_ONE_PART = np.array([0, 1], dtype=np.int64)
_ONE_PART.flags.writeable = False


@functools.lru_cache(maxsize=1024)
def _ring_offsets(count: int) -> np.ndarray:
    """The ring offsets ``[0, count]`` of a store of one ring, read-only: shared by the stores of rings of one
    length (an array made and locked per polygon costs half a microsecond)."""
    offsets = np.array([0, count], dtype=np.int64)
    offsets.flags.writeable = False
    return offsets


@dataclass(frozen=True, eq=False)
class RaggedPolygons:
    """A batch of G polygonal geometries (Polygons with holes, MultiPolygons, empties) as flat arrays.

    Build it with `from_shapely`, or from arrays already in the layout: the constructor checks
    nothing (`geoiou.Polygon.from_ragged` checks the arrays, every `geoiou.Polygon` constructor
    the geometry).

    Examples
    --------
    >>> square = np.array([[0, 0], [2, 0], [2, 2], [0, 2], [0, 0]], dtype=float)
    >>> store = RaggedPolygons(square, np.array([0, 5]), np.array([0, 1]), np.array([0, 1, 1]))
    >>> store.area, store.bounds[1]
    (array([4., 0.]), array([nan, nan, nan, nan]))
    """

    coords: np.ndarray
    ring_offsets: np.ndarray
    part_offsets: np.ndarray
    geometry_offsets: np.ndarray

    def __post_init__(self) -> None:
        # The arrays are trusted (built here, or checked by `Polygon.from_ragged`); they only become read-only.
        for name in ("coords", "ring_offsets", "part_offsets", "geometry_offsets"):
            getattr(self, name).flags.writeable = False

    def __getstate__(self) -> dict[str, np.ndarray]:
        # The layout only: cached measures and shapely objects are rebuilt where they are needed.
        return {name: getattr(self, name) for name in ("coords", "ring_offsets", "part_offsets", "geometry_offsets")}

    def __setstate__(self, state: dict[str, np.ndarray]) -> None:
        self.__dict__.update(state)
        self.__post_init__()

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_shapely(cls, geoms: np.ndarray) -> RaggedPolygons:
        """Convert a 1-D array of shapely Polygons and MultiPolygons (empties allowed)."""
        if len(geoms) == 0:
            return cls.empty()
        kind, coords, offsets = shapely.to_ragged_array(geoms, include_z=False)
        coords = np.ascontiguousarray(coords, dtype=np.float64)
        if kind == shapely.GeometryType.POLYGON:
            ring_offsets, rings_of_geometry = offsets
            has_ring = np.diff(rings_of_geometry) > 0
            parts = np.concatenate([rings_of_geometry[:-1][has_ring], rings_of_geometry[-1:]])
            return cls(coords, ring_offsets.astype(np.int64), parts.astype(np.int64), offsets_of(has_ring))
        ring_offsets, part_offsets, geometry_offsets = (np.asarray(o, dtype=np.int64) for o in offsets)
        return cls(coords, ring_offsets, part_offsets, geometry_offsets)

    @classmethod
    def from_closed_rings(cls, coords: np.ndarray, ring_offsets: np.ndarray) -> RaggedPolygons:
        """One simple polygon per ring: rings ``coords[ring_offsets[k]:ring_offsets[k + 1]]``, closed."""
        count = np.arange(len(ring_offsets), dtype=np.int64)
        return cls(coords, ring_offsets, count, count)

    @classmethod
    def of_one_ring(cls, coords: np.ndarray, area: float) -> RaggedPolygons:
        """The store of one polygon of one closed ring ``coords`` ``(n, 2)`` (float64, C-contiguous, its own)
        whose area is `area`: trusted (the caller checked it), and built with as few calls as possible, since
        `Polygon(ring)` builds one per call."""
        ring_offsets = _ring_offsets(len(coords))
        coords.flags.writeable = False
        areas = np.array([area])
        store = object.__new__(cls)
        store.__dict__.update(
            coords=coords,
            ring_offsets=ring_offsets,
            part_offsets=_ONE_PART,
            geometry_offsets=_ONE_PART,
            area=areas,
            arrays=(coords, ring_offsets, _ONE_PART, _ONE_PART, areas),
        )
        return store

    @classmethod
    def concatenate(cls, stores: list[RaggedPolygons]) -> RaggedPolygons:
        """The geometries of several stores, one after the other."""
        if not stores:
            return cls.empty()

        def joined(offsets: list[np.ndarray], counts: list[int]) -> np.ndarray:
            shifts = np.cumsum([0, *counts[:-1]])
            return np.concatenate([o[:-1] + shift for o, shift in zip(offsets, shifts)] + [[sum(counts)]]).astype(
                np.int64
            )

        return cls(
            np.concatenate([s.coords for s in stores]),
            joined([s.ring_offsets for s in stores], [len(s.coords) for s in stores]),
            joined([s.part_offsets for s in stores], [len(s.ring_offsets) - 1 for s in stores]),
            joined([s.geometry_offsets for s in stores], [len(s.part_offsets) - 1 for s in stores]),
        )

    @classmethod
    def empty(cls) -> RaggedPolygons:
        zero = np.zeros(1, dtype=np.int64)
        return cls(np.zeros((0, 2)), zero, zero, zero.copy())

    # ----------------------------------------------------------------- structure
    @property
    def size(self) -> int:
        """Number of geometries G."""
        return len(self.geometry_offsets) - 1

    @functools.cached_property
    def ring_part(self) -> np.ndarray:
        """The part each ring belongs to, (R,)."""
        return np.repeat(np.arange(len(self.part_offsets) - 1), np.diff(self.part_offsets))

    @functools.cached_property
    def ring_geometry(self) -> np.ndarray:
        """The geometry each ring belongs to, (R,)."""
        part_geometry = np.repeat(np.arange(self.size), np.diff(self.geometry_offsets))
        result: np.ndarray = part_geometry[self.ring_part]
        return result

    @functools.cached_property
    def is_exterior(self) -> np.ndarray:
        """Whether each ring is the exterior of its part (the first ring of each part), (R,)."""
        exterior = np.zeros(len(self.ring_offsets) - 1, dtype=bool)
        exterior[self.part_offsets[:-1][np.diff(self.part_offsets) > 0]] = True
        return exterior

    @functools.cached_property
    def geometry_vertex_offsets(self) -> np.ndarray:
        """Where each geometry's vertices start and end in `coords`, (G + 1,)."""
        result: np.ndarray = self.ring_offsets[self.part_offsets[self.geometry_offsets]]
        return result

    def take(self, index: np.ndarray) -> RaggedPolygons:
        """The geometries at `index` (a 1-D integer array), in that order, as a compact batch."""
        index = np.asarray(index, dtype=np.int64)
        parts, part_owner = ragged_arange(self.geometry_offsets[index], self.geometry_offsets[index + 1])
        rings, ring_owner = ragged_arange(self.part_offsets[parts], self.part_offsets[parts + 1])
        vertices, _ = ragged_arange(self.ring_offsets[rings], self.ring_offsets[rings + 1])
        return RaggedPolygons(
            self.coords[vertices],
            offsets_of(np.diff(self.ring_offsets)[rings]),
            offsets_of(np.bincount(ring_owner, minlength=len(parts))),
            offsets_of(np.bincount(part_owner, minlength=len(index))),
        )

    # ----------------------------------------------------------------- measures
    @functools.cached_property
    def _edge_starts(self) -> tuple[np.ndarray, np.ndarray]:
        """The first vertex of every ring edge (every vertex but a ring's closing one) and its ring."""
        lengths = np.diff(self.ring_offsets)
        is_start = np.ones(len(self.coords), dtype=bool)
        is_start[self.ring_offsets[1:][lengths > 0] - 1] = False
        start = np.flatnonzero(is_start)
        vertex_ring = np.repeat(np.arange(len(lengths)), lengths)
        return start, vertex_ring[start]

    @functools.cached_property
    def ring_signed_area(self) -> np.ndarray:
        """Shoelace area of each ring, positive counter-clockwise in a y-up frame, (R,).

        Each ring is taken relative to its first vertex, which keeps the products small for
        polygons far from the origin.
        """
        start, ring = self._edge_starts
        first = self.coords[self.ring_offsets[:-1][ring]]
        p, q = self.coords[start] - first, self.coords[start + 1] - first
        cross = p[:, 0] * q[:, 1] - q[:, 0] * p[:, 1]
        return np.bincount(ring, weights=cross, minlength=len(self.ring_offsets) - 1) / 2

    @functools.cached_property
    def ring_weight(self) -> np.ndarray:
        """+1 for rings whose direction adds area (counter-clockwise exteriors, clockwise holes), else -1, (R,)."""
        counter_clockwise = self.ring_signed_area > 0
        return np.where(counter_clockwise == self.is_exterior, 1.0, -1.0)

    @functools.cached_property
    def area(self) -> np.ndarray:
        """Area of each geometry (exteriors minus holes), (G,)."""
        contribution = np.abs(self.ring_signed_area) * np.where(self.is_exterior, 1.0, -1.0)
        return np.bincount(self.ring_geometry, weights=contribution, minlength=self.size).astype(np.float64)

    @functools.cached_property
    def bounds(self) -> np.ndarray:
        """``(xmin, ymin, xmax, ymax)`` of each geometry, NaN for an empty one, (G, 4)."""
        bounds = np.full((self.size, 4), np.nan)
        starts = self.geometry_vertex_offsets[:-1]
        present = np.diff(self.geometry_vertex_offsets) > 0
        if present.any():
            at = starts[present]
            bounds[present, :2] = np.minimum.reduceat(self.coords, at, axis=0)
            bounds[present, 2:] = np.maximum.reduceat(self.coords, at, axis=0)
        return bounds

    @functools.cached_property
    def centroid(self) -> np.ndarray:
        """Centre of mass of each geometry, NaN for an empty one, (G, 2)."""
        edges = self.edges
        start = self.coords[edges.start]
        end = self.coords[edges.start + 1]
        # Each edge with the geometry's first vertex forms a signed triangle; work relative to that vertex.
        anchor = self.coords[self.geometry_vertex_offsets[:-1][edges.geometry]] if edges.start.size else start
        # The moments are cubes of coordinates: scale each geometry by a power of two of its extent (exact)
        # so that they neither overflow for huge polygons nor underflow for tiny ones.
        extent = np.nan_to_num(np.max(self.bounds[:, 2:] - self.bounds[:, :2], axis=1))
        scale = np.ldexp(1.0, -np.frexp(extent)[1])
        p, q = (start - anchor) * scale[edges.geometry, None], (end - anchor) * scale[edges.geometry, None]
        cross = (p[:, 0] * q[:, 1] - q[:, 0] * p[:, 1]) * edges.weight_sign
        moments = np.stack(
            [np.bincount(edges.geometry, weights=cross * (p[:, k] + q[:, k]), minlength=self.size) for k in range(2)],
            axis=-1,
        )
        twice_area = np.bincount(edges.geometry, weights=cross, minlength=self.size)
        with np.errstate(invalid="ignore", divide="ignore"):
            local = moments / (3 * twice_area[:, None]) / scale[:, None]
        origin = np.full((self.size, 2), np.nan)
        present = np.diff(self.geometry_vertex_offsets) > 0
        origin[present] = self.coords[self.geometry_vertex_offsets[:-1][present]]
        return np.where((twice_area > 0)[:, None], local + origin, np.nan)

    @functools.cached_property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The store as the crate's polygon kernels read it: vertices ``(V, 2)``, ring, part and geometry
        offsets (C-contiguous, aligned) and each geometry's area; made once per store."""
        return (
            contiguous(self.coords),
            contiguous(self.ring_offsets, np.int64),
            contiguous(self.part_offsets, np.int64),
            contiguous(self.geometry_offsets, np.int64),
            contiguous(self.area),
        )

    @functools.cached_property
    def edges(self) -> Edges:
        """Every ring edge of every geometry, grouped by geometry."""
        start, ring = self._edge_starts
        geometry = self.ring_geometry[ring]
        x, y = self.coords[:, 0], self.coords[:, 1]
        return Edges(
            start,
            geometry,
            offsets_of(np.bincount(geometry, minlength=self.size)),
            self.ring_weight[ring],
            x[start],
            y[start],
            x[start + 1],
            y[start + 1],
        )

    @functools.cached_property
    def convex_hulls(self) -> ConvexHulls:
        """The convex hull of each geometry (the GIoU hull kernel's input).

        Computed by the crate's monotone chain where every orientation is certain
        (`_core.exterior_hulls`), else by shapely: the same vertices.
        """
        vertices, rings, parts, geometries, _ = self.arrays
        coords, offsets, certain = _core.exterior_hulls(vertices, rings, parts, geometries)
        return ConvexHulls(coords, offsets) if certain else ConvexHulls.of_geometries(self.shapely)

    # ----------------------------------------------------------------- shapely at the edges
    @functools.cached_property
    def shapely(self) -> np.ndarray:
        """The geometries as shapely objects, (G,): Polygons for one part, MultiPolygons for several."""
        geoms = np.empty(self.size, dtype=object)
        parts = np.diff(self.geometry_offsets)
        if (parts == 0).any():
            geoms[parts == 0] = shapely.Polygon()
        single = np.flatnonzero(parts == 1)
        if single.size:
            one = self if single.size == self.size else self.take(single)
            geoms[single] = shapely.from_ragged_array(
                shapely.GeometryType.POLYGON, one.coords, (one.ring_offsets, one.part_offsets)
            )
        multi = np.flatnonzero(parts > 1)
        if multi.size:
            many = self.take(multi)
            geoms[multi] = shapely.from_ragged_array(
                shapely.GeometryType.MULTIPOLYGON,
                many.coords,
                (many.ring_offsets, many.part_offsets, many.geometry_offsets),
            )
        return geoms


@dataclass(frozen=True)
class Edges:
    """The directed ring edges of a `RaggedPolygons`, grouped by geometry.

    Edge k runs from ``coords[start[k]]`` to ``coords[start[k] + 1]`` and belongs to geometry
    ``geometry[k]``; the edges of geometry g are ``offsets[g]`` to ``offsets[g + 1] - 1``.
    ``weight_sign`` is its ring's weight: summing ``weight_sign · cross(p, q)`` over a geometry's
    edges gives twice its area, whatever the direction of each ring.
    """

    start: np.ndarray
    geometry: np.ndarray
    offsets: np.ndarray
    weight_sign: np.ndarray
    #: Both ends of each edge as contiguous coordinate columns (gathers from 1-D arrays are fastest).
    x0: np.ndarray
    y0: np.ndarray
    x1: np.ndarray
    y1: np.ndarray
