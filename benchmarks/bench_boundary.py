"""Benchmark boundary AP against segm AP on the same COCO files: the cost of the bands (target: at most 2x).

The files are `e2e_workloads.coco_segm_workload`'s (1,500 images of 256 x 256, 12,000 polygon ground
truths, 144,000 RLE results: the COCO segm row of ``bench_end_to_end.py``). Each row reads both
files and evaluates, as a user's script does: geoiou's ``read_coco`` + ``read_coco_results`` +
``evaluate_coco`` with ``iou_type="region"`` (segm AP) and ``iou_type="boundary"`` (boundary AP,
boundary-iou-api's ``min(mask IoU, boundary IoU)``; polygons rasterized as pycocotools does, as
boundary-iou-api does); then, when installed, faster-coco-eval's ``iouType="boundary"`` and
``"segm"`` (its own C++ boundary) and ultrafast-pycocotools' (hotcoco has no boundary type), each
in this process after a warm-up. It prints the median times and the ratio boundary / segm for
each tool, and the load average before and after.

    python benchmarks/bench_boundary.py [--images N] [--repeats N]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

import e2e_workloads as workloads
from geoiou.evaluation import evaluate_coco
from geoiou.io import read_coco, read_coco_results


def with_geoiou(paths: dict[str, Path], iou_type: str) -> np.ndarray:
    truth = read_coco(paths["instances"], geometry="segmentation", polygons="pycocotools")
    predicted = read_coco_results(paths["segm"], geometry="segmentation")
    result = evaluate_coco(
        truth.annotations,
        predicted.annotations,
        images=truth.images,
        categories=list(truth.categories),
        polygon_iou="pycocotools",
        iou_type=iou_type,  # type: ignore[arg-type]
        show_progress=False,
    )
    return result.stats_array


def with_faster_coco_eval(paths: dict[str, Path], iou_type: str) -> np.ndarray:
    from faster_coco_eval import COCO, COCOeval_faster

    return with_cocoeval(COCO, COCOeval_faster, paths, iou_type)


def with_ultrafast(paths: dict[str, Path], iou_type: str) -> np.ndarray:
    from ultrafast_pycocotools.coco import COCO
    from ultrafast_pycocotools.cocoeval import COCOeval

    return with_cocoeval(COCO, COCOeval, paths, iou_type)


def with_cocoeval(coco: Any, cocoeval: Any, paths: dict[str, Path], iou_type: str) -> np.ndarray:
    """pycocotools' flow with a tool's own ``COCO`` and ``COCOeval`` classes, its printing silenced."""
    with contextlib.redirect_stdout(io.StringIO()):
        truth = coco(str(paths["instances"]))
        evaluation = cocoeval(truth, truth.loadRes(str(paths["segm"])), iou_type)
        evaluation.evaluate()
        evaluation.accumulate()
        evaluation.summarize()
    return np.asarray(evaluation.stats)


def median_time(function: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    value = function()  # warm-up (compilation, caches), kept for the agreement check
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=1500)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"# boundary AP vs segm AP, {args.images} images; load average {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as folder:
        paths = workloads.write_coco_files(folder, workloads.coco_segm_workload(n_images=args.images))
        tools: list[tuple[str, Callable[[dict[str, Path], str], np.ndarray], tuple[str, str]]] = [
            ("geoiou evaluate_coco", with_geoiou, ("region", "boundary"))
        ]
        peers = (
            ("faster_coco_eval", "faster-coco-eval COCOeval_faster", with_faster_coco_eval),
            ("ultrafast_pycocotools", "ultrafast-pycocotools COCOeval", with_ultrafast),
        )
        for module, name, run_peer in peers:
            if importlib.util.find_spec(module) is None:
                print(f"{module} not installed: its row is left out (the bench extra installs it)")
            else:
                tools.append((name, run_peer, ("segm", "boundary")))
        for name, run, (segm, boundary) in tools:
            segm_time, segm_stats = median_time(lambda: run(paths, segm), args.repeats)
            boundary_time, boundary_stats = median_time(lambda: run(paths, boundary), args.repeats)
            print(
                f"{name:36s} segm {segm_time:7.2f} s (AP {segm_stats[0]:.4f})   boundary {boundary_time:7.2f} s "
                f"(AP {boundary_stats[0]:.4f})   boundary / segm {boundary_time / segm_time:5.2f}x"
            )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
