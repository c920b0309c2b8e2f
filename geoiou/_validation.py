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
    if trailing is not None and type(value) in (list, tuple) and len(value) == trailing and _finite_numbers(value):
        return np.array(value, dtype=np.float64)  # one region of plain numbers: checked without NumPy passes
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


def _finite_numbers(values: list | tuple) -> bool:
    """True if every item is a finite Python int or float (anything else takes the general checks)."""
    try:
        return all(type(v) in (int, float) and math.isfinite(v) for v in values)
    except OverflowError:  # an int beyond float range
        return False


def _any(flags: np.ndarray | np.bool_) -> bool:
    """``flags.any()``, without its method call for the 0-d result of one region."""
    return bool(flags) if flags.ndim == 0 else bool(flags.any())


def require_ordered(low: np.ndarray, high: np.ndarray, param: str, what: str) -> None:
    """Raise unless ``low <= high`` everywhere; `what` names the pair, e.g. ``'x1 <= x2'``."""
    bad = low > high
    if _any(bad):
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise fail(param, f"ordered with {what}", f"{low[index]} > {high[index]} at batch index {index}")


def require_nonnegative(values: np.ndarray, param: str, what: str) -> None:
    """Raise unless every entry of `values` is >= 0; `what` names the quantity."""
    bad = values < 0
    if _any(bad):
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
