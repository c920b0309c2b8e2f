"""The command line over bad inputs (issue 24, items 5-7): exit status 1 or 2, one readable line, no file written.

Each case is a command a red team ran; it must end with a line naming what was wrong, never a
Python traceback, and leave the folder as it was: a command that fails writes no partial output.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.resources import files

import pytest

from geoiou.cli import main

TOUR = files("geoiou") / "data" / "tour"
DOTA = files("geoiou") / "data" / "dota"
INSTANCES, RESULTS = TOUR / "coco" / "instances.json", TOUR / "coco" / "results-bbox.json"


def write(path, text):
    path.write_text(text if isinstance(text, str) else json.dumps(text))
    return str(path)


def bad_commands(tmp):
    """(argv, words expected in the error line) of each bad command, in a folder `tmp`."""
    huge = [{"image_id": 1, "category_id": 1, "score": 0.5, "segmentation": [[0, 0, 1e300, 0, 0, 1e300]]}]
    return [
        (["eval", str(tmp / "none.json"), str(RESULTS)], "none.json"),
        (["eval", write(tmp / "bad.json", '{"images": [1, 2'), str(RESULTS)], "bad.json"),
        (["eval", write(tmp / "empty.json", ""), str(RESULTS)], "empty.json"),
        (["eval", write(tmp / "binary.json", "\x89PNG\x00\x01"), str(RESULTS)], "binary.json"),
        (["eval", str(INSTANCES), write(tmp / "huge.json", huge)], "must hold coordinates within"),
        (
            [
                "eval",
                str(INSTANCES),
                write(tmp / "string.json", [{"image_id": 1, "category_id": 1, "score": "0.5", "bbox": [0, 0, 1, 1]}]),
            ],
            "'score'",
        ),
        (["eval", str(RESULTS), str(INSTANCES)], ""),  # swapped
        # Outputs that cannot be written: nothing at all is written, not even the --json that could be.
        (
            [
                "eval",
                str(INSTANCES),
                str(RESULTS),
                "--json",
                str(tmp / "out.json"),
                "--csv",
                str(tmp / "missing" / "x.csv"),
            ],
            "'--csv' must be a file in an existing folder",
        ),
        (
            ["eval", str(INSTANCES), str(RESULTS), "--json", str(tmp / "out.json"), "--pr-curve", str(tmp / "pr.xyz")],
            "'--pr-curve' must be a picture file whose suffix matplotlib writes",
        ),
        (["eval", str(INSTANCES), str(RESULTS), "--json", str(tmp)], "'--json' must be a file, not a folder"),
        (["eval", str(DOTA), str(TOUR / "dota-task1"), "--tiou-thresholds", "a,b", "--format", "activitynet"], ""),
        (["eval", str(DOTA), str(TOUR / "dota-task1"), "--format", "coco"], ""),
        (
            ["compare", str(DOTA), str(DOTA), "--json", str(tmp / "c.json"), "--csv", str(tmp / "missing" / "c.csv")],
            "'--csv' must be a file in an existing folder",
        ),
        (["compare", str(DOTA), str(DOTA), "--picture", write(tmp / "a-file", "x")], "'--picture' must be a folder"),
        (["iou", "box:0,0,1", "box:0,0,1,1"], "box:0,0,1"),
        (["iou", "box:0,0,1e300,1", "box:0,0,1,1"], "within"),
        (["iou", str(tmp / "none.wkt"), "box:0,0,1,1"], "none.wkt"),
        (["eval", str(INSTANCES), str(RESULTS), "--digits", "99"], "--digits"),
        (["eval", str(INSTANCES), str(RESULTS), "--workers", "0"], "--workers"),
    ]


def test_bad_commands_fail_with_one_line_and_write_nothing(tmp_path, capsys):
    for argv, words in bad_commands(tmp_path):
        before = sorted(path.name for path in tmp_path.rglob("*"))
        try:
            status = main([*argv, "--no-progress"] if argv[0] == "eval" else argv)
        except SystemExit as exit:  # argparse's refusal of a bad option value
            status = exit.code
        error = capsys.readouterr().err
        assert status in (1, 2), (argv, status, error)
        lines = [line for line in error.strip().splitlines() if line]
        last = lines[-1] if lines else ""
        assert "Traceback" not in error and last.startswith("geoiou"), (argv, error)
        if status == 1:  # our own refusal: one line (argparse's also prints its usage first)
            assert len(lines) == 1 or all(
                line.startswith(("geoiou", " ", "huge.json", "string.json")) for line in lines
            ), (argv, error)
        assert words in last or words in error, (argv, words, error)
        assert sorted(path.name for path in tmp_path.rglob("*")) == before, (argv, "wrote a file")


def test_the_process_prints_no_traceback_for_an_output_it_cannot_write(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "geoiou.cli",
            "eval",
            str(INSTANCES),
            str(RESULTS),
            "--json",
            str(tmp_path / "out.json"),
            "--csv",
            str(tmp_path / "missing_dir" / "x.csv"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert not (tmp_path / "out.json").exists()


def test_iou_json_writes_null_for_nan():
    # Two empty boxes: IoU 0/0 is NaN, which JSON has no word for; eval and compare write null (item 6).
    result = subprocess.run(
        [sys.executable, "-m", "geoiou.cli", "iou", "box:0,0,0,0", "box:0,0,0,0", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["IoU"] is None and "NaN" not in result.stdout


def test_outputs_are_all_written_when_all_can_be(tmp_path):
    status = main(
        [
            "eval",
            str(INSTANCES),
            str(RESULTS),
            "--no-progress",
            "--json",
            str(tmp_path / "r.json"),
            "--csv",
            str(tmp_path / "r.csv"),
        ]
    )
    assert status == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["r.csv", "r.json"]  # no temporary file left
    json.loads((tmp_path / "r.json").read_text())


def test_merge_of_states_with_different_settings_names_the_setting():
    from geoiou import InvalidArgumentError
    from geoiou.evaluation import TemporalDetectionEvaluation

    # Item 7: the message names the one setting that differs, with both values.
    with pytest.raises(
        InvalidArgumentError,
        match=r"this state's tiou_thresholds=\[0.5, .*\] \(got "
        r"'tiou_thresholds=\[0.5\]'\)",
    ):
        TemporalDetectionEvaluation().merge(TemporalDetectionEvaluation(tiou_thresholds=[0.5]))


def test_an_error_in_a_dask_worker_is_one_line(tmp_path):
    """Item 7: with --workers, a worker's error is the caller's one line, without the worker's log and traceback."""
    pytest.importorskip("distributed")
    script = tmp_path / "worker_error.py"
    script.write_text(
        "from geoiou.dask.cluster import connected\n"
        "from geoiou.errors import InvalidArgumentError\n"
        "def bad(x):\n"
        "    raise InvalidArgumentError(\"'x' must be good (got 1)\")\n"
        "if __name__ == '__main__':\n"
        "    with connected(workers=1) as client:\n"
        "        try:\n"
        "            client.submit(bad, 1).result()\n"
        "        except InvalidArgumentError as error:\n"
        "            print('caught', error)\n"
    )
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert "caught 'x' must be good (got 1)" in result.stdout, result.stderr
    assert "Compute Failed" not in result.stderr and "Traceback" not in result.stderr, result.stderr


# --------------------------------------------------------------------------- hints and warnings (items 9, 10, 15)
def run_eval(*args):
    return subprocess.run(
        [sys.executable, "-m", "geoiou.cli", "eval", *map(str, args), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_task1_image_names_with_an_extension_name_the_file_line_and_stem(tmp_path):
    lines = (TOUR / "dota-task1" / "Task1_ship.txt").read_text().splitlines()
    (tmp_path / "Task1_ship.txt").write_text("\n".join(line.replace("P0706 ", "P0706.png ", 1) for line in lines))
    result = run_eval(DOTA, tmp_path)
    number = next(k for k, line in enumerate(lines, start=1) if line.startswith("P0706 "))
    assert result.returncode == 1
    assert (
        f"Task1_ship.txt, line {number}: 'image_name' must be an image of the ground truth (got 'P0706.png'; "
        "did you mean 'P0706'?"
    ) in result.stderr


def test_one_label_file_as_ground_truth_evaluates_that_image_alone(tmp_path):
    # docs/howto/dota.md: `geoiou eval P0706.txt task1/` evaluates that image alone (item 15).
    result = run_eval(DOTA / "P0706.txt", TOUR / "dota-task1", "--json", tmp_path / "r.json")
    assert result.returncode == 0, result.stderr
    assert "DOTA: evaluating the image 'P0706' alone" in result.stderr and "other images left out" in result.stderr
    # P0706 holds 531 ships and 5 harbours (the tour's README): 536 ground truths.
    assert "536 ground truths" in result.stdout


def test_voc_options_given_to_a_coco_evaluation_are_reported_as_ignored():
    result = run_eval(INSTANCES, RESULTS, "--iou-threshold", "0.7", "--interpolation", "11point")
    assert result.returncode == 0, result.stderr
    assert "warning: --iou-threshold and --interpolation are not used by the coco evaluation" in result.stderr


def test_predictions_in_frames_against_durations_in_seconds_are_warned_about(tmp_path):
    truth = write(
        tmp_path / "gt.json",
        {
            "database": {
                "v_a": {"subset": "validation", "duration": 10.0, "annotations": [{"segment": [1, 5], "label": "x"}]}
            }
        },
    )
    # At 25 frames a second, [1, 5] s is [25, 125] frames: past the 10 s video, a unit mistake.
    results = write(tmp_path / "res.json", {"results": {"v_a": [{"segment": [25, 125], "label": "x", "score": 0.5}]}})
    result = run_eval(truth, results)
    assert result.returncode == 0, result.stderr
    assert "warning: 1 of 1 predictions end after their video's duration" in result.stderr


def test_skip_invalid_that_leaves_no_prediction_says_so(tmp_path):
    # Issue 24, item 14: the evaluation's own complaint was "'predictions.score' must be one score per prediction".
    (tmp_path / "gt").mkdir()
    (tmp_path / "pred").mkdir()
    (tmp_path / "gt" / "a.txt").write_text("0 0.5 0.5 0.2 0.2\n")
    (tmp_path / "pred" / "a.txt").write_text("0 0.5 0.5 0.2 0.2 nan\n")
    result = run_eval(tmp_path / "gt", tmp_path / "pred", "--skip-invalid")
    assert result.returncode == 1
    assert (
        "the predictions must keep at least one valid record (got none: --skip-invalid skipped all 1" in result.stderr
    ) and "predictions.score" not in result.stderr


def test_every_protocols_json_has_protocol_headline_and_per_category(tmp_path):
    """Issue 24, item 18: one JSON layout for all protocols (docs/cli.md, "The JSON layout")."""
    coco = tmp_path / "coco.json"
    assert main(["eval", str(INSTANCES), str(RESULTS), "--no-progress", "--json", str(coco)]) == 0
    voc = tmp_path / "voc.json"
    assert main(["eval", str(DOTA), str(TOUR / "dota-task1"), "--no-progress", "--json", str(voc)]) == 0
    temporal = tmp_path / "temporal.json"
    activitynet = TOUR / "activitynet"
    assert (
        main(
            [
                "eval",
                str(activitynet / "ground_truth.json"),
                str(activitynet / "results.json"),
                "--no-progress",
                "--json",
                str(temporal),
            ]
        )
        == 0
    )
    for path, protocol, headline in (
        (coco, "coco", "AP"),
        (voc, "voc", "mAP"),
        (temporal, "activitynet", "average_mAP"),
    ):
        result = json.loads(path.read_text())["result"]
        assert result["protocol"] == protocol and headline in result["headline"]
        assert all("category_id" in row for row in result["per_category"])


def test_eval_pictures_draw_the_worst_dota_images(tmp_path):
    pytest.importorskip("matplotlib")
    result = run_eval(DOTA, TOUR / "dota-task1", "--picture", tmp_path / "worst", "--pictures", "2")
    assert result.returncode == 0, result.stderr
    assert sorted(path.name for path in (tmp_path / "worst").iterdir()) == ["01-P0770.png", "02-P2598.png"]
    refused = run_eval(INSTANCES, RESULTS, "--picture", tmp_path / "coco")
    assert refused.returncode == 1 and "'--picture' must be used with a VOC evaluation" in refused.stderr
    assert not (tmp_path / "coco").exists()


def test_files_of_a_label_folder_that_are_not_read_are_named(tmp_path):
    # Issue 24, item 8: no file of a folder is dropped without a word (here a README and a stray picture).
    truth = tmp_path / "labelTxt"
    truth.mkdir()
    (truth / "P0001.txt").write_text("0 0 4 0 4 4 0 4 plane 0\n")
    (truth / "P0002.TXT").write_text("0 0 4 0 4 4 0 4 ship 0\n")
    (truth / "README.md").write_text("labels\n")
    (truth / "P0001.png").write_bytes(b"\x89PNG")
    predictions = tmp_path / "task1"
    predictions.mkdir()
    (predictions / "Task1_plane.txt").write_text("P0001 0.9 0 0 4 0 4 4 0 4\n")
    result = run_eval(truth, predictions)
    assert result.returncode == 0, result.stderr
    assert "labelTxt: 2 files not read as labels (*.txt only): P0001.png, README.md" in result.stderr
    assert "2 ground truths" in result.stdout  # P0002.TXT is read
