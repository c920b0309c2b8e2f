"""ruff's lint (configured in pyproject.toml: pycodestyle and pyflakes, lines of at most 120) over the code base.

Every file passes (`PENDING`, the worklist of files still allowed findings, is empty; a file put
there may only lose findings until it leaves the list). The code base is formatted
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

#: File -> the most findings it may still have. Empty: every file passes; a file put here may only
#: lose findings until it leaves the table.
PENDING: dict[str, int] = {}


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
