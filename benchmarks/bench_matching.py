"""Benchmark one-to-one matching and agreement reports against the overlap search itself and against peers.

Two workloads, each from a fixed seed, each with boxes and with rotated boxes:

- **one image**: 10,000 regions a side in a 12,000 x 12,000 scene (sizes 10-60), the second side
  a copy moved by a few percent of each region's size (an annotator's noise), 5% dropped and 5%
  added elsewhere;
- **many images**: 5,000 images of 100 regions a side (1,000 x 1,000 images, sizes 10-40,
  5 categories), the second side made the same way.

Rows, each timed end to end from the region arrays to the answer (median of up to 7 runs after a
warm-up; one run when a call takes longer than the budget):

- geoiou's overlap search alone: ``geoiou.overlaps(a, b, min_iou=0.5)`` for one image, the
  grouped search that `geoiou.match` uses for many (``geoiou.grouped_overlaps``);
- ``geoiou.match`` greedy and optimal, and ``evaluate_agreement`` (counts per category and image),
  each with its ratio to the search: the cost of matching on top of finding the pairs;
- peers, as a user would write them today: the dense IoU matrix and SciPy's
  ``linear_sum_assignment`` (per image for many images); a plain Python greedy loop over the pairs
  geoiou's search found; supervision's ``F1Score`` on boxes when supervision is installed (it
  matches each image by confidence, here all equal, at ten IoU thresholds and three size ranges;
  F1 at 0.5, micro-averaged, is compared).

Each peer's result is checked against geoiou's: the summed IoU of the optimal matching, the pairs of
the greedy one, supervision's F1 at 0.5. Benchmarks are not tests: nothing here asserts on speed.

    python benchmarks/bench_matching.py              # both workloads (a few minutes on 2 cores)
    python benchmarks/bench_matching.py --quick      # 1,000 regions, 200 images: checks the script runs
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from scipy.optimize import linear_sum_assignment

import geoiou
from geoiou.evaluation import evaluate_agreement
from geoiou.grouped_overlaps import RowBlocks, grouped_overlaps

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import run as bench  # noqa: E402  (the timing and machine facts of benchmarks/run.py)

SEED = 20261125
MIN_IOU = 0.5


# --------------------------------------------------------------------------- data
@dataclass
class Sides:
    """Two annotation sets of the same images: regions, image and category of each row."""

    a: geoiou.Region
    b: geoiou.Region
    image_a: np.ndarray
    image_b: np.ndarray
    category_a: np.ndarray
    category_b: np.ndarray
    coords_a: np.ndarray  # (cx, cy, w, h, angle) of each row, for the peers
    coords_b: np.ndarray

    @property
    def images(self) -> int:
        return int(self.image_a.max()) + 1


def annotated(
    rng: np.random.Generator,
    images: int,
    per_image: int,
    side: float,
    sizes: tuple[float, float],
    categories: int,
    rotated: bool,
) -> Sides:
    """A first set of regions and a second annotator's: moved a little, 5% dropped, 5% added."""
    n = images * per_image
    centre = rng.uniform(0, side, (n, 2))
    size = rng.uniform(*sizes, (n, 2))
    angle = rng.uniform(-90, 90, n) if rotated else np.zeros(n)
    first = np.c_[centre, size, angle]
    image = np.repeat(np.arange(images), per_image)
    category = rng.integers(0, categories, n)
    moved = (
        first
        + np.c_[
            rng.normal(0, 0.03, (n, 2)) * size,
            rng.normal(0, 0.04, (n, 2)) * size,
            rng.normal(0, 2.0, n) if rotated else np.zeros(n),
        ]
    )
    kept = rng.random(n) > 0.05
    extra = rng.random(n) < 0.05
    added = np.c_[
        rng.uniform(0, side, (extra.sum(), 2)),
        rng.uniform(*sizes, (extra.sum(), 2)),
        rng.uniform(-90, 90, extra.sum()) if rotated else np.zeros(extra.sum()),
    ]
    second = np.r_[moved[kept], added]
    image_b = np.r_[image[kept], image[extra]]
    category_b = np.r_[category[kept], category[extra]]
    order = np.argsort(image_b, kind="stable")  # rows image by image, as files are read
    second, image_b, category_b = second[order], image_b[order], category_b[order]
    return Sides(region(first, rotated), region(second, rotated), image, image_b, category, category_b, first, second)


def region(coords: np.ndarray, rotated: bool) -> geoiou.Region:
    if rotated:
        return geoiou.RotatedBox(coords)
    return geoiou.Box(np.c_[coords[:, :2] - coords[:, 2:4] / 2, coords[:, :2] + coords[:, 2:4] / 2])


# --------------------------------------------------------------------------- peers
def dense_assignment(a: geoiou.Region, b: geoiou.Region) -> float:
    """The dense IoU matrix and SciPy's assignment on it: the summed IoU of the optimal matching."""
    weights = geoiou.pairwise_iou(a, b, zero_division=0.0)
    weights[weights < MIN_IOU] = 0.0
    rows, columns = linear_sum_assignment(weights, maximize=True)
    return float(weights[rows, columns].sum())


def dense_assignment_per_group(sides: Sides) -> float:
    """Per image and category: the dense matrix of the group and SciPy's assignment, in a Python loop."""
    total = 0.0
    key_a = sides.image_a * 1000 + sides.category_a
    key_b = sides.image_b * 1000 + sides.category_b
    order_a, order_b = np.argsort(key_a, kind="stable"), np.argsort(key_b, kind="stable")
    keys, starts_a = np.unique(key_a[order_a], return_index=True)
    ends_a = np.r_[starts_a[1:], len(order_a)]
    starts_b = np.searchsorted(key_b[order_b], keys, side="left")
    ends_b = np.searchsorted(key_b[order_b], keys, side="right")
    for start_a, end_a, start_b, end_b in zip(starts_a, ends_a, starts_b, ends_b):
        if end_b > start_b:
            total += dense_assignment(sides.a[order_a[start_a:end_a]], sides.b[order_b[start_b:end_b]])
    return total


def python_greedy(row_a: np.ndarray, row_b: np.ndarray, values: np.ndarray) -> set[tuple[int, int]]:
    """Greedy matching as a script writes it: sort the pairs by IoU, take each whose two regions are free."""
    used_a, used_b, pairs = set(), set(), set()
    for k in np.lexsort((row_b, row_a, -values)).tolist():
        i, j = int(row_a[k]), int(row_b[k])
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            pairs.add((i, j))
    return pairs


def supervision_f1(sides: Sides) -> float | None:
    """supervision's F1Score (boxes, micro average) at IoU 0.5, one Detections per image."""
    if bench.supervision is None:
        return None
    from supervision.metrics import AveragingMethod, F1Score

    boxes_a = np.c_[
        sides.coords_a[:, :2] - sides.coords_a[:, 2:4] / 2, sides.coords_a[:, :2] + sides.coords_a[:, 2:4] / 2
    ]
    boxes_b = np.c_[
        sides.coords_b[:, :2] - sides.coords_b[:, 2:4] / 2, sides.coords_b[:, :2] + sides.coords_b[:, 2:4] / 2
    ]
    bounds_a = np.searchsorted(sides.image_a, np.arange(sides.images + 1))
    bounds_b = np.searchsorted(sides.image_b, np.arange(sides.images + 1))
    targets, predictions = [], []
    for k in range(sides.images):
        rows_a, rows_b = slice(bounds_a[k], bounds_a[k + 1]), slice(bounds_b[k], bounds_b[k + 1])
        targets.append(bench.supervision.Detections(xyxy=boxes_a[rows_a], class_id=sides.category_a[rows_a]))
        predictions.append(
            bench.supervision.Detections(
                xyxy=boxes_b[rows_b], class_id=sides.category_b[rows_b], confidence=np.ones(rows_b.stop - rows_b.start)
            )
        )
    metric = F1Score(averaging_method=AveragingMethod.MICRO)
    return float(metric.update(predictions, targets).compute().f1_50)


# --------------------------------------------------------------------------- rows
@dataclass
class Row:
    name: str
    seconds: float | None
    runs: int
    note: str = ""


def timed(name: str, fn: Callable[[], Any], settings: bench.Settings) -> tuple[Row, Any]:
    try:
        timing = bench.measure(fn, settings)
    except Exception as error:  # a failing peer gets a row that says so
        return Row(name, None, 0, f"failed: {type(error).__name__}: {error}"), None
    return Row(name, timing.seconds, timing.runs), timing.result


def one_image(settings: bench.Settings, rotated: bool) -> list[Row]:
    n = settings.size(10_000, 1_000)
    sides = annotated(np.random.default_rng(SEED), 1, n, 12_000.0 * np.sqrt(n / 10_000), (10, 60), 1, rotated)
    rows = []
    search, found = timed(
        "geoiou.overlaps (the overlap search)", lambda: geoiou.overlaps(sides.a, sides.b, min_iou=MIN_IOU), settings
    )
    rows.append(search)
    greedy_row, greedy = timed("geoiou.match, greedy", lambda: geoiou.match(sides.a, sides.b), settings)
    optimal_row, optimal = timed(
        "geoiou.match, optimal", lambda: geoiou.match(sides.a, sides.b, method="optimal"), settings
    )
    report_row, report = timed(
        "evaluate_agreement (greedy)",
        lambda: evaluate_agreement(
            {"image_id": 0, "category_id": 0, "region": sides.a}, {"image_id": 0, "category_id": 0, "region": sides.b}
        ),
        settings,
    )
    greedy_row.note = f"{len(greedy)} pairs"
    optimal_row.note = f"{len(optimal)} pairs, summed IoU {optimal.total_iou:.4f}"
    report_row.note = f"F1 {report.overall()['f1']:.4f}"
    rows += [greedy_row, optimal_row, report_row]
    loop_row, loop_pairs = timed(
        "peer: Python greedy loop over the found pairs (loop only)",
        lambda: python_greedy(found.index_a, found.index_b, found.iou),
        settings,
    )
    loop_row.note = (
        "same pairs" if loop_pairs == set(zip(greedy.index_a.tolist(), greedy.index_b.tolist())) else "DIFFERENT pairs"
    )
    rows.append(loop_row)
    dense_row, dense_total = timed(
        "peer: dense pairwise_iou + scipy linear_sum_assignment", lambda: dense_assignment(sides.a, sides.b), settings
    )
    if dense_total is not None:
        dense_row.note = f"summed IoU {dense_total:.4f} (diff {abs(dense_total - optimal.total_iou):.1e})"
    rows.append(dense_row)
    if not rotated:
        rows.append(supervision_row(sides, settings))
    return rows


def many_images(settings: bench.Settings, rotated: bool) -> list[Row]:
    images = settings.size(5_000, 200)
    sides = annotated(np.random.default_rng(SEED + 1), images, 100, 1_000.0, (10, 40), 5, rotated)
    groups_a, groups_b = (sides.image_a, sides.category_a), (sides.image_b, sides.category_b)
    codes_a, codes_b = sides.image_a * 5 + sides.category_a, sides.image_b * 5 + sides.category_b
    rows = []
    search, _ = timed(
        "grouped overlap search (what match runs first)",
        lambda: grouped_overlaps(RowBlocks([sides.a]), RowBlocks([sides.b]), codes_a, codes_b, MIN_IOU),
        settings,
    )
    rows.append(search)
    greedy_row, greedy = timed(
        "geoiou.match, greedy, by image and category",
        lambda: geoiou.match(sides.a, sides.b, group_a=groups_a, group_b=groups_b),
        settings,
    )
    optimal_row, optimal = timed(
        "geoiou.match, optimal, by image and category",
        lambda: geoiou.match(sides.a, sides.b, method="optimal", group_a=groups_a, group_b=groups_b),
        settings,
    )
    report_row, report = timed(
        "evaluate_agreement (greedy)",
        lambda: evaluate_agreement(
            {"image_id": sides.image_a, "category_id": sides.category_a, "region": sides.a},
            {"image_id": sides.image_b, "category_id": sides.category_b, "region": sides.b},
        ),
        settings,
    )
    greedy_row.note = f"{len(greedy)} pairs"
    optimal_row.note = f"{len(optimal)} pairs, summed IoU {optimal.total_iou:.4f}"
    report_row.note = f"F1 {report.overall()['f1']:.4f}"
    rows += [greedy_row, optimal_row, report_row]
    loop_row, _ = timed(
        "peer: per image and category, dense pairwise_iou + scipy", lambda: dense_assignment_per_group(sides), settings
    )
    if loop_row.seconds is not None:
        total = dense_assignment_per_group(sides)
        loop_row.note = f"summed IoU {total:.4f} (diff {abs(total - optimal.total_iou):.1e})"
    rows.append(loop_row)
    if not rotated:
        rows.append(supervision_row(sides, settings))
    return rows


def supervision_row(sides: Sides, settings: bench.Settings) -> Row:
    name = "peer: supervision F1Score (boxes, all IoU thresholds)"
    if bench.supervision is None:
        return Row(name, None, 0, "not installed")
    row, f1 = timed(name, lambda: supervision_f1(sides), settings)
    if f1 is not None:
        row.note = f"F1@0.5 {f1:.4f}"
    return row


# --------------------------------------------------------------------------- output
def render(title: str, rows: list[Row], reference: float | None) -> str:
    width = max(len(row.name) for row in rows)
    lines = [title, f"{'':<{width}}  {'time':>10}  {'÷ search':>8}  runs  result"]
    for row in rows:
        time_text = "-" if row.seconds is None else f"{row.seconds * 1000:,.1f} ms"
        ratio = "" if row.seconds is None or not reference else f"{row.seconds / reference:.2f}"
        lines.append(f"{row.name:<{width}}  {time_text:>10}  {ratio:>8}  {row.runs:>4}  {row.note}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, 2 repeats: checks the script runs")
    parser.add_argument("--budget", type=float, default=10.0, help="seconds of timed runs per row (default 10)")
    options = parser.parse_args(argv)
    settings = bench.Settings(quick=options.quick, repeats=2 if options.quick else 7, budget=options.budget)
    for name, value in bench.machine_facts():
        print(f"{name:<38} {value}")
    for workload, title in (
        (one_image, "one image, {n} regions a side"),
        (many_images, "many images, 100 regions each"),
    ):
        for rotated in (False, True):
            rows = workload(settings, rotated)
            kind = "rotated boxes" if rotated else "boxes"
            print()
            print(render(f"{title.format(n=settings.size(10_000, 1_000))}: {kind}", rows, rows[0].seconds))
    load = ", ".join(f"{value:.2f}" for value in bench.os.getloadavg())
    print(f"\nload average at the end (1, 5, 15 min): {load}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
