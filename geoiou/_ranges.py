"""Ragged ranges: many ``arange``s laid end to end in one vectorized step (offsets of polygons, runs, lines)."""

from __future__ import annotations

import numpy as np

__all__ = ["ragged_arange"]


def ragged_arange(starts: np.ndarray | int, stops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ranges ``starts[k] .. stops[k] - 1`` laid end to end, and the range each element belongs to.

    An empty or reversed range contributes nothing.

    Examples
    --------
    >>> ragged_arange(np.array([5, 0]), np.array([7, 3]))
    (array([5, 6, 0, 1, 2]), array([0, 0, 1, 1, 1]))
    >>> ragged_arange(np.array([3]), np.array([3]))  # an empty range
    (array([], dtype=int64), array([], dtype=int64))
    """
    stops = np.asarray(stops, dtype=np.int64)
    starts = np.broadcast_to(np.asarray(starts, dtype=np.int64), stops.shape)  # a scalar start: every range's
    lengths = np.maximum(stops - starts, 0)
    owner = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    firsts = np.cumsum(lengths) - lengths
    return np.arange(owner.size, dtype=np.int64) - firsts[owner] + starts[owner], owner
