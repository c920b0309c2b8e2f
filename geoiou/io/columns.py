"""Columns of JSON values, read and checked at C speed: the fast path of the JSON readers.

A JSON reader turns a list of records into columns. Reading each record in Python costs
microseconds, which a million predictions make into seconds. The readers write their column
logic once, against `JsonColumns`, which two sources implement:

- a file's `geoiou.io.json_tape.Tape`, whose values are tokens of the file's bytes (compiled);
- `ObjectColumns` for a document already parsed into Python (a dict or list passed to a
  reader): a column is taken with ``map(itemgetter(key), records)`` and checked with
  ``map(type, column)``, loops that run inside the interpreter's C code.

Each method answers None when the values are not of the plain form it checks (a missing key, a
bool where an integer belongs, a string, an integer beyond 64 bits): the reader then reads the
records one by one, which names the faulty record, so both paths accept exactly the same files
and give the same regions.

Examples
--------
>>> records = [{"image_id": 1, "score": 0.5, "bbox": [0, 0, 2, 3]}, {"image_id": 2, "score": 1, "bbox": [1, 1, 1, 1]}]
>>> columns = json_columns(records, ("image_id", "score", "bbox"))
>>> integer_column(columns["image_id"]), number_column(columns["score"])
(array([1, 2]), array([0.5, 1. ]))
>>> number_rows(columns["bbox"], 4)
array([[0., 0., 2., 3.],
       [1., 1., 1., 1.]])
>>> integer_column([1, True]) is None  # a bool is not an id: the record-by-record reader says so
True
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from itertools import chain, repeat
from typing import Any, Protocol

import numpy as np

from geoiou import rle
from geoiou.errors import InvalidRegionError

__all__ = [
    "JsonColumns",
    "ObjectColumns",
    "all_of_type",
    "integer_column",
    "json_columns",
    "number_column",
    "number_rows",
]

#: Values of a source: token indices (an array) for a tape, Python objects (a list) for a parsed document.
Values = Any

_INTEGER_TYPES = frozenset({int})
_NUMBER_TYPES = frozenset({int, float})


def all_of_type(values: Any, kind: type) -> bool:
    """Whether every value is exactly of type `kind` (not a subclass: a bool is not an int here)."""
    return not any(map(operator.is_not, map(type, values), repeat(kind)))


def json_columns(records: Sequence[Any], keys: Sequence[str]) -> dict[str, list[Any]] | None:
    """``{key: [record[key] for record in records]}``, or None if a record is not a dict holding every key."""
    if not all_of_type(records, dict):
        return None
    try:
        return {key: list(map(operator.itemgetter(key), records)) for key in keys}
    except KeyError:
        return None


def integer_column(values: Sequence[Any]) -> np.ndarray | None:
    """The values as int64, if all are plain JSON integers within 64 bits; else None."""
    return _typed_column(values, _INTEGER_TYPES, np.int64)


def number_column(values: Sequence[Any]) -> np.ndarray | None:
    """The values as float64, if all are finite JSON numbers (not bools); else None."""
    array = _typed_column(values, _NUMBER_TYPES, np.float64)
    return array if array is not None and np.isfinite(array).all() else None


def _typed_column(values: Sequence[Any], types: frozenset[type], dtype: type) -> np.ndarray | None:
    """The values as one array of `dtype` if each is exactly of one of `types` and fits it; else None."""
    if not set(map(type, values)) <= types:
        return None
    try:
        return np.array(values, dtype=dtype).reshape(len(values))
    except OverflowError:  # an integer beyond int64 or float64
        return None


def number_rows(values: Sequence[Any], width: int) -> np.ndarray | None:
    """``(n, width)`` float64 from lists of `width` finite JSON numbers each; else None."""
    if not all_of_type(values, list) or any(map(operator.ne, map(len, values), repeat(width))):
        return None
    flat = number_column(list(chain.from_iterable(values)))
    return None if flat is None else flat.reshape(len(values), width)


class JsonColumns(Protocol):
    """What a reader asks of its source: values of all records at once, None where one is not plain."""

    def root(self) -> Values:
        """The top value, as values (one)."""

    def is_object(self, values: Values) -> np.ndarray:
        """Whether each value is a JSON object."""

    def is_array(self, values: Values) -> np.ndarray:
        """Whether each value is a JSON array."""

    def select(self, values: Values, rows: np.ndarray) -> Values:
        """The values at `rows`."""

    def elements(self, arrays: Values | None) -> tuple[Values, np.ndarray] | None:
        """The elements of the arrays end to end and how many each has; None unless all are arrays."""

    def members(self, objects: Values) -> tuple[Values, Values, np.ndarray] | None:
        """The keys and values of the objects end to end and how many each has; None unless all are objects."""

    def field(self, objects: Values, key: str) -> Values | None:
        """The value of `key` in each object; None unless every value is an object that has it."""

    def fields(self, objects: Values, keys: tuple[str, ...]) -> list[Values | None]:
        """`field` of each key (in one walk where the source can)."""

    def count_having(self, objects: Values, key: str) -> int:
        """How many of the objects have `key`."""

    def integers_or(self, objects: Values, key: str, default: int) -> np.ndarray | None:
        """The integer at `key` of each object, `default` where missing; None if one is not an integer."""

    def integers(self, values: Values | None) -> np.ndarray | None:
        """The values as int64, if each is a JSON integer within 64 bits."""

    def numbers(self, values: Values | None) -> np.ndarray | None:
        """The values as float64, if each is a finite JSON number."""

    def number_rows(self, values: Values | None, width: int) -> np.ndarray | None:
        """``(n, width)`` float64 from arrays of `width` finite numbers each."""

    def strings(self, values: Values | None) -> list[str] | None:
        """The values, if each is a string."""

    def rle_runs(self, rles: Values, sizes: np.ndarray) -> rle.Runs | None:
        """The runs of RLE objects whose ``"size"`` values are `sizes`, if each is a valid RLE."""


class ObjectColumns:
    """`JsonColumns` of a document parsed into Python objects (the values are lists of objects).

    Examples
    --------
    >>> columns = ObjectColumns([{"id": 1, "box": [0, 0, 2, 3]}, {"id": 2, "box": [1, 1, 1, 1]}])
    >>> records, _ = columns.elements(columns.root())
    >>> columns.integers(columns.field(records, "id")), columns.number_rows(columns.field(records, "box"), 4)[1]
    (array([1, 2]), array([1., 1., 1., 1.]))
    """

    def __init__(self, document: Any) -> None:
        self.document = document

    def root(self) -> list[Any]:
        return [self.document]

    def is_object(self, values: list[Any]) -> np.ndarray:
        return np.fromiter(map(operator.is_, map(type, values), repeat(dict)), bool, len(values))

    def is_array(self, values: list[Any]) -> np.ndarray:
        return np.fromiter(map(operator.is_, map(type, values), repeat(list)), bool, len(values))

    def select(self, values: list[Any], rows: np.ndarray) -> list[Any]:
        return list(map(values.__getitem__, rows.tolist()))

    def elements(self, arrays: list[Any] | None) -> tuple[list[Any], np.ndarray] | None:
        if arrays is None or not all_of_type(arrays, list):
            return None
        return list(chain.from_iterable(arrays)), np.fromiter(map(len, arrays), np.int64, len(arrays))

    def members(self, objects: list[Any]) -> tuple[list[Any], list[Any], np.ndarray] | None:
        if not all_of_type(objects, dict):
            return None
        keys = list(chain.from_iterable(objects))
        values = list(chain.from_iterable(map(dict.values, objects)))
        return keys, values, np.fromiter(map(len, objects), np.int64, len(objects))

    def field(self, objects: list[Any], key: str) -> list[Any] | None:
        columns = json_columns(objects, (key,))
        return None if columns is None else columns[key]

    def fields(self, objects: list[Any], keys: tuple[str, ...]) -> list[list[Any] | None]:
        return [self.field(objects, key) for key in keys]

    def count_having(self, objects: list[Any], key: str) -> int:
        return sum(map(operator.contains, objects, repeat(key)))

    def integers_or(self, objects: list[Any], key: str, default: int) -> np.ndarray | None:
        if not all_of_type(objects, dict):
            return None
        return integer_column(list(map(operator.methodcaller("get", key, default), objects)))

    def integers(self, values: list[Any] | None) -> np.ndarray | None:
        return None if values is None else integer_column(values)

    def numbers(self, values: list[Any] | None) -> np.ndarray | None:
        return None if values is None else number_column(values)

    def number_rows(self, values: list[Any] | None, width: int) -> np.ndarray | None:
        return None if values is None else number_rows(values, width)

    def strings(self, values: list[Any] | None) -> list[str] | None:
        return values if values is not None and all_of_type(values, str) else None

    def rle_runs(self, rles: list[Any], sizes: np.ndarray) -> rle.Runs | None:
        try:
            return rle.to_runs(rles)
        except InvalidRegionError:
            return None
