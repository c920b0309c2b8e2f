"""DiagnosticsEvaluation: the wrapped evaluation's result unchanged, parts merged as one call, refusals by name."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geoiou
from geoiou.diagnostics import DiagnosticsEvaluation, diagnose
from geoiou.errors import InvalidArgumentError
from geoiou.evaluation import (
    Annotations,
    CocoEvaluation,
    TemporalDetectionEvaluation,
    VocEvaluation,
    evaluate_coco,
    evaluate_temporal_detection,
    evaluate_voc,
)
from tests.evaluation.test_mergeable import assert_same_matches, detection_set, image_parts, temporal_set

TABLE_ARRAYS = (
    "dt_row", "dt_image", "dt_category", "dt_rank", "dt_score", "outcome", "gt_image", "gt_category", "gt_regular",
    "gt_crowd", "found_by", "matched", "pair_start", "pair_gt", "pair_value",
)  # fmt: skip


def assert_same_tables(split, whole) -> None:
    for name in TABLE_ARRAYS:
        np.testing.assert_array_equal(getattr(split.table, name), getattr(whole.table, name), err_msg=name)


@pytest.mark.parametrize("seed", [1, 2])
def test_coco_result_is_the_evaluations_own_with_crowd_and_ignored_objects(seed):
    truth, predictions, images = detection_set(seed)
    categories = [1, 2, 3, 9]
    whole = evaluate_coco(truth, predictions, images=images, categories=categories)
    diagnosed = diagnose(truth, predictions, evaluation=CocoEvaluation(categories=categories), images=images)
    for name in ("precision", "recall", "scores"):
        np.testing.assert_array_equal(getattr(diagnosed.result, name), getattr(whole, name))
    assert_same_matches(diagnosed.result, whole)
    # Re-accumulated from the table, every number is the evaluation's again, bit for bit.
    again = diagnosed.protocol.result(diagnosed.protocol.everything())
    for name in ("precision", "recall", "scores"):
        np.testing.assert_array_equal(getattr(again, name), getattr(whole, name))


def test_mixed_kinds_polygons_against_masks_and_rotated_boxes():
    rng = np.random.default_rng(3)
    masks = geoiou.Mask(rng.random((6, 40, 40)) < 0.6)
    polygons = geoiou.Polygon.from_rings([[(1, 1), (30, 2), (25, 35)], [(5, 5), (38, 5), (38, 38), (5, 30)]] * 3)
    truth = Annotations(image_id=np.repeat([1, 2, 3], 2), category_id=[1, 2] * 3, region=masks)
    predictions = Annotations(
        image_id=np.repeat([1, 2, 3], 3),
        category_id=[2, 1, 1] * 3,
        score=rng.random(9),
        region=[polygons, geoiou.RotatedBox([[20, 20, 30, 20, 15], [10, 10, 8, 8, 0], [30, 30, 12, 12, 45]])],
    )
    whole = evaluate_coco(truth, predictions)
    diagnosed = diagnose(truth, predictions)
    np.testing.assert_array_equal(diagnosed.result.precision, whole.precision)
    confusion = diagnosed.confusion_matrix().counts
    assert (confusion[:-1].sum(axis=1) == [3, 3]).all()  # every ground truth is in its row


def test_voc_and_temporal_results_are_the_evaluations_own():
    truth, predictions, images = detection_set(5, crowd=False)
    voc = diagnose(truth, predictions, evaluation=VocEvaluation(categories=[1, 2, 3, 9]), images=images)
    expected_ap = evaluate_voc(truth, predictions, images=images, categories=[1, 2, 3, 9]).ap
    np.testing.assert_array_equal(voc.result.ap, expected_ap)
    again = voc.protocol.result(voc.protocol.everything())
    np.testing.assert_array_equal(again.ap, voc.result.ap)
    truth_segments, predicted_segments = temporal_set(4)
    temporal = diagnose(truth_segments, predicted_segments, evaluation=TemporalDetectionEvaluation())
    expected = evaluate_temporal_detection(truth_segments, predicted_segments)
    np.testing.assert_array_equal(temporal.result.ap, expected.ap)
    np.testing.assert_array_equal(temporal.protocol.result(temporal.protocol.everything()).ap, expected.ap)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), n_parts=st.integers(2, 5))
def test_parts_merged_give_the_one_calls_diagnostics(seed, n_parts):
    truth, predictions, images = detection_set(seed)
    make = lambda: DiagnosticsEvaluation(CocoEvaluation(categories=[1, 2, 3, 9]))  # noqa: E731
    states = []
    for part in image_parts(len(images), n_parts, seed):
        here = truth.take(np.isin(truth.image_id, part)), predictions.take(np.isin(predictions.image_id, part))
        state = make().update(*here, images=part)
        states.append(pickle.loads(pickle.dumps(state)))  # as a Dask worker sends it back
    split = states[0].merge(*states[1:]).compute()
    whole = make().update(truth, predictions, images=images).compute()
    assert_same_tables(split, whole)
    assert split.tide().delta_ap == whole.tide().delta_ap


def test_a_state_keeps_no_regions():
    truth, predictions, images = detection_set(7)
    state = DiagnosticsEvaluation().update(truth, predictions, images=images)
    assert b"geoiou.regions" not in pickle.dumps(state)


def test_states_of_other_settings_do_not_merge():
    first = DiagnosticsEvaluation(CocoEvaluation(iou_thresholds=[0.5]))
    with pytest.raises(InvalidArgumentError, match="background_threshold"):
        first.merge(DiagnosticsEvaluation(CocoEvaluation(iou_thresholds=[0.5]), background_threshold=0.2))
    with pytest.raises(InvalidArgumentError, match="iou_thresholds"):
        first.merge(DiagnosticsEvaluation(CocoEvaluation(iou_thresholds=[0.75])))
    with pytest.raises(InvalidArgumentError, match="protocol"):
        first.merge(DiagnosticsEvaluation(VocEvaluation()))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"evaluation": "coco"}, "'evaluation' must be a CocoEvaluation, VocEvaluation or TemporalDetectionEvaluation"),
        ({"background_threshold": 0}, r"'background_threshold' must be a number in \(0, 1\) \(got 0\)"),
        ({"background_threshold": "0.1"}, "'background_threshold' must be a number"),
    ],
)
def test_bad_settings_are_refused_by_name(options, message):
    with pytest.raises(InvalidArgumentError, match=message):
        DiagnosticsEvaluation(**options)


def test_a_state_without_parts_is_refused_when_computed():
    with pytest.raises(InvalidArgumentError, match="'state' must be a DiagnosticsEvaluation updated with at least one"):
        DiagnosticsEvaluation().compute()


def test_an_evaluation_with_parts_is_refused():
    truth, predictions, images = detection_set(8)
    used = CocoEvaluation().update(truth, predictions, images=images)
    with pytest.raises(InvalidArgumentError, match="'evaluation' must be an evaluation state without parts"):
        DiagnosticsEvaluation(used)


def test_thresholds_of_the_diagnostics_are_the_evaluations():
    truth, predictions, images = detection_set(9)
    diagnostics = diagnose(truth, predictions, evaluation=CocoEvaluation(categories=[1, 2, 3, 9]), images=images)
    for call in (diagnostics.confusion_matrix, diagnostics.calibration, diagnostics.f_beta, diagnostics.per_image):
        with pytest.raises(InvalidArgumentError, match=r"'iou_threshold' must be one of the evaluation's thresholds"):
            call(0.52)
