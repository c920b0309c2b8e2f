"""Conversions: masks to their exact outline and back by a named rule, WKT in and out."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

import geoiou
from strategies import pixel_oracle_geometry, random_boxes, random_masks, random_polygons, random_rotated_boxes, rng


# --------------------------------------------------------------------------- Mask.to_polygons
@pytest.mark.parametrize("origin", ["integer", "dyadic"])
def test_outline_is_the_mask_exactly(origin):
    """For seeded batches: valid polygons, equal to the union of pixel squares (built independently
    with shapely), the same area, and IoU exactly 1 with the mask (integer and dyadic origins keep
    every vertex exact)."""
    gen = rng(21)
    for density in (0.2, 0.5, 0.8):
        masks = geoiou.Mask.stack(random_masks(gen, 40, max_side=10, density=density, origin=origin))
        polygons = masks.to_polygons()
        assert polygons.shape == masks.shape
        geoms = polygons.to_shapely()
        assert shapely.is_valid(geoms).all()
        for k in range(len(masks)):
            expected = pixel_oracle_geometry(masks.data[k], masks.origin[k])
            assert shapely.symmetric_difference(geoms[k], expected).area == 0.0
        np.testing.assert_array_equal(polygons.area, masks.area)
        np.testing.assert_array_equal(geoiou.iou(masks, polygons)[masks.area > 0], 1.0)


@pytest.mark.parametrize(
    ("pixels", "parts", "holes"),
    [
        # Two pixels touching at a corner: two parts that touch at a point (4-connected parts).
        ([[1, 0], [0, 1]], 2, 0),
        # A ring of 8 pixels around a hole.
        ([[1, 1, 1], [1, 0, 1], [1, 1, 1]], 1, 1),
        # A hole that touches the outside at a corner: one part, its hole touching the exterior at a point.
        ([[0, 1, 1, 1], [1, 0, 0, 1], [1, 0, 0, 1], [1, 1, 1, 1]], 1, 1),
        # Two holes touching each other at a corner.
        ([[1, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 1]], 1, 2),
        # A chessboard: eight parts, each one pixel.
        (np.indices((4, 4)).sum(axis=0) % 2, 8, 0),
    ],
)
def test_outline_of_touching_corners(pixels, parts, holes):
    mask = geoiou.Mask(np.array(pixels, dtype=bool))
    geometry = mask.to_polygons().to_shapely()
    assert geometry.is_valid, shapely.is_valid_reason(geometry)
    pieces = shapely.get_parts(geometry)
    assert len(pieces) == parts
    assert sum(shapely.get_num_interior_rings(pieces)) == holes
    assert geometry.area == mask.area
    assert geoiou.iou(mask, mask.to_polygons()) == 1.0


def test_outline_keeps_only_turning_vertices():
    # A 3 × 5 block: one rectangle with four corners (five coordinates, closed), not 16 unit steps.
    polygon = geoiou.Mask(np.ones((3, 5), dtype=bool), origin=(2, 1)).to_polygons()
    coords, rings, parts, geometries = polygon.to_ragged()
    assert rings.tolist() == [0, 5] and parts.tolist() == [0, 1] and geometries.tolist() == [0, 1]
    assert sorted(map(tuple, coords[:4].tolist())) == [(2, 1), (2, 4), (7, 1), (7, 4)]


def test_outline_of_empty_masks_and_batches():
    empty = geoiou.Mask(np.zeros((2, 3, 3), dtype=bool)).to_polygons()
    assert empty.shape == (2,) and empty.area.tolist() == [0.0, 0.0]
    mixed = geoiou.Mask(np.stack([np.zeros((2, 2)), np.ones((2, 2))]).reshape(2, 1, 2, 2)).to_polygons()
    assert mixed.shape == (2, 1) and mixed.area.ravel().tolist() == [0.0, 4.0]
    runs = geoiou.Mask.from_rle([{"size": [2, 3], "counts": [1, 2, 3]}])  # masks from COCO runs too
    assert runs.to_polygons().area.tolist() == [2.0]


def test_outline_with_a_fractional_origin_is_the_mask_to_rounding():
    masks = geoiou.Mask.stack(random_masks(rng(4), 20, max_side=8, origin="float"))
    np.testing.assert_allclose(geoiou.iou(masks, masks.to_polygons())[masks.area > 0], 1.0, rtol=0, atol=1e-12)


# --------------------------------------------------------------------------- Mask.from_polygon
def test_from_polygon_rules_against_the_exact_coverage():
    """Each rule, on seeded polygons, agrees with its definition computed independently per pixel:
    shapely's pixel-square intersections for the coverage rules, shapely's point test for centres."""
    polygons = random_polygons(rng(8), 12, span=4.0)
    shape, origin = (12, 14), (-6.0, -6.0)
    for k in range(len(polygons)):
        geometry = polygons[k].to_shapely()
        rows, cols = np.indices(shape)
        squares = shapely.box(origin[0] + cols, origin[1] + rows, origin[0] + cols + 1, origin[1] + rows + 1)
        coverage = shapely.area(shapely.intersection(squares, geometry))
        centres = shapely.intersects_xy(geometry, origin[0] + cols + 0.5, origin[1] + rows + 0.5)
        for rule, fraction, expected in (
            ("any", 0.5, coverage > 1e-12),
            ("coverage", 0.5, coverage >= 0.5),
            ("coverage", 1.0, coverage >= 1 - 1e-12),
            ("centre", 0.5, centres),
        ):
            made = geoiou.Mask.from_polygon(polygons[k], shape=shape, origin=origin, rule=rule, fraction=fraction)
            np.testing.assert_array_equal(made.data, expected, err_msg=f"{rule} {fraction}")


def test_from_polygon_of_a_batch_fits_one_grid():
    boxes = geoiou.Box([[0.5, 0, 2.5, 1], [3, 2, 4, 4]])
    masks = geoiou.Mask.from_polygon(boxes, rule="coverage", fraction=0.5)
    # The grid around both: origin (0, 0), 4 wide and 4 high; the first box covers half of its end pixels.
    assert masks.shape == (2,) and masks.grid_shape == (4, 4) and masks.origin.tolist() == [[0, 0], [0, 0]]
    assert masks.area.tolist() == [3.0, 2.0]
    assert geoiou.iou(masks[1], boxes[1]) == 1.0
    rotated = geoiou.Mask.from_polygon(random_rotated_boxes(rng(2), 5), rule="any")
    assert rotated.shape == (5,)
    # An integer box rasterized by any rule is itself.
    exact = geoiou.Mask.from_polygon(geoiou.Box([1, 2, 4, 3]))
    assert geoiou.iou(exact, geoiou.Box([1, 2, 4, 3])) == 1.0


def test_from_polygon_refusals():
    triangle = geoiou.Polygon([(0, 0), (1, 0), (0, 1)])
    with pytest.raises(geoiou.InvalidArgumentError, match="'rule' must be one of"):
        geoiou.Mask.from_polygon(triangle, rule="nearest")
    with pytest.raises(geoiou.InvalidArgumentError, match=r"'fraction' must be a number in \(0, 1\]"):
        geoiou.Mask.from_polygon(triangle, rule="coverage", fraction=0)
    with pytest.raises(geoiou.InvalidRegionError, match="'polygon' must be a Polygon, Box or RotatedBox"):
        geoiou.Mask.from_polygon(geoiou.Interval([0, 1]))
    with pytest.raises(geoiou.InvalidArgumentError, match="'shape'"):
        geoiou.Mask.from_polygon(triangle, shape=(2, -1))


# --------------------------------------------------------------------------- WKT
@pytest.mark.parametrize(
    "make",
    [
        lambda: random_boxes(rng(1), 6),
        lambda: random_rotated_boxes(rng(1), 6),
        lambda: random_polygons(rng(1), 6),
    ],
)
def test_wkt_round_trips_at_full_precision(make):
    regions = make()
    text = regions.to_wkt()
    assert text.shape == regions.shape and text[0].startswith("POLYGON")
    back = type(regions).from_wkt(text)
    if isinstance(regions, geoiou.Polygon):
        np.testing.assert_array_equal(back.to_ragged()[0], regions.to_ragged()[0])  # the same numbers
    else:
        np.testing.assert_allclose(geoiou.iou(back, regions), 1.0, rtol=0, atol=1e-12)
    assert isinstance(regions[0].to_wkt(), str)


def test_wkt_reads_back_the_same_doubles_at_every_scale():
    gen = rng(12)
    for exponent in (-300, -150, -20, 0, 20, 150):
        ring = gen.normal(size=(3, 2)) * 10.0**exponent
        ring = ring[np.argsort(np.arctan2(ring[:, 1] - ring[:, 1].mean(), ring[:, 0] - ring[:, 0].mean()))]
        try:
            polygon = geoiou.Polygon(ring)
        except geoiou.InvalidRegionError:  # a triangle whose area underflows at 1e-300
            continue
        np.testing.assert_array_equal(geoiou.Polygon.from_wkt(polygon.to_wkt()).to_ragged()[0], polygon.to_ragged()[0])


def test_polygons_from_wkt_keep_holes_and_parts():
    text = "MULTIPOLYGON (((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 1 3, 3 3, 3 1, 1 1)), ((5 0, 6 0, 5 1, 5 0)))"
    polygon = geoiou.Polygon.from_wkt(text)
    assert polygon.area == 12.5
    assert shapely.equals(shapely.from_wkt(polygon.to_wkt()), shapely.from_wkt(text))
    batch = geoiou.Polygon.from_wkt(np.array([[text], [text]]))
    assert batch.shape == (2, 1)


def test_wkt_refusals_name_the_text():
    with pytest.raises(geoiou.InvalidRegionError, match=r"'text\[1\]' must be WKT text of a POLYGON"):
        geoiou.Polygon.from_wkt(["POLYGON ((0 0, 1 0, 0 1, 0 0))", "POLYGON ((0 0"])
    with pytest.raises(
        geoiou.InvalidRegionError, match=r"'text' must be WKT of a POLYGON or MULTIPOLYGON \(got 'Point'\)"
    ):
        geoiou.Polygon.from_wkt("POINT (1 1)")
    with pytest.raises(geoiou.InvalidRegionError, match="axis-aligned rectangle"):
        geoiou.Box.from_wkt("POLYGON ((0 0, 2 0, 2 1, 0 2, 0 0))")
    with pytest.raises(geoiou.InvalidRegionError, match="rectangle of four corners"):
        geoiou.RotatedBox.from_wkt("POLYGON ((0 0, 2 0, 2 1, 1 2, 0 1, 0 0))")
    with pytest.raises(geoiou.InvalidRegionError, match="valid polygon"):
        geoiou.Polygon.from_wkt("POLYGON ((0 0, 2 2, 2 0, 0 2, 0 0))")  # a bow-tie
    assert geoiou.Polygon.from_wkt("POLYGON ((0 0, 2 2, 2 0, 0 2, 0 0))", repair=True).area == 2.0
    with pytest.raises(geoiou.InvalidTypeError, match="Mask.from_polygon"):
        geoiou.Mask.from_wkt("POLYGON ((0 0, 1 0, 0 1, 0 0))")
    with pytest.raises(geoiou.InvalidTypeError, match="no WKT form"):
        geoiou.Interval([0, 1]).to_wkt()
