"""Multi-label Jaccard index (IoU of label sets), matching scikit-learn's ``jaccard_score``.

Each sample carries a set of labels, given as a row of a binary indicator matrix
``(n_samples, n_classes)`` or as a collection of label names with ``labels=`` fixing the column
order. Per class (one-vs-rest) the score is ``TP / (TP + FP + FN)``, the size of the intersection
over the size of the union; `jaccard` returns those or one of scikit-learn's averages of them.

Zero division
-------------
A class no sample has in either matrix (or, for ``average="samples"``, a sample with no label on
either side, or for ``"micro"`` no label anywhere) is 0/0. Like scikit-learn, the default
``zero_division="warn"`` scores it 0.0 and warns (a `UserWarning` naming the classes or samples);
0.0 and 1.0 give that value silently. NaN, which scikit-learn's ``jaccard_score`` refuses, gives
NaN and leaves those entries out of the macro, samples and weighted averages (as scikit-learn's
precision and recall do for ``zero_division=np.nan``).

Differences from scikit-learn
-----------------------------
- The default average is None (per class), since multi-label input has no "binary" average.
- An ``(n_samples, 1)`` matrix is one class here; scikit-learn reads it as binary targets and
  scores both values 0 and 1.
- ``labels=`` names the classes of label-set input, in output order; scikit-learn's ``labels``
  selects columns of an indicator matrix.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from geoiou._validation import invalid_argument as _fail, zero_division_value
from geoiou._validation import describe
from geoiou.errors import InvalidArgumentError
from geoiou.evaluation.mergeable import MergeableEvaluation

__all__ = ["JaccardEvaluation", "jaccard"]

AVERAGES = (None, "micro", "macro", "samples", "weighted")
_MATRIX = "a binary indicator matrix (n_samples, n_classes), or label sets with 'labels'"


def _check_zero_division(value: Any) -> float:
    """The number `value` stands for: "warn" is 0.0."""
    if isinstance(value, str) and value == "warn":
        return 0.0
    try:
        return zero_division_value(value)
    except InvalidArgumentError:
        raise _fail("zero_division", "'warn', NaN or a number in [0, 1]", value) from None


def _indicator(value: Any, param: str) -> np.ndarray:
    """`value` as a boolean ``(n_samples, n_classes)`` matrix of 0/1 entries."""
    try:
        array = np.asarray(value)
    except ValueError:
        raise _fail(param, _MATRIX, "a ragged sequence") from None
    if array.dtype.kind not in "biuf":
        raise _fail(param, _MATRIX, f"dtype {array.dtype}")
    if array.ndim != 2 or 0 in array.shape:
        raise _fail(param, "a 2-D indicator matrix with at least one sample and one class", f"shape {array.shape}")
    bad = (array != 0) & (array != 1)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise _fail(param, "binary (only 0 and 1)", f"{array[index].item()} at index {index}")
    return array.astype(bool)


def _check_labels(labels: Any) -> dict[Hashable, int]:
    """Map each label to its column; labels must be distinct and hashable."""
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (Sequence, np.ndarray)) or len(labels) == 0:
        raise _fail("labels", "a non-empty sequence of distinct labels", labels)
    try:
        column = {label: j for j, label in enumerate(labels)}
    except TypeError:
        raise _fail("labels", "a sequence of hashable labels", labels) from None
    if len(column) != len(labels):
        raise _fail("labels", "a sequence of distinct labels", labels)
    return column


def _binarize(samples: Any, column: dict[Hashable, int], param: str) -> np.ndarray:
    """Label sets (one collection of labels per sample) as a boolean indicator matrix."""
    if isinstance(samples, (str, bytes)) or not hasattr(samples, "__iter__"):
        raise _fail(param, "a sequence of label collections, one per sample", samples)
    rows = []
    for i, sample in enumerate(samples):
        if isinstance(sample, (str, bytes)) or not hasattr(sample, "__iter__"):
            raise _fail(
                param, "a collection of labels per sample (wrap a single label in a list)", f"{sample!r} at sample {i}"
            )
        row = np.zeros(len(column), dtype=bool)
        for label in sample:
            j = column.get(label) if isinstance(label, Hashable) else None
            if j is None:
                raise _fail(param, "label sets drawn from 'labels'", f"{label!r} in sample {i}")
            row[j] = True
        rows.append(row)
    if not rows:
        raise _fail(param, "at least one sample", samples)
    return np.stack(rows)


def _inputs(y_true: Any, y_pred: Any, labels: Sequence[Hashable] | None) -> tuple[np.ndarray, np.ndarray]:
    if labels is None:
        truth, pred = _indicator(y_true, "y_true"), _indicator(y_pred, "y_pred")
    else:
        column = _check_labels(labels)
        truth, pred = _binarize(y_true, column, "y_true"), _binarize(y_pred, column, "y_pred")
    if truth.shape != pred.shape:
        raise _fail("y_pred", f"of shape {truth.shape} like 'y_true'", f"shape {pred.shape}")
    return truth, pred


def _warn_undefined(undefined: np.ndarray, average: str | None, stacklevel: int) -> None:
    where = np.flatnonzero(undefined).tolist()
    if average == "micro":
        what = "there is no true or predicted label at all"
    elif average == "samples":
        what = f"samples {describe(where)} have no true or predicted label"
    else:
        what = f"classes {describe(where)} have no true or predicted label"
    warnings.warn(
        f"Jaccard is 0/0 and set to 0.0: {what}. Pass zero_division=0.0, 1.0 or nan to "
        "choose the value and silence this warning.",
        UserWarning,
        stacklevel=stacklevel,
    )


def _average(scores: np.ndarray, weights: np.ndarray | None) -> float:
    """``np.average`` over the non-NaN scores; NaN when every score is NaN."""
    kept = ~np.isnan(scores)
    if not kept.any():
        return math.nan
    if kept.all():
        return float(np.average(scores, weights=weights))
    return float(np.average(scores[kept], weights=None if weights is None else weights[kept]))


def jaccard(
    y_true: Any,
    y_pred: Any,
    *,
    average: Literal["micro", "macro", "samples", "weighted"] | None = None,
    zero_division: float | Literal["warn"] = "warn",
    labels: Sequence[Hashable] | None = None,
) -> float | np.ndarray:
    """Jaccard index (IoU) of multi-label sets, per class or averaged, as scikit-learn computes it.

    Parameters
    ----------
    y_true, y_pred : array_like, shape (n_samples, n_classes), or sequence of label collections
        Ground truth and prediction: binary indicator matrices (0/1 of any numeric or boolean
        dtype), or, when `labels` is given, one collection of label names per sample.
    average : {None, "micro", "macro", "samples", "weighted"}, default None
        None: one score per class. "micro": pooled ``sum TP / sum (TP + FP + FN)``. "macro": mean
        of the per-class scores. "weighted": their mean weighted by the number of true labels per
        class (the plain mean if there are none at all). "samples": mean of the per-sample scores.
    zero_division : "warn" or float, default "warn"
        Score of a 0/0 class (or sample, or micro total): "warn" is 0.0 with a `UserWarning`; a
        number in [0, 1] (scikit-learn takes 0.0 and 1.0) is used silently; NaN is left out of
        the averages.
    labels : sequence of hashable, optional
        The classes, in column order; when given, `y_true` and `y_pred` are label sets.

    Returns
    -------
    float or ndarray
        An ``(n_classes,)`` float64 array when `average` is None, else a float.

    Raises
    ------
    InvalidArgumentError
        On a shape mismatch, a value other than 0 and 1, a label missing from `labels`, or an
        unknown `average` or `zero_division`.

    Examples
    --------
    The seed's example, classes Airplane, Boat, Car:

    >>> truth = [[1, 1, 1], [1, 0, 1], [0, 1, 1], [1, 1, 1]]
    >>> pred = [[0, 1, 0], [1, 1, 1], [1, 1, 1], [1, 1, 1]]
    >>> jaccard(truth, pred)
    array([0.5 , 0.75, 0.75])
    >>> jaccard(truth, pred, average="macro")
    0.6666666666666666
    >>> jaccard([["Boat", "Car"], []], [["Car"], []], labels=["Airplane", "Boat", "Car"],
    ...         average="samples", zero_division=1.0)     # sample 2: {} vs {} is 0/0 -> 1.0
    0.75

    A class nobody has is 0/0; NaN leaves it out of the mean:

    >>> jaccard([[1, 0]], [[1, 0]], average="macro", zero_division=float("nan"))
    1.0
    """
    evaluation = JaccardEvaluation(average=average, zero_division=zero_division, labels=labels)
    return evaluation.update(y_true, y_pred)._scores(warning_level=4)  # the warning names the caller of jaccard


@dataclass(frozen=True)
class _LabelCounts:
    """One part's counts: per class the intersection, union and true labels; per sample the intersection and union."""

    class_intersection: np.ndarray
    class_union: np.ndarray
    support: np.ndarray
    sample_intersection: np.ndarray
    sample_union: np.ndarray


@dataclass(frozen=True)
class JaccardSettings:
    """The checked settings of a `JaccardEvaluation` (what `merge` compares)."""

    average: str | None
    zero_division: float | str
    labels: tuple[Hashable, ...] | None


class JaccardEvaluation(MergeableEvaluation[Any]):
    """Multi-label Jaccard accumulated part by part (samples split across parts): `update`, `merge`, `compute`.

    The state holds counts (per class, and per sample for ``average="samples"``), so the result
    is exactly `jaccard`'s on all the samples at once. The parameters are those of `jaccard`.

    Examples
    --------
    >>> evaluation = JaccardEvaluation(average="micro")
    >>> _ = evaluation.update([[1, 1, 1], [1, 0, 1]], [[0, 1, 0], [1, 1, 1]])
    >>> _ = evaluation.update([[0, 1, 1], [1, 1, 1]], [[1, 1, 1], [1, 1, 1]])
    >>> evaluation.compute() == jaccard([[1, 1, 1], [1, 0, 1], [0, 1, 1], [1, 1, 1]],
    ...                                 [[0, 1, 0], [1, 1, 1], [1, 1, 1], [1, 1, 1]], average="micro")
    True
    """

    settings: JaccardSettings

    def __init__(
        self,
        *,
        average: Literal["micro", "macro", "samples", "weighted"] | None = None,
        zero_division: float | Literal["warn"] = "warn",
        labels: Sequence[Hashable] | None = None,
    ) -> None:
        _check_zero_division(zero_division)
        if not (average is None or (isinstance(average, str) and average in AVERAGES)):
            raise _fail("average", "one of None, 'micro', 'macro', 'samples', 'weighted'", average)
        if labels is not None:
            _check_labels(labels)
        self._start(
            JaccardSettings(
                average=average, zero_division=zero_division, labels=None if labels is None else tuple(labels)
            )
        )

    def update(self, y_true: Any, y_pred: Any) -> JaccardEvaluation:
        """Count the samples of one part; return ``self``. Every part has the same classes."""
        truth, pred = _inputs(y_true, y_pred, self.settings.labels)
        if self._parts and truth.shape[1] != len(self._parts[0].support):
            raise _fail(
                "y_true", f"{len(self._parts[0].support)} classes like the parts before", f"{truth.shape[1]} classes"
            )
        both, either = truth & pred, truth | pred
        self._parts.append(
            _LabelCounts(
                np.count_nonzero(both, axis=0),
                np.count_nonzero(either, axis=0),
                truth.sum(axis=0),
                np.count_nonzero(both, axis=1),
                np.count_nonzero(either, axis=1),
            )
        )
        return self

    def compute(self) -> float | np.ndarray:
        """The scores over every part's samples: per class, or the average asked for."""
        return self._scores(warning_level=4)

    def _scores(self, warning_level: int) -> float | np.ndarray:
        """`compute`, warning about 0/0 at `warning_level` frames up (the user's line)."""
        parts, average, zero_division = self._parts, self.settings.average, self.settings.zero_division
        if not parts:
            raise _fail("y_true", "at least one sample", "none")
        if len({len(part.support) for part in parts}) > 1:
            raise _fail("parts", "parts with the same classes", sorted({len(part.support) for part in parts}))
        if average == "samples":
            intersection = np.concatenate([part.sample_intersection for part in parts])
            union = np.concatenate([part.sample_union for part in parts])
        else:
            intersection = np.sum([part.class_intersection for part in parts], axis=0)
            union = np.sum([part.class_union for part in parts], axis=0)
        if average == "micro":
            intersection, union = intersection.sum(keepdims=True), union.sum(keepdims=True)
        undefined = union == 0
        scores = np.full(union.shape, _check_zero_division(zero_division))
        np.divide(intersection, union, out=scores, where=~undefined)
        if isinstance(zero_division, str) and undefined.any():
            _warn_undefined(undefined, average, warning_level)
        if average is None:
            return scores
        if average == "weighted":
            support = np.sum([part.support for part in parts], axis=0)
            return _average(scores, support if support.any() else None)
        return _average(scores, None)
