"""`geoiou eval` on COCO panoptic files: recognized, PQ printed per category, files written, refusals."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from geoiou.evaluation import evaluate_panoptic
from geoiou.io import read_coco_panoptic
from tests.panoptic_datasets import write_panoptic_dataset


def run(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "geoiou.cli", "eval", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def test_panoptic_files_are_recognized_and_tabled(tmp_path: Path) -> None:
    truth, found = write_panoptic_dataset(tmp_path, 5, n_images=3)
    expected = evaluate_panoptic(read_coco_panoptic(truth), read_coco_panoptic(found))
    result = run(truth, found, "--json", tmp_path / "pq.json", "--csv", tmp_path / "pq.csv")
    assert result.returncode == 0, result.stderr
    assert "COCO panoptic, 3 images" in result.stdout
    assert f"All       | {100 * expected['PQ']:5.1f}" in result.stdout  # panopticapi's table
    assert "person" in result.stdout and "thing" in result.stdout and "stuff" in result.stdout
    document = json.loads((tmp_path / "pq.json").read_text())
    assert document["result"]["All"]["pq"] == expected["PQ"]
    rows = list(csv.DictReader((tmp_path / "pq.csv").open()))
    assert [row["name"] for row in rows][:2] == ["person", "car"]
    assert float(rows[0]["PQ"]) == pytest.approx(expected.per_category()[1]["pq"])


def test_folders_elsewhere_and_refusals(tmp_path: Path) -> None:
    truth, found = write_panoptic_dataset(tmp_path / "data", 6, n_images=2)
    moved = tmp_path / "maps"
    shutil.move(str(tmp_path / "data" / "predictions"), moved)
    result = run(truth, found, "--pred-folder", moved)
    assert result.returncode == 0, result.stderr
    result = run(truth, found)  # panopticapi's default folder is gone
    assert result.returncode == 1 and "not a readable PNG map" in result.stderr
    result = run(truth, found, "--pred-folder", moved, "--diagnose")
    assert result.returncode == 1 and "'--diagnose' must not be given for COCO panoptic files" in result.stderr
