"""geoiou.pycocotools.mask against pycocotools.mask: the same RLE strings byte for byte, the same arrays and dtypes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from geoiou.errors import InvalidTypeError, MismatchError
from geoiou.pycocotools import mask
from tests.strategies import ci_settings

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")
reference = pytest.importorskip("pycocotools.mask")


def same(theirs: Any, ours: Any) -> None:
    if isinstance(theirs, np.ndarray):
        np.testing.assert_array_equal(theirs, ours, strict=True)
        assert theirs.flags.f_contiguous == ours.flags.f_contiguous
    else:
        assert type(theirs) is type(ours) and theirs == ours


def random_masks(rng: np.random.Generator) -> np.ndarray:
    h, w, n = (int(v) for v in rng.integers(1, 14, 3))
    return np.asfortranarray((rng.random((h, w, n)) < rng.random()).astype(np.uint8))


@pytest.mark.parametrize("seed", range(40))
def test_encode_decode_area_bbox_merge_iou(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pixels = random_masks(rng)
    rles = reference.encode(pixels)
    same(rles, mask.encode(pixels))
    same(reference.encode(np.asfortranarray(pixels[:, :, 0])), mask.encode(pixels[:, :, 0]))
    for value in (rles, rles[0]):
        same(reference.decode(value), mask.decode(value))
        same(reference.area(value), mask.area(value))
        same(reference.toBbox(value), mask.toBbox(value))
    for intersect in (0, 1):
        same(reference.merge(rles, intersect), mask.merge(rles, intersect))
    same(reference.merge(rles[:1]), mask.merge(rles[:1]))
    crowd = [int(v) for v in rng.integers(0, 2, len(rles))]
    same(reference.iou(rles, rles[::-1], crowd), mask.iou(rles, rles[::-1], crowd))
    boxes = np.round(rng.uniform(0, 12, (len(rles), 4)), 2)
    same(reference.iou(boxes, boxes[::-1], crowd), mask.iou(boxes, boxes[::-1], crowd))
    same(reference.iou(boxes.tolist(), boxes.tolist(), crowd), mask.iou(boxes.tolist(), boxes.tolist(), crowd))


@pytest.mark.parametrize("seed", range(20))
def test_from_python_objects(seed: int) -> None:
    """Polygons (also reaching outside the image), boxes and uncompressed RLE, as pycocotools rasterizes them."""
    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in rng.integers(2, 20, 2))
    polygons = [
        [float(v) for v in np.round(rng.uniform(-3, max(h, w) + 3, 2 * rng.integers(3, 9)), 1)] for _ in range(3)
    ]
    same(reference.frPyObjects(polygons, h, w), mask.frPyObjects(polygons, h, w))
    boxes = np.round(rng.uniform(0, 10, (3, 4)), 1)
    same(reference.frPyObjects(boxes, h, w), mask.frPyObjects(boxes, h, w))
    counts = [int(v) for v in rng.integers(0, 4, 6)]
    counts.append(h * w - sum(counts))
    if counts[-1] >= 0:
        uncompressed = {"size": [h, w], "counts": counts}
        same(reference.frPyObjects(uncompressed, h, w), mask.frPyObjects(uncompressed, h, w))
        same(reference.frPyObjects([uncompressed], h, w), mask.frPyObjects([uncompressed], h, w))
        compressed = reference.frPyObjects(uncompressed, h, w)
        same(reference.toBbox(compressed), mask.toBbox(compressed))  # empty runs included


@ci_settings(60)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=8), st.integers(1, 5), st.integers(1, 5))
def test_bounding_boxes_of_any_counts(counts: list[int], height: int, width: int) -> None:
    """toBbox of counts with empty runs and of masks with no pixel (pycocotools' unsigned sizes) as pycocotools."""
    rest = height * width - sum(counts)
    if rest < 0:
        return
    rle = reference.frPyObjects({"size": [height, width], "counts": [*counts, rest]}, height, width)
    same(reference.toBbox(rle), mask.toBbox(rle))


def test_masks_of_different_sizes_and_empty_inputs() -> None:
    a = reference.encode(np.asfortranarray(np.ones((3, 4), np.uint8)))
    b = reference.encode(np.asfortranarray(np.ones((4, 3), np.uint8)))
    same(reference.iou([a], [b], [0]), mask.iou([a], [b], [0]))  # -1: not compared
    same(reference.merge([a, b]), mask.merge([a, b]))
    same(reference.merge([]), mask.merge([]))
    assert mask.iou([], [a], [0]) == reference.iou([], [a], [0]) == []


def test_refusals_name_the_input() -> None:
    rle = mask.encode(np.ones((2, 2), np.uint8))
    with pytest.raises(InvalidTypeError, match="'dt' and 'gt' must be of one type"):
        mask.iou([rle], [[0, 0, 1, 1]], [0])
    with pytest.raises(MismatchError, match="'pyiscrowd' must have one flag per gt"):
        mask.iou([rle], [rle], [0, 0])
    with pytest.raises(AssertionError):  # as pycocotools' own assertion
        mask.iou([rle], [rle], [])
    with pytest.raises(ValueError, match="'bimask'"):
        mask.encode(np.zeros(4, np.uint8))


def test_more_lenient_than_pycocotools() -> None:
    """A C-ordered or boolean mask and uncompressed counts are read (pycocotools refuses them)."""
    pixels = np.eye(3, dtype=bool)
    assert mask.encode(pixels) == reference.encode(np.asfortranarray(pixels.astype(np.uint8)))
    assert mask.area({"size": [2, 2], "counts": [1, 2, 1]}) == 2
