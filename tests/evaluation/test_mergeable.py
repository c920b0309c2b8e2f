"""Mergeable evaluation states: parts split by image (or video, or sample) give the one-shot result, bit for bit.

Every evaluation is one ``update`` and one ``compute`` when run in one shot, so these tests hold
the split runs equal to it: the arrays behind the summary numbers with ``np.array_equal`` (not to
a tolerance), the per-object matches row for row. Datasets have several categories (one only
predicted in some parts, one with ground truth in one part only), crowd and ignored regions,
images without ground truth, tied scores across images, and duplicated objects.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import geoiou
from geoiou.evaluation import (
    ActionSegmentationEvaluation,
    AgreementEvaluation,
    Annotations,
    CocoEvaluation,
    ConfusionMatrix,
    JaccardEvaluation,
    TemporalDetectionEvaluation,
    TemporalSegments,
    VocEvaluation,
    evaluate_action_segmentation,
    evaluate_agreement,
    evaluate_coco,
    evaluate_temporal_detection,
    evaluate_voc,
    jaccard,
    merge_states,
    semantic_iou,
)
from geoiou.errors import InvalidArgumentError


# --------------------------------------------------------------------------- data
def detection_set(seed: int, n_images: int = 24, *, crowd: bool = True) -> tuple[Annotations, Annotations, list[int]]:
    """Ground truth and predictions on `n_images` images, rows grouped by image (so parts keep input order)."""
    rng = np.random.default_rng(seed)
    truth_rows, pred_rows = [], []
    for image in range(n_images):
        n_truth = 0 if image % 5 == 4 else int(rng.integers(1 if image == 3 else 0, 6))
        boxes = np.c_[rng.uniform(0, 80, (n_truth, 2)), rng.uniform(4, 40, (n_truth, 2))]
        boxes[:, 2:] += boxes[:, :2]
        categories = rng.integers(1, 4, n_truth)
        if image == 3:
            categories[:] = 9  # category 9 has ground truth in one image only
        for box, category in zip(boxes, categories):
            flags = (bool(crowd and rng.random() < 0.08), bool(rng.random() < 0.08))
            truth_rows.append((image, int(category), box, *flags))
            for _ in range(int(rng.integers(0, 3))):  # hits, near misses and duplicates
                jitter = box + rng.normal(0, 3, 4)
                jitter[2:] = np.maximum(jitter[2:], jitter[:2] + 1)
                pred_rows.append((image, int(category), jitter, float(rng.choice([0.9, 0.5, rng.random()]))))
        for _ in range(int(rng.integers(0, 3))):  # false positives, also of category 9 on other images
            corner = rng.uniform(0, 80, 2)
            pred_rows.append(
                (
                    image,
                    int(rng.choice([1, 2, 3, 9])),
                    np.r_[corner, corner + rng.uniform(4, 30, 2)],
                    float(rng.choice([0.9, rng.random()])),
                )
            )
    truth = Annotations(
        image_id=[r[0] for r in truth_rows],
        category_id=[r[1] for r in truth_rows],
        region=geoiou.Box(np.array([r[2] for r in truth_rows]).reshape(-1, 4)),
        iscrowd=[r[3] for r in truth_rows],
        ignore=[r[4] for r in truth_rows],
    )
    predictions = Annotations(
        image_id=[r[0] for r in pred_rows],
        category_id=[r[1] for r in pred_rows],
        region=geoiou.Box(np.array([r[2] for r in pred_rows]).reshape(-1, 4)),
        score=[r[3] for r in pred_rows],
    )
    return truth, predictions, list(range(n_images))


def image_parts(n_images: int, n_parts: int, seed: int) -> list[np.ndarray]:
    """Contiguous runs of images (some empty of ground truth), cut at random places."""
    cuts = np.sort(np.random.default_rng(seed).choice(np.arange(1, n_images), n_parts - 1, replace=False))
    return np.split(np.arange(n_images), cuts)


def assert_same_matches(split, whole) -> None:
    for name in ("prediction_match", "prediction_iou", "true_positive", "ignored", "evaluated", "truth_match"):
        np.testing.assert_array_equal(getattr(split.matches, name), getattr(whole.matches, name), err_msg=name)


# --------------------------------------------------------------------------- detection
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), n_parts=st.integers(2, 6))
def test_coco_over_parts_equals_one_call_bit_for_bit(seed, n_parts):
    truth, predictions, images = detection_set(seed)
    whole = evaluate_coco(truth, predictions, images=images)
    states = []
    for part in image_parts(len(images), n_parts, seed):
        state = CocoEvaluation()
        state.update(
            truth.take(np.isin(truth.image_id, part)),
            predictions.take(np.isin(predictions.image_id, part)),
            images=part.tolist(),
        )
        states.append(pickle.loads(pickle.dumps(state)))  # as a worker would send it
    split = merge_states(states).compute()
    for name in ("precision", "recall", "scores"):
        np.testing.assert_array_equal(getattr(split, name), getattr(whole, name), err_msg=name)
    np.testing.assert_array_equal(split.categories, whole.categories)
    assert split.num_images == whole.num_images == len(images)
    assert_same_matches(split, whole)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), n_parts=st.integers(2, 6), interpolation=st.sampled_from(["all", "11point"]))
def test_voc_over_parts_equals_one_call_bit_for_bit(seed, n_parts, interpolation):
    truth, predictions, images = detection_set(seed, crowd=False)
    whole = evaluate_voc(truth, predictions, images=images, interpolation=interpolation)
    merged = VocEvaluation(interpolation=interpolation)
    for part in image_parts(len(images), n_parts, seed):
        merged = merged.merge(
            VocEvaluation(interpolation=interpolation).update(
                truth.take(np.isin(truth.image_id, part)),
                predictions.take(np.isin(predictions.image_id, part)),
                images=part.tolist(),
            )
        )
    split = merged.compute()
    np.testing.assert_array_equal(split.ap, whole.ap)
    np.testing.assert_array_equal(split.num_ground_truths, whole.num_ground_truths)
    np.testing.assert_array_equal(split.num_detections, whole.num_detections)
    for a, b in zip(split.precision + split.recall, whole.precision + whole.recall):
        np.testing.assert_array_equal(a, b)
    assert_same_matches(split, whole)


def test_a_training_loop_updates_once_per_image():
    truth, predictions, images = detection_set(7)
    state = CocoEvaluation(max_detections=(1, 5, 20))
    for image in images:
        state.update(
            truth.take(truth.image_id == image), predictions.take(predictions.image_id == image), images=[image]
        )
    whole = evaluate_coco(truth, predictions, images=images, max_detections=(1, 5, 20))
    assert state.num_parts == len(images)
    np.testing.assert_array_equal(state.compute().precision, whole.precision)


def test_an_image_in_two_parts_is_refused_by_name():
    truth, predictions, _ = detection_set(3)
    first = CocoEvaluation().update(
        truth.take(truth.image_id < 10), predictions.take(predictions.image_id < 10), images=range(10)
    )
    second = CocoEvaluation().update(
        truth.take(truth.image_id >= 9), predictions.take(predictions.image_id >= 9), images=range(9, 24)
    )
    with pytest.raises(InvalidArgumentError, match=r"'parts' must be parts split by image.*image 9 in 2 parts"):
        first.merge(second).compute()


def test_a_category_without_ground_truth_in_any_part_is_refused_naming_the_part_and_row():
    box = geoiou.Box([[0, 0, 4, 4]])
    first = CocoEvaluation().update(
        Annotations(image_id=1, category_id=[1], region=box),
        Annotations(image_id=1, category_id=[1], region=box, score=[1.0]),
    )
    second = CocoEvaluation().update(
        Annotations(image_id=2, category_id=[1], region=box),
        Annotations(image_id=2, category_id=[7], region=box, score=[1.0]),
    )
    with pytest.raises(InvalidArgumentError, match=r"categories of the ground truth.*7 at row 0 of part 1"):
        first.merge(second).compute()
    # The same prediction is a false positive of category 7 once another part has its ground truth.
    third = CocoEvaluation().update(
        Annotations(image_id=3, category_id=[7], region=box),
        Annotations(image_id=3, category_id=[7], region=box, score=[0.5]),
    )
    result = first.merge(second, third).compute()
    assert result.categories.tolist() == [1, 7]
    # Its false positive (score 1.0, image 2) ranks above its hit (0.5, image 3): precision 1/2 at recall 1.
    assert result.per_category()[7]["AP50"] == 0.5


def test_states_of_different_settings_or_kinds_do_not_merge():
    # The message names the one setting that differs (issue 24, item 7), not all of them.
    with pytest.raises(
        InvalidArgumentError,
        match=r"'others\[0\]' must be a CocoEvaluation with this state's "
        r"max_detections=\(1, 10, 100\) \(got 'max_detections=\(1, 10\)'\)",
    ):
        CocoEvaluation().merge(CocoEvaluation(max_detections=(1, 10)))
    with pytest.raises(InvalidArgumentError, match=r"'others\[0\]' must be a CocoEvaluation"):
        CocoEvaluation().merge(VocEvaluation())
    with pytest.raises(InvalidArgumentError, match=r"'states' must be at least one state"):
        merge_states([])


def test_parts_with_ids_of_two_types_are_refused():
    box = geoiou.Box([[0, 0, 4, 4]])
    first = VocEvaluation().update(
        Annotations(image_id=1, category_id=[1], region=box),
        Annotations(image_id=1, category_id=[1], region=box, score=[1.0]),
    )
    second = VocEvaluation().update(
        Annotations(image_id="b", category_id=[1], region=box),
        Annotations(image_id="b", category_id=[1], region=box, score=[1.0]),
    )
    with pytest.raises(InvalidArgumentError, match="image ids of one type in every part"):
        first.merge(second).compute()


def test_a_state_holds_no_regions_and_is_small():
    truth, predictions, images = detection_set(11, n_images=200)
    state = CocoEvaluation().update(truth, predictions, images=images)
    # Per prediction: [T, A] flags twice, rank, score, ids and the per-object matches; no boxes.
    per_prediction = len(pickle.dumps(state)) / len(predictions)
    assert per_prediction < 400
    assert not any(isinstance(v, geoiou.Region) for v in vars(state._parts[0]).values())


# --------------------------------------------------------------------------- temporal, segmentation, others
def temporal_set(seed: int, n_videos: int = 12) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    truth, predictions = {}, {}
    for video in range(n_videos):
        starts = rng.uniform(0, 100, int(rng.integers(1, 5)))
        truth[f"v{video}"] = [(s, s + rng.uniform(1, 20), str(rng.choice(["a", "b", "c"]))) for s in starts]
        predictions[f"v{video}"] = [
            (begin, begin + rng.uniform(1, 20), label, float(rng.choice([0.5, rng.random()])))
            for s, _, label in truth[f"v{video}"]
            for _ in range(int(rng.integers(0, 3)))
            for begin in [s + rng.normal(0, 2)]
        ]
    return truth, predictions


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), n_parts=st.integers(2, 5))
def test_temporal_detection_over_parts_equals_one_call(seed, n_parts):
    truth, predictions = temporal_set(seed)
    whole = evaluate_temporal_detection(truth, predictions)
    videos = list(truth)
    states = [
        TemporalDetectionEvaluation().update(
            {v: truth[v] for v in videos[part[0] : part[-1] + 1]},
            {v: predictions[v] for v in videos[part[0] : part[-1] + 1]},
        )
        for part in image_parts(len(videos), n_parts, seed)
    ]
    split = merge_states(states).compute()
    np.testing.assert_array_equal(split.ap, whole.ap)
    assert split.labels == whole.labels and split.num_videos == whole.num_videos
    assert_same_matches(split, whole)


def test_temporal_parts_sharing_a_video_are_refused():
    first = TemporalDetectionEvaluation().update({"v": [(0, 1, "a")]}, {"v": []})
    with pytest.raises(InvalidArgumentError, match="video 'v' in two parts"):
        first.merge(TemporalDetectionEvaluation().update({"v": [(0, 1, "a")]}, {"v": []})).compute()


def test_action_segmentation_over_parts_equals_one_call():
    rng = np.random.default_rng(5)
    truth = {f"v{i}": np.repeat(rng.integers(0, 4, 8), rng.integers(1, 9, 8)) for i in range(9)}
    predicted = {
        video: np.where(rng.random(len(labels)) < 0.2, rng.integers(0, 4, len(labels)), labels)
        for video, labels in truth.items()
    }
    whole = evaluate_action_segmentation(truth, predicted, background=0)
    videos = list(truth)
    state = ActionSegmentationEvaluation(background=0)
    for part in (videos[:2], videos[2:7], videos[7:]):
        state = state.merge(
            ActionSegmentationEvaluation(background=0).update(
                {v: truth[v] for v in part}, {v: predicted[v] for v in part}
            )
        )
    split = state.compute()
    assert (split.accuracy, split.edit, split.videos) == (whole.accuracy, whole.edit, whole.videos)
    np.testing.assert_array_equal(split.counts, whole.counts)
    np.testing.assert_array_equal(split.f1, whole.f1)
    np.testing.assert_array_equal(split.edit_per_video, whole.edit_per_video)


@pytest.mark.parametrize("average", [None, "micro", "macro", "samples", "weighted"])
def test_jaccard_over_parts_equals_one_call(average):
    rng = np.random.default_rng(2)
    truth, predicted = rng.random((40, 6)) < 0.3, rng.random((40, 6)) < 0.3
    whole = jaccard(truth, predicted, average=average, zero_division=0.0)
    state = JaccardEvaluation(average=average, zero_division=0.0)
    for rows in np.split(np.arange(40), [7, 8, 30]):
        state.update(truth[rows], predicted[rows])
    np.testing.assert_array_equal(state.compute(), whole)


def test_jaccard_parts_of_different_classes_are_refused():
    state = JaccardEvaluation().update([[1, 0]], [[1, 0]])
    with pytest.raises(InvalidArgumentError, match="'y_true' must be 2 classes like the parts before"):
        state.update([[1, 0, 1]], [[1, 0, 1]])


def test_agreement_over_parts_equals_one_call():
    truth, predictions, images = detection_set(9, crowd=False)
    whole = evaluate_agreement(truth, predictions, method="optimal")
    state = AgreementEvaluation(method="optimal")
    for part in image_parts(len(images), 4, 9):
        state.update(truth.take(np.isin(truth.image_id, part)), predictions.take(np.isin(predictions.image_id, part)))
    split = state.compute()
    for name in ("index_a", "index_b", "iou", "unmatched_a", "unmatched_b"):
        np.testing.assert_array_equal(getattr(split.matching, name), getattr(whole.matching, name))
    assert split.to_json(pairs=True) == whole.to_json(pairs=True)  # JSON: NaN ratios of empty images compare equal


def test_agreement_of_temporal_segments_over_parts():
    truth, predictions = temporal_set(4)
    as_segments = {
        name: TemporalSegments.from_records({v: [r[:3] for r in rows] for v, rows in side.items()})
        for name, side in (("a", truth), ("b", predictions))
    }
    whole = evaluate_agreement(as_segments["a"], as_segments["b"])
    state = AgreementEvaluation()
    for videos in (list(truth)[:5], list(truth)[5:]):
        state.update(
            *(
                TemporalSegments.from_records({v: [r[:3] for r in side[v]] for v in videos})
                for side in (truth, predictions)
            )
        )
    assert state.compute().overall() == whole.overall()


def test_confusion_matrix_merges_several_and_starts_empty():
    rng = np.random.default_rng(0)
    maps = [(rng.integers(0, 3, (4, 5)), rng.integers(0, 3, (4, 5))) for _ in range(3)]
    parts = [ConfusionMatrix(3).update(*pair) for pair in maps]
    merged = merge_states(parts)
    assert merged.compute().miou == semantic_iou([t for t, _ in maps], [p for _, p in maps], 3).miou
    assert parts[0].empty().total == 0


def test_the_zero_division_warning_names_the_callers_line_both_ways():
    with pytest.warns(UserWarning) as one_call:
        jaccard([[1, 0]], [[1, 0]], average="macro")
    with pytest.warns(UserWarning) as in_parts:
        JaccardEvaluation(average="macro").update([[1, 0]], [[1, 0]]).compute()
    assert {record.filename for record in [*one_call, *in_parts]} == {__file__}
