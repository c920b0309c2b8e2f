"""Polygons from GeoJSON and WKT, the formats of GIS tools (QGIS, PostGIS, GeoPandas, shapely).

Coordinates are taken as they are: geoiou works in the data's own plane. The IoU of two polygons
in longitude/latitude is their IoU in the lon/lat plane, not on the sphere (a degree of longitude
shrinks towards the poles); to compare areas on the ground, project the data first (to a local
UTM zone or an equal-area projection, e.g. with pyproj or GeoPandas' ``to_crs``). A ``z``
coordinate is dropped: areas and IoU are measured in the ``x``-``y`` plane, as shapely's
``area`` measures them.

Only areal geometry is a region: Polygon and MultiPolygon, and a GeometryCollection whose members
are all areal (taken as the union of its members). A Point or a LineString has no area, and is
an invalid record naming its type.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
import shapely.geometry

from geoiou._validation import describe, invalid_argument, shapely_range_faults
from geoiou.errors import FormatError, InvalidRegionError
from geoiou.io.json_documents import unique_keys, load_json_document
from geoiou.io.report import ReadReport, RecordReader, invalid, read_text, source_name
from geoiou.regions import Polygon

__all__ = ["GeoFeatures", "parse_wkt", "read_geojson", "read_wkt"]

POLYGONAL = (shapely.Polygon, shapely.MultiPolygon)
GEOJSON_GEOMETRY_TYPES = (
    "Point",
    "MultiPoint",
    "LineString",
    "MultiLineString",
    "Polygon",
    "MultiPolygon",
    "GeometryCollection",
)
AREAL = "a Polygon, a MultiPolygon or a GeometryCollection of them"
#: What shapely.geometry.shape raises for malformed GeoJSON coordinates.
_SHAPE_ERRORS = (ValueError, TypeError, IndexError, KeyError, AttributeError, shapely.errors.ShapelyError)


@dataclass(frozen=True)
class GeoFeatures:
    """The areal features of a GeoJSON or WKT file, as one batch of polygons.

    Attributes
    ----------
    regions : Polygon
        One region per feature read, a batch of shape ``(N,)``.
    properties : tuple of dict
        Each feature's ``"properties"`` (``{}`` when it has none, and for WKT).
    ids : tuple
        Each feature's ``"id"``, or else its index in the file (counting skipped features, so
        that an id always points at the same feature of the file).
    report : ReadReport
        The features read and the ones skipped (with ``skip_invalid=True``), and why.

    Examples
    --------
    >>> square = {"type": "Polygon", "coordinates": [[[0, 0], [2, 0], [2, 2], [0, 2], [0, 0]]]}
    >>> read = read_geojson({"type": "Feature", "id": "plot-7", "properties": {"owner": "A"}, "geometry": square})
    >>> read.regions.area, read.ids, read.properties
    (array([4.]), ('plot-7',), ({'owner': 'A'},))
    """

    regions: Polygon
    properties: tuple[dict[str, Any], ...]
    ids: tuple[Hashable, ...]
    report: ReadReport


# --------------------------------------------------------------------------- GeoJSON
def read_geojson(
    source: str | os.PathLike[str] | Mapping[str, Any], *, repair: bool = False, skip_invalid: bool = False
) -> GeoFeatures:
    """Read the polygons of a GeoJSON FeatureCollection, a Feature, or a bare geometry.

    Coordinates are used as they are, in the data's own plane: the IoU of lon/lat polygons is
    the IoU in the lon/lat plane, not on the sphere; project the data first for areas on the
    ground. A ``z`` coordinate is dropped (areas are measured in the ``x``-``y`` plane).
    Unclosed rings are closed (as `shapely.geometry.shape` reads them); a ``"crs"`` or
    ``"bbox"`` member is not used.

    Parameters
    ----------
    source : str, path-like or dict
        The GeoJSON file, or its already-parsed content (named ``"<dict>"`` in messages).
    repair : bool, default False
        Repair invalid polygons (self-intersections, overlapping parts of a MultiPolygon) with
        `shapely.make_valid` instead of refusing them. A repaired polygon is a different region.
    skip_invalid : bool, default False
        Skip invalid features and list them in `GeoFeatures.report`, instead of raising at the
        first one.

    Returns
    -------
    GeoFeatures
        The regions, each feature's properties and id, and the read report.

    Raises
    ------
    FormatError
        For a file that is not JSON or not GeoJSON (no known ``"type"``, a FeatureCollection
        without a ``"features"`` list), and (unless `skip_invalid`) for an invalid feature: no
        geometry, a geometry without area (Point, LineString: the message names the type),
        malformed coordinates, or an invalid polygon (the message says that ``repair=True``
        repairs it). The location reads like ``features[3]``.

    Examples
    --------
    >>> collection = {"type": "FeatureCollection", "features": [
    ...     {"type": "Feature", "id": "field-1", "properties": {"crop": "wheat"},
    ...      "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [4, 0], [4, 3], [0, 3], [0, 0]]]}},
    ...     {"type": "Feature", "properties": None,
    ...      "geometry": {"type": "Polygon", "coordinates": [[[2, 0], [6, 0], [6, 3], [2, 3], [2, 0]]]}},
    ...     {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [1, 1]}}]}
    >>> features = read_geojson(collection, skip_invalid=True)
    >>> features.regions.area, features.ids, features.properties
    (array([12., 12.]), ('field-1', 1), ({'crop': 'wheat'}, {}))
    >>> import geoiou
    >>> geoiou.iou(features.regions[0], features.regions[1])  # 6 shared of 18 covered
    0.3333333333333333
    >>> print(features.report.summary())
    <dict>: read 2 records, skipped 1
      1 x 'geometry' must be a Polygon, a MultiPolygon or a GeometryCollection of them (first at features[2])
    """
    if not isinstance(source, Mapping):
        columnar = _read_feature_collection(source)
        if columnar is not None:
            return columnar
    document, reader = load_json_document(source, skip_invalid=skip_invalid)
    geometries, properties, ids = [], [], []
    for location, feature, default_id in _geojson_features(document, reader):
        with reader.record(location):
            geometry = _areal(_geojson_geometry(_feature_geometry(feature)), repair)
            feature_properties = _feature_properties(feature)
            feature_id = _feature_id(feature, default_id)
            geometries.append(geometry)
            properties.append(feature_properties)
            ids.append(feature_id)
    return _geo_features(geometries, properties, ids, reader)


#: A GeoJSON "coordinates" member: nested arrays of numbers, which never hold braces or quotes.
_COORDINATES = re.compile(r'("coordinates"\s*:\s*)\[[^{}"]*\]')


def _read_feature_collection(path: str | os.PathLike[str]) -> GeoFeatures | None:
    """Read a FeatureCollection of valid Polygons and MultiPolygons in bulk, or None if it is anything else.

    shapely parses all the geometries at once (in C), and the JSON parser reads the rest of the
    file with the coordinates taken out, which is most of its text. Any file this path does
    not fully accept (another layout, a null or non-areal geometry, an invalid polygon, a
    malformed record) returns None and is read feature by feature, which names the faulty
    feature, skips or repairs it as asked: both paths give the same result.
    """
    try:
        with open(path, encoding="utf-8-sig") as handle:
            text = handle.read()
        stripped, replaced = _COORDINATES.subn(r"\1null", text)
        if replaced != text.count('"coordinates"'):
            return None  # coordinates holding strings or objects: the feature reader names them
        document = json.loads(stripped, object_pairs_hook=unique_keys)
        features = document["features"] if document.get("type") == "FeatureCollection" else None
        if not isinstance(features, list) or not features:
            return None
        kinds = [feature["geometry"]["type"] for feature in features if feature.get("type") == "Feature"]
        properties = [_feature_properties(feature) for feature in features]
        ids = [_feature_id(feature, index) for index, feature in enumerate(features)]
        with np.errstate(invalid="ignore"):
            geometries = shapely.get_parts(shapely.from_geojson(text))
    except (OSError, ValueError, TypeError, KeyError, AttributeError, FormatError, shapely.errors.ShapelyError):
        return None
    expected = np.where(
        np.array(kinds) == "MultiPolygon", shapely.GeometryType.MULTIPOLYGON, shapely.GeometryType.POLYGON
    )
    if (
        len(kinds) != len(features)
        or not set(kinds) <= {"Polygon", "MultiPolygon"}
        or len(geometries) != len(features)
        or not np.array_equal(shapely.get_type_id(geometries), expected)
    ):
        return None
    geometries = shapely.force_2d(geometries) if shapely.has_z(geometries).any() else geometries
    try:
        regions = Polygon.from_shapely(geometries)
    except InvalidRegionError:
        return None
    return GeoFeatures(regions, tuple(properties), tuple(ids), ReadReport(source_name(path), len(features)))


def _valid_polygons_in_bulk(texts: list[str]) -> Polygon | None:
    """The Polygons and MultiPolygons of WKT lines, parsed and validated at once; None if any line is anything else.

    The line-by-line reader then names the faulty line, skips or repairs it as asked.
    """
    if not texts:
        return None
    with np.errstate(invalid="ignore"):
        geometries = shapely.from_wkt(np.array(texts, dtype=object), on_invalid="ignore")
    if shapely.is_missing(geometries).any():
        return None
    if not np.isin(
        shapely.get_type_id(geometries), (shapely.GeometryType.POLYGON, shapely.GeometryType.MULTIPOLYGON)
    ).all():
        return None
    geometries = shapely.force_2d(geometries) if shapely.has_z(geometries).any() else geometries
    try:
        return Polygon.from_shapely(geometries)
    except InvalidRegionError:
        return None


def _geojson_features(document: Any, reader: RecordReader) -> list[tuple[str, Any, int]]:
    """``(location, feature, index)`` of each feature; a bare geometry is one feature without properties."""
    if not isinstance(document, Mapping):
        raise reader.whole_file(f"expected a GeoJSON object at the top level (got {type(document).__name__})")
    kind = document.get("type")
    if kind == "FeatureCollection":
        features = document.get("features")
        if not isinstance(features, list):
            raise reader.whole_file(f"'features' of a FeatureCollection must be a list (got {describe(features)})")
        return [(f"features[{index}]", feature, index) for index, feature in enumerate(features)]
    if kind == "Feature":
        return [("feature", document, 0)]
    if kind in GEOJSON_GEOMETRY_TYPES:
        return [("geometry", {"type": "Feature", "geometry": document}, 0)]
    raise reader.whole_file(
        f"'type' must be 'FeatureCollection', 'Feature' or a geometry type {list(GEOJSON_GEOMETRY_TYPES)} "
        f"(got {describe(kind)})"
    )


def _feature_geometry(feature: Any) -> Any:
    if not isinstance(feature, Mapping) or feature.get("type") != "Feature":
        got = describe(feature.get("type") if isinstance(feature, Mapping) else feature)
        raise invalid(f'a feature must be an object with "type": "Feature" (got {got})')
    return feature.get("geometry")


def _geojson_geometry(geometry: Any) -> shapely.Geometry:
    """The shapely geometry of a GeoJSON geometry object, or raise `invalid` saying what is malformed."""
    if geometry is None:
        raise invalid(f"'geometry' must be {AREAL} (got null: the feature has no geometry)")
    if not isinstance(geometry, Mapping) or geometry.get("type") not in GEOJSON_GEOMETRY_TYPES:
        got = geometry.get("type") if isinstance(geometry, Mapping) else geometry
        raise invalid(
            f"'geometry' must be a GeoJSON geometry with a 'type' of {list(GEOJSON_GEOMETRY_TYPES)} "
            f"(got {describe(got)})"
        )
    member = "geometries" if geometry["type"] == "GeometryCollection" else "coordinates"
    if member not in geometry:
        raise invalid(f"'geometry' must have {member!r} (got the fields {list(geometry)})")
    if member == "coordinates" and not _only_numbers(geometry[member]):
        raise invalid(f"'coordinates' must be nested arrays of numbers (got {describe(geometry[member], limit=60)})")
    try:
        with np.errstate(invalid="ignore"):  # NaN coordinates are refused below, with their field named
            return shapely.geometry.shape(geometry)
    except _SHAPE_ERRORS as error:
        raise invalid(
            f"'geometry' must be a well-formed GeoJSON {geometry['type']} "
            f"(got {describe(geometry[member], limit=60)}: {error})"
        ) from None


def _only_numbers(value: Any) -> bool:
    """Whether nested lists hold only JSON numbers (shapely would convert strings such as "2")."""
    if isinstance(value, list):
        return all(_only_numbers(item) for item in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _feature_properties(feature: Mapping[str, Any]) -> dict[str, Any]:
    properties = feature.get("properties")
    if properties is None:
        return {}
    if not isinstance(properties, Mapping):
        raise invalid(f"'properties' must be an object or null (got {describe(properties)})")
    return dict(properties)


def _feature_id(feature: Mapping[str, Any], default: int) -> Hashable:
    if "id" not in feature:
        return default
    value = feature["id"]
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise invalid(f"'id' must be a string or a number (got {describe(value)})")
    return value


# --------------------------------------------------------------------------- WKT
def read_wkt(path: str | os.PathLike[str], *, repair: bool = False, skip_invalid: bool = False) -> GeoFeatures:
    """Read one WKT geometry per line; blank lines and lines starting with ``#`` are ignored.

    Coordinates are used as they are, in the data's own plane (for lon/lat data this is IoU in
    the lon/lat plane, not on the sphere: project first for areas on the ground). A ``z``
    coordinate is dropped.

    Parameters
    ----------
    path : str or path-like
        The text file.
    repair : bool, default False
        Repair invalid polygons with `shapely.make_valid` instead of refusing them.
    skip_invalid : bool, default False
        Skip invalid lines and list them in `GeoFeatures.report`, instead of raising at the first.

    Returns
    -------
    GeoFeatures
        The regions; `ids` are the geometries' indices in the file (0 for the first geometry
        line, counting skipped ones); `properties` are empty.

    Raises
    ------
    FormatError
        Naming the file and the line, for text that is not WKT, a geometry without area, or an
        invalid polygon (unless `repair`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> text = "# two parcels\\nPOLYGON ((0 0, 4 0, 4 3, 0 3, 0 0))\\n\\nPOLYGON ((2 0, 6 0, 6 3, 2 3, 2 0))\\n"
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "parcels.wkt"
    ...     _ = path.write_text(text)
    ...     parcels = read_wkt(path)
    >>> parcels.regions.area, parcels.ids
    (array([12., 12.]), (0, 1))
    """
    reader = RecordReader(path, skip_invalid=skip_invalid)
    geometries, ids = [], []
    lines = [(number, line.strip()) for number, line in enumerate(read_text(path).splitlines(), start=1)]
    geometry_lines = [(number, text) for number, text in lines if text and not text.startswith("#")]
    regions = _valid_polygons_in_bulk([text for _, text in geometry_lines])
    if regions is not None:
        return GeoFeatures(
            regions,
            tuple({} for _ in geometry_lines),
            tuple(range(len(geometry_lines))),
            ReadReport(source_name(path), len(geometry_lines)),
        )
    for index, (number, text) in enumerate(geometry_lines):
        with reader.record(f"line {number}"):
            geometries.append(_wkt_region(text, repair))
            ids.append(index)
    return _geo_features(geometries, [{} for _ in ids], ids, reader)


def parse_wkt(text: str, *, repair: bool = False) -> Polygon:
    """One region from one WKT string: a POLYGON, a MULTIPOLYGON or a GEOMETRYCOLLECTION of them.

    Coordinates are used as they are (lon/lat polygons compare in the lon/lat plane); a ``z``
    coordinate is dropped.

    Parameters
    ----------
    text : str
        The WKT text, e.g. ``"POLYGON ((0 0, 4 0, 4 3, 0 0))"``.
    repair : bool, default False
        Repair an invalid polygon with `shapely.make_valid` instead of refusing it.

    Returns
    -------
    Polygon
        One region (batch shape ``()``).

    Raises
    ------
    FormatError
        With source ``"<literal>"``, for text that is not WKT, a geometry without area, or an
        invalid polygon (unless `repair`).

    Examples
    --------
    >>> parse_wkt("POLYGON ((0 0, 4 0, 4 3, 0 3, 0 0), (1 1, 2 1, 2 2, 1 2, 1 1))").area  # with a hole
    11.0
    >>> parse_wkt("LINESTRING (0 0, 4 4)")
    Traceback (most recent call last):
    ...
    geoiou.errors.FormatError: <literal>: 'geometry' must be a Polygon, a MultiPolygon or a GeometryCollection of them
    (got LineString, which has no area)
    """
    if not isinstance(text, str):
        raise invalid_argument("text", "a WKT string", text)
    reader = RecordReader("<literal>", skip_invalid=False)
    with reader.record(""):
        geometry = _wkt_region(text, repair)
    return Polygon.from_shapely(geometry)


def _wkt_region(text: str, repair: bool) -> shapely.Geometry:
    try:
        with np.errstate(invalid="ignore"):  # NaN coordinates are refused below, with their field named
            geometry = shapely.from_wkt(text)
    except shapely.errors.ShapelyError as error:
        raise invalid(f"the text must be WKT (got {describe(text, limit=60)}: {error})") from None
    return _areal(geometry, repair)


# --------------------------------------------------------------------------- shared
def _areal(geometry: shapely.Geometry, repair: bool) -> shapely.Geometry:
    """A valid 2-D (Multi)Polygon from a geometry: refuse what has no area, union a collection's members."""
    if isinstance(geometry, POLYGONAL):
        return _in_range(_valid_2d(geometry, repair))
    members = [_valid_2d(member, repair) for member in _polygonal_members(geometry)]
    union = shapely.unary_union(members)  # a collection is the region its members cover together
    return _in_range(union if isinstance(union, POLYGONAL) else shapely.Polygon())


def _in_range(geometry: shapely.Geometry) -> shapely.Geometry:
    """The geometry, unless Polygon would refuse it (areas that overflow or underflow float64): then `invalid`."""
    faults = shapely_range_faults(np.array([geometry], dtype=object), "geometry")
    if faults:
        raise invalid(faults[0])
    return geometry


def _valid_2d(geometry: shapely.Geometry, repair: bool) -> shapely.Geometry:
    """The geometry without z, checked valid (GEOS finds NaN and inf coordinates invalid too)."""
    if shapely.has_z(geometry):
        geometry = shapely.force_2d(geometry)
    if shapely.is_valid(geometry):
        return geometry
    # Polygon's own validation gives the message (or the repair), with 'geometry' as the field name.
    return Polygon.from_shapely(geometry, repair=repair).to_shapely()


def _polygonal_members(geometry: shapely.Geometry) -> list[shapely.Geometry]:
    """The geometry itself if polygonal, the polygonal members of a (nested) collection, else raise `invalid`."""
    if isinstance(geometry, POLYGONAL):
        return [geometry]
    if geometry.geom_type != "GeometryCollection":
        raise invalid(f"'geometry' must be {AREAL} (got {geometry.geom_type}, which has no area)")
    members = []
    for part in shapely.get_parts(geometry):
        if not isinstance(part, POLYGONAL) and part.geom_type != "GeometryCollection":
            raise invalid(
                f"'geometry' must be {AREAL} (got a GeometryCollection holding a {part.geom_type}, which has no area)"
            )
        members += _polygonal_members(part)
    return members


def _geo_features(
    geometries: Sequence[shapely.Geometry],
    properties: Sequence[dict[str, Any]],
    ids: Sequence[Hashable],
    reader: RecordReader,
) -> GeoFeatures:
    batch = np.empty(len(geometries), dtype=object)
    batch[:] = geometries
    return GeoFeatures(Polygon.from_shapely(batch), tuple(properties), tuple(ids), reader.report())
