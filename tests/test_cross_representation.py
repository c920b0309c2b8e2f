"""One axis-aligned box, many representations: every pair of them must give the same numbers.

An integer box ``[x1, x2) × [y1, y2)`` is exactly

* a ``Box``;
* a ``RotatedBox`` at angle 0, at 180 (the same corner set), and at ±90 with ``w`` and ``h``
  swapped (a quarter turn of the swapped box gives the same rectangle);
* a ``Polygon`` through its four corners (either orientation, any starting vertex);
* a ``Mask`` whose true pixels are exactly the box: a tight ``h × w`` mask at origin ``(x1, y1)``,
  or the same pixels on a larger canvas with another (non-zero) origin.

So the intersection area, the IoU and the GIoU with the convex-hull enclosure (the one enclosure
every pair of kinds supports, so all kinds must agree) must be identical for every ordered pair of
representations. With integer (or dyadic) coordinates every measure involved (intersection, union,
hull area) is an exact small integer or half-integer, so the results must be *exactly* equal: the
intersection and union to the integer computed here, the IoU to the correctly rounded quotient of
two exact integers, and the GIoU bit for bit across representations. With non-dyadic float offsets
the arithmetic is no longer exact and 1e-12 is allowed.
"""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction

import numpy as np
import pytest
import shapely

import geoiou
from strategies import int_box_coords, rng

N_PAIRS = 40  # random box pairs per representation pair ("a few dozen")


# --------------------------------------------------------------------------- representations
def _corners_ring(c: np.ndarray, *, clockwise: bool, start: int) -> np.ndarray:
    x1, y1, x2, y2 = c
    ring = np.array([(x1, y1), (x2, y1), (x2, y2), (x1, y2)])
    if clockwise:
        ring = ring[::-1]
    return np.roll(ring, start, axis=0)


def _mask_batch(coords: np.ndarray, *, canvas: bool, origin_shift: np.ndarray) -> geoiou.Mask:
    """The boxes as masks. `coords` are integer boxes; `origin_shift` moves every origin (the scene).

    ``canvas=False``: a tight all-true ``h × w`` mask at origin ``(x1, y1)`` (batch padded by
    ``Mask.stack``, which keeps each region). ``canvas=True``: every box drawn on one common
    ``40 × 44`` canvas with origin ``(-3, -5)`` (different shape and a non-zero origin).
    """
    masks = []
    for x1, y1, x2, y2 in coords.astype(int):
        if canvas:
            data = np.zeros((40, 44), dtype=bool)
            data[y1 + 5 : y2 + 5, x1 + 3 : x2 + 3] = True
            masks.append(geoiou.Mask(data, origin=np.array([-3.0, -5.0]) + origin_shift))
        else:
            masks.append(geoiou.Mask(np.ones((y2 - y1, x2 - x1), dtype=bool), origin=np.array([x1, y1]) + origin_shift))
    return geoiou.Mask.stack(masks)


def representations(coords: np.ndarray, shift=(0.0, 0.0)) -> dict[str, geoiou.Region]:
    """The batch of integer boxes `coords` (N, 4), moved by `shift`, in every representation."""
    shift = np.asarray(shift, dtype=np.float64)
    moved = coords + np.concatenate([shift, shift])
    x1, y1, x2, y2 = moved.T
    w, h = coords[:, 2] - coords[:, 0], coords[:, 3] - coords[:, 1]  # sizes from the integers: exact
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2

    def rotated(width, height, angle):
        return geoiou.RotatedBox(np.stack([cx, cy, width, height, np.full_like(cx, angle)], axis=-1))

    return {
        "box": geoiou.Box(moved),
        "rotated_0": rotated(w, h, 0.0),
        "rotated_180": rotated(w, h, 180.0),
        "rotated_90_swapped": rotated(h, w, 90.0),
        "rotated_-90_swapped": rotated(h, w, -90.0),
        "polygon_ccw": geoiou.Polygon.from_rings([_corners_ring(c, clockwise=False, start=0) for c in moved]),
        "polygon_cw": geoiou.Polygon.from_rings(
            [_corners_ring(c, clockwise=True, start=i % 4) for i, c in enumerate(moved)]
        ),
        "mask_tight": _mask_batch(coords, canvas=False, origin_shift=shift),
        "mask_canvas": _mask_batch(coords, canvas=True, origin_shift=shift),
    }


REPRESENTATIONS = list(representations(int_box_coords(rng(0), 1)))
REPRESENTATION_PAIRS = list(itertools.product(REPRESENTATIONS, REPRESENTATIONS))


@functools.lru_cache(maxsize=None)
def _scene(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two batches of integer boxes inside the canvas of `_mask_batch` (x in [0, 40], y in [0, 34]).

    The small range makes overlaps, containment, shared edges and disjoint pairs all common; the
    first pairs are fixed special cases: identical, nested, sharing an edge, disjoint, a cross.
    """
    gen = rng(seed)
    a = int_box_coords(gen, N_PAIRS, low=0, high=22, max_size=12)
    b = int_box_coords(gen, N_PAIRS, low=0, high=22, max_size=12)
    special_a = [[2, 2, 8, 6], [0, 0, 10, 10], [0, 0, 4, 4], [0, 0, 2, 2], [4, 0, 6, 10]]
    special_b = [[2, 2, 8, 6], [3, 2, 5, 9], [4, 1, 7, 3], [5, 5, 6, 9], [0, 4, 10, 6]]
    a[: len(special_a)], b[: len(special_b)] = special_a, special_b
    a.flags.writeable = b.flags.writeable = False  # cached: shared by every test
    return a, b


@functools.lru_cache(maxsize=None)
def _cached(seed: int, shift: tuple[float, float] = (0.0, 0.0)):
    """Representations of both batches of scene `seed` moved by `shift`, and the exact expectations."""
    a, b = _scene(seed)
    return representations(a, shift), representations(b, shift), exact_metrics(a, b)


# --------------------------------------------------------------------------- exact references
def exact_measures(a: np.ndarray, b: np.ndarray) -> dict[str, list]:
    """Intersection, union and hull area of integer boxes, computed exactly (Python integers, Fractions).

    The hull of two boxes is the convex hull of their eight corners; its area is computed with the
    shoelace formula on Fractions over shapely's hull vertices (integer points, so exact).
    """
    inter, union, hull = [], [], []
    for p, q in zip(a.astype(int).tolist(), b.astype(int).tolist()):
        w = max(0, min(p[2], q[2]) - max(p[0], q[0]))
        h = max(0, min(p[3], q[3]) - max(p[1], q[1]))
        i = w * h
        u = (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - i
        points = shapely.MultiPoint(
            [
                (p[0], p[1]),
                (p[2], p[1]),
                (p[2], p[3]),
                (p[0], p[3]),
                (q[0], q[1]),
                (q[2], q[1]),
                (q[2], q[3]),
                (q[0], q[3]),
            ]
        )
        ring = [(Fraction(x), Fraction(y)) for x, y in shapely.convex_hull(points).exterior.coords]
        c = abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(ring, ring[1:]))) / 2
        inter.append(i), union.append(u), hull.append(c)
    return {"intersection": inter, "union": union, "hull": hull}


def exact_metrics(a: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
    """Expected float results: the exact measures, IoU correctly rounded, GIoU from exact fractions."""
    m = exact_measures(a, b)
    iou = [i / u for i, u in zip(m["intersection"], m["union"])]  # int / int: correctly rounded
    giou = [float(Fraction(i, u) - (c - u) / c) for i, u, c in zip(m["intersection"], m["union"], m["hull"])]
    return {
        "intersection": np.array(m["intersection"], dtype=float),
        "union": np.array(m["union"], dtype=float),
        "iou": np.array(iou),
        "giou": np.array(giou),
        "hull": np.array([float(c) for c in m["hull"]]),
    }


#: Pairs of representations measured by the polygon kernel (a polygon with another vector kind).
POLYGON_KERNEL = {"polygon_ccw", "polygon_cw"}
VECTOR_REPRESENTATIONS = {
    "box",
    "rotated_0",
    "rotated_180",
    "rotated_90_swapped",
    "rotated_-90_swapped",
    *POLYGON_KERNEL,
}


def assert_exact(actual, expected, kind_a: str, kind_b: str) -> None:
    """Bit-exact equality, except within 8 ulps for pairs the polygon kernel measures.

    The polygon kernel sums the areas shared by edge triangles around a point; the rays through
    vertices meet the other polygon's edges at points that are not dyadic even for integer
    boxes, so a partial overlap comes out within rounding (a few ulps) of the integer, not
    always on it. Nested, identical and touching pairs are exact (the kernel snaps to the ends
    of the range [0, min(|a|, |b|)] when they are within its rounding bound).
    """
    if {kind_a, kind_b} & POLYGON_KERNEL and {kind_a, kind_b} <= VECTOR_REPRESENTATIONS:
        np.testing.assert_allclose(actual, expected, rtol=8 * np.finfo(float).eps, atol=0)
    else:
        np.testing.assert_array_equal(actual, expected)


# --------------------------------------------------------------------------- tests
def test_representations_are_the_same_region():
    """Sanity of the fixtures: every representation has the box's exact area and bounds.

    Otherwise a disagreement below could come from the fixture rather than from the kernels.
    """
    a, _ = _scene(1)
    area = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    for name, region in representations(a).items():
        np.testing.assert_array_equal(region.area, area, err_msg=name)
        np.testing.assert_array_equal(region.bounds, a, err_msg=name)


@pytest.mark.parametrize("kind_a, kind_b", REPRESENTATION_PAIRS)
def test_integer_boxes_agree_exactly_across_representations(kind_a, kind_b):
    """Every ordered pair of representations gives the exact intersection, union, IoU and hull GIoU.

    Integer boxes: the intersection and union are integers and the hull area a half-integer, all
    exactly representable and exactly computable by every kernel (axis-aligned clipping meets
    grid lines at integer points, rotations by multiples of 90 degrees are exact, pixels are
    counted). The IoU is then the correctly rounded ``int / int`` and the GIoU the same float
    expression of the same exact measures, so equality is exact, not approximate.
    """
    reps_a, reps_b, expected = _cached(7)
    ra, rb = reps_a[kind_a], reps_b[kind_b]
    assert_exact(geoiou.intersection_area(ra, rb), expected["intersection"], kind_a, kind_b)
    assert_exact(geoiou.union_area(ra, rb), expected["union"], kind_a, kind_b)
    assert_exact(geoiou.iou(ra, rb), expected["iou"], kind_a, kind_b)
    giou = geoiou.giou(ra, rb, enclosure="hull")
    # The package's GIoU is fl(fl(I/U) - fl((C-U)/C)): at most an ulp or two from the exact value ...
    np.testing.assert_allclose(giou, expected["giou"], rtol=0, atol=4e-16)
    # ... and, the measures being exact, bit-identical to the Box×Box hull GIoU.
    assert_exact(giou, geoiou.giou(reps_a["box"], reps_b["box"], enclosure="hull"), kind_a, kind_b)


@pytest.mark.parametrize("kind_a, kind_b", REPRESENTATION_PAIRS)
def test_single_calls_agree_across_representations(kind_a, kind_b):
    """The same holds one pair at a time (scalar calls are batches of one): a float, the exact value.

    Checks the five special pairs (identical, nested, shared edge, disjoint, cross) and a random
    one with single-region objects, taken from the batches by indexing.
    """
    reps_a, reps_b, expected = _cached(11)
    for i in range(6):
        ra, rb = reps_a[kind_a][i], reps_b[kind_b][i]
        assert_exact(geoiou.intersection_area(ra, rb), expected["intersection"][i], kind_a, kind_b)
        assert_exact(geoiou.iou(ra, rb), expected["iou"][i], kind_a, kind_b)
        assert geoiou.giou(ra, rb, enclosure="hull") == pytest.approx(expected["giou"][i], rel=0, abs=4e-16)


@pytest.mark.parametrize("shift", [(-7.375, 3.625), (1024.125, -2048.5)], ids=["dyadic", "dyadic_far"])
@pytest.mark.parametrize("kind_a, kind_b", [p for p in REPRESENTATION_PAIRS if p[0] <= p[1]])
def test_dyadic_offsets_keep_exact_agreement(kind_a, kind_b, shift):
    """Moving the whole scene (and every mask origin) by a dyadic offset keeps results exact.

    Offsets that are multiples of 1/8 keep every coordinate, difference and area exactly
    representable, so the results must still equal the integer scene's exactly. Masks then have
    non-integer origins, with both grids shifted together.
    """
    reps_a, reps_b, expected = _cached(5, shift)
    ra, rb = reps_a[kind_a], reps_b[kind_b]
    assert_exact(geoiou.intersection_area(ra, rb), expected["intersection"], kind_a, kind_b)
    assert_exact(geoiou.iou(ra, rb), expected["iou"], kind_a, kind_b)
    np.testing.assert_allclose(geoiou.giou(ra, rb, enclosure="hull"), expected["giou"], rtol=0, atol=4e-16)


@pytest.mark.parametrize("kind_a, kind_b", [p for p in REPRESENTATION_PAIRS if p[0] <= p[1]])
def test_float_offsets_agree_within_1e_12(kind_a, kind_b):
    """A non-dyadic offset (0.1, 0.7) makes coordinates inexact: agreement within 1e-12 remains.

    The shifted coordinates round differently, so measures may move by a few ulps of the
    coordinates (~1e-15 here); 1e-12 (absolute on areas up to ~150, and on the ratios) is far
    above that and far below any real disagreement.
    """
    reps_a, reps_b, expected = _cached(9, (0.1, 0.7))
    ra, rb = reps_a[kind_a], reps_b[kind_b]
    np.testing.assert_allclose(geoiou.intersection_area(ra, rb), expected["intersection"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(geoiou.iou(ra, rb), expected["iou"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(geoiou.giou(ra, rb, enclosure="hull"), expected["giou"], rtol=0, atol=1e-12)


def test_masks_of_different_shapes_and_origins_are_the_same_region():
    """One region as masks of four shapes and origins: every pair of them has IoU exactly 1.

    The region is an L-shape of pixels. Padding the array and moving the origin back by the
    padding (integer or not, as long as both move together) leaves every true pixel square where
    it was, so the masks are the same set and their intersection is their full area.
    """
    data = np.zeros((3, 4), dtype=bool)
    data[0, :] = True
    data[:, 0] = True
    origin = np.array([2.5, -1.25])
    variants = [geoiou.Mask(data, origin=origin)]
    for top, left, bottom, right in [(2, 0, 0, 3), (0, 5, 4, 1), (7, 7, 7, 7)]:
        padded = np.pad(data, ((top, bottom), (left, right)))
        variants.append(geoiou.Mask(padded, origin=origin - (left, top)))
    for x, y in itertools.product(variants, variants):
        assert geoiou.intersection_area(x, y) == 6.0
        assert geoiou.iou(x, y) == 1.0
        # Not 1: the L-shape is not convex, so its hull (area 9: vertices (0,0), (4,0), (4,1),
        # (1,3), (0,3) from the origin) is larger than the union (6), and GIoU = 1 - 3/9.
        assert geoiou.giou(x, y) == 1.0 - 3.0 / 9.0
    # And a pixel-exact polygon of the L-shape agrees with every variant.
    ring = origin + np.array([(0, 0), (4, 0), (4, 1), (1, 1), (1, 3), (0, 3)])
    polygon = geoiou.Polygon(ring)
    for mask in variants:
        assert geoiou.iou(mask, polygon) == 1.0
        assert geoiou.iou(polygon, mask) == 1.0


def test_mask_grids_offset_by_a_fraction():
    """Two masks of one true pixel each, grids offset by (0.25, 0.5): they share 0.75 × 0.5.

    Pixel [0, 1)² against pixel [0.25, 1.25) × [0.5, 1.5): the overlap is 0.75 wide and 0.5 high,
    so intersection 0.375 and IoU 0.375 / (2 - 0.375) = 3/13, all exact in binary except the last
    quotient (correctly rounded). The same pixels as boxes must agree exactly.
    """
    one = np.ones((1, 1), dtype=bool)
    a, b = geoiou.Mask(one), geoiou.Mask(one, origin=(0.25, 0.5))
    box_a, box_b = geoiou.Box([0, 0, 1, 1]), geoiou.Box([0.25, 0.5, 1.25, 1.5])
    for x, y in [(a, b), (b, a), (a, box_b), (box_a, b), (box_b, a), (box_a, box_b)]:
        assert geoiou.intersection_area(x, y) == 0.375
        assert geoiou.iou(x, y) == 0.375 / 1.625


# --------------------------------------------------------------------------- Box×Box default enclosure
def _hull_equals_enclosing_box(p: np.ndarray, q: np.ndarray) -> bool:
    """When the convex hull of two boxes is their enclosing box.

    The hull fills the enclosing box exactly when each of its four corners is a corner of one of
    the boxes, which (working through the ways to share four corners between two boxes) happens
    iff one box contains the other, or both have the same x-interval, or the same y-interval.
    """
    contains = lambda s, t: s[0] <= t[0] and s[1] <= t[1] and s[2] >= t[2] and s[3] >= t[3]  # noqa: E731
    return contains(p, q) or contains(q, p) or (p[0] == q[0] and p[2] == q[2]) or (p[1] == q[1] and p[3] == q[3])


def test_box_default_enclosure_is_the_hull_only_in_special_cases():
    """Box×Box GIoU defaults to the enclosing *box* (the GIoU paper, torchvision); other pairs to the hull.

    For two boxes the box enclosure C_box contains the hull C_hull, so GIoU_box <= GIoU_hull with
    equality iff the areas are equal, i.e. (see `_hull_equals_enclosing_box`) iff one box contains
    the other or they share their x-interval or their y-interval. In every other configuration
    (e.g. two disjoint unit squares on a diagonal) the Box×Box default is strictly lower. So the
    *default* GIoU of the same two geometric boxes depends on the representation: Box×Box uses the
    box, Box×RotatedBox (or Polygon, Mask) uses the hull. Checked on every seeded pair, which
    include both cases.
    """
    a, b = _scene(3)
    extra_a = np.array([[0, 0, 4, 4], [0, 0, 4, 2], [1, 1, 3, 9], [0, 0, 1, 1]], dtype=float)
    extra_b = np.array([[1, 1, 2, 3], [0, 5, 4, 8], [0, 1, 5, 9], [2, 2, 3, 3]], dtype=float)
    a, b = np.concatenate([a, extra_a]), np.concatenate([b, extra_b])
    boxes_a, boxes_b = geoiou.Box(a), geoiou.Box(b)
    default = geoiou.giou(boxes_a, boxes_b)
    box = geoiou.giou(boxes_a, boxes_b, enclosure="box")
    hull = geoiou.giou(boxes_a, boxes_b, enclosure="hull")
    np.testing.assert_array_equal(default, box)
    same = np.array([_hull_equals_enclosing_box(p, q) for p, q in zip(a, b)])
    assert same.any() and (~same).any()  # both cases are exercised
    np.testing.assert_array_equal(box[same], hull[same])
    assert (box[~same] < hull[~same]).all()
    # Other pairs default to the hull: the same geometry as Box×RotatedBox gives the hull value.
    np.testing.assert_array_equal(geoiou.giou(boxes_a, boxes_a.to_rotated_box()), np.ones(len(a)))
    np.testing.assert_array_equal(geoiou.giou(boxes_a, geoiou.Box(b).to_rotated_box()), hull)
    # Two unit squares on a diagonal: C_box = 9, C_hull = 9 - 2 * (2 * 2 / 2) = 5, union 2,
    # so GIoU_box = -7/9 and GIoU_hull = -3/5.
    sq_a, sq_b = geoiou.Box([0, 0, 1, 1]), geoiou.Box([2, 2, 3, 3])
    assert geoiou.giou(sq_a, sq_b) == pytest.approx(-7 / 9, abs=1e-15)
    assert geoiou.giou(sq_a, sq_b, enclosure="hull") == pytest.approx(-3 / 5, abs=1e-15)
    assert geoiou.giou(sq_a, sq_b.to_polygon()) == pytest.approx(-3 / 5, abs=1e-15)


# --------------------------------------------------------------------------- large coordinates
def test_box_and_its_polygon_agree_at_large_coordinates():
    """A float box far from the origin and the polygon through its exact corners are the same region.

    ``Box.to_polygon`` keeps the corners bit for bit, so the IoU must be 1 (within 1e-12) and the
    intersection the box's own area; the design claims the promotion tower is exact.
    """
    x1, x2 = 1e9 + 0.1, 1e9 + 0.7
    box = geoiou.Box([x1, 0.0, x2, 1.0])
    polygon = geoiou.Polygon([(x1, 0.0), (x2, 0.0), (x2, 1.0), (x1, 1.0)])
    assert geoiou.iou(box, polygon) == pytest.approx(1.0, abs=1e-12)
    assert geoiou.iou(box, box.to_polygon()) == pytest.approx(1.0, abs=1e-12)
    assert geoiou.intersection_area(box, polygon) == pytest.approx(box.area, rel=1e-12)
