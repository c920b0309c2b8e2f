"""pycocotools' object keypoint similarity (``COCOeval.computeOks``), bit for bit, on pairs of rows.

OKS is not an overlap of regions: a predicted skeleton far from a ground truth still has a
(small) positive similarity, so keypoint evaluations measure every pair of a group
(`geoiou.evaluation.overlaps.every_pair`) with this function.
"""

from __future__ import annotations

import numpy as np

__all__ = ["object_keypoint_similarity"]

#: What computeOks adds to the ground truth's area.
_EPS = np.spacing(1)


def object_keypoint_similarity(
    dt_keypoints: np.ndarray,
    gt_keypoints: np.ndarray,
    gt_bbox: np.ndarray,
    gt_area: np.ndarray,
    sigmas: np.ndarray,
    pair_dt: np.ndarray,
    pair_gt: np.ndarray,
) -> np.ndarray:
    """COCOeval's OKS of keypoint pairs (``computeOks``), bit for bit.

    Keypoints are ``(n, 3K)`` rows ``x1, y1, v1, ...``. A ground truth with visible keypoints
    (``v > 0``) is compared on those; one without any measures each predicted keypoint's distance
    to the ground truth's box grown by its size on every side.

    Examples
    --------
    >>> sigmas = np.array([0.5, 0.5])
    >>> gt = np.array([[10.0, 10.0, 2.0, 20.0, 10.0, 0.0]])
    >>> dt = np.array([[11.0, 10.0, 1.0, 0.0, 0.0, 1.0]])
    >>> object_keypoint_similarity(dt, gt, np.array([[5.0, 5.0, 10.0, 10.0]]), np.array([100.0]), sigmas,
    ...                            np.array([0]), np.array([0]))
    array([0.99501248])
    """
    if len(pair_dt) == 0:
        return np.zeros(0)
    variances = (sigmas * 2) ** 2
    gt = gt_keypoints[pair_gt]
    dt = dt_keypoints[pair_dt]
    xg, yg, visible = gt[:, 0::3], gt[:, 1::3], gt[:, 2::3] > 0
    xd, yd = dt[:, 0::3], dt[:, 1::3]
    box = gt_bbox[pair_gt]
    x0, x1 = (box[:, 0] - box[:, 2])[:, None], (box[:, 0] + box[:, 2] * 2)[:, None]
    y0, y1 = (box[:, 1] - box[:, 3])[:, None], (box[:, 1] + box[:, 3] * 2)[:, None]
    seen = visible.any(axis=1)[:, None]
    dx = np.where(seen, xd - xg, np.maximum(0, x0 - xd) + np.maximum(0, xd - x1))
    dy = np.where(seen, yd - yg, np.maximum(0, y0 - yd) + np.maximum(0, yd - y1))
    e = (dx**2 + dy**2) / variances / (gt_area[pair_gt] + _EPS)[:, None] / 2
    used = np.where(seen, visible, True)
    counts = used.sum(axis=1)
    values = np.zeros(len(pair_dt))
    # computeOks sums each pair's terms alone; numpy's pairwise sum depends on the length, so the
    # pairs are summed in groups of one length, each row contiguous, as a lone array would be.
    for count in np.unique(counts).tolist():
        rows = np.flatnonzero(counts == count)
        terms = np.ascontiguousarray(e[rows][used[rows]].reshape(len(rows), count))
        values[rows] = np.exp(-terms).sum(axis=1) / count
    return values
