"""geoiou.plot: pictures that show exactly what geoiou measures.

Each picture is rendered to a PNG and read back (not blank, several colours); the numbers written
on it are compared with geoiou's metrics; the drawn intersection and enclosure are measured from
their path vertices (shoelace formula) and compared with geoiou's intersection area and GIoU.
"""

from __future__ import annotations

import subprocess
import sys
from importlib.resources import files

import numpy as np
import pytest
import shapely

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.image  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import geoiou  # noqa: E402
from geoiou.evaluation import Annotations, evaluate_coco, evaluate_temporal_detection, evaluate_voc  # noqa: E402
from geoiou.io import read_dota  # noqa: E402
from geoiou.plot import plot_boundary_pair, plot_pair, plot_pr_curve, plot_regions, plot_threshold_curve, plot_timeline  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


# --------------------------------------------------------------------------- helpers
def render(ax, path) -> np.ndarray:
    """Save the Axes' figure as a PNG, check the file, and return its pixels (RGB in [0, 1])."""
    ax.figure.savefig(path, dpi=50)
    assert path.exists() and path.stat().st_size > 0
    return matplotlib.image.imread(path)[..., :3]


def assert_not_blank(pixels: np.ndarray, min_colours: int = 4) -> None:
    non_white = np.any(pixels < 0.98, axis=-1).mean()
    colours = np.unique((pixels * 255).round().astype(np.uint8).reshape(-1, 3), axis=0)
    assert non_white > 0.02, f"only {non_white:.1%} of the picture is drawn"
    assert len(colours) >= min_colours, f"only {len(colours)} colours"


def patch_with_gid(ax, gid: str):
    found = [patch for patch in ax.patches if patch.get_gid() == gid]
    assert len(found) == 1, f"expected one patch {gid!r}, found {len(found)}"
    return found[0]


def metrics_text(ax) -> str:
    return next(text for text in ax.texts if text.get_gid() == "metrics").get_text()


def metrics_rows(ax) -> dict[str, str]:
    """The annotation as {name: value}, e.g. {"IoU": "0.1429", "|C| (box)": "9"}."""
    rows = {}
    for line in metrics_text(ax).splitlines():
        name, value = line.rsplit(None, 1)
        rows[name.strip()] = value
    return rows


def path_area(path) -> float:
    """Area enclosed by a path: the sum of the signed shoelace areas of its closed parts.

    Holes count negatively only if they run against their exteriors, as the fill needs them to.
    """
    total = 0.0
    for ring in path.to_polygons(closed_only=True):
        x, y = ring[:, 0], ring[:, 1]
        total += 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    return abs(total)


# --------------------------------------------------------------------------- regions of every kind
def ring_mask() -> np.ndarray:
    """A 6 × 6 square of pixels with a 2 × 2 hole: its outline has an interior ring."""
    pixels = np.zeros((8, 8), dtype=bool)
    pixels[1:7, 1:7] = True
    pixels[3:5, 3:5] = False
    return pixels


# Two regions of each kind that overlap partly whatever kinds are paired: `a` sits around (4, 4),
# `b` around (6, 5). The polygon has a hole and the second mask a fractional origin, so that the
# drawn intersection must be exact, not pixel-aligned.
FIRST = {
    "Box": lambda: geoiou.Box([1, 1, 7, 6]),
    "RotatedBox": lambda: geoiou.RotatedBox([4, 3.5, 6, 4, 20]),
    "Polygon": lambda: geoiou.Polygon.from_shapely(
        shapely.Polygon([(1, 1), (7, 1), (7, 7), (1, 7)], [[(3, 3), (5, 3), (5, 5), (3, 5)]])
    ),
    "Mask": lambda: geoiou.Mask(ring_mask()),
}
SECOND = {
    "Box": lambda: geoiou.Box([3.5, 2.5, 9, 8]),
    "RotatedBox": lambda: geoiou.RotatedBox([6, 5, 6, 3, -30]),
    "Polygon": lambda: geoiou.Polygon([(4, 2), (10, 4), (8, 9), (3.5, 7)]),
    "Mask": lambda: geoiou.Mask(np.ones((5, 6), dtype=bool), origin=(3.5, 2.25)),
}
PAIRS = [(first, second) for first in FIRST for second in SECOND]


@pytest.mark.parametrize(("kind_a", "kind_b"), PAIRS)
def test_every_pair_of_2d_kinds_draws_geoious_numbers_and_exact_shapes(kind_a, kind_b, tmp_path):
    a, b = FIRST[kind_a](), SECOND[kind_b]()
    ax = plot_pair(a, b)
    assert_not_blank(render(ax, tmp_path / f"{kind_a}-{kind_b}.png"))

    rows = metrics_rows(ax)
    assert rows["IoU"] == f"{geoiou.iou(a, b):.4f}"
    assert rows["GIoU"] == f"{geoiou.giou(a, b):.4f}"
    assert float(rows["intersection"]) == pytest.approx(geoiou.intersection_area(a, b), rel=1e-5)
    assert float(rows["union"]) == pytest.approx(geoiou.union_area(a, b), rel=1e-5)
    # The drawn intersection is the exact shapely overlay of the outlines: its area is geoiou's.
    drawn = path_area(patch_with_gid(ax, "intersection").get_path())
    assert drawn == pytest.approx(geoiou.intersection_area(a, b), rel=1e-9)
    assert 0 < drawn < min(a.area, b.area)  # the fixtures overlap partly
    # The drawn C reproduces geoiou's GIoU: IoU - (|C| - union) / |C|.
    enclosure = path_area(patch_with_gid(ax, "enclosure").get_path())
    union = geoiou.union_area(a, b)
    assert geoiou.iou(a, b) - (enclosure - union) / enclosure == pytest.approx(geoiou.giou(a, b), abs=1e-9)
    # Image orientation: y grows downwards, equal scales.
    assert ax.yaxis_inverted()
    assert ax.get_aspect() == 1.0


def test_box_pair_annotation_golden_values():
    # IoU = 1/7 (overlap 1, union 4 + 4 - 1); the enclosing box is 3 × 3 = 9, so
    # GIoU = 1/7 - (9 - 7)/9 = -0.0794.
    ax = plot_pair(geoiou.Box([0, 0, 2, 2]), geoiou.Box([1, 1, 3, 3]))
    assert metrics_rows(ax) == {"IoU": "0.1429", "GIoU": "-0.0794", "intersection": "1", "union": "7", "|C| (box)": "9"}


def test_box_pair_enclosure_is_the_enclosing_box():
    a, b = geoiou.Box([1, 1, 4, 3]), geoiou.Box([2, 2, 6, 7])
    ax = plot_pair(a, b)
    vertices = patch_with_gid(ax, "enclosure").get_path().vertices
    assert vertices.min(axis=0).tolist() == [1, 1] and vertices.max(axis=0).tolist() == [6, 7]
    # Four corners of [1, 6] × [1, 7] (and the closing vertex), nothing else: a box, not the hull.
    assert {tuple(v) for v in vertices} == {(1, 1), (6, 1), (6, 7), (1, 7)}
    assert "|C| (box)" in metrics_rows(ax)


def test_hull_enclosure_on_request_is_smaller_than_the_box():
    a, b = geoiou.Box([0, 0, 1, 1]), geoiou.Box([2, 2, 3, 3])
    ax = plot_pair(a, b, enclosure="hull")
    # The hull of two unit squares on a diagonal: 9 minus two corner triangles of area 2 each.
    assert path_area(patch_with_gid(ax, "enclosure").get_path()) == pytest.approx(5.0)
    assert metrics_rows(ax)["|C| (hull)"] == "5"
    assert metrics_rows(ax)["GIoU"] == f"{geoiou.giou(a, b, enclosure='hull'):.4f}"


def test_half_pixel_coverage_is_drawn_exactly():
    # A triangle over half of a 2 × 2 mask: intersection 2, union 4, IoU exactly 0.5.
    mask = geoiou.Mask(np.ones((2, 2), dtype=bool))
    triangle = geoiou.Polygon([(0, 0), (2, 0), (0, 2)])
    ax = plot_pair(mask, triangle)
    assert metrics_rows(ax)["IoU"] == "0.5000"
    assert path_area(patch_with_gid(ax, "intersection").get_path()) == pytest.approx(2.0)


def test_mask_is_drawn_with_its_hole_and_a_light_fill():
    ax = plot_pair(geoiou.Mask(ring_mask()), geoiou.Box([0, 0, 1, 1]), labels=("mask", "box"))
    mask_patch = next(patch for patch in ax.patches if patch.get_label() == "mask")
    assert path_area(mask_patch.get_path()) == pytest.approx(32.0)  # 36 pixels minus the 4 of the hole
    assert 0 < mask_patch.get_facecolor()[3] < 0.5
    assert next(patch for patch in ax.patches if patch.get_label() == "box").get_facecolor()[3] == 0


def test_disjoint_pair_draws_an_empty_intersection():
    a, b = geoiou.Polygon([(0, 0), (1, 0), (0, 1)]), geoiou.RotatedBox([5, 5, 1, 1, 45])
    ax = plot_pair(a, b)
    assert len(patch_with_gid(ax, "intersection").get_path().vertices) == 0
    assert metrics_rows(ax)["IoU"] == "0.0000"


def test_labels_name_the_legend_entries_and_annotate_false_writes_no_numbers():
    ax = plot_pair(geoiou.Box([0, 0, 2, 2]), geoiou.Box([1, 1, 3, 3]), labels=("truth", "guess"), annotate=False)
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert {"truth", "guess", "truth ∩ guess", "truth ∪ guess", "C: enclosing box"} <= set(legend)
    assert not [text for text in ax.texts if text.get_gid() == "metrics"]


def test_drawing_twice_on_one_axes_keeps_y_pointing_down():
    _, ax = plt.subplots()
    for _ in range(2):
        plot_pair(geoiou.Box([0, 0, 2, 2]), geoiou.Box([1, 1, 3, 3]), ax=ax)
    assert ax.yaxis_inverted()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=8, max_size=8), st.floats(-90, 90))
def test_drawn_intersection_area_is_geoious_for_random_box_and_rotated_box(numbers, angle):
    x1, y1, dx, dy, cx, cy, w, h = numbers
    box = geoiou.Box([x1, y1, x1 + dx + 1, y1 + dy + 1])
    rotated = geoiou.RotatedBox([cx, cy, w + 1, h + 1, angle])
    ax = plot_pair(box, rotated)
    assert path_area(patch_with_gid(ax, "intersection").get_path()) == pytest.approx(
        geoiou.intersection_area(box, rotated), rel=1e-9, abs=1e-9
    )
    plt.close(ax.figure)


# --------------------------------------------------------------------------- boundary bands
def shifted_squares() -> tuple[geoiou.Mask, geoiou.Mask]:
    """geoiou.boundary's example: an 80 × 80 square and the same moved right by 2 pixels, in 100 × 100 images."""
    a = np.zeros((100, 100), dtype=bool)
    a[10:90, 10:90] = True
    b = np.zeros((100, 100), dtype=bool)
    b[10:90, 12:92] = True
    return geoiou.Mask(a), geoiou.Mask(b)


def test_boundary_pair_of_masks_draws_boundary_iou_apis_bands(tmp_path):
    a, b = shifted_squares()
    ax = plot_boundary_pair(a, b, labels=("truth", "guess"))
    assert_not_blank(render(ax, tmp_path / "bands.png"))
    rows = metrics_rows(ax)
    # d = round(0.02 · √(100² + 100²)) = 3: each band is 80² − 74² = 924 pixels. They share 3 rows of 78 pixels
    # (columns 12-89) at the top and at the bottom (468) and, on the 74 rows between, columns 12 and 89 (148):
    # 616 of a union of 1,232, so boundary IoU is 0.5 while the mask IoU is 78 · 80 / (82 · 80).
    assert rows["d of truth"] == rows["d of guess"] == "3"
    assert rows["band truth"] == rows["band guess"] == "924"
    assert rows["band intersection"] == "616"
    assert rows["band union"] == "1232"
    assert rows["boundary IoU"] == f"{geoiou.boundary_iou(a, b):.4f}" == "0.5000"
    assert rows["IoU"] == f"{78 / 82:.4f}"
    assert path_area(patch_with_gid(ax, "band intersection").get_path()) == pytest.approx(616)
    assert path_area(patch_with_gid(ax, "band truth").get_path()) == pytest.approx(924)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(2, 20), min_size=4, max_size=4), st.floats(-90, 90), st.sampled_from([1.0, 2.5]))
def test_drawn_band_intersection_is_geoious_for_random_vector_pairs(numbers, angle, distance):
    x, y, w, h = numbers
    box = geoiou.Box([x, y, x + w, y + h])
    rotated = geoiou.RotatedBox([12, 12, w + 1, h + 2, angle])
    ax = plot_boundary_pair(box, rotated, distance=distance)
    bands = [geoiou.boundary_band(region, distance=distance) for region in (box, rotated)]
    assert path_area(patch_with_gid(ax, "band intersection").get_path()) == pytest.approx(
        geoiou.intersection_area(*bands), rel=1e-9, abs=1e-9
    )
    assert path_area(patch_with_gid(ax, "band A").get_path()) == pytest.approx(bands[0].area, rel=1e-9)
    assert metrics_rows(ax)["boundary IoU"] == f"{geoiou.boundary_iou(box, rotated, distance=distance):.4f}"
    plt.close(ax.figure)


def test_boundary_pair_of_a_mask_and_a_polygon_and_of_disjoint_regions():
    a, _ = shifted_squares()
    square = geoiou.Polygon([(10, 10), (90, 10), (90, 90), (10, 90)])  # the mask's own outline
    ax = plot_boundary_pair(a, square, image_size=(100, 100), title="a mask and its outline")
    # The mask's band is d = 3 pixels wide, the polygon's exactly 0.02 · 141.42 = 2.83: the shared part is the
    # polygon's whole band, 80² − (80 − 2 · 2.83)², and the title is the caller's.
    d = 0.02 * np.hypot(100, 100)
    assert metrics_rows(ax)["band intersection"] == f"{80**2 - (80 - 2 * d) ** 2:.6g}"
    assert ax.get_title() == "a mask and its outline"
    far = plot_boundary_pair(geoiou.Box([0, 0, 4, 4]), geoiou.Box([10, 10, 14, 14]), distance=1, annotate=False)
    assert len(patch_with_gid(far, "band intersection").get_path().vertices) == 0
    assert not [text for text in far.texts if text.get_gid() == "metrics"]


@pytest.mark.parametrize(
    ("a", "b", "options", "message"),
    [
        (geoiou.Box([[0, 0, 1, 1]] * 2), geoiou.Box([0, 0, 1, 1]), {"distance": 1}, "'a' must be a single region"),
        (geoiou.Box([0, 0, 1, 1]), geoiou.Interval([0, 1]), {"distance": 1}, "'region' must be a Mask, Polygon"),
        (geoiou.Box([0, 0, 1, 1]), geoiou.Box([0, 0, 1, 1]), {}, "'image_size' must be the (height, width)"),
        (geoiou.Box([0, 0, 1, 1]), geoiou.Box([0, 0, 1, 1]), {"distance": -1}, "'distance' must be positive"),
        (geoiou.Box([0, 0, 1, 1]), geoiou.Box([0, 0, 1, 1]), {"distance": 1, "labels": "AB"}, "'labels' must be"),
    ],
)
def test_boundary_pair_refusals_name_the_parameter(a, b, options, message):
    with pytest.raises(geoiou.InvalidArgumentError) as raised:
        plot_boundary_pair(a, b, **options)
    assert message in str(raised.value)


# --------------------------------------------------------------------------- intervals
def test_interval_pair_is_a_timeline_with_overlap_and_enclosing_interval(tmp_path):
    a, b = geoiou.Interval([0, 10]), geoiou.Interval([5, 20])
    ax = plot_pair(a, b, labels=("ground truth", "prediction"))
    assert_not_blank(render(ax, tmp_path / "intervals.png"))
    # tIoU = 5 / 20; the enclosing interval [0, 20] equals the union, so GIoU = tIoU.
    assert metrics_rows(ax) == {
        "tIoU": "0.2500",
        "GIoU": "0.2500",
        "intersection": "5",
        "union": "20",
        "|C| (interval)": "20",
    }
    overlap = patch_with_gid(ax, "intersection")
    assert (overlap.get_x(), overlap.get_width()) == (5, geoiou.intersection_area(a, b))
    enclosure = patch_with_gid(ax, "enclosure")
    assert (enclosure.get_x(), enclosure.get_x() + enclosure.get_width()) == (0, 20)
    assert [label.get_text() for label in ax.get_yticklabels()] == ["ground truth", "prediction"]


def test_disjoint_intervals_have_no_overlap_band_and_a_negative_giou():
    # tIoU 0; C = [0, 4] of length 4 holds a union of 2, so GIoU = 0 - 2/4.
    ax = plot_pair(geoiou.Interval([0, 1]), geoiou.Interval([3, 4]))
    assert not [patch for patch in ax.patches if patch.get_gid() == "intersection"]
    assert metrics_rows(ax)["GIoU"] == "-0.5000"


def test_timeline_draws_one_bar_per_interval_on_its_lane(tmp_path):
    truth = geoiou.Interval([[0, 4], [6, 9]])
    predicted = geoiou.Interval([[1, 5], [5, 5], [8, 12]])  # [5, 5) has zero length
    ax = plot_timeline({"ground truth": truth, "prediction": predicted})
    assert_not_blank(render(ax, tmp_path / "timeline.png"), min_colours=3)
    bars = [
        (patch.get_x(), patch.get_x() + patch.get_width(), patch.get_y() + patch.get_height() / 2)
        for patch in ax.patches
    ]
    assert bars == [(0, 4, 0), (6, 9, 0), (1, 5, 1), (5, 5, 1), (8, 12, 1)]
    assert [label.get_text() for label in ax.get_yticklabels()] == ["ground truth", "prediction"]


def test_timeline_names_sequence_tracks_by_labels_or_by_number():
    tracks = [geoiou.Interval([0, 1]), geoiou.Interval([1, 2]), geoiou.Interval([2, 3])]
    names = [label.get_text() for label in plot_timeline(tracks).get_yticklabels()]
    assert names == ["track 1", "track 2", "track 3"]
    names = [label.get_text() for label in plot_timeline(tracks, labels=["x", "y", "z"]).get_yticklabels()]
    assert names == ["x", "y", "z"]


@pytest.mark.parametrize(
    ("tracks", "labels", "message"),
    [
        ([], None, "'tracks' must be at least one track"),
        ({"truth": geoiou.Box([0, 0, 1, 1])}, None, "'tracks[\"truth\"]' must be an Interval (got 'Box')"),
        ([geoiou.Interval([0, 1]), [0, 1]], None, "'tracks[1]' must be an Interval (got 'list')"),
        ([geoiou.Interval([0, 1])], ["a", "b"], "'labels' must be a sequence of 1 names, one per track"),
    ],
)
def test_timeline_refuses_bad_tracks(tracks, labels, message):
    with pytest.raises(geoiou.InvalidArgumentError) as error:
        plot_timeline(tracks, labels=labels)
    assert message in str(error.value)


# --------------------------------------------------------------------------- plot_regions
def test_regions_of_a_dota_scene_each_get_an_outline_and_a_label(tmp_path):
    scene = read_dota(files("geoiou") / "data" / "dota" / "P0770.txt")
    ax = plot_regions(scene.polygons, labels=scene.classes, fill=True)
    assert_not_blank(render(ax, tmp_path / "dota.png"))
    (collection,) = [c for c in ax.collections if c.get_gid() == "regions"]
    paths = collection.get_paths()
    assert len(paths) == len(scene.polygons) == 22
    assert [path_area(path) for path in paths] == pytest.approx(scene.polygons.area)
    assert [text.get_text() for text in ax.texts] == list(scene.classes)
    positions = np.array([text.get_position() for text in ax.texts])
    assert positions == pytest.approx(scene.polygons.centroid)
    assert ax.yaxis_inverted()


@pytest.mark.parametrize(
    "regions",
    [
        geoiou.Box([[0, 0, 2, 1], [3, 3, 5, 6]]),
        geoiou.RotatedBox([[2, 2, 3, 1, 30], [6, 6, 2, 2, 0]]),
        geoiou.Mask(np.stack([ring_mask(), np.eye(8, dtype=bool)]), origin=[(0, 0), (9, 0)]),
        geoiou.Polygon([(0, 0), (4, 0), (0, 3)]),  # a single region is a batch of one
    ],
    ids=["Box", "RotatedBox", "Mask", "single Polygon"],
)
def test_regions_of_every_2d_kind_are_drawn_exactly(regions, tmp_path):
    ax = plot_regions(regions, color="#D55E00")
    assert_not_blank(render(ax, tmp_path / "regions.png"), min_colours=3)
    (collection,) = ax.collections
    assert [path_area(path) for path in collection.get_paths()] == pytest.approx(np.ravel(regions.area))


@pytest.mark.parametrize(
    ("regions", "labels", "message"),
    [
        (
            geoiou.Interval([[0, 1]]),
            None,
            "'regions' must be a Box, RotatedBox, Polygon or Mask (draw intervals with plot_timeline)",
        ),
        (geoiou.Box([[0, 0, 1, 1], [1, 1, 2, 2]]), ["one"], "'labels' must be a sequence of 2 texts, one per region"),
        (geoiou.Box([[0, 0, 1, 1]]), "a", "'labels' must be a sequence of 1 texts"),
    ],
)
def test_regions_refuses_intervals_and_wrong_label_counts(regions, labels, message):
    with pytest.raises(geoiou.InvalidArgumentError) as error:
        plot_regions(regions, labels=labels)
    assert message in str(error.value)


# --------------------------------------------------------------------------- plot_pair errors
def test_pair_refuses_batches_naming_the_parameter():
    boxes = geoiou.Box([[0, 0, 1, 1], [1, 1, 2, 2]])
    with pytest.raises(geoiou.InvalidArgumentError) as error:
        plot_pair(boxes, geoiou.Box([0, 0, 1, 1]))
    assert str(error.value) == "'a' must be a single region (batch shape ()) (got 'a batch of shape (2,)')"
    with pytest.raises(geoiou.InvalidArgumentError, match="'b' must be a single region"):
        plot_pair(geoiou.Box([0, 0, 1, 1]), boxes[:1])


def test_pair_refuses_an_interval_with_a_2d_region_before_drawing():
    figures = plt.get_fignums()
    with pytest.raises(geoiou.UnsupportedPairError, match="cannot compare Interval with Box"):
        plot_pair(geoiou.Interval([0, 1]), geoiou.Box([0, 0, 1, 1]))
    assert plt.get_fignums() == figures  # no figure left behind


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        (
            {"enclosure": "circle"},
            geoiou.InvalidArgumentError,
            "'enclosure' must be one of ('box', 'hull') or None (got 'circle')",
        ),
        ({"labels": ("only one",)}, geoiou.InvalidArgumentError, "'labels' must be two strings"),
        ({"labels": "AB"}, geoiou.InvalidArgumentError, "'labels' must be two strings"),
        ({"ax": "axes"}, geoiou.InvalidArgumentError, "'ax' must be a matplotlib Axes or None (got 'str')"),
    ],
)
def test_pair_refuses_bad_options(options, error, message):
    with pytest.raises(error) as raised:
        plot_pair(geoiou.Box([0, 0, 1, 1]), geoiou.Box([0, 0, 2, 2]), **options)
    assert message in str(raised.value)


def test_pair_refuses_what_is_not_a_region():
    with pytest.raises(TypeError, match="'b' must be a geoiou Region"):
        plot_pair(geoiou.Box([0, 0, 1, 1]), [0, 0, 1, 1])


# --------------------------------------------------------------------------- evaluation curves
@pytest.fixture(scope="module")
def coco_result():
    """Two categories with ground truth (1 and 2) and one with predictions only (3, precision -1)."""
    truth = Annotations(
        image_id=[1, 1, 1, 2],
        category_id=[1, 1, 2, 1],
        region=geoiou.Box([[0, 0, 10, 10], [20, 20, 30, 30], [0, 20, 10, 30], [5, 5, 15, 15]]),
    )
    predictions = Annotations(
        image_id=[1, 1, 1, 2, 2],
        category_id=[1, 1, 2, 1, 3],
        score=[0.9, 0.6, 0.8, 0.7, 0.5],
        region=geoiou.Box([[0, 0, 10, 9], [22, 21, 31, 30], [0, 21, 10, 29], [6, 6, 16, 16], [0, 0, 5, 5]]),
    )
    return evaluate_coco(truth, predictions, categories=[1, 2, 3])


@pytest.fixture(scope="module")
def voc_result():
    truth = Annotations(
        image_id=["a", "a", "b"],
        category_id=["ship", "plane", "ship"],
        region=geoiou.RotatedBox([[10, 10, 8, 4, 30], [40, 40, 8, 4, 0], [5, 5, 4, 4, 0]]),
    )
    predictions = Annotations(
        image_id=["a", "a", "b", "b"],
        category_id=["ship", "plane", "ship", "ship"],
        score=[0.9, 0.8, 0.7, 0.6],
        region=geoiou.RotatedBox([[10, 10, 8, 4, 35], [40, 40, 8, 4, 80], [30, 30, 4, 4, 0], [5, 5, 4, 4, 10]]),
    )
    return evaluate_voc(truth, predictions)


def legend_texts(ax) -> list[str]:
    return [text.get_text() for text in ax.get_legend().get_texts()]


def test_coco_pr_curves_one_per_iou_threshold_with_cocoevals_ap(coco_result, tmp_path):
    ax = plot_pr_curve(coco_result)
    assert_not_blank(render(ax, tmp_path / "coco-pr.png"))
    assert len(ax.lines) == len(coco_result.iou_thresholds) == 10
    first = ax.lines[0]
    assert first.get_xdata() == pytest.approx(coco_result.recall_thresholds)
    # Category 3 has no ground truth (-1): the curve is the mean of categories 1 and 2 only.
    all_area, last_limit = 0, -1
    expected = coco_result.precision[0, :, :2, all_area, last_limit].mean(axis=1)
    assert first.get_ydata() == pytest.approx(expected)
    # Each curve's AP is COCOeval's AP at that threshold: at 0.50 and 0.75, AP50 and AP75.
    assert legend_texts(ax)[0] == f"IoU 0.50: AP {coco_result['AP50']:.3f}"
    assert legend_texts(ax)[5] == f"IoU 0.75: AP {coco_result['AP75']:.3f}"


def test_coco_pr_curve_of_one_category_at_one_threshold(coco_result):
    ax = plot_pr_curve(coco_result, category=2, iou_threshold=0.75)
    (line,) = ax.lines
    assert line.get_ydata() == pytest.approx(coco_result.precision[5, :, 1, 0, -1])
    assert legend_texts(ax) == [f"IoU 0.75: AP {coco_result.per_category()[2]['AP75']:.3f}"]
    assert "category 2" in ax.get_title()


def test_voc_pr_curves_one_per_category_with_ap(voc_result, tmp_path):
    ax = plot_pr_curve(voc_result)
    assert_not_blank(render(ax, tmp_path / "voc-pr.png"))
    assert len(ax.lines) == len(voc_result.categories) == 2
    for line, category, ap, recall, precision in zip(
        ax.lines, voc_result.categories, voc_result.ap, voc_result.recall, voc_result.precision
    ):
        assert line.get_label() == f"{category}: AP {ap:.3f}"
        # Drawn as VOC interpolates: the best precision at each recall or beyond, as a staircase.
        envelope = np.maximum.accumulate(np.asarray(precision)[::-1])[::-1]
        assert line.get_xdata() == pytest.approx(recall) and line.get_ydata() == pytest.approx(envelope)
        assert line.get_drawstyle() == "steps-pre"
    only_ship = plot_pr_curve(voc_result, category="ship", iou_threshold=0.5)
    assert [line.get_label() for line in only_ship.lines] == [f"ship: AP {voc_result.per_category()['ship']['AP']:.3f}"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"category": 9}, "'category' must be one of [1, 2, 3] (got 9)"),
        ({"iou_threshold": 0.42}, "'iou_threshold' must be one of [0.5, 0.55,"),
    ],
)
def test_pr_curve_refuses_unknown_category_or_threshold(coco_result, options, message):
    with pytest.raises(geoiou.InvalidArgumentError) as error:
        plot_pr_curve(coco_result, **options)
    assert message in str(error.value)


def test_voc_pr_curve_refuses_another_threshold(voc_result):
    with pytest.raises(geoiou.InvalidArgumentError, match=r"'iou_threshold' must be one of \[0.5\] \(got 0.7\)"):
        plot_pr_curve(voc_result, iou_threshold=0.7)


@pytest.fixture(scope="module")
def temporal_result():
    truth = {"v1": [{"label": "jump", "segment": [0, 10]}, {"label": "run", "segment": [20, 30]}]}
    predictions = {
        "v1": [{"label": "jump", "segment": [2, 10], "score": 0.9}, {"label": "run", "segment": [21, 33], "score": 0.8}]
    }
    return evaluate_temporal_detection(truth, predictions)


def test_threshold_curve_of_temporal_detection(temporal_result, tmp_path):
    ax = plot_threshold_curve(temporal_result)
    assert_not_blank(render(ax, tmp_path / "tiou.png"), min_colours=3)
    (curve,) = [line for line in ax.lines if line.get_label() == "mAP"]
    assert curve.get_xdata() == pytest.approx(temporal_result.tiou_thresholds)
    assert curve.get_ydata() == pytest.approx(temporal_result.mean_ap)
    # jump: tIoU 8/10 is found at 7 of the 10 thresholds; run: tIoU 9/13 = 0.69 at 4 (0.5 ... 0.65).
    assert temporal_result.average_mean_ap == pytest.approx((0.7 + 0.4) / 2)
    assert [text.get_text() for text in ax.texts] == ["average mAP 0.550"]


def test_threshold_curve_of_coco_is_ap_per_iou_threshold(coco_result):
    ax = plot_threshold_curve(coco_result)
    (curve,) = [line for line in ax.lines if line.get_label() == "AP"]
    assert curve.get_ydata()[0] == pytest.approx(coco_result["AP50"])
    assert curve.get_ydata()[5] == pytest.approx(coco_result["AP75"])
    # COCOeval's AP is the mean over the thresholds.
    assert [text.get_text() for text in ax.texts] == [f"average AP {coco_result['AP']:.3f}"]


@pytest.mark.parametrize("function", [plot_pr_curve, plot_threshold_curve])
def test_curves_refuse_other_results(function, voc_result, temporal_result):
    wrong = temporal_result if function is plot_pr_curve else voc_result
    with pytest.raises(geoiou.InvalidArgumentError, match=f"'result' must be a .* \\(got '{type(wrong).__name__}'\\)"):
        function(wrong)
    with pytest.raises(geoiou.InvalidArgumentError, match="'result' must be"):
        function({"AP": 0.5})


# --------------------------------------------------------------------------- matplotlib stays optional
def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_import_geoiou_does_not_import_matplotlib():
    result = run_python("import sys, geoiou, geoiou.evaluation; print('matplotlib' in sys.modules)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_without_matplotlib_geoiou_plot_says_how_to_install_it():
    # A None entry in sys.modules makes `import matplotlib` fail, as if it were not installed.
    result = run_python(
        "import sys; sys.modules['matplotlib'] = None\n"
        "import geoiou\n"
        "try:\n    import geoiou.plot\nexcept ImportError as error:\n    print(error)"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "geoiou.plot needs matplotlib: pip install 'geoiou[plot]'"


def test_drawing_leaves_the_backend_alone():
    backend = matplotlib.get_backend()
    plot_pair(geoiou.Box([0, 0, 1, 1]), geoiou.Box([0, 0, 2, 2]))
    assert matplotlib.get_backend() == backend


# --------------------------------------------------------------------------- the pictures' polish (issue 13)
def test_pair_title_names_the_kinds_or_what_the_caller_says():
    box, rotated = geoiou.Box([0, 0, 2, 2]), geoiou.RotatedBox([1, 1, 2, 2, 30])
    assert plot_pair(box, rotated).get_title() == "Box × RotatedBox"
    assert plot_pair(box, rotated, title="DOTA: truth × prediction").get_title() == "DOTA: truth × prediction"


def test_regions_with_a_label_get_a_legend_entry_in_their_colour_and_style():
    ax = plot_regions(geoiou.Box([[0, 0, 1, 1]]), label="ground truth", color="#009E73")
    plot_regions(geoiou.Box([[2, 2, 3, 3]]), ax=ax, label="predictions", color="#0072B2", linestyle="dashed")
    assert legend_texts(ax) == ["ground truth", "predictions"]
    handles = ax.get_legend().legend_handles
    assert [handle.get_color() for handle in handles] == ["#009E73", "#0072B2"]
    assert handles[1].get_linestyle() == "--"


def test_overlapping_intervals_of_a_track_are_stacked_and_scored():
    predictions = geoiou.Interval([[0, 5], [2, 8], [6, 9], [1, 3]])
    ax = plot_timeline(
        {"truth": geoiou.Interval([0, 6]), "predictions": predictions}, scores={"predictions": [0.9, 0.6, 0.4, 0.2]}
    )
    bars = [patch for patch in ax.patches if patch.get_x() is not None]
    rows = {}
    for patch in bars[1:]:  # the truth's bar first
        rows.setdefault(round(patch.get_y() + patch.get_height() / 2, 6), []).append(
            (patch.get_x(), patch.get_x() + patch.get_width())
        )
    # No two bars of one row overlap; [0, 5), [2, 8) and [1, 3) overlap pairwise: three rows.
    assert len(rows) == 3
    for intervals in rows.values():
        intervals.sort()
        assert all(first[1] <= second[0] for first, second in zip(intervals, intervals[1:]))
    assert [text.get_text() for text in ax.texts] == ["0.90", "0.60", "0.40", "0.20"]
    with pytest.raises(geoiou.InvalidArgumentError, match=r"""'scores\["predictions"\]' must be 4 scores"""):
        plot_timeline({"predictions": predictions}, scores={"predictions": [0.5]})


def test_pr_curves_are_staircases_in_distinct_styles(coco_result):
    ax = plot_pr_curve(coco_result)
    styles = [(line.get_color(), line.get_linestyle()) for line in ax.lines]
    assert len(set(styles)) == len(styles) == 10  # ten thresholds, ten looks
    assert all(line.get_drawstyle() == "steps-pre" for line in ax.lines)


# --------------------------------------------------------------------------- matchings
def collection_with_gid(ax, gid: str):
    found = [item for item in ax.collections if item.get_gid() == gid]
    assert len(found) == 1, f"expected one collection {gid!r}, found {len(found)}"
    return found[0]


def bars_with_gid(ax, gid: str) -> list:
    return [patch for patch in ax.patches if patch.get_gid() == gid]


def test_matching_picture_draws_each_region_once_coloured_by_iou(tmp_path):
    from geoiou.plot import UNMATCHED_COLOURS, plot_matching

    # Polygons of a DOTA scene against their minimum-area rectangles, every third one left out and
    # two extra rectangles far away: mixed kinds, all drawn with their exact outlines.
    objects = read_dota(files("geoiou") / "data" / "dota" / "P1088.txt")
    rectangles = geoiou.RotatedBox.from_corners(objects.corners, fit="min_area")
    keep = np.arange(len(rectangles)) % 3 > 0
    extra = geoiou.RotatedBox([[3000, 3000, 20, 10, 0], [3100, 3000, 20, 10, 30]])
    second = [rectangles[keep], extra]
    ax = plot_matching(objects.polygons, second, labels=("polygons", "rectangles"))
    assert_not_blank(render(ax, tmp_path / "matching.png"))
    found = geoiou.match(objects.polygons, second)
    matched_a, matched_b = collection_with_gid(ax, "matched_a"), collection_with_gid(ax, "matched_b")
    only_a, only_b = collection_with_gid(ax, "only_a"), collection_with_gid(ax, "only_b")
    assert len(matched_a.get_paths()) == len(matched_b.get_paths()) == len(found) == int(keep.sum())
    assert len(only_a.get_paths()) == len(found.unmatched_a) and len(only_b.get_paths()) == 2
    # Exact outlines: the drawn areas are the regions' areas.
    drawn = [path_area(path) for path in matched_a.get_paths()]
    np.testing.assert_allclose(drawn, objects.polygons.area[found.index_a], rtol=1e-9)
    # Each pair in the colour of its IoU, on a scale from min_iou to 1; leftovers in their side's colour.
    colourmap = matplotlib.colormaps["viridis"]
    np.testing.assert_allclose(matched_a.get_edgecolor(), colourmap((found.iou - 0.5) / 0.5), atol=1e-6)
    np.testing.assert_allclose(matched_b.get_edgecolor(), matched_a.get_edgecolor())
    assert matplotlib.colors.same_color(only_a.get_edgecolor()[0], UNMATCHED_COLOURS[0])
    assert matplotlib.colors.same_color(only_b.get_edgecolor()[0], UNMATCHED_COLOURS[1])
    f1 = 2 * len(found) / (len(objects.polygons) + int(keep.sum()) + 2)
    assert ax.get_title().startswith(f"F1 {f1:.3f}: {len(found)} matched (mean IoU {found.iou.mean():.3f})")
    assert [text.get_text() for text in ax.get_legend().get_texts()] == [
        "polygons",
        "rectangles",
        "only in polygons",
        "only in rectangles",
    ]
    assert ax.yaxis_inverted()


def test_matching_picture_of_intervals_and_a_given_matching():
    from geoiou.plot import plot_matching

    a = geoiou.Interval([[0, 10], [20, 30], [40, 45]])
    b = geoiou.Interval([[1, 10], [22, 33], [60, 70]])
    # A matching made by hand: only the second pair (IoU 8/13), as if the first were another category.
    given = geoiou.Matching(
        np.array([1]), np.array([1]), np.array([8 / 13]), np.array([0, 2]), np.array([0, 2]), 0.5, "greedy"
    )
    ax = plot_matching(a, b, given)
    bars = bars_with_gid(ax, "matched_a")
    assert len(bars) == 1 and bars[0].get_x() == 20 and bars[0].get_width() == 10
    assert len(bars_with_gid(ax, "only_b")) == 2
    assert ax.get_title() == "F1 0.333: 1 matched (mean IoU 0.615)\n2 only in A, 2 only in B"
    assert [label.get_text() for label in ax.get_yticklabels()] == ["A", "B"]


def test_matching_picture_refuses_a_matching_of_other_regions():
    from geoiou.plot import plot_matching

    boxes = geoiou.Box([[0, 0, 1, 1], [2, 2, 3, 3]])
    other = geoiou.match(boxes[:1], boxes[:1])
    with pytest.raises(geoiou.InvalidArgumentError, match="'matching' must be a matching of the 2 regions of 'a'"):
        plot_matching(boxes, boxes, other)
    with pytest.raises(geoiou.InvalidArgumentError, match="'matching' must be a geoiou.Matching"):
        plot_matching(boxes, boxes, "pairs")


def test_a_pair_of_3d_boxes_in_three_views():
    """Top, front and side views: each box outlined, the intersection's projection filled, geoiou's numbers beside."""
    import matplotlib.pyplot as plt

    from geoiou.plot import plot_pair3d

    a = geoiou.RotatedBox3D([0, 0, 1, 4, 2, 2, 0])
    b = geoiou.RotatedBox3D([1, 0, 1, 4, 2, 2, 0])  # overlaps half of a: a 3 x 2 x 2 prism
    views = plot_pair3d(a, b)
    try:
        assert [ax.get_title() for ax in views] == ["top (x, y)", "front (x, z)", "side (y, z)"]
        top = next(patch for patch in views[0].patches if patch.get_gid() == "intersection")
        corners = top.get_path().vertices
        np.testing.assert_allclose([corners[:, 0].min(), corners[:, 0].max()], [-1, 2], atol=1e-9)
        metrics = next(text for text in views[2].texts if text.get_gid() == "metrics").get_text()
        assert "IoU            0.6" in metrics and "BEV IoU" in metrics
        with pytest.raises(geoiou.InvalidArgumentError, match="'a' must be a 3-D region"):
            plot_pair3d(geoiou.Box([0, 0, 1, 1]), b)
    finally:
        plt.close(views[0].figure)
