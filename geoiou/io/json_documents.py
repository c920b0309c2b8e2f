"""JSON annotation files: parsed strictly, with whole-file faults named, and a `RecordReader` for their records."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any, Callable

from geoiou._progress import Phases
from geoiou.io.columns import object_keys
from geoiou.io.report import RecordReader

__all__ = ["load_json_document", "unique_keys"]


#: A quote, white space, a colon: a key written with space before its colon.
_SPACED_COLON = re.compile(r'"[ \t\r\n]+:')


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


def _keys_unique(text: str, document: Any, count_keys: Callable[[Any], int] | None) -> bool:
    """Whether the text provably repeats no key of an object; False means "look closer", not "repeated".

    Where no backslash comes right before a quote, every quote opens or closes a string (a quote
    inside a string is escaped), so each ``":`` closes a key, and with no space between a key and
    its colon every key is one ``":``. As many of them as
    the parsed objects hold keys means no object lost one. This costs a few passes over the text at
    C speed, against a Python call per object for ``object_pairs_hook``; files with escapes or
    spaced colons are checked by the hook.
    """
    if '\\"' in text or _SPACED_COLON.search(text):
        return False
    # By default arrays of records are entered, not the arrays inside records (boxes, coordinates):
    # fewer objects counted than written (an object inside those) only means the slower check.
    counted = count_keys(document) if count_keys is not None else object_keys(document, list_depth=1)
    return text.count('":') == counted


#: Files at least this large take about a second to read: a bar shows the phases on a terminal.
LARGE_FILE = 20_000_000


def reading_phases(source: Any, steps: int) -> Phases:
    """The bar of a reader's phases: drawn for a large file on a terminal (`Phases`), else silent."""
    large = isinstance(source, (str, os.PathLike)) and os.path.isfile(source) and os.path.getsize(source) >= LARGE_FILE
    return Phases(
        f"reading {os.path.basename(os.fspath(source)) if large else ''}", steps, enabled=None if large else False
    )


def _added(seen: set[str], key: str) -> bool:
    """Add `key` to `seen`; False, so that a generator's condition goes on to the next key."""
    seen.add(key)
    return False


def load_json_document(
    source: str | os.PathLike[str] | Mapping[str, Any] | list[Any],
    *,
    skip_invalid: bool,
    count_keys: Callable[[Any], int] | None = None,
    phases: Phases | None = None,
) -> tuple[Any, RecordReader]:
    """Parse a JSON file (or take an already-parsed document) and start the `RecordReader` for it.

    A parsed document is named ``"<dict>"`` in messages. A file that is not JSON, or whose objects
    repeat a key (a second video with the same id would silently replace the first), is a
    whole-file `FormatError`. A reader that knows the shape of its files passes `count_keys`, which
    counts the keys of the objects where that shape has them (any count below the true one just
    means the slower check); by default every object of the document is counted. `phases` is told
    when the text is parsed.

    Examples
    --------
    >>> document, reader = load_json_document({"results": {}}, skip_invalid=False)
    >>> document, reader.source
    ({'results': {}}, '<dict>')
    """
    if isinstance(source, (Mapping, list)):
        return source, RecordReader("<dict>", skip_invalid=skip_invalid)
    reader = RecordReader(source, skip_invalid=skip_invalid)
    try:
        with open(source, encoding="utf-8-sig") as handle:  # past a byte-order mark, as the text readers
            text = handle.read()
        document = json.loads(text)
        if phases is not None:
            phases.done("parsed JSON")
        if _keys_unique(text, document, count_keys):
            return document, reader
        return json.loads(text, object_pairs_hook=unique_keys), reader  # to find the repeated key, or read escapes
    except json.JSONDecodeError as error:
        raise reader.whole_file(f"not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None
    except _DuplicateKeyError as error:
        raise reader.whole_file(f"an object has the key {error.args[0]!r} twice; keys must be unique") from None
    except UnicodeDecodeError as error:
        raise reader.whole_file(f"not UTF-8 text ({error.reason} at byte {error.start})") from None
