"""lvis-api's ``LVISEval`` on geoiou's matcher: federated AP with negative and not-exhaustive categories.

The protocol is COCOeval's with LVIS's rules, applied to the rows around `coco_match`:

- a result counts in an image only for a category the image's ground truth holds or lists among
  its ``neg_category_ids`` (others are dropped: nothing is known of them there);
- an unmatched result of a category in the image's ``not_exhaustive_category_ids`` is ignored;
- no crowd regions; a ground truth's ``ignore`` field is honoured; no limit per image and
  category (`LVISResults` keeps 300 per image);
- AP by frequency (``APr``, ``APc``, ``APf``) over the categories of each ``frequency``.

``results``, ``eval`` (``precision`` ``[T, R, K, A]``, ``recall`` ``[T, K, A]``), ``eval_imgs``
and ``ious`` are lvis-api's, bit for bit. Differences: ``eval["dt_pointers"]`` is not kept;
``use_cats=0`` gives -1 throughout, as lvis-api's (whose per-image lists are then empty).
"""

from __future__ import annotations

import datetime
import logging
import operator
from collections import OrderedDict
from typing import Any

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.errors import BatchIndexError, InvalidTypeError, NotReadyError
from geoiou.evaluation.federated import FederatedLabels
from geoiou.lvis.dataset import LVIS, LVISResults
from geoiou.pycocotools.coco import table_of
from geoiou.pycocotools.entries import MatchedEntries, accumulate_entries
from geoiou.pycocotools.evaluated import LVIS_KEYS, Evaluated, GroupRows, eval_images, match_groups, overlaps_by_group
from geoiou.pycocotools.measures import pair_source
from geoiou.pycocotools.tables import Table

__all__ = ["LVISEval", "Params"]

logger = logging.getLogger(__name__)
_LINE = " {:<18} {} @[ IoU={:<9} | area={:>6s} | maxDets={:>3d} catIds={:>3s}] = {:0.3f}"


class Params:
    """lvis-api's parameters: ``img_ids``, ``cat_ids``, ``iou_thrs``, ``rec_thrs``, ``max_dets`` (300),
    ``area_rng``, ``area_rng_lbl``, ``use_cats``, ``img_count_lbl`` and ``iou_type``.

    Examples
    --------
    >>> Params("bbox").max_dets, Params("bbox").img_count_lbl
    (300, ['r', 'c', 'f'])
    """

    def __init__(self, iou_type: str) -> None:
        self.img_ids: list[Any] = []
        self.cat_ids: list[Any] = []
        self.iou_thrs = np.linspace(0.5, 0.95, int(np.round((0.95 - 0.5) / 0.05)) + 1, endpoint=True)
        self.rec_thrs = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)
        self.max_dets = 300
        self.area_rng = [[0**2, 1e5**2], [0**2, 32**2], [32**2, 96**2], [96**2, 1e5**2]]
        self.area_rng_lbl = ["all", "small", "medium", "large"]
        self.use_cats = 1
        self.img_count_lbl = ["r", "c", "f"]
        self.iou_type = iou_type


class LVISEval:
    """lvis-api's ``LVISEval``: ``evaluate``, ``accumulate``, ``summarize`` (or ``run``) and ``results``.

    Parameters
    ----------
    lvis_gt : LVIS or path
    lvis_dt : LVISResults, path or list of dict
    iou_type : {"segm", "bbox"}, default "segm"

    Examples
    --------
    >>> dataset = {"images": [{"id": 1, "height": 50, "width": 50, "neg_category_ids": [2],
    ...                        "not_exhaustive_category_ids": []}],
    ...            "categories": [{"id": 1, "name": "a", "frequency": "f"}, {"id": 2, "name": "b", "frequency": "r"}],
    ...            "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 30, 30], "area": 900,
    ...                             "segmentation": [[0, 0, 30, 0, 30, 30, 0, 30]]}]}
    >>> found = [{"image_id": 1, "category_id": 1, "bbox": [0, 0, 30, 27], "score": 0.9},
    ...          {"image_id": 1, "category_id": 2, "bbox": [5, 5, 9, 9], "score": 0.8}]
    >>> evaluation = LVISEval(LVIS(dataset), found, "bbox")
    >>> evaluation.run()
    >>> [round(float(evaluation.results[key]), 4) for key in ("AP", "APr", "APf", "AR@300")]  # IoU 0.9: 9 of 10
    [0.9, -1.0, 0.9, 0.9]
    """

    def __init__(self, lvis_gt: Any, lvis_dt: Any, iou_type: str = "segm") -> None:
        if iou_type not in ("bbox", "segm"):
            raise invalid_argument("iou_type", "'bbox' or 'segm'", iou_type)
        if isinstance(lvis_gt, LVIS) and not isinstance(lvis_gt, LVISResults):
            self.lvis_gt = lvis_gt
        elif isinstance(lvis_gt, str):
            self.lvis_gt = LVIS(lvis_gt)
        else:
            raise InvalidTypeError(f"Unsupported type {type(lvis_gt)} of lvis_gt (an LVIS or a path)")
        if isinstance(lvis_dt, LVISResults):
            self.lvis_dt = lvis_dt
        elif isinstance(lvis_dt, (str, list)):
            self.lvis_dt = LVISResults(self.lvis_gt, lvis_dt)
        else:
            raise InvalidTypeError(f"Unsupported type {type(lvis_dt)} of lvis_dt (LVISResults, a path or a list)")
        self.params = Params(iou_type=iou_type)
        self.params.img_ids = sorted(self.lvis_gt.get_img_ids())
        self.params.cat_ids = sorted(self.lvis_gt.get_cat_ids())
        self.eval: dict[str, Any] = {}
        self.results: OrderedDict[str, Any] = OrderedDict()
        self._evaluated: Evaluated | None = None
        self._eval_imgs: list[Any] | None = None
        self._ious: dict[Any, Any] | None = None
        self._shown: tuple[Any, ...] = ()
        self.freq_groups: list[list[int]] = []

    # ----------------------------------------------------------------- evaluate
    def evaluate(self) -> None:
        """Match every image and category under LVIS's federated rules."""
        logger.info("Running per image evaluation.")
        p = self.params
        p.img_ids = list(np.unique(p.img_ids))
        category_ids = p.cat_ids if p.use_cats else [-1]
        truth_table = table_of(self.lvis_gt, p.iou_type)
        result_table = table_of(self.lvis_dt, p.iou_type, detections=True)
        truth, predicted, not_exhaustive = self._rows(truth_table, result_table)
        self._evaluated = match_groups(
            truth,
            predicted,
            pair_source(p.iou_type, result_table, predicted.rows, truth_table, truth.rows),
            n_categories=len(category_ids),
            n_images=len(p.img_ids),
            iou_thresholds=p.iou_thrs,
            area_ranges=p.area_rng,
            max_detections=max(len(predicted.rows), 1),  # no limit per image and category
            unmatched_ignored=not_exhaustive,
        )
        self._shown = (list(p.img_ids), list(category_ids), list(p.area_rng))
        self._eval_imgs, self._ious = None, None
        self.freq_groups = self._prepare_freq_group()

    def _rows(self, truth: Table, predicted: Table) -> tuple[GroupRows, GroupRows, np.ndarray]:
        """The ground truths and the results that count (lvis-api's federated filter), and per result whether its
        category is not exhaustively annotated in its image."""
        p = self.params
        images = np.asarray(p.img_ids)
        categories = np.asarray(p.cat_ids)  # lvis-api keeps cat_ids in the order given
        filtered = len(categories) > 0  # lvis-api's get_ann_ids filters categories and area for a non-empty list
        gt = _selected(truth, images, categories, filtered) if p.use_cats else np.zeros(0, np.int64)
        dt = _selected(predicted, images, categories, filtered) if p.use_cats else np.zeros(0, np.int64)
        labels = FederatedLabels.from_images(self.lvis_gt.load_imgs(p.img_ids))
        counted, not_exhaustive = labels.rules(
            truth.image_id[gt], truth.category_id[gt], predicted.image_id[dt], predicted.category_id[dt]
        )
        dt = dt[counted]
        ignore = _ignore_flags(self.lvis_gt)[gt]
        return (
            _group(truth, gt, images, categories, ignore=ignore),
            _group(predicted, dt, images, categories),
            not_exhaustive,
        )

    def _prepare_freq_group(self) -> list[list[int]]:
        groups: list[list[int]] = [[] for _ in self.params.img_count_lbl]
        for index, category in enumerate(self.lvis_gt.load_cats(self.params.cat_ids)):
            groups[self.params.img_count_lbl.index(category["frequency"])].append(index)
        return groups

    @property
    def eval_imgs(self) -> list[Any]:
        """lvis-api's per-image results, built from the matching when first read."""
        if self._eval_imgs is None:
            if self._evaluated is None:
                return []
            image_ids, category_ids, area_ranges = self._shown
            self._eval_imgs = eval_images(self._evaluated, image_ids, category_ids, area_ranges, None, LVIS_KEYS)
        return self._eval_imgs

    @property
    def ious(self) -> dict[Any, Any]:
        """``{(img_id, cat_id): overlaps (D, G)}``, ``[]`` where a side is empty."""
        if self._ious is None:
            if self._evaluated is None:
                return {}
            image_ids, category_ids, _ = self._shown
            self._ious = overlaps_by_group(self._evaluated, image_ids, category_ids, fortran=True)
        return self._ious

    # ----------------------------------------------------------------- accumulate
    def accumulate(self) -> None:
        """lvis-api's accumulation into ``eval``: ``precision`` ``[T, R, K, A]`` and ``recall`` ``[T, K, A]``."""
        logger.info("Accumulating evaluation results.")
        if self._evaluated is None:
            raise NotReadyError("Please run evaluate first.")
        p = self.params
        n_categories = len(p.cat_ids) if p.use_cats else 1
        counts = [len(p.iou_thrs), len(p.rec_thrs), n_categories, len(p.area_rng)]
        entries = MatchedEntries(self._evaluated)
        n_images, n_areas = len(p.img_ids), len(p.area_rng)
        reads = np.arange(n_categories * n_areas * n_images).reshape(n_categories * n_areas, n_images)
        if reads.size and reads.max() >= entries.count:
            raise BatchIndexError("accumulate() reads eval_imgs beyond its end: params changed after evaluate()")
        precision, recall, _ = accumulate_entries(entries, reads, p.rec_thrs, (max(len(entries.score), 1),))
        self.eval = {
            "params": p,
            "counts": counts,
            "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S"),
            "precision": precision[:, :, :, 0].reshape(counts),
            "recall": recall[:, :, 0].reshape(counts[0], counts[2], counts[3]),
        }

    # ----------------------------------------------------------------- summarize
    def _summarize(
        self, kind: str, iou_thr: float | None = None, area_rng: str = "all", freq: int | None = None
    ) -> Any:
        p = self.params
        area = [i for i, label in enumerate(p.area_rng_lbl) if label == area_rng]
        values = self.eval["precision"] if kind == "ap" else self.eval["recall"]
        if iou_thr is not None:
            values = values[np.where(iou_thr == p.iou_thrs)[0]]
        if kind == "ap":
            values = values[:, :, self.freq_groups[freq], area] if freq is not None else values[:, :, :, area]
        else:
            values = values[:, :, area]
        valid = values[values > -1]
        return -1 if len(valid) == 0 else np.mean(valid)

    def summarize(self) -> None:
        """Fill ``results``: AP, AP50, AP75, APs/m/l, APr/c/f, AR@max_dets and by size."""
        if not self.eval:
            raise NotReadyError("Please run accumulate() first.")
        max_dets = self.params.max_dets
        self.results["AP"] = self._summarize("ap")
        self.results["AP50"] = self._summarize("ap", iou_thr=0.50)
        self.results["AP75"] = self._summarize("ap", iou_thr=0.75)
        for label in ("small", "medium", "large"):
            self.results[f"AP{label[0]}"] = self._summarize("ap", area_rng=label)
        for index, label in enumerate(self.params.img_count_lbl):
            self.results[f"AP{label}"] = self._summarize("ap", freq=index)
        self.results[f"AR@{max_dets}"] = self._summarize("ar")
        for label in ("small", "medium", "large"):
            self.results[f"AR{label[0]}@{max_dets}"] = self._summarize("ar", area_rng=label)

    def run(self) -> None:
        """``evaluate``, ``accumulate`` and ``summarize``."""
        self.evaluate()
        self.accumulate()
        self.summarize()

    def print_results(self) -> None:
        """Print ``results`` in lvis-api's table."""
        p = self.params
        for key, value in self.results.items():
            title, kind = ("Average Precision", "(AP)") if "AP" in key else ("Average Recall", "(AR)")
            digit = len(key) > 2 and key[2].isdigit()
            iou = f"{float(key[2:]) / 100:0.2f}" if digit else f"{p.iou_thrs[0]:0.2f}:{p.iou_thrs[-1]:0.2f}"
            group = key[2] if len(key) > 2 and key[2] in ("r", "c", "f") else "all"
            area = key[2] if len(key) > 2 and key[2] in ("s", "m", "l") else "all"
            print(_LINE.format(title, kind, iou, area, p.max_dets, group, value))

    def get_results(self) -> OrderedDict[str, Any]:
        """``results`` (empty before ``run`` or ``summarize``)."""
        if not self.results:
            logger.warning("results is empty. Call run().")
        return self.results


# --------------------------------------------------------------------------- rows
def _selected(table: Table, images: np.ndarray, categories: np.ndarray, filtered: bool) -> np.ndarray:
    """Rows of the images, in image order then file order; with `filtered`, of the categories, with area > 0."""
    image = np.searchsorted(images, table.image_id).clip(0, max(len(images) - 1, 0))
    keep = (images[image] == table.image_id) if len(images) else np.zeros(len(table), bool)
    if filtered:
        keep &= np.isin(table.category_id, categories) & (table.area > 0) & (table.area < np.inf)
    rows = np.flatnonzero(keep)
    return rows[np.argsort(image[rows], kind="stable")]


def _group(
    table: Table, rows: np.ndarray, images: np.ndarray, categories: np.ndarray, *, ignore: np.ndarray | None = None
) -> GroupRows:
    """The rows coded by their category's place in `categories` (as listed) and their image's in `images`."""
    order = np.argsort(categories, kind="stable")
    place = np.searchsorted(categories[order], table.category_id[rows]).clip(0, max(len(categories) - 1, 0))
    return GroupRows(
        rows=rows,
        category=order[place].astype(np.int64) if len(categories) else np.zeros(len(rows), np.int64),
        image=np.searchsorted(images, table.image_id[rows]).astype(np.int64),
        ids=table.ids[rows],
        area=table.area[rows],
        score=None if table.score is None else table.score[rows],
        ignore=ignore,
    )


def _ignore_flags(dataset: LVIS) -> np.ndarray:
    """lvis-api honours a ground truth's ``ignore`` field (0 when absent); one flag per annotation, in file order."""
    annotations = dataset.dataset["annotations"]
    values = map(operator.methodcaller("get", "ignore", 0), annotations)
    return np.fromiter(map(bool, values), dtype=bool, count=len(annotations))
