"""lvis-api's ``LVIS`` and ``LVISResults`` on `geoiou.pycocotools.COCO`: the same dicts, geoiou's columns.

`LVIS` is a `COCO` with lvis-api's names (``get_ann_ids``, ``load_anns``, ``img_ann_map``...);
`LVISResults` keeps at most ``max_dets`` results per image (the highest scores, ties in the given
order), gives them ids 1, 2, ... in lvis-api's order and an ``area`` (the box's ``w * h`` when the
first result has a box, else the mask's pixels), as lvis-api does, but without copying the
ground truth's dataset.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Iterable

import numpy as np

from geoiou.errors import InvalidTypeError, MismatchError
from geoiou.evaluation.federated import top_per_image
from geoiou.io.json_documents import load_json_document
from geoiou.pycocotools.coco import COCO, _Results
from geoiou.pycocotools.sources import RecordSource, file_source

__all__ = ["LVIS", "LVISResults"]

logger = logging.getLogger(__name__)


class LVIS(COCO):
    """lvis-api's ``LVIS``: an LVIS dataset file (``images`` with ``neg_category_ids`` and
    ``not_exhaustive_category_ids``, ``categories`` with ``frequency``, ``annotations``).

    Examples
    --------
    >>> dataset = {"images": [{"id": 1, "height": 9, "width": 9, "neg_category_ids": [2],
    ...                        "not_exhaustive_category_ids": []}],
    ...            "categories": [{"id": 1, "name": "a", "frequency": "f"}, {"id": 2, "name": "b", "frequency": "r"}],
    ...            "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 3, 3], "area": 9}]}
    >>> lvis = LVIS(dataset)
    >>> lvis.get_ann_ids(img_ids=[1]), lvis.get_cat_ids(), lvis.load_imgs([1])[0]["neg_category_ids"]
    ([1], [1, 2], [2])
    """

    def __init__(self, annotation_path: str | os.PathLike[str] | dict[str, Any]) -> None:
        super().__init__()
        logger.info("Loading annotations.")
        document = annotation_path
        if not isinstance(annotation_path, dict):
            document, _ = load_json_document(annotation_path, skip_invalid=False)
        if not isinstance(document, dict):
            raise InvalidTypeError(f"Annotation file format {type(document)} not supported (an LVIS dataset is a dict)")
        self._dataset = document

    @property
    def img_ann_map(self) -> Any:
        """lvis-api's ``img_ann_map``: the annotations of each image."""
        return self.imgToAnns

    @property
    def cat_img_map(self) -> Any:
        """lvis-api's ``cat_img_map``: the image id of each annotation of each category."""
        return self.catToImgs

    def get_ann_ids(
        self, img_ids: Iterable[Any] | None = None, cat_ids: Iterable[Any] | None = None, area_rng: Any = None
    ) -> list[Any]:
        """Ids of the annotations of images `img_ids` (all if None), in image order then file order; with
        `cat_ids` or `area_rng`, only those of the categories with ``area_rng[0] < area < area_rng[1]``
        (default ``(0, inf)``: annotations of area 0 are left out, as in lvis-api)."""
        if img_ids is not None:
            index = self.imgToAnns
            anns = [ann for img_id in img_ids for ann in index.get(img_id, [])]
        else:
            anns = self.dataset["annotations"]
        if cat_ids is None and area_rng is None:
            return [ann["id"] for ann in anns]
        categories = set(cat_ids) if cat_ids is not None else set()
        low, high = area_rng if area_rng is not None else (0, float("inf"))
        return [ann["id"] for ann in anns if ann["category_id"] in categories and low < ann["area"] < high]

    def get_cat_ids(self) -> list[Any]:
        """All category ids, in file order."""
        return list(self.cats.keys())

    def get_img_ids(self) -> list[Any]:
        """All image ids, in file order."""
        return list(self.imgs.keys())

    def _load_all(self, table: dict[Any, Any], ids: Iterable[Any] | None) -> list[Any]:
        return list(table.values()) if ids is None else [table[i] for i in ids]

    def load_anns(self, ids: Iterable[Any] | None = None) -> list[dict[str, Any]]:
        """The annotations with ids `ids` (all if None)."""
        return self._load_all(self.anns, ids)

    def load_cats(self, ids: Iterable[Any] | None) -> list[dict[str, Any]]:
        """The categories with ids `ids` (all if None)."""
        return self._load_all(self.cats, ids)

    def load_imgs(self, ids: Iterable[Any] | None) -> list[dict[str, Any]]:
        """The images with ids `ids` (all if None)."""
        return self._load_all(self.imgs, ids)

    def ann_to_rle(self, ann: dict[str, Any]) -> dict[str, Any]:
        """The annotation's segmentation as one compressed RLE (`COCO.annToRLE`)."""
        return self.annToRLE(ann)

    def ann_to_mask(self, ann: dict[str, Any]) -> np.ndarray:
        """The annotation's segmentation as a binary mask (`COCO.annToMask`)."""
        return self.annToMask(ann)


class LVISResults(LVIS):
    """lvis-api's ``LVISResults``: results beside an `LVIS` dataset, at most `max_dets` per image.

    Parameters
    ----------
    lvis_gt : LVIS or path
    results : path or list of dict
        ``image_id``, ``category_id``, ``score`` and a ``bbox`` or an RLE ``segmentation``.
    max_dets : int, default 300
        Results kept per image (the highest scores, ties in the given order); negative keeps all.

    Raises
    ------
    MismatchError
        If a result names an image the dataset does not have.
    """

    def __init__(self, lvis_gt: LVIS | str | os.PathLike[str], results: Any, max_dets: int = 300) -> None:
        truth = lvis_gt if isinstance(lvis_gt, LVIS) else LVIS(lvis_gt)
        COCO.__init__(self)
        logger.info("Loading and preparing results.")
        source = RecordSource(results) if isinstance(results, list) else file_source(results)
        kept = source.take(top_per_image(*source.image_scores(), max_dets)) if max_dets >= 0 and len(source) else source
        self._dataset = {key: value for key, value in truth._dataset.items() if key != "annotations"}
        self._dataset["annotations"] = []  # the kept results' dicts: put in when first read
        self._results = _Results(kept, None, crowd=False)
        unknown = kept.image_ids() - {image["id"] for image in self._dataset.get("images", [])}
        if unknown:
            raise MismatchError(f"Results do not correspond to current LVIS set: image ids {sorted(unknown)[:5]}")
