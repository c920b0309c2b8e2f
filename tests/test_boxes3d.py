"""The 3-D kinds as values: construction, refusals, the conventions of the toolkits, corners, bounds, footprints
and promotion. Conventions are checked against corners computed here by each toolkit's own formula."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import geoiou
from solids import yaw_matrix
from strategies import ci_settings


def _same_points(one: np.ndarray, other: np.ndarray) -> None:
    """Two sets of eight corners are the same set (any order), to 1e-9."""
    key = lambda points: points[np.lexsort(np.round(points, 6).T[::-1])]  # noqa: E731
    np.testing.assert_allclose(key(one), key(other), atol=1e-9)


# --------------------------------------------------------------------------- Box3D
def test_box3d_formats_and_measures():
    box = geoiou.Box3D([1, 2, 3, 4, 2, 2], fmt="cxcyczwhd")
    np.testing.assert_array_equal(box.to_array(), [-1, 1, 2, 3, 3, 4])
    np.testing.assert_array_equal(box.to_array("xyzwhd"), [-1, 1, 2, 4, 2, 2])
    assert box.volume == box.area == 16.0
    np.testing.assert_array_equal(box.centroid, [1, 2, 3])
    np.testing.assert_array_equal(box.bounds, [-1, 1, 2, 3, 3, 4])
    assert box.footprint().area == 8.0
    assert geoiou.Box3D([[0, 0, 0, 1, 1, 1]] * 3).shape == (3,)


@pytest.mark.parametrize(
    "coords, fmt, message",
    [
        ([0, 0, 0, 1, 1], "xyzxyz", "shape (..., 6)"),
        ([0, 0, 2, 1, 1, 1], "xyzxyz", "z1 <= z2"),
        ([0, 0, 0, 1, -1, 1], "cxcyczwhd", "non-negative sizes"),
        ([0, 0, 0, 1, 1, float("nan")], "xyzxyz", "finite"),
        ([0, 0, 0, 1e200, 1, 1], "xyzxyz", "2**336"),
        ([1e16, 0, 0, 1, 1, 1], "xyzwhd", "survive the conversion"),
        ([0, 0, 0, 1, 1, 1], "xyz", "one of"),
    ],
)
def test_box3d_refusals_name_the_parameter(coords, fmt, message):
    with pytest.raises(geoiou.InvalidRegionError, match="'(coords|fmt)' must") as caught:
        geoiou.Box3D(coords, fmt=fmt)
    assert message in str(caught.value)


# --------------------------------------------------------------------------- RotatedBox3D conventions
def test_rotated_box3d_corners_follow_the_documented_convention():
    box = geoiou.RotatedBox3D([1, 2, 3, 4, 2, 1, 30])
    local = np.array(
        [[sx * 2, sy * 1, sz * 0.5] for sx, sy, sz in geoiou.regions.rotated_box3d.CORNER_ORDERS["pytorch3d"]]
    )
    expected = np.array([1, 2, 3]) + local @ yaw_matrix(30).T
    np.testing.assert_allclose(box.to_corners(), expected, atol=1e-12)
    np.testing.assert_allclose(box.bounds, [*expected.min(axis=0), *expected.max(axis=0)], atol=1e-12)
    footprint = box.footprint()
    np.testing.assert_allclose(footprint.to_corners(), expected[:4, :2], atol=1e-12)


def test_kitti_camera_labels():
    """KITTI's own corner formula (the devkit's: R_y(ry) on (±l/2, [0, -h], ±w/2) from the bottom centre, y down)
    gives the same eight points as geoiou's box, read in the z-up frame (z, -x, -y)."""
    h, w, length, x, y, z, ry = 1.52, 1.63, 3.88, 2.84, 1.47, 8.41, 0.7
    rotation_y = np.array([[math.cos(ry), 0, math.sin(ry)], [0, 1, 0], [-math.sin(ry), 0, math.cos(ry)]])
    local = np.array([[sx * length / 2, -h * top, sz * w / 2] for sx in (-1, 1) for top in (0, 1) for sz in (-1, 1)])
    camera = np.array([x, y, z]) + local @ rotation_y.T
    in_our_frame = np.stack([camera[:, 2], -camera[:, 0], -camera[:, 1]], axis=-1)
    box = geoiou.RotatedBox3D.from_kitti_camera([h, w, length, x, y, z, ry])
    _same_points(box.to_corners(), in_our_frame)
    np.testing.assert_allclose(box.to_kitti_camera(), [h, w, length, x, y, z, ry], atol=1e-12)
    # mmdet3d's camera boxes are KITTI's with the sizes as (l, h, w).
    mmdet = geoiou.RotatedBox3D.from_mmdet3d([x, y, z, length, h, w, ry], mode="camera")
    assert geoiou.iou(mmdet, box) == 1.0


def test_lidar_conventions():
    """OpenPCDet and Waymo: the centre, yaw counter-clockwise in radians; mmdet3d (lidar, depth): the bottom centre."""
    centre_box = geoiou.RotatedBox3D.from_openpcdet([10, 2, -1, 4, 2, 1.5, math.pi / 6])
    np.testing.assert_allclose(centre_box.to_array(), [10, 2, -1, 4, 2, 1.5, 30])
    assert geoiou.iou(centre_box, geoiou.RotatedBox3D.from_waymo([10, 2, -1, 4, 2, 1.5, math.pi / 6])) == 1.0
    for mode in ("lidar", "depth"):
        bottom = geoiou.RotatedBox3D.from_mmdet3d([10, 2, -1.75, 4, 2, 1.5, math.pi / 6], mode=mode)
        assert geoiou.iou(bottom, centre_box) == pytest.approx(1.0, abs=1e-15)
    np.testing.assert_allclose(centre_box.to_radians()[6], math.pi / 6)
    with pytest.raises(geoiou.InvalidRegionError, match="'mode' must be one of"):
        geoiou.RotatedBox3D.from_mmdet3d([0, 0, 0, 1, 1, 1, 0], mode="world")


def _turned_about_z(points: np.ndarray, heading: float) -> np.ndarray:
    """OpenPCDet's `rotate_points_along_z` (mmdet3d 1.x's `rotation_3d_in_axis` about z alike): the points times
    ``[[cos, sin, 0], [-sin, cos, 0], [0, 0, 1]]`` on the right, a counter-clockwise turn seen from above."""
    c, s = math.cos(heading), math.sin(heading)
    return points @ np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])


def test_lidar_corners_follow_the_toolkits_formulas():
    """The corners of OpenPCDet's `boxes_to_corners_3d` (a template of half sizes about the centre) and of mmdet3d
    1.x's `LiDARInstance3DBoxes.corners` (unit corners minus (0.5, 0.5, 0): the bottom centre) are geoiou's."""
    x, y, z, dx, dy, dz, heading = 10.0, 2.0, -1.0, 4.0, 2.0, 1.5, 0.7
    template = np.array(
        [[1, 1, -1], [1, -1, -1], [-1, -1, -1], [-1, 1, -1], [1, 1, 1], [1, -1, 1], [-1, -1, 1], [-1, 1, 1]]
    )
    openpcdet = _turned_about_z(template / 2 * [dx, dy, dz], heading) + [x, y, z]
    _same_points(geoiou.RotatedBox3D.from_openpcdet([x, y, z, dx, dy, dz, heading]).to_corners(), openpcdet)
    _same_points(geoiou.RotatedBox3D.from_waymo([x, y, z, dx, dy, dz, heading]).to_corners(), openpcdet)
    unit = np.stack(np.unravel_index(np.arange(8), [2] * 3), axis=1)[[0, 1, 3, 2, 4, 5, 7, 6]] - [0.5, 0.5, 0.0]
    mmdet3d = _turned_about_z(unit * [dx, dy, dz], heading) + [x, y, z]  # (x, y, z) is the bottom centre here
    _same_points(geoiou.RotatedBox3D.from_mmdet3d([x, y, z, dx, dy, dz, heading]).to_corners(), mmdet3d)


def test_nuscenes_boxes():
    """nuScenes' `Box.corners`: x_corners = l/2 · (1, 1, 1, 1, -1, -1, -1, -1) etc. (length along x, width along y),
    turned by the quaternion's matrix, moved to the centre."""
    center, wlh, yaw = np.array([600.0, 1600.0, 1.0]), np.array([2.0, 4.5, 1.6]), math.radians(-40)
    quaternion = [math.cos(yaw / 2), 0, 0, math.sin(yaw / 2)]
    local = np.array(
        [[sx * wlh[1] / 2, sy * wlh[0] / 2, sz * wlh[2] / 2] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
    )
    expected = center + local @ yaw_matrix(-40).T
    yaw_box = geoiou.RotatedBox3D.from_nuscenes(center, wlh, quaternion)
    oriented = geoiou.OrientedBox3D.from_nuscenes(center, wlh, quaternion)
    _same_points(yaw_box.to_corners(), expected)
    _same_points(oriented.to_corners(), expected)
    with pytest.raises(geoiou.InvalidRegionError, match="'rotation' must be quaternions that turn about the z axis"):
        geoiou.RotatedBox3D.from_nuscenes(center, wlh, [math.cos(0.1), math.sin(0.1), 0, 0])


@pytest.mark.parametrize(
    "coords, message",
    [
        ([0, 0, 0, 1, 1, -1, 0], "non-negative size dz"),
        ([0, 0, 0, 1, 1, 1], "shape (..., 7)"),
        ([1e200, 0, 0, 1, 1, 1, 0], "2**336"),
        ([0, 0, 0, 1e-300, 1e-300, 1, 0], "volume 0 or at least"),
    ],
)
def test_rotated_box3d_refusals(coords, message):
    with pytest.raises(geoiou.InvalidRegionError, match="'coords' must") as caught:
        geoiou.RotatedBox3D(coords)
    assert message in str(caught.value)


# --------------------------------------------------------------------------- OrientedBox3D
def test_oriented_box3d_corner_orders_round_trip():
    rotation = np.array([[0.0, -1.0, 0.0], [0.6, 0.0, -0.8], [0.8, 0.0, 0.6]])
    box = geoiou.OrientedBox3D([1, 2, 3], [4, 2, 1], rotation)
    for order in ("pytorch3d", "objectron"):
        again = geoiou.OrientedBox3D.from_corners(box.to_corners(order), order=order)
        np.testing.assert_allclose(again.to_array(), box.to_array(), atol=1e-12)
    nine = np.concatenate([box.centroid[None], box.to_corners("objectron")])  # Objectron's keypoints: centre first
    assert geoiou.iou(geoiou.OrientedBox3D.from_corners(nine, order="objectron"), box) == pytest.approx(1.0, abs=1e-12)
    # pytorch3d's test maps Objectron's corners to its order by [0, 4, 6, 2, 1, 5, 7, 3].
    np.testing.assert_array_equal(box.to_corners("objectron")[[0, 4, 6, 2, 1, 5, 7, 3]], box.to_corners())


def test_oriented_box3d_quaternions_and_matrices():
    half = math.radians(50) / 2
    w_first = geoiou.OrientedBox3D.from_quaternion([0, 0, 0], [1, 2, 3], [math.cos(half), 0, math.sin(half), 0])
    w_last = geoiou.OrientedBox3D.from_quaternion(
        [0, 0, 0], [1, 2, 3], [0, math.sin(half), 0, math.cos(half)], scalar_first=False
    )
    np.testing.assert_array_equal(w_first.to_array(), w_last.to_array())
    turn = np.array(
        [[math.cos(2 * half), 0, math.sin(2 * half)], [0, 1, 0], [-math.sin(2 * half), 0, math.cos(2 * half)]]
    )
    np.testing.assert_allclose(w_first.rotation, turn, atol=1e-15)
    # A float32 matrix is off by about 1e-7: made orthonormal; a matrix that is not a rotation is refused.
    rough = geoiou.OrientedBox3D([0, 0, 0], [1, 1, 1], turn.astype(np.float32))
    np.testing.assert_allclose(rough.rotation @ rough.rotation.T, np.eye(3), atol=1e-15)
    with pytest.raises(geoiou.InvalidRegionError, match="'rotation' must be rotation matrices"):
        geoiou.OrientedBox3D([0, 0, 0], [1, 1, 1], 2 * np.eye(3))
    with pytest.raises(geoiou.InvalidRegionError, match="'rotation' must be proper rotations"):
        geoiou.OrientedBox3D([0, 0, 0], [1, 1, 1], np.diag([1.0, 1.0, -1.0]))
    with pytest.raises(geoiou.InvalidRegionError, match="'quaternion' must be non-zero"):
        geoiou.OrientedBox3D.from_quaternion([0, 0, 0], [1, 1, 1], [0, 0, 0, 0])
    with pytest.raises(geoiou.InvalidRegionError, match="'corners' must be the corners of a box"):
        geoiou.OrientedBox3D.from_corners(np.arange(24.0).reshape(8, 3) ** 1.5)


def test_footprints_and_promotion():
    yaw = geoiou.RotatedBox3D([0, 0, 0, 4, 2, 2, 30])
    oriented = yaw.to_oriented_box3d()
    assert oriented.footprint().area == pytest.approx(8.0, rel=1e-14)
    aligned = geoiou.Box3D([0, 0, 0, 2, 2, 2])
    assert geoiou.iou(aligned, aligned.to_rotated_box3d()) == 1.0
    assert geoiou.iou(aligned.to_oriented_box3d(), aligned) == 1.0
    assert geoiou.iou(aligned, yaw) == geoiou.iou(aligned.to_oriented_box3d(), oriented)


def test_two_and_three_dimensions_do_not_mix():
    with pytest.raises(geoiou.UnsupportedPairError, match="cannot compare Box with RotatedBox3D; supported pairs: "):
        geoiou.iou(geoiou.Box([0, 0, 1, 1]), geoiou.RotatedBox3D([0, 0, 0, 1, 1, 1, 0]))
    with pytest.raises(geoiou.UnsupportedPairError, match="bird's-eye views are of 3-D regions"):
        geoiou.bev_iou(geoiou.Box([0, 0, 1, 1]), geoiou.Box([0, 0, 1, 1]))
    with pytest.raises(geoiou.InvalidTypeError, match="no WKT form"):
        geoiou.Box3D([0, 0, 0, 1, 1, 1]).to_wkt()
    with pytest.raises(geoiou.UnsupportedPairError, match="ciou is defined for Box×Box only"):
        geoiou.ciou(geoiou.Box3D([0, 0, 0, 1, 1, 1]), geoiou.Box3D([0, 0, 0, 1, 1, 1]))


def test_reprs():
    assert repr(geoiou.Box3D([0, 0, 0, 1, 2, 3])) == "Box3D(0, 0, 0, 1, 2, 3)"
    assert repr(geoiou.RotatedBox3D([0, 0, 0, 1, 2, 3, 45])) == "RotatedBox3D(0, 0, 0, 1, 2, 3, 45)"
    assert repr(geoiou.OrientedBox3D([0, 0, 0], [1, 2, 3], np.eye(3))).startswith("OrientedBox3D(centre=(0, 0, 0)")


@pytest.mark.parametrize(
    "value, hint",
    [
        ([0, 0, 0, 1, 1, 1], r"e\.g\. geoiou\.Box3D\(\[x1, y1, z1, x2, y2, z2\]\)"),
        (np.zeros((4, 7)), r"e\.g\. geoiou\.RotatedBox3D\(\[cx, cy, cz, dx, dy, dz, yaw\]\)"),
        (np.zeros((2, 8, 3)), r"geoiou\.OrientedBox3D\.from_corners\(corners\)"),
        (3, r"or a 3-D box \(geoiou\.Box3D, RotatedBox3D, OrientedBox3D\)"),
    ],
)
def test_raw_numbers_are_refused_with_the_3d_constructor_to_use(value, hint):
    box = geoiou.Box3D([0, 0, 0, 1, 1, 1])
    with pytest.raises(geoiou.InvalidTypeError, match=r"'a' must be a geoiou Region .*" + hint):
        geoiou.iou(value, box)
    with pytest.raises(geoiou.InvalidTypeError, match=r"'b' must be a geoiou Region .*" + hint):
        geoiou.pairwise_iou(box, value)


_EDGE_NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e-300, 2.0**336, 2.0**336 * (1 + 2**-52), 1e200, -1.0]),
    st.integers(-(2**1100), 2**1100),
)


@ci_settings(200)
@given(numbers=st.lists(_EDGE_NUMBERS, min_size=7, max_size=7))
def test_one_box_of_plain_numbers_is_checked_as_a_batch_is(numbers):
    """A list of seven Python numbers takes a path of its own (checks in Python floats, no NumPy): it must accept
    and refuse what the batch path does, and hold the same bits."""
    try:
        one = geoiou.RotatedBox3D(numbers).to_array()
    except geoiou.InvalidRegionError:
        one = None
    try:
        batch = geoiou.RotatedBox3D(np.array([numbers], dtype=object).astype(np.float64)).to_array()[0]
    except (geoiou.InvalidRegionError, OverflowError):
        batch = None
    assert (one is None) == (batch is None)
    if one is not None:
        np.testing.assert_array_equal(one.view(np.uint64), batch.view(np.uint64))


@pytest.mark.parametrize(
    "make, param",
    [
        (lambda: geoiou.RotatedBox3D([0, 0, 0, 1e200, 1, 1, 0]), "'coords'"),
        (lambda: geoiou.RotatedBox3D(np.array([[0, 0, 0, 1e200, 1, 1, 0]])), "'coords'"),
        (lambda: geoiou.OrientedBox3D([0, 0, 0], [1e200, 1, 1], np.eye(3)), "'centre, size'"),
        (lambda: geoiou.OrientedBox3D([1e200, 0, 0], [1, 1, 1], np.eye(3)), "'centre, size'"),
    ],
)
def test_corners_out_of_range_are_refused_without_a_warning(make, param, recwarn):
    """Sizes of 1e200 square to inf where the corners' reach is measured: the box is refused, naming what sets the
    corners, and NumPy's overflow warning does not leak to the caller."""
    with pytest.raises(geoiou.InvalidRegionError, match=param + r" must be coordinates within ±2\*\*336"):
        make()
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
