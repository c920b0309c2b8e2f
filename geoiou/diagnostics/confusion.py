"""The detection confusion matrix: which category each object was found as, with a background row and column.

At one of the evaluation's thresholds and a score threshold, over the predictions with at least
that score that the protocol does not ignore, and the ground truths that count:

1. the protocol's own matches are the diagonal (a protocol matches a prediction only to its own
   category; its greedy matching in score order means that the matches of the predictions above a
   score are those of the whole run, so the diagonal is the true positives at that score);
2. each remaining prediction, highest score first within its image, takes the ground truth of
   another category it overlaps most among those still free, if the overlap reaches the threshold
   (as the protocol tests it): an off-diagonal cell ``[true category, predicted category]``;
3. predictions still unmatched go to the background row, ground truths still free to the
   background column.

Rows are the true categories, columns the predicted ones, the last of each the background: a row
of a category sums to its ground truths, a column to its predictions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.diagnostics.accumulate import Protocol
from geoiou.diagnostics.table import FALSE_POSITIVE, IGNORED, TRUE_POSITIVE, DetectionTable

__all__ = ["DetectionConfusion", "confusion_matrix"]


@dataclass(frozen=True, eq=False)
class DetectionConfusion:
    """A detection confusion matrix (see the module notes).

    Attributes
    ----------
    categories : ndarray, shape (K,)
    counts : ndarray of int64, shape (K + 1, K + 1)
        Rows: true category, then background (unmatched predictions); columns: predicted category,
        then background (missed ground truths). ``counts[-1, -1]`` is 0.
    iou_threshold, score_threshold : float
    """

    categories: np.ndarray
    counts: np.ndarray
    iou_threshold: float
    score_threshold: float

    def normalized(self, by: Literal["truth", "prediction"] = "truth") -> np.ndarray:
        """The counts as fractions of each row (``"truth"``: where each category's objects went) or of each column
        (``"prediction"``: what each category's predictions were); NaN for an empty row or column.

        Examples
        --------
        >>> DetectionConfusion(np.array(["a"]), np.array([[3, 1], [2, 0]]), 0.5, 0.0).normalized().tolist()
        [[0.75, 0.25], [1.0, 0.0]]
        """
        if by not in ("truth", "prediction"):
            raise invalid_argument("by", "'truth' or 'prediction'", by)
        axis = 1 if by == "truth" else 0
        totals = self.counts.sum(axis=axis, keepdims=True).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            fractions: np.ndarray = np.where(totals > 0, self.counts / totals, np.nan)
        return fractions

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON: the labels of the rows and columns (``None`` for the background) and the counts."""
        labels = [*self.categories.tolist(), None]
        return {
            "iou_threshold": self.iou_threshold,
            "score_threshold": self.score_threshold,
            "labels": labels,
            "counts": self.counts.tolist(),
        }


def confusion_matrix(
    table: DetectionTable, protocol: Protocol, iou_threshold: float = 0.5, score_threshold: float = 0.0
) -> DetectionConfusion:
    """The detection confusion matrix of a table (see the module notes).

    Raises
    ------
    InvalidArgumentError
        If `iou_threshold` is not one of the evaluation's thresholds, or `score_threshold` is not a number.

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations
    >>> boxes = geoiou.RotatedBox([[10, 10, 8, 4, 30], [40, 40, 8, 4, 0]])
    >>> found = diagnose(Annotations(image_id=1, category_id=["car", "van"], region=boxes),
    ...                  Annotations(image_id=1, category_id="car", score=[0.9, 0.6], region=boxes))
    >>> confusion_matrix(found.table, found.protocol).counts.tolist()  # the van was found as a car
    [[1, 0, 0], [1, 0, 0], [0, 0, 0]]
    """
    k = table.threshold_index(iou_threshold, "iou_threshold")
    if not isinstance(score_threshold, (int, float, np.number)) or np.isnan(score_threshold):
        raise invalid_argument("score_threshold", "a number", score_threshold)
    outcome = table.outcome[:, k, 0]
    kept = (outcome != IGNORED) & (table.dt_score >= score_threshold)
    hits = np.flatnonzero(kept & (outcome == TRUE_POSITIVE))
    taken = np.zeros(len(table.gt_image), dtype=bool)
    taken[table.matched[k, hits]] = True
    misses = np.flatnonzero(kept & (outcome == FALSE_POSITIVE))
    partner = _cross_matches(table, protocol, k, misses, taken)
    n = len(table.category_ids)
    truth = np.concatenate(
        [
            table.gt_category[table.matched[k, hits]],
            np.where(partner >= 0, table.gt_category[np.maximum(partner, 0)], n),
            table.gt_category[table.gt_regular[:, 0] & ~taken],
        ]
    )
    predicted = np.concatenate(
        [table.dt_category[hits], table.dt_category[misses], np.full(int((table.gt_regular[:, 0] & ~taken).sum()), n)]
    )
    counts = np.bincount(truth * (n + 1) + predicted, minlength=(n + 1) ** 2).reshape(n + 1, n + 1)
    return DetectionConfusion(table.category_ids, counts.astype(np.int64), float(table.thresholds[k]), score_threshold)


def _cross_matches(
    table: DetectionTable, protocol: Protocol, k: int, misses: np.ndarray, taken: np.ndarray
) -> np.ndarray:
    """Per false positive of `misses`, the free ground truth of another category it takes (-1: none); marks it taken.

    False positives take their pick by image, highest score first (ties: the lower row), each the
    eligible pair of highest overlap (ties: the lower ground-truth row).
    """
    from geoiou.diagnostics.loops import greedy_takes  # compiled: loaded on first use

    owner, gt = table.pair_owner, table.pair_gt
    eligible = (
        protocol.reaches(table.pair_value, k)
        & table.gt_regular[gt, 0]
        & (table.gt_category[gt] != table.dt_category[owner])
    )
    order = misses[np.lexsort((misses, -table.dt_score[misses], table.dt_image[misses]))]
    partner = np.full(len(table.dt_row), -1, dtype=np.int64)
    greedy_takes(order, table.pair_start, gt, table.pair_value, eligible, taken, partner)
    taken_by: np.ndarray = partner[misses]
    return taken_by
