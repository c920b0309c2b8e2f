"""Closed-form kernels for axis-aligned boxes and intervals: pure NumPy broadcasting."""

from __future__ import annotations

import numpy as np

from geoiou.dispatch import register
from geoiou.regions import Box, Interval

__all__ = ["box_intersection_area", "interval_hull_length", "interval_intersection_length"]


def overlap_length(low_a: np.ndarray, high_a: np.ndarray, low_b: np.ndarray, high_b: np.ndarray) -> np.ndarray:
    """Length of ``[low_a, high_a) ∩ [low_b, high_b)``, 0 when disjoint; broadcasts."""
    length = np.minimum(high_a, high_b)
    length -= np.maximum(low_a, low_b)
    # Single regions give NumPy scalars, which cannot be written in place.
    return np.maximum(length, 0.0, out=length if isinstance(length, np.ndarray) else None)


def columns(coords: np.ndarray) -> list[np.ndarray]:
    """The last axis of `coords` as contiguous arrays: ufuncs broadcast far faster over them than over strided views."""
    return [coords[..., i].copy() for i in range(coords.shape[-1])]  # copy() is C-ordered and keeps 0-d


@register(Box, Box)
def box_intersection_area(a: Box, b: Box) -> np.ndarray:
    """Area of the intersection of axis-aligned boxes, elementwise with broadcasting."""
    (ax1, ay1, ax2, ay2), (bx1, by1, bx2, by2) = columns(a._xyxy), columns(b._xyxy)
    area = overlap_length(ax1, ax2, bx1, bx2)
    area *= overlap_length(ay1, ay2, by1, by2)
    return area


@register(Interval, Interval)
def interval_intersection_length(a: Interval, b: Interval) -> np.ndarray:
    """Length of the intersection of intervals, elementwise with broadcasting."""
    (start_a, end_a), (start_b, end_b) = columns(a._coords), columns(b._coords)
    return overlap_length(start_a, end_a, start_b, end_b)


@register(Interval, Interval, measure="hull")
def interval_hull_length(a: Interval, b: Interval) -> np.ndarray:
    """Length of the smallest interval holding both (the 1-D convex hull)."""
    (start_a, end_a), (start_b, end_b) = columns(a._coords), columns(b._coords)
    length = np.maximum(end_a, end_b)
    length -= np.minimum(start_a, start_b)
    return length
