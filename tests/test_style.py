"""ruff's lint (configured in pyproject.toml: pycodestyle and pyflakes, lines of at most 120) over the code base.

Every file passes except those in `PENDING`, the files that had findings when the check landed
(most of them lines over 120 characters), several of them being rewritten on other branches.
Each keeps at most the findings it had then, so the list can only shrink: a file brought to zero
must leave the list (the test says so), and no file may add findings. The code base is formatted
with ``ruff format`` at the same line length, and stays so (``ruff format --check``).
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
    "benchmarks/bench_end_to_end.py": 1,
    "benchmarks/run.py": 1,
    "geoiou/_compiled.py": 2,
    "geoiou/cli/iou_command.py": 1,
    "geoiou/demo.py": 1,
    "geoiou/evaluation/action_segmentation.py": 1,
    "geoiou/evaluation/agreement.py": 2,
    "geoiou/evaluation/detection.py": 3,
    "geoiou/evaluation/matches.py": 1,
    "geoiou/evaluation/temporal.py": 1,
    "geoiou/evaluation/voc.py": 1,
    "geoiou/io/coco.py": 2,
    "geoiou/io/dota.py": 1,
    "geoiou/io/folders.py": 3,
    "geoiou/io/geo.py": 1,
    "geoiou/io/literals.py": 1,
    "geoiou/io/report.py": 1,
    "geoiou/io/yolo.py": 1,
    "geoiou/kernels/box.py": 1,
    "geoiou/kernels/hull.py": 1,
    "geoiou/plot.py": 2,
    "geoiou/regions/mask.py": 1,
    "geoiou/regions/polygon.py": 3,
    "geoiou/rle.py": 2,
    "geoiou/rle_rasterize.py": 1,
    "geoiou/sparse.py": 1,
    "geoiou/tables/annotations.py": 2,
    "geoiou/tour.py": 1,
    "tests/io/test_coco_files.py": 10,
    "tests/io/test_geo_files.py": 2,
    "tests/io/test_yolo.py": 1,
    "tests/kernels/test_run_overlap.py": 1,
    "tests/test_cli_compare.py": 3,
    "tests/test_cli_eval.py": 1,
    "tests/test_docs_site.py": 1,
    "tests/test_errors.py": 1,
    "tests/test_matching.py": 1,
    "tests/test_types.py": 1,
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
    result = subprocess.run(
        [*command, "check", "--output-format", "concise", "--no-cache", *CHECKED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
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


def test_the_code_is_formatted_by_ruff():
    command = ruff_command()
    if command is None:
        pytest.skip("ruff is in the test extra")
    result = subprocess.run([*command, "format", "--check", *CHECKED], cwd=ROOT, capture_output=True, text=True)
    unformatted = [line for line in result.stdout.splitlines() if line.startswith("Would reformat")]
    assert result.returncode == 0, f"run `ruff format {' '.join(CHECKED)}`; not formatted: {unformatted}"


def test_ruff_is_configured_with_lines_of_at_most_120():
    text = (ROOT / "pyproject.toml").read_text()
    assert "[tool.ruff]" in text and "line-length = 120" in text
