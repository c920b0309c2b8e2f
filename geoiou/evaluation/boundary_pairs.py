"""Boundary AP's pair source: COCO's matching on ``min(mask IoU, boundary IoU)``, as boundary-iou-api's COCOeval.

boundary-iou-api evaluates ``iouType="boundary"`` with pycocotools' protocol on one overlap per
pair: the smaller of the masks' IoU and their bands' IoU against a regular ground truth, and the
masks' IoF against a crowd region (bands play no part there). Area ranges read the masks' areas,
as for ``segm``. So boundary AP here is `coco_match` with this pair source and nothing else
changed:

- a side's bands are computed for the rows of the pairs that can still match (`BoundaryBands`:
  `geoiou.boundary.boundary_band` per block of regions, masks from their runs in compiled code),
  held as regions by row like the regions themselves;
- the pairs are the regions' own (`region_pairs`: candidates whose bounds meet, measured exactly,
  those below the lowest threshold left out): the minimum can only lower a pair's overlap, so
  only the pairs kept have their bands made and measured, with the existing kernels (Mask × Mask
  on runs for masks).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.boundary import boundary_band
from geoiou.grouped_overlaps import RowBlocks, pair_intersections
from geoiou.regions import Mask, Region
from geoiou.evaluation.overlaps import CandidateOverlaps, DetectionRegions, region_pairs

__all__ = ["BoundaryBands", "boundary_pairs"]


class BoundaryBands:
    """The bands of one side's regions, computed for the rows asked for (as `DetectionRegions` holds the regions).

    Masks are eroded by ``max(1, round(dilation_ratio · diagonal))`` of their own grid (an RLE's
    size: its image), as boundary-iou-api does; vector regions by ``dilation_ratio · diagonal`` of
    their image, exactly, which needs `sizes`. Only the rows of pairs that can still match are
    banded (`of_rows`): most predictions of a COCO result file overlap no ground truth enough.

    Parameters
    ----------
    regions : DetectionRegions
    dilation_ratio : float
    sizes : ndarray of int64, shape (rows, 2), optional
        ``(height, width)`` of each row's image.

    Examples
    --------
    >>> import numpy as np, geoiou
    >>> from geoiou.tables.annotations import Annotations
    >>> square = np.zeros((50, 50), dtype=bool); square[10:30, 10:30] = True
    >>> side = DetectionRegions(Annotations(image_id=[1], category_id=1, region=geoiou.Mask(square[None])),
    ...                         np.zeros(1, np.int64), np.array([1]), None, "exact", "side")
    >>> BoundaryBands(side, 0.02).of_rows(np.array([0]))[1]  # d = round(0.02 * 70.7) = 1: 20 * 20 - 18 * 18
    array([76.])
    """

    def __init__(self, regions: DetectionRegions, dilation_ratio: float, sizes: np.ndarray | None = None) -> None:
        self.regions, self.dilation_ratio, self.sizes = regions, dilation_ratio, sizes

    def of_rows(self, rows: np.ndarray) -> tuple[RowBlocks, np.ndarray]:
        """The bands of `rows` (row ``k`` of the result is ``rows[k]``'s band) and their areas."""
        blocks = self.regions.rows
        entries: list[tuple[Region, np.ndarray]] = []
        for k, block in enumerate(blocks.blocks):
            members = np.flatnonzero(blocks.block_of[rows] == k)
            if len(members):
                chosen = rows[members]
                entries.append((_band(block[blocks.index[chosen]], chosen, self.dilation_ratio, self.sizes), members))
        banded = RowBlocks.of_entries(entries, len(rows))
        return banded, banded.areas() if len(rows) else np.zeros(0)


def _band(regions: Region, rows: np.ndarray, dilation_ratio: float, sizes: np.ndarray | None) -> Region:
    """The bands of `regions` (the regions of `rows`)."""
    if isinstance(regions, Mask):  # their own grid's diagonal, as boundary-iou-api's
        return boundary_band(regions, dilation_ratio=dilation_ratio)
    if sizes is None:
        raise invalid_argument(
            "images",
            "{image_id: (height, width)} for boundary AP of polygons or boxes (the band's width is a fraction of "
            "the image diagonal)",
            "images without sizes",
        )
    own = sizes[rows].astype(np.float64)
    return boundary_band(regions, distance=dilation_ratio * np.sqrt((own * own).sum(axis=1)))


def boundary_pairs(
    predicted: DetectionRegions,
    truth: DetectionRegions,
    predicted_bands: BoundaryBands,
    truth_bands: BoundaryBands,
) -> Callable[..., CandidateOverlaps]:
    """The pair source of boundary AP: the regions' candidate pairs, each regular one's overlap lowered to its
    bands' IoU where that is smaller (arguments as `candidate_overlaps`).

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.tables.annotations import Annotations
    >>> side = lambda boxes: DetectionRegions(Annotations(image_id=1, category_id=1, region=geoiou.Box(boxes)),
    ...     np.zeros(len(boxes), np.int64), np.array([1]), None, "exact", "side")
    >>> predicted, truth = side([[0, 0, 10, 9]]), side([[0, 0, 10, 10]])
    >>> sizes = np.array([[60, 80]])  # the image's diagonal is 100: bands 2 wide
    >>> bands = BoundaryBands(predicted, 0.02, sizes), BoundaryBands(truth, 0.02, sizes)
    >>> source = boundary_pairs(predicted, truth, *bands)
    >>> found = source(np.arange(1), np.arange(1), np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(1, bool), 0.5)
    >>> round(float(found.value[0]), 4)  # the boxes' IoU is 0.9; their bands' (64 and 60, sharing 54) 54 / 70
    0.7714
    """
    regions = region_pairs(predicted, truth)

    def pairs(
        dt_rows: np.ndarray,
        gt_rows: np.ndarray,
        dt_group: np.ndarray,
        gt_group: np.ndarray,
        gt_crowd: np.ndarray,
        at_least: float,
    ) -> CandidateOverlaps:
        found = regions(dt_rows, gt_rows, dt_group, gt_group, gt_crowd, at_least)
        dt_position = np.repeat(np.arange(len(dt_rows)), np.diff(found.pair_start))
        regular = np.flatnonzero(~gt_crowd[found.pair_gt])  # crowd regions keep the masks' IoF
        dt_needed, dt = np.unique(dt_rows[dt_position[regular]], return_inverse=True)
        gt_needed, gt = np.unique(gt_rows[found.pair_gt[regular]], return_inverse=True)
        (dt_bands, dt_area), (gt_bands, gt_area) = predicted_bands.of_rows(dt_needed), truth_bands.of_rows(gt_needed)
        dt, gt = dt.reshape(-1), gt.reshape(-1)
        shared = pair_intersections(dt_bands, gt_bands, dt, gt)
        union = dt_area[dt] + gt_area[gt] - shared
        with np.errstate(invalid="ignore", divide="ignore"):
            band_iou = np.where(union > 0, shared / union, 0.0)
        value = found.value.copy()
        value[regular] = np.minimum(value[regular], band_iou)
        return CandidateOverlaps(found.pair_start, found.pair_gt, value)

    return pairs
