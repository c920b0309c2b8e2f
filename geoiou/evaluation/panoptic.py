"""Panoptic quality (Kirillov et al., 2019): PQ = SQ × RQ, as cocodataset/panopticapi's ``pq_compute`` computes it.

Per image, a predicted segment and a ground-truth segment of the same category match when their
IoU is above 0.5 (a strict inequality; segments of a panoptic map do not overlap, so a segment
matches at most once). Per category, with the matched pairs' IoUs:

- SQ = (sum of matched IoUs) / TP, RQ = TP / (TP + FP/2 + FN/2), PQ = SQ × RQ;
- the IoU's union leaves out the prediction's pixels on the ground truth's void (id 0):
  ``|p| + |g| − |p ∩ g| − |p ∩ void|``;
- crowd ground truths are never matched nor missed; an unmatched prediction is no false positive
  when more than half of it lies on void and on the crowd region of its category (panopticapi
  keeps one crowd region per category and image: the last listed);
- the averages (All, Things, Stuff) are plain means over the categories with any TP, FP or FN.

Inputs: COCO panoptic maps (`PanopticMaps`, read by `geoiou.io.read_coco_panoptic` from the JSON
and its PNG folder), or segments as regions (`Annotations` of masks, RLE or polygons): with
polygons the areas are exact, a vector PQ with no raster. `PanopticEvaluation` is a mergeable
state like the other evaluations: parts split by image, ``merge``, ``compute``.

Examples
--------
>>> import geoiou
>>> from geoiou.evaluation import Annotations
>>> squares = geoiou.Polygon.from_rings([[(0, 0), (10, 0), (10, 10), (0, 10)], [(10, 0), (20, 0), (20, 10), (10, 10)]])
>>> truth = Annotations(image_id=[1, 1], category_id=[1, 2], region=squares)
>>> found = Annotations(image_id=[1, 1], category_id=[1, 2], region=geoiou.Box([[0, 0, 12, 10], [12, 0, 20, 10]]))
>>> result = evaluate_panoptic(truth, found)
>>> result["PQ"], result["SQ"], result["RQ"]  # IoUs 100/120 and 80/100; both matched
(0.8166666666666667, 0.8166666666666667, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from geoiou._validation import invalid_argument as _fail
from geoiou.evaluation.mergeable import MergeableEvaluation, disjoint_keys, joined_ids
from geoiou.evaluation.panoptic_overlaps import SegmentOverlaps, maps_overlaps, region_overlaps
from geoiou.tables.annotations import Annotations, as_annotations
from geoiou.tables.panoptic import PanopticMaps

__all__ = ["PanopticEvaluation", "PanopticResult", "PanopticSettings", "evaluate_panoptic", "panoptic_counts"]

#: A prediction and a ground truth match when their IoU is above this (strictly).
MATCH_IOU = 0.5
#: The rows of the summary: name and which categories (True things, False stuff, None all).
GROUPS = (("All", None), ("Things", True), ("Stuff", False))


@dataclass(frozen=True)
class PanopticSettings:
    """The checked settings of a `PanopticEvaluation`: the categories (in order) and which are things."""

    categories: tuple[Any, ...] | None
    things: tuple[Any, ...] | None

    @classmethod
    def checked(cls, categories: Any) -> PanopticSettings:
        """From COCO category dicts (``id``, ``isthing``), plain ids, or None (the categories seen; things unknown)."""
        if categories is None:
            return cls(None, None)
        listed = list(categories.values() if isinstance(categories, Mapping) else categories)
        if all(isinstance(c, Mapping) for c in listed):
            if not all("id" in c for c in listed):
                raise _fail("categories", "COCO category dicts with an 'id'", categories)
            ids = tuple(c["id"] for c in listed)
            known = all("isthing" in c for c in listed)
            things = tuple(c["id"] for c in listed if c.get("isthing")) if known else None
        else:
            ids, things = tuple(listed), None
        if len(set(ids)) != len(ids):
            raise _fail("categories", "each category once", categories)
        return cls(ids, things)


@dataclass(frozen=True)
class _PanopticPart:
    """What one part leaves: its images and, per decision, the category (and each true positive's IoU)."""

    images: np.ndarray
    categories: np.ndarray
    tp_category: np.ndarray
    tp_iou: np.ndarray
    fp_category: np.ndarray
    fn_category: np.ndarray


def panoptic_counts(overlaps: SegmentOverlaps) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """panopticapi's decisions over a part's segments: true positives' rows and IoUs, false positives, misses.

    Returns ``(tp_pairs, tp_iou, fp_rows, fn_rows)``: the matched pairs (positions in the pair
    arrays) with their IoUs, the predictions that are false positives and the ground truths that
    are false negatives.

    Examples
    --------
    >>> from geoiou.evaluation.panoptic_overlaps import SegmentOverlaps
    >>> one = np.zeros(1, np.int64)
    >>> overlaps = SegmentOverlaps(one, one, one, np.zeros(1, bool), np.array([10.0]), np.zeros(2, np.int64),
    ...                            np.zeros(2, np.int64), np.array([8.0, 4.0]), np.array([0.0, 3.0]),
    ...                            np.array([0, 0]), np.array([0, 1]), np.array([7.0, 1.0]))
    >>> tp, iou, fp, fn = panoptic_counts(overlaps)  # 7 / (8 + 10 - 7); the second is 3/4 on void: ignored
    >>> tp.tolist(), iou.round(4).tolist(), fp.tolist(), fn.tolist()
    ([0], [0.6364], [], [])
    """
    o = overlaps
    gt, dt, shared = o.pair_gt, o.pair_dt, o.pair_area
    same = (o.gt_category[gt] == o.dt_category[dt]) & ~o.gt_crowd[gt]
    union = o.dt_area[dt] + o.gt_area[gt] - shared - o.dt_void[dt]
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = shared / union
    tp = np.flatnonzero(same & (iou > MATCH_IOU))
    _require_single_matches(gt[tp], dt[tp], o)
    gt_matched = np.zeros(len(o.gt_area), dtype=bool)
    gt_matched[gt[tp]] = True
    dt_matched = np.zeros(len(o.dt_area), dtype=bool)
    dt_matched[dt[tp]] = True
    fn = np.flatnonzero(~gt_matched & ~o.gt_crowd)
    # Ignored area of an unmatched prediction: void, and the last crowd region of its category in its image.
    on_crowd = _last_crowd(o)[gt] & (o.gt_category[gt] == o.dt_category[dt])
    ignored = o.dt_void + np.bincount(dt[on_crowd], shared[on_crowd], minlength=len(o.dt_area))
    with np.errstate(invalid="ignore", divide="ignore"):
        fp = np.flatnonzero(~dt_matched & ~(ignored / o.dt_area > MATCH_IOU))
    return tp, iou[tp], fp, fn


def _last_crowd(o: SegmentOverlaps) -> np.ndarray:
    """Per ground truth: the last listed crowd region of its category in its image (the one panopticapi keeps)."""
    crowd = np.flatnonzero(o.gt_crowd)
    _, category = np.unique(o.gt_category[crowd], return_inverse=True)
    key = o.gt_image[crowd] * (int(category.max(initial=0)) + 1) + category.reshape(-1)
    order = np.lexsort((crowd, key))
    last = np.ones(len(crowd), dtype=bool)
    last[:-1] = key[order][1:] != key[order][:-1]
    chosen = np.zeros(len(o.gt_crowd), dtype=bool)
    chosen[crowd[order][last]] = True
    return chosen


def _require_single_matches(gt: np.ndarray, dt: np.ndarray, o: SegmentOverlaps) -> None:
    """Two matches of one segment can only come from overlapping segments on the other side: refuse them."""
    for rows, side, other in ((gt, "predictions", "ground truth"), (dt, "ground_truth", "prediction")):
        values, counts = np.unique(rows, return_counts=True)
        if (counts > 1).any():
            image = (o.gt_image if side == "predictions" else o.dt_image)[values[np.argmax(counts > 1)]]
            raise _fail(
                side,
                "segments that do not overlap (a panoptic map)",
                f"two segments matching one {other} segment in image {o.image_ids[image].item()!r}",
            )


class PanopticEvaluation(MergeableEvaluation["PanopticResult"]):
    """Panoptic quality accumulated part by part: `update` per part (its images), `merge`, `compute`.

    Parameters
    ----------
    categories : sequence of dict or of ids, optional
        The categories in the order of the averages: COCO category dicts (``id``, ``isthing``;
        the ground truth file's, as panopticapi reads them) or ids. By default the categories
        seen, with things and stuff unknown (their rows NaN). A prediction of another category
        is refused.

    Examples
    --------
    >>> import geoiou
    >>> evaluation = PanopticEvaluation(categories=[{"id": 1, "isthing": 1}, {"id": 2, "isthing": 0}])
    >>> for image, found in ((1, [0, 0, 10, 10]), (2, [0, 0, 10, 4])):  # one update per image
    ...     truth = Annotations(image_id=[image], category_id=[1], region=geoiou.Box([[0, 0, 10, 10]]))
    ...     _ = evaluation.update(truth, Annotations(image_id=[image], category_id=[1], region=geoiou.Box([found])))
    >>> result = evaluation.compute()
    >>> result["PQ"], result["RQ"]  # one match of IoU 1, one miss and one false positive: RQ 1 / 2
    (0.5, 0.5)
    """

    settings: PanopticSettings

    def __init__(self, *, categories: Sequence[Any] | Mapping[Any, Any] | None = None) -> None:
        self._start(PanopticSettings.checked(categories))

    def update(
        self,
        ground_truth: PanopticMaps | Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        predictions: PanopticMaps | Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        images: Sequence[Any] | None = None,
    ) -> PanopticEvaluation:
        """Count one part's images: maps (`PanopticMaps`) on both sides, or segments as regions; return ``self``.

        `images` (regions only) lists the part's images; by default those of its ground truth.
        """
        if isinstance(ground_truth, PanopticMaps) or isinstance(predictions, PanopticMaps):
            if not (isinstance(ground_truth, PanopticMaps) and isinstance(predictions, PanopticMaps)):
                raise _fail("predictions", "PanopticMaps like the ground truth", type(predictions).__name__)
            overlaps = maps_overlaps(ground_truth, predictions)
        else:
            truth, found = as_annotations(ground_truth, "ground_truth"), as_annotations(predictions, "predictions")
            overlaps = region_overlaps(truth, found, None if images is None else np.asarray(images))
        self._check_categories(overlaps.dt_category, "predictions.category_id")
        self._check_categories(overlaps.gt_category, "ground_truth.category_id")
        tp, tp_iou, fp, fn = panoptic_counts(overlaps)
        self._parts.append(
            _PanopticPart(
                images=overlaps.image_ids,
                categories=np.unique(np.concatenate([overlaps.gt_category, overlaps.dt_category])),
                tp_category=overlaps.gt_category[overlaps.pair_gt[tp]],
                tp_iou=tp_iou,
                fp_category=overlaps.dt_category[fp],
                fn_category=overlaps.gt_category[fn],
            )
        )
        return self

    def _check_categories(self, values: np.ndarray, param: str) -> None:
        listed = self.settings.categories
        if listed is None or not len(values):
            return
        known = np.isin(values, np.asarray(listed))
        if not known.all():
            raise _fail(param, "one of the evaluated categories", values[np.argmin(known)].item())

    def compute(self) -> PanopticResult:
        """The `PanopticResult` of every part's images."""
        parts = self._parts
        images = disjoint_keys([part.images for part in parts], "image")
        listed = self.settings.categories
        categories = (
            np.asarray(listed)
            if listed is not None
            else np.unique(joined_ids([p.categories for p in parts], "category"))
        )

        def counted(name: str) -> np.ndarray:
            values = joined_ids([getattr(part, name) for part in parts], "category")
            return np.bincount(_category_codes(categories, values), minlength=len(categories))

        tp_category = joined_ids([part.tp_category for part in parts], "category")
        tp_code = _category_codes(categories, tp_category)
        tp_iou = np.concatenate([np.zeros(0)] + [part.tp_iou for part in parts])
        order = np.argsort(tp_code, kind="stable")
        starts = np.searchsorted(tp_code[order], np.arange(len(categories) + 1))
        # Exactly rounded sums: the same bits whatever the split into parts and their order.
        iou_sum = np.array([math.fsum(tp_iou[order][a:b]) for a, b in zip(starts[:-1], starts[1:])])
        things = self.settings.things
        return PanopticResult(
            categories=categories,
            is_thing=None if things is None else np.isin(categories, np.asarray(things)),
            tp=np.bincount(tp_code, minlength=len(categories)),
            fp=counted("fp_category"),
            fn=counted("fn_category"),
            iou_sum=iou_sum,
            num_images=len(images),
        )


def _category_codes(categories: np.ndarray, values: np.ndarray) -> np.ndarray:
    if not len(values):
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(categories, kind="stable")
    return order[np.searchsorted(categories[order], values)].astype(np.int64)


@dataclass(frozen=True)
class PanopticResult:
    """Panoptic quality per category and averaged over all, thing and stuff categories.

    Attributes
    ----------
    categories : ndarray, shape (K,)
        The category ids, in the order of the averages.
    is_thing : ndarray of bool, shape (K,), or None
        Which categories are things (None: unknown, the Things and Stuff averages are NaN).
    tp, fp, fn : ndarray of int64, shape (K,)
        Matched pairs, unmatched predictions (not ignored) and missed ground truths.
    iou_sum : ndarray of float64, shape (K,)
        The sum of the matched pairs' IoUs, exactly rounded.
    num_images : int
    """

    categories: np.ndarray
    is_thing: np.ndarray | None
    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    iou_sum: np.ndarray
    num_images: int

    @property
    def pq(self) -> np.ndarray:
        """PQ per category, ``iou_sum / (TP + FP/2 + FN/2)``; NaN where the category has no TP, FP nor FN."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self._counted, self.iou_sum / self._denominator, np.nan)

    @property
    def sq(self) -> np.ndarray:
        """SQ per category, the mean IoU of its matches (0 without matches, as panopticapi; NaN if not counted)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self._counted, np.where(self.tp > 0, self.iou_sum / self.tp, 0.0), np.nan)

    @property
    def rq(self) -> np.ndarray:
        """RQ per category, ``TP / (TP + FP/2 + FN/2)`` (an F1 score); NaN where not counted."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self._counted, self.tp / self._denominator, np.nan)

    @property
    def _counted(self) -> np.ndarray:
        counted: np.ndarray = (self.tp + self.fp + self.fn) > 0
        return counted

    @property
    def _denominator(self) -> np.ndarray:
        denominator: np.ndarray = self.tp + 0.5 * self.fp + 0.5 * self.fn
        return denominator

    def average(self, isthing: bool | None = None) -> dict[str, float]:
        """``{"pq", "sq", "rq", "n"}`` over the counted categories (things, stuff, or all for None), as panopticapi.

        The means add the categories in their order as panopticapi does; NaN when none is counted
        (panopticapi divides by zero) or when things and stuff are unknown.
        """
        chosen = self._counted.copy()
        if isthing is not None:
            if self.is_thing is None:
                return {"pq": math.nan, "sq": math.nan, "rq": math.nan, "n": 0}
            chosen &= self.is_thing == isthing
        n = int(chosen.sum())
        means = {}
        for name, values in (("pq", self.pq), ("sq", self.sq), ("rq", self.rq)):
            total = 0.0
            for value in values[chosen].tolist():  # in order, as panopticapi's loop adds them
                total += value
            means[name] = total / n if n else math.nan
        return {**means, "n": n}

    def __getitem__(self, name: str) -> float:
        """``"PQ"``, ``"SQ"``, ``"RQ"`` (all categories), with ``"_th"`` (things) or ``"_st"`` (stuff) appended."""
        which = {"": None, "_th": True, "_st": False}
        for suffix, isthing in which.items():
            for key in ("PQ", "SQ", "RQ"):
                if name == key + suffix:
                    return float(self.average(isthing)[key.lower()])
        raise KeyError(f"{name!r}: one of PQ, SQ, RQ, with _th or _st appended")

    def per_category(self) -> dict[Any, dict[str, float]]:
        """``{category_id: {"pq", "sq", "rq", "tp", "fp", "fn"}}``, NaN scores where a category is not counted."""
        rows = zip(self.categories.tolist(), self.pq.tolist(), self.sq.tolist(), self.rq.tolist())
        counts = zip(self.tp.tolist(), self.fp.tolist(), self.fn.tolist())
        return {
            category: {"pq": pq, "sq": sq, "rq": rq, "tp": tp, "fp": fp, "fn": fn}
            for (category, pq, sq, rq), (tp, fp, fn) in zip(rows, counts)
        }

    def to_panopticapi(self) -> dict[str, Any]:
        """The dict panopticapi's ``pq_compute`` returns: ``All``, ``Things``, ``Stuff`` and ``per_class``.

        ``per_class`` gives 0.0 for a category with no TP, FP nor FN, as panopticapi does.
        """
        results: dict[str, Any] = {name: self.average(isthing) for name, isthing in GROUPS}

        def zero(value: float) -> float:
            return 0.0 if math.isnan(value) else value

        results["per_class"] = {
            category: {"pq": zero(scores["pq"]), "sq": zero(scores["sq"]), "rq": zero(scores["rq"])}
            for category, scores in self.per_category().items()
        }
        return results

    def summary(self) -> str:
        """panopticapi's printed table: PQ, SQ and RQ in percent and the number of categories, per group."""
        lines = ["{:10s}| {:>5s}  {:>5s}  {:>5s} {:>5s}".format("", "PQ", "SQ", "RQ", "N"), "-" * (10 + 7 * 4)]
        for name, isthing in GROUPS:
            a = self.average(isthing)
            lines.append(f"{name:10s}| {100 * a['pq']:5.1f}  {100 * a['sq']:5.1f}  {100 * a['rq']:5.1f} {a['n']:5d}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<PanopticResult: PQ {self['PQ']:.4f} over {self.num_images} images, {len(self.categories)} categories>"


def evaluate_panoptic(
    ground_truth: PanopticMaps | Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
    predictions: PanopticMaps | Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
    *,
    categories: Sequence[Any] | Mapping[Any, Any] | None = None,
    images: Sequence[Any] | None = None,
) -> PanopticResult:
    """Panoptic quality (PQ, SQ, RQ) of predicted panoptic segmentations, as panopticapi's ``pq_compute``.

    Parameters
    ----------
    ground_truth, predictions : PanopticMaps, or Annotations (or its records) of segments
        Maps and their segments (`geoiou.io.read_coco_panoptic` reads COCO's panoptic JSON and PNG
        folder), or each image's segments as regions: masks (RLE) or polygons, whose overlaps are
        then exact (no raster). Segments of one side must not overlap, as in a panoptic map;
        ``iscrowd`` marks crowd ground truths.
    categories : sequence of dict or of ids, optional
        The categories and their order (`PanopticEvaluation`); by default the ground truth maps'
        ``categories`` when read from a file, else the categories seen (things and stuff unknown).
    images : sequence of ids, optional
        Regions only: the evaluated images, by default those of the ground truth.

    Returns
    -------
    PanopticResult
        ``result["PQ"]`` (and SQ, RQ, with ``_th``, ``_st``), ``per_category()``, ``summary()``,
        ``to_panopticapi()``.

    Examples
    --------
    >>> import numpy as np
    >>> truth_map = np.array([[1, 1, 1, 2], [1, 1, 0, 2]])  # segment 1 (a car), 2 (a road); one void pixel
    >>> found_map = np.array([[7, 7, 7, 7], [7, 7, 7, 8]])
    >>> cars_and_roads = [{"id": 1, "isthing": 1}, {"id": 2, "isthing": 0}]
    >>> truth = PanopticMaps([1], [truth_map], segment_image=[1, 1], segment_id=[1, 2], category_id=[1, 2])
    >>> found = PanopticMaps([1], [found_map], segment_image=[1, 1], segment_id=[7, 8], category_id=[1, 2])
    >>> result = evaluate_panoptic(truth, found, categories=cars_and_roads)
    >>> result["PQ_th"], result["PQ_st"]  # car: 5 / (7 + 5 - 5 - 1), matched; road: 1 / 2, a miss and a false positive
    (0.8333333333333334, 0.0)
    """
    if categories is None and isinstance(ground_truth, PanopticMaps):
        categories = ground_truth.categories
    evaluation = PanopticEvaluation(categories=categories)
    return evaluation.update(ground_truth, predictions, images=images).compute()
