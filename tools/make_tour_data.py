"""Write the small dataset of `geoiou demo`'s tour into geoiou/data/tour/ (run once; the output is committed).

Ground truth is real where we have it: the seven DOTA example label files bundled in
geoiou/data/dota (984 objects) give the COCO ground truth (boxes and polygons) and the DOTA ground
truth. Predictions are synthetic: each object is found with probability 0.9 and jittered, some
get the wrong class, and false positives are added; scores grow with how well a prediction fits,
plus noise. The temporal set is synthetic throughout (30 videos, 6 classes). Everything is seeded,
so running this again writes the same files.

    python tools/make_tour_data.py
"""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import numpy as np
from skimage.draw import polygon as fill_polygon

import geoiou
from geoiou.io import read_dota
from geoiou.rle import encode

OUT = Path(__file__).resolve().parent.parent / "geoiou" / "data" / "tour"
DOTA = files("geoiou") / "data" / "dota"
SEED = 20261122
FOUND = 0.9
WRONG_CLASS = 0.05
FALSE_POSITIVES = 0.15
#: The second annotator has its own seed, so that adding it left the other files as they were.
ANNOTATOR_SEED = SEED + 1
ANNOTATOR_MISSES = 0.04
ANNOTATOR_RELABELS = 0.03
ANNOTATOR_EXTRAS = 0.02


def dota_images() -> list[tuple[str, geoiou.Polygon, np.ndarray, tuple[str, ...], np.ndarray]]:
    """(name, polygons, corners, classes, difficult) of each bundled DOTA file, sorted by name."""
    result = []
    for path in sorted(DOTA.iterdir(), key=lambda p: p.name):
        if path.name.endswith(".txt"):
            objects = read_dota(path)
            result.append((path.name[:-4], objects.polygons, objects.corners, objects.classes, objects.difficult))
    return result


def image_size(corners: np.ndarray) -> tuple[int, int]:
    """A (height, width) that holds every object, rounded up to 100 pixels (the label files do not give it)."""
    top = np.ceil(corners.reshape(-1, 2).max(axis=0) / 100) * 100 + 100
    return int(top[1]), int(top[0])


def jittered_corners(corners: np.ndarray, rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """Move a quadrilateral as a rotated box: centre, size and angle, by amounts relative to its size."""
    box = geoiou.RotatedBox.from_corners(corners, fit="min_area").to_array()
    scale = np.sqrt(max(box[2] * box[3], 1.0))
    box[:2] += rng.normal(0, 0.08 * scale, 2)
    box[2:4] *= np.exp(rng.normal(0, 0.1, 2))
    box[4] += rng.normal(0, 4)
    moved = geoiou.RotatedBox(box).to_corners()
    return np.clip(moved, 0, [size[1] - 1, size[0] - 1])


def false_positive(corners: np.ndarray, rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A box of a typical object's size at a random place in the image."""
    extent = np.ptp(corners, axis=0)
    low = rng.uniform([0, 0], [size[1] - extent[0] - 1, size[0] - extent[1] - 1])
    return np.array([low, low + [extent[0], 0], low + extent, low + [0, extent[1]]])


def predictions(images, rng: np.random.Generator, classes: list[str]):
    """Per image: (corners, class, score) of every prediction."""
    result = {}
    for name, polygons, corners, labels, _ in images:
        size = image_size(corners)
        found = []
        for k in range(len(labels)):
            if rng.random() > FOUND:
                continue
            moved = jittered_corners(corners[k], rng, size)
            fit = float(geoiou.iou(geoiou.Polygon(moved), polygons[k]))
            label = labels[k] if rng.random() > WRONG_CLASS else classes[rng.integers(len(classes))]
            found.append((moved, label, float(np.clip(0.3 + 0.6 * fit + rng.normal(0, 0.1), 0.01, 0.99))))
        for _ in range(int(FALSE_POSITIVES * len(labels)) + 1):
            k = rng.integers(len(labels))
            found.append((false_positive(corners[k], rng, size), labels[k], float(rng.uniform(0.01, 0.6))))
        result[name] = found
    return result


def coco_ground_truth(images, classes: list[str]) -> dict:
    categories = [{"id": i + 1, "name": name, "supercategory": "dota"} for i, name in enumerate(classes)]
    table, annotations = [], []
    for image_id, (name, polygons, corners, labels, _) in enumerate(images, start=1):
        height, width = image_size(corners)
        table.append({"id": image_id, "file_name": f"{name}.png", "height": height, "width": width})
        for k in range(len(labels)):
            x1, y1, x2, y2 = polygons[k].bounds
            annotations.append(
                {
                    "id": len(annotations) + 1,
                    "image_id": image_id,
                    "category_id": classes.index(labels[k]) + 1,
                    "bbox": [x1, y1, x2 - x1, y2 - y1],
                    "segmentation": [corners[k].ravel().tolist()],
                    "area": float(polygons[k].area),
                    "iscrowd": 0,
                }
            )
    return {
        "info": {"description": "geoiou tour: the DOTA example labels as COCO instances"},
        "images": table,
        "categories": categories,
        "annotations": annotations,
    }


def coco_results(images, found, classes: list[str]) -> tuple[list, list]:
    boxes, masks = [], []
    for image_id, (name, _, corners, _, _) in enumerate(images, start=1):
        height, width = image_size(corners)
        for moved, label, score in found[name]:
            x1, y1 = moved.min(axis=0)
            x2, y2 = moved.max(axis=0)
            common = {"image_id": image_id, "category_id": classes.index(label) + 1, "score": round(score, 4)}
            boxes.append({**common, "bbox": [round(v, 2) for v in (x1, y1, x2 - x1, y2 - y1)]})
            pixels = np.zeros((height, width), dtype=bool)
            rows, cols = fill_polygon(moved[:, 1], moved[:, 0], (height, width))
            pixels[rows, cols] = True
            rle = encode(pixels)
            masks.append({**common, "segmentation": {"size": rle["size"], "counts": rle["counts"].decode("ascii")}})
    return boxes, masks


def dota_task1(found) -> dict[str, list[str]]:
    """DOTA Task1 submission lines ``image score x1 y1 ... x4 y4`` per class."""
    lines: dict[str, list[str]] = {}
    for name, predicted in found.items():
        for moved, label, score in predicted:
            coords = " ".join(f"{v:.1f}" for v in moved.ravel())
            lines.setdefault(label, []).append(f"{name} {score:.4f} {coords}")
    return lines


def temporal(rng: np.random.Generator) -> tuple[dict, dict]:
    classes = ["high jump", "long jump", "pole vault", "shot put", "discus throw", "javelin throw"]
    database, results = {}, {}
    for v in range(30):
        video = f"v_{v:03d}"
        duration = float(rng.uniform(60, 240))
        segments = []
        for _ in range(rng.integers(1, 5)):
            length = rng.uniform(5, 40)
            start = rng.uniform(0, duration - length)
            segments.append(
                {"segment": [round(start, 2), round(start + length, 2)], "label": classes[rng.integers(len(classes))]}
            )
        database[video] = {"subset": "validation", "duration": round(duration, 2), "annotations": segments}
        predicted = []
        for segment in segments:
            start, end = segment["segment"]
            for _ in range(rng.integers(1, 4)):  # several proposals per action, as detectors emit
                shift, stretch = rng.normal(0, 0.15 * (end - start), 2)
                a, b = start + shift, end + shift + stretch
                if b > a:
                    predicted.append(
                        {
                            "label": segment["label"],
                            "score": round(float(rng.uniform(0.2, 1)), 4),
                            "segment": [round(max(a, 0), 2), round(min(b, duration), 2)],
                        }
                    )
        for _ in range(rng.integers(0, 3)):
            start = rng.uniform(0, duration - 10)
            predicted.append(
                {
                    "label": classes[rng.integers(len(classes))],
                    "score": round(float(rng.uniform(0, 0.5)), 4),
                    "segment": [round(start, 2), round(start + rng.uniform(3, 10), 2)],
                }
            )
        results[video] = predicted
    return (
        {"version": "geoiou tour", "taxonomy": [{"nodeName": name} for name in classes], "database": database},
        {"version": "geoiou tour", "results": results, "external_data": {"used": False}},
    )


def second_annotator(images, rng: np.random.Generator, classes: list[str]) -> dict[str, list[str]]:
    """DOTA label lines per image as a second annotator would draw them.

    Each object is redrawn as a rotated rectangle (the minimum-area one of the first annotator's
    quadrilateral) whose corners are clicked with noise (2% of the object's size, at least half a
    pixel); some objects are missed, some get another class, and a few objects are added where the
    first annotator drew none (a copy of an object's rectangle at a random place).
    """
    lines = {}
    for name, _, corners, labels, difficult in images:
        size = image_size(corners)
        drawn = []
        for k in range(len(labels)):
            if rng.random() < ANNOTATOR_MISSES:
                continue
            box = geoiou.RotatedBox.from_corners(corners[k], fit="min_area")
            noise = max(0.02 * float(np.sqrt(box.area)), 0.5)
            clicked = box.to_corners() + rng.normal(0, noise, (4, 2))
            label = labels[k] if rng.random() > ANNOTATOR_RELABELS else classes[rng.integers(len(classes))]
            drawn.append((clicked, label, int(difficult[k])))
        for _ in range(rng.binomial(len(labels), ANNOTATOR_EXTRAS)):
            k = rng.integers(len(labels))
            shape = geoiou.RotatedBox.from_corners(corners[k], fit="min_area").to_corners()
            shape = (
                shape
                - shape.min(axis=0)
                + rng.uniform([0, 0], [size[1] - np.ptp(shape[:, 0]), size[0] - np.ptp(shape[:, 1])])
            )
            drawn.append((shape, labels[k], 0))
        lines[name] = [
            " ".join(f"{v:.1f}" for v in clicked.ravel()) + f" {label} {flag}" for clicked, label, flag in drawn
        ]
    return lines


def write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, separators=(",", ":")) + "\n", encoding="utf-8")


def main() -> None:
    rng = np.random.default_rng(SEED)
    images = dota_images()
    classes = sorted({label for *_, labels, _ in images for label in labels})
    found = predictions(images, rng, classes)
    write_json(OUT / "coco" / "instances.json", coco_ground_truth(images, classes))
    boxes, masks = coco_results(images, found, classes)
    write_json(OUT / "coco" / "results-bbox.json", boxes)
    write_json(OUT / "coco" / "results-segm.json", masks)
    for label, lines in dota_task1(found).items():
        path = OUT / "dota-task1" / f"Task1_{label}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    truth, results = temporal(rng)
    write_json(OUT / "activitynet" / "ground_truth.json", truth)
    write_json(OUT / "activitynet" / "results.json", results)
    for name, lines in second_annotator(images, np.random.default_rng(ANNOTATOR_SEED), classes).items():
        header = [
            line
            for line in (DOTA / f"{name}.txt").read_text().splitlines()
            if line.startswith(("imagesource:", "gsd:"))
        ]
        path = OUT / "dota-annotator-b" / f"{name}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(header + lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
