"""THUMOS14's per-class annotation files and `geoiou eval` of them (issue 24, item 16)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from geoiou.errors import FormatError
from geoiou.evaluation import evaluate_temporal_detection
from geoiou.io import read_activitynet
from geoiou.io.thumos import read_thumos14


@pytest.fixture
def annotations(tmp_path):
    folder = tmp_path / "annotation"
    folder.mkdir()
    (folder / "BaseballPitch_val.txt").write_text(
        "video_validation_0000051 67.5 75.9\nvideo_validation_0000051 85.9 90.6\n"
    )
    (folder / "CliffDiving_val.txt").write_text("video_validation_0000052 10.0 14.2\n")
    (folder / "Ambiguous_val.txt").write_text("video_validation_0000053 1.0 2.0\n")
    return folder


def test_classes_come_from_the_file_names_and_ambiguous_is_apart(annotations):
    read = read_thumos14(annotations)
    assert read.segments.label.tolist() == ["BaseballPitch", "BaseballPitch", "CliffDiving"]
    assert read.segments.end.tolist() == [75.9, 90.6, 14.2] and read.subset == "val"
    assert read.ambiguous.label.tolist() == ["Ambiguous"] and read.report.read == 4
    assert read.segments.videos == ("video_validation_0000051", "video_validation_0000052", "video_validation_0000053")


def test_bad_lines_name_the_file_and_line(annotations):
    (annotations / "CliffDiving_val.txt").write_text("video_validation_0000052 14.2 10.0\n")
    with pytest.raises(FormatError, match=r"CliffDiving_val.txt, line 1: 'end' must be >= start"):
        read_thumos14(annotations)
    assert len(read_thumos14(annotations, skip_invalid=True).segments) == 2
    (annotations / "notes.txt").write_text("x\n")
    with pytest.raises(FormatError, match=r"must be named <Class>_val.txt or <Class>_test.txt \(got 'notes.txt'\)"):
        read_thumos14(annotations)


def test_eval_of_thumos14_annotations_against_activitynet_results(annotations, tmp_path):
    results = tmp_path / "results.json"
    results.write_text(
        json.dumps(
            {
                "results": {
                    "video_validation_0000051": [
                        {"segment": [67.0, 76.0], "label": "BaseballPitch", "score": 0.9},
                        {"segment": [20.0, 25.0], "label": "BaseballPitch", "score": 0.8},
                    ],
                    "video_validation_0000052": [{"segment": [10.0, 14.0], "label": "CliffDiving", "score": 0.7}],
                }
            }
        )
    )
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "geoiou.cli",
            "eval",
            str(annotations),
            str(results),
            "--no-progress",
            "--json",
            str(tmp_path / "r.json"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "geoiou eval: thumos14 (interval)" in run.stdout and "1 Ambiguous segments are read apart" in run.stderr
    result = json.loads((tmp_path / "r.json").read_text())["result"]
    # THUMOS14's thresholds 0.3:0.7 by default, and the numbers of the Python API on the same segments.
    expected = evaluate_temporal_detection(
        read_thumos14(annotations).segments, read_activitynet(results).segments, tiou_thresholds="thumos14"
    )
    assert result["tiou_thresholds"] == pytest.approx([0.3, 0.4, 0.5, 0.6, 0.7])
    assert result["headline"]["average_mAP"] == pytest.approx(expected.average_mean_ap)
