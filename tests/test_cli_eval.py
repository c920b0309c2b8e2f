"""`geoiou eval GT PRED`, driven as a subprocess, on the bundled tour dataset and small files made here."""

import csv
import json
import re
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest

from tests.peers import run_cocoeval

TOUR = files("geoiou") / "data" / "tour"
DOTA = files("geoiou") / "data" / "dota"


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "geoiou.cli", "eval", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def cocoeval_stats(iou_type, instances=TOUR / "coco" / "instances.json", results=TOUR / "coco" / "results-bbox.json"):
    """pycocotools' own numbers for COCO files: the independent reference."""
    return run_cocoeval(json.loads(Path(instances).read_text()), json.loads(Path(results).read_text()), iou_type).stats


def test_coco_boxes_equal_cocoeval(tmp_path):
    out = tmp_path / "result.json"
    result = run(TOUR / "coco" / "instances.json", TOUR / "coco" / "results-bbox.json", "--json", out)
    assert result.returncode == 0, result.stderr
    assert "coco (bbox)" in result.stdout and "Average Precision  (AP) @[ IoU=0.50:0.95" in result.stdout
    stats = json.loads(out.read_text())["result"]["stats"]
    np.testing.assert_array_equal(list(stats.values()), cocoeval_stats("bbox"))


def test_coco_segmentation_with_pycocotools_rasterization_equals_cocoeval(tmp_path):
    # Polygon ground truth rasterized as pycocotools does, against RLE predictions: COCOeval's segm numbers.
    instances, results = TOUR / "coco" / "instances.json", TOUR / "coco" / "results-segm.json"
    out = tmp_path / "result.json"
    result = run(instances, results, "--polygon-iou", "pycocotools", "--json", out)
    assert result.returncode == 0, result.stderr
    document = json.loads(out.read_text())
    np.testing.assert_array_equal(
        list(document["result"]["stats"].values()), cocoeval_stats("segm", instances, results)
    )
    assert document["geometry"] == "segmentation"


def test_coco_segmentation_exact_matches_the_python_api(small_coco):
    from geoiou.evaluation import evaluate_coco
    from geoiou.io.coco import read_coco, read_coco_results

    instances, results = small_coco
    truth = read_coco(instances, geometry="segmentation")
    predicted = read_coco_results(results)
    expected = evaluate_coco(
        truth.annotations, predicted.annotations, images=truth.images, categories=list(truth.categories)
    )
    result = run(instances, results)
    assert result.returncode == 0, result.stderr
    assert expected.summary() in result.stdout


def test_dota_folder_and_task1_files_with_csv_and_pr_curve(tmp_path):
    from geoiou.evaluation import evaluate_voc
    from geoiou.io.dota import read_dota_folder, read_dota_task1

    table, picture = tmp_path / "classes.csv", tmp_path / "pr.png"
    result = run(DOTA, TOUR / "dota-task1", "--csv", table, "--pr-curve", picture)
    assert result.returncode == 0, result.stderr
    truth, predicted = read_dota_folder(DOTA), read_dota_task1(TOUR / "dota-task1")
    expected = evaluate_voc(
        truth.annotations, predicted.annotations, interpolation="11point", images=list(truth.images)
    )
    assert f"= {expected.mAP:.4f}" in result.stdout and "11 points" in result.stdout
    rows = list(csv.DictReader(table.open()))
    assert {row["category"] for row in rows} == set(expected.per_category())
    ship = next(row for row in rows if row["category"] == "ship")
    assert float(ship["AP"]) == expected.per_category()["ship"]["AP"]
    image = pytest.importorskip("matplotlib.image").imread(picture)
    assert image.shape[0] > 100 and len(np.unique(image.reshape(-1, image.shape[-1]), axis=0)) > 10


def test_activitynet_files(tmp_path):
    from geoiou.evaluation import evaluate_temporal_detection
    from geoiou.io.activitynet import read_activitynet

    out = tmp_path / "result.json"
    result = run(
        TOUR / "activitynet" / "ground_truth.json",
        TOUR / "activitynet" / "results.json",
        "--subset",
        "validation",
        "--json",
        out,
    )
    assert result.returncode == 0, result.stderr
    expected = evaluate_temporal_detection(
        read_activitynet(TOUR / "activitynet" / "ground_truth.json").segments,
        read_activitynet(TOUR / "activitynet" / "results.json").segments,
    )
    assert json.loads(out.read_text())["result"]["average_mAP"] == expected.average_mean_ap
    thumos = run(
        TOUR / "activitynet" / "ground_truth.json",
        TOUR / "activitynet" / "results.json",
        "--tiou-thresholds",
        "thumos14",
    )
    assert "0.30" in thumos.stdout and "0.70" in thumos.stdout


def write_yolo(folder, rows_by_image):
    folder.mkdir()
    for image, rows in rows_by_image.items():
        (folder / f"{image}.txt").write_text("".join(" ".join(map(str, row)) + "\n" for row in rows))


def test_yolo_folders_normalised_and_in_pixels_give_the_same_ap50(tmp_path):
    write_yolo(
        tmp_path / "gt", {"a": [(0, 0.5, 0.5, 0.2, 0.4), (1, 0.2, 0.2, 0.1, 0.1)], "b": [(0, 0.7, 0.3, 0.3, 0.3)]}
    )
    write_yolo(
        tmp_path / "pred",
        {"a": [(0, 0.52, 0.5, 0.2, 0.4, 0.9), (1, 0.6, 0.6, 0.1, 0.1, 0.8)], "b": [(0, 0.7, 0.32, 0.3, 0.28, 0.7)]},
    )
    normalised = run(tmp_path / "gt", tmp_path / "pred", "--json", tmp_path / "n.json")
    pixels = run(tmp_path / "gt", tmp_path / "pred", "--image-size", "480,640", "--json", tmp_path / "p.json")
    assert normalised.returncode == 0 and pixels.returncode == 0, normalised.stderr + pixels.stderr
    first = json.loads((tmp_path / "n.json").read_text())["result"]["stats"]
    second = json.loads((tmp_path / "p.json").read_text())["result"]["stats"]
    # IoU is invariant under scaling x and y separately, so every threshold's AP is the same.
    assert first["AP50"] == second["AP50"] and first["AP"] == second["AP"]
    # Class 0 is found twice (IoU 0.82 and 0.82), class 1's prediction misses: AP50 = (1 + 0) / 2.
    assert first["AP50"] == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda tmp: (tmp / "none.json", TOUR / "coco" / "results-bbox.json"), "none.json: no such file or folder"),
        (lambda tmp: (write(tmp / "bad.json", '{"images": [1, 2'), TOUR / "coco" / "results-bbox.json"), "bad.json"),
        (lambda tmp: (write(tmp / "other.json", '{"hello": 1}'), TOUR / "coco" / "results-bbox.json"), "pass --format"),
        (
            lambda tmp: (
                TOUR / "coco" / "instances.json",
                write(tmp / "r.json", '[{"image_id": 1, "category_id": 1, "bbox": [0, 0, -3, 4], "score": 0.5}]'),
            ),
            "r.json, results[0]",
        ),
    ],
)
def test_bad_input_fails_with_one_line(tmp_path, make, message):
    result = run(*make(tmp_path))
    assert result.returncode == 1, result.stdout
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr


def write(path, text):
    path.write_text(text)
    return path


def test_skip_invalid_reports_what_was_skipped(tmp_path):
    records = json.loads((TOUR / "coco" / "results-bbox.json").read_text())
    records[3]["bbox"] = [0, 0, -1, 5]
    records[7]["score"] = "high"
    path = write(tmp_path / "r.json", json.dumps(records))
    failing = run(TOUR / "coco" / "instances.json", path)
    assert failing.returncode == 1
    result = run(TOUR / "coco" / "instances.json", path, "--skip-invalid")
    assert result.returncode == 0, result.stderr
    assert "skipped 2" in result.stderr


def test_no_progress_bar_when_not_a_terminal():
    result = run(DOTA, TOUR / "dota-task1")
    assert result.returncode == 0 and "\r" not in result.stderr


def test_help_lists_formats():
    result = run("--help")
    assert result.returncode == 0
    for word in ("coco", "dota", "yolo", "activitynet", "--json", "--csv", "--pr-curve", "--skip-invalid"):
        assert word in result.stdout


@pytest.mark.parametrize(
    ("truth", "predictions", "message"),
    [
        (
            TOUR / "coco" / "results-bbox.json",
            TOUR / "coco" / "instances.json",
            "results-bbox.json: this looks like COCO results (a list of scored objects), given as the ground truth: "
            "did you swap them?",
        ),
        (
            TOUR / "activitynet" / "results.json",
            TOUR / "activitynet" / "ground_truth.json",
            "results.json: this looks like ActivityNet results, given as the ground truth: did you swap them?",
        ),
        (
            TOUR / "dota-task1",
            DOTA,
            "this looks like DOTA Task1 predictions (Task1_<class>.txt files), given as the ground "
            "truth: did you swap them?",
        ),
        (
            TOUR / "coco" / "instances.json",
            TOUR / "coco" / "instances.json",
            "instances.json: this looks like a COCO ground truth, given as the predictions: did you swap them?",
        ),
        (DOTA, DOTA, "this looks like a DOTA ground truth, given as the predictions: did you swap them?"),
    ],
)
def test_swapped_ground_truth_and_predictions_are_named(truth, predictions, message):
    from geoiou.cli.eval_inputs import detect_format, load_inputs
    from geoiou.errors import FormatError

    with pytest.raises(FormatError) as caught:
        load_inputs(
            detect_format(str(truth)),
            str(truth),
            str(predictions),
            geometry="auto",
            image_size=None,
            subset=None,
            skip_invalid=False,
        )
    assert message in str(caught.value) and "geoiou eval GROUND_TRUTH PREDICTIONS" in str(caught.value)


def test_swapped_yolo_folders_are_named(tmp_path):
    write_yolo(tmp_path / "gt", {"a": [(0, 0.5, 0.5, 0.2, 0.4)]})
    write_yolo(tmp_path / "pred", {"a": [(0, 0.52, 0.5, 0.2, 0.4, 0.9)]})
    result = run(tmp_path / "pred", tmp_path / "gt")
    assert result.returncode == 1 and "did you swap them?" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert run(tmp_path / "gt", tmp_path / "pred").returncode == 0


def test_activitynet_ground_truth_of_several_subsets_is_evaluated_on_validation_and_says_so(tmp_path):
    # Never mix subsets silently: the default is ActivityNet's own (validation), and stderr says it was chosen.
    document = json.loads((TOUR / "activitynet" / "ground_truth.json").read_text())
    for video in list(document["database"])[::3]:
        document["database"][video]["subset"] = "training"
    truth = tmp_path / "gt.json"
    truth.write_text(json.dumps(document))
    default = run(truth, TOUR / "activitynet" / "results.json", "--json", tmp_path / "default.json")
    chosen = run(
        truth, TOUR / "activitynet" / "results.json", "--subset", "validation", "--json", tmp_path / "chosen.json"
    )
    every = run(truth, TOUR / "activitynet" / "results.json", "--subset", "all", "--json", tmp_path / "all.json")
    assert default.returncode == chosen.returncode == every.returncode == 0, default.stderr
    assert "evaluating the 'validation' subset" in default.stderr and "subset" not in chosen.stderr
    mean_ap = {
        name: json.loads((tmp_path / f"{name}.json").read_text())["result"]["average_mAP"]
        for name in ("default", "chosen", "all")
    }
    assert mean_ap["default"] == mean_ap["chosen"] != mean_ap["all"]


def test_single_label_files_are_evaluated_like_folders_of_one_image(tmp_path):
    # A DOTA label file against the Task1 files, and a YOLO label file against a YOLO prediction file.
    task1 = tmp_path / "task1"  # the submission's lines for this one image
    task1.mkdir()
    for path in (TOUR / "dota-task1").iterdir():
        lines = [line for line in path.read_text().splitlines() if line.startswith("P0706 ")]
        (task1 / path.name).write_text("".join(line + "\n" for line in lines))
    dota_file = run(DOTA / "P0706.txt", task1, "--json", tmp_path / "file.json")
    assert dota_file.returncode == 0, dota_file.stderr
    folder = tmp_path / "one"
    folder.mkdir()
    (folder / "P0706.txt").write_text((DOTA / "P0706.txt").read_text())
    dota_folder = run(folder, task1, "--json", tmp_path / "folder.json")
    assert dota_folder.returncode == 0, dota_folder.stderr
    assert (
        json.loads((tmp_path / "file.json").read_text())["result"]
        == json.loads((tmp_path / "folder.json").read_text())["result"]
    )
    truth, predicted = tmp_path / "street.txt", tmp_path / "pred" / "street.txt"
    predicted.parent.mkdir()
    truth.write_text("0 0.5 0.5 0.2 0.4\n1 0.2 0.2 0.1 0.1\n")
    predicted.write_text("0 0.5 0.5 0.2 0.4 0.9\n1 0.7 0.7 0.1 0.1 0.8\n")
    yolo = run(truth, predicted, "--json", tmp_path / "yolo.json")
    assert yolo.returncode == 0, yolo.stderr
    assert json.loads((tmp_path / "yolo.json").read_text())["result"]["stats"]["AP50"] == pytest.approx(0.5)


def test_segmentation_summary_names_the_polygon_model(small_coco):
    """Issue 24, item 13: exact polygons by default differ from pycocotools' raster on small objects: say which."""
    instances, results = small_coco
    exact = run(instances, results, "--no-progress")
    assert exact.returncode == 0, exact.stderr
    assert "(segmentation, exact polygons; --polygon-iou pycocotools for pycocotools' raster)" in exact.stdout
    raster = run(instances, results, "--no-progress", "--polygon-iou", "pycocotools")
    assert raster.returncode == 0, raster.stderr
    assert "(segmentation, polygons rasterized as pycocotools does)" in raster.stdout


def test_digits_apply_to_the_voc_table():
    result = run(DOTA, TOUR / "dota-task1", "--digits", "6", "--no-progress")
    assert result.returncode == 0, result.stderr
    # The mAP line with 6 decimals (the default shows 4).
    assert re.search(r"mAP \(11 points, IoU > 0.5\) = 0\.\d{6}$", result.stdout.strip()), result.stdout
