"""The rotated-box kernels of `geoiou.kernels.rotated` for one pair, in plain Python floats.

A call of the batch kernels costs a few hundred NumPy calls whatever the number of pairs: about
250 µs for one pair, ten times shapely's overlay. This module renders the same algorithm for a
single pair with Python floats: the same operations on the same values in the same order, so the
results are the same bits (`tests/kernels/test_rotated_single.py` holds them equal with
Hypothesis). Where NumPy and Python differ, the rendering follows NumPy:

NumPy's float semantics where Python's differ (ties of signed zeros in ``maximum`` and ``minimum``,
``1 / ±0``, the sign of a rounded zero) come from `geoiou.kernels.scalar`; cosines and sines come
from NumPy itself (one call for both boxes).

A pair whose frame overflows (sizes below about 1e-300 of the distances) is handed to the batch
kernel, whose NaN handling is not worth rendering.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np

from geoiou.kernels.rotated import (
    _HUGE_AREA,
    rotated_box_hull_area,
    rotated_box_intersection_area,
)
from geoiou.kernels.scalar import clip, divide, floor, maximum, minimum, rint

__all__ = ["single_hull_area", "single_intersection_area"]

# The slope standing in for the infinite one of an edge parallel to a side of the unit square
# (convex._HUGE), and the rounded constant of the degree-to-radian conversion.
_HUGE = 1e300
_RADIANS_PER_DEGREE = math.pi / 180.0


class _Box(NamedTuple):
    """One row of `rotated._BoxTable`, in Python floats."""

    cx: float
    cy: float
    half_w: float
    half_h: float
    cos: float
    sin: float
    area: float
    x_min: float
    x_max: float
    y_min: float
    y_max: float


#: The last pair `_boxes` built, by the bytes of its coordinates: GIoU asks for the intersection
#: and then the hull of the same pair. One tuple, rebound whole, so threads never see half of one.
_last_pair: tuple[bytes, tuple[_Box, _Box]] | None = None


def _boxes(a: np.ndarray, b: np.ndarray) -> tuple[_Box, _Box]:
    """`rotated._BoxTable.build` of two boxes ``(cx, cy, w, h, angle)``."""
    global _last_pair
    key = a.tobytes() + b.tobytes()
    last = _last_pair
    if last is not None and last[0] == key:
        return last[1]
    boxes = _built_boxes(a, b)
    _last_pair = (key, boxes)
    return boxes


def _built_boxes(a: np.ndarray, b: np.ndarray) -> tuple[_Box, _Box]:
    (cx_a, cy_a, w_a, h_a, angle_a), (cx_b, cy_b, w_b, h_b, angle_b) = a.tolist(), b.tolist()
    turns = (rint(angle_a / 90.0), rint(angle_b / 90.0))
    residuals = [(angle - 90.0 * turn) * _RADIANS_PER_DEGREE for angle, turn in zip((angle_a, angle_b), turns)]
    cosines, sines = np.cos(residuals).tolist(), np.sin(residuals).tolist()
    return (_box(cx_a, cy_a, w_a, h_a, angle_a, turns[0], cosines[0], sines[0]),
            _box(cx_b, cy_b, w_b, h_b, angle_b, turns[1], cosines[1], sines[1]))


def _box(cx: float, cy: float, w: float, h: float, angle: float, turns: float, cos: float, sin: float) -> _Box:
    # _unit_vectors: the quarter turns exactly, then the residual's rotation.
    quarter = turns - 4.0 * floor(0.25 * turns)
    quarter_cos = maximum(1.0 - quarter, quarter - 3.0)
    quarter_sin = minimum(quarter, 2.0 - quarter)
    cos, sin = quarter_cos * cos - quarter_sin * sin, quarter_sin * cos + quarter_cos * sin
    area = w * h
    for other in (cx, cy, angle):
        area += 0.0 * other
    half_w, half_h = 0.5 * w, 0.5 * h
    reach_x = abs(cos * half_w) + abs(sin * half_h)
    reach_y = abs(sin * half_w) + abs(cos * half_h)
    return _Box(cx, cy, half_w, half_h, cos, sin, area, cx - reach_x, cx + reach_x, cy - reach_y, cy + reach_y)


def _apart(a: _Box, b: _Box) -> bool:
    """`rotated._bounds_overlap`, negated: bounds that do not overlap with positive area."""
    return (maximum(a.x_min, b.x_min) >= minimum(a.x_max, b.x_max)
            or maximum(a.y_min, b.y_min) >= minimum(a.y_max, b.y_max))


def _canonical(a: _Box, b: _Box) -> tuple[_Box, _Box]:
    """`rotated._canonical_order`: the box that comes first in (cx, cy, half_w, half_h, cos, sin, area)."""
    keys_a = (a.cx, a.cy, a.half_w, a.half_h, a.cos, a.sin, a.area)
    keys_b = (b.cx, b.cy, b.half_w, b.half_h, b.cos, b.sin, b.area)
    return (b, a) if keys_b < keys_a else (a, b)


class _Frame(NamedTuple):
    """`rotated._PairFrame` of one pair."""

    a_half_w: float
    a_half_h: float
    b_half_w: float
    b_half_h: float
    x: float
    y: float
    cos: float
    sin: float
    a_area: float
    b_area: float

    @classmethod
    def build(cls, a: _Box, b: _Box) -> _Frame:
        dx, dy = b.cx - a.cx, b.cy - a.cy
        x, y = a.cos * dx + a.sin * dy, a.cos * dy - a.sin * dx
        cos, sin = a.cos * b.cos + a.sin * b.sin, a.cos * b.sin - a.sin * b.cos
        if sin == 0:  # _snap_to_axes
            cos = math.copysign(1.0, cos)
        if cos == 0:
            sin = math.copysign(1.0, sin)
        return cls(a.half_w, a.half_h, b.half_w, b.half_h, x, y, cos, sin, a.area, b.area)

    def contained(self) -> bool:
        abs_cos, abs_sin = abs(self.cos), abs(self.sin)
        b_in_a = _fits(self.x, self.y, self.b_half_w, self.b_half_h, abs_cos, abs_sin, self.a_half_w, self.a_half_h)
        a_x = self.cos * self.x + self.sin * self.y
        a_y = self.cos * self.y - self.sin * self.x
        return b_in_a or _fits(a_x, a_y, self.a_half_w, self.a_half_h, abs_cos, abs_sin, self.b_half_w, self.b_half_h)


def _fits(x: float, y: float, half_w: float, half_h: float, abs_cos: float, abs_sin: float,
          limit_w: float, limit_h: float) -> bool:
    return (abs(x) + half_w * abs_cos + half_h * abs_sin <= limit_w
            and abs(y) + half_w * abs_sin + half_h * abs_cos <= limit_h)


def single_intersection_area(a: np.ndarray, b: np.ndarray) -> float:
    """`rotated.rotated_box_intersection_area` of one pair ``(cx, cy, w, h, angle)``, as a Python float.

    Examples
    --------
    >>> single_intersection_area(np.array([0.5, 0.5, 1, 1, 0]), np.array([1.0, 0.5, 1, 1, 0]))
    0.5
    """
    box_a, box_b = _boxes(a, b)
    if _apart(box_a, box_b):
        return 0.0
    frame = _Frame.build(*_canonical(box_a, box_b))
    area = _clipped_area(frame)
    if area is None:
        return float(rotated_box_intersection_area(a, b))
    if frame.sin == 0 or frame.cos == 0:  # _overwrite_aligned_pairs
        turned = frame.cos == 0
        reach_x, reach_y = (frame.b_half_h, frame.b_half_w) if turned else (frame.b_half_w, frame.b_half_h)
        area = _overlap_length(frame.x, reach_x, frame.a_half_w) * _overlap_length(frame.y, reach_y, frame.a_half_h)
    # The clamps of _intersection_of_pairs: fmax and fmin skip a NaN.
    floor = _HUGE_AREA if frame.contained() else 0.0
    area = floor if area != area or floor > area else area
    smaller = minimum(frame.a_area, frame.b_area)
    area = smaller if smaller < area else area
    return area + 0.0


def _overlap_length(centre: float, reach: float, half: float) -> float:
    return maximum(minimum(centre + reach, half) - maximum(centre - reach, -half), 0.0)


def _clipped_area(frame: _Frame) -> float | None:
    """`rotated._intersection_of_pairs` up to its clamps; None when the scaled frame overflows."""
    scale_x = frame.a_half_w + (frame.a_half_w == 0)
    scale_y = frame.a_half_h + (frame.a_half_h == 0)
    x, y = frame.x / scale_x, frame.y / scale_y
    ux, uy = frame.b_half_w * frame.cos / scale_x, frame.b_half_w * frame.sin / scale_y
    vx, vy = -(frame.b_half_h * frame.sin / scale_x), frame.b_half_h * frame.cos / scale_y
    if not all(map(math.isfinite, (x, y, ux, uy, vx, vy))):
        return None
    corners_x, corners_y = _rectangle_corners(x, ux, vx), _rectangle_corners(y, uy, vy)
    edges_x, edges_y = (2.0 * ux, 2.0 * vx, -(2.0 * ux), -(2.0 * vx)), (2.0 * uy, 2.0 * vy, -(2.0 * uy), -(2.0 * vy))
    return _unit_square_clipped_area(corners_x, corners_y, edges_x, edges_y) * (frame.a_half_w * frame.a_half_h)


def _rectangle_corners(centre: float, u: float, v: float) -> tuple[float, float, float, float]:
    plus, minus = u + v, u - v
    return -plus + centre, minus + centre, plus + centre, -minus + centre


def _unit_square_clipped_area(xs: Sequence[float], ys: Sequence[float], edges_x: Sequence[float], edges_y: Sequence[float]) -> float:
    """`convex.unit_square_clipped_area` of one polygon."""
    total = 0.0
    for index, (x, y, edge_x, edge_y) in enumerate(zip(xs, ys, edges_x, edges_y)):
        at_left, at_right = _crossings(x, edge_x)
        at_bottom, at_top = _crossings(y, edge_y)
        enter = clip(minimum(at_left, at_right), 0.0, 1.0)
        leave = maximum(clip(maximum(at_left, at_right), 0.0, 1.0), enter)
        first = minimum(maximum(minimum(at_bottom, at_top), enter), leave)
        second = minimum(maximum(maximum(at_bottom, at_top), enter), leave)
        integral = (first - enter) * clip(enter * edge_y + y, -1.0, 1.0)
        integral += (clip(first * edge_y + y, -1.0, 1.0) + clip(second * edge_y + y, -1.0, 1.0)) * (second - first) * 0.5
        integral += (leave - second) * clip(leave * edge_y + y, -1.0, 1.0)
        integral *= edge_x
        total = integral if index == 0 else total + integral
    return -total


def _crossings(coordinate: float, edge: float) -> tuple[float, float]:
    slope = clip(divide(1.0, edge), -_HUGE, _HUGE)
    at_low = (-1.0 - coordinate) * slope
    return at_low, 2.0 * slope + at_low


def single_hull_area(a: np.ndarray, b: np.ndarray) -> float:
    """`rotated.rotated_box_hull_area` of one pair ``(cx, cy, w, h, angle)``, as a Python float.

    Examples
    --------
    >>> single_hull_area(np.array([0.5, 0.5, 1, 1, 0]), np.array([2.5, 0.5, 1, 1, 0]))
    3.0
    """
    frame = _Frame.build(*_canonical(*_boxes(a, b)))
    twice = _twice_hull_shoelace(frame)
    if not math.isfinite(twice):
        return float(rotated_box_hull_area(a, b))
    hull = twice * 0.5
    if frame.contained():
        hull *= 0.0
    return maximum(hull, maximum(frame.a_area, frame.b_area))


def _twice_hull_shoelace(frame: _Frame) -> float:
    """`rotated._twice_hull_shoelace` of one pair."""
    cos, sin = frame.cos, frame.sin
    if (cos > 0 and sin >= 0) or (cos < 0 and sin <= 0):  # _first_quadrant
        cos, sin, half_w, half_h = abs(cos), abs(sin), frame.b_half_w, frame.b_half_h
    else:
        cos, sin, half_w, half_h = abs(sin), abs(cos), frame.b_half_h, frame.b_half_w
    ux, uy, vx, vy = half_w * cos, half_w * sin, -(half_h * sin), half_h * cos
    b_x, b_y = _rectangle_corners(frame.x, ux, vx), _rectangle_corners(frame.y, uy, vy)
    hw, hh = frame.a_half_w, frame.a_half_h
    a_next_x, a_next_y = (hw, hw, -hw, -hw), (-hh, hh, hh, -hh)
    normals = ((sin, -cos), (cos, sin), (-sin, cos), (-cos, -sin))
    a_wins, a_wins_b, beyond = [], [], []
    for i in range(4):
        beyond_x, beyond_y = a_next_x[i] - b_x[i], a_next_y[i] - b_y[i]
        reach = (-beyond_y, beyond_x, beyond_y, -beyond_x)[i]
        a_wins.append(1.0 if reach >= 0.0 else 0.0)
        normal_x, normal_y = normals[i]
        a_wins_b.append(1.0 if normal_x * beyond_x + normal_y * beyond_y >= 0.0 else 0.0)
        beyond.append((beyond_x, beyond_y))
    total = 0.0
    for i in range(4):
        j = (i + 1) % 4
        term = (a_wins[i] - a_wins_b[i]) * (a_next_x[i] * b_y[i] - a_next_y[i] * b_x[i])
        term += (1.0 - a_wins_b[i]) * (b_x[i] * b_y[j] - b_y[i] * b_x[j])
        term += (a_wins_b[i] - a_wins[j]) * (a_next_x[i] * b_y[j] - a_next_y[i] * b_x[j])
        total = term if i == 0 else total + term
    edges_of_a = (hw * hh) * 2.0
    wins = ((a_wins[0] + a_wins[1]) + a_wins[2]) + a_wins[3]
    return total + wins * edges_of_a
