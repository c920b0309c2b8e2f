"""Arrays as the compiled core reads them: C-contiguous, aligned, of the dtype it names.

The crate (`geoiou._core`) views NumPy arrays without copying, which needs their elements in
order and aligned; a region's own arrays already are. Arrays that arrive another way (a strided
view, a buffer unpickled by Dask at an odd offset) are copied once here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["contiguous"]


def contiguous(values: Any, dtype: Any = np.float64) -> np.ndarray:
    """`values` as a C-contiguous, aligned array of `dtype` (itself when it already is one).

    Examples
    --------
    >>> import numpy as np
    >>> table = np.arange(6.0).reshape(2, 3)
    >>> contiguous(table) is table, contiguous(table[:, :2]).flags.c_contiguous
    (True, True)
    """
    array = np.asarray(values, dtype=dtype)
    flags = array.flags
    if flags.c_contiguous and flags.aligned:
        return array
    return np.array(array, dtype=dtype, order="C")  # a fresh array is aligned
