"""Reading annotation files into columns: geoiou's readers against the JSON decoders and the COCO tools' readers.

The files are the seeded workloads of ``e2e_workloads.py`` (the end-to-end benchmark's): 144,000
COCO box results (13 MB), the same as RLE masks (27 MB), the 12,000-polygon dataset (3 MB) and
500,000 ActivityNet predictions (35 MB); and 48,000 polygon results (each ground-truth polygon
four times, moved a little), as a scene-text or aerial model writes them.

- P. parsing alone: geoiou's compiled tokenizer (`geoiou.io.json_tape.Tape.of`, the table of
  tokens with every number converted) against ``json.loads``, ``orjson.loads`` and
  ``msgspec.json.decode`` (untyped, and typed into Structs of the file's schema, its fastest use).
- W. the whole read, from the file to what each tool works with: geoiou's readers (validated
  columns: `Annotations`, `TemporalSegments`) against pycocotools' ``COCO()`` / ``loadRes``,
  faster-coco-eval's, hotcoco's and ultrafast-pycocotools' (their readers, separate from their
  evaluations), and ``json.load`` for ActivityNet.
- F. the first read in a fresh process, numba's import and the loading of the compiled readers
  from numba's cache included (the one-off cost a command-line run pays), each in its own process.

Times are the median of the timed runs after a warm-up, in one process; the ratio column is a
row's time over geoiou's (above 1, geoiou is faster). The machine's load is printed: the numbers
of a shared machine move with it.

    python benchmarks/bench_readers.py             # everything (about 3 minutes on 2 cores)
    python benchmarks/bench_readers.py --only P    # parsing only
    python benchmarks/bench_readers.py --markdown  # tables as in docs/performance.md
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Union

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import e2e_workloads as workloads  # noqa: E402
from run import Settings, Table, machine_facts, render_markdown, render_text  # noqa: E402

from geoiou.io import read_activitynet, read_coco, read_coco_results  # noqa: E402


def optional(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


msgspec = optional("msgspec")
orjson = optional("orjson")


def read_bytes(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


if msgspec is not None:  # the file schemas as Structs, msgspec's fastest way to decode (at module level: their
    # annotations are strings that msgspec resolves in the module's namespace)
    class Rle(msgspec.Struct):
        size: list[int]
        counts: Union[str, list[int]]

    class BoxResult(msgspec.Struct):
        image_id: int
        category_id: int
        score: float
        bbox: list[float]

    class MaskResult(msgspec.Struct):
        image_id: int
        category_id: int
        score: float
        segmentation: Rle

    class Image(msgspec.Struct):
        id: int
        height: int
        width: int

    class Category(msgspec.Struct):
        id: int
        name: str

    class Annotation(msgspec.Struct):
        id: int
        image_id: int
        category_id: int
        bbox: list[float]
        area: float
        segmentation: list[list[float]]
        iscrowd: int = 0

    class Dataset(msgspec.Struct):
        images: list[Image]
        annotations: list[Annotation]
        categories: list[Category]

    class Segment(msgspec.Struct):
        segment: list[float]
        label: str
        score: float

    class Results(msgspec.Struct):
        results: dict[str, list[Segment]]


def typed_decoders() -> dict[str, Any]:
    """msgspec decoders of each file's schema (Structs), its fastest way to decode."""
    if msgspec is None:
        return {}
    schemas = {"bbox": list[BoxResult], "segm": list[MaskResult], "instances": Dataset, "activitynet": Results}
    return {name: msgspec.json.Decoder(schema) for name, schema in schemas.items()}


def workload_p(paths: dict[str, Path], settings: Settings) -> list[Table]:
    from geoiou.io.json_tape import Tape

    decoders = typed_decoders()
    tables = []
    for name, path in paths.items():
        data = read_bytes(path)
        table = Table("P", f"parsing {path.name} ({len(data) / 1e6:.1f} MB)")
        table.add("geoiou tokenizer (Tape.of)", lambda d=data: Tape.of(d), settings, kind="geoiou", compare=False)
        table.add("json.loads", lambda d=data: json.loads(d), settings, compare=False)
        for label, module, call in (
            ("orjson.loads", orjson, lambda d=data: orjson.loads(d)),
            ("msgspec.json.decode", msgspec, lambda d=data: msgspec.json.decode(d)),
            ("msgspec typed Structs", msgspec, lambda d=data, n=name: decoders[n].decode(d)),
        ):
            table.add(label, call if module is not None else None, settings, compare=False, missing="not installed")
        tables.append(table)
    return tables


def quietly(call: Callable[[], Any]) -> Callable[[], Any]:
    """`call` with its prints to stdout swallowed (the COCO tools announce each load)."""

    def run() -> Any:
        with contextlib.redirect_stdout(io.StringIO()):
            return call()

    return run


def coco_tools() -> dict[str, Any]:
    """The COCO classes of the tools that are installed."""
    tools = {}
    for label, module, attribute in (
        ("pycocotools", "pycocotools.coco", "COCO"),
        ("faster-coco-eval", "faster_coco_eval", "COCO"),
        ("hotcoco", "hotcoco", "COCO"),
        ("ultrafast-pycocotools", "ultrafast_pycocotools", "COCO"),
    ):
        found = optional(module)
        if found is not None:
            tools[label] = getattr(found, attribute)
    return tools


def workload_w(paths: dict[str, Path], settings: Settings) -> list[Table]:
    tools = coco_tools()
    tables = []
    truth = paths["instances"]
    polygons = len(json.loads(read_bytes(truth))["annotations"])
    table = Table("W", f"reading the COCO dataset {truth.name} ({polygons:,} polygons)")
    table.add("geoiou read_coco (boxes)", lambda: read_coco(truth), settings, kind="geoiou", compare=False)
    table.add(
        "geoiou read_coco (exact polygons)", lambda: read_coco(truth, geometry="segmentation"), settings, compare=False
    )
    table.add(
        "geoiou read_coco (pycocotools' rasters)",
        lambda: read_coco(truth, geometry="segmentation", polygons="pycocotools"),
        settings,
        compare=False,
    )
    for label, coco in tools.items():
        table.add(f"{label} COCO()", quietly(lambda c=coco: c(str(truth))), settings, compare=False)
    tables.append(table)
    for name, what in (("bbox", "box"), ("segm", "RLE"), ("polygons", "polygon")):
        path = paths[name]
        count = len(json.loads(read_bytes(path)))
        table = Table("W", f"reading {count:,} {what} results ({path.stat().st_size / 1e6:.0f} MB)")
        table.add(
            "geoiou read_coco_results", lambda p=path: read_coco_results(p), settings, kind="geoiou", compare=False
        )
        for label, coco in tools.items():
            with contextlib.redirect_stdout(io.StringIO()):
                ground_truth = coco(str(truth))
            table.add(
                f"{label} loadRes", quietly(lambda g=ground_truth, p=path: g.loadRes(str(p))), settings, compare=False
            )
        tables.append(table)
    path = paths["activitynet"]
    count = sum(map(len, json.loads(read_bytes(path))["results"].values()))
    table = Table("W", f"reading {count:,} ActivityNet predictions ({path.stat().st_size / 1e6:.0f} MB)")
    table.add("geoiou read_activitynet", lambda: read_activitynet(path), settings, kind="geoiou", compare=False)
    table.add("json.load (parsing only)", lambda: json.loads(read_bytes(path)), settings, compare=False)
    tables.append(table)
    return tables


FIRST_READ = """
import time, sys
started = time.perf_counter()
import geoiou.io
imported = time.perf_counter()
getattr(geoiou.io, sys.argv[1])(sys.argv[2])
print(imported - started, time.perf_counter() - imported)
"""


def workload_f(paths: dict[str, Path]) -> str:
    """The first read of each file in a fresh process: import, then the read (numba loaded from its cache)."""
    lines = ["\nF. the first read in a fresh process (compiled readers loaded from numba's cache)"]
    for reader, name in (("read_coco_results", "bbox"), ("read_coco_results", "segm"), ("read_coco", "instances")):
        subprocess.run([sys.executable, "-c", FIRST_READ, reader, str(paths[name])], check=True, capture_output=True)
        timings = [
            [
                float(v)
                for v in subprocess.run(
                    [sys.executable, "-c", FIRST_READ, reader, str(paths[name])],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout.split()
            ]
            for _ in range(3)
        ]
        imported, first = min(timings, key=lambda pair: pair[1])
        lines.append(
            f"  {reader}({paths[name].name}): import geoiou.io {imported * 1e3:.0f} ms, first read {first * 1e3:.0f} ms"
        )
    return "\n".join(lines)


def write_files(folder: Path, quick: bool) -> dict[str, Path]:
    n_images = 150 if quick else 1500
    paths = dict(workloads.write_coco_files(folder, workloads.coco_segm_workload(n_images=n_images)))
    paths["activitynet"] = workloads.write_activitynet_results(
        folder / "activitynet.json", n_videos=500 if quick else 5000
    )
    paths["polygons"] = write_polygon_results(folder / "polygon-results.json", paths["instances"])
    return paths


def write_polygon_results(path: Path, instances: Path, copies: int = 4, seed: int = 5) -> Path:
    """Results with polygon segmentations: each ground-truth polygon `copies` times, every vertex moved by up
    to a pixel (so that the parts stay simple, each part is moved as a whole), with a random score."""
    rng = np.random.default_rng(seed)
    results = []
    for annotation in json.loads(read_bytes(instances))["annotations"]:
        for _ in range(copies):
            dx, dy = (round(float(v), 2) for v in rng.uniform(-1, 1, 2))
            parts = [[round(v + (dx if k % 2 == 0 else dy), 2) for k, v in enumerate(part)]
                     for part in annotation["segmentation"]]  # fmt: skip
            results.append({"image_id": annotation["image_id"], "category_id": annotation["category_id"],
                            "score": round(float(rng.random()), 4), "segmentation": parts})  # fmt: skip
    path.write_text(json.dumps(results))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated workloads among P,W,F (default: all)")
    parser.add_argument("--quick", action="store_true", help="a tenth of the files, 2 repeats")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables (for docs/performance.md)")
    parser.add_argument("--repeats", type=int, default=None, help="timed runs per row after the warm-up (default 7)")
    args = parser.parse_args(argv)
    settings = Settings(quick=args.quick, repeats=args.repeats or (2 if args.quick else 7), budget=20.0)
    chosen = [name.strip().upper() for name in (args.only or "P,W,F").split(",") if name.strip()]
    render = render_markdown if args.markdown else render_text
    print("geoiou readers" + (" (quick)" if args.quick else ""))
    for key, value in machine_facts(show_path=False):
        print(f"  {key}: {value}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as directory:
        paths = write_files(Path(directory), args.quick)
        runners: dict[str, Callable[[], list[Any]]] = {
            "P": lambda: workload_p(paths, settings),
            "W": lambda: workload_w(paths, settings),
            "F": lambda: [workload_f(paths)],
        }
        for name in chosen:
            for table in runners[name]():
                print(table if isinstance(table, str) else render(table))
                sys.stdout.flush()
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
