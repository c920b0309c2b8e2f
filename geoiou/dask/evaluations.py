"""Evaluations on a Dask cluster: every part updated on a worker, the states merged in a tree, computed here.

A part is what one ``update`` of an evaluation state takes (the images of one shard with their
ground truth and predictions). Workers send back states, which hold no regions; merging is
cheap, so the tree's fan-in is wide. Parts are embedded in the task graph (or produced by tasks
such as file reads), never scattered: if a worker dies, the scheduler reruns its tasks from
the graph, and since ``update`` is a pure function of its part the result is the same.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, Sequence, TypeVar, cast

import numpy as np

from geoiou._distinct import distinct
from geoiou._progress import progress
from geoiou._validation import invalid_argument
from geoiou.dask.cluster import connected, part_count
from geoiou.diagnostics.result import Diagnostics
from geoiou.evaluation.agreement import AgreementEvaluation, AgreementResult
from geoiou.evaluation.results import CocoResult, VocResult
from geoiou.evaluation.coco import CocoEvaluation
from geoiou.evaluation.federated import FederatedLabels
from geoiou.evaluation.voc import VocEvaluation
from geoiou.evaluation.mergeable import MergeableEvaluation, joined_ids, merge_states, part_starts
from geoiou.evaluation.temporal import TemporalDetectionEvaluation, TemporalDetectionResult
from geoiou.grouped_overlaps import runs_by_key
from geoiou.tables.annotations import Annotations, as_annotations, id_list
from geoiou.tables.segments import TemporalSegments, as_segments

import dask
import distributed
from dask.delayed import delayed

__all__ = [
    "evaluate",
    "evaluate_agreement",
    "evaluate_coco",
    "evaluate_coco_files",
    "evaluate_split",
    "evaluate_temporal_detection",
    "evaluate_voc",
    "in_input_order",
]

ResultT = TypeVar("ResultT")
#: States merged per task of the reduction tree.
FAN_IN = 8


def _updated(state: MergeableEvaluation[Any], part: Any) -> MergeableEvaluation[Any]:
    """A worker's task: one part into an empty state (keyword arguments as a mapping, positional as a tuple)."""
    if isinstance(part, Mapping):
        return state.update(**part)  # type: ignore[attr-defined, no-any-return]
    return state.update(*part)  # type: ignore[attr-defined, no-any-return]


def _updated_with_each(state: MergeableEvaluation[Any], parts: list[Any]) -> MergeableEvaluation[Any]:
    """A worker's task for a partition of a dask Bag: every part of it, in order."""
    for part in parts:
        state = _updated(state, part)
    return state


def evaluate(
    evaluation: MergeableEvaluation[ResultT],
    parts: Sequence[Any],
    *,
    client: distributed.Client | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
) -> ResultT:
    """Run an evaluation over parts on a Dask cluster: exactly the result of one ``update`` per part, merged in order.

    Parameters
    ----------
    evaluation : MergeableEvaluation
        The settings (an empty state such as ``CocoEvaluation(max_detections=(1, 10, 100))``).
    parts : sequence or dask.bag.Bag
        The arguments of each ``update``: a tuple (positional), a mapping (keywords), or a
        `dask.delayed` object producing one (a shard read on the worker); or a dask Bag of
        them (each partition updates one state, its parts in order).
    client, workers, scheduler : optional
        Which cluster runs it (see `geoiou.dask.connected`).

    Returns
    -------
    The evaluation's result, as ``evaluation.update(part)`` for every part, merged, would give.

    Examples
    --------
    >>> from geoiou.evaluation import TemporalDetectionEvaluation
    >>> parts = [({"v1": [(0, 10, "run")]}, {"v1": [(0, 9, "run", 0.9)]}),
    ...          ({"v2": [(0, 10, "run")]}, {"v2": [(50, 60, "run", 0.8)]})]
    >>> evaluate(TemporalDetectionEvaluation(tiou_thresholds=[0.5]), parts, workers=1).mean_ap
    array([0.5])
    """
    if not isinstance(evaluation, MergeableEvaluation):
        raise invalid_argument("evaluation", "an evaluation state such as CocoEvaluation()", type(evaluation).__name__)
    empty = evaluation.empty()
    if hasattr(parts, "to_delayed") and hasattr(parts, "map_partitions"):  # a dask Bag: its items are the parts
        update_each = delayed(_updated_with_each, pure=True)
        states = [update_each(empty, partition) for partition in parts.to_delayed()]
    else:
        update = delayed(_updated, pure=True)
        states = [update(empty, part) for part in parts]
    if not states:
        raise invalid_argument("parts", "at least one part", "none")
    with connected(client, workers=workers, scheduler=scheduler) as active:
        result: ResultT = _merged(states, active)
    return result


def _merged(states: list[Any], client: distributed.Client, *also: Any) -> Any:
    """Compute the delayed states of the parts on the cluster (a bar counts them on a terminal), merge them there in a
    tree of fan-in `FAN_IN` and compute the result here; with `also`, delayed values computed with them: the
    result and their values.

    The futures keep the graph's lineage: if a worker is lost, the scheduler recomputes its states.
    """
    # Parts given in memory travel in the graph on purpose (see the module notes): no warning for it.
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": "4GB"}):
        level = client.compute(states)
        extra = client.compute(list(also)) if also else []
    for _ in progress(distributed.as_completed(level), total=len(level), label="parts"):
        pass
    while len(level) > 1:
        level = [client.submit(merge_states, level[start : start + FAN_IN]) for start in range(0, len(level), FAN_IN)]
    merged = level[0].result()
    values = client.gather(extra)
    return (merged.compute(), *values) if also else merged.compute()


# --------------------------------------------------------------------------- splitting by image
def image_parts(weights: np.ndarray, n_parts: int) -> np.ndarray:
    """The part of each image (images in sorted order): contiguous runs of about equal weight (rows to evaluate).

    Examples
    --------
    >>> image_parts(np.array([5, 1, 1, 1, 4, 4]), 3).tolist()  # each image where the middle of its rows falls
    [0, 1, 1, 1, 1, 2]
    """
    if not len(weights):
        return np.zeros(0, dtype=np.int64)
    cumulative = np.cumsum(weights, dtype=np.float64) - weights / 2  # the middle of each image's rows
    total = max(float(weights.sum()), 1.0)
    part = np.minimum((cumulative / total * n_parts).astype(np.int64), n_parts - 1)
    return np.unique(part, return_inverse=True)[1].astype(np.int64)  # no empty parts


def _code(ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Position of each value among the sorted `ids` (values missing there go to the nearest: the part's
    ``update`` then refuses them with the one-shot message)."""
    if not len(ids) or not len(values) or (ids.dtype.kind == "U") != (values.dtype.kind == "U"):
        return np.zeros(len(values), dtype=np.int64)
    return np.minimum(np.searchsorted(ids, values), len(ids) - 1)


@dataclass(frozen=True)
class Split:
    """The parts of an evaluation's two sides, and where their rows come from.

    ``truth_rows[k]`` (``predicted_rows[k]``) is the input row of row k of the parts' ground truths
    (predictions) joined in part order: the rows a merged result counts by, which
    `in_input_order` turns back into the input's.
    """

    parts: list[Any]
    truth_rows: np.ndarray
    predicted_rows: np.ndarray


def in_input_order(result: ResultT, split: Split) -> ResultT:
    """`result` of a split evaluation with its per-object rows (matches, an agreement's pairs) as the inputs number
    them, as the one call gives them: the parts hold each image's rows together, in another order than the input's."""
    if isinstance(result, AgreementResult):
        agreement: Any = result.renumbered(split.truth_rows, split.predicted_rows)
        return cast(ResultT, agreement)
    if isinstance(result, Diagnostics):
        diagnostics: Any = result.renumbered(split.predicted_rows, split.truth_rows)
        return cast(ResultT, diagnostics)
    matches = getattr(result, "matches", None)
    if matches is None:
        return result
    with_rows: Any = result  # a result dataclass: CocoResult, VocResult, TemporalDetectionResult
    renumbered: Any = dataclasses.replace(with_rows, matches=matches.renumbered(split.predicted_rows, split.truth_rows))
    return cast(ResultT, renumbered)


def _joined_rows(rows: list[np.ndarray]) -> np.ndarray:
    return np.concatenate([np.zeros(0, np.int64), *rows]).astype(np.int64)


def split_detection(truth: Annotations, predictions: Annotations, images: Any, n_parts: int) -> Split:
    """`update` arguments of each part: the images cut into runs of about equal rows, with their annotations."""
    image_ids = distinct(truth.image_id) if images is None else id_list(list(images), "images")
    truth_image, predicted_image = _code(image_ids, truth.image_id), _code(image_ids, predictions.image_id)
    weights = np.bincount(truth_image, minlength=len(image_ids)) + np.bincount(
        predicted_image, minlength=len(image_ids)
    )
    part_of_image = image_parts(weights, n_parts)
    n_parts = int(part_of_image.max(initial=0)) + 1
    truth_rows = runs_by_key(part_of_image[truth_image], n_parts)
    predicted_rows = runs_by_key(part_of_image[predicted_image], n_parts)
    parts = []
    for part in range(n_parts):
        listed = image_ids[part_of_image == part]
        part_images: Any = None
        if isinstance(images, Mapping):
            part_images = {key: images[key] for key in listed.tolist()}
        elif images is not None:
            part_images = listed.tolist()
        parts.append(
            {
                "ground_truth": truth.take(truth_rows[part]),
                "predictions": predictions.take(predicted_rows[part]),
                "images": part_images,
            }
        )
    return Split(parts, _joined_rows(truth_rows), _joined_rows(predicted_rows))


def evaluate_split(
    evaluation: MergeableEvaluation[ResultT],
    ground_truth: Any,
    predictions: Any,
    *,
    images: Any = None,
    partitions: int | None = None,
    client: distributed.Client | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    **update_options: Any,
) -> ResultT:
    """Any evaluation of a ground truth and predictions on a Dask cluster, split into `partitions` parts: the same
    result as ``evaluation.update(ground_truth, predictions, images=images, **update_options).compute()``.

    `TemporalSegments` are split by video, anything else is read as `Annotations` and split by
    image (`images`, if given, lists every image). For any state, such as
    `geoiou.diagnostics.DiagnosticsEvaluation`; the result's per-object rows are the inputs' (see
    `in_input_order`). By default there are four parts per worker thread.

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.diagnostics import DiagnosticsEvaluation
    >>> from geoiou.evaluation import Annotations, CocoEvaluation
    >>> truth = Annotations(image_id=[1, 2], category_id=[1, 1], region=geoiou.Box([[0, 0, 4, 4], [0, 0, 4, 4]]))
    >>> preds = Annotations(image_id=[2, 1], category_id=[1, 1], score=[0.8, 0.9],
    ...                     region=geoiou.Box([[5, 5, 8, 8], [0, 0, 4, 4]]))
    >>> diagnostics = evaluate_split(DiagnosticsEvaluation(CocoEvaluation()), truth, preds, workers=1, partitions=2)
    >>> round(diagnostics.result["AP50"], 4), diagnostics.table.dt_row.tolist()  # as one update gives them
    (0.505, [0, 1])
    """
    if not isinstance(evaluation, MergeableEvaluation):
        raise invalid_argument("evaluation", "an evaluation state such as CocoEvaluation()", type(evaluation).__name__)
    if isinstance(ground_truth, TemporalSegments):
        if images is not None:
            raise invalid_argument("images", "None with temporal segments (they list their videos)", images)
        segments = as_segments(predictions, "predictions")
        with connected(client, workers=workers, scheduler=scheduler) as active:
            split = split_videos(ground_truth, segments, part_count(partitions, active))
            by_video = [{"ground_truth": truth, "predictions": part, **update_options} for truth, part in split.parts]
            result = evaluate(evaluation, by_video, client=active)
        return in_input_order(result, split)
    truth, predicted = as_annotations(ground_truth, "ground_truth"), as_annotations(predictions, "predictions")
    with connected(client, workers=workers, scheduler=scheduler) as active:
        split = split_detection(truth, predicted, images, part_count(partitions, active))
        result = evaluate(evaluation, [{**part, **update_options} for part in split.parts], client=active)
    return in_input_order(result, split)


def evaluate_coco(
    ground_truth: Any,
    predictions: Any,
    *,
    images: Any = None,
    partitions: int | None = None,
    client: distributed.Client | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    federated: FederatedLabels | None = None,
    **options: Any,
) -> CocoResult:
    """`geoiou.evaluation.evaluate_coco` on a Dask cluster, the images split into `partitions` parts: the same result.

    `options` are those of `evaluate_coco` (``iou_thresholds``, ``polygon_iou``...); by default
    there are four parts per worker thread. `federated` (LVIS's labels) goes to every part.

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.evaluation import Annotations
    >>> truth = Annotations(image_id=[1, 2], category_id=[1, 1], region=geoiou.Box([[0, 0, 4, 4], [0, 0, 4, 4]]))
    >>> preds = Annotations(image_id=[1, 2], category_id=[1, 1], score=[0.9, 0.8],
    ...                     region=geoiou.Box([[0, 0, 4, 4], [5, 5, 8, 8]]))
    >>> round(evaluate_coco(truth, preds, workers=1)["AP50"], 4)  # one of two found, ranked first
    0.505
    """
    return evaluate_split(
        CocoEvaluation(**options),  # settings checked before any cluster starts
        ground_truth,
        predictions,
        images=images,
        partitions=partitions,
        client=client,
        workers=workers,
        scheduler=scheduler,
        **({} if federated is None else {"federated": federated}),
    )


def evaluate_voc(
    ground_truth: Any,
    predictions: Any,
    *,
    images: Any = None,
    partitions: int | None = None,
    client: distributed.Client | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    **options: Any,
) -> VocResult:
    """`geoiou.evaluation.evaluate_voc` on a Dask cluster, the images split into parts in input order: the same result.

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.evaluation import Annotations
    >>> truth = Annotations(image_id=["a", "b"], category_id=["ship"] * 2, region=geoiou.Box([[0, 0, 8, 8]] * 2))
    >>> preds = Annotations(image_id=["a", "b"], category_id=["ship"] * 2, score=[0.9, 0.9],
    ...                     region=geoiou.Box([[0, 0, 8, 7], [4, 4, 9, 9]]))
    >>> evaluate_voc(truth, preds, workers=1, partitions=2).mAP  # the second is a miss: AP of half the recall
    0.5
    """
    return evaluate_split(
        VocEvaluation(**options),
        ground_truth,
        predictions,
        images=images,
        partitions=partitions,
        client=client,
        workers=workers,
        scheduler=scheduler,
    )


# --------------------------------------------------------------------------- result shards read on the workers
def joined_annotations(pieces: Sequence[Annotations]) -> Annotations:
    """Annotations of several pieces one after the other (their region batches kept as they are)."""
    present = [piece for piece in pieces if len(piece)] or list(pieces[:1])
    columns = {
        name: None if getattr(present[0], name) is None else np.concatenate([getattr(p, name) for p in present])
        for name in ("score", "iscrowd", "area", "ignore")
    }
    return Annotations(
        joined_ids([p.image_id for p in present], "image"),
        joined_ids([p.category_id for p in present], "category"),
        [region for piece in present for region in piece.regions],
        **columns,
    )


def _read_shard(
    path: str, geometry: str, skip_invalid: bool, image_ids: np.ndarray, part_of_image: np.ndarray
) -> list[Any]:
    """A worker's task: read one result shard and cut it by the images' parts (unknown images go to part 0,
    whose update refuses them as the one call does). Returns each part's piece with its rows in the shard,
    then the shard's length."""
    from geoiou.io.coco import read_coco_results

    predictions = read_coco_results(path, geometry=geometry, skip_invalid=skip_invalid).annotations  # type: ignore[arg-type]
    n_parts = int(part_of_image.max(initial=0)) + 1
    known = np.isin(predictions.image_id, image_ids) if len(image_ids) else np.zeros(len(predictions), bool)
    part = np.where(known, part_of_image[_code(image_ids, predictions.image_id)], 0)
    return [(predictions.take(rows), rows) for rows in runs_by_key(part, n_parts)] + [len(predictions)]


def _update_from_shards(
    state: CocoEvaluation, truth: Annotations, pieces: list[tuple[Annotations, np.ndarray]], images: Any
) -> CocoEvaluation:
    return state.update(truth, joined_annotations([piece for piece, _ in pieces]), images=images)


def _piece_rows(pieces: list[tuple[Annotations, np.ndarray]]) -> list[np.ndarray]:
    return [rows for _, rows in pieces]


def evaluate_coco_files(
    ground_truth: str | Path,
    results: Sequence[str | Path],
    *,
    geometry: Literal["auto", "bbox", "segmentation"] = "auto",
    skip_invalid: bool = False,
    partitions: int | None = None,
    client: distributed.Client | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    **options: Any,
) -> CocoResult:
    """COCO evaluation of result shards (distributed inference writes one per rank), each read on a worker.

    The ground truth is read here and split by image; each shard is read where it is evaluated
    and cut by the same images, so only the shards' paths travel from here. The result is that of
    `evaluate_coco` on the ground truth and all the shards joined in the order given. Workers must
    see the paths (a shared file system or an object store they mount).

    Parameters
    ----------
    ground_truth : path
        The COCO instances file (its images, with sizes, are the evaluated images).
    results : sequence of paths
        The result shards, COCO result lists.
    geometry : {"auto", "bbox", "segmentation"}, default "auto"
        What the results hold (as `read_coco_results`; give it when shards may be empty).
    options
        Those of `evaluate_coco` (``polygon_iou``, ``iou_thresholds``...).

    Examples
    --------
    >>> from importlib.resources import files
    >>> tour = files("geoiou") / "data" / "tour" / "coco"
    >>> result = evaluate_coco_files(tour / "instances.json", [tour / "results-bbox.json"], workers=1)
    >>> round(result["AP"], 4)  # as `geoiou eval` of the same two files prints it
    0.2975
    """
    from geoiou.io.coco import read_coco, read_coco_results

    if isinstance(results, (str, Path)) or not len(results):
        raise invalid_argument("results", "a non-empty sequence of result files", results)
    if geometry == "auto":  # the first shard says what they hold (read here: one shard, once)
        geometry = read_coco_results(results[0], skip_invalid=skip_invalid).geometry  # type: ignore[assignment]
    truth = read_coco(
        ground_truth,
        geometry=geometry,  # type: ignore[arg-type]
        polygons=options.get("polygon_iou", "exact"),
        skip_invalid=skip_invalid,
    )
    options = {"categories": list(truth.categories), **options}
    evaluation = CocoEvaluation(**options)
    annotations = truth.annotations
    with connected(client, workers=workers, scheduler=scheduler) as active:
        n_parts = part_count(partitions, active)
        image_ids = id_list(list(truth.images), "images")
        weights = np.bincount(_code(image_ids, annotations.image_id), minlength=len(image_ids)) + 1
        part_of_image = image_parts(weights, n_parts)
        n_parts = int(part_of_image.max(initial=0)) + 1
        read = delayed(_read_shard, pure=True, nout=n_parts)
        shards = [read(str(path), geometry, skip_invalid, image_ids, part_of_image) for path in results]
        truth_rows = runs_by_key(part_of_image[_code(image_ids, annotations.image_id)], n_parts)
        update = delayed(_update_from_shards, pure=True)
        states = [
            update(
                evaluation.empty(),
                annotations.take(truth_rows[k]),
                [shard[k] for shard in shards],
                {key: truth.images[key] for key in image_ids[part_of_image == k].tolist()},
            )
            for k in range(n_parts)
        ]
        # Where each part's predictions sit in the shards: computed with the states (shared tasks run once).
        piece_rows = delayed(_piece_rows, pure=True)
        provenance = (
            [piece_rows([shard[k] for shard in shards]) for k in range(n_parts)],
            [shard[n_parts] for shard in shards],
        )
        result, (rows, lengths) = _merged(states, active, provenance)
    # Per-object matches by the rows of the ground truth file and of the shards joined in order.
    shard_start = part_starts(lengths)
    prediction_row = np.concatenate(
        [np.zeros(0, np.int64)]
        + [start + part_rows for k in range(n_parts) for start, part_rows in zip(shard_start, rows[k])]
    )
    matches = result.matches.renumbered(prediction_row, np.concatenate(truth_rows))
    renumbered: CocoResult = dataclasses.replace(result, matches=matches)
    return renumbered


# --------------------------------------------------------------------------- splitting by video
def take_segments(segments: TemporalSegments, rows: np.ndarray, videos: Sequence[Any]) -> TemporalSegments:
    """The segments of some rows, with the videos of their part."""
    return TemporalSegments(
        video_id=segments.video_id[rows],
        label=segments.label[rows],
        start=segments.start[rows],
        end=segments.end[rows],
        score=None if segments.score is None else segments.score[rows],
        videos=videos,
    )


def split_videos(truth: TemporalSegments, predictions: TemporalSegments, n_parts: int) -> Split:
    """(ground truth, predictions) of each part: the ground truth's videos in runs of about equal segments."""
    videos = list(truth.videos)
    position = {video: code for code, video in enumerate(videos)}
    truth_video = np.array([position[video] for video in truth.video_id.tolist()], dtype=np.int64)
    # A prediction on an unknown video goes to part 0, whose update refuses it as the one call does.
    predicted_video = np.array([position.get(video, 0) for video in predictions.video_id.tolist()], dtype=np.int64)
    weights = np.bincount(truth_video, minlength=len(videos)) + np.bincount(predicted_video, minlength=len(videos))
    part_of_video = image_parts(weights, n_parts)
    n_parts = int(part_of_video.max(initial=0)) + 1
    truth_rows = runs_by_key(part_of_video[truth_video], n_parts)
    predicted_rows = runs_by_key(part_of_video[predicted_video], n_parts)
    unknown = {video for video in predictions.video_id.tolist() if video not in position}
    parts = []
    for part in range(n_parts):
        part_videos = [video for video, owner in zip(videos, part_of_video.tolist()) if owner == part]
        extra = sorted(unknown, key=str) if part == 0 else []
        parts.append(
            (
                take_segments(truth, truth_rows[part], part_videos),
                take_segments(predictions, predicted_rows[part], part_videos + extra),
            )
        )
    return Split(parts, _joined_rows(truth_rows), _joined_rows(predicted_rows))


def evaluate_temporal_detection(
    ground_truth: Any,
    predictions: Any,
    *,
    partitions: int | None = None,
    client: distributed.Client | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    **options: Any,
) -> TemporalDetectionResult:
    """`geoiou.evaluation.evaluate_temporal_detection` on a Dask cluster, the videos split into parts: the same result.

    Examples
    --------
    >>> truth = {"v1": [(0, 10, "jump")], "v2": [(5, 15, "jump")]}
    >>> predictions = {"v1": [(0, 9, "jump", 0.9)], "v2": [(30, 40, "jump", 0.8)]}
    >>> evaluate_temporal_detection(truth, predictions, tiou_thresholds=[0.5], workers=1).mean_ap
    array([0.5])
    """
    return evaluate_split(
        TemporalDetectionEvaluation(**options),
        as_segments(ground_truth, "ground_truth"),
        predictions,
        partitions=partitions,
        client=client,
        workers=workers,
        scheduler=scheduler,
    )


# --------------------------------------------------------------------------- agreement
def evaluate_agreement(
    a: Any,
    b: Any,
    *,
    images: Any = None,
    partitions: int | None = None,
    client: distributed.Client | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    **options: Any,
) -> AgreementResult:
    """`geoiou.evaluation.evaluate_agreement` on a Dask cluster, the images split into parts: the same result.

    Examples
    --------
    >>> import geoiou
    >>> a = {"image_id": [1, 2], "category_id": [5, 5], "region": geoiou.Box([[0, 0, 4, 4], [0, 0, 2, 2]])}
    >>> b = {"image_id": [1, 2], "category_id": [5, 5], "region": geoiou.Box([[0, 0, 4, 3], [5, 5, 6, 6]])}
    >>> evaluate_agreement(a, b, workers=1).overall()["matched"]
    1
    """
    evaluation = AgreementEvaluation(**options)
    if isinstance(a, TemporalSegments) or isinstance(b, TemporalSegments):
        with connected(client, workers=workers, scheduler=scheduler) as active:
            split = split_videos(as_segments(a, "a"), as_segments(b, "b"), part_count(partitions, active))
            result = evaluate(evaluation, split.parts, client=active)
        return in_input_order(result, split)
    side_a, side_b = as_annotations(a, "a"), as_annotations(b, "b")
    with connected(client, workers=workers, scheduler=scheduler) as active:
        every = np.unique(
            np.concatenate(
                [side_a.image_id, side_b.image_id, *([] if images is None else [id_list(list(images), "images")])]
            )
        )
        split = split_detection(side_a, side_b, every, part_count(partitions, active))
        sides = [
            {"a": part["ground_truth"], "b": part["predictions"], "images": part["images"]} for part in split.parts
        ]
        result = evaluate(evaluation, sides, client=active)
    return in_input_order(result, split)
