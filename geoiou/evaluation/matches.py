"""Per-object results of a detection evaluation: what each prediction matched, and by what each ground truth was found.

pycocotools keeps them in ``evalImgs`` (``dtMatches``, ``gtMatches``, ``dtIgnore``); here they are
arrays over the rows of the inputs, one row per IoU threshold, and a table (`ObjectMatches.to_records`)
for error analysis: the false positives of one class, the ground truths no prediction found, the
IoU of each match.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from geoiou._placing import placed
from geoiou.evaluation.mergeable import part_starts

__all__ = ["ObjectMatches"]


class ObjectMatches:
    """Each prediction's match and each ground truth's finder, per IoU threshold.

    Rows are those of the inputs (``predictions`` and ``ground_truth`` as given to the evaluation).
    COCO's are for the area range ``"all"``, with its detection limit (predictions beyond
    ``max(max_detections)`` per image and category are not evaluated).

    Attributes
    ----------
    iou_thresholds : ndarray, shape (T,)
    prediction_match : ndarray of int64, shape (T, P)
        The ground-truth row each prediction matched, -1 where none.
    prediction_iou : ndarray of float64, shape (T, P)
        The IoU with that ground truth (IoF with a crowd region, as the evaluation measures it); NaN where none.
    true_positive : ndarray of bool, shape (T, P)
        Counted as a true positive.
    ignored : ndarray of bool, shape (T, P)
        Neither true nor false positive: matched to a crowd or ignored ground truth, or, for COCO,
        unmatched and outside the area range.
    evaluated : ndarray of bool, shape (P,)
        Within the detection limit; other predictions are neither (all False above).
    truth_match : ndarray of int64, shape (T, G)
        The prediction row that found each ground truth, -1 where none (for a crowd region, which
        several may match, the highest-scoring one).

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.evaluation import Annotations, evaluate_coco
    >>> truth = Annotations(image_id=[1, 1], category_id=[7, 7], region=geoiou.Box([[0, 0, 10, 10], [20, 20, 30, 30]]))
    >>> preds = Annotations(image_id=[1, 1], category_id=[7, 7], region=geoiou.Box([[0, 0, 10, 9], [50, 50, 60, 60]]),
    ...                     score=[0.9, 0.8])
    >>> matches = evaluate_coco(truth, preds).matches
    >>> matches.prediction_match[0].tolist(), matches.true_positive[0].tolist()  # at IoU 0.5
    ([0, -1], [True, False])
    >>> matches.truth_match[0].tolist()  # the second ground truth was missed
    [0, -1]
    >>> matches.to_records(0.5)[1]
    {'kind': 'prediction', 'row': 1, 'matched_row': None, 'iou': None, 'outcome': 'false positive'}
    """

    def __init__(
        self,
        iou_thresholds: np.ndarray,
        prediction_match: np.ndarray,
        prediction_iou: np.ndarray,
        true_positive: np.ndarray,
        ignored: np.ndarray,
        evaluated: np.ndarray,
        truth_match: np.ndarray,
    ) -> None:
        self.iou_thresholds = np.asarray(iou_thresholds, dtype=np.float64)
        self._pieces: tuple[MatchPositions, ...] = ()
        self._arrays: tuple[np.ndarray, ...] | None = (
            prediction_match,
            prediction_iou,
            true_positive,
            ignored,
            evaluated,
            truth_match,
        )
        self._sizes = (prediction_match.shape[-1], truth_match.shape[-1])

    @classmethod
    def from_pairs(
        cls,
        iou_thresholds: np.ndarray,
        outcome: np.ndarray,
        partner: np.ndarray,
        pair_gt: np.ndarray,
        pair_value: np.ndarray,
        dt_rows: np.ndarray,
        gt_rows: np.ndarray,
        n_predictions: int,
        n_truths: int,
    ) -> ObjectMatches:
        """From a matcher's decisions over its sorted positions and the candidate pairs they chose.

        ``dt_rows[d]`` and ``gt_rows[g]`` are the input rows of prediction position d and
        ground-truth position g. `outcome` ``(D, T)`` holds each evaluated prediction's code per
        threshold (`TRUE_POSITIVE`, `IGNORED`, otherwise a false positive) and `partner` ``(D, T)``
        the pair it counted with (-1: none); pair p joins ground-truth position ``pair_gt[p]`` with
        overlap ``pair_value[p]``. The per-row arrays are built when first read: an evaluation keeps
        these few bytes per evaluated prediction until then.
        """
        piece = MatchPositions(outcome, partner, pair_gt, pair_value, dt_rows, gt_rows, 0, 0)
        return cls._of_pieces(np.asarray(iou_thresholds, dtype=np.float64), (piece,), n_predictions, n_truths)

    @classmethod
    def _of_pieces(
        cls, iou_thresholds: np.ndarray, pieces: tuple[MatchPositions, ...], n_predictions: int, n_truths: int
    ) -> ObjectMatches:
        matches = cls.__new__(cls)
        matches.iou_thresholds, matches._pieces, matches._arrays = iou_thresholds, pieces, None
        matches._sizes = (n_predictions, n_truths)
        return matches

    @classmethod
    def concatenate(cls, parts: list[ObjectMatches]) -> ObjectMatches | None:
        """The matches of parts evaluated apart, as over their inputs joined in order (rows shifted by part sizes);
        None for no part."""
        if len(parts) <= 1:
            return parts[0] if parts else None
        n_predictions, n_truths = [part._sizes[0] for part in parts], [part._sizes[1] for part in parts]
        dt_start, gt_start = part_starts(n_predictions), part_starts(n_truths)
        if all(part._arrays is None for part in parts):  # still positions: shift them, build nothing
            pieces = tuple(
                piece.shifted(int(dt), int(gt))
                for part, dt, gt in zip(parts, dt_start, gt_start)
                for piece in part._pieces
            )
            return cls._of_pieces(parts[0].iou_thresholds, pieces, sum(n_predictions), sum(n_truths))

        def shifted(name: str, starts: np.ndarray) -> np.ndarray:
            return np.concatenate(
                [
                    np.where(getattr(part, name) >= 0, getattr(part, name) + start, -1)
                    for part, start in zip(parts, starts)
                ],
                axis=1,
            )

        def joined(name: str) -> np.ndarray:
            return np.concatenate([getattr(part, name) for part in parts], axis=-1)

        return cls(
            parts[0].iou_thresholds,
            shifted("prediction_match", gt_start),
            joined("prediction_iou"),
            joined("true_positive"),
            joined("ignored"),
            joined("evaluated"),
            shifted("truth_match", dt_start),
        )

    def _built(self) -> tuple[np.ndarray, ...]:
        if self._arrays is None:
            self._arrays = _rows_of(self.iou_thresholds, self._pieces, *self._sizes)
            self._pieces = ()
        return self._arrays

    @property
    def prediction_match(self) -> np.ndarray:
        """The ground-truth row each prediction matched, -1 where none ``(T, P)``."""
        return self._built()[0]

    @property
    def prediction_iou(self) -> np.ndarray:
        """The IoU (IoF with a crowd region) with that ground truth, NaN where none ``(T, P)``."""
        return self._built()[1]

    @property
    def true_positive(self) -> np.ndarray:
        """Counted as a true positive ``(T, P)``."""
        return self._built()[2]

    @property
    def ignored(self) -> np.ndarray:
        """Counted neither way ``(T, P)``."""
        return self._built()[3]

    @property
    def evaluated(self) -> np.ndarray:
        """Within the detection limit ``(P,)``."""
        return self._built()[4]

    @property
    def truth_match(self) -> np.ndarray:
        """The prediction row that found each ground truth, -1 where none ``(T, G)``."""
        return self._built()[5]

    def renumbered(self, prediction_row: np.ndarray, truth_row: np.ndarray) -> ObjectMatches:
        """The same matches with the rows renumbered: prediction row ``i`` becomes ``prediction_row[i]``, ground-truth
        row ``j`` becomes ``truth_row[j]`` (permutations: parts evaluated in another order than their inputs')."""
        return self.within(prediction_row, truth_row, len(prediction_row), len(truth_row))

    def within(
        self, prediction_row: np.ndarray, truth_row: np.ndarray, n_predictions: int, n_truths: int
    ) -> ObjectMatches:
        """The matches of some of the inputs' rows, as matches of all `n_predictions` and `n_truths` rows: prediction
        row ``i`` here is row ``prediction_row[i]`` there (the others are not evaluated), ground-truth row ``j`` is
        ``truth_row[j]`` (the others are found by none).

        Examples
        --------
        >>> import geoiou
        >>> from geoiou.evaluation import Annotations, evaluate_coco
        >>> truth = Annotations(image_id=[1], category_id=[7], region=geoiou.Box([[0, 0, 10, 10]]))
        >>> preds = Annotations(image_id=[1], category_id=[7], region=geoiou.Box([[0, 0, 10, 9]]), score=[0.9])
        >>> matches = evaluate_coco(truth, preds).matches.within(np.array([2]), np.array([1]), 3, 2)
        >>> matches.prediction_match[0].tolist(), matches.evaluated.tolist(), matches.truth_match[0].tolist()
        ([-1, -1, 1], [False, False, True], [-1, 2])
        """
        if self._arrays is None:  # still positions: their rows are mapped, nothing is built
            pieces = tuple(
                replace(
                    piece,
                    dt_rows=prediction_row[piece.dt_rows + piece.dt_offset],
                    gt_rows=truth_row[piece.gt_rows + piece.gt_offset],
                    dt_offset=0,
                    gt_offset=0,
                )
                for piece in self._pieces
            )
            return ObjectMatches._of_pieces(self.iou_thresholds, pieces, n_predictions, n_truths)

        prediction_match = np.where(self.prediction_match >= 0, truth_row[np.maximum(self.prediction_match, 0)], -1)
        truth_match = np.where(self.truth_match >= 0, prediction_row[np.maximum(self.truth_match, 0)], -1)
        return ObjectMatches(
            self.iou_thresholds,
            placed(prediction_match, prediction_row, n_predictions, -1),
            placed(self.prediction_iou, prediction_row, n_predictions, np.nan),
            placed(self.true_positive, prediction_row, n_predictions, False),
            placed(self.ignored, prediction_row, n_predictions, False),
            placed(self.evaluated, prediction_row, n_predictions, False),
            placed(truth_match, truth_row, n_truths, -1),
        )

    def _threshold_index(self, iou_threshold: float) -> int:
        found = np.flatnonzero(np.isclose(self.iou_thresholds, iou_threshold, rtol=0, atol=1e-12))
        if not found.size:
            from geoiou._validation import invalid_argument

            raise invalid_argument(
                "iou_threshold", f"one of the evaluation's thresholds {self.iou_thresholds.tolist()}", iou_threshold
            )
        return int(found[0])

    def to_records(self, iou_threshold: float = 0.5) -> list[dict[str, Any]]:
        """One record per prediction, then one per ground truth, at one of the evaluation's IoU thresholds.

        A prediction's ``outcome`` is ``"true positive"``, ``"false positive"``, ``"ignored"`` or
        ``"not evaluated"``; a ground truth's is ``"found"`` or ``"missed"`` (crowd and ignored
        regions are never missed: they count for nothing).
        """
        k = self._threshold_index(iou_threshold)
        outcome = np.where(
            ~self.evaluated,
            "not evaluated",
            np.where(self.true_positive[k], "true positive", np.where(self.ignored[k], "ignored", "false positive")),
        )
        records: list[dict[str, Any]] = []
        for row, (match, iou, what) in enumerate(
            zip(self.prediction_match[k].tolist(), self.prediction_iou[k].tolist(), outcome.tolist())
        ):
            records.append(
                {
                    "kind": "prediction",
                    "row": row,
                    "matched_row": None if match < 0 else match,
                    "iou": None if match < 0 else iou,
                    "outcome": what,
                }
            )
        for row, finder in enumerate(self.truth_match[k].tolist()):
            records.append(
                {
                    "kind": "ground_truth",
                    "row": row,
                    "matched_row": None if finder < 0 else finder,
                    "outcome": "missed" if finder < 0 else "found",
                }
            )
        return records


#: `MatchPositions.outcome` codes (those of `geoiou.evaluation.protocol_loops`): anything else is a false positive.
TRUE_POSITIVE, IGNORED = 1, 2


@dataclass(frozen=True)
class MatchPositions:
    """One matcher's decisions over its sorted positions, and where its rows start among all the rows.

    ``outcome`` and ``partner`` are ``(D, T)``: per evaluated prediction position and threshold,
    its code and the candidate pair it counted with (-1: none); ``pair_gt`` and ``pair_value`` give
    each pair's ground-truth position and overlap. ``dt_rows`` ``(D,)`` and ``gt_rows`` ``(G,)`` are
    the input rows of the positions, shifted by ``dt_offset`` and ``gt_offset`` in the rows of all parts.
    """

    outcome: np.ndarray
    partner: np.ndarray
    pair_gt: np.ndarray
    pair_value: np.ndarray
    dt_rows: np.ndarray
    gt_rows: np.ndarray
    dt_offset: int
    gt_offset: int

    def shifted(self, dt: int, gt: int) -> MatchPositions:
        """The same decisions with the rows shifted by `dt` and `gt` more."""
        return replace(self, dt_offset=self.dt_offset + dt, gt_offset=self.gt_offset + gt)


def _rows_of(
    iou_thresholds: np.ndarray, pieces: tuple[MatchPositions, ...], n_predictions: int, n_truths: int
) -> tuple[np.ndarray, ...]:
    """The per-row arrays of `ObjectMatches` from the positions of each piece."""
    n_thresholds = len(iou_thresholds)
    match = np.full((n_thresholds, n_predictions), -1, dtype=np.int64)
    prediction_iou = np.full((n_thresholds, n_predictions), np.nan)
    true_positive = np.zeros((n_thresholds, n_predictions), dtype=bool)
    ignored = np.zeros((n_thresholds, n_predictions), dtype=bool)
    evaluated = np.zeros(n_predictions, dtype=bool)
    truth_match = np.full((n_thresholds, n_truths), -1, dtype=np.int64)
    for piece in pieces:
        dt_rows, gt_rows = piece.dt_rows + piece.dt_offset, piece.gt_rows + piece.gt_offset
        partner = piece.partner.T  # (T, D)
        matched = partner >= 0
        # The sentinel pair len(pair_gt) reads ground-truth position len(gt_rows), whose row reads -1.
        gt_position = np.append(piece.pair_gt, len(gt_rows))[np.where(matched, partner, len(piece.pair_gt))]
        match[:, dt_rows] = np.append(gt_rows, -1)[gt_position]
        prediction_iou[:, dt_rows] = np.append(piece.pair_value, np.nan)[np.where(matched, partner, len(piece.pair_gt))]
        true_positive[:, dt_rows] = piece.outcome.T == TRUE_POSITIVE
        ignored[:, dt_rows] = piece.outcome.T == IGNORED
        evaluated[dt_rows] = True
        # Each ground truth's finder: the first position (best score) among the predictions matched to it.
        finder = np.full((n_thresholds, len(gt_rows)), len(dt_rows), dtype=np.int64)
        t, d = np.nonzero(matched)
        np.minimum.at(finder, (t, gt_position[t, d]), d)
        found = finder < len(dt_rows)
        truth_match[:, gt_rows] = np.where(found, np.append(dt_rows, -1)[finder], -1)
    return match, prediction_iou, true_positive, ignored, evaluated, truth_match
