"""The seeded workloads of ``bench_end_to_end.py``, written as the files a user has.

COCO: 1,500 images of 256 x 256, 8 polygon ground truths each (12,000), 96 predictions per image
(144,000): 70% are a ground truth with its vertices jittered and shifted (10% of those with a wrong
category), the rest random polygons. The predictions are written twice, once as boxes (``bbox``
results) and once as compressed RLE masks (``segm`` results, rasterized by pycocotools as a
model's masks would be). GeoJSON: 20,000 polygons. Rings: 50,000 simple 12-gons as ``(N, 12, 2)``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

SEED = 20261125
SIDE = 256
CATEGORIES = 3
VERTICES = 8


def star_polygons(
    rng: np.random.Generator, n: int, centres: np.ndarray, radii: np.ndarray, k: int = VERTICES
) -> np.ndarray:
    """``(n, k, 2)`` simple polygons: k vertices at increasing angles around each centre (star-shaped, so simple)."""
    # One vertex per sector of 2 pi / k, kept off the sector's edges: rounding cannot make the ring cross.
    angles = (np.arange(k) + rng.uniform(0.15, 0.85, (n, k))) * (2 * np.pi / k)
    reach = radii[:, None] * rng.uniform(0.5, 1.0, (n, k))
    return np.round(centres[:, None, :] + reach[..., None] * np.stack([np.cos(angles), np.sin(angles)], -1), 2)


def coco_segm_workload(
    n_images: int = 1500, per_image_truth: int = 8, per_image_predicted: int = 96, seed: int = SEED
) -> dict[str, Any]:
    """Ground-truth polygons and predicted polygons of a COCO-like dataset, as arrays."""
    rng = np.random.default_rng(seed)
    n_truth = n_images * per_image_truth
    truth_image = np.repeat(np.arange(1, n_images + 1), per_image_truth)
    truth_category = rng.integers(1, CATEGORIES + 1, n_truth)
    radii = np.exp(rng.uniform(np.log(6), np.log(60), n_truth))
    centres = rng.uniform(0, 1, (n_truth, 2)) * (SIDE - 2 * radii[:, None]) + radii[:, None]
    truth = star_polygons(rng, n_truth, centres, radii)
    n_predicted = n_images * per_image_predicted
    predicted_image = np.repeat(np.arange(1, n_images + 1), per_image_predicted)
    source = (predicted_image - 1) * per_image_truth + rng.integers(0, per_image_truth, n_predicted)
    near = rng.random(n_predicted) < 0.7
    quality = rng.uniform(0, 0.25, n_predicted)
    jitter = rng.normal(0, 1, (n_predicted, VERTICES, 2)) * (quality * radii[source])[:, None, None]
    shift = rng.normal(0, 1, (n_predicted, 1, 2)) * (quality * radii[source])[:, None, None]
    near_polygons = truth[source] + jitter + shift
    random_radii = np.exp(rng.uniform(np.log(6), np.log(60), n_predicted))
    random_centres = rng.uniform(0, 1, (n_predicted, 2)) * (SIDE - 2 * random_radii[:, None]) + random_radii[:, None]
    random_polygons = star_polygons(rng, n_predicted, random_centres, random_radii)
    predicted = np.round(np.clip(np.where(near[:, None, None], near_polygons, random_polygons), 0, SIDE), 2)
    predicted_category = np.where(near, truth_category[source], rng.integers(1, CATEGORIES + 1, n_predicted))
    wrong = near & (rng.random(n_predicted) < 0.1)
    predicted_category[wrong] = rng.integers(1, CATEGORIES + 1, wrong.sum())
    score = np.round(np.where(near, 1 - 2 * quality, 0.5) * rng.uniform(0.5, 1, n_predicted), 4)
    return {
        "n_images": n_images,
        "truth_image": truth_image,
        "truth_category": truth_category,
        "truth": truth,
        "predicted_image": predicted_image,
        "predicted_category": predicted_category,
        "predicted": predicted,
        "score": score,
    }


def _bbox(polygons: np.ndarray) -> np.ndarray:
    low, high = polygons.min(axis=1), polygons.max(axis=1)
    return np.round(np.column_stack([low, high - low]), 2)


def write_coco_files(folder: str | os.PathLike[str], workload: dict[str, Any]) -> dict[str, Path]:
    """``instances.json``, ``results-bbox.json`` and ``results-segm.json`` of the workload in `folder`."""
    from pycocotools import mask as mask_utils

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    truth, predicted = workload["truth"], workload["predicted"]
    flat_truth = truth.reshape(len(truth), -1)
    truth_boxes = _bbox(truth)
    x, y = truth[..., 0], truth[..., 1]  # COCO's "area" of a polygon annotation: the polygon's area
    truth_areas = np.round(0.5 * np.abs((x * np.roll(y, -1, 1) - np.roll(x, -1, 1) * y).sum(axis=1)), 2)
    dataset = {
        "images": [{"id": i, "height": SIDE, "width": SIDE} for i in range(1, workload["n_images"] + 1)],
        "categories": [{"id": c, "name": f"class{c}"} for c in range(1, CATEGORIES + 1)],
        "annotations": [
            {
                "id": k + 1,
                "image_id": image,
                "category_id": category,
                "segmentation": [ring],
                "bbox": box,
                "area": float(area),
                "iscrowd": 0,
            }
            for k, (image, category, ring, box, area) in enumerate(
                zip(
                    workload["truth_image"].tolist(),
                    workload["truth_category"].tolist(),
                    flat_truth.tolist(),
                    truth_boxes.tolist(),
                    truth_areas.tolist(),
                )
            )
        ],
    }
    columns = list(
        zip(workload["predicted_image"].tolist(), workload["predicted_category"].tolist(), workload["score"].tolist())
    )
    boxes = [
        {"image_id": image, "category_id": category, "bbox": box, "score": score}
        for (image, category, score), box in zip(columns, _bbox(predicted).tolist())
    ]
    masks = mask_utils.frPyObjects(predicted.reshape(len(predicted), -1).tolist(), SIDE, SIDE)
    segm = [
        {
            "image_id": image,
            "category_id": category,
            "score": score,
            "segmentation": {"size": [SIDE, SIDE], "counts": rle["counts"].decode("ascii")},
        }
        for (image, category, score), rle in zip(columns, masks)
    ]
    paths = {
        "instances": folder / "instances.json",
        "bbox": folder / "results-bbox.json",
        "segm": folder / "results-segm.json",
    }
    for name, document in (("instances", dataset), ("bbox", boxes), ("segm", segm)):
        paths[name].write_text(json.dumps(document))
    return paths


def write_box_results(path: str | os.PathLike[str], n: int, n_images: int, seed: int = SEED) -> Path:
    """A result file of `n` random box predictions over `n_images` images (the memory workload)."""
    rng = np.random.default_rng(seed)
    size = np.round(rng.uniform(2, 120, (n, 2)), 2)
    corner = np.round(rng.uniform(0, SIDE - 120, (n, 2)), 2)
    image = np.sort(rng.integers(1, n_images + 1, n))
    records = [
        {"image_id": i, "category_id": c, "bbox": box, "score": s}
        for i, c, box, s in zip(
            image.tolist(),
            rng.integers(1, CATEGORIES + 1, n).tolist(),
            np.column_stack([corner, size]).tolist(),
            np.round(rng.random(n), 4).tolist(),
        )
    ]
    path = Path(path)
    path.write_text(json.dumps(records))
    return path


def write_geojson(path: str | os.PathLike[str], n: int = 20_000, seed: int = SEED) -> Path:
    """A FeatureCollection of `n` star polygons with a property each."""
    rng = np.random.default_rng(seed)
    radii = rng.uniform(5, 50, n)
    polygons = star_polygons(rng, n, rng.uniform(0, 10_000, (n, 2)), radii, k=12)
    features = [
        {"type": "Feature", "properties": {"id": k}, "geometry": {"type": "Polygon", "coordinates": [ring + ring[:1]]}}
        for k, ring in enumerate(polygons.tolist())
    ]
    path = Path(path)
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    return path


def write_activitynet_results(
    path: str | os.PathLike[str], n_videos: int = 5000, per_video: int = 100, seed: int = SEED
) -> Path:
    """An ActivityNet results file: `per_video` scored segments in each of `n_videos` videos."""
    rng = np.random.default_rng(seed)
    results = {}
    for video in range(n_videos):
        start = np.round(rng.uniform(0, 100, per_video), 2)
        length = np.round(rng.uniform(1, 30, per_video), 2)
        results[f"v_{video:06d}"] = [
            {"segment": [s, s + d], "label": f"class{c}", "score": p}
            for s, d, c, p in zip(
                start.tolist(),
                length.tolist(),
                rng.integers(0, 200, per_video).tolist(),
                np.round(rng.random(per_video), 4).tolist(),
            )
        ]
    path = Path(path)
    path.write_text(json.dumps({"version": "VERSION 1.3", "results": results, "external_data": {}}))
    return path


def write_yolo_folder(
    folder: str | os.PathLike[str], n_files: int = 5000, per_file: int = 20, seed: int = SEED
) -> Path:
    """A folder of `n_files` YOLO label files of `per_file` boxes each (class cx cy w h, normalised)."""
    rng = np.random.default_rng(seed)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(n_files):
        centre, size = rng.uniform(0.2, 0.8, (per_file, 2)), rng.uniform(0.01, 0.3, (per_file, 2))
        lines = [
            f"{c} {x:.6f} {y:.6f} {w:.6f} {h:.6f}"
            for c, (x, y), (w, h) in zip(rng.integers(0, 80, per_file).tolist(), centre.tolist(), size.tolist())
        ]
        (folder / f"image{k:05d}.txt").write_text("\n".join(lines) + "\n")
    return folder
