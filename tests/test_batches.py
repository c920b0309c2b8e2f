"""Batches index, reshape and broadcast like NumPy arrays of regions; conversions keep the region."""

import numpy as np
import pytest
import shapely

import geoiou

BATCHES = {
    "box": geoiou.Box(np.arange(24, dtype=float).reshape(6, 4) * [1, 1, 2, 2]),
    "rotated": geoiou.RotatedBox(
        np.column_stack([np.arange(6), np.arange(6), np.ones(6) * 2, np.ones(6), np.arange(6) * 15.0])
    ),
    "polygon": geoiou.Polygon.from_rings([[(i, 0), (i + 2, 0), (i, 3)] for i in range(6)]),
    "mask": geoiou.Mask(np.random.default_rng(0).random((6, 4, 5)) > 0.5, origin=np.arange(12.0).reshape(6, 2)),
    "interval": geoiou.Interval(np.column_stack([np.arange(6.0), np.arange(6.0) * 2 + 1])),
}


@pytest.mark.parametrize("name", list(BATCHES))
def test_indexing_and_reshaping_select_the_same_regions(name):
    batch = BATCHES[name]
    assert batch.shape == (6,) and len(batch) == 6 and batch.size == 6
    assert batch[2].shape == () and batch[2].area == batch.area[2]
    assert batch[:, None].shape == (6, 1)
    assert batch[None, ::2].shape == (1, 3)
    np.testing.assert_array_equal(batch[[5, 0]].area, batch.area[[5, 0]])
    np.testing.assert_array_equal(batch.reshape(2, 3).area, batch.area.reshape(2, 3))
    np.testing.assert_array_equal(
        batch[batch.area > np.median(batch.area)].area, batch.area[batch.area > np.median(batch.area)]
    )
    assert [region.area for region in batch] == list(batch.area)
    assert batch[:0].shape == (0,)


@pytest.mark.parametrize("name", list(BATCHES))
def test_single_region_has_no_len_but_a_repr(name):
    one = BATCHES[name][0]
    with pytest.raises(TypeError, match="len"):
        len(one)
    assert type(one).__name__ in repr(one) and "batch of shape (6,)" in repr(BATCHES[name])


def test_elementwise_broadcasting_of_a_single_region_against_a_batch():
    boxes = BATCHES["box"]
    single = geoiou.Box([0, 0, 6, 6])
    np.testing.assert_array_equal(geoiou.iou(single, boxes), geoiou.pairwise_iou(single[None], boxes)[0])


def test_pairwise_shape_is_the_concatenated_batch_shapes():
    boxes = BATCHES["box"]
    assert geoiou.pairwise_iou(boxes.reshape(2, 3), boxes[:4]).shape == (2, 3, 4)


def test_box_conversions_are_exact():
    box = geoiou.Box([1, 2, 5, 4])
    np.testing.assert_array_equal(box.to_rotated_box().to_array(), [3, 3, 4, 2, 0])
    assert box.to_polygon().to_shapely().equals(shapely.box(1, 2, 5, 4))
    assert (box.width, box.height) == (4.0, 2.0)


def test_polygon_from_shapely_keeps_holes_and_parts():
    outer = shapely.Polygon([(0, 0), (10, 0), (10, 10), (0, 10)], [[(2, 2), (4, 2), (4, 4), (2, 4)]])
    parts = shapely.MultiPolygon([outer, shapely.box(20, 20, 21, 21)])
    region = geoiou.Polygon.from_shapely(parts)
    assert region.area == 100 - 4 + 1
    np.testing.assert_array_equal(region.bounds, [0, 0, 21, 21])
    # The hole is not covered: a box inside it does not intersect.
    assert geoiou.intersection_area(region, geoiou.Box([2.5, 2.5, 3.5, 3.5])) == 0


def test_polygon_batch_from_a_shapely_array():
    geoms = shapely.box(np.arange(3), 0, np.arange(3) + 1, 1)
    batch = geoiou.Polygon.from_shapely(geoms)
    assert batch.shape == (3,)
    np.testing.assert_array_equal(batch.area, [1, 1, 1])
    assert isinstance(batch.to_shapely(), np.ndarray) and isinstance(batch[0].to_shapely(), shapely.Polygon)


def test_mask_stack_pads_without_changing_regions():
    small = geoiou.Mask(np.ones((2, 2), dtype=bool), origin=(3, 3))
    wide = geoiou.Mask(np.array([[1, 0, 1]]))
    batch = geoiou.Mask.stack([small, wide])
    np.testing.assert_array_equal(batch.area, [4, 2])
    np.testing.assert_array_equal(batch.bounds, [[3, 3, 5, 5], [0, 0, 3, 1]])
    np.testing.assert_array_equal(geoiou.iou(batch, geoiou.Mask.stack([small, wide])), [1, 1])


def test_mask_to_shapely_is_the_union_of_true_pixels():
    data = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 0]], dtype=bool)
    geometry = geoiou.Mask(data, origin=(0.5, 0)).to_shapely()
    assert geometry.area == 5
    assert geometry.covers(shapely.box(0.5, 2, 1.5, 3))


def test_centroids():
    np.testing.assert_array_equal(geoiou.Box([0, 0, 4, 2]).centroid, [2, 1])
    np.testing.assert_allclose(geoiou.Polygon([(0, 0), (3, 0), (0, 3)]).centroid, [1, 1])
    np.testing.assert_array_equal(geoiou.Mask([[1, 0], [0, 0]]).centroid, [0.5, 0.5])
    np.testing.assert_array_equal(geoiou.Interval([2, 6]).centroid, [4])
    assert np.isnan(geoiou.Mask(np.zeros((2, 2))).centroid).all()


def test_region_methods_are_aliases_of_the_functions():
    a, b = geoiou.Box([0, 0, 2, 2]), geoiou.Box([1, 1, 3, 3])
    assert a.intersection_area(b) == geoiou.intersection_area(a, b) == 1
    assert a.union_area(b) == geoiou.union_area(a, b) == 7
    assert a.iou(b) == geoiou.iou(a, b)


def test_batches_are_zero_copy_views_of_float64_input():
    coords = np.zeros((1000, 4))
    coords[:, 2:] = 1
    boxes = geoiou.Box(coords)
    assert np.shares_memory(boxes._xyxy, coords)


@pytest.mark.parametrize("name", ["box", "rotated", "polygon", "interval"])
def test_stack_of_single_regions_rebuilds_the_batch(name):
    batch = BATCHES[name]
    stacked = type(batch).stack(list(batch))
    assert stacked.shape == batch.shape
    np.testing.assert_array_equal(stacked.area, batch.area)
    np.testing.assert_array_equal(stacked.bounds, batch.bounds)


def test_stack_refuses_mixed_kinds_and_nothing():
    with pytest.raises(TypeError, match=r"'regions' must all be Box \(got RotatedBox\)"):
        geoiou.Box.stack([geoiou.Box([0, 0, 1, 1]), geoiou.RotatedBox([0, 0, 1, 1, 0])])
    with pytest.raises(ValueError, match="at least one Box"):
        geoiou.Box.stack([])


def test_fortran_ordered_masks_are_accepted():
    # pycocotools.mask.decode returns Fortran-ordered arrays.
    data = np.random.default_rng(4).random((5, 7)) > 0.5
    np.testing.assert_array_equal(geoiou.Mask(np.asfortranarray(data)).area, data.sum())
    assert geoiou.iou(geoiou.Mask(np.asfortranarray(data)), geoiou.Mask(data)) == 1.0


@pytest.mark.parametrize("name", list(BATCHES))
def test_concatenate_joins_batches_along_the_first_axis(name):
    batch = BATCHES[name]
    kind = type(batch)
    joined = kind.concatenate([batch[:2], batch[4:], batch[2:3]])
    np.testing.assert_array_equal(joined.area, batch.area[[0, 1, 4, 5, 2]])
    np.testing.assert_array_equal(joined.bounds, batch.bounds[[0, 1, 4, 5, 2]])
    assert kind.concatenate([batch.reshape(2, 3), batch.reshape(2, 3)]).shape == (4, 3)


def test_concatenate_joins_polygons_and_masks_built_apart():
    # Different stores: polygons of separate constructions, masks of different grids and origins.
    polygons = geoiou.Polygon.concatenate(
        [geoiou.Polygon.from_rings([[(0, 0), (2, 0), (0, 2)]]), geoiou.Polygon.from_shapely([shapely.box(0, 0, 3, 3)])]
    )
    np.testing.assert_array_equal(polygons.area, [2.0, 9.0])
    masks = geoiou.Mask.concatenate([geoiou.Mask(np.ones((1, 2, 2))), geoiou.Mask(np.ones((2, 3, 1)), origin=(5, 5))])
    np.testing.assert_array_equal(masks.area, [4.0, 3.0, 3.0])
    np.testing.assert_array_equal(masks.bounds[1], [5, 5, 6, 8])


def test_concatenate_refuses_mixed_kinds_single_regions_and_other_shapes():
    boxes = BATCHES["box"]
    with pytest.raises(TypeError, match=r"'batches' must all be Box \(got Interval\)"):
        geoiou.Box.concatenate([boxes, BATCHES["interval"]])
    with pytest.raises(ValueError, match=r"at least one axis"):
        geoiou.Box.concatenate([boxes[0], boxes])
    with pytest.raises(ValueError, match=r"same shape after the first axis"):
        geoiou.Box.concatenate([boxes.reshape(2, 3), boxes.reshape(3, 2)])
    with pytest.raises(ValueError, match=r"at least one Box"):
        geoiou.Box.concatenate([])
