"""Closed-form kernels for axis-aligned boxes in any dimension: `Box` (2-D) and `Interval` (1-D).

One compiled driver runs over the pairs and measures either the intersection of the two boxes'
bounds or the smallest box holding both (the interval hull, and GIoU's box enclosure of any two
regions), then applies the caller's formula (`geoiou.kernels.formulas`) in the same pass.
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import in_parallel, jit, prange
from geoiou.dispatch import PairKernel, register
from geoiou.kernels.formulas import GIOU, Formula, Pairs, apply, apply_given, pair_column, pair_row, with_formula
from geoiou.regions import Box, Interval, Region

__all__ = ["BOX_ENCLOSURE", "aligned_enclosures", "aligned_intersection"]

#: Nanoseconds a pair costs on one thread (bounds, measure and formula), for `in_parallel`.
PAIR_COST_NS = 3.0


def _aligned_intersection(a: Region, b: Region, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Measure of the intersection of the axis-aligned boxes (intervals) of each pair."""
    _run(a, b, pairs, formula, out, False)


def _aligned_enclosures(a: Region, b: Region, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Measure of the smallest axis-aligned box holding both regions of each pair (for intervals, their hull).

    Any two regions of one dimension have it (from their bounds): GIoU's box enclosure C.
    """
    _run(a, b, pairs, formula, out, True)


aligned_intersection = register(Box, Box)(
    register(Interval, Interval)(with_formula(_aligned_intersection, box_enclosure=True))
)
aligned_enclosures = register(Interval, Interval, measure="hull")(with_formula(_aligned_enclosures))
#: GIoU's box enclosure of any two regions of one dimension, as a kernel of the table.
BOX_ENCLOSURE = PairKernel(aligned_enclosures, (), (), False, "hull")


def _run(a: Region, b: Region, pairs: Pairs, formula: Formula, out: np.ndarray, enclosing: bool) -> None:
    arguments = (_bounds_table(a), _bounds_table(b), pairs.index_a, pairs.index_b, pairs.outer, formula, out, enclosing)
    if in_parallel(len(pairs), PAIR_COST_NS):
        _aligned_parallel(*arguments)
    else:
        _aligned_pairs(*arguments)


def _bounds_table(region: Region) -> np.ndarray:
    """The bounds ``(lows..., highs...)`` of a batch (any shape, flattened) as a read-only C-contiguous float64 table.

    Read-only, as a box's or an interval's own coordinates are (they are their bounds, used as
    they are): the driver compiles for one array type.
    """
    own = region._xyxy if isinstance(region, Box) else region._coords if isinstance(region, Interval) else None
    bounds = np.asarray(region.bounds if own is None else own, dtype=np.float64).reshape(-1, 2 * region.ndim)
    if bounds.flags.writeable or not bounds.flags.c_contiguous:
        bounds = np.array(bounds)
        bounds.flags.writeable = False
    return bounds


@jit(inline=True)
def _overlap(bounds_a: np.ndarray, i: int, bounds_b: np.ndarray, j: int) -> float:
    """Measure of the intersection of bounds i of `a` and j of `b`, +0.0 when they share nothing."""
    half = bounds_a.shape[1] // 2
    measure = 1.0
    for axis in range(half):
        length = min(bounds_a[i, half + axis], bounds_b[j, half + axis]) - max(bounds_a[i, axis], bounds_b[j, axis])
        if not length > 0.0:
            return 0.0
        measure = length if axis == 0 else measure * length
    return measure


@jit(inline=True)
def _enclosing(bounds_a: np.ndarray, i: int, bounds_b: np.ndarray, j: int) -> float:
    """Measure of the smallest axis-aligned box holding bounds i of `a` and j of `b`."""
    half = bounds_a.shape[1] // 2
    measure = 1.0
    for axis in range(half):
        extent = max(bounds_a[i, half + axis], bounds_b[j, half + axis]) - min(bounds_a[i, axis], bounds_b[j, axis])
        measure = extent if axis == 0 else measure * extent
    return measure


@jit
def _aligned_pairs(
    bounds_a: np.ndarray,
    bounds_b: np.ndarray,
    index_a: np.ndarray,
    index_b: np.ndarray,
    outer: bool,
    formula: Formula,
    out: np.ndarray,
    enclosing: bool,
) -> None:
    code, areas_a, areas_b, given, zero_division = formula
    for r in range(index_a.shape[0]):
        _aligned_row(
            bounds_a, bounds_b, index_a, index_b, outer, code, areas_a, areas_b, given, zero_division, out, enclosing, r
        )


@jit(parallel=True)
def _aligned_parallel(
    bounds_a: np.ndarray,
    bounds_b: np.ndarray,
    index_a: np.ndarray,
    index_b: np.ndarray,
    outer: bool,
    formula: Formula,
    out: np.ndarray,
    enclosing: bool,
) -> None:
    code, areas_a, areas_b, given, zero_division = formula
    for r in prange(index_a.shape[0]):
        _aligned_row(
            bounds_a, bounds_b, index_a, index_b, outer, code, areas_a, areas_b, given, zero_division, out, enclosing, r
        )


@jit(inline=True)
def _aligned_row(
    bounds_a: np.ndarray,
    bounds_b: np.ndarray,
    index_a: np.ndarray,
    index_b: np.ndarray,
    outer: bool,
    code: int,
    areas_a: np.ndarray,
    areas_b: np.ndarray,
    given: np.ndarray,
    zero_division: float,
    out: np.ndarray,
    enclosing: bool,
    r: int,
) -> None:
    i, first, columns = pair_row(index_a, index_b, outer, r)
    # GIoU without a given enclosure: this driver measures the box enclosure too, in the same pass.
    encloses_here = code == GIOU and given.shape[0] == 0
    for c in range(columns):
        j = pair_column(index_b, outer, r, c)
        if encloses_here:
            enclosure = _enclosing(bounds_a, i, bounds_b, j)
            measure = _overlap(bounds_a, i, bounds_b, j)
            out[first + c] = apply_given(code, areas_a, areas_b, zero_division, i, j, measure, enclosure)
            continue
        measure = _enclosing(bounds_a, i, bounds_b, j) if enclosing else _overlap(bounds_a, i, bounds_b, j)
        out[first + c] = apply(code, areas_a, areas_b, given, zero_division, first + c, i, j, measure)
