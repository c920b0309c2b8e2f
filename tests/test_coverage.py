"""Tests for geoiou.regions.coverage: exact per-pixel area coverage."""

from __future__ import annotations


import numpy as np
import pytest
import shapely
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from shapely import MultiPolygon, Polygon, box

from geoiou.regions.coverage import box_coverage, polygon_coverage, polygon_coverage_window

ABS_TOL = 1e-9


def assert_coverage_close(actual: np.ndarray, expected: np.ndarray) -> None:
    np.testing.assert_allclose(actual, expected, rtol=0, atol=ABS_TOL)


# ---------------------------------------------------------------- helpers


def pixel_boxes(shape: tuple[int, int], origin: tuple[float, float]) -> np.ndarray:
    """Return every pixel square of the canvas as shapely boxes, shape (H, W)."""
    rows, cols = np.indices(shape, dtype=np.float64)
    x0, y0 = origin
    return shapely.box(x0 + cols, y0 + rows, x0 + cols + 1, y0 + rows + 1)


def brute_force_coverage(geometry, shape, origin=(0.0, 0.0)) -> np.ndarray:
    """Independent reference: intersect the geometry with each pixel square."""
    return shapely.area(shapely.intersection(geometry, pixel_boxes(shape, origin)))


def canvas_box(shape, origin=(0.0, 0.0)) -> Polygon:
    x0, y0 = origin
    return box(x0, y0, x0 + shape[1], y0 + shape[0])


def random_star(rng: np.random.Generator, center, radius: float, n_vertices: int | None = None) -> Polygon:
    """Return a random polygon that is star-shaped around ``center``, hence simple.

    ``n_vertices`` defaults to a random count in 5..30.  One vertex per
    angular sector keeps every angular gap below pi, so the centre stays
    inside (fully random angles can leave a gap where the ring turns back).
    """
    if n_vertices is None:
        n_vertices = int(rng.integers(5, 31))
    sector = 2.0 * np.pi / n_vertices
    angles = (np.arange(n_vertices) + rng.uniform(0.0, 1.0, n_vertices)) * sector
    radii = radius * rng.uniform(0.3, 1.0, n_vertices)
    cx, cy = center
    return Polygon(np.column_stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)]))


def random_geometries(rng: np.random.Generator, shape):
    """Yield stars, stars with holes and multipolygons scattered on and off a canvas."""
    height, width = shape
    for _ in range(4):
        center = rng.uniform([-0.3 * width, -0.3 * height], [1.3 * width, 1.3 * height])
        # Log-uniform radius: sub-pixel specks up to canvas-sized shapes.
        radius = np.exp(rng.uniform(np.log(0.05), np.log(0.8 * max(shape))))
        star = random_star(rng, center, radius)
        hole = random_star(rng, center, 0.5 * radius)
        other = random_star(rng, center + rng.normal(0, radius, 2), radius)
        yield star
        yield star.difference(hole)  # a hole, or several parts
        yield star.symmetric_difference(other)  # usually a MultiPolygon


def grid_aligned_geometries(rng: np.random.Generator, shape):
    """Yield polygons whose vertices and edges sit exactly on grid lines and corners."""
    height, width = shape
    for _ in range(4):
        corners = rng.integers(-2, [width + 2, height + 2], size=(6, 2))
        lo, hi = np.minimum(corners[:3], corners[3:]), np.maximum(corners[:3], corners[3:]) + 1
        yield shapely.union_all(shapely.box(lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1]))
        for grid_step in (1.0, 0.5):
            star = random_star(rng, rng.uniform(0, [width, height]), max(shape) / 2, 12)
            snapped = shapely.transform(star, lambda xy, step=grid_step: np.round(xy / step) * step)
            # Snapping may self-intersect; buffer(0) repairs it.  (Not
            # shapely.set_precision: the precision grid it attaches would
            # also snap the brute-force intersections.)
            yield snapped.buffer(0)


# ---------------------------------------------------------------- golden cases


def test_unit_square_aligned_to_pixel_covers_it_exactly():
    # The square is exactly pixel (1, 2), so it must give exactly 1 there
    # and exactly 0 elsewhere (no bleed into neighbours).
    expected = np.zeros((3, 4))
    expected[1, 2] = 1.0
    np.testing.assert_array_equal(polygon_coverage(box(2, 1, 3, 2), (3, 4)), expected)


def test_half_pixel_triangle():
    # The triangle cuts pixel (0, 0) along its diagonal: half its area.
    coverage = polygon_coverage(Polygon([(0, 0), (1, 0), (0, 1)]), (2, 2))
    np.testing.assert_allclose(coverage, [[0.5, 0.0], [0.0, 0.0]], atol=1e-15)


def test_box_straddling_pixel_borders():
    # [0.5, 2.5) x [0, 1) covers half of pixel 0, all of 1, half of 2.
    coverage = polygon_coverage(box(0.5, 0, 2.5, 1), (2, 4))
    np.testing.assert_allclose(coverage, [[0.5, 1.0, 0.5, 0.0], [0.0] * 4], atol=1e-15)


def test_polygon_with_hole():
    # A 4x4 square minus the unit square centred on the corner (2, 2): the
    # hole takes a quarter of each of the four pixels meeting there.
    geometry = box(0, 0, 4, 4).difference(box(1.5, 1.5, 2.5, 2.5))
    assert len(geometry.interiors) == 1
    expected = np.ones((4, 4))
    expected[1:3, 1:3] = 0.75
    np.testing.assert_allclose(polygon_coverage(geometry, (4, 4)), expected, atol=1e-15)


def test_polygon_with_hole_in_either_orientation():
    # Orientation of stored rings must not matter: holes always subtract.
    ring, hole = [(0, 0), (3, 0), (3, 3), (0, 3)], [(1, 1), (2, 1), (2, 2), (1, 2)]
    expected = np.ones((3, 3))
    expected[1, 1] = 0.0
    for exterior in (ring, ring[::-1]):
        for interior in (hole, hole[::-1]):
            coverage = polygon_coverage(Polygon(exterior, [interior]), (3, 3))
            np.testing.assert_allclose(coverage, expected, atol=1e-15)


def test_multipolygon_parts_add_up():
    # Two disjoint parts: a full pixel and a half pixel triangle.
    geometry = MultiPolygon([box(0, 0, 1, 1), Polygon([(2, 1), (3, 1), (3, 2)])])
    expected = np.zeros((2, 3))
    expected[0, 0], expected[1, 2] = 1.0, 0.5
    np.testing.assert_allclose(polygon_coverage(geometry, (2, 3)), expected, atol=1e-15)


@pytest.mark.parametrize(
    "geometry",
    [box(10, 10, 12, 12), box(-5, 0, -1, 3), box(4, 0, 6, 3), box(0, 3, 4, 5), box(-1, -1, 0, 0)],
    ids=["far", "left", "touching-right", "touching-bottom", "corner"],
)
def test_polygon_outside_canvas_gives_zeros_and_empty_window(geometry):
    # Shapes outside (or only sharing a border) have no area on the canvas.
    shape = (3, 4)
    np.testing.assert_array_equal(polygon_coverage(geometry, shape), np.zeros(shape))
    rows, cols, window = polygon_coverage_window(geometry, shape)
    assert (rows, cols, window.shape) == (slice(0, 0), slice(0, 0), (0, 0))


def test_polygon_covering_canvas_and_beyond_gives_ones():
    # Every pixel is fully inside, including with a non-integer origin and
    # coordinates so large that cutting edges off-canvas would be ruinous.
    geometry = Polygon([(-1e9, -1e9), (1e9, -2e9), (3e9, 1e9), (-1e9, 2e9)])
    coverage = polygon_coverage(geometry, (5, 7), origin=(0.3, -2.7))
    np.testing.assert_allclose(coverage, np.ones((5, 7)), atol=1e-12)


def test_non_integer_origin_shifts_the_pixel_grid():
    # With origin (0.25, 0.5) the unit square [0, 1)^2 covers 0.75 x 0.5 of
    # pixel (0, 0), 0.25 x 0.5 of pixel (0, 1), and so on.
    coverage = polygon_coverage(box(0, 0, 1, 1), (2, 2), origin=(0.25, 0.5))
    np.testing.assert_allclose(coverage, [[0.375, 0.0], [0.0, 0.0]], atol=1e-15)
    coverage = polygon_coverage(box(0, 0, 1, 1), (2, 2), origin=(-0.25, -0.5))
    np.testing.assert_allclose(coverage, [[0.375, 0.125], [0.375, 0.125]], atol=1e-15)


@pytest.mark.parametrize("geometry", [Polygon(), MultiPolygon(), shapely.from_wkt("POLYGON EMPTY")])
def test_empty_geometry_gives_zeros(geometry):
    np.testing.assert_array_equal(polygon_coverage(geometry, (2, 3)), np.zeros((2, 3)))


def test_zero_area_polygon_gives_zeros():
    # A ring that folds back on itself encloses nothing.
    geometry = Polygon([(0.5, 0.5), (2.5, 1.5), (0.5, 0.5)])
    np.testing.assert_allclose(polygon_coverage(geometry, (3, 3)), np.zeros((3, 3)), atol=1e-15)


def test_diamond_through_grid_corners():
    # Edges pass exactly through pixel corners: each pixel is half covered
    # along the diagonal and fully covered inside.
    geometry = Polygon([(2, 0), (4, 2), (2, 4), (0, 2)])
    expected = np.array([[0, 0.5, 0.5, 0], [0.5, 1, 1, 0.5], [0.5, 1, 1, 0.5], [0, 0.5, 0.5, 0]])
    np.testing.assert_allclose(polygon_coverage(geometry, (4, 4)), expected, atol=1e-15)


def test_zero_sized_canvas():
    assert polygon_coverage(box(0, 0, 1, 1), (0, 5)).shape == (0, 5)
    assert polygon_coverage(box(0, 0, 1, 1), (5, 0)).shape == (5, 0)


def test_non_polygonal_geometry_is_rejected():
    with pytest.raises(TypeError):
        polygon_coverage(shapely.LineString([(0, 0), (1, 1)]), (2, 2))
    with pytest.raises(TypeError):
        polygon_coverage([(0, 0), (1, 0), (0, 1)], (2, 2))


# ---------------------------------------------------------------- brute force cross-checks


@pytest.mark.parametrize("seed", range(6))
def test_matches_brute_force_on_random_polygons(seed):
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(8, 25)), int(rng.integers(8, 25)))
    origin = tuple(rng.uniform(-50, 50, 2))
    for local in random_geometries(rng, shape):
        geometry = shapely.transform(local, lambda xy: xy + origin)
        coverage = polygon_coverage(geometry, shape, origin)
        assert_coverage_close(coverage, brute_force_coverage(geometry, shape, origin))
        on_canvas = shapely.intersection(geometry, canvas_box(shape, origin)).area
        np.testing.assert_allclose(coverage.sum(), on_canvas, rtol=1e-9, atol=1e-12)
        assert coverage.min() >= -1e-12 and coverage.max() <= 1 + 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_matches_brute_force_on_grid_aligned_polygons(seed):
    # Vertices on grid corners and edges lying on grid lines are the
    # degenerate cases of the edge splitting.
    rng = np.random.default_rng(100 + seed)
    shape = (int(rng.integers(6, 16)), int(rng.integers(6, 16)))
    for geometry in grid_aligned_geometries(rng, shape):
        coverage = polygon_coverage(geometry, shape)
        assert_coverage_close(coverage, brute_force_coverage(geometry, shape))


@pytest.mark.parametrize("seed", range(3))
def test_window_matches_brute_force_and_holds_all_area(seed):
    rng = np.random.default_rng(200 + seed)
    shape, origin = (30, 40), (-3.5, 7.25)
    for local in random_geometries(rng, shape):
        geometry = shapely.transform(local, lambda xy: xy + origin)
        rows, cols, window = polygon_coverage_window(geometry, shape, origin)
        full = brute_force_coverage(geometry, shape, origin)
        assert_coverage_close(window, full[rows, cols])
        outside = full.copy()
        outside[rows, cols] = 0.0
        np.testing.assert_array_equal(outside, 0.0)


# ---------------------------------------------------------------- box coverage


@pytest.mark.parametrize("seed", range(3))
def test_box_coverage_matches_polygon_coverage(seed):
    rng = np.random.default_rng(300 + seed)
    shape, origin = (9, 13), tuple(rng.uniform(-2, 2, 2))
    for _ in range(20):
        x1, x2 = np.sort(rng.uniform(-3, 16, 2)) + origin[0]
        y1, y2 = np.sort(rng.uniform(-3, 12, 2)) + origin[1]
        rows, cols = box_coverage(x1, y1, x2, y2, shape, origin)
        assert rows.shape == (9,) and cols.shape == (13,)
        expected = polygon_coverage(box(x1, y1, x2, y2), shape, origin)
        assert_coverage_close(np.outer(rows, cols), expected)


def test_box_coverage_batched_matches_scalar():
    rng = np.random.default_rng(400)
    corners = rng.uniform(-2, 12, size=(4, 7))
    x1, y1, x2, y2 = corners
    rows, cols = box_coverage(x1, y1, x2, y2, (8, 10), origin=(0.5, -0.25))
    assert rows.shape == (7, 8) and cols.shape == (7, 10)
    for k in range(7):
        row_k, col_k = box_coverage(x1[k], y1[k], x2[k], y2[k], (8, 10), origin=(0.5, -0.25))
        np.testing.assert_array_equal(rows[k], row_k)
        np.testing.assert_array_equal(cols[k], col_k)


def test_box_coverage_degenerate_boxes_cover_nothing():
    # Zero-width and inverted boxes have no area.
    rows, cols = box_coverage([1.0, 3.0], [0.0, 0.0], [1.0, 2.0], [2.0, 2.0], (2, 4))
    np.testing.assert_array_equal(cols, np.zeros((2, 4)))


grid_values = st.one_of(
    st.integers(-3, 12).map(float),
    st.floats(-3, 12, allow_nan=False),
    st.integers(-6, 24).map(lambda v: v / 2),
)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(grid_values, grid_values, grid_values, grid_values)
def test_box_coverage_property(xa, xb, ya, yb):
    # Boxes whose sides fall on, near or between grid lines: the separable
    # form, the polygon kernel and the brute force must all agree.
    x1, x2, y1, y2 = min(xa, xb), max(xa, xb), min(ya, yb), max(ya, yb)
    shape = (7, 9)
    rows, cols = box_coverage(x1, y1, x2, y2, shape)
    separable = np.outer(rows, cols)
    geometry = box(x1, y1, x2, y2)
    assert_coverage_close(separable, brute_force_coverage(geometry, shape))
    assert_coverage_close(polygon_coverage(geometry, shape), separable)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.tuples(grid_values, grid_values), min_size=3, max_size=3))
def test_triangle_property(vertices):
    # Triangles with vertices on grid corners, on grid lines or anywhere,
    # partly off the canvas: edges through corners and along lines.
    geometry = Polygon(vertices)
    assume(geometry.area > 0)  # collinear vertices are not a valid polygon
    shape = (7, 9)
    assert_coverage_close(polygon_coverage(geometry, shape), brute_force_coverage(geometry, shape))


# ---------------------------------------------------------------- sanity against sampling


def big_star(n_vertices: int, shape) -> Polygon:
    rng = np.random.default_rng(500)
    height, width = shape
    return random_star(rng, (width / 2 + 0.3, height / 2 - 0.2), 0.45 * min(shape), n_vertices)


def test_centre_sampling_roughly_agrees():
    # polygon2mask samples pixel centres, so it is not the truth; but for a
    # big polygon the count of sampled pixels must be close to the area.
    # skimage puts pixel (r, c)'s centre at (r, c); ours is at (c + .5, r + .5).
    skimage_draw = pytest.importorskip("skimage.draw")
    shape = (256, 256)
    geometry = big_star(100, shape)
    vertices = shapely.get_coordinates(geometry.exterior)
    mask = skimage_draw.polygon2mask(shape, vertices[:, ::-1] - 0.5)
    coverage = polygon_coverage(geometry, shape)
    assert abs(coverage.sum() - mask.sum()) < 0.01 * mask.sum()
    # Pixels well inside/outside agree; only the boundary band differs.
    assert np.all(mask[coverage == 1.0]) and not np.any(mask[coverage == 0.0])
