"""``geoiou eval GT PRED``: run the evaluation that matches two annotation sources and print its table."""

from __future__ import annotations

import argparse
import csv
import math
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

from geoiou.cli.diagnose_outputs import (
    DEFAULT_PROTOCOL,
    add_diagnose_options,
    diagnose_inputs,
    diagnostics_document,
    diagnostics_text,
    temporal_thresholds,
    voc_settings,
    write_diagnostics_csv,
)
from geoiou.cli.eval_inputs import FORMATS, EvaluationInputs, detect_format, load_inputs
from geoiou.cli.options import (
    add_cluster_options,
    add_reader_options,
    check_outputs,
    cluster_of,
    json_text,
    pyplot_for_files,
    write_outputs,
)
from geoiou.errors import FormatError, InvalidArgumentError

__all__ = ["add_evaluation_options", "evaluate", "per_category_rows", "register"]

PROTOCOLS = ("coco", "voc")
#: Images drawn by --picture unless --pictures says otherwise.
DEFAULT_PICTURES = 6


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``eval`` subcommand to `commands`."""
    parser = commands.add_parser(
        "eval",
        help="evaluate predictions against ground truth (COCO, DOTA, YOLO, ActivityNet files)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Read a ground truth and predictions, run the evaluation that fits them and print its table.\n\n"
        "  format       GT                                  PRED                                 evaluation\n"
        "  coco         instances JSON                      results JSON                         COCO AP (bbox, segm)\n"
        "  dota         folder of DOTA label files          folder of Task1_<class>.txt files    VOC AP, 11 points\n"
        "  yolo         folder of YOLO(-OBB) label files    folder of label files with conf      COCO AP\n"
        "  kitti        folder of KITTI label_2 files       folder of KITTI result files         KITTI AP R40, R11\n"
        "  activitynet  ActivityNet JSON ('database')       ActivityNet JSON ('results')         temporal mAP\n"
        "  mstcn        MS-TCN groundTruth/ folder          folder of recognition files          Acc, Edit, F1@k\n"
        "  thumos14     folder of <Class>_val.txt files     ActivityNet JSON ('results')         temporal mAP\n"
        "  coco-panoptic  panoptic JSON + PNG folder         panoptic JSON + PNG folder           PQ, SQ, RQ\n\n"
        "The format is detected from GT unless --format is given. Overlaps are exact for every geometry:\n"
        "a polygon ground truth against mask predictions counts the exact covered area of each pixel.",
        epilog="examples:\n"
        "  geoiou eval instances_val.json detections.json --json result.json --csv per_class.csv\n"
        "  geoiou eval instances_val.json detections.json --diagnose --diagnose-csv diagnostics/\n"
        "  geoiou eval labelTxt/ task1_results/ --pr-curve pr.png\n"
        "  geoiou eval gt.json results.json --subset validation",
    )
    parser.add_argument("ground_truth", metavar="GT", help="ground-truth file or folder")
    parser.add_argument("predictions", metavar="PRED", help="predictions file or folder")
    add_evaluation_options(parser)
    parser.add_argument(
        "--proposals",
        action="store_true",
        help="activitynet: the predictions are proposals (no labels): AR@AN and AUC, as ActivityNet's proposal task",
    )
    parser.add_argument(
        "--mstcn-2019",
        action="store_true",
        help="mstcn: cut segments as the 2019 MS-TCN script did, to reproduce published numbers",
    )
    parser.add_argument(
        "--gt-folder", metavar="DIR", help="coco-panoptic: the ground truth's PNG maps (default: GT without .json)"
    )
    parser.add_argument(
        "--pred-folder", metavar="DIR", help="coco-panoptic: the predictions' PNG maps (default: PRED without .json)"
    )
    add_reader_options(parser)
    add_cluster_options(parser)
    parser.add_argument(
        "--digits",
        type=int,
        default=4,
        choices=range(1, 18),
        metavar="N",
        help="decimals of the per-category table, COCO's and VOC/DOTA's (default 4; the JSON and CSV "
        "files keep every digit)",
    )
    parser.add_argument(
        "--diagnose",
        action="store_true",
        help="detection: also print why predictions fail (TIDE's errors and the AP each costs, calibration, "
        "the best score threshold, the worst images, candidate label errors); --json then holds every diagnostic",
    )
    parser.add_argument(
        "--diagnose-csv",
        metavar="DIR",
        help="with --diagnose: write the diagnostics as CSV tables into DIR (tide, confusion, calibration, f_beta, "
        "per_image, label_errors)",
    )
    add_diagnose_options(parser)
    parser.add_argument("--json", metavar="FILE", help="write the result as JSON")
    parser.add_argument("--csv", metavar="FILE", help="write one row per category as CSV")
    parser.add_argument("--pr-curve", metavar="FILE", help="save a precision-recall picture (needs matplotlib)")
    parser.add_argument(
        "--picture",
        metavar="DIR",
        help="voc/dota: draw the images with the lowest F1 into DIR, "
        "ground truth against predictions (needs matplotlib)",
    )
    parser.add_argument(
        "--pictures",
        metavar="N",
        type=int,
        default=DEFAULT_PICTURES,
        help=f"how many images --picture draws (default {DEFAULT_PICTURES})",
    )
    progress = parser.add_mutually_exclusive_group()
    progress.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="always draw a progress bar (default: only when stderr is a terminal)",
    )
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="never draw a progress bar")
    parser.set_defaults(run=run)


def add_evaluation_options(parser: argparse.ArgumentParser) -> None:
    """Add the options that choose and set up the evaluation (``geoiou eval`` and ``geoiou report``)."""
    parser.add_argument("--format", choices=("auto", *FORMATS), default="auto", help="input format (default: auto)")
    parser.add_argument(
        "--iou-type",
        choices=("auto", "bbox", "segm"),
        default="auto",
        help="COCO: compare boxes or segmentations (default: what the results file holds)",
    )
    parser.add_argument(
        "--protocol",
        choices=PROTOCOLS,
        default=None,
        help="detection protocol (default: coco for COCO and YOLO, voc for DOTA)",
    )
    parser.add_argument(
        "--iou-threshold", type=float, default=None, help="voc: the IoU a match must exceed (default 0.5)"
    )
    parser.add_argument(
        "--interpolation",
        choices=("all", "11point"),
        default=None,
        help="voc: all-point or 11-point AP (default: 11point for DOTA, all otherwise)",
    )
    parser.add_argument(
        "--polygon-iou",
        choices=("exact", "pycocotools"),
        default="exact",
        help="coco segm: exact polygon overlaps, or rasterize polygons as pycocotools does (for official COCO numbers)",
    )
    parser.add_argument(
        "--subset",
        default=None,
        help="activitynet: evaluate only this subset of the ground truth, or 'all'; by default "
        "'validation' when the file has several subsets, as ActivityNet's evaluation does",
    )
    parser.add_argument(
        "--tiou-thresholds",
        default=None,
        help="activitynet, thumos14: 'activitynet' (0.5:0.95, ActivityNet's default), 'thumos14' "
        "(0.3:0.7, THUMOS14's default) or a comma-separated list",
    )


def run(arguments: argparse.Namespace) -> int:
    """Read, evaluate, print and write what was asked for; return the exit status."""
    from geoiou.evaluation import TemporalProposalResult, VocResult

    check_outputs(
        {"--json": arguments.json, "--csv": arguments.csv, "--pr-curve": arguments.pr_curve},
        {"--picture": arguments.picture, "--diagnose-csv": arguments.diagnose_csv},
    )
    if arguments.diagnose_csv and not arguments.diagnose:
        raise InvalidArgumentError("'--diagnose-csv' must be used with '--diagnose'")
    if arguments.picture:
        if arguments.pictures < 1:
            raise InvalidArgumentError(f"'--pictures' must be a positive number of images (got {arguments.pictures})")
        pyplot_for_files("--picture")  # matplotlib missing: say so before the work, not after
    fmt = detect_format(arguments.ground_truth) if arguments.format == "auto" else arguments.format
    if fmt == "coco-panoptic":
        from geoiou.cli.panoptic_eval import run_panoptic  # imports this module's writers

        return run_panoptic(arguments)
    protocol = (
        fmt if fmt in ("activitynet", "mstcn", "thumos14", "kitti") else arguments.protocol or DEFAULT_PROTOCOL[fmt]
    )
    if arguments.pr_curve and protocol == "mstcn":
        raise InvalidArgumentError(
            "'--pr-curve' must be used with a detection evaluation (got MS-TCN frame labels, "
            "which have no precision-recall curve)"
        )
    if arguments.picture and protocol != "voc":
        raise InvalidArgumentError(
            f"'--picture' must be used with a VOC evaluation (DOTA, or --protocol voc), which "
            f"has per-image results (got the {protocol} evaluation of {fmt} files)"
        )
    geometry = {"auto": "auto", "bbox": "bbox", "segm": "segmentation"}[arguments.iou_type]
    inputs = load_inputs(
        fmt,
        arguments.ground_truth,
        arguments.predictions,
        geometry=geometry,
        image_size=arguments.image_size,
        subset=arguments.subset,
        skip_invalid=arguments.skip_invalid,
        polygons=arguments.polygon_iou,
        proposals=arguments.proposals,
    )
    for note in [*inputs.notes, *_ignored_options(inputs, arguments)]:
        print(note, file=sys.stderr)
    for report in inputs.reports:
        if report.skipped:
            print(report.summary(), file=sys.stderr)
    _require_something_left(inputs)
    if inputs.format == "kitti":
        return _run_kitti(arguments, inputs)
    diagnostics = diagnose_inputs(inputs, arguments) if arguments.diagnose else None
    result = evaluate(inputs, arguments) if diagnostics is None else diagnostics.result
    rows = per_category_rows(result, inputs.names)
    print(_header(inputs, arguments))
    print(result.summary(digits=arguments.digits) if isinstance(result, VocResult) else result.summary())
    if not isinstance(result, (VocResult, TemporalProposalResult)):  # summaries that are the table already
        print()
        print(_table(rows, arguments.digits, "video" if inputs.format == "mstcn" else "category"))
    if diagnostics is not None:
        print()
        print(diagnostics_text(diagnostics, inputs.names, arguments))
    _write_outputs(arguments, inputs, result, rows, diagnostics)
    return 0


def _run_kitti(arguments: argparse.Namespace, inputs: EvaluationInputs) -> int:
    """KITTI's evaluation (`geoiou.evaluation.evaluate_kitti`): its printout, and ``--json`` / ``--csv`` of the APs."""
    from geoiou.evaluation import evaluate_kitti

    asked = [name for name, value in (("--diagnose", arguments.diagnose), ("--pr-curve", arguments.pr_curve)) if value]
    if asked:
        raise InvalidArgumentError(f"'{asked[0]}' must not be used with KITTI files (the KITTI protocol has none)")
    result = evaluate_kitti(inputs.ground_truth, inputs.predictions)
    print(f"KITTI object detection: {result.num_images} images; AP in percent (easy, moderate, hard)")
    print(result.summary())
    rows = [
        {"metric": key.split("/")[0], "class": key.split("/")[1], "difficulty": key.split("/")[2],
         "points": key.split("/")[3], "ap": value}
        for key, value in result.to_dict()["ap"].items()
    ]  # fmt: skip
    _write_outputs(arguments, inputs, result, rows)
    return 0


def _require_something_left(inputs: EvaluationInputs) -> None:
    """Refuse a side that --skip-invalid emptied: the evaluation's own complaint would be about a missing column."""
    for side, table, report in (
        ("ground truth", inputs.ground_truth, inputs.reports[0]),
        ("predictions", inputs.predictions, inputs.reports[-1]),
    ):
        if len(table) == 0 and report.skipped:
            raise FormatError(
                report.source,
                "",
                f"the {side} must keep at least one valid record (got none: "
                f"--skip-invalid skipped all {len(report.skipped)}, for the reasons "
                "above)",
            )


def evaluate(inputs: EvaluationInputs, arguments: argparse.Namespace) -> Any:
    """Run the evaluation of `inputs` with the options of `arguments` (on a Dask cluster if one is asked for)."""
    from geoiou import evaluation

    dask = cluster_of(arguments)
    if inputs.format == "mstcn":
        if dask is not None:
            raise InvalidArgumentError(
                "'--workers' and '--scheduler' must not be given for MS-TCN files (their "
                "evaluation runs here: frame labels are quick to compare)"
            )
        return evaluation.evaluate_action_segmentation(
            inputs.ground_truth,
            inputs.predictions,
            mstcn_2019_compat=arguments.mstcn_2019,
            show_progress=arguments.progress,
        )
    cluster = {} if dask is None else {"workers": arguments.workers, "scheduler": arguments.scheduler}
    here = {"show_progress": arguments.progress} if dask is None else {}
    functions = evaluation if dask is None else dask
    if arguments.proposals:
        if dask is not None:
            raise InvalidArgumentError(
                "'--workers' and '--scheduler' must not be given with '--proposals' (the proposal evaluation runs here)"
            )
        return evaluation.evaluate_temporal_proposals(
            inputs.ground_truth,
            inputs.predictions,
            tiou_thresholds=temporal_thresholds(arguments.tiou_thresholds or "activitynet"),
        )
    if inputs.format in ("activitynet", "thumos14"):
        thresholds = arguments.tiou_thresholds or ("thumos14" if inputs.format == "thumos14" else "activitynet")
        return functions.evaluate_temporal_detection(
            inputs.ground_truth, inputs.predictions, tiou_thresholds=temporal_thresholds(thresholds), **here, **cluster
        )
    protocol = arguments.protocol or DEFAULT_PROTOCOL[inputs.format]
    if protocol == "voc":
        options = {key: value for key, value in inputs.options.items() if key in ("images", "categories")}
        return functions.evaluate_voc(
            inputs.ground_truth,
            inputs.predictions,
            **voc_settings(inputs, arguments),
            **options,
            **here,
            **cluster,
        )
    return functions.evaluate_coco(
        inputs.ground_truth, inputs.predictions, polygon_iou=arguments.polygon_iou, **inputs.options, **here, **cluster
    )


def _ignored_options(inputs: EvaluationInputs, arguments: argparse.Namespace) -> list[str]:
    """Warnings for options the evaluation that runs does not use (the number printed would not reflect them)."""
    if inputs.format in ("activitynet", "mstcn", "thumos14", "kitti"):
        protocol = inputs.format
    else:
        protocol = arguments.protocol or DEFAULT_PROTOCOL[inputs.format]
    unused = {"--iou-threshold": arguments.iou_threshold, "--interpolation": arguments.interpolation}
    if protocol == "voc":
        return []
    given = [option for option, value in unused.items() if value is not None]
    if not given:
        return []
    instead = {
        "coco": "COCO's AP averages IoU 0.50:0.95 with 101-point interpolation; --protocol voc uses them",
        "activitynet": "--tiou-thresholds sets the thresholds",
        "thumos14": "--tiou-thresholds sets the thresholds",
        "kitti": "KITTI's thresholds are 0.7 for cars, 0.5 for pedestrians and cyclists, with 41 recall points",
    }.get(protocol, "F1@k uses MS-TCN's overlaps 0.10, 0.25 and 0.50")
    return [
        f"warning: {' and '.join(given)} {'are' if len(given) > 1 else 'is'} not used by the {protocol} evaluation "
        f"and ignored ({instead})"
    ]


def per_category_rows(result: Any, names: dict[Any, str]) -> list[dict[str, Any]]:
    """One row per category (class) of an evaluation result, with its name where known.

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.evaluation import Annotations, evaluate_voc
    >>> truth = Annotations(image_id=["a"], category_id=[3], region=geoiou.Box([[0, 0, 10, 10]]))
    >>> preds = Annotations(image_id=["a"], category_id=[3], region=geoiou.Box([[0, 0, 10, 8]]), score=[0.9])
    >>> per_category_rows(evaluate_voc(truth, preds), {3: "ship"})
    [{'category': 3, 'name': 'ship', 'AP': 1.0, 'recall': 1.0, 'num_ground_truths': 1, 'num_detections': 1}]
    """
    if hasattr(result, "average_recall"):  # proposals: AR at each number of proposals per video, no categories
        return [
            {
                "category": "all",
                "name": "all",
                **{
                    f"AR@{int(round(an))}": float(ar)
                    for an, ar in zip(result.proposals_per_video, result.average_recall)
                    if abs(an - round(an)) < 1e-9 and round(an) in (1, 5, 10, 100)
                },
                "AUC": result.auc,
            }
        ]
    if hasattr(result, "per_video"):  # action segmentation: accuracy and edit per video
        return [{"category": video, "name": str(video), **values} for video, values in result.per_video().items()]
    if hasattr(result, "ap_per_class"):  # temporal detection: AP per class at each tIoU threshold
        thresholds = [f"AP@{t:.2f}" for t in result.tiou_thresholds]
        return [
            {
                "category": label,
                "name": str(label),
                "AP": float(values.mean()),
                **dict(zip(thresholds, values.tolist())),
            }
            for label, values in result.ap_per_class().items()
        ]
    return [
        {"category": category, "name": names.get(category, str(category)), **values}
        for category, values in result.per_category().items()
    ]


def _header(inputs: EvaluationInputs, arguments: argparse.Namespace) -> str:
    counts = f"{len(inputs.ground_truth)} ground truths, {len(inputs.predictions)} predictions"
    if inputs.format == "mstcn":
        counts = f"{len(inputs.ground_truth)} videos, {sum(map(len, inputs.ground_truth.values()))} frames"
    geometry = inputs.geometry
    if inputs.format == "coco" and geometry == "segmentation":
        # The exact default differs from pycocotools' numbers on small objects: say which model was used.
        geometry += (
            ", polygons rasterized as pycocotools does"
            if arguments.polygon_iou == "pycocotools"
            else ", exact polygons; --polygon-iou pycocotools for pycocotools' raster"
        )
    return f"geoiou eval: {inputs.format} ({geometry}), {counts}\n"


def _table(rows: list[dict[str, Any]], digits: int = 4, heading: str = "category") -> str:
    if not rows:
        return "(no categories)"
    columns = [key for key in rows[0] if key not in ("category", "name")]
    width = max(len(heading), *(len(row["name"]) for row in rows))
    lines = [f"{heading:<{width}} " + " ".join(f"{c:>{max(len(c), digits + 4)}}" for c in columns)]
    for row in rows:
        lines.append(
            f"{row['name']:<{width}} "
            + " ".join(f"{_cell(row[c], digits):>{max(len(c), digits + 4)}}" for c in columns)
        )
    return "\n".join(lines)


def _cell(value: Any, digits: int) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def _write_outputs(
    arguments: argparse.Namespace,
    inputs: EvaluationInputs,
    result: Any,
    rows: list[dict[str, Any]],
    diagnostics: Any = None,
) -> None:
    """Write the files asked for, all or none (see `write_outputs`)."""
    writers = []
    if arguments.json:
        document = {
            "format": inputs.format,
            "geometry": inputs.geometry,
            "ground_truth": arguments.ground_truth,
            "predictions": arguments.predictions,
            "result": result.to_dict(),
            "skipped": {report.source: report.counts() for report in inputs.reports if report.skipped},
        }
        if diagnostics is not None:
            document["diagnostics"] = diagnostics_document(diagnostics, arguments)
        writers.append((arguments.json, lambda path: _write_text(path, json_text(document))))
    if arguments.csv:
        writers.append((arguments.csv, lambda path: _write_csv(path, rows)))
    if arguments.pr_curve:
        writers.append((arguments.pr_curve, lambda path: _save_curve(path, result, inputs)))
    write_outputs(writers)
    written = [path for path, _ in writers]
    if arguments.picture:
        written += _save_pictures(arguments, inputs, result)
    if diagnostics is not None and arguments.diagnose_csv:
        written += write_diagnostics_csv(arguments.diagnose_csv, diagnostics, inputs.names, arguments)
    if written:
        print()
        print("\n".join(f"wrote {path}" for path in written))


def _write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def _write_csv(path: str, rows: list[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else ["category"])
        writer.writeheader()
        writer.writerows(rows)


def _save_pictures(arguments: argparse.Namespace, inputs: EvaluationInputs, result: Any) -> list[str]:
    """Draw the images with the lowest F1 (`VocResult.worst_images`), ground truth against predictions."""
    plt = pyplot_for_files("--picture")
    from geoiou.plot import plot_matching

    folder = Path(arguments.picture)
    folder.mkdir(parents=True, exist_ok=True)
    saved = []
    for rank, image in enumerate(result.worst_images(arguments.pictures), start=1):
        truth = inputs.ground_truth.take(np.flatnonzero(inputs.ground_truth.image_id == image))
        predicted = inputs.predictions.take(np.flatnonzero(inputs.predictions.image_id == image))
        figure, axes = plt.subplots(figsize=(9, 7.5), layout="constrained")
        plot_matching(
            list(truth.regions),
            list(predicted.regions),
            min_iou=result.iou_threshold,
            ax=axes,
            labels=("ground truth", "predictions"),
        )
        values = result.per_image()[image]
        axes.set_title(
            f"image {image}: F1 {values['f1']:.3f} within categories at IoU > {result.iou_threshold:g} "
            f"({values['true_positives']} found, {values['missed']} missed, "
            f"{values['false_positives']} false)\ndrawn matched across categories: {axes.get_title()}"
        )
        path = folder / f"{rank:02d}-{re.sub(r'[^A-Za-z0-9._-]+', '_', str(image))}.png"
        figure.savefig(path, dpi=100)
        plt.close(figure)
        saved.append(str(path))
    return saved


def _save_curve(path: str, result: Any, inputs: EvaluationInputs) -> None:
    plt = pyplot_for_files("--pr-curve")
    from geoiou.plot import plot_pr_curve, plot_threshold_curve

    figure, axes = plt.subplots(figsize=(6, 4.5))
    if inputs.format in ("activitynet", "thumos14"):
        plot_threshold_curve(result, ax=axes)
    else:
        plot_pr_curve(result, ax=axes)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
