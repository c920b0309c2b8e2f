"""The PASCAL VOC detection protocol on arrays, as DOTA's devkit uses it for rotated boxes and polygons.

For each category, predictions are taken in decreasing score (ties in input order) across all
images. Each is compared with every ground truth of its image and category and assigned to the
one it overlaps most (the first of equal overlaps). If that overlap exceeds the threshold
(strictly, as VOC's ``ovmax > ovthresh``):

- a "difficult" ground truth (`ignore`) makes the prediction neither a true nor a false positive;
- otherwise the prediction is a true positive if it is the first to claim that ground truth, and
  a false positive if an earlier prediction already did (VOC does not move on to the next-best
  ground truth, unlike COCO).

Below the threshold, or with no ground truth in the image, the prediction is a false positive.
Recall is counted against the ground truths that are not difficult. A prediction's claim depends
only on the predictions before it in the same image, so every image is resolved at once.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.evaluation.coco import OverlapFunction, _plain, block_pairs, runs, stable_order
from geoiou.evaluation.matches import ObjectMatches

__all__ = ["VocResult", "voc_average_precision"]

Interpolation = Literal["all", "11point"]
INTERPOLATIONS = ("all", "11point")


def voc_average_precision(recall: np.ndarray, precision: np.ndarray, interpolation: Interpolation = "all") -> float:
    """Area under a precision-recall curve, as VOC computes it.

    Parameters
    ----------
    recall, precision : ndarray
        The curve, one point per prediction in decreasing score.
    interpolation : {"all", "11point"}
        ``"all"``: the area under the monotone envelope of precision (VOC 2010 and later, the
        devkits' default). ``"11point"``: the mean of the highest precision at recall ``>= t`` for the
        eleven points ``numpy.arange(0, 1.1, 0.1)`` (VOC 2007, DOTA's evaluation; note that the
        fourth point is 0.30000000000000004, as in the devkits).

    Examples
    --------
    >>> import numpy as np
    >>> voc_average_precision(np.array([0.5, 0.5, 1.0]), np.array([1.0, 0.5, 2 / 3]))
    0.8333333333333333
    >>> round(voc_average_precision(np.array([0.5, 0.5, 1.0]), np.array([1.0, 0.5, 2 / 3]), "11point"), 6)
    0.848485
    """
    if interpolation == "11point":
        ap = 0.0
        for t in np.arange(0.0, 1.1, 0.1):
            reached = recall >= t
            ap = ap + (np.max(precision[reached]) if reached.any() else 0.0) / 11.0
        return float(ap)
    recall_points = np.concatenate(([0.0], recall, [1.0]))
    envelope = np.concatenate(([0.0], precision, [0.0]))
    envelope = np.maximum.accumulate(envelope[::-1])[::-1]
    changes = np.flatnonzero(recall_points[1:] != recall_points[:-1])
    return float(np.sum((recall_points[changes + 1] - recall_points[changes]) * envelope[changes + 1]))


@dataclass(frozen=True)
class VocArrays:
    """What `voc_evaluate` needs, one entry per annotation (indices into the image and category lists)."""

    num_images: int
    num_categories: int
    gt_image: np.ndarray
    gt_category: np.ndarray
    gt_ignore: np.ndarray
    dt_image: np.ndarray
    dt_category: np.ndarray
    dt_score: np.ndarray


def voc_match(
    data: VocArrays, overlap: OverlapFunction, *, iou_threshold: float
) -> tuple[np.ndarray, np.ndarray, ObjectMatches]:
    """VOC's assignment of every prediction, image by image: true and false positive flags by input row, and
    the per-object matches."""
    images = data.num_images
    dt_group = data.dt_category.astype(np.int64) * images + data.dt_image
    gt_group = data.gt_category.astype(np.int64) * images + data.gt_image
    order = stable_order(dt_group, -data.dt_score)  # by image and category, then score
    gt_order = stable_order(gt_group)
    dt_keys, dt_starts, dt_counts = runs(dt_group[order])
    gt_keys, gt_starts, gt_counts = runs(gt_group[gt_order])
    _, in_dt, in_gt = np.intersect1d(dt_keys, gt_keys, assume_unique=True, return_indices=True)
    d_start, d_count = dt_starts[in_dt], dt_counts[in_dt]
    g_start, g_count = gt_starts[in_gt], gt_counts[in_gt]

    # Best overlap and its ground truth (the first of equal overlaps) for each prediction in `order`.
    best = np.full(len(order), -np.inf)
    best_gt = np.full(len(order), -1, dtype=np.int64)
    if len(d_count):
        offsets, pair_row, pair_col = block_pairs(d_count, g_count)
        pair_block = np.repeat(np.arange(len(d_count)), d_count * g_count)
        pair_dt = d_start[pair_block] + pair_row
        pair_gt = g_start[pair_block] + pair_col
        values = overlap(
            order[pair_dt], gt_order[pair_gt], np.zeros(len(pair_gt), dtype=bool), offsets, d_count, g_count
        )
        values = np.where(np.isnan(values), 0.0, values)
        # One segment of g_count pairs per prediction: its row of its block.
        segment_block = np.repeat(np.arange(len(d_count)), d_count)
        segment_row = np.arange(int(d_count.sum())) - np.repeat(np.cumsum(d_count) - d_count, d_count)
        segment_start = offsets[segment_block] + segment_row * g_count[segment_block]
        segment_dt = d_start[segment_block] + segment_row
        maxima = np.maximum.reduceat(values, segment_start)
        at_max = values == np.repeat(maxima, g_count[segment_block])
        first = np.minimum.reduceat(np.where(at_max, pair_col, np.iinfo(np.int64).max), segment_start)
        best[segment_dt] = maxima
        best_gt[segment_dt] = g_start[segment_block] + first

    hit = best > iou_threshold
    difficult = np.zeros(len(order), dtype=bool)
    difficult[hit] = data.gt_ignore[gt_order[best_gt[hit]]]
    claims = np.flatnonzero(hit & ~difficult)
    _, first_claims = np.unique(best_gt[claims], return_index=True)
    true_positive = np.zeros(len(order), dtype=bool)
    true_positive[claims[first_claims]] = True
    false_positive = ~hit | (hit & ~difficult & ~true_positive)
    # A duplicate of a claimed ground truth is a false positive that matched nothing (VOC's devkit).
    counted = true_positive | (hit & difficult)
    matches = ObjectMatches.from_positions(
        np.array([iou_threshold]),
        np.where(counted, best_gt, -1)[None],
        np.where(counted, best, np.nan)[None],
        true_positive[None],
        (hit & difficult)[None],
        order,
        gt_order,
        len(order),
        len(data.gt_image),
    )

    # Back to input rows.
    tp_row = np.empty(len(order), dtype=bool)
    fp_row = np.empty(len(order), dtype=bool)
    tp_row[order], fp_row[order] = true_positive, false_positive
    return tp_row, fp_row, matches


def voc_curves(
    num_categories: int,
    dt_category: np.ndarray,
    dt_score: np.ndarray,
    tp_row: np.ndarray,
    fp_row: np.ndarray,
    positives: np.ndarray,
    interpolation: Interpolation,
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """Per category, predictions in decreasing score across images (ties in input order): AP, the number of
    predictions, and the precision and recall curves."""
    class_order = stable_order(dt_category, -dt_score)
    bounds = np.searchsorted(dt_category[class_order], np.arange(num_categories + 1))
    ap = np.full(num_categories, np.nan)
    precisions, recalls = [], []
    for k in range(num_categories):
        rows = class_order[bounds[k] : bounds[k + 1]]
        tp = np.cumsum(tp_row[rows], dtype=np.float64)
        fp = np.cumsum(fp_row[rows], dtype=np.float64)
        precision = tp / np.maximum(tp + fp, np.finfo(np.float64).eps)
        if positives[k] == 0:
            recall = np.full(len(rows), np.nan)
        else:
            recall = tp / float(positives[k])
            ap[k] = voc_average_precision(recall, precision, interpolation)
        precisions.append(precision)
        recalls.append(recall)
    return ap, np.diff(bounds), precisions, recalls


@dataclass(frozen=True, eq=False)
class VocResult:
    """The result of `evaluate_voc`: AP per category and their mean.

    Attributes
    ----------
    categories : ndarray
        Category ids (sorted), the order of every per-category array.
    ap : ndarray
        AP of each category; NaN for a category without ground truth that is not difficult.
    num_ground_truths : ndarray
        Ground truths per category that are not difficult (VOC's ``npos``).
    num_detections : ndarray
        Predictions per category.
    precision, recall : tuple of ndarray
        Each category's curve, one point per prediction in decreasing score.
    iou_threshold : float
    interpolation : {"all", "11point"}
    num_images : int
    matches : ObjectMatches
        Per prediction and ground truth: what matched what, with which IoU, and as what it counted
        (a single threshold; a difficult ground truth's matches are ignored).

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.evaluation import Annotations, evaluate_voc
    >>> ships = geoiou.RotatedBox([[10, 10, 8, 4, 30], [40, 40, 8, 4, 0]])
    >>> truth = Annotations(image_id=["a", "a"], category_id=["ship", "ship"], region=ships)
    >>> preds = Annotations(image_id=["a", "a"], category_id=["ship", "ship"], score=[0.9, 0.8],
    ...                     region=geoiou.RotatedBox([[10, 10, 8, 4, 35], [10, 10, 8, 4, 30]]))
    >>> result = evaluate_voc(truth, preds)
    >>> result.mAP, result.per_category()["ship"]["AP"]
    (0.5, 0.5)
    """

    categories: np.ndarray
    ap: np.ndarray
    num_ground_truths: np.ndarray
    num_detections: np.ndarray
    precision: tuple[np.ndarray, ...]
    recall: tuple[np.ndarray, ...]
    iou_threshold: float
    interpolation: str
    num_images: int
    matches: ObjectMatches | None = None
    #: The evaluated images (sorted) and, per image, its ground truths (not difficult), predictions,
    #: true positives and false positives at `iou_threshold`: shape (images, 4). None when not kept.
    image_ids: np.ndarray | None = None
    image_counts: np.ndarray | None = None

    @property
    def mAP(self) -> float:  # noqa: N802 (the name everyone uses)
        """Mean AP over the categories that have ground truth (NaN if none has)."""
        present = ~np.isnan(self.ap)
        return float(np.mean(self.ap[present])) if present.any() else math.nan

    def per_category(self) -> dict[Any, dict[str, float]]:
        """``{category_id: {"AP": ..., "recall": ..., "num_ground_truths": ..., "num_detections": ...}}``.

        ``recall`` is the final recall (all predictions counted); NaN without ground truth.
        """
        result = {}
        for k, category in enumerate(self.categories):
            final_recall = (
                float(self.recall[k][-1]) if len(self.recall[k]) else (0.0 if self.num_ground_truths[k] else math.nan)
            )
            result[_plain(category)] = {
                "AP": float(self.ap[k]),
                "recall": final_recall,
                "num_ground_truths": int(self.num_ground_truths[k]),
                "num_detections": int(self.num_detections[k]),
            }
        return result

    def per_image(self) -> dict[Any, dict[str, float]]:
        """``{image_id: {"num_ground_truths", "num_detections", "true_positives", "false_positives", "missed",
        "precision", "recall", "f1"}}``, every prediction counted (no score cut), at `iou_threshold`.

        A true positive is a prediction that found a ground truth of its category at IoU above the
        threshold, as in the AP; ``missed`` are the ground truths (not difficult) no prediction
        found. Precision is NaN without predictions, recall without ground truth, F1 when both
        are (``2 tp / (2 tp + fp + missed)``, NaN for an image without either).

        Examples
        --------
        >>> import geoiou
        >>> from geoiou.evaluation.detection import Annotations, evaluate_voc
        >>> truth = Annotations(image_id=["a", "b"], category_id=[1, 1],
        ...                     region=geoiou.Box([[0, 0, 4, 4], [0, 0, 4, 4]]))
        >>> preds = Annotations(image_id=["a", "b"], category_id=[1, 1], score=[0.9, 0.8],
        ...                     region=geoiou.Box([[0, 0, 4, 4], [9, 9, 12, 12]]))
        >>> result = evaluate_voc(truth, preds)
        >>> result.per_image()["b"]["f1"], result.worst_images(1)
        (0.0, ['b'])
        """
        if self.image_ids is None or self.image_counts is None:
            raise invalid_argument("result", "a VocResult computed with its per-image counts", "none kept")
        rows = {}
        for image, (truths, detections, hits, false) in zip(self.image_ids.tolist(), self.image_counts.tolist()):
            missed = truths - hits
            rows[_plain(image)] = {
                "num_ground_truths": truths,
                "num_detections": detections,
                "true_positives": hits,
                "false_positives": false,
                "missed": missed,
                "precision": hits / detections if detections else math.nan,
                "recall": hits / truths if truths else math.nan,
                "f1": 2 * hits / (2 * hits + false + missed) if 2 * hits + false + missed else math.nan,
            }
        return rows

    def worst_images(self, count: int | None = None) -> list[Any]:
        """The images with the lowest F1 (`per_image`), worst first (ties by image id); images with
        neither ground truth nor predictions are left out. `count` limits the list."""
        rows = [
            (values["f1"], index, image)
            for index, (image, values) in enumerate(self.per_image().items())
            if not math.isnan(values["f1"])
        ]
        return [image for _, _, image in sorted(rows)[:count]]

    def summary(self, *, digits: int = 4) -> str:
        """A table: one line per category (ground truths, predictions, final recall, AP) and the mAP.

        `digits` is the decimals of AP and mAP (recall has one fewer).
        """
        if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 17:
            raise invalid_argument("digits", "an integer from 1 to 17", digits)
        rows = self.per_category()
        width = max([len(str(c)) for c in rows] + [8])
        cell = max(6, digits + 2)
        lines = [f"{'category':<{width}}  {'gts':>6}  {'dets':>6}  {'recall':>{cell}}  {'AP':>{cell}}"]
        for category, values in rows.items():
            lines.append(
                f"{str(category):<{width}}  {values['num_ground_truths']:>6d}  "
                f"{values['num_detections']:>6d}  "
                f"{values['recall']:>{cell}.{max(1, digits - 1)}f}  {values['AP']:>{cell}.{digits}f}"
            )
        label = "all points" if self.interpolation == "all" else "11 points"
        lines.append(f"mAP ({label}, IoU > {self.iou_threshold:g}) = {self.mAP:.{digits}f}")
        return "\n".join(lines)

    def to_dict(self, *, arrays: bool = False) -> dict[str, Any]:
        """A JSON-ready dict (NaN written as None); `arrays` adds the precision and recall curves."""

        def number(value: float) -> float | None:
            return None if math.isnan(value) else value

        result: dict[str, Any] = {
            "protocol": "voc",
            "headline": {"mAP": number(self.mAP)},
            "mAP": number(self.mAP),
            "per_category": [
                {
                    "category_id": category,
                    **{key: number(v) if isinstance(v, float) else v for key, v in values.items()},
                }
                for category, values in self.per_category().items()
            ],
            "iou_threshold": self.iou_threshold,
            "interpolation": self.interpolation,
            "num_images": self.num_images,
        }
        if self.image_ids is not None:
            result["per_image"] = [
                {"image_id": image, **{key: number(v) if isinstance(v, float) else v for key, v in values.items()}}
                for image, values in self.per_image().items()
            ]
        if arrays:
            result["precision"] = [curve.tolist() for curve in self.precision]
            result["recall"] = [[number(v) for v in curve.tolist()] for curve in self.recall]
        return result

    def to_json(self, *, arrays: bool = False, indent: int | None = None) -> str:
        """`to_dict` as a JSON string."""
        return json.dumps(self.to_dict(arrays=arrays), indent=indent)

    def __repr__(self) -> str:
        return f"<VocResult mAP={self.mAP:.4f} over {len(self.categories)} categories; summary() for the table>"
