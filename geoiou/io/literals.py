"""Regions written as short text literals, as the command line takes them.

| literal | region |
|---|---|
| ``box:x1,y1,x2,y2`` | `Box` from its corners |
| ``xywh:x,y,w,h`` | `Box` from its top-left corner and size (COCO's bbox) |
| ``rbox:cx,cy,w,h,angle`` | `RotatedBox`, angle in degrees (geoiou's convention) |
| ``poly:x1,y1,x2,y2,...`` | `Polygon` from at least three vertices |
| ``interval:start,end`` | `Interval` ``[start, end)`` |
| ``mask:path.png`` | `Mask` from a binary image file (0 and 1, or 0 and 255): the non-zero pixels |
| ``POLYGON ((...))`` | `Polygon` from WKT (also MULTIPOLYGON) |

Numbers are separated by commas (spaces around them are allowed). A malformed literal raises
`FormatError` with the source ``"<literal>"`` and what was wrong.
"""

from __future__ import annotations

import os
from typing import Callable

import numpy as np
import shapely

from geoiou.errors import FormatError, InvalidRegionError
from geoiou.io.report import float_field
from geoiou.regions import Box, Interval, Mask, Polygon, Region, RotatedBox

__all__ = ["LITERAL_KINDS", "parse_region"]

SOURCE = "<literal>"

#: The literal prefixes, what follows them and how many numbers (None: a list of x, y pairs).
LITERAL_KINDS: dict[str, tuple[str, int | None]] = {
    "box": ("x1,y1,x2,y2", 4),
    "xywh": ("x,y,w,h", 4),
    "rbox": ("cx,cy,w,h,angle", 5),
    "poly": ("x1,y1,x2,y2,x3,y3,...", None),
    "interval": ("start,end", 2),
}

_BUILDERS: dict[str, Callable[[np.ndarray, bool], Region]] = {
    "box": lambda values, repair: Box(values),
    "xywh": lambda values, repair: Box(values, fmt="xywh"),
    "rbox": lambda values, repair: RotatedBox(values),
    "poly": lambda values, repair: Polygon(values.reshape(-1, 2), repair=repair),
    "interval": lambda values, repair: Interval(values),
}


def parse_region(text: str, *, repair: bool = False) -> Region:
    """Build one region from a literal such as ``box:0,0,10,10`` or a WKT polygon.

    Parameters
    ----------
    text : str
        ``kind:numbers`` with kind one of ``box``, ``xywh``, ``rbox``, ``poly``, ``interval``;
        ``mask:`` followed by the path of an image file; or a WKT ``POLYGON``/``MULTIPOLYGON``.

    Returns
    -------
    Region
        A single region (batch shape ``()``).

    Raises
    ------
    FormatError
        Naming the literal and what was wrong: an unknown kind, a count of numbers that does not fit
        the kind, a value that is not a finite number, or an invalid region.

    Examples
    --------
    >>> parse_region("box:0,0,10,10")
    Box(0, 0, 10, 10)
    >>> parse_region("rbox: 5, 5, 4, 2, 30").area
    8.0
    >>> parse_region("POLYGON ((0 0, 4 0, 0 3, 0 0))").area
    6.0
    >>> parse_region("interval:3,1")
    Traceback (most recent call last):
    ...
    geoiou.errors.FormatError: <literal>, 'interval:3,1': 'coords' must be ordered with start <= end
    (got '3.0 > 1.0 at batch index ()')
    """
    stripped = text.strip()
    kind, separator, body = stripped.partition(":")
    kind = kind.strip().lower()
    try:
        if separator and kind == "mask":
            return _mask_from_image(body.strip())
        if separator and kind in LITERAL_KINDS:
            return _BUILDERS[kind](_numbers(kind, body), repair)
        if stripped[:1].isalpha() and not separator:
            return _from_wkt(stripped, repair)
    except FormatError as error:
        raise FormatError(SOURCE, repr(text), error.reason) from None
    except InvalidRegionError as error:
        raise FormatError(SOURCE, repr(text), str(error)) from None
    kinds = ", ".join(f"{name}:{form}" for name, (form, _) in LITERAL_KINDS.items())
    raise FormatError(SOURCE, repr(text), f"expected one of {kinds}, mask:image.png or a WKT polygon")


def _numbers(kind: str, body: str) -> np.ndarray:
    form, count = LITERAL_KINDS[kind]
    fields = [field.strip() for field in body.split(",")]
    values = np.array([float_field(field, f"{kind} value {i + 1}") for i, field in enumerate(fields)])
    if count is None and (len(values) < 6 or len(values) % 2):
        raise FormatError("", "", f"'{kind}' needs {form}: an even count of at least 6 numbers (got {len(values)})")
    if count is not None and len(values) != count:
        raise FormatError("", "", f"'{kind}' needs {count} numbers {form} (got {len(values)})")
    return values


def _from_wkt(text: str, repair: bool) -> Polygon:
    try:
        geometry = shapely.from_wkt(text)
    except shapely.errors.ShapelyError as error:
        raise FormatError("", "", f"not a WKT geometry ({error})") from None
    if geometry.geom_type not in ("Polygon", "MultiPolygon"):
        raise FormatError("", "", f"a WKT literal must be a POLYGON or MULTIPOLYGON (got {geometry.geom_type})")
    return Polygon.from_shapely(geometry, repair=repair)


def _mask_from_image(path: str) -> Mask:
    if not os.path.isfile(path):
        raise FormatError("", "", f"'mask' needs the path of an image file (no file {path!r})")
    from skimage.io import imread

    try:
        image = np.asarray(imread(path))
    except (OSError, ValueError) as error:
        raise FormatError("", "", f"cannot read {path!r} as an image ({error})") from None
    return Mask(_binary_image(image, path))


def _binary_image(image: np.ndarray, path: str) -> np.ndarray:
    """The pixels of a binary image file as booleans; colour, grey levels and probabilities are refused.

    A binary image is one channel holding two values, 0 and 1 or 0 and the type's maximum (255 in
    an 8-bit PNG); a grey image saved as RGB (equal channels, opaque alpha if any) counts as one
    channel. Anything else needs the caller's own rule (a threshold, a colour), as `Mask` refuses
    non-binary arrays rather than guessing.
    """
    if image.ndim == 3 and image.shape[2] in (3, 4):
        colour, alpha = image[..., :3], image[..., 3:]
        opaque = alpha.size == 0 or (alpha == alpha.max(initial=0)).all()
        if not (opaque and (colour == colour[..., :1]).all()):
            raise FormatError(
                "",
                "",
                f"'mask' must be a binary image (one channel of 0 and 1, or 0 and 255) "
                f"(got a colour image of shape {image.shape} in {path!r}: convert it to one "
                "channel and threshold it first)",
            )
        image = colour[..., 0]
    if image.ndim != 2:
        raise FormatError(
            "", "", f"'mask' must be a binary image of shape (H, W) (got shape {image.shape} in {path!r})"
        )
    top = np.iinfo(image.dtype).max if np.issubdtype(image.dtype, np.integer) else 1
    for on in dict.fromkeys((1, top)):  # 0/1, or 0 and the type's maximum
        inside: np.ndarray = image == on
        if (inside | (image == 0)).all():
            return inside
    levels = np.unique(image)
    raise FormatError(
        "",
        "",
        f"'mask' must be a binary image (0 and 1, or 0 and {top}) (got {len(levels)} levels "
        f"from {levels.min()} to {levels.max()} in {path!r}: threshold it first)",
    )
