"""The compiled volume of the convex hull of two oriented 3-D boxes (GIoU's enclosure in 3-D), one pair per call.

The pair is put in the frame of its canonical first box (centred on it, along its axes: only
differences of centres enter), a box inside the other gives the larger volume exactly, and
otherwise the hull of the sixteen corners is built incrementally: a tetrahedron, then each corner
that sees some faces replaces them by a fan of faces from the horizon to it. A corner within a
tolerance of a face's plane (``1e-13`` of the cube of the points' extent in the triple product) does
not see it, so coplanar corners (every face of a box has four) and repeated ones are skipped; the
volume is then within that tolerance of the true hull's. Sixteen corners coplanar within it (two
flat boxes in one plane) have a hull of volume 0. The volume is the sum of the tetrahedra from an
interior point to each face.
"""

from __future__ import annotations

import math

import numpy as np

from geoiou._compiled import jit
from geoiou.kernels.oriented_overlap import Box15, any_nan, comes_before, contained, pair_in_frame

__all__ = ["hull_volume", "points_hull_volume"]

#: Face slots: a hull of n points has at most 2n - 4 faces; dead faces are reused.
_MAX_FACES = 64
#: Relative tolerance of the orientation tests (of the triple product, against the extent cubed).
_TOLERANCE = 1e-13


@jit
def _orient(points: np.ndarray, a: int, b: int, c: int, q: int) -> float:
    """``((b - a) × (c - a)) · (q - a)``: positive when `q` is on the side the face (a, b, c) faces."""
    ux, uy, uz = points[b, 0] - points[a, 0], points[b, 1] - points[a, 1], points[b, 2] - points[a, 2]
    vx, vy, vz = points[c, 0] - points[a, 0], points[c, 1] - points[a, 1], points[c, 2] - points[a, 2]
    wx, wy, wz = points[q, 0] - points[a, 0], points[q, 1] - points[a, 1], points[q, 2] - points[a, 2]
    return float(wx * (uy * vz - uz * vy) + wy * (uz * vx - ux * vz) + wz * (ux * vy - uy * vx))


@jit
def _first_simplex(points: np.ndarray, n: int, extent: float) -> tuple[int, int, int, int]:
    """Four points spanning a tetrahedron (the last -1 if all are coplanar within the tolerance)."""
    i0 = 0
    for k in range(1, n):
        if points[k, 0] < points[i0, 0]:
            i0 = k
    i1, best = -1, (_TOLERANCE * extent) ** 2
    for k in range(n):
        dx, dy, dz = points[k, 0] - points[i0, 0], points[k, 1] - points[i0, 1], points[k, 2] - points[i0, 2]
        d = dx * dx + dy * dy + dz * dz
        if d > best:
            i1, best = k, d
    if i1 < 0:
        return i0, -1, -1, -1
    ux, uy, uz = points[i1, 0] - points[i0, 0], points[i1, 1] - points[i0, 1], points[i1, 2] - points[i0, 2]
    i2, best = -1, (_TOLERANCE * extent * extent) ** 2
    for k in range(n):
        vx, vy, vz = points[k, 0] - points[i0, 0], points[k, 1] - points[i0, 1], points[k, 2] - points[i0, 2]
        d = (uy * vz - uz * vy) ** 2 + (uz * vx - ux * vz) ** 2 + (ux * vy - uy * vx) ** 2
        if d > best:
            i2, best = k, d
    if i2 < 0:
        return i0, i1, -1, -1
    i3, best = -1, _TOLERANCE * extent**3
    for k in range(n):
        d = abs(_orient(points, i0, i1, i2, k))
        if d > best:
            i3, best = k, d
    return i0, i1, i2, i3


@jit
def points_hull_volume(points: np.ndarray, n: int) -> float:
    """The volume of the convex hull of ``points[:n]`` (at most 64 faces: n <= 34), 0 for coplanar points."""
    extent = 0.0
    for c in range(3):
        low, high = points[0, c], points[0, c]
        for k in range(1, n):
            low, high = min(low, points[k, c]), max(high, points[k, c])
        extent = max(extent, high - low)
    if not extent > 0.0:
        return 0.0
    i0, i1, i2, i3 = _first_simplex(points, n, extent)
    if i3 < 0:
        return 0.0
    if _orient(points, i0, i1, i2, i3) > 0.0:
        i1, i2 = i2, i1  # the fourth point below the first face: every face then faces outwards
    faces = np.empty((_MAX_FACES, 3), dtype=np.int64)
    alive = np.zeros(_MAX_FACES, dtype=np.bool_)
    visible = np.zeros(_MAX_FACES, dtype=np.bool_)
    edge_face = np.full((n, n), -1, dtype=np.int64)  # edge_face[u, v]: the face holding the directed edge u -> v
    horizon = np.empty((_MAX_FACES * 3, 2), dtype=np.int64)
    count = 0
    for a, b, c in ((i0, i1, i2), (i0, i3, i1), (i1, i3, i2), (i2, i3, i0)):
        faces[count, 0], faces[count, 1], faces[count, 2] = a, b, c
        alive[count] = True
        edge_face[a, b], edge_face[b, c], edge_face[c, a] = count, count, count
        count += 1
    tolerance = _TOLERANCE * extent**3
    for q in range(n):
        if q == i0 or q == i1 or q == i2 or q == i3:
            continue
        seen = False
        for f in range(count):
            visible[f] = alive[f] and _orient(points, faces[f, 0], faces[f, 1], faces[f, 2], q) > tolerance
            seen = seen or visible[f]
        if not seen:
            continue
        edges = 0
        for f in range(count):
            if visible[f]:
                for e in range(3):
                    u, v = faces[f, e], faces[f, (e + 1) % 3]
                    other = edge_face[v, u]
                    if other < 0 or not visible[other]:
                        horizon[edges, 0], horizon[edges, 1] = u, v
                        edges += 1
        for f in range(count):
            if visible[f]:
                alive[f] = False
                visible[f] = False
        for e in range(edges):
            slot = 0
            while slot < count and alive[slot]:
                slot += 1
            if slot == count:
                if count == _MAX_FACES:
                    return np.nan  # beyond the sizes this function is written for (n <= 34)
                count += 1
            u, v = horizon[e, 0], horizon[e, 1]
            faces[slot, 0], faces[slot, 1], faces[slot, 2] = u, v, q
            alive[slot] = True
            edge_face[u, v], edge_face[v, q], edge_face[q, u] = slot, slot, slot
    # Tetrahedra from the first simplex's centroid, inside the hull: every term is positive.
    ox = (points[i0, 0] + points[i1, 0] + points[i2, 0] + points[i3, 0]) / 4.0
    oy = (points[i0, 1] + points[i1, 1] + points[i2, 1] + points[i3, 1]) / 4.0
    oz = (points[i0, 2] + points[i1, 2] + points[i2, 2] + points[i3, 2]) / 4.0
    total = 0.0
    for f in range(count):
        if alive[f]:
            a, b, c = faces[f, 0], faces[f, 1], faces[f, 2]
            ax, ay, az = points[a, 0] - ox, points[a, 1] - oy, points[a, 2] - oz
            bx, by, bz = points[b, 0] - ox, points[b, 1] - oy, points[b, 2] - oz
            cx, cy, cz = points[c, 0] - ox, points[c, 1] - oy, points[c, 2] - oz
            total += ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx)
    return total / 6.0


@jit
def hull_volume(a: Box15, b: Box15) -> float:
    """The volume of the convex hull of two oriented boxes (15 numbers each), at least the larger volume.

    Exactly the larger volume when a box is inside the other; the same bits for ``(b, a)``; NaN when
    a number is NaN.
    """
    if any_nan(a, b):
        return np.nan
    if comes_before(b, a):
        a, b = b, a
    larger = max((a[3] * a[4]) * a[5], (b[3] * b[4]) * b[5])
    t, rel, half_f, half_o = pair_in_frame(a, b)
    if contained(t, rel, half_f, half_o):
        return larger
    points = np.empty((16, 3))
    for corner in range(8):
        signs = (-1.0 if corner & 4 == 0 else 1.0, -1.0 if corner & 2 == 0 else 1.0, -1.0 if corner & 1 == 0 else 1.0)
        for k in range(3):
            points[corner, k] = signs[k] * half_f[k]
            offset = t[k]
            for j in range(3):
                offset += rel[k, j] * (signs[j] * half_o[j])
            points[8 + corner, k] = offset
    volume = points_hull_volume(points, 16)
    if not math.isfinite(volume):
        # Products of coordinates near 2**336 overflow: the same hull on lengths scaled by 2**-128 (exact).
        scale = 2.0**-128
        for corner in range(16):
            for k in range(3):
                points[corner, k] *= scale
        volume = points_hull_volume(points, 16) * 2.0**384
    return max(volume, larger)
