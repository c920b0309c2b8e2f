"""Results as ``loadRes`` was given them, read by geoiou's readers, their dicts parsed only when something reads them.

pycocotools' ``loadRes`` parses a result file into dicts and fills them in; an evaluation needs
none of that. A `ResultSource` answers what the evaluation asks (the results' columns and regions
of one geometry, `read`; which results hold a field, `having`; the first result's reading,
`branch`) from a list of dicts (`RecordSource`) or from a file (`FileSource`): there
`read_coco_results` reads the file's bytes (144,000 boxes in about 0.06 s, six times faster than
parsing them into dicts), and the dicts are parsed only when ``dataset`` or the index is read.
`TakenSource` is some of a source's results (lvis-api keeps 300 per image).
"""

from __future__ import annotations

import json
import operator
from functools import cached_property
from itertools import repeat
from typing import Any, Literal

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.errors import FormatError, InvalidTypeError
from geoiou.io import read_coco_results
from geoiou.io.columns import integer_column, json_columns, number_column
from geoiou.io.json_documents import load_json_document, open_json
from geoiou.tables.annotations import Annotations

__all__ = ["FileSource", "RecordSource", "ResultSource", "TakenSource", "file_source", "result_branch"]

Geometry = Literal["bbox", "segmentation"]
#: A result's image id.
_IMAGE_ID = operator.itemgetter("image_id")


def result_branch(records: list[Any]) -> str:
    """Which of loadRes' readings the first result asks for: ``bbox``, ``segmentation``, ``keypoints`` or ``rbox``.

    Examples
    --------
    >>> result_branch([{"bbox": [], "segmentation": {"size": [1, 1], "counts": "1"}}])  # an empty box is no box
    'segmentation'
    """
    if not records:
        return "bbox"
    first = records[0]
    if "bbox" in first and not first["bbox"] == []:
        return "bbox"
    for key in ("segmentation", "keypoints", "rbox"):
        if key in first:
            return key
    raise invalid_argument(
        "results",
        "detections with a 'bbox', a 'segmentation', 'keypoints' or an 'rbox' (captions are not evaluated here)",
        first,
    )


class ResultSource:
    """Results as given to ``loadRes``: their count, `branch`, dicts (`records`), `read`, `having` and `take`."""

    def __len__(self) -> int:
        raise NotImplementedError

    @property
    def branch(self) -> str:
        """`result_branch` of the results as given."""
        raise NotImplementedError

    @property
    def records(self) -> list[Any]:
        """The result dicts, in order (parsed from a file on first use)."""
        raise NotImplementedError

    def read(self, geometry: Geometry) -> Annotations:
        """The results read by `read_coco_results` with their ``bbox`` or ``segmentation`` as regions."""
        raise NotImplementedError

    def having(self, key: str) -> np.ndarray:
        """Whether each result holds `key`, as given (before ``loadRes`` fills fields in)."""
        raise NotImplementedError

    def image_scores(self) -> tuple[np.ndarray, np.ndarray]:
        """Each result's image id and score (an `InvalidArgumentError` unless integers and finite numbers)."""
        raise NotImplementedError

    def image_ids(self) -> set[Any]:
        """The image ids of the results (a result without one is a `KeyError`, as in pycocotools)."""
        return set(map(_IMAGE_ID, self.records))

    def take(self, rows: np.ndarray) -> ResultSource:
        """The results at `rows`, in that order."""
        return TakenSource(self, rows)


class RecordSource(ResultSource):
    """Results given as a list of dicts.

    Examples
    --------
    >>> source = RecordSource([{"image_id": 1, "category_id": 2, "bbox": [0, 0, 2, 2], "score": 0.5}])
    >>> source.branch, source.having("segmentation"), source.read("bbox").regions[0].area
    ('bbox', array([False]), array([4.]))
    """

    def __init__(self, records: list[Any]) -> None:
        self._records = records
        self._branch = result_branch(records)
        # Taken now: loadRes later writes a box or a polygon into the results that lack one.
        self._having = {key: self._holding(key) for key in ("bbox", "segmentation")}
        self._read: dict[str, Annotations] = {}

    def _holding(self, key: str) -> np.ndarray:
        return np.fromiter(map(operator.contains, self._records, repeat(key)), bool, len(self._records))

    def __len__(self) -> int:
        return len(self._records)

    @property
    def branch(self) -> str:
        return self._branch

    @property
    def records(self) -> list[Any]:
        return self._records

    def read(self, geometry: Geometry) -> Annotations:
        if geometry not in self._read:
            self._read[geometry] = read_coco_results(self._records, geometry=geometry).annotations
        return self._read[geometry]

    def having(self, key: str) -> np.ndarray:
        return self._having[key] if key in self._having else self._holding(key)

    def image_scores(self) -> tuple[np.ndarray, np.ndarray]:
        columns = json_columns(self._records, ("image_id", "score"))
        image = integer_column(columns["image_id"]) if columns else None
        score = number_column(columns["score"]) if columns else None
        if image is None or score is None:
            raise invalid_argument(
                "results", "dicts with an integer 'image_id' and a finite 'score'", self._records[:1]
            )
        return image, score


def file_source(path: Any) -> ResultSource:
    """The results of a JSON file: read from its bytes (`FileSource`) when they are boxes or masks, else parsed into
    dicts (keypoints, rotated boxes, or a record the reader refuses, which the evaluation then names).

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "results.json"
    >>> _ = path.write_text(json.dumps([{"image_id": 1, "category_id": 2, "bbox": [0, 0, 2, 2], "score": 0.5}]))
    >>> source = file_source(path)
    >>> type(source).__name__, source.branch, len(source)
    ('FileSource', 'bbox', 1)
    >>> _ = path.write_text(json.dumps([{"image_id": 1, "category_id": 1, "keypoints": [1, 1, 2], "score": 0.5}]))
    >>> type(file_source(path)).__name__
    'RecordSource'
    """
    try:
        return FileSource(path)
    except FormatError:
        document, _ = load_json_document(path, skip_invalid=False)
    if not isinstance(document, list):
        raise InvalidTypeError(f"results must be a list of objects, a file of one or an N x 7 array (got {path!r})")
    return RecordSource(document)


class FileSource(ResultSource):
    """Results of a JSON file of boxes or masks, read by `read_coco_results` from its bytes; the dicts are parsed
    only when asked for. `FormatError` if the reader refuses the file (`file_source` then parses it)."""

    def __init__(self, path: Any) -> None:
        self.path = path
        first = read_coco_results(path)  # boxes, or masks where every result has one
        self._read: dict[str, Annotations] = {first.geometry: first.annotations}
        self._first_geometry = first.geometry
        self._branch: str | None = None
        self._counts: dict[str, int] = {}  # how many results hold a field

    def __len__(self) -> int:
        return len(self._read[self._first_geometry])

    def _tape(self) -> tuple[Any, Any]:
        """The columns of the file's bytes and its results, to ask which hold a field. The file is tokenized again
        each time (rarely: what is asked is kept), so that its tokens are not held."""
        columns = open_json(self.path, skip_invalid=False).columns
        found = None if columns is None else columns.elements(columns.root())
        if found is None:  # pragma: no cover - read_coco_results has read this file as a list of records
            raise FormatError(str(self.path), "", "a list of results")
        return columns, found[0]

    def branch_of(self, row: int) -> str:
        """`result_branch` of result `row` alone."""
        if self._first_geometry == "bbox":  # every result has a box of four numbers
            return "bbox"
        if row == 0:
            first = _first_record(self.path)
            if first is not None:
                return result_branch([first])
        columns, results = self._tape()
        box = columns.field(columns.select(results, np.array([row])), "bbox")
        elements = None if box is None else columns.elements(box)
        return "bbox" if elements is not None and elements[1][0] > 0 else "segmentation"

    @property
    def branch(self) -> str:
        if self._branch is None:
            self._branch = self.branch_of(0) if len(self) else "bbox"
        return self._branch

    @cached_property
    def records(self) -> list[Any]:
        document, _ = load_json_document(self.path, skip_invalid=False)
        records: list[Any] = document
        return records

    def read(self, geometry: Geometry) -> Annotations:
        if geometry not in self._read:
            self._read[geometry] = read_coco_results(self.path, geometry=geometry).annotations
        return self._read[geometry]

    def having(self, key: str) -> np.ndarray:
        if key in self._read:  # read by the reader: every result has one
            return np.ones(len(self), dtype=bool)
        if key not in self._counts:
            columns, results = self._tape()
            self._counts[key] = columns.count_having(results, key)
        count = self._counts[key]
        if count in (0, len(self)):
            return np.full(len(self), count > 0)
        # Some hold it and some do not: their dicts say which, parsed apart from those loadRes fills in.
        document, _ = load_json_document(self.path, skip_invalid=False)
        return np.fromiter(map(operator.contains, document, repeat(key)), bool, len(document))

    def image_scores(self) -> tuple[np.ndarray, np.ndarray]:
        read = self._read[self._first_geometry]
        return read.image_id, np.asarray(read.score)

    def image_ids(self) -> set[Any]:
        return set(self._read[self._first_geometry].image_id.tolist())


class TakenSource(ResultSource):
    """The results of `base` at `rows`, in that order (lvis-api's results kept per image).

    Examples
    --------
    >>> base = RecordSource([{"image_id": 1, "category_id": 2, "bbox": [0, 0, 2, 2], "score": s} for s in (0.2, 0.9)])
    >>> taken = base.take(np.array([1]))
    >>> len(taken), taken.records[0]["score"], taken.read("bbox").score
    (1, 0.9, array([0.9]))
    """

    def __init__(self, base: ResultSource, rows: np.ndarray) -> None:
        self.base, self.rows = base, np.asarray(rows, dtype=np.int64)
        # Dicts are read now, before loadRes writes a box into those that lack one; a file's bytes, when asked.
        self._branch = None if isinstance(base, FileSource) else result_branch(self.records[:1])

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def branch(self) -> str:
        if self._branch is None:
            assert isinstance(self.base, FileSource)  # the others' branch is read at once
            self._branch = self.base.branch_of(int(self.rows[0])) if len(self.rows) else "bbox"
        return self._branch

    @cached_property
    def records(self) -> list[Any]:
        return list(map(self.base.records.__getitem__, self.rows.tolist()))

    def read(self, geometry: Geometry) -> Annotations:
        return _reordered(self.base.read(geometry), self.rows)

    def having(self, key: str) -> np.ndarray:
        flags: np.ndarray = self.base.having(key)[self.rows]
        return flags

    def image_scores(self) -> tuple[np.ndarray, np.ndarray]:
        image, score = self.base.image_scores()
        return image[self.rows], score[self.rows]

    def image_ids(self) -> set[Any]:
        return set(self.image_scores()[0].tolist())


def _reordered(read: Annotations, rows: np.ndarray) -> Annotations:
    """The results `rows` of `read`, in that order (`Annotations.take` keeps the table's order).

    Examples
    --------
    >>> from geoiou import Box
    >>> read = Annotations(image_id=[1, 2], category_id=3, region=Box([[0, 0, 1, 1], [0, 0, 2, 2]]), score=[0.5, 0.7])
    >>> _reordered(read, np.array([1, 0])).score
    array([0.7, 0.5])
    """
    pieces = read.regions
    if len({type(piece) for piece in pieces}) > 1:
        kinds = sorted({type(piece).__name__ for piece in pieces})
        raise invalid_argument("results", "boxes or masks, one kind in all results", f"a mix of {', '.join(kinds)}")
    region = pieces[0] if len(pieces) == 1 else type(pieces[0]).concatenate(list(pieces))
    return Annotations(
        image_id=read.image_id[rows],
        category_id=read.category_id[rows],
        region=region[rows],
        score=np.asarray(read.score)[rows],
    )


#: Bytes read to find a result file's first record (one with a larger mask is found on the file's tape).
FIRST_RECORD_BYTES = 1 << 16


def _first_record(path: Any) -> Any:
    """The first record of a result file that `read_coco_results` has read (a JSON list of objects), parsed from the
    file's first bytes alone; None if it does not end within them.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "results.json"
    >>> _ = path.write_text(' [ {"image_id": 1, "bbox": [0, 0, 1, 1]}, {"image_id": 2}]')
    >>> _first_record(path)
    {'image_id': 1, 'bbox': [0, 0, 1, 1]}
    """
    with open(path, "rb") as handle:
        text = handle.read(FIRST_RECORD_BYTES).decode("utf-8-sig", errors="ignore")  # a character cut at the end
    try:
        record, _ = json.JSONDecoder().raw_decode(text, text.index("{"))
    except (ValueError, json.JSONDecodeError):
        return None
    return record
