"""Closed-form kernels for axis-aligned boxes in any dimension: `Box` (2-D), `Box3D` (3-D) and `Interval` (1-D).

One compiled driver runs over the pairs and measures either the intersection of the two boxes'
bounds or the smallest box holding both (the interval hull, and GIoU's box enclosure of any two
regions), then applies the caller's formula (`geoiou.kernels.formulas`) in the same pass.
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import jit, prange
from geoiou.dispatch import PairKernel, register
from geoiou.kernels.formulas import CODES, GIOU, MEASURE, Formula, Job, Pairs, run_rows, value, with_formula
from geoiou.regions import Box, Box3D, Interval, Region

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


def _aligned_single(a: Region, b: Region, code: int, zero_division: float) -> float:
    """The formula `code` of two single regions of one dimension, in one compiled call (the loop's pair function)."""
    measure: float = _single_pair(_own_bounds(a), _own_bounds(b), CODES[code], _single_area(a), _single_area(b),
                                  zero_division)  # fmt: skip
    return measure


def _own_bounds(region: Region) -> np.ndarray:
    """A single region's bounds ``(lows..., highs...)``: a box's corners, an interval's or a 3-D box's coordinates."""
    own: np.ndarray = region._xyxy if type(region) is Box else region._coords  # type: ignore[attr-defined]
    return own


def _single_area(region: Region) -> float:
    """A single region's measure, with the bits of `Region._area_array` (a box's w * h as given)."""
    if type(region) is Box:
        width, height = region._size.tolist()
        area: float = width * height
        return area
    return float(region._area_array())


@jit
def _single_pair(bounds_a: np.ndarray, bounds_b: np.ndarray, code: int, area_a: float, area_b: float,
                 zero_division: float) -> float:  # fmt: skip
    """`_aligned_pairs`' formula of one pair, for the bounds of two single regions (GIoU's box enclosure too)."""
    a, b = bounds_a.reshape(1, bounds_a.size), bounds_b.reshape(1, bounds_b.size)
    other = _enclosing(a, 0, b, 0) if code == GIOU else 0.0
    return value(code, _overlap(a, 0, b, 0), area_a, area_b, other, zero_division)


aligned_intersection = register(Box, Box)(
    register(Box3D, Box3D)(
        register(Interval, Interval)(with_formula(_aligned_intersection, box_enclosure=True, single=_aligned_single))
    )
)
aligned_enclosures = register(Interval, Interval, measure="hull")(with_formula(_aligned_enclosures))
#: GIoU's box enclosure of any two regions of one dimension, as a kernel of the table.
BOX_ENCLOSURE = PairKernel(aligned_enclosures, (), (), False, "hull")


def _run(a: Region, b: Region, pairs: Pairs, formula: Formula, out: np.ndarray, enclosing: bool) -> None:
    data = (_bounds_table(a), _bounds_table(b), enclosing)
    run_rows(_aligned_pairs, _aligned_parallel, data, pairs, formula, out, PAIR_COST_NS)


def _bounds_table(region: Region) -> np.ndarray:
    """The bounds ``(lows..., highs...)`` of a batch (any shape, flattened) as a read-only C-contiguous float64 table.

    Read-only, as a box's or an interval's own coordinates are (they are their bounds, used as
    they are): the driver compiles for one array type.
    """
    if type(region) is Box:
        own: np.ndarray = region._xyxy
    elif type(region) in (Interval, Box3D):
        own = region._coords  # type: ignore[attr-defined]  # both keep their bounds as their coordinates
    else:
        own = region.bounds
    bounds = np.asarray(own, dtype=np.float64).reshape(-1, 2 * region.ndim)
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
def _aligned_pairs(data: tuple[np.ndarray, np.ndarray, bool], job: Job, begin: int, end: int) -> None:
    """The formula of the pairs of the rows ``begin <= r < end`` (`Pairs`), measuring the intersection or
    the enclosing box of each; GIoU without a given enclosure measures both in this one pass."""
    bounds_a, bounds_b, enclosing = data
    index_a, index_b, outer, out, code, areas_a, areas_b, given, zero_division = job
    has_given = given.shape[0] > 0
    both = code == GIOU and not has_given
    columns = index_b.shape[0] if outer else 1
    for r in range(begin, end):
        i = index_a[r]
        for c in range(columns):
            k = r * columns + c
            j = index_b[c] if outer else index_b[r]
            measure = _enclosing(bounds_a, i, bounds_b, j) if enclosing else _overlap(bounds_a, i, bounds_b, j)
            if code == MEASURE:
                out[k] = measure
                continue
            other = _enclosing(bounds_a, i, bounds_b, j) if both else given[k] if has_given else 0.0
            out[k] = value(code, measure, areas_a[i], areas_b[j], other, zero_division)


@jit(parallel=True)
def _aligned_parallel(data: tuple[np.ndarray, np.ndarray, bool], job: Job, run: int) -> None:
    rows = job[0].shape[0]
    for step in prange((rows + run - 1) // run):
        _aligned_pairs(data, job, step * run, min(rows, (step + 1) * run))
