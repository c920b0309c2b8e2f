"""Vectorized kernels for rotated boxes ``(cx, cy, w, h, angle)``, angle in degrees.

A box's corners are ``centre + R(angle) @ (±w/2, ±h/2)`` with ``R = [[cos, -sin], [sin, cos]]``,
in the order ``(-w/2, -h/2), (+w/2, -h/2), (+w/2, +h/2), (-w/2, +h/2)`` (counter-clockwise in
a y-up frame, positive shoelace area). ``w`` and ``h`` may be 0: such a box has area 0.

The pair kernels broadcast the batch shapes of their two arguments like NumPy does and work
through the pairs in chunks of bounded size, computing each pair in the frame of its first box
`a` (centred on it, turned by minus its angle), where `a` is an axis-aligned rectangle:

- the intersection clamps the second box into that rectangle, the frame scaled to make it the
  square ``[-1, 1]²`` (:func:`~geoiou.kernels.convex.unit_square_clipped_area`): a fixed amount
  of branch-free work per pair, no clipped polygons to grow and compact. Parallel boxes take
  the exact closed form of two rectangles, and a box inside the other its exact area;
- the hull walks the eight edge normals of the two boxes in angular order and keeps, for each,
  the box that reaches further (see :func:`_hull_of_pairs`).

Only differences of centres and of angles enter the frame, so boxes far from the origin
(1e6 .. 1e9) keep the precision of their sizes, and boxes whose angles differ by a multiple of
90 degrees are exactly aligned in it. Pairs whose axis-aligned bounds do not overlap are 0
without being computed: the bounds are tested on blocks of pairs, and the few survivors of
sparse blocks are computed together in full chunks.
"""

from __future__ import annotations

import math
import threading
from typing import Callable, Iterator, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .convex import Scratch, sum_planes, unit_square_clipped_area

__all__ = ["RotatedBoxPairs", "rotated_box_corners", "rotated_box_hull_area", "rotated_box_intersection_area"]

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

# Pairs per chunk. A chunk takes a few hundred NumPy calls whatever its size, and about 0.7 kB
# of work arrays per pair (kept per thread between calls, see _thread_scratch): 4096 pairs
# measured as fast as 8192 or 16384 and faster than 2048.
DEFAULT_CHUNK_SIZE = 4096

# Corner signs of (w/2, h/2) in the order of the convention (counter-clockwise).
_CORNER_SIGNS = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])


def rotated_box_corners(coords: ArrayLike) -> FloatArray:
    """Return the four corners of each rotated box.

    Angles that are multiples of 90 degrees give exact corners (``cos`` and ``sin`` exactly
    0 or ±1), so an unrotated box has the same corners as its axis-aligned twin, and boxes
    whose angles differ by 180 degrees have exactly the same corner set.

    Parameters
    ----------
    coords : array_like of shape (..., 5)
        ``cx, cy, w, h, angle`` of each box, angle in degrees.

    Returns
    -------
    ndarray of shape (..., 4, 2)
        Corners ``(x, y)`` in the order ``(-w/2, -h/2), (+w/2, -h/2), (+w/2, +h/2),
        (-w/2, +h/2)`` relative to the box, rotated and moved to its centre.

    Examples
    --------
    >>> rotated_box_corners([10, 20, 4, 2, 90])
    array([[11., 18.],
           [11., 22.],
           [ 9., 22.],
           [ 9., 18.]])
    >>> rotated_box_corners([[0, 0, 0, 2, 0]])  # zero width: a segment
    array([[[ 0., -1.],
            [ 0., -1.],
            [ 0.,  1.],
            [ 0.,  1.]]])
    """
    boxes = _as_boxes(coords, "coords")
    return boxes[..., None, 0:2] + _corner_offsets(boxes)


def rotated_box_intersection_area(
    a: ArrayLike, b: ArrayLike, *, chunk_size: int = DEFAULT_CHUNK_SIZE
) -> FloatArray:
    """Compute the area of the intersection of rotated boxes, broadcasting their batches.

    Each pair is computed in the frame of its box from `a`, scaled so that this box is the
    square ``[-1, 1]²``, and the box from `b` is clamped into it
    (:func:`~geoiou.kernels.convex.unit_square_clipped_area`): a fixed amount of work per pair.
    Pairs whose axis-aligned bounds do not overlap are 0 without that work (found on whole
    blocks of pairs, then the rest is computed a chunk at a time); parallel boxes get the
    exact closed form of two rectangles; and a box inside the other (identical boxes
    included) gives exactly the smaller area, so ``iou(r, r)`` is exactly 1.

    Parameters
    ----------
    a : array_like of shape (..., 5)
        ``cx, cy, w, h, angle`` (degrees) of the first boxes.
    b : array_like of shape (..., 5)
        Second boxes; the batch shapes ``a.shape[:-1]`` and ``b.shape[:-1]`` must broadcast,
        e.g. ``(N, 1, 5)`` and ``(1, M, 5)`` for all ``N * M`` pairs.
    chunk_size : int, default 4096
        Number of pairs processed at once; bounds the memory, never changes the result.

    Returns
    -------
    ndarray of broadcast batch shape
        Intersection area of each pair, in ``[0, min(area_a, area_b)]``; NaN where a box has NaN.

    Examples
    --------
    >>> square = [0.5, 0.5, 1, 1, 0]
    >>> rotated_box_intersection_area(square, [1.0, 0.5, 1, 1, 0])
    array(0.5)
    >>> rotated_box_intersection_area([square], [[0.5, 0.5, 1, 1, 45], [0.5, 0.5, 0, 1, 0]])
    array([0.82842712, 0.        ])
    """
    return _evaluate_box_pairs(a, b, _intersection_of_pairs, chunk_size, prune_apart=True)


def rotated_box_hull_area(a: ArrayLike, b: ArrayLike, *, chunk_size: int = DEFAULT_CHUNK_SIZE) -> FloatArray:
    """Compute the area of the convex hull of each pair of rotated boxes (for GIoU).

    Along each of the eight edge normals of the two boxes, taken in angular order, the box
    that reaches further contributes its edge (or its corner) to the hull, and the switches
    between boxes are the hull's bridges: a fixed amount of work per pair, no sorting, and
    every hull vertex is a true corner. A box inside the other (identical boxes included)
    gives exactly the larger area.

    Parameters
    ----------
    a : array_like of shape (..., 5)
        ``cx, cy, w, h, angle`` (degrees) of the first boxes.
    b : array_like of shape (..., 5)
        Second boxes; the batch shapes must broadcast as in :func:`rotated_box_intersection_area`.
    chunk_size : int, default 4096
        Number of pairs processed at once; bounds the memory, never changes the result.

    Returns
    -------
    ndarray of broadcast batch shape
        Area of the convex hull of each pair, at least ``max(area_a, area_b)``; NaN where a box has NaN.

    Examples
    --------
    >>> rotated_box_hull_area([0.5, 0.5, 1, 1, 0], [[2.5, 0.5, 1, 1, 0], [0.5, 0.5, 1, 1, 90]])
    array([3., 1.])
    >>> rotated_box_hull_area([0, 0, 0, 0, 0], [4, 0, 0, 0, 30])  # two points
    array(0.)
    """
    return _evaluate_box_pairs(a, b, _hull_of_pairs, chunk_size, prune_apart=False)


def _as_boxes(value: ArrayLike, name: str) -> FloatArray:
    """Return `value` as a float64 array of shape (..., 5) or raise ValueError."""
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 0 or array.shape[-1] != 5:
        raise ValueError(f"{name} must have shape (..., 5) (cx, cy, w, h, angle), got {array.shape}")
    return array


def _unit_vectors(angle: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Return ``cos(angle), sin(angle)`` (degrees), exact at multiples of 90 degrees.

    The angle is split as ``90 * turns + residual`` with ``residual`` in [-45, 45]. The quarter
    turns are applied exactly and only the residual goes through cos/sin, which are exactly 1
    and 0 at residual 0. ``angle - 90 * turns`` is exact (for ``turns != 0`` the two terms are
    within a factor 2 of each other: Sterbenz's lemma), so small angles such as -1e-10 keep
    their full precision, unlike a reduction modulo 360.
    """
    turns = np.round(angle / 90.0)
    residual = (angle - 90.0 * turns) * (np.pi / 180.0)  # np.deg2rad, bit for bit, but faster
    # cos and sin of 90 * quarter for quarter in {0, 1, 2, 3}: (1, 0), (0, 1), (-1, 0), (0, -1).
    quarter = turns - 4.0 * np.floor(0.25 * turns)  # turns mod 4 (np.mod is much slower)
    quarter_cos = np.maximum(1.0 - quarter, quarter - 3.0)
    quarter_sin = np.minimum(quarter, 2.0 - quarter)
    cos, sin = np.cos(residual), np.sin(residual)
    # R(90 * quarter) R(residual): one of the two products in each sum is a signed zero, so
    # the sums are exact (quarter 1 maps (cos, sin) to (-sin, cos), and so on).
    return quarter_cos * cos - quarter_sin * sin, quarter_sin * cos + quarter_cos * sin


def _corner_offsets(boxes: FloatArray) -> FloatArray:
    """Return ``R(angle) @ (±w/2, ±h/2)`` of shape (..., 4, 2), exact at multiples of 90 degrees."""
    cos, sin = (value[..., None] for value in _unit_vectors(boxes[..., 4]))
    x = _CORNER_SIGNS[:, 0] * (0.5 * boxes[..., 2:3])
    y = _CORNER_SIGNS[:, 1] * (0.5 * boxes[..., 3:4])
    return np.stack([cos * x - sin * y, sin * x + cos * y], axis=-1)


class _BoxTable(NamedTuple):
    """Per-box quantities, computed once per call and gathered for each pair.

    Every field is an array of shape (N,) for the N boxes of one argument, flattened.
    """

    cx: FloatArray
    cy: FloatArray
    cos: FloatArray  # of the angle, exact at multiples of 90 degrees
    sin: FloatArray
    half_w: FloatArray
    half_h: FloatArray
    area: FloatArray  # w * h exactly; NaN if any of the five numbers is NaN
    # Axis-aligned bounds, exactly those of `rotated_box_corners` (and so of RotatedBox.bounds).
    x_min: FloatArray
    x_max: FloatArray
    y_min: FloatArray
    y_max: FloatArray

    @classmethod
    def build(cls, boxes: FloatArray) -> _BoxTable:
        cx, cy, w, h, angle = np.ascontiguousarray(boxes.reshape(-1, 5).T)
        cos, sin = _unit_vectors(angle)
        # w * h rounds once (the shoelace of the corners would round more); adding 0 times
        # the other three numbers makes it NaN for a box with any NaN.
        area = w * h
        for other in (cx, cy, angle):
            area += 0.0 * other
        half_w, half_h = 0.5 * w, 0.5 * h
        # The corner offsets along x are ±fl(cos half_w) ∓ fl(sin half_h) (_corner_offsets), so
        # the largest is fl(|cos half_w| + |sin half_h|) and the smallest its negative; rounding
        # being monotonic, centre ± that is exactly the extreme corner coordinate.
        reach_x = np.abs(cos * half_w) + np.abs(sin * half_h)
        reach_y = np.abs(sin * half_w) + np.abs(cos * half_h)
        return cls(cx, cy, cos, sin, half_w, half_h, area, cx - reach_x, cx + reach_x, cy - reach_y, cy + reach_y)

    def take(self, index: Index, scratch: Scratch) -> _BoxTable:
        """Return the boxes of a chunk's pairs: views for elementwise pairs, else copies in work arrays.

        Only the fields that the pair functions read are taken; the bounds, used to prune before,
        stay those of the whole table.
        """
        if isinstance(index, _SliceIndex):
            taken = {name: getattr(self, name)[index.positions] for name in _PAIR_FIELDS}
        elif isinstance(index, _LineIndex):
            taken = {name: index.gather(getattr(self, name), scratch((index.size,))) for name in _PAIR_FIELDS}
        else:
            taken = {name: getattr(self, name).take(index, out=scratch(index.shape), mode="clip") for name in _PAIR_FIELDS}
        return self._replace(**taken)


# Which box of one side each pair of a chunk uses: a _SliceIndex or _LineIndex for a whole
# chunk, or the box indices of the pairs kept after pruning.
Index = "_SliceIndex | _LineIndex | NDArray[np.intp]"


class _PairFrame(NamedTuple):
    """Each pair in the frame of its box `a`: centred on it and turned by minus its angle.

    There `a` is the axis-aligned rectangle ``[-a_half_w, a_half_w] × [-a_half_h, a_half_h]``
    and `b` the box with centre ``(x, y)``, half sizes ``b_half_w, b_half_h`` and the direction
    ``(cos, sin)`` of its width. All fields have shape (K,) for K pairs.
    """

    a_half_w: FloatArray
    a_half_h: FloatArray
    b_half_w: FloatArray
    b_half_h: FloatArray
    x: FloatArray
    y: FloatArray
    cos: FloatArray
    sin: FloatArray
    a_area: FloatArray
    b_area: FloatArray

    @classmethod
    def build(cls, a: _BoxTable, b: _BoxTable, scratch: Scratch) -> _PairFrame:
        # The centre difference comes first, so far-away pairs keep the precision of their sizes.
        dx = np.subtract(b.cx, a.cx, out=scratch(a.cx.shape))
        dy = np.subtract(b.cy, a.cy, out=scratch(a.cx.shape))
        x, y = _turn_back(dx, dy, a.cos, a.sin, scratch)
        # R(angle_b - angle_a) = R(-angle_a) R(angle_b): the unit vector of b turned back.
        cos, sin = _turn_back(b.cos, b.sin, a.cos, a.sin, scratch)
        _snap_to_axes(cos, sin)
        return cls(a.half_w, a.half_h, b.half_w, b.half_h, x, y, cos, sin, a.area, b.area)

    def contained(self, scratch: Scratch) -> BoolArray:
        """Return which pairs have one box inside the other (boundaries included).

        A box is inside the other when its centre's offset plus its half extent along each
        axis of the other fits in the other's half size. Rounding can only misjudge a box that
        sticks out by a rounding-sized sliver, whose area is negligible.
        """
        contained = scratch(self.x.shape, np.bool_)
        with scratch.temporaries():
            abs_cos, abs_sin = np.abs(self.cos, out=scratch(self.x.shape)), np.abs(self.sin, out=scratch(self.x.shape))
            b_in_a = _fits(self.x, self.y, self.b_half_w, self.b_half_h, abs_cos, abs_sin,
                           self.a_half_w, self.a_half_h, scratch)
            # Centre of `a` in the frame of `b`: the offset turned back by the relative angle.
            a_x, a_y = _turn_back(self.x, self.y, self.cos, self.sin, scratch)
            a_in_b = _fits(a_x, a_y, self.a_half_w, self.a_half_h, abs_cos, abs_sin,
                           self.b_half_w, self.b_half_h, scratch)
            np.logical_or(b_in_a, a_in_b, out=contained)
        return contained


def _turn_back(
    x: FloatArray, y: FloatArray, cos: FloatArray, sin: FloatArray, scratch: Scratch
) -> tuple[FloatArray, FloatArray]:
    """Return ``R(-angle) (x, y)`` for the unit vector ``(cos, sin)`` of the angle."""
    turned_x, turned_y, term = scratch(x.shape), scratch(x.shape), scratch(x.shape)
    np.multiply(cos, x, out=turned_x)
    turned_x += np.multiply(sin, y, out=term)
    np.multiply(cos, y, out=turned_y)
    turned_y -= np.multiply(sin, x, out=term)
    return turned_x, turned_y


def _fits(
    x: FloatArray, y: FloatArray, half_w: FloatArray, half_h: FloatArray, abs_cos: FloatArray, abs_sin: FloatArray,
    limit_w: FloatArray, limit_h: FloatArray, scratch: Scratch,
) -> BoolArray:
    """Return whether a box (centre, half sizes, ``|cos|, |sin|`` of its direction) fits in ``[-limit, limit]``."""
    fits, inside = scratch(x.shape, np.bool_), scratch(x.shape, np.bool_)
    reach, term = scratch(x.shape), scratch(x.shape)
    axes = ((x, abs_cos, abs_sin, limit_w, fits), (y, abs_sin, abs_cos, limit_h, inside))
    for offset, along, across, limit, out in axes:
        # |offset| + half_w |along| + half_h |across|: the furthest corner from the centre of the other box.
        np.abs(offset, out=reach)
        reach += np.multiply(half_w, along, out=term)
        reach += np.multiply(half_h, across, out=term)
        np.less_equal(reach, limit, out=out)
    return np.logical_and(fits, inside, out=fits)


def _snap_to_axes(cos: FloatArray, sin: FloatArray) -> None:
    """Make relative angles of exactly 0 or ±90 degrees exact rotations, in place.

    Equal angles give ``sin`` exactly 0 and angles 90 degrees apart ``cos`` exactly 0 (the
    same products cancel); the other one is then ±1 up to rounding. Snapping it makes such
    pairs exactly aligned in the frame, so shared edges and corners give exactly 0.
    """
    for zero, other in ((sin, cos), (cos, sin)):
        rows = np.flatnonzero(zero == 0)  # few rows: cheaper than a select over all
        other[rows] = np.copysign(1.0, other[rows])


PairFunction = Callable[[_PairFrame, Scratch], FloatArray]


def _intersection_of_pairs(frame: _PairFrame, scratch: Scratch) -> FloatArray:
    """Return the intersection area of each pair: `b` clamped into the rectangle of `a`.

    The frame is scaled so that `a` becomes the square ``[-1, 1]²``, whose constant bounds make
    the clamps cheap; the area scales back by ``a_half_w * a_half_h``.
    """
    shape = frame.x.shape
    area = scratch(shape)
    with scratch.temporaries(), np.errstate(over="ignore", invalid="ignore"):
        # A flat `a` keeps scale 1: its area, and so the clamp below, makes the result 0. A
        # half size so small that the scaled `b` overflows gives NaN, clamped to the same 0.
        scale_x = np.add(frame.a_half_w, frame.a_half_w == 0, out=scratch(shape))
        scale_y = np.add(frame.a_half_h, frame.a_half_h == 0, out=scratch(shape))
        # Centre, half the width vector (u) and half the height vector (v) of `b`, scaled.
        x = np.divide(frame.x, scale_x, out=scratch(shape))
        y = np.divide(frame.y, scale_y, out=scratch(shape))
        ux = _scaled_product(frame.b_half_w, frame.cos, scale_x, scratch)
        uy = _scaled_product(frame.b_half_w, frame.sin, scale_y, scratch)
        vx = _scaled_product(frame.b_half_h, frame.sin, scale_x, scratch)
        vy = _scaled_product(frame.b_half_h, frame.cos, scale_y, scratch)
        np.negative(vx, out=vx)
        corners_x, corners_y = _rectangle_corners(x, ux, vx, scratch), _rectangle_corners(y, uy, vy, scratch)
        edges_x, edges_y = _rectangle_edges(ux, vx, scratch), _rectangle_edges(uy, vy, scratch)
        unit_area = unit_square_clipped_area(corners_x, corners_y, edges_x, edges_y, scratch)
        np.multiply(unit_area, np.multiply(frame.a_half_w, frame.a_half_h, out=scale_x), out=area)
    _overwrite_aligned_pairs(frame, area)
    # The exact area lies in [0, min(area_a, area_b)], and is the upper end when a box is
    # inside the other; only rounding can step outside. fmax/fmin also turn the NaN of an
    # overflow into a bound (NaN boxes are restored by the caller).
    with scratch.temporaries():
        floor = np.multiply(frame.contained(scratch), _HUGE_AREA, out=scratch(shape))  # 0 or huge
        np.fmax(area, floor, out=area)
        np.fmin(area, np.minimum(frame.a_area, frame.b_area, out=floor), out=area)
    # fmax and fmin return either zero when both are zeros (depending on where a pair sits in the
    # array: SIMD body or scalar tail); adding 0 makes every zero +0, whatever the chunk.
    area += 0.0
    return area


def _overwrite_aligned_pairs(frame: _PairFrame, area: FloatArray) -> None:
    """Give the pairs whose boxes are parallel (relative angle a multiple of 90 degrees) the closed form.

    Scaling the frame rounds even simple coordinates (2.5 / 1.5), while the overlap of two
    parallel rectangles needs only sums, differences and one product: exact for exact inputs
    (integer boxes), as the axis-aligned Box kernel is. Few pairs are parallel in general, so
    this runs on them alone.
    """
    rows = np.flatnonzero((frame.sin == 0) | (frame.cos == 0))
    if not rows.size:
        return
    turned = frame.cos[rows] == 0  # a quarter turn: the width of `b` lies along y
    b_half_w, b_half_h = frame.b_half_w[rows], frame.b_half_h[rows]
    reach_x, reach_y = np.where(turned, b_half_h, b_half_w), np.where(turned, b_half_w, b_half_h)
    overlap_x = _overlap_length(frame.x[rows], reach_x, frame.a_half_w[rows])
    overlap_y = _overlap_length(frame.y[rows], reach_y, frame.a_half_h[rows])
    area[rows] = overlap_x * overlap_y


def _overlap_length(centre: FloatArray, reach: FloatArray, half: FloatArray) -> FloatArray:
    """Return the length of ``[centre - reach, centre + reach] ∩ [-half, half]`` (0 if apart)."""
    return np.maximum(np.minimum(centre + reach, half) - np.maximum(centre - reach, -half), 0.0)


def _scaled_product(size: FloatArray, factor: FloatArray, scale: FloatArray, scratch: Scratch) -> FloatArray:
    """Return ``size * factor / scale`` in a work array."""
    out = np.multiply(size, factor, out=scratch(size.shape))
    out /= scale
    return out


# Larger than any area, yet finite: 0 * _HUGE_AREA is 0.
_HUGE_AREA = 1e300


def _rectangle_corners(centre: FloatArray, u: FloatArray, v: FloatArray, scratch: Scratch) -> FloatArray:
    """Return one coordinate of a rectangle's corners as a plane of shape (4, K).

    The corners are ``centre - u - v, centre + u - v, centre + u + v, centre - u + v``:
    counter-clockwise for a half width vector ``u`` and the half height vector ``v`` a
    quarter turn counter-clockwise from it.
    """
    corners = scratch((4,) + centre.shape)
    np.add(u, v, out=corners[2])
    np.subtract(u, v, out=corners[1])
    np.negative(corners[2], out=corners[0])
    np.negative(corners[1], out=corners[3])
    corners += centre
    return corners


def _rectangle_edges(u: FloatArray, v: FloatArray, scratch: Scratch) -> FloatArray:
    """Return one coordinate of the edges of :func:`_rectangle_corners`: ``2u, 2v, -2u, -2v``, exactly."""
    edges = scratch((4,) + u.shape)
    np.multiply(u, 2.0, out=edges[0])
    np.multiply(v, 2.0, out=edges[1])
    np.negative(edges[0], out=edges[2])
    np.negative(edges[1], out=edges[3])
    return edges


def _hull_of_pairs(frame: _PairFrame, scratch: Scratch) -> FloatArray:
    """Return the area of the convex hull of each pair.

    The support of a convex polygon along a direction is its vertex (or edge) that reaches
    furthest. Describe `b` so that its width makes an angle ``phi`` in [0, 90) with the x
    axis of `a` (:func:`_first_quadrant`). Then the eight edge normals alternate: normal
    ``i`` of `a`, normal ``i`` of `b` (``phi`` further), normal ``i + 1`` of `a`, ...
    Between two consecutive normals each box has one support vertex, and which box reaches
    further changes at most once there (the difference of the two supports is a sinusoid of
    the direction). So walking the eight normals and emitting, for each, the edge of its own
    box if that box reaches at least as far, else the other box's support vertex twice,
    lists the vertices of the hull counter-clockwise (the switches between boxes are the
    hull's bridges). Every emitted point is a true corner, so rounding in the comparisons
    can only add or drop a point that lies on the hull's boundary up to rounding.

    Along normal ``i`` of `a` the supports are its edge ``(a_i, a_{i+1})`` and the corner
    ``b_i``; along normal ``i`` of `b`, its edge ``(b_i, b_{i+1})`` and the corner ``a_{i+1}``.
    With ``A_i`` and ``B_i`` 1 where `a` wins (else 0), the shoelace sum of the emitted loop
    ``[A_i ? a_i : b_i, A_i ? a_{i+1} : b_i, B_i ? a_{i+1} : b_i, B_i ? a_{i+1} : b_{i+1}]``
    needs no selection: the cross product of two consecutive points is 0 when they are the
    same corner, which leaves, per i,
    ``A_i a_i×a_{i+1} + (A_i - B_i) a_{i+1}×b_i + (1 - B_i) b_i×b_{i+1} + (B_i - A_{i+1}) a_{i+1}×b_{i+1}``.
    """
    shape = frame.x.shape
    hull = scratch(shape)
    with scratch.temporaries():
        _twice_hull_shoelace(frame, scratch, out=hull)
    hull *= 0.5
    # A box inside the other makes the hull the larger box; else the hull holds both boxes,
    # and falling below the larger area can only be rounding.
    with scratch.temporaries():
        hull *= np.logical_not(frame.contained(scratch), out=scratch(shape, np.bool_))
        return np.maximum(hull, np.maximum(frame.a_area, frame.b_area, out=scratch(shape)), out=hull)


def _twice_hull_shoelace(frame: _PairFrame, scratch: Scratch, out: FloatArray) -> FloatArray:
    """Write twice the hull's area into `out`: the shoelace sum of :func:`_hull_of_pairs`."""
    shape, planes = frame.x.shape, (4,) + frame.x.shape
    cos, sin, half_w, half_h = _first_quadrant(frame, scratch)
    # Half the width vector (u) and half the height vector (v) of `b`.
    ux, uy = np.multiply(half_w, cos, out=scratch(shape)), np.multiply(half_w, sin, out=scratch(shape))
    vx, vy = np.multiply(half_h, sin, out=scratch(shape)), np.multiply(half_h, cos, out=scratch(shape))
    np.negative(vx, out=vx)
    b_x, b_y = _rectangle_corners(frame.x, ux, vx, scratch), _rectangle_corners(frame.y, uy, vy, scratch)
    b_next_x, b_next_y = _next_corner(b_x, scratch), _next_corner(b_y, scratch)
    # Corner i + 1 of `a`, and how far it is beyond corner i of `b`.
    a_next_x = np.multiply(_A_NEXT_X, frame.a_half_w, out=scratch(planes))
    a_next_y = np.multiply(_A_NEXT_Y, frame.a_half_h, out=scratch(planes))
    beyond_x = np.subtract(a_next_x, b_x, out=scratch(planes))
    beyond_y = np.subtract(a_next_y, b_y, out=scratch(planes))
    # Does `a` reach at least as far along normal i of `a` (bottom, right, top, left) ...
    reach = scratch(planes)
    np.negative(beyond_y[0], out=reach[0])
    np.copyto(reach[1], beyond_x[1])
    np.copyto(reach[2], beyond_y[2])
    np.negative(beyond_x[3], out=reach[3])
    a_wins = _at_least_zero(reach, scratch)
    # ... and along normal i of `b`, which is normal i of `a` turned by phi?
    normal_x, normal_y = _turned_normals(cos, sin, scratch)
    np.multiply(normal_x, beyond_x, out=reach)
    reach += np.multiply(normal_y, beyond_y, out=normal_y)
    a_wins_b = _at_least_zero(reach, scratch)
    # The shoelace sum, term by term (see _hull_of_pairs); the planes no longer needed are reused.
    twice, weight, term = reach, beyond_x, beyond_y
    np.subtract(a_wins, a_wins_b, out=weight)
    np.multiply(weight, _cross(a_next_x, a_next_y, b_x, b_y, term, normal_x), out=twice)
    np.subtract(1.0, a_wins_b, out=weight)
    twice += np.multiply(weight, _cross(b_x, b_y, b_next_x, b_next_y, term, normal_x), out=term)
    np.subtract(a_wins_b, _next_corner(a_wins, scratch), out=weight)
    twice += np.multiply(weight, _cross(a_next_x, a_next_y, b_next_x, b_next_y, term, normal_x), out=term)
    sum_planes(twice, out=out)
    # a_i × a_{i+1} is 2 * a_half_w * a_half_h for every edge of `a`.
    edges_of_a = np.multiply(frame.a_half_w, frame.a_half_h, out=ux)
    edges_of_a *= 2.0
    out += np.multiply(sum_planes(a_wins, out=uy), edges_of_a, out=uy)
    return out


# Corner i + 1 of `a` as signs of its half sizes (corner i + 1 ends edge i of `a`).
_A_NEXT_X = np.array([1.0, 1.0, -1.0, -1.0])[:, None]
_A_NEXT_Y = np.array([-1.0, 1.0, 1.0, -1.0])[:, None]


def _next_corner(planes: FloatArray, scratch: Scratch) -> FloatArray:
    """Return the planes rolled by one: plane i holds what plane i + 1 held (cyclically)."""
    rolled = scratch(planes.shape)
    rolled[:-1] = planes[1:]
    rolled[-1] = planes[0]
    return rolled


def _at_least_zero(values: FloatArray, scratch: Scratch) -> FloatArray:
    """Return 1.0 where `values` >= 0, else 0.0."""
    flags = np.greater_equal(values, 0.0, out=scratch(values.shape, np.bool_))
    factors = scratch(values.shape)
    np.copyto(factors, flags)
    return factors


def _turned_normals(cos: FloatArray, sin: FloatArray, scratch: Scratch) -> tuple[FloatArray, FloatArray]:
    """Return the outward normals of the edges of `b` as planes (4, K).

    They are those of `a`, ``(0, -1), (1, 0), (0, 1), (-1, 0)``, turned by ``(cos, sin)``.
    """
    normal_x, normal_y = scratch((4,) + cos.shape), scratch((4,) + cos.shape)
    for index, (value_x, value_y) in enumerate(((sin, cos), (cos, sin), (sin, cos), (cos, sin))):
        np.copyto(normal_x[index], value_x)
        np.copyto(normal_y[index], value_y)
    # Signs: (sin, -cos), (cos, sin), (-sin, cos), (-cos, -sin).
    normal_y[0] *= -1.0
    normal_x[2] *= -1.0
    normal_x[3] *= -1.0
    normal_y[3] *= -1.0
    return normal_x, normal_y


def _cross(
    ux: FloatArray, uy: FloatArray, vx: FloatArray, vy: FloatArray, out: FloatArray, work: FloatArray
) -> FloatArray:
    """Return the z component of the cross product ``u × v`` in `out` (`work` is overwritten)."""
    np.multiply(ux, vy, out=out)
    out -= np.multiply(uy, vx, out=work)
    return out


def _first_quadrant(frame: _PairFrame, scratch: Scratch) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Describe `b` by a width direction at an angle in [0, 90) degrees: ``cos, sin, half_w, half_h``.

    Turning a rectangle's description by a multiple of 90 degrees, and swapping its width and
    height for odd ones, gives the same rectangle. For a relative angle in [0, 90) or
    [180, 270) that direction is ``(|cos|, |sin|)`` with the same sizes; otherwise it is
    ``(|sin|, |cos|)`` with width and height swapped. All exact, and chosen by arithmetic
    (a 0/1 factor) rather than by a data-dependent branch.
    """
    shape = frame.cos.shape
    cos, sin = frame.cos, frame.sin
    positive = ((cos > 0) & (sin >= 0)) | ((cos < 0) & (sin <= 0))  # [0, 90) or [180, 270)
    keep = scratch(shape)
    np.copyto(keep, positive)
    swap = np.subtract(1.0, keep, out=scratch(shape))
    abs_cos, abs_sin = np.abs(cos, out=scratch(shape)), np.abs(sin, out=scratch(shape))
    return tuple(_blend(kept, swapped, keep, swap, scratch) for kept, swapped in (
        (abs_cos, abs_sin), (abs_sin, abs_cos), (frame.b_half_w, frame.b_half_h), (frame.b_half_h, frame.b_half_w)))


def _blend(kept: FloatArray, swapped: FloatArray, keep: FloatArray, swap: FloatArray, scratch: Scratch) -> FloatArray:
    """Return ``kept * keep + swapped * swap`` for 0/1 factors: an exact, branch-free choice."""
    out = np.multiply(kept, keep, out=scratch(kept.shape))
    out += np.multiply(swapped, swap, out=scratch(kept.shape))
    return out


def _evaluate_box_pairs(
    a: ArrayLike, b: ArrayLike, pair_function: PairFunction, chunk_size: int, *, prune_apart: bool
) -> FloatArray:
    """Apply `pair_function` to every pair of the broadcast batches, chunk by chunk.

    The pairs are never materialised as an ``(N * M, 5)`` copy: each chunk gathers per-box
    quantities from two tables, and all chunks compute into the same work arrays. With
    `prune_apart`, pairs whose axis-aligned bounds do not overlap are 0 (see
    :func:`_write_overlapping_pairs`).
    """
    boxes_a, boxes_b = _as_boxes(a, "a"), _as_boxes(b, "b")
    chunk_size = int(chunk_size)
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size}")
    tables = _BoxTable.build(boxes_a), _BoxTable.build(boxes_b)
    return _evaluate_grid(*tables, boxes_a.shape[:-1], boxes_b.shape[:-1], pair_function, chunk_size, prune_apart)


def _evaluate_grid(table_a: _BoxTable, table_b: _BoxTable, shape_a: tuple[int, ...], shape_b: tuple[int, ...],
                   pair_function: PairFunction, chunk_size: int, prune_apart: bool) -> FloatArray:
    """`_evaluate_box_pairs` from the tables of the two batches, whose shapes broadcast."""
    batch_shape = np.broadcast_shapes(shape_a, shape_b)
    result = np.zeros(math.prod(batch_shape))
    scratch = _thread_scratch() if min(chunk_size, result.size) <= DEFAULT_CHUNK_SIZE else Scratch()
    writer = _PairWriter.of(table_a, table_b, pair_function, result, scratch)
    if prune_apart:
        _write_overlapping_pairs(writer, shape_a, shape_b, chunk_size)
    else:
        for chunk, index_a, index_b in _pair_chunks(shape_a, shape_b, chunk_size):
            writer.write(chunk, index_a, index_b)
    return result.reshape(batch_shape)


class RotatedBoxPairs:
    """Pairs of two flat batches of rotated boxes, measured a few at a time from tables built once.

    The pairwise metrics measure many blocks of pairs of the same two batches: the candidates
    found by a sweep over the bounds, or blocks of rows. Each block takes its boxes from the
    per-box tables (centre, direction, half sizes, bounds) instead of building them again, and
    gives the bits of `rotated_box_intersection_area` and `rotated_box_hull_area`.

    Parameters
    ----------
    a : array_like of shape (N, 5)
    b : array_like of shape (M, 5)
        ``cx, cy, w, h, angle`` (degrees) of the boxes.

    Examples
    --------
    >>> pairs = RotatedBoxPairs([[0.5, 0.5, 1, 1, 0]], [[1.0, 0.5, 1, 1, 0], [0.5, 0.5, 1, 1, 90]])
    >>> pairs.intersection(np.array([0, 0]), np.array([1, 0]))
    array([1. , 0.5])
    >>> pairs.hull_rows(slice(0, 1))
    array([[1.5, 1. ]])
    """

    def __init__(self, a: ArrayLike, b: ArrayLike) -> None:
        boxes_a, boxes_b = _as_boxes(a, "a").reshape(-1, 5), _as_boxes(b, "b").reshape(-1, 5)
        # One table for both batches (half the NumPy calls of two); each side is a view of it.
        self.table = _BoxTable.build(np.concatenate([boxes_a, boxes_b]))
        self.split = len(boxes_a)
        self.table_a = _BoxTable(*(field[: self.split] for field in self.table))
        self.table_b = _BoxTable(*(field[self.split :] for field in self.table))

    def intersection(self, index_a: NDArray[np.intp], index_b: NDArray[np.intp]) -> FloatArray:
        """Intersection areas of the pairs ``(a[index_a[k]], b[index_b[k]])`` (pairs whose bounds overlap)."""
        return self._pairs(_intersection_of_pairs, index_a, index_b)

    def hull(self, index_a: NDArray[np.intp], index_b: NDArray[np.intp]) -> FloatArray:
        """Convex hull areas of the pairs ``(a[index_a[k]], b[index_b[k]])``."""
        return self._pairs(_hull_of_pairs, index_a, index_b)

    def intersection_rows(self, rows: slice) -> FloatArray:
        """Intersection areas of ``a[rows]`` with every box of `b`, shape ``(rows, M)``."""
        return self._rows(_intersection_of_pairs, rows, prune_apart=True)

    def hull_rows(self, rows: slice) -> FloatArray:
        """Convex hull areas of ``a[rows]`` with every box of `b`, shape ``(rows, M)``."""
        return self._rows(_hull_of_pairs, rows, prune_apart=False)

    def _pairs(self, pair_function: PairFunction, index_a: NDArray[np.intp], index_b: NDArray[np.intp]) -> FloatArray:
        # Both sides index the one table, so the pairs can be put in canonical order by their indices.
        first, second = _canonical_indices(self.table, index_a, index_b + self.split)
        result = np.zeros(len(index_a))
        writer = _PairWriter.of(self.table, self.table, pair_function, result, _thread_scratch())
        for start in range(0, len(index_a), DEFAULT_CHUNK_SIZE):
            chunk = slice(start, start + DEFAULT_CHUNK_SIZE)
            writer.write(chunk, first[chunk], second[chunk])
        return result

    def _rows(self, pair_function: PairFunction, rows: slice, prune_apart: bool) -> FloatArray:
        table_a = _BoxTable(*(field[rows] for field in self.table_a))
        shape_a, shape_b = (len(table_a.cx), 1), (1, len(self.table_b.cx))
        return _evaluate_grid(table_a, self.table_b, shape_a, shape_b, pair_function, DEFAULT_CHUNK_SIZE, prune_apart)


class _PairWriter(NamedTuple):
    """Computes pairs given by their box indices and writes them into the flat result."""

    table_a: _BoxTable
    table_b: _BoxTable
    pair_function: PairFunction
    result: FloatArray
    scratch: Scratch
    any_nan: bool = True  # False when neither table has a NaN: the NaN pass is skipped

    def write(
        self, positions: slice | NDArray[np.intp], index_a: Index, index_b: Index, keep: BoolArray | None = None
    ) -> None:
        """Compute the pairs at `positions`, and write 0 where `keep` is False."""
        self.scratch.reset()
        pairs_a, pairs_b = self.table_a.take(index_a, self.scratch), self.table_b.take(index_b, self.scratch)
        first, second = _canonical_order(pairs_a, pairs_b)
        values = self.pair_function(_PairFrame.build(first, second, self.scratch), self.scratch)
        if keep is not None:
            values *= keep
        self.result[positions] = _with_nan(values, pairs_a, pairs_b, self.scratch) if self.any_nan else values

    @classmethod
    def of(cls, table_a: _BoxTable, table_b: _BoxTable, pair_function: PairFunction, result: FloatArray,
           scratch: Scratch) -> _PairWriter:
        any_nan = bool(np.isnan(table_a.area).any() or np.isnan(table_b.area).any())
        return cls(table_a, table_b, pair_function, result, scratch, any_nan)


def _canonical_order(a: _BoxTable, b: _BoxTable) -> tuple[_BoxTable, _BoxTable]:
    """Each pair with its two boxes in a fixed order, so that ``(a, b)`` and ``(b, a)`` give the same bits.

    A pair is computed in the frame of its first box, and the rounding in one box's frame is not
    the rounding in the other's: without an order, ``iou(a, b)`` and ``iou(b, a)`` differed in the
    last bits. The first box is the one with the smaller centre x; ties (rare, but every pair of a
    box with itself) go on to y, the half sizes and the direction. Boxes equal in all of these are
    the same box to the kernels, in either order. Only the fields the pair functions read are
    reordered; the bounds were used before, to prune.
    """
    swap = _swapped(a, b)
    if not swap.any():
        return a, b
    first = {name: np.where(swap, getattr(b, name), getattr(a, name)) for name in _PAIR_FIELDS}
    second = {name: np.where(swap, getattr(a, name), getattr(b, name)) for name in _PAIR_FIELDS}
    return a._replace(**first), b._replace(**second)


def _swapped(a: _BoxTable | _Gathered, b: _BoxTable | _Gathered) -> BoolArray:
    """Which pairs are out of the canonical order of `_canonical_order`."""
    swap = b.cx < a.cx
    ties = np.flatnonzero(b.cx == a.cx)
    if ties.size:
        swap[ties] = _lexicographic_less(b, a, ties)
    return swap


def _canonical_indices(table: _BoxTable, index_a: NDArray[np.intp],
                       index_b: NDArray[np.intp]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Pairs of boxes of one table, by index, in the order of `_canonical_order`.

    Deciding on the indices costs two gathers and two selects, where reordering the gathered
    fields costs fourteen selects; `_canonical_order` then finds nothing to swap.
    """
    swap = _swapped(_Gathered(table, index_a), _Gathered(table, index_b))
    return np.where(swap, index_b, index_a), np.where(swap, index_a, index_b)


class _Gathered(NamedTuple):
    """The fields of some boxes of a table, gathered when read."""

    table: _BoxTable
    index: NDArray[np.intp]

    def __getattr__(self, name: str) -> FloatArray:
        return getattr(self.table, name)[self.index]


# The fields of _BoxTable that _PairFrame.build and _with_nan read, in the order that breaks ties.
_PAIR_FIELDS = ("cx", "cy", "half_w", "half_h", "cos", "sin", "area")


def _lexicographic_less(x: _BoxTable, y: _BoxTable, rows: NDArray[np.intp]) -> BoolArray:
    """Whether box `x` comes before box `y` in the order of `_PAIR_FIELDS`, on `rows` whose ``cx`` are equal."""
    less = np.zeros(rows.size, dtype=bool)
    undecided = np.ones(rows.size, dtype=bool)
    for name in _PAIR_FIELDS[1:]:
        x_values, y_values = getattr(x, name)[rows], getattr(y, name)[rows]
        less |= undecided & (x_values < y_values)
        undecided &= x_values == y_values
    return less


def _write_overlapping_pairs(
    writer: _PairWriter, shape_a: tuple[int, ...], shape_b: tuple[int, ...], chunk_size: int
) -> None:
    """Compute the pairs whose bounds overlap; leave the others 0.

    The bounds are tested on blocks of several chunks (the test needs only a few small arrays
    per pair). A block where most pairs overlap is computed chunk by chunk, the apart pairs
    zeroed afterwards (cheaper than compacting, and a pair's value never depends on the block
    it falls in). The few survivors of the other blocks are collected and computed together,
    a full chunk at a time.
    """
    candidates = _Candidates(chunk_size)
    for block, block_a, block_b in _pair_chunks(shape_a, shape_b, _PRUNING_BLOCKS * chunk_size):
        writer.scratch.reset()
        overlap = _bounds_overlap(writer.table_a, block_a, writer.table_b, block_b, writer.scratch)
        if np.count_nonzero(overlap) >= overlap.size // 2:
            overlap = overlap.copy()  # it is a work array, and the chunks reuse them
            for chunk, index_a, index_b in _split_block(block, block_a, block_b, chunk_size):
                writer.write(chunk, index_a, index_b, overlap[chunk.start - block.start : chunk.stop - block.start])
            continue
        hits = np.flatnonzero(overlap)
        candidates.add(block.start + hits, block_a.boxes(hits), block_b.boxes(hits))
        while candidates.full():
            writer.write(*candidates.pop())
    while candidates:
        writer.write(*candidates.pop())


# Chunks per block of the bounds test.
_PRUNING_BLOCKS = 4


class _Candidates:
    """Pairs that survived pruning, kept until there are enough for a full chunk.

    A chunk that is mostly apart leaves a few dozen pairs; computing them alone would pay the
    per-chunk cost of a few hundred NumPy calls for each few dozen pairs.
    """

    def __init__(self, chunk_size: int) -> None:
        self.chunk_size = chunk_size
        self.parts: list[tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]] = []
        self.count = 0

    def add(self, positions: NDArray[np.intp], boxes_a: NDArray[np.intp], boxes_b: NDArray[np.intp]) -> None:
        if positions.size:
            self.parts.append((positions, boxes_a, boxes_b))
            self.count += positions.size

    def full(self) -> bool:
        return self.count >= self.chunk_size

    def __bool__(self) -> bool:
        return self.count > 0

    def pop(self) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]:
        """Remove and return up to a chunk of pairs: positions and box indices of both sides."""
        positions, boxes_a, boxes_b = (np.concatenate(column) for column in zip(*self.parts))
        rest = slice(self.chunk_size, None)
        self.parts = [(positions[rest], boxes_a[rest], boxes_b[rest])] if positions.size > self.chunk_size else []
        self.count = max(0, positions.size - self.chunk_size)
        head = slice(0, self.chunk_size)
        return positions[head], boxes_a[head], boxes_b[head]


def _bounds_overlap(
    table_a: _BoxTable, index_a: Index, table_b: _BoxTable, index_b: Index, scratch: Scratch
) -> BoolArray:
    """Return which pairs of a chunk have axis-aligned bounds that overlap with positive area.

    Boxes whose bounds are apart or touch share no area, whatever rounding says; the test is
    the one of the pairwise metrics' sweep (on the same bounds), so both paths agree to the
    bit. Boxes with a NaN stay candidates, so that they give NaN.
    The test runs on broadcast views of the two sides (one value per line or per column),
    before anything is gathered pair by pair.
    """
    grid = index_a.grid
    apart = scratch(grid, np.bool_)
    low, high, test = scratch(grid), scratch(grid), scratch(grid, np.bool_)
    for axis, (lower, upper) in enumerate((("x_min", "x_max"), ("y_min", "y_max"))):
        np.maximum(index_a.broadcast(getattr(table_a, lower)), index_b.broadcast(getattr(table_b, lower)), out=low)
        np.minimum(index_a.broadcast(getattr(table_a, upper)), index_b.broadcast(getattr(table_b, upper)), out=high)
        np.greater_equal(low, high, out=apart if axis == 0 else test)
    np.logical_or(apart, test, out=apart)
    meet = np.logical_not(apart, out=apart)
    # A NaN in one axis's bounds does not stop the other axis from calling the pair apart.
    for table, index in ((table_a, index_a), (table_b, index_b)):
        np.logical_or(meet, np.isnan(index.broadcast(table.area)), out=meet)
    return meet.reshape(-1)


def _has_nan(a: _BoxTable, b: _BoxTable, scratch: Scratch) -> BoolArray:
    shape = a.area.shape
    has_nan = np.isnan(a.area, out=scratch(shape, np.bool_))
    return np.logical_or(has_nan, np.isnan(b.area, out=scratch(shape, np.bool_)), out=has_nan)


def _with_nan(values: FloatArray, a: _BoxTable, b: _BoxTable, scratch: Scratch) -> FloatArray:
    """Return `values` with NaN where a box of the pair has NaN (its area is NaN)."""
    has_nan = _has_nan(a, b, scratch)
    if has_nan.any():
        values[has_nan] = np.nan
    return values


def _thread_scratch() -> Scratch:
    """Return the calling thread's work arrays, kept from one call to the next.

    Fresh work arrays in every call would fault their pages in again each time (the pairwise
    metrics call a kernel once per block of rows). Only calls with chunks of at most the
    default size use them, which bounds what they keep to a few MB per thread.
    """
    scratch = getattr(_THREAD_STATE, "scratch", None)
    if scratch is None:
        scratch = _THREAD_STATE.scratch = Scratch()
    return scratch


_THREAD_STATE = threading.local()


class _SliceIndex(NamedTuple):
    """The boxes of a side that has the broadcast shape itself: box k is the one at position k.

    The chunk covers ``positions``, a block of ``grid = (lines, columns)`` pairs.
    """

    positions: slice
    grid: tuple[int, int]

    @property
    def size(self) -> int:
        return self.grid[0] * self.grid[1]

    def broadcast(self, field: FloatArray) -> FloatArray:
        """Return the values of `field` for the chunk's pairs, shaped as its grid (a view)."""
        return field[self.positions].reshape(self.grid)

    def boxes(self, pairs: NDArray[np.intp]) -> NDArray[np.intp]:
        """Return the box index of each of the chunk's pairs `pairs` (flat, in grid order)."""
        return self.positions.start + pairs

    def part(self, lines: slice, columns: slice) -> _SliceIndex:
        """Return the index of a block of the chunk: whole lines, or columns of its only line."""
        width = self.grid[1]
        first = self.positions.start + lines.start * width + columns.start
        grid = (lines.stop - lines.start, columns.stop - columns.start)
        return _SliceIndex(slice(first, first + grid[0] * grid[1]), grid)


class _LineIndex(NamedTuple):
    """The boxes of one side for the pairs of a chunk that spans whole lines or part of one.

    A line is a run of pairs along the last axis of the broadcast batch. The pair in line
    ``r`` at column ``c`` uses box ``starts[r] + step * c``: ``step`` is 1 when this side
    varies along a line and 0 when it is repeated along it.
    """

    starts: NDArray[np.intp]
    step: int
    columns: slice
    same_starts: bool  # every line starts at the same box

    @property
    def grid(self) -> tuple[int, int]:
        return len(self.starts), self.columns.stop - self.columns.start

    @property
    def size(self) -> int:
        return len(self.starts) * (self.columns.stop - self.columns.start)

    def broadcast(self, field: FloatArray) -> FloatArray:
        """Return the values of `field` for the chunk's pairs, broadcastable to its grid.

        Repeating one box along a line or one run of boxes on every line (the two sides of
        an ``(N, 1) × (1, M)`` batch) needs one value per line or per column only.
        """
        if self.step == 0:
            return field.take(self.starts)[:, None]
        if self.same_starts:
            return field[self.starts[0] + self.columns.start : self.starts[0] + self.columns.stop][None, :]
        return field.take(self.starts[:, None] + np.arange(self.columns.start, self.columns.stop))

    def gather(self, field: FloatArray, out: FloatArray) -> FloatArray:
        """Copy the values of `field` for the chunk's pairs into `out` (flat, in grid order).

        A broadcast copy from :meth:`broadcast`: several times faster than a gather pair by pair.
        """
        np.copyto(out.reshape(self.grid), self.broadcast(field))
        return out

    def boxes(self, pairs: NDArray[np.intp]) -> NDArray[np.intp]:
        """Return the box index of each of the chunk's pairs `pairs` (flat, in grid order)."""
        line, column = np.divmod(pairs, self.columns.stop - self.columns.start)
        return self.starts[line] + self.step * (self.columns.start + column)

    def part(self, lines: slice, columns: slice) -> _LineIndex:
        """Return the index of a block of the chunk: whole lines, or columns of its only line."""
        shifted = slice(self.columns.start + columns.start, self.columns.start + columns.stop)
        return self._replace(starts=self.starts[lines], columns=shifted)


def _pair_chunks(
    shape_a: tuple[int, ...], shape_b: tuple[int, ...], chunk_size: int
) -> Iterator[tuple[slice, Index, Index]]:
    """Yield ``(positions, index_a, index_b)`` for consecutive chunks of the broadcast pairs.

    ``positions`` is the slice of the flat broadcast batch that the chunk covers, and
    ``index_a`` and ``index_b`` say which box of each side each of its pairs uses: a
    :class:`_SliceIndex` when a side already has the broadcast shape (elementwise pairs),
    else a :class:`_LineIndex`. A chunk is a block of whole lines (the last axis) or, for
    long lines, part of one line, so no index grid of all the pairs is ever formed.
    """
    shape = np.broadcast_shapes(shape_a, shape_b)
    size = math.prod(shape)
    if size == 0:
        return
    line = shape[-1] if shape else 1
    lines_a, step_a = _line_starts(shape_a, shape)
    lines_b, step_b = _line_starts(shape_b, shape)
    lines_per_chunk = max(1, chunk_size // line)
    for first_line in range(0, size // line, lines_per_chunk):
        last_line = min(size // line, first_line + lines_per_chunk)
        for start in range(0, line, chunk_size if last_line - first_line == 1 else line):
            stop = min(line, start + chunk_size)
            positions = slice(first_line * line + start, (last_line - 1) * line + stop)
            grid, columns = (last_line - first_line, stop - start), slice(start, stop)
            lines = slice(first_line, last_line)
            index_a = _SliceIndex(positions, grid) if lines_a is None else _line_index(lines_a[lines], step_a, columns)
            index_b = _SliceIndex(positions, grid) if lines_b is None else _line_index(lines_b[lines], step_b, columns)
            yield positions, index_a, index_b


def _split_block(block: slice, index_a: Index, index_b: Index, chunk_size: int) -> Iterator[tuple[slice, Index, Index]]:
    """Yield the chunks of at most `chunk_size` pairs of a block from :func:`_pair_chunks`.

    A block of several lines splits into groups of whole lines, a block within one line into
    runs of columns, so that every chunk is again a contiguous run of positions.
    """
    lines, width = index_a.grid
    lines_per_chunk = max(1, chunk_size // width)
    for first in range(0, lines, lines_per_chunk):
        last = min(lines, first + lines_per_chunk)
        for start in range(0, width, chunk_size if last - first == 1 else width):
            rows, columns = slice(first, last), slice(start, min(width, start + chunk_size))
            offset = block.start + first * width + start
            size = (last - first) * (columns.stop - columns.start)
            yield slice(offset, offset + size), index_a.part(rows, columns), index_b.part(rows, columns)


def _line_starts(shape: tuple[int, ...], batch_shape: tuple[int, ...]) -> tuple[NDArray[np.intp] | None, int]:
    """Return the flat index of each line's first box and the step along a line (0 or 1).

    None instead of the starts means that `shape` is the broadcast shape itself: the flat
    index of a box is its position.
    """
    if math.prod(shape) == math.prod(batch_shape):  # nothing is repeated
        return None, 1
    grid = np.broadcast_to(np.arange(math.prod(shape)).reshape(shape), batch_shape)
    if not batch_shape:
        return grid.reshape(1), 0
    varies_along_line = len(shape) > 0 and shape[-1] == batch_shape[-1] and batch_shape[-1] > 1
    return grid[..., 0].ravel(), int(varies_along_line)


def _line_index(starts: NDArray[np.intp], step: int, columns: slice) -> _LineIndex:
    return _LineIndex(starts, step, columns, bool((starts == starts[0]).all()))
