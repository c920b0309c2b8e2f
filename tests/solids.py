"""Independent oracles for 3-D boxes, shared by the tests: none calls geoiou's kernels.

* `box_halfspaces` / `intersection_volume`: the intersection of two boxes as the intersection of
  their twelve half-spaces (SciPy's `HalfspaceIntersection`, an interior point found by a linear
  program, the volume by `ConvexHull`), from the boxes' defining numbers (centre, sizes, rotation).
* `hull_volume`: SciPy's `ConvexHull` of the sixteen corners, corners computed here.
* `sampled_volume`: a Monte Carlo estimate (points in the first box, counted in the second).
* `yaw_box_parts`: the footprint of a yaw box as a shapely polygon and its vertical extent, for the
  BEV oracle (shapely overlay times the height overlap).

Import as ``from solids import ...`` (pytest puts ``tests/`` on the path).
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from scipy.optimize import linprog
from scipy.spatial import ConvexHull, HalfspaceIntersection

__all__ = [
    "box_corners",
    "box_halfspaces",
    "hull_volume",
    "intersection_volume",
    "parts_of",
    "sampled_volume",
    "yaw_box_parts",
    "yaw_matrix",
]

#: Corner signs (any order: the oracles only take hulls of them).
_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=np.float64)


def yaw_matrix(yaw_degrees: float) -> np.ndarray:
    """The turn about +z by `yaw_degrees`, by the textbook formula (math.cos of the radians)."""
    theta = math.radians(yaw_degrees)
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def parts_of(box) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(centre, sizes, rotation)`` of one geoiou 3-D box, from its defining numbers (no geoiou geometry)."""
    import geoiou

    if isinstance(box, geoiou.Box3D):
        x1, y1, z1, x2, y2, z2 = box.to_array()
        return np.array([(x1 + x2) / 2, (y1 + y2) / 2, (z1 + z2) / 2]), np.array([x2 - x1, y2 - y1, z2 - z1]), np.eye(3)
    if isinstance(box, geoiou.RotatedBox3D):
        cx, cy, cz, dx, dy, dz, yaw = box.to_array()
        return np.array([cx, cy, cz]), np.array([dx, dy, dz]), yaw_matrix(yaw)
    return box.centre, box.sizes, box.rotation


def box_corners(centre: np.ndarray, sizes: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """The eight corners ``centre + R (±d/2)``."""
    return centre + (_SIGNS * (np.asarray(sizes) / 2)) @ np.asarray(rotation).T


def box_halfspaces(centre: np.ndarray, sizes: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """The six half-spaces ``n·x + b <= 0`` of a box, as rows ``(n, b)``."""
    rows = []
    for j in range(3):
        normal = np.asarray(rotation)[:, j]
        offset = float(normal @ centre)
        rows.append(np.r_[normal, -offset - sizes[j] / 2])
        rows.append(np.r_[-normal, offset - sizes[j] / 2])
    return np.array(rows)


def intersection_volume(a, b) -> float:
    """The volume shared by two boxes (each ``(centre, sizes, rotation)``), by SciPy's halfspace intersection.

    An interior point is the centre of the largest ball inside both (a linear program); a ball of
    radius below 1e-9 of the boxes' size means the intersection has no volume to speak of: 0.
    """
    spaces = np.vstack([box_halfspaces(*a), box_halfspaces(*b)])
    norms = np.linalg.norm(spaces[:, :3], axis=1)
    found = linprog(
        np.r_[0.0, 0.0, 0.0, -1.0],
        A_ub=np.c_[spaces[:, :3], norms],
        b_ub=-spaces[:, 3],
        bounds=[(None, None)] * 3 + [(0, None)],
    )
    scale = max(float(np.max(a[1])), float(np.max(b[1])))
    if found.status != 0 or found.x[3] <= 1e-9 * scale:
        return 0.0
    meet = HalfspaceIntersection(spaces, found.x[:3])
    return float(ConvexHull(meet.intersections).volume)


def hull_volume(a, b) -> float:
    """The volume of the convex hull of two boxes' corners (SciPy's `ConvexHull`, Qhull)."""
    return float(ConvexHull(np.vstack([box_corners(*a), box_corners(*b)])).volume)


def sampled_volume(a, b, count: int, seed: int = 0) -> tuple[float, float]:
    """A Monte Carlo estimate of the shared volume and its standard error: points uniform in `a`, counted in `b`."""
    centre_a, sizes_a, rotation_a = a
    centre_b, sizes_b, rotation_b = b
    gen = np.random.default_rng(seed)
    local = (gen.random((count, 3)) - 0.5) * sizes_a
    points = centre_a + local @ np.asarray(rotation_a).T
    in_b = np.all(np.abs((points - centre_b) @ np.asarray(rotation_b)) <= np.asarray(sizes_b) / 2, axis=1)
    volume_a = float(np.prod(sizes_a))
    share = in_b.mean()
    return volume_a * share, volume_a * math.sqrt(share * (1 - share) / count)


def yaw_box_parts(box) -> tuple[shapely.Polygon, float, float]:
    """The footprint polygon of a yaw box (corners by the textbook rotation) and its bottom and top."""
    centre, sizes, rotation = parts_of(box)
    plane = rotation[:2, :2]
    corners = [
        centre[:2] + plane @ (np.array([sx, sy]) * sizes[:2] / 2) for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
    ]
    return shapely.Polygon(corners), centre[2] - sizes[2] / 2, centre[2] + sizes[2] / 2
