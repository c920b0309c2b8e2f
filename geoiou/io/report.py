"""What a reader did with each record: kept, or skipped and why.

Every reader of `geoiou.io` refuses a malformed record with a `FormatError` naming the file, the
line or record and what was wrong. With ``skip_invalid=True`` it keeps going instead, and its
result carries a `ReadReport` that counts the records kept and lists every record skipped with its
reason: nothing is dropped silently.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from geoiou.errors import FormatError, InvalidArgumentError, InvalidRegionError

__all__ = ["ReadReport", "RecordReader", "SkippedRecord", "float_field", "invalid", "read_bytes", "source_name"]


def source_name(path: str | os.PathLike[str]) -> str:
    """The name of a file as error messages and reports show it."""
    return os.fspath(path)


@dataclass(frozen=True)
class SkippedRecord:
    """One record a reader skipped: where it was and why."""

    location: str
    reason: str

    @property
    def why(self) -> str:
        """The reason without the offending value, so that equal faults group together."""
        return self.reason.split(" (got ")[0]


@dataclass(frozen=True)
class ReadReport:
    """The records a reader kept and the ones it skipped (only with ``skip_invalid=True``).

    Examples
    --------
    >>> report = ReadReport("labels.txt", 3, (SkippedRecord("line 2", "'x1' must be a number (got 'abc')"),
    ...                                       SkippedRecord("line 5", "'x1' must be a number (got '')")))
    >>> print(report.summary())
    labels.txt: read 3 records, skipped 2
      2 x 'x1' must be a number (first at line 2)
    >>> report.counts()
    {"'x1' must be a number": 2}
    """

    source: str
    read: int
    skipped: tuple[SkippedRecord, ...] = ()

    def counts(self) -> dict[str, int]:
        """Skipped records per reason (values left out), most frequent first."""
        return dict(Counter(record.why for record in self.skipped).most_common())

    def summary(self) -> str:
        """One line with the totals, then one line per reason of skipping."""
        lines = [f"{self.source}: read {self.read} records, skipped {len(self.skipped)}"]
        first: dict[str, str] = {}
        for record in self.skipped:
            first.setdefault(record.why, record.location)
        lines += [f"  {count} x {why} (first at {first[why]})" for why, count in self.counts().items()]
        return "\n".join(lines)

    @classmethod
    def merge(cls, source: str, reports: Sequence[ReadReport]) -> ReadReport:
        """One report for several files read as one set (a folder of label files).

        Each skipped record's location is prefixed with the name of its file.

        Examples
        --------
        >>> part = ReadReport("labels/a.txt", 1, (SkippedRecord("line 2", "'x1' must be a number (got 'x')"),))
        >>> merged = ReadReport.merge("labels", [part, ReadReport("labels/b.txt", 4)])
        >>> merged.read, merged.skipped[0].location
        (5, 'a.txt, line 2')
        """
        skipped = tuple(
            SkippedRecord(f"{os.path.basename(report.source)}, {record.location}", record.reason)
            for report in reports
            for record in report.skipped
        )
        return cls(source, sum(report.read for report in reports), skipped)


class RecordReader:
    """Collects the outcome of each record of one source; used by the readers.

    Examples
    --------
    >>> reader = RecordReader("boxes.txt", skip_invalid=True)
    >>> values = []
    >>> for number, text in enumerate(["1.5", "oops", "2"], start=1):
    ...     with reader.record(f"line {number}"):
    ...         values.append(float_field(text, "x"))
    >>> values, reader.report().counts()
    ([1.5, 2.0], {"'x' must be a number": 1})
    >>> RecordReader("boxes.txt", skip_invalid=False).fail("line 3", "expected 5 fields (got 4)")
    Traceback (most recent call last):
    ...
    geoiou.errors.FormatError: boxes.txt, line 3: expected 5 fields (got 4)
    """

    def __init__(self, source: str | os.PathLike[str], *, skip_invalid: bool) -> None:
        self.source = source_name(source)
        self.skip_invalid = skip_invalid
        self._read = 0
        self._skipped: list[SkippedRecord] = []

    @contextmanager
    def record(self, location: str) -> Iterator[None]:
        """Read one record inside this block: an invalid record raises, or is skipped and recorded.

        The block should append the record's values last, so that a skipped record leaves nothing
        behind. `FormatError` (with an empty source), `InvalidRegionError` and `InvalidArgumentError`
        raised inside count as invalid records.
        """
        try:
            yield
        except FormatError as error:
            self._invalid(location, error.reason)
        except (InvalidRegionError, InvalidArgumentError) as error:
            self._invalid(location, str(error))
        else:
            self._read += 1

    def read_valid(self, count: int) -> None:
        """Count `count` records that a batch check found valid, read without a `record` block each."""
        self._read += count

    def fail(self, location: str, reason: str) -> None:
        """Report an invalid record found outside a `record` block (raise, or record the skip)."""
        self._invalid(location, reason)

    def _invalid(self, location: str, reason: str) -> None:
        if not self.skip_invalid:
            raise FormatError(self.source, location, reason) from None
        self._skipped.append(SkippedRecord(location, reason))

    def whole_file(self, reason: str) -> FormatError:
        """The error for a fault of the whole source (not JSON, a missing top-level key): never skipped."""
        return FormatError(self.source, "", reason)

    def report(self) -> ReadReport:
        """The report of everything read so far."""
        return ReadReport(self.source, self._read, tuple(self._skipped))


def read_text(path: str | os.PathLike[str]) -> str:
    """The text of an annotation file, past a UTF-8 byte-order mark; a file that is not UTF-8 is a `FormatError`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "labels.txt"
    >>> _ = path.write_bytes(b"\\xef\\xbb\\xbf0 0.5 0.5 0.2 0.2\\n")
    >>> read_text(path)
    '0 0.5 0.5 0.2 0.2\\n'
    >>> _ = path.write_bytes(b"\\x89PNG")
    >>> read_text(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geoiou.errors.FormatError: /.../labels.txt: not UTF-8 text (invalid start byte at byte 0);
    is it an image or an archive?
    """
    try:
        with open(path, "rb") as handle:  # bytes decoded at once: a text stream's decoder costs more per file
            text = handle.read().decode("utf-8")
        if "\r" in text:  # universal newlines, as a text stream reads them
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        return text[1:] if text.startswith("\ufeff") else text
    except UnicodeDecodeError as error:
        raise FormatError(
            source_name(path),
            "",
            f"not UTF-8 text ({error.reason} at byte {error.start}); is it an image or an archive?",
        ) from None


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a file, for the readers that split and decode them in compiled passes (`read_text` names faults).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "labels.txt"
    >>> _ = path.write_bytes(b"0 0.5 0.5 0.2 0.2\\n")
    >>> read_bytes(path)
    b'0 0.5 0.5 0.2 0.2\\n'
    """
    with open(path, "rb") as handle:
        return handle.read()


def invalid(reason: str) -> FormatError:
    """A fault of the record being read, raised inside `RecordReader.record` (which adds the source and location)."""
    return FormatError("", "", reason)


def float_field(text: str, name: str) -> float:
    """Parse one finite number of a text record, or raise `invalid` naming the field.

    Examples
    --------
    >>> float_field("2.5", "x1")
    2.5
    >>> float_field("nan", "x1")
    Traceback (most recent call last):
    ...
    geoiou.errors.FormatError: 'x1' must be a finite number (got 'nan')
    """
    try:
        value = float(text)
    except ValueError:
        raise invalid(f"'{name}' must be a number (got {text!r})") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise invalid(f"'{name}' must be a finite number (got {text!r})")
    return value
