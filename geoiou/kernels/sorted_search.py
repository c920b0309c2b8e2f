"""Binary search in the crate: many keys at once, on every core (`insertion_points`)."""

from __future__ import annotations

import numpy as np

from geoiou import _core
from geoiou._contiguous import contiguous

__all__ = ["insertion_points"]


def insertion_points(values: np.ndarray, keys: np.ndarray, after_equal: bool) -> np.ndarray:
    """``np.searchsorted(values, keys, side="right" if after_equal else "left")`` on every core, as int64: each key
    searched on its own (NumPy's search of many unsorted keys runs on one), a NaN key after every value.

    Examples
    --------
    >>> insertion_points(np.array([1.0, 2.0, 2.0, 3.0]), np.array([2.0, 0.0, np.nan]), True).tolist()
    [3, 0, 4]
    """
    return _core.insertion_points(contiguous(values), contiguous(keys), bool(after_equal))
