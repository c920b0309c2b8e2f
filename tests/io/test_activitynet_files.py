"""ActivityNet JSON files: reading, writing, evaluating what was read, and every error path.

The cross-check evaluates files read by `read_activitynet` with `evaluate_temporal_detection` and
compares with `official_class_ap` below, written for this test from the algorithm of ActivityNet's
``compute_average_precision_detection`` (``Evaluation/eval_detection.py``, read, not copied):
it reads the JSON itself, keeps the ground truth of the subset, and for each class walks the
predictions by decreasing score, each trying the ground truth of its video by decreasing tIoU.
"""

import json
import math
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from geoiou.errors import FormatError, InvalidArgumentError
from geoiou.evaluation import TemporalSegments, evaluate_temporal_detection
from geoiou.io.activitynet import read_activitynet, write_activitynet_results
from tests.strategies import ci_settings


def write_json(path, document):
    path.write_text(json.dumps(document))  # json.dumps writes NaN and Infinity, as careless producers do
    return path


def results(videos):
    """A results document; `videos` maps id -> [(start, end, label, score), ...]."""
    return {
        "version": "VERSION 1.3",
        "external_data": {},
        "results": {
            video: [{"label": label, "score": score, "segment": [start, end]} for start, end, label, score in rows]
            for video, rows in videos.items()
        },
    }


# --------------------------------------------------------------------------- golden values
GOLDEN_TRUTH = {
    "version": "VERSION 1.3",
    "taxonomy": [],
    "database": {
        "v1": {
            "subset": "validation",
            "duration": 60.0,
            "annotations": [{"segment": [0, 10], "label": "jump"}, {"segment": [20, 30], "label": "jump"}],
        },
        "v2": {
            "subset": "validation",
            "duration": 40.5,
            "annotations": [{"segment": [0, 10], "label": "jump"}, {"segment": [0, 20], "label": "run"}],
        },
        "v3": {"subset": "validation", "duration": 12.0, "annotations": []},
        "v4": {"subset": "training", "duration": 30.0, "annotations": [{"segment": [0, 10], "label": "jump"}]},
    },
}
GOLDEN_PREDICTIONS = results(
    {
        "v1": [(0, 8, "jump", 0.9), (20, 26, "jump", 0.7)],  # tIoU 0.8 and 0.6 with v1's two jumps
        "v2": [(0, 10, "jump", 0.6), (0, 10, "run", 0.5)],  # tIoU 1.0 (jump) and 0.5 (run)
        "v3": [(0, 5, "jump", 0.8)],  # a video without truth: a false positive
    }
)


def test_golden_map_of_a_hand_checked_file(tmp_path):
    truth = read_activitynet(write_json(tmp_path / "gt.json", GOLDEN_TRUTH), subset="validation")
    predictions = read_activitynet(write_json(tmp_path / "pred.json", GOLDEN_PREDICTIONS))
    result = evaluate_temporal_detection(truth.segments, predictions.segments, tiou_thresholds=[0.5, 0.7])
    # At 0.5, "jump" ranks TP (0.9), FP (0.8, v3), TP (0.7), TP (0.6) over 3 truths: precision at the hits
    # 1, 2/3, 3/4, interpolated 1, 3/4, 3/4: AP = 2.5 / 3. "run" (tIoU 0.5) is a hit: AP 1.
    # At 0.7, the 0.6 overlap misses: jump hits at ranks 1 and 4, AP = (1 + 2/4) / 3 = 0.5; run misses: 0.
    np.testing.assert_allclose(result.ap_per_class()["jump"], [2.5 / 3, 0.5], rtol=1e-12)
    np.testing.assert_allclose(result.ap_per_class()["run"], [1.0, 0.0])
    np.testing.assert_allclose(result.mean_ap, [(2.5 / 3 + 1) / 2, 0.25], rtol=1e-12)
    # v3 is a video of the evaluation although it has no annotations; v4 (training) is not.
    assert truth.segments.videos == ("v1", "v2", "v3") and result.num_videos == 3


def test_reading_every_subset_adds_the_training_video(tmp_path):
    truth = read_activitynet(write_json(tmp_path / "gt.json", GOLDEN_TRUTH), subset="all")
    predictions = read_activitynet(GOLDEN_PREDICTIONS)
    result = evaluate_temporal_detection(truth.segments, predictions.segments, tiou_thresholds=[0.5])
    # v4's jump is a fourth truth that no prediction finds: the same hits over 4 truths, AP = 2.5 / 4.
    assert result.ap_per_class()["jump"][0] == pytest.approx(2.5 / 4, rel=1e-12)
    assert truth.segments.videos == ("v1", "v2", "v3", "v4")


def test_columns_kind_and_durations(tmp_path):
    truth = read_activitynet(write_json(tmp_path / "gt.json", GOLDEN_TRUTH), subset="validation")
    assert truth.kind == "database" and truth.segments.score is None
    assert truth.durations == {"v1": 60.0, "v2": 40.5, "v3": 12.0}  # only the subset's videos
    assert truth.segments.video_id.tolist() == ["v1", "v1", "v2", "v2"]
    assert truth.segments.label.tolist() == ["jump", "jump", "jump", "run"]
    np.testing.assert_array_equal(truth.segments.start, [0, 20, 0, 0])
    np.testing.assert_array_equal(truth.segments.end, [10, 30, 10, 20])
    assert truth.report.read == 4 and truth.report.skipped == ()

    predictions = read_activitynet(GOLDEN_PREDICTIONS)
    assert predictions.kind == "results" and predictions.durations == {}
    assert predictions.report.source == "<dict>"
    np.testing.assert_array_equal(predictions.segments.score, [0.9, 0.7, 0.6, 0.5, 0.8])  # file order


def test_a_video_without_duration_has_no_entry_in_durations():
    document = {"database": {"v1": {"annotations": [{"segment": [1, 2], "label": "a"}]}}}
    assert read_activitynet(document).durations == {}


def test_an_empty_results_file_is_empty_predictions():
    predictions = read_activitynet({"results": {}}).segments
    assert len(predictions) == 0 and predictions.videos == ()


# --------------------------------------------------------------------------- the official algorithm
def official_tiou(prediction, truths):
    """tIoU of one [start, end] against rows of [start, end], as ActivityNet's segment_iou computes it."""
    inter = np.clip(np.minimum(prediction[1], truths[:, 1]) - np.maximum(prediction[0], truths[:, 0]), 0, None)
    union = (truths[:, 1] - truths[:, 0]) + (prediction[1] - prediction[0]) - inter
    return inter / union


def voc2011_ap(precision, recall):
    """Area under the precision envelope, summed where recall changes (VOC devkit 2011 and later)."""
    envelope = np.concatenate([[0.0], precision, [0.0]])
    steps = np.concatenate([[0.0], recall, [1.0]])
    for i in range(len(envelope) - 2, -1, -1):
        envelope[i] = max(envelope[i], envelope[i + 1])
    changed = np.flatnonzero(steps[1:] != steps[:-1]) + 1
    return float(np.sum((steps[changed] - steps[changed - 1]) * envelope[changed]))


def official_class_ap(truths, predictions, thresholds):
    """AP per threshold of one class; truths (video, start, end), predictions (video, start, end, score)."""
    by_video = defaultdict(list)
    for index, (video, start, end) in enumerate(truths):
        by_video[video].append((index, start, end))
    ranked = sorted(predictions, key=lambda row: row[3], reverse=True)
    hits = np.zeros((len(thresholds), len(ranked)))
    claimed = np.zeros((len(thresholds), len(truths)), dtype=bool)
    for rank, (video, start, end, _) in enumerate(ranked):
        candidates = by_video.get(video)
        if not candidates:
            continue  # no truth in this video: a false positive at every threshold
        overlaps = official_tiou((start, end), np.array([(s, e) for _, s, e in candidates]))
        by_overlap = overlaps.argsort()[::-1]
        for t, threshold in enumerate(thresholds):
            for j in by_overlap:
                if overlaps[j] < threshold:
                    break  # the best remaining overlap is too small
                if claimed[t, candidates[j][0]]:
                    continue
                claimed[t, candidates[j][0]] = True
                hits[t, rank] = 1
                break
    if not ranked:
        return np.zeros(len(thresholds))
    found = np.cumsum(hits, axis=1)
    precision = found / np.arange(1, len(ranked) + 1)
    return np.array([voc2011_ap(precision[t], found[t] / len(truths)) for t in range(len(thresholds))])


def official_map(truth_path, prediction_path, subset, thresholds):
    """AP of shape (T, C), classes sorted, straight from the two JSON files."""
    with open(truth_path) as handle:
        videos = json.load(handle)["database"]
    with open(prediction_path) as handle:
        predicted = json.load(handle)["results"]
    truths = defaultdict(list)
    for video, entry in videos.items():
        if entry["subset"] == subset:
            for annotation in entry["annotations"]:
                truths[annotation["label"]].append((video, *map(float, annotation["segment"])))
    predictions = defaultdict(list)
    for video, rows in predicted.items():
        for row in rows:
            predictions[row["label"]].append((video, *map(float, row["segment"]), row["score"]))
    labels = sorted(truths)
    return np.stack([official_class_ap(truths[label], predictions[label], thresholds) for label in labels], axis=1)


def synthetic_files(tmp_path, seed):
    """A validation subset of 14 videos (two without annotations) among training and testing videos;
    predictions are noisy copies of the truth, duplicates, and false positives, with distinct scores."""
    gen = np.random.default_rng(seed)
    labels = ["Long jump", "Shot put", "Discus throw", "Pole vault"]
    truth_videos, prediction_rows = {}, {}
    for number in range(20):
        video = f"v_{number:03d}"
        subset = "validation" if number < 14 else ("training" if number < 17 else "testing")
        duration = float(gen.uniform(30, 200))
        count = 0 if number in (3, 9) or subset == "testing" else int(gen.integers(1, 6))
        starts = gen.uniform(0, duration * 0.8, count)
        ends = starts + gen.uniform(1, duration * 0.3, count)
        classes = [labels[(number + k) % 4] if k == 0 else str(gen.choice(labels)) for k in range(count)]
        truth_videos[video] = {
            "subset": subset,
            "duration": duration,
            "url": "",
            "annotations": [
                {"segment": [float(s), float(e)], "label": label} for s, e, label in zip(starts, ends, classes)
            ],
        }
        if subset != "validation":
            continue
        rows = []
        for s, e, label in zip(starts, ends, classes):
            for _ in range(int(gen.integers(0, 3))):
                shift, stretch = gen.normal(0, (e - s) * 0.2, 2)
                rows.append((max(0.0, s + shift), max(s + shift, e + shift + stretch) + 0.1, label))
        for _ in range(int(gen.integers(0, 4))):  # false positives anywhere, of any class
            s = float(gen.uniform(0, duration))
            rows.append((s, s + float(gen.uniform(0.5, 20)), str(gen.choice(labels))))
        prediction_rows[video] = rows
    count = sum(map(len, prediction_rows.values()))
    scores = iter(gen.permutation(count) / count + 0.001)  # distinct: the official tie order is arbitrary
    results_document = {
        "version": "VERSION 1.3",
        "external_data": {},
        "results": {
            video: [
                {"label": label, "score": float(next(scores)), "segment": [float(s), float(e)]} for s, e, label in rows
            ]
            for video, rows in prediction_rows.items()
        },
    }
    truth_path = write_json(
        tmp_path / f"gt{seed}.json", {"version": "VERSION 1.3", "taxonomy": [], "database": truth_videos}
    )
    return truth_path, write_json(tmp_path / f"pred{seed}.json", results_document)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("thresholds", ["activitynet", "thumos14"])
def test_evaluation_of_read_files_equals_the_official_algorithm(tmp_path, seed, thresholds):
    truth_path, prediction_path = synthetic_files(tmp_path, seed)
    truth = read_activitynet(truth_path, subset="validation")
    predictions = read_activitynet(prediction_path)
    result = evaluate_temporal_detection(truth.segments, predictions.segments, tiou_thresholds=thresholds)
    expected = official_map(truth_path, prediction_path, "validation", result.tiou_thresholds)
    assert result.ap.shape == expected.shape == (len(result.tiou_thresholds), 4)
    assert 0 < expected.mean() < 1  # neither trivial nor empty
    np.testing.assert_allclose(result.ap, expected, rtol=0, atol=1e-12)
    assert truth.segments.videos == tuple(f"v_{n:03d}" for n in range(14))


# --------------------------------------------------------------------------- writing
@st.composite
def scored_segments(draw):
    videos = draw(st.lists(st.text("abc_0123", min_size=1, max_size=4), min_size=1, max_size=4, unique=True))
    count = draw(st.integers(0, 8))
    finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
    starts = draw(st.lists(finite, min_size=count, max_size=count))
    # Lengths of 0 or at least 1e-100: a positive length below 2**-500 is refused by the reader, as by Interval.
    lengths = draw(
        st.lists(
            st.floats(0, 1e3).map(lambda length: length if length >= 1e-100 else 0.0), min_size=count, max_size=count
        )
    )
    return TemporalSegments(
        video_id=draw(st.lists(st.sampled_from(videos), min_size=count, max_size=count)),
        label=draw(st.lists(st.text(min_size=1, max_size=5), min_size=count, max_size=count)),
        start=starts,
        end=[s + length for s, length in zip(starts, lengths)],
        score=draw(st.lists(st.floats(0, 1), min_size=count, max_size=count)),
        videos=videos,
    )


@ci_settings(40)
@given(segments=scored_segments())
def test_write_then_read_gives_the_same_segments(tmp_path_factory, segments):
    path = tmp_path_factory.mktemp("round_trip") / "results.json"
    write_activitynet_results(path, segments)
    again = read_activitynet(path)
    assert again.kind == "results" and again.report.read == len(segments)
    assert again.segments.videos == segments.videos  # also the videos without predictions
    # Rows come back grouped by video (the file's layout), each video's rows in their order.
    order = sorted(range(len(segments)), key=lambda row: segments.videos.index(segments.video_id[row]))
    for column in ("video_id", "label", "start", "end", "score"):
        np.testing.assert_array_equal(getattr(again.segments, column), getattr(segments, column)[order])


def test_written_file_has_the_official_layout(tmp_path):
    segments = TemporalSegments(
        video_id=["v1"], label=["jump"], start=[1.5], end=[4.0], score=[0.25], videos=["v1", "v2"]
    )
    write_activitynet_results(tmp_path / "out.json", segments)
    document = json.loads((tmp_path / "out.json").read_text())
    # The fields ActivityNet's ANETdetection requires of a prediction file, and its record layout.
    assert set(document) == {"version", "results", "external_data"}
    assert document["results"] == {"v1": [{"label": "jump", "score": 0.25, "segment": [1.5, 4.0]}], "v2": []}


@pytest.mark.parametrize(
    ("predictions", "message"),
    [
        ({"v1": []}, r"'predictions' must be TemporalSegments \(got 'dict'\)"),
        (TemporalSegments(video_id=["v1"], label=["a"], start=[0], end=[1]), r"must be scored"),
        (
            TemporalSegments(video_id=[7], label=["a"], start=[0], end=[1], score=[1]),
            r"video ids that are strings .*\(got 7\)",
        ),
        (
            TemporalSegments(video_id=["v"], label=[3], start=[0], end=[1], score=[1]),
            r"labels that are strings \(got 3\)",
        ),
    ],
)
def test_writer_refuses_what_would_not_read_back(tmp_path, predictions, message):
    with pytest.raises(InvalidArgumentError, match=message):
        write_activitynet_results(tmp_path / "out.json", predictions)
    assert not (tmp_path / "out.json").exists()


# --------------------------------------------------------------------------- errors
def annotation_error(annotation):
    return {
        "database": {"v_a": {"subset": "validation", "annotations": [{"segment": [0, 1], "label": "ok"}, annotation]}}
    }


def prediction_error(prediction):
    return {"results": {"v_a": [{"label": "ok", "score": 0.5, "segment": [0, 1]}, prediction]}}


BAD_SEGMENTS = [  # each document has one valid segment beside the bad one
    (
        annotation_error({"segment": [5, 2], "label": "a"}),
        r"database\['v_a'\]\.annotations\[1\]: 'segment' must have end >= start \(got \[5, 2\]\)",
    ),
    (annotation_error({"segment": [math.nan, 2], "label": "a"}), r"annotations\[1\]: 'segment' must be finite"),
    (annotation_error({"segment": [0, math.inf], "label": "a"}), r"annotations\[1\]: 'segment' must be finite"),
    (annotation_error({"segment": [0, 10**400], "label": "a"}), r"annotations\[1\]: 'segment' must be finite"),
    (
        prediction_error({"label": "a", "score": 10**400, "segment": [0, 1]}),
        r"results\['v_a'\]\[1\]: 'score' must be a finite number",
    ),
    (
        annotation_error({"segment": [0, 1, 2], "label": "a"}),
        r"'segment' must be \[start, end\], two numbers \(got \[0, 1, 2\]\)",
    ),
    (annotation_error({"segment": ["0", "1"], "label": "a"}), r"'segment' must be \[start, end\], two numbers"),
    (
        annotation_error({"segment": [0, 1]}),
        r"annotations\[1\]: 'label' must be present .*\(got the fields \['segment'\]\)",
    ),
    (annotation_error({"label": "a"}), r"'segment' must be present"),
    (annotation_error({"segment": [0, 1], "label": 4}), r"'label' must be a string \(got 4\)"),
    (annotation_error([0, 1, "a"]), r"annotations\[1\]: the record must be an object"),
    (
        prediction_error({"label": "a", "score": "high", "segment": [0, 1]}),
        r"results\['v_a'\]\[1\]: 'score' must be a finite number \(got 'high'\)",
    ),
    (
        prediction_error({"label": "a", "score": math.nan, "segment": [0, 1]}),
        r"'score' must be a finite number \(got nan\)",
    ),
    (
        prediction_error({"label": "a", "score": True, "segment": [0, 1]}),
        r"'score' must be a finite number \(got True\)",
    ),
    (prediction_error({"label": "a", "segment": [0, 1]}), r"results\['v_a'\]\[1\]: 'score' must be present"),
]
BAD_VIDEOS = [  # the one video is at fault, so none of its segments is read
    ({"results": {"v_a": {"label": "a"}}}, r"results\['v_a'\]: the video's predictions must be a list"),
    ({"database": {"v_a": [1, 2]}}, r"database\['v_a'\]: the video must be an object"),
    ({"database": {"v_a": {"subset": "validation"}}}, r"database\['v_a'\]: 'annotations' must be a list \(got None\)"),
    ({"database": {"v_a": {"duration": -1, "annotations": []}}}, r"database\['v_a'\]: 'duration' must be >= 0"),
    (
        {"database": {"v_a": {"duration": "60s", "annotations": []}}},
        r"'duration' must be a finite number \(got '60s'\)",
    ),
]


@pytest.mark.parametrize(("document", "message"), BAD_SEGMENTS + BAD_VIDEOS)
def test_an_invalid_record_names_the_file_the_record_and_the_fault(tmp_path, document, message):
    path = write_json(tmp_path / "bad.json", document)
    with pytest.raises(FormatError, match=message) as caught:
        read_activitynet(path)
    assert str(caught.value).startswith(f"{path}, ")


@pytest.mark.parametrize(
    ("document", "kept"),
    [(document, 1) for document, _ in BAD_SEGMENTS] + [(document, 0) for document, _ in BAD_VIDEOS],
)
def test_skipping_an_invalid_record_keeps_the_others(document, kept):
    read = read_activitynet(document, skip_invalid=True)
    assert len(read.report.skipped) == 1
    assert read.report.read == len(read.segments) == kept


def test_skip_counts_group_the_faults():
    document = {
        "results": {
            "v1": [
                {"label": "a", "score": 0.9, "segment": [0, 4]},
                {"label": "a", "score": 0.8, "segment": [5, 1]},
                {"label": "a", "score": "x", "segment": [0, 1]},
            ],
            "v2": [{"label": "a", "score": 0.7, "segment": [9, 3]}],
            "v3": "none",
        }
    }
    read = read_activitynet(document, skip_invalid=True)
    assert read.report.read == 1 and len(read.segments) == 1
    assert read.report.counts() == {
        "'segment' must have end >= start": 2,
        "'score' must be a finite number": 1,
        "the video's predictions must be a list": 1,
    }
    assert read.report.skipped[0].location == "results['v1'][1]"
    assert read.segments.videos == ("v1", "v2")  # v2 keeps its place (no valid rows); v3 is not a video


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"results": {', r"bad\.json: not valid JSON \(Expecting .* at line 1, column 14\)"),
        ("[1, 2]", r"bad\.json: expected a JSON object at the top level \(got list\)"),
        (
            '{"database": {}, "results": {}}',
            r"expected one of the top-level keys .* \(got both \['database', 'results'\]\)",
        ),
        ('{"version": 1}', r"\(got neither; top-level keys are \['version'\]\)"),
        ('{"database": []}', r"'database' must be an object mapping video ids to videos \(got \[\]\)"),
        ('{"results": {"v1": [], "v1": []}}', r"an object has the key 'v1' twice"),
    ],
)
def test_a_malformed_file_is_a_whole_file_error_even_when_skipping(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(FormatError, match=message) as caught:
        read_activitynet(path, skip_invalid=True)
    assert caught.value.location == ""


def test_unknown_subset_lists_the_subsets_present(tmp_path):
    path = write_json(tmp_path / "gt.json", GOLDEN_TRUTH)
    with pytest.raises(
        InvalidArgumentError,
        match=r"'subset' must be a subset that videos of .*gt\.json have, "
        r"one of \['training', 'validation'\] \(got 'val'\)",
    ):
        read_activitynet(path, subset="val")


def test_subset_is_refused_for_a_results_file():
    with pytest.raises(InvalidArgumentError, match=r"'subset' must be None for a results file"):
        read_activitynet(GOLDEN_PREDICTIONS, subset="validation")


def test_a_video_without_subset_is_invalid_when_filtering_by_subset():
    document = {
        "database": {
            "v1": {"subset": "validation", "annotations": [{"segment": [0, 1], "label": "a"}]},
            "v2": {"annotations": [{"segment": [0, 1], "label": "a"}]},
        }
    }
    with pytest.raises(FormatError, match=r"database\['v2'\]: 'subset' must be a string such as 'validation'"):
        read_activitynet(document, subset="validation")
    read = read_activitynet(document, subset="validation", skip_invalid=True)
    assert read.segments.videos == ("v1",) and read.report.read == 1 and len(read.report.skipped) == 1
    assert read_activitynet(document).segments.videos == ("v1", "v2")  # no filter: no subset needed


def test_videos_of_other_subsets_are_not_read():
    # A malformed annotation in a training video does not stop reading the validation subset.
    document = {
        "database": {
            "v1": {"subset": "validation", "annotations": [{"segment": [0, 1], "label": "a"}]},
            "v2": {"subset": "training", "annotations": [{"segment": [5, 1], "label": "a"}]},
        }
    }
    assert read_activitynet(document, subset="validation").report.read == 1
    with pytest.raises(FormatError, match=r"database\['v2'\]\.annotations\[0\]"):
        read_activitynet(document, subset="all")


def test_by_default_the_validation_subset_is_read_as_activitynet_does(tmp_path):
    # ActivityNet's eval_detection.py reads subset="validation" unless told otherwise: never mix subsets silently.
    path = write_json(tmp_path / "gt.json", GOLDEN_TRUTH)
    default, validation = read_activitynet(path), read_activitynet(path, subset="validation")
    assert default.subset == "validation" and default.segments.videos == validation.segments.videos == (
        "v1",
        "v2",
        "v3",
    )
    assert read_activitynet(path, subset="all").subset is None


def test_several_subsets_without_validation_are_refused_by_name(tmp_path):
    database = {
        video: {**entry, "subset": "testing" if entry.get("subset") == "validation" else entry.get("subset")}
        for video, entry in GOLDEN_TRUTH["database"].items()
    }
    path = write_json(tmp_path / "gt.json", {**GOLDEN_TRUTH, "database": database})
    with pytest.raises(InvalidArgumentError, match=r"\['testing', 'training'\], or 'all'"):
        read_activitynet(path)
    assert read_activitynet(path, subset="testing").subset == "testing"


def test_a_file_of_one_subset_is_read_whole(tmp_path):
    database = {
        video: entry for video, entry in GOLDEN_TRUTH["database"].items() if entry.get("subset") == "validation"
    }
    read = read_activitynet(write_json(tmp_path / "gt.json", {**GOLDEN_TRUTH, "database": database}))
    assert read.subset is None and read.segments.videos == ("v1", "v2", "v3")


@pytest.mark.parametrize("kind", ["database", "results"])
def test_columns_and_records_read_the_same_segments(kind, monkeypatch, tmp_path):
    """Plain files are read as columns; the record-by-record reader (which names faults) must agree with it."""
    from geoiou.io import activitynet

    rng = np.random.default_rng(3)
    videos = {}
    for k in range(40):
        starts = np.round(rng.uniform(0, 50, int(rng.integers(0, 6))), 2)
        entries = [
            {"segment": [float(s), float(s) + int(rng.integers(0, 9))], "label": str(rng.choice(["a", "b c"]))}
            for s in starts
        ]
        if kind == "results":
            entries = [{**entry, "score": float(rng.choice([1, 0.5, rng.random()]))} for entry in entries]
        videos[f"v{k}"] = (
            entries if kind == "results" else {"subset": "validation", "duration": 60, "annotations": entries}
        )
    document = {kind: videos}
    path = write_json(tmp_path / "file.json", document)
    fast, from_file = read_activitynet(document), read_activitynet(path)
    monkeypatch.setattr(activitynet, "_segment_columns", lambda *args, **kwargs: None)
    slow = read_activitynet(document)
    for name in ("video_id", "label", "start", "end", "score"):
        np.testing.assert_array_equal(getattr(fast.segments, name), getattr(slow.segments, name))
        np.testing.assert_array_equal(getattr(from_file.segments, name), getattr(slow.segments, name))
    assert fast.segments.videos == slow.segments.videos == from_file.segments.videos and fast.report == slow.report
