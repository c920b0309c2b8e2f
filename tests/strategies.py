"""Shared generators of regions for the tests: Hypothesis strategies and seeded NumPy generators.

Two families, for every region kind (Box, RotatedBox, Polygon, Mask, Interval):

* ``random_*(rng, n, ...)`` take a ``numpy.random.Generator`` (build it with ``rng(seed)``) and
  return a batch of ``n`` regions; the same seed always gives the same regions, so tests that
  loop over random cases stay deterministic without Hypothesis.
* ``*_strategy(...)`` are Hypothesis strategies of single regions (shape ``()``) for property
  tests; ``region_strategy(kind)`` maps a kind name to its strategy.

Every generated region is valid and, unless asked otherwise, non-empty; coordinates stay in a
moderate range (|x| <= ~100) so that double rounding is far below the 1e-9 tolerances the tests
use. The module also holds the independent shapely oracles shared by the test files
(``shapely_of`` builds a region's exact shapely geometry without calling geoiou's own converters
for masks, so the oracle does not share code with the kernels it checks).

Import it from a test file as ``from strategies import ...`` (pytest puts ``tests/`` on
``sys.path`` for the test modules there) or as ``from tests.strategies import ...`` when the
repository root is on the path (``python -m pytest``).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import shapely
import shapely.affinity
from hypothesis import assume, settings
from hypothesis import strategies as st

import geoiou

__all__ = [
    "KIND_NAMES",
    "PLANAR_KINDS",
    "SOLID_KINDS",
    "VECTOR_KINDS",
    "box3d_strategy",
    "box_strategy",
    "ci_settings",
    "int_box_coords",
    "interval_strategy",
    "mask_strategy",
    "oriented_box3d_strategy",
    "pixel_oracle_geometry",
    "polygon_strategy",
    "random_boxes",
    "random_int_boxes",
    "random_intervals",
    "random_masks",
    "random_multipolygons",
    "random_polygons",
    "random_polygons_with_holes",
    "random_regions",
    "random_rotations",
    "random_rotated_boxes",
    "region_strategy",
    "rng",
    "rotated_box3d_strategy",
    "rotated_box_strategy",
    "random_boxes3d",
    "random_oriented_boxes3d",
    "random_rotated_boxes3d",
    "shapely_of",
    "star_ring",
    "translate",
]

#: The 2-D kinds that compare with one another, and the kinds compared exactly by shapely.
PLANAR_KINDS = ("box", "rotated_box", "polygon", "mask")
VECTOR_KINDS = ("box", "rotated_box", "polygon")
KIND_NAMES = (*PLANAR_KINDS, "interval")
#: The 3-D kinds, which compare with one another only (their oracle is SciPy's halfspace intersection).
SOLID_KINDS = ("box3d", "rotated_box3d", "oriented_box3d")


def rng(seed: int) -> np.random.Generator:
    """A NumPy generator for `seed` (one place to change the bit generator for every test)."""
    return np.random.default_rng(seed)


# =========================================================================== seeded generators
def int_box_coords(
    gen: np.random.Generator, n: int, *, low: int = 0, high: int = 24, min_size: int = 1, max_size: int = 12
) -> np.ndarray:
    """Integer ``xyxy`` boxes, shape ``(n, 4)``, with sides in ``[min_size, max_size]``.

    Small integer ranges make overlaps, shared edges and containment frequent.
    """
    x1 = gen.integers(low, high, size=n)
    y1 = gen.integers(low, high, size=n)
    w = gen.integers(min_size, max_size + 1, size=n)
    h = gen.integers(min_size, max_size + 1, size=n)
    return np.stack([x1, y1, x1 + w, y1 + h], axis=-1).astype(np.float64)


def random_int_boxes(gen: np.random.Generator, n: int, **options) -> geoiou.Box:
    """A batch of `n` integer boxes (see `int_box_coords`)."""
    return geoiou.Box(int_box_coords(gen, n, **options))


def random_boxes(gen: np.random.Generator, n: int, *, span: float = 20.0, max_size: float = 12.0) -> geoiou.Box:
    """A batch of `n` boxes with float corners in ``[-span, span + max_size]`` and positive sides."""
    x1 = gen.uniform(-span, span, size=n)
    y1 = gen.uniform(-span, span, size=n)
    w = gen.uniform(0.1, max_size, size=n)
    h = gen.uniform(0.1, max_size, size=n)
    return geoiou.Box(np.stack([x1, y1, x1 + w, y1 + h], axis=-1))


def random_rotated_boxes(
    gen: np.random.Generator, n: int, *, span: float = 10.0, max_size: float = 12.0
) -> geoiou.RotatedBox:
    """A batch of `n` rotated boxes, centres in ``[-span, span]``, any angle in ``[-180, 180)``."""
    cx = gen.uniform(-span, span, size=n)
    cy = gen.uniform(-span, span, size=n)
    w = gen.uniform(0.1, max_size, size=n)
    h = gen.uniform(0.1, max_size, size=n)
    angle = gen.uniform(-180.0, 180.0, size=n)
    return geoiou.RotatedBox(np.stack([cx, cy, w, h, angle], axis=-1))


def star_ring(centre: tuple[float, float], radii: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Vertices of the star-shaped polygon with the given radii at the given angles (radians).

    With strictly increasing angles spanning less than one turn, gaps below pi and positive
    radii, every ray from `centre` crosses the boundary once: the ring is simple and valid.
    """
    cx, cy = centre
    return np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)], axis=-1)


def _random_star(
    gen: np.random.Generator, centre: tuple[float, float], *, r_min: float, r_max: float, max_vertices: int = 9
) -> np.ndarray:
    count = int(gen.integers(3, max_vertices + 1))
    # Evenly spread angles jittered by less than half a gap: increasing, gaps < pi for count >= 3.
    base = np.arange(count) * (2 * np.pi / count)
    angles = base + gen.uniform(-0.45, 0.45, size=count) * (2 * np.pi / count) + gen.uniform(0, 2 * np.pi)
    radii = gen.uniform(r_min, r_max, size=count)
    return star_ring(centre, radii, angles)


def random_polygons(
    gen: np.random.Generator, n: int, *, span: float = 10.0, r_min: float = 1.0, r_max: float = 8.0
) -> geoiou.Polygon:
    """A batch of `n` simple star-shaped polygons (3 to 9 vertices, often non-convex)."""
    rings = [_random_star(gen, tuple(gen.uniform(-span, span, size=2)), r_min=r_min, r_max=r_max) for _ in range(n)]
    return geoiou.Polygon.from_rings(rings)


def _polygon_with_hole(gen: np.random.Generator, span: float) -> shapely.Polygon:
    centre = tuple(gen.uniform(-span, span, size=2))
    for _ in range(100):
        outer = shapely.Polygon(_random_star(gen, centre, r_min=3.0, r_max=9.0))
        hole = shapely.Polygon(_random_star(gen, centre, r_min=0.3, r_max=1.5, max_vertices=6))
        # The hole must lie strictly inside the outer ring for a valid polygon with a hole.
        if outer.is_valid and hole.is_valid and outer.buffer(-1e-6).contains(hole):
            polygon = shapely.Polygon(outer.exterior, [hole.exterior])
            if polygon.is_valid:
                return polygon
    raise RuntimeError("could not draw a polygon with a hole")  # pragma: no cover


def random_polygons_with_holes(gen: np.random.Generator, n: int, *, span: float = 10.0) -> geoiou.Polygon:
    """A batch of `n` polygons, each a star-shaped outer ring with one star-shaped hole."""
    geoms = np.empty(n, dtype=object)
    for i in range(n):
        geoms[i] = _polygon_with_hole(gen, span)
    return geoiou.Polygon.from_shapely(geoms)


def random_multipolygons(gen: np.random.Generator, n: int, *, span: float = 10.0) -> geoiou.Polygon:
    """A batch of `n` MultiPolygons of two or three disjoint parts (one part may have a hole)."""
    geoms = np.empty(n, dtype=object)
    for i in range(n):
        for _ in range(100):
            parts = []
            for k in range(int(gen.integers(2, 4))):
                if k == 0 and gen.random() < 0.5:
                    parts.append(_polygon_with_hole(gen, span))
                else:
                    centre = tuple(gen.uniform(-span, span, size=2))
                    parts.append(shapely.Polygon(_random_star(gen, centre, r_min=0.5, r_max=4.0)))
            # Disjoint parts, apart by a margin (touching parts would make GEOS merge them).
            if all(p.distance(q) > 1e-3 for j, p in enumerate(parts) for q in parts[j + 1 :]):
                multi = shapely.MultiPolygon(parts)
                if multi.is_valid:
                    geoms[i] = multi
                    break
        else:  # pragma: no cover
            raise RuntimeError("could not draw a multipolygon")
    return geoiou.Polygon.from_shapely(geoms)


def random_masks(
    gen: np.random.Generator,
    n: int,
    *,
    max_side: int = 8,
    density: float = 0.5,
    origin: str = "integer",
    span: int = 6,
    shape: tuple[int, int] | None = None,
) -> list[geoiou.Mask]:
    """A list of `n` single masks of random shapes (or `shape`) and origins.

    `origin` is ``"integer"`` (origins on the integer grid), ``"dyadic"`` (multiples of 1/8:
    exact in binary, so results stay exactly computable) or ``"float"`` (any float). At least one
    pixel of each mask is true. Use ``geoiou.Mask.stack`` to make a batch of them.
    """
    masks = []
    for _ in range(n):
        h, w = shape if shape is not None else tuple(int(v) for v in gen.integers(1, max_side + 1, size=2))
        data = gen.random((h, w)) < density
        data[gen.integers(h), gen.integers(w)] = True
        masks.append(geoiou.Mask(data, origin=_random_origin(gen, origin, span)))
    return masks


def _random_origin(gen: np.random.Generator, kind: str, span: int) -> tuple[float, float]:
    whole = gen.integers(-span, span + 1, size=2).astype(np.float64)
    if kind == "integer":
        return tuple(whole)
    if kind == "dyadic":
        return tuple(whole + gen.integers(0, 8, size=2) / 8)
    if kind == "float":
        return tuple(whole + gen.random(2))
    raise ValueError(f"origin must be 'integer', 'dyadic' or 'float' (got {kind!r})")


def random_intervals(
    gen: np.random.Generator, n: int, *, span: float = 20.0, max_length: float = 10.0, integer: bool = False
) -> geoiou.Interval:
    """A batch of `n` intervals of positive length (integer end points when `integer`)."""
    if integer:
        start = gen.integers(-int(span), int(span), size=n).astype(np.float64)
        length = gen.integers(1, int(max_length) + 1, size=n).astype(np.float64)
    else:
        start = gen.uniform(-span, span, size=n)
        length = gen.uniform(0.1, max_length, size=n)
    return geoiou.Interval(np.stack([start, start + length], axis=-1))


def random_boxes3d(gen: np.random.Generator, n: int, *, span: float = 6.0, max_size: float = 8.0) -> geoiou.Box3D:
    """A batch of `n` axis-aligned 3-D boxes, centres in ``[-span, span]³``, sides in ``[0.1, max_size]``."""
    centre = gen.uniform(-span, span, size=(n, 3))
    size = gen.uniform(0.1, max_size, size=(n, 3))
    return geoiou.Box3D(np.concatenate([centre, size], axis=-1), fmt="cxcyczwhd")


def random_rotated_boxes3d(
    gen: np.random.Generator, n: int, *, span: float = 6.0, max_size: float = 8.0
) -> geoiou.RotatedBox3D:
    """A batch of `n` yaw boxes, centres in ``[-span, span]³`` (z within a third of it: on a ground), any yaw."""
    centre = gen.uniform(-span, span, size=(n, 3)) * np.array([1.0, 1.0, 1 / 3])
    size = gen.uniform(0.1, max_size, size=(n, 3))
    yaw = gen.uniform(-180.0, 180.0, size=(n, 1))
    return geoiou.RotatedBox3D(np.concatenate([centre, size, yaw], axis=-1))


def random_rotations(gen: np.random.Generator, n: int) -> np.ndarray:
    """`n` rotation matrices ``(n, 3, 3)`` uniform over the rotations (normalized Gaussian quaternions)."""
    q = gen.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    w, x, y, z = q.T
    rows = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ]
    return np.stack([np.stack(row, axis=-1) for row in rows], axis=-2)


def random_oriented_boxes3d(
    gen: np.random.Generator, n: int, *, span: float = 4.0, max_size: float = 8.0
) -> geoiou.OrientedBox3D:
    """A batch of `n` boxes in any orientation, centres in ``[-span, span]³``."""
    centre = gen.uniform(-span, span, size=(n, 3))
    size = gen.uniform(0.1, max_size, size=(n, 3))
    return geoiou.OrientedBox3D(centre, size, random_rotations(gen, n))


def random_regions(kind: str, gen: np.random.Generator, n: int) -> geoiou.Region:
    """A batch of `n` regions of `kind` (one of `KIND_NAMES`), overlapping often.

    Masks come stacked (padded to a common shape) with dyadic origins; polygons mix simple
    rings, rings with holes and MultiPolygons.
    """
    if kind == "box":
        return random_boxes(gen, n, span=8.0)
    if kind == "rotated_box":
        return random_rotated_boxes(gen, n, span=6.0)
    if kind == "polygon":
        pieces = [
            random_polygons(gen, n, span=6.0).to_shapely(),
            random_polygons_with_holes(gen, n, span=6.0).to_shapely(),
            random_multipolygons(gen, n, span=6.0).to_shapely(),
        ]
        choice = gen.integers(0, 3, size=n)
        geoms = np.array([pieces[c][i] for i, c in enumerate(choice)], dtype=object)
        return geoiou.Polygon.from_shapely(geoms)
    if kind == "mask":
        # Centred near 0 like the other kinds: origins in [-4, 4] moved back by half the mask's size.
        masks = random_masks(gen, n, max_side=12, origin="dyadic", span=4)
        return geoiou.Mask.stack(
            [geoiou.Mask(m.data, origin=m.origin - np.array(m.data.shape[::-1]) // 2) for m in masks]
        )
    if kind == "interval":
        return random_intervals(gen, n)
    if kind == "box3d":
        return random_boxes3d(gen, n)
    if kind == "rotated_box3d":
        return random_rotated_boxes3d(gen, n)
    if kind == "oriented_box3d":
        return random_oriented_boxes3d(gen, n)
    raise ValueError(f"unknown kind {kind!r}")


def translate(region: geoiou.Region, dx, dy=0.0, dz=0.0) -> geoiou.Region:
    """The region (or batch) moved by ``(dx, dy)`` (and `dz` in 3-D); intervals by `dx`. Offsets broadcast.

    Masks keep their pixels and move their origin; polygons are moved by `shapely.affinity.translate`.
    """
    dx = np.broadcast_to(np.asarray(dx, dtype=np.float64), region.shape)
    dy = np.broadcast_to(np.asarray(dy, dtype=np.float64), region.shape)
    dz = np.broadcast_to(np.asarray(dz, dtype=np.float64), region.shape)
    zero = np.zeros(region.shape)
    if isinstance(region, geoiou.Box3D):
        return geoiou.Box3D(region.to_array() + np.stack([dx, dy, dz, dx, dy, dz], axis=-1))
    if isinstance(region, geoiou.RotatedBox3D):
        return geoiou.RotatedBox3D(region.to_array() + np.stack([dx, dy, dz, zero, zero, zero, zero], axis=-1))
    if isinstance(region, geoiou.OrientedBox3D):
        return geoiou.OrientedBox3D(region.centre + np.stack([dx, dy, dz], axis=-1), region.sizes, region.rotation)
    if isinstance(region, geoiou.Box):
        return geoiou.Box(region.to_array() + np.stack([dx, dy, dx, dy], axis=-1))
    if isinstance(region, geoiou.RotatedBox):
        return geoiou.RotatedBox(region.to_array() + np.stack([dx, dy, zero, zero, zero], axis=-1))
    if isinstance(region, geoiou.Polygon):
        geoms = np.array(region.to_shapely(), dtype=object)
        moved = np.empty(region.shape, dtype=object)
        for index in np.ndindex(region.shape):
            moved[index] = shapely.affinity.translate(geoms[index], float(dx[index]), float(dy[index]))
        return geoiou.Polygon.from_shapely(moved[()] if not region.shape else moved)
    if isinstance(region, geoiou.Mask):
        return geoiou.Mask(region.data, origin=region.origin + np.stack([dx, dy], axis=-1))
    if isinstance(region, geoiou.Interval):
        return geoiou.Interval(region.to_array() + dx[..., None])
    raise TypeError(f"cannot translate {type(region).__name__}")


# =========================================================================== shapely oracles
def pixel_oracle_geometry(data: np.ndarray, origin) -> shapely.Geometry:
    """The mask's exact region built independently: the union of one `shapely.box` per true pixel.

    Pixel (r, c) is ``[x0 + c, x0 + c + 1) × [y0 + r, y0 + r + 1)`` (the documented pixel model).
    """
    x0, y0 = (float(v) for v in origin)
    rows, cols = np.nonzero(np.asarray(data, dtype=bool))
    if rows.size == 0:
        return shapely.Polygon()
    return shapely.union_all(shapely.box(x0 + cols, y0 + rows, x0 + cols + 1, y0 + rows + 1))


def shapely_of(region: geoiou.Region) -> shapely.Geometry:
    """Exact shapely geometry of one region (shape ``()``), built from its defining numbers.

    Boxes use `shapely.box`; rotated boxes rotate their corners here with the documented
    convention ``centre + R(angle) @ (±w/2, ±h/2)``; masks use `pixel_oracle_geometry`. Only
    polygons reuse their stored shapely geometry (it *is* their definition).
    """
    if region.shape:
        raise ValueError("shapely_of takes one region")
    if isinstance(region, geoiou.Box):
        return shapely.box(*region.bounds)
    if isinstance(region, geoiou.RotatedBox):
        cx, cy, w, h, angle = region.to_array()
        theta = math.radians(angle)
        cos, sin = math.cos(theta), math.sin(theta)
        corners = [
            (cx + cos * sx * w / 2 - sin * sy * h / 2, cy + sin * sx * w / 2 + cos * sy * h / 2)
            for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
        ]
        return shapely.Polygon(corners)
    if isinstance(region, geoiou.Polygon):
        return region.to_shapely()
    if isinstance(region, geoiou.Mask):
        return pixel_oracle_geometry(region.data, region.origin)
    raise TypeError(f"no shapely oracle for {type(region).__name__}")


# =========================================================================== Hypothesis strategies
def ci_settings(max_examples: int = 25, **options) -> settings:
    """Hypothesis settings of a property: ``max_examples`` under the default ``ci`` profile.

    The ``ci`` profile (root conftest.py) is derandomized (the same examples on every run: no
    flaky CI, no example database written into the repository) with no deadline (the first call
    of a kernel may be slow). Another profile scales every property's examples as its own
    ``max_examples`` scales Hypothesis' default of 100: ``deep`` (``DEEP_FACTOR`` times 100) draws
    that many times more, new ones on each run. Use as ``@ci_settings(30)``.
    """
    factor = max(1, settings.default.max_examples // 100)
    return settings(settings.default, max_examples=max_examples * factor, **options)


def _coordinate(span: float) -> st.SearchStrategy[float]:
    return st.floats(-span, span, allow_nan=False, allow_infinity=False)


def _size(max_size: float) -> st.SearchStrategy[float]:
    # Bounded away from 0 so that "non-empty" regions are not so thin that relative errors blow up.
    return st.floats(0.05, max_size, allow_nan=False, allow_infinity=False)


@st.composite
def box_strategy(draw, *, span: float = 20.0, max_size: float = 15.0, integer: bool = False) -> geoiou.Box:
    """One non-empty Box; integer corners when `integer` (exact arithmetic)."""
    if integer:
        x1, y1 = draw(st.integers(-int(span), int(span))), draw(st.integers(-int(span), int(span)))
        w, h = draw(st.integers(1, int(max_size))), draw(st.integers(1, int(max_size)))
    else:
        x1, y1 = draw(_coordinate(span)), draw(_coordinate(span))
        w, h = draw(_size(max_size)), draw(_size(max_size))
    return geoiou.Box([x1, y1, x1 + w, y1 + h])


@st.composite
def rotated_box_strategy(draw, *, span: float = 15.0, max_size: float = 15.0) -> geoiou.RotatedBox:
    """One non-empty RotatedBox with any angle in [-360, 360] (special angles drawn often)."""
    cx, cy = draw(_coordinate(span)), draw(_coordinate(span))
    w, h = draw(_size(max_size)), draw(_size(max_size))
    angle = draw(
        st.one_of(
            st.sampled_from([0.0, 45.0, 90.0, -90.0, 180.0, 30.0]),
            st.floats(-360, 360, allow_nan=False, allow_infinity=False),
        )
    )
    return geoiou.RotatedBox([cx, cy, w, h, angle])


@st.composite
def polygon_strategy(
    draw, *, span: float = 15.0, max_radius: float = 10.0, holes: bool = True, multi: bool = True
) -> geoiou.Polygon:
    """One valid Polygon: a star-shaped ring, optionally with a hole, or a two-part MultiPolygon."""

    def star(centre, r_low, r_high, max_vertices=8):
        count = draw(st.integers(3, max_vertices))
        jitter = draw(st.lists(st.floats(-0.45, 0.45), min_size=count, max_size=count))
        radii = draw(st.lists(st.floats(r_low, r_high), min_size=count, max_size=count))
        turn = draw(st.floats(0, 2 * np.pi))
        gap = 2 * np.pi / count
        angles = turn + gap * (np.arange(count) + np.array(jitter))
        return shapely.Polygon(star_ring(centre, np.array(radii), angles))

    centre = (draw(_coordinate(span)), draw(_coordinate(span)))
    shape = draw(st.sampled_from(["simple"] + (["hole"] if holes else []) + (["multi"] if multi else [])))
    if shape == "simple":
        geometry = star(centre, 0.5, max_radius)
    elif shape == "hole":
        outer = star(centre, 0.6 * max_radius, max_radius)
        inner = star(centre, 0.05 * max_radius, 0.25 * max_radius, max_vertices=5)
        # A thin outer triangle can pass between the centre and the hole: keep only draws where
        # the hole lies strictly inside (rarely rejected: outer radii >= 0.6 R, inner <= 0.25 R).
        assume(outer.buffer(-1e-6).contains(inner))
        geometry = shapely.Polygon(outer.exterior, [inner.exterior])
    else:
        other = (centre[0] + draw(st.floats(2.5, 3.0)) * max_radius, centre[1] + draw(_coordinate(max_radius)))
        geometry = shapely.MultiPolygon([star(centre, 0.5, max_radius), star(other, 0.5, max_radius)])
    assume(geometry.is_valid and geometry.area > 1e-3)
    return geoiou.Polygon.from_shapely(geometry)


@st.composite
def mask_strategy(draw, *, max_side: int = 8, span: int = 10, origin: str = "any") -> geoiou.Mask:
    """One non-empty Mask of shape up to ``max_side``², origin integer, dyadic or any float."""
    h, w = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    bits = draw(st.lists(st.booleans(), min_size=h * w, max_size=h * w))
    data = np.array(bits, dtype=bool).reshape(h, w)
    r, c = draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1))
    data[r, c] = True
    kind = draw(st.sampled_from(["integer", "dyadic", "float"])) if origin == "any" else origin
    whole = (draw(st.integers(-span, span)), draw(st.integers(-span, span)))
    if kind == "integer":
        fraction = (0.0, 0.0)
    elif kind == "dyadic":
        fraction = (draw(st.integers(0, 7)) / 8, draw(st.integers(0, 7)) / 8)
    else:
        fraction = (draw(st.floats(0, 1, exclude_max=True)), draw(st.floats(0, 1, exclude_max=True)))
    return geoiou.Mask(data, origin=(whole[0] + fraction[0], whole[1] + fraction[1]))


@st.composite
def interval_strategy(draw, *, span: float = 100.0, max_length: float = 50.0) -> geoiou.Interval:
    """One Interval of positive length."""
    start = draw(_coordinate(span))
    length = draw(st.floats(0.01, max_length, allow_nan=False, allow_infinity=False))
    return geoiou.Interval([start, start + length])


@st.composite
def box3d_strategy(draw, *, span: float = 20.0, max_size: float = 15.0, integer: bool = False) -> geoiou.Box3D:
    """One non-empty Box3D; integer corners when `integer` (exact arithmetic)."""
    if integer:
        low = [draw(st.integers(-int(span), int(span))) for _ in range(3)]
        size = [draw(st.integers(1, int(max_size))) for _ in range(3)]
    else:
        low = [draw(_coordinate(span)) for _ in range(3)]
        size = [draw(_size(max_size)) for _ in range(3)]
    return geoiou.Box3D([*low, *(a + b for a, b in zip(low, size))])


@st.composite
def rotated_box3d_strategy(draw, *, span: float = 15.0, max_size: float = 15.0) -> geoiou.RotatedBox3D:
    """One non-empty RotatedBox3D, any yaw in [-360, 360] (special yaws drawn often)."""
    centre = [draw(_coordinate(span)) for _ in range(3)]
    size = [draw(_size(max_size)) for _ in range(3)]
    yaw = draw(st.one_of(st.sampled_from([0.0, 45.0, 90.0, -90.0, 180.0, 30.0]), st.floats(-360, 360, allow_nan=False)))
    return geoiou.RotatedBox3D([*centre, *size, yaw])


@st.composite
def oriented_box3d_strategy(draw, *, span: float = 15.0, max_size: float = 15.0) -> geoiou.OrientedBox3D:
    """One non-empty OrientedBox3D in any orientation (a normalized quaternion), often a yaw or none."""
    centre = [draw(_coordinate(span)) for _ in range(3)]
    size = [draw(_size(max_size)) for _ in range(3)]
    kind = draw(st.sampled_from(["any", "any", "yaw", "none"]))
    if kind == "none":
        return geoiou.OrientedBox3D(centre, size, np.eye(3))
    if kind == "yaw":
        return geoiou.RotatedBox3D([*centre, *size, draw(st.floats(-360, 360))]).to_oriented_box3d()
    q = [draw(st.floats(-1, 1, allow_nan=False)) for _ in range(4)]
    assume(sum(v * v for v in q) > 0.01)
    return geoiou.OrientedBox3D.from_quaternion(centre, size, q)


_STRATEGIES: dict[str, Callable[..., st.SearchStrategy]] = {
    "box": box_strategy,
    "rotated_box": rotated_box_strategy,
    "polygon": polygon_strategy,
    "mask": mask_strategy,
    "interval": interval_strategy,
    "box3d": box3d_strategy,
    "rotated_box3d": rotated_box3d_strategy,
    "oriented_box3d": oriented_box3d_strategy,
}


def region_strategy(kind: str, **options) -> st.SearchStrategy[geoiou.Region]:
    """The strategy of one non-empty region of `kind` (one of `KIND_NAMES`)."""
    return _STRATEGIES[kind](**options)
