"""Every reader applies the constructors' range checks by record (issue 24, items 1 and 2).

Coordinates beyond ``2**508`` make areas overflow (``inf - inf`` is NaN in the union) and positive
areas below ``2**-1000`` underflow towards 0; a constructor refuses both, but a batch index names
no record. Each reader refuses such a record with a `FormatError` naming the file and record, and
``skip_invalid=True`` skips exactly that record and reports it.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from geoiou.errors import FormatError
from geoiou.io import (
    read_activitynet,
    read_coco,
    read_coco_results,
    read_dota,
    read_dota_folder,
    read_dota_task1,
    read_geojson,
    read_wkt,
    read_yolo,
)

TOO_LARGE = "must be coordinates within ±2**508"
TOO_SMALL = "must be regions of area 0 or at least 9.33e-302"
GOOD_TRIANGLE = [0, 0, 2, 0, 0, 2]


def write(path, text):
    path.write_text(text if isinstance(text, str) else json.dumps(text))
    return path


def coco_results(tmp_path, geometry_key, bad):
    """A result file whose record 0 is `bad` and record 1 a good triangle or box."""
    good = GOOD_TRIANGLE if geometry_key == "segmentation" else [0, 0, 2, 2]
    wrap = (lambda value: [value]) if geometry_key == "segmentation" else (lambda value: value)
    return write(
        tmp_path / "results.json",
        [
            {"image_id": 1, "category_id": 1, geometry_key: wrap(bad), "score": 0.9},
            {"image_id": 1, "category_id": 1, geometry_key: wrap(good), "score": 0.8},
        ],
    )


@pytest.mark.parametrize(
    ("key", "bad", "message"),
    [
        # The polygon: today it scores 0 against itself (its area overflows to inf).
        ("segmentation", [0, 0, 1e300, 0, 0, 1e300], "'segmentation[0]' must hold coordinates within ±2**508"),
        # A triangle of area 5e-321: a subnormal area, which would compare as (almost) empty.
        ("segmentation", [0, 0, 1e-160, 0, 0, 1e-160], "'segmentation' " + TOO_SMALL),
        ("bbox", [0, 0, 1e300, 1], "'bbox' " + TOO_LARGE),
        ("bbox", [0, 0, 5e-321, 1], "'bbox' " + TOO_SMALL),  # area 5e-321, in the fast column path
        # Item 2: 1e16 + 1 == 1e16 in float64, so the box would have width 0 and area 0.
        ("bbox", [1e16, 0, 1, 1], "'bbox' must have a width and height that survive the conversion to corners"),
    ],
)
def test_coco_results_refuse_and_skip_out_of_range_records(tmp_path, key, bad, message):
    path = coco_results(tmp_path, key, bad)
    with pytest.raises(FormatError) as raised:
        read_coco_results(path)
    assert str(raised.value).startswith(f"{path}, results[0]: {message}"), raised.value
    predictions = read_coco_results(path, skip_invalid=True)
    assert len(predictions.annotations) == 1 and predictions.report.read == 1
    assert [record.location for record in predictions.report.skipped] == ["results[0]"]


@pytest.mark.parametrize("polygons", ["exact", "pycocotools"])
def test_coco_dataset_refuses_out_of_range_polygons(polygons):
    dataset = {
        "images": [{"id": 1, "height": 10, "width": 10}],
        "categories": [{"id": 1, "name": "a"}],
        "annotations": [
            {
                "id": 5,
                "image_id": 1,
                "category_id": 1,
                "iscrowd": 0,
                "area": 1.0,
                "bbox": [0, 0, 1, 1],
                "segmentation": [[0, 0, 1e300, 0, 0, 1e300]],
            }
        ],
    }
    with pytest.raises(FormatError, match=r"annotations\[0\] \(id 5\): 'segmentation\[0\]' must hold coordinates"):
        read_coco(dataset, geometry="segmentation", polygons=polygons)
    assert len(read_coco(dataset, geometry="segmentation", polygons=polygons, skip_invalid=True).annotations) == 0


def test_coco_dataset_refuses_a_box_whose_size_rounds_away():
    dataset = {
        "images": [{"id": 1, "height": 10, "width": 10}],
        "categories": [{"id": 1, "name": "a"}],
        "annotations": [{"id": 5, "image_id": 1, "category_id": 1, "bbox": [1e16, 0, 1, 1]}],
    }
    with pytest.raises(FormatError, match=r"annotations\[0\] \(id 5\): 'bbox' must have a width and height"):
        read_coco(dataset)


DOTA_LINES = {
    "large": ("0 0 1e300 0 1e300 1e300 0 1e300 plane 0\n", "'corners' " + TOO_LARGE),
    # A square of side 1e-160: area 1e-320, subnormal.
    "small": ("0 0 1e-160 0 1e-160 1e-160 0 1e-160 plane 0\n", "'corners' " + TOO_SMALL),
}


@pytest.mark.parametrize("case", DOTA_LINES)
def test_dota_labels_refuse_and_skip_out_of_range_corners(tmp_path, case):
    line, message = DOTA_LINES[case]
    path = write(tmp_path / "P0001.txt", line + "0 0 4 0 4 4 0 4 ship 0\n")
    with pytest.raises(FormatError, match=rf"P0001.txt, line 1: {message.replace('*', '[*]')}"):
        read_dota(path)
    objects = read_dota(path, skip_invalid=True)
    assert objects.classes == ("ship",) and objects.report.skipped[0].location == "line 1"
    folder = read_dota_folder(tmp_path, skip_invalid=True)
    assert len(folder.annotations) == 1 and folder.report.skipped[0].location == "P0001.txt, line 1"


def test_dota_task1_refuses_and_skips_out_of_range_corners(tmp_path):
    write(tmp_path / "Task1_plane.txt", "P0001 0.9 0 0 1e300 0 1e300 1e300 0 1e300\nP0001 0.5 0 0 4 0 4 4 0 4\n")
    with pytest.raises(FormatError, match=r"Task1_plane.txt, line 1: 'corners' must be coordinates within"):
        read_dota_task1(tmp_path)
    predictions = read_dota_task1(tmp_path, skip_invalid=True)
    assert predictions.annotations.score.tolist() == [0.5]
    assert predictions.report.skipped[0].location == "Task1_plane.txt, line 1"


def test_geojson_and_wkt_refuse_and_skip_out_of_range_polygons(tmp_path):
    huge = {"type": "Polygon", "coordinates": [[[0, 0], [1e300, 0], [0, 1e300], [0, 0]]]}
    good = {"type": "Polygon", "coordinates": [[[0, 0], [2, 0], [0, 2], [0, 0]]]}
    path = write(
        tmp_path / "f.geojson",
        {
            "type": "FeatureCollection",
            "features": [
                {"type": "Feature", "properties": {}, "geometry": huge},
                {"type": "Feature", "properties": {}, "geometry": good},
            ],
        },
    )
    with pytest.raises(FormatError, match=r"f.geojson, features\[0\]: 'geometry' must be coordinates within"):
        read_geojson(path)
    assert read_geojson(path, skip_invalid=True).regions.area.tolist() == [2.0]
    wkt = write(tmp_path / "f.wkt", "POLYGON ((0 0, 1e300 0, 0 1e300, 0 0))\nPOLYGON ((0 0, 2 0, 0 2, 0 0))\n")
    with pytest.raises(FormatError, match=r"f.wkt, line 1: 'geometry' must be coordinates within"):
        read_wkt(wkt)
    assert read_wkt(wkt, skip_invalid=True).regions.area.tolist() == [2.0]


def test_activitynet_refuses_and_skips_a_segment_beyond_the_range(tmp_path):
    path = write(
        tmp_path / "gt.json",
        {
            "database": {
                "v_a": {
                    "subset": "validation",
                    "duration": 10,
                    "annotations": [{"segment": [0, 1e200], "label": "x"}, {"segment": [0, 1], "label": "x"}],
                }
            }
        },
    )
    with pytest.raises(FormatError, match=r"database\['v_a'\].annotations\[0\]: 'segment' must be coordinates within"):
        read_activitynet(path)
    truth = read_activitynet(path, skip_invalid=True)
    assert len(truth.segments) == 1 and truth.report.skipped[0].location == "database['v_a'].annotations[0]"


def test_yolo_boxes_whose_size_rounds_away_are_named_by_line(tmp_path):
    # cx 0.5 with w 1e-20: 0.5 ± 5e-21 rounds to 0.5, a box of width 0 (item 2, in a reader).
    path = write(tmp_path / "a.txt", "0 0.5 0.5 1e-20 0.2\n0 0.5 0.5 0.1 0.1\n")
    with pytest.raises(FormatError, match=r"a.txt, line 1: 'box' must have a width and height that survive"):
        read_yolo(path)
    assert read_yolo(path, skip_invalid=True).report.skipped[0].location == "line 1"


def test_cli_eval_of_identical_files_with_a_huge_polygon_is_refused_not_ap_0(tmp_path):
    """Today `geoiou eval` of two identical files reports AP 0.000: the polygon's area is inf, IoU NaN."""
    dataset = {
        "images": [{"id": 1, "height": 10, "width": 10}],
        "categories": [{"id": 1, "name": "a"}],
        "annotations": [
            {
                "id": 1,
                "image_id": 1,
                "category_id": 1,
                "iscrowd": 0,
                "area": 1.0,
                "bbox": [0, 0, 1, 1],
                "segmentation": [[0, 0, 1e300, 0, 0, 1e300]],
            },
            {
                "id": 2,
                "image_id": 1,
                "category_id": 1,
                "iscrowd": 0,
                "area": 2.0,
                "bbox": [0, 0, 2, 2],
                "segmentation": [GOOD_TRIANGLE],
            },
        ],
    }
    gt = write(tmp_path / "gt.json", dataset)
    results = write(
        tmp_path / "res.json",
        [
            {"image_id": 1, "category_id": 1, "score": 0.9, "segmentation": [part]}
            for annotation in dataset["annotations"]
            for part in annotation["segmentation"]
        ],
    )
    run = [sys.executable, "-m", "geoiou.cli", "eval", str(gt), str(results), "--no-progress"]
    failing = subprocess.run(run, capture_output=True, text=True, timeout=300)
    assert failing.returncode == 1 and "must hold coordinates within" in failing.stderr
    assert "Traceback" not in failing.stderr and "batch index" not in failing.stderr
    skipping = subprocess.run([*run, "--skip-invalid"], capture_output=True, text=True, timeout=300)
    assert skipping.returncode == 0, skipping.stderr
    assert "skipped 1" in skipping.stderr
    assert "AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 1.000" in skipping.stdout
