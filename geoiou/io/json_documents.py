"""JSON annotation files: read as columns from their bytes, or parsed strictly with whole-file faults named.

`open_json` starts the reading of a file or of an already-parsed document. Its `JsonSource` offers
the columns of the fast path (`JsonSource.columns`: a file's `geoiou.io.json_tape.Tape`, compiled
from its bytes, or `geoiou.io.columns.ObjectColumns` over a parsed document) and, for the record
path, the document itself (`JsonSource.document`), parsed by ``json.loads`` only when asked for.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from geoiou._progress import Phases
from geoiou.io.columns import JsonColumns, ObjectColumns
from geoiou.io.kept_arrays import KeptArrays
from geoiou.io.report import RecordReader

__all__ = ["JsonSource", "file_bytes", "load_json_document", "open_json", "unique_keys"]


class _DuplicateKeyError(ValueError):
    """An object of the JSON text has the same key twice (json.load would keep only the last)."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The object of the key-value pairs of a JSON object; a repeated key raises (json.load would keep the last)."""
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        seen: set[str] = set()
        duplicate = next(key for key, _ in pairs if key in seen or _added(seen, key))
        raise _DuplicateKeyError(duplicate)
    return mapping


def _added(seen: set[str], key: str) -> bool:
    """Add `key` to `seen`; False, so that a generator's condition goes on to the next key."""
    seen.add(key)
    return False


#: Files at least this large take about a second to read: a bar shows the phases on a terminal.
LARGE_FILE = 20_000_000


def reading_phases(source: Any, steps: int) -> Phases:
    """The bar of a reader's phases: drawn for a large file on a terminal (`Phases`), else silent."""
    large = isinstance(source, (str, os.PathLike)) and os.path.isfile(source) and os.path.getsize(source) >= LARGE_FILE
    return Phases(
        f"reading {os.path.basename(os.fspath(source)) if large else ''}", steps, enabled=None if large else False
    )


class JsonSource:
    """A JSON file or parsed document being read: its columns for the fast path, its document for the record path.

    Examples
    --------
    >>> source = open_json([{"id": 1}], skip_invalid=False)
    >>> source.reader.source, source.document(), source.columns.root()
    ('<dict>', [{'id': 1}], [[{'id': 1}]])
    """

    def __init__(
        self, reader: RecordReader, columns: JsonColumns | None, document: Any = None, data: np.ndarray | None = None
    ) -> None:
        self.reader = reader
        #: The columns of the fast path; None when only ``json.loads`` can read the file (see `Tape.of`).
        self.columns = columns
        self._document = document
        self._data = data

    def document(self) -> Any:
        """The parsed document; a file that is not JSON, not UTF-8 or repeats a key is a whole-file `FormatError`."""
        if self._data is None:
            return self._document
        try:
            text = str(self._data.data, "utf-8-sig")  # past a byte-order mark, as the text readers
            if "\r" in text:  # universal newlines, as a text stream reads them (the lines of messages)
                text = text.replace("\r\n", "\n").replace("\r", "\n")
            # The tape proves that no object repeats a key; without one, the hook checks each object.
            self._document = (
                json.loads(text) if self.columns is not None else json.loads(text, object_pairs_hook=unique_keys)
            )
        except json.JSONDecodeError as error:
            raise self.reader.whole_file(
                f"not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})"
            ) from None
        except _DuplicateKeyError as error:
            raise self.reader.whole_file(
                f"an object has the key {error.args[0]!r} twice; keys must be unique"
            ) from None
        except UnicodeDecodeError as error:
            raise self.reader.whole_file(f"not UTF-8 text ({error.reason} at byte {error.start})") from None
        self._data = None
        return self._document


#: The bytes of the file read last, kept for the next (`geoiou.io.kept_arrays`).
_FILE_BYTES = KeptArrays((np.uint8,))


def file_bytes(path: str | os.PathLike[str]) -> np.ndarray:
    """The bytes of a file, read into a NumPy array (the array of the file read before when it is large enough and
    unused: `geoiou.io.kept_arrays`).

    On a virtual machine, where each page a process touches first is expensive, a 13 MB file read
    into a `bytes` object took 6.5 ms and into NumPy's memory 2.5 ms.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.json"
    >>> _ = path.write_bytes(b"[1, 2]")
    >>> file_bytes(path).tobytes()
    b'[1, 2]'
    """
    with open(path, "rb", buffering=0) as handle:
        size = os.fstat(handle.fileno()).st_size
        (data,) = _FILE_BYTES.take((size,))
        read = handle.readinto(data.data) if size else 0
        if read != size:  # the file changed while it was read: take what it holds now
            handle.seek(0)
            return np.frombuffer(handle.readall(), dtype=np.uint8)
    return data


def open_json(
    source: str | os.PathLike[str] | Mapping[str, Any] | list[Any],
    *,
    skip_invalid: bool,
    phases: Phases | None = None,
) -> JsonSource:
    """Start reading a JSON file (tokenized from its bytes) or an already-parsed document (named ``"<dict>"``).

    `phases` is told when the file is tokenized.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "results.json"
    >>> _ = path.write_text('[{"image_id": 1}, {"image_id": 2}]')
    >>> source = open_json(path, skip_invalid=False)
    >>> records, _ = source.columns.elements(source.columns.root())
    >>> source.columns.integers(source.columns.field(records, "image_id"))
    array([1, 2])
    """
    if isinstance(source, (Mapping, list)):
        return JsonSource(RecordReader("<dict>", skip_invalid=skip_invalid), ObjectColumns(source), source)
    reader = RecordReader(source, skip_invalid=skip_invalid)
    data = file_bytes(source)
    # Compiled (numba): loaded by the first file read, not by `import geoiou.io`.
    from geoiou.io.json_records import FlatRecords
    from geoiou.io.json_tape import Tape

    columns: JsonColumns | None = FlatRecords.of(data)  # a list of flat records (result files): straight to columns
    if columns is None:
        columns = Tape.of(data)
    if phases is not None:
        phases.done("parsed JSON")
    return JsonSource(reader, columns, data=data)


def load_json_document(
    source: str | os.PathLike[str] | Mapping[str, Any] | list[Any],
    *,
    skip_invalid: bool,
    phases: Phases | None = None,
) -> tuple[Any, RecordReader]:
    """Parse a JSON file (or take an already-parsed document) and start the `RecordReader` for it.

    A parsed document is named ``"<dict>"`` in messages. A file that is not JSON, or whose objects
    repeat a key (a second video with the same id would silently replace the first), is a
    whole-file `FormatError`.

    Examples
    --------
    >>> document, reader = load_json_document({"results": {}}, skip_invalid=False)
    >>> document, reader.source
    ({'results': {}}, '<dict>')
    """
    opened = open_json(source, skip_invalid=skip_invalid, phases=phases)
    return opened.document(), opened.reader
