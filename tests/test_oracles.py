"""geoiou against independent oracles, on seeded random inputs.

* Vector pairs (Box, RotatedBox, Polygon with holes and MultiPolygons, every ordered combination)
  against shapely's exact overlay: ``area(intersection)``, ``area(union)``, IoU and the GIoU with
  the convex hull of the union as enclosure, to 1e-9 relative.
* Masks under the unit-square pixel model against the union of one ``shapely.box`` per true pixel
  (built here, not with ``Mask.to_shapely``), intersected with shapely: a vector region covering
  half a pixel counts half.
* ``pairwise_*`` against a Python loop of single calls, and elementwise calls against the pairwise
  diagonal, for every pair of kinds (Interval×Interval included) and every metric.
* Empty batches give correctly shaped empty results for every pair of kinds.

The oracle geometries come from `strategies.shapely_of`, which rebuilds each region from its
defining numbers (rotated-box corners from the documented rotation convention, masks from their
pixels) so that no oracle shares code with the kernel it checks.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import shapely

import geoiou
from strategies import (
    KIND_NAMES,
    PLANAR_KINDS,
    SOLID_KINDS,
    random_boxes,
    random_masks,
    random_multipolygons,
    random_polygons,
    random_polygons_with_holes,
    random_regions,
    random_rotated_boxes,
    rng,
    shapely_of,
    translate,
)

N = 30  # pairs per oracle comparison
RTOL = 1e-9


# --------------------------------------------------------------------------- oracle helpers
def _geoms(region: geoiou.Region) -> np.ndarray:
    """Object array of the oracle shapely geometry of every region of a batch of shape (N,)."""
    geoms = np.empty(len(region), dtype=object)
    geoms[:] = [shapely_of(region[i]) for i in range(len(region))]
    return geoms


def shapely_oracle(a: geoiou.Region, b: geoiou.Region) -> dict[str, np.ndarray]:
    """Elementwise intersection, union, IoU and hull GIoU of two batches, all computed by shapely.

    GIoU = I/U - (C - U)/C with C the area of the convex hull of ``a ∪ b`` (the GIoU paper's
    smallest convex enclosing shape); U = 0 does not occur (the generated regions are non-empty).
    """
    ga, gb = _geoms(a), _geoms(b)
    inter = shapely.area(shapely.intersection(ga, gb))
    union = shapely.area(shapely.union(ga, gb))
    hull = shapely.area(shapely.convex_hull(shapely.union(ga, gb)))
    return {"intersection": inter, "union": union, "iou": inter / union, "giou": inter / union - (hull - union) / hull}


def assert_matches_oracle(a: geoiou.Region, b: geoiou.Region, *, rtol: float = RTOL) -> None:
    """geoiou's elementwise measures of (a, b) equal the shapely oracle to `rtol` relative.

    Areas are compared relative to the larger region of each pair (so a tiny intersection of big
    regions is held to the precision of the big areas, not of itself); IoU and GIoU, which lie in
    [-1, 1], absolutely.
    """
    expected = shapely_oracle(a, b)
    scale = np.maximum(a.area, b.area)
    intersection = geoiou.intersection_area(a, b)
    error = np.abs(intersection - expected["intersection"])
    bad = np.flatnonzero(~(error <= rtol * scale))
    assert bad.size == 0, (
        f"intersection differs from shapely at {bad.tolist()}: "
        f"{intersection[bad].tolist()} != {expected['intersection'][bad].tolist()}"
    )
    np.testing.assert_allclose(geoiou.union_area(a, b), expected["union"], rtol=rtol, atol=0, err_msg="union")
    np.testing.assert_allclose(geoiou.iou(a, b), expected["iou"], rtol=0, atol=rtol, err_msg="iou")
    np.testing.assert_allclose(geoiou.giou(a, b, enclosure="hull"), expected["giou"], rtol=0, atol=rtol, err_msg="giou")


# --------------------------------------------------------------------------- vector pairs
VECTOR_FAMILIES = {
    "box": lambda gen: random_boxes(gen, N, span=8.0),
    "rotated_box": lambda gen: random_rotated_boxes(gen, N, span=6.0),
    "polygon": lambda gen: random_polygons(gen, N, span=6.0),
    "polygon_with_hole": lambda gen: random_polygons_with_holes(gen, N, span=4.0),
    "multipolygon": lambda gen: random_multipolygons(gen, N, span=5.0),
}


@pytest.mark.parametrize("family_a, family_b", list(itertools.product(VECTOR_FAMILIES, VECTOR_FAMILIES)))
def test_vector_pairs_match_shapely(family_a, family_b):
    """Every ordered pair of vector families matches shapely's overlay to 1e-9.

    The families are small and close together, so the pairs cover disjoint, overlapping, nested
    and hole-crossing configurations; a Box or RotatedBox against a Polygon goes through the
    promotion tower, a Box against a RotatedBox through the rotated-box clipping kernel.
    """
    seed = 1000 + 10 * list(VECTOR_FAMILIES).index(family_a) + list(VECTOR_FAMILIES).index(family_b)
    gen = rng(seed)
    a, b = VECTOR_FAMILIES[family_a](gen), VECTOR_FAMILIES[family_b](gen)
    expected = shapely_oracle(a, b)
    assert (expected["intersection"] > 0).sum() >= N // 4, "the seeded families should overlap often"
    assert_matches_oracle(a, b)


def test_rotated_box_hard_cases_match_shapely():
    """Where published rotated-IoU code fails: identical boxes, shared edges, nearly parallel edges,
    huge coordinates, tiny and degenerate-thin boxes, 45-degree touching corners.

    Each row is checked against shapely to 1e-9; identical boxes must also give IoU exactly 1.
    """
    rows_a, rows_b = [], []
    for angle in [0.0, 13.0, 45.0, 90.0, -170.0]:
        rows_a.append([3.0, 4.0, 6.0, 2.0, angle])
        rows_b.append([3.0, 4.0, 6.0, 2.0, angle])  # identical
        rows_a.append([3.0, 4.0, 6.0, 2.0, angle])
        rows_b.append([3.0, 4.0, 6.0, 2.0, angle + 180.0])  # same set
        rows_a.append([3.0, 4.0, 6.0, 2.0, angle])
        rows_b.append([3.0, 4.0, 2.0, 6.0, angle + 90.0])  # swapped
        rows_a.append([0.0, 0.0, 4.0, 4.0, angle])
        rows_b.append([0.0, 0.0, 4.0, 4.0, angle + 1e-7])  # near parallel
        rows_a.append([0.0, 0.0, 4.0, 4.0, angle])
        rows_b.append([1.0, 0.0, 4.0, 4.0, angle + 1e-9])
    for offset in [1e3, 1e6]:
        rows_a.append([offset, offset, 10.0, 5.0, 30.0])
        rows_b.append([offset + 1.0, offset - 2.0, 7.0, 6.0, 75.0])
    rows_a.append([0.0, 0.0, 2.0, 2.0, 0.0])
    rows_b.append([2.0, 0.0, 2.0, 2.0, 0.0])  # shared edge: 0
    rows_a.append([0.0, 0.0, 2.0, 2.0, 45.0])
    rows_b.append([2.0 * math.sqrt(2.0), 0.0, 2.0, 2.0, 45.0])  # corner
    rows_a.append([0.0, 0.0, 1e-4, 5.0, 20.0])
    rows_b.append([0.0, 0.0, 5.0, 1e-4, 20.0])  # thin cross
    a, b = geoiou.RotatedBox(rows_a), geoiou.RotatedBox(rows_b)
    assert_matches_oracle(a, b)
    assert geoiou.iou(a[0], b[0]) == 1.0


# --------------------------------------------------------------------------- masks
@pytest.mark.parametrize("origin", ["integer", "dyadic", "float"])
def test_mask_pairs_match_pixel_oracle(origin):
    """Mask×Mask on grids of different shapes and origins equals the union-of-pixel-squares oracle.

    Non-integer relative offsets make pixels overlap fractionally (area (1 - fx)(1 - fy) etc.);
    the oracle intersects the exact pixel unions in shapely, so it knows nothing of grids.
    """
    gen = rng({"integer": 1, "dyadic": 2, "float": 3}[origin])
    a = geoiou.Mask.stack(random_masks(gen, N, max_side=9, origin=origin, span=3))
    b = geoiou.Mask.stack(random_masks(gen, N, max_side=9, origin=origin, span=3))
    assert_matches_oracle(a, b)
    assert_matches_oracle(b, a)


def test_masks_on_one_grid_match_pixel_oracle():
    """Batches on one common grid (same shape and origin) take the packed-bit counting path; still exact.

    All pixel counts are integers, so intersection and union must equal the oracle exactly.
    """
    gen = rng(4)
    a = geoiou.Mask.stack([geoiou.Mask(m.data, origin=(1.5, -2.0)) for m in random_masks(gen, N, shape=(7, 11))])
    b = geoiou.Mask.stack([geoiou.Mask(m.data, origin=(1.5, -2.0)) for m in random_masks(gen, N, shape=(7, 11))])
    expected = shapely_oracle(a, b)
    np.testing.assert_array_equal(geoiou.intersection_area(a, b), expected["intersection"])
    np.testing.assert_array_equal(geoiou.union_area(a, b), expected["union"])
    assert_matches_oracle(a, b)


N_MASK = 20  # pairs per mask-against-vector comparison (each pixel oracle is a union of squares)
MASK_PARTNERS = {
    "box": lambda gen: random_boxes(gen, N_MASK, span=4.0, max_size=8.0),
    "rotated_box": lambda gen: random_rotated_boxes(gen, N_MASK, span=3.0, max_size=8.0),
    "polygon": lambda gen: random_polygons(gen, N_MASK, span=3.0, r_max=6.0),
    "polygon_with_hole": lambda gen: random_polygons_with_holes(gen, N_MASK, span=2.0),
    "multipolygon": lambda gen: random_multipolygons(gen, N_MASK, span=3.0),
}


@pytest.mark.parametrize("origin", ["integer", "float"])
@pytest.mark.parametrize("partner", list(MASK_PARTNERS))
def test_mask_against_vector_matches_pixel_oracle(partner, origin):
    """Mask against Box, RotatedBox, Polygon (holes, several parts), both orders, equals the exact pixel model.

    The oracle intersects the union of true pixel squares with the vector region in shapely: a
    region covering half of a true pixel counts half, so centre sampling would fail this test.
    """
    gen = rng(100 + 10 * list(MASK_PARTNERS).index(partner) + (origin == "float"))
    # Origins in [-3, 3] moved back by half the mask's size (whole pixels), so masks centre near 0
    # as the vector regions do.
    masks = geoiou.Mask.stack(
        [
            geoiou.Mask(m.data, origin=m.origin - np.array(m.data.shape[::-1]) // 2)
            for m in random_masks(gen, N_MASK, max_side=12, origin=origin, span=3)
        ]
    )
    vectors = MASK_PARTNERS[partner](gen)
    assert (shapely_oracle(masks, vectors)["intersection"] > 0).sum() >= N_MASK // 2, "should overlap often"
    assert_matches_oracle(masks, vectors)
    assert_matches_oracle(vectors, masks)


def test_half_covered_pixel_counts_half():
    """Golden case: the triangle (0,0), (1,0), (0,1) covers exactly half of pixel [0, 1)², so the
    intersection with a one-pixel mask is 0.5 and the IoU 0.5 / 1 (the triangle lies in the pixel).
    A centre-sampled rasterisation would give 1 (the centre (0.5, 0.5) is on the hypotenuse) or 0.
    """
    pixel = geoiou.Mask(np.ones((1, 1), dtype=bool))
    triangle = geoiou.Polygon([(0, 0), (1, 0), (0, 1)])
    assert geoiou.intersection_area(pixel, triangle) == 0.5
    assert geoiou.iou(pixel, triangle) == 0.5
    assert geoiou.iou(triangle, pixel) == 0.5


# --------------------------------------------------------------------------- pairwise and elementwise
METRICS = ["iou", "giou", "iof", "diou", "intersection_area"]
KIND_PAIRS = [*itertools.product(PLANAR_KINDS, PLANAR_KINDS), ("interval", "interval")]


def _empty_region(kind: str) -> geoiou.Region:
    """One region of measure 0 of `kind`, as a batch of shape (1,)."""
    return {
        "box": geoiou.Box([[1.0, 1.0, 1.0, 3.0]]),  # zero width
        "rotated_box": geoiou.RotatedBox([[0.5, 0.5, 0.0, 2.0, 30.0]]),  # a segment
        "polygon": geoiou.Polygon.from_shapely(np.array([shapely.Polygon()], dtype=object)),
        "mask": geoiou.Mask(np.zeros((1, 2, 3), dtype=bool)),
        "interval": geoiou.Interval([[3.0, 3.0]]),
    }[kind]


def _concat(kind: str, regions: geoiou.Region, extra: geoiou.Region) -> geoiou.Region:
    """The batch `regions` followed by the batch `extra`, both of `kind`."""
    if kind == "mask":
        return geoiou.Mask.stack([*regions, *extra])
    if kind == "polygon":
        return geoiou.Polygon.from_shapely(np.concatenate([regions.to_shapely(), extra.to_shapely()]))
    return type(regions)(np.concatenate([regions.to_array(), extra.to_array()]))


def _batches(kind_a: str, kind_b: str, seed: int, n: int, *, with_empty: bool) -> tuple[geoiou.Region, geoiou.Region]:
    """Batches of `n` random regions of each kind, plus (for one kind) a region of `a` repeated in
    `b` so that identical pairs occur, plus an empty region in each when `with_empty`."""
    gen = rng(seed)
    a, b = random_regions(kind_a, gen, n), random_regions(kind_b, gen, n - 1)
    if kind_a == kind_b:
        b = _concat(kind_b, b, a[:1])
    if with_empty:
        a, b = _concat(kind_a, a, _empty_region(kind_a)), _concat(kind_b, b, _empty_region(kind_b))
    return a, b


def _with_empty(kind_a: str, kind_b: str, metric: str) -> bool:
    # An empty polygon has no centroid, so its DIoU is NaN; that case has its own test below.
    return not (metric == "diou" and "polygon" in (kind_a, kind_b))


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("kind_a, kind_b", KIND_PAIRS)
def test_pairwise_equals_loop_of_single_calls(kind_a, kind_b, metric):
    """``pairwise_m(a, b)[i, j] == m(a[i], b[j])`` exactly (NaN where both are NaN), shape (N, M).

    The design has one code path per pair, a scalar call being a batch of one, so there is no
    rounding difference to allow. Same-kind batches share a region (an identical pair) and all
    include an empty region (zero union with another empty one gives NaN, the default
    zero_division).
    """
    seed = 7 * KIND_PAIRS.index((kind_a, kind_b)) + METRICS.index(metric)
    a, b = _batches(kind_a, kind_b, seed, 3, with_empty=_with_empty(kind_a, kind_b, metric))
    single, pairwise = getattr(geoiou, metric), getattr(geoiou, f"pairwise_{metric}")
    result = pairwise(a, b)
    assert isinstance(result, np.ndarray) and result.shape == (len(a), len(b)) and result.dtype == np.float64
    # `.item()`: the value of each single call (its type is `test_single_regions_give_python_floats`).
    loop = np.array([[np.asarray(single(a[i], b[j])).item() for j in range(len(b))] for i in range(len(a))])
    np.testing.assert_array_equal(result, loop)


@pytest.mark.parametrize("zero_division", [math.nan, 1.0])
@pytest.mark.parametrize("kind_a, kind_b", KIND_PAIRS)
def test_pairwise_of_spread_out_batches_equals_broadcasting(kind_a, kind_b, zero_division):
    """Batches spread far apart (only pairs (i, i) can meet): pairwise results equal the elementwise
    broadcast ``m(a[:, None], b[None, :])`` exactly, and the loop of single calls on a sample.

    With so few candidate pairs, ``pairwise_*`` may take a sparse path (a sweep over the bounds,
    measuring only overlapping pairs and writing the known value, 0 or `zero_division`, for the
    others); the broadcast call measures every pair, so the two paths must agree bit for bit. An
    empty region in each batch makes the empty-with-empty pair take `zero_division` (0/0).
    """
    n = 10
    gen = rng(900 + KIND_PAIRS.index((kind_a, kind_b)))
    a = _concat(kind_a, random_regions(kind_a, gen, n), _empty_region(kind_a))
    b = _concat(kind_b, random_regions(kind_b, gen, n), _empty_region(kind_b))
    # Region i of both batches moves to x = 100 i (their random spread is ~40 wide): only (i, i) meet.
    a, b = translate(a, 100.0 * np.arange(n + 1)), translate(b, 100.0 * np.arange(n + 1))
    for metric in METRICS:
        if metric == "diou" and kind_a == "polygon" or metric == "diou" and kind_b == "polygon":
            continue  # an empty polygon has no centroid (see test_diou_of_an_empty_polygon_is_nan)
        single, pairwise = getattr(geoiou, metric), getattr(geoiou, f"pairwise_{metric}")
        options = {} if metric == "intersection_area" else {"zero_division": zero_division}
        matrix = pairwise(a, b, **options)
        np.testing.assert_array_equal(matrix, single(a[:, None], b[None, :], **options), err_msg=metric)
        for i, j in [(0, 0), (1, 1), (0, 1), (n, n), (n, 0), (0, n), (3, 7)]:
            np.testing.assert_array_equal(matrix[i, j], single(a[i], b[j], **options), err_msg=f"{metric}[{i}, {j}]")
    assert (np.diagonal(geoiou.pairwise_intersection_area(a, b))[:n] > 0).sum() >= 2  # some pairs do meet


@pytest.mark.parametrize("kind_a, kind_b", KIND_PAIRS)
def test_single_regions_give_python_floats(kind_a, kind_b):
    """Two single regions (shape ()) give a Python float, as NumPy reductions and the docstring
    examples do (``iou(Box, Box) -> 0.14285714285714285``), for every metric and union_area."""
    a, b = _batches(kind_a, kind_b, 77, 2, with_empty=False)
    for metric in [*METRICS, "union_area"]:
        result = getattr(geoiou, metric)(a[0], b[0])
        assert type(result) is float, f"{metric} returned {type(result).__name__} {result!r}"


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("kind_a, kind_b", KIND_PAIRS)
def test_elementwise_equals_pairwise_diagonal(kind_a, kind_b, metric):
    """``m(a, b)`` for equal-length batches is the diagonal of ``pairwise_m(a, b)``, exactly.

    Also checks broadcasting: ``m(a[:, None], b[None, :])`` is the whole pairwise matrix.
    """
    seed = 500 + 7 * KIND_PAIRS.index((kind_a, kind_b)) + METRICS.index(metric)
    a, b = _batches(kind_a, kind_b, seed, 5, with_empty=_with_empty(kind_a, kind_b, metric))
    if len(b) < len(a):
        b = _concat(kind_b, b, random_regions(kind_b, rng(seed), 1))
    single, pairwise = getattr(geoiou, metric), getattr(geoiou, f"pairwise_{metric}")
    matrix = pairwise(a, b)
    elementwise = single(a, b)
    assert elementwise.shape == (len(a),)
    np.testing.assert_array_equal(elementwise, np.diagonal(matrix))
    np.testing.assert_array_equal(single(a[:, None], b[None, :]), matrix)


def test_diou_of_an_empty_polygon_is_nan():
    """An empty polygon has no centroid: Region.centroid documents NaN, diou documents a NaN DIoU."""
    empty = geoiou.Polygon.from_shapely(shapely.Polygon())
    assert np.isnan(empty.centroid).all()
    assert math.isnan(geoiou.diou(empty, geoiou.Box([0, 0, 1, 1])))
    polygons = geoiou.Polygon.from_shapely(np.array([shapely.box(0, 0, 1, 1), shapely.Polygon()], dtype=object))
    result = geoiou.pairwise_diou(polygons, geoiou.Box([[0, 0, 1, 1]]))
    assert result[0, 0] == 1.0 and math.isnan(result[1, 0])


# --------------------------------------------------------------------------- empty batches
PAIRWISE_EMPTY_CASES = {
    "(0, M)": (slice(0, 0), slice(None)),
    "(N, 0)": (slice(None), slice(0, 0)),
    "(0, 0)": (slice(0, 0), slice(0, 0)),
}


def _empty_case_params(cases):
    return [
        pytest.param(kind_a, kind_b, case, id=f"{kind_a}-{kind_b}-{case}")
        for (kind_a, kind_b), case in itertools.product(KIND_PAIRS, cases)
    ]


@pytest.mark.parametrize("kind_a, kind_b, case", _empty_case_params(PAIRWISE_EMPTY_CASES))
def test_pairwise_of_empty_batches_is_empty(kind_a, kind_b, case):
    """``pairwise_m(a, b)`` with an empty batch has shape (0, M), (N, 0) or (0, 0), for every metric.

    Nothing to compute is not an error: the shape is ``a.shape + b.shape`` as documented.
    """
    a, b = random_regions(kind_a, rng(1), 3), random_regions(kind_b, rng(2), 2)
    index_a, index_b = PAIRWISE_EMPTY_CASES[case]
    x, y = a[index_a], b[index_b]
    for metric in METRICS:
        result = getattr(geoiou, f"pairwise_{metric}")(x, y)
        assert isinstance(result, np.ndarray) and result.dtype == np.float64, metric
        assert result.shape == x.shape + y.shape, metric


@pytest.mark.parametrize("kind_a, kind_b, case", _empty_case_params(["empty-empty", "one-empty", "empty-one"]))
def test_elementwise_of_empty_batches_is_empty(kind_a, kind_b, case):
    """``m(a, b)`` with an empty batch broadcasts to shape (0,): two empty batches, or one region
    (shape ()) against an empty batch, for every metric and for union_area."""
    a, b = random_regions(kind_a, rng(1), 3), random_regions(kind_b, rng(2), 2)
    x, y = {"empty-empty": (a[:0], b[:0]), "one-empty": (a[0], b[:0]), "empty-one": (a[:0], b[0])}[case]
    for metric in [*METRICS, "union_area"]:
        result = getattr(geoiou, metric)(x, y)
        assert isinstance(result, np.ndarray) and result.dtype == np.float64, metric
        assert result.shape == (0,), metric


@pytest.mark.parametrize("kind", PLANAR_KINDS)
def test_interval_with_planar_kind_is_refused(kind):
    """An Interval pairs only with an Interval: a planar partner raises UnsupportedPairError (a
    TypeError subclass), in either order, for elementwise and pairwise calls."""
    intervals = random_regions("interval", rng(0), 2)
    planar = random_regions(kind, rng(1), 2)
    for x, y in [(intervals, planar), (planar, intervals)]:
        with pytest.raises(geoiou.UnsupportedPairError):
            geoiou.pairwise_iou(x, y)
        with pytest.raises(TypeError):
            geoiou.iou(x, y)
        with pytest.raises(TypeError):
            geoiou.giou(x[0], y[0])


@pytest.mark.parametrize("kind", PLANAR_KINDS)
def test_interval_with_planar_kind_is_refused_for_an_empty_batch(kind):
    """Whether a pair of kinds is supported does not depend on the data: an empty batch of an
    unsupported pair must raise too, or a type error would hide until the first non-empty batch."""
    intervals = random_regions("interval", rng(0), 2)
    planar = random_regions(kind, rng(1), 2)
    for x, y in [(intervals[:0], planar), (planar[:0], intervals), (planar[:0], intervals[:0])]:
        with pytest.raises(geoiou.UnsupportedPairError):
            geoiou.pairwise_iou(x, y)


def test_kind_names_cover_every_kind():
    """The strategies module knows every region kind the package exports (guards future kinds): the planar kinds
    and intervals (`KIND_NAMES`, tested against each other here) and the 3-D kinds (`SOLID_KINDS`, tested in
    test_properties_3d.py and tests/kernels/test_boxes3d_kernels.py)."""
    exported = {
        name
        for name in geoiou.__all__
        if isinstance(getattr(geoiou, name), type)
        and issubclass(getattr(geoiou, name), geoiou.Region)
        and getattr(geoiou, name) is not geoiou.Region
    }
    assert len(exported) == len(KIND_NAMES) + len(SOLID_KINDS)


def test_polygon_overlay_near_the_smallest_normal_float():
    """GEOS's overlay gave 1.019 instead of 1.071 (or a TopologyException) for a box starting at
    x = 2.2e-308 against a polygon; the kernel's local frame makes it agree with the box at x = 0."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        angles = np.sort(rng.uniform(0, 2 * np.pi, 7))
        radii = rng.uniform(0.3, 1.2, 7)
        polygon = shapely.Polygon(np.c_[0.3 + radii * np.cos(angles), 0.9 + radii * np.sin(angles)])
        if not polygon.is_valid:
            continue
        tiny = geoiou.intersection_area(
            geoiou.Box([2.2250738585072014e-308, 0, 1, 1.85894]), geoiou.Polygon.from_shapely(polygon)
        )
        assert tiny == pytest.approx(shapely.intersection(shapely.box(0, 0, 1, 1.85894), polygon).area, rel=0, abs=1e-9)
