"""Boundary AP: ``iouType="boundary"`` in the drop-in and ``iou_type="boundary"`` in `evaluate_coco`.

The reference is boundary-iou-api's COCOeval as `tests.boundary_reference` re-implements it over
pycocotools (boundary-iou-api is not installable from PyPI): the same precision, recall, summary and
per-image results, bit for bit, since both measure integer pixel counts with pycocotools' formulas.
"""

from __future__ import annotations

import contextlib
import copy
import io
from typing import Any

import numpy as np
import pytest

from geoiou.evaluation import evaluate_coco
from geoiou.io import read_coco, read_coco_results
from geoiou.pycocotools import COCO, COCOeval
from tests.boundary_reference import BoundaryCOCOeval
from tests.pycocotools.dropin_datasets import assert_same_eval_images, assert_same_ious, run_evaluation, segm_dataset

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")
pycocotools_coco = pytest.importorskip("pycocotools.coco")


def reference_run(dataset: dict[str, Any], results: list[dict[str, Any]], ratio: float) -> Any:
    with contextlib.redirect_stdout(io.StringIO()):
        truth = pycocotools_coco.COCO()
        truth.dataset = copy.deepcopy(dataset)
        truth.createIndex()
        evaluator = BoundaryCOCOeval(truth, truth.loadRes(copy.deepcopy(results)), "segm")
        evaluator.dilation_ratio = ratio
        evaluator.evaluate()
        evaluator.accumulate()
        evaluator.summarize()
    return evaluator


@pytest.mark.parametrize(("seed", "ratio"), [(0, 0.02), (1, 0.02), (2, 0.06)])
def test_dropin_boundary_is_boundary_iou_apis_cocoeval(seed: int, ratio: float) -> None:
    dataset, results = segm_dataset(seed)
    reference = reference_run(dataset, results, ratio)
    ours, _ = run_evaluation(COCO, COCOeval, dataset, results, "boundary", dilation_ratio=ratio)
    for key in ("precision", "recall", "scores"):
        np.testing.assert_array_equal(reference.eval[key], ours.eval[key], strict=True)
    np.testing.assert_array_equal(reference.stats, ours.stats)
    assert_same_ious(reference.ious, ours.ious)
    assert_same_eval_images(reference.evalImgs, ours.evalImgs)
    segm, _ = run_evaluation(COCO, COCOeval, dataset, results, "segm")
    assert ours.stats[0] < segm.stats[0]  # bands are stricter than masks on these small objects


def test_evaluate_coco_boundary_is_the_dropins(tmp_path: Any) -> None:
    dataset, results = segm_dataset(3)
    ours, _ = run_evaluation(COCO, COCOeval, dataset, results, "boundary")
    truth = read_coco(dataset, geometry="segmentation", polygons="pycocotools")
    found = read_coco_results(results, geometry="segmentation")
    result = evaluate_coco(
        truth.annotations, found.annotations, images=truth.images, categories=list(truth.categories),
        iou_type="boundary",
    )  # fmt: skip
    np.testing.assert_array_equal(result.stats_array, ours.stats)
    np.testing.assert_array_equal(result.precision, ours.eval["precision"])


def test_split_parts_merge_to_the_one_call_result() -> None:
    from geoiou.evaluation import CocoEvaluation

    dataset, results = segm_dataset(4)
    truth = read_coco(dataset, geometry="segmentation", polygons="pycocotools").annotations
    found = read_coco_results(results, geometry="segmentation").annotations
    images = np.array([image["id"] for image in dataset["images"]])
    whole = CocoEvaluation(iou_type="boundary").update(truth, found, images=images).compute()
    parts = []
    for half in np.array_split(images, 2):
        state = CocoEvaluation(iou_type="boundary")
        parts.append(
            state.update(
                truth.take(np.isin(truth.image_id, half)), found.take(np.isin(found.image_id, half)), images=half
            )
        )
    merged = parts[0].merge(parts[1]).compute()
    np.testing.assert_array_equal(merged.precision, whole.precision)
    with pytest.raises(ValueError, match="dilation_ratio"):
        parts[0].merge(CocoEvaluation(iou_type="boundary", dilation_ratio=0.05))


def test_exact_polygons_take_the_exact_band_and_need_image_sizes() -> None:
    import geoiou
    from geoiou.evaluation import Annotations

    square = geoiou.Polygon.from_rings([[(10, 10), (30, 10), (30, 30), (10, 30)]])
    shifted = geoiou.Polygon.from_rings([[(11, 10), (31, 10), (31, 30), (11, 30)]])
    truth = Annotations(image_id=[1], category_id=1, region=square)
    found = Annotations(image_id=[1], category_id=1, score=[0.9], region=shifted)
    with pytest.raises(ValueError, match="'images' must be {image_id: \\(height, width\\)}"):
        evaluate_coco(truth, found, iou_type="boundary")
    result = evaluate_coco(truth, found, images={1: (60, 80)}, iou_type="boundary", iou_thresholds=[0.5, 0.6])
    # d = 0.02 * 100 = 2: each band is 400 - 16 * 16 = 144; they share the 19 x 20 overlap less the union of the
    # inner squares, 17 x 16: 108 of 180, so 0.6, below the regions' IoU 380 / 420.
    assert result.matches.prediction_iou[0, 0] == pytest.approx(0.6, rel=1e-12)
    assert float(geoiou.boundary_iou(square[0], shifted[0], distance=2.0)) == pytest.approx(0.6, rel=1e-12)
    with pytest.raises(ValueError, match="iou_type"):
        evaluate_coco(truth, found, iou_type="bands")  # type: ignore[arg-type]
