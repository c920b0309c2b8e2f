"""VOC/DOTA detection AP against a plain loop-based implementation of the devkits' procedure."""

from __future__ import annotations

import math
from importlib.resources import files

import numpy as np
import pytest
import shapely

import geoiou
from geoiou.evaluation import Annotations, evaluate_voc
from geoiou.evaluation.voc import voc_average_precision
from geoiou.io import read_dota

DOTA_FILES = sorted(p.name for p in (files("geoiou") / "data" / "dota").iterdir() if p.name.endswith(".txt"))


# --------------------------------------------------------------------------- the reference
def reference_ap(recall: list[float], precision: list[float], eleven_points: bool) -> float:
    """VOC's AP, written out with loops."""
    if eleven_points:
        total = 0.0
        for t in np.arange(0.0, 1.1, 0.1):
            best = 0.0
            found = False
            for r, p in zip(recall, precision):
                if r >= t:
                    best = p if not found else max(best, p)
                    found = True
            total = total + best / 11.0
        return total
    points = [0.0] + list(recall) + [1.0]
    values = [0.0] + list(precision) + [0.0]
    for i in range(len(values) - 1, 0, -1):
        values[i - 1] = max(values[i - 1], values[i])
    return sum(
        (points[i + 1] - points[i]) * values[i + 1] for i in range(len(points) - 1) if points[i + 1] != points[i]
    )


def shape_of(region: geoiou.Region) -> shapely.Geometry:
    return region.to_shapely() if isinstance(region, geoiou.Polygon) else region.to_polygon().to_shapely()


def overlap(a: tuple[shapely.Geometry, tuple], b: tuple[shapely.Geometry, tuple]) -> float:
    """IoU with shapely, after DOTA's prefilter on the bounding boxes (-inf when they do not overlap)."""
    (a, (ax0, ay0, ax1, ay1)), (b, (bx0, by0, bx1, by1)) = a, b
    if not (ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1):
        return -math.inf
    inter = a.intersection(b).area
    return inter / (a.area + b.area - inter)


def reference_voc(truth: list[dict], predictions: list[dict], threshold: float, outcomes: dict | None = None) -> dict:
    """Per category ``(all-point AP, 11-point AP)``, one prediction at a time as the devkits do (stable ties).

    `outcomes`, if given, receives each prediction's row -> ``(outcome, matched truth row or None)``.
    """
    rows = {id(p): row for row, p in enumerate(predictions)}
    shapes = {id(o): (shape, shape.bounds) for o in truth + predictions for shape in [shape_of(o["region"])]}
    categories = sorted({obj["category"] for obj in truth})
    result = {}
    for category in categories:
        objects = {}
        positives = 0
        for row, obj in enumerate(truth):
            if obj["category"] == category:
                objects.setdefault(obj["image"], []).append(
                    {**obj, "shape": shapes[id(obj)], "taken": False, "row": row}
                )
                positives += not obj["difficult"]
        mine = [p for p in predictions if p["category"] == category]
        mine = [mine[i] for i in np.argsort([-p["score"] for p in mine], kind="stable")]
        tp, fp = [], []
        for p in mine:
            best, best_j = -math.inf, -1
            candidates = objects.get(p["image"], [])
            for j, obj in enumerate(candidates):
                value = overlap(shapes[id(p)], obj["shape"])
                if value > best:
                    best, best_j = value, j
            hit_tp = hit_fp = 0
            outcome = ("false positive", None)
            if best > threshold:
                obj = candidates[best_j]
                if not obj["difficult"]:
                    if not obj["taken"]:
                        hit_tp, obj["taken"] = 1, True
                        outcome = ("true positive", obj["row"])
                    else:
                        hit_fp = 1
                else:
                    outcome = ("ignored", obj["row"])
            else:
                hit_fp = 1
            if outcomes is not None:
                outcomes[rows[id(p)]] = outcome
            tp.append(hit_tp)
            fp.append(hit_fp)
        tp_sum, fp_sum = np.cumsum(tp), np.cumsum(fp)
        recall = [t / positives for t in tp_sum] if positives else []
        precision = [t / max(t + f, np.finfo(np.float64).eps) for t, f in zip(tp_sum, fp_sum)]
        if positives:
            result[category] = (reference_ap(recall, precision, False), reference_ap(recall, precision, True))
        else:
            result[category] = (math.nan, math.nan)
    return result


def check(result, expected: dict, which: int) -> None:
    got = result.per_category()
    assert set(got) == set(expected)
    for category, aps in expected.items():
        assert got[category]["AP"] == pytest.approx(aps[which], abs=1e-12, nan_ok=True)
    assert result.mAP == pytest.approx(np.nanmean([aps[which] for aps in expected.values()]), abs=1e-12)


# --------------------------------------------------------------------------- data
def rotated_scene(seed: int, n_images: int = 12, n_categories: int = 3) -> tuple[list[dict], list[dict]]:
    rng = np.random.default_rng(seed)
    truth, predictions = [], []
    for image in range(n_images):
        boxes = []
        for _ in range(rng.integers(0, 7)):
            box = [*rng.uniform(0, 200, 2), *rng.uniform(5, 50, 2), rng.uniform(-90, 90)]
            category = int(rng.integers(n_categories))
            truth.append(
                {
                    "image": image,
                    "category": category,
                    "region": geoiou.RotatedBox(box),
                    "difficult": bool(rng.random() < 0.2),
                }
            )
            boxes.append((box, category))
            if rng.random() < 0.1:  # a duplicate object: equal overlaps, the first one wins
                truth.append({**truth[-1], "difficult": False})
        for _ in range(rng.integers(0, 10)):
            if boxes and rng.random() < 0.75:
                box, category = boxes[rng.integers(len(boxes))]
                box = np.array(box) + rng.normal(0, 1, 5) * [2, 2, 2, 2, 5]
                box[2:4] = np.abs(box[2:4]) + 1
            else:
                box, category = (
                    [*rng.uniform(0, 200, 2), *rng.uniform(5, 50, 2), rng.uniform(-90, 90)],
                    int(rng.integers(n_categories)),
                )
            predictions.append(
                {
                    "image": image,
                    "category": category,
                    "region": geoiou.RotatedBox(box),
                    "score": float(np.round(rng.random(), 1)),
                }
            )  # many tied scores
    return truth, predictions


def dota_scene(seed: int) -> tuple[list[dict], list[dict]]:
    """The bundled DOTA label files as ground truth; jittered, duplicated and spurious predictions."""
    rng = np.random.default_rng(seed)
    truth, predictions = [], []
    for name in DOTA_FILES:
        objects = read_dota(files("geoiou") / "data" / "dota" / name)
        for k in range(len(objects.classes)):
            truth.append(
                {
                    "image": name,
                    "category": objects.classes[k],
                    "region": objects.polygons[k],
                    "difficult": bool(objects.difficult[k]),
                }
            )
            for _ in range(rng.choice([0, 1, 1, 2])):
                corners = objects.corners[k] + rng.normal(0, 1.5, (4, 2))
                try:
                    region = geoiou.Polygon(corners)
                except geoiou.InvalidRegionError:
                    continue
                predictions.append(
                    {
                        "image": name,
                        "category": objects.classes[k],
                        "region": region,
                        "score": float(np.round(rng.random(), 2)),
                    }
                )
        for _ in range(5):
            x, y = rng.uniform(0, 1000, 2)
            predictions.append(
                {
                    "image": name,
                    "category": str(rng.choice(objects.classes)),
                    "score": float(rng.random()),
                    "region": geoiou.Polygon([(x, y), (x + 30, y), (x + 30, y + 20), (x, y + 20)]),
                }
            )
    return truth, predictions


def as_annotations(truth: list[dict], predictions: list[dict]) -> tuple[Annotations, Annotations]:
    gt = Annotations(
        image_id=[o["image"] for o in truth],
        category_id=[o["category"] for o in truth],
        region=[o["region"] for o in truth],
        ignore=[o["difficult"] for o in truth],
    )
    dt = Annotations(
        image_id=[p["image"] for p in predictions],
        category_id=[p["category"] for p in predictions],
        region=[p["region"] for p in predictions],
        score=[p["score"] for p in predictions],
    )
    return gt, dt


# --------------------------------------------------------------------------- agreement
@pytest.mark.parametrize("seed", range(4))
def test_rotated_boxes_match_the_reference(seed: int) -> None:
    truth, predictions = rotated_scene(seed)
    threshold = 0.5 if seed % 2 else 0.3
    expected = reference_voc(truth, predictions, threshold)
    gt, dt = as_annotations(truth, predictions)
    for which, interpolation in enumerate(["all", "11point"]):
        check(
            evaluate_voc(gt, dt, iou_threshold=threshold, interpolation=interpolation, images=range(12)),
            expected,
            which,
        )


@pytest.mark.parametrize("seed", range(2))
def test_bundled_dota_labels_match_the_reference(seed: int) -> None:
    truth, predictions = dota_scene(seed)
    assert any(o["difficult"] for o in truth)
    expected = reference_voc(truth, predictions, 0.5)
    gt, dt = as_annotations(truth, predictions)
    for which, interpolation in enumerate(["all", "11point"]):
        result = evaluate_voc(gt, dt, interpolation=interpolation)
        check(result, expected, which)
        assert 0.3 < result.mAP < 1.0


def test_kinds_mix_polygons_against_rotated_boxes() -> None:
    truth, predictions = rotated_scene(7)
    truth = [{**o, "region": o["region"].to_polygon()} for o in truth]  # ground truth as polygons
    check(
        evaluate_voc(*as_annotations(truth, predictions), images=range(12)), reference_voc(truth, predictions, 0.5), 0
    )


# --------------------------------------------------------------------------- the rules, one at a time
def boxes(*coords: list[float]) -> geoiou.Box:
    return geoiou.Box(np.array(coords, dtype=float).reshape(-1, 4))


def test_a_duplicate_is_a_false_positive_and_a_difficult_match_is_ignored() -> None:
    truth = Annotations(image_id=1, category_id=0, region=boxes([0, 0, 10, 10], [20, 20, 30, 30]), ignore=[False, True])
    preds = Annotations(
        image_id=1,
        category_id=0,
        score=[0.9, 0.8, 0.7, 0.6],
        region=boxes([0, 0, 10, 10], [0, 0, 10, 9], [20, 20, 30, 30], [50, 50, 60, 60]),
    )
    result = evaluate_voc(truth, preds)
    # TP, FP (duplicate), ignored (difficult), FP: precision 1, 1/2, 1/2, 1/3 at recall 1.
    np.testing.assert_allclose(result.precision[0], [1.0, 0.5, 0.5, 1 / 3])
    np.testing.assert_allclose(result.recall[0], [1.0, 1.0, 1.0, 1.0])
    assert result.ap[0] == 1.0
    assert result.num_ground_truths.tolist() == [1]


def test_voc_keeps_the_best_overlap_even_when_taken() -> None:
    # The second prediction overlaps the taken object most: a false positive, although the other
    # object is free above the threshold (COCO would take it).
    truth = Annotations(image_id=1, category_id=0, region=boxes([0, 0, 10, 10], [0, 0, 10, 12]))
    preds = Annotations(image_id=1, category_id=0, score=[0.9, 0.8], region=boxes([0, 0, 10, 10], [0, 0, 10, 10]))
    result = evaluate_voc(truth, preds)
    np.testing.assert_allclose(result.precision[0], [1.0, 0.5])
    assert result.ap[0] == 0.5


def test_the_threshold_is_strict() -> None:
    truth = Annotations(image_id=1, category_id=0, region=boxes([0, 0, 10, 10]))
    preds = Annotations(image_id=1, category_id=0, score=[0.9], region=boxes([0, 0, 10, 5]))  # IoU exactly 0.5
    assert evaluate_voc(truth, preds).ap[0] == 0.0
    assert evaluate_voc(truth, preds, iou_threshold=0.49).ap[0] == 1.0


def test_categories_without_ground_truth_or_predictions() -> None:
    truth = Annotations(
        image_id=[1, 1],
        category_id=["car", "ship"],
        region=boxes([0, 0, 10, 10], [20, 20, 30, 30]),
        ignore=[False, True],
    )
    preds = Annotations(image_id=[1], category_id=["plane"], score=[0.5], region=boxes([0, 0, 5, 5]))
    result = evaluate_voc(truth, preds, categories=["car", "plane", "ship"])
    per = result.per_category()
    assert per["car"]["AP"] == 0.0 and per["car"]["recall"] == 0.0  # objects, no predictions
    assert math.isnan(per["plane"]["AP"]) and math.isnan(per["ship"]["AP"])  # nothing required
    assert result.mAP == 0.0  # only "car" counts
    assert "mAP (all points, IoU > 0.5) = 0.0000" in result.summary()
    assert result.to_dict()["per_category"][1]["AP"] is None


def test_eleven_point_thresholds_are_the_devkits() -> None:
    # Recall 0.3 exactly is below the devkits' fourth point 0.30000000000000004.
    recall = np.array([0.1, 0.2, 0.3])
    precision = np.array([1.0, 1.0, 1.0])
    assert voc_average_precision(recall, precision, "11point") == pytest.approx(3 / 11)
    assert voc_average_precision(recall, precision, "all") == pytest.approx(0.3)


def test_scores_ties_keep_input_order() -> None:
    truth = Annotations(image_id=[1, 2], category_id=0, region=boxes([0, 0, 10, 10], [0, 0, 10, 10]))
    first_hit = Annotations(
        image_id=[1, 2], category_id=0, score=[0.5, 0.5], region=boxes([0, 0, 10, 10], [50, 50, 60, 60])
    )
    first_miss = Annotations(
        image_id=[2, 1], category_id=0, score=[0.5, 0.5], region=boxes([50, 50, 60, 60], [0, 0, 10, 10])
    )
    np.testing.assert_allclose(evaluate_voc(truth, first_hit).precision[0], [1.0, 0.5])
    np.testing.assert_allclose(evaluate_voc(truth, first_miss).precision[0], [0.0, 0.5])


@pytest.mark.parametrize("seed", range(3))
def test_per_object_matches_are_the_devkits_decisions(seed: int) -> None:
    truth, predictions = rotated_scene(seed)
    outcomes: dict = {}
    reference_voc(truth, predictions, 0.5, outcomes)
    matches = evaluate_voc(*as_annotations(truth, predictions), images=range(12)).matches
    records = {record["row"]: record for record in matches.to_records(0.5) if record["kind"] == "prediction"}
    assert len(records) == len(predictions) == len(outcomes)
    for row, (outcome, matched) in outcomes.items():
        assert (records[row]["outcome"], records[row]["matched_row"]) == (outcome, matched), f"prediction {row}"
    found = {
        record["row"]
        for record in matches.to_records(0.5)
        if record["kind"] == "ground_truth" and record["outcome"] == "found"
    }
    assert found == {matched for outcome, matched in outcomes.values() if outcome == "true positive"} | {
        matched for outcome, matched in outcomes.values() if outcome == "ignored"
    }


def test_per_image_results_and_worst_images():
    """Issue 24, item 17: VocResult has per-image results, as the agreement result has."""
    import geoiou
    from geoiou.evaluation import Annotations, evaluate_voc

    truth = Annotations(
        image_id=["a", "a", "b"],
        category_id=[1, 1, 1],
        region=geoiou.Box([[0, 0, 4, 4], [10, 10, 14, 14], [0, 0, 4, 4]]),
    )
    preds = Annotations(
        image_id=["a", "b", "b"],
        category_id=[1, 1, 1],
        score=[0.9, 0.8, 0.7],
        region=geoiou.Box([[0, 0, 4, 4], [0, 0, 4, 3], [20, 20, 24, 24]]),
    )
    result = evaluate_voc(truth, preds, images=["a", "b", "c"])
    rows = result.per_image()
    # a: one of two found, no false positive: F1 = 2 / (2 + 0 + 1). b: its box found at IoU 0.75, one false: 2 / 3.
    assert rows["a"] == {
        "num_ground_truths": 2,
        "num_detections": 1,
        "true_positives": 1,
        "false_positives": 0,
        "missed": 1,
        "precision": 1.0,
        "recall": 0.5,
        "f1": 2 / 3,
    }
    assert rows["b"]["true_positives"] == 1 and rows["b"]["false_positives"] == 1 and rows["b"]["f1"] == 2 / 3
    assert rows["c"]["num_ground_truths"] == 0 and rows["c"]["f1"] != rows["c"]["f1"]  # NaN: nothing there
    assert result.worst_images() == ["a", "b"]  # equal F1: by image id; c (empty) left out
    assert [row["image_id"] for row in result.to_dict()["per_image"]] == ["a", "b", "c"]
