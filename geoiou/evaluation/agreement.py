"""Agreement of two annotation sets: matched regions, precision, recall, F1 and IoU, per class and per image.

Two annotators on the same images, a dataset before and after a conversion (polygons to rotated
boxes, masks to polygons), a model's building footprints against a surveyed layer: the regions
of the two sets ``a`` and ``b`` are matched one-to-one within each image and category by
`geoiou.match` (greedy by IoU, or the matching of largest summed IoU), and the report counts:

- ``matched``: pairs with IoU at least ``min_iou``; ``only_a``, ``only_b``: regions left
  unmatched on each side;
- ``precision = matched / |b|``, ``recall = matched / |a|`` (``a`` is the reference), and
  ``F1 = 2 · matched / (|a| + |b|)``, their harmonic mean: the share of all regions that found
  a partner;
- the mean and quantiles of the IoU of the matched pairs;

overall, per category and per image. The sides may hold different kinds of region (polygons
against rotated boxes, masks against polygons); every IoU is exact.

This is the SpaceNet building-footprint metric: F1 at IoU >= 0.5, per image (SpaceNet's
``evalTools.score``) or over a whole set. SpaceNet takes the proposals in file order, each
claiming the remaining footprint it overlaps most; the pairs can differ from greedy-by-IoU, but
the count cannot when the footprints of ``a`` do not overlap one another: at IoU >= 0.5 a
proposal then reaches at most one footprint (two disjoint regions cannot both cover more than
half of it, and at exactly one half only by splitting it in two), so every footprint reached by
some proposal is matched whichever order is used.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from geoiou._placing import placed
from geoiou._validation import invalid_argument, zero_division_value
from geoiou.evaluation.results import plain as _plain
from geoiou.evaluation.mergeable import MergeableEvaluation, part_starts, refuse_shared
from geoiou.matching import METHODS, Matching, Method, joint_keys, match
from geoiou.regions import Interval, Region
from geoiou.tables.annotations import Annotations, as_annotations
from geoiou.tables.segments import TemporalSegments

__all__ = ["AgreementEvaluation", "AgreementResult", "evaluate_agreement"]

#: Quantiles of the matched IoU reported by default.
DEFAULT_QUANTILES = (0.25, 0.5, 0.75)


@dataclass(frozen=True)
class _Side:
    """One annotation set as columns: the image and category of each row, and the regions in row order."""

    image_id: np.ndarray
    category_id: np.ndarray
    regions: list[Region]
    images: tuple[Any, ...] = ()

    @classmethod
    def of(cls, value: Any, param: str) -> _Side:
        if isinstance(value, TemporalSegments):
            return cls(value.video_id, value.label, [Interval(np.c_[value.start, value.end])], tuple(value.videos))
        annotations = as_annotations(value, param)
        return cls(annotations.image_id, annotations.category_id, list(annotations.regions))

    def __len__(self) -> int:
        return len(self.image_id)


def evaluate_agreement(
    a: Annotations | TemporalSegments | Mapping[str, Any] | Sequence[Mapping[str, Any]],
    b: Annotations | TemporalSegments | Mapping[str, Any] | Sequence[Mapping[str, Any]],
    *,
    min_iou: float = 0.5,
    method: Method = "greedy",
    ignore_category: bool = False,
    images: Iterable[Any] | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
    zero_division: float = math.nan,
) -> AgreementResult:
    """Compare two annotation sets: how many regions match one-to-one, per category and per image.

    Parameters
    ----------
    a, b : Annotations, TemporalSegments, mapping of columns or sequence of per-image records
        The two sets; `a` is the reference of recall (``matched / |a|``) and `b` of precision
        (``matched / |b|``). Regions of any kinds that `geoiou.iou` compares; scores, crowd and
        ignore flags are not used: every row is a region to match. `TemporalSegments` give
        their videos as images and their labels as categories.
    min_iou : float, default 0.5
        A pair matches with an IoU at least this (SpaceNet's building F1 uses 0.5).
    method : {"greedy", "optimal"}, default "greedy"
        As in `geoiou.match`: greedy by decreasing IoU, or the largest summed IoU.
    ignore_category : bool, default False
        Match regions of different categories too (images still apart). Per category, the
        counts of each side are then by that side's category (``matched`` counts the regions of
        `a`), and `AgreementResult.category_pairs` says which categories were matched together.
    images : iterable of ids, optional
        Images to report besides those that appear in `a` or `b` (images without any region get
        a row of zeros). `TemporalSegments` add their own videos.
    quantiles : sequence of float, default (0.25, 0.5, 0.75)
        Quantiles of the matched IoU to report (linear interpolation, as `numpy.quantile`).
    zero_division : float, default NaN
        Value of precision, recall or F1 when their denominator is 0 (no region on that side).

    Returns
    -------
    AgreementResult
        ``overall()``, ``per_category()``, ``per_image()``, ``summary()``, ``to_dict()`` and the
        matched pairs (``matching``: row indices into each set, with their IoU).

    Raises
    ------
    InvalidArgumentError
        For bad options, ids of different types on the two sides, or intervals against 2-D regions.
    UnsupportedPairError
        If some kind of `a` cannot be compared with some kind of `b`.

    Examples
    --------
    Two annotators, one image: a rotated box and a polygon drawn around the same building, a
    box only the first drew and one only the second drew.

    >>> import geoiou
    >>> from geoiou.evaluation import Annotations, evaluate_agreement
    >>> first = Annotations(image_id=["tile"] * 2, category_id=["building"] * 2,
    ...                     region=[geoiou.RotatedBox([[10, 10, 8, 4, 0]]), geoiou.Box([[30, 30, 34, 34]])])
    >>> second = Annotations(image_id=["tile"] * 2, category_id=["building"] * 2,
    ...                      region=[geoiou.Polygon([(6, 8), (14, 8), (14, 11), (6, 11)]).reshape(1),
    ...                              geoiou.Box([[60, 60, 64, 64]])])
    >>> result = evaluate_agreement(first, second)
    >>> result.overall()["matched"], result.overall()["f1"], result.matching.iou
    (1, 0.5, array([0.75]))

    The polygon covers 8 × 3 of the box's 8 × 4: IoU 0.75. One pair of four regions: F1 = 2 / 4.
    """
    evaluation = AgreementEvaluation(
        min_iou=min_iou,
        method=method,
        ignore_category=ignore_category,
        quantiles=quantiles,
        zero_division=zero_division,
    )
    return evaluation.update(a, b, images=images).compute()


@dataclass(frozen=True)
class _MatchedPart:
    """One part's matching (rows of the part) and the ids of its rows: what `AgreementEvaluation.compute` joins."""

    matching: Matching
    image_a: np.ndarray
    image_b: np.ndarray
    category_a: np.ndarray
    category_b: np.ndarray
    images: np.ndarray


@dataclass(frozen=True)
class AgreementSettings:
    """The checked settings of an `AgreementEvaluation` (what `merge` compares)."""

    min_iou: float
    method: Method
    ignore_category: bool
    quantiles: tuple[float, ...]
    zero_division: float


class AgreementEvaluation(MergeableEvaluation["AgreementResult"]):
    """The agreement of two annotation sets accumulated part by part (images split across parts).

    Regions are matched within an image, so the parts' matchings joined (rows shifted by the
    part sizes) are exactly the matching of all the images at once: ``compute`` gives what
    `evaluate_agreement` gives on the joined sets. The parameters are those of `evaluate_agreement`.

    Examples
    --------
    >>> import geoiou
    >>> evaluation = AgreementEvaluation()
    >>> for tile in ("t1", "t2"):
    ...     a = {"image_id": [tile], "category_id": [1], "region": geoiou.Box([[0, 0, 4, 4]])}
    ...     b = {"image_id": [tile], "category_id": [1], "region": geoiou.Box([[0, 0, 4, 3 if tile == "t1" else 1]])}
    ...     _ = evaluation.update(a, b)
    >>> result = evaluation.compute()
    >>> result.overall()["matched"], result.matching.index_a, result.matching.index_b
    (1, array([0]), array([0]))
    """

    settings: AgreementSettings

    def __init__(
        self,
        *,
        min_iou: float = 0.5,
        method: Method = "greedy",
        ignore_category: bool = False,
        quantiles: Sequence[float] = DEFAULT_QUANTILES,
        zero_division: float = math.nan,
    ) -> None:
        if not isinstance(ignore_category, (bool, np.bool_)):
            raise invalid_argument("ignore_category", "True or False", ignore_category)
        if method not in METHODS:
            raise invalid_argument("method", f"one of {METHODS}", method)
        self._start(
            AgreementSettings(
                min_iou=min_iou,
                method=method,
                ignore_category=bool(ignore_category),
                quantiles=_quantiles(quantiles),
                zero_division=zero_division_value(zero_division),
            )
        )

    def update(
        self,
        a: Annotations | TemporalSegments | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        b: Annotations | TemporalSegments | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        images: Iterable[Any] | None = None,
    ) -> AgreementEvaluation:
        """Match the regions of one part's images; return ``self``. `images` as in `evaluate_agreement`."""
        settings = self.settings
        side_a, side_b = _Side.of(a, "a"), _Side.of(b, "b")
        extra = [*side_a.images, *side_b.images, *([] if images is None else _listed(images))]
        image_ids, image_a, image_b = _ids(side_a.image_id, side_b.image_id, ("a.image_id", "b.image_id"), extra)
        _, category_a, category_b = _ids(side_a.category_id, side_b.category_id, ("a.category_id", "b.category_id"), [])
        groups_a, groups_b = (
            (image_a,) if settings.ignore_category else (image_a, category_a),
            (image_b,) if settings.ignore_category else (image_b, category_b),
        )
        matching = match(
            side_a.regions,
            side_b.regions,
            min_iou=settings.min_iou,
            method=settings.method,
            group_a=groups_a,
            group_b=groups_b,
        )
        self._parts.append(
            _MatchedPart(matching, side_a.image_id, side_b.image_id, side_a.category_id, side_b.category_id, image_ids)
        )
        return self

    def compute(self) -> AgreementResult:
        """The report over every part: counts, ratios and IoU statistics overall, per category and per image."""
        settings, parts = self.settings, self._parts
        refuse_shared((image for part in parts for image in part.images.tolist()), "image")
        columns = {
            name: _joined([getattr(part, name) for part in parts])
            for name in ("image_a", "image_b", "category_a", "category_b", "images")
        }
        image_ids, image_a, image_b = _ids(
            columns["image_a"], columns["image_b"], ("a.image_id", "b.image_id"), columns["images"].tolist()
        )
        category_ids, category_a, category_b = _ids(
            columns["category_a"], columns["category_b"], ("a.category_id", "b.category_id"), []
        )
        return AgreementResult(
            matching=_joined_matching([part.matching for part in parts], settings),
            image_ids=image_ids,
            category_ids=category_ids,
            image_a=image_a,
            image_b=image_b,
            category_a=category_a,
            category_b=category_b,
            ignore_category=settings.ignore_category,
            quantiles=settings.quantiles,
            zero_division=settings.zero_division,
        )


def _joined(columns: list[np.ndarray]) -> np.ndarray:
    """Id columns of several parts in one (an object column where the parts' types differ, for `_ids` to refuse)."""
    present = [column for column in columns if len(column)]
    if len({column.dtype.kind for column in present}) > 1:
        return np.concatenate([column.astype(object) for column in present])
    return np.concatenate(present) if present else np.zeros(0, dtype=np.int64)


def _joined_matching(matchings: list[Matching], settings: AgreementSettings) -> Matching:
    """The matchings of several parts as one over their rows joined in order."""
    start_a = part_starts([len(m.unmatched_a) + len(m) for m in matchings])
    start_b = part_starts([len(m.unmatched_b) + len(m) for m in matchings])

    def join(name: str, starts: np.ndarray, dtype: type = np.int64) -> np.ndarray:
        shifted = [getattr(m, name) + (start if dtype is np.int64 else 0) for m, start in zip(matchings, starts)]
        return np.concatenate([np.zeros(0, dtype)] + shifted)

    return Matching(
        join("index_a", start_a),
        join("index_b", start_b),
        join("iou", start_a, np.float64),
        join("unmatched_a", start_a),
        join("unmatched_b", start_b),
        float(settings.min_iou),
        settings.method,
    )


def _listed(images: Any) -> list[Any]:
    if isinstance(images, (str, bytes)) or not isinstance(images, Iterable):
        raise invalid_argument("images", "an iterable of image ids", images)
    return list(images)


def _ids(
    column_a: np.ndarray, column_b: np.ndarray, names: tuple[str, str], extra: list[Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct ids of both sides (and `extra`), sorted, and each row's position among them."""
    ids, index_a, index_b = joint_keys(column_a, column_b, len(column_a), len(column_b), names=names)
    if extra:
        ids, moved, _ = joint_keys(ids, np.array(extra, dtype=object), len(ids), len(extra), names=(names[0], "images"))
        index_a, index_b = moved[index_a], moved[index_b]
    return ids, index_a, index_b


def _quantiles(values: Any) -> tuple[float, ...]:
    try:
        checked = tuple(float(q) for q in values)
    except (TypeError, ValueError):
        raise invalid_argument("quantiles", "a sequence of numbers in [0, 1]", values) from None
    if not all(0 <= q <= 1 for q in checked):
        raise invalid_argument("quantiles", "a sequence of numbers in [0, 1]", values)
    return checked


# --------------------------------------------------------------------------- the result
def _quantile_name(q: float) -> str:
    return f"iou_q{100 * q:g}"


@dataclass(frozen=True, eq=False)
class AgreementResult:
    """The result of `evaluate_agreement`: the matching and its counts overall, per category and per image.

    Attributes
    ----------
    matching : Matching
        The matched pairs as row indices into `a` and `b` (counting every row of each set in
        order), with their IoU, and the unmatched rows of each side.
    image_ids, category_ids : ndarray
        The images and categories of either set, sorted: the order of `per_image` and `per_category`.
    image_a, image_b, category_a, category_b : ndarray of int
        Each row's position in `image_ids` and `category_ids`.
    ignore_category : bool
    quantiles : tuple of float
    zero_division : float

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.evaluation import evaluate_agreement
    >>> boxes = geoiou.Box([[0, 0, 4, 4], [9, 9, 12, 12], [0, 0, 2, 2]])
    >>> a = {"image_id": [1, 1, 2], "category_id": [5, 5, 5], "region": boxes}
    >>> b = {"image_id": [1, 2], "category_id": [5, 5], "region": geoiou.Box([[0, 0, 4, 3], [0, 0, 2, 2]])}
    >>> result = evaluate_agreement(a, b)
    >>> print(result.summary())
    agreement at IoU >= 0.5 (greedy matching within image and category): 3 regions in A, 2 in B
    category      A      B  matched  only A  only B  precision  recall     F1  mean IoU  median IoU
    5             3      2        2       1       0      1.000   0.667  0.800     0.875       0.875
    all           3      2        2       1       0      1.000   0.667  0.800     0.875       0.875
    images with the lowest F1: 1 (0.667), 2 (1.000)
    >>> result.per_image()[1]["only_a"]
    1
    """

    matching: Matching
    image_ids: np.ndarray
    category_ids: np.ndarray
    image_a: np.ndarray
    image_b: np.ndarray
    category_a: np.ndarray
    category_b: np.ndarray
    ignore_category: bool
    quantiles: tuple[float, ...]
    zero_division: float

    def renumbered(self, row_a: np.ndarray, row_b: np.ndarray) -> AgreementResult:
        """The same result with the rows renumbered: row i of `a` becomes ``row_a[i]``, row j of `b` ``row_b[j]``
        (permutations: parts evaluated in another order than their inputs'); the pairs sorted by their row of `a`.

        Examples
        --------
        >>> import geoiou
        >>> from geoiou.evaluation import evaluate_agreement
        >>> a = {"image_id": [1, 2], "category_id": [5, 5], "region": geoiou.Box([[0, 0, 4, 4], [0, 0, 2, 2]])}
        >>> result = evaluate_agreement(a, a).renumbered(np.array([1, 0]), np.array([1, 0]))
        >>> result.matching.index_a.tolist(), result.image_a.tolist()  # row 0 is now image 2's
        ([0, 1], [1, 0])
        """
        matching = self.matching
        index_a, index_b = row_a[matching.index_a], row_b[matching.index_b]
        order = np.argsort(index_a, kind="stable")
        pairs = dataclasses.replace(
            matching,
            index_a=index_a[order],
            index_b=index_b[order],
            iou=matching.iou[order],
            unmatched_a=np.sort(row_a[matching.unmatched_a]),
            unmatched_b=np.sort(row_b[matching.unmatched_b]),
        )
        return dataclasses.replace(
            self,
            matching=pairs,
            image_a=placed(self.image_a, row_a),
            image_b=placed(self.image_b, row_b),
            category_a=placed(self.category_a, row_a),
            category_b=placed(self.category_b, row_b),
        )

    # ----------------------------------------------------------------- tables
    def _table(self, key_a: np.ndarray, key_b: np.ndarray, size: int) -> dict[str, np.ndarray]:
        """The counts and ratios of every group (keys: each row's group), as columns."""
        pairs = self.matching
        count_a, count_b = np.bincount(key_a, minlength=size), np.bincount(key_b, minlength=size)
        matched_a = np.bincount(key_a[pairs.index_a], minlength=size)
        matched_b = np.bincount(key_b[pairs.index_b], minlength=size)
        columns: dict[str, np.ndarray] = {
            "a": count_a,
            "b": count_b,
            "matched": matched_a,
            "only_a": count_a - matched_a,
            "only_b": count_b - matched_b,
            "precision": _ratio(matched_b, count_b, self.zero_division),
            "recall": _ratio(matched_a, count_a, self.zero_division),
            "f1": _ratio(matched_a + matched_b, count_a + count_b, self.zero_division),
        }
        columns.update(_iou_statistics(key_a[pairs.index_a], pairs.iou, size, self.quantiles))
        return columns

    def _overall_table(self) -> dict[str, np.ndarray]:
        return self._table(np.zeros(len(self.image_a), dtype=np.int64), np.zeros(len(self.image_b), dtype=np.int64), 1)

    def overall(self) -> dict[str, Any]:
        """Counts and ratios over every image and category: ``{"a", "b", "matched", "only_a", "only_b",
        "precision", "recall", "f1", "iou_mean", "iou_q25", ...}``."""
        return _row(self._overall_table(), 0)

    def per_category(self) -> dict[Any, dict[str, Any]]:
        """``{category_id: {...}}`` with the keys of `overall`, in the order of `category_ids`."""
        table = self._table(self.category_a, self.category_b, len(self.category_ids))
        return {_plain(category): _row(table, k) for k, category in enumerate(self.category_ids)}

    def per_image(self) -> dict[Any, dict[str, Any]]:
        """``{image_id: {...}}`` with the keys of `overall`, in the order of `image_ids`."""
        table = self._table(self.image_a, self.image_b, len(self.image_ids))
        return {_plain(image): _row(table, k) for k, image in enumerate(self.image_ids)}

    def worst_images(self, count: int | None = None) -> list[Any]:
        """Image ids by increasing F1 (ties: more unmatched regions first, then by id); images without regions last."""
        table = self._table(self.image_a, self.image_b, len(self.image_ids))
        empty = (table["a"] + table["b"]) == 0
        f1 = np.where(empty, np.inf, table["f1"])
        order = np.lexsort((np.arange(len(f1)), -(table["only_a"] + table["only_b"]), f1))
        order = order[~empty[order]]
        return [_plain(self.image_ids[k]) for k in order[:count]]

    def image_matching(self, image: Any) -> tuple[np.ndarray, np.ndarray, Matching]:
        """The rows of one image in `a` and in `b`, and their matching in indices into those rows.

        What `geoiou.plot.plot_matching` draws for one image: ``plot_matching(regions_a[rows_a],
        regions_b[rows_b], matching)``.

        Examples
        --------
        >>> import geoiou
        >>> from geoiou.evaluation import evaluate_agreement
        >>> a = {"image_id": ["p", "q", "q"], "category_id": 1, "region": geoiou.Box([[0, 0, 2, 2]] * 3)}
        >>> b = {"image_id": ["q"], "category_id": 1, "region": geoiou.Box([[0, 0, 2, 2]])}
        >>> rows_a, rows_b, matching = evaluate_agreement(a, b).image_matching("q")
        >>> rows_a, rows_b, matching.index_a, matching.unmatched_a
        (array([1, 2]), array([0]), array([0]), array([1]))
        """
        known = np.flatnonzero(self.image_ids.astype(object) == image)
        if len(known) == 0:
            raise invalid_argument("image", "one of the result's image_ids", image)
        rows_a, rows_b = np.flatnonzero(self.image_a == known[0]), np.flatnonzero(self.image_b == known[0])
        pairs = self.matching
        here = self.image_a[pairs.index_a] == known[0]
        local = Matching(
            np.searchsorted(rows_a, pairs.index_a[here]),
            np.searchsorted(rows_b, pairs.index_b[here]),
            pairs.iou[here],
            np.searchsorted(rows_a, np.intersect1d(pairs.unmatched_a, rows_a)),
            np.searchsorted(rows_b, np.intersect1d(pairs.unmatched_b, rows_b)),
            pairs.min_iou,
            pairs.method,
        )
        return rows_a, rows_b, local

    def category_pairs(self) -> dict[tuple[Any, Any], int]:
        """``{(category in a, category in b): matched pairs}``: which categories were matched together.

        Off the diagonal only with ``ignore_category=True``, where it is the confusion of the two sets' labels.
        """
        pairs = self.matching
        codes = self.category_a[pairs.index_a] * len(self.category_ids) + self.category_b[pairs.index_b]
        distinct, counts = np.unique(codes, return_counts=True)
        size = len(self.category_ids)
        return {
            (_plain(self.category_ids[code // size]), _plain(self.category_ids[code % size])): int(count)
            for code, count in zip(distinct, counts)
        }

    # ----------------------------------------------------------------- output
    def pairs_table(self) -> dict[str, np.ndarray]:
        """One row per matched pair, then per unmatched region of `a`, then of `b`, as columns.

        Columns ``image_id``, ``category_a``, ``category_b``, ``row_a``, ``row_b``, ``iou``; an
        unmatched region has row -1, category None and IoU NaN on the side it lacks.
        """
        pairs = self.matching
        only_a, only_b = pairs.unmatched_a, pairs.unmatched_b
        none_a, none_b = np.full(len(only_b), -1), np.full(len(only_a), -1)
        row_a = np.r_[pairs.index_a, only_a, none_a].astype(np.int64)
        row_b = np.r_[pairs.index_b, none_b, only_b].astype(np.int64)
        image = np.r_[self.image_a[pairs.index_a], self.image_a[only_a], self.image_b[only_b]]
        return {
            "image_id": self.image_ids.astype(object)[image],
            "category_a": _with_none(self.category_ids, self.category_a, row_a),
            "category_b": _with_none(self.category_ids, self.category_b, row_b),
            "row_a": row_a,
            "row_b": row_b,
            "iou": np.r_[pairs.iou, np.full(len(only_a) + len(only_b), np.nan)],
        }

    def summary(self, *, worst: int = 5, category_names: Mapping[Any, str] | None = None) -> str:
        """A table per category and overall (mean and median IoU; `to_dict` has all quantiles); the `worst` images.

        `category_names` maps category ids to the names shown (COCO files name their categories).
        """
        names = {
            "a": "A",
            "b": "B",
            "matched": "matched",
            "only_a": "only A",
            "only_b": "only B",
            "precision": "precision",
            "recall": "recall",
            "f1": "F1",
            "iou_mean": "mean IoU",
            _quantile_name(0.5): "median IoU",
        }
        names_of = category_names or {}
        rows = [(str(names_of.get(category, category)), values) for category, values in self.per_category().items()]
        rows.append(("all", self.overall()))
        width = max(len("category"), *(len(label) for label, _ in rows))
        columns = [key for key in names if key in rows[-1][1]]
        widths = {key: max(len(names[key]), 5) for key in columns}
        grouping = "within images" if self.ignore_category else "within image and category"
        lines = [
            f"agreement at IoU >= {self.matching.min_iou:g} ({self.matching.method} matching {grouping}): "
            f"{len(self.image_a)} regions in A, {len(self.image_b)} in B",
            f"{'category':<{width}}  " + "  ".join(f"{names[key]:>{widths[key]}}" for key in columns),
        ]
        for label, values in rows:
            lines.append(f"{label:<{width}}  " + "  ".join(f"{_cell(values[key]):>{widths[key]}}" for key in columns))
        per_image = self.per_image()
        listed = [f"{image} ({_cell(per_image[image]['f1'])})" for image in self.worst_images(worst)]
        if listed:
            lines.append("images with the lowest F1: " + ", ".join(listed))
        return "\n".join(lines)

    def to_dict(self, *, pairs: bool = False) -> dict[str, Any]:
        """A JSON-ready dict (NaN written as None); `pairs` adds one entry per matched pair and unmatched region."""
        result: dict[str, Any] = {
            "protocol": "agreement",
            "headline": _json_row(self.overall()),
            "min_iou": self.matching.min_iou,
            "method": self.matching.method,
            "ignore_category": self.ignore_category,
            "overall": _json_row(self.overall()),
            "per_category": [
                {"category_id": category, **_json_row(values)} for category, values in self.per_category().items()
            ],
            "per_image": [{"image_id": image, **_json_row(values)} for image, values in self.per_image().items()],
        }
        if self.ignore_category:
            result["category_pairs"] = [
                {"category_a": a, "category_b": b, "matched": count} for (a, b), count in self.category_pairs().items()
            ]
        if pairs:
            table = self.pairs_table()
            result["pairs"] = [
                _json_row(dict(zip(table, values))) for values in zip(*(column.tolist() for column in table.values()))
            ]
        return result

    def to_json(self, *, pairs: bool = False, indent: int | None = None) -> str:
        """`to_dict` as a JSON string."""
        return json.dumps(self.to_dict(pairs=pairs), indent=indent)

    def __repr__(self) -> str:
        overall = self.overall()
        return (
            f"<AgreementResult F1={_cell(overall['f1'])}: {overall['matched']} matched, {overall['only_a']} only "
            f"in A, {overall['only_b']} only in B; summary() for the table>"
        )


# --------------------------------------------------------------------------- arithmetic
def _ratio(numerator: np.ndarray, denominator: np.ndarray, zero_division: float) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.maximum(denominator, 1), zero_division)


def _iou_statistics(
    group: np.ndarray, values: np.ndarray, size: int, quantiles: tuple[float, ...]
) -> dict[str, np.ndarray]:
    """Mean and quantiles of `values` per group (NaN for a group without values), all groups at once.

    Quantiles interpolate linearly between the sorted values of a group, as `numpy.quantile`.
    """
    counts = np.bincount(group, minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        statistics = {
            "iou_mean": np.where(
                counts > 0, np.bincount(group, weights=values, minlength=size) / np.maximum(counts, 1), np.nan
            )
        }
    order = np.lexsort((values, group))
    ordered = values[order]
    starts = np.cumsum(counts) - counts
    present = counts > 0
    for q in quantiles:
        position = q * (counts[present] - 1)
        low = np.floor(position).astype(np.int64)
        high = np.minimum(low + 1, counts[present] - 1)
        below, above = ordered[starts[present] + low], ordered[starts[present] + high]
        result = np.full(size, np.nan)
        result[present] = below + (above - below) * (position - low)
        statistics[_quantile_name(q)] = result
    return statistics


def _row(table: dict[str, np.ndarray], k: int) -> dict[str, Any]:
    return {key: (int(column[k]) if column.dtype.kind in "iu" else float(column[k])) for key, column in table.items()}


def _json_row(values: dict[str, Any]) -> dict[str, Any]:
    return {
        key: (None if isinstance(value, float) and math.isnan(value) else _plain(value))
        for key, value in values.items()
    }


def _with_none(ids: np.ndarray, index: np.ndarray, rows: np.ndarray) -> np.ndarray:
    result = np.full(len(rows), None, dtype=object)
    present = rows >= 0
    result[present] = ids.astype(object)[index[rows[present]]]
    return result


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.3f}"
    return str(value)
