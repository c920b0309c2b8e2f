"""The compiled engine: threads, start-up and compile costs, a mask pair against NumPy.

Four tables, each printed with the command that reproduces it:

1. **Threads**: each workload timed on one thread (``geoiou.set_threads(1)``) and on every core
   numba found, in one process, with the speed-up; the two results are checked equal bit for bit.
2. **Start-up**: ``import geoiou`` in a fresh interpreter, and the command
   ``geoiou iou box:0,0,10,10 rbox:5,5,10,10,45`` end to end with a warm cache (best of 5 each).
3. **First call on a fresh install**: each kernel family's first call in a new process whose numba
   cache directory is empty (``NUMBA_CACHE_DIR``), so it compiles; then the same call in another new
   process, which loads the machine code from that cache. Once on two regions (the serial drivers),
   once on batches of thousands (the candidate search and the parallel drivers as well).
4. **A 512² mask pair** per call, construction included, against NumPy's
   ``(a & b).sum() / (a | b).sum()`` on the same arrays.

Benchmarks are not tests: nothing asserts on speed.

    python benchmarks/bench_engine.py            # every table (about 2 minutes on 2 cores)
    python benchmarks/bench_engine.py --only threads,startup
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as workloads  # noqa: E402  (the seeded scenes of benchmarks/run.py)

import geoiou  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def best_of(fn: Callable[[], Any], repeats: int = 5) -> float:
    fn()  # warm-up: compiles or loads the kernels
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


# --------------------------------------------------------------------------- 1. threads
def thread_workloads() -> dict[str, Callable[[], Any]]:
    rng = np.random.default_rng(workloads.SEED)
    boxes_a, boxes_b = (geoiou.Box(workloads.random_boxes(rng, 4000)) for _ in range(2))
    rotated_a, rotated_b = (geoiou.RotatedBox(workloads.rotated_scene(rng, 1000, dense=True)) for _ in range(2))
    polygons_a, polygons_b = (geoiou.Polygon.from_rings(workloads.star_polygons(rng, 1000)) for _ in range(2))
    large_a, large_b = (geoiou.Box(workloads.random_boxes(rng, 100_000, extent=30_000.0)) for _ in range(2))
    masks_a, masks_b = (geoiou.Mask(workloads.blob_masks(rng, 100, 512)) for _ in range(2))
    return {
        "Box 4000² pairwise_giou": lambda: geoiou.pairwise_giou(boxes_a, boxes_b),
        "RotatedBox 1000² pairwise_iou, dense": lambda: geoiou.pairwise_iou(rotated_a, rotated_b),
        "Polygon 1000² pairwise_iou": lambda: geoiou.pairwise_iou(polygons_a, polygons_b),
        "Polygon 1000² pairwise_giou": lambda: geoiou.pairwise_giou(polygons_a, polygons_b),
        "overlaps of 100k × 100k boxes": lambda: geoiou.overlaps(large_a, large_b).iou,
        "Mask 100×100 at 512² pairwise_iou": lambda: geoiou.pairwise_iou(masks_a, masks_b),
    }


#: The targets printed beside the tables: issue 34's for threads, issue 20's for the rest.
THREADS_TARGET = 1.8
#: Rounds of (one thread, every core) per workload, each the best of three calls.
THREADS_ROUNDS = 4
CLI_TARGET_S, IMPORT_TARGET_S, FIRST_CALL_TARGET_S, MASK_PAIR_TARGET = 0.5, 0.15, 3.0, 1.0


def met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def table_threads() -> list[str]:
    every = geoiou.get_threads()
    lines = [
        f"| workload | 1 thread | {every} threads | speed-up (target >= {THREADS_TARGET}x) | same bits |",
        "|---|---|---|---|---|",
    ]
    for name, fn in thread_workloads().items():
        # One thread and every core alternate, best of each: the second core of a shared VM comes and goes
        # (the same two-thread call has taken 57 ms and 81 ms in one minute), and alternating lets both
        # settings meet the same spells.
        times: dict[int | None, list[float]] = {1: [], None: []}
        for _ in range(THREADS_ROUNDS):
            for threads in times:
                geoiou.set_threads(threads)
                times[threads].append(best_of(fn, 3))
        geoiou.set_threads(1)
        one, result_one = min(times[1]), fn()
        geoiou.set_threads(None)
        all_cores, result_all = min(times[None]), fn()
        same = np.array_equal(result_one, result_all, equal_nan=True)
        speed_up = one / all_cores
        lines.append(
            f"| {name} | {one * 1e3:.1f} ms | {all_cores * 1e3:.1f} ms | {speed_up:.2f}x, "
            f"{met(speed_up >= THREADS_TARGET)} | {same} |"
        )
    return lines


# --------------------------------------------------------------------------- 2. start-up
def fresh_process(code: str, environment: dict[str, str] | None = None) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(environment or {})}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env, capture_output=True)
    return time.perf_counter() - start


def table_startup() -> list[str]:
    bare = min(fresh_process("pass") for _ in range(5))
    imported = min(fresh_process("import geoiou") for _ in range(5))
    numba_only = min(fresh_process("import numba") for _ in range(5))
    # numba's own first call: an empty function loaded from its cache, in a process that imports only numba.
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "empty_function.py").write_text(
            "import numba\n\n@numba.njit(cache=True)\ndef f():\n    return 0\n"
        )
        empty = f"import sys; sys.path.insert(0, {folder!r}); import empty_function; empty_function.f()"
        fresh_process(empty, {"NUMBA_CACHE_DIR": folder})
        numba_first = min(fresh_process(empty, {"NUMBA_CACHE_DIR": folder}) for _ in range(5))
    command = (
        "import sys; from geoiou.cli import main; "
        "sys.argv = ['geoiou', 'iou', 'box:0,0,10,10', 'rbox:5,5,10,10,45']; main()"
    )
    fresh_process(command)  # fills the cache
    cli = min(fresh_process(command) for _ in range(5))
    return [
        "| what | wall time | target |",
        "|---|---|---|",
        f"| a bare interpreter (`python -c pass`) | {bare * 1e3:.0f} ms | |",
        f"| `import geoiou` (interpreter included) | {imported * 1e3:.0f} ms ({(imported - bare) * 1e3:.0f} ms more) "
        f"| <= {IMPORT_TARGET_S * 1e3:.0f} ms: {met(imported <= IMPORT_TARGET_S)} |",
        f"| `import numba` (interpreter included) | {numba_only * 1e3:.0f} ms | |",
        f"| numba's first call of an empty cached function (interpreter and numba included) "
        f"| {numba_first * 1e3:.0f} ms | |",
        f"| `geoiou iou box:0,0,10,10 rbox:5,5,10,10,45`, warm cache | {cli * 1e3:.0f} ms "
        f"| <= {CLI_TARGET_S * 1e3:.0f} ms: {met(cli <= CLI_TARGET_S)} |",
    ]


# --------------------------------------------------------------------------- 3. first calls
_POLYGONS = "a = geoiou.Polygon.from_rings([[(0, 0), (2, 0), (0, 2)], [(1, 1), (3, 1), (1, 3)]]); "
#: Seeded batches large enough for the candidate search and the parallel drivers (each needs its own compilation).
_LARGE = (
    "import numpy as np; rng = np.random.default_rng(0); xy = rng.uniform(0, 3000, (3000, 2)); "
    "wh = rng.uniform(10, 100, (3000, 2)); angle = rng.uniform(-90, 90, (3000, 1)); "
)
_LARGE_POLYGONS = _LARGE + "a = geoiou.RotatedBox(np.hstack([xy, wh, angle])).to_polygon(); "
FAMILIES = {
    "Box and Interval": (
        "a = geoiou.Box([[0, 0, 2, 2], [1, 1, 3, 3]]); geoiou.pairwise_iou(a, a); geoiou.pairwise_giou(a, a)",
        _LARGE + "a = geoiou.Box(np.hstack([xy, xy + wh])); geoiou.pairwise_iou(a, a); geoiou.pairwise_giou(a, a)",
    ),
    "RotatedBox (intersection and hull)": (
        "a = geoiou.RotatedBox([[0, 0, 2, 1, 30], [1, 1, 3, 2, 60]]); geoiou.pairwise_giou(a, a)",
        _LARGE
        + "a = geoiou.RotatedBox(np.hstack([xy, wh, angle])); geoiou.pairwise_iou(a, a); geoiou.pairwise_giou(a, a)",
    ),
    "Polygon (intersection)": (
        _POLYGONS + "geoiou.pairwise_iou(a, a)",
        _LARGE_POLYGONS + "geoiou.pairwise_iou(a, a)",
    ),
    "Polygon hulls (GIoU)": (
        _POLYGONS + "geoiou.pairwise_giou(a, a)",
        _LARGE_POLYGONS + "geoiou.pairwise_giou(a[:1000], a[:1000])",
    ),
    "Mask (intersection)": (
        "import numpy as np; a = geoiou.Mask(np.eye(8, dtype=bool)[None].repeat(2, 0)); geoiou.pairwise_iou(a, a)",
        "import numpy as np; a = geoiou.Mask(np.eye(64, dtype=bool)[None].repeat(400, 0)); geoiou.pairwise_iou(a, a)",
    ),
    "one Polygon pair (the ring check)": (
        "geoiou.iou(geoiou.Polygon([(0, 0), (2, 0), (0, 2)]), geoiou.Polygon([(1, 0), (3, 0), (1, 2)]))",
        None,
    ),
}


def table_first_calls() -> list[str]:
    lines = [
        f"| kernel family (target: first call <= {FIRST_CALL_TARGET_S:.0f} s) | first call, empty cache "
        "| again, cache filled | first call on large batches, empty cache | again, cache filled |",
        "|---|---|---|---|---|",
    ]
    for name, (small, large) in FAMILIES.items():
        cells = [*_first_and_cached(small), *(_first_and_cached(large) if large else ("-", "-"))]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append(
        "\nEach cell: wall time (CPU time of the process) of the call alone, in a fresh process after `import "
        "geoiou`; numba's own start (its first compilation or cache load) is included. Compiling is one thread's "
        "work: on a busy machine the CPU time is the better measure of what a quiet one would take."
    )
    return lines


def _first_and_cached(code: str) -> tuple[str, str]:
    """`code`'s first run in a fresh process with an empty numba cache, then in another with it filled."""
    with tempfile.TemporaryDirectory() as cache:
        environment = {"NUMBA_CACHE_DIR": cache}
        return _timed_in_child(code, environment), _timed_in_child(code, environment)


def _timed_in_child(code: str, environment: dict[str, str]) -> str:
    """Wall and CPU seconds of `code` in a fresh process (after ``import geoiou``)."""
    timed = (
        "import time, geoiou\n"
        "wall, cpu = time.perf_counter(), time.process_time()\n"
        f"{code}\n"
        "print(time.perf_counter() - wall, time.process_time() - cpu)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), **environment}
    output = subprocess.run([sys.executable, "-c", timed], check=True, env=env, capture_output=True, text=True)
    wall, cpu = (float(value) for value in output.stdout.split()[-2:])
    return f"{wall:.2f} s ({cpu:.2f} s)"


# --------------------------------------------------------------------------- 4. one mask pair
def table_mask_pair() -> list[str]:
    rng = np.random.default_rng(workloads.SEED + 1)
    pixels = workloads.blob_masks(rng, 2, 512)
    a, b = pixels[0], pixels[1]
    ours = best_of(lambda: geoiou.iou(geoiou.Mask(a), geoiou.Mask(b)), 50)
    numpy = best_of(lambda: (a & b).sum() / (a | b).sum(), 50)
    assert geoiou.iou(geoiou.Mask(a), geoiou.Mask(b)) == (a & b).sum() / (a | b).sum()
    built_a, built_b = geoiou.Mask(a), geoiou.Mask(b)
    constructions = best_of(lambda: (geoiou.Mask(a).area, geoiou.Mask(b).area), 50)
    kernel = best_of(lambda: geoiou.iou(built_a, built_b), 50)
    return [
        f"| one 512² mask pair per call (target <= {MASK_PAIR_TARGET:.1f}x NumPy) | time | ratio to NumPy |",
        "|---|---|---|",
        f"| geoiou `iou(Mask(a), Mask(b))` | {ours * 1e6:.0f} µs | {ours / numpy:.2f}x, "
        f"{met(ours / numpy <= MASK_PAIR_TARGET)} |",
        f"| of which the two constructions with their areas (the pixel store: windows packed, counted) "
        f"| {constructions * 1e6:.0f} µs | {constructions / numpy:.2f}x |",
        f"| of which `iou` of the two masks already built (the kernel's route) | {kernel * 1e6:.0f} µs "
        f"| {kernel / numpy:.2f}x |",
        f"| NumPy `(a & b).sum() / (a \\| b).sum()` | {numpy * 1e6:.0f} µs | 1x |",
    ]


TABLES = {"threads": table_threads, "startup": table_startup, "first": table_first_calls, "mask": table_mask_pair}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated tables: " + ",".join(TABLES))
    arguments = parser.parse_args()
    chosen = arguments.only.split(",") if arguments.only else list(TABLES)
    print(
        f"# geoiou engine benchmark: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}, "
        f"{geoiou.get_threads()} threads"
    )
    for name in chosen:
        print(f"\n## {name}  (python benchmarks/bench_engine.py --only {name})\n")
        print("\n".join(TABLES[name]()))
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
