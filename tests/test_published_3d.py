"""The inputs of published 3-D IoU failures, with the answers geoiou gives and why they are right.

Each case quotes the report's numbers (corners printed to four or five decimals, so a few are boxes
only to about 1e-4: they are read with ``OrientedBox3D.from_corners(..., rtol=1e-3)``, which fits the
nearest box, and compared with an oracle on the corners as printed: SciPy's halfspace intersection of
their convex hulls). What must hold everywhere: IoU in [0, 1], a box's IoU with itself exactly 1 at
any offset, no NaN where a volume is 0 on one side only.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial import ConvexHull, HalfspaceIntersection

import geoiou


def _hull_iou(corners_a: np.ndarray, corners_b: np.ndarray) -> float:
    """IoU of the convex hulls of two corner sets as printed (Qhull: halfspaces of each hull, their intersection)."""
    hull_a, hull_b = ConvexHull(corners_a), ConvexHull(corners_b)
    spaces = np.vstack([hull_a.equations, hull_b.equations])
    inside = (corners_a.mean(axis=0) + corners_b.mean(axis=0)) / 2  # both pairs overlap about their centres
    shared = ConvexHull(HalfspaceIntersection(spaces, inside).intersections).volume
    return float(shared / (hull_a.volume + hull_b.volume - shared))


# pytorch3d #1082 (ffent's comment, pytorch3d 0.7.5): box3d_overlap gives IoU 1.23788.
ISSUE_1082_A = np.array(
    [
        [19.7804, -4.8337, -1.2441],
        [24.3597, -4.8431, -1.2441],
        [24.3648, -2.3689, -1.2441],
        [19.7855, -2.3595, -1.2441],
        [19.7804, -4.8337, 0.8192],
        [24.3597, -4.8431, 0.8192],
        [24.3648, -2.3689, 0.8192],
        [19.7855, -2.3595, 0.8192],
    ]
)
ISSUE_1082_B = np.array(
    [
        [19.8159, -4.8659, -1.2500],
        [24.4267, -4.8794, -1.2500],
        [24.4341, -2.3641, -1.2500],
        [19.8233, -2.3506, -1.2500],
        [19.8159, -4.8659, 0.8500],
        [24.4267, -4.8794, 0.8500],
        [24.4341, -2.3641, 0.8500],
        [19.8233, -2.3506, 0.8500],
    ]
)
# pytorch3d #1287: two nearly identical cuboids, given in another order and reordered by the reporter.
ISSUE_1287_ORDER = [3, 1, 0, 2, 7, 5, 4, 6]
ISSUE_1287_A = np.array(
    [
        [-34.67156, -2.65437, -0.95367],
        [-34.67156, -2.65437, 0.96941],
        [-33.94158, -4.51639, -0.95367],
        [-33.94158, -4.51639, 0.96941],
        [-39.48952, -4.54319, -0.95367],
        [-39.48952, -4.54319, 0.96941],
        [-38.75954, -6.40521, -0.95367],
        [-38.75954, -6.40521, 0.96941],
    ]
)[ISSUE_1287_ORDER]
ISSUE_1287_B = np.array(
    [
        [-34.67158, -2.65437, -0.95368],
        [-34.67158, -2.65437, 0.96939],
        [-33.94159, -4.51638, -0.95368],
        [-33.94159, -4.51638, 0.96939],
        [-39.48953, -4.54321, -0.95368],
        [-39.48953, -4.54321, 0.96939],
        [-38.75954, -6.40523, -0.95368],
        [-38.75954, -6.40523, 0.96939],
    ]
)[ISSUE_1287_ORDER]
# pytorch3d #1551: a box in a city's coordinates (about 4e4 from the origin) has IoU 0.5 with itself.
ISSUE_1551 = np.array(
    [
        [-24931.9805, 40325.3438, -254.5391],
        [-24931.1562, 40325.4336, -254.5391],
        [-24931.3105, 40326.8789, -254.5391],
        [-24932.1348, 40326.7891, -254.5391],
        [-24931.9805, 40325.3438, -253.7584],
        [-24931.1562, 40325.4336, -253.7584],
        [-24931.3105, 40326.8789, -253.7584],
        [-24932.1348, 40326.7891, -253.7584],
    ]
)
# votenet #150 (and imvotenet #13): a box has IoU 1.49 with itself (its 2-D clipping returned too much area).
VOTENET_150 = np.array(
    [
        [12.05, 3.358, -1.927],
        [12.05, 3.358, -2.309],
        [11.744, 3.358, -2.309],
        [11.744, 3.358, -1.927],
        [12.05, 3.168, -1.927],
        [12.05, 3.168, -2.309],
        [11.744, 3.168, -2.309],
        [11.744, 3.168, -1.927],
    ]
)
UNIT_BOX = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]], float)


@pytest.mark.parametrize(
    "corners_a, corners_b, reported",
    [(ISSUE_1082_A, ISSUE_1082_B, 1.23788), (ISSUE_1287_A, ISSUE_1287_B, None)],
    ids=["pytorch3d-1082", "pytorch3d-1287"],
)
def test_pytorch3d_iou_above_one(corners_a, corners_b, reported):
    """pytorch3d reported IoU > 1 for these pairs; the IoU of the boxes fitted to the printed corners is that of
    the corners' hulls (Qhull) within the fit (the corners are boxes to 1e-4), and below 1."""
    a = geoiou.OrientedBox3D.from_corners(corners_a, rtol=1e-3)
    b = geoiou.OrientedBox3D.from_corners(corners_b, rtol=1e-3)
    ours = geoiou.iou(a, b)
    assert 0.0 <= ours <= 1.0
    assert ours == pytest.approx(_hull_iou(corners_a, corners_b), abs=2e-3)
    assert geoiou.iou(b, a) == ours


def test_pytorch3d_1287_nearly_identical_boxes():
    """The reporter expected an IoU very close to 1: the corners differ by 2e-5 at most on boxes about 5 x 2 x 2."""
    a = geoiou.OrientedBox3D.from_corners(ISSUE_1287_A, rtol=1e-3)
    b = geoiou.OrientedBox3D.from_corners(ISSUE_1287_B, rtol=1e-3)
    assert 0.9999 < geoiou.iou(a, b) <= 1.0


def test_pytorch3d_1551_self_iou_far_from_the_origin():
    """IoU with itself is 1 exactly (pytorch3d gave 0.5): only differences of centres enter the kernel."""
    box = geoiou.OrientedBox3D.from_corners(ISSUE_1551, rtol=1e-3)
    assert geoiou.iou(box, box) == 1.0
    assert geoiou.giou(box, box) == 1.0


def test_votenet_150_self_iou():
    """votenet's corners (a mirrored order, read as the same box): IoU 1 with itself, not 1.49."""
    box = geoiou.OrientedBox3D.from_corners(VOTENET_150)
    assert geoiou.iou(box, box) == 1.0
    assert box.volume == pytest.approx(0.306 * 0.19 * 0.382, rel=1e-12)


def test_pytorch3d_992_a_degenerate_box():
    """A box of eight equal corners (all 0) against a 2 x 2 x 1 box: no volume shared, IoU 0 both ways (pytorch3d
    gave inf one way and 0 the other)."""
    box = geoiou.OrientedBox3D.from_corners(UNIT_BOX * [2, 2, 1] - [1, 1, 0.5])
    point = geoiou.OrientedBox3D.from_corners(np.zeros((8, 3)))
    assert point.volume == 0.0
    assert geoiou.iou(box, point) == 0.0 and geoiou.iou(point, box) == 0.0


def test_pytorch3d_1054_a_quarter_of_the_unit_box():
    """The unit box against itself moved by (0.5, 0.5, 0): the intersection is a quarter, 0.25 exactly (pytorch3d
    gave 0.1627)."""
    box = geoiou.OrientedBox3D.from_corners(UNIT_BOX)
    moved = geoiou.OrientedBox3D.from_corners(UNIT_BOX + [0.5, 0.5, 0.0])
    assert geoiou.intersection_area(box, moved) == 0.25
    assert geoiou.iou(box, moved) == 0.25 / 1.75


def test_pytorch3d_1178_flat_boxes():
    """Two rectangles given as boxes of no height: pytorch3d returned NaN. Their volumes are 0: the intersection
    is 0 (never NaN), IoU is 0/0 and follows `zero_division`; what the reporter wanted is the BEV IoU, about
    0.2805 with an overlap of about 4.8198 (the reporter's numbers), shapely's overlay of the rectangles."""
    import shapely

    first = np.array([[0.1162, 1.7993], [-1.6162, 0.7993], [-0.1162, -1.7993], [1.6162, -0.7993]])
    second = np.array([[3.8281, 1.0000], [1.0000, 3.8281], [-1.8281, 1.0000], [1.0000, -1.8281]])
    flat = [np.vstack([np.c_[c, np.zeros(4)]] * 2) for c in (first, second)]
    a, b = (geoiou.OrientedBox3D.from_corners(c, rtol=1e-3) for c in flat)
    assert geoiou.intersection_area(a, b) == 0.0
    assert math.isnan(geoiou.iou(a, b))
    assert geoiou.iou(a, b, zero_division=0.0) == 0.0
    overlap = shapely.intersection(shapely.Polygon(first), shapely.Polygon(second))
    union = shapely.union(shapely.Polygon(first), shapely.Polygon(second))
    assert geoiou.bev_iou(a, b) == pytest.approx(overlap.area / union.area, abs=1e-3)
    assert geoiou.bev_iou(a, b) == pytest.approx(0.2805, abs=1e-3)


def test_mmdet3d_1820_a_lidar_box_with_itself():
    """mmdet3d's `LiDARInstance3DBoxes.overlaps` gave 0 for this box with itself (mmdet3d #1820)."""
    box = geoiou.RotatedBox3D.from_mmdet3d(
        [2.38607935e02, 9.13623668e02, 8.59954819e-01, 1.85358202e00, 4.57165861e00, 1.63146234e00, 3.02226729e00]
    )
    assert geoiou.iou(box, box) == 1.0
    assert geoiou.bev_iou(box, box) == 1.0


def test_openpcdet_41_kitti_eval_self_iou():
    """OpenPCDet's copy of the KITTI Python evaluation gave 8.4e-9 for a box's 3-D IoU with itself (OpenPCDet #41)."""
    label = [1.52, 1.63, 3.88, 2.84, 1.47, 8.41, 0.01]  # h w l x y z ry, a car of KITTI's training labels
    box = geoiou.RotatedBox3D.from_kitti_camera(label)
    assert geoiou.iou(box, box) == 1.0


def test_mmcv_2715_diff_iou_rotated_3d():
    """mmcv's `diff_iou_rotated_3d` test (mmcv #2715, boxes x y z w h d angle with the angle in radians):
    expected [1, 0.5, 0.7071, 1/15, 0]. The exact values: a half turn is the same box; a box of twice the height
    holds the cube (1 / 2); the cube and its turn by 45° share a regular octagon prism, IoU 1/√2; cubes offset by
    half a side along each axis share 1/8 (1/8 / (2 - 1/8) = 1/15); the last pair is apart."""
    first = geoiou.RotatedBox3D.from_radians([0.5, 0.5, 0.5, 1.0, 1.0, 1.0, 0.0])
    others = geoiou.RotatedBox3D.from_radians(
        [
            [0.5, 0.5, 0.5, 1.0, 1.0, 1.0, math.pi],
            [0.5, 0.5, 0.5, 1.0, 1.0, 2.0, math.pi / 2],
            [0.5, 0.5, 0.5, 1.0, 1.0, 1.0, math.pi / 4],
            [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0],
            [-1.5, -1.5, -1.5, 2.5, 2.5, 2.5, 0.0],
        ]
    )
    np.testing.assert_allclose(geoiou.iou(first, others), [1.0, 0.5, 1 / math.sqrt(2), 1 / 15, 0.0], rtol=1e-14)
    assert geoiou.iou(first, others[0]) == 1.0


def test_mmcv_2018_3d_iou_is_not_bev_iou():
    """mmcv's `boxes_iou3d` once returned the BEV IoU (fixed in mmcv #2018): boxes stacked one above the other
    share their whole footprint and no volume."""
    low = geoiou.RotatedBox3D([0, 0, 0.5, 4, 2, 1, 30])
    high = geoiou.RotatedBox3D([0, 0, 1.5, 4, 2, 1, 30])
    assert geoiou.iou(low, high) == 0.0
    assert geoiou.bev_iou(low, high) == 1.0


# pytorch3d #1429: two prisms of height 2 whose footprints are (nearly) rectangles about 32 x 78 near (855, 585),
# the top face (z = 1) listed first. box3d_overlap gave IoU 0.6088, and other values when the boxes were scaled.
ISSUE_1429_A = np.array([[844.4573, 545.2485], [876.2981, 549.7680], [865.3027, 627.2315], [833.4619, 622.7120]])
ISSUE_1429_B = np.array([[847.1049, 545.0182], [878.9629, 550.2360], [866.2220, 628.0273], [834.3640, 622.8095]])


def _prism(footprint: np.ndarray, scale: float = 1.0) -> geoiou.OrientedBox3D:
    corners = np.concatenate([np.column_stack([footprint, np.ones(4)]), np.column_stack([footprint, -np.ones(4)])])
    return geoiou.OrientedBox3D.from_corners(corners * scale, rtol=1e-3)


def test_pytorch3d_1429_prisms_and_their_scale():
    """Both prisms span z in [-1, 1], so their 3-D IoU is their footprints' IoU: shapely's exact polygon IoU of the
    quadrilaterals as printed (0.88769, not 0.6088), within the fit of the printed corners to rectangles. Scaling
    every coordinate by a power of two is exact in floating point, and the IoU keeps every bit."""
    import shapely

    a, b = shapely.Polygon(ISSUE_1429_A), shapely.Polygon(ISSUE_1429_B)
    ours = geoiou.iou(_prism(ISSUE_1429_A), _prism(ISSUE_1429_B))
    assert ours == pytest.approx(a.intersection(b).area / a.union(b).area, abs=1e-6)
    assert ours == pytest.approx(0.88769, abs=1e-5)
    for scale in (2.0**-10, 2.0**-3, 2.0**5, 2.0**20):
        assert geoiou.iou(_prism(ISSUE_1429_A, scale), _prism(ISSUE_1429_B, scale)) == ours


def test_openpcdet_972_rotate_iou_of_a_box_with_itself():
    """OpenPCDet's `rotate_iou_gpu_eval` (the KITTI evaluation's BEV overlap) gave 3.1e-10 for this footprint
    ``x, y, l, w, angle`` with itself (OpenPCDet #972); the IoU of a region with itself is 1."""
    box = geoiou.RotatedBox3D.from_openpcdet([-49.3915, 17.5002, -0.8, 6.41644, 2.78625, 1.5, 3.13511])
    assert geoiou.bev_iou(box, box) == 1.0
    assert geoiou.iou(box, box) == 1.0


def test_second_90_kitti_ground_truth_against_itself():
    """second.pytorch #90 (and PR #157): the KITTI evaluation of the ground truth against itself gave BEV AP 1.49
    and 3-D AP 0.63 for cars, from the BEV overlap of rotated boxes. Every object matches its own copy with IoU 1
    (no two objects of a scene overlap in BEV by the thresholds), so every prediction is a true positive and the
    AP is that of a perfect detector under KITTI's sampling: n ground truths give n score thresholds of
    precision 1 at recalls 1/n, ..., 1, so R40 (the points 1..40 of 0..40) is ``min(n - 1, 40) / 40`` and R11 (the
    points 0, 4, ..., 40) counts those below ``min(n, 41)``. (The image-box AP can be lower: KITTI lets a ground
    truth take the highest-scored prediction above the threshold, and image boxes of two objects may overlap.)"""
    from geoiou.evaluation import evaluate_kitti
    from geoiou.tables import KittiObjects
    from kitti_scenes import kitti_scene

    truth, _ = kitti_scene(seed=90, images=40)
    columns = ("image_id", "type", "truncated", "occluded", "alpha", "bbox", "dimensions", "location", "rotation_y")
    rows = truth.type != "DontCare"
    itself = KittiObjects(
        **{name: getattr(truth, name)[rows] for name in columns}, score=np.linspace(1, 0.5, int(rows.sum()))
    )
    result = evaluate_kitti(truth, itself)
    n = result.num_ground_truths  # (class, difficulty): 47 moderate cars, 8 easy pedestrians, ...
    perfect_r40 = np.minimum(np.maximum(n - 1, 0), 40) / 40 * 100
    perfect_r11 = np.array([[sum(k < min(m, 41) for k in range(0, 41, 4)) for m in row] for row in n]) / 11 * 100
    for metric in ("bev", "3d"):
        np.testing.assert_allclose(result.ap_r40[result.metrics.index(metric)], perfect_r40, rtol=1e-12)
        np.testing.assert_allclose(result.ap_r11[result.metrics.index(metric)], perfect_r11, rtol=1e-12)
    assert result.ap("3d", "Car", "moderate") == 100.0
