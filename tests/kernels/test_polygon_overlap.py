"""The polygon kernel (sum of the areas shared by edge triangles) against hand-worked values and shapely.

Exactness here means: within 1e-9 of shapely's overlay relative to the larger polygon's area
(in practice ~1e-15), identical or nested polygons exactly their area, touching ones exactly 0,
and ``(a, b)`` bit-identical to ``(b, a)``.
"""

from __future__ import annotations

from importlib.resources import files

import numpy as np
import pytest
import shapely
import shapely.affinity
from hypothesis import given
from hypothesis import strategies as st

import geoiou
import geoiou.io
from geoiou.kernels.polygon import polygon_shared_area
from geoiou.regions.ragged import RaggedPolygons
from tests.strategies import (
    ci_settings,
    polygon_strategy,
    random_multipolygons,
    random_polygons,
    random_polygons_with_holes,
    rng,
)

RELATIVE = 1e-9


def overlap(a, b) -> float:
    """Shared area of two shapely geometries through the kernel (one pair, as `intersection_area` runs it)."""
    return geoiou.intersection_area(geoiou.Polygon.from_shapely(a), geoiou.Polygon.from_shapely(b))


def assert_matches_shapely(geoms_a: np.ndarray, geoms_b: np.ndarray) -> None:
    """Every pair (aligned) within 1e-9 of shapely, relative to the larger area; both orders bit-identical."""
    a, b = geoiou.Polygon.from_shapely(geoms_a), geoiou.Polygon.from_shapely(geoms_b)
    ours = geoiou.intersection_area(a, b)
    expected = shapely.area(shapely.intersection(geoms_a, geoms_b))
    scale = np.maximum(shapely.area(geoms_a), shapely.area(geoms_b))
    np.testing.assert_array_less(np.abs(ours - expected), RELATIVE * scale + 1e-300)
    np.testing.assert_array_equal(geoiou.intersection_area(b, a), ours)


# --------------------------------------------------------------------------- hand-worked values
@pytest.mark.parametrize(
    "a, b, expected",
    [
        # Unit squares, one moved right by half: they share [0.5, 1] x [0, 1].
        (shapely.box(0, 0, 1, 1), shapely.box(0.5, 0, 1.5, 1), 0.5),
        # The triangle (0,0) (4,0) (0,4) against the square [0, 2]^2: the square lies inside it.
        (shapely.Polygon([(0, 0), (4, 0), (0, 4)]), shapely.box(0, 0, 2, 2), 4.0),
        # The same triangle against [1, 3]^2: the part below x + y = 4 is the square minus a corner
        # triangle of legs 2 (area 2): 4 - 2 = 2.
        (shapely.Polygon([(0, 0), (4, 0), (0, 4)]), shapely.box(1, 1, 3, 3), 2.0),
        # A 4x4 square with a 2x2 hole against the hole itself: nothing shared.
        (
            shapely.Polygon(shapely.box(0, 0, 4, 4).exterior, [shapely.box(1, 1, 3, 3).exterior]),
            shapely.box(1, 1, 3, 3),
            0.0,
        ),
        # ... against [0, 2]^2: 4 minus the hole's quarter [1, 2]^2 = 3.
        (
            shapely.Polygon(shapely.box(0, 0, 4, 4).exterior, [shapely.box(1, 1, 3, 3).exterior]),
            shapely.box(0, 0, 2, 2),
            3.0,
        ),
        # Two parts [0,1]^2 and [2,3]^2 against [0.5, 2.5] x [0, 1]: half of each part.
        (shapely.MultiPolygon([shapely.box(0, 0, 1, 1), shapely.box(2, 0, 3, 1)]), shapely.box(0.5, 0, 2.5, 1), 1.0),
        # A cross of two bars: their 2x2 middle.
        (shapely.box(0, 4, 10, 6), shapely.box(4, 0, 6, 10), 4.0),
    ],
)
def test_hand_worked_overlaps(a, b, expected):
    assert overlap(a, b) == pytest.approx(expected, rel=1e-15, abs=1e-15)
    assert overlap(b, a) == overlap(a, b)


# --------------------------------------------------------------------------- degenerate configurations
SQUARE = shapely.box(0, 0, 2, 2)


@pytest.mark.parametrize(
    "other, expected",
    [
        (shapely.box(2, 0, 4, 2), 0.0),  # a shared edge, the other side of it: exactly 0
        (shapely.box(2, 1, 4, 3), 0.0),  # a shared edge piece (collinear, overlapping edges), outside
        (shapely.box(0, 0, 2, 2), 4.0),  # identical: exactly the area
        (shapely.box(0, 0, 2, 2).reverse(), 4.0),  # the same square, clockwise and from another vertex
        (shapely.box(0, 0, 1, 2), 2.0),  # shares three sides' worth of edges in the same direction, inside
        (shapely.box(1, 0, 3, 2), 2.0),  # shared edges in the same and opposite directions
        (shapely.Polygon([(2, 1), (3, 0), (3, 2)]), 0.0),  # a vertex on an edge, outside
        (shapely.Polygon([(1, 1), (2, 0), (2, 2)]), 1.0),  # a vertex inside, the opposite edge on an edge
        (shapely.Polygon([(2, 2), (3, 2), (3, 3)]), 0.0),  # touching at one vertex
        (shapely.box(0.5, 0.5, 1.5, 1.5), 1.0),  # nested: exactly the smaller area
        (shapely.box(-1, -1, 3, 3), 4.0),  # nested the other way
    ],
)
def test_degenerate_configurations_are_exact(other, expected):
    assert overlap(SQUARE, other) == expected
    assert overlap(other, SQUARE) == expected


def test_touching_holes_and_polygons_in_holes():
    # A hole that touches the exterior at one point (valid), and polygons inside and around it.
    shell = [(0, 0), (6, 0), (6, 6), (0, 6)]
    holed = shapely.Polygon(shell, [[(0, 3), (3, 1), (3, 5)]])  # the hole touches the left side at (0, 3)
    assert holed.is_valid
    inside_hole = shapely.Polygon([(1, 3), (2.5, 2), (2.5, 4)])
    for other in [inside_hole, shapely.box(0, 0, 3, 6), shapely.box(2, 2, 5, 5), holed]:
        expected = shapely.intersection(holed, other).area
        assert overlap(holed, other) == pytest.approx(expected, rel=1e-14, abs=1e-14)
    assert overlap(holed, inside_hole) == 0.0
    assert overlap(holed, holed) == holed.area


def test_collinear_overlapping_edges_in_both_directions():
    # Two L-shapes whose long edges lie on the same lines, overlapping over part of their length.
    ell = shapely.Polygon([(0, 0), (4, 0), (4, 1), (1, 1), (1, 4), (0, 4)])
    for dx, dy in [(0, 0), (2, 0), (0, 2), (-2, 0), (1, 1), (0.5, 0)]:
        moved = shapely.affinity.translate(ell, dx, dy)
        assert overlap(ell, moved) == pytest.approx(ell.intersection(moved).area, rel=1e-15, abs=1e-15)
        assert overlap(ell, moved.reverse()) == overlap(ell, moved)  # the ring's direction does not matter


@pytest.mark.parametrize(
    "scale, offset",
    [
        (1e9, 0.0),
        (1.0, 1e9),
        (1e-9, 0.0),
        (1e-9, 1e-3),
        (1.0, -3e12),
        (1.0, 2.2250738585072014e-308),
        (2.0**-500, 2.0**-498),
        (1e150, 1e152),
    ],
)
def test_scale_and_position_do_not_matter(scale, offset):
    """The same two polygons anywhere and at any size share the same fraction of their area.

    Near the smallest normal float (2.2e-308) a GEOS overlay returned wrong areas; the kernel's
    local, power-of-two-scaled frame does not care. At 2**-500 the areas are ~1e-301, at 1e150 ~1e300.
    """
    a = shapely.Polygon([(0, 0), (4, 0.5), (3.5, 3), (0.5, 4)])
    b = shapely.Polygon([(1, 1), (5, 1.5), (4, 5), (1.5, 3)])
    expected = a.intersection(b).area / a.area
    moved_a = shapely.affinity.affine_transform(a, [scale, 0, 0, scale, offset, offset])
    moved_b = shapely.affinity.affine_transform(b, [scale, 0, 0, scale, offset, offset])
    polygon_a, polygon_b = geoiou.Polygon.from_shapely(moved_a), geoiou.Polygon.from_shapely(moved_b)
    fraction = geoiou.intersection_area(polygon_a, polygon_b) / polygon_a.area
    # At 1e9 offsets the coordinates themselves keep only ~1e-7 of a unit: compare within that.
    tolerance = 1e-9 if abs(offset) < 1e6 * scale else 1e-6
    assert fraction == pytest.approx(expected, rel=tolerance)


@pytest.mark.parametrize("power", [-60, -3, 1, 40])
def test_power_of_two_scaling_scales_the_result_exactly(power):
    # The kernel works in a frame scaled by a power of two, so scaling the inputs by one is exact
    # (the canonical order of the two sides, by their vertices, does not change either).
    geoms = random_polygons(rng(3), 40, span=4.0).to_shapely()
    factor = 2.0**power
    scaled = np.array([shapely.affinity.scale(g, factor, factor, origin=(0, 0)) for g in geoms], dtype=object)
    pairs = np.arange(20), np.arange(20, 40)
    store, moved_store = RaggedPolygons.from_shapely(geoms), RaggedPolygons.from_shapely(scaled)
    base = polygon_shared_area(store, pairs[0], store, pairs[1])
    moved = polygon_shared_area(moved_store, pairs[0], moved_store, pairs[1])
    np.testing.assert_array_equal(moved, base * factor * factor)


# --------------------------------------------------------------------------- cross-checks with shapely
def test_random_polygons_holes_and_parts_match_shapely():
    gen = rng(11)
    geoms = np.concatenate(
        [
            random_polygons(gen, 60, span=5).to_shapely(),
            random_polygons_with_holes(gen, 30, span=5).to_shapely(),
            random_multipolygons(gen, 30, span=5).to_shapely(),
        ]
    )
    index_a, index_b = np.meshgrid(np.arange(len(geoms)), np.arange(len(geoms)), indexing="ij")
    assert_matches_shapely(geoms[index_a.ravel()], geoms[index_b.ravel()])


def test_dota_labels_match_shapely():
    """The 536 quadrilaterals of the dense harbour scene P0706, every pair."""
    polygons = geoiou.io.read_dota(files("geoiou") / "data" / "dota" / "P0706.txt").polygons
    geoms = polygons.to_shapely()
    ours = geoiou.pairwise_intersection_area(polygons, polygons)
    index_a, index_b = np.nonzero(ours > 0)
    expected = shapely.area(shapely.intersection(geoms[index_a], geoms[index_b]))
    scale = np.maximum(shapely.area(geoms[index_a]), shapely.area(geoms[index_b]))
    assert np.all(np.abs(ours[index_a, index_b] - expected) <= RELATIVE * scale)
    # No pair that shapely sees overlapping is missed.
    tree = shapely.STRtree(geoms)
    pairs_a, pairs_b = tree.query(geoms, predicate="intersects")
    assert np.all(ours[pairs_a, pairs_b] >= shapely.area(shapely.intersection(geoms[pairs_a], geoms[pairs_b])) - 1e-9)
    np.testing.assert_array_equal(np.diag(ours), polygons.area)  # every label against itself: exactly its area


@ci_settings(60)
@given(polygon_strategy(span=6.0), polygon_strategy(span=6.0))
def test_any_two_polygons_match_shapely(a, b):
    assert_matches_shapely(np.array([a.to_shapely()], dtype=object), np.array([b.to_shapely()], dtype=object))
    assert geoiou.iou(a, b) == geoiou.iou(b, a)
    assert geoiou.iou(a, a) == 1.0


@ci_settings(40)
@given(
    polygon_strategy(span=3.0, holes=True, multi=True),
    st.sampled_from([(1, 0), (0, 1), (0.5, 0.25), (-1, -1), (0, 0)]),
    st.integers(0, 3),
)
def test_moved_and_turned_copies_match_shapely(a, shift, quarter_turns):
    """A copy moved along simple directions and turned by quarter turns: edges land on edges often."""
    g = a.to_shapely()
    moved = shapely.affinity.translate(shapely.affinity.rotate(g, 90 * quarter_turns, origin=(0, 0)), *shift)
    assert_matches_shapely(np.array([g], dtype=object), np.array([moved], dtype=object))


# --------------------------------------------------------------------------- the kernel's interface
def test_pairs_of_empty_and_degenerate_polygons_share_nothing():
    store = RaggedPolygons.from_shapely(np.array([shapely.box(0, 0, 1, 1), shapely.Polygon()], dtype=object))
    assert polygon_shared_area(store, np.array([0, 1]), store, np.array([1, 1])).tolist() == [0.0, 0.0]
    flat = geoiou.Box([[0, 0, 0, 5]]).to_polygon()  # a box of zero width as a polygon
    assert geoiou.intersection_area(flat, geoiou.Polygon([(0, 0), (1, 0), (0, 1)])).tolist() == [0.0]


def test_no_pairs_give_an_empty_result():
    store = RaggedPolygons.from_shapely(np.array([shapely.box(0, 0, 1, 1)], dtype=object))
    assert polygon_shared_area(store, np.array([], dtype=int), store, np.array([], dtype=int)).shape == (0,)


def test_many_pairs_of_mixed_sizes_match_shapely():
    """Pairs of very different edge counts (3 to 200) in one call."""
    gen = rng(5)
    rings = []
    for count in gen.integers(3, 200, size=80):
        theta = np.sort(gen.uniform(0, 2 * np.pi, count))
        theta = np.linspace(0, 2 * np.pi, count, endpoint=False) + gen.uniform(0, 0.5 / count, count)
        radius = gen.uniform(2, 4, count)
        rings.append(np.stack([radius * np.cos(theta), radius * np.sin(theta)], axis=1) + gen.uniform(-3, 3, 2))
    polygons = geoiou.Polygon.from_rings(rings)
    geoms = polygons.to_shapely()
    ours = geoiou.pairwise_intersection_area(polygons, polygons)
    expected = shapely.area(shapely.intersection(geoms[:, None], geoms[None, :]))
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-12 * np.max(polygons.area))
