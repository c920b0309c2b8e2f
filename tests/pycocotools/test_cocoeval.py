"""geoiou.pycocotools against real pycocotools: the same stats, eval arrays, evalImgs, ious and printout, bit for bit.

Each case runs both libraries on one seeded dataset (tests/pycocotools/dropin_datasets.py) with the same
Params and compares everything a pipeline can read: ``stats``, ``eval["precision"]``,
``eval["recall"]``, ``eval["scores"]`` (values and dtypes), every field of every ``evalImgs``
entry (None entries included), every ``ious`` matrix, and the printed summary.
"""

from __future__ import annotations

import contextlib
import copy
import io
from typing import Any, Callable

import numpy as np
import pytest

from geoiou.pycocotools import COCO, COCOeval, mask
from tests.pycocotools.dropin_datasets import (
    assert_same_eval_images,
    assert_same_ious,
    box_dataset,
    keypoint_dataset,
    run_evaluation,
    segm_dataset,
)

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")

coco = pytest.importorskip("pycocotools.coco")
cocoeval = pytest.importorskip("pycocotools.cocoeval")


def summary_lines(printed: str) -> list[str]:
    return [line for line in printed.splitlines() if line.startswith(" Average")]


def assert_identical(reference: Any, ours: Any) -> None:
    """Everything a pipeline reads of a COCOeval, compared exactly."""
    np.testing.assert_array_equal(np.asarray(reference.stats), ours.stats, strict=True)
    for key in ("precision", "recall", "scores"):
        np.testing.assert_array_equal(reference.eval[key], ours.eval[key], strict=True)
    assert reference.eval["counts"] == ours.eval["counts"]
    assert_same_eval_images(reference.evalImgs, ours.evalImgs)
    assert_same_ious(reference.ious, ours.ious)


def both(
    dataset: dict[str, Any], results: Any, iou_type: str, tweak: Callable[[Any], None] | None = None
) -> tuple[Any, Any]:
    reference, printed = run_evaluation(coco.COCO, cocoeval.COCOeval, dataset, results, iou_type, tweak)
    ours, ours_printed = run_evaluation(COCO, COCOeval, dataset, results, iou_type, tweak)
    assert_identical(reference, ours)
    assert summary_lines(printed) == summary_lines(ours_printed)
    return reference, ours


def setting(**values: Any) -> Callable[[Any], None]:
    def tweak(params: Any) -> None:
        for name, value in values.items():
            setattr(params, name, value)

    return tweak


PARAMS = {
    "default": None,
    "useCats=0": setting(useCats=0),
    "maxDets": setting(maxDets=[1, 3, 7]),
    "catIds": setting(catIds=[3, 1]),
    "imgIds": setting(imgIds=list(range(1, 60, 3))),
    "iouThrs": setting(iouThrs=np.array([0.3, 0.5, 0.6])),
    "recThrs": setting(recThrs=np.linspace(0, 1, 11)),
    "areaRng": setting(areaRng=[[0, 1e10], [0, 500], [400, 3000]], areaRngLbl=["all", "small", "medium"]),
}


@pytest.mark.parametrize("name", list(PARAMS))
@pytest.mark.parametrize("integer", [True, False], ids=["integer", "float"])
def test_bbox(name: str, integer: bool) -> None:
    dataset, results = box_dataset(3, integer=integer)
    reference, _ = both(dataset, results, "bbox", PARAMS[name])
    if name == "default":
        assert 0.1 < reference.stats[0] < 0.9  # numbers that mean something


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("iou_type", ["segm", "bbox"])
def test_segmentation_dataset(seed: int, iou_type: str) -> None:
    """Polygons of several parts, crowd regions as uncompressed RLE, compressed RLE; RLE results (their boxes
    from pycocotools' toBbox for bbox)."""
    dataset, results = segm_dataset(seed)
    reference, _ = both(dataset, results, iou_type)
    assert reference.stats[1] > 0.2


def test_segmentation_without_categories() -> None:
    dataset, results = segm_dataset(2)
    both(dataset, results, "segm", setting(useCats=0))


@pytest.mark.parametrize(
    "tweak",
    [None, setting(kpt_oks_sigmas=np.linspace(0.2, 1.5, 17)), setting(useCats=0), setting(maxDets=[5])],
    ids=["standard sigmas", "custom sigmas", "useCats=0", "maxDets"],
)
def test_keypoints(tweak: Callable[[Any], None] | None) -> None:
    """OKS with COCO's and custom sigmas, ground truths without visible keypoints (ignored, matched by distance
    to their box), crowd regions; without categories pycocotools' OKS finds no pair at all."""
    dataset, results = keypoint_dataset(4)
    reference, _ = both(dataset, results, "keypoints", tweak)
    if tweak is None:
        assert reference.stats[0] > 0.05


def test_keypoints_of_another_count() -> None:
    dataset, results = keypoint_dataset(5, n_keypoints=5)
    both(dataset, results, "keypoints", setting(kpt_oks_sigmas=np.array([0.3, 0.5, 0.7, 0.9, 1.1])))


def test_keypoint_results_with_boxes_use_the_box_area() -> None:
    """Results with a 'bbox' (detectron2 writes one) are read as box results: their area is the box's."""
    dataset, results = keypoint_dataset(6)
    rng = np.random.default_rng(0)
    for result in results:
        result["bbox"] = [float(v) for v in rng.uniform(5, 80, 4)]
    both(dataset, results, "keypoints")


# --------------------------------------------------------------------------- accumulate and the flows around it
def evaluated_pair(dataset: dict[str, Any], results: Any, iou_type: str) -> tuple[Any, Any]:
    pair = []
    for coco_class, eval_class in ((coco.COCO, cocoeval.COCOeval), (COCO, COCOeval)):
        with contextlib.redirect_stdout(io.StringIO()):
            truth = coco_class()
            truth.dataset = copy.deepcopy(dataset)
            truth.createIndex()
            evaluator = eval_class(truth, truth.loadRes(copy.deepcopy(results)), iou_type)
            evaluator.evaluate()
        pair.append(evaluator)
    return pair[0], pair[1]


@pytest.mark.parametrize(
    "change",
    [
        setting(catIds=[2, 4]),  # pycocotools then reads the entries of the first categories: its arithmetic
        setting(recThrs=np.linspace(0, 1, 21)),
        setting(maxDets=[10, 100]),
        setting(imgIds=list(range(1, 40))),
        setting(areaRng=[[0, 1e10], [96**2, 1e10]]),
        setting(iouThrs=np.linspace(0.5, 0.95, 12)),
    ],
    ids=["catIds", "recThrs", "maxDets", "imgIds", "areaRng", "more iouThrs"],
)
def test_accumulate_with_params_changed_after_evaluate(change: Callable[[Any], None]) -> None:
    dataset, results = box_dataset(5, integer=False)
    reference, ours = evaluated_pair(dataset, results, "bbox")
    with contextlib.redirect_stdout(io.StringIO()):
        change(reference.params)
        change(ours.params)
        reference.accumulate()
        ours.accumulate()
    for key in ("precision", "recall", "scores"):
        np.testing.assert_array_equal(reference.eval[key], ours.eval[key], strict=True)


def test_torchvision_flow_merges_eval_imgs_and_accumulates() -> None:
    """torchvision's CocoEvaluator: cocoDt set after construction, evaluate per batch of images, evalImgs merged
    by hand (an object array, flattened), params and _paramsEval set, then accumulate."""
    dataset, results = box_dataset(6, integer=True)
    outcome = []
    for coco_class, eval_class in ((coco.COCO, cocoeval.COCOeval), (COCO, COCOeval)):
        with contextlib.redirect_stdout(io.StringIO()):
            truth = coco_class()
            truth.dataset = copy.deepcopy(dataset)
            truth.createIndex()
            evaluator = eval_class(truth, iouType="bbox")
            all_ids, all_imgs = [], []
            for batch in (range(1, 31), range(31, 61)):
                batch_results = [copy.deepcopy(r) for r in results if r["image_id"] in batch]
                evaluator.cocoDt = coco_class.loadRes(truth, batch_results) if batch_results else coco_class()
                evaluator.params.imgIds = list(batch)
                evaluator.evaluate()
                shape = (-1, len(evaluator.params.areaRng), len(evaluator.params.imgIds))
                all_ids.extend(evaluator.params.imgIds)
                all_imgs.append(np.asarray(evaluator.evalImgs).reshape(shape))
            merged = np.concatenate(all_imgs, 2)
            ids, index = np.unique(all_ids, return_index=True)
            evaluator.evalImgs = list(merged[..., index].flatten())
            evaluator.params.imgIds = list(ids)
            evaluator._paramsEval = copy.deepcopy(evaluator.params)
            evaluator.accumulate()
            evaluator.summarize()
        outcome.append(evaluator)
    np.testing.assert_array_equal(outcome[0].stats, outcome[1].stats, strict=True)
    np.testing.assert_array_equal(outcome[0].eval["precision"], outcome[1].eval["precision"], strict=True)


def test_results_as_an_array_and_a_file(tmp_path: Any) -> None:
    dataset, results = box_dataset(7, integer=False)
    rows = np.array([[r["image_id"], *r["bbox"], r["score"], r["category_id"]] for r in results])
    both(dataset, rows, "bbox")
    path = tmp_path / "results.json"
    import json

    path.write_text(json.dumps(results))
    reference, ours = both(dataset, str(path), "bbox")
    assert reference.cocoDt.anns[3] == ours.cocoDt.anns[3]


@pytest.mark.parametrize("iou_type", ["segm", "bbox"])
@pytest.mark.parametrize("change", ["none", "a dict changed", "categories unnamed"])
def test_dataset_files_are_read_from_their_bytes(iou_type: str, change: str, tmp_path: Any) -> None:
    """COCO(path) parses its document only when its dicts are read (COCOeval reads the ids of images and
    categories, and the evaluation the file through read_coco); dicts changed after reading them are what is
    evaluated, as in pycocotools; a file read_coco refuses (categories without a name) is read from its dicts."""
    import json

    dataset, results = segm_dataset(6)
    if change == "categories unnamed":
        for category in dataset["categories"]:
            del category["name"]
    path, found = tmp_path / "instances.json", tmp_path / "results.json"
    path.write_text(json.dumps(dataset))
    found.write_text(json.dumps(results))
    evaluations = []
    for coco_class, eval_class in ((coco.COCO, cocoeval.COCOeval), (COCO, COCOeval)):
        with contextlib.redirect_stdout(io.StringIO()):
            truth = coco_class(str(path))
            if change == "a dict changed":
                truth.dataset["annotations"][0]["iscrowd"] = 1
            evaluation = eval_class(truth, truth.loadRes(str(found)), iou_type)
            evaluation.evaluate()
            evaluation.accumulate()
            evaluation.summarize()
        evaluations.append(evaluation)
    assert_identical(*evaluations)
    if change == "none":
        assert evaluations[1].cocoGt._pending is not None  # the document was never parsed


def mask_results(kind: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Mask results as pipelines write them: masks alone, masks with their boxes (detectron2), or box results of which
    every other has a mask too."""
    from pycocotools import mask as reference_mask

    dataset, results = segm_dataset(5)
    for number, result in enumerate(results):
        box = [float(v) for v in reference_mask.toBbox(result["segmentation"])]
        if kind == "boxes and masks":
            result["bbox"] = box
        elif kind == "some masks":
            result["bbox"] = box
            if number % 2:
                del result["segmentation"]
    return dataset, results


@pytest.mark.parametrize("iou_type", ["segm", "bbox"])
@pytest.mark.parametrize("kind", ["masks", "boxes and masks", "some masks", "keypoints"])
def test_result_files_are_read_from_their_bytes(kind: str, iou_type: str, tmp_path: Any, monkeypatch: Any) -> None:
    """loadRes of a file reads it with read_coco_results (its dicts parsed only when read): pycocotools' numbers
    whatever the results hold, which pycocotools decides by the first result (a box: its area for the ranges)."""
    import json

    from geoiou.pycocotools import sources

    if kind == "keypoints":  # keypoints are no geometry of the reader: the dicts are parsed
        dataset, results = keypoint_dataset(8)
        iou_type = "keypoints"
    else:
        dataset, results = mask_results(kind)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results))
    both(dataset, str(path), iou_type)
    loaded = []
    for coco_class in (coco.COCO, COCO):
        with contextlib.redirect_stdout(io.StringIO()):
            truth = coco_class()
            truth.dataset = copy.deepcopy(dataset)
            truth.createIndex()
            loaded.append(truth.loadRes(str(path)).anns[2])
    assert sorted(loaded[0]) == sorted(loaded[1])  # the dicts, as loadRes fills them in
    for key, value in loaded[0].items():
        np.testing.assert_array_equal(value, loaded[1][key])
    monkeypatch.setattr(sources, "FIRST_RECORD_BYTES", 8)  # the first result found on the file's tape instead
    both(dataset, str(path), iou_type)


def test_ground_truth_id_zero_reads_as_no_match() -> None:
    """pycocotools records a match by the ground truth's id: a match with id 0 counts as none."""
    dataset, results = box_dataset(8, integer=True)
    for annotation in dataset["annotations"]:
        annotation["id"] -= 1  # ids 0, 1, ...
    both(dataset, results, "bbox")


def test_summary_max_dets_fix_is_off_by_default() -> None:
    """cocoapi #558: with maxDets [1, 10, 300] pycocotools' first AP reads the limit 100, which is not there."""
    dataset, results = box_dataset(9, integer=True)
    custom = setting(maxDets=[1, 10, 300])
    reference, ours = both(dataset, results, "bbox", custom)
    assert reference.stats[0] == -1
    fixed, _ = run_evaluation(COCO, COCOeval, dataset, results, "bbox", custom, fix_summary_max_dets=True)
    assert fixed.stats[0] == pytest.approx(
        np.mean(fixed.eval["precision"][:, :, :, 0, 2][fixed.eval["precision"][:, :, :, 0, 2] > -1])
    )


# --------------------------------------------------------------------------- inputs pycocotools does not take, refusals
def small_coco(categories: int = 1) -> COCO:
    truth = COCO()
    truth.dataset = {
        "images": [{"id": 1, "height": 50, "width": 50}],
        "categories": [{"id": c, "name": f"c{c}"} for c in range(1, categories + 1)],
        "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "area": 100, "iscrowd": 0}],
    }
    with contextlib.redirect_stdout(io.StringIO()):
        truth.createIndex()
    return truth


def evaluated_stats(truth: COCO, results: Any) -> np.ndarray:
    with contextlib.redirect_stdout(io.StringIO()):
        evaluation = COCOeval(truth, truth.loadRes(results), "bbox")
        evaluation.run()
    return np.asarray(evaluation.stats)


def test_an_n_by_6_array_is_taken_for_one_category_and_empty_results_give_zeros() -> None:
    truth = small_coco()
    rows = np.array([[1, 0, 0, 10, 9, 0.9]])  # image id, x, y, w, h, score: the one category
    assert evaluated_stats(truth, rows)[1] == pytest.approx(1.0)
    assert evaluated_stats(truth, rows)[0] == evaluated_stats(truth, np.column_stack([rows, [1]]))[0]
    assert evaluated_stats(truth, [])[0] == 0.0  # a category with ground truth and no result: AP 0
    with pytest.raises(ValueError, match="N x 6 only for a dataset of one category"):
        small_coco(categories=2).loadRes(rows)


def test_refusals_name_what_was_wrong() -> None:
    truth = small_coco()
    with pytest.raises(AssertionError, match="image ids \\[7\\] are not in the dataset"):
        with contextlib.redirect_stdout(io.StringIO()):
            truth.loadRes([{"image_id": 7, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 0.5}])
    evaluation = COCOeval(truth, iouType="bbox")
    with pytest.raises(RuntimeError, match="Please run accumulate\\(\\) first"):
        evaluation.summarize()
    with pytest.raises(ValueError, match="'iouType' must be one of"):
        COCOeval(truth, iouType="mask")
    truth.dataset["annotations"][0].update(keypoints=[1, 1, 2], num_keypoints=1)
    with contextlib.redirect_stdout(io.StringIO()):
        truth.createIndex()
        found = truth.loadRes([{"image_id": 1, "category_id": 1, "keypoints": [1, 1, 2], "score": 0.5}])
        with pytest.raises(ValueError, match="'kpt_oks_sigmas' must be one sigma per keypoint"):
            COCOeval(truth, found, "keypoints").evaluate()  # 17 sigmas for 1 keypoint


def test_result_masks_of_another_size_than_their_image_are_refused() -> None:
    """pycocotools gives such a mask an overlap of -1 with everything its box meets (it never matches, silently);
    the drop-in refuses it as evaluate_coco does, naming the result and the size expected."""
    truth = small_coco()
    truth.dataset["annotations"][0]["segmentation"] = [[0, 0, 10, 0, 10, 10, 0, 10]]
    wrong = mask.encode(np.ones((40, 50), np.uint8))
    with contextlib.redirect_stdout(io.StringIO()):
        truth.createIndex()
        found = truth.loadRes([{"image_id": 1, "category_id": 1, "segmentation": wrong, "score": 0.5}])
        with pytest.raises(ValueError, match="'results.region' must be masks of their image's size .* 50x50 pixels"):
            COCOeval(truth, found, "segm").evaluate()


@pytest.mark.parametrize("iou_type", ["bbox", "segm", "keypoints"])
def test_large_sets_are_measured_in_stretches_of_pairs(iou_type: str, monkeypatch: Any) -> None:
    """The engine measures candidate pairs a stretch of predictions at a time (its memory bound for LVIS- and
    Objects365-sized sets): stretches of a few pairs give pycocotools' numbers, evalImgs and ious too."""
    from geoiou.evaluation import overlaps

    monkeypatch.setattr(overlaps, "CHUNK_PAIRS", 5)
    datasets = {"segm": lambda: segm_dataset(3), "bbox": lambda: box_dataset(13, integer=False)}
    dataset, results = datasets.get(iou_type, lambda: keypoint_dataset(7))()
    both(dataset, results, iou_type)
    both(dataset, results, iou_type, setting(useCats=0))
