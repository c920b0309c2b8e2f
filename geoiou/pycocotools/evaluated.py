"""One matching of COCOeval's ``evaluate`` on geoiou's `coco_match`, and what pycocotools builds from it.

`match_groups` hands the rows of one evaluation (coded by category and image) to `coco_match`
with the pair source of the ``iouType`` (`geoiou.pycocotools.measures`): the same candidate
search, kernels, matcher and outcome codes as `evaluate_coco`, with pycocotools' quirks applied to
the outcomes (a ground truth of id 0 reads as no match; LVIS's unmatched results of categories not
exhaustively annotated are ignored). It keeps the result as `Evaluated`: per result its outcome
per threshold and area range, per ground truth its ignore flags, and their groups.

``evalImgs`` and ``ious`` are built from it only when read (`eval_images`, `overlaps_by_group`):
the matched ground truth of every area range is found by running the matcher again on the pairs
it kept (no overlap is measured twice), and ``ious`` measures the pairs of every group once.
Memory stays bounded: the matcher measures candidate pairs a stretch of predictions at a time
(`geoiou.evaluation.overlaps.CHUNK_PAIRS`), and what is kept per result is its outcome codes
(``T * A`` bytes) and the pairs it could match.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Sequence

import numpy as np

from geoiou.evaluation.coco import CocoArrays, CocoMatched, PairSource, coco_match, decided_codes, unmatched_as_ignored
from geoiou.evaluation.overlaps import CandidateOverlaps

__all__ = ["Evaluated", "GroupRows", "Matching", "eval_images", "match_groups", "overlaps_by_group"]

#: The names of an evalImgs entry's fields: pycocotools' and lvis-api's.
COCO_KEYS = ("image_id", "category_id", "aRng", "maxDet", "dtIds", "gtIds", "dtMatches", "gtMatches", "dtScores",
             "gtIgnore", "dtIgnore")  # fmt: skip
LVIS_KEYS = ("image_id", "category_id", "area_rng", None, "dt_ids", "gt_ids", "dt_matches", "gt_matches", "dt_scores",
             "gt_ignore", "dt_ignore")  # fmt: skip


@dataclass(frozen=True)
class GroupRows:
    """The rows of one side of an evaluation: table rows, their category and image codes, ids, flags and areas.

    Examples
    --------
    >>> rows = GroupRows(np.arange(2), np.zeros(2, np.int64), np.array([0, 1]), np.array([7, 8]), np.ones(2))
    >>> rows.ids, rows.crowd is None
    (array([7, 8]), True)
    """

    rows: np.ndarray
    category: np.ndarray
    image: np.ndarray
    ids: np.ndarray
    area: np.ndarray
    score: np.ndarray | None = None
    crowd: np.ndarray | None = None
    ignore: np.ndarray | None = None


@dataclass(frozen=True)
class Matching:
    """One evaluation's arrays and settings for `coco_match`, which `Evaluated` calls again for ``evalImgs``."""

    data: CocoArrays
    iou_thresholds: np.ndarray
    area_ranges: np.ndarray
    max_detections: int

    def match(self, pairs: PairSource, every_area: bool) -> CocoMatched:
        """`coco_match` of the data with the pair source `pairs`."""
        return coco_match(
            self.data, pairs, iou_thresholds=self.iou_thresholds, max_detections=self.max_detections,
            area_ranges=self.area_ranges, every_area=every_area,
        )  # fmt: skip


class Evaluated:
    """A matching as pycocotools' evaluate leaves it, in the matcher's orders.

    Results (by category, image and decreasing score, at most the detection limit per group)
    have their ids, scores, ranks, group codes ``k * n_images + i`` and outcome codes
    ``[D, T, A]`` (`geoiou.evaluation.protocol_loops`: true positive, false positive, ignored);
    ground truths (by category and image, table order within) their ids, group codes and ignore
    flags ``[G, A]``. The pairs that could match (`kept`) are kept to find the partners of every
    area range when ``evalImgs`` is read; `pairs` measures every pair for ``ious``. `match_groups`
    makes one (see its example).
    """

    def __init__(
        self,
        matching: Matching,
        pairs: PairSource,
        found: CocoMatched,
        kept: CandidateOverlaps,
        ids: tuple[np.ndarray, np.ndarray],
    ) -> None:
        data, n_images = matching.data, matching.data.num_images
        self.matching, self.pairs, self.kept = matching, pairs, kept
        self.n_categories, self.n_images = data.num_categories, n_images
        self.order, self.gt_order, self.rank = found.order, found.gt_order, found.rank
        self.outcome, self.decided, self.gt_ignored = found.outcome, found.decided, found.gt_ignored
        self.dt_ids, self.gt_ids = ids[0][found.order], ids[1][found.gt_order]
        self.dt_score = data.dt_score[found.order]
        self.dt_group = (data.dt_category * n_images + data.dt_image)[found.order]
        self.gt_group = (data.gt_category * n_images + data.gt_image)[found.gt_order]
        if found.partners is not None:  # found already (ground truths of id 0 needed them)
            self.__dict__["partners"] = found.partners.astype(np.int32)

    @cached_property
    def partners(self) -> np.ndarray:
        """``[D, T, A]`` int32: the position of the ground truth each result matched (-1: none), every area range.

        The matcher runs again on the pairs that could match: nothing is measured twice.
        """
        again = self.matching.match(lambda *arguments: self.kept, True)
        assert again.partners is not None  # asked for with every_area
        return again.partners.astype(np.int32)  # kept for evalImgs: half the memory of the matcher's int64

    def every_overlap(self) -> CandidateOverlaps:
        """The pairs worth showing in ``ious``: those whose regions may share something (the others overlap 0), or
        every pair of a group for a measure that is no overlap (keypoints)."""
        crowd = self.matching.data.gt_crowd[self.gt_order]
        return self.pairs(self.order, self.gt_order, self.dt_group, self.gt_group, crowd, -np.inf)

    @property
    def n_groups(self) -> int:
        """The groups (category, image) of the evaluation, with or without results and ground truths."""
        return self.n_categories * self.n_images

    def dt_spans(self, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The positions ``[start, stop)`` of the results of `groups`."""
        return np.searchsorted(self.dt_group, groups), np.searchsorted(self.dt_group, groups, side="right")

    def gt_spans(self, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The positions ``[start, stop)`` of the ground truths of `groups`."""
        return np.searchsorted(self.gt_group, groups), np.searchsorted(self.gt_group, groups, side="right")

    def regular(self) -> np.ndarray:
        """``[K, A]``: the ground truths of each category that count (not ignored) in each area range."""
        category = self.gt_group // max(self.n_images, 1)
        return np.stack(
            [np.bincount(category[~ignored], minlength=self.n_categories) for ignored in self.gt_ignored.T], axis=1
        ).reshape(self.n_categories, -1)


def match_groups(
    truth: GroupRows,
    predicted: GroupRows,
    pairs: PairSource,
    *,
    n_categories: int,
    n_images: int,
    iou_thresholds: Any,
    area_ranges: Any,
    max_detections: int,
    unmatched_ignored: np.ndarray | None = None,
) -> Evaluated:
    """COCOeval's evaluate of the rows given, on `coco_match`; `unmatched_ignored` (per result) adds lvis-api's
    rule that an unmatched result of a category not exhaustively annotated in its image is ignored.

    `iou_thresholds` and `area_ranges` (pairs ``[low, high]``) are the params' lists or arrays.

    Examples
    --------
    >>> from geoiou.evaluation.overlaps import every_pair
    >>> truth = GroupRows(np.arange(1), np.zeros(1, np.int64), np.zeros(1, np.int64), np.array([3]), np.array([50.0]))
    >>> found = GroupRows(np.arange(2), np.zeros(2, np.int64), np.zeros(2, np.int64), np.array([1, 2]),
    ...                   np.array([50.0, 50.0]), score=np.array([0.5, 0.9]))
    >>> overlap = every_pair(lambda dt, gt, crowd: np.where(dt == 0, 0.8, 0.3))  # result 0 overlaps the truth
    >>> evaluated = match_groups(truth, found, overlap, n_categories=1, n_images=1, iou_thresholds=[0.5],
    ...                          area_ranges=[[0.0, 1e10]], max_detections=100)
    >>> evaluated.dt_ids, evaluated.outcome[:, 0, 0]  # by score: the second result first, a false positive
    (array([2, 1]), array([0, 1], dtype=uint8))
    >>> eval_images(evaluated, [1], [1], [[0.0, 1e10]], 100)[0]["dtMatches"]
    array([[0., 3.]])
    >>> overlaps_by_group(evaluated, [1], [1], fortran=True)[1, 1]
    array([[0.3],
           [0.8]])
    """
    matching = Matching(
        _arrays(truth, predicted, n_categories, n_images),
        np.asarray(iou_thresholds, dtype=np.float64),
        np.asarray(area_ranges, dtype=np.float64).reshape(-1, 2),
        max_detections,
    )
    kept: list[CandidateOverlaps] = []

    def listening(*arguments: Any) -> CandidateOverlaps:
        found = pairs(*arguments)
        kept.append(_at_least(found, arguments[-1]))  # the pairs that can match: enough to match again
        return found

    zero_ids = bool((truth.ids == 0).any())  # pycocotools' quirk below needs the partners of every area range
    found = matching.match(listening, zero_ids)
    evaluated = Evaluated(matching, pairs, found, kept[-1], (predicted.ids, truth.ids))
    if zero_ids:
        evaluated.outcome = _zero_ids_unmatched(evaluated)
    if unmatched_ignored is not None:
        evaluated.outcome = unmatched_as_ignored(evaluated.outcome, unmatched_ignored[found.order])
    if zero_ids or unmatched_ignored is not None:
        evaluated.decided = decided_codes(evaluated.outcome)
    return evaluated


def _arrays(truth: GroupRows, predicted: GroupRows, n_categories: int, n_images: int) -> CocoArrays:
    return CocoArrays(
        num_images=n_images,
        num_categories=n_categories,
        gt_image=truth.image,
        gt_category=truth.category,
        gt_crowd=_flags(truth.crowd, len(truth.rows)),
        gt_ignore=_flags(truth.ignore, len(truth.rows)),
        gt_area=truth.area,
        dt_image=predicted.image,
        dt_category=predicted.category,
        dt_score=np.asarray(predicted.score, dtype=np.float64),
        dt_area=predicted.area,
    )


def _at_least(found: CandidateOverlaps, at_least: float) -> CandidateOverlaps:
    """The pairs of `found` whose overlap is at least `at_least` (the others can match nothing)."""
    keep = found.value >= at_least
    if keep.all():
        return found
    n_dt = len(found.pair_start) - 1
    dt = np.repeat(np.arange(n_dt), np.diff(found.pair_start))[keep]
    pair_start = np.zeros(n_dt + 1, dtype=np.int64)
    np.cumsum(np.bincount(dt, minlength=n_dt), out=pair_start[1:])
    return CandidateOverlaps(pair_start, found.pair_gt[keep], found.value[keep])


def _zero_ids_unmatched(evaluated: Evaluated) -> np.ndarray:
    """pycocotools records a match by the ground truth's id, so a match with a regular ground truth of id 0 reads as
    none: a false positive, or ignored when the result is outside the area range, as an unmatched result is."""
    from geoiou.evaluation.protocol_loops import FALSE_POSITIVE, IGNORED, TRUE_POSITIVE  # numba: on first use

    outcome, partners = evaluated.outcome, evaluated.partners
    zero = (outcome == TRUE_POSITIVE) & (partners >= 0) & (evaluated.gt_ids[np.maximum(partners, 0)] == 0)
    area, ranges = evaluated.matching.data.dt_area[evaluated.order], evaluated.matching.area_ranges
    outside = (area[:, None] < ranges[:, 0]) | (area[:, None] > ranges[:, 1])
    unmatched = np.where(outside[:, None, :], np.uint8(IGNORED), np.uint8(FALSE_POSITIVE))
    return np.where(zero, unmatched, outcome)


def _flags(values: np.ndarray | None, n: int) -> np.ndarray:
    return np.zeros(n, dtype=bool) if values is None else np.asarray(values, dtype=bool)


# --------------------------------------------------------------------------- what pycocotools builds
def overlaps_by_group(
    evaluated: Evaluated, image_ids: Sequence[Any], category_ids: Sequence[Any], *, fortran: bool, none: bool = False
) -> dict[tuple[Any, Any], Any]:
    """``COCOeval.ious``: ``{(imgId, catId): (D, G) overlaps}`` in pycocotools' order, ``[]`` where a side is empty
    (everywhere with `none`: pycocotools' OKS without categories).

    The pairs that share nothing are 0 without being measured; `match_groups` shows one in its example.
    """
    blocks: dict[int, np.ndarray] = {}
    if not none:
        found = evaluated.every_overlap()
        pair_dt = np.repeat(np.arange(len(evaluated.dt_group)), np.diff(found.pair_start))
        groups = np.intersect1d(evaluated.dt_group, evaluated.gt_group)  # groups with both sides
        (dt_first, dt_stop), (gt_first, gt_stop) = evaluated.dt_spans(groups), evaluated.gt_spans(groups)
        pair_first, pair_stop = found.pair_start[dt_first], found.pair_start[dt_stop]
        for group, d0, d1, g0, g1, p0, p1 in zip(
            groups.tolist(), dt_first.tolist(), dt_stop.tolist(), gt_first.tolist(), gt_stop.tolist(),
            pair_first.tolist(), pair_stop.tolist(),
        ):  # fmt: skip
            block = np.zeros((d1 - d0, g1 - g0), order="F" if fortran else "C")
            block[pair_dt[p0:p1] - d0, found.pair_gt[p0:p1] - g0] = found.value[p0:p1]
            blocks[group] = block
    n_images = evaluated.n_images
    return {
        (image, category): blocks.get(k * n_images + i, [])
        for i, image in enumerate(image_ids)
        for k, category in enumerate(category_ids)
    }


def eval_images(
    evaluated: Evaluated,
    image_ids: Sequence[Any],
    category_ids: Sequence[Any],
    area_ranges: Sequence[Any],
    max_detection: int | None,
    keys: tuple[str | None, ...] = COCO_KEYS,
) -> list[dict[str, Any] | None]:
    """``COCOeval.evalImgs``: one dict per (category, area range, image), image fastest; None where the image has
    neither ground truth nor result of the category.

    `match_groups` shows one in its example.
    """
    from geoiou.evaluation.protocol_loops import IGNORED  # numba: on first use

    n_areas = evaluated.gt_ignored.shape[1]
    groups = np.arange(evaluated.n_groups)
    (dt_first, dt_stop), (gt_first, gt_stop) = evaluated.dt_spans(groups), evaluated.gt_spans(groups)
    present = ((dt_stop > dt_first) | (gt_stop > gt_first)).tolist()
    dt_first, dt_stop, gt_first, gt_stop = (bound.tolist() for bound in (dt_first, dt_stop, gt_first, gt_stop))
    partners = evaluated.partners
    # Ground truths of each area range ordered regular first, ignored last (COCOeval's stable sort), per group.
    by_ignore = [np.lexsort((evaluated.gt_ignored[:, a], evaluated.gt_group)) for a in range(n_areas)]
    last_finder = _last_finders(partners, len(evaluated.gt_ids))
    dt_id_float = np.r_[evaluated.dt_ids.astype(np.float64), 0.0]  # position -1 (no finder) reads 0
    partner_id = np.where(partners >= 0, evaluated.gt_ids.astype(np.float64)[np.maximum(partners, 0)], 0.0)
    ignored = evaluated.outcome == IGNORED
    result: list[dict[str, Any] | None] = []
    for k, category in enumerate(category_ids):
        for a, area_range in enumerate(area_ranges):
            for i, image in enumerate(image_ids):
                g = k * evaluated.n_images + i
                if not present[g]:
                    result.append(None)
                    continue
                dt = slice(dt_first[g], dt_stop[g])
                gt = by_ignore[a][gt_first[g] : gt_stop[g]]
                fields = (
                    image,
                    category,
                    area_range,
                    max_detection,
                    evaluated.dt_ids[dt].tolist(),
                    evaluated.gt_ids[gt].tolist(),
                    np.ascontiguousarray(partner_id[dt, :, a].T),
                    np.ascontiguousarray(dt_id_float[last_finder[gt, :, a]].T),
                    evaluated.dt_score[dt].tolist(),
                    evaluated.gt_ignored[gt, a].astype(np.int64) if len(gt) else np.array([]),
                    np.ascontiguousarray(ignored[dt, :, a].T),
                )
                result.append({key: value for key, value in zip(keys, fields) if key is not None})
    return result


def _last_finders(partners: np.ndarray, n_gt: int) -> np.ndarray:
    """``[G, T, A]``: the position of the last result (highest rank) that matched each ground truth, -1 for none.

    A crowd region can be matched by several results; pycocotools' ``gtMatches`` keeps the last one written.
    """
    _, n_thresholds, n_areas = partners.shape
    finders = np.full((n_gt, n_thresholds, n_areas), -1, dtype=np.int64)
    d, t, a = np.nonzero(partners >= 0)
    np.maximum.at(finders, (partners[d, t, a], t, a), d)
    return finders
