"""The compiled checks of large Box batches: they accept exactly what the NumPy checks accept, with the same bits.

A batch the compiled pass does not accept goes through the NumPy checks, which name the box at
fault: so each case is built twice, once below and once above `COMPILED_CHECKS_FROM`, and the two
must agree on acceptance (the same error) and on every bit of the corners and sizes.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import geoiou
from geoiou.errors import InvalidRegionError
from geoiou.regions import box as box_module
from geoiou.regions.box_checks import accepted_corners
from tests.strategies import ci_settings

#: Values that sit on the edges of what a box may hold: float64's range, the largest coordinate, sizes that round
#: away next to large coordinates, the smallest measurable area, subnormals, -0.0.
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-300, 5e-324, 2.0**-500, 2.0**-501, 2.0**508, -(2.0**508), 2.0**509, 1e16,
         1e16 + 2, 1e308, -1e308, 3.0, 7.25, 100.0]  # fmt: skip


def both_ways(array: np.ndarray, fmt: str) -> tuple[object, object]:
    """Box(array) through the NumPy checks and through the compiled pass: each a Box or the error's message."""
    outcomes = []
    for threshold in (10**9, 1):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(box_module, "COMPILED_CHECKS_FROM", threshold)
            try:
                outcomes.append(geoiou.Box(array, fmt=fmt))
            except InvalidRegionError as error:
                outcomes.append(str(error))
    return outcomes[0], outcomes[1]


def assert_same(array: np.ndarray, fmt: str) -> None:
    numpy_checked, compiled = both_ways(array, fmt)
    if isinstance(numpy_checked, str):
        assert compiled == numpy_checked
        return
    assert isinstance(compiled, geoiou.Box)
    for name in ("_xyxy", "_size"):
        ours, theirs = getattr(compiled, name), getattr(numpy_checked, name)
        assert ours.shape == theirs.shape
        assert (ours.view(np.uint64) == theirs.view(np.uint64)).all(), name
        assert not ours.flags.writeable


@ci_settings(150)
@given(
    rows=st.lists(st.lists(st.sampled_from(EDGES) | st.floats(-1e3, 1e3), min_size=4, max_size=4), min_size=1,
                  max_size=6),
    fmt=st.sampled_from(["xyxy", "xywh", "cxcywh"]),
)  # fmt: skip
def test_the_compiled_checks_accept_what_numpy_accepts(rows, fmt):
    assert_same(np.array(rows, dtype=np.float64), fmt)


@pytest.mark.parametrize("fmt", ["xyxy", "xywh", "cxcywh"])
def test_a_large_batch_gives_the_numpy_bits(fmt):
    """Many boxes (the parallel loop), in a batch of shape (2, N, 4): corners and sizes keep the batch's shape."""
    rng = np.random.default_rng(7)
    array = np.concatenate([rng.uniform(-500, 500, (2, 6000, 2)), rng.uniform(0, 90, (2, 6000, 2))], axis=-1)
    if fmt == "xyxy":
        array[..., 2:] += array[..., :2]
    assert_same(array, fmt)
    array[1, 4321, 2] = -1.0 if fmt != "xyxy" else array[1, 4321, 0] - 1  # one refused box: the same message
    assert_same(array, fmt)


def test_what_is_not_accepted_goes_to_the_numpy_checks():
    assert accepted_corners(np.array([[0.0, 0.0, 1.0, 1.0]]), "polar") is None  # an unknown format: Box names it
    assert accepted_corners(np.array([[0.0, 0.0, 1e16, 2.0]]), "xywh") is not None
    assert accepted_corners(np.array([[1e16, 0.0, 1.0, 2.0]]), "xywh") is None  # the width rounds away
    with pytest.raises(InvalidRegionError, match="a size below float64's resolution"):
        geoiou.Box(np.tile([[1e16, 0.0, 1.0, 2.0]], (box_module.COMPILED_CHECKS_FROM, 1)), fmt="xywh")


def test_one_thread_and_two_give_the_same_bits():
    """The compiled pass writes each box on its own: the corners and sizes do not depend on the threads."""
    rng = np.random.default_rng(3)
    array = np.concatenate([rng.uniform(-1e6, 1e6, (20000, 2)), rng.uniform(0, 1e3, (20000, 2))], axis=-1)
    found = {}
    for threads in (1, 2):
        geoiou.set_threads(threads)
        box = geoiou.Box(array, fmt="cxcywh")
        found[threads] = (box._xyxy.view(np.uint64).copy(), box._size.view(np.uint64).copy())
    geoiou.set_threads(None)
    assert all((a == b).all() for a, b in zip(found[1], found[2]))
