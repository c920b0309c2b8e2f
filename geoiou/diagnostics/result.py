"""`Diagnostics`: an evaluation's result with everything derived from its per-object table.

Each method is one diagnostic, computed when asked from the `DetectionTable` that the state kept
(outcomes, matches and overlaps): none measures an overlap or runs the matching again.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

import numpy as np

from geoiou.diagnostics.accumulate import Protocol, protocol_of
from geoiou.diagnostics.calibration import CalibrationResult, calibration
from geoiou.diagnostics.confusion import DetectionConfusion, confusion_matrix
from geoiou.diagnostics.fbeta import FBetaResult, f_beta
from geoiou.diagnostics.images import ImageScores, image_scores, slices
from geoiou.diagnostics.label_errors import LabelErrors, label_errors
from geoiou.diagnostics.table import DetectionTable
from geoiou.diagnostics.tide import TideResult, tide

__all__ = ["Diagnostics"]


class Diagnostics:
    """An evaluation's result and its diagnostics (TIDE, confusion, calibration, F-beta, slices, images, label errors).

    Made by `DiagnosticsEvaluation.compute` (or `diagnose`). Images are the evaluation's images
    (videos for temporal detection), categories its categories (labels).

    Attributes
    ----------
    result : CocoResult, VocResult or TemporalDetectionResult
        The evaluation's own result, exactly as without diagnostics.
    table : DetectionTable
        The per-object table every diagnostic reads.
    settings
        The evaluation's settings.

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations
    >>> truth = Annotations(image_id=[1, 1], category_id=["a", "b"],
    ...                     region=geoiou.Box([[0, 0, 10, 10], [20, 0, 30, 10]]))
    >>> preds = Annotations(image_id=[1, 1], category_id=["a", "a"], score=[0.9, 0.8],
    ...                     region=geoiou.Box([[0, 0, 10, 9], [20, 0, 30, 9]]))
    >>> diagnostics = diagnose(truth, preds)
    >>> diagnostics.tide().counts["classification"]  # the second "a" lies on the "b"
    1
    >>> diagnostics.confusion_matrix().counts.tolist()  # rows: truth a, b, background; columns: predicted a, b, none
    [[1, 0, 0], [1, 0, 0], [0, 0, 0]]
    """

    def __init__(self, result: Any, table: DetectionTable, settings: Any) -> None:
        self.result, self.table, self.settings = result, table, settings
        self.protocol: Protocol = protocol_of(table, settings)

    def renumbered(self, prediction_row: np.ndarray, truth_row: np.ndarray) -> Diagnostics:
        """The same diagnostics with the input rows renumbered (`DetectionTable.renumbered`; the result's per-object
        matches alike): those of parts evaluated in another order than their inputs', as the inputs number them."""
        result = self.result
        if getattr(result, "matches", None) is not None:
            result = replace(result, matches=result.matches.renumbered(prediction_row, truth_row))
        return Diagnostics(result, self.table.renumbered(prediction_row, truth_row), self.settings)

    def __repr__(self) -> str:
        table = self.table
        return (
            f"<Diagnostics of a {table.protocol} evaluation: {len(table.image_ids)} images, "
            f"{len(table.category_ids)} categories, {len(table.dt_row)} evaluated predictions, "
            f"{len(table.gt_image)} ground truths>"
        )

    def tide(self, foreground_threshold: float = 0.5, background_threshold: float = 0.1) -> TideResult:
        """TIDE's error breakdown and the AP each error costs (`geoiou.diagnostics.tide`).

        `foreground_threshold` must be one of the evaluation's thresholds, `background_threshold`
        at least the state's (the lowest overlap it kept).
        """
        return tide(self.table, self.protocol, foreground_threshold, background_threshold)

    def confusion_matrix(self, iou_threshold: float = 0.5, score_threshold: float = 0.0) -> DetectionConfusion:
        """The detection confusion matrix with a background row and column (`geoiou.diagnostics.confusion`)."""
        return confusion_matrix(self.table, self.protocol, iou_threshold, score_threshold)

    def calibration(self, iou_threshold: float = 0.5, bins: int = 10) -> CalibrationResult:
        """Expected and maximum calibration error of the scores, with the reliability table."""
        return calibration(self.table, iou_threshold, bins)

    def f_beta(self, iou_threshold: float = 0.5, beta: float = 1.0) -> FBetaResult:
        """Precision, recall and F-beta against the score threshold, and the best threshold per category."""
        return f_beta(self.table, iou_threshold, beta)

    def per_image(self, iou_threshold: float = 0.5, score_threshold: float = 0.0) -> ImageScores:
        """Per image: counts, precision, recall, F1 and the protocol's AP over the image's categories."""
        return image_scores(self.table, self.protocol, iou_threshold, score_threshold)

    def label_errors(
        self, iou_threshold: float = 0.5, background_threshold: float = 0.1, min_score: float = 0.0
    ) -> LabelErrors:
        """Candidate label errors, most confident first: a prediction on another category's object, or on nothing."""
        return label_errors(self.table, self.protocol, iou_threshold, background_threshold, min_score)

    def slices(self, named: Mapping[str, Sequence[Any] | np.ndarray]) -> dict[str, Any]:
        """The evaluation's result for each named subset of images, re-accumulated (no overlap measured again).

        `named` maps a name to image ids (or to a boolean mask over `table.image_ids`).
        """
        return slices(self.table, self.protocol, named)

    def headline(self, result: Any = None) -> dict[str, float]:
        """The headline numbers of the result (or of another result of this evaluation, such as a slice's)."""
        return self.protocol.headline(self.result if result is None else result)

    def scores_are_probabilities(self) -> bool:
        """Whether every evaluated prediction's score is in ``[0, 1]`` (what `calibration` needs)."""
        score = self.table.dt_score
        return bool(((score >= 0) & (score <= 1)).all())

    def default_threshold(self) -> float:
        """The threshold the diagnostics use unless told: 0.5 where the evaluation has it, else its first."""
        thresholds = self.table.thresholds
        found = np.flatnonzero(np.isclose(thresholds, 0.5, rtol=0, atol=1e-9))
        return float(thresholds[found[0] if found.size else 0])

    def to_dict(
        self,
        *,
        iou_threshold: float | None = None,
        background_threshold: float = 0.1,
        score_threshold: float = 0.0,
    ) -> dict[str, Any]:
        """Every diagnostic as plain values for JSON (NaN as None), at one of the evaluation's thresholds.

        `iou_threshold` defaults to `default_threshold`; it is TIDE's foreground threshold, and
        `background_threshold` its background one (and that of the label errors). `score_threshold`
        is the confusion matrix's and the per-image numbers'.
        """
        threshold = self.default_threshold() if iou_threshold is None else iou_threshold
        return {
            "protocol": self.table.protocol,
            "iou_threshold": threshold,
            "tide": self.tide(threshold, background_threshold).to_dict(),
            "confusion_matrix": self.confusion_matrix(threshold, score_threshold).to_dict(),
            # Calibration compares scores with frequencies: left out (None) when scores are not probabilities.
            "calibration": self.calibration(threshold).to_dict() if self.scores_are_probabilities() else None,
            "f_beta": self.f_beta(threshold).to_dict(),
            "per_image": self.per_image(threshold, score_threshold).to_records(),
            "label_errors": self.label_errors(threshold, background_threshold).to_records(),
        }
