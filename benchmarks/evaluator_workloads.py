"""The seeded files of ``bench_evaluators.py``: what a user evaluating a detector has on disk.

- ``coco``: 1,500 images, 12,000 polygon ground truths, 144,000 results (the set of
  ``e2e_workloads.coco_segm_workload``), the images in four sizes (256 or 320 pixels each way),
  results written as boxes and as RLE masks, once grouped by image and once shuffled (as ranks
  gathered in distributed inference write them).
- ``objects365``: 80,000 images, 365 categories, 10 boxes each (800,000) and 1,200,000 box results.
- ``activitynet``: 5,000 videos with 1 to 4 segments each and 100 predictions per video (500,000),
  in ActivityNet's JSON layout (``database`` and ``results``). Scores have 8 decimals, so that no
  two of a class tie: the official script breaks ties by NumPy's unstable quicksort, geoiou by
  input order, and tied scores would make the two rank predictions differently.
- ``dota``: one crowded aerial image, 3,200 rotated quadrilaterals and 9,600 predictions (a harbour).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from e2e_workloads import CATEGORIES, SEED, coco_segm_workload

#: Image sizes (height, width) of the COCO set: every polygon of e2e_workloads lies within 256 x 256.
IMAGE_SIZES = np.array([[256, 256], [256, 320], [320, 256], [320, 320]])


def write_coco(folder: Path) -> dict[str, Path]:
    """``instances.json`` and the four result files (bbox / segm, grouped / shuffled) of the COCO set."""
    from pycocotools import mask as mask_utils

    workload = coco_segm_workload()
    rng = np.random.default_rng(SEED + 1)
    n_images = workload["n_images"]
    sizes = IMAGE_SIZES[rng.integers(0, len(IMAGE_SIZES), n_images)]
    truth, predicted = workload["truth"], workload["predicted"]
    dataset = {
        "images": [{"id": i + 1, "height": int(h), "width": int(w)} for i, (h, w) in enumerate(sizes.tolist())],
        "categories": [{"id": c, "name": f"class{c}"} for c in range(1, CATEGORIES + 1)],
        "annotations": [
            {
                "id": k + 1,
                "image_id": image,
                "category_id": category,
                "segmentation": [ring],
                "bbox": _xywh(polygon),
                "area": round(_area(polygon), 2),
                "iscrowd": 0,
            }
            for k, (image, category, ring, polygon) in enumerate(
                zip(
                    workload["truth_image"].tolist(),
                    workload["truth_category"].tolist(),
                    truth.reshape(len(truth), -1).tolist(),
                    truth,
                )
            )
        ],
    }
    image = workload["predicted_image"]
    heads = list(zip(image.tolist(), workload["predicted_category"].tolist(), workload["score"].tolist()))
    boxes = [
        {"image_id": i, "category_id": c, "bbox": _xywh(polygon), "score": s}
        for (i, c, s), polygon in zip(heads, predicted)
    ]
    masks = []
    for (i, c, s), polygon in zip(heads, predicted):
        h, w = (int(v) for v in sizes[i - 1])
        (rle,) = mask_utils.frPyObjects([polygon.reshape(-1).tolist()], h, w)
        masks.append(
            {
                "image_id": i,
                "category_id": c,
                "score": s,
                "segmentation": {"size": [h, w], "counts": rle["counts"].decode()},
            }
        )
    shuffled = rng.permutation(len(heads))
    folder.mkdir(parents=True, exist_ok=True)
    documents = {
        "instances": dataset,
        "bbox": boxes,
        "bbox-shuffled": [boxes[k] for k in shuffled.tolist()],
        "segm": masks,
        "segm-shuffled": [masks[k] for k in shuffled.tolist()],
    }
    paths = {}
    for name, document in documents.items():
        paths[name] = folder / f"coco-{name}.json"
        paths[name].write_text(json.dumps(document))
    return paths


def _xywh(polygon: np.ndarray) -> list[float]:
    low, high = polygon.min(axis=0), polygon.max(axis=0)
    return [round(float(v), 2) for v in (*low, *(high - low))]


def _area(polygon: np.ndarray) -> float:
    x, y = polygon[:, 0], polygon[:, 1]
    return float(0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)))


def write_objects365(folder: Path, n_images: int = 80_000, n_results: int = 1_200_000) -> dict[str, Path]:
    """An Objects365-like box set: 365 categories, 10 objects per image, results near them or anywhere."""
    rng = np.random.default_rng(SEED + 2)
    n_categories, per_image, side = 365, 10, 640.0
    n_truth = n_images * per_image
    truth_image = np.repeat(np.arange(1, n_images + 1), per_image)
    truth_category = rng.integers(1, n_categories + 1, n_truth)
    size = np.exp(rng.uniform(np.log(8), np.log(300), (n_truth, 2)))
    corner = rng.uniform(0, 1, (n_truth, 2)) * (side - size)
    truth_box = np.round(np.c_[corner, size], 2)
    image = np.sort(rng.integers(1, n_images + 1, n_results))
    source = (image - 1) * per_image + rng.integers(0, per_image, n_results)
    near = rng.random(n_results) < 0.6
    jitter = rng.normal(0, 0.1, (n_results, 4)) * np.repeat(truth_box[source, 2:], 2, axis=1)
    random_size = np.exp(rng.uniform(np.log(8), np.log(300), (n_results, 2)))
    random_box = np.c_[rng.uniform(0, 1, (n_results, 2)) * (side - random_size), random_size]
    box = np.round(np.where(near[:, None], truth_box[source] + jitter, random_box), 2)
    box[:, 2:] = np.maximum(box[:, 2:], 1.0)
    category = np.where(near, truth_category[source], rng.integers(1, n_categories + 1, n_results))
    score = np.round(rng.random(n_results), 4)
    dataset = {
        "images": [{"id": i, "height": int(side), "width": int(side)} for i in range(1, n_images + 1)],
        "categories": [{"id": c, "name": f"class{c}"} for c in range(1, n_categories + 1)],
        "annotations": [
            {"id": k + 1, "image_id": i, "category_id": c, "bbox": b, "area": round(b[2] * b[3], 2), "iscrowd": 0}
            for k, (i, c, b) in enumerate(zip(truth_image.tolist(), truth_category.tolist(), truth_box.tolist()))
        ],
    }
    results = [
        {"image_id": i, "category_id": c, "bbox": b, "score": s}
        for i, c, b, s in zip(image.tolist(), category.tolist(), box.tolist(), score.tolist())
    ]
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"instances": folder / "o365-instances.json", "bbox": folder / "o365-bbox.json"}
    paths["instances"].write_text(json.dumps(dataset))
    paths["bbox"].write_text(json.dumps(results))
    return paths


def write_activitynet(folder: Path, n_videos: int = 5000, per_video: int = 100) -> dict[str, Path]:
    """ActivityNet ground truth (``database``) and results files: 200 classes, predictions near the segments."""
    rng = np.random.default_rng(SEED + 3)
    database: dict[str, Any] = {}
    results: dict[str, list[dict[str, Any]]] = {}
    for video in range(n_videos):
        name = f"v_{video:06d}"
        duration = float(np.round(rng.uniform(30, 240), 2))
        count = int(rng.integers(1, 5))
        starts = np.round(rng.uniform(0, duration * 0.8, count), 2)
        ends = np.round(np.minimum(starts + rng.uniform(2, duration * 0.5, count), duration), 2)
        labels = [f"class{c}" for c in rng.integers(0, 200, count).tolist()]
        database[name] = {
            "subset": "validation",
            "duration": duration,
            "annotations": [
                {"segment": [s, e], "label": label} for s, e, label in zip(starts.tolist(), ends.tolist(), labels)
            ],
        }
        source = rng.integers(0, count, per_video)
        near = rng.random(per_video) < 0.5
        shift = rng.normal(0, 0.1, (per_video, 2)) * (ends - starts)[source, None]
        start = np.where(near, starts[source] + shift[:, 0], rng.uniform(0, duration, per_video))
        end = np.where(near, ends[source] + shift[:, 1], start + rng.uniform(1, 30, per_video))
        start, end = np.round(np.minimum(start, end - 0.5), 2), np.round(end, 2)
        label = np.where(
            near, np.array(labels)[source], np.array([f"class{c}" for c in rng.integers(0, 200, per_video)])
        )
        results[name] = [
            {"segment": [s, e], "label": str(lab), "score": float(p)}
            for s, e, lab, p in zip(
                start.tolist(), end.tolist(), label.tolist(), np.round(rng.random(per_video), 8).tolist()
            )
        ]
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"ground_truth": folder / "anet-gt.json", "results": folder / "anet-results.json"}
    taxonomy = [{"nodeName": f"class{c}", "nodeId": c, "parentId": None, "parentName": None} for c in range(200)]
    paths["ground_truth"].write_text(json.dumps({"version": "VERSION 1.3", "taxonomy": taxonomy, "database": database}))
    paths["results"].write_text(json.dumps({"version": "VERSION 1.3", "results": results, "external_data": {}}))
    return paths


def crowded_dota(n: int = 3200) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One crowded image: `n` rotated quadrilaterals on a grid (a harbour) and 3n predictions near them.

    Returns the ground-truth corners ``(n, 4, 2)``, the predicted corners ``(3n, 4, 2)`` and the scores.
    """
    import geoiou

    rng = np.random.default_rng(SEED + 4)
    cx, cy = np.meshgrid(np.arange(80) * 25 + 12.0, np.arange(40) * 25 + 12.0)
    cx, cy = cx.ravel()[:n] + rng.normal(0, 2, n), cy.ravel()[:n] + rng.normal(0, 2, n)
    w, h, angle = rng.uniform(8, 20, n), rng.uniform(4, 10, n), rng.uniform(0, 180, n)
    truth = geoiou.RotatedBox(np.c_[cx, cy, w, h, angle]).to_corners()
    source = rng.integers(0, n, 3 * n)
    jitter = np.c_[
        rng.normal(0, 1, 3 * n), rng.normal(0, 1, 3 * n), rng.uniform(0.9, 1.1, (3 * n, 2)), rng.normal(0, 5, 3 * n)
    ]
    predicted = geoiou.RotatedBox(
        np.c_[
            cx[source] + jitter[:, 0],
            cy[source] + jitter[:, 1],
            w[source] * jitter[:, 2],
            h[source] * jitter[:, 3],
            angle[source] + jitter[:, 4],
        ]
    ).to_corners()
    return np.round(truth, 1), np.round(predicted, 1), np.round(rng.random(3 * n), 4)
