"""Arrays a reader fills and drops, kept for the next read once nothing views them.

A reader makes large arrays it drops when it is done: a file's bytes, the tokenizer's table of
tokens, the tables of a list of flat records. Fresh memory costs a page fault per 4 kB when it
is first written, which on some machines costs more than the reading itself (this project's
benchmark VM: 0.5 ms a MB, so 13 MB of results pay 6.5 ms before a byte is read). So each kind
of array is kept for the next read, as simdjson's parser keeps its buffers: a reader takes views
of the kept arrays when they are large enough and nothing else views them any more (a view
holds a reference to its array: a reference count tells), and new arrays otherwise, which are
kept instead when they fit `LIMIT_BYTES`. Results never alias them: the readers' columns are
copies. `release` lets them go.

Examples
--------
>>> table = KeptArrays((np.uint8, np.int64))
>>> kind, value = table.take((2, 3))
>>> kind.shape, value.dtype.name
((2, 3), 'int64')
>>> table.take((1,))[0].base is kind.base  # `kind` still views them: new arrays
False
>>> del kind, value
>>> kept = id(table.take((4,))[0].base)  # the newer arrays are kept now, and nothing views them
>>> id(table.take((4,))[0].base) == kept
True
"""

from __future__ import annotations

import sys
import threading
import weakref
from typing import Any

import numpy as np

__all__ = ["LIMIT_BYTES", "KeptArrays", "release"]

#: Arrays of one `KeptArrays` are kept when together at most this large.
LIMIT_BYTES = 64 << 20

_every: weakref.WeakSet[KeptArrays] = weakref.WeakSet()


class KeptArrays:
    """Arrays of the given dtypes, one of each, kept between reads (see the module).

    Parameters
    ----------
    dtypes : tuple of dtype
        One array of each is handed out by `take`.
    """

    def __init__(self, dtypes: tuple[Any, ...]) -> None:
        self.dtypes = tuple(np.dtype(dtype) for dtype in dtypes)
        self._kept: tuple[np.ndarray, ...] | None = None
        self._lock = threading.Lock()
        _every.add(self)

    def take(self, shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
        """Arrays of `shape`, one per dtype, their values unset: views of the kept ones when they are large enough
        and unused, else new arrays whose pages the calling thread touched first (`prefaulted`)."""
        from geoiou._compiled import prefaulted  # numba: loaded by the first read, not by `import geoiou.io`

        size = int(np.prod(shape))
        with self._lock:  # the views exist before another caller can find the arrays unused
            arrays = self._kept
            if arrays is None or arrays[0].size < size or not _unused(arrays):
                arrays = tuple(prefaulted(np.empty(size, dtype)) for dtype in self.dtypes)
                if sum(array.nbytes for array in arrays) <= LIMIT_BYTES:
                    self._kept = arrays
            return tuple(array[:size].reshape(shape) for array in arrays)

    def release(self) -> None:
        """Let the kept arrays go (those in use stay with their users)."""
        with self._lock:
            self._kept = None


def release() -> None:
    """Let every kept array go: the memory of the largest file read so far returns to the system.

    Examples
    --------
    >>> release()
    """
    for kept in list(_every):
        kept.release()


def _unused(arrays: tuple[np.ndarray, ...]) -> bool:
    """Whether nothing but `arrays` refers to its arrays (a view of an array refers to it)."""
    for array in arrays:
        if sys.getrefcount(array) > 3:  # the tuple, the loop's variable and `getrefcount`'s argument
            return False
    return True
