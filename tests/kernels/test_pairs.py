"""Candidate pairs: the compiled sweep finds exactly the pairs whose bounds overlap with positive measure."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import geoiou
from geoiou.kernels.candidates import Candidates, candidate_pairs
from geoiou.kernels.pairs import bounds_overlap
from tests.strategies import ci_settings


def random_bounds(rng, n, ndim, extent, size):
    low = rng.uniform(0, extent, (n, ndim))
    high = low + rng.uniform(0, size, (n, ndim))
    bounds = np.hstack([low, high])
    bounds[rng.random(n) < 0.05] = np.nan  # empty regions
    return np.round(bounds)  # integer bounds make touching and flat bounds common


def brute_force(a, b):
    return set(zip(*np.nonzero(bounds_overlap(a[:, None], b[None, :]))))


@pytest.mark.parametrize("ndim", [1, 2])
@pytest.mark.parametrize(("extent", "size"), [(100, 10), (20, 30), (1000, 400)])
@pytest.mark.parametrize("chunk", [1, 7, 1 << 16])
def test_sweep_equals_brute_force(ndim, extent, size, chunk):
    rng = np.random.default_rng(ndim * 1000 + extent + chunk)
    a, b = random_bounds(rng, 80, ndim, extent, size), random_bounds(rng, 60, ndim, extent, size)
    found = Candidates(a, b)
    pairs = list(found.chunks(chunk))
    index_a = np.concatenate([p[0] for p in pairs]) if pairs else np.empty(0, int)
    index_b = np.concatenate([p[1] for p in pairs]) if pairs else np.empty(0, int)
    assert set(zip(index_a.tolist(), index_b.tolist())) == brute_force(a, b)
    assert len(index_a) == found.count
    assert np.all(np.diff(index_a) >= 0)  # rows in order, chunk after chunk


@ci_settings(100)
@given(st.integers(0, 2**32 - 1), st.integers(0, 30), st.integers(0, 30), st.sampled_from([1, 2]))
def test_candidate_pairs_property(seed, n, m, ndim):
    rng = np.random.default_rng(seed)
    a, b = random_bounds(rng, n, ndim, 20, 8), random_bounds(rng, m, ndim, 20, 8)
    index_a, index_b = candidate_pairs(a, b)
    assert set(zip(index_a.tolist(), index_b.tolist())) == brute_force(a, b)


@ci_settings(100)
@given(st.integers(0, 2**32 - 1), st.integers(0, 30), st.integers(0, 30), st.integers(1, 4))
def test_grouped_candidates_are_the_pairs_of_one_group(seed, n, m, groups):
    rng = np.random.default_rng(seed)
    a, b = random_bounds(rng, n, 2, 20, 8), random_bounds(rng, m, 2, 20, 8)
    group_a, group_b = rng.integers(0, groups, n), rng.integers(0, groups, m)
    index_a, index_b = candidate_pairs(a, b, group_a, group_b)
    expected = {(i, j) for i, j in brute_force(a, b) if group_a[i] == group_b[j]}
    assert set(zip(index_a.tolist(), index_b.tolist())) == expected


def test_no_bounds_and_all_empty():
    empty = np.zeros((0, 4))
    assert Candidates(empty, empty).count == 0
    nan = np.full((3, 4), np.nan)
    found = Candidates(nan, np.array([[0.0, 0, 1, 1]]))
    assert found.count == 0 and all(len(p[0]) == 0 for p in found.chunks(10))
    # Golden: two boxes that only share an edge have no candidate pair (their intersection has no area).
    assert Candidates(np.array([[0.0, 0, 1, 1]]), np.array([[1.0, 0, 2, 1]])).count == 0


def test_the_candidate_search_leaves_the_callers_bounds_alone() -> None:
    # One flat region: its (1, 1) column slices are contiguous already, and were once written through to the caller.
    bounds = np.array([[7.0, 7.0]])
    index_a, _ = candidate_pairs(bounds, np.array([[5.0, 9.0]]))
    assert len(index_a) == 0  # a point has no length to share
    np.testing.assert_array_equal(bounds, [[7.0, 7.0]])


@ci_settings(40)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from([(1000, 10), (100, 30), (50, 200), (5000, 3)]),
    st.sampled_from([1, 3, 1 << 16]),
)
def test_planar_sets_cut_into_strips_give_the_pairs_sorted_by_index(seed, scene, chunk):
    # From STRIPS_FROM regions of b, the search runs strip by strip (both axes prune); with sort_b the
    # pairs come out sorted by (index_a, index_b). Sizes from flat to taller than the strips, integer
    # bounds (touching, shared edges), empty regions, a few boxes spanning the whole scene.
    extent, size = scene
    rng = np.random.default_rng(seed)
    a, b = random_bounds(rng, 600, 2, extent, size), random_bounds(rng, 700, 2, extent, size)
    b[:3] = [[0, 0, extent, extent], [0, extent / 2, extent, extent / 2 + 1], [extent / 3, 0, extent / 3 + 1, extent]]
    found = Candidates(a, b, sort_b=True)
    parts = list(found.chunks(chunk))
    index_a, index_b = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    assert set(zip(index_a.tolist(), index_b.tolist())) == brute_force(a, b)
    assert len(index_a) == found.count
    keys = index_a * len(b) + index_b
    assert np.all(np.diff(keys) > 0)  # sorted by (index_a, index_b), no pair twice


@ci_settings(40)
@given(
    values=st.lists(st.integers(-5, 5), max_size=30).map(sorted),
    keys=st.lists(st.one_of(st.integers(-7, 7).map(float), st.just(np.nan)), max_size=200),
    after_equal=st.booleans(),
    threads=st.sampled_from([1, 2]),
)
def test_insertion_points_are_numpys_searchsorted(values, keys, after_equal, threads):
    """Many keys searched on every core: NumPy's positions (a NaN key after every value), any thread count."""
    from geoiou.kernels.sorted_search import insertion_points

    sorted_values, searched = np.array(values, dtype=np.float64), np.array(keys, dtype=np.float64)
    from geoiou import _core

    expected = np.searchsorted(sorted_values, searched, side="right" if after_equal else "left")
    geoiou.set_threads(threads)
    try:
        for split in (False, True):  # chunks by their work, then every key a chunk of its own on the pool
            _core.split_every_loop_for_tests(split)
            np.testing.assert_array_equal(insertion_points(sorted_values, searched, after_equal), expected)
    finally:
        _core.split_every_loop_for_tests(False)
        geoiou.set_threads(None)


@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("sort_b", [False, True])
def test_the_search_hands_out_the_same_pairs_on_any_threads_and_chunks(grouped, sort_b):
    # Rows are counted and written a chunk at a time on the pool: one thread, or every row a chunk of its own
    # on two threads, must give the same arrays (the order within a row is the search's, or by index_b).
    from geoiou import _core

    rng = np.random.default_rng(11)
    a, b = random_bounds(rng, 900, 2, 300, 30), random_bounds(rng, 800, 2, 300, 30)
    groups = (rng.integers(0, 5, len(a)), rng.integers(0, 5, len(b))) if grouped else (None, None)
    results = []
    for threads, split in ((1, False), (2, True), (2, False)):
        geoiou.set_threads(threads)
        _core.split_every_loop_for_tests(split)
        try:
            results.append(candidate_pairs(a, b, *groups, sort_b=sort_b))
        finally:
            _core.split_every_loop_for_tests(False)
            geoiou.set_threads(None)
    for index_a, index_b in results[1:]:
        np.testing.assert_array_equal(index_a, results[0][0])
        np.testing.assert_array_equal(index_b, results[0][1])
    assert np.all(np.diff(results[0][0]) >= 0)


def test_scatter_writes_float64_and_float32_matrices_by_bands_of_rows():
    from geoiou import _core
    from geoiou.kernels.candidates import scatter

    rng = np.random.default_rng(4)
    index_a = np.sort(rng.integers(0, 300, 50_000))
    index_b = rng.integers(0, 200, 50_000)
    values = rng.random(50_000)
    for dtype in (np.float64, np.float32):
        expected = np.zeros((300, 200), dtype=dtype)
        expected[index_a, index_b] = values  # NumPy keeps the last value of a repeated cell, as a row's order does
        _core.split_every_loop_for_tests(True)
        try:
            got = np.zeros((300, 200), dtype=dtype)
            scatter(got, index_a, index_b, values)
        finally:
            _core.split_every_loop_for_tests(False)
        np.testing.assert_array_equal(got, expected)
