"""Binary search in compiled code (numba's own ``np.searchsorted`` takes long to compile and works on whole arrays)."""

from __future__ import annotations

import numpy as np

from geoiou._compiled import jit

__all__ = ["insertion_point"]


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
