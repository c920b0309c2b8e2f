"""geoiou.match: hand-worked matchings, brute-force and SciPy cross-checks, and Hypothesis properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

import geoiou
import geoiou.matching as matching_module
from geoiou.grouped_overlaps import RowBlocks, grouped_overlaps
from tests.strategies import (
    box_strategy,
    ci_settings,
    polygon_strategy,
    random_boxes,
    random_int_boxes,
    random_intervals,
    random_masks,
    random_polygons,
    random_rotated_boxes,
    rng,
    rotated_box_strategy,
)


# --------------------------------------------------------------------------- independent references
def brute_force_greedy(dense: np.ndarray, min_iou: float) -> set[tuple[int, int]]:
    """Greedy as documented, written plainly: every pair by (-IoU, i, j), taken when both are free."""
    candidates = sorted(
        (-dense[i, j], i, j)
        for i in range(dense.shape[0])
        for j in range(dense.shape[1])
        if dense[i, j] > 0 and dense[i, j] >= min_iou
    )
    used_a, used_b, pairs = set(), set(), set()
    for _, i, j in candidates:
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            pairs.add((i, j))
    return pairs


def scipy_optimal_total(dense: np.ndarray, min_iou: float) -> float:
    """The largest summed IoU by SciPy's dense assignment: pairs below `min_iou` weigh nothing."""
    weights = np.where((dense > 0) & (dense >= min_iou), dense, 0.0)
    if weights.size == 0:
        return 0.0
    rows, columns = linear_sum_assignment(weights, maximize=True)
    return float(weights[rows, columns].sum())


def dense_iou(a, b) -> np.ndarray:
    """The full IoU matrix, 0 for 0/0; a side may be a list of single regions (masks of different sizes)."""
    rows_a = a if isinstance(a, list) else [a]
    rows_b = b if isinstance(b, list) else [b]
    return np.vstack(
        [
            np.hstack([geoiou.pairwise_iou(x.reshape(-1), y.reshape(-1), zero_division=0.0) for y in rows_b])
            for x in rows_a
        ]
    )


def pairs_of(found: geoiou.Matching) -> set[tuple[int, int]]:
    return set(zip(found.index_a.tolist(), found.index_b.tolist()))


def assert_valid(found: geoiou.Matching, a, b, min_iou: float) -> None:
    """One-to-one, every pair at or above min_iou with its true IoU, unmatched = the complement."""
    size_a = sum(piece.size for piece in (a if isinstance(a, list) else [a]))
    size_b = sum(piece.size for piece in (b if isinstance(b, list) else [b]))
    assert len(set(found.index_a.tolist())) == len(found) and len(set(found.index_b.tolist())) == len(found)
    assert np.all(found.iou >= min_iou) and np.all(found.iou > 0)
    assert np.all(np.diff(found.index_a) > 0)
    np.testing.assert_array_equal(np.sort(np.r_[found.index_a, found.unmatched_a]), np.arange(size_a))
    np.testing.assert_array_equal(np.sort(np.r_[found.index_b, found.unmatched_b]), np.arange(size_b))


# --------------------------------------------------------------------------- hand-worked
def test_one_pair_and_leftovers():
    # [0,10]² vs [1,11]×[0,10]: 90 shared of 110 covered, IoU 9/11; the far boxes match nothing.
    a = geoiou.Box([[0, 0, 10, 10], [100, 100, 110, 110]])
    b = geoiou.Box([[1, 0, 11, 10], [50, 50, 60, 60], [-20, -20, -10, -10]])
    found = geoiou.match(a, b)
    assert pairs_of(found) == {(0, 0)}
    assert found.iou.tolist() == [9 / 11]
    assert found.unmatched_a.tolist() == [1] and found.unmatched_b.tolist() == [1, 2]


@pytest.mark.parametrize("method", ["greedy", "optimal"])
def test_empty_sides(method):
    empty = geoiou.Box(np.zeros((0, 4)))
    boxes = geoiou.Box([[0, 0, 1, 1], [2, 2, 3, 3]])
    for a, b, left_a, left_b in ((empty, boxes, [], [0, 1]), (boxes, empty, [0, 1], []), (empty, empty, [], [])):
        found = geoiou.match(a, b, method=method)
        assert len(found) == 0 and found.total_iou == 0.0
        assert found.unmatched_a.tolist() == left_a and found.unmatched_b.tolist() == left_b


def test_ties_go_to_the_smaller_index_in_a_then_in_b():
    # Every pair has IoU 1: greedy takes (0, 0) first, then (1, 1), then (2, 2).
    same = geoiou.Box([[0, 0, 2, 2]] * 3)
    assert pairs_of(geoiou.match(same, same)) == {(0, 0), (1, 1), (2, 2)}
    # One region of a and two of b at the same IoU 0.5 (each b half of a): b[0] wins, whichever it is.
    a = geoiou.Box([[0, 0, 2, 2]])
    halves = geoiou.Box([[0, 0, 1, 2], [1, 0, 2, 2]])
    assert pairs_of(geoiou.match(a, halves)) == {(0, 0)}
    assert pairs_of(geoiou.match(a, halves[::-1])) == {(0, 0)}
    # And two of a against one of b: a[0] wins.
    assert pairs_of(geoiou.match(halves, a)) == {(0, 0)}


def test_min_iou_is_inclusive_and_touching_never_matches():
    # [0,2] vs [0,1]: IoU exactly 1/2, matched at min_iou 0.5 and not above.
    a, b = geoiou.Interval([[0, 2]]), geoiou.Interval([[0, 1]])
    assert len(geoiou.match(a, b, min_iou=0.5)) == 1
    assert len(geoiou.match(a, b, min_iou=0.5000001)) == 0
    touching = geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[1, 0, 2, 1]])
    assert len(geoiou.match(*touching, min_iou=0.0)) == 0


def test_chain_where_greedy_and_optimal_differ():
    # IoU matrix [[0.9, 0.6], [8/11, 1/3]]: greedy takes 0.9 and stops (1/3 < 0.5); optimal takes
    # 0.6 + 8/11 = 1.327, two pairs.
    a = geoiou.Interval([[0, 10], [-2, 8]])
    b = geoiou.Interval([[0, 9], [4, 10]])
    greedy = geoiou.match(a, b, method="greedy")
    optimal = geoiou.match(a, b, method="optimal")
    assert pairs_of(greedy) == {(0, 0)} and greedy.iou.tolist() == [0.9]
    assert pairs_of(optimal) == {(0, 1), (1, 0)}
    assert optimal.total_iou == pytest.approx(0.6 + 8 / 11, abs=1e-15)
    assert optimal.method == "optimal" and optimal.min_iou == 0.5


def test_a_longer_chain_where_optimal_gains_a_pair_at_each_end():
    # a0-b0 0.9 is the best pair, but a0 also reaches b1 and b0 reaches a1 at 0.6: optimal trades
    # one 0.9 for two 0.6; beside it an independent pair a2-b2 that both keep.
    dense = np.array([[0.9, 0.6, 0.0], [0.6, 0.0, 0.0], [0.0, 0.0, 0.8]])
    rows, cols = np.nonzero(dense)
    values = dense[rows, cols]
    chosen_greedy = matching_module.greedy_assignment(rows, cols, values)
    chosen_optimal = matching_module.optimal_assignment(rows, cols, values)
    assert set(zip(rows[chosen_greedy], cols[chosen_greedy])) == {(0, 0), (2, 2)}
    assert set(zip(rows[chosen_optimal], cols[chosen_optimal])) == {(0, 1), (1, 0), (2, 2)}


def test_mixed_kinds_are_exact():
    # A 2×2 pixel block against the box around it: IoU 1. A triangle covering half of the unit
    # pixel: IoU 1/2. A rotated box against its own polygon: IoU 1.
    block = np.zeros((4, 4), dtype=bool)
    block[1:3, 1:3] = True
    masks = geoiou.Mask(np.stack([block, np.eye(4, dtype=bool)]))
    found = geoiou.match(masks, geoiou.Box([[1, 1, 3, 3]]))
    assert pairs_of(found) == {(0, 0)} and found.iou.tolist() == [1.0]
    triangle = geoiou.Polygon([(0, 0), (1, 0), (0, 1)]).reshape(1)
    assert geoiou.match(triangle, geoiou.Mask([[[True]]])).iou.tolist() == [0.5]
    rotated = geoiou.RotatedBox([[10, 10, 8, 4, 30], [40, 40, 6, 6, 10]])
    found = geoiou.match(rotated.to_polygon()[::-1], rotated)
    assert pairs_of(found) == {(0, 1), (1, 0)}
    np.testing.assert_allclose(found.iou, 1.0, rtol=1e-12)


def test_sides_of_several_batches_count_rows_in_order():
    # a: two boxes, then a polygon; b: a polygon, then a box. Rows count across the batches.
    a = [
        geoiou.Box([[0, 0, 4, 4], [10, 10, 14, 14]]),
        geoiou.Polygon([(20, 20), (24, 20), (24, 24), (20, 24)]).reshape(1),
    ]
    b = [geoiou.Polygon([(10, 10), (14, 10), (14, 14), (10, 14)]).reshape(1), geoiou.Box([[20, 20, 24, 24]])]
    found = geoiou.match(a, b)
    assert pairs_of(found) == {(1, 0), (2, 1)} and found.unmatched_a.tolist() == [0]
    assert_valid(found, a, b, 0.5)


def test_groups_keep_images_and_categories_apart():
    boxes = geoiou.Box([[0, 0, 4, 4]] * 4)
    images = ["x", "x", "y", "y"]
    categories = [1, 2, 1, 2]
    found = geoiou.match(boxes, boxes, group_a=(images, categories), group_b=(images[::-1], categories[::-1]))
    # b reversed: row 0 is (y, 2), row 3 is (x, 1); equal keys pair a[0]-b[3], a[1]-b[2], ...
    assert pairs_of(found) == {(0, 3), (1, 2), (2, 1), (3, 0)}
    by_image = geoiou.match(boxes, boxes, group_a=images, group_b=["z", "x", "z", "z"])
    assert pairs_of(by_image) == {(0, 1)}


# --------------------------------------------------------------------------- cross-checks
def scenes():
    """Seeded scenes of every kind, crowded enough for components of several regions, some with exact ties."""
    yield "int boxes", random_int_boxes(rng(1), 60, high=30), random_int_boxes(rng(2), 50, high=30)
    yield "boxes", random_boxes(rng(3), 80), random_boxes(rng(4), 70)
    yield "rotated", random_rotated_boxes(rng(5), 60), random_rotated_boxes(rng(6), 60)
    yield "polygon vs rotated", random_polygons(rng(7), 50), random_rotated_boxes(rng(8), 50)
    yield "mask vs polygon", random_masks(rng(9), 30, max_side=10), random_polygons(rng(10), 30)
    yield "intervals", random_intervals(rng(11), 80), random_intervals(rng(12), 80)


@pytest.mark.parametrize("min_iou", [0.0, 0.1, 0.3, 0.5])
@pytest.mark.parametrize("name, a, b", list(scenes()), ids=[name for name, *_ in scenes()])
def test_greedy_equals_a_brute_force_loop(name, a, b, min_iou):
    found = geoiou.match(a, b, min_iou=min_iou)
    dense = dense_iou(a, b)
    assert pairs_of(found) == brute_force_greedy(dense, min_iou)
    np.testing.assert_array_equal(found.iou, dense[found.index_a, found.index_b])
    assert_valid(found, a, b, min_iou)


@pytest.mark.parametrize("min_iou", [0.0, 0.1, 0.3, 0.5])
@pytest.mark.parametrize("name, a, b", list(scenes()), ids=[name for name, *_ in scenes()])
def test_optimal_equals_scipy_on_the_dense_matrix(name, a, b, min_iou):
    found = geoiou.match(a, b, min_iou=min_iou, method="optimal")
    dense = dense_iou(a, b)
    assert found.total_iou == pytest.approx(scipy_optimal_total(dense, min_iou), rel=1e-12, abs=1e-12)
    np.testing.assert_array_equal(found.iou, dense[found.index_a, found.index_b])
    assert_valid(found, a, b, min_iou)
    assert found.total_iou >= geoiou.match(a, b, min_iou=min_iou).total_iou - 1e-12


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_greedy_rounds_and_the_sequential_pass_agree(monkeypatch, share):
    # share 0: rounds until done; share 1: one round, then the sequential pass settles the rest.
    monkeypatch.setattr(matching_module, "GREEDY_ROUND_SHARE", share)
    for _, a, b in scenes():
        dense = dense_iou(a, b)
        assert pairs_of(geoiou.match(a, b, min_iou=0.1)) == brute_force_greedy(dense, 0.1)


def test_sliding_windows_chain():
    # Windows [k, k+2) against [k+0.5, k+2.5): every neighbouring pair has IoU 1.5/2.5 or 0.5/3.5,
    # ties everywhere; greedy by index pairs window k with window k (a chain that stalls rounds).
    n = 400
    a = geoiou.Interval(np.c_[np.arange(n), np.arange(n) + 2.0])
    b = geoiou.Interval(np.c_[np.arange(n) + 0.5, np.arange(n) + 2.5])
    dense = dense_iou(a, b)
    greedy = geoiou.match(a, b, min_iou=0.1)
    assert pairs_of(greedy) == brute_force_greedy(dense, 0.1) == {(k, k) for k in range(n)}
    optimal = geoiou.match(a, b, min_iou=0.1, method="optimal")
    assert optimal.total_iou == pytest.approx(scipy_optimal_total(dense, 0.1), rel=1e-12)


def grouped_scene(seed: int, groups: int = 12):
    gen = rng(seed)
    a = random_rotated_boxes(gen, 150, span=12.0)
    b = random_rotated_boxes(gen, 140, span=12.0)
    return a, b, gen.integers(0, groups, len(a)), gen.integers(0, groups, len(b))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_grouped_search_equals_overlaps_group_by_group(seed):
    a, b, group_a, group_b = grouped_scene(seed)
    row_a, row_b, values = grouped_overlaps(RowBlocks([a]), RowBlocks([b]), group_a, group_b, 0.0)
    expected = []
    for g in np.unique(np.r_[group_a, group_b]):
        in_a, in_b = np.flatnonzero(group_a == g), np.flatnonzero(group_b == g)
        found = geoiou.overlaps(a[in_a], b[in_b])
        expected += list(zip(in_a[found.index_a].tolist(), in_b[found.index_b].tolist(), found.iou.tolist()))
    assert sorted(zip(row_a.tolist(), row_b.tolist(), values.tolist())) == sorted(expected)
    assert len(row_a) > 50


@pytest.mark.parametrize("method", ["greedy", "optimal"])
def test_grouped_matching_equals_matching_each_group_alone(method):
    a, b, group_a, group_b = grouped_scene(4)
    together = geoiou.match(a, b, min_iou=0.1, method=method, group_a=group_a, group_b=group_b)
    alone = set()
    for g in np.unique(np.r_[group_a, group_b]):
        in_a, in_b = np.flatnonzero(group_a == g), np.flatnonzero(group_b == g)
        found = geoiou.match(a[in_a], b[in_b], min_iou=0.1, method=method)
        alone |= set(zip(in_a[found.index_a].tolist(), in_b[found.index_b].tolist()))
    if method == "greedy":
        assert pairs_of(together) == alone
    else:  # equal sums; among equal-sum matchings the solver may choose differently
        dense = geoiou.pairwise_iou(a, b)
        assert together.total_iou == pytest.approx(sum(dense[i, j] for i, j in alone), rel=1e-12)


def test_one_group_takes_the_grouped_path_and_finds_the_same_pairs():
    a, b = random_polygons(rng(13), 60), random_boxes(rng(14), 60, span=10.0)
    plain = geoiou.match(a, b, min_iou=0.2)
    grouped = geoiou.match(a, b, min_iou=0.2, group_a=np.zeros(60, int), group_b=np.zeros(60, int))
    assert pairs_of(plain) == pairs_of(grouped)
    np.testing.assert_array_equal(plain.iou, grouped.iou)


def test_empty_regions_match_nothing():
    empty_mask = geoiou.Mask(np.zeros((1, 3, 3), dtype=bool))
    assert len(geoiou.match(empty_mask, geoiou.Box([[0, 0, 3, 3]]), min_iou=0.0)) == 0
    flat = geoiou.Box([[0, 0, 0, 5]])  # zero width: no area
    found = geoiou.match([flat, geoiou.Box([[0, 0, 5, 5]])], geoiou.Box([[0, 0, 5, 5]]), min_iou=0.0)
    assert pairs_of(found) == {(1, 0)}


# --------------------------------------------------------------------------- properties
def box_batch(min_size: int = 0):
    return st.lists(box_strategy(span=12.0, max_size=8.0, integer=True), min_size=min_size, max_size=14).map(
        lambda boxes: geoiou.Box.stack(boxes) if boxes else geoiou.Box(np.zeros((0, 4)))
    )


@ci_settings(max_examples=60)
@given(a=box_batch(), b=box_batch(), min_iou=st.sampled_from([0.0, 0.2, 0.5, 0.7]))
def test_properties_of_both_methods(a, b, min_iou):
    greedy = geoiou.match(a, b, min_iou=min_iou)
    optimal = geoiou.match(a, b, min_iou=min_iou, method="optimal")
    dense = geoiou.pairwise_iou(a, b, zero_division=0.0) if len(a) and len(b) else np.zeros((len(a), len(b)))
    for found in (greedy, optimal):
        assert_valid(found, a, b, min_iou)
        np.testing.assert_array_equal(found.iou, dense[found.index_a, found.index_b])
    assert optimal.total_iou >= greedy.total_iou - 1e-12
    assert optimal.total_iou == pytest.approx(scipy_optimal_total(dense, min_iou), abs=1e-12)
    # Greedy is maximal: no two leftovers could still be paired.
    left = dense[np.ix_(greedy.unmatched_a, greedy.unmatched_b)]
    assert not np.any((left > 0) & (left >= min_iou))
    # Swapping the sides: the same best sum, and (without ties to break) the same greedy pairs.
    swapped_optimal = geoiou.match(b, a, min_iou=min_iou, method="optimal")
    assert swapped_optimal.total_iou == pytest.approx(optimal.total_iou, abs=1e-12)
    candidates = dense[(dense > 0) & (dense >= min_iou)]
    if len(np.unique(candidates)) == len(candidates):
        swapped = geoiou.match(b, a, min_iou=min_iou)
        assert pairs_of(swapped) == {(j, i) for i, j in pairs_of(greedy)}


@ci_settings(max_examples=30)
@given(
    a=st.lists(polygon_strategy(span=10.0, max_radius=6.0), min_size=1, max_size=8),
    b=st.lists(rotated_box_strategy(span=10.0, max_size=10.0), min_size=1, max_size=8),
)
def test_properties_with_polygons_against_rotated_boxes(a, b):
    a, b = geoiou.Polygon.stack(a), geoiou.RotatedBox.stack(b)
    dense = dense_iou(a, b)
    assume(np.count_nonzero(dense) > 0)
    greedy = geoiou.match(a, b, min_iou=0.1)
    assert pairs_of(greedy) == brute_force_greedy(dense, 0.1)
    optimal = geoiou.match(a, b, min_iou=0.1, method="optimal")
    assert optimal.total_iou == pytest.approx(scipy_optimal_total(dense, 0.1), abs=1e-12)


# --------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    "options, message",
    [
        ({"min_iou": 1.5}, "'min_iou' must be a number in [0, 1] (got 1.5)"),
        ({"min_iou": float("nan")}, "'min_iou' must be a number in [0, 1] (got nan)"),
        ({"min_iou": True}, "'min_iou' must be a number in [0, 1] (got True)"),
        ({"method": "hungarian"}, "'method' must be one of ('greedy', 'optimal') (got 'hungarian')"),
        ({"group_a": [1]}, "'group_b' must be given together with the other side's groups (got None)"),
        ({"group_a": [1, 2], "group_b": [1]}, "'group_a' must be one key per region, shape (1,) (got 'shape (2,)')"),
        (
            {"group_a": [1], "group_b": ["1"]},
            "'group_b' must be keys of the same type as 'group_a' (both strings or both not) (got '<U1 keys against "
            "int64')",
        ),
        (
            {"group_a": ([1], [2]), "group_b": [1]},
            "'group_b' must be as many key columns as 'group_a' (2) (got '1 columns')",
        ),
    ],
)
def test_bad_options_are_refused_with_their_name(options, message):
    box = geoiou.Box([[0, 0, 1, 1]])
    with pytest.raises(geoiou.InvalidArgumentError) as error:
        geoiou.match(box, box, **options)
    assert str(error.value) == message


def test_bad_sides_are_refused():
    with pytest.raises(geoiou.InvalidArgumentError, match="'a' must be a 1-D batch of regions"):
        geoiou.match(geoiou.Box([0, 0, 1, 1]), geoiou.Box([[0, 0, 1, 1]]))
    with pytest.raises(geoiou.InvalidArgumentError, match="'b' must be a 1-D batch of regions"):
        geoiou.match(geoiou.Box([[0, 0, 1, 1]]), [[0, 0, 1, 1]])
    with pytest.raises(geoiou.UnsupportedPairError):
        geoiou.match(geoiou.Interval([[0, 1]]), geoiou.Box([[0, 0, 1, 1]]))
