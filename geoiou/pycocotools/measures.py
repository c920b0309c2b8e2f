"""The overlap function of each ``iouType``, for `coco_match`: pairs of rows in, overlaps out.

The matcher names pairs by the rows of the evaluation (`GroupRows`); these functions read the
geometry of those rows from the `COCO` objects' tables and measure them: pycocotools' arithmetic
for ``bbox``, ``segm`` and ``keypoints`` (`geoiou.pycocotools.overlaps`), geoiou's exact overlaps
of `evaluate_coco` for ``obb`` and ``polygon`` (the same stores and kernels).
"""

from __future__ import annotations

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.evaluation.coco import OverlapFunction
from geoiou.evaluation.detection import _overlap_function, _Store
from geoiou.pycocotools.overlaps import box_overlaps, mask_overlaps, object_keypoint_similarity
from geoiou.pycocotools.tables import Table
from geoiou.regions import Box

__all__ = ["overlap_function"]


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
    """
    if iou_type == "keypoints":
        return _keypoints(predicted, dt_rows, truth, gt_rows, sigmas, use_cats)
    if iou_type in ("obb", "polygon"):
        return _exact(predicted, dt_rows, truth, gt_rows)
    # Each side's boxes checked and built once (a Box of every pair would cost more than the overlaps).
    boxes = None if predicted.boxes is None or truth.boxes is None else (_boxes(predicted), _boxes(truth))

    def measure(
        pair_dt: np.ndarray,
        pair_gt: np.ndarray,
        pair_crowd: np.ndarray,
        offsets: np.ndarray,
        rows: np.ndarray,
        cols: np.ndarray,
    ) -> np.ndarray:
        if iou_type == "segm":
            assert predicted.runs is not None and truth.runs is not None
            return mask_overlaps(predicted.runs, truth.runs, dt_rows[pair_dt], gt_rows[pair_gt], pair_crowd)
        assert predicted.boxes is not None and truth.boxes is not None
        return box_overlaps(predicted.boxes, truth.boxes, dt_rows[pair_dt], gt_rows[pair_gt], pair_crowd, boxes=boxes)

    return measure


def _boxes(table: Table) -> Box:
    assert table.boxes is not None
    return Box(table.boxes, fmt="xywh")


def _keypoints(
    predicted: Table, dt_rows: np.ndarray, truth: Table, gt_rows: np.ndarray, sigmas: np.ndarray | None, use_cats: bool
) -> OverlapFunction:
    assert sigmas is not None and predicted.keypoints is not None and truth.keypoints is not None
    sigmas = np.asarray(sigmas, dtype=np.float64)
    for name, table in (("results", predicted), ("ground truth", truth)):
        assert table.keypoints is not None
        if len(table) and table.keypoints.shape[1] != 3 * len(sigmas):
            raise invalid_argument(
                "kpt_oks_sigmas",
                f"one sigma per keypoint of the {name} ({table.keypoints.shape[1] // 3} keypoints)",
                f"{len(sigmas)} sigmas",
            )
    assert truth.boxes is not None

    def measure(
        pair_dt: np.ndarray,
        pair_gt: np.ndarray,
        pair_crowd: np.ndarray,
        offsets: np.ndarray,
        rows: np.ndarray,
        cols: np.ndarray,
    ) -> np.ndarray:
        if not use_cats:
            return np.full(len(pair_dt), np.nan)
        assert predicted.keypoints is not None and truth.keypoints is not None and truth.boxes is not None
        return object_keypoint_similarity(
            predicted.keypoints, truth.keypoints, truth.boxes, truth.area, sigmas, dt_rows[pair_dt], gt_rows[pair_gt]
        )

    return measure


def _exact(predicted: Table, dt_rows: np.ndarray, truth: Table, gt_rows: np.ndarray) -> OverlapFunction:
    """evaluate_coco's exact overlaps (IoU, IoF for crowd pairs) of the rows' regions, on its own region stores."""
    overlap = _overlap_function(_store(predicted), _store(truth), None)

    def measure(
        pair_dt: np.ndarray,
        pair_gt: np.ndarray,
        pair_crowd: np.ndarray,
        offsets: np.ndarray,
        rows: np.ndarray,
        cols: np.ndarray,
    ) -> np.ndarray:
        return overlap(dt_rows[pair_dt], gt_rows[pair_gt], pair_crowd, offsets, rows, cols)

    return measure


def _store(table: Table) -> _Store:
    assert table.regions is not None
    entries, start = [], 0
    for piece in table.regions:
        entries.append((piece, np.arange(start, start + len(piece))))
        start += len(piece)
    return _Store(entries, start)
