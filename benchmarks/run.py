"""Benchmark geoiou against the peers people use for the same job, on the same data in one process.

Every workload is built from a fixed seed; geoiou and each installed peer compute the same matrix,
the peer's answer is compared with geoiou's (geoiou is exact, so a float32 peer differs by about
1e-4 and a rasterizing one by more: the column says how far each one is), and the median times are
printed with the ratio ``peer time / geoiou time`` (a ratio above 1 means geoiou is faster).

Inputs are built before timing, each in its library's own representation (geoiou regions, shapely
geometries, torch tensors, OpenCV rectangle tuples); a timing covers everything from there to the
full N x M result, pruning and tree building included. From dense masks, converting and encoding
them is part of the job, so it is timed.

Benchmarks are not tests: nothing here asserts on speed. See benchmarks/README.md.

    python benchmarks/run.py                 # every workload
    python benchmarks/run.py --only A,C      # some workloads
    python benchmarks/run.py --quick         # smaller sizes, fewer repeats: to check the script
    python benchmarks/run.py --markdown      # tables as markdown (docs/performance.md)
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.metadata
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any, Callable

import numpy as np
import shapely

import geoiou
import geoiou.io

SEED = 20240601


# --------------------------------------------------------------------------- optional peers
def optional(module: str) -> Any | None:
    """Import `module`, or None when it is not installed (or fails to import)."""
    try:
        return importlib.import_module(module)
    except Exception:  # a broken install counts as absent: a benchmark must not stop on it
        return None


cv2 = optional("cv2")
coco_mask = optional("pycocotools.mask")
skimage_draw = optional("skimage.draw")
supervision = optional("supervision")
torch = optional("torch")
torchvision_ops = optional("torchvision.ops") if torch is not None else None


def package_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


# --------------------------------------------------------------------------- timing and tables
@dataclass
class Settings:
    quick: bool = False
    repeats: int = 7
    budget: float = 10.0  # seconds of timed runs per row, after the warm-up

    def size(self, full: int, quick: int) -> int:
        return quick if self.quick else full


@dataclass
class Timing:
    seconds: float
    runs: int
    result: Any


def measure(fn: Callable[[], Any], settings: Settings) -> Timing:
    """Median wall time of `fn` over up to `settings.repeats` runs after one warm-up run.

    The warm-up's result is kept for the agreement check. A row stops repeating once its timed runs
    pass `settings.budget` seconds; a call slower than the budget is timed once, on its warm-up.
    """
    gc.collect()
    start = time.perf_counter()
    result = fn()
    warm = time.perf_counter() - start
    if warm > settings.budget:
        return Timing(warm, 1, result)
    times: list[float] = []
    spent = 0.0
    for _ in range(settings.repeats):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        spent += times[-1]
        if spent > settings.budget:
            break
    return Timing(statistics.median(times), len(times), result)


def max_abs_diff(value: Any, reference: Any) -> float:
    """Largest |value - reference|; NaN where both are NaN agree, a NaN on one side only is NaN.

    Results given as ``(index_a, index_b, values)`` (sparse pairs) must list the same pairs.
    """
    if isinstance(value, tuple) and isinstance(reference, tuple):
        if not all(np.array_equal(v, r) for v, r in zip(value[:-1], reference[:-1])):
            raise ValueError(f"different pairs: {len(value[0])} against geoiou's {len(reference[0])}")
        value, reference = value[-1], reference[-1]
    value = np.array(value, dtype=np.float64, ndmin=1)
    reference = np.array(reference, dtype=np.float64, ndmin=1)
    if value.shape != reference.shape:
        raise ValueError(f"shape {value.shape} differs from geoiou's {reference.shape}")
    diff = np.abs(value - reference)
    diff[np.isnan(value) & np.isnan(reference)] = 0.0
    return float(diff.max()) if diff.size else 0.0


@dataclass
class Row:
    name: str
    seconds: float | None = None
    runs: int = 0
    diff: float | None = None  # None: not comparable (a floor, or a partial step)
    note: str = ""
    kind: str = "peer"  # "geoiou", "peer" (exact or not), "floor", "part" (a step of a peer)
    exact: bool = False  # a peer whose answer is exact in float64 (for the targets)


@dataclass
class Table:
    workload: str
    title: str
    rows: list[Row] = field(default_factory=list)
    label: str = ""  # a short name for the summary tables (default: the title up to its first comma)
    group: str = ""  # tables of one workload that have their own target (B's small sets)
    reference: Any = None  # geoiou's result
    reference_seconds: float | None = None

    def add(
        self,
        name: str,
        fn: Callable[[], Any] | None,
        settings: Settings,
        *,
        kind: str = "peer",
        exact: bool = False,
        note: str = "",
        compare: bool = True,
        missing: str = "",
    ) -> Row:
        """Time `fn` and add its row; `fn=None` adds a skipped row explaining `missing`."""
        row = Row(name, kind=kind, exact=exact, note=note)
        self.rows.append(row)
        if fn is None:
            row.note = missing or note
            return row
        try:
            timing = measure(fn, settings)
        except Exception as error:  # a peer that fails is reported, not fatal
            row.note = f"failed: {type(error).__name__}: {error}".splitlines()[0][:120]
            if os.environ.get("GEOIOU_BENCH_DEBUG"):
                traceback.print_exc()
            return row
        row.seconds, row.runs = timing.seconds, timing.runs
        if kind == "geoiou" and self.reference is None:
            self.reference, self.reference_seconds = timing.result, timing.seconds
        elif compare and kind in ("geoiou", "peer") and self.reference is not None:
            try:
                row.diff = max_abs_diff(timing.result, self.reference)
            except Exception as error:
                row.note = (row.note + "; " if row.note else "") + f"not compared: {error}"
        return row

    @property
    def short(self) -> str:
        return f"{self.workload}. {self.label or self.title.split(',')[0].split(' (')[0]}"

    def ratio(self, row: Row) -> float | None:
        if row.seconds is None or not self.reference_seconds:
            return None
        return row.seconds / self.reference_seconds

    def fastest(self, predicate: Callable[[Row], bool]) -> Row | None:
        rows = [row for row in self.rows if row.seconds is not None and predicate(row)]
        return min(rows, key=lambda row: row.seconds) if rows else None


def format_ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    ms = seconds * 1e3
    return f"{ms:.3g}" if ms < 100 else f"{ms:.0f}"


def format_ratio(ratio: float | None) -> str:
    if ratio is None:
        return "-"
    return f"{ratio:.3g}" if ratio < 100 else f"{ratio:.0f}"


def format_diff(diff: float | None, row: Row) -> str:
    if row.kind == "geoiou" and diff is None:
        return "(reference)"
    if diff is None:
        return "-"
    return "0" if diff == 0 else f"{diff:.1e}"


def table_cells(table: Table) -> list[list[str]]:
    cells = []
    for row in table.rows:
        runs = f" (n={row.runs})" if row.runs == 1 else ""
        cells.append(
            [
                row.name,
                format_ms(row.seconds) + runs,
                format_ratio(table.ratio(row)),
                format_diff(row.diff, row),
                row.note,
            ]
        )
    return cells


HEADER = ["name", "median ms", "ratio vs geoiou", "max abs diff vs geoiou", "note"]


def render_text(table: Table) -> str:
    cells = [HEADER] + table_cells(table)
    widths = [max(len(line[i]) for line in cells) for i in range(len(HEADER) - 1)]
    lines = [f"\n{table.workload}. {table.title}"]
    for k, line in enumerate(cells):
        lines.append(
            "  " + "  ".join(cell.ljust(widths[i]) if i < len(widths) else cell for i, cell in enumerate(line)).rstrip()
        )
        if k == 0:
            lines.append("  " + "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def render_markdown(table: Table) -> str:
    lines = [
        f"\n#### {table.workload}. {table.title}\n",
        "| " + " | ".join(HEADER) + " |",
        "|" + "|".join(["---", "---:", "---:", "---:", "---"]) + "|",
    ]
    for line in table_cells(table):
        lines.append("| " + " | ".join(cell.replace("|", "/") for cell in line) + " |")
    return "\n".join(lines)


# --------------------------------------------------------------------------- machine facts
def source_revision(show_path: bool = True) -> str:
    """The git commit geoiou was imported from, and whether its package files had local changes.

    The folder it was imported from is left out of the markdown tables, which go into the docs.
    """
    package = os.path.dirname(os.path.abspath(geoiou.__file__))
    where = f", imported from {package}" if show_path else ""
    try:
        commit = subprocess.run(
            ["git", "-C", package, "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", package, "status", "--porcelain", "--", "."],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return f"not a git checkout (an exported tree){where}"
    state = " with uncommitted changes to the package" if dirty else ""
    return f"commit {commit}{state}{where}"


def machine_facts(show_path: bool = True) -> list[tuple[str, str]]:
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    blas = "unknown"
    threadpoolctl = optional("threadpoolctl")
    if threadpoolctl is not None:
        info = [pool for pool in threadpoolctl.threadpool_info() if pool.get("user_api") == "blas"]
        if info:
            blas = ", ".join(
                f"{pool.get('internal_api')} {pool.get('version')} ({pool.get('architecture')}, "
                f"{pool.get('num_threads')} threads)"
                for pool in info
            )
    peers = [
        "numpy",
        "shapely",
        "pycocotools",
        "opencv-python-headless",
        "scikit-image",
        "supervision",
        "torch",
        "torchvision",
        "mmcv",
        "detectron2",
    ]
    facts = [
        ("CPU", cpu),
        ("cores", f"{os.cpu_count()} logical, {usable} usable"),
        ("load average at start (1, 5, 15 min)", load),
        ("Python", platform.python_version()),
        ("geoiou", f"{geoiou.__version__}, {source_revision(show_path)}"),
        ("OPENBLAS_CORETYPE", os.environ.get("OPENBLAS_CORETYPE", "not set")),
        ("BLAS", blas),
    ]
    facts += [(name, package_version(name)) for name in peers]
    if torch is not None:
        facts.append(("torch threads", str(torch.get_num_threads())))
    return facts


# --------------------------------------------------------------------------- shared helpers
def overlapping_pairs(bounds_a: np.ndarray, bounds_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs whose axis-aligned bounds ``(x0, y0, x1, y1)`` overlap: the pruning people write."""
    keep = (
        (bounds_a[:, None, 0] < bounds_b[None, :, 2])
        & (bounds_b[None, :, 0] < bounds_a[:, None, 2])
        & (bounds_a[:, None, 1] < bounds_b[None, :, 3])
        & (bounds_b[None, :, 1] < bounds_a[:, None, 3])
    )
    return np.nonzero(keep)


def shapely_strtree_iou(geoms_a: np.ndarray, geoms_b: np.ndarray, *, overlay_union: bool = False) -> np.ndarray:
    """IoU matrix from shapely 2: an STRtree on `geoms_b`, vectorized intersection on its candidates.

    The union is ``area_a + area_b - intersection`` (the cheap way), or with `overlay_union` a
    second overlay ``shapely.union`` (the way many scripts write it).
    """
    tree = shapely.STRtree(geoms_b)
    index_a, index_b = tree.query(geoms_a)
    out = np.zeros((len(geoms_a), len(geoms_b)))
    pa, pb = geoms_a[index_a], geoms_b[index_b]
    inter = shapely.area(shapely.intersection(pa, pb))
    if overlay_union:
        union = shapely.area(shapely.union(pa, pb))
    else:
        union = shapely.area(geoms_a)[index_a] + shapely.area(geoms_b)[index_b] - inter
    out[index_a, index_b] = inter / union
    return out


def output_floor(shape: tuple[int, ...], dtype: Any = np.float64) -> Callable[[], np.ndarray]:
    """Allocate and write an output of `shape`: no IoU kernel can be faster than this."""

    def run() -> np.ndarray:
        out = np.empty(shape, dtype=dtype)
        out.fill(0.5)
        return out

    return run


def random_boxes(
    rng: np.random.Generator, n: int, extent: float = 1000.0, sizes: tuple[float, float] = (10, 100)
) -> np.ndarray:
    xy = rng.uniform(0, extent, (n, 2))
    wh = rng.uniform(*sizes, (n, 2))
    return np.hstack([xy, xy + wh])


# --------------------------------------------------------------------------- A. boxes
def box_iou_numpy_f32(a: np.ndarray, b: np.ndarray, giou: bool = False) -> np.ndarray:
    """The straightforward float32 broadcasting formula."""
    a = a.astype(np.float32)
    b = b.astype(np.float32)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt, 0, None)
    inter = wh[..., 0] * wh[..., 1]
    union = area_a[:, None] + area_b[None, :] - inter
    iou = inter / union
    if not giou:
        return iou
    lt = np.minimum(a[:, None, :2], b[None, :, :2])
    rb = np.maximum(a[:, None, 2:], b[None, :, 2:])
    wh = rb - lt
    hull = wh[..., 0] * wh[..., 1]
    return iou - (hull - union) / hull


def workload_a(settings: Settings) -> list[Table]:
    tables = []
    sizes = [settings.size(1000, 300), settings.size(4000, 1000)]
    for n in sizes:
        rng = np.random.default_rng(SEED + n)
        xyxy_a, xyxy_b = random_boxes(rng, n), random_boxes(rng, n)
        box_a, box_b = geoiou.Box(xyxy_a), geoiou.Box(xyxy_b)
        xywh_a, xywh_b = box_a.to_array("xywh"), box_b.to_array("xywh")
        crowd = np.zeros(n, dtype=np.uint8)
        tensors = (
            (torch.from_numpy(xyxy_a.astype(np.float32)), torch.from_numpy(xyxy_b.astype(np.float32)))
            if torchvision_ops is not None
            else None
        )
        no_torch = (
            "torchvision not installed"
            if torch is None
            else ("torchvision not importable" if torchvision_ops is None else "")
        )
        for metric in ("iou", "giou"):
            table = Table("A", f"Box {n}x{n} pairwise_{metric}, float64 (peers float32 unless noted)")
            fn = geoiou.pairwise_iou if metric == "iou" else geoiou.pairwise_giou
            table.add(f"geoiou pairwise_{metric}", lambda fn=fn: fn(box_a, box_b), settings, kind="geoiou")
            table.add(
                "geoiou, dtype=float32 output",
                lambda fn=fn: fn(box_a, box_b, dtype=np.float32),
                settings,
                kind="geoiou",
                note="computed in float64, stored as float32",
            )
            table.add(
                "numpy float32 broadcasting",
                lambda g=(metric == "giou"): box_iou_numpy_f32(xyxy_a, xyxy_b, g),
                settings,
            )
            if metric == "iou":
                table.add(
                    "pycocotools mask.iou (xywh, float64)",
                    (lambda: coco_mask.iou(xywh_a, xywh_b, crowd)) if coco_mask else None,
                    settings,
                    exact=True,
                    missing="pycocotools not installed",
                )
            torch_fn = None
            if tensors is not None:
                op = torchvision_ops.box_iou if metric == "iou" else torchvision_ops.generalized_box_iou
                torch_fn = lambda op=op: op(*tensors).numpy()  # noqa: E731
            name = "torchvision box_iou" if metric == "iou" else "torchvision generalized_box_iou"
            table.add(name, torch_fn, settings, missing=no_torch)
            table.add("floor: np.empty + fill, float64", output_floor((n, n)), settings, kind="floor")
            tables.append(table)
    return tables


# --------------------------------------------------------------------------- B. rotated boxes
def rotated_scene(rng: np.random.Generator, n: int, dense: bool) -> np.ndarray:
    if dense:  # every pair overlaps: centres within 20 px, each box holds a disc of radius >= 25
        centres = rng.uniform(490, 510, (n, 2))
        sizes = rng.uniform(50, 100, (n, 2))
    else:
        centres = rng.uniform(0, 1000, (n, 2))
        sizes = rng.uniform(10, 100, (n, 2))
    angles = rng.uniform(-180, 180, (n, 1))
    return np.hstack([centres, sizes, angles])


def opencv_rect_tuples(coords: np.ndarray) -> list[tuple]:
    return [((cx, cy), (w, h), angle) for cx, cy, w, h, angle in coords.tolist()]


def opencv_rotated_iou(
    rects_a: list[tuple],
    rects_b: list[tuple],
    bounds_a: np.ndarray,
    bounds_b: np.ndarray,
    area_a: np.ndarray,
    area_b: np.ndarray,
) -> np.ndarray:
    """cv2.rotatedRectangleIntersection in a Python loop over the pairs whose bounds overlap."""
    out = np.zeros((len(rects_a), len(rects_b)))
    index_a, index_b = overlapping_pairs(bounds_a, bounds_b)
    intersect, hull, contour_area = cv2.rotatedRectangleIntersection, cv2.convexHull, cv2.contourArea
    for i, j in zip(index_a.tolist(), index_b.tolist()):
        _, points = intersect(rects_a[i], rects_b[j])
        if points is not None and len(points) > 2:
            inter = contour_area(hull(points))
            out[i, j] = inter / (area_a[i] + area_b[j] - inter)
    return out


def rotated_tables(
    title: str,
    workload: str,
    coords_a: np.ndarray,
    coords_b: np.ndarray,
    settings: Settings,
    geoiou_a: geoiou.Region | None = None,
    geoiou_b: geoiou.Region | None = None,
) -> Table:
    """geoiou RotatedBox vs OpenCV, shapely, mmcv, detectron2 on the same boxes."""
    box_a, box_b = geoiou.RotatedBox(coords_a), geoiou.RotatedBox(coords_b)
    table = Table(workload, title)
    table.add("geoiou pairwise_iou (RotatedBox)", lambda: geoiou.pairwise_iou(box_a, box_b), settings, kind="geoiou")
    if geoiou_a is not None:
        table.add(
            "geoiou pairwise_iou (as Polygon)", lambda: geoiou.pairwise_iou(geoiou_a, geoiou_b), settings, kind="geoiou"
        )
    corners_a, corners_b = box_a.to_corners(), box_b.to_corners()
    geoms_a, geoms_b = shapely.polygons(corners_a), shapely.polygons(corners_b)
    table.add("shapely 2 STRtree + intersection", lambda: shapely_strtree_iou(geoms_a, geoms_b), settings, exact=True)
    if cv2 is not None:
        rects_a, rects_b = opencv_rect_tuples(coords_a), opencv_rect_tuples(coords_b)
        bounds_a = np.concatenate([corners_a.min(axis=1), corners_a.max(axis=1)], axis=1)
        bounds_b = np.concatenate([corners_b.min(axis=1), corners_b.max(axis=1)], axis=1)
        area_a, area_b = coords_a[:, 2] * coords_a[:, 3], coords_b[:, 2] * coords_b[:, 3]
        n_candidates = len(overlapping_pairs(bounds_a, bounds_b)[0])
        table.add(
            "OpenCV rotatedRectangleIntersection loop",
            lambda: opencv_rotated_iou(rects_a, rects_b, bounds_a, bounds_b, area_a, area_b),
            settings,
            note=f"float32; bounds-pruned: {n_candidates} of {len(coords_a) * len(coords_b)} pairs",
        )
    else:
        table.add("OpenCV rotatedRectangleIntersection loop", None, settings, missing="opencv not installed")
    mmcv_ops = optional("mmcv.ops")
    if mmcv_ops is not None and torch is not None:
        ta = torch.from_numpy(box_a.to_radians().astype(np.float32))
        tb = torch.from_numpy(box_b.to_radians().astype(np.float32))
        table.add("mmcv box_iou_rotated", lambda: mmcv_ops.box_iou_rotated(ta, tb).numpy(), settings, note="float32")
    else:
        table.add("mmcv box_iou_rotated", None, settings, missing="mmcv not installed")
    d2_structures = optional("detectron2.structures")
    if d2_structures is not None and torch is not None:
        ta = torch.from_numpy(box_a.to_detectron2().astype(np.float32))
        tb = torch.from_numpy(box_b.to_detectron2().astype(np.float32))
        table.add(
            "detectron2 pairwise_iou_rotated",
            lambda: d2_structures.pairwise_iou_rotated(
                d2_structures.RotatedBoxes(ta), d2_structures.RotatedBoxes(tb)
            ).numpy(),
            settings,
            note="float32",
        )
    else:
        table.add("detectron2 pairwise_iou_rotated", None, settings, missing="detectron2 not installed")
    return table


def workload_b(settings: Settings) -> list[Table]:
    tables = []
    # The large sets test the kernel; the small ones (the same scenes' first boxes) its fixed costs.
    for n, group in ((settings.size(1000, 200), ""), (settings.size(300, 100), "small")):
        for dense in (False, True):
            rng = np.random.default_rng(SEED + 2 + dense)
            a, b = rotated_scene(rng, n, dense), rotated_scene(rng, n, dense)
            scene = (
                "dense (all pairs overlap: centres within 20 px, sizes 50-100)"
                if dense
                else "sparse (sizes 10-100 in 1000x1000, random angles)"
            )
            table = rotated_tables(f"RotatedBox {n}x{n} pairwise_iou, {scene}", "B", a, b, settings)
            table.label = f"RotatedBox {n}x{n}, {'dense' if dense else 'sparse'}"
            table.group = group
            tables.append(table)
    return tables


# --------------------------------------------------------------------------- C. masks
def blob_masks(rng: np.random.Generator, n: int, size: int, centres: np.ndarray | None = None) -> np.ndarray:
    """Object-like masks: filled ellipses and star polygons of many sizes, rasterized by skimage.draw."""
    masks = np.zeros((n, size, size), dtype=bool)
    for k in range(n):
        radius = size * rng.uniform(0.02, 0.25)
        cy, cx = centres[k] if centres is not None else rng.uniform(radius, size - radius, 2)
        if k % 2 == 0:
            rows, cols = skimage_draw.ellipse(
                cy, cx, radius, radius * rng.uniform(0.4, 1.0), shape=(size, size), rotation=rng.uniform(0, np.pi)
            )
        else:
            vertices = int(rng.integers(6, 16))
            ring = star_ring(rng, vertices, radius * rng.uniform(0.5, 1.0, vertices))
            rows, cols = skimage_draw.polygon(cy + ring[:, 1], cx + ring[:, 0], shape=(size, size))
        masks[k, rows, cols] = True
        if not masks[k].any():
            masks[k, int(cy), int(cx)] = True
    return masks


def mask_iou_packed_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pack each mask to 64-bit words, AND every pair and count bits: a numpy approach."""
    pa = np.packbits(a.reshape(len(a), -1), axis=1)
    pb = np.packbits(b.reshape(len(b), -1), axis=1)
    pad = (-pa.shape[1]) % 8
    if pad:
        pa, pb = np.pad(pa, ((0, 0), (0, pad))), np.pad(pb, ((0, 0), (0, pad)))
    wa, wb = pa.view(np.uint64), pb.view(np.uint64)
    area_a = np.bitwise_count(wa).sum(axis=1, dtype=np.int64)
    area_b = np.bitwise_count(wb).sum(axis=1, dtype=np.int64)
    inter = np.empty((len(a), len(b)), dtype=np.int64)
    for i in range(len(a)):
        inter[i] = np.bitwise_count(wa[i] & wb).sum(axis=1, dtype=np.int64)
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def mask_iou_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Intersections as a float32 matrix product (exact: counts stay below 2**24)."""
    fa = a.reshape(len(a), -1).astype(np.float32)
    fb = b.reshape(len(b), -1).astype(np.float32)
    inter = fa @ fb.T
    union = fa.sum(axis=1)[:, None] + fb.sum(axis=1)[None, :] - inter
    return (inter / union).astype(np.float64)


def to_fortran_uint8(masks: np.ndarray) -> np.ndarray:
    """(N, H, W) bool to the (H, W, N) column-major uint8 that pycocotools' encode reads."""
    return np.asfortranarray(masks.transpose(1, 2, 0), dtype=np.uint8)


def geoiou_rle_masks(rles: list[dict]) -> Any:
    """geoiou masks from COCO RLEs, if geoiou can read them (Mask.from_rle)."""
    return geoiou.Mask.from_rle(rles)


def workload_c(settings: Settings) -> list[Table]:
    n, size = settings.size(100, 30), settings.size(512, 256)
    if skimage_draw is None:
        table = Table("C", f"Mask {n}x{n} at {size}x{size}")
        table.add(
            "geoiou", None, settings, kind="geoiou", missing="scikit-image (skimage.draw) is needed to draw the masks"
        )
        return [table]
    rng = np.random.default_rng(SEED + 3)
    a = blob_masks(rng, n, size)
    # Predictions: half of them near a ground-truth object (overlapping it), half elsewhere.
    centres = np.argwhere(a.any(axis=0))[rng.integers(0, a.any(axis=0).sum(), n)].astype(float)
    centres[n // 2 :] = rng.uniform(size * 0.1, size * 0.9, (n - n // 2, 2))
    b = blob_masks(rng, n, size, centres=centres)
    overlapping = int(np.count_nonzero(mask_iou_matmul(a, b) > 0))

    dense = Table(
        "C", f"Mask {n}x{n} at {size}x{size} from dense boolean arrays ({overlapping} of {n * n} pairs overlap)"
    )
    dense.add(
        "geoiou pairwise_iou(Mask(a), Mask(b))",
        lambda: geoiou.pairwise_iou(geoiou.Mask(a), geoiou.Mask(b)),
        settings,
        kind="geoiou",
    )
    if coco_mask is not None:
        crowd = np.zeros(n, dtype=np.uint8)

        def coco_from_dense() -> np.ndarray:
            return coco_mask.iou(coco_mask.encode(to_fortran_uint8(a)), coco_mask.encode(to_fortran_uint8(b)), crowd)

        fa, fb = to_fortran_uint8(a), to_fortran_uint8(b)
        ra, rb = coco_mask.encode(fa), coco_mask.encode(fb)
        dense.add(
            "pycocotools encode + iou", coco_from_dense, settings, exact=True, note="incl. conversion to Fortran uint8"
        )
        dense.add(
            "  step: conversion to Fortran uint8",
            lambda: (to_fortran_uint8(a), to_fortran_uint8(b)),
            settings,
            kind="part",
        )
        dense.add(
            "  step: encode (from Fortran uint8)",
            lambda: (coco_mask.encode(fa), coco_mask.encode(fb)),
            settings,
            kind="part",
        )
        dense.add("  step: iou on the RLEs", lambda: coco_mask.iou(ra, rb, crowd), settings, kind="part", exact=True)
    else:
        dense.add("pycocotools encode + iou", None, settings, missing="pycocotools not installed")
    dense.add("numpy packed bits + bitwise_count", lambda: mask_iou_packed_bits(a, b), settings, exact=True)
    dense.add(
        "numpy float32 matmul",
        lambda: mask_iou_matmul(a, b),
        settings,
        exact=True,
        note="float32 counts, exact below 2**24 pixels",
    )
    if supervision is not None and hasattr(supervision, "mask_iou_batch"):
        dense.add("supervision mask_iou_batch", lambda: supervision.mask_iou_batch(a, b), settings)
    else:
        dense.add("supervision mask_iou_batch", None, settings, missing="supervision not installed")
    tables = [dense]

    rle = Table("C", f"Mask {n}x{n} at {size}x{size} from COCO RLE input")
    if coco_mask is None:
        rle.add("geoiou", None, settings, kind="geoiou", missing="pycocotools not installed (it makes the RLEs)")
        return tables + [rle]
    rles_a, rles_b = coco_mask.encode(to_fortran_uint8(a)), coco_mask.encode(to_fortran_uint8(b))
    crowd = np.zeros(n, dtype=np.uint8)
    if hasattr(geoiou.Mask, "from_rle"):
        rle.add(
            "geoiou Mask.from_rle + pairwise_iou",
            lambda: geoiou.pairwise_iou(geoiou_rle_masks(rles_a), geoiou_rle_masks(rles_b)),
            settings,
            kind="geoiou",
        )
    else:
        rle.add(
            "geoiou Mask.from_rle + pairwise_iou",
            None,
            settings,
            kind="geoiou",
            missing="skipped: this geoiou has no Mask.from_rle",
        )
        rle.reference = mask_iou_packed_bits(a, b)  # exact integer counts, for the agreement column
        rle.rows[-1].note += "; diffs below are against exact packed-bit counts"
    rle.add("pycocotools iou on RLEs", lambda: coco_mask.iou(rles_a, rles_b, crowd), settings, exact=True)
    rle.add(
        "pycocotools decode + geoiou pairwise_iou",
        lambda: geoiou.pairwise_iou(
            geoiou.Mask(coco_mask.decode(rles_a).transpose(2, 0, 1)),
            geoiou.Mask(coco_mask.decode(rles_b).transpose(2, 0, 1)),
        ),
        settings,
        note="what a geoiou user does without RLE support",
    )
    return tables + [rle]


# --------------------------------------------------------------------------- D. polygons
def star_polygons(rng: np.random.Generator, n: int, extent: float = 1000.0) -> list[np.ndarray]:
    """Simple (star-shaped) polygons of 8-30 vertices, radius 10-60, anywhere in the extent."""
    rings = []
    for _ in range(n):
        count = int(rng.integers(8, 31))
        centre = rng.uniform(0, extent, 2)
        rings.append(centre + star_ring(rng, count, rng.uniform(10, 60) * rng.uniform(0.5, 1.0, count)))
    return rings


def star_ring(rng: np.random.Generator, count: int, radii: np.ndarray) -> np.ndarray:
    """A simple ring around the origin: one vertex per angular sector, so every gap is below pi."""
    theta = (np.arange(count) + rng.uniform(0.1, 0.9, count)) * (2 * np.pi / count)
    return np.stack([radii * np.cos(theta), radii * np.sin(theta)], axis=1)


def workload_d(settings: Settings) -> list[Table]:
    n = settings.size(1000, 300)
    rng = np.random.default_rng(SEED + 4)
    poly_a = geoiou.Polygon.from_rings(star_polygons(rng, n))
    poly_b = geoiou.Polygon.from_rings(star_polygons(rng, n))
    geoms_a, geoms_b = np.asarray(poly_a.to_shapely(), dtype=object), np.asarray(poly_b.to_shapely(), dtype=object)
    candidates = int(np.count_nonzero(geoiou.pairwise_intersection_area(poly_a, poly_b) > 0))
    table = Table("D", f"Polygon {n}x{n} pairwise_iou, 8-30 vertices, sparse ({candidates} overlapping pairs)")
    table.add("geoiou pairwise_iou", lambda: geoiou.pairwise_iou(poly_a, poly_b), settings, kind="geoiou")
    table.add("shapely 2 STRtree + intersection", lambda: shapely_strtree_iou(geoms_a, geoms_b), settings, exact=True)
    table.add(
        "shapely 2 STRtree + intersection + union",
        lambda: shapely_strtree_iou(geoms_a, geoms_b, overlay_union=True),
        settings,
        exact=True,
        note="union by a second overlay",
    )
    return [table]


def workload_d_giou(settings: Settings) -> list[Table]:
    """GIoU of polygons (hull enclosure) against geoiou's own IoU of the same pairs: the cost of the hulls."""
    n = settings.size(1000, 300)
    rng = np.random.default_rng(SEED + 4)
    poly_a = geoiou.Polygon.from_rings(star_polygons(rng, n))
    poly_b = geoiou.Polygon.from_rings(star_polygons(rng, n))
    table = Table(
        "DG", f"Polygon {n}x{n} pairwise_giou (hull enclosure), same scene as D", label=f"Polygon {n}x{n} GIoU"
    )
    table.add("geoiou pairwise_giou", lambda: geoiou.pairwise_giou(poly_a, poly_b), settings, kind="geoiou")
    table.add(
        "geoiou pairwise_iou (the same pairs' IoU)",
        lambda: geoiou.pairwise_iou(poly_a, poly_b),
        settings,
        kind="part",
        compare=False,
        note="for the target: GIoU within 2x of IoU",
    )
    if not settings.quick:
        geoms_a, geoms_b = poly_a.to_shapely(), poly_b.to_shapely()
        table.add(
            "shapely 2 hull of union + intersection, every pair",
            lambda: shapely_giou(geoms_a, geoms_b),
            settings,
            exact=True,
        )
    return [table]


def workload_small(settings: Settings) -> list[Table]:
    """The sets of one image or tile (10 to 100 regions a side), where a call's fixed cost decides.

    Targets (issue 20): polygons 3x faster than shapely (IoU and GIoU), rotated boxes 5x faster than the
    OpenCV loop.

    The same scenes as D and B (star polygons, sparse rotated boxes), fewer regions.
    """
    tables = []
    for n in (10, 30, 100):
        rng = np.random.default_rng(SEED + 4)
        poly_a = geoiou.Polygon.from_rings(star_polygons(rng, n))
        poly_b = geoiou.Polygon.from_rings(star_polygons(rng, n))
        geoms_a, geoms_b = np.asarray(poly_a.to_shapely(), dtype=object), np.asarray(poly_b.to_shapely(), dtype=object)
        iou = Table("SM", f"Polygon {n}x{n} pairwise_iou, the scene of D", label=f"Polygon {n}x{n}")
        iou.add("geoiou pairwise_iou", lambda: geoiou.pairwise_iou(poly_a, poly_b), settings, kind="geoiou")
        iou.add("shapely 2 STRtree + intersection", lambda: shapely_strtree_iou(geoms_a, geoms_b), settings, exact=True)
        giou = Table(
            "SM", f"Polygon {n}x{n} pairwise_giou (hull enclosure), the scene of D", label=f"Polygon {n}x{n} GIoU"
        )
        giou.add("geoiou pairwise_giou", lambda: geoiou.pairwise_giou(poly_a, poly_b), settings, kind="geoiou")
        giou.add(
            "shapely 2 hull of union + intersection, every pair",
            lambda: shapely_giou(geoms_a, geoms_b),
            settings,
            exact=True,
        )
        tables += [iou, giou]
    for n in (10, 30):
        rng = np.random.default_rng(SEED + 2)
        a, b = rotated_scene(rng, n, False), rotated_scene(rng, n, False)
        table = rotated_tables(f"RotatedBox {n}x{n} pairwise_iou, sparse (the scene of B)", "SM", a, b, settings)
        table.label = f"RotatedBox {n}x{n}"
        tables.append(table)
    return tables


def shapely_giou(geoms_a: np.ndarray, geoms_b: np.ndarray) -> np.ndarray:
    """GIoU matrix with shapely 2: every pair's hull (no pruning can skip it), intersections from an STRtree."""
    iou = shapely_strtree_iou(geoms_a, geoms_b)
    hulls_a, hulls_b = shapely.convex_hull(geoms_a), shapely.convex_hull(geoms_b)
    enclosing = shapely.area(shapely.convex_hull(shapely.union(hulls_a[:, None], hulls_b[None, :])))
    area_a, area_b = shapely.area(geoms_a)[:, None], shapely.area(geoms_b)[None, :]
    union = (area_a + area_b) / (1 + iou)  # union from IoU: inter = iou * union, union = a + b - inter
    return iou - (enclosing - union) / enclosing


def twelve_gons(rng: np.random.Generator, n: int, extent: float) -> np.ndarray:
    """``(n, 12, 2)`` vertices of simple star-shaped 12-gons of radius 3-8 anywhere in the extent."""
    centres = rng.uniform(0, extent, (n, 2))
    theta = (np.arange(12) + rng.uniform(0.1, 0.9, (n, 12))) * (2 * np.pi / 12)
    radii = rng.uniform(3, 8, (n, 1)) * rng.uniform(0.6, 1.0, (n, 12))
    return centres[:, None, :] + np.stack([radii * np.cos(theta), radii * np.sin(theta)], axis=-1)


def shapely_overlaps(rings_a: np.ndarray, rings_b: np.ndarray, min_iou: float) -> tuple[np.ndarray, ...]:
    """The ten-line shapely snippet: polygons from the arrays, an STRtree, intersections of the candidates."""
    geoms_a, geoms_b = shapely.polygons(rings_a), shapely.polygons(rings_b)
    index_a, index_b = shapely.STRtree(geoms_b).query(geoms_a, predicate="intersects")
    inter = shapely.area(shapely.intersection(geoms_a[index_a], geoms_b[index_b]))
    iou = inter / (shapely.area(geoms_a)[index_a] + shapely.area(geoms_b)[index_b] - inter)
    keep = iou >= min_iou
    order = np.lexsort((index_b[keep], index_a[keep]))
    return index_a[keep][order], index_b[keep][order], iou[keep][order]


def workload_d50k(settings: Settings) -> list[Table]:
    """Large polygon sets from coordinate arrays, construction included: `overlaps` against the shapely snippet."""
    n = settings.size(50_000, 5_000)
    rng = np.random.default_rng(SEED + 6)
    rings_a = twelve_gons(rng, n, extent=2000.0 * math.sqrt(n / 50_000))
    rings_b = rings_a + rng.uniform(-2, 2, (n, 1, 2))  # each polygon's shifted copy (and its neighbours)

    def with_geoiou() -> tuple[np.ndarray, ...]:
        found = geoiou.overlaps(geoiou.Polygon.from_rings(rings_a), geoiou.Polygon.from_rings(rings_b), min_iou=0.5)
        return found.index_a, found.index_b, found.iou

    table = Table(
        "D50K",
        f"Polygon {n}x{n} overlaps(min_iou=0.5), 12-gons from (N, 12, 2) arrays, construction included",
        label=f"Polygon {n}x{n} overlaps",
    )
    table.add("geoiou Polygon.from_rings + overlaps", with_geoiou, settings, kind="geoiou")
    table.add(
        "shapely 2 polygons + STRtree + intersection",
        lambda: shapely_overlaps(rings_a, rings_b, 0.5),
        settings,
        exact=True,
    )
    return [table]


def workload_dota(settings: Settings) -> list[Table]:
    objects = geoiou.io.read_dota(files("geoiou") / "data" / "dota" / "P0706.txt")
    polygons = objects.polygons
    geoms = np.asarray(polygons.to_shapely(), dtype=object)
    n = len(geoms)
    table = Table("DOTA", f"P0706: {n} labelled quadrilaterals, pairwise_iou as Polygon")
    table.add("geoiou pairwise_iou (Polygon)", lambda: geoiou.pairwise_iou(polygons, polygons), settings, kind="geoiou")
    table.add("shapely 2 STRtree + intersection", lambda: shapely_strtree_iou(geoms, geoms), settings, exact=True)
    boxes = geoiou.RotatedBox.from_corners(objects.corners, fit="min_area")
    coords = boxes.to_array()
    rotated = rotated_tables(
        f"P0706: the same {n} as RotatedBox.from_corners(fit='min_area'), pairwise_iou",
        "DOTA",
        coords,
        coords,
        settings,
    )
    table.label = f"P0706 {n} as Polygon"
    rotated.label = f"P0706 {n} as RotatedBox (min_area)"
    return [table, rotated]


# --------------------------------------------------------------------------- E. intervals
def interval_iou_f32_out(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """float32 broadcasting into preallocated buffers (``out=``): two N x M temporaries."""
    s1, e1 = a[:, :1].astype(np.float32), a[:, 1:].astype(np.float32)
    s2, e2 = b[:, 0].astype(np.float32), b[:, 1].astype(np.float32)
    inter = np.minimum(e1, e2)
    union = np.maximum(s1, s2)
    np.subtract(inter, union, out=inter)
    np.maximum(inter, 0, out=inter)
    np.add(e1 - s1, e2 - s2, out=union)
    np.subtract(union, inter, out=union)
    np.divide(inter, union, out=inter)
    return inter


def interval_iou_f64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The plain float64 broadcasting formula."""
    inter = np.clip(np.minimum(a[:, None, 1], b[None, :, 1]) - np.maximum(a[:, None, 0], b[None, :, 0]), 0, None)
    union = (a[:, 1] - a[:, 0])[:, None] + (b[:, 1] - b[:, 0])[None, :] - inter
    return inter / union


def interval_iou_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ActivityNet style: one vectorized segment-vs-candidates row per segment of `a`."""
    out = np.empty((len(a), len(b)))
    length_b = b[:, 1] - b[:, 0]
    for i, (start, end) in enumerate(a.tolist()):
        inter = (np.minimum(end, b[:, 1]) - np.maximum(start, b[:, 0])).clip(0)
        out[i] = inter / ((end - start) + length_b - inter)
    return out


def workload_e(settings: Settings) -> list[Table]:
    n = settings.size(10_000, 2_000)
    rng = np.random.default_rng(SEED + 5)

    def segments() -> np.ndarray:
        start = rng.uniform(0, 3600, n)  # an hour of video, segments of 1 s to 5 min
        return np.stack([start, start + rng.uniform(1, 300, n)], axis=1)

    a, b = segments(), segments()
    ia, ib = geoiou.Interval(a), geoiou.Interval(b)
    table = Table("E", f"Interval {n}x{n} pairwise_iou (temporal segments)")
    table.add("geoiou pairwise_iou", lambda: geoiou.pairwise_iou(ia, ib), settings, kind="geoiou")
    table.add(
        "geoiou pairwise_iou, dtype=float32",
        lambda: geoiou.pairwise_iou(ia, ib, dtype=np.float32),
        settings,
        kind="geoiou",
    )
    table.add("numpy float32 broadcast with out=", lambda: interval_iou_f32_out(a, b), settings)
    table.add("numpy float64 broadcast", lambda: interval_iou_f64(a, b), settings, exact=True)
    table.add("ActivityNet-style loop (one row per segment)", lambda: interval_iou_rows(a, b), settings, exact=True)
    table.add("floor: np.empty + fill, float64", output_floor((n, n)), settings, kind="floor")
    table.add("floor: np.empty + fill, float32", output_floor((n, n), np.float32), settings, kind="floor")
    return [table]


# --------------------------------------------------------------------------- F. mask vs polygon
def workload_f(settings: Settings) -> list[Table]:
    size = settings.size(1024, 256)
    rng = np.random.default_rng(SEED + 6)
    count = 100
    ring = size / 2 + star_ring(rng, count, size * rng.uniform(0.3, 0.45, count))
    polygon = geoiou.Polygon(ring)
    # The mask: an object near the polygon (an ellipse), so the IoU is neither 0 nor 1.
    rows, cols = np.ogrid[:size, :size]
    mask_array = ((cols + 0.5 - size * 0.55) / (size * 0.38)) ** 2 + (
        (rows + 0.5 - size * 0.48) / (size * 0.3)
    ) ** 2 <= 1
    table = Table("F", f"Mask {size}x{size} vs a {count}-vertex polygon, iou (one pair)")
    table.add(
        "geoiou iou(Mask, Polygon), exact coverage",
        lambda: geoiou.iou(geoiou.Mask(mask_array), polygon),
        settings,
        kind="geoiou",
    )
    if skimage_draw is not None:

        def rasterized() -> float:
            # Pixel (r, c) is the unit square whose centre is (c + 0.5, r + 0.5): sample the centres.
            raster = skimage_draw.polygon2mask((size, size), ring[:, ::-1] - 0.5)
            inter = np.count_nonzero(raster & mask_array)
            return inter / (np.count_nonzero(raster) + np.count_nonzero(mask_array) - inter)

        table.add(
            "skimage polygon2mask + count (inexact)",
            rasterized,
            settings,
            note="pixel-centre sampling: the diff is its error",
        )
    else:
        table.add("skimage polygon2mask + count (inexact)", None, settings, missing="scikit-image not installed")
    if cv2 is not None:

        def filled() -> float:
            # fillPoly with 8 fractional bits; it also fills pixels the outline only touches.
            raster = np.zeros((size, size), dtype=np.uint8)
            cv2.fillPoly(raster, [np.round((ring - 0.5) * 256).astype(np.int32)], 1, lineType=cv2.LINE_8, shift=8)
            raster = raster.view(bool)
            inter = np.count_nonzero(raster & mask_array)
            return inter / (np.count_nonzero(raster) + np.count_nonzero(mask_array) - inter)

        table.add("OpenCV fillPoly + count (inexact)", filled, settings, note="fills boundary pixels")
    return [table]


# --------------------------------------------------------------------------- S. single pairs
def shapely_rotated(coords: list[float]) -> shapely.Polygon:
    """The rotated box as a shapely polygon, its corners computed as a script would (math.cos, math.sin)."""
    cx, cy, w, h, angle = coords
    cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    return shapely.Polygon(
        [
            (cx + cos * sx * w / 2 - sin * sy * h / 2, cy + sin * sx * w / 2 + cos * sy * h / 2)
            for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
        ]
    )


def shapely_pair_metric(metric: str, a: shapely.Geometry, b: shapely.Geometry, box_enclosure: bool) -> float:
    """IoU, IoF or GIoU of one pair by shapely's overlay; union from the areas, C from the bounds or the hull."""
    inter, area_a = shapely.intersection(a, b).area, a.area
    if metric == "iof":
        return inter / area_a
    union = area_a + b.area - inter
    if metric == "iou":
        return inter / union
    if box_enclosure:
        (ax1, ay1, ax2, ay2), (bx1, by1, bx2, by2) = a.bounds, b.bounds
        enclosing = (max(ax2, bx2) - min(ax1, bx1)) * (max(ay2, by2) - min(ay1, by1))
    else:
        enclosing = shapely.convex_hull(shapely.GeometryCollection([a, b])).area
    return inter / union - (enclosing - union) / enclosing


def workload_s(settings: Settings) -> list[Table]:
    """One pair per call, construction included: a research script looping over pairs."""
    count = settings.size(1000, 200)
    rng = np.random.default_rng(SEED + 7)
    xy = rng.uniform(0, 20, (count, 2, 2))
    size = rng.uniform(5, 15, (count, 2, 2))
    angle = rng.uniform(-180, 180, (count, 2, 1))
    boxes = [(p.tolist(), q.tolist()) for p, q in np.concatenate([xy, xy + size], axis=2)]
    rotated = [(p.tolist(), q.tolist()) for p, q in np.concatenate([xy + size / 2, size, angle], axis=2)]
    rings = [
        (
            10 + xy[k, 0] + star_ring(rng, 12, rng.uniform(4, 8, 12)),
            10 + xy[k, 1] + star_ring(rng, 12, rng.uniform(4, 8, 12)),
        )
        for k in range(count)
    ]
    kinds = [
        ("Box", boxes, geoiou.Box, lambda c: shapely.box(*c), True),
        ("RotatedBox", rotated, geoiou.RotatedBox, shapely_rotated, False),
        ("Polygon", rings, geoiou.Polygon, shapely.Polygon, False),
    ]
    metrics = {"iou": geoiou.iou, "giou": geoiou.giou, "iof": geoiou.iof}
    tables = []
    for kind, pairs, region, geometry, box_enclosure in kinds:
        for metric, function in metrics.items():
            table = Table(
                "S",
                f"{kind} {metric}, one pair per call, construction included: {count} calls "
                f"(ms per 1000 calls = µs per call)",
            )
            table.label = f"{kind} {metric}, one pair per call"
            table.add(
                f"geoiou {metric}({kind}(a), {kind}(b))",
                lambda f=function, r=region, p=pairs: [f(r(a), r(b)) for a, b in p],
                settings,
                kind="geoiou",
            )
            table.add(
                "shapely overlay of the same pair",
                lambda m=metric, g=geometry, p=pairs, e=box_enclosure: [
                    shapely_pair_metric(m, g(a), g(b), e) for a, b in p
                ],
                settings,
                exact=True,
                note="C from the bounds"
                if metric == "giou" and box_enclosure
                else ("C = convex hull of both" if metric == "giou" else ""),
            )
            if metric == "iou":  # where geoiou's time goes: the parts of one call, each timed alone
                add_single_pair_parts(table, pairs, region, settings)
            tables.append(table)
    return tables


def add_single_pair_parts(table: Table, pairs: list[tuple[Any, Any]], region: Any, settings: Settings) -> None:
    """Rows that take geoiou's single-pair IoU apart: the two constructions, the call on regions already built,
    and the compiled kernel alone on the same pairs (its one compiled call, with the route's arrays made
    beforehand): the floor any Python route around this kernel stands on."""
    built = [(region(a), region(b)) for a, b in pairs]
    table.add(
        "  part: the two constructions alone", lambda: [(region(a), region(b)) for a, b in pairs], settings, kind="part"
    )
    table.add(
        "  part: iou of regions already built", lambda: [geoiou.iou(a, b) for a, b in built], settings, kind="part"
    )
    calls = [compiled_iou_call(a, b) for a, b in built]
    table.add("  part: the compiled kernel's call alone", lambda: [call() for call in calls], settings, kind="part")


def compiled_iou_call(a: Any, b: Any) -> Callable[[], Any]:
    """The one compiled call `geoiou.iou(a, b)` makes for two single regions of one kind, its arguments made once."""
    from geoiou.kernels import box, formulas, rotated_loops

    one = np.zeros(1, dtype=np.int64)
    areas_a, areas_b = formulas.floats(a._area_array()), formulas.floats(b._area_array())
    job = (one, one, False, np.empty(1), formulas.IOU, areas_a, areas_b, np.empty(0), math.nan)
    if isinstance(a, geoiou.Box):
        data: tuple[Any, ...] = (box._bounds_table(a), box._bounds_table(b), False)
        loop = box._aligned_pairs
    elif isinstance(a, geoiou.RotatedBox):
        no_table = np.empty((0, 2))
        data = (a._coords.reshape(1, 5), b._coords.reshape(1, 5), no_table, no_table, False)
        loop = rotated_loops._pairs_serial
    else:
        from geoiou import _core

        store_a, g_a, store_b, g_b = a._store.arrays, int(a._index), b._store.arrays, int(b._index)
        return lambda: _core.polygon_single(store_a, g_a, store_b, g_b, formulas.IOU, math.nan)
    return lambda: loop(data, job, 0, 1)


# --------------------------------------------------------------------------- targets
@dataclass
class Target:
    workload: str
    goal: str
    reached: bool | None
    why: str


def ratio_text(table: Table, row: Row | None) -> str:
    return f"{row.name} {format_ratio(table.ratio(row))}x" if row is not None else "no peer ran"


def evaluate_targets(tables: list[Table]) -> list[Target]:
    by_workload: dict[str, list[Table]] = {}
    for table in tables:
        by_workload.setdefault(table.workload, []).append(table)
    peers = lambda row: row.kind == "peer"  # noqa: E731
    targets = []
    goals = {
        "A": "at least as fast as the fastest peer (geoiou float64)",
        "B": "at least 5x faster than the fastest exact peer, both scenes",
        "C": "at least 2x faster than pycocotools encode + iou from dense masks",
        "D": "at least 2x faster than shapely with STRtree",
        "DG": "pairwise GIoU within 1.5x of pairwise IoU",
        "D50K": "at least 2x faster than the shapely snippet, construction included",
        "DOTA": "as Polygon, at least 2x faster than shapely with STRtree",
        "E": "within 3x of writing the float64 output",
        "F": "within 3x of the inexact rasterization",
        "S": "one pair per call at most 0.3x shapely's time (Box, RotatedBox, Polygon)",
        "SM": "the sets of one image: polygons 3x faster than shapely, rotated boxes 5x faster than the OpenCV loop",
    }
    for workload in list(by_workload):
        used = by_workload[workload] if workload in ("A", "B", "S", "SM") else by_workload[workload][:1]
        failed = [table for table in used if table.reference_seconds is None]
        if workload in goals and failed:
            note = failed[0].rows[0].note if failed[0].rows else ""
            targets.append(Target(workload, goals[workload], None, f"geoiou did not run in {failed[0].short}: {note}"))
            del by_workload[workload]

    if "A" in by_workload:
        worst = []
        for table in by_workload["A"]:
            fastest = table.fastest(peers)
            worst.append((table.ratio(fastest) if fastest else math.inf, table, fastest))
        ratio, table, fastest = min(worst, key=lambda item: item[0])
        targets.append(
            Target(
                "A",
                "at least as fast as the fastest peer (geoiou float64)",
                ratio >= 1,
                f"worst case {table.short}: fastest peer {ratio_text(table, fastest)}",
            )
        )
    if "B" in by_workload:
        parts, ok = [], True
        for table in [table for table in by_workload["B"] if not table.group]:
            exact = table.fastest(lambda row: row.kind == "peer" and row.exact)
            ratio = table.ratio(exact) if exact else None
            if ratio is None:
                ok = None
            elif ok is not None:
                ok = ok and ratio >= 5
            scene = "dense" if "dense" in table.title else "sparse"
            fastest = table.fastest(peers)
            parts.append(f"{scene}: exact {ratio_text(table, exact)}, fastest peer {ratio_text(table, fastest)}")
        targets.append(Target("B", "at least 5x faster than the fastest exact peer, both scenes", ok, "; ".join(parts)))
        small = [table for table in by_workload["B"] if table.group == "small"]
        if small:
            targets.append(small_rotated_target(small))
    if "S" in by_workload:
        targets.append(single_pair_target(by_workload["S"]))
    if "SM" in by_workload:
        targets.append(small_sets_target(by_workload["SM"]))
    if "C" in by_workload:
        table = by_workload["C"][0]
        coco = next((row for row in table.rows if row.name == "pycocotools encode + iou" and row.seconds), None)
        ratio = table.ratio(coco) if coco else None
        targets.append(
            Target(
                "C",
                "at least 2x faster than pycocotools encode + iou from dense masks",
                None if ratio is None else ratio >= 2,
                f"pycocotools encode + iou {format_ratio(ratio)}x; fastest peer "
                f"{ratio_text(table, table.fastest(peers))}",
            )
        )
    for workload in ("D", "D50K", "DOTA"):
        if workload in by_workload:
            table = by_workload[workload][0]
            shp = table.fastest(lambda row: row.kind == "peer" and row.name.startswith("shapely"))
            ratio = table.ratio(shp) if shp else None
            targets.append(
                Target(workload, goals[workload], None if ratio is None else ratio >= 2, ratio_text(table, shp))
            )
    if "DG" in by_workload:
        table = by_workload["DG"][0]
        iou = next((row for row in table.rows if row.kind == "part" and row.seconds), None)
        times = table.reference_seconds / iou.seconds if iou else None
        targets.append(
            Target(
                "DG",
                goals["DG"],
                None if times is None else times <= 1.5,
                f"GIoU takes {format_ratio(times)}x the IoU of the same pairs; fastest peer "
                f"{ratio_text(table, table.fastest(peers))}",
            )
        )
    if "E" in by_workload:
        table = by_workload["E"][0]
        floor = next(row for row in table.rows if row.kind == "floor")
        ratio = 1 / table.ratio(floor) if table.ratio(floor) else None
        targets.append(
            Target(
                "E",
                "within 3x of writing the float64 output",
                None if ratio is None else ratio <= 3,
                f"geoiou takes {format_ratio(ratio)}x the floor; fastest peer "
                f"{ratio_text(table, table.fastest(peers))}",
            )
        )
    if "F" in by_workload:
        table = by_workload["F"][0]
        raster = table.fastest(lambda row: row.kind == "peer" and row.name.startswith("skimage"))
        ratio = 1 / table.ratio(raster) if raster and table.ratio(raster) else None
        targets.append(
            Target(
                "F",
                "within 3x of the inexact rasterization",
                None if ratio is None else ratio <= 3,
                f"geoiou takes {format_ratio(ratio)}x polygon2mask + count"
                + (f" (whose IoU is off by {format_diff(raster.diff, raster)})" if raster else ""),
            )
        )
    return sorted(targets, key=lambda target: target.workload)


def small_rotated_target(tables: list[Table]) -> Target:
    """B at 300x300: at least 5x faster than OpenCV's loop with bounds pruning (ratio geoiou/OpenCV <= 0.2)."""
    parts, ok = [], True
    for table in tables:
        opencv = table.fastest(lambda row: row.name.startswith("OpenCV"))
        ratio = table.ratio(opencv) if opencv else None
        ok = None if ratio is None or ok is None else ok and ratio >= 5
        scene = "dense" if "dense" in table.title else "sparse"
        parts.append(f"{scene}: {ratio_text(table, opencv)}")
    size = tables[0].label.split(",")[0].removeprefix("RotatedBox ")
    return Target(
        "B", f"at {size}: at least 5x faster than the bounds-pruned OpenCV loop, both scenes", ok, "; ".join(parts)
    )


def single_pair_target(tables: list[Table]) -> Target:
    """S: one pair per call, construction included, at most 0.3x shapely's overlay (ratio shapely/geoiou >= 3.33)."""
    parts, ok = [], True
    for table in tables:
        shp = table.fastest(lambda row: row.kind == "peer")
        ratio = table.ratio(shp) if shp else None
        ok = None if ratio is None or ok is None else ok and 1 / ratio <= 0.3
        times = f"{format_ratio(1 / ratio)}x shapely's time" if ratio else "-"
        parts.append(f"{table.label.split(',')[0]} {times}")
    return Target("S", "one pair per call at most 0.3x shapely's time (Box, RotatedBox, Polygon)", ok, ", ".join(parts))


def small_sets_target(tables: list[Table]) -> Target:
    """SM: polygons 3x faster than shapely (IoU and GIoU), rotated boxes 5x faster than the pruned OpenCV loop."""
    parts, ok = [], True
    for table in tables:
        rotated = table.label.startswith("RotatedBox")
        peer = table.fastest(lambda row: row.name.startswith("OpenCV" if rotated else "shapely"))
        ratio = table.ratio(peer) if peer else None
        ok = None if ratio is None or ok is None else ok and ratio >= (5 if rotated else 3)
        parts.append(f"{table.label} {format_ratio(ratio)}x (target {5 if rotated else 3}x)")
    return Target("SM", "polygons >= 3x shapely, rotated boxes >= 5x the OpenCV loop", ok, ", ".join(parts))


def render_fastest(tables: list[Table], markdown: bool) -> str:
    """Per table: the fastest peer of all, and the fastest exact one, with their ratios to geoiou."""
    rows = []
    for table in tables:
        if table.reference_seconds is None:
            continue
        fastest = table.fastest(lambda row: row.kind == "peer")
        exact = table.fastest(lambda row: row.kind == "peer" and row.exact)
        cell = lambda row: f"{row.name}: {format_ratio(table.ratio(row))}x" if row else "-"  # noqa: E731
        rows.append([table.short, format_ms(table.reference_seconds), cell(fastest), cell(exact)])
    header = ["table", "geoiou ms", "fastest peer: ratio", "fastest exact peer: ratio"]
    if markdown:
        lines = [
            "\n#### Fastest peer per table (ratio = peer time / geoiou time)\n",
            "| " + " | ".join(header) + " |",
            "|---|---:|---|---|",
        ]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(line[i]) for line in [header] + rows) for i in range(3)]
    lines = ["\nFastest peer per table (ratio = peer time / geoiou time)"]
    for line in [header] + rows:
        lines.append("  " + "  ".join(cell.ljust(widths[i]) if i < 3 else cell for i, cell in enumerate(line)))
    return "\n".join(lines)


def render_targets(targets: list[Target], markdown: bool, quick: bool = False) -> str:
    mark = {True: "reached", False: "not reached", None: "not measured"}
    if quick:
        mark = {key: f"{value} (quick sizes)" for key, value in mark.items()}
    if markdown:
        lines = [
            "\n#### Targets\n",
            "| workload | target | status | why (ratios: peer time / geoiou time) |",
            "|---|---|---|---|",
        ]
        lines += [f"| {t.workload} | {t.goal} | **{mark[t.reached]}** | {t.why} |" for t in targets]
    else:
        lines = ["\nTargets (ratios: peer time / geoiou time)"]
        lines += [f"  {t.workload}: {mark[t.reached]:12s}  {t.goal}\n      {t.why}" for t in targets]
    return "\n".join(lines)


# --------------------------------------------------------------------------- main
WORKLOADS: dict[str, Callable[[Settings], list[Table]]] = {
    "A": workload_a,
    "B": workload_b,
    "C": workload_c,
    "D": workload_d,
    "DG": workload_d_giou,
    "D50K": workload_d50k,
    "E": workload_e,
    "F": workload_f,
    "DOTA": workload_dota,
    "S": workload_s,
    "SM": workload_small,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", help=f"comma-separated workloads among {','.join(WORKLOADS)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="small sizes and few repeats: checks the script runs")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables (for docs/performance.md)")
    parser.add_argument("--repeats", type=int, help="timed runs per row after the warm-up (default 7, quick 2)")
    parser.add_argument(
        "--budget", type=float, help="seconds of timed runs per row before it stops repeating (default 10, quick 1)"
    )
    args = parser.parse_args(argv)

    settings = Settings(quick=args.quick, repeats=2 if args.quick else 7, budget=1.0 if args.quick else 10.0)
    if args.repeats is not None:
        settings.repeats = max(1, args.repeats)
    if args.budget is not None:
        settings.budget = args.budget
    chosen = list(WORKLOADS)
    if args.only:
        chosen = [name.strip().upper() for name in args.only.split(",") if name.strip()]
        unknown = [name for name in chosen if name not in WORKLOADS]
        if unknown:
            parser.error(f"--only: unknown workload(s) {', '.join(unknown)}; choose among {', '.join(WORKLOADS)}")

    out = sys.stdout
    facts = machine_facts(show_path=not args.markdown)
    command = "python benchmarks/run.py " + " ".join(sys.argv[1:] if argv is None else argv)
    if args.markdown:
        print("#### Machine\n", file=out)
        print("| fact | value |\n|---|---|", file=out)
        for key, value in facts:
            print(f"| {key} | {value} |", file=out)
        print(f"| command | `{command.strip()}` |", file=out)
    else:
        print("geoiou benchmarks" + (" (quick: small sizes, not for comparison)" if args.quick else ""), file=out)
        for key, value in facts:
            print(f"  {key}: {value}", file=out)
    out.flush()

    tables: list[Table] = []
    started = time.perf_counter()
    for name in chosen:
        for table in WORKLOADS[name](settings):
            tables.append(table)
            print(render_markdown(table) if args.markdown else render_text(table), file=out)
            out.flush()
    print(render_fastest(tables, args.markdown), file=out)
    print(render_targets(evaluate_targets(tables), args.markdown, args.quick), file=out)
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    tail = f"total {time.perf_counter() - started:.0f} s; load average at end {load}"
    print(f"\n{tail}" if not args.markdown else f"\n_{tail}_", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
