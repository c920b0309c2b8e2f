"""Scale-out on Dask: one process against a LocalCluster of 1 and 2 worker processes, on this machine.

Two workloads, each checked equal to the one-process result before it is timed:

- P. 50,000 x 50,000 polygon overlaps (``min_iou=0.5``): 12-gons from ``(N, 12, 2)`` arrays and each
  one's shifted copy (the D50K workload of ``run.py``); ``geoiou.overlaps`` against
  ``geoiou.dask.overlaps``, construction of the polygons included in both.
- C. the COCO segmentation evaluation of the end-to-end benchmark: 1,500 images, 12,000 polygon
  ground truths, 144,000 RLE results read from files once, then ``evaluate_coco`` (pycocotools
  rasterization of the polygons) against ``geoiou.dask.evaluate_coco``: the regions travel from
  this process to the workers.
- CF. the same from files, end to end, the results written as 8 shards interleaved by image (as
  the ranks of distributed inference write them): ``read_coco`` + ``read_coco_results`` of every
  shard + ``evaluate_coco`` here, against ``geoiou.dask.evaluate_coco_files``, which reads each
  shard on a worker (only paths travel).

A cluster is started once per worker count (its start-up time is printed apart) and each run is
timed ``--repeat`` times, best kept. Per part, the overhead is ``(time on 1 worker - time in one
process) / parts``: what splitting costs (shipping regions and states, scheduling, merging).

    python benchmarks/bench_dask.py                 # both workloads (about 3 minutes on 2 cores)
    python benchmarks/bench_dask.py --only P --repeat 1
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import e2e_workloads as workloads  # noqa: E402
from run import SEED, twelve_gons  # noqa: E402

import distributed  # noqa: E402

import geoiou  # noqa: E402
import geoiou.dask as gd  # noqa: E402
from geoiou.evaluation import evaluate_coco  # noqa: E402
from geoiou.io import read_coco, read_coco_results  # noqa: E402


def best_of(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = run()
        times.append(time.perf_counter() - start)
    return min(times), value


def polygon_workload() -> tuple[
    Callable[[], Any], Callable[[distributed.Client, int], Any], Callable[[Any, Any], bool]
]:
    n = 50_000
    rng = np.random.default_rng(SEED + 6)  # the D50K arrays of run.py
    rings_a = twelve_gons(rng, n, extent=2000.0 * math.sqrt(n / 50_000))
    rings_b = rings_a + rng.uniform(-2, 2, (n, 1, 2))

    def local() -> Any:
        return geoiou.overlaps(geoiou.Polygon.from_rings(rings_a), geoiou.Polygon.from_rings(rings_b), min_iou=0.5)

    def on_cluster(client: distributed.Client, parts: int) -> Any:
        return gd.overlaps(
            geoiou.Polygon.from_rings(rings_a),
            geoiou.Polygon.from_rings(rings_b),
            min_iou=0.5,
            client=client,
            partitions=parts,
        )

    def same(x: Any, y: Any) -> bool:
        return all(np.array_equal(getattr(x, name), getattr(y, name)) for name in ("index_a", "index_b", "iou"))

    return local, on_cluster, same


def coco_workload(
    folder: Path,
) -> tuple[Callable[[], Any], Callable[[distributed.Client, int], Any], Callable[[Any, Any], bool]]:
    paths = workloads.write_coco_files(folder, workloads.coco_segm_workload())
    truth = read_coco(paths["instances"], geometry="segmentation")
    predicted = read_coco_results(paths["segm"], geometry="segmentation")
    options = {"images": truth.images, "categories": list(truth.categories), "polygon_iou": "pycocotools"}

    def local() -> Any:
        return evaluate_coco(truth.annotations, predicted.annotations, show_progress=False, **options)

    def on_cluster(client: distributed.Client, parts: int) -> Any:
        return gd.evaluate_coco(truth.annotations, predicted.annotations, client=client, partitions=parts, **options)

    def same(x: Any, y: Any) -> bool:
        return np.array_equal(x.precision, y.precision) and np.array_equal(x.recall, y.recall)

    return local, on_cluster, same


def coco_shards_workload(
    folder: Path,
) -> tuple[Callable[[], Any], Callable[[distributed.Client, int], Any], Callable[[Any, Any], bool]]:
    import json

    from geoiou.dask.evaluations import joined_annotations

    paths = workloads.write_coco_files(folder, workloads.coco_segm_workload())
    records = json.loads(paths["segm"].read_text())
    shards = []
    for k in range(8):
        shard = folder / f"results-segm-{k}.json"
        shard.write_text(json.dumps([r for r in records if r["image_id"] % 8 == k]))
        shards.append(shard)

    def local() -> Any:
        truth = read_coco(paths["instances"], geometry="segmentation", polygons="pycocotools")
        predicted = joined_annotations(
            [read_coco_results(shard, geometry="segmentation").annotations for shard in shards]
        )
        return evaluate_coco(
            truth.annotations,
            predicted,
            images=truth.images,
            categories=list(truth.categories),
            polygon_iou="pycocotools",
            show_progress=False,
        )

    def on_cluster(client: distributed.Client, parts: int) -> Any:
        return gd.evaluate_coco_files(
            paths["instances"],
            shards,
            geometry="segmentation",
            polygon_iou="pycocotools",
            client=client,
            partitions=parts,
        )

    def same(x: Any, y: Any) -> bool:
        return np.array_equal(x.precision, y.precision) and np.array_equal(x.recall, y.recall)

    return local, on_cluster, same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="P,C,CF", help="workloads to run, e.g. P or P,CF")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--parts", type=int, default=8, help="parts (grid cells, image parts) per run")
    arguments = parser.parse_args(argv)
    wanted = set(arguments.only.split(","))
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        chosen = {
            "P": ("P: 50,000 x 50,000 polygon overlaps", polygon_workload),
            "C": (
                "C: COCO segm, 144,000 RLE results x 12,000 polygons, in memory",
                lambda: coco_workload(Path(folder) / "c"),
            ),
            "CF": ("CF: the same from files, 8 result shards", lambda: coco_shards_workload(Path(folder) / "cf")),
        }
        runs = {key: (title, make()) for key, (title, make) in chosen.items() if key in wanted}
        local_times = {}
        expected = {}
        for key, (title, (local, _, _)) in runs.items():
            local_times[key], expected[key] = best_of(arguments.repeat, local)
        for workers in (1, 2):
            start = time.perf_counter()
            with gd.local_cluster(workers, silence_logs=50) as cluster, distributed.Client(cluster) as client:
                started = time.perf_counter() - start
                print(f"LocalCluster of {workers} worker process(es) started in {started:.2f} s", flush=True)
                for key, (title, (_, on_cluster, same)) in runs.items():
                    seconds, value = best_of(arguments.repeat, lambda: on_cluster(client, arguments.parts))
                    if not same(value, expected[key]):
                        raise SystemExit(f"{title}: the cluster's result differs from the one-process result")
                    rows.append((title, workers, seconds, local_times[key]))
    print()
    print("| workload | one process | workers | on the cluster | speed-up | overhead per part |")
    print("|---|---|---|---|---|---|")
    one_worker = {title: seconds for title, workers, seconds, _ in rows if workers == 1}
    for title, workers, seconds, local_seconds in rows:
        overhead = (one_worker[title] - local_seconds) / arguments.parts
        print(
            f"| {title} | {local_seconds:.2f} s | {workers} | {seconds:.2f} s | {local_seconds / seconds:.2f}x | "
            f"{1000 * overhead:.0f} ms |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
