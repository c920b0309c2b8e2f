"""The GIoU hull kernel: area of the convex hull of two convex hulls, against shapely, on every path."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import shapely
import shapely.affinity
from hypothesis import given
from hypothesis import strategies as st

import geoiou
import geoiou.kernels.hull as hull_module
from geoiou.kernels.hull import ConvexHulls, union_hull_area
from tests.strategies import ci_settings, polygon_strategy, random_polygons, rng


def hulls_of(geoms: np.ndarray) -> ConvexHulls:
    return ConvexHulls.from_shapely(shapely.convex_hull(np.asarray(geoms, dtype=object)))


def expected_hull_areas(geoms_a: np.ndarray, geoms_b: np.ndarray) -> np.ndarray:
    return shapely.area(shapely.convex_hull(shapely.union(geoms_a, geoms_b)))


def assert_hulls_match(geoms_a, geoms_b, relative=1e-12):
    geoms_a, geoms_b = np.asarray(geoms_a, dtype=object), np.asarray(geoms_b, dtype=object)
    ours = union_hull_area(hulls_of(geoms_a), np.arange(len(geoms_a)), hulls_of(geoms_b), np.arange(len(geoms_b)))
    expected = expected_hull_areas(geoms_a, geoms_b)
    np.testing.assert_allclose(ours, expected, rtol=relative, atol=1e-300)
    swapped = union_hull_area(hulls_of(geoms_b), np.arange(len(geoms_b)), hulls_of(geoms_a), np.arange(len(geoms_a)))
    np.testing.assert_array_equal(swapped, ours)  # the canonical order makes the two orders agree bit for bit


@pytest.mark.parametrize("a, b, expected", [
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
])
def test_hand_worked_hulls(a, b, expected):
    assert union_hull_area(hulls_of([a]), [0], hulls_of([b]), [0])[0] == pytest.approx(expected, rel=1e-15)


def test_random_pairs_far_apart_and_overlapping_match_shapely():
    """Pairs apart take the bridges, overlapping ones the walk: both against shapely."""
    geoms = random_polygons(rng(3), 150, span=20).to_shapely()
    index_a, index_b = np.meshgrid(np.arange(150), np.arange(150), indexing="ij")
    assert_hulls_match(geoms[index_a.ravel()], geoms[index_b.ravel()])


def test_a_column_against_a_row_gives_the_matrix_of_the_flat_pairs(monkeypatch):
    """The matrix form (per-hull values broadcast) in blocks of a few rows: the flat pairs' bits, walks included."""
    monkeypatch.setattr(hull_module, "PAIR_BLOCK", 100)
    hulls = hulls_of(random_polygons(rng(9), 60, span=15).to_shapely())
    rows, columns = np.arange(60), np.arange(60)[::-1].copy()
    matrix = union_hull_area(hulls, rows[:, None], hulls, columns[None, :])
    index_a, index_b = np.meshgrid(rows, columns, indexing="ij")
    flat = union_hull_area(hulls, index_a.ravel(), hulls, index_b.ravel())
    assert matrix.shape == (60, 60)
    np.testing.assert_array_equal(matrix.ravel(), flat)
    np.testing.assert_array_equal(union_hull_area(hulls, columns[None, :], hulls, rows[:, None]), matrix[::-1, ::-1].T)
    # One hull against a column, a row against one hull.
    np.testing.assert_array_equal(union_hull_area(hulls, rows[:, None], hulls, np.array([[columns[7]]])), matrix[:, 7:8])
    np.testing.assert_array_equal(union_hull_area(hulls, np.array([[rows[3]]]), hulls, columns[None, :]), matrix[3:4])


def test_every_pair_is_walked_when_no_bounds_are_apart(monkeypatch):
    monkeypatch.setattr(hull_module, "_bounds_apart", lambda a, rows_a, b, rows_b: np.zeros(len(rows_a), dtype=bool))
    geoms = random_polygons(rng(4), 80, span=20).to_shapely()
    index_a, index_b = np.meshgrid(np.arange(80), np.arange(80), indexing="ij")
    assert_hulls_match(geoms[index_a.ravel()], geoms[index_b.ravel()])


def test_bridges_left_unsettled_by_the_guess_go_to_the_walk(monkeypatch):
    monkeypatch.setattr(hull_module, "BRIDGE_ITERATIONS", 0)
    geoms = random_polygons(rng(5), 80, span=20).to_shapely()
    index_a, index_b = np.meshgrid(np.arange(80), np.arange(80), indexing="ij")
    assert_hulls_match(geoms[index_a.ravel()], geoms[index_b.ravel()])


def test_the_guess_is_never_past_the_support_and_the_support_is_the_furthest_vertex():
    """Brute force: the furthest vertex in each direction (ties to the later normal, as the table has them)."""
    gen = rng(6)
    geoms = shapely.convex_hull(random_polygons(gen, 40, span=20).to_shapely())
    hulls = hulls_of(geoms)
    rows = np.repeat(np.arange(40), 50)
    angle = gen.uniform(0, hull_module.TURN, rows.size)
    angle[::7] = hulls.angle[hulls.offsets[rows[::7]] + 1]  # exactly on a normal
    guess = hulls.guess(hulls.guess_rows(rows) + hull_module.guess_bucket(angle), hulls.offsets[rows], angle)
    support = hulls.support(rows, angle)
    assert np.all(guess <= support)
    assert hulls.supports(support, angle).all()
    first = hulls.offsets[rows]
    for k in range(rows.size):
        normals = hulls.angle[first[k]:first[k] + hulls.count[rows[k]]]
        assert support[k] - first[k] == np.count_nonzero(normals < angle[k])


def test_far_apart_hulls_keep_every_digit():
    """Exact rational areas of the hulls of the union: relative error near one rounding, at any distance."""
    gen = rng(7)
    for distance in (1e2, 1e5, 1e8):
        a = shapely.convex_hull(shapely.MultiPoint(gen.normal(size=(8, 2))))
        b = shapely.convex_hull(shapely.MultiPoint(gen.normal(size=(8, 2)) * 2 + gen.normal(size=2) * distance))
        corners = [(Fraction(x), Fraction(y)) for x, y in shapely.get_coordinates(shapely.convex_hull(shapely.union(a, b)))]
        exact = abs(sum(p[0] * q[1] - p[1] * q[0] for p, q in zip(corners, corners[1:]))) / 2
        ours = union_hull_area(hulls_of([a]), [0], hulls_of([b]), [0])[0]
        assert abs(Fraction(ours) - exact) <= 2e-15 * exact


def test_hulls_with_many_normals_per_lookup_bucket_are_still_exact():
    # A fine regular 400-gon has several normals in every bucket of the guess table: first
    # guesses are then often short, and `support` steps on from them.
    theta = np.linspace(0, 2 * np.pi, 400, endpoint=False)
    circle = shapely.Polygon(np.stack([np.cos(theta), np.sin(theta)], axis=1))
    others = [shapely.affinity.translate(circle, dx, dy) for dx, dy in [(5, 0), (0, 7), (-3, -4), (0.5, 0.2)]]
    assert_hulls_match([circle] * 4, others)


@pytest.mark.parametrize("other", [shapely.Point(5, 5), shapely.LineString([(4, 0), (4, 6)]), shapely.box(0, 0, 2, 2),
                                   shapely.Polygon(), shapely.box(2, 0, 4, 2), shapely.box(1, 1, 3, 3)])
def test_degenerate_and_touching_hulls(other):
    square = shapely.box(0, 0, 2, 2)
    expected = shapely.convex_hull(shapely.union(square, other)).area
    assert union_hull_area(hulls_of([square]), [0], hulls_of([other]), [0])[0] == pytest.approx(expected, rel=1e-15)


def test_two_empty_hulls_enclose_nothing():
    empty = hulls_of([shapely.Polygon()])
    assert union_hull_area(empty, [0], empty, [0]).tolist() == [0.0]


@pytest.mark.parametrize("offset", [1e9, -3e12, 2.2250738585072014e-308])
def test_far_from_the_origin_the_hull_keeps_its_digits(offset):
    a = shapely.Polygon([(0, 0), (4, 0.5), (3.5, 3), (0.5, 4)])
    b = shapely.affinity.translate(a, 10, 3)
    expected = shapely.convex_hull(shapely.union(a, b)).area
    moved = [shapely.affinity.translate(g, offset, offset) for g in (a, b)]
    ours = union_hull_area(hulls_of([moved[0]]), [0], hulls_of([moved[1]]), [0])[0]
    tolerance = 1e-12 if abs(offset) < 1e6 else 1e-6  # coordinates at 1e12 keep only ~1e-4 of a unit
    assert ours == pytest.approx(expected, rel=tolerance)


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
    pixels = shapely.union_all(shapely.box(*(np.stack(np.nonzero(data)[::-1], axis=1) + mask.origin).T,
                                           *(np.stack(np.nonzero(data)[::-1], axis=1) + mask.origin + 1).T))
    expected = shapely.convex_hull(shapely.union(pixels, polygon.to_shapely())).area
    assert geoiou.enclosure_area(mask, polygon) == pytest.approx(expected, rel=1e-12)
    assert geoiou.enclosure_area(polygon, mask) == geoiou.enclosure_area(mask, polygon)


DEGENERATE_HULLS = [shapely.Point(1, 1), shapely.LineString([(0, 0), (3, 3)]), shapely.LineString([(2, -1), (2, 4)]),
                    shapely.Polygon(), shapely.box(0, 0, 2, 2), shapely.box(2, 0, 4, 2), shapely.box(0.5, 0.5, 1, 1),
                    shapely.Polygon([(0, 0), (4, 0), (2, 3)])]


@pytest.mark.parametrize("seed", [0, 1])
def test_walking_a_few_pairs_in_python_gives_the_batch_walks_bits(monkeypatch, seed):
    """The plain-Python walk of a few pairs (`hull_pair.walked_pair_areas`) against the batch walk, on every pair.

    Bounds-overlapping random polygons, and degenerate hulls (points, segments, empties, nested,
    touching, identical), all walked: the two routes must agree bit for bit.
    """
    geoms = np.concatenate([random_polygons(rng(seed), 40, span=6).to_shapely(), np.array(DEGENERATE_HULLS, dtype=object)])
    hulls = hulls_of(geoms)
    index_a, index_b = (part.ravel() for part in np.meshgrid(np.arange(len(geoms)), np.arange(len(geoms))))
    monkeypatch.setattr(hull_module, "_bounds_apart", lambda a, rows_a, b, rows_b: np.zeros(np.shape(rows_a), dtype=bool))
    monkeypatch.setattr(hull_module, "PYTHON_WALK_STEPS", 0)
    batch = union_hull_area(hulls, index_a, hulls, index_b)
    monkeypatch.setattr(hull_module, "PYTHON_WALK_STEPS", 10 ** 9)
    python = union_hull_area(hulls, index_a, hulls, index_b)
    np.testing.assert_array_equal(np.signbit(python), np.signbit(batch))
    np.testing.assert_array_equal(python, batch)
    np.testing.assert_allclose(python, expected_hull_areas(geoms[index_a], geoms[index_b]), rtol=1e-12, atol=1e-300)


@ci_settings(40)
@given(polygon_strategy(span=4.0), polygon_strategy(span=4.0))
def test_few_walked_pairs_take_the_python_walk_with_the_same_bits(a, b):
    hulls = hulls_of(np.array([a.to_shapely(), b.to_shapely()], dtype=object))
    index_a, index_b = np.array([0, 1, 0, 1]), np.array([1, 0, 0, 1])
    few = union_hull_area(hulls, index_a, hulls, index_b)  # a handful of walks: the Python route
    saved = hull_module.PYTHON_WALK_STEPS
    hull_module.PYTHON_WALK_STEPS = 0
    try:
        batch = union_hull_area(hulls, index_a, hulls, index_b)
    finally:
        hull_module.PYTHON_WALK_STEPS = saved
    np.testing.assert_array_equal(few, batch)
