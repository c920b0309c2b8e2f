"""``geoiou report GT PRED -o report.html``: an evaluation, its diagnostics and pictures as one HTML file."""

from __future__ import annotations

import argparse
import base64
import json
import mimetypes
import os
from pathlib import Path
from typing import Any, Callable

import numpy as np

from geoiou.cli.diagnose_outputs import add_diagnose_options, diagnose_inputs, diagnostics_document
from geoiou.cli.eval_command import add_evaluation_options, per_category_rows
from geoiou.cli.eval_inputs import EvaluationInputs, detect_format, load_inputs
from geoiou.cli.options import add_cluster_options, add_reader_options, check_outputs, json_text, write_outputs
from geoiou.errors import FormatError, InvalidArgumentError

__all__ = ["register", "report_document"]

#: Images drawn unless --worst says otherwise.
DEFAULT_WORST = 6
#: Picture suffixes a browser shows, embedded as data URIs.
PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff")


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``report`` subcommand to `commands`."""
    parser = commands.add_parser(
        "report",
        help="write an evaluation, its diagnostics and the worst images as one self-contained HTML page",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Evaluate PRED against GT as 'geoiou eval' does (same formats and options) and write one HTML "
        "file that needs no server and no network: the summary, the per-category table, precision-recall curves, "
        "TIDE's error breakdown, the confusion matrix, calibration, the best score threshold, slices of the "
        "images, the worst images drawn from their exact geometry, and candidate label errors.",
        epilog="examples:\n"
        "  geoiou report instances_val.json detections.json -o report.html --images val2017/\n"
        "  geoiou report labelTxt/ task1_a/ -o report.html --compare task1_b/\n"
        "  geoiou report gt.json results.json -o report.html --json report.json",
    )
    parser.add_argument("ground_truth", metavar="GT", help="ground-truth file or folder")
    parser.add_argument("predictions", metavar="PRED", help="predictions file or folder")
    parser.add_argument("-o", "--output", metavar="FILE", required=True, help="the HTML file to write")
    parser.add_argument("--json", metavar="FILE", help="also write every number of the page as JSON")
    parser.add_argument("--compare", metavar="PRED2", help="other predictions of GT: differences with intervals")
    parser.add_argument("--images", metavar="DIR", help="the pictures of the images, drawn under their objects")
    parser.add_argument(
        "--slices",
        metavar="FILE",
        help="a JSON file {name: [image ids]} of slices to evaluate apart (default: images by how many objects)",
    )
    parser.add_argument("--worst", metavar="N", type=int, default=DEFAULT_WORST, help="images drawn (default 6)")
    parser.add_argument("--resamples", metavar="N", type=int, default=1000, help="--compare: bootstrap resamples")
    parser.add_argument("--seed", type=int, default=0, help="--compare: the bootstrap's seed (default 0)")
    parser.add_argument("--title", default=None, help="the page's title")
    add_evaluation_options(parser)
    add_reader_options(parser)
    add_diagnose_options(parser)
    add_cluster_options(parser)
    parser.set_defaults(run=run, progress=None, proposals=False)


def run(arguments: argparse.Namespace) -> int:
    """Read, evaluate, diagnose and write the page (and the JSON); return the exit status."""
    check_outputs({"--output": arguments.output, "--json": arguments.json})
    for option in ("worst", "resamples"):
        if getattr(arguments, option) < 1:
            raise InvalidArgumentError(f"'--{option}' must be a positive number (got {getattr(arguments, option)})")
    if arguments.images and not os.path.isdir(arguments.images):
        raise InvalidArgumentError(f"'--images' must be a folder of pictures (got {arguments.images!r})")
    fmt = detect_format(arguments.ground_truth) if arguments.format == "auto" else arguments.format
    inputs = _read(fmt, arguments.ground_truth, arguments.predictions, arguments)
    second = _read(fmt, arguments.ground_truth, arguments.compare, arguments) if arguments.compare else None
    document, pictures = report_document(inputs, arguments, second)
    from geoiou.report.page import render

    title = arguments.title or f"geoiou report: {Path(arguments.predictions).name}"
    page = render(document, pictures, title)
    writers = [(arguments.output, _writer(page))]
    if arguments.json:
        writers.append((arguments.json, _writer(json_text(document))))
    write_outputs(writers)
    print("\n".join(f"wrote {path}" for path, _ in writers))
    return 0


def _writer(text: str) -> Callable[[str], None]:
    """What writes `text` to a path (`write_outputs` calls it with a temporary path)."""

    def write(path: str) -> None:
        Path(path).write_text(text, encoding="utf-8")

    return write


def _read(fmt: str, ground_truth: str, predictions: str, arguments: argparse.Namespace) -> EvaluationInputs:
    geometry = {"auto": "auto", "bbox": "bbox", "segm": "segmentation"}[arguments.iou_type]
    inputs = load_inputs(
        fmt,
        ground_truth,
        predictions,
        geometry=geometry,
        image_size=arguments.image_size,
        subset=arguments.subset,
        skip_invalid=arguments.skip_invalid,
        polygons=arguments.polygon_iou,
    )
    if len(inputs.ground_truth) == 0:
        raise FormatError(ground_truth, "", "the ground truth must hold at least one object (got none)")
    return inputs


def report_document(
    inputs: EvaluationInputs, arguments: argparse.Namespace, second: EvaluationInputs | None = None
) -> tuple[dict[str, Any], Any]:
    """The report's JSON document (every number the page shows) and its pictures."""
    from geoiou.diagnostics import compare
    from geoiou.report.figures import f_beta_chart, pr_chart, worst_pictures
    from geoiou.report.page import ReportPictures

    diagnostics = diagnose_inputs(inputs, arguments)
    result = diagnostics.result
    table = diagnostics.table
    document: dict[str, Any] = {
        "format": inputs.format,
        "geometry": inputs.geometry,
        "ground_truth": arguments.ground_truth,
        "predictions": arguments.predictions,
        "counts": {
            "images": len(table.image_ids),
            "ground_truths": len(table.gt_image),
            "predictions": table.num_predictions,
        },  # fmt: skip
        "names": {str(key): name for key, name in inputs.names.items()},
        "result": result.to_dict(),
        "per_category": per_category_rows(result, inputs.names),
        "diagnostics": diagnostics_document(diagnostics, arguments),
        "slices": _slices(diagnostics, arguments),
        "comparison": None,
    }
    if second is not None:
        other = diagnose_inputs(inputs, arguments, second.predictions)
        comparison = compare(diagnostics, other, resamples=arguments.resamples, seed=arguments.seed)
        document["comparison"] = comparison.to_dict()
        document["compared_with"] = arguments.compare
    chart, note = pr_chart(diagnostics, inputs.names)
    sizes = inputs.options.get("images") if isinstance(inputs.options.get("images"), dict) else None
    pictures = ReportPictures(
        chart,
        note,
        f_beta_chart(diagnostics),
        worst_pictures(
            diagnostics,
            inputs.ground_truth,
            inputs.predictions,
            inputs.names,
            count=arguments.worst,
            score_threshold=arguments.score_threshold,
            sizes=sizes,
            backgrounds=_backgrounds(arguments, inputs, table.image_ids) if arguments.images else None,
        ),
    )
    return document, pictures


def _slices(diagnostics: Any, arguments: argparse.Namespace) -> dict[str, Any]:
    """The slices of the page: those of --slices, or the images by how many objects they hold (thirds)."""
    table = diagnostics.table
    if arguments.slices:
        with open(arguments.slices, encoding="utf-8") as handle:
            named = json.load(handle)
        if not isinstance(named, dict):
            raise InvalidArgumentError(
                f"'--slices' must be a JSON object {{name: [image ids]}} (got {arguments.slices!r})"
            )
    else:
        named = _by_object_count(table)
    results = diagnostics.slices(named)
    return {
        name: {
            "images": int(result.num_images if hasattr(result, "num_images") else result.num_videos),
            "headline": diagnostics.headline(result),
        }  # fmt: skip
        for name, result in results.items()
    }


def _by_object_count(table: Any) -> dict[str, np.ndarray]:
    """All images, and the images in thirds by their number of ground truths (boolean masks over the images)."""
    counts = np.bincount(table.gt_image, minlength=len(table.image_ids))
    named: dict[str, np.ndarray] = {"all images": np.ones(len(counts), dtype=bool)}
    if len(counts) < 3:
        return named
    low, high = np.quantile(counts, [1 / 3, 2 / 3])
    for name, chosen in (
        (f"fewest objects (at most {low:g})", counts <= low),
        (f"more objects ({low:g} to {high:g})", (counts > low) & (counts <= high)),
        (f"most objects (over {high:g})", counts > high),
    ):
        if chosen.any():
            named[name] = chosen
    return named


def _backgrounds(arguments: argparse.Namespace, inputs: EvaluationInputs, image_ids: np.ndarray) -> dict[Any, str]:
    """The picture of each image found in --images, as a data URI: by COCO's file names, else by the file's stem."""
    folder = Path(arguments.images)
    files = {path.name: path for path in folder.iterdir() if path.suffix.lower() in PICTURE_SUFFIXES}
    by_stem = {path.stem: path for path in files.values()}
    names = _coco_file_names(arguments.ground_truth) if inputs.format == "coco" else {}
    found = {}
    for image in image_ids.tolist():
        path = files.get(names.get(image, "")) or by_stem.get(str(image))
        if path is not None:
            kind = mimetypes.guess_type(path.name)[0] or "image/png"
            found[image] = f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"
    return found


def _coco_file_names(path: str) -> dict[Any, str]:
    """COCO's ``file_name`` of each image id (the base name)."""
    with open(path, encoding="utf-8") as handle:
        images = json.load(handle).get("images", [])
    return {image["id"]: os.path.basename(str(image.get("file_name", ""))) for image in images if "id" in image}
