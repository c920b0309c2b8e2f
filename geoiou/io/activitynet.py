"""ActivityNet JSON files: ground truth (``"database"``) and detection results (``"results"``).

The layout is the one of ActivityNet v1.3 and of THUMOS14 converted to ActivityNet form, as read by
ActivityNet's ``Evaluation/eval_detection.py``::

    {"version": ..., "taxonomy": [...],
     "database": {video_id: {"subset": "validation", "duration": 82.7, "url": ...,
                             "annotations": [{"segment": [start, end], "label": "Long jump"}, ...]}}}

    {"version": ..., "external_data": {...},
     "results": {video_id: [{"label": "Long jump", "score": 0.64, "segment": [start, end]}, ...]}}

Each segment (an annotation or a prediction) is one record of the `ReadReport`; a malformed video
entry is reported once, at the video, and none of its segments is read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from geoiou._validation import SMALLEST_LENGTH, describe, invalid_argument, is_finite_number, range_faults
from geoiou.errors import FormatError
from geoiou.io.columns import JsonColumns, ObjectColumns, Values
from geoiou.io.json_documents import open_json
from geoiou.io.report import ReadReport, RecordReader, invalid
from geoiou.tables.segments import TemporalSegments

__all__ = ["ActivityNetFile", "read_activitynet", "write_activitynet_results"]

KINDS = ("database", "results")
#: The "version" written into result files (the ActivityNet release whose layout they follow).
RESULTS_VERSION = "VERSION 1.3"

#: One segment as read: (video, label, start, end, score or None).
Row = tuple[Hashable, str, float, float, "float | None"]
#: One video's records: its id, the list of records, where the list is (for messages), and the fault of the
#: video's entry (then no records), reported in file order with the records' faults.
_Group = tuple[Hashable, list[Any], str, "str | None"]


@dataclass(frozen=True)
class ActivityNetFile:
    """The segments of one ActivityNet JSON file, ground truth or predictions.

    Attributes
    ----------
    segments : TemporalSegments
        The segments in file order (video by video). Ground truth has no scores; predictions have
        them. ``segments.videos`` lists every video read, also the videos without segments.
    kind : str
        ``"database"`` (ground truth) or ``"results"`` (predictions), from the file's top-level key.
    durations : dict
        The ``"duration"`` of each ground-truth video that has one (empty for results).
    report : ReadReport
        The segments read and the records skipped (with ``skip_invalid=True``), and why.
    subset : str or None
        The subset of a ground truth whose videos were read (``"validation"`` when chosen by the
        default, as ActivityNet's evaluation does); None when every video was read.

    Examples
    --------
    >>> read = read_activitynet({"results": {"v_a": [{"label": "Shot put", "score": 0.5, "segment": [2, 6]}],
    ...                                      "v_b": []}})
    >>> read.kind, read.segments.videos, read.report.read
    ('results', ('v_a', 'v_b'), 1)
    """

    segments: TemporalSegments
    kind: str
    durations: dict[str, float]
    report: ReadReport
    subset: str | None = None


# --------------------------------------------------------------------------- reading
def read_activitynet(
    source: str | os.PathLike[str] | Mapping[str, Any], *, subset: str | None = None, skip_invalid: bool = False
) -> ActivityNetFile:
    """Read an ActivityNet ground-truth or results JSON file into `TemporalSegments`.

    The kind of file comes from its top-level key: ``"database"`` (ground truth, no scores) or
    ``"results"`` (predictions, each with a score). Other top-level keys (``"version"``,
    ``"taxonomy"``, ``"external_data"``) are not used.

    Parameters
    ----------
    source : str, path-like or dict
        The JSON file, or its already-parsed content (named ``"<dict>"`` in messages).
    subset : str, optional
        For ground truth: keep only the videos whose ``"subset"`` is this one, including those
        without annotations: they are videos of the evaluation, where any prediction is a false
        positive. ``"all"`` keeps every video. By default, as ActivityNet's own evaluation: a file
        whose videos belong to several subsets is read for its ``"validation"`` videos
        (`ActivityNetFile.subset` says so), and refused if it has none (the message names the
        subsets); a file of one subset, or without subsets, is read whole. Subsets are never
        mixed without being asked for.
    skip_invalid : bool, default False
        Skip invalid segments and video entries, and list them in `ActivityNetFile.report`,
        instead of raising at the first one.

    Returns
    -------
    ActivityNetFile
        The segments, the kind of file, the videos' durations and the read report.

    Raises
    ------
    FormatError
        For a file that is not JSON, a top-level object with both or neither of ``"database"``
        and ``"results"``, and (unless `skip_invalid`) an invalid record: a missing field, a
        segment that is not two finite numbers with ``start <= end``, a label that is not a
        string, a score that is not a finite number. The location reads like
        ``database['v_abc'].annotations[2]`` or ``results['v_abc'][5]``.
    InvalidArgumentError
        If `subset` is given for a results file, or no video has that subset, or by default when
        the videos belong to several subsets and none is ``"validation"`` (the message lists the
        subsets of the file).

    Examples
    --------
    >>> truth = read_activitynet({"version": "VERSION 1.3", "taxonomy": [], "database": {
    ...     "v_a": {"subset": "validation", "duration": 20.0,
    ...             "annotations": [{"segment": [1.5, 8.0], "label": "Long jump"}]},
    ...     "v_b": {"subset": "validation", "duration": 9.5, "annotations": []},
    ...     "v_c": {"subset": "training", "duration": 30.0,
    ...             "annotations": [{"segment": [0.0, 4.0], "label": "Long jump"}]}}},
    ...     subset="validation")
    >>> truth.kind, truth.segments, truth.durations
    ('database', TemporalSegments(1 segments in 2 videos), {'v_a': 20.0, 'v_b': 9.5})
    >>> bad = {"results": {"v_a": [{"label": "Long jump", "score": 0.9, "segment": [9.0, 2.0]}]}}
    >>> read_activitynet(bad)
    Traceback (most recent call last):
    ...
    geoiou.errors.FormatError: <dict>, results['v_a'][0]: 'segment' must have end >= start (got [9.0, 2.0])
    >>> print(read_activitynet(bad, skip_invalid=True).report.summary())
    <dict>: read 0 records, skipped 1
      1 x 'segment' must have end >= start (first at results['v_a'][0])
    """
    opened = open_json(source, skip_invalid=skip_invalid)
    if opened.columns is not None:
        fast = _file_columns(opened.columns, subset, opened.reader.source)
        if fast is not None:  # a file of plain records, read as columns
            segments, kind, durations, chosen = fast
            opened.reader.read_valid(len(segments))
            return ActivityNetFile(segments, kind, durations, opened.reader.report(), chosen)
    document, reader = opened.document(), opened.reader
    kind = _kind(document, reader)
    if kind == "results" and subset is not None:
        raise invalid_argument("subset", "None for a results file (results have no subsets)", subset)
    content = document[kind]
    if not isinstance(content, Mapping):
        raise reader.whole_file(
            f"'{kind}' must be an object mapping video ids to "
            f"{'videos' if kind == 'database' else 'lists of predictions'} (got {describe(content)})"
        )
    if kind == "database":
        subset = _protocol_subset(_subset_names(content.values()), subset, reader.source)
        groups, videos, durations = _read_database(content, subset, reader)
    else:
        (groups, videos), durations = _read_results(content, reader), {}
    segments = _segments_of(groups, videos, reader, scored=kind == "results")
    return ActivityNetFile(segments, kind, durations, reader.report(), subset)


#: The subset ActivityNet's evaluation (``eval_detection.py``) reads by default.
PROTOCOL_SUBSET = "validation"


def _subset_names(entries: Iterable[Any]) -> list[Any]:
    """The ``"subset"`` of each video entry (None where an entry has none)."""
    return [entry.get("subset") if isinstance(entry, Mapping) else None for entry in entries]


def _protocol_subset(names: list[Any], subset: str | None, source: str) -> str | None:
    """The subset to read, from the videos' subset `names`: the one asked for (``"all"``: None, every video; one
    that no video has is refused), or by default ActivityNet's choice."""
    if subset == "all":
        return None
    if subset is not None:
        if subset not in names:
            have = sorted({name for name in names if isinstance(name, str)})
            raise invalid_argument("subset", f"a subset that videos of {source} have, one of {have}", subset)
        return subset
    present: list[str] = sorted({name for name in names if isinstance(name, str)})
    if len(present) <= 1:
        return None  # one subset (or none named): nothing to mix
    if PROTOCOL_SUBSET in present:
        return PROTOCOL_SUBSET
    raise invalid_argument(
        "subset",
        f"one of the subsets of {source}, {present}, or 'all' to evaluate every video "
        "(ActivityNet's evaluation reads 'validation', which this file does not have)",
        None,
    )


def _kind(document: Any, reader: RecordReader) -> str:
    if not isinstance(document, Mapping):
        raise reader.whole_file(f"expected a JSON object at the top level (got {type(document).__name__})")
    present = [key for key in KINDS if key in document]
    if len(present) != 1:
        found = f"both {present}" if present else f"neither; top-level keys are {list(document)[:10]}"
        raise reader.whole_file(
            f"expected one of the top-level keys 'database' (ground truth) or 'results' (predictions) (got {found})"
        )
    return present[0]


def _read_database(
    database: Mapping[str, Any], subset: str | None, reader: RecordReader
) -> tuple[list[_Group], list[Hashable], dict[str, float]]:
    groups: list[_Group] = []
    videos: list[Hashable] = []
    durations: dict[str, float] = {}
    for video, entry in database.items():
        location = f"database[{video!r}]"
        if subset is not None and _of_another_subset(entry, subset):
            continue  # not part of this evaluation, and not read
        try:
            checked = _video_entry(entry, subset is not None)
        except FormatError as error:  # reported in file order, with the records' faults
            groups.append((video, [], location, error.reason))
            continue
        annotations, duration = checked
        videos.append(video)
        if duration is not None:
            durations[video] = duration
        groups.append((video, annotations, f"{location}.annotations", None))
    return groups, videos, durations


def _of_another_subset(entry: Any, subset: str) -> bool:
    """Whether a video entry names a subset other than `subset` (a missing one is a fault, found later)."""
    return isinstance(entry, Mapping) and isinstance(entry.get("subset"), str) and entry["subset"] != subset


def _video_entry(entry: Any, subset_required: bool) -> tuple[list[Any], float | None]:
    """The annotations and the duration (None when absent) of one ground-truth video entry."""
    if not isinstance(entry, Mapping):
        raise invalid(f"the video must be an object with 'annotations' (got {describe(entry)})")
    if subset_required and not isinstance(entry.get("subset"), str):
        raise invalid(f"'subset' must be a string such as 'validation' (got {describe(entry.get('subset'))})")
    duration = None
    if "duration" in entry:
        duration = _number(entry["duration"], "duration")
        if duration < 0:
            raise invalid(f"'duration' must be >= 0 (got {describe(entry['duration'])})")
    if not isinstance(entry.get("annotations"), list):
        raise invalid(f"'annotations' must be a list (got {describe(entry.get('annotations'))})")
    return entry["annotations"], duration


def _read_results(results: Mapping[str, Any], reader: RecordReader) -> tuple[list[_Group], list[Hashable]]:
    groups: list[_Group] = []
    videos: list[Hashable] = []
    for video, predictions in results.items():
        location = f"results[{video!r}]"
        if not isinstance(predictions, list):
            groups.append(
                (video, [], location, f"the video's predictions must be a list (got {describe(predictions)})")
            )
            continue
        videos.append(video)
        groups.append((video, predictions, location, None))
    return groups, videos


def _segments_of(
    groups: list[_Group], videos: list[Hashable], reader: RecordReader, *, scored: bool
) -> TemporalSegments:
    """The segments of every video's records: as columns when every record is plain, else record by record
    (which names the faulty ones)."""
    if not any(fault for *_, fault in groups):
        records = list(chain.from_iterable(records for _, records, _, _ in groups))
        per_video = np.array([len(records) for _, records, _, _ in groups], dtype=np.int64)
        plain = _segment_columns(
            ObjectColumns(None), records, per_video, [video for video, *_ in groups], scored=scored
        )
        if plain is not None:
            reader.read_valid(len(records))
            return plain
    rows: list[Row] = []
    for video, records, location, fault in groups:
        if fault is not None:
            reader.fail(location, fault)
        rows += _read_segments(reader, video, records, location, scored=scored)
    return _segments(rows, videos, scored=scored)


#: A file read column by column: its segments, kind, durations and the subset read.
_Columns = tuple[TemporalSegments, str, dict[str, float], "str | None"]


def _file_columns(columns: JsonColumns, subset: str | None, source: str) -> _Columns | None:
    """The file read column by column; None unless the file and every record are plain: the record path then
    reads it and names what is not."""
    root = columns.root()
    if not columns.is_object(root).all() or columns.count_having(root, "database") == columns.count_having(
        root, "results"
    ):
        return None  # neither or both: the record path says why
    kind = "database" if columns.count_having(root, "database") else "results"
    if kind == "results" and subset is not None:
        return None  # refused by the record path
    members = columns.members(columns.field(root, kind))
    videos = None if members is None else columns.strings(members[0])
    if members is None or videos is None:
        return None
    if kind == "results":
        listed = columns.elements(members[1])
        segments = None if listed is None else _segment_columns(columns, *listed, videos, scored=True)
        return None if segments is None else (segments, kind, {}, None)
    return _database_columns(columns, members[1], videos, subset, source)


def _database_columns(
    columns: JsonColumns, entries: Values, videos: list[str], subset: str | None, source: str
) -> _Columns | None:
    """The ground truth of the videos of the subset read (`_protocol_subset`), column by column."""
    if not columns.is_object(entries).all():
        return None
    having = columns.count_having(entries, "subset")
    if having not in (0, len(videos)):
        return None  # some entries name no subset: the record path's checks
    names = columns.strings(columns.field(entries, "subset")) if having else [None] * len(videos)
    if names is None:
        return None
    chosen = _protocol_subset(names, subset, source)
    kept = np.flatnonzero([chosen is None or name == chosen for name in names])
    entries, videos = columns.select(entries, kept), [videos[k] for k in kept]
    listed = columns.elements(columns.field(entries, "annotations"))
    segments = None if listed is None else _segment_columns(columns, *listed, videos, scored=False)
    durations = _durations(columns, entries, videos)
    if segments is None or durations is None:
        return None
    return segments, "database", durations, chosen


def _durations(columns: JsonColumns, entries: Values, videos: list[str]) -> dict[str, float] | None:
    """The videos' durations (none given: empty); None unless every entry or none has one, each a number >= 0."""
    having = columns.count_having(entries, "duration")
    if having == 0:
        return {}
    values = columns.numbers(columns.field(entries, "duration")) if having == len(videos) else None
    if values is None or (values < 0).any():
        return None
    return dict(zip(videos, values.tolist()))


def _segment_columns(
    columns: JsonColumns, records: Values, per_video: np.ndarray, videos: list[Any], *, scored: bool
) -> TemporalSegments | None:
    """The segments of all videos' records (`per_video` of them each, in video order) at once; None unless every
    record is ``{"segment": [two finite numbers, start <= end], "label": a string[, "score": a finite number]}``."""
    if not columns.is_object(records).all():
        return None
    bounds = columns.number_rows(columns.field(records, "segment"), 2)
    labels = columns.strings(columns.field(records, "label"))
    score = columns.numbers(columns.field(records, "score")) if scored else None
    if bounds is None or labels is None or (scored and score is None):
        return None
    if (bounds[:, 1] < bounds[:, 0]).any() or _segment_faults(bounds):
        return None
    video_of = np.empty(len(videos), dtype=object)
    video_of[:] = videos
    return TemporalSegments(
        video_id=np.repeat(video_of, per_video),
        label=labels,
        start=bounds[:, 0],
        end=bounds[:, 1],
        score=score,
        videos=videos,
    )


def _read_segments(
    reader: RecordReader, video: Hashable, records: list[Any], location: str, *, scored: bool
) -> list[Row]:
    rows: list[Row] = []
    for index, record in enumerate(records):
        with reader.record(f"{location}[{index}]"):
            rows.append(_segment_row(record, video, scored))
    return rows


def _segment_row(record: Any, video: Hashable, scored: bool) -> Row:
    """One annotation (``scored=False``) or prediction: ``(video, label, start, end, score or None)``."""
    try:  # the common case first: large results files hold a million predictions
        start, end = record["segment"]
        label = record["label"]
        score = record["score"] if scored else None
    except (KeyError, TypeError, ValueError):
        raise invalid(_layout_fault(record, scored)) from None
    if not (_is_real(start) and _is_real(end)):
        raise invalid(f"'segment' must be [start, end], two numbers (got {describe(record['segment'])})")
    if not (is_finite_number(start) and is_finite_number(end)):  # NaN, inf, an integer beyond float64
        raise invalid(f"'segment' must be finite (got {describe(record['segment'])})")
    if end < start:
        raise invalid(f"'segment' must have end >= start (got {describe(record['segment'])})")
    faults = _segment_faults(np.array([[start, end]], dtype=np.float64))
    if faults:
        raise invalid(faults[0])
    if not isinstance(label, str):
        raise invalid(f"'label' must be a string (got {describe(label)})")
    return video, label, float(start), float(end), _number(score, "score") if scored else None


def _segment_faults(bounds: np.ndarray) -> dict[int, str]:
    """What Interval would refuse among ``(start, end)`` rows, by row: times beyond ±2**508, or a positive length
    below 2**-500 (lengths and DIoU's squares would overflow or underflow float64)."""
    length = bounds[:, 1] - bounds[:, 0]
    return range_faults(
        np.abs(bounds).max(axis=1, initial=0.0), length, length > 0, "segment", smallest=SMALLEST_LENGTH, what="length"
    )


def _layout_fault(record: Any, scored: bool) -> str:
    """Why a record is not laid out as ``{"segment": [start, end], "label": ..., "score": ...}``."""
    expected = "{'segment': [start, end], 'label': ...%s}" % (", 'score': ..." if scored else "")
    if not isinstance(record, Mapping):
        return f"the record must be an object {expected} (got {describe(record)})"
    for name in ("segment", "label", "score") if scored else ("segment", "label"):
        if name not in record:
            return f"'{name}' must be present in {expected} (got the fields {list(record)})"
    return f"'segment' must be [start, end], two numbers (got {describe(record['segment'])})"


def _is_real(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(value: Any, name: str) -> float:
    """A finite JSON number (not a string, not a boolean), or raise `invalid` naming the field."""
    if not is_finite_number(value):
        raise invalid(f"'{name}' must be a finite number (got {describe(value)})")
    return float(value)


def _segments(rows: list[Row], videos: list[Hashable], *, scored: bool) -> TemporalSegments:
    video_id, label, start, end, score = (list(column) for column in zip(*rows)) if rows else ([], [], [], [], [])
    return TemporalSegments(
        video_id=video_id, label=label, start=start, end=end, score=score if scored else None, videos=videos
    )


# --------------------------------------------------------------------------- writing
def write_activitynet_results(path: str | os.PathLike[str], predictions: TemporalSegments) -> None:
    """Write scored segments as an ActivityNet results file, readable by ActivityNet's own evaluation.

    Every video of ``predictions.videos`` gets an entry, an empty list for a video without
    predictions. Times and scores are written in full precision, so `read_activitynet` gives
    back the same numbers.

    Parameters
    ----------
    path : str or path-like
        The file to write (replaced if it exists).
    predictions : TemporalSegments
        Scored segments whose video ids and labels are strings (JSON object keys are strings, so
        another type would not read back as itself).

    Raises
    ------
    InvalidArgumentError
        If `predictions` is not `TemporalSegments`, has no scores, or has a video id or label that
        is not a string.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> predictions = TemporalSegments(video_id=["v_a", "v_a"], label=["Long jump", "Shot put"],
    ...                                start=[1.0, 12.5], end=[7.25, 15.0], score=[0.9, 0.4],
    ...                                videos=["v_a", "v_b"])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "results.json"
    ...     write_activitynet_results(path, predictions)
    ...     print(path.read_text()[:93])
    ...     again = read_activitynet(path).segments
    {"version": "VERSION 1.3", "results": {"v_a": [{"label": "Long jump", "score": 0.9, "segment"
    >>> again.start, again.score, again.videos
    (array([ 1. , 12.5]), array([0.9, 0.4]), ('v_a', 'v_b'))
    """
    if not isinstance(predictions, TemporalSegments):
        raise invalid_argument("predictions", "TemporalSegments", type(predictions).__name__)
    if predictions.score is None:
        raise invalid_argument("predictions", "scored (each prediction needs a score)", "no scores")
    _require_strings(predictions.videos, "predictions", "video ids that are strings (JSON object keys)")
    _require_strings(predictions.label.tolist(), "predictions", "labels that are strings")
    results: dict[str, list[dict[str, Any]]] = {video: [] for video in predictions.videos}
    columns = zip(
        predictions.video_id.tolist(),
        predictions.label.tolist(),
        predictions.start.tolist(),
        predictions.end.tolist(),
        predictions.score.tolist(),
    )
    for video, label, start, end, score in columns:
        results[video].append({"label": label, "score": score, "segment": [start, end]})
    document = {"version": RESULTS_VERSION, "results": results, "external_data": {}}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, allow_nan=False)


def _require_strings(values: Any, param: str, expected: str) -> None:
    for value in values:
        if not isinstance(value, str):
            raise invalid_argument(param, expected, value)
