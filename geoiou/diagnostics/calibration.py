"""Calibration of the scores: does a score of 0.8 mean that 80% of such predictions are right?

A prediction is right when the protocol counts it a true positive at the chosen threshold (the
predictions it ignores are left out). Scores are binned into `bins` equal intervals of ``[0, 1]``
(the last one closed); per bin, the mean score (confidence) and the fraction right (accuracy).
The expected calibration error (ECE, Naeini et al. 2015) is the mean of ``|accuracy - confidence|``
over the bins weighted by their predictions; the maximum calibration error (MCE) the largest over
the bins that hold any.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.diagnostics.table import IGNORED, TRUE_POSITIVE, DetectionTable

__all__ = ["CalibrationResult", "calibration"]


@dataclass(frozen=True, eq=False)
class CalibrationResult:
    """The reliability table and the calibration errors (see the module notes).

    Attributes
    ----------
    iou_threshold : float
    edges : ndarray, shape (B + 1,)
        The bins' edges, 0 to 1.
    count : ndarray of int64, shape (B,)
        Predictions per bin.
    confidence, accuracy : ndarray, shape (B,)
        Mean score and fraction of true positives per bin (NaN for an empty bin).
    ece, mce : float
        Expected and maximum calibration error (NaN without predictions).
    per_category : dict
        ``{category_id: {"ece": ..., "mce": ..., "count": ...}}``.
    """

    iou_threshold: float
    edges: np.ndarray
    count: np.ndarray
    confidence: np.ndarray
    accuracy: np.ndarray
    ece: float
    mce: float
    per_category: dict[Any, dict[str, float]]

    def to_records(self) -> list[dict[str, Any]]:
        """The reliability table, one record per bin."""
        return [
            {
                "low": float(low),
                "high": float(high),
                "count": int(count),
                "confidence": _plain(confidence),
                "accuracy": _plain(accuracy),
                "gap": _plain(accuracy - confidence),
            }
            for low, high, count, confidence, accuracy in zip(
                self.edges[:-1], self.edges[1:], self.count, self.confidence, self.accuracy
            )
        ]

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON (NaN as None)."""
        return {
            "iou_threshold": self.iou_threshold,
            "ece": _plain(self.ece),
            "mce": _plain(self.mce),
            "bins": self.to_records(),
            "per_category": [
                {"category_id": category, **{key: _plain(value) for key, value in values.items()}}
                for category, values in self.per_category.items()
            ],
        }


def _plain(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def reliability(score: np.ndarray, right: np.ndarray, bins: int) -> tuple[np.ndarray, ...]:
    """Per bin of ``[0, 1]``: count, mean score, fraction right; and the ECE and MCE.

    Examples
    --------
    >>> count, confidence, accuracy, ece, mce = reliability(np.array([0.1, 0.9, 0.95]), np.array([0, 1, 0]), 2)
    >>> count.tolist(), confidence.round(3).tolist(), accuracy.tolist()
    ([1, 2], [0.1, 0.925], [0.0, 0.5])
    >>> round(float(ece), 4), round(float(mce), 4)  # (1 * 0.1 + 2 * 0.425) / 3; the second bin's gap
    (0.3167, 0.425)
    """
    which = np.minimum((score * bins).astype(np.int64), bins - 1)  # a score of 1 falls in the last bin
    count = np.bincount(which, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        confidence = np.bincount(which, weights=score, minlength=bins) / count
        accuracy = np.bincount(which, weights=right.astype(np.float64), minlength=bins) / count
    gap = np.abs(accuracy - confidence)
    filled = count > 0
    ece = float(np.sum(count[filled] * gap[filled]) / count.sum()) if filled.any() else math.nan
    mce = float(gap[filled].max()) if filled.any() else math.nan
    return count, confidence, accuracy, np.float64(ece), np.float64(mce)


def calibration(table: DetectionTable, iou_threshold: float = 0.5, bins: int = 10) -> CalibrationResult:
    """The calibration of a table's scores at one of its thresholds (see the module notes).

    Raises
    ------
    InvalidArgumentError
        If `iou_threshold` is not one of the evaluation's thresholds, `bins` is not a positive
        integer, or a counted prediction's score is outside ``[0, 1]`` (calibration compares
        scores with frequencies: scores must be probabilities).

    Examples
    --------
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import TemporalDetectionEvaluation
    >>> runs = diagnose({"v": [(0, 10, "run"), (20, 30, "run")]}, {"v": [(0, 9, "run", 0.9), (50, 60, "run", 0.7)]},
    ...                 evaluation=TemporalDetectionEvaluation(tiou_thresholds=[0.5]))
    >>> result = calibration(runs.table, 0.5, bins=2)  # scores 0.9 (right) and 0.7 (wrong), both above 0.5
    >>> result.count.tolist(), result.accuracy.tolist(), result.ece
    ([0, 2], [nan, 0.5], 0.30000000000000004)
    """
    k = table.threshold_index(iou_threshold, "iou_threshold")
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise invalid_argument("bins", "a positive integer", bins)
    counted = table.outcome[:, k, 0] != IGNORED
    score, right = table.dt_score[counted], table.outcome[counted, k, 0] == TRUE_POSITIVE
    outside = (score < 0) | (score > 1)
    if outside.any():
        row = int(table.dt_row[np.flatnonzero(counted)[np.argmax(outside)]])
        raise invalid_argument(
            "predictions.score", "probabilities in [0, 1] for calibration", float(score[outside][0]), f" at row {row}"
        )
    count, confidence, accuracy, ece, mce = reliability(score, right, int(bins))
    category = table.dt_category[counted]
    per_category = {}
    for c, category_id in enumerate(table.category_ids.tolist()):
        mine = category == c
        *_, category_ece, category_mce = reliability(score[mine], right[mine], int(bins))
        per_category[category_id] = {"ece": float(category_ece), "mce": float(category_mce), "count": int(mine.sum())}
    return CalibrationResult(
        float(table.thresholds[k]), np.linspace(0.0, 1.0, int(bins) + 1), count, confidence, accuracy, float(ece),
        float(mce), per_category,
    )  # fmt: skip
