"""The evaluation's own numbers again, for a selection of its images or for changed outcomes: no IoU is measured.

Every diagnostic that needs an AP (the slices, the bootstrap of a comparison, TIDE's oracle fixes,
per-image AP) re-accumulates it here with the protocol's own final step (`coco_accumulate`,
`voc_curves`, `interpolated_average_precision`) over rows of the `DetectionTable`. The selection of
all images gives the evaluation's result bit for bit (tested): the same numbers reach the same
functions in the same order.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from geoiou._ranges import ragged_arange
from geoiou.diagnostics.table import FALSE_POSITIVE, TRUE_POSITIVE, DetectionTable
from geoiou.evaluation.coco import coco_accumulate, decided_codes
from geoiou.evaluation.results import CocoResult, VocResult
from geoiou.evaluation.temporal import TemporalDetectionResult, interpolated_average_precision
from geoiou.evaluation.voc import voc_curves

__all__ = ["Protocol", "Ranked", "Selection", "protocol_of", "select"]


@dataclass(frozen=True)
class Ranked:
    """Predictions as an AP at one threshold reads them: category, image and rank (the order of COCO's ties),
    score, and outcome code at that threshold (first area range)."""

    category: np.ndarray
    image: np.ndarray
    rank: np.ndarray
    score: np.ndarray
    outcome: np.ndarray

    @classmethod
    def of(cls, table: DetectionTable, k: int, rows: np.ndarray | slice = slice(None)) -> Ranked:
        """The predictions `rows` of a table, as evaluated at threshold index `k`."""
        return cls(table.dt_category[rows], table.dt_image[rows], table.dt_rank[rows], table.dt_score[rows],
                   table.outcome[rows, k, 0])  # fmt: skip

    def kept(self, keep: np.ndarray) -> Ranked:
        """The predictions where `keep`."""
        return Ranked(self.category[keep], self.image[keep], self.rank[keep], self.score[keep], self.outcome[keep])


@dataclass(frozen=True)
class Selection:
    """Some images of a table, each taken a number of times, as an evaluation of those images alone would see them.

    Attributes
    ----------
    dt : ndarray of int64
        The predictions ``d`` of the selected images (repeated for an image taken several times).
    dt_image : ndarray of int64
        Their image codes in the selection: each copy of an image is an image of its own, and the
        codes follow the evaluation's order of images.
    regular : ndarray of int64, shape (K, A)
        Ground truths that count, per category and area range.
    num_images : int
    """

    dt: np.ndarray
    dt_image: np.ndarray
    regular: np.ndarray
    num_images: int


def select(table: DetectionTable, weight: np.ndarray) -> Selection:
    """The images of `table` taken ``weight[i]`` times each (0: left out; a bootstrap resample draws some twice).

    Examples
    --------
    >>> from geoiou.diagnostics.state import diagnose
    >>> from geoiou.evaluation import Annotations
    >>> import geoiou
    >>> truth = Annotations(image_id=[1, 2], category_id=[1, 1], region=geoiou.Box([[0, 0, 4, 4]] * 2))
    >>> preds = Annotations(image_id=[1, 2], category_id=[1, 1], score=[0.9, 0.8],
    ...                     region=geoiou.Box([[0, 0, 4, 4]] * 2))
    >>> chosen = select(diagnose(truth, preds).table, np.array([2, 0]))  # image 1 twice, image 2 left out
    >>> chosen.dt.tolist(), chosen.dt_image.tolist(), chosen.regular[:, 0].tolist(), chosen.num_images
    ([0, 0], [0, 1], [2], 2)
    """
    weight = np.asarray(weight, dtype=np.int64)
    copies = weight[table.dt_image]
    dt = np.repeat(np.arange(len(table.dt_row), dtype=np.int64), copies)
    first_copy = np.cumsum(weight) - weight  # copies of image i are the images first_copy[i], first_copy[i] + 1, ...
    copy, _ = ragged_arange(np.zeros(len(copies), dtype=np.int64), copies)
    regular, num_images = _counted_truths(table, weight)
    return Selection(dt, first_copy[table.dt_image[dt]] + copy, regular, num_images)


def _counted_truths(table: DetectionTable, weight: np.ndarray) -> tuple[np.ndarray, int]:
    """The regular ground truths per category and area range of images taken ``weight[i]`` times, and the images."""
    n_categories, n_areas = len(table.category_ids), table.gt_regular.shape[1]
    counted = weight[table.gt_image]
    regular = np.stack(
        [
            np.bincount(table.gt_category, weights=counted * table.gt_regular[:, a], minlength=n_categories)
            for a in range(n_areas)
        ],
        axis=1,
    ).astype(np.int64)
    return regular.reshape(n_categories, n_areas), int(weight.sum())


class Protocol(ABC):
    """A protocol's final step over rows of a `DetectionTable`: its result, its AP at one threshold, its numbers."""

    def __init__(self, table: DetectionTable, settings: Any) -> None:
        self.table, self.settings = table, settings

    @abstractmethod
    def result(self, selection: Selection) -> Any:
        """The evaluation's result (`CocoResult`, `VocResult`, `TemporalDetectionResult`) of the selected images."""

    @abstractmethod
    def headline(self, result: Any) -> dict[str, float]:
        """The headline numbers of a result by name (COCO's 12, VOC's mAP, ActivityNet's mAPs)."""

    @abstractmethod
    def category_ap(self, result: Any) -> np.ndarray:
        """Each category's AP in a result, shape (K,), NaN for a category without ground truth there."""

    @abstractmethod
    def ap_at(self, k: int, ranked: Ranked, positives: np.ndarray) -> tuple[float, np.ndarray]:
        """AP at threshold `k` (first area range, largest detection limit) of the `ranked` predictions, with
        `positives` ground truths per category: the mean, and per category (NaN without positives)."""

    def reaches(self, value: np.ndarray, k: int) -> np.ndarray:
        """Whether overlaps count as a match at threshold `k` (COCO and temporal: at least it)."""
        reached: np.ndarray = value >= min(self.table.thresholds[k], 1 - 1e-10)
        return reached

    def everything(self) -> Selection:
        """Every image once."""
        return select(self.table, np.ones(len(self.table.image_ids), dtype=np.int64))

    def resampled(self, weight: np.ndarray) -> Any:
        """The result of the images taken ``weight[i]`` times each (`select`): a bootstrap resample."""
        return self.result(select(self.table, weight))


class CocoProtocol(Protocol):
    """COCO's accumulation (`coco_accumulate`): precision at 101 recall points, every area range and limit."""

    def resampled(self, weight: np.ndarray) -> CocoResult:
        """As `Protocol.resampled`, the predictions handed over in the accumulation's own order (category, image
        copy, rank), so that `coco_accumulate` finds them sorted and sorts nothing but each category's scores: the
        same rows with the same keys as `select`'s, so the same result."""
        order, bounds, run_image = self._runs
        weight = np.asarray(weight, dtype=np.int64)
        lengths = np.diff(bounds)
        copies = weight[run_image]
        at, run = ragged_arange(np.zeros(len(lengths), dtype=np.int64), lengths * copies)  # each run's copies, whole
        first_copy = np.cumsum(weight) - weight
        dt = order[bounds[:-1][run] + at % lengths[run]]
        regular, num_images = _counted_truths(self.table, weight)
        return self.result(Selection(dt, first_copy[run_image[run]] + at // lengths[run], regular, num_images))

    @functools.cached_property
    def _runs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The table's predictions by category, image and rank, where each run of one category and image begins
        (and the end), and the image of each run."""
        table = self.table
        order = np.lexsort((table.dt_rank, table.dt_image, table.dt_category))
        category, image = table.dt_category[order], table.dt_image[order]
        starts = np.flatnonzero(np.r_[True, (category[1:] != category[:-1]) | (image[1:] != image[:-1])])
        bounds = np.r_[starts, len(order)].astype(np.int64) if len(order) else np.zeros(1, dtype=np.int64)
        return order, bounds, image[starts]

    def result(self, selection: Selection) -> CocoResult:
        table, settings, dt = self.table, self.settings, selection.dt
        outcome = table.outcome[dt]
        precision, recall, scores = coco_accumulate(
            len(table.category_ids), table.dt_category[dt], selection.dt_image, table.dt_rank[dt],
            table.dt_score[dt], outcome, decided_codes(outcome), selection.regular, settings.recall_thresholds,
            settings.max_detections,
        )  # fmt: skip
        return CocoResult(
            precision=precision,
            recall=recall,
            scores=scores,
            iou_thresholds=settings.iou_thresholds,
            recall_thresholds=settings.recall_thresholds,
            categories=table.category_ids,
            area_ranges=settings.area_ranges,
            max_detections=settings.max_detections,
            num_images=selection.num_images,
        )

    def headline(self, result: CocoResult) -> dict[str, float]:
        return result.stats

    def category_ap(self, result: CocoResult) -> np.ndarray:
        # per_category()'s "AP" without its other eleven numbers: the mean of each category's valid precision.
        if not len(result.categories):
            return np.zeros(0)
        # Each category's (T, R) values made contiguous: a mean along the last axis sums as the 1-D mean does.
        curves = np.ascontiguousarray(np.moveaxis(result.precision[:, :, :, 0, -1], 2, 0)).reshape(
            len(result.categories), -1
        )  # -1 throughout for a category without ground truth
        values: np.ndarray = np.where(curves[:, 0] > -1, curves.mean(axis=1), np.nan)
        return values

    def ap_at(self, k: int, ranked: Ranked, positives: np.ndarray) -> tuple[float, np.ndarray]:
        n_categories = len(self.table.category_ids)
        outcome = ranked.outcome.reshape(-1, 1, 1).astype(np.uint8)
        precision, _, _ = coco_accumulate(
            n_categories, ranked.category, ranked.image, ranked.rank, ranked.score, outcome, decided_codes(outcome),
            positives.reshape(n_categories, 1), self.settings.recall_thresholds,
            (self.settings.max_detections[-1],),
        )  # fmt: skip
        curves = precision[0, :, :, 0, 0]  # (R, K), -1 for a category without positives
        valid = curves[curves > -1]  # COCOeval's summarize: the mean of every valid entry
        per_category = np.where(positives > 0, curves.mean(axis=0), np.nan)
        return (float(np.mean(valid)) if valid.size else float("nan")), per_category


class VocProtocol(Protocol):
    """VOC's accumulation (`voc_curves`): all-point or 11-point AP per category, ties of score in input order."""

    def result(self, selection: Selection) -> VocResult:
        table, settings, dt = self.table, self.settings, selection.dt
        outcome = table.outcome[dt, 0, 0]
        positives = selection.regular[:, 0]
        ap, detections, precision, recall = voc_curves(
            len(table.category_ids), table.dt_category[dt], table.dt_score[dt], outcome == TRUE_POSITIVE,
            outcome == FALSE_POSITIVE, positives, settings.interpolation,
        )  # fmt: skip
        return VocResult(
            categories=table.category_ids,
            ap=ap,
            num_ground_truths=positives,
            num_detections=detections,
            precision=tuple(precision),
            recall=tuple(recall),
            iou_threshold=settings.iou_threshold,
            interpolation=settings.interpolation,
            num_images=selection.num_images,
        )

    def headline(self, result: VocResult) -> dict[str, float]:
        return {"mAP": result.mAP}

    def category_ap(self, result: VocResult) -> np.ndarray:
        return np.asarray(result.ap, dtype=np.float64)

    def reaches(self, value: np.ndarray, k: int) -> np.ndarray:
        reached: np.ndarray = value > self.table.thresholds[k]  # VOC's ovmax > ovthresh
        return reached

    def ap_at(self, k: int, ranked: Ranked, positives: np.ndarray) -> tuple[float, np.ndarray]:
        outcome = ranked.outcome
        ap, _, _, _ = voc_curves(
            len(self.table.category_ids), ranked.category, ranked.score, outcome == TRUE_POSITIVE,
            outcome == FALSE_POSITIVE, positives, self.settings.interpolation,
        )  # fmt: skip
        present = ~np.isnan(ap)
        return (float(np.mean(ap[present])) if present.any() else float("nan")), ap


class TemporalProtocol(Protocol):
    """ActivityNet's accumulation (`interpolated_average_precision`) per class and threshold.

    A selection is evaluated as ActivityNet evaluates a ground truth: its classes are those with
    segments in it, predictions of other classes count for nothing.
    """

    def _class_ap(self, category: np.ndarray, score: np.ndarray, true_positive: np.ndarray, truths: np.ndarray) -> Any:
        """AP ``(T, K)`` of every class with truths (NaN for the others), rows by class then decreasing score (ties in
        input order), as `TemporalDetectionEvaluation.compute` ranks them."""
        n_categories = len(self.table.category_ids)
        ranked = np.lexsort((-score, category))
        bounds = np.searchsorted(category[ranked], np.arange(n_categories + 1))
        ap = np.full((true_positive.shape[0], n_categories), np.nan)
        for code in np.flatnonzero(truths > 0):
            rows = ranked[bounds[code] : bounds[code + 1]]
            ap[:, code] = interpolated_average_precision(true_positive[:, rows], int(truths[code]))
        return ap

    def result(self, selection: Selection) -> TemporalDetectionResult:
        table, dt = self.table, selection.dt
        truths = selection.regular[:, 0]
        category = table.dt_category[dt]
        ap = self._class_ap(category, table.dt_score[dt], (table.outcome[dt, :, 0] == TRUE_POSITIVE).T, truths)
        present = truths > 0
        return TemporalDetectionResult(
            tiou_thresholds=table.thresholds.copy(),
            labels=tuple(table.category_ids[present].tolist()),
            ap=ap[:, present],
            num_truths=truths[present],
            num_predictions=np.bincount(category, minlength=len(table.category_ids))[present],
            num_videos=selection.num_images,
        )

    def headline(self, result: TemporalDetectionResult) -> dict[str, float]:
        if not len(result.labels):
            return {"average_mAP": float("nan")}
        by_threshold = {f"mAP@{t:.2f}": float(value) for t, value in zip(result.tiou_thresholds, result.mean_ap)}
        return {"average_mAP": result.average_mean_ap, **by_threshold}

    def category_ap(self, result: TemporalDetectionResult) -> np.ndarray:
        code = {label: k for k, label in enumerate(self.table.category_ids.tolist())}
        values = np.full(len(self.table.category_ids), np.nan)
        for label, ap in zip(result.labels, result.ap.T):
            values[code[label]] = ap.mean()
        return values

    def ap_at(self, k: int, ranked: Ranked, positives: np.ndarray) -> tuple[float, np.ndarray]:
        ap = self._class_ap(ranked.category, ranked.score, (ranked.outcome == TRUE_POSITIVE)[None, :], positives)[0]
        present = ~np.isnan(ap)
        return (float(np.mean(ap[present])) if present.any() else float("nan")), ap


def protocol_of(table: DetectionTable, settings: Any) -> Protocol:
    """The `Protocol` of a table's evaluation, with the evaluation's settings.
    Examples
    --------
    >>> import geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations, VocEvaluation
    >>> ships = geoiou.RotatedBox([[10, 10, 8, 4, 30], [40, 40, 8, 4, 0]])
    >>> truth, preds = Annotations(image_id="a", category_id="ship", region=ships), Annotations(
    ...     image_id="a", category_id="ship", score=[0.9, 0.8], region=ships[::-1])
    >>> table = diagnose(truth, preds, evaluation=VocEvaluation()).table
    >>> protocol = protocol_of(table, VocEvaluation().settings)
    >>> protocol.result(protocol.everything()).mAP  # both found: VOC's AP, re-accumulated
    1.0
    """
    kinds: dict[str, type[Protocol]] = {"coco": CocoProtocol, "voc": VocProtocol, "temporal": TemporalProtocol}
    return kinds[table.protocol](table, settings)
