"""COCO RLE in NumPy: byte-for-byte agreement with pycocotools, both counts forms, errors, and Mask.from_rle/to_rle."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import geoiou
from geoiou import rle
from geoiou.errors import InvalidRegionError

coco_mask = pytest.importorskip("pycocotools.mask")

# pycocotools' decode trips NumPy 2's copy-keyword deprecation: not ours to fix.
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)


def coco_encode(masks: np.ndarray) -> list[dict]:
    """pycocotools' encoding of masks (n, h, w), from the Fortran-ordered uint8 (h, w, n) it wants."""
    return coco_mask.encode(np.asfortranarray(np.moveaxis(masks, 0, -1).astype(np.uint8)))


def random_masks(seed: int) -> list[np.ndarray]:
    """Masks of many kinds: noise of any density, blocks with long runs, stripes, empty, full, 1×1, odd sizes."""
    gen = np.random.default_rng(seed)
    masks = [
        np.zeros((1, 1), bool),
        np.ones((1, 1), bool),
        np.zeros((7, 13), bool),
        np.ones((13, 7), bool),
        np.ones((1, 50), bool),
        np.zeros((50, 1), bool),
    ]
    for _ in range(60):
        h, w = gen.integers(1, 70, size=2)
        kind = gen.integers(4)
        if kind == 0:
            mask = gen.random((h, w)) < gen.random()
        elif kind == 1:  # one block: runs that span whole columns and cross into the next
            mask = np.zeros((h, w), bool)
            mask[gen.integers(0, h) : gen.integers(0, h + 1), gen.integers(0, w) : gen.integers(0, w + 1)] = True
        elif kind == 2:
            mask = (np.arange(h)[:, None] // gen.integers(1, 5) + np.arange(w) // gen.integers(1, 5)) % 2 == 0
        else:
            mask = gen.random((h, w)) < 0.97  # nearly full: long runs with a few breaks
        masks.append(mask)
    big = np.zeros((600, 900), bool)  # runs far longer than 2**15: counts of four and more characters
    big[10:590, 5:880] = True
    big[300, 400] = False
    masks.append(big)
    return masks


# --------------------------------------------------------------------------- agreement with pycocotools
@pytest.mark.parametrize("seed", range(4))
def test_encode_matches_pycocotools_byte_for_byte(seed):
    for mask in random_masks(seed):
        expected = coco_encode(mask[None])[0]
        assert rle.encode(mask) == expected
        assert rle.encode(mask.astype(np.uint8)) == expected  # 0/1 numbers work as well


@pytest.mark.parametrize("seed", range(4))
def test_decode_reads_pycocotools_output_and_pycocotools_reads_ours(seed):
    for mask in random_masks(seed):
        ours = rle.encode(mask)
        np.testing.assert_array_equal(rle.decode(coco_encode(mask[None])[0]), mask)
        np.testing.assert_array_equal(coco_mask.decode(ours), mask)
        str_counts = {"size": ours["size"], "counts": ours["counts"].decode("ascii")}  # as read from JSON
        np.testing.assert_array_equal(rle.decode(str_counts), mask)


def test_batches_match_pycocotools():
    gen = np.random.default_rng(7)
    masks = gen.random((25, 31, 17)) < gen.random((25, 1, 1))
    masks[3] = False
    masks[4] = True
    expected = coco_encode(masks)
    assert rle.encode_batch(masks) == expected
    assert rle.encode_batch(list(masks)) == expected
    np.testing.assert_array_equal(rle.decode_batch(expected), masks)


def test_encode_batch_takes_masks_of_different_sizes():
    masks = random_masks(1)[:10]
    assert rle.encode_batch(masks) == [coco_encode(mask[None])[0] for mask in masks]


def test_uncompressed_counts_decode_like_pycocotools():
    gen = np.random.default_rng(3)
    for _ in range(30):
        h, w = gen.integers(1, 40, size=2)
        counts = _counts_of(gen.random((h, w)) < gen.random())
        uncompressed = {"size": [int(h), int(w)], "counts": counts}
        compressed = coco_mask.frPyObjects(uncompressed, int(h), int(w))
        np.testing.assert_array_equal(rle.decode(uncompressed), coco_mask.decode(compressed))
        assert rle.compress(counts) == compressed["counts"]


def test_compress_round_trips_large_counts_and_negative_deltas():
    counts = [0, 2**31 - 5, 3, 1, 2**20, 7, 0, 1]  # deltas against two before go far negative
    string = rle.compress(counts)
    np.testing.assert_array_equal(rle.decompress(string), counts)
    expected = coco_mask.frPyObjects({"size": [1, int(sum(counts))], "counts": counts}, 1, int(sum(counts)))["counts"]
    assert string == expected


def test_uncompressed_counts_may_hold_empty_runs():
    # An empty run of false pixels between two true runs joins them.
    decoded = rle.decode({"size": [2, 3], "counts": [1, 2, 0, 1, 2]})
    np.testing.assert_array_equal(decoded, [[0, 1, 0], [1, 1, 0]])


def test_degenerate_sizes():
    assert rle.encode(np.zeros((0, 5), bool)) == {"size": [0, 5], "counts": b"0"}
    assert rle.decode({"size": [0, 5], "counts": b"0"}).shape == (0, 5)
    assert rle.decode({"size": [3, 0], "counts": []}).shape == (3, 0)
    assert rle.decode_batch([]).shape == (0, 0, 0)
    assert rle.encode_batch(np.zeros((0, 4, 4), bool)) == []


def test_to_runs_gives_sorted_true_runs_in_column_major_order():
    runs = rle.to_runs([{"size": [2, 3], "counts": [1, 2, 1, 2]}, {"size": [2, 3], "counts": [6]}])
    np.testing.assert_array_equal(runs.starts, [1, 4])
    np.testing.assert_array_equal(runs.stops, [3, 6])
    np.testing.assert_array_equal(runs.offsets, [0, 2, 2])
    np.testing.assert_array_equal(runs.sizes, [[2, 3], [2, 3]])


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ([1, 2], r"'rle' must be one COCO RLE dict; use decode_batch for several"),
        ({"counts": b"0"}, r"'rle' must be a COCO RLE dict with 'size' and 'counts' \(got \{'counts': b'0'\}\)"),
        ({"size": [2, 2, 2], "counts": b"8"}, r"'size' must be two non-negative integers \[h, w\] \(got \[2, 2, 2\]\)"),
        ({"size": [-1, 2], "counts": b"0"}, r"'size' must be two non-negative integers \[h, w\] \(got \[-1, 2\]\)"),
        ({"size": [1.5, 2], "counts": b"3"}, r"'size' must be two non-negative integers"),
        ({"size": "ab", "counts": b"3"}, r"'size' must be two non-negative integers \[h, w\] \(got 'ab'\)"),
        (
            {"size": [2, 2], "counts": 4},
            r"'counts' must be a compressed string \(bytes or str\) or a list of integers \(got 4\)",
        ),
        (
            {"size": [2, 2], "counts": [1.0, 3.0]},
            r"'counts' must be a compressed string \(bytes or str\) or a list of integers",
        ),
        (
            {"size": [2, 2], "counts": [[1, 3]]},
            r"'counts' must be a compressed string \(bytes or str\) or a list of integers",
        ),
        (
            {"size": [2, 2], "counts": b"1~"},
            r"'counts' must be a COCO string of characters '0' to 'o' \(got \"'~' at position 1\"\)",
        ),
        ({"size": [2, 2], "counts": "1é"}, r"'counts' must be an ASCII string of characters '0' to 'o' \(got '1é'\)"),
        (
            {"size": [2, 2], "counts": b"1P"},
            r"'counts' must be a complete COCO string \(got \"b'1P', which stops inside a count\"\)",
        ),
        (
            {"size": [2, 2], "counts": b"P" * 12 + b"0"},
            r"'counts' must be a COCO string of counts of at most 12 characters",
        ),
        (
            {"size": [2, 2], "counts": [1, 2]},
            r"'counts' must be run lengths adding up to h·w = 4 \(got 'a total of 3'\)",
        ),
        ({"size": [2, 2], "counts": [5, -1]}, r"'counts' must be non-negative run lengths \(got '-1 at run 1'\)"),
        (
            {"size": [2, 2], "counts": b"O5"},
            r"'counts' must be non-negative run lengths \(got '-1 at run 0'\)",
        ),  # counts [-1, 5]
    ],
)
def test_malformed_rle_is_refused_with_the_reason(bad, message):
    with pytest.raises(InvalidRegionError, match=message):
        rle.decode(bad)


def test_errors_in_a_batch_name_the_rle():
    good = {"size": [1, 2], "counts": b"2"}
    with pytest.raises(InvalidRegionError, match=r"'rles\[1\].counts' must be run lengths adding up to h·w = 2"):
        rle.decode_batch([good, {"size": [1, 2], "counts": b"3"}])
    with pytest.raises(InvalidRegionError, match=r"'rles\[2\].size' must be two non-negative integers"):
        rle.to_runs([good, good, {"size": None, "counts": b"0"}])
    with pytest.raises(
        InvalidRegionError,
        match=r"'rles' must be RLEs of one size; decode them one at a time \(got 'sizes \[\[1, 2\], \[2, 1\]\]'\)",
    ):
        rle.decode_batch([good, {"size": [2, 1], "counts": b"2"}])
    with pytest.raises(InvalidRegionError, match=r"'rles' must be a COCO RLE dict or a sequence of them \(got b'02'\)"):
        rle.to_runs(b"02")


@pytest.mark.parametrize("stretch", [1, 7, 64])
def test_batches_decoded_in_stretches_equal_one_rle_at_a_time(monkeypatch, stretch):
    # Large batches are decoded a stretch of characters at a time; tiny stretches cut the batch
    # everywhere, also inside and between mixed compressed, uncompressed and empty RLEs.
    monkeypatch.setattr(rle, "_CHUNK_CHARACTERS", stretch)
    masks = random_masks(7)
    rles = rle.encode_batch(masks)
    rles[3] = {"size": list(masks[3].shape), "counts": rle.decompress(rles[3]["counts"]).tolist()}
    rles[5] = {"size": rles[5]["size"], "counts": rles[5]["counts"].decode()}
    runs = rle.to_runs(rles)
    for k, mask in enumerate(masks):
        one = rle.to_runs(rles[k])
        np.testing.assert_array_equal(runs.slice(k, k + 1).starts, one.starts)
        np.testing.assert_array_equal(runs.slice(k, k + 1).stops, one.stops)
        np.testing.assert_array_equal(rle.decode(rles[k]), mask)
    rles[40] = {"size": rles[40]["size"], "counts": rles[40]["counts"] + b"1"}  # one count too many
    with pytest.raises(InvalidRegionError, match=r"'rles\[40\].counts' must be run lengths adding up to h·w"):
        rle.to_runs(rles)


def test_encoding_refuses_what_is_not_a_binary_mask():
    with pytest.raises(
        InvalidRegionError,
        match=r"'mask' must be a 2-D array \(h, w\); use encode_batch for \(n, h, w\) \(got 'shape \(2, 2, 2\)'\)",
    ):
        rle.encode(np.zeros((2, 2, 2), bool))
    with pytest.raises(InvalidRegionError, match=r"'mask' must be boolean or only 0 and 1 \(got 2\)"):
        rle.encode(np.array([[0, 2]]))
    with pytest.raises(InvalidRegionError, match=r"'masks\[1\]' must be a 2-D array \(h, w\) \(got 'shape \(3,\)'\)"):
        rle.encode_batch([np.zeros((2, 2)), np.zeros(3)])
    with pytest.raises(InvalidRegionError, match=r"'masks' must be an array \(n, h, w\) or a sequence of 2-D arrays"):
        rle.encode_batch(np.zeros((2, 2)))


# --------------------------------------------------------------------------- Mask.from_rle and Mask.to_rle
def test_mask_round_trips_through_rle_byte_for_byte():
    masks = np.stack([mask[:20, :20] for mask in random_masks(2) if min(mask.shape) >= 20][:12])
    expected = coco_encode(masks)
    assert geoiou.Mask(masks).to_rle() == expected
    from_rle = geoiou.Mask.from_rle(expected)
    assert from_rle.shape == (len(masks),)
    np.testing.assert_array_equal(from_rle.data, masks)
    assert from_rle.to_rle() == expected
    assert geoiou.Mask.from_rle(expected[0]).to_rle() == expected[0]


def test_mask_from_rle_has_the_region_of_the_dense_mask():
    gen = np.random.default_rng(4)
    masks = gen.random((8, 23, 71)) < 0.4
    masks[2] = False
    origins = gen.integers(-5, 5, (8, 2)).astype(float)
    dense, from_rle = geoiou.Mask(masks, origin=origins), geoiou.Mask.from_rle(coco_encode(masks), origin=origins)
    np.testing.assert_array_equal(from_rle.area, dense.area)
    np.testing.assert_array_equal(from_rle.bounds, dense.bounds)
    np.testing.assert_array_equal(from_rle.centroid, dense.centroid)
    np.testing.assert_array_equal(from_rle.origin, origins)
    # Indexing and reshaping keep the runs behind the masks.
    np.testing.assert_array_equal(from_rle[[5, 1]].area, dense.area[[5, 1]])
    np.testing.assert_array_equal(from_rle.reshape(2, 4)[1].data, masks[4:])
    assert from_rle[3].to_shapely().equals(dense[3].to_shapely())


def test_from_rle_shapes_and_origins():
    one = {"size": [2, 3], "counts": b"231"}
    assert geoiou.Mask.from_rle(one).shape == ()
    assert geoiou.Mask.from_rle([one]).shape == (1,)
    assert geoiou.Mask.from_rle([]).shape == (0,)
    np.testing.assert_array_equal(geoiou.Mask.from_rle(one, origin=(4, 5)).bounds, [5, 5, 7, 7])
    moved = geoiou.Mask.from_rle([one, one], origin=[(0, 0), (10, 0)])
    np.testing.assert_array_equal(moved.bounds[:, 0], [1, 11])
    with pytest.raises(InvalidRegionError, match=r"'origin' must be of shape \(2,\) or \(2, 2\)"):
        geoiou.Mask.from_rle([one, one], origin=np.zeros((3, 2)))


def test_rles_of_different_sizes_are_padded_to_one_grid():
    small, wide = {"size": [2, 2], "counts": [0, 4]}, {"size": [1, 5], "counts": [4, 1]}
    masks = geoiou.Mask.from_rle([small, wide])
    assert masks.data.shape == (2, 2, 5)
    np.testing.assert_array_equal(masks.area, [4, 1])
    np.testing.assert_array_equal(masks.bounds, [[0, 0, 2, 2], [4, 0, 5, 1]])
    assert masks.grid_shape == (2, 5) and masks.source_shape.tolist() == [[2, 2], [1, 5]]
    # Each comes back as its own RLE (pycocotools' encoding of the 1 x 5 mask whose last pixel is set), not padded.
    assert masks.to_rle()[1] == coco_encode(np.array([[[0, 0, 0, 0, 1]]], dtype=bool))[0]


def test_to_rle_of_nested_batches_and_repr():
    masks = geoiou.Mask(np.zeros((2, 3, 4, 4), bool))
    nested = masks.to_rle()
    assert len(nested) == 2 and len(nested[0]) == 3 and nested[1][2] == coco_encode(np.zeros((1, 4, 4)))[0]
    assert repr(geoiou.Mask.from_rle({"size": [2, 3], "counts": b"231"})) == "Mask(<2x3 pixels, 3 true, origin=(0, 0)>)"


def test_from_rle_refuses_malformed_input():
    with pytest.raises(InvalidRegionError, match=r"'counts' must be run lengths adding up to h·w = 6"):
        geoiou.Mask.from_rle({"size": [2, 3], "counts": b"23"})
    with pytest.raises(InvalidRegionError, match=r"'rles\[0\]' must be a COCO RLE dict with 'size' and 'counts'"):
        geoiou.Mask.from_rle([np.zeros((2, 2))])


def _counts_of(mask: np.ndarray) -> list[int]:
    """Uncompressed COCO counts of a mask, written independently of geoiou: runs of a column-major scan."""
    flat = mask.ravel(order="F")
    counts, value, length = [], False, 0
    for pixel in flat:
        if pixel != value:
            counts.append(length)
            value, length = pixel, 0
        length += 1
    counts.append(length)
    return counts


def test_masks_from_runs_encode_without_decoding_and_byte_for_byte():
    # Uncompressed counts with an empty false run (two true runs touch) and a mask of no pixels:
    # Mask.to_rle must write pycocotools' strings while the store keeps only its runs.
    pycocotools_mask = pytest.importorskip("pycocotools.mask")
    given = [
        {"size": [4, 5], "counts": [3, 2, 0, 4, 11]},
        {"size": [4, 5], "counts": [20]},
        rle.encode(np.eye(4, 5, dtype=bool)),
    ]
    masks = geoiou.Mask.from_rle(given)
    written = masks.to_rle()
    assert "dense" not in vars(masks._store)
    for one, encoded in zip(given, written):
        expected = pycocotools_mask.encode(np.asfortranarray(rle.decode(one).astype(np.uint8)))
        assert encoded["counts"] == expected["counts"] and encoded["size"] == list(expected["size"])


def test_the_boxes_of_many_masks_of_several_sizes_are_the_dense_ones():
    """Enough masks for the compiled boxes' parallel loop: each mask's box read from its runs with its own height
    (runs crossing columns, empty and full masks) is the box of its pixels."""
    masks = random_masks(7) + random_masks(8)
    assert len(masks) >= 128
    batch = geoiou.Mask.from_rle(coco_encode_each(masks))
    for mask, bounds in zip(masks, batch.bounds):
        np.testing.assert_array_equal(bounds, geoiou.Mask(mask).bounds)


@pytest.mark.parametrize("seed", range(3))
def test_rles_of_several_sizes_in_one_batch_are_the_padded_masks(seed):
    # One run table, each mask's runs read with its own height: everything a batch gives must equal the same
    # masks padded to the largest grid as dense pixels (where every mask shares the grid's height).
    masks = random_masks(seed)[:40]
    batch = geoiou.Mask.from_rle(coco_encode_each(masks))
    height, width = batch.grid_shape
    padded = np.zeros((len(masks), height, width), dtype=bool)
    for k, mask in enumerate(masks):
        padded[k, : mask.shape[0], : mask.shape[1]] = mask
    dense = geoiou.Mask(padded)
    assert batch._store._runs is not None and not batch._store.one_height  # kept as runs, several heights
    np.testing.assert_array_equal(batch.source_shape, [mask.shape for mask in masks])
    np.testing.assert_array_equal(batch.area, dense.area)
    np.testing.assert_array_equal(batch.bounds, dense.bounds)
    np.testing.assert_array_equal(geoiou.pairwise_iou(batch, batch), geoiou.pairwise_iou(dense, dense))
    boxes = geoiou.Box([[0.5, 0.5, 9.5, 30.0], [3.0, 1.0, 60.0, 20.5]])
    np.testing.assert_array_equal(
        geoiou.pairwise_intersection_area(batch, boxes), geoiou.pairwise_intersection_area(dense, boxes)
    )
    triangle = geoiou.Polygon([(0.5, 0.0), (40.0, 3.5), (7.0, 45.0)]).reshape(1)
    np.testing.assert_allclose(
        geoiou.pairwise_intersection_area(batch, triangle),
        geoiou.pairwise_intersection_area(dense, triangle),
        rtol=0,
        atol=1e-9,
    )
    np.testing.assert_array_equal(batch.data, padded)
    # Each comes back as its own RLE, byte for byte pycocotools' (not padded to the grid).
    assert batch.to_rle() == coco_encode_each(masks)
    # Sent to another process (Dask), a slice keeps its runs and the batch's grid.
    sent = pickle.loads(pickle.dumps(batch[3:9]))
    assert sent.grid_shape == batch.grid_shape and sent._store._runs is not None
    np.testing.assert_array_equal(sent.data, padded[3:9])
    # Joined with another batch of runs, nothing is decoded and the masks are the same.
    joined = geoiou.Mask.concatenate([batch[::2], geoiou.Mask.from_rle(coco_encode_each(masks[:3]))])
    assert joined._store._runs is not None
    np.testing.assert_array_equal(joined.area, np.concatenate([dense.area[::2], dense.area[:3]]))


def coco_encode_each(masks: list[np.ndarray]) -> list[dict]:
    return [coco_encode(mask[None])[0] for mask in masks]
