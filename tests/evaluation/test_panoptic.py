"""Panoptic quality: panopticapi's ``pq_compute`` on COCO panoptic files, and PQ of segments given as regions.

The reference is panopticapi itself: cocodataset/panopticapi is not on PyPI, but its evaluation
module is, unchanged, as ``panopticapi-lite`` 0.2.0 (``panopticapi/evaluation.py`` differs from the
repository's only in blank space and two unused imports). It declares ``numpy<2``, so `.ci/run`
installs it without its dependencies (what it imports, NumPy and pillow, is here), as lvis-api and
tidecv. Its single-core function is called (``pq_compute`` forks a pool of every core's workers),
and its own ``pq_average`` makes the numbers.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geoiou
from geoiou.evaluation import Annotations
from geoiou.evaluation.panoptic import PanopticEvaluation, evaluate_panoptic
from geoiou.io import read_coco_panoptic
from geoiou.tables.panoptic import PanopticMaps
from tests.panoptic_datasets import CATEGORIES, write_panoptic_dataset

panopticapi = pytest.importorskip("panopticapi.evaluation")


def reference_pq(truth_json: Path, predictions_json: Path) -> dict[str, Any]:
    """panopticapi's results for two files, on one core (its pq_compute's steps, without the process pool)."""
    truth, found = json.loads(truth_json.read_text()), json.loads(predictions_json.read_text())
    categories = {c["id"]: c for c in truth["categories"]}
    by_image = {a["image_id"]: a for a in found["annotations"]}
    pairs = [(a, by_image[a["image_id"]]) for a in truth["annotations"]]
    with contextlib.redirect_stdout(io.StringIO()):
        stat = panopticapi.pq_compute_single_core(
            0, pairs, str(truth_json)[: -len(".json")], str(predictions_json)[: -len(".json")], categories
        )
    results = {}
    for name, isthing in (("All", None), ("Things", True), ("Stuff", False)):
        results[name], per_class = stat.pq_average(categories, isthing=isthing)
        if name == "All":
            results["per_class"] = per_class
    return results


def assert_like_panopticapi(reference: dict[str, Any], ours: dict[str, Any]) -> None:
    """Counts equal; PQ, SQ and RQ equal to rounding (panopticapi adds IoUs in its order, geoiou exactly)."""
    for name in ("All", "Things", "Stuff"):
        assert reference[name]["n"] == ours[name]["n"]
        for key in ("pq", "sq", "rq"):
            assert ours[name][key] == pytest.approx(reference[name][key], rel=1e-13, abs=1e-15), (name, key)
    assert list(reference["per_class"]) == list(ours["per_class"])
    for category, scores in reference["per_class"].items():
        for key in ("pq", "sq", "rq"):
            assert ours["per_class"][category][key] == pytest.approx(scores[key], rel=1e-13, abs=1e-15)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_files_equal_panopticapi(seed: int, tmp_path: Path) -> None:
    truth_json, predictions_json = write_panoptic_dataset(tmp_path, seed)
    reference = reference_pq(truth_json, predictions_json)
    truth, found = read_coco_panoptic(truth_json), read_coco_panoptic(predictions_json)
    result = evaluate_panoptic(truth, found)
    assert_like_panopticapi(reference, result.to_panopticapi())
    assert 0.2 < result["PQ"] < 0.95 and result["PQ_th"] != result["PQ_st"]
    assert result.tp.sum() > 10 and result.fp.sum() > 0 and result.fn.sum() > 0


def test_split_parts_merge_to_the_one_call_result(tmp_path: Path) -> None:
    truth_json, predictions_json = write_panoptic_dataset(tmp_path, 3, n_images=6)
    truth, found = read_coco_panoptic(truth_json), read_coco_panoptic(predictions_json)
    whole = evaluate_panoptic(truth, found)
    states = []
    for images in ([0, 1], [2, 3, 4, 5]):
        part = _subset(truth, images)
        states.append(PanopticEvaluation(categories=CATEGORIES).update(part, found))
    merged = states[1].merge(states[0]).compute()  # any order: the IoU sums are exactly rounded
    for name in ("tp", "fp", "fn", "iou_sum"):
        np.testing.assert_array_equal(getattr(merged, name), getattr(whole, name))
    assert merged["PQ"] == whole["PQ"]
    with pytest.raises(ValueError, match="image 1 in 2 parts"):
        states[0].merge(states[0]).compute()


def _subset(maps: PanopticMaps, images: list[int]) -> PanopticMaps:
    rows = np.concatenate([np.arange(maps.segment_start[k], maps.segment_start[k + 1]) for k in images])
    return PanopticMaps(
        maps.image_id[images],
        lambda k: maps.load(images[k]),
        segment_image=np.repeat(maps.image_id[images], np.diff(maps.segment_start)[images]),
        segment_id=maps.segment_id[rows],
        category_id=maps.category_id[rows],
        iscrowd=maps.iscrowd[rows],
        area=None if maps.area is None else maps.area[rows],
        categories=maps.categories,
    )


def _segments_as(maps: PanopticMaps, kind: str) -> Annotations:
    """Each segment of the maps as a region: its pixels as an RLE mask, or as their exact outline (polygons)."""
    regions, image_ids = [], []
    for k in range(len(maps)):
        pixels = maps.load(k).astype(np.int64)
        ids = pixels[..., 0] + 256 * pixels[..., 1] + 65536 * pixels[..., 2]
        segment_ids = maps.segment_id[maps.segment_start[k] : maps.segment_start[k + 1]]
        regions.append(geoiou.Mask(ids[None] == segment_ids[:, None, None]))
        image_ids.append(np.full(len(segment_ids), maps.image_id[k]))
    masks = geoiou.Mask.concatenate(regions)
    region = masks if kind == "mask" else masks.to_polygons()
    return Annotations(image_id=np.concatenate(image_ids), category_id=maps.category_id, region=region,
                       iscrowd=maps.iscrowd)  # fmt: skip


@pytest.mark.parametrize("kind", ["mask", "polygon"])
def test_regions_give_the_maps_result(kind: str, tmp_path: Path) -> None:
    # Without the ground truth's area field (the pixels then), the same segments as masks or as their exact
    # outlines give the maps' counts and IoUs: polygons of pixel squares have the pixels' areas.
    truth_json, predictions_json = write_panoptic_dataset(tmp_path, 4, n_images=4)
    truth, found = read_coco_panoptic(truth_json), read_coco_panoptic(predictions_json)
    truth.area = None
    from_maps = evaluate_panoptic(truth, found)
    from_regions = evaluate_panoptic(_segments_as(truth, kind), _segments_as(found, kind), categories=CATEGORIES)
    for name in ("tp", "fp", "fn"):
        np.testing.assert_array_equal(getattr(from_regions, name), getattr(from_maps, name))
    np.testing.assert_allclose(from_regions.iou_sum, from_maps.iou_sum, rtol=1e-12)


def test_vector_pq_differs_from_the_raster_answer() -> None:
    # A building footprint and a prediction whose exact IoU is just above 0.5; rasterized by pixel centres, the
    # prediction's thin sliver is lost and the pair no longer matches (the docs' example).
    truth_region = geoiou.Polygon([(0, 0), (10, 0), (10, 10), (0, 10)])
    found_region = geoiou.Polygon([(0, 0), (10, 0), (10, 5.4), (0, 5.4)])
    truth = Annotations(image_id=[1], category_id=[1], region=truth_region.reshape(1))
    found = Annotations(image_id=[1], category_id=[1], region=found_region.reshape(1))
    exact = evaluate_panoptic(truth, found)
    assert exact["PQ"] == pytest.approx(0.54) and exact["RQ"] == 1.0  # IoU 54 / 100 > 0.5
    raster = geoiou.Mask.from_polygon(found_region, shape=(12, 12), rule="centre")
    rasterized = Annotations(image_id=[1], category_id=[1], region=raster.reshape(1))
    truth_raster = Annotations(
        image_id=[1],
        category_id=[1],
        region=geoiou.Mask.from_polygon(truth_region, shape=(12, 12), rule="centre").reshape(1),
    )
    assert evaluate_panoptic(truth_raster, rasterized)["PQ"] == 0.0  # 50 of 100 pixels: IoU 0.5 is no match


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**16), st.sampled_from(["mask", "polygon"]))
def test_a_map_against_itself_is_perfect(seed: int, kind: str) -> None:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 4, (6, 7)).repeat(2, axis=0)  # 0 is void
    ids = np.unique(labels[labels > 0])
    maps = PanopticMaps([1], [labels], segment_image=np.ones(len(ids), np.int64), segment_id=ids,
                        category_id=ids % 2 + 1)  # fmt: skip
    result = evaluate_panoptic(maps, maps)
    if len(ids):
        assert result["PQ"] == 1.0 and result["SQ"] == 1.0 and result["RQ"] == 1.0
    regions = _segments_as_ids(labels, ids, kind)
    assert evaluate_panoptic(regions, regions)["PQ"] == (1.0 if len(ids) else 0.0) or not len(ids)


def _segments_as_ids(labels: np.ndarray, ids: np.ndarray, kind: str) -> Annotations:
    masks = geoiou.Mask(labels[None] == ids[:, None, None])
    return Annotations(image_id=np.ones(len(ids), np.int64), category_id=ids % 2 + 1,
                       region=masks if kind == "mask" else masks.to_polygons())  # fmt: skip


def test_refusals(tmp_path: Path) -> None:
    ids = np.array([[1, 2]])
    truth = PanopticMaps([1], [ids], segment_image=[1, 1], segment_id=[1, 2], category_id=[1, 1])
    with pytest.raises(ValueError, match="unlisted ids \\[2\\]"):
        evaluate_panoptic(truth, PanopticMaps([1], [ids], segment_image=[1], segment_id=[1], category_id=[1]))
    with pytest.raises(ValueError, match="segment 3 not in image 1"):
        found = PanopticMaps([1], [ids], segment_image=[1, 1, 1], segment_id=[1, 2, 3], category_id=[1, 1, 1])
        evaluate_panoptic(truth, found)
    with pytest.raises(ValueError, match="none for image 1"):
        evaluate_panoptic(truth, PanopticMaps([2], [ids], segment_image=[2, 2], segment_id=[1, 2], category_id=[1, 1]))
    with pytest.raises(ValueError, match="'predictions' must be a map of the ground truth's size"):
        evaluate_panoptic(
            truth, PanopticMaps([1], [ids.T], segment_image=[1, 1], segment_id=[1, 2], category_id=[1, 1])
        )
    with pytest.raises(ValueError, match="'predictions.category_id' must be one of the evaluated categories"):
        evaluate_panoptic(truth, PanopticMaps([1], [ids], segment_image=[1, 1], segment_id=[1, 2], category_id=[1, 9]),
                          categories=[1])  # fmt: skip
    with pytest.raises(ValueError, match="'segment_id' must be integers in \\[1, 16777215\\]"):
        PanopticMaps([1], [ids], segment_image=[1], segment_id=[0], category_id=[1])
    overlapping = Annotations(image_id=[1, 1], category_id=[1, 1], region=geoiou.Box([[0, 0, 4, 4], [0, 0, 4, 4]]))
    single = Annotations(image_id=[1], category_id=[1], region=geoiou.Box([[0, 0, 4, 4]]))
    with pytest.raises(ValueError, match="'predictions' must be segments that do not overlap"):
        evaluate_panoptic(single, overlapping)
    with pytest.raises(ValueError, match="'ground_truth' must be segments that do not overlap"):
        evaluate_panoptic(overlapping, single)
    (tmp_path / "bad.json").write_text(json.dumps({"annotations": [{"image_id": 1, "file_name": "x.png"}]}))
    with pytest.raises(geoiou.FormatError, match="annotations\\[0\\]"):
        read_coco_panoptic(tmp_path / "bad.json")


def test_void_and_crowd_rules_as_panopticapi(tmp_path: Path) -> None:
    # One 4 x 8 image. Ground truth: segment 1 (cat 1) left half, crowd regions 2 and 3 (both cat 2, 3 listed last),
    # void elsewhere. Predictions: 10 on segment 1 and two void pixels (IoU 8 / (10 + 8 - 8 - 2) = 1), 11 on crowd 2
    # (cat 2: crowd 2 is not the last crowd region of cat 2, so 11 is a false positive, as panopticapi counts it),
    # 12 on crowd 3 (ignored), 13 mostly on void (ignored).
    from PIL import Image

    truth_ids = np.array([[1, 1, 2, 2, 3, 3, 0, 0]] * 4)
    found_ids = np.array([[10, 10, 11, 11, 12, 12, 13, 13]] * 4)
    found_ids[0, 6:] = 10
    categories = [
        {"id": 1, "name": "a", "isthing": 1},
        {"id": 2, "name": "b", "isthing": 0},
    ]  # stuff: panopticapi divides by zero without any
    documents = {
        "truth": [
            {"id": 1, "category_id": 1, "iscrowd": 0, "area": 8},
            {"id": 2, "category_id": 2, "iscrowd": 1, "area": 8},
            {"id": 3, "category_id": 2, "iscrowd": 1, "area": 8},
        ],  # fmt: skip
        "found": [{"id": i, "category_id": c} for i, c in ((10, 1), (11, 2), (12, 2), (13, 2))],
    }
    paths = {}
    for side, ids in (("truth", truth_ids), ("found", found_ids)):
        (tmp_path / side).mkdir()
        rgb = np.stack([ids % 256, ids // 256 % 256, ids // 65536], axis=-1).astype(np.uint8)
        Image.fromarray(rgb).save(tmp_path / side / "1.png")
        annotation = {"image_id": 1, "file_name": "1.png", "segments_info": documents[side]}
        paths[side] = tmp_path / f"{side}.json"
        paths[side].write_text(json.dumps({"annotations": [annotation], "categories": categories}))
    reference = reference_pq(paths["truth"], paths["found"])
    result = evaluate_panoptic(read_coco_panoptic(paths["truth"]), read_coco_panoptic(paths["found"]))
    assert_like_panopticapi(reference, result.to_panopticapi())
    assert result.tp.tolist() == [1, 0] and result.fp.tolist() == [0, 1] and result.fn.tolist() == [0, 0]
    assert result.iou_sum.tolist() == [1.0, 0.0]


def test_png_maps_read_as_panopticapi_reads_them_and_bad_ones_are_refused(tmp_path: Path) -> None:
    from PIL import Image

    from geoiou.io.coco_panoptic import read_panoptic_png
    from panopticapi.utils import rgb2id

    rng = np.random.default_rng(26)
    rgba = rng.integers(0, 256, (6, 7, 4), dtype=np.uint8)
    for name, pixels in (("rgb", rgba[..., :3]), ("rgba", rgba)):
        Image.fromarray(pixels).save(tmp_path / f"{name}.png")
        # panopticapi's own reading: np.array of the image, then rgb2id of its first three channels
        expected = rgb2id(np.array(Image.open(tmp_path / f"{name}.png"), dtype=np.uint32))
        colours = read_panoptic_png(tmp_path / f"{name}.png").astype(np.int64)
        np.testing.assert_array_equal(colours[..., 0] + 256 * colours[..., 1] + 65536 * colours[..., 2], expected)
    Image.fromarray(rgba[..., :3]).convert("P").save(tmp_path / "palette.png")
    shown = np.asarray(Image.open(tmp_path / "palette.png").convert("RGB"))
    np.testing.assert_array_equal(read_panoptic_png(tmp_path / "palette.png"), shown)  # the colours it shows
    Image.fromarray(rng.integers(0, 65536, (4, 4), dtype=np.uint16)).save(tmp_path / "deep.png")
    with pytest.raises(geoiou.FormatError, match="deep.png: a panoptic map must have 8-bit colours .* not 'I;16'"):
        read_panoptic_png(tmp_path / "deep.png")
    whole = (tmp_path / "rgb.png").read_bytes()
    (tmp_path / "cut.png").write_bytes(whole[: len(whole) // 2])  # the pixel data cut in half
    (tmp_path / "text.png").write_text("not an image")
    for name in ("cut.png", "text.png", "missing.png"):
        with pytest.raises(geoiou.FormatError, match=f"{name}: not a readable PNG map"):
            read_panoptic_png(tmp_path / name)
