"""Action segmentation metrics: hand-computed cases, MS-TCN's 2019 off-by-one, a loop oracle, bad input."""

import json
import warnings

import numpy as np
import pytest

from geoiou import InvalidArgumentError
from geoiou.evaluation.action_segmentation import edit_score, evaluate_action_segmentation, frame_segments

BG = "background"


def evaluate(truth, predicted, **options):
    return evaluate_action_segmentation([list(truth)], [list(predicted)], **options)


def frames(spec):
    """``"aaab-"`` -> ['a', 'a', 'a', 'b', 'background']: one character per frame, '-' for background."""
    return [BG if char == "-" else char for char in spec]


# --------------------------------------------------------------------------- segments
def test_segments_are_runs_of_equal_labels_without_background():
    labels, intervals = frame_segments(frames("-aab--ba"))
    assert labels.tolist() == ["a", "b", "b", "a"]
    assert intervals.to_array().tolist() == [[1, 3], [3, 4], [6, 7], [7, 8]]


def test_the_2019_segments_end_the_last_run_one_frame_early():
    # Only the final run changes: [7, 8) becomes [7, 7), and a final background run changes nothing.
    _, intervals = frame_segments(frames("-aab--ba"), mstcn_2019_compat=True)
    assert intervals.to_array().tolist() == [[1, 3], [3, 4], [6, 7], [7, 7]]
    _, intervals = frame_segments(frames("-aa-"), mstcn_2019_compat=True)
    assert intervals.to_array().tolist() == [[1, 3]]


def test_integer_labels_with_an_integer_background():
    labels, intervals = frame_segments(np.array([0, 3, 3, 0, 1]), background=0)
    assert labels.tolist() == [3, 1] and intervals.to_array().tolist() == [[1, 3], [4, 5]]
    labels, _ = frame_segments([0, 3, 3, 0, 1], background=())  # no background: 0 is an action too
    assert labels.tolist() == [0, 3, 0, 1]
    labels, _ = frame_segments(np.array([0.0, 2.0, 2.0]), background=0.0)  # float labels, one float background
    assert labels.tolist() == [2.0]


# --------------------------------------------------------------------------- golden cases
def test_a_perfect_prediction_scores_100_everywhere():
    result = evaluate(frames("-aaabb--c"), frames("-aaabb--c"))
    assert (result.accuracy, result.edit) == (100.0, 100.0)
    np.testing.assert_array_equal(result.f1, [100, 100, 100])


def test_the_2019_script_scores_a_perfect_prediction_ending_in_a_one_frame_segment_f1_50():
    # Truth and prediction both end with "b" for one frame. The 2019 script makes that segment [3, 3):
    # IoU 0/0 (NaN there) never hits, so it is a false positive and a false negative: TP 1 (a),
    # FP 1, FN 1, F1 = 2 / (2 + 1 + 1) = 50. Accuracy and edit do not look at segment ends.
    truth = predicted = frames("aaab")
    compat = evaluate(truth, predicted, mstcn_2019_compat=True)
    np.testing.assert_array_equal(compat.f1, [50, 50, 50])
    assert (compat.accuracy, compat.edit) == (100.0, 100.0)
    np.testing.assert_array_equal(evaluate(truth, predicted).f1, [100, 100, 100])


def test_the_2019_ends_change_which_segments_reach_an_overlap():
    # Truth a [0, 4), b [4, 8); prediction a [0, 6), b [6, 8). a: IoU 4/6 hits at every overlap.
    # Correct ends: b has IoU 2/4 = 0.5, a hit at 0.5 too: F1@50 = 100.
    # 2019 ends: b becomes [4, 7) vs [6, 7): IoU 1/3, a miss at 0.5: TP 1, FP 1, FN 1: F1@50 = 50.
    truth, predicted = frames("aaaabbbb"), frames("aaaaaabb")
    np.testing.assert_array_equal(evaluate(truth, predicted).f1, [100, 100, 100])
    np.testing.assert_array_equal(evaluate(truth, predicted, mstcn_2019_compat=True).f1, [100, 100, 50])
    assert evaluate(truth, predicted).accuracy == 75.0  # frames 4 and 5 are wrong


def test_a_segment_whose_best_truth_is_already_hit_is_a_false_positive():
    # Truth a [0, 6) and a [7, 20); prediction a [0, 2) and a [3, 10).
    # P1: IoU 2/6 with the first truth: a hit at 0.10 and 0.25.
    # P2: IoU 3/10 with the first truth (already hit) beats 3/17 with the second: MS-TCN looks only at
    # its best truth, so P2 is a false positive even though 3/17 >= 0.1. TP 1, FP 1, FN 1: F1 = 50.
    # At 0.50 neither reaches: TP 0, FP 2, FN 2: F1 = 0.
    truth = frames("aaaaaa-" + "a" * 13)
    predicted = frames("aa-aaaaaaa" + "-" * 10)
    result = evaluate(truth, predicted)
    np.testing.assert_array_equal(result.counts, [[1, 1, 1], [1, 1, 1], [0, 2, 2]])
    np.testing.assert_array_equal(result.f1, [50, 50, 0])


def test_over_segmentation_costs_edit_and_false_positives():
    # Truth: one "a" segment [0, 6). Prediction: a [0, 3), a [4, 6) (a background frame between).
    # Edit: segments a a vs a: d = 1, 100 * (1 - 1/2) = 50. P1 hits (IoU 3/6 = 0.5 reaches 0.5),
    # P2 finds it taken: TP 1, FP 1, FN 0: F1 = 2 / (2 + 1) = 66.67.
    result = evaluate(frames("aaaaaa"), frames("aaa-aa"))
    assert result.edit == 50.0
    np.testing.assert_allclose(result.f1, [200 / 3] * 3)


def test_edit_score_of_label_sequences():
    assert edit_score(list("abc"), list("ac"), background=()) == pytest.approx(100 * (1 - 1 / 3))  # one deletion
    assert edit_score(list("ab"), list("ba"), background=()) == 0.0  # two substitutions over 2
    assert edit_score(list("aab"), list("abb"), background=()) == 100.0  # same segments a b, other lengths
    assert edit_score(list("kitten"), list("sitting"), background=()) == pytest.approx(100 * (1 - 3 / 6))


def test_videos_are_aggregated_as_ms_tcn_does():
    # Video 1 is perfect (4 frames, one "a"). Video 2: truth "a" x 6, prediction b b b b b a.
    # Accuracy over all frames: (4 + 1) / 10 = 50 (not the mean of 100 and 16.7).
    # Edit is the mean over videos: video 2 has b a vs a, d = 1 over 2: 50, so (100 + 50) / 2 = 75
    # (not frame-weighted, which would be 70).
    # F1 from summed counts: video 1 TP 1; video 2 "b" FP, "a" (IoU 1/6) FP, its truth FN:
    # TP 1, FP 2, FN 1, F1 = 2 / (2 + 2 + 1) = 40 (not the mean of per-video F1s, 50).
    result = evaluate_action_segmentation(
        [frames("aaaa"), frames("aaaaaa")], [frames("aaaa"), frames("bbbbba")], overlaps=[0.5]
    )
    assert result.accuracy == 50.0
    np.testing.assert_allclose(result.accuracy_per_video, [100.0, 100 / 6])
    assert result.edit == 75.0
    np.testing.assert_array_equal(result.counts, [[1, 2, 1]])
    np.testing.assert_allclose(result.f1, [40.0])


def test_a_video_whose_truth_is_all_background():
    # MS-TCN stops with "attempt to get argmax of an empty sequence" here; geoiou counts the predicted
    # segment as a false positive (no false negative: nothing to find) and edit 0 (d = 1 over 1).
    # With a perfect second video (TP 2): F1 = 2*2 / (2*2 + 1) = 80, edit (100 + 0) / 2 = 50.
    result = evaluate_action_segmentation([frames("-----"), frames("aabb")], [frames("-aa--"), frames("aabb")])
    np.testing.assert_array_equal(result.counts, [[2, 1, 0]] * 3)
    np.testing.assert_array_equal(result.f1, [80, 80, 80])
    np.testing.assert_array_equal(result.edit_per_video, [0.0, 100.0])
    assert result.accuracy == pytest.approx(100 * 7 / 9)


def test_all_background_on_both_sides_is_a_perfect_video():
    # No segments anywhere: edit 100 (MS-TCN: 0/0 = NaN), nothing counted, F1 0 (no segments at all).
    result = evaluate(frames("---"), frames("---"))
    assert (result.accuracy, result.edit) == (100.0, 100.0)
    np.testing.assert_array_equal(result.counts, np.zeros((3, 3)))
    np.testing.assert_array_equal(result.f1, [0, 0, 0])


def test_mappings_ints_and_numpy_arrays():
    truth = {"x": np.array([0, 1, 1, 2]), "y": np.array([2, 2, 0])}
    predicted = {"y": [2, 2, 2], "x": [0, 1, 1, 2]}  # keys in another order: matched by key
    result = evaluate_action_segmentation(truth, predicted, background=0)
    assert result.accuracy == pytest.approx(100 * 6 / 7)
    np.testing.assert_array_equal(result.counts[:, 0], [3, 3, 3])  # 1 and 2 in x, 2 in y (IoU 2/3)


# --------------------------------------------------------------------------- the result
def test_the_result_reports_like_ms_tcn():
    result = evaluate(frames("aaaabbbb"), frames("aaaaaabb"), mstcn_2019_compat=True)
    assert result.summary().splitlines() == [
        "Action segmentation: 1 videos, 8 frames (MS-TCN 2019 segment ends)",
        "Acc: 75.0000",
        "Edit: 100.0000",
        "F1@0.10: 100.0000",
        "F1@0.25: 100.0000",
        "F1@0.50: 50.0000",
    ]
    as_dict = json.loads(result.to_json())
    assert as_dict["f1"] == {"0.1": 100.0, "0.25": 100.0, "0.5": 50.0}
    assert as_dict["counts"]["0.5"] == {"tp": 1, "fp": 1, "fn": 1}
    assert as_dict["mstcn_2019_compat"] is True
    assert result.f1_at(0.5) == 50.0
    np.testing.assert_array_equal(result.precision, [100, 100, 50])
    np.testing.assert_array_equal(result.recall, [100, 100, 50])
    with pytest.raises(InvalidArgumentError, match=r"'overlap' must be one of \[0.1, 0.25, 0.5\] \(got 0.3\)"):
        result.f1_at(0.3)
    assert repr(result) == (
        "ActionSegmentationResult(accuracy=75.00, edit=100.00, F1@0.1=100.00, F1@0.25=100.00, F1@0.5=50.00)"
    )


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("truth", "predicted", "options", "message"),
    [
        (
            [["a", "b"]],
            [["a"]],
            {},
            r"^'predictions' must be one label per frame \(2 frames\) \(got '1 labels' for video 0\)$",
        ),
        ([["a"], ["b"]], [["a"]], {}, r"^'predictions' must be one sequence per video \(2\) \(got '1 sequences'\)$"),
        (
            [[]],
            [[]],
            {},
            r"^'ground_truth' must be a non-empty 1-D sequence of frame labels \(got 'shape \(0,\)' for video 0\)$",
        ),
        ([[["a"]]], [[["a"]]], {}, r"'ground_truth' must be a non-empty 1-D sequence .*shape \(1, 1\)"),
        (
            [[1, 2]],
            [["1", "2"]],
            {},
            r"'predictions' must be labels of the same type as 'ground_truth' \(got '<U1 labels for int\d+ labels'",
        ),
        (
            {"x": [1]},
            {"y": [1]},
            {},
            r"'predictions' must be for the videos of 'ground_truth' \(got \"no prediction for video 'x'\"\)",
        ),
        ({"x": [1]}, [[1]], {}, r"'predictions' must be a mapping exactly when 'ground_truth' is one \(got 'list'\)"),
        ([], [], {}, r"'ground_truth' must be at least one video"),
        ({}, {}, {}, r"'ground_truth' must be at least one video"),
        (
            [[1]],
            [[1]],
            {"overlaps": [0.5, 0.0]},
            r"'overlaps' must be a non-empty 1-D array of numbers in \(0, 1\] \(got \[0.5, 0.0\]\)",
        ),
        ([[1]], [[1]], {"background": [[0]]}, r"'background' must be a label or an iterable of hashable labels"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(truth, predicted, options, message):
    with pytest.raises(InvalidArgumentError, match=message):
        evaluate_action_segmentation(truth, predicted, **options)


# --------------------------------------------------------------------------- the loop oracle
def oracle_segments(labels, background, compat):
    """The reference script's walk: a run ends where the label changes; the last run ends at the last
    loop index (len - 1) in the 2019 script and at len in the current one."""
    seg_labels, starts, ends = [], [], []
    previous = labels[0]
    if previous not in background:
        seg_labels.append(previous)
        starts.append(0)
    for i, label in enumerate(labels):
        if label != previous:
            if label not in background:
                seg_labels.append(label)
                starts.append(i)
            if previous not in background:
                ends.append(i)
            previous = label
    if previous not in background:
        ends.append(len(labels) - 1 if compat else len(labels))
    return seg_labels, starts, ends


def oracle_levenshtein(a, b):
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        table[i][0] = i
    for j in range(len(b) + 1):
        table[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
    return table[-1][-1]


def oracle_counts(truth, predicted, overlap, background, compat):
    """The reference's segmental matching, with its raw IoU (intersection over the span of both,
    NaN for 0/0, zeroed for other labels) and NumPy's argmax, which picks the first NaN or maximum.
    A video without true segments (where the reference crashes) makes every prediction a false positive."""
    y_label, y_start, y_end = oracle_segments(truth, background, compat)
    p_label, p_start, p_end = oracle_segments(predicted, background, compat)
    if not y_label:
        return 0, len(p_label), 0
    tp = fp = 0
    hits = [False] * len(y_label)
    for j in range(len(p_label)):
        scores = []
        for k in range(len(y_label)):
            intersection = min(p_end[j], y_end[k]) - max(p_start[j], y_start[k])
            span = max(p_end[j], y_end[k]) - min(p_start[j], y_start[k])
            scores.append((intersection / span if span else float("nan")) * (p_label[j] == y_label[k]))
        best = int(np.argmax(scores))
        if scores[best] >= overlap and not hits[best]:
            tp += 1
            hits[best] = True
        else:
            fp += 1
    return tp, fp, len(y_label) - sum(hits)


def oracle_evaluate(truths, predictions, overlaps, background, compat):
    correct = total = 0
    edits = []
    sums = np.zeros((len(overlaps), 3))
    for truth, predicted in zip(truths, predictions):
        correct += sum(t == p for t, p in zip(truth, predicted))
        total += len(truth)
        y_label = oracle_segments(truth, background, compat)[0]
        p_label = oracle_segments(predicted, background, compat)[0]
        longest = max(len(y_label), len(p_label))
        edits.append(100.0 if longest == 0 else (1 - oracle_levenshtein(p_label, y_label) / longest) * 100)
        for s, overlap in enumerate(overlaps):
            sums[s] += oracle_counts(truth, predicted, overlap, background, compat)
    f1 = []
    for tp, fp, fn in sums:
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1.append(100 * 2 * precision * recall / (precision + recall) if precision + recall else 0.0)
    return 100 * correct / total, float(np.mean(edits)), sums, np.array(f1)


def generated_videos(seed):
    """Runs of 1-6 frames (many final one-frame runs), predictions that move boundaries, relabel
    runs and insert short ones; now and then a truth that is all background."""
    rng = np.random.default_rng(seed)
    labels = [BG, "a", "b", "c"]
    truths, predictions = [], []
    for _ in range(rng.integers(1, 6)):
        if rng.random() < 0.1:
            truth = [BG] * int(rng.integers(1, 12))
        else:
            truth = [
                label
                for _ in range(rng.integers(1, 9))
                for label in [labels[rng.integers(0, 4)]] * int(rng.integers(1, 7))
            ]
        predicted = list(truth)
        for _ in range(rng.integers(0, 5)):
            at = int(rng.integers(0, len(truth)))
            width = int(rng.integers(1, 4))
            predicted[at : at + width] = [labels[rng.integers(0, 4)]] * len(predicted[at : at + width])
        truths.append(truth)
        predictions.append(predicted)
    return truths, predictions


@pytest.mark.parametrize("compat", [False, True])
@pytest.mark.parametrize("seed", range(60))
def test_matches_the_loop_oracle(seed, compat):
    truths, predictions = generated_videos(seed)
    overlaps = [0.1, 0.25, 0.5, 0.75]
    result = evaluate_action_segmentation(truths, predictions, overlaps=overlaps, mstcn_2019_compat=compat)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the reference's 0/0
        accuracy, edit, counts, f1 = oracle_evaluate(truths, predictions, overlaps, {BG}, compat)
    assert result.accuracy == pytest.approx(accuracy, rel=1e-12)
    assert result.edit == pytest.approx(edit, rel=1e-12)
    np.testing.assert_array_equal(result.counts, counts)
    np.testing.assert_allclose(result.f1, f1, rtol=1e-12)


def test_the_oracle_data_exercises_the_2019_difference():
    differing = sum(
        not np.array_equal(
            evaluate_action_segmentation(*generated_videos(seed)).counts,
            evaluate_action_segmentation(*generated_videos(seed), mstcn_2019_compat=True).counts,
        )
        for seed in range(60)
    )
    all_background = sum(any(set(truth) == {BG} for truth in generated_videos(seed)[0]) for seed in range(60))
    assert differing >= 10 and all_background >= 3


def test_per_video_values_are_keyed_by_video():
    truth = {"v_jump": [0, 0, 1, 1], "v_run": [2, 2, 2, 2]}
    predicted = {"v_run": [2, 2, 0, 2], "v_jump": [0, 0, 1, 1]}
    # Integer labels, none of them background: said with background=() (the default "background" warns).
    result = evaluate_action_segmentation(truth, predicted, background=())
    assert result.videos == ("v_jump", "v_run")  # the ground truth's order
    assert result.per_video()["v_run"]["accuracy"] == 75.0 and result.per_video()["v_jump"]["accuracy"] == 100.0
    listed = evaluate_action_segmentation(
        list(truth.values()), [predicted["v_jump"], predicted["v_run"]], background=()
    )
    assert listed.videos == (0, 1) and listed.per_video()[1] == result.per_video()["v_run"]
