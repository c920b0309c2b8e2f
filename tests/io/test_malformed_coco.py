"""A corpus of malformed COCO files: each is refused with a FormatError naming the file (and the record where there
is one), or skipped and reported with skip_invalid; never a raw KeyError/TypeError/ValueError from inside, never a hang.

Both readers take plain files column by column and fall back to reading record by record; every case here must
come out the same way whichever path it takes.
"""

from __future__ import annotations

import json

import pytest

from geoiou.errors import FormatError
from geoiou.io import read_coco, read_coco_results

GOOD_RESULT = {"image_id": 1, "category_id": 1, "score": 0.5, "bbox": [0, 0, 2, 2]}
# A 2 x 2 square in a 4 x 4 image (runs 5, 2, 2, 2, 5): the one good record beside each faulty one.
GOOD_RLE = {"image_id": 1, "category_id": 1, "score": 0.5, "segmentation": {"size": [4, 4], "counts": "52203"}}
GOOD_ANNOTATION = {
    "id": 1,
    "image_id": 1,
    "category_id": 1,
    "bbox": [0, 0, 2, 2],
    "area": 4.0,
    "iscrowd": 0,
    "segmentation": [[0, 0, 2, 0, 2, 2, 0, 2]],
}


def dataset(**changes) -> dict:
    return {
        "images": [{"id": 1, "height": 4, "width": 4}],
        "categories": [{"id": 1, "name": "a"}],
        "annotations": [GOOD_ANNOTATION, {**GOOD_ANNOTATION, "id": 2, **changes}],
    }


RESULT_TEXTS = {
    "empty file": "",
    "truncated": json.dumps([GOOD_RESULT, GOOD_RESULT])[:-7],
    "binary garbage": "\x00\x01\x02\xff" * 10,
    "an object, not a list": json.dumps({"results": [GOOD_RESULT]}),
    "NaN score": json.dumps([GOOD_RESULT, {**GOOD_RESULT, "score": float("nan")}]),
    "1e309 in a box": json.dumps([GOOD_RESULT]).replace("2]", "1e309]", 1),
    "negative width": json.dumps([GOOD_RESULT, {**GOOD_RESULT, "bbox": [0, 0, -2, 2]}]),
    "string id": json.dumps([GOOD_RESULT, {**GOOD_RESULT, "image_id": "1"}]),
    "missing score": json.dumps([GOOD_RESULT, {k: v for k, v in GOOD_RESULT.items() if k != "score"}]),
    "box of three": json.dumps([GOOD_RESULT, {**GOOD_RESULT, "bbox": [0, 0, 2]}]),
    "a record that is a list": json.dumps([GOOD_RESULT, [1, 1, 0.5]]),
    "RLE counts not a string": json.dumps([GOOD_RLE, {**GOOD_RLE, "segmentation": {"size": [4, 4], "counts": 7}}]),
    "RLE counts too short": json.dumps([GOOD_RLE, {**GOOD_RLE, "segmentation": {"size": [4, 4], "counts": "04"}}]),
    "RLE size negative": json.dumps([GOOD_RLE, {**GOOD_RLE, "segmentation": {"size": [-4, 4], "counts": "52203"}}]),
    "RLE without size": json.dumps([GOOD_RLE, {**GOOD_RLE, "segmentation": {"counts": "52203"}}]),
    "repeated key": '[{"image_id": 1, "image_id": 2, "category_id": 1, "score": 0.5, "bbox": [0, 0, 2, 2]}]',
    "id beyond 64 bits": json.dumps([GOOD_RESULT, {**GOOD_RESULT, "category_id": 2**70}]),
}

DATASET_TEXTS = {
    "empty file": "",
    "truncated": json.dumps(dataset())[:-9],
    "binary garbage": "\x89PNG\r\n\x1a\n" + "\x00" * 20,
    "a list": json.dumps([GOOD_ANNOTATION]),
    "no images key": json.dumps({k: v for k, v in dataset().items() if k != "images"}),
    "images not a list": json.dumps({**dataset(), "images": {"id": 1}}),
    "image of negative height": json.dumps({**dataset(), "images": [{"id": 1, "height": -4, "width": 4}]}),
    "annotation of an unknown image": json.dumps(dataset(image_id=9)),
    "repeated annotation id": json.dumps(dataset(id=1)),
    "iscrowd 2": json.dumps(dataset(iscrowd=2)),
    "NaN in a polygon": json.dumps(dataset(segmentation=[[0, 0, 2, 0, float("nan"), 2]])),
    "odd polygon": json.dumps(dataset(segmentation=[[0, 0, 2, 0, 2]])),
    "empty segmentation": json.dumps(dataset(segmentation=[])),
    "polygon part of strings": json.dumps(dataset(segmentation=[["0", "0", "2", "0", "2", "2"]])),
    "crossing polygon": json.dumps(dataset(segmentation=[[0, 0, 2, 2, 2, 0, 0, 2]])),
    "RLE of another size": json.dumps(dataset(segmentation={"size": [3, 3], "counts": "09"})),
    "area missing in one": json.dumps(
        {
            **dataset(),
            "annotations": [GOOD_ANNOTATION, {k: v for k, v in {**GOOD_ANNOTATION, "id": 2}.items() if k != "area"}],
        }
    ),
    "negative area": json.dumps(dataset(area=-1.0)),
    "bbox with a bool": json.dumps(dataset(bbox=[0, 0, True, 2])),
}


def _check(read, tmp_path, name: str, text: str) -> None:
    path = tmp_path / "file.json"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    with pytest.raises(FormatError) as raised:
        read(path)
    assert str(path) in str(raised.value), f"{name}: the message names the file"
    try:  # with skip_invalid a record fault is reported; a fault of the whole file still raises
        report = read(path, skip_invalid=True).report
    except FormatError as error:
        assert error.location == "", f"{name}: only whole-file faults raise with skip_invalid ({error})"
    else:
        assert report.skipped, f"{name}: a skipped record is reported"


@pytest.mark.parametrize("name", list(RESULT_TEXTS))
def test_malformed_result_files(tmp_path, name):
    _check(read_coco_results, tmp_path, name, RESULT_TEXTS[name])


@pytest.mark.parametrize("name", [name for name in RESULT_TEXTS if name.startswith("RLE")])
def test_the_good_rle_beside_a_faulty_one_is_read(tmp_path, name):
    # The faulty record is skipped, not the file: the good one is valid, so the fault is the RLE named.
    path = tmp_path / "file.json"
    path.write_text(RESULT_TEXTS[name])
    predictions = read_coco_results(path, skip_invalid=True)
    assert predictions.report.read == 1 and len(predictions.annotations) == 1
    assert predictions.annotations.regions[0].area.tolist() == [4.0]
    assert read_coco_results([GOOD_RLE]).annotations.regions[0].area.tolist() == [4.0]


@pytest.mark.parametrize("geometry", ["bbox", "segmentation"])
@pytest.mark.parametrize("name", list(DATASET_TEXTS))
def test_malformed_dataset_files(tmp_path, name, geometry):
    text = DATASET_TEXTS[name]
    geometry_only = {
        "NaN in a polygon",
        "odd polygon",
        "empty segmentation",
        "polygon part of strings",
        "crossing polygon",
        "RLE of another size",
    }
    if name in geometry_only and geometry == "bbox":
        pytest.skip("a fault of the segmentation, not read for boxes")
    if name == "bbox with a bool" and geometry == "segmentation":
        pytest.skip("a fault of the box, not read for segmentations")
    _check(lambda path, **kw: read_coco(path, geometry=geometry, **kw), tmp_path, name, text)


def test_a_byte_order_mark_is_read_past(tmp_path):
    # Windows tools write one; the text readers and the JSON readers read past it alike.
    path = tmp_path / "results.json"
    path.write_text("\ufeff" + json.dumps([GOOD_RESULT]), encoding="utf-8")
    assert read_coco_results(path).report.read == 1
