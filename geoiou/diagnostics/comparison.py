"""Two result sets on the same ground truth: each metric's difference with a paired bootstrap interval over images.

Each resample draws as many images as the evaluation has, with replacement (seeded: the same seed
gives the same intervals), and re-accumulates both evaluations over those images (an image drawn
twice counts twice: its copies are images of their own), so the two are compared on the same draw:
the pairing keeps the variation between images, which both share, out of the difference. The
interval is the percentile interval of the resampled differences (``second - first``), for every
headline number and for each category's AP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.diagnostics.result import Diagnostics

__all__ = ["Comparison", "Difference", "compare"]


@dataclass(frozen=True)
class Difference:
    """One metric of two evaluations: each value, ``second - first``, and its bootstrap interval."""

    first: float
    second: float
    difference: float
    low: float
    high: float

    def to_dict(self) -> dict[str, float | None]:
        """Plain values for JSON (NaN as None)."""
        return {key: None if math.isnan(value) else value for key, value in self.__dict__.items()}


@dataclass(frozen=True)
class Comparison:
    """The differences of two evaluations' headline numbers and per-category AP, with their intervals.

    Attributes
    ----------
    metrics : dict
        ``{name: Difference}`` for every headline number (COCO's 12, VOC's mAP, ActivityNet's).
    per_category : dict
        ``{category_id: Difference}`` of each category's AP.
    confidence : float
    resamples, seed : int
    """

    metrics: dict[str, Difference]
    per_category: dict[Any, Difference]
    confidence: float
    resamples: int
    seed: int

    def summary(self, digits: int = 4) -> str:
        """A table of the headline numbers: first, second, difference and interval."""
        width = max([len(name) for name in self.metrics] + [6])
        lines = [
            f"{'metric':<{width}}  {'first':>{digits + 3}}  {'second':>{digits + 3}}  {'diff':>{digits + 4}}  "
            f"{100 * self.confidence:g}% interval ({self.resamples} paired resamples of images, seed {self.seed})"
        ]
        for name, values in self.metrics.items():
            lines.append(
                f"{name:<{width}}  {values.first:>{digits + 3}.{digits}f}  {values.second:>{digits + 3}.{digits}f}  "
                f"{values.difference:>+{digits + 4}.{digits}f}  [{values.low:+.{digits}f}, {values.high:+.{digits}f}]"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON."""
        return {
            "confidence": self.confidence,
            "resamples": self.resamples,
            "seed": self.seed,
            "metrics": {name: values.to_dict() for name, values in self.metrics.items()},
            "per_category": [
                {"category_id": category, **values.to_dict()} for category, values in self.per_category.items()
            ],
        }


def compare(
    first: Diagnostics, second: Diagnostics, *, resamples: int = 1000, seed: int = 0, confidence: float = 0.95
) -> Comparison:
    """Compare two evaluations of the same ground truth (see the module notes).

    Parameters
    ----------
    first, second : Diagnostics
        The two evaluations (same protocol, settings, images and ground truth).
    resamples : int, default 1000
        Bootstrap resamples; each re-accumulates both evaluations once.
    seed : int, default 0
    confidence : float, default 0.95

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations
    >>> truth = Annotations(image_id=[1, 2, 3], category_id=1, region=geoiou.Box([[0, 0, 4, 4]] * 3))
    >>> near = geoiou.Box([[0, 0, 4, 4], [0, 0, 4, 4], [2, 2, 6, 6]])
    >>> a = diagnose(truth, Annotations(image_id=[1, 2, 3], category_id=1, score=[0.9, 0.8, 0.7], region=near))
    >>> b = diagnose(truth, Annotations(image_id=[1, 2, 3], category_id=1, score=[0.9, 0.8, 0.7],
    ...                                 region=geoiou.Box([[0, 0, 4, 4]] * 3)))
    >>> difference = compare(a, b, resamples=200, seed=1).metrics["AP50"]  # a: 2 of 3 found at precision 1
    >>> round(difference.difference, 3), difference.low <= difference.difference <= difference.high
    (0.337, True)
    """
    _check_comparable(first, second)
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 1:
        raise invalid_argument("resamples", "a positive integer", resamples)
    if not (isinstance(confidence, (int, float, np.number)) and 0 < confidence < 1):
        raise invalid_argument("confidence", "a number in (0, 1)", confidence)
    names = list(first.headline())
    n_images = len(first.table.image_ids)
    rng = np.random.default_rng(seed)
    drawn_metrics = np.empty((int(resamples), len(names)))
    drawn_categories = np.empty((int(resamples), len(first.table.category_ids)))
    with np.errstate(invalid="ignore"):
        for i in range(int(resamples)):  # one resample after another: each is two whole accumulations
            weight = np.bincount(rng.integers(0, n_images, n_images), minlength=n_images)
            results = [side.protocol.resampled(weight) for side in (first, second)]
            numbers = [side.headline(result) for side, result in zip((first, second), results)]
            drawn_metrics[i] = [_number(numbers[1][name]) - _number(numbers[0][name]) for name in names]
            drawn_categories[i] = second.protocol.category_ap(results[1]) - first.protocol.category_ap(results[0])
    tail = 100 * (1 - confidence) / 2
    headline = [first.headline(), second.headline()]
    per_category = [side.protocol.category_ap(side.result) for side in (first, second)]
    return Comparison(
        {
            name: _difference(_number(headline[0][name]), _number(headline[1][name]), drawn_metrics[:, j], tail)
            for j, name in enumerate(names)
        },
        {
            category: _difference(float(per_category[0][c]), float(per_category[1][c]), drawn_categories[:, c], tail)
            for c, category in enumerate(first.table.category_ids.tolist())
        },
        float(confidence),
        int(resamples),
        int(seed),
    )


def _number(value: float) -> float:
    """A headline number, NaN for COCO's -1 (nothing to average)."""
    return math.nan if value == -1 else float(value)


def _difference(first: float, second: float, drawn: np.ndarray, tail: float) -> Difference:
    kept = drawn[~np.isnan(drawn)]
    low, high = np.percentile(kept, [tail, 100 - tail]) if len(kept) else (math.nan, math.nan)
    return Difference(first, second, second - first, float(low), float(high))


def _check_comparable(first: Diagnostics, second: Diagnostics) -> None:
    """Refuse two evaluations that do not share their protocol, settings, images and ground truth."""
    for i, side in enumerate((first, second)):
        if not isinstance(side, Diagnostics):
            raise invalid_argument(("first", "second")[i], "Diagnostics (from diagnose or DiagnosticsEvaluation)", side)
    a, b = first.table, second.table
    checks = {
        "protocol": a.protocol == b.protocol,
        "settings": repr(first.settings) == repr(second.settings),  # frozen dataclasses: arrays shown in full
        "thresholds": np.array_equal(a.thresholds, b.thresholds),
        "images": np.array_equal(a.image_ids, b.image_ids),
        "categories": np.array_equal(a.category_ids, b.category_ids),
        "ground truth": np.array_equal(a.gt_image, b.gt_image)
        and np.array_equal(a.gt_category, b.gt_category)
        and np.array_equal(a.gt_regular, b.gt_regular),
    }
    differing = [name for name, same in checks.items() if not same]
    if differing:
        raise invalid_argument(
            "second",
            "an evaluation of the same ground truth with the same settings as 'first'",
            f"other {differing[0]}",
        )
