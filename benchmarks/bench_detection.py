"""Benchmark COCO detection evaluation: geoiou's evaluate_coco against pycocotools' COCOeval, same data.

A COCO-like box dataset is generated from a fixed seed: 80 categories, about 7 objects per image
(some crowd regions, some images without objects) and a fixed number of predictions per image
(most near an object, the rest anywhere), box coordinates with two decimals and scores with
three, as detectors write them. Both libraries evaluate it; the script prints the time of each, the
ratio ``COCOeval time / geoiou time`` (above 1: geoiou is faster) and the largest difference between
the 12 summary numbers (they agree to the last bit on such data).

Timed: for COCOeval, ``loadRes``, ``evaluate``, ``accumulate`` and ``summarize`` on an already
indexed ground truth (the JSON is in memory, nothing is read from disk); for geoiou, building the
`Annotations` from the same column arrays and `evaluate_coco`. One run each: COCOeval takes minutes
at the default size. Benchmarks are not tests: nothing here asserts on speed.

    python benchmarks/bench_detection.py                       # 5,000 images x 100 predictions
    python benchmarks/bench_detection.py --images 500          # smaller
    python benchmarks/bench_detection.py --quick               # 200 images: checks the script runs
    python benchmarks/bench_detection.py --skip-pycocotools    # geoiou alone
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import platform
import sys
import time
from typing import Any

import numpy as np

import geoiou
from geoiou.evaluation import Annotations, evaluate_coco

SEED = 20240601
CATEGORIES = 80
SIDE = 640.0


def generate(n_images: int, per_image: int, seed: int = SEED) -> dict[str, Any]:
    """Column arrays of a COCO-like box dataset (xywh), with its COCO JSON twins."""
    rng = np.random.default_rng(seed)
    # Ground truth: Poisson(7) objects per image, categories skewed as COCO's are; 1% crowd regions.
    counts = rng.poisson(7, n_images)
    counts[rng.random(n_images) < 0.05] = 0
    gt_image = np.repeat(np.arange(1, n_images + 1), counts)
    weights = 1 / np.arange(1, CATEGORIES + 1) ** 0.8
    gt_category = rng.choice(np.arange(1, CATEGORIES + 1), len(gt_image), p=weights / weights.sum())
    size = np.exp(rng.uniform(np.log(4), np.log(400), (len(gt_image), 2)))
    corner = rng.uniform(0, 1, (len(gt_image), 2)) * (SIDE - size)
    gt_box = np.round(np.c_[corner, size], 2)
    gt_crowd = rng.random(len(gt_image)) < 0.01
    # Predictions: per_image per image; 70% near an object of the image (10% with a wrong category).
    dt_image = np.repeat(np.arange(1, n_images + 1), per_image)
    starts = np.r_[0, np.cumsum(counts)][dt_image - 1]
    has_object = counts[dt_image - 1] > 0
    near = has_object & (rng.random(len(dt_image)) < 0.7)
    source = starts + (rng.random(len(dt_image)) * np.maximum(counts[dt_image - 1], 1)).astype(np.int64)
    source = np.where(near, source, 0)
    quality = rng.uniform(0, 0.3, len(dt_image))
    jitter = rng.normal(0, 1, (len(dt_image), 4)) * quality[:, None]
    base = gt_box[np.minimum(source, max(len(gt_box) - 1, 0))] if len(gt_box) else np.zeros((len(dt_image), 4))
    near_box = base + jitter * np.c_[base[:, 2:], base[:, 2:]]
    random_size = np.exp(rng.uniform(np.log(4), np.log(400), (len(dt_image), 2)))
    random_box = np.c_[rng.uniform(0, 1, (len(dt_image), 2)) * (SIDE - random_size), random_size]
    dt_box = np.where(near[:, None], near_box, random_box)
    dt_box[:, 2:] = np.maximum(dt_box[:, 2:], 1.0)
    dt_box = np.round(dt_box, 2)
    dt_category = np.where(
        near,
        gt_category[np.minimum(source, max(len(gt_box) - 1, 0))] if len(gt_box) else 1,
        rng.integers(1, CATEGORIES + 1, len(dt_image)),
    )
    wrong = near & (rng.random(len(dt_image)) < 0.1)
    dt_category[wrong] = rng.integers(1, CATEGORIES + 1, wrong.sum())
    dt_score = np.round(np.where(near, 1 - quality * 2, 0.5) * rng.uniform(0.5, 1, len(dt_image)), 3)
    return {
        "gt_image": gt_image,
        "gt_category": gt_category,
        "gt_box": gt_box,
        "gt_crowd": gt_crowd,
        "gt_area": gt_box[:, 2] * gt_box[:, 3],
        "dt_image": dt_image,
        "dt_category": dt_category,
        "dt_box": dt_box,
        "dt_score": dt_score,
        "n_images": n_images,
    }


def coco_json(data: dict[str, Any]) -> tuple[dict, list[dict]]:
    dataset = {
        "images": [{"id": i, "height": int(SIDE), "width": int(SIDE)} for i in range(1, data["n_images"] + 1)],
        "categories": [{"id": c} for c in range(1, CATEGORIES + 1)],
        "annotations": [
            {
                "id": k + 1,
                "image_id": int(i),
                "category_id": int(c),
                "bbox": b.tolist(),
                "area": float(a),
                "iscrowd": int(crowd),
            }
            for k, (i, c, b, a, crowd) in enumerate(
                zip(data["gt_image"], data["gt_category"], data["gt_box"], data["gt_area"], data["gt_crowd"])
            )
        ],
    }
    results = [
        {"image_id": int(i), "category_id": int(c), "bbox": b.tolist(), "score": float(s)}
        for i, c, b, s in zip(data["dt_image"], data["dt_category"], data["dt_box"], data["dt_score"])
    ]
    return dataset, results


def run_geoiou(data: dict[str, Any]) -> np.ndarray:
    truth = Annotations(
        image_id=data["gt_image"],
        category_id=data["gt_category"],
        region=geoiou.Box(data["gt_box"], fmt="xywh"),
        iscrowd=data["gt_crowd"],
        area=data["gt_area"],
    )
    predictions = Annotations(
        image_id=data["dt_image"],
        category_id=data["dt_category"],
        region=geoiou.Box(data["dt_box"], fmt="xywh"),
        score=data["dt_score"],
    )
    result = evaluate_coco(
        truth, predictions, images=range(1, data["n_images"] + 1), categories=range(1, CATEGORIES + 1)
    )
    return result.stats_array


def run_pycocotools(dataset: dict, results: list[dict]) -> tuple[np.ndarray, float]:
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    with contextlib.redirect_stdout(io.StringIO()):
        truth = COCO()
        truth.dataset = dataset
        truth.createIndex()
        start = time.perf_counter()
        evaluator = COCOeval(truth, truth.loadRes(results), "bbox")
        evaluator.evaluate()
        evaluator.accumulate()
        evaluator.summarize()
    return evaluator.stats, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--images", type=int, default=5000, help="images (default 5000)")
    parser.add_argument("--per-image", type=int, default=100, help="predictions per image (default 100)")
    parser.add_argument("--quick", action="store_true", help="200 images: checks the script runs")
    parser.add_argument("--skip-pycocotools", action="store_true", help="time geoiou alone")
    args = parser.parse_args(argv)
    n_images = 200 if args.quick else args.images

    data = generate(n_images, args.per_image)
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}; "
        f"{n_images} images, {len(data['gt_image'])} ground truths, {len(data['dt_image'])} predictions, "
        f"{CATEGORIES} categories"
    )
    run_geoiou(generate(20, 10))  # warm-up: imports and first calls
    start = time.perf_counter()
    ours = run_geoiou(data)
    geoiou_seconds = time.perf_counter() - start
    print(f"geoiou evaluate_coco        {geoiou_seconds:9.2f} s   AP={ours[0]:.4f}")
    if args.skip_pycocotools:
        return 0
    try:
        import pycocotools  # noqa: F401
    except ImportError:
        print("pycocotools is not installed: pip install pycocotools (or the project's bench extra)")
        return 0
    dataset, results = coco_json(data)
    theirs, coco_seconds = run_pycocotools(copy.deepcopy(dataset), copy.deepcopy(results))
    print(f"pycocotools COCOeval        {coco_seconds:9.2f} s   AP={theirs[0]:.4f}")
    print(f"ratio COCOeval / geoiou     {coco_seconds / geoiou_seconds:9.1f} x")
    print(f"largest difference of the 12 summary numbers: {np.abs(np.asarray(ours) - theirs).max():.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
