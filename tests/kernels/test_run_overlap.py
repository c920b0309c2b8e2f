"""The Mask x Mask count from COCO runs (`run_overlap_counts`) against counting decoded pixels."""

from __future__ import annotations

import hypothesis.strategies as st
import numpy as np
from hypothesis import given, settings

import geoiou
from geoiou import _core, rle
from geoiou.kernels.mask import run_overlap_counts


@st.composite
def mask_batches(draw):
    height = draw(st.integers(1, 9))
    widths = (draw(st.integers(1, 9)), draw(st.integers(1, 9)))  # grids of one height, widths may differ
    n = (draw(st.integers(1, 5)), draw(st.integers(1, 5)))
    density = draw(st.sampled_from([0.0, 0.2, 0.5, 0.9, 1.0]))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    return [rng.random((k, height, w)) < density for k, w in zip(n, widths)]


@settings(max_examples=200, deadline=None)
@given(batches=mask_batches(), data=st.data())
def test_counts_from_runs_equal_counts_of_decoded_pixels(batches, data):
    dense_a, dense_b = batches
    index_a = rle.to_runs(rle.encode_batch(dense_a))
    index_b = rle.to_runs(rle.encode_batch(dense_b))
    n_pairs = data.draw(st.integers(0, 12))
    masks_a = np.array(
        data.draw(st.lists(st.integers(0, len(dense_a) - 1), min_size=n_pairs, max_size=n_pairs)), dtype=np.int64
    )
    masks_b = np.array(
        data.draw(st.lists(st.integers(0, len(dense_b) - 1), min_size=n_pairs, max_size=n_pairs)), dtype=np.int64
    )
    # Column-major positions mean the same pixel on grids of one height: compare over the shared columns.
    width = min(dense_a.shape[2], dense_b.shape[2])
    expected = [int((dense_a[i][:, :width] & dense_b[j][:, :width]).sum()) for i, j in zip(masks_a, masks_b)]
    np.testing.assert_array_equal(
        run_overlap_counts(index_a, masks_a, index_b, masks_b), np.array(expected, dtype=np.int64)
    )


def _touching_runs(masks: np.ndarray, rng: np.random.Generator) -> list[dict]:
    """Uncompressed RLEs of `masks` with true runs cut in two by an empty false run (two runs that touch)."""
    rles = []
    for mask in masks:
        counts = rle.decompress(rle.encode(mask)["counts"]).tolist()
        cut = []
        for k, count in enumerate(counts):
            if k % 2 == 1 and count >= 2 and rng.random() < 0.7:
                part = int(rng.integers(1, count))
                cut += [part, 0, count - part]
            else:
                cut.append(count)
        rles.append({"size": list(mask.shape), "counts": cut})
    return rles


def test_counts_from_touching_runs_equal_counts_of_pixels():
    # A run's stop equal to the next run's start (uncompressed counts can hold an empty false run) counts alike.
    rng = np.random.default_rng(5)
    dense_a, dense_b = rng.random((6, 7, 5)) < 0.6, rng.random((4, 7, 5)) < 0.4
    runs_a, runs_b = rle.to_runs(_touching_runs(dense_a, rng)), rle.to_runs(rle.encode_batch(dense_b))
    assert (runs_a.starts[1:] == runs_a.stops[:-1]).any()  # some runs do touch
    masks_a, masks_b = np.repeat(np.arange(6), 4), np.tile(np.arange(4), 6)
    expected = [int((dense_a[i] & dense_b[j]).sum()) for i, j in zip(masks_a, masks_b)]
    np.testing.assert_array_equal(run_overlap_counts(runs_a, masks_a, runs_b, masks_b), expected)
    np.testing.assert_array_equal(run_overlap_counts(runs_b, masks_b, runs_a, masks_a), expected)


def test_many_pairs_in_parallel_count_as_one_at_a_time():
    # Every pair a chunk of its own on the pool, then the pairs' own chunks: each pair's count is its own.
    rng = np.random.default_rng(8)
    dense_a, dense_b = rng.random((30, 9, 7)) < 0.5, rng.random((20, 9, 7)) < 0.5
    runs_a, runs_b = rle.to_runs(rle.encode_batch(dense_a)), rle.to_runs(rle.encode_batch(dense_b))
    masks_a, masks_b = np.repeat(np.arange(30), 20), np.tile(np.arange(20), 30)
    expected = [int((dense_a[i] & dense_b[j]).sum()) for i, j in zip(masks_a, masks_b)]
    _core.split_every_loop_for_tests(True)
    try:
        np.testing.assert_array_equal(run_overlap_counts(runs_a, masks_a, runs_b, masks_b), expected)
    finally:
        _core.split_every_loop_for_tests(False)
    np.testing.assert_array_equal(run_overlap_counts(runs_a, masks_a, runs_b, masks_b), expected)


def test_masks_read_as_runs_are_measured_without_windows_or_pixels():
    # 2 masks of a 1000 x 1000 grid held as runs: IoU from the runs alone; nothing the size of the grid is built.
    square = np.zeros((1000, 1000), dtype=bool)
    square[100:300, 200:400] = True
    shifted = np.roll(square, 100, axis=0)
    masks = geoiou.Mask.from_rle(rle.encode_batch(np.stack([square, shifted])))
    assert geoiou.iou(masks[0], masks[1]) == 100 * 200 / (2 * 200 * 200 - 100 * 200)  # half of each is shared
    assert masks.area.tolist() == [40000.0, 40000.0]
    assert not {"dense", "_column_windows", "_row_windows"} & set(vars(masks._store))
