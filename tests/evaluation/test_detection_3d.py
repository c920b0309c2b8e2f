"""COCO and VOC evaluations of 3-D regions: the engine works on any kind through its kernels and bounds (six
columns in 3-D). Boxes that all share one vertical extent of height 1 have 3-D IoU equal to their footprints' IoU
and volumes equal to their areas, so the evaluations of the boxes and of their footprints must agree exactly."""

from __future__ import annotations

import numpy as np
import pytest

import geoiou
from geoiou.evaluation import Annotations, evaluate_coco, evaluate_voc
from strategies import rng


def _scene(seed: int) -> tuple[Annotations, Annotations, Annotations, Annotations]:
    gen = rng(seed)
    n, m = 60, 80
    truth = np.column_stack(
        [gen.uniform(0, 40, (n, 2)), np.zeros(n), gen.uniform(1, 6, (n, 2)), np.ones(n), gen.uniform(-180, 180, n)]
    )
    pick = gen.integers(0, n, m)
    moved = truth[pick] + np.column_stack([gen.normal(0, 0.6, (m, 2)), np.zeros((m, 4)), gen.normal(0, 8, m)])
    images_t, images_p = gen.integers(0, 6, n), None
    images_p = images_t[pick]
    classes_t, classes_p = gen.integers(0, 3, n), None
    classes_p = classes_t[pick]
    score = gen.random(m)
    boxes_t, boxes_p = geoiou.RotatedBox3D(truth), geoiou.RotatedBox3D(moved)
    solid = (
        Annotations(image_id=images_t, category_id=classes_t, region=boxes_t),
        Annotations(image_id=images_p, category_id=classes_p, region=boxes_p, score=score),
    )
    flat = (
        Annotations(image_id=images_t, category_id=classes_t, region=boxes_t.footprint()),
        Annotations(image_id=images_p, category_id=classes_p, region=boxes_p.footprint(), score=score),
    )
    return (*solid, *flat)


@pytest.mark.parametrize("seed", [1, 2])
def test_coco_and_voc_of_boxes_on_one_ground_equal_those_of_their_footprints(seed):
    truth, found, truth_2d, found_2d = _scene(seed)
    ranges = {"all": (0.0, 1e10), "small": (0.0, 8.0), "large": (8.0, 1e10)}  # volumes here, areas there
    solid, flat = evaluate_coco(truth, found, area_ranges=ranges), evaluate_coco(truth_2d, found_2d, area_ranges=ranges)
    np.testing.assert_allclose(solid.stats_array, flat.stats_array, atol=1e-12)
    assert solid.stats_array[0] > 0.1
    np.testing.assert_allclose(evaluate_voc(truth, found).ap, evaluate_voc(truth_2d, found_2d).ap, atol=1e-12)


def test_two_and_three_dimensions_are_not_mixed_in_a_table():
    with pytest.raises(ValueError, match="intervals, 2-D and 3-D regions cannot be mixed"):
        Annotations(
            image_id=[1, 1], category_id=[1, 1], region=[geoiou.Box([0, 0, 1, 1]), geoiou.Box3D([0, 0, 0, 1, 1, 1])]
        )
