"""evaluate_temporal_proposals against a plain-loop transcription of ActivityNet's proposal evaluation (issue 24, 16).

The oracle follows ``average_recall_vs_avg_nr_proposals`` of ActivityNet's ``eval_proposal.py``
step by step, with Python lists: videos of the ground truth; the share ``ratio`` of each video's
proposals kept, ranked by ``argsort()[::-1]`` of the scores; 100 budgets of 1% to 100% of the
kept proposals; a segment recalled when one of the first proposals of the budget reaches the
threshold; recall summed over videos and averaged over thresholds; the AUC by trapezoids over
the proposals per video, divided by the last, in percent.
"""

from __future__ import annotations

import numpy as np
import pytest

from geoiou.evaluation import TemporalSegments, evaluate_temporal_proposals


def oracle_tiou(a, b):
    intersection = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    union = (a[1] - a[0]) + (b[1] - b[0]) - intersection
    return intersection / union if union > 0 else 0.0


def oracle(truth_rows, proposal_rows, max_average, thresholds):
    videos = list(dict.fromkeys(row[0] for row in truth_rows))
    evaluated = [row for row in proposal_rows if row[0] in videos]
    ratio = max_average * len(videos) / len(evaluated)
    scores, total = [], 0
    for video in videos:
        truths = [row[1:] for row in truth_rows if row[0] == video]
        mine = [row for row in evaluated if row[0] == video]
        if not mine:
            scores.append([[] for _ in truths])
            continue
        order = list(np.argsort([row[3] for row in mine], kind="stable")[::-1])
        ranked = [mine[k] for k in order]
        keep = min(int(len(ranked) * ratio), len(ranked))
        total += keep
        scores.append([[oracle_tiou(truth, proposal[1:3]) for proposal in ranked[:keep]] for truth in truths])
    shares = [k / 100.0 * (max_average * len(videos) / total) for k in range(1, 101)]
    recall = []
    for threshold in thresholds:
        matched = [0] * 100
        positives = 0
        for per_truth in scores:
            positives += len(per_truth)
            width = len(per_truth[0]) if per_truth else 0
            for j, share in enumerate(shares):
                budget = min(int(width * share), width)
                matched[j] += sum(any(value >= threshold for value in row[:budget]) for row in per_truth)
        recall.append([count / positives for count in matched])
    average = np.mean(recall, axis=0)
    per_video = np.array(shares) * (total / len(videos))
    auc = 100.0 * np.trapezoid(average, per_video) / per_video[-1]
    return average, per_video, auc


def generated(seed):
    rng = np.random.default_rng(seed)
    truth_rows, proposal_rows = [], []
    for video in range(int(rng.integers(3, 8))):
        for _ in range(int(rng.integers(1, 4))):
            start = float(rng.integers(0, 60))
            truth_rows.append((f"v{video}", start, start + float(rng.integers(2, 20))))
        for _ in range(int(rng.integers(0, 30))):
            start = float(rng.integers(0, 60))
            proposal_rows.append(
                (f"v{video}", start, start + float(rng.integers(1, 25)), round(float(rng.random()), 1))
            )  # one decimal: tied scores
    proposal_rows.append(("elsewhere", 0.0, 5.0, 0.9))  # a video without ground truth: not used
    return truth_rows, proposal_rows


def segments(rows, scored):
    columns = list(zip(*rows))
    return TemporalSegments(
        video_id=columns[0],
        label=[""] * len(rows),
        start=columns[1],
        end=columns[2],
        score=columns[3] if scored else None,
    )


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("max_average", [100, 5, 2.5])
def test_matches_activitynets_proposal_evaluation(seed, max_average):
    truth_rows, proposal_rows = generated(seed)
    thresholds = np.linspace(0.5, 0.95, 10)
    result = evaluate_temporal_proposals(
        segments(truth_rows, False), segments(proposal_rows, True), max_proposals_per_video=max_average
    )
    average, per_video, auc = oracle(truth_rows, proposal_rows, max_average, thresholds)
    np.testing.assert_allclose(result.average_recall, average, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(result.proposals_per_video, per_video, rtol=1e-12)
    assert result.auc == pytest.approx(auc, rel=1e-12)


def test_recall_at_reads_the_budget_of_that_many_proposals():
    truth_rows, proposal_rows = generated(3)
    result = evaluate_temporal_proposals(segments(truth_rows, False), segments(proposal_rows, True))
    # With enough proposals the budgets are shares of the kept ones: AR@AN is read at AN or just below.
    assert result.recall_at(result.proposals_per_video[-1]) == result.average_recall[-1]
    assert set(result.to_dict()["headline"]) >= {"AUC"}


def test_eval_proposals_on_the_command_line(tmp_path):
    import json
    import subprocess
    import sys

    truth = {
        "database": {
            "v_a": {
                "subset": "validation",
                "duration": 100.0,
                "annotations": [{"segment": [1, 5], "label": "x"}, {"segment": [20, 40], "label": "y"}],
            }
        }
    }
    # ActivityNet's proposal files have no labels.
    proposals = {"results": {"v_a": [{"segment": [1, 5.5], "score": 0.9}, {"segment": [18, 41], "score": 0.8}]}}
    (tmp_path / "gt.json").write_text(json.dumps(truth))
    (tmp_path / "proposals.json").write_text(json.dumps(proposals))
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "geoiou.cli",
            "eval",
            str(tmp_path / "gt.json"),
            str(tmp_path / "proposals.json"),
            "--proposals",
            "--no-progress",
            "--json",
            str(tmp_path / "r.json"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    expected = evaluate_temporal_proposals(
        TemporalSegments(video_id=["v_a", "v_a"], label=["x", "y"], start=[1.0, 20.0], end=[5.0, 40.0]),
        TemporalSegments(video_id=["v_a", "v_a"], label=["", ""], start=[1.0, 18.0], end=[5.5, 41.0], score=[0.9, 0.8]),
    )
    headline = json.loads((tmp_path / "r.json").read_text())["result"]["headline"]
    assert headline["AUC"] == pytest.approx(expected.auc) and f"AUC    {expected.auc:7.2f}" in run.stdout
