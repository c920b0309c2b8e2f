"""Overlap metrics for any pair of regions: each a few lines over the kernels' measures.

Plain functions are elementwise with NumPy broadcasting over the batch shapes (a float for two
single regions); ``pairwise_*`` functions compare every region of `a` with every region of `b`
and return an array of shape ``a.shape + b.shape``.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Literal

import numpy as np
from numpy.typing import DTypeLike

import geoiou.kernels  # noqa: F401  (registers the kernels)
from geoiou._validation import zero_division_value
from geoiou.dispatch import PairKernel, find_kernel
from geoiou.kernels import scalar
from geoiou.kernels.box import bound_columns, enclosing_extents, scalar_enclosing_measure
from geoiou.errors import InvalidArgumentError, UnsupportedPairError
from geoiou.kernels.pairs import SweepCandidates
from geoiou.regions import Box, Interval, Region
from geoiou.regions.base import as_measure

__all__ = [
    "ciou",
    "diou",
    "enclosure_area",
    "giou",
    "intersection_area",
    "iof",
    "iou",
    "pairwise_ciou",
    "pairwise_diou",
    "pairwise_giou",
    "pairwise_intersection_area",
    "pairwise_iof",
    "pairwise_iou",
    "union_area",
]

Enclosure = Literal["box", "hull"]
ENCLOSURES = ("box", "hull")
Result = float | np.ndarray


# --------------------------------------------------------------------------- measures of pairs
def _require_regions(a: object, b: object) -> None:
    for name, value in (("a", a), ("b", b)):
        if not isinstance(value, Region):
            from geoiou._validation import not_a_region  # the error path only

            raise not_a_region(name, value)


def _require_broadcastable(a: Region, b: Region) -> None:
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise InvalidArgumentError(f"'a' and 'b' must have batch shapes that broadcast, as NumPy arrays do (got "
                                   f"{a.shape} and {b.shape}); pairwise_* functions compare every a with every b"
                                   ) from None


class _RegionMeasures:
    """What the metric formulas use of each pair of two broadcastable batches.

    `intersection` has the broadcast shape, `area_a` and `area_b` the batch shapes (they broadcast).
    Every kernel keeps ``0 <= intersection <= min(|a|, |b|)`` itself (exact kernels by construction,
    the others by clamping their rounding), so IoU stays in [0, 1] without a pass here.
    """

    def __init__(self, pair: PairKernel, a: Region, b: Region, intersection: np.ndarray | None = None) -> None:
        self.a, self.b = a, b
        self.intersection = pair(a, b) if intersection is None else intersection
        self.area_a, self.area_b = a._area_array(), b._area_array()

    def enclosure(self, enclosure: Enclosure) -> np.ndarray:
        if enclosure == "box":
            return _box_enclosure(self.a, self.b)[0]
        return find_kernel(type(self.a), type(self.b), measure="hull")(self.a, self.b)


class _SingleMeasures:
    """The same measures of two single regions, in Python floats, from the pair's single-pair form.

    No batch machinery (broadcasting checks, chunks, sweeps) runs: a call costs microseconds. The
    single-pair form repeats the batch kernel's operations in the same order, so the formulas below
    give the same bits on both paths (Python and NumPy floats round alike).
    """

    def __init__(self, pair: PairKernel, a: Region, b: Region) -> None:
        self.a, self.b = a, b
        self.intersection, self.area_a, self.area_b = pair.single(a, b)

    def enclosure(self, enclosure: Enclosure) -> float:
        if enclosure == "box":
            return scalar_enclosing_measure(self.a.bounds.tolist(), self.b.bounds.tolist())
        hull = find_kernel(type(self.a), type(self.b), measure="hull")
        return hull.single(self.a, self.b) if hull.has_single else float(hull(self.a, self.b))


Measures = _RegionMeasures | _SingleMeasures


def _measures(a: Region, b: Region) -> Measures:
    """The measures of each pair of `a` and `b`: by the scalar path for two single regions when the pair has one."""
    _require_regions(a, b)
    single = not a.shape and not b.shape
    if not single:
        _require_broadcastable(a, b)
    pair = find_kernel(type(a), type(b))
    return _SingleMeasures(pair, a, b) if single and pair.has_single else _RegionMeasures(pair, a, b)


# --------------------------------------------------------------------------- formulas
# Each metric is written once, over the measures of its pairs: the arrays of a batch, the floats of a
# single pair or the blocks of a fused pairwise kernel all go through the same lines.
def _ratio(numerator: Result, denominator: Result, zero_division: float) -> Result:
    """``numerator / denominator``, and `zero_division` where the denominator is 0.

    Every caller has ``numerator == 0`` wherever ``denominator == 0`` (0/0 is NaN), so the
    common default NaN needs no extra pass; any other value is written only where it applies.
    """
    if isinstance(denominator, float):
        return numerator / denominator if denominator != 0 else zero_division
    with np.errstate(invalid="ignore", divide="ignore"):
        result = np.true_divide(numerator, denominator)
    if not math.isnan(zero_division):
        empty = denominator == 0
        if empty.any():
            result = np.where(empty, zero_division, result)
    return result


def _larger(x: Result, y: Result) -> Result:
    """``np.maximum(x, y)``; for floats the same (`geoiou.kernels.scalar`) without NumPy's call."""
    if isinstance(x, float) and isinstance(y, float):
        return scalar.maximum(x, y)
    return np.maximum(x, y)


def _union_of(m: Measures) -> Result:
    """``|a| + |b| - |a ∩ b|``.

    IoU needs no cap at 1: with ``i <= min(|a|, |b|)`` we have ``|a| + |b| >= 2i``, so rounding
    (monotonic) gives ``fl(|a| + |b|) >= 2i`` and then ``fl(fl(|a| + |b|) - i) >= i``.
    """
    return m.area_a + m.area_b - m.intersection


def _iou_of(m: Measures, zero_division: float) -> Result:
    return _ratio(m.intersection, _union_of(m), zero_division)


def _iof_of(m: Measures, zero_division: float) -> Result:
    return _ratio(m.intersection, m.area_a, zero_division)


def _giou_of(m: Measures, zero_division: float, enclosure: Enclosure) -> Result:
    union = _union_of(m)
    overlap = _ratio(m.intersection, union, zero_division)
    # Rounding in the hull could leave it a hair below the union; C >= union always holds exactly.
    enclosing = _larger(m.enclosure(enclosure), union)
    return overlap - _ratio(enclosing - union, enclosing, 0.0)


#: Elements of a pairwise result computed per step. The temporaries of one step (a dozen arrays of
#: this many float64) stay in the CPU cache and bound the memory beside the output. Each stays under
#: 128 KiB, the size above which glibc's malloc maps fresh pages for every array: measured 4× slower.
PAIRWISE_CHUNK = 15_000


#: Pairs whose enclosure (or centre distance) is measured per step when the intersections came from the
#: sweep: the hull kernel walks the pairs whose bounds overlap once per call, at a cost per step of the
#: walk whatever their number, so it gets many pairs per call (the kernel itself works in cache-sized
#: blocks; the temporaries of the formula here stay near 20 MB).
PAIRS_PER_ENCLOSURE_STEP = 1 << 18


#: Take the sparse path when the sweep inspects at most this fraction of all pairs.
SPARSE_FRACTION = 0.25
#: Pairs measured per step of the sparse path.
CANDIDATE_CHUNK = 1 << 16
#: The sparse path gathers regions pair by pair: only for kinds this small per region (not masks).
GATHER_LIMIT_BYTES = 1024

Formula = Callable[[Measures], Result]
Disjoint = Callable[[np.ndarray, np.ndarray, np.ndarray], None]

def _pairwise(formula: Formula, a: Region, b: Region, dtype: DTypeLike, disjoint: Disjoint | None = None,
              enclosure: Enclosure | None = None, fused: bool = True, from_intersections: bool = False) -> np.ndarray:
    """Apply a metric's `formula` to every pair of ``a × b``; return shape ``a.shape + b.shape``.

    Kinds with a blocks form (boxes, intervals, rotated boxes) compute fused blocks of pairs;
    `fused` is False for formulas that need the regions themselves, and `enclosure` names the GIoU
    enclosure the blocks must provide. Otherwise, when most pairs cannot overlap and the metric's
    value for such pairs is known (`disjoint` writes it), only the pairs found by a sweep over the
    bounds are measured, and else rows are computed a block at a time. Values are computed in
    float64 and stored as `dtype`.

    `from_intersections` (GIoU, DIoU): for kinds measured candidate by candidate, the
    intersections come from the sweep and only the rest of the metric (an enclosure, a distance)
    is computed for every pair, in row blocks.
    """
    _require_regions(a, b)
    pair = find_kernel(type(a), type(b))  # an unsupported pair fails even when a batch is empty
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise InvalidArgumentError(f"'dtype' must be a floating-point type such as float64 or float32 (got {dtype})")
    if from_intersections and pair.per_candidate:
        return _pairwise_from_intersections(formula, pair, a, b, dtype)
    flat_a, flat_b = a.reshape(a.size), b.reshape(b.size)
    blocks = pair.blocks(flat_a, flat_b, PAIRWISE_CHUNK) if fused else None
    if blocks is not None and (enclosure is None or enclosure in blocks.enclosures):
        return _pairwise_blocks(formula, blocks, flat_a, flat_b, a.shape + b.shape, dtype, disjoint)
    sweep = _sparse_sweep(flat_a, flat_b, always=pair.per_candidate) if disjoint is not None else None
    # Zeros come from the allocator as untouched zero pages, so the sparse path pays only for what it writes.
    result = (np.empty if sweep is None else np.zeros)(a.shape + b.shape, dtype=dtype)
    rows = result.reshape(a.size, b.size)
    if sweep is None:
        _fill_dense(formula, pair, flat_a, flat_b, rows)
    else:
        disjoint(rows, flat_a._area_array(), flat_b._area_array())
        for index_a, index_b in sweep.chunks(CANDIDATE_CHUNK):
            rows[index_a, index_b] = formula(_RegionMeasures(pair, flat_a[index_a], flat_b[index_b]))
    return result


def _pairwise_blocks(formula: Formula, blocks: Any, a: Region, b: Region, shape: tuple[int, ...],
                     dtype: np.dtype, disjoint: Disjoint | None) -> np.ndarray:
    """The pairwise result from a kernel's blocks: only the band of pairs that can meet when `disjoint` applies."""
    pairs = a.size * b.size
    band = blocks.band_blocks(SPARSE_FRACTION * pairs) if disjoint is not None and pairs else None
    result = (np.empty if band is None else np.zeros)(shape, dtype=dtype)
    rows = result.reshape(a.size, b.size)
    if band is not None:
        disjoint(rows, a._area_array(), b._area_array())
    for block in blocks.dense_blocks() if band is None else band:
        block.write(rows, formula(block))
    return result


def _pairwise_from_intersections(formula: Formula, pair: PairKernel, a: Region, b: Region,
                                 dtype: np.dtype) -> np.ndarray:
    """A metric of every pair from the sparse pairwise intersections and, block by block, the rest of it.

    Each block runs the same formula as the elementwise metric, so the values are the same bits.
    """
    intersections = _pairwise(lambda m: m.intersection, a, b, np.float64, disjoint=_nothing_to_add)
    result = intersections if dtype == np.float64 else np.empty(a.shape + b.shape, dtype=dtype)
    rows, values = intersections.reshape(a.size, b.size), result.reshape(a.size, b.size)
    column_a, row_b = a.reshape(a.size, 1), b.reshape(1, b.size)
    step = max(1, PAIRS_PER_ENCLOSURE_STEP // max(1, b.size))
    for start in range(0, a.size, step):
        block = slice(start, start + step)
        values[block] = formula(_RegionMeasures(pair, column_a[block], row_b, intersection=rows[block]))
    return result


def _fill_dense(formula: Formula, pair: PairKernel, a: Region, b: Region, rows: np.ndarray) -> None:
    """Fill ``rows[i, j] = formula(a[i], b[j])`` a block of rows at a time, by broadcasting."""
    column_a, row_b = a.reshape(a.size, 1), b.reshape(1, b.size)
    step = max(1, PAIRWISE_CHUNK // max(1, b.size))
    for start in range(0, a.size, step):
        rows[start : start + step] = formula(_RegionMeasures(pair, column_a[start : start + step], row_b))


def _sparse_sweep(a: Region, b: Region, *, always: bool) -> SweepCandidates | None:
    """The sweep's candidates if the sparse path pays off for these batches, else None.

    It does when few pairs can overlap, and `always` for kernels that measure candidates one by
    one anyway (the sweep finds the same candidates faster than their own pruning).
    """
    if not (_gatherable(a) and _gatherable(b)):
        return None
    sweep = SweepCandidates(a.bounds.reshape(a.size, 2 * a.ndim), b.bounds.reshape(b.size, 2 * b.ndim))
    return sweep if always or sweep.upper_bound <= SPARSE_FRACTION * a.size * b.size else None


def _gatherable(region: Region) -> bool:
    if region.size == 0:
        return False
    nbytes = sum(getattr(region, name).nbytes for name in region._fields)
    return nbytes <= GATHER_LIMIT_BYTES * region.size


def _empty_pairs_divide(zero_division: float) -> Disjoint:
    """IoU of pairs that share nothing: 0, but `zero_division` where both regions are empty (0/0)."""
    def write(rows: np.ndarray, area_a: np.ndarray, area_b: np.ndarray) -> None:
        empty_a = area_a == 0
        if empty_a.any():  # most batches hold no empty region: no index to build
            rows[np.ix_(empty_a, area_b == 0)] = zero_division
    return write


def _empty_a_divides(zero_division: float) -> Disjoint:
    """IoF of pairs that share nothing: 0, but `zero_division` where `a` is empty (0/0)."""
    def write(rows: np.ndarray, area_a: np.ndarray, area_b: np.ndarray) -> None:
        empty_a = area_a == 0
        if empty_a.any():
            rows[empty_a, :] = zero_division
    return write


def _nothing_to_add(rows: np.ndarray, area_a: np.ndarray, area_b: np.ndarray) -> None:
    """Intersection of pairs that share nothing: 0, already written."""


def _box_enclosure(a: Region, b: Region) -> tuple[np.ndarray, np.ndarray]:
    """Measure and squared diagonal of the smallest axis-aligned box (or interval) holding both."""
    extents = enclosing_extents(*bound_columns(a), *bound_columns(b))
    measure, diagonal2 = extents[0], extents[0] * extents[0]
    for extent in extents[1:]:
        measure = measure * extent
        diagonal2 = diagonal2 + extent * extent
    return measure, diagonal2


def default_enclosure(a: Region, b: Region) -> Enclosure:
    """Return the GIoU enclosure `giou` uses for `a` and `b` when none is asked for.

    The GIoU paper's box formula for two boxes (torchvision's values) and two intervals; the convex
    hull of the union for every other pair.

    Examples
    --------
    >>> import geoiou
    >>> default_enclosure(geoiou.Box([0, 0, 1, 1]), geoiou.Box([2, 0, 3, 1]))
    'box'
    >>> default_enclosure(geoiou.Box([0, 0, 1, 1]), geoiou.RotatedBox([2, 0, 1, 1, 30]))
    'hull'
    """
    same_axis_aligned = type(a) is type(b) and isinstance(a, (Box, Interval))
    return "box" if same_axis_aligned else "hull"


# --------------------------------------------------------------------------- public metrics
def intersection_area(a: Region, b: Region) -> Result:
    """Return the measure of the intersection of `a` and `b`, elementwise.

    Parameters
    ----------
    a, b : Region
        Regions with broadcastable batch shapes (any two 2-D kinds, or two intervals).

    Returns
    -------
    float or ndarray of the broadcast batch shape
        Area (length for intervals) of ``a ∩ b``.

    Raises
    ------
    UnsupportedPairError
        If the kinds cannot be compared (an interval with a 2-D region).

    Examples
    --------
    >>> import geoiou
    >>> geoiou.intersection_area(geoiou.Box([0, 0, 2, 2]), geoiou.Box([1, 1, 3, 3]))
    1.0
    >>> geoiou.intersection_area(geoiou.Box([0, 0, 1, 1]), geoiou.Box([1, 0, 2, 1]))  # shared edge
    0.0
    """
    return as_measure(_measures(a, b).intersection)


def union_area(a: Region, b: Region) -> Result:
    """Return the measure of the union of `a` and `b`, elementwise.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.union_area(geoiou.Box([0, 0, 2, 2]), geoiou.Box([1, 1, 3, 3]))
    7.0
    >>> geoiou.union_area(geoiou.Interval([0, 0]), geoiou.Interval([5, 5]))  # two empty intervals
    0.0
    """
    return as_measure(_union_of(_measures(a, b)))


def iou(a: Region, b: Region, *, zero_division: float = math.nan) -> Result:
    """Return the intersection over union of `a` and `b`, elementwise with broadcasting.

    Parameters
    ----------
    a, b : Region
        Regions with broadcastable batch shapes: any two of Box, RotatedBox, Polygon and Mask,
        or two Intervals.
    zero_division : float, default NaN
        The result where the union is empty (both regions have measure 0): NaN, or a number in
        ``[0, 1]`` such as 0.0 or 1.0.

    Returns
    -------
    float or ndarray of the broadcast batch shape
        ``|a ∩ b| / |a ∪ b|`` in ``[0, 1]``.

    Raises
    ------
    UnsupportedPairError
        If the kinds cannot be compared (an interval with a 2-D region).

    See Also
    --------
    pairwise_iou : every region of `a` against every region of `b`.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.iou(geoiou.Box([0, 0, 2, 2]), geoiou.Box([1, 1, 3, 3]))  # 1 / 7
    0.14285714285714285
    >>> geoiou.iou(geoiou.Box([0, 0, 2, 2]), geoiou.RotatedBox([1, 1, 2, 2, 90]))
    1.0
    >>> geoiou.iou(geoiou.Interval([3, 3]), geoiou.Interval([3, 3]), zero_division=1.0)
    1.0
    """
    return as_measure(_iou_of(_measures(a, b), zero_division_value(zero_division)))


def iof(a: Region, b: Region, *, zero_division: float = math.nan) -> Result:
    """Return the intersection over the measure of `a` ("intersection over foreground"), elementwise.

    This is how predictions are matched to crowd regions: a detection inside a crowd box scores 1
    however large the crowd is.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.iof(geoiou.Box([0, 0, 1, 1]), geoiou.Box([0, 0, 10, 10]))
    1.0
    >>> geoiou.iof(geoiou.Box([0, 0, 0, 0]), geoiou.Box([0, 0, 10, 10]))  # empty `a`
    nan
    """
    return as_measure(_iof_of(_measures(a, b), zero_division_value(zero_division)))


def giou(a: Region, b: Region, *, enclosure: Enclosure | None = None, zero_division: float = math.nan) -> Result:
    """Return the generalized IoU ``IoU - |C \\ (a ∪ b)| / |C|`` of `a` and `b`, elementwise.

    Parameters
    ----------
    a, b : Region
        Regions with broadcastable batch shapes.
    enclosure : {"box", "hull"}, optional
        The enclosing region C: ``"box"`` is the smallest axis-aligned box (interval) holding both,
        ``"hull"`` the convex hull of their union. By default ``"box"`` for Box×Box (the GIoU
        paper's formula and torchvision's values) and Interval×Interval, ``"hull"`` otherwise.
    zero_division : float, default NaN
        The result where the union is empty.

    Returns
    -------
    float or ndarray of the broadcast batch shape
        Values in ``[-1, 1]``; ``C`` of zero measure (both regions one point) gives the IoU.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.giou(geoiou.Box([0, 0, 1, 1]), geoiou.Box([2, 0, 3, 1]))  # C = 3, union 2
    -0.3333333333333333
    >>> geoiou.giou(geoiou.Box([0, 0, 1, 1]), geoiou.Box([2, 0, 3, 1]), enclosure="hull")
    -0.3333333333333333
    """
    measures = _measures(a, b)
    return as_measure(_giou_of(measures, zero_division_value(zero_division), _resolved_enclosure(a, b, enclosure)))


def enclosure_area(a: Region, b: Region, *, enclosure: Enclosure | None = None) -> Result:
    """Return the measure of GIoU's enclosing region C of `a` and `b`, elementwise.

    Parameters
    ----------
    a, b : Region
        Regions with broadcastable batch shapes.
    enclosure : {"box", "hull"}, optional
        As in `giou`: by default the smallest axis-aligned box for Box×Box and the enclosing interval
        for Interval×Interval, the convex hull of the union otherwise.

    Returns
    -------
    float or ndarray of the broadcast batch shape
        The area (length for intervals) of C, at least the union's.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.enclosure_area(geoiou.Box([0, 0, 1, 1]), geoiou.Box([2, 0, 3, 1]))  # the box [0, 3] x [0, 1]
    3.0
    >>> geoiou.enclosure_area(geoiou.Box([0, 0, 1, 1]), geoiou.Box([1, 1, 2, 2]), enclosure="hull")  # a hexagon
    3.0
    >>> geoiou.enclosure_area(geoiou.Interval([0, 1]), geoiou.Interval([4, 5]))
    5.0
    """
    measures = _measures(a, b)
    return as_measure(_larger(measures.enclosure(_resolved_enclosure(a, b, enclosure)), _union_of(measures)))


def _resolved_enclosure(a: Region, b: Region, enclosure: Enclosure | None) -> Enclosure:
    enclosure = default_enclosure(a, b) if enclosure is None else enclosure
    if enclosure not in ENCLOSURES:
        raise InvalidArgumentError(f"'enclosure' must be one of {ENCLOSURES} or None (got {enclosure!r})")
    return enclosure


def diou(a: Region, b: Region, *, zero_division: float = math.nan) -> Result:
    """Return the distance IoU ``IoU - d² / c²``, elementwise.

    ``d`` is the distance between the centroids and ``c`` the diagonal of the smallest axis-aligned
    box (interval) holding both regions, as torchvision's ``distance_box_iou`` for boxes; here it
    holds for every kind. An empty polygon or mask has no centroid: its DIoU is NaN.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.diou(geoiou.Box([0, 0, 1, 1]), geoiou.Box([0, 0, 1, 1]))
    1.0
    >>> round(geoiou.diou(geoiou.Box([0, 0, 1, 1]), geoiou.Box([1, 0, 2, 1])), 6)  # d=1, c²=5
    -0.2
    """
    return as_measure(_diou_of(_measures(a, b), zero_division_value(zero_division)))


def _diou_of(m: Measures, zero_division: float) -> Result:
    return _iou_of(m, zero_division) - _centre_penalty(m.a, m.b)


def _centre_penalty(a: Region, b: Region) -> np.ndarray:
    """``d² / c²`` of DIoU; 0 when the enclosing box is a single point."""
    distance2 = np.sum((a.centroid - b.centroid) ** 2, axis=-1)
    diagonal2 = _box_enclosure(a, b)[1]
    return _ratio(distance2, diagonal2, 0.0)


def ciou(a: Box, b: Box, *, zero_division: float = math.nan) -> Result:
    """Return the complete IoU ``DIoU - α·v`` of axis-aligned boxes, elementwise.

    ``v = 4/π² · (atan(w_b/h_b) - atan(w_a/h_a))²`` compares aspect ratios and
    ``α = v / (1 - IoU + v)`` (0 when both vanish), as torchvision's ``complete_box_iou`` without its
    ``eps``. Only boxes have it: a rotated box turned by 90° with swapped sides is the same region
    but another aspect term, so the metric is not a function of the regions there.

    Raises
    ------
    UnsupportedPairError
        If `a` or `b` is not a `Box`.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.ciou(geoiou.Box([0, 0, 2, 2]), geoiou.Box([0, 0, 2, 2]))
    1.0
    >>> round(geoiou.ciou(geoiou.Box([0, 0, 2, 1]), geoiou.Box([0, 0, 1, 2])), 6)
    0.237082
    """
    _require_boxes(a, b)
    return as_measure(_ciou_of(_measures(a, b), zero_division_value(zero_division)))


def _require_boxes(a: Region, b: Region) -> None:
    if not (isinstance(a, Box) and isinstance(b, Box)):
        raise UnsupportedPairError(f"ciou is defined for Box×Box only (got {type(a).__name__}×{type(b).__name__})")


def _ciou_of(m: Measures, zero_division: float) -> Result:
    overlap = _iou_of(m, zero_division)
    aspect_a = np.arctan2(m.a.width, m.a.height)
    aspect_b = np.arctan2(m.b.width, m.b.height)
    v = (4 / np.pi**2) * (aspect_b - aspect_a) ** 2
    alpha = _ratio(v, 1 - overlap + v, 0.0)
    return overlap - _centre_penalty(m.a, m.b) - alpha * v


def pairwise_intersection_area(a: Region, b: Region, *, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return the intersection measure of every region of `a` with every region of `b`.

    Returns
    -------
    ndarray of shape ``a.shape + b.shape``
        ``(N, M)`` for batches of N and M regions.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_intersection_area(geoiou.Box([[0, 0, 2, 2]]), geoiou.Box([[1, 1, 3, 3], [5, 5, 6, 6]]))
    array([[1., 0.]])
    """
    return _pairwise(lambda m: m.intersection, a, b, dtype, disjoint=_nothing_to_add)


def pairwise_iou(a: Region, b: Region, *, zero_division: float = math.nan, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return the IoU of every region of `a` with every region of `b`.

    Parameters
    ----------
    a, b : Region
        Batches of any kinds that `iou` accepts; single regions count as batches of shape ``()``.
    zero_division : float, default NaN
        The result where the union is empty.
    dtype : dtype, default float64
        Type of the result; ``np.float32`` halves its memory (values are computed in float64).

    Returns
    -------
    ndarray of shape ``a.shape + b.shape``
        ``(N, M)`` for batches of N and M regions, computed a block of rows at a time so that the
        working memory beside the result stays bounded.

    Examples
    --------
    >>> import geoiou
    >>> boxes = geoiou.Box([[0, 0, 2, 2], [1, 1, 3, 3]])
    >>> geoiou.pairwise_iou(boxes, boxes)
    array([[1.        , 0.14285714],
           [0.14285714, 1.        ]])
    >>> geoiou.pairwise_iou(boxes, geoiou.Box([[0, 0, 0, 0]])[:0]).shape  # an empty batch
    (2, 0)
    """
    zero_division = zero_division_value(zero_division)
    return _pairwise(lambda m: _iou_of(m, zero_division), a, b, dtype, disjoint=_empty_pairs_divide(zero_division))


def pairwise_iof(a: Region, b: Region, *, zero_division: float = math.nan, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return the IoF (intersection over the measure of `a`) for every pair, shape ``a.shape + b.shape``.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_iof(geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[0, 0, 10, 10], [0, 0, 0.5, 1]]))
    array([[1. , 0.5]])
    """
    zero_division = zero_division_value(zero_division)
    return _pairwise(lambda m: _iof_of(m, zero_division), a, b, dtype, disjoint=_empty_a_divides(zero_division))


def pairwise_giou(a: Region, b: Region, *, enclosure: Enclosure | None = None,
                  zero_division: float = math.nan, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return the GIoU of every region of `a` with every region of `b`, shape ``a.shape + b.shape``.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_giou(geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[0, 0, 1, 1], [2, 0, 3, 1]]))
    array([[ 1.        , -0.33333333]])
    """
    zero_division = zero_division_value(zero_division)
    _require_regions(a, b)
    enclosure = _resolved_enclosure(a, b, enclosure)
    return _pairwise(lambda m: _giou_of(m, zero_division, enclosure), a, b, dtype, enclosure=enclosure,
                     from_intersections=True)


def pairwise_diou(a: Region, b: Region, *, zero_division: float = math.nan, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return the DIoU of every region of `a` with every region of `b`, shape ``a.shape + b.shape``.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_diou(geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[0, 0, 1, 1], [1, 0, 2, 1]]))
    array([[ 1. , -0.2]])
    """
    zero_division = zero_division_value(zero_division)
    return _pairwise(lambda m: _diou_of(m, zero_division), a, b, dtype, fused=False, from_intersections=True)


def pairwise_ciou(a: Box, b: Box, *, zero_division: float = math.nan, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return the CIoU of every box of `a` with every box of `b`, shape ``a.shape + b.shape``.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_ciou(geoiou.Box([[0, 0, 2, 2]]), geoiou.Box([[0, 0, 2, 2]]))
    array([[1.]])
    """
    _require_boxes(a, b)
    zero_division = zero_division_value(zero_division)
    return _pairwise(lambda m: _ciou_of(m, zero_division), a, b, dtype, fused=False)
