"""The results of the detection evaluations: `CocoResult` (COCOeval's arrays and summary) and `VocResult`.

Both are plain values computed once by their evaluation's ``compute``: the arrays, the summary
numbers by name, per-category (and for VOC per-image) numbers, a printable summary and a
JSON-ready dict whose layout every protocol shares (``protocol``, ``headline``, ``per_category``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.errors import UnknownNameError
from geoiou.evaluation.matches import ObjectMatches

__all__ = ["CocoResult", "VocResult", "plain"]

#: Short names COCOeval's table uses for its area labels.
_AREA_SUFFIX = {"small": "s", "medium": "m", "large": "l"}


@dataclass(frozen=True)
class _Stat:
    name: str
    average_precision: bool
    iou_threshold: float | None
    area: str
    max_detections: int


def _summary_stats(area_labels: Sequence[str], max_detections: Sequence[int]) -> list[_Stat]:
    """COCOeval's 12 summary numbers, generalized to other area labels and detection limits."""
    reference, others = area_labels[0], list(area_labels[1:])
    most = max_detections[-1]

    def suffix(label: str) -> str:
        return _AREA_SUFFIX.get(label, f"_{label}")

    stats = [
        _Stat("AP", True, None, reference, most),
        _Stat("AP50", True, 0.5, reference, most),
        _Stat("AP75", True, 0.75, reference, most),
    ]
    stats += [_Stat("AP" + suffix(label), True, None, label, most) for label in others]
    stats += [_Stat(f"AR{m}", False, None, reference, m) for m in max_detections]
    stats += [_Stat("AR" + suffix(label), False, None, label, most) for label in others]
    return stats


def plain(value: Any) -> Any:
    """A JSON-friendly Python value (NumPy scalars become int, float or str)."""
    return value.item() if isinstance(value, np.generic) else value


@dataclass(frozen=True, eq=False)
class CocoResult:
    """The result of `evaluate_coco`: COCOeval's arrays, its 12 summary numbers and per-category values.

    Attributes
    ----------
    precision : ndarray, shape [T, R, K, A, M]
        Interpolated precision per IoU threshold, recall point, category, area range and detection
        limit; -1 where the category has no regular ground truth in the area range (COCOeval's
        ``eval["precision"]``).
    recall : ndarray, shape [T, K, A, M]
        Final recall, -1 likewise (COCOeval's ``eval["recall"]``).
    scores : ndarray, shape [T, R, K, A, M]
        The prediction score at which each recall point is reached (COCOeval's ``eval["scores"]``).
    iou_thresholds, recall_thresholds : ndarray
    categories : ndarray
        Category ids, in the order of the K axis (sorted).
    area_ranges : dict
        Label -> ``(low, high)``, in the order of the A axis.
    max_detections : tuple of int
        Detection limits, in the order of the M axis.
    num_images : int
        Images evaluated.
    matches : ObjectMatches
        Per prediction and ground truth, at each IoU threshold, for the area range ``"all"``: what
        matched what, with which IoU, and as what it counted (pycocotools' ``evalImgs``).

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.evaluation import Annotations, evaluate_coco
    >>> truth = Annotations(image_id=[1, 1], category_id=[7, 7], region=geoiou.Box([[0, 0, 10, 10], [20, 20, 30, 30]]))
    >>> preds = Annotations(image_id=[1], category_id=[7], region=geoiou.Box([[0, 0, 10, 9]]), score=[0.9])
    >>> result = evaluate_coco(truth, preds)
    >>> round(result["AP"], 4), round(result["AP50"], 4), result["AR100"]
    (0.4545, 0.505, 0.45)
    >>> result.per_category()[7]["AR1"]
    0.45
    """

    precision: np.ndarray
    recall: np.ndarray
    scores: np.ndarray
    iou_thresholds: np.ndarray
    recall_thresholds: np.ndarray
    categories: np.ndarray
    area_ranges: dict[str, tuple[float, float]]
    max_detections: tuple[int, ...]
    num_images: int
    matches: ObjectMatches | None = None
    _stats: dict[str, float] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_stats", self._select(slice(None)))

    # ----------------------------------------------------------------- numbers
    def _select(self, categories: slice | int | np.ndarray) -> dict[str, float]:
        labels = list(self.area_ranges)
        values = {}
        for stat in _summary_stats(labels, self.max_detections):
            a = labels.index(stat.area)
            m = self.max_detections.index(stat.max_detections)
            source = self.precision if stat.average_precision else self.recall
            if stat.iou_threshold is not None:
                # COCOeval selects the threshold by exact equality; none equal gives -1.
                source = source[np.where(stat.iou_threshold == self.iou_thresholds)[0]]
            if stat.average_precision:
                chosen = source[:, :, categories, a, m]
            else:
                chosen = source[:, categories, a, m]
            chosen = np.asarray(chosen)
            valid = chosen[chosen > -1]
            values[stat.name] = float(np.mean(valid)) if valid.size else -1.0
        return values

    @property
    def stats(self) -> dict[str, float]:
        """The summary numbers by name: AP, AP50, AP75, APs, APm, APl, AR1, AR10, AR100, ARs, ARm, ARl.

        -1 marks a number with nothing to average (no category has ground truth there), as
        COCOeval prints it. With other settings the names follow them (``AR20`` for a limit of 20,
        ``AP_tiny`` for an area range labelled ``"tiny"``).
        """
        return dict(self._stats)

    @property
    def stats_array(self) -> np.ndarray:
        """The summary numbers in COCOeval's order, as ``COCOeval.stats``."""
        return np.array(list(self._stats.values()))

    def __getitem__(self, name: str) -> float:
        """One summary number by name, e.g. ``result["AP50"]``."""
        try:
            return self._stats[name]
        except KeyError:
            raise UnknownNameError(f"no summary number {name!r}; there are {list(self._stats)}") from None

    def stats_of(self, categories: Sequence[Any]) -> dict[str, float]:
        """The summary numbers averaged over some of the categories only (their ids), as `stats` over all.

        Examples
        --------
        >>> import geoiou
        >>> from geoiou.evaluation import Annotations, evaluate_coco
        >>> truth = Annotations(image_id=1, category_id=[1, 2], region=geoiou.Box([[0, 0, 9, 9], [20, 0, 29, 9]]))
        >>> preds = Annotations(image_id=1, category_id=[1], score=[0.5], region=geoiou.Box([[0, 0, 9, 9]]))
        >>> result = evaluate_coco(truth, preds)
        >>> [round(result.stats_of(ids)["AP"], 4) for ids in ([1], [2], [1, 2], [])]  # []: nothing to average
        [1.0, 0.0, 0.5, -1.0]
        """
        listed = np.asarray(list(categories))
        position = np.searchsorted(self.categories, listed) if len(listed) else np.zeros(0, np.int64)
        known = position < len(self.categories)
        known[known] = self.categories[position[known]] == listed[known]
        if not known.all():
            wrong = listed[~known][0]
            raise invalid_argument("categories", f"ids of the evaluated categories {self.categories.tolist()}", wrong)
        return self._select(position)

    def per_category(self) -> dict[Any, dict[str, float]]:
        """The summary numbers of each category alone: ``{category_id: {"AP": ..., ...}}``.

        A category without regular ground truth has -1 throughout (COCOeval leaves it out of the
        means).
        """
        return {plain(category): self._select(k) for k, category in enumerate(self.categories)}

    # ----------------------------------------------------------------- output
    def summary(self) -> str:
        """COCOeval's familiar table: one line per summary number.

        Examples
        --------
        >>> import geoiou
        >>> from geoiou.evaluation import Annotations, evaluate_coco
        >>> truth = Annotations(image_id=[1], category_id=[1], region=geoiou.Box([[0, 0, 10, 10]]))
        >>> preds = Annotations(image_id=[1], category_id=[1], region=geoiou.Box([[0, 0, 10, 10]]), score=[1.0])
        >>> print(evaluate_coco(truth, preds).summary().splitlines()[0])
         Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 1.000
        """
        lines = []
        for stat in _summary_stats(list(self.area_ranges), self.max_detections):
            title = "Average Precision" if stat.average_precision else "Average Recall"
            kind = "(AP)" if stat.average_precision else "(AR)"
            if stat.iou_threshold is None:
                iou = f"{self.iou_thresholds[0]:0.2f}:{self.iou_thresholds[-1]:0.2f}"
            else:
                iou = f"{stat.iou_threshold:0.2f}"
            lines.append(
                f" {title:<18} {kind} @[ IoU={iou:<9} | area={stat.area:>6s} | "
                f"maxDets={stat.max_detections:>3d} ] = {self._stats[stat.name]:0.3f}"
            )
        return "\n".join(lines)

    def to_dict(self, *, arrays: bool = False) -> dict[str, Any]:
        """A JSON-ready dict: the summary numbers, per-category numbers and the settings.

        Parameters
        ----------
        arrays : bool, default False
            Also include the precision, recall and scores arrays as nested lists.
        """
        result: dict[str, Any] = {
            "protocol": "coco",
            "headline": self.stats,  # every protocol's headline numbers by name (docs/cli.md, "JSON layout")
            "stats": self.stats,
            "per_category": [{"category_id": category, **values} for category, values in self.per_category().items()],
            "iou_thresholds": self.iou_thresholds.tolist(),
            "recall_thresholds": self.recall_thresholds.tolist(),
            "area_ranges": {label: list(bounds) for label, bounds in self.area_ranges.items()},
            "max_detections": list(self.max_detections),
            "categories": [plain(c) for c in self.categories],
            "num_images": self.num_images,
        }
        if arrays:
            result.update(precision=self.precision.tolist(), recall=self.recall.tolist(), scores=self.scores.tolist())
        return result

    def to_json(self, *, arrays: bool = False, indent: int | None = None) -> str:
        """`to_dict` as a JSON string."""
        return json.dumps(self.to_dict(arrays=arrays), indent=indent)

    def __repr__(self) -> str:
        ap = self._stats.get("AP", math.nan)
        return (
            f"<CocoResult AP={ap:.4f} over {len(self.categories)} categories, {self.num_images} images; "
            "summary() for the table>"
        )


@dataclass(frozen=True, eq=False)
class VocResult:
    """The result of `evaluate_voc`: AP per category and their mean.

    Attributes
    ----------
    categories : ndarray
        Category ids (sorted), the order of every per-category array.
    ap : ndarray
        AP of each category; NaN for a category without ground truth that is not difficult.
    num_ground_truths : ndarray
        Ground truths per category that are not difficult (VOC's ``npos``).
    num_detections : ndarray
        Predictions per category.
    precision, recall : tuple of ndarray
        Each category's curve, one point per prediction in decreasing score.
    iou_threshold : float
    interpolation : {"all", "11point"}
    num_images : int
    matches : ObjectMatches
        Per prediction and ground truth: what matched what, with which IoU, and as what it counted
        (a single threshold; a difficult ground truth's matches are ignored).

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.evaluation import Annotations, evaluate_voc
    >>> ships = geoiou.RotatedBox([[10, 10, 8, 4, 30], [40, 40, 8, 4, 0]])
    >>> truth = Annotations(image_id=["a", "a"], category_id=["ship", "ship"], region=ships)
    >>> preds = Annotations(image_id=["a", "a"], category_id=["ship", "ship"], score=[0.9, 0.8],
    ...                     region=geoiou.RotatedBox([[10, 10, 8, 4, 35], [10, 10, 8, 4, 30]]))
    >>> result = evaluate_voc(truth, preds)
    >>> result.mAP, result.per_category()["ship"]["AP"]
    (0.5, 0.5)
    """

    categories: np.ndarray
    ap: np.ndarray
    num_ground_truths: np.ndarray
    num_detections: np.ndarray
    precision: tuple[np.ndarray, ...]
    recall: tuple[np.ndarray, ...]
    iou_threshold: float
    interpolation: str
    num_images: int
    matches: ObjectMatches | None = None
    #: The evaluated images (sorted) and, per image, its ground truths (not difficult), predictions,
    #: true positives and false positives at `iou_threshold`: shape (images, 4). None when not kept.
    image_ids: np.ndarray | None = None
    image_counts: np.ndarray | None = None

    @property
    def mAP(self) -> float:  # noqa: N802 (the name everyone uses)
        """Mean AP over the categories that have ground truth (NaN if none has)."""
        present = ~np.isnan(self.ap)
        return float(np.mean(self.ap[present])) if present.any() else math.nan

    def per_category(self) -> dict[Any, dict[str, float]]:
        """``{category_id: {"AP": ..., "recall": ..., "num_ground_truths": ..., "num_detections": ...}}``.

        ``recall`` is the final recall (all predictions counted); NaN without ground truth.
        """
        result = {}
        for k, category in enumerate(self.categories):
            final_recall = (
                float(self.recall[k][-1]) if len(self.recall[k]) else (0.0 if self.num_ground_truths[k] else math.nan)
            )
            result[plain(category)] = {
                "AP": float(self.ap[k]),
                "recall": final_recall,
                "num_ground_truths": int(self.num_ground_truths[k]),
                "num_detections": int(self.num_detections[k]),
            }
        return result

    def per_image(self) -> dict[Any, dict[str, float]]:
        """``{image_id: {"num_ground_truths", "num_detections", "true_positives", "false_positives", "missed",
        "precision", "recall", "f1"}}``, every prediction counted (no score cut), at `iou_threshold`.

        A true positive is a prediction that found a ground truth of its category at IoU above the
        threshold, as in the AP; ``missed`` are the ground truths (not difficult) no prediction
        found. Precision is NaN without predictions, recall without ground truth, F1 when both
        are (``2 tp / (2 tp + fp + missed)``, NaN for an image without either).

        Examples
        --------
        >>> import geoiou
        >>> from geoiou.evaluation import Annotations, evaluate_voc
        >>> truth = Annotations(image_id=["a", "b"], category_id=[1, 1],
        ...                     region=geoiou.Box([[0, 0, 4, 4], [0, 0, 4, 4]]))
        >>> preds = Annotations(image_id=["a", "b"], category_id=[1, 1], score=[0.9, 0.8],
        ...                     region=geoiou.Box([[0, 0, 4, 4], [9, 9, 12, 12]]))
        >>> result = evaluate_voc(truth, preds)
        >>> result.per_image()["b"]["f1"], result.worst_images(1)
        (0.0, ['b'])
        """
        if self.image_ids is None or self.image_counts is None:
            raise invalid_argument("result", "a VocResult computed with its per-image counts", "none kept")
        rows = {}
        for image, (truths, detections, hits, false) in zip(self.image_ids.tolist(), self.image_counts.tolist()):
            missed = truths - hits
            rows[plain(image)] = {
                "num_ground_truths": truths,
                "num_detections": detections,
                "true_positives": hits,
                "false_positives": false,
                "missed": missed,
                "precision": hits / detections if detections else math.nan,
                "recall": hits / truths if truths else math.nan,
                "f1": 2 * hits / (2 * hits + false + missed) if 2 * hits + false + missed else math.nan,
            }
        return rows

    def worst_images(self, count: int | None = None) -> list[Any]:
        """The images with the lowest F1 (`per_image`), worst first (ties by image id); images with
        neither ground truth nor predictions are left out. `count` limits the list."""
        rows = [
            (values["f1"], index, image)
            for index, (image, values) in enumerate(self.per_image().items())
            if not math.isnan(values["f1"])
        ]
        return [image for _, _, image in sorted(rows)[:count]]

    def summary(self, *, digits: int = 4) -> str:
        """A table: one line per category (ground truths, predictions, final recall, AP) and the mAP.

        `digits` is the decimals of AP and mAP (recall has one fewer).
        """
        if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 17:
            raise invalid_argument("digits", "an integer from 1 to 17", digits)
        rows = self.per_category()
        width = max([len(str(c)) for c in rows] + [8])
        cell = max(6, digits + 2)
        lines = [f"{'category':<{width}}  {'gts':>6}  {'dets':>6}  {'recall':>{cell}}  {'AP':>{cell}}"]
        for category, values in rows.items():
            lines.append(
                f"{str(category):<{width}}  {values['num_ground_truths']:>6d}  "
                f"{values['num_detections']:>6d}  "
                f"{values['recall']:>{cell}.{max(1, digits - 1)}f}  {values['AP']:>{cell}.{digits}f}"
            )
        label = "all points" if self.interpolation == "all" else "11 points"
        lines.append(f"mAP ({label}, IoU > {self.iou_threshold:g}) = {self.mAP:.{digits}f}")
        return "\n".join(lines)

    def to_dict(self, *, arrays: bool = False) -> dict[str, Any]:
        """A JSON-ready dict (NaN written as None); `arrays` adds the precision and recall curves."""

        def number(value: float) -> float | None:
            return None if math.isnan(value) else value

        result: dict[str, Any] = {
            "protocol": "voc",
            "headline": {"mAP": number(self.mAP)},
            "mAP": number(self.mAP),
            "per_category": [
                {
                    "category_id": category,
                    **{key: number(v) if isinstance(v, float) else v for key, v in values.items()},
                }
                for category, values in self.per_category().items()
            ],
            "iou_threshold": self.iou_threshold,
            "interpolation": self.interpolation,
            "num_images": self.num_images,
        }
        if self.image_ids is not None:
            result["per_image"] = [
                {"image_id": image, **{key: number(v) if isinstance(v, float) else v for key, v in values.items()}}
                for image, values in self.per_image().items()
            ]
        if arrays:
            result["precision"] = [curve.tolist() for curve in self.precision]
            result["recall"] = [[number(v) for v in curve.tolist()] for curve in self.recall]
        return result

    def to_json(self, *, arrays: bool = False, indent: int | None = None) -> str:
        """`to_dict` as a JSON string."""
        return json.dumps(self.to_dict(arrays=arrays), indent=indent)

    def __repr__(self) -> str:
        return f"<VocResult mAP={self.mAP:.4f} over {len(self.categories)} categories; summary() for the table>"
