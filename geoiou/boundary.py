"""Boundary IoU (Cheng et al., 2021): the IoU of the bands within a distance ``d`` of each region's outline.

The band of a region is ``region − erode(region, d)``; boundary IoU is the IoU of two regions'
bands, which counts only what lies near the contours, so a sloppy outline of a large object costs
what it costs on a small one (mask IoU forgives it).

- Masks: boundary-iou-api's band on the pixels (``d`` passes of a 3 × 3 erosion, the mask's grid
  edge a boundary too), with ``d = max(1, round(dilation_ratio · diagonal))`` and the diagonal the
  mask's own grid's (its image's, for COCO masks) unless `image_size` is given: the same pixels as
  boundary-iou-api's ``mask_to_boundary``.
- Polygons, boxes and rotated boxes: geoiou's exact extension, the region minus its inward offset
  by ``d = dilation_ratio · diagonal`` of `image_size` (not rounded) or by `distance`, with exact
  areas (`geoiou.regions.bands`). A mask and a polygon compare through their two bands (the mask's
  on pixels, the polygon's exact) with the exact Mask × Polygon kernel.

Examples
--------
>>> import numpy as np, geoiou
>>> a = np.zeros((100, 100), dtype=bool); a[10:90, 10:90] = True
>>> b = np.zeros((100, 100), dtype=bool); b[10:90, 12:92] = True  # shifted by 2 pixels
>>> round(float(geoiou.iou(geoiou.Mask(a), geoiou.Mask(b))), 3)  # mask IoU forgives the shift
0.951
>>> float(geoiou.boundary_iou(geoiou.Mask(a), geoiou.Mask(b)))  # d = round(0.02 · 141.4) = 3: 616 of 1232 pixels
0.5
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from geoiou._validation import invalid_argument
from geoiou.metrics import iou, pairwise_iou
from geoiou.regions import Box, Mask, Polygon, Region, RotatedBox
from geoiou.regions.bands import mask_bands, polygon_bands
from geoiou.regions.mask_bands import erosion_distances

__all__ = ["DILATION_RATIO", "boundary_band", "boundary_distances", "boundary_iou", "pairwise_boundary_iou"]

#: boundary-iou-api's default: the band's width is 2% of the image diagonal.
DILATION_RATIO = 0.02


def boundary_band(
    region: Region,
    *,
    dilation_ratio: float = DILATION_RATIO,
    image_size: tuple[int, int] | None = None,
    distance: ArrayLike | None = None,
) -> Mask | Polygon:
    """Return the band ``region − erode(region, d)`` of each region, of the same batch shape.

    Parameters
    ----------
    region : Mask, Polygon, Box or RotatedBox
    dilation_ratio : float, default 0.02
        ``d`` is this fraction of the image diagonal (boundary-iou-api's ``dilation_ratio``).
    image_size : (height, width), optional
        The image whose diagonal sets ``d``. Masks default to their own grid (their RLE's size);
        vector regions need it unless `distance` is given.
    distance : float or array_like, optional
        ``d`` itself, one for all or one per region, instead of the ratio: a whole number of pixels
        (≥ 1) for masks, any positive length for vector regions.

    Returns
    -------
    Mask or Polygon
        Masks give masks held as runs (the pixels of boundary-iou-api's ``mask_to_boundary``), the
        other kinds polygons whose areas are exact.

    Raises
    ------
    InvalidArgumentError
        For a ratio or distance that is not positive, a fractional distance for masks, or a vector
        region without `image_size` or `distance`.

    Examples
    --------
    >>> import geoiou
    >>> float(boundary_band(geoiou.Box([0, 0, 10, 10]), distance=2).area)  # 100 - 6 * 6
    64.0
    >>> float(boundary_band(geoiou.Box([0, 0, 10, 10]), image_size=(300, 400)).area)  # d = 0.02 * 500 = 10
    100.0
    """
    distances = boundary_distances(region, dilation_ratio=dilation_ratio, image_size=image_size, distance=distance)
    if isinstance(region, Mask):
        return mask_bands(region, distances)
    polygons = region if isinstance(region, Polygon) else region.to_polygon()  # type: ignore[attr-defined]
    return polygon_bands(polygons, distances)


def boundary_distances(
    region: Region,
    *,
    dilation_ratio: float = DILATION_RATIO,
    image_size: tuple[int, int] | None = None,
    distance: ArrayLike | None = None,
) -> np.ndarray:
    """Return the erosion distance ``d`` of each region (flat, in batch order), as `boundary_band` takes it.

    Examples
    --------
    >>> import numpy as np, geoiou
    >>> boundary_distances(geoiou.Mask(np.zeros((2, 480, 640), dtype=bool))).tolist()  # round(0.02 * 800)
    [16, 16]
    >>> boundary_distances(geoiou.Box([0, 0, 1, 1]), image_size=(30, 40), dilation_ratio=0.01).tolist()
    [0.5]
    """
    if not isinstance(region, (Mask, Polygon, Box, RotatedBox)):
        raise invalid_argument("region", "a Mask, Polygon, Box or RotatedBox (a band needs an area)", region)
    ratio = float(dilation_ratio)
    if not (math.isfinite(ratio) and ratio > 0):
        raise invalid_argument("dilation_ratio", "a positive number", dilation_ratio)
    n = region.size
    if distance is not None:
        return _given_distances(distance, n, isinstance(region, Mask))
    if image_size is not None:
        sizes = np.broadcast_to(_image_size(image_size), (n, 2))
    elif isinstance(region, Mask):
        sizes = region.source_shape.reshape(n, 2)
    else:
        raise invalid_argument(
            "image_size", "the (height, width) whose diagonal sets the band's width, or a distance", image_size
        )
    if isinstance(region, Mask):
        return erosion_distances(sizes, ratio)
    diagonals: np.ndarray = ratio * np.sqrt((sizes * sizes).sum(axis=1).astype(np.float64))
    return diagonals


def _image_size(image_size: Any) -> np.ndarray:
    size = np.asarray(image_size)
    if size.shape != (2,) or size.dtype.kind not in "iu" or (size <= 0).any():
        raise invalid_argument("image_size", "(height, width), two positive integers", image_size)
    return size.astype(np.int64)


def _given_distances(distance: Any, n: int, whole: bool) -> np.ndarray:
    values = np.asarray(distance, dtype=np.float64)
    if values.ndim > 1 or (values.ndim == 1 and len(values) != n):
        raise invalid_argument("distance", f"one number, or one per region ({n})", distance)
    if not (np.isfinite(values) & (values > 0)).all():
        raise invalid_argument("distance", "positive numbers", distance)
    if whole:
        if (values != np.round(values)).any():
            raise invalid_argument("distance", "whole numbers of pixels for masks", distance)
        return np.broadcast_to(values, (n,)).astype(np.int64)
    return np.broadcast_to(values, (n,)).astype(np.float64)


def boundary_iou(
    a: Region,
    b: Region,
    *,
    dilation_ratio: float = DILATION_RATIO,
    image_size: tuple[int, int] | None = None,
    distance: ArrayLike | None = None,
    zero_division: float = math.nan,
) -> float | np.ndarray:
    """Return the boundary IoU of `a` and `b`, elementwise with broadcasting: the IoU of their bands.

    The options are `boundary_band`'s, applied to each side (`distance` as one number for both);
    `zero_division` is the result where both bands are empty (`iou`'s).

    Examples
    --------
    >>> import geoiou
    >>> a, b = geoiou.Box([0, 0, 10, 10]), geoiou.Box([0, 0, 10, 9])
    >>> float(geoiou.iou(a, b))
    0.9
    >>> round(float(boundary_iou(a, b, distance=2)), 4)  # bands of 64 and 60, sharing 54: 54 / 70
    0.7714
    >>> float(boundary_iou(a, a, distance=2))
    1.0
    """
    options: dict[str, Any] = {"dilation_ratio": dilation_ratio, "image_size": image_size, "distance": distance}
    return iou(boundary_band(a, **options), boundary_band(b, **options), zero_division=zero_division)


def pairwise_boundary_iou(
    a: Region,
    b: Region,
    *,
    dilation_ratio: float = DILATION_RATIO,
    image_size: tuple[int, int] | None = None,
    distance: float | None = None,
    zero_division: float = math.nan,
    dtype: DTypeLike = np.float64,
) -> np.ndarray:
    """Return the boundary IoU of every region of `a` against every region of `b`, ``(N, M)``.

    Each band is computed once (not once per pair); the options are `boundary_iou`'s.

    Examples
    --------
    >>> import geoiou
    >>> boxes = geoiou.Box([[0, 0, 10, 10], [0, 0, 10, 9], [50, 50, 60, 60]])
    >>> pairwise_boundary_iou(boxes[:2], boxes, distance=2).round(4)
    array([[1.    , 0.7714, 0.    ],
           [0.7714, 1.    , 0.    ]])
    """
    options: dict[str, Any] = {"dilation_ratio": dilation_ratio, "image_size": image_size, "distance": distance}
    bands_a, bands_b = boundary_band(a, **options), boundary_band(b, **options)
    return pairwise_iou(bands_a, bands_b, zero_division=zero_division, dtype=dtype)
