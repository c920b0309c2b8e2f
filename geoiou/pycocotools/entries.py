"""Per-image results as COCOeval's ``accumulate`` reads them, and accumulation on geoiou's `coco_accumulate`.

COCOeval's ``evalImgs`` is a flat list over (category, area range, image), image fastest, each
entry the detections of one image and category (by score, at most ``maxDets[-1]``) with their
matched and ignored flags for one area range, and how many ground truths count there. `Entries`
is that list seen through flat per-detection arrays: an entry is a span of them and an area range
(a column of the outcome codes). A matching's entries are its groups' spans, found when read
(`MatchedEntries`: nothing is copied); a list of dicts set by a user (torchvision merges
``evalImgs`` across processes) becomes one too (`DictEntries`).

`accumulate_entries` gives precision, recall and scores for outputs that each read a list of
entries, which is how COCOeval's ``accumulate`` reads them, also when its parameters differ from
the evaluated ones: then it reads entries by the same index arithmetic, quirks included. When
every entry of a matching is read in order (the usual case), `coco_accumulate` takes the
matcher's arrays as they are, as `CocoEvaluation.compute` does.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

from geoiou._ranges import ragged_arange
from geoiou.evaluation.coco import coco_accumulate, decided_codes
from geoiou.pycocotools.evaluated import Evaluated

__all__ = ["DictEntries", "Entries", "MatchedEntries", "accumulate_entries"]

Curves = tuple[np.ndarray, np.ndarray, np.ndarray]


class EntrySpans(NamedTuple):
    """Entries as read: whether each is present (not None), its detections' flat positions ``[starts, stops)``,
    its ground truths that count, and the column of the outcome codes it reads (its area range)."""

    present: np.ndarray
    starts: np.ndarray
    stops: np.ndarray
    positives: np.ndarray
    area: np.ndarray


class Entries:
    """COCOeval's per-image results over flat per-detection arrays: ``score``, ``rank`` (place within the entry),
    ``outcome`` ``[P, T, A]`` codes and ``decided`` ``[P, A]`` (anything but a false positive at some threshold);
    `count` entries, `spans` of any of them."""

    count: int
    score: np.ndarray
    rank: np.ndarray
    outcome: np.ndarray
    decided: np.ndarray

    def spans(self, entries: np.ndarray) -> EntrySpans:
        """The spans of the entries at the positions `entries` (each below `count`)."""
        raise NotImplementedError

    def accumulated(self, recall_thresholds: np.ndarray, max_detections: tuple[int, ...]) -> Curves | None:
        """The curves of every entry read in order (one output per category and area range), when the entries know
        them directly; None otherwise."""
        return None


class MatchedEntries(Entries):
    """The entries of a matching: entry ``(k, a, i)`` (index ``(k * A + a) * I + i``) is group ``(k, i)``'s span
    of results and the outcome codes of area range ``a``.

    Examples
    --------
    >>> from geoiou.evaluation.overlaps import every_pair
    >>> from geoiou.pycocotools.evaluated import GroupRows, match_groups
    >>> one = np.zeros(1, np.int64)
    >>> truth = GroupRows(one, one, one, np.array([3]), np.array([50.0]))
    >>> found = GroupRows(one, one, one, np.array([1]), np.array([50.0]), score=np.array([0.5]))
    >>> evaluated = match_groups(truth, found, every_pair(lambda dt, gt, crowd: np.full(len(dt), 0.8)), n_categories=1,
    ...                          n_images=1, iou_thresholds=np.array([0.5]), area_ranges=np.array([[0.0, 1e10]]),
    ...                          max_detections=100)
    >>> MatchedEntries(evaluated).spans(np.array([0]))
    EntrySpans(present=array([ True]), starts=array([0]), stops=array([1]), positives=array([1]), area=array([0]))
    """

    def __init__(self, evaluated: Evaluated) -> None:
        self.evaluated = evaluated
        self.n_areas = evaluated.gt_ignored.shape[1]
        self.count = evaluated.n_groups * self.n_areas
        self.score, self.rank, self.outcome = evaluated.dt_score, evaluated.rank, evaluated.outcome
        self.decided = evaluated.decided

    def spans(self, entries: np.ndarray) -> EntrySpans:
        evaluated = self.evaluated
        n_images = evaluated.n_images
        k, a, i = entries // (self.n_areas * n_images), entries // n_images % self.n_areas, entries % n_images
        groups = k * n_images + i
        starts, stops = evaluated.dt_spans(groups)
        gt_first, gt_stop = evaluated.gt_spans(groups)
        counted = np.zeros((len(evaluated.gt_group) + 1, self.n_areas), dtype=np.int64)
        np.cumsum(~evaluated.gt_ignored, axis=0, out=counted[1:])
        present = (stops > starts) | (gt_stop > gt_first)
        return EntrySpans(present, starts, stops, counted[gt_stop, a] - counted[gt_first, a], a)

    def accumulated(self, recall_thresholds: np.ndarray, max_detections: tuple[int, ...]) -> Curves:
        evaluated = self.evaluated
        n_images = max(evaluated.n_images, 1)
        return coco_accumulate(
            evaluated.n_categories,
            evaluated.dt_group // n_images,
            evaluated.dt_group % n_images,
            evaluated.rank,
            evaluated.dt_score,
            evaluated.outcome,
            evaluated.decided,
            evaluated.regular(),
            recall_thresholds,
            max_detections,
        )


class DictEntries(Entries):
    """Entries of ``evalImgs`` dicts (None entries included); `keys` name the scores, matches, ignore flags and
    ground-truth ignore flags.

    Examples
    --------
    >>> one = {"dtScores": [0.9, 0.4], "dtMatches": np.array([[5.0, 0.0]]), "dtIgnore": np.array([[False, False]]),
    ...        "gtIgnore": np.array([0])}
    >>> entries = DictEntries([one, None], ("dtScores", "dtMatches", "dtIgnore", "gtIgnore"), 1)
    >>> entries.spans(np.array([0, 1])).present, entries.outcome[:, :, 0].tolist()  # a true, then a false positive
    (array([ True, False]), [[1], [0]])
    """

    def __init__(self, entries: Sequence[Any], keys: tuple[str, str, str, str], n_thresholds: int) -> None:
        from geoiou.evaluation.protocol_loops import FALSE_POSITIVE, IGNORED, TRUE_POSITIVE  # numba: on first use

        score_key, match_key, ignore_key, gt_key = keys
        present = np.array([entry is not None for entry in entries], dtype=bool)
        kept = [entry for entry in entries if entry is not None]
        lengths = np.zeros(len(entries), dtype=np.int64)
        lengths[present] = [len(entry[score_key]) for entry in kept]
        stops = np.cumsum(lengths)
        positives = np.zeros(len(entries), dtype=np.int64)
        positives[present] = [np.count_nonzero(np.asarray(entry[gt_key]) == 0) for entry in kept]
        empty = np.zeros((0, n_thresholds))

        def joined(key: str) -> np.ndarray:
            return np.concatenate([empty] + [np.asarray(entry[key]).reshape(n_thresholds, -1).T for entry in kept])

        matched, ignored = joined(match_key) != 0, joined(ignore_key).astype(bool)
        codes = np.where(ignored, IGNORED, np.where(matched, TRUE_POSITIVE, FALSE_POSITIVE)).astype(np.uint8)
        self.count = len(entries)
        self._spans = EntrySpans(present, stops - lengths, stops, positives, np.zeros(len(entries), dtype=np.int64))
        self.score = np.concatenate([np.zeros(0)] + [np.asarray(entry[score_key], dtype=np.float64) for entry in kept])
        self.rank = ragged_arange(0, lengths)[0]
        self.outcome = codes[:, :, None]  # one area range: the entry's own
        self.decided = decided_codes(self.outcome)

    def spans(self, entries: np.ndarray) -> EntrySpans:
        return EntrySpans(*(field[entries] for field in self._spans))


def accumulate_entries(
    entries: Entries,
    reads: np.ndarray,
    recall_thresholds: np.ndarray,
    max_detections: Sequence[int],
) -> Curves:
    """COCOeval's accumulation of each output ``v`` over the entries ``reads[v]``: precision and scores
    ``[T, R, V, M]``, recall ``[T, V, M]`` (-1 where no entry is present or no ground truth counts).

    The detections of an output are its entries' in the order read, each limited to its first
    ``max_detections[m]``, and ranked by score with COCOeval's stable sort: `coco_accumulate`
    with one "category" per output, the entry's place among the output's as its "image", and one
    area range.

    Examples
    --------
    >>> one = {"dtScores": [0.9, 0.4], "dtMatches": np.array([[5.0, 0.0]]), "dtIgnore": np.array([[False, False]]),
    ...        "gtIgnore": np.array([0])}
    >>> entries = DictEntries([one, None], ("dtScores", "dtMatches", "dtIgnore", "gtIgnore"), 1)
    >>> precision, recall, scores = accumulate_entries(entries, np.array([[0, 1]]), np.array([0.0, 1.0]), [1, 10])
    >>> precision[0, :, 0, :], recall[0, 0]  # found by the first result; the second adds a false positive
    (array([[1., 1.],
           [1., 1.]]), array([1., 1.]))
    """
    # coco_accumulate reads increasing limits: each distinct one once, put back in the order asked for.
    limits = tuple(sorted({int(m) for m in max_detections}))
    placed = [limits.index(int(m)) for m in max_detections]
    n_outputs, per_output = reads.shape
    every = reads.size == entries.count and (reads.ravel() == np.arange(reads.size)).all()
    curves = entries.accumulated(recall_thresholds, limits) if every else None
    if curves is None:
        curves = _accumulated_reads(entries, reads.ravel(), n_outputs, per_output, recall_thresholds, limits)
    precision, recall, scores = (np.asarray(values)[..., placed] for values in curves)
    n_thresholds, n_recall = precision.shape[:2]
    return (
        precision.reshape(n_thresholds, n_recall, n_outputs, -1),
        recall.reshape(n_thresholds, n_outputs, -1),
        scores.reshape(n_thresholds, n_recall, n_outputs, -1),
    )


def _accumulated_reads(
    entries: Entries,
    read: np.ndarray,
    n_outputs: int,
    per_output: int,
    recall_thresholds: np.ndarray,
    max_detections: tuple[int, ...],
) -> Curves:
    """The curves of outputs that each read `per_output` entries of `read` (output major)."""
    spans = entries.spans(read)
    positions, owner = ragged_arange(spans.starts, spans.stops)
    output = np.repeat(np.arange(n_outputs, dtype=np.int64), per_output)
    positives = np.bincount(output, weights=spans.positives * spans.present, minlength=n_outputs)
    return coco_accumulate(
        n_outputs,
        output[owner],
        owner % max(per_output, 1),  # the entry's place among its output's: ties by score keep the order read
        entries.rank[positions],
        entries.score[positions],
        entries.outcome[positions, :, spans.area[owner]][:, :, None],
        entries.decided[positions, spans.area[owner]][:, None],
        positives.astype(np.int64)[:, None],
        recall_thresholds,
        max_detections,
    )
