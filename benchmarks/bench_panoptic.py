"""Benchmark panoptic quality from COCO panoptic files: geoiou against panopticapi (target: 5x on one core) and hotcoco.

The files are COCO-panoptic-like (`tests.panoptic_datasets`): 480 x 640 PNG maps of stuff bands and
up to 20 thing objects each, void seams, crowd regions, predictions moved, missed, spurious and
relabelled. Each tool runs in its own process on the same files, from the paths, as its users run
it, and the median of its timed runs (after a warm-up) is printed with the ratio ``peer time /
geoiou time`` (above 1: geoiou is faster) and its PQ:

- geoiou one core: ``read_coco_panoptic`` for both JSONs and ``evaluate_panoptic`` with
  ``GEOIOU_THREADS=1``;
- panopticapi one core: its ``pq_compute`` steps without the process pool (``pq_compute_single_core``
  over every image, then ``pq_average``), the target's reference;
- panopticapi ``pq_compute``: as users call it, a pool of one process per core;
- hotcoco ``panoptic.pq_compute`` (panopticapi's signature), when installed (the bench extra).

    python benchmarks/bench_panoptic.py [--images N] [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Each tool's code, run in a fresh process: it prints ``{"times": [...], "pq": ...}``.
RUNNERS = {
    "geoiou, one core": """
from geoiou.evaluation import evaluate_panoptic
from geoiou.io import read_coco_panoptic

def run():
    return evaluate_panoptic(read_coco_panoptic(TRUTH), read_coco_panoptic(FOUND))["PQ"]
""",
    "panopticapi, one core (pq_compute_single_core)": """
import contextlib, io, json
from panopticapi.evaluation import pq_compute_single_core

def run():
    truth, found = json.load(open(TRUTH)), json.load(open(FOUND))
    categories = {c["id"]: c for c in truth["categories"]}
    by_image = {a["image_id"]: a for a in found["annotations"]}
    pairs = [(a, by_image[a["image_id"]]) for a in truth["annotations"]]
    with contextlib.redirect_stdout(io.StringIO()):
        stat = pq_compute_single_core(0, pairs, TRUTH[:-5], FOUND[:-5], categories)
    return stat.pq_average(categories, isthing=None)[0]["pq"]
""",
    "panopticapi pq_compute (a process per core)": """
import contextlib, io
from panopticapi.evaluation import pq_compute

def run():
    with contextlib.redirect_stdout(io.StringIO()):
        return pq_compute(TRUTH, FOUND)["All"]["pq"]
""",
    "hotcoco panoptic.pq_compute": """
import contextlib, io
from hotcoco.panoptic import pq_compute

def run():
    with contextlib.redirect_stdout(io.StringIO()):
        return pq_compute(TRUTH, FOUND)["All"]["pq"]
""",
}

TIMER = """
import json, statistics, sys, time
TRUTH, FOUND, REPEATS = sys.argv[1], sys.argv[2], int(sys.argv[3])
{code}
pq = float(run())  # warm-up: imports, compilation
times = []
for _ in range(REPEATS):
    start = time.perf_counter()
    run()
    times.append(time.perf_counter() - start)
print(json.dumps({{"time": statistics.median(times), "pq": pq}}))
"""


def timed(name: str, truth: Path, found: Path, repeats: int) -> dict[str, float] | str:
    environment = dict(os.environ, PYTHONPATH=str(ROOT))
    if name.startswith("geoiou"):
        environment["GEOIOU_THREADS"] = "1"
    script = TIMER.format(code=RUNNERS[name])
    done = subprocess.run(
        [sys.executable, "-c", script, str(truth), str(found), str(repeats)],
        capture_output=True,
        text=True,
        env=environment,
    )
    if done.returncode != 0:
        return done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.panoptic_datasets import write_panoptic_dataset

    print(f"# PQ from COCO panoptic files: {args.images} images of 480 x 640; load average {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as folder:
        truth, found = write_panoptic_dataset(
            Path(folder), 2026, n_images=args.images, height=480, width=640, objects=20
        )
        results = {name: timed(name, truth, found, args.repeats) for name in RUNNERS}
    ours = results["geoiou, one core"]
    assert isinstance(ours, dict), ours
    for name, result in results.items():
        if isinstance(result, str):
            print(f"{name:48s} not run: {result}")
            continue
        ratio = result["time"] / ours["time"]
        print(f"{name:48s} {result['time']:8.3f} s   PQ {result['pq']:.12f}   {ratio:6.2f}x geoiou's time")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
