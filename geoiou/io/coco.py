"""COCO JSON files: datasets (``instances_*.json``) and result files, read into geoiou regions.

A dataset file is an object with ``"images"`` (``id``, ``height``, ``width``), ``"categories"``
(``id``, ``name``) and ``"annotations"``; a result file is a list of predictions
(``image_id``, ``category_id``, ``score`` and a geometry). The geometry of each record is read as

- ``"bbox"``: ``[x, y, w, h]`` in pixels, a `Box` (``fmt="xywh"``);
- ``"segmentation"``: a list of polygons, each a flat list ``x1, y1, x2, y2, ...``, read as one
  `Polygon` per object, the union of its parts (pycocotools merges the parts' rasters); or an RLE
  ``{"size": [h, w], "counts": ...}``, compressed (a string) or not (a list of run lengths, as in
  crowd annotations), read as a `Mask` that stays run-length encoded (nothing is decoded to pixels).

The fields of each kind of record are declared once, in `geoiou.io.coco_schema`. A plain file is
read column by column from that schema (`geoiou.io.columns`); a file with an unusual or faulty
record is read record by record against the same schema, with polygon validity and RLE counts
checked in batches. A faulty record raises a `FormatError` naming the file, the record and the
fault, e.g.
``instances.json, annotations[17] (id 4242): 'bbox' must be 4 numbers [x, y, w, h] (got [1, 2, 3])``;
with ``skip_invalid=True`` it is skipped and listed in the result's `ReadReport`.

Examples
--------
>>> dataset = {"images": [{"id": 1, "height": 4, "width": 6}], "categories": [{"id": 7, "name": "cat"}],
...            "annotations": [{"id": 10, "image_id": 1, "category_id": 7, "bbox": [1, 1, 2, 2], "area": 4,
...                             "segmentation": [[1, 1, 3, 1, 3, 3]], "iscrowd": 0}]}
>>> read_coco(dataset).annotations.regions[0].to_array("xywh")
array([[1., 1., 2., 2.]])
>>> read_coco(dataset, geometry="segmentation").annotations.regions[0].area
array([2.])
"""

from __future__ import annotations

import json
import operator
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby, repeat
from typing import Any, Literal, TypeVar, cast

import numpy as np
import shapely

from geoiou._distinct import distinct
from geoiou import rle as coco_rle
from geoiou._progress import Phases
from geoiou._collection import collection_held_off
from geoiou._validation import LARGEST_COORDINATE, describe, invalid_argument, shapely_range_faults, sized_box_faults
from geoiou.errors import InvalidRegionError
from geoiou.io.coco_schema import (
    ANNOTATION,
    AREA,
    CATEGORY,
    IMAGE,
    RESULT,
    Field,
    Rle,
    Tables,
    is_integer,
    read_columns,
    read_fields,
    record_values,
    unique_key,
)
from geoiou.io.columns import JsonColumns, Values, all_of_type
from geoiou.io.json_documents import open_json, reading_phases
from geoiou.io.folders import parse_records, settle
from geoiou.io.report import ReadReport, RecordReader, invalid
from geoiou.regions import Box, Mask, Polygon, Region, RotatedBox
from geoiou.rle_rasterize import coco_compat_counts, coco_compat_parts_runs
from geoiou.tables.annotations import Annotations

__all__ = ["CocoDataset", "CocoPredictions", "read_coco", "read_coco_results", "write_coco_results"]

Geometry = Literal["bbox", "segmentation"]
PolygonReading = Literal["exact", "pycocotools"]
POLYGON_READINGS = ("exact", "pycocotools")
ResultGeometry = Literal["auto", "bbox", "segmentation"]
#: A checked choice (`_checked_geometry`).
_Choice = TypeVar("_Choice", bound=str)
GEOMETRIES: tuple[Geometry, ...] = ("bbox", "segmentation")
#: The top-level keys of a dataset file.
DATASET_KEYS = ("images", "annotations", "categories")
#: Masks encoded per call when a batch holds dense pixels (bounds the pixels decoded at once).
ENCODE_CHUNK = 256


@dataclass(frozen=True)
class CocoDataset:
    """The content of a COCO dataset file (ground truth).

    Attributes
    ----------
    annotations : Annotations
        One row per annotation read, in file order: ``image_id``, ``category_id``, ``region``,
        ``iscrowd`` and ``area`` (the file's own field, which COCOeval uses for the area ranges;
        None when no annotation has one, and then the region's measure is used).
    images : dict
        Image id -> ``(height, width)``, every image of the file, also those without objects.
    categories : dict
        Category id -> name, in file order.
    annotation_ids : numpy.ndarray
        The ``"id"`` of each annotation row, in row order.
    report : ReadReport
        The records read (images, categories and annotations) and the ones skipped, and why.

    Examples
    --------
    >>> dataset = {"images": [{"id": 3, "height": 480, "width": 640}], "categories": [{"id": 1, "name": "person"}],
    ...            "annotations": [{"id": 9, "image_id": 3, "category_id": 1, "bbox": [10, 20, 30, 40],
    ...                             "area": 1000.0}]}
    >>> coco = read_coco(dataset)
    >>> coco.images, coco.categories, coco.annotation_ids, coco.annotations.area
    ({3: (480, 640)}, {1: 'person'}, array([9]), array([1000.]))
    """

    annotations: Annotations
    images: dict[int, tuple[int, int]]
    categories: dict[int, str]
    annotation_ids: np.ndarray
    report: ReadReport


@dataclass(frozen=True)
class CocoPredictions:
    """The content of a COCO result file (predictions).

    Attributes
    ----------
    annotations : Annotations
        One row per prediction read, in file order, with its ``score``.
    geometry : str
        ``"bbox"`` or ``"segmentation"``: the geometry that was read.
    report : ReadReport
        The records read and the ones skipped, and why.

    Examples
    --------
    >>> predictions = read_coco_results([{"image_id": 3, "category_id": 1, "score": 0.75,
    ...                                   "segmentation": {"size": [2, 2], "counts": "04"}}])
    >>> predictions.geometry, predictions.annotations.kinds, predictions.report.read
    ('segmentation', ('Mask',), 1)
    """

    annotations: Annotations
    geometry: str
    report: ReadReport


# --------------------------------------------------------------------------- reading datasets
def read_coco(
    path: str | os.PathLike[str] | Mapping[str, Any],
    *,
    geometry: Geometry = "bbox",
    polygons: PolygonReading = "exact",
    repair: bool = False,
    skip_invalid: bool = False,
) -> CocoDataset:
    """Read a COCO dataset file (``instances_val2017.json`` and the like) into annotations.

    Parameters
    ----------
    path : str, path-like or dict
        The JSON file, or its already-parsed content (named ``"<dict>"`` in messages).
    geometry : {"bbox", "segmentation"}, default "bbox"
        Which field gives each annotation's region: the box (a `Box`), or the segmentation (a
        `Polygon` per polygon annotation, a `Mask` per RLE annotation; kinds may mix).
    polygons : {"exact", "pycocotools"}, default "exact"
        With ``geometry="segmentation"``: ``"exact"`` keeps polygon annotations as `Polygon`
        regions (the union of their parts), compared exactly. ``"pycocotools"`` rasterizes each from
        its parts as written, at its image's size, exactly as pycocotools' ``annToRLE`` does, into a
        `Mask`: use it to reproduce official COCO segmentation numbers. Then parts that touch or
        overlap are rasterized one by one and merged, and a self-intersecting part is rasterized
        as it is (no `repair` needed), as pycocotools does.
    repair : bool, default False
        Repair self-intersecting polygon parts with `shapely.make_valid` instead of refusing them.
    skip_invalid : bool, default False
        Skip invalid records (listed in ``report``) instead of raising at the first one.

    Returns
    -------
    CocoDataset

    Raises
    ------
    FormatError
        Naming the file, the record (``annotations[17] (id 4242)``) and the fault. A file that is
        not JSON or lacks ``"images"``, ``"annotations"`` or ``"categories"`` always raises. Invalid
        records: a missing or malformed field, an ``image_id`` not in ``"images"``, a
        ``category_id`` not in ``"categories"``, a repeated ``id``, a negative box size, a polygon
        part of fewer than 3 points or crossing itself (unless `repair`), an RLE whose size is not
        its image's ``[height, width]`` or whose counts are malformed, an ``"area"`` missing from
        some annotations while others have it.

    Notes
    -----
    A missing ``"iscrowd"`` counts as 0, as in COCOeval. Polygon parts may overlap one another (their
    union is the object), and may reach outside the image, as in COCO itself.

    Examples
    --------
    >>> dataset = {"images": [{"id": 1, "height": 2, "width": 3}, {"id": 2, "height": 5, "width": 5}],
    ...            "categories": [{"id": 1, "name": "person"}],
    ...            "annotations": [{"id": 7, "image_id": 1, "category_id": 1, "iscrowd": 1, "area": 3.0,
    ...                             "segmentation": {"size": [2, 3], "counts": [2, 3, 1]}, "bbox": [0, 0, 3, 2]},
    ...                            {"id": 8, "image_id": 2, "category_id": 1, "iscrowd": 0, "area": 4.5,
    ...                             "segmentation": [[0, 0, 3, 0, 0, 3]], "bbox": [0, 0, 3, 3]}]}
    >>> coco = read_coco(dataset, geometry="segmentation")
    >>> coco.annotations.kinds, coco.images, coco.annotation_ids
    (('Mask', 'Polygon'), {1: (2, 3), 2: (5, 5)}, array([7, 8]))
    >>> dataset["annotations"][1]["bbox"] = [0, 0, -3, 3]
    >>> read_coco(dataset)
    Traceback (most recent call last):
    ...
    geoiou.errors.FormatError: <dict>, annotations[1] (id 8): 'bbox' must have a non-negative width and height
    (got [0, 0, -3, 3])
    >>> print(read_coco(dataset, skip_invalid=True).report.summary())
    <dict>: read 4 records, skipped 1
      1 x 'bbox' must have a non-negative width and height (first at annotations[1] (id 8))
    """
    geometry = _checked_geometry(geometry, GEOMETRIES)
    if polygons not in POLYGON_READINGS:
        raise invalid_argument("polygons", f"one of {POLYGON_READINGS}", polygons)
    source = open_json(path, skip_invalid=skip_invalid)
    fast = None if source.columns is None else _dataset_columns(source.columns, geometry, polygons)
    if fast is not None:
        source.reader.read_valid(fast.records)
        return CocoDataset(fast.annotations, fast.images, fast.categories, fast.annotation_ids, source.reader.report())
    # Some record is not of the plain form: read them one by one, which names the faulty ones.
    reader = source.reader
    sections = _dataset_sections(source.document(), reader)
    images = {key: (v["height"], v["width"]) for key, v in _read_table(reader, sections, "images", IMAGE).items()}
    categories = {key: v["name"] for key, v in _read_table(reader, sections, "categories", CATEGORY).items()}
    records = _located(sections["annotations"], "annotations")
    parsed = parse_records(records, _AnnotationParser(geometry, images, categories, polygons))
    faults = {**_area_faults(parsed), **_repeated_id_faults(records, parsed)}
    regions = _Regions.build(_rows(parsed), faults, geometry, repair)
    kept = settle(reader, records, parsed, regions.faults)
    # settle keeps parsed records only: the filter narrows the type and drops nothing.
    rows = [row for row in (parsed[index] for index in kept) if isinstance(row, _Row)]
    areas = [row.area for row in rows]
    annotations = Annotations(
        image_id=np.array([row.image_id for row in rows], dtype=np.int64),
        category_id=np.array([row.category_id for row in rows], dtype=np.int64),
        region=regions.pieces,
        iscrowd=np.array([row.iscrowd for row in rows], dtype=bool),
        area=None if any(area is None for area in areas) else np.array(areas, dtype=np.float64),
    )
    return CocoDataset(
        annotations, images, categories, np.array([row.id for row in rows], dtype=np.int64), reader.report()
    )


def _dataset_sections(document: Any, reader: RecordReader) -> dict[str, list[Any]]:
    """The three lists of a dataset file; anything else is a fault of the whole file."""
    if not isinstance(document, Mapping):
        raise reader.whole_file(
            f"a COCO dataset must be a JSON object with the keys {list(DATASET_KEYS)} "
            f"(got a {type(document).__name__}; a result file is read by read_coco_results)"
        )
    missing = [key for key in DATASET_KEYS if key not in document]
    if missing:
        raise reader.whole_file(f"a COCO dataset must have the keys {list(DATASET_KEYS)} (missing {missing})")
    for key in DATASET_KEYS:
        if not isinstance(document[key], list):
            raise reader.whole_file(f"'{key}' must be a list (got {describe(document[key])})")
    return {key: document[key] for key in DATASET_KEYS}


def _read_table(
    reader: RecordReader, sections: dict[str, list[Any]], section: str, fields: tuple[Field, ...]
) -> dict[int, dict[str, Any]]:
    """The checked values of each record of "images" or "categories", by id; a repeated id is an invalid record."""
    unique = unique_key(fields)
    table: dict[int, dict[str, Any]] = {}
    where: dict[int, str] = {}
    for location, record in _located(sections[section], section):
        with reader.record(location):
            values = record_values(record, fields)
            key = values[unique]
            if key in table:
                raise invalid(f"'{unique}' must be unique (got {key}, also at {where[key]})")
            table[key], where[key] = values, location
    return table


@dataclass(frozen=True)
class _Row:
    """One annotation or prediction as parsed: its columns and its geometry (see `_Regions`)."""

    id: int | None
    image_id: int
    category_id: int
    geometry: Any
    iscrowd: bool = False
    area: float | None = None
    score: float | None = None


@dataclass(frozen=True)
class _DatasetColumns:
    """A dataset file read by the fast path (`_dataset_columns`)."""

    annotations: Annotations
    images: dict[int, tuple[int, int]]
    categories: dict[int, str]
    annotation_ids: np.ndarray
    records: int  #: images, categories and annotations read


def _dataset_columns(columns: JsonColumns, geometry: str, polygons: str) -> _DatasetColumns | None:
    """The whole dataset read column by column (see `geoiou.io.columns`); None unless every record is plain."""
    root = columns.root()
    if not columns.is_object(root).all():
        return None
    sections = {}
    for key in DATASET_KEYS:
        section = columns.elements(columns.field(root, key))
        if section is None or not columns.is_object(section[0]).all():
            return None
        sections[key] = section[0]
    images = _image_columns(columns, sections["images"])
    categories = _category_columns(columns, sections["categories"])
    if images is None or categories is None:
        return None
    read = _annotation_columns(columns, sections["annotations"], geometry, images, categories, polygons)
    if read is None:
        return None
    annotations, ids = read
    total = sum(len(section) for section in sections.values())
    return _DatasetColumns(annotations, images, categories, ids, total)


def _image_columns(columns: JsonColumns, records: Values) -> dict[int, tuple[int, int]] | None:
    """Image id -> (height, width) of plain image records (`IMAGE`)."""
    read = read_columns(columns, records, IMAGE)
    if read is None:
        return None
    return dict(zip(read["id"].tolist(), zip(read["height"].tolist(), read["width"].tolist())))


def _category_columns(columns: JsonColumns, records: Values) -> dict[int, str] | None:
    """Category id -> name of plain category records (`CATEGORY`)."""
    read = read_columns(columns, records, CATEGORY)
    return None if read is None else dict(zip(read["id"].tolist(), read["name"]))


def _annotation_columns(
    columns: JsonColumns,
    records: Values,
    geometry: str,
    images: dict[int, tuple[int, int]],
    categories: dict[int, str],
    polygons: str,
) -> tuple[Annotations, np.ndarray] | None:
    """The annotations read column by column, and their ids; None unless all are plain.

    Plain: the fields of `ANNOTATION` (see `read_columns`), polygon parts as flat lists of numbers
    (each part written open) and RLEs of the image's size.
    """
    if not len(records):
        return None
    read = read_columns(
        columns, records, read_fields(ANNOTATION, geometry), {"images": images, "categories": categories}
    )
    if read is None:
        return None
    image_id = read["image_id"]
    if geometry == "bbox":
        region = _box_column(read["bbox"])
    else:
        present = distinct(image_id)
        sizes = np.array([images[image] for image in present.tolist()], dtype=np.int64).reshape(-1, 2)
        region = _segmentation_column(
            columns, read["segmentation"], sizes[np.searchsorted(present, image_id)], polygons
        )
    if region is None:
        return None
    annotations = Annotations(
        image_id=image_id, category_id=read["category_id"], region=region, iscrowd=read["iscrowd"], area=read["area"]
    )
    return annotations, read["id"]


def _segmentation_column(
    columns: JsonColumns, values: Values | None, sizes: np.ndarray | None, polygons: str = "exact"
) -> list[Region] | None:
    """Polygons and RLE masks of the records, one batch per stretch of one kind (masks: see `_masks_of_runs`).

    `sizes` are the records' images' ``(height, width)``, which each RLE must have; None for a
    result file, whose RLEs give their own. With ``polygons="pycocotools"`` (a dataset: `sizes`
    given) polygon records become masks, rasterized all at once as pycocotools does (the record
    parser's result, without a Python call per record).
    """
    if values is None or not len(values):
        return None  # no record: the record path makes the empty column of the geometry asked for
    is_rle, is_polygon = columns.is_object(values), columns.is_array(values)
    if not (is_polygon | is_rle).all():
        return None
    polygon_rows, rle_rows = np.flatnonzero(is_polygon), np.flatnonzero(is_rle)
    runs = _rle_runs(columns, columns.select(values, rle_rows), None if sizes is None else sizes[rle_rows])
    if polygons == "pycocotools":
        assert sizes is not None  # read_coco gives them: its images' sizes
        parts = _polygon_parts(columns, columns.select(values, polygon_rows))
        if parts is None or runs is None:
            return None
        rasters = coco_compat_parts_runs(*parts, sizes[polygon_rows])
        every = coco_rle.Runs.concatenate([rasters, runs]).take(
            np.argsort(np.r_[polygon_rows, rle_rows], kind="stable")
        )
        return _masks_of_runs(every)
    geometries = _polygon_column(columns, columns.select(values, polygon_rows))
    if geometries is None or runs is None:
        return None
    # Consecutive records of one kind share a batch, as record by record.
    changes = np.flatnonzero(is_polygon[1:] != is_polygon[:-1]) + 1
    polygon_at = np.cumsum(is_polygon) - 1  # index among the polygons / the masks of each record
    rle_at = np.cumsum(is_rle) - 1
    pieces: list[Region] = []
    for first, stop in zip([0, *changes.tolist()], [*changes.tolist(), len(is_rle)]):
        if is_polygon[first]:
            with collection_held_off():
                pieces.append(Polygon._from_valid_shapely(geometries[polygon_at[first] : polygon_at[stop - 1] + 1]))
        else:
            pieces.extend(_masks_of_runs(runs.slice(int(rle_at[first]), int(rle_at[stop - 1]) + 1)))
    return pieces


def _masks_of_runs(runs: coco_rle.Runs) -> list[Region]:
    """The masks of validated runs in one batch, whatever their sizes and order (one run table on the largest grid).

    The one place where masks are built from runs read from a file.
    """
    return [Mask._from_runs(runs)]


def _polygon_parts(columns: JsonColumns, values: Values) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The parts of polygon records as ``(vertices (V, 2), vertices per part, parts per record)``, or None
    where the record parser must decide (a part not a flat list of at least 3 points, or written closed)."""
    parts = columns.elements(values)
    numbers = None if parts is None else columns.elements(parts[0])
    coordinates = None if numbers is None else columns.numbers(numbers[0])
    if parts is None or numbers is None or coordinates is None:
        return None
    lengths, counts = numbers[1], parts[1]
    if (
        not counts.all()
        or (lengths % 2).any()
        or (lengths < 6).any()
        or not (np.abs(coordinates) <= LARGEST_COORDINATE).all()
    ):  # the record parser names a coordinate out of range
        return None
    vertices, lengths = coordinates.reshape(-1, 2), lengths // 2
    last = np.cumsum(lengths) - 1
    if len(last) and (vertices[last] == vertices[last - lengths + 1]).all(axis=1).any():
        return None  # a part written closed: the record-by-record reader drops the repeated vertex
    return vertices, lengths, counts


def _polygon_column(columns: JsonColumns, values: Values) -> np.ndarray | None:
    """One valid shapely geometry per record from its parts (flat coordinate lists), all built at once."""
    if not len(values):
        return np.empty(0, dtype=object)
    parts = _polygon_parts(columns, values)
    if parts is None:
        return None
    vertices, lengths, counts = parts
    faults: dict[int, str] = {}
    with collection_held_off():  # a shapely object per ring and per polygon, all short-lived
        joined = _polygons_of_rings(list(range(len(values))), vertices, lengths, counts, False, faults)
    if faults:
        return None
    return _object_array([joined[k] for k in range(len(values))])


def _rle_runs(columns: JsonColumns, rles: Values, image_sizes: np.ndarray | None = None) -> coco_rle.Runs | None:
    """Runs of RLE segmentations, all decoded together; None unless every RLE is valid (and of its image's size).

    Sizes must be written as two JSON integers, as COCO's are.
    """
    written = columns.elements(columns.field(rles, "size"))
    sizes = None if written is None or (written[1] != 2).any() else columns.integers(written[0])
    if sizes is None:
        return None
    sizes = sizes.reshape(-1, 2)
    if (sizes < 0).any() or (image_sizes is not None and not np.array_equal(sizes, image_sizes.reshape(-1, 2))):
        return None
    return columns.rle_runs(rles, sizes)


class _AnnotationParser:
    """Parses one annotation of a dataset file (`ANNOTATION`), checking its ids against the images and categories."""

    def __init__(
        self, geometry: str, images: dict[int, tuple[int, int]], categories: dict[int, str], polygons: str = "exact"
    ) -> None:
        self.geometry, self.images, self.polygons = geometry, images, polygons
        self.fields = read_fields(ANNOTATION, geometry)
        self.tables: Tables = {"images": images, "categories": categories}

    def __call__(self, record: Any) -> _Row:
        values = record_values(record, self.fields, self.tables)
        geometry, image_size = values[self.geometry], self.images[values["image_id"]]
        if isinstance(geometry, Rle) and geometry.size != image_size:
            written = geometry.rle["size"]
            raise invalid(f"'segmentation.size' must be the image's [height, width] {list(image_size)} (got {written})")
        if self.polygons == "pycocotools" and isinstance(geometry, list):
            # pycocotools' annToRLE: the parts as written, rasterized and merged (no validity check).
            height, width = image_size
            geometry = Rle({"size": [height, width], "counts": coco_compat_counts(geometry, height, width)}, image_size)
        return _Row(
            values["id"],
            values["image_id"],
            values["category_id"],
            geometry,
            iscrowd=values["iscrowd"],
            area=values["area"],
        )


def _rows(parsed: list[Any]) -> list[_Row | None]:
    """The parsed rows, None where the record's parse failed."""
    return [value if isinstance(value, _Row) else None for value in parsed]


def _repeated_id_faults(records: list[tuple[str, Any]], parsed: list[Any]) -> dict[int, str]:
    """An annotation whose "id" an earlier one has (pycocotools' index would keep only one of them)."""
    first: dict[int | None, int] = {}  # annotation ids are never None (_AnnotationParser requires them)
    faults = {}
    unique = unique_key(ANNOTATION)
    for index, row in enumerate(_rows(parsed)):
        if row is None:
            continue
        if row.id in first:
            faults[index] = f"'{unique}' must be unique (got {row.id}, also at {records[first[row.id]][0]})"
        else:
            first[row.id] = index
    return faults


def _area_faults(parsed: list[Any]) -> dict[int, str]:
    """If some annotations have an "area", the others must have one too (COCOeval needs it for the ranges)."""
    rows = [(index, row) for index, row in enumerate(_rows(parsed)) if row is not None]
    if not any(row.area is not None for _, row in rows):
        return {}
    reason = f"'{AREA.key}' must be {AREA.expected} like in the other annotations (got nothing: the key is missing)"
    return {index: reason for index, row in rows if row.area is None}


# --------------------------------------------------------------------------- reading result files
def read_coco_results(
    path: str | os.PathLike[str] | Sequence[Mapping[str, Any]],
    *,
    geometry: ResultGeometry = "auto",
    repair: bool = False,
    skip_invalid: bool = False,
) -> CocoPredictions:
    """Read a COCO result file: a JSON list of ``{"image_id", "category_id", "score", "bbox" or "segmentation"}``.

    Parameters
    ----------
    path : str, path-like or list
        The JSON file, or its already-parsed content (named ``"<dict>"`` in messages).
    geometry : {"auto", "bbox", "segmentation"}, default "auto"
        Which field gives each prediction's region. ``"auto"`` reads segmentations when every
        record has a ``"segmentation"``, else boxes (also for an empty list);
        ``CocoPredictions.geometry`` says which.
    repair : bool, default False
        Repair self-intersecting polygon parts with `shapely.make_valid` instead of refusing them.
    skip_invalid : bool, default False
        Skip invalid records (listed in ``report``) instead of raising at the first one.

    Returns
    -------
    CocoPredictions

    Raises
    ------
    FormatError
        Naming the file, the record (``results[17]``) and the fault. Ids are not checked against a
        dataset (a result file has no image table); an RLE's size is its own.

    Examples
    --------
    >>> results = [{"image_id": 1, "category_id": 3, "score": 0.9, "bbox": [10, 20, 30, 40]},
    ...            {"image_id": 2, "category_id": 3, "score": 0.5, "bbox": [0, 0, 5, 5]}]
    >>> predictions = read_coco_results(results)
    >>> predictions.geometry, predictions.annotations.score, predictions.annotations.regions[0].area
    ('bbox', array([0.9, 0.5]), array([1200.,   25.]))
    >>> read_coco_results([{"image_id": 1, "category_id": 3, "score": "high", "bbox": [0, 0, 1, 1]}])
    Traceback (most recent call last):
    ...
    geoiou.errors.FormatError: <dict>, results[0]: 'score' must be a finite number (got 'high')
    """
    choice = _checked_geometry(geometry, ("auto", *GEOMETRIES))
    with reading_phases(path, 2) as phases:
        return _read_results(path, choice, repair, skip_invalid, phases)


def _read_results(path: Any, choice: str, repair: bool, skip_invalid: bool, phases: Phases) -> CocoPredictions:
    source = open_json(path, skip_invalid=skip_invalid, phases=phases)
    fast = None if source.columns is None else _prediction_columns(source.columns, choice)
    phases.done("regions")
    reader = source.reader
    if fast is not None:
        annotations, geometry = fast
        reader.read_valid(len(annotations))
        return CocoPredictions(annotations, geometry, reader.report())
    # Some record is not of the plain form: read them one by one, which names the faulty ones.
    document = source.document()
    if not isinstance(document, list):
        raise reader.whole_file(
            "a COCO result file must be a JSON list of predictions "
            f"(got a {type(document).__name__}; "
            "a dataset file is read by read_coco)"
        )
    if choice == "auto":
        choice = "segmentation" if document and _all_have(document, "segmentation") else "bbox"
    records = _located(document, "results")
    fields = read_fields(RESULT, choice)
    parsed = parse_records(records, lambda record: _prediction(record_values(record, fields), choice))
    regions = _Regions.build(_rows(parsed), {}, choice, repair)
    kept = settle(reader, records, parsed, regions.faults)
    # settle keeps parsed records only: the filter narrows the type and drops nothing.
    rows = [row for row in (parsed[index] for index in kept) if isinstance(row, _Row)]
    annotations = Annotations(
        image_id=np.array([row.image_id for row in rows], dtype=np.int64),
        category_id=np.array([row.category_id for row in rows], dtype=np.int64),
        region=regions.pieces,
        score=np.array([row.score for row in rows], dtype=np.float64),
    )
    return CocoPredictions(annotations, choice, reader.report())


def _prediction_columns(columns: JsonColumns, choice: str) -> tuple[Annotations, str] | None:
    """The predictions read column by column (see `geoiou.io.columns`), and the geometry read; None unless every
    record is plain.

    Plain: the fields of `RESULT` (see `read_columns`), with RLE and polygon segmentations
    validated all together (see `_segmentation_column`).
    """
    listed = columns.elements(columns.root())
    if listed is None or not columns.is_object(listed[0]).all():
        return None
    records = listed[0]
    geometry = choice
    if choice == "auto":  # segmentations when every record has one (the record path's rule, `_all_have`)
        having = columns.count_having(records, "segmentation")
        geometry = "segmentation" if len(records) and having == len(records) else "bbox"
    read = read_columns(columns, records, read_fields(RESULT, geometry))
    if read is None:
        return None
    region = (
        _box_column(read["bbox"]) if geometry == "bbox" else _segmentation_column(columns, read["segmentation"], None)
    )
    if region is None:
        return None
    return Annotations(
        image_id=read["image_id"], category_id=read["category_id"], region=region, score=read["score"]
    ), geometry


def _box_column(boxes: np.ndarray) -> list[Region] | None:
    """The boxes of `RESULT`'s or `ANNOTATION`'s box column, as one `Box`; None where `Box` refuses one."""
    try:  # Box refuses what `_box_faults` names (out of range, a size rounded away): the record path names the row
        return [Box(boxes, fmt="xywh")]
    except InvalidRegionError:
        return None


def _box_faults(boxes: np.ndarray) -> dict[int, str]:
    """Why each ``[x, y, w, h]`` row is one `Box` would refuse (out of float64's range, a size rounded away), by row."""
    return sized_box_faults(boxes, "xywh", "bbox")


def _prediction(values: dict[str, Any], geometry: str) -> _Row:
    """The row of a prediction's checked values (`RESULT`)."""
    return _Row(None, values["image_id"], values["category_id"], values[geometry], score=values["score"])


def _all_have(records: list[Any], key: str) -> bool:
    """Whether every record is a mapping with `key` (for plain dicts, a loop at C speed)."""
    if all_of_type(records, dict):
        return all(map(operator.contains, records, repeat(key)))
    return all(isinstance(record, Mapping) and key in record for record in records)


# --------------------------------------------------------------------------- fields of one record
def _located(records: list[Any], section: str) -> list[tuple[str, Any]]:
    """Each record with its location, ``annotations[17] (id 4242)`` when it has an integer id."""
    located: list[tuple[str, Any]] = []
    for index, record in enumerate(records):
        identifier = record.get("id") if isinstance(record, Mapping) else None
        suffix = f" (id {identifier})" if is_integer(identifier) else ""
        located.append((f"{section}[{index}]{suffix}", record))
    return located


def _checked_geometry(geometry: Any, choices: tuple[_Choice, ...]) -> _Choice:
    if geometry not in choices:
        raise invalid_argument("geometry", f"one of {choices}", geometry)
    return cast(_Choice, geometry)  # equal to one of the choices: the `in` test above is what mypy cannot follow


# --------------------------------------------------------------------------- regions of the records
@dataclass(frozen=True)
class _Regions:
    """The region batches of the records that are valid, in record order, and the faults found building them.

    Consecutive records of one kind share a batch: boxes, polygons, or masks (kept as runs, masks
    of several sizes on the largest grid).
    """

    pieces: list[Region]
    faults: dict[int, str]

    @classmethod
    def build(cls, rows: list[_Row | None], faults: dict[int, str], geometry: str, repair: bool) -> _Regions:
        """Regions of the `rows` that are not None and not in `faults` (which is copied, then extended)."""
        faults = dict(faults)
        alive_rows = {index: row for index, row in enumerate(rows) if row is not None and index not in faults}
        alive = list(alive_rows)
        if geometry == "bbox":
            boxes = np.array([alive_rows[index].geometry for index in alive], dtype=np.float64).reshape(-1, 4)
            box_faults = _box_faults(boxes)
            faults.update({alive[row]: reason for row, reason in box_faults.items()})
            keep = np.setdiff1d(np.arange(len(alive)), list(box_faults))
            return cls([Box(boxes[keep], fmt="xywh")], faults)
        parts = {index: row.geometry for index, row in alive_rows.items() if not isinstance(row.geometry, Rle)}
        polygons = _polygons(parts, repair, faults)
        pieces: list[Region] = []
        for key, group in groupby(
            (index for index in alive if index not in faults), key=lambda index: _kind(alive_rows[index].geometry)
        ):
            members = list(group)
            if key == ("polygon",):
                # Validated part by part and as unions above: skip from_shapely's second validation.
                pieces.append(Polygon._from_valid_shapely(_object_array([polygons[index] for index in members])))
            else:
                pieces.extend(_masks({index: alive_rows[index].geometry.rle for index in members}, faults))
        return cls([piece for piece in pieces if len(piece)] or [Polygon.from_shapely(_object_array([]))], faults)


def _object_array(values: list[Any]) -> np.ndarray:
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


def _kind(geometry: Any) -> tuple[Any, ...]:
    return ("mask",) if isinstance(geometry, Rle) else ("polygon",)  # masks of any sizes share one batch


def _polygons(parts: dict[int, list[np.ndarray]], repair: bool, faults: dict[int, str]) -> dict[int, shapely.Geometry]:
    """One shapely geometry per record, the union of its parts; invalid parts become faults (unless `repair`).

    All parts are built and checked at once; records of several parts become MultiPolygons when
    their parts are disjoint (vertices kept as written) and the union of the parts otherwise.
    """
    if not parts:
        return {}
    owners = list(parts)
    rings = [ring for owner in owners for ring in parts[owner]]
    counts = np.array([len(parts[owner]) for owner in owners])
    lengths = np.array([len(ring) for ring in rings])
    return _polygons_of_rings(owners, np.concatenate(rings), lengths, counts, repair, faults)


def _polygons_of_rings(
    owners: list[int],
    vertices: np.ndarray,
    lengths: np.ndarray,
    counts: np.ndarray,
    repair: bool,
    faults: dict[int, str],
) -> dict[int, shapely.Geometry]:
    """`_polygons` from arrays: the rings' `vertices` end to end (`lengths` each), `counts` rings per owner."""
    ring_of_vertex = np.repeat(np.arange(len(lengths)), lengths)
    geoms = shapely.polygons(shapely.linearrings(vertices, indices=ring_of_vertex))
    invalid_parts = np.flatnonzero(~shapely.is_valid(geoms))
    if invalid_parts.size and repair:
        geoms[invalid_parts] = Polygon.from_shapely(geoms[invalid_parts], repair=True).to_shapely()
    elif invalid_parts.size:
        owner_of_part = np.repeat(np.arange(len(owners)), counts)
        part_number = np.arange(len(lengths)) - np.repeat(np.cumsum(counts) - counts, counts)
        for part in invalid_parts[::-1]:  # the first invalid part of a record is the one reported
            faults[owners[owner_of_part[part]]] = (
                f"'segmentation[{part_number[part]}]' must be a valid polygon "
                f"(got {shapely.is_valid_reason(geoms[part])}); "
                "pass repair=True to make it valid with shapely.make_valid"
            )
    joined = _joined_parts(owners, counts, geoms, faults)
    # What Polygon itself would refuse (an area that underflows float64), named by record here.
    kept = [owner for owner in owners if owner not in faults]
    for row, reason in shapely_range_faults(_object_array([joined[owner] for owner in kept]), "segmentation").items():
        faults[kept[row]] = reason
        del joined[kept[row]]
    return joined


def _joined_parts(owners: list[int], counts: np.ndarray, geoms: np.ndarray, faults: dict[int, str]) -> dict[int, Any]:
    """Each record's geometry from its consecutive parts in `geoms`: the part itself, or the union of the parts.

    Disjoint parts make a valid MultiPolygon that keeps the vertices as written (all of them built
    in one call); parts that overlap or touch, or were repaired into several pieces, are united.
    """
    firsts = (np.cumsum(counts) - counts).tolist()
    joined: dict[int, Any] = {}
    several: list[tuple[int, np.ndarray]] = []
    for owner, first, count in zip(owners, firsts, counts.tolist()):
        if owner in faults:
            continue
        if count == 1:
            joined[owner] = geoms[first]
        else:
            several.append((owner, geoms[first : first + count]))
    plain = [(owner, group) for owner, group in several if all(type(part) is shapely.Polygon for part in group)]
    if plain:
        members = np.concatenate([group for _, group in plain])
        owner_of_member = np.repeat(np.arange(len(plain)), [len(group) for _, group in plain])
        candidates = shapely.multipolygons(members, indices=owner_of_member)
        for (owner, _), candidate, valid in zip(plain, candidates, shapely.is_valid(candidates)):
            if valid:
                joined[owner] = candidate
    for owner, group in several:
        if owner not in joined:
            union = shapely.union_all(group)
            joined[owner] = union if isinstance(union, (shapely.Polygon, shapely.MultiPolygon)) else shapely.Polygon()
    return joined


def _masks(rles: dict[int, Mapping[str, Any]], faults: dict[int, str]) -> list[Region]:
    """Masks of one size from their RLEs, kept as runs; on a malformed RLE each is checked to find the faulty ones."""
    # The RLE readers take dicts: an RLE given as another mapping (in a document passed as a
    # mapping) is refused by them with InvalidRegionError, which makes it its record's fault.
    try:
        return _masks_of_runs(coco_rle.to_runs(list(rles.values())))  # type: ignore[arg-type]  # mappings, see above
    except InvalidRegionError:
        pass
    good: list[dict[str, Any]] = []
    for index, rle in rles.items():
        try:
            coco_rle.to_runs(rle)  # type: ignore[arg-type]  # a mapping on purpose, see above
        except InvalidRegionError as error:
            faults[index] = f"'segmentation' must be a valid COCO RLE: {error}"
            continue
        good.append(cast(dict[str, Any], rle))  # to_runs accepted it, so it is a dict
    return _masks_of_runs(coco_rle.to_runs(good))


# --------------------------------------------------------------------------- writing result files
def write_coco_results(
    path: str | os.PathLike[str], predictions: Annotations, *, geometry: ResultGeometry = "auto"
) -> None:
    """Write predictions as a COCO result file, a JSON list ``pycocotools``' ``COCO.loadRes`` reads.

    Parameters
    ----------
    path : str or path-like
        The file to write.
    predictions : Annotations
        With a score per row and integer image and category ids.
    geometry : {"auto", "bbox", "segmentation"}, default "auto"
        ``"bbox"`` writes ``[x, y, w, h]``: a `Box` as it is, any other 2-D region its bounding box.
        ``"segmentation"`` writes masks as compressed RLE (byte for byte ``pycocotools.mask.encode``;
        masks read as runs are encoded from the runs) and polygons, boxes and rotated boxes as flat
        lists of vertices, one per part. ``"auto"`` writes boxes when every region is a `Box`, else
        segmentations.

    Raises
    ------
    InvalidArgumentError
        Naming the row, for what COCO cannot hold: string ids, a missing score, intervals, masks
        not at origin (0, 0) (an RLE has no origin), polygons with holes or empty regions.

    Examples
    --------
    >>> import json, tempfile, pathlib, numpy as np, geoiou
    >>> predictions = Annotations(image_id=[1, 2], category_id=[3, 3], score=[0.9, 0.5],
    ...                           region=geoiou.Mask(np.array([[[0, 1, 1], [0, 1, 0]], [[1, 0, 0], [0, 0, 0]]])))
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "results.json"
    >>> write_coco_results(path, predictions)
    >>> json.loads(path.read_text())[0]
    {'image_id': 1, 'category_id': 3, 'segmentation': {'size': [2, 3], 'counts': '231'}, 'score': 0.9}
    >>> read_coco_results(path).annotations.regions[0].area
    array([3., 1.])
    """
    if not isinstance(predictions, Annotations):
        raise invalid_argument("predictions", "Annotations", type(predictions).__name__)
    if predictions.score is None:
        raise invalid_argument("predictions", "predictions with a score per row", "no 'score' column")
    for name in ("image_id", "category_id"):
        ids = getattr(predictions, name)
        if ids.dtype.kind not in "iu":
            raise invalid_argument(f"predictions.{name}", "integer ids (COCO's ids are integers)", f"dtype {ids.dtype}")
    choice = _checked_geometry(geometry, ("auto", *GEOMETRIES))
    if choice == "auto":
        choice = "bbox" if all(isinstance(piece, Box) for piece in predictions.regions) else "segmentation"
    values: list[Any] = []
    first_row = 0
    for piece in predictions.regions:
        values.extend(_bbox_values(piece, first_row) if choice == "bbox" else _segmentation_values(piece, first_row))
        first_row += len(piece)
    records = [
        {"image_id": image, "category_id": category, choice: value, "score": score}
        for image, category, value, score in zip(
            predictions.image_id.tolist(), predictions.category_id.tolist(), values, predictions.score.tolist()
        )
    ]
    text = json.dumps(records)  # one shot: the C encoder (json.dump encodes in Python, several times slower)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def _refuse_row(expected: str, got: Any, row: int) -> Exception:
    return invalid_argument("predictions.region", expected, got, f" at row {row}")


def _bbox_values(piece: Region, first_row: int) -> list[list[float]]:
    if piece.ndim != 2:
        raise _refuse_row("2-D regions for a COCO file", type(piece).__name__, first_row)
    if isinstance(piece, Box):
        boxes: list[list[float]] = piece.to_array("xywh").tolist()
        return boxes
    bounds = piece.bounds
    empty = np.flatnonzero(~np.isfinite(bounds).all(axis=1))  # an empty region has NaN bounds
    if empty.size:
        raise _refuse_row("regions with a bounding box", "an empty region", first_row + int(empty[0]))
    bounding: list[list[float]] = np.column_stack([bounds[:, :2], bounds[:, 2:] - bounds[:, :2]]).tolist()
    return bounding


def _segmentation_values(piece: Region, first_row: int) -> list[Any]:
    if isinstance(piece, Mask):
        return _mask_rles(piece, first_row)
    if isinstance(piece, (Box, RotatedBox)):
        piece = piece.to_polygon()
    if not isinstance(piece, Polygon):
        raise _refuse_row("2-D regions for a COCO file", type(piece).__name__, first_row)
    return [_polygon_rings(geometry, first_row + row) for row, geometry in enumerate(piece.to_shapely())]


def _polygon_rings(geometry: shapely.Geometry, row: int) -> list[list[float]]:
    """COCO's polygon form: the exterior ring of each part, vertices as stored, the closing vertex left out."""
    parts = [part for part in shapely.get_parts(geometry) if not part.is_empty]
    if not parts:
        raise _refuse_row("non-empty polygons (COCO has no empty polygon)", "an empty polygon", row)
    if any(part.interiors for part in parts):
        raise _refuse_row("polygons without holes (COCO's polygon format has none)", "a polygon with holes", row)
    return [shapely.get_coordinates(part.exterior)[:-1].ravel().tolist() for part in parts]


def _mask_rles(masks: Mask, first_row: int) -> list[dict[str, Any]]:
    """Compressed RLEs as ``pycocotools.mask.encode`` writes them; masks held as runs are never decoded."""
    shifted = np.flatnonzero((masks.origin != 0).any(axis=-1))
    if shifted.size:
        row = int(shifted[0])
        raise _refuse_row(
            "masks at origin (0, 0): an RLE has no origin", f"origin {masks.origin[row].tolist()}", first_row + row
        )
    encoded: list[dict[str, Any]] = []  # Mask.to_rle encodes masks held as runs without decoding them
    for start in range(0, len(masks), ENCODE_CHUNK):
        # A slice of a 1-D batch is a batch: to_rle gives the list of its RLEs, never one dict.
        encoded.extend(cast(list[dict[str, Any]], masks[start : start + ENCODE_CHUNK].to_rle()))
    return [{"size": rle["size"], "counts": rle["counts"].decode("ascii")} for rle in encoded]
