"""Polygons as coordinate arrays: constructors, validation, conversions and the measures of the store."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import shapely

import geoiou
from geoiou.errors import InvalidRegionError
from geoiou.regions.ragged import RaggedPolygons, ragged_arange
from tests.strategies import random_multipolygons, random_polygons, random_polygons_with_holes, rng


def mixed_geometries(seed: int = 0) -> np.ndarray:
    """Simple rings, rings with holes, MultiPolygons (some reversed) and an empty polygon."""
    gen = rng(seed)
    geoms = np.concatenate(
        [
            random_polygons(gen, 8).to_shapely(),
            random_polygons_with_holes(gen, 4).to_shapely(),
            random_multipolygons(gen, 4).to_shapely(),
            np.array([shapely.Polygon()], dtype=object),
        ]
    )
    geoms[::3] = shapely.reverse(geoms[::3])  # clockwise exteriors and counter-clockwise holes too
    return geoms


# --------------------------------------------------------------------------- measures
def test_area_bounds_and_centroid_equal_shapely_whatever_the_ring_directions():
    geoms = mixed_geometries()
    polygons = geoiou.Polygon.from_shapely(geoms)
    np.testing.assert_allclose(polygons.area, shapely.area(geoms), rtol=1e-13)
    np.testing.assert_array_equal(polygons.bounds, shapely.bounds(geoms))
    present = ~shapely.is_empty(geoms)
    centroids = shapely.centroid(geoms[present])
    expected = np.stack([shapely.get_x(centroids), shapely.get_y(centroids)], axis=-1)
    np.testing.assert_allclose(polygons.centroid[present], expected, rtol=1e-12, atol=1e-12)
    assert np.isnan(polygons.centroid[~present]).all() and polygons.area[~present].tolist() == [0.0]


def test_area_far_from_the_origin_keeps_its_digits():
    # Each ring's area is taken relative to its first vertex: a unit square at 1e9 has area exactly 1.
    assert geoiou.Polygon([(1e9, 1e9), (1e9 + 1, 1e9), (1e9 + 1, 1e9 + 1), (1e9, 1e9 + 1)]).area == 1.0


# --------------------------------------------------------------------------- constructors agree
def test_ragged_arrays_round_trip_through_shapely_and_back():
    geoms = mixed_geometries(1)
    polygons = geoiou.Polygon.from_shapely(geoms)
    coords, rings, parts, geometries = polygons.to_ragged()
    again = geoiou.Polygon.from_ragged(coords, rings, parts, geometries)
    assert shapely.equals_exact(again.to_shapely(), geoms, tolerance=0).all()
    # The layout is shapely's own for MultiPolygons.
    kind, shapely_coords, offsets = shapely.to_ragged_array(geoms)
    assert kind == shapely.GeometryType.MULTIPOLYGON
    np.testing.assert_array_equal(coords, shapely_coords)
    for ours, theirs in zip((rings, parts, geometries), offsets):
        np.testing.assert_array_equal(ours, theirs)


def test_rings_as_an_array_a_list_open_or_closed_give_the_same_polygons():
    squares = np.array([[(0, 0), (2, 0), (2, 2), (0, 2)]], dtype=float) + np.arange(4)[:, None, None]
    closed = np.concatenate([squares, squares[:, :1]], axis=1)
    batches = [
        geoiou.Polygon.from_rings(squares),
        geoiou.Polygon.from_rings(closed),
        geoiou.Polygon.from_rings(list(squares)),
        geoiou.Polygon.from_rings([ring.tolist() for ring in closed]),
    ]
    for batch in batches:
        assert batch.shape == (4,)
        assert shapely.equals_exact(batch.to_shapely(), batches[0].to_shapely(), tolerance=0).all()
    assert geoiou.Polygon.from_rings(np.zeros((0, 4, 2))).shape == (0,)
    assert geoiou.Polygon.from_rings([]).shape == (0,)


def test_a_single_ring_is_copied_and_the_callers_array_left_as_it_was():
    for ring in (
        np.array([(0, 0), (2, 0), (0, 2)], dtype=float),
        np.array([(0, 0), (2, 0), (0, 2), (0, 0)], dtype=float),
    ):
        polygon = geoiou.Polygon(ring)
        assert ring.flags.writeable
        ring[1, 0] = 4.0  # the polygon keeps its own vertices
        assert polygon.area == 2.0 and polygon.bounds.tolist() == [0.0, 0.0, 2.0, 2.0]


def test_rings_of_different_lengths():
    # The pentagon's shoelace sum is 0 + 3 + 5 + 1 + 0 = 9: area 4.5.
    rings = [[(0, 0), (1, 0), (0, 1)], [(0, 0), (3, 0), (3, 1), (1, 2), (0, 1), (0, 0)]]
    np.testing.assert_array_equal(geoiou.Polygon.from_rings(rings).area, [0.5, 4.5])


def test_from_shapely_keeps_the_batch_shape():
    geoms = mixed_geometries(2)[:12].reshape(3, 4)
    polygons = geoiou.Polygon.from_shapely(geoms)
    assert polygons.shape == (3, 4)
    np.testing.assert_allclose(polygons.area, shapely.area(geoms), rtol=1e-13)
    assert polygons[1, 2].to_shapely().equals(geoms[1, 2])


# --------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    "rings, message",
    [
        (np.array([[(0, 0), (1, 0), (np.nan, 1)]] * 2), r"'rings\[0\]' must be finite coordinates"),
        ([[(0, 0), (1, 0), (0, 1)], [(0, 0), (1, 0), (np.inf, 1)]], r"'rings\[1\]' must be finite coordinates"),
        ([[(0, 0), (1, 0), (0, 1)], [(0, 0), (1, 1)]], r"'rings\[1\]' must be at least 3 distinct vertices"),
        (
            [[(0, 0), (1, 0), (0, 1)], [(0, 0), (1, 1), (2, 2), (0, 0)]],
            r"'rings\[1\]' must be vertices enclosing a positive area",
        ),
        (
            [[(0, 0), (1, 0), (0, 1)], [(0, 0, 0), (1, 0, 0), (0, 1, 0)]],
            r"'rings\[1\]' must be an array of shape \(\.\.\., 2\)",
        ),
        (
            [[(0, 0), (1, 0), (0, 1)], [(0, 0), (2, 2), (2, 0), (0, 2)]],
            r"'rings' must be a valid polygon \(got Self-intersection.* at batch index \(1,\)\)",
        ),
    ],
)
def test_bad_rings_name_the_ring(rings, message):
    with pytest.raises(InvalidRegionError, match=message):
        geoiou.Polygon.from_rings(rings)


SQUARE = [(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)]


@pytest.mark.parametrize(
    "arrays, message",
    [
        ((SQUARE, [0, 4], [0, 1], [0, 1]), r"'ring_offsets' must be offsets rising from 0 to 5"),
        ((SQUARE, [1, 5], [0, 1], [0, 1]), r"'ring_offsets' must be offsets rising from 0 to 5"),
        ((SQUARE, [0, 5], [0, 2], [0, 1]), r"'part_offsets' must be offsets rising from 0 to 1"),
        ((SQUARE, [0, 5], [0, 1], [0, 2, 1]), r"'geometry_offsets' must be offsets rising from 0 to 1"),
        ((SQUARE, [0.0, 5.0], [0, 1], [0, 1]), r"'ring_offsets' must be a 1-D array of integer offsets"),
        ((SQUARE[:-1], [0, 4], [0, 1], [0, 1]), r"'coords' must be closed rings"),
        ((SQUARE[:2] + SQUARE[:1], [0, 3], [0, 1], [0, 1]), r"'ring_offsets' must be rings of at least 4 coordinates"),
        (([(0, 0), (1, 0), (np.nan, 1), (0, 0)], [0, 4], [0, 1], [0, 1]), r"'coords' must be finite coordinates"),
        (
            ([(0, 0), (2, 2), (2, 0), (0, 2), (0, 0)], [0, 5], [0, 1], [0, 1]),
            r"'coords' must be a valid polygon \(got Self-intersection.* at batch index \(0,\)\); pass repair=True",
        ),
    ],
)
def test_bad_ragged_arrays_are_refused(arrays, message):
    with pytest.raises(InvalidRegionError, match=message):
        geoiou.Polygon.from_ragged(*arrays)


def test_repair_works_for_every_constructor():
    bow_tie = [(0, 0), (2, 2), (2, 0), (0, 2)]
    assert geoiou.Polygon.from_rings([bow_tie], repair=True).area.tolist() == [2.0]
    assert geoiou.Polygon.from_ragged(bow_tie + bow_tie[:1], [0, 5], [0, 1], [0, 1], repair=True).area.tolist() == [2.0]
    # A ring whose repair leaves only lines becomes an empty polygon.
    spike = shapely.Polygon([(0, 0), (1, 0), (2, 0), (1, 0)])
    assert geoiou.Polygon.from_shapely(spike, repair=True).area == 0.0


def test_non_polygonal_geometries_in_a_batch_are_named():
    geoms = np.array([shapely.box(0, 0, 1, 1), shapely.Point(0, 0)], dtype=object)
    expected = r"'geometry\[1\]' must be a shapely Polygon or MultiPolygon \(got 'Point'\)"
    with pytest.raises(InvalidRegionError, match=expected):
        geoiou.Polygon.from_shapely(geoms)


# --------------------------------------------------------------------------- batches
def test_indexing_joining_and_pickling_keep_each_polygon():
    geoms = mixed_geometries(3)
    polygons = geoiou.Polygon.from_shapely(geoms)
    picked = polygons[[5, 0, 5]]
    assert shapely.equals_exact(picked.to_shapely(), geoms[[5, 0, 5]], tolerance=0).all()
    other = geoiou.Polygon.from_rings([[(0, 0), (1, 0), (0, 1)]])
    joined = geoiou.Polygon.concatenate([picked, other, polygons[:2]])
    assert joined.shape == (6,)
    np.testing.assert_allclose(joined.area, np.concatenate([picked.area, [0.5], polygons.area[:2]]))
    stacked = geoiou.Polygon.stack([polygons[1], other[0]])
    np.testing.assert_allclose(stacked.area, [polygons.area[1], 0.5])
    copy = pickle.loads(pickle.dumps(joined))
    assert shapely.equals_exact(copy.to_shapely(), joined.to_shapely(), tolerance=0).all()


def test_take_and_concatenate_of_the_store():
    store = RaggedPolygons.from_shapely(mixed_geometries(4))
    index = np.array([3, 16, 0, 9])
    taken = store.take(index)
    assert shapely.equals_exact(taken.shapely, store.shapely[index], tolerance=0).all()
    both = RaggedPolygons.concatenate([taken, store])
    assert both.size == 4 + store.size
    np.testing.assert_array_equal(both.area, np.concatenate([store.area[index], store.area]))


def test_ragged_arange_lays_ranges_end_to_end():
    values, owner = ragged_arange(np.array([2, 0, 7]), np.array([4, 0, 8]))
    assert values.tolist() == [2, 3, 7] and owner.tolist() == [0, 0, 2]
