"""boundary-iou-api's Boundary IoU and boundary AP, re-implemented independently as the tests' oracle.

boundary-iou-api (bowenc0221/boundary-iou-api) is not on PyPI: its package needs a clone and an
install from source. What it computes is small and is written here from its definitions, with
the libraries it uses itself (OpenCV's erosion, pycocotools' RLE IoU and COCOeval):

- ``mask_to_boundary``: ``d = max(1, round(dilation_ratio · sqrt(h² + w²)))``; the mask padded with
  one false pixel on every side, eroded ``d`` times by a 3 × 3 square of ones, cropped back; the
  band is the mask minus that erosion;
- its COCOeval with ``iouType="boundary"``: pycocotools' protocol on the overlap
  ``min(mask IoU, boundary IoU)`` for regular ground truths and the mask IoF (pycocotools' crowd
  rule) for crowd ones; the bands of ground truths are made from ``annToMask`` (polygons
  rasterized by pycocotools at the image's size), of results from their RLE.

Nothing of boundary-iou-api's code is copied: this is the behaviour its README and code describe,
written against pycocotools' own ``COCOeval`` by overriding ``computeIoU``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")
mask_utils = pytest.importorskip("pycocotools.mask")
cocoeval = pytest.importorskip("pycocotools.cocoeval")


def reference_band(mask: np.ndarray, dilation_ratio: float = 0.02) -> np.ndarray:
    """The band of a boolean ``(h, w)`` mask, as boundary-iou-api's ``mask_to_boundary`` defines it."""
    h, w = mask.shape
    d = max(1, int(round(dilation_ratio * np.sqrt(h**2 + w**2))))
    padded = np.zeros((h + 2, w + 2), dtype=np.uint8)
    padded[1:-1, 1:-1] = mask
    eroded = cv2.erode(padded, np.ones((3, 3), dtype=np.uint8), iterations=d)[1:-1, 1:-1]
    return mask.astype(bool) & ~eroded.astype(bool)


class BoundaryCOCOeval(cocoeval.COCOeval):  # type: ignore[misc]
    """pycocotools' COCOeval (``iouType="segm"``) whose overlaps are boundary AP's, as boundary-iou-api's."""

    dilation_ratio = 0.02

    def _band_rle(self, rle: dict[str, Any]) -> dict[str, Any]:
        band = reference_band(mask_utils.decode(rle).astype(bool), self.dilation_ratio)
        return mask_utils.encode(np.asfortranarray(band.astype(np.uint8)))  # type: ignore[no-any-return]

    def computeIoU(self, imgId: Any, catId: Any) -> Any:  # noqa: N802, N803 - overrides pycocotools
        gt, dt = self._gts[imgId, catId], self._dts[imgId, catId]
        if len(gt) == 0 and len(dt) == 0:
            return []
        order = np.argsort([-d["score"] for d in dt], kind="mergesort")
        dt = [dt[i] for i in order][: self.params.maxDets[-1]]
        crowd = [int(g["iscrowd"]) for g in gt]
        masks = mask_utils.iou([d["segmentation"] for d in dt], [g["segmentation"] for g in gt], crowd)
        bands = mask_utils.iou(
            [self._band_rle(d["segmentation"]) for d in dt], [self._band_rle(g["segmentation"]) for g in gt], crowd
        )
        if len(gt) == 0 or len(dt) == 0:
            return np.minimum(np.array(masks), np.array(bands))
        ious = np.array(masks)
        regular = np.array(crowd) == 0
        ious[:, regular] = np.minimum(ious[:, regular], np.array(bands)[:, regular])
        return ious
