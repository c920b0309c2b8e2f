"""TIDE's error breakdown: a case worked by hand, the invariants, every protocol (tidecv: test_tidecv.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geoiou
from geoiou.diagnostics import diagnose
from geoiou.diagnostics.tide import BACKGROUND, BOTH, CLASSIFICATION, DUPLICATE, LOCALIZATION, NO_ERROR
from geoiou.errors import InvalidArgumentError
from geoiou.evaluation import Annotations, TemporalDetectionEvaluation, VocEvaluation
from tests.conftest import TOUR
from tests.diagnostics.scenes import annotations, box_scene


# --------------------------------------------------------------------------- a case worked by hand
def hand_case():
    """Category "a": G1 found (d1), found again (d2, duplicate), G2 hit short (d4, localization); category "b": G3
    found as an "a" (d5, classification), touched by an "a" at IoU 0.3 (d6, both), G4 missed; d3 on nothing."""
    truth = Annotations(
        image_id=1,
        category_id=["a", "a", "b", "b"],
        region=geoiou.Box([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10], [80, 0, 90, 10]]),
    )
    predictions = Annotations(
        image_id=1,
        category_id="a",
        score=[0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
        region=geoiou.Box(
            [[0, 0, 10, 10], [0, 0, 10, 9], [60, 0, 70, 10], [20, 0, 30, 4], [40, 0, 50, 9.5], [40, 0, 50, 3]]
        ),
    )
    return diagnose(truth, predictions)


def test_each_error_of_a_hand_made_case_and_the_ap_it_costs():
    tide = hand_case().tide()
    assert tide.errors.tolist() == [NO_ERROR, DUPLICATE, BACKGROUND, LOCALIZATION, CLASSIFICATION, BOTH]
    assert tide.counts == {
        "classification": 1, "localization": 1, "both": 1, "duplicate": 1, "background": 1, "missed": 1,
    }  # fmt: skip
    assert tide.missed_rows.tolist() == [3]  # G2 and G3 could be found by fixing d4 and d5: only G4 is missed
    # AP50: "a" reaches recall 1/2 at its first prediction (51 of 101 recall points at precision 1); "b" has
    # no prediction (AP 0): the mean is 51/202. COCO's precision is tp / (tp + fp + eps): hence approx.
    assert tide.ap == pytest.approx(51 / 202, abs=1e-12)
    expected = {
        "classification": 51 / 202,  # d5 becomes b's true positive: b's AP 51/101, a's unchanged
        "localization": 25 / 202,  # d4 becomes a's 2nd true positive at rank 4: precision 1/2 from recall 1/2 to 1
        "both": 0.0,  # removing a false positive ranked after a's only hit changes nothing
        "duplicate": 0.0,
        "background": 0.0,
        "missed": 0.0,  # G4 out of b's positives: b still has no hit, AP 0
        "false_positive": 0.0,
        "false_negative": 1 - 51 / 202,  # a: recall 1 at precision 1; b (no hit) leaves the mean
    }
    assert tide.delta_ap == pytest.approx(expected, abs=1e-12)


def test_thresholds_are_checked_by_name():
    diagnostics = hand_case()
    with pytest.raises(InvalidArgumentError, match="'foreground_threshold' must be one of the evaluation's"):
        diagnostics.tide(foreground_threshold=0.42)
    with pytest.raises(InvalidArgumentError, match="'background_threshold' must be a number from .* 0.1"):
        diagnostics.tide(background_threshold=0.05)  # below what the state kept
    with pytest.raises(InvalidArgumentError, match="'background_threshold'"):
        diagnostics.tide(foreground_threshold=0.5, background_threshold=0.5)


# --------------------------------------------------------------------------- invariants
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), background=st.sampled_from([0.1, 0.2, 0.3]))
def test_fixing_errors_never_lowers_the_ap_and_the_ap_is_the_evaluations(seed, background):
    truth, predicted = box_scene(seed, n_images=10)
    diagnostics = diagnose(annotations(truth), annotations(predicted), images=range(10))
    tide = diagnostics.tide(background_threshold=background)
    assert tide.ap == diagnostics.result["AP50"]  # the evaluation's own AP, bit for bit
    for key, fixed in tide.fixed_ap.items():
        assert fixed >= tide.ap, key  # TIDE's oracles add true positives or take away false positives
        assert tide.delta_ap[key] == fixed - tide.ap
    # Every false positive gets one error, every other prediction none.
    false = diagnostics.table.outcome[:, 0, 0] == 0
    assert ((tide.errors[diagnostics.table.dt_row] >= 0) == false).all()


def test_every_protocol_and_geometry_has_its_breakdown():
    from geoiou.cli.eval_inputs import load_inputs

    def inputs(fmt, truth, predicted):
        return load_inputs(fmt, str(truth), str(predicted), geometry="auto", image_size=None, subset=None,
                           skip_invalid=False)  # fmt: skip

    dota = inputs("dota", TOUR.parent / "dota", TOUR / "dota-task1")  # polygons against polygons, VOC
    voc = diagnose(dota.ground_truth, dota.predictions, evaluation=VocEvaluation(interpolation="11point",
                   categories=dota.options["categories"]), images=dota.options["images"])  # fmt: skip
    assert voc.tide().ap == voc.result.mAP
    net = inputs("activitynet", TOUR / "activitynet" / "ground_truth.json", TOUR / "activitynet" / "results.json")
    temporal = diagnose(net.ground_truth, net.predictions, evaluation=TemporalDetectionEvaluation())
    assert temporal.tide().ap == temporal.result.mean_ap_at(0.5)
    assert temporal.tide(0.75, 0.2).ap == temporal.result.mean_ap_at(0.75)
    assert sum(temporal.tide().counts.values()) > 0
