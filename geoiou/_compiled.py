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
- Starting a parallel loop wakes the pool's threads, which wait passively (below): measured at
  50 to 100 µs a loop on a shared 2-core VM, the work of 25,000 box pairs. Each kernel therefore
  has two drivers, a serial one (``for k in range(n)``) and a parallel one (``for k in
  prange(n)``), both calling the same per-item function (so the bits do not depend on the
  driver), and `in_parallel` picks the parallel one only when the loop's work (items times the
  kernel's cost per item) is worth a few such starts. A parallel driver is compiled when it is
  first used, so small inputs never pay its compilation (about a second each).
- Inside a parallel function, arrays are made with ``np.empty`` and filled by the loop: numba
  turns ``np.zeros`` and array expressions there into parallel loops of their own, each starting
  the thread pool (tens of microseconds with passive threads).
- `in_parallel` also applies geoiou's thread limit to the calling thread (numba's thread count is
  per calling thread); with a limit of one thread every loop runs serially.
- A large output that a parallel loop (or the tokenizer's threads) will write is made by NumPy
  and its pages touched by the calling thread first (`prefaulted`): pages that several threads
  touch first at once fault in far slower (measured here: 58 MB of box corners written by two
  threads in 40 ms, against 6 ms with the pages touched first), the kernel's memory lock taken
  by one fault at a time.
"""

from __future__ import annotations

import os
from typing import Any, Callable, TypeVar, cast, overload

import numba

from geoiou import threads
from geoiou._pages import PREFAULT_BYTES, prefaulted

__all__ = [
    "PARALLEL_MIN",
    "PREFAULT_BYTES",
    "PARALLEL_WORK_NS",
    "in_parallel",
    "in_parallel_items",
    "jit",
    "prange",
    "prefaulted",
    "use_threads",
]

#: Items from which a driver loop that takes the thread count from `use_threads` runs on every core.
PARALLEL_MIN = 64
#: Nanoseconds of one thread's work from which a loop runs on every core (`in_parallel`): several
#: times the 50-100 µs that waking the passive pool costs, so the start is a small part of the loop.
#: Read at each call (tests set it to 0 to run every parallel driver on tiny inputs).
PARALLEL_WORK_NS = 300_000.0

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


def in_parallel(items: int, cost_ns: float) -> bool:
    """Whether a loop over `items` that cost about `cost_ns` each should run on every core.

    True when its work reaches `PARALLEL_WORK_NS` and more than one thread may be used; the thread
    limit (`geoiou.set_threads`) is then applied to the calling thread for the loop.
    """
    return items * cost_ns >= PARALLEL_WORK_NS and items >= 2 and _threads_applied()


def in_parallel_items(items: int) -> bool:
    """Whether a loop over `items` whose cost is unknown ahead (groups, categories) runs on every core: from
    `PARALLEL_MIN` items when more than one thread may be used; the thread limit is then applied, as by
    `in_parallel`."""
    return items >= PARALLEL_MIN and _threads_applied()


def _threads_applied() -> bool:
    """Whether more than one thread may be used; if so, the limit is applied to the calling thread's next loop."""
    wanted = _wanted_threads()
    if wanted == 1:
        return False
    if numba.get_num_threads() != wanted:
        numba.set_num_threads(wanted)
    return True


def _wanted_threads() -> int:
    wanted = threads.limit()
    return int(config.NUMBA_NUM_THREADS) if wanted is None else wanted


def use_threads(items: int) -> None:
    """Apply geoiou's thread limit (`geoiou.set_threads`) to the calling thread's next parallel loop, over `items`."""
    if items < PARALLEL_MIN:
        return  # the loop runs on the calling thread
    wanted = _wanted_threads()
    if numba.get_num_threads() != wanted:
        numba.set_num_threads(wanted)
