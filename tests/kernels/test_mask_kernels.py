"""Mask×Mask kernel: exact against brute-force pixel counts, for dense- and RLE-built masks, across chunkings."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import shapely

import geoiou
from geoiou import metrics, rle
from geoiou.kernels import pairs

SCALE = 4  # fractional origins below are multiples of 1/SCALE


# --------------------------------------------------------------------------- helpers
def random_masks(gen: np.random.Generator, n: int, shape: tuple[int, int]) -> np.ndarray:
    """Masks that exercise the packing: blobs, noise, full columns (runs that cross columns), empty and full masks."""
    h, w = shape
    rows, cols = np.indices(shape)
    masks = np.zeros((n, h, w), dtype=bool)
    for k in range(n):
        kind = k % 5
        if kind == 0:  # an ellipse anywhere, partly outside the grid at times
            cy, cx = gen.uniform(-5, h + 5), gen.uniform(-5, w + 5)
            ry, rx = gen.uniform(0.5, 1 + h / 1.5), gen.uniform(0.5, 1 + w / 1.5)
            masks[k] = ((rows - cy) / ry) ** 2 + ((cols - cx) / rx) ** 2 <= 1
        elif kind == 1:
            masks[k] = gen.random(shape) < gen.uniform(0.05, 0.95)
        elif kind == 2:  # whole columns: column-major runs cross from one column into the next
            masks[k, :, gen.integers(0, w) : gen.integers(0, w + 1)] = True
        elif kind == 3:
            masks[k] = k % 2 == 0  # empty or full
        else:
            masks[k, gen.integers(0, h) : gen.integers(0, h + 1), gen.integers(0, w) : gen.integers(0, w + 1)] = True
    return masks


def as_rle(masks: np.ndarray) -> list[dict]:
    return rle.encode_batch(masks)


def builders(masks: np.ndarray, origin=(0.0, 0.0)) -> dict[str, geoiou.Mask]:
    """The same masks built from dense pixels and from COCO RLE (whose windows run along columns)."""
    return {"dense": geoiou.Mask(masks, origin=origin), "rle": geoiou.Mask.from_rle(as_rle(masks), origin=origin)}


def brute_force_shared(a: np.ndarray, origin_a, b: np.ndarray, origin_b) -> float:
    """Shared area, counting cells of a grid SCALE times finer that holds both masks (origins multiples of 1/SCALE)."""
    fine_a, fine_b = (np.kron(m, np.ones((SCALE, SCALE), dtype=bool)) for m in (a, b))
    corners = [
        np.round(np.asarray(o, dtype=float)[::-1] * SCALE).astype(int) for o in (origin_a, origin_b)
    ]  # (row, col)
    low = np.minimum(*corners)
    high = np.maximum(corners[0] + fine_a.shape, corners[1] + fine_b.shape)
    canvas = np.zeros((2, *(high - low)), dtype=bool)
    for layer, (fine, corner) in enumerate(zip((fine_a, fine_b), corners)):
        r, c = corner - low
        canvas[layer, r : r + fine.shape[0], c : c + fine.shape[1]] = fine
    return np.count_nonzero(canvas[0] & canvas[1]) / SCALE**2


def pairwise_brute_force(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([[np.count_nonzero(x & y) for y in b] for x in a], dtype=float)


# --------------------------------------------------------------------------- exactness
@pytest.mark.parametrize("shape", [(1, 1), (7, 5), (33, 70), (64, 64), (65, 129), (130, 3)])
def test_same_grid_counts_are_exact_for_every_build(shape):
    gen = np.random.default_rng(sum(shape))
    a, b = random_masks(gen, 11, shape), random_masks(gen, 9, shape)
    expected = pairwise_brute_force(a, b)
    for (name_a, mask_a), (name_b, mask_b) in itertools.product(builders(a).items(), builders(b).items()):
        np.testing.assert_array_equal(
            geoiou.pairwise_intersection_area(mask_a, mask_b), expected, err_msg=f"{name_a}×{name_b}"
        )


def test_rle_and_dense_builds_give_identical_metrics():
    gen = np.random.default_rng(1)
    a, b = random_masks(gen, 20, (40, 90)), random_masks(gen, 15, (40, 90))
    built_a, built_b = builders(a), builders(b)
    for metric in (geoiou.pairwise_iou, geoiou.pairwise_iof, geoiou.pairwise_intersection_area):
        results = [metric(built_a[x], built_b[y]) for x, y in itertools.product(built_a, built_b)]
        for result in results[1:]:
            np.testing.assert_array_equal(result, results[0])
    np.testing.assert_array_equal(built_a["rle"].area, a.sum(axis=(1, 2)))
    np.testing.assert_array_equal(built_a["rle"].bounds, built_a["dense"].bounds)


@pytest.mark.parametrize("build", ["dense", "rle"])
def test_different_shapes_on_one_origin_are_exact(build):
    gen = np.random.default_rng(2)
    a, b = random_masks(gen, 7, (20, 150)), random_masks(gen, 6, (90, 70))
    mask_a = builders(a)[build]
    for build_b, mask_b in builders(b).items():
        expected = [[brute_force_shared(x, (0, 0), y, (0, 0)) for y in b] for x in a]
        np.testing.assert_array_equal(geoiou.pairwise_intersection_area(mask_a, mask_b), expected, err_msg=build_b)


@pytest.mark.parametrize("offset", [(3, -2), (-64, 1), (0.5, 0), (1.25, -2.75), (-0.25, 0.5)])
def test_offset_origins_are_exact(offset):
    gen = np.random.default_rng(3)
    a, b = random_masks(gen, 6, (17, 23)), random_masks(gen, 5, (19, 21))
    expected = [[brute_force_shared(x, (0, 0), y, offset) for y in b] for x in a]
    for build_a, build_b in itertools.product(["dense", "rle"], repeat=2):
        result = geoiou.pairwise_intersection_area(builders(a)[build_a], builders(b, origin=offset)[build_b])
        np.testing.assert_array_equal(result, expected, err_msg=f"{build_a}×{build_b}")


def test_batches_mixing_shared_and_offset_origins():
    gen = np.random.default_rng(4)
    a, b = random_masks(gen, 6, (12, 12)), random_masks(gen, 6, (12, 12))
    origins_a = np.array([[0, 0], [0.5, 0], [0, 0], [2, 3], [0, 0], [-1.5, 0.25]])
    origins_b = np.array([[0, 0], [0, 0], [2, 3], [0.5, 0], [0, 0], [0, 0]])
    expected = [[brute_force_shared(x, oa, y, ob) for y, ob in zip(b, origins_b)] for x, oa in zip(a, origins_a)]
    for build in ("dense", "rle"):
        masks_a = (
            geoiou.Mask(a, origin=origins_a) if build == "dense" else geoiou.Mask.from_rle(as_rle(a), origin=origins_a)
        )
        np.testing.assert_array_equal(
            geoiou.pairwise_intersection_area(masks_a, geoiou.Mask(b, origin=origins_b)), expected
        )


def test_empty_and_full_masks():
    empty, full = np.zeros((3, 9, 70), dtype=bool), np.ones((2, 9, 70), dtype=bool)
    for build_e, build_f in itertools.product(["dense", "rle"], repeat=2):
        masks_e, masks_f = builders(empty)[build_e], builders(full)[build_f]
        np.testing.assert_array_equal(geoiou.pairwise_intersection_area(masks_e, masks_f), np.zeros((3, 2)))
        np.testing.assert_array_equal(geoiou.pairwise_iou(masks_f, masks_f), np.ones((2, 2)))
        assert np.isnan(geoiou.pairwise_iou(masks_e, masks_e)).all()
        np.testing.assert_array_equal(geoiou.pairwise_iou(masks_e, masks_e, zero_division=0.0), np.zeros((3, 3)))
        np.testing.assert_array_equal(masks_e.area, [0, 0, 0])
        assert np.isnan(masks_e.bounds).all()


def test_masks_reaching_every_edge_of_the_grid():
    gen = np.random.default_rng(5)
    masks = gen.random((6, 64, 128)) < 0.5
    masks[:, 0, :] = masks[:, -1, :] = masks[:, :, 0] = masks[:, :, -1] = True
    for built in builders(masks).values():
        np.testing.assert_array_equal(
            geoiou.pairwise_intersection_area(built, built), pairwise_brute_force(masks, masks)
        )
        np.testing.assert_array_equal(built.bounds, np.tile([0, 0, 128, 64], (6, 1)))


# --------------------------------------------------------------------------- batches and chunking
def test_pairwise_equals_a_loop_of_single_calls():
    gen = np.random.default_rng(6)
    a, b = random_masks(gen, 8, (30, 30)), random_masks(gen, 7, (30, 30))
    for build in ("dense", "rle"):
        mask_a, mask_b = builders(a)[build], builders(b)[build]
        matrix = geoiou.pairwise_iou(mask_a, mask_b)
        loop = [[geoiou.iou(mask_a[i], mask_b[j]) for j in range(len(b))] for i in range(len(a))]
        np.testing.assert_array_equal(matrix, loop)
        np.testing.assert_array_equal(geoiou.iou(mask_a[:, None], mask_b[None, :]), matrix)  # broadcasting


def test_chunk_boundaries_are_bit_identical(monkeypatch):
    gen = np.random.default_rng(7)
    a, b = random_masks(gen, 23, (50, 140)), random_masks(gen, 19, (50, 140))
    built_a, built_b = builders(a), builders(b)
    whole = {(x, y): geoiou.pairwise_iou(built_a[x], built_b[y]) for x, y in itertools.product(built_a, built_b)}
    for candidate_chunk, pairwise_chunk in [(7, 5), (1, 1), (64, 3), (3, 40)]:
        monkeypatch.setattr(pairs, "CANDIDATE_CHUNK", candidate_chunk)
        monkeypatch.setattr(metrics, "PAIRWISE_CHUNK", pairwise_chunk)
        # Fresh masks, so that nothing cached under the default chunking is reused.
        fresh_a, fresh_b = builders(a), builders(b)
        for (x, y), expected in whole.items():
            np.testing.assert_array_equal(geoiou.pairwise_iou(fresh_a[x], fresh_b[y]), expected, err_msg=f"{x}×{y}")


def test_indexing_shares_the_cached_windows():
    masks = geoiou.Mask(random_masks(np.random.default_rng(8), 10, (20, 20)))
    picked, reshaped = masks[[7, 2]], masks.reshape(2, 5)
    assert picked._store is masks._store and reshaped._store is masks._store
    np.testing.assert_array_equal(picked.area, masks.area[[7, 2]])
    assert masks._store.windows() is picked._store.windows()


def test_consecutive_masks_are_views_of_the_store():
    data = random_masks(np.random.default_rng(9), 6, (5, 8))
    masks = geoiou.Mask(data)
    assert np.shares_memory(masks[1:4].data, data)
    np.testing.assert_array_equal(masks[[4, 0]].data, data[[4, 0]])  # others are gathered
    assert not masks.data.flags.writeable and data.flags.writeable


def test_stack_of_masks_from_one_batch_keeps_its_store():
    data = random_masks(np.random.default_rng(10), 6, (9, 14))
    for build, masks in builders(data).items():
        stacked = geoiou.Mask.stack([masks[4], masks[1], masks[4]])
        assert stacked._store is masks._store, build
        np.testing.assert_array_equal(stacked.data, data[[4, 1, 4]])
        np.testing.assert_array_equal(geoiou.pairwise_iou(stacked, masks), geoiou.pairwise_iou(masks[[4, 1, 4]], masks))


def test_mask_polygon_overlap_decodes_only_the_polygon_window_of_rle_masks():
    # A 2000 x 3000 COCO mask with one 10 x 10 block at rows 100..109, columns 200..209, against a
    # triangle covering half of that block: the exact answer is 50, and the full grid is never decoded.
    pixels = np.zeros((2000, 3000), dtype=bool)
    pixels[100:110, 200:210] = True
    mask = geoiou.Mask.from_rle(rle.encode(pixels))
    triangle = geoiou.Polygon([(200, 100), (210, 100), (200, 110)])
    assert geoiou.intersection_area(mask, triangle) == 50.0
    assert "dense" not in vars(mask._store)
    assert mask.grid_shape == (2000, 3000)


def test_giou_of_rle_masks_decodes_only_their_bounding_boxes():
    # Two 3 x 3 blocks on a 2000 x 3000 grid, at (x 200..202, y 100..102) and (x 205..207, y 100..102):
    # union 18, hull = enclosing 8 x 3 rectangle = 24, so GIoU = 0 - (24 - 18) / 24 = -0.25.
    pixels = np.zeros((2, 2000, 3000), dtype=bool)
    pixels[0, 100:103, 200:203] = True
    pixels[1, 100:103, 205:208] = True
    masks = geoiou.Mask.from_rle(rle.encode_batch(pixels))
    assert geoiou.giou(masks[0], masks[1]) == -0.25
    assert "dense" not in vars(masks._store)


def test_masks_of_several_heights_held_as_runs_against_polygons():
    """One run table of masks of several sizes (each read with its own height, runs crossing columns), polygons
    with holes and without, float origins; every loop cut into chunks of one item on the pool: the pixel oracle's
    areas, and the same bits on one thread and on two."""
    from geoiou import _core
    from tests.strategies import pixel_oracle_geometry, random_polygons, random_polygons_with_holes

    gen = np.random.default_rng(41)
    pixels = [gen.random(tuple(gen.integers(3, 15, 2))) < gen.uniform(0.2, 0.9) for _ in range(16)]
    origins = gen.uniform(-6, 2, (16, 2))
    runs = geoiou.Mask.from_rle([rle.encode(p) for p in pixels], origin=origins)
    polygons = geoiou.Polygon.concatenate(
        [random_polygons(gen, 8, span=6.0, r_min=1.0, r_max=7.0), random_polygons_with_holes(gen, 4, span=6.0)]
    )
    expected = np.array(
        [[shapely.intersection(pixel_oracle_geometry(p, o), q.to_shapely()).area for q in polygons]
         for p, o in zip(pixels, origins)]
    )  # fmt: skip
    found = {}
    _core.split_every_loop_for_tests(True)
    try:
        for threads in (1, 2):
            geoiou.set_threads(threads)
            found[threads] = geoiou.pairwise_intersection_area(runs, polygons)
    finally:
        _core.split_every_loop_for_tests(False)
        geoiou.set_threads(None)
    np.testing.assert_allclose(found[1], expected, rtol=0, atol=1e-9)
    assert (found[1].view(np.uint64) == found[2].view(np.uint64)).all()


def test_mask_polygon_pairs_match_the_pixel_oracle():
    """Many masks (dense and from COCO runs) against many polygons, each pair rasterized on its own window."""
    from tests.strategies import pixel_oracle_geometry, random_masks, random_polygons

    gen = np.random.default_rng(31)
    dense = geoiou.Mask.stack(random_masks(gen, 12, max_side=14, origin="float", span=6))
    runs = geoiou.Mask.from_rle(dense.to_rle(), origin=dense.origin)
    polygons = random_polygons(gen, 10, span=7.0, r_min=1.0, r_max=6.0)
    expected = np.array(
        [
            [shapely.intersection(pixel_oracle_geometry(m.data, m.origin), p.to_shapely()).area for p in polygons]
            for m in dense
        ]
    )
    for masks in (dense, runs):
        np.testing.assert_allclose(geoiou.pairwise_intersection_area(masks, polygons), expected, rtol=0, atol=1e-9)
    # Runs are read along their columns, dense masks pixel by pixel along rows: the same sums in other orders.
    np.testing.assert_allclose(
        geoiou.pairwise_intersection_area(runs, polygons),
        geoiou.pairwise_intersection_area(dense, polygons),
        rtol=1e-12,
        atol=1e-12,
    )
