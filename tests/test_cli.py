"""The command line, driven as a subprocess the way a user runs it."""

import subprocess
import sys

import numpy as np
import pytest


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "geoiou.cli", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


def test_demo_prints_the_worked_examples_and_succeeds(tmp_path):
    result = run("demo", "--no-pictures", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "geoiou-demo").exists()
    assert "image_0002 detection" in result.stdout and "0.7980" in result.stdout
    assert "macro IoU of label sets" in result.stdout
    assert "DOTA P0706 (harbour): 536 quadrilaterals" in result.stdout
    assert "signed IoU, boxes 1 apart" in result.stdout and "threshold score of IoU 0.82" in result.stdout
    assert "25 of 25 worked examples match" in result.stdout
    assert " NO" not in result.stdout


def test_help_lists_the_demo():
    result = run("--help")
    assert result.returncode == 0 and "demo" in result.stdout


def test_no_command_prints_help_and_fails():
    result = run()
    assert result.returncode == 2 and "usage: geoiou" in result.stdout


def test_demo_tour_runs_one_evaluation_per_geometry_and_saves_pictures(tmp_path):
    image = pytest.importorskip("matplotlib.image")
    result = run("demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    # The headline numbers equal pycocotools' COCOeval on the same files (see the tour data README
    # and tests/test_cli_eval.py), and the others the Python API's.
    assert "boxes                    AP 0.298, AP50 0.529, AP75 0.254" in result.stdout
    for stop in ("rotated quadrilaterals   mAP", "polygons vs masks        AP", "intervals                average mAP"):
        assert stop in result.stdout
    # The agreement table is evaluate_agreement's on the two bundled annotators (tests/evaluation/test_agreement.py).
    assert "agreement                F1 0.940 at IoU >= 0.5: 923 matched, 61 only in A, 57 only in B" in result.stdout
    assert "all                   984    980      923      61      57      0.942" in result.stdout
    pictures = sorted((tmp_path / "geoiou-demo").glob("*.png"))
    assert len(pictures) == 10 and "Saved 10 pictures in geoiou-demo" in result.stdout
    for path in pictures:
        pixels = image.imread(path)
        colours = np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)
        assert len(colours) > 20, path.name  # drawn, not blank


def test_demo_help_names_its_options():
    result = run("demo", "--help")
    assert result.returncode == 0 and "--output" in result.stdout and "--no-pictures" in result.stdout
