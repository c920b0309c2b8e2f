"""The conventions of docs/conventions.md, each checked against an independent computation."""

import math

import numpy as np
import pytest
import shapely

import geoiou


def test_rotated_box_corners_follow_the_rotation_matrix():
    # corner = centre + R(angle) (±w/2, ±h/2), R = [[cos, -sin], [sin, cos]], written out by hand.
    cx, cy, w, h, angle = 10.0, 20.0, 6.0, 2.0, 30.0
    t = math.radians(angle)
    expected = [
        (cx + math.cos(t) * dx - math.sin(t) * dy, cy + math.sin(t) * dx + math.cos(t) * dy)
        for dx, dy in [(-3, -1), (3, -1), (3, 1), (-3, 1)]
    ]
    np.testing.assert_allclose(geoiou.RotatedBox([cx, cy, w, h, angle]).to_corners(), expected, rtol=0, atol=1e-12)


def test_positive_angle_turns_clockwise_on_screen_like_opencv():
    cv2 = pytest.importorskip("cv2")
    box = (50.0, 40.0, 30.0, 10.0, 25.0)
    ours = geoiou.RotatedBox(box).to_corners()
    theirs = cv2.boxPoints(((box[0], box[1]), (box[2], box[3]), box[4]))
    # Same set of corners (OpenCV starts from another corner).
    assert shapely.Polygon(ours).symmetric_difference(shapely.Polygon(theirs)).area < 1e-3


@pytest.mark.parametrize("angle", [0, 90, 180, 270, -90, 360, 450])
def test_quarter_turns_give_exact_axis_aligned_corners(angle):
    corners = geoiou.RotatedBox([5, 5, 4, 2, angle]).to_corners()
    assert set(np.unique(corners)) <= {3.0, 4.0, 6.0, 7.0}  # exactly the coordinates, no 1e-16 noise


def test_half_turn_and_quarter_turn_with_swapped_sides_are_the_same_region():
    box = geoiou.RotatedBox([3, 4, 10, 2, 17])
    assert geoiou.iou(box, geoiou.RotatedBox([3, 4, 10, 2, 197])) == pytest.approx(1, abs=1e-12)
    assert geoiou.iou(box, geoiou.RotatedBox([3, 4, 2, 10, 107])) == pytest.approx(1, abs=1e-12)


def test_detectron2_angle_is_the_negative():
    ours = geoiou.RotatedBox([0, 0, 4, 2, -30])
    theirs = geoiou.RotatedBox.from_detectron2([0, 0, 4, 2, 30])
    np.testing.assert_array_equal(ours.to_array(), theirs.to_array())
    np.testing.assert_array_equal(theirs.to_detectron2(), [0, 0, 4, 2, 30])


def test_radians_round_trip():
    box = geoiou.RotatedBox.from_radians([1, 2, 3, 4, math.pi / 6])
    assert box.angle == pytest.approx(30)
    np.testing.assert_allclose(box.to_radians(), [1, 2, 3, 4, math.pi / 6])


@pytest.mark.parametrize("version", ["oc", "le90", "le135"])
def test_mmrotate_normalisation_keeps_the_region_and_lands_in_range(version):
    rng = np.random.default_rng(7)
    coords = np.column_stack(
        [rng.uniform(-50, 50, (200, 2)), rng.uniform(1, 20, (200, 2)), rng.uniform(-720, 720, 200)]
    )
    boxes = geoiou.RotatedBox(coords)
    normalised = boxes.to_mmrotate(version)
    low, high = {"oc": (0, math.pi / 2), "le90": (-math.pi / 2, math.pi / 2), "le135": (-math.pi / 4, 3 * math.pi / 4)}[
        version
    ]
    angle = normalised[:, 4]
    if version == "oc":
        assert ((angle > low) & (angle <= high + 1e-12)).all()
    else:
        assert ((angle >= low - 1e-12) & (angle < high)).all()
        assert (normalised[:, 2] >= normalised[:, 3]).all()  # long side first
    back = geoiou.RotatedBox.from_mmrotate(normalised, version=version)
    np.testing.assert_allclose(geoiou.iou(boxes, back), 1.0, atol=1e-9)


def test_from_corners_reads_dota_eight_numbers_and_either_direction():
    counter_clockwise = geoiou.RotatedBox.from_corners([0, 0, 4, 0, 4, 2, 0, 2])
    clockwise = geoiou.RotatedBox.from_corners([0, 0, 0, 2, 4, 2, 4, 0])
    reference = geoiou.Box([0, 0, 4, 2])
    assert geoiou.iou(counter_clockwise, reference) == pytest.approx(1, abs=1e-12)
    assert geoiou.iou(clockwise, reference) == pytest.approx(1, abs=1e-12)


def test_from_corners_round_trips_to_corners():
    rng = np.random.default_rng(3)
    coords = np.column_stack(
        [rng.uniform(-1e3, 1e3, (50, 2)), rng.uniform(0.5, 50, (50, 2)), rng.uniform(-180, 180, 50)]
    )
    boxes = geoiou.RotatedBox(coords)
    again = geoiou.RotatedBox.from_corners(boxes.to_corners())
    np.testing.assert_allclose(again.to_corners(), boxes.to_corners(), atol=1e-9)


def test_min_area_fit_of_a_rectangle_is_the_rectangle_and_of_a_quad_contains_it():
    quad = np.array([[0, 0], [4, 0], [5, 2], [0, 2]], dtype=float)
    fitted = geoiou.RotatedBox.from_corners(quad, fit="min_area")
    assert geoiou.iof(geoiou.Polygon(quad), fitted) == pytest.approx(1, abs=1e-12)  # the quad lies inside
    assert fitted.area == pytest.approx(shapely.oriented_envelope(shapely.multipoints(quad)).area)


def test_inclusive_pixel_indices_add_one():
    # Pixels 0..9 × 0..4 are 10 × 5 pixels: the box [0, 10) × [0, 5).
    np.testing.assert_array_equal(geoiou.Box.from_pixel_indices([0, 0, 9, 4]).bounds, [0, 0, 10, 5])


@pytest.mark.parametrize(
    ("fmt", "coords"), [("xywh", [1, 2, 3, 4]), ("cxcywh", [2.5, 4, 3, 4]), ("xyxy", [1, 2, 4, 6])]
)
def test_box_formats_describe_the_same_box(fmt, coords):
    box = geoiou.Box(coords, fmt=fmt)
    np.testing.assert_array_equal(box.bounds, [1, 2, 4, 6])
    np.testing.assert_array_equal(box.to_array(fmt), coords)


def test_pixel_model_box_and_full_mask_at_origin_is_exactly_one():
    assert geoiou.iou(geoiou.Box([0, 0, 2, 2]), geoiou.Mask(np.ones((2, 2), dtype=bool))) == 1.0


def test_pixel_model_half_covered_pixel_counts_half():
    # The triangle (0,0),(1,0),(0,1) covers half of pixel (0, 0): intersection 0.5, union 1.
    pixel = geoiou.Mask([[True]])
    triangle = geoiou.Polygon([(0, 0), (1, 0), (0, 1)])
    assert geoiou.intersection_area(triangle, pixel) == pytest.approx(0.5, abs=1e-15)
    assert geoiou.iou(triangle, pixel) == pytest.approx(0.5, abs=1e-15)


def test_pixel_model_origin_moves_the_mask():
    mask = geoiou.Mask(np.ones((2, 3), dtype=bool), origin=(10.5, -4))
    np.testing.assert_array_equal(mask.bounds, [10.5, -4, 13.5, -2])
    assert geoiou.iou(mask, geoiou.Box([10.5, -4, 13.5, -2])) == 1.0
    np.testing.assert_array_equal(mask.centroid, [12.0, -3.0])


def test_zero_union_gives_zero_division():
    empty = geoiou.Box([3, 3, 3, 3])
    assert math.isnan(geoiou.iou(empty, empty))
    assert geoiou.iou(empty, empty, zero_division=0.0) == 0.0
    assert geoiou.iou(empty, empty, zero_division=1.0) == 1.0
    assert geoiou.iou(empty, geoiou.Box([0, 0, 1, 1])) == 0.0  # one empty: a real 0


def test_empty_masks_and_polygons_follow_zero_division():
    empty_mask = geoiou.Mask(np.zeros((3, 3), dtype=bool))
    empty_polygon = geoiou.Polygon.from_shapely(shapely.Polygon())
    assert math.isnan(geoiou.iou(empty_mask, empty_polygon))
    assert geoiou.iou(empty_mask, empty_mask, zero_division=1.0) == 1.0
    assert geoiou.iou(empty_polygon, geoiou.Box([0, 0, 1, 1])) == 0.0
    assert np.isnan(empty_mask.bounds).all() and np.isnan(empty_polygon.bounds).all()


def test_giou_box_enclosure_reproduces_the_paper_formula():
    # Boxes [0,0,1,1] and [2,2,3,3]: union 2, enclosing box 3×3 = 9; GIoU = 0 - (9 - 2) / 9.
    a, b = geoiou.Box([0, 0, 1, 1]), geoiou.Box([2, 2, 3, 3])
    assert geoiou.giou(a, b) == pytest.approx(-7 / 9, abs=1e-15)
    # The convex hull of the two squares is a hexagon of area 9 - 2 × 2 = 5: GIoU = -(5 - 2) / 5.
    assert geoiou.giou(a, b, enclosure="hull") == pytest.approx(-3 / 5, abs=1e-12)


def test_giou_default_is_hull_for_other_pairs_and_hull_interval_for_intervals():
    a, b = geoiou.RotatedBox([0.5, 0.5, 1, 1, 0]), geoiou.Box([2, 2, 3, 3])
    assert geoiou.giou(a, b) == pytest.approx(-3 / 5, abs=1e-12)
    # Intervals [0, 1) and [3, 4): union 2, hull [0, 4) of length 4: GIoU = -(4 - 2) / 4.
    assert geoiou.giou(geoiou.Interval([0, 1]), geoiou.Interval([3, 4])) == -0.5


def test_giou_of_two_points_is_the_zero_division_value():
    point = geoiou.Box([1, 1, 1, 1])
    assert math.isnan(geoiou.giou(point, point))
    assert geoiou.giou(point, point, zero_division=1.0) == 1.0


def test_interval_diou_uses_midpoints_and_hull_length():
    # [0, 2) and [3, 5): IoU 0, midpoints 1 and 4 (d = 3), hull length 5: DIoU = -9 / 25.
    assert geoiou.diou(geoiou.Interval([0, 2]), geoiou.Interval([3, 5])) == pytest.approx(-9 / 25)
