"""pycocotools' API on geoiou's engine: ``COCO``, ``COCOeval``, ``Params``, ``mask``, and a module swap.

``from geoiou.pycocotools import COCO, COCOeval`` is ``from pycocotools.coco import COCO`` and
``from pycocotools.cocoeval import COCOeval`` with pycocotools' numbers bit for bit (``stats``,
``eval``, ``evalImgs``, ``ious``), computed by the matcher and accumulation of
`geoiou.evaluation.evaluate_coco`. `init_as_pycocotools` makes ``import pycocotools`` (and its
``coco``, ``cocoeval`` and ``mask`` modules) give these in the running process, so a pipeline
written for pycocotools switches with one line. See docs/pycocotools.md.

Examples
--------
>>> import sys
>>> from geoiou.pycocotools import init_as_pycocotools, restore_pycocotools
>>> init_as_pycocotools()
>>> from pycocotools.cocoeval import COCOeval
>>> COCOeval.__module__
'geoiou.pycocotools.cocoeval'
>>> restore_pycocotools()
"""

from __future__ import annotations

from geoiou.pycocotools import mask
from geoiou.pycocotools.coco import COCO
from geoiou.pycocotools.cocoeval import COCOeval, Params
from geoiou.pycocotools.swap import init_as_pycocotools, restore_pycocotools

__all__ = ["COCO", "COCOeval", "Params", "init_as_pycocotools", "mask", "restore_pycocotools"]
