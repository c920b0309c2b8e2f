"""The compiled loops of the detection protocols against brute force, and the same bits on any number of threads."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import geoiou
from geoiou.evaluation import Annotations, evaluate_coco, evaluate_voc
from geoiou.evaluation.protocol_loops import RADIX_FROM, SWEEP_FROM, GroupCandidates, order_by_code, sort_runs_by_score
from tests.strategies import ci_settings


def brute_force_pairs(dt_bounds, dt_group, gt_bounds, gt_group):
    """Every (prediction, ground truth) pair of one group whose bounds overlap with positive measure."""
    half = dt_bounds.shape[1] // 2
    pairs = []
    for d in range(len(dt_bounds)):
        for g in range(len(gt_bounds)):
            low = np.maximum(dt_bounds[d, :half], gt_bounds[g, :half])
            high = np.minimum(dt_bounds[d, half:], gt_bounds[g, half:])
            if dt_group[d] == gt_group[g] and np.all(low < high):  # NaN compares false: never
                pairs.append((d, g))
    return sorted(pairs)


def random_bounds(rng, n, ndim, empty_share):
    low = np.round(rng.uniform(0, 20, (n, ndim)), 1)
    bounds = np.concatenate([low, low + np.round(rng.uniform(0, 6, (n, ndim)), 1)], axis=1)  # some flat (0 wide)
    bounds[rng.random(n) < empty_share] = np.nan
    return bounds


@ci_settings(60)
@given(
    seed=st.integers(0, 2**16),
    n_dt=st.integers(0, 90),
    n_gt=st.integers(0, 90),
    groups=st.integers(1, 4),
    ndim=st.sampled_from([1, 2]),
)
def test_group_candidates_are_the_overlapping_pairs_of_one_group(seed, n_dt, n_gt, groups, ndim):
    # Few groups make large ones (searched sorted by x, from SWEEP_FROM ground truths), many make small ones.
    rng = np.random.default_rng(seed)
    dt_bounds, gt_bounds = random_bounds(rng, n_dt, ndim, 0.05), random_bounds(rng, n_gt, ndim, 0.05)
    dt_group, gt_group = np.sort(rng.integers(0, groups, n_dt)), np.sort(rng.integers(0, groups, n_gt))
    found = GroupCandidates(dt_bounds, dt_group, gt_bounds, gt_group)
    dt, gt = found.of_predictions(0, n_dt)
    assert sorted(zip(dt.tolist(), gt.tolist())) == brute_force_pairs(dt_bounds, dt_group, gt_bounds, gt_group)
    assert (np.diff(dt) >= 0).all()  # by prediction
    np.testing.assert_array_equal(found.counts, np.bincount(dt, minlength=n_dt))
    # A stretch of predictions gives its own pairs.
    middle = n_dt // 2
    part_dt, _ = found.of_predictions(middle, n_dt)
    np.testing.assert_array_equal(part_dt, dt[dt >= middle])


def test_a_crowded_group_is_searched_by_x_and_finds_the_same_pairs():
    rng = np.random.default_rng(3)
    n = 5 * SWEEP_FROM
    dt_bounds, gt_bounds = random_bounds(rng, n, 2, 0.0), random_bounds(rng, n, 2, 0.0)
    found = GroupCandidates(dt_bounds, np.zeros(n, np.int64), gt_bounds, np.zeros(n, np.int64))
    dt, gt = found.of_predictions(0, n)
    expected = brute_force_pairs(dt_bounds, np.zeros(n), gt_bounds, np.zeros(n))
    assert sorted(zip(dt.tolist(), gt.tolist())) == expected


@ci_settings(40)
@given(seed=st.integers(0, 2**16), n=st.integers(0, 300), runs=st.integers(1, 8))
def test_sorting_runs_by_score_is_a_stable_sort_within_each_run(seed, n, runs):
    rng = np.random.default_rng(seed)
    score = np.round(rng.random(n), 1)  # many ties
    group = np.sort(rng.integers(0, runs, n))
    starts = np.searchsorted(group, np.arange(runs + 1)).astype(np.int64)
    order = np.arange(n)
    sort_runs_by_score(order, starts, score)
    np.testing.assert_array_equal(order, np.lexsort((-score, group)))


@ci_settings(40)
@given(codes=st.lists(st.integers(0, 40), max_size=300), extra=st.integers(0, 10))
def test_ordering_by_code_is_numpys_stable_argsort(codes, extra):
    """Counting (few codes) and NumPy's sort (codes beyond the items' count) give the same stable order."""
    array = np.array(codes, dtype=np.int64)
    for n_codes in (41 + extra, 10**6):
        np.testing.assert_array_equal(order_by_code(array, n_codes), np.argsort(array, kind="stable"))


@pytest.mark.parametrize("n", [2 * RADIX_FROM, 5000])
def test_long_runs_sorted_by_the_bits_of_their_scores_are_stable(n):
    """Runs long enough for the radix sort: negative and positive scores, 0.0 and -0.0 (equal: a tie), many ties,
    a permuted order; the result is a stable sort by decreasing score (ties keep their order)."""
    rng = np.random.default_rng(n)
    score = np.round(rng.normal(0, 1, n), 1)
    score[rng.random(n) < 0.1] = -0.0
    score[rng.random(n) < 0.05] = 0.0
    score[:3] = [5e-324, -5e-324, 1e308]  # the smallest subnormals and a huge score
    starts = np.array([0, n // 3, n], dtype=np.int64)  # a short run (merge sort) and a long one
    order = rng.permutation(n)
    expected = np.concatenate([run[np.lexsort((-score[run],))] for run in (order[: n // 3], order[n // 3 :])])
    sort_runs_by_score(order, starts, score)
    np.testing.assert_array_equal(order, expected)


def scene(seed: int):
    """Boxes over 40 images and 3 categories: enough groups and predictions for every parallel loop."""
    rng = np.random.default_rng(seed)
    n_truth, n_predicted = 400, 3000
    truth_xy = rng.uniform(0, 100, (n_truth, 2))
    truth = np.c_[truth_xy, truth_xy + rng.uniform(5, 30, (n_truth, 2))]
    source = rng.integers(0, n_truth, n_predicted)
    predicted = truth[source] + rng.normal(0, 3, (n_predicted, 4))
    predicted[:, 2:] = np.maximum(predicted[:, 2:], predicted[:, :2] + 1)
    image, category = rng.integers(0, 40, n_truth), rng.integers(0, 3, n_truth)
    return (
        Annotations(image_id=image, category_id=category, region=geoiou.Box(np.round(truth, 1)),
                    iscrowd=rng.random(n_truth) < 0.05),
        Annotations(image_id=image[source], category_id=category[source], region=geoiou.Box(np.round(predicted, 1)),
                    score=np.round(rng.random(n_predicted), 2)),
    )  # fmt: skip


@pytest.mark.parametrize("seed", range(2))
def test_evaluations_give_the_same_bits_on_one_and_two_threads(seed):
    truth, predicted = scene(seed)
    results = []
    for threads in (1, 2):
        geoiou.set_threads(threads)
        try:
            coco = evaluate_coco(truth, predicted)
            voc = evaluate_voc(truth.__class__(image_id=truth.image_id, category_id=truth.category_id,
                                               region=truth.regions), predicted)  # fmt: skip
        finally:
            geoiou.set_threads(None)
        results.append((coco, voc))
    (coco_1, voc_1), (coco_2, voc_2) = results
    for name in ("precision", "recall", "scores"):
        np.testing.assert_array_equal(getattr(coco_1, name), getattr(coco_2, name))
    np.testing.assert_array_equal(coco_1.matches.prediction_match, coco_2.matches.prediction_match)
    np.testing.assert_array_equal(voc_1.ap, voc_2.ap)
    np.testing.assert_array_equal(voc_1.matches.truth_match, voc_2.matches.truth_match)


@ci_settings(60)
@given(
    shape=st.tuples(st.integers(0, 200), st.integers(1, 10), st.integers(1, 4)),
    seed=st.integers(0, 2**16),
    threads=st.sampled_from([1, 2]),
)
def test_decided_codes_are_numpys_any_on_every_thread_count(shape, seed, threads):
    """The compiled pass gives NumPy's ``(outcome != FALSE_POSITIVE).any(axis=1)``, for any layout and threads."""
    from geoiou.evaluation.coco import decided_codes
    from geoiou.evaluation.protocol_loops import FALSE_POSITIVE

    from geoiou import _compiled

    outcome = np.random.default_rng(seed).choice(np.array([0, 0, 1, 2], dtype=np.uint8), shape)
    expected = (outcome != FALSE_POSITIVE).any(axis=1)
    geoiou.set_threads(threads)
    try:
        for work_ns in (_compiled.PARALLEL_WORK_NS, 0.0):  # the serial driver, then the parallel one
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(_compiled, "PARALLEL_WORK_NS", work_ns)
                np.testing.assert_array_equal(decided_codes(outcome), expected)
                np.testing.assert_array_equal(decided_codes(np.asfortranarray(outcome)), expected)  # any layout
    finally:
        geoiou.set_threads(None)
