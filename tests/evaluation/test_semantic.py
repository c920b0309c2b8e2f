"""Semantic-segmentation scores: hand-computed confusion matrices, scikit-learn, accumulation, merge."""

import json
import math

import numpy as np
import pytest

from geoiou import InvalidArgumentError
from geoiou.evaluation.semantic import ConfusionMatrix, SemanticSegmentationResult, semantic_iou

NAN = math.nan


# ---------------------------------------------------------------- golden, computed by hand


def test_golden_three_classes():
    target = [[0, 0, 1], [1, 2, 2]]
    prediction = [[0, 1, 1], [1, 2, 0]]
    # pixel pairs (t, p): (0,0) (0,1) (1,1) (1,1) (2,2) (2,0)
    cm = ConfusionMatrix(3).update(target, prediction)
    np.testing.assert_array_equal(
        cm.matrix,
        [
            [1, 1, 0],  # class 0: 1 right, 1 taken for class 1
            [0, 2, 0],  # class 1: both right
            [1, 0, 1],
        ],
    )  # class 2: 1 right, 1 taken for class 0
    scores = cm.compute()
    # IoU = TP / (row + column - TP): 1/(2+2-1), 2/(2+3-2), 1/(2+1-1)
    np.testing.assert_allclose(scores.iou, [1 / 3, 2 / 3, 1 / 2])
    assert scores.miou == pytest.approx((1 / 3 + 2 / 3 + 1 / 2) / 3)  # 0.5
    assert scores.fwiou == pytest.approx(2 / 6 * (1 / 3 + 2 / 3 + 1 / 2))  # every support is 2 of 6
    assert scores.pixel_accuracy == pytest.approx(4 / 6)  # trace / total
    np.testing.assert_allclose(scores.class_accuracy, [1 / 2, 1, 1 / 2])  # TP / row
    assert scores.mean_class_accuracy == pytest.approx(2 / 3)
    np.testing.assert_array_equal(scores.support, [2, 2, 2])


def _ignore_and_absent_scores(zero_division=NAN):
    target = [[0, 0, 0, 255], [1, 1, 255, 0]]
    prediction = [
        [0, 0, 1, 3],  # the 3 sits on an ignored pixel: skipped
        [1, 0, 2, 0],
    ]  # so does the 2
    # counted pairs: (0,0) (0,0) (0,1) (1,1) (1,0) (0,0); classes 2 and 3 never counted
    cm = ConfusionMatrix(4, ignore_index=255).update(target, prediction)
    np.testing.assert_array_equal(cm.matrix, [[3, 1, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    assert cm.total == 6
    return cm.compute(zero_division=zero_division)


def test_golden_ignore_index_and_absent_classes_are_nan_and_left_out():
    scores = _ignore_and_absent_scores()
    # class 0: 3 / (4 + 4 - 3); class 1: 1 / (2 + 2 - 1); classes 2, 3: 0/0
    np.testing.assert_allclose(scores.iou, [3 / 5, 1 / 3, NAN, NAN])
    assert scores.miou == pytest.approx((3 / 5 + 1 / 3) / 2)  # NaN left out: 0.4667
    assert scores.fwiou == pytest.approx(4 / 6 * 3 / 5 + 2 / 6 * 1 / 3)  # 0.5111
    assert scores.pixel_accuracy == pytest.approx(4 / 6)
    np.testing.assert_allclose(scores.class_accuracy, [3 / 4, 1 / 2, NAN, NAN])
    assert scores.mean_class_accuracy == pytest.approx(0.625)


@pytest.mark.parametrize(
    ("zero_division", "miou", "mean_accuracy"),
    [
        (0.0, (3 / 5 + 1 / 3) / 4, (3 / 4 + 1 / 2) / 4),  # absent classes count as misses
        (1.0, (3 / 5 + 1 / 3 + 2) / 4, (3 / 4 + 1 / 2 + 2) / 4),  # ... or as hits
    ],
)
def test_zero_division_policies_count_absent_classes(zero_division, miou, mean_accuracy):
    scores = _ignore_and_absent_scores(zero_division)
    np.testing.assert_allclose(scores.iou, [3 / 5, 1 / 3, zero_division, zero_division])
    assert scores.miou == pytest.approx(miou)
    assert scores.mean_class_accuracy == pytest.approx(mean_accuracy)
    assert scores.fwiou == pytest.approx(4 / 6 * 3 / 5 + 2 / 6 * 1 / 3)  # absent classes weigh 0


def test_class_only_predicted_has_iou_zero_and_undefined_accuracy():
    scores = ConfusionMatrix(2).update([0, 0], [0, 1]).compute()
    # class 1: TP 0, no ground truth, 1 false positive -> IoU 0/1 = 0, accuracy 0/0
    np.testing.assert_allclose(scores.iou, [1 / 2, 0.0])
    np.testing.assert_allclose(scores.class_accuracy, [1 / 2, NAN])
    assert scores.miou == pytest.approx(0.25)
    assert scores.mean_class_accuracy == pytest.approx(0.5)


def test_nothing_counted_gives_nan_or_zero_division_everywhere():
    scores = ConfusionMatrix(3, ignore_index=255).update([255, 255], [0, 1]).compute()
    assert all(math.isnan(v) for v in (scores.miou, scores.fwiou, scores.pixel_accuracy, scores.mean_class_accuracy))
    ones = ConfusionMatrix(3).compute(zero_division=1.0)
    assert (ones.miou, ones.fwiou, ones.pixel_accuracy, ones.mean_class_accuracy) == (1.0, 1.0, 1.0, 1.0)


def test_perfect_prediction():
    labels = np.arange(12).reshape(3, 4) % 3
    scores = semantic_iou([labels], [labels], 3)
    assert (scores.miou, scores.fwiou, scores.pixel_accuracy, scores.mean_class_accuracy) == (1.0, 1.0, 1.0, 1.0)


# ---------------------------------------------------------------- scikit-learn


def _random_maps(rng, count, num_classes, ignore_index=255):
    """Label maps of varied shapes; class C-1 never appears, class C-2 only in predictions."""
    pairs = []
    for _ in range(count):
        shape = tuple(rng.integers(1, 30, size=2))
        target = rng.integers(0, num_classes - 2, size=shape).astype(np.uint8)
        target[rng.random(shape) < 0.1] = ignore_index
        prediction = rng.integers(0, num_classes - 1, size=shape).astype(np.uint8)
        pairs.append((target, prediction))
    return pairs


@pytest.mark.parametrize("seed", range(5))
def test_matches_sklearn(seed):
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(seed)
    num_classes = 6
    pairs = _random_maps(rng, 8, num_classes)
    t = np.concatenate([target.ravel() for target, _ in pairs])
    p = np.concatenate([prediction.ravel() for _, prediction in pairs])
    t, p = t[t != 255], p[t != 255]
    labels = list(range(num_classes))

    cm = ConfusionMatrix(num_classes, ignore_index=255)
    for target, prediction in pairs:
        cm.update(target, prediction)
    np.testing.assert_array_equal(cm.matrix, metrics.confusion_matrix(t, p, labels=labels))

    zeros = cm.compute(zero_division=0.0)
    np.testing.assert_allclose(zeros.iou, metrics.jaccard_score(t, p, labels=labels, average=None, zero_division=0))
    assert zeros.miou == pytest.approx(metrics.jaccard_score(t, p, labels=labels, average="macro", zero_division=0))
    present = sorted(set(t) | set(p))  # the NaN policy: absent classes left out of the mean
    assert cm.compute().miou == pytest.approx(metrics.jaccard_score(t, p, labels=present, average="macro"))
    assert zeros.fwiou == pytest.approx(metrics.jaccard_score(t, p, labels=labels, average="weighted", zero_division=0))
    assert zeros.pixel_accuracy == pytest.approx(metrics.accuracy_score(t, p))

    nans = cm.compute()
    recall = metrics.recall_score(t, p, labels=labels, average=None, zero_division=np.nan)
    np.testing.assert_allclose(nans.class_accuracy, recall)
    assert nans.mean_class_accuracy == pytest.approx(
        metrics.recall_score(t, p, labels=labels, average="macro", zero_division=np.nan)
    )


# ---------------------------------------------------------------- accumulation and merge


def test_accumulating_images_equals_one_big_concatenation():
    pairs = _random_maps(np.random.default_rng(7), 12, 5)
    one_by_one = semantic_iou((t for t, _ in pairs), (p for _, p in pairs), 5, ignore_index=255)
    big_t = np.concatenate([t.ravel() for t, _ in pairs])
    big_p = np.concatenate([p.ravel() for _, p in pairs])
    at_once = semantic_iou(big_t, big_p, 5, ignore_index=255)  # two arrays: one pair
    np.testing.assert_array_equal(one_by_one.confusion_matrix, at_once.confusion_matrix)
    np.testing.assert_array_equal(one_by_one.iou, at_once.iou)
    assert one_by_one.miou == at_once.miou


def test_merge_equals_sequential_update_and_leaves_inputs_alone():
    pairs = _random_maps(np.random.default_rng(8), 10, 5)
    sequential, first, second = (ConfusionMatrix(5, ignore_index=255) for _ in range(3))
    for i, (target, prediction) in enumerate(pairs):
        sequential.update(target, prediction)
        (first if i % 2 else second).update(target, prediction)
    before = first.matrix
    merged = first.merge(second)
    np.testing.assert_array_equal(merged.matrix, sequential.matrix)
    np.testing.assert_array_equal(first.matrix, before)
    assert merged.total == first.total + second.total


def test_batched_array_counts_like_its_images():
    rng = np.random.default_rng(9)
    targets, predictions = rng.integers(0, 4, (3, 5, 6)), rng.integers(0, 4, (3, 5, 6))
    batch = semantic_iou(targets, predictions, 4)
    images = semantic_iou(list(targets), list(predictions), 4)
    np.testing.assert_array_equal(batch.confusion_matrix, images.confusion_matrix)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint16, np.int32, np.int64, np.uint64])
def test_every_integer_dtype_counts_the_same(dtype):
    rng = np.random.default_rng(10)
    target, prediction = rng.integers(0, 3, (6, 7)), rng.integers(0, 3, (6, 7))
    expected = ConfusionMatrix(3).update(target, prediction).matrix
    np.testing.assert_array_equal(
        ConfusionMatrix(3).update(target.astype(dtype), prediction.astype(dtype)).matrix, expected
    )


def test_boolean_maps_are_labels_zero_and_one():
    cm = ConfusionMatrix(2).update(np.array([True, False, True]), np.array([True, True, False]))
    np.testing.assert_array_equal(cm.matrix, [[0, 1], [1, 1]])


def test_negative_ignore_index_with_unsigned_labels_never_matches():
    cm = ConfusionMatrix(2, ignore_index=-1).update(np.array([0, 1], np.uint8), np.array([1, 1], np.uint8))
    assert cm.total == 2


def test_predictions_on_ignored_pixels_are_not_checked():
    cm = ConfusionMatrix(2, ignore_index=255).update([255, 0], [255, 0])
    np.testing.assert_array_equal(cm.matrix, [[1, 0], [0, 0]])


# ---------------------------------------------------------------- results


def test_summary_and_to_dict():
    scores = _ignore_and_absent_scores()
    named = SemanticSegmentationResult(scores.confusion_matrix, class_names=["road", "car", "sky", "boat"])
    text = named.summary(digits=3)
    assert text.splitlines()[1].split() == ["road", "0.600", "0.750", "4"]
    assert text.splitlines()[3].split() == ["sky", "nan", "nan", "0"]
    assert "mIoU 0.467" in text
    data = named.to_dict()
    assert data["class_names"] == ["road", "car", "sky", "boat"]
    assert data["confusion_matrix"][0] == [3, 1, 0, 0]
    assert data["miou"] == pytest.approx(0.4666666)
    json.dumps(data)  # plain Python values only


def test_results_are_read_only():
    scores = ConfusionMatrix(2).update([0, 1], [0, 1]).compute()
    with pytest.raises(ValueError):
        scores.iou[0] = 0.0
    with pytest.raises(ValueError):
        scores.confusion_matrix[0, 0] = 5


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ConfusionMatrix(0), r"'num_classes' must be a positive integer \(got 0\)"),
        (lambda: ConfusionMatrix(2.0), r"'num_classes' must be a positive integer \(got 2.0\)"),
        (lambda: ConfusionMatrix(3, ignore_index=1), r"'ignore_index' must be None or an integer outside \[0, 3\)"),
        (
            lambda: ConfusionMatrix(2).update([0, 1], [0]),
            r"'prediction' must be an array of shape \(2,\) like 'target' "
            r"\(got 'shape \(1,\)'\)",
        ),
        (
            lambda: ConfusionMatrix(2).update([[0.0, 1.0]], [[0, 1]]),
            r"'target' must be an array of integer labels "
            r"\(got 'dtype float64'\)",
        ),
        (
            lambda: ConfusionMatrix(2).update([0, 1], np.array([0, 1], np.float32)),
            r"'prediction' must be an array of integer",
        ),
        (
            lambda: ConfusionMatrix(2, ignore_index=255).update([[0, 1], [2, 255]], [[0, 0], [0, 0]]),
            r"'target' must be labels in \[0, 2\) or 255 \(got '2 at index \(1, 0\)'\)",
        ),
        (lambda: ConfusionMatrix(2).update([0, -1], [0, 0]), r"'target' must be labels in \[0, 2\) \(got '-1 at index"),
        (
            lambda: ConfusionMatrix(2, ignore_index=255).update([0, 1], [0, 255]),
            r"'prediction' must be labels in \[0, 2\) where the target is counted \(got '255 at index \(1,\)'\)",
        ),
        (
            lambda: ConfusionMatrix(2).update([[0, 1], [0]], [[0, 1], [0]]),
            r"'target' must be an array of integer labels "
            r"\(got 'a ragged sequence'\)",
        ),
        (
            lambda: ConfusionMatrix(2, ignore_index=255).update([[255, 0], [0, -3]], [[0, 0], [0, 0]]),
            r"'target' must be labels in \[0, 2\) or 255 \(got '-3 at index \(1, 1\)'\)",
        ),
        (
            lambda: ConfusionMatrix(2).update(np.array([0, 2**63], np.uint64), np.array([0, 0], np.uint64)),
            r"'target' must be labels in \[0, 2\) \(got '9223372036854775808 at index \(1,\)'\)",
        ),
        (lambda: ConfusionMatrix(2).merge(ConfusionMatrix(3)), r"'other' must be a ConfusionMatrix with num_classes=2"),
        (lambda: ConfusionMatrix(2).merge(ConfusionMatrix(2, ignore_index=255)), r"and ignore_index=None"),
        (lambda: ConfusionMatrix(2).compute(zero_division=2), r"'zero_division' must be NaN or a number in \[0, 1\]"),
        (lambda: ConfusionMatrix(2).compute(class_names=["a"]), r"'class_names' must be a sequence of 2 names"),
        (lambda: SemanticSegmentationResult([[1, 2]]), r"'matrix' must be a square \(C, C\) array"),
        (lambda: SemanticSegmentationResult([[1, -2], [0, 0]]), r"'matrix' must be non-negative integer counts"),
        (lambda: semantic_iou([[0]], [[0], [1]], 2), r"'predictions' must be as long as 'targets' \(got 'more than 1"),
        (
            lambda: semantic_iou([[0], [1]], [[0]], 2),
            r"'predictions' must be as long as 'targets' \(got '1 predictions",
        ),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(call, message):
    with pytest.raises(InvalidArgumentError, match=message):
        call()


def test_failed_update_counts_nothing():
    cm = ConfusionMatrix(2)
    with pytest.raises(InvalidArgumentError):
        cm.update([0, 1, 5], [0, 1, 1])
    assert cm.total == 0
