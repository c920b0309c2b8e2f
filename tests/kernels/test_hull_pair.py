"""The plain-Python rendering of the GIoU hull kernel for one pair equals the batch kernel bit for bit."""

from __future__ import annotations

import numpy as np
import shapely
import shapely.affinity
from hypothesis import given
from hypothesis import strategies as st

import geoiou
from geoiou.kernels.hull import ConvexHulls, union_hull_area
from geoiou.kernels.hull_pair import HullTable, pair_hull_area
from tests.strategies import ci_settings, polygon_strategy, random_masks, random_polygons, rng


def both_ways(a: shapely.Geometry, b: shapely.Geometry) -> tuple[float, float]:
    """(Python rendering, batch kernel) of the hull area of one pair of geometries."""
    hulls = shapely.convex_hull(np.array([a, b], dtype=object))
    python = pair_hull_area(HullTable(shapely.get_coordinates(hulls[0])), HullTable(shapely.get_coordinates(hulls[1])))
    table = ConvexHulls.from_shapely(hulls)
    return python, float(union_hull_area(table, np.array([0]), table, np.array([1]))[0])


@ci_settings(200)
@given(polygon_strategy(span=30.0), polygon_strategy(span=30.0))
def test_the_python_rendering_is_the_batch_kernel_bit_for_bit(a, b):
    """Far apart (the bridges) and overlapping (the walk) alike."""
    python, batch = both_ways(a.to_shapely(), b.to_shapely())
    assert python == batch


@ci_settings(60)
@given(polygon_strategy(span=2.0), st.sampled_from([(0, 0), (3, 0), (0, 2.5), (40, 40)]), st.integers(0, 3))
def test_moved_and_turned_copies_agree_too(a, shift, quarter_turns):
    g = a.to_shapely()
    other = shapely.affinity.translate(shapely.affinity.rotate(g, 90 * quarter_turns, origin=(0, 0)), *shift)
    python, batch = both_ways(g, other)
    assert python == batch


def test_degenerate_hulls_agree():
    shapes = [shapely.Point(5, 5), shapely.LineString([(4, 0), (4, 6)]), shapely.box(0, 0, 2, 2), shapely.Polygon(),
              shapely.box(2, 0, 4, 2)]
    for a in shapes:
        for b in shapes:
            python, batch = both_ways(a, b)
            assert python == batch, (a.wkt, b.wkt)


def test_single_giou_calls_equal_the_pairwise_matrix():
    polygons = random_polygons(rng(21), 25, span=20.0)
    masks = geoiou.Mask.stack(random_masks(rng(22), 6, origin="float", span=10))
    for a, b in ((polygons, polygons), (masks, polygons), (polygons, masks)):
        pairwise = geoiou.pairwise_giou(a, b)
        single = np.array([[geoiou.giou(p, q) for q in b] for p in a])
        np.testing.assert_array_equal(single, pairwise)
