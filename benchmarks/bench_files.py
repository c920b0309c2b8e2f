"""Benchmark evaluating COCO files end to end: geoiou's readers and evaluate_coco against pycocotools.

The files are the tour's (geoiou/data/tour/coco): 7 DOTA images as COCO instances (984 polygons
and their boxes) with 1,038 box predictions and 1,038 RLE mask predictions. Each row reads the two
files from disk and evaluates them, as a user's script or ``geoiou eval`` does:

- pycocotools: ``COCO(instances)``, ``loadRes(results)``, ``COCOeval`` evaluate/accumulate/summarize;
- geoiou: ``read_coco``, ``read_coco_results`` and ``evaluate_coco`` (``polygon_iou="pycocotools"``
  for the segm row, so that both rasterize the polygons the same way and give the same numbers;
  ``"exact"`` in the last row, which pycocotools cannot compute).

The script prints the median time of each (5 runs after a warm-up), the ratio ``pycocotools time /
geoiou time`` (above 1: geoiou is faster) and the largest difference between the 12 summary
numbers. Benchmarks are not tests: nothing here asserts on speed.

    python benchmarks/bench_files.py
"""

from __future__ import annotations

import contextlib
import io
import platform
import statistics
import time
from importlib.resources import files
from typing import Any, Callable

import numpy as np

from geoiou.evaluation import evaluate_coco
from geoiou.io import read_coco, read_coco_results

TOUR = files("geoiou") / "data" / "tour" / "coco"
INSTANCES = str(TOUR / "instances.json")
RESULTS = {"bbox": str(TOUR / "results-bbox.json"), "segm": str(TOUR / "results-segm.json")}
REPEATS = 5


def with_pycocotools(iou_type: str) -> np.ndarray:
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    with contextlib.redirect_stdout(io.StringIO()):
        truth = COCO(INSTANCES)
        evaluation = COCOeval(truth, truth.loadRes(RESULTS[iou_type]), iou_type)
        evaluation.evaluate()
        evaluation.accumulate()
        evaluation.summarize()
    return evaluation.stats


def with_geoiou(iou_type: str, polygon_iou: str = "pycocotools") -> np.ndarray:
    geometry = "bbox" if iou_type == "bbox" else "segmentation"
    truth = read_coco(INSTANCES, geometry=geometry)
    predicted = read_coco_results(RESULTS[iou_type], geometry=geometry)
    result = evaluate_coco(
        truth.annotations,
        predicted.annotations,
        images=truth.images,
        categories=list(truth.categories),
        polygon_iou=polygon_iou,
        show_progress=False,
    )
    return result.stats_array


def median_time(function: Callable[[], Any]) -> tuple[float, Any]:
    value = function()  # warm-up, kept for the agreement check
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def main() -> None:
    print(
        f"# COCO files end to end ({platform.processor() or platform.machine()}, Python {platform.python_version()}, "
        f"median of {REPEATS})\n"
    )
    print("| task | pycocotools | geoiou | ratio | max abs diff of the 12 numbers |")
    print("|---|---|---|---|---|")
    for iou_type in ("bbox", "segm"):
        peer_time, peer_stats = median_time(lambda: with_pycocotools(iou_type))
        our_time, our_stats = median_time(lambda: with_geoiou(iou_type))
        difference = float(np.max(np.abs(peer_stats - our_stats)))
        print(f"| {iou_type} | {peer_time:.3f} s | {our_time:.3f} s | {peer_time / our_time:.2f}x | {difference:.1e} |")
    exact_time, exact_stats = median_time(lambda: with_geoiou("segm", polygon_iou="exact"))
    print(f"| segm, exact polygon coverage (geoiou only) | - | {exact_time:.3f} s | - | AP {exact_stats[0]:.4f} |")


if __name__ == "__main__":
    main()
