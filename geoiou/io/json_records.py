"""A JSON list of flat records with one set of keys, read straight into a column per key.

Result files (COCO's predictions, and most lists a program writes) are a list of objects that
repeat the keys of the first, in its order, each holding a number, a string, ``true``,
``false``, ``null`` or a list of numbers. `FlatRecords.of` reads such a text in one compiled
pass per piece of the file (on every thread, cut between records as the tokenizer cuts a list),
writing each value where its key's column wants it: no token per key, bracket or element, and no
later walk to find the keys. Numbers are read afterwards by `geoiou.io.decimals`, the tokenizer's
own reader, so they have the bits the tape gives them.

Anything else (another key or order, a nested object or list, an escape in a string,
``NaN``, a text that is not JSON) makes `FlatRecords.of` answer None, and the reader takes the
tape (`geoiou.io.json_tape`), which reads any JSON. A text it reads is JSON whose objects repeat
no key (the keys of the first are distinct and every record has exactly those): `FlatRecords`
answers the questions of `geoiou.io.columns.JsonColumns` as the tape would, and None where a
question leaves its plain form (the reader then reads the records one by one).

Examples
--------
>>> records = FlatRecords.of(b'[{"image_id": 1, "bbox": [0, 0, 2, 3]}, {"image_id": 7, "bbox": [1, 1, 1, 1]}]')
>>> rows, _ = records.elements(records.root())
>>> image_id, bbox = records.fields(rows, ("image_id", "bbox"))
>>> records.integers(image_id), records.number_rows(bbox, 4).tolist()
(array([1, 7]), [[0.0, 0.0, 2.0, 3.0], [1.0, 1.0, 1.0, 1.0]])
>>> FlatRecords.of(b'[{"a": 1}, {"b": 2}]') is None  # another key: the tape reads it
True
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from geoiou import threads
from geoiou._compiled import jit
from geoiou._ranges import ragged_arange
from geoiou.io import json_tokens as tokens
from geoiou.io.decimals import INT, NUMBER, joined_spans, read_numbers, resolve_slow
from geoiou.io.json_tape import _finite_numbers, finite_number
from geoiou.io.kept_arrays import KeptArrays

__all__ = ["FlatRecords"]

ARRAY, OBJECT, STRING = tokens.ARRAY, tokens.OBJECT, tokens.STRING
TRUE, FALSE, NULL = tokens.TRUE, tokens.FALSE, tokens.NULL

#: What a piece's pass answers: read, or not of this form (the tape reads the text).
_READ, _OTHER = 0, 1


class _Root:
    """The top value: the list of records."""


_ROOT = _Root()


class _Column:
    """Values of one table (a key's values, or the numbers of lists) at `rows`: the table's fields, and the rows."""

    __slots__ = ("kind", "start", "stop", "integer", "rows", "listed")

    def __init__(self, table: tuple[np.ndarray, ...], rows: np.ndarray, listed: bool) -> None:
        self.kind, self.start, self.stop, self.integer = table
        #: Whether these are a key's values (a list's `start` and `stop` are then the range of its numbers).
        self.rows, self.listed = rows, listed

    def __len__(self) -> int:
        return len(self.rows)

    def taken(self, rows: np.ndarray) -> _Column:
        return _Column((self.kind, self.start, self.stop, self.integer), rows, self.listed)

    def kinds(self) -> np.ndarray:
        kinds: np.ndarray = self.kind[self.rows]
        return kinds


class FlatRecords:
    """The columns of a JSON list of flat records (see the module): what `geoiou.io.columns.JsonColumns` asks.

    Records are values given as an array of their positions in the list; the values of a key, or
    the numbers of lists, as a column of a table. A key's table holds the tape's fields of each
    record's value (``kind``, ``start``, ``stop`` and ``integer``, ``(keys, records)``), except that a
    list's ``start`` and ``stop`` are the range of its numbers in the table of numbers of lists.
    """

    def __init__(
        self, buf: np.ndarray, keys: tuple[str, ...], values: tuple[np.ndarray, ...], elements: tuple[np.ndarray, ...]
    ) -> None:
        self.buf, self.keys = buf, keys
        self.values, self.elements_table = values, elements

    @classmethod
    def of(cls, data: bytes | np.ndarray) -> FlatRecords | None:
        """The records of `data` (a file's bytes), or None unless it is a list of flat records with one set of keys."""
        buf = np.frombuffer(data, dtype=np.uint8)
        keys = _keys_of_first(buf)
        if keys is None:
            return None
        words = [key.encode("utf-8") for key in keys]
        spelled = (
            np.frombuffer(b"".join(words), dtype=np.uint8),
            np.cumsum([0] + [len(word) for word in words]).astype(np.int64),
        )
        read = _read_pieces(buf, spelled)
        if read is None:
            return None
        values, elements, non_ascii = read
        if non_ascii:
            try:
                str(buf.data, "utf-8")
            except UnicodeDecodeError:
                return None
        return cls(buf, keys, values, elements)

    # ----------------------------------------------------------------------- structure
    def root(self) -> _Root:
        """The top value of the file: the list."""
        return _ROOT

    def is_object(self, values: Any) -> np.ndarray:
        """Whether each value is a JSON object (the records are; no value in them is)."""
        if values is _ROOT:
            return np.zeros(1, dtype=bool)
        return np.full(len(values), not isinstance(values, _Column))

    def is_array(self, values: Any) -> np.ndarray:
        """Whether each value is a JSON array."""
        if values is _ROOT:
            return np.ones(1, dtype=bool)
        if isinstance(values, _Column):
            result: np.ndarray = values.kinds() == ARRAY
            return result
        return np.zeros(len(values), dtype=bool)

    def select(self, values: Any, rows: np.ndarray) -> Any:
        """The values at `rows`."""
        return values.taken(values.rows[rows]) if isinstance(values, _Column) else values[rows]

    def elements(self, arrays: Any) -> tuple[Any, np.ndarray] | None:
        """The elements of each of `arrays` end to end, and how many each has; None unless all are JSON arrays."""
        if arrays is _ROOT:
            records = np.arange(self.values[0].shape[1], dtype=np.int64)
            return records, np.array([len(records)])
        if not isinstance(arrays, _Column) or not (arrays.kinds() == ARRAY).all():
            return None
        first, stop = arrays.start[arrays.rows], arrays.stop[arrays.rows]
        numbers, _ = ragged_arange(first, stop)
        return _Column(self.elements_table, numbers, False), stop - first

    def members(self, objects: Any) -> None:
        """None: the reader reads records one by one where it would walk their keys."""
        return None

    def fields(self, objects: Any, keys: tuple[str, ...]) -> list[_Column | None]:
        """The values of each key in each record; None for a key they do not have (or for values other than records)."""
        if objects is _ROOT or isinstance(objects, _Column):
            return [None] * len(keys)
        return [self._column(key, objects) if key in self.keys else None for key in keys]

    def _column(self, key: str, records: np.ndarray) -> _Column:
        k = self.keys.index(key)
        return _Column(tuple(table[k] for table in self.values), records, True)

    def field(self, objects: Any, key: str) -> _Column | None:
        """The values of `key` in each record; None unless they have it."""
        return self.fields(objects, (key,))[0]

    def count_having(self, objects: Any, key: str) -> int:
        """How many of `objects` have `key` (every record has the keys of the first)."""
        if objects is _ROOT or isinstance(objects, _Column):
            return 0
        return len(objects) if key in self.keys else 0

    def integers_or(self, objects: Any, key: str, default: int) -> np.ndarray | None:
        """The integer value of `key` in each record, `default` where it is missing; None if one is not an integer."""
        if objects is _ROOT or isinstance(objects, _Column):
            return None
        if key in self.keys:
            return self.integers(self._column(key, objects))
        return np.full(len(objects), default, dtype=np.int64)

    # ----------------------------------------------------------------------- values
    def integers(self, values: Any) -> np.ndarray | None:
        """The values as int64, if each is a JSON integer within 64 bits; else None."""
        if not isinstance(values, _Column) or not (values.kinds() == INT).all():
            return None
        integers: np.ndarray = values.integer[values.rows]
        return integers

    def numbers(self, values: Any) -> np.ndarray | None:
        """The values as float64, if each is a finite JSON number; else None (the values ``json.loads`` gives)."""
        if not isinstance(values, _Column):
            return None
        integer = values.integer
        numbers, finite = _finite_numbers(values.kind, integer, integer.view(np.float64), values.rows)
        return numbers if finite else None

    def number_rows(self, values: Any, width: int) -> np.ndarray | None:
        """``(n, width)`` float64 from lists of exactly `width` finite numbers each; else None."""
        if not isinstance(values, _Column):
            return None
        if not values.listed:  # numbers of lists are no lists (none at all are rows of none, as the tape says)
            return None if len(values) else np.empty((0, width))
        rows = np.empty((len(values), width))
        element_kind, element_integer = self.elements_table[0], self.elements_table[3]
        read = _number_rows(values.kind, values.start, values.stop, element_kind, element_integer, values.rows, rows)
        return rows if read else None

    def strings(self, values: Any) -> list[str] | None:
        """The text of string values; None unless all are strings."""
        if not isinstance(values, _Column) or not (values.kinds() == STRING).all():
            return None
        if not len(values):
            return []
        # A string here holds no escape and no control character: one join, one decode, one split.
        rows = values.rows
        text = joined_spans(self.buf, values.start[rows], values.stop[rows], ord("\n")).tobytes()
        return text.decode("utf-8").split("\n")

    def rle_runs(self, rles: Any, sizes: np.ndarray) -> None:
        """None: a record holds no object (an RLE is one)."""
        return None


def _keys_of_first(buf: np.ndarray) -> tuple[str, ...] | None:
    """The keys of the first record when the text opens a list whose first item is a flat object of distinct keys
    written without escapes; else None."""
    if tokens.first_byte(buf) != ord("["):
        return None
    opening = np.flatnonzero(buf[: 1 << 16] == ord("{"))
    if not opening.size:
        return None
    try:  # the first record is short: Python's decoder reads it (and its end shows its keys' spelling)
        first, _ = json.JSONDecoder(object_pairs_hook=_Pairs).raw_decode(
            str(buf[opening[0] : opening[0] + (1 << 16)].data, "utf-8", errors="replace")
        )
    except ValueError:
        return None
    keys = tuple(key for key, _ in first)
    if len(set(keys)) != len(keys) or any(json.dumps(key, ensure_ascii=False)[1:-1] != key for key in keys):
        return None  # a key twice, or one written with escapes: the tape's reader decides
    if not all(_flat(value) for _, value in first):
        return None  # a nested value (an RLE, a polygon's parts): the tape reads the file, with nothing tried here
    return keys


class _Pairs(list[tuple[str, Any]]):
    """An object's pairs in order, as Python's decoder hands them (told apart from a list)."""


def _flat(value: Any) -> bool:
    """Whether a value of the first record is one `FlatRecords` reads: a scalar or a list of numbers."""
    if isinstance(value, _Pairs):
        return False
    if isinstance(value, list):
        return all(type(item) in (int, float) for item in value)
    return True


def _read_pieces(
    buf: np.ndarray, spelled: tuple[np.ndarray, np.ndarray]
) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...], bool] | None:
    """Every piece of the text read on a thread of its own into shared columns (each from its own base, the
    records moved down against the piece before afterwards), then all numbers at once; None unless each reads."""
    pieces, _ = tokens.list_pieces(buf)
    bounds = list(zip(pieces[:-1], pieces[1:]))
    capacities = threads.on_threads(lambda k: _capacity(buf[bounds[k][0] : bounds[k][1]]), len(bounds))
    record_base = np.cumsum([0] + [records for records, _ in capacities])
    element_base = np.cumsum([0] + [elements for _, elements in capacities])
    shape = (spelled[1].size - 1, int(record_base[-1]))
    values = _table(_VALUES, shape)
    elements = _table(_ELEMENTS, (int(element_base[-1]),))

    def piece(k: int) -> tuple[int, int, int, bool]:
        begin, end = bounds[k]
        return _read_piece(
            buf, begin, end, k == 0, k == len(bounds) - 1, *spelled, values[0], values[1], values[2],
            int(record_base[k]), elements[0], elements[1], elements[2], int(element_base[k]),
        )  # fmt: skip

    results = threads.on_threads(piece, len(bounds))
    if any(status != _READ for status, *_ in results):
        return None
    count = _joined(values, record_base, [records for _, records, _, _ in results])
    values[0][:, count:] = 0  # what the records left behind when they moved down: no numbers there
    # The numbers of lists a piece at a time: the unused end of a piece's share would leave a thread idle.
    listed = [slice(int(first), int(first) + used) for first, (_, _, used, _) in zip(element_base, results)]
    if not (
        _numbers_read(buf, *(array.reshape(-1) for array in values))
        and all(_numbers_read(buf, *(array[piece] for array in elements)) for piece in listed)
    ):
        return None
    return tuple(array[:, :count] for array in values), elements, any(non_ascii for *_, non_ascii in results)


#: The tables of values and of the numbers of lists, kept for the next text (`geoiou.io.kept_arrays`).
_VALUES, _ELEMENTS = (KeptArrays((np.uint8, np.int64, np.int64, np.int64)) for _ in range(2))


def _table(kept: KeptArrays, shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """Fields of values (kind, start, stop, integer); kinds 0 where no value is written, which `decimals` skips."""
    table = kept.take(shape)
    table[0][...] = 0
    return table


def _numbers_read(buf: np.ndarray, kind: np.ndarray, start: np.ndarray, stop: np.ndarray, value: np.ndarray) -> bool:
    """Read the numbers (`NUMBER` kinds) of a table with `decimals`, JSON's grammar; whether all are numbers."""
    if not read_numbers(buf, kind, start, stop, value, strict=True):
        return False
    resolve_slow(buf, kind, start, stop, value.view(np.float64))
    return True


def _joined(columns: tuple[np.ndarray, ...], base: np.ndarray, counts: list[int]) -> int:
    """Move each piece's records down against the piece before (a gap where the bound was loose); the count."""
    at = counts[0]
    for first, count in zip(base[1:-1].tolist(), counts[1:]):
        if first != at:
            for column in columns:
                column[:, at : at + count] = column[:, first : first + count]
        at += count
    return at


@jit
def _capacity(text: np.ndarray) -> tuple[int, int]:
    """At least the records (``{``) and the numbers of lists (each before a ``,`` or ``]``) of `text`."""
    records = 0
    elements = 0
    for k in range(text.size):  # no branch: the loop vectorizes
        c = text[k]
        records += c == 123
        elements += (c == 44) | (c == 93)
    return records, elements


@jit
def _read_piece(
    buf: np.ndarray,
    begin: int,
    end: int,
    first: bool,
    last: bool,
    words: np.ndarray,
    word_starts: np.ndarray,
    kind: np.ndarray,
    start: np.ndarray,
    stop: np.ndarray,
    record_base: int,
    element_kind: np.ndarray,
    element_start: np.ndarray,
    element_stop: np.ndarray,
    element_base: int,
) -> tuple[int, int, int, bool]:
    """Read the records of ``buf[begin:end]``: ``(status, records, numbers of lists, non-ASCII)``.

    The first piece opens the list; a piece before the last ends after the comma that follows its
    last record, the last closes the list and the text. Each record must have the keys
    ``words`` in order; numbers are left as `NUMBER` (their text) for `decimals`.
    """
    n = end
    n_keys = word_starts.size - 1

    # Closures, not functions: numba would count references to `buf` at every call (see `json_tokens`).
    def skip(i: int) -> int:
        while i < n and (buf[i] == 32 or buf[i] == 10 or buf[i] == 13 or buf[i] == 9):
            i += 1
        return i

    def number_end(i: int) -> int:
        """Where the number whose first byte is at `i` (a digit or ``-``) stops (`decimals` checks its grammar)."""
        i += 1
        while i < n and ((48 <= buf[i] <= 57) or buf[i] == 46 or buf[i] == 101 or buf[i] == 69 or buf[i] == 43
                         or buf[i] == 45):  # fmt: skip
            i += 1
        return i

    def is_number(i: int) -> bool:
        return i < n and (buf[i] == 45 or 48 <= buf[i] <= 57) and not (buf[i] == 45 and i + 1 < n and buf[i + 1] == 73)

    def spelled(i: int, j: int) -> bool:
        """Whether a key written from `i` (its opening quote) is word j, closing quote included."""
        size = word_starts[j + 1] - word_starts[j]
        if i + size + 1 >= n or buf[i] != 34 or buf[i + size + 1] != 34:
            return False
        for m in range(size):
            if buf[i + 1 + m] != words[word_starts[j] + m]:
                return False
        return True

    def literal(i: int, word: tuple[int, int, int, int, int], size: int) -> bool:
        if i + size > n:
            return False
        for m in range(size):
            if buf[i + m] != word[m]:
                return False
        return True

    non_ascii = False
    r = record_base
    e = element_base
    i = begin
    if first:
        if n >= 3 and buf[0] == 0xEF and buf[1] == 0xBB and buf[2] == 0xBF:
            i = 3  # a UTF-8 byte-order mark
        i = skip(i)
        if i >= n or buf[i] != 91:
            return _OTHER, 0, 0, non_ascii
        i = skip(i + 1)
    while True:
        if i >= n or buf[i] != 123:  # {
            return _OTHER, r - record_base, e - element_base, non_ascii
        i = skip(i + 1)
        for j in range(n_keys):
            if not spelled(i, j):
                return _OTHER, r - record_base, e - element_base, non_ascii
            i = skip(i + word_starts[j + 1] - word_starts[j] + 2)
            if i >= n or buf[i] != 58:  # :
                return _OTHER, r - record_base, e - element_base, non_ascii
            i = skip(i + 1)
            if i >= n:
                return _OTHER, r - record_base, e - element_base, non_ascii
            c = buf[i]
            start[j, r] = i
            if c == 34:  # a string: no escape, no control character (else the tape reads the text)
                i += 1
                while i < n and buf[i] != 34 and buf[i] != 92 and buf[i] >= 32:
                    non_ascii |= buf[i] >= 128
                    i += 1
                if i >= n or buf[i] != 34:
                    return _OTHER, r - record_base, e - element_base, non_ascii
                kind[j, r], start[j, r], stop[j, r] = STRING, start[j, r] + 1, i
                i += 1
            elif c == 91:  # a list of numbers: its numbers' range in the elements
                kind[j, r], start[j, r] = ARRAY, e
                i = skip(i + 1)
                if i < n and buf[i] == 93:
                    i += 1
                else:
                    while True:
                        if not is_number(i):
                            return _OTHER, r - record_base, e - element_base, non_ascii
                        stop_at = number_end(i)
                        element_kind[e], element_start[e], element_stop[e] = NUMBER, i, stop_at
                        e += 1
                        i = skip(stop_at)
                        if i < n and buf[i] == 44:
                            i = skip(i + 1)
                        elif i < n and buf[i] == 93:
                            i += 1
                            break
                        else:
                            return _OTHER, r - record_base, e - element_base, non_ascii
                stop[j, r] = e
            elif is_number(i):
                kind[j, r], stop[j, r] = NUMBER, number_end(i)
                i = stop[j, r]
            elif literal(i, (116, 114, 117, 101, 0), 4):  # true
                kind[j, r], stop[j, r] = TRUE, i + 4
                i += 4
            elif literal(i, (102, 97, 108, 115, 101), 5):  # false
                kind[j, r], stop[j, r] = FALSE, i + 5
                i += 5
            elif literal(i, (110, 117, 108, 108, 0), 4):  # null
                kind[j, r], stop[j, r] = NULL, i + 4
                i += 4
            else:  # an object, NaN or Infinity, or not JSON
                return _OTHER, r - record_base, e - element_base, non_ascii
            i = skip(i)
            if j < n_keys - 1:
                if i >= n or buf[i] != 44:  # ,
                    return _OTHER, r - record_base, e - element_base, non_ascii
                i = skip(i + 1)
        if i >= n or buf[i] != 125:  # }
            return _OTHER, r - record_base, e - element_base, non_ascii
        r += 1
        i = skip(i + 1)
        if i < n and buf[i] == 44:  # another record (in the next piece when this one ends here)
            i = skip(i + 1)
            if i >= n and not last:
                return _READ, r - record_base, e - element_base, non_ascii
            continue
        if last and i < n and buf[i] == 93 and skip(i + 1) == n:  # ] and the end of the text
            return _READ, r - record_base, e - element_base, non_ascii
        return _OTHER, r - record_base, e - element_base, non_ascii


@jit
def _number_rows(
    kind: np.ndarray,
    start: np.ndarray,
    stop: np.ndarray,
    element_kind: np.ndarray,
    element_integer: np.ndarray,
    values: np.ndarray,
    rows: np.ndarray,
) -> bool:
    """Fill `rows` ``(n, width)`` with the numbers of the lists of records `values` (as the tape reads them,
    `finite_number`); whether each is a list of `width` finite numbers."""
    element_number = element_integer.view(np.float64)
    width = rows.shape[1]
    for k in range(values.size):
        v = values[k]
        if kind[v] != ARRAY or stop[v] - start[v] != width:
            return False
        for j in range(width):
            t = start[v] + j
            finite, rows[k, j] = finite_number(element_kind[t], element_integer[t], element_number[t])
            if not finite:
                return False
    return True
