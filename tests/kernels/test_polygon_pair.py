"""The compiled polygon pair kernels: one pair function behind every route, threads, and mixed pairs at any offset.

The per-pair function is the same for a single pair (run on the calling thread, per-pair bounds)
and for many (a parallel loop over per-region tables): the bits must not depend on the route or
on the number of threads. RotatedBox × Polygon and Box × Polygon build the box's edges in the
pair's own frame, so moving both regions by a power of two keeps the result to rounding.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
import shapely.affinity
from hypothesis import given
from hypothesis import strategies as st

import geoiou
from geoiou.dispatch import find_kernel
from geoiou import _core
from tests.strategies import (
    ci_settings,
    polygon_strategy,
    random_multipolygons,
    random_polygons,
    random_polygons_with_holes,
    random_rotated_boxes,
    rng,
)

#: Grid of the test polygons' vertices: a vertex of at most 2^5 plus a shift of at most 2^40 needs
#: 40 + 5 + 10 < 53 bits, so the shifted polygon is exactly the same polygon, moved.
GRID = 2.0**-10


def mixed_polygons(seed: int) -> geoiou.Polygon:
    """Simple polygons, polygons with holes and multipolygons in one batch."""
    gen = rng(seed)
    parts = [
        random_polygons(gen, 30, span=6),
        random_polygons_with_holes(gen, 10, span=6),
        random_multipolygons(gen, 10, span=6),
    ]
    return geoiou.Polygon.from_shapely(np.concatenate([p.to_shapely() for p in parts]))


def on_grid(points: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(points) / GRID) * GRID


# --------------------------------------------------------------------------- one pair function, every route
def test_single_pairs_give_the_bits_of_the_parallel_loop():
    polygons = mixed_polygons(12)
    pairwise = geoiou.pairwise_intersection_area(polygons, polygons)
    single = np.array([[geoiou.intersection_area(p, q) for q in polygons] for p in polygons])
    np.testing.assert_array_equal(single, pairwise)
    np.testing.assert_array_equal(pairwise, pairwise.T)  # the canonical order: (a, b) and (b, a) alike
    assert geoiou.iou(polygons[0], polygons[0]) == 1.0


def test_results_are_the_same_bits_for_any_number_of_threads():
    geoiou.set_threads(None)
    if geoiou.get_threads() < 2:
        pytest.skip("one core")
    polygons = mixed_polygons(13)
    boxes = random_rotated_boxes(rng(14), 40, span=6.0)
    low = rng(15).uniform(-1, 6, (40, 2))
    aligned = geoiou.Box(np.concatenate([low, low + rng(16).uniform(0.5, 3, (40, 2))], axis=1))
    cases = [(polygons, polygons), (boxes, polygons), (polygons, aligned)]
    try:
        geoiou.set_threads(1)
        one = [geoiou.pairwise_iou(a, b) for a, b in cases]
        geoiou.set_threads(2)
        two = [geoiou.pairwise_iou(a, b) for a, b in cases]
        _core.split_every_loop_for_tests(True)  # every row (and region's bounds) a chunk of its own on the pool
        split = [geoiou.pairwise_iou(a, b) for a, b in cases]
    finally:
        _core.split_every_loop_for_tests(False)
        geoiou.set_threads(None)
    for first, second, third in zip(one, two, split):
        np.testing.assert_array_equal(first, second)
        np.testing.assert_array_equal(first, third)


def test_few_pairs_of_a_large_batch_need_no_tables_of_it():
    """Three pairs of a batch of 2000 polygons: the per-region tables are built for the pairs, not the batch."""
    polygons = random_polygons(rng(16), 2000, span=40)
    index = np.array([0, 5, 1999])
    expected = [geoiou.intersection_area(polygons[i], polygons[j]) for i, j in zip(index, index[::-1])]
    pair = find_kernel(geoiou.Polygon, geoiou.Polygon)
    np.testing.assert_array_equal(pair.pairs(polygons, polygons, index, index[::-1]), expected)


def test_mixed_pairs_of_large_box_batches_gather_only_the_boxes_asked_for():
    """20 pairs (the parallel loop) and 3 pairs (the calling thread) of 500 boxes: the single pairs' values."""
    polygons = random_polygons(rng(18), 50, span=20)
    low = rng(19).uniform(0, 20, (500, 2))
    sizes = rng(20).uniform(1, 6, (500, 2))
    boxes = [
        geoiou.Box(np.concatenate([low, low + sizes], axis=1)),
        geoiou.RotatedBox(np.column_stack([low, sizes, rng(21).uniform(-180, 180, 500)])),
    ]
    for batch in boxes:
        pair = find_kernel(type(batch), geoiou.Polygon)
        for count in (20, 3):
            index_a, index_b = rng(count).integers(0, 500, count), rng(count + 1).integers(0, 50, count)
            expected = [geoiou.intersection_area(batch[i], polygons[j]) for i, j in zip(index_a, index_b)]
            np.testing.assert_array_equal(pair.pairs(batch, polygons, index_a, index_b), expected)


def test_the_order_of_a_pair_is_total_and_reversible():
    a = geoiou.Polygon([(0, 0), (2, 0), (2, 2), (0, 2)])
    negative_zero = geoiou.Polygon([(-0.0, 0), (2, 0), (2, 2), (0, 2)])
    for p, q in [(a, negative_zero), (a, geoiou.Polygon([(0, 0), (2, 0), (1, 3)]))]:
        assert geoiou.intersection_area(p, q) == geoiou.intersection_area(q, p)
    assert geoiou.intersection_area(a, negative_zero) == 4.0


# --------------------------------------------------------------------------- mixed pairs in their own frame
def test_mixed_pairs_have_their_own_kernels():
    for kind in (geoiou.RotatedBox, geoiou.Box):
        pair = find_kernel(kind, geoiou.Polygon)
        assert pair.kernel is not None and not pair.convert_a and not pair.convert_b
        assert find_kernel(geoiou.Polygon, kind).swapped


@ci_settings(60)
@given(
    polygon_strategy(span=6.0, holes=True, multi=True),
    st.tuples(st.floats(-6, 6), st.floats(-6, 6), st.floats(0.1, 8), st.floats(0.1, 8), st.floats(-180, 180)),
)
def test_rotated_boxes_against_polygons_match_shapely(polygon, box):
    rotated = geoiou.RotatedBox(list(box))
    expected = shapely.intersection(rotated.to_shapely(), polygon.to_shapely()).area
    ours = geoiou.intersection_area(rotated, polygon)
    # The box's polygon has rounded corners: compare within the rounding of the larger area.
    assert abs(ours - expected) <= 1e-9 * max(float(rotated.area), float(polygon.area))
    assert geoiou.iou(polygon, rotated) == geoiou.iou(rotated, polygon)


@ci_settings(80)
@given(
    st.tuples(st.integers(-64, 64), st.integers(-64, 64), st.integers(2, 128), st.integers(2, 128)),
    st.floats(-180, 180),
    st.one_of(
        polygon_strategy(span=6.0, max_radius=6.0, holes=True, multi=True),
        st.tuples(
            st.integers(-64, 64), st.integers(-64, 64), st.integers(2, 128), st.integers(2, 128), st.floats(-180, 180)
        ),
    ),
    st.integers(0, 40),
)
def test_rotated_box_and_polygon_keep_their_precision_at_any_offset(box, angle, other, power):
    """Both moved by 2^power (up to 2^40): the IoU stays within 1e-12 of the pair at the origin.

    The polygon is a rotated box's corners or a random polygon, computed at the origin and put on
    a grid, so moving it by the power of two is exact: only the kernel's own rounding may differ.
    """
    cx, cy, w, h = (v / 16 for v in box)
    if isinstance(other, tuple):
        corners = geoiou.RotatedBox([v / 16 for v in other[:4]] + [other[4]]).to_corners()
        polygon_at = lambda shift: geoiou.Polygon(on_grid(corners) + shift)  # noqa: E731
    else:
        geometry = shapely.set_precision(other.to_shapely(), GRID)
        if geometry.is_empty or not geometry.is_valid or geometry.area <= 0:
            return
        polygon_at = lambda shift: geoiou.Polygon.from_shapely(shapely.affinity.translate(geometry, shift, shift))  # noqa: E731
    shift = 2.0**power
    at_origin = geoiou.iou(geoiou.RotatedBox([cx, cy, w, h, angle]), polygon_at(0.0))
    moved = geoiou.iou(geoiou.RotatedBox([cx + shift, cy + shift, w, h, angle]), polygon_at(shift))
    assert abs(moved - at_origin) <= 1e-12 * max(at_origin, 1e-300) or abs(moved - at_origin) <= 1e-15


@pytest.mark.parametrize("offset", [0.0, 2.0**30, 2.0**40])
def test_the_issue_example_keeps_its_value_far_from_the_origin(offset):
    """A rotated box against a rectangle's corners (put on a grid at the origin), moved by an offset."""
    corners = on_grid(geoiou.RotatedBox([0.5, 0.25, 3, 2, 0]).to_corners())
    expected = geoiou.iou(geoiou.RotatedBox([0, 0, 3, 2, 30]), geoiou.Polygon(corners))
    moved = geoiou.iou(geoiou.RotatedBox([offset, offset, 3, 2, 30]), geoiou.Polygon(corners + offset))
    assert moved == pytest.approx(expected, rel=1e-12)
    shared = shapely.intersection(geoiou.RotatedBox([0, 0, 3, 2, 30]).to_shapely(), shapely.Polygon(corners)).area
    assert expected == pytest.approx(shared / (12 - shared), rel=1e-9)


@ci_settings(60)
@given(
    st.tuples(st.integers(-64, 64), st.integers(-64, 64), st.integers(1, 128), st.integers(1, 128)),
    polygon_strategy(span=6.0, holes=True, multi=True),
    st.integers(0, 40),
)
def test_boxes_against_polygons_match_shapely_at_any_offset(box, polygon, power):
    x, y, w, h = (v / 16 for v in box)
    geometry = shapely.set_precision(polygon.to_shapely(), GRID)
    if geometry.is_empty or not geometry.is_valid or geometry.area <= 0:
        return
    expected = shapely.intersection(shapely.box(x, y, x + w, y + h), geometry).area
    shift = 2.0**power
    moved = geoiou.intersection_area(
        geoiou.Box([x + shift, y + shift, x + w + shift, y + h + shift]),
        geoiou.Polygon.from_shapely(shapely.affinity.translate(geometry, shift, shift)),
    )
    assert abs(moved - expected) <= 1e-12 * max(w * h, geometry.area)


def test_boxes_inside_polygons_share_exactly_their_area():
    box = geoiou.Box([1, 1, 2, 3])
    assert geoiou.iou(box, box.to_polygon()) == 1.0
    assert geoiou.intersection_area(box, geoiou.Polygon([(0, 0), (5, 0), (5, 5), (0, 5)])) == 2.0
    assert geoiou.intersection_area(box, geoiou.Polygon([(2, 0), (5, 0), (5, 5), (2, 5)])) == 0.0  # touching
    turned = geoiou.RotatedBox([1.5, 2, 1, 2, 90])
    assert geoiou.intersection_area(turned, geoiou.Polygon([(0, 0), (5, 0), (5, 5), (0, 5)])) == 2.0


# --------------------------------------------------------------------------- large polygons: pairs found by angle
def assert_same_cells(a: geoiou.Polygon, b: geoiou.Polygon) -> None:
    """The walks by angle keep the pairs that testing every pair keeps: the same terms, in another order."""
    every, walked = _core.polygon_cell_sums(a._store.arrays, int(a._index), b._store.arrays, int(b._index))
    assert walked[2] == pytest.approx(every[2], rel=1e-13, abs=1e-300)  # the sums of magnitudes
    assert abs((walked[0] + walked[1]) - (every[0] + every[1])) <= 1e-13 * every[2]


@ci_settings(80)
@given(polygon_strategy(span=4.0, holes=True, multi=True), polygon_strategy(span=4.0, holes=True, multi=True))
def test_walking_by_angle_keeps_the_pairs_of_the_full_test(a, b):
    assert_same_cells(a, b)
    assert_same_cells(a, a)


@ci_settings(40)
@given(
    polygon_strategy(span=2.0, holes=True, multi=True),
    st.sampled_from([(0, 0), (1, 0), (0.5, 0.5), (0, -2)]),
    st.integers(0, 3),
)
def test_walking_by_angle_keeps_the_pairs_of_moved_and_turned_copies(a, shift, quarter_turns):
    """Copies share edges, vertices and exact angles with the original: ties of angles in the sorted order."""
    g = a.to_shapely()
    other = shapely.affinity.translate(shapely.affinity.rotate(g, 90 * quarter_turns, origin=(0, 0)), *shift)
    assert_same_cells(a, geoiou.Polygon.from_shapely(other))
    assert_same_cells(a, geoiou.Polygon.from_shapely(other.reverse()))


def test_large_polygons_match_shapely():
    """Rings of 300 to 1500 vertices: more edge pairs than `SORTED_CELLS`, so the pairs are found by angle."""
    gen = rng(17)
    rings = []
    for count in (300, 700, 1500, 1000):
        theta = (np.arange(count) + gen.uniform(0.1, 0.9, count)) * (2 * np.pi / count)
        radius = gen.uniform(5, 10, count)
        rings.append(np.stack([radius * np.cos(theta), radius * np.sin(theta)], axis=1) + gen.uniform(-4, 4, 2))
    polygons = geoiou.Polygon.from_rings(rings)
    assert polygons.size and 300 * 300 > _core.POLYGON_SORTED_CELLS
    geoms = polygons.to_shapely()
    ours = geoiou.pairwise_intersection_area(polygons, polygons)
    expected = shapely.area(shapely.intersection(geoms[:, None], geoms[None, :]))
    np.testing.assert_allclose(ours, expected, rtol=1e-12)
    np.testing.assert_array_equal(np.diag(ours), polygons.area)
    np.testing.assert_array_equal(ours, ours.T)
