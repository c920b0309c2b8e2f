"""iouType="obb" and iouType="polygon": COCOeval's protocol with exact overlaps.

The reference is pycocotools' COCOeval whose ``computeIoU`` is replaced by shapely's exact IoU (IoF
over the detection for crowd regions) and whose detections' areas are their exact areas: geoiou's
drop-in must give the same matches, so the same precision, recall and evalImgs, and overlaps equal
to shapely's to rounding.
"""

from __future__ import annotations

import contextlib
import copy
import io
from typing import Any

import numpy as np
import pytest
import shapely

from geoiou.pycocotools import COCO, COCOeval

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")
cocoeval = pytest.importorskip("pycocotools.cocoeval")
coco = pytest.importorskip("pycocotools.coco")


def corners(rbox: list[float]) -> np.ndarray:
    """geoiou's convention: corner = centre + R(angle) (+-w/2, +-h/2), angle in degrees."""
    cx, cy, w, h, angle = rbox
    t = np.radians(angle)
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    rotation = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return local @ rotation.T + [cx, cy]


def geometry(record: dict[str, Any], iou_type: str) -> Any:
    if iou_type == "obb":
        return shapely.Polygon(corners(record["rbox"]))
    return shapely.union_all([shapely.Polygon(np.reshape(part, (-1, 2))) for part in record["segmentation"]])


class ExactCOCOeval(cocoeval.COCOeval):  # type: ignore[misc]
    """pycocotools' COCOeval, its computeIoU measuring the regions exactly (the reference of the exact types)."""

    kind = "polygon"

    def computeIoU(self, imgId: Any, catId: Any) -> Any:  # noqa: N802, N803 - overrides pycocotools
        gt, dt = self._gts[imgId, catId], self._dts[imgId, catId]
        if len(gt) == 0 or len(dt) == 0:
            return []
        order = np.argsort([-d["score"] for d in dt], kind="mergesort")
        dt = [dt[i] for i in order][: self.params.maxDets[-1]]
        ious = np.zeros((len(dt), len(gt)))
        for j, g in enumerate(gt):
            region = geometry(g, self.kind)
            for i, d in enumerate(dt):
                other = geometry(d, self.kind)
                shared = region.intersection(other).area
                ious[i, j] = shared / other.area if g["iscrowd"] else shared / region.union(other).area
        return ious


def dataset_of(seed: int, iou_type: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rng = np.random.default_rng(seed)
    images = [{"id": i, "height": 300, "width": 300} for i in range(1, 21)]
    annotations, results = [], []
    for image in range(1, 21):
        for _ in range(rng.integers(0, 5)):
            rbox = [*rng.uniform(40, 260, 2), *rng.uniform(8, 60, 2), float(rng.uniform(-90, 90))]
            rbox = [float(v) for v in np.round(rbox, 3)]
            category = int(rng.integers(1, 4))
            crowd = int(rng.random() < 0.1)
            record = {"id": len(annotations) + 1, "image_id": image, "category_id": category, "iscrowd": crowd}
            ring = corners(rbox)
            if iou_type == "obb":
                record["rbox"] = rbox
            else:
                parts = [ring.ravel().tolist()]
                if rng.random() < 0.3:  # a second part, apart from the first
                    parts.append((ring + [150, 0] if ring[:, 0].max() < 150 else ring - [150, 0]).ravel().tolist())
                record["segmentation"] = parts
            region = geometry(record, iou_type)
            record["area"] = float(region.area * rng.uniform(0.8, 1.2))
            low = np.min(ring, axis=0)
            record["bbox"] = [*low.tolist(), *(np.max(ring, axis=0) - low).tolist()]
            annotations.append(record)
            for _ in range(rng.integers(0, 3)):
                moved = [
                    rbox[0] + rng.normal(0, 2),
                    rbox[1] + rng.normal(0, 2),
                    rbox[2],
                    rbox[3],
                    rbox[4] + rng.normal(0, 4),
                ]
                result = {"image_id": image, "category_id": category, "score": float(np.round(rng.uniform(0, 1), 3))}
                if iou_type == "obb":
                    result["rbox"] = [float(v) for v in moved]
                else:
                    result["segmentation"] = [corners(moved).ravel().tolist()]
                results.append(result)
    categories = [{"id": c, "name": f"c{c}"} for c in range(1, 4)]
    return {"images": images, "annotations": annotations, "categories": categories}, results


@pytest.mark.parametrize("iou_type", ["obb", "polygon"])
@pytest.mark.parametrize("seed", [0, 1])
def test_exact_types_are_cocoeval_with_exact_overlaps(iou_type: str, seed: int) -> None:
    dataset, results = dataset_of(seed, iou_type)
    with contextlib.redirect_stdout(io.StringIO()):
        truth = coco.COCO()
        truth.dataset = copy.deepcopy(dataset)
        truth.createIndex()
        found = _loaded(truth, results)
        for ann in found.anns.values():
            ann["area"] = geometry(ann, iou_type).area  # the detections' exact areas decide their ranges
        reference = ExactCOCOeval(truth, found, "bbox")
        reference.kind = iou_type
        reference.evaluate()
        reference.accumulate()
        reference.summarize()
        ours_truth = COCO()
        ours_truth.dataset = copy.deepcopy(dataset)
        ours_truth.createIndex()
        ours = COCOeval(ours_truth, ours_truth.loadRes(copy.deepcopy(results)), iou_type)
        ours.evaluate()
        ours.accumulate()
        ours.summarize()
    for key in ("precision", "recall"):
        np.testing.assert_array_equal(reference.eval[key], ours.eval[key])
    np.testing.assert_array_equal(reference.stats, ours.stats)
    assert reference.stats[0] > 0.1
    for key, value in reference.ious.items():
        if isinstance(value, list):
            assert ours.ious[key] == []
        else:
            np.testing.assert_allclose(value, ours.ious[key], rtol=1e-12, atol=1e-15)


def _loaded(truth: Any, results: list[dict[str, Any]]) -> Any:
    """pycocotools' loadRes reads neither an rbox nor a polygon result: they enter as a dataset of detections."""
    found = coco.COCO()
    found.dataset = {
        "images": truth.dataset["images"],
        "categories": truth.dataset["categories"],
        "annotations": [{**copy.deepcopy(r), "id": i + 1, "iscrowd": 0} for i, r in enumerate(results)],
    }
    found.createIndex()
    return found


def test_rbox_convention_is_named_in_the_params() -> None:
    """The same boxes written in detectron2's convention (counter-clockwise: the angle's sign flipped) and read
    with params.rboxConvention = "detectron2" give the same evaluation."""
    dataset, results = dataset_of(3, "obb")
    flipped_dataset, flipped_results = copy.deepcopy(dataset), copy.deepcopy(results)
    for record in flipped_dataset["annotations"] + flipped_results:
        record["rbox"][4] = -record["rbox"][4]
    evaluations = []
    for data, found, convention in ((dataset, results, "geoiou"), (flipped_dataset, flipped_results, "detectron2")):
        with contextlib.redirect_stdout(io.StringIO()):
            truth = COCO()
            truth.dataset = copy.deepcopy(data)
            truth.createIndex()
            evaluation = COCOeval(truth, truth.loadRes(copy.deepcopy(found)), "obb")
            evaluation.params.rboxConvention = convention
            evaluation.evaluate()
            evaluation.accumulate()
            evaluation.summarize()
        evaluations.append(evaluation)
    np.testing.assert_array_equal(evaluations[0].eval["precision"], evaluations[1].eval["precision"])
    with pytest.raises(ValueError, match="'rboxConvention' must be one of"):
        evaluation.params.rboxConvention = "gradians"
        with contextlib.redirect_stdout(io.StringIO()):
            evaluation.evaluate()
