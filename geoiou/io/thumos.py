"""THUMOS14's temporal annotations: one text file per class, ``<Class>_val.txt`` or ``<Class>_test.txt``.

Each line of a class file is ``video start end``, times in seconds, e.g.
``video_validation_0000051 67.5 75.9`` in ``BaseballPitch_val.txt``. The class is the file's
name before ``_val`` / ``_test``. ``Ambiguous_val.txt`` (``_test``) lists the stretches the
annotators could not label: they are read apart, as `ThumosAnnotations.ambiguous`, not as a class.

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "BaseballPitch_val.txt").write_text("video_validation_0000051 67.5 75.9\\n")
>>> _ = (folder / "Ambiguous_val.txt").write_text("video_validation_0000051 80.0 81.5\\n")
>>> annotations = read_thumos14(folder)
>>> annotations.segments.label.tolist(), annotations.segments.start.tolist(), len(annotations.ambiguous)
(['BaseballPitch'], [67.5], 1)
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from geoiou._validation import SMALLEST_LENGTH, range_faults
from geoiou.errors import FormatError
from geoiou.tables.segments import TemporalSegments
from geoiou.io.folders import label_files
from geoiou.io.report import ReadReport, RecordReader, float_field, invalid, read_text, source_name

__all__ = ["AMBIGUOUS", "ThumosAnnotations", "read_thumos14"]

#: The file of segments that no class was given to.
AMBIGUOUS = "Ambiguous"
#: ``<Class>_val.txt`` or ``<Class>_test.txt``.
_CLASS_FILE = re.compile(r"(?P<label>.+)_(?P<subset>val|test)\.txt", re.IGNORECASE)


@dataclass(frozen=True)
class ThumosAnnotations:
    """The segments of a THUMOS14 annotation folder.

    Attributes
    ----------
    segments : TemporalSegments
        The labelled segments, class by class (sorted by class name), each file's lines in order;
        ``segments.videos`` lists every video that has a labelled or an ambiguous segment, sorted.
    ambiguous : TemporalSegments
        The segments of ``Ambiguous_*.txt``, labelled ``"Ambiguous"`` (empty without that file).
    subset : str
        ``"val"`` or ``"test"``, from the file names.
    report : ReadReport
        The lines read and the ones skipped (with ``skip_invalid=True``), and why.
    """

    segments: TemporalSegments
    ambiguous: TemporalSegments
    subset: str
    report: ReadReport


def read_thumos14(folder: str | os.PathLike[str], *, skip_invalid: bool = False) -> ThumosAnnotations:
    """Read THUMOS14's per-class annotation files (``<Class>_val.txt``) into segments.

    Parameters
    ----------
    folder : path-like
        The annotation folder (``annotation/`` of the validation or test set), or one class file.
    skip_invalid : bool, default False
        Skip malformed lines (listed in ``report``) instead of raising at the first one.

    Raises
    ------
    FormatError
        Naming the file and line: not ``video start end``, a time that is not a finite number,
        ``end < start``, times beyond float64's range (as `Interval` refuses them); a text file not
        named ``<Class>_val.txt`` or ``<Class>_test.txt``; files of both subsets in one folder.
    """
    classes = []  # (label, subset, path) of each file
    for path in label_files(folder):
        match = _CLASS_FILE.fullmatch(path.name)
        if match is None:
            raise FormatError(
                source_name(path),
                "",
                f"a THUMOS14 annotation file must be named <Class>_val.txt or <Class>_test.txt (got {path.name!r})",
            )
        classes.append((match.group("label"), match.group("subset").lower(), path))
    subsets = sorted({subset for _, subset, _ in classes})
    if len(subsets) > 1:
        raise FormatError(source_name(folder), "", f"the folder must hold one subset's files (got both {subsets})")
    reports: list[ReadReport] = []
    labelled: list[tuple[str, str, float, float]] = []
    ambiguous: list[tuple[str, str, float, float]] = []
    for label, _, path in sorted(classes):
        rows, report = _class_file(path, label, skip_invalid)
        reports.append(report)
        (ambiguous if label == AMBIGUOUS else labelled).extend(rows)
    videos = sorted({row[0] for row in labelled + ambiguous})
    return ThumosAnnotations(
        _segments(labelled, videos),
        _segments(ambiguous, videos),
        subsets[0],
        ReadReport.merge(source_name(folder), reports),
    )


def _class_file(path: Path, label: str, skip_invalid: bool) -> tuple[list[tuple[str, str, float, float]], ReadReport]:
    reader = RecordReader(path, skip_invalid=skip_invalid)
    rows = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        with reader.record(f"line {number}"):
            if len(fields) != 3:
                raise invalid(f"expected 'video start end' (got {len(fields)} fields: {line.strip()!r})")
            start, end = float_field(fields[1], "start"), float_field(fields[2], "end")
            if end < start:
                raise invalid(f"'end' must be >= start (got [{fields[1]}, {fields[2]}])")
            faults = range_faults(
                np.array([max(abs(start), abs(end))]),
                np.array([end - start]),
                np.array([end > start]),
                "segment",
                smallest=SMALLEST_LENGTH,
                what="length",
            )
            if faults:
                raise invalid(faults[0])
            rows.append((fields[0], label, start, end))
    return rows, reader.report()


def _segments(rows: list[tuple[str, str, float, float]], videos: list[str]) -> TemporalSegments:
    video_id, label, start, end = (list(column) for column in zip(*rows)) if rows else ([], [], [], [])
    return TemporalSegments(video_id=video_id, label=label, start=start, end=end, videos=videos)
