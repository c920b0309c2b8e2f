"""The worked examples behind `geoiou demo`: the tutorials' numbers, every geometry, a DOTA scene; then the tour."""

from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Callable

import numpy as np

import geoiou
from geoiou.io import read_dota

__all__ = ["Example", "examples", "render_table", "run"]


@dataclass(frozen=True)
class Example:
    """One worked example: what it is, where it comes from, the value computed and the one expected."""

    name: str
    source: str
    compute: Callable[[], float | np.ndarray]
    expected: float | None = None


def _pixel_iou(truth: list[int], prediction: list[int]) -> Callable[[], float | np.ndarray]:
    """The IoU of two boxes in inclusive pixel indices, computed when called."""
    return lambda: geoiou.iou(geoiou.Box.from_pixel_indices(truth), geoiou.Box.from_pixel_indices(prediction))


def _pyimagesearch() -> list[Example]:
    # The five detections of the PyImageSearch tutorial, in inclusive pixel indices (its "+1" code).
    detections = {
        "image_0002": ([39, 63, 203, 112], [54, 66, 198, 114], 0.7980),
        "image_0016": ([49, 75, 203, 125], [42, 78, 186, 126], 0.7899),
        "image_0075": ([31, 69, 201, 125], [18, 63, 235, 135], 0.6125),
        "image_0090": ([50, 72, 197, 121], [54, 72, 198, 120], 0.9472),
        "image_0120": ([35, 51, 196, 110], [36, 60, 180, 108], 0.7310),
    }
    return [
        Example(f"{name} detection", "PyImageSearch, inclusive pixels", _pixel_iou(gt, pred), expected)
        for name, (gt, pred, expected) in detections.items()
    ] + [
        Example(
            "disjoint boxes of a reader's comment",
            "PyImageSearch comments",
            lambda: geoiou.iou(
                geoiou.Box.from_pixel_indices([265, 103, 372, 268]), geoiou.Box.from_pixel_indices([12, 34, 32, 61])
            ),
            0.0,
        ),
        Example(
            "[0,0,2,2] vs [1,1,3,3]",
            "PyImageSearch comments",
            lambda: geoiou.iou(geoiou.Box([0, 0, 2, 2]), geoiou.Box([1, 1, 3, 3])),
            1 / 7,
        ),
    ]


def _kolena() -> list[Example]:
    a = geoiou.Box([0, 0, 10, 10])
    # TP 100, FP 25, FN 75 pixels: the prediction is 125 pixels, the ground truth 175.
    truth = np.zeros((20, 20), dtype=bool)
    truth.flat[:175] = True
    prediction = np.zeros((20, 20), dtype=bool)
    prediction.flat[75:200] = True
    # Multi-label "set of labels": each class's membership over the 4 samples, as a 1×4 mask.
    labels_truth = np.array([[1, 1, 1], [1, 0, 1], [0, 1, 1], [1, 1, 1]]).T[:, None, :]
    labels_pred = np.array([[0, 1, 0], [1, 1, 1], [1, 1, 1], [1, 1, 1]]).T[:, None, :]
    return [
        Example("overlapping boxes", "Kolena, example 1", lambda: geoiou.iou(a, geoiou.Box([5, 2, 15, 12])), 0.25),
        Example("disjoint boxes", "Kolena, example 2", lambda: geoiou.iou(a, geoiou.Box([10, 10, 15, 15])), 0.0),
        Example("identical boxes", "Kolena, example 3", lambda: geoiou.iou(a, geoiou.Box([0, 0, 10, 10])), 1.0),
        Example(
            "masks, TP 100 FP 25 FN 75",
            "Kolena, segmentation mask",
            lambda: geoiou.iou(geoiou.Mask(truth), geoiou.Mask(prediction)),
            0.5,
        ),
        Example(
            "macro IoU of label sets",
            "Kolena, set of labels",
            lambda: float(np.mean(geoiou.iou(geoiou.Mask(labels_truth), geoiou.Mask(labels_pred)))),
            2 / 3,
        ),
        # Signed IoU (Simonelli et al. 2019, cited by Kolena): disjoint boxes IoU scores alike at 0 now differ.
        Example(
            "signed IoU, boxes 1 apart (-1 / (1 + 1 + 1))",
            "Kolena, signed IoU",
            lambda: geoiou.siou(geoiou.Box([0, 0, 1, 1]), geoiou.Box([2, 0, 3, 1])),
            -1 / 3,
        ),
        Example(
            "signed IoU, boxes 2 apart on both axes",
            "Kolena, signed IoU",
            lambda: geoiou.siou(geoiou.Box([0, 0, 1, 1]), geoiou.Box([3, 3, 4, 4])),
            -2 / 3,
        ),
    ]


def _cv_wiki() -> list[Example]:
    return [
        Example(
            "10×10 boxes overlapping 5×5 (25 / 175)",
            "CloudFactory (Hasty) CV wiki",
            lambda: geoiou.iou(geoiou.Box([0, 0, 10, 10]), geoiou.Box([5, 5, 15, 15])),
            25 / 175,
        ),
        # The wiki's thresholded score: the fraction of IoU thresholds 0.50:0.05:0.95 reached.
        Example(
            "threshold score of IoU 0.82 (7 of 10 thresholds)",
            "CloudFactory (Hasty) CV wiki",
            lambda: geoiou.threshold_score(0.82),
            0.7,
        ),
        Example(
            "threshold score of a perfect match",
            "CloudFactory (Hasty) CV wiki",
            lambda: geoiou.threshold_score(geoiou.iou(geoiou.Box([0, 0, 10, 10]), geoiou.Box([0, 0, 10, 10]))),
            1.0,
        ),
    ]


def _geometries() -> list[Example]:
    square = np.zeros((4, 4), dtype=bool)
    square[1:3, 1:3] = True
    return [
        Example(
            "Box: torchvision-style GIoU of disjoint boxes",
            "geometry",
            lambda: geoiou.giou(geoiou.Box([0, 0, 1, 1]), geoiou.Box([2, 0, 3, 1])),
            -1 / 3,
        ),
        Example(
            "RotatedBox: unit square vs itself turned 45°",
            "geometry",
            lambda: geoiou.iou(geoiou.RotatedBox([0, 0, 1, 1, 0]), geoiou.RotatedBox([0, 0, 1, 1, 45])),
            (2 * np.sqrt(2) - 2) / (4 - 2 * np.sqrt(2)),
        ),
        Example(
            "RotatedBox: a box vs itself (peers report 0.33)",
            "geometry",
            lambda: geoiou.iou(
                geoiou.RotatedBox([1e6, 1e6, 30, 10, 33.3]), geoiou.RotatedBox([1e6, 1e6, 30, 10, 33.3])
            ),
            1.0,
        ),
        Example(
            "Polygon: right triangle vs its square",
            "geometry",
            lambda: geoiou.iou(geoiou.Polygon([(0, 0), (4, 0), (0, 4)]), geoiou.Box([0, 0, 4, 4])),
            0.5,
        ),
        Example(
            "Mask: 2×2 block vs the box around it",
            "geometry",
            lambda: geoiou.iou(geoiou.Mask(square), geoiou.Box([1, 1, 3, 3])),
            1.0,
        ),
        Example(
            "Interval: [0, 10) vs [5, 20)",
            "geometry",
            lambda: geoiou.iou(geoiou.Interval([0, 10]), geoiou.Interval([5, 20])),
            0.25,
        ),
        Example(
            "mixed: triangle half-covering a pixel, vs that pixel",
            "mixed geometry",
            lambda: geoiou.iou(geoiou.Polygon([(0, 0), (1, 0), (0, 1)]), geoiou.Mask([[True]])),
            0.5,
        ),
        Example(
            "mixed: rotated box vs the mask of its axis-aligned twin",
            "mixed geometry",
            lambda: geoiou.iou(geoiou.RotatedBox([2, 2, 2, 2, 90]), geoiou.Mask(square)),
            1.0,
        ),
    ]


def examples() -> list[Example]:
    """Return every worked example of the demo, in display order."""
    return _pyimagesearch() + _kolena() + _cv_wiki() + _geometries()


def render_table(rows: list[Example]) -> str:
    """Format examples as a fixed-width table with the computed and expected values."""
    header = f"{'example':<55} {'source':<33} {'value':>9} {'expected':>9}  ok"
    lines = [header, "-" * len(header)]
    for example in rows:
        value = float(example.compute())
        expected = "" if example.expected is None else f"{example.expected:9.4f}"
        ok = "" if example.expected is None else ("yes" if abs(value - example.expected) < 5e-5 else "NO")
        lines.append(f"{example.name:<55} {example.source:<33} {value:9.4f} {expected:>9}  {ok}")
    return "\n".join(lines)


def dota_scene_report() -> str:
    """Summarise the bundled DOTA harbour scene: exact pairwise overlaps of its 536 objects (531 ships, 5 harbours)."""
    objects = read_dota(Path(str(files("geoiou") / "data" / "dota" / "P0706.txt")))
    scene = objects.polygons
    start = time.perf_counter()
    overlaps = geoiou.pairwise_iou(scene, scene)
    seconds = time.perf_counter() - start
    np.fill_diagonal(overlaps, 0.0)
    touching = int(np.count_nonzero(np.triu(overlaps) > 0))
    rectangles = geoiou.RotatedBox.from_corners(objects.corners, fit="min_area")
    fit = np.asarray(geoiou.iou(scene, rectangles))
    return "\n".join(
        [
            f"DOTA P0706 (harbour): {scene.size} quadrilaterals, {scene.size**2:,} exact polygon IoUs "
            f"in {seconds:.2f} s",
            f"  pairs of distinct objects that overlap: {touching}; "
            f"largest IoU between two objects: {overlaps.max():.4f}",
            f"  each quadrilateral against its minimum-area rotated box: mean IoU {fit.mean():.4f}, "
            f"min {fit.min():.4f}",
        ]
    )


def run(*, output: Path | None = None, tour: bool = True) -> int:
    """Print the demo and the tour; return 0 if every worked example matched its expected value.

    Pictures of the tour go to `output` when matplotlib is installed (the ``plot`` extra).
    """
    rows = examples()
    print("geoiou demo: worked examples of the IoU tutorials, one per geometry, and mixed geometries\n")
    table = render_table(rows)
    print(table)
    print()
    print(dota_scene_report())
    failed = table.count("  NO")
    print(f"\n{len(rows) - failed} of {len(rows)} worked examples match their published values.\n")
    if tour:
        from geoiou.tour import run_tour

        if output is not None and importlib.util.find_spec("matplotlib") is None:
            print("(pictures skipped: matplotlib is not installed; pip install 'geoiou[plot]')\n")
            output = None
        run_tour(output)
    return 0 if failed == 0 else 1
