"""Semantic-segmentation scores from label maps: per-class IoU, mIoU, fwIoU and pixel accuracies.

Every score is read off one ``(C, C)`` confusion matrix of pixel counts, ``matrix[t, p]`` being
the number of counted pixels whose ground truth is class ``t`` and whose prediction is class ``p``.
`ConfusionMatrix` accumulates it image by image (nothing but the matrix is kept), two accumulators
from parallel workers `merge`, and `ConfusionMatrix.compute` turns the counts into a
`SemanticSegmentationResult`. `semantic_iou` does all of it in one call.

Conventions
-----------
- Pixels whose ground truth is `ignore_index` are skipped, whatever their prediction.
- `ignore_index` must lie outside ``[0, num_classes)`` (255 and -1 are the usual choices).
- Every other ground-truth label and every prediction at a counted pixel must lie in
  ``[0, num_classes)``; anything else, including a prediction equal to `ignore_index`, is refused
  with an `InvalidArgumentError` naming the first offending pixel. Predictions at skipped pixels
  are not looked at.
- A ratio whose denominator is 0 is `zero_division` (NaN by default). For IoU that is a class
  absent from both the ground truth and the prediction; for class accuracy a class absent from
  the ground truth. Means (mIoU, mean class accuracy) skip NaN entries, so with the default an
  absent class is left out of the mean; ``zero_division=0.0`` or ``1.0`` counts it as a miss or a
  hit instead. A mean over no entries at all is NaN.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from geoiou._validation import invalid_argument as _fail, zero_division_value as _check_zero_division
from geoiou.evaluation.mergeable import MergeableEvaluation

__all__ = ["ConfusionMatrix", "SemanticSegmentationResult", "semantic_iou"]


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _check_num_classes(num_classes: Any) -> int:
    if not _is_int(num_classes) or num_classes < 1:
        raise _fail("num_classes", "a positive integer", num_classes)
    return int(num_classes)


def _check_ignore_index(ignore_index: Any, num_classes: int) -> int | None:
    if ignore_index is None:
        return None
    if not _is_int(ignore_index) or 0 <= ignore_index < num_classes:
        raise _fail("ignore_index", f"None or an integer outside [0, {num_classes}) such as 255 or -1", ignore_index)
    return int(ignore_index)


def _label_map(value: Any, param: str) -> np.ndarray:
    """`value` as an array of integer labels (booleans count as 0 and 1)."""
    try:
        array = np.asarray(value)
    except ValueError:
        raise _fail(param, "an array of integer labels", "a ragged sequence") from None
    if array.dtype.kind not in "biu":
        raise _fail(param, "an array of integer labels", f"dtype {array.dtype}")
    return array


def _label_pair(target: Any, prediction: Any) -> tuple[np.ndarray, np.ndarray]:
    target, prediction = _label_map(target, "target"), _label_map(prediction, "prediction")
    if target.shape != prediction.shape:
        raise _fail("prediction", f"an array of shape {target.shape} like 'target'", f"shape {prediction.shape}")
    return target, prediction


class ConfusionMatrix(MergeableEvaluation["SemanticSegmentationResult"]):
    """Accumulate the pixel confusion matrix of a semantic segmentation, one image at a time.

    Parameters
    ----------
    num_classes : int
        Number of classes C; labels are ``0 .. C-1``.
    ignore_index : int, optional
        Ground-truth label of pixels to skip (e.g. 255 for "void"); must lie outside ``[0, C)``.

    Examples
    --------
    >>> cm = ConfusionMatrix(3, ignore_index=255)
    >>> _ = cm.update([[0, 0, 1], [2, 2, 255]], [[0, 1, 1], [2, 0, 0]])
    >>> cm.matrix            # rows: ground truth, columns: prediction; the 255 pixel is skipped
    array([[1, 1, 0],
           [0, 1, 0],
           [1, 0, 1]])
    >>> cm.compute().iou.round(3)  # class 0: 1 / (2 + 2 - 1), class 1: 1 / (1 + 2 - 1), class 2: 1 / 2
    array([0.333, 0.5  , 0.5  ])

    Nothing counted yet: every score is 0/0, so NaN.

    >>> ConfusionMatrix(2).compute().miou
    nan
    """

    def __init__(self, num_classes: int, *, ignore_index: int | None = None) -> None:
        self._num_classes = _check_num_classes(num_classes)
        self._ignore_index = _check_ignore_index(ignore_index, self._num_classes)
        self._counts: np.ndarray = np.zeros((self._num_classes, self._num_classes), dtype=np.int64)

    def __repr__(self) -> str:
        return (
            f"ConfusionMatrix(num_classes={self._num_classes}, ignore_index={self._ignore_index}, pixels={self.total})"
        )

    @property
    def num_classes(self) -> int:
        """Number of classes C."""
        return self._num_classes

    @property
    def ignore_index(self) -> int | None:
        """Ground-truth label whose pixels are skipped, or None."""
        return self._ignore_index

    @property
    def matrix(self) -> np.ndarray:
        """A copy of the ``(C, C)`` int64 counts; rows are ground truth, columns prediction."""
        counts: np.ndarray = self._counts.copy()
        return counts

    @property
    def total(self) -> int:
        """Number of pixels counted so far."""
        return int(self._counts.sum())

    def update(self, target: Any, prediction: Any) -> ConfusionMatrix:
        """Add the pixels of one label map (or a batch of them) to the counts.

        Parameters
        ----------
        target, prediction : array_like of int
            Ground-truth and predicted labels, any integer (or boolean) dtype, the same shape.

        Returns
        -------
        ConfusionMatrix
            ``self``, so calls chain.

        Raises
        ------
        InvalidArgumentError
            On float labels, different shapes, or a label outside ``[0, C)`` other than a
            ground-truth `ignore_index`.

        Examples
        --------
        >>> cm = ConfusionMatrix(2, ignore_index=255)
        >>> cm.update([255, 255], [0, 1]).total       # every pixel ignored: nothing counted
        0
        >>> cm.update([0, 1], [1, 1]).matrix
        array([[0, 1],
               [0, 1]])
        """
        target, prediction = _label_pair(target, prediction)
        t, p = target.ravel(), prediction.ravel()
        ignored = None if self._ignore_index is None else t == self._ignore_index
        if ignored is not None and not ignored.any():
            ignored = None
        self._check_range(t, p, ignored, target.shape)
        n = self._num_classes
        flat = t.astype(np.intp)
        flat *= n
        np.add(flat, p, out=flat, dtype=np.intp, casting="unsafe")  # labels are in range: exact
        if ignored is not None:
            np.putmask(flat, ignored, n * n)  # one extra bin, dropped below
        self._counts += np.bincount(flat, minlength=n * n + 1)[: n * n].reshape(n, n)
        return self

    def _check_range(self, t: np.ndarray, p: np.ndarray, ignored: np.ndarray | None, shape: tuple[int, ...]) -> None:
        """Raise on the first counted label outside ``[0, C)``, located by its index in `shape`."""
        n = self._num_classes
        for param, values in (("target", t), ("prediction", p)):
            if values.size == 0 or (values.min() >= 0 and values.max() < n):
                continue
            bad = (values < 0) | (values >= n)
            if ignored is not None:
                bad &= ~ignored
            if bad.any():
                first = int(np.argmax(bad))
                index = tuple(int(i) for i in np.unravel_index(first, shape))
                raise _fail(param, self._expected_labels(param), f"{values[first].item()} at index {index}")

    def _expected_labels(self, param: str) -> str:
        if param == "prediction":
            return f"labels in [0, {self._num_classes}) where the target is counted"
        ignore = "" if self._ignore_index is None else f" or {self._ignore_index}"
        return f"labels in [0, {self._num_classes}){ignore}"

    def merge(self, *others: ConfusionMatrix) -> ConfusionMatrix:
        """Return a new accumulator holding the counts of this one and `others` (e.g. from parallel workers).

        Examples
        --------
        >>> a = ConfusionMatrix(2).update([0, 1], [0, 0])
        >>> b = ConfusionMatrix(2).update([1], [1])
        >>> a.merge(b).matrix
        array([[1, 0],
               [1, 1]])
        """
        merged = self.empty()
        merged._counts = self._counts.copy()
        for i, other in enumerate(others):
            if (
                not isinstance(other, ConfusionMatrix)
                or other.num_classes != self._num_classes
                or other.ignore_index != self._ignore_index
            ):
                raise _fail(
                    "other" if len(others) == 1 else f"others[{i}]",
                    f"a ConfusionMatrix with num_classes={self._num_classes} and ignore_index={self._ignore_index}",
                    other,
                )
            merged._counts += other._counts
        return merged

    def empty(self) -> ConfusionMatrix:
        """An accumulator with the same classes and nothing counted (what a worker starts from)."""
        return ConfusionMatrix(self._num_classes, ignore_index=self._ignore_index)

    def compute(
        self, *, zero_division: float = math.nan, class_names: Sequence[str] | None = None
    ) -> SemanticSegmentationResult:
        """Scores of the pixels counted so far; see `SemanticSegmentationResult`."""
        return SemanticSegmentationResult(self._counts, zero_division=zero_division, class_names=class_names)


def _divide(numerator: ArrayLike, denominator: ArrayLike, zero_division: float) -> np.ndarray:
    """``numerator / denominator`` as float64, and `zero_division` where the denominator is 0."""
    out = np.full(np.shape(numerator), zero_division, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _nanmean(values: np.ndarray) -> float:
    """Mean of the non-NaN entries; NaN when there are none."""
    kept = values[~np.isnan(values)]
    return float(kept.mean()) if kept.size else math.nan


def _check_matrix(matrix: Any) -> np.ndarray:
    array = np.asarray(matrix)
    if array.ndim != 2 or array.shape[0] != array.shape[1] or array.shape[0] == 0:
        raise _fail("matrix", "a square (C, C) array with C >= 1", f"shape {array.shape}")
    if array.dtype.kind not in "iu" or (array < 0).any():
        raise _fail("matrix", "non-negative integer counts", array)
    return array.astype(np.int64)


def _check_class_names(class_names: Any, num_classes: int) -> tuple[str, ...]:
    if class_names is None:
        return tuple(str(i) for i in range(num_classes))
    if isinstance(class_names, str) or len(class_names) != num_classes:
        raise _fail("class_names", f"a sequence of {num_classes} names", class_names)
    return tuple(str(name) for name in class_names)


def _readonly(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


class SemanticSegmentationResult:
    """Scores read off a confusion matrix of pixel counts.

    Parameters
    ----------
    matrix : array_like of int, shape (C, C)
        ``matrix[t, p]`` counts pixels of ground truth ``t`` predicted as ``p``.
    zero_division : float, default NaN
        Value of a 0/0 ratio: NaN (left out of means), or a number in [0, 1] (counted in them).
    class_names : sequence of str, optional
        One name per class for `summary` and `to_dict`; default ``"0" .. "C-1"``.

    Attributes
    ----------
    iou : ndarray, shape (C,)
        Per class ``TP / (TP + FP + FN)``.
    miou : float
        Mean of `iou` over its non-NaN entries.
    fwiou : float
        Frequency-weighted IoU: `iou` averaged with weights ``support / total``.
    pixel_accuracy : float
        Fraction of counted pixels predicted correctly.
    class_accuracy : ndarray, shape (C,)
        Per class ``TP / (TP + FN)`` (recall).
    mean_class_accuracy : float
        Mean of `class_accuracy` over its non-NaN entries.
    support : ndarray, shape (C,)
        Ground-truth pixels per class.

    Examples
    --------
    Class 2 is neither in the ground truth nor predicted: its IoU is NaN and the mean skips it.

    >>> scores = SemanticSegmentationResult([[3, 1, 0], [0, 4, 0], [0, 0, 0]])
    >>> scores.iou
    array([0.75, 0.8 ,  nan])
    >>> scores.miou, scores.pixel_accuracy
    (0.775, 0.875)
    >>> SemanticSegmentationResult([[3, 1, 0], [0, 4, 0], [0, 0, 0]], zero_division=0.0).miou   # counted as 0
    0.5166666666666667
    """

    def __init__(
        self, matrix: Any, *, zero_division: float = math.nan, class_names: Sequence[str] | None = None
    ) -> None:
        counts = _check_matrix(matrix)
        self._zero_division = _check_zero_division(zero_division)
        self._class_names = _check_class_names(class_names, counts.shape[0])
        self._counts = _readonly(counts)
        self._compute()

    def _compute(self) -> None:
        zd, counts = self._zero_division, self._counts
        tp = np.diag(counts)
        support, predicted = counts.sum(axis=1), counts.sum(axis=0)
        total = int(counts.sum())
        self._support = _readonly(support)
        self._iou = _readonly(_divide(tp, support + predicted - tp, zd))
        self._class_accuracy = _readonly(_divide(tp, support, zd))
        self._pixel_accuracy = float(_divide(tp.sum(), total, zd))
        present = support > 0
        self._fwiou = float(np.sum(support[present] / total * self._iou[present])) if total else zd

    @property
    def confusion_matrix(self) -> np.ndarray:
        """The ``(C, C)`` counts (read-only)."""
        return self._counts

    @property
    def num_classes(self) -> int:
        """Number of classes C."""
        return int(self._counts.shape[0])

    @property
    def class_names(self) -> tuple[str, ...]:
        """One name per class."""
        return self._class_names

    @property
    def zero_division(self) -> float:
        """The value given to 0/0 ratios."""
        return self._zero_division

    @property
    def support(self) -> np.ndarray:
        """Ground-truth pixels per class."""
        return self._support

    @property
    def iou(self) -> np.ndarray:
        """Per-class IoU ``TP / (TP + FP + FN)``; `zero_division` for a class absent from both."""
        return self._iou

    @property
    def miou(self) -> float:
        """Mean IoU over the classes whose IoU is not NaN."""
        return _nanmean(self._iou)

    @property
    def fwiou(self) -> float:
        """Frequency-weighted IoU ``sum_c support_c * iou_c / total``."""
        return self._fwiou

    @property
    def pixel_accuracy(self) -> float:
        """Correct pixels over counted pixels."""
        return self._pixel_accuracy

    @property
    def class_accuracy(self) -> np.ndarray:
        """Per-class accuracy (recall) ``TP / (TP + FN)``; `zero_division` for a class with no pixels."""
        return self._class_accuracy

    @property
    def mean_class_accuracy(self) -> float:
        """Mean class accuracy over the classes whose accuracy is not NaN."""
        return _nanmean(self._class_accuracy)

    def __repr__(self) -> str:
        return (
            f"SemanticSegmentationResult(miou={self.miou:.4f}, fwiou={self.fwiou:.4f}, "
            f"pixel_accuracy={self.pixel_accuracy:.4f}, num_classes={self.num_classes})"
        )

    def summary(self, *, digits: int = 4) -> str:
        """A plain-text table: one row per class, then the four summary scores.

        Examples
        --------
        >>> print(SemanticSegmentationResult([[3, 1], [0, 0]], class_names=["road", "car"]).summary(digits=3))
        class    IoU  accuracy  pixels
        road   0.750     0.750       4
        car    0.000       nan       0
        <BLANKLINE>
        mIoU 0.375  fwIoU 0.750  pixel accuracy 0.750  mean accuracy 0.750
        """
        width = max(5, *(len(name) for name in self._class_names))
        lines = [f"{'class':<{width}}  {'IoU':>{digits + 2}}  accuracy  pixels"]
        for name, iou, acc, count in zip(self._class_names, self._iou, self._class_accuracy, self._support):
            lines.append(f"{name:<{width}}  {iou:>{digits + 2}.{digits}f}  {acc:>8.{digits}f}  {count:>6}")
        totals = (
            ("mIoU", self.miou),
            ("fwIoU", self.fwiou),
            ("pixel accuracy", self.pixel_accuracy),
            ("mean accuracy", self.mean_class_accuracy),
        )
        return "\n".join(lines) + "\n\n" + "  ".join(f"{label} {value:.{digits}f}" for label, value in totals)

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values (lists, floats, ints) for JSON or logging; NaN stays ``float('nan')``.

        Examples
        --------
        >>> d = SemanticSegmentationResult([[1, 0], [1, 2]]).to_dict()
        >>> d["iou"], d["miou"], d["confusion_matrix"]
        ([0.5, 0.6666666666666666], 0.5833333333333333, [[1, 0], [1, 2]])
        """
        return {
            "class_names": list(self._class_names),
            "iou": self._iou.tolist(),
            "class_accuracy": self._class_accuracy.tolist(),
            "support": self._support.tolist(),
            "miou": self.miou,
            "fwiou": self.fwiou,
            "pixel_accuracy": self.pixel_accuracy,
            "mean_class_accuracy": self.mean_class_accuracy,
            "zero_division": self._zero_division,
            "confusion_matrix": self._counts.tolist(),
        }


_END = object()


def _pairs(targets: Any, predictions: Any) -> Iterator[tuple[Any, Any]]:
    """The (target, prediction) pairs; two arrays are one pair, and the lengths must agree."""
    if isinstance(targets, np.ndarray) and isinstance(predictions, np.ndarray):
        yield targets, predictions
        return
    remaining = iter(predictions)
    count = 0
    for count, target in enumerate(targets, start=1):
        prediction = next(remaining, _END)
        if prediction is _END:
            raise _fail("predictions", "as long as 'targets'", f"{count - 1} predictions for at least {count} targets")
        yield target, prediction
    if next(remaining, _END) is not _END:
        raise _fail("predictions", "as long as 'targets'", f"more than {count} predictions for {count} targets")


def semantic_iou(
    targets: Iterable[Any],
    predictions: Iterable[Any],
    num_classes: int,
    *,
    ignore_index: int | None = None,
    zero_division: float = math.nan,
    class_names: Sequence[str] | None = None,
) -> SemanticSegmentationResult:
    """Per-class IoU, mIoU, fwIoU and accuracies of label maps, accumulated image by image.

    Parameters
    ----------
    targets, predictions : iterable of array_like of int
        Ground-truth and predicted label maps, paired in order (generators are fine: one pair is
        held at a time). Two NumPy arrays are taken as a single pair, e.g. an ``(N, H, W)`` batch.
    num_classes : int
        Number of classes C.
    ignore_index : int, optional
        Ground-truth label of pixels to skip; must lie outside ``[0, C)``.
    zero_division : float, default NaN
        Value of 0/0 ratios; NaN entries are left out of the means.
    class_names : sequence of str, optional
        Names for `SemanticSegmentationResult.summary` and `SemanticSegmentationResult.to_dict`.

    Returns
    -------
    SemanticSegmentationResult

    Raises
    ------
    InvalidArgumentError
        Float labels, a shape mismatch within a pair, a label outside ``[0, C)`` (other than a
        ground-truth `ignore_index`), or different numbers of targets and predictions.

    Examples
    --------
    >>> import numpy as np
    >>> truth = [np.array([[0, 0], [1, 1]]), np.array([[1, 255]])]
    >>> pred = [np.array([[0, 1], [1, 1]]), np.array([[1, 0]])]
    >>> scores = semantic_iou(truth, pred, 2, ignore_index=255)
    >>> scores.iou, scores.miou
    (array([0.5 , 0.75]), 0.625)

    No images at all: nothing to score.

    >>> semantic_iou([], [], 2).pixel_accuracy
    nan
    """
    matrix = ConfusionMatrix(num_classes, ignore_index=ignore_index)
    for target, prediction in _pairs(targets, predictions):
        matrix.update(target, prediction)
    return matrix.compute(zero_division=zero_division, class_names=class_names)
