"""Boundary bands and boundary IoU: boundary-iou-api's pixels for masks, exact bands for vector regions."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import geoiou
from geoiou import rle
from tests.boundary_reference import reference_band

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")


def random_masks(seed: int, count: int = 40) -> list[np.ndarray]:
    """Masks of several sizes: noise, blobs, rectangles at the edges, empty and full ones."""
    rng = np.random.default_rng(seed)
    masks = []
    for k in range(count):
        h, w = (int(v) for v in rng.integers(1, 90, 2))
        rows, cols = np.mgrid[:h, :w]
        if k % 4 == 0:
            mask = rng.random((h, w)) < 0.6
        elif k % 4 == 1:
            mask = (rows - rng.uniform(0, h)) ** 2 + (cols - rng.uniform(0, w)) ** 2 < rng.uniform(4, 2000)
        elif k % 4 == 2:
            mask = np.zeros((h, w), dtype=bool)
            mask[rng.integers(0, h) :, : rng.integers(1, w + 1)] = True  # touches the bottom and left edges
        else:
            mask = np.full((h, w), bool(k % 8 == 3))
        masks.append(mask)
    return masks


@pytest.mark.parametrize("ratio", [0.02, 0.05, 0.25])
def test_mask_bands_are_boundary_iou_apis_pixels(ratio: float) -> None:
    masks = random_masks(int(ratio * 100))
    # One batch of masks of several sizes, held as runs: each eroded with its own diagonal.
    batch = geoiou.Mask.from_rle([rle.encode(mask) for mask in masks])
    bands = geoiou.boundary_band(batch, dilation_ratio=ratio)
    assert bands.shape == batch.shape
    for k, mask in enumerate(masks):
        h, w = mask.shape
        np.testing.assert_array_equal(bands[k].data[:h, :w], reference_band(mask, ratio))
        assert not bands[k].data[h:, :].any() and not bands[k].data[:, w:].any()
    # Dense masks give the same bands, through their runs.
    dense = geoiou.boundary_band(geoiou.Mask(masks[1]), dilation_ratio=ratio)
    np.testing.assert_array_equal(dense.data, reference_band(masks[1], ratio))


def test_combs_whose_bands_outgrow_their_first_room() -> None:
    # Full columns between columns cut every 5 rows: each cut column's pieces lose their middles to the erosion,
    # and each full column is split by its neighbours' gaps, so the band has more runs than twice the mask's
    # pieces: those masks are banded a second time into room of their exact size.
    comb = np.ones((41, 30), dtype=bool)
    comb[::5, 1::2] = False
    blob = random_masks(3, 2)[1]
    batch = geoiou.Mask.from_rle([rle.encode(comb), rle.encode(blob), rle.encode(comb.T)])
    bands = geoiou.boundary_band(batch, distance=1)
    for k, mask in enumerate([comb, blob, comb.T]):
        ratio = 1 / np.hypot(*mask.shape)  # d = 1
        h, w = mask.shape
        np.testing.assert_array_equal(bands[k].data[:h, :w], reference_band(mask, ratio))


@given(arrays(bool, st.tuples(st.integers(1, 24), st.integers(1, 24))), st.integers(1, 6))
def test_band_properties(mask: np.ndarray, distance: int) -> None:
    region = geoiou.Mask(mask)
    band = geoiou.boundary_band(region, distance=distance).data
    assert not (band & ~mask).any()  # the band lies inside the mask
    padded = np.zeros((mask.shape[0] + 2, mask.shape[1] + 2), dtype=np.uint8)
    padded[1:-1, 1:-1] = mask
    assert band.sum() == mask.sum() - _eroded(padded, distance).sum()
    if mask.any():
        assert geoiou.boundary_iou(region, region, distance=distance) == 1.0


def _eroded(padded: np.ndarray, distance: int) -> np.ndarray:
    cv2 = pytest.importorskip("cv2")
    return cv2.erode(padded, np.ones((3, 3), np.uint8), iterations=distance)[1:-1, 1:-1].astype(bool)


def test_boundary_iou_against_the_reference_formula() -> None:
    masks = random_masks(7, 12)
    same_size = [np.pad(mask, ((0, 90 - mask.shape[0]), (0, 90 - mask.shape[1]))) for mask in masks]
    batch = geoiou.Mask(np.stack(same_size))
    got = geoiou.pairwise_boundary_iou(batch, batch, zero_division=0.0)
    for i, a in enumerate(same_size):
        for j, b in enumerate(same_size):
            band_a, band_b = reference_band(a), reference_band(b)
            union = (band_a | band_b).sum()
            expected = (band_a & band_b).sum() / union if union else 0.0
            assert got[i, j] == expected
    # Elementwise with broadcasting is the diagonal of the pairwise matrix.
    np.testing.assert_array_equal(geoiou.boundary_iou(batch, batch, zero_division=0.0), np.diag(got))


def test_polygon_bands_are_exact() -> None:
    # An L shape: its reflex corner rounds the inward offset; shapely's buffer with the same arcs is the truth.
    ell = geoiou.Polygon([(0, 0), (40, 0), (40, 10), (10, 10), (10, 40), (0, 40)])
    band = geoiou.boundary_band(ell, distance=2.5)
    shape = ell.to_shapely()
    expected = shape.difference(shapely.buffer(shape, -2.5, quad_segs=32))
    assert float(band.area) == pytest.approx(expected.area, rel=1e-12)
    # A square's band is a frame: 20² − 16² with d = 2.
    square = geoiou.Box([0, 0, 20, 20])
    assert float(geoiou.boundary_band(square, distance=2).area) == 144.0
    # The ratio of the image diagonal: 0.02 · 500 = 10, the whole square.
    assert float(geoiou.boundary_band(square, image_size=(300, 400)).area) == 400.0
    # Mixed kinds compare band against band: a mask's band on pixels, a polygon's exact.
    pixels = np.zeros((30, 30), dtype=bool)
    pixels[:20, :20] = True
    mask = geoiou.Mask(pixels)
    assert geoiou.boundary_iou(mask, square, distance=2) == 1.0  # the same frame


def test_refusals_name_the_parameter() -> None:
    box = geoiou.Box([0, 0, 1, 1])
    with pytest.raises(geoiou.InvalidArgumentError, match="'image_size'"):
        geoiou.boundary_band(box)
    with pytest.raises(geoiou.InvalidArgumentError, match="'dilation_ratio' must be a positive number"):
        geoiou.boundary_band(box, dilation_ratio=0, image_size=(2, 2))
    with pytest.raises(geoiou.InvalidArgumentError, match="'distance' must be whole numbers"):
        geoiou.boundary_band(geoiou.Mask(np.ones((3, 3))), distance=1.5)
    with pytest.raises(geoiou.InvalidArgumentError, match="'distance' must be positive"):
        geoiou.boundary_band(box, distance=-1)
    with pytest.raises(geoiou.InvalidArgumentError, match="'region' must be a Mask, Polygon, Box or RotatedBox"):
        geoiou.boundary_band(geoiou.Interval([0, 1]), distance=1)
    with pytest.raises(geoiou.InvalidArgumentError, match="'image_size' must be \\(height, width\\)"):
        geoiou.boundary_band(box, image_size=(0, 3))
