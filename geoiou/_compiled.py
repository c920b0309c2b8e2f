"""How geoiou's kernels are compiled: numba loops, compiled on first use and cached on disk.

Only kernel modules import this module (and so numba): ``import geoiou`` stays light, and a
kernel family costs its compilation once per install (numba's cache sits in ``__pycache__`` beside
the module, or in numba's user-wide cache directory when the package directory is read-only, or
in ``NUMBA_CACHE_DIR``).

Conventions every kernel follows:

- ``jit`` compiles lazily (no signatures), with ``cache=True``, NumPy's division semantics
  (``error_model="numpy"``: 1/0 is inf, 0/0 NaN, as the NumPy code gave) and no fast-math, so the
  float operations happen exactly as written.
- A parallel loop (``prange``) computes each pair (row, candidate) on its own and writes only its
  own output cells: the result has the same bits for any number of threads.
- Before calling a parallel loop, a kernel calls `use_threads` (numba's thread count is per
  calling thread).
"""

from __future__ import annotations

import os
from typing import Any, Callable, TypeVar, overload

import numba

from geoiou import threads

__all__ = ["jit", "prange", "use_threads"]

prange = numba.prange

# numba's default "workqueue" layer aborts when two Python threads (a Dask worker's, a user's) run
# parallel loops at once; "threadsafe" takes TBB or OpenMP, both safe for concurrent callers.
if "NUMBA_THREADING_LAYER" not in os.environ:
    numba.config.THREADING_LAYER = "threadsafe"

F = TypeVar("F", bound=Callable[..., Any])


@overload
def jit(function: F, *, parallel: bool = False) -> F: ...


@overload
def jit(function: None = None, *, parallel: bool = False) -> Callable[[F], F]: ...


def jit(function: F | None = None, *, parallel: bool = False) -> Any:
    """Compile `function` with geoiou's conventions (see the module docstring); use as ``@jit`` or ``@jit(parallel=True)``.

    To type checkers the compiled function keeps the signature of the Python one.
    """
    decorator = numba.njit(cache=True, nogil=True, parallel=parallel, error_model="numpy", fastmath=False)
    return decorator if function is None else decorator(function)


def use_threads() -> None:
    """Apply geoiou's thread limit (`geoiou.set_threads`) to the parallel loops the calling thread runs next."""
    wanted = threads.limit()
    if wanted is None:
        wanted = numba.config.NUMBA_NUM_THREADS
    if numba.get_num_threads() != wanted:
        numba.set_num_threads(wanted)
