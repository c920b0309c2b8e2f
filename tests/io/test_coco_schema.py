"""One schema (`geoiou.io.coco_schema`) drives both paths of the COCO readers.

The column path asks its columns for the schema's keys, and the record path names a faulty field
with the schema's text. A record made faulty in one field at a time (a wrong type, a missing key,
a value out of range) is read the same way from a file (the compiled tape's columns) and from the
parsed document (`ObjectColumns`), with and without ``skip_invalid``: what the columns refuse, the
record path names, and neither accepts what the other refuses.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geoiou
from geoiou.errors import FormatError
from geoiou.io import coco, read_coco, read_coco_results
from geoiou.io.coco_schema import ANNOTATION, CATEGORY, GEOMETRY, IMAGE, RESULT, Field, read_fields
from geoiou.io.columns import ObjectColumns

from tests.io.test_malformed_coco import GOOD_ANNOTATION, GOOD_RLE
from tests.io.test_malformed_coco import GOOD_RESULT as GOOD_BOX

GOOD_IMAGE = {"id": 1, "height": 4, "width": 4}
GOOD_CATEGORY = {"id": 1, "name": "a"}
MISSING = object()  # a value that stands for the key removed

#: Faulty (or unusual but valid) values of each kind of field.
FAULTS: dict[str, list] = {
    "integer": [MISSING, "1", True, 1.0, 2**70, -(2**63) - 1, None, 9],  # 9: an id of no image or category
    "number": [MISSING, "high", True, float("nan"), float("inf"), 10**400, -1, None],
    "flag": [MISSING, 2, -1, "0", 0.5, True, 1.0, None],
    "string": [MISSING, 7, None, ["a"]],
    "box": [MISSING, [0, 0, -1, 1], [0, 0, 1], "box", [0, 0, "1", 1], [0, 0, True, 1], [1e308, 0, 1e308, 1], []],
    "segmentation": [
        MISSING,
        [],
        [[0, 0, 1]],
        [[0, 0, 2, 0, 2, 2, 0, 0]],  # a part written closed: valid, but only for the record path
        {"size": [4, 4], "counts": [0, 2, 2, 2, 10]},  # uncompressed (crowd) counts: valid
        {"counts": "02208"},
        {"size": [-4, 4], "counts": "02208"},
        {"size": [3, 3], "counts": "02103"},  # valid, but not of the annotation's image size
        {"size": [4, 4], "counts": "04"},
        {"size": [4, 4], "counts": "02208~"},
        {"size": [4, 4], "counts": 7},
        7,
    ],
}


def with_fault(record: dict, key: str, value) -> dict:
    """`record` with `key` set to `value`, or removed for `MISSING`."""
    changed = {k: v for k, v in record.items() if k != key}
    if value is not MISSING:
        changed[key] = value
    return changed


def cases(fields: tuple[Field, ...]) -> list:
    return [
        pytest.param(field, value, id=f"{field.key}={value!r}"[:60]) for field in fields for value in FAULTS[field.kind]
    ]


def write(tmp_path, document) -> str:
    path = tmp_path / "file.json"
    path.write_text(json.dumps(document))
    return str(path)


def outcome(read, source, **options):
    """What a reader makes of `source`: its message without the source's name, or its report and columns."""
    try:
        result = read(source, **options)
    except FormatError as error:
        return ("raised", error.location, error.reason)
    annotations = result.annotations
    columns = {
        name: getattr(annotations, name).tolist()
        for name in ("image_id", "category_id", "score", "iscrowd", "area")
        if getattr(annotations, name, None) is not None
    }
    regions = [
        (type(piece).__name__, np.round(piece.area, 9).tolist(), piece.bounds.tolist()) for piece in annotations.regions
    ]
    skipped = [(s.location, s.reason) for s in result.report.skipped]
    return ("read", result.report.read, skipped, columns, regions)


def same_either_way(read, tmp_path, document) -> None:
    """The file (tape columns) and the parsed document (ObjectColumns) are read alike, skipping or not."""
    path = write(tmp_path, document)
    parsed = json.loads(json.dumps(document))  # the values a file holds (NaN stays NaN, tuples become lists)
    for skip in (False, True):
        assert outcome(read, path, skip_invalid=skip) == outcome(read, parsed, skip_invalid=skip)


# --------------------------------------------------------------------------- the schema is what both paths use
class KeySpy(ObjectColumns):
    """ObjectColumns that note every key they are asked for."""

    def __init__(self, document) -> None:
        super().__init__(document)
        self.asked: set[str] = set()

    def fields(self, objects, keys):
        self.asked.update(keys)
        return super().fields(objects, keys)

    def field(self, objects, key):
        self.asked.add(key)
        return super().field(objects, key)

    def count_having(self, objects, key):
        self.asked.add(key)
        return super().count_having(objects, key)

    def integers_or(self, objects, key, default):
        self.asked.add(key)
        return super().integers_or(objects, key, default)


@pytest.mark.parametrize("geometry", ["bbox", "segmentation"])
def test_the_column_path_of_results_asks_for_the_schemas_keys(geometry):
    spy = KeySpy([GOOD_BOX if geometry == "bbox" else GOOD_RLE] * 3)
    assert coco._prediction_columns(spy, geometry) is not None
    # An RLE's own keys are the RLE reader's, not fields of the record.
    assert spy.asked - {"size", "counts"} == {field.key for field in read_fields(RESULT, geometry)}


def test_the_column_path_of_datasets_asks_for_the_schemas_keys():
    document = {"images": [GOOD_IMAGE], "categories": [GOOD_CATEGORY], "annotations": [GOOD_ANNOTATION]}
    spy = KeySpy(document)
    assert coco._dataset_columns(spy, "bbox", "exact") is not None
    schema = {field.key for fields in (IMAGE, CATEGORY, read_fields(ANNOTATION, "bbox")) for field in fields}
    assert spy.asked == schema | set(coco.DATASET_KEYS)


@pytest.mark.parametrize("field", [field for field in RESULT if field not in GEOMETRY] + [GEOMETRY[0]])
def test_a_missing_result_field_is_named_with_the_schemas_text(field):
    record = with_fault(GOOD_BOX, field.key, MISSING)
    expected = f"results[1]: '{field.key}' must be {field.expected} (got nothing: the key is missing)"
    with pytest.raises(FormatError, match=re.escape(expected)):
        read_coco_results([GOOD_BOX, record], geometry="bbox")


@pytest.mark.parametrize("field", [field for field in ANNOTATION if field.default is None and not field.optional])
def test_a_missing_annotation_field_is_named_with_the_schemas_text(field):
    document = {"images": [GOOD_IMAGE], "categories": [GOOD_CATEGORY], "annotations": []}
    document["annotations"] = [GOOD_ANNOTATION, with_fault({**GOOD_ANNOTATION, "id": 2}, field.key, MISSING)]
    geometry = field.key if field in GEOMETRY else "bbox"
    expected = f"'{field.key}' must be {field.expected} (got nothing: the key is missing)"
    with pytest.raises(FormatError, match=r"annotations\[1\].*: " + re.escape(expected)):
        read_coco(document, geometry=geometry)


def test_a_rule_changed_in_the_schema_changes_both_paths(tmp_path, monkeypatch):
    # One edit: scores must now be at least 0, said "a probability". The column path now refuses
    # the negative score and the record path names it, in the schema's words.
    score = Field("score", "number", "a probability", minimum=0.0)
    monkeypatch.setattr(coco, "RESULT", (RESULT[0], RESULT[1], score, *GEOMETRY))
    records = [GOOD_BOX, {**GOOD_BOX, "score": -0.5}]
    for source in (records, write(tmp_path, records)):
        with pytest.raises(FormatError, match=re.escape("results[1]: 'score' must be a probability (got -0.5)")):
            read_coco_results(source)
        assert read_coco_results(source, skip_invalid=True).report.read == 1


# --------------------------------------------------------------------------- one faulty field at a time
@pytest.mark.parametrize(("field", "value"), cases(read_fields(RESULT, "bbox")))
def test_a_faulty_box_result_reads_alike_from_a_file_and_a_document(tmp_path, field, value):
    document = [GOOD_BOX, with_fault(GOOD_BOX, field.key, value), GOOD_BOX]
    same_either_way(read_coco_results, tmp_path, document)


@pytest.mark.parametrize(("field", "value"), cases((GEOMETRY[1],)))
def test_a_faulty_rle_result_reads_alike_from_a_file_and_a_document(tmp_path, field, value):
    document = [GOOD_RLE, with_fault(GOOD_RLE, field.key, value), GOOD_RLE]
    same_either_way(lambda source, **kw: read_coco_results(source, geometry="segmentation", **kw), tmp_path, document)


@pytest.mark.parametrize("geometry", ["bbox", "segmentation"])
@pytest.mark.parametrize(("field", "value"), cases(ANNOTATION))
def test_a_faulty_annotation_reads_alike_from_a_file_and_a_document(tmp_path, field, value, geometry):
    second = with_fault({**GOOD_ANNOTATION, "id": 2}, field.key, value)
    document = {"images": [GOOD_IMAGE], "categories": [GOOD_CATEGORY], "annotations": [GOOD_ANNOTATION, second]}
    same_either_way(lambda source, **kw: read_coco(source, geometry=geometry, **kw), tmp_path, document)


@pytest.mark.parametrize(
    ("section", "field", "value"),
    [("images", *case.values) for case in cases(IMAGE)] + [("categories", *case.values) for case in cases(CATEGORY)],
)
def test_a_faulty_image_or_category_reads_alike_from_a_file_and_a_document(tmp_path, section, field, value):
    good = GOOD_IMAGE if section == "images" else GOOD_CATEGORY
    document = {"images": [GOOD_IMAGE], "categories": [GOOD_CATEGORY], "annotations": [GOOD_ANNOTATION]}
    document[section] = [good, with_fault({**good, "id": 2}, field.key, value)]
    same_either_way(read_coco, tmp_path, document)


@pytest.mark.parametrize("value", [0, -3])
def test_an_image_size_below_the_schemas_minimum_is_named(tmp_path, value):
    document = {"images": [{**GOOD_IMAGE, "width": value}], "categories": [GOOD_CATEGORY], "annotations": []}
    for source in (document, write(tmp_path, document)):
        with pytest.raises(
            FormatError, match=re.escape(f"images[0] (id 1): 'width' must be {IMAGE[1].below} (got {value})")
        ):
            read_coco(source)


FIELD_FAULTS = st.sampled_from(
    [(field, value) for field in read_fields(RESULT, "bbox") for value in FAULTS[field.kind]]
)


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(size=st.integers(1, 8), faults=st.lists(st.tuples(st.integers(0, 7), FIELD_FAULTS), max_size=4))
def test_results_with_faults_here_and_there_read_alike(size, faults):
    rng = np.random.default_rng(size)
    records = [
        {"image_id": int(rng.integers(1, 4)), "category_id": 1, "score": float(rng.random()), "bbox": [0, 0, 1, 2]}
        for _ in range(size)
    ]
    for row, (field, value) in faults:
        if row < size:
            records[row] = with_fault(records[row], field.key, value)
    with tempfile.TemporaryDirectory() as folder:
        same_either_way(read_coco_results, Path(folder), records)


def test_an_unusual_but_valid_record_takes_the_record_path_and_is_read(tmp_path):
    # A float flag and a part written closed: plain for neither kind of columns, valid for the record path.
    second = {**GOOD_ANNOTATION, "id": 2, "iscrowd": 1.0, "segmentation": [[0, 0, 2, 0, 2, 2, 0, 0]]}
    document = {"images": [GOOD_IMAGE], "categories": [GOOD_CATEGORY], "annotations": [GOOD_ANNOTATION, second]}
    for source in (document, write(tmp_path, document)):
        dataset = read_coco(source, geometry="segmentation")
        assert dataset.annotations.iscrowd.tolist() == [False, True]
        assert isinstance(dataset.annotations.regions[0], geoiou.Polygon) and dataset.report.read == 4
