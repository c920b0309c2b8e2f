"""Python's cyclic garbage collector held off while a step makes many short-lived objects.

Building polygons through shapely makes a Python object per ring and per polygon (24,000 for a
COCO set of 12,000 polygons), alive until the step ends. Each 700 such objects start a collection
of the youngest generation, which promotes the live ones; once they are a quarter of the old
objects, the next full collection traverses every object of the process: 45-55 ms on the
benchmark VM with numba loaded, every other read of such a file. Held off for the step, the
objects die before any collection sees them.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["collection_held_off"]


@contextlib.contextmanager
def collection_held_off() -> Iterator[None]:
    """Hold off automatic garbage collection within the block (as the caller had it after: on, or left off).

    Examples
    --------
    >>> import gc
    >>> with collection_held_off():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
