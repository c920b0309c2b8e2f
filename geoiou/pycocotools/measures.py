"""The overlap function of each ``iouType``, for `coco_match`: pairs of rows in, overlaps out.

The matcher names pairs by the rows of the evaluation (`GroupRows`); these functions read the
geometry of those rows from the `COCO` objects' tables and measure them: pycocotools' arithmetic
for ``bbox``, ``segm`` and ``keypoints`` (`geoiou.pycocotools.overlaps`), geoiou's exact overlaps
of `evaluate_coco` for ``obb`` and ``polygon`` (the same stores and kernels).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.evaluation.coco import OverlapFunction
from geoiou.evaluation.detection import _overlap_function, _Store
from geoiou.pycocotools.overlaps import box_overlaps, mask_overlaps, object_keypoint_similarity
from geoiou.pycocotools.tables import Table
from geoiou.regions import Box

__all__ = ["PairMeasure", "overlap_function"]


#: pycocotools' overlap of pairs named by table rows: ``(dt_rows, gt_rows, crowd) -> values``.
PairMeasure = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def overlap_function(
    iou_type: str,
    predicted: Table,
    dt_rows: np.ndarray,
    truth: Table,
    gt_rows: np.ndarray,
    *,
    sigmas: np.ndarray | None = None,
    use_cats: bool = True,
) -> OverlapFunction:
    """The `OverlapFunction` of `iou_type` over the table rows `dt_rows` and `gt_rows` (the evaluation's rows).

    ``keypoints`` without categories gives NaN (never a match): pycocotools' ``computeOks`` finds no
    pairs when ``useCats`` is 0.

    Examples
    --------
    >>> from geoiou.pycocotools.tables import results_table
    >>> boxes = results_table(None, np.array([[1, 0, 0, 2, 2, 0.9, 1], [1, 1, 1, 2, 2, 0.8, 1]]), "bbox", {})
    >>> overlap = overlap_function("bbox", boxes, np.array([0, 1]), boxes, np.array([1]))
    >>> overlap(np.array([0, 1]), np.array([0, 0]), np.array([False, False]), None, None, None)  # both vs row 1
    array([0.14285714, 1.        ])
    """
    if iou_type in ("obb", "polygon"):
        exact = _overlap_function(_store(predicted), _store(truth), None)

        def measure(
            pair_dt: np.ndarray, pair_gt: np.ndarray, pair_crowd: np.ndarray, *blocks: np.ndarray
        ) -> np.ndarray:
            # evaluate_coco's exact overlaps on its own region stores; its mask path reads the blocks
            return exact(dt_rows[pair_dt], gt_rows[pair_gt], pair_crowd, *blocks)

        return measure
    pairs = _pair_measure(iou_type, predicted, truth, sigmas, use_cats)

    def on_rows(pair_dt: np.ndarray, pair_gt: np.ndarray, pair_crowd: np.ndarray, *blocks: np.ndarray) -> np.ndarray:
        return pairs(dt_rows[pair_dt], gt_rows[pair_gt], pair_crowd)

    return on_rows


def _pair_measure(
    iou_type: str, predicted: Table, truth: Table, sigmas: np.ndarray | None, use_cats: bool
) -> PairMeasure:
    if iou_type == "keypoints":
        return _keypoints(predicted, truth, sigmas, use_cats)
    if iou_type == "segm":
        assert predicted.runs is not None and truth.runs is not None
        dt_runs, gt_runs = predicted.runs, truth.runs
        return lambda dt, gt, crowd: mask_overlaps(dt_runs, gt_runs, dt, gt, crowd)
    # Each side's boxes checked and built once (a Box of every pair would cost more than the overlaps).
    assert predicted.boxes is not None and truth.boxes is not None
    dt_xywh, gt_xywh = predicted.boxes, truth.boxes
    boxes = (Box(dt_xywh, fmt="xywh"), Box(gt_xywh, fmt="xywh"))
    return lambda dt, gt, crowd: box_overlaps(dt_xywh, gt_xywh, dt, gt, crowd, boxes=boxes)


def _keypoints(predicted: Table, truth: Table, sigmas: np.ndarray | None, use_cats: bool) -> PairMeasure:
    assert sigmas is not None and predicted.keypoints is not None and truth.keypoints is not None
    assert truth.boxes is not None
    sigmas = np.asarray(sigmas, dtype=np.float64)
    for name, table in (("results", predicted), ("ground truth", truth)):
        assert table.keypoints is not None
        if len(table) and table.keypoints.shape[1] != 3 * len(sigmas):
            raise invalid_argument(
                "kpt_oks_sigmas",
                f"one sigma per keypoint of the {name} ({table.keypoints.shape[1] // 3} keypoints)",
                f"{len(sigmas)} sigmas",
            )
    dt_points, gt_points, gt_boxes = predicted.keypoints, truth.keypoints, truth.boxes

    def measure(dt: np.ndarray, gt: np.ndarray, crowd: np.ndarray) -> np.ndarray:
        if not use_cats:
            return np.full(len(dt), np.nan)
        return object_keypoint_similarity(dt_points, gt_points, gt_boxes, truth.area, sigmas, dt, gt)

    return measure


def _store(table: Table) -> _Store:
    assert table.regions is not None
    entries, start = [], 0
    for piece in table.regions:
        entries.append((piece, np.arange(start, start + len(piece))))
        start += len(piece)
    return _Store(entries, start)
