"""The GIoU hull kernel: area of the convex hull of two convex hulls, against shapely, by bridges and by the walk."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
import shapely
import shapely.affinity
from hypothesis import given
from hypothesis import strategies as st

import geoiou
from geoiou.kernels import hull as hull_module
from geoiou.kernels.formulas import MEASURED, Pairs
from geoiou.kernels.hull import hull_tables, union_hull_areas
from geoiou.kernels.union_hull import hull_area
from geoiou.regions.hulls import ConvexHulls
from tests.strategies import (
    ci_settings,
    polygon_strategy,
    random_masks,
    random_polygons,
    rng,
)


def hulls_of(geoms: np.ndarray | list[shapely.Geometry]) -> ConvexHulls:
    return ConvexHulls.of_geometries(np.asarray(geoms, dtype=object))


def hull_areas(geoms_a, geoms_b) -> np.ndarray:
    """The kernel on the pairs ``(geoms_a[k], geoms_b[k])``."""
    geoms_a, geoms_b = np.asarray(geoms_a, dtype=object), np.asarray(geoms_b, dtype=object)
    rows_a, rows_b = np.arange(len(geoms_a)), np.arange(len(geoms_b))
    return union_hull_areas(hulls_of(geoms_a), rows_a, rows_a, hulls_of(geoms_b), rows_b, rows_b)


def expected_hull_areas(geoms_a, geoms_b) -> np.ndarray:
    return shapely.area(
        shapely.convex_hull(shapely.union(np.asarray(geoms_a, dtype=object), np.asarray(geoms_b, dtype=object)))
    )


def assert_hulls_match(geoms_a, geoms_b, relative=1e-12):
    ours = hull_areas(geoms_a, geoms_b)
    np.testing.assert_allclose(ours, expected_hull_areas(geoms_a, geoms_b), rtol=relative, atol=1e-300)
    np.testing.assert_array_equal(hull_areas(geoms_b, geoms_a), ours)  # the canonical order: the same bits


def walked_and_measured(geoms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every ordered pair of `geoms`: twice the hull's area by the walk alone (the compiled function called
    directly), twice the kernel's area (by the bridges where the bounds are apart), and whether they are apart."""
    hulls = hulls_of(geoms)
    vertices, frames, slots, _ = hull_tables(hulls)
    size = len(geoms)
    walked, apart = np.full((size, size), np.nan), np.zeros((size, size), bool)
    for i in range(size):
        for j in range(size):
            count_i, count_j = slots[i + 1] - slots[i] - 1, slots[j + 1] - slots[j] - 1
            if not count_i or not count_j:  # an empty hull: neither path
                continue
            t_x, t_y = frames[j, 0] - frames[i, 0], frames[j, 1] - frames[i, 1]
            walked[i, j] = hull_module._walked(vertices, slots[i], count_i, vertices, slots[j], count_j, t_x, t_y)
            apart[i, j] = (
                frames[i, 4] < frames[j, 2]
                or frames[j, 4] < frames[i, 2]
                or frames[i, 5] < frames[j, 3]
                or frames[j, 5] < frames[i, 3]
            )
    rows = np.arange(size)
    index_a, index_b = (part.ravel() for part in np.meshgrid(rows, rows, indexing="ij"))
    measured = 2 * union_hull_areas(hulls, rows, index_a, hulls, rows, index_b).reshape(size, size)
    return walked, measured, apart


@pytest.mark.parametrize(
    "a, b, expected",
    [
        # Two unit squares side by side with a gap of 1: the hull is the 3 x 1 box.
        (shapely.box(0, 0, 1, 1), shapely.box(2, 0, 3, 1), 3.0),
        # Diagonal unit squares: the hexagon (0,0) (1,0) (2,1) (2,2) (1,2) (0,1), area 4 - 2 * 1/2 = 3.
        (shapely.box(0, 0, 1, 1), shapely.box(1, 1, 2, 2), 3.0),
        # A square and a point above it: the square plus the triangle (0,1) (1,1) (0.5, 3) of area 1.
        (shapely.box(0, 0, 1, 1), shapely.Point(0.5, 3), 2.0),
        # Nested: the bigger one.
        (shapely.box(0, 0, 4, 4), shapely.box(1, 1, 2, 2), 16.0),
        # A segment across a square's corner: the pentagon of the square and the segment's ends.
        (shapely.box(0, 0, 2, 2), shapely.LineString([(1, 3), (3, 1)]), 4.0 + 2.0),
        # Two points, two segments on one line: nothing.
        (shapely.Point(0, 0), shapely.Point(5, 5), 0.0),
        (shapely.LineString([(0, 0), (1, 1)]), shapely.LineString([(2, 2), (5, 5)]), 0.0),
    ],
)
def test_hand_worked_hulls(a, b, expected):
    assert hull_areas([a], [b])[0] == pytest.approx(expected, rel=1e-15, abs=1e-15)
    assert hull_areas([b], [a])[0] == hull_areas([a], [b])[0]


def test_the_tables_are_counter_clockwise_from_the_smallest_normal_and_hold_running_sums():
    clockwise = shapely.Polygon([(0, 0), (0, 2), (3, 2), (3, 0)])  # GEOS keeps a polygon's direction
    vertices, frames, _, guesses = hull_tables(ConvexHulls.from_shapely(np.array([clockwise], dtype=object)))
    assert frames[0].tolist() == [1.5, 1.0, 0.0, 0.0, 3.0, 2.0]
    assert vertices[:, :2].tolist() == [[1.5, -1], [1.5, 1], [-1.5, 1], [-1.5, -1], [1.5, -1]]
    assert vertices[:, 2].tolist() == [0.0, 1.0, 2.0, 3.0, np.inf]
    assert vertices[-1, 3] == 12.0  # twice the area
    # The first guess of each of the 64 direction buckets: the normals below the bucket's start.
    assert guesses[0].tolist() == [0] + [1] * 16 + [2] * 16 + [3] * 16 + [4] * 15


def test_random_pairs_far_apart_and_overlapping_match_shapely():
    """Pairs apart take the bridges, overlapping ones the walk: both against shapely, both orders."""
    geoms = random_polygons(rng(3), 150, span=20).to_shapely()
    index_a, index_b = np.meshgrid(np.arange(150), np.arange(150), indexing="ij")
    assert_hulls_match(geoms[index_a.ravel()], geoms[index_b.ravel()])


@pytest.mark.parametrize("seed", [4, 5])
def test_the_walk_alone_and_the_bridges_each_match_shapely_on_every_pair(seed):
    """The walk measures any pair (apart ones too); the kernel bridges the apart ones."""
    geoms = random_polygons(rng(seed), 60, span=20).to_shapely()
    walked, measured, apart = walked_and_measured(geoms)
    index_a, index_b = np.meshgrid(np.arange(60), np.arange(60), indexing="ij")
    expected = expected_hull_areas(geoms[index_a.ravel()], geoms[index_b.ravel()]).reshape(60, 60)
    np.testing.assert_allclose(walked / 2, expected, rtol=1e-12)
    assert apart.sum() > 0.5 * apart.size
    np.testing.assert_allclose(measured[apart] / 2, expected[apart], rtol=1e-12)


def test_far_apart_hulls_keep_every_digit():
    """Exact rational areas of the hulls of the union: relative error near one rounding, at any distance, both paths."""
    gen = rng(7)
    for distance in (1e2, 1e5, 1e8):
        a = shapely.convex_hull(shapely.MultiPoint(gen.normal(size=(8, 2))))
        b = shapely.convex_hull(shapely.MultiPoint(gen.normal(size=(8, 2)) * 2 + gen.normal(size=2) * distance))
        corners = [
            (Fraction(x), Fraction(y)) for x, y in shapely.get_coordinates(shapely.convex_hull(shapely.union(a, b)))
        ]
        exact = abs(sum(p[0] * q[1] - p[1] * q[0] for p, q in itertools.pairwise(corners))) / 2
        ours = hull_areas([a], [b])[0]
        assert abs(Fraction(ours) - exact) <= 2e-15 * exact
        walked, _, _ = walked_and_measured(np.array([a, b], dtype=object))
        assert abs(Fraction(walked[0, 1] / 2) - exact) <= 4e-15 * exact


def test_hulls_with_many_normals_are_still_exact():
    # A fine regular 400-gon: the search for the furthest vertex has many normals to choose from,
    # and a bridge to a nearby circle turns far from the normal of the line between the centres.
    theta = np.linspace(0, 2 * np.pi, 400, endpoint=False)
    circle = shapely.Polygon(np.stack([np.cos(theta), np.sin(theta)], axis=1))
    others = [shapely.affinity.translate(circle, dx, dy) for dx, dy in [(5, 0), (0, 7), (-3, -4), (0.5, 0.2)]]
    others.append(shapely.affinity.scale(shapely.affinity.translate(circle, 2.5, 0.3), 0.1, 0.1))
    assert_hulls_match([circle] * 5, others)


DEGENERATE_HULLS = [
    shapely.Point(1, 1),
    shapely.Point(5, 5),
    shapely.LineString([(0, 0), (3, 3)]),
    shapely.LineString([(2, -1), (2, 4)]),
    shapely.LineString([(4, 0), (4, 6)]),
    shapely.LineString([(5, 0), (9, 0)]),
    shapely.Polygon(),
    shapely.box(0, 0, 2, 2),
    shapely.box(2, 0, 4, 2),
    shapely.box(0.5, 0.5, 1, 1),
    shapely.box(1, 1, 3, 3),
    shapely.box(5, 5, 6, 6),
    shapely.Polygon([(0, 0), (4, 0), (2, 3)]),
    shapely.Polygon([(0, 0), (4, 0), (2, 1e-9)]),
]


def test_degenerate_nested_touching_and_identical_hulls():
    """Points, segments, collinear ones, empties, nested, touching and identical hulls: every pair, both orders."""
    geoms = np.array(DEGENERATE_HULLS, dtype=object)
    index_a, index_b = (part.ravel() for part in np.meshgrid(np.arange(len(geoms)), np.arange(len(geoms))))
    ours = hull_areas(geoms[index_a], geoms[index_b])
    np.testing.assert_allclose(ours, expected_hull_areas(geoms[index_a], geoms[index_b]), rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(hull_areas(geoms[index_b], geoms[index_a]), ours)
    assert not np.signbit(ours).any()


def test_two_empty_hulls_enclose_nothing():
    assert hull_areas([shapely.Polygon()], [shapely.Polygon()]).tolist() == [0.0]


@pytest.mark.parametrize("offset", [1e9, -3e12, 2.2250738585072014e-308])
@pytest.mark.parametrize("shift", [(10, 3), (1, 0.5)])  # apart, overlapping
def test_far_from_the_origin_the_hull_keeps_its_digits(offset, shift):
    a = shapely.Polygon([(0, 0), (4, 0.5), (3.5, 3), (0.5, 4)])
    b = shapely.affinity.translate(a, *shift)
    expected = shapely.convex_hull(shapely.union(a, b)).area
    moved = [shapely.affinity.translate(g, offset, offset) for g in (a, b)]
    tolerance = 1e-12 if abs(offset) < 1e6 else 1e-6  # coordinates at 1e12 keep only ~1e-4 of a unit
    assert hull_areas([moved[0]], [moved[1]])[0] == pytest.approx(expected, rel=tolerance)


def test_pairs_name_regions_through_their_rows():
    """`rows` maps a batch's regions to hull rows; `index` picks the pairs: any pattern, repeats included."""
    geoms = random_polygons(rng(9), 30, span=15).to_shapely()
    hulls = hulls_of(geoms)
    rows = np.arange(30)[::-1].copy()  # region k is hull 29 - k
    gen = rng(10)
    index_a, index_b = gen.integers(0, 30, 500), gen.integers(0, 30, 500)
    ours = union_hull_areas(hulls, rows, index_a, hulls, rows, index_b)
    np.testing.assert_allclose(ours, expected_hull_areas(geoms[rows[index_a]], geoms[rows[index_b]]), rtol=1e-12)
    assert union_hull_areas(hulls, rows, np.zeros(0, np.int64), hulls, rows, np.zeros(0, np.int64)).shape == (0,)


def test_the_derived_tables_are_cached_on_the_hulls():
    hulls = hulls_of([shapely.box(0, 0, 1, 1)])
    assert hull_tables(hulls) is hull_tables(hulls)


@ci_settings(60)
@given(polygon_strategy(span=20.0), polygon_strategy(span=20.0))
def test_polygon_giou_hull_matches_shapely(a, b):
    expected = shapely.convex_hull(shapely.union(a.to_shapely(), b.to_shapely())).area
    assert geoiou.enclosure_area(a, b) == pytest.approx(max(expected, geoiou.union_area(a, b)), rel=1e-12)
    assert geoiou.giou(a, b) == geoiou.giou(b, a)


@ci_settings(30)
@given(st.integers(0, 10_000))
def test_mask_and_polygon_hulls_match_shapely(seed):
    gen = rng(seed)
    data = gen.random((int(gen.integers(1, 9)), int(gen.integers(1, 9)))) < 0.5
    data[0, 0] = True
    mask = geoiou.Mask(data, origin=tuple(gen.uniform(-5, 5, 2)))
    polygon = random_polygons(gen, 1, span=6)[0]
    pixels = shapely.union_all(
        shapely.box(
            *(np.stack(np.nonzero(data)[::-1], axis=1) + mask.origin).T,
            *(np.stack(np.nonzero(data)[::-1], axis=1) + mask.origin + 1).T,
        )
    )
    expected = shapely.convex_hull(shapely.union(pixels, polygon.to_shapely())).area
    assert geoiou.enclosure_area(mask, polygon) == pytest.approx(expected, rel=1e-12)
    assert geoiou.enclosure_area(polygon, mask) == geoiou.enclosure_area(mask, polygon)


def test_single_giou_calls_equal_the_pairwise_matrix():
    polygons = random_polygons(rng(21), 25, span=20.0)
    masks = geoiou.Mask.stack(random_masks(rng(22), 6, origin="float", span=10))
    for a, b in ((polygons, polygons), (masks, polygons), (polygons, masks), (masks, masks)):
        pairwise = geoiou.pairwise_giou(a, b)
        single = np.array([[geoiou.giou(p, q) for q in b] for p in a])
        np.testing.assert_array_equal(single, pairwise)


def test_any_number_of_threads_gives_the_same_bits():
    polygons = random_polygons(rng(23), 200, span=30.0)
    others = random_polygons(rng(24), 150, span=30.0)
    geoiou.set_threads(None)
    every_core = geoiou.get_threads()
    try:
        geoiou.set_threads(1)
        one = geoiou.pairwise_giou(polygons, others)
        geoiou.set_threads(min(2, every_core))
        two = geoiou.pairwise_giou(polygons, others)
    finally:
        geoiou.set_threads(None)
    np.testing.assert_array_equal(one, two)


def test_a_pass_with_no_pairs_on_one_side_reads_no_hull():
    """Masks gather the hulls of the regions the pairs name only: with no column, none, and rows that name no hull."""
    masks = geoiou.Mask.stack(random_masks(rng(25), 3))
    out = np.empty(0)
    assert hull_area.fused is not None
    hull_area.fused(masks, masks, Pairs(np.arange(3), np.zeros(0, np.int64), True), MEASURED, out)
    assert out.shape == (0,)
