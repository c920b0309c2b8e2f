"""A script's first call, as users run one: a fresh process, timed from its start to its exit.

Each case is a new Python process (``python -c ...``, or the ``geoiou`` command), run several
times; every run gets an empty numba cache directory (``NUMBA_CACHE_DIR``), so nothing compiled
is kept anywhere between runs (what numba still compiles, the evaluations' loops until they move
to the crate, is compiled in each run). Python's own bytecode is cached, as for any installed
package. The peers are the same scripts written with shapely, as a
user without geoiou would write them. Printed: the first run and the best of the runs, and the
ratio geoiou / peer (below 1: geoiou is faster), with issue 34's targets.

Benchmarks are not tests: nothing asserts on speed.

    python benchmarks/bench_first_run.py              # every case, 5 runs each (about a minute)
    python benchmarks/bench_first_run.py --runs 3 --markdown
    python benchmarks/bench_first_run.py --only polygons,cli
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

POLYGON_A = "[(30, 40), (70, 45), (65, 65), (32, 60)]"
POLYGON_B = "[(40, 30), (80, 50), (60, 75), (35, 55)]"
ROTATED_A, ROTATED_B = "(50, 50, 40, 20, 30)", "(55, 48, 30, 25, -15)"

#: The shapely script of a rotated box: its corners from the centre, sizes and angle, as a user writes it.
SHAPELY_RBOX = (
    "import math, shapely\n"
    "def rbox(cx, cy, w, h, angle):\n"
    "    t = math.radians(angle); c, s = math.cos(t), math.sin(t)\n"
    "    return shapely.Polygon([(cx + c * x - s * y, cy + s * x + c * y)\n"
    "                            for x, y in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))])\n"
)


@dataclass(frozen=True)
class Case:
    """One fresh-process case: `code` for ``python -c`` (or `command`, run as it is)."""

    key: str
    label: str
    code: str = ""
    command: tuple[str, ...] = ()


CASES = [
    Case("bare", "a bare interpreter (`python -c pass`)", "pass"),
    Case("import", "`import geoiou`", "import geoiou"),
    Case(
        "shapely_polygons",
        "shapely: two polygons' IoU",
        f"import shapely; a, b = shapely.Polygon({POLYGON_A}), shapely.Polygon({POLYGON_B}); "
        "print(a.intersection(b).area / a.union(b).area)",
    ),
    Case(
        "polygons",
        "geoiou: `iou` of two Polygons",
        f"import geoiou; print(geoiou.iou(geoiou.Polygon({POLYGON_A}), geoiou.Polygon({POLYGON_B})))",
    ),
    Case(
        "shapely_rotated",
        "shapely: two rotated boxes' IoU",
        SHAPELY_RBOX
        + f"a, b = rbox(*{ROTATED_A}), rbox(*{ROTATED_B}); print(a.intersection(b).area / a.union(b).area)",
    ),
    Case(
        "rotated",
        "geoiou: `iou` of two RotatedBoxes",
        f"import geoiou; print(geoiou.iou(geoiou.RotatedBox({ROTATED_A}), geoiou.RotatedBox({ROTATED_B})))",
    ),
    Case(
        "boxes",
        "geoiou: `iou` of two Boxes",
        "import geoiou; print(geoiou.iou(geoiou.Box([0, 0, 2, 2]), geoiou.Box([1, 1, 3, 3])))",
    ),
    Case(
        "polygon_mask",
        "geoiou: `giou` of a Polygon and a Mask",
        f"import geoiou, numpy as np; print(geoiou.giou(geoiou.Polygon({POLYGON_A}), "
        "geoiou.Mask(np.ones((20, 40), dtype=bool), origin=(30, 40))))",
    ),
    Case("cli", "`geoiou iou box:0,0,10,10 rbox:5,5,10,10,45`", command=("iou", "box:0,0,10,10", "rbox:5,5,10,10,45")),
    Case("demo", "`geoiou demo` (the README's first command)", command=("demo", "--output", "{tmp}/demo")),
]

#: Issue 34's targets: (case, reference case, most the ratio case / reference may be, or None for "beyond bare").
TARGETS = [
    ("polygons", "shapely_polygons", 1.5),
    ("rotated", "shapely_rotated", 1.5),
    ("cli", "shapely_rotated", 2.0),
]
#: `import geoiou` may cost at most this many seconds beyond a bare interpreter.
IMPORT_BEYOND_BARE_S = 0.1


def run_once(case: Case) -> float:
    """Seconds from the start of a fresh process to its exit, with an empty numba cache directory of its own."""
    scratch = Path(tempfile.mkdtemp(prefix="geoiou-first-run-"))
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(scratch / "numba"), "MPLBACKEND": "Agg"}
    # Python's bytecode is cached as in any installed package (pip compiles it at install): a machine that sets
    # PYTHONDONTWRITEBYTECODE would otherwise compile every module of every library in every run.
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    if case.command:
        geoiou_command = shutil.which("geoiou", path=str(Path(sys.executable).parent)) or "geoiou"
        argv = [geoiou_command, *(part.format(tmp=scratch) for part in case.command)]
    else:
        argv = [sys.executable, "-c", case.code]
    try:
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, env=environment, cwd=str(scratch), timeout=900)
        elapsed = time.perf_counter() - start
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if done.returncode != 0:
        raise RuntimeError(f"{case.key} failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return elapsed


def measure(cases: list[Case], runs: int) -> dict[str, tuple[float, float]]:
    """``(first run, best run)`` seconds of each case; the cases' runs interleave, so load drifts hit all alike."""
    times: dict[str, list[float]] = {case.key: [] for case in cases}
    for _ in range(runs):
        for case in cases:
            times[case.key].append(run_once(case))
    return {key: (values[0], min(values)) for key, values in times.items()}


def render(cases: list[Case], results: dict[str, tuple[float, float]], markdown: bool) -> str:
    lines = []
    if markdown:
        lines += ["| first call, a fresh process | first run | best run |", "|---|---|---|"]
        lines += [f"| {c.label} | {results[c.key][0]:.3f} s | {results[c.key][1]:.3f} s |" for c in cases]
    else:
        lines += [f"{c.label:55s} first {results[c.key][0]:7.3f} s   best {results[c.key][1]:7.3f} s" for c in cases]
    lines.append("")
    lines.append("| target | ratio (best runs) | met |" if markdown else "targets (ratio of best runs):")
    if markdown:
        lines.append("|---|---|---|")
    for case, reference, most in TARGETS:
        if case in results and reference in results:
            ratio = results[case][1] / results[reference][1]
            text = f"{case} / {reference} <= {most}", f"{ratio:.2f}", "met" if ratio <= most else "**not met**"
            lines.append(f"| {' | '.join(text)} |" if markdown else f"  {text[0]:40s} {text[1]:>6s}  {text[2]}")
    if "import" in results and "bare" in results:
        beyond = results["import"][1] - results["bare"][1]
        text = (
            f"import geoiou - bare <= {IMPORT_BEYOND_BARE_S} s",
            f"{beyond:.3f} s",
            "met" if beyond <= IMPORT_BEYOND_BARE_S else "**not met**",
        )
        lines.append(f"| {' | '.join(text)} |" if markdown else f"  {text[0]:40s} {text[1]:>6s}  {text[2]}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per case (default 5)")
    parser.add_argument("--only", default="", help="comma-separated case keys: " + ",".join(c.key for c in CASES))
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    args = parser.parse_args()
    keys = {key for key in args.only.split(",") if key}
    cases = [case for case in CASES if not keys or case.key in keys]
    if keys:  # the references of the chosen cases' targets run too
        wanted = {ref for case, ref, _ in TARGETS if case in keys} | ({"bare"} if "import" in keys else set())
        cases = [case for case in CASES if case.key in keys | wanted]
    print(f"{sys.executable}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; {args.runs} runs a case\n")
    print(render(cases, measure(cases, args.runs), args.markdown))


if __name__ == "__main__":
    main()
