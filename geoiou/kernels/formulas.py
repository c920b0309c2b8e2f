"""The metric formulas over the measures of pairs, compiled, and the pairs they run over.

Every kernel's compiled loop measures a pair and hands the measure to `value`, which turns it
into what the caller asked for (the intersection itself, IoU, IoF, the union, GIoU), reading the
two regions' areas from per-region arrays: one pass over the pairs computes a metric, and a single
pair is one compiled call. What to compute is a `Formula`, a tuple the drivers take whole:
``(code, areas_a, areas_b, given, zero_division)``.

Pairs are given as `Pairs`: either lists (pair k is ``(index_a[k], index_b[k])``) or the outer
product of two index arrays (pair ``r · len(index_b) + c`` is ``(index_a[r], index_b[c])``, the
rows of a pairwise matrix, with no index array per pair). Each kernel writes one loop over rows
(a row is a pair of the lists, or a row of the matrix), and `run_rows` runs it on the calling
thread or, over runs of rows, on every core.

Divisions follow NumPy (``error_model="numpy"``); `ratio` returns `zero_division` where the
denominator is 0 (where the numerator is 0 too: 0/0 is NaN by default).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from geoiou._compiled import in_parallel, jit, prange
from geoiou.dispatch import Kernel, PairKernel
from geoiou.regions import Region

__all__ = [
    "CODES",
    "SINGLE_CODES",
    "GIOU",
    "GIOU_OF_HULL",
    "INTERSECTION",
    "IOF",
    "IOU",
    "Job",
    "MEASURE",
    "MEASURED",
    "PRUNED_COST_NS",
    "UNION",
    "Formula",
    "Pairs",
    "apply_to_measures",
    "evaluate",
    "floats",
    "formula",
    "measures_box_enclosure",
    "ratio",
    "ratios",
    "run_rows",
    "value",
    "with_formula",
]

# What a kernel writes for a pair whose measure is m (`value`). An intersection is capped at the
# smaller of the two areas: a promoted region's corners are rounded, so its polygon may enclose a
# few ulps more than the region itself (the other kernels keep that bound themselves).
MEASURE = 0  # m itself: a hull or an enclosure
INTERSECTION = 1  # m, an intersection, capped
IOU = 2
UNION = 3
IOF = 4  # intersection over the area of `a`
GIOU = 5  # m the intersection, given[k] the enclosure C
GIOU_OF_HULL = 6  # m the enclosure C, given[k] the intersection
#: Each code as int64, for the single-pair entries (numba compiles a copy of a function for each Python int literal).
CODES = {code: np.int64(code) for code in range(GIOU_OF_HULL + 1)}

#: ``(code, areas_a, areas_b, given, zero_division)``: the areas of every region of `a` and `b`
#: (float64, indexed by the pairs' indices), the other measure of each pair for GIoU (else empty).
Formula = tuple[int, np.ndarray, np.ndarray, np.ndarray, float]

#: Nanoseconds a formula costs per pair on one thread, for `in_parallel`.
FORMULA_COST_NS = 2.0
#: Nanoseconds a pair of a matrix costs a kernel that prunes by bounds first (most pairs are disjoint).
PRUNED_COST_NS = 5.0
#: Pairs per iteration of a kernel's parallel loop (each iteration runs the kernel's row loop once:
#: a call that takes arrays costs atomic reference counts, paid per run, not per pair).
PAIR_RUN = 512
_NOTHING = np.empty(0)
#: The formula of a kernel's measure alone.
MEASURED: Formula = (MEASURE, _NOTHING, _NOTHING, _NOTHING, 0.0)


def formula(
    code: int, areas_a: np.ndarray, areas_b: np.ndarray, zero_division: float = 0.0, given: Any = None
) -> Formula:
    """The `Formula` of `code` over the per-region areas (float64, flat), with `given` per pair for GIoU.

    Examples
    --------
    >>> formula(IOU, np.array([4.0]), np.array([2.0]))[0] == IOU
    True
    """
    return (code, floats(areas_a), floats(areas_b), _NOTHING if given is None else given, float(zero_division))


def floats(values: np.ndarray) -> np.ndarray:
    """`values` as a writable, C-contiguous float64 vector: one array type, so each driver compiles once."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 1:
        values = values.reshape(-1)
    flags = values.flags
    return values if flags.writeable and flags.c_contiguous else np.array(values)


class Pairs:
    """Which pairs a kernel measures: lists ``(index_a[k], index_b[k])``, or every ``(index_a[r], index_b[c])``.

    Indices are flat positions in the two batches (int64). With ``outer``, pair ``r * len(index_b) + c``
    is ``(index_a[r], index_b[c])`` and the results come out as the rows of a matrix.

    Examples
    --------
    >>> pairs = Pairs(np.array([0, 1]), np.array([0, 1, 2]), outer=True)
    >>> len(pairs), [index.tolist() for index in pairs.lists()]
    (6, [[0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2]])
    """

    __slots__ = ("index_a", "index_b", "outer")  # built for every call, a single pair's too: kept light

    def __init__(self, index_a: np.ndarray, index_b: np.ndarray, outer: bool = False) -> None:
        self.index_a, self.index_b, self.outer = index_a, index_b, outer

    def __len__(self) -> int:
        return len(self.index_a) * len(self.index_b) if self.outer else len(self.index_a)

    def lists(self) -> tuple[np.ndarray, np.ndarray]:
        """The pairs as two index lists, one entry per pair."""
        if not self.outer:
            return self.index_a, self.index_b
        return np.repeat(self.index_a, len(self.index_b)), np.tile(self.index_b, len(self.index_a))

    def rows(self) -> int:
        """The iterations of a driver's outer loop: a row of the matrix, or one pair of the lists."""
        return len(self.index_a)


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


@jit
def _capped(intersection: float, area_a: float, area_b: float) -> float:
    """`intersection` capped at both areas, as ``np.minimum`` (a NaN stays NaN)."""
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


#: What a kernel's loop writes and over which pairs: ``(index_a, index_b, outer, out, *formula)``. Flat:
#: numba's parallel loops cannot take a tuple that holds a tuple of arrays.
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
    """Run a kernel's loop over the rows of `pairs`: ``serial(data, job, begin, end)`` for every row on
    the calling thread, or ``parallel(data, job, run)`` on every core (`in_parallel`), `run` rows an
    iteration; `data` is what the kernel reads of the regions (a flat tuple, as `Job`), `job` a `Job`.

    `cost_ns` is the cost of a listed pair (candidates: their bounds meet) and `matrix_cost_ns` that of
    a pair of a matrix, most of which a kernel that prunes by bounds settles in a few comparisons.

    A kernel writes its loop over rows once (`serial`, for the rows ``begin <= r < end``); `parallel`
    only calls it for runs of about `PAIR_RUN` pairs, so the bits do not depend on the driver.
    """
    job = (pairs.index_a, pairs.index_b, pairs.outer, out, *formula)
    if pairs.outer and matrix_cost_ns is not None:
        cost_ns = matrix_cost_ns
    if in_parallel(len(pairs), cost_ns):
        columns = len(pairs.index_b) if pairs.outer else 1
        parallel(data, job, max(1, PAIR_RUN // max(1, columns)))
    else:
        serial(data, job, 0, pairs.rows())


# --------------------------------------------------------------------------- kernels and formulas
#: ``fused(a, b, pairs, formula, out)``: a kernel's loop that writes `value` of each pair's measure into `out`.
Fused = Callable[[Any, Any, Pairs, Formula, np.ndarray], None]


#: ``single(a, b, code, zero_division) -> float``: a kernel's formula of two single regions, in one compiled call.
Single = Callable[[Any, Any, int, float], float]


#: The formulas every single-pair entry computes.
SINGLE_CODES = frozenset({INTERSECTION, UNION, IOU, IOF})


def with_formula(
    fused: Fused, *, box_enclosure: bool = False, single: Single | None = None, hull_giou: bool = False
) -> Kernel:
    """The registered form of a kernel whose driver applies formulas: ``kernel(a, b, index_a, index_b)``.

    The returned kernel measures the listed pairs (formula `MEASURE`) and keeps `fused` as its
    ``fused`` attribute, which `evaluate` calls with the caller's formula. With `box_enclosure`,
    the driver also measures GIoU's box enclosure of each pair itself when asked for `GIOU`
    without a `given` measure (`measures_box_enclosure`), so box GIoU is one pass. `single`, kept as
    the ``single`` attribute, is the same pair function called once for two single regions, for the
    formulas of ``single_codes``: `SINGLE_CODES`, `GIOU` with the box enclosure when the kernel
    measures it (`box_enclosure`), and `GIOU_OF_HULL` (GIoU with the convex hull: the pair's hull
    kernel's measure, its intersection given) when the single entry measures the hull too
    (`hull_giou`): no pair lists, no driver.
    """

    def kernel(a: Region, b: Region, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
        out = np.empty(len(index_a))
        fused(a, b, Pairs(indices(index_a), indices(index_b)), MEASURED, out)
        return out

    kernel.fused = fused  # type: ignore[attr-defined]  # read by `evaluate`
    kernel.box_enclosure = box_enclosure  # type: ignore[attr-defined]  # read by `measures_box_enclosure`
    if single is not None:
        kernel.single = single  # type: ignore[attr-defined]  # read by the metrics for one pair
        kernel.single_codes = (  # type: ignore[attr-defined]
            SINGLE_CODES | ({GIOU} if box_enclosure else set()) | ({GIOU_OF_HULL} if hull_giou else set())
        )
    kernel.__doc__, kernel.__name__ = fused.__doc__, fused.__name__
    return kernel


def evaluate(pair: PairKernel, a: Region, b: Region, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Write `formula` of each of `pairs` of the flat batches `a` and `b`, measured by `pair`, into `out`.

    A kernel whose driver applies formulas (`with_formula`) does it in its one pass over the
    pairs; any other kernel (a swapped pair, the mask kernels, a plug-in kind's) measures the
    pairs first and `apply_to_measures` follows.
    """
    fused = getattr(pair.kernel, "fused", None)
    if fused is not None and not pair.swapped:
        if pair.convert_a or pair.convert_b:
            a, b = pair._converted(a, b)
        fused(a, b, pairs, formula, out)
        return
    index_a, index_b = pairs.lists()  # such kernels take flat batches and a list of pairs
    apply_to_measures(pair.pairs(a.reshape(a.size), b.reshape(b.size), index_a, index_b), pairs, formula, out)


def measures_box_enclosure(pair: PairKernel) -> bool:
    """Whether `pair`'s kernel, called with `GIOU` and no `given`, measures GIoU's box enclosure itself."""
    return getattr(pair.kernel, "box_enclosure", False) and not (pair.swapped or pair.convert_a or pair.convert_b)


def indices(index: np.ndarray) -> np.ndarray:
    """`index` as a writable, C-contiguous int64 array: one array type, so each driver compiles once."""
    index = np.asarray(index, dtype=np.int64)
    return index if index.flags.writeable and index.flags.c_contiguous else np.array(index)


# --------------------------------------------------------------------------- the formula over given measures
def apply_to_measures(
    measures: np.ndarray, pairs: Pairs, formula: Formula, out: np.ndarray | None = None
) -> np.ndarray:
    """Apply `formula` to measures a kernel computed for `pairs` (for kernels that do not take a formula).

    Examples
    --------
    >>> pairs = Pairs(np.array([0, 1]), np.array([0, 1]))
    >>> apply_to_measures(np.array([1.0, 0.0]), pairs, formula(IOU, np.array([4.0, 0.0]), np.array([4.0, 0.0]), np.nan))
    array([0.14285714,        nan])
    """
    out = np.empty(len(measures)) if out is None else out
    run_rows(_apply_rows, _apply_parallel, (floats(measures),), pairs, formula, out, FORMULA_COST_NS)
    return out


@jit
def _apply_rows(data: tuple[np.ndarray], job: Job, begin: int, end: int) -> None:
    (measures,) = data
    index_a, index_b, outer, out, code, areas_a, areas_b, given, zero_division = job
    has_given = given.shape[0] > 0
    columns = index_b.shape[0] if outer else 1
    for r in range(begin, end):
        i = index_a[r]
        for c in range(columns):
            k = r * columns + c
            j = index_b[c] if outer else index_b[r]
            measure = measures[k]
            out[k] = (
                measure
                if code == MEASURE
                else value(code, measure, areas_a[i], areas_b[j], given[k] if has_given else 0.0, zero_division)
            )


@jit(parallel=True)
def _apply_parallel(data: tuple[np.ndarray], job: Job, run: int) -> None:
    rows = job[0].shape[0]
    for step in prange((rows + run - 1) // run):
        _apply_rows(data, job, step * run, min(rows, (step + 1) * run))


# --------------------------------------------------------------------------- plain ratios
def ratios(numerator: np.ndarray, denominator: np.ndarray, zero_division: float) -> np.ndarray:
    """``numerator / denominator`` elementwise, `zero_division` where the denominator is 0.

    Examples
    --------
    >>> ratios(np.array([1.0, 0.0]), np.array([2.0, 0.0]), 0.0)
    array([0.5, 0. ])
    """
    numerator, denominator = floats(numerator), floats(denominator)
    out = np.empty(len(numerator))
    _ratios(numerator, denominator, float(zero_division), out)
    return out


@jit
def _ratios(numerator: np.ndarray, denominator: np.ndarray, zero_division: float, out: np.ndarray) -> None:
    for k in range(out.shape[0]):
        out[k] = ratio(numerator[k], denominator[k], zero_division)
