"""The annotations of one part of a detection evaluation, checked: ids as codes, images, categories, options.

Both detection protocols (COCO, VOC) start the same way: the ground truth and the predictions of a
part are checked against each other (no score on ground truth, one on every prediction), image
and category ids become codes into the sorted ids that are evaluated, and a prediction on an image
or of a category outside them is an error, not silently dropped. A prediction of a category that
has no ground truth in its part waits for the other parts (`Deferred`), since a part's ground
truth need not hold every category. The options the protocols share are checked here too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from geoiou._distinct import distinct
from geoiou._validation import invalid_argument as _fail
from geoiou.evaluation.mergeable import joined_ids
from geoiou.tables.annotations import Annotations, as_annotations, id_list

__all__ = [
    "Deferred",
    "PreparedPart",
    "checked_area_ranges",
    "checked_categories",
    "checked_max_detections",
    "checked_thresholds",
    "evaluated_categories",
    "part_categories",
    "recoded",
    "summed_by_category",
]


def mapping_key(key: Any) -> str:
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
    elif ids.dtype.kind in "iu" and values.dtype.kind in "iu" and int(ids[-1]) - int(ids[0]) < 4 * len(values):
        # Integer ids of a compact range (COCO's): a table from id to position, one lookup per value.
        table = np.full(int(ids[-1]) - int(ids[0]) + 1, -1, dtype=np.int64)
        table[ids - ids[0]] = np.arange(len(ids))
        offset = values.astype(np.int64) - int(ids[0])
        inside = (offset >= 0) & (offset < len(table))
        position = np.where(inside, table[np.where(inside, offset, 0)], -1)
        known = position >= 0
    else:
        position = np.minimum(np.searchsorted(ids, values), len(ids) - 1)
        known = ids[position] == values
    if not known.all():
        row = int(np.flatnonzero(~known)[0])
        raise _fail(param, f"one of the {what}{hint}", f"{values[row].item()!r} at row {row}")
    return position


def _image_sizes(images: Mapping[Any, Any], ids: np.ndarray) -> np.ndarray:
    """``(height, width)`` of each of the sorted image `ids` (the keys of `images`)."""
    keys, values = list(images.keys()), list(images.values())
    sizes = _size_rows(values)
    if sizes is None:  # some value is not a pair of positive integers: find it
        for key, size in zip(keys, values):
            if _size_rows([size]) is None:
                raise _fail(
                    f"images[{mapping_key(key)}]",
                    "the image size (height, width) in pixels, two positive integers",
                    size,
                )
    assert sizes is not None
    placed = np.zeros((len(ids), 2), dtype=np.int64)
    placed[np.searchsorted(ids, np.asarray(keys, dtype=ids.dtype))] = sizes
    return placed


def _size_rows(values: list[Any]) -> np.ndarray | None:
    """The sizes as an ``(n, 2)`` int64 array, or None unless every one is two positive integers."""
    try:
        sizes = np.asarray(values)
    except ValueError:  # ragged
        return None
    if sizes.shape != (len(values), 2) or sizes.dtype.kind not in "iu" or (sizes < 1).any():
        return None
    return sizes.astype(np.int64)


class PreparedPart:
    """Both sides of one part checked against each other, ids resolved to codes.

    Attributes
    ----------
    truth, predicted : Annotations
    image_ids, category_ids : ndarray
        The evaluated ids, sorted: the images of the ground truth (or those listed), the
        categories of the ground truth (or those listed).
    sizes : ndarray of int64, shape (images, 2), or None
        ``(height, width)`` of each evaluated image, when the images were given with sizes.
    gt_image, gt_category, dt_image, dt_category : ndarray of int64
        Codes into `image_ids` and `category_ids`, one per row.
    """

    def __init__(
        self, ground_truth: Any, predictions: Any, images: Any, categories: np.ndarray | None, *, needs_sizes: bool
    ) -> None:
        truth = as_annotations(ground_truth, "ground_truth")
        predicted = as_annotations(predictions, "predictions")
        _check_sides(truth, predicted)
        self.image_ids, self.sizes, hint = _evaluated_images(truth, images, needs_sizes)
        self.gt_image = _index(self.image_ids, truth.image_id, "ground_truth.image_id", "evaluated images", hint)
        self.dt_image = _index(self.image_ids, predicted.image_id, "predictions.image_id", "evaluated images", hint)
        if categories is None:
            self.category_ids = distinct(truth.category_id)
            hint = " of the ground truth; pass categories=[...] to evaluate categories without ground truth"
        else:
            self.category_ids, hint = categories, " listed in 'categories'"
        self.gt_category = _index(self.category_ids, truth.category_id, "ground_truth.category_id", "categories", hint)
        self.dt_category = _index(
            self.category_ids, predicted.category_id, "predictions.category_id", "categories", hint
        )
        self.truth, self.predicted = truth, predicted

    def flags(self, name: str) -> np.ndarray:
        """A boolean column of the ground truth (``iscrowd``, ``ignore``), all false when it is not given."""
        value = getattr(self.truth, name)
        return np.zeros(len(self.truth), dtype=bool) if value is None else value


def _check_sides(truth: Annotations, predicted: Annotations) -> None:
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


def _evaluated_images(truth: Annotations, images: Any, needs_sizes: bool) -> tuple[np.ndarray, np.ndarray | None, str]:
    """The sorted ids of the evaluated images, their sizes if given, and the hint of an unknown-image message."""
    sizes = None
    if images is None:
        image_ids = distinct(truth.image_id)
        hint = " of the ground truth; pass images=[...] to evaluate images without ground truth"
    elif isinstance(images, Mapping):
        image_ids = id_list(images.keys(), "images")
        sizes = _image_sizes(images, image_ids)
        hint = " listed in 'images'"
    elif isinstance(images, (str, bytes)) or not isinstance(images, Iterable):
        raise _fail("images", "a sequence of image ids or a mapping {image_id: (height, width)}", images)
    else:
        image_ids = id_list(list(images), "images")
        hint = " listed in 'images'"
    if needs_sizes and sizes is None:
        raise _fail(
            "images",
            "a mapping {image_id: (height, width)} with polygon_iou='pycocotools' (polygons "
            "are rasterized at the image size)",
            images,
        )
    return image_ids, sizes, hint


# --------------------------------------------------------------------------- options
def checked_thresholds(values: Any, param: str, default: np.ndarray, *, low_open: bool) -> np.ndarray:
    """An increasing, non-empty array of thresholds in ``(0, 1]`` (`low_open`) or ``[0, 1]``; `default` if None."""
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


def checked_max_detections(values: Any) -> tuple[int, ...]:
    """Positive detection limits, sorted and without repeats (COCOeval sorts them)."""
    try:
        items = list(values)
    except TypeError:
        raise _fail("max_detections", "a sequence of positive integers such as (1, 10, 100)", values) from None
    if not items or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v > 0 for v in items):
        raise _fail("max_detections", "a sequence of positive integers such as (1, 10, 100)", values)
    return tuple(sorted({int(v) for v in items}))


def checked_area_ranges(ranges: Any, default: Mapping[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """``{label: (low, high)}`` with ``low <= high``; `default` if None."""
    if ranges is None:
        return dict(default)
    if not isinstance(ranges, Mapping) or not ranges:
        raise _fail("area_ranges", "a mapping {label: (low, high)} such as {'all': (0, 1e10)}", ranges)
    checked = {}
    for label, bounds in ranges.items():
        values = np.asarray(bounds, dtype=np.float64) if _numeric(bounds) else None
        if not isinstance(label, str) or values is None or values.shape != (2,) or not values[0] <= values[1]:
            raise _fail(
                f"area_ranges[{mapping_key(label)}]", "a pair (low, high) with low <= high under a string label", bounds
            )
        checked[label] = (float(values[0]), float(values[1]))
    return checked


def checked_categories(categories: Any) -> np.ndarray | None:
    """The listed category ids, sorted (None: the ground truth's)."""
    if categories is None:
        return None
    if isinstance(categories, (str, bytes)) or not isinstance(categories, Iterable):
        raise _fail("categories", "a sequence of category ids", categories)
    return id_list(list(categories), "categories")


# --------------------------------------------------------------------------- categories across parts
@dataclass(frozen=True)
class Deferred:
    """Predictions of a category without ground truth in their part (category id and row), checked once all
    parts are in: another part may hold that category's ground truth."""

    category_id: np.ndarray
    row: np.ndarray


def part_categories(
    listed: np.ndarray | None, truth: Annotations, predicted: Annotations
) -> tuple[np.ndarray | None, Deferred]:
    """The categories a part is prepared with, and its predictions whose category waits for the other parts."""
    none = Deferred(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    truth_ids, predicted_ids = truth.category_id, predicted.category_id
    if listed is not None or (
        len(truth_ids) and len(predicted_ids) and (truth_ids.dtype.kind == "U") != (predicted_ids.dtype.kind == "U")
    ):
        return listed, none  # listed categories are checked at once; ids of two types are refused at once
    known = distinct(truth_ids)
    rows = np.flatnonzero(~np.isin(predicted_ids, known))
    if not len(rows):
        return None, none
    return np.union1d(known, predicted_ids[rows]), Deferred(predicted_ids[rows], rows)


def evaluated_categories(listed: np.ndarray | None, parts: Sequence[Any]) -> np.ndarray:
    """The categories of the whole evaluation: those listed, or those with ground truth in any part; a prediction
    of another category is refused as the one-shot evaluation refuses it."""
    if listed is not None:
        return listed
    categories = distinct(joined_ids([part.truth_categories for part in parts], "category"))
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


def summed_by_category(categories: np.ndarray, parts: Sequence[Any], name: str) -> np.ndarray:
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


def recoded(ids: np.ndarray, part_ids: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Codes into a part's sorted `part_ids` turned into codes into the evaluation's sorted `ids` (`codes` themselves
    when the part has the evaluation's ids: one part)."""
    if not len(codes) or (len(ids) == len(part_ids) and bool((ids == part_ids).all())):
        return codes
    recoded_codes: np.ndarray = np.searchsorted(ids, part_ids)[codes]
    return recoded_codes
