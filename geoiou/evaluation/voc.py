"""The PASCAL VOC detection protocol for any region kind, as DOTA's devkit runs it: `VocEvaluation`, `evaluate_voc`.

For each category, predictions are taken in decreasing score (ties in input order) across all
images. Each is compared with the ground truths of its image and category and assigned to the
one it overlaps most (the first of equal overlaps). If that overlap exceeds the threshold
(strictly, as VOC's ``ovmax > ovthresh``):

- a "difficult" ground truth (`ignore`) makes the prediction neither a true nor a false positive;
- otherwise the prediction is a true positive if it is the first to claim that ground truth, and
  a false positive if an earlier prediction already did (VOC does not move on to the next-best
  ground truth, unlike COCO).

Below the threshold, or with no ground truth in the image, the prediction is a false positive.
Recall is counted against the ground truths that are not difficult. A prediction's claim depends
only on the predictions before it in the same image and category, so the groups are resolved in
parallel by a compiled loop (`geoiou.evaluation.protocol_loops.voc_assign`), on the candidate
pairs of each prediction (`geoiou.evaluation.overlaps`): a ground truth whose bounds do not
overlap the prediction's has overlap 0, which never exceeds the threshold, so a crowded image
costs memory for the pairs that overlap, not for all of its pairs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Sequence

import numpy as np

from geoiou._distinct import distinct
from geoiou._validation import invalid_argument as _fail
from geoiou.evaluation.coco import CocoArrays, PairHook, PairSource
from geoiou.evaluation.matches import ObjectMatches
from geoiou.evaluation.mergeable import MergeableEvaluation, disjoint_keys, end_to_end
from geoiou.evaluation.overlaps import DetectionRegions, region_pairs, regions_of
from geoiou.evaluation.prepared import (
    Deferred,
    PreparedPart,
    checked_categories,
    evaluated_categories,
    part_categories,
    recoded,
    summed_by_category,
)
from geoiou.evaluation.results import VocResult
from geoiou.tables.annotations import Annotations, as_annotations

__all__ = ["VocEvaluation", "VocSettings", "evaluate_voc", "voc_average_precision"]

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
class VocSettings:
    """The checked settings of a `VocEvaluation` (see `evaluate_voc` for each); `merge` compares them."""

    iou_threshold: float
    interpolation: Interpolation
    categories: np.ndarray | None


def voc_match(
    prepared: PreparedPart,
    predicted: DetectionRegions,
    truth: DetectionRegions,
    iou_threshold: float,
    pairs: PairSource | None = None,
) -> tuple[np.ndarray, np.ndarray, ObjectMatches]:
    """VOC's assignment of every prediction: true and false positive flags by input row, and the per-object matches.

    `pairs` finds and measures the candidate pairs (default: `region_pairs` of the two sides).
    """
    from geoiou.evaluation.protocol_loops import FALSE_POSITIVE, TRUE_POSITIVE, voc_assign  # compiled: on first use

    images = len(prepared.image_ids)
    dt_group_all = prepared.dt_category * images + prepared.dt_image
    gt_group_all = prepared.gt_category * images + prepared.gt_image
    order = np.lexsort((-np.asarray(prepared.predicted.score), dt_group_all))  # by group, then score; ties: input
    gt_order = np.argsort(gt_group_all, kind="stable")
    dt_group = dt_group_all[order]
    group_start = np.concatenate([[0], np.flatnonzero(dt_group[1:] != dt_group[:-1]) + 1, [len(order)]])
    difficult = prepared.flags("ignore")[gt_order]
    source = region_pairs(predicted, truth) if pairs is None else pairs
    found = source(
        order,
        gt_order,
        dt_group,
        gt_group_all[gt_order],
        np.zeros(len(gt_order), dtype=bool),
        float(np.nextafter(iou_threshold, np.inf)),  # VOC needs an overlap strictly above the threshold
    )
    outcome, counted = voc_assign(
        group_start.astype(np.int64), found.pair_start, found.pair_gt, found.value, difficult, iou_threshold
    )
    matches = ObjectMatches.from_pairs(
        np.array([iou_threshold]),
        outcome[:, None],
        counted[:, None],
        found.pair_gt,
        found.value,
        order,
        gt_order,
        len(order),
        len(prepared.truth),
    )
    # Back to input rows.
    tp_row = np.empty(len(order), dtype=bool)
    fp_row = np.empty(len(order), dtype=bool)
    tp_row[order], fp_row[order] = outcome == TRUE_POSITIVE, outcome == FALSE_POSITIVE
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
    class_order = np.lexsort((-dt_score, dt_category))  # by category, then score; ties keep the input order
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


@dataclass(frozen=True)
class _VocPart:
    """What one part leaves for `VocEvaluation.compute`: each prediction's category code, score and outcome."""

    images: np.ndarray
    categories: np.ndarray
    truth_categories: np.ndarray
    deferred: Deferred
    dt_category: np.ndarray
    score: np.ndarray
    true_positive: np.ndarray
    false_positive: np.ndarray
    positives: np.ndarray
    matches: ObjectMatches
    #: Per image of `images`: ground truths (not ignored), predictions, true and false positives.
    image_counts: np.ndarray | None = None


class VocEvaluation(MergeableEvaluation[VocResult]):
    """PASCAL VOC / DOTA detection AP accumulated part by part: `update` per part, `merge`, `compute`.

    Each image belongs to one part. Ties of score across images keep the input order, which is
    the order of the parts: merged in the order the inputs were split, the result is exactly
    `evaluate_voc`'s on all of them. The parameters are those of `evaluate_voc`.

    Examples
    --------
    >>> import geoiou
    >>> evaluation = VocEvaluation(interpolation="11point")
    >>> _ = evaluation.update(Annotations(image_id="a", category_id=["ship"], region=geoiou.Box([[0, 0, 8, 8]])),
    ...                       Annotations(image_id="a", category_id=["ship"], score=[0.9],
    ...                                   region=geoiou.Box([[0, 0, 8, 7]])))
    >>> _ = evaluation.update(Annotations(image_id="b", category_id=["ship"], region=geoiou.Box([[0, 0, 8, 8]])),
    ...                       Annotations(image_id="b", category_id=["ship"], score=[0.8],
    ...                                   region=geoiou.Box([[5, 5, 9, 9]])))
    >>> evaluation.compute().per_category()["ship"]["recall"]
    0.5
    """

    settings: VocSettings
    #: Set by `geoiou.diagnostics` on the state it updates (see `geoiou.evaluation.coco.PairHook`).
    pair_hook: PairHook | None = None

    def __init__(
        self,
        *,
        iou_threshold: float = 0.5,
        interpolation: Interpolation = "all",
        categories: Sequence[Any] | None = None,
        show_progress: bool | None = None,
    ) -> None:
        if not (isinstance(iou_threshold, (int, float, np.integer, np.floating)) and 0 <= iou_threshold < 1):
            raise _fail("iou_threshold", "a number in [0, 1)", iou_threshold)
        if interpolation not in INTERPOLATIONS:
            raise _fail("interpolation", f"one of {INTERPOLATIONS}", interpolation)
        self._start(
            VocSettings(  # interpolation is one of INTERPOLATIONS, checked above
                iou_threshold=float(iou_threshold),
                interpolation=interpolation,
                categories=checked_categories(categories),
            )
        )
        self.show_progress = show_progress

    def update(
        self,
        ground_truth: Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        predictions: Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        images: Sequence[Any] | Mapping[Any, tuple[int, int]] | None = None,
    ) -> VocEvaluation:
        """Assign the predictions of one part's images; return ``self``. `images` as in `evaluate_voc`."""
        truth, predicted = as_annotations(ground_truth, "ground_truth"), as_annotations(predictions, "predictions")
        categories, deferred = part_categories(self.settings.categories, truth, predicted)
        prepared = PreparedPart(truth, predicted, images, categories, needs_sizes=False)
        if truth.iscrowd is not None and truth.iscrowd.any():
            raise _fail(
                "ground_truth.iscrowd",
                "unset or all false for VOC (it has no crowd regions; mark them ignore)",
                f"a crowd region at row {int(np.flatnonzero(truth.iscrowd)[0])}",
            )
        truth_regions, predicted_regions = regions_of(prepared, "exact")
        difficult = prepared.flags("ignore")
        pairs = None
        if self.pair_hook is not None:
            data = CocoArrays(
                len(prepared.image_ids), len(prepared.category_ids), prepared.gt_image, prepared.gt_category,
                np.zeros(len(truth), dtype=bool), difficult, truth_regions.area, prepared.dt_image,
                prepared.dt_category, np.asarray(predicted.score, dtype=np.float64), predicted_regions.area,
            )  # fmt: skip
            pairs = self.pair_hook(
                region_pairs(predicted_regions, truth_regions), data, prepared.image_ids, prepared.category_ids
            )
        true_positive, false_positive, matches = voc_match(
            prepared, predicted_regions, truth_regions, self.settings.iou_threshold, pairs
        )
        positives = np.bincount(prepared.gt_category[~difficult], minlength=len(prepared.category_ids))
        dt_image = prepared.dt_image
        image_counts = np.stack(
            [
                np.bincount(codes, minlength=len(prepared.image_ids))
                for codes in (
                    prepared.gt_image[~difficult],
                    dt_image,
                    dt_image[true_positive],
                    dt_image[false_positive],
                )
            ],
            axis=1,
        ).astype(np.int64)
        self._parts.append(
            _VocPart(
                images=prepared.image_ids,
                categories=prepared.category_ids,
                truth_categories=distinct(truth.category_id),
                deferred=deferred,
                dt_category=prepared.dt_category,
                score=np.asarray(predicted.score),
                true_positive=true_positive,
                false_positive=false_positive,
                positives=positives,
                matches=matches,
                image_counts=image_counts,
            )
        )
        return self

    def compute(self) -> VocResult:
        """AP per category over every part, predictions ranked across all images: the `VocResult`."""
        settings, parts = self.settings, self._parts
        images = disjoint_keys([part.images for part in parts], "image")
        categories = evaluated_categories(settings.categories, parts)
        codes = [recoded(categories, part.categories, part.dt_category) for part in parts]
        category_code = end_to_end(codes, np.zeros(0, np.int64))
        positives = summed_by_category(categories, parts, "positives")
        score, true_positive, false_positive = (
            end_to_end([getattr(part, name) for part in parts], np.zeros(0, dtype))
            for name, dtype in (("score", float), ("true_positive", bool), ("false_positive", bool))
        )
        ap, detections, precision, recall = voc_curves(
            len(categories), category_code, score, true_positive, false_positive, positives, settings.interpolation
        )
        matches = ObjectMatches.concatenate([part.matches for part in parts])
        # Per image: each part's images with their counts, in the order of the sorted image ids.
        part_images = np.concatenate([np.asarray(part.images) for part in parts]) if parts else np.zeros(0, np.int64)
        counts = np.concatenate(
            [np.zeros((0, 4), np.int64)] + [part.image_counts for part in parts if part.image_counts is not None]
        )
        order = np.argsort(part_images, kind="stable") if len(counts) == len(part_images) else None
        return VocResult(
            categories=categories,
            ap=ap,
            num_ground_truths=positives,
            num_detections=detections,
            precision=tuple(precision),
            recall=tuple(recall),
            iou_threshold=settings.iou_threshold,
            interpolation=settings.interpolation,
            num_images=len(images),
            matches=matches,
            image_ids=None if order is None else part_images[order],
            image_counts=None if order is None else counts[order],
        )


def evaluate_voc(
    ground_truth: Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
    predictions: Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
    *,
    iou_threshold: float = 0.5,
    interpolation: Interpolation = "all",
    images: Sequence[Any] | Mapping[Any, tuple[int, int]] | None = None,
    categories: Sequence[Any] | None = None,
    show_progress: bool | None = None,
) -> VocResult:
    """PASCAL VOC detection AP per category and mAP for any region kind, as DOTA's devkit computes them.

    Parameters
    ----------
    ground_truth : Annotations, mapping of columns or sequence of per-image records
        The ground-truth objects; ``ignore`` holds VOC's and DOTA's "difficult" flags. No crowd
        regions (VOC has none: mark them ``ignore``); ``area`` is not used.
    predictions : Annotations, mapping of columns or sequence of per-image records
        The predictions, with a ``score`` each.
    iou_threshold : float, default 0.5
        A prediction matches when its best overlap is strictly above it (VOC's ``ovmax > ovthresh``).
    interpolation : {"all", "11point"}, default "all"
        ``"all"``: area under the precision envelope (VOC 2010+). ``"11point"``: VOC 2007's eleven
        recall points, which DOTA's ``dota_evaluation_task1.py`` uses.
    images, categories : optional
        As in `evaluate_coco`.
    show_progress : bool, optional
        Draw a progress bar (by default only when stderr is a terminal).

    Returns
    -------
    VocResult
        ``result.mAP``, ``result.ap`` per category (NaN for a category without ground truth that
        is not difficult, left out of the mAP), ``summary()``, ``per_category()``.

    Notes
    -----
    Each prediction goes to the ground truth it overlaps most, even one an earlier prediction
    took (then it is a false positive): VOC's rule, not COCO's. A prediction matched to a
    difficult ground truth counts neither way, and difficult ground truths are not required. Ties
    of score keep the input order (the devkits' quicksort leaves them unspecified).

    Examples
    --------
    >>> from importlib.resources import files
    >>> import numpy as np, geoiou
    >>> from geoiou.io import read_dota
    >>> objects = read_dota(files("geoiou") / "data" / "dota" / "P0770.txt")
    >>> truth = Annotations(image_id="P0770", category_id=list(objects.classes), region=objects.polygons,
    ...                     ignore=objects.difficult)
    >>> shifted = geoiou.Polygon.from_rings(list(objects.corners + 1.0))  # every object one pixel off
    >>> preds = Annotations(image_id="P0770", category_id=list(objects.classes), region=shifted,
    ...                     score=np.linspace(1, 0.5, len(objects.classes)))
    >>> result = evaluate_voc(truth, preds, interpolation="11point")
    >>> round(result.mAP, 4)
    1.0
    """
    evaluation = VocEvaluation(
        iou_threshold=iou_threshold, interpolation=interpolation, categories=categories, show_progress=show_progress
    )
    return evaluation.update(ground_truth, predictions, images=images).compute()
