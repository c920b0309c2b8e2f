"""The plain-Python rendering of the polygon kernel for one pair equals the batch kernel bit for bit."""

from __future__ import annotations

import numpy as np
import shapely
import shapely.affinity
from hypothesis import given
from hypothesis import strategies as st

import geoiou
from geoiou.kernels.polygon import canonical_shared_area
from geoiou.kernels.polygon_pair import MAX_VERTICES, RingPolygon, pair_shared_area
from geoiou.regions.ragged import RaggedPolygons
from tests.strategies import ci_settings, polygon_strategy, random_polygons, rng


def both_ways(a: shapely.Geometry, b: shapely.Geometry) -> tuple[float, float]:
    """(Python rendering, batch kernel) for one pair."""
    store_a = RaggedPolygons.from_shapely(np.array([a], dtype=object))
    store_b = RaggedPolygons.from_shapely(np.array([b], dtype=object))
    python = pair_shared_area(RingPolygon(store_a, 0), RingPolygon(store_b, 0))
    bounds_a, bounds_b = store_a.bounds[0], store_b.bounds[0]
    overlapping = (np.maximum(bounds_a[:2], bounds_b[:2]) < np.minimum(bounds_a[2:], bounds_b[2:])).all()
    batch = canonical_shared_area(store_a, np.array([0]), store_b, np.array([0]))[0] if overlapping else 0.0
    return python, float(batch)


@ci_settings(200)
@given(polygon_strategy(span=4.0, holes=False, multi=False), polygon_strategy(span=4.0, holes=False, multi=False))
def test_the_python_rendering_is_the_batch_kernel_bit_for_bit(a, b):
    python, batch = both_ways(a.to_shapely(), b.to_shapely())
    assert python == batch or (np.isnan(python) and np.isnan(batch))


@ci_settings(60)
@given(polygon_strategy(span=2.0, holes=False, multi=False), st.sampled_from([(0, 0), (1, 0), (0.5, 0.5)]),
       st.integers(0, 3), st.booleans())
def test_degenerate_copies_agree_too(a, shift, quarter_turns, reverse):
    """Moved and turned copies share edges and vertices with the original: the touchy cases."""
    g = a.to_shapely()
    other = shapely.affinity.translate(shapely.affinity.rotate(g, 90 * quarter_turns, origin=(0, 0)), *shift)
    other = other.reverse() if reverse else other
    python, batch = both_ways(g, other)
    assert python == batch


def test_single_calls_take_the_python_path_and_batches_agree_with_them():
    polygons = random_polygons(rng(12), 60, span=5.0)
    pairwise = geoiou.pairwise_intersection_area(polygons, polygons)
    single = np.array([[geoiou.intersection_area(p, q) for q in polygons] for p in polygons])
    np.testing.assert_array_equal(single, pairwise)
    assert geoiou.iou(polygons[0], polygons[0]) == 1.0


def test_only_small_rings_are_served():
    big = np.stack([np.cos(np.linspace(0, 6, MAX_VERTICES + 1)), np.sin(np.linspace(0, 6, MAX_VERTICES + 1))], axis=1)
    holed = shapely.Polygon(shapely.box(0, 0, 4, 4).exterior, [shapely.box(1, 1, 2, 2).exterior])
    store = RaggedPolygons.from_shapely(np.array([shapely.Polygon(big), holed, shapely.box(0, 0, 1, 1)], dtype=object))
    assert [RingPolygon.serves(store, k) for k in range(3)] == [False, False, True]


@ci_settings(100)
@given(polygon_strategy(span=1e3, holes=False, multi=False))
def test_area_bounds_and_fingerprint_are_the_stores_bits(polygon):
    store = RaggedPolygons.from_shapely(np.array([polygon.to_shapely()], dtype=object))
    ring = RingPolygon(RaggedPolygons.from_shapely(np.array([polygon.to_shapely()], dtype=object)), 0)
    assert ring.area == store.area[0] and ring.fingerprint == int(store.fingerprint[0])
    assert ring.bounds == tuple(store.bounds[0].tolist())
