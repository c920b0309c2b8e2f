"""The YOLO and YOLO-OBB readers: pixel conversion, IoU invariance under scaling, folders, and every error."""

import re
import tempfile
from pathlib import Path

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import geoiou
from geoiou.evaluation import evaluate_coco, evaluate_voc
from geoiou.io.yolo import read_yolo, read_yolo_folder

FAST = settings(
    max_examples=40, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
)


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# --------------------------------------------------------------------------- golden values
def test_box_to_pixels_golden(tmp_path):
    # Height 100, width 200: centre (0.5 * 200, 0.5 * 100) = (100, 50), size (0.2 * 200, 0.4 * 100) = (40, 40),
    # so the corners are (100 - 20, 50 - 20, 100 + 20, 50 + 20).
    objects = read_yolo(write(tmp_path / "a.txt", "0 0.5 0.5 0.2 0.4\n"), image_size=(100, 200))
    assert objects.regions.to_array("xyxy").tolist() == [[80.0, 30.0, 120.0, 70.0]]
    assert objects.classes.tolist() == [0] and objects.scores is None
    assert objects.report.read == 1 and objects.report.skipped == ()


def test_normalised_box_and_conf_column(tmp_path):
    objects = read_yolo(write(tmp_path / "a.txt", "7 0.25 0.75 0.5 0.5 0.125\n12 1 1 0 0 1\n"))
    # Without an image size the box stays normalised: 0.25 -+ 0.25 and 0.75 -+ 0.25.
    assert objects.regions.to_array("xyxy").tolist() == [[0.0, 0.5, 0.5, 1.0], [1.0, 1.0, 1.0, 1.0]]
    assert objects.classes.tolist() == [7, 12] and objects.scores.tolist() == [0.125, 1.0]
    assert objects.classes.dtype == np.int64


def test_obb_corners_to_pixels_golden(tmp_path):
    # Corners scale x by the width (200) and y by the height (100), kept in the order written.
    objects = read_yolo(write(tmp_path / "a.txt", "2 0.1 0.2 0.3 0.2 0.3 0.6 0.1 0.6\n"), image_size=(100, 200))
    assert isinstance(objects.regions, geoiou.Polygon)
    np.testing.assert_array_equal(
        shapely.get_coordinates(objects.regions.to_shapely())[:4], [[20, 20], [60, 20], [60, 60], [20, 60]]
    )
    assert objects.regions.area.tolist() == [1600.0]  # 40 x 40 pixels
    assert objects.classes.tolist() == [2] and objects.scores is None


def test_ultralytics_documentation_obb_example(tmp_path):
    # The example line of ultralytics' OBB dataset page; its area by the shoelace formula (numpy, below).
    line = "0 0.780811 0.743961 0.782371 0.74686 0.777691 0.752174 0.776131 0.749758"
    objects = read_yolo(write(tmp_path / "a.txt", line + "\n"), image_size=(1024, 1024))
    corners = np.array(line.split()[1:], dtype=float).reshape(4, 2) * 1024
    x, y = corners.T
    shoelace = abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2
    # A 3 x 9 pixel object 800 pixels from the origin: the shoelace sum cancels, so agree to 1e-9.
    assert objects.regions.area[0] == pytest.approx(shoelace, rel=1e-9)


def test_blank_lines_are_not_records(tmp_path):
    objects = read_yolo(write(tmp_path / "a.txt", "\n0 0.5 0.5 0.2 0.2\n   \n\n1 0.1 0.1 0.1 0.1\n\n"))
    assert objects.report.read == 2 and objects.report.skipped == () and len(objects.regions) == 2


def test_empty_file(tmp_path):
    path = write(tmp_path / "a.txt", "")
    assert read_yolo(path).regions.shape == (0,) and isinstance(read_yolo(path).regions, geoiou.Box)
    empty_obb = read_yolo(path, obb=True)
    assert (
        isinstance(empty_obb.regions, geoiou.Polygon) and empty_obb.classes.shape == (0,) and empty_obb.scores is None
    )


# --------------------------------------------------------------------------- properties
unit = st.floats(0, 1, allow_nan=False)
sizes = st.tuples(st.integers(1, 5000), st.integers(1, 5000))


@st.composite
def yolo_boxes(draw, n_max=6):
    """Lines ``class cx cy w h`` with normalised values, as a YOLO label file has them."""
    n = draw(st.integers(1, n_max))
    return [
        (draw(st.integers(0, 80)), draw(unit), draw(unit), draw(st.floats(0.01, 1)), draw(st.floats(0.01, 1)))
        for _ in range(n)
    ]


@st.composite
def yolo_quadrilaterals(draw, n_max=5):
    """Rotated rectangles inside the unit square, as YOLO-OBB corners."""
    quads = []
    for _ in range(draw(st.integers(1, n_max))):
        cx, cy = draw(st.floats(0.3, 0.7)), draw(st.floats(0.3, 0.7))
        w, h = draw(st.floats(0.02, 0.4)), draw(st.floats(0.02, 0.4))
        angle = draw(st.floats(0, np.pi))
        offsets = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
        rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        quads.append((draw(st.integers(0, 15)), np.clip(offsets @ rotation.T + [cx, cy], 0, 1)))
    return quads


def text_of(rows) -> str:
    return "".join(" ".join([str(row[0]), *(repr(float(v)) for v in np.ravel(row[1:]))]) + "\n" for row in rows)


@FAST
@pytest.mark.parametrize("layout", [yolo_boxes, yolo_quadrilaterals], ids=["boxes", "obb"])
@given(data=st.data(), size=sizes)
def test_iou_is_invariant_under_scaling_to_pixels(layout, data, size):
    first, second = data.draw(layout(), label="first"), data.draw(layout(), label="second")
    with tempfile.TemporaryDirectory() as folder:
        a, b = write(Path(folder) / "a.txt", text_of(first)), write(Path(folder) / "b.txt", text_of(second))
        normalised = geoiou.pairwise_iou(read_yolo(a).regions, read_yolo(b).regions)
        pixels = geoiou.pairwise_iou(read_yolo(a, image_size=size).regions, read_yolo(b, image_size=size).regions)
    np.testing.assert_allclose(pixels, normalised, rtol=1e-9, atol=1e-12)


@FAST
@given(yolo_boxes(), sizes)
def test_box_round_trip_and_pixel_conversion_match_the_formula(rows, size):
    height, width = size
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder) / "a.txt", text_of(rows))
        normalised, pixels = read_yolo(path), read_yolo(path, image_size=size)
    values = np.array([row[1:] for row in rows])
    np.testing.assert_allclose(normalised.regions.to_array("cxcywh"), values, rtol=1e-12, atol=1e-15)
    assert normalised.classes.tolist() == [row[0] for row in rows]
    # Independent of geoiou's Box conversions: x1 = (cx - w/2) * width, y1 = (cy - h/2) * height, ...
    cx, cy, w, h = values.T
    expected = np.stack([(cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height], -1)
    np.testing.assert_allclose(pixels.regions.to_array("xyxy"), expected, rtol=1e-12, atol=1e-9)


def test_voc_and_coco_ap50_are_the_same_normalised_and_in_pixels(tmp_path):
    rng = np.random.default_rng(3)
    truth_folder, prediction_folder = tmp_path / "truth", tmp_path / "predictions"
    truth_folder.mkdir(), prediction_folder.mkdir()
    for image in range(6):
        truth = np.column_stack([rng.integers(0, 3, 8), rng.uniform(0.2, 0.8, (8, 2)), rng.uniform(0.05, 0.3, (8, 2))])
        jitter = truth[:, 1:] + rng.normal(0, 0.02, (8, 4))
        predictions = np.column_stack([truth[:, 0], np.clip(jitter, 0.01, 0.99), rng.uniform(0, 1, 8)])
        (truth_folder / f"img{image}.txt").write_text(
            "\n".join(f"{int(r[0])} " + " ".join(repr(float(v)) for v in r[1:]) for r in truth)
        )
        (prediction_folder / f"img{image}.txt").write_text(
            "\n".join(f"{int(r[0])} " + " ".join(repr(float(v)) for v in r[1:]) for r in predictions)
        )
    results = {}
    for size in (None, (480, 640)):
        truth, predictions = (
            read_yolo_folder(truth_folder, image_sizes=size),
            read_yolo_folder(prediction_folder, image_sizes=size),
        )
        voc = evaluate_voc(truth.annotations, predictions.annotations, images=truth.images)
        coco = evaluate_coco(truth.annotations, predictions.annotations, images=truth.images)
        results[size] = (voc.mAP, coco["AP50"], coco["AP75"], coco["AP"], coco["APl"])
    normalised, pixels = results[None], results[(480, 640)]
    np.testing.assert_allclose(normalised[:4], pixels[:4], rtol=1e-12)
    # Area ranges are in pixels: normalised areas (< 1) are all "small", so APl has no object there.
    assert np.isnan(normalised[4]) or normalised[4] == -1
    assert 0.3 < pixels[0] < 1


# --------------------------------------------------------------------------- errors
BAD_LINES = [
    (
        "0 0.5 0.5 0.2",
        None,
        r"expected 5 or 6 fields \(class cx cy w h \[conf\]\) or 9 or 10 fields "
        r"\(class x1 y1 x2 y2 x3 y3 x4 y4 \[conf\]\), or a segmentation polygon \(class x1 y1 \.\.\. "
        r"xk yk \[conf\], k >= 3 points\) \(got 4 fields: '0 0.5 0.5 0.2'\)",
    ),
    (
        "0 0.5 0.5 0.2 0.2",
        True,
        r"expected 9 or 10 fields \(class x1 y1 x2 y2 x3 y3 x4 y4 \[conf\]\); this line reads "
        r"as a box: pass obb=False or obb=None \(got 5 fields",
    ),
    (
        "0 0.1 0.1 0.3 0.1 0.3 0.3 0.1 0.3",
        False,
        r"expected 5 or 6 fields \(class cx cy w h \[conf\]\); this line reads "
        r"as YOLO-OBB corners: pass obb=True or obb=None \(got 9 fields",
    ),
    ("a 0.5 0.5 0.2 0.2", None, r"'class' must be a non-negative integer \(got 'a'\)"),
    ("-1 0.5 0.5 0.2 0.2", None, r"'class' must be a non-negative integer \(got '-1'\)"),
    ("1.0 0.5 0.5 0.2 0.2", None, r"'class' must be a non-negative integer \(got '1.0'\)"),
    ("0 0.5 x 0.2 0.2", None, r"'cy' must be a number \(got 'x'\)"),
    ("0 0.5 0.5 nan 0.2", None, r"'w' must be a finite number \(got 'nan'\)"),
    ("0 0.5 0.5 0.2 inf", None, r"'h' must be a finite number \(got 'inf'\)"),
    ("0 1.2 0.5 0.2 0.2", None, r"'cx' must be a normalised coordinate in \[0, 1\] \(got '1.2'\)"),
    ("0 0.5 0.5 -0.2 0.2", None, r"'w' must be a normalised coordinate in \[0, 1\] \(got '-0.2'\)"),
    ("0 0.5 0.5 0.2 0.2 nan", None, r"'conf' must be a finite number \(got 'nan'\)"),  # any finite conf is taken
    ("0 0.5 0.5 0.2 0.2 -0", None, None),  # -0 is a valid conf of 0: no error (used as a control)
    ("0 0.1 0.1 0.3 0.1 0.3 0.3 x 0.3", True, r"'x4' must be a number \(got 'x'\)"),
    ("0 0.1 0.1 0.3 0.3 0.3 0.1 0.1 0.3", True, r"'corners' must be a simple quadrilateral: its edges must not cross"),
    ("0 0.1 0.1 0.2 0.2 0.3 0.3 0.4 0.4", True, r"'corners' must enclose a positive area"),
]


@pytest.mark.parametrize(("line", "obb", "message"), [case for case in BAD_LINES if case[2]])
def test_bad_lines_name_the_file_line_and_fault(tmp_path, line, obb, message):
    first = "3 0.1 0.1 0.3 0.1 0.3 0.3 0.1 0.3" if obb else "3 0.5 0.5 0.1 0.1"
    path = write(tmp_path / "labels.txt", f"{first}\n\n{line}\n")
    with pytest.raises(geoiou.FormatError, match=message) as error:
        read_yolo(path, obb=obb)
    assert str(error.value).startswith(f"{path}, line 3: ")
    objects = read_yolo(path, obb=obb, skip_invalid=True)
    assert objects.report.read == 1 and objects.classes.tolist() == [3]
    assert [s.location for s in objects.report.skipped] == ["line 3"]
    assert re.search(message, objects.report.skipped[0].reason)


def test_control_line_is_valid(tmp_path):
    objects = read_yolo(write(tmp_path / "a.txt", "0 0.5 0.5 0.2 0.2 -0\n"))
    assert objects.scores.tolist() == [0.0]


def test_conf_column_on_some_lines_only(tmp_path):
    path = write(tmp_path / "a.txt", "0 0.5 0.5 0.2 0.2 0.9\n1 0.5 0.5 0.2 0.2\n2 0.5 0.5 0.2 0.2 0.8\n")
    with pytest.raises(
        geoiou.FormatError,
        match=r"line 2: 'conf' must be present on every line or on none "
        r"\(got no conf column, while line 1 has one\)",
    ):
        read_yolo(path)
    objects = read_yolo(path, skip_invalid=True)
    assert objects.classes.tolist() == [0, 2] and objects.scores.tolist() == [0.9, 0.8]
    path = write(tmp_path / "b.txt", "0 0.5 0.5 0.2 0.2\n1 0.5 0.5 0.2 0.2 0.3\n")
    with pytest.raises(geoiou.FormatError, match=r"line 2: .*\(got a conf column, while line 1 has none\)"):
        read_yolo(path)


def test_file_mixing_boxes_and_obb_is_an_error_even_when_skipping(tmp_path):
    path = write(tmp_path / "a.txt", "0 0.5 0.5 0.2 0.2\nbad\n1 0.1 0.1 0.3 0.1 0.3 0.3 0.1 0.3\n")
    message = (
        r"a\.txt: the file mixes YOLO boxes \(class cx cy w h, first at line 1\) and polygons \(YOLO-OBB corners "
        r"or segmentation points, first at line 3\); pass obb=False or obb=True"
    )
    for skip in (False, True):
        with pytest.raises(geoiou.FormatError, match=message):
            read_yolo(path, skip_invalid=skip)
    # Choosing a kind makes the other kind's lines invalid records, which can be skipped.
    boxes = read_yolo(path, obb=False, skip_invalid=True)
    assert boxes.classes.tolist() == [0] and boxes.report.counts() == {
        "expected 5 or 6 fields (class cx cy w h [conf])": 1,
        "expected 5 or 6 fields (class cx cy w h [conf]); this line reads as YOLO-OBB corners: pass obb=True or "
        "obb=None": 1,
    }
    corners = read_yolo(path, obb=True, skip_invalid=True)
    assert corners.classes.tolist() == [1] and len(corners.report.skipped) == 2


def test_skip_counts_over_a_file(tmp_path):
    lines = [
        "0 0.5 0.5 0.2 0.2",
        "0 1.5 0.5 0.2 0.2",
        "x 0.5 0.5 0.2 0.2",
        "0 0.5 2 0.2 0.2",
        "0 0.5",
        "4 0.1 0.1 0.1 0.1",
    ]
    objects = read_yolo(write(tmp_path / "a.txt", "\n".join(lines)), skip_invalid=True)
    assert objects.report.read == 2 and objects.classes.tolist() == [0, 4]
    assert objects.report.counts() == {
        "'cx' must be a normalised coordinate in [0, 1]": 1,
        "'class' must be a non-negative integer": 1,
        "'cy' must be a normalised coordinate in [0, 1]": 1,
        "expected 5 or 6 fields (class cx cy w h [conf]) or 9 or 10 fields "
        "(class x1 y1 x2 y2 x3 y3 x4 y4 [conf]), or a segmentation polygon "
        "(class x1 y1 ... xk yk [conf], k >= 3 points)": 1,
    }


@pytest.mark.parametrize(
    ("size", "shown"),
    [
        ((0, 10), r"\(0, 10\)"),
        ((10.5, 10), r"\(10.5, 10\)"),
        ((10,), r"\(10,\)"),
        ("640x480", "'640x480'"),
        ((True, 3), r"\(True, 3\)"),
    ],
)
def test_image_size_must_be_two_positive_integers(tmp_path, size, shown):
    path = write(tmp_path / "a.txt", "0 0.5 0.5 0.2 0.2\n")
    with pytest.raises(
        geoiou.InvalidArgumentError,
        match=r"'image_size' must be \(height, width\) in pixels, "
        rf"two positive integers \(got {shown}\)",
    ):
        read_yolo(path, image_size=size)


def test_obb_option_must_be_a_bool_or_none(tmp_path):
    with pytest.raises(geoiou.InvalidArgumentError, match=r"'obb' must be True, False or None \(got 'yes'\)"):
        read_yolo(write(tmp_path / "a.txt", ""), obb="yes")


# --------------------------------------------------------------------------- folders
def test_folder_in_sorted_order_with_empty_images_and_per_image_sizes(tmp_path):
    write(tmp_path / "b.txt", "1 0.5 0.5 0.2 0.4\n")
    write(tmp_path / "a.txt", "0 0.5 0.5 0.5 0.5\n2 0.25 0.25 0.5 0.5\n")
    write(tmp_path / "c.txt", "")
    write(tmp_path / "data.yaml", "names: [a, b, c]\n")
    labels = read_yolo_folder(tmp_path, image_sizes={"a": (10, 20), "b": (100, 200), "c": (1, 1), "unused": (5, 5)})
    rows = labels.annotations
    assert labels.images == ("a", "b", "c")
    assert rows.image_id.tolist() == ["a", "a", "b"] and rows.category_id.tolist() == [0, 2, 1]
    assert rows.score is None and rows.ignore is None and rows.kinds == ("Box",)
    # a: height 10, width 20; b: the golden box of test_box_to_pixels_golden.
    np.testing.assert_array_equal(
        np.concatenate([piece.to_array() for piece in rows.regions]),
        [[5, 2.5, 15, 7.5], [0, 0, 10, 5], [80, 30, 120, 70]],
    )
    assert labels.report.read == 3 and labels.report.source == str(tmp_path)


def test_folder_with_one_size_for_all_and_obb(tmp_path):
    write(tmp_path / "x.txt", "5 0.1 0.1 0.3 0.1 0.3 0.3 0.1 0.3 0.5\n")
    write(tmp_path / "y.txt", "6 0.5 0.5 0.6 0.5 0.6 0.6 0.5 0.6 0.25\n")
    labels = read_yolo_folder(tmp_path, image_sizes=(100, 100))
    assert labels.annotations.kinds == ("Polygon",) and labels.annotations.score.tolist() == [0.5, 0.25]
    areas = np.concatenate([piece.area for piece in labels.annotations.regions])
    np.testing.assert_allclose(areas, [400.0, 100.0], rtol=1e-12)


def test_folder_image_sizes_must_cover_every_stem(tmp_path):
    write(tmp_path / "a.txt", "0 0.5 0.5 0.2 0.2\n")
    write(tmp_path / "b.txt", "")
    with pytest.raises(
        geoiou.InvalidArgumentError,
        match=r"'image_sizes' must have a \(height, width\) for every label file \(got none for 'b'\)",
    ):
        read_yolo_folder(tmp_path, image_sizes={"a": (10, 10)})
    with pytest.raises(geoiou.InvalidArgumentError, match=r"\(got none for 'a' and 1 more\)"):
        read_yolo_folder(tmp_path, image_sizes={})
    with pytest.raises(geoiou.InvalidArgumentError, match=r"'image_sizes\[\"b\"\]' must be \(height, width\)"):
        read_yolo_folder(tmp_path, image_sizes={"a": (10, 10), "b": (0, 10)})
    with pytest.raises(geoiou.InvalidArgumentError, match=r"'image_sizes' must be \(height, width\)"):
        read_yolo_folder(tmp_path, image_sizes=(10, -1))


def test_folder_mixing_kinds_or_conf_columns_is_an_error(tmp_path):
    write(tmp_path / "a.txt", "0 0.5 0.5 0.2 0.2\n")
    write(tmp_path / "b.txt", "0 0.1 0.1 0.3 0.1 0.3 0.3 0.1 0.3\n")
    with pytest.raises(
        geoiou.FormatError,
        match=r"the folder mixes files of YOLO boxes \(a\.txt\) and of YOLO-OBB "
        r"corners \(b\.txt\); pass obb=False or obb=True",
    ):
        read_yolo_folder(tmp_path)
    write(tmp_path / "b.txt", "0 0.5 0.5 0.2 0.2 0.7\n")
    with pytest.raises(geoiou.FormatError, match=r"a\.txt: the file has no score column while .*b\.txt has one"):
        read_yolo_folder(tmp_path)


def test_folder_skips_report_their_file(tmp_path):
    write(tmp_path / "a.txt", "0 0.5 0.5 0.2 0.2\n0 0.5 0.5 0.2 9\n")
    write(tmp_path / "b.txt", "q 0.5 0.5 0.2 0.2\n1 0.5 0.5 0.2 0.2\n")
    labels = read_yolo_folder(tmp_path, skip_invalid=True)
    assert labels.report.read == 2 and [s.location for s in labels.report.skipped] == ["a.txt, line 2", "b.txt, line 1"]
    assert "1 x 'h' must be a normalised coordinate in [0, 1] (first at a.txt, line 2)" in labels.report.summary()
    with pytest.raises(geoiou.FormatError, match=r"a\.txt, line 2: 'h' must be a normalised coordinate"):
        read_yolo_folder(tmp_path)


def test_folder_without_text_files(tmp_path):
    write(tmp_path / "image.jpg", "")
    with pytest.raises(geoiou.FormatError, match=f"{re.escape(str(tmp_path))}: the folder holds no label files"):
        read_yolo_folder(tmp_path)


def test_labelimg_classes_txt_names_the_classes_and_is_not_an_image(tmp_path):
    (tmp_path / "classes.txt").write_text("dog\ncat\n")
    (tmp_path / "street.txt").write_text("1 0.5 0.5 0.2 0.4\n0 0.2 0.2 0.1 0.1\n")
    read = read_yolo_folder(tmp_path)
    assert read.images == ("street",) and read.class_names == {0: "dog", 1: "cat"}
    assert read.annotations.category_id.tolist() == [1, 0]  # indices stay the categories; names are for display


def test_segmentation_polygons_of_any_point_count(tmp_path):
    # ultralytics' segment labels: class then the polygon's points; a conf column makes the count even.
    path = tmp_path / "image.txt"
    path.write_text("0 0.1 0.1 0.5 0.1 0.3 0.4\n2 0.5 0.5 0.9 0.5 0.9 0.9 0.7 1.0 0.5 0.9\n")
    objects = read_yolo(path, image_size=(10, 10))
    assert type(objects.regions).__name__ == "Polygon" and objects.classes.tolist() == [0, 2]
    np.testing.assert_allclose(objects.regions.area, [0.5 * 4 * 3, 16 + 0.5 * 4 * 1 + 0 * 1], rtol=1e-12)
    path.write_text("1 0.1 0.1 0.5 0.1 0.3 0.4 0.8\n")
    scored = read_yolo(path)
    assert scored.scores.tolist() == [0.8] and scored.regions.area[0] == pytest.approx(0.5 * 0.4 * 0.3)
    path.write_text("0 0.1 0.1 0.5 0.5 0.5 0.1 0.1 0.5\n0 0.2 0.2 0.4 0.2 0.3 0.3\n")  # a bow tie first
    with pytest.raises(geoiou.FormatError, match=r"line 1: 'points' must make a simple polygon"):
        read_yolo(path)
    assert len(read_yolo(path, skip_invalid=True).regions) == 1
    # Seven fields on a line of a box file make it a mix of boxes and polygons: refused as a whole.
    path.write_text("0 0.5 0.5 0.2 0.2\n0 0.5 0.5 0.2 0.2 0.5 0.5\n")
    with pytest.raises(geoiou.FormatError, match="mixes YOLO boxes"):
        read_yolo(path)


@pytest.mark.parametrize("layout", ["box", "box conf", "obb", "obb conf"])
@pytest.mark.parametrize("image_size", [None, (480, 640)])
def test_columns_and_lines_read_the_same_objects(layout, image_size, monkeypatch, tmp_path):
    """Plain files are read all lines at once; the line reader (which names faults) must give the same objects."""
    from geoiou.io import yolo

    rng = np.random.default_rng(len(layout))
    n = 50
    centre, size = rng.uniform(0.3, 0.7, (n, 2)), rng.uniform(0.05, 0.3, (n, 2))
    if layout.startswith("box"):
        values = np.c_[centre, size]
    else:  # rectangles turned a little: valid quadrilaterals inside the unit square
        angle = rng.uniform(0, np.pi / 2, n)
        offsets = np.stack([[-1, -1], [1, -1], [1, 1], [-1, 1]]) / 2
        rotation = np.stack([np.cos(angle), -np.sin(angle), np.sin(angle), np.cos(angle)], -1).reshape(n, 2, 2)
        values = (centre[:, None] + np.einsum("nij,nkj->nki", rotation, offsets[None] * size[:, None] / 2)).reshape(
            n, 8
        )
    lines = [
        " ".join([str(int(c)), *map(repr, row.tolist())] + ([f"{s:.3f}"] if "conf" in layout else []))
        for c, row, s in zip(rng.integers(0, 80, n), values, rng.random(n))
    ]
    path = tmp_path / "image.txt"
    path.write_text("\n".join(lines) + "\n")
    fast = read_yolo(path, image_size=image_size)
    monkeypatch.setattr(yolo, "_yolo_columns", lambda *arguments: None)
    slow = read_yolo(path, image_size=image_size)
    assert type(fast.regions) is type(slow.regions)
    np.testing.assert_array_equal(fast.classes, slow.classes)
    assert (fast.scores is None) == (slow.scores is None)
    if fast.scores is not None:
        np.testing.assert_array_equal(fast.scores, slow.scores)
    np.testing.assert_array_equal(fast.regions.area, slow.regions.area)
    np.testing.assert_array_equal(fast.regions.bounds, slow.regions.bounds)
    assert fast.report == slow.report


@pytest.mark.parametrize("layout", ["box", "obb conf"])
def test_a_folder_read_as_one_table_equals_the_files_read_one_by_one(layout, monkeypatch, tmp_path):
    """A folder of plain files is read as one table; file by file (the path that names faults) gives the same set."""
    from geoiou.io import yolo

    rng = np.random.default_rng(7)
    sizes = {}
    for k in range(12):
        n = int(rng.integers(0, 5))
        centre = rng.uniform(0.3, 0.7, (n, 2))
        if layout == "box":
            rows = [f"{int(c)} {x!r} {y!r} 0.1 0.2" for c, (x, y) in zip(rng.integers(0, 9, n), centre.tolist())]
        else:
            rows = [
                f"{int(c)} {x - 0.1!r} {y - 0.1!r} {x + 0.1!r} {y - 0.1!r} {x + 0.1!r} {y + 0.1!r} {x - 0.1!r} "
                f"{y + 0.1!r} {s:.2f}"
                for c, (x, y), s in zip(rng.integers(0, 9, n), centre.tolist(), rng.random(n))
            ]
        write(tmp_path / f"img{k}.txt", "\n".join(rows) + ("\n" if rows else ""))
        sizes[f"img{k}"] = (int(rng.integers(100, 900)), int(rng.integers(100, 900)))
    fast = read_yolo_folder(tmp_path, image_sizes=sizes)
    monkeypatch.setattr(yolo, "_folder_columns", lambda *arguments: None)
    slow = read_yolo_folder(tmp_path, image_sizes=sizes)
    for name in ("image_id", "category_id", "score"):
        np.testing.assert_array_equal(getattr(fast.annotations, name), getattr(slow.annotations, name))
    for name in ("area", "bounds"):
        np.testing.assert_array_equal(
            np.concatenate([getattr(piece, name) for piece in fast.annotations.regions]),
            np.concatenate([getattr(piece, name) for piece in slow.annotations.regions]),
        )
    assert fast.images == slow.images and fast.report == slow.report


def test_obb_corners_outside_the_image_are_read_as_written(tmp_path):
    # Issue 24, item 14: ultralytics writes xyxyxyxyn unclipped, so an OBB prediction may reach past the image.
    path = tmp_path / "a.txt"
    path.write_text("0 -0.1 0.1 0.9 0.1 0.9 0.9 -0.1 0.9 0.5\n")
    objects = read_yolo(path)
    assert objects.regions.area.tolist() == pytest.approx([0.8])  # 1.0 wide, 0.8 high: nothing clipped
    assert read_yolo(path, obb=True).regions.bounds[0].tolist() == pytest.approx([-0.1, 0.1, 0.9, 0.9])


def test_confs_are_any_finite_score(tmp_path):
    # Issue 24, item 18: an evaluation only ranks scores; a logit of 1.5 is a score like any other.
    path = tmp_path / "a.txt"
    path.write_text("0 0.5 0.5 0.2 0.2 1.5\n0 0.5 0.5 0.1 0.1 -2\n")
    assert read_yolo(path).scores.tolist() == [1.5, -2.0]
