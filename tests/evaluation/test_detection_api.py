"""Detection evaluation: the input records, bad input, the result objects, and kinds other than boxes."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import shapely

import geoiou
from geoiou.errors import InvalidArgumentError, UnsupportedPairError
from geoiou.evaluation import Annotations, evaluate_coco, evaluate_voc


def boxes(*coords: list[float]) -> geoiou.Box:
    return geoiou.Box(np.array(coords, dtype=float).reshape(-1, 4))


@pytest.fixture
def scene() -> tuple[Annotations, Annotations]:
    truth = Annotations(
        image_id=[1, 1, 2, 3],
        category_id=["cat", "dog", "cat", "dog"],
        region=boxes([0, 0, 10, 10], [20, 20, 40, 40], [5, 5, 15, 25], [0, 0, 50, 50]),
        iscrowd=[0, 0, 0, 1],
    )
    predictions = Annotations(
        image_id=[1, 1, 2, 2, 3],
        category_id=["cat", "dog", "cat", "cat", "dog"],
        score=[0.9, 0.8, 0.7, 0.7, 0.2],
        region=boxes([0, 0, 10, 10], [22, 20, 40, 40], [5, 5, 15, 20], [60, 60, 70, 70], [1, 1, 5, 5]),
    )
    return truth, predictions


# --------------------------------------------------------------------------- inputs
def test_records_and_columns_are_the_same_input(scene) -> None:
    truth, predictions = scene
    records = [
        {"image_id": 1, "category_id": ["cat", "dog"], "region": boxes([0, 0, 10, 10], [20, 20, 40, 40])},
        {"image_id": 2, "category_id": "cat", "region": boxes([5, 5, 15, 25])},
        {"image_id": 3, "category_id": "dog", "region": geoiou.Box([0, 0, 50, 50]), "iscrowd": True},
    ]
    from_records = Annotations.from_records(records)
    assert from_records.image_id.tolist() == [1, 1, 2, 3]
    assert from_records.iscrowd.tolist() == [False, False, False, True]
    expected = evaluate_coco(truth, predictions)
    assert evaluate_coco(from_records, predictions).stats == expected.stats
    assert evaluate_coco(records, predictions).stats == expected.stats  # records accepted directly
    columns = {
        "image_id": predictions.image_id,
        "category_id": predictions.category_id,
        "region": predictions.regions,
        "score": predictions.score,
    }
    assert evaluate_coco(truth, columns).stats == expected.stats  # so is a mapping of columns


def test_annotations_describe_themselves(scene) -> None:
    truth, predictions = scene
    assert len(truth) == 4 and truth.kinds == ("Box",)
    assert repr(predictions) == "<Annotations 5 rows; kinds Box; score>"
    with pytest.raises(AttributeError):
        truth.score = [1.0]
    with pytest.raises(ValueError):
        truth.image_id[0] = 5  # read-only columns


def test_single_ids_are_repeated_and_region_pieces_follow_one_another() -> None:
    mixed = Annotations(
        image_id=7,
        category_id="a",
        region=[
            geoiou.Polygon([(0, 0), (4, 0), (0, 4)]),
            geoiou.Mask(np.ones((2, 3, 3), dtype=bool)),
            geoiou.Box([0, 0, 1, 1]),
        ],
    )
    assert len(mixed) == 4
    assert mixed.image_id.tolist() == [7, 7, 7, 7]
    assert mixed.kinds == ("Box", "Mask", "Polygon")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"score": [0.5, float("nan")]}, "'score' must be real numbers (no NaN) (got 'NaN at row 1')"),
        ({"score": [0.5]}, "'score' must be one number per region, shape (2,) (got 'shape (1,)')"),
        ({"iscrowd": [0, 2]}, "'iscrowd' must be booleans or 0/1 (got 2)"),
        ({"area": [1.0, -1.0]}, "'area' must be finite and non-negative (got '-1.0 at row 1')"),
        ({"image_id": [1.5, 2.5]}, "'image_id' must be integer or string ids (got 'dtype float64')"),
        ({"category_id": [1, 2, 3]}, "'category_id' must be one id per region, shape (2,) (got 'shape (3,)')"),
        ({"region": [geoiou.Box([0, 0, 1, 1]), geoiou.Interval([0, 1])]}, "'region' must be regions of one dimension"),
        ({"region": np.zeros((2, 4))}, "'region' must be a geoiou Region batch of shape (N,)"),
        ({"region": geoiou.Box(np.zeros((1, 2, 4)))}, "'region' must be a batch of shape (N,)"),
    ],
)
def test_bad_annotations_are_refused(kwargs: dict, message: str) -> None:
    arguments = {"image_id": [1, 2], "category_id": [1, 1], "region": boxes([0, 0, 1, 1], [0, 0, 2, 2]), **kwargs}
    with pytest.raises(InvalidArgumentError) as error:
        Annotations(**arguments)
    assert str(error.value).startswith(message)


def test_bad_records_are_refused() -> None:
    one = {"image_id": 1, "category_id": 1, "region": boxes([0, 0, 1, 1])}
    with pytest.raises(InvalidArgumentError, match="'records\\[0\\]' must be a mapping with keys among"):
        Annotations.from_records([{**one, "bbox": [0, 0, 1, 1]}])
    with pytest.raises(InvalidArgumentError, match="'records\\[0\\]' must be a mapping with the key 'region'"):
        Annotations.from_records([{"image_id": 1, "category_id": 1}])
    with pytest.raises(
        InvalidArgumentError, match="'records\\[1\\]' must be a mapping with 'score' like the other records"
    ):
        Annotations.from_records([{**one, "score": [0.5]}, one])
    with pytest.raises(InvalidArgumentError, match="'records\\[0\\]\\[\"image_id\"\\]' must be a single id"):
        Annotations.from_records([{**one, "image_id": [1, 2]}])
    assert len(Annotations.from_records([])) == 0


# --------------------------------------------------------------------------- bad evaluations
def test_unknown_images_and_categories_are_errors(scene) -> None:
    truth, predictions = scene
    stray = Annotations(image_id=[9], category_id=["cat"], region=boxes([0, 0, 1, 1]), score=[0.5])
    with pytest.raises(InvalidArgumentError) as error:
        evaluate_coco(truth, stray)
    assert str(error.value) == (
        "'predictions.image_id' must be one of the evaluated images of the ground truth; pass "
        "images=[...] to evaluate images without ground truth (got '9 at row 0')"
    )
    assert evaluate_coco(truth, stray, images=[1, 2, 3, 9])["AP"] == 0.0  # listed: a false positive
    with pytest.raises(InvalidArgumentError, match="'predictions.category_id' must be one of the categories"):
        evaluate_coco(truth, Annotations(image_id=[1], category_id=["cow"], region=boxes([0, 0, 1, 1]), score=[0.5]))
    with pytest.raises(InvalidArgumentError, match="'ground_truth.category_id' must be one of the categories listed"):
        evaluate_coco(truth, predictions, categories=["cat"])
    with pytest.raises(InvalidArgumentError, match="'predictions.image_id' must be one of the evaluated images"):
        evaluate_coco(truth, Annotations(image_id=["1"], category_id=["cat"], region=boxes([0, 0, 1, 1]), score=[0.5]))


def test_scores_belong_to_predictions_only(scene) -> None:
    truth, predictions = scene
    with pytest.raises(InvalidArgumentError, match="'ground_truth.score' must be None"):
        evaluate_coco(predictions, predictions)
    with pytest.raises(InvalidArgumentError, match="'predictions.score' must be one score per prediction"):
        evaluate_coco(truth, truth)
    crowded = Annotations(image_id=[1], category_id=["cat"], region=boxes([0, 0, 1, 1]), score=[0.5], iscrowd=[1])
    with pytest.raises(InvalidArgumentError, match="'predictions.iscrowd' must be None"):
        evaluate_coco(truth, crowded)
    with pytest.raises(InvalidArgumentError, match="'ground_truth' must be Annotations, a mapping of columns"):
        evaluate_coco("truth.json", predictions)


def test_masks_must_have_their_image_size() -> None:
    truth = Annotations(image_id=[1], category_id=[1], region=geoiou.Mask(np.ones((1, 4, 6), dtype=bool)))
    wrong = Annotations(image_id=[1], category_id=[1], region=geoiou.Mask(np.ones((1, 2, 3), dtype=bool)), score=[0.9])
    with pytest.raises(InvalidArgumentError) as error:
        evaluate_coco(truth, wrong, images={1: (4, 6)})
    assert str(error.value) == (
        "'predictions.region' must be masks of their image's size at origin (0, 0): 4x6 pixels "
        "for image 1 (got 'a 2x3 mask at origin (0, 0) at row 0')"
    )
    moved = Annotations(
        image_id=[1], category_id=[1], region=geoiou.Mask(np.ones((1, 4, 6), dtype=bool), origin=(1, 0)), score=[0.9]
    )
    with pytest.raises(InvalidArgumentError, match="at origin \\(1, 0\\) at row 0"):
        evaluate_coco(truth, moved, images={1: (4, 6)})
    # Without image sizes, masks are regions like any other: compared exactly wherever they lie.
    assert evaluate_coco(truth, wrong)["AP"] == 0.0
    with pytest.raises(InvalidArgumentError, match="'images\\[1\\]' must be the image size \\(height, width\\)"):
        evaluate_coco(truth, wrong, images={1: (4, 0)})


def test_intervals_cannot_meet_2d_regions() -> None:
    truth = Annotations(image_id=[1], category_id=[1], region=geoiou.Interval([[0, 5]]))
    predictions = Annotations(image_id=[1], category_id=[1], region=boxes([0, 0, 5, 5]), score=[0.5])
    with pytest.raises(InvalidArgumentError, match="'predictions.region' must be of a kind comparable"):
        evaluate_coco(truth, predictions)


def test_unsupported_pairs_surface(scene) -> None:
    class Strange(geoiou.Box):
        pass

    truth, _ = scene
    predictions = Annotations(image_id=[1], category_id=["cat"], score=[0.5], region=Strange([[0.0, 0, 1, 1]]))
    with pytest.raises(UnsupportedPairError):
        evaluate_coco(truth, predictions)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"iou_thresholds": [0.5, 1.5]}, "'iou_thresholds' must be numbers in (0, 1] (got 1.5)"),
        ({"iou_thresholds": [0.7, 0.5]}, "'iou_thresholds' must be increasing"),
        ({"recall_thresholds": []}, "'recall_thresholds' must be a non-empty sequence of numbers"),
        ({"max_detections": (0, 10)}, "'max_detections' must be a sequence of positive integers"),
        ({"area_ranges": {"all": (10, 0)}}, "'area_ranges[\"all\"]' must be a pair (low, high) with low <= high"),
        ({"polygon_iou": "raster"}, "'polygon_iou' must be one of ('exact', 'pycocotools') (got 'raster')"),
        ({"polygon_iou": "pycocotools"}, "'images' must be a mapping {image_id: (height, width)} with polygon_iou"),
        ({"images": 3}, "'images' must be a sequence of image ids or a mapping"),
    ],
)
def test_bad_coco_options_are_refused(scene, options: dict, message: str) -> None:
    with pytest.raises(InvalidArgumentError) as error:
        evaluate_coco(*scene, **options)
    assert str(error.value).startswith(message)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"iou_threshold": 1.0}, "'iou_threshold' must be a number in [0, 1) (got 1.0)"),
        ({"interpolation": "101point"}, "'interpolation' must be one of ('all', '11point') (got '101point')"),
    ],
)
def test_bad_voc_options_are_refused(scene, options: dict, message: str) -> None:
    truth, predictions = scene
    plain = Annotations(image_id=truth.image_id, category_id=truth.category_id, region=truth.regions)
    with pytest.raises(InvalidArgumentError) as error:
        evaluate_voc(plain, predictions, **options)
    assert str(error.value) == message
    with pytest.raises(InvalidArgumentError, match="'ground_truth.iscrowd' must be unset or all false for VOC"):
        evaluate_voc(truth, predictions)


def test_polygons_with_holes_have_no_coco_raster() -> None:
    ring = shapely.Polygon([(0, 0), (10, 0), (10, 10), (0, 10)], [[(2, 2), (4, 2), (4, 4), (2, 4)]])
    truth = Annotations(image_id=[1], category_id=[1], region=geoiou.Polygon.from_shapely(ring))
    predictions = Annotations(image_id=[1], category_id=[1], region=boxes([0, 0, 10, 10]), score=[0.5])
    with pytest.raises(InvalidArgumentError, match="polygons without holes for polygon_iou='pycocotools'"):
        evaluate_coco(truth, predictions, images={1: (12, 12)}, polygon_iou="pycocotools")
    assert evaluate_coco(truth, predictions, images={1: (12, 12)})["AP50"] == pytest.approx(1.0)  # IoU 0.96


# --------------------------------------------------------------------------- results
def test_coco_result_outputs(scene) -> None:
    result = evaluate_coco(*scene)
    lines = result.summary().splitlines()
    assert len(lines) == 12
    assert (
        lines[0]
        == " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = " + f"{result['AP']:0.3f}"
    )
    assert lines[6].startswith(" Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=  1 ]")
    assert list(result.stats) == [
        "AP",
        "AP50",
        "AP75",
        "APs",
        "APm",
        "APl",
        "AR1",
        "AR10",
        "AR100",
        "ARs",
        "ARm",
        "ARl",
    ]
    assert result.stats_array.shape == (12,)
    assert result.precision.shape == (10, 101, 2, 4, 3) and result.recall.shape == (10, 2, 4, 3)
    assert result.categories.tolist() == ["cat", "dog"]
    per = result.per_category()
    assert set(per) == {"cat", "dog"}
    assert result["AP"] == pytest.approx((per["cat"]["AP"] + per["dog"]["AP"]) / 2)
    as_dict = json.loads(result.to_json())
    assert as_dict["stats"] == pytest.approx(result.stats)
    assert as_dict["per_category"][0]["category_id"] == "cat"
    assert "precision" not in as_dict and len(result.to_dict(arrays=True)["precision"]) == 10
    with pytest.raises(KeyError, match="no summary number 'mAP'"):
        result["mAP"]
    assert repr(result).startswith("<CocoResult AP=")


def test_crowd_dog_has_no_regular_truth(scene) -> None:
    # Image 3's dog is a crowd region: the prediction inside it is ignored, and "dog" counts one object.
    result = evaluate_coco(*scene)
    assert result.per_category()["dog"]["AR100"] == pytest.approx(0.9)  # IoU 0.9: found up to 0.9
    assert result.per_category()["cat"]["AR1"] == pytest.approx(0.8)  # IoU 1 and 0.75


def test_categories_without_truth_get_minus_one_and_no_truth_at_all() -> None:
    truth = Annotations(image_id=[1], category_id=[1], region=boxes([0, 0, 10, 10]))
    predictions = Annotations(
        image_id=[1, 1], category_id=[1, 2], region=boxes([0, 0, 10, 10], [0, 0, 5, 5]), score=[0.9, 0.8]
    )
    result = evaluate_coco(truth, predictions, categories=[1, 2])
    assert result.per_category()[2] == dict.fromkeys(result.stats, -1.0)
    assert result["AP"] == pytest.approx(1.0)  # category 2 left out of the mean
    empty = evaluate_coco(
        Annotations(image_id=[], category_id=[], region=[]),
        Annotations(image_id=[], category_id=[], region=[], score=[]),
    )
    assert empty.stats == dict.fromkeys(empty.stats, -1.0)
    nothing_found = evaluate_coco(truth, Annotations(image_id=[], category_id=[], region=[], score=[]))
    assert nothing_found["AP"] == 0.0 and nothing_found["AR100"] == 0.0


def test_other_settings_rename_the_summary(scene) -> None:
    result = evaluate_coco(
        *scene, max_detections=[5, 1], area_ranges={"all": (0, 1e10), "tiny": (0, 50)}, iou_thresholds=[0.5, 0.6]
    )
    assert list(result.stats) == ["AP", "AP50", "AP75", "AP_tiny", "AR1", "AR5", "AR_tiny"]
    assert result["AP75"] == -1.0  # no threshold 0.75: nothing to average, as COCOeval prints it
    assert "maxDets=  5" in result.summary()


def test_progress_bar_draws_on_request(scene, capsys) -> None:
    evaluate_coco(*scene, show_progress=True)
    assert "COCO matching" in capsys.readouterr().err
    evaluate_coco(*scene)
    assert capsys.readouterr().err == ""


# --------------------------------------------------------------------------- other kinds
def test_the_same_boxes_in_every_2d_kind_give_the_same_numbers() -> None:
    rng = np.random.default_rng(0)
    xyxy = np.round(rng.uniform(0, 100, (40, 4)))
    truth_xyxy = np.c_[np.minimum(xyxy[:, :2], xyxy[:, 2:]), np.maximum(xyxy[:, :2], xyxy[:, 2:]) + 1]
    pred_xyxy = truth_xyxy[rng.integers(0, 40, 60)] + np.round(rng.normal(0, 2, (60, 4)))
    pred_xyxy[:, 2:] = np.maximum(pred_xyxy[:, 2:], pred_xyxy[:, :2] + 1)
    image, category = rng.integers(0, 8, 40), rng.integers(0, 2, 40)
    which = rng.integers(0, 40, 60)
    truth_boxes, pred_boxes = geoiou.Box(truth_xyxy), geoiou.Box(pred_xyxy)
    predictions = Annotations(
        image_id=image[which], category_id=category[which], region=pred_boxes, score=np.round(rng.random(60), 1)
    )
    expected = evaluate_coco(
        Annotations(image_id=image, category_id=category, region=truth_boxes), predictions, images=range(8)
    )
    for converted in (truth_boxes.to_rotated_box(), truth_boxes.to_polygon()):
        got = evaluate_coco(
            Annotations(image_id=image, category_id=category, region=converted), predictions, images=range(8)
        )
        np.testing.assert_allclose(got.stats_array, expected.stats_array, atol=1e-12)
    voc = evaluate_voc(
        Annotations(image_id=image, category_id=category, region=truth_boxes.to_polygon()), predictions, images=range(8)
    )
    assert 0 < voc.mAP <= 1


def test_temporal_intervals() -> None:
    truth = Annotations(
        image_id=["video"] * 3,
        category_id=["jump", "jump", "run"],
        region=geoiou.Interval([[0, 10], [30, 35], [12, 20]]),
    )
    predictions = Annotations(
        image_id="video",
        category_id=["jump", "jump", "run"],
        score=[0.9, 0.4, 0.8],
        region=geoiou.Interval([[1, 10], [29, 35], [12, 30]]),
    )
    result = evaluate_coco(truth, predictions, area_ranges={"all": (0, math.inf)})
    # jump: IoU 0.9 and 5/6, both found up to 0.8, one at 0.85 and 0.9; run: IoU 8/18, below every threshold.
    assert result.per_category()["run"]["AP"] == 0.0
    assert result.per_category()["jump"]["AR100"] == pytest.approx((7 * 1.0 + 2 * 0.5) / 10)
    assert evaluate_voc(truth, predictions).ap.tolist() == [1.0, 0.0]


def test_results_and_annotations_refuse_with_geoiou_errors(scene) -> None:
    result = evaluate_coco(*scene)
    with pytest.raises(geoiou.UnknownNameError, match=r"no summary number 'AP60'; there are \['AP', 'AP50'"):
        result["AP60"]
    with pytest.raises(KeyError):  # still a KeyError for code that catches one
        result["AP60"]
    with pytest.raises(geoiou.FrozenRegionError, match="Annotations is immutable \\(setting 'score'\\)"):
        scene[1].score = None
