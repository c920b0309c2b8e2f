"""A batch of boxes checked and converted to corners in one pass of the crate (src/box_checks.rs).

`Box` checks its coordinates with NumPy: a dozen passes over the batch, each a few hundred
microseconds for the 144,000 boxes of a COCO result file. `accepted_corners` makes the same
checks in one pass per box, on every core, and converts to corners on the way. It only accepts:
a batch it does not accept goes through `Box`'s NumPy checks, which name the faulty box, so the
messages have one source. The arithmetic is the NumPy path's (IEEE, no fast math), so the corners
and sizes are its bits.

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

from geoiou import _core
from geoiou._contiguous import contiguous
from geoiou._pages import prefaulted
from geoiou._validation import LARGEST_COORDINATE, SMALLEST_AREA

__all__ = ["accepted_corners"]

_FORMATS = ("xyxy", "xywh", "cxcywh")


def accepted_corners(array: np.ndarray, fmt: str) -> tuple[np.ndarray, np.ndarray] | None:
    """``(corners, sizes)`` of the finite ``(N, 4)`` float64 `array` in format `fmt`, or None unless `Box` accepts
    every box (ordered corners, a size that survives the conversion, within range, a measurable area)."""
    if fmt not in _FORMATS:
        return None
    array = contiguous(array)
    # Boxes given as corners are their own corners (a view of the caller's array, as the NumPy checks keep them).
    xyxy = array if fmt == "xyxy" else prefaulted(np.empty((array.shape[0], 4)))
    size = prefaulted(np.empty((array.shape[0], 2)))
    written = None if fmt == "xyxy" else xyxy
    accepted = _core.accepted_corners(array, fmt, LARGEST_COORDINATE, SMALLEST_AREA, written, size)
    return (xyxy, size) if accepted else None
