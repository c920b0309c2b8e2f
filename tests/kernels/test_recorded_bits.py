"""The kernels give the bits recorded from the numba engine, for every metric and pair of kinds.

`tests/data/kernel_bits.npz` holds a corpus of regions of every kind (random, degenerate and far
from the origin: `kernel_bits`) and what each metric gave them before the kernels moved to the
Rust crate. Equal bits, signed zeros and NaNs included: the move changed no number.
"""

from __future__ import annotations

import numpy as np
import pytest
from kernel_bits import computed, load, same_bits

INPUTS, RECORDED = load()


@pytest.fixture(scope="module")
def outputs() -> dict[str, np.ndarray]:
    return computed(INPUTS)


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_the_recorded_bits_are_given_again(key: str, outputs: dict[str, np.ndarray]) -> None:
    expected, got = RECORDED[key], outputs[key]
    assert np.shape(got) == expected.shape, f"{key}: shape {np.shape(got)}, recorded {expected.shape}"
    if not same_bits(expected, got):
        differ = np.flatnonzero(expected.view(np.uint64).ravel() != np.asarray(got, np.float64).view(np.uint64).ravel())
        shown = [(int(k), float(expected.ravel()[k]), float(np.ravel(got)[k])) for k in differ[:5]]
        pytest.fail(f"{key}: {len(differ)} of {expected.size} values differ (position, recorded, now): {shown}")
