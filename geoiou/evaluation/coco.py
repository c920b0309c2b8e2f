"""COCO's detection protocol on arrays: greedy matching, accumulation, the 12 summary numbers.

This module reproduces pycocotools' ``COCOeval.evaluateImg``, ``accumulate`` and ``summarize``
for any overlap measure: `geoiou.evaluation.detection.CocoEvaluation` prepares the annotations,
hands in a function that measures the overlaps of (prediction, ground truth) pairs, and joins the
matched predictions of its parts before `coco_accumulate`.

The matching is COCOeval's, step for step, but run for every image, category, IoU threshold and
area range at once: the loop goes over a prediction's rank within its image and category (at
most ``max(max_detections)`` steps), and each step is a handful of array operations over all
the images. For one prediction, COCOeval picks

- among the ground truths it may still take (not matched yet at this threshold, or a crowd
  region, which can be matched again), those with overlap ``>= min(threshold, 1 - 1e-10)``;
- a regular one if there is any, else an ignored one (crowd, flagged `ignore`, or outside the
  area range);
- the highest overlap, and among equal overlaps the *last* in annotation order (COCOeval's scan
  replaces its choice whenever an overlap is not below the best so far).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from geoiou._progress import progress
from geoiou.errors import UnknownNameError
from geoiou.evaluation.matches import ObjectMatches

__all__ = ["COCO_AREA_RANGES", "COCO_IOU_THRESHOLDS", "COCO_MAX_DETECTIONS", "COCO_RECALL_THRESHOLDS", "CocoResult"]

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

#: Short names COCOeval's table uses for its area labels.
_AREA_SUFFIX = {"small": "s", "medium": "m", "large": "l"}
#: What pycocotools adds to the denominator of precision.
_EPS = np.spacing(1)

#: ``overlap(pair_dt, pair_gt, pair_crowd, block_offsets, block_rows, block_cols) -> values``: the
#: overlap of each (prediction, ground truth) pair, IoF for crowd pairs and IoU otherwise. Pairs come
#: in blocks (one per image and category) of ``rows x cols`` pairs, row-major.
OverlapFunction = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


# --------------------------------------------------------------------------- sorting and grouping
def stable_order(*keys: np.ndarray) -> np.ndarray:
    """Indices sorting by the keys, the first one most significant; ties keep the input order."""
    order = np.arange(len(keys[0]))
    for key in reversed(keys):
        order = order[np.argsort(key[order], kind="stable")]
    return order


def runs(sorted_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct values of a sorted array with the start and length of each run."""
    if len(sorted_keys) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return sorted_keys[:0], empty, empty
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    lengths = np.diff(np.r_[starts, len(sorted_keys)])
    return sorted_keys[starts], starts, lengths


def block_pairs(rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For blocks of ``rows[i] x cols[i]`` pairs laid out row-major one after another: offsets, row and column."""
    sizes = rows * cols
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    block = np.repeat(np.arange(len(rows)), sizes)
    local = np.arange(offsets[-1]) - offsets[block]
    return offsets, local // np.maximum(cols[block], 1), local % np.maximum(cols[block], 1)


# --------------------------------------------------------------------------- evaluation
@dataclass(frozen=True)
class CocoArrays:
    """What `coco_evaluate` needs, one entry per annotation (indices into the image and category lists)."""

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


class CocoMatched(NamedTuple):
    """What COCO's matching leaves of one part: the evaluated predictions (sorted) and the ground truths' flags.

    ``order`` holds the rows of the evaluated predictions (at most ``max(max_detections)`` per
    image and category), sorted by category, image and decreasing score (ties in input order);
    ``rank`` is each one's place within its image and category. ``matched`` and ``ignored`` are
    ``[T, A, D]`` over them. ``gt_order`` sorts the ground truths by category and image and
    ``gt_ignored`` ``[A, G]`` flags them (crowd, ignored, or outside the area range) in that order.
    ``partners`` (only with ``coco_match(..., keep_partners=True)``) is ``[T, A, D]`` int64: the
    position in ``gt_order`` of the ground truth each evaluated prediction matched at each
    threshold and area range, -1 where none (what pycocotools' ``evalImgs`` lists for every range).
    """

    order: np.ndarray
    rank: np.ndarray
    matched: np.ndarray
    ignored: np.ndarray
    gt_order: np.ndarray
    gt_ignored: np.ndarray
    matches: ObjectMatches
    partners: np.ndarray | None = None


def coco_match(
    data: CocoArrays,
    overlap: OverlapFunction,
    *,
    iou_thresholds: np.ndarray,
    max_detections: tuple[int, ...],
    area_ranges: np.ndarray,
    show_progress: bool | None = None,
    keep_partners: bool = False,
) -> CocoMatched:
    """COCOeval's ``evaluate``: the greedy matching of every image and category, and the per-object matches.

    With `keep_partners`, the result's ``partners`` holds the matched ground truth of every
    evaluated prediction for every threshold and area range (``[T, A, D]``, -1 for none).
    """
    images = data.num_images
    # Predictions: by category, image, then score (highest first; ties keep the input order, as
    # COCOeval's mergesort does), and at most max(max_detections) per image and category.
    dt_group = data.dt_category.astype(np.int64) * images + data.dt_image
    order = stable_order(dt_group, -data.dt_score)
    _, starts, lengths = runs(dt_group[order])
    rank = np.arange(len(order)) - np.repeat(starts, lengths)
    kept = rank < max_detections[-1]
    order, rank = order[kept], rank[kept]
    dt_group = dt_group[order]
    dt_area = data.dt_area[order]
    # Ground truths: by category and image, annotation order within.
    gt_group_all = data.gt_category.astype(np.int64) * images + data.gt_image
    gt_order = stable_order(gt_group_all)
    gt_group = gt_group_all[gt_order]
    gt_crowd = data.gt_crowd[gt_order]
    gt_area = data.gt_area[gt_order]
    # Ignored ground truths per area range [A, G]: crowd, flagged, or outside the range (inclusive).
    low, high = area_ranges[:, 0:1], area_ranges[:, 1:2]
    gt_ignored = (gt_crowd | data.gt_ignore[gt_order])[None, :] | (gt_area < low) | (gt_area > high)
    dt_outside = (dt_area < low) | (dt_area > high)

    dt_matched, dt_ignored, partner = _match(
        dt_group,
        gt_group,
        order,
        gt_order,
        gt_crowd,
        gt_ignored,
        overlap,
        np.minimum(iou_thresholds, 1 - 1e-10),
        show_progress,
        keep_partners,
    )
    # Unmatched predictions outside the area range are ignored.
    dt_ignored |= ~dt_matched & dt_outside[None, :, :]
    # Per object, area range "all" (the first): positions back to the rows of the inputs.
    matches = ObjectMatches.from_positions(
        iou_thresholds,
        partner.gt,
        partner.iou,
        dt_matched[:, 0] & ~dt_ignored[:, 0],
        dt_ignored[:, 0],
        order,
        gt_order,
        len(data.dt_image),
        len(data.gt_image),
    )
    return CocoMatched(order, rank, dt_matched, dt_ignored, gt_order, gt_ignored, matches, partner.all_areas)


def _match(
    dt_group: np.ndarray,
    gt_group: np.ndarray,
    dt_rows: np.ndarray,
    gt_rows: np.ndarray,
    gt_crowd: np.ndarray,
    gt_ignored: np.ndarray,
    overlap: OverlapFunction,
    thresholds: np.ndarray,
    show_progress: bool | None,
    keep_partners: bool = False,
) -> tuple[np.ndarray, np.ndarray, _Partners]:
    """Greedy matching of every image and category at once; return matched and ignored flags ``[T, A, D]``,
    and for area range 0 the ground truth (sorted position) and IoU of each prediction's match.

    Predictions and ground truths come sorted by group (category and image); predictions by score
    within a group, ground truths in annotation order.
    """
    n_thresholds, n_areas, n_dt = len(thresholds), gt_ignored.shape[0], len(dt_group)
    dt_matched = np.zeros((n_thresholds, n_areas, n_dt), dtype=bool)
    dt_ignored = np.zeros((n_thresholds, n_areas, n_dt), dtype=bool)
    partners = _Partners(
        np.full((n_thresholds, n_dt), -1, dtype=np.int64),
        np.full((n_thresholds, n_dt), np.nan),
        np.full((n_thresholds, n_areas, n_dt), -1, dtype=np.int64) if keep_partners else None,
    )
    dt_keys, dt_starts, dt_counts = runs(dt_group)
    gt_keys, gt_starts, gt_counts = runs(gt_group)
    _, in_dt, in_gt = np.intersect1d(dt_keys, gt_keys, assume_unique=True, return_indices=True)
    if len(in_dt) == 0:
        return dt_matched, dt_ignored, partners
    d_start, d_count = dt_starts[in_dt], dt_counts[in_dt]
    g_start, g_count = gt_starts[in_gt], gt_counts[in_gt]
    # Every (prediction, ground truth) pair of each image and category, prediction-major.
    offsets, pair_row, pair_col = block_pairs(d_count, g_count)
    pair_block = np.repeat(np.arange(len(d_count)), d_count * g_count)
    pair_dt = d_start[pair_block] + pair_row
    pair_gt = g_start[pair_block] + pair_col
    values = overlap(dt_rows[pair_dt], gt_rows[pair_gt], gt_crowd[pair_gt], offsets, d_count, g_count)
    # Only pairs reaching the lowest threshold can ever match (NaN never does).
    keep = np.flatnonzero(values >= thresholds.min())
    # Step r handles the r-th prediction of every image and category: one prediction per group,
    # its candidate ground truths in annotation order (their sorted index grows with it).
    keep = keep[np.argsort(pair_row[keep], kind="stable")]
    value, dt, gt = values[keep], pair_dt[keep], pair_gt[keep]
    _, step_starts, step_sizes = runs(pair_row[keep])
    crowd = gt_crowd[gt]
    ignored = gt_ignored[:, gt]  # [A, P]
    taken = np.zeros((n_thresholds, n_areas, len(gt_group)), dtype=bool)
    meets = value[None, :] >= thresholds[:, None]  # [T, P]
    for first, size in progress(list(zip(step_starts, step_sizes)), label="COCO matching", enabled=show_progress):
        span = slice(first, first + size)
        v, g = value[span], gt[span]
        _, seg_starts, seg_sizes = runs(dt[span])
        candidate = meets[:, None, span] & (~taken[:, :, g] | crowd[span])
        regular = candidate & ~ignored[:, span]
        has_regular = np.logical_or.reduceat(regular, seg_starts, axis=2)
        usable = np.where(np.repeat(has_regular, seg_sizes, axis=2), regular, candidate)
        score = np.where(usable, v, -1.0)
        best = np.maximum.reduceat(score, seg_starts, axis=2)
        winner = usable & (score == np.repeat(best, seg_sizes, axis=2))
        choice = np.maximum.reduceat(np.where(winner, np.arange(size), -1), seg_starts, axis=2)
        t, a, seg = np.nonzero(choice >= 0)
        pick = choice[t, a, seg]
        taken[t, a, g[pick]] = True
        dt_matched[t, a, dt[first + pick]] = True
        dt_ignored[t, a, dt[first + pick]] = ignored[a, first + pick]
        first_range = a == 0
        partners.gt[t[first_range], dt[first + pick[first_range]]] = g[pick[first_range]]
        partners.iou[t[first_range], dt[first + pick[first_range]]] = v[pick[first_range]]
        if partners.all_areas is not None:
            partners.all_areas[t, a, dt[first + pick]] = g[pick]
    return dt_matched, dt_ignored, partners


class _Partners(NamedTuple):
    """For each threshold and prediction (sorted positions): the matched ground truth's position (-1: none), its IoU;
    ``all_areas`` the matched position for every area range too (``[T, A, D]``), when asked for."""

    gt: np.ndarray
    iou: np.ndarray
    all_areas: np.ndarray | None = None


def coco_accumulate(
    n_categories: int,
    dt_category: np.ndarray,
    rank: np.ndarray,
    dt_score: np.ndarray,
    dt_matched: np.ndarray,
    dt_ignored: np.ndarray,
    regular: np.ndarray,
    recall_thresholds: np.ndarray,
    max_detections: tuple[int, ...],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """COCOeval's ``accumulate``: ``precision, recall, scores`` of the matched predictions (sorted by category,
    image, score), from the counts of regular ground truths per category and area range.

    COCOeval concatenates a category's predictions image by image and sorts them by score with a
    mergesort; the predictions within a lower limit keep that order among themselves, so one sort
    per category serves every limit.
    """
    n_thresholds, n_areas = dt_matched.shape[:2]
    regular = regular.reshape(n_categories, n_areas)
    shape = (n_thresholds, len(recall_thresholds), n_categories, n_areas, len(max_detections))
    precision = -np.ones(shape)
    scores = -np.ones(shape)
    recall = -np.ones((n_thresholds, n_categories, n_areas, len(max_detections)))
    dt_bounds = np.searchsorted(dt_category, np.arange(n_categories + 1))
    for k in range(n_categories):
        if not regular[k].any():
            continue
        lo, hi = dt_bounds[k], dt_bounds[k + 1]
        order = np.argsort(-dt_score[lo:hi], kind="mergesort")
        counted = ~dt_ignored[:, :, lo:hi][:, :, order]  # [T, A, n]
        true_positive = counted & dt_matched[:, :, lo:hi][:, :, order]
        false_positive = counted ^ true_positive
        for m, max_det in enumerate(max_detections):
            within = rank[lo:hi][order] < max_det
            tp, fp, sorted_scores = true_positive, false_positive, dt_score[lo:hi][order]
            if not within.all():
                tp, fp, sorted_scores = tp[:, :, within], fp[:, :, within], sorted_scores[within]
            _fill_curves(
                tp,
                fp,
                regular[k],
                sorted_scores,
                recall_thresholds,
                precision[:, :, k, :, m],
                scores[:, :, k, :, m],
                recall[:, k, :, m],
            )
    return precision, recall, scores


def _fill_curves(
    tp: np.ndarray,
    fp: np.ndarray,
    positives: np.ndarray,
    sorted_scores: np.ndarray,
    recall_thresholds: np.ndarray,
    precision_out: np.ndarray,
    scores_out: np.ndarray,
    recall_out: np.ndarray,
) -> None:
    """COCOeval's interpolated precision at the recall points, from true and false positive flags ``[T, A, n]``.

    COCOeval computes precision and recall after every prediction, makes precision monotone from
    the right and reads it where recall first reaches each recall point. Recall grows only at true
    positives, and precision after a true positive is at least its value at every later prediction
    until the next one, so only the true positives need the computation: at the j-th one (with
    ``f`` false positives before it) precision is ``j / (f + j + eps)`` and recall ``j / positives``,
    with COCOeval's float operations. Recall point 0 is reached at the first prediction.
    """
    n_thresholds, n_areas, n_dt = tp.shape
    if n_dt == 0:
        for a in np.flatnonzero(positives > 0):
            recall_out[:, a] = 0.0
            precision_out[:, :, a] = 0.0
            scores_out[:, :, a] = 0.0
        return
    false_before = np.cumsum(fp.view(np.int8), axis=2, dtype=np.int32)
    t_index, a_index, position = np.nonzero(tp)
    row = t_index * n_areas + a_index
    row_start = np.searchsorted(row, np.arange(n_thresholds * n_areas + 1))
    count = (np.arange(len(row)) - row_start[row] + 1).astype(np.float64)  # j: true positives so far
    precision_at = count / (false_before[t_index, a_index, position] + count + _EPS)
    first_reached = recall_thresholds <= 0  # recall points met at the very first prediction
    for a in np.flatnonzero(positives > 0):
        for t in range(n_thresholds):
            span = slice(row_start[t * n_areas + a], row_start[t * n_areas + a + 1])
            rc = count[span] / positives[a]
            pr = np.maximum.accumulate(precision_at[span][::-1])[::-1]
            recall_out[t, a] = rc[-1] if len(rc) else 0.0
            index = np.searchsorted(rc, recall_thresholds, side="left")
            inside = index < len(rc)
            safe = np.minimum(index, max(len(rc) - 1, 0))
            precision_out[t, :, a] = np.where(inside, pr[safe] if len(rc) else 0.0, 0.0)
            spot = np.where(first_reached, 0, position[span][safe] if len(rc) else 0)
            scores_out[t, :, a] = np.where(inside | first_reached, sorted_scores[spot], 0.0)


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class _Stat:
    name: str
    average_precision: bool
    iou_threshold: float | None
    area: str
    max_detections: int


def _summary_stats(area_labels: Sequence[str], max_detections: Sequence[int]) -> list[_Stat]:
    """COCOeval's 12 summary numbers, generalized to other area labels and detection limits."""
    reference, others = area_labels[0], list(area_labels[1:])
    most = max_detections[-1]

    def suffix(label: str) -> str:
        return _AREA_SUFFIX.get(label, f"_{label}")

    stats = [
        _Stat("AP", True, None, reference, most),
        _Stat("AP50", True, 0.5, reference, most),
        _Stat("AP75", True, 0.75, reference, most),
    ]
    stats += [_Stat("AP" + suffix(label), True, None, label, most) for label in others]
    stats += [_Stat(f"AR{m}", False, None, reference, m) for m in max_detections]
    stats += [_Stat("AR" + suffix(label), False, None, label, most) for label in others]
    return stats


def _plain(value: Any) -> Any:
    """A JSON-friendly Python value (NumPy scalars become int, float or str)."""
    return value.item() if isinstance(value, np.generic) else value


@dataclass(frozen=True, eq=False)
class CocoResult:
    """The result of `evaluate_coco`: COCOeval's arrays, its 12 summary numbers and per-category values.

    Attributes
    ----------
    precision : ndarray, shape [T, R, K, A, M]
        Interpolated precision per IoU threshold, recall point, category, area range and detection
        limit; -1 where the category has no regular ground truth in the area range (COCOeval's
        ``eval["precision"]``).
    recall : ndarray, shape [T, K, A, M]
        Final recall, -1 likewise (COCOeval's ``eval["recall"]``).
    scores : ndarray, shape [T, R, K, A, M]
        The prediction score at which each recall point is reached (COCOeval's ``eval["scores"]``).
    iou_thresholds, recall_thresholds : ndarray
    categories : ndarray
        Category ids, in the order of the K axis (sorted).
    area_ranges : dict
        Label -> ``(low, high)``, in the order of the A axis.
    max_detections : tuple of int
        Detection limits, in the order of the M axis.
    num_images : int
        Images evaluated.
    matches : ObjectMatches
        Per prediction and ground truth, at each IoU threshold, for the area range ``"all"``: what
        matched what, with which IoU, and as what it counted (pycocotools' ``evalImgs``).

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.evaluation import Annotations, evaluate_coco
    >>> truth = Annotations(image_id=[1, 1], category_id=[7, 7], region=geoiou.Box([[0, 0, 10, 10], [20, 20, 30, 30]]))
    >>> preds = Annotations(image_id=[1], category_id=[7], region=geoiou.Box([[0, 0, 10, 9]]), score=[0.9])
    >>> result = evaluate_coco(truth, preds)
    >>> round(result["AP"], 4), round(result["AP50"], 4), result["AR100"]
    (0.4545, 0.505, 0.45)
    >>> result.per_category()[7]["AR1"]
    0.45
    """

    precision: np.ndarray
    recall: np.ndarray
    scores: np.ndarray
    iou_thresholds: np.ndarray
    recall_thresholds: np.ndarray
    categories: np.ndarray
    area_ranges: dict[str, tuple[float, float]]
    max_detections: tuple[int, ...]
    num_images: int
    matches: ObjectMatches | None = None
    _stats: dict[str, float] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_stats", self._select(slice(None)))

    # ----------------------------------------------------------------- numbers
    def _select(self, categories: slice | int) -> dict[str, float]:
        labels = list(self.area_ranges)
        values = {}
        for stat in _summary_stats(labels, self.max_detections):
            a = labels.index(stat.area)
            m = self.max_detections.index(stat.max_detections)
            source = self.precision if stat.average_precision else self.recall
            if stat.iou_threshold is not None:
                # COCOeval selects the threshold by exact equality; none equal gives -1.
                source = source[np.where(stat.iou_threshold == self.iou_thresholds)[0]]
            if stat.average_precision:
                chosen = source[:, :, categories, a, m]
            else:
                chosen = source[:, categories, a, m]
            chosen = np.asarray(chosen)
            valid = chosen[chosen > -1]
            values[stat.name] = float(np.mean(valid)) if valid.size else -1.0
        return values

    @property
    def stats(self) -> dict[str, float]:
        """The summary numbers by name: AP, AP50, AP75, APs, APm, APl, AR1, AR10, AR100, ARs, ARm, ARl.

        -1 marks a number with nothing to average (no category has ground truth there), as
        COCOeval prints it. With other settings the names follow them (``AR20`` for a limit of 20,
        ``AP_tiny`` for an area range labelled ``"tiny"``).
        """
        return dict(self._stats)

    @property
    def stats_array(self) -> np.ndarray:
        """The summary numbers in COCOeval's order, as ``COCOeval.stats``."""
        return np.array(list(self._stats.values()))

    def __getitem__(self, name: str) -> float:
        """One summary number by name, e.g. ``result["AP50"]``."""
        try:
            return self._stats[name]
        except KeyError:
            raise UnknownNameError(f"no summary number {name!r}; there are {list(self._stats)}") from None

    def per_category(self) -> dict[Any, dict[str, float]]:
        """The summary numbers of each category alone: ``{category_id: {"AP": ..., ...}}``.

        A category without regular ground truth has -1 throughout (COCOeval leaves it out of the
        means).
        """
        return {_plain(category): self._select(k) for k, category in enumerate(self.categories)}

    # ----------------------------------------------------------------- output
    def summary(self) -> str:
        """COCOeval's familiar table: one line per summary number.

        Examples
        --------
        >>> import geoiou
        >>> from geoiou.evaluation import Annotations, evaluate_coco
        >>> truth = Annotations(image_id=[1], category_id=[1], region=geoiou.Box([[0, 0, 10, 10]]))
        >>> preds = Annotations(image_id=[1], category_id=[1], region=geoiou.Box([[0, 0, 10, 10]]), score=[1.0])
        >>> print(evaluate_coco(truth, preds).summary().splitlines()[0])
         Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 1.000
        """
        lines = []
        for stat in _summary_stats(list(self.area_ranges), self.max_detections):
            title = "Average Precision" if stat.average_precision else "Average Recall"
            kind = "(AP)" if stat.average_precision else "(AR)"
            if stat.iou_threshold is None:
                iou = f"{self.iou_thresholds[0]:0.2f}:{self.iou_thresholds[-1]:0.2f}"
            else:
                iou = f"{stat.iou_threshold:0.2f}"
            lines.append(
                f" {title:<18} {kind} @[ IoU={iou:<9} | area={stat.area:>6s} | "
                f"maxDets={stat.max_detections:>3d} ] = {self._stats[stat.name]:0.3f}"
            )
        return "\n".join(lines)

    def to_dict(self, *, arrays: bool = False) -> dict[str, Any]:
        """A JSON-ready dict: the summary numbers, per-category numbers and the settings.

        Parameters
        ----------
        arrays : bool, default False
            Also include the precision, recall and scores arrays as nested lists.
        """
        result: dict[str, Any] = {
            "protocol": "coco",
            "headline": self.stats,  # every protocol's headline numbers by name (docs/cli.md, "JSON layout")
            "stats": self.stats,
            "per_category": [{"category_id": category, **values} for category, values in self.per_category().items()],
            "iou_thresholds": self.iou_thresholds.tolist(),
            "recall_thresholds": self.recall_thresholds.tolist(),
            "area_ranges": {label: list(bounds) for label, bounds in self.area_ranges.items()},
            "max_detections": list(self.max_detections),
            "categories": [_plain(c) for c in self.categories],
            "num_images": self.num_images,
        }
        if arrays:
            result.update(precision=self.precision.tolist(), recall=self.recall.tolist(), scores=self.scores.tolist())
        return result

    def to_json(self, *, arrays: bool = False, indent: int | None = None) -> str:
        """`to_dict` as a JSON string."""
        return json.dumps(self.to_dict(arrays=arrays), indent=indent)

    def __repr__(self) -> str:
        ap = self._stats.get("AP", math.nan)
        return (
            f"<CocoResult AP={ap:.4f} over {len(self.categories)} categories, {self.num_images} images; "
            "summary() for the table>"
        )
