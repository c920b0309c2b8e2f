"""A corpus of malformed files for the text and JSON readers other than COCO (see test_malformed_coco.py).

Each file is refused with a FormatError that names the file, or with skip_invalid its faulty records are skipped and
reported; a fault of the whole file (not JSON, not UTF-8, no usable top level) always raises. Never a raw exception
from inside a reader, never a hang.
"""

from __future__ import annotations

import json

import pytest

from geoiou.errors import FormatError
from geoiou.io import read_activitynet, read_dota, read_geojson, read_wkt
from geoiou.io.yolo import read_yolo

SQUARE = "0 0 4 0 4 4 0 4"
DOTA_TEXTS = {
    "binary garbage": b"\x00\x01\xff\xfe garbage",
    "a BOM and a good line": ("\ufeff" + f"{SQUARE} ship 0\n").encode(),
    "too few fields": f"{SQUARE} ship 0\n0 0 4 0 4 4 ship\n".encode(),
    "NaN corner": f"{SQUARE} ship 0\nnan 0 4 0 4 4 0 4 ship 0\n".encode(),
    "1e309 corner": f"{SQUARE} ship 0\n1e309 0 4 0 4 4 0 4 ship 0\n".encode(),
    "difficult 2": f"{SQUARE} ship 0\n{SQUARE} ship 2\n".encode(),
    "crossing corners": f"{SQUARE} ship 0\n0 0 4 4 4 0 0 4 ship 0\n".encode(),
    "a truncated last line": f"{SQUARE} ship 0\n0 0 4 0 4".encode(),
}
YOLO_TEXTS = {
    "binary garbage": b"\x89PNG\r\n\x1a\n\x00\x00",
    "class not an integer": b"0 0.5 0.5 0.2 0.2\ndog 0.5 0.5 0.2 0.2\n",
    "negative class": b"0 0.5 0.5 0.2 0.2\n-1 0.5 0.5 0.2 0.2\n",
    "coordinate above one": b"0 0.5 0.5 0.2 0.2\n0 1.5 0.5 0.2 0.2\n",
    "NaN size": b"0 0.5 0.5 0.2 0.2\n0 0.5 0.5 nan 0.2\n",
    "seven fields": b"0 0.5 0.5 0.2 0.2\n0 0.5 0.5 0.2 0.2 0.9 0.1\n",
    "conf on some lines only": b"0 0.5 0.5 0.2 0.2 0.9\n0 0.5 0.5 0.2 0.2\n",
}
ACTIVITYNET_TEXTS = {
    "empty file": b"",
    "binary garbage": b"\xff\xfe\x00garbage",
    "truncated": json.dumps({"results": {"v": [{"label": "a", "score": 0.5, "segment": [0, 1]}]}})[:-4].encode(),
    "a list": b"[]",
    "neither database nor results": b'{"version": "1.3"}',
    "segment of one number": json.dumps(
        {
            "results": {
                "v": [{"label": "a", "score": 0.5, "segment": [0, 1]}, {"label": "a", "score": 0.5, "segment": [2]}]
            }
        }
    ).encode(),
    "NaN score": json.dumps(
        {
            "results": {
                "v": [
                    {"label": "a", "score": 0.5, "segment": [0, 1]},
                    {"label": "a", "score": float("nan"), "segment": [0, 1]},
                ]
            }
        }
    ).encode(),
    "label not a string": json.dumps(
        {
            "database": {
                "v": {
                    "subset": "validation",
                    "duration": 5,
                    "annotations": [{"label": "a", "segment": [0, 1]}, {"label": 3, "segment": [0, 1]}],
                }
            }
        }
    ).encode(),
    "negative duration": json.dumps(
        {
            "database": {
                "v": {"subset": "validation", "duration": -5, "annotations": [{"label": "a", "segment": [0, 1]}]},
                "w": {"subset": "validation", "duration": 5, "annotations": []},
            }
        }
    ).encode(),
    "repeated video": b'{"results": {"v": [], "v": []}}',
}
GEOJSON_TEXTS = {
    "empty file": b"",
    "binary garbage": b"\x00\xff",
    "not GeoJSON": b'{"type": "Nothing"}',
    "a ring of two points": json.dumps(
        {
            "type": "FeatureCollection",
            "features": [
                {
                    "type": "Feature",
                    "properties": {},
                    "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [0, 0]]]},
                },
                {
                    "type": "Feature",
                    "properties": {},
                    "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]},
                },
            ],
        }
    ).encode(),
    "coordinates of strings": json.dumps(
        {
            "type": "FeatureCollection",
            "features": [
                {
                    "type": "Feature",
                    "properties": {},
                    "geometry": {"type": "Polygon", "coordinates": [[["0", "0"], ["1", "0"], ["1", "1"], ["0", "0"]]]},
                }
            ],
        }
    ).encode(),
    "a feature without geometry key": json.dumps(
        {"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {}}]}
    ).encode(),
}
WKT_TEXTS = {
    "binary garbage": b"\x00\xff\xfe",
    "not WKT": b"POLYGON ((0 0, 1 0, 1 1, 0 0))\nCIRCLE (0 0, 1)\n",
    "an unclosed polygon": b"POLYGON ((0 0, 1 0, 1 1, 0 0))\nPOLYGON ((0 0, 1 0, 1 1))\n",
    "truncated": b"POLYGON ((0 0, 1 0, 1 1, 0 0))\nPOLYGON ((0 0, 1 0",
}

READERS = {
    "dota": (read_dota, DOTA_TEXTS, "P0001.txt"),
    "yolo": (read_yolo, YOLO_TEXTS, "image.txt"),
    "activitynet": (read_activitynet, ACTIVITYNET_TEXTS, "file.json"),
    "geojson": (read_geojson, GEOJSON_TEXTS, "file.geojson"),
    "wkt": (read_wkt, WKT_TEXTS, "file.wkt"),
}
CASES = [(reader, name) for reader, (_, texts, _) in READERS.items() for name in texts]
#: Cases that are valid files: the BOM is read past.
READABLE = {("dota", "a BOM and a good line")}


@pytest.mark.parametrize(("reader", "name"), CASES, ids=[f"{reader}-{name}" for reader, name in CASES])
def test_malformed_files_are_refused_by_name(tmp_path, reader, name):
    read, texts, filename = READERS[reader]
    path = tmp_path / filename
    path.write_bytes(texts[name])
    if (reader, name) in READABLE:
        assert len(read(path).report.skipped) == 0
        return
    with pytest.raises(FormatError) as raised:
        read(path)
    assert str(path) in str(raised.value)
    try:
        report = read(path, skip_invalid=True).report
    except FormatError as error:
        assert error.location == "", f"only whole-file faults raise with skip_invalid ({error})"
    else:
        assert report.skipped


def test_folders_with_junk_and_empty_files(tmp_path):
    from geoiou.io import read_dota_folder
    from geoiou.io.yolo import read_yolo_folder

    # Other files are not label files; an empty label file is an image without objects.
    (tmp_path / "README.md").write_text("not a label file")
    (tmp_path / "P0001.txt").write_text(f"{SQUARE} ship 0\n")
    (tmp_path / "P0002.txt").write_text("")
    read = read_dota_folder(tmp_path)
    assert read.images == ("P0001", "P0002") and len(read.annotations) == 1
    # A .txt file that is not text names itself, inside the folder.
    (tmp_path / "P0003.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00")
    with pytest.raises(FormatError, match=r"P0003\.txt: not UTF-8 text"):
        read_dota_folder(tmp_path)
    yolo = tmp_path / "yolo"
    yolo.mkdir()
    (yolo / "a.txt").write_text("0 0.5 0.5 0.2 0.2\n")
    (yolo / "b.txt").write_text("\n\n")
    assert read_yolo_folder(yolo).images == ("a", "b")
