"""Temporal action detection mAP: hand-computed cases, input forms, bad input and the result object."""

import json

import numpy as np
import pytest

from geoiou import InvalidArgumentError
from geoiou.evaluation import (
    ACTIVITYNET_TIOU_THRESHOLDS,
    THUMOS14_TIOU_THRESHOLDS,
    TemporalDetectionEvaluation,
    TemporalSegments,
    evaluate_temporal_detection,
)
from geoiou.evaluation.temporal import interpolated_average_precision


def ap_of(truth, predictions, **options):
    """AP at each threshold of the first class."""
    return evaluate_temporal_detection(truth, predictions, **options).ap[:, 0]


# --------------------------------------------------------------------------- golden cases
def test_a_perfect_hit_scores_one_and_a_duplicate_ranked_below_it_costs_nothing():
    # The duplicate is a false positive, but after the only hit: precision is 1 all the way to recall 1.
    ap = ap_of({"v": [(0, 10, "a")]}, {"v": [(0, 10, "a", 0.9), (0, 10, "a", 0.8)]})
    np.testing.assert_array_equal(ap, np.ones(10))


def test_a_false_positive_ranked_first_halves_the_ap():
    # Ranks: FP (precision 0), TP (precision 1/2, recall 1): AP = 1 * 1/2.
    ap = ap_of({"v": [(0, 10, "a")]}, {"v": [(50, 60, "a", 0.9), (0, 10, "a", 0.8)]})
    np.testing.assert_array_equal(ap, np.full(10, 0.5))


def test_a_hit_counts_only_at_thresholds_up_to_its_tiou():
    # tIoU = 7.2 / 10 = 0.72: a hit at 0.50 ... 0.70 (5 thresholds), a miss at 0.75 ... 0.95.
    result = evaluate_temporal_detection({"v": [(0, 10, "a")]}, {"v": [(0, 7.2, "a", 0.9)]})
    np.testing.assert_array_equal(result.mean_ap, [1, 1, 1, 1, 1, 0, 0, 0, 0, 0])
    assert result.average_mean_ap == 0.5


def test_a_prediction_whose_best_truth_is_claimed_takes_the_next_best_above_the_threshold():
    # Truth A = [0, 10), B = [4, 15). P1 = [0, 10) (score .9) claims A (tIoU 1; with B 6/15 = 0.4).
    # P2 = [2, 12) (score .8) prefers A (8/12 = 0.667) but A is taken, so it takes B (8/13 = 0.615)
    # where 0.615 reaches the threshold (0.50, 0.55, 0.60: AP 1) and is a false positive above
    # (0.65 ... 0.95: ranks TP, FP, AP 1/2). MS-TCN's segmental rule would never try B.
    truth = {"v": [(0, 10, "a"), (4, 15, "a")]}
    ap = ap_of(truth, {"v": [(0, 10, "a", 0.9), (2, 12, "a", 0.8)]})
    np.testing.assert_allclose(ap, [1, 1, 1] + [0.5] * 7, rtol=0, atol=1e-15)


def test_precision_is_interpolated_from_higher_recall():
    # Two truths; ranks FP, TP, TP: precisions 0, 1/2, 2/3. The first hit takes the best precision at
    # any higher recall (2/3, not 1/2): AP = (2/3 + 2/3) / 2 = 2/3.
    truth = {"v": [(0, 10, "a"), (20, 30, "a")]}
    predictions = {"v": [(50, 60, "a", 0.9), (0, 10, "a", 0.8), (20, 30, "a", 0.7)]}
    np.testing.assert_allclose(ap_of(truth, predictions), np.full(10, 2 / 3), rtol=1e-15)
    # Ranks TP, FP, TP: precisions 1, 1/2, 2/3: AP = (1 + 2/3) / 2.
    predictions = {"v": [(0, 10, "a", 0.9), (50, 60, "a", 0.8), (20, 30, "a", 0.7)]}
    np.testing.assert_allclose(ap_of(truth, predictions), np.full(10, 5 / 6), rtol=1e-15)


def test_equal_scores_keep_their_input_order():
    # Same scores, same segments, opposite order: the earlier one is ranked first.
    false_first = {"v": [(50, 60, "a", 0.5), (0, 10, "a", 0.5)]}
    hit_first = {"v": [(0, 10, "a", 0.5), (50, 60, "a", 0.5)]}
    assert ap_of({"v": [(0, 10, "a")]}, false_first)[0] == 0.5
    assert ap_of({"v": [(0, 10, "a")]}, hit_first)[0] == 1.0


def test_equal_tious_go_to_the_later_truth():
    # P1 = [5, 15) has tIoU 1/3 with both A = [0, 10) and B = [10, 20) and claims B (the later one, as
    # ActivityNet's reversed argsort walks them) at threshold 0.3; P2 = [0, 10) then claims A: AP 1.
    # (Claiming A first, as geoiou did before issue 24, left P2 a false positive: AP 0.5.)
    truth = {"v": [(0, 10, "a"), (10, 20, "a")]}
    ap = ap_of(truth, {"v": [(5, 15, "a", 0.9), (0, 10, "a", 0.8)]}, tiou_thresholds=[0.3])
    assert ap[0] == 1.0


def test_a_zero_length_truth_is_never_matched_by_default_but_counts_as_a_miss():
    # The hit on [0, 10) finds one of two truths: AP = 1/2. The zero-length prediction at 5 has tIoU 0/0
    # with the zero-length truth: zero_division = 0 (default) makes it a false positive after the hit.
    truth = {"v": [(5, 5, "a"), (0, 10, "a")]}
    predictions = {"v": [(0, 10, "a", 0.9), (5, 5, "a", 0.8)]}
    np.testing.assert_array_equal(ap_of(truth, predictions), np.full(10, 0.5))
    # zero_division = 1: the point prediction matches the point truth, recall reaches 1: AP 1.
    np.testing.assert_array_equal(ap_of(truth, predictions, zero_division=1.0), np.ones(10))


def test_with_zero_division_one_a_zero_length_prediction_matches_a_zero_length_truth_anywhere():
    # As documented: two zero-length segments have an empty union wherever they lie (geoiou.iou's rule).
    truth = {"v": [(5, 5, "a")]}
    predictions = {"v": [(7, 7, "a", 0.9)]}
    assert ap_of(truth, predictions, zero_division=1.0)[0] == 1.0
    assert ap_of(truth, predictions)[0] == 0.0
    # A prediction of positive length has tIoU 0 with a point whatever zero_division says.
    assert ap_of(truth, {"v": [(4, 6, "a", 0.9)]}, zero_division=1.0)[0] == 0.0


def test_predictions_in_a_video_without_truth_are_false_positives():
    # "w" has no segments: its prediction is a false positive, ranked first: AP = 1/2.
    truth = {"v": [(0, 10, "a")], "w": []}
    predictions = {"w": [(0, 10, "a", 0.9)], "v": [(0, 10, "a", 0.8)]}
    assert ap_of(truth, predictions)[0] == 0.5


def test_truth_in_a_video_without_predictions_is_missed():
    # One of two truths found: recall stops at 1/2 with precision 1: AP = 1/2.
    truth = {"v": [(0, 10, "a")], "w": [(0, 10, "a")]}
    assert ap_of(truth, {"v": [(0, 10, "a", 0.9)]})[0] == 0.5


def test_a_class_without_predictions_has_ap_zero_and_counts_in_the_mean():
    truth = {"v": [(0, 10, "a"), (20, 30, "b")]}
    result = evaluate_temporal_detection(truth, {"v": [(0, 10, "a", 0.9)]})
    np.testing.assert_array_equal(result.ap, np.tile([1.0, 0.0], (10, 1)))
    assert result.average_mean_ap == 0.5


def test_a_prediction_never_matches_truth_of_another_class():
    truth = {"v": [(0, 10, "a")], "w": [(0, 10, "b")]}
    result = evaluate_temporal_detection(truth, {"v": [(0, 10, "b", 0.9)]})
    np.testing.assert_array_equal(result.ap, np.zeros((10, 2)))


def test_thumos14_reports_each_threshold():
    # tIoU = 4.5 / 10 = 0.45: a hit at 0.3 and 0.4 only.
    result = evaluate_temporal_detection({"v": [(0, 10, "a")]}, {"v": [(0, 4.5, "a", 0.9)]}, tiou_thresholds="thumos14")
    np.testing.assert_array_equal(result.tiou_thresholds, THUMOS14_TIOU_THRESHOLDS)
    np.testing.assert_array_equal(result.mean_ap, [1, 1, 0, 0, 0])
    assert result.mean_ap_at(0.4) == 1.0 and result.mean_ap_at(0.5) == 0.0


def test_activitynet_thresholds_are_exactly_the_reference_linspace():
    np.testing.assert_array_equal(ACTIVITYNET_TIOU_THRESHOLDS, np.linspace(0.5, 0.95, 10))
    with pytest.raises(ValueError):
        ACTIVITYNET_TIOU_THRESHOLDS[0] = 0.1  # read-only: a caller cannot change the protocol


def test_interpolated_average_precision_of_a_ranking():
    assert interpolated_average_precision([True, False, True], num_truths=4) == pytest.approx((1 + 2 / 3) / 4)
    assert interpolated_average_precision([], num_truths=3) == 0.0
    np.testing.assert_allclose(interpolated_average_precision([[True, False], [False, True]], 1), [1.0, 0.5])


# --------------------------------------------------------------------------- input forms
def test_records_columns_and_activitynet_dicts_give_the_same_result():
    tuples = {"v1": [(0, 10, "a", 0.9), (3, 8, "b", 0.4)], "v2": [(1, 2, "a", 0.7)]}
    dicts = {
        video: [{"segment": [s, e], "label": label, "score": score} for s, e, label, score in rows]
        for video, rows in tuples.items()
    }
    columns = TemporalSegments(
        video_id=np.array(["v1", "v1", "v2"]),
        label=np.array(["a", "b", "a"]),
        start=[0, 3, 1],
        end=[10, 8, 2],
        score=np.array([0.9, 0.4, 0.7]),
    )
    truth = {"v1": [(0, 9, "a"), (2, 8, "b")], "v2": [(0, 2, "a")], "v3": []}
    results = [evaluate_temporal_detection(truth, predictions).to_dict() for predictions in (tuples, dicts, columns)]
    assert results[0] == results[1] == results[2]


def test_integer_labels_and_video_ids():
    truth = TemporalSegments(video_id=[7, 7, 9], label=np.array([2, 1, 2]), start=[0, 20, 0], end=[10, 30, 5])
    predictions = TemporalSegments(video_id=[7], label=[1], start=[20], end=[30], score=[1.0])
    result = evaluate_temporal_detection(truth, predictions)
    assert result.labels == (1, 2)
    np.testing.assert_array_equal(result.ap[0], [1.0, 0.0])
    json.loads(result.to_json())  # labels are plain ints, not NumPy scalars


def test_segments_summarize_themselves():
    segments = TemporalSegments.from_records({"v": [(0, 1, "a", 0.5)], "w": []})
    assert len(segments) == 1 and segments.videos == ("v", "w")
    assert repr(segments) == "TemporalSegments(1 scored segments in 2 videos)"


# --------------------------------------------------------------------------- bad input
TRUTH = {"v": [(0, 10, "a")]}


@pytest.mark.parametrize(
    ("predictions", "message"),
    [
        ({"v": [(0, 10, "a", float("nan"))]}, r"^'score' must be finite \(got nan at segment 0, video 'v'\)$"),
        (
            {"v": [(0, 1, "a", 0.1), (0, float("inf"), "a", 0.5)]},
            r"^'end' must be finite \(got inf at segment 1, video 'v'\)$",
        ),
        ({"v": [(5, 2, "a", 0.5)]}, r"^'end' must be >= start \(got '\[5, 2\]' at segment 0, video 'v'\)$"),
        (
            {"x": [(0, 10, "a", 0.5)]},
            r"^'predictions' must be for videos of the ground truth \(got 'x'; the ground truth has, for example, "
            r"'v'\)$",
        ),
        (
            {"v": [(0, 10, "dance", 0.5)]},
            r"^'predictions' must be labelled with classes of the ground truth \(got 'dance'; the ground truth has, "
            r"for example, 'a'\)$",
        ),
        (
            {"v": [(0, 10, "a")]},
            r"^'predictions' must be scored \(each prediction needs a 'score'\) \(got 'no scores'\)$",
        ),
        ({"v": [(0, 10, "a", 0.5), (0, 10, "a")]}, r"'records' must be all scored or all without scores"),
        ({"v": [(0, 10)]}, r"'records' must be \{'segment': \[start, end\].* \(got \(0, 10\) in video 'v'\)"),
        ({"v": [{"segment": [0, 1]}]}, r"'records' must be .*in video 'v'"),
        ({"v": [("a", 10, "a", 0.5)]}, r"'start' must be an array of numbers"),
        ([("v", 0, 10, "a", 0.5)], r"'predictions' must be TemporalSegments or a mapping"),
    ],
)
def test_bad_predictions_are_refused_with_a_clear_message(predictions, message):
    with pytest.raises(InvalidArgumentError, match=message):
        evaluate_temporal_detection(TRUTH, predictions)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"tiou_thresholds": "coco"}, r"'tiou_thresholds' must be one of \('activitynet', 'thumos14'\)"),
        ({"tiou_thresholds": [0.5, 1.5]}, r"'tiou_thresholds' must be a non-empty 1-D array of numbers in \[0, 1\]"),
        ({"tiou_thresholds": []}, r"'tiou_thresholds' must be a non-empty"),
        ({"zero_division": float("nan")}, r"'zero_division' must be a number in \[0, 1\] \(got nan\)"),
        ({"zero_division": 2}, r"'zero_division' must be a number in \[0, 1\] \(got 2\)"),
    ],
)
def test_bad_options_are_refused(options, message):
    with pytest.raises(InvalidArgumentError, match=message):
        evaluate_temporal_detection(TRUTH, {}, **options)


def test_bad_columns_are_refused():
    with pytest.raises(InvalidArgumentError, match=r"'end' must be one entry per segment \(2\) \(got '1 entries'\)"):
        TemporalSegments(video_id=["v", "v"], label=["a", "a"], start=[0, 1], end=[2])
    with pytest.raises(InvalidArgumentError, match=r"'video_id' must be one of 'videos' \(got 'w'\)"):
        TemporalSegments(video_id=["v", "w"], label=["a", "a"], start=[0, 1], end=[2, 3], videos=["v"])
    with pytest.raises(InvalidArgumentError, match=r"'ground_truth' must be at least one segment \(got 'none'\)"):
        evaluate_temporal_detection({"v": []}, {})


# --------------------------------------------------------------------------- the result
def test_the_result_reports_a_table_a_dict_and_json():
    truth = {"v1": [(0, 10, "jump"), (20, 30, "run")], "v2": [(5, 15, "jump")]}
    predictions = {"v1": [(0, 9, "jump", 0.9), (21, 30, "run", 0.8)], "v2": [(5, 11, "jump", 0.6)]}
    result = evaluate_temporal_detection(truth, predictions)
    lines = result.summary().splitlines()
    assert lines[0] == "Temporal action detection: 2 classes, 2 videos, 3 ground-truth segments, 3 predictions"
    assert lines[1] == "tIoU  mAP (%)"
    assert lines[2] == "0.50   100.00"  # jump: tIoU 0.9 and 0.6, run: 0.9
    assert lines[-1] == f"avg   {100 * result.average_mean_ap:7.2f}"
    as_dict = json.loads(result.to_json(indent=2))
    assert as_dict["mAP"] == pytest.approx(result.mean_ap.tolist())
    assert as_dict["per_class"][0] == {
        "label": "jump",
        "AP": result.ap[:, 0].tolist(),
        "num_truths": 2,
        "num_predictions": 2,
    }
    assert result.mean_ap_at(0.9) == result.mean_ap[8]  # finds 0.8999999999999999
    with pytest.raises(InvalidArgumentError, match=r"'threshold' must be one of \[0.5, 0.55"):
        result.mean_ap_at(0.33)
    assert set(result.ap_per_class()) == {"jump", "run"}
    assert repr(result).startswith("TemporalDetectionResult(average_mAP=")


def test_the_progress_bar_changes_nothing(capsys):
    truth = {"v": [(0, 10, "a"), (20, 30, "a")]}
    predictions = {"v": [(0, 10, "a", 0.9), (21, 30, "a", 0.8)]}
    quiet = evaluate_temporal_detection(truth, predictions, show_progress=False)
    loud = evaluate_temporal_detection(truth, predictions, show_progress=True)
    np.testing.assert_array_equal(quiet.ap, loud.ap)
    assert "temporal matching" in capsys.readouterr().err


def test_ids_and_labels_must_be_sequences_of_hashable_values():
    with pytest.raises(InvalidArgumentError, match=r"'video_id' must be a 1-D sequence of ids or labels \(got 'v1'\)"):
        TemporalSegments(video_id="v1", label=["a"], start=[0], end=[1])
    with pytest.raises(InvalidArgumentError, match=r"'label' must be a 1-D sequence of hashable .*\(got \['a'\]\)"):
        TemporalSegments(video_id=["v1"], label=[["a"]], start=[0], end=[1])


def test_per_object_matches_say_which_segment_each_prediction_claimed():
    # The case above: P1 claims A everywhere; P2 claims B at 0.50 to 0.60 (tIoU 8/13) and nothing above.
    truth = {"v": [(0, 10, "a"), (4, 15, "a")]}
    result = evaluate_temporal_detection(truth, {"v": [(0, 10, "a", 0.9), (2, 12, "a", 0.8)]})
    matches = result.matches
    np.testing.assert_array_equal(matches.prediction_match[:, 0], np.zeros(10))
    np.testing.assert_array_equal(matches.prediction_match[:, 1], [1, 1, 1] + [-1] * 7)
    assert matches.prediction_iou[0, 1] == pytest.approx(8 / 13, abs=1e-15)
    np.testing.assert_array_equal(matches.truth_match[0], [0, 1])
    np.testing.assert_array_equal(matches.truth_match[-1], [0, -1])
    records = matches.to_records(0.7)
    assert [r["outcome"] for r in records] == ["true positive", "false positive", "found", "missed"]
    # The flags are what the AP was computed from.
    assert matches.true_positive.sum() == 10 + 3


# --------------------------------------------------------------------------- hints (issue 24, items 9 and 10)
@pytest.mark.parametrize(
    ("truth", "predictions", "message"),
    [
        # The label 3 against "3": equal as text, different as values, so no prediction could match.
        (
            {"v1": [(0, 5, 3)]},
            {"v1": [(0, 4, "3", 0.9)]},
            r"the types differ, the ground truth has 3 \(int\) and this "
            r"is '3' \(str\)",
        ),
        # ActivityNet's ids carry a "v_" prefix, which prediction files made from video names often lack.
        ({"v_abc": [(0, 5, "run")]}, {"abc": [(0, 4, "run", 0.9)]}, r"\(got 'abc': the ground truth has 'v_abc'"),
        (
            {"v1": [(0, 5, "run")]},
            {"v1": [("run", 0, 4, 0.9)]},
            r"'records' must be \(start, end, label\[, score\]\) in "
            r"this order, the label third",
        ),
    ],
)
def test_common_mistakes_are_named(truth, predictions, message):
    with pytest.raises(InvalidArgumentError, match=message):
        TemporalDetectionEvaluation().update(truth, predictions).compute()


def test_integer_frame_labels_with_the_default_background_are_warned_about():
    from geoiou.evaluation.action_segmentation import frame_segments

    # No integer equals "background": frame 0's class 0 would count as an action (item 10).
    with pytest.warns(UserWarning, match=r"'background' \(the default\) cannot occur among integer frame labels"):
        labels, _ = frame_segments([0, 0, 1, 1, 0, 2])
    assert labels.tolist() == [0, 1, 0, 2]
    assert frame_segments([0, 0, 1, 1, 0, 2], background=0)[0].tolist() == [1, 2]


def test_ids_that_read_the_same_in_two_types_are_refused():
    # Issue 24, item 10: video 1 and video "1" would be two videos; one side was read as text.
    with pytest.raises(
        InvalidArgumentError,
        match=r"'video_id' must be ids of one type for equal names \(got "
        r"\"both 1 and '1'\"\)",
    ):
        TemporalSegments(video_id=[1, "1"], label=["a", "a"], start=[0, 1], end=[1, 2])
