"""The formulas as numba code, for the kernels still compiled by numba while the engine moves to the crate.

Transitional: each kernel family that moves to `geoiou._core` stops importing this module, and it
goes with the last one. `value` is the crate's `formulas::value` (the same operations in the same
order); `run_rows` runs a numba kernel's loop over the `Pairs` and `Formula` of `geoiou.kernels.formulas`.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from geoiou._compiled import in_parallel, jit
from geoiou.kernels.formulas import GIOU, GIOU_OF_HULL, IOF, IOU, MEASURE, UNION, Formula, Pairs

__all__ = ["CODES", "PAIR_RUN", "PRUNED_COST_NS", "Job", "ratio", "run_rows", "value"]

#: Each code as int64, for the single-pair entries (numba compiles a copy of a function for each Python int literal).
CODES = {code: np.int64(code) for code in range(GIOU_OF_HULL + 1)}
#: Nanoseconds a pair of a matrix costs a kernel that prunes by bounds first (most pairs are disjoint).
PRUNED_COST_NS = 5.0
#: Pairs per iteration of a kernel's parallel loop (each iteration runs the kernel's row loop once).
PAIR_RUN = 512


@jit
def ratio(numerator: float, denominator: float, zero_division: float) -> float:
    """``numerator / denominator``, or `zero_division` where the denominator is 0."""
    return zero_division if denominator == 0.0 else float(numerator / denominator)


@jit
def _union(intersection: float, area_a: float, area_b: float) -> float:
    return area_a + area_b - intersection


@jit
def _giou(intersection: float, area_a: float, area_b: float, enclosure: float, zero_division: float) -> float:
    union = _union(intersection, area_a, area_b)
    overlap = ratio(intersection, union, zero_division)
    enclosing = np.maximum(enclosure, union)
    return overlap - ratio(enclosing - union, enclosing, 0.0)


@jit
def _capped(intersection: float, area_a: float, area_b: float) -> float:
    if area_a < intersection:
        intersection = area_a
    if area_b < intersection:
        intersection = area_b
    return intersection


@jit
def value(code: int, measure: float, area_a: float, area_b: float, given: float, zero_division: float) -> float:
    """What the formula `code` makes of a pair's `measure`, its regions' areas and its `given` measure."""
    if code == MEASURE:
        return measure
    if code == GIOU_OF_HULL:
        return _giou(given, area_a, area_b, measure, zero_division)
    intersection = _capped(measure, area_a, area_b)
    if code == IOU:
        return ratio(intersection, _union(intersection, area_a, area_b), zero_division)
    if code == UNION:
        return _union(intersection, area_a, area_b)
    if code == IOF:
        return ratio(intersection, area_a, zero_division)
    if code == GIOU:
        return _giou(intersection, area_a, area_b, given, zero_division)
    return intersection


#: What a numba kernel's loop writes and over which pairs: ``(index_a, index_b, outer, out, *formula)``.
Job = tuple[np.ndarray, np.ndarray, bool, np.ndarray, int, np.ndarray, np.ndarray, np.ndarray, float]


def run_rows(
    serial: Callable[..., None],
    parallel: Callable[..., None],
    data: tuple[Any, ...],
    pairs: Pairs,
    formula: Formula,
    out: np.ndarray,
    cost_ns: float,
    matrix_cost_ns: float | None = None,
) -> None:
    """Run a numba kernel's loop over the rows of `pairs`: ``serial(data, job, begin, end)`` on the calling
    thread, or ``parallel(data, job, run)`` on every core (`in_parallel`), `run` rows an iteration."""
    job = (
        _writable(pairs.index_a, np.int64),
        _writable(pairs.index_b, np.int64),
        pairs.outer,
        out,
        np.int64(formula.code),
        _writable(formula.areas_a, np.float64),
        _writable(formula.areas_b, np.float64),
        _writable(formula.given, np.float64),
        formula.zero_division,
    )
    if pairs.outer and matrix_cost_ns is not None:
        cost_ns = matrix_cost_ns
    if in_parallel(len(pairs), cost_ns):
        columns = len(pairs.index_b) if pairs.outer else 1
        parallel(data, job, max(1, PAIR_RUN // max(1, columns)))
    else:
        serial(data, job, 0, pairs.rows())


def _writable(values: np.ndarray, dtype: type) -> np.ndarray:
    """numba compiles a loop once per array type (read-only is one): the writable C-contiguous form."""
    return values if values.flags.writeable and values.flags.c_contiguous else np.array(values, dtype=dtype)
