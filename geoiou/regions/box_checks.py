"""A large batch of boxes checked and converted to corners in one compiled pass.

`Box` checks its coordinates with NumPy: a dozen passes over the batch, each a few hundred
microseconds for the 144,000 boxes of a COCO result file. `accepted_corners` makes the same
checks in one pass per box, on every core, and converts to corners on the way. It only accepts:
a batch it does not accept goes through `Box`'s NumPy checks, which name the faulty box, so the
messages have one source. The arithmetic is the NumPy path's (IEEE, no fast math), so the corners
and sizes are its bits.

This module is compiled (numba) and imported by `Box` for large batches only, not by ``import geoiou``.

Examples
--------
>>> import numpy as np
>>> xyxy, size = accepted_corners(np.array([[1.0, 2.0, 3.0, 4.0]]), "xywh")
>>> xyxy.tolist(), size.tolist()
([[1.0, 2.0, 4.0, 6.0]], [[3.0, 4.0]])
>>> accepted_corners(np.array([[1.0, 2.0, -3.0, 4.0]]), "xywh") is None  # a negative width: for Box to name
True
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import PARALLEL_MIN, jit, prange, prefaulted, use_threads
from geoiou._validation import LARGEST_COORDINATE, SMALLEST_AREA

__all__ = ["accepted_corners"]

#: The formats, as the codes the compiled pass takes.
_FORMAT_CODES = {"xyxy": 0, "xywh": 1, "cxcywh": 2}


def accepted_corners(array: np.ndarray, fmt: str) -> tuple[np.ndarray, np.ndarray] | None:
    """``(corners, sizes)`` of the finite ``(N, 4)`` float64 `array` in format `fmt`, or None unless `Box` accepts
    every box (ordered corners, a size that survives the conversion, within range, a measurable area)."""
    code = _FORMAT_CODES.get(fmt)
    if code is None:
        return None
    xyxy, size = prefaulted(np.empty_like(array)), prefaulted(np.empty((array.shape[0], 2)))
    use_threads(array.shape[0])
    refused = _corners(np.ascontiguousarray(array), code, LARGEST_COORDINATE, SMALLEST_AREA, xyxy, size)
    return None if refused else (xyxy, size)


@jit(inline=True)
def _size_lost(start: float, size: float, end: float, largest: float) -> bool:
    """`xywh_lost_size` of one side: a positive size given apart that the corners do not give back."""
    in_range = abs(start) <= largest and abs(end) <= largest
    return in_range and size > 0 and not (abs((end - start) - size) <= 1e-6 * size)


@jit(inline=True)
def _refused(
    array: np.ndarray, code: int, largest: float, smallest: float, xyxy: np.ndarray, size: np.ndarray, i: int
) -> int:
    a, b, c, d = array[i, 0], array[i, 1], array[i, 2], array[i, 3]
    if code == 0:
        x1, y1, x2, y2 = a, b, c, d
        w, h = x2 - x1, y2 - y1
    else:
        w, h = c, d
        if w < 0 or h < 0:
            return 1
        if code == 1:
            x1, y1, x2, y2 = a, b, a + w, b + h
        else:
            x1, y1, x2, y2 = a - w / 2, b - h / 2, a + w / 2, b + h / 2
        if w > 0 and h > 0 and (_size_lost(x1, w, x2, largest) or _size_lost(y1, h, y2, largest)):
            return 1
    if not (x1 <= x2 and y1 <= y2):
        return 1
    if not max(abs(x1), abs(y1), abs(x2), abs(y2)) <= largest:  # inf too
        return 1
    if w > 0 and h > 0 and w * h < smallest:
        return 1
    xyxy[i, 0], xyxy[i, 1], xyxy[i, 2], xyxy[i, 3] = x1, y1, x2, y2
    size[i, 0], size[i, 1] = w, h
    return 0


@jit(parallel=True)
def _corners(array: np.ndarray, code: int, largest: float, smallest: float, xyxy: np.ndarray, size: np.ndarray) -> int:
    n = array.shape[0]
    refused = 0
    if n < PARALLEL_MIN:
        for i in range(n):
            refused += _refused(array, code, largest, smallest, xyxy, size, i)
    else:
        for i in prange(n):  # each box on its own: the same bits for any number of threads
            refused += _refused(array, code, largest, smallest, xyxy, size, i)
    return refused
