"""The report's pictures from an evaluation: precision-recall curves, the F-beta curve, the worst images drawn.

Curves come from the evaluation's own numbers (COCO's interpolated precision per IoU threshold,
VOC's per category, the raw precision and recall of each class at the diagnostics' threshold for
temporal detection); the worst images from the exact geometry of their objects, each object
coloured by what the evaluation made of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from geoiou.diagnostics import Diagnostics
from geoiou.diagnostics.table import IGNORED, TRUE_POSITIVE
from geoiou.diagnostics.tide import BACKGROUND, BOTH, CLASSIFICATION, DUPLICATE, LOCALIZATION
from geoiou.evaluation import CocoResult, VocResult
from geoiou.report.charts import Series, curve_chart
from geoiou.report.drawings import Drawn, image_svg, outline_path, timeline_svg
from geoiou.report.page import Picture

__all__ = ["f_beta_chart", "pr_chart", "worst_pictures"]

#: Predictions drawn per image at most (the highest scores): a picture stays readable and the page small.
MOST_DRAWN = 200
ERROR_NAMES = {
    LOCALIZATION: "localization error",
    CLASSIFICATION: "classification error",
    DUPLICATE: "duplicate",
    BACKGROUND: "background error",
    BOTH: "classification and localization error",
}


def pr_chart(diagnostics: Diagnostics, names: Mapping[Any, str]) -> tuple[str, str]:
    """The precision-recall chart of an evaluation, and a note saying what it shows.

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations
    >>> found = diagnose(Annotations(image_id=7, category_id=3, region=geoiou.Box([[0, 0, 10, 10], [20, 0, 30, 10]])),
    ...                  Annotations(image_id=7, category_id=3, score=[0.5], region=geoiou.Box([[1, 0, 10, 10]])))
    >>> svg, note = pr_chart(found, {})
    >>> svg.count("<polyline"), note.startswith("COCO's interpolated precision")  # one curve per IoU threshold
    (10, True)
    """
    result = diagnostics.result
    if isinstance(result, CocoResult):
        valid = np.where(result.precision > -1, result.precision, np.nan)[:, :, :, 0, -1]  # [T, R, K]
        with np.errstate(invalid="ignore"):
            mean = np.nanmean(np.where(np.isnan(valid).all(axis=2, keepdims=True), 0, valid), axis=2)
        series = [
            Series(result.recall_thresholds, mean[t], f"IoU {threshold:.2f}", step=True)
            for t, threshold in enumerate(result.iou_thresholds)
        ]
        return curve_chart(series, "recall", "precision"), (
            "COCO's interpolated precision at its 101 recall points, averaged over the categories, one curve per "
            "IoU threshold (first area range, largest detection limit)."
        )
    if isinstance(result, VocResult):
        series = [
            Series(result.recall[k], np.maximum.accumulate(result.precision[k][::-1])[::-1], _label(names, category))
            for k, category in enumerate(result.categories.tolist())
            if not np.isnan(result.ap[k])
        ]
        return curve_chart(series, "recall", "precision"), (
            f"VOC's interpolated precision per category at IoU above {result.iou_threshold:g}."
        )
    threshold = diagnostics.default_threshold()
    curves = diagnostics.f_beta(threshold).curves
    series = [
        Series(curve.recall, curve.precision, _label(names, category))
        for category, curve in curves.items()
        if len(curve.threshold) and curve.positives
    ]
    return curve_chart(series, "recall", "precision"), (
        f"Precision and recall of each class as the score threshold falls, at tIoU {threshold:g}."
    )


def f_beta_chart(diagnostics: Diagnostics) -> str:
    """F1, precision and recall of all categories against the score threshold.

    Examples
    --------
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import TemporalDetectionEvaluation
    >>> found = diagnose({"v": [(0, 10, "jump")]}, {"v": [(1, 10, "jump", 0.8), (30, 40, "jump", 0.6)]},
    ...                  evaluation=TemporalDetectionEvaluation(tiou_thresholds=[0.5]))
    >>> f_beta_chart(found).count("<polyline")  # F1, precision and recall against the score threshold
    3
    """
    curve = diagnostics.f_beta(diagnostics.default_threshold()).overall
    x = curve.threshold
    series = [
        Series(x, curve.f, "F1", step=True),
        Series(x, curve.precision, "precision", step=True),
        Series(x, np.nan_to_num(curve.recall), "recall", step=True),
    ]
    return curve_chart(series, "score threshold", "F1, precision, recall")


def _label(names: Mapping[Any, str], category: Any) -> str:
    return str(names.get(category, category))


def _plain(value: Any) -> Any:
    """A NumPy scalar as the Python value that names and ids are keyed by."""
    return value.item() if isinstance(value, np.generic) else value


def worst_pictures(
    diagnostics: Diagnostics,
    truth: Any,
    predictions: Any,
    names: Mapping[Any, str],
    *,
    count: int,
    score_threshold: float = 0.0,
    sizes: Mapping[Any, tuple[int, int]] | None = None,
    backgrounds: Mapping[Any, str] | None = None,
) -> list[Picture]:
    """The `count` images of lowest F1 (then AP), each drawn with its ground truth and predictions.

    `truth` and `predictions` are the evaluation's inputs (`Annotations`, or `TemporalSegments` for
    temporal detection), whose rows the diagnostics number. `sizes` gives an image's ``(height,
    width)`` (else the drawing fits its objects), `backgrounds` a picture (a data URI) to draw on.


    Examples
    --------
    >>> import geoiou
    >>> from geoiou.diagnostics import diagnose
    >>> from geoiou.evaluation import Annotations
    >>> truth = Annotations(image_id=[1, 2], category_id=1, region=geoiou.Box([[0, 0, 10, 10], [20, 0, 30, 10]]))
    >>> preds = Annotations(image_id=[1, 2], category_id=1, score=[0.9, 0.8], region=geoiou.Box([[0, 0, 9, 9]] * 2))
    >>> [picture] = worst_pictures(diagnose(truth, preds), truth, preds, {}, count=1)
    >>> picture.image_id, picture.svg.count("<path")  # image 2: its object missed, its prediction false
    (2, 2)
    """
    table = diagnostics.table
    threshold = diagnostics.default_threshold()
    k = table.threshold_index(threshold, "iou_threshold")
    scores = diagnostics.per_image(threshold, score_threshold)
    errors = diagnostics.tide(threshold, table.background_threshold).errors
    index = {image: i for i, image in enumerate(table.image_ids.tolist())}
    pictures = []
    for image in scores.worst(count):
        i = index[image]
        objects = _truth_objects(diagnostics, k, i, names) + _predicted_objects(
            diagnostics, k, i, names, errors, score_threshold
        )
        rows = [row for row, _, _ in objects]
        svg = _svg(table.protocol, objects, truth, predictions, rows, image, sizes, backgrounds)
        pictures.append(Picture(image, svg, i))
    return pictures


def _truth_objects(diagnostics: Diagnostics, k: int, image: int, names: Mapping[Any, str]) -> list[tuple[Any, ...]]:
    """``(("truth", row), outcome, tooltip)`` of each ground truth of an image."""
    table = diagnostics.table
    rows = np.flatnonzero(table.gt_image == image)
    objects = []
    for row in rows.tolist():
        outcome = "ignored" if not table.gt_regular[row, 0] else "found" if table.found_by[k, row] >= 0 else "missed"
        category = _label(names, _plain(table.category_ids[table.gt_category[row]]))
        objects.append((("truth", row), outcome, f"ground truth {category} (row {row}): {outcome}"))
    return objects


def _predicted_objects(
    diagnostics: Diagnostics,
    k: int,
    image: int,
    names: Mapping[Any, str],
    errors: np.ndarray,
    score_threshold: float,
) -> list[tuple[Any, ...]]:
    """``(("prediction", row), outcome, tooltip)`` of an image's counted predictions, highest scores first."""
    table = diagnostics.table
    chosen = np.flatnonzero(
        (table.dt_image == image) & (table.outcome[:, k, 0] != IGNORED) & (table.dt_score >= score_threshold)
    )
    chosen = chosen[np.argsort(-table.dt_score[chosen], kind="stable")][:MOST_DRAWN]
    objects = []
    for d in chosen.tolist():
        row = int(table.dt_row[d])
        right = table.outcome[d, k, 0] == TRUE_POSITIVE
        outcome = "true positive" if right else "false positive"
        why = "" if right else f", {ERROR_NAMES.get(int(errors[row]), 'error')}"
        category = _label(names, _plain(table.category_ids[table.dt_category[d]]))
        tooltip = f"prediction {category} score {table.dt_score[d]:.3f} (row {row}): {outcome}{why}"
        objects.append((("prediction", row), outcome, tooltip))
    return objects


def _svg(
    protocol: str,
    objects: list[tuple[Any, ...]],
    truth: Any,
    predictions: Any,
    rows: Sequence[tuple[str, int]],
    image: Any,
    sizes: Mapping[Any, tuple[int, int]] | None,
    backgrounds: Mapping[Any, str] | None,
) -> str:
    """The drawing of one image's (or video's) objects from their exact geometry."""
    sides = {"truth": truth, "prediction": predictions}
    if protocol == "temporal":
        segments = [(float(sides[side].start[row]), float(sides[side].end[row])) for side, row in rows]
        drawn = [Drawn("", segment, outcome, tooltip) for segment, (_, outcome, tooltip) in zip(segments, objects)]
        starts = [a for a, _ in segments] or [0.0]
        ends = [b for _, b in segments] or [1.0]
        return timeline_svg(drawn, (min(starts), max(ends)))
    geometries = _geometries(sides, rows)
    drawn = [
        Drawn(outline_path(shape), None, outcome, tooltip) for shape, (_, outcome, tooltip) in zip(geometries, objects)
    ]
    return image_svg(drawn, _view(geometries, (sizes or {}).get(image)), (backgrounds or {}).get(image))


def _geometries(sides: Mapping[str, Any], rows: Sequence[tuple[str, int]]) -> list[Any]:
    """The exact shapely outline of each row, one `to_shapely` call per side and region batch."""
    shapes: list[Any] = [None] * len(rows)
    for side in ("truth", "prediction"):
        positions = [i for i, (name, _) in enumerate(rows) if name == side]
        if not positions:
            continue
        wanted = np.array([rows[i][1] for i in positions])
        order = np.argsort(wanted, kind="stable")  # `take` reads rows in increasing order
        taken = sides[side].take(wanted[order])
        outlines = [shape for batch in taken.regions for shape in np.atleast_1d(batch.to_shapely())]
        for place, shape in zip(order.tolist(), outlines):
            shapes[positions[place]] = shape
    return shapes


def _view(geometries: Sequence[Any], size: tuple[int, int] | None) -> tuple[float, float, float, float]:
    """The image's box when its size is known, else the objects' bounds with a margin."""
    if size is not None:
        return 0.0, 0.0, float(size[1]), float(size[0])
    import shapely

    bounds = np.array([shapely.bounds(shape) for shape in geometries if shape is not None and not shape.is_empty])
    if not len(bounds):
        return 0.0, 0.0, 1.0, 1.0
    x0, y0 = bounds[:, 0].min(), bounds[:, 1].min()
    x1, y1 = bounds[:, 2].max(), bounds[:, 3].max()
    margin = 0.05 * max(x1 - x0, y1 - y0, 1e-9)
    return x0 - margin, y0 - margin, x1 - x0 + 2 * margin, y1 - y0 + 2 * margin
