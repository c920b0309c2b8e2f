"""Federated labels (LVIS): what each image's annotation says of the categories it holds no ground truth of.

LVIS (Gupta, Dollár and Girshick, 2019) annotates each image for some of its 1,203 categories
only. Beside its ground truth, an image lists the categories verified absent from it
(``neg_category_ids``) and those present but not exhaustively annotated
(``not_exhaustive_category_ids``); each category has a ``frequency`` (``"r"``, ``"c"``, ``"f"``: in
1-10, 11-100 or more training images). `FederatedLabels` holds them, and `CocoEvaluation` given
them (``update(..., federated=labels)``) applies lvis-api's rules to COCO's matching:

- a prediction counts in an image only for a category the image holds or lists as negative;
  the others are dropped, since nothing is known of them there;
- an unmatched prediction of a category its image does not annotate exhaustively is ignored;
- objects (ground truths and predictions) of area 0 are not evaluated (lvis-api selects areas
  in the open range ``(0, inf)``);
- at most `max_per_image` predictions per image (300), the highest scores, as ``LVISResults``
  keeps them; there is no further limit per image and category.

With ``max_detections=(300,)``, such a state's arrays equal lvis-api's ``LVISEval`` bit for bit,
part by part: a set too large for lvis-api's whole-file objects streams through the mergeable
states. `FederatedLabels.frequency_stats` gives ``APr``, ``APc`` and ``APf``.

Examples
--------
>>> import geoiou
>>> from geoiou.evaluation import Annotations, CocoEvaluation
>>> labels = FederatedLabels.from_images(
...     [{"id": 1, "neg_category_ids": [2], "not_exhaustive_category_ids": [3]}],
...     [{"id": 1, "frequency": "f"}, {"id": 2, "frequency": "r"}, {"id": 3, "frequency": "c"}])
>>> truth = Annotations(image_id=[1, 1], category_id=[1, 3], region=geoiou.Box([[0, 0, 10, 10], [20, 0, 30, 10]]))
>>> preds = Annotations(image_id=[1] * 4, category_id=[1, 2, 3, 4], score=[0.9, 0.8, 0.7, 0.6],
...                     region=geoiou.Box([[0, 0, 10, 10], [40, 0, 50, 10], [60, 0, 70, 10], [0, 0, 10, 10]]))
>>> evaluation = CocoEvaluation(categories=[1, 2, 3, 4], max_detections=(300,))
>>> result = evaluation.update(truth, preds, federated=labels).compute()
>>> round(result.per_category()[1]["AP"], 4), result.per_category()[3]["AP"]  # 3's miss ignored, its truth not found
(1.0, 0.0)
>>> {group: round(ap, 4) for group, ap in labels.frequency_stats(result).items()}  # category 2 (rare): no truth
{'APr': -1.0, 'APc': 0.0, 'APf': 1.0}
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.tables import Annotations

if TYPE_CHECKING:
    from geoiou.evaluation.results import CocoResult

__all__ = ["FREQUENCIES", "FederatedLabels", "top_per_image"]

#: LVIS's frequency groups, in lvis-api's order: rare, common, frequent.
FREQUENCIES = ("r", "c", "f")


@dataclass(frozen=True)
class FederatedLabels:
    """The federated labels of a dataset: per image its negative and not exhaustively annotated categories.

    Attributes
    ----------
    negative, not_exhaustive : tuple of two ndarrays
        ``(image ids, category ids)``: one entry per category an image lists under
        ``neg_category_ids`` (respectively ``not_exhaustive_category_ids``).
    frequency : dict
        Category id -> ``"r"``, ``"c"`` or ``"f"``, for the categories that have one.
    max_per_image : int
        At most this many predictions per image are evaluated (the highest scores); -1 for all.

    Examples
    --------
    >>> labels = FederatedLabels.from_images([{"id": 7, "neg_category_ids": [1, 2], "not_exhaustive_category_ids": []}])
    >>> labels.negative, labels.max_per_image
    ((array([7, 7]), array([1, 2])), 300)
    """

    negative: tuple[np.ndarray, np.ndarray]
    not_exhaustive: tuple[np.ndarray, np.ndarray]
    frequency: dict[Any, str]
    max_per_image: int = 300

    @classmethod
    def from_images(
        cls,
        images: Iterable[Mapping[str, Any]],
        categories: Iterable[Mapping[str, Any]] = (),
        *,
        max_per_image: int = 300,
    ) -> FederatedLabels:
        """The labels of LVIS's ``images`` records (``id``, ``neg_category_ids``, ``not_exhaustive_category_ids``)
        and, for `frequency_stats`, its ``categories`` records (``id``, ``frequency``).

        Examples
        --------
        >>> FederatedLabels.from_images([{"id": 1, "neg_category_ids": "2"}])
        Traceback (most recent call last):
        ...
        geoiou.errors.InvalidArgumentError: 'images[0]["neg_category_ids"]' must be a list of category ids (got '2')
        """
        if isinstance(max_per_image, bool) or not isinstance(max_per_image, (int, np.integer)) or max_per_image < -1:
            raise invalid_argument("max_per_image", "a count of predictions, or -1 for no limit", max_per_image)
        records = list(images)
        return cls(
            negative=_listed(records, "neg_category_ids"),
            not_exhaustive=_listed(records, "not_exhaustive_category_ids"),
            frequency=_frequencies(categories),
            max_per_image=int(max_per_image),
        )

    @classmethod
    def read(cls, source: str | os.PathLike[str] | Mapping[str, Any], *, max_per_image: int = 300) -> FederatedLabels:
        """The labels of an LVIS dataset: its JSON file, or the file's content.

        Examples
        --------
        >>> dataset = {"images": [{"id": 1, "neg_category_ids": [], "not_exhaustive_category_ids": [4]}],
        ...            "categories": [{"id": 4, "frequency": "c"}], "annotations": []}
        >>> FederatedLabels.read(dataset).frequency
        {4: 'c'}
        """
        if isinstance(source, Mapping):
            document: Any = source
        else:
            with open(source, "rb") as file:
                document = json.load(file)
        if not isinstance(document, Mapping) or not isinstance(document.get("images"), list):
            raise invalid_argument("source", "an LVIS dataset (an object with an 'images' list)", source)
        return cls.from_images(document["images"], document.get("categories", ()), max_per_image=max_per_image)

    def evaluated(
        self, truth: Annotations, predicted: Annotations
    ) -> tuple[Annotations, Annotations, np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """What lvis-api evaluates of one part: the ground truths and predictions of non-zero area, the
        predictions of categories their image holds or lists as negative (the `max_per_image` best of
        each image), per prediction kept whether its category is not exhaustively annotated there, and
        the input rows of the ground truths and predictions kept.
        """
        truth_rows = np.flatnonzero(_counted_area(truth))
        # The rows kept, in their own order: the matching sorts each image's by score (ties in row order) again.
        rows = np.sort(top_per_image(predicted.image_id, np.asarray(predicted.score), self.max_per_image))
        rows = rows[_counted_area(predicted.take(rows))]
        truth, predicted = truth.take(truth_rows), predicted.take(rows)
        counted, not_exhaustive = self.rules(
            truth.image_id, truth.category_id, predicted.image_id, predicted.category_id
        )
        return truth, predicted.take(counted), not_exhaustive, (truth_rows, rows[counted])

    def rules(
        self, truth_image: np.ndarray, truth_category: np.ndarray, image: np.ndarray, category: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """lvis-api's two rules on id columns: the predictions (rows of `image` and `category`) that count, those
        of a category their image holds (a ground truth of `truth_image` and `truth_category`) or lists as
        negative; and for each of them whether its category is not exhaustively annotated there.

        Examples
        --------
        >>> image = {"id": 1, "neg_category_ids": [2], "not_exhaustive_category_ids": [3]}
        >>> labels = FederatedLabels.from_images([image])
        >>> truth_image, truth_category = np.array([1]), np.array([3])  # image 1 holds category 3
        >>> image_id, category_id = np.array([1, 1, 1]), np.array([2, 3, 4])  # three predictions in image 1
        >>> counted, not_exhaustive = labels.rules(truth_image, truth_category, image_id, category_id)
        >>> counted.tolist(), not_exhaustive.tolist()  # category 4 is unknown in image 1
        ([0, 1], [False, True])
        """
        known = _PairCodes(np.concatenate([truth_image, image]), np.concatenate([truth_category, category]))
        of_predictions = known.codes(image, category)
        present = np.concatenate([known.codes(truth_image, truth_category), known.codes(*self.negative)])
        counted = np.flatnonzero(np.isin(of_predictions, present))
        return counted, np.isin(of_predictions[counted], known.codes(*self.not_exhaustive))

    def frequency_stats(self, result: CocoResult) -> dict[str, float]:
        """``APr``, ``APc``, ``APf``: the AP over the categories of each frequency (-1 where none has ground truth).

        As lvis-api's summary, a category without a frequency counts in no group.
        """
        return {
            f"AP{group}": result.stats_of([c for c in result.categories.tolist() if self.frequency.get(c) == group])[
                "AP"
            ]
            for group in FREQUENCIES
        }


def top_per_image(image_id: np.ndarray, score: np.ndarray, limit: int) -> np.ndarray:
    """The rows ``LVISResults`` keeps: images in order of first appearance, an image of more than `limit` rows
    sorted by decreasing score (a stable sort) and cut to `limit`, the others as given; -1: no limit.

    Examples
    --------
    >>> top_per_image(np.array([5, 3, 5, 5]), np.array([0.1, 0.5, 0.9, 0.3]), 2)  # image 5 first: its best two
    array([2, 3, 1])
    """
    if limit < 0 or len(image_id) == 0:
        return np.arange(len(image_id))
    _, first, code = np.unique(image_id, return_index=True, return_inverse=True)
    appearance = np.argsort(np.argsort(first))[code]  # images numbered by first appearance
    crowded = np.bincount(code)[code] > limit
    key = np.where(crowded, -score, 0.0)
    order = np.lexsort((np.arange(len(image_id)), key, appearance))
    starts = np.searchsorted(appearance[order], appearance[order])
    kept: np.ndarray = order[np.arange(len(order)) - starts < limit]
    return kept


def _counted_area(table: Annotations) -> np.ndarray:
    """lvis-api's selection of objects: area in the open range (0, inf) (the file's ``area`` where given)."""
    if table.area is not None:
        area = np.asarray(table.area, dtype=np.float64)
    else:
        area = np.concatenate([np.zeros(0)] + [np.asarray(piece.area, dtype=np.float64) for piece in table.regions])
    counted: np.ndarray = (area > 0) & (area < np.inf)
    return counted


class _PairCodes:
    """One integer per (image, category) pair of ids, over the ids given."""

    def __init__(self, image_ids: np.ndarray, category_ids: np.ndarray) -> None:
        self.images, self.categories = np.unique(image_ids), np.unique(category_ids)

    def codes(self, image_id: Any, category_id: Any) -> np.ndarray:
        """The pairs' codes; -1 for a pair whose image or category is not in the part."""
        image = _position(self.images, np.asarray(image_id))
        category = _position(self.categories, np.asarray(category_id))
        code: np.ndarray = np.where((image >= 0) & (category >= 0), image * len(self.categories) + category, -1)
        return code


def _position(ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Position of each value in the sorted `ids`, -1 where it is not there (or of another kind of id)."""
    if len(ids) == 0 or len(values) == 0 or (ids.dtype.kind == "U") != (values.dtype.kind == "U"):
        return np.full(len(values), -1, dtype=np.int64)
    position = np.minimum(np.searchsorted(ids, values), len(ids) - 1)
    return np.where(ids[position] == values, position, -1)


def _listed(images: Sequence[Mapping[str, Any]], key: str) -> tuple[np.ndarray, np.ndarray]:
    """``(image ids, category ids)`` of the categories each image lists under `key`."""
    image_ids, lists = [], []
    for k, image in enumerate(images):
        if not isinstance(image, Mapping) or "id" not in image:
            raise invalid_argument(f"images[{k}]", "an image record with an 'id'", image)
        ids = image.get(key)
        if not isinstance(ids, (list, tuple)):
            raise invalid_argument(f'images[{k}]["{key}"]', "a list of category ids", ids)
        image_ids.append(image["id"])
        lists.append(ids)
    counts = [len(ids) for ids in lists]
    flat = [category for ids in lists for category in ids]
    return np.repeat(np.asarray(image_ids), counts), np.asarray(flat) if flat else np.zeros(0, np.int64)


def _frequencies(categories: Iterable[Mapping[str, Any]]) -> dict[Any, str]:
    frequency = {}
    for k, category in enumerate(categories):
        group = category.get("frequency") if isinstance(category, Mapping) else None
        if group is None:
            continue
        if group not in FREQUENCIES:
            raise invalid_argument(f'categories[{k}]["frequency"]', f"one of {FREQUENCIES}", group)
        frequency[category["id"]] = group
    return frequency
