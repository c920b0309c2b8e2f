"""The compiled loops of the KITTI protocol (`geoiou.evaluation.kitti`): the devkit's matching, image by image.

Objects are sorted by image (their order within an image kept: the devkit's loops run in file
order), and each ground truth lists its candidate predictions (pairs whose overlap may pass the
class threshold) in prediction order. Images are independent, so each loop runs over images in
parallel (`prange`) and writes per-image counts that are summed after: integers, the same for any
number of threads.

- `first_pass`: the recall pass (``compute_fp=False``): each ground truth that is not ignored
  takes, among the predictions not yet assigned with overlap above the threshold, the one of
  highest score (the first of equal scores); the scores of the true positives are returned.
- `get_thresholds`: the scores at which the recall crosses each of the 41 sample points.
- `threshold_counts`: for each threshold, the precision pass (``compute_fp=True``): predictions
  below it are left out, each ground truth takes the prediction of greatest overlap (an ignored
  prediction, one too short in the image, only if nothing else passes), then the false positives
  are counted, less those in a don't-care region (the image-box metric's ``nstuff``).
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import jit, prange

__all__ = ["first_pass", "get_thresholds", "threshold_counts"]

_NO_DETECTION = -10000000.0


@jit
def _match_image(
    gt_lo: int,
    gt_hi: int,
    pair_start: np.ndarray,
    pair_dt: np.ndarray,
    pair_value: np.ndarray,
    ignored_gt: np.ndarray,
    ignored_dt: np.ndarray,
    below: np.ndarray,
    score: np.ndarray,
    min_overlap: float,
    compute_fp: bool,
    assigned: np.ndarray,
    dt_base: int,
    tp_score: np.ndarray,
    gt_base: int,
) -> tuple[int, int]:
    """The devkit's ``computeStatistics`` loop over the ground truths of one image: (tp, fn).

    Marks `assigned` (indexed from the prediction `dt_base`; `below` too), and writes each true
    positive's score into `tp_score` (indexed from the ground truth `gt_base`).
    """
    tp = fn = 0
    for g in range(gt_lo, gt_hi):
        tp_score[g - gt_base] = np.nan
        if ignored_gt[g] == -1:
            continue
        chosen, valid, best = -1, _NO_DETECTION, 0.0
        took_ignored = False
        for p in range(pair_start[g], pair_start[g + 1]):
            d = pair_dt[p]
            if ignored_dt[d] == -1 or assigned[d - dt_base] or below[d - dt_base]:
                continue
            overlap = pair_value[p]
            if not overlap > min_overlap:
                continue
            if not compute_fp:
                if score[d] > valid:
                    chosen, valid = d, score[d]
            elif (overlap > best or took_ignored) and ignored_dt[d] == 0:
                best, chosen, valid, took_ignored = overlap, d, 1.0, False
            elif valid == _NO_DETECTION and ignored_dt[d] == 1:
                chosen, valid, took_ignored = d, 1.0, True
        if valid == _NO_DETECTION:
            if ignored_gt[g] == 0:
                fn += 1
        elif ignored_gt[g] == 1 or ignored_dt[chosen] == 1:
            assigned[chosen - dt_base] = True
        else:
            tp += 1
            tp_score[g - gt_base] = score[chosen]
            assigned[chosen - dt_base] = True
    return tp, fn


@jit(parallel=True)
def first_pass(
    gt_image_start: np.ndarray,
    pair_start: np.ndarray,
    pair_dt: np.ndarray,
    pair_value: np.ndarray,
    ignored_gt: np.ndarray,
    ignored_dt: np.ndarray,
    score: np.ndarray,
    min_overlap: float,
) -> np.ndarray:
    """Per ground truth, the score of the prediction it takes as a true positive in the recall pass (NaN: none)."""
    n_images = gt_image_start.shape[0] - 1
    tp_score = np.empty(pair_start.shape[0] - 1)
    assigned = np.empty(score.shape[0], dtype=np.bool_)
    below = np.empty(score.shape[0], dtype=np.bool_)
    for d in range(score.shape[0]):
        assigned[d] = below[d] = False
    for image in prange(n_images):
        _match_image(
            gt_image_start[image],
            gt_image_start[image + 1],
            pair_start,
            pair_dt,
            pair_value,
            ignored_gt,
            ignored_dt,
            below,
            score,
            min_overlap,
            False,
            assigned,
            0,
            tp_score,
            0,
        )
    return tp_score


@jit
def get_thresholds(scores: np.ndarray, n_ground_truths: int, n_points: int) -> np.ndarray:
    """The devkit's ``getThresholds``: the scores (descending) at which the recall best reaches each sample point."""
    ordered = np.sort(scores)[::-1]
    kept = np.empty(ordered.shape[0])
    count = 0
    current = 0.0
    n = ordered.shape[0]
    for i in range(n):
        left = (i + 1) / n_ground_truths
        right = (i + 2) / n_ground_truths if i < n - 1 else left
        if (right - current) < (current - left) and i < n - 1:
            continue
        kept[count] = ordered[i]
        count += 1
        current += 1.0 / (n_points - 1.0)
    return kept[:count]


@jit(parallel=True)
def threshold_counts(
    thresholds: np.ndarray,
    gt_image_start: np.ndarray,
    dt_image_start: np.ndarray,
    dc_image_start: np.ndarray,
    pair_start: np.ndarray,
    pair_dt: np.ndarray,
    pair_value: np.ndarray,
    dc_pair_start: np.ndarray,
    dc_pair_dt: np.ndarray,
    dc_pair_value: np.ndarray,
    ignored_gt: np.ndarray,
    ignored_dt: np.ndarray,
    score: np.ndarray,
    min_overlap: float,
) -> np.ndarray:
    """``(len(thresholds), 3)`` true positives, false positives and false negatives of the precision pass."""
    n_images = gt_image_start.shape[0] - 1
    n_thresholds = thresholds.shape[0]
    per_image = np.empty((n_images, n_thresholds, 3), dtype=np.int64)
    for image in prange(n_images):
        dt_lo, dt_hi = dt_image_start[image], dt_image_start[image + 1]
        gt_lo, gt_hi = gt_image_start[image], gt_image_start[image + 1]
        # This image's predictions and ground truths only, indexed from its first ones.
        assigned = np.empty(dt_hi - dt_lo, dtype=np.bool_)
        below = np.empty(dt_hi - dt_lo, dtype=np.bool_)
        tp_score = np.empty(gt_hi - gt_lo)
        for t in range(n_thresholds):
            for d in range(dt_lo, dt_hi):
                assigned[d - dt_lo] = False
                below[d - dt_lo] = score[d] < thresholds[t]
            tp, fn = _match_image(
                gt_lo,
                gt_hi,
                pair_start,
                pair_dt,
                pair_value,
                ignored_gt,
                ignored_dt,
                below,
                score,
                min_overlap,
                True,
                assigned,
                dt_lo,
                tp_score,
                gt_lo,
            )
            fp = 0
            for d in range(dt_lo, dt_hi):
                if not (assigned[d - dt_lo] or ignored_dt[d] != 0 or below[d - dt_lo]):
                    fp += 1
            # Predictions in a don't-care region (by the region's order, then the predictions') are not counted.
            for c in range(dc_image_start[image], dc_image_start[image + 1]):
                for p in range(dc_pair_start[c], dc_pair_start[c + 1]):
                    d = dc_pair_dt[p]
                    if assigned[d - dt_lo] or ignored_dt[d] != 0 or below[d - dt_lo]:
                        continue
                    if dc_pair_value[p] > min_overlap:
                        assigned[d - dt_lo] = True
                        fp -= 1
            per_image[image, t, 0] = tp
            per_image[image, t, 1] = fp
            per_image[image, t, 2] = fn
    counts = np.empty((n_thresholds, 3), dtype=np.int64)
    for t in range(n_thresholds):
        for k in range(3):
            counts[t, k] = 0
    for image in range(n_images):
        for t in range(n_thresholds):
            for k in range(3):
                counts[t, k] += per_image[image, t, k]
    return counts
