"""The threshold-averaged score of IoU values: the fraction of IoU thresholds each value reaches."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from geoiou._validation import as_real_array, invalid_argument

__all__ = ["DEFAULT_THRESHOLDS", "threshold_score"]

#: COCO's IoU thresholds 0.50, 0.55, ..., 0.95, made as COCOeval makes them (``linspace``: ``arange`` drifts).
DEFAULT_THRESHOLDS = np.linspace(0.5, 0.95, 10)


def threshold_score(iou: ArrayLike, *, thresholds: ArrayLike | None = None) -> float | np.ndarray:
    """Return, for each IoU value, the fraction of `thresholds` it reaches (``iou >= t``).

    The score the CloudFactory (Hasty) computer-vision wiki describes for segmentation: rather
    than one cut-off, count how many of a ladder of thresholds a match clears, as COCO's AP
    averages over IoU 0.50:0.05:0.95. A perfect match scores 1; an IoU below every threshold 0.
    Average the result over a set for one number.

    Parameters
    ----------
    iou : array_like
        IoU values in ``[0, 1]`` (any shape), such as the result of `geoiou.iou`. NaN (an IoU
        that is not defined: two empty regions) gives NaN; a value outside ``[0, 1]`` is refused
        (`InvalidArgumentError`): it is not an IoU, and 1.5 would reach every threshold.
    thresholds : array_like of float, optional
        The ladder, each in ``[0, 1]``; by default ``DEFAULT_THRESHOLDS``, 0.50, 0.55, ..., 0.95.

    Returns
    -------
    float or ndarray of the shape of `iou`
        Values in ``[0, 1]`` in steps of ``1 / len(thresholds)``.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.threshold_score([1.0, 0.82, 0.5, 0.3])  # 10, 7 (0.50 up to 0.80), 1 and 0 of the 10 thresholds
    array([1. , 0.7, 0.1, 0. ])
    >>> geoiou.threshold_score(0.75, thresholds=[0.5, 0.75])
    1.0
    """
    values = as_real_array(iou, "iou")
    outside = ~np.isnan(values) & ~((values >= 0) & (values <= 1))  # an IoU of 1.5 would reach every threshold
    if outside.any():
        where = "" if values.ndim == 0 else f" at index {tuple(int(i) for i in np.argwhere(outside)[0])}"
        raise invalid_argument("iou", "IoU values in [0, 1] (or NaN)", values[outside][0], where)
    ladder = DEFAULT_THRESHOLDS if thresholds is None else as_real_array(thresholds, "thresholds").reshape(-1)
    if ladder.size == 0 or not ((ladder >= 0) & (ladder <= 1)).all():
        raise invalid_argument("thresholds", "a non-empty list of numbers in [0, 1]", ladder)
    reached = (values[..., None] >= ladder).mean(axis=-1)
    score = np.where(np.isnan(values), np.nan, reached)
    return float(score) if score.ndim == 0 else score
