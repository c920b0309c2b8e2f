"""The diagnostics derived from the table, each against a brute-force computation from its definition.

The oracles measure overlaps themselves (`geoiou.pairwise_iou` per image) or read the evaluation's
per-object matches, and count with plain loops: none shares code with what they check.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geoiou
from geoiou.diagnostics import compare, diagnose
from geoiou.errors import InvalidArgumentError
from geoiou.evaluation import Annotations, CocoEvaluation, evaluate_coco
from tests.diagnostics.scenes import annotations, box_scene

CATEGORIES = [0, 1, 2, 3]


def scene(seed: int, n_images: int = 12):
    truth_rows, predicted_rows = box_scene(seed, n_images=n_images)
    truth, predicted = annotations(truth_rows), annotations(predicted_rows)
    evaluation = CocoEvaluation(categories=CATEGORIES, iou_thresholds=[0.3, 0.5, 0.75])
    return truth, predicted, diagnose(truth, predicted, evaluation=evaluation, images=range(n_images))


# --------------------------------------------------------------------------- confusion matrix
def brute_confusion(truth: Annotations, predicted: Annotations, threshold: float, score: float) -> np.ndarray:
    """The module's definition with loops: COCO's greedy matching per category, then false positives in score order
    taking the free ground truth of another category they overlap most."""
    n = len(CATEGORIES)
    counts = np.zeros((n + 1, n + 1), dtype=np.int64)
    for image in np.unique(np.r_[truth.image_id, predicted.image_id]):
        gt = np.flatnonzero(truth.image_id == image)
        dt = np.flatnonzero((predicted.image_id == image) & (predicted.score >= score))
        dt = dt[np.argsort(-predicted.score[dt], kind="stable")]
        iou = geoiou.pairwise_iou(predicted.regions[0][dt], truth.regions[0][gt]) if len(gt) and len(dt) else None
        free, unmatched = np.ones(len(gt), bool), []
        for i, d in enumerate(dt):  # COCO: the best free same-category object, the last of equal overlaps
            best, chosen = min(threshold, 1 - 1e-10), -1
            for j, g in enumerate(gt):
                same = truth.category_id[g] == predicted.category_id[d]
                if same and free[j] and iou[i, j] >= best:
                    best, chosen = iou[i, j], j
            if chosen >= 0:
                free[chosen] = False
                counts[predicted.category_id[d], predicted.category_id[d]] += 1
            else:
                unmatched.append(i)
        for i in unmatched:  # another category's free object, the first of equal overlaps
            d, best, chosen = dt[i], -1.0, -1
            for j, g in enumerate(gt):
                other = truth.category_id[g] != predicted.category_id[d]
                if other and free[j] and iou[i, j] >= min(threshold, 1 - 1e-10) and iou[i, j] > best:
                    best, chosen = iou[i, j], j
            if chosen >= 0:
                free[chosen] = False
            row = truth.category_id[gt[chosen]] if chosen >= 0 else n
            counts[row, predicted.category_id[d]] += 1
        for j in np.flatnonzero(free):
            counts[truth.category_id[gt[j]], n] += 1
    return counts


@pytest.mark.parametrize(("seed", "threshold", "score"), [(0, 0.5, 0.0), (1, 0.3, 0.4), (2, 0.75, 0.2)])
def test_confusion_matrix_equals_its_definition_computed_by_brute_force(seed, threshold, score):
    truth, predicted, diagnostics = scene(seed)
    confusion = diagnostics.confusion_matrix(threshold, score)
    np.testing.assert_array_equal(confusion.counts, brute_confusion(truth, predicted, threshold, score))


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), score=st.floats(0, 1))
def test_confusion_rows_sum_to_the_objects_and_columns_to_the_predictions(seed, score):
    truth, predicted, diagnostics = scene(seed, n_images=6)
    counts = diagnostics.confusion_matrix(0.5, score).counts
    assert counts[:-1].sum(axis=1).tolist() == np.bincount(truth.category_id, minlength=4).tolist()
    kept = predicted.score >= score
    assert counts[:, :-1].sum(axis=0).tolist() == np.bincount(predicted.category_id[kept], minlength=4).tolist()
    true_positives = diagnostics.result.matches.true_positive[1] & kept
    assert np.trace(counts[:-1, :-1]) == true_positives.sum()  # the diagonal is the AP's true positives
    assert counts[-1, -1] == 0
    rows = diagnostics.confusion_matrix(0.5, score).normalized("truth")
    assert np.allclose(np.nansum(rows, axis=1)[counts.sum(axis=1) > 0], 1.0)


# --------------------------------------------------------------------------- calibration and F-beta
def counted_predictions(diagnostics, k):
    """(score, right, category) of every evaluated prediction that counts, from the evaluation's matches."""
    matches = diagnostics.result.matches
    counted = matches.evaluated & ~matches.ignored[k]
    return counted


def test_calibration_equals_the_definition():
    truth, predicted, diagnostics = scene(3, n_images=20)
    counted = counted_predictions(diagnostics, 1)
    scores, right = predicted.score[counted], diagnostics.result.matches.true_positive[1][counted]
    calibration = diagnostics.calibration(0.5, bins=7)
    ece, mce = 0.0, 0.0
    for b in range(7):
        inside = [(s, r) for s, r in zip(scores, right) if b / 7 <= s < (b + 1) / 7 or (b == 6 and s == 1)]
        assert calibration.count[b] == len(inside)
        if inside:
            gap = abs(sum(r for _, r in inside) / len(inside) - sum(s for s, _ in inside) / len(inside))
            ece += len(inside) / len(scores) * gap
            mce = max(mce, gap)
    assert calibration.ece == pytest.approx(ece, abs=1e-12)
    assert calibration.mce == pytest.approx(mce, abs=1e-12)
    with pytest.raises(InvalidArgumentError, match="'bins' must be a positive integer"):
        diagnostics.calibration(0.5, bins=0)


def test_calibration_refuses_scores_that_are_not_probabilities():
    truth = Annotations(image_id=1, category_id=1, region=geoiou.Box([[0, 0, 4, 4]]))
    predicted = Annotations(image_id=1, category_id=1, score=[3.5], region=geoiou.Box([[0, 0, 4, 4]]))
    with pytest.raises(InvalidArgumentError, match=r"'predictions.score' must be probabilities in \[0, 1\]"):
        diagnose(truth, predicted).calibration()


def test_f_beta_equals_the_definition_at_every_score():
    truth, predicted, diagnostics = scene(4, n_images=20)
    counted = counted_predictions(diagnostics, 1)
    right = diagnostics.result.matches.true_positive[1]
    result = diagnostics.f_beta(0.5, beta=2.0)
    for category in CATEGORIES:
        mine = counted & (predicted.category_id == category)
        positives = int((truth.category_id == category).sum())
        curve = result.curves[category]
        assert curve.threshold.tolist() == sorted(set(predicted.score[mine].tolist()), reverse=True)
        for s, precision, recall, f in zip(curve.threshold, curve.precision, curve.recall, curve.f):
            kept = mine & (predicted.score >= s)
            hits = int((right & kept).sum())
            assert precision == hits / kept.sum() and recall == hits / positives
            expected = 0.0 if hits == 0 else 5 * precision * recall / (4 * precision + recall)
            assert f == pytest.approx(expected, abs=1e-12)
        best = result.best()[category]
        assert best["f"] == max(curve.f) and best["threshold"] == curve.threshold[int(np.argmax(curve.f))]


# --------------------------------------------------------------------------- slices and images
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), chosen=st.lists(st.integers(0, 11), min_size=1, max_size=12, unique=True))
def test_slices_are_the_evaluation_of_those_images_and_all_images_are_the_whole(seed, chosen):
    truth, predicted, diagnostics = scene(seed)
    sliced = diagnostics.slices({"some": chosen, "all": list(range(12))})
    for name in ("precision", "recall", "scores"):
        np.testing.assert_array_equal(getattr(sliced["all"], name), getattr(diagnostics.result, name))
    alone = evaluate_coco(
        truth.take(np.isin(truth.image_id, chosen)),
        predicted.take(np.isin(predicted.image_id, chosen)),
        images=sorted(chosen),
        categories=CATEGORIES,
        iou_thresholds=[0.3, 0.5, 0.75],
    )
    np.testing.assert_array_equal(sliced["some"].precision, alone.precision)


def test_slices_refuse_unknown_images_naming_the_slice():
    _, _, diagnostics = scene(5)
    with pytest.raises(InvalidArgumentError, match=r"'slices\[\"night\"\]' must be ids of the evaluation's images"):
        diagnostics.slices({"night": [99]})


def test_per_image_f1_and_ap_equal_each_image_evaluated_alone():
    truth, predicted, diagnostics = scene(6)
    scores = diagnostics.per_image(0.5)
    for i, image in enumerate(scores.image_ids.tolist()):
        gt, dt = truth.image_id == image, predicted.image_id == image
        if not gt.any():
            assert math.isnan(scores.ap[i])
            continue
        alone = evaluate_coco(truth.take(gt), predicted.take(dt), categories=CATEGORIES, iou_thresholds=[0.5])
        assert scores.ap[i] == pytest.approx(alone["AP"], abs=1e-12)
        hits = int((diagnostics.result.matches.true_positive[1] & dt).sum())
        false = int(dt.sum()) - hits
        assert scores.f1[i] == pytest.approx(2 * hits / (2 * hits + false + (gt.sum() - hits)))
    worst = scores.worst(3)
    assert [scores.f1[scores.image_ids.tolist().index(image)] for image in worst] == sorted(
        np.nan_to_num(scores.f1, nan=9)
    )[:3]


# --------------------------------------------------------------------------- label errors
def test_label_errors_are_confident_false_positives_on_another_category_or_on_nothing():
    truth, predicted, diagnostics = scene(7, n_images=20)
    records = diagnostics.label_errors(0.5, 0.1, min_score=0.3).to_records()
    assert records and [r["score"] for r in records] == sorted((r["score"] for r in records), reverse=True)
    for record in records:
        row = record["prediction_row"]
        assert not diagnostics.result.matches.true_positive[1][row] and record["score"] >= 0.3
        region = predicted.take([row]).regions[0]
        overlaps = geoiou.pairwise_iou(region, truth.take(truth.image_id == record["image_id"]).regions[0])[0]
        if record["kind"] == "wrong category":
            assert record["truth_category_id"] != record["category_id"]
            assert record["iou"] == pytest.approx(overlaps.max() if overlaps.size else 0.0) or record["iou"] >= 0.5
        else:
            assert (overlaps < 0.1).all() and record["truth_row"] is None


# --------------------------------------------------------------------------- comparison
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), scene_seed=st.integers(0, 3))
def test_a_coco_resample_in_the_accumulations_order_is_the_selection_of_the_same_images(seed, scene_seed):
    """`CocoProtocol.resampled` hands the rows over sorted (each image's block of rows copied whole): the same rows
    with the same keys as `select`, so the same arrays, for any draw (images left out, drawn several times)."""
    from geoiou.diagnostics.accumulate import select

    _, _, diagnostics = scene(scene_seed)
    n_images = len(diagnostics.table.image_ids)
    weight = np.bincount(np.random.default_rng(seed).integers(0, n_images, n_images), minlength=n_images)
    fast, plain = diagnostics.protocol.resampled(weight), diagnostics.protocol.result(select(diagnostics.table, weight))
    for name in ("precision", "recall", "scores"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(plain, name), err_msg=name)


def test_comparison_is_seeded_paired_and_refuses_another_ground_truth():
    truth, predicted, first = scene(8)
    kept = np.sort(np.argsort(predicted.score)[len(predicted) // 4 :])  # the least confident quarter left out
    evaluation = CocoEvaluation(categories=CATEGORIES, iou_thresholds=[0.3, 0.5, 0.75])
    second = diagnose(truth, predicted.take(kept), evaluation=evaluation, images=range(12))
    one, again = compare(first, second, resamples=60, seed=3), compare(first, second, resamples=60, seed=3)
    assert one.to_dict() == again.to_dict()  # NaN (a number without ground truth) as None
    assert one.metrics["AP"].difference == second.result["AP"] - first.result["AP"]
    same = compare(first, first, resamples=30, seed=1)
    assert all(
        d.difference == 0 and d.low == 0 and d.high == 0 for d in same.metrics.values() if not math.isnan(d.first)
    )
    _, _, other = scene(9)
    with pytest.raises(InvalidArgumentError, match="'second' must be an evaluation of the same ground truth"):
        compare(first, other, resamples=5)
    with pytest.raises(InvalidArgumentError, match="'resamples' must be a positive integer"):
        compare(first, first, resamples=0)
