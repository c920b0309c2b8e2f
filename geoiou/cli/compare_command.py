"""``geoiou compare A B``: match two annotation sets one-to-one and report where they agree.

Each side is any source the readers know (COCO, DOTA, YOLO, GeoJSON, ActivityNet), detected on
its own, so the two may differ in format and in geometry: polygons against rotated boxes, masks
against polygons, all measured exactly. The table gives matched regions, regions only in A or
only in B, precision, recall, F1 and the IoU of the pairs, per category and overall, and the
images with the lowest F1; ``--picture DIR`` draws those images.
"""

from __future__ import annotations

import argparse
import csv
import functools
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from geoiou.cli.compare_inputs import Source, read_source
from geoiou.cli.eval_inputs import SOURCE_KINDS, detect_source
from geoiou.cli.options import (
    add_cluster_options,
    add_reader_options,
    check_outputs,
    cluster_of,
    json_text,
    pyplot_for_files,
    write_outputs,
)
from geoiou.errors import InvalidArgumentError

__all__ = ["register"]

#: Images drawn by --picture unless --pictures says otherwise.
DEFAULT_PICTURES = 6


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``compare`` subcommand to `commands`."""
    parser = commands.add_parser(
        "compare",
        help="match two annotation sets one-to-one and report their agreement (F1, IoU), with pictures",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Read two annotation sets of the same images, match their regions one-to-one within each image\n"
        "and category (IoU >= --min-iou) and print matched regions, regions only in A or only in B,\n"
        "precision (matched / B), recall (matched / A), F1 and the IoU of the pairs, per category and overall.\n"
        "F1 at IoU >= 0.5 is SpaceNet's building-footprint metric.\n\n"
        "  A and B: COCO instances or results JSON, a folder of DOTA label files or of Task1_<class>.txt\n"
        "  files, a folder of YOLO(-OBB) label files, a GeoJSON file (one scene), ActivityNet JSON.\n\n"
        "Each format is detected unless --format-a / --format-b give it. The two sides may hold different\n"
        "geometries (polygons against rotated boxes, masks against polygons): every IoU is exact.",
        epilog="examples:\n"
        "  geoiou compare annotator1/labelTxt annotator2/labelTxt --picture disagreements/\n"
        "  geoiou compare instances.json converted.json --method optimal --csv pairs.csv\n"
        "  geoiou compare surveyed.geojson predicted.geojson --json report.json",
    )
    parser.add_argument("a", metavar="A", help="the first annotation set (the reference of recall)")
    parser.add_argument("b", metavar="B", help="the second annotation set (the reference of precision)")
    parser.add_argument("--min-iou", type=float, default=0.5, help="the IoU a pair needs to match (default 0.5)")
    parser.add_argument(
        "--method",
        choices=("greedy", "optimal"),
        default="greedy",
        help="greedy: pairs by decreasing IoU; optimal: the largest summed IoU (default greedy)",
    )
    parser.add_argument(
        "--ignore-category",
        action="store_true",
        help="match regions of different categories too (and report which were matched together)",
    )
    parser.add_argument(
        "--format-a", choices=("auto", *SOURCE_KINDS), default="auto", help="format of A (default: auto)"
    )
    parser.add_argument(
        "--format-b", choices=("auto", *SOURCE_KINDS), default="auto", help="format of B (default: auto)"
    )
    parser.add_argument(
        "--geometry",
        choices=("auto", "bbox", "segm"),
        default="auto",
        help="COCO: compare boxes or segmentations (default: segmentations of instances, and what "
        "a results file holds)",
    )
    parser.add_argument(
        "--subset", default=None, help="ActivityNet: only this subset of a ground truth, e.g. validation"
    )
    parser.add_argument(
        "--category-property",
        metavar="NAME",
        default=None,
        help="GeoJSON: the feature property that holds the category (default: one category)",
    )
    parser.add_argument(
        "--labels",
        metavar="A,B",
        type=_labels,
        default=("A", "B"),
        help="names of the two sets in pictures (default: A,B)",
    )
    add_reader_options(parser)
    add_cluster_options(parser)
    parser.add_argument("--json", metavar="FILE", help="write the report and every pair as JSON")
    parser.add_argument("--csv", metavar="FILE", help="write one row per matched pair and per unmatched region as CSV")
    parser.add_argument(
        "--report-csv", metavar="FILE", help="write the report as CSV: overall, per category, per image"
    )
    parser.add_argument(
        "--picture", metavar="DIR", help="draw the images with the lowest F1 into DIR (needs matplotlib)"
    )
    parser.add_argument(
        "--pictures",
        metavar="N",
        type=int,
        default=DEFAULT_PICTURES,
        help=f"how many images --picture draws (default {DEFAULT_PICTURES})",
    )
    parser.set_defaults(run=run)


def _labels(text: str) -> tuple[str, str]:
    parts = text.split(",")
    if len(parts) != 2 or not all(parts):
        raise argparse.ArgumentTypeError(f"expected two names separated by a comma (got {text!r})")
    return parts[0], parts[1]


def run(arguments: argparse.Namespace) -> int:
    """Read both sides, compare them, print the report and write what was asked for; return the exit status."""
    from geoiou.evaluation import evaluate_agreement

    check_outputs(
        {"--json": arguments.json, "--csv": arguments.csv, "--report-csv": arguments.report_csv},
        {"--picture": arguments.picture},
    )
    if arguments.picture and arguments.pictures < 1:
        raise InvalidArgumentError(f"'--pictures' must be a positive number of images (got {arguments.pictures})")
    if arguments.picture:
        pyplot_for_files("--picture")  # matplotlib missing: say so before the work, not after
    geometry = {"auto": "auto", "bbox": "bbox", "segm": "segmentation"}[arguments.geometry]
    sources = []
    for path, kind, role in ((arguments.a, arguments.format_a, "A"), (arguments.b, arguments.format_b, "B")):
        kind = detect_source(path, role=role) if kind == "auto" else kind
        sources.append(
            read_source(
                path,
                kind,
                geometry=geometry,
                image_size=arguments.image_size,
                subset=arguments.subset,
                category_property=arguments.category_property,
                skip_invalid=arguments.skip_invalid,
            )
        )
    for source in sources:
        if source.report.skipped:
            print(source.report.summary(), file=sys.stderr)
    source_a, source_b = sources
    dask = cluster_of(arguments)
    compare = (
        evaluate_agreement
        if dask is None
        else functools.partial(dask.evaluate_agreement, workers=arguments.workers, scheduler=arguments.scheduler)
    )
    result = compare(
        source_a.table,
        source_b.table,
        min_iou=arguments.min_iou,
        method=arguments.method,
        ignore_category=arguments.ignore_category,
        images=source_a.images + source_b.images,
    )
    print(
        f"geoiou compare: A = {arguments.a}: {source_a.describe()}\n"
        f"                B = {arguments.b}: {source_b.describe()}\n"
    )
    print(result.summary(category_names={**source_b.names, **source_a.names}))
    writers: list[tuple[str, Callable[[str], None]]] = []
    if arguments.json:
        writers.append((arguments.json, lambda path: _write_json(path, arguments, sources, result)))
    if arguments.csv:
        writers.append((arguments.csv, lambda path: _write_pairs_csv(path, sources, result)))
    if arguments.report_csv:
        writers.append((arguments.report_csv, lambda path: _write_report_csv(path, result)))
    write_outputs(writers)  # all or none
    written = [path for path, _ in writers]
    if arguments.picture:
        written += [str(path) for path in _save_pictures(Path(arguments.picture), sources, result, arguments)]
    if written:
        print()
        print("\n".join(f"wrote {path}" for path in written))
    return 0


# --------------------------------------------------------------------------- outputs
def _write_json(path: str, arguments: argparse.Namespace, sources: list[Source], result: Any) -> None:
    document = {
        "a": {"source": arguments.a, "format": sources[0].kind, "regions": len(sources[0].table)},
        "b": {"source": arguments.b, "format": sources[1].kind, "regions": len(sources[1].table)},
        "result": result.to_dict(pairs=True),
        "skipped": {source.report.source: source.report.counts() for source in sources if source.report.skipped},
    }
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json_text(document, indent=1))


def _write_pairs_csv(path: str, sources: list[Source], result: Any) -> None:
    table = result.pairs_table()
    for side, source in zip("ab", sources):
        if source.row_ids is not None:  # the file's own ids (COCO annotations, GeoJSON features)
            rows = table[f"row_{side}"]
            table[f"id_{side}"] = np.where(rows >= 0, source.row_ids[np.maximum(rows, 0)], None) if len(rows) else rows
    columns = [
        name
        for name in ("image_id", "category_a", "category_b", "row_a", "row_b", "id_a", "id_b", "iou")
        if name in table
    ]
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows(zip(*(_csv_column(table[name]) for name in columns)))


def _csv_column(values: np.ndarray) -> list[Any]:
    """Cells of one column: None and NaN (the side a row lacks) as empty cells."""
    cells = values.tolist()
    return ["" if cell is None or (isinstance(cell, float) and cell != cell) else cell for cell in cells]


def _write_report_csv(path: str, result: Any) -> None:
    levels = [
        ("overall", {"all": result.overall()}),
        ("category", result.per_category()),
        ("image", result.per_image()),
    ]
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["level", "id", *result.overall()])
        for level, rows in levels:
            writer.writerows(
                [level, key, *("" if value != value else value for value in values.values())]
                for key, values in rows.items()
            )


# --------------------------------------------------------------------------- pictures
def _save_pictures(folder: Path, sources: list[Source], result: Any, arguments: argparse.Namespace) -> list[Path]:
    """Draw the images with the lowest F1, one PNG each, named by rank and image id."""
    plt = pyplot_for_files("--picture")
    from geoiou.plot import plot_matching

    if arguments.pictures < 1:
        raise InvalidArgumentError(f"'--pictures' must be a positive number of images (got {arguments.pictures})")
    folder.mkdir(parents=True, exist_ok=True)
    batches = [_batches(source.table) for source in sources]
    saved = []
    for rank, image in enumerate(result.worst_images(arguments.pictures), start=1):
        rows_a, rows_b, matching = result.image_matching(image)
        figure, axes = plt.subplots(figsize=(9, 7.5), layout="constrained")
        plot_matching(
            _take_rows(batches[0], rows_a), _take_rows(batches[1], rows_b), matching, ax=axes, labels=arguments.labels
        )
        axes.set_title(f"image {image}\n{axes.get_title()}")
        path = folder / f"{rank:02d}-{re.sub(r'[^A-Za-z0-9._-]+', '_', str(image))}.png"
        figure.savefig(path, dpi=100)
        plt.close(figure)
        saved.append(path)
    return saved


def _batches(table: Any) -> list[Any]:
    """The regions of a table, in row order."""
    from geoiou import Interval
    from geoiou.evaluation import TemporalSegments

    if isinstance(table, TemporalSegments):
        return [Interval(np.c_[table.start, table.end])]
    return list(table.regions)


def _take_rows(batches: list[Any], rows: np.ndarray) -> list[Any]:
    """The regions of sorted `rows` of a side made of `batches`, as batches in row order."""
    taken, start = [], 0
    for batch in batches:
        inside = rows[(rows >= start) & (rows < start + len(batch))]
        if len(inside):
            taken.append(batch[inside - start])
        start += len(batch)
    return taken
