"""One matching of COCOeval's ``evaluate`` on geoiou's `coco_match`, and what pycocotools builds from it.

`match_groups` hands the rows of one evaluation (coded by category and image) to `coco_match`,
with the overlap function of the ``iouType`` (which it also listens to, to keep the overlaps that
``COCOeval.ious`` shows), and keeps the result as `Evaluated`: flags and matched ground truths for
every threshold and area range, the groups' spans, ids and scores. ``evalImgs`` and ``ious`` are
built from it only when read (`eval_images`, `overlaps_by_group`), and `Evaluated.entries` is what
``accumulate`` reads: nothing is matched or measured twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, Sequence

import numpy as np

from geoiou.evaluation.coco import CocoArrays, OverlapFunction, coco_match
from geoiou.pycocotools.entries import Entries

__all__ = ["Evaluated", "GroupRows", "eval_images", "match_groups", "overlaps_by_group"]

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


@dataclass
class _Overlaps:
    """The overlap blocks the matcher asked for: one per group with both sides, ``rows x cols`` values each."""

    groups: list[np.ndarray] = field(default_factory=list)
    offsets: list[np.ndarray] = field(default_factory=list)
    rows: list[np.ndarray] = field(default_factory=list)
    cols: list[np.ndarray] = field(default_factory=list)
    values: list[np.ndarray] = field(default_factory=list)


@dataclass(frozen=True)
class Evaluated:
    """A matching as pycocotools' evaluate leaves it: per detection (in the matcher's order, by category,
    image and score) its flags ``[T, A, D]`` and matched ground truth, per ground truth (by category and image,
    file order within) its ignore flags ``[A, G]``, and the spans of each group ``(k, i)``.

    `match_groups` makes one (see its example).
    """

    n_categories: int
    n_images: int
    dt_ids: np.ndarray
    dt_score: np.ndarray
    rank: np.ndarray
    matched: np.ndarray
    ignored: np.ndarray
    partners: np.ndarray
    gt_ids: np.ndarray
    gt_ignored: np.ndarray
    dt_spans: tuple[np.ndarray, np.ndarray]
    gt_spans: tuple[np.ndarray, np.ndarray]
    present: np.ndarray
    overlaps: _Overlaps

    def entries(self) -> Entries:
        """What ``accumulate`` reads: entry ``(k, a, i)`` is group ``(k, i)`` at area range ``a``."""
        n_areas = self.gt_ignored.shape[0]
        gt_group = np.repeat(np.arange(self.n_categories * self.n_images), np.diff(_span_bounds(self.gt_spans)))
        positives = np.stack(
            [
                np.bincount(gt_group[~ignored], minlength=self.n_categories * self.n_images)
                for ignored in self.gt_ignored
            ]
        ).reshape(n_areas, self.n_categories, self.n_images)
        return Entries.from_matched(
            self.present,
            self.dt_spans[0],
            self.dt_spans[1],
            positives.transpose(1, 0, 2),
            self.dt_score,
            self.rank,
            self.matched,
            self.ignored,
        )


def _span_bounds(spans: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    return np.r_[spans[0].reshape(-1), spans[1].reshape(-1)[-1:]] if spans[0].size else np.zeros(1, np.int64)


def match_groups(
    truth: GroupRows,
    predicted: GroupRows,
    overlap: OverlapFunction,
    *,
    n_categories: int,
    n_images: int,
    iou_thresholds: np.ndarray,
    area_ranges: np.ndarray,
    max_detections: int,
    unmatched_ignored: np.ndarray | None = None,
) -> Evaluated:
    """COCOeval's evaluate of the rows given, on `coco_match`; `unmatched_ignored` (per detection) adds lvis-api's
    rule that an unmatched detection of a category not exhaustively annotated in its image is ignored.

    Examples
    --------
    >>> truth = GroupRows(np.arange(1), np.zeros(1, np.int64), np.zeros(1, np.int64), np.array([3]), np.array([50.0]))
    >>> found = GroupRows(np.arange(2), np.zeros(2, np.int64), np.zeros(2, np.int64), np.array([1, 2]),
    ...                   np.array([50.0, 50.0]), score=np.array([0.5, 0.9]))
    >>> overlap = lambda dt, gt, crowd, *blocks: np.where(dt == 0, 0.8, 0.3)  # result 0 overlaps the truth
    >>> evaluated = match_groups(truth, found, overlap, n_categories=1, n_images=1, iou_thresholds=np.array([0.5]),
    ...                          area_ranges=np.array([[0.0, 1e10]]), max_detections=100)
    >>> evaluated.dt_ids, evaluated.matched[0, 0]  # by score: the second result first, unmatched
    (array([2, 1]), array([False,  True]))
    >>> eval_images(evaluated, [1], [1], [[0.0, 1e10]], 100)[0]["dtMatches"]
    array([[0., 3.]])
    >>> overlaps_by_group(evaluated, [1], [1], fortran=True)[1, 1]
    array([[0.3],
           [0.8]])
    """
    data = CocoArrays(
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
    groups = n_categories * n_images
    dt_key = predicted.category * n_images + predicted.image
    gt_key = truth.category * n_images + truth.image
    captured = _Overlaps()
    found = _matched_in_chunks(
        data,
        _listening(overlap, captured, dt_key),
        dt_key,
        gt_key,
        iou_thresholds=np.asarray(iou_thresholds, dtype=np.float64),
        max_detections=(max_detections,),
        area_ranges=area_ranges,
    )
    assert found.partners is not None  # asked for with keep_partners
    matched, ignored = found.matched, found.ignored
    gt_ids = truth.ids[found.gt_order]
    if (gt_ids == 0).any():
        partner_id = np.where(found.partners >= 0, gt_ids[np.maximum(found.partners, 0)], 0)
        # pycocotools records a match by the ground truth's id, so a match with id 0 reads as none: not a true
        # positive, and ignored when outside the area range, as an unmatched detection would be.
        low, high = area_ranges[:, 0:1], area_ranges[:, 1:2]
        outside = (predicted.area[found.order] < low) | (predicted.area[found.order] > high)
        zero = matched & (partner_id == 0)
        ignored = ignored | (zero & outside[None])
        matched = matched & ~zero
    if unmatched_ignored is not None:
        ignored = ignored | (~matched & unmatched_ignored[found.order][None, None, :])
    present = (np.bincount(dt_key, minlength=groups) + np.bincount(gt_key, minlength=groups) > 0).reshape(
        n_categories, n_images
    )
    return Evaluated(
        n_categories=n_categories,
        n_images=n_images,
        dt_ids=predicted.ids[found.order],
        dt_score=np.asarray(predicted.score, dtype=np.float64)[found.order],
        rank=found.rank,
        matched=matched,
        ignored=ignored,
        partners=found.partners.astype(np.int32),  # kept for evalImgs: half the memory of the matcher's int64
        gt_ids=gt_ids,
        gt_ignored=found.gt_ignored,
        dt_spans=_spans(dt_key[found.order], groups, n_categories, n_images),
        gt_spans=_spans(gt_key[found.gt_order], groups, n_categories, n_images),
        present=present,
        overlaps=captured,
    )


#: Detections matched per call of the matcher: images are taken in runs of about this many detections, so that
#: the matcher's working arrays (pairs, flags per threshold) stay bounded for LVIS- and Objects365-sized sets.
CHUNK_DETECTIONS = 1 << 19


class _Found(NamedTuple):
    """What `match_groups` keeps of `coco_match`: its order, ranks, flags, partners and ground-truth order."""

    order: np.ndarray
    rank: np.ndarray
    matched: np.ndarray
    ignored: np.ndarray
    partners: np.ndarray
    gt_order: np.ndarray
    gt_ignored: np.ndarray


def _matched_in_chunks(
    data: CocoArrays, overlap: OverlapFunction, dt_key: np.ndarray, gt_key: np.ndarray, **settings: Any
) -> _Found:
    """`coco_match` over runs of whole images, joined: groups never span images, so the result is the one call's
    (detections by category, image and rank; ground truths by category and image, file order within)."""
    per_image = np.bincount(data.dt_image, minlength=data.num_images)
    ends = np.searchsorted(
        np.cumsum(per_image), np.arange(1, per_image.sum() // CHUNK_DETECTIONS + 1) * CHUNK_DETECTIONS
    )
    bounds = np.unique(np.r_[0, ends + 1, data.num_images].clip(0, data.num_images))
    parts = []
    for low, high in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        dt = np.flatnonzero((data.dt_image >= low) & (data.dt_image < high))
        gt = np.flatnonzero((data.gt_image >= low) & (data.gt_image < high))
        found = coco_match(_subset(data, dt, gt), _on_subset(overlap, dt, gt), keep_partners=True, **settings)
        assert found.partners is not None  # asked for with keep_partners
        parts.append((dt[found.order], found, gt[found.gt_order], found.partners))
    if len(parts) == 1:
        order, found, gt_order, partners = parts[0]
        return _Found(order, found.rank, found.matched, found.ignored, partners, gt_order, found.gt_ignored)
    order = np.concatenate([part[0] for part in parts])
    gt_order = np.concatenate([part[2] for part in parts])
    dt_sort = np.argsort(dt_key[order], kind="stable")
    gt_sort = np.argsort(gt_key[gt_order], kind="stable")
    # A part's partners are positions in its own ground-truth order: moved to the joined, sorted order.
    gt_offsets = np.cumsum([0] + [len(part[2]) for part in parts[:-1]])
    new_position = np.empty(len(gt_order), dtype=np.int64)
    new_position[gt_sort] = np.arange(len(gt_order))
    partners = np.concatenate(
        [np.where(part[3] >= 0, new_position[part[3] + shift], -1) for part, shift in zip(parts, gt_offsets)], axis=2
    )
    return _Found(
        order[dt_sort],
        np.concatenate([part[1].rank for part in parts])[dt_sort],
        np.concatenate([part[1].matched for part in parts], axis=2)[:, :, dt_sort],
        np.concatenate([part[1].ignored for part in parts], axis=2)[:, :, dt_sort],
        partners[:, :, dt_sort],
        gt_order[gt_sort],
        np.concatenate([part[1].gt_ignored for part in parts], axis=1)[:, gt_sort],
    )


def _subset(data: CocoArrays, dt: np.ndarray, gt: np.ndarray) -> CocoArrays:
    """The rows `dt` and `gt` of `data` alone (codes unchanged)."""
    return CocoArrays(
        num_images=data.num_images,
        num_categories=data.num_categories,
        gt_image=data.gt_image[gt],
        gt_category=data.gt_category[gt],
        gt_crowd=data.gt_crowd[gt],
        gt_ignore=data.gt_ignore[gt],
        gt_area=data.gt_area[gt],
        dt_image=data.dt_image[dt],
        dt_category=data.dt_category[dt],
        dt_score=data.dt_score[dt],
        dt_area=data.dt_area[dt],
    )


def _on_subset(overlap: OverlapFunction, dt: np.ndarray, gt: np.ndarray) -> OverlapFunction:
    """`overlap` of rows of the whole evaluation, given rows of a subset `dt`, `gt`."""

    def measure(pair_dt: np.ndarray, pair_gt: np.ndarray, pair_crowd: np.ndarray, *blocks: np.ndarray) -> np.ndarray:
        return overlap(dt[pair_dt], gt[pair_gt], pair_crowd, *blocks)

    return measure


def _flags(values: np.ndarray | None, n: int) -> np.ndarray:
    return np.zeros(n, dtype=bool) if values is None else np.asarray(values, dtype=bool)


def _spans(sorted_keys: np.ndarray, groups: int, n_categories: int, n_images: int) -> tuple[np.ndarray, np.ndarray]:
    bounds = np.searchsorted(sorted_keys, np.arange(groups + 1))
    return bounds[:-1].reshape(n_categories, n_images), bounds[1:].reshape(n_categories, n_images)


def _listening(overlap: OverlapFunction, captured: _Overlaps, dt_key: np.ndarray) -> OverlapFunction:
    """`overlap`, keeping every block it measures (COCOeval's ``ious``) as it goes."""

    def measure(
        pair_dt: np.ndarray,
        pair_gt: np.ndarray,
        pair_crowd: np.ndarray,
        offsets: np.ndarray,
        rows: np.ndarray,
        cols: np.ndarray,
    ) -> np.ndarray:
        values = overlap(pair_dt, pair_gt, pair_crowd, offsets, rows, cols)
        captured.groups.append(dt_key[pair_dt[offsets[:-1]]] if len(pair_dt) else np.zeros(0, np.int64))
        captured.offsets.append(offsets[:-1])
        captured.rows.append(rows)
        captured.cols.append(cols)
        captured.values.append(values)
        return values

    return measure


# --------------------------------------------------------------------------- what pycocotools builds
def overlaps_by_group(
    evaluated: Evaluated, image_ids: Sequence[Any], category_ids: Sequence[Any], *, fortran: bool, none: bool = False
) -> dict[tuple[Any, Any], Any]:
    """``COCOeval.ious``: ``{(imgId, catId): (D, G) overlaps}`` in pycocotools' order, ``[]`` where a side is empty
    (everywhere with `none`: pycocotools' OKS without categories).

    `match_groups` shows one in its example.
    """
    blocks: dict[int, np.ndarray] = {}
    captured = evaluated.overlaps
    if not none:
        for groups, offsets, rows, cols, values in zip(
            captured.groups, captured.offsets, captured.rows, captured.cols, captured.values
        ):
            for group, first, n_rows, n_cols in zip(groups.tolist(), offsets.tolist(), rows.tolist(), cols.tolist()):
                block = values[first : first + n_rows * n_cols].reshape(n_rows, n_cols)
                blocks[group] = np.asfortranarray(block) if fortran else block
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
    neither ground truth nor detection of the category.

    `match_groups` shows one in its example.
    """
    n_thresholds, n_areas = evaluated.matched.shape[:2]
    last_finder = _last_finders(evaluated)
    # Ground truths of each area range ordered regular first, ignored last (COCOeval's stable sort), per group.
    gt_bounds = _span_bounds(evaluated.gt_spans)
    gt_group = np.repeat(np.arange(len(gt_bounds) - 1), np.diff(gt_bounds))
    by_ignore = [np.lexsort((evaluated.gt_ignored[a], gt_group)) for a in range(n_areas)]
    gt_id_float = evaluated.gt_ids.astype(np.float64)
    dt_id_float = np.r_[evaluated.dt_ids.astype(np.float64), 0.0]  # position -1 (no finder) reads 0
    partner_id = np.where(evaluated.partners >= 0, gt_id_float[np.maximum(evaluated.partners, 0)], 0.0)
    build = _EntryBuilder(keys, n_thresholds)
    result: list[dict[str, Any] | None] = []
    for k, category in enumerate(category_ids):
        for a, area_range in enumerate(area_ranges):
            for i, image in enumerate(image_ids):
                if not evaluated.present[k, i]:
                    result.append(None)
                    continue
                dt = slice(evaluated.dt_spans[0][k, i], evaluated.dt_spans[1][k, i])
                gt = by_ignore[a][evaluated.gt_spans[0][k, i] : evaluated.gt_spans[1][k, i]]
                fields = (
                    image,
                    category,
                    area_range,
                    max_detection,
                    evaluated.dt_ids[dt].tolist(),
                    evaluated.gt_ids[gt].tolist(),
                    partner_id[:, a, dt],
                    dt_id_float[last_finder[:, a, gt]],
                    evaluated.dt_score[dt].tolist(),
                    evaluated.gt_ignored[a, gt].astype(np.int64) if len(gt) else np.array([]),
                    evaluated.ignored[:, a, dt],
                )
                result.append(build(fields))
    return result


class _EntryBuilder:
    """Makes one evalImgs dict from its fields in `keys` order (a None key is a field the flavour lacks)."""

    def __init__(self, keys: tuple[str | None, ...], n_thresholds: int) -> None:
        self.keys, self.n_thresholds = keys, n_thresholds

    def __call__(self, fields: tuple[Any, ...]) -> dict[str, Any]:
        return {key: value for key, value in zip(self.keys, fields) if key is not None}


def _last_finders(evaluated: Evaluated) -> np.ndarray:
    """``[T, A, G]``: the position of the last detection (highest rank) that matched each ground truth, -1 for none.

    A crowd region can be matched by several detections; pycocotools' ``gtMatches`` keeps the last one written.
    """
    n_thresholds, n_areas, _ = evaluated.partners.shape
    finders = np.full((n_thresholds, n_areas, len(evaluated.gt_ids)), -1, dtype=np.int64)
    t, a, d = np.nonzero(evaluated.partners >= 0)
    np.maximum.at(finders, (t, a, evaluated.partners[t, a, d]), d)
    return finders
