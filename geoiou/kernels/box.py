"""Closed-form kernels for axis-aligned boxes and intervals: pure NumPy broadcasting."""

from __future__ import annotations

import numpy as np

from geoiou.dispatch import register
from geoiou.regions import Box, Interval

__all__ = ["box_intersection_area", "interval_hull_length", "interval_intersection_length"]


def overlap_length(low_a: np.ndarray, high_a: np.ndarray, low_b: np.ndarray, high_b: np.ndarray) -> np.ndarray:
    """Length of ``[low_a, high_a) ∩ [low_b, high_b)``, 0 when disjoint; broadcasts."""
    return np.clip(np.minimum(high_a, high_b) - np.maximum(low_a, low_b), 0.0, None)


@register(Box, Box)
def box_intersection_area(a: Box, b: Box) -> np.ndarray:
    """Area of the intersection of axis-aligned boxes, elementwise with broadcasting."""
    p, q = a._xyxy, b._xyxy
    width = overlap_length(p[..., 0], p[..., 2], q[..., 0], q[..., 2])
    height = overlap_length(p[..., 1], p[..., 3], q[..., 1], q[..., 3])
    return width * height


@register(Interval, Interval)
def interval_intersection_length(a: Interval, b: Interval) -> np.ndarray:
    """Length of the intersection of intervals, elementwise with broadcasting."""
    p, q = a._coords, b._coords
    return overlap_length(p[..., 0], p[..., 1], q[..., 0], q[..., 1])


@register(Interval, Interval, measure="hull")
def interval_hull_length(a: Interval, b: Interval) -> np.ndarray:
    """Length of the smallest interval holding both (the 1-D convex hull)."""
    p, q = a._coords, b._coords
    return np.maximum(p[..., 1], q[..., 1]) - np.minimum(p[..., 0], q[..., 0])
