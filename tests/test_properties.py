"""Hypothesis properties of the metrics for every region kind and every mixed pair.

What must hold for any regions ``a`` and ``b`` (of measure > 0), whatever their kinds:

* symmetry: ``iou``, ``giou`` (either enclosure), the intersection and the union do not depend on
  the order of the arguments;
* ranges: ``0 <= iou <= 1``, ``-1 <= giou <= 1``; ``giou <= iou`` (the penalty
  ``|C \\ (a ∪ b)| / |C|`` is >= 0); ``iou <= min(|a|, |b|) / max(|a|, |b|)`` (the intersection is
  at most the smaller region and the union at least the larger);
* ``iou(a, a) == 1``: exactly for Box, RotatedBox, Interval and Mask (exact measures), within 1e-12
  for polygons (shapely's overlay rounds);
* invariance under moving both regions together: translation by a float offset (masks move their
  origin), and rotation about any point (rotated boxes add the angle and turn their centres,
  polygons are turned by shapely; masks only by quarter turns, which keep pixels squares on a
  grid; intervals by the half turn of a line, x -> 2p - x), within 1e-9.

* agreement with the oracles: intersection, union, IoU and hull GIoU equal shapely's overlay
  (masks as the union of their pixel squares) for every ordered pair, within 1e-9.

All tests are derandomized (the same examples on every run) and bounded in examples so that the
file runs in seconds; ``--hypothesis-profile=deep`` (root conftest.py) draws 40 times as many,
new ones on each run.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import shapely
import shapely.affinity
from hypothesis import assume, given
from hypothesis import strategies as st

import geoiou
from strategies import (
    KIND_NAMES,
    PLANAR_KINDS,
    ci_settings,
    pixel_oracle_geometry,
    random_masks,
    region_strategy,
    rng,
    shapely_of,
    translate,
)

#: Strategy options per kind: small spans so that random pairs overlap often.
OPTIONS = {
    "box": {"span": 8.0, "max_size": 12.0},
    "rotated_box": {"span": 6.0, "max_size": 12.0},
    "polygon": {"span": 5.0, "max_radius": 8.0},
    "mask": {"span": 5, "max_side": 8},
    "interval": {"span": 20.0, "max_length": 15.0},
}

#: Unordered pairs of kinds that compare (symmetric properties need only one order).
UNORDERED_PAIRS = [*itertools.combinations_with_replacement(PLANAR_KINDS, 2), ("interval", "interval")]
#: Ordered pairs, for properties that might depend on the order.
ORDERED_PAIRS = [*itertools.product(PLANAR_KINDS, PLANAR_KINDS), ("interval", "interval")]

EXAMPLES = 15


def region(kind: str) -> st.SearchStrategy[geoiou.Region]:
    return region_strategy(kind, **OPTIONS[kind])


def pair_ids(pairs):
    return [f"{a}-{b}" for a, b in pairs]


# --------------------------------------------------------------------------- moving regions
def _turn(x: float, y: float, angle: float, pivot: tuple[float, float]) -> tuple[float, float]:
    """(x, y) turned by `angle` degrees about `pivot` with R = [[cos, -sin], [sin, cos]]."""
    theta = math.radians(angle)
    u, v = x - pivot[0], y - pivot[1]
    return (pivot[0] + math.cos(theta) * u - math.sin(theta) * v, pivot[1] + math.sin(theta) * u + math.cos(theta) * v)


def rotate(r: geoiou.Region, angle: float, pivot: tuple[float, float]) -> geoiou.Region:
    """The region turned by `angle` degrees about `pivot`, in geoiou's rotation convention.

    A Box becomes a RotatedBox (centre turned, angle added); a RotatedBox turns its centre and adds
    the angle; a Polygon is turned by `shapely.affinity.rotate` (same convention: counter-clockwise
    in a y-up frame, R = [[cos, -sin], [sin, cos]]); a Mask only by a multiple of 90 degrees (see
    `rotate_mask_quarter`); an Interval only by 180 (x -> 2 p - x, the half turn of a line).
    """
    if isinstance(r, geoiou.Box):
        r = r.to_rotated_box()
    if isinstance(r, geoiou.RotatedBox):
        cx, cy, w, h, a = r.to_array()
        x, y = _turn(cx, cy, angle, pivot)
        return geoiou.RotatedBox([x, y, w, h, a + angle])
    if isinstance(r, geoiou.Polygon):
        return geoiou.Polygon.from_shapely(shapely.affinity.rotate(r.to_shapely(), angle, origin=pivot))
    if isinstance(r, geoiou.Mask):
        turns = angle / 90.0
        assert turns == int(turns), "masks turn by quarter turns only"
        for _ in range(int(turns) % 4):
            r = rotate_mask_quarter(r, pivot)
        return r
    if isinstance(r, geoiou.Interval):
        assert angle % 360 == 180, "intervals turn by half turns only"
        start, end = r.to_array()
        return geoiou.Interval([2 * pivot[0] - end, 2 * pivot[0] - start])
    raise TypeError(type(r).__name__)


def rotate_mask_quarter(mask: geoiou.Mask, pivot: tuple[float, float]) -> geoiou.Mask:
    """The mask turned by +90 degrees about `pivot`: again a mask, of shape (W, H).

    R(90) maps (x, y) to (px + py - y, py - px + x), so pixel (r, c), the square
    [x0 + c, x0 + c + 1) × [y0 + r, y0 + r + 1), lands on column H - 1 - r and row c of the grid
    with origin (px + py - (y0 + H), py - px + x0): the new array is ``np.rot90(data, -1)``.
    """
    (x0, y0), (px, py) = mask.origin, pivot
    height = mask.data.shape[0]
    return geoiou.Mask(np.rot90(mask.data, -1), origin=(px + py - (y0 + height), py - px + x0))


def test_rotate_mask_quarter_matches_shapely():
    """Sanity of the helper: the turned mask is the pixel region turned by shapely (area of the
    symmetric difference ~0), for seeded masks, pivots and 1 to 3 quarter turns."""
    gen = rng(3)
    for mask in random_masks(gen, 12, origin="float"):
        pivot = tuple(gen.uniform(-5, 5, size=2))
        for turns in (1, 2, 3):
            expected = shapely.affinity.rotate(pixel_oracle_geometry(mask.data, mask.origin), 90 * turns, origin=pivot)
            turned = rotate(mask, 90.0 * turns, pivot)
            actual = pixel_oracle_geometry(turned.data, turned.origin)
            assert shapely.area(shapely.symmetric_difference(expected, actual)) < 1e-9


# --------------------------------------------------------------------------- symmetry
def _tolerance(a: geoiou.Region, b: geoiou.Region) -> float:
    """0 where the arithmetic is order-independent (Box×Box, Interval×Interval: min/max and one
    product), 1e-12 otherwise (clipping and overlays round differently in the two orders)."""
    exact = type(a) is type(b) and isinstance(a, (geoiou.Box, geoiou.Interval))
    return 0.0 if exact else 1e-12


@pytest.mark.parametrize("kind_a, kind_b", UNORDERED_PAIRS, ids=pair_ids(UNORDERED_PAIRS))
def test_metrics_are_symmetric(kind_a, kind_b):
    """iou, giou (default and hull enclosure), intersection and union do not depend on argument order.

    The intersection and union of sets are symmetric, and so is the enclosure; only rounding could
    differ (kernels may clip a by b rather than b by a), hence 1e-12 relative to the larger area for
    the measures and absolute for the ratios; boxes and intervals are exact.
    """

    @ci_settings(EXAMPLES)
    @given(region(kind_a), region(kind_b))
    def check(a, b):
        tol = _tolerance(a, b)
        scale = max(a.area, b.area)
        assert geoiou.intersection_area(a, b) == pytest.approx(geoiou.intersection_area(b, a), rel=0, abs=tol * scale)
        assert geoiou.union_area(a, b) == pytest.approx(geoiou.union_area(b, a), rel=0, abs=tol * scale)
        assert geoiou.iou(a, b) == pytest.approx(geoiou.iou(b, a), rel=0, abs=tol)
        assert geoiou.giou(a, b) == pytest.approx(geoiou.giou(b, a), rel=0, abs=tol)
        # Box×Box's hull goes through the rotated-box hull kernel (computed in the frame of the
        # first box), so only intervals keep the hull GIoU exactly symmetric.
        hull_tol = 0.0 if isinstance(a, geoiou.Interval) else 1e-12
        assert geoiou.giou(a, b, enclosure="hull") == pytest.approx(
            geoiou.giou(b, a, enclosure="hull"), rel=0, abs=hull_tol
        )

    check()


# --------------------------------------------------------------------------- ranges and inequalities
@pytest.mark.parametrize("kind_a, kind_b", ORDERED_PAIRS, ids=pair_ids(ORDERED_PAIRS))
def test_ranges_and_inequalities(kind_a, kind_b):
    """For any two non-empty regions:

    * ``0 <= intersection <= min(|a|, |b|)`` and ``max(|a|, |b|) <= union <= |a| + |b|``
      (set inclusions), so ``0 <= iou <= min/max <= 1`` and ``0 <= iof <= 1``;
    * ``-1 <= giou <= iou`` for both enclosures (the penalty ``(C - U) / C`` lies in [0, 1]),
      and the hull GIoU is >= the box GIoU (the convex hull lies inside the enclosing box).

    The design's "never > 1 or < 0" is checked exactly for IoU and GIoU. The measures and the
    ``min/max`` bound get 4 ulps: ``union = |a| + |b| - I`` rounds twice, so it can land one ulp
    below ``max(|a|, |b|)`` even with an exact intersection (e.g. a small polygon inside a box).
    ``iof <= 1`` exactly is checked on a known hard case by `test_polygon_overlap_never_exceeds_the_polygon`.

    A rotated box met by a polygon or a mask is promoted to a polygon whose rounded corners can
    enclose a few ulps more than ``w·h``; the intersection is still bounded by the box's own
    measure (`test_a_promoted_rotated_box_never_exceeds_its_own_area`).
    """
    ulps = 4 * np.finfo(float).eps

    @ci_settings(EXAMPLES)
    @given(region(kind_a), region(kind_b))
    def check(a, b):
        small, large = sorted([a.area, b.area])
        intersection, union = geoiou.intersection_area(a, b), geoiou.union_area(a, b)
        assert 0.0 <= intersection <= small * (1 + ulps)
        assert large * (1 - ulps) <= union <= (a.area + b.area) * (1 + ulps)
        iou = geoiou.iou(a, b)
        assert 0.0 <= iou <= 1.0
        assert iou <= small / large * (1 + ulps)
        assert 0.0 <= geoiou.iof(a, b) <= 1.0 + ulps
        giou_box = geoiou.giou(a, b, enclosure="box")
        giou_hull = geoiou.giou(a, b, enclosure="hull")
        for giou in (geoiou.giou(a, b), giou_box, giou_hull):
            assert -1.0 <= giou <= iou
        # Equal enclosures (boxes along one line) round differently in the two formulas: 2.3e-15 seen.
        assert giou_box <= giou_hull + 1e-14

    check()


# --------------------------------------------------------------------------- the oracles
def _oracle(a: geoiou.Region, b: geoiou.Region) -> tuple[float, float, float]:
    """Intersection, union and convex-hull measure of two single regions, computed without geoiou's kernels.

    2-D kinds by shapely's overlay of `shapely_of` (masks as the union of their pixel squares);
    intervals by arithmetic on their ends.
    """
    if isinstance(a, geoiou.Interval):
        (s, e), (t, f) = a.to_array(), b.to_array()
        return (
            max(0.0, min(e, f) - max(s, t)),
            (e - s) + (f - t) - max(0.0, min(e, f) - max(s, t)),
            max(e, f) - min(s, t),
        )
    ga, gb = shapely_of(a), shapely_of(b)
    union = shapely.union(ga, gb)
    return shapely.intersection(ga, gb).area, union.area, shapely.convex_hull(union).area


@pytest.mark.parametrize("kind_a, kind_b", ORDERED_PAIRS, ids=pair_ids(ORDERED_PAIRS))
def test_metrics_match_the_oracles(kind_a, kind_b):
    """Intersection, union, IoU and hull GIoU of any two regions equal shapely's (pixel squares for masks).

    Areas within 1e-9 of the larger region's area, ratios within 1e-9: the tolerance of
    tests/test_oracles.py, here on Hypothesis' examples (many more under ``--hypothesis-profile=deep``).
    """

    @ci_settings(EXAMPLES)
    @given(region(kind_a), region(kind_b))
    def check(a, b):
        assume(not (_has_subnormal(a) or _has_subnormal(b)))  # GEOS, not geoiou, goes wrong there (below)
        intersection, union, hull = _oracle(a, b)
        scale = max(a.area, b.area)
        assert geoiou.intersection_area(a, b) == pytest.approx(intersection, rel=0, abs=1e-9 * scale)
        assert geoiou.union_area(a, b) == pytest.approx(union, rel=1e-9)
        assert geoiou.iou(a, b) == pytest.approx(intersection / union, rel=0, abs=1e-9)
        expected_giou = intersection / union - (hull - union) / hull
        assert geoiou.giou(a, b, enclosure="hull") == pytest.approx(expected_giou, rel=0, abs=1e-9)

    check()


def _has_subnormal(region: geoiou.Region) -> bool:
    if isinstance(region, geoiou.Interval):
        return False  # the interval oracle is arithmetic, not GEOS
    numbers = (
        region.bounds if isinstance(region, geoiou.Mask) else np.asarray(shapely.get_coordinates(shapely_of(region)))
    )
    magnitude = np.abs(numbers[np.isfinite(numbers)])
    return bool(((magnitude > 0) & (magnitude < np.finfo(float).tiny)).any())


def test_a_subnormal_coordinate_where_geos_overlays_go_wrong():
    """Found by the deep Hypothesis run: shapely's overlay gives 0.01875 here, geoiou 0.0125.

    The rotated box turned by 90° is the bar [-0.025, 0.025] × [-0.5, 0.5]; the box starts at
    x = 1.1e-308 (a subnormal number): their intersection is [1.1e-308, 0.025] × [0, 0.5], of area
    0.025 × 0.5 = 0.0125. The oracle property skips subnormal coordinates for this reason.
    """
    bar, box = geoiou.RotatedBox([0, 0, 1, 0.05, 90]), geoiou.Box([1.11254e-308, 0, 1, 1])
    assert geoiou.intersection_area(bar, box) == pytest.approx(0.0125, rel=1e-15)
    assert shapely.intersection(shapely_of(bar), shapely_of(box)).area != pytest.approx(0.0125, rel=1e-3)


def test_a_promoted_rotated_box_never_exceeds_its_own_area():
    """A rotated box inside a polygon (or a mask) shares its whole area with it: IoF exactly 1, never above.

    Found by the deep Hypothesis run: the box promoted to a polygon has rounded corners whose
    shoelace area is 0.12500000000000014 for a box of area 0.125. A promoted pair's
    intersection is bounded by the regions' own measures (`dispatch.PairKernel`).
    """
    box = geoiou.RotatedBox([2, 0, 1, 0.125, 45])
    triangle = geoiou.Polygon([(4, 0), (-1, 1.732051), (-0.5, -0.866025)])
    mask = geoiou.Mask(np.ones((4, 4)), origin=(-3, 1))
    inside_mask = geoiou.RotatedBox([0, 3, 1, 0.125, 45])
    assert geoiou.intersection_area(box, triangle) <= box.area
    assert geoiou.iof(box, triangle) <= 1.0 and geoiou.iof(inside_mask, mask) <= 1.0
    batch = geoiou.RotatedBox.stack([box, inside_mask])
    assert (geoiou.iof(batch, triangle) <= 1.0).all() and (geoiou.pairwise_iof(batch, mask[None]) <= 1.0).all()


def test_polygon_overlap_never_exceeds_the_polygon():
    """A polygon's intersection with itself, or with a box that contains it, is the polygon, so
    ``intersection_area <= |polygon|``, ``iof == 1`` and ``iou(p, p) == 1``: never above (the design:
    IoU "never > 1 or < 0").

    The ring was found by a seeded search: shapely's overlay and shapely's area round this polygon
    differently by one ulp, which the kernels must absorb (about 1 random star polygon in 5 does it).
    """
    ring = [
        (-0.3406205297431181, 0.08735351998682087),
        (-0.4708000842733676, 0.007624653273147365),
        (-0.27148057194356917, -0.05057269597071525),
        (0.023389621682891222, -0.48126816515945275),
        (0.0668782208237499, -0.29240776426293996),
        (0.25631262971071406, -0.08516588038217032),
        (0.34792018744007003, -0.010722663038154159),
    ]
    polygon = geoiou.Polygon(ring)
    assert shapely.Polygon(ring).within(shapely.box(-0.5, -0.5, 0.5, 0.5))
    assert geoiou.iou(polygon, polygon) <= 1.0
    for container in (
        polygon,
        geoiou.RotatedBox([0, 0, 1, 1, 0]),
        geoiou.Box([-0.5, -0.5, 0.5, 0.5]),
        geoiou.Polygon([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]),
    ):
        assert geoiou.intersection_area(polygon, container) <= polygon.area
        assert geoiou.iof(polygon, container) <= 1.0


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_iou_of_a_region_with_itself_is_one(kind):
    """``iou(a, a) == 1`` for every non-empty region.

    Exactly 1.0 for Box, RotatedBox, Interval (the kernels see identical numbers: the rotated-box
    kernel returns the box's own area for identical boxes) and Mask (the intersection is the same
    pixel count as the area); within 1e-12 for polygons, whose overlay in shapely rounds.

    The hull GIoU of a region with itself is ``|a| / |hull(a)|``: exactly 1 for the convex kinds
    (Box, RotatedBox, Interval) but below 1 for a non-convex polygon or mask, which is what the
    GIoU definition (C = the smallest convex set enclosing both) gives.
    """

    @ci_settings(EXAMPLES)
    @given(region(kind))
    def check(a):
        if kind == "polygon":
            assert geoiou.iou(a, a) == pytest.approx(1.0, rel=0, abs=1e-12)
        else:
            assert geoiou.iou(a, a) == 1.0
        assert geoiou.intersection_area(a, a) == pytest.approx(a.area, rel=1e-12)
        giou = geoiou.giou(a, a, enclosure="hull")
        if kind in ("box", "rotated_box", "interval"):
            assert giou == 1.0
            assert geoiou.giou(a, a) == 1.0
        else:
            geometry = a.to_shapely() if kind == "polygon" else pixel_oracle_geometry(a.data, a.origin)
            assert giou == pytest.approx(a.area / shapely.convex_hull(geometry).area, rel=0, abs=1e-12)

    check()


# --------------------------------------------------------------------------- invariance
def _assert_same_metrics(a, b, moved_a, moved_b, tol=1e-9):
    """IoU, hull GIoU and intersection (relative to the larger area) agree within `tol`."""
    assert geoiou.iou(moved_a, moved_b) == pytest.approx(geoiou.iou(a, b), rel=0, abs=tol)
    assert geoiou.giou(moved_a, moved_b, enclosure="hull") == pytest.approx(
        geoiou.giou(a, b, enclosure="hull"), rel=0, abs=tol
    )
    scale = max(a.area, b.area)
    assert geoiou.intersection_area(moved_a, moved_b) == pytest.approx(
        geoiou.intersection_area(a, b), rel=0, abs=tol * scale
    )


OFFSETS = st.floats(-1000.0, 1000.0, allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize("kind_a, kind_b", ORDERED_PAIRS, ids=pair_ids(ORDERED_PAIRS))
def test_translation_invariance(kind_a, kind_b):
    """Moving both regions by the same float offset (|offset| <= 1000) changes no metric beyond 1e-9.

    Overlap measures depend only on relative positions. Offsets are floats, so translated
    coordinates round (by at most ~1e-13 at 1000), which is why 1e-9 rather than exact; masks
    move their origin, so their pixel grids move with them. Also checks the default-enclosure
    GIoU (the box enclosure is translation invariant too).
    """

    @ci_settings(EXAMPLES)
    @given(region(kind_a), region(kind_b), OFFSETS, OFFSETS)
    def check(a, b, dx, dy):
        moved_a, moved_b = translate(a, dx, dy), translate(b, dx, dy)
        _assert_same_metrics(a, b, moved_a, moved_b)
        assert geoiou.giou(moved_a, moved_b) == pytest.approx(geoiou.giou(a, b), rel=0, abs=1e-9)

    check()


ROTATION_PAIRS = [p for p in UNORDERED_PAIRS if "mask" not in p and p != ("interval", "interval")]
QUARTER_TURN_PAIRS = [p for p in ORDERED_PAIRS if "mask" in p]


@pytest.mark.parametrize("kind_a, kind_b", ROTATION_PAIRS, ids=pair_ids(ROTATION_PAIRS))
def test_rotation_invariance(kind_a, kind_b):
    """Turning both vector regions by the same angle about the same point keeps IoU, hull GIoU and
    the intersection within 1e-9 (a rotation is an isometry; the convex hull turns with the regions).

    Boxes become rotated boxes when turned, so this also checks Box against RotatedBox and the
    rotated-box kernel against the polygon overlay along the way.
    """

    @ci_settings(EXAMPLES)
    @given(region(kind_a), region(kind_b), st.floats(-360.0, 360.0), st.tuples(st.floats(-20, 20), st.floats(-20, 20)))
    def check(a, b, angle, pivot):
        _assert_same_metrics(a, b, rotate(a, angle, pivot), rotate(b, angle, pivot))

    check()


@pytest.mark.parametrize("kind_a, kind_b", QUARTER_TURN_PAIRS, ids=pair_ids(QUARTER_TURN_PAIRS))
def test_quarter_turn_invariance_with_masks(kind_a, kind_b):
    """A mask turned by a quarter turn is again a mask (see `rotate_mask_quarter`); turning it and
    its partner by 90, 180 or 270 degrees about any point keeps the metrics within 1e-9."""

    @ci_settings(EXAMPLES)
    @given(
        region(kind_a),
        region(kind_b),
        st.sampled_from([90.0, 180.0, 270.0, -90.0]),
        st.tuples(st.floats(-10, 10), st.floats(-10, 10)),
    )
    def check(a, b, angle, pivot):
        _assert_same_metrics(a, b, rotate(a, angle, pivot), rotate(b, angle, pivot))

    check()


def test_interval_reflection_invariance():
    """On a line the only non-trivial rigid motion besides translation is the half turn
    x -> 2p - x; reflecting both intervals about the same point keeps every metric (1e-9)."""

    @ci_settings(EXAMPLES)
    @given(region("interval"), region("interval"), st.floats(-50, 50))
    def check(a, b, p):
        ra, rb = rotate(a, 180.0, (p, 0.0)), rotate(b, 180.0, (p, 0.0))
        _assert_same_metrics(a, b, ra, rb)
        assert geoiou.giou(ra, rb) == pytest.approx(geoiou.giou(a, b), rel=0, abs=1e-9)

    check()
