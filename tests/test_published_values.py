"""Reference values that peer libraries publish in their own test suites.

Every table here is a test vector copied (numbers only) from a peer's test file, so that geoiou is
checked against answers other people wrote down, not only against itself. The comment above each
table names the repository and file it comes from and says how its conventions were converted to
geoiou's:

* ``geoiou.RotatedBox`` takes ``cx, cy, w, h, angle`` in degrees, rotating by
  ``R = [[cos, -sin], [sin, cos]]`` in the data's own frame (mmcv's default ``clockwise=True``).
* Peers mostly compute in float32 and print their expectations to 4 decimals; the tolerances below
  are the ones the peer used for that table unless a comment says otherwise.

Where a published number is wrong (the exact geometry, checked with shapely, says otherwise) the
table keeps the published number and a separate correction records the exact value, with the
reason, so the disagreement stays visible.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

import geoiou


# --------------------------------------------------------------------------- helpers
def _pairwise(metric: str, a, b) -> np.ndarray:
    """(N, M) matrix of `metric` between batches `a` (N,) and `b` (M,).

    Uses ``geoiou.pairwise_<metric>`` when the package has it and otherwise the elementwise
    ``geoiou.<metric>`` broadcast over ``a[:, None]`` and ``b[None, :]``.
    """
    function = getattr(geoiou, f"pairwise_{metric}", None)
    if function is not None:
        return np.asarray(function(a, b), dtype=np.float64)
    return np.asarray(getattr(geoiou, metric)(a[:, None], b[None, :]), dtype=np.float64)


def _elementwise(metric: str, a, b) -> np.ndarray:
    return np.asarray(getattr(geoiou, metric)(a, b), dtype=np.float64)


def _polygon(vertices) -> "geoiou.Polygon":
    """One geoiou polygon from an array of vertices (K, 2)."""
    return geoiou.Polygon(np.asarray(vertices, dtype=np.float64))


def _assert_table(actual, expected, *, atol, rtol=0.0):
    np.testing.assert_allclose(
        np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64), rtol=rtol, atol=atol
    )


# =========================================================================== torchvision
# Source: pytorch/vision, test/test_ops.py, classes TestBoxIou, TestGeneralizedBoxIou,
# TestDistanceBoxIoU and TestCompleteBoxIou (inputs INT_BOXES, INT_BOXES2, FLOAT_BOXES).
# Boxes are xyxy in both libraries; no conversion. torchvision compares with rtol=0 and
# atol=1e-4 (integer boxes) or atol=1e-3 (float boxes, float32/float64), its expectations being
# printed to 4 decimals. Its float tables reuse the IoU numbers for GIoU/DIoU/CIoU (the exact
# values differ by about 2e-4, inside its 1e-3 tolerance), so we keep that tolerance.
TV_INT_BOXES = [[0, 0, 100, 100], [0, 0, 50, 50], [200, 200, 300, 300], [0, 0, 25, 25]]
TV_INT_BOXES2 = [[0, 0, 100, 100], [0, 0, 50, 50], [200, 200, 300, 300]]
TV_FLOAT_BOXES = [
    [285.3538, 185.5758, 1193.5110, 851.4551],
    [285.1472, 188.7374, 1192.4984, 851.0669],
    [279.2440, 197.9812, 1189.4746, 849.2019],
]
TV_FLOAT_EXPECTED = [[1.0, 0.9933, 0.9673], [0.9933, 1.0, 0.9737], [0.9673, 0.9737, 1.0]]
TV_INT_EXPECTED = {
    "iou": [[1.0, 0.25, 0.0], [0.25, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0625, 0.25, 0.0]],
    "giou": [[1.0, 0.25, -0.7778], [0.25, 1.0, -0.8611], [-0.7778, -0.8611, 1.0], [0.0625, 0.25, -0.8819]],
    "diou": [[1.0, 0.1875, -0.4444], [0.1875, 1.0, -0.5625], [-0.4444, -0.5625, 1.0], [-0.0781, 0.1875, -0.6267]],
    # All of torchvision's integer boxes are squares, so CIoU's aspect term vanishes and its
    # published CIoU table equals the DIoU table.
    "ciou": [[1.0, 0.1875, -0.4444], [0.1875, 1.0, -0.5625], [-0.4444, -0.5625, 1.0], [-0.0781, 0.1875, -0.6267]],
}


def _torchvision_cases(metric):
    return [
        pytest.param(TV_INT_BOXES, TV_INT_BOXES2, TV_INT_EXPECTED[metric], 1e-4, id="int_boxes"),
        pytest.param(TV_FLOAT_BOXES, TV_FLOAT_BOXES, TV_FLOAT_EXPECTED, 1e-3, id="float_boxes"),
    ]


@pytest.mark.parametrize("boxes1, boxes2, expected, atol", _torchvision_cases("iou"))
def test_torchvision_box_iou(boxes1, boxes2, expected, atol):
    """torchvision TestBoxIou: pairwise IoU of axis-aligned boxes, and its elementwise form."""
    a, b = geoiou.Box(boxes1), geoiou.Box(boxes2)
    _assert_table(geoiou.pairwise_iou(a, b), expected, atol=atol)
    _assert_table(geoiou.iou(a[:, None], b[None, :]), expected, atol=atol)


@pytest.mark.parametrize("boxes1, boxes2, expected, atol", _torchvision_cases("giou"))
def test_torchvision_generalized_box_iou(boxes1, boxes2, expected, atol):
    """torchvision TestGeneralizedBoxIou: pairwise GIoU of axis-aligned boxes."""
    _assert_table(geoiou.pairwise_giou(geoiou.Box(boxes1), geoiou.Box(boxes2)), expected, atol=atol)


@pytest.mark.parametrize("boxes1, boxes2, expected, atol", _torchvision_cases("diou"))
def test_torchvision_distance_box_iou(boxes1, boxes2, expected, atol):
    """torchvision TestDistanceBoxIoU: pairwise DIoU of axis-aligned boxes."""
    _assert_table(_pairwise("diou", geoiou.Box(boxes1), geoiou.Box(boxes2)), expected, atol=atol)


@pytest.mark.parametrize("boxes1, boxes2, expected, atol", _torchvision_cases("ciou"))
def test_torchvision_complete_box_iou(boxes1, boxes2, expected, atol):
    """torchvision TestCompleteBoxIou: pairwise CIoU of axis-aligned boxes."""
    _assert_table(_pairwise("ciou", geoiou.Box(boxes1), geoiou.Box(boxes2)), expected, atol=atol)


# Source: pytorch/vision, test/test_ops.py, TestGeneralizedBoxIouLoss, TestCompleteBoxIouLoss and
# TestDistanceBoxIouLoss (boxes from its get_boxes helper, which the GIoU part takes from
# fvcore's tests/test_giou_loss.py). Each loss is 1 - metric, so we compare 1 - geoiou's metric;
# the "mean"/"sum" rows reduce over the pairs (box2, box3) and (box2, box4). Published to 4
# decimals, compared here with atol=1e-4.
TV_LOSS_BOXES = {
    "box1": [-1, -1, 1, 1],
    "box2": [0, 0, 1, 1],
    "box3": [0, 1, 1, 2],
    "box4": [1, 1, 2, 2],
}
TV_LOSS_CASES = [
    ("giou", "box1", "box1", 0.0),
    ("giou", "box1", "box2", 0.75),
    ("giou", "box2", "box3", 1.0),
    ("giou", "box2", "box4", 1.5),
    ("ciou", "box1", "box1", 0.0),
    ("ciou", "box1", "box2", 0.8125),
    ("ciou", "box1", "box3", 1.1923),
    ("ciou", "box1", "box4", 1.2500),
    ("diou", "box1", "box1", 0.0),
    ("diou", "box1", "box2", 0.8125),
    ("diou", "box1", "box3", 1.1923),
    ("diou", "box1", "box4", 1.2500),
]
TV_LOSS_REDUCTIONS = [
    ("giou", "sum", 2.5),
    ("giou", "mean", 1.25),
    ("ciou", "mean", 1.2250),
    ("ciou", "sum", 2.4500),
    ("diou", "mean", 1.2250),
    ("diou", "sum", 2.4500),
]


@pytest.mark.parametrize(
    "metric, first, second, expected_loss", TV_LOSS_CASES, ids=[f"{m}-{a}-{b}" for m, a, b, _ in TV_LOSS_CASES]
)
def test_torchvision_iou_losses(metric, first, second, expected_loss):
    """torchvision's GIoU/DIoU/CIoU loss tests: loss = 1 - metric for single pairs of boxes."""
    a, b = geoiou.Box(TV_LOSS_BOXES[first]), geoiou.Box(TV_LOSS_BOXES[second])
    _assert_table(1.0 - _elementwise(metric, a, b), expected_loss, atol=1e-4)


@pytest.mark.parametrize(
    "metric, reduction, expected_loss", TV_LOSS_REDUCTIONS, ids=[f"{m}-{r}" for m, r, _ in TV_LOSS_REDUCTIONS]
)
def test_torchvision_iou_losses_batched(metric, reduction, expected_loss):
    """torchvision's batched loss tests: pairs (box2, box3) and (box2, box4), reduced by sum or mean."""
    a = geoiou.Box([TV_LOSS_BOXES["box2"], TV_LOSS_BOXES["box2"]])
    b = geoiou.Box([TV_LOSS_BOXES["box3"], TV_LOSS_BOXES["box4"]])
    losses = 1.0 - _elementwise(metric, a, b)
    assert losses.shape == (2,)
    _assert_table(getattr(np, reduction)(losses), expected_loss, atol=1e-4)


# =========================================================================== mmcv
# Source: open-mmlab/mmcv, tests/test_ops/test_box_iou_rotated.py (test_box_iou_rotated_cpu and
# test_box_iou_rotated_iof_cpu). Boxes are (x_ctr, y_ctr, w, h, angle) with the angle in RADIANS.
# With mmcv's default clockwise=True the rotation is ours, so RotatedBox.from_radians reads them
# unchanged (and RotatedBox(degrees) / from_mmrotate must agree: mmrotate's rbbox_overlaps is this
# same mmcv op and all the angles lie in every mmrotate version's range). mmcv's "ccw" variant
# negates every angle and passes clockwise=False, which describes the same rectangles: we convert
# it back with from_radians(-angle). The "iof" table is intersection / area(boxes1), geoiou's iof. mmcv
# compares with atol=1e-4 against 4-decimal numbers; so do we.
MMCV_ROT_BOXES1 = [[1.0, 1.0, 3.0, 4.0, 0.5], [2.0, 2.0, 3.0, 4.0, 0.6], [7.0, 7.0, 8.0, 8.0, 0.4]]
MMCV_ROT_BOXES2 = [[0.0, 2.0, 2.0, 5.0, 0.3], [2.0, 1.0, 3.0, 3.0, 0.5], [5.0, 5.0, 6.0, 7.0, 0.4]]
MMCV_ROT_IOUS = [[0.3708, 0.4351, 0.0000], [0.1104, 0.4487, 0.0424], [0.0000, 0.0000, 0.3622]]
MMCV_ROT_IOUS_ALIGNED = [0.3708, 0.4487, 0.3622]
MMCV_ROT_IOFS = [[0.4959, 0.5306, 0.0000], [0.1823, 0.5420, 0.1832], [0.0000, 0.0000, 0.4404]]
MMCV_ROT_IOFS_ALIGNED = [0.4959, 0.5420, 0.4404]


def _negate_angle(boxes):
    array = np.array(boxes, dtype=np.float64)
    array[..., 4] *= -1
    return array


def _mmcv_rotated(boxes, convention: str, reader: str):
    """Read mmcv's published boxes, as mmcv's own test feeds them for `convention`, with `reader`."""
    if convention == "clockwise":
        data = np.array(boxes, dtype=np.float64)
    else:
        # mmcv's test negates the angles and then calls the op with clockwise=False; a
        # counter-clockwise angle converts to ours by a change of sign.
        ccw_input = _negate_angle(boxes)
        data = _negate_angle(ccw_input)
    if reader == "from_radians":
        return geoiou.RotatedBox.from_radians(data)
    if reader == "degrees":
        degrees = data.copy()
        degrees[..., 4] = np.rad2deg(degrees[..., 4])
        return geoiou.RotatedBox(degrees)
    version = reader.removeprefix("from_mmrotate_")
    return geoiou.RotatedBox.from_mmrotate(data, version=version)


MMCV_READERS = ["from_radians", "degrees", "from_mmrotate_oc", "from_mmrotate_le90", "from_mmrotate_le135"]


@pytest.mark.parametrize("reader", MMCV_READERS)
@pytest.mark.parametrize("convention", ["clockwise", "counterclockwise"])
def test_mmcv_box_iou_rotated(convention, reader):
    """mmcv box_iou_rotated: pairwise and aligned IoU of rotated boxes (angles in radians)."""
    a = _mmcv_rotated(MMCV_ROT_BOXES1, convention, reader)
    b = _mmcv_rotated(MMCV_ROT_BOXES2, convention, reader)
    _assert_table(geoiou.pairwise_iou(a, b), MMCV_ROT_IOUS, atol=1e-4)
    _assert_table(geoiou.iou(a, b), MMCV_ROT_IOUS_ALIGNED, atol=1e-4)


@pytest.mark.parametrize("convention", ["clockwise", "counterclockwise"])
def test_mmcv_box_iou_rotated_iof(convention):
    """mmcv box_iou_rotated(mode='iof'): intersection over the area of the first box."""
    a = _mmcv_rotated(MMCV_ROT_BOXES1, convention, "from_radians")
    b = _mmcv_rotated(MMCV_ROT_BOXES2, convention, "from_radians")
    _assert_table(geoiou.pairwise_iof(a, b), MMCV_ROT_IOFS, atol=1e-4)
    _assert_table(geoiou.iof(a, b), MMCV_ROT_IOFS_ALIGNED, atol=1e-4)


# Source: open-mmlab/mmcv, tests/test_ops/test_bbox.py (_test_bbox_overlaps). Boxes are xyxy
# with offset=1, the legacy inclusive-pixel convention (width = x2 - x1 + 1): that is exactly
# geoiou.Box.from_pixel_indices. mmcv checks with np.allclose(..., 1e-2), i.e. rtol=1e-2; the
# published numbers are exact fractions (0.33333334 is float32 1/3), so we use rtol=1e-6.
MMCV_BBOX_CASES = [
    pytest.param(
        [[1.0, 1.0, 3.0, 4.0], [2.0, 2.0, 3.0, 4.0], [7.0, 7.0, 8.0, 8.0]],
        [[0.0, 2.0, 2.0, 5.0], [2.0, 1.0, 3.0, 3.0]],
        False,
        [[0.33333334, 0.5], [0.2, 0.5], [0.0, 0.0]],
        id="pairwise_3x2",
    ),
    pytest.param(
        [[1.0, 1.0, 3.0, 4.0], [2.0, 2.0, 3.0, 4.0]],
        [[0.0, 2.0, 2.0, 5.0], [2.0, 1.0, 3.0, 3.0]],
        True,
        [0.33333334, 0.5],
        id="aligned_2",
    ),
    pytest.param(
        [[0.0, 0.0, 3.0, 3.0]],
        [[4.0, 0.0, 5.0, 3.0], [3.0, 0.0, 4.0, 3.0], [2.0, 0.0, 3.0, 3.0], [1.0, 0.0, 2.0, 3.0]],
        False,
        [[0, 0.2, 0.5, 0.5]],
        id="pairwise_1x4",
    ),
]


@pytest.mark.parametrize("boxes1, boxes2, aligned, expected", MMCV_BBOX_CASES)
def test_mmcv_bbox_overlaps_offset1(boxes1, boxes2, aligned, expected):
    """mmcv bbox_overlaps(offset=1): IoU of boxes given as inclusive pixel indices."""
    a, b = geoiou.Box.from_pixel_indices(boxes1), geoiou.Box.from_pixel_indices(boxes2)
    actual = geoiou.iou(a, b) if aligned else geoiou.pairwise_iou(a, b)
    _assert_table(actual, expected, rtol=1e-6, atol=1e-7)


# Source: open-mmlab/mmcv, tests/test_ops/test_diff_iou_rotated.py (test_diff_iou_rotated_2d).
# One batch of five aligned pairs, boxes (x, y, w, h, angle in radians), same direction as
# box_iou_rotated's default. The published 0.7071 is 1/sqrt(2) to 4 decimals; atol=1e-4 as mmcv.
MMCV_DIFF_BOXES1 = [[[0.5, 0.5, 1.0, 1.0, 0.0]] * 5]
MMCV_DIFF_BOXES2 = [
    [
        [0.5, 0.5, 1.0, 1.0, 0.0],
        [0.5, 0.5, 1.0, 1.0, math.pi / 2],
        [0.5, 0.5, 1.0, 1.0, math.pi / 4],
        [1.0, 1.0, 1.0, 1.0, 0.0],
        [1.5, 1.5, 1.0, 1.0, 0.0],
    ]
]
MMCV_DIFF_EXPECTED = [[1.0, 1.0, 0.7071, 1 / 7, 0.0]]


def test_mmcv_diff_iou_rotated_2d():
    """mmcv diff_iou_rotated_2d: aligned IoU over a (1, 5) batch of rotated boxes."""
    a = geoiou.RotatedBox.from_radians(MMCV_DIFF_BOXES1)
    b = geoiou.RotatedBox.from_radians(MMCV_DIFF_BOXES2)
    actual = np.asarray(geoiou.iou(a, b))
    assert actual.shape == (1, 5)
    _assert_table(actual, MMCV_DIFF_EXPECTED, atol=1e-4)


# Source: open-mmlab/mmcv, tests/test_ops/test_iou3d.py, test_boxes_iou_bev, as stored at commit
# 094e9f3b2418203913f561e0362e8a4fff72512e (later mmcv versions moved boxes_iou_bev to 7-number
# 3D boxes). There the BEV boxes are (x1, y1, x2, y2, ry): an axis-aligned box turned by ry
# RADIANS about its centre, in our direction. We convert to (cx, cy, w, h) and read with
# from_radians. CUDA-only in mmcv; atol=1e-4 as published.
MMCV_BEV_BOXES1 = [[1.0, 1.0, 3.0, 4.0, 0.5], [2.0, 2.0, 3.0, 4.0, 0.6], [7.0, 7.0, 8.0, 8.0, 0.4]]
MMCV_BEV_BOXES2 = [[0.0, 2.0, 2.0, 5.0, 0.3], [2.0, 1.0, 3.0, 3.0, 0.5], [5.0, 5.0, 6.0, 7.0, 0.4]]
MMCV_BEV_IOUS = [[0.2621, 0.2948, 0.0000], [0.0549, 0.1587, 0.0000], [0.0000, 0.0000, 0.0000]]


def _bev_to_rotated(boxes):
    x1, y1, x2, y2, ry = np.moveaxis(np.asarray(boxes, dtype=np.float64), -1, 0)
    return geoiou.RotatedBox.from_radians(np.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1, ry], axis=-1))


def test_mmcv_boxes_iou_bev():
    """mmcv boxes_iou_bev (older 5-number BEV format): pairwise IoU of rotated boxes."""
    a, b = _bev_to_rotated(MMCV_BEV_BOXES1), _bev_to_rotated(MMCV_BEV_BOXES2)
    _assert_table(geoiou.pairwise_iou(a, b), MMCV_BEV_IOUS, atol=1e-4)


# Source: open-mmlab/mmcv, tests/test_ops/test_convex_iou.py (test_convex_iou, test_convex_giou;
# CUDA-only in mmcv). Each "pointset" is 9 points (18 numbers, x then y); mmcv compares the
# CONVEX HULL of the points with a polygon (x, y pairs). We take the hull with shapely and compare
# it as a geoiou Polygon. convex_iou is pairwise (2 x 2); convex_giou is aligned and uses the
# convex hull of the union as the enclosing region (for these shapes the bounding box would give
# 0.1607 and 0.2686 instead). mmcv uses atol=1e-3.
MMCV_CONVEX_POINTSETS = [
    [1.0, 1.0, 2.0, 2.0, 1.0, 2.0, 2.0, 1.0, 1.0, 3.0, 3.0, 1.0, 2.0, 3.0, 3.0, 2.0, 1.5, 1.5],
    [1.5, 1.5, 2.5, 2.5, 1.5, 2.5, 2.5, 1.5, 1.5, 3.5, 3.5, 1.5, 2.5, 3.5, 3.5, 2.5, 2.0, 2.0],
]
MMCV_CONVEX_POLYGONS = [[1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 1.0], [1.0, 1.0, 1.0, 3.0, 3.0, 3.0, 3.0, 1.0]]
MMCV_CONVEX_IOU = [[0.2857, 0.8750], [0.0588, 0.4286]]
MMCV_CONVEX_GIOU = [0.2857, 0.3831]


def _hull_vertices(pointset):
    hull = shapely.MultiPoint(np.asarray(pointset, dtype=np.float64).reshape(-1, 2)).convex_hull
    return np.asarray(hull.exterior.coords)[:-1]


def test_mmcv_convex_iou():
    """mmcv convex_iou: IoU of the convex hull of each point set with each polygon (pairwise)."""
    hulls = [_polygon(_hull_vertices(p)) for p in MMCV_CONVEX_POINTSETS]
    polygons = [_polygon(np.reshape(p, (-1, 2))) for p in MMCV_CONVEX_POLYGONS]
    actual = [[float(geoiou.iou(h, p)) for p in polygons] for h in hulls]
    _assert_table(actual, MMCV_CONVEX_IOU, atol=1e-3)


def test_mmcv_convex_giou():
    """mmcv convex_giou: aligned GIoU of hull i with polygon i, enclosing region = convex hull."""
    actual = [
        float(geoiou.giou(_polygon(_hull_vertices(p)), _polygon(np.reshape(q, (-1, 2))), enclosure="hull"))
        for p, q in zip(MMCV_CONVEX_POINTSETS, MMCV_CONVEX_POLYGONS)
    ]
    _assert_table(actual, MMCV_CONVEX_GIOU, atol=1e-3)


# Source: open-mmlab/mmcv, tests/test_ops/test_box_iou_quadri.py (test_box_iou_quadri_cpu and
# test_box_iou_quadri_iof_cpu). Each quadrilateral is 4 vertices (x1, y1, ..., x4, y4); we compare
# them as geoiou Polygons. mmcv uses atol=1e-4.
#
# One published entry is wrong: boxes1[0] = (1,1),(3,4),(4,4),(4,1) against boxes2[1], the
# rectangle [2,4]x[1,4]. Both have area 6, they are different shapes, so their IoU cannot be 1.
# The exact intersection is 5.25 (shapely agrees), giving IoU 5.25/6.75 = 0.7778 and IoF
# 5.25/6 = 0.875. mmcv publishes 1.0 for both, consistent with an intersection of 6, i.e. with
# counting all of boxes1[0] inside the rectangle (mmcv's quadrilateral op reuses its rotated-
# rectangle vertex-in-box test, which only holds for parallelograms). mmcv's CUDA variant of the
# same test publishes yet other numbers for this pair (IoU 1.2222, which is impossible) and for
# boxes1[1] x boxes2[0] (0.1570 where the shapes only share a vertex), so we use the CPU tables.
MMCV_QUADRI_BOXES1 = [
    [1.0, 1.0, 3.0, 4.0, 4.0, 4.0, 4.0, 1.0],
    [2.0, 2.0, 3.0, 4.0, 4.0, 2.0, 3.0, 1.0],
    [7.0, 7.0, 8.0, 8.0, 9.0, 7.0, 8.0, 6.0],
]
MMCV_QUADRI_BOXES2 = [
    [0.0, 0.0, 0.0, 2.0, 2.0, 2.0, 2.0, 0.0],
    [2.0, 1.0, 2.0, 4.0, 4.0, 4.0, 4.0, 1.0],
    [7.0, 6.0, 7.0, 8.0, 9.0, 8.0, 9.0, 6.0],
]
MMCV_QUADRI_IOUS = [[0.0714, 1.0000, 0.0000], [0.0000, 0.5000, 0.0000], [0.0000, 0.0000, 0.5000]]
MMCV_QUADRI_IOFS = [[0.1111, 1.0000, 0.0000], [0.0000, 1.0000, 0.0000], [0.0000, 0.0000, 1.0000]]
# (row, column) -> exact value replacing the published one, for the reason given above.
MMCV_QUADRI_IOU_CORRECTIONS = {(0, 1): 5.25 / 6.75}
MMCV_QUADRI_IOF_CORRECTIONS = {(0, 1): 5.25 / 6.0}


def _corrected(table, corrections):
    fixed = np.array(table, dtype=np.float64)
    for (row, column), value in corrections.items():
        assert not np.isclose(fixed[row, column], value, atol=1e-4), "correction no longer needed"
        fixed[row, column] = value
    return fixed


def _quadri_pairwise(measure: str) -> np.ndarray:
    quads1 = [_polygon(np.reshape(q, (4, 2))) for q in MMCV_QUADRI_BOXES1]
    quads2 = [_polygon(np.reshape(q, (4, 2))) for q in MMCV_QUADRI_BOXES2]
    if measure == "iou":
        return np.array([[float(geoiou.iou(p, q)) for q in quads2] for p in quads1])
    return np.array([[float(geoiou.iof(p, q)) for q in quads2] for p in quads1])


def test_mmcv_box_iou_quadri():
    """mmcv box_iou_quadri: pairwise IoU of quadrilaterals (one published entry corrected)."""
    expected = _corrected(MMCV_QUADRI_IOUS, MMCV_QUADRI_IOU_CORRECTIONS)
    actual = _quadri_pairwise("iou")
    _assert_table(actual, expected, atol=1e-4)
    # Aligned: the diagonal of the pairwise table (published as [0.0714, 0.5, 0.5]).
    _assert_table(np.diag(actual), [0.0714, 0.5000, 0.5000], atol=1e-4)


def test_mmcv_box_iou_quadri_iof():
    """mmcv box_iou_quadri(mode='iof'): intersection over the area of the first quadrilateral."""
    expected = _corrected(MMCV_QUADRI_IOFS, MMCV_QUADRI_IOF_CORRECTIONS)
    actual = _quadri_pairwise("iof")
    _assert_table(actual, expected, atol=1e-4)
    _assert_table(np.diag(actual), [0.1111, 1.0000, 1.0000], atol=1e-4)


def test_mmcv_box_iou_quadri_correction_is_exact():
    """The corrected quadrilateral entry, recomputed independently with shapely."""
    p = shapely.Polygon(np.reshape(MMCV_QUADRI_BOXES1[0], (4, 2)))
    q = shapely.Polygon(np.reshape(MMCV_QUADRI_BOXES2[1], (4, 2)))
    inter = p.intersection(q).area
    assert inter == pytest.approx(5.25)
    assert inter / (p.area + q.area - inter) == pytest.approx(MMCV_QUADRI_IOU_CORRECTIONS[(0, 1)])
    assert inter / p.area == pytest.approx(MMCV_QUADRI_IOF_CORRECTIONS[(0, 1)])


# =========================================================================== detectron2
# Source: facebookresearch/detectron2, tests/structures/test_boxes.py (TestBoxIOU: pairwise_iou
# and pairwise_ioa). Boxes are xyxy, no conversion; detectron2's ioa is intersection / area of
# the SECOND box. detectron2 uses torch.allclose defaults (rtol=1e-5, atol=1e-8).
D2_BOXES1 = [[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]]
D2_BOXES2 = [
    [0.0, 0.0, 1.0, 1.0],
    [0.0, 0.0, 0.5, 1.0],
    [0.0, 0.0, 1.0, 0.5],
    [0.0, 0.0, 0.5, 0.5],
    [0.5, 0.5, 1.0, 1.0],
    [0.5, 0.5, 1.5, 1.5],
]
D2_IOUS = [[1.0, 0.5, 0.5, 0.25, 0.25, 0.25 / (2 - 0.25)]] * 2
D2_IOAS = [[1.0, 1.0, 1.0, 1.0, 1.0, 0.25]] * 2


def test_detectron2_pairwise_iou_boxes():
    """detectron2 TestBoxIOU.test_pairwise_iou: axis-aligned boxes."""
    a, b = geoiou.Box(D2_BOXES1), geoiou.Box(D2_BOXES2)
    _assert_table(geoiou.pairwise_iou(a, b), D2_IOUS, rtol=1e-5, atol=1e-8)


def test_detectron2_pairwise_ioa_boxes():
    """detectron2 TestBoxIOU.test_pairwise_ioa: intersection over the area of the second box."""
    a, b = geoiou.Box(D2_BOXES1), geoiou.Box(D2_BOXES2)
    # geoiou's iof divides by the FIRST argument's area, so detectron2's ioa is iof(b, a) transposed.
    _assert_table(geoiou.pairwise_iof(b, a).T, D2_IOAS, rtol=1e-5, atol=1e-8)


# Source: facebookresearch/detectron2, tests/structures/test_rotated_boxes.py (TestRotatedBoxesLayer
# and TestRotatedBoxesStructure; the older tests/test_rotated_boxes.py has the same numbers).
# Boxes are (x_ctr, y_ctr, w, h, angle) with the angle in DEGREES, counter-clockwise on screen:
# our angle = -theta, i.e. RotatedBox.from_detectron2. Most of these cases are symmetric under
# that sign change, but the two issue-1207 cases are not: read with the wrong sign, their boxes
# overlap (IoU 0.307 and 0.265), so they check the adapter's direction. The expected values are
# written as formulas in detectron2 and evaluated there in float32; detectron2 compares with
# torch.allclose defaults (rtol=1e-5, atol=1e-8), which we keep.
D2_ROTATED_CASES = [
    pytest.param([[0.5, 0.5, 1.0, 1.0, 0.0]], [[0.25, 0.5, 0.5, 1.0, 0.0]], [[0.5]], id="half_overlap"),
    pytest.param(
        [[0.5, 0.5, 1.0, 1.0, 0.0], [0.5, 0.5, 1.0, 1.0, 0.0]],
        [
            [0.5, 0.5, 1.0, 1.0, 0.0],
            [0.25, 0.5, 0.5, 1.0, 0.0],
            [0.5, 0.25, 1.0, 0.5, 0.0],
            [0.25, 0.25, 0.5, 0.5, 0.0],
            [0.75, 0.75, 0.5, 0.5, 0.0],
            [1.0, 1.0, 1.0, 1.0, 0.0],
        ],
        [[1.0, 0.5, 0.5, 0.25, 0.25, 0.25 / (2 - 0.25)]] * 2,
        id="0_degree",
    ),
    pytest.param(
        [[1, 1, math.sqrt(2), math.sqrt(2), 45], [1, 1, 2 * math.sqrt(2), 2 * math.sqrt(2), -45]],
        [[1, 1, 2, 2, 0]],
        [[0.5], [0.5]],
        id="45_degrees",
    ),
    pytest.param(
        [[5, 5, 10, 6, 55]],
        [[5, 5, 10, 6, -35]],
        [[(6.0 * 6.0) / (6.0 * 6.0 + 4.0 * 6.0 + 4.0 * 6.0)]],
        id="orthogonal",
    ),
    pytest.param(
        [[299.500000, 417.370422, 600.000000, 364.259186, 27.1828]],
        [[299.500000, 417.370422, 600.000000, 364.259155, 27.1828]],
        [[364.259155 / 364.259186]],
        id="large_close_boxes",
    ),
    pytest.param([[565, 565, 10, 10.0, 0]], [[565, 565, 10, 8.3, 0]], [[8.3 / 10.0]], id="precision"),
    pytest.param([[3, 3, 8, 2, -45.0]], [[6, 0, 8, 2, -45.0]], [[0.0]], id="issue1207_simplified"),
    pytest.param([[160.0, 153.0, 230.0, 23.0, -37.0]], [[190.0, 127.0, 80.0, 21.0, -46.0]], [[0.0]], id="issue1207"),
]


@pytest.mark.parametrize("boxes1, boxes2, expected", D2_ROTATED_CASES)
def test_detectron2_pairwise_iou_rotated(boxes1, boxes2, expected):
    """detectron2 pairwise_iou_rotated: rotated boxes, angle in degrees, detectron2's sign."""
    a = geoiou.RotatedBox.from_detectron2(boxes1)
    b = geoiou.RotatedBox.from_detectron2(boxes2)
    _assert_table(geoiou.pairwise_iou(a, b), expected, rtol=1e-5, atol=1e-8)


def test_detectron2_pairwise_iou_rotated_many_boxes():
    """detectron2 test_pairwise_iou_many_boxes: 100 x 200 boxes, IoU only on the diagonal."""
    n1, n2 = 100, 200
    boxes1 = [[5 + 20 * i, 5 + 20 * i, 10, 10, 0] for i in range(n1)]
    boxes2 = [[5 + 20 * i, 5 + 20 * i, 10, 1 + 9 * i / n2, 0] for i in range(n2)]
    expected = np.zeros((n1, n2))
    for i in range(min(n1, n2)):
        expected[i, i] = (1 + 9 * i / n2) / 10.0
    actual = geoiou.pairwise_iou(geoiou.RotatedBox.from_detectron2(boxes1), geoiou.RotatedBox.from_detectron2(boxes2))
    _assert_table(actual, expected, rtol=1e-5, atol=1e-8)


def test_detectron2_iou_rotated_extreme():
    """detectron2 test_iou_extreme (its issue 1266): a far-away huge-coordinate box must not give IoU < 0.

    detectron2 only asserts ``iou >= 0``; the boxes are ~1e18 apart, so the exact answer is 0.
    """
    a = geoiou.RotatedBox.from_detectron2([[160.0, 153.0, 230.0, 23.0, -37.0]])
    b = geoiou.RotatedBox.from_detectron2(
        [[-1.117407639806935e17, 1.3858420478349148e18, 1000.0000610351562, 1000.0000610351562, 1612.0]]
    )
    actual = geoiou.pairwise_iou(a, b)
    assert actual.shape == (1, 1)
    assert actual.min() >= 0
    assert actual[0, 0] == 0.0
