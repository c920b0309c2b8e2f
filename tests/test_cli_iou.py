"""`geoiou iou A B`, driven as a subprocess the way a user runs it."""

import json
import subprocess
import sys

import numpy as np
import pytest
import shapely

import geoiou
from geoiou.errors import FormatError
from geoiou.io.literals import parse_region


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "geoiou.cli", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def values(stdout):
    """The printed table as {name: value}."""
    return {line.split()[0]: line.split()[1] for line in stdout.splitlines() if line.strip()}


def test_two_boxes_print_iou_giou_intersection_union():
    # [0,10]² and [5,15]x[0,10]: intersection 5x10 = 50, union 150; the enclosing box is the union, so GIoU = IoU.
    result = run("iou", "box:0,0,10,10", "box:5,0,15,10")
    assert result.returncode == 0, result.stderr
    printed = values(result.stdout)
    assert printed["IoU"] == "0.333333" and printed["GIoU"] == "0.333333"  # 6 significant digits by default
    assert printed["intersection"] == "50" and printed["union"] == "150"
    assert "enclosing box" in result.stdout
    full = values(run("iou", "box:0,0,10,10", "box:5,0,15,10", "--digits", "17").stdout)
    assert float(full["IoU"]) == 1 / 3 and float(full["GIoU"]) == 1 / 3  # every digit: the exact float
    assert values(run("iou", "box:0,0,10,10", "box:5,0,15,10", "--digits", "3").stdout)["IoU"] == "0.333"


def test_rotated_box_against_wkt_polygon_is_exact():
    # The square [0,2]² turned 45° about its centre against the square itself: the octagon of
    # area 8(√2 - 1), so IoU = 8(√2-1) / (8 - 8(√2-1)).
    result = run("iou", "rbox:1,1,2,2,45", "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", "--digits", "17")
    assert result.returncode == 0, result.stderr
    octagon = 8 * (np.sqrt(2) - 1)
    assert float(values(result.stdout)["IoU"]) == pytest.approx(octagon / (8 - octagon), rel=1e-12)
    assert "convex hull" in result.stdout


def test_version_and_bad_digits():
    result = run("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"geoiou {geoiou.__version__}"
    bad = run("iou", "box:0,0,1,1", "box:0,0,1,1", "--digits", "0")
    assert bad.returncode == 2 and "expected a number of digits from 1 to 17" in bad.stderr


def test_intervals_json_output():
    # [0, 10) and [5, 20): overlap 5, union 20, enclosing interval 20.
    result = run("iou", "interval:0,10", "interval:5,20", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["IoU"] == 0.25 and document["union"] == 20 and document["enclosure_kind"] == "interval"


def test_files_measure_every_overlapping_pair(tmp_path):
    path = tmp_path / "shapes.wkt"
    path.write_text("POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0))\nPOLYGON ((10 10, 12 10, 12 12, 10 12, 10 10))\n")
    result = run("iou", str(path), "box:2,0,6,4", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    # Only the first square overlaps the box: 8 / 24.
    assert [(row["a"], row["b"]) for row in rows] == [(0, 0)] and rows[0]["IoU"] == pytest.approx(1 / 3)
    every = json.loads(run("iou", str(path), "box:2,0,6,4", "--json", "--all-pairs").stdout)
    assert len(every) == 2 and every[1]["IoU"] == 0


def test_mask_image_against_box(tmp_path):
    from skimage.io import imsave

    image = np.zeros((6, 8), dtype=np.uint8)
    image[1:5, 2:6] = 255  # pixels x 2..5, y 1..4: the unit squares fill [2, 6) x [1, 5)
    path = tmp_path / "mask.png"
    imsave(path, image, check_contrast=False)
    result = run("iou", f"mask:{path}", "box:2,1,6,5")
    assert result.returncode == 0, result.stderr
    assert float(values(result.stdout)["IoU"]) == 1.0


@pytest.mark.parametrize(
    ("pixels", "inside"),
    [
        (np.array([[0, 1], [1, 1]], dtype=np.uint8), 3),  # 0 and 1
        (np.array([[0, 255], [255, 255]], dtype=np.uint8), 3),  # 0 and 255, the usual binary PNG
        (np.dstack([np.array([[0, 255], [0, 0]], dtype=np.uint8)] * 3), 1),  # grey saved as RGB
        (
            np.dstack([np.array([[0, 255], [0, 0]], dtype=np.uint8)] * 3 + [np.full((2, 2), 255, np.uint8)]),
            1,
        ),  # + alpha
    ],
)
def test_binary_images_are_masks(tmp_path, pixels, inside):
    from skimage.io import imsave

    path = tmp_path / "mask.png"
    imsave(path, pixels, check_contrast=False)
    assert parse_region(f"mask:{path}").area == inside


@pytest.mark.parametrize(
    ("pixels", "message"),
    [
        # The scene.png: a colour picture became one mask covering every non-black pixel.
        (
            np.dstack([np.full((4, 4), 200, np.uint8), np.zeros((4, 4), np.uint8), np.full((4, 4), 30, np.uint8)]),
            "colour image of shape (4, 4, 3)",
        ),
        (np.array([[0, 128], [255, 3]], dtype=np.uint8), "got 4 levels from 0 to 255"),  # grey levels
        (np.array([[0, 1], [2, 1]], dtype=np.uint8), "got 3 levels from 0 to 2"),  # a label map
    ],
)
def test_non_binary_images_are_refused(tmp_path, pixels, message):
    from skimage.io import imsave

    path = tmp_path / "scene.png"
    imsave(path, pixels, check_contrast=False)
    with pytest.raises(FormatError, match="'mask' must be a binary image") as caught:
        parse_region(f"mask:{path}")
    assert message in str(caught.value) and "scene.png" in str(caught.value)
    result = run("iou", str(path), "box:0,0,1,1")
    assert result.returncode == 1 and "must be a binary image" in result.stderr
    # Given as a mask: literal, the refusal is the same (it used to read "no such file").
    literal = run("iou", f"mask:{path}", "box:0,0,1,1")
    assert literal.returncode == 1 and "must be a binary image" in literal.stderr


@pytest.mark.parametrize(
    ("a", "message"),
    [
        ("box:0,0,10", "'box' needs 4 numbers x1,y1,x2,y2 (got 3)"),
        ("box:0,0,x,10", "'box value 3' must be a number (got 'x')"),
        ("circle:0,0,3", "expected one of box:"),
        ("poly:0,0,2,2,2,0,0,2", "--repair"),
        ("missing.wkt", "missing.wkt: no such file"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_status_1(a, message):
    result = run("iou", a, "box:0,0,1,1")
    assert result.returncode == 1
    assert result.stdout == ""
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_repair_flag_repairs_a_bow_tie():
    # The bow-tie (0,0) (2,2) (2,0) (0,2) repaired is two triangles of area 1 each; against [0,2]² the IoU is 2/4.
    result = run("iou", "poly:0,0,2,2,2,0,0,2", "box:0,0,2,2", "--repair")
    assert result.returncode == 0, result.stderr
    assert float(values(result.stdout)["IoU"]) == 0.5


@pytest.mark.parametrize(
    "arguments",
    [("--traceback", "iou", "box:0,0,10", "box:0,0,1,1"), ("iou", "box:0,0,10", "box:0,0,1,1", "--traceback")],
)
def test_traceback_on_request(arguments):
    result = run(*arguments)
    assert result.returncode != 0 and "Traceback" in result.stderr and "FormatError" in result.stderr


def test_help_shows_literal_forms():
    result = run("iou", "--help")
    assert result.returncode == 0
    for form in ("box:x1,y1,x2,y2", "rbox:cx,cy,w,h,angle", "poly:", "interval:start,end", "WKT"):
        assert form in result.stdout


# ------------------------------------------------------------------ the literal parser itself
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("box:0,0,10,10", geoiou.Box([0, 0, 10, 10])),
        ("xywh:1,2,3,4", geoiou.Box([1, 2, 4, 6])),
        ("rbox:5,5,4,2,30", geoiou.RotatedBox([5, 5, 4, 2, 30])),
        ("poly: 0,0, 4,0, 0,3", geoiou.Polygon([(0, 0), (4, 0), (0, 3)])),
        ("interval:2.5,7", geoiou.Interval([2.5, 7])),
        (
            "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))",
            geoiou.Polygon.from_shapely(
                shapely.from_wkt("MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))")
            ),
        ),
    ],
)
def test_literals_build_the_region_they_name(text, expected):
    region = parse_region(text)
    assert type(region) is type(expected) and region.shape == ()
    assert geoiou.iou(region, expected) == 1.0 and region.area == expected.area


@pytest.mark.parametrize("text", ["box:1,2,3,inf", "interval:nan,1", "POINT (1 1)", "POLYGON ((0 0, 1", ""])
def test_bad_literals_raise_format_error_naming_the_literal(text):
    with pytest.raises(FormatError, match="<literal>"):
        parse_region(text)
