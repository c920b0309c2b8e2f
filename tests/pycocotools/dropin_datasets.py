"""Seeded COCO datasets and results for the drop-in's tests, and pycocotools run on them.

Every generator gives a dataset dict and a list of result dicts. They hold what exercises
COCOeval: several categories (one without ground truth), crowd regions, images without ground
truth and images without results, tied scores (one decimal), duplicated objects (equal-IoU ties),
polygons of several parts, uncompressed crowd RLE, keypoints with zero visible keypoints.
"""

from __future__ import annotations

import contextlib
import copy
import io
from typing import Any, Callable

import numpy as np

from tests.evaluation.test_detection_coco import box_dataset

__all__ = [
    "assert_same_eval_images",
    "assert_same_ious",
    "box_dataset",
    "keypoint_dataset",
    "lvis_dataset",
    "run_evaluation",
    "segm_dataset",
]

HEIGHT, WIDTH = 48, 64


def run_evaluation(
    coco_class: Any,
    eval_class: Any,
    dataset: dict[str, Any],
    results: Any,
    iou_type: str,
    tweak: Callable[[Any], None] | None = None,
    **options: Any,
) -> tuple[Any, str]:
    """COCO + loadRes + COCOeval (params tweaked) + evaluate, accumulate, summarize; the evaluator and its printout.

    The inputs are deep-copied: pycocotools writes into the records it is given.
    """
    with contextlib.redirect_stdout(io.StringIO()) as out:
        truth = coco_class()
        truth.dataset = copy.deepcopy(dataset)
        truth.createIndex()
        found = truth.loadRes(copy.deepcopy(results) if isinstance(results, list) else results)
        evaluator = eval_class(truth, found, iou_type, **options)
        if tweak is not None:
            tweak(evaluator.params)
        evaluator.evaluate()
        evaluator.accumulate()
        evaluator.summarize()
    return evaluator, out.getvalue()


def assert_same_eval_images(theirs: list[Any], ours: list[Any]) -> None:
    """Per-image results (pycocotools' evalImgs, lvis-api's eval_imgs) equal entry by entry, field by field, dtypes
    included; None entries where the reference has them."""
    assert len(theirs) == len(ours)
    for reference, mine in zip(theirs, ours):
        assert (reference is None) == (mine is None)
        if reference is None:
            continue
        assert list(reference) == list(mine)
        for key, value in reference.items():
            if isinstance(value, np.ndarray):
                np.testing.assert_array_equal(value, mine[key], strict=True)
            else:
                assert value == mine[key], key


def assert_same_ious(theirs: dict[Any, Any], ours: dict[Any, Any]) -> None:
    """The overlaps by (image, category): the same keys in the same order, [] where the reference has []."""
    assert list(theirs) == list(ours)
    for key, value in theirs.items():
        if isinstance(value, list):
            assert ours[key] == [], key
        else:
            np.testing.assert_array_equal(value, ours[key], strict=True)


def _polygon(rng: np.random.Generator, cx: float, cy: float, radius: float, k: int) -> list[float]:
    angles = np.sort(rng.uniform(0, 2 * np.pi, k))
    reach = radius * rng.uniform(0.5, 1.0, k)
    points = np.column_stack([cx + reach * np.cos(angles), cy + reach * np.sin(angles)])
    return [float(v) for v in np.round(points, 2).ravel()]


def _mask(rng: np.random.Generator) -> np.ndarray:
    rows, cols = np.mgrid[:HEIGHT, :WIDTH]
    cy, cx = rng.uniform(0, HEIGHT), rng.uniform(0, WIDTH)
    ry, rx = rng.uniform(3, 14, 2)
    return ((rows - cy) / ry) ** 2 + ((cols - cx) / rx) ** 2 <= 1


def segm_dataset(seed: int, n_images: int = 24, n_categories: int = 3) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Polygon ground truths (some of two parts), crowd regions as uncompressed RLE, some compressed RLE ground
    truths; RLE results (masks near the objects and random ones)."""
    from pycocotools import mask as mask_utils

    rng = np.random.default_rng(seed)
    images = [{"id": i, "height": HEIGHT, "width": WIDTH} for i in range(1, n_images + 1)]
    annotations: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for image in range(1, n_images + 1):
        objects = []
        for _ in range(0 if image % 6 == 0 else rng.integers(0, 6)):
            category = int(rng.integers(1, n_categories + 1))
            kind = rng.random()
            if kind < 0.15:  # a crowd region, uncompressed counts
                pixels = np.asfortranarray(_mask(rng).astype(np.uint8))
                rle = mask_utils.encode(pixels)
                counts = _uncompressed(pixels)
                segmentation: Any = {"size": [HEIGHT, WIDTH], "counts": counts}
                crowd = 1
            elif kind < 0.3:  # a compressed RLE
                pixels = np.asfortranarray(_mask(rng).astype(np.uint8))
                rle = mask_utils.encode(pixels)
                segmentation = {"size": [HEIGHT, WIDTH], "counts": rle["counts"].decode()}
                crowd = 0
            else:
                cx, cy = rng.uniform(5, WIDTH - 5), rng.uniform(5, HEIGHT - 5)
                parts = [_polygon(rng, cx, cy, rng.uniform(5, 15), int(rng.integers(3, 9)))]
                if rng.random() < 0.3:  # a second part, apart or overlapping
                    parts.append(_polygon(rng, cx + rng.uniform(-12, 12), cy + rng.uniform(-8, 8), 5, 5))
                segmentation, crowd = parts, 0
                rle = mask_utils.merge(mask_utils.frPyObjects(parts, HEIGHT, WIDTH))
            area = float(mask_utils.area(rle))
            annotations.append(
                {
                    "id": len(annotations) + 1,
                    "image_id": image,
                    "category_id": category,
                    "segmentation": segmentation,
                    "area": area * float(rng.uniform(0.8, 1.2)),
                    "bbox": [float(v) for v in mask_utils.toBbox(rle)],
                    "iscrowd": crowd,
                }
            )
            objects.append((mask_utils.decode(rle).astype(bool), category))
        if image % 5 == 0:
            continue
        for _ in range(rng.integers(0, 9)):
            if objects and rng.random() < 0.7:
                pixels, category = objects[rng.integers(len(objects))]
                pixels = np.roll(pixels, tuple(rng.integers(-1, 2, 2) * (rng.random() < 0.5)), axis=(0, 1))
                if rng.random() < 0.1:
                    category = int(rng.integers(1, n_categories + 1))
                score = rng.uniform(0.3, 1.0)
            else:
                pixels, category = _mask(rng), int(rng.integers(1, n_categories + 1))
                score = rng.uniform(0.0, 0.6)
            rle = mask_utils.encode(np.asfortranarray(pixels.astype(np.uint8)))
            rle["counts"] = rle["counts"].decode()
            results.append(
                {"image_id": image, "category_id": category, "segmentation": rle, "score": float(np.round(score, 1))}
            )
    categories = [{"id": c, "name": f"c{c}"} for c in range(1, n_categories + 2)]
    return {"images": images, "annotations": annotations, "categories": categories}, results


def _uncompressed(pixels: np.ndarray) -> list[int]:
    flat = pixels.ravel(order="F").astype(np.int8)
    changes = np.flatnonzero(np.diff(np.r_[0, flat, 1 - flat[-1] if flat.size else 1]))
    return np.diff(np.r_[0, changes[:-1], flat.size]).tolist() if flat.size else [0]


def keypoint_dataset(
    seed: int, n_images: int = 30, n_keypoints: int = 17
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Person keypoints: visible and invisible points, ground truths with no visible keypoint, crowd regions."""
    rng = np.random.default_rng(seed)
    images = [{"id": i, "height": 200, "width": 200} for i in range(1, n_images + 1)]
    annotations: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for image in range(1, n_images + 1):
        people = []
        for _ in range(0 if image % 7 == 0 else rng.integers(0, 5)):
            x, y = rng.uniform(0, 150, 2)
            w, h = rng.uniform(10, 60, 2)
            points = np.column_stack([rng.uniform(x, x + w, n_keypoints), rng.uniform(y, y + h, n_keypoints)])
            visible = rng.choice([0, 1, 2], n_keypoints, p=[0.3, 0.3, 0.4])
            if rng.random() < 0.15:
                visible[:] = 0  # no visible keypoint: matched by distance to the box, ignored
            crowd = int(rng.random() < 0.08)
            keypoints = np.column_stack([np.round(points, 1) * (visible > 0)[:, None], visible]).ravel()
            annotations.append(
                {
                    "id": len(annotations) + 1,
                    "image_id": image,
                    "category_id": 1,
                    "keypoints": [float(v) for v in keypoints],
                    "num_keypoints": int((visible > 0).sum()),
                    "bbox": [float(v) for v in np.round([x, y, w, h], 1)],
                    "area": float(np.round(w * h * rng.uniform(0.5, 1.0), 1)),
                    "iscrowd": crowd,
                }
            )
            people.append(points)
        if image % 5 == 0:
            continue
        for _ in range(rng.integers(0, 7)):
            if people and rng.random() < 0.75:
                points = people[rng.integers(len(people))] + rng.normal(0, rng.uniform(0.2, 2), (n_keypoints, 2))
                score = rng.uniform(0.3, 1.0)
            else:
                points = rng.uniform(0, 200, (n_keypoints, 2))
                score = rng.uniform(0.0, 0.6)
            keypoints = np.column_stack([np.round(points, 2), np.ones(n_keypoints)]).ravel()
            results.append(
                {
                    "image_id": image,
                    "category_id": 1,
                    "keypoints": [float(v) for v in keypoints],
                    "score": float(np.round(score, 1)),
                }
            )
    categories = [{"id": 1, "name": "person", "keypoints": [f"k{i}" for i in range(n_keypoints)], "skeleton": []}]
    return {"images": images, "annotations": annotations, "categories": categories}, results


def lvis_dataset(seed: int, n_images: int = 30, n_categories: int = 8) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A federated dataset: per image, categories present, negative and not exhaustively annotated; categories
    of each frequency; polygon ground truths; box and RLE results, many per image (for the per-image limit)."""
    from pycocotools import mask as mask_utils

    rng = np.random.default_rng(seed)
    categories = [
        {"id": c, "name": f"c{c}", "frequency": "rcf"[c % 3], "synset": f"s{c}"} for c in range(1, n_categories + 1)
    ]
    images, annotations, results = [], [], []
    for image in range(1, n_images + 1):
        present = sorted(set(rng.integers(1, n_categories + 1, rng.integers(0, 4)).tolist()))
        others = [c for c in range(1, n_categories + 1) if c not in present]
        negative = sorted(rng.choice(others, min(len(others), 2), replace=False).tolist()) if others else []
        not_exhaustive = [c for c in present if rng.random() < 0.3]
        images.append(
            {
                "id": image,
                "height": HEIGHT,
                "width": WIDTH,
                "neg_category_ids": negative,
                "not_exhaustive_category_ids": not_exhaustive,
            }
        )
        objects = []
        for category in present:
            for _ in range(rng.integers(1, 4)):
                cx, cy = rng.uniform(6, WIDTH - 6), rng.uniform(6, HEIGHT - 6)
                polygon = _polygon(rng, cx, cy, rng.uniform(4, 14), int(rng.integers(4, 9)))
                rle = mask_utils.merge(mask_utils.frPyObjects([polygon], HEIGHT, WIDTH))
                annotation = {
                    "id": len(annotations) + 1,
                    "image_id": image,
                    "category_id": category,
                    "segmentation": [polygon],
                    "area": float(mask_utils.area(rle)),
                    "bbox": [float(v) for v in mask_utils.toBbox(rle)],
                }
                if rng.random() < 0.05:
                    annotation["ignore"] = 1
                annotations.append(annotation)
                objects.append((mask_utils.decode(rle).astype(bool), annotation["bbox"], category))
        for _ in range(rng.integers(0, 30)):
            if objects and rng.random() < 0.6:
                pixels, box, category = objects[rng.integers(len(objects))]
                pixels = np.roll(pixels, tuple(rng.integers(-1, 2, 2)), axis=(0, 1))
                box = [float(v) for v in np.array(box) + np.round(rng.normal(0, 1, 4), 2)]
                score = rng.uniform(0.3, 1.0)
            else:
                pixels = _mask(rng)
                box = [float(v) for v in np.round([*rng.uniform(0, 40, 2), *rng.uniform(2, 20, 2)], 2)]
                category = int(rng.integers(1, n_categories + 1))
                score = rng.uniform(0.0, 0.6)
            rle = mask_utils.encode(np.asfortranarray(pixels.astype(np.uint8)))
            rle["counts"] = rle["counts"].decode()
            box[2:] = [max(box[2], 1.0), max(box[3], 1.0)]
            results.append(
                {
                    "image_id": image,
                    "category_id": category,
                    "bbox": box,
                    "segmentation": rle,
                    "score": float(np.round(score, 2)),
                }
            )
    return {"images": images, "annotations": annotations, "categories": categories}, results
