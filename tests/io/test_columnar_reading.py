"""The column-at-a-time path of the JSON readers: the same regions and refusals as reading record by record.

`read_coco_results` reads a plain file column by column (`geoiou.io.columns`) and falls back to the
record-by-record parser for anything else. A document built in Python with NumPy integers as ids
is accepted by the record parser but not by the column checks, so it takes the slow path: both
paths are compared on the same data through it.
"""

from __future__ import annotations

import io
import json
import re
import sys

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import geoiou
from geoiou import rle
from geoiou.errors import FormatError
from geoiou.io import read_coco_results
from geoiou.io.columns import integer_column, number_column, number_rows


def _write(tmp_path, text: str):
    path = tmp_path / "results.json"
    path.write_text(text)
    return path


def _records(n_masks: int, seed: int, geometry: str) -> list[dict]:
    rng = np.random.default_rng(seed)
    records = []
    for k in range(n_masks):
        height, width = (int(v) for v in rng.integers(1, 7, 2))
        record = {
            "image_id": int(rng.integers(1, 4)),
            "category_id": int(rng.integers(1, 3)),
            "score": float(np.round(rng.random(), 3)),
        }
        if geometry == "bbox":
            record["bbox"] = np.round(rng.uniform(0, 9, 4), 2).tolist()
        elif geometry == "mixed" and rng.random() < 0.6:  # one or two square parts (overlapping or apart)
            x, y = (float(v) for v in np.round(rng.uniform(0, 9, 2), 1))
            square = [x, y, x + 4, y, x + 4, y + 4, x, y + 4]
            record["segmentation"] = [square, [v + 2 for v in square]] if k % 2 else [square]
        else:
            counts = rle.encode(rng.random((height, width)) < 0.5)["counts"].decode()
            record["segmentation"] = {"size": [height, width], "counts": counts}
        records.append(record)
    return records


def _with_numpy_ids(records: list[dict]) -> list[dict]:
    """The same records with NumPy integer ids: valid, but only for the record-by-record parser."""
    return [{**record, "image_id": np.int64(record["image_id"])} for record in records]


def _same_predictions(a, b) -> None:
    assert a.geometry == b.geometry and a.report.read == b.report.read
    for name in ("image_id", "category_id", "score"):
        np.testing.assert_array_equal(getattr(a.annotations, name), getattr(b.annotations, name))
    assert [type(piece) for piece in a.annotations.regions] == [type(piece) for piece in b.annotations.regions]
    for piece_a, piece_b in zip(a.annotations.regions, b.annotations.regions):
        assert len(piece_a) == len(piece_b)
        if hasattr(piece_a, "grid_shape"):
            assert piece_a.grid_shape == piece_b.grid_shape
            np.testing.assert_array_equal(piece_a.data, piece_b.data)
        elif isinstance(piece_a, geoiou.Polygon):
            assert all(x.equals_exact(y, 0) for x, y in zip(piece_a.to_shapely(), piece_b.to_shapely()))
        else:
            np.testing.assert_array_equal(piece_a.to_array("xywh"), piece_b.to_array("xywh"))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 12), seed=st.integers(0, 2**16), geometry=st.sampled_from(["bbox", "segmentation", "mixed"]))
def test_columns_and_records_give_the_same_predictions(n, seed, geometry):
    """Mixed: polygon and RLE segmentations in runs of each kind, each run one batch."""
    records = _records(n, seed, geometry)
    _same_predictions(read_coco_results(records), read_coco_results(_with_numpy_ids(records)))


def test_polygon_results_are_read_by_columns(tmp_path, monkeypatch):
    from geoiou.io import coco

    path = _write(tmp_path, json.dumps(_records(40, 5, "mixed")))
    monkeypatch.setattr(coco, "parse_records", lambda *_: pytest.fail("a plain file read record by record"))
    predictions = read_coco_results(path)
    assert predictions.geometry == "segmentation" and set(predictions.annotations.kinds) == {"Polygon", "Mask"}


def test_masks_of_several_sizes_keep_their_sizes_in_one_batch(tmp_path):
    records = _records(6, 3, "segmentation")
    sizes = [tuple(record["segmentation"]["size"]) for record in records]
    read = read_coco_results(_write(tmp_path, json.dumps(records)))
    (masks,) = read.annotations.regions  # one run table on the largest grid, whatever the order of sizes
    assert masks.grid_shape == tuple(np.max(sizes, axis=0))
    assert [tuple(size) for size in masks.source_shape.tolist()] == sizes
    for record, area in zip(records, masks.area):
        assert area == rle.decode(record["segmentation"]).sum()


@pytest.mark.parametrize(
    "text",
    [
        '[{"image_id": 1, "category_id": 1, "score": 0.5, "score": 0.9, "bbox": [0, 0, 1, 1]}]',  # plain
        '[{"image_id" : 1, "category_id": 1, "score": 0.5, "score": 0.9, "bbox": [0, 0, 1, 1]}]',  # a spaced colon
        '[{"image_id": 1, "category_id": 1, "note": "a \\"quoted\\": word", "score": 0.5, "score": 0.9, '
        '"bbox": [0, 0, 1, 1]}]',  # a quote inside a string, before a colon
    ],
)
def test_a_repeated_key_is_refused_however_the_file_is_written(tmp_path, text):
    with pytest.raises(FormatError, match="the key 'score' twice"):
        read_coco_results(_write(tmp_path, text))


_DATASET = (
    '{"images": [{"id": 1, "height": 9, "width": 9%s}], "categories": [{"id": 1, "name": "a"}], '
    '"annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 2, 2], "area": 4, '
    '"iscrowd": 0, "segmentation": [[0, 0, 2, 0, 2, 2]]%s}]%s}'
)


@pytest.mark.parametrize(("where", "key"), [(0, "width"), (1, "area"), (2, "images")])
def test_a_repeated_key_in_a_dataset_is_refused(tmp_path, where, key):
    repeated = [""] * 3
    repeated[where] = {0: ', "width": 9', 1: ', "area": 4', 2: ', "images": []'}[where]
    with pytest.raises(FormatError, match=f"the key '{key}' twice"):
        geoiou.io.read_coco(_write(tmp_path, _DATASET % tuple(repeated)))


def test_a_plain_dataset_is_proved_free_of_repeated_keys_without_the_hook(tmp_path, monkeypatch):
    # The keys written in the text equal the keys parsed: the per-object hook is not needed.
    from geoiou.io import json_documents

    def refuse(pairs):
        raise AssertionError("the slow check ran on a plain file")

    monkeypatch.setattr(json_documents, "unique_keys", refuse)
    dataset = geoiou.io.read_coco(_write(tmp_path, _DATASET % ("", "", "")))
    assert len(dataset.annotations) == 1


def test_a_file_with_spaced_colons_or_escapes_reads_as_a_plain_one(tmp_path):
    plain = read_coco_results(
        _write(tmp_path, '[{"image_id": 1, "category_id": 2, "score": 0.5, "bbox": [0, 0, 1, 2]}]')
    )
    spaced = read_coco_results(
        _write(tmp_path, '[{"image_id" : 1, "category_id":2, "note": "a\\\\b", "score" : 0.5, "bbox": [0, 0, 1, 2]}]')
    )
    _same_predictions(plain, spaced)


def test_skip_invalid_reads_the_valid_records_of_a_file_with_faults(tmp_path):
    records = _records(5, 1, "bbox")
    records[2]["score"] = "high"
    read = read_coco_results(_write(tmp_path, json.dumps(records)), skip_invalid=True)
    assert read.report.read == 4 and [s.location for s in read.report.skipped] == ["results[2]"]
    np.testing.assert_array_equal(read.annotations.score, [r["score"] for k, r in enumerate(records) if k != 2])


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("image_id", True, "'image_id' must be an integer (got True)"),
        ("image_id", 2**70, "'image_id' must be an integer"),
        ("score", 1e309, "'score' must be a finite number"),
        ("score", 10**400, "'score' must be a finite number"),  # an integer beyond float64: not an OverflowError
        ("bbox", [0, 0, 10**400, 1], "'bbox' must be 4 numbers"),
        ("bbox", [0, 0, -1, 1], "non-negative width and height"),
        ("bbox", [0, 0, "1", 1], "'bbox' must be 4 numbers"),
        ("bbox", [1e308, 0, 1e308, 1], "'bbox' must be 4 numbers"),  # x + w overflows
    ],
)
def test_what_the_columns_refuse_the_record_parser_names(tmp_path, field, value, message):
    records = _records(3, 2, "bbox")
    records[1][field] = value
    text = json.dumps(records).replace("Infinity", "1e309")
    with pytest.raises(FormatError, match=r"results\[1\]: .*" + re.escape(message)):
        read_coco_results(_write(tmp_path, text))


def test_a_malformed_rle_among_many_is_named(tmp_path):
    records = _records(4, 5, "segmentation")
    records[3]["segmentation"]["counts"] += "~"
    with pytest.raises(FormatError, match=r"results\[3\]: 'segmentation' must be a valid COCO RLE"):
        read_coco_results(_write(tmp_path, json.dumps(records)))


def test_column_checks():
    # Exactly the plain JSON forms pass; anything else goes to the record parser.
    assert integer_column([1, 2.0]) is None and integer_column([]).shape == (0,)
    assert number_column([1, float("nan")]) is None and number_column([1, False]) is None
    assert number_rows([[1, 2], [3]], 2) is None and number_rows([(1, 2)], 2) is None
    assert number_rows([], 4).shape == (0, 4)


def _dataset(seed: int) -> dict:
    """Images of two sizes; polygons of one and several parts (overlapping or apart), RLE crowds and boxes."""
    rng = np.random.default_rng(seed)
    images = [{"id": 1, "height": 30, "width": 40}, {"id": 2, "height": 20, "width": 20}]
    annotations = []
    for k in range(12):
        image = images[int(rng.integers(0, 2))]
        x, y = (float(v) for v in np.round(rng.uniform(0, 15, 2), 1))
        square = [x, y, x + 4, y, x + 4, y + 4, x, y + 4]
        kind = k % 4
        if kind == 0:
            segmentation = [square]
        elif kind == 1:  # two parts that overlap: their union
            segmentation = [square, [v + 2 for v in square]]
        elif kind == 2:  # two parts apart
            segmentation = [square, [v + 6 for v in square]]
        else:
            pixels = rng.random((image["height"], image["width"])) < 0.1
            segmentation = {**rle.encode(pixels), "counts": rle.encode(pixels)["counts"].decode()}
        annotations.append(
            {
                "id": 100 + k,
                "image_id": image["id"],
                "category_id": int(rng.integers(1, 3)),
                "segmentation": segmentation,
                "bbox": [x, y, 4.0, 4.0],
                "area": 16.0,
                "iscrowd": int(kind == 3),
            }
        )
    return {
        "images": images,
        "categories": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
        "annotations": annotations,
    }


@pytest.mark.parametrize(
    ("geometry", "polygons"), [("bbox", "exact"), ("segmentation", "exact"), ("segmentation", "pycocotools")]
)
@pytest.mark.parametrize("seed", range(4))
def test_dataset_columns_and_records_give_the_same_annotations(geometry, polygons, seed):
    from geoiou.io import read_coco

    dataset = _dataset(seed)
    slow = {**dataset, "annotations": [{**a, "id": np.int64(a["id"])} for a in dataset["annotations"]]}
    fast = read_coco(dataset, geometry=geometry, polygons=polygons)
    by_record = read_coco(slow, geometry=geometry, polygons=polygons)
    np.testing.assert_array_equal(fast.annotation_ids, by_record.annotation_ids)
    for name in ("image_id", "category_id", "iscrowd", "area"):
        np.testing.assert_array_equal(getattr(fast.annotations, name), getattr(by_record.annotations, name))
    assert [type(p) for p in fast.annotations.regions] == [type(p) for p in by_record.annotations.regions]
    assert fast.report.read == by_record.report.read
    for a, b in zip(fast.annotations.regions, by_record.annotations.regions):
        np.testing.assert_array_equal(a.area, b.area)
        if isinstance(a, geoiou.Mask):  # pycocotools' rasters (and RLE masks) pixel for pixel
            assert a.to_rle() == b.to_rle()
        if isinstance(a, geoiou.Polygon):
            assert all(x.equals(y) for x, y in zip(a.to_shapely(), b.to_shapely()))


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_large_file_shows_its_reading_phases_on_a_terminal(tmp_path, monkeypatch):
    from geoiou.io import json_documents

    path = _write(tmp_path, json.dumps(_records(3, 0, "bbox")))
    monkeypatch.setattr(json_documents, "LARGE_FILE", 1)  # every file counts as large
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    read_coco_results(path)
    assert "reading results.json" in terminal.getvalue() and "2/2" in terminal.getvalue()
    monkeypatch.setattr(json_documents, "LARGE_FILE", 1 << 40)  # a small file: nothing drawn
    terminal.truncate(0)
    read_coco_results(path)
    assert terminal.getvalue().strip("\x00") == ""
