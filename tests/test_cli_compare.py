"""`geoiou compare A B`, driven as a subprocess, on every input format (small files made here and the tour's)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest

from geoiou.evaluation import evaluate_agreement
from geoiou.io import read_dota

TOUR = files("geoiou") / "data" / "tour"
DOTA = files("geoiou") / "data" / "dota"


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "geoiou.cli", "compare", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def report(path: Path) -> dict:
    return json.loads(path.read_text())["result"]


def write_dota_folder(folder: Path, images: dict[str, list[tuple[np.ndarray, str]]]) -> Path:
    folder.mkdir()
    for image, objects in images.items():
        lines = [" ".join(f"{v:.2f}" for v in corners.ravel()) + f" {label} 0" for corners, label in objects]
        (folder / f"{image}.txt").write_text("\n".join(["imagesource:GoogleEarth", "gsd:0.1", *lines]) + "\n")
    return folder


def test_dota_folders_equal_the_python_api(tmp_path):
    # B: the labels of two images moved 3 pixels right, every fifth object dropped.
    objects = {name: read_dota(DOTA / f"{name}.txt") for name in ("P1088", "P0770")}
    moved = {
        name: [(corners + [3.0, 0.0], label) for k, (corners, label) in enumerate(zip(o.corners, o.classes)) if k % 5]
        for name, o in objects.items()
    }
    original = {name: list(zip(o.corners, o.classes)) for name, o in objects.items()}
    folder_a = write_dota_folder(tmp_path / "a", original)
    folder_b = write_dota_folder(tmp_path / "b", moved)
    out = tmp_path / "report.json"
    result = run(folder_a, folder_b, "--json", out)
    assert result.returncode == 0, result.stderr
    assert "dota (Polygon)" in result.stdout and "images with the lowest F1" in result.stdout
    from geoiou.io import read_dota_folder

    expected = evaluate_agreement(read_dota_folder(folder_a).annotations, read_dota_folder(folder_b).annotations)
    assert report(out)["overall"] == json.loads(expected.to_json())["overall"]
    assert report(out)["overall"]["only_b"] == 0 and report(out)["overall"]["only_a"] > 0
    assert expected.summary().splitlines()[-2] in result.stdout  # the "all" row


def test_dota_labels_against_task1_predictions_with_all_outputs(tmp_path):
    pairs, table, pictures = tmp_path / "pairs.csv", tmp_path / "report.csv", tmp_path / "pictures"
    result = run(
        DOTA,
        TOUR / "dota-task1",
        "--csv",
        pairs,
        "--report-csv",
        table,
        "--picture",
        pictures,
        "--pictures",
        "2",
        "--method",
        "optimal",
    )
    assert result.returncode == 0, result.stderr
    assert "dota-task1 (Polygon), 1038 regions" in result.stdout and "(optimal matching" in result.stdout
    from geoiou.io import read_dota_folder, read_dota_task1

    truth, predicted = read_dota_folder(DOTA), read_dota_task1(TOUR / "dota-task1")
    expected = evaluate_agreement(truth.annotations, predicted.annotations, method="optimal")
    with open(pairs, newline="") as handle:
        rows = list(csv.DictReader(handle))
    matched = [row for row in rows if row["row_a"] != "-1" and row["row_b"] != "-1"]
    assert len(matched) == expected.overall()["matched"]
    assert len(rows) == len(matched) + expected.overall()["only_a"] + expected.overall()["only_b"]
    np.testing.assert_allclose(sorted(float(row["iou"]) for row in matched), np.sort(expected.matching.iou), rtol=1e-15)
    with open(table, newline="") as handle:
        levels = [row["level"] for row in csv.DictReader(handle)]
    assert levels.count("overall") == 1 and levels.count("image") == 7 and levels.count("category") == 12
    drawn = sorted(pictures.iterdir())
    assert [path.name for path in drawn] == [
        f"01-{expected.worst_images(1)[0]}.png",
        f"02-{expected.worst_images(2)[1]}.png",
    ]
    assert all(path.stat().st_size > 20_000 for path in drawn)


def test_coco_polygons_against_mask_results_exactly(small_coco, tmp_path):
    instances, results = small_coco
    out = tmp_path / "report.json"
    result = run(instances, results, "--json", out)
    assert result.returncode == 0, result.stderr
    assert "coco (Polygon), 120 regions" in result.stdout and "coco-results (Mask)" in result.stdout
    assert "plane" in result.stdout  # COCO's category names replace the ids in the table
    from geoiou.io.coco import read_coco, read_coco_results

    expected = evaluate_agreement(
        read_coco(instances, geometry="segmentation").annotations, read_coco_results(results).annotations
    )
    document = report(out)
    assert document["overall"] == json.loads(expected.to_json())["overall"]
    assert 0.5 < document["overall"]["f1"] < 1


def test_coco_against_itself_as_boxes_ignoring_categories(small_coco, tmp_path):
    instances, _ = small_coco
    out = tmp_path / "report.json"
    result = run(instances, instances, "--geometry", "bbox", "--ignore-category", "--json", out)
    assert result.returncode == 0, result.stderr
    document = report(out)
    assert document["overall"]["f1"] == 1.0 and document["overall"]["iou_mean"] == 1.0
    assert all(pair["category_a"] == pair["category_b"] for pair in document["category_pairs"])
    assert all(pair["iou"] == 1.0 for pair in document["pairs"])


def test_yolo_boxes_against_yolo_obb(tmp_path):
    # A box [0.4, 0.6]² against the quadrilateral [0.4, 0.6] × [0.4, 0.58]: IoU 0.9 (18 of 20 parts).
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "img1.txt").write_text("0 0.5 0.5 0.2 0.2\n1 0.1 0.1 0.05 0.05\n")
    (tmp_path / "b" / "img1.txt").write_text("0 0.4 0.4 0.6 0.4 0.6 0.58 0.4 0.58\n")
    (tmp_path / "a" / "img2.txt").write_text("")
    (tmp_path / "b" / "img2.txt").write_text("")
    pairs = tmp_path / "pairs.csv"
    result = run(tmp_path / "a", tmp_path / "b", "--csv", pairs, "--image-size", "100,100")
    assert result.returncode == 0, result.stderr
    assert "yolo (Box)" in result.stdout and "yolo (Polygon)" in result.stdout
    with open(pairs, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["image_id"], row["row_a"], row["row_b"]) for row in rows] == [("img1", "0", "0"), ("img1", "1", "-1")]
    assert float(rows[0]["iou"]) == pytest.approx(0.9, rel=1e-12) and rows[1]["iou"] == ""


def geojson(features: list[tuple[list, str]]) -> str:
    return json.dumps(
        {
            "type": "FeatureCollection",
            "features": [
                {
                    "type": "Feature",
                    "id": f"f{k}",
                    "properties": {"use": use},
                    "geometry": {"type": "Polygon", "coordinates": [ring]},
                }
                for k, (ring, use) in enumerate(features)
            ],
        }
    )


def test_geojson_layers_with_a_category_property(tmp_path):
    # Surveyed: a house [0,10]² and a shed [20,24]²; predicted: the house as [1,10]×[0,10] (IoU 0.9)
    # and the shed labelled a house (no match within categories).
    square = lambda x0, y0, x1, y1: [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]  # noqa: E731
    (tmp_path / "surveyed.geojson").write_text(
        geojson([(square(0, 0, 10, 10), "house"), (square(20, 20, 24, 24), "shed")])
    )
    (tmp_path / "predicted.geojson").write_text(
        geojson([(square(1, 0, 10, 10), "house"), (square(20, 20, 24, 24), "house")])
    )
    pairs, out = tmp_path / "pairs.csv", tmp_path / "report.json"
    result = run(
        tmp_path / "surveyed.geojson",
        tmp_path / "predicted.geojson",
        "--category-property",
        "use",
        "--csv",
        pairs,
        "--json",
        out,
    )
    assert result.returncode == 0, result.stderr
    assert report(out)["overall"]["matched"] == 1 and report(out)["per_image"][0]["image_id"] == "layer"
    with open(pairs, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["id_a"], row["id_b"], row["iou"]) for row in rows] == [
        ("f0", "f0", "0.9"),
        ("f1", "", ""),
        ("", "f1", ""),
    ]
    ignoring = run(
        tmp_path / "surveyed.geojson",
        tmp_path / "predicted.geojson",
        "--category-property",
        "use",
        "--ignore-category",
        "--json",
        out,
    )
    assert ignoring.returncode == 0, ignoring.stderr
    assert report(out)["overall"]["f1"] == 1.0
    assert {(p["category_a"], p["category_b"]) for p in report(out)["category_pairs"]} == {
        ("house", "house"),
        ("shed", "house"),
    }


def test_activitynet_ground_truth_against_results(tmp_path):
    out, pictures = tmp_path / "report.json", tmp_path / "pictures"
    result = run(
        TOUR / "activitynet" / "ground_truth.json",
        TOUR / "activitynet" / "results.json",
        "--subset",
        "validation",
        "--json",
        out,
        "--picture",
        pictures,
        "--pictures",
        "1",
    )
    assert result.returncode == 0, result.stderr
    from geoiou.io.activitynet import read_activitynet

    truth = read_activitynet(TOUR / "activitynet" / "ground_truth.json", subset="validation").segments
    predicted = read_activitynet(TOUR / "activitynet" / "results.json").segments
    expected = evaluate_agreement(truth, predicted, images=list(truth.videos) + list(predicted.videos))
    assert report(out)["overall"] == json.loads(expected.to_json())["overall"]
    assert len(list(pictures.iterdir())) == 1


def test_pictures_show_the_worst_image(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.image

    pictures = tmp_path / "pictures"
    result = run(DOTA, TOUR / "dota-task1", "--picture", pictures, "--pictures", "1", "--labels", "truth,model")
    assert result.returncode == 0, result.stderr
    (picture,) = pictures.iterdir()
    pixels = matplotlib.image.imread(picture)[..., :3]
    assert np.any(pixels < 0.98, axis=-1).mean() > 0.02  # something is drawn
    assert len(np.unique((pixels * 255).astype(np.uint8).reshape(-1, 3), axis=0)) > 20  # IoU colours and the bar


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda tmp: (DOTA, tmp / "missing"), "no such file or folder (given as B)"),
        (
            lambda tmp: (TOUR / "coco" / "instances.json", DOTA),
            "'b.image_id' must be keys of the same type as 'a.image_id'",
        ),
        (lambda tmp: (tmp / "empty.json", DOTA), "neither COCO instances"),
    ],
)
def test_bad_input_fails_with_one_line(tmp_path, make, message):
    (tmp_path / "empty.json").write_text("{}")
    a, b = make(tmp_path)
    result = run(a, b)
    assert result.returncode == 1
    assert result.stderr.startswith("geoiou compare: error:") and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_missing_category_property_names_the_feature(tmp_path):
    (tmp_path / "a.geojson").write_text(geojson([([[0, 0], [1, 0], [1, 1], [0, 0]], "x")]))
    result = run(tmp_path / "a.geojson", tmp_path / "a.geojson", "--category-property", "kind")
    assert result.returncode == 1
    assert "feature 'f0': 'properties' must hold 'kind' (given as --category-property)" in result.stderr


def test_help_lists_formats_and_options():
    result = run("--help")
    assert result.returncode == 0
    for text in ("--min-iou", "--method", "--ignore-category", "--picture", "GeoJSON", "SpaceNet"):
        assert text in result.stdout


def test_each_source_kind_is_detected_and_eval_takes_only_ground_truths(tmp_path):
    from geoiou.cli.eval_inputs import detect_format, detect_source
    from geoiou.errors import FormatError

    (tmp_path / "layer.geojson").write_text(geojson([([[0, 0], [1, 0], [1, 1], [0, 0]], "x")]))
    (tmp_path / "yolo").mkdir()
    (tmp_path / "yolo" / "a.txt").write_text("0 0.5 0.5 0.2 0.2\n")
    expected = {
        TOUR / "coco" / "instances.json": "coco",
        TOUR / "coco" / "results-segm.json": "coco-results",
        DOTA: "dota",
        TOUR / "dota-task1": "dota-task1",
        tmp_path / "yolo": "yolo",
        TOUR / "activitynet" / "results.json": "activitynet",
        tmp_path / "layer.geojson": "geojson",
    }
    assert {path: detect_source(str(path)) for path in expected} == expected
    with pytest.raises(FormatError, match="a geojson source cannot be the ground truth"):
        detect_format(str(tmp_path / "layer.geojson"))
