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
from geoiou.dispatch import find_kernel
from geoiou.errors import InvalidArgumentError, UnsupportedPairError
from geoiou.regions import Box, Interval, Region
from geoiou.regions.base import as_measure

__all__ = [
    "ciou",
    "diou",
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
            raise TypeError(f"{name!r} must be a geoiou Region such as Box or Polygon (got {type(value).__name__})")


def _overlap(a: Region, b: Region) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Intersection measure of each pair and the measures of `a` and `b` (broadcastable, not broadcast).

    Every kernel keeps ``0 <= intersection <= min(|a|, |b|)`` itself (exact kernels by construction,
    the others by clamping their rounding), so IoU stays in [0, 1] without a pass here.
    """
    _require_regions(a, b)
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
    """IoU (capped at 1 against a last rounding of the union) and the union of each pair."""
    zero_division = _checked_zero_division(zero_division)
    intersection, area_a, area_b = _overlap(a, b)
    union = _union(intersection, area_a, area_b)
    overlap = _ratio(intersection, union, zero_division)
    return np.minimum(overlap, 1.0, out=overlap if isinstance(overlap, np.ndarray) else None), union


def _checked_zero_division(value: float) -> float:
    if not isinstance(value, (int, float, np.floating, np.integer)) or not (math.isnan(value) or 0 <= value <= 1):
        raise InvalidArgumentError(f"'zero_division' must be NaN or a number in [0, 1] (got {value!r})")
    return float(value)


#: Elements of a pairwise result computed per step. The temporaries of one step (a dozen arrays of
#: this many float64) stay in the CPU cache and bound the memory beside the output.
PAIRWISE_CHUNK = 1 << 15


def _pairwise(metric: Callable[..., Result], a: Region, b: Region, dtype: DTypeLike, **options: Any) -> np.ndarray:
    """Apply an elementwise `metric` to every pair of ``a × b``, a block of rows of `a` at a time.

    Returns an array of shape ``a.shape + b.shape`` and type `dtype`; rows are computed in float64
    and only then stored, so ``dtype=np.float32`` halves the output without losing exactness first.
    """
    _require_regions(a, b)
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise InvalidArgumentError(f"'dtype' must be a floating-point type such as float64 or float32 (got {dtype})")
    result = np.empty(a.shape + b.shape, dtype=dtype)
    rows, flat_b = result.reshape(a.size, b.size), b.reshape(1, b.size)
    flat_a = a.reshape(a.size, 1)
    step = max(1, PAIRWISE_CHUNK // max(1, b.size))
    for start in range(0, a.size, step):
        rows[start : start + step] = metric(flat_a[start : start + step], flat_b, **options)
    return result


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


def _default_enclosure(a: Region, b: Region) -> Enclosure:
    # The GIoU paper's box formula for boxes (torchvision's values) and intervals; the hull otherwise.
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
    zero_division = _checked_zero_division(zero_division)
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
    enclosure = _default_enclosure(a, b) if enclosure is None else enclosure
    if enclosure not in ENCLOSURES:
        raise InvalidArgumentError(f"'enclosure' must be one of {ENCLOSURES} or None (got {enclosure!r})")
    overlap, union = _iou_and_union(a, b, zero_division)
    if enclosure == "box":
        enclosing = _box_enclosure(a, b)[0]
    else:
        enclosing = find_kernel(type(a), type(b), measure="hull")(a, b)
    # Rounding in the hull could leave it a hair below the union; C >= union always holds exactly.
    enclosing = np.maximum(enclosing, union)
    penalty = _ratio(enclosing - union, enclosing, 0.0)
    return as_measure(overlap - penalty)


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
    overlap = _iou_and_union(a, b, zero_division)[0]
    return as_measure(overlap - _centre_penalty(a, b))


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
    return _pairwise(intersection_area, a, b, dtype)


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
    return _pairwise(iou, a, b, dtype, zero_division=zero_division)


def pairwise_iof(a: Region, b: Region, *, zero_division: float = math.nan, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return the IoF (intersection over the measure of `a`) for every pair, shape ``a.shape + b.shape``.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_iof(geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[0, 0, 10, 10], [0, 0, 0.5, 1]]))
    array([[1. , 0.5]])
    """
    return _pairwise(iof, a, b, dtype, zero_division=zero_division)


def pairwise_giou(a: Region, b: Region, *, enclosure: Enclosure | None = None,
                  zero_division: float = math.nan, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return the GIoU of every region of `a` with every region of `b`, shape ``a.shape + b.shape``.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_giou(geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[0, 0, 1, 1], [2, 0, 3, 1]]))
    array([[ 1.        , -0.33333333]])
    """
    return _pairwise(giou, a, b, dtype, enclosure=enclosure, zero_division=zero_division)


def pairwise_diou(a: Region, b: Region, *, zero_division: float = math.nan, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return the DIoU of every region of `a` with every region of `b`, shape ``a.shape + b.shape``.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_diou(geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[0, 0, 1, 1], [1, 0, 2, 1]]))
    array([[ 1. , -0.2]])
    """
    return _pairwise(diou, a, b, dtype, zero_division=zero_division)


def pairwise_ciou(a: Box, b: Box, *, zero_division: float = math.nan, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return the CIoU of every box of `a` with every box of `b`, shape ``a.shape + b.shape``.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_ciou(geoiou.Box([[0, 0, 2, 2]]), geoiou.Box([[0, 0, 2, 2]]))
    array([[1.]])
    """
    return _pairwise(ciou, a, b, dtype, zero_division=zero_division)
