"""The fields of COCO's records, declared once: both paths of `geoiou.io.coco` read them from here.

Each kind of record (an image, a category, a dataset annotation, a result) is a tuple of `Field`:
its key, the kind of its value, whether it may be missing, and the text that messages give for
what it must be. Two functions read a field by its kind:

- `field_column` asks a source's columns (`geoiou.io.columns.JsonColumns`) for the field in
  every record at once, and answers None unless every value is plain (the fast path);
- `field_value` checks the field of one record in Python and raises `invalid` naming the field
  and the fault (the record path, which names the faulty record).

So the two paths take the same keys by the same rules, and a rule changed here changes in both.

Examples
--------
>>> from geoiou.io.columns import ObjectColumns
>>> [field.key for field in read_fields(RESULT, "bbox")]
['image_id', 'category_id', 'score', 'bbox']
>>> records = [{"image_id": 1, "category_id": 2, "score": 0.5, "bbox": [0, 0, 2, 3]}]
>>> read_columns(ObjectColumns(records), records, read_fields(RESULT, "bbox"))["bbox"]
array([[0., 0., 2., 3.]])
>>> record_values({**records[0], "score": "high"}, read_fields(RESULT, "bbox"))
Traceback (most recent call last):
...
geoiou.errors.FormatError: 'score' must be a finite number (got 'high')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from geoiou._distinct import all_distinct
from geoiou._validation import LARGEST_COORDINATE, WITHIN_RANGE, describe, is_finite_number
from geoiou.io.columns import JsonColumns, Values
from geoiou.errors import FormatError
from geoiou.io.report import invalid

__all__ = [
    "ANNOTATION",
    "AREA",
    "CATEGORY",
    "IMAGE",
    "RESULT",
    "Field",
    "Rle",
    "field_column",
    "field_value",
    "is_integer",
    "read_columns",
    "read_fields",
    "record_values",
    "unique_key",
]

#: What a field's value is: a JSON integer within 64 bits (not a bool), a finite number, a 0/1
#: flag, a string, a box ``[x, y, w, h]`` or a segmentation (polygon parts or an RLE).
Kind = Literal["integer", "number", "flag", "string", "box", "segmentation"]
#: The file's tables an id may have to be one of: ``{"images": {id: ...}, "categories": {id: ...}}``.
Tables = Mapping[str, Mapping[int, Any]]
NO_TABLES: Tables = {}

AN_INTEGER = "an integer"
BBOX = "4 numbers [x, y, w, h]"
SEGMENTATION = "a non-empty list of polygons or an RLE dict {'size': [h, w], 'counts': ...}"
POLYGON_PART = "a flat list of coordinates x1, y1, x2, y2, ... of at least 3 points"


@dataclass(frozen=True)
class Field:
    """One field of a COCO record: its key, the kind of its value, and what messages say it must be.

    Attributes
    ----------
    key : str
    kind : {"integer", "number", "flag", "string", "box", "segmentation"}
        See `Kind`.
    expected : str
        What the value must be, as messages say it: ``'score' must be a finite number (got 'high')``;
        also said when the key is missing.
    minimum : float or None
        The least value of an integer or a number.
    below : str
        What messages say of a value below `minimum` (``a positive integer``); `expected` if empty.
    default : int or None
        The value of a missing key (of an integer or a flag); None: the key is required (unless `optional`).
    optional : bool
        The key may be missing, but then from every record of the file (COCOeval needs all or none).
    unique : bool
        No two records of the file have the same value.
    among : str
        The table (``"images"``, ``"categories"``) whose ids the value must be one of.

    Examples
    --------
    >>> IMAGE[0].key, IMAGE[0].expected, IMAGE[0].minimum, IMAGE[0].below
    ('height', 'an integer', 1, 'a positive integer')
    >>> field_value({"height": 0}, IMAGE[0])
    Traceback (most recent call last):
    ...
    geoiou.errors.FormatError: 'height' must be a positive integer (got 0)
    """

    key: str
    kind: Kind
    expected: str
    minimum: float | None = None
    below: str = ""
    default: int | None = None
    optional: bool = False
    unique: bool = False
    among: str = ""


#: The geometry of an annotation or a result: one of the two is read (`read_fields`).
GEOMETRY = (Field("bbox", "box", BBOX), Field("segmentation", "segmentation", SEGMENTATION))
#: An image of a dataset. The record path checks the fields in tuple order and names a record's
#: first fault: an image's size before its id, as the reader always has.
IMAGE = (
    Field("height", "integer", AN_INTEGER, minimum=1, below="a positive integer"),
    Field("width", "integer", AN_INTEGER, minimum=1, below="a positive integer"),
    Field("id", "integer", AN_INTEGER, unique=True),
)
CATEGORY = (Field("name", "string", "a string"), Field("id", "integer", AN_INTEGER, unique=True))
#: An annotation's own area, which COCOeval's area ranges use (else the region's measure is used).
AREA = Field("area", "number", "a non-negative number", minimum=0.0, optional=True)
ANNOTATION = (
    Field("id", "integer", AN_INTEGER, unique=True),
    Field("image_id", "integer", AN_INTEGER, among="images"),
    Field("category_id", "integer", AN_INTEGER, among="categories"),
    Field("iscrowd", "flag", "0 or 1", default=0),  # COCOeval reads a missing "iscrowd" as 0
    AREA,
    *GEOMETRY,
)
#: A prediction of a result file: its ids are not checked against a dataset (it has no tables).
RESULT = (
    Field("image_id", "integer", AN_INTEGER),
    Field("category_id", "integer", AN_INTEGER),
    Field("score", "number", "a finite number"),
    *GEOMETRY,
)


def read_fields(fields: Sequence[Field], geometry: str) -> tuple[Field, ...]:
    """The fields of a record kind that are read: of its geometry fields, only `geometry`.

    Examples
    --------
    >>> [field.key for field in read_fields(ANNOTATION, "segmentation")]
    ['id', 'image_id', 'category_id', 'iscrowd', 'area', 'segmentation']
    """
    return tuple(field for field in fields if field not in GEOMETRY or field.key == geometry)


def unique_key(fields: Sequence[Field]) -> str:
    """The key of the record kind's unique field (its id).

    Examples
    --------
    >>> unique_key(CATEGORY)
    'id'
    """
    (key,) = [field.key for field in fields if field.unique]
    return key


# --------------------------------------------------------------------------- the column path
def read_columns(
    columns: JsonColumns, records: Values, fields: Sequence[Field], tables: Tables = NO_TABLES
) -> dict[str, Any] | None:
    """The column of each field of `records` (see `field_column`); None unless every record is plain.

    The keys are found in one walk over the records. An optional field that no record has reads
    as None; one that only some records have is not plain (the record path names the others).

    Examples
    --------
    >>> from geoiou.io.columns import ObjectColumns
    >>> records = [{"id": 1, "name": "cat"}, {"id": 2, "name": "dog"}]
    >>> read_columns(ObjectColumns(records), records, CATEGORY)
    {'name': ['cat', 'dog'], 'id': array([1, 2])}
    >>> read_columns(ObjectColumns(records), [*records, {"id": 2, "name": "cow"}], CATEGORY) is None  # id twice
    True
    """
    keys = tuple(field.key for field in fields if field.default is None)
    found = dict(zip(keys, columns.fields(records, keys)))
    read: dict[str, Any] = {}
    for field in fields:
        values = found.get(field.key)
        if values is None and field.optional and not columns.count_having(records, field.key):
            read[field.key] = None
            continue
        column = field_column(columns, records, values, field, tables)
        if column is None:
            return None
        read[field.key] = column
    return read


def field_column(
    columns: JsonColumns, records: Values, values: Values | None, field: Field, tables: Tables = NO_TABLES
) -> Any:
    """One field of every record, read and checked by its kind; None unless each value is plain.

    `values` are the field's values (None when some record lacks the key). Integers, numbers and
    flags come as arrays, strings as a list, boxes as ``(n, 4)`` rows; segmentations are given
    back as values, which the reader makes into regions (against its images' sizes).

    Examples
    --------
    >>> from geoiou.io.columns import ObjectColumns
    >>> records = [{"score": 0.5}, {"score": True}]
    >>> columns = ObjectColumns(records)
    >>> field_column(columns, records, [0.5, 1], RESULT[2])
    array([0.5, 1. ])
    >>> field_column(columns, records, [0.5, True], RESULT[2]) is None  # a bool: the record path names it
    True
    """
    if field.kind == "string":
        return columns.strings(values)
    if field.kind == "segmentation":
        return values
    if field.kind == "box":
        boxes = columns.number_rows(values, 4)
        return None if boxes is None or (boxes[:, 2:] < 0).any() else boxes
    if field.default is not None:  # a missing key reads as the default
        column = columns.integers_or(records, field.key, field.default)
    else:
        column = columns.numbers(values) if field.kind == "number" else columns.integers(values)
    if column is None or not _plain_column(column, field, tables):
        return None
    return column.astype(bool) if field.kind == "flag" else column


def _plain_column(column: np.ndarray, field: Field, tables: Tables) -> bool:
    """Whether a column of integers or numbers keeps the field's rules: flag, minimum, unique, among."""
    if field.kind == "flag" and ((column != 0) & (column != 1)).any():
        return False
    if field.minimum is not None and (column < field.minimum).any():
        return False
    if field.unique and not all_distinct(column):
        return False
    if field.among:
        table = tables[field.among]
        return bool(np.isin(column, np.fromiter(table, np.int64, len(table))).all())
    return True


# --------------------------------------------------------------------------- the record path
def record_values(record: Any, fields: Sequence[Field], tables: Tables = NO_TABLES) -> dict[str, Any]:
    """The checked value of each field of one record (see `field_value`); the first fault, in field order, raises.

    Examples
    --------
    >>> record_values({"id": 3, "height": 480, "width": 640}, IMAGE)
    {'height': 480, 'width': 640, 'id': 3}
    >>> record_values([3, 480, 640], IMAGE)
    Traceback (most recent call last):
    ...
    geoiou.errors.FormatError: the record must be a JSON object (got [3, 480, 640])
    """
    if not isinstance(record, Mapping):
        raise invalid(f"the record must be a JSON object (got {describe(record)})")
    return {field.key: field_value(record, field, tables) for field in fields}


def field_value(record: Mapping[str, Any], field: Field, tables: Tables = NO_TABLES) -> Any:
    """One field of one record, checked by its kind; a fault raises `invalid` naming the field.

    Integers come as ``int``, numbers as ``float``, flags as ``bool``, boxes as 4 floats, polygon
    segmentations as a list of vertex arrays ``(n, 2)`` and RLEs as an `Rle`; an optional field
    that is missing as None.

    Examples
    --------
    >>> field_value({"image_id": 9}, ANNOTATION[1], {"images": {1: (4, 6)}})
    Traceback (most recent call last):
    ...
    geoiou.errors.FormatError: 'image_id' must be the id of one of the file's images (got 9)
    >>> field_value({}, ANNOTATION[3]), field_value({}, ANNOTATION[4])  # a missing iscrowd is 0; area is optional
    (False, None)
    """
    if field.key in record:
        value = record[field.key]
    elif field.default is not None:
        value = field.default
    elif field.optional:
        return None
    else:
        raise invalid(f"'{field.key}' must be {field.expected} (got nothing: the key is missing)")
    return _CHECKS[field.kind](value, field, tables)


def is_integer(value: Any) -> bool:
    """A JSON integer (NumPy integers too, for documents built in Python); a bool is an int to Python, not an id.

    Examples
    --------
    >>> is_integer(3), is_integer(np.int64(3)), is_integer(True), is_integer(3.0)
    (True, True, False, False)
    """
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _fault(field: Field, value: Any) -> FormatError:
    """The fault of a value that is not what the field expects."""
    return invalid(f"'{field.key}' must be {field.expected} (got {describe(value)})")


def _integer(value: Any, field: Field, tables: Tables) -> int:
    """An integer field's value, held as int64 (hence at most 64 bits), within the field's range."""
    if not is_integer(value):
        raise _fault(field, value)
    if not -(2**63) <= value < 2**63:
        raise invalid(f"'{field.key}' must be {field.expected} of at most 64 bits (got {describe(value)})")
    _check_range(int(value), field, tables)
    return int(value)


def _number(value: Any, field: Field, tables: Tables) -> float:
    """A number field's value, finite and within the field's range."""
    if not is_finite_number(value):
        raise _fault(field, value)
    _check_range(value, field, tables)
    return float(value)


def _flag(value: Any, field: Field, tables: Tables) -> bool:
    """A flag's value: 0 or 1, written as an integer, a float or a bool."""
    if type(value) not in (int, bool, float) or value not in (0, 1):
        raise _fault(field, value)
    return bool(value)


def _string(value: Any, field: Field, tables: Tables) -> str:
    """A string field's value."""
    if not isinstance(value, str):
        raise _fault(field, value)
    return value


def _check_range(value: Any, field: Field, tables: Tables) -> None:
    """Raise unless `value` is at least the field's minimum and, for an id of a table, one of its ids."""
    if field.minimum is not None and value < field.minimum:
        raise invalid(f"'{field.key}' must be {field.below or field.expected} (got {describe(value)})")
    if field.among and value not in tables[field.among]:
        raise invalid(f"'{field.key}' must be the id of one of the file's {field.among} (got {describe(value)})")


def _bbox(value: Any, field: Field, tables: Tables) -> tuple[float, float, float, float]:
    """A box field's 4 numbers; x + w and y + h must be finite too, as the box is stored by its corners."""
    if not (
        isinstance(value, list)
        and len(value) == 4
        and all(is_finite_number(v) for v in value)
        and math.isfinite(value[0] + value[2])
        and math.isfinite(value[1] + value[3])
    ):
        raise _fault(field, value)
    if value[2] < 0 or value[3] < 0:
        raise invalid(f"'{field.key}' must have a non-negative width and height (got {describe(value)})")
    x, y, width, height = (float(v) for v in value)
    return x, y, width, height


@dataclass(frozen=True)
class Rle:
    """A segmentation given as RLE, with its size ``(h, w)``; its counts are checked with the others' by the reader.

    Examples
    --------
    >>> field_value({"segmentation": {"size": [2, 3], "counts": "06"}}, GEOMETRY[1]).size
    (2, 3)
    """

    rle: Mapping[str, Any]
    size: tuple[int, int]


def _segmentation(value: Any, field: Field, tables: Tables) -> list[np.ndarray] | Rle:
    """Polygon parts as vertex arrays ``(n, 2)``, or an `Rle` (whose size the reader compares with its image's)."""
    if isinstance(value, Mapping):
        return _rle(value, field)
    if not isinstance(value, list) or not value:
        raise _fault(field, value)
    return [_polygon_part(part, f"{field.key}[{k}]") for k, part in enumerate(value)]


def _polygon_part(part: Any, name: str) -> np.ndarray:
    """One polygon part's vertices ``(n, 2)``, a closing vertex written again at the end dropped."""
    numbers = isinstance(part, list) and all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in part
    )
    try:  # strings such as "2" are not coordinates, though NumPy would convert them
        values = np.asarray(part, dtype=np.float64) if numbers else None
    except (TypeError, ValueError, OverflowError):
        values = None
    if values is None or values.ndim != 1 or values.size % 2:
        raise invalid(f"'{name}' must be {POLYGON_PART} (got {describe(part)})")
    if not np.isfinite(values).all():
        raise invalid(f"'{name}' must hold finite numbers (got {describe(part)})")
    if not (np.abs(values) <= LARGEST_COORDINATE).all():  # areas would overflow: Polygon refuses such coordinates
        raise invalid(f"'{name}' must hold {WITHIN_RANGE} (got {np.abs(values).max():.6g})")
    vertices = values.reshape(-1, 2)
    while len(vertices) > 1 and (vertices[0] == vertices[-1]).all():
        vertices = vertices[:-1]  # a ring may repeat its first vertex at the end
    if len(vertices) < 3:
        raise invalid(f"'{name}' must be {POLYGON_PART} (got {describe(part)})")
    return vertices


def _rle(value: Mapping[str, Any], field: Field) -> Rle:
    """An RLE segmentation with its size: two non-negative integers ``[h, w]``."""
    if "size" not in value or "counts" not in value:
        raise _fault(field, value)
    size = value["size"]
    if not (isinstance(size, list) and len(size) == 2 and all(is_integer(n) and n >= 0 for n in size)):
        raise invalid(f"'{field.key}.size' must be two non-negative integers [h, w] (got {describe(size)})")
    return Rle(value, (int(size[0]), int(size[1])))


#: The check of each kind of field, for `field_value`.
_CHECKS: dict[str, Callable[[Any, Field, Tables], Any]] = {
    "integer": _integer,
    "number": _number,
    "flag": _flag,
    "string": _string,
    "box": _bbox,
    "segmentation": _segmentation,
}
