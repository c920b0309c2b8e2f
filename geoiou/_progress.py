"""Progress bars (tqdm): over the blocks of long computations, the items of evaluations and the phases of reads.

Off unless asked for (`progress_steps`) or, for evaluations and reads, drawn only on a terminal
(`progress`, `Phases`); tqdm is imported only when a bar is drawn.
"""

from __future__ import annotations

import sys
from collections.abc import Sized
from typing import IO, Iterable, Iterator, TypeVar

__all__ = ["Phases", "progress", "progress_steps"]

T = TypeVar("T")


def progress_steps(starts: range, *, enabled: bool, rows: int, label: str, unit: str = "row") -> Iterator[int]:
    """Yield the block starts of `starts`, advancing a tqdm bar on stderr by each block's size when `enabled`.

    `rows` is the total the blocks cover (the last block may be short). With `enabled` False this
    is `starts` itself: no bar, no import of tqdm.

    Examples
    --------
    >>> list(progress_steps(range(0, 10, 4), enabled=False, rows=10, label="rows"))
    [0, 4, 8]
    """
    if not enabled:
        yield from starts
        return
    from tqdm.auto import tqdm

    with tqdm(total=rows, desc=label, unit=unit, unit_scale=True) as bar:
        for start in starts:
            yield start
            bar.update(min(starts.step, rows - start))


def progress(
    items: Iterable[T],
    *,
    total: int | None = None,
    label: str = "",
    enabled: bool | None = None,
    stream: IO[str] | None = None,
) -> Iterator[T]:
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
        total = len(items) if isinstance(items, Sized) else None
    if not enabled or not total:
        yield from items
        return
    from tqdm.auto import tqdm  # imported only when a bar is drawn

    yield from tqdm(items, total=total, desc=label, file=stream, mininterval=0.1, leave=True)


class Phases:
    """A bar over the named phases of one long step (reading a large file: parse, check, build regions).

    Drawn like `progress`: on a terminal only, unless `enabled` says otherwise.

    Examples
    --------
    >>> with Phases("reading results.json", 2, enabled=False) as phases:
    ...     phases.done("parsed JSON")
    ...     phases.done("regions")
    """

    def __init__(self, label: str, total: int, *, enabled: bool | None = None, stream: IO[str] | None = None) -> None:
        stream = sys.stderr if stream is None else stream
        if enabled is None:
            enabled = bool(getattr(stream, "isatty", lambda: False)())
        self._bar = None
        if enabled:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, desc=label, file=stream, unit="step", leave=True)

    def done(self, phase: str) -> None:
        """Mark `phase` finished."""
        if self._bar is not None:
            self._bar.set_postfix_str(phase, refresh=False)
            self._bar.update(1)

    def __enter__(self) -> Phases:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.close()
