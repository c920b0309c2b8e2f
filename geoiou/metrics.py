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
from geoiou.dispatch import find_kernel
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


# --------------------------------------------------------------------------- shared primitives
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


def _overlap(a: Region, b: Region) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Intersection measure of each pair and the measures of `a` and `b` (broadcastable, not broadcast).

    Every kernel keeps ``0 <= intersection <= min(|a|, |b|)`` itself (exact kernels by construction,
    the others by clamping their rounding), so IoU stays in [0, 1] without a pass here.
    """
    _require_regions(a, b)
    _require_broadcastable(a, b)
    intersection = find_kernel(type(a), type(b))(a, b)
    return intersection, a._area_array(), b._area_array()


def _ratio(numerator: np.ndarray, denominator: np.ndarray, zero_division: float) -> np.ndarray:
    """``numerator / denominator``, and `zero_division` where the denominator is 0.

    Every caller has ``numerator == 0`` wherever ``denominator == 0`` (0/0 is NaN), so the
    common default NaN needs no extra pass; any other value is written only where it applies.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        result = np.true_divide(numerator, denominator)
    if not math.isnan(zero_division):
        empty = denominator == 0
        if empty.any():
            result = np.where(empty, zero_division, result)
    return result


def _union(intersection: np.ndarray, area_a: np.ndarray, area_b: np.ndarray) -> np.ndarray:
    union = area_a + area_b
    union -= intersection
    return union


def _iou_and_union(a: Region, b: Region, zero_division: float) -> tuple[np.ndarray, np.ndarray]:
    """IoU and union of each pair.

    No cap at 1 is needed: with ``i <= min(|a|, |b|)`` we have ``|a| + |b| >= 2i``, so rounding
    (monotonic) gives ``fl(|a| + |b|) >= 2i`` and then ``fl(fl(|a| + |b|) - i) >= i``.
    """
    zero_division = zero_division_value(zero_division)
    intersection, area_a, area_b = _overlap(a, b)
    union = _union(intersection, area_a, area_b)
    return _ratio(intersection, union, zero_division), union




#: Elements of a pairwise result computed per step. The temporaries of one step (a dozen arrays of
#: this many float64) stay in the CPU cache and bound the memory beside the output. Each stays under
#: 128 KiB, the size above which glibc's malloc maps fresh pages for every array: measured 4× slower.
PAIRWISE_CHUNK = 15_000


#: Pairs whose enclosure (or centre distance) is measured per step when the intersections came from the
#: sweep: the hull kernel's own steps are costly per call, so it gets more pairs per call than a dense block.
PAIRS_PER_ENCLOSURE_STEP = 1 << 16


#: Take the sparse path when the sweep inspects at most this fraction of all pairs.
SPARSE_FRACTION = 0.25
#: Pairs measured per step of the sparse path.
CANDIDATE_CHUNK = 1 << 16
#: The sparse path gathers regions pair by pair: only for kinds this small per region (not masks).
GATHER_LIMIT_BYTES = 1024


def _pairwise(metric: Callable[..., Result], a: Region, b: Region, dtype: DTypeLike,
              disjoint: Callable[..., None] | None = None, of_measures: Callable[..., np.ndarray] | None = None,
              **options: Any) -> np.ndarray:
    """Apply an elementwise `metric` to every pair of ``a × b``; return shape ``a.shape + b.shape``.

    When most pairs cannot overlap and the metric's value for such pairs is known (`disjoint`
    writes it), only the pairs found by a sweep over the bounds are measured. Otherwise rows are
    computed a block at a time. Values are computed in float64 and then stored as `dtype`.

    `of_measures` (GIoU, DIoU) computes the metric from the pairs' intersections: for kinds
    measured candidate by candidate, the intersections then come from the sweep and only the
    rest of the metric (an enclosure, a distance) is computed for every pair, in row blocks.
    """
    _require_regions(a, b)
    kernel = find_kernel(type(a), type(b))  # an unsupported pair fails even when a batch is empty
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise InvalidArgumentError(f"'dtype' must be a floating-point type such as float64 or float32 (got {dtype})")
    if of_measures is not None and kernel.per_candidate:
        return _pairwise_from_intersections(of_measures, a, b, dtype, options)
    flat_a, flat_b = a.reshape(a.size), b.reshape(b.size)
    sweep = _sparse_sweep(flat_a, flat_b, always=kernel.per_candidate) if disjoint is not None else None
    # Zeros come from the allocator as untouched zero pages, so the sparse path pays only for what it writes.
    result = (np.empty if sweep is None else np.zeros)(a.shape + b.shape, dtype=dtype)
    rows = result.reshape(a.size, b.size)
    if sweep is None:
        _fill_dense(metric, flat_a, flat_b, rows, options)
    else:
        disjoint(rows, flat_a._area_array(), flat_b._area_array(), **options)
        for index_a, index_b in sweep.chunks(CANDIDATE_CHUNK):
            rows[index_a, index_b] = metric(flat_a[index_a], flat_b[index_b], **options)
    return result


def _pairwise_from_intersections(of_measures: Callable[..., np.ndarray], a: Region, b: Region, dtype: np.dtype,
                                 options: dict) -> np.ndarray:
    """A metric of every pair from the sparse pairwise intersections and, block by block, the rest of it.

    Each block runs the same arithmetic as the elementwise metric, so the values are the same bits.
    """
    if "zero_division" in options:
        options = {**options, "zero_division": zero_division_value(options["zero_division"])}
    intersections = _pairwise(intersection_area, a, b, np.float64, disjoint=_nothing_to_add)
    result = intersections if dtype == np.float64 else np.empty(a.shape + b.shape, dtype=dtype)
    rows, values = intersections.reshape(a.size, b.size), result.reshape(a.size, b.size)
    column_a, row_b = a.reshape(a.size, 1), b.reshape(1, b.size)
    area_a, area_b = column_a._area_array(), row_b._area_array()
    step = max(1, PAIRS_PER_ENCLOSURE_STEP // max(1, b.size))
    for start in range(0, a.size, step):
        block = slice(start, start + step)
        values[block] = of_measures(column_a[block], row_b, rows[block], area_a[block], area_b, **options)
    return result


def _fill_dense(metric: Callable[..., Result], a: Region, b: Region, rows: np.ndarray, options: dict) -> None:
    """Fill ``rows[i, j] = metric(a[i], b[j])`` a block of rows at a time, by broadcasting."""
    column_a, row_b = a.reshape(a.size, 1), b.reshape(1, b.size)
    step = max(1, PAIRWISE_CHUNK // max(1, b.size))
    for start in range(0, a.size, step):
        rows[start : start + step] = metric(column_a[start : start + step], row_b, **options)


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


def _empty_pairs_divide(rows: np.ndarray, area_a: np.ndarray, area_b: np.ndarray, *, zero_division: float = math.nan) -> None:
    """IoU of pairs that share nothing: 0, but `zero_division` where both regions are empty (0/0)."""
    rows[np.ix_(area_a == 0, area_b == 0)] = zero_division_value(zero_division)


def _empty_a_divides(rows: np.ndarray, area_a: np.ndarray, area_b: np.ndarray, *, zero_division: float = math.nan) -> None:
    """IoF of pairs that share nothing: 0, but `zero_division` where `a` is empty (0/0)."""
    rows[area_a == 0, :] = zero_division_value(zero_division)


def _nothing_to_add(rows: np.ndarray, area_a: np.ndarray, area_b: np.ndarray) -> None:
    """Intersection of pairs that share nothing: 0, already written."""


def _box_enclosure(a: Region, b: Region) -> tuple[np.ndarray, np.ndarray]:
    """Measure and squared diagonal of the smallest axis-aligned box (or interval) holding both."""
    bounds_a, bounds_b = a.bounds, b.bounds
    half = bounds_a.shape[-1] // 2
    measure, diagonal2 = 1.0, 0.0
    for axis in range(half):  # one axis at a time: no (..., 2·ndim) temporaries of the pair shape
        extent = np.maximum(bounds_a[..., half + axis], bounds_b[..., half + axis])
        extent -= np.minimum(bounds_a[..., axis], bounds_b[..., axis])
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
    return as_measure(_overlap(a, b)[0])


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
    return as_measure(_union(*_overlap(a, b)))


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
    return as_measure(_iou_and_union(a, b, zero_division)[0])


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
    zero_division = zero_division_value(zero_division)
    intersection, area_a, _ = _overlap(a, b)
    return as_measure(_ratio(intersection, area_a, zero_division))


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
    zero_division = zero_division_value(zero_division)
    intersection, area_a, area_b = _overlap(a, b)
    return as_measure(_giou_of_measures(a, b, intersection, area_a, area_b, enclosure=enclosure,
                                        zero_division=zero_division))


def _giou_of_measures(a: Region, b: Region, intersection: np.ndarray, area_a: np.ndarray, area_b: np.ndarray, *,
                      enclosure: Enclosure | None, zero_division: float) -> np.ndarray:
    """GIoU from the pairs' intersections and measures; the enclosure is measured here."""
    union = _union(intersection, area_a, area_b)
    overlap = _ratio(intersection, union, zero_division)
    # Rounding in the hull could leave it a hair below the union; C >= union always holds exactly.
    enclosing = np.maximum(_enclosure_measure(a, b, enclosure), union)
    return overlap - _ratio(enclosing - union, enclosing, 0.0)


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
    union = union_area(a, b)  # checks that both are regions
    return as_measure(np.maximum(_enclosure_measure(a, b, enclosure), union))


def _enclosure_measure(a: Region, b: Region, enclosure: Enclosure | None) -> np.ndarray:
    enclosure = default_enclosure(a, b) if enclosure is None else enclosure
    if enclosure not in ENCLOSURES:
        raise InvalidArgumentError(f"'enclosure' must be one of {ENCLOSURES} or None (got {enclosure!r})")
    if enclosure == "box":
        return _box_enclosure(a, b)[0]
    return find_kernel(type(a), type(b), measure="hull")(a, b)


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
    zero_division = zero_division_value(zero_division)
    intersection, area_a, area_b = _overlap(a, b)
    return as_measure(_diou_of_measures(a, b, intersection, area_a, area_b, zero_division=zero_division))


def _diou_of_measures(a: Region, b: Region, intersection: np.ndarray, area_a: np.ndarray, area_b: np.ndarray, *,
                      zero_division: float) -> np.ndarray:
    """DIoU from the pairs' intersections and measures; the centre penalty is computed here."""
    overlap = _ratio(intersection, _union(intersection, area_a, area_b), zero_division)
    return overlap - _centre_penalty(a, b)


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
    if not (isinstance(a, Box) and isinstance(b, Box)):
        raise UnsupportedPairError(f"ciou is defined for Box×Box only (got {type(a).__name__}×{type(b).__name__})")
    overlap = _iou_and_union(a, b, zero_division)[0]
    aspect_a = np.arctan2(a.width, a.height)
    aspect_b = np.arctan2(b.width, b.height)
    v = (4 / np.pi**2) * (aspect_b - aspect_a) ** 2
    alpha = _ratio(v, 1 - overlap + v, 0.0)
    return as_measure(overlap - _centre_penalty(a, b) - alpha * v)


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
    return _pairwise(intersection_area, a, b, dtype, disjoint=_nothing_to_add)


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
    return _pairwise(iou, a, b, dtype, disjoint=_empty_pairs_divide, zero_division=zero_division)


def pairwise_iof(a: Region, b: Region, *, zero_division: float = math.nan, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return the IoF (intersection over the measure of `a`) for every pair, shape ``a.shape + b.shape``.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_iof(geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[0, 0, 10, 10], [0, 0, 0.5, 1]]))
    array([[1. , 0.5]])
    """
    return _pairwise(iof, a, b, dtype, disjoint=_empty_a_divides, zero_division=zero_division)


def pairwise_giou(a: Region, b: Region, *, enclosure: Enclosure | None = None,
                  zero_division: float = math.nan, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return the GIoU of every region of `a` with every region of `b`, shape ``a.shape + b.shape``.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_giou(geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[0, 0, 1, 1], [2, 0, 3, 1]]))
    array([[ 1.        , -0.33333333]])
    """
    return _pairwise(giou, a, b, dtype, of_measures=_giou_of_measures, enclosure=enclosure,
                     zero_division=zero_division)


def pairwise_diou(a: Region, b: Region, *, zero_division: float = math.nan, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return the DIoU of every region of `a` with every region of `b`, shape ``a.shape + b.shape``.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_diou(geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[0, 0, 1, 1], [1, 0, 2, 1]]))
    array([[ 1. , -0.2]])
    """
    return _pairwise(diou, a, b, dtype, of_measures=_diou_of_measures, zero_division=zero_division)


def pairwise_ciou(a: Box, b: Box, *, zero_division: float = math.nan, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return the CIoU of every box of `a` with every box of `b`, shape ``a.shape + b.shape``.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_ciou(geoiou.Box([[0, 0, 2, 2]]), geoiou.Box([[0, 0, 2, 2]]))
    array([[1.]])
    """
    return _pairwise(ciou, a, b, dtype, zero_division=zero_division)
