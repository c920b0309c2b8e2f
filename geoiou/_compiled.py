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
- Starting the thread pool costs about 2 µs, more than a few pairs' work: a driver loop runs
  ``for k in range(n)`` below `PARALLEL_MIN` items and ``for k in prange(n)`` from there, both
  calling the same per-item function (so the bits do not depend on the branch).
- Inside a parallel function, arrays are made with ``np.empty`` and filled by the loop: numba
  turns ``np.zeros`` and array expressions there into parallel loops of their own, each starting
  the thread pool (tens of microseconds with passive threads).
- Before calling a parallel loop, a kernel calls ``use_threads(n)`` (numba's thread count is per
  calling thread).
"""

from __future__ import annotations

import os
from typing import Any, Callable, TypeVar, cast, overload

import numba

from geoiou import threads

__all__ = ["PARALLEL_MIN", "jit", "prange", "use_threads"]

#: Items from which a driver loop runs on every core (below it, on the calling thread).
PARALLEL_MIN = 64

prange = numba.prange

# numba's default "workqueue" layer aborts when two Python threads (a Dask worker's, a user's) run
# parallel loops at once; "threadsafe" takes TBB or OpenMP, both safe for concurrent callers.
#: numba's settings (untyped: numba declares them at run time).
config: Any = numba.config

if "NUMBA_THREADING_LAYER" not in os.environ:
    config.THREADING_LAYER = "threadsafe"
# OpenMP's threads spin between parallel loops by default: on a machine whose cores are busy with
# other work (a Dask worker beside others, a data loader) a loop then waits for descheduled spinners,
# measured 70x slower than one thread here. Passive threads sleep instead (read when OpenMP loads,
# at the first parallel loop; a value the user set is kept).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

F = TypeVar("F", bound=Callable[..., Any])


@overload
def jit(function: F) -> F: ...


@overload
def jit(*, parallel: bool = False, inline: bool = False) -> Callable[[F], F]: ...


def jit(function: F | None = None, *, parallel: bool = False, inline: bool = False) -> F | Callable[[F], F]:
    """Compile `function` with geoiou's conventions (see the module docstring): ``@jit``, ``@jit(parallel=True)``.

    ``inline=True`` inlines the function where it is called, for the small per-pair helpers that
    take arrays: a call that is not inlined counts references to each array argument with atomic
    operations that every thread shares, which costs more than a cheap pair's arithmetic.
    The compiled function keeps the Python function's signature for the type checker.
    """
    decorator = cast(
        Callable[[F], F],
        numba.njit(
            cache=True,
            nogil=True,
            parallel=parallel,
            error_model="numpy",
            fastmath=False,
            inline="always" if inline else "never",
        ),
    )
    return decorator if function is None else decorator(function)


def use_threads(items: int) -> None:
    """Apply geoiou's thread limit (`geoiou.set_threads`) to the calling thread's next parallel loop, over `items`."""
    if items < PARALLEL_MIN:
        return  # the loop runs on the calling thread
    wanted = threads.limit()
    if wanted is None:
        wanted = config.NUMBA_NUM_THREADS
    if numba.get_num_threads() != wanted:
        numba.set_num_threads(wanted)
