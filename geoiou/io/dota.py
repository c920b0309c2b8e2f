"""DOTA v1/v1.5 label files (``x1 y1 x2 y2 x3 y3 x4 y4 class difficult`` per object) and DOTA Task1 submissions.

A DOTA object is a quadrilateral given by its four corners in pixels, kept exactly as written: a
`Polygon` (see docs/conventions.md). A quadrilateral whose corners are out of order (its edges
cross) or that encloses no area is an invalid record, refused with the reason, or skipped and
reported with ``skip_invalid=True``. The corners of a file are checked all at once with shapely.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any, NamedTuple
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import shapely
from numpy.typing import ArrayLike

from geoiou._validation import describe, invalid_argument, shapely_range_faults
from geoiou.errors import FormatError
from geoiou.io.folders import FileColumns, LabelSet, label_files, label_set, line_records, parse_records, settle
from geoiou.io.report import ReadReport, RecordReader, float_field, invalid, read_bytes, source_name
from geoiou.regions import Box, Polygon, RotatedBox
from geoiou.tables.annotations import Annotations

__all__ = [
    "DotaObjects",
    "quadrilateral_faults",
    "read_dota",
    "read_dota_folder",
    "read_dota_task1",
    "write_dota",
    "write_dota_task1",
]

HEADER_KEYS = ("imagesource:", "gsd:")
CORNER_NAMES = ("x1", "y1", "x2", "y2", "x3", "y3", "x4", "y4")
#: Task1 submissions: one file per class, named with this prefix and the class name.
TASK1_PREFIX = "Task1_"


@dataclass(frozen=True)
class DotaObjects:
    """The objects of one DOTA label file, as `read_dota` returns them.

    Examples
    --------
    >>> from importlib.resources import files
    >>> objects = read_dota(files("geoiou") / "data" / "dota" / "P0706.txt")
    >>> objects.corners[0].tolist(), objects.classes[0], bool(objects.difficult[0])
    ([[1054.0, 1028.0], [1063.0, 1011.0], [1111.0, 1040.0], [1112.0, 1062.0]], 'ship', True)
    """

    #: The quadrilaterals, a batch of shape (N,).
    polygons: Polygon
    #: Corner coordinates as written, shape (N, 4, 2).
    corners: np.ndarray
    #: Class name of each object.
    classes: tuple[str, ...]
    #: The "difficult" flag of each object, shape (N,).
    difficult: np.ndarray
    #: The records read, and those skipped with their reasons (with ``skip_invalid=True``).
    report: ReadReport


def read_dota(path: str | os.PathLike[str], *, skip_invalid: bool = False) -> DotaObjects:
    """Read a DOTA label file into polygons, class names and difficult flags.

    The two optional header lines (``imagesource:``, ``gsd:``) and blank lines are passed over;
    every other line must hold eight numbers, a class name and optionally a 0/1 difficult flag
    (DOTA v1.5 test files omit it; it then counts as 0). Class names are kept as written (v1.5 adds
    ``container-crane``; no list of classes is imposed).

    Parameters
    ----------
    path : path-like
        The label file.
    skip_invalid : bool, default False
        Skip malformed lines and invalid quadrilaterals instead of raising; ``result.report``
        counts the objects read and lists every line skipped and why.

    Raises
    ------
    FormatError
        Naming the file, the line and what was wrong: a wrong number of fields, a coordinate that
        is not a finite number, a difficult flag other than 0 or 1, corners whose edges cross, or
        corners enclosing no area.

    Examples
    --------
    >>> from importlib.resources import files
    >>> objects = read_dota(files("geoiou") / "data" / "dota" / "P0770.txt")
    >>> objects.polygons.shape, objects.classes[0], objects.report.read
    ((22,), 'ground-track-field', 22)
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "P0001.txt"
    >>> _ = path.write_text("0 0 4 0 4 4 0 4 plane 0\\n0 0 4 4 4 0 0 4 ship 0\\n")
    >>> print(read_dota(path, skip_invalid=True).report.summary())  # doctest: +ELLIPSIS
    /.../P0001.txt: read 1 records, skipped 1
      1 x 'corners' must be a simple quadrilateral: its edges must not cross (first at line 2)
    """
    reader = RecordReader(path, skip_invalid=skip_invalid)
    columns = _label_columns(path)
    if columns is not None:
        reader.read_valid(len(columns.classes))
        return DotaObjects(columns.polygons, columns.corners, columns.classes, columns.difficult, reader.report())
    # Some line is not of the plain form: read them one by one, which names the faulty ones.
    records = line_records(path, skip=_is_header)
    parsed = parse_records(records, _label_fields)
    polygons, corners, kept = settled_quadrilaterals(reader, records, parsed)
    rows = [row for row in (parsed[index] for index in kept) if not isinstance(row, FormatError)]  # all are rows
    classes = tuple(row[1] for row in rows)
    difficult = np.array([row[2] for row in rows], dtype=np.bool_)
    return DotaObjects(polygons, corners, classes, difficult, reader.report())


class _LabelColumns(NamedTuple):
    polygons: Polygon
    corners: np.ndarray
    classes: tuple[str, ...]
    difficult: np.ndarray


def _label_columns(path: str | os.PathLike[str]) -> _LabelColumns | None:
    """A label file read as columns, all lines at once; None unless every line is plain and every quadrilateral valid.

    Plain: after the header lines, every line has 10 fields (or every line 9: no difficult
    flag), eight finite numbers, a class and a flag 0 or 1. Anything else goes to the line reader.
    """
    from geoiou.io.text_table import FieldTable  # compiled (numba): loaded by the first file read

    fields = FieldTable.of([read_bytes(path)], (9, 10), skip=_is_header)
    if fields is None:
        return None
    corners = fields.numbers(slice(0, 8))
    difficult = fields.flags(9) if fields.shape[1] == 10 else np.zeros(fields.shape[0], dtype=bool)
    if corners is None or difficult is None:
        return None
    corners = corners.reshape(-1, 4, 2)
    geoms, faults = quadrilateral_faults(corners)
    if faults:
        return None
    return _LabelColumns(Polygon.from_shapely(geoms), corners, tuple(fields.strings(8)), difficult)


def read_dota_folder(folder: str | os.PathLike[str], *, skip_invalid: bool = False) -> LabelSet:
    """Read every ``*.txt`` DOTA label file of a folder (ground truth) into one `LabelSet`.

    Files are read in sorted order; each file's stem is the image id of its objects, the class
    name their category and the difficult flag their ``ignore`` flag. A file without objects
    still lists its image in ``images``.

    Parameters
    ----------
    folder : path-like
        The folder of label files (``labelTxt`` in DOTA's layout); subfolders are not read.
    skip_invalid : bool, default False
        As in `read_dota`; the merged report names the file of each skipped line.

    Raises
    ------
    FileNotFoundError
        If `folder` is not a directory.
    FormatError
        If the folder holds no ``*.txt`` file, or as in `read_dota`.

    Examples
    --------
    >>> from importlib.resources import files
    >>> truth = read_dota_folder(files("geoiou") / "data" / "dota")
    >>> len(truth.images), len(truth.annotations), int(truth.annotations.ignore.sum())
    (7, 984, 67)
    """
    columns = []
    for path in label_files(folder):
        objects = read_dota(path, skip_invalid=skip_invalid)
        columns.append(
            FileColumns(
                image_id=path.stem,
                category_id=np.array(objects.classes, dtype=str),
                region=objects.polygons,
                report=objects.report,
                ignore=objects.difficult,
            )
        )
    return label_set(source_name(folder), columns, [Path(column.report.source).stem for column in columns])


def read_dota_task1(
    paths_or_folder: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *, skip_invalid: bool = False
) -> LabelSet:
    """Read a DOTA Task1 submission (oriented-box predictions) into one `LabelSet`.

    A submission holds one file per class, named ``Task1_<class>.txt``, whose lines are
    ``image_name score x1 y1 x2 y2 x3 y3 x4 y4``: the image id, the confidence and the corners in
    pixels. The class comes from the file name, so that category ids match the class names of
    `read_dota_folder`. ``images`` lists the image names that occur, sorted.

    Parameters
    ----------
    paths_or_folder : path-like or iterable of path-like
        A folder (every ``Task1_*.txt`` in it is read, in sorted order), one file, or several files.
    skip_invalid : bool, default False
        Skip malformed lines and invalid quadrilaterals instead of raising; the report lists them.

    Raises
    ------
    FileNotFoundError
        If a folder or file does not exist.
    FormatError
        If a folder holds no ``Task1_*.txt`` file, or naming the file, line and fault of a bad record.
    InvalidArgumentError
        If a file is not named ``Task1_<class>.txt``, or no file is given.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "Task1_plane.txt").write_text("P0001 0.9 0 0 10 0 10 10 0 10\\nP0002 0.5 5 5 9 5 9 9 5 9\\n")
    >>> _ = (folder / "Task1_ship.txt").write_text("P0001 0.7 20 20 30 20 30 25 20 25\\n")
    >>> predictions = read_dota_task1(folder)
    >>> predictions.annotations.category_id.tolist(), predictions.annotations.score.tolist(), predictions.images
    (['plane', 'plane', 'ship'], [0.9, 0.5, 0.7], ('P0001', 'P0002'))
    """
    paths = _task1_paths(paths_or_folder)
    columns = [_read_task1_file(path, skip_invalid) for path in paths]
    source = (
        source_name(paths_or_folder)
        if isinstance(paths_or_folder, (str, os.PathLike))
        else os.path.commonpath([os.fspath(path) for path in paths])
    )
    images = [image for column in columns for image in np.atleast_1d(column.image_id).tolist()]
    return label_set(source, columns, images)


def quadrilateral_faults(corners: np.ndarray) -> tuple[np.ndarray, dict[int, str]]:
    """Shapely polygons of quadrilaterals ``(N, 4, 2)`` and, for each invalid one, why (by index).

    A quadrilateral is invalid when its corners enclose no area (all on one line, or repeated) or
    when it is not simple: two edges cross, which is what corners out of order give.

    Examples
    --------
    >>> square = [(0, 0), (4, 0), (4, 4), (0, 4)]
    >>> bow_tie = [(0, 0), (4, 4), (4, 0), (0, 4)]  # the corners of the square, out of order
    >>> flat = [(0, 0), (1, 1), (2, 2), (3, 3)]
    >>> geoms, faults = quadrilateral_faults(np.array([square, bow_tie, flat], dtype=float))
    >>> for index, reason in sorted(faults.items()):
    ...     print(index, reason)
    1 'corners' must be a simple quadrilateral: its edges must not cross (got Self-intersection at (2, 2);
      are the corners out of order?)
    2 'corners' must enclose a positive area (got [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]:
      all on one line or repeated)
    """
    geoms = shapely.polygons(corners)
    with np.errstate(over="ignore", invalid="ignore"):  # coordinates beyond float64's range are refused below
        flat = ~(shapely.area(shapely.convex_hull(geoms)) > 0)
    # A flat quadrilateral is also invalid for shapely, as a "self-intersection": name the real fault.
    crossing = ~shapely.is_valid(geoms) & ~flat
    faults = {
        int(index): f"'corners' must enclose a positive area (got {describe(corners[index])}: "
        "all on one line or repeated)"
        for index in np.flatnonzero(flat)
    }
    for index in np.flatnonzero(crossing):
        faults[int(index)] = (
            "'corners' must be a simple quadrilateral: its edges must not cross "
            f"(got {_describe_reason(shapely.is_valid_reason(geoms[index]))}; "
            "are the corners out of order?)"
        )
    # What Polygon would refuse (areas that overflow or underflow float64), named by record rather than batch index.
    for position, reason in shapely_range_faults(geoms, "corners").items():
        faults.setdefault(position, reason)
    return geoms, faults


def _describe_reason(reason: str) -> str:
    """Shapely's ``'Self-intersection[2 2]'`` as ``'Self-intersection at (2, 2)'``."""
    name, _, point = reason.partition("[")
    if not point:
        return reason
    return f"{name} at ({', '.join(f'{float(value):g}' for value in point.rstrip(']').split())})"


def settled_quadrilaterals(
    reader: RecordReader,
    records: list[Any],
    parsed: list[Any],
    *,
    scale: np.ndarray | None = None,
    faults: dict[int, str] | None = None,
) -> tuple[Polygon, np.ndarray, list[int]]:
    """Check the corners of the parsed records at once, settle every record, and build the polygons of those kept.

    Each parsed record holds its 8 corner values first; `scale` multiplies ``(x, y)`` before the
    check, and `faults` (by record index) are earlier faults of the records, which take precedence.
    Returns the polygons and corners of the records kept, and their indices.

    Examples
    --------
    >>> reader = RecordReader("quads.txt", skip_invalid=True)
    >>> records = [("line 1", []), ("line 2", []), ("line 3", [])]
    >>> parsed = [([0, 0, 2, 0, 2, 1, 0, 1],), invalid("bad"), ([0, 0, 1, 1, 1, 0, 0, 1],)]
    >>> polygons, corners, kept = settled_quadrilaterals(reader, records, parsed, scale=np.array([10.0, 100.0]))
    >>> polygons.area.tolist(), kept, reader.report().counts()  # doctest: +NORMALIZE_WHITESPACE
    ([2000.0], [0], {'bad': 1, "'corners' must be a simple quadrilateral: its edges must not cross": 1})
    """
    parsed_rows = [index for index, value in enumerate(parsed) if not isinstance(value, Exception)]
    corners = np.array([parsed[index][0] for index in parsed_rows], dtype=np.float64).reshape(-1, 4, 2)
    if scale is not None:
        corners = corners * scale
    geoms, corner_faults = quadrilateral_faults(corners)
    all_faults = {parsed_rows[row]: reason for row, reason in corner_faults.items()} | (faults or {})
    kept = settle(reader, records, parsed, all_faults)
    keep_rows = np.searchsorted(parsed_rows, kept).astype(np.int64)
    return Polygon.from_shapely(geoms[keep_rows]), corners[keep_rows], kept


def settled_rings(
    reader: RecordReader,
    records: list[Any],
    parsed: list[Any],
    *,
    scale: np.ndarray | None = None,
    faults: dict[int, str] | None = None,
) -> tuple[Polygon, list[int]]:
    """`settled_quadrilaterals` for rings of any number of points (each parsed record's first item: x1, y1, ...).

    Rings are built and checked all at once; a ring that crosses itself or encloses no area is
    a fault of its record. Returns the polygons of the records kept and their indices.
    """
    parsed_rows = [index for index, value in enumerate(parsed) if not isinstance(value, Exception)]
    lengths = np.array([len(parsed[index][0]) // 2 for index in parsed_rows], dtype=np.int64)
    points = np.array([v for index in parsed_rows for v in parsed[index][0]], dtype=np.float64).reshape(-1, 2)
    if scale is not None:
        points = points * scale
    geoms = (
        shapely.polygons(shapely.linearrings(points, indices=np.repeat(np.arange(len(lengths)), lengths)))
        if len(lengths)
        else np.empty(0, dtype=object)
    )
    with np.errstate(over="ignore", invalid="ignore"):  # coordinates beyond float64's range are refused below
        flat = ~(shapely.area(shapely.convex_hull(geoms)) > 0)  # a bow tie has area 0 but crosses: name that
    crossing = ~shapely.is_valid(geoms) & ~flat
    ring_faults = {
        parsed_rows[int(row)]: "'points' must enclose a positive area (got all on one line or repeated)"
        for row in np.flatnonzero(flat)
    }
    for row in np.flatnonzero(crossing):
        ring_faults[parsed_rows[int(row)]] = (
            "'points' must make a simple polygon: its edges must not cross "
            f"(got {_describe_reason(shapely.is_valid_reason(geoms[row]))})"
        )
    for position, reason in shapely_range_faults(geoms, "points").items():
        ring_faults.setdefault(parsed_rows[position], reason)
    kept = settle(reader, records, parsed, ring_faults | (faults or {}))
    keep_rows = np.searchsorted(parsed_rows, kept).astype(np.int64)
    return Polygon.from_shapely(geoms[keep_rows]), kept


def _is_header(fields: list[str]) -> bool:
    return fields[0].startswith(HEADER_KEYS)


def _corner_values(fields: list[str]) -> list[float]:
    return [float_field(text, name) for text, name in zip(fields, CORNER_NAMES)]


def _label_fields(fields: list[str]) -> tuple[list[float], str, bool]:
    """Corners, class and difficult flag of one label line."""
    if len(fields) not in (9, 10):
        raise invalid(
            f"expected 8 coordinates, a class and a difficult flag (got {len(fields)} fields: {' '.join(fields)!r})"
        )
    difficult = fields[9] if len(fields) == 10 else "0"
    if difficult not in ("0", "1"):
        raise invalid(f"'difficult' must be 0 or 1 (got {difficult!r})")
    return _corner_values(fields[:8]), fields[8], difficult == "1"


def _task1_fields(fields: list[str]) -> tuple[list[float], str, float]:
    """Corners, image name and score of one Task1 line."""
    if len(fields) != 10:
        raise invalid(
            f"expected an image name, a score and 8 coordinates (got {len(fields)} fields: {' '.join(fields)!r})"
        )
    score = float_field(fields[1], "score")  # any finite number: the DOTA devkit only ranks them
    return _corner_values(fields[2:]), fields[0], score


def _task1_columns(path: Path) -> tuple[np.ndarray, Polygon, np.ndarray] | None:
    """A Task1 file read as columns (image names, polygons, scores); None unless every line is plain and valid."""
    from geoiou.io.text_table import FieldTable  # compiled (numba): loaded by the first file read

    fields = FieldTable.of([read_bytes(path)], (10,))
    numbers = None if fields is None else fields.numbers(slice(1, None))
    if fields is None or numbers is None:
        return None
    geoms, faults = quadrilateral_faults(numbers[:, 1:].reshape(-1, 4, 2))
    if faults:
        return None
    return np.array(fields.strings(0), dtype=str), Polygon.from_shapely(geoms), numbers[:, 0]


def _read_task1_file(path: Path, skip_invalid: bool) -> FileColumns:
    reader = RecordReader(path, skip_invalid=skip_invalid)
    columns = _task1_columns(path)
    if columns is not None:
        reader.read_valid(len(columns[0]))
        return FileColumns(
            image_id=columns[0],
            category_id=path.stem[len(TASK1_PREFIX) :],
            region=columns[1],
            report=reader.report(),
            score=columns[2],
        )
    records = line_records(path)
    parsed = parse_records(records, _task1_fields)
    polygons, _, kept = settled_quadrilaterals(reader, records, parsed)
    rows = [row for row in (parsed[index] for index in kept) if not isinstance(row, FormatError)]  # all are rows
    return FileColumns(
        image_id=np.array([row[1] for row in rows], dtype=str),
        category_id=path.stem[len(TASK1_PREFIX) :],
        region=polygons,
        report=reader.report(),
        score=np.array([row[2] for row in rows], dtype=np.float64),
    )


def _task1_paths(paths_or_folder: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The Task1 files to read: every ``Task1_*.txt`` of a folder, or the files given (checked by name)."""
    if isinstance(paths_or_folder, (str, os.PathLike)):
        if not Path(paths_or_folder).exists():
            raise FileNotFoundError(f"{source_name(paths_or_folder)}: no such file or folder")
        if Path(paths_or_folder).is_dir():
            return label_files(paths_or_folder, f"{TASK1_PREFIX}*.txt")
    given = [paths_or_folder] if isinstance(paths_or_folder, (str, os.PathLike)) else list(paths_or_folder)
    paths = [Path(path) for path in given]
    if not paths:
        raise invalid_argument("paths_or_folder", "a folder or at least one Task1_<class>.txt file", "no files")
    for path in paths:
        if not (
            path.name.startswith(TASK1_PREFIX) and path.suffix.lower() == ".txt" and len(path.stem) > len(TASK1_PREFIX)
        ):
            raise invalid_argument(
                "paths_or_folder", "files named Task1_<class>.txt (the class comes from the name)", os.fspath(path)
            )
        if not path.is_file():
            raise FileNotFoundError(f"{source_name(path)}: no such file")
    return paths


# --------------------------------------------------------------------------- writing
def write_dota(
    path: str | os.PathLike[str],
    regions: Polygon | RotatedBox | Box,
    classes: Iterable[str],
    *,
    difficult: ArrayLike | None = None,
) -> None:
    """Write a DOTA label file: one line ``x1 y1 x2 y2 x3 y3 x4 y4 class difficult`` per region.

    Parameters
    ----------
    path : path-like
        The file to write (DOTA names it after its image: ``P0706.txt``).
    regions : Polygon, RotatedBox or Box
        A 1-D batch. Polygons must be quadrilaterals (one ring of 4 corners, written as stored);
        rotated boxes and boxes are written by their corners.
    classes : iterable of str
        The class name of each region (no white space: DOTA's fields are space-separated).
    difficult : array_like of bool, optional
        DOTA's difficult flag of each region; 0 for all by default.

    Raises
    ------
    InvalidArgumentError
        Naming the row: a polygon that is not a quadrilateral, a class name with white space or
        lengths that differ.

    Examples
    --------
    >>> import tempfile, pathlib, geoiou
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "P0001.txt"
    >>> write_dota(path, geoiou.RotatedBox([[10, 10, 8, 4, 0]]), ["ship"], difficult=[True])
    >>> path.read_text()
    '6.0 8.0 14.0 8.0 14.0 12.0 6.0 12.0 ship 1\\n'
    >>> read_dota(path).classes, read_dota(path).polygons.area
    (('ship',), array([32.]))
    """
    corners = _written_corners(regions, "regions")
    names = _class_names(classes, len(corners), "classes")
    flags = np.zeros(len(corners), dtype=bool) if difficult is None else np.asarray(difficult, dtype=bool).reshape(-1)
    if len(flags) != len(corners):
        raise invalid_argument("difficult", f"one flag per region ({len(corners)})", f"{len(flags)} flags")
    lines = [
        f"{' '.join(map(repr, row))} {name} {int(flag)}\n"
        for row, name, flag in zip(corners.reshape(-1, 8).tolist(), names, flags.tolist())
    ]
    Path(path).write_text("".join(lines), encoding="utf-8")


def write_dota_task1(folder: str | os.PathLike[str], predictions: Any) -> list[Path]:
    """Write predictions as a DOTA Task1 submission: a ``Task1_<class>.txt`` per class, ``image score x1 ... y4`` lines.

    Parameters
    ----------
    folder : path-like
        Where to write the files (created if missing).
    predictions : Annotations
        With a finite score per row (any range: DOTA's evaluation only ranks them), image ids (the image
        names), class names as category ids, and quadrilateral regions (as in `write_dota`).

    Returns
    -------
    list of Path
        The files written, one per class, in sorted class order.

    Examples
    --------
    >>> import tempfile, pathlib, geoiou
    >>> from geoiou.evaluation import Annotations
    >>> found = Annotations(image_id=["P0001", "P0002"], category_id=["ship", "plane"], score=[0.9, 0.5],
    ...                     region=geoiou.Box([[0, 0, 4, 2], [1, 1, 3, 3]]))
    >>> paths = write_dota_task1(pathlib.Path(tempfile.mkdtemp()), found)
    >>> [path.name for path in paths], paths[1].read_text()
    (['Task1_plane.txt', 'Task1_ship.txt'], 'P0001 0.9 0.0 0.0 4.0 0.0 4.0 2.0 0.0 2.0\\n')
    >>> read_dota_task1(paths).annotations.score.tolist()
    [0.5, 0.9]
    """
    if not isinstance(predictions, Annotations):
        raise invalid_argument("predictions", "Annotations", type(predictions).__name__)
    if predictions.score is None:
        raise invalid_argument("predictions.score", "a score per row", "no scores")
    scores = predictions.score
    outside = np.flatnonzero(~np.isfinite(scores))
    if outside.size:  # any finite score is written: the DOTA devkit only ranks them
        raise invalid_argument("predictions.score", "finite scores", f"{scores[outside[0]]} at row {outside[0]}")
    corners = (
        np.concatenate([_written_corners(piece, "predictions.region").reshape(-1, 8) for piece in predictions.regions])
        if predictions.regions
        else np.zeros((0, 8))
    )
    images = _class_names(predictions.image_id.astype(str), len(corners), "predictions.image_id")
    classes = _class_names(predictions.category_id.astype(str), len(corners), "predictions.category_id")
    Path(folder).mkdir(parents=True, exist_ok=True)
    written = []
    score_list, corner_list = scores.tolist(), corners.tolist()
    for name in sorted(set(classes)):
        rows = [k for k, value in enumerate(classes) if value == name]
        lines = [f"{images[k]} {score_list[k]!r} {' '.join(map(repr, corner_list[k]))}\n" for k in rows]
        path = Path(folder) / f"{TASK1_PREFIX}{name}.txt"
        path.write_text("".join(lines), encoding="utf-8")
        written.append(path)
    return written


def _written_corners(regions: Any, param: str) -> np.ndarray:
    """``(N, 4, 2)`` corners of a 1-D batch of quadrilaterals, rotated boxes or boxes."""
    if isinstance(regions, (Box, RotatedBox)):
        return np.asarray(
            regions.corners() if isinstance(regions, Box) else regions.to_corners(), dtype=np.float64
        ).reshape(-1, 4, 2)
    if not isinstance(regions, Polygon):
        raise invalid_argument(
            param, "Polygon, RotatedBox or Box regions (DOTA holds quadrilaterals)", type(regions).__name__
        )
    ragged = regions._store.take(regions._index.ravel())
    vertices = np.diff(ragged.ring_offsets) - 1  # rings are stored closed
    single_ring = np.diff(ragged.geometry_offsets) == 1
    rings_per_part = np.diff(ragged.part_offsets)
    quad = single_ring & (rings_per_part[ragged.geometry_offsets[:-1]] == 1) if len(single_ring) else single_ring
    quad &= vertices[ragged.part_offsets[ragged.geometry_offsets[:-1]]] == 4 if len(quad) else quad
    if not quad.all():
        row = int(np.flatnonzero(~quad)[0])
        raise invalid_argument(
            param,
            "quadrilaterals: one ring of 4 corners (RotatedBox.from_corners(..., "
            "fit='min_area') makes one of any polygon)",
            f"another polygon at row {row}",
        )
    starts = ragged.ring_offsets[:-1][ragged.part_offsets[ragged.geometry_offsets[:-1]]]
    corners: np.ndarray = ragged.coords[starts[:, None] + np.arange(4)]
    return corners


def _class_names(values: Iterable[Any], count: int, param: str) -> list[str]:
    names = [str(value) for value in values]
    if len(names) != count:
        raise invalid_argument(param, f"one name per region ({count})", f"{len(names)} names")
    spaced = [k for k, name in enumerate(names) if not name or any(c.isspace() for c in name)]
    if spaced:
        raise invalid_argument(
            param,
            "names without white space (DOTA's fields are separated by spaces)",
            f"{names[spaced[0]]!r} at row {spaced[0]}",
        )
    return names
