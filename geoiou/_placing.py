"""Values moved to new places along their last axis: the per-object results of parts renumbered to the input rows."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["placed"]


def placed(values: np.ndarray, rows: np.ndarray, size: int | None = None, fill: Any = None) -> np.ndarray:
    """`values` moved along their last axis to `rows`: ``result[..., rows[i]] = values[..., i]``.

    The result's last axis has `size` places (default: as many as `values`); the places no row
    names hold `fill` (left unset when `rows` names every place).

    Examples
    --------
    >>> placed(np.array([[1, 2, 3]]), np.array([2, 0, 1])).tolist()
    [[2, 3, 1]]
    >>> placed(np.array([5.0]), np.array([1]), size=3, fill=np.nan).tolist()
    [nan, 5.0, nan]
    """
    shape = (*values.shape[:-1], values.shape[-1] if size is None else size)
    result = np.empty(shape, dtype=values.dtype) if fill is None else np.full(shape, fill, dtype=values.dtype)
    result[..., rows] = values
    return result
