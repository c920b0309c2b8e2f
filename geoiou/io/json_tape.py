"""The columns of a JSON file, taken from its token table (`geoiou.io.json_tokens`) with array operations.

A `Tape` is the file's bytes and its tokens. Readers ask it for the items of a container, the
value of one key in each of a batch of objects, and those values as integers, numbers, rows of
numbers or strings; every answer is an array over all records at once, and None when some value
is not of the plain form asked for (a missing key, a string where a number goes, an integer
beyond 64 bits): the reader then reads the file with ``json.loads`` record by record, which
names the record and the fault.

Examples
--------
>>> tape = Tape.of(b'[{"id": 1, "box": [0, 0.5, 2, 3]}, {"box": [1, 1, 1, 1e1], "id": 2}]')
>>> records, _ = tape.elements(tape.root())
>>> tape.integers(tape.field(records, "id"))
array([1, 2])
>>> tape.number_rows(tape.field(records, "box"), 4)
array([[ 0. ,  0.5,  2. ,  3. ],
       [ 1. ,  1. ,  1. , 10. ]])
>>> tape.field(records, "score") is None  # no record has it
True
>>> Tape.of(b'[{"id": 1, "id": 2}]') is None  # a repeated key: json.loads must read it (and the reader refuses it)
True
"""

from __future__ import annotations


import numpy as np

from geoiou._compiled import in_parallel, jit, prange, prefaulted
from geoiou.rle import Runs
from geoiou.io import json_tokens as tokens
from geoiou.io.decimals import joined_spans, resolve_slow
from geoiou.io.json_rle import runs_of_bytes
from geoiou.io.json_tokens import ARRAY, ESCAPED_STRING, FLOAT, INT, KEY, OBJECT, SLOW, STRING

__all__ = ["Tape"]


class Tape:
    """The bytes of a JSON file and its tokens (see `geoiou.io.json_tokens`): token 0 is the top value.

    Build it with `Tape.of`. The arrays are indexed by token: ``kind``, ``start`` and ``stop``
    (bytes of a string between its quotes, of a number; for a container, ``stop`` is the token
    after its last descendant), ``integer`` (an integer's value, a key's hash) and ``number`` (a
    number's value; the same memory as ``integer``).
    """

    def __init__(self, buf: np.ndarray, table: tuple[np.ndarray, ...]) -> None:
        self.buf = buf
        self.kind, self.start, self.stop, self.integer, self.number = table

    @classmethod
    def of(cls, data: bytes | np.ndarray) -> Tape | None:
        """The tape of `data`, or None when ``json.loads`` must read it.

        None for text that is not JSON (``json.loads`` then names the fault), an object that
        repeats a key, keys written with escapes (their bytes are not their text), nesting
        deeper than `json_tokens.MAX_DEPTH`, or bytes that are not UTF-8.
        """
        buf = np.frombuffer(data, dtype=np.uint8)
        *table, status, non_ascii, escaped_keys = tokens.tokenize(buf)
        if status != tokens.OK or escaped_keys:
            return None
        if non_ascii:
            try:
                str(buf.data, "utf-8")
            except UnicodeDecodeError:
                return None
        kind, start, stop, _, number = table
        resolve_slow(buf, kind, start, stop, number)  # the numbers Python reads
        return cls(buf, tuple(table))

    def children(self, containers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The tokens directly inside each of `containers`, end to end, and how many each has."""
        return _children(self.kind, self.stop, containers.astype(np.int64))

    def optional_fields(self, objects: np.ndarray, keys: tuple[str, ...]) -> np.ndarray:
        """``(n, len(keys))``: the value token of each key in each of `objects`, -1 where the object lacks it.

        Each object's own keys are walked once (a nested object's keys are skipped with its value),
        the objects in parallel.
        """
        words = [key.encode("utf-8") for key in keys]
        spelled = (
            np.array([tokens.fnv1a(word) for word in words], dtype=np.int64),
            np.frombuffer(b"".join(words), dtype=np.uint8),
            np.cumsum([0] + [len(word) for word in words]).astype(np.int64),
        )
        values = prefaulted(np.empty((len(objects), len(keys)), dtype=np.int64))
        data = ((self.buf, self.kind, self.start, self.stop, self.integer), spelled, objects.astype(np.int64), values)
        if in_parallel(len(objects), OBJECT_COST_NS):
            _object_values_parallel(*data)
        else:
            _object_values(*data, 0, len(objects))
        return values

    def optional_field(self, objects: np.ndarray, key: str) -> np.ndarray:
        """The value token of `key` in each of `objects` (object tokens), -1 where the object lacks it."""
        values: np.ndarray = self.optional_fields(objects, (key,))[:, 0]
        return values

    def fields(self, objects: np.ndarray, keys: tuple[str, ...]) -> list[np.ndarray | None]:
        """The value tokens of each key in each of `objects`, found in one walk; None for a key some object lacks."""
        values = self.optional_fields(objects, keys)
        return [None if (column < 0).any() else column for column in values.T]

    def field(self, objects: np.ndarray, key: str) -> np.ndarray | None:
        """The value token of `key` in each of `objects` (object tokens); None unless every one has it."""
        return self.fields(objects, (key,))[0]

    def root(self) -> np.ndarray:
        """The top value of the file, as values (one token)."""
        return np.zeros(1, dtype=np.int64)

    def is_object(self, values: np.ndarray) -> np.ndarray:
        """Whether each value is a JSON object."""
        result: np.ndarray = self.kind[values] == OBJECT
        return result

    def is_array(self, values: np.ndarray) -> np.ndarray:
        """Whether each value is a JSON array."""
        result: np.ndarray = self.kind[values] == ARRAY
        return result

    def select(self, values: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The values at `rows`."""
        selected: np.ndarray = values[rows]
        return selected

    def elements(self, arrays: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
        """The elements of each of `arrays` end to end, and how many each has; None unless all are JSON arrays."""
        if arrays is None or not (self.kind[arrays] == ARRAY).all():
            return None
        return self.children(arrays)

    def members(self, objects: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The keys (as string values) and values of each of `objects` end to end, and how many each has."""
        if not (self.kind[objects] == OBJECT).all():
            return None
        keys, counts = self.children(objects)
        return keys, keys + 1, counts

    def count_having(self, objects: np.ndarray, key: str) -> int:
        """How many of `objects` have `key`."""
        return int((self.optional_field(objects, key) >= 0).sum())

    def integers_or(self, objects: np.ndarray, key: str, default: int) -> np.ndarray | None:
        """The integer value of `key` in each object, `default` where it is missing; None if one is not an integer."""
        values = self.optional_field(objects, key)
        present = values >= 0
        found = self.integers(values[present])
        if found is None:
            return None
        result = np.full(values.size, default, dtype=np.int64)
        result[present] = found
        return result

    # ----------------------------------------------------------------------- values
    def integers(self, values: np.ndarray | None) -> np.ndarray | None:
        """The values as int64, if each is a JSON integer within 64 bits; else None."""
        if values is None or not (self.kind[values] == INT).all():
            return None
        integers: np.ndarray = self.integer[values]
        return integers

    def numbers(self, values: np.ndarray | None) -> np.ndarray | None:
        """The values as float64, if each is a finite JSON number; else None (the values ``json.loads`` gives)."""
        if values is None:
            return None
        numbers, finite = _finite_numbers(self.kind, self.integer, self.number, values.reshape(-1))
        return numbers.reshape(values.shape) if finite else None

    def number_rows(self, values: np.ndarray | None, width: int) -> np.ndarray | None:
        """``(n, width)`` float64 from arrays of exactly `width` finite numbers each; else None."""
        if values is None:
            return None
        rows = np.empty((len(values), width))  # NumPy's memory: huge pages for a large table (see `file_bytes`)
        return rows if _number_rows(self.kind, self.stop, self.integer, self.number, values, rows) else None

    def strings(self, values: np.ndarray | None) -> list[str] | None:
        """The text of string values (escapes read as ``json.loads`` reads them); None unless all are strings."""
        if values is None:
            return None
        kind = self.kind[values]
        if not ((kind == STRING) | (kind == ESCAPED_STRING) | (kind == KEY)).all():
            return None
        if not values.size:
            return []
        # Raw text holds no newline (a control character must be escaped): one join, one decode, one split.
        text = joined_spans(self.buf, self.start[values], self.stop[values], ord("\n")).tobytes().decode("utf-8")
        strings = text.split("\n")
        escaped = np.flatnonzero(kind == ESCAPED_STRING)
        if escaped.size:
            import json

            for k in escaped.tolist():  # rare: only strings written with escapes
                strings[k] = json.loads(f'"{strings[k]}"')
        return strings

    def rle_runs(self, rles: np.ndarray, sizes: np.ndarray) -> Runs | None:
        """The runs of RLE objects whose ``"size"`` values are `sizes` ``(n, 2)``; None unless each is a valid RLE.

        The counts may be compressed strings or lists of integers.
        """
        counts = self.field(rles, "counts")
        if counts is None:
            return None
        kind = self.kind[counts]
        is_string = (kind == STRING) | (kind == ESCAPED_STRING)
        lists = self.elements(counts[~is_string])
        if lists is None:
            return None
        integers = self.integers(lists[0])
        if integers is None:
            return None
        start, stop = self.start[counts], self.stop[counts]
        # A list's counts are a range of `integers`.
        stop[~is_string] = np.cumsum(lists[1])
        start[~is_string] = stop[~is_string] - lists[1]
        return runs_of_bytes(self.buf, is_string, start, stop, integers, sizes)


@jit
def _children(kind: np.ndarray, stop: np.ndarray, containers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    total = 0
    for c in containers:
        total += stop[c] - c - 1  # descendants: at least the children
    children = np.empty(total, dtype=np.int64)
    counts = np.zeros(containers.size, dtype=np.int64)
    n = 0
    for k in range(containers.size):
        c = containers[k]
        t = c + 1
        while t < stop[c]:
            children[n] = t
            n += 1
            counts[k] += 1
            if kind[t] == KEY:
                t += 1  # the key's value is the next token
            t = stop[t] if (kind[t] == OBJECT or kind[t] == ARRAY) else t + 1
    return children[:n], counts


@jit(inline=True)
def finite_number(kind: int, integer: int, number: float) -> tuple[bool, float]:
    """Whether a value of `kind` (its `integer` and `number` slots) is a finite number, and its float64 (an integer
    converted as Python's ``float`` does: rounded to nearest). Scalars, not arrays: no reference counting a call."""
    if kind == INT:
        return True, float(integer)
    if (kind == FLOAT or kind == SLOW) and np.isfinite(number):
        return True, number
    return False, 0.0


@jit
def _finite_numbers(
    kind: np.ndarray, integer: np.ndarray, number: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, bool]:
    """The numbers of tokens `values` as float64 (`finite_number`), and whether every one is a finite number."""
    numbers = np.empty(values.size, dtype=np.float64)
    for k in range(values.size):
        t = values[k]
        finite, numbers[k] = finite_number(kind[t], integer[t], number[t])
        if not finite:
            return numbers, False
    return numbers, True


@jit
def _number_rows(
    kind: np.ndarray, stop: np.ndarray, integer: np.ndarray, number: np.ndarray, values: np.ndarray, rows: np.ndarray
) -> bool:
    """Fill `rows` ``(n, width)`` with the numbers of arrays `values` of `width` numbers each (`finite_number`);
    whether every value is such an array of finite numbers. One pass, no index arrays."""
    width = rows.shape[1]
    for k in range(values.size):
        v = values[k]
        if kind[v] != ARRAY or stop[v] - v != width + 1:  # an array of `width` scalars spans width + 1 tokens
            return False
        for j in range(width):
            t = v + 1 + j
            finite, rows[k, j] = finite_number(kind[t], integer[t], number[t])
            if not finite:
                return False
    return True


@jit(inline=True)
def _spelled(tape: tuple[np.ndarray, ...], spelled: tuple[np.ndarray, ...], t: int, j: int) -> bool:
    """Whether key token `t` is spelled as word j (``words[word_starts[j]:word_starts[j + 1]]``)."""
    buf, start, stop = tape[0], tape[2], tape[3]
    words, word_starts = spelled[1], spelled[2]
    size = word_starts[j + 1] - word_starts[j]
    if stop[t] - start[t] != size:
        return False
    for i in range(size):
        if buf[start[t] + i] != words[word_starts[j] + i]:
            return False
    return True


@jit(inline=True)
def _values_of_object(
    tape: tuple[np.ndarray, ...], spelled: tuple[np.ndarray, ...], objects: np.ndarray, values: np.ndarray, k: int
) -> None:
    """Row k of `values`: the value token of each key (of hash ``spelled[0][j]``) in object ``objects[k]``, or -1."""
    kind, stop, integer, hashes = tape[1], tape[3], tape[4], spelled[0]
    for j in range(hashes.size):
        values[k, j] = -1
    o = objects[k]
    if kind[o] != OBJECT:
        return
    t = o + 1
    while t < stop[o]:
        for j in range(hashes.size):
            if integer[t] == hashes[j] and _spelled(tape, spelled, t, j):
                values[k, j] = t + 1
        t += 1  # the value
        t = stop[t] if (kind[t] == OBJECT or kind[t] == ARRAY) else t + 1


#: Nanoseconds an object's keys cost `Tape.optional_fields` on one thread, for `in_parallel`.
OBJECT_COST_NS = 25.0
#: Objects a stretch of the parallel driver walks (the serial driver's call counts references once a stretch).
OBJECTS_A_STRETCH = 1 << 12


@jit
def _object_values(
    tape: tuple[np.ndarray, ...],
    spelled: tuple[np.ndarray, ...],
    objects: np.ndarray,
    values: np.ndarray,
    begin: int,
    end: int,
) -> None:
    for k in range(begin, end):  # each object on its own: the same values for any number of threads
        _values_of_object(tape, spelled, objects, values, k)


@jit(parallel=True)
def _object_values_parallel(
    tape: tuple[np.ndarray, ...], spelled: tuple[np.ndarray, ...], objects: np.ndarray, values: np.ndarray
) -> None:
    n = objects.size
    for stretch in prange((n + OBJECTS_A_STRETCH - 1) // OBJECTS_A_STRETCH):
        begin = stretch * OBJECTS_A_STRETCH
        _object_values(tape, spelled, objects, values, begin, min(n, begin + OBJECTS_A_STRETCH))
