"""ruff's lint (configured in pyproject.toml: pycodestyle and pyflakes, lines of at most 120) over the code base.

Every file passes except those in `PENDING`, the files that had findings when the check landed
(most of them lines over 120 characters), several of them being rewritten on other branches.
Each keeps at most the findings it had then, so the list can only shrink: a file brought to zero
must leave the list (the test says so), and no file may add findings. ``ruff format`` is
configured at the same line length; the code base is not formatted with it yet (a change of every
file, for a moment when no branch is open).
"""

from __future__ import annotations

import collections
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).parents[1]
CHECKED = ["geoiou", "tests", "tools", "benchmarks", "conftest.py"]

#: File -> the most findings it may still have (the count when the check landed).
PENDING = {
    "benchmarks/bench_dask.py": 2,
    "benchmarks/bench_detection.py": 1,
    "benchmarks/bench_end_to_end.py": 2,
    "benchmarks/bench_engine.py": 3,
    "benchmarks/bench_mask_outline.py": 1,
    "benchmarks/bench_matching.py": 6,
    "benchmarks/e2e_workloads.py": 2,
    "benchmarks/run.py": 9,
    "geoiou/_compiled.py": 2,
    "geoiou/cli/compare_command.py": 6,
    "geoiou/cli/iou_command.py": 3,
    "geoiou/dask/evaluations.py": 2,
    "geoiou/demo.py": 3,
    "geoiou/dispatch.py": 1,
    "geoiou/evaluation/action_segmentation.py": 2,
    "geoiou/evaluation/agreement.py": 3,
    "geoiou/evaluation/coco.py": 1,
    "geoiou/evaluation/detection.py": 7,
    "geoiou/evaluation/matches.py": 2,
    "geoiou/evaluation/temporal.py": 1,
    "geoiou/evaluation/voc.py": 2,
    "geoiou/io/activitynet.py": 2,
    "geoiou/io/coco.py": 4,
    "geoiou/io/dota.py": 3,
    "geoiou/io/folders.py": 6,
    "geoiou/io/geo.py": 3,
    "geoiou/io/json_documents.py": 1,
    "geoiou/io/literals.py": 2,
    "geoiou/io/report.py": 1,
    "geoiou/io/yolo.py": 4,
    "geoiou/kernels/box.py": 1,
    "geoiou/kernels/formulas.py": 2,
    "geoiou/kernels/hull.py": 9,
    "geoiou/matching.py": 3,
    "geoiou/metrics.py": 3,
    "geoiou/plot.py": 4,
    "geoiou/regions/box.py": 1,
    "geoiou/regions/interval.py": 1,
    "geoiou/regions/mask.py": 2,
    "geoiou/regions/mask_conversions.py": 1,
    "geoiou/regions/polygon.py": 7,
    "geoiou/regions/ragged.py": 1,
    "geoiou/regions/rotated_box.py": 1,
    "geoiou/rle.py": 11,
    "geoiou/rle_rasterize.py": 8,
    "geoiou/signed.py": 1,
    "geoiou/sparse.py": 1,
    "geoiou/tables/annotations.py": 7,
    "geoiou/tour.py": 2,
    "tests/evaluation/test_action_segmentation.py": 1,
    "tests/evaluation/test_agreement.py": 1,
    "tests/evaluation/test_detection_api.py": 6,
    "tests/evaluation/test_detection_coco.py": 8,
    "tests/evaluation/test_detection_voc.py": 8,
    "tests/evaluation/test_temporal.py": 1,
    "tests/io/test_activitynet_files.py": 10,
    "tests/io/test_coco_files.py": 18,
    "tests/io/test_columnar_reading.py": 1,
    "tests/io/test_dota.py": 7,
    "tests/io/test_geo_files.py": 13,
    "tests/io/test_malformed_corpus.py": 2,
    "tests/io/test_yolo.py": 13,
    "tests/kernels/test_hull.py": 4,
    "tests/kernels/test_mask_kernels.py": 5,
    "tests/kernels/test_polygon_overlap.py": 3,
    "tests/kernels/test_run_overlap.py": 5,
    "tests/test_batches.py": 2,
    "tests/test_cli_compare.py": 9,
    "tests/test_cli_eval.py": 6,
    "tests/test_conventions.py": 4,
    "tests/test_conversions.py": 1,
    "tests/test_cross_representation.py": 1,
    "tests/test_dask.py": 2,
    "tests/test_dispatch.py": 1,
    "tests/test_docs_site.py": 1,
    "tests/test_errors.py": 19,
    "tests/test_matching.py": 2,
    "tests/test_numeric_range.py": 2,
    "tests/test_oracles.py": 10,
    "tests/test_pairwise.py": 2,
    "tests/test_plot.py": 1,
    "tests/test_polygon_storage.py": 4,
    "tests/test_properties.py": 2,
    "tests/test_refusals.py": 6,
    "tests/test_rle.py": 11,
    "tests/test_single_pair.py": 2,
    "tests/test_sparse.py": 2,
    "tests/test_types.py": 1,
    "tools/make_tour_data.py": 4,
}


def ruff_command() -> list[str] | None:
    """How to run ruff here: the executable on PATH, or the module of this interpreter; None without either."""
    if shutil.which("ruff"):
        return ["ruff"]
    probe = subprocess.run([sys.executable, "-m", "ruff", "--version"], capture_output=True, text=True)
    return [sys.executable, "-m", "ruff"] if probe.returncode == 0 else None


@pytest.fixture(scope="module")
def findings_by_file() -> collections.Counter:
    command = ruff_command()
    if command is None:
        pytest.skip("ruff is in the test extra")
    result = subprocess.run([*command, "check", "--output-format", "concise", "--no-cache", *CHECKED], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode in (0, 1), result.stderr
    counts: collections.Counter = collections.Counter()
    for line in result.stdout.splitlines():
        path, _, rest = line.partition(":")
        if rest[:1].isdigit():  # path:line:column: CODE message
            counts[pathlib.Path(path).as_posix()] += 1
    return counts


def test_the_code_passes_ruff(findings_by_file):
    new = {path: count for path, count in findings_by_file.items() if path not in PENDING}
    assert not new, f"ruff findings in files that had none: {new} (run: ruff check {' '.join(CHECKED)})"


def test_pending_files_only_lose_findings(findings_by_file):
    grown = {path: (findings_by_file[path], most) for path, most in PENDING.items() if findings_by_file[path] > most}
    assert not grown, f"files with more ruff findings than before (now, before): {grown}"
    clean = [path for path in PENDING if findings_by_file[path] == 0]
    assert not clean, f"these files pass ruff now: remove them from PENDING: {clean}"


def test_ruff_is_configured_with_lines_of_at_most_120():
    text = (ROOT / "pyproject.toml").read_text()
    assert "[tool.ruff]" in text and "line-length = 120" in text
