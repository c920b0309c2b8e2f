"""The DOTA reader on the bundled example labels, and its errors."""

from importlib.resources import files

import numpy as np
import pytest
import shapely

import geoiou
from geoiou.io import read_dota

DOTA = files("geoiou") / "data" / "dota"


def test_reads_all_bundled_files():
    counts = {path.name: read_dota(path).polygons.size for path in DOTA.iterdir() if path.name.endswith(".txt")}
    assert sum(counts.values()) == 984  # the data README's count
    assert counts["P0706.txt"] == 536


def test_first_object_of_the_harbour_scene():
    objects = read_dota(DOTA / "P0706.txt")
    # "1054 1028 1063 1011 1111 1040 1112 1062 ship 1", the file's first object line.
    np.testing.assert_array_equal(objects.corners[0], [[1054, 1028], [1063, 1011], [1111, 1040], [1112, 1062]])
    assert objects.classes[0] == "ship" and objects.difficult[0]
    assert objects.polygons[0].area == pytest.approx(shapely.Polygon(objects.corners[0]).area)


def test_harbour_scene_pairwise_iou_agrees_with_shapely():
    objects = read_dota(DOTA / "P0706.txt")
    polygons = objects.polygons[:120]
    ours = geoiou.pairwise_iou(polygons, polygons)
    geoms = polygons.to_shapely()
    inter = shapely.area(shapely.intersection(geoms[:, None], geoms[None, :]))
    union = shapely.area(shapely.union(geoms[:, None], geoms[None, :]))
    np.testing.assert_allclose(ours, inter / union, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("1 2 3 4 5 6 ship 0", r"line 3: expected 8 coordinates, a class and a difficult flag \(got 8 fields"),
        ("1 2 3 4 5 6 7 x ship 0", r"line 3: coordinates must be numbers"),
        ("0 0 4 0 4 4 0 4 ship 2", r"line 3: difficult flag must be 0 or 1 \(got '2'\)"),
        ("0 0 4 4 4 0 0 4 ship 0", r"'rings' must be a valid polygon \(got Self-intersection"),
    ],
)
def test_malformed_lines_name_the_file_and_line(tmp_path, line, message):
    path = tmp_path / "bad.txt"
    path.write_text(f"imagesource:GoogleEarth\ngsd:0.1\n{line}\n")
    with pytest.raises(geoiou.InvalidRegionError, match=message) as error:
        read_dota(path)
    assert "bad.txt" in str(error.value)


def test_missing_difficult_flag_counts_as_zero(tmp_path):
    path = tmp_path / "v15.txt"
    path.write_text("0 0 4 0 4 4 0 4 plane\n")
    assert not read_dota(path).difficult[0]
