"""Seeded COCO-panoptic-like datasets: ground-truth and predicted PNG maps with their JSON, written to a folder.

Each image has stuff bands (sky, road, grass: horizontal strips with wavy edges), thing objects
(ellipses and rectangles of several categories, some crowd regions), void pixels (thin seams
between segments and blobs, as COCO's annotations leave them) and ids that are random 24-bit
colours. Predictions move every object by a few pixels, miss some, add spurious ones (some on void
and crowd regions, which panopticapi ignores), relabel a few, merge or split stuff bands and leave
some pixels unlabelled. The benchmark (`benchmarks/bench_panoptic.py`) writes larger ones.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

#: Categories: things 1-4 (isthing 1), stuff 5-7.
CATEGORIES = [
    {"id": 1, "name": "person", "isthing": 1},
    {"id": 2, "name": "car", "isthing": 1},
    {"id": 3, "name": "dog", "isthing": 1},
    {"id": 4, "name": "bicycle", "isthing": 1},
    {"id": 5, "name": "sky", "isthing": 0},
    {"id": 6, "name": "road", "isthing": 0},
    {"id": 7, "name": "grass", "isthing": 0},
    {"id": 8, "name": "unused", "isthing": 1},
]


def _stuff_labels(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """Horizontal bands of stuff categories with wavy edges: (H, W) category ids."""
    cols = np.arange(width)
    cuts = np.sort(rng.uniform(0.2, 0.8, 2)) * height
    edges = [cut + 6 * np.sin(cols / rng.uniform(15, 40) + rng.uniform(0, 6)) for cut in cuts]
    rows = np.arange(height)[:, None]
    band = (rows >= edges[0]).astype(np.int64) + (rows >= edges[1])
    return np.array([5, 6, 7])[band]


def _objects(rng: np.random.Generator, height: int, width: int, count: int) -> list[tuple[np.ndarray, int, int]]:
    """Thing objects: (pixels, category, crowd)."""
    rows, cols = np.mgrid[:height, :width]
    found = []
    for _ in range(count):
        cy, cx = rng.uniform(0, height), rng.uniform(0, width)
        ry, rx = rng.uniform(4, height / 5), rng.uniform(4, width / 5)
        if rng.random() < 0.5:
            pixels = ((rows - cy) / ry) ** 2 + ((cols - cx) / rx) ** 2 <= 1
        else:
            pixels = (np.abs(rows - cy) <= ry) & (np.abs(cols - cx) <= rx)
        found.append((pixels, int(rng.integers(1, 5)), int(rng.random() < 0.08)))
    return found


def _paint(
    rng: np.random.Generator, stuff: np.ndarray, objects: list[tuple[np.ndarray, int, int]], void: np.ndarray
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """An id map and its segments_info: stuff bands, then objects painted over in order, then void."""
    ids = np.zeros(stuff.shape, dtype=np.int64)
    segments = []
    colours = rng.choice(np.arange(1, 256**3), size=len(objects) + 8, replace=False)
    used = 0
    for category in np.unique(stuff).tolist():
        ids[stuff == category] = colours[used]
        segments.append({"id": int(colours[used]), "category_id": int(category), "iscrowd": 0})
        used += 1
    for pixels, category, crowd in objects:
        ids[pixels] = colours[used]
        segments.append({"id": int(colours[used]), "category_id": category, "iscrowd": crowd})
        used += 1
    ids[void] = 0
    kept = []
    for segment in segments:
        area = int((ids == segment["id"]).sum())
        if area:
            rows, cols = np.nonzero(ids == segment["id"])
            segment["area"] = area
            segment["bbox"] = [int(cols.min()), int(rows.min()), int(np.ptp(cols) + 1), int(np.ptp(rows) + 1)]
            kept.append(segment)
    return ids, kept


def _void(rng: np.random.Generator, ids_like: np.ndarray, amount: float) -> np.ndarray:
    """Seams where the labels change and a few blobs."""
    seams = np.zeros(ids_like.shape, dtype=bool)
    seams[:, 1:] |= (ids_like[:, 1:] != ids_like[:, :-1]) & (rng.random(ids_like[:, 1:].shape) < amount)
    seams[1:, :] |= (ids_like[1:, :] != ids_like[:-1, :]) & (rng.random(ids_like[1:, :].shape) < amount)
    height, width = ids_like.shape
    rows, cols = np.mgrid[:height, :width]
    for _ in range(rng.integers(0, 3)):
        cy, cx, r = rng.uniform(0, height), rng.uniform(0, width), rng.uniform(2, height / 8)
        seams |= (rows - cy) ** 2 + (cols - cx) ** 2 <= r * r
    return seams


def _moved(rng: np.random.Generator, objects: list[tuple[np.ndarray, int, int]]) -> list[tuple[np.ndarray, int, int]]:
    """The predicted objects: shifted, some missed, some relabelled, some spurious."""
    found = []
    for pixels, category, _ in objects:
        if rng.random() < 0.15:
            continue  # missed
        shift = tuple(int(v) for v in rng.integers(-4, 5, 2))
        moved = np.roll(pixels, shift, axis=(0, 1))
        if rng.random() < 0.1:
            category = int(rng.integers(1, 5))
        found.append((moved, category, 0))
    return found


def write_panoptic_dataset(
    folder: Path, seed: int, n_images: int = 8, height: int = 60, width: int = 80, objects: int = 8
) -> tuple[Path, Path]:
    """Write ``truth.json`` + ``truth/*.png`` and ``predictions.json`` + ``predictions/*.png``; their JSON paths."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    documents: dict[str, list[dict[str, Any]]] = {"truth": [], "predictions": []}
    for side in documents:
        (folder / side).mkdir(exist_ok=True)
    for image in range(1, n_images + 1):
        stuff = _stuff_labels(rng, height, width)
        things = _objects(rng, height, width, int(rng.integers(0, objects + 1)))
        truth_ids, truth_segments = _paint(rng, stuff, things, np.zeros(stuff.shape, bool))
        truth_ids, truth_segments = _paint(rng, stuff, things, _void(rng, truth_ids, 0.3))
        predicted_stuff = np.where(stuff == 7, 6, stuff) if rng.random() < 0.3 else np.roll(stuff, 3, axis=0)
        spurious = _objects(rng, height, width, int(rng.integers(0, 3)))
        predicted = _moved(rng, things) + [(pixels, category, 0) for pixels, category, _ in spurious]
        unlabelled = (
            _void(rng, np.zeros(stuff.shape, np.int64), 0.0) if rng.random() < 0.5 else np.zeros_like(stuff, bool)
        )
        predicted_ids, predicted_segments = _paint(rng, predicted_stuff, predicted, unlabelled)
        for side, ids, segments in (
            ("truth", truth_ids, truth_segments),
            ("predictions", predicted_ids, predicted_segments),
        ):
            rgb = np.stack([ids % 256, ids // 256 % 256, ids // 65536], axis=-1).astype(np.uint8)
            Image.fromarray(rgb).save(folder / side / f"{image:06d}.png")
            documents[side].append({"image_id": image, "file_name": f"{image:06d}.png", "segments_info": segments})
    paths = []
    images = [{"id": i, "file_name": f"{i:06d}.jpg", "height": height, "width": width} for i in range(1, n_images + 1)]
    for side, records in documents.items():
        path = folder / f"{side}.json"
        path.write_text(json.dumps({"images": images, "annotations": records, "categories": CATEGORIES}))
        paths.append(path)
    return paths[0], paths[1]
