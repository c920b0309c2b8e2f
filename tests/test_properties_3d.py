"""Hypothesis properties of the 3-D kinds: a box's IoU with itself is 1, exact translations change no bit,
turning both boxes changes nothing beyond rounding, pairwise equals elementwise, IoU never leaves [0, 1], and
flat boxes give no NaN (symmetry bit for bit is in tests/test_symmetry.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import geoiou
from strategies import SOLID_KINDS, ci_settings, random_rotations, region_strategy, translate

EXAMPLES = 30
PAIRS = [(a, b) for i, a in enumerate(SOLID_KINDS) for b in SOLID_KINDS[i:]]
METRICS = (geoiou.iou, geoiou.giou, geoiou.diou, geoiou.iof)


def pair_id(pair: tuple[str, str]) -> str:
    return "x".join(pair)


@pytest.mark.parametrize("kind", SOLID_KINDS)
@ci_settings(EXAMPLES)
@given(data=st.data())
def test_iou_of_a_box_with_itself_is_one(kind, data):
    box = data.draw(region_strategy(kind))
    assert geoiou.iou(box, box) == 1.0
    assert geoiou.giou(box, box) == 1.0
    assert geoiou.diou(box, box) == 1.0
    assert geoiou.iof(box, box) == 1.0
    assert geoiou.bev_iou(box, box) == pytest.approx(1.0, abs=1e-12)


def _dyadic(draw, span: int = 64) -> float:
    """A coordinate on the grid of 1/64 within ±span: exact under integer translations up to 2**40."""
    return draw(st.integers(-span * 64, span * 64)) / 64


@st.composite
def grid_boxes(draw, kind: str):
    """A box of `kind` whose centre lies on the grid of 1/64 (so that integer translations are exact)."""
    centre = [_dyadic(draw) for _ in range(3)]
    sizes = [draw(st.integers(1, 16 * 64)) / 64 for _ in range(3)]
    if kind == "box3d":
        return geoiou.Box3D([*centre, *sizes], fmt="cxcyczwhd")
    yaw = draw(st.one_of(st.sampled_from([0.0, 90.0, 30.0]), st.floats(-180, 180)))
    box = geoiou.RotatedBox3D([*centre, *sizes, yaw])
    if kind == "rotated_box3d":
        return box
    if draw(st.booleans()):
        return box.to_oriented_box3d()
    rotation = random_rotations(np.random.default_rng(draw(st.integers(0, 2**32 - 1))), 1)[0]
    return geoiou.OrientedBox3D(centre, sizes, rotation)


@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
@ci_settings(EXAMPLES)
@given(data=st.data())
def test_exact_translations_change_no_bit(pair, data):
    """Only differences of centres enter the kernels: an exact translation (integers, on the grid of 1/64) gives
    the same bits for IoU, GIoU and IoF. (DIoU's enclosing box comes from the bounds, which round at the
    coordinates' own scale, as in 2-D.)"""
    a, b = data.draw(grid_boxes(pair[0]), label="a"), data.draw(grid_boxes(pair[1]), label="b")
    shift = [float(data.draw(st.integers(-(2**40), 2**40))) for _ in range(3)]
    moved_a, moved_b = translate(a, *shift), translate(b, *shift)
    for metric in (geoiou.iou, geoiou.giou, geoiou.iof):
        np.testing.assert_array_equal(
            np.float64(metric(moved_a, moved_b)).view(np.uint64), np.float64(metric(a, b)).view(np.uint64)
        )


def _turned(box, rotation: np.ndarray, pivot: np.ndarray) -> geoiou.OrientedBox3D:
    """The box turned by `rotation` about `pivot`, as an oriented box."""
    oriented = box if isinstance(box, geoiou.OrientedBox3D) else box.to_oriented_box3d()
    return geoiou.OrientedBox3D(
        pivot + rotation @ (oriented.centre - pivot), oriented.sizes, rotation @ oriented.rotation
    )


@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
@ci_settings(EXAMPLES)
@given(data=st.data())
def test_turning_both_boxes_changes_nothing(pair, data):
    """A rotation is an isometry: IoU, GIoU (the convex hull turns with the boxes) and IoF within 1e-9."""
    a, b = data.draw(region_strategy(pair[0]), label="a"), data.draw(region_strategy(pair[1]), label="b")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    rotation = random_rotations(np.random.default_rng(seed), 1)[0]
    pivot = np.array([data.draw(st.floats(-20, 20)) for _ in range(3)])
    turned_a, turned_b = _turned(a, rotation, pivot), _turned(b, rotation, pivot)
    for metric in (geoiou.iou, geoiou.iof):
        assert metric(turned_a, turned_b) == pytest.approx(metric(a, b), abs=1e-9)
    # The convex hull turns with the boxes (the enclosing axis-aligned box would not).
    assert geoiou.giou(turned_a, turned_b) == pytest.approx(geoiou.giou(a, b, enclosure="hull"), abs=1e-9)


@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
@ci_settings(EXAMPLES // 2)
@given(data=st.data())
def test_pairwise_equals_elementwise_and_stays_in_range(pair, data):
    kind_a, kind_b = pair
    boxes_a = [data.draw(region_strategy(kind_a, span=6.0)) for _ in range(data.draw(st.integers(1, 5)))]
    boxes_b = [data.draw(region_strategy(kind_b, span=6.0)) for _ in range(data.draw(st.integers(1, 5)))]
    a = type(boxes_a[0]).stack(boxes_a)
    b = type(boxes_b[0]).stack(boxes_b)
    for metric, pairwise in (
        (geoiou.iou, geoiou.pairwise_iou),
        (geoiou.giou, geoiou.pairwise_giou),
        (geoiou.iof, geoiou.pairwise_iof),
    ):
        matrix = pairwise(a, b)
        np.testing.assert_array_equal(matrix, metric(a[:, None], b[None, :]))
    iou = geoiou.pairwise_iou(a, b)
    assert np.all((iou >= 0) & (iou <= 1))
    giou = geoiou.pairwise_giou(a, b)
    assert np.all((giou >= -1) & (giou <= iou))


@pytest.mark.parametrize("kind", ["rotated_box3d", "oriented_box3d"])
@ci_settings(EXAMPLES)
@given(data=st.data())
def test_flat_boxes_give_no_nan(kind, data):
    """A box of no height (pytorch3d #1178's NaN): every metric against a solid box is a number; against
    another flat box only 0/0 (IoU, IoF) is NaN, which `zero_division` sets."""
    solid = data.draw(region_strategy(kind), label="solid")
    base = solid if isinstance(solid, geoiou.RotatedBox3D) else None
    flat = (
        geoiou.RotatedBox3D([*base.to_array()[:5], 0.0, base.yaw])
        if base is not None
        else geoiou.OrientedBox3D(solid.centre, solid.sizes * [1, 1, 0], solid.rotation)
    )
    other = data.draw(region_strategy(kind), label="other")
    for metric in (geoiou.iou, geoiou.giou, geoiou.diou):
        assert not math.isnan(metric(flat, other))
        assert not math.isnan(metric(other, flat))
        assert not math.isnan(metric(flat, flat, zero_division=0.0))
    assert geoiou.iof(other, flat) == 0.0
    assert geoiou.iof(flat, other, zero_division=0.0) == 0.0  # IoF divides by the flat box's volume: 0/0
    assert geoiou.intersection_area(flat, other) == 0.0
