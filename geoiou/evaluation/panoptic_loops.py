"""The pixel pass of panoptic quality from maps, compiled: every (ground truth, prediction) overlap of one image.

One pass over the two maps' pixels counts each pair of labels: ``counts[g, p]``, where label 0 is
void (id 0), labels 1..n the image's segments in their listed order, and the last label any other
id (a colour the image's ``segments_info`` does not list). A pixel's id is read from its RGB bytes
(``R + 256 G + 256² B``) or its integer; ids are found by binary search in the sorted segment ids,
and the label of the pixel before is kept, so a run of one colour costs one comparison a pixel.
panopticapi computes the same counts with ``np.unique`` of ``gt · 256³ + prediction`` over the
image in 64-bit integers.

This module is compiled (numba) and imported on first use, not by ``import geoiou``.
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import jit

__all__ = ["count_label_pairs"]


def count_label_pairs(
    truth: np.ndarray, predicted: np.ndarray, truth_ids: np.ndarray, predicted_ids: np.ndarray
) -> np.ndarray:
    """``counts[g, p]`` of the pixels with truth label `g` and predicted label `p` (see the module docstring).

    `truth` and `predicted` are one image's pixels, ``(N, 1)`` integer ids or ``(N, 3)`` uint8 RGB;
    `truth_ids` and `predicted_ids` its segments' ids in their listed order.

    Examples
    --------
    >>> truth = np.array([[0], [5], [5], [9], [7]])  # void, segment 5 twice, segment 9, an unlisted id
    >>> predicted = np.array([[1], [1], [2], [2], [2]])
    >>> count_label_pairs(truth, predicted, np.array([5, 9]), np.array([1, 2]))
    array([[0, 1, 0, 0],
           [0, 1, 1, 0],
           [0, 0, 1, 0],
           [0, 0, 1, 0]])
    """
    counts = np.zeros((len(truth_ids) + 2, len(predicted_ids) + 2), dtype=np.int64)
    truth_order, predicted_order = np.argsort(truth_ids), np.argsort(predicted_ids)
    _count(
        truth,
        predicted,
        np.ascontiguousarray(truth_ids[truth_order], dtype=np.int64),
        truth_order.astype(np.int64) + 1,
        np.ascontiguousarray(predicted_ids[predicted_order], dtype=np.int64),
        predicted_order.astype(np.int64) + 1,
        counts,
    )
    return counts


@jit
def _count(
    truth: np.ndarray,
    predicted: np.ndarray,
    truth_sorted: np.ndarray,
    truth_label: np.ndarray,
    predicted_sorted: np.ndarray,
    predicted_label: np.ndarray,
    counts: np.ndarray,
) -> None:
    truth_other, predicted_other = truth_sorted.shape[0] + 1, predicted_sorted.shape[0] + 1
    last_truth, last_predicted = np.int64(-1), np.int64(-1)
    g, p = 0, 0
    for i in range(truth.shape[0]):
        if truth.shape[1] == 3:
            t = np.int64(truth[i, 0]) + 256 * np.int64(truth[i, 1]) + 65536 * np.int64(truth[i, 2])
        else:
            t = np.int64(truth[i, 0])
        if predicted.shape[1] == 3:
            q = np.int64(predicted[i, 0]) + 256 * np.int64(predicted[i, 1]) + 65536 * np.int64(predicted[i, 2])
        else:
            q = np.int64(predicted[i, 0])
        if t != last_truth:
            last_truth = t
            g = _label(t, truth_sorted, truth_label, truth_other)
        if q != last_predicted:
            last_predicted = q
            p = _label(q, predicted_sorted, predicted_label, predicted_other)
        counts[g, p] += 1


@jit(inline=True)
def _label(value: int, ids: np.ndarray, labels: np.ndarray, other: int) -> int:
    """0 for void, the segment's label for a listed id, `other` for any other id."""
    if value == 0:
        return 0
    at = np.searchsorted(ids, value)
    if at < ids.shape[0] and ids[at] == value:
        return int(labels[at])
    return other
