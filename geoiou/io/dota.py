"""DOTA v1/v1.5 label files: ``x1 y1 x2 y2 x3 y3 x4 y4 class difficult`` per object."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from geoiou.errors import InvalidRegionError
from geoiou.regions import Polygon

__all__ = ["DotaObjects", "read_dota"]

HEADER_KEYS = ("imagesource:", "gsd:")


@dataclass(frozen=True)
class DotaObjects:
    """The objects of one DOTA label file."""

    #: The quadrilaterals, a batch of shape (N,).
    polygons: Polygon
    #: Corner coordinates as written, shape (N, 4, 2).
    corners: np.ndarray
    #: Class name of each object.
    classes: tuple[str, ...]
    #: The "difficult" flag of each object, shape (N,).
    difficult: np.ndarray


def read_dota(path: str | os.PathLike[str]) -> DotaObjects:
    """Read a DOTA label file into polygons, class names and difficult flags.

    The two optional header lines (``imagesource:``, ``gsd:``) are skipped; every other non-blank
    line must hold eight numbers, a class name and optionally a 0/1 difficult flag (DOTA v1.5 test
    files omit it; it then counts as 0).

    Raises
    ------
    InvalidRegionError
        Naming the file, the line and what was wrong, for a malformed line or an invalid quadrilateral.

    Examples
    --------
    >>> from importlib.resources import files
    >>> objects = read_dota(files("geoiou") / "data" / "dota" / "P0770.txt")
    >>> objects.polygons.shape, objects.classes[0]
    ((22,), 'ground-track-field')
    """
    corners, classes, difficult = [], [], []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            fields = line.split()
            if not fields or fields[0].startswith(HEADER_KEYS):
                continue
            corners.append(_corner_values(fields, path, number))
            classes.append(fields[8])
            difficult.append(_difficult_flag(fields, path, number))
    corner_array = np.array(corners, dtype=np.float64).reshape(-1, 4, 2)
    try:
        polygons = Polygon.from_rings(list(corner_array))
    except InvalidRegionError as error:
        raise InvalidRegionError(f"{os.fspath(path)}: {error}") from None
    return DotaObjects(polygons, corner_array, tuple(classes), np.array(difficult, dtype=bool))


def _corner_values(fields: list[str], path: str | os.PathLike[str], number: int) -> list[float]:
    if len(fields) not in (9, 10):
        raise InvalidRegionError(
            f"{os.fspath(path)}, line {number}: expected 8 coordinates, a class and a difficult flag "
            f"(got {len(fields)} fields: {' '.join(fields)!r})"
        )
    try:
        values = [float(value) for value in fields[:8]]
    except ValueError:
        raise InvalidRegionError(f"{os.fspath(path)}, line {number}: coordinates must be numbers (got {fields[:8]})") from None
    if not np.isfinite(values).all():
        raise InvalidRegionError(f"{os.fspath(path)}, line {number}: coordinates must be finite (got {fields[:8]})")
    return values


def _difficult_flag(fields: list[str], path: str | os.PathLike[str], number: int) -> bool:
    if len(fields) == 9:
        return False
    if fields[9] not in ("0", "1"):
        raise InvalidRegionError(f"{os.fspath(path)}, line {number}: difficult flag must be 0 or 1 (got {fields[9]!r})")
    return fields[9] == "1"
