"""KITTI object labels: a folder of ``label_2`` files (ground truth) or of result files (with a score).

Each file is one image (its stem, ``000123``), each line one object::

    type truncated occluded alpha x1 y1 x2 y2 h w l x y z ry [score]

Ground-truth lines have 15 fields, result lines 16. A whole folder is read as one table by one
compiled pass over its bytes (`geoiou.io.text_table`); a file with a line that is not plain (another
count of fields, a field that is not a number) is read line by line, which names the file and the
line.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from geoiou.errors import FormatError
from geoiou.io.folders import label_files, line_records
from geoiou.io.report import float_field, read_bytes, source_name
from geoiou.tables.kitti import KittiObjects

__all__ = ["read_kitti_labels"]

#: Fields of a ground-truth line and of a result line.
LABEL_FIELDS, RESULT_FIELDS = 15, 16
#: The numeric fields' names, for messages.
FIELD_NAMES = ("truncated", "occluded", "alpha", "x1", "y1", "x2", "y2", "h", "w", "l", "x", "y", "z", "ry", "score")


def read_kitti_labels(folder: str | os.PathLike[str]) -> KittiObjects:
    """Read a folder of KITTI label files (``label_2``) or result files into a `KittiObjects` table.

    Parameters
    ----------
    folder : path
        A folder of ``*.txt`` files, one per image (an empty file is an image without objects), or
        one such file.

    Returns
    -------
    KittiObjects
        One row per line; ``score`` holds the results' last field (None for ground truth);
        ``images`` lists every file's stem.

    Raises
    ------
    FormatError
        Naming the file and the line, for a line of another count of fields, a field that is not a
        number, or a folder mixing ground-truth and result lines.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "000000.txt").write_text(
    ...     "Car 0.00 0 -1.57 599.41 156.40 629.75 189.25 1.53 1.63 3.88 2.84 1.47 8.41 0.01\\n"
    ...     "DontCare -1 -1 -10 503.89 169.71 590.61 190.13 -1 -1 -1 -1000 -1000 -1000 -10\\n")
    >>> _ = (folder / "000001.txt").write_text("")
    >>> labels = read_kitti_labels(folder)
    >>> labels.type.tolist(), labels.images, labels.score is None
    (['Car', 'DontCare'], ('000000', '000001'), True)
    >>> labels.boxes3d[0].to_array().round(3)  # the z-up frame: (z, -x, h/2 - y), l w h, -90° - ry
    array([  8.41 ,  -2.84 ,  -0.705,   3.88 ,   1.63 ,   1.53 , -90.573])
    """
    from geoiou.io.text_table import FieldTable  # compiled (numba): loaded by the first file read

    paths = label_files(folder)
    texts = [read_bytes(path) for path in paths]
    stems = [path.stem for path in paths]
    table = FieldTable.of(texts, (LABEL_FIELDS, RESULT_FIELDS))
    if table is not None:
        numbers = table.numbers(slice(1, table.shape[1]))
        if numbers is not None:
            image_id = np.repeat(np.array(stems, dtype=str), table.lines_per_text)
            return _objects(image_id, np.array(table.strings(0), dtype=str), numbers, stems)
    return _read_lines(folder, paths, stems)


def _objects(image_id: np.ndarray, types: np.ndarray, numbers: np.ndarray, stems: list[str]) -> KittiObjects:
    """The table of the columns of plain lines (`numbers`: the 14 or 15 numeric fields of each)."""
    return KittiObjects(
        image_id=image_id,
        type=types,
        truncated=numbers[:, 0],
        occluded=numbers[:, 1],
        alpha=numbers[:, 2],
        bbox=numbers[:, 3:7],
        dimensions=numbers[:, 7:10],
        location=numbers[:, 10:13],
        rotation_y=numbers[:, 13],
        score=numbers[:, 14] if numbers.shape[1] == RESULT_FIELDS - 1 else None,
        images=stems,
    )


def _read_lines(folder: str | os.PathLike[str], paths: list[Path], stems: list[str]) -> KittiObjects:
    """The folder read line by line: the path of files with a line that is not plain, which it names."""
    ids, types, rows = [], [], []
    widths = set()
    for path, stem in zip(paths, stems):
        for location, fields in line_records(path):
            if len(fields) not in (LABEL_FIELDS, RESULT_FIELDS):
                raise FormatError(
                    source_name(path),
                    location,
                    f"a KITTI line must have {LABEL_FIELDS} fields (labels) or {RESULT_FIELDS} (results: a score last)"
                    f" (got {len(fields)})",
                )
            try:
                values = [float_field(text, name) for text, name in zip(fields[1:], FIELD_NAMES)]
            except FormatError as error:
                raise FormatError(source_name(path), location, error.reason) from None
            widths.add(len(fields))
            ids.append(stem)
            types.append(fields[0])
            rows.append(values)
    if len(widths) > 1:
        raise FormatError(
            source_name(folder), "", "the files must hold labels (15 fields) or results (16 fields), not both"
        )
    numbers = np.array(rows, dtype=np.float64).reshape(len(rows), (widths.pop() if widths else LABEL_FIELDS) - 1)
    return _objects(np.array(ids, dtype=str), np.array(types, dtype=str), numbers, stems)
