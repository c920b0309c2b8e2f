"""Precision, recall and F-beta against the score threshold, and the threshold that serves each category best.

At one of the evaluation's thresholds, keeping the predictions with score at least ``s`` gives the
protocol's true positives among them (its greedy matching in score order makes a cut by score a
prefix of its run), so per category and for every distinct score ``s``: precision ``tp / (tp + fp)``,
recall ``tp / positives`` and ``F = (1 + beta²) P R / (beta² P + R)`` (0 where P and R are 0).
Ignored predictions count for nothing. The best threshold is the score of highest F (the highest
such score on ties); the overall curve pools every category's predictions against all positives.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.diagnostics.table import IGNORED, TRUE_POSITIVE, DetectionTable

__all__ = ["FBetaCurve", "FBetaResult", "f_beta", "f_beta_curve"]


@dataclass(frozen=True, eq=False)
class FBetaCurve:
    """Precision, recall and F-beta at each distinct score (decreasing) of one category, or of all.

    ``best`` is the index of the best threshold (-1 when there is no prediction).
    """

    threshold: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    f: np.ndarray
    positives: int

    @property
    def best(self) -> int:
        """Index of the highest F (the first, that is the highest score, on ties); -1 without predictions."""
        return int(np.argmax(self.f)) if len(self.f) else -1

    def best_values(self) -> dict[str, float | None]:
        """The best threshold with its precision, recall and F (None without predictions)."""
        if self.best < 0:
            return {"threshold": None, "precision": None, "recall": None, "f": None}
        i = self.best
        return {
            "threshold": float(self.threshold[i]),
            "precision": float(self.precision[i]),
            "recall": _plain(float(self.recall[i])),
            "f": float(self.f[i]),
        }


def _plain(value: float) -> float | None:
    return None if math.isnan(value) else value


def f_beta_curve(score: np.ndarray, right: np.ndarray, positives: int, beta: float) -> FBetaCurve:
    """The curve of predictions `score` (true positives where `right`) against `positives` ground truths.

    Examples
    --------
    >>> curve = f_beta_curve(np.array([0.9, 0.8, 0.8, 0.3]), np.array([1, 0, 1, 1], bool), 4, 1.0)
    >>> curve.threshold.tolist(), curve.precision.round(3).tolist(), curve.recall.tolist()
    ([0.9, 0.8, 0.3], [1.0, 0.667, 0.75], [0.25, 0.5, 0.75])
    >>> curve.best_values()["threshold"], round(curve.best_values()["f"], 4)  # 2 * 0.75 * 0.75 / 1.5
    (0.3, 0.75)
    """
    order = np.argsort(-score, kind="stable")
    score, right = score[order], right[order]
    last = np.r_[score[1:] != score[:-1], True] if len(score) else np.zeros(0, bool)  # the last of each tied score
    hits = np.cumsum(right)[last].astype(np.float64)
    taken = (np.flatnonzero(last) + 1).astype(np.float64)
    precision = hits / taken
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = hits / positives if positives else np.full(len(hits), np.nan)
        b2 = beta * beta
        f = np.where(hits > 0, (1 + b2) * precision * recall / (b2 * precision + recall), 0.0)
    return FBetaCurve(score[last], precision, recall, np.nan_to_num(f, nan=0.0), int(positives))


@dataclass(frozen=True, eq=False)
class FBetaResult:
    """F-beta curves per category and overall, at one threshold.

    Attributes
    ----------
    iou_threshold, beta : float
    curves : dict
        ``{category_id: FBetaCurve}``.
    overall : FBetaCurve
        Every category's predictions pooled against all positives.
    """

    iou_threshold: float
    beta: float
    curves: dict[Any, FBetaCurve]
    overall: FBetaCurve

    def best(self) -> dict[Any, dict[str, float | None]]:
        """The best threshold of each category, with its precision, recall and F."""
        return {category: curve.best_values() for category, curve in self.curves.items()}

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON: the best threshold overall and per category (`curves` holds the curves)."""
        return {
            "iou_threshold": self.iou_threshold,
            "beta": self.beta,
            "best_overall": self.overall.best_values(),
            "best": [{"category_id": category, **values} for category, values in self.best().items()],
        }


def f_beta(table: DetectionTable, iou_threshold: float = 0.5, beta: float = 1.0) -> FBetaResult:
    """The F-beta curves of a table's categories at one of its thresholds (see the module notes).

    Raises
    ------
    InvalidArgumentError
        If `iou_threshold` is not one of the evaluation's thresholds or `beta` is not a positive number.

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations
    >>> truth = Annotations(image_id=1, category_id=1, region=geoiou.Box([[0, 0, 4, 4], [9, 9, 12, 12]]))
    >>> preds = Annotations(image_id=1, category_id=1, score=[0.8, 0.3],
    ...                     region=geoiou.Box([[0, 0, 4, 3], [5, 5, 7, 7]]))
    >>> f_beta(diagnose(truth, preds).table).best()[1]  # the 0.3 only adds a false positive
    {'threshold': 0.8, 'precision': 1.0, 'recall': 0.5, 'f': 0.6666666666666666}
    """
    k = table.threshold_index(iou_threshold, "iou_threshold")
    if isinstance(beta, bool) or not isinstance(beta, (int, float, np.number)) or not beta > 0 or math.isinf(beta):
        raise invalid_argument("beta", "a positive number", beta)
    outcome = table.outcome[:, k, 0]
    counted = outcome != IGNORED
    score, right, category = table.dt_score[counted], outcome[counted] == TRUE_POSITIVE, table.dt_category[counted]
    positives = np.bincount(table.gt_category[table.gt_regular[:, 0]], minlength=len(table.category_ids))
    curves: dict[Any, FBetaCurve] = {
        category_id: f_beta_curve(score[category == c], right[category == c], int(positives[c]), float(beta))
        for c, category_id in enumerate(table.category_ids.tolist())
    }
    overall = f_beta_curve(score, right, int(positives.sum()), float(beta))
    return FBetaResult(float(table.thresholds[k]), float(beta), curves, overall)
