"""Polygon kernels on coordinate arrays: the shared area of any two polygons.

Polygon×Polygon runs `polygon_overlap.shared_area` over the candidate pairs (those whose bounds
overlap).

Each pair is put in a canonical order (by a fingerprint of each polygon's vertices) before it is
measured, so ``iou(a, b) == iou(b, a)`` bit for bit.
"""

from __future__ import annotations

import numpy as np

from geoiou.dispatch import register
from geoiou.kernels.pairs import over_candidates
from geoiou.kernels.polygon_overlap import JoinedEdges, shared_area
from geoiou.kernels.polygon_pair import RingPolygon, pair_shared_area
from geoiou.regions import Polygon
from geoiou.regions.ragged import RaggedPolygons

#: Two stores of at most this many edges together are joined for one `shared_area` call: copying them
#: costs less than a second call's fixed cost.
JOIN_EDGES = 1 << 15

__all__ = ["polygon_intersection_area", "polygon_pair_measures"]


@register(Polygon, Polygon, per_candidate=True)
def polygon_intersection_area(a: Polygon, b: Polygon) -> np.ndarray:
    """Area of the intersection of polygons (exact), elementwise with broadcasting."""
    return over_candidates(a, b, _polygon_pairs)


@register(Polygon, Polygon, form="single")
def polygon_pair_measures(a: Polygon, b: Polygon) -> tuple[float, float, float]:
    """One pair's intersection and areas: small simple polygons by the plain-Python rendering of the kernel.

    `polygon_pair` gives the batch kernel's bits without NumPy's per-call cost; other polygons
    (holes, several parts, many vertices) run the batch kernel on the one pair.
    """
    geometry_a, geometry_b = int(a._index), int(b._index)
    if RingPolygon.serves(a._store, geometry_a) and RingPolygon.serves(b._store, geometry_b):
        ring_a, ring_b = RingPolygon(a._store, geometry_a), RingPolygon(b._store, geometry_b)
        return pair_shared_area(ring_a, ring_b), ring_a.area, ring_b.area
    return float(polygon_intersection_area(a, b)), float(a.area), float(b.area)


def _polygon_pairs(a: Polygon, b: Polygon, index_a: np.ndarray, index_b: np.ndarray) -> np.ndarray:
    return canonical_shared_area(a._store, a._index[index_a], b._store, b._index[index_b])


def canonical_shared_area(store_a: RaggedPolygons, geometry_a: np.ndarray, store_b: RaggedPolygons,
                          geometry_b: np.ndarray) -> np.ndarray:
    """`shared_area` of each pair, with the two polygons of a pair in a canonical order.

    The order comes from a fingerprint of each polygon's vertices, so measuring (b, a) runs the
    same arithmetic as (a, b) and gives the same bits. Pairs in either order go to one call
    when the two stores are one, or small enough to join (`JoinedEdges`); a pair's bits do not
    depend on the pairs measured with it.
    """
    swap = store_b.fingerprint[geometry_b] < store_a.fingerprint[geometry_a]
    if not swap.any():
        return shared_area(store_a, store_b, geometry_a, geometry_b)
    if swap.all():
        return shared_area(store_b, store_a, geometry_b, geometry_a)
    if store_a is store_b or len(store_a.edges.x0) + len(store_b.edges.x0) <= JOIN_EDGES:
        both, shift = (store_a, 0) if store_a is store_b else (JoinedEdges.of(store_a, store_b), store_a.size)
        geometry_b = geometry_b + shift
        return shared_area(both, both, np.where(swap, geometry_b, geometry_a), np.where(swap, geometry_a, geometry_b))
    area = np.empty(len(geometry_a))
    area[~swap] = shared_area(store_a, store_b, geometry_a[~swap], geometry_b[~swap])
    area[swap] = shared_area(store_b, store_a, geometry_b[swap], geometry_a[swap])
    return area
