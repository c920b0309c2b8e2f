"""Tests of the convex polygon kernels: golden values, degenerate inputs and shapely cross-checks."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import shapely

from geoiou.kernels.convex import (
    Scratch,
    convex_hull_area,
    convex_intersection_area,
    polygon_area,
    polygon_box_intersection_area,
    sum_planes,
    unit_square_clipped_area,
)

UNIT_SQUARE = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]


def square(x0: float, y0: float, side: float = 1.0) -> list[list[float]]:
    """Return the counter-clockwise square with lower-left corner (x0, y0)."""
    return [[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]]


def rotated_square(angle_deg: float, side: float = 1.0, centre=(0.5, 0.5)) -> list[list[float]]:
    """Return the square of `side` centred on `centre`, rotated counter-clockwise by `angle_deg`."""
    theta = math.radians(angle_deg)
    corners = []
    for sx, sy in [(-1, -1), (1, -1), (1, 1), (-1, 1)]:
        x, y = sx * side / 2, sy * side / 2
        corners.append([centre[0] + math.cos(theta) * x - math.sin(theta) * y,
                        centre[1] + math.sin(theta) * x + math.cos(theta) * y])
    return corners


def random_convex_polygons(rng: np.random.Generator, count: int, vertices: int) -> np.ndarray:
    """Return `count` random convex counter-clockwise polygons of shape (count, vertices, 2).

    Vertices lie on a random ellipse at sorted angles, so the polygon is convex and CCW.
    """
    angles = np.sort(rng.uniform(0, 2 * np.pi, (count, vertices)), axis=1)
    radii = rng.uniform(0.2, 3.0, (count, 2))
    tilt = rng.uniform(0, 2 * np.pi, (count, 1))
    ex, ey = radii[:, :1] * np.cos(angles), radii[:, 1:] * np.sin(angles)
    x = np.cos(tilt) * ex - np.sin(tilt) * ey
    y = np.sin(tilt) * ex + np.cos(tilt) * ey
    centre = rng.uniform(-2, 2, (count, 1, 2))
    return np.stack([x, y], axis=-1) + centre


def shapely_intersection_areas(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return shapely.area(shapely.intersection(shapely.polygons(a), shapely.polygons(b)))


# --- polygon_area -------------------------------------------------------------------------


def test_polygon_area_is_signed_by_orientation():
    # 2 x 1 rectangle: area 2 counter-clockwise, -2 clockwise (same vertices reversed).
    rectangle = np.array([[0, 0], [2, 0], [2, 1], [0, 1]], dtype=float)
    assert polygon_area(np.stack([rectangle, rectangle[::-1]])).tolist() == [2.0, -2.0]


def test_polygon_area_accepts_any_leading_shape_and_degenerate_rows():
    batch = np.zeros((2, 3, 4, 2))
    batch[1, 2] = UNIT_SQUARE
    area = polygon_area(batch)
    assert area.shape == (2, 3)
    assert area[1, 2] == 1.0 and area.sum() == 1.0  # all-zero polygons have area 0
    assert polygon_area(np.zeros((5, 0, 2))).tolist() == [0.0] * 5
    assert polygon_area([[[1.0, 2.0], [3.0, 4.0]]]).tolist() == [0.0]  # a segment


def test_polygon_area_is_exact_far_from_the_origin():
    # The fan formula works relative to the first vertex: a unit square at 1e9 stays exact.
    assert polygon_area([square(1e9, -1e9)]).tolist() == [1.0]


def test_polygon_area_rejects_bad_shapes():
    with pytest.raises(ValueError, match="shape"):
        polygon_area([1.0, 2.0, 3.0])


# --- convex_intersection_area: golden values ------------------------------------------


GOLDEN_INTERSECTIONS = [
    # Unit squares offset by 0.5 along x overlap in a 0.5 x 1 rectangle.
    pytest.param(UNIT_SQUARE, square(0.5, 0.0), 0.5, id="offset-half"),
    # A unit square and itself turned 45 degrees about its centre: the overlap is a regular
    # octagon, the square minus 4 corner triangles of legs (1 - 1/sqrt2)... = 2 (sqrt2 - 1).
    pytest.param(UNIT_SQUARE, rotated_square(45.0), 2 * (math.sqrt(2) - 1), id="rotated-45"),
    # Identical polygons: the whole square.
    pytest.param(UNIT_SQUARE, UNIT_SQUARE, 1.0, id="identical"),
    # Squares sharing the edge x = 1 only: the overlap is a segment.
    pytest.param(UNIT_SQUARE, square(1.0, 0.0), 0.0, id="shared-edge"),
    # Squares touching at the single corner (1, 1).
    pytest.param(UNIT_SQUARE, square(1.0, 1.0), 0.0, id="touching-corner"),
    # Far apart.
    pytest.param(UNIT_SQUARE, square(5.0, 5.0), 0.0, id="disjoint"),
    # A 0.5 square strictly inside the unit square: its own area, 0.25.
    pytest.param(UNIT_SQUARE, square(0.25, 0.25, 0.5), 0.25, id="b-inside-a"),
    pytest.param(square(0.25, 0.25, 0.5), UNIT_SQUARE, 0.25, id="a-inside-b"),
    # Square 3 x 3 around the unit square: the unit square.
    pytest.param(UNIT_SQUARE, square(-1.0, -1.0, 3.0), 1.0, id="contained-in-large"),
    # Triangle (0,0), (2,0), (0,2) cut by the unit square: the triangle covers all of it.
    pytest.param([[0, 0], [2, 0], [0, 2]], UNIT_SQUARE, 1.0, id="triangle-covers-square"),
    # Triangle (0,0), (1,0), (0,1) is half the unit square: 0.5.
    pytest.param(UNIT_SQUARE, [[0, 0], [1, 0], [0, 1], [0, 1]], 0.5, id="triangle-repeated-vertex"),
    # Zero-width box (the segment x = 0.5): area 0, whichever side it is on.
    pytest.param(UNIT_SQUARE, [[0.5, 0], [0.5, 0], [0.5, 1], [0.5, 1]], 0.0, id="zero-width-clip"),
    pytest.param([[0.5, 0], [0.5, 0], [0.5, 1], [0.5, 1]], UNIT_SQUARE, 0.0, id="zero-width-subject"),
    # A polygon collapsed to one point: edges of length 0 clip nothing, the area bound gives 0.
    pytest.param(UNIT_SQUARE, [[0.5, 0.5]] * 4, 0.0, id="point-clip"),
    pytest.param([[0.5, 0.5]] * 4, [[0.5, 0.5]] * 4, 0.0, id="point-point"),
]


@pytest.mark.parametrize(("a", "b", "expected"), GOLDEN_INTERSECTIONS)
def test_intersection_golden(a, b, expected):
    a, b = np.asarray([a], dtype=float), np.asarray([b], dtype=float)
    area = convex_intersection_area(a, b)
    assert area.shape == (1,)
    assert area[0] == pytest.approx(expected, rel=1e-12, abs=1e-15)
    # The intersection is symmetric.
    assert convex_intersection_area(b, a)[0] == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_intersection_of_exactly_touching_polygons_is_exactly_zero():
    # Shared edge and shared corner: every surviving vertex lies on one line, so the fan
    # area is a sum of exact zeros.
    a = np.array([UNIT_SQUARE, UNIT_SQUARE], dtype=float)
    b = np.array([square(1.0, 0.0), square(1.0, 1.0)])
    assert convex_intersection_area(a, b).tolist() == [0.0, 0.0]


def test_intersection_of_identical_polygons_is_their_area():
    rng = np.random.default_rng(1)
    polygons = random_convex_polygons(rng, 500, 7)
    polygons[:250] += 1e6  # also far from the origin
    own = polygon_area(polygons)
    ratio = convex_intersection_area(polygons, polygons) / own
    assert np.all(np.abs(ratio - 1) <= 1e-12)


def test_intersection_of_nearly_parallel_edges_is_close_to_the_aligned_value():
    # Turning the second square by 1e-7 and 1e-10 radians about its centre changes the
    # overlap with the unshifted square by O(angle): the result stays next to 1.
    for angle in (1e-7, 1e-10):
        b = np.array([rotated_square(math.degrees(angle))])
        area = convex_intersection_area(np.array([UNIT_SQUARE], dtype=float), b)[0]
        assert abs(area - 1.0) <= 2 * angle
        # Offset by 0.5 as well: 0.5 up to O(angle).
        shifted = b + [0.5, 0.0]
        area = convex_intersection_area(np.array([UNIT_SQUARE], dtype=float), shifted)[0]
        assert abs(area - 0.5) <= 2 * angle


def test_intersection_with_zero_area_polygons_is_zero_and_never_nan():
    rng = np.random.default_rng(2)
    polygons = random_convex_polygons(rng, 200, 5)
    segments = np.repeat(rng.uniform(-2, 2, (200, 2, 2)), 2, axis=1)  # (p, p, q, q)
    points = np.repeat(rng.uniform(-2, 2, (200, 1, 2)), 4, axis=1)
    for degenerate in (segments, points):
        for a, b in ((polygons, degenerate), (degenerate, polygons), (degenerate, degenerate)):
            area = convex_intersection_area(a, b)
            assert not np.isnan(area).any()
            assert np.all(area == 0.0)


def test_intersection_handles_empty_batches_and_validates_shapes():
    assert convex_intersection_area(np.zeros((0, 4, 2)), np.zeros((0, 3, 2))).shape == (0,)
    with pytest.raises(ValueError, match="same number"):
        convex_intersection_area(np.zeros((2, 4, 2)), np.zeros((3, 4, 2)))
    with pytest.raises(ValueError, match="shape"):
        convex_intersection_area(np.zeros((4, 2)), np.zeros((4, 2)))


# --- convex_intersection_area: against shapely -------------------------------------------


@pytest.mark.parametrize(("n", "m"), [(4, 4), (3, 7), (8, 5)])
def test_intersection_matches_shapely_on_random_convex_polygons(n, m):
    rng = np.random.default_rng(10 * n + m)
    a, b = random_convex_polygons(rng, 1000, n), random_convex_polygons(rng, 1000, m)
    ours = convex_intersection_area(a, b)
    scale = np.maximum(polygon_area(a), polygon_area(b))
    # Dividing by the area scale turns atol into "1e-9 of the pair's size" for near-zero areas.
    np.testing.assert_allclose(ours / scale, shapely_intersection_areas(a, b) / scale, rtol=1e-9, atol=1e-9)
    assert (ours > 0).mean() > 0.3  # the sample really exercises the clipping


def test_intersection_matches_shapely_with_repeated_vertices():
    # Repeated consecutive vertices give edges of length 0, which must clip nothing.
    rng = np.random.default_rng(11)
    a, b = random_convex_polygons(rng, 1000, 5), random_convex_polygons(rng, 1000, 4)
    a_repeated, b_repeated = np.repeat(a, 2, axis=1), b[:, [0, 0, 1, 2, 2, 2, 3]]
    reference = shapely_intersection_areas(a, b)
    scale = np.maximum(polygon_area(a), polygon_area(b))
    ours = convex_intersection_area(a_repeated, b_repeated)
    np.testing.assert_allclose(ours / scale, reference / scale, rtol=1e-9, atol=1e-9)


def test_intersection_row_does_not_depend_on_its_batch():
    # Buffers are as wide as the batch's most complex clip; a row's value must not change.
    rng = np.random.default_rng(12)
    a, b = random_convex_polygons(rng, 300, 6), random_convex_polygons(rng, 300, 6)
    full = convex_intersection_area(a, b)
    singles = np.concatenate([convex_intersection_area(a[k : k + 1], b[k : k + 1]) for k in range(300)])
    assert np.array_equal(full, singles)


# --- convex_hull_area ------------------------------------------------------------------------


GOLDEN_HULLS = [
    # Unit square corners plus interior points: the square.
    pytest.param(UNIT_SQUARE + [[0.5, 0.5], [0.2, 0.7]], 1.0, id="interior-points"),
    # Two unit squares side by side with a gap of 1: hull is the 3 x 1 rectangle.
    pytest.param(square(0, 0) + square(2, 0), 3.0, id="two-squares"),
    # Points on a line (with repeats): no area.
    pytest.param([[0, 0], [1, 1], [2, 2], [1, 1], [3, 3]], 0.0, id="collinear"),
    pytest.param([[0, 0], [0, 1], [0, 5], [0, 2]], 0.0, id="vertical-line"),
    # All points identical: no area.
    pytest.param([[7, -3]] * 6, 0.0, id="identical"),
    # Square with every corner repeated and mid-edge points (collinear with hull edges).
    pytest.param(
        UNIT_SQUARE * 2 + [[0.5, 0], [1, 0.5], [0.5, 1], [0, 0.5]], 1.0, id="repeats-and-edge-points"
    ),
    # Triangle (0,0), (4,0), (0,3): 6.
    pytest.param([[0, 0], [4, 0], [0, 3], [1, 1]], 6.0, id="triangle"),
]


@pytest.mark.parametrize(("points", "expected"), GOLDEN_HULLS)
def test_hull_golden(points, expected):
    area = convex_hull_area(np.asarray([points], dtype=float))
    assert area.shape == (1,)
    assert area[0] == pytest.approx(expected, rel=1e-14, abs=1e-15)


def test_hull_matches_shapely_on_random_points():
    rng = np.random.default_rng(20)
    points = rng.normal(size=(2000, 8, 2)) * rng.uniform(0.1, 10, (2000, 1, 2))
    points[:200, 4:] = points[:200, :4]  # repeated points
    points[200:400, :, 1] = 3 * points[200:400, :, 0] + 1  # all collinear
    reference = shapely.area(shapely.convex_hull(shapely.multipoints(points)))
    ours = convex_hull_area(points)
    scale = np.ptp(points, axis=1).prod(axis=1)  # bounding-box area: > 0 for these samples
    np.testing.assert_allclose(ours / scale, reference / scale, rtol=1e-9, atol=1e-9)
    assert np.all(ours[200:400] <= 1e-12 * np.ptp(points[200:400], axis=1).prod(axis=1))


def test_hull_is_exact_far_from_the_origin_and_handles_empty_input():
    assert convex_hull_area(np.asarray([square(1e9, 1e9) + square(1e9 + 1, 1e9)])).tolist() == [2.0]
    assert convex_hull_area(np.zeros((3, 0, 2))).tolist() == [0.0] * 3
    assert convex_hull_area(np.zeros((0, 8, 2))).shape == (0,)
    assert convex_hull_area(np.ones((2, 1, 2))).tolist() == [0.0, 0.0]


# --- polygon_box_intersection_area (clamping the boundary into the box) -------------------


def random_star_polygons(rng: np.random.Generator, count: int, vertices: int) -> np.ndarray:
    """Return simple, mostly non-convex polygons (star-shaped about a point; few vertices can wind clockwise)."""
    angles = np.sort(rng.uniform(0, 2 * np.pi, (count, vertices)), axis=1)
    radii = rng.uniform(0.2, 3.0, (count, vertices))
    centre = rng.uniform(-2, 2, (count, 1, 2))
    return np.stack([radii * np.cos(angles), radii * np.sin(angles)], axis=-1) + centre


def shapely_box_areas(poly: np.ndarray, box: np.ndarray) -> np.ndarray:
    return shapely.area(shapely.intersection(shapely.polygons(poly), shapely.box(*box.T)))


@pytest.mark.parametrize("vertices", [3, 4, 9])
def test_box_intersection_matches_shapely_on_random_polygons(vertices):
    rng = np.random.default_rng(30 + vertices)
    poly = random_star_polygons(rng, 3000, vertices)
    valid = shapely.is_valid(shapely.polygons(poly))  # drop the rare self-touching stars
    poly = poly[valid]
    low = rng.uniform(-3, 1, (len(poly), 2))
    box = np.column_stack([low, low + rng.uniform(0, 4, (len(poly), 2))])
    ours = polygon_box_intersection_area(poly, box) * np.sign(polygon_area(poly))  # signed like the polygon
    np.testing.assert_allclose(ours, shapely_box_areas(poly, box), rtol=1e-12, atol=1e-13)
    assert (ours > 1e-9).mean() > 0.4  # the sample really overlaps


def test_box_intersection_on_integer_grids_is_exact():
    # Integer vertices and boxes: edges on the box's lines, through its corners, vertical and
    # horizontal edges everywhere. Areas are multiples of 1/2 and must come out exactly.
    rng = np.random.default_rng(31)
    poly = rng.integers(-3, 4, (20000, 4, 2)).astype(float)
    polygons = shapely.polygons(poly)
    keep = shapely.is_valid(polygons) & (shapely.area(polygons) > 0)
    poly = poly[keep]
    sign = np.sign(polygon_area(poly))  # either orientation: the result carries its sign
    box = np.column_stack([rng.integers(-3, 1, (len(poly), 2)), rng.integers(1, 4, (len(poly), 2))]).astype(float)
    expected = shapely_box_areas(poly, box)
    np.testing.assert_allclose(polygon_box_intersection_area(poly, box) * sign, expected, rtol=0, atol=1e-14)


def test_box_intersection_edge_cases():
    square = np.array([UNIT_SQUARE], dtype=float)
    # Clockwise rows give negative areas; flat and inverted boxes are empty.
    assert polygon_box_intersection_area(square[:, ::-1], [[0.5, 0, 2, 2]]).tolist() == [-0.5]
    for empty in ([0.5, 0, 0.5, 1], [0, 0.5, 1, 0.5], [1, 1, 0, 0]):
        assert polygon_box_intersection_area(square, [empty]).tolist() == [0.0]
    # Far outside, sharing an edge, or touching a corner: exactly 0.
    for apart in ([5, 5, 6, 6], [1, 0, 2, 1], [1, 1, 2, 2]):
        assert polygon_box_intersection_area(square, [apart]).tolist() == [0.0]
    # A polygon of repeated points, and no polygon at all.
    assert polygon_box_intersection_area([[[0.5, 0.5]] * 4], [[0, 0, 1, 1]]).tolist() == [0.0]
    assert polygon_box_intersection_area(np.zeros((0, 4, 2)), np.zeros((0, 4))).shape == (0,)
    with pytest.raises(ValueError, match="box must have shape"):
        polygon_box_intersection_area(square, [[0, 0, 1]])


def test_box_intersection_of_axis_parallel_edges_has_no_nan_or_warning():
    # Edges of zero width or height make 0 / 0 edge parameters; they must stay finite silently.
    squares = np.array([UNIT_SQUARE, square(0.0, 0.0, 2.0)], dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        area = polygon_box_intersection_area(squares, [[0, 0, 1, 1], [0, 1, 1, 2]])
    assert area.tolist() == [1.0, 1.0]


def test_unit_square_clipped_area_is_the_core_of_the_box_intersection():
    rng = np.random.default_rng(32)
    poly = random_star_polygons(rng, 500, 6)
    x, y = np.ascontiguousarray(poly[..., 0].T), np.ascontiguousarray(poly[..., 1].T)
    edges = (np.roll(x, -1, axis=0) - x, np.roll(y, -1, axis=0) - y)
    unit = unit_square_clipped_area(x, y, *edges, Scratch())
    unit_box = np.tile([-1.0, -1, 1, 1], (500, 1))
    np.testing.assert_allclose(unit, polygon_box_intersection_area(poly, unit_box), rtol=1e-14, atol=1e-15)
    x[2, 7] = np.nan
    assert np.isnan(unit_square_clipped_area(x, y, *edges, Scratch())[7])


# --- Scratch and sum_planes ----------------------------------------------------------------


def test_scratch_hands_out_the_same_arrays_chunk_after_chunk():
    scratch = Scratch()
    first = [scratch((3, 4)), scratch((4,)), scratch((4,), np.bool_)]
    scratch.reset()
    again = [scratch((3, 4)), scratch((4,)), scratch((4,), np.bool_)]
    assert all(a is b for a, b in zip(first, again))
    assert again[2].dtype == np.bool_ and again[0].dtype == np.float64
    # A smaller request is a view of the same buffer; a larger one gets a new buffer.
    scratch.reset()
    assert np.shares_memory(scratch((2,)), first[0])
    scratch.reset()
    assert not np.shares_memory(scratch((5, 4)), first[0])


def test_scratch_temporaries_are_handed_out_again_after_the_block():
    scratch = Scratch()
    kept = scratch((4,))
    with scratch.temporaries():
        inside = scratch((4,))
        assert not np.shares_memory(inside, kept)
    assert scratch((4,)) is inside  # the slot is free again
    with pytest.raises(RuntimeError), scratch.temporaries():  # released on errors too
        scratch((4,))
        raise RuntimeError
    assert scratch((4,)) is not inside


def test_sum_planes_has_the_same_bits_for_one_row_and_many():
    # With 16 planes np.sum would add a single contiguous row in pairwise blocks.
    rng = np.random.default_rng(33)
    planes = rng.normal(size=(16, 50)) * 10.0 ** rng.integers(-8, 9, (16, 50))
    batch = sum_planes(planes)
    singles = np.array([sum_planes(planes[:, k : k + 1])[0] for k in range(50)])
    assert np.array_equal(batch, singles)
    assert sum_planes(np.zeros((0, 3))).tolist() == [0.0, 0.0, 0.0]
