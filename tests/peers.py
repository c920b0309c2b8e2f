"""Peer libraries run the way their users run them, shared by the tests that cross-check against them.

Import it as ``from tests.peers import ...`` (``python -m pytest`` puts the repository root on
``sys.path``).
"""

from __future__ import annotations

import contextlib
import copy
import io
from typing import Any

import pytest


def run_cocoeval(dataset: dict[str, Any], results: list[dict[str, Any]], iou_type: str) -> Any:
    """pycocotools' ``COCOeval`` after ``evaluate``, ``accumulate`` and ``summarize``, its printing silenced.

    The inputs are deep-copied: pycocotools writes into the records it is given (``area``, ``id``).
    """
    coco = pytest.importorskip("pycocotools.coco")
    cocoeval = pytest.importorskip("pycocotools.cocoeval")
    with contextlib.redirect_stdout(io.StringIO()):
        truth = coco.COCO()
        truth.dataset = copy.deepcopy(dataset)
        truth.createIndex()
        evaluator = cocoeval.COCOeval(truth, truth.loadRes(copy.deepcopy(results)), iou_type)
        evaluator.evaluate()
        evaluator.accumulate()
        evaluator.summarize()
    return evaluator
