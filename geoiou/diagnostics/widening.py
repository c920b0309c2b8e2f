"""The pairs of every category of an image, measured once: the matching gets its own, the diagnostics keep all.

A protocol matches a prediction only with ground truths of its own group (its image and category),
but the diagnostics need more: the overlap of a false positive with the ground truths of *other*
categories (TIDE's classification and background errors, the confusion matrix), and its overlaps
below the matching threshold (localization errors). `widened` turns a protocol's pair source into
one that measures the pairs of a coarser group (the image, or the video) from a lower floor, hands
it on to a recorder, and gives the matching exactly the pairs the plain source would have given:
every pair is measured once, and the matching sees the same pairs whatever it is wrapped in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from geoiou.evaluation.coco import PairSource
from geoiou.evaluation.overlaps import CandidateOverlaps

__all__ = ["WidePairs", "widened"]


@dataclass(frozen=True)
class WidePairs:
    """What a widened pair source measured, by rows of the part's inputs.

    Attributes
    ----------
    evaluated : ndarray of int64, shape (D,)
        The prediction rows the protocol evaluates, in its own order (COCO drops those beyond its
        detection limit).
    dt, gt : ndarray of int64, shape (N,)
        Prediction and ground-truth rows of each pair of one coarse group whose overlap reaches the
        floor, sorted by prediction row, then ground-truth row.
    value : ndarray of float64, shape (N,)
        The overlap of each pair (IoU; IoF against a crowd region, as the protocol measures it).
    """

    evaluated: np.ndarray
    dt: np.ndarray
    gt: np.ndarray
    value: np.ndarray

    @classmethod
    def empty(cls) -> WidePairs:
        """No pair and no evaluated prediction (a part whose source was never called)."""
        none = np.zeros(0, dtype=np.int64)
        return cls(none, none, none, np.zeros(0))


def widened(
    source: PairSource,
    dt_coarse: np.ndarray,
    gt_coarse: np.ndarray,
    floor: float,
    record: Callable[[WidePairs], None],
) -> PairSource:
    """`source` measuring the pairs of each coarse group (one code per input row) from `floor` up.

    The returned pair source measures, for the rows the protocol passes, every pair of one coarse
    group (`dt_coarse`, `gt_coarse`: the image of each prediction and ground-truth row) whose overlap
    reaches ``min(floor, at_least)``, hands them to `record` as a `WidePairs`, and returns the pairs
    of the protocol's own groups that reach `at_least`, as `source` alone would.

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.evaluation.overlaps import DetectionRegions, region_pairs
    >>> from geoiou.tables.annotations import Annotations
    >>> side = lambda boxes: DetectionRegions(Annotations(image_id=[1] * len(boxes), category_id=1,
    ...     region=geoiou.Box(boxes)), np.zeros(len(boxes), np.int64), np.array([1]), None, "exact", "side")
    >>> predicted, truth = side([[0, 0, 10, 10]]), side([[0, 0, 10, 9], [0, 0, 10, 3]])
    >>> kept = []
    >>> source = widened(region_pairs(predicted, truth), np.zeros(1, np.int64), np.zeros(2, np.int64), 0.1,
    ...                  kept.append)
    >>> # The two ground truths are of another category (group 1): the matching gets nothing, the recorder both.
    >>> found = source(np.array([0]), np.array([0, 1]), np.array([0]), np.array([1, 1]), np.zeros(2, bool), 0.5)
    >>> found.pair_start.tolist(), kept[0].gt.tolist(), kept[0].value.tolist()
    ([0, 0], [0, 1], [0.9, 0.3])
    """

    def pairs(
        dt_rows: np.ndarray,
        gt_rows: np.ndarray,
        dt_group: np.ndarray,
        gt_group: np.ndarray,
        gt_crowd: np.ndarray,
        at_least: float,
    ) -> CandidateOverlaps:
        # The source takes positions sorted by group: sort both sides by their coarse group (stable, so each
        # coarse group keeps the protocol's order) and map the pairs back to the protocol's positions.
        dt_by, gt_by = np.argsort(dt_coarse[dt_rows], kind="stable"), np.argsort(gt_coarse[gt_rows], kind="stable")
        lowest = min(floor, at_least)
        wide = source(
            dt_rows[dt_by],
            gt_rows[gt_by],
            dt_coarse[dt_rows][dt_by],
            gt_coarse[gt_rows][gt_by],
            gt_crowd[gt_by],
            lowest,
        )
        counts = np.diff(wide.pair_start)
        dt_position = dt_by[np.repeat(np.arange(len(dt_by), dtype=np.int64), counts)]
        gt_position = gt_by[wide.pair_gt]
        value = wide.value
        reached = value >= lowest  # a source may hand on pairs below what it was asked for (intervals do)
        dt, gt = dt_rows[dt_position[reached]], gt_rows[gt_position[reached]]
        by_row = np.lexsort((gt, dt))
        record(WidePairs(np.asarray(dt_rows, np.int64), dt[by_row], gt[by_row], value[reached][by_row]))
        return _own_pairs(dt_position, gt_position, value, dt_group, gt_group, at_least, len(dt_rows))

    return pairs


def _own_pairs(
    dt_position: np.ndarray,
    gt_position: np.ndarray,
    value: np.ndarray,
    dt_group: np.ndarray,
    gt_group: np.ndarray,
    at_least: float,
    n_dt: int,
) -> CandidateOverlaps:
    """The pairs of the protocol's own groups that reach `at_least`, by prediction position."""
    keep = (dt_group[dt_position] == gt_group[gt_position]) & (value >= at_least)
    dt, gt, kept = dt_position[keep], gt_position[keep], value[keep]
    order = np.argsort(dt, kind="stable")
    pair_start = np.zeros(n_dt + 1, dtype=np.int64)
    np.cumsum(np.bincount(dt, minlength=n_dt), out=pair_start[1:])
    return CandidateOverlaps(pair_start, gt[order], kept[order])
