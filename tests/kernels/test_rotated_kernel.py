"""Tests of the rotated-box kernels: convention, golden values, published bugs, shapely, broadcasting.

The kernels are reached as the metrics reach them (`find_kernel`), on regions built without the
constructor's checks, so that NaN and sizes beyond the constructor's range can be given too.
"""

from __future__ import annotations

import math
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import shapely
from hypothesis import example, given, settings
from hypothesis import strategies as st

import geoiou
from geoiou import _core, threads
from geoiou.dispatch import find_kernel
from geoiou.regions import RotatedBox
from geoiou.regions.rotated_box import corner_bounds, rotated_box_corners, unit_vectors

PROPERTY_SETTINGS = settings(max_examples=150, deadline=None, derandomize=True)


def unchecked(coords) -> RotatedBox:
    """Rotated boxes over `coords` (..., 5), without the constructor's checks."""
    return RotatedBox._from_fields(_coords=np.array(coords, dtype=np.float64))


def rotated_box_intersection_area(a, b) -> np.ndarray:
    """The intersection kernel on two broadcasting batches of coordinates (..., 5)."""
    return find_kernel(RotatedBox, RotatedBox)(unchecked(a), unchecked(b))


def rotated_box_hull_area(a, b) -> np.ndarray:
    """The hull kernel on two broadcasting batches of coordinates (..., 5)."""
    return find_kernel(RotatedBox, RotatedBox, measure="hull")(unchecked(a), unchecked(b))


def polygon_area(corners: np.ndarray) -> float:
    """The shoelace area of one polygon (n, 2)."""
    x, y = corners[:, 0], corners[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def naive_corners(box) -> np.ndarray:
    """Return the corners by the textbook formula of the convention (no exact special cases)."""
    cx, cy, w, h, angle = box
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    local = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    return np.array([[cx + c * x - s * y, cy + s * x + c * y] for x, y in local])


def random_boxes(rng: np.random.Generator, count: int, span: float = 10.0, size=(0.1, 5.0)) -> np.ndarray:
    return np.column_stack(
        [
            rng.uniform(0, span, (count, 2)),
            rng.uniform(*size, (count, 2)),
            rng.uniform(-360, 360, count),
        ]
    )


def random_box_pairs(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Return pairs mixing general overlaps, shared centres and 90-degree-related twins."""
    a = random_boxes(rng, count)
    b = random_boxes(rng, count)
    b[:, :2] = a[:, :2] + rng.normal(scale=2.0, size=(count, 2))  # mostly overlapping
    same_centre = rng.random(count) < 0.2
    b[same_centre, :2] = a[same_centre, :2]
    # Same box turned by a multiple of 90 degrees, with w and h swapped on odd turns.
    twin = rng.random(count) < 0.1
    turns = rng.integers(-4, 5, count)
    b[twin] = a[twin]
    b[twin, 4] += 90 * turns[twin]
    odd = twin & (turns % 2 == 1)
    b[odd, 2], b[odd, 3] = a[odd, 3], a[odd, 2]
    return a, b


def shapely_polygons(boxes: np.ndarray) -> np.ndarray:
    return shapely.polygons(rotated_box_corners(boxes))


def shapely_intersection(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return shapely.area(shapely.intersection(shapely_polygons(a), shapely_polygons(b)))


def area(boxes: np.ndarray) -> np.ndarray:
    boxes = np.asarray(boxes, dtype=float)
    return boxes[..., 2] * boxes[..., 3]


# --- rotated_box_corners -------------------------------------------------------------------


def test_corners_follow_the_convention():
    # (cx, cy) + R(30 deg) (±w/2, ±h/2) in the order (-,-), (+,-), (+,+), (-,+).
    box = [3.0, -2.0, 4.0, 2.0, 30.0]
    np.testing.assert_allclose(rotated_box_corners(box), naive_corners(box), rtol=0, atol=1e-14)
    # Counter-clockwise: positive shoelace area equal to w * h.
    assert polygon_area(rotated_box_corners(box)) == pytest.approx(8.0, rel=1e-14)


def test_corners_match_the_textbook_formula_for_random_angles():
    rng = np.random.default_rng(0)
    boxes = random_boxes(rng, 500)
    boxes[:50, 4] *= 1e-9  # tiny angles, both signs
    expected = np.array([naive_corners(box) for box in boxes])
    np.testing.assert_allclose(rotated_box_corners(boxes), expected, rtol=0, atol=1e-13)


@pytest.mark.parametrize("centre", [(0.0, 0.0), (10.0, 20.0)])
@pytest.mark.parametrize("angle", [-720, -270, -180, -90, 0, 90, 180, 270, 360, 450, 1080])
def test_corners_are_exact_at_multiples_of_90_degrees(angle, centre):
    # cos/sin must be exactly 0 or ±1 so that these boxes equal their axis-aligned twins
    # (at centre 0 a cos(90 deg) of 6e-17 would not even be absorbed by rounding).
    (cx, cy), w, h = centre, 4.0, 2.0
    quarter = (angle // 90) % 4
    half_w, half_h = (w / 2, h / 2) if quarter % 2 == 0 else (h / 2, w / 2)
    corners = rotated_box_corners([cx, cy, w, h, angle])
    assert corners[:, 0].min() == cx - half_w and corners[:, 0].max() == cx + half_w
    assert corners[:, 1].min() == cy - half_h and corners[:, 1].max() == cy + half_h
    # The corner order is the rotated one: corner 0 is R(angle) (-w/2, -h/2).
    np.testing.assert_array_equal(corners[0], np.round(naive_corners([cx, cy, w, h, angle])[0], 9))


def test_corners_of_boxes_half_a_turn_apart_are_the_same_set_exactly():
    rng = np.random.default_rng(1)
    boxes = random_boxes(rng, 200)
    turned = boxes.copy()
    turned[:, 4] += 180.0
    # Corner k of the turned box is corner k + 2 of the original.
    expected = np.roll(rotated_box_corners(boxes), 2, axis=-2)
    np.testing.assert_array_equal(rotated_box_corners(turned), expected)


def test_corners_keep_batch_shape():
    assert rotated_box_corners(np.zeros((2, 3, 5))).shape == (2, 3, 4, 2)
    assert rotated_box_corners(np.zeros((0, 5))).shape == (0, 4, 2)


def test_corners_keep_tiny_negative_angles():
    # A reduction modulo 360 would turn -1e-10 into 360 - 1e-10 and lose most of its digits.
    corners = rotated_box_corners([0.0, 0.0, 2.0, 2.0, -1e-10])
    assert corners[1, 1] == pytest.approx(-1 - math.radians(1e-10), rel=1e-16)
    assert corners[1, 1] != -1.0


# --- golden intersections ----------------------------------------------------------------


GOLDEN = [
    # Unit squares offset by 0.5: a 0.5 x 1 overlap.
    pytest.param([0.5, 0.5, 1, 1, 0], [1.0, 0.5, 1, 1, 0], 0.5, id="offset-half"),
    # Square and the same square turned 45 degrees about its centre: regular octagon of
    # area 2 (sqrt2 - 1) for side 1 (the square minus four corner triangles).
    pytest.param([0.5, 0.5, 1, 1, 0], [0.5, 0.5, 1, 1, 45], 2 * (math.sqrt(2) - 1), id="rotated-45"),
    # Identical boxes: their own area, w * h.
    pytest.param([3, 4, 2, 5, 17], [3, 4, 2, 5, 17], 10.0, id="identical"),
    # The same rectangle described with w and h swapped and 90 degrees more.
    pytest.param([3, 4, 2, 5, 17], [3, 4, 5, 2, 107], 10.0, id="swapped-plus-90"),
    # Side by side along x, sharing the edge x = 1: a segment, area 0.
    pytest.param([0.5, 0.5, 1, 1, 0], [1.5, 0.5, 1, 1, 0], 0.0, id="shared-edge"),
    # Diagonal neighbours touching at the corner (1, 1): area 0.
    pytest.param([0.5, 0.5, 1, 1, 0], [1.5, 1.5, 1, 1, 0], 0.0, id="touching-corner"),
    # A 1 x 1 box inside a 4 x 4 box (turned 30 degrees, still containing it): area 1.
    pytest.param([0, 0, 4, 4, 30], [0.2, -0.1, 1, 1, 70], 1.0, id="containment"),
    # A 4 x 1 bar and the same bar turned 90 degrees: the 1 x 1 centre square.
    pytest.param([0, 0, 4, 1, 0], [0, 0, 4, 1, 90], 1.0, id="cross"),
    # Zero-width box inside a square: area 0.
    pytest.param([0, 0, 4, 4, 0], [0, 0, 0, 2, 10], 0.0, id="zero-width"),
    # Far apart.
    pytest.param([0, 0, 1, 1, 0], [100, 0, 1, 1, 0], 0.0, id="disjoint"),
]


@pytest.mark.parametrize(("a", "b", "expected"), GOLDEN)
def test_intersection_golden(a, b, expected):
    for first, second in ((a, b), (b, a)):
        value = rotated_box_intersection_area(first, second)
        assert value.shape == ()
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_intersection_of_identical_boxes_is_exactly_their_area():
    # The shortcut makes iou(r, r) exactly 1, including far from the origin.
    rng = np.random.default_rng(2)
    boxes = random_boxes(rng, 300, size=(10, 100))
    for offset in (0.0, 1e6, 1e8):
        shifted = boxes + [offset, -offset, 0, 0, 0]
        assert np.array_equal(rotated_box_intersection_area(shifted, shifted), area(shifted))
        assert np.array_equal(rotated_box_hull_area(shifted, shifted), area(shifted))


# --- published-bug cases ---------------------------------------------------------------------


@pytest.mark.parametrize("offset", [0.0, 1e6, 1e8, 1e9])
@pytest.mark.parametrize("turn", [180.0, 360.0, -180.0, 720.0])
def test_box_and_itself_turned_by_half_or_full_turns(offset, turn):
    # Not the identical shortcut (the angle differs): the clipping itself must return the
    # box's own area, also at large coordinates (the local frame keeps the precision).
    rng = np.random.default_rng(3)
    boxes = random_boxes(rng, 300, size=(10, 100)) + [offset, offset, 0, 0, 0]
    turned = boxes + [0, 0, 0, 0, turn]
    ratio = rotated_box_intersection_area(boxes, turned) / area(boxes)
    assert np.all(np.abs(ratio - 1) <= 1e-12)


@pytest.mark.parametrize("offset", [0.0, 1e6, 1e8])
@pytest.mark.parametrize("delta", [1e-7, 1e-10])
def test_nearly_parallel_edges(offset, delta):
    rng = np.random.default_rng(4)
    boxes = random_boxes(rng, 300, size=(10, 100)) + [offset, offset, 0, 0, 0]
    w, h = boxes[:, 2], boxes[:, 3]
    # Turning a box by delta about its centre loses O(delta (w^2 + h^2)) of the overlap.
    bound = math.radians(delta) * (w**2 + h**2) + 1e-12 * area(boxes)
    same = rotated_box_intersection_area(boxes, boxes + [0, 0, 0, 0, delta])
    assert np.all(np.abs(same - area(boxes)) <= bound)
    # Shifted by a quarter of the width along the box's own x axis: the aligned value is
    # 3/4 of the area.
    theta = np.radians(boxes[:, 4])
    shift = np.column_stack([w / 4 * np.cos(theta), w / 4 * np.sin(theta), 0 * w, 0 * w, 0 * w + delta])
    shifted = rotated_box_intersection_area(boxes, boxes + shift)
    assert np.all(np.abs(shifted - 0.75 * area(boxes)) <= bound + 1e-9 * area(boxes))


def test_nearly_parallel_edges_match_shapely_in_the_local_frame():
    rng = np.random.default_rng(5)
    a = random_boxes(rng, 500)
    b = a + np.column_stack(
        [rng.normal(scale=0.5, size=(500, 2)), np.zeros((500, 2)), rng.choice([1e-7, -1e-7, 1e-10, -1e-10], 500)]
    )
    ours, reference = rotated_box_intersection_area(a, b), shapely_intersection(a, b)
    np.testing.assert_allclose(ours / area(a), reference / area(a), rtol=1e-9, atol=1e-9)


def test_tiny_boxes_scale_like_their_area():
    # Boxes of size ~1e-6 (near the origin, so shapely stays accurate too): the area of
    # the scaled pair is 1e-12 times the area of the pair at scale 1.
    rng = np.random.default_rng(6)
    a, b = random_box_pairs(rng, 1000)
    scale = np.array([1e-6, 1e-6, 1e-6, 1e-6, 1.0])
    tiny = rotated_box_intersection_area(a * scale, b * scale)
    tiny_area = 1e-12 * area(a)
    unit = rotated_box_intersection_area(a, b)
    np.testing.assert_allclose(tiny / tiny_area, unit / area(a), rtol=1e-9, atol=1e-9)
    reference = shapely_intersection(a * scale, b * scale)
    np.testing.assert_allclose(tiny / tiny_area, reference / tiny_area, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("angle", [0.0, 30.0, 90.0, -127.0])
def test_boxes_sharing_a_full_edge_or_only_a_corner(angle):
    # b is a moved by exactly w along a's own x axis (shared edge) or by (w, h) (shared
    # corner). Off the axes the corners are rounded, so allow a rounding-sized sliver.
    w, h = 3.0, 2.0
    theta = math.radians(angle)
    c, s = math.cos(theta), math.sin(theta)
    a = np.array([5.0, 7.0, w, h, angle])
    edge = a + [w * c, w * s, 0, 0, 0]
    corner = a + [w * c - h * s, w * s + h * c, 0, 0, 0]
    for b in (edge, corner):
        for first, second in ((a, b), (b, a)):
            assert 0 <= rotated_box_intersection_area(first, second) <= 1e-14 * w * h
    if angle % 90 == 0:  # exact corners: exactly 0
        assert rotated_box_intersection_area(a, edge) == 0.0
        assert rotated_box_intersection_area(a, corner) == 0.0


def test_zero_width_and_zero_height_boxes_have_no_intersection():
    big = np.array([0.0, 0.0, 10.0, 10.0, 20.0])
    degenerate = np.array(
        [
            [0, 0, 0, 3, 15],  # zero width
            [1, 1, 3, 0, -40],  # zero height
            [0, 0, 0, 0, 0],  # a point
            [0, 0, 10, 0, 20],  # the big box's middle line
        ]
    )
    values = rotated_box_intersection_area(big, degenerate)
    assert np.array_equal(values, np.zeros(4))
    assert np.array_equal(rotated_box_intersection_area(degenerate, degenerate), np.zeros(4))
    assert np.array_equal(rotated_box_intersection_area(degenerate, degenerate[::-1]), np.zeros(4))


def test_nan_boxes_give_nan():
    values = rotated_box_intersection_area([0, 0, 1, 1, 0], [[0, 0, 1, 1, np.nan], [0, 0, 1, 1, 0]])
    assert np.isnan(values[0]) and values[1] == 1.0
    assert np.isnan(rotated_box_hull_area([np.nan, 0, 1, 1, 0], [0, 0, 1, 1, 0]))


# --- against shapely ------------------------------------------------------------------------


def test_intersection_and_hull_match_shapely_on_random_pairs():
    rng = np.random.default_rng(7)
    a, b = random_box_pairs(rng, 3000)
    scale = np.maximum(area(a), area(b))
    ours = rotated_box_intersection_area(a, b)
    assert (ours > 0).mean() > 0.5  # the sample really exercises the clipping
    # Dividing by the area scale turns atol into "1e-9 of the pair's size" for near-zero areas.
    np.testing.assert_allclose(ours / scale, shapely_intersection(a, b) / scale, rtol=1e-9, atol=1e-9)
    pa, pb = shapely_polygons(a), shapely_polygons(b)
    hull = shapely.area(shapely.convex_hull(shapely.union(pa, pb)))
    np.testing.assert_allclose(rotated_box_hull_area(a, b) / scale, hull / scale, rtol=1e-9, atol=1e-9)


def test_intersection_matches_shapely_far_from_the_origin():
    # Shapely is given the pair moved near the origin (its own coordinates would round);
    # ours gets the far-away pair and must agree thanks to its local frame.
    rng = np.random.default_rng(8)
    a, b = random_box_pairs(rng, 1000)
    far = [1e7, -3e7, 0, 0, 0]
    ours, reference = rotated_box_intersection_area(a + far, b + far), shapely_intersection(a, b)
    scale = np.maximum(area(a), area(b))
    np.testing.assert_allclose(ours / scale, reference / scale, rtol=1e-8, atol=1e-8)


# --- properties ------------------------------------------------------------------------------

coordinate = st.floats(-50, 50, allow_nan=False)
size = st.floats(0, 30, allow_nan=False)
angle = st.floats(-360, 360, allow_nan=False)
boxes = st.tuples(coordinate, coordinate, size, size, angle).map(np.array)


def tolerance(a: np.ndarray, b: np.ndarray) -> float:
    return 1e-9 * (1.0 + max(area(a), area(b)))


@PROPERTY_SETTINGS
@given(boxes, boxes)
def test_property_symmetric_and_bounded(a, b):
    forward = rotated_box_intersection_area(a, b)
    assert forward == pytest.approx(rotated_box_intersection_area(b, a), abs=tolerance(a, b))
    assert 0.0 <= forward <= min(area(a), area(b))
    hull = rotated_box_hull_area(a, b)
    assert hull == pytest.approx(rotated_box_hull_area(b, a), abs=tolerance(a, b))
    # The hull holds the union of the two boxes.
    assert hull >= area(a) + area(b) - forward - tolerance(a, b)


@PROPERTY_SETTINGS
@given(boxes, boxes, st.floats(-1e3, 1e3), st.floats(-1e3, 1e3))
def test_property_translation_invariant(a, b, dx, dy):
    moved = [dx, dy, 0, 0, 0]
    assert rotated_box_intersection_area(a + moved, b + moved) == pytest.approx(
        rotated_box_intersection_area(a, b), abs=tolerance(a, b)
    )


@PROPERTY_SETTINGS
@given(boxes, boxes, st.floats(-360, 360), coordinate, coordinate)
def test_property_rotating_both_boxes_about_a_point_keeps_the_area(a, b, turn, px, py):
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))

    def rotate(box: np.ndarray) -> np.ndarray:
        x, y = box[0] - px, box[1] - py
        return np.array([px + c * x - s * y, py + s * x + c * y, box[2], box[3], box[4] + turn])

    assert rotated_box_intersection_area(rotate(a), rotate(b)) == pytest.approx(
        rotated_box_intersection_area(a, b), abs=tolerance(a, b)
    )


@PROPERTY_SETTINGS
@given(
    st.tuples(coordinate, coordinate, st.floats(0.01, 30), st.floats(0.01, 30), angle).map(np.array),
    st.tuples(coordinate, coordinate, st.floats(0.01, 30), st.floats(0.01, 30), angle).map(np.array),
)
@example(  # shapely's default overlay returns two points for this pair
    np.array([0.0, 4.0, 1.9375, 1.9375, -310.3882542379366]),
    np.array([0.0, 4.0, 4.5, 1.9375, -310.3882542379366]),
)
def test_property_matches_shapely(a, b):
    # Shapely's default floating overlay can lose the whole area of nearly coincident boxes
    # (e.g. a square inside a bar, sharing two edges, at an odd angle: it returns two points).
    # Snap rounding to a 1e-12 grid is robust and, for coordinates <= 100, moves the area by
    # far less than the tolerance.
    polygons = shapely.polygons(rotated_box_corners(np.stack([a, b])))
    reference = shapely.intersection(polygons[0], polygons[1], grid_size=1e-12).area
    assert rotated_box_intersection_area(a, b) == pytest.approx(reference, rel=1e-9, abs=tolerance(a, b))


# --- broadcasting and chunking ----------------------------------------------------------------


def test_pairwise_broadcast_equals_a_loop_of_single_calls():
    rng = np.random.default_rng(9)
    a, b = random_boxes(rng, 13), random_boxes(rng, 11)
    for kernel in (rotated_box_intersection_area, rotated_box_hull_area):
        matrix = kernel(a[:, None, :], b[None, :, :])
        assert matrix.shape == (13, 11) and matrix.dtype == np.float64
        loop = np.array([[kernel(box_a, box_b) for box_b in b] for box_a in a])
        assert np.array_equal(matrix, loop)


@pytest.mark.parametrize(
    ("shape_a", "shape_b", "expected"),
    [
        ((5,), (5,), ()),
        ((3, 5), (5,), (3,)),
        ((5,), (3, 5), (3,)),
        ((2, 1, 5), (4, 5), (2, 4)),
        ((2, 3, 1, 5), (1, 4, 5), (2, 3, 4)),
        ((0, 5), (5,), (0,)),
        ((0, 1, 5), (1, 3, 5), (0, 3)),
        ((4, 1, 5), (1, 0, 5), (4, 0)),
    ],
)
def test_output_has_the_broadcast_batch_shape(shape_a, shape_b, expected):
    rng = np.random.default_rng(10)
    a = random_boxes(rng, int(np.prod(shape_a[:-1]))).reshape(shape_a)
    b = random_boxes(rng, int(np.prod(shape_b[:-1]))).reshape(shape_b)
    for kernel in (rotated_box_intersection_area, rotated_box_hull_area):
        result = kernel(a, b)
        assert isinstance(result, np.ndarray) and result.shape == expected and result.dtype == np.float64


def test_batches_that_do_not_broadcast_are_refused():
    with pytest.raises(ValueError):
        rotated_box_intersection_area(np.zeros((3, 5)), np.zeros((4, 5)))


def test_unit_vectors_from_a_table_give_the_same_bits():
    # Pairs that outnumber their boxes (a matrix of at least 1024 pairs, 4 a box) take each box's cos
    # and sin from a table computed once.
    rng = np.random.default_rng(12)
    a, b = random_box_pairs(rng, 60)
    assert 60 * 60 >= max(1024, 4 * 120)
    for kernel in (rotated_box_intersection_area, rotated_box_hull_area):
        matrix = kernel(a[:, None], b[None])
        rows = np.stack([kernel(box, b) for box in a])  # 60 pairs a call: computed pair by pair
        assert np.array_equal(matrix, rows)
    # A table cut into chunks of one box on the pool, and its pairs too.
    many = random_boxes(rng, 300)
    for kernel in (rotated_box_intersection_area, rotated_box_hull_area):
        columns = np.stack([kernel(many, box) for box in b[:8]], axis=1)
        _core.split_every_loop_for_tests(True)
        try:
            matrix = kernel(many[:, None], b[None, :8])
        finally:
            _core.split_every_loop_for_tests(False)
        assert np.array_equal(matrix, columns)


def test_serial_and_parallel_loops_give_the_same_bits():
    # One pass cut into chunks anyhow (one pair each on the pool) gives the bits of small calls.
    rng = np.random.default_rng(11)
    a, b = random_box_pairs(rng, 192)
    for kernel in (rotated_box_intersection_area, rotated_box_hull_area):
        parts = np.concatenate([kernel(a[start : start + 7], b[start : start + 7]) for start in range(0, len(a), 7)])
        _core.split_every_loop_for_tests(True)
        try:
            whole = kernel(a, b)
        finally:
            _core.split_every_loop_for_tests(False)
        assert np.array_equal(whole, parts)


# --- adversarial cross-checks: coincident edges, shared corners, parallel and degenerate boxes ---


def adversarial_boxes(rng: np.random.Generator, count: int, kind: str) -> np.ndarray:
    if kind == "grid45":  # integer centres and sizes at multiples of 45 degrees: many coincidences
        return np.column_stack(
            [rng.integers(-3, 4, (count, 2)), rng.integers(0, 5, (count, 2)), 45 * rng.integers(-8, 9, count)]
        ).astype(float)
    if kind == "grid90":  # half-integer centres, axis-parallel: shared edges and corners
        return np.column_stack(
            [rng.integers(-6, 7, (count, 2)) / 2, rng.integers(0, 5, (count, 2)), 90 * rng.integers(-4, 5, count)]
        ).astype(float)
    if kind == "thin":  # zero and nearly zero heights
        return np.column_stack(
            [
                rng.uniform(-1, 1, (count, 2)),
                rng.uniform(0, 5, count),
                rng.choice([0.0, 1e-9, 1e-5], count),
                rng.uniform(-360, 360, count),
            ]
        )
    return np.column_stack(
        [rng.uniform(-3, 3, (count, 2)), rng.uniform(0, 5, (count, 2)), rng.uniform(-360, 360, count)]
    )


def with_twins(rng: np.random.Generator, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Make some b the same box as a: identical, half a turn on, or a quarter turn on with sides swapped."""
    b = b.copy()
    for fraction, twin in ((0.1, a), (0.1, a + [0, 0, 0, 0, 180]), (0.1, a[:, [0, 1, 3, 2, 4]] + [0, 0, 0, 0, 90])):
        chosen = rng.random(len(a)) < fraction
        b[chosen] = twin[chosen]
    return b


def reference_intersection(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    pa, pb = shapely_polygons(a), shapely_polygons(b)
    nonempty = (shapely.area(pa) > 0) & (shapely.area(pb) > 0)  # shapely rejects some flat overlays
    result = np.zeros(len(a))
    result[nonempty] = shapely.area(shapely.intersection(pa[nonempty], pb[nonempty]))
    return result


def reference_hull(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    points = np.concatenate([rotated_box_corners(a), rotated_box_corners(b)], axis=1)
    return shapely.area(shapely.convex_hull(shapely.multipoints(points)))


KINDS = ["grid45", "grid90", "thin", "random"]


@pytest.mark.parametrize("kind_b", KINDS)
@pytest.mark.parametrize("kind_a", KINDS)
@pytest.mark.parametrize("offset", [0.0, 1e6])
def test_adversarial_pairs_match_shapely(kind_a, kind_b, offset):
    rng = np.random.default_rng([KINDS.index(kind_a), KINDS.index(kind_b), int(offset)])
    a = adversarial_boxes(rng, 1500, kind_a)
    b = with_twins(rng, a, adversarial_boxes(rng, 1500, kind_b))
    moved = np.array([offset, -offset, 0, 0, 0])
    # Shapely gets the moved boxes moved back (exactly), so both see the same rounded input.
    near_a, near_b = (a + moved) - moved, (b + moved) - moved
    scale = np.maximum(1.0, np.maximum(area(a), area(b)))
    ours = rotated_box_intersection_area(a + moved, b + moved)
    np.testing.assert_allclose(ours / scale, reference_intersection(near_a, near_b) / scale, rtol=0, atol=1e-13)
    hull = rotated_box_hull_area(a + moved, b + moved)
    np.testing.assert_allclose(hull / scale, reference_hull(near_a, near_b) / scale, rtol=0, atol=1e-13)


def test_hull_of_a_corner_poking_out_of_an_edge():
    # A small square turned 45 degrees whose corner pokes out of the top edge of a large box:
    # the hull is the large box plus a thin triangle on the two bridges to that corner.
    big, small = np.array([0.0, 0.0, 10.0, 4.0, 0.0]), np.array([0.0, 2.0 - 0.5, 1.0, 1.0, 45.0])
    tip = small[1] + math.sqrt(0.5)
    expected = 40.0 + 0.5 * 10.0 * (tip - 2.0)
    for first, second in ((big, small), (small, big)):
        assert rotated_box_hull_area(first, second) == pytest.approx(expected, rel=1e-14)


def test_hull_of_parallel_boxes_with_collinear_edges():
    # Same angle, side by side with a gap: the hull is the rectangle spanning both, exactly
    # for the axis-parallel ones (every emitted point is a true corner).
    a = np.array([[0.0, 0.0, 2.0, 2.0, 0.0], [0.0, 0.0, 2.0, 2.0, 90.0], [5.0, 5.0, 2.0, 2.0, 30.0]])
    step = np.array([[4.0, 0.0], [0.0, 4.0], [4.0 * math.cos(math.radians(30)), 4.0 * math.sin(math.radians(30))]])
    b = a.copy()
    b[:, :2] += step
    hull = rotated_box_hull_area(a, b)
    assert hull[:2].tolist() == [12.0, 12.0]
    assert hull[2] == pytest.approx(12.0, rel=1e-14)


def test_containment_gives_exactly_the_smaller_and_the_larger_area():
    rng = np.random.default_rng(40)
    outer = random_boxes(rng, 500, size=(5, 10))
    inner = outer.copy()
    inner[:, 2:4] *= rng.uniform(0.05, 0.3, (500, 2))  # fits whatever its angle and offset
    inner[:, :2] += rng.uniform(-0.5, 0.5, (500, 2))
    inner[:, 4] = rng.uniform(-360, 360, 500)
    for first, second in ((outer, inner), (inner, outer)):
        assert np.array_equal(rotated_box_intersection_area(first, second), area(inner))
        assert np.array_equal(rotated_box_hull_area(first, second), area(outer))


@pytest.mark.parametrize("turn", [0.0, 90.0, -90.0, 180.0, 270.0])
def test_parallel_integer_boxes_are_exact(turn):
    # Relative angles that are multiples of 90 degrees take the closed form of two rectangles:
    # exact for integer boxes, as the Box kernel is (scaling the frame would round 2.5 / 1.5).
    rng = np.random.default_rng(41)
    a = np.column_stack([rng.integers(-5, 6, (400, 2)) / 2, rng.integers(0, 6, (400, 2)), np.zeros(400)])
    b = np.column_stack([rng.integers(-5, 6, (400, 2)) / 2, rng.integers(0, 6, (400, 2)), np.full(400, turn)])
    low_a, high_a = a[:, :2] - a[:, 2:4] / 2, a[:, :2] + a[:, 2:4] / 2
    size_b = b[:, 2:4] if turn % 180 == 0 else b[:, [3, 2]]
    low_b, high_b = b[:, :2] - size_b / 2, b[:, :2] + size_b / 2
    overlap = np.clip(np.minimum(high_a, high_b) - np.maximum(low_a, low_b), 0, None).prod(axis=1)
    assert np.array_equal(rotated_box_intersection_area(a, b), overlap)
    assert np.array_equal(rotated_box_intersection_area(b, a), overlap)


def test_pairs_whose_bounds_do_not_overlap_are_exactly_zero():
    # Diagonal neighbours whose bounds only touch or are apart: rounding inside the clamping
    # could leave a sliver, but the pairwise metrics' sweep calls them 0, and so must the kernel.
    rng = np.random.default_rng(42)
    a = random_boxes(rng, 300, span=3.0, size=(0.5, 3.0))
    b = random_boxes(rng, 300, span=3.0, size=(0.5, 3.0))
    corners_a, corners_b = rotated_box_corners(a), rotated_box_corners(b)
    low = np.maximum(corners_a.min(axis=-2)[:, None], corners_b.min(axis=-2)[None])
    high = np.minimum(corners_a.max(axis=-2)[:, None], corners_b.max(axis=-2)[None])
    apart = (low >= high).any(axis=-1)
    assert apart.any() and not apart.all()
    matrix = rotated_box_intersection_area(a[:, None], b[None])
    assert np.all(matrix[apart] == 0.0)


def test_bounds_are_those_of_the_corners():
    rng = np.random.default_rng(43)
    boxes = random_boxes(rng, 5000, span=1e6)
    boxes[::5, 4] = 90.0 * rng.integers(-8, 9, 1000)
    boxes[::7, 2] = 0.0
    bounds, corners = corner_bounds(boxes), rotated_box_corners(boxes)
    assert np.array_equal(bounds[:, :2], corners.min(axis=-2))
    assert np.array_equal(bounds[:, 2:], corners.max(axis=-2))
    assert np.array_equal(RotatedBox(boxes).bounds, bounds)


def test_bounds_of_boxes_below_the_resolution_of_their_centre_span_the_neighbouring_floats():
    # At x = 1 a box 1e-17 wide has corners that all round to 1: bounds of zero extent would
    # overlap nothing, itself included, and every pruning by bounds would drop its pairs.
    bounds = corner_bounds([[1.0, 2.0**40, 1e-17, 3.0, 180.0], [1.0, 1.0, 0.0, 1e-17, 0.0]])
    assert bounds[0].tolist() == [np.nextafter(1.0, 0.0), 2.0**40 - 1.5, np.nextafter(1.0, 2.0), 2.0**40 + 1.5]
    assert bounds[1].tolist() == [1.0, 1.0, 1.0, 1.0]  # no area: the corners' bounds stay as they are


def test_extreme_sizes_stay_in_range_without_warnings():
    # Subnormal and huge sizes overflow the scaled frame of the intersection; the result must
    # still be clamped into [0, min area] (and the hull be at least the larger area), silently.
    # (The hull's shoelace squares coordinates: sizes near 1e300 are out of its range.)
    a = np.array([[0, 0, 1e-310, 1, 10], [0, 0, 1e-300, 1e-300, 0], [0, 0, 5e-324, 2, 0], [0, 0, 1e300, 1, 33]])
    b = np.array([[0, 0, 1, 1, 20], [0, 0, 1e150, 1e150, 10], [0, 0, 1, 1, 45], [1, 0, 1, 1, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for first, second in ((a, b), (b, a)):
            inter = rotated_box_intersection_area(first, second)
            assert np.all((inter >= 0) & (inter <= np.minimum(area(first), area(second))))
            hull = rotated_box_hull_area(first[:3], second[:3])
            assert np.all(hull >= np.maximum(area(first[:3]), area(second[:3])))
    # The 1e300-long bar meets the square as a bar 1e3 long would (shapely cannot take 1e300).
    bar_1e3 = shapely_intersection(np.array([[0, 0, 1e3, 1, 33.0]]), b[3:])[0]
    assert rotated_box_intersection_area(a[3], b[3]) == pytest.approx(bar_1e3, rel=1e-12)


# --- batches, chunks and threads ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape_a", "shape_b"),
    [
        ((6, 1), (1, 9)),  # the pairwise layout: a repeated along lines, the same run of b on each
        ((1, 9), (6, 1)),  # the same, sides swapped
        ((2, 1, 4), (3, 4)),  # both sides vary along lines, from different starts
        ((12,), (12,)),  # elementwise: no gather at all
        ((3, 4), (3, 1)),
    ],
)
def test_every_batch_layout_gives_the_same_bits(shape_a, shape_b):
    rng = np.random.default_rng(44)
    a = random_boxes(rng, math.prod(shape_a), span=8.0).reshape(shape_a + (5,))
    b = random_boxes(rng, math.prod(shape_b), span=8.0).reshape(shape_b + (5,))
    a.reshape(-1, 5)[1, 0] = np.nan  # NaN boxes in dense and in sparse blocks
    b.reshape(-1, 5)[-1, 3] = np.nan
    batch = np.broadcast_shapes(shape_a, shape_b)
    flat_a = np.broadcast_to(a, batch + (5,)).reshape(-1, 5)
    flat_b = np.broadcast_to(b, batch + (5,)).reshape(-1, 5)
    for kernel in (rotated_box_intersection_area, rotated_box_hull_area):
        result = kernel(a, b)
        singles = np.array([kernel(x, y) for x, y in zip(flat_a, flat_b)]).reshape(batch)
        np.testing.assert_array_equal(result, singles)  # NaN where a box is NaN, equal bits elsewhere
        assert np.isnan(result).any() and (result > 0).any()


def test_sparse_batches_collect_candidates_across_blocks():
    # Far-apart clusters: most blocks are almost empty; their few candidates are computed
    # together and written back to the right places.
    rng = np.random.default_rng(45)
    a = random_boxes(rng, 300, span=400.0, size=(1, 20))
    b = random_boxes(rng, 200, span=400.0, size=(1, 20))
    matrix = rotated_box_intersection_area(a[:, None], b[None])
    rows, columns = np.nonzero(matrix)
    assert 0 < len(rows) < 0.05 * matrix.size
    np.testing.assert_array_equal(matrix[rows, columns], rotated_box_intersection_area(a[rows], b[columns]))
    reference = shapely_intersection(a[rows], b[columns])
    np.testing.assert_allclose(matrix[rows, columns], reference, rtol=1e-9, atol=1e-9)


def test_threads_share_nothing():
    # Work arrays are kept per thread between calls: concurrent calls must not mix them up.
    rng = np.random.default_rng(46)
    batches = [random_box_pairs(rng, 3000) for _ in range(4)]
    expected = [(rotated_box_intersection_area(a, b), rotated_box_hull_area(a, b)) for a, b in batches]

    def run(index):
        a, b = batches[index]
        return [(rotated_box_intersection_area(a, b), rotated_box_hull_area(a, b)) for _ in range(5)]

    with ThreadPoolExecutor(max_workers=4) as pool:
        for index, results in enumerate(pool.map(run, range(4))):
            for inter, hull in results:
                assert np.array_equal(inter, expected[index][0]) and np.array_equal(hull, expected[index][1])


def test_unit_vectors_are_exact_at_quarter_turns_and_nan_for_nan():
    angles = 90.0 * np.arange(-12, 13)
    cos, sin = unit_vectors(angles)
    quarter = np.arange(-12, 13) % 4
    assert np.array_equal(cos, np.array([1.0, 0.0, -1.0, 0.0])[quarter])
    assert np.array_equal(sin, np.array([0.0, 1.0, 0.0, -1.0])[quarter])
    cos, sin = unit_vectors(np.array([np.nan, 30.0]))
    assert np.isnan(cos[0]) and np.isnan(sin[0]) and cos[1] == pytest.approx(math.sqrt(3) / 2, rel=1e-15)


def test_the_kernels_turn_boxes_as_the_regions_do():
    # The kernels' frames and bounds come from the same cos and sin as the regions' corners.
    rng = np.random.default_rng(47)
    angles = np.concatenate(
        [
            rng.uniform(-720, 720, 2000),
            90.0 * rng.integers(-40, 40, 100),
            [1e-10, -1e-300, 45.0, -45.0, 135.0, 1e15, -3e20, 2.0**60 + 90.0],
        ]
    )
    cos, sin = unit_vectors(angles)
    compiled = _core.rotated_unit_vectors(angles)
    assert np.array_equal(compiled[:, 0], cos) and np.array_equal(compiled[:, 1], sin)


# --- the degenerate suite, through the public metrics --------------------------------------------

OFFSETS = [0.0, 1e6, 1e9, 2.0**40]


@pytest.mark.parametrize("offset", OFFSETS)
@pytest.mark.parametrize("angle", [0.0, 30.0, 90.0, -127.5, 1e-12])
def test_degenerate_pairs_at_any_offset(offset, angle):
    box = np.array([offset + 0.25, -offset, 4.0, 2.5, angle])

    def iou(first, second) -> float:
        forward = geoiou.iou(geoiou.RotatedBox(first), geoiou.RotatedBox(second))
        backward = geoiou.iou(geoiou.RotatedBox(second), geoiou.RotatedBox(first))
        assert np.float64(forward).view(np.uint64) == np.float64(backward).view(np.uint64)  # symmetric, bit for bit
        return forward

    # Identical, half a turn on, a quarter turn on with the sides swapped: the same rectangle
    # (exactly when the turned angle is exact; 1e-12 + 90 rounds the angle by 1e-14 degrees).
    assert iou(box, box) == 1.0
    for turn, sides in ((180.0, [2, 3]), (90.0, [3, 2]), (-270.0, [3, 2])):
        twin = np.array([box[0], box[1], box[sides[0]], box[sides[1]], angle + turn])
        exact = twin[4] - turn == angle
        assert iou(box, twin) == (1.0 if exact else pytest.approx(1.0, abs=1e-12))
    # Nested: a smaller box about the same centre, turned anyhow, gives exactly its area over the larger one's.
    inner = np.array([box[0], box[1], 1.0, 0.5, angle + 17.0])
    assert iou(box, inner) == 0.5 / 10.0
    # Nearly parallel: turned by 1e-12 degrees about its centre, the box loses O(1e-14) of its area.
    assert iou(box, box + [0, 0, 0, 0, 1e-12]) == pytest.approx(1.0, abs=1e-12)
    # The quarter-turned twin of a 4 x 1 bar crosses it in a 1 x 1 square: 1 / (4 + 4 - 1).
    bar = np.array([box[0], box[1], 4.0, 1.0, angle])
    assert iou(bar, bar + [0, 0, 0, 0, 90]) == pytest.approx(1 / 7, rel=1e-12)
    if angle % 90 == 0:  # exact corners: a shared edge or a touching corner is exactly 0
        w, h = (4.0, 2.5) if angle % 180 == 0 else (2.5, 4.0)
        assert iou(box, box + [w, 0, 0, 0, 0]) == 0.0
        assert iou(box, box + [w, h, 0, 0, 0]) == 0.0
        assert iou(box, box + [w / 2, 0, 0, 0, 0]) == 1 / 3


TINY_OR_ANY_SIZE = st.one_of(
    st.floats(1e-3, 1e3),
    st.builds(lambda mantissa, exponent: mantissa * 2.0**exponent, st.floats(1, 2), st.integers(-480, 20)),
)
FAR_COORDINATE = st.one_of(
    st.floats(-100, 100), st.floats(-(2.0**40), 2.0**40), st.sampled_from([1.0, 1e6, -1e9, 2.0**40, -(2.0**40)])
)
ANGLE = st.one_of(st.floats(-720, 720), st.sampled_from([0.0, 90.0, -180.0, 45.0, 1e-12]))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(FAR_COORDINATE, FAR_COORDINATE, TINY_OR_ANY_SIZE, TINY_OR_ANY_SIZE, ANGLE)
@example(1.0, 1.0, 1e-17, 1e-17, 30.0)  # the example: all corners round to the centre
@example(2.0**40, -(2.0**40), 2.0**-60, 3.0, 10.0)
def test_property_a_box_has_iou_1_with_itself(cx, cy, w, h, angle):
    if w * h < 2.0**-1000:  # below the constructor's range (it refuses such boxes)
        return
    box = geoiou.RotatedBox([cx, cy, w, h, angle])
    assert geoiou.iou(box, box) == 1.0
    assert geoiou.giou(box, box) == 1.0
    assert geoiou.iof(box, box) == 1.0
    assert geoiou.pairwise_iou(box.reshape(1), box.reshape(1)).tolist() == [[1.0]]
    # Inside a box 1.5 times its size (and turned), it is measured exactly.
    outer = geoiou.RotatedBox([cx, cy, 1.5 * math.hypot(w, h), 1.5 * math.hypot(w, h), angle + 33.0])
    assert geoiou.intersection_area(box, outer) == box.area


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    FAR_COORDINATE,
    FAR_COORDINATE,
    st.tuples(*[st.floats(-20, 20)] * 2, *[st.one_of(st.just(0.0), st.floats(1e-6, 15))] * 4),
    ANGLE,
    ANGLE,
)
def test_property_symmetric_bit_for_bit(cx, cy, numbers, angle_a, angle_b):
    dx, dy, w_a, h_a, w_b, h_b = numbers
    a = geoiou.RotatedBox([cx, cy, w_a, h_a, angle_a])
    b = geoiou.RotatedBox([cx + dx, cy + dy, w_b, h_b, angle_b])
    for metric in (geoiou.intersection_area, geoiou.iou, geoiou.giou):
        forward, backward = metric(a, b), metric(b, a)
        assert np.float64(forward).view(np.uint64) == np.float64(backward).view(np.uint64) or (
            math.isnan(forward) and math.isnan(backward)
        )


def test_results_do_not_depend_on_the_number_of_threads():
    rng = np.random.default_rng(48)
    a, b = (geoiou.RotatedBox(random_boxes(rng, 400, span=60.0, size=(1, 20))) for _ in range(2))
    previous = threads.limit()  # None when unset
    try:
        geoiou.set_threads(1)
        one = [geoiou.pairwise_iou(a, b), geoiou.pairwise_giou(a, b), geoiou.iou(a, b[::-1])]
        geoiou.set_threads(2)
        two = [geoiou.pairwise_iou(a, b), geoiou.pairwise_giou(a, b), geoiou.iou(a, b[::-1])]
    finally:
        geoiou.set_threads(previous)
    for single, parallel in zip(one, two):
        assert np.array_equal(single, parallel)
    assert (one[0] > 0).mean() > 0.05
