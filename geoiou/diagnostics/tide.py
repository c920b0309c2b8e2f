"""TIDE's error breakdown (Bolya et al., ECCV 2020): why each false positive is false, and the AP each kind costs.

At the foreground threshold ``fg`` (one of the evaluation's, 0.5 by default) and the background
threshold ``bg`` (0.1), every false positive is given one error, tested in this order (TIDE's
reference implementation's order), with overlaps against the ground truths that count (crowd,
ignored and difficult ones are left out, as TIDE's ignore regions are):

- **localization**: its best overlap with a ground truth of its own category is in ``[bg, fg)``;
- **classification**: it overlaps a ground truth of another category at ``fg`` or more;
- **duplicate**: it overlaps a ground truth of its category at ``fg`` or more that another
  (higher-scoring) prediction found;
- **background**: it overlaps every ground truth less than ``bg``;
- **both** (classification and localization): anything else (a wrong category at ``[bg, fg)``).

A ground truth that nothing found is **missed** unless a localization or classification error
could have found it. "At ``fg`` or more" is the protocol's own test (COCO and ActivityNet: at
least; VOC: strictly above). Predictions the protocol ignores (on a crowd region, outside the area
range, beyond the detection limit) are not errors.

The AP each kind costs is the AP with its errors fixed the oracle way TIDE defines, minus the AP:
a localization or classification error becomes a true positive of the ground truth it points at
(the highest-scoring such error per ground truth; the others, and those pointing at a ground truth
already found, are removed); duplicate, background and both errors are removed; missed ground truths
are removed from the positives. Two special oracles: every false positive removed (perfect
precision), every ground truth not found removed (perfect recall). The AP is the protocol's own at
``fg`` (COCO's 101-point AP in the first area range at the largest detection limit, VOC's, or
ActivityNet's), re-accumulated from the outcomes: no overlap is measured again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.diagnostics.accumulate import Protocol, Ranked
from geoiou.diagnostics.table import FALSE_POSITIVE, TRUE_POSITIVE, DetectionTable

__all__ = ["ERRORS", "SPECIAL_ERRORS", "TideResult", "best_overlaps", "classify_errors", "tide"]

#: TIDE's main errors in its order, with the short names its tables use.
ERRORS = {
    "classification": "Cls",
    "localization": "Loc",
    "both": "Both",
    "duplicate": "Dupe",
    "background": "Bkg",
    "missed": "Miss",
}
#: TIDE's special errors: every false positive removed, every missed ground truth removed.
SPECIAL_ERRORS = {"false_positive": "FalsePos", "false_negative": "FalseNeg"}
#: Error codes of the predictions (`NO_ERROR` for those that are not false positives).
NO_ERROR, LOCALIZATION, CLASSIFICATION, DUPLICATE, BACKGROUND, BOTH = -1, 0, 1, 2, 3, 4
_CODE = {"localization": LOCALIZATION, "classification": CLASSIFICATION, "duplicate": DUPLICATE,
         "background": BACKGROUND, "both": BOTH}  # fmt: skip


@dataclass(frozen=True)
class BestOverlaps:
    """Each prediction's best overlaps with the ground truths that count, 0 (and -1) where there is none.

    ``same`` and ``same_gt``: with one of its own category; ``other`` and ``other_gt``: of another
    category; ``found``: with one of its own category that some prediction found (at the threshold).
    """

    same: np.ndarray
    same_gt: np.ndarray
    other: np.ndarray
    other_gt: np.ndarray
    found: np.ndarray


def best_overlaps(table: DetectionTable, k: int) -> BestOverlaps:
    """The best overlaps of every prediction at threshold index `k` (ties: the lowest ground-truth row).

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations
    >>> truth = Annotations(image_id=1, category_id=["a", "b"], region=geoiou.Box([[0, 0, 10, 10], [20, 0, 30, 10]]))
    >>> preds = Annotations(image_id=1, category_id=["a"], score=[0.9], region=geoiou.Box([[20, 0, 30, 8]]))
    >>> best = best_overlaps(diagnose(truth, preds).table, 0)
    >>> best.same.tolist(), best.other.tolist(), best.other_gt.tolist()  # it lies on the "b"
    ([0.0], [0.8], [1])
    """
    owner, gt, value = table.pair_owner, table.pair_gt, table.pair_value
    counted = table.gt_regular[gt, 0]
    same = table.gt_category[gt] == table.dt_category[owner]
    found = table.found_by[k, gt] >= 0
    n = len(table.dt_row)
    best_same, same_gt = _best(owner, gt, value, counted & same, n)
    best_other, other_gt = _best(owner, gt, value, counted & ~same, n)
    best_found, _ = _best(owner, gt, value, counted & same & found, n)
    return BestOverlaps(best_same, same_gt, best_other, other_gt, best_found)


def _best(owner: np.ndarray, gt: np.ndarray, value: np.ndarray, mask: np.ndarray, n: int) -> tuple[np.ndarray, ...]:
    """Per prediction, the best value of its pairs under `mask` and its ground truth (0 and -1 for none)."""
    owner, gt, value = owner[mask], gt[mask], value[mask]
    order = np.lexsort((gt, -value, owner))
    first = order[np.r_[True, owner[order][1:] != owner[order][:-1]]] if len(order) else order
    best, best_gt = np.zeros(n), np.full(n, -1, dtype=np.int64)
    best[owner[first]], best_gt[owner[first]] = value[first], gt[first]
    return best, best_gt


def classify_errors(table: DetectionTable, protocol: Protocol, k: int, background: float) -> tuple[np.ndarray, ...]:
    """TIDE's error code of every prediction at threshold index `k`, and the ground truth each error points at.

    Returns ``(code, target)``: per prediction ``d``, one of `LOCALIZATION`, `CLASSIFICATION`,
    `DUPLICATE`, `BACKGROUND`, `BOTH` (false positives) or `NO_ERROR`; the ground truth a
    localization or classification error points at (-1 otherwise).

    Examples
    --------
    >>> import numpy as np, geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations
    >>> masks = geoiou.Mask(np.eye(6, dtype=bool)[None].repeat(2, 0) | np.eye(6, k=1, dtype=bool))  # two diagonals
    >>> found = diagnose(Annotations(image_id=1, category_id="a", region=masks[:1]),
    ...                  Annotations(image_id=1, category_id="a", score=[0.9, 0.5], region=masks))
    >>> code, target = classify_errors(found.table, found.protocol, 0, 0.1)
    >>> code.tolist() == [NO_ERROR, DUPLICATE], target.tolist()  # the second finds the found mask again
    (True, [-1, -1])
    """
    false = table.outcome[:, k, 0] == FALSE_POSITIVE
    best = best_overlaps(table, k)
    localization = false & (best.same >= background) & ~protocol.reaches(best.same, k)
    classification = false & ~localization & protocol.reaches(best.other, k)
    duplicate = false & ~localization & ~classification & protocol.reaches(best.found, k)
    background_error = (
        false & ~(localization | classification | duplicate) & (np.maximum(best.same, best.other) < background)
    )
    code = np.full(len(false), NO_ERROR, dtype=np.int8)
    code[false] = BOTH
    for kind, chosen in (
        (LOCALIZATION, localization), (CLASSIFICATION, classification), (DUPLICATE, duplicate),
        (BACKGROUND, background_error),
    ):  # fmt: skip
        code[chosen] = kind
    target = np.where(localization, best.same_gt, np.where(classification, best.other_gt, -1))
    return code, target


@dataclass(frozen=True)
class TideResult:
    """TIDE's breakdown of one evaluation (see the module notes for the definitions).

    Attributes
    ----------
    foreground_threshold, background_threshold : float
    ap : float
        The protocol's AP at the foreground threshold.
    fixed_ap, delta_ap : dict
        Per error (`ERRORS` and `SPECIAL_ERRORS` keys): the AP with those errors fixed, and how much
        higher it is (the AP the error costs; never negative, as fixing removes false positives or
        adds true positives).
    counts : dict
        False positives of each kind, and missed ground truths.
    per_category : dict
        Per category id: ``{"AP": ..., "<error>": delta ...}``; NaN for a category without ground truth.
    errors : ndarray of int8, shape (P,)
        Per prediction row, its error code (`NO_ERROR` for true positives, ignored and unevaluated ones).
    missed_rows : ndarray of int64
        The rows of the missed ground truths.
    """

    foreground_threshold: float
    background_threshold: float
    ap: float
    fixed_ap: dict[str, float]
    delta_ap: dict[str, float]
    counts: dict[str, int]
    per_category: dict[Any, dict[str, float]] = field(repr=False)
    errors: np.ndarray = field(repr=False)
    missed_rows: np.ndarray = field(repr=False)

    def summary(self) -> str:
        """TIDE's two tables: the AP each error costs, in AP points (x100) as TIDE prints them, and the counts.

        Examples
        --------
        >>> import geoiou
        >>> from geoiou.diagnostics import diagnose
        >>> from geoiou.evaluation import Annotations
        >>> truth = Annotations(image_id=1, category_id="a", region=geoiou.Box([[0, 0, 10, 10], [20, 0, 30, 10]]))
        >>> preds = Annotations(image_id=1, category_id="a", score=[0.9, 0.8],
        ...                     region=geoiou.Box([[0, 0, 10, 9], [20, 0, 30, 4]]))  # the second is too short
        >>> print(diagnose(truth, preds).tide().summary())
        TIDE errors at foreground IoU 0.50, background 0.10: AP 50.50
          type     Cls    Loc   Both   Dupe    Bkg   Miss FalsePos FalseNeg
          dAP     0.00  49.50   0.00   0.00   0.00   0.00     0.00    49.50
          count      0      1      0      0      0      0
        """
        names = {**ERRORS, **SPECIAL_ERRORS}
        widths = [max(6, len(short)) for short in names.values()]
        head = " ".join(f"{short:>{w}}" for short, w in zip(names.values(), widths))
        values = " ".join(f"{100 * self.delta_ap[key]:>{w}.2f}" for key, w in zip(names, widths))
        counts = " ".join(f"{self.counts[key]:>{w}d}" for key, w in zip(ERRORS, widths))
        return "\n".join(
            [
                f"TIDE errors at foreground IoU {self.foreground_threshold:.2f}, background "
                f"{self.background_threshold:.2f}: AP {100 * self.ap:.2f}",
                f"  type  {head}",
                f"  dAP   {values}",
                f"  count {counts}",
            ]
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON (NaN as None): thresholds, AP, fixed AP, delta AP and counts, per category too."""
        return {
            "foreground_threshold": self.foreground_threshold,
            "background_threshold": self.background_threshold,
            "AP": _plain(self.ap),
            "delta_AP": {key: _plain(value) for key, value in self.delta_ap.items()},
            "fixed_AP": {key: _plain(value) for key, value in self.fixed_ap.items()},
            "counts": dict(self.counts),
            "per_category": [
                {"category_id": category, **{key: _plain(value) for key, value in values.items()}}
                for category, values in self.per_category.items()
            ],
        }


def _plain(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def tide(
    table: DetectionTable, protocol: Protocol, foreground_threshold: float = 0.5, background_threshold: float = 0.1
) -> TideResult:
    """TIDE's error breakdown of a table at the two thresholds (see the module notes).

    Raises
    ------
    InvalidArgumentError
        If `foreground_threshold` is not one of the evaluation's thresholds, or
        `background_threshold` is below the overlaps the diagnostics kept or not below the
        foreground threshold.

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations
    >>> boxes = geoiou.Box([[0, 0, 10, 10], [20, 0, 30, 10]])
    >>> found = diagnose(Annotations(image_id=1, category_id=["a", "b"], region=boxes),
    ...                  Annotations(image_id=1, category_id="a", score=[0.9, 0.6], region=boxes))
    >>> result = tide(found.table, found.protocol)
    >>> result.counts["classification"], round(result.delta_ap["classification"], 3)  # fixed: "b" found too
    (1, 0.5)
    """
    k = table.threshold_index(foreground_threshold, "foreground_threshold")
    if not table.background_threshold <= background_threshold < table.thresholds[k]:
        raise invalid_argument(
            "background_threshold",
            f"a number from the diagnostics' background threshold {table.background_threshold:g} (the lowest overlap "
            f"they kept) up to the foreground threshold {table.thresholds[k]:g}",
            background_threshold,
        )
    code, target = classify_errors(table, protocol, k, background_threshold)
    fixes = _Fixes(table, protocol, k, code, target)
    ap, base = fixes.ap()
    fixed: dict[str, tuple[float, np.ndarray]] = {key: fixes.of(key) for key in [*ERRORS, *SPECIAL_ERRORS]}
    delta = {key: max(value - ap, 0.0) for key, (value, _) in fixed.items()}
    counts = {key: int((code == _CODE[key]).sum()) for key in ERRORS if key != "missed"}
    counts["missed"] = int(fixes.missed.sum())
    per_category = {
        category.item() if isinstance(category, np.generic) else category: {
            "AP": float(base[c]),
            **{key: float(max(values[c] - base[c], 0.0)) for key, (_, values) in fixed.items()},
        }
        for c, category in enumerate(table.category_ids.tolist())
    }
    errors = np.full(table.num_predictions, NO_ERROR, dtype=np.int8)
    errors[table.dt_row] = code
    return TideResult(
        float(table.thresholds[k]), float(background_threshold), ap, {key: value for key, (value, _) in fixed.items()},
        delta, counts, per_category, errors, np.flatnonzero(fixes.missed),
    )  # fmt: skip


class _Fixes:
    """The oracle fixes of one breakdown: which predictions each fix turns true, moves or removes."""

    def __init__(self, table: DetectionTable, protocol: Protocol, k: int, code: np.ndarray, target: np.ndarray):
        self.table, self.protocol, self.k, self.code = table, protocol, k, code
        outcome = table.outcome[:, k, 0]
        self.positives = np.bincount(
            table.gt_category, weights=table.gt_regular[:, 0], minlength=len(table.category_ids)
        ).astype(np.int64)
        pointing = target >= 0
        open_target = pointing & (table.found_by[k, np.maximum(target, 0)] < 0)
        # Per ground truth pointed at and not found, the error that fixes it: the highest score (ties: first row).
        candidates = np.flatnonzero(open_target)
        order = candidates[np.lexsort((candidates, -table.dt_score[candidates], target[candidates]))]
        first = order[np.r_[True, target[order][1:] != target[order][:-1]]] if len(order) else order
        self.fixer = np.zeros(len(code), dtype=bool)
        self.fixer[first] = True
        self.target = target
        usable = np.zeros(len(table.gt_image), dtype=bool)
        usable[target[open_target]] = True
        unfound = table.gt_regular[:, 0] & (table.found_by[k] < 0)
        self.missed = unfound & ~usable
        self.unfound = unfound
        self.outcome = outcome

    def ap(self) -> tuple[float, np.ndarray]:
        """The AP and per-category AP as evaluated."""
        return self._ap(np.ones(len(self.code), bool), self.outcome, self.table.dt_category, self.positives)

    def of(self, key: str) -> tuple[float, np.ndarray]:
        """The AP (and per category) with the errors `key` fixed."""
        table, outcome, category, positives = self.table, self.outcome, self.table.dt_category, self.positives
        keep = np.ones(len(self.code), dtype=bool)
        if key == "missed":
            positives = positives - np.bincount(table.gt_category[self.missed], minlength=len(positives))
        elif key == "false_negative":
            positives = positives - np.bincount(table.gt_category[self.unfound], minlength=len(positives))
        elif key == "false_positive":
            keep = outcome != FALSE_POSITIVE
        else:
            chosen = self.code == _CODE[key]
            fixed = chosen & self.fixer
            keep = ~chosen | fixed
            outcome = np.where(fixed, TRUE_POSITIVE, outcome).astype(np.uint8)
            category = np.where(fixed, table.gt_category[np.maximum(self.target, 0)], category)
        return self._ap(keep, outcome, category, positives)

    def _ap(
        self, keep: np.ndarray, outcome: np.ndarray, category: np.ndarray, positives: np.ndarray
    ) -> tuple[float, np.ndarray]:
        ranked = replace(Ranked.of(self.table, self.k), outcome=outcome, category=category)
        return self.protocol.ap_at(self.k, ranked.kept(keep), positives)
