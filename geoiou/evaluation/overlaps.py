"""The overlaps a detection protocol matches on: the regions of each side by row, and their candidate pairs.

A prediction is compared only with the ground truths of its group (its image, and its category
unless categories are pooled). Among those, a pair whose bounds do not overlap with positive
measure shares no area: its IoU (and IoF) is 0, which never reaches a threshold (thresholds are
positive for COCO, and VOC needs an overlap strictly above its threshold). So the pairs measured
are the *candidates* the compiled sweep of `geoiou.kernels.candidates` finds over every group at
once, not every pair of an image: memory and time grow with the pairs that overlap, a crowded
image of thousands of objects costs what its neighbours cost.

Each candidate's intersection is measured by the exact kernel of its pair of kinds, one call per
combination of region batches (`geoiou.grouped_overlaps.pair_intersections`), and turned into IoU,
or into IoF (intersection over the prediction's measure) against a crowd region, with the
formulas pycocotools uses: ``i / (a + b - i)`` and ``i / a``, 0 where the denominator is 0.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from geoiou._validation import invalid_argument as _fail
from geoiou.dispatch import find_kernel
from geoiou.grouped_overlaps import RowBlocks, pair_intersections
from geoiou.regions import Interval, Mask, Polygon, Region
from geoiou.rle_rasterize import coco_compat_polygon_runs
from geoiou.evaluation.prepared import PreparedPart
from geoiou.tables.annotations import Annotations

__all__ = ["CandidateOverlaps", "DetectionRegions", "candidate_overlaps", "every_pair", "region_pairs", "regions_of"]

#: Candidate pairs measured per step (16 MB of indices): memory follows a stretch of predictions, not all pairs.
CHUNK_PAIRS = 1 << 20


class DetectionRegions:
    """The regions of one side of a detection evaluation, by row, with their measures.

    Polygons are rasterized as pycocotools does when asked (``polygon_iou="pycocotools"``: one
    batch of masks per image size, each mask at its image's size); masks are checked against the
    image sizes when those are known.

    Attributes
    ----------
    rows : RowBlocks
        Row ``r`` is ``rows.blocks[rows.block_of[r]][rows.index[r]]``.
    area : ndarray of float64
        Each row's measure (after rasterization, a polygon's raster's).
    """

    def __init__(
        self,
        annotations: Annotations,
        image: np.ndarray,
        image_ids: np.ndarray,
        sizes: np.ndarray | None,
        polygon_iou: str,
        param: str,
    ) -> None:
        entries: list[tuple[Region, np.ndarray]] = []
        start = 0
        for piece in annotations.regions:
            rows = np.arange(start, start + len(piece))
            start += len(piece)
            if isinstance(piece, Polygon) and polygon_iou == "pycocotools":
                assert sizes is not None  # PreparedPart requires sizes with polygon_iou="pycocotools"
                entries += _rasterized(piece, rows, sizes[image[rows]], param)
                continue
            if isinstance(piece, Mask) and sizes is not None:
                _check_mask_sizes(piece, rows, image, image_ids, sizes, param)
            entries.append((piece, rows))
        self.rows = RowBlocks.of_entries(entries, len(annotations))
        self.area = self.rows.areas()

    @property
    def kinds(self) -> set[type[Region]]:
        """The region kinds present."""
        return self.rows.kinds

    def bounds(self, rows: np.ndarray) -> np.ndarray:
        """The bounds of `rows`, ``(len(rows), 2 * ndim)``; NaN for empty regions."""
        bounds: np.ndarray = self._bounds.take(rows, axis=0)  # a copy of whole rows (indexing: 4x slower)
        return bounds

    @functools.cached_property
    def _bounds(self) -> np.ndarray:
        """The bounds of every row, computed once (the protocols ask for both orders of a side)."""
        return self.rows.bounds()


def _rasterized(piece: Polygon, rows: np.ndarray, row_sizes: np.ndarray, param: str) -> list[tuple[Region, np.ndarray]]:
    """Polygons as pycocotools' masks at their images' sizes: one batch of masks per image size."""
    runs = coco_compat_polygon_runs(piece, row_sizes, f"{param}.region")
    distinct, size_of_row = np.unique(row_sizes, axis=0, return_inverse=True)
    entries: list[tuple[Region, np.ndarray]] = []
    for k in range(len(distinct)):
        here = np.flatnonzero(size_of_row.reshape(-1) == k)
        entries.append((Mask._from_runs(runs.take(here)), rows[here]))
    return entries


def _check_mask_sizes(
    masks: Mask, rows: np.ndarray, image: np.ndarray, image_ids: np.ndarray, sizes: np.ndarray, param: str
) -> None:
    if len(masks) == 0:
        return
    expected = sizes[image[rows]]
    given = masks.source_shape  # each mask's own size (a batch of several sizes shares the largest grid)
    wrong = (given != expected).any(axis=-1) | (masks.origin != 0).any(axis=-1)
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        h, w = expected[i]
        x0, y0 = masks.origin[i]
        raise _fail(
            f"{param}.region",
            f"masks of their image's size at origin (0, 0): {h}x{w} pixels for image "
            f"{image_ids[image[rows[i]]].item()!r}",
            f"a {given[i][0]}x{given[i][1]} mask at origin ({x0:g}, {y0:g}) at row {rows[i]}",
        )


def regions_of(prepared: PreparedPart, polygon_iou: str) -> tuple[DetectionRegions, DetectionRegions]:
    """The regions of the ground truth and of the predictions of a prepared part, checked to be comparable."""
    ids, sizes = prepared.image_ids, prepared.sizes
    truth = DetectionRegions(prepared.truth, prepared.gt_image, ids, sizes, polygon_iou, "ground_truth")
    predicted = DetectionRegions(prepared.predicted, prepared.dt_image, ids, sizes, polygon_iou, "predictions")
    if len(truth.area) and len(predicted.area):
        _check_kinds(truth, predicted)
    return truth, predicted


def _check_kinds(truth: DetectionRegions, predicted: DetectionRegions) -> None:
    """Refuse predictions of a kind that cannot be compared with some ground-truth kind."""
    kinds = truth.kinds | predicted.kinds
    if Interval in kinds and len(kinds) > 1:
        raise _fail(
            "predictions.region",
            "of a kind comparable with the ground truth's (intervals only with intervals)",
            f"{sorted(k.__name__ for k in predicted.kinds)} against {sorted(k.__name__ for k in truth.kinds)}",
        )
    for a in predicted.kinds:
        for b in truth.kinds:
            find_kernel(a, b)


@dataclass(frozen=True)
class CandidateOverlaps:
    """The candidate pairs of the predictions (by position), with the overlap of each.

    Attributes
    ----------
    pair_start : ndarray of int64, shape (D + 1,)
        Prediction position d has the pairs ``pair_start[d]`` to ``pair_start[d + 1]``.
    pair_gt : ndarray of int64, shape (P,)
        The ground truth's position of each pair.
    value : ndarray of float64, shape (P,)
        IoU, or IoF against a crowd ground truth.
    """

    pair_start: np.ndarray
    pair_gt: np.ndarray
    value: np.ndarray


def candidate_overlaps(
    predicted: DetectionRegions,
    truth: DetectionRegions,
    dt_rows: np.ndarray,
    gt_rows: np.ndarray,
    dt_group: np.ndarray,
    gt_group: np.ndarray,
    gt_crowd: np.ndarray,
    at_least: float,
) -> CandidateOverlaps:
    """The pairs of predictions and ground truths of one group that may overlap, measured exactly.

    Parameters
    ----------
    predicted, truth : DetectionRegions
    dt_rows, gt_rows : ndarray of int64
        The rows of the prediction and ground-truth positions (the protocol's sorted orders).
    dt_group, gt_group : ndarray of int64
        The group of each position (only pairs of one group are compared).
    gt_crowd : ndarray of bool
        Per ground-truth position: a crowd region, measured by IoF.
    at_least : float
        Pairs whose overlap is below it are left out (it is the lowest threshold the protocol can
        match at; NaN never matches).

    Examples
    --------
    >>> import numpy as np, geoiou
    >>> from geoiou.tables.annotations import Annotations
    >>> side = lambda boxes: DetectionRegions(Annotations(image_id=[1] * len(boxes), category_id=1,
    ...     region=geoiou.Box(boxes)), np.zeros(len(boxes), np.int64), np.array([1]), None, "exact", "side")
    >>> predicted, truth = side([[0, 0, 2, 2], [5, 5, 6, 6]]), side([[0, 0, 2, 1], [9, 9, 9.5, 9.5]])
    >>> found = candidate_overlaps(predicted, truth, np.arange(2), np.arange(2), np.zeros(2, np.int64),
    ...                            np.zeros(2, np.int64), np.zeros(2, bool), 0.1)
    >>> found.pair_start.tolist(), found.pair_gt.tolist(), found.value.tolist()
    ([0, 1, 1], [0], [0.5])
    """
    from geoiou.evaluation.protocol_loops import GroupCandidates  # compiled: loaded on first use

    found = GroupCandidates(predicted.bounds(dt_rows), dt_group, truth.bounds(gt_rows), gt_group)

    def measure(dt: np.ndarray, gt: np.ndarray) -> np.ndarray:
        return _overlaps(predicted, truth, dt_rows[dt], gt_rows[gt], gt_crowd[gt])

    return _measured(found, measure, len(dt_rows), at_least)


def _measured(
    found: Any, measure: Callable[[np.ndarray, np.ndarray], np.ndarray], n_dt: int, at_least: float | None
) -> CandidateOverlaps:
    """The pairs `found` measured a stretch of predictions at a time, those below `at_least` left out."""
    from geoiou.evaluation.protocol_loops import kept_pairs  # compiled: loaded on first use

    kept_gt, kept_value = [], []
    counts = np.zeros(n_dt, dtype=np.int64)
    for first, stop in _stretches(found.counts):
        dt, gt = found.of_predictions(first, stop)
        value = np.require(measure(dt, gt), dtype=np.float64, requirements=("C", "W"))
        kept = kept_pairs(dt, gt, value, -np.inf if at_least is None else at_least, at_least is None, counts)
        kept_gt.append(gt[:kept])
        kept_value.append(value[:kept])
    pair_start = np.zeros(n_dt + 1, dtype=np.int64)
    np.cumsum(counts, out=pair_start[1:])
    return CandidateOverlaps(pair_start, _joined(kept_gt, np.int64), _joined(kept_value, np.float64))


def region_pairs(predicted: DetectionRegions, truth: DetectionRegions) -> Callable[..., CandidateOverlaps]:
    """The pair source of two sides' regions: the pairs of a group whose bounds meet, measured exactly (see
    `candidate_overlaps`, whose remaining arguments it takes)."""
    return functools.partial(candidate_overlaps, predicted, truth)


def every_pair(measure: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]) -> Callable[..., CandidateOverlaps]:
    """The pair source of every pair of a group, measured by ``measure(dt_rows, gt_rows, crowd) -> values``.

    For measures that are not overlaps of regions (pycocotools' keypoint similarity is positive for
    pairs far apart) or to see every pair, as pycocotools' ``ious`` shows them; pairs are measured
    a stretch of predictions at a time, and all kept (``at_least`` is not applied).

    Examples
    --------
    >>> source = every_pair(lambda dt, gt, crowd: (dt + 1.0) / (gt + 2.0))
    >>> found = source(np.arange(2), np.arange(2), np.zeros(2, np.int64), np.zeros(2, np.int64), np.zeros(2, bool), 0.5)
    >>> found.pair_start.tolist(), found.pair_gt.tolist(), found.value.tolist()
    ([0, 2, 4], [0, 1, 0, 1], [0.5, 0.3333333333333333, 1.0, 0.6666666666666666])
    """

    def pairs(
        dt_rows: np.ndarray,
        gt_rows: np.ndarray,
        dt_group: np.ndarray,
        gt_group: np.ndarray,
        gt_crowd: np.ndarray,
        at_least: float,
    ) -> CandidateOverlaps:
        from geoiou.evaluation.protocol_loops import GroupCandidates  # compiled: loaded on first use

        found = GroupCandidates(None, dt_group, None, gt_group)
        return _measured(found, lambda dt, gt: measure(dt_rows[dt], gt_rows[gt], gt_crowd[gt]), len(dt_rows), None)

    return pairs


def _overlaps(
    predicted: DetectionRegions, truth: DetectionRegions, dt: np.ndarray, gt: np.ndarray, crowd: np.ndarray
) -> np.ndarray:
    """IoU of the pairs of rows, IoF (over the prediction's measure) for crowd ground truths; 0 for 0/0."""
    from geoiou.evaluation.protocol_loops import detection_overlaps  # compiled: loaded on first use

    intersection = pair_intersections(predicted.rows, truth.rows, dt, gt)
    return detection_overlaps(intersection, predicted.area, truth.area, dt, gt, crowd)


def _stretches(counts: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive ranges of predictions holding about `CHUNK_PAIRS` candidate pairs each (at least one each)."""
    ends = np.cumsum(counts)
    steps = np.arange(1, int(ends[-1]) // CHUNK_PAIRS + 1) * CHUNK_PAIRS if len(ends) else np.zeros(0, np.int64)
    cuts = np.searchsorted(ends, steps) + 1
    bounds = np.unique(np.concatenate([[0], cuts, [len(counts)]]).clip(0, len(counts)))
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist())) or [(0, 0)]


def _joined(parts: list[np.ndarray], dtype: Any) -> np.ndarray:
    if len(parts) == 1:  # one stretch (the usual): no copy
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
