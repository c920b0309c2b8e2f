"""`FlatRecords` (a list of flat records read straight into columns) against the tape, which reads any JSON.

For any text, `FlatRecords.of` either declines (the tape reads it) or answers every question the
readers ask exactly as the tape does: the same columns, the same bits, None where the tape says
None. Texts come from records that share keys or not, values of every JSON kind, cuts into pieces
and single-byte corruptions.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geoiou.io import json_tokens, read_coco_results
from geoiou.io.json_records import FlatRecords
from geoiou.io.json_tape import Tape

KEYS = ["image_id", "category_id", "score", "bbox", "note"]

numbers = (
    st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0.30000000000000004, 1e308, 5e-324, -0.0, 1e22, 1e23, 123456789012345678901])
)
plain = numbers | st.none() | st.booleans() | st.text("ab {}[],:é€", max_size=8) | st.lists(numbers, max_size=5)
#: Values FlatRecords leaves to the tape (or that a cut may fall in).
other = st.sampled_from([float("nan"), float("inf"), [[1, 2]], {"size": [1, 1]}, [1, "a"], "}, {", "a\\b"])
values = st.integers(0, 19).flatmap(lambda k: other if k == 0 else plain)


@st.composite
def record_lists(draw: Any) -> list[dict[str, Any]]:
    """Records that mostly repeat the first's keys in its order, sometimes not."""
    keys = draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=4))
    records = []
    for _ in range(draw(st.integers(0, 12))):
        own = list(keys)
        if draw(st.integers(0, 9)) == 0:  # now and then another order, a key fewer or more
            own = (
                draw(st.permutations(own))
                if draw(st.booleans())
                else draw(st.lists(st.sampled_from(KEYS), unique=True))
            )
        records.append({key: draw(values) for key in own})
    return records


def _answers(columns: Any) -> dict[str, Any]:
    """What the readers ask of a list of records, as plain Python values."""
    root = columns.root()
    listed = columns.elements(root)
    answers: dict[str, Any] = {"root is object": columns.is_object(root).tolist(), "listed": listed is not None}
    if listed is None:
        return answers
    records = listed[0]
    answers["records"] = len(records)
    answers["are objects"] = columns.is_object(records).tolist()
    if not columns.is_object(records).all():
        return answers
    for key in KEYS:
        answers[f"having {key}"] = columns.count_having(records, key)
        values = columns.field(records, key)
        answers[f"{key} present"] = values is not None
        answers[f"{key} integers"] = _bits(columns.integers(values))
        answers[f"{key} numbers"] = _bits(columns.numbers(values))
        answers[f"{key} strings"] = columns.strings(values)
        for width in (2, 4):
            answers[f"{key} rows of {width}"] = _bits(columns.number_rows(values, width))
        answers[f"{key} or 7"] = _bits(columns.integers_or(records, key, 7))
        if values is not None:
            answers[f"{key} arrays"] = columns.is_array(values).tolist()
            answers[f"{key} objects"] = columns.is_object(values).tolist()
            every_other = columns.select(values, np.arange(len(values))[::2])
            answers[f"{key} every other"] = (_bits(columns.numbers(every_other)), columns.strings(every_other))
            listed = columns.elements(values)
            if listed is not None:  # the numbers of lists, as the COCO readers ask them
                numbers, counts = listed
                answers[f"{key} elements"] = (
                    counts.tolist(),
                    _bits(columns.numbers(numbers)),
                    _bits(columns.integers(numbers)),
                    columns.is_array(numbers).tolist(),
                    columns.elements(numbers) is None,
                    _bits(columns.number_rows(numbers, 1)),
                )
    return answers


def _bits(array: np.ndarray | None) -> Any:
    return None if array is None else (array.dtype.str, array.shape, array.tobytes())


def _check(text: bytes) -> FlatRecords | None:
    flat = FlatRecords.of(np.frombuffer(text, np.uint8))
    if flat is None:
        return None
    tape = Tape.of(text)
    assert tape is not None, text  # what FlatRecords reads is JSON the tape reads (no repeated key, UTF-8)
    assert _answers(flat) == _answers(tape), text
    return flat


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(record_lists(), st.sampled_from([None, 1]), st.booleans(), st.integers(1, 4), st.data())
def test_flat_records_answer_as_the_tape_or_decline(monkeypatch, records, indent, ascii_only, pieces, data):
    text = bytearray(json.dumps(records, indent=indent, ensure_ascii=ascii_only).encode())
    if text and data.draw(st.integers(0, 3)) == 0:  # a corruption anywhere: declined, or read as the tape reads it
        text[data.draw(st.integers(0, len(text) - 1))] = data.draw(st.sampled_from(list(b'{}[],:" x-.e\\\x01\xff')))
    with monkeypatch.context() as patched:  # cut into up to `pieces` pieces on as many threads
        patched.setattr(json_tokens, "PIECE_BYTES", 1)
        patched.setattr(json_tokens, "wanted_pieces", lambda: pieces)
        _check(bytes(text))


def test_a_result_file_is_read_as_flat_records_in_pieces(monkeypatch):
    # Plain records with one set of keys are what FlatRecords is for: it must read them, not decline.
    records = [{"image_id": k, "category_id": k % 3, "bbox": [k, 0.5, 2, 1e-3], "score": k / 7} for k in range(300)]
    text = json.dumps(records).encode()
    with monkeypatch.context() as patched:
        patched.setattr(json_tokens, "PIECE_BYTES", 1)
        patched.setattr(json_tokens, "wanted_pieces", lambda: 3)
        assert len(json_tokens.list_pieces(np.frombuffer(text, np.uint8))[0]) == 4  # really cut in three
        flat = _check(text)
    assert flat is not None
    assert flat.numbers(flat.field(flat.elements(flat.root())[0], "score")).tolist() == [k / 7 for k in range(300)]


@pytest.mark.parametrize(
    "text",
    [
        b"[]",  # no first record to take keys from
        b'{"image_id": 1}',  # not a list
        b'[{"a": 1, "a": 2}]',  # a key twice: json.loads would keep the last silently; the tape refuses it
        b'[{"a": 1}, {"a": 1, "b": 2}]',  # a key more than the first
        b'[{"a": 1}, {"b": 1}]',  # another key
        b'[{"a": NaN}]',  # Python's extension: the tape reads it
        b'[{"a": -Infinity}]',
        b'[{"a": {"b": 1}}]',  # nested
        b'[{"a": [[1]]}]',
        b'[{"a": "x\\"y"}]',  # an escape
        b'[{"\\u0061": 1}]',  # a key written with an escape
        b'[{"a": 01}]',  # not JSON's grammar
        b'[{"a": 1},]',
        b'[{"a": 1}] x',
        b'[{"a": "\xff"}]',  # not UTF-8
    ],
)
def test_flat_records_decline_what_is_not_a_plain_list_of_flat_records(text):
    assert FlatRecords.of(np.frombuffer(text, np.uint8)) is None


def test_a_result_file_reads_alike_as_flat_records_and_through_the_tape(tmp_path, monkeypatch):
    records = [
        {"image_id": k // 3, "category_id": 1 + k % 2, "bbox": [k * 1.5, 2, 3, 4 + k], "score": 1 - k / 100}
        for k in range(60)
    ]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(records, indent=1))
    flat = read_coco_results(path)
    with monkeypatch.context() as patched:
        patched.setattr(FlatRecords, "of", classmethod(lambda cls, data: None))  # the tape only
        taped = read_coco_results(path)
    for name in ("image_id", "category_id", "score"):
        assert getattr(flat.annotations, name).tobytes() == getattr(taped.annotations, name).tobytes()
    assert flat.annotations.regions[0].area.tobytes() == taped.annotations.regions[0].area.tobytes()


def test_files_read_at_once_on_several_threads_read_alike(tmp_path):
    # The kept arrays (`geoiou.io.kept_arrays`) are handed to one reader at a time: readers on several Python threads
    # (a Dask worker's) must each get arrays of their own while another holds the kept ones.
    from concurrent.futures import ThreadPoolExecutor

    paths = []
    for k in range(3):
        records = [{"image_id": i, "category_id": k, "bbox": [i, k, 2, 3], "score": i / 9} for i in range(200 + 50 * k)]
        paths.append(tmp_path / f"results{k}.json")
        paths[-1].write_text(json.dumps(records))
    expected = [read_coco_results(path).annotations for path in paths]

    def read(k: int) -> bool:
        got = read_coco_results(paths[k % 3]).annotations
        want = expected[k % 3]
        return bool(
            (got.image_id == want.image_id).all()
            and (got.category_id == want.category_id).all()
            and (got.score == want.score).all()
            and (got.regions[0].area == want.regions[0].area).all()
        )

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(read, range(60)))
