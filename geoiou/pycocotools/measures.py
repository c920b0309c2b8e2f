"""The pair source of each ``iouType``, for `coco_match`: pairs of an evaluation's rows in, overlaps out.

``bbox``, ``segm``, ``obb`` and ``polygon`` are `evaluate_coco`'s own pairs (`region_pairs`): the
candidate search and the exact kernels over the tables' regions. Boxes keep their sides as
written and masks are held as COCO runs, so the values are pycocotools' bit for bit (``w * h``
areas, integer pixel counts, ``i / (a + b - i)``, IoF over the result against crowd regions); the
rotated boxes and polygons are exact. ``boundary`` is `evaluate_coco`'s boundary AP over the segm
masks (`boundary_pairs`: ``min(mask IoU, boundary IoU)``, boundary-iou-api's). ``keypoints``
measures every pair of a group (`every_pair`) with pycocotools' OKS, which is no overlap of regions.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.boundary import DILATION_RATIO
from geoiou.evaluation.boundary_pairs import BoundaryBands, boundary_pairs
from geoiou.evaluation.coco import PairSource
from geoiou.evaluation.overlaps import CandidateOverlaps, every_pair, region_pairs
from geoiou.pycocotools.keypoints import object_keypoint_similarity
from geoiou.pycocotools.tables import Table

__all__ = ["PairMeasure", "pair_source"]


#: pycocotools' measure of pairs named by table rows: ``(dt_rows, gt_rows, crowd) -> values``.
PairMeasure = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def pair_source(
    iou_type: str,
    predicted: Table,
    dt_rows: np.ndarray,
    truth: Table,
    gt_rows: np.ndarray,
    *,
    sigmas: np.ndarray | None = None,
    use_cats: bool = True,
    dilation_ratio: float = DILATION_RATIO,
) -> PairSource:
    """The `PairSource` of `iou_type` over the table rows `dt_rows` and `gt_rows` (the evaluation's rows).

    ``keypoints`` without categories gives NaN (never a match): pycocotools' ``computeOks`` finds no
    pairs when ``useCats`` is 0.

    Examples
    --------
    >>> from geoiou.pycocotools.tables import results_table
    >>> boxes = results_table(None, np.array([[1, 0, 0, 2, 2, 0.9, 1], [1, 1, 1, 2, 2, 0.8, 1]]), "bbox", {})
    >>> source = pair_source("bbox", boxes, np.array([0, 1]), boxes, np.array([1]))
    >>> found = source(np.array([0, 1]), np.array([0]), np.zeros(2, np.int64), np.zeros(1, np.int64),
    ...                np.zeros(1, bool), 0.1)  # both against row 1
    >>> found.pair_start.tolist(), found.value.tolist()
    ([0, 1, 2], [0.14285714285714285, 1.0])
    """
    if iou_type == "keypoints":
        source = every_pair(_keypoints(predicted, truth, sigmas, use_cats))
    elif iou_type == "boundary":
        assert predicted.regions is not None and truth.regions is not None  # the segm tables
        bands = (BoundaryBands(table.regions, dilation_ratio) for table in (predicted, truth))  # type: ignore[arg-type]
        source = boundary_pairs(predicted.regions, truth.regions, *bands)
    else:
        assert predicted.regions is not None and truth.regions is not None  # the tables of these types have them
        source = region_pairs(predicted.regions, truth.regions)

    def pairs(
        dt: np.ndarray, gt: np.ndarray, dt_group: np.ndarray, gt_group: np.ndarray, crowd: np.ndarray, at_least: float
    ) -> CandidateOverlaps:
        # The matcher names rows of the evaluation; the tables hold every row of the COCO objects.
        return source(dt_rows[dt], gt_rows[gt], dt_group, gt_group, crowd, at_least)

    return pairs


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
