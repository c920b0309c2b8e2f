"""Binary search in compiled code (numba's own ``np.searchsorted`` takes long to compile and works on whole arrays)."""

from __future__ import annotations

import numpy as np

from geoiou._compiled import PARALLEL_MIN, jit, prange, use_threads

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
    use_threads(len(keys))
    _insertion_points(values, np.ascontiguousarray(keys), np.bool_(after_equal), points)
    return points


@jit(parallel=True)
def _insertion_points(values: np.ndarray, keys: np.ndarray, after_equal: np.bool_, points: np.ndarray) -> None:
    n, size = keys.shape[0], values.shape[0]

    def point(k: int) -> None:
        key = keys[k]
        points[k] = size if key != key else insertion_point(values, 0, size, key, after_equal)  # NaN: last

    if n < PARALLEL_MIN:
        for k in range(n):
            point(k)
    else:
        for k in prange(n):  # each key on its own
            point(k)
