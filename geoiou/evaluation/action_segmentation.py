"""Temporal action segmentation: frame accuracy, edit score and segmental F1@k from frame-wise labels.

These are the metrics of MS-TCN (Abu Farha and Gall, CVPR 2019) and the work that reuses its
evaluation script (``eval.py`` of yabufarha/ms-tcn), computed with geoiou intervals:

- frame accuracy: correct frames over all frames of all videos (in percent);
- edit score: per video ``100 * (1 - d / max(m, n))`` with ``d`` the Levenshtein distance
  between the label sequences of the ``m`` predicted and ``n`` true segments; the mean over videos;
- F1@k: a predicted segment is a true positive when its label's best-overlapping true segment
  reaches IoU ``k`` and was not hit before; TP, FP and FN are summed over all videos and F1 is
  computed once from the sums (in percent).

Segments are maximal runs of equal labels, as half-open frame intervals ``[start, end)``;
background runs are left out. The 2019 release of the script ended the last segment of every
sequence one frame early; ``mstcn_2019_compat=True`` reproduces that (see
``docs/evaluation-temporal.md``).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from geoiou._validation import invalid_argument as _invalid
from geoiou.evaluation.mergeable import MergeableEvaluation, refuse_shared
from geoiou.metrics import iou
from geoiou.regions import Interval

__all__ = [
    "ActionSegmentationEvaluation",
    "ActionSegmentationResult",
    "edit_score",
    "evaluate_action_segmentation",
    "frame_segments",
]

#: MS-TCN's default background label.
DEFAULT_BACKGROUND = ("background",)
_DEFAULT_BACKGROUND_SET = frozenset(DEFAULT_BACKGROUND)
#: MS-TCN reports F1 at IoU 0.10, 0.25 and 0.50.
DEFAULT_OVERLAPS = (0.1, 0.25, 0.5)


# --------------------------------------------------------------------------- segments
def frame_segments(
    frame_labels: ArrayLike,
    *,
    background: Iterable[Hashable] | str = DEFAULT_BACKGROUND,
    mstcn_2019_compat: bool = False,
) -> tuple[np.ndarray, Interval]:
    """Split frame-wise labels into segments: the label and frame interval of each non-background run.

    Parameters
    ----------
    frame_labels : array_like, shape (F,)
        One label per frame (ints or strings), F >= 1.
    background : label or iterable of labels, default ("background",)
        Labels whose runs are not segments.
    mstcn_2019_compat : bool, default False
        End the last run at frame ``F - 1`` instead of ``F``, as the 2019 MS-TCN script did (a
        final one-frame segment becomes empty).

    Returns
    -------
    labels : ndarray, shape (S,)
        The label of each segment, in temporal order.
    intervals : Interval, shape (S,)
        The frames ``[start, end)`` of each segment.

    Examples
    --------
    >>> labels, intervals = frame_segments(["bg", "cut", "cut", "bg", "pour", "pour"], background="bg")
    >>> labels.tolist(), intervals.to_array().tolist()
    (['cut', 'pour'], [[1.0, 3.0], [4.0, 6.0]])
    >>> frame_segments(["bg", "cut", "cut", "bg", "pour", "pour"], background="bg",
    ...                mstcn_2019_compat=True)[1].to_array().tolist()  # the last one ends a frame early
    [[1.0, 3.0], [4.0, 5.0]]
    """
    labels = _as_frame_labels(frame_labels, "frame_labels")
    segment_labels, bounds = _segments(labels, _background_set(background), mstcn_2019_compat)
    return segment_labels, Interval(bounds)


def _segments(
    labels: np.ndarray, background: frozenset[Hashable], mstcn_2019_compat: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Labels ``(S,)`` and frame bounds ``(S, 2)`` of the non-background runs."""
    if background == _DEFAULT_BACKGROUND_SET and labels.dtype.kind in "iu":
        _warn_integer_labels(stacklevel=4)
    changes = np.flatnonzero(labels[1:] != labels[:-1]) + 1
    starts = np.concatenate(([0], changes))
    ends = np.concatenate((changes, [len(labels)]))
    if mstcn_2019_compat:
        # The 2019 script closed the final run with the index of the last frame, `len - 1`.
        ends[-1] -= 1
    run_labels = labels[starts]
    keep = np.array([label not in background for label in run_labels.tolist()], dtype=bool)
    return run_labels[keep], np.stack([starts[keep], ends[keep]], axis=-1)


def _warn_integer_labels(stacklevel: int = 3) -> None:
    # The default "background" cannot be an integer label: every run, background included, becomes a segment.
    warnings.warn(
        "the background label 'background' (the default) cannot occur among integer frame labels, so "
        "no frame is background and the background class counts as an action; pass background=0 "
        "(or the index of your background class, as in MS-TCN's mapping.txt)",
        UserWarning,
        stacklevel=stacklevel,
    )


def _label_codes(sequences: list[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
    """Each sequence's labels as integer codes into the distinct labels of all of them (returned too).

    Labels of one type are coded by one sort of all of them joined; sequences whose labels differ
    in type (ints in one video, strings in another) are joined as Python objects, so that 1 and
    "1" stay two labels.
    """
    if len({labels.dtype.kind for labels in sequences}) > 1:
        sequences = [labels.astype(object) for labels in sequences]
    joined = np.concatenate(sequences)
    try:
        labels, inverse = np.unique(joined, return_inverse=True)
    except TypeError:  # objects of several types: no order among them
        index: dict[Hashable, int] = {}
        inverse = np.array([index.setdefault(label, len(index)) for label in joined.tolist()], dtype=np.int64)
        labels = np.array(list(index), dtype=object)
    inverse = inverse.reshape(-1).astype(np.int64)
    return np.split(inverse, np.cumsum([len(labels_) for labels_ in sequences])[:-1]), labels


def _background_set(background: Iterable[Hashable] | str | int) -> frozenset[Hashable]:
    # One label, not an iterable of characters. Every int is a scalar to numpy too: the isinstance only
    # tells the type checker that what is left is iterable.
    if np.isscalar(background) or isinstance(background, int):
        background = (background,)
    try:
        return frozenset(label.item() if isinstance(label, np.generic) else label for label in background)
    except TypeError:
        raise _invalid("background", "a label or an iterable of hashable labels", background) from None


def _as_frame_labels(values: ArrayLike, param: str, where: str = "") -> np.ndarray:
    labels = np.asarray(values)
    if labels.ndim != 1 or labels.size == 0:
        raise _invalid(param, "a non-empty 1-D sequence of frame labels", f"shape {labels.shape}", where)
    return labels


# --------------------------------------------------------------------------- per-video measures
def _levenshtein(a: np.ndarray, b: np.ndarray) -> int:
    """Edit distance between two label sequences (insertions, deletions, substitutions cost 1).

    One row of the dynamic program at a time: substitutions and deletions come from the row
    above in one vectorized step; insertions chain along the row, which a running minimum of
    ``row[k] - k`` resolves (``row[j] = min over k <= j of row[k] + (j - k)``).
    """
    if len(a) > len(b):  # the distance is symmetric: loop over the shorter sequence
        a, b = b, a
    columns = np.arange(len(b) + 1)
    row = columns
    for i, label in enumerate(a.tolist(), start=1):
        from_above = np.minimum(row[:-1] + (b != label), row[1:] + 1)
        row = np.minimum.accumulate(np.concatenate(([i], from_above)) - columns) + columns
    return int(row[-1])


def _edit(truth_labels: np.ndarray, predicted_labels: np.ndarray) -> float:
    longest = max(len(truth_labels), len(predicted_labels))
    if longest == 0:  # no segment on either side: they agree (MS-TCN computes 0/0 = NaN here)
        return 100.0
    return 100.0 * (1 - _levenshtein(predicted_labels, truth_labels) / longest)


def edit_score(
    ground_truth: ArrayLike, prediction: ArrayLike, *, background: Iterable[Hashable] | str = DEFAULT_BACKGROUND
) -> float:
    """Edit score of one video: ``100 * (1 - d / max(m, n))`` over the segment label sequences.

    ``d`` is the Levenshtein distance between the labels of the predicted and the true
    segments (background runs left out). It ignores where segments lie, so it is the same with
    and without MS-TCN's 2019 off-by-one. When neither sequence has a segment the score is 100.

    Examples
    --------
    >>> edit_score(["a", "a", "b", "b"], ["a", "b", "a", "b"])  # segments a b vs a b a b: d = 2
    50.0
    >>> edit_score(["bg", "bg"], ["bg", "bg"], background="bg")  # no segments on either side
    100.0
    """
    truth = _as_frame_labels(ground_truth, "ground_truth")
    predicted = _as_frame_labels(prediction, "prediction")
    background = _background_set(background)
    return _edit(_segments(truth, background, False)[0], _segments(predicted, background, False)[0])


def _segment_hits(
    truth: tuple[np.ndarray, np.ndarray], predicted: tuple[np.ndarray, np.ndarray], overlaps: np.ndarray
) -> np.ndarray:
    """True positives, false positives and false negatives at each overlap, shape ``(K, 3)``.

    MS-TCN's rule: each predicted segment, in temporal order, looks only at the true segment of
    its label with the highest IoU (the first of equal ones); it is a true positive if that IoU
    reaches the overlap and that segment was not hit before, otherwise a false positive. So the
    true positives are the distinct true segments that some prediction reaching the overlap
    points at. When a video has no true segments, every predicted one is a false positive.
    """
    (truth_labels, truth_bounds), (predicted_labels, predicted_bounds) = truth, predicted
    true_positives = np.zeros(len(overlaps), dtype=np.int64)
    if len(truth_labels) and len(predicted_labels):
        # Empty segments (only in compat mode) overlap nothing: IoU 0, never a hit.
        tiou = np.asarray(iou(Interval(predicted_bounds[:, None]), Interval(truth_bounds[None, :]), zero_division=0.0))
        tiou[predicted_labels[:, None] != truth_labels[None, :]] = 0.0
        best = tiou.argmax(axis=1)
        best_tiou = tiou[np.arange(len(best)), best]
        true_positives = np.array([len(np.unique(best[best_tiou >= overlap])) for overlap in overlaps])
    false_positives = len(predicted_labels) - true_positives
    false_negatives = len(truth_labels) - true_positives
    return np.stack([true_positives, false_positives, false_negatives], axis=1)


# --------------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class ActionSegmentationResult:
    """Frame accuracy, edit score and F1@k over a set of videos, as MS-TCN aggregates them.

    Attributes
    ----------
    accuracy : float
        Correct frames over all frames, in percent.
    edit : float
        Mean over videos of the per-video edit score (percent).
    overlaps : ndarray, shape (K,)
        The IoU thresholds k of F1@k.
    f1 : ndarray, shape (K,)
        F1 in percent from the TP, FP and FN summed over videos (0 where undefined).
    counts : ndarray of int, shape (K, 3)
        Summed true positives, false positives and false negatives at each overlap.
    edit_per_video, accuracy_per_video : ndarray, shape (V,)
        The per-video values (percent), in the order of `videos`.
    num_frames : int
        Frames of all videos.
    mstcn_2019_compat : bool
        Whether segments were cut the 2019 way.
    videos : tuple
        The video of each per-video value: the keys when the videos were given as a mapping, their
        positions 0, 1, ... when given as a sequence. `per_video` pairs them with the values.
    """

    accuracy: float
    edit: float
    overlaps: np.ndarray
    f1: np.ndarray
    counts: np.ndarray
    edit_per_video: np.ndarray
    accuracy_per_video: np.ndarray
    num_frames: int
    mstcn_2019_compat: bool
    videos: tuple[Any, ...] = ()

    def per_video(self) -> dict[Any, dict[str, float]]:
        """``{video: {"accuracy": ..., "edit": ...}}`` (percent), keyed as the videos were given.

        Examples
        --------
        >>> truth, predicted = {"a": [0, 0, 1, 1], "b": [2, 2, 2]}, {"a": [0, 1, 1, 1], "b": [2, 2, 2]}
        >>> result = evaluate_action_segmentation(truth, predicted, background=())  # integer labels, no background
        >>> result.per_video()["a"]
        {'accuracy': 75.0, 'edit': 100.0}
        """
        return {
            video: {"accuracy": float(accuracy), "edit": float(edit)}
            for video, accuracy, edit in zip(self.videos, self.accuracy_per_video, self.edit_per_video)
        }

    @property
    def precision(self) -> np.ndarray:
        """Segmental precision at each overlap, in percent (0 where there are no predicted segments)."""
        true_positives, false_positives, _ = self.counts.T
        return 100 * _ratio(true_positives, true_positives + false_positives)

    @property
    def recall(self) -> np.ndarray:
        """Segmental recall at each overlap, in percent (0 where there are no true segments)."""
        true_positives, _, false_negatives = self.counts.T
        return 100 * _ratio(true_positives, true_positives + false_negatives)

    def f1_at(self, overlap: float) -> float:
        """F1 (percent) at one of the overlaps."""
        found = np.flatnonzero(np.isclose(self.overlaps, overlap, rtol=0, atol=1e-9))
        if found.size == 0:
            raise _invalid("overlap", f"one of {self.overlaps.tolist()}", overlap)
        return float(self.f1[found[0]])

    def summary(self) -> str:
        """One line per metric, in percent, in the layout of MS-TCN's output."""
        mode = " (MS-TCN 2019 segment ends)" if self.mstcn_2019_compat else ""
        lines = [
            f"Action segmentation: {len(self.edit_per_video)} videos, {self.num_frames} frames{mode}",
            f"Acc: {self.accuracy:.4f}",
            f"Edit: {self.edit:.4f}",
        ]
        lines += [f"F1@{overlap:0.2f}: {value:.4f}" for overlap, value in zip(self.overlaps, self.f1)]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values (percentages), ready for JSON."""
        return {
            "protocol": "action_segmentation",
            "headline": {
                "accuracy": self.accuracy,
                "edit": self.edit,
                **{f"F1@{overlap:0.2f}": float(value) for overlap, value in zip(self.overlaps, self.f1)},
            },
            "per_image": [{"video_id": video, **values} for video, values in self.per_video().items()],
            "accuracy": self.accuracy,
            "edit": self.edit,
            "f1": {f"{overlap:g}": float(value) for overlap, value in zip(self.overlaps, self.f1)},
            "counts": {
                f"{overlap:g}": dict(zip(("tp", "fp", "fn"), map(int, row)))
                for overlap, row in zip(self.overlaps, self.counts)
            },
            "num_videos": len(self.edit_per_video),
            "num_frames": self.num_frames,
            "mstcn_2019_compat": self.mstcn_2019_compat,
        }

    def to_json(self, *, indent: int | None = None) -> str:
        """`to_dict` as a JSON string."""
        return json.dumps(self.to_dict(), indent=indent)

    def __repr__(self) -> str:
        f1 = ", ".join(f"F1@{overlap:g}={value:.2f}" for overlap, value in zip(self.overlaps, self.f1))
        return f"ActionSegmentationResult(accuracy={self.accuracy:.2f}, edit={self.edit:.2f}, {f1})"


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator``, 0 where the denominator is 0 (as MS-TCN's ``nan_to_num``)."""
    ratio: np.ndarray = np.divide(numerator, denominator, out=np.zeros(np.shape(numerator)), where=denominator != 0)
    return ratio


def _f1(counts: np.ndarray) -> np.ndarray:
    true_positives, false_positives, false_negatives = counts.T
    # 2PR / (P + R) = 2TP / (2TP + FP + FN); 0 when there is nothing to find and nothing found.
    return 100 * _ratio(2 * true_positives, 2 * true_positives + false_positives + false_negatives)


# --------------------------------------------------------------------------- evaluation
def evaluate_action_segmentation(
    ground_truth: Sequence[ArrayLike] | Mapping[Hashable, ArrayLike],
    predictions: Sequence[ArrayLike] | Mapping[Hashable, ArrayLike],
    *,
    overlaps: ArrayLike = DEFAULT_OVERLAPS,
    background: Iterable[Hashable] | str = DEFAULT_BACKGROUND,
    mstcn_2019_compat: bool = False,
    show_progress: bool | None = None,
) -> ActionSegmentationResult:
    """Frame accuracy, edit score and segmental F1@k of frame-wise predictions, as MS-TCN reports them.

    Parameters
    ----------
    ground_truth, predictions : sequence or mapping of 1-D label sequences
        One sequence of frame labels (ints or strings) per video, in the same order, or two
        mappings with the same video keys. A prediction has exactly one label per true frame.
    overlaps : array_like of float, default (0.1, 0.25, 0.5)
        The IoU thresholds k of F1@k, each in ``(0, 1]``.
    background : label or iterable of labels, default ("background",)
        Labels whose runs are not segments (MS-TCN's default). Their frames still count for
        accuracy. For integer labels pass e.g. ``background=0``.
    mstcn_2019_compat : bool, default False
        Cut segments as the 2019 MS-TCN script did, to reproduce the numbers published with it
        and with code derived from it (e.g. ASFormer): the last segment of each sequence ends at
        frame ``F - 1`` instead of ``F``, and a final one-frame segment becomes empty (it can
        never match, so it is a false positive in a prediction and a false negative in the
        ground truth). Only F1 changes; accuracy and edit score do not.
    show_progress : bool, optional
        Draw a progress bar over the videos; by default only on a terminal.

    Returns
    -------
    ActionSegmentationResult
        Accuracy, edit, F1 at each overlap (percent), the summed counts, `summary()`, `to_json()`.

    Raises
    ------
    InvalidArgumentError
        If the videos differ in number or keys, a video has no frames, a prediction's length
        differs from its ground truth, labels mix strings with numbers, or an overlap is outside
        ``(0, 1]``.

    Notes
    -----
    A video whose ground truth is all background has no true segments: every predicted segment
    there is a false positive, and its edit score is 0 if anything was predicted, 100 if the
    prediction is all background too. (MS-TCN's script stops with an error, the argmax of an
    empty sequence, when such a video has predicted segments, and its edit score is 0/0 = NaN
    when neither side has a segment.)

    Examples
    --------
    >>> truth = [["bg", "cut", "cut", "cut", "bg", "pour", "pour", "pour"]]
    >>> predicted = [["bg", "cut", "cut", "bg", "bg", "pour", "pour", "stir"]]
    >>> result = evaluate_action_segmentation(truth, predicted, background="bg")
    >>> result.accuracy, result.edit  # 6 of 8 frames; segments cut pour stir vs cut pour: d = 1
    (75.0, 66.66666666666667)
    >>> result.f1.round(2)  # cut: IoU 2/3, pour: 2/3 hit; stir is a false positive: F1 = 4/5
    array([80., 80., 80.])
    >>> print(result.summary())
    Action segmentation: 1 videos, 8 frames
    Acc: 75.0000
    Edit: 66.6667
    F1@0.10: 80.0000
    F1@0.25: 80.0000
    F1@0.50: 80.0000
    """
    evaluation = ActionSegmentationEvaluation(
        overlaps=overlaps, background=background, mstcn_2019_compat=mstcn_2019_compat, show_progress=show_progress
    )
    return evaluation.update(ground_truth, predictions).compute()


@dataclass(frozen=True)
class _VideoScores:
    """One part's per-video numbers and summed segment counts: all that `compute` needs."""

    videos: tuple[Any, ...]
    correct: np.ndarray
    frames: np.ndarray
    edits: np.ndarray
    counts: np.ndarray
    keyed: bool


@dataclass(frozen=True)
class ActionSegmentationSettings:
    """The checked settings of an `ActionSegmentationEvaluation` (what `merge` compares)."""

    overlaps: np.ndarray
    background: frozenset[Hashable]
    mstcn_2019_compat: bool


class ActionSegmentationEvaluation(MergeableEvaluation[ActionSegmentationResult]):
    """Action segmentation scores accumulated part by part (videos split across parts): `update`, `merge`, `compute`.

    Accuracy sums correct frames and frames, F1 sums segment counts, and the edit score averages
    the per-video values, so parts merged in the order of the videos give exactly
    `evaluate_action_segmentation` of all of them. The parameters are those of
    `evaluate_action_segmentation`.

    Examples
    --------
    >>> evaluation = ActionSegmentationEvaluation(background=0)
    >>> _ = evaluation.update({"a": [0, 1, 1, 0]}, {"a": [0, 1, 1, 1]})
    >>> _ = evaluation.update({"b": [2, 2, 0]}, {"b": [2, 2, 0]})
    >>> result = evaluation.compute()
    >>> result.accuracy, result.videos  # 6 of 7 frames
    (85.71428571428571, ('a', 'b'))
    """

    settings: ActionSegmentationSettings

    def __init__(
        self,
        *,
        overlaps: ArrayLike = DEFAULT_OVERLAPS,
        background: Iterable[Hashable] | str = DEFAULT_BACKGROUND,
        mstcn_2019_compat: bool = False,
        show_progress: bool | None = None,
    ) -> None:
        self._start(
            ActionSegmentationSettings(
                overlaps=_checked_overlaps(overlaps),
                background=_background_set(background),
                mstcn_2019_compat=bool(mstcn_2019_compat),
            )
        )
        self.show_progress = show_progress

    def update(
        self,
        ground_truth: Sequence[ArrayLike] | Mapping[Hashable, ArrayLike],
        predictions: Sequence[ArrayLike] | Mapping[Hashable, ArrayLike],
    ) -> ActionSegmentationEvaluation:
        """Score the videos of one part; return ``self``. Given as sequences, videos are numbered on across parts."""
        from geoiou.evaluation.segment_loops import score_videos  # compiled: loaded on first use

        settings = self.settings
        pairs = _paired_videos(ground_truth, predictions)
        videos = [_checked_video(truth, predicted, video) for video, (truth, predicted) in pairs]
        frames = np.array([len(truth) for truth, _ in videos], dtype=np.int64)
        codes, labels = _label_codes([labels for video in videos for labels in video])
        truth_codes = np.concatenate(codes[0::2])
        predicted_codes = np.concatenate(codes[1::2])
        if settings.background == _DEFAULT_BACKGROUND_SET and any(t.dtype.kind in "iu" for t, _ in videos):
            _warn_integer_labels()
        background = np.array([label in settings.background for label in labels.tolist()], dtype=bool)
        correct, edits, counts = score_videos(
            truth_codes,
            predicted_codes,
            np.concatenate([[0], np.cumsum(frames)]).astype(np.int64),
            background,
            settings.overlaps,
            settings.mstcn_2019_compat,
        )
        self._parts.append(
            _VideoScores(
                tuple(video for video, _ in pairs),
                correct,
                frames,
                edits,
                counts.sum(axis=0),
                isinstance(ground_truth, Mapping),
            )
        )
        return self

    def compute(self) -> ActionSegmentationResult:
        """The scores over every part's videos."""
        parts = self._parts
        if not parts:
            raise _invalid("ground_truth", "at least one video", "none")
        keyed = parts[0].keyed
        if any(part.keyed != keyed for part in parts):
            raise _invalid(
                "parts",
                "videos given the same way in every part (all mappings or all sequences)",
                "mappings in some parts and sequences in others",
            )
        videos = (
            tuple(video for part in parts for video in part.videos)
            if keyed
            else tuple(range(sum(len(part.videos) for part in parts)))
        )
        refuse_shared(videos, "video")
        correct, frames, edits = (
            np.concatenate([getattr(part, name) for part in parts]) for name in ("correct", "frames", "edits")
        )
        counts = np.sum([part.counts for part in parts], axis=0)
        return ActionSegmentationResult(
            accuracy=100 * float(correct.sum()) / float(frames.sum()),
            edit=float(np.mean(edits)),
            overlaps=self.settings.overlaps,
            f1=_f1(counts),
            counts=counts,
            edit_per_video=edits,
            accuracy_per_video=100 * correct / frames,
            num_frames=int(frames.sum()),
            mstcn_2019_compat=self.settings.mstcn_2019_compat,
            videos=videos,
        )


def _paired_videos(
    ground_truth: Sequence[ArrayLike] | Mapping[Hashable, ArrayLike],
    predictions: Sequence[ArrayLike] | Mapping[Hashable, ArrayLike],
) -> list[tuple[Hashable, tuple[ArrayLike, ArrayLike]]]:
    """``[(video, (truth, prediction)), ...]`` from two sequences or two mappings of videos."""
    pairs: list[tuple[Hashable, tuple[ArrayLike, ArrayLike]]]
    if isinstance(ground_truth, Mapping) and isinstance(predictions, Mapping):
        missing = [video for video in ground_truth if video not in predictions]
        extra = [video for video in predictions if video not in ground_truth]
        if missing or extra:
            problem = f"no prediction for video {missing[0]!r}" if missing else f"unknown video {extra[0]!r}"
            raise _invalid("predictions", "for the videos of 'ground_truth'", problem)
        pairs = [(video, (truth, predictions[video])) for video, truth in ground_truth.items()]
    elif not isinstance(ground_truth, Mapping) and not isinstance(predictions, Mapping):
        ground_truth, predictions = list(ground_truth), list(predictions)
        if len(ground_truth) != len(predictions):
            raise _invalid(
                "predictions", f"one sequence per video ({len(ground_truth)})", f"{len(predictions)} sequences"
            )
        pairs = list(enumerate(zip(ground_truth, predictions)))
    else:  # one mapping and one sequence
        raise _invalid("predictions", "a mapping exactly when 'ground_truth' is one", type(predictions).__name__)
    if not pairs:
        raise _invalid("ground_truth", "at least one video", "none")
    return pairs


def _checked_video(truth: ArrayLike, predicted: ArrayLike, video: Any) -> tuple[np.ndarray, np.ndarray]:
    where = f" for video {video!r}"
    truth = _as_frame_labels(truth, "ground_truth", where)
    predicted = _as_frame_labels(predicted, "predictions", where)
    if len(predicted) != len(truth):
        raise _invalid("predictions", f"one label per frame ({len(truth)} frames)", f"{len(predicted)} labels", where)
    textual = {labels.dtype.kind in "US" for labels in (truth, predicted) if labels.dtype.kind != "O"}
    if len(textual) > 1:  # "1" never equals 1: every frame would silently count as wrong
        raise _invalid(
            "predictions",
            "labels of the same type as 'ground_truth'",
            f"{predicted.dtype} labels for {truth.dtype} labels",
            where,
        )
    return truth, predicted


def _checked_overlaps(overlaps: ArrayLike) -> np.ndarray:
    values = np.atleast_1d(np.asarray(overlaps, dtype=np.float64))
    if values.ndim != 1 or values.size == 0 or not np.all((values > 0) & (values <= 1)):
        raise _invalid("overlaps", "a non-empty 1-D array of numbers in (0, 1]", overlaps)
    return values
