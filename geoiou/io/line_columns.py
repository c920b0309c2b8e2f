"""Text label files whose every line is plain, read as one table of fields: all lines at once.

The readers of DOTA labels and Task1 files and of YOLO labels first try this: one split of the
whole text, one conversion of each column, one check of each rule over the column. When some line
is not of the plain form (another field count, a word where a number goes, a value out of range),
they return None and the reader goes line by line, which names the faulty line and says why. So
the two paths accept exactly the same files, and the fast one needs no message of its own.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from itertools import chain

import numpy as np

from geoiou.io.report import read_text

__all__ = ["class_indices", "field_table", "finite_numbers", "split_lines", "table_of"]

_DIGITS = re.compile(r"[0-9]+(?: [0-9]+)*")


def field_table(
    path: str | os.PathLike[str], widths: tuple[int, ...], *, skip: Callable[[list[str]], bool] | None = None
) -> np.ndarray | None:
    """The whitespace-separated fields of the file's non-empty lines, ``(lines, width)`` strings, when every line
    has the same width among `widths` (after the leading lines `skip` accepts, such as a header); else None.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "labels.txt"
    >>> _ = path.write_text("0 0.5 0.5 0.2 0.2\\n\\n1 0.1 0.1 0.1 0.1\\n")
    >>> field_table(path, (5, 6)).shape
    (2, 5)
    >>> _ = path.write_text("0 0.5 0.5 0.2 0.2\\n1 0.1 0.1 0.1 0.1 0.9\\n")  # a conf column on one line only
    >>> field_table(path, (5, 6)) is None
    True
    """
    return table_of(split_lines(path, skip=skip), widths)


def split_lines(path: str | os.PathLike[str], *, skip: Callable[[list[str]], bool] | None = None) -> list[list[str]]:
    """The fields of each non-empty line, past the leading lines `skip` accepts."""
    lines = list(filter(None, map(str.split, read_text(path).splitlines())))
    first = 0
    while skip is not None and first < len(lines) and skip(lines[first]):
        first += 1
    return lines[first:]


def table_of(lines: list[list[str]], widths: tuple[int, ...]) -> np.ndarray | None:
    """Lines of fields as one ``(lines, width)`` string array, when all have the same width among `widths`."""
    counts = set(map(len, lines))
    if len(counts) != 1 or next(iter(counts)) not in widths:
        return None
    return np.array(list(chain.from_iterable(lines)), dtype=str).reshape(len(lines), -1)


def finite_numbers(fields: np.ndarray) -> np.ndarray | None:
    """The fields as float64, when every one is a finite number; else None.

    Examples
    --------
    >>> finite_numbers(np.array([["1", "2.5e1"]])).tolist(), finite_numbers(np.array([["1", "nan"]]))
    ([[1.0, 25.0]], None)
    """
    try:
        values = fields.astype(np.float64)
    except ValueError:
        return None
    return values if np.isfinite(values).all() else None


def class_indices(column: np.ndarray) -> np.ndarray | None:
    """A column of class indices written with ASCII digits, as int64; else None (a sign, a decimal point, ...).

    Examples
    --------
    >>> class_indices(np.array(["0", "12", "007"])).tolist(), class_indices(np.array(["1", "-1"]))
    ([0, 12, 7], None)
    """
    if not _DIGITS.fullmatch(" ".join(column.tolist())):
        return None
    try:
        return column.astype(np.int64)
    except OverflowError:  # beyond 64 bits: the line reader names it
        return None
