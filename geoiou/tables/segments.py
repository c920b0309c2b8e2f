"""`TemporalSegments`: the table of labelled time segments that readers build and evaluations consume.

The ActivityNet reader of `geoiou.io` returns it and the temporal detection and agreement
evaluations of `geoiou.evaluation` take it, so it lives below both (users import it from
`geoiou.evaluation`).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from geoiou._validation import invalid_argument as _invalid

__all__ = ["TemporalSegments", "as_segments"]


# --------------------------------------------------------------------------- the table
class TemporalSegments:
    """Labelled time segments ``[start, end)`` of a set of videos: ground truth, or scored predictions.

    Build it from columns (one entry per segment) with this constructor, or from per-video
    records with `from_records`.

    Parameters
    ----------
    video_id, label : array_like of hashable, shape (N,)
        The video and the class of each segment (strings, ints, ...).
    start, end : array_like of float, shape (N,)
        The segment ``[start, end)``; finite, with ``start <= end`` (zero length is allowed).
    score : array_like of float, shape (N,), optional
        Confidence of each segment; required for predictions, ignored for ground truth.
    videos : iterable of hashable, optional
        Every video of the set, including videos without segments. By default the videos that
        appear in `video_id`, in order of first appearance.

    Raises
    ------
    InvalidArgumentError
        If the columns differ in length, a time or score is not finite, ``end < start``, or a
        video is missing from `videos`.

    Examples
    --------
    >>> segments = TemporalSegments(video_id=["v1", "v1", "v2"], label=["jump", "run", "jump"],
    ...                             start=[0.0, 4.0, 1.0], end=[2.0, 9.0, 3.5], videos=["v1", "v2", "v3"])
    >>> len(segments), segments.videos
    (3, ('v1', 'v2', 'v3'))
    """

    def __init__(
        self,
        *,
        video_id: ArrayLike,
        label: ArrayLike,
        start: ArrayLike,
        end: ArrayLike,
        score: ArrayLike | None = None,
        videos: Iterable[Hashable] | None = None,
    ) -> None:
        self.video_id = _object_column(video_id, "video_id")
        size = len(self.video_id)
        self.label = _object_column(label, "label", size)
        self.start = _float_column(start, "start", size, self.video_id)
        self.end = _float_column(end, "end", size, self.video_id)
        self.score = None if score is None else _float_column(score, "score", size, self.video_id)
        self.videos = _video_list(videos, self.video_id)
        _require_ordered(self.start, self.end, self.video_id)

    @classmethod
    def from_records(cls, records: Mapping[Hashable, Iterable[Any]]) -> TemporalSegments:
        """Build segments from a mapping ``video -> records of that video``.

        Each record is either a dict in ActivityNet's JSON layout, ``{"segment": [start, end],
        "label": label}`` with a ``"score"`` for predictions, or a tuple ``(start, end, label)``
        or ``(start, end, label, score)``. A video mapped to no records is part of the set with
        no segments. So ``json.load(f)["results"]`` of an ActivityNet prediction file can be
        passed as it is.

        Examples
        --------
        >>> predictions = TemporalSegments.from_records({
        ...     "v1": [{"segment": [0.5, 2.0], "label": "jump", "score": 0.9}, (4.0, 8.0, "run", 0.7)],
        ...     "v2": [],
        ... })
        >>> predictions.start, predictions.score, predictions.videos
        (array([0.5, 4. ]), array([0.9, 0.7]), ('v1', 'v2'))
        """
        if not isinstance(records, Mapping):
            raise _invalid("records", "a mapping from video id to that video's records", type(records).__name__)
        rows = [
            (video, *_parse_record(record, video))
            for video, video_records in records.items()
            for record in video_records
        ]
        scores = [row[4] for row in rows]
        has_score = [score is not None for score in scores]
        if any(has_score) and not all(has_score):
            video = rows[has_score.index(False)][0]
            raise _invalid(
                "records", "all scored or all without scores", "a record without 'score'", f" in video {video!r}"
            )
        columns: list[Sequence[Any]] = list(zip(*rows)) if rows else [[]] * 5
        return cls(
            video_id=columns[0],
            start=columns[1],
            end=columns[2],
            label=columns[3],
            score=columns[4] if rows and all(has_score) else None,
            videos=records.keys(),
        )

    def __len__(self) -> int:
        return len(self.video_id)

    def __repr__(self) -> str:
        scored = "scored " if self.score is not None else ""
        return f"TemporalSegments({len(self)} {scored}segments in {len(self.videos)} videos)"


def _object_column(values: Any, param: str, size: int | None = None) -> np.ndarray:
    """A 1-D object array of hashable Python values (ids and labels that key dicts and JSON)."""
    if isinstance(values, (str, bytes)):  # not a sequence of one-character ids
        raise _invalid(param, "a 1-D sequence of ids or labels", values)
    items = list(values.tolist() if isinstance(values, np.ndarray) else values)
    if set(map(type, items)) != {str}:  # strings alone are hashable and have no twin (checked at C speed)
        _require_hashable_without_twins(items, param)
    column = np.empty(len(items), dtype=object)
    column[:] = items
    _require_size(column, param, size)
    return column


def _require_hashable_without_twins(items: list[Any], param: str) -> None:
    try:
        set(items)
    except TypeError:
        unhashable = next(item for item in items if not isinstance(item, Hashable))
        raise _invalid(param, "a 1-D sequence of hashable values such as str or int", unhashable) from None
    texts = {item for item in items if isinstance(item, str)}
    twin = next((item for item in items if not isinstance(item, str) and str(item) in texts), None)
    if twin is not None:  # 1 and "1": two ids that read the same, a file read as text on one side
        raise _invalid(param, "ids of one type for equal names", f"both {twin!r} and {str(twin)!r}")


def _float_column(values: ArrayLike, param: str, size: int, video_id: np.ndarray) -> np.ndarray:
    raw = (
        values if isinstance(values, np.ndarray) else np.asarray(values) if isinstance(values, (list, tuple)) else None
    )
    if raw is not None and (
        raw.dtype.kind in "US" or (raw.dtype.kind == "O" and any(isinstance(item, (str, bytes)) for item in raw.flat))
    ):
        # "3.5" is not a time: NumPy would convert it, but it is a file read as text, or a mistake.
        raise _invalid(param, "an array of numbers, not strings (convert text with float(...) first)", values)
    try:
        column = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise _invalid(param, "an array of numbers", values) from None
    if column.ndim != 1:
        raise _invalid(param, "a 1-D array", f"shape {column.shape}")
    _require_size(column, param, size)
    bad = np.flatnonzero(~np.isfinite(column))
    if bad.size:
        row = int(bad[0])
        raise _invalid(param, "finite", column[row], _where(row, video_id))
    return column


def _require_size(column: np.ndarray, param: str, size: int | None) -> None:
    if size is not None and len(column) != size:
        raise _invalid(param, f"one entry per segment ({size})", f"{len(column)} entries")


def _require_ordered(start: np.ndarray, end: np.ndarray, video_id: np.ndarray) -> None:
    bad = np.flatnonzero(end < start)
    if bad.size:
        row = int(bad[0])
        raise _invalid("end", ">= start", f"[{start[row]:g}, {end[row]:g}]", _where(row, video_id))


def _where(row: int, video_id: np.ndarray) -> str:
    return f" at segment {row}, video {video_id[row]!r}"


def _video_list(videos: Iterable[Hashable] | None, video_id: np.ndarray) -> tuple[Any, ...]:
    appearing = tuple(dict.fromkeys(video_id.tolist()))
    if videos is None:
        return appearing
    videos = tuple(videos)
    known = set(videos)
    missing = [video for video in appearing if video not in known]
    if missing:
        raise _invalid("video_id", "one of 'videos'", missing[0])
    return videos


def _parse_record(record: Any, video: Hashable) -> tuple[Any, Any, Any, Any]:
    """``(start, end, label, score or None)`` of one ActivityNet-style dict or tuple record."""
    try:
        if isinstance(record, Mapping):
            start, end = record["segment"]
            return start, end, record["label"], record.get("score")
        start, end, label, *score = record
        if len(score) <= 1 and not (isinstance(start, str) and not isinstance(label, str)):
            return start, end, label, score[0] if score else None
    except (KeyError, TypeError, ValueError):
        pass
    if isinstance(record, (tuple, list)) and record and isinstance(record[0], str):  # ("run", 0, 5): label first
        raise _invalid(
            "records",
            "(start, end, label[, score]) in this order, the label third",
            record,
            f" in video {video!r}: the label comes after the times",
        )
    expected = "{'segment': [start, end], 'label': ..., 'score': ...} or (start, end, label[, score])"
    raise _invalid("records", expected, record, f" in video {video!r}")


def as_segments(value: TemporalSegments | Mapping[Hashable, Iterable[Any]], param: str) -> TemporalSegments:
    """`value` as TemporalSegments: itself, or a mapping from video id to records (`param` names it in errors)."""
    if isinstance(value, TemporalSegments):
        return value
    if isinstance(value, Mapping):
        return TemporalSegments.from_records(value)
    raise _invalid(param, "TemporalSegments or a mapping from video id to records", type(value).__name__)
