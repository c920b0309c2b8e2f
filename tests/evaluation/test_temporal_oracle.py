"""evaluate_temporal_detection against a plain-loop implementation of the ActivityNet protocol.

The oracle below follows the structure of ActivityNet's ``compute_average_precision_detection``:
per class, predictions one at a time by decreasing score; for each threshold, walk the ground truth
of the prediction's video by decreasing tIoU, stop with a false positive at the first tIoU below the
threshold, skip ground truth already locked at that threshold, lock the first free one. AP is
VOC's interpolated precision-recall sum, written out with the padded arrays and the backward
maximum pass. Tied scores are broken by input order (Python's sort is stable), the documented policy;
tied tIoUs as ActivityNet's reversed argsort does, the later ground truth first.
"""

import numpy as np
import pytest

from geoiou.evaluation import TemporalSegments, evaluate_temporal_detection


def oracle_tiou(a, b, zero_division):
    intersection = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    union = (a[1] - a[0]) + (b[1] - b[0]) - intersection
    return intersection / union if union > 0 else zero_division


def oracle_voc_ap(precision, recall):
    padded_precision = [0.0] + list(precision) + [0.0]
    padded_recall = [0.0] + list(recall) + [1.0]
    for i in range(len(padded_precision) - 2, -1, -1):
        padded_precision[i] = max(padded_precision[i], padded_precision[i + 1])
    return sum(
        (padded_recall[i] - padded_recall[i - 1]) * padded_precision[i]
        for i in range(1, len(padded_recall))
        if padded_recall[i] != padded_recall[i - 1]
    )


def _later_first(indices, tious):
    """ActivityNet's ``tiou_arr.argsort()[::-1]``: a stable ascending sort reversed, so of equal tIoUs the
    later ground truth comes first."""
    return sorted(indices, key=lambda g: tious[g])[::-1]


def oracle_class_ap(truths, predictions, thresholds, zero_division, sorted_by_tiou=_later_first):
    """AP at each threshold; truths are (video, start, end), predictions (video, start, end, score)."""
    predictions = sorted(predictions, key=lambda row: -row[3])
    locked = [[False] * len(truths) for _ in thresholds]
    tp = [[0] * len(predictions) for _ in thresholds]
    fp = [[0] * len(predictions) for _ in thresholds]
    for p, prediction in enumerate(predictions):
        same_video = [g for g, truth in enumerate(truths) if truth[0] == prediction[0]]
        if not same_video:
            for t in range(len(thresholds)):
                fp[t][p] = 1
            continue
        tious = {g: oracle_tiou(prediction[1:3], truths[g][1:3], zero_division) for g in same_video}
        by_tiou = sorted_by_tiou(same_video, tious)
        for t, threshold in enumerate(thresholds):
            for g in by_tiou:
                if tious[g] < threshold:
                    fp[t][p] = 1
                    break
                if locked[t][g]:
                    continue
                tp[t][p] = 1
                locked[t][g] = True
                break
            if not tp[t][p] and not fp[t][p]:
                fp[t][p] = 1
    aps = []
    for t in range(len(thresholds)):
        if not predictions:
            aps.append(0.0)
            continue
        tp_sum, fp_sum = np.cumsum(tp[t]), np.cumsum(fp[t])
        aps.append(oracle_voc_ap(tp_sum / (tp_sum + fp_sum), tp_sum / len(truths)))
    return aps


def oracle_map(truth_rows, prediction_rows, thresholds, zero_division, sorted_by_tiou=_later_first):
    """AP of shape (T, C) for rows (video, label, start, end[, score]), classes sorted."""
    labels = sorted({row[1] for row in truth_rows})
    columns = []
    for label in labels:
        truths = [(row[0], row[2], row[3]) for row in truth_rows if row[1] == label]
        predictions = [(row[0], row[2], row[3], row[4]) for row in prediction_rows if row[1] == label]
        columns.append(oracle_class_ap(truths, predictions, thresholds, zero_division, sorted_by_tiou))
    return np.array(columns).T


def generated_data(seed):
    """Several classes ("d" never predicted); videos with no truth and videos with no predictions;
    tied scores; integer times (tied tIoUs); zero-length truth and predictions; jittered true segments."""
    rng = np.random.default_rng(seed)
    videos = [f"video{i}" for i in range(10)]
    truth_rows = []
    for video in videos[:7]:  # video7 .. video9 have no truth
        for _ in range(rng.integers(1, 5)):
            start = float(rng.integers(0, 40))
            length = 0.0 if rng.random() < 0.15 else float(rng.integers(1, 20))
            truth_rows.append((video, "abcd"[rng.integers(0, 4)], start, start + length))
    predicted_labels = sorted({row[1] for row in truth_rows} - {"d"})
    jitterable = [row for row in truth_rows if row[1] != "d"]
    prediction_rows = []
    for video in videos[2:] if predicted_labels else []:  # video0 and video1 have no predictions
        for _ in range(rng.integers(0, 9)):
            if rng.random() < 0.5:  # jitter a true segment
                _, label, start, end = jitterable[rng.integers(0, len(jitterable))]
                start, end = start + rng.integers(-3, 4), end + rng.integers(-3, 4)
                start, end = min(start, end), max(start, end)
            else:
                label, start = predicted_labels[rng.integers(0, len(predicted_labels))], float(rng.integers(0, 40))
                end = start + (0.0 if rng.random() < 0.1 else float(rng.integers(1, 20)))
            score = round(float(rng.random()), 1)  # one decimal: many ties
            prediction_rows.append((video, label, start, end, score))
    return videos, truth_rows, prediction_rows


def as_segments(rows, videos, scored):
    columns = list(zip(*rows))
    return TemporalSegments(
        video_id=columns[0],
        label=columns[1],
        start=columns[2],
        end=columns[3],
        score=columns[4] if scored else None,
        videos=videos,
    )


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize(
    ("thresholds", "zero_division"), [("activitynet", 0.0), ("thumos14", 0.0), ("activitynet", 1.0)]
)
def test_matches_the_loop_oracle_on_generated_data(seed, thresholds, zero_division):
    videos, truth_rows, prediction_rows = generated_data(seed)
    truth = as_segments(truth_rows, videos, scored=False)
    predictions = as_segments(prediction_rows, videos, scored=True)
    result = evaluate_temporal_detection(truth, predictions, tiou_thresholds=thresholds, zero_division=zero_division)
    expected = oracle_map(truth_rows, prediction_rows, result.tiou_thresholds, zero_division)
    np.testing.assert_allclose(result.ap, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(result.mean_ap, expected.mean(axis=1), rtol=1e-12, atol=1e-15)


def test_the_generated_data_exercises_the_cases_it_claims():
    seen = {
        "zero-length truth": 0,
        "zero-length prediction": 0,
        "tied scores": 0,
        "empty truth video": 0,
        "class without predictions": 0,
    }
    for seed in range(40):
        videos, truth_rows, prediction_rows = generated_data(seed)
        seen["zero-length truth"] += any(row[2] == row[3] for row in truth_rows)
        seen["zero-length prediction"] += any(row[2] == row[3] for row in prediction_rows)
        scores = [row[4] for row in prediction_rows]
        seen["tied scores"] += len(scores) != len(set(scores))
        seen["empty truth video"] += any(row[0] not in {t[0] for t in truth_rows} for row in prediction_rows)
        seen["class without predictions"] += bool({t[1] for t in truth_rows} - {p[1] for p in prediction_rows})
    assert all(count >= 5 for count in seen.values()), seen


def test_matches_the_oracle_on_a_larger_random_set():
    # Real-valued times and scores (no ties), many predictions per video: the vectorized grouping,
    # the one-truth fast path and the multi-truth loop all run.
    rng = np.random.default_rng(2024)
    videos = [f"v{i}" for i in range(30)]
    truth_rows = [
        (videos[rng.integers(0, 30)], "xyz"[rng.integers(0, 3)], s, s + rng.uniform(0.5, 30))
        for s in rng.uniform(0, 100, 60)
    ]
    prediction_rows = []
    for video, label, start, end in truth_rows * 4:
        shift = rng.normal(0, 3, 2)
        prediction_rows.append((video, label, start + shift[0], max(start + shift[0], end + shift[1]), rng.random()))
    prediction_rows += [
        (videos[rng.integers(0, 30)], "xyz"[rng.integers(0, 3)], s, s + 10, rng.random())
        for s in rng.uniform(0, 100, 100)
    ]
    truth, predictions = as_segments(truth_rows, videos, False), as_segments(prediction_rows, videos, True)
    result = evaluate_temporal_detection(truth, predictions)
    expected = oracle_map(truth_rows, prediction_rows, result.tiou_thresholds, 0.0)
    np.testing.assert_allclose(result.ap, expected, rtol=1e-12, atol=1e-15)
    assert 0.05 < result.average_mean_ap < 0.95  # a non-trivial case


def test_a_prediction_overlapping_two_segments_equally_claims_the_later_one():
    """Issue 24, item 11: ActivityNet's reversed argsort claims the later of two equal tIoUs.

    Ground truth A = [0, 4) and B = [4, 8); the first prediction [2, 6) overlaps each by 2 of a
    union of 6 (tIoU 1/3), the second is A itself. At threshold 0.3 the first claims B (the later),
    the second A: two true positives, AP 1.0. Claiming A first would leave the second prediction a
    false positive: AP 0.5.
    """
    truth = TemporalSegments(video_id=["v", "v"], label=["x", "x"], start=[0.0, 4.0], end=[4.0, 8.0], videos=["v"])
    predictions = TemporalSegments(
        video_id=["v", "v"], label=["x", "x"], start=[2.0, 0.0], end=[6.0, 4.0], score=[0.9, 0.8], videos=["v"]
    )
    result = evaluate_temporal_detection(truth, predictions, tiou_thresholds=[0.3])
    assert result.ap[0, 0] == 1.0
    assert (
        oracle_map(
            [("v", "x", 0.0, 4.0), ("v", "x", 4.0, 8.0)],
            [("v", "x", 2.0, 6.0, 0.9), ("v", "x", 0.0, 4.0, 0.8)],
            [0.3],
            0.0,
        )[0, 0]
        == 1.0
    )


def tied_data(seed):
    """Ground truth on a grid of adjacent segments [4k, 4k + 4) and predictions that straddle their
    boundaries symmetrically ([4k + 2, 4k + 6): tIoU 1/3 with both neighbours), so that most
    predictions overlap two free segments equally: the case where the tie rule decides the claims."""
    rng = np.random.default_rng(seed)
    truth_rows = [("v", "x", 4.0 * k, 4.0 * k + 4) for k in range(int(rng.integers(3, 8)))]
    prediction_rows = []
    for _ in range(int(rng.integers(3, 10))):
        k = int(rng.integers(0, len(truth_rows)))
        start = 4.0 * k + (2.0 if rng.random() < 0.7 else 0.0)  # straddling, or exactly one segment
        prediction_rows.append(("v", "x", start, start + 4, round(float(rng.random()), 2)))
    return ["v"], truth_rows, prediction_rows


@pytest.mark.parametrize("seed", range(30))
def test_matches_activitynets_walk_when_tious_tie(seed):
    videos, truth_rows, prediction_rows = tied_data(seed)
    truth = as_segments(truth_rows, videos, scored=False)
    predictions = as_segments(prediction_rows, videos, scored=True)
    result = evaluate_temporal_detection(truth, predictions, tiou_thresholds=[0.3, 0.5])
    expected = oracle_map(truth_rows, prediction_rows, result.tiou_thresholds, 0.0)
    np.testing.assert_allclose(result.ap, expected, rtol=1e-12, atol=1e-15)


def test_the_tie_rule_changes_the_numbers_in_the_tied_data():
    """Claiming the earlier of equal tIoUs gives other APs on some seeds: the comparison above decides the rule."""
    differ = 0
    for seed in range(30):
        _, truth_rows, prediction_rows = tied_data(seed)
        later = oracle_map(truth_rows, prediction_rows, [0.3], 0.0)
        earlier = oracle_map(
            truth_rows,
            prediction_rows,
            [0.3],
            0.0,
            sorted_by_tiou=lambda indices, tious: sorted(indices, key=lambda g: -tious[g]),
        )
        differ += not np.array_equal(later, earlier)
    assert differ >= 5, differ
