"""Per-image results as COCOeval's ``accumulate`` reads them, and accumulation on geoiou's `coco_accumulate`.

COCOeval's ``evalImgs`` is a flat list over (category, area range, image), image fastest, each
entry the detections of one image and category (by score, at most ``maxDets[-1]``) with their
matched and ignored flags for one area range, and how many ground truths count there. `Entries`
is that list as arrays: each entry a span of flat per-detection arrays. An evaluation makes it
from the matcher's arrays without copying the flags (`Entries.from_matched`: the span of entry
``(k, a, i)`` is the group ``(k, i)``'s detections at range ``a``); a list of dicts set by a user
(torchvision merges ``evalImgs`` across processes) becomes one too (`Entries.from_dicts`).

`accumulate_entries` gives precision, recall and scores for outputs that each read a list of
entries, which is how COCOeval's ``accumulate`` reads them, also when its parameters differ from
the evaluated ones: then it reads entries by the same index arithmetic, quirks included.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from geoiou._ranges import ragged_arange
from geoiou.evaluation.coco import coco_accumulate

__all__ = ["Entries", "accumulate_entries"]


@dataclass(frozen=True)
class Entries:
    """COCOeval's per-image results as spans of flat arrays.

    Entry ``e`` is None in ``evalImgs`` unless ``present[e]``; its detections are the flat
    positions ``starts[e]:stops[e]`` of ``score``, ``rank`` (place within the entry),
    ``matched`` and ``ignored`` (``[T, F]``); ``positives[e]`` of its ground truths count.

    Examples
    --------
    >>> one = {"dtScores": [0.9, 0.4], "dtMatches": np.array([[5.0, 0.0]]), "dtIgnore": np.array([[False, False]]),
    ...        "gtIgnore": np.array([0])}
    >>> entries = Entries.from_dicts([one, None], ("dtScores", "dtMatches", "dtIgnore", "gtIgnore"), 1)
    >>> entries.present, entries.positives, entries.matched
    (array([ True, False]), array([1, 0]), array([[ True, False]]))
    """

    present: np.ndarray
    starts: np.ndarray
    stops: np.ndarray
    positives: np.ndarray
    score: np.ndarray
    rank: np.ndarray
    matched: np.ndarray
    ignored: np.ndarray
    #: For entries of a matching: its category per detection and the ``[T, A, D]`` flags and ``[K, A]`` positives
    #: as `coco_accumulate` takes them, for an accumulation that reads every entry in order.
    matching: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    @classmethod
    def from_matched(
        cls,
        present: np.ndarray,
        group_starts: np.ndarray,
        group_stops: np.ndarray,
        positives: np.ndarray,
        score: np.ndarray,
        rank: np.ndarray,
        matched: np.ndarray,
        ignored: np.ndarray,
    ) -> Entries:
        """Entries of a matching: groups ``(k, i)`` with detection spans, flags ``[T, A, D]``, positives ``[K, A, I]``.

        Entry ``(k, a, i)`` (index ``(k * A + a) * I + i``) is the span of group ``(k, i)`` in the
        area-major flattening of the flags, so no flag is copied.
        """
        n_thresholds, n_areas, n_dt = matched.shape
        n_categories, n_images = group_starts.shape
        category = np.repeat(np.arange(n_categories), (group_stops - group_starts).sum(axis=1))
        shift = (np.arange(n_areas) * n_dt)[None, :, None]
        starts = (group_starts[:, None, :] + shift).reshape(-1)
        stops = (group_stops[:, None, :] + shift).reshape(-1)
        return cls(
            present=np.repeat(present[:, None, :], n_areas, axis=1).reshape(-1),
            starts=starts,
            stops=stops,
            positives=positives.reshape(-1),
            score=np.tile(score, n_areas),
            rank=np.tile(rank, n_areas),
            matched=matched.reshape(n_thresholds, n_areas * n_dt),
            ignored=ignored.reshape(n_thresholds, n_areas * n_dt),
            matching=(category, matched, ignored, positives.sum(axis=2)),
        )

    @classmethod
    def from_dicts(cls, entries: Sequence[Any], keys: tuple[str, str, str, str], n_thresholds: int) -> Entries:
        """Entries of ``evalImgs`` dicts; `keys` name the scores, matches, ignore flags and gt ignore flags."""
        score_key, match_key, ignore_key, gt_key = keys
        present = np.array([entry is not None for entry in entries], dtype=bool)
        kept = [entry for entry in entries if entry is not None]
        lengths = np.zeros(len(entries), dtype=np.int64)
        lengths[present] = [len(entry[score_key]) for entry in kept]
        stops = np.cumsum(lengths)
        positives = np.zeros(len(entries), dtype=np.int64)
        positives[present] = [np.count_nonzero(np.asarray(entry[gt_key]) == 0) for entry in kept]
        empty = np.zeros((n_thresholds, 0))

        def joined(key: str) -> np.ndarray:
            return np.concatenate(
                [empty] + [np.asarray(entry[key]).reshape(n_thresholds, -1) for entry in kept], axis=1
            )

        return cls(
            present=present,
            starts=stops - lengths,
            stops=stops,
            positives=positives,
            score=np.concatenate([np.zeros(0)] + [np.asarray(entry[score_key], dtype=np.float64) for entry in kept]),
            rank=ragged_arange(0, lengths)[0],
            matched=joined(match_key) != 0,
            ignored=joined(ignore_key).astype(bool),
        )


def accumulate_entries(
    entries: Entries,
    reads: np.ndarray,
    recall_thresholds: np.ndarray,
    max_detections: Sequence[int],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """COCOeval's accumulation of each output ``v`` over the entries ``reads[v]``: precision and scores
    ``[T, R, V, M]``, recall ``[T, V, M]`` (-1 where no entry is present or no ground truth counts).

    The detections of an output are its entries' in the order read, each limited to its first
    ``max_detections[m]``, and ranked by score with COCOeval's stable sort: `coco_accumulate`
    with one "category" per output and one area range.

    Examples
    --------
    >>> one = {"dtScores": [0.9, 0.4], "dtMatches": np.array([[5.0, 0.0]]), "dtIgnore": np.array([[False, False]]),
    ...        "gtIgnore": np.array([0])}
    >>> entries = Entries.from_dicts([one, None], ("dtScores", "dtMatches", "dtIgnore", "gtIgnore"), 1)
    >>> precision, recall, scores = accumulate_entries(entries, np.array([[0, 1]]), np.array([0.0, 1.0]), [1, 10])
    >>> precision[0, :, 0, :], recall[0, 0]  # found by the first result; the second adds a false positive
    (array([[1., 1.],
           [1., 1.]]), array([1., 1.]))
    """
    n_outputs = len(reads)
    read = reads.reshape(n_outputs, -1)
    if (
        entries.matching is not None
        and read.size == len(entries.present)
        and (read.ravel() == np.arange(read.size)).all()
    ):
        return _accumulate_matching(entries, recall_thresholds, max_detections)
    output = np.repeat(np.arange(n_outputs), read.shape[1]).astype(np.int64)
    entry = read.reshape(-1)
    positions, owner = ragged_arange(entries.starts[entry], entries.stops[entry])
    positives = np.bincount(output, weights=entries.positives[entry] * entries.present[entry], minlength=n_outputs)
    precision, recall, scores = coco_accumulate(
        n_outputs,
        output[owner],
        entries.rank[positions],
        entries.score[positions],
        entries.matched[:, None, positions],
        entries.ignored[:, None, positions],
        positives.astype(np.int64)[:, None],
        recall_thresholds,
        tuple(int(m) for m in max_detections),
    )
    return precision[:, :, :, 0], recall[:, :, 0], scores[:, :, :, 0]


def _accumulate_matching(
    entries: Entries, recall_thresholds: np.ndarray, max_detections: Sequence[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every entry of a matching, in order: `coco_accumulate` on the matcher's arrays as they are (as
    `CocoEvaluation.compute` calls it), outputs ``(k, a)`` laid out k major."""
    assert entries.matching is not None
    category, matched, ignored, positives = entries.matching
    n_thresholds, n_areas, n_dt = matched.shape
    precision, recall, scores = coco_accumulate(
        len(positives),
        category,
        entries.rank[:n_dt],
        entries.score[:n_dt],
        matched,
        ignored,
        positives,
        recall_thresholds,
        tuple(int(m) for m in max_detections),
    )
    size = len(positives) * n_areas
    return (
        precision.reshape(n_thresholds, len(recall_thresholds), size, -1),
        recall.reshape(n_thresholds, size, -1),
        scores.reshape(n_thresholds, len(recall_thresholds), size, -1),
    )
