"""Progress bars (tqdm) for long computations over blocks: off unless asked for."""

from __future__ import annotations

from typing import Iterator

__all__ = ["progress_steps"]


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
