"""End to end, as users run it: from their files or arrays to the answer, geoiou against what they would run instead.

Every workload is generated from a fixed seed (`e2e_workloads.py`) into a temporary folder, then
each row is one call that starts from the files (or the arrays), in one process:

- R. reading COCO result files: ``read_coco_results`` against ``json.load`` of the same file
  (144,000 box results; 144,000 RLE results).
- COCO. evaluating from files (1,500 images of 256 x 256, 12,000 polygon ground truths, 144,000
  results): geoiou's ``read_coco`` + ``read_coco_results`` + ``evaluate_coco`` against pycocotools'
  ``COCO`` + ``loadRes`` + ``COCOeval``; the 12 summary numbers are compared. Segmentations use
  ``polygon_iou="pycocotools"`` (ground-truth polygons rasterized as pycocotools does), so both
  compute the same numbers.
- L. other label files: ``read_activitynet`` of 500,000 predictions against ``json.load``;
  ``read_yolo_folder`` of 5,000 YOLO files against ``np.loadtxt`` of each.
- G. a GeoJSON file of 20,000 polygons: ``read_geojson`` against ``shapely.from_geojson``.
- K. 50,000 rings as an ``(N, 12, 2)`` array: ``Polygon.from_rings`` against ``shapely.polygons``
  + ``shapely.is_valid``.
- M. 1,000,000 box results read and evaluated, run in a child process that reports its peak
  resident memory (``ru_maxrss``).
- S and D50K of ``run.py`` (one pair per call; 50,000 x 50,000 polygon overlaps from arrays) with
  ``--with-run-workloads``.

Ratios are peer time / geoiou time: above 1, geoiou is faster. Benchmarks are not tests: nothing
here asserts on speed.

    python benchmarks/bench_end_to_end.py              # everything (about 5 minutes on 2 cores)
    python benchmarks/bench_end_to_end.py --only R,COCO
    python benchmarks/bench_end_to_end.py --markdown   # tables as in docs/performance.md
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import shapely

sys.path.insert(0, str(Path(__file__).resolve().parent))

import e2e_workloads as workloads  # noqa: E402
from run import Settings, Table, machine_facts, render_markdown, render_text, twelve_gons, workload_d50k, workload_s  # noqa: E402

import geoiou  # noqa: E402
from geoiou.evaluation import evaluate_coco  # noqa: E402
from geoiou.io import read_activitynet, read_coco, read_coco_results, read_geojson, read_yolo_folder  # noqa: E402


def json_load(path: Path) -> Any:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def workload_r(folder: Path, settings: Settings) -> list[Table]:
    tables = []
    for name, what in (("bbox", "box"), ("segm", "RLE")):
        path = folder / f"results-{name}.json"
        table = Table("R", f"read_coco_results of 144,000 {what} results ({path.stat().st_size / 1e6:.0f} MB)")
        table.add(
            "geoiou read_coco_results", lambda p=path: len(read_coco_results(p).annotations), settings, kind="geoiou"
        )
        table.add(
            "json.load of the same file",
            lambda p=path: len(json_load(p)),
            settings,
            note="parsing alone into Python objects, nothing checked or decoded",
        )
        tables.append(table)
    return tables


def workload_l(folder: Path, settings: Settings) -> list[Table]:
    """Label files other than COCO's: ActivityNet results against json.load, a YOLO folder against np.loadtxt."""
    anet = workloads.write_activitynet_results(
        folder / "activitynet-results.json", n_videos=500 if settings.quick else 5000
    )
    table = Table(
        "L",
        f"read_activitynet of {'50,000' if settings.quick else '500,000'} predictions "
        f"({anet.stat().st_size / 1e6:.0f} MB)",
    )
    table.add("geoiou read_activitynet", lambda: len(read_activitynet(anet).segments), settings, kind="geoiou")
    table.add(
        "json.load of the same file",
        lambda: sum(map(len, json_load(anet)["results"].values())),
        settings,
        note="parsing alone into Python objects, nothing checked",
    )
    yolo = workloads.write_yolo_folder(folder / "yolo", n_files=500 if settings.quick else 5000)
    files = sorted(yolo.glob("*.txt"))
    labels = Table("L", f"read_yolo_folder of {len(files)} label files of 20 boxes")
    labels.add("geoiou read_yolo_folder", lambda: len(read_yolo_folder(yolo).annotations), settings, kind="geoiou")
    labels.add(
        "np.loadtxt of each file",
        lambda: sum(len(np.loadtxt(path, ndmin=2)) for path in files),
        settings,
        note="what a script would do: numbers only, nothing checked",
    )
    return [table, labels]


def coco_with_geoiou(paths: dict[str, Path], iou_type: str) -> np.ndarray:
    geometry = "bbox" if iou_type == "bbox" else "segmentation"
    truth = read_coco(paths["instances"], geometry=geometry)
    predicted = read_coco_results(paths[iou_type], geometry=geometry)
    result = evaluate_coco(
        truth.annotations,
        predicted.annotations,
        images=truth.images,
        categories=list(truth.categories),
        polygon_iou="pycocotools",
        show_progress=False,
    )
    return result.stats_array


def coco_with_pycocotools(paths: dict[str, Path], iou_type: str) -> np.ndarray:
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    with contextlib.redirect_stdout(io.StringIO()):
        truth = COCO(str(paths["instances"]))
        evaluation = COCOeval(truth, truth.loadRes(str(paths[iou_type])), iou_type)
        evaluation.evaluate()
        evaluation.accumulate()
        evaluation.summarize()
    return np.asarray(evaluation.stats)


def workload_coco(paths: dict[str, Path], settings: Settings) -> list[Table]:
    tables = []
    for iou_type in ("bbox", "segm"):
        table = Table(
            "COCO",
            f"{iou_type} from files: 1,500 images, 12,000 polygon ground truths, 144,000 results; "
            "read both and evaluate (the 12 numbers compared)",
        )
        table.add(
            "geoiou read_coco + read_coco_results + evaluate_coco",
            lambda t=iou_type: coco_with_geoiou(paths, t),
            settings,
            kind="geoiou",
        )
        table.add(
            "pycocotools COCO + loadRes + COCOeval",
            lambda t=iou_type: coco_with_pycocotools(paths, t),
            settings,
            exact=True,
        )
        tables.append(table)
    return tables


def workload_g(folder: Path, settings: Settings) -> list[Table]:
    path = workloads.write_geojson(folder / "polygons.geojson")
    table = Table("G", "GeoJSON FeatureCollection of 20,000 polygons read into polygons")
    table.add("geoiou read_geojson", lambda: read_geojson(path).regions.area, settings, kind="geoiou")

    def with_shapely() -> np.ndarray:
        features = json_load(path)["features"]
        return shapely.area(shapely.from_geojson([json.dumps(feature["geometry"]) for feature in features]))

    table.add("json.load + shapely.from_geojson per feature", with_shapely, settings, exact=True)
    return [table]


def workload_k(settings: Settings) -> list[Table]:
    n = settings.size(50_000, 5_000)
    rings = twelve_gons(np.random.default_rng(workloads.SEED), n, extent=2000.0)
    table = Table("K", f"{n} rings of 12 vertices as an (N, 12, 2) array, built and validated")
    table.add("geoiou Polygon.from_rings", lambda: geoiou.Polygon.from_rings(rings).area, settings, kind="geoiou")

    def with_shapely() -> np.ndarray:
        geoms = shapely.polygons(rings)
        if not shapely.is_valid(geoms).all():
            raise ValueError("invalid ring")
        return shapely.area(geoms)

    table.add("shapely.polygons + shapely.is_valid", with_shapely, settings, exact=True)
    return [table]


MEMORY_CHILD = """
import resource, sys, time
from geoiou.io import read_coco_results
from geoiou.evaluation import Annotations, evaluate_coco
import numpy as np
start = time.perf_counter()
predicted = read_coco_results(sys.argv[1])
read = time.perf_counter() - start
images = np.unique(predicted.annotations.image_id)
truth = Annotations(image_id=predicted.annotations.image_id[::10], category_id=predicted.annotations.category_id[::10],
                    region=predicted.annotations.regions[0][::10])
result = evaluate_coco(truth, predicted.annotations, images=images, show_progress=False)
print(read, time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, result["AP"])
"""


def workload_m(folder: Path, settings: Settings) -> list[str]:
    n = settings.size(1_000_000, 100_000)
    path = workloads.write_box_results(folder / "results-1m.json", n, n_images=n // 100)
    out = subprocess.run([sys.executable, "-c", MEMORY_CHILD, str(path)], capture_output=True, text=True, check=True)
    read, total, peak_mb, ap = (float(value) for value in out.stdout.split())
    size_mb = path.stat().st_size / 1e6
    return [
        f"M. {n:,} box results ({size_mb:.0f} MB of JSON), read and evaluated against every tenth as ground "
        f"truth in a child process: read {read:.1f} s, total {total:.1f} s, peak RSS {peak_mb:.0f} MB, AP {ap:.3f}"
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--only", help="comma-separated workloads among R,COCO,L,G,K,M,S,D50K (default: R,COCO,L,G,K,M)"
    )
    parser.add_argument("--quick", action="store_true", help="smaller sizes where a workload has them, 2 repeats")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables (for docs/performance.md)")
    parser.add_argument("--repeats", type=int, default=None, help="timed runs per row after the warm-up (default 5)")
    args = parser.parse_args(argv)
    settings = Settings(quick=args.quick, repeats=args.repeats or (2 if args.quick else 5), budget=30.0)
    chosen = [name.strip().upper() for name in (args.only or "R,COCO,L,G,K,M").split(",") if name.strip()]
    render = render_markdown if args.markdown else render_text
    print("geoiou end to end" + (" (quick)" if args.quick else ""))
    for key, value in machine_facts(show_path=False):
        print(f"  {key}: {value}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        paths: dict[str, Path] = {}
        if {"R", "COCO"} & set(chosen):
            n_images = 150 if args.quick else 1500
            paths = workloads.write_coco_files(folder, workloads.coco_segm_workload(n_images=n_images))
        runners: dict[str, Callable[[], list[Any]]] = {
            "R": lambda: workload_r(folder, settings),
            "COCO": lambda: workload_coco(paths, settings),
            "L": lambda: workload_l(folder, settings),
            "G": lambda: workload_g(folder, settings),
            "K": lambda: workload_k(settings),
            "M": lambda: workload_m(folder, settings),
            "S": lambda: workload_s(settings),
            "D50K": lambda: workload_d50k(settings),
        }
        for name in chosen:
            for table in runners[name]():
                print(table if isinstance(table, str) else render(table))
                sys.stdout.flush()
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
