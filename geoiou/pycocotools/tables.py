"""The columns an evaluation reads from a `COCO` object: one table per ``iouType``, built once.

A `Table` holds one row per annotation (or result), in the order of ``dataset["annotations"]``:
ids, image and category ids, crowd flags, COCO's ``area`` and scores, and the geometry the
``iouType`` compares: the regions as `evaluate_coco` holds them (`DetectionRegions`: boxes with
their sides as written, masks as COCO runs, rotated boxes and exact polygons), which the engine's
kernels measure, or keypoints. Datasets are read by `geoiou.io.read_coco` (validated, polygons
rasterized as pycocotools does), result lists by `geoiou.io.read_coco_results`; arrays are taken
column by column (`geoiou.io.columns`): no per-record Python on the way from a file to the
evaluation.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any, Callable, Literal, Mapping, Sequence

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.errors import FormatError
from geoiou.evaluation.overlaps import DetectionRegions
from geoiou.io import CocoDataset, read_coco, read_coco_results
from geoiou.io.columns import integer_column, json_columns, number_column, number_rows
from geoiou.regions import Box, Mask, Region, RotatedBox
from geoiou.pycocotools.sources import ResultSource
from geoiou.rle_rasterize import coco_compat_parts_runs
from geoiou.tables.annotations import Annotations

__all__ = ["Table", "dataset_table", "file_table", "results_table"]

#: iouTypes and the geometry each compares ("boundary" compares the segm table's masks and their bands).
IOU_TYPES = ("bbox", "segm", "keypoints", "obb", "polygon", "boundary")
#: How an ``rbox`` [cx, cy, w, h, angle] is read for iouType "obb" (`Params.rboxConvention`): the constructor.
RBOX_CONVENTIONS: dict[str, Callable[[np.ndarray], RotatedBox]] = {
    "geoiou": RotatedBox,  # degrees, clockwise on screen in y-down images (OpenCV, mmcv)
    "radians": RotatedBox.from_radians,  # radians, the same direction (mmcv's box_iou_rotated)
    "detectron2": RotatedBox.from_detectron2,  # degrees, counter-clockwise on screen
    "mmrotate-oc": lambda rows: RotatedBox.from_mmrotate(rows, version="oc"),
    "mmrotate-le90": lambda rows: RotatedBox.from_mmrotate(rows, version="le90"),
    "mmrotate-le135": lambda rows: RotatedBox.from_mmrotate(rows, version="le135"),
}


@dataclass(frozen=True)
class Table:
    """One row per annotation: what `COCOeval` needs of a `COCO` object for one ``iouType``.

    ``regions`` are the rows' regions as the engine measures them (bbox, segm, obb, polygon);
    ``keypoints`` ``(n, 3K)`` with ``num_keypoints`` and ``boxes`` ``[x, y, w, h]`` as written
    (the ground truths' boxes) for keypoints.

    Examples
    --------
    >>> from geoiou.pycocotools.sources import RecordSource
    >>> found = RecordSource([{"image_id": 1, "category_id": 2, "bbox": [0, 0, 2, 2], "score": 0.5}])
    >>> table = results_table(found, None, "bbox", {})
    >>> len(table), table.ids, table.iscrowd, table.score, table.regions.area
    (1, array([1]), array([False]), array([0.5]), array([4.]))
    """

    ids: np.ndarray
    image_id: np.ndarray
    category_id: np.ndarray
    iscrowd: np.ndarray
    area: np.ndarray
    score: np.ndarray | None = None
    boxes: np.ndarray | None = None
    keypoints: np.ndarray | None = None
    num_keypoints: np.ndarray | None = None
    regions: DetectionRegions | None = None

    def __len__(self) -> int:
        return len(self.ids)


def detection_regions(
    pieces: Sequence[Region],
    image_id: np.ndarray,
    param: str,
    image_sizes: Mapping[int, tuple[int, int]] | None = None,
) -> DetectionRegions:
    """Batches whose rows follow one another as `evaluate_coco` holds a side's regions; with `image_sizes`
    (``{image_id: (height, width)}``), masks must be their image's size at origin (0, 0), as there.

    Examples
    --------
    >>> regions = detection_regions([Box([[0, 0, 2, 3]], fmt="xywh")], np.array([1]), "results")
    >>> regions.area
    array([6.])
    >>> detection_regions([Mask.from_rle([{"size": [2, 2], "counts": [1, 3]}])], np.array([1]), "results", {1: (3, 3)})
    Traceback (most recent call last):
    ...
    geoiou.errors.InvalidArgumentError: 'results.region' must be masks of their image's size at origin (0, 0): \
3x3 pixels for image 1 (got 'a 2x2 mask at origin (0, 0) at row 0')
    """
    n = len(image_id)
    annotations = Annotations(image_id=image_id, category_id=np.zeros(n, np.int64), region=list(pieces))
    if image_sizes is None:  # no size to check: every row in one nominal image
        return DetectionRegions(annotations, np.zeros(n, np.int64), np.zeros(1, np.int64), None, "exact", param)
    ids = np.unique(np.asarray(image_id, dtype=np.int64))
    sizes = np.array([image_sizes[image] for image in ids.tolist()], dtype=np.int64).reshape(-1, 2)
    return DetectionRegions(annotations, np.searchsorted(ids, image_id), ids, sizes, "exact", param)


# --------------------------------------------------------------------------- datasets
def dataset_table(
    dataset: Mapping[str, Any], iou_type: str, *, scores: bool = False, rbox_convention: str = "geoiou"
) -> Table:
    """The table of a dataset dict (``images``, ``categories``, ``annotations``) for `iou_type`.

    With `scores`, each annotation's ``score`` is read too (a dataset of detections);
    `rbox_convention` says how an ``rbox`` is read (`RBOX_CONVENTIONS`).

    Examples
    --------
    >>> dataset = {"images": [{"id": 1, "height": 4, "width": 4}], "categories": [{"id": 1, "name": "a"}],
    ...            "annotations": [{"id": 9, "image_id": 1, "category_id": 1, "segmentation": [[0, 0, 3, 0, 3, 3]],
    ...                             "bbox": [0, 0, 3, 3], "iscrowd": 0}]}
    >>> table = dataset_table(dataset, "segm")
    >>> table.ids, table.area  # no area in the file: the pixels of pycocotools' raster
    (array([9]), array([3.]))
    """
    records = dataset.get("annotations", [])
    table = _truth_table(_read_dataset(_readable(dataset, iou_type), iou_type), iou_type)
    if scores:
        table = replace(table, score=_numbers(records, "score"))
    if iou_type == "keypoints":
        columns = _keypoint_columns(records)
        table = replace(
            table,
            boxes=_number_rows(records, "bbox", 4),
            keypoints=columns["keypoints"],
            num_keypoints=columns["num_keypoints"],
        )
    elif iou_type == "obb":
        table = replace(table, regions=detection_regions((rotated_boxes(records, rbox_convention),), table.image_id,
                                                         "ground_truth"))  # fmt: skip
    return _with_area(table)


def file_table(path: str | os.PathLike[str], iou_type: str) -> Table | None:
    """The table of a dataset file read by `read_coco` from its bytes, for the types whose geometry it reads
    (bbox, segm, polygon); None for the others, or when it refuses the file (where pycocotools' evaluation may not:
    categories without a name, images without a size; `dataset_table` then reads its dicts).

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "instances.json"
    >>> box = {"id": 9, "image_id": 1, "category_id": 1, "bbox": [0, 0, 3, 2]}
    >>> _ = path.write_text(json.dumps({"images": [{"id": 1, "height": 4, "width": 4}], "categories": [{"id": 1}],
    ...                                 "annotations": [box]}))
    >>> file_table(path, "bbox") is None  # a category without a name
    True
    """
    if iou_type not in ("bbox", "segm", "polygon"):
        return None
    try:
        read = _read_dataset(path, iou_type)
    except FormatError:
        return None
    return _with_area(_truth_table(read, iou_type))


def _read_dataset(source: Any, iou_type: str) -> CocoDataset:
    geometry: Literal["bbox", "segmentation"] = "segmentation" if iou_type in ("segm", "polygon") else "bbox"
    return read_coco(source, geometry=geometry, polygons="pycocotools" if iou_type == "segm" else "exact")


def _truth_table(read: CocoDataset, iou_type: str) -> Table:
    """The columns of a dataset `read_coco` read, with its regions (its boxes, masks or polygons as read)."""
    truth = read.annotations
    table = Table(
        ids=read.annotation_ids,
        image_id=truth.image_id,
        category_id=truth.category_id,
        iscrowd=np.zeros(len(truth), bool) if truth.iscrowd is None else truth.iscrowd,
        area=np.full(len(truth), np.nan) if truth.area is None else truth.area,
    )
    if iou_type == "keypoints":  # keypoints come from the dicts
        return table
    return replace(table, regions=detection_regions(truth.regions, truth.image_id, "ground_truth"))


def _with_area(table: Table) -> Table:
    """No annotation had an area (read as NaN): the geometry's own measure, as loadRes computes it."""
    return replace(table, area=geometry_area(table)) if np.isnan(table.area).all() and len(table) else table


def _readable(dataset: Mapping[str, Any], iou_type: str) -> Mapping[str, Any]:
    """The dataset as `read_coco` reads it: what pycocotools' evaluation does not need may be missing here.

    Categories without a name get their id as name; for boxes and keypoints, images without a size
    get 1 x 1 (a size matters only to masks). Other records are passed as they are.
    """
    categories, images = dataset.get("categories", []), dataset.get("images", [])
    named = json_columns(categories, ("id", "name")) is not None
    sized = iou_type in ("segm", "polygon") or json_columns(images, ("id", "height", "width")) is not None
    if named and sized and "annotations" in dataset:
        return dataset
    return {
        "images": images if sized else [{"height": 1, "width": 1, **image} for image in images],
        "categories": categories if named else [{"name": str(c.get("id")), **c} for c in categories],
        "annotations": dataset.get("annotations", []),
    }


def geometry_area(table: Table) -> np.ndarray:
    """The area of each row's geometry: the measure of its region (``w * h`` of a box as written, the pixels of a
    mask), or ``w * h`` of the box of keypoints.

    Examples
    --------
    >>> one = np.zeros(1, np.int64)
    >>> geometry_area(Table(one, one, one, one.astype(bool), one * 1.0, boxes=np.array([[0.0, 0.0, 2.0, 3.5]])))
    array([7.])
    """
    if table.regions is not None:
        return table.regions.area
    assert table.boxes is not None
    areas: np.ndarray = table.boxes[:, 2] * table.boxes[:, 3]
    return areas


# --------------------------------------------------------------------------- results
def results_table(
    source: ResultSource | None,
    array: np.ndarray | None,
    iou_type: str,
    image_sizes: Mapping[int, tuple[int, int]],
    branch: str | None = None,
    rbox_convention: str = "geoiou",
) -> Table:
    """The table of results given to ``loadRes`` (a `ResultSource` or an N x 7 array) for `iou_type`; `branch` is
    the source's reading as given (by default, its `ResultSource.branch`).

    Ids are 1, 2, ... in order and nothing is crowd, as ``loadRes`` sets them; the area is the box's
    ``w * h`` when the first result has a box, else the mask's pixels, else the keypoints' extent.
    `image_sizes` (``{image_id: (height, width)}``) is read for segm only: masks must be their
    image's size, and boxes are rasterized at it.

    Examples
    --------
    >>> rows = np.array([[1, 0, 0, 2, 3, 0.9, 7]])  # image id, x, y, w, h, score, category id
    >>> table = results_table(None, rows, "bbox", {})
    >>> table.category_id, table.regions.area, table.area
    (array([7]), array([6.]), array([6.]))
    """
    if array is not None:
        return _array_table(array, iou_type, image_sizes)
    if source is None or not len(source):
        return _empty_result_table(iou_type)
    if iou_type in ("obb", "polygon"):
        return _exact_result_table(source, iou_type, rbox_convention)
    branch = branch or source.branch
    if branch == "keypoints":
        return _keypoint_result_table(source.records, iou_type)
    columns = source.read("bbox" if branch == "bbox" else "segmentation")
    base = (columns.image_id, columns.category_id, np.asarray(columns.score))
    geometry = _box_results if branch == "bbox" else _mask_results
    area, regions = geometry(source, columns, iou_type, image_sizes)
    if iou_type == "keypoints":
        return _result_table(base, area, keypoints=_keypoint_columns(source.records)["keypoints"])
    if iou_type in ("bbox", "segm"):
        return _result_table(base, area, regions=regions)
    raise invalid_argument("iouType", "bbox, segm or keypoints for these results", iou_type)


def _box_results(
    source: ResultSource, read: Annotations, iou_type: str, image_sizes: Mapping[int, tuple[int, int]]
) -> tuple[np.ndarray, DetectionRegions]:
    """Results with boxes: their area is the box's ``w * h``; in segm, their own masks or else their boxes
    rasterized."""
    boxes = np.concatenate([_box(piece).to_array("xywh").reshape(-1, 4) for piece in read.regions])
    if iou_type == "segm":
        masks = _result_masks(source, boxes, read.image_id, image_sizes)
        return boxes[:, 2] * boxes[:, 3], detection_regions([masks], read.image_id, "results", image_sizes)
    return boxes[:, 2] * boxes[:, 3], detection_regions(read.regions, read.image_id, "results")


def _mask_results(
    source: ResultSource, read: Annotations, iou_type: str, image_sizes: Mapping[int, tuple[int, int]]
) -> tuple[np.ndarray, DetectionRegions]:
    """Results with masks: their area is their pixels; as boxes, their own or pycocotools' ``toBbox`` of them."""
    sizes = image_sizes if iou_type == "segm" else None  # as boxes, a mask's size does not matter
    masks = detection_regions(_masks(read.regions), read.image_id, "results", sizes)
    return masks.area, masks if iou_type == "segm" else _box_regions(_result_boxes(source), read.image_id)


def _box(piece: Region) -> Box:
    assert isinstance(piece, Box)  # what read_coco_results reads for geometry="bbox"
    return piece


def _box_regions(boxes: np.ndarray, image_id: np.ndarray) -> DetectionRegions:
    return detection_regions([Box(boxes, fmt="xywh")], image_id, "results")


def _empty_result_table(iou_type: str) -> Table:
    """No results (``loadRes([])``, which pycocotools refuses): an empty table of the iouType's geometry."""
    none = np.zeros(0, np.int64)
    base = (none, none, np.zeros(0))
    if iou_type == "keypoints":
        return _result_table(base, np.zeros(0), keypoints=np.zeros((0, 0)))
    return _result_table(base, np.zeros(0), regions=_box_regions(np.zeros((0, 4)), none))


def _keypoint_result_table(records: list[dict[str, Any]], iou_type: str) -> Table:
    """Keypoint results: their area is the extent of all their points, as ``loadRes`` computes it."""
    if iou_type != "keypoints":
        raise invalid_argument("iouType", "keypoints for keypoint results", iou_type)
    keypoints = _keypoint_columns(records)["keypoints"]
    return _result_table(_plain_result_columns(records), keypoint_extents(keypoints)[1], keypoints=keypoints)


def _result_table(base: tuple[np.ndarray, np.ndarray, np.ndarray], area: np.ndarray, **geometry: Any) -> Table:
    image_id, category_id, score = base
    n = len(image_id)
    return Table(np.arange(1, n + 1), image_id, category_id, np.zeros(n, bool), area, score, **geometry)


def _exact_result_table(source: ResultSource, iou_type: str, rbox_convention: str) -> Table:
    """Results for the exact types: rotated boxes (``rbox`` or a quadrilateral) or polygons; the area is the exact
    measure of the region compared."""
    if iou_type == "obb":
        base = _plain_result_columns(source.records)
        pieces: Sequence[Region] = (rotated_boxes(source.records, rbox_convention),)
    else:
        read = source.read("segmentation")
        base = (read.image_id, read.category_id, np.asarray(read.score))
        pieces = read.regions
    regions = detection_regions(pieces, base[0], "results")
    return _result_table(base, regions.area, regions=regions)


def _plain_result_columns(records: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Image ids, category ids and scores of results that `read_coco_results` does not read (keypoints)."""
    columns = json_columns(records, ("image_id", "category_id", "score"))
    if columns is None:
        raise invalid_argument("results", "dicts with 'image_id', 'category_id' and 'score'", records[:1])
    image_id, category_id = integer_column(columns["image_id"]), integer_column(columns["category_id"])
    score = number_column(columns["score"])
    if image_id is None or category_id is None or score is None:
        raise invalid_argument("results", "integer 'image_id' and 'category_id' and a finite 'score'", records[:1])
    return image_id, category_id, score


def keypoint_extents(keypoints: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``loadRes``' box ``[x0, y0, x1 - x0, y1 - y0]`` and area of keypoint results, from all their points.

    Examples
    --------
    >>> keypoint_extents(np.array([[1.0, 2.0, 2, 4.0, 6.0, 0]]))  # invisible points count too
    (array([[1., 2., 3., 4.]]), array([12.]))
    """
    x, y = keypoints[:, 0::3], keypoints[:, 1::3]
    x0, x1, y0, y1 = x.min(axis=1), x.max(axis=1), y.min(axis=1), y.max(axis=1)
    return np.column_stack([x0, y0, x1 - x0, y1 - y0]), (x1 - x0) * (y1 - y0)


def _result_boxes(source: ResultSource) -> np.ndarray:
    """The boxes of mask results: their own where given, else pycocotools' ``toBbox`` of their masks (as written,
    quirks included)."""
    from geoiou.pycocotools.mask import toBbox  # the mask module sits beside this one and imports the tables' users

    records = source.records
    computed = toBbox([r["segmentation"] for r in records])
    own = np.flatnonzero(source.having("bbox"))
    if len(own):
        computed[own] = _number_rows([records[i] for i in own.tolist()], "bbox", 4)
    return np.asarray(computed, dtype=np.float64).reshape(-1, 4)


def _result_masks(
    source: ResultSource,
    boxes: np.ndarray,
    image_id: np.ndarray,
    image_sizes: Mapping[int, tuple[int, int]],
) -> Mask:
    """The masks of box results for a segm evaluation: their own segmentation, else their box rasterized."""
    with_mask = source.having("segmentation")
    pieces: list[Mask] = []
    rows = []
    if with_mask.any():
        chosen = np.flatnonzero(with_mask)
        own = (
            source.read("segmentation")
            if with_mask.all()
            else read_coco_results([source.records[i] for i in chosen.tolist()], geometry="segmentation").annotations
        )
        pieces += _masks(own.regions)
        rows.append(chosen)
    if (~with_mask).any():
        chosen = np.flatnonzero(~with_mask)
        pieces.append(box_masks(boxes[chosen], _sizes_of(image_id[chosen], image_sizes)))
        rows.append(chosen)
    # The masks in the order of their rows (a batch is indexed by moving indices, not pixels).
    return Mask.concatenate(pieces)[np.argsort(np.concatenate(rows), kind="stable")]


def _sizes_of(image_id: np.ndarray, image_sizes: Mapping[int, tuple[int, int]]) -> np.ndarray:
    return np.array([image_sizes[int(i)] for i in image_id], dtype=np.int64).reshape(-1, 2)


def box_masks(boxes: np.ndarray, sizes: np.ndarray) -> Mask:
    """Boxes ``[x, y, w, h]`` rasterized as the polygons ``loadRes`` writes for them, as pycocotools does.

    Examples
    --------
    >>> box_masks(np.array([[1.0, 1.0, 2.0, 2.0]]), np.array([[4, 4]])).area
    array([4.])
    """
    x, y, w, h = boxes.T
    corners = np.stack([x, y, x, y + h, x + w, y + h, x + w, y], axis=1).reshape(-1, 2)
    count = len(boxes)
    runs = coco_compat_parts_runs(corners, np.full(count, 4, np.int64), np.ones(count, np.int64), sizes)
    return Mask._from_runs(runs)  # kept as runs, as the readers keep RLEs


def _array_table(array: np.ndarray, iou_type: str, image_sizes: Mapping[int, tuple[int, int]]) -> Table:
    """Results given as pycocotools' N x 7 array: image id, x, y, w, h, score, category id."""
    boxes = np.ascontiguousarray(array[:, 1:5], dtype=np.float64)
    image_id = array[:, 0].astype(np.int64)
    base = (image_id, array[:, 6].astype(np.int64), array[:, 5].astype(np.float64))
    area = boxes[:, 2] * boxes[:, 3]
    if iou_type == "segm":
        masks = box_masks(boxes, _sizes_of(image_id, image_sizes))
        return _result_table(base, area, regions=detection_regions([masks], image_id, "results", image_sizes))
    if iou_type == "bbox":
        return _result_table(base, area, regions=_box_regions(boxes, image_id))
    raise invalid_argument("iouType", "bbox or segm for results given as an N x 7 array", iou_type)


# --------------------------------------------------------------------------- columns
def _masks(pieces: Sequence[Region]) -> list[Mask]:
    """The batches of results read for segm: masks (RLEs), as pycocotools' ``loadRes`` reads them."""
    masks = []
    for piece in pieces:
        if not isinstance(piece, Mask):
            raise FormatError("<results>", "", f"segmentations of results must be RLE masks (got {piece!r})")
        masks.append(piece)
    return masks


def rotated_boxes(records: Sequence[Mapping[str, Any]], convention: str = "geoiou") -> RotatedBox:
    """The rotated boxes of ``iouType="obb"``: each record's ``rbox`` ``[cx, cy, w, h, angle]`` read by
    `convention` (`RBOX_CONVENTIONS`), or its segmentation's single 4-corner polygon fitted exactly
    (`RotatedBox.from_corners`).

    Examples
    --------
    >>> rotated_boxes([{"rbox": [5, 5, 4, 2, 90]}], "detectron2").angle
    array([-90.])
    """
    if convention not in RBOX_CONVENTIONS:
        raise invalid_argument("rboxConvention", f"one of {sorted(RBOX_CONVENTIONS)}", convention)
    columns = json_columns(records, ("rbox",))
    if columns is not None:
        rows = number_rows(columns["rbox"], 5)
        if rows is None:
            raise invalid_argument("rbox", "5 numbers [cx, cy, w, h, angle] in every record", records[:1])
        return RBOX_CONVENTIONS[convention](rows)
    corners = _number_rows([_only_part(r) for r in records], None, 8)
    return RotatedBox.from_corners(corners.reshape(-1, 4, 2))


def _only_part(record: Mapping[str, Any]) -> dict[str, Any]:
    segmentation = record.get("segmentation")
    if not isinstance(segmentation, list) or len(segmentation) != 1:
        raise invalid_argument(
            "segmentation", "one quadrilateral [x1, y1, ..., x4, y4] (or an 'rbox') for iouType='obb'", segmentation
        )
    return {"corners": segmentation[0]}


def _number_rows(records: Sequence[Mapping[str, Any]], key: str | None, width: int) -> np.ndarray:
    name = key or "corners"
    columns = json_columns(records, (name,))
    rows = None if columns is None else number_rows(columns[name], width)
    if rows is None:
        values = [record.get(name) for record in records]
        try:
            rows = np.array(values, dtype=np.float64).reshape(len(records), width)
        except (TypeError, ValueError):
            raise invalid_argument(name, f"{width} numbers in every record", values[:3]) from None
    return rows


def _numbers(records: Sequence[Mapping[str, Any]], key: str) -> np.ndarray:
    columns = json_columns(records, (key,))
    values = None if columns is None else number_column(columns[key])
    if values is None:
        try:
            values = np.array([record[key] for record in records], dtype=np.float64).reshape(len(records))
        except (KeyError, TypeError, ValueError):
            raise invalid_argument(key, "a number in every record", records[:1]) from None
    return values


def _keypoint_columns(records: Sequence[Mapping[str, Any]]) -> dict[str, np.ndarray]:
    """``keypoints (n, 3K)`` and ``num_keypoints`` (the visible ones when a record does not say) of records."""
    columns = json_columns(records, ("keypoints",))
    if columns is None:
        raise invalid_argument("keypoints", "a list x1, y1, v1, ... in every record", records[:1])
    width = len(columns["keypoints"][0]) if records else 0
    keypoints = _number_rows(records, "keypoints", width)
    counted = json_columns(records, ("num_keypoints",))
    visible = (keypoints[:, 2::3] > 0).sum(axis=1)
    num = integer_column(counted["num_keypoints"]) if counted is not None else None
    return {"keypoints": keypoints, "num_keypoints": visible if num is None else num}
