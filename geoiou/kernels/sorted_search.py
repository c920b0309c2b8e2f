"""Binary search in compiled code (numba's own ``np.searchsorted`` takes long to compile and works on whole arrays)."""

from __future__ import annotations

import numpy as np

from geoiou._compiled import in_parallel, jit, prange

__all__ = ["insertion_point", "insertion_points"]


@jit
def insertion_point(values: np.ndarray, lo: int, hi: int, key: float, after_equal: bool | np.bool_) -> int:
    """Where `key` goes in the sorted ``values[lo:hi]``, as a position from `lo` to `hi`: after the values equal
    to it with `after_equal` (``np.searchsorted(..., side="right")``), else before them (``side="left"``).

    Pass `after_equal` as ``np.bool_``: numba compiles a copy of a function for each literal ``True`` or ``False``.

    Examples
    --------
    >>> values = np.array([1.0, 2.0, 2.0, 3.0])
    >>> insertion_point(values, 0, 4, 2.0, np.bool_(False)), insertion_point(values, 0, 4, 2.0, np.bool_(True))
    (1, 3)
    """
    low, high = lo, hi
    while low < high:
        middle = (low + high) // 2
        if values[middle] < key or (after_equal and values[middle] == key):
            low = middle + 1
        else:
            high = middle
    return low


def insertion_points(values: np.ndarray, keys: np.ndarray, after_equal: bool) -> np.ndarray:
    """``np.searchsorted(values, keys, side="right" if after_equal else "left")`` on every core, as int64: each key
    searched on its own (NumPy's search of many unsorted keys runs on one), a NaN key after every value.

    Examples
    --------
    >>> insertion_points(np.array([1.0, 2.0, 2.0, 3.0]), np.array([2.0, 0.0, np.nan]), True).tolist()
    [3, 0, 4]
    """
    points = np.empty(len(keys), dtype=np.int64)
    keys, side = np.ascontiguousarray(keys), np.bool_(after_equal)
    if in_parallel(len(keys), SEARCH_COST_NS):
        _points_parallel(values, keys, side, points)
    else:
        _points(values, keys, side, points, 0, len(keys))
    return points


#: Nanoseconds a key's search costs on one thread (cache misses in a large table), for `in_parallel`.
SEARCH_COST_NS = 50.0
#: Keys per iteration of the parallel loop (a call taking arrays counts references: once a run).
KEYS_A_STEP = 1024


@jit
def _points(values: np.ndarray, keys: np.ndarray, after_equal: np.bool_, points: np.ndarray, begin: int,
            end: int) -> None:  # fmt: skip
    """`insertion_points` of the keys ``begin <= k < end``."""
    size = values.shape[0]
    for k in range(begin, end):
        key = keys[k]
        points[k] = size if key != key else insertion_point(values, 0, size, key, after_equal)  # NaN: last


@jit(parallel=True)
def _points_parallel(values: np.ndarray, keys: np.ndarray, after_equal: np.bool_, points: np.ndarray) -> None:
    n = keys.shape[0]
    for step in prange((n + KEYS_A_STEP - 1) // KEYS_A_STEP):  # runs of keys: each key on its own
        _points(values, keys, after_equal, points, step * KEYS_A_STEP, min(n, (step + 1) * KEYS_A_STEP))
