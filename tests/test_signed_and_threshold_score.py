"""Signed IoU (Simonelli et al. 2019) and the threshold-averaged score of the Hasty wiki."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given

import geoiou
from strategies import box_strategy, ci_settings, interval_strategy, random_boxes, random_intervals, rng


# --------------------------------------------------------------------------- signed IoU, worked by hand
@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        # Overlapping: the intersection box is the usual one, sIoU is the IoU: 1 / (4 + 4 - 1).
        ([0, 0, 2, 2], [1, 1, 3, 3], 1 / 7),
        ([0, 0, 2, 2], [0, 0, 2, 2], 1.0),
        # Apart along x by 1, overlapping along y by 1: sides -1 and 1, signed area -1; -1 / (1 + 1 + 1).
        ([0, 0, 1, 1], [2, 0, 3, 1], -1 / 3),
        # Apart along both axes by 2: sides -2 and -2 (a positive product), signed area -4; -4 / (1 + 1 + 4).
        ([0, 0, 1, 1], [3, 3, 4, 4], -2 / 3),
        # Apart along y by 3 with the x overlap 0.5 of a 1-wide box: sides 0.5 and -3: -1.5 / (1 + 2 + 1.5).
        ([0, 0, 1, 1], [0.5, 4, 2.5, 5], -1.5 / 4.5),
        # Touching edges: a side of 0, signed area 0, sIoU 0.
        ([0, 0, 1, 1], [1, 0, 2, 1], 0.0),
        # Nested: the smaller box is the intersection, 1 / 16.
        ([0, 0, 4, 4], [1, 1, 2, 2], 1 / 16),
    ],
)
def test_signed_iou_of_boxes_worked_by_hand(a, b, expected):
    value = geoiou.siou(geoiou.Box(a), geoiou.Box(b))
    assert value == pytest.approx(expected, rel=1e-15, abs=0)
    assert geoiou.siou(geoiou.Box(b), geoiou.Box(a)) == value  # symmetric, bit for bit


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ([0, 10], [5, 20], 0.25),  # 5 shared of 20
        ([0, 1], [2, 3], -1 / 3),  # a gap of 1: -1 / (1 + 1 + 1)
        ([0, 1], [5, 6], -2 / 3),  # a gap of 4: -4 / (1 + 1 + 4)
        ([0, 1], [1, 2], 0.0),  # touching
    ],
)
def test_signed_iou_of_intervals_worked_by_hand(a, b, expected):
    assert geoiou.siou(geoiou.Interval(a), geoiou.Interval(b)) == pytest.approx(expected, rel=1e-15, abs=0)


def test_two_empty_regions_at_one_point_give_zero_division():
    point = geoiou.Box([1, 1, 1, 1])
    assert math.isnan(geoiou.siou(point, point))
    assert geoiou.siou(point, point, zero_division=1.0) == 1.0
    # Two empty boxes apart are not 0/0: the gap's (zero-area) box gives 0 / 0 only if it has no area either.
    assert geoiou.siou(geoiou.Interval([0, 0]), geoiou.Interval([2, 2])) == -1.0  # -2 / (0 + 0 + 2)


@pytest.mark.parametrize("kind", ["box", "interval"])
def test_signed_iou_is_the_iou_where_regions_overlap_and_negative_where_apart(kind):
    """The defining properties, on seeded batches: equal to IoU when the IoU is positive, in (-1, 0]
    otherwise, symmetric, and pairwise equal to the elementwise values broadcast."""
    gen = rng(5)
    make = random_boxes if kind == "box" else random_intervals
    a, b = make(gen, 200), make(gen, 200)
    signed, overlap = geoiou.siou(a, b), geoiou.iou(a, b)
    positive = overlap > 0
    np.testing.assert_allclose(signed[positive], overlap[positive], rtol=1e-15)
    assert ((signed[~positive] <= 0) & (signed[~positive] > -1)).all()
    np.testing.assert_array_equal(geoiou.siou(b, a), signed)
    matrix = geoiou.pairwise_siou(a[:40], b[:30])
    np.testing.assert_array_equal(matrix, geoiou.siou(a[:40, None], b[None, :30]))
    assert geoiou.pairwise_siou(a[:40], b[:30], dtype=np.float32).dtype == np.float32


@ci_settings(50)
@given(box_strategy(), box_strategy())
def test_signed_iou_grows_as_a_box_moves_away(a, b):
    """Moving `b` further from `a` along x never raises sIoU once they are apart (the gap only grows)."""
    x1, y1, x2, y2 = b.to_array()
    ax1, _, ax2, _ = a.to_array()
    if x1 < ax2:  # start to the right of a
        shift = ax2 - x1 + 0.5
        x1, x2 = x1 + shift, x2 + shift
    near = geoiou.siou(a, geoiou.Box([x1, y1, x2, y2]))
    far = geoiou.siou(a, geoiou.Box([x1 + 3, y1, x2 + 3, y2]))
    assert -1 < far <= near <= 0


@ci_settings(50)
@given(interval_strategy(), interval_strategy())
def test_signed_iou_of_intervals_stays_in_range(a, b):
    value = geoiou.siou(a, b)
    assert -1 < value <= 1
    assert value == pytest.approx(geoiou.iou(a, b)) if geoiou.iou(a, b) > 0 else value <= 0


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (geoiou.RotatedBox([0, 0, 1, 1, 0]), geoiou.RotatedBox([0, 0, 1, 1, 0])),
        (geoiou.Box([0, 0, 1, 1]), geoiou.Polygon([(0, 0), (1, 0), (0, 1)])),
        (geoiou.Box([0, 0, 1, 1]), geoiou.Interval([0, 1])),
    ],
)
def test_signed_iou_is_for_boxes_and_intervals_only(a, b):
    with pytest.raises(geoiou.UnsupportedPairError, match="Box×Box and Interval×Interval only"):
        geoiou.siou(a, b)
    with pytest.raises(geoiou.UnsupportedPairError):
        geoiou.pairwise_siou(a.reshape(1), b.reshape(1))


def test_signed_iou_refusals():
    with pytest.raises(geoiou.InvalidTypeError, match="'a' must be a geoiou Region"):
        geoiou.siou([0, 0, 1, 1], geoiou.Box([0, 0, 1, 1]))
    with pytest.raises(geoiou.InvalidArgumentError, match="broadcast"):
        geoiou.siou(geoiou.Box(np.zeros((2, 4))), geoiou.Box(np.zeros((3, 4))))
    with pytest.raises(geoiou.InvalidArgumentError, match="'dtype'"):
        geoiou.pairwise_siou(geoiou.Box(np.zeros((2, 4))), geoiou.Box(np.zeros((3, 4))), dtype=int)


# --------------------------------------------------------------------------- threshold score
def test_threshold_score_counts_the_thresholds_reached():
    # 0.50:0.05:0.95 has ten thresholds: 0.82 clears 0.50 ... 0.80 (seven), 0.5 only 0.50 (>=), 0.3 none.
    np.testing.assert_array_equal(geoiou.threshold_score([1.0, 0.82, 0.5, 0.3]), [1.0, 0.7, 0.1, 0.0])
    # The thresholds are made as COCOeval makes them (linspace), so 0.9 clears "0.9" (0.8999999999999999).
    assert geoiou.threshold_score(0.9) == 0.9
    assert geoiou.threshold_score(0.55) == 0.2
    assert math.isnan(geoiou.threshold_score(math.nan))
    assert geoiou.threshold_score(np.zeros((2, 3))).shape == (2, 3)
    assert geoiou.threshold_score(0.75, thresholds=[0.5, 0.75, 0.9]) == pytest.approx(2 / 3)


def test_threshold_score_of_geoiou_values():
    # The wiki's 10×10 boxes overlapping 5×5: IoU 25 / 175, below every threshold.
    assert geoiou.threshold_score(geoiou.iou(geoiou.Box([0, 0, 10, 10]), geoiou.Box([5, 5, 15, 15]))) == 0.0


def test_the_wikis_formula_is_not_this_score():
    """The wiki's ``ceil(clip(20 * (iou - 0.7), 0, 10)) / 10`` counts the thresholds 0.70 ... 1.15 that
    the IoU exceeds: a perfect match gets 0.6 in exact arithmetic and 0.7 in floating point
    (20 * (1 - 0.7) = 6.000000000000001), never 1."""
    wiki = np.ceil(np.clip(20 * (1.0 - 0.7), 0, 10)) / 10
    assert wiki == 0.7
    assert geoiou.threshold_score(1.0, thresholds=np.linspace(0.7, 0.95, 6)) == 1.0


@pytest.mark.parametrize("thresholds", [[], [0.5, 1.5], [-0.1]])
def test_threshold_score_refuses_thresholds_outside_0_1(thresholds):
    with pytest.raises(geoiou.InvalidArgumentError, match="'thresholds' must be a non-empty list of numbers in"):
        geoiou.threshold_score(0.5, thresholds=thresholds)


@pytest.mark.parametrize("value", [1.5, -0.1, [0.2, 1.5]])
def test_threshold_score_refuses_values_that_are_not_an_iou(value):
    # An IoU lies in [0, 1]; 1.5 would reach every threshold and score 1 (issue 24, item 3).
    with pytest.raises(geoiou.InvalidArgumentError, match=r"'iou' must be IoU values in \[0, 1\] \(or NaN\)"):
        geoiou.threshold_score(value)
