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


def invalid_argument(param: str, expected: str, got: Any, where: str = "") -> InvalidArgumentError:
    """Build the error ``'{param}' must be {expected} (got {got!r}{where})`` for a bad option or input table."""
    return InvalidArgumentError(f"{param!r} must be {expected} (got {describe(got)}{where})")


def zero_division_value(value: Any, *, allow_nan: bool = True) -> float:
    """Return `zero_division` as a float after checking it is NaN (if allowed) or a number in [0, 1]."""
    number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if number and ((allow_nan and math.isnan(value)) or 0 <= value <= 1):
        return float(value)
    raise invalid_argument("zero_division", "NaN or a number in [0, 1]" if allow_nan else "a number in [0, 1]", value)
