"""Symmetry: ``iou(a, b) == iou(b, a)`` bit for bit, for every pair of kinds.

Intersection and union are symmetric, but a kernel that works in the frame of its first region (the
rotated boxes) or weights shifted counts by the offset from the first region (masks on offset grids)
rounds differently when the pair is swapped. The kernels put each pair in a canonical order, so the
bits cannot depend on it. Each pair of kinds is one entry of `PAIRS`: add an entry to cover a kind.
The pair is compared as single regions (the scalar path where a kind has one) and as batches of one
(the batch kernels), and every pairwise matrix of a batch against itself must equal its transpose.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import geoiou
from strategies import ci_settings, random_masks, random_regions, region_strategy, rng, translate

#: Pairs of kinds (names of `strategies.KIND_NAMES`) whose metrics must be symmetric: every pair
#: of kinds that compare (the polygon kernel orders each pair by its polygons' vertices).
PAIRS = [
    ("box", "box"),
    ("rotated_box", "rotated_box"),
    ("box", "rotated_box"),
    ("mask", "mask"),
    ("mask", "box"),
    ("interval", "interval"),
    ("polygon", "polygon"),
    ("box", "polygon"),
    ("rotated_box", "polygon"),
    ("mask", "polygon"),
    ("mask", "rotated_box"),
    ("box3d", "box3d"),
    ("rotated_box3d", "rotated_box3d"),
    ("oriented_box3d", "oriented_box3d"),
    ("box3d", "rotated_box3d"),
    ("box3d", "oriented_box3d"),
    ("rotated_box3d", "oriented_box3d"),
]

#: The symmetric metrics; `intersection_area` is IoF's numerator (IoF itself divides by `a` alone).
METRICS = {
    "iou": geoiou.iou,
    "giou": geoiou.giou,
    "intersection": geoiou.intersection_area,
}


def bits(value: float | np.ndarray) -> np.ndarray:
    """The IEEE bits of each float (so that -0.0 and 0.0, or two NaNs, compare as what they are)."""
    return np.asarray(value, dtype=np.float64).view(np.uint64)


def assert_same_bits(value: float | np.ndarray, other: float | np.ndarray) -> None:
    np.testing.assert_array_equal(bits(value), bits(other), err_msg=f"{value!r} != {other!r}")


def pair_id(kinds: tuple[str, str]) -> str:
    return "x".join(kinds)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("kinds", PAIRS, ids=pair_id)
@ci_settings(40)
@given(data=st.data())
def test_swapping_the_pair_gives_the_same_bits(kinds, metric, data):
    a = data.draw(region_strategy(kinds[0]), label="a")
    b = data.draw(region_strategy(kinds[1]), label="b")
    measure = METRICS[metric]
    assert_same_bits(measure(a, b), measure(b, a))
    batch_a, batch_b = a.reshape(1), b.reshape(1)
    assert_same_bits(measure(batch_a, batch_b), measure(batch_b, batch_a))


@pytest.mark.parametrize("kinds", PAIRS, ids=pair_id)
@ci_settings(40)
@given(data=st.data())
def test_near_copies_are_symmetric(kinds, data):
    """A region against a slightly moved copy of itself: nearly identical frames, the hardest case."""
    if kinds[0] != kinds[1]:
        return  # a copy is of the same kind
    a = data.draw(region_strategy(kinds[0]), label="a")
    shift = data.draw(st.sampled_from([0.0, 1e-9, 0.5, 1.0, 1e-3]), label="shift")
    b = translate(a, shift, shift / 2)
    for measure in METRICS.values():
        assert_same_bits(measure(a, b), measure(b, a))


@pytest.mark.parametrize("kinds", PAIRS, ids=pair_id)
@pytest.mark.parametrize("pairwise", [geoiou.pairwise_iou, geoiou.pairwise_giou, geoiou.pairwise_intersection_area])
def test_pairwise_matrix_of_a_batch_and_its_swap_are_transposes(kinds, pairwise):
    gen = rng(sum(map(ord, pair_id(kinds))))
    a, b = random_regions(kinds[0], gen, 23), random_regions(kinds[1], gen, 17)
    assert_same_bits(pairwise(a, b), pairwise(b, a).T)
    if kinds[0] == kinds[1]:
        square = pairwise(a, a)
        assert_same_bits(square, square.T)


def test_masks_on_offset_grids_are_symmetric():
    """Masks whose origins differ by arbitrary fractions: the shifted counts are weighted by the offset."""
    masks = geoiou.Mask.stack(random_masks(rng(7), 30, origin="float", span=2, shape=(6, 5)))
    square = geoiou.pairwise_iou(masks, masks)
    assert np.count_nonzero((square > 0) & (square < 1)) > 100  # many partial overlaps on offset grids
    assert_same_bits(square, square.T)
    assert_same_bits(geoiou.pairwise_giou(masks, masks), geoiou.pairwise_giou(masks, masks).T)
