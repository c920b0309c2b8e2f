"""lvis-api's API on geoiou's engine: ``LVIS``, ``LVISResults``, ``LVISEval`` (``from lvis import ...``).

LVIS's federated evaluation (negative and not-exhaustive categories, 300 results per image, AP by
category frequency) on the matcher and accumulation of `geoiou.evaluation.evaluate_coco`, with
lvis-api's numbers bit for bit. See docs/pycocotools.md.
"""

from __future__ import annotations

from geoiou.lvis.dataset import LVIS, LVISResults
from geoiou.lvis.evaluation import LVISEval, Params

__all__ = ["LVIS", "LVISEval", "LVISResults", "Params"]
