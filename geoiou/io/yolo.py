"""YOLO label and prediction text files: axis-aligned boxes, YOLO-OBB quadrilaterals and segmentation polygons.

One object per line, with coordinates normalised by the image size (0 to 1):

- boxes: ``class cx cy w h [conf]`` (the centre and size; ultralytics' detection labels);
- oriented boxes: ``class x1 y1 x2 y2 x3 y3 x4 y4 [conf]`` (four corners; ultralytics' OBB labels);
- segmentation polygons: ``class x1 y1 ... xk yk [conf]``, any k >= 3 points (ultralytics' segment labels), read
  when ``obb`` is None (the default): an odd number of fields has no conf, an even one ends with it.

The optional last column ``conf`` is a prediction's confidence (``save_conf=True`` in ultralytics).

**Normalised or pixel coordinates.** Without an image size the regions stay in normalised
coordinates. That is enough to compare and evaluate them: scaling ``x`` by the width and ``y``
by the height multiplies every area by the same factor ``width * height``, so IoU, and with it
AP at any IoU threshold, is unchanged. Only what depends on absolute areas (COCO's
small/medium/large pixel-area ranges, or drawing) needs ``image_size=(height, width)``, which
scales the regions to pixels.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from geoiou._validation import invalid_argument, sized_box_faults
from geoiou.errors import FormatError, InvalidArgumentError
from geoiou.io.dota import CORNER_NAMES, quadrilateral_faults, settled_quadrilaterals, settled_rings
from geoiou.io.folders import (
    FileColumns,
    LabelSet,
    LineRecord,
    label_files,
    label_set,
    line_records,
    parse_records,
    settle,
)
from geoiou.io.report import ReadReport, RecordReader, float_field, invalid, read_bytes, source_name
from geoiou.regions import Box, Polygon
from geoiou.tables.annotations import Annotations

if TYPE_CHECKING:
    from geoiou.io.text_table import FieldTable

__all__ = ["YoloObjects", "read_yolo", "read_yolo_folder"]

BOX_NAMES = ("cx", "cy", "w", "h")
#: Field counts of a line (without and with conf), and how a line of each layout reads.
LAYOUTS = {
    False: ((5, 6), "class cx cy w h [conf]"),
    True: ((9, 10), "class x1 y1 x2 y2 x3 y3 x4 y4 [conf]"),
}
#: One parsed line: its coordinates, class index and conf (None without the column).
_Fields = tuple[list[float], int, "float | None"]
CLASS_INDEX = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class YoloObjects:
    """The objects of one YOLO text file.

    Attributes
    ----------
    regions : Box or Polygon
        A batch of shape (N,): `Box` for ``class cx cy w h`` lines, `Polygon` for YOLO-OBB corners
        and segmentation points (kept as written, in their order). Normalised coordinates unless an image size is given.
    classes : ndarray of int64, shape (N,)
        The class index of each object.
    scores : ndarray of float64, shape (N,), or None
        The ``conf`` column (predictions), None when the file has none (ground truth).
    report : ReadReport
        The records read, and those skipped with their reasons (with ``skip_invalid=True``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "image2.txt"
    >>> _ = path.write_text("4 0.5 0.5 0.5 0.5 0.75\\n")
    >>> objects = read_yolo(path)
    >>> objects.regions.to_array("xyxy").tolist(), objects.classes.tolist(), objects.scores.tolist()
    ([[0.25, 0.25, 0.75, 0.75]], [4], [0.75])
    """

    regions: Box | Polygon
    classes: np.ndarray
    scores: np.ndarray | None
    report: ReadReport


def read_yolo(
    path: str | os.PathLike[str],
    *,
    image_size: tuple[int, int] | None = None,
    obb: bool | None = None,
    skip_invalid: bool = False,
) -> YoloObjects:
    """Read a YOLO or YOLO-OBB text file (labels, or predictions with a conf column).

    Parameters
    ----------
    path : path-like
        The text file.
    image_size : (height, width), optional
        The image size in pixels: the regions are scaled to pixels (``x`` by the width, ``y`` by
        the height). Without it they stay normalised, which leaves every IoU unchanged (see the
        module notes); only pixel-area ranges need it.
    obb : bool, optional
        ``False``: every line is a box (5 or 6 fields); ``True``: every line is a YOLO-OBB
        quadrilateral (9 or 10 fields). ``None`` (default) decides from the field counts, and a file
        mixing both kinds is an error. A file without objects then gives an empty `Box` batch.
    skip_invalid : bool, default False
        Skip invalid lines instead of raising; ``result.report`` lists them and why.

    Returns
    -------
    YoloObjects
        ``regions``, ``classes``, ``scores`` (None without a conf column) and ``report``.

    Raises
    ------
    FormatError
        Naming the file, the line and the fault: a wrong number of fields; a class that is not a
        non-negative integer; a box or segmentation coordinate that is not a finite number in
        [0, 1] (as ultralytics, coordinates outside the image are refused, not clipped; YOLO-OBB
        corners may lie outside [0, 1], as ultralytics writes them unclipped); a box whose size
        rounds away in float64; a conf that is not a finite number (any finite score is taken); a conf
        column on some lines only; corners whose edges cross or that enclose no area. Also, never
        skipped, a file mixing boxes and YOLO-OBB lines when ``obb=None``.
    InvalidArgumentError
        For an `image_size` that is not two positive integers, or an `obb` that is not a bool or None.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "image1.txt"
    >>> _ = path.write_text("0 0.5 0.5 0.2 0.4\\n3 0.25 0.25 0.1 0.1\\n")
    >>> objects = read_yolo(path, image_size=(100, 200))  # height 100, width 200
    >>> objects.regions.to_array("xyxy").tolist(), objects.classes.tolist(), objects.scores
    ([[80.0, 30.0, 120.0, 70.0], [40.0, 20.0, 60.0, 30.0]], [0, 3], None)
    >>> _ = path.write_text("1 0.1 0.1 0.3 0.1 0.3 0.2 0.1 0.2 0.87\\n")
    >>> objects = read_yolo(path)
    >>> type(objects.regions).__name__, round(float(objects.regions.area[0]), 6), objects.scores.tolist()
    ('Polygon', 0.02, [0.87])
    """
    if obb is not None and not isinstance(obb, bool):
        raise invalid_argument("obb", "True, False or None", obb)
    scale = None if image_size is None else _image_scale(image_size, "image_size")
    reader = RecordReader(path, skip_invalid=skip_invalid)
    columns = _yolo_columns(path, obb, scale)
    if columns is not None:
        reader.read_valid(len(columns.classes))
        return dataclasses.replace(columns, report=reader.report())
    records = line_records(path)
    parsed = parse_records(records, partial(_yolo_fields, obb=obb))
    is_obb = obb if obb is not None else _detected_layout(reader, records, parsed)
    faults = _conf_faults(records, parsed)
    quadrilaterals = all(isinstance(value, FormatError) or len(value[0]) == 8 for value in parsed)
    regions: Box | Polygon
    if is_obb and quadrilaterals:
        regions, _, kept = settled_quadrilaterals(reader, records, parsed, scale=scale, faults=faults)
    elif is_obb:
        regions, kept = settled_rings(reader, records, parsed, scale=scale, faults=faults)
    else:
        rows = [index for index, value in enumerate(parsed) if not isinstance(value, FormatError)]
        coordinates = [value[0] for value in parsed if not isinstance(value, FormatError)]  # the rows, in order
        cxcywh = np.array(coordinates, dtype=np.float64).reshape(-1, 4)
        cxcywh = cxcywh if scale is None else cxcywh * np.tile(scale, 2)
        # What Box would refuse (a size rounded away, an area that underflows), named by line.
        faults = {rows[row]: reason for row, reason in sized_box_faults(cxcywh, "cxcywh", "box").items()} | faults
        kept = settle(reader, records, parsed, faults)
        regions = Box(cxcywh[np.searchsorted(rows, kept).astype(np.int64)], fmt="cxcywh")
    # settle keeps parsed records only: the filter narrows the type and drops nothing.
    kept_rows = [row for row in (parsed[index] for index in kept) if not isinstance(row, FormatError)]
    classes = np.array([row[1] for row in kept_rows], dtype=np.int64)
    confs = [row[2] for row in kept_rows]
    scores = np.array(confs, dtype=np.float64) if confs and confs[0] is not None else None
    return YoloObjects(regions, classes, scores, reader.report())


#: Field counts of a plain line: boxes, boxes with conf, YOLO-OBB corners, corners with conf.
_PLAIN_WIDTHS = {None: (5, 6, 9, 10), False: (5, 6), True: (9, 10)}


def _yolo_columns(path: str | os.PathLike[str], obb: bool | None, scale: np.ndarray | None) -> YoloObjects | None:
    """A file of boxes or of YOLO-OBB quadrilaterals read as columns, all lines at once; None unless every line is
    plain (one layout, a conf column on all lines or none, box coordinates in [0, 1]) and every
    quadrilateral valid. The report is left for the caller to fill."""
    from geoiou.io.text_table import FieldTable  # compiled (numba): loaded by the first file read

    fields = FieldTable.of([read_bytes(path)], _PLAIN_WIDTHS[obb])
    return None if fields is None else _plain_objects(fields, scale, source_name(path))


def _plain_objects(fields: FieldTable, scale: np.ndarray | None, source: str) -> YoloObjects | None:
    """The objects of a table of plain lines (`scale`: one ``(x, y)`` for all rows, or one per row)."""
    classes, values = fields.indices(0), fields.numbers(slice(1, None))
    width = fields.shape[1]
    # Box coordinates lie in [0, 1]; YOLO-OBB corners may not (ultralytics does not clip xyxyxyxyn), and a conf
    # is any finite score (a ranking is all an evaluation needs of it).
    if classes is None or values is None:
        return None
    unit = values[:, :4] if width in (5, 6) else values[:, :0]
    if not ((unit >= 0) & (unit <= 1)).all():
        return None
    scores = values[:, -1] if width in (6, 10) else None
    if width in (5, 6):
        coords = values[:, :4] if scale is None else values[:, :4] * np.tile(scale, 2)
        if sized_box_faults(coords, "cxcywh", "box"):
            return None  # the line reader names them
        regions: Box | Polygon = Box(coords, fmt="cxcywh")
    else:
        corners = values[:, :8].reshape(-1, 4, 2)
        if scale is not None:
            corners = corners * (scale if scale.ndim == 1 else scale[:, None, :])
        geoms, faults = quadrilateral_faults(corners)
        if faults:
            return None
        regions = Polygon.from_shapely(geoms)
    return YoloObjects(regions, classes, scores, ReadReport(source, 0))


def _folder_columns(
    folder: str | os.PathLike[str], paths: list[Path], sizes: list[tuple[int, int] | None], obb: bool | None
) -> LabelSet | None:
    """Every file of a folder read as one table, when all their lines are plain and of one layout; else None."""
    from geoiou.io.text_table import FieldTable  # compiled (numba): loaded by the first file read

    fields = FieldTable.of([read_bytes(path) for path in paths], _PLAIN_WIDTHS[obb])
    if fields is None:
        return None
    counts = fields.lines_per_text
    scale = None
    if sizes[0] is not None:
        scale = np.repeat(
            np.array([_image_scale(size, "image_sizes") for size in sizes]).reshape(-1, 2), counts, axis=0
        )
    objects = _plain_objects(fields, scale, source_name(folder))
    if objects is None:
        return None
    stems = [path.stem for path in paths]
    annotations = Annotations(
        image_id=np.repeat(np.array(stems, dtype=str), counts),
        category_id=objects.classes,
        region=objects.regions,
        score=objects.scores,
    )
    return LabelSet(annotations, tuple(sorted(set(stems))), ReadReport(source_name(folder), fields.shape[0]))


#: LabelImg's list of class names, kept beside the YOLO label files.
CLASS_NAMES_FILE = "classes.txt"


def read_yolo_folder(
    folder: str | os.PathLike[str],
    *,
    image_sizes: Mapping[str, tuple[int, int]] | tuple[int, int] | None = None,
    obb: bool | None = None,
    skip_invalid: bool = False,
) -> LabelSet:
    """Read every ``*.txt`` YOLO file of a folder (one per image) into one `LabelSet`.

    Files are read in sorted order; each file's stem is the image id of its objects and the class
    index their category. A file without objects still lists its image in ``images``. Either
    every file with objects has a conf column (predictions: ``score``) or none has (ground truth).

    Parameters
    ----------
    folder : path-like
        The folder of text files (``labels/val`` in ultralytics' layout); subfolders are not read.
    image_sizes : mapping of str to (height, width), or (height, width), optional
        Pixel sizes: per file stem (every stem must have one; other keys are not used), or one size
        for all images. Without it the regions stay normalised (IoU and AP are unchanged).
    obb : bool, optional
        As in `read_yolo`; with None, a folder mixing box files and YOLO-OBB files is an error.
    skip_invalid : bool, default False
        As in `read_yolo`; the merged report names the file of each skipped line.

    Raises
    ------
    FileNotFoundError
        If `folder` is not a directory.
    FormatError
        If the folder holds no ``*.txt`` file, mixes boxes and YOLO-OBB files, has a conf column in
        some files only, or as in `read_yolo`.
    InvalidArgumentError
        If `image_sizes` misses a file stem or holds a size that is not two positive integers.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "street.txt").write_text("0 0.5 0.5 0.2 0.4 0.9\\n2 0.1 0.1 0.1 0.1 0.3\\n")
    >>> _ = (folder / "empty.txt").write_text("")
    >>> predictions = read_yolo_folder(folder, image_sizes={"street": (480, 640), "empty": (480, 640)})
    >>> predictions.images, predictions.annotations.category_id.tolist(), predictions.annotations.score.tolist()
    (('empty', 'street'), [0, 2], [0.9, 0.3])
    """
    # LabelImg writes the class names beside the labels: classes.txt is not an image's labels.
    paths = [path for path in label_files(folder) if path.name != CLASS_NAMES_FILE or not Path(folder).is_dir()]
    if not paths:
        raise FormatError(source_name(folder), "", f"the folder holds no label files (only {CLASS_NAMES_FILE})")
    sizes = _sizes_per_file(image_sizes, [path.stem for path in paths])
    read = _folder_columns(folder, paths, sizes, obb)
    if read is not None:
        return dataclasses.replace(read, class_names=_class_names(Path(folder)))
    columns = []
    kinds: dict[type[Box] | type[Polygon], str] = {}
    for path, size in zip(paths, sizes):
        objects = read_yolo(path, image_size=size, obb=obb, skip_invalid=skip_invalid)
        if len(objects.regions):
            kinds.setdefault(type(objects.regions), path.name)
        columns.append(
            FileColumns(
                image_id=path.stem,
                category_id=objects.classes,
                region=objects.regions,
                report=objects.report,
                score=objects.scores,
            )
        )
    if len(kinds) > 1:
        raise FormatError(
            source_name(folder),
            "",
            f"the folder mixes files of YOLO boxes ({kinds[Box]}) and of YOLO-OBB "
            f"corners ({kinds[Polygon]}); pass obb=False or obb=True",
        )
    read = label_set(source_name(folder), columns, [path.stem for path in paths])
    return dataclasses.replace(read, class_names=_class_names(Path(folder)))


def _class_names(folder: Path) -> dict[int, str]:
    """Class index -> name from LabelImg's ``classes.txt`` in the folder (line k names class k), if any."""
    path = folder / CLASS_NAMES_FILE
    if not folder.is_dir() or not path.is_file():
        return {}
    names = [line.strip() for line in path.read_text(encoding="utf-8-sig").splitlines()]
    return {index: name for index, name in enumerate(names) if name}


def _yolo_fields(fields: list[str], obb: bool | None) -> _Fields:
    """Coordinates, class index and conf (None without the column) of one line."""
    layouts = [obb] if obb is not None else [False, True]
    layout = next((kind for kind in layouts if len(fields) in LAYOUTS[kind][0]), None)
    if layout is None and obb is None and len(fields) >= 7:
        return _segment_fields(fields)
    if layout is None:
        raise invalid(
            f"expected {_expected_fields(layouts)}{_segment_hint(obb)}{_other_layout_hint(fields, obb)} "
            f"(got {len(fields)} fields: {' '.join(fields)!r})"
        )
    if not CLASS_INDEX.fullmatch(fields[0]):
        raise invalid(f"'class' must be a non-negative integer (got {fields[0]!r})")
    if layout:  # YOLO-OBB corners are read as the geometry they are: ultralytics does not clip them to [0, 1]
        values = [float_field(text, name) for text, name in zip(fields[1:], CORNER_NAMES)]
    else:
        values = [_unit_field(text, name) for text, name in zip(fields[1:], BOX_NAMES)]
    conf = float_field(fields[-1], "conf") if len(fields) == LAYOUTS[layout][0][1] else None
    return values, int(fields[0]), conf


def _segment_fields(fields: list[str]) -> tuple[list[float], int, float | None]:
    """A YOLO segmentation line: ``class x1 y1 ... xk yk [conf]``, k >= 3 points (an odd count has no conf)."""
    if not CLASS_INDEX.fullmatch(fields[0]):
        raise invalid(f"'class' must be a non-negative integer (got {fields[0]!r})")
    has_conf = len(fields) % 2 == 0
    coordinates = fields[1:-1] if has_conf else fields[1:]
    names = [f"{axis}{k // 2 + 1}" for k, axis in enumerate("xy" * (len(coordinates) // 2))]
    values = [_unit_field(text, name) for text, name in zip(coordinates, names)]
    return values, int(fields[0]), float_field(fields[-1], "conf") if has_conf else None


def _segment_hint(obb: bool | None) -> str:
    return ", or a segmentation polygon (class x1 y1 ... xk yk [conf], k >= 3 points)" if obb is None else ""


def _unit_field(text: str, name: str) -> float:
    value = float_field(text, name)
    if not 0 <= value <= 1:
        raise invalid(f"'{name}' must be a normalised coordinate in [0, 1] (got {text!r})")
    return value


def _expected_fields(layouts: list[bool]) -> str:
    return " or ".join(
        f"{counts[0]} or {counts[1]} fields ({reading})" for counts, reading in (LAYOUTS[layout] for layout in layouts)
    )


def _other_layout_hint(fields: list[str], obb: bool | None) -> str:
    """When a line has the field count of the layout not chosen, say how to read it."""
    if obb is not None and len(fields) in LAYOUTS[not obb][0]:
        return f"; this line reads as {'a box' if obb else 'YOLO-OBB corners'}: pass obb={not obb} or obb=None"
    return ""


def _detected_layout(reader: RecordReader, records: list[LineRecord], parsed: list[_Fields | FormatError]) -> bool:
    """True when the parsed lines are YOLO-OBB, False for boxes (or no line); a mix is a fault of the whole file."""
    first: dict[bool, str] = {}
    for (location, _), value in zip(records, parsed):
        if not isinstance(value, FormatError):
            first.setdefault(len(value[0]) != 4, location)  # corners (OBB, segmentation polygons) or a box
    if len(first) > 1:
        raise reader.whole_file(
            f"the file mixes YOLO boxes (class cx cy w h, first at {first[False]}) and polygons "
            f"(YOLO-OBB corners or segmentation points, first at {first[True]}); pass obb=False "
            "or obb=True to read one kind and refuse the other"
        )
    return bool(first) and next(iter(first))


def _conf_faults(records: list[LineRecord], parsed: list[_Fields | FormatError]) -> dict[int, str]:
    """Lines whose conf column is present or absent unlike the file's first record."""
    valid = [(index, value) for index, value in enumerate(parsed) if not isinstance(value, FormatError)]
    if not valid:
        return {}
    first_index, first_row = valid[0]
    first_has_conf = first_row[2] is not None
    first_location = records[first_index][0]
    reason = (
        f"'conf' must be present on every line or on none (got no conf column, while {first_location} has one)"
        if first_has_conf
        else f"'conf' must be present on every line or on none (got a conf column, while {first_location} has none)"
    )
    return {index: reason for index, row in valid if (row[2] is not None) != first_has_conf}


def _image_scale(size: Any, param: str) -> np.ndarray:
    """The ``(x, y)`` scale, i.e. ``(width, height)``, of an image size given as ``(height, width)``."""
    values = list(size) if isinstance(size, (tuple, list, np.ndarray)) else []
    if len(values) != 2 or not all(
        isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and v > 0 for v in values
    ):
        raise invalid_argument(param, "(height, width) in pixels, two positive integers", size)
    height, width = values
    return np.array([width, height], dtype=np.float64)


def _sizes_per_file(image_sizes: Any, stems: list[str]) -> list[tuple[int, int] | None]:
    """The image size of each file: from a mapping by stem (which must cover every stem), or one for all."""
    if image_sizes is None:
        return [None] * len(stems)
    if not isinstance(image_sizes, Mapping):
        _image_scale(image_sizes, "image_sizes")
        return [image_sizes] * len(stems)
    missing = [stem for stem in stems if stem not in image_sizes]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise InvalidArgumentError(
            f"'image_sizes' must have a (height, width) for every label file (got none for {missing[0]!r}{more})"
        )
    for stem in stems:
        _image_scale(image_sizes[stem], f'image_sizes["{stem}"]')
    return [image_sizes[stem] for stem in stems]
