"""Checks shared by the region constructors; every message names the parameter, the expectation and the value."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from geoiou.errors import InvalidArgumentError, InvalidRegionError, InvalidTypeError


def describe(value: Any, limit: int = 80) -> str:
    """Return a short repr of `value` for an error message."""
    if isinstance(value, np.generic):
        value = value.item()
    text = repr(value.tolist() if isinstance(value, np.ndarray) and value.size <= 16 else value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def fail(param: str, expected: str, got: Any) -> InvalidRegionError:
    """Build the error ``'{param}' must be {expected} (got {got!r})``."""
    return InvalidRegionError(f"{param!r} must be {expected} (got {describe(got)})")


#: DLPack device types whose memory the CPU reads directly: CPU, CUDA host (pinned) and ROCm host memory.
_CPU_DEVICES = (1, 3, 11)


def as_numpy(value: Any, param: str) -> np.ndarray:
    """`value` as a NumPy array, without copying where NumPy can share the memory.

    Takes array-likes (lists, NumPy arrays) and objects with ``__array__`` or ``__dlpack__``: torch
    CPU tensors, JAX and CuPy arrays once on the CPU, array-API arrays. A tensor that requires
    grad is refused (geoiou returns no gradient, so computing from it silently would cut the
    graph), and so is one in another device's memory, with how to move it.
    """
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (list, tuple)):  # plain sequences have no device or grad to ask about
        return np.asarray(value)
    if getattr(value, "requires_grad", False) is True:
        raise InvalidTypeError(
            f"{param!r} must be an array that does not require grad (got a {type(value).__name__} "
            "with requires_grad=True): geoiou computes in NumPy and returns no gradient; pass "
            f"{param}.detach(), or compute under torch.no_grad()"
        )
    device = _dlpack_device(value)
    if device is not None and device not in _CPU_DEVICES:
        raise InvalidTypeError(
            f"{param!r} must be in CPU memory (got a {type(value).__name__} on a device of DLPack "
            f"type {device}, such as a GPU): move it first, e.g. {param}.cpu() for torch, "
            "jax.device_get(...) for JAX, cupy.asnumpy(...) for CuPy"
        )
    if hasattr(value, "__array__") or not hasattr(value, "__dlpack__"):
        return np.asarray(value)
    return np.from_dlpack(value)


def arrays_as_numpy(value: Any, param: str) -> Any:
    """`value` as a NumPy array if it is an array object (``__array__``, ``__dlpack__``); a Python sequence as it is."""
    if isinstance(value, (list, tuple, np.ndarray)) or not (
        hasattr(value, "__array__") or hasattr(value, "__dlpack__")
    ):
        return value
    return as_numpy(value, param)


def _dlpack_device(value: Any) -> int | None:
    """The DLPack device type of an array object (1 is the CPU), or None for anything without one."""
    try:
        return int(value.__dlpack_device__()[0])
    except (AttributeError, TypeError, ValueError, IndexError):
        return None


#: What a number beyond float64 (a Python int such as 2**1100) is refused as; each kind checks its own, smaller, limit.
WITHIN_FLOAT64 = "numbers within float64's range (about ±1.8e308; each kind's own limit is smaller)"


def as_real_array(value: Any, param: str) -> np.ndarray:
    """`value` as a float64 array of real numbers: complex values and booleans are refused, not cast.

    Casting would drop an imaginary part without a word, and ``True`` as a coordinate is a mistake.
    """
    try:
        array = as_numpy(value, param)
    except InvalidTypeError:
        raise
    except OverflowError:  # a Python int beyond float64 (2**1100) in a list NumPy makes an object array of
        raise fail(param, WITHIN_FLOAT64, value) from None
    except (TypeError, ValueError):
        raise fail(param, "an array of numbers", value) from None
    if array.dtype.kind in "cb":
        what = "complex" if array.dtype.kind == "c" else "boolean"
        raise fail(param, "an array of real numbers", f"{what} values, dtype {array.dtype}")
    if array.dtype.kind in "US" or (
        array.dtype.kind == "O" and any(isinstance(item, (str, bytes)) for item in array.flat)
    ):
        # "2" is not a coordinate: NumPy would convert it, but it is a file read as text, or a mistake.
        raise fail(param, "an array of numbers, not strings (convert text with float(...) first)", value)
    if array.dtype.kind not in "iuf":
        if _is_shapely(value):
            raise fail(param, "an array of numbers (for a shapely polygon, use geoiou.Polygon.from_shapely)", value)
        try:
            array = np.asarray(array, dtype=np.float64)
        except OverflowError:  # an int beyond float64, such as 2**1100
            raise fail(param, WITHIN_FLOAT64, value) from None
        except (TypeError, ValueError):
            raise fail(param, "an array of numbers", value) from None
    return array.astype(np.float64, copy=False)


def _is_shapely(value: Any) -> bool:
    return type(value).__module__.split(".")[0] == "shapely"


def as_float_array(value: Any, param: str, trailing: int | None = None) -> np.ndarray:
    """Convert `value` to a finite float64 array of real numbers whose last axis has length `trailing`."""
    if trailing is not None and type(value) in (list, tuple) and len(value) == trailing and finite_numbers(value):
        return np.array(value, dtype=np.float64)  # one region of plain numbers: checked without NumPy passes
    array = as_real_array(value, param)
    if trailing is not None and (array.ndim == 0 or array.shape[-1] != trailing):
        raise fail(param, f"an array of shape (..., {trailing})", f"shape {array.shape}")
    bad = ~np.isfinite(array)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise fail(param, "finite (no NaN or inf)", f"{array[index]} at index {index}")
    return array


def plain_numbers(value: Any, count: int) -> tuple[float, ...] | None:
    """`value` as floats if it is a list or tuple of `count` finite Python ints and floats, else None.

    One region of plain numbers (a research script's single pair) is validated in Python floats
    from this, without NumPy passes; anything else takes the general checks.
    """
    if type(value) not in _PLAIN_SEQUENCES or len(value) != count or not _PLAIN_NUMBERS.issuperset(map(type, value)):
        return None
    try:
        floats = tuple(map(float, value))
    except OverflowError:  # an int beyond float range
        return None
    # One sum tests them all: NaN and inf stay; a sum that overflows sends finite numbers to the general checks.
    return floats if math.isfinite(sum(floats)) else None


_PLAIN_SEQUENCES = (list, tuple)
_PLAIN_NUMBERS = frozenset((int, float))


def is_finite_number(value: Any) -> bool:
    """Whether `value` is one finite real number: a Python or NumPy int or float (not a bool) within float64's
    range (an integer beyond it, such as JSON's ``1`` followed by 400 zeros, is not).

    Examples
    --------
    >>> is_finite_number(3), is_finite_number(10**400), is_finite_number(float("nan")), is_finite_number(True)
    (True, False, False, False)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int beyond float range
        return False


def finite_numbers(values: list[Any] | tuple[Any, ...]) -> bool:
    """True if every item is a finite Python int or float (anything else takes the general checks)."""
    try:
        return all(type(v) in (int, float) and math.isfinite(v) for v in values)
    except OverflowError:  # an int beyond float range
        return False


def _any(flags: np.ndarray | np.bool_) -> bool:
    """``flags.any()``, without its method call for the 0-d result of one region."""
    return bool(flags) if flags.ndim == 0 else bool(flags.any())


def require_ordered(low: np.ndarray, high: np.ndarray, param: str, what: str, hint: str = "") -> None:
    """Raise unless ``low <= high`` everywhere; `what` names the pair, e.g. ``'x1 <= x2'``; `hint` follows it."""
    bad = low > high
    if _any(bad):
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise fail(param, f"ordered with {what}{hint}", f"{low[index]} > {high[index]} at batch index {index}")


def require_nonnegative(values: np.ndarray, param: str, what: str) -> None:
    """Raise unless every entry of `values` is >= 0; `what` names the quantity."""
    bad = values < 0
    if _any(bad):
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
#: The largest coordinate magnitude of a 3-D region: volumes, enclosing volumes and the convex hull's
#: triple products are products of three coordinate differences, which stay below ``2**1020`` with
#: ``|x| <= 2**336``.
LARGEST_COORDINATE_3D = 2.0**336
#: The smallest positive volume of a 3-D region (below it, products of sides lose their precision).
SMALLEST_VOLUME = 2.0**-1000


#: What `require_within_range` expects, in its messages and in the readers' (`range_faults`).
WITHIN_RANGE = (
    "coordinates within ±2**508 (about 8.4e152), where areas, unions and enclosures stay finite in "
    "float64: scale the data down"
)


#: What `require_within_range` expects of 3-D regions.
WITHIN_RANGE_3D = (
    "coordinates within ±2**336 (about 1.4e101), where volumes and enclosing volumes stay finite in "
    "float64: scale the data down"
)


def measurable(what: str = "area", smallest: float = SMALLEST_AREA) -> str:
    """What `require_measurable` expects, in its messages and in the readers' (`range_faults`)."""
    return (
        f"regions of {what} 0 or at least {smallest:.3g} (2**{int(np.log2(smallest))}), whose products do not "
        "underflow in float64: scale the data up"
    )


def range_faults(
    magnitude: np.ndarray,
    measure: np.ndarray,
    positive: np.ndarray,
    param: str,
    *,
    smallest: float = SMALLEST_AREA,
    what: str = "area",
) -> dict[int, str]:
    """Why each region of a flat batch is outside float64's range, by index: the constructors' checks, for readers.

    A reader checks its records with this before building regions, so that a record the
    constructor would refuse is named (file and record) and can be skipped, rather than raising
    an `InvalidRegionError` about a batch index. `magnitude` is each region's largest coordinate
    magnitude, `measure` its area (or length), `positive` where its extent is positive.
    """
    with np.errstate(invalid="ignore"):
        too_large = ~(np.asarray(magnitude) <= LARGEST_COORDINATE)
        too_small = ~too_large & np.asarray(positive, dtype=bool) & ~(np.asarray(measure) >= smallest)
    faults = {int(k): f"{param!r} must be {WITHIN_RANGE} (got {magnitude[k]:.6g})" for k in np.flatnonzero(too_large)}
    faults.update(
        {
            int(k): f"{param!r} must be {measurable(what, smallest)} (got {what} {measure[k]:.6g})"
            for k in np.flatnonzero(too_small)
        }
    )
    return faults


def shapely_range_faults(geoms: np.ndarray, param: str) -> dict[int, str]:
    """`range_faults` of a 1-D array of shapely geometries (an empty geometry measures 0 and is in range)."""
    import shapely  # the regions import it anyway; kept local so this foundation module stays light

    if not len(geoms):
        return {}
    with np.errstate(over="ignore", invalid="ignore"):
        bounds = shapely.bounds(geoms)
        area = shapely.area(geoms)
    empty = np.isnan(bounds[:, 0])
    magnitude = np.where(empty, 0.0, np.abs(np.nan_to_num(bounds, nan=0.0, posinf=np.inf, neginf=np.inf)).max(axis=1))
    return range_faults(magnitude, area, ~empty, param)


def sized_box_faults(boxes: np.ndarray, fmt: str, param: str) -> dict[int, str]:
    """Why each box of ``(N, 4)`` rows in `fmt` ``"xywh"`` or ``"cxcywh"`` is one `Box` would refuse, by row.

    Out of float64's range (`range_faults`), or a size that the conversion to corners rounds away
    (``[1e16, 0, 1, 1]`` in xywh would be a box of area 0). Sizes are taken as non-negative.
    """
    a, b, w, h = boxes.T
    with np.errstate(over="ignore", invalid="ignore"):
        if fmt == "xywh":
            corners = np.column_stack([a, b, a + w, b + h])
        else:
            corners = np.column_stack([a - w / 2, b - h / 2, a + w / 2, b + h / 2])
        sizes = corners[:, 2:] - corners[:, :2]
        faults = range_faults(
            np.abs(corners).max(axis=1, initial=0.0), sizes[:, 0] * sizes[:, 1], (sizes > 0).all(axis=1), param
        )
    lost = boxes_lost_size(corners, w, h)
    for row in np.flatnonzero(lost).tolist():
        faults.setdefault(
            row,
            f"{param!r} must have a width and height that survive the conversion to corners in "
            f"float64 (got {describe(boxes[row])}: the size is below float64's resolution at these "
            "coordinates and rounds away)",
        )
    return faults


def boxes_lost_size(xyxy: np.ndarray, w: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Where a box of positive area given by a size (`w`, `h`) lost it in its corners `xyxy` (see `xywh_lost_size`).

    A box of area 0 keeps its measure 0 whatever the rounding, so only boxes of positive area are refused.
    """
    lost: np.ndarray = xywh_lost_size(xyxy[..., 0], w, xyxy[..., 2]) | xywh_lost_size(xyxy[..., 1], h, xyxy[..., 3])
    return lost & (w > 0) & (h > 0)


def xywh_lost_size(start: np.ndarray, size: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Where a size given apart from its corner did not survive the conversion to corners (``end - start``).

    ``x + w`` rounds to the nearest float: next to a large coordinate a small width rounds away
    (``1e16 + 1 == 1e16``, a box of area 0). Refused when the recovered size is off by more than
    one part in a million of the size given (a conversion that keeps the size within rounding is
    off by about 1e-16 of the coordinate).
    """
    with np.errstate(invalid="ignore", over="ignore"):
        in_range = (np.abs(start) <= LARGEST_COORDINATE) & (np.abs(end) <= LARGEST_COORDINATE)  # else: range check
        lost: np.ndarray = in_range & (size > 0) & ~(np.abs((end - start) - size) <= 1e-6 * size)
    return lost


def plain_region_fits(magnitude: float, width: float, height: float) -> bool:
    """For one region of plain Python numbers: within `LARGEST_COORDINATE`, and an area of 0 or at least
    `SMALLEST_AREA`. The same checks as `require_within_range` and `require_measurable`, in Python
    floats, so a single region skips their NumPy passes; False sends it to those (which raise by name)."""
    return magnitude <= LARGEST_COORDINATE and (not (width > 0 and height > 0) or width * height >= SMALLEST_AREA)


def require_within_range(magnitude: np.ndarray, param: str, *, largest: float = LARGEST_COORDINATE) -> None:
    """Raise unless every entry of `magnitude` (each region's largest coordinate) is at most `largest`
    (`LARGEST_COORDINATE`, or `LARGEST_COORDINATE_3D` for 3-D regions)."""
    bad = ~(magnitude <= largest)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        expected = WITHIN_RANGE if largest == LARGEST_COORDINATE else WITHIN_RANGE_3D
        raise fail(param, expected, f"{magnitude[index]:.6g} at batch index {index}")


def require_measurable(
    measure: np.ndarray, positive: np.ndarray, param: str, *, smallest: float = SMALLEST_AREA, what: str = "area"
) -> None:
    """Raise where a region with positive extent (`positive`) measures less than `smallest` (float64 underflow)."""
    bad = positive & (measure < smallest)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise fail(param, measurable(what, smallest), f"{what} {measure[index]:.6g} at batch index {index}")


def not_a_region(param: str, value: Any) -> InvalidTypeError:
    """The error for a value that is not a region, naming the constructor that would make one of it."""
    if _is_shapely(value):
        hint = "convert it with geoiou.Polygon.from_shapely(...)"
    elif isinstance(value, (list, tuple)) and value and all(_is_region(item) for item in value):
        kind = type(value[0]).__name__
        hint = (
            f"a list of regions is not a batch: join them with geoiou.{kind}.concatenate(regions) "
            f"(or geoiou.{kind}.stack for regions of one shape)"
        )
    else:
        shape = np.shape(value) if isinstance(value, (list, tuple, np.ndarray)) or hasattr(value, "__array__") else None
        hint = _constructor_hint(shape)
    return InvalidTypeError(
        f"{param!r} must be a geoiou Region such as Box or Polygon (got {type(value).__name__}): {hint}"
    )


def _is_region(value: Any) -> bool:
    """Whether `value` is a geoiou region (by its class's ancestry: this module sits below the regions)."""
    return any(cls.__name__ == "Region" and cls.__module__ == "geoiou.regions.base" for cls in type(value).__mro__)


def _constructor_hint(shape: tuple[int, ...] | None) -> str:
    """Which constructor builds regions from an array of `shape` (a guess from the last axis, said as one)."""
    kinds = {
        2: "geoiou.Interval([start, end])",
        4: "geoiou.Box([x1, y1, x2, y2]) (fmt='xywh' for COCO boxes)",
        5: "geoiou.RotatedBox([cx, cy, w, h, angle])",
        6: "geoiou.Box3D([x1, y1, z1, x2, y2, z2])",
        7: "geoiou.RotatedBox3D([cx, cy, cz, dx, dy, dz, yaw])",
    }
    if shape and len(shape) >= 2 and shape[-1] == 2 and len(shape) == 2 and shape[0] > 2:
        return "for a ring of (x, y) vertices build geoiou.Polygon(ring); for a raster, geoiou.Mask(array)"
    if shape and len(shape) >= 2 and shape[-2:] == (8, 3):
        return "for the corners of 3-D boxes build geoiou.OrientedBox3D.from_corners(corners)"
    if shape and shape[-1] in kinds:
        return f"build one first, e.g. {kinds[shape[-1]]}"
    return (
        "build one first: geoiou.Box([x1, y1, x2, y2]), geoiou.RotatedBox([cx, cy, w, h, angle]), "
        "geoiou.Polygon([(x, y), ...]), geoiou.Mask(array), geoiou.Interval([start, end]) or a 3-D box "
        "(geoiou.Box3D, RotatedBox3D, OrientedBox3D)"
    )


def invalid_argument(param: str, expected: str, got: Any, where: str = "") -> InvalidArgumentError:
    """Build the error ``'{param}' must be {expected} (got {got!r}{where})`` for a bad option or input table."""
    return InvalidArgumentError(f"{param!r} must be {expected} (got {describe(got)}{where})")


def zero_division_value(value: Any, *, allow_nan: bool = True) -> float:
    """Return `zero_division` as a float after checking it is NaN (if allowed) or a number in [0, 1]."""
    if type(value) is float and (0.0 <= value <= 1.0 or (allow_nan and value != value)):
        return value  # a plain float, the defaults (NaN, 0.0, 1.0): no further checks
    number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if number and ((allow_nan and math.isnan(value)) or 0 <= value <= 1):
        return float(value)
    raise invalid_argument("zero_division", "NaN or a number in [0, 1]" if allow_nan else "a number in [0, 1]", value)
