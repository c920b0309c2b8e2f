"""Signed IoU (Simonelli et al. 2019): IoU of boxes and intervals that goes negative as they move apart.

For two boxes, the intersection box ``(max x1, max y1, min x2, min y2)`` is turned inside out when
the boxes are apart: one of its sides is negative, by the gap between them. Its signed measure
``|a ⊓ b|±`` is its area when both sides are positive and minus the absolute product of its sides
otherwise, and

    sIoU(a, b) = |a ⊓ b|± / (|a| + |b| - |a ⊓ b|±)

equals IoU for overlapping boxes and lies in ``(-1, 0]`` for disjoint ones, growing towards -1
with the gap. For intervals the signed measure is ``min(end) - max(start)``, minus the gap.
The metric is defined for axis-aligned boxes and intervals only: the inside-out intersection box
has no counterpart for other shapes. Each pair is one step of the crate's loop (`signed_ious`,
src/aligned.rs), elementwise over the broadcast pairs or over the rows of the matrix.
"""

from __future__ import annotations

import math
import numpy as np
from numpy.typing import DTypeLike

from geoiou import _core
from geoiou._contiguous import contiguous
from geoiou._core import Pairs
from geoiou._progress import progress_steps
from geoiou._validation import not_a_region, zero_division_value
from geoiou.errors import InvalidArgumentError, UnsupportedPairError
from geoiou.dispatch import broadcast_pairs
from geoiou.regions import Box, Interval, Region
from geoiou.regions.base import as_measure

__all__ = ["pairwise_siou", "siou"]

#: Pairs per block of rows of `pairwise_siou` (the steps of its progress bar).
PAIRWISE_CHUNK = 1 << 19


def siou(a: Box | Interval, b: Box | Interval, *, zero_division: float = math.nan) -> float | np.ndarray:
    """Return the signed IoU of boxes or intervals, elementwise with broadcasting (Simonelli et al. 2019).

    Equal to IoU where the regions overlap; negative where they are apart: ``|a ⊓ b|±`` is minus
    the area of the box between them (the product of the gap and the overlap or the other gap).

    Parameters
    ----------
    a, b : Box or Interval
        Two batches of the same kind with broadcastable batch shapes.
    zero_division : float, default NaN
        The result for two empty regions that touch (a zero denominator).

    Returns
    -------
    float or ndarray of the broadcast batch shape
        Values in ``(-1, 1]`` (-1 only for two empty regions apart).

    Raises
    ------
    UnsupportedPairError
        If `a` and `b` are not both boxes or both intervals.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.siou(geoiou.Box([0, 0, 2, 2]), geoiou.Box([1, 1, 3, 3]))  # overlapping: the IoU, 1 / 7
    0.14285714285714285
    >>> geoiou.siou(geoiou.Box([0, 0, 1, 1]), geoiou.Box([2, 0, 3, 1]))  # a gap of 1: -1 / (1 + 1 + 1)
    -0.3333333333333333
    >>> geoiou.siou(geoiou.Interval([0, 1]), geoiou.Interval([5, 6]))  # a gap of 4: -4 / (1 + 1 + 4)
    -0.6666666666666666
    """
    _require_boxes_or_intervals(a, b)
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise InvalidArgumentError(
            f"'a' and 'b' must have batch shapes that broadcast, as NumPy arrays do (got "
            f"{a.shape} and {b.shape}); pairwise_siou compares every a with every b"
        ) from None
    index_a, index_b, shape = broadcast_pairs(a.shape, b.shape)
    out = np.empty(len(index_a))
    _core.signed_ious(_bounds(a), _bounds(b), Pairs(index_a, index_b), zero_division_value(zero_division), out)
    return as_measure(out.reshape(shape))


def pairwise_siou(
    a: Box | Interval,
    b: Box | Interval,
    *,
    zero_division: float = math.nan,
    dtype: DTypeLike = np.float64,
    progress: bool = False,
) -> np.ndarray:
    """Return the signed IoU of every region of `a` with every region of `b`, shape ``a.shape + b.shape``.

    Every pair has a value of its own (disjoint pairs are negative), so the matrix is computed in
    blocks of rows, with memory beside the result bounded.

    Parameters
    ----------
    a, b : Box or Interval
        Batches of the same kind.
    zero_division : float, default NaN
        As in `siou`.
    dtype : dtype, default float64
        Type of the result (values are computed in float64).
    progress : bool, default False
        Show a progress bar on stderr for large inputs.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_siou(geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[0, 0, 1, 1], [2, 0, 3, 1], [3, 3, 4, 4]]))
    array([[ 1.        , -0.33333333, -0.66666667]])
    """
    _require_boxes_or_intervals(a, b)
    zero_division = zero_division_value(zero_division)
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise InvalidArgumentError(f"'dtype' must be a floating-point type such as float64 or float32 (got {dtype})")
    result = np.empty(a.shape + b.shape, dtype=dtype)
    rows = result.reshape(a.size, b.size)
    bounds_a, bounds_b, columns = _bounds(a), _bounds(b), np.arange(b.size, dtype=np.int64)
    # Blocks of rows (a progress bar's steps); a float64 matrix is written in place.
    step = max(1, PAIRWISE_CHUNK // max(1, b.size))
    for start in progress_steps(range(0, a.size, step), enabled=progress, rows=a.size, label="pairwise_siou"):
        stop = min(start + step, a.size)
        block = rows[start:stop].reshape(-1) if dtype == np.float64 else np.empty((stop - start) * b.size)
        pairs = Pairs(np.arange(start, stop, dtype=np.int64), columns, outer=True)
        _core.signed_ious(bounds_a, bounds_b, pairs, zero_division, block)
        if dtype != np.float64:
            rows[start:stop] = block.reshape(stop - start, b.size)
    return result


def _bounds(region: Box | Interval) -> np.ndarray:
    """The bounds ``(lows..., highs...)`` of a batch, flat, as the crate reads them."""
    return contiguous(region.bounds).reshape(region.size, 2 * region.ndim)


def _require_boxes_or_intervals(a: object, b: object) -> None:
    for name, value in (("a", a), ("b", b)):
        if not isinstance(value, Region):
            raise not_a_region(name, value)
    if not (type(a) is type(b) and isinstance(a, (Box, Interval))):
        raise UnsupportedPairError(
            f"signed IoU is defined for Box×Box and Interval×Interval only (got "
            f"{type(a).__name__}×{type(b).__name__}): the inside-out intersection box has no "
            "counterpart for other shapes; giou and diou also go negative and hold for every kind"
        )
