"""Vectorized kernels for rotated boxes ``(cx, cy, w, h, angle)``, angle in degrees.

A box's corners are ``centre + R(angle) @ (±w/2, ±h/2)`` with ``R = [[cos, -sin], [sin, cos]]``,
in the order ``(-w/2, -h/2), (+w/2, -h/2), (+w/2, +h/2), (-w/2, +h/2)`` (counter-clockwise in
a y-up frame, positive shoelace area). ``w`` and ``h`` may be 0: such a box has area 0.

The pair kernels broadcast the batch shapes of their two arguments like NumPy does, work
through the pairs in chunks of bounded size, and compute every pair in a frame centred on
the first box so that large coordinates (1e6 .. 1e9) do not eat the precision of the corners.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .convex import convex_hull_area, convex_intersection_area

__all__ = ["rotated_box_corners", "rotated_box_hull_area", "rotated_box_intersection_area"]

FloatArray = NDArray[np.float64]

# Pairs per chunk: bounds the temporary buffers to a few MB. Larger chunks measured no
# faster (smaller temporaries stay in the CPU cache); much smaller ones pay Python overhead.
DEFAULT_CHUNK_SIZE = 16384

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

    Pairs whose axis-aligned bounds do not overlap are 0 without clipping; exactly identical
    boxes (all five numbers equal) are their own area, so ``iou(r, r)`` is exactly 1. The
    other pairs are clipped with :func:`~geoiou.kernels.convex.convex_intersection_area`.

    Parameters
    ----------
    a : array_like of shape (..., 5)
        ``cx, cy, w, h, angle`` (degrees) of the first boxes.
    b : array_like of shape (..., 5)
        Second boxes; the batch shapes ``a.shape[:-1]`` and ``b.shape[:-1]`` must broadcast,
        e.g. ``(N, 1, 5)`` and ``(1, M, 5)`` for all ``N * M`` pairs.
    chunk_size : int, default 16384
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
    return _evaluate_box_pairs(a, b, _intersection_of_pairs, chunk_size)


def rotated_box_hull_area(a: ArrayLike, b: ArrayLike, *, chunk_size: int = DEFAULT_CHUNK_SIZE) -> FloatArray:
    """Compute the area of the convex hull of each pair of rotated boxes (for GIoU).

    The hull of the eight corners of the pair is taken with
    :func:`~geoiou.kernels.convex.convex_hull_area`; identical boxes give their own area exactly.

    Parameters
    ----------
    a : array_like of shape (..., 5)
        ``cx, cy, w, h, angle`` (degrees) of the first boxes.
    b : array_like of shape (..., 5)
        Second boxes; the batch shapes must broadcast as in :func:`rotated_box_intersection_area`.
    chunk_size : int, default 16384
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
    return _evaluate_box_pairs(a, b, _hull_of_pairs, chunk_size)


class _BoxTable(NamedTuple):
    """Per-box quantities computed once per call, then gathered for each pair."""

    coords: FloatArray  # (N, 5) cx, cy, w, h, angle
    offsets: FloatArray  # (N, 4, 2) corners minus centre
    half_extent: FloatArray  # (N, 2) half width and half height of the axis-aligned bounds

    @classmethod
    def build(cls, boxes: FloatArray) -> _BoxTable:
        coords = boxes.reshape(-1, 5)
        offsets = _corner_offsets(coords)
        return cls(coords, offsets, np.abs(offsets).max(axis=1))

    def take(self, index: NDArray[np.intp]) -> _BoxTable:
        # np.take along axis 0 is several times faster than fancy indexing here.
        return _BoxTable(*(np.take(field, index, axis=0) for field in self))

    @property
    def centre(self) -> FloatArray:
        return self.coords[:, 0:2]

    @property
    def area(self) -> FloatArray:
        # w * h is exact up to one rounding; the shoelace of the corners would add more.
        return self.coords[:, 2] * self.coords[:, 3]


PairFunction = Callable[[_BoxTable, _BoxTable], FloatArray]


def _as_boxes(value: ArrayLike, name: str) -> FloatArray:
    """Return `value` as a float64 array of shape (..., 5) or raise ValueError."""
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 0 or array.shape[-1] != 5:
        raise ValueError(f"{name} must have shape (..., 5) (cx, cy, w, h, angle), got {array.shape}")
    return array


def _corner_offsets(boxes: FloatArray) -> FloatArray:
    """Return ``R(angle) @ (±w/2, ±h/2)`` of shape (..., 4, 2), exact at multiples of 90 degrees.

    The angle is split as ``90 * turns + residual`` with ``residual`` in [-45, 45]. The quarter
    turns are applied exactly (swaps and sign changes) and only the residual goes through
    cos/sin, which are exactly 1 and 0 at residual 0. ``angle - 90 * turns`` is exact (for
    ``turns != 0`` the two terms are within a factor 2 of each other: Sterbenz's lemma), so
    small angles such as -1e-10 keep their full precision, unlike a reduction modulo 360.
    """
    angle = boxes[..., 4]
    turns = np.round(angle / 90.0)
    residual = np.deg2rad(angle - 90.0 * turns)
    quarter = (turns - 4.0 * np.floor(turns / 4.0))[..., None]  # in {0, 1, 2, 3}; float: NaN-safe
    x = _CORNER_SIGNS[:, 0] * (0.5 * boxes[..., 2:3])
    y = _CORNER_SIGNS[:, 1] * (0.5 * boxes[..., 3:4])
    # R(90) maps (x, y) to (-y, x).
    turned = [quarter == 1, quarter == 2, quarter == 3]
    turned_x = np.select(turned, [-y, -x, y], default=x)
    turned_y = np.select(turned, [x, -y, -x], default=y)
    cos, sin = np.cos(residual)[..., None], np.sin(residual)[..., None]
    return np.stack([cos * turned_x - sin * turned_y, sin * turned_x + cos * turned_y], axis=-1)


def _evaluate_box_pairs(
    a: ArrayLike, b: ArrayLike, pair_function: PairFunction, chunk_size: int
) -> FloatArray:
    """Apply `pair_function` to every pair of the broadcast batches, chunk by chunk.

    The pairs are never materialised as an ``(N * M, 5)`` copy: each chunk reads its flat
    slice of two broadcast index grids (views) and gathers from per-box tables.
    """
    boxes_a, boxes_b = _as_boxes(a, "a"), _as_boxes(b, "b")
    if int(chunk_size) < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size}")
    batch_shape = np.broadcast_shapes(boxes_a.shape[:-1], boxes_b.shape[:-1])
    table_a, table_b = _BoxTable.build(boxes_a), _BoxTable.build(boxes_b)
    index_a = _broadcast_index_grid(boxes_a.shape[:-1], batch_shape)
    index_b = _broadcast_index_grid(boxes_b.shape[:-1], batch_shape)
    result = np.empty(index_a.size)
    for start in range(0, result.size, int(chunk_size)):
        chunk = slice(start, start + int(chunk_size))
        pairs_a, pairs_b = table_a.take(index_a.flat[chunk]), table_b.take(index_b.flat[chunk])
        values = pair_function(pairs_a, pairs_b)
        has_nan = np.isnan(pairs_a.coords).any(axis=1) | np.isnan(pairs_b.coords).any(axis=1)
        result[chunk] = np.where(has_nan, np.nan, values)
    return result.reshape(batch_shape)


def _broadcast_index_grid(shape: tuple[int, ...], batch_shape: tuple[int, ...]) -> NDArray[np.intp]:
    """Return a read-only view of shape `batch_shape` holding each pair's flat box index."""
    return np.broadcast_to(np.arange(int(np.prod(shape))).reshape(shape), batch_shape)


def _identical(a: _BoxTable, b: _BoxTable) -> NDArray[np.bool_]:
    """Return which pairs are the very same box (all five numbers equal)."""
    return (a.coords == b.coords).all(axis=1)


def _local_corners(a: _BoxTable, b: _BoxTable) -> tuple[FloatArray, FloatArray]:
    """Return the corners of both boxes of each pair in a frame centred on box `a`.

    ``(centre_b - centre_a) + offset`` is computed before any corner exists, so corners of
    boxes far from the origin lose no more precision than those of boxes near it.
    """
    shift = b.centre - a.centre
    return a.offsets, shift[:, None, :] + b.offsets


def _intersection_of_pairs(a: _BoxTable, b: _BoxTable) -> FloatArray:
    """Return the intersection area of each pair ``(a[k], b[k])``."""
    identical = _identical(a, b)
    result = np.where(identical, a.area, 0.0)
    # Boxes whose axis-aligned bounds are apart cannot meet. Rounding in these bounds can
    # only misjudge pairs that overlap by a rounding-sized sliver, whose area is negligible.
    apart = (np.abs(b.centre - a.centre) > a.half_extent + b.half_extent).any(axis=1)
    candidates = np.flatnonzero(~identical & ~apart)
    if candidates.size:
        pairs_a, pairs_b = a.take(candidates), b.take(candidates)
        area = convex_intersection_area(*_local_corners(pairs_a, pairs_b))
        # The exact area is within [0, min(w_a * h_a, w_b * h_b)]; only rounding of the
        # corners and of the clipping can step outside, so clamping costs no accuracy.
        result[candidates] = np.clip(area, 0.0, np.minimum(pairs_a.area, pairs_b.area))
    return result


def _hull_of_pairs(a: _BoxTable, b: _BoxTable) -> FloatArray:
    """Return the area of the convex hull of each pair ``(a[k], b[k])``."""
    corners_a, corners_b = _local_corners(a, b)
    hull = convex_hull_area(np.concatenate([corners_a, corners_b], axis=1))
    # The hull contains both boxes; falling below the larger area can only be rounding.
    hull = np.maximum(hull, np.maximum(a.area, b.area))
    return np.where(_identical(a, b), a.area, hull)
