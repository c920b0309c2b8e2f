"""Guards for what makes the rotated-box kernels fast, checked by counting, never by timing.

- Pairs whose bounds are apart are never computed, and the survivors of sparse blocks are
  computed together in full chunks (not a few dozen at a time, each paying a chunk's overhead).
- Work arrays are allocated once and reused from chunk to chunk and from call to call
  (fresh arrays cost page faults on every chunk); huge chunk sizes do not grow the kept ones.
- The pairwise layout ``(N, 1) × (1, M)`` is gathered by broadcasting one value per line or
  column, not pair by pair.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import geoiou.kernels.rotated as rotated
from geoiou.kernels.rotated import rotated_box_hull_area, rotated_box_intersection_area


def scattered_boxes(rng: np.random.Generator, count: int, span: float = 1000.0) -> np.ndarray:
    return np.column_stack([rng.uniform(0, span, (count, 2)), rng.uniform(5, 30, (count, 2)),
                            rng.uniform(-90, 90, count)])


def bounds_overlap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    corners_a, corners_b = rotated.rotated_box_corners(a), rotated.rotated_box_corners(b)
    low = np.maximum(corners_a.min(axis=-2)[:, None], corners_b.min(axis=-2)[None])
    high = np.minimum(corners_a.max(axis=-2)[:, None], corners_b.max(axis=-2)[None])
    return (low < high).all(axis=-1)


def recording(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """Replace a pair function by a wrapper that records how many pairs each call gets."""
    sizes: list[int] = []
    original = getattr(rotated, name)

    def wrapper(frame, scratch):
        sizes.append(frame.x.size)
        return original(frame, scratch)

    monkeypatch.setattr(rotated, name, wrapper)
    return sizes


def test_sparse_batches_compute_only_overlapping_pairs_in_full_chunks(monkeypatch):
    rng = np.random.default_rng(0)
    a, b = scattered_boxes(rng, 400), scattered_boxes(rng, 300)
    sizes = recording(monkeypatch, "_intersection_of_pairs")
    chunk_size = 256
    rotated_box_intersection_area(a[:, None], b[None], chunk_size=chunk_size)
    assert sum(sizes) == np.count_nonzero(bounds_overlap(a, b))
    assert len(sizes) == math.ceil(sum(sizes) / chunk_size)  # batched: full chunks but the last
    assert all(size == chunk_size for size in sizes[:-1])


def test_dense_batches_are_computed_chunk_by_chunk_without_pruning_work(monkeypatch):
    rng = np.random.default_rng(1)
    a, b = scattered_boxes(rng, 40, span=20.0), scattered_boxes(rng, 50, span=20.0)
    sizes = recording(monkeypatch, "_intersection_of_pairs")
    rotated_box_intersection_area(a[:, None], b[None], chunk_size=500)
    assert sum(sizes) == a.shape[0] * b.shape[0] and max(sizes) <= 500
    hull_sizes = recording(monkeypatch, "_hull_of_pairs")
    rotated_box_hull_area(a[:, None], b[None], chunk_size=500)
    assert sum(hull_sizes) == a.shape[0] * b.shape[0]  # every pair has a hull: nothing pruned


def kept_buffers() -> list[np.ndarray]:
    scratch = rotated._thread_scratch()
    return [buffer for pool in scratch._pools.values() for buffer in pool.buffers]


def test_work_arrays_are_reused_across_chunks_and_calls():
    rng = np.random.default_rng(2)
    a, b = scattered_boxes(rng, 60, span=50.0), scattered_boxes(rng, 70, span=50.0)
    for kernel in (rotated_box_intersection_area, rotated_box_hull_area):
        kernel(a[:, None], b[None], chunk_size=512)  # several chunks, a smaller last one
        before = [id(buffer) for buffer in kept_buffers()]
        kernel(a[:, None], b[None], chunk_size=512)
        kernel(a[:20, None], b[None], chunk_size=512)  # smaller batches reuse the same buffers
        assert [id(buffer) for buffer in kept_buffers()] == before


def test_chunks_larger_than_the_default_do_not_grow_the_kept_work_arrays():
    rng = np.random.default_rng(3)
    a, b = scattered_boxes(rng, 200, span=50.0), scattered_boxes(rng, 200, span=50.0)
    rotated_box_intersection_area(a[:10, None], b[None])
    kept = sum(buffer.nbytes for buffer in kept_buffers())
    rotated_box_intersection_area(a[:, None], b[None], chunk_size=10**6)
    assert sum(buffer.nbytes for buffer in kept_buffers()) == kept


def test_pairwise_layout_gathers_one_value_per_line_or_column():
    chunks = list(rotated._pair_chunks((30, 1), (1, 40), chunk_size=200))
    field = np.arange(40.0)
    for _, index_a, index_b in chunks:
        lines, columns = index_a.grid
        assert index_a.broadcast(np.arange(30.0)).shape == (lines, 1)  # one box per line
        assert index_b.broadcast(field).shape == (1, columns)  # the same run of boxes on each line
        assert np.shares_memory(index_b.broadcast(field), field)  # a view, not a copy
    assert sum(index_a.size for _, index_a, _ in chunks) == 30 * 40
