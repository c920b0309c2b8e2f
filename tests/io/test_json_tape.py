"""The compiled JSON tokenizer and its tape against ``json.loads``: the same values, bit for bit, or a refusal.

Whatever the tape accepts, ``json.loads`` reads to the same values (floats compared by their bits,
so -0.0 and the last bit of a rounding count); whatever ``json.loads`` refuses, the tape refuses
too (the reader then lets ``json.loads`` name the fault). Documents, numbers and corruptions are
drawn by Hypothesis.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from geoiou.io import json_tokens
from geoiou.io.json_tape import Tape
from geoiou.io.json_tokens import ARRAY, ESCAPED_KEY, FALSE, FLOAT, INT, KEY, NULL, OBJECT, SLOW, TRUE


def to_python(tape: Tape, token: int = 0) -> Any:
    """The Python value of a token, rebuilt from the tape alone (strings through `Tape.strings`)."""
    kind = int(tape.kind[token])
    if kind == OBJECT:
        keys, values, _ = tape.members(np.array([token]))
        names = tape.strings(keys)
        return {name: to_python(tape, int(value)) for name, value in zip(names, values)}
    if kind == ARRAY:
        elements, _ = tape.elements(np.array([token]))
        return [to_python(tape, int(element)) for element in elements]
    if kind == INT:
        return int(tape.integer[token])
    if kind in (FLOAT, SLOW):
        text = tape.buf[tape.start[token] : tape.stop[token]].tobytes()
        if kind == SLOW and text.lstrip(b"-").isdigit():
            return int(text)  # an integer beyond 64 bits: json.loads keeps it as an int
        return float(tape.number[token])
    if kind in (TRUE, FALSE, NULL):
        return {TRUE: True, FALSE: False, NULL: None}[kind]
    return tape.strings(np.array([token]))[0]


def same(a: Any, b: Any) -> bool:
    """Equal values of the same types, floats by their bits (NaN equals NaN, -0.0 differs from 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def read_both(text: bytes) -> tuple[Tape | None, Any]:
    """The tape of `text` and what json.loads gives (an exception instance when it refuses)."""
    try:
        expected: Any = json.loads(text.decode("utf-8-sig"))
    except (ValueError, RecursionError) as error:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        expected = error
    return Tape.of(text), expected


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
)
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, st.sampled_from([None, 0, 2]), st.booleans(), st.booleans())
def test_the_tape_reads_what_json_loads_reads(document, indent, ensure_ascii, spaced):
    separators = (", ", ": ") if spaced else (",", ":")
    text = json.dumps(document, indent=indent, ensure_ascii=ensure_ascii, separators=separators).encode()
    tape, expected = read_both(text)
    if tape is None:  # only for keys written with escapes, which json.loads reads
        assert json_tokens.tokenize(text)[-1], text
        return
    assert same(to_python(tape), expected), text


decimal_texts = st.builds(
    lambda sign, whole, fraction, exponent: f"{sign}{whole}{fraction}{exponent}",
    st.sampled_from(["", "-"]),
    st.sampled_from(["0"]) | st.integers(1, 10**25).map(str),
    st.sampled_from([""]) | st.text("0123456789", min_size=1, max_size=25).map(lambda d: "." + d),
    st.sampled_from([""])
    | st.builds(
        lambda e, s, d: f"{e}{s}{d}", st.sampled_from("eE"), st.sampled_from(["", "+", "-"]), st.integers(0, 400)
    ),
)


@settings(max_examples=1000, deadline=None)
@given(decimal_texts | st.floats(allow_nan=False, allow_infinity=False).map(repr))
def test_numbers_have_the_bits_python_gives_them(text):
    tape, expected = read_both(f"[{text}]".encode())
    assert tape is not None
    assert same(to_python(tape), expected), text


@pytest.mark.parametrize(
    "text",
    [
        "-0",  # an integer zero, as json.loads reads it
        "-0.0",
        "0e999",
        "1e-400",  # underflows to 0.0
        "1e400",  # overflows to inf
        "-1e400",
        "9007199254740993",  # 2**53 + 1: an exact integer, a rounded float
        "9007199254740993.0",
        "9223372036854775807",  # the largest int64
        "9223372036854775808",
        "-9223372036854775808",
        "123456789012345678901234567890",
        "0.1",
        "0.30000000000000004",
        "2.2250738585072014e-308",
        "4.9e-324",
        "1.7976931348623157e308",
        "NaN",
        "Infinity",
        "-Infinity",
    ],
)
def test_edge_numbers(text):
    tape, expected = read_both(f'{{"a": {text}}}'.encode())
    assert tape is not None and same(to_python(tape), expected)


@pytest.mark.parametrize(
    "text",
    [
        b"",
        b"   ",
        b"[1,]",
        b"[1 2]",
        b'{"a" 1}',
        b'{"a": 1,}',
        b"[01]",
        b"[1.]",
        b"[.5]",
        b"[1e]",
        b"[-]",
        b"[+1]",
        b'["\x01"]',  # a control character in a string
        b'["\\x"]',  # an escape JSON does not have
        b'["\\u12"]',
        b'"unterminated',
        b"[1] [2]",
        b"[true, tru]",
        b"{'a': 1}",
        b"\xff[1]",
        b'["\xc3"]',  # a UTF-8 sequence cut short
        b"[" * 600 + b"]" * 600,  # deeper than the tokenizer goes: json.loads decides
    ],
)
def test_what_json_loads_refuses_the_tape_refuses(text):
    tape, expected = read_both(text)
    if isinstance(expected, Exception):
        assert tape is None
    else:
        assert tape is None or same(to_python(tape), expected)


def test_a_repeated_key_is_not_read_from_the_tape():
    assert Tape.of(b'[{"a": 1, "b": 2, "a": 3}]') is None
    assert Tape.of(b'{"a": {"a": 1}, "a": 2}') is None  # the same key inside the value does not hide it
    many = ", ".join(f'"k{k}": {k}' for k in range(100))  # past the linear search: sorted hashes
    assert Tape.of(f"{{{many}}}".encode()) is not None
    assert Tape.of(f'{{{many}, "k57": 0}}'.encode()) is None
    assert Tape.of(b'[{"a": 1}, {"a": 2}]') is not None  # the same key in two objects


def test_escaped_keys_are_left_to_json_loads():
    # Their bytes are not their text: "a" and "\u0061" are one key.
    kind, *_ = json_tokens.tokenize(b'{"\\u0061": 1}')
    assert kind[1] == ESCAPED_KEY and Tape.of(b'{"\\u0061": 1, "a": 2}') is None
    assert json_tokens.tokenize(b'{"a": 1}')[0][1] == KEY


def test_escaped_and_unicode_strings():
    text = json.dumps(["caf\u00e9", 'a"b', "tab\there", "\U0001f600", "\\", "\u2028", ""], ensure_ascii=False)
    tape, expected = read_both(text.encode())
    assert tape is not None and same(to_python(tape), expected)
    tape, expected = read_both(text.encode("utf-8").replace(b"caf\xc3\xa9", b"caf\\u00e9"))
    assert same(to_python(tape), expected)


def test_a_byte_order_mark_is_passed_over():
    tape, expected = read_both(b"\xef\xbb\xbf[1, 2]")
    assert tape is not None and same(to_python(tape), expected)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, st.data())
def test_corrupted_text_is_refused_or_read_as_json_loads_reads_it(document, data):
    text = bytearray(json.dumps(document).encode())
    assume(text)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, max(len(text) - 1, 0)))
        edit = data.draw(st.sampled_from(["replace", "delete", "insert"] if text else ["insert"]))
        byte = data.draw(st.sampled_from(list(b'{}[],:"\\ -+.0123456789eEtfnaNI\x00\x1f\xc3\xff')))
        if edit == "replace":
            text[at] = byte
        elif edit == "delete":
            del text[at]
        else:
            text.insert(at, byte)
    tape, expected = read_both(bytes(text))
    if isinstance(expected, Exception):
        assert tape is None, bytes(text)
    elif tape is not None:
        assert same(to_python(tape), expected), bytes(text)


def test_importing_the_readers_does_not_load_numba():
    # numba (about 0.1 s, and scipy with it) is loaded by the first file read, not by the import.
    import subprocess
    import sys

    code = "import sys, geoiou.io, geoiou.evaluation; print('numba' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_numbers_have_the_same_bits_on_one_and_two_threads():
    import geoiou

    rng = np.random.default_rng(0)
    values = rng.standard_normal(5000) * 10.0 ** rng.integers(-30, 30, 5000)
    text = json.dumps([[v, int(k)] for k, v in enumerate(values.tolist())]).encode()
    tapes = []
    for threads in (1, 2):
        geoiou.set_threads(threads)
        try:
            tapes.append(Tape.of(text))
        finally:
            geoiou.set_threads(None)
    assert tapes[0].kind.tobytes() == tapes[1].kind.tobytes()
    numbers = np.isin(tapes[0].kind, (INT, FLOAT, SLOW))  # other tokens leave the slot unwritten
    assert tapes[0].integer[numbers].tobytes() == tapes[1].integer[numbers].tobytes()
    assert same(to_python(tapes[0]), json.loads(text))


records = st.lists(
    st.dictionaries(
        st.sampled_from(["id", "bbox", "note", "score"]),
        scalars | st.lists(scalars, max_size=3) | st.sampled_from(["}, {", '"}, {"', "a}, {b", "}\\n,\\t{"]),
        max_size=4,
    ),
    max_size=12,
)


def _whole_and_in_pieces(text: bytes, pieces: int, monkeypatch) -> tuple[tuple, tuple]:
    """The tokens of `text` read whole, and read cut into up to `pieces` pieces on as many threads."""
    whole = json_tokens.tokenize(text)
    with monkeypatch.context() as patched:
        patched.setattr(json_tokens, "PIECE_BYTES", 1)
        patched.setattr(json_tokens, "wanted_pieces", lambda: pieces)
        cut = json_tokens.tokenize(text)
    return whole, cut


def _same_tokens(whole: tuple, cut: tuple) -> bool:
    kind, start, stop, integer, _, status, non_ascii, escaped = whole
    if status != cut[5] or (status == json_tokens.OK and (non_ascii, escaped) != (cut[6], cut[7])):
        return False
    if status != json_tokens.OK:
        return True
    written = np.isin(kind, (INT, FLOAT, SLOW, KEY))  # the slots tokens of other kinds leave unwritten
    return (
        kind.tobytes() == cut[0].tobytes()
        and start.tobytes() == cut[1].tobytes()
        and stop.tobytes() == cut[2].tobytes()
        and integer[written].tobytes() == cut[3][written].tobytes()
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records, st.integers(2, 5), st.sampled_from([None, 1]), st.data())
def test_a_list_read_in_pieces_is_the_list_read_whole(monkeypatch, document, pieces, indent, data):
    text = bytearray(json.dumps(document, indent=indent).encode())
    if text and data.draw(st.booleans()):  # a corruption anywhere: the pieces must fail alike, or agree
        text[data.draw(st.integers(0, len(text) - 1))] = data.draw(st.sampled_from(list(b'{}[],:" x')))
    whole, cut = _whole_and_in_pieces(bytes(text), pieces, monkeypatch)
    assert _same_tokens(whole, cut), bytes(text)


#: Documents like a COCO dataset: a top object whose values are lists of records (records may hold lists of records).
datasets = st.dictionaries(
    st.sampled_from(["images", "annotations", "categories", "info"]),
    records
    | st.lists(st.dictionaries(st.sampled_from(["parts", "id"]), records | scalars, max_size=2), max_size=4)
    | scalars,
    max_size=4,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(datasets, st.integers(2, 5), st.sampled_from([None, 1]), st.sampled_from(["", "images", "info"]), st.data())
def test_an_object_of_lists_read_in_pieces_is_the_object_read_whole(monkeypatch, document, pieces, indent, repeat,
                                                                     data):  # fmt: skip
    text = bytearray(json.dumps(document, indent=indent).encode())
    if repeat and text.endswith(b"}"):  # a top key written again after the lists: both reads must find it
        text[-1:] = f', "{repeat}": 0}}'.encode()
    if text and data.draw(st.booleans()):  # a corruption anywhere: the pieces must fail alike, or agree
        text[data.draw(st.integers(0, len(text) - 1))] = data.draw(st.sampled_from(list(b'{}[],:" x')))
    whole, cut = _whole_and_in_pieces(bytes(text), pieces, monkeypatch)
    assert _same_tokens(whole, cut), bytes(text)


def test_a_dataset_file_is_cut_in_its_annotations_and_joins_to_the_whole(monkeypatch):
    document = {"images": [{"id": k} for k in range(50)], "annotations": [{"id": k, "bbox": [k, 0, 1, 1]}
                for k in range(400)], "categories": [{"id": 1, "name": "a"}]}  # fmt: skip
    text = json.dumps(document).encode()
    with monkeypatch.context() as patched:
        patched.setattr(json_tokens, "PIECE_BYTES", 1)
        patched.setattr(json_tokens, "wanted_pieces", lambda: 4)
        pieces, depth = json_tokens.list_pieces(np.frombuffer(text, np.uint8))
    assert depth == 2 and len(pieces) == 5 and all(text.rfind(b'"annotations"', 0, cut) > 0 for cut in pieces[1:-1])
    in_pieces = json_tokens._tokenize_pieces(np.frombuffer(text, np.uint8), pieces, depth)
    assert in_pieces[4] == json_tokens.OK  # joined, not read again whole
    whole, cut = _whole_and_in_pieces(text, 4, monkeypatch)
    assert whole[5] == json_tokens.OK and _same_tokens(whole, cut)
    repeated = text[:-1] + b', "images": []}'
    assert _whole_and_in_pieces(repeated, 4, monkeypatch)[1][5] == json_tokens.DUPLICATE_KEY


def test_a_boundary_inside_a_string_reads_the_text_whole(monkeypatch):
    # "}, {" inside a string looks like a boundary: the piece before it does not end after an item.
    text = json.dumps([{"a": 1, "note": "x" * 40 + "}, {" + "y" * 40}, {"b": 2}] * 3).encode()
    whole, cut = _whole_and_in_pieces(text, 4, monkeypatch)
    assert whole[5] == json_tokens.OK and _same_tokens(whole, cut)
    tape, expected = read_both(text)
    assert same(to_python(tape), expected)


def _written(tape: Tape) -> list[np.ndarray]:
    """What the tokenizer wrote for each token (a container's or a string's `integer` is not written)."""
    valued = np.isin(tape.kind, (INT, FLOAT, SLOW, KEY))
    return [tape.kind.copy(), tape.start.copy(), tape.stop.copy(), np.where(valued, tape.integer, 0)]


def test_a_kept_token_table_is_reused_only_once_no_tape_views_it():
    # The reader keeps one token table for the next text; a tape still alive must keep its own tokens.
    first_text = json.dumps([{"a": k, "b": [k, k + 0.5]} for k in range(300)]).encode()
    second_text = json.dumps([{"x": "s", "y": -k} for k in range(500)]).encode()
    first = Tape.of(first_text)
    assert first is not None
    before = _written(first)
    second = Tape.of(second_text)  # `first` views the kept table: this one gets arrays of its own
    assert second is not None
    assert second.kind.base is not first.kind.base
    assert all((now == then).all() for now, then in zip(_written(first), before))
    del first, second
    third = Tape.of(first_text)  # nothing views a table any more: the kept one is reused, and reads alike
    assert third is not None
    assert third.kind.base is json_tokens._TOKEN_TABLE._kept[0]  # type: ignore[index]
    assert all((now == then).all() for now, then in zip(_written(third), before))


def test_released_arrays_are_not_handed_out_again():
    from geoiou.io import kept_arrays

    Tape.of(b'[{"a": 1}]')
    kept = json_tokens._TOKEN_TABLE._kept
    assert kept is not None
    kept_arrays.release()
    assert json_tokens._TOKEN_TABLE._kept is None
    assert Tape.of(b'[{"a": 1}]').kind.base is not kept[0]  # type: ignore[union-attr]
