"""TIDE's numbers equal tidecv's (dbolya/tide's package) where tidecv agrees with COCOeval.

tidecv computes AP at 101 recall points ``x / 100``; COCOeval (and geoiou) at
``numpy.linspace(0, 1, 101)``, which is one ulp higher at ten of them (0.35, 0.41, ...). The
cross-checks give the evaluation tidecv's recall points, so that the AP is the same function, and
use data on which tidecv's other departures from COCOeval do not arise (docs/howto/diagnose.md):
at most 100 predictions per image, no category predicted where it has no ground truth, no crowd
regions, distinct scores and overlaps. tidecv is installed by .ci/run without its dependencies
(it asks for opencv-python's GUI build, which would overwrite opencv-python-headless's cv2).
"""

from __future__ import annotations

import collections
import json

import numpy as np
import pytest

import geoiou
from geoiou.diagnostics import diagnose
from geoiou.diagnostics.tide import ERRORS, SPECIAL_ERRORS
from geoiou.evaluation import CocoEvaluation
from tests.conftest import TOUR
from tests.diagnostics.scenes import annotations, box_scene

tidecv = pytest.importorskip(
    "tidecv", reason="tidecv is installed by .ci/run: pip install --no-deps tidecv==1.0.1 (see pyproject.toml)"
)

#: tidecv's recall points (x / 100), which the cross-checks give the evaluation.
TIDE_RECALL_POINTS = np.arange(101) / 100
#: TIDE's error names by geoiou's keys: geoiou's short names are tidecv's.
TIDE_NAMES = {**ERRORS, **SPECIAL_ERRORS}


def tidecv_numbers(truth_rows, predicted_rows, n_images, mode="bbox", masks=None):
    """tidecv's AP and dAP (x100) of rows (masks: RLEs by ground truth, then by prediction)."""
    from tidecv import TIDE
    from tidecv.data import Data

    truth, predicted = Data("gt"), Data("pred")
    for image in range(n_images):
        truth.add_image(image, str(image))
    gt_masks, dt_masks = masks or ([None] * len(truth_rows), [None] * len(predicted_rows))
    for (image, category, box), mask in zip(truth_rows, gt_masks):
        truth.add_ground_truth(image, category, box, mask)
    for (image, category, box, score), mask in zip(predicted_rows, dt_masks):
        predicted.add_detection(image, category, score, box, mask)
    tide = TIDE(mode=TIDE.BOX if mode == "bbox" else TIDE.MASK)
    run = tide.evaluate(truth, predicted, name="run")
    errors = {**tide.get_main_errors()["run"], **tide.get_special_errors()["run"]}
    return run.ap, {key: errors[short] for key, short in TIDE_NAMES.items()}


def assert_equals_tidecv(diagnostics, theirs) -> None:
    tide = diagnostics.tide()
    ap, delta = theirs
    assert 100 * tide.ap == pytest.approx(ap, abs=1e-9)
    assert {key: 100 * value for key, value in tide.delta_ap.items()} == pytest.approx(delta, abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_boxes_equal_tidecv(seed):
    truth, predicted = box_scene(seed)
    diagnostics = diagnose(
        annotations(truth),
        annotations(predicted),
        evaluation=CocoEvaluation(categories=range(4), recall_thresholds=TIDE_RECALL_POINTS),
        images=range(40),
    )
    assert_equals_tidecv(diagnostics, tidecv_numbers(truth, predicted, 40))


@pytest.mark.parametrize("seed", range(2))
def test_masks_equal_tidecv(seed):
    from pycocotools import mask as coco_mask

    truth, predicted = box_scene(seed + 100, n_images=12)

    def rles(rows):  # each box rasterized by pycocotools at a 300 x 300 image, as COCO's segm results are
        return [coco_mask.frPyObjects([[x, y, x + w, y, x + w, y + h, x, y + h]], 300, 300)[0] for *_, (x, y, w, h)
                in ((row[0], row[1], row[2]) for row in rows)]  # fmt: skip

    gt_rles, dt_rles = rles(truth), rles(predicted)
    diagnostics = diagnose(
        annotations(truth, geoiou.Mask.from_rle(gt_rles)),
        annotations(predicted, geoiou.Mask.from_rle(dt_rles)),
        evaluation=CocoEvaluation(categories=range(4), recall_thresholds=TIDE_RECALL_POINTS),
        images={image: (300, 300) for image in range(12)},
    )
    assert_equals_tidecv(diagnostics, tidecv_numbers(truth, predicted, 12, "mask", (gt_rles, dt_rles)))


@pytest.fixture(scope="module")
def tour_subset(tmp_path_factory):
    """The tour's COCO files on the images tidecv evaluates as COCOeval does: at most 100 predictions each,
    predictions only of categories with ground truth there."""
    folder = tmp_path_factory.mktemp("tide")
    instances = json.loads((TOUR / "coco" / "instances.json").read_text())
    paths = {}
    for kind in ("bbox", "segm"):
        results = json.loads((TOUR / "coco" / f"results-{kind}.json").read_text())
        per_image = collections.Counter(r["image_id"] for r in results)
        images = {image for image, count in per_image.items() if count <= 100}
        present = {a["category_id"] for a in instances["annotations"] if a["image_id"] in images}
        kept = [r for r in results if r["image_id"] in images and r["category_id"] in present]
        cut = {**instances, "images": [i for i in instances["images"] if i["id"] in images],
               "annotations": [a for a in instances["annotations"] if a["image_id"] in images]}  # fmt: skip
        (folder / f"instances-{kind}.json").write_text(json.dumps(cut))
        (folder / f"{kind}.json").write_text(json.dumps(kept))
        paths[kind] = (folder / f"instances-{kind}.json", folder / f"{kind}.json")
    return paths


@pytest.mark.parametrize("kind", ["bbox", "segm"])
def test_the_tour_equals_tidecv_where_tidecv_agrees_with_cocoeval(tour_subset, kind):
    from tidecv import TIDE, datasets

    from geoiou.io import read_coco, read_coco_results

    instances, results = tour_subset[kind]
    truth = read_coco(instances, geometry="bbox" if kind == "bbox" else "segmentation", polygons="pycocotools")
    predicted = read_coco_results(results)
    evaluation = CocoEvaluation(
        categories=list(truth.categories),
        recall_thresholds=TIDE_RECALL_POINTS,
        polygon_iou="pycocotools" if kind == "segm" else "exact",
    )
    diagnostics = diagnose(truth.annotations, predicted.annotations, evaluation=evaluation, images=truth.images)
    # Images 2, 3, 5 and 6 of the tour: 151 predictions, 5 of them of categories without ground truth there.
    assert len(truth.images) == 4 and len(diagnostics.table.dt_row) == 146
    mode = TIDE.BOX if kind == "bbox" else TIDE.MASK
    tide = TIDE(mode=mode)
    run = tide.evaluate(datasets.COCO(str(instances)), datasets.COCOResult(str(results)), mode=mode, name="run")
    errors = {**tide.get_main_errors()["run"], **tide.get_special_errors()["run"]}
    assert_equals_tidecv(diagnostics, (run.ap, {key: errors[short] for key, short in TIDE_NAMES.items()}))
