"""MS-TCN's frame-wise label files: ``groundTruth/`` folders, recognition outputs and ``mapping.txt``.

The action-segmentation datasets of MS-TCN (50Salads, GTEA, Breakfast) keep one text file per
video in ``groundTruth/``, one frame label per line (``cut_tomato``, ``background``...), and a
``mapping.txt`` beside it listing the classes as ``index name`` lines. MS-TCN writes its
predictions one file per video, named by the video's stem (no extension), holding a header line
``### Frame level recognition: ###`` and then every frame's label, separated by spaces. Both
layouts are read by `read_mstcn_labels`, into the ``{video: labels}`` mapping that
`geoiou.evaluation.evaluate_action_segmentation` takes.

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "groundTruth").mkdir(), (folder / "results").mkdir()
>>> _ = (folder / "groundTruth" / "video1.txt").write_text("background\\ncut\\ncut\\nbackground\\n")
>>> _ = (folder / "results" / "video1").write_text("### Frame level recognition: ###\\nbackground cut cut cut\\n")
>>> truth = read_mstcn_labels(folder / "groundTruth")
>>> predicted = read_mstcn_labels(folder / "results")
>>> truth.labels["video1"].tolist(), predicted.labels["video1"].tolist()
(['background', 'cut', 'cut', 'background'], ['background', 'cut', 'cut', 'cut'])
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from geoiou._validation import invalid_argument
from geoiou.errors import FormatError
from geoiou.io.report import ReadReport, read_text, source_name

__all__ = ["MSTCN_HEADER", "MstcnLabels", "read_mstcn_labels", "read_mstcn_mapping"]

#: The first line of an MS-TCN recognition file.
MSTCN_HEADER = "### Frame level recognition: ###"


@dataclass(frozen=True)
class MstcnLabels:
    """The frame labels of a folder of MS-TCN files.

    Attributes
    ----------
    labels : dict
        Video name (the file's stem) -> its frame labels, a 1-D array of str, in sorted video order.
    report : ReadReport
        The files read (one record per file).
    """

    labels: dict[str, np.ndarray]
    report: ReadReport


def read_mstcn_labels(path: str | os.PathLike[str], *, mapping: dict[str, int] | None = None) -> MstcnLabels:
    """Read MS-TCN frame-label files: a ``groundTruth/`` folder, a folder of recognition outputs, or one file.

    Each file is one video, named by its stem: a ground-truth file holds one label per line, a
    recognition file the header ``### Frame level recognition: ###`` and then the labels separated
    by white space. Files whose names start with a dot, and ``mapping.txt``, are not videos.

    Parameters
    ----------
    path : path-like
        A folder of such files, or one file.
    mapping : dict, optional
        The classes (``read_mstcn_mapping``): a label outside it is refused, naming the file and line.

    Returns
    -------
    MstcnLabels

    Raises
    ------
    FileNotFoundError
        If `path` does not exist.
    FormatError
        Naming the file (and line) of a file without labels, a header without labels after it, a
        ground-truth line of several words, a label not in `mapping`; or a folder without files.
    """
    root = Path(path)
    if not root.exists():
        raise FileNotFoundError(f"{source_name(path)}: no such file or folder")
    files = (
        [root]
        if root.is_file()
        else sorted(
            (
                entry
                for entry in root.iterdir()
                if entry.is_file() and not entry.name.startswith(".") and entry.name != "mapping.txt"
            ),
            key=lambda entry: entry.name,
        )
    )
    if not files:
        raise FormatError(source_name(path), "", "the folder holds no MS-TCN label files")
    labels: dict[str, np.ndarray] = {}
    for file in files:
        video = file.stem
        if video in labels:
            raise FormatError(
                source_name(file),
                "",
                f"'video' must be named by one file only (got {video!r} twice: with and without an extension?)",
            )
        labels[video] = _file_labels(file, mapping)
    return MstcnLabels(labels, ReadReport(source_name(path), len(labels)))


def _file_labels(path: Path, mapping: dict[str, int] | None) -> np.ndarray:
    lines = read_text(path).split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and lines[0].strip() == MSTCN_HEADER:
        words = " ".join(lines[1:]).split()
        where = "line 2"
    else:
        several = next((number for number, line in enumerate(lines, start=1) if len(line.split()) != 1), None)
        if several is not None:
            raise FormatError(
                source_name(path),
                f"line {several}",
                "expected one frame label per line, or the "
                f"header {MSTCN_HEADER!r} of a recognition file (got {lines[several - 1]!r})",
            )
        words = [line.strip() for line in lines]
        where = ""
    if not words:
        raise FormatError(source_name(path), where, "'labels' must be at least one frame label (got none)")
    array = np.array(words, dtype=str)
    if mapping is not None:
        unknown = np.flatnonzero(~np.isin(array, list(mapping)))
        if unknown.size:
            first = int(unknown[0])
            location = where or f"line {first + 1}"
            raise FormatError(
                source_name(path),
                location,
                f"'label' must be a class of mapping.txt (got "
                f"{str(array[first])!r} at frame {first}; the classes are {list(mapping)[:8]}...)",
            )
    return array


def read_mstcn_mapping(path: str | os.PathLike[str]) -> dict[str, int]:
    """Read MS-TCN's ``mapping.txt``: one ``index name`` line per class, into ``{name: index}``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "mapping.txt"
    >>> _ = path.write_text("0 background\\n1 cut\\n")
    >>> read_mstcn_mapping(path)
    {'background': 0, 'cut': 1}
    """
    mapping: dict[str, int] = {}
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 2 or not fields[0].isdigit():
            raise FormatError(source_name(path), f"line {number}", f"expected 'index name' (got {line!r})")
        if fields[1] in mapping:
            raise FormatError(source_name(path), f"line {number}", f"'name' must be unique (got {fields[1]!r} twice)")
        mapping[fields[1]] = int(fields[0])
    if not mapping:
        raise invalid_argument("mapping", "a mapping.txt with at least one class", source_name(path))
    return mapping
