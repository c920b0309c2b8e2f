"""The compiled hulls of a polygon store: where certain, the vertices of GEOS's hull, so GIoU's hulls are the same."""

from __future__ import annotations

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

import geoiou
from geoiou.kernels.hull import union_hull_areas
from geoiou._core import HULL_MOST_POINTS as MOST_POINTS
from geoiou._core import exterior_hulls
from geoiou.regions.hulls import ConvexHulls
from geoiou.regions.ragged import RaggedPolygons
from tests.strategies import polygon_strategy

PROPERTY_SETTINGS = settings(max_examples=200, deadline=None, derandomize=True)


def hull_sets(hulls: ConvexHulls) -> list[set[tuple[float, float]]]:
    return [set(map(tuple, hulls.coords[hulls.offsets[g] : hulls.offsets[g + 1]].tolist())) for g in range(len(hulls))]


def compiled_hulls(store: RaggedPolygons) -> tuple[ConvexHulls, bool]:
    coords, offsets, certain = exterior_hulls(
        store.coords, store.ring_offsets, store.part_offsets, store.geometry_offsets
    )
    return ConvexHulls(coords, offsets), certain


@PROPERTY_SETTINGS
@given(st.lists(polygon_strategy(span=4.0, holes=True, multi=True), min_size=1, max_size=4))
def test_certain_hulls_have_the_vertices_of_geos_hulls_and_give_the_same_giou_enclosures(polygons):
    store = geoiou.Polygon.from_shapely(np.array([p.to_shapely() for p in polygons], dtype=object))._store
    compiled, certain = compiled_hulls(store)
    geos = ConvexHulls.of_geometries(store.shapely)
    if not certain:
        return  # the store then takes shapely's hulls
    assert hull_sets(compiled) == hull_sets(geos)
    rows = np.arange(store.size)
    index_a, index_b = np.repeat(rows, store.size), np.tile(rows, store.size)
    np.testing.assert_array_equal(
        union_hull_areas(compiled, rows, index_a, compiled, rows, index_b),
        union_hull_areas(geos, rows, index_a, geos, rows, index_b),
    )


@PROPERTY_SETTINGS
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=3, max_size=10))
def test_points_on_a_grid_are_certain_only_where_no_three_are_nearly_on_a_line(points):
    # Integer points: collinear triples abound; the compiled hull then answers nothing rather than guess.
    ring = np.array(points + points[:1], dtype=float)
    store = RaggedPolygons.from_closed_rings(ring, np.array([0, len(ring)]))
    compiled, certain = compiled_hulls(store)
    if certain:
        geos = shapely.convex_hull(shapely.MultiPoint(points))
        assert hull_sets(compiled)[0] == set(map(tuple, shapely.get_coordinates(geos).tolist()))


def test_holes_do_not_count_and_large_polygons_go_to_shapely():
    ring = shapely.box(0, 0, 4, 4)
    with_hole = shapely.Polygon(ring.exterior, [shapely.box(1, 1, 2, 2).exterior])
    store = geoiou.Polygon.from_shapely(np.array([with_hole], dtype=object))._store
    compiled, certain = compiled_hulls(store)
    assert certain and hull_sets(compiled)[0] == {(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (0.0, 4.0)}
    angles = np.linspace(0, 2 * np.pi, MOST_POINTS + 1, endpoint=False)
    circle = geoiou.Polygon(np.column_stack([np.cos(angles), np.sin(angles)]))._store
    assert not compiled_hulls(circle)[1]
    assert len(circle.convex_hulls) == 1  # from shapely
