"""init_as_pycocotools: code written for pycocotools runs unchanged on geoiou, in a process of its own."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.pycocotools.dropin_datasets import box_dataset

pytest.importorskip("pycocotools.coco")

#: A pipeline as it is written for pycocotools (detectron2's evaluator does the same steps).
PIPELINE = textwrap.dedent(
    """
    import contextlib, io, json, sys
    import numpy as np
    import pycocotools
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval
    import pycocotools.mask as mask_util

    with contextlib.redirect_stdout(io.StringIO()):
        coco_gt = COCO(sys.argv[1])
        coco_dt = coco_gt.loadRes(sys.argv[2])
        coco_eval = COCOeval(coco_gt, coco_dt, "bbox")
        coco_eval.params.imgIds = sorted(coco_gt.getImgIds())[:45]
        coco_eval.evaluate()
        coco_eval.accumulate()
    coco_eval.summarize()
    rle = mask_util.encode(np.asfortranarray(np.eye(4, dtype=np.uint8)))
    print(json.dumps({
        "stats": coco_eval.stats.tolist(),
        "precision": float(coco_eval.eval["precision"].sum()),
        "entries": sum(e is not None for e in coco_eval.evalImgs),
        "rle": rle["counts"].decode(),
        "module": COCOeval.__module__,
    }))
    """
)


def run(prelude: str, tmp_path: Path) -> tuple[str, dict]:
    dataset, results = box_dataset(12, integer=False)
    truth, found = tmp_path / "instances.json", tmp_path / "results.json"
    truth.write_text(json.dumps(dataset))
    found.write_text(json.dumps(results))
    script = tmp_path / "pipeline.py"
    script.write_text(prelude + PIPELINE)
    done = subprocess.run(
        [sys.executable, str(script), str(truth), str(found)], capture_output=True, text=True, check=True, timeout=300
    )
    *table, summary = done.stdout.strip().splitlines()
    return "\n".join(table), json.loads(summary)


def test_a_pycocotools_pipeline_runs_unchanged_after_the_swap(tmp_path: Path) -> None:
    table, original = run("", tmp_path)
    swapped_table, swapped = run(
        "from geoiou.pycocotools import init_as_pycocotools\ninit_as_pycocotools()\n", tmp_path
    )
    assert original["module"] == "pycocotools.cocoeval"
    assert swapped["module"] == "geoiou.pycocotools.cocoeval"
    assert swapped_table == table  # the printed summary, character for character
    for key in ("stats", "precision", "entries", "rle"):
        assert swapped[key] == original[key], key
