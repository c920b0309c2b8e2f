"""What ``geoiou eval --diagnose`` and ``geoiou report`` share: the diagnosed evaluation of read inputs, its text,
its JSON document and its CSV tables."""

from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path
from typing import Any, Literal

from geoiou.cli.eval_inputs import EvaluationInputs
from geoiou.cli.options import cluster_of
from geoiou.errors import InvalidArgumentError

__all__ = [
    "add_diagnose_options",
    "detection_state",
    "diagnose_inputs",
    "diagnostics_document",
    "diagnostics_text",
    "write_diagnostics_csv",
]

#: The protocol each detection format is usually reported with (DOTA's devkit: VOC 2007's 11 points).
DEFAULT_PROTOCOL = {"coco": "coco", "yolo": "coco", "dota": "voc"}
DEFAULT_INTERPOLATION: dict[str, Literal["all", "11point"]] = {"dota": "11point"}
#: Formats whose evaluation has per-object diagnostics.
DIAGNOSED_FORMATS = ("coco", "dota", "yolo", "activitynet", "thumos14")
#: Rows of the worst images and of the label errors printed (the JSON and CSV files hold all).
SHOWN = 5


def add_diagnose_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--background-threshold`` and ``--score-threshold``, the settings of the diagnostics."""
    parser.add_argument(
        "--background-threshold",
        type=float,
        default=0.1,
        metavar="B",
        help="diagnostics: TIDE's background threshold; overlaps below it are background (default 0.1)",
    )
    parser.add_argument(
        "--score-threshold",
        type=float,
        default=0.0,
        metavar="S",
        help="diagnostics: the score from which predictions count in the confusion matrix and per-image "
        "numbers (default 0: all)",
    )


def voc_settings(inputs: EvaluationInputs, arguments: argparse.Namespace) -> dict[str, Any]:
    """The VOC options of `inputs` and `arguments`: the threshold and the interpolation (DOTA's 11 points)."""
    interpolation: Literal["all", "11point"] = arguments.interpolation or DEFAULT_INTERPOLATION.get(
        inputs.format, "all"
    )
    threshold = 0.5 if arguments.iou_threshold is None else arguments.iou_threshold
    return {"iou_threshold": threshold, "interpolation": interpolation}


def temporal_thresholds(text: str) -> str | list[float]:
    """``--tiou-thresholds``: a name or a comma-separated list."""
    if text in ("activitynet", "thumos14"):
        return text
    try:
        return [float(part) for part in text.split(",")]
    except ValueError:
        raise InvalidArgumentError(
            f"'--tiou-thresholds' must be activitynet, thumos14 or numbers separated by commas (got {text!r})"
        ) from None


def detection_state(inputs: EvaluationInputs, arguments: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """The evaluation state of a detection format with the command's options, and the options of its ``update``."""
    from geoiou.evaluation import CocoEvaluation, TemporalDetectionEvaluation, VocEvaluation

    if inputs.format not in DIAGNOSED_FORMATS or getattr(arguments, "proposals", False):
        raise InvalidArgumentError(
            f"diagnostics need a detection evaluation of COCO, DOTA, YOLO, ActivityNet or THUMOS14 files "
            f"(got {'proposals' if getattr(arguments, 'proposals', False) else inputs.format})"
        )
    if inputs.format in ("activitynet", "thumos14"):
        default = "thumos14" if inputs.format == "thumos14" else "activitynet"
        thresholds = temporal_thresholds(arguments.tiou_thresholds or default)
        return TemporalDetectionEvaluation(tiou_thresholds=thresholds, show_progress=arguments.progress), {}
    options = dict(inputs.options)
    update = {"images": options.pop("images", None)}
    if (arguments.protocol or DEFAULT_PROTOCOL[inputs.format]) == "voc":
        categories = options.get("categories")
        return VocEvaluation(
            categories=categories, show_progress=arguments.progress, **voc_settings(inputs, arguments)
        ), update
    return CocoEvaluation(polygon_iou=arguments.polygon_iou, show_progress=arguments.progress, **options), update


def diagnose_inputs(inputs: EvaluationInputs, arguments: argparse.Namespace, predictions: Any = None) -> Any:
    """The `Diagnostics` of `inputs` (or of other `predictions` of the same ground truth), here or on the Dask
    cluster ``--workers`` or ``--scheduler`` asks for (the same result)."""
    from geoiou.diagnostics import DiagnosticsEvaluation

    state, update = detection_state(inputs, arguments)
    diagnosed = DiagnosticsEvaluation(state, background_threshold=arguments.background_threshold)
    chosen = inputs.predictions if predictions is None else predictions
    dask = cluster_of(arguments)
    if dask is None:
        return diagnosed.update(inputs.ground_truth, chosen, **update).compute()
    return dask.evaluate_split(
        diagnosed, inputs.ground_truth, chosen, workers=arguments.workers, scheduler=arguments.scheduler, **update
    )


def _name(names: dict[Any, str], category: Any) -> str:
    return names.get(category, str(category))


def diagnostics_text(diagnostics: Any, names: dict[Any, str], arguments: argparse.Namespace) -> str:
    """What ``--diagnose`` prints: TIDE's table, calibration, the best score threshold, worst images, label errors."""
    threshold = diagnostics.default_threshold()
    unit = "video" if diagnostics.table.protocol == "temporal" else "image"
    tide = diagnostics.tide(threshold, arguments.background_threshold)
    lines = [tide.summary(), ""]
    if diagnostics.scores_are_probabilities():
        calibration = diagnostics.calibration(threshold)
        lines.append(f"calibration at IoU {threshold:g}: ECE {calibration.ece:.4f}, MCE {calibration.mce:.4f}")
    best = diagnostics.f_beta(threshold).overall.best_values()
    if best["f"] is not None:
        lines.append(
            f"best score threshold (F1, all categories): {best['threshold']:.4g} "
            f"(precision {best['precision']:.3f}, recall {best['recall'] or 0:.3f}, F1 {best['f']:.3f})"
        )
    scores = diagnostics.per_image(threshold, arguments.score_threshold)
    worst = scores.worst(SHOWN)
    if worst:
        f1 = dict(zip(scores.image_ids.tolist(), scores.f1.tolist()))
        lines.append(f"worst {unit}s (F1): " + ", ".join(f"{image} ({f1[image]:.3f})" for image in worst))
    errors = diagnostics.label_errors(threshold, arguments.background_threshold, min_score=0.5).to_records()
    kinds = {
        kind: sum(record["kind"] == kind for record in errors) for kind in ("wrong category", "missing annotation")
    }
    lines.append(
        f"candidate label errors (score >= 0.5): {kinds['wrong category']} on another category's object, "
        f"{kinds['missing annotation']} on no object"
    )
    for record in errors[:SHOWN]:
        truth = "" if record["truth_row"] is None else f" on {_name(names, record['truth_category_id'])!r}"
        lines.append(
            f"  {unit} {record['image_id']}: {_name(names, record['category_id'])!r} score {record['score']:.3f}"
            f"{truth} (IoU {record['iou']:.3f}, prediction row {record['prediction_row']})"
        )
    return "\n".join(lines)


def diagnostics_document(diagnostics: Any, arguments: argparse.Namespace) -> dict[str, Any]:
    """The ``"diagnostics"`` entry of the JSON file."""
    document: dict[str, Any] = diagnostics.to_dict(
        background_threshold=arguments.background_threshold, score_threshold=arguments.score_threshold
    )
    return document


def _rows_of(diagnostics: Any, names: dict[Any, str], arguments: argparse.Namespace) -> dict[str, list[dict[str, Any]]]:
    """The CSV tables by file stem."""
    threshold = diagnostics.default_threshold()
    tide = diagnostics.tide(threshold, arguments.background_threshold)
    confusion = diagnostics.confusion_matrix(threshold, arguments.score_threshold)
    labels = [_name(names, category) for category in confusion.categories.tolist()] + ["background"]
    tables: dict[str, list[dict[str, Any]]] = {
        "tide": [
            {"error": key, "dAP": tide.delta_ap[key], "fixed_AP": tide.fixed_ap[key], "count": tide.counts.get(key, "")}
            for key in tide.delta_ap
        ],
        "tide_per_category": [
            {"category": category, "name": _name(names, category), **values}
            for category, values in tide.per_category.items()
        ],
        "confusion": [
            {"true \\ predicted": label, **dict(zip(labels, row))}
            for label, row in zip(labels, confusion.counts.tolist())
        ],
        "f_beta": [
            {"category": category, "name": _name(names, category), **values}
            for category, values in diagnostics.f_beta(threshold).best().items()
        ],
        "per_image": diagnostics.per_image(threshold, arguments.score_threshold).to_records(),
        "label_errors": diagnostics.label_errors(threshold, arguments.background_threshold).to_records(),
    }
    if diagnostics.scores_are_probabilities():
        tables["calibration"] = diagnostics.calibration(threshold).to_records()
    return tables


def write_diagnostics_csv(
    folder: str, diagnostics: Any, names: dict[Any, str], arguments: argparse.Namespace
) -> list[str]:
    """Write one CSV file per table into `folder` (made if missing); return their paths."""
    directory = Path(folder)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, rows in _rows_of(diagnostics, names, arguments).items():
        path = directory / f"{stem}.csv"
        with open(path, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else ["empty"])
            writer.writeheader()
            writer.writerows([{key: _cell(value) for key, value in row.items()} for row in rows])
        written.append(str(path))
    return written


def _cell(value: Any) -> Any:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else value
