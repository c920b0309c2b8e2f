"""Binary search in compiled code: many keys at once in the crate (`insertion_points`, on every core), and one
key in numba code (`insertion_point`, for the polygon kernel's numba loops until they move to the crate)."""

from __future__ import annotations

import numpy as np

from geoiou import _core
from geoiou._compiled import jit
from geoiou._contiguous import contiguous

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
    return _core.insertion_points(contiguous(values), contiguous(keys), bool(after_equal))
