"""COCO's detection protocol for any region kind: the mergeable `CocoEvaluation` and `evaluate_coco`.

This reproduces pycocotools' ``COCOeval`` (``evaluate``, ``accumulate``, ``summarize``): the
same precision, recall and scores arrays, bit for bit, for boxes and masks, and the same protocol
with geoiou's exact overlaps for rotated boxes, polygons and mixed kinds.

How it runs: `update` sorts the predictions of every image and category at once (by decreasing
score, ties in input order, at most ``max(max_detections)`` each), finds the candidate pairs of
each with the compiled sweep and measures them exactly (`geoiou.evaluation.overlaps`), and runs
COCOeval's greedy matching in a compiled loop over the groups (image and category) in parallel,
for every IoU threshold and area range (`geoiou.evaluation.protocol_loops`). What a part keeps is
small: per evaluated prediction its image, category, rank, score and ``[T, A]`` match flags.
`compute` joins the parts in COCOeval's order and accumulates every category, area range and
threshold in parallel. For one prediction, COCOeval picks

- among the ground truths it may still take (not matched yet at this threshold, or a crowd
  region, which can be matched again), those with overlap ``>= min(threshold, 1 - 1e-10)``;
- a regular one if there is any, else an ignored one (crowd, flagged `ignore`, or outside the
  area range);
- the highest overlap, and among equal overlaps the *last* in annotation order (COCOeval's scan
  replaces its choice whenever an overlap is not below the best so far).

Examples
--------
>>> import geoiou
>>> from geoiou.evaluation import Annotations, evaluate_coco
>>> truth = Annotations(image_id=[1, 1, 2], category_id=[1, 2, 1],
...                     region=geoiou.Box([[0, 0, 10, 10], [20, 20, 40, 40], [5, 5, 15, 25]]))
>>> preds = Annotations(image_id=[1, 1, 2], category_id=[1, 2, 1], score=[0.9, 0.8, 0.7],
...                     region=geoiou.Box([[0, 0, 10, 10], [22, 20, 40, 40], [5, 5, 15, 20]]))
>>> result = evaluate_coco(truth, preds)
>>> round(result["AP"], 4), result["AP50"]
(0.851, 1.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Literal, NamedTuple, Sequence

import numpy as np
from numpy.typing import ArrayLike

from geoiou._distinct import distinct
from geoiou._progress import Phases
from geoiou._validation import invalid_argument as _fail
from geoiou.evaluation.federated import FederatedLabels
from geoiou.evaluation.matches import ObjectMatches
from geoiou.evaluation.mergeable import MergeableEvaluation, disjoint_keys, end_to_end
from geoiou.boundary import DILATION_RATIO
from geoiou.evaluation.boundary_pairs import BoundaryBands, boundary_pairs
from geoiou.evaluation.overlaps import CandidateOverlaps, DetectionRegions, region_pairs, regions_of
from geoiou.evaluation.prepared import (
    Deferred,
    PreparedPart,
    checked_area_ranges,
    checked_categories,
    checked_max_detections,
    checked_thresholds,
    evaluated_categories,
    part_categories,
    recoded,
    summed_by_category,
)
from geoiou.evaluation.results import CocoResult
from geoiou.tables.annotations import Annotations, as_annotations

__all__ = [
    "CocoArrays",
    "CocoMatched",
    "PairHook",
    "PairSource",
    "coco_accumulate",
    "coco_match",
    "COCO_AREA_RANGES",
    "COCO_IOU_THRESHOLDS",
    "COCO_MAX_DETECTIONS",
    "COCO_RECALL_THRESHOLDS",
    "CocoEvaluation",
    "CocoSettings",
    "evaluate_coco",
]

#: COCOeval's IoU thresholds 0.50, 0.55, ..., 0.95 (``linspace``: ``arange`` drifts above 0.95).
COCO_IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)
#: COCOeval's 101 recall points 0, 0.01, ..., 1.
COCO_RECALL_THRESHOLDS = np.linspace(0.0, 1.0, 101)
#: COCOeval's limits on predictions per image and category.
COCO_MAX_DETECTIONS = (1, 10, 100)
#: COCOeval's area ranges (limits inclusive): label -> (low, high).
COCO_AREA_RANGES = {
    "all": (0.0, 1e5**2),
    "small": (0.0, 32.0**2),
    "medium": (32.0**2, 96.0**2),
    "large": (96.0**2, 1e5**2),
}

PolygonIoU = Literal["exact", "pycocotools"]
POLYGON_IOU = ("exact", "pycocotools")
IouType = Literal["region", "boundary"]
IOU_TYPES = ("region", "boundary")


@dataclass(frozen=True)
class CocoSettings:
    """The checked settings of a `CocoEvaluation` (see `evaluate_coco` for each); `merge` compares them."""

    categories: np.ndarray | None
    iou_thresholds: np.ndarray
    recall_thresholds: np.ndarray
    max_detections: tuple[int, ...]
    area_ranges: dict[str, tuple[float, float]]
    polygon_iou: str
    iou_type: str = "region"
    dilation_ratio: float = DILATION_RATIO

    @classmethod
    def checked(
        cls,
        *,
        categories: Any = None,
        iou_thresholds: Any = None,
        recall_thresholds: Any = None,
        max_detections: Any = COCO_MAX_DETECTIONS,
        area_ranges: Any = None,
        polygon_iou: Any = "exact",
        iou_type: Any = "region",
        dilation_ratio: Any = DILATION_RATIO,
    ) -> CocoSettings:
        """The settings from user values, each checked (an `InvalidArgumentError` names the one at fault)."""
        if polygon_iou not in POLYGON_IOU:
            raise _fail("polygon_iou", f"one of {POLYGON_IOU}", polygon_iou)
        if iou_type not in IOU_TYPES:
            raise _fail("iou_type", f"one of {IOU_TYPES}", iou_type)
        if isinstance(dilation_ratio, bool) or not isinstance(dilation_ratio, (int, float)) or not dilation_ratio > 0:
            raise _fail("dilation_ratio", "a positive number", dilation_ratio)
        return cls(
            categories=checked_categories(categories),
            iou_thresholds=checked_thresholds(iou_thresholds, "iou_thresholds", COCO_IOU_THRESHOLDS, low_open=True),
            recall_thresholds=checked_thresholds(
                recall_thresholds, "recall_thresholds", COCO_RECALL_THRESHOLDS, low_open=False
            ),
            max_detections=checked_max_detections(max_detections),
            area_ranges=checked_area_ranges(area_ranges, COCO_AREA_RANGES),
            polygon_iou=polygon_iou,
            iou_type=iou_type,
            dilation_ratio=float(dilation_ratio),
        )


# --------------------------------------------------------------------------- matching
@dataclass(frozen=True)
class CocoArrays:
    """What COCO's matching needs, one entry per row: codes into the evaluated images and categories, flags, areas.

    ``gt_area`` sorts ground truths into the area ranges (COCO's ``area`` field, or the measure),
    ``dt_area`` predictions (their measure).
    """

    num_images: int
    num_categories: int
    gt_image: np.ndarray
    gt_category: np.ndarray
    gt_crowd: np.ndarray
    gt_ignore: np.ndarray
    gt_area: np.ndarray
    dt_image: np.ndarray
    dt_category: np.ndarray
    dt_score: np.ndarray
    dt_area: np.ndarray


#: ``pairs(dt_rows, gt_rows, dt_group, gt_group, gt_crowd, at_least) -> CandidateOverlaps``: the pairs of one group
#: that can match, for the prediction rows `dt_rows` and ground-truth rows `gt_rows` (both sorted by the group codes
#: given), with each pair's overlap (IoF against a crowd region); pairs below `at_least` may be left out.
PairSource = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float], CandidateOverlaps]
#: ``hook(pairs, data, image_ids, category_ids) -> PairSource``: what a state's ``pair_hook`` makes of the pair source
#: of a part (`data` codes its rows into the part's `image_ids` and `category_ids`). `geoiou.diagnostics` measures
#: the pairs of every category of an image once, keeps them, and hands the matching its own pairs.
PairHook = Callable[[PairSource, CocoArrays, np.ndarray, np.ndarray], PairSource]


class CocoMatched(NamedTuple):
    """What COCO's matching leaves of one part: the evaluated predictions (sorted) and the ground truths' flags.

    ``order`` holds the rows of the evaluated predictions (at most ``max(max_detections)`` per
    image and category), sorted by category, image and decreasing score (ties in input order);
    ``rank`` is each one's place within its image and category. ``outcome`` ``[D, T, A]`` is each
    one's outcome per threshold and area range (`protocol_loops.TRUE_POSITIVE`, ``FALSE_POSITIVE``
    or ``IGNORED``), and ``decided`` ``[D, A]`` says whether it is anything but a false positive
    at some threshold. ``gt_order`` sorts the ground truths by category and image and ``gt_ignored``
    ``[G, A]`` flags them (crowd, ignored, or outside the area range) in that order. ``partners``
    ``[D, T, A]`` (when asked for) is the position in ``gt_order`` of the ground truth each
    prediction matched, -1 for none.
    """

    order: np.ndarray
    rank: np.ndarray
    outcome: np.ndarray
    decided: np.ndarray
    gt_order: np.ndarray
    gt_ignored: np.ndarray
    matches: ObjectMatches
    partners: np.ndarray | None = None


def coco_match(
    data: CocoArrays,
    pairs: PairSource,
    *,
    iou_thresholds: np.ndarray,
    max_detections: int,
    area_ranges: np.ndarray,
    every_area: bool = False,
    unmatched_ignored: np.ndarray | None = None,
    show_progress: bool | None = None,
) -> CocoMatched:
    """COCOeval's ``evaluate``: the greedy matching of every image and category, and the per-object matches.

    `pairs` gives the pairs that can match with their overlaps: `region_pairs` (the exact overlaps
    of regions whose bounds meet) or `every_pair` (a measure of every pair of a group, such as
    pycocotools' keypoint similarity). `every_area` keeps ``partners`` for every area range.
    `unmatched_ignored` (a flag per prediction row) marks the predictions that are ignored rather
    than false positives when they match nothing (LVIS's not exhaustively annotated categories).

    Examples
    --------
    >>> from geoiou.evaluation.overlaps import every_pair
    >>> data = CocoArrays(1, 1, np.array([0]), np.array([0]), np.array([False]), np.array([False]), np.array([50.0]),
    ...                   np.array([0, 0]), np.array([0, 0]), np.array([0.5, 0.9]), np.array([50.0, 50.0]))
    >>> overlap = every_pair(lambda dt, gt, crowd: np.where(dt == 0, 0.8, 0.3))  # row 0 overlaps the truth
    >>> found = coco_match(data, overlap, iou_thresholds=np.array([0.5]), max_detections=100,
    ...                    area_ranges=np.array([[0.0, 1e10]]))
    >>> found.order.tolist(), found.outcome[:, 0, 0].tolist()  # by score: row 1 (a false positive), then row 0
    ([1, 0], [0, 1])
    """
    with Phases("COCO matching", 2, enabled=show_progress) as phases:
        return _coco_match(
            data, pairs, iou_thresholds, max_detections, area_ranges, every_area, unmatched_ignored, phases
        )


def _coco_match(
    data: CocoArrays,
    pairs: PairSource,
    iou_thresholds: np.ndarray,
    max_detections: int,
    area_ranges: np.ndarray,
    every_area: bool,
    unmatched_ignored: np.ndarray | None,
    phases: Phases,
) -> CocoMatched:
    from geoiou.evaluation.protocol_loops import coco_greedy, order_by_code, sort_runs_by_score

    # Predictions: by category, image, then score (highest first; ties keep the input order, as
    # COCOeval's mergesort does), and at most `max_detections` per image and category.
    dt_group_all = data.dt_category * data.num_images + data.dt_image
    n_groups = data.num_categories * data.num_images
    order = order_by_code(dt_group_all, n_groups)
    group_start, _ = _runs(dt_group_all[order])
    sort_runs_by_score(order, group_start, data.dt_score)
    _, rank = _runs(dt_group_all[order])
    kept = rank < max_detections
    order, rank = order[kept], rank[kept]
    dt_group = dt_group_all[order]
    group_start, _ = _runs(dt_group)
    # Ground truths: by category and image, annotation order within.
    gt_group_all = data.gt_category * data.num_images + data.gt_image
    gt_order = order_by_code(gt_group_all, n_groups)
    gt_crowd, gt_area = data.gt_crowd[gt_order], data.gt_area[gt_order]
    # Ignored ground truths per area range [G, A]: crowd, flagged, or outside the range (inclusive).
    low, high = area_ranges[:, 0], area_ranges[:, 1]
    gt_ignored = (gt_crowd | data.gt_ignore[gt_order])[:, None] | (gt_area[:, None] < low) | (gt_area[:, None] > high)
    dt_area = data.dt_area[order][:, None]
    dt_outside = (dt_area < low) | (dt_area > high)
    thresholds = np.minimum(iou_thresholds, 1 - 1e-10)
    found = pairs(order, gt_order, dt_group, gt_group_all[gt_order], gt_crowd, float(thresholds.min()))
    phases.done("overlaps")
    outcome, partner, decided = coco_greedy(
        group_start, found.pair_start, found.pair_gt, found.value, gt_crowd, gt_ignored, dt_outside, thresholds,
        every_area,
    )  # fmt: skip
    if unmatched_ignored is not None:
        outcome = unmatched_as_ignored(outcome, unmatched_ignored[order])
        decided = decided_codes(outcome)
    phases.done("matching")
    # Per object, area range "all" (the first): rows resolved when first read.
    matches = ObjectMatches.from_pairs(
        iou_thresholds, outcome[:, :, 0], partner[:, :, 0], found.pair_gt, found.value, order, gt_order,
        len(data.dt_image), len(data.gt_image),
    )  # fmt: skip
    partners = np.where(partner >= 0, np.append(found.pair_gt, -1)[partner], -1) if every_area else None
    return CocoMatched(order, rank, outcome, decided, gt_order, gt_ignored, matches, partners)


def decided_codes(outcome: np.ndarray) -> np.ndarray:
    """``[D, A]``: whether each result is anything but a false positive at some threshold (what `coco_accumulate`
    reads the codes of; the others it counts as false positives without reading them).

    Examples
    --------
    >>> decided_codes(np.array([[[0, 2]], [[0, 0]]], dtype=np.uint8).transpose(0, 2, 1))  # ignored once; never
    array([[ True],
           [False]])
    """
    from geoiou.evaluation.protocol_loops import decided  # numba: on first use

    return decided(outcome)


def unmatched_as_ignored(outcome: np.ndarray, flagged: np.ndarray) -> np.ndarray:
    """`outcome` ``[D, T, A]`` with the false positives of the `flagged` predictions (one flag each) ignored.

    Examples
    --------
    >>> unmatched_as_ignored(np.array([[[0]], [[0]], [[1]]], dtype=np.uint8), np.array([True, False, True])).ravel()
    array([2, 0, 1], dtype=uint8)
    """
    from geoiou.evaluation.protocol_loops import FALSE_POSITIVE, IGNORED  # numba: on first use

    unmatched = (outcome == FALSE_POSITIVE) & flagged[:, None, None]
    result: np.ndarray = np.where(unmatched, np.uint8(IGNORED), outcome)
    return result


def _runs(sorted_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The start of each run of equal keys (and the end), and each element's place in its run."""
    changes = np.flatnonzero(sorted_keys[1:] != sorted_keys[:-1]) + 1
    starts = np.concatenate([[0], changes, [len(sorted_keys)]]).astype(np.int64)
    lengths = np.diff(starts)
    place = np.arange(len(sorted_keys), dtype=np.int64) - np.repeat(starts[:-1], lengths)
    return starts, place


def coco_accumulate(
    n_categories: int,
    dt_category: np.ndarray,
    dt_image: np.ndarray,
    rank: np.ndarray,
    dt_score: np.ndarray,
    outcome: np.ndarray,
    decided: np.ndarray,
    regular: np.ndarray,
    recall_thresholds: np.ndarray,
    max_detections: tuple[int, ...],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """COCOeval's ``accumulate``: ``precision, recall, scores`` of the matched predictions.

    COCOeval concatenates a category's predictions image by image (in order of image id, each
    image's by rank) and sorts them by decreasing score with a stable mergesort: the order by
    category, decreasing score, image and rank. The predictions within a lower detection limit
    keep that order among themselves, so the one order serves every limit.
    """
    from geoiou.evaluation.protocol_loops import coco_curves, sort_runs_by_score  # compiled: loaded on first use

    # By category, image and rank (already so for one part), then by score within each category.
    key = (dt_category * (int(dt_image.max(initial=0)) + 1) + dt_image) * (int(rank.max(initial=0)) + 1) + rank
    order = np.arange(len(key)) if (key[1:] >= key[:-1]).all() else np.lexsort((rank, dt_image, dt_category))
    category_start = np.searchsorted(dt_category[order], np.arange(n_categories + 1)).astype(np.int64)
    sort_runs_by_score(order, category_start, dt_score)
    return coco_curves(
        category_start,
        order,
        rank,
        dt_score,
        outcome,
        decided,
        regular.reshape(n_categories, outcome.shape[2]),
        recall_thresholds,
        np.asarray(max_detections, dtype=np.int64),
    )


# --------------------------------------------------------------------------- the mergeable state
@dataclass(frozen=True)
class _CocoPart:
    """What one part leaves for `CocoEvaluation.compute`: no regions, the matched predictions and counts.

    ``dt_image`` and ``dt_category`` are codes into the part's ``images`` and ``categories``, one
    per evaluated prediction in the matcher's order (by category, image and rank).
    """

    images: np.ndarray
    categories: np.ndarray
    truth_categories: np.ndarray
    deferred: Deferred
    dt_image: np.ndarray
    dt_category: np.ndarray
    rank: np.ndarray
    score: np.ndarray
    outcome: np.ndarray
    decided: np.ndarray
    regular: np.ndarray
    matches: ObjectMatches


class CocoEvaluation(MergeableEvaluation[CocoResult]):
    """COCO detection AP and AR accumulated part by part: `update` per part, `merge`, `compute`.

    Split the images into parts (each image, with all its ground truth and predictions, in one
    part): shards of a result file, the batches of a training loop, the partitions of a Dask
    collection. ``compute`` gives exactly what `evaluate_coco` gives on all of them at once (the
    same arrays, bit for bit). The parameters are those of `evaluate_coco`.

    Examples
    --------
    >>> import geoiou
    >>> evaluation = CocoEvaluation()
    >>> for image in (1, 2):  # one update per image, as a training loop would
    ...     truth = Annotations(image_id=image, category_id=[1], region=geoiou.Box([[0, 0, 10, 10]]))
    ...     box = geoiou.Box([[0, 0, 10, 10 - image]])
    ...     preds = Annotations(image_id=image, category_id=[1], score=[0.9], region=box)
    ...     _ = evaluation.update(truth, preds)
    >>> result = evaluation.compute()
    >>> result.num_images, round(result["AP"], 4), result["AP50"]  # IoU 0.9 and 0.8: both found up to 0.8
    (2, 0.801, 1.0)

    States built apart (on two workers) merge into one:

    >>> first, second = CocoEvaluation(), CocoEvaluation()
    >>> _ = first.update(Annotations(image_id=1, category_id=[1], region=geoiou.Box([[0, 0, 4, 4]])),
    ...                  Annotations(image_id=1, category_id=[1], score=[0.5], region=geoiou.Box([[0, 0, 4, 4]])))
    >>> _ = second.update(Annotations(image_id=2, category_id=[1], region=geoiou.Box([[0, 0, 4, 4]])),
    ...                   Annotations(image_id=2, category_id=[1], score=[0.5], region=geoiou.Box([[9, 9, 12, 12]])))
    >>> round(first.merge(second).compute()["AP50"], 4)  # half the recall at precision 1: 51 of 101 recall points
    0.505
    """

    settings: CocoSettings
    #: Set by `geoiou.diagnostics` on the state it updates (see `PairHook`); None: the matching's own pairs.
    pair_hook: PairHook | None = None

    def __init__(
        self,
        *,
        categories: Sequence[Any] | None = None,
        iou_thresholds: ArrayLike | None = None,
        recall_thresholds: ArrayLike | None = None,
        max_detections: Sequence[int] = COCO_MAX_DETECTIONS,
        area_ranges: Mapping[str, tuple[float, float]] | None = None,
        polygon_iou: PolygonIoU = "exact",
        iou_type: IouType = "region",
        dilation_ratio: float = DILATION_RATIO,
        show_progress: bool | None = None,
    ) -> None:
        self._start(
            CocoSettings.checked(
                categories=categories,
                iou_thresholds=iou_thresholds,
                recall_thresholds=recall_thresholds,
                max_detections=max_detections,
                area_ranges=area_ranges,
                polygon_iou=polygon_iou,
                iou_type=iou_type,
                dilation_ratio=dilation_ratio,
            )
        )
        self.show_progress = show_progress

    def update(
        self,
        ground_truth: Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        predictions: Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        images: Sequence[Any] | Mapping[Any, tuple[int, int]] | None = None,
        federated: FederatedLabels | None = None,
    ) -> CocoEvaluation:
        """Match the predictions of one part's images; return ``self``.

        `images` is as in `evaluate_coco`, for this part: by default the images of its ground
        truth; list them to count images of this part without ground truth. `federated` applies
        LVIS's rules (`geoiou.evaluation.federated`) with the labels of the part's images.
        """
        settings = self.settings
        truth, predicted = as_annotations(ground_truth, "ground_truth"), as_annotations(predictions, "predictions")
        not_exhaustive, kept, sizes = None, None, (len(predicted), len(truth))
        if federated is not None:
            if not isinstance(federated, FederatedLabels):
                raise _fail("federated", "FederatedLabels or None", federated)
            truth, predicted, not_exhaustive, kept = federated.evaluated(truth, predicted)
        categories, deferred = part_categories(settings.categories, truth, predicted)
        prepared = PreparedPart(truth, predicted, images, categories, needs_sizes=settings.polygon_iou == "pycocotools")
        truth_regions, predicted_regions = regions_of(prepared, settings.polygon_iou)
        data = CocoArrays(
            num_images=len(prepared.image_ids),
            num_categories=len(prepared.category_ids),
            gt_image=prepared.gt_image,
            gt_category=prepared.gt_category,
            gt_crowd=prepared.flags("iscrowd"),
            gt_ignore=prepared.flags("ignore"),
            gt_area=truth_regions.area if truth.area is None else truth.area,
            dt_image=prepared.dt_image,
            dt_category=prepared.dt_category,
            dt_score=np.asarray(predicted.score, dtype=np.float64),
            dt_area=predicted_regions.area,
        )
        pairs = _pair_source(settings, prepared, predicted_regions, truth_regions)
        if self.pair_hook is not None:
            pairs = self.pair_hook(pairs, data, prepared.image_ids, prepared.category_ids)
        found = coco_match(
            data,
            pairs,
            iou_thresholds=settings.iou_thresholds,
            max_detections=settings.max_detections[-1],
            area_ranges=np.array(list(settings.area_ranges.values())),
            unmatched_ignored=not_exhaustive,
            show_progress=self.show_progress,
        )
        gt_category = prepared.gt_category[found.gt_order]
        n_categories = len(prepared.category_ids)
        regular = np.stack(
            [np.bincount(gt_category[~ignored], minlength=n_categories) for ignored in found.gt_ignored.T], axis=1
        )
        self._parts.append(
            _CocoPart(
                images=prepared.image_ids,
                categories=prepared.category_ids,
                truth_categories=distinct(truth.category_id),
                deferred=deferred,
                dt_image=prepared.dt_image[found.order],
                dt_category=prepared.dt_category[found.order],
                rank=found.rank,
                score=np.asarray(predicted.score)[found.order],
                outcome=found.outcome,
                decided=found.decided,
                regular=regular,
                # By the part's input rows (LVIS's rules evaluate some of them).
                matches=found.matches if kept is None else found.matches.within(kept[1], kept[0], *sizes),
            )
        )
        return self

    def compute(self) -> CocoResult:
        """COCOeval's ``accumulate`` over every part: the `CocoResult` of all the images."""
        settings, parts = self.settings, self._parts
        images = disjoint_keys([part.images for part in parts], "image")
        categories = evaluated_categories(settings.categories, parts)
        n_thresholds, n_areas = len(settings.iou_thresholds), len(settings.area_ranges)

        def joined(name: str, empty: np.ndarray) -> np.ndarray:
            return end_to_end([getattr(part, name) for part in parts], empty)

        no_codes = np.zeros(0, np.int64)
        precision, recall, scores = coco_accumulate(
            len(categories),
            end_to_end([recoded(categories, part.categories, part.dt_category) for part in parts], no_codes),
            end_to_end([recoded(images, part.images, part.dt_image) for part in parts], no_codes),
            joined("rank", np.zeros(0, np.int64)),
            joined("score", np.zeros(0)),
            joined("outcome", np.zeros((0, n_thresholds, n_areas), np.uint8)),
            joined("decided", np.zeros((0, n_areas), bool)),
            summed_by_category(categories, parts, "regular").reshape(len(categories), n_areas),
            settings.recall_thresholds,
            settings.max_detections,
        )
        matches = ObjectMatches.concatenate([part.matches for part in parts])
        return CocoResult(
            precision=precision,
            recall=recall,
            scores=scores,
            iou_thresholds=settings.iou_thresholds,
            recall_thresholds=settings.recall_thresholds,
            categories=categories,
            area_ranges=settings.area_ranges,
            max_detections=settings.max_detections,
            num_images=len(images),
            matches=matches,
        )


def _pair_source(
    settings: CocoSettings, prepared: PreparedPart, predicted: DetectionRegions, truth: DetectionRegions
) -> PairSource:
    """The regions' overlaps, or boundary AP's ``min(mask IoU, boundary IoU)`` (`boundary_pairs`)."""
    if settings.iou_type == "region":
        return region_pairs(predicted, truth)
    sizes = prepared.sizes

    def bands(regions: DetectionRegions, image: np.ndarray) -> BoundaryBands:
        return BoundaryBands(regions, settings.dilation_ratio, None if sizes is None else sizes[image])

    return boundary_pairs(predicted, truth, bands(predicted, prepared.dt_image), bands(truth, prepared.gt_image))


def evaluate_coco(
    ground_truth: Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
    predictions: Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
    *,
    images: Sequence[Any] | Mapping[Any, tuple[int, int]] | None = None,
    categories: Sequence[Any] | None = None,
    iou_thresholds: ArrayLike | None = None,
    recall_thresholds: ArrayLike | None = None,
    max_detections: Sequence[int] = COCO_MAX_DETECTIONS,
    area_ranges: Mapping[str, tuple[float, float]] | None = None,
    polygon_iou: PolygonIoU = "exact",
    federated: FederatedLabels | None = None,
    iou_type: IouType = "region",
    dilation_ratio: float = DILATION_RATIO,
    show_progress: bool | None = None,
) -> CocoResult:
    """COCO detection AP and AR for any region kind, as pycocotools' ``COCOeval`` computes them.

    Parameters
    ----------
    ground_truth : Annotations, mapping of columns or sequence of per-image records
        The ground-truth objects, with optional ``iscrowd``, ``area`` and ``ignore``; no scores.
    predictions : Annotations, mapping of columns or sequence of per-image records
        The predictions, with a ``score`` each.
    images : sequence of ids, or mapping {image_id: (height, width)}, optional
        The images to evaluate (sorted by id), by default those of the ground truth. List them to
        count images without ground truth (where every prediction is a false positive). With
        sizes, masks must be ``height x width`` at origin (0, 0), and polygons can be rasterized.
    categories : sequence of ids, optional
        The categories to evaluate, by default those of the ground truth. A category without
        ground truth gets -1 and stays out of the means, as in COCOeval.
    iou_thresholds : sequence of float, optional
        Default ``numpy.linspace(0.5, 0.95, 10)``. A prediction matches at threshold ``t`` with
        overlap ``>= min(t, 1 - 1e-10)``.
    recall_thresholds : sequence of float, optional
        Default ``numpy.linspace(0, 1, 101)``.
    max_detections : sequence of int, default (1, 10, 100)
        Limits on predictions per image and category (the highest scores are kept).
    area_ranges : mapping {label: (low, high)}, optional
        Default COCO's ``all [0, 1e10]``, ``small [0, 32²]``, ``medium [32², 96²]``, ``large
        [96², 1e10]``, limits inclusive. Ground truths are sorted by their ``area`` (default: their
        measure), predictions by their measure. The first range is the one of the headline numbers.
        The measure of an interval is its length and of a 3-D region its volume: give ranges in those
        units (COCO's pixel areas mean nothing there).
    polygon_iou : {"exact", "pycocotools"}, default "exact"
        ``"exact"`` compares polygons exactly. ``"pycocotools"`` first rasterizes every polygon (of
        either side) at its image's size as pycocotools does (needs `images` with sizes), to
        reproduce official COCO segmentation numbers; then a polygon's measure is its raster's.
    federated : FederatedLabels, optional
        LVIS's federated labels: with them (and ``max_detections=(300,)``) the evaluation is
        lvis-api's ``LVISEval`` (see `geoiou.evaluation.federated`).
    iou_type : {"region", "boundary"}, default "region"
        ``"region"`` matches on the regions' IoU. ``"boundary"`` is boundary AP (boundary-iou-api's
        ``iouType="boundary"``): the overlap of a pair is the smaller of the regions' IoU and their
        boundary bands' IoU (`geoiou.boundary_iou`), IoF against crowd regions as before; area
        ranges still read the regions' areas. Masks take boundary-iou-api's band on their pixels
        (the diagonal of each mask's own size); polygons and boxes geoiou's exact band, which needs
        `images` with sizes for the diagonal.
    dilation_ratio : float, default 0.02
        The band's width as a fraction of the image diagonal (``iou_type="boundary"`` only).
    show_progress : bool, optional
        Draw a progress bar (by default only when stderr is a terminal).

    Returns
    -------
    CocoResult
        ``result["AP"]`` and the other summary numbers, ``summary()`` for COCOeval's table,
        ``per_category()``, ``precision`` ``[T, R, K, A, M]`` and ``recall`` ``[T, K, A, M]``.

    Raises
    ------
    InvalidArgumentError
        For a prediction on an image or of a category not evaluated, NaN scores, scores on ground
        truth, masks of the wrong image size, intervals mixed with 2-D regions, bad options.
    UnsupportedPairError
        If some prediction kind cannot be compared with some ground-truth kind.

    Notes
    -----
    The matching is COCOeval's greedy matching exactly, ties included: predictions by decreasing
    score (ties in input order), each taking the best still-free ground truth above the threshold
    (regular ones before ignored ones; among equal overlaps the last in annotation order), crowd
    regions matched by intersection over the prediction's area and any number of times. Only
    pairs whose bounds overlap are measured: the others share no area and match nothing.

    Examples
    --------
    >>> import numpy as np, geoiou
    >>> truth = Annotations(image_id=[1, 1, 2], category_id=[1, 1, 1],
    ...                     region=geoiou.RotatedBox([[50, 50, 40, 20, 30], [100, 100, 30, 30, 0], [10, 10, 8, 8, 45]]),
    ...                     iscrowd=[0, 0, 1])
    >>> preds = Annotations(image_id=[1, 1, 2], category_id=1, score=[0.9, 0.6, 0.5],
    ...                     region=geoiou.RotatedBox([[51, 50, 40, 20, 32], [100, 102, 30, 30, 5], [10, 10, 4, 4, 0]]))
    >>> result = evaluate_coco(truth, preds, images=[1, 2, 3])
    >>> print(result.summary().splitlines()[1])
     Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ] = 1.000
    >>> round(result["AP"], 4)
    0.801
    """
    evaluation = CocoEvaluation(
        categories=categories,
        iou_thresholds=iou_thresholds,
        recall_thresholds=recall_thresholds,
        max_detections=max_detections,
        area_ranges=area_ranges,
        polygon_iou=polygon_iou,
        iou_type=iou_type,
        dilation_ratio=dilation_ratio,
        show_progress=show_progress,
    )
    return evaluation.update(ground_truth, predictions, images=images, federated=federated).compute()
