"""The KITTI protocol against an independent oracle written here from the devkit's rules (plain Python loops,
shapely for the footprints), against numbers recorded from mmdet3d's copy of KITTI's Python evaluation, and
its parts: the label reader, splitting into parts, the rules one by one."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from geoiou.evaluation import KittiEvaluation, evaluate_kitti
from geoiou.io import read_kitti_labels
from geoiou.tables import KittiObjects
from kitti_scenes import kitti_scene, label_lines

CLASSES = {"Car": 0.7, "Pedestrian": 0.5, "Cyclist": 0.5}
HEIGHT, OCCLUSION, TRUNCATION = (40, 25, 25), (0, 1, 2), (0.15, 0.3, 0.5)


# --------------------------------------------------------------------------- the oracle
def _footprint(objects: KittiObjects, row: int) -> shapely.Polygon:
    """The box seen from above in the camera's (x, z) plane: KITTI's own corners (R_y(ry) on ±l/2, ±w/2)."""
    h, w, length = objects.dimensions[row]
    x, _, z = objects.location[row]
    ry = objects.rotation_y[row]
    c, s = np.cos(ry), np.sin(ry)
    corners = [
        (x + c * dx + s * dz, z - s * dx + c * dz)
        for dx, dz in ((-length / 2, -w / 2), (length / 2, -w / 2), (length / 2, w / 2), (-length / 2, w / 2))
    ]
    return shapely.Polygon(corners)


def _overlap(metric: str, det: KittiObjects, d: int, gt: KittiObjects, g: int) -> float:
    if metric == "bbox":
        a, b = shapely.box(*det.bbox[d]), shapely.box(*gt.bbox[g])
        inter = shapely.intersection(a, b).area
        return inter / (a.area + b.area - inter) if inter > 0 else 0.0
    fa, fb = _footprint(det, d), _footprint(gt, g)
    inter = shapely.intersection(fa, fb).area
    if metric == "bev":
        return inter / (fa.area + fb.area - inter) if inter > 0 else 0.0
    (ha, _, _), (hb, _, _) = det.dimensions[d], gt.dimensions[g]
    ya, yb = det.location[d][1], gt.location[g][1]
    height = max(0.0, min(ya, yb) - max(ya - ha, yb - hb))  # y down: the box spans [y - h, y]
    volume = inter * height
    va, vb = np.prod(det.dimensions[d]), np.prod(gt.dimensions[g])
    return volume / (va + vb - volume) if volume > 0 else 0.0


def _statistics(overlaps, gt_flags, dt_flags, scores, dc_shares, threshold, cut, compute_fp):
    """One image: the devkit's loop over ground truths, then false positives and don't-care regions."""
    assigned = [False] * len(scores)
    below = [compute_fp and s < cut for s in scores]
    tp = fp = fn = 0
    tp_scores = []
    for g, gflag in enumerate(gt_flags):
        if gflag == -1:
            continue
        chosen, valid, best, took_ignored = -1, None, 0.0, False
        for d, dflag in enumerate(dt_flags):
            if dflag == -1 or assigned[d] or below[d] or not overlaps[d][g] > threshold:
                continue
            if not compute_fp:
                if valid is None or scores[d] > valid:
                    chosen, valid = d, scores[d]
            elif (overlaps[d][g] > best or took_ignored) and dflag == 0:
                chosen, valid, best, took_ignored = d, 1, overlaps[d][g], False
            elif valid is None and dflag == 1:
                chosen, valid, took_ignored = d, 1, True
        if valid is None:
            fn += gflag == 0
        elif gflag == 1 or dt_flags[chosen] == 1:
            assigned[chosen] = True
        else:
            tp += 1
            tp_scores.append(scores[chosen])
            assigned[chosen] = True
    if compute_fp:
        fp = sum(not (assigned[d] or dt_flags[d] != 0 or below[d]) for d in range(len(scores)))
        for shares in dc_shares:
            for d, share in enumerate(shares):
                if not (assigned[d] or dt_flags[d] != 0 or below[d]) and share > threshold:
                    assigned[d] = True
                    fp -= 1
    return tp, fp, fn, tp_scores


def _oracle(truth: KittiObjects, found: KittiObjects, metric: str, name: str, difficulty: int) -> tuple[float, float]:
    """AP R40 and R11 of one metric, class and difficulty, image by image in plain Python."""
    threshold = CLASSES[name]
    images = sorted(set(truth.images) | set(found.images))
    per_image, positives, all_scores = [], 0, []
    for image in images:
        gts = [r for r in np.flatnonzero(truth.image_id == image) if truth.type[r] != "DontCare"]
        dcs = [r for r in np.flatnonzero(truth.image_id == image) if truth.type[r] == "DontCare"]
        dts = list(np.flatnonzero(found.image_id == image))
        gt_flags = []
        for g in gts:
            kind = truth.type[g].lower()
            valid = (
                1
                if kind == name.lower()
                else 0
                if (name, kind) in (("Car", "van"), ("Pedestrian", "person_sitting"))
                else -1
            )
            height = truth.bbox[g][3] - truth.bbox[g][1]
            outside = (
                truth.occluded[g] > OCCLUSION[difficulty]
                or truth.truncated[g] > TRUNCATION[difficulty]
                or height <= HEIGHT[difficulty]
            )
            gt_flags.append(0 if valid == 1 and not outside else 1 if valid == 0 or (valid == 1 and outside) else -1)
            positives += gt_flags[-1] == 0
        dt_flags = [
            1
            if abs(found.bbox[d][3] - found.bbox[d][1]) < HEIGHT[difficulty]
            else 0
            if found.type[d].lower() == name.lower()
            else -1
            for d in dts
        ]
        overlaps = [[_overlap(metric, found, d, truth, g) for g in gts] for d in dts]
        shares = []
        if metric == "bbox":
            for c in dcs:
                care = shapely.box(*truth.bbox[c])
                shares.append(
                    [
                        shapely.intersection(shapely.box(*found.bbox[d]), care).area / shapely.box(*found.bbox[d]).area
                        for d in dts
                    ]
                )
        scores = [float(found.score[d]) for d in dts]
        per_image.append((overlaps, gt_flags, dt_flags, scores, shares))
        all_scores += _statistics(overlaps, gt_flags, dt_flags, scores, shares, threshold, 0.0, False)[3]
    # getThresholds
    ordered, cuts, current = sorted(all_scores, reverse=True), [], 0.0
    for i, score in enumerate(ordered):
        left = (i + 1) / positives
        right = (i + 2) / positives if i < len(ordered) - 1 else left
        if right - current < current - left and i < len(ordered) - 1:
            continue
        cuts.append(score)
        current += 1 / 40
    precision = [0.0] * 41
    for t, cut in enumerate(cuts):
        tp = fp = 0
        for data in per_image:
            a, b, _, _ = _statistics(*data, threshold, cut, True)
            tp, fp = tp + a, fp + b
        precision[t] = tp / (tp + fp)
    for t in range(len(cuts)):
        precision[t] = max(precision[t:])
    return sum(precision[1:]) / 40 * 100, sum(precision[::4]) / 11 * 100


# --------------------------------------------------------------------------- the checks
@pytest.fixture(scope="module")
def scene() -> tuple[KittiObjects, KittiObjects]:
    return kitti_scene(7, images=30)


def test_every_ap_matches_the_oracle(scene):
    truth, found = scene
    result = evaluate_kitti(truth, found)
    for m, metric in enumerate(result.metrics):
        for c, name in enumerate(result.classes):
            for d in range(3):
                r40, r11 = _oracle(truth, found, metric, name, d)
                assert result.ap_r40[m, c, d] == pytest.approx(r40, abs=1e-9), (metric, name, d)
                assert result.ap_r11[m, c, d] == pytest.approx(r11, abs=1e-9), (metric, name, d)
    assert result.ap_r40.max() > 50  # a scene where the detector finds things


#: mmdet3d 1.4.0's copy of KITTI's Python evaluation (`mmdet3d/evaluation/functional/kitti_utils/eval.py`, its
#: `do_eval` with the thresholds 0.7/0.5/0.5), run on `kitti_scene(1, images=60)` with numba's CUDA simulator
#: (its BEV overlap is a CUDA kernel) by tools/kitti_reference.py: [metric][class] -> easy, moderate, hard.
REFERENCE_R40 = {
    "bbox": {"Car": [25.0, 78.037, 80.903], "Pedestrian": [20.0, 74.7143, 84.5131], "Cyclist": [7.5, 46.6129, 61.7568]},
    "bev": {
        "Car": [24.0476, 71.378, 72.6678],
        "Pedestrian": [16.375, 64.7332, 74.0249],
        "Cyclist": [6.5, 41.9737, 53.9507],
    },
    "3d": {
        "Car": [14.3889, 56.398, 64.1593],
        "Pedestrian": [16.375, 58.3744, 66.8499],
        "Cyclist": [6.5, 41.9737, 53.9507],
    },
}
REFERENCE_R11 = {
    "bbox": {
        "Car": [27.2727, 78.7538, 80.0611],
        "Pedestrian": [27.2727, 72.7273, 81.8182],
        "Cyclist": [9.0909, 45.4545, 63.6364],
    },
    "bev": {
        "Car": [27.2727, 69.3462, 70.7231],
        "Pedestrian": [18.1818, 66.7241, 69.9489],
        "Cyclist": [9.0909, 44.9761, 53.7549],
    },
    "3d": {
        "Car": [16.6667, 55.6006, 66.2362],
        "Pedestrian": [18.1818, 55.86, 67.4939],
        "Cyclist": [9.0909, 44.9761, 53.7549],
    },
}


def test_the_numbers_of_kittis_python_evaluation():
    result = evaluate_kitti(*kitti_scene(1, images=60))
    for table, reference in ((result.ap_r40, REFERENCE_R40), (result.ap_r11, REFERENCE_R11)):
        for m, metric in enumerate(result.metrics):
            for c, name in enumerate(result.classes):
                np.testing.assert_allclose(table[m, c], reference[metric][name], atol=5e-5)


def test_parts_merge_to_the_one_call_result(scene):
    truth, found = scene
    whole = evaluate_kitti(truth, found)
    images = sorted(set(truth.images) | set(found.images))
    halves = [images[: len(images) // 2], images[len(images) // 2 :]]
    states = []
    for half in halves:
        keep_truth = np.flatnonzero(np.isin(truth.image_id, half))
        keep_found = np.flatnonzero(np.isin(found.image_id, half))
        part_truth = KittiObjects(**_columns(truth, keep_truth), images=half)
        part_found = KittiObjects(**_columns(found, keep_found), images=half)
        states.append(KittiEvaluation().update(part_truth, part_found))
    merged = states[0].merge(states[1]).compute()
    np.testing.assert_array_equal(merged.ap_r40, whole.ap_r40)
    np.testing.assert_array_equal(merged.ap_r11, whole.ap_r11)
    with pytest.raises(ValueError, match="image"):
        states[0].merge(states[0]).compute()


def _columns(objects: KittiObjects, rows: np.ndarray) -> dict:
    names = ("image_id", "type", "truncated", "occluded", "alpha", "bbox", "dimensions", "location", "rotation_y")
    columns = {name: getattr(objects, name)[rows] for name in names}
    if objects.score is not None:
        columns["score"] = objects.score[rows]
    return columns


def _one(kind="Car", bbox=(100, 100, 200, 180), location=(2.0, 1.7, 20.0), score=None, occluded=0, image="000000"):
    scores = None if score is None else [score]
    return dict(image_id=[image], type=[kind], truncated=[0.0], occluded=[occluded], alpha=[0.0], bbox=[bbox],
                dimensions=[[1.5, 1.6, 3.9]], location=[location], rotation_y=[0.0], score=scores)  # fmt: skip


def _many(rows: list[dict]) -> KittiObjects:
    keys = rows[0].keys()
    joined = {k: sum((r[k] for r in rows), []) if rows[0][k] is not None else None for k in keys}
    return KittiObjects(**joined)


def test_a_van_found_as_a_car_is_ignored_and_dontcare_regions_clear_image_box_false_positives():
    cars = [_one(image=f"{i:06d}") for i in range(80)]
    van = _one(kind="Van", location=(-5.0, 1.7, 20.0), bbox=(400, 100, 500, 180), image="000080")
    care = dict(
        _one(kind="DontCare", bbox=(600, 100, 700, 200), image="000081"),
        dimensions=[[-1, -1, -1]],
        location=[[-1000] * 3],
    )
    truth = _many([*cars, van, care])
    guesses = [_one(score=1.0 - i / 200, image=f"{i:06d}") for i in range(80)]
    on_van = _one(location=(-5.0, 1.7, 20.0), bbox=(400, 100, 500, 180), image="000080", score=0.95)
    in_care = _one(location=(30.0, 1.7, 20.0), bbox=(610, 110, 690, 190), image="000081", score=0.99)
    found = _many([*guesses, on_van, in_care])
    result = evaluate_kitti(truth, found, classes={"Car": 0.7})
    # 80 cars found, the van's match counts neither way; the don't-care region clears the 2-D false positive only.
    assert result.ap("bbox", "Car", "moderate", 11) == pytest.approx(100.0)
    assert result.ap("3d", "Car", "moderate", 11) < 100.0
    assert result.num_ground_truths.tolist() == [[80, 80, 80]]


def test_reader_round_trip_and_faults(tmp_path, scene):
    truth, found = scene
    for objects, folder in ((truth, tmp_path / "label_2"), (found, tmp_path / "results")):
        folder.mkdir()
        for image in objects.images:
            (folder / f"{image}.txt").write_text(label_lines(objects, image))
    read_truth, read_found = read_kitti_labels(tmp_path / "label_2"), read_kitti_labels(tmp_path / "results")
    assert read_truth.images == truth.images and read_found.score is not None
    np.testing.assert_array_equal(read_truth.type, truth.type)
    np.testing.assert_allclose(read_truth.location, truth.location, atol=5e-3)
    again = evaluate_kitti(read_truth, read_found)
    assert again.ap_r40.shape == (3, 3, 3)
    (tmp_path / "label_2" / "bad.txt").write_text("Car 0 0 0 1 2 3\n")
    from geoiou import FormatError

    with pytest.raises(FormatError, match=r"bad\.txt, line 1: a KITTI line must have 15 fields"):
        read_kitti_labels(tmp_path / "label_2")


def test_refusals():
    truth = _many([_one()])
    with pytest.raises(ValueError, match="'predictions' must be results with a score"):
        evaluate_kitti(truth, truth)
    with pytest.raises(ValueError, match=r"classes\['Car'\]. must be an overlap threshold"):
        KittiEvaluation(classes={"Car": 1.5})
    with pytest.raises(ValueError, match="'metrics' must be a sequence of"):
        KittiEvaluation(metrics=["aos"])


def test_command_line(tmp_path, scene, capsys):
    """``geoiou eval label_2/ results/``: detected as KITTI, the devkit's printout, the APs of `evaluate_kitti`."""
    import json

    from geoiou.cli import main

    truth, found = scene
    for objects, folder in ((truth, tmp_path / "label_2"), (found, tmp_path / "results")):
        folder.mkdir()
        for image in objects.images:
            (folder / f"{image}.txt").write_text(label_lines(objects, image))
    out = tmp_path / "kitti.json"
    assert main(["eval", str(tmp_path / "label_2"), str(tmp_path / "results"), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Car AP_R40@0.70, 0.70, 0.70:" in printed and "  3d AP:" in printed
    expected = evaluate_kitti(read_kitti_labels(tmp_path / "label_2"), read_kitti_labels(tmp_path / "results"))
    result = json.loads(out.read_text())["result"]
    assert result == expected.to_dict()
    # The layout every protocol's JSON shares: protocol, headline numbers by name, one row per category.
    assert result["protocol"] == "kitti"
    assert result["headline"]["3d/Car/moderate/R40"] == expected.ap("3d", "Car", "moderate")
    assert [row["category_id"] for row in result["per_category"]] == ["Car", "Pedestrian", "Cyclist"]
    assert result["per_category"][1]["bev/hard/R11"] == expected.ap("bev", "Pedestrian", "hard", points=11)
    assert len(result["ap"]) == 3 * 3 * 3 * 2
    assert (
        main(["eval", str(tmp_path / "label_2"), str(tmp_path / "results"), "--csv", str(tmp_path / "kitti.csv")]) == 0
    )
    rows = (tmp_path / "kitti.csv").read_text().splitlines()
    assert rows[0].split(",")[:5] == ["metric", "class", "difficulty", "points", "ap"] and len(rows) == 1 + 54
    assert main(["eval", str(tmp_path / "results"), str(tmp_path / "label_2")]) == 1
    assert "did you swap them?" in capsys.readouterr().err
