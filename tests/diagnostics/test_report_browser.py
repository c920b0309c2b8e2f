"""The report page in a real headless browser: it loads without script errors and shows the JSON's numbers.

Chromium (Debian's ``chromium`` package) renders each page with ``--dump-dom``, which prints the
document after its scripts ran. The page records any script error in ``data-script-errors`` (a
listener registered before every other script, so it sees syntax errors too) and sets
``data-ready`` when its own script finished. Every number it shows carries its JSON pointer and
value; each is compared with the JSON file that ``geoiou report --json`` wrote.

When no Chromium is found, the session installs Debian's (``apt-get install chromium``) where it
may (root, with apt-get: CI's machines), and a failed install fails the tests, so CI never passes
without running them; elsewhere (a developer's machine without the rights) they skip, saying why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from geoiou.cli import main
from tests.conftest import TOUR

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser() -> str | None:
    return next((path for path in map(shutil.which, BROWSERS) if path), None)


def install_browser() -> str:
    """Install Debian's chromium with apt-get; return what went wrong, or "" on success."""
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    command = ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]
    result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=1200)
    if result.returncode != 0:  # package lists may be missing or stale
        subprocess.run(["apt-get", "update"], capture_output=True, env=environment, timeout=600)
        result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=1200)
    return "" if result.returncode == 0 else result.stderr.strip().splitlines()[-1:][0] if result.stderr else "failed"


@pytest.fixture(scope="session")
def browser() -> str:
    found = find_browser()
    reason = "no chromium, chromium-browser or google-chrome on PATH"
    if found is None and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        problem = install_browser()
        found = find_browser()
        if found is None:  # this machine may install it: the tests must run here
            pytest.fail(f"apt-get install chromium failed: {problem or reason}")
    elif found is None:
        pytest.skip(f"{reason} and this process cannot install it (apt-get as root): install Debian's chromium")
    assert found is not None
    return found


class Shown(HTMLParser):
    """The numbers a page shows (elements with ``data-key``: pointer, value, text) and the body's attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.numbers: list[tuple[str, str, str]] = []
        self.body: dict[str, str | None] = {}
        self._open: list[list[str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "body":
            self.body = found
        if "data-key" in found:
            self._open.append([str(found["data-key"]), str(found["data-value"]), ""])

    def handle_data(self, data: str) -> None:
        for entry in self._open:
            entry[2] += data

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "span") and self._open:
            self.numbers.append(tuple(self._open.pop()))  # type: ignore[arg-type]


def rendered(browser: str, page, profile) -> Shown:
    command = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
        "--virtual-time-budget=10000", "--dump-dom", page.as_uri(),
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    shown = Shown()
    shown.feed(result.stdout)
    return shown


def at(document, pointer: str):
    """The value of `document` at a JSON pointer (RFC 6901)."""
    value = document
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


REPORTS = {
    "coco boxes, compared with segmentation": (
        TOUR / "coco" / "instances.json", TOUR / "coco" / "results-bbox.json",
        ["--compare", TOUR / "coco" / "results-segm.json", "--resamples", "30"],
    ),
    "dota polygons": (TOUR.parent / "dota", TOUR / "dota-task1", []),
    "activitynet segments": (TOUR / "activitynet" / "ground_truth.json", TOUR / "activitynet" / "results.json", []),
}  # fmt: skip


@pytest.mark.parametrize("name", list(REPORTS))
def test_the_page_loads_without_script_errors_and_shows_the_json(name, browser, tmp_path):
    truth, predictions, extra = REPORTS[name]
    page, out = tmp_path / "report.html", tmp_path / "report.json"
    assert main(["report", str(truth), str(predictions), "-o", str(page), "--json", str(out), *map(str, extra)]) == 0
    document = json.loads(out.read_text())
    shown = rendered(browser, page, tmp_path / "profile")
    assert shown.body.get("data-script-errors") is None, shown.body["data-script-errors"]
    assert shown.body.get("data-ready") == "yes"
    assert len(shown.numbers) > 50
    for pointer, value, text in shown.numbers:
        expected = at(document, pointer)
        text = text.strip()
        if expected is None:
            assert (value, text) == ("null", "n/a"), pointer
        elif isinstance(expected, int):
            assert int(value) == expected and text == str(expected), pointer
        else:
            assert float(value) == expected, pointer  # the full value, to the last bit
            assert abs(float(text) - expected) <= 0.5e-4 + 1e-12, (pointer, text, expected)  # shown to 4 decimals
    pointers = {pointer for pointer, _, _ in shown.numbers}
    assert {f"/result/headline/{key}" for key in document["result"]["headline"]} <= pointers
    assert {f"/diagnostics/tide/delta_AP/{key}" for key in document["diagnostics"]["tide"]["delta_AP"]} <= pointers
