"""geoiou's evaluations against the evaluators people switch to, each in its own process, from the same files.

Every tool runs in a fresh process (``--child``): its imports are timed apart, then it reads the
ground truth and the results from disk and evaluates them, three times; the best time is kept.
COCO precision arrays (``eval["precision"]``) are saved and compared with pycocotools', bit for bit.
Workloads (seeded, written once into a temporary folder, see ``evaluator_workloads.py``):

- ``coco``: 1,500 images of four sizes, 12,000 polygon ground truths, 144,000 results, as boxes
  (bbox) and as RLE masks (segm), grouped by image and shuffled. Peers: pycocotools,
  faster-coco-eval, hotcoco, ultrafast-pycocotools; geoiou's segm rows rasterize the ground-truth
  polygons as pycocotools does (``polygon_iou="pycocotools"``), and one more row shows its default,
  exact polygons.
- ``o365``: an Objects365-like box set (80,000 images, 365 categories, 1,200,000 results): time and
  peak memory of geoiou, hotcoco and ultrafast-pycocotools (pycocotools with ``--with-pycocotools``:
  minutes).
- ``dota``: VOC evaluation of one crowded image (3,200 rotated quadrilaterals, 9,600 predictions)
  against shapely's pair work on the same polygons (STRtree query and intersection areas).
- ``anet``: ActivityNet detection from files (500,000 predictions). The official script
  (activitynet/ActivityNet, ``Evaluation/eval_detection.py``, Python 2) runs when given its folder
  with ``--activitynet DIR``: it is converted to Python 3 on the fly (lib2to3, and ``np.float``, which
  NumPy 1.24 removed, read as ``np.float64``) into the files' folder; nothing else is changed.
- ``import``: ``import geoiou.evaluation, geoiou.io`` in a fresh process (best of five).

Ratios are the other tool's time / geoiou's (above 1: geoiou is faster). Benchmarks are not tests.

    python benchmarks/bench_evaluators.py                      # everything but the official ActivityNet script
    python benchmarks/bench_evaluators.py --only coco,import
    git clone https://github.com/activitynet/ActivityNet /tmp/ActivityNet
    python benchmarks/bench_evaluators.py --only anet --activitynet /tmp/ActivityNet/Evaluation
    python benchmarks/bench_evaluators.py --markdown           # tables as in docs/performance.md
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

COCO_TOOLS = ("pycocotools", "faster-coco-eval", "hotcoco", "ultrafast-pycocotools", "geoiou")
RUNS = 3


# --------------------------------------------------------------------------- child processes: one tool, one workload
def _coco_api(tool: str) -> tuple[Any, Any]:
    """The ``COCO`` and ``COCOeval`` classes of a pycocotools-like tool."""
    if tool == "pycocotools":
        from pycocotools.coco import COCO
        from pycocotools.cocoeval import COCOeval
    elif tool == "faster-coco-eval":
        from faster_coco_eval import COCO
        from faster_coco_eval import COCOeval_faster as COCOeval
    elif tool == "hotcoco":
        from hotcoco import COCO, COCOeval
    elif tool == "ultrafast-pycocotools":
        from ultrafast_pycocotools.coco import COCO
        from ultrafast_pycocotools.cocoeval import COCOeval
    else:
        raise ValueError(tool)
    return COCO, COCOeval


def _coco_peer(tool: str, truth: str, results: str, iou_type: str) -> Callable[[], np.ndarray]:
    COCO, COCOeval = _coco_api(tool)

    def run() -> np.ndarray:
        with contextlib.redirect_stdout(io.StringIO()):
            ground_truth = COCO(truth)
            evaluation = COCOeval(ground_truth, ground_truth.loadRes(results), iou_type)
            evaluation.evaluate()
            evaluation.accumulate()
            evaluation.summarize()
        return np.asarray(evaluation.eval["precision"])

    return run


def _coco_geoiou(truth: str, results: str, iou_type: str, polygon_iou: str) -> Callable[[], np.ndarray]:
    from geoiou.evaluation import evaluate_coco
    from geoiou.io import read_coco, read_coco_results

    geometry = "bbox" if iou_type == "bbox" else "segmentation"

    def run() -> np.ndarray:
        dataset = read_coco(truth, geometry=geometry)
        predictions = read_coco_results(results, geometry=geometry)
        result = evaluate_coco(
            dataset.annotations,
            predictions.annotations,
            images=dataset.images,
            categories=list(dataset.categories),
            polygon_iou=polygon_iou,
            show_progress=False,
        )
        return result.precision

    return run


def _anet_geoiou(truth: str, results: str) -> Callable[[], np.ndarray]:
    from geoiou.evaluation import evaluate_temporal_detection
    from geoiou.io import read_activitynet

    def run() -> np.ndarray:
        ground_truth = read_activitynet(truth)
        predictions = read_activitynet(results)
        return evaluate_temporal_detection(ground_truth.segments, predictions.segments, show_progress=False).mean_ap

    return run


def _anet_official(evaluation_dir: str, truth: str, results: str) -> Callable[[], np.ndarray]:
    sys.path.insert(0, evaluation_dir)
    from eval_detection import ANETdetection  # the official script, converted to Python 3

    def run() -> np.ndarray:
        with contextlib.redirect_stdout(io.StringIO()):
            detection = ANETdetection(truth, results, subset="validation", verbose=False, check_status=False)
            detection.evaluate()
        return np.asarray(detection.ap).mean(axis=1)

    return run


def _dota_geoiou() -> Callable[[], float]:
    import geoiou
    from evaluator_workloads import crowded_dota
    from geoiou.evaluation import Annotations, evaluate_voc

    truth, predicted, score = crowded_dota()

    def run() -> float:
        ground_truth = Annotations(image_id="P", category_id="ship", region=geoiou.Polygon.from_rings(list(truth)))
        predictions = Annotations(
            image_id="P", category_id="ship", score=score, region=geoiou.Polygon.from_rings(list(predicted))
        )
        return evaluate_voc(ground_truth, predictions).mAP

    return run


def _dota_shapely() -> Callable[[], float]:
    import shapely
    from evaluator_workloads import crowded_dota

    truth, predicted, _ = crowded_dota()

    def run() -> float:
        truth_shapes, predicted_shapes = shapely.polygons(truth), shapely.polygons(predicted)
        rows, cols = shapely.STRtree(truth_shapes).query(predicted_shapes, predicate="intersects")
        return float(shapely.area(shapely.intersection(predicted_shapes[rows], truth_shapes[cols])).sum())

    return run


def child(tool: str, workload: str, folder: str, activitynet: str | None) -> dict[str, Any]:
    """Run one tool on one workload in this process: import time, best of `RUNS`, peak memory, the answer saved."""
    files = {name[:-5]: str(Path(folder) / name) for name in os.listdir(folder) if name.endswith(".json")}
    started = time.perf_counter()
    if workload.startswith("coco-") or workload.startswith("o365-"):
        prefix, iou_type = workload.split("-", 1)[0], workload.split("-")[1]
        truth = files[f"{prefix}-instances"]
        results = files[f"{prefix}-{workload.split('-', 1)[1]}"]
        if tool.startswith("geoiou"):
            run = _coco_geoiou(truth, results, iou_type, "exact" if tool == "geoiou-exact" else "pycocotools")
        else:
            run = _coco_peer(tool, truth, results, iou_type)
    elif workload == "anet":
        anet = (files["anet-gt"], files["anet-results"])
        run = _anet_geoiou(*anet) if tool == "geoiou" else _anet_official(activitynet or "", *anet)
    elif workload == "dota":
        run = _dota_geoiou() if tool == "geoiou" else _dota_shapely()
    else:
        raise ValueError(workload)
    imported = time.perf_counter() - started
    times, answer = [], None
    for _ in range(RUNS if workload != "anet" or tool == "geoiou" else 1):
        start = time.perf_counter()
        answer = run()
        times.append(time.perf_counter() - start)
    np.save(Path(folder) / f"answer-{tool}-{workload}.npy", np.asarray(answer))
    peak = _peak_megabytes()
    return {
        "tool": tool,
        "workload": workload,
        "import": imported,
        "best": min(times),
        "first": times[0],
        "peak_mb": peak,
    }


def _peak_megabytes() -> float:
    """This process's peak resident memory. Not ru_maxrss: Linux keeps it across exec, so a child would report
    its parent's peak (the workload generator's); /proc's VmHWM starts afresh with the new program."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # elsewhere: the best there is


def import_time() -> float:
    """Best of five fresh processes importing geoiou.evaluation and geoiou.io."""
    code = "import time; t = time.perf_counter(); import geoiou.evaluation, geoiou.io; print(time.perf_counter() - t)"
    return min(
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        for _ in range(5)
    )


# --------------------------------------------------------------------------- the parent: files, children, tables
def run_child(tool: str, workload: str, folder: Path, activitynet: str | None) -> dict[str, Any] | None:
    command = [sys.executable, __file__, "--child", tool, workload, str(folder)]
    if activitynet:
        command += ["--activitynet", activitynet]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        # Killed by a signal (-9: the kernel's out-of-memory killer, on a 24 GB machine) or failed with a message.
        why = "killed (out of memory?)" if done.returncode in (-9, 137) else done.stderr.strip().splitlines()[-1:]
        print(f"  {tool} on {workload} failed: {why}", file=sys.stderr)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def same_answer(folder: Path, tool: str, reference: str, workload: str) -> str:
    mine, theirs = (folder / f"answer-{name}-{workload}.npy" for name in (tool, reference))
    if not mine.exists() or not theirs.exists():
        return "-"
    a, b = np.load(mine), np.load(theirs)
    if a.shape != b.shape:
        return f"shape {a.shape} vs {b.shape}"
    return "identical" if np.array_equal(a, b) else f"max diff {np.nanmax(np.abs(a - b)):.2e}"


def table(title: str, header: list[str], rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = [f"**{title}**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines) + "\n"
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    lines = [title, "  ".join(h.ljust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)) for row in rows]
    return "\n".join(lines) + "\n"


def coco_tables(folder: Path, workloads: list[str], tools: list[str], activitynet: str | None, markdown: bool) -> str:
    out = []
    for workload in workloads:
        measured = {tool: run_child(tool, workload, folder, activitynet) for tool in tools}
        if workload.startswith("coco-segm"):
            measured["geoiou-exact"] = run_child("geoiou-exact", workload, folder, activitynet)
        geoiou_best = measured["geoiou"]["best"] if measured.get("geoiou") else None
        rows = []
        for tool, m in measured.items():
            if m is None:
                rows.append([tool, "failed", "", "", "", ""])
                continue
            ratio = f"{m['best'] / geoiou_best:.2f}" if geoiou_best else "-"
            reference = "pycocotools" if "pycocotools" in measured else "hotcoco"
            same = "(reference)" if tool == reference else same_answer(folder, tool, reference, workload)
            if tool == "geoiou-exact":
                same, ratio = "exact polygons", f"{m['best'] / geoiou_best:.2f}x geoiou's time" if geoiou_best else "-"
            rows.append([tool, f"{m['import']:.3f}", f"{m['best']:.3f}", f"{m['peak_mb']:.0f}", ratio, same])
        out.append(
            table(
                workload, ["tool", "import s", "best of 3 s", "peak MB", "time / geoiou", "precision"], rows, markdown
            )
        )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="coco,o365,dota,anet,import")
    parser.add_argument("--folder", help="reuse the files in this folder (written there if missing)")
    parser.add_argument("--activitynet", help="the Evaluation folder of activitynet/ActivityNet (a clone)")
    parser.add_argument("--with-pycocotools", action="store_true", help="also run pycocotools on o365 (minutes)")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--child", nargs=3, metavar=("TOOL", "WORKLOAD", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        tool, workload, folder = args.child
        activitynet = _python3_copy(args.activitynet, folder) if tool == "official" and args.activitynet else None
        print(json.dumps(child(tool, workload, folder, activitynet)))
        return
    import evaluator_workloads as workloads

    only = set(args.only.split(","))
    folder = Path(args.folder or tempfile.mkdtemp(prefix="geoiou-evaluators-"))
    print(f"files in {folder}; load average {os.getloadavg()[0]:.2f}", file=sys.stderr)
    output = []
    if "coco" in only:
        if not (folder / "coco-instances.json").exists():
            workloads.write_coco(folder)
        output.append(
            coco_tables(
                folder,
                ["coco-bbox", "coco-bbox-shuffled", "coco-segm", "coco-segm-shuffled"],
                list(COCO_TOOLS),
                None,
                args.markdown,
            )
        )
    if "o365" in only:
        if not (folder / "o365-instances.json").exists():
            workloads.write_objects365(folder)
        tools = ["hotcoco", "ultrafast-pycocotools", "faster-coco-eval", "geoiou"]
        output.append(
            coco_tables(
                folder, ["o365-bbox"], (["pycocotools"] if args.with_pycocotools else []) + tools, None, args.markdown
            )
        )
    if "dota" in only:
        rows = []
        measured = {tool: run_child(tool, "dota", folder, None) for tool in ("geoiou", "shapely")}
        for tool, m in measured.items():
            if m:
                ratio = m["best"] / measured["geoiou"]["best"] if measured.get("geoiou") else float("nan")
                rows.append([tool, f"{m['best']:.4f}", f"{m['first']:.3f}", f"{m['peak_mb']:.0f}", f"{ratio:.2f}"])
        output.append(
            table(
                "dota: one image, 3,200 quadrilaterals, 9,600 predictions",
                ["tool", "best s", "first call s", "peak MB", "time / geoiou"],
                rows,
                args.markdown,
            )
        )
    if "anet" in only:
        if not (folder / "anet-gt.json").exists():
            workloads.write_activitynet(folder)
        tools = ["geoiou"] + (["official"] if args.activitynet else [])
        measured = {tool: run_child(tool, "anet", folder, args.activitynet) for tool in tools}
        rows = []
        for tool, m in measured.items():
            if m:
                ratio = m["best"] / measured["geoiou"]["best"] if measured.get("geoiou") else float("nan")
                same = same_answer(folder, tool, "official", "anet") if tool == "geoiou" else "(reference)"
                rows.append([tool, f"{m['best']:.3f}", f"{m['peak_mb']:.0f}", f"{ratio:.1f}", same])
        output.append(
            table(
                "anet: ActivityNet detection from files, 500,000 predictions",
                ["tool", "best s", "peak MB", "time / geoiou", "mAP per threshold"],
                rows,
                args.markdown,
            )
        )
    if "import" in only:
        output.append(
            table(
                "import geoiou.evaluation, geoiou.io (fresh process, best of 5)",
                ["seconds"],
                [[f"{import_time():.3f}"]],
                args.markdown,
            )
        )
    print(f"load average at the end {os.getloadavg()[0]:.2f}", file=sys.stderr)
    print("\n".join(output))


def _python3_copy(evaluation_dir: str, folder: str) -> str:
    """The official ActivityNet evaluation (Python 2) converted to Python 3 into `folder` (lib2to3)."""
    target = Path(folder) / "activitynet-py3"
    if not target.exists():
        target.mkdir()
        for name in ("eval_detection.py", "utils.py"):
            (target / name).write_text((Path(evaluation_dir) / name).read_text())
        subprocess.run([sys.executable, "-m", "lib2to3", "-w", "-n", str(target)], capture_output=True, check=True)
        # And to the NumPy of today: the np.float alias it casts with was removed in NumPy 1.24 (its workers are
        # processes of their own, so the alias cannot be put back from here).
        script = target / "eval_detection.py"
        script.write_text(script.read_text().replace(".astype(np.float)", ".astype(np.float64)"))
    return str(target)


if __name__ == "__main__":
    main()
