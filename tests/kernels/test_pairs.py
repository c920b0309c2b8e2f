"""Candidate pairs: the x-sweep finds exactly the pairs whose bounds overlap with positive measure."""

import numpy as np
import pytest

from geoiou.kernels.pairs import SweepCandidates, bounds_overlap


def random_bounds(rng, n, ndim, extent, size):
    low = rng.uniform(0, extent, (n, ndim))
    high = low + rng.uniform(0, size, (n, ndim))
    bounds = np.hstack([low, high])
    bounds[rng.random(n) < 0.05] = np.nan  # empty regions
    return np.round(bounds)  # integer bounds make touching pairs common


@pytest.mark.parametrize("ndim", [1, 2])
@pytest.mark.parametrize(("extent", "size"), [(100, 10), (20, 30), (1000, 400)])
@pytest.mark.parametrize("chunk", [1, 7, 1 << 16])
def test_sweep_equals_brute_force(ndim, extent, size, chunk):
    rng = np.random.default_rng(ndim * 1000 + extent + chunk)
    a, b = random_bounds(rng, 80, ndim, extent, size), random_bounds(rng, 60, ndim, extent, size)
    sweep = SweepCandidates(a, b)
    pairs = [pair for pair in sweep.chunks(chunk)]
    found = set(zip(np.concatenate([p[0] for p in pairs]).tolist(), np.concatenate([p[1] for p in pairs]).tolist()))
    expected = set(zip(*np.nonzero(bounds_overlap(a[:, None], b[None, :]))))
    assert found == expected
    assert sweep.upper_bound >= len(expected)


def test_no_bounds_and_all_empty():
    empty = np.zeros((0, 4))
    assert SweepCandidates(empty, empty).upper_bound == 0
    nan = np.full((3, 4), np.nan)
    sweep = SweepCandidates(nan, np.array([[0.0, 0, 1, 1]]))
    assert sweep.upper_bound == 0 and all(len(p[0]) == 0 for p in sweep.chunks(10))
