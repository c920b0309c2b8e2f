"""COCO dataset and result files: pycocotools agreement, RLE round trips, and every error path.

The datasets are synthetic but shaped like COCO's: images of several sizes (one without objects),
several categories (one without objects), polygon objects of one or two parts, crowd regions as
uncompressed RLE, objects as compressed RLE, and result files of boxes and of RLE masks with tied
scores.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import shapely
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import geoiou
from geoiou.errors import FormatError, InvalidArgumentError
from geoiou.evaluation import Annotations, evaluate_coco
from geoiou.io.coco import read_coco, read_coco_results, write_coco_results
from tests.peers import run_cocoeval

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")

coco = pytest.importorskip("pycocotools.coco")
cocoeval = pytest.importorskip("pycocotools.cocoeval")
mask_utils = pytest.importorskip("pycocotools.mask")

#: Box sides: 0, or large enough that corners up to 1e4 keep them. Box refuses a positive size that x + w rounds
#: away (1 + 1e-100 == 1, issue 24 item 2); below ulp(1e4) / 1e-6, about 2e-6, a size is not kept to a millionth.
SIZES = st.one_of(st.just(0.0), st.floats(1e-3, 1e3))
SETTINGS = settings(max_examples=30, deadline=None, derandomize=True, database=None)


# --------------------------------------------------------------------------- helpers
def encode(mask: np.ndarray) -> dict:
    """pycocotools' compressed RLE of a boolean mask, with a JSON string for the counts."""
    rle = mask_utils.encode(np.asfortranarray(mask.astype(np.uint8)))
    return {"size": [int(n) for n in rle["size"]], "counts": rle["counts"].decode("ascii")}


def uncompressed(mask: np.ndarray) -> dict:
    """COCO's crowd form: the run lengths as a list, written independently of geoiou.rle."""
    flat = mask.ravel(order="F").astype(np.int8)
    edges = np.flatnonzero(np.diff(np.r_[0, flat, 0]))
    counts = np.diff(np.r_[0, edges]).tolist()
    if sum(counts) < flat.size:
        counts.append(flat.size - sum(counts))
    return {"size": list(mask.shape), "counts": counts}


def write_json(path, content) -> str:
    path.write_text(json.dumps(content))
    return str(path)


def star(rng: np.random.Generator, cx: float, cy: float, radius: float) -> np.ndarray:
    """A simple star-shaped ring (vertices sorted by angle), coordinates with two decimals as in COCO."""
    n = int(rng.integers(4, 10))
    angles = np.sort(rng.uniform(0, 2 * np.pi, n))
    radii = rng.uniform(0.5 * radius, radius, n)
    return np.round(np.c_[cx + radii * np.cos(angles), cy + radii * np.sin(angles)], 2)


def realistic_dataset(seed: int) -> tuple[dict, list[dict], list[dict]]:
    """A COCO dataset, a box result file and a mask result file for it."""
    rng = np.random.default_rng(seed)
    sizes = {image: (int(rng.integers(40, 90)), int(rng.integers(40, 100))) for image in range(1, 13)}
    categories = [
        {"id": 1, "name": "person"},
        {"id": 2, "name": "dog"},
        {"id": 4, "name": "kite"},
        {"id": 9, "name": "unseen"},
    ]  # "unseen" has no objects: -1, left out of the means
    annotations, box_results, mask_results = [], [], []
    for image, (h, w) in sizes.items():
        if image == 7:
            continue  # an image without objects (predictions on it are false positives)
        for _ in range(int(rng.integers(1, 6))):
            category = int(rng.choice([1, 2, 4]))
            kind = rng.choice(["polygon", "crowd", "rle"], p=[0.7, 0.15, 0.15])
            if kind == "polygon":
                rings = [star(rng, rng.uniform(5, w / 2), rng.uniform(5, h - 5), rng.uniform(4, 14))]
                if rng.random() < 0.35:  # a second part, right of the first: disjoint
                    rings.append(star(rng, rng.uniform(w / 2 + 18, w + 4), rng.uniform(5, h - 5), rng.uniform(3, 7)))
                geometry = shapely.MultiPolygon([shapely.Polygon(ring) for ring in rings])
                if not geometry.is_valid:
                    continue
                segmentation = [ring.ravel().tolist() for ring in rings]
                raster = mask_utils.decode(mask_utils.merge(mask_utils.frPyObjects(segmentation, h, w))).astype(bool)
            else:
                raster = np.zeros((h, w), dtype=bool)
                y, x = int(rng.integers(0, h - 10)), int(rng.integers(0, w - 10))
                raster[y : y + int(rng.integers(4, h // 2)), x : x + int(rng.integers(4, w // 2))] = True
                raster &= rng.random((h, w)) < 0.9  # ragged, many runs
                segmentation = uncompressed(raster) if kind == "crowd" else encode(raster)
            bbox = [float(v) for v in mask_utils.toBbox(mask_utils.encode(np.asfortranarray(raster.astype(np.uint8))))]
            annotations.append(
                {
                    "id": 100 + len(annotations),
                    "image_id": image,
                    "category_id": category,
                    "segmentation": segmentation,
                    "area": float(raster.sum()),
                    "bbox": bbox,
                    "iscrowd": int(kind == "crowd"),
                }
            )
            for _ in range(int(rng.integers(0, 3))):  # found (maybe twice), a little off
                score = float(np.round(rng.uniform(0.3, 1.0), 1))  # one decimal: tied scores
                shifted = np.roll(raster, tuple(int(v) for v in rng.integers(-2, 3, 2)), axis=(0, 1))
                mask_results.append(
                    {"image_id": image, "category_id": category, "segmentation": encode(shifted), "score": score}
                )
                noisy = np.round(np.array(bbox) + rng.normal(0, 1.5, 4), 2)
                noisy[2:] = np.maximum(noisy[2:], 1)
                box_results.append({"image_id": image, "category_id": category, "bbox": noisy.tolist(), "score": score})
    for image, (h, w) in sizes.items():  # false positives, also on the image without objects
        blob = np.zeros((h, w), dtype=bool)
        blob[5:15, 10:30] = True
        category, score = int(rng.choice([1, 2, 4])), float(np.round(rng.uniform(0, 0.6), 1))
        mask_results.append({"image_id": image, "category_id": category, "segmentation": encode(blob), "score": score})
        box_results.append(
            {"image_id": image, "category_id": category, "bbox": [10.0, 5.0, 20.0, 10.0], "score": score}
        )
    images = [
        {"id": image, "height": h, "width": w, "file_name": f"{image:012d}.jpg"} for image, (h, w) in sizes.items()
    ]
    dataset = {
        "info": {"description": "synthetic"},
        "images": images,
        "annotations": annotations,
        "categories": categories,
    }
    return dataset, box_results, mask_results


# --------------------------------------------------------------------------- agreement with pycocotools
@pytest.mark.parametrize("seed", range(3))
def test_boxes_read_from_files_evaluate_as_cocoeval(tmp_path, seed):
    dataset, box_results, _ = realistic_dataset(seed)
    truth = read_coco(write_json(tmp_path / "instances.json", dataset))
    predictions = read_coco_results(write_json(tmp_path / "boxes.json", box_results))
    assert predictions.geometry == "bbox"
    result = evaluate_coco(
        truth.annotations, predictions.annotations, images=truth.images, categories=list(truth.categories)
    )
    expected = run_cocoeval(dataset, box_results, "bbox").stats
    np.testing.assert_array_equal(result.stats_array, expected)
    assert result["AP50"] > 0.3  # numbers that mean something


@pytest.mark.parametrize("seed", range(3))
def test_segmentations_read_from_files_evaluate_as_cocoeval(tmp_path, seed):
    dataset, _, mask_results = realistic_dataset(seed)
    truth = read_coco(write_json(tmp_path / "instances.json", dataset), geometry="segmentation")
    predictions = read_coco_results(write_json(tmp_path / "masks.json", mask_results))
    assert predictions.geometry == "segmentation"
    assert set(truth.annotations.kinds) == {"Polygon", "Mask"}
    result = evaluate_coco(
        truth.annotations,
        predictions.annotations,
        images=truth.images,
        categories=list(truth.categories),
        polygon_iou="pycocotools",
    )
    expected = run_cocoeval(dataset, mask_results, "segm").stats
    np.testing.assert_array_equal(result.stats_array, expected)
    assert result["AP50"] > 0.15  # numbers that mean something


@pytest.mark.parametrize("seed", range(3))
def test_polygons_read_as_pycocotools_rasterizes_them_evaluate_as_cocoeval_also_when_invalid(tmp_path, seed):
    # COCO's own polygons cross themselves and have parts that overlap or touch; pycocotools
    # rasterizes each part as written and merges the rasters. Read that way, they need no repair.
    dataset, _, mask_results = realistic_dataset(seed)
    annotations = [a for a in dataset["annotations"] if isinstance(a["segmentation"], list)]
    annotations[0]["segmentation"] = [[10, 10, 60, 60, 60, 10, 10, 60]]  # a bow-tie
    x, y = annotations[1]["bbox"][:2]
    annotations[1]["segmentation"] = [
        [x, y, x + 30, y, x + 30, y + 20, x, y + 20],  # two parts sharing an edge
        [x + 30, y, x + 50, y, x + 50, y + 20, x + 30, y + 20],
    ]
    path = write_json(tmp_path / "instances.json", dataset)
    with pytest.raises(FormatError, match="repair=True"):
        read_coco(path, geometry="segmentation")  # exact reading refuses the bow-tie
    with pytest.raises(InvalidArgumentError, match="'polygons' must be one of"):
        read_coco(path, geometry="segmentation", polygons="raster")
    truth = read_coco(path, geometry="segmentation", polygons="pycocotools")
    assert truth.annotations.kinds == ("Mask",)
    predictions = read_coco_results(write_json(tmp_path / "masks.json", mask_results))
    result = evaluate_coco(
        truth.annotations, predictions.annotations, images=truth.images, categories=list(truth.categories)
    )
    np.testing.assert_array_equal(result.stats_array, run_cocoeval(dataset, mask_results, "segm").stats)


def test_dataset_tables_and_columns(tmp_path):
    dataset, _, _ = realistic_dataset(0)
    truth = read_coco(write_json(tmp_path / "instances.json", dataset), geometry="segmentation")
    anns = dataset["annotations"]
    assert truth.images == {image["id"]: (image["height"], image["width"]) for image in dataset["images"]}
    assert 7 in truth.images  # the image without objects is listed
    assert truth.categories == {1: "person", 2: "dog", 4: "kite", 9: "unseen"}
    np.testing.assert_array_equal(truth.annotation_ids, [a["id"] for a in anns])
    np.testing.assert_array_equal(truth.annotations.image_id, [a["image_id"] for a in anns])
    np.testing.assert_array_equal(truth.annotations.category_id, [a["category_id"] for a in anns])
    np.testing.assert_array_equal(truth.annotations.iscrowd, [a["iscrowd"] == 1 for a in anns])
    np.testing.assert_array_equal(truth.annotations.area, [a["area"] for a in anns])  # the file's own area
    assert truth.report.read == len(dataset["images"]) + len(dataset["categories"]) + len(anns)
    assert truth.report.skipped == ()


def test_regions_are_the_records_geometries(tmp_path):
    dataset, _, _ = realistic_dataset(1)
    truth = read_coco(write_json(tmp_path / "instances.json", dataset), geometry="segmentation")
    rows = [region for piece in truth.annotations.regions for region in piece]
    for annotation, region in zip(dataset["annotations"], rows, strict=True):
        h, w = truth.images[annotation["image_id"]]
        segmentation = annotation["segmentation"]
        if isinstance(segmentation, dict):
            # The RLE decoded by pycocotools is the mask's pixels.
            rle = (
                mask_utils.frPyObjects(segmentation, h, w) if isinstance(segmentation["counts"], list) else segmentation
            )
            # Masks of several image sizes share the largest grid: each is its RLE's pixels, padded with false ones.
            assert region.source_shape.tolist() == [h, w]
            np.testing.assert_array_equal(region.data[:h, :w], mask_utils.decode(rle).astype(bool))
            assert not region.data[h:].any() and not region.data[:, w:].any()
        else:
            # Disjoint parts: a MultiPolygon of the parts with their vertices as written.
            expected = shapely.MultiPolygon([shapely.Polygon(np.reshape(part, (-1, 2))) for part in segmentation])
            assert shapely.equals(region.to_shapely(), expected)
            assert region.area == pytest.approx(expected.area, rel=1e-12)


def test_boxes_are_xywh(tmp_path):
    dataset, box_results, _ = realistic_dataset(2)
    truth = read_coco(write_json(tmp_path / "instances.json", dataset))
    (boxes,) = truth.annotations.regions
    np.testing.assert_array_equal(boxes.to_array("xywh"), [a["bbox"] for a in dataset["annotations"]])
    predictions = read_coco_results(write_json(tmp_path / "boxes.json", box_results)).annotations
    np.testing.assert_allclose(predictions.regions[0].to_array("xywh"), [r["bbox"] for r in box_results], rtol=1e-15)
    np.testing.assert_array_equal(predictions.score, [r["score"] for r in box_results])


def test_rle_masks_stay_runs_in_one_batch_whatever_their_sizes(tmp_path):
    dataset, _, mask_results = realistic_dataset(0)
    truth = read_coco(write_json(tmp_path / "instances.json", dataset), geometry="segmentation")
    predictions = read_coco_results(write_json(tmp_path / "masks.json", mask_results))
    for pieces in (truth.annotations.regions, predictions.annotations.regions):
        masks = [piece for piece in pieces if isinstance(piece, geoiou.Mask)]
        assert masks
        for piece in masks:
            assert piece.area.sum() > 0  # areas come from the runs...
            assert piece._store._runs is not None and "dense" not in vars(piece._store)  # ...no pixels decoded
    # Masks of every image size, in any record order, share one batch (one run table on the largest grid).
    sizes = {tuple(truth.images[r["image_id"]]) for r in mask_results}
    assert len(sizes) > 1
    (masks,) = predictions.annotations.regions
    assert masks.grid_shape == tuple(np.max(list(sizes), axis=0))
    assert [tuple(size) for size in masks.source_shape.tolist()] == [truth.images[r["image_id"]] for r in mask_results]


def test_polygon_parts_are_united(tmp_path):
    # Two overlapping squares 0..4 and 2..6 (x), same rows: union 6 x 4 = 24, not 16 + 16.
    dataset = small_dataset()
    dataset["annotations"][0]["segmentation"] = [[0, 0, 4, 0, 4, 4, 0, 4], [2, 0, 6, 0, 6, 4, 2, 4]]
    region = read_coco(dataset, geometry="segmentation").annotations.regions[0][0]
    assert region.area == 24.0
    # A part may repeat its first vertex at the end (closed ring): the same triangle, area 50.
    dataset["annotations"][0]["segmentation"] = [[0, 0, 10, 0, 0, 10, 0, 0]]
    assert read_coco(dataset, geometry="segmentation").annotations.regions[0][0].area == 50.0


def test_missing_iscrowd_is_zero_and_missing_area_everywhere_is_none():
    dataset = small_dataset()
    for annotation in dataset["annotations"]:
        del annotation["area"]
    del dataset["annotations"][0]["iscrowd"]
    truth = read_coco(dataset).annotations
    assert truth.area is None  # then evaluate_coco uses the region's measure
    assert not truth.iscrowd[0]  # COCOeval reads a missing "iscrowd" as 0


def test_parsed_documents_are_accepted():
    truth = read_coco(small_dataset(), geometry="segmentation")
    assert truth.report.source == "<dict>"
    assert truth.annotations.kinds == ("Mask", "Polygon")
    assert read_coco_results([]).geometry == "bbox"  # nothing to read: boxes, an empty batch
    assert len(read_coco_results([]).annotations) == 0


def test_auto_reads_segmentation_only_when_every_record_has_one():
    both = [{"image_id": 1, "category_id": 1, "score": 0.5, "bbox": [0, 0, 2, 2], "segmentation": [[0, 0, 2, 0, 0, 2]]}]
    only_box = [{"image_id": 1, "category_id": 1, "score": 0.5, "bbox": [0, 0, 2, 2]}]
    assert read_coco_results(both).geometry == "segmentation"
    assert read_coco_results(both + only_box).geometry == "bbox"
    assert read_coco_results(both, geometry="bbox").annotations.kinds == ("Box",)
    # Polygon results (which loadRes cannot read, but COCO's format allows): a triangle of area 2.
    assert read_coco_results(both).annotations.regions[0].area.tolist() == [2.0]


# --------------------------------------------------------------------------- writing and round trips
def test_masks_written_back_are_pycocotools_encodings(tmp_path):
    dataset, _, _ = realistic_dataset(0)
    # A crowd RLE whose counts hold an empty run: pixels 2-4 and 4-5 are one run once decoded.
    h, w = dataset_size(dataset, 7)
    dataset["annotations"].append(
        {
            "id": 999,
            "image_id": 7,
            "category_id": 1,
            "iscrowd": 1,
            "area": 3.0,
            "bbox": [0, 0, 1, 1],
            "segmentation": {"size": [h, w], "counts": [2, 2, 0, 1, h * w - 5]},
        }
    )
    truth = read_coco(write_json(tmp_path / "instances.json", dataset), geometry="segmentation").annotations
    masks = [
        (row, piece)
        for row, piece in zip(np.cumsum([0] + [len(p) for p in truth.regions]), truth.regions)
        if isinstance(piece, geoiou.Mask)
    ]
    rows = np.concatenate([np.arange(row, row + len(piece)) for row, piece in masks])
    predictions = Annotations(
        image_id=truth.image_id[rows],
        category_id=truth.category_id[rows],
        region=[piece for _, piece in masks],
        score=np.linspace(0, 1, len(rows)),
    )
    write_coco_results(tmp_path / "out.json", predictions)
    written = json.loads((tmp_path / "out.json").read_text())
    for row, record in zip(rows, written, strict=True):
        original = dataset["annotations"][row]["segmentation"]
        h, w = original["size"]
        rle = mask_utils.frPyObjects(original, h, w) if isinstance(original["counts"], list) else original
        expected = mask_utils.encode(np.asfortranarray(mask_utils.decode(rle)))
        assert record["segmentation"] == {"size": [h, w], "counts": expected["counts"].decode("ascii")}
    assert all("dense" not in vars(piece._store) for _, piece in masks)  # encoded from the runs


def dataset_size(dataset: dict, image: int) -> tuple[int, int]:
    (record,) = [i for i in dataset["images"] if i["id"] == image]
    return record["height"], record["width"]


@st.composite
def mask_batches(draw) -> list[np.ndarray]:
    """Small masks of a few sizes (empty, full and tiny ones included)."""
    shapes = draw(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 7)), min_size=1, max_size=3))
    masks = []
    for shape in shapes:
        for _ in range(draw(st.integers(1, 3))):
            bits = draw(st.lists(st.booleans(), min_size=shape[0] * shape[1], max_size=shape[0] * shape[1]))
            masks.append(np.array(bits, dtype=bool).reshape(shape))
    return masks


@SETTINGS
@given(mask_batches(), st.data())
def test_mask_results_round_trip(tmp_path_factory, masks, data):
    path = tmp_path_factory.mktemp("masks") / "results.json"
    scores = data.draw(st.lists(st.floats(0, 1), min_size=len(masks), max_size=len(masks)))
    predictions = Annotations(
        image_id=np.arange(len(masks)), category_id=3, score=scores, region=[geoiou.Mask(mask[None]) for mask in masks]
    )
    write_coco_results(path, predictions)
    written = json.loads(path.read_text())
    for mask, record in zip(masks, written, strict=True):
        expected = mask_utils.encode(np.asfortranarray(mask.astype(np.uint8)))
        assert record["segmentation"]["counts"] == expected["counts"].decode("ascii")
    back = read_coco_results(path).annotations
    rows = [region for piece in back.regions for region in piece]
    for mask, region in zip(masks, rows, strict=True):
        # Masks of several sizes share the largest grid: the mask, padded with false pixels.
        assert region.source_shape.tolist() == list(mask.shape)
        padded = np.zeros(region.grid_shape, dtype=bool)
        padded[: mask.shape[0], : mask.shape[1]] = mask
        np.testing.assert_array_equal(region.data, padded)
    assert back.score.tolist() == scores and back.image_id.tolist() == list(range(len(masks)))
    # Writing what was read (now runs in one batch, each mask at its own size) gives the same file.
    write_coco_results(path.with_name("again.json"), back)
    assert path.with_name("again.json").read_text() == path.read_text()


@SETTINGS
@given(st.lists(st.tuples(st.floats(-1e4, 1e4), st.floats(-1e4, 1e4), SIZES, SIZES), min_size=1, max_size=20))
def test_box_results_round_trip(tmp_path_factory, xywh):
    path = tmp_path_factory.mktemp("boxes") / "results.json"
    boxes = geoiou.Box(xywh, fmt="xywh")
    predictions = Annotations(image_id=7, category_id=np.arange(len(xywh)), region=boxes, score=0.5)
    write_coco_results(path, predictions)
    back = read_coco_results(path)
    assert back.geometry == "bbox"
    # Box stores corners: x + w - x may differ from w in its last bit, so the corners are compared.
    np.testing.assert_allclose(back.annotations.regions[0].to_array(), boxes.to_array(), rtol=1e-15, atol=1e-12)
    np.testing.assert_array_equal(back.annotations.category_id, np.arange(len(xywh)))


@SETTINGS
@given(
    st.lists(
        st.tuples(st.integers(-50, 50), st.integers(-50, 50), st.integers(0, 40), st.integers(0, 40)),
        min_size=1,
        max_size=20,
    )
)
def test_integer_box_results_round_trip_exactly(tmp_path_factory, xywh):
    path = tmp_path_factory.mktemp("boxes") / "results.json"
    write_coco_results(path, Annotations(image_id=1, category_id=1, region=geoiou.Box(xywh, fmt="xywh"), score=1.0))
    np.testing.assert_array_equal(read_coco_results(path).annotations.regions[0].to_array("xywh"), xywh)


@SETTINGS
@given(
    st.lists(
        st.tuples(
            st.floats(-100, 100),
            st.floats(-100, 100),
            st.floats(1, 30),
            st.integers(3, 9),
            st.integers(0, 2**32 - 1),
            st.booleans(),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_polygon_results_round_trip(tmp_path_factory, shapes):
    path = tmp_path_factory.mktemp("polygons") / "results.json"
    geometries = []
    for cx, cy, radius, n, seed, two_parts in shapes:
        rng = np.random.default_rng(seed)
        parts = [shapely.Polygon(star(rng, cx, cy, radius))]
        if two_parts:
            parts.append(shapely.Polygon(star(rng, cx + 3 * radius, cy, radius)))
        geometry = parts[0] if len(parts) == 1 else shapely.MultiPolygon(parts)
        geometry = geometry if geometry.is_valid else parts[0]
        assume(geometry.is_valid)  # two-decimal rounding can make a thin star cross itself
        geometries.append(geometry)
    polygons = geoiou.Polygon.from_shapely(np.array(geometries + [None], dtype=object)[:-1])
    write_coco_results(path, Annotations(image_id=1, category_id=1, region=polygons, score=0.25))
    back = read_coco_results(path)
    assert back.geometry == "segmentation"
    read_back = back.annotations.regions[0].to_shapely()
    assert all(shapely.equals(a, b) for a, b in zip(read_back, geometries, strict=True))
    # The vertices are written and read as stored: the same coordinates, not just the same region.
    for a, b in zip(read_back, geometries):
        np.testing.assert_array_equal(shapely.get_coordinates(a), shapely.get_coordinates(b))


def test_writer_geometry_choices(tmp_path):
    box = geoiou.Box([[1, 2, 4, 6]])  # x 1..4, y 2..6
    mask = geoiou.Mask(np.array([[[0, 0, 0], [0, 1, 1]]]))  # pixels (row 1, cols 1-2): box x 1..3, y 1..2
    rotated = geoiou.RotatedBox([[10, 10, 4, 2, 90]])
    predictions = Annotations(image_id=[1, 1, 1], category_id=1, region=[box, mask, rotated], score=[0.9, 0.8, 0.7])
    write_coco_results(tmp_path / "boxes.json", predictions, geometry="bbox")
    boxes = json.loads((tmp_path / "boxes.json").read_text())
    assert [r["bbox"] for r in boxes[:2]] == [[1, 2, 3, 4], [1, 1, 2, 1]]  # a box as it is; a mask's bounding box
    np.testing.assert_allclose(boxes[2]["bbox"], [9, 8, 2, 4], atol=1e-12)  # turned by 90°: 2 wide, 4 high
    write_coco_results(tmp_path / "auto.json", predictions)  # not all boxes: segmentations
    records = json.loads((tmp_path / "auto.json").read_text())
    assert records[0]["segmentation"] == [[1, 2, 4, 2, 4, 6, 1, 6]]  # the box as a polygon
    # Column by column: 3 false, 1 true, 1 false, 1 true; the 4th count is written as its change from the 2nd (0).
    assert records[1]["segmentation"] == {"size": [2, 3], "counts": "3110"}
    back = read_coco_results(tmp_path / "auto.json").annotations
    assert [region.area for piece in back.regions for region in piece] == pytest.approx([12.0, 2.0, 8.0])


# --------------------------------------------------------------------------- error paths
def small_dataset() -> dict:
    """Two images, two categories; a polygon, a crowd RLE (uncompressed) and a compressed RLE object."""
    return {
        "images": [{"id": 1, "height": 20, "width": 30}, {"id": 2, "height": 2, "width": 3}],
        "categories": [{"id": 1, "name": "person"}, {"id": 2, "name": "dog"}],
        "annotations": [
            {
                "id": 10,
                "image_id": 1,
                "category_id": 1,
                "iscrowd": 0,
                "area": 50.0,
                "bbox": [0, 0, 10, 10],
                "segmentation": [[0, 0, 10, 0, 0, 10]],
            },
            {
                "id": 11,
                "image_id": 2,
                "category_id": 2,
                "iscrowd": 1,
                "area": 3.0,
                "bbox": [1, 0, 2, 2],
                "segmentation": {"size": [2, 3], "counts": [2, 3, 1]},
            },
            {
                "id": 12,
                "image_id": 2,
                "category_id": 1,
                "iscrowd": 0,
                "area": 3.0,
                "bbox": [1, 0, 2, 2],
                "segmentation": {"size": [2, 3], "counts": "231"},
            },
        ],
    }


def mutate(path: str, value):
    """A copy of `small_dataset` with the item at `path` ("annotations.1.bbox") set to `value` (None deletes it)."""
    dataset = small_dataset()
    *parents, last = [int(key) if key.isdigit() else key for key in path.split(".")]
    target = dataset
    for key in parents:
        target = target[key]
    if value is None:
        del target[last]
    else:
        target[last] = value
    return dataset


RECORD_ERRORS = [
    # (path, value, geometry, location, message)
    (
        "annotations.1.id",
        10,
        "bbox",
        "annotations[1] (id 10)",
        "'id' must be unique (got 10, also at annotations[0] (id 10))",
    ),
    ("annotations.1.id", None, "bbox", "annotations[1]", "'id' must be an integer (got nothing: the key is missing)"),
    (
        "annotations.1.image_id",
        3,
        "bbox",
        "annotations[1] (id 11)",
        "'image_id' must be the id of one of the file's images (got 3)",
    ),
    (
        "annotations.1.category_id",
        7,
        "bbox",
        "annotations[1] (id 11)",
        "'category_id' must be the id of one of the file's categories (got 7)",
    ),
    (
        "annotations.1.category_id",
        True,
        "bbox",
        "annotations[1] (id 11)",
        "'category_id' must be an integer (got True)",
    ),
    ("annotations.1.iscrowd", 2, "bbox", "annotations[1] (id 11)", "'iscrowd' must be 0 or 1 (got 2)"),
    ("annotations.1.area", -1, "bbox", "annotations[1] (id 11)", "'area' must be a non-negative number (got -1)"),
    (
        "annotations.1.area",
        None,
        "bbox",
        "annotations[1] (id 11)",
        "'area' must be a non-negative number like in the other annotations (got nothing: the key is missing)",
    ),
    (
        "annotations.1.bbox",
        [1, 2, 3],
        "bbox",
        "annotations[1] (id 11)",
        "'bbox' must be 4 numbers [x, y, w, h] (got [1, 2, 3])",
    ),
    (
        "annotations.1.bbox",
        [1, 2, "3", 4],
        "bbox",
        "annotations[1] (id 11)",
        "'bbox' must be 4 numbers [x, y, w, h] (got [1, 2, '3', 4])",
    ),
    (
        "annotations.1.bbox",
        [1, 2, float("nan"), 4],
        "bbox",
        "annotations[1] (id 11)",
        "'bbox' must be 4 numbers [x, y, w, h] (got [1, 2, nan, 4])",
    ),
    (
        "annotations.1.bbox",
        [1e308, 2, 1e308, 4],
        "bbox",
        "annotations[1] (id 11)",  # x + w overflows
        "'bbox' must be 4 numbers [x, y, w, h] (got [1e+308, 2, 1e+308, 4])",
    ),
    (
        "annotations.1.bbox",
        [1, 2, 3, -4],
        "bbox",
        "annotations[1] (id 11)",
        "'bbox' must have a non-negative width and height (got [1, 2, 3, -4])",
    ),
    (
        "annotations.1.bbox",
        None,
        "bbox",
        "annotations[1] (id 11)",
        "'bbox' must be 4 numbers [x, y, w, h] (got nothing: the key is missing)",
    ),
    (
        "annotations.0.segmentation",
        [],
        "segmentation",
        "annotations[0] (id 10)",
        "'segmentation' must be a non-empty list of polygons or an RLE dict {'size': [h, w], 'counts': ...} (got [])",
    ),
    (
        "annotations.0.segmentation",
        [[0, 0, 10, 0, 0]],
        "segmentation",
        "annotations[0] (id 10)",
        "'segmentation[0]' must be a flat list of coordinates x1, y1, x2, y2, ... of at least 3 points (got [0, 0, "
        "10, 0, 0])",
    ),
    (
        "annotations.0.segmentation",
        [[0, 0, 10, 0, 0, 10], [0, 0, 1, 1, 0, 0]],
        "segmentation",
        "annotations[0] (id 10)",
        "'segmentation[1]' must be a flat list of coordinates x1, y1, x2, y2, ... of at least 3 points (got [0, 0, "
        "1, 1, 0, 0])",
    ),
    (
        "annotations.0.segmentation",
        [[0, 0, 10, 0, float("inf"), 10]],
        "segmentation",
        "annotations[0] (id 10)",
        "'segmentation[0]' must hold finite numbers (got [0, 0, 10, 0, inf, 10])",
    ),
    (
        "annotations.0.segmentation",
        [[0, 0, 10, 10, 10, 0, 0, 10]],
        "segmentation",
        "annotations[0] (id 10)",
        "'segmentation[0]' must be a valid polygon (got Self-intersection[5 5]); pass repair=True to make it valid "
        "with "
        "shapely.make_valid",
    ),
    (
        "annotations.0.segmentation",
        "polygon",
        "segmentation",
        "annotations[0] (id 10)",
        "'segmentation' must be a non-empty list of polygons or an RLE dict {'size': [h, w], 'counts': ...} (got "
        "'polygon')",
    ),
    (
        "annotations.1.segmentation",
        {"size": [3, 2], "counts": [2, 3, 1]},
        "segmentation",
        "annotations[1] (id 11)",
        "'segmentation.size' must be the image's [height, width] [2, 3] (got [3, 2])",
    ),
    (
        "annotations.1.segmentation",
        {"size": [2, 3]},
        "segmentation",
        "annotations[1] (id 11)",
        "'segmentation' must be a non-empty list of polygons or an RLE dict {'size': [h, w], 'counts': ...} (got "
        "{'size': [2, 3]})",
    ),
    (
        "annotations.1.segmentation",
        {"size": [2, "3"], "counts": [6]},
        "segmentation",
        "annotations[1] (id 11)",
        "'segmentation.size' must be two non-negative integers [h, w] (got [2, '3'])",
    ),
    (
        "annotations.1.segmentation",
        {"size": [2, 3], "counts": [2, 3]},
        "segmentation",
        "annotations[1] (id 11)",
        "'segmentation' must be a valid COCO RLE: 'counts' must be run lengths adding up to h·w = 6 (got 'a total of "
        "5')",
    ),
    (
        "annotations.2.segmentation",
        {"size": [2, 3], "counts": "23"},
        "segmentation",
        "annotations[2] (id 12)",
        "'segmentation' must be a valid COCO RLE: 'counts' must be run lengths adding up to h·w = 6 (got 'a total of "
        "5')",
    ),
    (
        "annotations.2.segmentation",
        {"size": [2, 3], "counts": "2~1"},
        "segmentation",
        "annotations[2] (id 12)",
        "'segmentation' must be a valid COCO RLE: 'counts' must be a COCO string of characters '0' to 'o' (got \"'~' "
        'at position 1")',
    ),
]


@pytest.mark.parametrize(
    ("path", "value", "geometry", "location", "message"),
    RECORD_ERRORS,
    ids=[f"{case[0]}={case[1]!r}" for case in RECORD_ERRORS],
)
def test_invalid_records_name_file_record_and_fault(tmp_path, path, value, geometry, location, message):
    source = write_json(tmp_path / "instances.json", mutate(path, value))
    with pytest.raises(FormatError) as caught:
        read_coco(source, geometry=geometry)
    assert str(caught.value) == f"{source}, {location}: {message}"
    assert (caught.value.location, caught.value.reason) == (location, message)
    if path.endswith((".bbox", ".segmentation")):  # the other geometry is not read, so not checked
        other = "segmentation" if geometry == "bbox" else "bbox"
        assert len(read_coco(source, geometry=other).annotations) == 3
    # Skipped instead: one record less, listed with its reason.
    skipped = read_coco(source, geometry=geometry, skip_invalid=True)
    assert [(s.location, s.reason) for s in skipped.report.skipped] == [(location, message)]
    assert skipped.report.read == 2 + 2 + 3 - 1


TABLE_ERRORS = [
    # (path, value, location, message, the annotations skipped with it)
    ("images.0.height", None, "images[0] (id 1)", "'height' must be an integer (got nothing: the key is missing)", [0]),
    ("images.0.height", 0, "images[0] (id 1)", "'height' must be a positive integer (got 0)", [0]),
    ("images.1.id", 1, "images[1] (id 1)", "'id' must be unique (got 1, also at images[0] (id 1))", [1, 2]),
    ("images.1", "image", "images[1]", "the record must be a JSON object (got 'image')", [1, 2]),
    ("categories.1.name", 5, "categories[1] (id 2)", "'name' must be a string (got 5)", [1]),
    ("categories.1.id", "2", "categories[1]", "'id' must be an integer (got '2')", [1]),
]


@pytest.mark.parametrize(
    ("path", "value", "location", "message", "orphans"),
    TABLE_ERRORS,
    ids=[f"{case[0]}={case[1]!r}" for case in TABLE_ERRORS],
)
def test_invalid_images_and_categories(tmp_path, path, value, location, message, orphans):
    source = write_json(tmp_path / "instances.json", mutate(path, value))
    with pytest.raises(FormatError) as caught:
        read_coco(source)
    assert str(caught.value) == f"{source}, {location}: {message}"
    # Skipped instead: the annotations of a skipped image or category are skipped too, each saying why.
    skipped = read_coco(source, skip_invalid=True)
    assert [(s.location, s.reason) for s in skipped.report.skipped][0] == (location, message)
    assert [s.location for s in skipped.report.skipped][1:] == [f"annotations[{k}] (id {10 + k})" for k in orphans]
    np.testing.assert_array_equal(skipped.annotation_ids, [10 + k for k in range(3) if k not in orphans])


def test_an_image_skipped_takes_its_annotations_along():
    dataset = mutate("images.1.width", "3")
    truth = read_coco(dataset, skip_invalid=True)
    assert truth.images == {1: (20, 30)}
    assert truth.report.counts() == {
        "'image_id' must be the id of one of the file's images": 2,
        "'width' must be an integer": 1,
    }
    np.testing.assert_array_equal(truth.annotation_ids, [10])


def test_skip_invalid_counts_every_fault_once_and_keeps_the_rest(tmp_path):
    dataset, _, _ = realistic_dataset(0)
    anns = dataset["annotations"]
    polygon_rows = [k for k, a in enumerate(anns) if isinstance(a["segmentation"], list)]
    rle_rows = [k for k, a in enumerate(anns) if isinstance(a["segmentation"], dict)]
    crossing = polygon_rows[1:4]  # three bow-ties
    for k in crossing:
        anns[k]["segmentation"] = [[0, 0, 4, 4, 4, 0, 0, 4]]
    anns[rle_rows[0]]["segmentation"]["size"] = [1, 1]  # not its image's size
    anns[polygon_rows[5]]["category_id"] = 77
    anns[polygon_rows[6]]["bbox"] = [0, 0, -1, 1]  # a fault of the box: not seen when reading segmentations
    source = write_json(tmp_path / "instances.json", dataset)
    truth = read_coco(source, geometry="segmentation", skip_invalid=True)
    assert truth.report.counts() == {
        "'segmentation[0]' must be a valid polygon": 3,
        "'segmentation.size' must be the image's [height, width] "
        f"{list(truth.images[anns[rle_rows[0]]['image_id']])}": 1,
        "'category_id' must be the id of one of the file's categories": 1,
    }
    dropped = set(crossing) | {rle_rows[0], polygon_rows[5]}
    kept = [a["id"] for k, a in enumerate(anns) if k not in dropped]
    np.testing.assert_array_equal(truth.annotation_ids, kept)
    assert sum(len(piece) for piece in truth.annotations.regions) == len(kept)
    # The first fault in file order is the one raised without skip_invalid.
    first = min(dropped)
    with pytest.raises(FormatError, match=re.escape(f"annotations[{first}] (id {anns[first]['id']})")):
        read_coco(source, geometry="segmentation")
    # With repair, the bow-ties are read: each is two triangles of area 4.
    repaired = read_coco(source, geometry="segmentation", repair=True, skip_invalid=True)
    assert len(repaired.report.skipped) == 2
    rows = [region for piece in repaired.annotations.regions for region in piece]
    ids = repaired.annotation_ids.tolist()
    assert [rows[ids.index(anns[k]["id"])].area for k in crossing] == [8.0, 8.0, 8.0]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2", "not valid JSON (Expecting ',' delimiter at line 1, column 6)"),
        (
            "[]",
            "a COCO dataset must be a JSON object with the keys ['images', 'annotations', 'categories'] (got a list; "
            "a result file is read by read_coco_results)",
        ),
        (
            '{"images": [], "annotations": []}',
            "a COCO dataset must have the keys ['images', 'annotations', 'categories'] (missing ['categories'])",
        ),
        ('{"images": {}, "annotations": [], "categories": []}', "'images' must be a list (got {})"),
    ],
)
def test_whole_file_faults_are_never_skipped(tmp_path, content, message):
    path = tmp_path / "instances.json"
    path.write_text(content)
    with pytest.raises(FormatError) as caught:
        read_coco(path, skip_invalid=True)
    assert str(caught.value) == f"{path}: {message}"


RESULT_ERRORS = [
    (
        {"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1]},
        "auto",
        "'score' must be a finite number (got nothing: the key is missing)",
    ),
    (
        {"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1], "score": None},
        "auto",
        "'score' must be a finite number (got None)",
    ),
    (
        {"image_id": "a", "category_id": 1, "bbox": [0, 0, 1, 1], "score": 1},
        "auto",
        "'image_id' must be an integer (got 'a')",
    ),
    (
        {"image_id": 1, "category_id": 1, "bbox": [0, 0, 1], "score": 1},
        "auto",
        "'bbox' must be 4 numbers [x, y, w, h] (got [0, 0, 1])",
    ),
    (
        {"image_id": 1, "category_id": 1, "segmentation": {"size": [2, 2], "counts": [1, 1]}, "score": 1},
        "segmentation",
        "'segmentation' must be a valid COCO RLE: 'counts' must be run lengths adding up to h·w = 4 (got 'a total of "
        "2')",
    ),
    (
        {"image_id": 1, "category_id": 1, "segmentation": [[0, 0, 2, 2, 2, 0, 0, 2]], "score": 1},
        "segmentation",
        "'segmentation[0]' must be a valid polygon (got Self-intersection[1 1]); pass repair=True to make it valid "
        "with shapely.make_valid",
    ),
    ([1, 2], "auto", "the record must be a JSON object (got [1, 2])"),
]


@pytest.mark.parametrize(("record", "geometry", "message"), RESULT_ERRORS, ids=[case[2][:40] for case in RESULT_ERRORS])
def test_invalid_results_name_file_record_and_fault(tmp_path, record, geometry, message):
    good = {
        "image_id": 1,
        "category_id": 1,
        "score": 0.5,
        "bbox": [0, 0, 2, 2],
        "segmentation": {"size": [2, 2], "counts": [0, 4]},
    }
    source = write_json(tmp_path / "results.json", [good, record, good])
    with pytest.raises(FormatError) as caught:
        read_coco_results(source, geometry=geometry)
    assert str(caught.value) == f"{source}, results[1]: {message}"
    skipped = read_coco_results(source, geometry=geometry, skip_invalid=True)
    assert [(s.location, s.reason) for s in skipped.report.skipped] == [("results[1]", message)]
    assert skipped.report.read == 2 and len(skipped.annotations) == 2
    assert [len(piece) for piece in skipped.annotations.regions] in ([2], [1, 1])


def test_result_file_must_be_a_list(tmp_path):
    source = write_json(tmp_path / "results.json", small_dataset())
    with pytest.raises(
        FormatError,
        match=re.escape(
            f"{source}: a COCO result file must be a JSON list of predictions "
            "(got a dict; a dataset file is read by read_coco)"
        ),
    ):
        read_coco_results(source)


def test_bad_options_are_refused():
    with pytest.raises(
        InvalidArgumentError, match=re.escape("'geometry' must be one of ('bbox', 'segmentation') (got 'segm')")
    ):
        read_coco(small_dataset(), geometry="segm")
    with pytest.raises(
        InvalidArgumentError, match=re.escape("'geometry' must be one of ('auto', 'bbox', 'segmentation')")
    ):
        read_coco_results([], geometry="mask")


@pytest.mark.parametrize(
    ("predictions", "geometry", "message"),
    [
        (
            Annotations(image_id=["a"], category_id=1, region=geoiou.Box([[0, 0, 1, 1]]), score=1),
            "auto",
            "'predictions.image_id' must be integer ids (COCO's ids are integers) (got 'dtype <U1')",
        ),
        (
            Annotations(image_id=[1], category_id=1, region=geoiou.Box([[0, 0, 1, 1]])),
            "auto",
            "'predictions' must be predictions with a score per row (got \"no 'score' column\")",
        ),
        (
            Annotations(
                image_id=[1, 1],
                category_id=1,
                score=1,
                region=[geoiou.Box([[0, 0, 1, 1]]), geoiou.Mask(np.ones((1, 2, 2)), origin=(3, 0))],
            ),
            "auto",
            "'predictions.region' must be masks at origin (0, 0): an RLE has no origin (got 'origin [3.0, 0.0]' at "
            "row 1)",
        ),
        (
            Annotations(
                image_id=[1],
                category_id=1,
                score=1,
                region=geoiou.Polygon.from_shapely(
                    np.array([shapely.box(0, 0, 9, 9).difference(shapely.box(2, 2, 4, 4))])
                ),
            ),
            "auto",
            "'predictions.region' must be polygons without holes (COCO's polygon format has none) "
            "(got 'a polygon with holes' at row 0)",
        ),
        (
            Annotations(image_id=[1], category_id=1, score=1, region=geoiou.Interval([[0, 1]])),
            "auto",
            "'predictions.region' must be 2-D regions for a COCO file (got 'Interval' at row 0)",
        ),
        (
            Annotations(image_id=[1], category_id=1, score=1, region=geoiou.Mask(np.zeros((1, 2, 2)))),
            "bbox",
            "'predictions.region' must be regions with a bounding box (got 'an empty region' at row 0)",
        ),
    ],
)
def test_writer_refuses_what_coco_cannot_hold(tmp_path, predictions, geometry, message):
    with pytest.raises(InvalidArgumentError) as caught:
        write_coco_results(tmp_path / "out.json", predictions, geometry=geometry)
    assert str(caught.value) == message
    assert not (tmp_path / "out.json").exists()  # nothing half-written
