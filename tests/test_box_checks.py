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
from geoiou import _core
from geoiou._validation import LARGEST_COORDINATE, SMALLEST_AREA
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


@ci_settings(200)
@given(
    st.lists(st.sampled_from(EDGES) | st.integers(-(10**3), 10**3), min_size=4, max_size=4),
    st.sampled_from(["xyxy", "xywh", "cxcywh"]),
)
def test_one_box_of_plain_numbers_is_the_array_path_s_box(numbers, fmt):
    """`Box([x1, y1, x2, y2])` is checked in one call of the crate (`plain_box`): the same acceptance, the same
    message where refused and the same bits as the same numbers given as an array."""
    plain, general = _box_or_message(numbers, fmt), _box_or_message(np.array(numbers, dtype=np.float64), fmt)
    if isinstance(general, str):
        assert plain == general
    else:
        assert isinstance(plain, geoiou.Box)
        assert plain._xyxy.tobytes() == general._xyxy.tobytes()
        assert plain._size.tobytes() == general._size.tobytes()


@pytest.mark.parametrize(
    "numbers",
    [
        [True, 0, 1, 1],  # a bool is not a plain number (the general checks decide)
        [np.float64(0), 0, 1, 1],  # nor is a NumPy scalar
        [10**400, 0, 1, 1],  # an int beyond float range
        [0.0, float("nan"), 1.0, 1.0],
        [0.0, 0.0, float("inf"), 1.0],
        [0, 0, 1],
        (0, 0, 1, 1, 2),
    ],
)
def test_what_is_not_plain_or_not_accepted_takes_the_general_checks(numbers):
    # None: the general checks decide each, and name what is wrong.
    assert _core.plain_box(numbers, "xyxy", LARGEST_COORDINATE, SMALLEST_AREA) is None
    assert _core.plain_box([0, 0, 1, 1], "polar", LARGEST_COORDINATE, SMALLEST_AREA) is None  # Box names the format


def test_one_box_of_plain_numbers_is_read_only_and_exact():
    box = geoiou.Box((1, 2.5, 4, 6))
    assert box._xyxy.tolist() == [1.0, 2.5, 4.0, 6.0] and box._size.tolist() == [3.0, 3.5]
    assert not box._xyxy.flags.writeable and not box._size.flags.writeable
    assert geoiou.Box([0.5, 0.5, 2.0, 2.0], fmt="cxcywh")._xyxy.tolist() == [-0.5, -0.5, 1.5, 1.5]


def _box_or_message(coords: object, fmt: str) -> object:
    try:
        return geoiou.Box(coords, fmt=fmt)
    except InvalidRegionError as error:
        return str(error)
