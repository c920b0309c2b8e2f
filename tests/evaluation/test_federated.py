"""LVIS's federated rules on the mergeable COCO state: equal to lvis-api's LVISEval, whole or in parts."""

from __future__ import annotations

import copy
import importlib
import json
import os
from pathlib import Path
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geoiou
from geoiou.errors import InvalidArgumentError
from geoiou.evaluation import Annotations, CocoEvaluation, FederatedLabels, evaluate_coco, merge_states
from geoiou.evaluation.federated import top_per_image
from geoiou.io import read_coco, read_coco_results
from tests.pycocotools.dropin_datasets import lvis_dataset

pytestmark = [
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:The 'warn' method is deprecated:DeprecationWarning"),
]
# In CI lvis-api is installed by .ci/run (without its dependencies): there its absence is a failure.
lvis_api = importlib.import_module("lvis") if os.environ.get("CI") else pytest.importorskip("lvis")


def lvis_api_run(path: Path, results: list[dict[str, Any]], iou_type: str, max_dets: int, monkeypatch: Any) -> Any:
    """lvis-api as its users run it (its accumulate still names ``np.float``, put back for the call)."""
    monkeypatch.setattr(np, "float", float, raising=False)
    truth = lvis_api.LVIS(str(path))
    evaluation = lvis_api.LVISEval(truth, lvis_api.LVISResults(truth, copy.deepcopy(results), max_dets), iou_type)
    evaluation.run()
    return evaluation


def parts_of(image_ids: list[int], cuts: list[int]) -> list[list[int]]:
    edges = [0, *sorted(set(cuts)), len(image_ids)]
    return [image_ids[a:b] for a, b in zip(edges[:-1], edges[1:]) if b > a]


def lvis_truth(dataset: dict[str, Any], geometry: str) -> Annotations:
    """The ground truth as lvis-api reads it: polygons as pycocotools' masks, and the "ignore" field, which
    lvis-api honours and COCOeval (and so read_coco) does not read."""
    read = read_coco(dataset, geometry=geometry, polygons="pycocotools").annotations
    ignore = [bool(annotation.get("ignore", 0)) for annotation in dataset["annotations"]]
    return Annotations(read.image_id, read.category_id, list(read.regions), area=read.area, ignore=ignore)


def streamed(
    dataset: dict[str, Any], results: list[dict[str, Any]], geometry: str, max_dets: int, parts: list[list[int]]
) -> Any:
    """The set evaluated part by part, as a user streams a set too large for one process: one state per part,
    merged at the end."""
    truth = lvis_truth(dataset, geometry)
    found = read_coco_results(results, geometry=geometry).annotations
    labels = FederatedLabels.read(dataset, max_per_image=max_dets)
    categories = sorted(category["id"] for category in dataset["categories"])
    sizes = {image["id"]: (image["height"], image["width"]) for image in dataset["images"]}
    states = []
    for images in parts:
        state = CocoEvaluation(categories=categories, max_detections=(300,), polygon_iou="pycocotools")
        state.update(truth.take(np.isin(truth.image_id, images)), found.take(np.isin(found.image_id, images)),
                     images={image: sizes[image] for image in images}, federated=labels)  # fmt: skip
        states.append(state)
    return merge_states(states).compute(), labels


@pytest.mark.parametrize("geometry", ["bbox", "segmentation"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_streamed_parts_equal_lvis_api(seed: int, geometry: str, tmp_path: Path, monkeypatch: Any) -> None:
    """Three parts of images, each its own state: precision, recall and every summary number equal lvis-api's
    (the per-image limit below the most results of an image, so that it is exercised)."""
    dataset, results = lvis_dataset(seed)
    for result in results:  # lvis-api sorts a result into an area range by its box's w * h when it has a box
        del result["segmentation" if geometry == "bbox" else "bbox"]
    path = tmp_path / "lvis.json"
    path.write_text(json.dumps(dataset))
    reference = lvis_api_run(path, results, "bbox" if geometry == "bbox" else "segm", 12, monkeypatch)
    image_ids = [image["id"] for image in dataset["images"]]
    result, labels = streamed(dataset, results, geometry, 12, parts_of(image_ids, [7, 19]))
    np.testing.assert_array_equal(result.precision[..., 0], reference.eval["precision"], strict=True)
    np.testing.assert_array_equal(result.recall[..., 0], reference.eval["recall"], strict=True)
    ours = {**result.stats, **labels.frequency_stats(result)}
    renamed = {"AR300": "AR@300", "ARs": "ARs@300", "ARm": "ARm@300", "ARl": "ARl@300"}
    assert {renamed.get(name, name): value for name, value in ours.items()} == dict(reference.results)
    assert reference.results["AP50"] > 0.2  # a set where matches happen


@settings(max_examples=15, deadline=None)
@given(cuts=st.lists(st.integers(1, 29), max_size=4), seed=st.integers(0, 3))
def test_any_split_gives_the_one_shot_result(cuts: list[int], seed: int) -> None:
    """However the images are split, the merged states give evaluate_coco's arrays on the whole set, bit for bit."""
    dataset, results = lvis_dataset(seed)
    for result in results:
        del result["segmentation"]
    image_ids = [image["id"] for image in dataset["images"]]
    labels = FederatedLabels.read(dataset, max_per_image=12)
    once = evaluate_coco(lvis_truth(dataset, "bbox"), read_coco_results(results, geometry="bbox").annotations,
                         images=image_ids, categories=[category["id"] for category in dataset["categories"]],
                         max_detections=(300,), federated=labels)  # fmt: skip
    parted, _ = streamed(dataset, results, "bbox", 12, parts_of(image_ids, cuts))
    np.testing.assert_array_equal(parted.precision, once.precision, strict=True)
    np.testing.assert_array_equal(parted.recall, once.recall, strict=True)


def boxes(*rows: Sequence[float]) -> geoiou.Box:
    return geoiou.Box(np.array(rows, dtype=float).reshape(-1, 4))


def test_the_federated_rules_by_hand() -> None:
    """One image holding category 1 (found) and 3 (not exhaustively annotated, its object missed); category 2
    verified absent; category 4 unknown there.

    - the prediction of category 4 is dropped: without it and with it the arrays are the same;
    - the false positive of category 3 is ignored: category 3's precision is 0 (its object is never found)
      rather than undefined, and a second, matching prediction of 3 makes its AP 1 despite the miss's score;
    - the prediction of category 2 is a false positive: category 2 has no truth, so -1, but the same
      prediction against a truth of 2 elsewhere lowers 2's precision.
    """
    labels = FederatedLabels.from_images([{"id": 1, "neg_category_ids": [2], "not_exhaustive_category_ids": [3]}])
    truth = Annotations(image_id=[1, 1], category_id=[1, 3], region=boxes([0, 0, 10, 10], [20, 0, 30, 10]))
    miss_of_3 = [60, 0, 70, 10]
    preds = Annotations(image_id=1, category_id=[1, 2, 3, 4], score=[0.9, 0.8, 0.95, 0.6],
                        region=boxes([0, 0, 10, 10], [40, 0, 50, 10], miss_of_3, [0, 0, 10, 10]))  # fmt: skip
    kwargs: dict[str, Any] = {"categories": [1, 2, 3, 4], "max_detections": (300,), "federated": labels}
    result = evaluate_coco(truth, preds, **kwargs)
    without_4 = evaluate_coco(truth, preds.take([0, 1, 2]), **kwargs)
    np.testing.assert_array_equal(result.precision, without_4.precision)
    # Per-object matches by the input rows: row 3 (category 4) is not evaluated, row 2 (3's miss) is ignored.
    at_50 = result.matches.to_records(0.5)
    assert [record["outcome"] for record in at_50[:4]] == ["true positive", "false positive", "ignored",
                                                            "not evaluated"]  # fmt: skip
    assert result.matches.truth_match[0].tolist() == [0, -1]
    assert result.precision[0, 0, 2, 0, 0] == 0.0  # category 3: its truth is not found, nothing counted against it
    found_3 = Annotations(image_id=1, category_id=[3, 3], score=[0.95, 0.5], region=boxes(miss_of_3, [20, 0, 30, 10]))
    assert evaluate_coco(truth, found_3, **kwargs).per_category()[3]["AP50"] == pytest.approx(1.0)
    plain = evaluate_coco(truth, found_3, categories=[1, 2, 3, 4], max_detections=(300,))
    assert plain.per_category()[3]["AP50"] == pytest.approx(0.5)  # without the rule the miss ranks first
    # Category 2 is negative in image 1: a prediction there counts against category 2's truth of image 2.
    labels_2 = FederatedLabels.from_images(
        [{"id": 1, "neg_category_ids": [2], "not_exhaustive_category_ids": []},
         {"id": 2, "neg_category_ids": [], "not_exhaustive_category_ids": []}])  # fmt: skip
    truth_2 = Annotations(image_id=[2], category_id=[2], region=boxes([0, 0, 10, 10]))
    preds_2 = Annotations(
        image_id=[1, 2], category_id=[2, 2], score=[0.9, 0.5], region=boxes([0, 0, 9, 9], [0, 0, 10, 10])
    )
    counted = evaluate_coco(truth_2, preds_2, images=[1, 2], max_detections=(300,), federated=labels_2)
    assert counted["AP50"] == pytest.approx(0.5)  # the false positive of image 1 ranks first
    unlisted = FederatedLabels.from_images([{"id": k, "neg_category_ids": [], "not_exhaustive_category_ids": []}
                                            for k in (1, 2)])  # fmt: skip
    dropped = evaluate_coco(truth_2, preds_2, images=[1, 2], max_detections=(300,), federated=unlisted)
    assert dropped["AP50"] == pytest.approx(1.0)  # category 2 unknown in image 1: its prediction is not counted


def test_zero_areas_are_not_evaluated() -> None:
    """lvis-api selects objects of area in (0, inf): a ground truth of area 0 is not missed, a flat box not counted."""
    labels = FederatedLabels.from_images([{"id": 1, "neg_category_ids": [], "not_exhaustive_category_ids": []}])
    truth = Annotations(image_id=[1, 1], category_id=[1, 1], region=boxes([0, 0, 10, 10], [20, 0, 30, 10]),
                        area=[100.0, 0.0])  # fmt: skip
    preds = Annotations(image_id=1, category_id=[1, 1], score=[0.9, 0.95], region=boxes([0, 0, 10, 10], [5, 5, 5, 9]))
    result = evaluate_coco(truth, preds, max_detections=(300,), federated=labels)
    assert result["AP"] == pytest.approx(1.0)
    assert evaluate_coco(truth, preds, max_detections=(300,))["AP50"] < 0.5


def test_top_per_image_is_lvis_results_cut() -> None:
    """The best `limit` of an image by score, ties in input order; images in order of first appearance."""
    image = np.array([2, 1, 2, 2, 1])
    score = np.array([0.5, 0.1, 0.9, 0.5, 0.2])
    assert top_per_image(image, score, 2).tolist() == [2, 0, 1, 4]
    assert top_per_image(image, score, -1).tolist() == [0, 1, 2, 3, 4]
    assert top_per_image(image, score, 0).tolist() == []


@pytest.mark.parametrize(
    ("images", "categories", "message"),
    [
        ([{"neg_category_ids": []}], (), "'images[0]' must be an image record with an 'id'"),
        ([{"id": 1, "neg_category_ids": [], "not_exhaustive_category_ids": None}], (),
         """'images[0]["not_exhaustive_category_ids"]' must be a list of category ids (got None)"""),
        ([], [{"id": 1, "frequency": "x"}], """'categories[0]["frequency"]' must be one of ('r', 'c', 'f')"""),
    ],
)  # fmt: skip
def test_bad_labels_are_named(images: Any, categories: Any, message: str) -> None:
    with pytest.raises(InvalidArgumentError) as error:
        FederatedLabels.from_images(images, categories)
    assert str(error.value).startswith(message)


def test_bad_arguments_are_named() -> None:
    with pytest.raises(InvalidArgumentError, match="'max_per_image' must be a count of predictions"):
        FederatedLabels.from_images([], max_per_image=-2)
    with pytest.raises(InvalidArgumentError, match="'federated' must be FederatedLabels or None"):
        CocoEvaluation().update(Annotations(image_id=[], category_id=[], region=boxes()),
                                Annotations(image_id=[], category_id=[], score=[], region=boxes()),
                                federated={"neg_category_ids": []})  # type: ignore[arg-type]  # fmt: skip
    with pytest.raises(InvalidArgumentError, match="'source' must be an LVIS dataset"):
        FederatedLabels.read({"annotations": []})
    one = boxes([0, 0, 1, 1])
    result = evaluate_coco(Annotations(image_id=1, category_id=[1], region=one),
                           Annotations(image_id=1, category_id=[1], score=[1.0], region=one))  # fmt: skip
    with pytest.raises(InvalidArgumentError, match="'categories' must be ids of the evaluated categories"):
        result.stats_of([7])


def test_read_from_a_file(tmp_path: Path) -> None:
    dataset, _ = lvis_dataset(0)
    path = tmp_path / "lvis.json"
    path.write_text(json.dumps(dataset))
    from_file, from_content = FederatedLabels.read(path), FederatedLabels.read(dataset)
    for a, b in zip(from_file.negative + from_file.not_exhaustive, from_content.negative + from_content.not_exhaustive):
        np.testing.assert_array_equal(a, b)
    assert from_file.frequency == {category["id"]: category["frequency"] for category in dataset["categories"]}
