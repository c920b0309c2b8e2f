"""Two single regions give the bits of the same pair as batches of one.

A single pair is a batch of one: the metrics hand the kernel index arrays of length one, so the
two must agree bit for bit (a NaN is any NaN).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import geoiou
from geoiou import _compiled, _core
from geoiou.dispatch import find_kernel
from geoiou.kernels.formulas import MEASURE, MEASURED, Pairs
from tests.strategies import ci_settings, region_strategy

#: Pairs of kinds checked here (Box × RotatedBox by promotion).
SCALAR_PAIRS = [("box", "box"), ("interval", "interval"), ("rotated_box", "rotated_box"), ("box", "rotated_box")]

METRICS = {
    "iou": geoiou.iou,
    "giou": geoiou.giou,
    "giou_hull": lambda a, b: geoiou.giou(a, b, enclosure="hull"),
    "giou_box": lambda a, b: geoiou.giou(a, b, enclosure="box"),
    "iof": geoiou.iof,
    "diou": geoiou.diou,
    "intersection": geoiou.intersection_area,
    "union": geoiou.union_area,
    "enclosure": geoiou.enclosure_area,
}


def intersection_area(*numbers: float) -> float:
    """The crate's single-pair entry on two rotated boxes ``(cx, cy, w, h, angle)``: the pair's measure."""
    return _core.rotated_single(np.array(numbers[:5]), np.array(numbers[5:]), MEASURE, 0.0)


def hull_area(*numbers: float) -> float:
    """The crate's pass on the one pair of two rotated boxes ``(cx, cy, w, h, angle)``: their hull's area."""
    out, first = np.empty(1), np.zeros(1, dtype=np.int64)
    _core.rotated_pairs(np.array([numbers[:5]]), np.array([numbers[5:]]), True, Pairs(first, first), MEASURED, out)
    return float(out[0])


def assert_same_bits(single: float, batch: np.ndarray) -> None:
    assert isinstance(single, float)
    value = float(np.asarray(batch).reshape(-1)[0])
    if math.isnan(single) or math.isnan(value):
        assert math.isnan(single) and math.isnan(value), (single, value)
    else:
        assert np.float64(single).view(np.uint64) == np.float64(value).view(np.uint64), (single, value)


def test_one_compiled_kernel_serves_single_pairs_and_batches():
    # Golden: every built-in kind's kernel is in the pairs form; no single-pair twin exists.
    for kind in (geoiou.Box, geoiou.Interval, geoiou.RotatedBox, geoiou.Polygon, geoiou.Mask):
        assert find_kernel(kind, kind).kernel is not None
    for measure in ("intersection", "hull"):
        assert find_kernel(geoiou.RotatedBox, geoiou.RotatedBox, measure=measure).kernel is not None


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("kinds", SCALAR_PAIRS, ids="x".join)
@ci_settings(40)
@given(data=st.data())
def test_single_pairs_equal_batches_of_one(kinds, metric, data):
    a, b = data.draw(region_strategy(kinds[0]), label="a"), data.draw(region_strategy(kinds[1]), label="b")
    measure = METRICS[metric]
    assert_same_bits(measure(a, b), measure(a.reshape(1), b.reshape(1)))


#: Pairs of kinds measured by a compiled pair kernel for one pair and for many alike (the polygon kernels).
COMPILED_PAIRS = [("polygon", "polygon"), ("rotated_box", "polygon"), ("polygon", "box")]


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("kinds", COMPILED_PAIRS, ids="x".join)
@ci_settings(25)
@given(data=st.data())
def test_single_polygon_pairs_give_the_bits_of_a_pairwise_matrix(kinds, metric, data):
    """One pair runs on the calling thread; a matrix of many pairs in the parallel loop: the same bits."""
    a, b = data.draw(region_strategy(kinds[0]), label="a"), data.draw(region_strategy(kinds[1]), label="b")
    measure = METRICS[metric]
    assert_same_bits(measure(a, b), measure(a.reshape(1), b.reshape(1)))
    # 9 × 8 pairs (at least PARALLEL_MIN), with no work threshold: the matrix runs in the parallel loop.
    batch_a, batch_b = type(a).concatenate([a.reshape(1)] * 9), type(b).concatenate([b.reshape(1)] * 8)
    pairwise = {"iou": geoiou.pairwise_iou, "intersection": geoiou.pairwise_intersection_area}.get(metric)
    if pairwise is not None:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_compiled, "PARALLEL_WORK_NS", 0.0)
            matrix = pairwise(batch_a, batch_b)
        assert np.all(matrix.view(np.uint64) == np.float64(measure(a, b)).view(np.uint64))


@pytest.mark.parametrize("zero_division", [math.nan, 0.0, 1.0])
def test_empty_single_pairs_follow_zero_division(zero_division):
    empty = geoiou.Box([2, 2, 2, 2])  # 0/0: the union is empty
    assert_same_bits(
        geoiou.iou(empty, empty, zero_division=zero_division),
        geoiou.iou(empty.reshape(1), empty.reshape(1), zero_division=zero_division),
    )
    line = geoiou.RotatedBox([0, 0, 0, 3, 30])
    assert_same_bits(
        geoiou.iof(line, line, zero_division=zero_division),
        geoiou.iof(line.reshape(1), line.reshape(1), zero_division=zero_division),
    )


@st.composite
def rotated_pairs(draw) -> tuple[np.ndarray, np.ndarray]:
    """Two rotated boxes, often related: identical, moved by an ulp-sized step, parallel, far from the origin."""
    scale = draw(st.sampled_from([1.0, 1e-3, 1e6, 1e9]))
    centre = np.array([draw(st.floats(-20, 20)), draw(st.floats(-20, 20))]) * scale
    size = np.array([draw(st.floats(0, 15)), draw(st.floats(0, 15))])
    angle = draw(st.one_of(st.sampled_from([0.0, 30.0, 45.0, 90.0, -90.0, 180.0]), st.floats(-720, 720)))
    a = np.array([*centre, *size, angle])
    relation = draw(st.sampled_from(["any", "same", "shifted", "parallel", "turned"]))
    if relation == "same":
        b = a.copy()
    elif relation == "shifted":
        b = a + np.array([draw(st.sampled_from([1e-12, 1e-6, 0.5])) * max(1.0, scale), 0, 0, 0, 0])
    elif relation in ("parallel", "turned"):
        b = np.array(
            [
                *(centre + [draw(st.floats(-10, 10)), draw(st.floats(-10, 10))]),
                draw(st.floats(0, 15)),
                draw(st.floats(0, 15)),
                angle + (90.0 * draw(st.integers(-4, 4)) if relation == "turned" else 0.0),
            ]
        )
    else:
        b = np.array(
            [
                *(centre + [draw(st.floats(-20, 20)), draw(st.floats(-20, 20))]),
                draw(st.floats(0, 15)),
                draw(st.floats(0, 15)),
                draw(st.floats(-720, 720)),
            ]
        )
    return a, b


def unchecked_boxes(coords: np.ndarray) -> geoiou.RotatedBox:
    """Rotated boxes over `coords` without the constructor's checks (the strategy draws subnormal sizes too)."""
    return geoiou.RotatedBox._from_fields(_coords=np.array(coords, dtype=np.float64))


@ci_settings(300)
@given(pair=rotated_pairs())
def test_rotated_pairs_give_the_same_bits_alone_swapped_and_anywhere_in_a_batch(pair):
    a, b = pair
    batch_a, batch_b = np.stack([a, b, a, b, a] * 200), np.stack([b, a, a, b, b] * 200)  # the parallel loop too
    for measure, single in (("intersection", intersection_area), ("hull", hull_area)):
        kernel = find_kernel(geoiou.RotatedBox, geoiou.RotatedBox, measure=measure)
        batch = kernel(unchecked_boxes(batch_a), unchecked_boxes(batch_b))
        for k in range(5):
            assert_same_bits(single(*batch_a[k], *batch_b[k]), batch[k : len(batch) : 5])
            assert np.unique(batch[k : len(batch) : 5].view(np.uint64)).size == 1
            assert_same_bits(float(kernel(unchecked_boxes(batch_a[k]), unchecked_boxes(batch_b[k]))), batch[k : k + 1])
        assert_same_bits(single(*a, *b), batch[1:2])  # (a, b) and (b, a)


def test_rotated_single_pair_golden_values():
    square = [0.5, 0.5, 1, 1, 0]
    # Half of the unit square: the shifted square covers x in [0.5, 1.5].
    assert intersection_area(*square, 1.0, 0.5, 1, 1, 0) == 0.5
    # A square turned by 45 degrees about the same centre: the octagon of area 2(sqrt 2 - 1).
    assert intersection_area(*square, 0.5, 0.5, 1, 1, 45) == pytest.approx(2 * (math.sqrt(2) - 1))
    # Two unit squares two apart: the hull is the 1 x 3 rectangle.
    assert hull_area(*square, 2.5, 0.5, 1, 1, 0) == 3.0
    assert geoiou.iou(geoiou.RotatedBox([3, 4, 2, 1, 33]), geoiou.RotatedBox([3, 4, 2, 1, 33])) == 1.0


def test_a_rotated_pair_built_for_giou_is_not_reused_after_its_coordinates_change():
    """GIoU reuses the pair it built for the intersection; a box over a caller's array that changed is built anew."""
    coords = np.array([0.5, 0.5, 1.0, 1.0, 0.0])
    box, other = geoiou.RotatedBox(coords), geoiou.RotatedBox([2.5, 0.5, 1, 1, 0])
    # Side by side one apart: no overlap, hull 1 x 3 (GIoU 0 - (3 - 2) / 3).
    assert geoiou.giou(box, other) == pytest.approx(-1 / 3, rel=1e-15)
    coords[0] = 1.5  # the box now touches the other one: hull 1 x 2, the union itself
    assert geoiou.giou(box, other) == 0.0


SPECIAL_ROTATED = [
    [0, 0, 0, 3, 30],
    [0, 0, 2, 2, 0],
    [0, 0, 2, 2, 90],
    [0.5, 0, 2, 2, 0],
    [1, 0, 2, 2, 180],
    [1, 1, 0, 0, 0],
    [3, 3, 2, 1, 33],
    [3, 3, 2, 1, 33],
]


def assert_same_matrix_bits(ours: np.ndarray, reference: np.ndarray) -> None:
    nan = np.isnan(reference)
    np.testing.assert_array_equal(np.isnan(ours), nan)
    np.testing.assert_array_equal(ours[~nan].view(np.uint64), reference[~nan].view(np.uint64))


@ci_settings(60)
@given(st.integers(0, 10_000), st.integers(1, 12), st.integers(1, 12), st.sampled_from([0.0, 1.0, math.nan]))
def test_small_pairwise_batches_give_the_bits_of_elementwise_pairs(seed, n, m, zero_division):
    """Pairwise matrices of small rotated batches (pruned by bounds or not) are the bits of the same pairs elementwise.

    Special boxes (a segment, parallel, turned and half-turned squares, a point, twins) are mixed in.
    """
    gen = np.random.default_rng(seed)
    coords = np.concatenate([gen.uniform([-6, -6, 0.5, 0.5, -180], [6, 6, 6, 6, 180], (n + m, 5)), SPECIAL_ROTATED])
    gen.shuffle(coords)
    a, b = geoiou.RotatedBox(coords[: n + 4]), geoiou.RotatedBox(coords[n + 4 :])
    metrics = (geoiou.pairwise_iou, geoiou.pairwise_iof)
    elementwise = (geoiou.iou, geoiou.iof)
    for metric, pairs in zip(metrics, elementwise):
        ours = metric(a, b, zero_division=zero_division)
        assert_same_matrix_bits(ours, pairs(a[:, None], b[None, :], zero_division=zero_division))
