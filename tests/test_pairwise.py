"""Pairwise matrices: chunking, output dtype, empty batches, and agreement with the elementwise form."""

import numpy as np
import pytest

import geoiou
from geoiou import metrics


def random_boxes(rng, n, extent=100.0):
    xy = rng.uniform(0, extent, (n, 2))
    return np.hstack([xy, xy + rng.uniform(1, 30, (n, 2))])


@pytest.mark.parametrize("metric", ["pairwise_iou", "pairwise_giou", "pairwise_diou", "pairwise_ciou", "pairwise_iof"])
def test_chunked_and_unchunked_paths_agree_bit_for_bit(metric, monkeypatch):
    rng = np.random.default_rng(11)
    a, b = geoiou.Box(random_boxes(rng, 97)), geoiou.Box(random_boxes(rng, 53))
    whole = getattr(geoiou, metric)(a, b)
    monkeypatch.setattr(metrics, "PAIRWISE_CHUNK", 7)  # many small row blocks, one row at a time
    np.testing.assert_array_equal(getattr(geoiou, metric)(a, b), whole)
    # The elementwise form over broadcast shapes is the same computation without blocks.
    elementwise = getattr(geoiou, metric.removeprefix("pairwise_"))(a[:, None], b[None, :])
    np.testing.assert_array_equal(elementwise, whole)


def test_chunking_for_rotated_boxes_and_masks_is_bit_identical(monkeypatch):
    rng = np.random.default_rng(5)
    rotated = geoiou.RotatedBox(
        np.column_stack([rng.uniform(0, 50, (40, 2)), rng.uniform(2, 20, (40, 2)), rng.uniform(-90, 90, 40)])
    )
    masks = geoiou.Mask(rng.random((9, 30, 30)) > 0.6)
    whole = geoiou.pairwise_iou(rotated, masks), geoiou.pairwise_giou(rotated, rotated)
    monkeypatch.setattr(metrics, "PAIRWISE_CHUNK", 5)
    np.testing.assert_array_equal(geoiou.pairwise_iou(rotated, masks), whole[0])
    np.testing.assert_array_equal(geoiou.pairwise_giou(rotated, rotated), whole[1])


def test_float32_output_is_the_rounded_float64_result():
    rng = np.random.default_rng(2)
    a, b = geoiou.Box(random_boxes(rng, 40)), geoiou.Box(random_boxes(rng, 30))
    single = geoiou.pairwise_iou(a, b, dtype=np.float32)
    assert single.dtype == np.float32
    np.testing.assert_array_equal(single, geoiou.pairwise_iou(a, b).astype(np.float32))


def test_non_float_dtype_is_refused():
    box = geoiou.Box([[0, 0, 1, 1]])
    with pytest.raises(geoiou.InvalidArgumentError, match=r"'dtype' must be a floating-point type .* \(got int64\)"):
        geoiou.pairwise_iou(box, box, dtype=np.int64)
    # Not a dtype at all: NumPy's TypeError becomes a refusal naming the parameter.
    with pytest.raises(geoiou.InvalidArgumentError, match=r"'dtype' must be a floating-point type .* \(got 'banana'\)"):
        geoiou.pairwise_iou(box, box, dtype="banana")


@pytest.mark.parametrize(
    "region",
    [
        geoiou.Box(np.zeros((0, 4))),
        geoiou.RotatedBox(np.zeros((0, 5))),
        geoiou.Polygon.from_rings([]),
        geoiou.Mask(np.zeros((0, 3, 3), dtype=bool)),
        geoiou.Interval(np.zeros((0, 2))),
    ],
)
def test_empty_batches_give_empty_results(region):
    other = region if isinstance(region, geoiou.Interval) else geoiou.Box([[0, 0, 1, 1], [1, 1, 2, 2]])
    assert geoiou.pairwise_iou(region, other).shape == (0, other.size)
    assert geoiou.pairwise_iou(other, region).shape == (other.size, 0)
    assert geoiou.pairwise_giou(region, region).shape == (0, 0)
    assert geoiou.iou(region, region).shape == (0,)


def test_pairwise_memory_stays_bounded():
    import tracemalloc

    rng = np.random.default_rng(0)
    a, b = geoiou.Box(random_boxes(rng, 1500)), geoiou.Box(random_boxes(rng, 1500))
    tracemalloc.start()
    result = geoiou.pairwise_giou(a, b)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # The output is 18 MB; temporaries are a few blocks of PAIRWISE_CHUNK elements, not copies of it.
    assert peak < result.nbytes + 16 * metrics.PAIRWISE_CHUNK * 8 + (1 << 20)


@pytest.mark.parametrize("kind", ["box", "rotated", "polygon", "interval"])
@pytest.mark.parametrize("metric", ["pairwise_iou", "pairwise_iof", "pairwise_intersection_area"])
def test_candidate_pairs_agree_with_every_pair_bit_for_bit(kind, metric):
    # A pairwise matrix measures only the pairs whose bounds overlap; the elementwise form over the
    # broadcast shape hands every pair to the kernel. Both must give the same bits, 0/0 included.
    rng = np.random.default_rng(21)
    coords = random_boxes(rng, 150, extent=400.0)
    coords[::17, 2:] = coords[::17, :2]  # some empty boxes: 0/0 pairs must follow zero_division on both paths
    regions = {
        "box": lambda c: geoiou.Box(c),
        "rotated": lambda c: geoiou.RotatedBox(
            np.column_stack([(c[:, :2] + c[:, 2:]) / 2, c[:, 2:] - c[:, :2], c[:, 0] % 90])
        ),
        "polygon": lambda c: geoiou.Box(c[(c[:, 2] > c[:, 0])]).to_polygon(),
        "interval": lambda c: geoiou.Interval(c[:, [0, 2]]),
    }[kind]
    a, b = regions(coords[:80]), regions(coords[80:])
    options = {} if metric == "pairwise_intersection_area" else {"zero_division": 0.25}
    sparse = getattr(geoiou, metric)(a, b, **options)
    dense = getattr(geoiou, metric.removeprefix("pairwise_"))(a[:, None], b[None, :], **options)
    np.testing.assert_array_equal(sparse, dense)
    assert np.count_nonzero(dense) > 0
