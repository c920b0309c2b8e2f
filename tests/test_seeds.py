"""The worked examples of the tutorials geoiou grew from (../shared/seeds), as golden values."""

import numpy as np
import pytest

import geoiou

# PyImageSearch's five detections, written as inclusive pixel indices: its code adds 1 to every
# width and height, so Box.from_pixel_indices reproduces its published 4-decimal values.
PYIMAGESEARCH = [
    ([39, 63, 203, 112], [54, 66, 198, 114], 0.7980),
    ([49, 75, 203, 125], [42, 78, 186, 126], 0.7899),
    ([31, 69, 201, 125], [18, 63, 235, 135], 0.6125),
    ([50, 72, 197, 121], [54, 72, 198, 120], 0.9472),
    ([35, 51, 196, 110], [36, 60, 180, 108], 0.7310),
]


@pytest.mark.parametrize(("truth", "prediction", "published"), PYIMAGESEARCH)
def test_pyimagesearch_detections(truth, prediction, published):
    value = geoiou.iou(geoiou.Box.from_pixel_indices(truth), geoiou.Box.from_pixel_indices(prediction))
    assert round(value, 4) == published


def test_pyimagesearch_detections_as_one_batch():
    truth = geoiou.Box.from_pixel_indices([row[0] for row in PYIMAGESEARCH])
    prediction = geoiou.Box.from_pixel_indices([row[1] for row in PYIMAGESEARCH])
    np.testing.assert_array_equal(geoiou.iou(truth, prediction).round(4), [row[2] for row in PYIMAGESEARCH])


def test_pyimagesearch_first_detection_by_hand():
    # Inclusive pixels 39..203 × 63..112 is 165 × 50 = 8250; 54..198 × 66..114 is 145 × 49 = 7105;
    # the overlap 54..198 × 66..112 is 145 × 47 = 6815; IoU = 6815 / (8250 + 7105 - 6815).
    truth = geoiou.Box.from_pixel_indices([39, 63, 203, 112])
    prediction = geoiou.Box.from_pixel_indices([54, 66, 198, 114])
    assert geoiou.intersection_area(truth, prediction) == 6815
    assert geoiou.iou(truth, prediction) == 6815 / (8250 + 7105 - 6815)


def test_disjoint_boxes_of_the_readers_comment_are_zero():
    # The tutorial's "+1" code multiplies two negative widths into a positive overlap here; they
    # are disjoint, so the IoU is 0.
    a = geoiou.Box([265.0, 103.0, 372.0, 268.0])
    b = geoiou.Box([12, 34, 32, 61])
    assert geoiou.iou(a, b) == 0.0
    assert geoiou.iou(geoiou.Box.from_pixel_indices(a.bounds), geoiou.Box.from_pixel_indices(b.bounds)) == 0.0


def test_continuous_boxes_of_the_comment_give_one_seventh():
    # A reader's correction: [0,0,2,2] and [1,1,3,3] overlap in a unit square, union 4 + 4 - 1 = 7.
    assert geoiou.iou(geoiou.Box([0, 0, 2, 2]), geoiou.Box([1, 1, 3, 3])) == 1 / 7


@pytest.mark.parametrize(
    ("b", "expected"),
    [
        ([5, 2, 15, 12], 0.25),  # overlap (10-5)×(10-2) = 40; union 100 + 100 - 40 = 160
        ([10, 10, 15, 15], 0.0),  # touching at a corner only: no area in common
        ([0, 0, 10, 10], 1.0),  # the same box
    ],
)
def test_kolena_box_examples(b, expected):
    assert geoiou.iou(geoiou.Box([0, 0, 10, 10]), geoiou.Box(b)) == expected


def test_kolena_mask_example():
    # TP 100, FP 25, FN 75: the truth has 175 pixels, the prediction 125, 100 in common;
    # IoU = 100 / (100 + 25 + 75) = 0.5.
    truth = np.zeros((20, 20), dtype=bool)
    truth.flat[:175] = True
    prediction = np.zeros((20, 20), dtype=bool)
    prediction.flat[75:200] = True
    a, b = geoiou.Mask(truth), geoiou.Mask(prediction)
    assert geoiou.intersection_area(a, b) == 100
    assert geoiou.iou(a, b) == 0.5


def test_kolena_label_sets_macro_average():
    # Per class over 4 samples: Airplane 2/4, Boat 3/4, Car 3/4; macro mean 2/3. Each class's
    # membership vector is a 1×4 mask, whose IoU is exactly TP / (TP + FP + FN).
    truth = np.array([[1, 1, 1], [1, 0, 1], [0, 1, 1], [1, 1, 1]]).T[:, None, :]
    prediction = np.array([[0, 1, 0], [1, 1, 1], [1, 1, 1], [1, 1, 1]]).T[:, None, :]
    per_class = geoiou.iou(geoiou.Mask(truth), geoiou.Mask(prediction))
    np.testing.assert_array_equal(per_class, [0.5, 0.75, 0.75])
    assert np.isclose(per_class.mean(), 2 / 3, rtol=0, atol=1e-15)


def test_cv_wiki_25_over_175():
    # Two 10×10 boxes overlapping in a 5×5 square: 25 / (100 + 100 - 25).
    a, b = geoiou.Box([0, 0, 10, 10]), geoiou.Box([5, 5, 15, 15])
    assert geoiou.intersection_area(a, b) == 25
    assert geoiou.union_area(a, b) == 175
    assert geoiou.iou(a, b) == 25 / 175


def test_demo_examples_all_match():
    from geoiou.demo import examples

    # Published values have 4 decimals; the demo's own examples are exact.
    for example in examples():
        assert round(example.compute(), 4) == round(example.expected, 4), example.name
