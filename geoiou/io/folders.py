"""Text label files with one record per line, and folders of them read as one `LabelSet`.

DOTA labels, DOTA Task1 submissions and YOLO labels share this shape: a file is a list of lines,
each line one object, and a dataset is a folder of such files (one per image for labels, one per
class for Task1). This module holds what the readers share:

- `line_records` splits a file into its non-blank lines, each with its location (``"line 12"``);
- `settle` passes every record through a `RecordReader` in file order, once the format's reader
  has parsed the records one by one and checked their regions all at once (vectorized), so that an
  invalid region found by the batch check still raises, or is skipped, at its own line;
- `label_set` stacks the columns of several files into one `Annotations` and merges their reports.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from geoiou.errors import FormatError
from geoiou.io.report import ReadReport, RecordReader, invalid, read_text, source_name
from geoiou.regions import Region
from geoiou.tables.annotations import Annotations

__all__ = ["FileColumns", "LabelSet", "label_files", "label_set", "line_records", "parse_records", "settle"]

Parsed = TypeVar("Parsed")
#: A line's location and its whitespace-separated fields.
LineRecord = tuple[str, list[str]]


@dataclass(frozen=True)
class LabelSet:
    """The objects of a set of label files, ready for `evaluate_voc` or `evaluate_coco`.

    Attributes
    ----------
    annotations : Annotations
        One row per object: ``image_id`` (the file stem, or the image named in a Task1 line),
        ``category_id`` (a class name for DOTA, a class index for YOLO), ``region``, ``ignore``
        (DOTA's difficult flags, for ground truth) and ``score`` (for predictions).
    images : tuple of str
        Every image read, sorted, including images without any object (an empty label file): pass
        them as ``images=`` to an evaluation so that false positives on empty images count.
    report : ReadReport
        The records read and skipped over all files; a skipped record's location names its file.
    class_names : dict
        Class index -> name for YOLO folders with a LabelImg ``classes.txt`` (one name per line,
        line k names class k); empty otherwise.

    Examples
    --------
    >>> from importlib.resources import files
    >>> import numpy as np
    >>> from geoiou.evaluation import Annotations, evaluate_voc
    >>> from geoiou.io.dota import read_dota_folder
    >>> truth = read_dota_folder(files("geoiou") / "data" / "dota")
    >>> truth.images[:2], len(truth.annotations), truth.report.read
    (('P0706', 'P0770'), 984, 984)
    >>> rows = truth.annotations
    >>> perfect = Annotations(image_id=rows.image_id, category_id=rows.category_id, region=rows.regions,
    ...                       score=np.ones(len(rows)))
    >>> evaluate_voc(rows, perfect, images=truth.images).mAP
    1.0
    """

    annotations: Annotations
    images: tuple[str, ...]
    report: ReadReport
    #: Class index -> name, from a LabelImg ``classes.txt`` beside YOLO label files (empty otherwise).
    class_names: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class FileColumns:
    """The objects read from one file, as columns for `label_set`.

    Examples
    --------
    >>> import geoiou
    >>> columns = FileColumns("P0001", "plane", geoiou.Box([[0, 0, 2, 2]]), ReadReport("P0001.txt", 1))
    >>> label_set("labels", [columns], ["P0001"]).annotations.category_id.tolist()
    ['plane']
    """

    #: The image of each object (one id for the whole file, or one per row).
    image_id: str | np.ndarray
    #: The category of each object (one for the whole file, or one per row).
    category_id: str | np.ndarray
    #: The regions, a batch of shape (N,).
    region: Region
    #: The report of the file; its source names the file in the merged report.
    report: ReadReport
    score: np.ndarray | None = None
    ignore: np.ndarray | None = None


def label_files(folder: str | os.PathLike[str], pattern: str = "*.txt") -> list[Path]:
    """The files of `folder` (not its subfolders) matching `pattern` in any case, by name; a single file is itself.

    A label file given instead of its folder is read as a folder of one image (its stem).

    Raises
    ------
    FileNotFoundError
        If `folder` is neither an existing directory nor a file.
    FormatError
        Naming the folder, if no file matches.

    Examples
    --------
    >>> from importlib.resources import files
    >>> [path.name for path in label_files(files("geoiou") / "data" / "dota")][:3]
    ['P0706.txt', 'P0770.txt', 'P1088.txt']
    >>> [path.name for path in label_files(files("geoiou") / "data" / "dota" / "P0770.txt")]
    ['P0770.txt']
    """
    directory = Path(folder)
    if directory.is_file():
        return [directory]
    if not directory.is_dir():
        raise FileNotFoundError(f"{source_name(folder)}: no such file or folder")
    # Case-insensitive, as on Windows where such folders are often made: P0002.TXT is a label file too.
    paths = sorted(
        (
            path
            for path in directory.iterdir()
            if fnmatch.fnmatchcase(path.name.lower(), pattern.lower()) and path.is_file()
        ),
        key=lambda path: path.name,
    )
    if not paths:
        raise FormatError(source_name(folder), "", f"the folder holds no label files (none matches {pattern!r})")
    return paths


def line_records(
    path: str | os.PathLike[str], skip: Callable[[list[str]], bool] = lambda fields: False
) -> list[LineRecord]:
    """The non-blank lines of a text file that `skip` does not reject, as ``("line N", fields)``.

    Blank lines carry no record and are passed over silently; line numbers count every line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "labels.txt"
    >>> _ = path.write_text("# header\\n0 0.5 0.5 0.2 0.2\\n\\n1 0.1 0.1 0.1 0.1\\n")
    >>> line_records(path, skip=lambda fields: fields[0].startswith("#"))
    [('line 2', ['0', '0.5', '0.5', '0.2', '0.2']), ('line 4', ['1', '0.1', '0.1', '0.1', '0.1'])]
    """
    records = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        fields = line.split()
        if fields and not skip(fields):
            records.append((f"line {number}", fields))
    return records


def parse_records(records: Sequence[LineRecord], parse: Callable[[list[str]], Parsed]) -> list[Parsed | FormatError]:
    """Parse each record's fields; a record `parse` refuses (raising `invalid`) keeps its error in place.

    The errors are raised, or skipped, later by `settle`, in file order with the faults found by
    the batch checks that run in between.

    Examples
    --------
    >>> from geoiou.io.report import float_field
    >>> records = [("line 1", ["2.5"]), ("line 2", ["x"])]
    >>> first, second = parse_records(records, lambda fields: float_field(fields[0], "x1"))
    >>> first, second.reason
    (2.5, "'x1' must be a number (got 'x')")
    """
    results: list[Parsed | FormatError] = []
    for _, fields in records:
        try:
            results.append(parse(fields))
        except FormatError as error:
            results.append(error)
    return results


def settle(
    reader: RecordReader, records: Sequence[LineRecord], parsed: Sequence[Any], faults: Mapping[int, str] | None = None
) -> list[int]:
    """Pass every record through `reader` in file order; return the indices of the records kept.

    A record fails if its parse failed (`parsed` holds the `FormatError`) or if `faults` gives a
    reason for its index (a fault found by a batch check). Without ``skip_invalid`` the first
    failing record in file order raises; with it, failing records are reported and left out.

    Examples
    --------
    >>> reader = RecordReader("boxes.txt", skip_invalid=True)
    >>> records = [("line 1", ["a"]), ("line 2", ["b"]), ("line 3", ["c"])]
    >>> parsed = ["a", invalid("'x' must be a number (got 'b')"), "c"]
    >>> settle(reader, records, parsed, {2: "'corners' must be distinct"})
    [0]
    >>> print(reader.report().summary())
    boxes.txt: read 1 records, skipped 2
      1 x 'x' must be a number (first at line 2)
      1 x 'corners' must be distinct (first at line 3)
    """
    faults = faults or {}
    kept = []
    for index, ((location, _), value) in enumerate(zip(records, parsed)):
        with reader.record(location):
            if isinstance(value, FormatError):
                raise value
            if index in faults:
                raise invalid(faults[index])
            kept.append(index)
    return kept


def label_set(source: str, files: Sequence[FileColumns], images: Sequence[str]) -> LabelSet:
    """Stack the objects of several files into one `LabelSet`.

    Every file must have scores if one file with objects has them (predictions), and likewise for
    ignore flags; a file that has none of a column that another file has is an error naming both.

    Examples
    --------
    >>> import numpy as np, geoiou
    >>> a = FileColumns("img1", np.array([3, 5]), geoiou.Box([[0, 0, 1, 1], [0, 0, 2, 2]]), ReadReport("img1.txt", 2))
    >>> b = FileColumns("img2", np.zeros(0, int), geoiou.Box(np.zeros((0, 4))), ReadReport("img2.txt", 0))
    >>> labels = label_set("labels", [a, b], ["img1", "img2"])
    >>> labels.annotations.image_id.tolist(), labels.annotations.category_id.tolist(), labels.images
    (['img1', 'img1'], [3, 5], ('img1', 'img2'))
    """
    sizes = [len(columns.region) for columns in files]
    optional = {name: _optional_column(files, sizes, name) for name in ("score", "ignore")}
    pieces = [columns.region for columns, size in zip(files, sizes) if size] or [files[0].region]
    annotations = Annotations(
        image_id=np.concatenate([_per_row(columns.image_id, size) for columns, size in zip(files, sizes)]),
        category_id=np.concatenate([_per_row(columns.category_id, size) for columns, size in zip(files, sizes)]),
        region=pieces,
        **optional,
    )
    return LabelSet(
        annotations, tuple(sorted(set(images))), ReadReport.merge(source, [columns.report for columns in files])
    )


def _per_row(value: str | np.ndarray, size: int) -> np.ndarray:
    """One id per row: a single id is repeated (its dtype kept, so that empty files stack with the others)."""
    if isinstance(value, np.ndarray):
        return value
    return np.full(size, value, dtype=np.array(value).dtype)


def _optional_column(files: Sequence[FileColumns], sizes: list[int], name: str) -> np.ndarray | None:
    """Concatenate a column all files with objects have, None if none has it; a partial column is an error."""
    having = [
        columns.report.source for columns, size in zip(files, sizes) if size and getattr(columns, name) is not None
    ]
    lacking = [columns.report.source for columns, size in zip(files, sizes) if size and getattr(columns, name) is None]
    if having and lacking:
        raise FormatError(
            lacking[0],
            "",
            f"the file has no {name} column while {having[0]} has one: "
            "read predictions and ground truth as separate sets",
        )
    if not having:
        return None
    return np.concatenate([getattr(columns, name) for columns, size in zip(files, sizes) if size])
