"""Temporal action detection: mean average precision at temporal IoU thresholds.

Follows the ActivityNet detection protocol (``Evaluation/eval_detection.py`` of
activitynet/ActivityNet): per class, predictions are taken by decreasing score, and each one
claims the not yet claimed ground-truth segment of its video and class with the highest temporal
IoU (tIoU), if that tIoU reaches the threshold. Average precision is the all-point interpolated
area under the precision-recall curve (VOC 2011 and later); mAP averages it over the classes
of the ground truth, and the average mAP averages mAP over the thresholds.

ActivityNet reports thresholds ``0.50:0.05:0.95`` and their average; THUMOS14 results are
reported at ``0.3:0.1:0.7`` with the same matching (as in the Python evaluations that papers run
on THUMOS14). See ``docs/evaluation-temporal.md``.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from geoiou._progress import Phases
from geoiou._ranges import ragged_arange
from geoiou._validation import invalid_argument as _invalid, zero_division_value
from geoiou.evaluation.coco import CocoArrays, PairHook, PairSource
from geoiou.evaluation.matches import ObjectMatches
from geoiou.evaluation.mergeable import MergeableEvaluation, refuse_shared
from geoiou.evaluation.overlaps import CandidateOverlaps
from geoiou.metrics import iou_of_pairs
from geoiou.regions import Interval
from geoiou.tables.segments import TemporalSegments, as_segments

__all__ = [
    "ACTIVITYNET_TIOU_THRESHOLDS",
    "THUMOS14_TIOU_THRESHOLDS",
    "TemporalDetectionEvaluation",
    "TemporalDetectionResult",
    "TemporalSegments",
    "evaluate_temporal_detection",
    "interpolated_average_precision",
]


def _readonly(values: ArrayLike) -> np.ndarray:
    array = np.array(values, dtype=np.float64)
    array.flags.writeable = False
    return array


#: ActivityNet's thresholds, exactly as its evaluation builds them (so 0.9 is 0.8999999999999999).
ACTIVITYNET_TIOU_THRESHOLDS = _readonly(np.linspace(0.5, 0.95, 10))
#: The thresholds at which THUMOS14 results are reported.
THUMOS14_TIOU_THRESHOLDS = _readonly([0.3, 0.4, 0.5, 0.6, 0.7])
_NAMED_THRESHOLDS = {"activitynet": ACTIVITYNET_TIOU_THRESHOLDS, "thumos14": THUMOS14_TIOU_THRESHOLDS}


def _thresholds(value: str | ArrayLike) -> np.ndarray:
    if isinstance(value, str):
        if value not in _NAMED_THRESHOLDS:
            raise _invalid("tiou_thresholds", f"one of {tuple(_NAMED_THRESHOLDS)} or an array of numbers", value)
        return _NAMED_THRESHOLDS[value]
    thresholds = np.asarray(value, dtype=np.float64)
    if thresholds.ndim != 1 or thresholds.size == 0 or not np.all((thresholds >= 0) & (thresholds <= 1)):
        raise _invalid("tiou_thresholds", "a non-empty 1-D array of numbers in [0, 1]", value)
    return thresholds


def _codes(values: np.ndarray, index: dict[Hashable, int], param: str, what: str) -> np.ndarray:
    """Integer code of each value in `index`; an unknown value is an error naming it (`what` it must be).

    Strings and integers are coded by one sort of the keys and a binary search of the values (no
    Python per value); other hashables (or keys of mixed types) are looked up one by one.
    """
    keys, plain_values = _plain_array(list(index)), _plain_array(values.tolist())
    if keys is None or plain_values is None or (keys.dtype.kind == "U") != (plain_values.dtype.kind == "U"):
        try:
            return np.array([index[value] for value in values.tolist()], dtype=np.intp)
        except KeyError as error:
            raise _invalid(
                param, f"{what} of the ground truth", error.args[0], _near_miss(error.args[0], index)
            ) from None
    sorter = np.argsort(keys, kind="stable")
    found = np.minimum(np.searchsorted(keys[sorter], plain_values), max(len(keys) - 1, 0))
    known = keys[sorter][found] == plain_values if len(keys) else np.zeros(len(plain_values), dtype=bool)
    if not known.all():
        value = values[int(np.flatnonzero(~known)[0])]
        raise _invalid(param, f"{what} of the ground truth", value, _near_miss(value, index))
    codes: np.ndarray = (
        np.asarray([index[key] for key in keys[sorter].tolist()], dtype=np.intp)[found]
        if len(keys)
        else np.zeros(0, dtype=np.intp)
    )
    return codes


def _plain_array(values: list[Any]) -> np.ndarray | None:
    """`values` as an array of strings or of integers (not bools), or None for anything else."""
    kinds = set(map(type, values))
    if kinds <= {str}:
        return np.array(values, dtype=str) if values else np.zeros(0, dtype=str)
    if kinds <= {int, np.int64, np.int32}:
        return np.array(values, dtype=np.int64)
    return None


def _near_miss(value: Any, index: dict[Any, int]) -> str:
    """Why `value` is not among the keys of `index` when it nearly is: another type, or ActivityNet's ``v_`` prefix."""
    same_text = [key for key in index if str(key) == str(value)]
    if same_text:
        return (
            f": the types differ, the ground truth has {same_text[0]!r} ({type(same_text[0]).__name__}) and this "
            f"is {value!r} ({type(value).__name__})"
        )
    if isinstance(value, str):
        for key in (f"v_{value}", value[2:] if value.startswith("v_") else None):
            if key is not None and key in index:
                return f": the ground truth has {key!r}; ActivityNet's ids start with 'v_' in both files or in neither"
    examples = [key for key in list(index)[:3]]
    return f"; the ground truth has, for example, {', '.join(map(repr, examples))}" if examples else ""


def _class_labels(labels: np.ndarray) -> tuple[Hashable, ...]:
    unique = list(dict.fromkeys(labels.tolist()))
    try:
        return tuple(sorted(unique))
    except TypeError:  # labels of mixed types: keep the order of first appearance
        return tuple(unique)


# --------------------------------------------------------------------------- matching and AP
class _Matched(NamedTuple):
    """One part's matching: each prediction's outcome per threshold (by input row) and the per-object matches."""

    true_positive: np.ndarray
    matches: ObjectMatches


def _match(
    truth_key: np.ndarray,
    truth_coords: np.ndarray,
    prediction_key: np.ndarray,
    prediction_coords: np.ndarray,
    scores: np.ndarray,
    thresholds: np.ndarray,
    zero_division: float,
    show_progress: bool | None,
    widen: Callable[[PairSource], PairSource] | None = None,
) -> _Matched:
    """What each prediction matched at each threshold (true positives and their ground truth).

    A key names one (class, video). Claims never cross keys: the predictions of each key, by
    decreasing score (ties in input order), claim the unclaimed ground truth of that key with the
    highest tIoU if that reaches the threshold, the last of equal ones. This is ActivityNet's walk
    down the tIoU-sorted ground truth (``argsort()[::-1]``: a stable sort reversed, so of equal
    tIoUs the later segment first), skipping claimed ones and stopping at the first tIoU below the
    threshold; it is also COCO's greedy rule, so the same compiled loop runs it, keys in parallel.
    Only the pairs that can reach a threshold are measured (`_candidate_pairs`); `widen` may replace
    that pair source (a state's ``pair_hook``).
    """
    from geoiou.evaluation.protocol_loops import TRUE_POSITIVE, coco_greedy, sort_runs_by_score

    with Phases("temporal matching", 2, enabled=show_progress) as phases:
        truth_order = np.argsort(truth_key, kind="stable")
        ranked = np.argsort(prediction_key, kind="stable")
        key_start = _run_starts(prediction_key[ranked])
        sort_runs_by_score(ranked, key_start, scores)
        source = interval_pairs(truth_coords, prediction_coords, zero_division)
        if widen is not None:
            source = widen(source)
        n_truths = len(truth_key)
        found = source(
            ranked, truth_order, prediction_key[ranked], truth_key[truth_order], np.zeros(n_truths, dtype=bool),
            float(thresholds.min()),
        )  # fmt: skip
        phases.done("tIoU")
        outcome, partner, _ = coco_greedy(
            key_start,
            found.pair_start,
            found.pair_gt,
            found.value,
            np.zeros(n_truths, dtype=bool),
            np.zeros((n_truths, 1), dtype=bool),
            np.zeros((len(ranked), 1), dtype=bool),
            thresholds,
        )
        phases.done("matching")
    true_positive = np.zeros((len(thresholds), len(scores)), dtype=bool)
    true_positive[:, ranked] = outcome[:, :, 0].T == TRUE_POSITIVE
    matches = ObjectMatches.from_pairs(
        thresholds, outcome[:, :, 0], partner[:, :, 0], found.pair_gt, found.value, ranked, truth_order, len(scores),
        n_truths,
    )  # fmt: skip
    return _Matched(true_positive, matches)


def interval_pairs(truth_coords: np.ndarray, prediction_coords: np.ndarray, zero_division: float) -> PairSource:
    """The pair source of two sides' segments (rows of ``(start, end)``): the pairs of a key whose tIoU can reach the
    lowest threshold (`_candidate_pairs`), measured.

    Examples
    --------
    >>> source = interval_pairs(np.array([[0.0, 10.0], [20.0, 30.0]]), np.array([[1.0, 9.0]]), 0.0)
    >>> found = source(np.array([0]), np.array([0, 1]), np.array([0]), np.array([0, 0]), np.zeros(2, bool), 0.5)
    >>> found.pair_start.tolist(), found.pair_gt.tolist(), found.value.tolist()
    ([0, 1], [0], [0.8])
    """

    def pairs(
        dt_rows: np.ndarray,
        gt_rows: np.ndarray,
        dt_key: np.ndarray,
        gt_key: np.ndarray,
        gt_crowd: np.ndarray,
        at_least: float,
    ) -> CandidateOverlaps:
        predicted, truth = prediction_coords[dt_rows], truth_coords[gt_rows]
        pair_dt, pair_gt = _candidate_pairs(
            gt_key, truth, dt_key, predicted, min_threshold=at_least, zero_division=zero_division
        )
        tiou = iou_of_pairs(Interval(predicted), Interval(truth), pair_dt, pair_gt, zero_division=zero_division)
        return CandidateOverlaps(np.searchsorted(pair_dt, np.arange(len(dt_rows) + 1)).astype(np.int64), pair_gt, tiou)

    return pairs


def _run_starts(sorted_keys: np.ndarray) -> np.ndarray:
    """Where each run of equal keys starts, and the end."""
    return np.concatenate([[0], np.flatnonzero(sorted_keys[1:] != sorted_keys[:-1]) + 1, [len(sorted_keys)]]).astype(
        np.int64
    )


def _candidate_pairs(
    truth_key: np.ndarray,
    truth_coords: np.ndarray,
    prediction_key: np.ndarray,
    prediction_coords: np.ndarray,
    *,
    min_threshold: float,
    zero_division: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The (prediction, ground truth) positions of one key whose tIoU can reach a threshold, by prediction.

    Both sides come sorted by key. A pair of segments that do not overlap with positive length has
    tIoU 0, or `zero_division` when both are empty: with thresholds above 0 such pairs never
    match, unless `zero_division` reaches one (then the pairs of two empty segments are added).
    A threshold of 0 is reached by every pair: then every pair of a key is a candidate.
    """
    from geoiou.kernels.candidates import candidate_pairs

    if min_threshold <= 0:
        return _every_pair(truth_key, prediction_key)
    pair_dt, pair_gt = candidate_pairs(prediction_coords, truth_coords, prediction_key, truth_key)
    if zero_division >= min_threshold:
        empty_dt = np.flatnonzero(prediction_coords[:, 0] == prediction_coords[:, 1])
        empty_gt = np.flatnonzero(truth_coords[:, 0] == truth_coords[:, 1])
        extra_dt, extra_gt = _every_pair(truth_key[empty_gt], prediction_key[empty_dt])
        pair_dt = np.concatenate([pair_dt, empty_dt[extra_dt]])
        pair_gt = np.concatenate([pair_gt, empty_gt[extra_gt]])
        order = np.lexsort((pair_gt, pair_dt))
        pair_dt, pair_gt = pair_dt[order], pair_gt[order]
    return pair_dt, pair_gt


def _every_pair(truth_key: np.ndarray, prediction_key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (prediction, ground truth) pair of positions that share a key (both sides sorted by key)."""
    first = np.searchsorted(truth_key, prediction_key, side="left")
    count = np.searchsorted(truth_key, prediction_key, side="right") - first
    pair_gt, pair_dt = ragged_arange(first, first + count)
    return pair_dt, pair_gt


def interpolated_average_precision(true_positive: ArrayLike, num_truths: int) -> float | np.ndarray:
    """All-point interpolated AP of ranked detections (VOC 2011 and later, as ActivityNet computes it).

    Precision is made non-increasing in recall (each value replaced by the best precision at
    any higher recall) and integrated over recall: every true positive raises recall by
    ``1 / num_truths`` and adds the interpolated precision at its rank.

    Parameters
    ----------
    true_positive : array_like of bool, shape (..., P)
        For detections ranked by decreasing score, whether each one is a true positive.
    num_truths : int
        Number of ground-truth instances (positive).

    Returns
    -------
    float or ndarray of shape (...)
        AP in ``[0, 1]`` (a float for one ranking); 0 when there are no detections.

    Examples
    --------
    >>> interpolated_average_precision([True, False, True], num_truths=4)  # (1 + 2/3) / 4
    0.41666666666666663
    """
    true_positive = np.asarray(true_positive, dtype=bool)
    if true_positive.shape[-1] == 0:
        return np.zeros(true_positive.shape[:-1]) if true_positive.ndim > 1 else 0.0
    ranks = np.arange(1, true_positive.shape[-1] + 1)
    precision = np.cumsum(true_positive, axis=-1) / ranks
    interpolated = np.flip(np.maximum.accumulate(np.flip(precision, -1), axis=-1), -1)
    ap = np.sum(interpolated, axis=-1, where=true_positive) / num_truths
    return float(ap) if np.ndim(ap) == 0 else ap


# --------------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class TemporalDetectionResult:
    """Average precision per class and threshold, and the mAP built from it.

    Attributes
    ----------
    tiou_thresholds : ndarray, shape (T,)
        The tIoU thresholds.
    labels : tuple, length C
        The classes: every label of the ground truth, sorted.
    ap : ndarray, shape (T, C)
        AP of each class at each threshold, in ``[0, 1]``.
    num_truths, num_predictions : ndarray of int, shape (C,)
        Segments of each class in the ground truth and in the predictions.
    num_videos : int
        Videos of the ground truth.
    matches : ObjectMatches
        Per prediction and ground-truth segment, at each tIoU threshold: which segment each
        prediction claimed (rows of the inputs), with which tIoU, and which prediction found each
        segment (``to_records`` for error analysis).
    """

    tiou_thresholds: np.ndarray
    labels: tuple[Hashable, ...]
    ap: np.ndarray
    num_truths: np.ndarray
    num_predictions: np.ndarray
    num_videos: int
    matches: ObjectMatches | None = None

    @property
    def mean_ap(self) -> np.ndarray:
        """mAP at each threshold, shape (T,): the mean of `ap` over the classes."""
        mean_ap: np.ndarray = self.ap.mean(axis=1)
        return mean_ap

    @property
    def average_mean_ap(self) -> float:
        """ActivityNet's "average mAP": the mean of `mean_ap` over the thresholds."""
        return float(self.mean_ap.mean())

    def mean_ap_at(self, threshold: float) -> float:
        """mAP at one of the thresholds (matched to within 1e-9, so 0.9 finds 0.8999999999999999)."""
        found = np.flatnonzero(np.isclose(self.tiou_thresholds, threshold, rtol=0, atol=1e-9))
        if found.size == 0:
            raise _invalid("threshold", f"one of {np.round(self.tiou_thresholds, 4).tolist()}", threshold)
        return float(self.mean_ap[found[0]])

    def ap_per_class(self) -> dict[Hashable, np.ndarray]:
        """AP of each class at every threshold: ``{label: array of shape (T,)}``."""
        return {label: self.ap[:, column] for column, label in enumerate(self.labels)}

    def summary(self) -> str:
        """A table of mAP (in percent) at each threshold and on average."""
        lines = [
            f"Temporal action detection: {len(self.labels)} classes, {self.num_videos} videos, "
            f"{int(self.num_truths.sum())} ground-truth segments, {int(self.num_predictions.sum())} predictions",
            "tIoU  mAP (%)",
        ]
        rows = zip(self.tiou_thresholds, self.mean_ap)
        lines += [f"{threshold:.2f}  {100 * value:7.2f}" for threshold, value in rows]
        lines.append(f"avg   {100 * self.average_mean_ap:7.2f}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values (fractions in ``[0, 1]``), ready for JSON."""
        names = [f"mAP@{threshold:.2f}" for threshold in self.tiou_thresholds]
        return {
            "protocol": "activitynet",
            "headline": {"average_mAP": self.average_mean_ap, **dict(zip(names, self.mean_ap.tolist()))},
            "per_category": [
                {
                    "category_id": label,
                    "AP": float(self.ap[:, column].mean()),
                    **dict(
                        zip((f"AP@{threshold:.2f}" for threshold in self.tiou_thresholds), self.ap[:, column].tolist())
                    ),
                }
                for column, label in enumerate(self.labels)
            ],
            "tiou_thresholds": self.tiou_thresholds.tolist(),
            "mAP": self.mean_ap.tolist(),
            "average_mAP": self.average_mean_ap,
            "num_videos": self.num_videos,
            "per_class": [
                {
                    "label": label,
                    "AP": self.ap[:, column].tolist(),
                    "num_truths": int(self.num_truths[column]),
                    "num_predictions": int(self.num_predictions[column]),
                }
                for column, label in enumerate(self.labels)
            ],
        }

    def to_json(self, *, indent: int | None = None) -> str:
        """`to_dict` as a JSON string."""
        return json.dumps(self.to_dict(), indent=indent)

    def __repr__(self) -> str:
        return (
            f"TemporalDetectionResult(average_mAP={self.average_mean_ap:.4f}, "
            f"classes={len(self.labels)}, thresholds={len(self.tiou_thresholds)})"
        )


# --------------------------------------------------------------------------- evaluation
def evaluate_temporal_detection(
    ground_truth: TemporalSegments | Mapping[Hashable, Iterable[Any]],
    predictions: TemporalSegments | Mapping[Hashable, Iterable[Any]],
    *,
    tiou_thresholds: str | ArrayLike = "activitynet",
    zero_division: float = 0.0,
    show_progress: bool | None = None,
) -> TemporalDetectionResult:
    """Mean average precision of temporal action detections at tIoU thresholds (ActivityNet protocol).

    For each class of the ground truth and each threshold, predictions are ranked by score
    (ties keep their input order) and each claims the unclaimed ground-truth segment of its
    video and class with the highest tIoU, if that tIoU reaches the threshold; otherwise it is a
    false positive. AP is the all-point interpolated area under the precision-recall curve,
    with every ground-truth segment of the class in the recall's denominator. mAP is the mean
    over the classes and the average mAP the mean over the thresholds.

    Parameters
    ----------
    ground_truth : TemporalSegments or mapping
        The annotated segments; a mapping ``video -> records`` is read by
        `TemporalSegments.from_records`. Its videos are the evaluated videos (a video with no
        segments counts: predictions there are false positives); its labels are the classes.
    predictions : TemporalSegments or mapping
        The detections, each with a score.
    tiou_thresholds : {"activitynet", "thumos14"} or array_like of float, default "activitynet"
        ``"activitynet"``: ``np.linspace(0.5, 0.95, 10)``; ``"thumos14"``: 0.3, 0.4, 0.5, 0.6, 0.7;
        or any thresholds in ``[0, 1]``.
    zero_division : float, default 0.0
        The tIoU of two zero-length segments (their union is empty, so tIoU is 0/0), as in
        `geoiou.iou`. With the default 0.0 a zero-length ground-truth segment is never matched
        (its tIoU with any prediction is 0) and counts as a miss; ActivityNet's evaluation does
        the same for predictions of positive length. 1.0 lets a zero-length prediction match any
        zero-length ground truth of its video and class (wherever it lies: the union of two
        points is empty). NaN is refused.
    show_progress : bool, optional
        Draw a progress bar over the (class, video) groups; by default only on a terminal.

    Returns
    -------
    TemporalDetectionResult
        AP per class and threshold, mAP and average mAP, `summary()` and `to_json()`.

    Raises
    ------
    InvalidArgumentError
        For a NaN or infinite time or score, ``end < start``, predictions without scores,
        predictions for a video or a label that the ground truth does not have, a ground truth
        without segments, or bad options.

    Notes
    -----
    Of ground-truth segments with equal tIoU, the later one (in input order) is claimed first, as
    ActivityNet's ``argsort()[::-1]`` walk does: so a prediction overlapping two segments equally
    leaves the earlier one to the next prediction. Predictions of equal score keep their input
    order (the earlier first); ActivityNet's own sort orders such ties by its sort algorithm, so
    with tied scores its numbers may differ. With distinct scores the two agree exactly.

    Examples
    --------
    >>> truth = {"v1": [(0, 10, "jump"), (20, 30, "run")], "v2": [(5, 15, "jump")]}
    >>> predictions = {"v1": [(0, 9, "jump", 0.9), (21, 30, "run", 0.8), (50, 60, "jump", 0.7)],
    ...                "v2": [(5, 13, "jump", 0.6)]}
    >>> result = evaluate_temporal_detection(truth, predictions, tiou_thresholds="thumos14")
    >>> result.mean_ap.round(4)  # "run": AP 1; "jump": a false positive ranks between its two hits
    array([0.9167, 0.9167, 0.9167, 0.9167, 0.9167])
    >>> result.ap_per_class()["jump"].round(4)
    array([0.8333, 0.8333, 0.8333, 0.8333, 0.8333])
    >>> print(result.summary())  # doctest: +NORMALIZE_WHITESPACE
    Temporal action detection: 2 classes, 2 videos, 3 ground-truth segments, 4 predictions
    tIoU  mAP (%)
    0.30    91.67
    0.40    91.67
    0.50    91.67
    0.60    91.67
    0.70    91.67
    avg     91.67
    """
    evaluation = TemporalDetectionEvaluation(
        tiou_thresholds=tiou_thresholds, zero_division=zero_division, show_progress=show_progress
    )
    return evaluation.update(ground_truth, predictions).compute()


@dataclass(frozen=True)
class _TemporalPart:
    """What one part leaves for `TemporalDetectionEvaluation.compute`: labels, scores and outcomes, no segments."""

    videos: tuple[Hashable, ...]
    truth_label: np.ndarray
    prediction_label: np.ndarray
    score: np.ndarray
    true_positive: np.ndarray
    matches: ObjectMatches


@dataclass(frozen=True)
class TemporalDetectionSettings:
    """The checked settings of a `TemporalDetectionEvaluation` (what `merge` compares)."""

    tiou_thresholds: np.ndarray
    zero_division: float


class TemporalDetectionEvaluation(MergeableEvaluation[TemporalDetectionResult]):
    """Temporal detection mAP accumulated part by part (videos split across parts): `update`, `merge`, `compute`.

    Each video, with its ground truth and predictions, belongs to one part. Ties of score keep
    the input order, which across parts is the order they are merged in: then the result is
    exactly `evaluate_temporal_detection`'s on all the videos at once. The parameters are those
    of `evaluate_temporal_detection`.

    Examples
    --------
    >>> evaluation = TemporalDetectionEvaluation(tiou_thresholds=[0.5])
    >>> _ = evaluation.update({"v1": [(0, 10, "jump")]}, {"v1": [(0, 9, "jump", 0.9)]})
    >>> _ = evaluation.update({"v2": [(5, 15, "jump")]}, {"v2": [(30, 40, "jump", 0.8)]})
    >>> evaluation.compute().mean_ap  # the first ranked is found, the second a false positive: AP = 1 / 2
    array([0.5])
    """

    settings: TemporalDetectionSettings
    #: Set by `geoiou.diagnostics` on the state it updates (see `geoiou.evaluation.coco.PairHook`): images are
    #: videos, categories labels.
    pair_hook: PairHook | None = None

    def __init__(
        self,
        *,
        tiou_thresholds: str | ArrayLike = "activitynet",
        zero_division: float = 0.0,
        show_progress: bool | None = None,
    ) -> None:
        self._start(
            TemporalDetectionSettings(
                tiou_thresholds=_thresholds(tiou_thresholds),
                zero_division=zero_division_value(zero_division, allow_nan=False),
            )
        )
        self.show_progress = show_progress

    def update(
        self,
        ground_truth: TemporalSegments | Mapping[Hashable, Iterable[Any]],
        predictions: TemporalSegments | Mapping[Hashable, Iterable[Any]],
    ) -> TemporalDetectionEvaluation:
        """Match the predictions of one part's videos; return ``self``.

        A prediction's label needs ground truth in some part, not necessarily this one (checked
        by `compute`); its video must be one of this part's.
        """
        truth = as_segments(ground_truth, "ground_truth")
        predictions = as_segments(predictions, "predictions")
        if len(predictions) and predictions.score is None:
            raise _invalid("predictions", "scored (each prediction needs a 'score')", "no scores")
        # Labels of this part: the ground truth's, then those only predicted (false positives here).
        labels = _class_labels(np.concatenate([truth.label, predictions.label]))
        label_index = {label: code for code, label in enumerate(labels)}
        video_index = {video: code for code, video in enumerate(truth.videos)}
        num_videos = len(truth.videos)
        # One integer key per (class, video): matching never crosses keys.
        truth_key = _codes(truth.label, label_index, "label", "labelled with classes") * num_videos + _codes(
            truth.video_id, video_index, "video_id", "for videos"
        )
        prediction_key = _codes(
            predictions.label, label_index, "predictions", "labelled with classes"
        ) * num_videos + _codes(predictions.video_id, video_index, "predictions", "for videos")
        scores = predictions.score if predictions.score is not None else np.zeros(0)
        widen = None
        if self.pair_hook is not None:
            data = CocoArrays(
                num_videos, len(labels), truth_key % num_videos, truth_key // num_videos, np.zeros(len(truth), bool),
                np.zeros(len(truth), bool), truth.end - truth.start, prediction_key % num_videos,
                prediction_key // num_videos, scores, predictions.end - predictions.start,
            )  # fmt: skip
            widen = _hooked(self.pair_hook, data, np.array(truth.videos, dtype=object), np.array(labels, dtype=object))
        matched = _match(
            truth_key,
            _coords(truth),
            prediction_key,
            _coords(predictions),
            scores,
            self.settings.tiou_thresholds,
            self.settings.zero_division,
            self.show_progress,
            widen,
        )
        self._parts.append(
            _TemporalPart(
                tuple(truth.videos), truth.label, predictions.label, scores, matched.true_positive, matched.matches
            )
        )
        return self

    def compute(self) -> TemporalDetectionResult:
        """AP per class and threshold over every part, predictions ranked across all videos."""
        parts = self._parts
        videos = [video for part in parts for video in part.videos]
        refuse_shared(videos, "video")
        truth_label = np.concatenate([np.zeros(0, object)] + [part.truth_label for part in parts])
        if not len(truth_label):  # no classes to average over
            raise _invalid("ground_truth", "at least one segment", "none")
        labels = _class_labels(truth_label)
        label_index = {label: code for code, label in enumerate(labels)}
        truth_code = _codes(truth_label, label_index, "label", "labelled with classes")
        prediction_label = _codes(
            np.concatenate([np.zeros(0, object)] + [part.prediction_label for part in parts]),
            label_index,
            "predictions",
            "labelled with classes",
        )
        scores = np.concatenate([np.zeros(0)] + [part.score for part in parts])
        matches = ObjectMatches.concatenate([part.matches for part in parts])
        true_positive = np.concatenate(
            [np.zeros((len(self.settings.tiou_thresholds), 0), bool)] + [part.true_positive for part in parts], axis=1
        )
        num_truths = np.bincount(truth_code, minlength=len(labels))
        num_predictions = np.bincount(prediction_label, minlength=len(labels))
        # By class, then by decreasing score (lexsort is stable: equal scores keep input order).
        ranked = np.split(np.lexsort((-scores, prediction_label)), np.cumsum(num_predictions)[:-1])
        ap = np.stack(
            [
                interpolated_average_precision(true_positive[:, rows], int(num_truths[code]))
                for code, rows in enumerate(ranked)
            ],
            axis=1,
        )
        return TemporalDetectionResult(
            tiou_thresholds=self.settings.tiou_thresholds.copy(),
            labels=labels,
            ap=ap,
            num_truths=num_truths,
            num_predictions=num_predictions,
            num_videos=len(videos),
            matches=matches,
        )


def _hooked(
    hook: PairHook, data: CocoArrays, videos: np.ndarray, labels: np.ndarray
) -> Callable[[PairSource], PairSource]:
    """A part's pair source as `hook` makes it, the part's rows coded by `data` into `videos` and `labels`."""
    return lambda source: hook(source, data, videos, labels)


def _coords(segments: TemporalSegments) -> np.ndarray:
    return np.stack([segments.start, segments.end], axis=-1)
