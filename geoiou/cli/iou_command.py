"""``geoiou iou A B``: IoU, GIoU, intersection and union of regions written as literals or read from files."""

from __future__ import annotations

import argparse
import math
import os
import re
from typing import Any, Literal

import numpy as np

import geoiou
from geoiou.cli.options import json_text
from geoiou.errors import FormatError
from geoiou.io.literals import LITERAL_KINDS, parse_region
from geoiou.metrics import default_enclosure
from geoiou.regions import Region

__all__ = ["measure_pairs", "read_regions", "register"]

#: Reader of each file suffix; a file holds one region or many (every pair is measured).
FILE_KINDS = {
    ".wkt": "one WKT polygon per line",
    ".geojson": "GeoJSON features (also .json with a GeoJSON 'type')",
    ".txt": "DOTA label file (8 corner coordinates, class, difficult)",
    ".png": "binary mask image (0 and 1, or 0 and 255; also .jpg, .tif, .bmp)",
}
#: Significant digits of printed numbers: enough to compare results by eye (--json and --digits 17 give all).
DEFAULT_DIGITS = 6
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp")
COLUMNS = ("IoU", "GIoU", "intersection", "union")
ENCLOSURE_NAMES = {"box": "enclosing box", "hull": "convex hull of the union", "interval": "enclosing interval"}


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``iou`` subcommand to `commands`."""
    literals = "\n".join(f"  {name}:{form}" for name, (form, _) in LITERAL_KINDS.items())
    files = "\n".join(f"  *{suffix:<9} {what}" for suffix, what in FILE_KINDS.items())
    parser = commands.add_parser(
        "iou",
        help="measure the overlap of two regions (literals or files)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Print the IoU, GIoU, intersection and union of A and B, exactly, for any two kinds.\n"
        "A region is a literal:\n" + literals + "\n  mask:image.png\n  'POLYGON ((0 0, 4 0, 0 3, 0 0))'  (WKT)\n"
        "or a file, read by its suffix:\n" + files + "\n"
        "When a file holds several regions, every pair (a, b) is measured and printed as a table.",
        epilog="examples:\n  geoiou iou box:0,0,10,10 rbox:5,5,10,10,45\n"
        "  geoiou iou poly:0,0,4,0,0,3 'POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))'\n"
        "  geoiou iou interval:0,10 interval:5,20\n  geoiou iou labels.txt labels.txt --json",
    )
    parser.add_argument("a", metavar="A", help="first region: a literal or a file")
    parser.add_argument("b", metavar="B", help="second region: a literal or a file")
    parser.add_argument(
        "--enclosure",
        choices=("box", "hull"),
        default=None,
        help="GIoU's enclosing region C (default: box for Box x Box and intervals, hull otherwise)",
    )
    parser.add_argument(
        "--repair",
        action="store_true",
        help="repair invalid polygons (self-intersecting rings) with shapely.make_valid instead of failing",
    )
    parser.add_argument(
        "--all-pairs",
        action="store_true",
        help="with several regions, list disjoint pairs too (by default only overlapping pairs)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table (numbers in full)")
    parser.add_argument(
        "--digits",
        type=_digits,
        default=DEFAULT_DIGITS,
        help=f"significant digits of the numbers printed (default {DEFAULT_DIGITS}; 17 shows every float in full)",
    )
    parser.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """Measure and print; return the exit status."""
    try:
        a = read_regions(arguments.a, repair=arguments.repair, param="A")
        b = read_regions(arguments.b, repair=arguments.repair, param="B")
    except FormatError as error:
        # The library's advice names its keyword; on the command line the same choice is a flag.
        raise FormatError(error.source, error.location, error.reason.replace("repair=True", "--repair")) from None
    rows = measure_pairs(a, b, enclosure=arguments.enclosure, all_pairs=arguments.all_pairs)
    single = a.shape == () and b.shape == ()
    if arguments.json:
        print(json_text(rows[0] if single else rows))  # NaN (two empty regions) as null: valid JSON
    elif single:
        print(_single_table(rows[0], arguments.digits))
    else:
        print(_pair_table(rows, len(a.reshape(-1)), len(b.reshape(-1)), arguments.all_pairs, arguments.digits))
    return 0


def read_regions(text: str, *, repair: bool = False, param: str = "region") -> Region:
    """One region from a literal, or the regions of a file (a batch of shape (N,)).

    Examples
    --------
    >>> read_regions("interval:0,10")
    Interval(0, 10)
    """
    if os.path.isfile(text):
        return _read_file(text, repair)
    try:
        return parse_region(text, repair=repair)
    except FormatError:
        # A bare path that is not there; a literal such as mask:scene.png says itself what is wrong.
        literal = re.match(r"[a-z]+:", text) is not None and not os.path.splitdrive(text)[0]
        if not literal and os.path.splitext(text)[1].lower() in (*FILE_KINDS, *IMAGE_SUFFIXES, ".json"):
            raise FormatError(text, "", f"no such file (given as {param})") from None
        raise


def _read_file(path: str, repair: bool) -> Region:
    suffix = os.path.splitext(path)[1].lower()
    if suffix in IMAGE_SUFFIXES:
        return parse_region(f"mask:{path}")
    if suffix == ".wkt":
        from geoiou.io.geo import read_wkt

        return read_wkt(path, repair=repair).regions
    if suffix in (".geojson", ".json"):
        from geoiou.io.geo import read_geojson

        return read_geojson(path, repair=repair).regions
    if suffix == ".txt":
        from geoiou.io.dota import read_dota

        return read_dota(path).polygons
    known = ", ".join((*FILE_KINDS, ".json"))
    raise FormatError(path, "", f"cannot tell the format from the suffix {suffix!r}: expected one of {known}")


def measure_pairs(
    a: Region, b: Region, *, enclosure: Literal["box", "hull"] | None = None, all_pairs: bool = False
) -> list[dict[str, Any]]:
    """IoU, GIoU, intersection, union and the enclosure's measure of every pair (a[i], b[j]).

    Pairs that do not overlap are left out unless `all_pairs` (or both sides are single regions).

    Examples
    --------
    >>> measure_pairs(geoiou.Box([0, 0, 2, 2]), geoiou.Box([1, 0, 3, 2]))
    [{'a': 0, 'b': 0, 'IoU': 0.3333333333333333, 'GIoU': 0.3333333333333333, 'intersection': 2.0, 'union': 6.0,
      'enclosure': 6.0, 'enclosure_kind': 'box'}]
    """
    rows_a, rows_b = a.reshape(-1), b.reshape(-1)
    intersection = geoiou.pairwise_intersection_area(rows_a, rows_b)
    keep = np.ones_like(intersection, dtype=bool) if all_pairs or a.shape == b.shape == () else intersection > 0
    i, j = np.nonzero(keep)
    first, second = rows_a[i], rows_b[j]
    overlap = np.atleast_1d(geoiou.iou(first, second))
    generalized = np.atleast_1d(geoiou.giou(first, second, enclosure=enclosure))
    union = np.atleast_1d(geoiou.union_area(first, second))
    enclosing = np.atleast_1d(geoiou.enclosure_area(first, second, enclosure=enclosure))
    # A 1-D "box" is the enclosing interval.
    kind = "interval" if a.ndim == 1 else (enclosure or default_enclosure(rows_a, rows_b))
    return [
        {
            "a": int(i[k]),
            "b": int(j[k]),
            "IoU": float(overlap[k]),
            "GIoU": float(generalized[k]),
            "intersection": float(intersection[i[k], j[k]]),
            "union": float(union[k]),
            "enclosure": float(enclosing[k]),
            "enclosure_kind": kind,
        }
        for k in range(len(i))
    ]


def _number(value: float, digits: int) -> str:
    """`value` with `digits` significant digits; whole numbers as integers."""
    if math.isfinite(value) and value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(value) if digits >= 17 else f"{value:.{digits}g}"


def _digits(text: str) -> int:
    try:
        digits = int(text)
    except ValueError:
        digits = 0
    if not 1 <= digits <= 17:
        raise argparse.ArgumentTypeError(f"expected a number of digits from 1 to 17 (got {text!r})")
    return digits


def _single_table(row: dict[str, Any], digits: int) -> str:
    lines = [f"{name:<13} {_number(row[name], digits)}" for name in COLUMNS]
    lines.append(f"{'enclosure':<13} {_number(row['enclosure'], digits)} ({ENCLOSURE_NAMES[row['enclosure_kind']]})")
    return "\n".join(lines)


def _pair_table(rows: list[dict[str, Any]], n_a: int, n_b: int, all_pairs: bool, digits: int) -> str:
    shown = "pairs" if all_pairs else "overlapping pairs"
    width = max(12, digits + 8)  # room for a sign, a point and an exponent
    lines = [
        f"{n_a} x {n_b} regions, {len(rows)} {shown}",
        f"{'a':>6} {'b':>6} " + " ".join(f"{c:>{width}}" for c in COLUMNS),
    ]
    for row in rows:
        lines.append(f"{row['a']:>6} {row['b']:>6} " + " ".join(f"{_number(row[c], digits):>{width}}" for c in COLUMNS))
    return "\n".join(lines)
