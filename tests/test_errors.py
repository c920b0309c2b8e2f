"""Bad input is refused with an error naming the parameter, the expected form and the value given."""

import math

import numpy as np
import pytest

import geoiou
from geoiou import InvalidArgumentError, InvalidRegionError, UnsupportedPairError


def test_error_classes_subclass_the_builtins_callers_catch():
    assert issubclass(InvalidRegionError, ValueError) and issubclass(InvalidRegionError, geoiou.GeoIoUError)
    assert issubclass(UnsupportedPairError, TypeError) and issubclass(UnsupportedPairError, geoiou.GeoIoUError)
    assert issubclass(InvalidArgumentError, ValueError)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: geoiou.Box([0, 0, math.nan, 1]),
            r"'coords' must be finite \(no NaN or inf\) \(got 'nan at index \(2,\)'\)",
        ),
        (lambda: geoiou.Box([[0, 0, 1, 1], [0, 0, math.inf, 1]]), r"'coords' must be finite .*inf at index \(1, 2\)"),
        (lambda: geoiou.RotatedBox([0, 0, 1, 1, math.nan]), r"'coords' must be finite"),
        (lambda: geoiou.Interval([math.nan, 1]), r"'coords' must be finite"),
        (lambda: geoiou.Polygon([(0, 0), (1, math.nan), (0, 1)]), r"'ring' must be finite"),
        (lambda: geoiou.Mask(np.ones((2, 2)), origin=(math.inf, 0)), r"'origin' must be finite"),
    ],
)
def test_non_finite_values_are_refused(build, message):
    with pytest.raises(InvalidRegionError, match=message):
        build()


@pytest.mark.parametrize(
    ("build", "message"),
    [
        # [5, 0, 1, 1] reads as a COCO [x, y, w, h] box (issue 24, item 9): the message says so.
        (
            lambda: geoiou.Box([5, 0, 1, 1]),
            r"'coords' must be ordered with x1 <= x2; a COCO \[x, y, w, h\] box\? pass "
            r"fmt='xywh' \(got '5.0 > 1.0 at batch index \(\)'\)",
        ),
        (
            lambda: geoiou.Box([[0, 0, 1, 1], [0, 3, 1, 1]]),
            r"ordered with y1 <= y2; .* \(got '3.0 > 1.0 at batch index \(1,\)'\)",
        ),
        (
            lambda: geoiou.Box([5, 0, 1, -1]),
            r"ordered with x1 <= x2 \(got '5.0 > 1.0 at batch index \(\)'\)",
        ),  # no hint
        (
            lambda: geoiou.Box([0, 0, -1, 2], fmt="xywh"),
            r"'coords' must be a non-negative width and height \(got 'w=-1.0, h=2.0",
        ),
        (lambda: geoiou.Box([0, 0, 1, -2], fmt="cxcywh"), r"non-negative width and height"),
        (lambda: geoiou.Box.from_pixel_indices([3, 0, 2, 0]), r"x1 <= x2 \(inclusive indices\)"),
        (lambda: geoiou.RotatedBox([0, 0, -1, 1, 0]), r"'coords' must be a non-negative width w \(got 'width w -1.0"),
        (lambda: geoiou.RotatedBox([0, 0, 1, -1, 0]), r"non-negative height h"),
        (lambda: geoiou.Interval([3, 2]), r"'coords' must be ordered with start <= end \(got '3.0 > 2.0"),
    ],
)
def test_misordered_corners_and_negative_sizes_are_refused(build, message):
    with pytest.raises(InvalidRegionError, match=message):
        build()


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: geoiou.Box([0, 0, 1]), r"'coords' must be an array of shape \(\.\.\., 4\) \(got 'shape \(3,\)'\)"),
        (lambda: geoiou.Box(5), r"shape \(\.\.\., 4\) \(got 'shape \(\)'\)"),
        (lambda: geoiou.RotatedBox([0, 0, 1, 1]), r"shape \(\.\.\., 5\)"),
        (lambda: geoiou.Interval([[0, 1, 2]]), r"shape \(\.\.\., 2\)"),
        (lambda: geoiou.Box(["a", "b", "c", "d"]), r"'coords' must be an array of numbers"),
        (lambda: geoiou.Polygon([(0, 0, 0), (1, 0, 0), (0, 1, 0)]), r"'ring' must be an array of shape \(\.\.\., 2\)"),
        (
            lambda: geoiou.Mask(np.ones(4)),
            r"'array' must be a 2-D raster \(H, W\) or a batch \(\.\.\., H, W\) \(got 'shape \(4,\)'\)",
        ),
        (
            lambda: geoiou.Mask(np.ones((3, 2, 2)), origin=[(0, 0), (1, 1)]),
            r"'origin' must be of shape \(2,\) or \(3, 2\)",
        ),
        (
            lambda: geoiou.RotatedBox.from_corners([0, 0, 1, 0, 1, 1]),
            r"'corners' must be an array of shape \(\.\.\., 4, 2\) or \(\.\.\., 8\)",
        ),
    ],
)
def test_wrong_shapes_are_refused(build, message):
    with pytest.raises(InvalidRegionError, match=message):
        build()


def test_unknown_box_format_is_refused():
    with pytest.raises(InvalidRegionError, match=r"'fmt' must be one of \('xyxy', 'xywh', 'cxcywh'\) \(got 'xywha'\)"):
        geoiou.Box([0, 0, 1, 1], fmt="xywha")
    with pytest.raises(InvalidRegionError, match=r"'fmt' must be one of"):
        geoiou.Box([0, 0, 1, 1]).to_array("yxyx")


def test_self_intersecting_polygon_gives_shapely_reason_and_the_repair():
    bow_tie = [(0, 0), (2, 2), (2, 0), (0, 2)]
    with pytest.raises(
        InvalidRegionError, match=r"'ring' must be a valid polygon \(got Self-intersection\[1 1\]\); pass repair=True"
    ):
        geoiou.Polygon(bow_tie)
    repaired = geoiou.Polygon(bow_tie, repair=True)
    assert repaired.area == 2.0  # two triangles of area 1 each


def test_invalid_polygon_in_a_batch_names_its_index():
    rings = [[(0, 0), (1, 0), (0, 1)], [(0, 0), (2, 2), (2, 0), (0, 2)]]
    with pytest.raises(
        InvalidRegionError, match=r"'rings' must be a valid polygon \(got Self-intersection.* at batch index \(1,\)\)"
    ):
        geoiou.Polygon.from_rings(rings)


@pytest.mark.parametrize("ring", [[(0, 0), (1, 1)], [(0, 0), (1, 1), (0, 0)], [(1, 1), (1, 1), (1, 1), (1, 1)]])
def test_too_few_vertices_are_refused(ring):
    with pytest.raises(InvalidRegionError, match=r"'ring' must be at least 3 distinct vertices"):
        geoiou.Polygon(ring)


def test_collinear_ring_is_refused_with_shapely_reason():
    with pytest.raises(
        InvalidRegionError, match=r"'ring' must be vertices enclosing a positive area \(these are collinear\)"
    ):
        geoiou.Polygon([(0, 0), (1, 1), (2, 2)])


def test_non_polygonal_shapely_geometry_is_refused():
    import shapely

    with pytest.raises(
        InvalidRegionError, match=r"'geometry' must be a shapely Polygon or MultiPolygon \(got 'LineString'\)"
    ):
        geoiou.Polygon.from_shapely(shapely.LineString([(0, 0), (1, 1)]))


def test_probability_mask_is_refused_with_a_threshold_hint():
    with pytest.raises(
        InvalidRegionError,
        match=r"'array' must be boolean or only 0 and 1; it looks like probabilities: "
        r"threshold them first.*\(got 0.3\)",
    ):
        geoiou.Mask(np.array([[0.3, 1.0], [0.0, 0.9]]))


def test_label_map_is_refused_with_a_select_hint():
    with pytest.raises(
        InvalidRegionError, match=r"it looks like a label map: select one label, e.g. Mask\(labels == k\) \(got 2\)"
    ):
        geoiou.Mask(np.array([[0, 1], [2, 1]]))


def test_non_numeric_mask_is_refused():
    with pytest.raises(InvalidRegionError, match=r"'array' must be boolean or 0/1 real numbers \(got 'dtype <U1'\)"):
        geoiou.Mask(np.array([["a", "b"], ["c", "d"]]))


def test_zero_one_numbers_are_accepted_as_a_mask():
    assert geoiou.Mask(np.array([[0.0, 1.0], [1, 1]])).area == 3.0


def test_rectangle_test_of_from_corners():
    with pytest.raises(
        InvalidRegionError,
        match=r"'corners' must be the corners of a rectangle \(use fit='min_area', or compare as Polygon\)",
    ):
        geoiou.RotatedBox.from_corners([0, 0, 4, 0, 5, 2, 0, 2])
    with pytest.raises(InvalidRegionError, match=r"'fit' must be one of \('strict', 'min_area'\) \(got 'best'\)"):
        geoiou.RotatedBox.from_corners([0, 0, 4, 0, 4, 2, 0, 2], fit="best")


def test_mmrotate_angle_outside_the_version_range_is_refused():
    with pytest.raises(InvalidRegionError, match=r"'coords' must be angles in mmrotate's 'oc' range"):
        geoiou.RotatedBox.from_mmrotate([0, 0, 2, 1, -0.5], version="oc")
    with pytest.raises(InvalidRegionError, match=r"'version' must be one of \('oc', 'le90', 'le135'\) \(got 'le45'\)"):
        geoiou.RotatedBox.from_mmrotate([0, 0, 2, 1, 0.5], version="le45")


@pytest.mark.parametrize(
    "region",
    [
        geoiou.Box([0, 0, 1, 1]),
        geoiou.RotatedBox([0, 0, 1, 1, 10]),
        geoiou.Polygon([(0, 0), (1, 0), (0, 1)]),
        geoiou.Mask(np.ones((2, 2), dtype=bool)),
    ],
)
@pytest.mark.parametrize("metric", [geoiou.iou, geoiou.giou, geoiou.iof, geoiou.intersection_area, geoiou.pairwise_iou])
def test_interval_against_a_2d_region_is_an_unsupported_pair(region, metric):
    interval = geoiou.Interval([0, 1])
    with pytest.raises(
        UnsupportedPairError,
        match=rf"cannot compare Interval with {type(region).__name__}; supported pairs: .*Interval×Interval",
    ):
        metric(interval, region)
    with pytest.raises(UnsupportedPairError, match=rf"cannot compare {type(region).__name__} with Interval"):
        metric(region, interval)


def test_ciou_of_rotated_boxes_is_unsupported():
    box = geoiou.RotatedBox([0, 0, 2, 1, 30])
    with pytest.raises(UnsupportedPairError, match=r"ciou is defined for Box×Box only \(got RotatedBox×RotatedBox\)"):
        geoiou.ciou(box, box)


def test_non_region_arguments_are_a_type_error():
    with pytest.raises(TypeError, match=r"'b' must be a geoiou Region such as Box or Polygon \(got list\)"):
        geoiou.iou(geoiou.Box([0, 0, 1, 1]), [0, 0, 1, 1])


@pytest.mark.parametrize("value", [2.0, -0.5, "zero", None])
def test_zero_division_outside_its_range_is_refused(value):
    box = geoiou.Box([0, 0, 1, 1])
    with pytest.raises(InvalidArgumentError, match=r"'zero_division' must be NaN or a number in \[0, 1\]"):
        geoiou.iou(box, box, zero_division=value)


def test_unknown_enclosure_is_refused():
    box = geoiou.Box([0, 0, 1, 1])
    with pytest.raises(
        InvalidArgumentError, match=r"'enclosure' must be one of \('box', 'hull'\) or None \(got 'circle'\)"
    ):
        geoiou.giou(box, box, enclosure="circle")


def test_regions_are_immutable():
    box = geoiou.Box([0, 0, 1, 1])
    with pytest.raises(AttributeError, match="immutable"):
        box._xyxy = np.zeros(4)
    with pytest.raises(ValueError, match="read-only"):
        box._xyxy[0] = 5


def test_construction_does_not_freeze_the_callers_array():
    coords = np.array([[0.0, 0, 1, 1]])
    geoiou.Box(coords)
    coords[0, 0] = 0.5  # still writable: the region holds a read-only view, not the caller's flags


@pytest.mark.parametrize(
    "metric",
    [
        geoiou.iou,
        geoiou.giou,
        geoiou.iof,
        geoiou.diou,
        geoiou.intersection_area,
        geoiou.union_area,
        geoiou.enclosure_area,
    ],
)
def test_batches_that_do_not_broadcast_are_refused_with_both_shapes(metric):
    three = geoiou.Polygon.from_rings([[(0, 0), (1, 0), (0, 1)]] * 3)
    two = geoiou.Box([[0, 0, 1, 1]] * 2)
    with pytest.raises(InvalidArgumentError, match=r"broadcast.*\(got \(3,\) and \(2,\)\); pairwise_"):
        metric(three, two)


# --------------------------------------------------------------------------- issue 24, items 4, 9 and 10
@pytest.mark.parametrize(
    ("build", "message"),
    [
        # Item 4: raw library errors become geoiou errors naming the parameter.
        # shapely's own message here speaks of "linear offsets", which says nothing about the input.
        (
            lambda: geoiou.Polygon(np.zeros((0, 2))),
            r"'ring' must be a ring of at least 3 vertices .* \(got 'no vertices'\)",
        ),
        (
            lambda: geoiou.Polygon.from_rings([np.zeros((0, 2)), [(0, 0), (1, 0), (0, 1)]]),
            r"'rings\[0\]' must be a ring of",
        ),
        # 2**1100 is a Python int beyond float64: NumPy raised OverflowError.
        (lambda: geoiou.Box([0, 0, 2**1100, 1]), r"'coords' must be numbers within float64's range"),
        (lambda: geoiou.Interval([0, 2**1100]), r"'coords' must be numbers within float64's range"),
        # The same for a 3-D box: float64's range, not a 2-D kind's limit (the 3-D limit is ±2**336).
        (lambda: geoiou.Box3D([0, 0, 0, 2**1100, 1, 1]), r"'coords' must be numbers within float64's range \(about"),
        # Item 9: hints in the errors people hit most.
        (
            lambda: geoiou.Mask(np.array([[0, 255], [255, 0]], dtype=np.uint8)),
            r"0/255 image: use Mask\(array > 0\) \(got 255\)",
        ),
        (lambda: geoiou.Mask({"size": [2, 2], "counts": "04"}), r"for a COCO RLE dict use geoiou.Mask.from_rle\(rle\)"),
        (
            lambda: geoiou.Polygon([0, 0, 1, 0, 0, 1]),
            r"a flat list x1, y1, x2, y2, ... becomes vertices with "
            r"np.reshape\(ring, \(-1, 2\)\) \(got 'shape \(6,\)'\)",
        ),
        (lambda: geoiou.Polygon([[0, 0, 1, 0, 0, 1]]), r"np.reshape\(ring\[0\], \(-1, 2\)\)"),
        # Item 10: numeric strings are refused as coordinates (NumPy would convert them).
        (lambda: geoiou.Box(["0", "0", "1", "1"]), r"'coords' must be an array of numbers, not strings"),
        (
            lambda: geoiou.Box(np.array([0, 0, "1", 1], dtype=object)),
            r"'coords' must be an array of numbers, not strings",
        ),
    ],
)
def test_raw_errors_and_common_mistakes_have_named_messages(build, message):
    with pytest.raises(geoiou.GeoIoUError, match=message):
        build()


def test_a_list_of_regions_names_the_concatenation():
    boxes = [geoiou.Box([0, 0, 1, 1]), geoiou.Box([0, 0, 2, 2])]
    with pytest.raises(geoiou.InvalidTypeError, match=r"join them with geoiou.Box.concatenate\(regions\)"):
        geoiou.pairwise_iou(boxes, geoiou.Box([[0, 0, 1, 1]]))


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ({"score": ["0.9"]}, r"'score' must be an array of numbers, not strings"),  # item 10: a numeric string score
        # item 10: NumPy would read [1, "1"] as the strings ["1", "1"], merging two different images.
        (
            {"image_id": [1, "1"], "category_id": [1, 1], "region": geoiou.Box([[0, 0, 1, 1], [0, 0, 2, 2]])},
            r"'image_id' must be ids of one type, all integers or all strings \(got 'a mix of int, str'\)",
        ),
    ],
)
def test_annotations_refuse_string_numbers_and_mixed_ids(columns, message):
    from geoiou.evaluation import Annotations

    arguments = {"image_id": [1], "category_id": [1], "region": geoiou.Box([[0, 0, 1, 1]])} | columns
    with pytest.raises(geoiou.InvalidArgumentError, match=message):
        Annotations(**arguments)


def test_temporal_segments_refuse_string_times():
    from geoiou.evaluation import TemporalSegments

    with pytest.raises(geoiou.InvalidArgumentError, match=r"'start' must be an array of numbers, not strings"):
        TemporalSegments(video_id=["a"], label=["x"], start=["1"], end=[2])
