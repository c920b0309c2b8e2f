"""pycocotools' overlap arithmetic on pairs: boxes, masks held as runs, and keypoints (OKS).

Each function measures the pairs ``(dt[pair_dt[k]], gt[pair_gt[k]])`` on geoiou's kernels and
finishes with pycocotools' own floating-point steps, so that the values are bit for bit those of
``pycocotools.mask.iou`` and ``COCOeval.computeOks``:

- boxes: the intersection from the box kernel (``min(x + w) - max(x)``, as ``bbIou``), the areas
  as ``w * h`` of the boxes as written (not ``(x2 - x1) * (y2 - y1)``, which can round otherwise);
- masks: the shared pixels counted from the runs (the kernel pycocotools' ``rleIou`` walk
  inspired), ``i / u`` in float64; masks of different sizes give -1 where their bounding boxes
  overlap, as ``rleIou`` does;
- keypoints: OKS with numpy's own ``exp`` and pairwise sums over the visible keypoints of each
  pair in their order, as ``computeOks`` sums them one pair at a time.

`COCOeval`, `mask.iou` and the LVIS evaluation share these functions: one arithmetic, three users.
"""

from __future__ import annotations

import numpy as np

from geoiou import rle as coco_rle
from geoiou.dispatch import find_kernel
from geoiou.regions import Box

__all__ = ["box_overlaps", "counts_bboxes", "mask_overlaps", "object_keypoint_similarity", "runs_bboxes"]

#: What computeOks adds to the ground truth's area.
_EPS = np.spacing(1)


def _ratio(intersection: np.ndarray, union: np.ndarray) -> np.ndarray:
    """``i / u`` where something is shared, 0 elsewhere (pycocotools never divides when nothing is shared)."""
    shared = intersection > 0
    result = np.zeros(len(intersection))
    np.divide(intersection, union, out=result, where=shared)
    return result


def box_overlaps(
    dt_xywh: np.ndarray,
    gt_xywh: np.ndarray,
    pair_dt: np.ndarray,
    pair_gt: np.ndarray,
    pair_crowd: np.ndarray,
    *,
    boxes: tuple[Box, Box] | None = None,
) -> np.ndarray:
    """IoU of box pairs (IoF over the prediction for crowd pairs), as pycocotools' ``bbIou``.

    `boxes` are the two sides as `Box` batches when the caller has them (built once per evaluation).

    Examples
    --------
    >>> dt = np.array([[0.0, 0.0, 2.0, 2.0]])
    >>> gt = np.array([[1.0, 1.0, 2.0, 2.0], [5.0, 5.0, 1.0, 1.0]])
    >>> box_overlaps(dt, gt, np.array([0, 0, 0]), np.array([0, 0, 1]), np.array([False, True, False]))
    array([0.14285714, 0.25      , 0.        ])
    """
    if len(pair_dt) == 0:
        return np.zeros(0)
    dt_boxes, gt_boxes = boxes if boxes is not None else (Box(dt_xywh, fmt="xywh"), Box(gt_xywh, fmt="xywh"))
    # The pair kernel measures the pairs by index (no batch of the pairs is built), as the metrics call it.
    kernel = find_kernel(Box, Box)
    intersection = kernel.pairs(dt_boxes, gt_boxes, np.asarray(pair_dt, np.int64), np.asarray(pair_gt, np.int64))
    dt_area = dt_xywh[pair_dt, 2] * dt_xywh[pair_dt, 3]
    gt_area = gt_xywh[pair_gt, 2] * gt_xywh[pair_gt, 3]
    return _ratio(intersection, np.where(pair_crowd, dt_area, dt_area + gt_area - intersection))


def mask_overlaps(
    dt_runs: coco_rle.Runs,
    gt_runs: coco_rle.Runs,
    pair_dt: np.ndarray,
    pair_gt: np.ndarray,
    pair_crowd: np.ndarray,
) -> np.ndarray:
    """IoU of mask pairs held as COCO runs (IoF over the prediction for crowd pairs), as pycocotools' ``rleIou``.

    Masks of different sizes are not compared: -1 where their bounding boxes (pycocotools'
    ``toBbox``) overlap, else 0.

    Examples
    --------
    >>> from geoiou import rle
    >>> dt = rle.to_runs([{"size": [3, 3], "counts": [0, 4, 5]}])
    >>> gt = rle.to_runs([{"size": [3, 3], "counts": [2, 4, 3]}, {"size": [3, 4], "counts": [0, 4, 8]}])
    >>> mask_overlaps(dt, gt, np.array([0, 0, 0]), np.array([0, 0, 1]), np.array([False, True, False]))
    array([ 0.33333333,  0.5       , -1.        ])
    """
    if len(pair_dt) == 0:
        return np.zeros(0)
    # The kernels load numba: imported when masks are first measured, as the metrics do.
    from geoiou.kernels.mask import run_overlap_counts

    shared = run_overlap_counts(dt_runs, pair_dt, gt_runs, pair_gt).astype(np.float64)
    dt_area = dt_runs.pixel_counts()[pair_dt].astype(np.float64)
    gt_area = gt_runs.pixel_counts()[pair_gt].astype(np.float64)
    values = _ratio(shared, np.where(pair_crowd, dt_area, dt_area + gt_area - shared))
    mismatched = np.flatnonzero((dt_runs.sizes[pair_dt] != gt_runs.sizes[pair_gt]).any(axis=1))
    if len(mismatched):
        dt_boxes = runs_bboxes(dt_runs, pair_dt[mismatched])
        gt_boxes = runs_bboxes(gt_runs, pair_gt[mismatched])
        boxes_meet = box_overlaps(dt_boxes, gt_boxes, *(np.arange(len(mismatched)),) * 2, pair_crowd[mismatched]) > 0
        values[mismatched] = np.where(boxes_meet, -1.0, 0.0)
    return values


def runs_bboxes(runs: coco_rle.Runs, masks: np.ndarray) -> np.ndarray:
    """pycocotools' ``toBbox`` of masks `masks` of `runs`: ``(n, 4)`` float64 ``[x, y, w, h]``.

    Examples
    --------
    >>> runs_bboxes(coco_rle.to_runs([{"size": [3, 3], "counts": [4, 2, 3]}]), np.array([0]))
    array([[1., 1., 1., 2.]])
    """
    counts = []
    for mask in np.asarray(masks, dtype=np.int64).tolist():
        first, stop = int(runs.offsets[mask]), int(runs.offsets[mask + 1])
        total = int(runs.sizes[mask].prod())
        edges = np.concatenate([[0], np.column_stack([runs.starts[first:stop], runs.stops[first:stop]]).ravel()])
        counts.append(np.diff(np.append(edges, total)))
    return counts_bboxes(counts, runs.sizes[np.asarray(masks, dtype=np.int64)])


def counts_bboxes(counts: list[np.ndarray], sizes: np.ndarray) -> np.ndarray:
    """pycocotools' ``rleToBbox`` of uncompressed counts: ``(n, 4)`` float64 ``[x, y, w, h]``, quirks included.

    The box of the true pixels (a run that goes on into a later column covers whole columns, so
    the box then spans the full height); zeros for fewer than two counts. Counts that hold no true
    pixel give what pycocotools' unsigned arithmetic gives: ``[w, h, (1 - w) % 2**32, (1 - h) % 2**32]``.

    Examples
    --------
    >>> counts_bboxes([np.array([7, 2, 3, 2, 3, 2, 11]), np.array([30]), np.array([1, 0, 29])],
    ...               np.array([[5, 6], [5, 6], [5, 6]]))
    array([[1.00000000e+00, 2.00000000e+00, 3.00000000e+00, 2.00000000e+00],
           [0.00000000e+00, 0.00000000e+00, 0.00000000e+00, 0.00000000e+00],
           [6.00000000e+00, 5.00000000e+00, 4.29496729e+09, 4.29496729e+09]])
    """
    sizes = np.asarray(sizes, dtype=np.int64).reshape(-1, 2)
    result = np.zeros((len(counts), 4))
    lengths = np.array([len(c) // 2 * 2 for c in counts], dtype=np.int64)
    if not lengths.any():
        return result
    kept = np.concatenate([np.asarray(c, dtype=np.int64)[:n] for c, n in zip(counts, lengths)])
    owner = np.repeat(np.arange(len(counts)), lengths)
    has = lengths > 0
    before = np.zeros(len(counts), dtype=np.int64)  # the counts of the RLEs before each one, summed
    before[has] = (np.cumsum(kept) - kept)[(np.cumsum(lengths) - lengths)[has]]
    first = np.cumsum(kept) - kept - np.repeat(before, lengths)  # the pixel where each run starts
    true_run = (np.arange(len(kept)) - np.repeat(np.cumsum(lengths) - lengths, lengths)) % 2 == 1
    true_run &= kept > 0  # empty true runs mark no pixel
    run_owner, run_start = owner[true_run], first[true_run]
    run_end = run_start + kept[true_run] - 1
    height = sizes[run_owner, 0]
    x_start, x_end = run_start // height, run_end // height
    y = np.concatenate([run_start % height, run_end % height])
    low_x, high_x = _reduce_by(np.concatenate([x_start, x_end]), np.tile(run_owner, 2), len(counts))
    low_y, high_y = _reduce_by(y, np.tile(run_owner, 2), len(counts))
    # A true run whose last pixel is in a later column than its first covers whole columns.
    spans = np.zeros(len(counts), dtype=bool)
    np.logical_or.at(spans, run_owner, x_end > x_start)
    low_y = np.where(spans, 0, low_y)
    high_y = np.where(spans, sizes[:, 0] - 1, high_y)
    found = np.zeros(len(counts), dtype=bool)
    found[run_owner] = True
    boxes = np.column_stack([low_x, low_y, high_x - low_x + 1, high_y - low_y + 1]).astype(np.float64)
    # No true pixel: pycocotools' start values (w, h) with unsigned sizes 0 - start + 1.
    unsigned = np.column_stack([sizes[:, 1], sizes[:, 0], (1 - sizes[:, 1]) % 2**32, (1 - sizes[:, 0]) % 2**32])
    result[has] = np.where(found[:, None], boxes, unsigned.astype(np.float64))[has]
    return result


def _reduce_by(values: np.ndarray, owner: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Minimum and maximum of `values` per owner (0 for owners without values)."""
    low = np.full(n, np.iinfo(np.int64).max)
    high = np.full(n, np.iinfo(np.int64).min)
    np.minimum.at(low, owner, values)
    np.maximum.at(high, owner, values)
    return np.where(high >= low, low, 0), np.where(high >= low, high, 0)


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
