"""The tour of `geoiou demo`: one evaluation per geometry on the bundled dataset, and pictures of it.

The dataset (geoiou/data/tour, written by tools/make_tour_data.py) holds the seven DOTA example
label files as ground truth in three formats (COCO instances with boxes and polygons, DOTA label
files) with synthetic predictions for each, and a synthetic ActivityNet-style temporal set:

- boxes: COCO ground-truth boxes against COCO box predictions, COCO's protocol;
- rotated quadrilaterals: DOTA labels against DOTA Task1 predictions, VOC's 11-point AP as DOTA's devkit;
- polygons against masks: COCO polygon ground truth against RLE mask predictions, exactly (each
  pixel counts the area of it that the polygon covers);
- intervals: ActivityNet ground truth against its results, mAP at tIoU 0.5:0.95;
- agreement: the DOTA labels against a second annotator's (rotated rectangles with click noise),
  matched one-to-one at IoU >= 0.5, with the agreement table per category.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, Callable, Literal

import numpy as np

import geoiou

__all__ = ["TOUR_DATA", "Stop", "run_tour", "stops"]

#: The bundled data, as paths on disk (package data is installed as files).
TOUR_DATA = Path(str(files("geoiou") / "data" / "tour"))
DOTA_LABELS = Path(str(files("geoiou") / "data" / "dota"))


@dataclass(frozen=True)
class Stop:
    """One evaluation of the tour: its title, what it compares and how to run it."""

    title: str
    compares: str
    evaluate: Callable[[], tuple[Any, str]]  # returns (result, the one-line headline)


def _coco(geometry: Literal["bbox", "segmentation"], results: str) -> tuple[Any, str]:
    from geoiou.evaluation import evaluate_coco
    from geoiou.io.coco import read_coco, read_coco_results

    truth = read_coco(TOUR_DATA / "coco" / "instances.json", geometry=geometry)
    predicted = read_coco_results(TOUR_DATA / "coco" / results, geometry=geometry)
    result = evaluate_coco(
        truth.annotations,
        predicted.annotations,
        images=truth.images,
        categories=list(truth.categories),
        show_progress=False,
    )
    return result, f"AP {result['AP']:.3f}, AP50 {result['AP50']:.3f}, AP75 {result['AP75']:.3f}"


def _rotated() -> tuple[Any, str]:
    from geoiou.evaluation import evaluate_voc
    from geoiou.io.dota import read_dota_folder, read_dota_task1

    truth = read_dota_folder(DOTA_LABELS)
    predicted = read_dota_task1(TOUR_DATA / "dota-task1")
    result = evaluate_voc(
        truth.annotations,
        predicted.annotations,
        interpolation="11point",
        images=list(truth.images),
        show_progress=False,
    )
    best = max(result.per_category().items(), key=lambda item: item[1]["num_ground_truths"])
    return (
        result,
        f"mAP {result.mAP:.3f} (11 points, IoU > 0.5); {best[0]}: AP {best[1]['AP']:.3f} "
        f"over {best[1]['num_ground_truths']} objects",
    )


def _intervals() -> tuple[Any, str]:
    from geoiou.evaluation import evaluate_temporal_detection
    from geoiou.io.activitynet import read_activitynet

    truth = read_activitynet(TOUR_DATA / "activitynet" / "ground_truth.json", subset="validation")
    predicted = read_activitynet(TOUR_DATA / "activitynet" / "results.json")
    result = evaluate_temporal_detection(truth.segments, predicted.segments, show_progress=False)
    return result, (
        f"average mAP {result.average_mean_ap:.3f}; mAP@0.5 {result.mean_ap_at(0.5):.3f}, "
        f"mAP@0.75 {result.mean_ap_at(0.75):.3f}, mAP@0.95 {result.mean_ap_at(0.95):.3f}"
    )


def _agreement() -> tuple[Any, str]:
    from geoiou.evaluation import evaluate_agreement
    from geoiou.io.dota import read_dota_folder

    first = read_dota_folder(DOTA_LABELS)
    second = read_dota_folder(TOUR_DATA / "dota-annotator-b")
    result = evaluate_agreement(first.annotations, second.annotations, images=list(first.images))
    overall = result.overall()
    return result, (
        f"F1 {overall['f1']:.3f} at IoU >= 0.5: {overall['matched']} matched, {overall['only_a']} only "
        f"in A, {overall['only_b']} only in B; mean IoU {overall['iou_mean']:.3f}"
    )


def stops() -> list[Stop]:
    """The tour's evaluations, one per geometry, in display order."""
    return [
        Stop(
            "boxes",
            "COCO instances, 984 boxes vs box predictions (COCO protocol)",
            lambda: _coco("bbox", "results-bbox.json"),
        ),
        Stop(
            "rotated quadrilaterals", "DOTA labels vs DOTA Task1 predictions (VOC 11-point, as DOTA's devkit)", _rotated
        ),
        Stop(
            "polygons vs masks",
            "COCO polygons vs RLE mask predictions, exact pixel coverage (COCO protocol)",
            lambda: _coco("segmentation", "results-segm.json"),
        ),
        Stop("intervals", "ActivityNet segments, 30 videos (mAP at tIoU 0.5:0.95)", _intervals),
        Stop(
            "agreement",
            "DOTA labels (A) vs a second annotator's rotated rectangles (B), matched one-to-one",
            _agreement,
        ),
    ]


def run_tour(output: Path | None) -> int:
    """Run every stop, print its headline and, when `output` is given, save the pictures there.

    Returns the number of pictures saved.
    """
    print("Tour: one evaluation per geometry on the bundled dataset (geoiou/data/tour)\n")
    results = {}
    for stop in stops():
        started = time.perf_counter()
        result, headline = stop.evaluate()
        results[stop.title] = result
        print(f"  {stop.title:<24} {headline}  [{time.perf_counter() - started:.2f} s]")
        print(f"  {'':<24} {stop.compares}")
    print("\nAgreement of the two annotators (geoiou compare geoiou/data/dota geoiou/data/tour/dota-annotator-b):\n")
    print(results["agreement"].summary())
    if output is None:
        return 0
    saved = save_pictures(output, results)
    print(f"\nSaved {len(saved)} pictures in {output}:")
    for path in saved:
        print(f"  {path}")
    return len(saved)


def save_pictures(output: Path, results: dict[str, Any]) -> list[Path]:
    """Draw the tour's pairs, the DOTA scene and the evaluation curves into `output` as PNG files."""
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as plt

    from geoiou import plot

    output.mkdir(parents=True, exist_ok=True)
    drawings: dict[str, Callable[[Any], Any]] = {
        "pair-boxes.png": lambda ax: plot.plot_pair(
            *_box_pair(),
            ax=ax,
            labels=("ground truth", "prediction"),
            title="COCO plane: ground truth × prediction (Box × Box)",
        ),
        "pair-rotated.png": lambda ax: plot.plot_pair(
            *_rotated_pair(),
            ax=ax,
            labels=("ground truth", "prediction"),
            title="DOTA large vehicle: quadrilaterals, read as Polygon × Polygon",
        ),
        "pair-mask-polygon.png": lambda ax: plot.plot_pair(
            *_mask_pair(), ax=ax, labels=("polygon", "mask"), title="Polygon × Mask: exact pixel coverage"
        ),
        "pair-intervals.png": lambda ax: plot.plot_pair(
            geoiou.Interval([12.5, 40.0]),
            geoiou.Interval([18.0, 47.5]),
            ax=ax,
            labels=("ground truth", "prediction"),
            title="Interval × Interval (seconds)",
        ),
        "dota-scene.png": lambda ax: _draw_dota_scene(plot, ax),
        "timeline-video.png": lambda ax: _draw_video_timeline(plot, ax),
        "pr-boxes.png": lambda ax: plot.plot_pr_curve(results["boxes"], ax=ax),
        "pr-dota.png": lambda ax: plot.plot_pr_curve(results["rotated quadrilaterals"], ax=ax),
        "map-intervals.png": lambda ax: plot.plot_threshold_curve(results["intervals"], ax=ax),
        "agreement-worst-image.png": lambda ax: _draw_worst_agreement(results["agreement"], ax),
    }
    saved = []
    for name, draw in drawings.items():
        figure, axes = plt.subplots(figsize=(6, 4.5))
        draw(axes)
        figure.tight_layout()
        figure.savefig(output / name, dpi=110)
        plt.close(figure)
        saved.append(output / name)
    return saved


def _draw_worst_agreement(result: Any, ax: Any) -> Any:
    """The image of the two annotators with the lowest F1, drawn by `geoiou.plot.plot_matching`."""
    from geoiou.io import read_dota
    from geoiou.plot import plot_matching

    image = result.worst_images(1)[0]
    # The folder reader's rows of an image are its file's objects, in order: the rows image_matching indexes.
    first = read_dota(DOTA_LABELS / f"{image}.txt").polygons
    second = read_dota(TOUR_DATA / "dota-annotator-b" / f"{image}.txt").polygons
    _, _, matching = result.image_matching(image)
    ax = plot_matching(first, second, matching, ax=ax, labels=("annotator A", "annotator B"))
    ax.set_title(f"{image}: {ax.get_title()}")
    return ax


def _best_matched_pair(truth: Any, predicted: Any, category: Any) -> tuple[geoiou.Region, geoiou.Region]:
    """The first ground truth of `category` and the prediction of its image that overlaps it most."""
    row = int(np.flatnonzero(truth.category_id == category)[0])
    truth_region = _row(truth, row)
    same_image = np.flatnonzero(predicted.image_id == truth.image_id[row])
    candidates = [_row(predicted, int(k)) for k in same_image]
    overlaps = [float(geoiou.iou(truth_region, candidate)) for candidate in candidates]
    return truth_region, candidates[int(np.argmax(overlaps))]


def _row(annotations: Any, row: int) -> geoiou.Region:
    """The region of one row of `Annotations` (its batches follow one another)."""
    for batch in annotations.regions:
        if row < len(batch):
            region: geoiou.Region = batch[row]
            return region
        row -= len(batch)
    raise IndexError(row)


def _box_pair() -> tuple[geoiou.Region, geoiou.Region]:
    from geoiou.io.coco import read_coco, read_coco_results

    truth = read_coco(TOUR_DATA / "coco" / "instances.json", geometry="bbox")
    predicted = read_coco_results(TOUR_DATA / "coco" / "results-bbox.json", geometry="bbox")
    plane = next(k for k, name in truth.categories.items() if name == "plane")
    return _best_matched_pair(truth.annotations, predicted.annotations, plane)


def _rotated_pair() -> tuple[geoiou.Region, geoiou.Region]:
    from geoiou.io.dota import read_dota_folder, read_dota_task1

    truth = read_dota_folder(DOTA_LABELS).annotations
    predicted = read_dota_task1(TOUR_DATA / "dota-task1").annotations
    return _best_matched_pair(truth, predicted, "large-vehicle")


def _mask_pair() -> tuple[geoiou.Polygon, geoiou.Mask]:
    pixels = np.zeros((12, 14), dtype=bool)
    pixels[2:10, 3:12] = True
    pixels[2:5, 3:6] = False
    return geoiou.Polygon([(2.5, 1.2), (12.3, 3.1), (10.4, 10.6), (3.2, 8.9)]), geoiou.Mask(pixels)


def _dota_scene() -> tuple[geoiou.Region, geoiou.Region]:
    """The labels of DOTA image P0706 and the Task1 predictions on it."""
    from geoiou.io.dota import read_dota_folder, read_dota_task1

    truth = read_dota_folder(DOTA_LABELS).annotations
    predicted = read_dota_task1(TOUR_DATA / "dota-task1").annotations
    return _rows_of_image(truth, "P0706"), _rows_of_image(predicted, "P0706")


def _draw_dota_scene(plot: Any, ax: Any) -> Any:
    """DOTA P0706's labels and the Task1 predictions on it, coloured by their one-to-one matching at IoU 0.5."""
    ax = plot.plot_matching(*_dota_scene(), ax=ax, labels=("labels", "predictions"), min_iou=0.5)
    ax.set_title(f"DOTA P0706, labels × predictions: {ax.get_title()}", fontsize="small")
    return ax


def _rows_of_image(annotations: Any, image: str) -> geoiou.Region:
    rows = np.flatnonzero(annotations.image_id == image)
    return type(_row(annotations, 0)).stack([_row(annotations, int(k)) for k in rows])


def _draw_video_timeline(plot: Any, ax: Any) -> Any:
    tracks, options = _video_timeline()
    ax = plot.plot_timeline(tracks, ax=ax, **options)
    ax.set_title("An ActivityNet video: predictions with scores")
    return ax


def _video_timeline() -> tuple[dict[str, geoiou.Interval], dict[str, Any]]:
    """Ground truth and scored predictions of the tour's first video: overlapping predictions, stacked."""
    from geoiou.io.activitynet import read_activitynet

    truth = read_activitynet(TOUR_DATA / "activitynet" / "ground_truth.json").segments
    predicted = read_activitynet(TOUR_DATA / "activitynet" / "results.json").segments
    video = truth.video_id[0]
    mine, theirs = truth.video_id == video, predicted.video_id == video
    tracks = {
        "ground truth": geoiou.Interval(np.column_stack([truth.start[mine], truth.end[mine]])),
        "predictions": geoiou.Interval(np.column_stack([predicted.start[theirs], predicted.end[theirs]])),
    }
    scores = np.asarray(predicted.score)  # predictions always carry scores
    return tracks, {"scores": {"predictions": scores[theirs]}}
