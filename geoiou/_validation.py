"""Checks shared by the region constructors; every message names the parameter, the expectation and the value."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from geoiou.errors import InvalidArgumentError, InvalidRegionError


def describe(value: Any, limit: int = 80) -> str:
    """Return a short repr of `value` for an error message."""
    if isinstance(value, np.generic):
        value = value.item()
    text = repr(value.tolist() if isinstance(value, np.ndarray) and value.size <= 16 else value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def fail(param: str, expected: str, got: Any) -> InvalidRegionError:
    """Build the error ``'{param}' must be {expected} (got {got!r})``."""
    return InvalidRegionError(f"{param!r} must be {expected} (got {describe(got)})")


def as_float_array(value: Any, param: str, trailing: int | None = None) -> np.ndarray:
    """Convert `value` to a finite float64 array whose last axis has length `trailing`."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise fail(param, "an array of numbers", value) from None
    if trailing is not None and (array.ndim == 0 or array.shape[-1] != trailing):
        raise fail(param, f"an array of shape (..., {trailing})", f"shape {array.shape}")
    bad = ~np.isfinite(array)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise fail(param, "finite (no NaN or inf)", f"{array[index]} at index {index}")
    return array


def require_ordered(low: np.ndarray, high: np.ndarray, param: str, what: str) -> None:
    """Raise unless ``low <= high`` everywhere; `what` names the pair, e.g. ``'x1 <= x2'``."""
    bad = low > high
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise fail(param, f"ordered with {what}", f"{low[index]} > {high[index]} at batch index {index}")


def require_nonnegative(values: np.ndarray, param: str, what: str) -> None:
    """Raise unless every entry of `values` is >= 0; `what` names the quantity."""
    bad = values < 0
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise fail(param, f"a non-negative {what}", f"{what} {values[index]} at batch index {index}")


#: The largest coordinate magnitude a region may have. Areas, unions, enclosures, DIoU's squared
#: diagonal and the hull kernel's cross products are sums of a few products of two coordinate
#: differences: with ``|x| <= 2**508`` they stay below ``2**1020``, clear of float64's overflow at
#: ``2**1024`` (an area of inf makes ``inf - inf`` NaN in the union).
LARGEST_COORDINATE = 2.0**508
#: The smallest positive area a 2-D region may have: below it, products of sides (areas,
#: intersections, squared distances) fall towards the subnormal numbers and lose their precision,
#: down to 0 (a region that measures 0 compares as an empty one).
SMALLEST_AREA = 2.0**-1000
#: The smallest positive length of an interval, for the same reason (DIoU squares lengths).
SMALLEST_LENGTH = 2.0**-500


def require_within_range(magnitude: np.ndarray, param: str) -> None:
    """Raise unless every entry of `magnitude` (the largest coordinate of each region) is at most `LARGEST_COORDINATE`."""
    bad = ~(magnitude <= LARGEST_COORDINATE)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise fail(param, "coordinates within ±2**508 (about 8.4e152), where areas, unions and enclosures stay "
                          "finite in float64: scale the data down", f"{magnitude[index]:.6g} at batch index {index}")


def require_measurable(measure: np.ndarray, positive: np.ndarray, param: str, *, smallest: float = SMALLEST_AREA,
                       what: str = "area") -> None:
    """Raise where a region with positive extent (`positive`) measures less than `smallest` (float64 underflow)."""
    bad = positive & (measure < smallest)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise fail(param, f"regions of {what} 0 or at least {smallest:.3g} (2**{int(np.log2(smallest))}), whose "
                          f"products do not underflow in float64: scale the data up", f"{what} {measure[index]:.6g} "
                          f"at batch index {index}")


def invalid_argument(param: str, expected: str, got: Any, where: str = "") -> InvalidArgumentError:
    """Build the error ``'{param}' must be {expected} (got {got!r}{where})`` for a bad option or input table."""
    return InvalidArgumentError(f"{param!r} must be {expected} (got {describe(got)}{where})")


def zero_division_value(value: Any, *, allow_nan: bool = True) -> float:
    """Return `zero_division` as a float after checking it is NaN (if allowed) or a number in [0, 1]."""
    number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if number and ((allow_nan and math.isnan(value)) or 0 <= value <= 1):
        return float(value)
    raise invalid_argument("zero_division", "NaN or a number in [0, 1]" if allow_nan else "a number in [0, 1]", value)
