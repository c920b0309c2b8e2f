"""COCO detection AP against pycocotools' COCOeval: boxes, masks, and polygons rasterized as pycocotools does.

Every dataset has several categories (one without ground truth), crowd regions, images without
ground truth and images without predictions, tied scores, and duplicated objects (equal-IoU ties).
"""

from __future__ import annotations


import numpy as np
import pytest
import shapely

import geoiou
from geoiou import rle
from geoiou.rle_rasterize import coco_compat_rasterize
from geoiou.evaluation import Annotations, evaluate_coco
from tests.peers import run_cocoeval

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")

coco = pytest.importorskip("pycocotools.coco")
cocoeval = pytest.importorskip("pycocotools.cocoeval")
mask_utils = pytest.importorskip("pycocotools.mask")


def assert_same(result, evaluator) -> None:
    """The 12 numbers and the arrays behind them, bit for bit (boxes keep their w and h: areas are w * h as
    pycocotools computes them)."""
    np.testing.assert_array_equal(result.stats_array, evaluator.stats)
    np.testing.assert_array_equal(result.precision, evaluator.eval["precision"])
    np.testing.assert_array_equal(result.recall, evaluator.eval["recall"])
    np.testing.assert_array_equal(result.scores, evaluator.eval["scores"])


def truth_columns(dataset: dict, regions) -> Annotations:
    anns = dataset["annotations"]
    return Annotations(
        image_id=[a["image_id"] for a in anns],
        category_id=[a["category_id"] for a in anns],
        region=regions,
        iscrowd=[a["iscrowd"] for a in anns],
        area=[a["area"] for a in anns],
    )


def prediction_columns(results: list[dict], regions) -> Annotations:
    return Annotations(
        image_id=[r["image_id"] for r in results],
        category_id=[r["category_id"] for r in results],
        region=regions,
        score=[r["score"] for r in results],
    )


# --------------------------------------------------------------------------- boxes
def box_dataset(seed: int, *, integer: bool, n_images: int = 60, n_categories: int = 4) -> tuple[dict, list[dict]]:
    rng = np.random.default_rng(seed)
    images = [{"id": i, "height": 300, "width": 300} for i in range(1, n_images + 1)]
    annotations, results = [], []

    def random_box() -> list[float]:
        w, h = rng.uniform(3, 150, 2)
        box = [*rng.uniform(0, 300 - np.array([w, h])), w, h]
        return [float(v) for v in (np.round(box) if integer else np.round(box, 2))]

    for image in range(1, n_images + 1):
        objects = []
        for _ in range(0 if image % 7 == 0 else rng.integers(0, 8)):  # every 7th image: no ground truth
            box, category = random_box(), int(rng.integers(1, n_categories + 1))
            copies = 2 if rng.random() < 0.15 else 1  # duplicated objects: equal-IoU ties
            for _ in range(copies):
                # COCO's area field, not the box's: it decides small/medium/large.
                annotations.append(
                    {
                        "id": len(annotations) + 1,
                        "image_id": image,
                        "category_id": category,
                        "bbox": box,
                        "area": float(box[2] * box[3] * rng.uniform(0.6, 1.0)),
                        "iscrowd": int(rng.random() < 0.1),
                    }
                )
            objects.append((box, category))
        if image % 5 == 0:  # every 5th image: no predictions
            continue
        for _ in range(rng.integers(0, 12)):
            if objects and rng.random() < 0.75:
                box, category = objects[rng.integers(len(objects))]
                noise = rng.normal(0, 0.05 * np.sqrt(box[2] * box[3]), 4)
                box = np.array(box) + (np.round(noise) if integer else noise)
                box[2:] = np.maximum(box[2:], 1)
                box = [float(v) for v in box]
                if rng.random() < 0.1:
                    category = int(rng.integers(1, n_categories + 1))
                score = rng.uniform(0.3, 1.0)
            else:
                box, category = random_box(), int(rng.integers(1, n_categories + 1))
                score = rng.uniform(0.0, 0.7)
            results.append(
                {"image_id": image, "category_id": category, "bbox": box, "score": float(np.round(score, 1))}
            )  # one decimal: many tied scores
    categories = [{"id": c} for c in range(1, n_categories + 2)]  # the last one has no ground truth
    return {"images": images, "annotations": annotations, "categories": categories}, results


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("integer", [True, False], ids=["integer", "float"])
def test_boxes_match_cocoeval(seed: int, integer: bool) -> None:
    dataset, results = box_dataset(seed, integer=integer)
    evaluator = run_cocoeval(dataset, results, "bbox")
    truth = truth_columns(dataset, geoiou.Box([a["bbox"] for a in dataset["annotations"]], fmt="xywh"))
    predictions = prediction_columns(results, geoiou.Box([r["bbox"] for r in results], fmt="xywh"))
    result = evaluate_coco(
        truth,
        predictions,
        images=[image["id"] for image in dataset["images"]],
        categories=[c["id"] for c in dataset["categories"]],
    )
    assert_same(result, evaluator)
    assert 0.1 < result["AP"] < 0.9 and result["AP50"] > 0.2  # a dataset where the numbers mean something
    per_category = result.per_category()
    assert per_category[5]["AP"] == -1.0  # no ground truth: -1, left out of the means
    assert result["AP"] == pytest.approx(np.mean([v["AP"] for v in per_category.values() if v["AP"] > -1]))


def test_box_areas_default_to_the_measure() -> None:
    dataset, results = box_dataset(11, integer=True)
    for annotation in dataset["annotations"]:
        annotation["area"] = annotation["bbox"][2] * annotation["bbox"][3]
    evaluator = run_cocoeval(dataset, results, "bbox")
    truth = truth_columns(dataset, geoiou.Box([a["bbox"] for a in dataset["annotations"]], fmt="xywh"))
    truth = Annotations(
        image_id=truth.image_id, category_id=truth.category_id, region=truth.regions, iscrowd=truth.iscrowd
    )
    predictions = prediction_columns(results, geoiou.Box([r["bbox"] for r in results], fmt="xywh"))
    assert_same(evaluate_coco(truth, predictions, images=range(1, 61), categories=range(1, 6)), evaluator)


# --------------------------------------------------------------------------- masks (RLE in pycocotools)
HEIGHT, WIDTH = 40, 56


def blob(rng: np.random.Generator) -> np.ndarray:
    rows, cols = np.mgrid[:HEIGHT, :WIDTH]
    cy, cx = rng.uniform(0, HEIGHT), rng.uniform(0, WIDTH)
    ry, rx = rng.uniform(2, 16, 2)
    return ((rows - cy) / ry) ** 2 + ((cols - cx) / rx) ** 2 <= 1


def encode(mask: np.ndarray) -> dict:
    return mask_utils.encode(np.asfortranarray(mask.astype(np.uint8)))


def mask_dataset(seed: int, n_images: int = 30, n_categories: int = 3):
    rng = np.random.default_rng(seed)
    images = [{"id": i, "height": HEIGHT, "width": WIDTH} for i in range(1, n_images + 1)]
    annotations, results, truth_masks, predicted_masks = [], [], {}, {}
    for image in range(1, n_images + 1):
        objects = []
        truth_masks[image], predicted_masks[image] = [], []
        for _ in range(0 if image % 6 == 0 else rng.integers(0, 6)):
            mask, category = blob(rng), int(rng.integers(1, n_categories + 1))
            for _ in range(2 if rng.random() < 0.15 else 1):
                annotations.append(
                    {
                        "id": len(annotations) + 1,
                        "image_id": image,
                        "category_id": category,
                        "iscrowd": int(rng.random() < 0.15),
                        "area": float(mask.sum()),
                        "segmentation": encode(mask),
                    }
                )
                truth_masks[image].append(mask)
            objects.append((mask, category))
        if image % 5 == 0:
            continue
        for _ in range(rng.integers(0, 12)):
            if objects and rng.random() < 0.75:
                mask, category = objects[rng.integers(len(objects))]
                mask = np.roll(mask, tuple(rng.integers(-1, 2, 2)), axis=(0, 1))
                if rng.random() < 0.2:
                    mask = mask | blob(rng)
            else:
                mask, category = blob(rng), int(rng.integers(1, n_categories + 1))
            results.append(
                {
                    "image_id": image,
                    "category_id": category,
                    "segmentation": encode(mask),
                    "score": float(np.round(rng.random(), 1)),
                }
            )
            predicted_masks[image].append(mask)
    dataset = {
        "images": images,
        "annotations": annotations,
        "categories": [{"id": c} for c in range(1, n_categories + 1)],
    }
    return dataset, results, truth_masks, predicted_masks


def stacked(masks: dict[int, list[np.ndarray]]) -> geoiou.Mask:
    every = [m for image in sorted(masks) for m in masks[image]]
    return geoiou.Mask(np.array(every, dtype=bool).reshape(-1, HEIGHT, WIDTH))


@pytest.mark.parametrize("seed", range(3))
def test_masks_match_cocoeval(seed: int) -> None:
    dataset, results, truth_masks, predicted_masks = mask_dataset(seed)
    evaluator = run_cocoeval(dataset, results, "segm")
    sizes = {image["id"]: (HEIGHT, WIDTH) for image in dataset["images"]}
    result = evaluate_coco(
        truth_columns(dataset, stacked(truth_masks)),
        prediction_columns(results, stacked(predicted_masks)),
        images=sizes,
    )
    assert_same(result, evaluator)
    assert result["AP50"] > 0.1


def test_per_image_records_give_the_same_numbers() -> None:
    dataset, results, truth_masks, predicted_masks = mask_dataset(5)
    evaluator = run_cocoeval(dataset, results, "segm")
    truth_records, prediction_records = [], []
    for image in sorted(truth_masks):
        anns = [a for a in dataset["annotations"] if a["image_id"] == image]
        if anns:
            truth_records.append(
                {
                    "image_id": image,
                    "category_id": [a["category_id"] for a in anns],
                    "region": geoiou.Mask(np.array(truth_masks[image])),
                    "iscrowd": [a["iscrowd"] for a in anns],
                    "area": [a["area"] for a in anns],
                }
            )
        mine = [r for r in results if r["image_id"] == image]
        if mine:
            prediction_records.append(
                {
                    "image_id": image,
                    "category_id": [r["category_id"] for r in mine],
                    "region": geoiou.Mask(np.array(predicted_masks[image])),
                    "score": [r["score"] for r in mine],
                }
            )
    result = evaluate_coco(truth_records, prediction_records, images=range(1, 31))
    assert_same(result, evaluator)


# --------------------------------------------------------------------------- polygons, rasterized as pycocotools does
def random_ring(rng: np.random.Generator, cx: float, cy: float, radius: float, n: int) -> np.ndarray:
    angles = np.sort(rng.uniform(0, 2 * np.pi, n))
    radii = rng.uniform(0.5 * radius, radius, n)
    return np.round(np.c_[cx + radii * np.cos(angles), cy + radii * np.sin(angles)], 2)


def polygon_dataset(seed: int, n_images: int = 25, n_categories: int = 3):
    """COCO-like: polygon ground truth (some with two rings), crowd regions as RLE masks, RLE predictions;
    images of several sizes."""
    rng = np.random.default_rng(seed)
    sizes = {i: (int(rng.integers(40, 80)), int(rng.integers(40, 90))) for i in range(1, n_images + 1)}
    annotations, results, truth_regions, predicted_regions = [], [], [], []
    for image, (h, w) in sizes.items():
        objects = []
        for _ in range(rng.integers(0, 5)):
            category = int(rng.integers(1, n_categories + 1))
            if rng.random() < 0.15:
                crowd = np.zeros((h, w), dtype=bool)
                y0, x0 = rng.integers(0, h // 2), rng.integers(0, w // 2)
                crowd[y0 : y0 + h // 3, x0 : x0 + w // 3] = True
                annotations.append(
                    {
                        "id": len(annotations) + 1,
                        "image_id": image,
                        "category_id": category,
                        "iscrowd": 1,
                        "area": float(crowd.sum()),
                        "segmentation": encode(crowd),
                    }
                )
                truth_regions.append(geoiou.Mask(crowd))
                continue
            rings = [
                random_ring(rng, rng.uniform(0, w / 2), rng.uniform(0, h), rng.uniform(3, 15), int(rng.integers(3, 9)))
            ]
            if rng.random() < 0.3:  # a second, disjoint part
                rings.append(random_ring(rng, rng.uniform(w / 2 + 15, w + 5), rng.uniform(0, h), rng.uniform(3, 8), 5))
            parts = [shapely.Polygon(ring) for ring in rings]
            geometry = parts[0] if len(parts) == 1 else shapely.MultiPolygon(parts)
            if not geometry.is_valid:
                continue
            annotations.append(
                {
                    "id": len(annotations) + 1,
                    "image_id": image,
                    "category_id": category,
                    "iscrowd": 0,
                    "area": float(geometry.area),
                    "segmentation": [ring.ravel().tolist() for ring in rings],
                }
            )
            truth_regions.append(geoiou.Polygon.from_shapely(geometry))
            objects.append((rings, category))
        for _ in range(rng.integers(0, 8)):
            if objects and rng.random() < 0.75:
                rings, category = objects[rng.integers(len(objects))]
                mask = coco_compat_rasterize(rings, h, w)
                mask = np.roll(mask, tuple(rng.integers(-1, 2, 2)), axis=(0, 1))
            else:
                mask = np.zeros((h, w), dtype=bool)
                y0, x0 = rng.integers(0, h - 5), rng.integers(0, w - 5)
                mask[y0 : y0 + 8, x0 : x0 + 8] = True
                category = int(rng.integers(1, n_categories + 1))
            results.append(
                {
                    "image_id": image,
                    "category_id": category,
                    "segmentation": encode(mask),
                    "score": float(np.round(rng.random(), 1)),
                }
            )
            predicted_regions.append(geoiou.Mask(mask))
    dataset = {
        "images": [{"id": i, "height": h, "width": w} for i, (h, w) in sizes.items()],
        "annotations": annotations,
        "categories": [{"id": c} for c in range(1, n_categories + 1)],
    }
    return dataset, results, truth_regions, predicted_regions, sizes


@pytest.mark.parametrize("seed", range(2))
def test_polygons_rasterized_like_pycocotools_match_cocoeval(seed: int) -> None:
    dataset, results, truth_regions, predicted_regions, sizes = polygon_dataset(seed)
    evaluator = run_cocoeval(dataset, results, "segm")
    truth = truth_columns(dataset, truth_regions)  # polygons and crowd masks, mixed
    predictions = prediction_columns(results, predicted_regions)
    compatible = evaluate_coco(truth, predictions, images=sizes, polygon_iou="pycocotools")
    assert_same(compatible, evaluator)
    exact = evaluate_coco(truth, predictions, images=sizes)  # geoiou's own: polygons compared exactly
    assert not np.allclose(exact.stats_array, evaluator.stats, atol=1e-3)


def test_rasterizer_matches_frpyobjects_pixel_for_pixel() -> None:
    rng = np.random.default_rng(0)
    for trial in range(400):
        height, width = (int(v) for v in rng.integers(1, 50, 2))
        n = int(rng.integers(3, 10))
        kind = trial % 5
        if kind == 0:  # anywhere, also outside the image and self-intersecting
            ring = rng.uniform(-10, max(height, width) + 10, (n, 2))
        elif kind == 1:  # half pixels: the rounding's ties
            ring = np.round(rng.uniform(0, max(height, width), (n, 2)) * 2) / 2
        elif kind == 2:  # COCO-like two decimals
            ring = np.round(rng.uniform(-3, max(height, width) + 3, (n, 2)), 2)
        else:  # star-shaped, sometimes with repeated vertices (zero-length edges)
            angles = np.sort(rng.uniform(0, 2 * np.pi, n))
            radii = rng.uniform(0.1, max(height, width) / 2, n)
            ring = rng.uniform(0, max(height, width), 2) + np.c_[radii * np.cos(angles), radii * np.sin(angles)]
            if kind == 4:
                ring = np.repeat(ring, 2, axis=0)
        flat = ring.ravel().tolist()
        expected = mask_utils.decode(mask_utils.frPyObjects([flat], height, width))[:, :, 0].astype(bool)
        np.testing.assert_array_equal(coco_compat_rasterize([flat], height, width), expected, err_msg=f"trial {trial}")
    # Several rings of one object are united, as annToRLE merges them.
    rings = [[1, 1, 9, 1, 9, 9], [5, 5, 14, 5, 14, 12, 5, 12]]
    expected = mask_utils.decode(mask_utils.merge(mask_utils.frPyObjects(rings, 15, 16))).astype(bool)
    np.testing.assert_array_equal(coco_compat_rasterize(rings, 15, 16), expected)


# --------------------------------------------------------------------------- COCOeval's rules, one at a time
def boxes(*coords: list[float]) -> geoiou.Box:
    return geoiou.Box(np.array(coords, dtype=float).reshape(-1, 4), fmt="xywh")


def as_coco(truth_boxes: list, truth_categories: list, crowd: list, result_boxes: list, scores: list):
    dataset = {
        "images": [{"id": 1, "height": 100, "width": 100}],
        "categories": [{"id": 1}],
        "annotations": [
            {"id": i + 1, "image_id": 1, "category_id": c, "bbox": b, "area": b[2] * b[3], "iscrowd": k}
            for i, (b, c, k) in enumerate(zip(truth_boxes, truth_categories, crowd))
        ],
    }
    results = [{"image_id": 1, "category_id": 1, "bbox": b, "score": s} for b, s in zip(result_boxes, scores)]
    truth = Annotations(image_id=1, category_id=truth_categories, region=boxes(*truth_boxes), iscrowd=crowd)
    predictions = Annotations(image_id=1, category_id=1, region=boxes(*result_boxes), score=scores)
    return dataset, results, truth, predictions


def test_equal_iou_goes_to_the_last_ground_truth() -> None:
    # The first prediction overlaps both objects equally (IoU 9/11): COCOeval keeps the later one,
    # so the second prediction is left with the first object, which it overlaps only 7/13.
    truth_boxes = [[0, 0, 10, 10], [2, 0, 10, 10]]
    result_boxes = [[1, 0, 10, 10], [3, 0, 10, 10]]
    dataset, results, truth, predictions = as_coco(truth_boxes, [1, 1], [0, 0], result_boxes, [0.9, 0.8])
    overlaps = geoiou.pairwise_iou(boxes(*result_boxes), boxes(*truth_boxes))
    assert overlaps[0, 0] == overlaps[0, 1] == 9 / 11 and overlaps[1].tolist() == [7 / 13, 9 / 11]
    result = evaluate_coco(truth, predictions)
    # Both found at IoU 0.5 (7/13 = 0.538), one from 0.55 to 0.8, none above 9/11 = 0.818; had the tie
    # gone to the first object, both would be found up to 0.8.
    np.testing.assert_allclose(result.recall[:, 0, 0, -1], [1.0] + [0.5] * 6 + [0.0] * 3)
    assert_same(result, run_cocoeval(dataset, results, "bbox"))


def test_crowd_regions_match_by_iof_and_repeatedly() -> None:
    # A crowd box holds two small predictions (IoU small, IoF 1): both are ignored, not false positives.
    truth_boxes = [[0, 0, 10, 10], [40, 40, 50, 50]]
    result_boxes = [[0, 0, 10, 10], [41, 41, 5, 5], [50, 50, 5, 5], [95, 5, 3, 3]]
    dataset, results, truth, predictions = as_coco(truth_boxes, [1, 1], [0, 1], result_boxes, [0.9, 0.8, 0.7, 0.6])
    result = evaluate_coco(truth, predictions)
    assert result["AP50"] == pytest.approx(1.0)  # TP, then two ignored, then a FP after full recall
    assert_same(result, run_cocoeval(dataset, results, "bbox"))


def test_ignore_flag_is_honoured_and_unset_reproduces_cocoeval() -> None:
    truth = Annotations(image_id=1, category_id=1, region=boxes([0, 0, 10, 10], [50, 50, 10, 10]))
    flagged = Annotations(image_id=1, category_id=1, region=truth.regions, ignore=[False, True])
    predictions = Annotations(
        image_id=1, category_id=1, region=boxes([50, 50, 10, 10], [0, 0, 10, 10]), score=[0.9, 0.8]
    )
    assert evaluate_coco(truth, predictions)["AP50"] == pytest.approx(1.0)
    assert evaluate_coco(flagged, predictions)["AR100"] == pytest.approx(1.0)  # the flagged object is not required
    plain = evaluate_coco(truth, predictions)
    assert plain["AR1"] == pytest.approx(0.5)


def test_large_dataset_is_vectorized() -> None:
    """2,000 images of 100 predictions each evaluate in well under a minute (COCOeval takes minutes)."""
    rng = np.random.default_rng(3)
    n_images, per_image = 2000, 100
    counts = rng.integers(0, 12, n_images)
    image = np.repeat(np.arange(n_images), counts)
    truth_xywh = np.c_[rng.uniform(0, 500, (len(image), 2)), rng.uniform(5, 200, (len(image), 2))]
    category = rng.integers(0, 10, len(image))
    pick = rng.integers(0, len(image), n_images * per_image)
    predicted = truth_xywh[pick] + rng.normal(0, 3, (len(pick), 4))
    predicted[:, 2:] = np.abs(predicted[:, 2:]) + 1
    truth = Annotations(image_id=image, category_id=category, region=geoiou.Box(truth_xywh, fmt="xywh"))
    predictions = Annotations(
        image_id=image[pick],
        category_id=category[pick],
        region=geoiou.Box(predicted, fmt="xywh"),
        score=rng.random(len(pick)),
    )
    result = evaluate_coco(truth, predictions, images=range(n_images))
    assert 0.3 < result["AP"] < 1.0


def test_rasterized_polygons_for_evaluation_stay_runs_and_equal_the_dense_raster():
    # Two objects on a 3000 x 4000 image, one of two overlapping parts, and one on a small image: all
    # rasterized together from the coordinate arrays, as runs only (no 12-MB array per object), each
    # at its own size, decoding to coco_compat_rasterize's pixels.
    from geoiou.rle_rasterize import coco_compat_polygon_runs

    parts = [[(100.3, 200.7), (180.2, 210.1), (150.5, 290.9)], [(150, 250), (260, 240), (200, 330)]]
    square = [[(2990.5, 10.2), (3999.0, 10.2), (3999.0, 20.8), (2990.5, 20.8)]]
    small = [[(0.5, 0.5), (3.5, 1.5), (1.5, 3.9)]]
    geometries = np.array(
        [shapely.union_all([shapely.Polygon(p) for p in parts]), shapely.Polygon(square[0]), shapely.Polygon(small[0])]
    )
    sizes = np.array([[3000, 4000], [3000, 4000], [5, 4]])
    runs = coco_compat_polygon_runs(geoiou.Polygon.from_shapely(geometries), sizes, "region")
    np.testing.assert_array_equal(runs.sizes, sizes)
    # The union of the parts is one ring here, so its raster is the ring's: compare with rasterizing it.
    union_ring = [np.asarray(geometries[0].exterior.coords)[:-1]]
    for k, (rings, (height, width)) in enumerate(zip((union_ring, square, small), sizes)):
        decoded = rle.decode({"size": [int(height), int(width)], "counts": rle.compress_runs(runs, [k])[0]})
        np.testing.assert_array_equal(decoded, coco_compat_rasterize(rings, int(height), int(width)))


@pytest.mark.parametrize("threads", [1, 2])  # objects are rasterized in parallel: the same bits on any number
def test_batch_rasterizer_matches_frpyobjects_for_every_object_at_its_own_size(threads) -> None:
    from geoiou import rle_rasterize

    rng = np.random.default_rng(7)
    rings, sizes = [], []
    for k in range(80):  # enough objects for the parallel loop
        height, width = (int(v) for v in rng.integers(1, 40, 2))
        angles = (np.arange(6) + rng.uniform(0.1, 0.9, 6)) * (2 * np.pi / 6)  # simple star rings (valid polygons)
        centre, radius = rng.uniform(-5, 45, 2), rng.uniform(0.3, 25)
        ring = np.round(centre + radius * np.c_[np.cos(angles), np.sin(angles)], int(rng.integers(0, 3)))
        rings.append(ring)
        sizes.append((height, width))
    geoiou.set_threads(threads)
    try:
        runs = rle_rasterize.coco_compat_polygon_runs(
            geoiou.Polygon.from_rings(np.array(rings)), np.array(sizes), "rings"
        )
    finally:
        geoiou.set_threads(None)
    for k, (ring, (height, width)) in enumerate(zip(rings, sizes)):
        expected = mask_utils.decode(mask_utils.frPyObjects([ring.ravel().tolist()], height, width))[:, :, 0]
        decoded = rle.decode({"size": [height, width], "counts": rle.compress_runs(runs, [k])[0]})
        np.testing.assert_array_equal(decoded, expected.astype(bool), err_msg=f"object {k}")


@pytest.mark.parametrize("seed", range(3))
def test_per_object_matches_are_cocoeval_evalimgs(seed: int) -> None:
    # pycocotools' evalImgs for area range "all" and its largest detection limit: dtMatches (the matched
    # ground truth's id, 0 for none), dtIgnore and gtMatches, at every IoU threshold; ids 1.. are rows + 1.
    dataset, results = box_dataset(seed, integer=False, n_images=30)
    evaluator = run_cocoeval(dataset, results, "bbox")
    truth = truth_columns(dataset, geoiou.Box([a["bbox"] for a in dataset["annotations"]], fmt="xywh"))
    predictions = prediction_columns(results, geoiou.Box([r["bbox"] for r in results], fmt="xywh"))
    matches = evaluate_coco(
        truth,
        predictions,
        images=[image["id"] for image in dataset["images"]],
        categories=[c["id"] for c in dataset["categories"]],
    ).matches
    checked = 0
    for entry in evaluator.evalImgs:
        if entry is None or entry["aRng"] != [0, 1e10]:
            continue
        dt_rows = np.array(entry["dtIds"], dtype=np.int64) - 1
        gt_rows = np.array(entry["gtIds"], dtype=np.int64) - 1
        if dt_rows.size:
            np.testing.assert_array_equal(matches.prediction_match[:, dt_rows] + 1, entry["dtMatches"].astype(np.int64))
            np.testing.assert_array_equal(matches.ignored[:, dt_rows], entry["dtIgnore"])
            np.testing.assert_array_equal(
                matches.true_positive[:, dt_rows], (entry["dtMatches"] > 0) & ~entry["dtIgnore"]
            )
        if gt_rows.size:  # a crowd region may be matched by several; pycocotools keeps the last, geoiou the best
            regular = ~np.array([dataset["annotations"][row]["iscrowd"] for row in gt_rows], dtype=bool)
            np.testing.assert_array_equal(
                matches.truth_match[:, gt_rows[regular]] + 1, entry["gtMatches"][:, regular].astype(np.int64)
            )
        checked += dt_rows.size
    assert checked > 100
    # The IoU of each match is the pair's IoU.
    t, rows = np.nonzero(matches.prediction_match >= 0)
    pairs = geoiou.iou(predictions.regions[0][rows], truth.regions[0][matches.prediction_match[t, rows]])
    crowd = truth.iscrowd[matches.prediction_match[t, rows]]
    # To the last bits: the evaluation divides as pycocotools does, geoiou.iou caps the intersection at both areas
    # (a box's w * h may be an ulp below its corners' product), so that an IoU never exceeds 1.
    np.testing.assert_allclose(matches.prediction_iou[t, rows][~crowd], pairs[~crowd], rtol=1e-15, atol=0)
