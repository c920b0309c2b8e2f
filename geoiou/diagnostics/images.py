"""Images as units: the evaluation of named subsets of them (slices), and each image's counts, F1 and AP.

A slice is evaluated as the evaluation would evaluate those images alone, by re-accumulating the
per-object table (`geoiou.diagnostics.accumulate`): every metric the result has, and the slice of
all images is the result itself. Per image, at one threshold and a score threshold: true and false
positives, missed ground truths, precision, recall, F1 ``2 tp / (2 tp + fp + missed)``, and the
protocol's AP at that threshold over the image's own categories (each (image, category) pair
accumulated as a category of its own, then averaged over the image's categories with ground truth).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.diagnostics.accumulate import Protocol, Ranked, select
from geoiou.diagnostics.table import FALSE_POSITIVE, IGNORED, TRUE_POSITIVE, DetectionTable
from geoiou.evaluation.prepared import mapping_key

__all__ = ["ImageScores", "image_scores", "slice_weights", "slices"]

#: (image, category) groups accumulated per step of the per-image AP (COCO keeps 101 floats per group and step).
GROUPS_PER_STEP = 1 << 14


def slice_weights(table: DetectionTable, name: str, images: Sequence[Any] | np.ndarray) -> np.ndarray:
    """Which of the table's images a slice holds (1) or not (0): from image ids, or a boolean mask over the images.

    Raises
    ------
    InvalidArgumentError
        Naming the slice, for an id that is not one of the evaluation's images or a mask of the wrong length.

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations
    >>> truth = Annotations(image_id=[1, 2, 3], category_id=1, region=geoiou.Box([[0, 0, 4, 4]] * 3))
    >>> found = Annotations(image_id=[1], category_id=1, score=[0.5], region=geoiou.Box([[0, 0, 4, 4]]))
    >>> table = diagnose(truth, found).table
    >>> first = np.array([True, False, False])
    >>> slice_weights(table, "odd", [1, 3]).tolist(), slice_weights(table, "first", first).tolist()
    ([1, 0, 1], [1, 0, 0])
    """
    param = f"slices[{mapping_key(name)}]"
    values = np.asarray(images) if not isinstance(images, np.ndarray) else images
    if values.dtype == bool:
        if values.shape != table.image_ids.shape:
            raise invalid_argument(param, f"a boolean mask over the {len(table.image_ids)} images", values.shape)
        return values.astype(np.int64)
    wanted = values.tolist() if values.ndim == 1 else list(images)
    known = {image: i for i, image in enumerate(table.image_ids.tolist())}
    unknown = [image for image in wanted if image not in known]
    if unknown:
        raise invalid_argument(param, "ids of the evaluation's images", unknown[0])
    weight = np.zeros(len(table.image_ids), dtype=np.int64)
    weight[[known[image] for image in wanted]] = 1
    return weight


def slices(
    table: DetectionTable, protocol: Protocol, named: Mapping[str, Sequence[Any] | np.ndarray]
) -> dict[str, Any]:
    """The evaluation's result for each named subset of images (see the module notes).

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations
    >>> truth = Annotations(image_id=["day", "night"], category_id=[1, 1], region=geoiou.Box([[0, 0, 4, 4]] * 2))
    >>> preds = Annotations(image_id=["day", "night"], category_id=[1, 1], score=[0.9, 0.8],
    ...                     region=geoiou.Box([[0, 0, 4, 4], [3, 3, 9, 9]]))
    >>> diagnostics = diagnose(truth, preds)
    >>> sliced = diagnostics.slices({"day": ["day"], "night": ["night"]})
    >>> {name: round(result["AP50"], 3) for name, result in sliced.items()}
    {'day': 1.0, 'night': 0.0}
    """
    if not isinstance(named, Mapping):
        raise invalid_argument("slices", "a mapping {name: image ids}", named)
    return {name: protocol.result(select(table, slice_weights(table, name, images))) for name, images in named.items()}


@dataclass(frozen=True, eq=False)
class ImageScores:
    """Per image: counts, precision, recall, F1 and AP at one threshold and score threshold.

    Arrays follow `image_ids`; precision is NaN without counted predictions, recall and AP without
    ground truth, F1 without either.
    """

    image_ids: np.ndarray
    iou_threshold: float
    score_threshold: float
    ground_truths: np.ndarray
    true_positives: np.ndarray
    false_positives: np.ndarray
    missed: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    ap: np.ndarray

    def worst(self, count: int | None = None) -> list[Any]:
        """The images of lowest F1 (then lowest AP), worst first; images with neither ground truth nor predictions are
        left out."""
        rows = np.flatnonzero(~np.isnan(self.f1))
        order = rows[np.lexsort((rows, np.nan_to_num(self.ap[rows], nan=2.0), self.f1[rows]))]
        return [self.image_ids[i].item() if isinstance(self.image_ids[i], np.generic) else self.image_ids[i]
                for i in order[:count]]  # fmt: skip

    def to_records(self) -> list[dict[str, Any]]:
        """One record per image (NaN as None)."""
        return [
            {
                "image_id": image,
                "ground_truths": int(truths),
                "true_positives": int(hits),
                "false_positives": int(false),
                "missed": int(missed),
                "precision": _plain(precision),
                "recall": _plain(recall),
                "f1": _plain(f1),
                "AP": _plain(ap),
            }
            for image, truths, hits, false, missed, precision, recall, f1, ap in zip(
                self.image_ids.tolist(),
                self.ground_truths,
                self.true_positives,
                self.false_positives,
                self.missed,
                self.precision,
                self.recall,
                self.f1,
                self.ap,
            )  # fmt: skip
        ]


def _plain(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def image_scores(
    table: DetectionTable, protocol: Protocol, iou_threshold: float = 0.5, score_threshold: float = 0.0
) -> ImageScores:
    """Per-image counts, F1 and AP of a table at one of its thresholds (see the module notes).
    Examples
    --------
    >>> import geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations
    >>> plots = geoiou.Polygon.from_rings([[(0, 0), (8, 0), (0, 6)], [(10, 0), (20, 0), (20, 5)]])
    >>> found = diagnose(Annotations(image_id=["north", "north"], category_id="field", region=plots),
    ...                  Annotations(image_id=["north"], category_id="field", score=[0.7], region=plots[:1]))
    >>> scores = image_scores(found.table, found.protocol)
    >>> scores.true_positives.tolist(), scores.missed.tolist(), scores.f1.tolist()  # 2 * 1 / (2 + 0 + 1)
    ([1], [1], [0.6666666666666666])
    """
    k = table.threshold_index(iou_threshold, "iou_threshold")
    if not isinstance(score_threshold, (int, float, np.number)) or math.isnan(score_threshold):
        raise invalid_argument("score_threshold", "a number", score_threshold)
    n = len(table.image_ids)
    outcome = table.outcome[:, k, 0]
    kept = (outcome != IGNORED) & (table.dt_score >= score_threshold)
    hits = np.bincount(table.dt_image[kept & (outcome == TRUE_POSITIVE)], minlength=n)
    false = np.bincount(table.dt_image[kept & (outcome == FALSE_POSITIVE)], minlength=n)
    truths = np.bincount(table.gt_image[table.gt_regular[:, 0]], minlength=n)
    missed = truths - hits
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(hits + false > 0, hits / (hits + false), np.nan)
        recall = np.where(truths > 0, hits / truths, np.nan)
        f1 = np.where(2 * hits + false + missed > 0, 2 * hits / (2 * hits + false + missed), np.nan)
    return ImageScores(
        table.image_ids, float(table.thresholds[k]), float(score_threshold), truths, hits, false, missed, precision,
        recall, f1, _image_ap(table, protocol, k, kept),
    )  # fmt: skip


def _image_ap(table: DetectionTable, protocol: Protocol, k: int, kept: np.ndarray) -> np.ndarray:
    """The protocol's AP of each image at threshold `k` over its categories with ground truth (NaN for none)."""
    n_images, n_categories = len(table.image_ids), len(table.category_ids)
    regular = table.gt_regular[:, 0]
    gt_group = table.gt_image[regular] * n_categories + table.gt_category[regular]
    groups, gt_code = np.unique(gt_group, return_inverse=True)  # the (image, category) pairs with ground truth
    if not len(groups):
        return np.full(n_images, np.nan)
    dt_group = table.dt_image * n_categories + table.dt_category
    dt_code = np.searchsorted(groups, dt_group)
    mine = kept & np.isin(dt_group, groups)  # predictions where there is no ground truth change no AP
    total = np.zeros(n_images)
    for first in range(0, len(groups), GROUPS_PER_STEP):  # COCO's curves hold 101 floats per group: a step at a time
        stop = min(first + GROUPS_PER_STEP, len(groups))
        rows = np.flatnonzero(mine & (dt_code >= first) & (dt_code < stop))
        positives = np.bincount(gt_code[(gt_code >= first) & (gt_code < stop)] - first, minlength=stop - first)
        ap = _grouped_ap(protocol, table, k, rows, dt_code[rows] - first, positives)
        np.add.at(total, groups[first:stop] // n_categories, ap)
    counted = np.bincount(groups // n_categories, minlength=n_images)
    with np.errstate(invalid="ignore", divide="ignore"):
        averaged: np.ndarray = np.where(counted > 0, total / counted, np.nan)
    return averaged


def _grouped_ap(
    protocol: Protocol, table: DetectionTable, k: int, rows: np.ndarray, group: np.ndarray, positives: np.ndarray
) -> np.ndarray:
    """The AP of each group (as a category of its own), for the predictions `rows` of the groups `group`."""
    grouped = type(protocol)(_regrouped(table, len(positives)), protocol.settings)
    _, ap = grouped.ap_at(k, replace(Ranked.of(table, k, rows), category=group), positives)
    ap_groups: np.ndarray = ap
    return ap_groups


def _regrouped(table: DetectionTable, n_groups: int) -> DetectionTable:
    """A table whose categories are `n_groups` groups (only the number of categories is read by `ap_at`)."""
    return replace(table, category_ids=np.arange(n_groups))
