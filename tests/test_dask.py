"""geoiou.dask on a real cluster: a LocalCluster of two worker processes, results equal to the local ones.

Evaluations are compared with the one-call functions bit for bit (the arrays behind the summary
numbers), overlaps pair for pair with `geoiou.overlaps`, matchings with `geoiou.match`. One test
kills a worker in the middle of a run: the scheduler reruns its tasks and the result is the same.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import geoiou
from geoiou.cli import main
from geoiou.evaluation import (
    ActionSegmentationEvaluation,
    Annotations,
    CocoEvaluation,
    ConfusionMatrix,
    JaccardEvaluation,
    TemporalDetectionEvaluation,
    TemporalSegments,
    VocEvaluation,
    evaluate_action_segmentation,
    evaluate_agreement,
    evaluate_coco,
    evaluate_temporal_detection,
    evaluate_voc,
    jaccard,
)
from geoiou.tables.segments import as_segments
from tests.evaluation.test_mergeable import assert_same_matches, detection_set, temporal_set

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")
gd = pytest.importorskip("geoiou.dask")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::ResourceWarning")


def local_cluster(workers: int = 2) -> distributed.LocalCluster:
    return gd.local_cluster(workers, silence_logs=50)


@pytest.fixture(scope="module")
def client():
    with local_cluster() as cluster, distributed.Client(cluster) as connected:
        yield connected


def rings(centers: np.ndarray, radius: float = 3.0, sides: int = 12) -> geoiou.Polygon:
    angle = np.linspace(0, 2 * np.pi, sides + 1)[:-1]
    return geoiou.Polygon.from_rings(radius * np.c_[np.cos(angle), np.sin(angle)][None] + centers[:, None, :])


def assert_same_overlaps(found, expected) -> None:
    assert found.shape == expected.shape
    for name in ("index_a", "index_b", "iou"):
        np.testing.assert_array_equal(getattr(found, name), getattr(expected, name), err_msg=name)


# --------------------------------------------------------------------------- evaluations
def test_coco_on_the_cluster_equals_the_local_evaluation(client):
    truth, predictions, images = detection_set(21, n_images=80)
    whole = evaluate_coco(truth, predictions, images=images)
    split = gd.evaluate_coco(truth, predictions, images=images, client=client, partitions=7)
    for name in ("precision", "recall", "scores"):
        np.testing.assert_array_equal(getattr(split, name), getattr(whole, name))
    assert_same_matches(split, whole)


def shuffled(annotations: Annotations, seed: int) -> Annotations:
    """The same boxes in another row order: rows of the images interleaved, as a detector's results often are."""
    order = np.random.default_rng(seed).permutation(len(annotations))
    boxes = np.concatenate([piece.to_array() for piece in annotations.regions])[order]
    columns = {name: getattr(annotations, name) for name in ("image_id", "category_id", "score", "iscrowd", "ignore")}
    kept = {name: np.asarray(values)[order] for name, values in columns.items() if values is not None}
    return Annotations(region=geoiou.Box(boxes), **kept)


@pytest.mark.parametrize("protocol", ["coco", "voc", "agreement"])
def test_rows_not_grouped_by_image_keep_their_numbers_on_the_cluster(client, protocol):
    """The parts hold each image's rows together; the result's per-object rows are still the input's."""
    truth, predictions, images = detection_set(27, n_images=40, crowd=protocol == "coco")
    truth, predictions = shuffled(truth, 1), shuffled(predictions, 2)
    if protocol == "agreement":
        whole = evaluate_agreement(truth, predictions, method="optimal")
        split = gd.evaluate_agreement(truth, predictions, method="optimal", client=client, partitions=5)
        assert split.to_json(pairs=True) == whole.to_json(pairs=True)
        for name in ("image_a", "image_b", "category_a", "category_b"):
            np.testing.assert_array_equal(getattr(split, name), getattr(whole, name), err_msg=name)
        return
    evaluate, distributed_evaluate = (
        (evaluate_coco, gd.evaluate_coco) if protocol == "coco" else (evaluate_voc, gd.evaluate_voc)
    )
    whole = evaluate(truth, predictions, images=images)
    split = distributed_evaluate(truth, predictions, images=images, client=client, partitions=5)
    assert_same_matches(split, whole)


def test_segments_not_grouped_by_video_keep_their_numbers_on_the_cluster(client):
    truth, predictions = temporal_set(9, n_videos=20)
    records = [(video, *row) for video, rows in predictions.items() for row in rows]
    order = np.random.default_rng(3).permutation(len(records))
    interleaved = TemporalSegments(
        video_id=[records[k][0] for k in order],
        start=[records[k][1] for k in order],
        end=[records[k][2] for k in order],
        label=[records[k][3] for k in order],
        score=[records[k][4] for k in order],
        videos=list(truth),
    )
    whole = evaluate_temporal_detection(truth, interleaved)
    split = gd.evaluate_temporal_detection(truth, interleaved, client=client, partitions=4)
    assert_same_matches(split, whole)


def test_coco_segmentation_with_rle_masks_on_the_cluster(client):
    rng = np.random.default_rng(4)
    masks = geoiou.Mask.from_rle(geoiou.Mask(rng.random((12, 30, 40)) < 0.3).to_rle())  # held as COCO runs
    truth = Annotations(image_id=np.repeat(np.arange(6), 2), category_id=1, region=masks)
    preds = Annotations(image_id=np.repeat(np.arange(6), 2), category_id=1, region=masks[::-1], score=rng.random(12))
    images = {image: (30, 40) for image in range(6)}
    whole = evaluate_coco(truth, preds, images=images)
    np.testing.assert_array_equal(
        gd.evaluate_coco(truth, preds, images=images, client=client).precision, whole.precision
    )


def test_lvis_on_the_cluster_equals_the_local_evaluation(client):
    """LVIS's federated labels go to every part: the cluster's arrays are the one call's."""
    from geoiou.evaluation import FederatedLabels
    from geoiou.io import read_coco_results
    from tests.evaluation.test_federated import lvis_truth
    from tests.pycocotools.dropin_datasets import lvis_dataset

    dataset, results = lvis_dataset(3)
    for result in results:
        del result["segmentation"]
    truth = lvis_truth(dataset, "bbox")
    predictions = read_coco_results(results, geometry="bbox").annotations
    options = {
        "images": [image["id"] for image in dataset["images"]],
        "categories": [category["id"] for category in dataset["categories"]],
        "max_detections": (300,),
        "federated": FederatedLabels.read(dataset, max_per_image=12),
    }
    whole = evaluate_coco(truth, predictions, **options)
    split = gd.evaluate_coco(truth, predictions, client=client, partitions=5, **options)
    np.testing.assert_array_equal(split.precision, whole.precision)
    assert whole["AP50"] > 0.2
    assert_same_matches(split, whole)  # by the input rows, though LVIS's rules evaluate some of them


def test_voc_on_the_cluster_keeps_ties_in_input_order(client):
    truth, predictions, images = detection_set(5, crowd=False)
    whole = evaluate_voc(truth, predictions, images=images, interpolation="11point")
    split = gd.evaluate_voc(truth, predictions, images=images, interpolation="11point", client=client, partitions=5)
    np.testing.assert_array_equal(split.ap, whole.ap)
    assert_same_matches(split, whole)


def test_temporal_detection_on_the_cluster(client):
    truth, predictions = temporal_set(8, n_videos=30)
    whole = evaluate_temporal_detection(truth, predictions)
    split = gd.evaluate_temporal_detection(truth, predictions, client=client, partitions=4)
    np.testing.assert_array_equal(split.ap, whole.ap)
    assert_same_matches(split, whole)


def test_agreement_on_the_cluster(client):
    truth, predictions, _ = detection_set(12, crowd=False)
    whole = evaluate_agreement(truth, predictions, method="optimal")
    split = gd.evaluate_agreement(truth, predictions, method="optimal", client=client, partitions=6)
    assert split.to_json(pairs=True) == whole.to_json(pairs=True)
    truth, predictions = temporal_set(2)
    a = TemporalSegments.from_records({v: [r[:3] for r in rows] for v, rows in truth.items()})
    b = TemporalSegments.from_records({v: [r[:3] for r in rows] for v, rows in predictions.items()})
    assert gd.evaluate_agreement(a, b, client=client).to_json() == evaluate_agreement(a, b).to_json()


def test_any_state_over_parts_given_by_the_user(client):
    rng = np.random.default_rng(1)
    truth = {f"v{i}": np.repeat(rng.integers(0, 3, 6), rng.integers(1, 6, 6)) for i in range(8)}
    predicted = {v: np.where(rng.random(len(t)) < 0.2, 0, t) for v, t in truth.items()}
    parts = [
        ({v: truth[v] for v in vs}, {v: predicted[v] for v in vs})
        for vs in (["v0", "v1", "v2"], ["v3"], ["v4", "v5", "v6", "v7"])
    ]
    split = gd.evaluate(ActionSegmentationEvaluation(background=0), parts, client=client)
    whole = evaluate_action_segmentation(truth, predicted, background=0)
    assert (split.accuracy, split.edit, split.videos) == (whole.accuracy, whole.edit, whole.videos)
    labels = rng.random((30, 4)) < 0.4, rng.random((30, 4)) < 0.4
    split = gd.evaluate(
        JaccardEvaluation(average="samples"),
        [(labels[0][r], labels[1][r]) for r in np.split(np.arange(30), [9, 20])],
        client=client,
    )
    assert split == jaccard(*labels, average="samples")
    maps = rng.integers(0, 3, (4, 5, 5))
    assert (
        gd.evaluate(ConfusionMatrix(3), [(m, m[::-1]) for m in maps], client=client).miou
        == ConfusionMatrix(3).update(maps, maps[:, ::-1]).compute().miou
    )


def test_diagnostics_on_the_cluster_equal_the_local_ones(client):
    from geoiou.diagnostics import DiagnosticsEvaluation
    from geoiou.evaluation import CocoEvaluation
    from tests.diagnostics.test_diagnostics_state import assert_same_tables

    truth, predictions, images = detection_set(31, n_images=30)
    state = DiagnosticsEvaluation(CocoEvaluation(categories=[1, 2, 3, 9]))
    parts = [
        {"ground_truth": truth.take(np.isin(truth.image_id, part)),
         "predictions": predictions.take(np.isin(predictions.image_id, part)), "images": list(part)}
        for part in np.array_split(np.arange(30), 4)
    ]  # fmt: skip
    split = gd.evaluate(state, parts, client=client)
    whole = state.empty().update(truth, predictions, images=images).compute()
    assert_same_tables(split, whole)
    assert split.tide().to_dict() == whole.tide().to_dict()


@pytest.mark.parametrize("protocol", ["coco", "voc", "temporal"])
def test_diagnostics_split_by_image_or_video_equal_one_update(client, protocol):
    """Rows interleaved across images: the split's table, TIDE and calibration are the one update's, bit for bit."""
    from geoiou.diagnostics import DiagnosticsEvaluation
    from tests.diagnostics.test_diagnostics_state import assert_same_tables

    update: dict = {}
    if protocol == "temporal":
        truth, predictions = (as_segments(side, "side") for side in temporal_set(37))
        state = DiagnosticsEvaluation(TemporalDetectionEvaluation(tiou_thresholds=[0.3, 0.5, 0.7]))
    else:
        truth, predictions, images = detection_set(37, n_images=30, crowd=protocol == "coco")
        truth, predictions, update = shuffled(truth, 3), shuffled(predictions, 4), {"images": images}
        state = DiagnosticsEvaluation(
            CocoEvaluation(categories=[1, 2, 3, 9]) if protocol == "coco" else VocEvaluation()
        )
    split = gd.evaluate_split(state, truth, predictions, client=client, partitions=5, **update)
    whole = state.empty().update(truth, predictions, **update).compute()
    assert_same_tables(split, whole)
    assert split.tide().to_dict() == whole.tide().to_dict()
    assert split.calibration().to_dict() == whole.calibration().to_dict()
    assert split.label_errors().to_records() == whole.label_errors().to_records()
    assert_same_matches(split.result, whole.result)


def test_a_split_of_temporal_segments_takes_no_image_list(client):
    truth, predictions = (as_segments(side, "side") for side in temporal_set(3))
    with pytest.raises(geoiou.InvalidArgumentError, match="'images' must be None with temporal segments"):
        gd.evaluate_split(TemporalDetectionEvaluation(), truth, predictions, images=[1], client=client)


def test_parts_read_on_the_workers(client, tmp_path):
    """Shards read by tasks: only paths travel; each worker reads its shard."""
    truth, predictions, images = detection_set(30, n_images=40)
    paths = []
    for k, part in enumerate(np.array_split(np.arange(40), 4)):
        path = tmp_path / f"shard{k}.pkl"
        path.write_bytes(
            pickle.dumps(
                (
                    truth.take(np.isin(truth.image_id, part)),
                    predictions.take(np.isin(predictions.image_id, part)),
                    part.tolist(),
                )
            )
        )
        paths.append(str(path))
    read = dask.delayed(
        lambda path: dict(zip(("ground_truth", "predictions", "images"), pickle.loads(open(path, "rb").read())))
    )
    split = gd.evaluate(CocoEvaluation(), [read(path) for path in paths], client=client)
    np.testing.assert_array_equal(split.precision, evaluate_coco(truth, predictions, images=images).precision)


# --------------------------------------------------------------------------- overlaps and matching
def test_overlaps_on_the_cluster_equal_the_local_search(client):
    rng = np.random.default_rng(0)
    a, b = rings(rng.random((3000, 2)) * 150), rings(rng.random((3000, 2)) * 150)
    for min_iou in (0.0, 0.3):
        assert_same_overlaps(
            gd.overlaps(a, b, min_iou=min_iou, client=client, partitions=9), geoiou.overlaps(a, b, min_iou=min_iou)
        )


def test_each_pair_is_found_once_when_regions_span_many_cells(client):
    rng = np.random.default_rng(3)
    corners = rng.random((500, 2)) * 100
    small = geoiou.Box(np.c_[corners, corners + rng.uniform(1, 6, (500, 2))])
    large = geoiou.Box([[0, 0, 100, 100], [10, 10, 90, 90], [-5, 40, 105, 60]])  # across every cell
    same = geoiou.RotatedBox(np.c_[rng.random((400, 2)) * 100, rng.uniform(1, 30, (400, 2)), rng.uniform(0, 180, 400)])
    for a, b in ((small, large), (large, small), (same, same), (same, small)):
        assert_same_overlaps(gd.overlaps(a, b, client=client, partitions=16), geoiou.overlaps(a, b))
    # 3-D boxes: cells of the plane, from their bounds seen from above.
    solid = geoiou.RotatedBox3D(
        np.c_[
            rng.random((400, 2)) * 100, rng.uniform(0, 4, 400), rng.uniform(1, 30, (400, 3)), rng.uniform(0, 180, 400)
        ]
    )
    assert_same_overlaps(gd.overlaps(solid, solid, client=client, partitions=16), geoiou.overlaps(solid, solid))


def test_overlaps_of_dask_geopandas_collections(client):
    dask_geopandas = pytest.importorskip("dask_geopandas")
    geopandas = pytest.importorskip("geopandas")
    rng = np.random.default_rng(2)
    a, b = rings(rng.random((800, 2)) * 60), rings(rng.random((700, 2)) * 60)
    frame_a = dask_geopandas.from_geopandas(geopandas.GeoDataFrame(geometry=a.to_shapely()), npartitions=3)
    frame_b = dask_geopandas.from_geopandas(geopandas.GeoDataFrame(geometry=b.to_shapely()), npartitions=2)
    assert_same_overlaps(gd.overlaps(frame_a, frame_b, min_iou=0.1, client=client), geoiou.overlaps(a, b, min_iou=0.1))


@pytest.mark.parametrize("method", ["greedy", "optimal"])
def test_matching_with_components_across_cells_equals_the_local_matching(client, method):
    # Chains of overlapping boxes along x: each chain is one component crossing many cells, where
    # greedy and optimal differ.
    x = np.arange(0, 100, 0.7)
    a = geoiou.Box(np.c_[x, np.zeros_like(x), x + 1, np.ones_like(x)])
    b = geoiou.Box(np.c_[x + 0.35, np.zeros_like(x), x + 1.35, np.ones_like(x)])
    local = geoiou.match(a, b, min_iou=0.1, method=method)
    split = gd.match(a, b, min_iou=0.1, method=method, client=client, partitions=16)
    for name in ("index_a", "index_b", "iou", "unmatched_a", "unmatched_b"):
        np.testing.assert_array_equal(getattr(split, name), getattr(local, name))
    cells = np.unique(np.searchsorted(np.quantile(x, np.linspace(0, 1, 5)[1:-1]), x))
    assert len(cells) > 1  # the chain does cross cells


# --------------------------------------------------------------------------- faults and options
def _slow(part, delay):
    time.sleep(delay)
    return part


def test_a_worker_killed_in_the_middle_of_a_run_changes_nothing():
    truth, predictions, images = detection_set(17, n_images=60)
    expected = evaluate_coco(truth, predictions, images=images)
    from geoiou.dask.evaluations import split_detection

    parts = [dask.delayed(_slow)(part, 0.3) for part in split_detection(truth, predictions, images, 12).parts]
    with local_cluster() as cluster, distributed.Client(cluster) as connected:
        pids = list(connected.run(os.getpid).values())
        with ThreadPoolExecutor(1) as pool:
            running = pool.submit(gd.evaluate, CocoEvaluation(), parts, client=connected)
            time.sleep(0.8)  # some parts done, others running or waiting
            assert not running.done()
            os.kill(pids[0], signal.SIGKILL)
            result = running.result(timeout=60)
        assert pids[0] not in connected.run(os.getpid).values()  # the killed process is gone
    for name in ("precision", "recall", "scores"):
        np.testing.assert_array_equal(getattr(result, name), getattr(expected, name))
    assert_same_matches(result, expected)


def test_a_cluster_is_named_one_way_only():
    with pytest.raises(geoiou.InvalidArgumentError, match="'scheduler' must be not given together with 'workers'"):
        gd.overlaps(geoiou.Box([[0, 0, 1, 1]]), geoiou.Box([[0, 0, 1, 1]]), workers=2, scheduler="tcp://nowhere:1")
    with pytest.raises(geoiou.InvalidArgumentError, match="'partitions' must be a positive number of parts"):
        gd.evaluate_coco(*detection_set(1)[:2], partitions=0, client=object())
    with pytest.raises(geoiou.InvalidArgumentError, match="'parts' must be at least one part"):
        gd.evaluate(CocoEvaluation(), [])


def test_regions_travel_as_coordinate_arrays():
    polygons = rings(np.random.default_rng(0).random((1000, 2)) * 100)
    _ = polygons.to_shapely(), polygons.area  # caches are not sent
    assert len(pickle.dumps(polygons[:10])) < 3500  # 10 of 1000: 13 vertices each, not the whole store
    masks = geoiou.Mask(np.random.default_rng(0).random((50, 40, 40)) < 0.5)
    assert len(pickle.dumps(masks[:2])) < 500 + 2 * 40 * 40 / 8
    for sent in (polygons[3:9], masks[[4, 1]], masks[7]):
        back = pickle.loads(pickle.dumps(sent))
        np.testing.assert_array_equal(np.asarray(geoiou.iou(sent, back)), np.ones(sent.shape))


# --------------------------------------------------------------------------- command line
TOUR = Path(__file__).resolve().parent.parent / "geoiou" / "data" / "tour"
DOTA = Path(__file__).resolve().parent.parent / "geoiou" / "data" / "dota"


@pytest.mark.parametrize(
    "command",
    [
        ["eval", TOUR / "coco" / "instances.json", TOUR / "coco" / "results-segm.json"],
        ["eval", DOTA, TOUR / "dota-task1"],
        ["eval", TOUR / "activitynet" / "ground_truth.json", TOUR / "activitynet" / "results.json"],
        ["compare", DOTA, TOUR / "dota-annotator-b", "--method", "optimal"],
    ],
)
def test_the_command_line_on_a_cluster_writes_the_same_result(client, tmp_path, command):
    here, there = tmp_path / "here.json", tmp_path / "there.json"
    assert main([*map(str, command), "--json", str(here)]) == 0
    assert main([*map(str, command), "--json", str(there), "--scheduler", client.scheduler.address]) == 0
    assert there.read_text() == here.read_text()


@pytest.mark.parametrize(
    "command",
    [
        ["eval", TOUR / "coco" / "instances.json", TOUR / "coco" / "results-bbox.json", "--diagnose"],
        ["eval", TOUR / "activitynet" / "ground_truth.json", TOUR / "activitynet" / "results.json", "--diagnose"],
        ["report", DOTA, TOUR / "dota-task1", "-o", "{tmp}/page.html"],  # DOTA's results: one file per category
    ],
)
def test_diagnostics_and_reports_on_a_cluster_write_the_same_numbers(client, tmp_path, command):
    written = []
    for name, cluster in (("here", []), ("there", ["--scheduler", client.scheduler.address])):
        out = tmp_path / f"{name}.json"
        arguments = [str(argument).replace("{tmp}", str(tmp_path)) for argument in command]
        assert main([*arguments, "--json", str(out), *cluster]) == 0
        written.append(json.loads(out.read_text()))
    assert written[0] == written[1]


def test_the_command_line_starts_a_local_cluster_of_the_workers_asked_for(tmp_path, capsys):
    command = ["eval", str(TOUR / "coco" / "instances.json"), str(TOUR / "coco" / "results-bbox.json")]
    assert main([*command, "--workers", "1", "--json", str(tmp_path / "there.json")]) == 0
    assert main([*command, "--json", str(tmp_path / "here.json")]) == 0
    assert (tmp_path / "there.json").read_text() == (tmp_path / "here.json").read_text()
    with pytest.raises(SystemExit):
        main([*command, "--workers", "0"])
    assert "expected a positive number of workers (got '0')" in capsys.readouterr().err


def test_result_shards_read_on_the_workers_give_the_one_call_result(client, tmp_path):
    import json

    instances = TOUR / "coco" / "instances.json"
    records = json.loads((TOUR / "coco" / "results-segm.json").read_text())
    shards = []
    for k in range(3):  # interleaved by image, as ranks of distributed inference write them; one shard empty
        shard = tmp_path / f"results-{k}.json"
        shard.write_text(json.dumps([r for r in records if r["image_id"] % 2 == k]))
        shards.append(shard)
    from geoiou.io import read_coco, read_coco_results

    truth = read_coco(instances, geometry="segmentation", polygons="pycocotools")
    joined = [read_coco_results(shard, geometry="segmentation").annotations for shard in shards]
    from geoiou.dask.evaluations import joined_annotations

    whole = evaluate_coco(
        truth.annotations,
        joined_annotations(joined),
        images=truth.images,
        categories=list(truth.categories),
        polygon_iou="pycocotools",
    )
    split = gd.evaluate_coco_files(
        instances, shards, geometry="segmentation", polygon_iou="pycocotools", client=client, partitions=4
    )
    for name in ("precision", "recall", "scores"):
        np.testing.assert_array_equal(getattr(split, name), getattr(whole, name))
    assert_same_matches(split, whole)
    with pytest.raises(geoiou.InvalidArgumentError, match="'results' must be a non-empty sequence of result files"):
        gd.evaluate_coco_files(instances, str(shards[0]), client=client)


def test_parts_as_a_dask_bag(client):
    import dask.bag

    truth, predictions = temporal_set(6, n_videos=10)
    videos = list(truth)
    parts = dask.bag.from_sequence([({v: truth[v]}, {v: predictions[v]}) for v in videos], npartitions=3)
    from geoiou.evaluation import TemporalDetectionEvaluation

    split = gd.evaluate(TemporalDetectionEvaluation(), parts, client=client)
    np.testing.assert_array_equal(split.ap, evaluate_temporal_detection(truth, predictions).ap)
