"""Text label files split and read by one compiled pass: the fields ``str.split`` gives, the values ``float`` gives.

Whatever `FieldTable.of` accepts, the line-by-line reading (``splitlines``, ``split``, ``float``)
reads to the same fields and bits; the DOTA and YOLO readers give the same objects from the table
as line by line.
"""

from __future__ import annotations

import struct

import hypothesis.strategies as st
import numpy as np
from hypothesis import given, settings

from geoiou.io import dota, read_dota_folder, read_yolo_folder, yolo
from geoiou.io.text_table import FieldTable

numbers = st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(10**30), 10**30)
formats = st.sampled_from(["{!r}", "{:.6f}", "{:.3e}", "{:+.2f}", "{:.17g}", "{:E}"])


def _text_of(value: float | int, form: str) -> str:
    if isinstance(value, int):
        return str(value)
    text = form.format(value)
    return text.replace("0.", ".", 1) if text.startswith("0.") and len(text) > 2 else text  # ".5" as some tools write


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.tuples(numbers, formats), min_size=3, max_size=3), max_size=8),
    st.sampled_from(["\n", "\r\n", "\r", "\n\n"]),
    st.sampled_from([" ", "\t", "  ", " \t "]),
)
def test_fields_and_numbers_are_those_python_reads(rows, newline, space):
    text = newline.join(space.join(_text_of(v, f) for v, f in row) for row in rows) + newline
    table = FieldTable.of([text.encode()], (3,))
    expected = [line.split() for line in text.splitlines() if line.split()]
    assert table is not None and table.shape == (len(expected), 3)
    values = table.numbers(slice(None))
    want = np.array([[float(field) for field in line] for line in expected]).reshape(-1, 3)
    if not np.isfinite(want).all():  # a value rounded to infinity when written
        assert values is None
        return
    assert values is not None and values.tobytes() == want.tobytes()
    assert [table.strings(k) for k in range(3)] == [[line[k] for line in expected] for k in range(3)]


@settings(max_examples=300, deadline=None)
@given(
    st.binary(max_size=40) | st.text(" \t\r\n0123456789.eE+-_ax\x0b\x0c\x1c\x85", max_size=40).map(str.encode),
    st.sampled_from([(1,), (2,), (3, 4)]),
)
def test_what_the_table_accepts_split_and_float_read_the_same(data, widths):
    table = FieldTable.of([data], widths)
    if table is None:
        return
    lines = [line.split() for line in data.decode("utf-8-sig").splitlines() if line.split()]
    assert table.shape[0] == len(lines) and all(len(line) == table.shape[1] for line in lines)
    values = table.numbers(slice(None))
    if values is not None:  # every field a finite number: the ones float reads
        want = [float(field) for line in lines for field in line]
        assert [struct.pack("<d", v) for v in values.ravel().tolist()] == [struct.pack("<d", v) for v in want]


def test_headers_blank_lines_and_several_texts():
    header = lambda fields: fields[0].startswith(("imagesource:", "gsd:"))  # noqa: E731
    table = FieldTable.of(
        [b"\xef\xbb\xbfimagesource:GoogleEarth\ngsd:0.1\n\n1 2 a\n", b"", b"3 4 b\r\n5 6 c"], (3,), skip=header
    )
    assert table is not None and table.lines_per_text.tolist() == [1, 0, 2]
    assert table.strings(2) == ["a", "b", "c"] and table.indices(0).tolist() == [1, 3, 5]
    assert FieldTable.of([b"1 2 \xc3\xa9\n"], (3,)) is None  # not ASCII: the line reader decodes it
    assert FieldTable.of([b"1\x0b2 3\n"], (3,)) is None  # a vertical tab: str.split splits there too
    assert FieldTable.of([b"1 2 3\n"], (3,)).indices(1).tolist() == [2]
    assert FieldTable.of([b"-1 2 3\n"], (3,)).indices(0) is None  # a class index is digits only
    assert FieldTable.of([b"1 nan 3\n"], (3,)).numbers(slice(None)) is None
    assert FieldTable.of([b"1 0 3\n1 1 x\n"], (3,)).flags(1).tolist() == [False, True]
    assert FieldTable.of([b"1 01 3\n"], (3,)).flags(1) is None


def _same_label_sets(a, b) -> None:
    assert a.images == b.images and a.report == b.report
    for name in ("image_id", "category_id", "score", "ignore"):
        x, y = getattr(a.annotations, name), getattr(b.annotations, name)
        assert (x is None and y is None) or np.array_equal(x, y)
    for piece_a, piece_b in zip(a.annotations.regions, b.annotations.regions):
        assert type(piece_a) is type(piece_b)
        if hasattr(piece_a, "to_shapely"):
            assert all(p.equals_exact(q, 0) for p, q in zip(piece_a.to_shapely(), piece_b.to_shapely()))


def test_yolo_and_dota_folders_from_the_table_equal_the_line_reader(tmp_path, monkeypatch):
    rng = np.random.default_rng(4)
    boxes, labels = tmp_path / "yolo", tmp_path / "dota"
    boxes.mkdir()
    labels.mkdir()
    for k in range(6):
        rows = [
            f"{int(rng.integers(0, 80))} {x:.6f} {y:.6f} {w:.4g} {h:.4g} {s!r}"
            for x, y, w, h, s in rng.uniform(0.1, 0.4, (int(rng.integers(0, 5)), 5)).tolist()
        ]
        (boxes / f"image{k}.txt").write_text("\r\n".join(rows))
        quads = []
        for x, y in rng.uniform(0, 900, (int(rng.integers(0, 4)), 2)).tolist():
            corners = [x, y, x + 40.5, y, x + 40.5, y + 20, x, y + 20.25]
            quads.append(
                " ".join(f"{v:g}" for v in corners) + f" {rng.choice(['plane', 'ship'])} {int(rng.integers(0, 2))}"
            )
        (labels / f"P{k:04d}.txt").write_text("imagesource:GoogleEarth\ngsd:0.14\n" + "\n".join(quads) + "\n")
    fast = read_yolo_folder(boxes), read_dota_folder(labels)
    monkeypatch.setattr(yolo, "_folder_columns", lambda *args: None)
    monkeypatch.setattr(yolo, "_yolo_columns", lambda *args: None)
    monkeypatch.setattr(dota, "_label_columns", lambda *args: None)
    slow = read_yolo_folder(boxes), read_dota_folder(labels)
    for a, b in zip(fast, slow):
        _same_label_sets(a, b)
