"""MS-TCN's frame-label files and `geoiou eval` of them (issue 24, item 16)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from geoiou.errors import FormatError
from geoiou.evaluation import evaluate_action_segmentation
from geoiou.io.mstcn import read_mstcn_labels, read_mstcn_mapping

TRUTH = {
    "S1": "background take take take background open open background",
    "S2": "background open open open",
    "S3": "take take",
}
RECOGNISED = {"S1": "background take take background background open open open", "S2": "background open open take"}


@pytest.fixture
def dataset(tmp_path):
    """MS-TCN's layout: data/<dataset>/{groundTruth/, mapping.txt} and results/ (files named by the video stem)."""
    root = tmp_path / "data" / "gtea"
    (root / "groundTruth").mkdir(parents=True)
    (root / "mapping.txt").write_text("0 background\n1 take\n2 open\n")
    for video, labels in TRUTH.items():
        (root / "groundTruth" / f"{video}.txt").write_text("\n".join(labels.split()) + "\n")
    (tmp_path / "results").mkdir()
    for video, labels in RECOGNISED.items():
        (tmp_path / "results" / video).write_text(f"### Frame level recognition: ###\n{labels}\n")
    return root, tmp_path / "results"


def test_ground_truth_and_recognition_files_are_read_by_video(dataset):
    root, results = dataset
    truth = read_mstcn_labels(root / "groundTruth", mapping=read_mstcn_mapping(root / "mapping.txt"))
    predicted = read_mstcn_labels(results)
    assert list(truth.labels) == ["S1", "S2", "S3"] and truth.labels["S2"].tolist() == TRUTH["S2"].split()
    assert predicted.labels["S1"].tolist() == RECOGNISED["S1"].split() and truth.report.read == 3


def test_a_label_outside_mapping_is_refused_naming_file_and_line(dataset):
    root, _ = dataset
    (root / "groundTruth" / "S2.txt").write_text("background\npour\n")
    with pytest.raises(FormatError, match=r"S2.txt, line 2: 'label' must be a class of mapping.txt \(got 'pour'"):
        read_mstcn_labels(root / "groundTruth", mapping=read_mstcn_mapping(root / "mapping.txt"))


def test_eval_of_mstcn_folders_equals_the_python_api(dataset, tmp_path):
    root, results = dataset
    run = subprocess.run(
        [sys.executable, "-m", "geoiou.cli", "eval", str(root / "groundTruth"), str(results), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    expected = evaluate_action_segmentation(
        {video: np.array(TRUTH[video].split()) for video in RECOGNISED},
        {video: np.array(labels.split()) for video, labels in RECOGNISED.items()},
    )
    assert "geoiou eval: mstcn (frames), 2 videos, 12 frames" in run.stdout
    assert f"Acc: {expected.accuracy:.4f}" in run.stdout and f"Edit: {expected.edit:.4f}" in run.stdout
    assert f"F1@0.10: {expected.f1[0]:.4f}" in run.stdout
    # S3 has no prediction: left out, as MS-TCN evaluates the videos of one split, and said so.
    assert "1 ground-truth videos without predictions are left out" in run.stderr
