"""How many threads geoiou's compiled kernels use: every core by default, fewer when asked.

The limit is process-wide: `set_threads` or the ``GEOIOU_THREADS`` environment variable (read at
import: an invalid value makes ``import geoiou`` fail with a message naming it). It sizes the
crate's thread pool (`geoiou._core`) and the numba loops still outside it. Every kernel computes
each pair on its own, so a result has the same bits for any number of threads. With Dask, each
worker process runs its kernels on this many threads; give a worker ``nthreads=1`` and
``GEOIOU_THREADS=1`` when its cores are already shared out among processes.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Callable, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

from geoiou import _core
from geoiou.errors import InvalidArgumentError

__all__ = ["get_threads", "on_threads", "set_threads"]

T = TypeVar("T")

ENVIRONMENT_VARIABLE = "GEOIOU_THREADS"


def set_threads(n: int | None) -> None:
    """Limit the compiled kernels to `n` threads (None: every core the process may use).

    Parameters
    ----------
    n : int or None
        Threads per kernel call, from 1 to the cores this process may use (its CPU affinity and quota included).

    Raises
    ------
    InvalidArgumentError
        If `n` is not a whole number from 1 to the number of cores.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.set_threads(1)
    >>> geoiou.get_threads()
    1
    >>> geoiou.set_threads(None)  # back to every core
    """
    global _limit
    _limit = None if n is None else _checked(n, "n")
    _core.set_threads(_limit or 0)


def get_threads() -> int:
    """Return the number of threads a kernel call uses.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.get_threads() >= 1
    True
    """
    chosen = limit()
    return chosen if chosen is not None else _available()


def _available() -> int:
    """The cores this process may use (its CPU affinity and quota included)."""
    return _core.available_threads()


def _checked(n: object, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise InvalidArgumentError(f"'{name}' must be a whole number of threads (got {n!r})")
    available = _available()
    if not 1 <= n <= available:
        raise InvalidArgumentError(f"'{name}' must be from 1 to {available}, the cores this process may use (got {n})")
    return n


def _from_environment() -> int | None:
    value = os.environ.get(ENVIRONMENT_VARIABLE)
    if value is None or not value.strip():
        return None
    try:
        n = int(value)
    except ValueError:
        raise InvalidArgumentError(
            f"the environment variable {ENVIRONMENT_VARIABLE} must be a whole number of threads (got {value!r})"
        ) from None
    return _checked(n, ENVIRONMENT_VARIABLE)


def limit() -> int | None:
    """The limit set by `set_threads` or ``GEOIOU_THREADS``, or None (every core); read by the numba loops."""
    return _limit


_limit = _from_environment()
_core.set_threads(_limit or 0)


def on_threads(task: Callable[[int], T], count: int) -> list[T]:
    """``[task(0), ..., task(count - 1)]``, each on a thread of a pool kept for the process (one task: here).

    For compiled passes that release the GIL, such as a reader's pieces of a file. The pool is made
    on first use and kept: starting threads for each call cost a few milliseconds a call on this
    project's benchmark machine, as much as a piece of a small file takes to read. A child process
    made by ``fork`` makes a pool of its own (the parent's threads do not exist there).

    Examples
    --------
    >>> on_threads(lambda k: k * k, 3)
    [0, 1, 4]
    """
    if count == 1:
        return [task(0)]
    return list(_pool(count).map(task, range(count)))


_pool_lock = threading.Lock()
_shared: ThreadPoolExecutor | None = None


def _pool(count: int) -> ThreadPoolExecutor:
    """The process's pool, with `count` workers at least."""
    from concurrent.futures import ThreadPoolExecutor  # 3 ms to import: loaded by the first reader that uses it

    global _shared
    with _pool_lock:
        if _shared is None or _shared._max_workers < count:
            if _shared is not None:
                _shared.shutdown(wait=False)
            _shared = ThreadPoolExecutor(max(count, _available()), thread_name_prefix="geoiou")
        return _shared


def _forget_pool() -> None:
    global _shared, _pool_lock
    _shared, _pool_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)
