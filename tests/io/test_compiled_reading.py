"""COCO and ActivityNet files read from their tape equal the record-by-record reading, bit for bit.

A file is read from its bytes (`geoiou.io.json_tape`); the same document parsed by ``json.loads``
and read record by record (the path that names faults) must give the same columns, and a file with
one faulty record must raise the same message as the record path (the tape never accepts what
the record path refuses). Records are drawn shuffled, masks of several sizes, numbers with
exponents, negative zeros, huge and tiny values.
"""

from __future__ import annotations

import json
import struct

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings

import geoiou
from geoiou import rle
from geoiou.errors import FormatError, InvalidArgumentError
from geoiou.io import activitynet, coco, read_activitynet, read_coco, read_coco_results

#: Numbers as files hold them: rounded, with exponents, negative zero, huge and tiny (all finite).
numbers = (
    st.floats(0, 1e6, allow_nan=False).map(lambda v: round(v, 2))
    | st.floats(allow_nan=False, allow_infinity=False, min_value=-1e150, max_value=1e150)
    | st.sampled_from([0.0, -0.0, 1e-300, 1e22, 1e23, 0.1, 0.30000000000000004, 2**53 + 1.0])
    | st.integers(-(2**60), 2**60)
)
coordinates = st.floats(-1e6, 1e6, allow_nan=False) | st.sampled_from([0.0, -0.0, 0.1, 1e-300, 2**40 + 0.5])
sizes = st.floats(0, 1e5, allow_nan=False) | st.sampled_from([0.0, -0.0, 1e-3, 2.5e-7]) | st.integers(0, 10**6)


def _number_text(value: float | int, style: int) -> str:
    """`value` written as different tools write it: repr, exponent form, or %.17g."""
    if isinstance(value, int) or style == 0:
        return json.dumps(value)
    return f"{value:.17e}" if style == 1 else f"{value:.17g}"


def _bits(array: np.ndarray) -> bytes:
    return np.ascontiguousarray(array, dtype=np.float64).tobytes()


@st.composite
def box_results(draw):
    n = draw(st.integers(0, 12))
    records = []
    for _ in range(n):
        x, y = draw(coordinates), draw(coordinates)
        w, h = draw(sizes), draw(sizes)
        records.append(
            {
                "image_id": draw(st.integers(-(2**63), 2**63 - 1)),
                "category_id": draw(st.integers(0, 1000)),
                "score": draw(numbers),
                "bbox": [x, y, w, h],
            }
        )
    return records


def _text(records: list, style: int) -> str:
    """JSON text of records with their numbers written in `style` (see `_number_text`)."""
    if style == 0:
        return json.dumps(records)

    def write(value):
        if isinstance(value, dict):
            return "{" + ", ".join(f"{json.dumps(k)}: {write(v)}" for k, v in value.items()) + "}"
        if isinstance(value, list):
            return "[" + ", ".join(write(v) for v in value) + "]"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return _number_text(value, style)
        return json.dumps(value)

    return write(records)


def _by_record(monkeypatch, read, *args, **kwargs):
    """What `read` gives when every file takes the record path (the fast path answers None)."""
    with monkeypatch.context() as patched:
        patched.setattr(coco, "_prediction_columns", lambda *a, **k: None)
        patched.setattr(coco, "_dataset_columns", lambda *a, **k: None)
        patched.setattr(activitynet, "_segment_columns", lambda *a, **k: None)
        patched.setattr(activitynet, "_file_columns", lambda *a, **k: None)
        return read(*args, **kwargs)


def _same_predictions(a, b) -> None:
    assert a.geometry == b.geometry and a.report == b.report
    np.testing.assert_array_equal(a.annotations.image_id, b.annotations.image_id)
    np.testing.assert_array_equal(a.annotations.category_id, b.annotations.category_id)
    assert _bits(a.annotations.score) == _bits(b.annotations.score)
    assert [type(p) for p in a.annotations.regions] == [type(p) for p in b.annotations.regions]
    for piece_a, piece_b in zip(a.annotations.regions, b.annotations.regions):
        if isinstance(piece_a, geoiou.Box):
            assert _bits(piece_a.to_array("xyxy")) == _bits(piece_b.to_array("xyxy"))
        else:
            assert piece_a.to_rle() == piece_b.to_rle()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(box_results(), st.integers(0, 2))
def test_box_results_from_the_tape_equal_the_record_path(tmp_path, monkeypatch, records, style):
    path = tmp_path / "results.json"
    path.write_text(_text(records, style))
    try:
        fast = read_coco_results(path, geometry="bbox")
        event("read")
    except FormatError as error:  # a box the record path refuses too (a size rounded away): the same message
        event("refused")
        with pytest.raises(FormatError) as slow:
            _by_record(monkeypatch, read_coco_results, path, geometry="bbox")
        assert str(slow.value) == str(error)
        return
    _same_predictions(fast, _by_record(monkeypatch, read_coco_results, path, geometry="bbox"))


def _mask_records(seed: int, n: int) -> list[dict]:
    """RLE results of several image sizes, shuffled (as ranks of distributed inference write them)."""
    rng = np.random.default_rng(seed)
    records = []
    for _ in range(n):
        height, width = (int(v) for v in rng.choice([1, 3, 7, 40], 2))
        pixels = rng.random((height, width)) < rng.choice([0.0, 0.2, 0.9, 1.0])
        records.append(
            {
                "image_id": int(rng.integers(1, 5)),
                "category_id": int(rng.integers(1, 3)),
                "segmentation": {"size": [height, width], "counts": rle.encode(pixels)["counts"].decode()},
                "score": float(rng.random()),
            }
        )
    return records


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**32), st.integers(1, 30), st.booleans())
def test_rle_results_from_the_tape_equal_the_record_path(tmp_path, monkeypatch, seed, n, uncompressed):
    records = _mask_records(seed, n)
    if uncompressed:  # counts written as lists of run lengths, as crowd annotations are
        for record in records[::2]:
            rle_dict = record["segmentation"]
            rle_dict["counts"] = rle.decompress(rle_dict["counts"]).tolist()
    path = tmp_path / "results.json"
    path.write_text(json.dumps(records))
    _same_predictions(read_coco_results(path), _by_record(monkeypatch, read_coco_results, path))


#: One faulty value per field, as files hold them (the record path names each).
FAULTS = {
    "image_id": ["1", 1.0, True, None, 2**64, -(2**63) - 1, [1], 1e3],
    "category_id": ["cat", 2.5, False],
    "score": ["0.5", None, float("nan"), float("inf"), [0.5], True],
    "bbox": [[0, 0, 1], [0, 0, -1, 1], [0, 0, 1, "2"], [1e308, 0, 1e308, 1], "0 0 1 1", [0, 0, 1, None], {}],
    "segmentation": [
        {"size": [2, 2], "counts": "4~"},
        {"size": [2, 2], "counts": "5"},
        {"size": [2, 2], "counts": "3"},
        {"size": [2, 2.0], "counts": "4"},
        {"size": [2], "counts": "4"},
        {"size": [2, 2], "counts": [1, -1, 4]},
        {"size": [2, 2], "counts": [1.0, 3]},
        {"size": [2, 2], "counts": 4},
        {"counts": "4"},
        {"size": [2, 2], "counts": "4\\\\"},
        {"size": [-2, 2], "counts": ""},
        {"size": [2**30, 2**30], "counts": "0"},
        [[0, 0, 1, 0, 1]],
        None,
    ],
}


@pytest.mark.parametrize(
    ("geometry", "field", "value"),
    [
        (geometry, field, value)
        for geometry in ("bbox", "segmentation")
        for field, values in FAULTS.items()
        if field in ("image_id", "category_id", "score", geometry)
        for value in values
    ]
    + [("bbox", "bbox", None), ("segmentation", "score", "missing")],
)
def test_a_faulty_record_in_a_file_gets_the_record_paths_message(tmp_path, monkeypatch, geometry, field, value):
    records = (
        _mask_records(5, 6)
        if geometry == "segmentation"
        else [{"image_id": k, "category_id": 1, "score": 0.5, "bbox": [0, 0, 1, 1]} for k in range(6)]
    )
    if value == "missing":
        del records[4][field]
    else:
        records[4][field] = value
    path = tmp_path / "results.json"
    path.write_text(json.dumps(records).replace("NaN", "NaN").replace("Infinity", "Infinity"))
    with pytest.raises(FormatError) as expected:
        _by_record(monkeypatch, read_coco_results, path, geometry=geometry)
    with pytest.raises(FormatError) as raised:
        read_coco_results(path, geometry=geometry)
    assert str(raised.value) == str(expected.value) and "results[4]" in str(raised.value)
    skipped = read_coco_results(path, geometry=geometry, skip_invalid=True)
    assert (
        skipped.report == _by_record(monkeypatch, read_coco_results, path, geometry=geometry, skip_invalid=True).report
    )


def _dataset(seed: int) -> dict:
    """Images of several sizes; polygon, multi-part and RLE (string and list) annotations, shuffled."""
    rng = np.random.default_rng(seed)
    images = [{"id": k, "height": int(h), "width": int(w)} for k, (h, w) in enumerate(rng.integers(5, 40, (4, 2)))]
    annotations = []
    for k in rng.permutation(20).tolist():
        image = images[int(rng.integers(0, len(images)))]
        x, y = (float(v) for v in np.round(rng.uniform(0, 4, 2), 1))
        square = [x, y, x + 1, y, x + 1, y + 1, x, y + 1]
        kind = k % 4
        if kind == 0:
            segmentation = [square]
        elif kind == 1:
            segmentation = [square, [v + 0.5 for v in square]]
        else:
            pixels = rng.random((image["height"], image["width"])) < 0.3
            counts = rle.encode(pixels)["counts"]
            segmentation = {"size": [image["height"], image["width"]], "counts": counts.decode()}
            if kind == 3:
                segmentation["counts"] = rle.decompress(counts).tolist()
        annotation = {
            "id": 100 + k,
            "image_id": image["id"],
            "category_id": int(rng.integers(1, 3)),
            "segmentation": segmentation,
            "bbox": [x, y, 1.0, 1.0],
            "area": float(rng.uniform(0, 9)),
        }
        if kind != 2:
            annotation["iscrowd"] = int(kind == 3)
        annotations.append(annotation)
    return {
        "info": {"note": "passed over"},
        "images": images,
        "categories": [{"id": 1, "name": "a"}, {"id": 2, "name": "b\u00e9"}],
        "annotations": annotations,
    }


def _same_datasets(a, b) -> None:
    assert a.images == b.images and a.categories == b.categories and a.report == b.report
    np.testing.assert_array_equal(a.annotation_ids, b.annotation_ids)
    for name in ("image_id", "category_id", "iscrowd"):
        np.testing.assert_array_equal(getattr(a.annotations, name), getattr(b.annotations, name))
    assert _bits(a.annotations.area) == _bits(b.annotations.area)
    assert [type(p) for p in a.annotations.regions] == [type(p) for p in b.annotations.regions]
    for piece_a, piece_b in zip(a.annotations.regions, b.annotations.regions):
        if isinstance(piece_a, geoiou.Mask):
            assert piece_a.to_rle() == piece_b.to_rle()
        elif isinstance(piece_a, geoiou.Polygon):
            assert all(x.equals_exact(y, 0) for x, y in zip(piece_a.to_shapely(), piece_b.to_shapely()))
        else:
            assert _bits(piece_a.to_array("xyxy")) == _bits(piece_b.to_array("xyxy"))


@pytest.mark.parametrize(
    ("geometry", "polygons"), [("bbox", "exact"), ("segmentation", "exact"), ("segmentation", "pycocotools")]
)
@pytest.mark.parametrize("seed", range(4))
def test_dataset_files_from_the_tape_equal_the_record_path(tmp_path, monkeypatch, geometry, polygons, seed):
    path = tmp_path / "instances.json"
    path.write_text(json.dumps(_dataset(seed)))
    fast = read_coco(path, geometry=geometry, polygons=polygons)
    _same_datasets(fast, _by_record(monkeypatch, read_coco, path, geometry=geometry, polygons=polygons))


@pytest.mark.parametrize(
    ("section", "field", "value"),
    [
        ("images", "height", 0),
        ("images", "id", 1.5),
        ("categories", "name", 3),
        ("annotations", "image_id", 99),
        ("annotations", "iscrowd", 2),
        ("annotations", "iscrowd", 1.0),  # accepted by both paths: a 0/1 flag written as a number
        ("annotations", "area", -1),
        ("annotations", "segmentation", [[0, 0, 1, 1, 0, 1, 1, 0]]),  # a bow tie
        ("annotations", "segmentation", {"size": [1, 1], "counts": "1"}),  # not the image's size
        ("annotations", "segmentation", [[0, 0, 1, 0, 1, 1, 0, 0]]),  # written closed: read by the record path
    ],
)
def test_a_dataset_record_the_tape_declines_gets_the_record_paths_reading(tmp_path, monkeypatch, section, field, value):
    dataset = _dataset(1)
    dataset[section][1][field] = value
    path = tmp_path / "instances.json"
    path.write_text(json.dumps(dataset))
    try:
        expected = _by_record(monkeypatch, read_coco, path, geometry="segmentation", skip_invalid=True)
    except FormatError as error:
        with pytest.raises(FormatError, match=str(error).split(":")[-1][:20]):
            read_coco(path, geometry="segmentation", skip_invalid=True)
        return
    _same_datasets(read_coco(path, geometry="segmentation", skip_invalid=True), expected)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**32), st.sampled_from(["results", "database"]), st.integers(0, 2))
def test_activitynet_files_from_the_tape_equal_the_record_path(tmp_path, monkeypatch, seed, kind, style):
    rng = np.random.default_rng(seed)
    videos = {}
    for k in rng.permutation(8).tolist():
        entries = [
            {"segment": [float(s), float(s) + float(d)], "label": str(rng.choice(["Long jump", "sh\u00f6t", "a\\b"]))}
            for s, d in zip(rng.uniform(-5, 50, int(rng.integers(0, 5))), rng.uniform(0, 9, 5))
        ]
        if kind == "results":
            videos[f"v_{k}"] = [{**entry, "score": float(rng.random())} for entry in entries]
        else:
            subset = str(rng.choice(["validation", "training"]))
            videos[f"v_{k}"] = {"subset": subset, "duration": float(rng.uniform(50, 90)), "annotations": entries}
    path = tmp_path / "activitynet.json"
    path.write_text(_text({"version": "VERSION 1.3", kind: videos}, style))
    # Ground truth: ActivityNet's default subset, every video, and one subset asked for.
    for subset in (None,) if kind == "results" else (None, "all", "training"):
        fast = read_activitynet(path, subset=subset)
        slow = _by_record(monkeypatch, read_activitynet, path, subset=subset)
        for name in ("video_id", "label"):
            assert getattr(fast.segments, name).tolist() == getattr(slow.segments, name).tolist()
        for name in ("start", "end", "score"):
            a, b = getattr(fast.segments, name), getattr(slow.segments, name)
            assert (a is None and b is None) or _bits(a) == _bits(b)
        assert fast.segments.videos == slow.segments.videos and fast.report == slow.report
        assert (fast.subset, fast.durations, fast.kind) == (slow.subset, slow.durations, slow.kind)


def test_plain_activitynet_ground_truth_is_read_from_the_tape(tmp_path, monkeypatch):
    """A plain ground-truth file never reaches json.loads: the videos, their subsets and durations and the
    annotations come from the tape (a subset no video has is refused by the same check)."""
    database = {
        f"v_{k}": {
            "subset": "validation" if k % 3 else "testing",
            "duration": 10.0 + k,
            "annotations": [{"segment": [k, k + 1.5], "label": "run"}] * (k % 2),
        }
        for k in range(9)
    }
    path = tmp_path / "gt.json"
    path.write_text(json.dumps({"version": "VERSION 1.3", "database": database}))
    monkeypatch.setattr(json, "loads", lambda *a, **k: pytest.fail("json.loads read a plain file"))
    read = read_activitynet(path)
    assert read.subset == "validation" and len(read.segments.videos) == 6 and len(read.segments) == 3
    assert read.durations == {f"v_{k}": 10.0 + k for k in range(9) if k % 3}
    with pytest.raises(InvalidArgumentError, match="'subset' must be a subset that videos of .* have"):
        read_activitynet(path, subset="training")


def test_the_record_path_is_not_taken_for_plain_files(tmp_path, monkeypatch):
    # A plain file never reaches json.loads: its columns come from the tape.
    records = _mask_records(2, 10)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(records))
    monkeypatch.setattr(json, "loads", lambda *a, **k: pytest.fail("json.loads read a plain file"))
    assert len(read_coco_results(path).annotations) == 10


def test_negative_zero_and_exponents_keep_their_bits(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(
        '[{"image_id": 1, "category_id": 1, "score": -0.0, "bbox": [-0.0, 1E2, 2.5e-3, 0]},'
        ' {"image_id": 2, "category_id": 1, "score": 1e-320, "bbox": [0.1, 0.2, 0.30000000000000004, 123456789012]}]'
    )
    read = read_coco_results(path)
    score = read.annotations.score
    assert struct.pack("<d", score[0]) == struct.pack("<d", -0.0) and score[1] == 1e-320
    np.testing.assert_array_equal(
        read.annotations.regions[0].to_array("xywh"),
        [[-0.0, 100.0, 0.0025, 0.0], [0.1, 0.2, 0.30000000000000004, 123456789012.0]],
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**32), st.integers(1, 40), st.integers(2, 5), st.booleans())
def test_masks_decoded_in_pieces_equal_one_piece(tmp_path, monkeypatch, seed, n, pieces, faulty):
    from geoiou.io import json_rle

    records = _mask_records(seed, n)
    if faulty and records:  # a fault in some piece: no piece's runs are kept, the record path names it
        records[len(records) // 2]["segmentation"]["counts"] += "1"
    path = tmp_path / "results.json"
    path.write_text(json.dumps(records))
    try:
        whole = read_coco_results(path, geometry="segmentation")
    except FormatError as error:
        whole = error
    with monkeypatch.context() as patched:
        patched.setattr(json_rle, "PIECE_SLOTS", 1)
        patched.setattr(json_rle, "wanted_pieces", lambda: pieces)
        try:
            cut = read_coco_results(path, geometry="segmentation")
        except FormatError as error:
            cut = error
    if isinstance(whole, FormatError):
        assert isinstance(cut, FormatError) and str(cut) == str(whole)
    else:
        _same_predictions(cut, whole)
