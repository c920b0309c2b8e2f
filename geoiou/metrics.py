"""Overlap metrics for any pair of regions: each a few lines over the kernels' measures.

Plain functions are elementwise with NumPy broadcasting over the batch shapes (a float for two
single regions); ``pairwise_*`` functions compare every region of `a` with every region of `b`
and return an array of shape ``a.shape + b.shape``.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Literal, cast

import numpy as np
from numpy.typing import DTypeLike

from geoiou import _core
from geoiou._contiguous import contiguous
from geoiou._validation import zero_division_value
from geoiou.dispatch import PairKernel, broadcast_pairs, find_kernel
from geoiou.errors import InvalidArgumentError, UnsupportedPairError
from geoiou.regions import Box, Box3D, Interval, Region

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
    if isinstance(a, Region) and isinstance(b, Region):  # the one test of the single-pair path
        return
    from geoiou._validation import not_a_region  # the error path only

    raise not_a_region("b" if isinstance(a, Region) else "a", b if isinstance(a, Region) else a)


def _require_broadcastable(a: Region, b: Region) -> None:
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise InvalidArgumentError(
            f"'a' and 'b' must have batch shapes that broadcast, as NumPy arrays do (got "
            f"{a.shape} and {b.shape}); pairwise_* functions compare every a with every b"
        ) from None


@functools.cache
def _formulas() -> Any:
    """`geoiou.kernels.formulas`, imported on first use (the kernels are not loaded by `import geoiou`)."""
    from geoiou.kernels import formulas

    return formulas


class _Measures:
    """What the metric formulas use of `pairs` of two batches (any shapes, indexed flat).

    Every metric goes through this one route: an elementwise metric passes the broadcast pairs (a
    single pair is a batch of one), a pairwise matrix the candidate pairs or the rows of a block,
    `overlaps` and `match` the pairs they found. The pair's kernel measures each pair and applies
    the metric's formula (`geoiou.kernels.formulas`) in the same pass, writing into `out`.
    """

    __slots__ = ("a", "areas_a", "areas_b", "b", "pair", "pairs")

    def __init__(self, pair: PairKernel, a: Region, b: Region, pairs: Any) -> None:
        self.pair, self.a, self.b, self.pairs = pair, a, b, pairs
        #: Measures of every region of `a` and `b`, flat (not per pair: the formulas gather them).
        formulas = _formulas()
        self.areas_a, self.areas_b = formulas.floats(a._area_array()), formulas.floats(b._area_array())

    def into(
        self,
        code: int,
        out: np.ndarray,
        zero_division: float = 0.0,
        given: np.ndarray | None = None,
        kernel: PairKernel | None = None,
    ) -> np.ndarray:
        """Write the formula `code` of each pair into `out` (float64, one per pair), measured by `kernel` (default:
        the pair's intersection kernel); `given` is the other measure GIoU needs."""
        formulas = _formulas()
        given = _NOTHING if given is None else given
        formula = formulas.Formula(code, self.areas_a, self.areas_b, given, zero_division)
        formulas.evaluate(self.pair if kernel is None else kernel, self.a, self.b, self.pairs, formula, out)
        return out

    def enclosure_kernel(self, enclosure: Enclosure) -> PairKernel:
        """The kernel of GIoU's C of each pair: the enclosing axis-aligned box, or the convex hull of the union."""
        if enclosure == "box":
            from geoiou.kernels.box import BOX_ENCLOSURE  # the kernels: not loaded by `import geoiou`

            return BOX_ENCLOSURE
        return find_kernel(type(self.a), type(self.b), measure="hull")

    def centre_tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Both sides' centroids ``(n, d)`` and bounds ``(n, 2d)``, per region (DIoU's terms, gathered by the crate)."""
        d = self.a.ndim
        return (
            contiguous(self.a.centroid).reshape(self.a.size, d),
            contiguous(self.b.centroid).reshape(self.b.size, d),
            contiguous(self.a.bounds).reshape(self.a.size, 2 * d),
            contiguous(self.b.bounds).reshape(self.b.size, 2 * d),
        )


Formula = Callable[[_Measures, np.ndarray], np.ndarray]


def _pairs(index_a: np.ndarray, index_b: np.ndarray, outer: bool = False) -> Any:
    """`geoiou.kernels.formulas.Pairs` (the crate's class)."""
    return _formulas().Pairs(index_a, index_b, outer)


#: The pair indices of two single regions: one pair, (0, 0).
_ONE_PAIR = np.zeros(1, dtype=np.int64)
#: No `given` measure (a `Formula`'s place for GIoU's other measure).
_NOTHING = np.empty(0)


def _elementwise(formula: Formula, a: Region, b: Region, single: tuple[int, float] | None = None) -> Result:
    """`formula` of each pair of two broadcastable batches: a float for two single regions, else an array.

    `single` is the formula's code and `zero_division` when it is one of the kernels' formulas: two
    single regions whose kernel has a single-pair entry (``kernel.single``, the same compiled pair
    function in one call with no pair lists) then take it.
    """
    _require_regions(a, b)
    pair = find_kernel(type(a), type(b))
    shape_a, shape_b = a.shape, b.shape
    if single is not None and not (shape_a or shape_b):
        kernel = pair.kernel
        takes = single[0] in kernel.single_codes  # GIoU: if it measures the enclosure too
        if kernel.single is not None and takes and not (pair.swapped or pair.convert_a or pair.convert_b):
            return kernel.single(a, b, *single)
    if shape_a or shape_b:
        _require_broadcastable(a, b)
        index_a, index_b, shape = broadcast_pairs(shape_a, shape_b)
    else:  # one pair: the same indices every time
        index_a = index_b = _ONE_PAIR
        shape = ()
    values = formula(_Measures(pair, a, b, _pairs(index_a, index_b)), np.empty(len(index_a)))
    return float(values[0]) if not shape else values.reshape(shape)


# --------------------------------------------------------------------------- formulas
# Each metric is written once, over the measures of its pairs: elementwise, single and pairwise
# results all go through the same lines. The codes are those of `geoiou.kernels.formulas`.
_INTERSECTION, _IOU, _UNION, _IOF, _GIOU, _GIOU_OF_HULL, _MEASURE = 1, 2, 3, 4, 5, 6, 0


def _intersection_of(m: _Measures, out: np.ndarray) -> np.ndarray:
    return m.into(_INTERSECTION, out)


def _union_of(m: _Measures, out: np.ndarray) -> np.ndarray:
    """``|a| + |b| - |a ∩ b|`` of each pair."""
    return m.into(_UNION, out)


def _iou_of(m: _Measures, out: np.ndarray, zero_division: float) -> np.ndarray:
    return m.into(_IOU, out, zero_division)


def _iof_of(m: _Measures, out: np.ndarray, zero_division: float) -> np.ndarray:
    return m.into(_IOF, out, zero_division)


def _giou_of(m: _Measures, out: np.ndarray, zero_division: float, enclosure: Enclosure) -> np.ndarray:
    if enclosure == "box" and _formulas().measures_box_enclosure(m.pair):
        return m.into(_GIOU, out, zero_division)  # boxes, intervals: intersection and C in one pass
    # The intersections first, then the enclosure kernel turns each into GIoU in place.
    intersection = m.into(_INTERSECTION, out)
    return m.into(_GIOU_OF_HULL, out, zero_division, given=intersection, kernel=m.enclosure_kernel(enclosure))


#: Pairs measured per step of the candidates of a pairwise matrix: the temporaries of a step (a few
#: float64 arrays of this many pairs) bound the memory beside the output.
PAIRWISE_CHUNK = 1 << 18
#: Pairs per block of rows when every pair of a matrix is measured (the result's rows are written in
#: place; DIoU's temporaries are a dozen arrays of this many pairs).
EVERY_PAIR_BLOCK = 1 << 19
#: Matrices of at most this many pairs measure every pair (each kernel prunes a disjoint pair in a
#: few comparisons), without the candidate search, whose set-up costs more than such a matrix.
SMALL_PAIRS = 1 << 13

Disjoint = Callable[[np.ndarray, np.ndarray, np.ndarray], None]
_FLOAT64 = np.dtype(np.float64)


def _pairwise(formula: Formula, a: Region, b: Region, dtype: DTypeLike, disjoint: Disjoint | None = None) -> np.ndarray:
    """Apply a metric's `formula` to every pair of ``a × b``; return shape ``a.shape + b.shape``.

    Where the metric's value for pairs that share nothing is known (`disjoint` writes it: 0, or
    `zero_division` for 0/0), only the candidate pairs (bounds overlapping) are measured, unless the
    matrix is small (`SMALL_PAIRS`); otherwise (GIoU, DIoU, CIoU) every pair is, a block of rows at
    a time. Values are computed in float64 and stored as `dtype`.
    """
    _require_regions(a, b)
    pair = find_kernel(type(a), type(b))  # an unsupported pair fails even when a batch is empty
    dtype = _float_dtype(dtype)
    shape_a, shape_b = a.shape, b.shape
    size_a, size_b = math.prod(shape_a), math.prod(shape_b)
    flat_a = a if len(shape_a) == 1 else a.reshape(size_a)
    flat_b = b if len(shape_b) == 1 else b.reshape(size_b)
    # Zeros come from the allocator as untouched pages, so the candidate path pays only for what it writes.
    result = np.zeros(shape_a + shape_b, dtype=dtype)
    rows = result.reshape(size_a, size_b)
    if disjoint is None or size_a * size_b <= SMALL_PAIRS:
        from geoiou._pages import prefaulted  # every cell is written, by the kernel's threads

        prefaulted(result)
        _every_pair(formula, pair, flat_a, flat_b, rows)
        return result
    from geoiou.kernels.candidates import scatter  # the kernels: not loaded by `import geoiou`

    disjoint(rows, flat_a._area_array(), flat_b._area_array())
    for index_a, index_b in _candidates(flat_a, flat_b).chunks(PAIRWISE_CHUNK):
        values = formula(_Measures(pair, flat_a, flat_b, _pairs(index_a, index_b)), np.empty(len(index_a)))
        scatter(rows, index_a, index_b, values)
    return result


def _every_pair(formula: Formula, pair: PairKernel, a: Region, b: Region, rows: np.ndarray) -> None:
    """`formula` of every pair of the flat batches `a` and `b` into `rows` ``(N, M)``, a block of rows at a time.

    The kernel runs over the rows of each block (`Pairs` in outer form: no index per pair) and a
    float64 result is written in place.
    """
    size_a, size_b = rows.shape
    columns = np.arange(size_b, dtype=np.int64)
    step = max(1, EVERY_PAIR_BLOCK // max(1, size_b))
    in_place = rows.dtype == np.float64
    for start in range(0, size_a, step):
        stop = min(start + step, size_a)
        block = rows[start:stop].reshape(-1) if in_place else np.empty((stop - start) * size_b)
        formula(_Measures(pair, a, b, _pairs(np.arange(start, stop, dtype=np.int64), columns, outer=True)), block)
        if not in_place:
            rows[start:stop] = block.reshape(stop - start, size_b)


def _float_dtype(dtype: DTypeLike) -> np.dtype:
    """`dtype` as a NumPy floating-point dtype, or a refusal naming the parameter."""
    if dtype is np.float64:  # the default: no parsing
        return _FLOAT64
    try:
        chosen = np.dtype(dtype)
    except TypeError:
        chosen = None
    if chosen is None or chosen.kind != "f":
        shown = repr(dtype) if chosen is None else str(chosen)
        raise InvalidArgumentError(f"'dtype' must be a floating-point type such as float64 or float32 (got {shown})")
    return chosen


def _candidates(a: Region, b: Region) -> Any:
    """The pairs of two flat batches whose bounds overlap (`geoiou.kernels.candidates`, loaded on first use)."""
    from geoiou.kernels.candidates import Candidates  # the kernels: not loaded by `import geoiou`

    return Candidates(a.bounds.reshape(a.size, 2 * a.ndim), b.bounds.reshape(b.size, 2 * b.ndim))


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


def default_enclosure(a: Region, b: Region) -> Enclosure:
    """Return the GIoU enclosure `giou` uses for `a` and `b` when none is asked for.

    The GIoU paper's box formula for two boxes (torchvision's values), two axis-aligned 3-D boxes
    and two intervals; the convex hull of the union (in 3-D, the convex polyhedron) for every other
    pair.

    Examples
    --------
    >>> import geoiou
    >>> default_enclosure(geoiou.Box([0, 0, 1, 1]), geoiou.Box([2, 0, 3, 1]))
    'box'
    >>> default_enclosure(geoiou.Box([0, 0, 1, 1]), geoiou.RotatedBox([2, 0, 1, 1, 30]))
    'hull'
    """
    same_axis_aligned = type(a) is type(b) and isinstance(a, (Box, Box3D, Interval))
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
    return _elementwise(_intersection_of, a, b, (_INTERSECTION, 0.0))


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
    return _elementwise(_union_of, a, b, (_UNION, 0.0))


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
    zero_division = zero_division_value(zero_division)
    return _elementwise(lambda m, out: _iou_of(m, out, zero_division), a, b, (_IOU, zero_division))


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
    return _elementwise(lambda m, out: _iof_of(m, out, zero_division), a, b, (_IOF, zero_division))


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
    enclosure = _resolved_enclosure(a, b, enclosure)
    single = (_GIOU if enclosure == "box" else _GIOU_OF_HULL, zero_division)
    return _elementwise(lambda m, out: _giou_of(m, out, zero_division, enclosure), a, b, single)


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
    enclosure = _resolved_enclosure(a, b, enclosure)
    return _elementwise(lambda m, out: _enclosure_of(m, out, enclosure), a, b)


def _enclosure_of(m: _Measures, out: np.ndarray, enclosure: Enclosure) -> np.ndarray:
    union = _union_of(m, np.empty(len(out)))
    m.into(_MEASURE, out, kernel=m.enclosure_kernel(enclosure))
    np.maximum(out, union, out=out)
    return out


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
    zero_division = zero_division_value(zero_division)
    return _elementwise(lambda m, out: _diou_of(m, out, zero_division), a, b)


def _diou_of(m: _Measures, out: np.ndarray, zero_division: float) -> np.ndarray:
    _iou_of(m, out, zero_division)
    _core.subtract_centre_penalties(*m.centre_tables(), m.pairs, out)  # ``d² / c²``, in place
    return out


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
    zero_division = zero_division_value(zero_division)
    return _elementwise(lambda m, out: _ciou_of(m, out, zero_division), a, b)


def _require_boxes(a: Region, b: Region) -> None:
    if not (isinstance(a, Box) and isinstance(b, Box)):
        raise UnsupportedPairError(f"ciou is defined for Box×Box only (got {type(a).__name__}×{type(b).__name__})")


def _ciou_of(m: _Measures, out: np.ndarray, zero_division: float) -> np.ndarray:
    _iou_of(m, out, zero_division)
    # Each box's aspect angle once, by NumPy's arctan2 (its bits, which its SIMD code gives on some CPUs);
    # the crate takes the pairs' differences.
    aspect_a, aspect_b = (_aspect_angles(cast(Box, region)) for region in (m.a, m.b))  # `ciou` takes boxes only
    _core.complete_ious(*m.centre_tables(), aspect_a, aspect_b, m.pairs, out)
    return out


def _aspect_angles(boxes: Box) -> np.ndarray:
    """``atan2(w, h)`` of each box, flat."""
    return contiguous(np.arctan2(boxes.width, boxes.height)).reshape(-1)


def iou_of_pairs(
    a: Region, b: Region, index_a: np.ndarray, index_b: np.ndarray, *, zero_division: float = math.nan
) -> np.ndarray:
    """Return the IoU of the pairs ``(a[index_a[k]], b[index_b[k]])`` of two flat batches.

    The route of every metric, for callers that found their pairs themselves (`overlaps`, `match`):
    no region is gathered per pair.

    Parameters
    ----------
    a, b : Region
        Batches of shape ``(N,)`` and ``(M,)``.
    index_a, index_b : ndarray of int64, shape (n,)
        The pairs to measure.
    zero_division : float, default NaN
        The result where the union is empty.

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np, geoiou
    >>> boxes = geoiou.Box([[0, 0, 2, 2], [1, 1, 3, 3]])
    >>> iou_of_pairs(boxes, boxes, np.array([0, 0]), np.array([0, 1]))
    array([1.        , 0.14285714])
    """
    return _of_pairs(_iou_of, a, b, index_a, index_b, zero_division)


def iof_of_pairs(
    a: Region, b: Region, index_a: np.ndarray, index_b: np.ndarray, *, zero_division: float = math.nan
) -> np.ndarray:
    """Return the IoF (intersection over the measure of `a`) of the pairs ``(a[index_a[k]], b[index_b[k]])``.

    As `iou_of_pairs`: for callers that found their pairs (a prediction's share inside a region to ignore).

    Examples
    --------
    >>> import numpy as np, geoiou
    >>> boxes = geoiou.Box([[0, 0, 2, 2], [1, 1, 3, 3]])
    >>> iof_of_pairs(boxes, boxes, np.array([0]), np.array([1]))
    array([0.25])
    """
    return _of_pairs(_iof_of, a, b, index_a, index_b, zero_division)


def _of_pairs(
    formula: Callable[[_Measures, np.ndarray, float], np.ndarray],
    a: Region,
    b: Region,
    index_a: np.ndarray,
    index_b: np.ndarray,
    zero_division: float,
) -> np.ndarray:
    _require_regions(a, b)
    zero_division = zero_division_value(zero_division)
    index_a, index_b = _as_indices(index_a), _as_indices(index_b)
    measures = _Measures(find_kernel(type(a), type(b)), a, b, _pairs(index_a, index_b))
    return formula(measures, np.empty(len(index_a)), zero_division)


def _as_indices(index: np.ndarray) -> np.ndarray:
    """`index` as a writable, C-contiguous int64 array (the one array type the kernels' drivers compile for)."""
    index = np.asarray(index, dtype=np.int64)
    return index if index.flags.writeable and index.flags.c_contiguous else np.array(index)


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
    return _pairwise(_intersection_of, a, b, dtype, disjoint=_nothing_to_add)


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
    return _pairwise(
        lambda m, out: _iou_of(m, out, zero_division), a, b, dtype, disjoint=_empty_pairs_divide(zero_division)
    )


def pairwise_iof(a: Region, b: Region, *, zero_division: float = math.nan, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return the IoF (intersection over the measure of `a`) for every pair, shape ``a.shape + b.shape``.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_iof(geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[0, 0, 10, 10], [0, 0, 0.5, 1]]))
    array([[1. , 0.5]])
    """
    zero_division = zero_division_value(zero_division)
    return _pairwise(
        lambda m, out: _iof_of(m, out, zero_division), a, b, dtype, disjoint=_empty_a_divides(zero_division)
    )


def pairwise_giou(
    a: Region,
    b: Region,
    *,
    enclosure: Enclosure | None = None,
    zero_division: float = math.nan,
    dtype: DTypeLike = np.float64,
) -> np.ndarray:
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
    return _pairwise(lambda m, out: _giou_of(m, out, zero_division, enclosure), a, b, dtype)


def pairwise_diou(
    a: Region, b: Region, *, zero_division: float = math.nan, dtype: DTypeLike = np.float64
) -> np.ndarray:
    """Return the DIoU of every region of `a` with every region of `b`, shape ``a.shape + b.shape``.

    Examples
    --------
    >>> import geoiou
    >>> geoiou.pairwise_diou(geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[0, 0, 1, 1], [1, 0, 2, 1]]))
    array([[ 1. , -0.2]])
    """
    zero_division = zero_division_value(zero_division)
    return _pairwise(lambda m, out: _diou_of(m, out, zero_division), a, b, dtype)


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
    return _pairwise(lambda m, out: _ciou_of(m, out, zero_division), a, b, dtype)
