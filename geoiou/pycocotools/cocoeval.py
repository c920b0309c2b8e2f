"""``pycocotools.cocoeval``: `COCOeval` and `Params` on geoiou's matcher and accumulation.

``evaluate`` reads the two `COCO` objects' columns, codes the rows by category and image as
``Params`` selects them, and runs `geoiou.evaluation.coco.coco_match` (the matcher of
`evaluate_coco`) with the pair source of the ``iouType`` (`evaluate_coco`'s own candidate pairs
and kernels, or OKS for keypoints); ``accumulate`` runs
`coco_accumulate` over the entries pycocotools' own ``accumulate`` would read; ``summarize``
prints pycocotools' table. ``evalImgs`` and ``ious`` are built from the matcher's arrays when read;
an ``evalImgs`` set by hand (torchvision merges it across processes) is what ``accumulate`` reads.

Beyond pycocotools: ``iouType="obb"`` (rotated boxes: a result's or annotation's ``rbox``
``[cx, cy, w, h, angle]`` in degrees, geoiou's convention, or its segmentation's single
quadrilateral) and ``iouType="polygon"`` (segmentations as exact polygons, holes and parts, crowd
RLE masks compared with them exactly), both with COCOeval's protocol; ``run()``; and
``fix_summary_max_dets=True``, which makes the summary's first AP use ``maxDets[2]`` as the
others do (pycocotools reads the limit 100 there whatever ``maxDets`` is, cocoapi issue #558).
"""

from __future__ import annotations

import copy
import datetime
import time
from collections import defaultdict
from typing import Any

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.boundary import DILATION_RATIO
from geoiou.errors import BatchIndexError, NotReadyError
from geoiou.pycocotools.coco import COCO, table_of
from geoiou.pycocotools.entries import DictEntries, Entries, MatchedEntries, accumulate_entries
from geoiou.pycocotools.evaluated import Evaluated, GroupRows, eval_images, match_groups, overlaps_by_group
from geoiou.pycocotools.measures import pair_source
from geoiou.pycocotools.tables import IOU_TYPES, Table

__all__ = ["COCOeval", "Params"]

#: COCO's 17 person keypoints' OKS sigmas.
KEYPOINT_SIGMAS = (
    np.array([0.26, 0.25, 0.25, 0.35, 0.35, 0.79, 0.79, 0.72, 0.72, 0.62, 0.62, 1.07, 1.07, 0.87, 0.87, 0.89, 0.89])
    / 10.0
)
_LINE = " {:<18} {} @[ IoU={:<9} | area={:>6s} | maxDets={:>3d} ] = {:0.3f}"


class Params:
    """COCOeval's parameters: the images, categories, thresholds, ranges and limits of an evaluation.

    Attributes are pycocotools': ``imgIds``, ``catIds``, ``iouThrs`` (0.5:0.05:0.95), ``recThrs``
    (0:0.01:1), ``maxDets`` ([1, 10, 100]; [20] for keypoints), ``areaRng`` and ``areaRngLbl``,
    ``useCats`` (1), ``iouType`` and, for keypoints, ``kpt_oks_sigmas``. ``iouType`` may also be
    ``"obb"`` or ``"polygon"`` (detection parameters); for ``"obb"``, ``rboxConvention`` names the
    angle convention of the ``rbox`` fields: ``"geoiou"`` (degrees, clockwise on screen in y-down
    images, as OpenCV and mmcv), ``"radians"``, ``"detectron2"``, ``"mmrotate-le90"`` (``-oc``, ``-le135``).

    Examples
    --------
    >>> p = Params(iouType="keypoints")
    >>> p.maxDets, p.areaRngLbl, len(p.kpt_oks_sigmas)
    ([20], ['all', 'medium', 'large'], 17)
    """

    def setDetParams(self) -> None:  # noqa: N802 - pycocotools' name
        """Detection defaults (bbox, segm, obb, polygon)."""
        self.imgIds: list[Any] = []
        self.catIds: list[Any] = []
        self.iouThrs = np.linspace(0.5, 0.95, int(np.round((0.95 - 0.5) / 0.05)) + 1, endpoint=True)
        self.recThrs = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)
        self.maxDets = [1, 10, 100]
        self.areaRng: list[list[float]] = [[0**2, 1e5**2], [0**2, 32**2], [32**2, 96**2], [96**2, 1e5**2]]
        self.areaRngLbl = ["all", "small", "medium", "large"]
        self.useCats = 1

    def setKpParams(self) -> None:  # noqa: N802 - pycocotools' name
        """Keypoint defaults."""
        self.setDetParams()
        self.maxDets = [20]
        self.areaRng = [[0**2, 1e5**2], [32**2, 96**2], [96**2, 1e5**2]]
        self.areaRngLbl = ["all", "medium", "large"]
        self.kpt_oks_sigmas = KEYPOINT_SIGMAS.copy()

    def __init__(self, iouType: str = "segm") -> None:  # noqa: N803 - pycocotools' name
        if iouType == "keypoints":
            self.setKpParams()
        elif iouType in IOU_TYPES:
            self.setDetParams()
        else:
            raise invalid_argument("iouType", f"one of {IOU_TYPES}", iouType)
        self.iouType = iouType
        self.useSegm: Any = None  # deprecated in pycocotools: 1 means segm, 0 bbox
        if iouType == "obb":
            # How an rbox [cx, cy, w, h, angle] is read: "geoiou" (degrees, clockwise on screen in y-down images,
            # as OpenCV and mmcv), "radians", "detectron2" (counter-clockwise), "mmrotate-le90" (-oc, -le135).
            self.rboxConvention = "geoiou"


class COCOeval:
    """pycocotools' ``COCOeval``: ``evaluate``, ``accumulate``, ``summarize`` and the arrays pipelines read.

    Parameters
    ----------
    cocoGt, cocoDt : COCO, optional
        Ground truth and results (`COCO.loadRes`); `cocoDt` may also be set later
        (``E.cocoDt = ...``), as torchvision's evaluator does.
    iouType : {"segm", "bbox", "keypoints", "obb", "polygon", "boundary"}, default "segm"
        ``"boundary"`` is boundary AP as boundary-iou-api's ``COCOeval`` computes it: each pair's
        overlap is ``min(mask IoU, boundary IoU)`` (the masks' IoF against crowd regions).
    dilation_ratio : float, default 0.02
        The boundary band's width as a fraction of the image diagonal (``iouType="boundary"``;
        boundary-iou-api's argument of the same name and place).
    fix_summary_max_dets : bool, default False
        Keyword only. Make the summary's first number (AP at IoU 0.50:0.95) use ``maxDets[2]``
        (keypoints: ``maxDets[-1]`` instead of 20 throughout) rather than pycocotools' fixed 100
        (cocoapi issue #558). Off by default, so that the numbers are pycocotools'.

    Attributes
    ----------
    params : Params
    evalImgs : list of dict or None
        Per category, area range and image (image fastest), as pycocotools lists them.
    eval : dict
        ``params``, ``counts`` ``[T, R, K, A, M]``, ``date``, ``precision`` ``[T, R, K, A, M]``,
        ``recall`` ``[T, K, A, M]``, ``scores`` ``[T, R, K, A, M]``.
    stats : ndarray
        The 12 summary numbers (10 for keypoints) after ``summarize``.
    ious : dict
        ``{(imgId, catId): overlaps (D, G)}``, ``[]`` where a side is empty.

    Examples
    --------
    >>> from geoiou.pycocotools import COCO
    >>> truth = COCO()
    >>> truth.dataset = {"images": [{"id": 1, "height": 100, "width": 100}], "categories": [{"id": 1, "name": "a"}],
    ...                  "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [10, 10, 40, 40],
    ...                                   "area": 1600, "iscrowd": 0}]}
    >>> truth.createIndex()
    creating index...
    index created!
    >>> found = truth.loadRes([{"image_id": 1, "category_id": 1, "bbox": [12, 10, 40, 40], "score": 0.9}])
    ... # doctest: +ELLIPSIS
    Loading and preparing results...
    DONE (t=...s)
    creating index...
    index created!
    >>> E = COCOeval(truth, found, "bbox")
    >>> E.evaluate()  # doctest: +ELLIPSIS
    Running per image evaluation...
    Evaluate annotation type *bbox*
    DONE (t=...s).
    >>> E.accumulate()  # doctest: +ELLIPSIS
    Accumulating evaluation results...
    DONE (t=...s).
    >>> E.summarize()  # IoU 1520 / 1680 = 0.905: found at 9 thresholds of 10
     Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.900
     Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ] = 1.000
     Average Precision  (AP) @[ IoU=0.75      | area=   all | maxDets=100 ] = 1.000
     Average Precision  (AP) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = -1.000
     Average Precision  (AP) @[ IoU=0.50:0.95 | area=medium | maxDets=100 ] = 0.900
     Average Precision  (AP) @[ IoU=0.50:0.95 | area= large | maxDets=100 ] = -1.000
     Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=  1 ] = 0.900
     Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets= 10 ] = 0.900
     Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.900
     Average Recall     (AR) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = -1.000
     Average Recall     (AR) @[ IoU=0.50:0.95 | area=medium | maxDets=100 ] = 0.900
     Average Recall     (AR) @[ IoU=0.50:0.95 | area= large | maxDets=100 ] = -1.000
    >>> E.evalImgs[0]["dtMatches"][:, 0], E.ious[1, 1]
    (array([1., 1., 1., 1., 1., 1., 1., 1., 1., 0.]), array([[0.9047619]]))
    """

    def __init__(
        self,
        cocoGt: COCO | None = None,  # noqa: N803 - pycocotools' names
        cocoDt: COCO | None = None,  # noqa: N803
        iouType: str = "segm",  # noqa: N803
        dilation_ratio: float = DILATION_RATIO,
        *,
        fix_summary_max_dets: bool = False,
    ) -> None:
        if not iouType:
            print("iouType not specified. use default iouType segm")
            iouType = "segm"
        self.cocoGt = cocoGt
        self.cocoDt = cocoDt
        self.params = Params(iouType=iouType)
        self.dilation_ratio = dilation_ratio
        self.fix_summary_max_dets = fix_summary_max_dets
        self.eval: dict[str, Any] = {}
        self._paramsEval: Any = {}
        self.stats: Any = []
        self._evaluated: Evaluated | None = None
        self._eval_imgs: Any = defaultdict(list)
        self._eval_imgs_given = False
        self._ious: dict[Any, Any] | None = None
        self._ious_args: tuple[Any, ...] = ()
        if cocoGt is not None:
            self.params.imgIds = sorted(cocoGt.getImgIds())
            self.params.catIds = sorted(cocoGt.getCatIds())

    # ----------------------------------------------------------------- evaluate
    def evaluate(self) -> None:
        """Match the results of every image and category (``params`` decides which), as pycocotools does."""
        tic = time.time()
        print("Running per image evaluation...")
        p = self.params
        if p.useSegm is not None:
            p.iouType = "segm" if p.useSegm == 1 else "bbox"
            print(f"useSegm (deprecated) is not None. Running {p.iouType} evaluation")
        print(f"Evaluate annotation type *{p.iouType}*")
        p.imgIds = list(np.unique(p.imgIds))
        if p.useCats:
            p.catIds = list(np.unique(p.catIds))
        p.maxDets = sorted(p.maxDets)
        if self.cocoGt is None or self.cocoDt is None:
            raise NotReadyError("COCOeval needs cocoGt and cocoDt (COCO objects) before evaluate()")
        convention = getattr(p, "rboxConvention", "geoiou")
        truth_table = table_of(self.cocoGt, p.iouType, rbox_convention=convention)
        result_table = table_of(self.cocoDt, p.iouType, detections=True, rbox_convention=convention)
        category_ids = p.catIds if p.useCats else [-1]
        truth = _group_rows(truth_table, p, keypoints=p.iouType == "keypoints")
        predicted = _group_rows(result_table, p)
        pairs = pair_source(
            p.iouType,
            result_table,
            predicted.rows,
            truth_table,
            truth.rows,
            sigmas=getattr(p, "kpt_oks_sigmas", None),
            use_cats=bool(p.useCats),
            dilation_ratio=self.dilation_ratio,
        )
        self._evaluated = match_groups(
            truth,
            predicted,
            pairs,
            n_categories=len(category_ids),
            n_images=len(p.imgIds),
            iou_thresholds=p.iouThrs,
            area_ranges=p.areaRng,
            max_detections=int(p.maxDets[-1]),
        )
        self._eval_imgs, self._eval_imgs_given, self._ious = None, False, None
        self._ious_args = (list(p.imgIds), list(category_ids), p.iouType, bool(p.useCats))
        self._eval_args = (list(p.imgIds), list(category_ids), list(p.areaRng), int(p.maxDets[-1]))
        self.eval = {}
        self._paramsEval = copy.deepcopy(self.params)
        print(f"DONE (t={time.time() - tic:0.2f}s).")

    @property
    def evalImgs(self) -> Any:  # noqa: N802 - pycocotools' name
        """pycocotools' per-image results (built from the matching when first read)."""
        if self._eval_imgs is None and self._evaluated is not None:
            self._eval_imgs = eval_images(self._evaluated, *self._eval_args)
        return self._eval_imgs

    @evalImgs.setter
    def evalImgs(self, value: Any) -> None:  # noqa: N802 - pycocotools' name
        self._eval_imgs, self._eval_imgs_given = value, True

    @property
    def ious(self) -> dict[Any, Any]:
        """``{(imgId, catId): overlaps (D, G)}`` of the last evaluate (built when first read)."""
        if self._ious is None:
            if self._evaluated is None:
                return {}
            image_ids, category_ids, iou_type, use_cats = self._ious_args
            self._ious = overlaps_by_group(
                self._evaluated,
                image_ids,
                category_ids,
                fortran=iou_type != "keypoints",
                none=iou_type == "keypoints" and not use_cats,
            )
        return self._ious

    @ious.setter
    def ious(self, value: dict[Any, Any]) -> None:
        self._ious = value

    # ----------------------------------------------------------------- accumulate
    def accumulate(self, p: Params | None = None) -> None:
        """pycocotools' ``accumulate``: precision, recall and scores over the images, into ``eval``."""
        print("Accumulating evaluation results...")
        tic = time.time()
        if self._evaluated is None and not self._eval_imgs_given:
            raise NotReadyError("Please run evaluate() first")
        if p is None:
            p = self.params
        p.catIds = p.catIds if p.useCats == 1 else [-1]
        pe = self._paramsEval
        counts = [len(p.iouThrs), len(p.recThrs), len(p.catIds) if p.useCats else 1, len(p.areaRng), len(p.maxDets)]
        precision = -np.ones(tuple(counts))
        scores = -np.ones(tuple(counts))
        recall = -np.ones((counts[0], counts[2], counts[3], counts[4]))
        reads, k_list, a_list, m_list = _reads(p, pe)
        if m_list and reads.size:
            entries = self._entries(len(pe.iouThrs))
            if reads.max() >= entries.count:
                raise BatchIndexError(
                    "accumulate() reads evalImgs beyond its end: params select entries the evaluated ones do not have "
                    f"({int(reads.max())} of {entries.count})"
                )
            block = accumulate_entries(entries, reads.reshape(-1, reads.shape[-1]), p.recThrs, m_list)
            _place(block, (precision, recall, scores), len(k_list), len(a_list), len(m_list))
        self.eval = {
            "params": p,
            "counts": counts,
            "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S"),
            "precision": precision,
            "recall": recall,
            "scores": scores,
        }
        print(f"DONE (t={time.time() - tic:0.2f}s).")

    def _entries(self, n_thresholds: int) -> Entries:
        if self._eval_imgs_given or self._evaluated is None:
            return DictEntries(list(self._eval_imgs), ("dtScores", "dtMatches", "dtIgnore", "gtIgnore"), n_thresholds)
        return MatchedEntries(self._evaluated)

    # ----------------------------------------------------------------- summarize
    def summarize(self) -> None:
        """Print pycocotools' summary table and set ``stats``."""
        if not self.eval:
            raise NotReadyError("Please run accumulate() first")
        p = self.params
        fixed = self.fix_summary_max_dets
        if p.iouType == "keypoints":
            limit = p.maxDets[-1] if fixed else 20
            rows = [(1, None, "all"), (1, 0.5, "all"), (1, 0.75, "all"), (1, None, "medium"), (1, None, "large")]
            rows += [(0, None, "all"), (0, 0.5, "all"), (0, 0.75, "all"), (0, None, "medium"), (0, None, "large")]
            plan = [(ap, iou, area, limit) for ap, iou, area in rows]
        else:
            plan = [(1, None, "all", p.maxDets[2] if fixed else 100)]
            plan += [(1, 0.5, "all", p.maxDets[2]), (1, 0.75, "all", p.maxDets[2])]
            plan += [(1, None, area, p.maxDets[2]) for area in ("small", "medium", "large")]
            plan += [(0, None, "all", p.maxDets[m]) for m in range(3)]
            plan += [(0, None, area, p.maxDets[2]) for area in ("small", "medium", "large")]
        self.stats = np.array([self._summarize(*row) for row in plan], dtype=np.float64)

    def _summarize(self, ap: int, iou_threshold: float | None, area: str, max_dets: int) -> float:
        p = self.params
        iou = f"{p.iouThrs[0]:0.2f}:{p.iouThrs[-1]:0.2f}" if iou_threshold is None else f"{iou_threshold:0.2f}"
        area_index = [i for i, label in enumerate(p.areaRngLbl) if label == area]
        limit_index = [i for i, limit in enumerate(p.maxDets) if limit == max_dets]
        values = self.eval["precision"] if ap == 1 else self.eval["recall"]
        if iou_threshold is not None:
            values = values[np.where(iou_threshold == p.iouThrs)[0]]
        values = values[:, :, :, area_index, limit_index] if ap == 1 else values[:, :, area_index, limit_index]
        valid = values[values > -1]
        mean = -1 if len(valid) == 0 else np.mean(valid)
        title, kind = ("Average Precision", "(AP)") if ap == 1 else ("Average Recall", "(AR)")
        print(_LINE.format(title, kind, iou, area, max_dets, mean))
        return float(mean)

    def run(self) -> None:
        """``evaluate``, ``accumulate`` and ``summarize`` in one call (as faster-coco-eval and lvis-api offer)."""
        self.evaluate()
        self.accumulate()
        self.summarize()

    def __str__(self) -> str:
        """The summary table as text (pycocotools' ``__str__`` prints it and returns None, which ``str`` refuses)."""
        import contextlib
        import io

        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            self.summarize()
        return buffer.getvalue()


# --------------------------------------------------------------------------- rows of an evaluation
def _group_rows(table: Table, p: Params, *, keypoints: bool = False) -> GroupRows:
    """The rows ``evaluate`` reads, coded by category and image as pycocotools groups them.

    With ``useCats``, the rows of the listed images and categories in file order; without, each image's
    rows of ``catIds`` category by category in the order listed (pycocotools concatenates them so), all in
    one category.
    """
    image_ids = np.asarray(p.imgIds)
    image = np.minimum(np.searchsorted(image_ids, table.image_id), max(len(image_ids) - 1, 0))
    in_images = (image_ids[image] == table.image_id) if len(image_ids) else np.zeros(len(table), bool)
    if p.useCats:
        category_ids = np.asarray(p.catIds)
        category = np.minimum(np.searchsorted(category_ids, table.category_id), max(len(category_ids) - 1, 0))
        known = category_ids[category] == table.category_id if len(category_ids) else np.zeros(len(table), bool)
        rows = np.flatnonzero(in_images & known)
        codes = category[rows]
    else:
        rows = np.concatenate(
            [np.zeros(0, np.int64)] + [np.flatnonzero(in_images & (table.category_id == c)) for c in p.catIds]
        )
        codes = np.zeros(len(rows), np.int64)
    ignore = table.num_keypoints[rows] == 0 if keypoints and table.num_keypoints is not None else None
    return GroupRows(
        rows=rows,
        category=codes.astype(np.int64),
        image=image[rows].astype(np.int64),
        ids=table.ids[rows],
        area=table.area[rows],
        score=None if table.score is None else table.score[rows],
        crowd=table.iscrowd[rows],
        ignore=ignore,
    )


def _reads(p: Params, pe: Any) -> tuple[np.ndarray, list[int], list[int], list[int]]:
    """Which evalImgs entries each (category, area range) output of ``accumulate(p)`` reads, by pycocotools'
    index arithmetic over the evaluated parameters `pe` (also when `p` differs from them)."""
    evaluated_categories = pe.catIds if pe.useCats else [-1]
    set_k, set_m, set_i = set(evaluated_categories), set(pe.maxDets), set(pe.imgIds)
    set_a = {tuple(bounds) for bounds in pe.areaRng}
    k_list = [n for n, k in enumerate(p.catIds) if k in set_k]
    m_list = [m for m in p.maxDets if m in set_m]
    a_list = [n for n, bounds in enumerate(p.areaRng) if tuple(bounds) in set_a]
    i_list = [n for n, i in enumerate(p.imgIds) if i in set_i]
    n_images, n_areas = len(pe.imgIds), len(pe.areaRng)
    k, a, i = np.ix_(np.array(k_list, np.int64), np.array(a_list, np.int64), np.array(i_list, np.int64))
    reads = k * n_areas * n_images + a * n_images + i
    return reads.reshape(len(k_list), len(a_list), len(i_list)), k_list, a_list, m_list


def _place(
    block: tuple[np.ndarray, np.ndarray, np.ndarray],
    outputs: tuple[np.ndarray, np.ndarray, np.ndarray],
    n_k: int,
    n_a: int,
    n_m: int,
) -> None:
    """Write the accumulated outputs (one per (k, a), k major) into COCOeval's arrays at k < n_k, a < n_a, m < n_m.

    Threshold rows beyond the arrays' are an error where they hold a value, as pycocotools' assignment is.
    """
    precision, recall, scores = block
    out_precision, out_recall, out_scores = outputs
    rows = min(precision.shape[0], out_precision.shape[0])
    if precision.shape[0] > rows and (recall[rows:] > -1).any():
        raise BatchIndexError(
            f"accumulate() has {out_precision.shape[0]} IoU thresholds, the evaluation {precision.shape[0]}"
        )
    shape_pr = (precision.shape[0], precision.shape[1], n_k, n_a, n_m)
    out_precision[:rows, :, :n_k, :n_a, :n_m] = precision.reshape(shape_pr)[:rows]
    out_scores[:rows, :, :n_k, :n_a, :n_m] = scores.reshape(shape_pr)[:rows]
    out_recall[:rows, :n_k, :n_a, :n_m] = recall.reshape(recall.shape[0], n_k, n_a, n_m)[:rows]
