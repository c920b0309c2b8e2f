"""The pseudo-angle of directions, shared by the polygon and hull kernels.

The polygon kernel itself (the shared area of two polygons as a sum over pairs of edge
triangles) is compiled in `geoiou.kernels.polygon_loops`, which uses the same `TURN` and a
scalar `pseudo_angle`; this module holds the NumPy form the hull kernel runs on arrays, and
loads no numba.
"""

from __future__ import annotations

import numpy as np

__all__ = ["TURN", "pseudo_angle"]

#: One turn in pseudo-angle units (see `pseudo_angle`).
TURN = 4.0


def pseudo_angle(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """A cheap stand-in for the angle of (x, y): increasing counter-clockwise from 0 on +x to `TURN` (one turn).

    Only its order matters to the kernels; it needs no trigonometry. (0, 0) gives NaN.

    Examples
    --------
    >>> pseudo_angle(np.array([1.0, 0.0, -1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0, -1.0, 0.0]))
    array([ 0.,  1.,  2.,  3., nan])
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        r: np.ndarray = x / (np.abs(x) + np.abs(y))
    # 1 - r above the x axis, 3 + r below, as c + (c - 2)·r with c = 1 or 3: the same roundings
    # (the product is exact), without a branch per element.
    c = (y < 0) * 2.0
    c += 1.0
    r *= c - 2.0
    r += c
    return r
