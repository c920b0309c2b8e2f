"""NumPy's float semantics for the plain-Python renderings of kernels (one pair, no NumPy per-call cost).

Python floats and NumPy's float64 ufuncs are the same IEEE operations; where they differ in
corner cases (division by zero, NaN in min/max, clipping), these functions do what NumPy does,
so a rendering gives the batch kernel's bits.
"""

from __future__ import annotations

import math

__all__ = ["NAN", "clip", "divide", "maximum", "minimum", "pseudo_angle"]

NAN = math.nan


def divide(a: float, b: float) -> float:
    """IEEE division as NumPy does it: x/0 is ±inf, 0/0 and nan/0 are NaN.

    Examples
    --------
    >>> divide(1.0, 0.0), divide(-1.0, 0.0), divide(0.0, 0.0)
    (inf, -inf, nan)
    """
    if b:
        return a / b
    if a != a or a == 0:
        return NAN
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def minimum(a: float, b: float) -> float:
    """``np.minimum``: NaN if either is NaN, else the smaller (the second on a tie).

    Examples
    --------
    >>> minimum(1.0, 2.0), minimum(NAN, 2.0)
    (1.0, nan)
    """
    if a != a or b != b:
        return NAN
    return a if a < b else b


def maximum(a: float, b: float) -> float:
    """``np.maximum``: NaN if either is NaN, else the larger (the second on a tie).

    Examples
    --------
    >>> maximum(1.0, 2.0), maximum(1.0, NAN)
    (2.0, nan)
    """
    if a != a or b != b:
        return NAN
    return a if a > b else b


def clip(value: float, low: float, high: float) -> float:
    """``np.clip``: NaN stays NaN.

    Examples
    --------
    >>> clip(-1.0, 0.0, 1.0), clip(NAN, 0.0, 1.0)
    (0.0, nan)
    """
    if value != value:
        return value
    return low if value < low else high if value > high else value


def pseudo_angle(x: float, y: float) -> float:
    """`geoiou.kernels.polygon_overlap.pseudo_angle` of one direction.

    Examples
    --------
    >>> pseudo_angle(0.0, 1.0), pseudo_angle(0.0, 0.0)
    (1.0, nan)
    """
    denominator = abs(x) + abs(y)
    r = x / denominator if denominator else NAN
    return 1.0 - r if y >= 0 else 3.0 + r
