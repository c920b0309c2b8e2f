"""Detection average precision for any region kind: COCO's protocol and the VOC/DOTA protocol.

Ground truths and predictions are `Annotations`: one row per object, with its image, category and
region (a Box, RotatedBox, Polygon, Mask or Interval), and a score for predictions, crowd and
ignore flags and a COCO ``area`` for ground truths. `evaluate_coco` reproduces pycocotools'
``COCOeval`` (the 12 summary numbers, the precision and recall arrays) and `evaluate_voc` the
PASCAL VOC evaluation as DOTA's devkit runs it (all-point or 11-point AP per category, mAP).

Overlaps are geoiou's exact ones: a rotated box against a polygon is clipped exactly, a polygon
against a mask counts the exact covered area of each pixel. ``polygon_iou="pycocotools"``
rasterizes polygons the way pycocotools does instead, to reproduce official COCO segmentation
numbers (see `coco_compat_rasterize`).

Conventions
-----------
- Images are evaluated in sorted order of their ids and categories likewise (COCOeval's order,
  which decides ties of score across images). Ids are integers or strings.
- The evaluated images are the ground truth's unless `images` lists them: list them to evaluate
  images that have no ground truth. A prediction on an image or of a category outside the
  evaluated ones is an error, not silently dropped.
- Ties of score keep the input order (a stable sort), as COCOeval's mergesort does.
- An overlap whose denominator is 0 (two empty regions, or an empty prediction in a crowd region)
  counts as 0.

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
from typing import Any, Iterable, Literal, Sequence, cast

import numpy as np
from numpy.typing import ArrayLike

from geoiou._progress import progress
from geoiou._validation import invalid_argument as _fail
from geoiou.dispatch import find_kernel
from geoiou.evaluation.coco import (
    COCO_AREA_RANGES,
    COCO_IOU_THRESHOLDS,
    COCO_MAX_DETECTIONS,
    COCO_RECALL_THRESHOLDS,
    CocoArrays,
    CocoResult,
    OverlapFunction,
    coco_accumulate,
    coco_match,
)
from geoiou.evaluation.matches import ObjectMatches
from geoiou.evaluation.mergeable import MergeableEvaluation, disjoint_keys, joined_ids
from geoiou.evaluation.voc import INTERPOLATIONS, Interpolation, VocArrays, VocResult, voc_curves, voc_match
from geoiou.metrics import intersection_area, pairwise_intersection_area
from geoiou.regions import Box, Interval, Mask, Polygon, Region, RotatedBox
from geoiou.rle_rasterize import coco_compat_polygon_runs, coco_compat_rasterize
from geoiou.tables.annotations import Annotations, as_annotations, id_list

__all__ = [
    "Annotations",
    "CocoEvaluation",
    "CocoResult",
    "VocEvaluation",
    "VocResult",
    "coco_compat_rasterize",
    "evaluate_coco",
    "evaluate_voc",
]

PolygonIoU = Literal["exact", "pycocotools"]
POLYGON_IOU = ("exact", "pycocotools")
#: Pairs measured per call on the vector path (boxes, rotated boxes, polygons, intervals).
PAIR_CHUNK = 1 << 16


def _key(key: Any) -> str:
    """A mapping key inside a parameter name, in double quotes so that the name reads well inside its own quotes."""
    return f'"{key}"' if isinstance(key, str) else repr(key)


# --------------------------------------------------------------------------- ids
def _index(ids: np.ndarray, values: np.ndarray, param: str, what: str, hint: str) -> np.ndarray:
    """Position of each value in the sorted `ids`; an unknown value is an error."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    if len(ids) == 0 or (ids.dtype.kind == "U") != (values.dtype.kind == "U"):
        position = np.zeros(len(values), dtype=np.int64)
        known = np.zeros(len(values), dtype=bool)
    else:
        position = np.minimum(np.searchsorted(ids, values), len(ids) - 1)
        known = ids[position] == values
    if not known.all():
        row = int(np.flatnonzero(~known)[0])
        raise _fail(param, f"one of the {what}{hint}", f"{values[row].item()!r} at row {row}")
    return position


def _image_sizes(images: Mapping[Any, Any], ids: np.ndarray) -> np.ndarray:
    sizes = np.zeros((len(ids), 2), dtype=np.int64)
    for key, size in images.items():
        values = np.asarray(size)
        if values.shape != (2,) or values.dtype.kind not in "iu" or (values < 1).any():
            raise _fail(f"images[{_key(key)}]", "the image size (height, width) in pixels, two positive integers", size)
        sizes[np.searchsorted(ids, np.asarray(key, dtype=ids.dtype))] = values
    return sizes


# --------------------------------------------------------------------------- regions
#: Kinds whose regions are small arrays: concatenated into one batch per kind, measured pair by pair.
VECTOR_KINDS = (Box, RotatedBox, Polygon, Interval)


def _concatenate(regions: list[Region]) -> Region:
    """One batch of shape (N,) from 1-D batches of one kind; masks of different sizes are padded with false pixels."""
    if len(regions) == 1:
        return regions[0]
    kind = type(regions[0])
    if kind in VECTOR_KINDS:
        # The regions are all of one kind, that of the first (which mypy cannot follow from a list[Region]).
        return kind.concatenate(cast("list[Any]", regions))
    if kind is Mask:
        masks = cast("list[Mask]", regions)  # the regions are all of one kind, that of the first: masks
        datas = [region.data for region in masks]
        height = max(data.shape[1] for data in datas)
        width = max(data.shape[2] for data in datas)
        data = np.concatenate([np.pad(d, ((0, 0), (0, height - d.shape[1]), (0, width - d.shape[2]))) for d in datas])
        return Mask(data, origin=np.concatenate([region.origin for region in masks]))
    return kind.stack([single for region in regions for single in region])


class _Store:
    """The regions of one side, row by row: ``blocks[block_of[row]][index[row]]``.

    Regions of the vector kinds (boxes, rotated boxes, polygons, intervals) are concatenated into
    one block per kind, so that pairs are measured in a few vectorized calls ("vector blocks");
    masks (and kinds from plug-ins) stay in the batches given and are measured image by image.
    """

    def __init__(self, entries: list[tuple[Region, np.ndarray]], n: int) -> None:
        groups: dict[Any, list[tuple[Region, np.ndarray]]] = {}
        for region, rows in entries:
            key = type(region) if isinstance(region, VECTOR_KINDS) else ("own", len(groups))
            groups.setdefault(key, []).append((region, rows))
        self.blocks: list[Region] = []
        self.block_of = np.zeros(n, dtype=np.int64)
        self.index = np.zeros(n, dtype=np.int64)
        self.area = np.zeros(n)
        for group in groups.values():
            block = _concatenate([region for region, _ in group])
            rows = np.concatenate([rows for _, rows in group])
            self.block_of[rows] = len(self.blocks)
            self.index[rows] = np.arange(len(rows))
            self.area[rows] = block._area_array()
            self.blocks.append(block)
        # Pairs of these blocks are measured pair by pair over all images at once: vector kinds, and masks held
        # as COCO runs (counted from the runs); masks of dense pixels are measured image by image.
        self.is_pairwise_block = np.array(
            [isinstance(block, VECTOR_KINDS) or _held_as_runs(block) for block in self.blocks], dtype=bool
        )

    @property
    def kinds(self) -> set[type]:
        return {type(block) for block in self.blocks}

    def take(self, rows: np.ndarray) -> Region:
        """The regions of `rows` (all of one kind) as one batch."""
        blocks = self.block_of[rows]
        if (blocks == blocks[0]).all():
            return self.blocks[int(blocks[0])][self.index[rows]]
        distinct = np.unique(blocks)
        parts = [self.blocks[b][self.index[rows[blocks == b]]] for b in distinct]
        order = np.concatenate([np.flatnonzero(blocks == b) for b in distinct])
        return _concatenate(parts)[np.argsort(order)]


def _store(
    annotations: Annotations,
    image: np.ndarray,
    image_ids: np.ndarray,
    sizes: np.ndarray | None,
    polygon_iou: str,
    param: str,
) -> _Store:
    """Check masks against the image sizes and rasterize polygons if asked; index the regions by row."""
    entries: list[tuple[Region, np.ndarray]] = []
    start = 0
    for piece in annotations.regions:
        rows = np.arange(start, start + len(piece))
        start += len(piece)
        if isinstance(piece, Polygon) and polygon_iou == "pycocotools":
            assert sizes is not None
            row_sizes = sizes[image[rows]]
            runs = coco_compat_polygon_runs(piece, row_sizes, f"{param}.region")
            # One batch of masks per image size (a batch shares its grid); all rasterized at once above.
            distinct, size_of_row = np.unique(row_sizes, axis=0, return_inverse=True)
            for k in range(len(distinct)):
                here = np.flatnonzero(size_of_row.reshape(-1) == k)
                entries.append((Mask._from_runs(runs.take(here)), rows[here]))
            continue
        if isinstance(piece, Mask) and sizes is not None:
            _check_mask_sizes(piece, rows, image, image_ids, sizes, param)
        entries.append((piece, rows))
    return _Store(entries, len(annotations))


def _check_mask_sizes(
    masks: Mask, rows: np.ndarray, image: np.ndarray, image_ids: np.ndarray, sizes: np.ndarray, param: str
) -> None:
    if len(masks) == 0:
        return
    expected = sizes[image[rows]]
    height, width = masks.grid_shape  # a batch shares one grid
    wrong = (expected[:, 0] != height) | (expected[:, 1] != width) | (masks.origin != 0).any(axis=-1)
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        h, w = expected[i]
        x0, y0 = masks.origin[i]
        raise _fail(
            f"{param}.region",
            f"masks of their image's size at origin (0, 0): {h}x{w} pixels for image "
            f"{image_ids[image[rows[i]]].item()!r}",
            f"a {height}x{width} mask at origin ({x0:g}, {y0:g}) at row {rows[i]}",
        )


def _check_kinds(truth: _Store, predicted: _Store) -> None:
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


def _overlap_function(predicted: _Store, truth: _Store, show_progress: bool | None) -> OverlapFunction:
    """The `OverlapFunction` of two stores: IoU of each pair, IoF (over the prediction) for crowd pairs."""

    def overlap(
        pair_dt: np.ndarray,
        pair_gt: np.ndarray,
        pair_crowd: np.ndarray,
        offsets: np.ndarray,
        rows: np.ndarray,
        cols: np.ndarray,
    ) -> np.ndarray:
        intersection = np.zeros(len(pair_dt))
        vector_pair = (
            predicted.is_pairwise_block[predicted.block_of[pair_dt]] & truth.is_pairwise_block[truth.block_of[pair_gt]]
        )
        # A group (image and category) with any dense mask is measured as a whole, image by image.
        by_group = ~np.logical_and.reduceat(vector_pair, offsets[:-1]) if len(pair_dt) else np.zeros(0, bool)
        vector = np.flatnonzero(~np.repeat(by_group, rows * cols))
        combo = predicted.block_of[pair_dt[vector]] * len(truth.blocks) + truth.block_of[pair_gt[vector]]
        # Pairs grouped by their blocks once (results of many image sizes make thousands of mask blocks).
        order = np.argsort(combo, kind="stable")
        keys, firsts, counts = np.unique(combo[order], return_index=True, return_counts=True)
        steps = [
            (key, first + start, min(PAIR_CHUNK, count - start))
            for key, first, count in zip(keys.tolist(), firsts.tolist(), counts.tolist())
            for start in range(0, count, PAIR_CHUNK)
        ]
        for key, first, size in progress(steps, label="overlaps", enabled=show_progress if len(steps) > 1 else False):
            a, b = predicted.blocks[key // len(truth.blocks)], truth.blocks[key % len(truth.blocks)]
            chunk = vector[order[first : first + size]]
            intersection[chunk] = intersection_area(a[predicted.index[pair_dt[chunk]]], b[truth.index[pair_gt[chunk]]])
        for block in progress(np.flatnonzero(by_group), label="mask overlaps", enabled=show_progress):
            first, n_rows, n_cols = offsets[block], rows[block], cols[block]
            dt_rows = pair_dt[first : first + n_rows * n_cols : n_cols]
            gt_rows = pair_gt[first : first + n_cols]
            for dt_sel in _by_kind(predicted, dt_rows):
                for gt_sel in _by_kind(truth, gt_rows):
                    values = pairwise_intersection_area(predicted.take(dt_rows[dt_sel]), truth.take(gt_rows[gt_sel]))
                    intersection[first + dt_sel[:, None] * n_cols + gt_sel[None, :]] = values
        area_dt, area_gt = predicted.area[pair_dt], truth.area[pair_gt]
        union = area_dt + area_gt - intersection
        with np.errstate(invalid="ignore", divide="ignore"):
            iou = np.where(union > 0, intersection / union, 0.0)
            iof = np.where(area_dt > 0, intersection / area_dt, 0.0)
        return np.where(pair_crowd, iof, iou)

    return overlap


def _held_as_runs(region: Region) -> bool:
    return isinstance(region, Mask) and region._store.held_as_runs


def _by_kind(store: _Store, rows: np.ndarray) -> list[np.ndarray]:
    """Positions in `rows` grouped by region kind."""
    kinds = np.array([id(type(store.blocks[b])) for b in store.block_of[rows]])
    return [np.flatnonzero(kinds == kind) for kind in np.unique(kinds)]


# --------------------------------------------------------------------------- shared preparation
class _Prepared:
    """Both sides checked against each other: ids resolved to indices, regions indexed."""

    def __init__(self, ground_truth: Any, predictions: Any, images: Any, categories: Any, polygon_iou: str) -> None:
        truth = as_annotations(ground_truth, "ground_truth")
        predicted = as_annotations(predictions, "predictions")
        if truth.score is not None:
            raise _fail("ground_truth.score", "None (ground truths have no score)", "scores")
        if predicted.score is None:
            raise _fail("predictions.score", "one score per prediction", None)
        for name in ("iscrowd", "area", "ignore"):
            if getattr(predicted, name) is not None:
                raise _fail(
                    f"predictions.{name}",
                    f"None ({name} describes ground truths; a prediction's area is its region's measure)",
                    name,
                )
        if polygon_iou not in POLYGON_IOU:
            raise _fail("polygon_iou", f"one of {POLYGON_IOU}", polygon_iou)
        # Images and their sizes.
        sizes = None
        if images is None:
            self.image_ids = np.unique(truth.image_id)
            hint = " of the ground truth; pass images=[...] to evaluate images without ground truth"
        elif isinstance(images, Mapping):
            self.image_ids = id_list(images.keys(), "images")
            sizes = _image_sizes(images, self.image_ids)
            hint = " listed in 'images'"
        elif isinstance(images, (str, bytes)) or not isinstance(images, Iterable):
            raise _fail("images", "a sequence of image ids or a mapping {image_id: (height, width)}", images)
        else:
            self.image_ids = id_list(list(images), "images")
            hint = " listed in 'images'"
        if polygon_iou == "pycocotools" and sizes is None:
            raise _fail(
                "images",
                "a mapping {image_id: (height, width)} with polygon_iou='pycocotools' (polygons "
                "are rasterized at the image size)",
                images,
            )
        self.gt_image = _index(self.image_ids, truth.image_id, "ground_truth.image_id", "evaluated images", hint)
        self.dt_image = _index(self.image_ids, predicted.image_id, "predictions.image_id", "evaluated images", hint)
        # Categories.
        listed = _checked_categories(categories)
        if listed is None:
            self.category_ids = np.unique(truth.category_id)
            hint = " of the ground truth; pass categories=[...] to evaluate categories without ground truth"
        else:
            self.category_ids, hint = listed, " listed in 'categories'"
        self.gt_category = _index(self.category_ids, truth.category_id, "ground_truth.category_id", "categories", hint)
        self.dt_category = _index(
            self.category_ids, predicted.category_id, "predictions.category_id", "categories", hint
        )
        # Regions.
        self.truth_store = _store(truth, self.gt_image, self.image_ids, sizes, polygon_iou, "ground_truth")
        self.predicted_store = _store(predicted, self.dt_image, self.image_ids, sizes, polygon_iou, "predictions")
        if len(truth) and len(predicted):
            _check_kinds(self.truth_store, self.predicted_store)
        self.truth, self.predicted = truth, predicted

    def flags(self, name: str) -> np.ndarray:
        value = getattr(self.truth, name)
        return np.zeros(len(self.truth), dtype=bool) if value is None else value


# --------------------------------------------------------------------------- public evaluations
def _check_thresholds(values: Any, param: str, default: np.ndarray, *, low_open: bool) -> np.ndarray:
    if values is None:
        thresholds: np.ndarray = default.copy()
        return thresholds
    array = np.atleast_1d(np.asarray(values, dtype=np.float64)) if _numeric(values) else None
    if array is None or array.ndim != 1 or len(array) == 0:
        raise _fail(param, "a non-empty sequence of numbers", values)
    bad = ~((array > 0 if low_open else array >= 0) & (array <= 1))
    if bad.any():
        raise _fail(param, "numbers in " + ("(0, 1]" if low_open else "[0, 1]"), array[bad][0])
    if (np.diff(array) <= 0).any():
        raise _fail(param, "increasing", values)
    return array


def _numeric(values: Any) -> bool:
    try:
        return np.asarray(values).dtype.kind in "iuf"
    except (TypeError, ValueError):
        return False


def _check_max_detections(values: Any) -> tuple[int, ...]:
    try:
        items = list(values)
    except TypeError:
        raise _fail("max_detections", "a sequence of positive integers such as (1, 10, 100)", values) from None
    if not items or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v > 0 for v in items):
        raise _fail("max_detections", "a sequence of positive integers such as (1, 10, 100)", values)
    return tuple(sorted({int(v) for v in items}))  # COCOeval sorts them


def _check_area_ranges(ranges: Any) -> dict[str, tuple[float, float]]:
    if ranges is None:
        return dict(COCO_AREA_RANGES)
    if not isinstance(ranges, Mapping) or not ranges:
        raise _fail("area_ranges", "a mapping {label: (low, high)} such as {'all': (0, 1e10)}", ranges)
    checked = {}
    for label, bounds in ranges.items():
        values = np.asarray(bounds, dtype=np.float64) if _numeric(bounds) else None
        if not isinstance(label, str) or values is None or values.shape != (2,) or not values[0] <= values[1]:
            raise _fail(
                f"area_ranges[{_key(label)}]", "a pair (low, high) with low <= high under a string label", bounds
            )
        checked[label] = (float(values[0]), float(values[1]))
    return checked


# --------------------------------------------------------------------------- mergeable states
def _checked_categories(categories: Any) -> np.ndarray | None:
    if categories is None:
        return None
    if isinstance(categories, (str, bytes)) or not isinstance(categories, Iterable):
        raise _fail("categories", "a sequence of category ids", categories)
    return id_list(list(categories), "categories")


@dataclass(frozen=True)
class _Deferred:
    """Predictions of a category without ground truth in their part (category id and row), checked once all
    parts are in: another part may hold that category's ground truth."""

    category_id: np.ndarray
    row: np.ndarray


def _part_categories(
    listed: np.ndarray | None, truth: Annotations, predicted: Annotations
) -> tuple[np.ndarray | None, _Deferred]:
    """The categories a part is prepared with, and its predictions whose category waits for the other parts."""
    none = _Deferred(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    truth_ids, predicted_ids = truth.category_id, predicted.category_id
    if listed is not None or (
        len(truth_ids) and len(predicted_ids) and (truth_ids.dtype.kind == "U") != (predicted_ids.dtype.kind == "U")
    ):
        return listed, none  # listed categories are checked at once; ids of two types are refused at once
    known = np.unique(truth_ids)
    rows = np.flatnonzero(~np.isin(predicted_ids, known))
    if not len(rows):
        return None, none
    return np.union1d(known, predicted_ids[rows]), _Deferred(predicted_ids[rows], rows)


def _evaluated_categories(listed: np.ndarray | None, parts: Sequence[Any]) -> np.ndarray:
    """The categories of the whole evaluation: those listed, or those with ground truth in any part; a prediction
    of another category is refused as the one-shot evaluation refuses it."""
    if listed is not None:
        return listed
    categories = np.unique(joined_ids([part.truth_categories for part in parts], "category"))
    for i, part in enumerate(parts):
        deferred = part.deferred
        unknown = (
            np.flatnonzero(~np.isin(deferred.category_id, categories))
            if len(categories)
            else np.arange(len(deferred.row))
        )
        if len(unknown):
            where = f"at row {deferred.row[unknown[0]]}" + (f" of part {i}" if len(parts) > 1 else "")
            raise _fail(
                "predictions.category_id",
                "one of the categories of the ground truth; pass categories=[...] "
                "to evaluate categories without ground truth",
                f"{deferred.category_id[unknown[0]].item()!r} {where}",
            )
    return categories


def _summed_by_category(categories: np.ndarray, parts: Sequence[Any], name: str) -> np.ndarray:
    """A per-category count of every part (rows: the part's own categories) summed into the evaluation's categories.

    A part's category without any count is skipped: it may be one only predicted there, which the
    evaluation's categories need not hold.
    """
    total = np.zeros((len(categories), *getattr(parts[0], name).shape[1:]) if parts else (0,), dtype=np.int64)
    for part in parts:
        counts = getattr(part, name)
        present = np.any(counts != 0, axis=tuple(range(1, counts.ndim)))
        np.add.at(total, np.searchsorted(categories, part.categories[present]), counts[present])
    return total


def _recoded(ids: np.ndarray, part_ids: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Codes into a part's sorted `part_ids` turned into codes into the evaluation's sorted `ids`."""
    return np.searchsorted(ids, part_ids)[codes] if len(codes) else codes


@dataclass(frozen=True)
class _CocoPart:
    """What one part leaves for `CocoEvaluation.compute`: no regions, the matched predictions and counts.

    ``dt_image`` and ``dt_category`` are codes into the part's ``images`` and ``categories``, one
    per evaluated prediction in the matcher's order (by category, image and rank).
    """

    images: np.ndarray
    categories: np.ndarray
    truth_categories: np.ndarray
    deferred: _Deferred
    dt_image: np.ndarray
    dt_category: np.ndarray
    rank: np.ndarray
    score: np.ndarray
    matched: np.ndarray
    ignored: np.ndarray
    regular: np.ndarray
    matches: ObjectMatches
    num_predictions: int
    num_truths: int


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

    def __init__(
        self,
        *,
        categories: Sequence[Any] | None = None,
        iou_thresholds: ArrayLike | None = None,
        recall_thresholds: ArrayLike | None = None,
        max_detections: Sequence[int] = COCO_MAX_DETECTIONS,
        area_ranges: Mapping[str, tuple[float, float]] | None = None,
        polygon_iou: PolygonIoU = "exact",
        show_progress: bool | None = None,
    ) -> None:
        if polygon_iou not in POLYGON_IOU:
            raise _fail("polygon_iou", f"one of {POLYGON_IOU}", polygon_iou)
        self._start(
            categories=_checked_categories(categories),
            iou_thresholds=_check_thresholds(iou_thresholds, "iou_thresholds", COCO_IOU_THRESHOLDS, low_open=True),
            recall_thresholds=_check_thresholds(
                recall_thresholds, "recall_thresholds", COCO_RECALL_THRESHOLDS, low_open=False
            ),
            max_detections=_check_max_detections(max_detections),
            area_ranges=_check_area_ranges(area_ranges),
            polygon_iou=polygon_iou,
        )
        self.show_progress = show_progress

    def update(
        self,
        ground_truth: Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        predictions: Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        images: Sequence[Any] | Mapping[Any, tuple[int, int]] | None = None,
    ) -> CocoEvaluation:
        """Match the predictions of one part's images; return ``self``.

        `images` is as in `evaluate_coco`, for this part: by default the images of its ground
        truth; list them to count images of this part without ground truth.
        """
        settings = self._settings
        truth, predicted = as_annotations(ground_truth, "ground_truth"), as_annotations(predictions, "predictions")
        categories, deferred = _part_categories(settings["categories"], truth, predicted)
        prepared = _Prepared(truth, predicted, images, categories, settings["polygon_iou"])
        data = CocoArrays(
            num_images=len(prepared.image_ids),
            num_categories=len(prepared.category_ids),
            gt_image=prepared.gt_image,
            gt_category=prepared.gt_category,
            gt_crowd=prepared.flags("iscrowd"),
            gt_ignore=prepared.flags("ignore"),
            gt_area=prepared.truth_store.area if truth.area is None else truth.area,
            dt_image=prepared.dt_image,
            dt_category=prepared.dt_category,
            dt_score=predicted.score,
            dt_area=prepared.predicted_store.area,
        )
        overlap = _overlap_function(prepared.predicted_store, prepared.truth_store, self.show_progress)
        found = coco_match(
            data,
            overlap,
            iou_thresholds=settings["iou_thresholds"],
            max_detections=settings["max_detections"],
            area_ranges=np.array(list(settings["area_ranges"].values())),
            show_progress=self.show_progress,
        )
        gt_category = prepared.gt_category[found.gt_order]
        regular = np.stack(
            [np.bincount(gt_category[~ignored], minlength=data.num_categories) for ignored in found.gt_ignored], axis=1
        )
        self._parts.append(
            _CocoPart(
                images=prepared.image_ids,
                categories=prepared.category_ids,
                truth_categories=np.unique(truth.category_id),
                deferred=deferred,
                dt_image=prepared.dt_image[found.order],
                dt_category=prepared.dt_category[found.order],
                rank=found.rank,
                score=np.asarray(predicted.score)[found.order],
                matched=found.matched,
                ignored=found.ignored,
                regular=regular,
                matches=found.matches,
                num_predictions=len(predicted),
                num_truths=len(truth),
            )
        )
        return self

    def compute(self) -> CocoResult:
        """COCOeval's ``accumulate`` over every part: the `CocoResult` of all the images."""
        settings, parts = self._settings, self._parts
        images = disjoint_keys([part.images for part in parts], "image")
        categories = _evaluated_categories(settings["categories"], parts)
        n_thresholds, n_areas = len(settings["iou_thresholds"]), len(settings["area_ranges"])
        image_code = np.concatenate(
            [np.zeros(0, np.int64)] + [_recoded(images, part.images, part.dt_image) for part in parts]
        )
        category_code = np.concatenate(
            [np.zeros(0, np.int64)] + [_recoded(categories, part.categories, part.dt_category) for part in parts]
        )
        rank = np.concatenate([np.zeros(0, np.int64)] + [part.rank for part in parts])
        score = np.concatenate([np.zeros(0)] + [part.score for part in parts])
        matched, ignored = (
            np.concatenate(
                [np.zeros((n_thresholds, n_areas, 0), bool)] + [getattr(part, name) for part in parts], axis=2
            )
            for name in ("matched", "ignored")
        )
        regular = _summed_by_category(categories, parts, "regular").reshape(len(categories), n_areas)
        # COCOeval's order: by category, image (sorted ids) and rank, whichever part a prediction came from.
        order = np.lexsort((rank, image_code, category_code))
        precision, recall, scores = coco_accumulate(
            len(categories),
            category_code[order],
            rank[order],
            score[order],
            matched[:, :, order],
            ignored[:, :, order],
            regular,
            settings["recall_thresholds"],
            settings["max_detections"],
        )
        matches = (
            ObjectMatches.concatenate(
                [part.matches for part in parts],
                [part.num_predictions for part in parts],
                [part.num_truths for part in parts],
            )
            if parts
            else None
        )
        return CocoResult(
            precision=precision,
            recall=recall,
            scores=scores,
            iou_thresholds=settings["iou_thresholds"],
            recall_thresholds=settings["recall_thresholds"],
            categories=categories,
            area_ranges=settings["area_ranges"],
            max_detections=settings["max_detections"],
            num_images=len(images),
            matches=matches,
        )


@dataclass(frozen=True)
class _VocPart:
    """What one part leaves for `VocEvaluation.compute`: each prediction's category code, score and outcome."""

    images: np.ndarray
    categories: np.ndarray
    truth_categories: np.ndarray
    deferred: _Deferred
    dt_category: np.ndarray
    score: np.ndarray
    true_positive: np.ndarray
    false_positive: np.ndarray
    positives: np.ndarray
    matches: ObjectMatches
    num_predictions: int
    num_truths: int
    #: Per image of `images`: ground truths (not ignored), predictions, true and false positives.
    image_counts: np.ndarray | None = None


class VocEvaluation(MergeableEvaluation[VocResult]):
    """PASCAL VOC / DOTA detection AP accumulated part by part: `update` per part, `merge`, `compute`.

    Each image belongs to one part. Ties of score across images keep the input order, which is
    the order of the parts: merged in the order the inputs were split, the result is exactly
    `evaluate_voc`'s on all of them. The parameters are those of `evaluate_voc`.

    Examples
    --------
    >>> import geoiou
    >>> evaluation = VocEvaluation(interpolation="11point")
    >>> _ = evaluation.update(Annotations(image_id="a", category_id=["ship"], region=geoiou.Box([[0, 0, 8, 8]])),
    ...                       Annotations(image_id="a", category_id=["ship"], score=[0.9],
    ...                                   region=geoiou.Box([[0, 0, 8, 7]])))
    >>> _ = evaluation.update(Annotations(image_id="b", category_id=["ship"], region=geoiou.Box([[0, 0, 8, 8]])),
    ...                       Annotations(image_id="b", category_id=["ship"], score=[0.8],
    ...                                   region=geoiou.Box([[5, 5, 9, 9]])))
    >>> evaluation.compute().per_category()["ship"]["recall"]
    0.5
    """

    def __init__(
        self,
        *,
        iou_threshold: float = 0.5,
        interpolation: Interpolation = "all",
        categories: Sequence[Any] | None = None,
        show_progress: bool | None = None,
    ) -> None:
        if not (isinstance(iou_threshold, (int, float, np.integer, np.floating)) and 0 <= iou_threshold < 1):
            raise _fail("iou_threshold", "a number in [0, 1)", iou_threshold)
        if interpolation not in INTERPOLATIONS:
            raise _fail("interpolation", f"one of {INTERPOLATIONS}", interpolation)
        self._start(
            iou_threshold=float(iou_threshold), interpolation=interpolation, categories=_checked_categories(categories)
        )
        self.show_progress = show_progress

    def update(
        self,
        ground_truth: Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        predictions: Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        images: Sequence[Any] | Mapping[Any, tuple[int, int]] | None = None,
    ) -> VocEvaluation:
        """Assign the predictions of one part's images; return ``self``. `images` as in `evaluate_voc`."""
        truth, predicted = as_annotations(ground_truth, "ground_truth"), as_annotations(predictions, "predictions")
        categories, deferred = _part_categories(self._settings["categories"], truth, predicted)
        prepared = _Prepared(truth, predicted, images, categories, "exact")
        if truth.iscrowd is not None and truth.iscrowd.any():
            raise _fail(
                "ground_truth.iscrowd",
                "unset or all false for VOC (it has no crowd regions; mark them ignore)",
                f"a crowd region at row {int(np.flatnonzero(truth.iscrowd)[0])}",
            )
        data = VocArrays(
            num_images=len(prepared.image_ids),
            num_categories=len(prepared.category_ids),
            gt_image=prepared.gt_image,
            gt_category=prepared.gt_category,
            gt_ignore=prepared.flags("ignore"),
            dt_image=prepared.dt_image,
            dt_category=prepared.dt_category,
            dt_score=predicted.score,
        )
        overlap = _overlap_function(prepared.predicted_store, prepared.truth_store, self.show_progress)
        true_positive, false_positive, matches = voc_match(data, overlap, iou_threshold=self._settings["iou_threshold"])
        positives = np.bincount(data.gt_category[~data.gt_ignore], minlength=data.num_categories)
        image_counts = (
            np.stack(
                [
                    np.bincount(codes, minlength=data.num_images)
                    for codes in (
                        data.gt_image[~data.gt_ignore],
                        data.dt_image,
                        data.dt_image[true_positive],
                        data.dt_image[false_positive],
                    )
                ],
                axis=1,
            )
            .astype(np.int64)
            .reshape(-1, 4)
        )
        self._parts.append(
            _VocPart(
                images=prepared.image_ids,
                categories=prepared.category_ids,
                truth_categories=np.unique(truth.category_id),
                deferred=deferred,
                dt_category=prepared.dt_category,
                score=np.asarray(predicted.score),
                true_positive=true_positive,
                false_positive=false_positive,
                positives=positives,
                matches=matches,
                num_predictions=len(predicted),
                num_truths=len(truth),
                image_counts=image_counts,
            )
        )
        return self

    def compute(self) -> VocResult:
        """AP per category over every part, predictions ranked across all images: the `VocResult`."""
        settings, parts = self._settings, self._parts
        images = disjoint_keys([part.images for part in parts], "image")
        categories = _evaluated_categories(settings["categories"], parts)
        category_code = np.concatenate(
            [np.zeros(0, np.int64)] + [_recoded(categories, part.categories, part.dt_category) for part in parts]
        )
        positives = _summed_by_category(categories, parts, "positives")
        score, true_positive, false_positive = (
            np.concatenate([np.zeros(0, dtype)] + [getattr(part, name) for part in parts])
            for name, dtype in (("score", float), ("true_positive", bool), ("false_positive", bool))
        )
        ap, detections, precision, recall = voc_curves(
            len(categories), category_code, score, true_positive, false_positive, positives, settings["interpolation"]
        )
        matches = (
            ObjectMatches.concatenate(
                [part.matches for part in parts],
                [part.num_predictions for part in parts],
                [part.num_truths for part in parts],
            )
            if parts
            else None
        )
        # Per image: each part's images with their counts, in the order of the sorted image ids.
        part_images = np.concatenate([np.asarray(part.images) for part in parts]) if parts else np.zeros(0, np.int64)
        counts = np.concatenate(
            [np.zeros((0, 4), np.int64)] + [part.image_counts for part in parts if part.image_counts is not None]
        )
        order = np.argsort(part_images, kind="stable") if len(counts) == len(part_images) else None
        return VocResult(
            categories=categories,
            ap=ap,
            num_ground_truths=positives,
            num_detections=detections,
            precision=tuple(precision),
            recall=tuple(recall),
            iou_threshold=settings["iou_threshold"],
            interpolation=settings["interpolation"],
            num_images=len(images),
            matches=matches,
            image_ids=None if order is None else part_images[order],
            image_counts=None if order is None else counts[order],
        )


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
    polygon_iou : {"exact", "pycocotools"}, default "exact"
        ``"exact"`` compares polygons exactly. ``"pycocotools"`` first rasterizes every polygon (of
        either side) at its image's size as pycocotools does (needs `images` with sizes), to
        reproduce official COCO segmentation numbers; then a polygon's measure is its raster's.
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
    regions matched by intersection over the prediction's area and any number of times. It runs
    for all images, thresholds and area ranges at once, one prediction rank at a time.

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
        show_progress=show_progress,
    )
    return evaluation.update(ground_truth, predictions, images=images).compute()


def evaluate_voc(
    ground_truth: Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
    predictions: Annotations | Mapping[str, Any] | Sequence[Mapping[str, Any]],
    *,
    iou_threshold: float = 0.5,
    interpolation: Interpolation = "all",
    images: Sequence[Any] | Mapping[Any, tuple[int, int]] | None = None,
    categories: Sequence[Any] | None = None,
    show_progress: bool | None = None,
) -> VocResult:
    """PASCAL VOC detection AP per category and mAP for any region kind, as DOTA's devkit computes them.

    Parameters
    ----------
    ground_truth : Annotations, mapping of columns or sequence of per-image records
        The ground-truth objects; ``ignore`` holds VOC's and DOTA's "difficult" flags. No crowd
        regions (VOC has none: mark them ``ignore``); ``area`` is not used.
    predictions : Annotations, mapping of columns or sequence of per-image records
        The predictions, with a ``score`` each.
    iou_threshold : float, default 0.5
        A prediction matches when its best overlap is strictly above it (VOC's ``ovmax > ovthresh``).
    interpolation : {"all", "11point"}, default "all"
        ``"all"``: area under the precision envelope (VOC 2010+). ``"11point"``: VOC 2007's eleven
        recall points, which DOTA's ``dota_evaluation_task1.py`` uses.
    images, categories : optional
        As in `evaluate_coco`.
    show_progress : bool, optional
        Draw a progress bar (by default only when stderr is a terminal).

    Returns
    -------
    VocResult
        ``result.mAP``, ``result.ap`` per category (NaN for a category without ground truth that
        is not difficult, left out of the mAP), ``summary()``, ``per_category()``.

    Notes
    -----
    Each prediction goes to the ground truth it overlaps most, even one an earlier prediction
    took (then it is a false positive): VOC's rule, not COCO's. A prediction matched to a
    difficult ground truth counts neither way, and difficult ground truths are not required. Ties
    of score keep the input order (the devkits' quicksort leaves them unspecified).

    Examples
    --------
    >>> from importlib.resources import files
    >>> import numpy as np, geoiou
    >>> from geoiou.io import read_dota
    >>> objects = read_dota(files("geoiou") / "data" / "dota" / "P0770.txt")
    >>> truth = Annotations(image_id="P0770", category_id=list(objects.classes), region=objects.polygons,
    ...                     ignore=objects.difficult)
    >>> shifted = geoiou.Polygon.from_rings(list(objects.corners + 1.0))  # every object one pixel off
    >>> preds = Annotations(image_id="P0770", category_id=list(objects.classes), region=shifted,
    ...                     score=np.linspace(1, 0.5, len(objects.classes)))
    >>> result = evaluate_voc(truth, preds, interpolation="11point")
    >>> round(result.mAP, 4)
    1.0
    """
    evaluation = VocEvaluation(
        iou_threshold=iou_threshold, interpolation=interpolation, categories=categories, show_progress=show_progress
    )
    return evaluation.update(ground_truth, predictions, images=images).compute()
