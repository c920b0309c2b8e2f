"""Sparse overlaps agree with the dense matrix."""

import numpy as np
import pytest

import geoiou


def scene(rng, n, extent):
    xy = rng.uniform(0, extent, (n, 2))
    return xy, rng.uniform(2, 25, (n, 2))


@pytest.mark.parametrize("kind", ["box", "rotated", "polygon", "mask", "interval"])
def test_overlaps_equal_the_dense_matrix(kind):
    rng = np.random.default_rng({"box": 1, "rotated": 2, "polygon": 3, "mask": 4, "interval": 5}[kind])
    xy, wh = scene(rng, 120, 300)
    xy2, wh2 = scene(rng, 90, 300)
    if kind == "box":
        a, b = geoiou.Box(np.hstack([xy, xy + wh])), geoiou.Box(np.hstack([xy2, xy2 + wh2]))
    elif kind == "rotated":
        a = geoiou.RotatedBox(np.column_stack([xy, wh, rng.uniform(-90, 90, 120)]))
        b = geoiou.RotatedBox(np.column_stack([xy2, wh2, rng.uniform(-90, 90, 90)]))
    elif kind == "polygon":
        a = geoiou.RotatedBox(np.column_stack([xy, wh, rng.uniform(-90, 90, 120)])).to_polygon()
        b = geoiou.Box(np.hstack([xy2, xy2 + wh2])).to_polygon()
    elif kind == "mask":
        a = geoiou.Mask(rng.random((40, 40, 40)) > 0.97)
        b = geoiou.Box(np.hstack([xy2, xy2 + wh2]) / 8)
    else:
        a, b = (
            geoiou.Interval(np.column_stack([xy[:, 0], xy[:, 0] + wh[:, 0]])),
            geoiou.Interval(np.column_stack([xy2[:, 0], xy2[:, 0] + wh2[:, 0]])),
        )
    dense = geoiou.pairwise_iou(a, b)
    found = geoiou.overlaps(a, b)
    expected_a, expected_b = np.nonzero(dense > 0)
    np.testing.assert_array_equal(found.index_a, expected_a)
    np.testing.assert_array_equal(found.index_b, expected_b)
    np.testing.assert_array_equal(found.iou, dense[expected_a, expected_b])
    np.testing.assert_array_equal(found.to_dense(), np.where(dense > 0, dense, 0))
    assert len(found) > 10  # the scenes are built to overlap somewhat


def test_min_iou_filters():
    rng = np.random.default_rng(9)
    xy, wh = scene(rng, 200, 150)
    boxes = geoiou.Box(np.hstack([xy, xy + wh]))
    dense = geoiou.pairwise_iou(boxes, boxes)
    found = geoiou.overlaps(boxes, boxes, min_iou=0.3)
    assert len(found) == np.count_nonzero(dense >= 0.3)
    assert (found.iou >= 0.3).all()


def test_empty_regions_and_empty_batches():
    boxes = geoiou.Box([[0, 0, 0, 0], [0, 0, 1, 1]])
    found = geoiou.overlaps(boxes, boxes)
    np.testing.assert_array_equal(found.index_a, [1])
    assert len(geoiou.overlaps(boxes[:0], boxes)) == 0


@pytest.mark.parametrize("value", [-0.1, 1.5, float("nan")])
def test_bad_min_iou_is_refused(value):
    boxes = geoiou.Box([[0, 0, 1, 1]])
    with pytest.raises(geoiou.InvalidArgumentError, match="'min_iou' must be a number in"):
        geoiou.overlaps(boxes, boxes, min_iou=value)


def test_single_regions_are_refused():
    with pytest.raises(
        geoiou.InvalidArgumentError, match=r"'a' must be a 1-D batch of regions, shape \(N,\) \(got \(\)\)"
    ):
        geoiou.overlaps(geoiou.Box([0, 0, 1, 1]), geoiou.Box([[0, 0, 1, 1]]))
