"""``pycocotools.coco.COCO``: a dataset or a set of results, with pycocotools' dicts and geoiou's columns.

`COCO` keeps the JSON as pycocotools does (``dataset``, ``anns``, ``imgs``, ``cats``,
``imgToAnns``, ``catToImgs``: plain dicts and lists, built once, on first use) and, for the
evaluation, the columns of `geoiou.pycocotools.tables` (built once per ``iouType`` by geoiou's
readers). Results loaded by `COCO.loadRes` are evaluated from their columns; the dicts
pycocotools would have filled in (``id``, ``area``, ``iscrowd``, ``bbox``, ``segmentation``) are
filled in when something reads ``dataset`` or the index, never on the way to the evaluation.

Differences from pycocotools: the files are validated by `geoiou.io.read_coco` when an evaluation
first reads them (a record pycocotools would read wrongly raises a `FormatError` naming it); a
missing ``iscrowd`` counts as 0 and a missing ``area`` as the geometry's own area; ``download`` is
not offered; `COCO.loadRes` also takes an empty list of results.

Examples
--------
>>> from geoiou.pycocotools import COCO
>>> coco = COCO()
>>> coco.dataset = {"images": [{"id": 1, "height": 10, "width": 10}], "categories": [{"id": 3, "name": "cat"}],
...                 "annotations": [{"id": 5, "image_id": 1, "category_id": 3, "bbox": [1, 1, 4, 4], "area": 16,
...                                  "iscrowd": 0}]}
>>> coco.createIndex()
creating index...
index created!
>>> coco.getAnnIds(imgIds=[1]), coco.loadCats(3)[0]["name"]
([5], 'cat')
>>> results = coco.loadRes([{"image_id": 1, "category_id": 3, "bbox": [1, 1, 4, 3], "score": 0.9}])
... # doctest: +ELLIPSIS
Loading and preparing results...
DONE (t=...s)
creating index...
index created!
>>> results.anns[1]["area"], results.anns[1]["iscrowd"]
(12, 0)
"""

from __future__ import annotations

import copy
import itertools
import os
import time
from collections import defaultdict
from typing import Any, Callable, Sequence

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.errors import InvalidTypeError, MismatchError
from geoiou.pycocotools import mask as mask_utils
from geoiou.pycocotools.files import DatasetFile
from geoiou.pycocotools.sources import RecordSource, ResultSource, file_source
from geoiou.pycocotools.tables import IOU_TYPES, Table, dataset_table, file_table, keypoint_extents, results_table

__all__ = ["COCO"]


def _is_array_like(value: Any) -> bool:
    """pycocotools' test of a list of ids: anything with a length that iterates (a single id is neither)."""
    return hasattr(value, "__iter__") and hasattr(value, "__len__")


def _as_list(value: Any) -> Any:
    return value if _is_array_like(value) else [value]


class _Results:
    """What `COCO.loadRes` was given: results (`ResultSource`: a list of dicts, or a file whose dicts are parsed only
    when read) or an N x 7 array, kept until an evaluation reads them."""

    def __init__(self, source: ResultSource | None, array: np.ndarray | None, crowd: bool = True) -> None:
        self.source, self.array = source, array
        self.completed = False
        self.crowd = crowd  # whether results get ``iscrowd`` 0 (pycocotools) or not (lvis-api)

    @property
    def branch(self) -> str:
        """`result_branch` of the results as given (sources read it from the dicts before loadRes fills them in, or
        from the file's bytes)."""
        return "bbox" if self.source is None else self.source.branch


class COCO:
    """pycocotools' ``COCO``: a COCO dataset (or results) with its index, on geoiou's readers.

    Parameters
    ----------
    annotation_file : str or path-like, optional
        A COCO JSON file (``instances_val2017.json``). Without it, set ``dataset`` and call
        `createIndex`, as with pycocotools.

    Attributes
    ----------
    dataset : dict
        The JSON document.
    anns, imgs, cats : dict
        Annotations, images and categories by id (the dicts of ``dataset``, not copies).
    imgToAnns, catToImgs : defaultdict(list)
        The annotations of each image; the image id of each annotation of each category.

    Examples
    --------
    >>> coco = COCO()
    >>> coco.dataset = {"images": [{"id": 1, "height": 8, "width": 8}], "categories": [{"id": 1, "name": "a"}],
    ...                 "annotations": []}
    >>> coco.createIndex()
    creating index...
    index created!
    >>> coco.getImgIds(), dict(coco.imgToAnns)
    ([1], {})
    """

    def __init__(self, annotation_file: str | os.PathLike[str] | None = None) -> None:
        self._dataset: dict[str, Any] = {}
        # The document not parsed yet (a file's, or the dataset beside results): what gives it on first use.
        self._pending: Callable[[], dict[str, Any]] | None = None
        self._file: DatasetFile | None = None  # the file read, while its document is not parsed
        self._truth: COCO | None = None  # the dataset of results from loadRes
        self._index: dict[str, Any] | None = None
        self._tables: dict[str, Table] = {}
        self._results: _Results | None = None
        if annotation_file is not None:
            print("loading annotations into memory...")
            tic = time.time()
            self._file = DatasetFile(annotation_file)
            self._pending = self._file.document
            print(f"Done (t={time.time() - tic:0.2f}s)")
            self.createIndex()

    # ----------------------------------------------------------------- the dicts
    @property
    def dataset(self) -> dict[str, Any]:
        """The JSON document (results: their records, with the fields ``loadRes`` fills in)."""
        self._complete_results()
        return self._document()

    @dataset.setter
    def dataset(self, value: dict[str, Any]) -> None:
        self._dataset, self._index, self._tables, self._results = value, None, {}, None
        self._pending, self._file, self._truth = None, None, None

    def _document(self) -> dict[str, Any]:
        """The document, parsed (or built beside results) on first use: from then on its dicts are what is read."""
        if self._pending is not None:
            pending, self._pending, self._file = self._pending, None, None
            self._dataset = pending()
        return self._dataset

    def _unread_file(self) -> DatasetFile | None:
        """The dataset file while nothing has read its dicts (so they are the file's, as it is written)."""
        return self._file if self._pending is not None else None

    def _file_ids(self, section: str) -> list[Any] | None:
        """The ids of `section`'s records from the file's bytes, while its dicts are unread (None otherwise)."""
        file = self._unread_file()
        return None if file is None or self._index is not None else file.ids[section]

    def _image_sizes(self) -> dict[Any, tuple[int, int]]:
        """``{image_id: (height, width)}`` of the dataset's images (of the dataset beside results)."""
        if self._truth is not None:
            return self._truth._image_sizes()
        file = self._unread_file()
        sizes = None if file is None else file.image_sizes
        if sizes is None:
            sizes = {image["id"]: (image["height"], image["width"]) for image in self._document().get("images", [])}
        return sizes

    def createIndex(self) -> None:  # noqa: N802 - pycocotools' name
        """(Re)build the index of ``dataset``: ``anns``, ``imgs``, ``cats``, ``imgToAnns``, ``catToImgs``.

        The dicts are built the first time one is read; the evaluation columns are read again from
        ``dataset`` too.
        """
        print("creating index...")
        self._index, self._tables = None, {}
        print("index created!")

    def _built_index(self) -> dict[str, Any]:
        if self._index is None:
            dataset = self.dataset
            annotations = dataset.get("annotations", [])
            img_to_anns: defaultdict[Any, list[Any]] = defaultdict(list)
            for ann in annotations:
                img_to_anns[ann["image_id"]].append(ann)
            cat_to_imgs: defaultdict[Any, list[Any]] = defaultdict(list)
            if "categories" in dataset:
                for ann in annotations:
                    cat_to_imgs[ann["category_id"]].append(ann["image_id"])
            self._index = {
                "anns": {ann["id"]: ann for ann in annotations},
                "imgs": {img["id"]: img for img in dataset.get("images", [])},
                "cats": {cat["id"]: cat for cat in dataset.get("categories", [])},
                "imgToAnns": img_to_anns,
                "catToImgs": cat_to_imgs,
            }
        return self._index

    def _index_entry(name: str) -> Any:  # type: ignore[misc]  # builds the properties below
        def read(self: COCO) -> Any:
            return self._built_index()[name]

        def write(self: COCO, value: Any) -> None:
            self._built_index()[name] = value

        return property(read, write, doc=f"pycocotools' ``{name}`` (built on first use).")

    anns = _index_entry("anns")
    imgs = _index_entry("imgs")
    cats = _index_entry("cats")
    imgToAnns = _index_entry("imgToAnns")  # noqa: N815 - pycocotools' name
    catToImgs = _index_entry("catToImgs")  # noqa: N815 - pycocotools' name
    del _index_entry

    def info(self) -> None:
        """Print the dataset's ``info`` section, one ``key: value`` per line."""
        for key, value in self.dataset["info"].items():
            print(f"{key}: {value}")

    # ----------------------------------------------------------------- queries
    def getAnnIds(  # noqa: N802, N803 - pycocotools' names
        self, imgIds: Any = (), catIds: Any = (), areaRng: Sequence[float] = (), iscrowd: Any = None
    ) -> list[Any]:
        """Ids of the annotations of images `imgIds` (all if empty), of categories `catIds`, with
        ``areaRng[0] < area < areaRng[1]`` and the given ``iscrowd``; in image order, then file order.

        Examples
        --------
        >>> coco = COCO()
        >>> coco.dataset = {"images": [{"id": 1}, {"id": 2}], "categories": [{"id": 7}],
        ...                 "annotations": [{"id": 1, "image_id": 2, "category_id": 7, "area": 5, "iscrowd": 0},
        ...                                 {"id": 2, "image_id": 1, "category_id": 7, "area": 50, "iscrowd": 1}]}
        >>> coco.getAnnIds(imgIds=[1, 2]), coco.getAnnIds(areaRng=[0, 10]), coco.getAnnIds(iscrowd=1)
        ([2, 1], [1], [2])
        """
        img_ids, cat_ids = _as_list(imgIds), _as_list(catIds)
        if len(img_ids) == len(cat_ids) == len(areaRng) == 0:
            anns = self.dataset["annotations"]
        else:
            if len(img_ids):
                index = self.imgToAnns
                anns = list(itertools.chain.from_iterable(index[i] for i in img_ids if i in index))
            else:
                anns = self.dataset["annotations"]
            if len(cat_ids):
                anns = [ann for ann in anns if ann["category_id"] in cat_ids]
            if len(areaRng):
                anns = [ann for ann in anns if areaRng[0] < ann["area"] < areaRng[1]]
        if iscrowd is not None:
            return [ann["id"] for ann in anns if ann["iscrowd"] == iscrowd]
        return [ann["id"] for ann in anns]

    def getCatIds(self, catNms: Any = (), supNms: Any = (), catIds: Any = ()) -> list[Any]:  # noqa: N802, N803
        """Ids of the categories named `catNms`, of supercategories `supNms`, among `catIds` (filters left empty
        are not applied), in file order.

        Examples
        --------
        >>> coco = COCO()
        >>> coco.dataset = {"categories": [{"id": 1, "name": "cat", "supercategory": "animal"},
        ...                                {"id": 2, "name": "car", "supercategory": "vehicle"}]}
        >>> coco.getCatIds(), coco.getCatIds(supNms=["vehicle"]), coco.getCatIds(catNms="cat")
        ([1, 2], [2], [1])
        """
        names, supers, ids = _as_list(catNms), _as_list(supNms), _as_list(catIds)
        if len(names) == len(supers) == len(ids) == 0:
            listed = self._file_ids("categories")  # COCOeval asks: from the file's bytes while its dicts are unread
            if listed is not None:
                return listed
        cats = self.dataset["categories"]
        if len(names):
            cats = [cat for cat in cats if cat["name"] in names]
        if len(supers):
            cats = [cat for cat in cats if cat["supercategory"] in supers]
        if len(ids):
            cats = [cat for cat in cats if cat["id"] in ids]
        return [cat["id"] for cat in cats]

    def getImgIds(self, imgIds: Any = (), catIds: Any = ()) -> list[Any]:  # noqa: N802, N803 - pycocotools' names
        """Ids of all images, or of images `imgIds` that hold every category of `catIds`.

        As in pycocotools, the order of a filtered list is a set's.

        Examples
        --------
        >>> coco = COCO()
        >>> coco.dataset = {"images": [{"id": 1}, {"id": 2}], "categories": [{"id": 7}],
        ...                 "annotations": [{"id": 1, "image_id": 2, "category_id": 7}]}
        >>> coco.getImgIds(), coco.getImgIds(catIds=[7])
        ([1, 2], [2])
        """
        img_ids, cat_ids = _as_list(imgIds), _as_list(catIds)
        if len(img_ids) == len(cat_ids) == 0:
            listed = self._file_ids("images")  # COCOeval asks: from the file's bytes while its dicts are unread
            return list(dict.fromkeys(listed)) if listed is not None else list(self.imgs.keys())
        ids = set(img_ids)
        for i, cat_id in enumerate(cat_ids):
            if i == 0 and len(ids) == 0:
                ids = set(self.catToImgs[cat_id])
            else:
                ids &= set(self.catToImgs[cat_id])
        return list(ids)

    def _load(self, table: dict[Any, Any], ids: Any) -> list[Any]:
        if _is_array_like(ids):
            return [table[i] for i in ids]
        return [table[ids]]

    def loadAnns(self, ids: Any = ()) -> list[dict[str, Any]]:  # noqa: N802 - pycocotools' name
        """The annotations with ids `ids` (one id or a list).

        Examples
        --------
        >>> coco = COCO()
        >>> coco.dataset = {"annotations": [{"id": 4, "image_id": 1, "category_id": 1}]}
        >>> coco.loadAnns(4)[0]["image_id"], coco.loadAnns([])
        (1, [])
        """
        return self._load(self.anns, ids)

    def loadCats(self, ids: Any = ()) -> list[dict[str, Any]]:  # noqa: N802 - pycocotools' name
        """The categories with ids `ids` (one id or a list)."""
        return self._load(self.cats, ids)

    def loadImgs(self, ids: Any = ()) -> list[dict[str, Any]]:  # noqa: N802 - pycocotools' name
        """The images with ids `ids` (one id or a list)."""
        return self._load(self.imgs, ids)

    # ----------------------------------------------------------------- masks
    def annToRLE(self, ann: dict[str, Any]) -> dict[str, Any]:  # noqa: N802 - pycocotools' name
        """The annotation's segmentation as one compressed RLE on its image (polygon parts merged).

        Examples
        --------
        >>> coco = COCO()
        >>> coco.dataset = {"images": [{"id": 1, "height": 5, "width": 6}], "annotations": []}
        >>> coco.annToRLE({"image_id": 1, "segmentation": [[1, 1, 4, 1, 4, 3, 1, 3]]})
        {'size': [5, 6], 'counts': b'6230009'}
        """
        image = self.imgs[ann["image_id"]]
        height, width = image["height"], image["width"]
        segmentation = ann["segmentation"]
        if isinstance(segmentation, list):
            parts = mask_utils.frPyObjects(segmentation, height, width)
            return mask_utils.merge(parts if isinstance(parts, list) else [parts])
        if isinstance(segmentation["counts"], list):
            rle = mask_utils.frPyObjects(segmentation, height, width)
            assert isinstance(rle, dict)  # one RLE dict gives one RLE
            return rle
        return segmentation  # type: ignore[no-any-return]

    def annToMask(self, ann: dict[str, Any]) -> np.ndarray:  # noqa: N802 - pycocotools' name
        """The annotation's segmentation as a binary ``uint8`` mask of its image."""
        return mask_utils.decode(self.annToRLE(ann))

    def showAnns(self, anns: Sequence[dict[str, Any]], draw_bbox: bool = False) -> int | None:  # noqa: N802
        """Draw annotations on the current matplotlib axes (polygons, masks, keypoints, boxes).

        Needs matplotlib (``pip install geoiou[plot]``); returns 0 for no annotations, as pycocotools.
        """
        if len(anns) == 0:
            return 0
        from geoiou.pycocotools.drawing import show_annotations  # matplotlib only when drawing

        show_annotations(self, anns, draw_bbox)
        return None

    # ----------------------------------------------------------------- results
    def loadRes(self, resFile: Any) -> COCO:  # noqa: N802, N803 - pycocotools' names
        """Results as a `COCO` object beside this dataset: a JSON file, a list of dicts or an N x 7 array.

        Each result has ``image_id``, ``category_id``, ``score`` and a ``bbox``, a ``segmentation``
        (RLE) or ``keypoints``; the first result decides which, as in pycocotools. Rows of an array
        are ``[image_id, x, y, w, h, score, category_id]``; an N x 6 array (no category) is taken
        when the dataset has one category. Results get ids 1, 2, ... and ``iscrowd`` 0; their
        ``area`` is the box's ``w * h`` (or the mask's pixels, or the keypoints' extent).

        Raises
        ------
        MismatchError
            If a result names an image the dataset does not have.
        """
        print("Loading and preparing results...")
        tic = time.time()
        source, array = self._result_input(resFile)
        unknown = _unknown_images(source, array, self.getImgIds())
        if unknown:
            raise MismatchError(
                f"Results do not correspond to current coco set: image ids {unknown[:5]} are not in the dataset"
            )
        result = COCO()
        result._pending, result._truth = self._beside, self
        result._results = _Results(source, array)
        print(f"DONE (t={time.time() - tic:0.2f}s)")
        result.createIndex()
        return result

    def _beside(self) -> dict[str, Any]:
        """The document of results beside this dataset (its info, images and categories), as ``loadRes`` makes it."""
        dataset = self.dataset
        return {
            "info": copy.deepcopy(dataset.get("info", {})),
            "images": list(dataset["images"]),
            "categories": copy.deepcopy(dataset.get("categories", [])),
            "annotations": [],  # the results' dicts: put in when first read
        }

    def _result_input(self, given: Any) -> tuple[ResultSource | None, np.ndarray | None]:
        if isinstance(given, (str, os.PathLike)):
            return file_source(given), None
        if isinstance(given, np.ndarray):
            return None, self._result_array(given)
        if not isinstance(given, list):
            raise InvalidTypeError(f"results must be a list of objects, a file or an N x 7 array (got {type(given)})")
        return RecordSource(given), None

    def _result_array(self, array: np.ndarray) -> np.ndarray:
        if array.ndim == 2 and array.shape[1] == 6:
            categories = self.getCatIds()
            if len(categories) != 1:
                raise invalid_argument(
                    "resFile",
                    "an N x 7 array [image_id, x, y, w, h, score, category_id] (N x 6 only for a dataset "
                    "of one category)",
                    f"an N x 6 array for {len(categories)} categories",
                )
            array = np.column_stack([array, np.full(len(array), categories[0])])
        if array.ndim != 2 or array.shape[1] != 7:
            raise invalid_argument("resFile", "an N x 7 array [image_id, x, y, w, h, score, category_id]", array.shape)
        return np.asarray(array, dtype=np.float64)

    def loadNumpyAnnotations(self, data: np.ndarray) -> list[dict[str, Any]]:  # noqa: N802 - pycocotools' name
        """Result dicts of an N x 7 array ``[image_id, x, y, w, h, score, category_id]``, as pycocotools makes them.

        Examples
        --------
        >>> COCO().loadNumpyAnnotations(np.array([[1, 2, 3, 4, 5, 0.5, 7]]))[0]["bbox"]
        [np.float64(2.0), np.float64(3.0), np.float64(4.0), np.float64(5.0)]
        """
        return [
            {
                "image_id": int(row[0]),
                "bbox": [row[1], row[2], row[3], row[4]],
                "score": row[5],
                "category_id": int(row[6]),
            }
            for row in np.asarray(data)
        ]

    def _complete_results(self) -> None:
        """Fill in the fields ``loadRes`` writes into each result (once, when the dicts are first read)."""
        results = self._results
        if results is None or results.completed:
            return
        results.completed = True
        if results.source is not None:
            records = results.source.records
        else:
            assert results.array is not None  # loadRes keeps one of the two
            records = self.loadNumpyAnnotations(results.array)
        self._document()["annotations"] = records
        _complete_records(records, results.branch, crowd=results.crowd)


def _unknown_images(source: ResultSource | None, array: np.ndarray | None, known: list[Any]) -> list[Any]:
    """The image ids of results that the dataset does not have, sorted: pycocotools' test, on sets.

    Examples
    --------
    >>> _unknown_images(RecordSource([{"image_id": 3, "bbox": [0, 0, 1, 1]}, {"image_id": 1, "bbox": [0, 0, 1, 1]}]),
    ...                 None, [1, 2])
    [3]
    """
    ids = set(array[:, 0].astype(np.int64).tolist()) if array is not None else source.image_ids() if source else set()
    unknown = ids - set(known)
    try:
        return sorted(unknown)
    except TypeError:  # ids of several types
        return sorted(unknown, key=str)


def _complete_records(records: list[dict[str, Any]], branch: str, *, crowd: bool) -> None:
    """pycocotools' ``loadRes`` additions to result dicts: ``id``, ``area``, ``iscrowd`` (with `crowd`), and a box
    or polygon."""
    for number, ann in enumerate(records, start=1):
        if branch == "bbox":
            x, y, w, h = ann["bbox"]
            ann.setdefault("segmentation", [[x, y, x, y + h, x + w, y + h, x + w, y]])
            ann["area"] = w * h
            if crowd:
                ann["iscrowd"] = 0
        elif branch == "segmentation":
            ann["area"] = mask_utils.area(ann["segmentation"])
            if "bbox" not in ann:
                ann["bbox"] = mask_utils.toBbox(ann["segmentation"])
            if crowd:
                ann["iscrowd"] = 0
        elif branch == "keypoints":
            boxes, areas = keypoint_extents(np.asarray([ann["keypoints"]], dtype=np.float64))
            ann["area"] = float(areas[0])
            ann["bbox"] = boxes[0].tolist()
        else:  # rotated boxes [cx, cy, w, h, angle]: their exact area
            ann["area"] = ann["rbox"][2] * ann["rbox"][3]
            if crowd:
                ann["iscrowd"] = 0
        ann["id"] = number


def table_of(coco: COCO, iou_type: str, *, detections: bool = False, rbox_convention: str = "geoiou") -> Table:
    """The evaluation columns of `coco` for `iou_type`, built once (results from what ``loadRes`` was given).

    Examples
    --------
    >>> coco = COCO()
    >>> coco.dataset = {"images": [{"id": 1}], "categories": [{"id": 1}],
    ...                 "annotations": [{"id": 4, "image_id": 1, "category_id": 1, "bbox": [0, 0, 2, 3]}]}
    >>> table = table_of(coco, "bbox")
    >>> table.ids, table.regions.area, table.area  # no area in the file: the box's w * h
    (array([4]), array([6.]), array([6.]))
    """
    if iou_type not in IOU_TYPES:
        raise invalid_argument("iouType", f"one of {IOU_TYPES}", iou_type)
    if iou_type == "boundary":  # boundary AP measures the segm masks (and their bands, made by the pair source)
        return table_of(coco, "segm", detections=detections)
    key = f"{iou_type}:{rbox_convention}" if iou_type == "obb" else iou_type
    table = coco._tables.get(key)
    if table is None:
        results = coco._results
        if results is not None:
            # Sizes matter to masks only (pycocotools reads them in segm evaluations alone).
            sizes = coco._image_sizes() if iou_type == "segm" else {}
            table = results_table(results.source, results.array, iou_type, sizes, results.branch, rbox_convention)
        else:
            file = coco._unread_file()
            table = file_table(file.path, iou_type) if file is not None and not detections else None
            if table is None:
                table = dataset_table(coco.dataset, iou_type, scores=detections, rbox_convention=rbox_convention)
        coco._tables[key] = table
    return table
