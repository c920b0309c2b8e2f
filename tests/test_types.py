"""A strict type check of geoiou/ (mypy --strict, configured in pyproject.toml), run by the test suite.

Every module passes the strict check (`PENDING`, the worklist of modules still allowed errors,
is empty; a module put there may only lose errors until it leaves the list, and no module may add
errors).
Nothing is silenced in the code: there is no ``# type: ignore`` beyond those the check verifies.
"""

from __future__ import annotations

import collections
import pathlib

import pytest

api = pytest.importorskip("mypy.api", reason="mypy is in the test extra")

ROOT = pathlib.Path(__file__).parents[1]

#: Module -> the most strict-mode errors it may still have. Empty: every module of geoiou passes
#: `mypy --strict`; a module added here may only lose errors until it leaves the table.
PENDING: dict[str, int] = {}


@pytest.fixture(scope="module")
def errors_by_module(tmp_path_factory) -> collections.Counter:
    cache = tmp_path_factory.mktemp("mypy-cache")
    stdout, stderr, _ = api.run(
        ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache), str(ROOT / "geoiou")]
    )
    assert "error: " not in stderr, stderr
    counts: collections.Counter = collections.Counter()
    for line in stdout.splitlines():
        if ": error: " in line:
            path = pathlib.Path(line.split(":", 1)[0]).resolve().relative_to(ROOT).as_posix()
            counts[path] += 1
    return counts


def test_geoiou_passes_a_strict_type_check(errors_by_module):
    new = {module: count for module, count in errors_by_module.items() if module not in PENDING}
    assert not new, f"strict type errors in modules that had none: {new} (run: mypy geoiou)"


def test_pending_modules_only_lose_errors(errors_by_module):
    grown = {
        module: (errors_by_module[module], most) for module, most in PENDING.items() if errors_by_module[module] > most
    }
    assert not grown, f"modules with more strict type errors than before (now, before): {grown}"
    clean = [module for module in PENDING if errors_by_module[module] == 0]
    assert not clean, f"these modules pass the strict check now: remove them from PENDING: {clean}"


def test_the_package_says_it_is_typed():
    assert (ROOT / "geoiou" / "py.typed").exists()
