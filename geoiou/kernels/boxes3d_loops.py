"""The compiled loops of the 3-D box kernels (`geoiou.kernels.boxes3d`): one function per pair, one loop over rows.

- Yaw boxes (`RotatedBox3D`, 7 numbers): their intersection is a prism, the overlap of their
  footprints (the rotated-box kernel's `intersection_area`, exact) times the overlap of their
  vertical extents (measured from the difference of the centres, the pair in canonical order).
- Oriented boxes (`OrientedBox3D`, 15 numbers): `oriented_overlap.oriented_volume`.
- Hulls of either (GIoU's enclosure): `convex_hull3d.hull_volume`, a yaw box being the oriented
  box of its turn about z.

Each loop reads the rows of the pairs (`Pairs`), measures each pair with one call and applies the
caller's formula (`formulas.value`); `run_rows` runs it on the calling thread or on every core.
Each pair writes only its own output: the same bits for any number of threads.
"""

from __future__ import annotations

import math

import numpy as np

from geoiou._compiled import jit, prange
from geoiou.kernels.convex_hull3d import hull_volume
from geoiou.kernels.formulas import MEASURE, Formula, Pairs
from geoiou.kernels.numba_formulas import PRUNED_COST_NS, Job, run_rows, value
from geoiou.kernels.oriented_overlap import Box15, oriented_volume
from geoiou.kernels.rotated_loops import intersection_area, unit_vector

__all__ = ["oriented_pairs", "oriented_single", "yaw_pairs", "yaw_prism_volume", "yaw_single"]

#: Nanoseconds on one thread per pair (of boxes whose bounds overlap), for `in_parallel`.
YAW_COST_NS = 60.0
ORIENTED_COST_NS = 1500.0
HULL_COST_NS = 8000.0

Yaw = tuple[float, float, float, float, float, float, float]


@jit
def _vertical_overlap(a_z: float, a_dz: float, b_z: float, b_dz: float) -> float:
    """The length shared by ``a_z ± a_dz/2`` and ``b_z ± b_dz/2``, from the difference of the centres.

    The pair is taken in a canonical order (by centre, then size), so swapping it gives the same bits.
    """
    if b_z < a_z or (b_z == a_z and b_dz < a_dz):
        a_z, a_dz, b_z, b_dz = b_z, b_dz, a_z, a_dz
    offset = b_z - a_z
    a_half, b_half = 0.5 * a_dz, 0.5 * b_dz
    return max(min(a_half, offset + b_half) - max(-a_half, offset - b_half), 0.0)


@jit
def yaw_prism_volume(a: Yaw, b: Yaw) -> float:
    """The volume shared by two yaw boxes ``cx, cy, cz, dx, dy, dz, yaw`` (degrees): a prism's.

    In ``[0, min(volumes)]``, exactly the smaller volume for a box inside the other (so a box has
    IoU 1 with itself); the same bits for ``(b, a)``; NaN when a number is NaN.
    """
    height = _vertical_overlap(a[2], a[5], b[2], b[5])
    if math.isnan(height + a[0] + a[1] + a[3] + a[4] + a[6] + b[0] + b[1] + b[3] + b[4] + b[6]):
        return np.nan
    if not height > 0.0:
        return 0.0
    area = intersection_area(a[0], a[1], a[3], a[4], a[6], b[0], b[1], b[3], b[4], b[6])
    return area * height + 0.0


@jit
def _turned(box: Yaw) -> Box15:
    """A yaw box as an oriented one: its rotation about z (exact at quarter turns)."""
    cos, sin = unit_vector(box[6])
    return (box[0], box[1], box[2], box[3], box[4], box[5], cos, -sin, 0.0, sin, cos, 0.0, 0.0, 0.0, 1.0)


@jit
def _yaw_rows(data: tuple[np.ndarray, np.ndarray, bool], job: Job, begin: int, end: int) -> None:
    """The formula of the pairs of the rows ``begin <= r < end`` of two batches of yaw boxes: the
    intersection (`yaw_prism_volume`), or the hull with `hull` (`hull_volume`)."""
    a, b, hull = data
    index_a, index_b, outer, out, code, areas_a, areas_b, given, zero_division = job
    has_given = given.shape[0] > 0
    columns = index_b.shape[0] if outer else 1
    for r in range(begin, end):
        i = index_a[r]
        box_a = (a[i, 0], a[i, 1], a[i, 2], a[i, 3], a[i, 4], a[i, 5], a[i, 6])
        for c in range(columns):
            k = r * columns + c
            j = index_b[c] if outer else index_b[r]
            box_b = (b[j, 0], b[j, 1], b[j, 2], b[j, 3], b[j, 4], b[j, 5], b[j, 6])
            measure = hull_volume(_turned(box_a), _turned(box_b)) if hull else yaw_prism_volume(box_a, box_b)
            out[k] = (
                measure
                if code == MEASURE
                else value(code, measure, areas_a[i], areas_b[j], given[k] if has_given else 0.0, zero_division)
            )


@jit(parallel=True)
def _yaw_parallel(data: tuple[np.ndarray, np.ndarray, bool], job: Job, run: int) -> None:
    rows = job[0].shape[0]
    for step in prange((rows + run - 1) // run):
        _yaw_rows(data, job, step * run, min(rows, (step + 1) * run))


@jit(inline=True)
def _box15(rows: np.ndarray, i: int) -> Box15:
    return (
        rows[i, 0],
        rows[i, 1],
        rows[i, 2],
        rows[i, 3],
        rows[i, 4],
        rows[i, 5],
        rows[i, 6],
        rows[i, 7],
        rows[i, 8],
        rows[i, 9],
        rows[i, 10],
        rows[i, 11],
        rows[i, 12],
        rows[i, 13],
        rows[i, 14],
    )


@jit
def _oriented_rows(data: tuple[np.ndarray, np.ndarray, bool], job: Job, begin: int, end: int) -> None:
    """The formula of the pairs of the rows ``begin <= r < end`` of two batches of oriented boxes."""
    a, b, hull = data
    index_a, index_b, outer, out, code, areas_a, areas_b, given, zero_division = job
    has_given = given.shape[0] > 0
    columns = index_b.shape[0] if outer else 1
    for r in range(begin, end):
        i = index_a[r]
        box_a = _box15(a, i)
        for c in range(columns):
            k = r * columns + c
            j = index_b[c] if outer else index_b[r]
            box_b = _box15(b, j)
            measure = hull_volume(box_a, box_b) if hull else oriented_volume(box_a, box_b)
            out[k] = (
                measure
                if code == MEASURE
                else value(code, measure, areas_a[i], areas_b[j], given[k] if has_given else 0.0, zero_division)
            )


@jit(parallel=True)
def _oriented_parallel(data: tuple[np.ndarray, np.ndarray, bool], job: Job, run: int) -> None:
    rows = job[0].shape[0]
    for step in prange((rows + run - 1) // run):
        _oriented_rows(data, job, step * run, min(rows, (step + 1) * run))


def yaw_pairs(a: np.ndarray, b: np.ndarray, pairs: Pairs, formula: Formula, out: np.ndarray, hull: bool) -> None:
    """`formula` of the intersection (or with `hull`, the convex hull) volumes of `pairs` of yaw boxes ``(..., 7)``."""
    data = (_rows(a, 7), _rows(b, 7), hull)
    cost, matrix_cost = (HULL_COST_NS, None) if hull else (YAW_COST_NS, PRUNED_COST_NS)
    run_rows(_yaw_rows, _yaw_parallel, data, pairs, formula, out, cost, matrix_cost)


def oriented_pairs(a: np.ndarray, b: np.ndarray, pairs: Pairs, formula: Formula, out: np.ndarray, hull: bool) -> None:
    """`formula` of the intersection (or with `hull`, the hull) volumes of `pairs` of oriented boxes ``(..., 15)``."""
    data = (_rows(a, 15), _rows(b, 15), hull)
    cost, matrix_cost = (HULL_COST_NS, None) if hull else (ORIENTED_COST_NS, 4.0 * PRUNED_COST_NS)
    run_rows(_oriented_rows, _oriented_parallel, data, pairs, formula, out, cost, matrix_cost)


def _rows(coords: np.ndarray, width: int) -> np.ndarray:
    """`coords` as read-only C-contiguous rows ``(n, width)``, as a region's usually are: one array type."""
    rows = coords if coords.ndim == 2 else coords.reshape(-1, width)
    if rows.flags.c_contiguous and not rows.flags.writeable:
        return rows
    rows = np.ascontiguousarray(rows)
    view: np.ndarray = rows.view()
    view.flags.writeable = False
    return view


@jit
def yaw_single(a: np.ndarray, b: np.ndarray, code: int, zero_division: float) -> float:
    """The formula `code` of one pair of yaw boxes (rows of 7 numbers): `yaw_prism_volume` and `value`, one call.

    The volumes are those of `RotatedBox3D` (``(dx · dy) · dz``), so the bits are the loop's.
    """
    box_a = (a[0], a[1], a[2], a[3], a[4], a[5], a[6])
    box_b = (b[0], b[1], b[2], b[3], b[4], b[5], b[6])
    measure = yaw_prism_volume(box_a, box_b)
    return value(code, measure, (a[3] * a[4]) * a[5], (b[3] * b[4]) * b[5], 0.0, zero_division)


@jit
def oriented_single(a: np.ndarray, b: np.ndarray, code: int, zero_division: float) -> float:
    """The formula `code` of one pair of oriented boxes (rows of 15 numbers), one call."""
    box_a, box_b = _box15(a.reshape(1, 15), 0), _box15(b.reshape(1, 15), 0)
    measure = oriented_volume(box_a, box_b)
    return value(code, measure, (a[3] * a[4]) * a[5], (b[3] * b[4]) * b[5], 0.0, zero_division)
