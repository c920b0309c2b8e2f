"""Progress reporting for long evaluations: a bar on a terminal, silence otherwise."""

from __future__ import annotations

import sys
import time
from typing import IO, Iterable, Iterator, TypeVar

__all__ = ["progress"]

T = TypeVar("T")


def progress(items: Iterable[T], *, total: int | None = None, label: str = "", enabled: bool | None = None,
             stream: IO[str] | None = None) -> Iterator[T]:
    """Yield `items`, drawing a progress bar on `stream` (stderr) when it is a terminal.

    Parameters
    ----------
    items : iterable
        What to iterate over.
    total : int, optional
        Number of items, if `items` has no ``len``.
    label : str
        Text before the bar.
    enabled : bool, optional
        Force the bar on or off; by default it is on only when `stream` is a terminal, so logs and
        pipes stay clean.
    stream : file, optional
        Where to draw; default ``sys.stderr``.

    Examples
    --------
    >>> list(progress(range(3), enabled=False))
    [0, 1, 2]
    >>> import io
    >>> out = io.StringIO()
    >>> list(progress([], enabled=True, stream=out, label="empty"))  # nothing to do, nothing drawn
    []
    """
    stream = sys.stderr if stream is None else stream
    if enabled is None:
        enabled = bool(getattr(stream, "isatty", lambda: False)())
    if total is None:
        total = len(items) if hasattr(items, "__len__") else None
    if not enabled or not total:
        yield from items
        return
    last_draw = 0.0
    for done, item in enumerate(items, start=1):
        yield item
        now = time.monotonic()
        if now - last_draw > 0.1 or done == total:  # redraw at most 10 times a second
            _draw(stream, label, done, total)
            last_draw = now
    stream.write("\n")
    stream.flush()


def _draw(stream: IO[str], label: str, done: int, total: int, width: int = 30) -> None:
    filled = int(width * done / total)
    stream.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    stream.flush()
