"""The kernel table: lookup, swapping, promotion, and a new kind plugging in without touching iou()."""

import numpy as np
import pytest

import geoiou
from geoiou import dispatch
from geoiou.regions.base import Region, as_measure, readonly

KINDS_2D = [geoiou.Box, geoiou.RotatedBox, geoiou.Polygon, geoiou.Mask]


@pytest.mark.parametrize("kind_a", KINDS_2D)
@pytest.mark.parametrize("kind_b", KINDS_2D)
def test_every_ordered_pair_of_2d_kinds_has_a_kernel(kind_a, kind_b):
    assert callable(dispatch.find_kernel(kind_a, kind_b))
    assert callable(dispatch.find_kernel(kind_a, kind_b, measure="hull"))


def test_promotion_takes_the_fewest_steps():
    # Box×RotatedBox reaches the exact rotated kernel by promoting the box once, not both to polygons.
    pair = dispatch.find_kernel(geoiou.Box, geoiou.RotatedBox)
    assert pair.kernel is dispatch._TABLE[("intersection", geoiou.RotatedBox, geoiou.RotatedBox)]
    assert len(pair.convert_a) == 1 and not pair.convert_b
    # Box×Box uses its own closed form.
    assert dispatch.find_kernel(geoiou.Box, geoiou.Box).convert_a == ()


def test_swapped_pair_reuses_the_kernel():
    pair = dispatch.find_kernel(geoiou.Polygon, geoiou.Mask)
    assert pair.swapped and pair.kernel is dispatch._TABLE[("intersection", geoiou.Mask, geoiou.Polygon)]


def test_supported_pairs_lists_the_registered_kernels():
    names = {(a.__name__, b.__name__) for a, b in dispatch.supported_pairs()}
    assert {("Box", "Box"), ("Interval", "Interval"), ("Mask", "Polygon"), ("RotatedBox", "RotatedBox")} <= names


class Disc(Region):
    """A toy kind for the plug-in test: discs ``(cx, cy, r)``."""

    _fields = {"_coords": 1}

    def __init__(self, coords):
        object.__setattr__(self, "_coords", readonly(np.asarray(coords, dtype=float)))

    @property
    def area(self):
        return as_measure(np.pi * self._coords[..., 2] ** 2)

    @property
    def bounds(self):
        c, r = self._coords[..., :2], self._coords[..., 2:]
        return np.concatenate([c - r, c + r], axis=-1)

    @property
    def centroid(self):
        return self._coords[..., :2].copy()

    def _describe_one(self):
        return str(self._coords)


def _lens_area(a, b, index_a, index_b):
    """Area of the intersection of discs (the closed-form lens) of each pair ``(a[index_a[k]], b[index_b[k]])``."""
    p, q = a._coords[index_a], b._coords[index_b]
    d = np.hypot(p[..., 0] - q[..., 0], p[..., 1] - q[..., 1])
    r1, r2 = p[..., 2], q[..., 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = np.arccos(np.clip((d**2 + r1**2 - r2**2) / (2 * d * r1), -1, 1))
        beta = np.arccos(np.clip((d**2 + r2**2 - r1**2) / (2 * d * r2), -1, 1))
        lens = (
            r1**2 * alpha
            + r2**2 * beta
            - 0.5 * np.sqrt(np.clip((-d + r1 + r2) * (d + r1 - r2) * (d - r1 + r2) * (d + r1 + r2), 0, None))
        )
    inside = d <= np.abs(r1 - r2)
    return np.where(d >= r1 + r2, 0.0, np.where(inside, np.pi * np.minimum(r1, r2) ** 2, lens))


def test_a_new_kind_plugs_in_by_registering_a_kernel(monkeypatch):
    monkeypatch.setattr(dispatch, "_TABLE", dict(dispatch._TABLE))
    dispatch.register(Disc, Disc)(_lens_area)
    a, b = Disc([0, 0, 1]), Disc([[1, 0, 1], [5, 0, 1], [0, 0, 1]])
    # Two unit discs at distance 1 share a lens of area 2π/3 - √3/2.
    lens = 2 * np.pi / 3 - np.sqrt(3) / 2
    np.testing.assert_allclose(geoiou.iou(a, b), [lens / (2 * np.pi - lens), 0.0, 1.0])
    assert geoiou.pairwise_iou(b, b).shape == (3, 3)
    with pytest.raises(geoiou.UnsupportedPairError, match="cannot compare Disc with Box"):
        geoiou.iou(a, geoiou.Box([0, 0, 1, 1]))
