"""Candidate label errors: where a confident false positive suggests the ground truth, not the model, is wrong.

Two kinds, each a false positive at the chosen threshold, ranked by score (most confident first):

- ``"wrong category"``: it overlaps a ground truth of another category at the threshold (as the
  protocol tests it): perhaps that object's category is wrong;
- ``"missing annotation"``: it overlaps every ground truth less than the background threshold:
  perhaps an object there was not annotated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.diagnostics.accumulate import Protocol
from geoiou.diagnostics.table import FALSE_POSITIVE, DetectionTable
from geoiou.diagnostics.tide import best_overlaps

__all__ = ["KINDS", "LabelErrors", "label_errors"]

KINDS = ("wrong category", "missing annotation")


@dataclass(frozen=True, eq=False)
class LabelErrors:
    """Candidate label errors, most confident first (arrays of equal length).

    ``kind`` indexes `KINDS`; ``prediction_row`` and ``truth_row`` are input rows (``truth_row``
    -1 for a missing annotation, ``iou`` its best overlap with any ground truth then).
    """

    kind: np.ndarray
    prediction_row: np.ndarray
    image_id: np.ndarray
    category_id: np.ndarray
    score: np.ndarray
    truth_row: np.ndarray
    truth_category_id: np.ndarray
    iou: np.ndarray

    def __len__(self) -> int:
        return len(self.kind)

    def to_records(self) -> list[dict[str, Any]]:
        """One record per candidate."""
        return [
            {
                "kind": KINDS[kind],
                "prediction_row": int(row),
                "image_id": image,
                "category_id": category,
                "score": float(score),
                "truth_row": None if truth < 0 else int(truth),
                "truth_category_id": None if truth < 0 else truth_category,
                "iou": float(iou),
            }
            for kind, row, image, category, score, truth, truth_category, iou in zip(
                self.kind.tolist(),
                self.prediction_row,
                self.image_id.tolist(),
                self.category_id.tolist(),
                self.score,
                self.truth_row,
                self.truth_category_id.tolist(),
                self.iou,
            )  # fmt: skip
        ]


def label_errors(
    table: DetectionTable,
    protocol: Protocol,
    iou_threshold: float = 0.5,
    background_threshold: float = 0.1,
    min_score: float = 0.0,
) -> LabelErrors:
    """The candidate label errors of a table (see the module notes), with score at least `min_score`.

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations, CocoEvaluation
    >>> truth = Annotations(image_id=1, category_id=["cat"], region=geoiou.Box([[0, 0, 10, 10]]))
    >>> preds = Annotations(image_id=1, category_id=["dog", "dog"], score=[0.95, 0.6],
    ...                     region=geoiou.Box([[0, 0, 10, 9], [50, 50, 60, 60]]))
    >>> for record in diagnose(truth, preds, evaluation=CocoEvaluation(categories=["cat", "dog"])).label_errors(
    ...     ).to_records():
    ...     print(record["kind"], record["prediction_row"], record["truth_category_id"], record["iou"])
    wrong category 0 cat 0.9
    missing annotation 1 None 0.0
    """
    k = table.threshold_index(iou_threshold, "iou_threshold")
    if not table.background_threshold <= background_threshold <= table.thresholds[k]:
        raise invalid_argument(
            "background_threshold",
            f"a number from the diagnostics' background threshold {table.background_threshold:g} up to the IoU "
            f"threshold {table.thresholds[k]:g}",
            background_threshold,
        )
    best = best_overlaps(table, k)
    false = (table.outcome[:, k, 0] == FALSE_POSITIVE) & (table.dt_score >= min_score)
    wrong = false & protocol.reaches(best.other, k)
    nothing = false & (np.maximum(best.same, best.other) < background_threshold)
    chosen = np.flatnonzero(wrong | nothing)
    chosen = chosen[np.lexsort((table.dt_row[chosen], -table.dt_score[chosen]))]
    is_wrong = wrong[chosen]
    truth = np.where(is_wrong, best.other_gt[chosen], -1)
    categories = table.category_ids
    truth_category = np.full(len(chosen), None, dtype=object)
    truth_category[is_wrong] = categories[table.gt_category[truth[is_wrong]]]
    return LabelErrors(
        kind=np.where(is_wrong, 0, 1),
        prediction_row=table.dt_row[chosen],
        image_id=table.image_ids[table.dt_image[chosen]],
        category_id=categories[table.dt_category[chosen]],
        score=table.dt_score[chosen],
        truth_row=truth,
        truth_category_id=truth_category,
        iou=np.where(is_wrong, best.other[chosen], np.maximum(best.same, best.other)[chosen]),
    )
