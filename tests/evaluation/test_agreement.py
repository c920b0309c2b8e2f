"""evaluate_agreement: hand-worked reports, SpaceNet's building F1 against a plain re-implementation, properties."""

from __future__ import annotations

import json
import math
from importlib.resources import files

import numpy as np
import pytest
import shapely
import shapely.affinity
from hypothesis import given
from hypothesis import strategies as st

import geoiou
from geoiou.evaluation import AgreementResult, Annotations, TemporalSegments, evaluate_agreement
from geoiou.io import read_dota
from tests.strategies import ci_settings

DOTA = files("geoiou") / "data" / "dota"


# --------------------------------------------------------------------------- SpaceNet, written out
def spacenet_counts(
    proposals: list[shapely.Geometry], truths: list[shapely.Geometry], threshold: float = 0.5
) -> tuple[int, int, int]:
    """SpaceNet's ``evalTools.score``: proposals in order, each claiming the remaining truth it overlaps most."""
    remaining = list(range(len(truths)))
    true_positives = false_positives = 0
    for proposal in proposals:
        overlaps = [proposal.intersection(truths[t]).area / proposal.union(truths[t]).area for t in remaining]
        if overlaps and max(overlaps) >= threshold:
            true_positives += 1
            remaining.pop(int(np.argmax(overlaps)))
        else:
            false_positives += 1
    return true_positives, false_positives, len(truths) - true_positives


def spacenet_f1(true_positives: int, false_positives: int, false_negatives: int) -> float:
    """SpaceNet's ``evalfunction``: 2PR / (P + R), and 0 without a true positive."""
    if true_positives == 0:
        return 0.0
    precision = true_positives / (true_positives + false_positives)
    recall = true_positives / (true_positives + false_negatives)
    return 2 * precision * recall / (precision + recall)


def footprint_tiles(seed: int, tiles: int = 12) -> tuple[list, list, list, list]:
    """Building footprints that do not overlap (one rotated rectangle per cell of a grid, some cells
    empty) and a model's proposals: most footprints found again (moved, scaled, turned), some twice,
    some missed, and false positives, all in a shuffled order. Returns the rows of both sides."""
    gen = np.random.default_rng(seed)
    truth_rows, proposal_rows = [], []
    for tile in range(tiles):
        tile_id = f"tile_{tile:02d}"
        proposals = []
        for cx in range(15, 200, 30):
            for cy in range(15, 200, 30):
                if gen.random() < 0.2:
                    continue
                w, h = gen.uniform(8, 22, 2)
                footprint = shapely.affinity.rotate(
                    shapely.box(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), gen.uniform(0, 90)
                )
                truth_rows.append((tile_id, footprint))
                for _ in range(1 + (gen.random() < 0.1)):  # a duplicate detection now and then
                    if gen.random() < 0.85:
                        moved = shapely.affinity.translate(footprint, *gen.normal(0, 2.5, 2))
                        moved = shapely.affinity.scale(moved, *np.exp(gen.normal(0, 0.15, 2)))
                        proposals.append(shapely.affinity.rotate(moved, gen.normal(0, 8)))
        for _ in range(gen.integers(0, 5)):
            x, y = gen.uniform(0, 190, 2)
            proposals.append(shapely.box(x, y, x + gen.uniform(5, 20), y + gen.uniform(5, 20)))
        proposal_rows += [(tile_id, proposals[k]) for k in gen.permutation(len(proposals))]
    proposal_rows.append(("tile_empty", shapely.box(0, 0, 5, 5)))  # a tile without footprints
    return truth_rows, proposal_rows


def annotations(rows: list[tuple[str, shapely.Geometry]]) -> Annotations:
    return Annotations(
        image_id=[tile for tile, _ in rows],
        category_id="building",
        region=geoiou.Polygon.from_shapely([geometry for _, geometry in rows]),
    )


@pytest.mark.parametrize("method", ["greedy", "optimal"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_spacenet_building_f1_equals_its_reference_loop(seed, method):
    truth_rows, proposal_rows = footprint_tiles(seed)
    result = evaluate_agreement(annotations(truth_rows), annotations(proposal_rows), method=method, zero_division=0.0)
    per_image = result.per_image()
    totals = np.zeros(3, dtype=int)
    for tile in sorted({tile for tile, _ in truth_rows + proposal_rows}):
        counts = spacenet_counts([g for t, g in proposal_rows if t == tile], [g for t, g in truth_rows if t == tile])
        totals += counts
        row = per_image[tile]
        assert (row["matched"], row["only_b"], row["only_a"]) == counts
        assert row["f1"] == pytest.approx(spacenet_f1(*counts), abs=1e-15)
    overall = result.overall()
    assert (overall["matched"], overall["only_b"], overall["only_a"]) == tuple(totals)
    assert overall["f1"] == pytest.approx(spacenet_f1(*totals), abs=1e-15)
    assert 0.5 < overall["f1"] < 0.95  # the tiles are built to disagree somewhat


# --------------------------------------------------------------------------- hand-worked
def two_annotators() -> tuple[Annotations, Annotations]:
    """Image 1: A has a car and a truck, B the car (IoU 0.8) and a second car elsewhere.
    Image 2: A has a truck, B the same truck (IoU 1) and nothing else."""
    a = Annotations(
        image_id=[1, 1, 2],
        category_id=["car", "truck", "truck"],
        region=geoiou.Box([[0, 0, 10, 10], [20, 0, 30, 10], [0, 0, 5, 5]]),
    )
    b = Annotations(
        image_id=[1, 1, 2],
        category_id=["car", "car", "truck"],
        region=geoiou.Box([[0, 0, 10, 8], [20, 0, 30, 10], [0, 0, 5, 5]]),
    )
    return a, b


def test_hand_worked_report():
    a, b = two_annotators()
    result = evaluate_agreement(a, b)
    # B's second car sits on A's truck, but categories differ: matched only with ignore_category.
    # Pairs at IoU 0.8 (the car: 80 of 100) and 1 (the truck): quartiles 0.85, 0.9, 0.95.
    assert result.overall() == pytest.approx(
        {
            "a": 3,
            "b": 3,
            "matched": 2,
            "only_a": 1,
            "only_b": 1,
            "precision": 2 / 3,
            "recall": 2 / 3,
            "f1": 2 / 3,
            "iou_mean": 0.9,
            "iou_q25": 0.85,
            "iou_q50": 0.9,
            "iou_q75": 0.95,
        },
        rel=1e-15,
    )
    per_category = result.per_category()
    assert per_category["car"] == {  # A: 1 car, B: 2 cars, 1 pair at IoU 80/100
        "a": 1,
        "b": 2,
        "matched": 1,
        "only_a": 0,
        "only_b": 1,
        "precision": 0.5,
        "recall": 1.0,
        "f1": 2 / 3,
        "iou_mean": 0.8,
        "iou_q25": 0.8,
        "iou_q50": 0.8,
        "iou_q75": 0.8,
    }
    assert per_category["truck"]["matched"] == 1 and per_category["truck"]["only_a"] == 1
    assert per_category["truck"]["f1"] == 2 / 3  # 2 · 1 / (2 + 1)
    per_image = result.per_image()
    assert per_image[1]["f1"] == 0.5 and per_image[2]["f1"] == 1.0  # 2 · 1 / 4 and 2 · 1 / 2
    assert result.worst_images() == [1, 2]
    assert result.category_pairs() == {("car", "car"): 1, ("truck", "truck"): 1}


def test_ignoring_categories_matches_across_them():
    a, b = two_annotators()
    result = evaluate_agreement(a, b, ignore_category=True)
    assert result.overall()["matched"] == 3 and result.overall()["f1"] == 1.0
    # A's truck in image 1 matched B's second car: per category, each side counts its own labels.
    per_category = result.per_category()
    assert per_category["car"] == {
        "a": 1,
        "b": 2,
        "matched": 1,
        "only_a": 0,
        "only_b": 0,
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
        "iou_mean": 0.8,
        "iou_q25": 0.8,
        "iou_q50": 0.8,
        "iou_q75": 0.8,
    }
    assert per_category["truck"]["matched"] == 2 and per_category["truck"]["precision"] == 1.0
    assert result.category_pairs() == {("car", "car"): 1, ("truck", "car"): 1, ("truck", "truck"): 1}
    assert "within images)" in result.summary()


def test_empty_sides_and_listed_images_use_zero_division():
    a = Annotations(image_id=["x"], category_id=[1], region=geoiou.Box([[0, 0, 1, 1]]))
    b = Annotations(image_id=["y"], category_id=[1], region=geoiou.Box([[0, 0, 1, 1]]))
    result = evaluate_agreement(a, b, images=["z"])
    per_image = result.per_image()
    assert list(per_image) == ["x", "y", "z"]
    assert per_image["x"]["recall"] == 0.0 and math.isnan(per_image["x"]["precision"])
    assert per_image["y"]["precision"] == 0.0 and math.isnan(per_image["y"]["recall"])
    assert per_image["x"]["f1"] == 0.0  # 2 · 0 / 1
    assert per_image["z"]["a"] == per_image["z"]["b"] == 0 and math.isnan(per_image["z"]["f1"])
    assert math.isnan(per_image["z"]["iou_mean"])
    assert evaluate_agreement(a, b, images=["z"], zero_division=1.0).per_image()["z"]["f1"] == 1.0
    assert result.worst_images() == ["x", "y"]  # z has no region to disagree on


def test_quantiles_equal_numpy_per_category():
    gen = np.random.default_rng(7)
    corners = gen.uniform(0, 100, (300, 2))
    boxes = np.c_[corners, corners + gen.uniform(5, 15, (300, 2))]
    moved = boxes + gen.normal(0, 1.0, boxes.shape)
    categories = gen.integers(0, 4, 300)
    result = evaluate_agreement(
        {"image_id": 1, "category_id": categories, "region": geoiou.Box(boxes)},
        {"image_id": 1, "category_id": categories, "region": geoiou.Box(moved)},
        min_iou=0.3,
        quantiles=(0.1, 0.5, 0.9),
    )
    matched = result.matching
    for category, values in result.per_category().items():
        ious = matched.iou[categories[matched.index_a] == category]
        assert values["iou_mean"] == pytest.approx(ious.mean(), rel=1e-12)
        for q in (0.1, 0.5, 0.9):
            assert values[f"iou_q{100 * q:g}"] == pytest.approx(np.quantile(ious, q), rel=1e-12)


def test_intervals_from_temporal_segments():
    # Video v1: [0, 10) against [1, 10) (IoU 0.9) and an extra [20, 25); v2 only in the first set.
    first = TemporalSegments(
        video_id=["v1", "v2"], label=["jump", "jump"], start=[0, 3], end=[10, 4], videos=["v1", "v2", "v3"]
    )
    second = TemporalSegments(video_id=["v1", "v1"], label=["jump", "jump"], start=[1, 20], end=[10, 25])
    result = evaluate_agreement(first, second)
    assert result.matching.iou.tolist() == [0.9]
    assert list(result.per_image()) == ["v1", "v2", "v3"]  # v3: listed without segments
    assert result.overall()["f1"] == 0.5  # 2 · 1 / (2 + 2)


def test_polygons_against_their_rotated_boxes_mixed_kinds():
    # DOTA's quadrilaterals against their minimum-area rectangles: every object finds its own, and
    # the mean IoU is the elementwise one (0.9561 in the DOTA how-to).
    objects = read_dota(DOTA / "P1088.txt")
    rectangles = geoiou.RotatedBox.from_corners(objects.corners, fit="min_area")
    table = {"image_id": "P1088", "category_id": list(objects.classes)}
    result = evaluate_agreement({**table, "region": objects.polygons}, {**table, "region": rectangles})
    np.testing.assert_array_equal(result.matching.index_a, result.matching.index_b)
    assert result.overall()["f1"] == 1.0
    assert result.overall()["iou_mean"] == pytest.approx(
        float(np.mean(geoiou.iou(objects.polygons, rectangles))), rel=1e-12
    )


def test_outputs():
    a, b = two_annotators()
    result = evaluate_agreement(a, b, images=[3])
    document = json.loads(result.to_json(pairs=True))
    assert document["overall"]["matched"] == 2 and document["method"] == "greedy"
    assert document["per_image"][2] == {
        "image_id": 3,
        "a": 0,
        "b": 0,
        "matched": 0,
        "only_a": 0,
        "only_b": 0,
        "precision": None,
        "recall": None,
        "f1": None,
        "iou_mean": None,
        "iou_q25": None,
        "iou_q50": None,
        "iou_q75": None,
    }
    # Two pairs, then A's unmatched truck, then B's unmatched car.
    assert [(p["row_a"], p["row_b"], p["category_a"], p["category_b"]) for p in document["pairs"]] == [
        (0, 0, "car", "car"),
        (2, 2, "truck", "truck"),
        (1, -1, "truck", None),
        (-1, 1, None, "car"),
    ]
    assert document["pairs"][2]["iou"] is None and document["pairs"][0]["iou"] == 0.8
    assert "pairs" not in result.to_dict()
    assert repr(result).startswith("<AgreementResult F1=0.667: 2 matched, 1 only in A, 1 only in B")
    assert isinstance(result, AgreementResult)


# --------------------------------------------------------------------------- properties
def random_table(gen: np.random.Generator, n: int) -> dict:
    corners = gen.uniform(0, 60, (n, 2))
    return {
        "image_id": gen.integers(0, 3, n),
        "category_id": gen.integers(0, 2, n),
        "region": geoiou.RotatedBox(np.c_[corners, gen.uniform(4, 20, (n, 2)), gen.uniform(-90, 90, n)]),
    }


@ci_settings(max_examples=30)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_a=st.integers(0, 40),
    n_b=st.integers(0, 40),
    min_iou=st.sampled_from([0.1, 0.5]),
    ignore_category=st.booleans(),
)
def test_counts_add_up_and_swapping_swaps_precision_and_recall(seed, n_a, n_b, min_iou, ignore_category):
    gen = np.random.default_rng(seed)
    a, b = random_table(gen, n_a), random_table(gen, n_b)
    forward = evaluate_agreement(a, b, min_iou=min_iou, method="optimal", ignore_category=ignore_category)
    backward = evaluate_agreement(b, a, min_iou=min_iou, method="optimal", ignore_category=ignore_category)
    overall = forward.overall()
    assert overall["a"] == n_a and overall["b"] == n_b
    assert overall["matched"] + overall["only_a"] == n_a and overall["matched"] + overall["only_b"] == n_b
    for level in (forward.per_image(), forward.per_category()):
        for key in ("a", "b", "matched", "only_a", "only_b"):
            assert sum(row[key] for row in level.values()) == overall[key]
    assert backward.matching.total_iou == pytest.approx(forward.matching.total_iou, abs=1e-12)
    back = backward.overall()
    if n_a + n_b:
        assert overall["f1"] == pytest.approx(2 * overall["matched"] / (n_a + n_b), abs=1e-15)
        if back["matched"] == overall["matched"]:  # equal sums; the count can differ only on ties
            assert back["precision"] == overall["recall"] or (
                math.isnan(back["precision"]) and math.isnan(overall["recall"])
            )


# --------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    "options, message",
    [
        ({"method": "best"}, "'method' must be one of ('greedy', 'optimal') (got 'best')"),
        ({"ignore_category": "yes"}, "'ignore_category' must be True or False (got 'yes')"),
        ({"quantiles": [0.5, 2]}, "'quantiles' must be a sequence of numbers in [0, 1] (got [0.5, 2])"),
        ({"zero_division": 2.0}, "'zero_division' must be NaN or a number in [0, 1] (got 2.0)"),
        ({"images": "img"}, "'images' must be an iterable of image ids (got 'img')"),
        ({"min_iou": -0.1}, "'min_iou' must be a number in [0, 1] (got -0.1)"),
    ],
)
def test_bad_options_are_refused(options, message):
    a, b = two_annotators()
    with pytest.raises(geoiou.InvalidArgumentError) as error:
        evaluate_agreement(a, b, **options)
    assert str(error.value) == message


def test_ids_of_different_types_and_intervals_against_boxes_are_refused():
    a, _ = two_annotators()
    other = Annotations(image_id=["1"], category_id=["car"], region=geoiou.Box([[0, 0, 1, 1]]))
    with pytest.raises(geoiou.InvalidArgumentError, match="'b.image_id' must be keys of the same type as 'a.image_id'"):
        evaluate_agreement(a, other)
    segments = TemporalSegments(video_id=[1], label=["car"], start=[0], end=[1])
    with pytest.raises(geoiou.UnsupportedPairError):
        evaluate_agreement(a, segments)
