"""The area of the convex hull of two convex polygons (the GIoU enclosure), one pass of the crate over the pairs.

Each region's convex hull comes from the region layer (`geoiou.regions.hulls.ConvexHulls`,
computed once per polygon store, once per pixel store for masks). The crate (src/hull.rs) derives,
once per `ConvexHulls` (`hull_tables`, cached on it): each hull counter-clockwise, in a frame
centred on its bounds, starting at the edge whose outward normal has the smallest angle, with the
pseudo-angle of every edge's normal (rising along the hull), the running shoelace sum, and a first
guess of the furthest vertex for each of 64 direction buckets. Then one pass (`hull_pairs`)
measures each pair and applies the formula:

- *hulls whose bounds are apart* (most pairs of a pairwise matrix): from their two outer
  tangents (bridges). A bridge starts from both hulls' furthest vertices in the direction normal
  to the line between the centres (the bucket's guess and a step), and is turned to the normal
  of the line through its ends until both ends stay the furthest vertices in that normal (then
  both hulls lie on one side of it). The area is the two chains the bridges cut off the hulls
  (running sums, each in its hull's frame) and the quadrilateral between them. This path is
  symmetric by construction;
- *other pairs*, a bridge not settled in 8 turns, and hulls of more than 256 vertices: both hulls
  walked together in the order of their edges' normals, as rotating calipers do (`_walked`).
  Between two consecutive normal directions each hull has one extreme vertex, and the hull of the
  union passes through the one further out: listing the extreme points in order gives the hull's
  vertices, and the shoelace sum over them is twice its area. The walk takes the pair in a
  canonical order (vertex count, centre, vertices).

Every point is held as its hull's centre plus a vertex in the hull's own frame, and the pair is
measured in the frame of its first hull: a product with a point of the second hull is expanded
(``(t + p) × (t + q) = t × (q - p) + p × q`` with t joining the centres), so no term is the
distance between the hulls times itself, and hulls 1e8 apart keep every digit. ``(a, b)`` and
``(b, a)`` give the same bits, and each pair writes only its own output cell, so any number of
threads gives the same bits too.
"""

from __future__ import annotations

import numpy as np

from geoiou import _core
from geoiou._contiguous import contiguous
from geoiou.kernels.formulas import MEASURED, Formula, Pairs, indices
from geoiou.regions.hulls import ConvexHulls

__all__ = ["hull_pairs", "hull_tables", "union_hull_areas"]

#: The key under which `hull_tables` caches its tables on a `ConvexHulls`.
_TABLES = "union_hull"


def hull_tables(hulls: ConvexHulls) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's tables of `hulls` (derived on first use, then cached on them): vertices, frames, slots, guesses.

    Hull k owns the rows ``slots[k] .. slots[k + 1] - 1`` of ``vertices`` ``(V, 6)``: its
    ``count`` vertices counter-clockwise, then vertex 0 again (with an infinite angle and the
    whole running sum, twice the hull's area); the columns are x, y, angle, running sum, edge.
    ``frames[k]`` ``(6,)`` holds its centre and bounds
    (NaN for an empty hull). ``guesses[k, d]`` is the number of the hull's normals whose
    pseudo-angle is below ``d / 16``: where the search for the vertex furthest in a direction of
    that bucket starts.

    Examples
    --------
    >>> import shapely
    >>> square = ConvexHulls.from_shapely(np.array([shapely.box(0, 0, 2, 2)], dtype=object))
    >>> vertices, frames, slots, guesses = hull_tables(square)
    >>> vertices[:, :4].tolist(), frames.tolist(), slots.tolist()  # doctest: +NORMALIZE_WHITESPACE
    ([[1.0, -1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 2.0], [-1.0, 1.0, 2.0, 4.0], [-1.0, -1.0, 3.0, 6.0],
      [1.0, -1.0, inf, 8.0]], [[1.0, 1.0, 0.0, 0.0, 2.0, 2.0]], [0, 5])
    """
    tables: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = hulls.derived.get(_TABLES)
    if tables is None:
        tables = _core.hull_tables(contiguous(hulls.coords).reshape(-1, 2), indices(hulls.offsets))
        hulls.derived[_TABLES] = tables
    return tables


def union_hull_areas(
    hulls_a: ConvexHulls,
    rows_a: np.ndarray,
    index_a: np.ndarray,
    hulls_b: ConvexHulls,
    rows_b: np.ndarray,
    index_b: np.ndarray,
) -> np.ndarray:
    """Area of the convex hull of ``hull_a[rows_a[index_a[k]]] ∪ hull_b[rows_b[index_b[k]]]`` for every k.

    `rows_a` maps a batch's regions to their hulls (int64), `index_a` picks the pairs' regions.

    Examples
    --------
    >>> import shapely
    >>> squares = ConvexHulls.from_shapely(np.array([shapely.box(0, 0, 1, 1), shapely.box(2, 0, 3, 1)], dtype=object))
    >>> rows = np.array([0, 1])
    >>> union_hull_areas(squares, rows, np.array([0, 0]), squares, rows, np.array([1, 0]))  # side by side; itself
    array([3., 1.])
    """
    out = np.empty(len(index_a))
    hull_pairs(hulls_a, rows_a, hulls_b, rows_b, Pairs(indices(index_a), indices(index_b)), MEASURED, out)
    return out


def hull_pairs(
    hulls_a: ConvexHulls,
    rows_a: np.ndarray,
    hulls_b: ConvexHulls,
    rows_b: np.ndarray,
    pairs: Pairs,
    formula: Formula,
    out: np.ndarray,
) -> None:
    """`apply` `formula` to the area of the convex hull of each of `pairs`, region i of `a` being hull ``rows_a[i]``."""
    _core.hull_pairs(
        (*hull_tables(hulls_a), indices(rows_a)), (*hull_tables(hulls_b), indices(rows_b)), pairs, formula, out
    )


def _walked(
    a: np.ndarray, start_a: int, count_a: int, b: np.ndarray, start_b: int, count_b: int, t_x: float, t_y: float
) -> float:
    """Twice the hull's area of the hulls at rows `start_a` and `start_b` of the vertex tables by the walk alone.

    The rotating-calipers walk that measures the pairs not bridged, called on any pair (for the
    tests, which hold it to shapely's areas on pairs apart too); b's centre is at ``(t_x, t_y)``
    in a's frame.
    """
    return _core.hull_walked(a, (int(start_a), int(count_a)), b, (int(start_b), int(count_b)), (float(t_x), float(t_y)))
