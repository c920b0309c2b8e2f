"""The numbers geoiou refuses, and the metrics at the edges of the range it accepts.

float64 holds magnitudes up to about 1.8e308 and, with full precision, down to about 2.2e-308.
Areas, unions, enclosures and DIoU's squared distances are products of two coordinates, so
coordinates beyond ``2**508`` (or positive areas below ``2**-1000``) would make them overflow to
inf (then ``inf - inf`` is NaN in the union) or underflow to 0 (then a region that is there
compares as an empty one). Constructors refuse such regions with `InvalidRegionError`; inside
the range every metric holds.

The property behind most tests below: scaling both regions by a power of two is exact in
float64 and changes no ratio, so IoU, GIoU, DIoU and CIoU at ``2**±500`` must equal, bit for bit
or within rounding, the same metric at scale 1.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import geoiou
from geoiou._validation import LARGEST_COORDINATE, SMALLEST_AREA
from strategies import random_boxes, random_intervals, random_polygons, random_rotated_boxes, rng

LARGE, SMALL = 2.0**500, 2.0**-490


# --------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    "build",
    [
        lambda: geoiou.Box([0, 0, 1e308, 1e308]),  # the issue's example: areas overflow, inf - inf is NaN
        lambda: geoiou.Box([1e308, 0, 1e308, 1], fmt="xywh"),  # x + w itself overflows to inf
        lambda: geoiou.Box([-1e200, 0, 0, 1]),
        lambda: geoiou.RotatedBox([0, 0, 1e200, 1e200, 30]),  # corners at 7e199
        lambda: geoiou.RotatedBox([1e300, 0, 1, 1, 0]),
        lambda: geoiou.RotatedBox.from_corners([0, 0, 1e300, 0, 1e300, 1e300, 0, 1e300]),
        lambda: geoiou.Interval([-1e308, 1e308]),  # its length overflows
        lambda: geoiou.Polygon([(0, 0), (1e200, 0), (0, 1e200)]),
        lambda: geoiou.Polygon.from_rings([[(0, 0), (1, 0), (0, 1)], [(0, 0), (1e160, 0), (0, 1e160)]]),
    ],
    ids=[
        "box",
        "box-xywh",
        "box-negative",
        "rotated",
        "rotated-centre",
        "rotated-corners",
        "interval",
        "polygon",
        "polygon-batch",
    ],
)
def test_coordinates_beyond_the_range_are_refused(build):
    with pytest.raises(geoiou.InvalidRegionError, match=r"within ±2\*\*508"):
        build()


@pytest.mark.parametrize(
    "build",
    [
        lambda: geoiou.Box([0, 0, 1e-200, 1e-200]),  # its area 1e-400 is 0 in float64
        lambda: geoiou.RotatedBox([0, 0, 1e-160, 1e-160, 30]),
        lambda: geoiou.Interval([0, 1e-200]),
        lambda: geoiou.Polygon([(0, 0), (1e-155, 0), (0, 1e-155)]),  # area 5e-311: subnormal
        lambda: geoiou.Polygon.from_rings([[(0, 0), (1, 0), (0, 1)], [(0, 0), (1e-155, 0), (0, 1e-155)]]),
    ],
    ids=["box", "rotated", "interval", "polygon", "polygon-batch"],
)
def test_positive_measures_that_underflow_are_refused(build):
    with pytest.raises(geoiou.InvalidRegionError, match="underflow"):
        build()


def test_the_message_names_the_batch_index():
    with pytest.raises(geoiou.InvalidRegionError, match=r"'coords' must .* \(got '1e\+300 at batch index \(1,\)'\)"):
        geoiou.Box([[0, 0, 1, 1], [0, 0, 1e300, 1]])


def test_regions_at_the_limits_are_accepted():
    # Zero measures stay allowed (an empty box is no underflow), and the limits themselves are in range.
    assert geoiou.Box([0, 0, 0, 1e-300]).area == 0.0
    assert geoiou.Box([-LARGEST_COORDINATE, 0, LARGEST_COORDINATE, 1]).area == 2 * LARGEST_COORDINATE
    assert geoiou.Box([0, 0, 2.0**-500, 2.0**-500]).area == SMALLEST_AREA
    assert geoiou.Interval([0, 2.0**-500]).length == 2.0**-500
    assert geoiou.Polygon([(0, 0), (LARGEST_COORDINATE, 0), (0, LARGEST_COORDINATE)]).area == 2.0**1015
    assert geoiou.Polygon([(0, 0), (2.0**-499, 0), (0, 2.0**-500)]).area == SMALLEST_AREA


def test_mask_origins_where_pixels_are_no_longer_resolved_are_refused():
    # At 1e17 neighbouring floats are 16 apart: a 2-pixel mask had empty bounds and IoU 0 with itself.
    with pytest.raises(geoiou.InvalidRegionError, match=r"'origin' must be pixel edges within ±2\*\*52"):
        geoiou.Mask(np.ones((2, 2)), origin=(1e17, 1e17))
    with pytest.raises(geoiou.InvalidRegionError, match="'origin'"):
        geoiou.Mask.from_rle({"size": [2, 2], "counts": [0, 4]}, origin=(0, -(2.0**52)))
    # The far edge counts: origin 2**52 - 3 with 2 columns reaches 2**52 - 1, inside.
    edge = 2.0**52 - 3
    mask = geoiou.Mask(np.ones((2, 2)), origin=(edge, edge))
    assert geoiou.iou(mask, mask) == 1.0
    assert geoiou.iou(mask, geoiou.Box([edge, edge, edge + 2, edge + 2])) == 1.0
    # Half of the 2 × 2 square: the triangle's vertices are exact integers there.
    triangle = geoiou.Polygon([(edge, edge), (edge + 2, edge), (edge, edge + 2)])
    assert geoiou.iou(mask, triangle) == 0.5


@pytest.mark.parametrize(
    "rle, match",
    [
        ({"size": [2, 2], "counts": [2**62, 2**62, 2**62, 2**62 + 4]}, "beyond 64-bit"),  # the total wraps to 4
        ({"size": [0, 0], "counts": [2**62] * 4}, "beyond 64-bit"),  # wraps to 0
        ({"size": [2**32, 2**32], "counts": [0]}, r"at most 2\*\*52 pixels"),  # h·w = 2**64 wraps in int64
        ({"size": [2, 2], "counts": [2**63, 1]}, "list of integers"),  # not an int64
    ],
)
def test_rle_counts_that_overflow_int64_are_refused(rle, match):
    with pytest.raises(geoiou.InvalidRegionError, match=match):
        geoiou.Mask.from_rle(rle)


# --------------------------------------------------------------------------- metrics inside the range
def _scaled(region: geoiou.Region, factor: float) -> geoiou.Region:
    """`region` with every coordinate multiplied by `factor` (a power of two: exact)."""
    if isinstance(region, geoiou.Box):
        return geoiou.Box(region.to_array() * factor)
    if isinstance(region, geoiou.RotatedBox):
        return geoiou.RotatedBox(region.to_array() * np.array([factor] * 4 + [1.0]))
    if isinstance(region, geoiou.Interval):
        return geoiou.Interval(region.to_array() * factor)
    coords, rings, parts, geometries = region.to_ragged()
    return geoiou.Polygon.from_ragged(coords * factor, rings, parts, geometries)


def _batches(kind: str):
    gen = rng(7)
    make = {
        "box": random_boxes,
        "rotated_box": random_rotated_boxes,
        "polygon": random_polygons,
        "interval": random_intervals,
    }[kind]
    return make(gen, 30), make(gen, 30)


METRICS = {"iou": geoiou.iou, "giou": geoiou.giou, "diou": geoiou.diou}


@pytest.mark.parametrize("factor", [LARGE, SMALL], ids=["2**500", "2**-490"])
@pytest.mark.parametrize("kind", ["box", "rotated_box", "polygon", "interval"])
def test_metrics_do_not_depend_on_a_power_of_two_scale(kind, factor):
    """IoU, GIoU and DIoU at 2**500 and 2**-490 equal the values at scale 1, without a warning.

    Kernels that work in a frame scaled by a power of two (polygons, rotated boxes) are bit-exact;
    the others round differently only in the last bits (1e-12).
    """
    a, b = _batches(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow, underflow or invalid-value warning on the way
        big_a, big_b = _scaled(a, factor), _scaled(b, factor)
        for name, metric in METRICS.items():
            expected = metric(a, b)
            assert np.isfinite(expected).all()
            np.testing.assert_allclose(metric(big_a, big_b), expected, rtol=1e-12, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(
            geoiou.pairwise_giou(big_a, big_b), geoiou.pairwise_giou(a, b), rtol=1e-12, atol=1e-12
        )
        if kind == "box":
            np.testing.assert_allclose(geoiou.ciou(big_a, big_b), geoiou.ciou(a, b), rtol=1e-12, atol=1e-12)


def test_the_issue_example_at_the_largest_accepted_size():
    # Two equal boxes of side 2**508 (areas 2**1016, union 2**1016, enclosure 2**1016): 1.0, as at any size.
    box = geoiou.Box([0, 0, LARGEST_COORDINATE, LARGEST_COORDINATE])
    for metric in (geoiou.iou, geoiou.giou, geoiou.diou, geoiou.ciou):
        assert metric(box, box) == 1.0
    # Opposite corners of the square [-L, L]²: the enclosing box's diagonal² is 8 L² = 2**1019.
    corner = geoiou.Box([-LARGEST_COORDINATE, -LARGEST_COORDINATE, 0, 0])
    far = geoiou.Box([LARGEST_COORDINATE / 2, LARGEST_COORDINATE / 2, LARGEST_COORDINATE, LARGEST_COORDINATE])
    # C = (2L)² = 4L², union = L² + L²/4: GIoU = -(4 - 1.25) / 4 = -0.6875.
    assert geoiou.giou(corner, far) == -0.6875
    # d² = 2 (1.25 L)², c² = 2 (2L)²: DIoU = -(1.5625 / 4) = -0.390625.
    assert geoiou.diou(corner, far) == -0.390625


def test_polygon_centroids_at_both_ends_of_the_range():
    # The centroid's moments are cubes of coordinates: they overflowed at 1e150 and vanished at 1e-150.
    for factor in (2.0**506, 2.0**-498):
        triangle = geoiou.Polygon([(0, 0), (3 * factor, 0), (0, 3 * factor)])
        np.testing.assert_array_equal(triangle.centroid, [factor, factor])  # the mean of the vertices


def test_a_mask_against_the_largest_box():
    # |box| = 4 L² overwhelms the 4 pixels: IoU 4 / 2**1018, GIoU the same (C is the box), DIoU finite.
    mask = geoiou.Mask(np.ones((2, 2)))
    box = geoiou.Box([-LARGEST_COORDINATE, -LARGEST_COORDINATE, LARGEST_COORDINATE, LARGEST_COORDINATE])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert geoiou.iou(mask, box) == 4 / 2.0**1018
        assert geoiou.giou(mask, box) == pytest.approx(4 / 2.0**1018, rel=1e-12)
        assert np.isfinite(geoiou.diou(mask, box))


# --------------------------------------------------------------------------- sizes lost in conversions (issue 24, 2)
@pytest.mark.parametrize(
    "build",
    [
        lambda: geoiou.Box([1e16, 0, 1, 1], fmt="xywh"),  # 1e16 + 1 == 1e16: width 0, area 0 today
        lambda: geoiou.Box([1e16, 0, 1, 1], fmt="cxcywh"),  # 1e16 ± 0.5 rounds to 1e16 both ways
        lambda: geoiou.Box.from_pixel_indices([2**53, 0, 2**53, 0]),  # 2**53 + 1 == 2**53: one pixel of area 0
        lambda: geoiou.Box([[0, 0, 1, 1], [1e16, 0, 1, 1]], fmt="xywh"),
    ],
    ids=["xywh", "cxcywh", "pixel-indices", "xywh-batch"],
)
def test_conversions_that_lose_the_size_are_refused(build):
    with pytest.raises(
        geoiou.InvalidRegionError, match="'coords' must be sizes that survive the conversion to corners"
    ):
        build()


def test_conversions_that_keep_the_size_within_rounding_are_accepted():
    # 0.1 + 0.3 is 0.4 within one rounding: far inside the tolerance of one part in a million.
    assert geoiou.Box([0.1, 0.2, 0.3, 0.4], fmt="xywh").area == pytest.approx(0.12)
    assert geoiou.Box.from_pixel_indices([2**40, 0, 2**40, 0]).area == 1.0
    # A box of area 0 keeps measure 0 whatever the rounding of its other side: accepted as before.
    assert geoiou.Box([0, 1, 0, 1e-51], fmt="xywh").area == 0.0
