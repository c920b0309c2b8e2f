"""Text label files (DOTA, YOLO) read as one table of whitespace-separated fields, by one compiled pass.

The bytes of one or several files are split into lines and fields where they lie; the fields of
a column are then read all at once: numbers by `geoiou.io.decimals` (the bits Python's ``float``
gives), class indices, 0/1 flags, or strings (one join, one decode, one split). A table is made
only of plain ASCII text whose every line has the same number of fields among those allowed; for
anything else (another character, a line of another width) `FieldTable.of` answers None, and so
does a column that is not of the plain form asked for: the reader then goes line by line, which
names the faulty line.

Examples
--------
>>> table = FieldTable.of([b"0 0.5 0.5 0.2 0.2\\n\\n1 0.1 0.1 1e-1 .1\\r\\n", b"", b"7 1 1 1 1"], (5, 6))
>>> table.shape, table.lines_per_text.tolist()
((3, 5), [2, 0, 1])
>>> table.indices(0).tolist(), table.numbers(slice(1, 5))[1].tolist()
([0, 1, 7], [0.1, 0.1, 0.1, 0.1])
>>> FieldTable.of([b"0 0.5 0.5 0.2 0.2\\n1 0.1 0.1 0.1\\n"], (5, 6)) is None  # a line of 4 fields
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from geoiou._compiled import jit
from geoiou.io.decimals import INT, NUMBER, joined_spans, read_numbers, resolve_slow

__all__ = ["FieldTable"]

_BOM = b"\xef\xbb\xbf"


class FieldTable:
    """The fields of the non-blank lines of some texts: ``start`` and ``stop`` bytes, ``(lines, width)`` each."""

    def __init__(self, buf: np.ndarray, start: np.ndarray, stop: np.ndarray, lines_per_text: np.ndarray) -> None:
        self.buf, self.start, self.stop = buf, start, stop
        #: How many of the table's lines each text holds, in order.
        self.lines_per_text = lines_per_text

    @property
    def shape(self) -> tuple[int, int]:
        """``(lines, fields per line)``."""
        lines, width = self.start.shape
        return lines, width

    @classmethod
    def of(
        cls, texts: Sequence[bytes], widths: tuple[int, ...], *, skip: Callable[[list[str]], bool] | None = None
    ) -> FieldTable | None:
        """The table of the texts' lines, when all are plain ASCII lines of one width among `widths`; else None.

        Leading lines that `skip` accepts (given a line's fields, as ``str.split`` gives them) are
        left out, as a header; blank lines carry nothing.
        """
        texts = [_past_header(text[len(_BOM) :] if text.startswith(_BOM) else text, skip) for text in texts]
        buf = np.frombuffer(b"\n".join(texts), dtype=np.uint8)
        start, stop, per_line, line_start, plain = _split(buf)
        if not plain or (per_line.size and (per_line != per_line[0]).any()):
            return None
        width = int(per_line[0]) if per_line.size else widths[0]
        if width not in widths:
            return None
        text_start = np.cumsum([0] + [len(text) + 1 for text in texts[:-1]])
        lines_per_text = np.bincount(np.searchsorted(text_start, line_start, "right") - 1, minlength=len(texts))
        return cls(buf, start.reshape(-1, width), stop.reshape(-1, width), lines_per_text)

    def numbers(self, columns: slice | int) -> np.ndarray | None:
        """The fields of `columns` as float64, if every one is a finite number (``float``'s values); else None."""
        start, stop = self._spans(columns)
        kind = np.full(start.shape, NUMBER, dtype=np.uint8)
        value = np.zeros(start.shape, dtype=np.int64)
        if not read_numbers(self.buf, kind, start, stop, value, strict=False):
            return None
        resolve_slow(self.buf, kind, start, stop, value.view(np.float64))
        numbers = np.where(kind == INT, value.astype(np.float64), value.view(np.float64))
        return numbers.reshape(self.start[:, columns].shape) if np.isfinite(numbers).all() else None

    def indices(self, column: int) -> np.ndarray | None:
        """The fields of `column` as int64, if each is written with ASCII digits only (a class index); else None."""
        start, stop = self._spans(column)
        kind = np.full(start.shape, NUMBER, dtype=np.uint8)
        value = np.zeros(start.shape, dtype=np.int64)
        digits_only = _digits_only(self.buf, start, stop)
        if not digits_only or not read_numbers(self.buf, kind, start, stop, value, strict=False):
            return None
        return value if (kind == INT).all() else None  # more than 18 digits: the line reader decides

    def flags(self, column: int) -> np.ndarray | None:
        """The fields of `column` as bool, if each is ``0`` or ``1``; else None."""
        start, stop = self.start[:, column], self.stop[:, column]
        first = self.buf[start] if start.size else np.zeros(0, dtype=np.uint8)
        if ((stop - start) != 1).any() or not np.isin(first, (48, 49)).all():
            return None
        result: np.ndarray = first == 49
        return result

    def strings(self, column: int) -> list[str]:
        """The fields of `column` as strings."""
        if not len(self.start):
            return []
        # A field holds no newline: one join, one decode, one split.
        return joined_spans(self.buf, *self._spans(column), ord("\n")).tobytes().decode().split("\n")

    def _spans(self, columns: slice | int) -> tuple[np.ndarray, np.ndarray]:
        """``(start, stop)`` of the fields of `columns`, row by row, as contiguous 1-D arrays."""
        return self.start[:, columns].reshape(-1).copy(), self.stop[:, columns].reshape(-1).copy()


def _past_header(text: bytes, skip: Callable[[list[str]], bool] | None) -> bytes:
    """`text` without its leading lines that `skip` accepts (blank lines before them too)."""
    while skip is not None:
        line, newline, rest = text.partition(b"\n")
        fields = line.decode("ascii", "replace").split()
        if fields and not skip(fields):
            break
        if not newline:
            return b"" if not fields or skip(fields) else text
        text = rest
    return text


@jit
def _digits_only(buf: np.ndarray, start: np.ndarray, stop: np.ndarray) -> bool:
    for k in range(start.size):
        for j in range(start[k], stop[k]):
            if not (48 <= buf[j] <= 57):
                return False
    return True


@jit
def _split(buf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]:
    """``(field start, field stop, fields per line, line start, plain)`` of the non-blank lines of `buf`.

    Fields are separated by spaces and tabs, lines by ``\\n`` or ``\\r``. Plain: only printable
    ASCII besides (``str.split`` and ``splitlines`` would split at more characters than these).
    """
    n = buf.size
    fields = 0
    for k in range(n):  # an upper bound of the fields: each starts after a separator or at 0
        c = buf[k]
        if c == 32 or c == 9 or c == 10 or c == 13:
            fields += 1
    start = np.empty(fields + 1, dtype=np.int64)
    stop = np.empty(fields + 1, dtype=np.int64)
    per_line = np.empty(fields + 1, dtype=np.int64)
    line_start = np.empty(fields + 1, dtype=np.int64)
    count, lines, in_line = 0, 0, 0
    i = 0
    while i < n:
        c = buf[i]
        if c == 10 or c == 13:
            if in_line:
                per_line[lines] = in_line
                lines += 1
                in_line = 0
            i += 1
        elif c == 32 or c == 9:
            i += 1
        elif c < 32 or c > 126:
            return start[:0], stop[:0], per_line[:0], line_start[:0], False
        else:
            if in_line == 0:
                line_start[lines] = i
            start[count] = i
            while i < n and 32 < buf[i] <= 126:
                i += 1
            stop[count] = i
            count += 1
            in_line += 1
    if in_line:
        per_line[lines] = in_line
        lines += 1
    return start[:count], stop[:count], per_line[:lines], line_start[:lines], True
