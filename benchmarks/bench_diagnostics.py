"""Diagnostics from files: geoiou's TIDE against tidecv's (dbolya/tide), and the paired bootstrap of `compare`.

The files are the seeded COCO workload of ``e2e_workloads.py`` (star polygons, their boxes as
ground truth, 96 box results per image), at ``--images`` images (300 by default: 2,400 objects and
28,800 results; tidecv, pure Python, takes tens of seconds there). Each tool reads the two files and
computes TIDE's error breakdown, as a user runs it:

- geoiou: ``read_coco`` and ``read_coco_results``, ``diagnose`` and ``Diagnostics.tide()``;
- tidecv: ``datasets.COCO(path)``, ``datasets.COCOResult(path)``, ``TIDE().evaluate(...)`` and its
  main and special errors.

The two AP differ where tidecv departs from COCOeval (its 101 recall points are ``x / 100``,
COCOeval's ``linspace``), so the table prints both APs rather than a difference. ``compare`` then
draws paired bootstrap resamples of the two result files (the second is the first with the scores
of a quarter of the results halved): no other tool computes that, so its row is geoiou's time per
resample alone.

    python benchmarks/bench_diagnostics.py               # 300 images
    python benchmarks/bench_diagnostics.py --images 1500 # the evaluator benchmark's size (tidecv: minutes)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable


sys.path.insert(0, str(Path(__file__).resolve().parent))

import e2e_workloads as workloads  # noqa: E402

from geoiou.diagnostics import compare, diagnose  # noqa: E402
from geoiou.evaluation import CocoEvaluation  # noqa: E402
from geoiou.io import read_coco, read_coco_results  # noqa: E402


def best_of(call: Callable[[], Any], runs: int) -> tuple[float, Any]:
    """The shortest time of `runs` calls after a warm-up one, and the last answer."""
    answer = call()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        answer = call()
        times.append(time.perf_counter() - started)
    return min(times), answer


def geoiou_tide(truth: Path, results: Path) -> Any:
    dataset = read_coco(truth)
    evaluation = CocoEvaluation(categories=list(dataset.categories))
    diagnostics = diagnose(
        dataset.annotations, read_coco_results(results).annotations, evaluation=evaluation, images=dataset.images
    )
    return diagnostics, diagnostics.tide()


def tidecv_tide(truth: Path, results: Path) -> Any:
    from tidecv import TIDE, datasets

    with contextlib.redirect_stdout(io.StringIO()):
        tide = TIDE()
        run = tide.evaluate(datasets.COCO(str(truth)), datasets.COCOResult(str(results)), mode=TIDE.BOX, name="run")
        return run.ap, tide.get_main_errors()["run"]


def second_results(results: Path, folder: Path) -> Path:
    """The same results with the scores of every fourth halved: a second model to compare with."""
    records = json.loads(results.read_text())
    for record in records[::4]:
        record["score"] = round(record["score"] / 2, 4)
    path = folder / "results-second.json"
    path.write_text(json.dumps(records))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=300, help="images of the workload (default 300)")
    parser.add_argument("--resamples", type=int, default=50, help="bootstrap resamples timed (default 50)")
    parser.add_argument("--skip-tidecv", action="store_true", help="geoiou alone")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        paths = workloads.write_coco_files(folder, workloads.coco_segm_workload(n_images=args.images))
        truth, results = paths["instances"], paths["bbox"]
        dataset = json.loads(truth.read_text())
        for image in dataset["images"]:  # as a real COCO file has them (tidecv reads them)
            image["file_name"] = f"{image['id']:012d}.jpg"
        truth.write_text(json.dumps(dataset))
        n_results = len(json.loads(results.read_text()))
        print(f"TIDE from files: {args.images} images, {n_results:,} box results")
        print("| tool | best s (geoiou of 3, tidecv of 1) | AP | time / geoiou |\n|---|---|---|---|")
        mine, (first, tide) = best_of(lambda: geoiou_tide(truth, results), 3)
        print(f"| geoiou (read, diagnose, tide) | {mine:.3f} | {100 * tide.ap:.2f} | 1.00 |")
        if not args.skip_tidecv:
            try:
                theirs, (ap, _) = best_of(lambda: tidecv_tide(truth, results), 1)
                print(f"| tidecv | {theirs:.3f} | {ap:.2f} | {theirs / mine:.1f} |")
            except ImportError:
                print("| tidecv | not installed | | |")
        second, _ = geoiou_tide(truth, second_results(results, folder))
        compare(first, second, resamples=2)  # compiled on first use
        started = time.perf_counter()
        comparison = compare(first, second, resamples=args.resamples, seed=0)
        per_resample = (time.perf_counter() - started) / args.resamples
        ap = comparison.metrics["AP"]
        print(
            f"\ncompare: {per_resample * 1e3:.1f} ms a paired resample ({n_results:,} results a side; "
            f"1,000 resamples: {per_resample * 1e3:.0f} s); AP {ap.difference:+.4f} [{ap.low:+.4f}, {ap.high:+.4f}]"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
