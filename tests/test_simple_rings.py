"""The compiled ring test that lets `Polygon(ring)` skip GEOS: it may only accept rings GEOS calls valid."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

import geoiou
from geoiou._core import RING_MOST_VERTICES as MOST_VERTICES
from geoiou._core import closed_ring
from geoiou._core import ring_is_simple as is_simple

PROPERTY_SETTINGS = settings(max_examples=400, deadline=None, derandomize=True)


@st.composite
def rings(draw: st.DrawFn) -> np.ndarray:
    """Rings of 3-12 vertices on a small integer grid (shared vertices, collinear and crossing edges abound),
    sometimes scaled or moved far away."""
    count = draw(st.integers(3, 12))
    points = draw(st.lists(st.tuples(st.integers(-4, 4), st.integers(-4, 4)), min_size=count, max_size=count))
    ring = np.array(points, dtype=float)
    scale = draw(st.sampled_from([1.0, 1e-3, 2.0**-40, 1e12]))
    shift = draw(st.sampled_from([0.0, 0.5, 1e15]))
    return ring * scale + shift


@st.composite
def star_rings(draw: st.DrawFn) -> np.ndarray:
    """Rings around a centre, one vertex per sorted angle: mostly simple, some with vertices on one ray."""
    count = draw(st.integers(3, 40))
    angles = np.sort(draw(st.lists(st.floats(0, 2 * np.pi), min_size=count, max_size=count)))
    radii = np.array(draw(st.lists(st.floats(0.1, 5), min_size=count, max_size=count)))
    return np.column_stack([radii * np.cos(angles), radii * np.sin(angles)]) + draw(st.sampled_from([0.0, 1e9]))


@PROPERTY_SETTINGS
@given(st.one_of(rings(), star_rings()))
def test_a_ring_proven_simple_is_valid_for_geos(ring):
    # The test answers "simple" only with proof; GEOS must agree on every ring it accepts.
    if is_simple(ring):
        assert shapely.is_valid(shapely.Polygon(ring))


@PROPERTY_SETTINGS
@given(st.one_of(rings(), star_rings()))
def test_a_polygon_from_one_ring_is_the_same_whether_or_not_geos_is_asked(ring):
    # Built with or without GEOS's check, the polygon (or the refusal) is the same.
    try:
        single = geoiou.Polygon(ring)
    except geoiou.InvalidRegionError:
        with pytest.raises(geoiou.InvalidRegionError):
            geoiou.Polygon.from_rings([ring])
        return
    batch = geoiou.Polygon.from_rings([ring])[0]
    assert single.area == batch.area
    np.testing.assert_array_equal(single.bounds, batch.bounds)
    assert shapely.equals_exact(single.to_shapely(), batch.to_shapely(), tolerance=0.0)


def test_simple_rings_are_proven_and_others_are_left_to_geos():
    square = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]])
    assert is_simple(square)
    assert is_simple(square[::-1].copy())  # either direction
    assert not is_simple(np.array([[0.0, 0.0], [2.0, 2.0], [2.0, 0.0], [0.0, 2.0]]))  # a bow-tie
    assert not is_simple(np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))  # a repeated vertex
    assert not is_simple(np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 0.0], [1.0, 1.0]]))  # an edge folding back
    # A vertex touching another edge: GEOS refuses it (a ring self-intersection); the test does not decide.
    touching = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [2.0, 0.0], [0.0, 4.0]])
    assert not is_simple(touching) and not shapely.is_valid(shapely.Polygon(touching))
    # Too many vertices for testing every pair of edges: GEOS decides.
    angles = np.linspace(0, 2 * np.pi, MOST_VERTICES + 1, endpoint=False)
    assert not is_simple(np.column_stack([np.cos(angles), np.sin(angles)]))


def test_a_closed_ring_keeps_its_vertices_and_an_open_one_is_closed():
    open_ring = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 1.0]])
    closed, area, largest, simple = closed_ring(open_ring)
    assert closed.tolist() == [[0.0, 0.0], [2.0, 0.0], [0.0, 1.0], [0.0, 0.0]] and area == 1.0 and largest == 2.0
    assert simple
    again = closed_ring(closed)
    assert again[0].tolist() == closed.tolist() and again[1] == area
    assert closed_ring(np.array([[0.0, 0.0], [np.nan, 0.0], [0.0, 1.0]]))[2] == np.inf  # not finite: refused later
