"""The compiled loops of the diagnostics (numba, loaded on first use like the protocols' own loops).

A greedy assignment in a fixed order is sequential by nature (each take depends on the earlier
ones); one pass over the predictions' pairs costs what the pairs cost.
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import jit

__all__ = ["greedy_takes"]


@jit
def greedy_takes(
    order: np.ndarray,
    pair_start: np.ndarray,
    pair_gt: np.ndarray,
    pair_value: np.ndarray,
    eligible: np.ndarray,
    taken: np.ndarray,
    partner: np.ndarray,
) -> None:
    """Predictions in `order` each take the free ground truth of highest overlap among their eligible pairs.

    Prediction ``d`` has the pairs ``pair_start[d]:pair_start[d + 1]`` (ground truth ``pair_gt``,
    overlap ``pair_value``, usable where `eligible`). Ties of overlap go to the lower ground-truth
    index. Writes the ground truth taken into ``partner[d]`` and marks it in `taken`.

    Examples
    --------
    >>> import numpy as np
    >>> taken, partner = np.zeros(2, bool), np.full(2, -1)
    >>> # Both predictions overlap ground truth 0 best; the first in order takes it, the second takes ground truth 1.
    >>> greedy_takes(np.array([1, 0]), np.array([0, 2, 4]), np.array([0, 1, 0, 1]), np.array([0.9, 0.6, 0.8, 0.7]),
    ...              np.ones(4, bool), taken, partner)
    >>> partner.tolist()
    [1, 0]
    """
    for i in range(order.shape[0]):
        d = order[i]
        best, chosen = -1.0, -1
        for p in range(pair_start[d], pair_start[d + 1]):
            g = pair_gt[p]
            if not eligible[p] or taken[g]:
                continue
            value = pair_value[p]
            if value > best or (value == best and g < chosen):
                best, chosen = value, g
        if chosen >= 0:
            taken[chosen] = True
            partner[d] = chosen
