"""The per-object table every diagnostic reads: predictions, ground truths, outcomes and overlaps of all parts.

`detection_table` joins what the parts of a `DiagnosticsEvaluation` kept into one `DetectionTable`:
the evaluated predictions (by input row, the rows of all parts one after another, as the
evaluation's per-object matches number them) with their image, category, score, rank and outcome
per threshold and area range; the ground truths with their image, category and whether they count
(per area range); and each prediction's overlaps with every ground truth of its image. Image and
category codes are into the evaluation's own ids, so a diagnostic re-accumulates the evaluation's
numbers exactly (`geoiou.diagnostics.accumulate`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np

from geoiou._placing import placed
from geoiou._ranges import ragged_arange
from geoiou.diagnostics.widening import WidePairs
from geoiou.evaluation.coco import CocoArrays
from geoiou.evaluation.matches import IGNORED, TRUE_POSITIVE, ObjectMatches
from geoiou.evaluation.mergeable import disjoint_keys, part_starts
from geoiou.evaluation.prepared import recoded

__all__ = ["FALSE_POSITIVE", "IGNORED", "TRUE_POSITIVE", "DetectionTable", "RecordedPart", "detection_table"]

#: A prediction's outcome at one threshold and area range (the protocols' codes).
FALSE_POSITIVE = 0


@dataclass(frozen=True)
class RecordedPart:
    """What a `DiagnosticsEvaluation` keeps of one part beside the evaluation's own part: codes and overlaps.

    Codes are into the part's `image_ids` and `category_ids`, rows are the part's.
    """

    image_ids: np.ndarray
    category_ids: np.ndarray
    dt_image: np.ndarray
    dt_category: np.ndarray
    dt_score: np.ndarray
    gt_image: np.ndarray
    gt_category: np.ndarray
    gt_crowd: np.ndarray
    gt_ignore: np.ndarray
    gt_area: np.ndarray
    pairs: WidePairs

    @classmethod
    def of(cls, data: CocoArrays, image_ids: np.ndarray, category_ids: np.ndarray, pairs: WidePairs) -> RecordedPart:
        """The record of a part from what the evaluation's pair hook was given, and the pairs it measured."""
        return cls(
            np.asarray(image_ids),
            np.asarray(category_ids),
            np.asarray(data.dt_image, np.int64),
            np.asarray(data.dt_category, np.int64),
            np.asarray(data.dt_score, np.float64),
            np.asarray(data.gt_image, np.int64),
            np.asarray(data.gt_category, np.int64),
            np.asarray(data.gt_crowd, bool),
            np.asarray(data.gt_ignore, bool),
            np.asarray(data.gt_area, np.float64),
            pairs,
        )


@dataclass(frozen=True, eq=False)
class DetectionTable:
    """Every evaluated prediction and every ground truth of an evaluation, with their outcomes and overlaps.

    Predictions are indexed by ``d`` (the evaluated ones, in order of their input row ``dt_row``);
    ground truths by their input row ``g``. ``T`` thresholds, ``A`` area ranges (one for VOC and
    temporal detection), ``K`` categories, ``I`` images (videos).

    Attributes
    ----------
    protocol : {"coco", "voc", "temporal"}
    thresholds : ndarray, shape (T,)
    image_ids, category_ids : ndarray, shape (I,), (K,)
    num_predictions : int
        Rows of the predictions (evaluated or not).
    background_threshold : float
        The lowest overlap kept in the pairs.
    dt_row, dt_image, dt_category, dt_rank : ndarray of int64, shape (D,)
        ``dt_rank``: the place within the image and category by decreasing score (COCO's detection
        limits); 0 for the other protocols.
    dt_score : ndarray of float64, shape (D,)
    outcome : ndarray of uint8, shape (D, T, A)
        `TRUE_POSITIVE`, `FALSE_POSITIVE` or `IGNORED`.
    gt_image, gt_category : ndarray of int64, shape (G,)
    gt_regular : ndarray of bool, shape (G, A)
        Ground truths that count (not crowd, ignored or difficult, and inside the area range).
    gt_crowd : ndarray of bool, shape (G,)
    found_by : ndarray of int64, shape (T, G)
        The prediction ``d`` that found each ground truth in the first area range, -1 for none.
    matched : ndarray of int64, shape (T, D)
        The ground truth each prediction matched in the first area range, -1 for none.
    pair_start : ndarray of int64, shape (D + 1,)
        Prediction ``d`` overlaps the ground truths ``pair_gt[pair_start[d]:pair_start[d + 1]]``
        of its image (every category) by ``pair_value`` (IoU; IoF against a crowd region), each at
        least `background_threshold`.
    """

    protocol: str
    thresholds: np.ndarray
    image_ids: np.ndarray
    category_ids: np.ndarray
    num_predictions: int
    background_threshold: float
    dt_row: np.ndarray
    dt_image: np.ndarray
    dt_category: np.ndarray
    dt_rank: np.ndarray
    dt_score: np.ndarray
    outcome: np.ndarray
    gt_image: np.ndarray
    gt_category: np.ndarray
    gt_regular: np.ndarray
    gt_crowd: np.ndarray
    found_by: np.ndarray
    matched: np.ndarray
    pair_start: np.ndarray
    pair_gt: np.ndarray
    pair_value: np.ndarray

    @property
    def pair_owner(self) -> np.ndarray:
        """The prediction ``d`` of each pair."""
        return np.repeat(np.arange(len(self.dt_row), dtype=np.int64), np.diff(self.pair_start))

    def renumbered(self, prediction_row: np.ndarray, truth_row: np.ndarray) -> DetectionTable:
        """The same table with the input rows renumbered: prediction row ``i`` becomes ``prediction_row[i]``,
        ground-truth row ``j`` becomes ``truth_row[j]`` (permutations: parts evaluated in another order than their
        inputs'); the predictions in the order of their new rows, as a table of the inputs in that order has them.

        Examples
        --------
        >>> import geoiou
        >>> from geoiou.diagnostics import diagnose
        >>> from geoiou.evaluation import Annotations
        >>> truth = Annotations(image_id=[1, 2], category_id=1, region=geoiou.Box([[0, 0, 4, 4]] * 2))
        >>> preds = Annotations(image_id=[1, 2], category_id=1, score=[0.9, 0.8], region=geoiou.Box([[0, 0, 4, 4]] * 2))
        >>> table = diagnose(truth, preds).table.renumbered(np.array([1, 0]), np.array([1, 0]))
        >>> table.dt_row.tolist(), table.dt_image.tolist(), table.pair_gt.tolist()  # row 0 is now image 2's
        ([0, 1], [1, 0], [0, 1])
        """
        rows = prediction_row[self.dt_row]
        order = np.argsort(rows, kind="stable")
        d_of = np.empty(len(order), dtype=np.int64)
        d_of[order] = np.arange(len(order))  # the new place of prediction d
        counts = np.diff(self.pair_start)
        pairs, _ = ragged_arange(
            self.pair_start[order], self.pair_start[order + 1]
        )  # each one's pairs, in the new order
        pair_start = np.zeros(len(order) + 1, dtype=np.int64)
        np.cumsum(counts[order], out=pair_start[1:])

        return replace(
            self,
            dt_row=rows[order],
            dt_image=self.dt_image[order],
            dt_category=self.dt_category[order],
            dt_rank=self.dt_rank[order],
            dt_score=self.dt_score[order],
            outcome=self.outcome[order],
            gt_image=placed(self.gt_image, truth_row),
            gt_category=placed(self.gt_category, truth_row),
            gt_regular=placed(self.gt_regular.T, truth_row).T,
            gt_crowd=placed(self.gt_crowd, truth_row),
            found_by=placed(np.where(self.found_by >= 0, d_of[np.maximum(self.found_by, 0)], -1), truth_row),
            matched=np.where(self.matched >= 0, truth_row[np.maximum(self.matched, 0)], -1)[:, order],
            pair_start=pair_start,
            pair_gt=truth_row[self.pair_gt[pairs]],
            pair_value=self.pair_value[pairs],
        )

    def threshold_index(self, threshold: float, param: str) -> int:
        """The index of one of the evaluation's thresholds (within 1e-9: 0.9 finds 0.8999999999999999)."""
        found = np.flatnonzero(np.isclose(self.thresholds, threshold, rtol=0, atol=1e-9))
        if not found.size:
            from geoiou._validation import invalid_argument

            raise invalid_argument(param, f"one of the evaluation's thresholds {self.thresholds.tolist()}", threshold)
        return int(found[0])


# --------------------------------------------------------------------------- building it
def detection_table(
    protocol: str, settings: Any, result: Any, parts: Sequence[tuple[Any, RecordedPart]], floor: float
) -> DetectionTable:
    """Join the parts of a `DiagnosticsEvaluation` (each the evaluation's part and its `RecordedPart`) into a table.

    `settings` and `result` are the evaluation's; rows are numbered as its per-object matches
    number them (the parts' rows one after another).

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.diagnostics import DiagnosticsEvaluation
    >>> from geoiou.evaluation import Annotations
    >>> state = DiagnosticsEvaluation().update(
    ...     Annotations(image_id=1, category_id=[1, 2], region=geoiou.Box([[0, 0, 4, 4], [0, 0, 4, 2]])),
    ...     Annotations(image_id=1, category_id=[1], score=[0.9], region=geoiou.Box([[0, 0, 4, 4]])))
    >>> table = state.compute().table  # compute calls detection_table
    >>> table.pair_gt.tolist(), table.pair_value.tolist()  # its overlaps with both objects, of either category
    ([0, 1], [1.0, 0.5])
    """
    records = [record for _, record in parts]
    image_ids, image_codes = _global_images(protocol, parts)
    category_ids = result.labels if protocol == "temporal" else result.categories
    category_ids = np.array(category_ids, dtype=object) if protocol == "temporal" else np.asarray(category_ids)
    category_codes = [_categories_of(category_ids, record.category_ids, protocol) for record in records]
    dt_start = part_starts([len(record.dt_image) for record in records])
    gt_start = part_starts([len(record.gt_image) for record in records])
    thresholds = np.asarray(result.tiou_thresholds if protocol == "temporal" else _thresholds(protocol, settings))
    evaluated = [_evaluated(protocol, part, record, len(thresholds)) for part, record in parts]

    def joined(pieces: list[np.ndarray], dtype: Any, shape: tuple[int, ...] = ()) -> np.ndarray:
        return np.concatenate([np.zeros((0, *shape), dtype)] + pieces)

    dt_row = joined([start + rows for start, (rows, _, _) in zip(dt_start, evaluated)], np.int64)
    order = np.argsort(dt_row, kind="stable")
    d_of_row = np.full(int(sum(len(record.dt_image) for record in records)), -1, dtype=np.int64)
    d_of_row[dt_row[order]] = np.arange(len(order))

    def by_d(pieces: list[np.ndarray], dtype: Any, shape: tuple[int, ...] = ()) -> np.ndarray:
        return joined(pieces, dtype, shape)[order]

    rows = [rows for rows, _, _ in evaluated]
    gt_regular = joined([_regular(protocol, settings, record) for record in records], bool, (_areas(settings),))
    pair_dt = joined([start + record.pairs.dt for start, record in zip(dt_start, records)], np.int64)
    pair_d = d_of_row[pair_dt]
    kept = pair_d >= 0  # the pairs of evaluated predictions (COCO's limit drops the others)
    pair_start = np.zeros(len(order) + 1, dtype=np.int64)
    np.cumsum(np.bincount(pair_d[kept], minlength=len(order)), out=pair_start[1:])
    matches: ObjectMatches = result.matches
    found_by = np.where(matches.truth_match >= 0, d_of_row[np.maximum(matches.truth_match, 0)], -1)
    matched = matches.prediction_match[:, dt_row[order]] if len(order) else np.zeros((len(thresholds), 0), np.int64)
    return DetectionTable(
        protocol=protocol,
        thresholds=thresholds,
        image_ids=image_ids,
        category_ids=category_ids,
        num_predictions=len(d_of_row),
        background_threshold=floor,
        dt_row=dt_row[order],
        dt_image=by_d([codes[record.dt_image[r]] for codes, record, r in zip(image_codes, records, rows)], np.int64),
        dt_category=by_d(
            [codes[record.dt_category[r]] for codes, record, r in zip(category_codes, records, rows)], np.int64
        ),
        dt_rank=by_d([rank for _, rank, _ in evaluated], np.int64),
        dt_score=by_d([record.dt_score[r] for record, r in zip(records, rows)], np.float64),
        outcome=by_d([outcome for _, _, outcome in evaluated], np.uint8, (len(thresholds), _areas(settings))),
        gt_image=joined([codes[record.gt_image] for codes, record in zip(image_codes, records)], np.int64),
        gt_category=joined([codes[record.gt_category] for codes, record in zip(category_codes, records)], np.int64),
        gt_regular=gt_regular,
        gt_crowd=joined([record.gt_crowd for record in records], bool),
        found_by=found_by,
        matched=matched,
        pair_start=pair_start,
        pair_gt=joined([start + record.pairs.gt for start, record in zip(gt_start, records)], np.int64)[kept],
        pair_value=joined([record.pairs.value for record in records], np.float64)[kept],
    )


def _thresholds(protocol: str, settings: Any) -> np.ndarray:
    if protocol == "voc":
        return np.array([settings.iou_threshold])
    thresholds: np.ndarray = settings.iou_thresholds
    return thresholds


def _areas(settings: Any) -> int:
    """Area ranges of the outcomes: COCO's, one for the other protocols."""
    return len(getattr(settings, "area_ranges", {"all": None}))


def _global_images(protocol: str, parts: Sequence[tuple[Any, RecordedPart]]) -> tuple[np.ndarray, list[np.ndarray]]:
    """The evaluation's images (videos) and, per part, the global code of each of its images."""
    if protocol == "temporal":  # videos in the order of the parts (each video in one part)
        starts = part_starts([len(record.image_ids) for _, record in parts])
        videos = np.array([video for _, record in parts for video in record.image_ids.tolist()], dtype=object)
        return videos, [start + np.arange(len(record.image_ids)) for start, (_, record) in zip(starts, parts)]
    images = disjoint_keys([record.image_ids for _, record in parts], "image")
    return images, [np.searchsorted(images, record.image_ids) for _, record in parts]


def _categories_of(category_ids: np.ndarray, part_ids: np.ndarray, protocol: str) -> np.ndarray:
    """The global code of each of a part's categories (labels: by value, as labels of mixed types do not sort)."""
    if protocol == "temporal":
        code = {label: k for k, label in enumerate(category_ids.tolist())}
        return np.array([code.get(label, -1) for label in part_ids.tolist()], dtype=np.int64)
    return recoded(category_ids, part_ids, np.arange(len(part_ids)))


def _evaluated(protocol: str, part: Any, record: RecordedPart, n_thresholds: int) -> tuple[np.ndarray, ...]:
    """A part's evaluated prediction rows, their ranks and their outcomes ``(D, T, A)``."""
    if protocol == "coco":  # the matcher's order: the rows the pair source was called with
        return record.pairs.evaluated, part.rank, part.outcome
    n = len(record.dt_image)
    if protocol == "voc":
        outcome = np.where(part.true_positive, TRUE_POSITIVE, np.where(part.false_positive, FALSE_POSITIVE, IGNORED))
        return np.arange(n), np.zeros(n, np.int64), outcome.astype(np.uint8).reshape(n, 1, 1)
    outcome = np.where(part.true_positive.T, TRUE_POSITIVE, FALSE_POSITIVE).astype(np.uint8)
    return np.arange(n), np.zeros(n, np.int64), outcome.reshape(n, n_thresholds, 1)


def _regular(protocol: str, settings: Any, record: RecordedPart) -> np.ndarray:
    """Per ground truth and area range, whether it counts: as COCO's matcher decides it, VOC's (not difficult), or
    always (temporal detection)."""
    ignored = record.gt_crowd | record.gt_ignore
    if protocol != "coco":
        counted: np.ndarray = ~ignored[:, None]
        return counted
    bounds = np.array(list(settings.area_ranges.values()), dtype=np.float64).reshape(-1, 2)
    area = record.gt_area[:, None]
    regular: np.ndarray = ~(ignored[:, None] | (area < bounds[:, 0]) | (area > bounds[:, 1]))
    return regular
