"""geoiou.lvis against lvis-api: federated AP (negative and not-exhaustive categories, the per-image limit of
results, AP by frequency), bbox and segm: results, eval arrays, eval_imgs and ious, bit for bit."""

from __future__ import annotations

import copy
import importlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from geoiou.lvis import LVIS, LVISEval, LVISResults
from tests.pycocotools.dropin_datasets import assert_same_eval_images, assert_same_ious, lvis_dataset

pytestmark = [
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:The 'warn' method is deprecated:DeprecationWarning"),
]
# lvis-api is installed by .ci/run without its dependencies (see pyproject.toml's test extra): in CI its
# absence is a failure, elsewhere the cross-check is skipped.
lvis_api = importlib.import_module("lvis") if os.environ.get("CI") else pytest.importorskip("lvis")


def reference_run(path: Path, results: list[dict[str, Any]], iou_type: str, max_dets: int, monkeypatch: Any) -> Any:
    """lvis-api as its users run it; numpy's alias ``np.float`` (removed in NumPy 1.24), which lvis-api 0.5.3's
    accumulate still names, is put back for the call."""
    monkeypatch.setattr(np, "float", float, raising=False)
    truth = lvis_api.LVIS(str(path))
    found = lvis_api.LVISResults(truth, copy.deepcopy(results), max_dets=max_dets)
    evaluation = lvis_api.LVISEval(truth, found, iou_type)
    evaluation.run()
    return evaluation


def our_run(dataset: dict[str, Any], results: list[dict[str, Any]], iou_type: str, max_dets: int) -> LVISEval:
    truth = LVIS(copy.deepcopy(dataset))
    evaluation = LVISEval(truth, LVISResults(truth, copy.deepcopy(results), max_dets=max_dets), iou_type)
    evaluation.run()
    return evaluation


def assert_identical(reference: Any, ours: LVISEval) -> None:
    assert list(reference.results) == list(ours.results)
    for key, value in reference.results.items():
        assert value == ours.results[key], key
    for key in ("precision", "recall"):
        np.testing.assert_array_equal(reference.eval[key], ours.eval[key], strict=True)
    assert_same_eval_images(reference.eval_imgs, ours.eval_imgs)
    assert_same_ious(reference.ious, ours.ious)


@pytest.mark.parametrize("iou_type", ["bbox", "segm", "segm only"])
@pytest.mark.parametrize("seed", [0, 1])
def test_lvis_matches_lvis_api(seed: int, iou_type: str, tmp_path: Path, monkeypatch: Any) -> None:
    """Results with boxes and masks (lvis-api then takes the box's area for the ranges), or masks only."""
    dataset, results = lvis_dataset(seed)
    if iou_type == "segm only":
        iou_type = "segm"
        for result in results:
            del result["bbox"]
    path = tmp_path / "lvis.json"
    path.write_text(json.dumps(dataset))
    max_dets = 12  # below the most results of an image: the per-image limit is exercised
    reference = reference_run(path, results, iou_type, max_dets, monkeypatch)
    ours = our_run(dataset, results, iou_type, max_dets)
    assert_identical(reference, ours)
    assert reference.results["AP50"] > 0.2
    assert [r["id"] for r in reference.lvis_dt.dataset["annotations"]] == [
        r["id"] for r in ours.lvis_dt.dataset["annotations"]
    ]


@pytest.mark.parametrize(("iou_type", "max_dets"), [("bbox", -1), ("segm", 12)])
def test_lvis_from_files(iou_type: str, max_dets: int, tmp_path: Path, monkeypatch: Any) -> None:
    """Files read from their bytes: boxes, all kept; boxes and masks, the best 12 of each image (their order, so
    their ids and ties, lvis-api's)."""
    dataset, results = lvis_dataset(2)
    if iou_type == "bbox":
        for result in results:
            del result["segmentation"]
    path, found = tmp_path / "lvis.json", tmp_path / "results.json"
    path.write_text(json.dumps(dataset))
    found.write_text(json.dumps(results))
    reference = reference_run(path, results, iou_type, max_dets, monkeypatch)
    ours = LVISEval(str(path), str(found), iou_type)
    ours.lvis_dt = LVISResults(ours.lvis_gt, str(found), max_dets=max_dets)
    ours.run()
    assert_identical(reference, ours)
    assert [r["id"] for r in reference.lvis_dt.dataset["annotations"]] == [
        r["id"] for r in ours.lvis_dt.dataset["annotations"]
    ]


def test_lvis_in_stretches_of_pairs(tmp_path: Path, monkeypatch: Any) -> None:
    """Candidate pairs measured a few at a time (the engine's memory bound for LVIS-sized sets): lvis-api's numbers."""
    from geoiou.evaluation import overlaps

    dataset, results = lvis_dataset(4)
    path = tmp_path / "lvis.json"
    path.write_text(json.dumps(dataset))
    reference = reference_run(path, results, "segm", 300, monkeypatch)
    monkeypatch.setattr(overlaps, "CHUNK_PAIRS", 10)
    assert_identical(reference, our_run(dataset, results, "segm", 300))
