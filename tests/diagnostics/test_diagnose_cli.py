"""``geoiou eval --diagnose`` and ``geoiou report``: files written, numbers equal to the Python API's."""

from __future__ import annotations

import csv
import json
import re

import numpy as np
import pytest

from geoiou.cli import main
from geoiou.diagnostics import diagnose
from geoiou.evaluation import CocoEvaluation
from geoiou.io import read_coco, read_coco_results
from tests.conftest import TOUR

COCO_TRUTH, COCO_BOXES, COCO_SEGM = (TOUR / "coco" / name for name in ("instances.json", "results-bbox.json",
                                                                         "results-segm.json"))  # fmt: skip
#: src, href or url() values that would make the page fetch something (anything but data: and in-page anchors).
EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["'](?!data:|#)[^"']+|url\(\s*["']?(?!data:|#)[^)"']+|@import""")


def run(*arguments, capsys=None) -> int:
    return main([str(argument) for argument in arguments])


def test_eval_diagnose_prints_tide_and_writes_every_diagnostic(tmp_path, capsys):
    out, folder = tmp_path / "result.json", tmp_path / "tables"
    assert run("eval", COCO_TRUTH, COCO_BOXES, "--diagnose", "--json", out, "--diagnose-csv", folder) == 0
    printed = capsys.readouterr().out
    assert "TIDE errors at foreground IoU 0.50, background 0.10: AP 52.87" in printed
    document = json.loads(out.read_text())
    truth = read_coco(COCO_TRUTH, geometry="bbox")
    expected = diagnose(
        truth.annotations,
        read_coco_results(COCO_BOXES).annotations,
        evaluation=CocoEvaluation(categories=list(truth.categories)),
        images=truth.images,
    )
    assert document["diagnostics"]["tide"] == json.loads(json.dumps(expected.tide().to_dict()))
    assert document["diagnostics"]["confusion_matrix"]["counts"] == expected.confusion_matrix().counts.tolist()
    assert document["result"]["headline"] == expected.result.to_dict()["headline"]
    names = sorted(path.name for path in folder.iterdir())
    assert names == sorted(f"{stem}.csv" for stem in ("tide", "tide_per_category", "confusion", "f_beta",
                                                       "per_image", "label_errors", "calibration"))  # fmt: skip
    with open(folder / "tide.csv", newline="") as handle:
        rows = {row["error"]: row for row in csv.DictReader(handle)}
    assert float(rows["classification"]["dAP"]) == pytest.approx(expected.tide().delta_ap["classification"])


@pytest.mark.parametrize(
    ("truth", "predictions", "words"),
    [
        (TOUR.parent / "dota", TOUR / "dota-task1", "worst images (F1): P0770"),
        (TOUR / "activitynet" / "ground_truth.json", TOUR / "activitynet" / "results.json", "worst videos (F1)"),
    ],
)
def test_eval_diagnose_of_polygons_and_of_temporal_segments(truth, predictions, words, capsys):
    assert run("eval", truth, predictions, "--diagnose") == 0
    assert words in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--diagnose-csv", "x"], "'--diagnose-csv' must be used with '--diagnose'"),
        (["--diagnose", "--background-threshold", "0.6"], "'background_threshold' must be a number from"),
    ],
)
def test_eval_diagnose_refusals(extra, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run("eval", COCO_TRUTH, COCO_BOXES, *extra) == 1
    assert message in capsys.readouterr().err


def test_report_writes_one_self_contained_page_and_its_json(tmp_path, capsys):
    pictures = tmp_path / "pictures"
    pictures.mkdir()
    png = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")  # a PNG's head is enough
    (pictures / "P0706.png").write_bytes(png)  # found by COCO's file_name
    page, out = tmp_path / "report.html", tmp_path / "report.json"
    arguments = ["report", COCO_TRUTH, COCO_BOXES, "-o", page, "--json", out, "--compare", COCO_SEGM,
                 "--resamples", 20, "--images", pictures, "--worst", 7]  # fmt: skip
    assert run(*arguments) == 0
    text, document = page.read_text(), json.loads(out.read_text())
    assert not EXTERNAL.findall(text), EXTERNAL.findall(text)[:3]
    assert text.count('class="image"') == 7 and text.count("data:image/png;base64,") == 1
    assert set(document) >= {"result", "diagnostics", "slices", "comparison", "per_category"}
    assert document["slices"]["all images"]["headline"] == document["result"]["headline"]
    assert document["comparison"]["metrics"]["AP"]["second"] == pytest.approx(0.1543, abs=5e-5)  # segm's own AP
    embedded = re.search(r'<script type="application/json" id="geoiou-data">(.*?)</script>', text, re.S).group(1)
    assert json.loads(embedded) == document


def test_report_slices_from_a_file_and_refusals(tmp_path, capsys):
    slices = tmp_path / "slices.json"
    slices.write_text(json.dumps({"large images": [1, 4], "the rest": [2, 3, 5, 6, 7]}))
    out = tmp_path / "r.json"
    assert run("report", COCO_TRUTH, COCO_BOXES, "-o", tmp_path / "r.html", "--json", out, "--slices", slices) == 0
    assert json.loads(out.read_text())["slices"]["large images"]["images"] == 2
    slices.write_text(json.dumps({"none": [42]}))
    assert run("report", COCO_TRUTH, COCO_BOXES, "-o", tmp_path / "r.html", "--slices", slices) == 1
    assert "'slices[\"none\"]' must be ids of the evaluation's images (got 42)" in capsys.readouterr().err
    assert run("report", COCO_TRUTH, COCO_BOXES, "-o", tmp_path / "r.html", "--worst", 0) == 1
    assert "'--worst' must be a positive number" in capsys.readouterr().err
    assert not np.any([path.name.startswith(".") for path in tmp_path.iterdir()])  # no temporary file left
