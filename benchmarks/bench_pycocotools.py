"""The pycocotools drop-in against pycocotools and against `evaluate_coco`, from the same files.

The seeded COCO workload of ``e2e_workloads.py`` (1,500 images, 12,000 polygon ground truths,
144,000 box or RLE results) is written to a temporary folder; each contender then runs in a child
process of its own, from the files to the 12 numbers, as a user runs it:

- pycocotools: ``COCO`` + ``loadRes`` + ``COCOeval`` ``evaluate``, ``accumulate``, ``summarize``;
- geoiou.pycocotools: the same code on ``geoiou.pycocotools``;
- evaluate_coco: ``read_coco`` + ``read_coco_results`` + ``evaluate_coco`` (segm with
  ``polygon_iou="pycocotools"``).

Each is timed `--repeat` times in rounds of one run of each (best kept; the first runs of geoiou
fill numba's cache and are not timed). The 12 numbers of the three are compared. The load average is printed before and
after: the machine is shared, so the ratios are what to read.

    python benchmarks/bench_pycocotools.py [--repeat 3] [--only bbox]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import e2e_workloads as workloads  # noqa: E402

#: One contender's run, in a child process: prints the seconds it took and the 12 numbers.
CHILD = {
    "pycocotools": """
import contextlib, io
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval
with contextlib.redirect_stdout(io.StringIO()):
    gt = COCO(INSTANCES); E = COCOeval(gt, gt.loadRes(RESULTS), IOU_TYPE)
    E.evaluate(); E.accumulate(); E.summarize()
stats = [float(v) for v in E.stats]
""",
    "geoiou.pycocotools": """
import contextlib, io
from geoiou.pycocotools import COCO, COCOeval
with contextlib.redirect_stdout(io.StringIO()):
    gt = COCO(INSTANCES); E = COCOeval(gt, gt.loadRes(RESULTS), IOU_TYPE)
    E.evaluate(); E.accumulate(); E.summarize()
stats = [float(v) for v in E.stats]
""",
    "evaluate_coco": """
from geoiou.evaluation import evaluate_coco
from geoiou.io import read_coco, read_coco_results
geometry = "bbox" if IOU_TYPE == "bbox" else "segmentation"
truth = read_coco(INSTANCES, geometry=geometry, polygons="pycocotools")
found = read_coco_results(RESULTS, geometry=geometry)
result = evaluate_coco(truth.annotations, found.annotations, images=truth.images, categories=list(truth.categories),
                       polygon_iou="pycocotools", show_progress=False)
stats = [float(v) for v in result.stats_array]
""",
}


def run_child(name: str, instances: Path, results: Path, iou_type: str) -> tuple[float, list[float]]:
    prelude = "import time; T0 = time.perf_counter()\n"
    setup = f"INSTANCES, RESULTS, IOU_TYPE = {str(instances)!r}, {str(results)!r}, {iou_type!r}\n"
    ending = "\nimport json; print(json.dumps([time.perf_counter() - T0, stats]))\n"
    done = subprocess.run(
        [sys.executable, "-c", prelude + setup + CHILD[name] + ending], capture_output=True, text=True, check=True
    )
    seconds, stats = json.loads(done.stdout.strip().splitlines()[-1])
    return seconds, stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=["bbox", "segm"])
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as folder:
        paths = workloads.write_coco_files(folder, workloads.coco_segm_workload())
        for iou_type in [args.only] if args.only else ["bbox", "segm"]:
            best = dict.fromkeys(CHILD, float("inf"))
            numbers: dict[str, list[float]] = {}
            for name in CHILD:
                if name != "pycocotools":
                    run_child(name, paths["instances"], paths[iou_type], iou_type)  # numba's cache filled
            # Rounds of one run of each, so that the load of a shared machine falls on all of them alike.
            for _ in range(args.repeat):
                for name in CHILD:
                    seconds, numbers[name] = run_child(name, paths["instances"], paths[iou_type], iou_type)
                    best[name] = min(best[name], seconds)
            print(f"\n{iou_type}: 1,500 images, 12,000 ground truths, 144,000 results (best of {args.repeat})")
            for name, seconds in best.items():
                print(f"  {name:<20} {seconds:8.3f} s")
            drop_in = best["geoiou.pycocotools"]
            print(f"  pycocotools / geoiou.pycocotools    {best['pycocotools'] / drop_in:6.2f} x")
            print(f"  geoiou.pycocotools / evaluate_coco  {drop_in / best['evaluate_coco']:6.2f} x (target <= 1.1)")
            same = numbers["pycocotools"] == numbers["geoiou.pycocotools"] == numbers["evaluate_coco"]
            print(f"  the 12 numbers: {'identical' if same else 'DIFFERENT'} across the three")
    time.sleep(0)
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
