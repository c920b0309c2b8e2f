"""The compiled loop of action segmentation: every video's accuracy, edit score and segment hits, videos in parallel.

The frame labels of all videos come joined (``video_start`` delimits each video's frames) and
coded as integers, with a flag per code saying whether it is background. Each video writes only
its own outputs, so the result has the same bits for any number of threads.

This module is imported on first use (it loads numba), not by ``import geoiou.evaluation``.
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import jit, prange, use_threads

__all__ = ["score_videos"]


def score_videos(
    truth: np.ndarray,
    predicted: np.ndarray,
    video_start: np.ndarray,
    background: np.ndarray,
    overlaps: np.ndarray,
    mstcn_2019_compat: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Correct frames, edit score and ``[true positives, false positives, false negatives]`` per overlap, per video.

    Parameters
    ----------
    truth, predicted : ndarray of int64, shape (F,)
        Label codes of every frame of every video, joined.
    video_start : ndarray of int64, shape (V + 1,)
        Where each video's frames start (and the end).
    background : ndarray of bool
        Per label code: a background label (its runs are not segments).
    overlaps : ndarray of float64, shape (K,)
    mstcn_2019_compat : bool
        End each video's last run a frame early, as MS-TCN's 2019 script did.

    Returns
    -------
    correct : ndarray of int64, shape (V,)
    edit : ndarray of float64, shape (V,)
        ``100 * (1 - d / max(m, n))``, d the Levenshtein distance of the segment labels; 100 when
        neither side has a segment.
    counts : ndarray of int64, shape (V, K, 3)

    Examples
    --------
    >>> import numpy as np
    >>> correct, edit, counts = score_videos(np.array([0, 1, 1, 0]), np.array([0, 1, 1, 1]), np.array([0, 4]),
    ...                                      np.array([True, False]), np.array([0.5]), False)
    >>> correct.tolist(), edit.tolist(), counts[0, 0].tolist()  # [1, 3) against [1, 4): IoU 2/3
    ([3], [100.0], [1, 0, 0])
    """
    n_videos = len(video_start) - 1
    correct = np.empty(n_videos, dtype=np.int64)
    edit = np.empty(n_videos)
    counts = np.empty((n_videos, len(overlaps), 3), dtype=np.int64)
    use_threads(n_videos)
    _videos(truth, predicted, video_start, background, overlaps, mstcn_2019_compat, correct, edit, counts)
    return correct, edit, counts


@jit(inline=True)
def _segments(labels: np.ndarray, background: np.ndarray, compat: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Label, start and end of each run of one video's frames that is not background."""
    n = labels.shape[0]
    runs = 1
    for f in range(1, n):
        if labels[f] != labels[f - 1]:
            runs += 1
    label, start, end = np.empty(runs, np.int64), np.empty(runs, np.int64), np.empty(runs, np.int64)
    kept, first = 0, 0
    for f in range(1, n + 1):
        if f == n or labels[f] != labels[first]:
            stop = f - 1 if (f == n and compat) else f  # the 2019 script closed the last run at the last frame's index
            if not background[labels[first]]:
                label[kept], start[kept], end[kept] = labels[first], first, stop
                kept += 1
            first = f
    return label[:kept], start[:kept], end[:kept]


@jit(inline=True)
def _edit_distance(a: np.ndarray, b: np.ndarray) -> int:
    """Levenshtein distance of two label sequences, one row of the dynamic program at a time."""
    row = np.empty(b.shape[0] + 1, dtype=np.int64)
    for j in range(b.shape[0] + 1):
        row[j] = j
    for i in range(1, a.shape[0] + 1):
        diagonal, row[0] = row[0], i
        for j in range(1, b.shape[0] + 1):
            above = row[j]
            row[j] = min(above + 1, row[j - 1] + 1, diagonal + (0 if a[i - 1] == b[j - 1] else 1))
            diagonal = above
    return int(row[b.shape[0]])


@jit(inline=True)
def _hits(
    truth: tuple[np.ndarray, np.ndarray, np.ndarray],
    predicted: tuple[np.ndarray, np.ndarray, np.ndarray],
    overlaps: np.ndarray,
    counts: np.ndarray,
    v: int,
) -> None:
    """MS-TCN's rule: each predicted segment looks at the true segment of its label with the highest IoU (the first
    of equal ones, 0 for other labels); the distinct true segments so reached at an overlap are its true positives."""
    truth_label, truth_start, truth_end = truth
    label, start, end = predicted
    best_truth = np.empty(label.shape[0], np.int64)
    best_iou = np.empty(label.shape[0])
    for j in range(label.shape[0]):
        best_truth[j], best_iou[j] = 0, -1.0
        for x in range(truth_label.shape[0]):
            value = 0.0
            if truth_label[x] == label[j]:
                inter = max(0.0, np.float64(min(end[j], truth_end[x]) - max(start[j], truth_start[x])))
                union = np.float64(end[j] - start[j] + truth_end[x] - truth_start[x]) - inter
                value = inter / union if union > 0 else 0.0
            if value > best_iou[j]:
                best_truth[j], best_iou[j] = x, value
    hit = np.empty(truth_label.shape[0], np.bool_)
    for k in range(overlaps.shape[0]):
        for x in range(truth_label.shape[0]):
            hit[x] = False
        true_positives = 0
        for j in range(label.shape[0]):
            if best_iou[j] >= overlaps[k] and not hit[best_truth[j]]:
                hit[best_truth[j]] = True
                true_positives += 1
        counts[v, k, 0] = true_positives
        counts[v, k, 1] = label.shape[0] - true_positives
        counts[v, k, 2] = truth_label.shape[0] - true_positives


@jit(inline=True)
def _video(
    truth: np.ndarray,
    predicted: np.ndarray,
    video_start: np.ndarray,
    background: np.ndarray,
    overlaps: np.ndarray,
    compat: bool,
    correct: np.ndarray,
    edit: np.ndarray,
    counts: np.ndarray,
    v: int,
) -> None:
    frames_truth = truth[video_start[v] : video_start[v + 1]]
    frames_predicted = predicted[video_start[v] : video_start[v + 1]]
    same = 0
    for f in range(frames_truth.shape[0]):
        if frames_truth[f] == frames_predicted[f]:
            same += 1
    correct[v] = same
    truth_segments = _segments(frames_truth, background, compat)
    predicted_segments = _segments(frames_predicted, background, compat)
    longest = max(truth_segments[0].shape[0], predicted_segments[0].shape[0])
    if longest == 0:  # no segment on either side: they agree
        edit[v] = 100.0
    else:
        edit[v] = 100.0 * (1 - _edit_distance(predicted_segments[0], truth_segments[0]) / longest)
    _hits(truth_segments, predicted_segments, overlaps, counts, v)


@jit(parallel=True)
def _videos(
    truth: np.ndarray,
    predicted: np.ndarray,
    video_start: np.ndarray,
    background: np.ndarray,
    overlaps: np.ndarray,
    compat: bool,
    correct: np.ndarray,
    edit: np.ndarray,
    counts: np.ndarray,
) -> None:
    # Videos are few and long: they go to the threads from two on.
    n = video_start.shape[0] - 1
    if n < 2:
        for v in range(n):
            _video(truth, predicted, video_start, background, overlaps, compat, correct, edit, counts, v)
    else:
        for v in prange(n):
            _video(truth, predicted, video_start, background, overlaps, compat, correct, edit, counts, v)
