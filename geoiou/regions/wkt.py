"""Regions to and from WKT, through shapely (geoiou's regions are arrays; shapely reads and writes the text)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import shapely

from geoiou._validation import fail
from geoiou.errors import InvalidTypeError

if TYPE_CHECKING:
    from geoiou.regions.base import Region

__all__ = ["regions_from_wkt", "regions_to_wkt"]

#: GEOS's "full precision" (-1) writes about 15 significant digits, which does not read back the
#: same double; asked for 20 it writes the shortest text that does (checked by
#: tests/test_conversions.py on values from 1e-300 to 1e150).
FULL_PRECISION = 20


def regions_to_wkt(region: Region, precision: int | None) -> str | np.ndarray:
    """WKT of each region: full float precision unless `precision` digits are asked for."""
    if region.ndim != 2:
        raise InvalidTypeError(f"{type(region).__name__} has no WKT form (WKT holds 2-D geometries)")
    text = shapely.to_wkt(region.to_shapely(), rounding_precision=FULL_PRECISION if precision is None else precision)
    return text[()] if isinstance(text, np.ndarray) and text.ndim == 0 else text


def regions_from_wkt(cls: type[Region], text: Any, repair: bool) -> Region:
    """Regions of kind `cls` from WKT text (one string, or an array-like of them: a batch of its shape)."""
    from geoiou.regions import Box, Polygon, RotatedBox

    if cls not in (Polygon, Box, RotatedBox):
        raise InvalidTypeError(
            f"{cls.__name__} cannot be read from WKT: read a Polygon (Polygon.from_wkt), then "
            + ("rasterize it with Mask.from_polygon" if cls.__name__ == "Mask" else "WKT holds 2-D geometries")
        )
    strings = np.asarray(text, dtype=object)
    geoms = _parse(strings)
    kinds = shapely.get_type_id(geoms.reshape(-1))
    polygonal = (kinds == shapely.GeometryType.POLYGON) | (kinds == shapely.GeometryType.MULTIPOLYGON)
    if not polygonal.all():
        k = int(np.argmin(polygonal))
        name = "text" if not strings.ndim else f"text[{', '.join(map(str, np.unravel_index(k, strings.shape)))}]"
        raise fail(name, "WKT of a POLYGON or MULTIPOLYGON", geoms.reshape(-1)[k].geom_type)
    polygons = Polygon.from_shapely(geoms, repair=repair)
    if cls is Polygon:
        return polygons
    return _as_boxes(cls, geoms, polygons)


def _parse(strings: np.ndarray) -> np.ndarray:
    try:
        parsed = shapely.from_wkt(strings, on_invalid="raise")
    except (shapely.errors.ShapelyError, TypeError):
        pass
    else:
        geoms = np.empty(strings.shape, dtype=object)
        geoms[...] = parsed
        return geoms
    for index, string in np.ndenumerate(strings):  # find the one that failed, for the message
        try:
            shapely.from_wkt(string, on_invalid="raise")
        except (shapely.errors.ShapelyError, TypeError) as error:
            name = "text" if not strings.ndim else f"text[{', '.join(map(str, index))}]"
            raise fail(name, "WKT text of a POLYGON or MULTIPOLYGON", f"{string!r}: {error}") from None
    raise AssertionError("unreachable: shapely failed on the batch but on no single string")


def _as_boxes(cls: type[Region], geoms: np.ndarray, polygons: Any) -> Region:
    """Boxes (axis-aligned rectangles) or rotated boxes (rectangles) from polygons, refusing any other shape."""
    from geoiou.regions import Box, RotatedBox

    flat = geoms.reshape(-1)
    if cls is Box:
        rectangle = shapely.equals(flat, shapely.envelope(flat)) & ~shapely.is_empty(flat)
        _require(rectangle, geoms.shape, "an axis-aligned rectangle")
        return Box(np.asarray(shapely.bounds(flat)).reshape(*geoms.shape, 4))
    # Four corners: the exterior of a polygon with one part, no hole and four distinct vertices.
    single = (shapely.get_type_id(flat) == shapely.GeometryType.POLYGON) & (shapely.get_num_interior_rings(flat) == 0)
    exteriors = shapely.get_exterior_ring(flat)
    normalized = shapely.normalize(shapely.simplify(exteriors, 0.0))
    four = single & (shapely.get_num_coordinates(normalized) == 5)
    _require(four, geoms.shape, "a rectangle of four corners")
    corners = shapely.get_coordinates(shapely.get_exterior_ring(flat)).reshape(len(flat), -1, 2)
    if corners.shape[1] != 5:  # corners listed with extra points on the edges: take the simplified ring
        corners = shapely.get_coordinates(normalized).reshape(len(flat), -1, 2)
    return RotatedBox.from_corners(corners[:, :4].reshape(*geoms.shape, 4, 2))


def _require(ok: np.ndarray, shape: tuple[int, ...], what: str) -> None:
    if not ok.all():
        index = np.unravel_index(int(np.argmin(ok)), shape) if shape else ()
        name = "text" if not shape else f"text[{', '.join(map(str, index))}]"
        raise fail(name, f"WKT of {what}", "another polygon")
