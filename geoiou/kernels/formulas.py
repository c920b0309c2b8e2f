"""The metric formulas over the measures of pairs, compiled: one pass per metric, on every core.

`geoiou.metrics` computes each pair's intersection (and enclosure) with the pair's kernel and
hands the measures here with the per-region areas and the pair indices, so the areas are gathered
inside the loop. Each formula is written once, as a scalar function, and the loops only call it.

Divisions follow NumPy (``error_model="numpy"``); `ratio` returns `zero_division` where the
denominator is 0 (where the numerator is 0 too: 0/0 is NaN by default).
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import PARALLEL_MIN, jit, prange, use_threads

__all__ = ["giou_values", "iof_values", "iou_values", "ratios", "union_values"]


@jit
def ratio(numerator: float, denominator: float, zero_division: float) -> float:
    """``numerator / denominator``, or `zero_division` where the denominator is 0."""
    return zero_division if denominator == 0.0 else float(numerator / denominator)


@jit
def _union(intersection: float, area_a: float, area_b: float) -> float:
    # IoU needs no cap at 1: with i <= min(|a|, |b|), |a| + |b| >= 2i, so rounding (monotonic) gives
    # fl(|a| + |b|) >= 2i and then fl(fl(|a| + |b|) - i) >= i.
    return area_a + area_b - intersection


@jit
def _giou(intersection: float, area_a: float, area_b: float, enclosure: float, zero_division: float) -> float:
    union = _union(intersection, area_a, area_b)
    overlap = ratio(intersection, union, zero_division)
    # Rounding in a hull could leave it a hair below the union; C >= union always holds exactly.
    enclosing = np.maximum(enclosure, union)
    return overlap - ratio(enclosing - union, enclosing, 0.0)


# Which formula `_formula_loop` computes. One parallel loop for all of them: each parallel loop
# costs about a second to compile on a fresh install, and a branch on a constant code per pair
# costs nothing measurable.
_IOU, _UNION, _IOF, _GIOU, _RATIO = range(5)


@jit
def _formula(
    code: int, intersection: float, area_a: float, area_b: float, enclosure: float, zero_division: float
) -> float:
    if code == _IOU:
        return ratio(intersection, _union(intersection, area_a, area_b), zero_division)
    if code == _UNION:
        return _union(intersection, area_a, area_b)
    if code == _GIOU:
        return _giou(intersection, area_a, area_b, enclosure, zero_division)
    return ratio(intersection, area_a, zero_division)  # _IOF, and _RATIO (numerator over denominator)


@jit(parallel=True)
def _formula_loop(
    code: int,
    intersection: np.ndarray,
    area_a: np.ndarray,
    area_b: np.ndarray,
    index_a: np.ndarray,
    index_b: np.ndarray,
    enclosure: np.ndarray,
    zero_division: float,
) -> np.ndarray:
    """`_formula` of each pair k: its intersection, ``area_a[index_a[k]]``, ``area_b[index_b[k]]`` and C.

    `_RATIO` reads its denominator as ``area_a[k]`` (no index); a formula that does not use `area_b`
    or `enclosure` is given an empty array.
    """
    out = np.empty(intersection.shape[0])
    if out.shape[0] < PARALLEL_MIN:
        for k in range(out.shape[0]):
            out[k] = _pair_formula(code, intersection, area_a, area_b, index_a, index_b, enclosure, zero_division, k)
    else:
        for k in prange(out.shape[0]):
            out[k] = _pair_formula(code, intersection, area_a, area_b, index_a, index_b, enclosure, zero_division, k)
    return out


@jit(inline=True)
def _pair_formula(
    code: int,
    intersection: np.ndarray,
    area_a: np.ndarray,
    area_b: np.ndarray,
    index_a: np.ndarray,
    index_b: np.ndarray,
    enclosure: np.ndarray,
    zero_division: float,
    k: int,
) -> float:
    if code == _RATIO:
        return ratio(intersection[k], area_a[k], zero_division)
    measure_b = area_b[index_b[k]] if area_b.shape[0] else 0.0
    enclosing = enclosure[k] if enclosure.shape[0] else 0.0
    return _formula(code, intersection[k], area_a[index_a[k]], measure_b, enclosing, zero_division)


_NONE = np.empty(0)
_NO_INDEX = np.empty(0, dtype=np.int64)


def _values(
    code: int,
    intersection: np.ndarray,
    area_a: np.ndarray,
    area_b: np.ndarray,
    index_a: np.ndarray,
    index_b: np.ndarray,
    enclosure: np.ndarray,
    zero_division: float,
) -> np.ndarray:
    use_threads(len(intersection))
    return _formula_loop(code, intersection, area_a, area_b, index_a, index_b, enclosure, float(zero_division))


def iou_values(
    intersection: np.ndarray,
    area_a: np.ndarray,
    area_b: np.ndarray,
    index_a: np.ndarray,
    index_b: np.ndarray,
    zero_division: float,
) -> np.ndarray:
    """IoU of each pair from its intersection and the areas ``area_a[index_a]``, ``area_b[index_b]``.

    Examples
    --------
    >>> import numpy as np
    >>> pairs = np.array([0, 1])
    >>> iou_values(np.array([1.0, 0.0]), np.array([4.0, 0.0]), np.array([4.0, 0.0]), pairs, pairs, np.nan)
    array([0.14285714,        nan])
    """
    return _values(_IOU, intersection, area_a, area_b, index_a, index_b, _NONE, zero_division)


def union_values(
    intersection: np.ndarray, area_a: np.ndarray, area_b: np.ndarray, index_a: np.ndarray, index_b: np.ndarray
) -> np.ndarray:
    """``|a| + |b| - |a ∩ b|`` of each pair.

    Examples
    --------
    >>> import numpy as np
    >>> union_values(np.array([1.0]), np.array([4.0]), np.array([4.0]), np.array([0]), np.array([0]))
    array([7.])
    """
    return _values(_UNION, intersection, area_a, area_b, index_a, index_b, _NONE, 0.0)


def iof_values(intersection: np.ndarray, area_a: np.ndarray, index_a: np.ndarray, zero_division: float) -> np.ndarray:
    """Intersection over the measure of `a` of each pair.

    Examples
    --------
    >>> import numpy as np
    >>> iof_values(np.array([1.0, 0.0]), np.array([2.0, 0.0]), np.array([0, 1]), 1.0)
    array([0.5, 1. ])
    """
    return _values(_IOF, intersection, area_a, _NONE, index_a, _NO_INDEX, _NONE, zero_division)


def giou_values(
    intersection: np.ndarray,
    area_a: np.ndarray,
    area_b: np.ndarray,
    index_a: np.ndarray,
    index_b: np.ndarray,
    enclosure: np.ndarray,
    zero_division: float,
) -> np.ndarray:
    """GIoU of each pair from its intersection, the areas and the measure of its enclosure C.

    Examples
    --------
    >>> import numpy as np
    >>> pair = np.array([0])
    >>> giou_values(np.array([0.0]), np.array([1.0]), np.array([1.0]), pair, pair, np.array([3.0]), np.nan)
    array([-0.33333333])
    """
    return _values(_GIOU, intersection, area_a, area_b, index_a, index_b, enclosure, zero_division)


def ratios(numerator: np.ndarray, denominator: np.ndarray, zero_division: float) -> np.ndarray:
    """``numerator / denominator`` elementwise, `zero_division` where the denominator is 0.

    Examples
    --------
    >>> import numpy as np
    >>> ratios(np.array([1.0, 0.0]), np.array([2.0, 0.0]), 0.0)
    array([0.5, 0. ])
    """
    return _values(
        _RATIO,
        np.ascontiguousarray(numerator, dtype=np.float64),
        np.ascontiguousarray(denominator, dtype=np.float64),
        _NONE,
        _NO_INDEX,
        _NO_INDEX,
        _NONE,
        zero_division,
    )
