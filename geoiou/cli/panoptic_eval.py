"""``geoiou eval`` on COCO panoptic files: panopticapi's PQ table, then PQ, SQ and RQ per category.

A COCO panoptic JSON is recognized by `geoiou.cli.eval_inputs` (its ``segments_info`` records, or
the folder of PNG maps beside it). ``--gt-folder`` and ``--pred-folder`` name other folders than
panopticapi's default (the JSON's path without ``.json``), as panopticapi's options do.
"""

from __future__ import annotations

import argparse
from typing import Any

from geoiou.cli.eval_command import _write_csv, _write_text
from geoiou.cli.options import check_outputs, json_text, write_outputs
from geoiou.errors import InvalidArgumentError

__all__ = ["panoptic_rows", "run_panoptic"]

#: Options of ``geoiou eval`` that a panoptic evaluation has no use for: (attribute, flag, unset value).
UNUSED = (
    ("diagnose", "--diagnose", False),
    ("pr_curve", "--pr-curve", None),
    ("picture", "--picture", None),
    ("workers", "--workers", None),
    ("scheduler", "--scheduler", None),
)


def run_panoptic(arguments: argparse.Namespace) -> int:
    """Read both panoptic files, evaluate PQ, print the tables and write what was asked for; the exit status."""
    from geoiou.evaluation import evaluate_panoptic
    from geoiou.io import read_coco_panoptic

    for name, flag, unset in UNUSED:
        if getattr(arguments, name, unset) not in (unset, None):
            raise InvalidArgumentError(f"'{flag}' must not be given for COCO panoptic files (PQ has no such output)")
    check_outputs({"--json": arguments.json, "--csv": arguments.csv}, {})
    truth = read_coco_panoptic(arguments.ground_truth, getattr(arguments, "gt_folder", None))
    found = read_coco_panoptic(arguments.predictions, getattr(arguments, "pred_folder", None))
    result = evaluate_panoptic(truth, found)
    names = {c["id"]: str(c.get("name", c["id"])) for c in truth.categories or []}
    rows = panoptic_rows(result, names)
    print(
        f"geoiou eval: COCO panoptic, {len(truth)} images, {len(truth.segment_id)} ground-truth segments, "
        f"{len(found.segment_id)} predicted segments\n"
    )
    print(result.summary())
    print()
    print(_table(rows, arguments.digits))
    writers = []
    if arguments.json:
        document = {
            "format": "coco-panoptic",
            "ground_truth": arguments.ground_truth,
            "predictions": arguments.predictions,
            "result": result.to_panopticapi(),
            "per_category": rows,
        }
        writers.append((arguments.json, lambda path: _write_text(path, json_text(document))))
    if arguments.csv:
        writers.append((arguments.csv, lambda path: _write_csv(path, rows)))
    write_outputs(writers)
    return 0


def panoptic_rows(result: Any, names: dict[Any, str]) -> list[dict[str, Any]]:
    """One row per category: name, thing or stuff, PQ, SQ, RQ (NaN where nothing was counted), TP, FP, FN.

    Examples
    --------
    >>> import numpy as np
    >>> from geoiou.evaluation import PanopticMaps, evaluate_panoptic
    >>> maps = PanopticMaps([1], [np.array([[1, 2]])], segment_image=[1, 1], segment_id=[1, 2], category_id=[1, 2])
    >>> panoptic_rows(evaluate_panoptic(maps, maps), {1: "car"})[0]
    {'category': 1, 'name': 'car', 'kind': '', 'PQ': 1.0, 'SQ': 1.0, 'RQ': 1.0, 'TP': 1, 'FP': 0, 'FN': 0}
    """
    kinds = [""] * len(result.categories) if result.is_thing is None else result.is_thing.tolist()
    rows = []
    for (category, scores), thing in zip(result.per_category().items(), kinds):
        rows.append(
            {
                "category": category,
                "name": names.get(category, str(category)),
                "kind": "" if thing == "" else "thing" if thing else "stuff",
                "PQ": scores["pq"],
                "SQ": scores["sq"],
                "RQ": scores["rq"],
                "TP": scores["tp"],
                "FP": scores["fp"],
                "FN": scores["fn"],
            }
        )
    return rows


def _table(rows: list[dict[str, Any]], digits: int) -> str:
    width = max([len("category"), *(len(row["name"]) for row in rows)])
    columns = ("kind", "PQ", "SQ", "RQ", "TP", "FP", "FN")
    cell = max(digits + 3, 5)
    lines = [f"{'category':<{width}} " + " ".join(f"{c:>{cell}}" for c in columns)]
    for row in rows:
        values = [row["kind"]] + [
            "nan" if row[c] != row[c] else f"{100 * row[c]:.{max(digits - 2, 1)}f}" for c in ("PQ", "SQ", "RQ")
        ]
        values += [str(row[c]) for c in ("TP", "FP", "FN")]
        lines.append(f"{row['name']:<{width}} " + " ".join(f"{v:>{cell}}" for v in values))
    return "\n".join(lines) + "\n(PQ, SQ and RQ in percent; nan: no segment of the category on either side)"
