"""The metric formulas over the measures of pairs, and the pairs they run over.

Every kernel's pass (in the compiled core, `geoiou._core`) measures a pair and turns the measure
into what the caller asked for (the intersection itself, IoU, IoF, the union, GIoU), reading the
two regions' areas from per-region arrays: one pass over the pairs computes a metric, and a
single pair is one call. What to compute is a `Formula` ``(code, areas_a, areas_b, given,
zero_division)``; which pairs, `Pairs`: lists (pair k is ``(index_a[k], index_b[k])``) or the
outer product of two index arrays (pair ``r · len(index_b) + c`` is ``(index_a[r], index_b[c])``,
the rows of a pairwise matrix, with no index array per pair). Both are the crate's own classes.

Divisions follow NumPy; a ratio is `zero_division` where the denominator is 0 (where the
numerator is 0 too: 0/0 is NaN by default).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from geoiou import _core
from geoiou._contiguous import contiguous
from geoiou._core import Formula, Pairs
from geoiou.dispatch import Fused, Kernel, PairKernel, Single
from geoiou.regions import Region

__all__ = [
    "GIOU",
    "GIOU_OF_HULL",
    "INTERSECTION",
    "IOF",
    "IOU",
    "MEASURE",
    "MEASURED",
    "SINGLE_CODES",
    "UNION",
    "Formula",
    "Pairs",
    "apply_to_measures",
    "evaluate",
    "floats",
    "formula",
    "indices",
    "measures_box_enclosure",
    "ratios",
    "with_formula",
]

# What a kernel writes for a pair whose measure is m (`formulas::Code` in the crate). An intersection
# is capped at the smaller of the two areas: a promoted region's corners are rounded, so its polygon
# may enclose a few ulps more than the region itself (the other kernels keep that bound themselves).
MEASURE = 0  # m itself: a hull or an enclosure
INTERSECTION = 1  # m, an intersection, capped
IOU = 2
UNION = 3
IOF = 4  # intersection over the area of `a`
GIOU = 5  # m the intersection, given[k] the enclosure C
GIOU_OF_HULL = 6  # m the enclosure C, given[k] the intersection

_NOTHING = np.empty(0)
#: The formula of a kernel's measure alone.
MEASURED = Formula(MEASURE, _NOTHING, _NOTHING, _NOTHING, 0.0)
#: The formulas every single-pair entry computes.
SINGLE_CODES = frozenset({INTERSECTION, UNION, IOU, IOF})


def formula(
    code: int, areas_a: np.ndarray, areas_b: np.ndarray, zero_division: float = 0.0, given: Any = None
) -> Formula:
    """The `Formula` of `code` over the per-region areas (float64, flat), with `given` per pair for GIoU.

    Examples
    --------
    >>> formula(IOU, np.array([4.0]), np.array([2.0])).code == IOU
    True
    """
    return Formula(code, floats(areas_a), floats(areas_b), _NOTHING if given is None else floats(given),
                   float(zero_division))  # fmt: skip


def floats(values: np.ndarray) -> np.ndarray:
    """`values` as a flat float64 vector, as the crate reads them (`contiguous`: a copy only when needed)."""
    return contiguous(values).reshape(-1)


def indices(index: np.ndarray) -> np.ndarray:
    """`index` as a flat int64 vector, as the crate reads them (`contiguous`: a copy only when needed)."""
    return contiguous(index, np.int64).reshape(-1)


def with_formula(
    fused: Fused, *, box_enclosure: bool = False, single: Single | None = None, hull_giou: bool = False
) -> Kernel:
    """The registered `Kernel` of a pass that applies formulas: ``fused(a, b, pairs, formula, out)``.

    Its ``measure`` runs `fused` with the formula `MEASURED`. With `box_enclosure`, `fused` also
    measures GIoU's box enclosure of each pair itself when asked for `GIOU` without a `given`
    measure (`measures_box_enclosure`), so box GIoU is one pass. `single` is the same pair
    function called once for two single regions, for the formulas of ``single_codes``:
    `SINGLE_CODES`, `GIOU` with the box enclosure when the kernel measures it (`box_enclosure`),
    and `GIOU_OF_HULL` (GIoU with the convex hull, its intersection given) when the single entry
    measures the hull too (`hull_giou`): no pair lists, no driver.
    """

    def measure(a: Region, b: Region, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
        out = np.empty(len(index_a))
        fused(a, b, Pairs(indices(index_a), indices(index_b)), MEASURED, out)
        return out

    codes = SINGLE_CODES | ({GIOU} if box_enclosure else set()) | ({GIOU_OF_HULL} if hull_giou else set())
    measure.__doc__, measure.__name__ = fused.__doc__, fused.__name__
    return Kernel(measure, fused, single, frozenset(codes) if single is not None else frozenset(), box_enclosure)


def evaluate(pair: PairKernel, a: Region, b: Region, pairs: Pairs, formula: Formula, out: np.ndarray) -> None:
    """Write `formula` of each of `pairs` of the flat batches `a` and `b`, measured by `pair`, into `out`.

    A kernel with a pass that applies formulas (`with_formula`) does it in that one pass over the
    pairs; any other kernel (a swapped pair, the mask kernels, a plug-in kind's) measures the
    pairs first and `apply_to_measures` follows.
    """
    fused = pair.kernel.fused
    if fused is not None and not pair.swapped:
        if pair.convert_a or pair.convert_b:
            a, b = pair._converted(a, b)
        fused(a, b, pairs, formula, out)
        return
    index_a, index_b = pairs.lists()  # such kernels take flat batches and a list of pairs
    apply_to_measures(pair.pairs(a.reshape(a.size), b.reshape(b.size), index_a, index_b), pairs, formula, out)


def measures_box_enclosure(pair: PairKernel) -> bool:
    """Whether `pair`'s kernel, called with `GIOU` and no `given`, measures GIoU's box enclosure itself."""
    return pair.kernel.box_enclosure and not (pair.swapped or pair.convert_a or pair.convert_b)


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
    _core.apply_to_measures(floats(measures), pairs, formula, out)
    return out


def ratios(numerator: np.ndarray, denominator: np.ndarray, zero_division: float) -> np.ndarray:
    """``numerator / denominator`` elementwise, `zero_division` where the denominator is 0.

    Examples
    --------
    >>> ratios(np.array([1.0, 0.0]), np.array([2.0, 0.0]), 0.0)
    array([0.5, 0. ])
    """
    return _core.ratios(floats(numerator), floats(denominator), float(zero_division))
