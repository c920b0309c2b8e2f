"""The KITTI object detection protocol: 2-D image-box, bird's-eye-view and 3-D AP at R40 and R11.

The rules are those of KITTI's devkit (``evaluate_object_3d_offline.cpp``) and of its Python port
that OpenPCDet and mmdet3d carry (``kitti_object_eval_python``), per class and difficulty:

- **Difficulties** (easy, moderate, hard) keep the ground truths whose image box is taller than
  40, 25, 25 pixels, whose occlusion level is at most 0, 1, 2 and whose truncation at most 0.15,
  0.3, 0.5. A ground truth of the class outside them, or of its neighbouring class (``Van`` for
  ``Car``, ``Person_sitting`` for ``Pedestrian``), is *ignored*: it may take a prediction, which
  then counts neither way. Predictions shorter than the difficulty's height are ignored alike.
- **Matching**, per image, ground truths in file order: the recall pass gives each the unassigned
  prediction of highest score whose overlap is above the class threshold (0.7 for cars, 0.5 for
  pedestrians and cyclists), and the scores of the true positives give 41 thresholds, one per
  recall point; for each threshold the precision pass leaves out the predictions below it and gives
  each ground truth the prediction of greatest overlap. Unassigned predictions are false positives,
  except (image-box AP) those inside a ``DontCare`` region by more than the threshold of their own
  area: DontCare labels carry no 3-D box (KITTI writes -1000), so BEV and 3-D AP ignore them, as
  both devkits do.
- **AP**: precision at each threshold, made monotone from the right; R40 is the mean over the 40
  recall points 1/40 ... 1 (KITTI's official metric since 2019), R11 over the 11 points 0, 0.1 ...
  1 (the original), both in percent.

Overlaps are geoiou's exact ones: the 2-D IoU of the image boxes, the IoU of the footprints (BEV)
and of the 3-D boxes, read in the z-up frame (`RotatedBox3D.from_kitti_camera`, an exact rotation
of the axes). The devkits compute the BEV overlap in float32 (the Python port on the GPU): a pair
within rounding of a threshold may be decided the other way there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from geoiou._validation import invalid_argument as _fail
from geoiou.evaluation.mergeable import MergeableEvaluation, disjoint_keys
from geoiou.metrics import iof_of_pairs, iou_of_pairs
from geoiou.regions import Region
from geoiou.tables.kitti import KittiObjects

__all__ = [
    "DIFFICULTIES",
    "KITTI_CLASSES",
    "KittiEvaluation",
    "KittiResult",
    "KittiSettings",
    "evaluate_kitti",
]

Metric = Literal["bbox", "bev", "3d"]
METRICS: tuple[Metric, ...] = ("bbox", "bev", "3d")
#: The classes KITTI evaluates and their overlap thresholds (the devkit's ``MIN_OVERLAP``).
KITTI_CLASSES: dict[str, float] = {"Car": 0.7, "Pedestrian": 0.5, "Cyclist": 0.5}
#: The class whose ground truths are ignored, not missed, when evaluating a class.
NEIGHBOURS = {"car": "van", "pedestrian": "person_sitting"}
DIFFICULTIES = ("easy", "moderate", "hard")
MIN_HEIGHT = (40.0, 25.0, 25.0)
MAX_OCCLUSION = (0.0, 1.0, 2.0)
MAX_TRUNCATION = (0.15, 0.3, 0.5)
#: Recall points: thresholds are taken at 41 (R40 uses 1 to 40, R11 every fourth from 0).
N_POINTS = 41


@dataclass(frozen=True)
class KittiSettings:
    """The checked settings of a `KittiEvaluation` (see `evaluate_kitti`); `merge` compares them."""

    classes: tuple[str, ...]
    min_overlaps: tuple[float, ...]
    metrics: tuple[Metric, ...]


@dataclass(frozen=True)
class KittiResult:
    """KITTI AP per metric, class and difficulty.

    Attributes
    ----------
    classes, metrics : tuple of str
    ap_r40, ap_r11 : ndarray of shape (metrics, classes, 3)
        AP in percent at the 40 recall points (KITTI's official) and the 11 (the original), for
        easy, moderate and hard.
    precision, recall : ndarray of shape (metrics, classes, 3, 41)
        The devkit's curves at the 41 thresholds (0 past the last threshold).
    num_ground_truths : ndarray of shape (classes, 3)
        Ground truths that count (not ignored) per class and difficulty.
    num_images : int
    """

    classes: tuple[str, ...]
    metrics: tuple[str, ...]
    min_overlaps: tuple[float, ...]
    ap_r40: np.ndarray
    ap_r11: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    num_ground_truths: np.ndarray
    num_images: int
    difficulties: tuple[str, ...] = field(default=DIFFICULTIES)

    def ap(self, metric: str, name: str, difficulty: str = "moderate", points: int = 40) -> float:
        """AP in percent of `metric` (``"bbox"``, ``"bev"``, ``"3d"``) for class `name`, at R40 or R11 (`points`)."""
        if metric not in self.metrics:
            raise _fail("metric", f"one of {self.metrics}", metric)
        if name not in self.classes:
            raise _fail("name", f"one of {self.classes}", name)
        if difficulty not in self.difficulties:
            raise _fail("difficulty", f"one of {self.difficulties}", difficulty)
        if points not in (40, 11):
            raise _fail("points", "40 or 11", points)
        table = self.ap_r40 if points == 40 else self.ap_r11
        index = self.metrics.index(metric), self.classes.index(name), self.difficulties.index(difficulty)
        return float(table[index])

    def summary(self) -> str:
        """KITTI's printout: per class, the AP of each metric for easy, moderate and hard, at R11 and R40."""
        lines = []
        for points, table in ((11, self.ap_r11), (40, self.ap_r40)):
            for c, name in enumerate(self.classes):
                threshold = self.min_overlaps[c]
                lines.append(f"{name} AP_R{points}@{threshold:.2f}, {threshold:.2f}, {threshold:.2f}:")
                for m, metric in enumerate(self.metrics):
                    values = ", ".join(f"{value:.4f}" for value in table[m, c])
                    lines.append(f"{metric:>4} AP:{values}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict in the layout every protocol shares (docs/cli.md, "The JSON layout").

        ``"headline"``: the numbers papers report, each metric's moderate AP at R40 per class
        (``"3d/Car/moderate/R40"``); ``"per_category"``: per class its threshold, its ground truths
        per difficulty and every AP (``"3d/easy/R40"``, ...); ``"ap"``: every AP by its full name.

        Examples
        --------
        >>> import numpy as np
        >>> result = KittiResult(classes=("Car",), metrics=("3d",), min_overlaps=(0.7,),
        ...                      ap_r40=np.full((1, 1, 3), 90.0), ap_r11=np.full((1, 1, 3), 88.0),
        ...                      precision=np.zeros((1, 1, 3, 41)), recall=np.zeros((1, 1, 3, 41)),
        ...                      num_ground_truths=np.array([[50, 120, 160]]), num_images=10)
        >>> result.to_dict()["headline"]
        {'3d/Car/moderate/R40': 90.0}
        >>> result.to_dict()["per_category"][0]["num_ground_truths"]
        {'easy': 50, 'moderate': 120, 'hard': 160}
        """
        ap: dict[str, float] = {}
        per_category: list[dict[str, Any]] = [
            {
                "category_id": name,
                "min_overlap": self.min_overlaps[c],
                "num_ground_truths": {
                    difficulty: int(self.num_ground_truths[c, d]) for d, difficulty in enumerate(self.difficulties)
                },
            }
            for c, name in enumerate(self.classes)
        ]
        for points, table in ((40, self.ap_r40), (11, self.ap_r11)):
            for m, metric in enumerate(self.metrics):
                for c, name in enumerate(self.classes):
                    for d, difficulty in enumerate(self.difficulties):
                        value = float(table[m, c, d])
                        ap[f"{metric}/{name}/{difficulty}/R{points}"] = value
                        per_category[c][f"{metric}/{difficulty}/R{points}"] = value
        return {
            "protocol": "kitti",
            "headline": {
                f"{metric}/{name}/moderate/R40": ap[f"{metric}/{name}/moderate/R40"]
                for metric in self.metrics
                for name in self.classes
            },
            "per_category": per_category,
            "ap": ap,
            "metrics": list(self.metrics),
            "difficulties": list(self.difficulties),
            "num_images": self.num_images,
        }


@dataclass(frozen=True)
class _KittiPart:
    """What one part keeps for `compute`: per object the columns the rules read (no region), and per metric the
    pairs of one image whose overlap may pass a threshold."""

    images: np.ndarray
    gt_image: np.ndarray
    gt_type: np.ndarray
    gt_height: np.ndarray
    gt_occluded: np.ndarray
    gt_truncated: np.ndarray
    dt_image: np.ndarray
    dt_type: np.ndarray
    dt_height: np.ndarray
    dt_score: np.ndarray
    dc_image: np.ndarray
    #: metric -> (gt index, dt index, overlap), indices within the part.
    pairs: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]
    #: (don't-care index, dt index, the prediction's share inside it).
    dc_pairs: tuple[np.ndarray, np.ndarray, np.ndarray]


class KittiEvaluation(MergeableEvaluation[KittiResult]):
    """KITTI's AP accumulated part by part: `update` per part (whole images), `merge`, `compute`.

    The parameters are those of `evaluate_kitti`; a part keeps each object's class, image-box height,
    occlusion, truncation and score and the overlapping pairs, so merged parts give the one-call result.

    Examples
    --------
    >>> from geoiou.tables import KittiObjects
    >>> def cars(images, score=None):
    ...     n = len(images)
    ...     return KittiObjects(image_id=images, type=["Car"] * n, truncated=[0.0] * n, occluded=[0] * n,
    ...                         alpha=[0.0] * n, bbox=[[100, 100, 200, 180]] * n, dimensions=[[1.5, 1.6, 3.9]] * n,
    ...                         location=[[2.0, 1.7, 20.0]] * n, rotation_y=[0.0] * n, score=score)
    >>> images = [f"{i:06d}" for i in range(41)]
    >>> parts = [KittiEvaluation().update(cars(part), cars(part, [0.9] * len(part)))
    ...          for part in (images[:20], images[20:])]
    >>> parts[0].merge(parts[1]).compute().ap("3d", "Car")
    100.0

    KITTI samples the precision at 41 recall levels, each reached only by a further true positive: one
    object found exactly gives R40 0 and R11 1/11 (the devkit's numbers, not a perfect score).

    >>> one = evaluate_kitti(cars(images[:1]), cars(images[:1], [0.9]))
    >>> one.ap("3d", "Car"), round(one.ap("3d", "Car", points=11), 4)
    (0.0, 9.0909)
    """

    settings: KittiSettings

    def __init__(self, *, classes: Mapping[str, float] | None = None, metrics: Sequence[str] = METRICS) -> None:
        chosen = dict(KITTI_CLASSES if classes is None else classes)
        if not chosen or not all(isinstance(k, str) for k in chosen):
            raise _fail("classes", "a mapping {class name: overlap threshold} such as {'Car': 0.7}", classes)
        for name, threshold in chosen.items():
            if not (isinstance(threshold, (int, float)) and 0 <= threshold < 1):
                raise _fail(f"classes[{name!r}]", "an overlap threshold in [0, 1)", threshold)
        picked = tuple(metrics)
        if not picked or any(metric not in METRICS for metric in picked):
            raise _fail("metrics", f"a sequence of {METRICS}", metrics)
        self._start(
            KittiSettings(
                classes=tuple(chosen),
                min_overlaps=tuple(float(t) for t in chosen.values()),
                metrics=picked,  # type: ignore[arg-type]  # checked above
            )
        )

    def update(self, ground_truth: KittiObjects, predictions: KittiObjects) -> KittiEvaluation:
        """Match one part's images (each image in one part only); return ``self``."""
        for name, table in (("ground_truth", ground_truth), ("predictions", predictions)):
            if not isinstance(table, KittiObjects):
                raise _fail(name, "a KittiObjects table (geoiou.io.read_kitti_labels)", type(table).__name__)
        if predictions.score is None:
            raise _fail("predictions", "results with a score per object (16 fields a line)", "no scores")
        images = np.array(sorted(set(ground_truth.images) | set(predictions.images)), dtype=str)
        dontcare = ground_truth.dontcare
        truth = ground_truth.take(np.flatnonzero(~dontcare))
        cares = ground_truth.take(np.flatnonzero(dontcare))
        gt_order, dt_order, dc_order = (_by_image(table, images) for table in (truth, predictions, cares))
        truth, predicted, cares = truth.take(gt_order), predictions.take(dt_order), cares.take(dc_order)
        lowest = min(self.settings.min_overlaps)
        gt_image, dt_image = _codes(truth, images), _codes(predicted, images)
        pairs: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {
            metric: _pairs(_regions(truth, metric), gt_image, _regions(predicted, metric), dt_image, lowest)
            for metric in self.settings.metrics
        }
        dc_pairs = _dontcare_pairs(cares.boxes2d, _codes(cares, images), predicted.boxes2d, dt_image, lowest)
        self._parts.append(
            _KittiPart(
                images=images,
                gt_image=gt_image,
                gt_type=np.char.lower(truth.type),
                gt_height=truth.bbox[:, 3] - truth.bbox[:, 1],
                gt_occluded=np.asarray(truth.occluded),
                gt_truncated=np.asarray(truth.truncated),
                dt_image=dt_image,
                dt_type=np.char.lower(predicted.type),
                dt_height=np.abs(predicted.bbox[:, 3] - predicted.bbox[:, 1]),
                dt_score=np.asarray(predicted.score),
                dc_image=_codes(cares, images),
                pairs=pairs,
                dc_pairs=dc_pairs,
            )
        )
        return self

    def compute(self) -> KittiResult:
        """AP of every metric, class and difficulty over all parts: the `KittiResult`."""
        settings, parts = self.settings, self._parts
        images = disjoint_keys([part.images for part in parts], "image")
        joined = _joined(parts, settings.metrics)
        shape = (len(settings.metrics), len(settings.classes), len(DIFFICULTIES))
        precision, recall = np.zeros((*shape, N_POINTS)), np.zeros((*shape, N_POINTS))
        counted = np.zeros(shape[1:], dtype=np.int64)
        for c, (name, threshold) in enumerate(zip(settings.classes, settings.min_overlaps)):
            for d in range(len(DIFFICULTIES)):
                ignored_gt, ignored_dt, counted[c, d] = _ignored(joined, name.lower(), d)
                for m, metric in enumerate(settings.metrics):
                    precision[m, c, d], recall[m, c, d] = _curves(
                        joined, metric, ignored_gt, ignored_dt, int(counted[c, d]), threshold
                    )
        return KittiResult(
            classes=settings.classes,
            metrics=settings.metrics,
            min_overlaps=settings.min_overlaps,
            ap_r40=_mean_points(precision, range(1, N_POINTS)),
            ap_r11=_mean_points(precision, range(0, N_POINTS, 4)),
            precision=precision,
            recall=recall,
            num_ground_truths=counted,
            num_images=len(images),
        )


def evaluate_kitti(
    ground_truth: KittiObjects,
    predictions: KittiObjects,
    *,
    classes: Mapping[str, float] | None = None,
    metrics: Sequence[str] = METRICS,
) -> KittiResult:
    """KITTI's object detection AP (image boxes, bird's eye view, 3-D) at R40 and R11 per class and difficulty.

    Parameters
    ----------
    ground_truth : KittiObjects
        KITTI's ``label_2`` files (`geoiou.io.read_kitti_labels`), ``DontCare`` rows included.
    predictions : KittiObjects
        Result files in the same format with a score (16 fields a line), one per image; an image
        without a result file has no prediction.
    classes : mapping {name: threshold}, optional
        The classes to evaluate and their overlap thresholds; KITTI's by default: ``{"Car": 0.7,
        "Pedestrian": 0.5, "Cyclist": 0.5}``.
    metrics : sequence of {"bbox", "bev", "3d"}
        Which APs to compute (all three by default).

    Returns
    -------
    KittiResult
        ``result.ap("3d", "Car", "moderate")`` (R40), ``ap_r40`` and ``ap_r11`` arrays, ``summary()``.

    See Also
    --------
    geoiou.evaluation.kitti : the rules, and where they come from.

    Examples
    --------
    Forty-one cars, each found 10 cm off (3-D IoU 0.88), and a false detection at a higher score
    inside the one don't-care region: KITTI ignores it for the image boxes only.

    >>> from geoiou.tables import KittiObjects
    >>> n = 41  # R40 needs 41 true positives to reach every recall level
    >>> truth = KittiObjects(image_id=[f"{i:06d}" for i in range(n)] + ["000000"], type=["Car"] * n + ["DontCare"],
    ...                      truncated=[0.0] * n + [-1], occluded=[0] * n + [-1], alpha=[0.0] * n + [-10],
    ...                      bbox=[[100, 100, 200, 180]] * n + [[300, 100, 400, 200]],
    ...                      dimensions=[[1.5, 1.6, 3.9]] * n + [[-1, -1, -1]],
    ...                      location=[[2.0, 1.7, 20.0]] * n + [[-1000] * 3], rotation_y=[0.0] * n + [-10])
    >>> found = KittiObjects(image_id=truth.image_id, type=["Car"] * (n + 1), truncated=[0.0] * (n + 1),
    ...                      occluded=[0] * (n + 1), alpha=[0.0] * (n + 1),
    ...                      bbox=[[100, 100, 200, 180]] * n + [[310, 110, 390, 190]],
    ...                      dimensions=[[1.5, 1.6, 3.9]] * (n + 1),
    ...                      location=[[2.0, 1.7, 20.1]] * n + [[9.0, 1.7, 20.0]], rotation_y=[0.0] * (n + 1),
    ...                      score=[0.8] * n + [0.9])
    >>> result = evaluate_kitti(truth, found, classes={"Car": 0.7})
    >>> result.ap("bbox", "Car"), round(result.ap("3d", "Car"), 2)  # 41/42 at every recall level in 3-D
    (100.0, 97.62)
    """
    return KittiEvaluation(classes=classes, metrics=metrics).update(ground_truth, predictions).compute()


# --------------------------------------------------------------------------- update: regions and pairs
def _by_image(table: KittiObjects, images: np.ndarray) -> np.ndarray:
    """The rows in image order, file order kept within each image."""
    return np.argsort(np.searchsorted(images, table.image_id), kind="stable")


def _codes(table: KittiObjects, images: np.ndarray) -> np.ndarray:
    codes: np.ndarray = np.searchsorted(images, table.image_id).astype(np.int64)
    return codes


def _regions(table: KittiObjects, metric: str) -> Region:
    """The regions a metric compares: the image boxes, the footprints of the 3-D boxes, or the 3-D boxes."""
    if metric == "bbox":
        return table.boxes2d
    boxes = table.boxes3d
    return boxes.footprint() if metric == "bev" else boxes


def _pairs(
    truth: Region, gt_image: np.ndarray, predicted: Region, dt_image: np.ndarray, lowest: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gt, dt, IoU) of the pairs of one image whose IoU is above `lowest` (no threshold is below it)."""
    gt, dt = _candidates(truth, gt_image, predicted, dt_image)
    value = iou_of_pairs(truth, predicted, gt, dt, zero_division=0.0)
    keep = value > lowest
    return gt[keep], dt[keep], value[keep]


def _dontcare_pairs(
    cares: Region, dc_image: np.ndarray, predicted: Region, dt_image: np.ndarray, lowest: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(don't-care, dt, the prediction's share inside it) of the pairs of one image whose share is above `lowest`."""
    dc, dt = _candidates(cares, dc_image, predicted, dt_image)
    share = iof_of_pairs(predicted, cares, dt, dc, zero_division=0.0)
    keep = share > lowest
    return dc[keep], dt[keep], share[keep]


def _candidates(a: Region, group_a: np.ndarray, b: Region, group_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of one image whose bounds overlap, sorted by (a, b): a compiled search."""
    from geoiou.kernels.candidates import candidate_pairs  # the kernels: loaded on first use

    width = 2 * a.ndim
    if not len(group_a) or not len(group_b):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    return candidate_pairs(a.bounds.reshape(-1, width), b.bounds.reshape(-1, width), group_a, group_b, sort_b=True)


# --------------------------------------------------------------------------- compute
@dataclass
class _Joined:
    """The parts' columns end to end (images, then the rows of each image in order), with image starts."""

    gt_type: np.ndarray
    gt_height: np.ndarray
    gt_occluded: np.ndarray
    gt_truncated: np.ndarray
    dt_type: np.ndarray
    dt_height: np.ndarray
    dt_score: np.ndarray
    gt_image_start: np.ndarray
    dt_image_start: np.ndarray
    dc_image_start: np.ndarray
    #: metric -> (pair_start per gt, dt per pair, overlap per pair)
    pairs: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]
    dc_pairs: tuple[np.ndarray, np.ndarray, np.ndarray]


def _joined(parts: list[_KittiPart], metrics: tuple[str, ...]) -> _Joined:
    """The parts joined: images of part k follow those of part k - 1 (parts hold disjoint images)."""
    gt_base = np.cumsum([0] + [len(p.gt_image) for p in parts])
    dt_base = np.cumsum([0] + [len(p.dt_image) for p in parts])
    dc_base = np.cumsum([0] + [len(p.dc_image) for p in parts])
    image_base = np.cumsum([0] + [len(p.images) for p in parts])

    def column(name: str, dtype: Any) -> np.ndarray:
        return np.concatenate([np.zeros(0, dtype)] + [np.asarray(getattr(p, name)) for p in parts])

    def starts(name: str) -> np.ndarray:
        codes = np.concatenate(
            [np.zeros(0, np.int64)] + [getattr(p, name) + image_base[k] for k, p in enumerate(parts)]
        )
        return np.searchsorted(codes, np.arange(int(image_base[-1]) + 1)).astype(np.int64)

    pairs = {}
    for metric in metrics:
        gt = _column_of(parts, lambda p: p.pairs[metric][0], gt_base)
        dt = _column_of(parts, lambda p: p.pairs[metric][1], dt_base)
        value = np.concatenate([np.zeros(0)] + [p.pairs[metric][2] for p in parts])
        pairs[metric] = _csr(gt, dt, value, int(gt_base[-1]))
    dc = _column_of(parts, lambda p: p.dc_pairs[0], dc_base)
    dc_dt = _column_of(parts, lambda p: p.dc_pairs[1], dt_base)
    dc_value = np.concatenate([np.zeros(0)] + [p.dc_pairs[2] for p in parts])
    return _Joined(
        gt_type=column("gt_type", str),
        gt_height=column("gt_height", float),
        gt_occluded=column("gt_occluded", float),
        gt_truncated=column("gt_truncated", float),
        dt_type=column("dt_type", str),
        dt_height=column("dt_height", float),
        dt_score=column("dt_score", float),
        gt_image_start=starts("gt_image"),
        dt_image_start=starts("dt_image"),
        dc_image_start=starts("dc_image"),
        pairs=pairs,
        dc_pairs=_csr(dc, dc_dt, dc_value, int(dc_base[-1])),
    )


def _column_of(parts: list[_KittiPart], get: Any, base: np.ndarray) -> np.ndarray:
    """An index column of every part, shifted by each part's `base`."""
    return np.concatenate(
        [np.zeros(0, np.int64)] + [np.asarray(get(p), np.int64) + base[k] for k, p in enumerate(parts)]
    )


def _csr(row: np.ndarray, other: np.ndarray, value: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs grouped by `row` (each row's in the order of `other`): ``(start per row, other, value)``."""
    order = np.lexsort((other, row))
    start = np.searchsorted(row[order], np.arange(rows + 1)).astype(np.int64)
    return start, np.ascontiguousarray(other[order]), np.ascontiguousarray(value[order], dtype=np.float64)


def _ignored(joined: _Joined, name: str, difficulty: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The devkit's ``cleanData``: ignored flags (-1 not this class, 1 ignored, 0 evaluated) and the ground truths
    that count."""
    valid = np.where(joined.gt_type == name, 1, -1)
    neighbour = NEIGHBOURS.get(name)
    if neighbour is not None:
        valid = np.where(joined.gt_type == neighbour, 0, valid)
    outside = (
        (joined.gt_occluded > MAX_OCCLUSION[difficulty])
        | (joined.gt_truncated > MAX_TRUNCATION[difficulty])
        | (joined.gt_height <= MIN_HEIGHT[difficulty])
    )
    counts = (valid == 1) & ~outside
    ignored_gt = np.where(counts, 0, np.where((valid == 0) | ((valid == 1) & outside), 1, -1)).astype(np.int64)
    short = joined.dt_height < MIN_HEIGHT[difficulty]
    ignored_dt = np.where(short, 1, np.where(joined.dt_type == name, 0, -1)).astype(np.int64)
    return ignored_gt, ignored_dt, int(counts.sum())


def _curves(
    joined: _Joined, metric: str, ignored_gt: np.ndarray, ignored_dt: np.ndarray, positives: int, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """Precision and recall at the 41 thresholds of one class, difficulty and metric (the devkit's ``eval_class``)."""
    from geoiou.evaluation.kitti_loops import first_pass, get_thresholds, threshold_counts  # compiled: on first use

    pair_start, pair_dt, pair_value = joined.pairs[metric]
    score = joined.dt_score.astype(np.float64)
    tp_scores = first_pass(
        joined.gt_image_start, pair_start, pair_dt, pair_value, ignored_gt, ignored_dt, score, float(threshold)
    )
    thresholds = get_thresholds(tp_scores[~np.isnan(tp_scores)], positives, N_POINTS)
    # Don't-care regions have image boxes only (KITTI writes -1000 for their 3-D box): the image-box AP uses them.
    dc_start, dc_dt, dc_value = joined.dc_pairs
    counts = threshold_counts(
        thresholds,
        joined.gt_image_start,
        joined.dt_image_start,
        joined.dc_image_start if metric == "bbox" else np.zeros_like(joined.dc_image_start),
        pair_start,
        pair_dt,
        pair_value,
        dc_start,
        dc_dt,
        dc_value,
        ignored_gt,
        ignored_dt,
        score,
        float(threshold),
    )
    precision, recall = np.zeros(N_POINTS), np.zeros(N_POINTS)
    tp, fp, fn = counts[:, 0].astype(np.float64), counts[:, 1].astype(np.float64), counts[:, 2].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        recall[: len(thresholds)] = tp / (tp + fn)
        precision[: len(thresholds)] = tp / (tp + fp)
    for i in range(len(thresholds)):  # at most 41: the devkit's running maximum from the right
        precision[i] = np.max(precision[i:])
        recall[i] = np.max(recall[i:])
    return precision, recall


def _mean_points(precision: np.ndarray, points: range) -> np.ndarray:
    """The devkit's ``get_mAP``: the precision summed over `points` in order, over their count, in percent."""
    total = np.zeros(precision.shape[:-1])
    for i in points:
        total = total + precision[..., i]
    result: np.ndarray = total / len(points) * 100
    return result
