"""The 3-D kernels against independent methods: SciPy's halfspace intersection and convex hulls, shapely's BEV
overlay times the height overlap, Monte Carlo sampling; and the hard cases (identical, coplanar, touching,
nested, thin and far boxes) with exact answers."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

import geoiou
from solids import hull_volume, intersection_volume, parts_of, sampled_volume, yaw_box_parts
from strategies import random_boxes3d, random_oriented_boxes3d, random_rotated_boxes3d, random_rotations, rng


def _volumes(a, b) -> tuple[np.ndarray, np.ndarray]:
    """geoiou's and the halfspace oracle's intersection volumes of the pairs ``(a[k], b[k])``."""
    ours = geoiou.intersection_area(a, b)
    oracle = np.array([intersection_volume(parts_of(a[k]), parts_of(b[k])) for k in range(len(a))])
    return ours, oracle


@pytest.mark.parametrize(
    "make_a, make_b",
    [
        (random_oriented_boxes3d, random_oriented_boxes3d),
        (random_rotated_boxes3d, random_rotated_boxes3d),
        (random_boxes3d, random_oriented_boxes3d),
        (random_rotated_boxes3d, random_oriented_boxes3d),
    ],
    ids=["oriented", "yaw", "box-oriented", "yaw-oriented"],
)
def test_intersection_volumes_match_scipys_halfspace_intersection(make_a, make_b):
    """Random pairs (seeded), most overlapping: within 1e-12 of the larger volume of Qhull's polytope."""
    gen = rng(11)
    a, b = make_a(gen, 60), make_b(gen, 60)
    ours, oracle = _volumes(a, b)
    assert np.count_nonzero(oracle > 0) > 12
    scale = np.maximum(a.volume, b.volume)
    np.testing.assert_allclose(ours, oracle, rtol=0, atol=1e-12 * scale.max())
    assert np.all(ours <= np.minimum(a.volume, b.volume))


def test_yaw_volumes_match_shapely_footprints_times_heights():
    """A yaw pair's intersection is a prism: shapely's footprint overlay times the overlap of the heights."""
    gen = rng(12)
    a, b = random_rotated_boxes3d(gen, 200), random_rotated_boxes3d(gen, 200)
    ours = geoiou.intersection_area(a, b)
    oracle = []
    for k in range(200):
        (foot_a, low_a, high_a), (foot_b, low_b, high_b) = yaw_box_parts(a[k]), yaw_box_parts(b[k])
        oracle.append(shapely.intersection(foot_a, foot_b).area * max(0.0, min(high_a, high_b) - max(low_a, low_b)))
    np.testing.assert_allclose(ours, oracle, rtol=0, atol=1e-12 * np.max(a.volume))
    bev = geoiou.bev_iou(a, b)
    oracle_bev = [
        shapely.intersection(yaw_box_parts(a[k])[0], yaw_box_parts(b[k])[0]).area
        / shapely.union(yaw_box_parts(a[k])[0], yaw_box_parts(b[k])[0]).area
        for k in range(200)
    ]
    np.testing.assert_allclose(bev, oracle_bev, rtol=0, atol=1e-12)


@pytest.mark.parametrize("make", [random_oriented_boxes3d, random_rotated_boxes3d], ids=["oriented", "yaw"])
def test_hull_volumes_match_qhull(make):
    """GIoU's enclosure in 3-D: the convex hull of the sixteen corners, against Qhull (relative 1e-10)."""
    gen = rng(13)
    a, b = make(gen, 60), make(gen, 60)
    ours = geoiou.enclosure_area(a, b)
    oracle = np.array([hull_volume(parts_of(a[k]), parts_of(b[k])) for k in range(60)])
    np.testing.assert_allclose(ours, oracle, rtol=1e-10)
    giou = geoiou.giou(a, b)
    iou = geoiou.iou(a, b)
    union = a.volume + b.volume - geoiou.intersection_area(a, b)
    np.testing.assert_allclose(giou, iou - (oracle - union) / oracle, rtol=0, atol=1e-10)


def test_monte_carlo_agrees_on_a_few_oriented_pairs():
    """A third method that shares nothing with the other two: points sampled in one box, counted in the other."""
    gen = rng(14)
    a, b = random_oriented_boxes3d(gen, 5, span=1.0), random_oriented_boxes3d(gen, 5, span=1.0)
    ours = geoiou.intersection_area(a, b)
    for k in range(5):
        estimate, error = sampled_volume(parts_of(a[k]), parts_of(b[k]), 200_000, seed=k)
        assert abs(ours[k] - estimate) <= 5 * error + 1e-9


# --------------------------------------------------------------------------- hard cases, exact answers
TILT = random_rotations(rng(15), 1)[0]


def test_identical_boxes_have_iou_exactly_one_at_any_offset_and_size():
    for offset in (0.0, 1e3, 1e8, 1e15, -3e100):
        for size in (1e-30, 1e-6, 1.0, 1e6):
            box = geoiou.OrientedBox3D([offset, -offset, offset], [size, 2 * size, 3 * size], TILT)
            yaw = geoiou.RotatedBox3D([offset, -offset, offset, size, 2 * size, 3 * size, 33.3])
            regions = [box, yaw]
            if offset + size != offset:  # corners hold the size (a Box3D is its corners)
                regions.append(
                    geoiou.Box3D([offset, offset, offset, offset + size, offset + 2 * size, offset + 3 * size])
                )
            for region in regions:
                assert geoiou.iou(region, region) == 1.0, (offset, size, region)
                assert geoiou.giou(region, region) == 1.0
                assert geoiou.diou(region, region) == 1.0


def test_shared_faces_touching_and_nested_boxes():
    """Exact configurations (quarter turns, dyadic offsets): the answers are exact too."""
    cube = geoiou.Box3D([0, 0, 0, 2, 2, 2])
    turned = geoiou.RotatedBox3D([1, 1, 1, 2, 2, 2, 90])  # the same cube
    assert geoiou.iou(cube, turned) == 1.0
    touching = geoiou.RotatedBox3D([3, 1, 1, 2, 2, 2, 90])  # shares the face x = 2
    assert geoiou.intersection_area(cube, touching) == 0.0
    assert geoiou.iou(cube.to_oriented_box3d(), touching.to_oriented_box3d()) == 0.0
    half = geoiou.RotatedBox3D([2, 1, 1, 2, 2, 2, 180])  # overlaps half: 4 of 12
    assert geoiou.iou(cube, half) == 4 / 12
    inside = geoiou.OrientedBox3D([1, 1, 1], [1, 1, 1], TILT)  # a tilted unit cube inside the cube
    assert geoiou.intersection_area(cube, inside) == pytest.approx(1.0, rel=1e-15)
    assert geoiou.iou(inside, cube) == geoiou.iou(cube, inside)
    # Boxes on one ground (coplanar bottoms), turned differently: a prism, exact against shapely.
    ground_a = geoiou.RotatedBox3D([0, 0, 0.5, 4, 2, 1, 0])
    ground_b = geoiou.RotatedBox3D([1, 0.5, 0.5, 3, 2, 1, 30])
    footprints = shapely.intersection(yaw_box_parts(ground_a)[0], yaw_box_parts(ground_b)[0]).area
    assert geoiou.intersection_area(ground_a, ground_b) == pytest.approx(footprints, rel=1e-14)
    assert geoiou.intersection_area(ground_a.to_oriented_box3d(), ground_b.to_oriented_box3d()) == pytest.approx(
        footprints, rel=1e-14
    )


def test_thin_and_far_boxes():
    """A box 1e-9 thick keeps its relative precision; a pair 1e12 from the origin keeps the digits of its sizes."""
    thin = geoiou.OrientedBox3D([0, 0, 0], [2, 2, 1e-9], TILT)
    slab = geoiou.OrientedBox3D(TILT @ [0.5, 0, 0], [2, 2, 1], TILT)
    assert geoiou.intersection_area(thin, slab) == pytest.approx(1.5 * 2 * 1e-9, rel=1e-6)
    a, b = random_oriented_boxes3d(rng(16), 20), random_oriented_boxes3d(rng(17), 20)
    shift = 1e12
    far_a = geoiou.OrientedBox3D(a.centre + shift, a.sizes, a.rotation)
    far_b = geoiou.OrientedBox3D(b.centre + shift, b.sizes, b.rotation)
    np.testing.assert_allclose(geoiou.iou(far_a, far_b), geoiou.iou(a, b), rtol=0, atol=1e-3)
    # The relative error is that of the centres, rounded at 1e12 (about 1e-4 absolute): exact shifts change nothing.
    exact = 2.0**40
    moved_a = geoiou.OrientedBox3D(np.round(a.centre * 64) / 64 + exact, a.sizes, a.rotation)
    moved_b = geoiou.OrientedBox3D(np.round(b.centre * 64) / 64 + exact, b.sizes, b.rotation)
    back_a = geoiou.OrientedBox3D(np.round(a.centre * 64) / 64, a.sizes, a.rotation)
    back_b = geoiou.OrientedBox3D(np.round(b.centre * 64) / 64, b.sizes, b.rotation)
    np.testing.assert_array_equal(geoiou.iou(moved_a, moved_b), geoiou.iou(back_a, back_b))


def test_flat_boxes_give_no_nan():
    """pytorch3d #1178, a box of no height: IoU 0 against a solid box, `zero_division` against a flat one."""
    flat = geoiou.OrientedBox3D([0, 0, 0], [2, 2, 0], TILT)
    solid = geoiou.OrientedBox3D([0, 0, 0], [2, 2, 2], TILT)
    assert geoiou.iou(flat, solid) == 0.0
    assert geoiou.giou(flat, solid) == 0.0  # C is the solid box: GIoU = IoU - 0
    assert np.isnan(geoiou.iou(flat, flat))  # 0/0, as documented
    assert geoiou.iou(flat, flat, zero_division=1.0) == 1.0
    in_plane = geoiou.OrientedBox3D(TILT @ [1.0, 0, 0], [2, 2, 0], TILT)  # moved within its plane
    assert geoiou.giou(flat, in_plane, zero_division=0.0) == 0.0  # coplanar: a hull of volume 0, GIoU = IoU
    above = geoiou.OrientedBox3D(TILT @ [0, 0, 1.0], [2, 2, 0], TILT)  # a parallel plane: the hull has volume
    assert geoiou.giou(flat, above, zero_division=0.0) == -1.0


def test_a_tiny_box_against_a_huge_one():
    """Sizes 1e-30 and 1e30: the frame of the smaller box keeps every digit."""
    huge = geoiou.OrientedBox3D([0, 0, 0], [1e30, 1e30, 1e30], np.eye(3))
    tiny_inside = geoiou.OrientedBox3D([1, 2, 3], [1e-30, 2e-30, 3e-30], TILT)
    assert geoiou.intersection_area(huge, tiny_inside) == tiny_inside.volume
    # Centred on the face x = 5e29 (exactly half of 1e30 in floats): the face's plane halves any turn of the box.
    on_face = geoiou.OrientedBox3D([5e29, 1, 2], [1e-30, 2e-30, 3e-30], TILT)
    assert geoiou.intersection_area(huge, on_face) == pytest.approx(3e-90, rel=1e-12)


# --------------------------------------------------------------------------- batches, pairwise, overlaps, threads
@pytest.mark.parametrize("make", [random_boxes3d, random_rotated_boxes3d, random_oriented_boxes3d])
def test_pairwise_equals_elementwise_and_overlaps(make):
    gen = rng(18)
    a, b = make(gen, 40), make(gen, 70)
    matrix = geoiou.pairwise_iou(a, b)
    loop = geoiou.iou(a[:, None], b[None, :])
    np.testing.assert_array_equal(matrix, loop)
    found = geoiou.overlaps(a, b)
    dense = np.zeros_like(matrix)
    dense[found.index_a, found.index_b] = found.iou
    np.testing.assert_array_equal(dense, matrix)
    for metric, pairwise in ((geoiou.giou, geoiou.pairwise_giou), (geoiou.diou, geoiou.pairwise_diou)):
        np.testing.assert_array_equal(pairwise(a, b), metric(a[:, None], b[None, :]))


def test_large_pairwise_uses_the_candidate_search_and_keeps_the_bits():
    """Beyond `SMALL_PAIRS` the candidates (six bounds, strips by y) are measured: the same bits as the rows."""
    gen = rng(19)
    a, b = random_rotated_boxes3d(gen, 150), random_rotated_boxes3d(gen, 120)
    np.testing.assert_array_equal(geoiou.pairwise_iou(a, b), geoiou.iou(a[:, None], b[None, :]))
    o = a.to_oriented_box3d()
    np.testing.assert_array_equal(geoiou.pairwise_iof(o, b), geoiou.iof(o[:, None], b.to_oriented_box3d()[None, :]))


@pytest.mark.parametrize("make", [random_rotated_boxes3d, random_oriented_boxes3d])
def test_every_thread_count_gives_the_same_bits(make):
    from geoiou import _core

    gen = rng(20)
    a, b = make(gen, 50), make(gen, 50)
    geoiou.set_threads(1)
    try:
        serial = (geoiou.pairwise_iou(a, b), geoiou.pairwise_giou(a, b))
        geoiou.set_threads(2)
        _core.split_every_loop_for_tests(True)  # every row a chunk of its own, on the pool
        parallel = (geoiou.pairwise_iou(a, b), geoiou.pairwise_giou(a, b))
    finally:
        _core.split_every_loop_for_tests(False)
        geoiou.set_threads(None)
    for one, other in zip(serial, parallel):
        np.testing.assert_array_equal(one, other)
