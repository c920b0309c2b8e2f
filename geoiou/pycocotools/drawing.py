"""``COCO.showAnns``: annotations drawn on the current matplotlib axes, as pycocotools draws them.

Polygons are filled translucent patches with an outline, RLE masks a translucent image (crowd
regions in pycocotools' green), keypoints their skeleton and points, boxes (``draw_bbox``) patches.
Colours are random, as in pycocotools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from geoiou.pycocotools import mask as mask_utils

if TYPE_CHECKING:
    from geoiou.pycocotools.coco import COCO

__all__ = ["show_annotations"]

#: pycocotools' colour of crowd masks.
CROWD_COLOR = np.array([2.0, 166.0, 101.0]) / 255


def show_annotations(coco: COCO, anns: Sequence[dict[str, Any]], draw_bbox: bool) -> None:
    """Draw `anns` of `coco` on ``matplotlib.pyplot.gca()``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from geoiou.pycocotools import COCO
    >>> coco = COCO()
    >>> coco.dataset = {"images": [{"id": 1, "height": 4, "width": 4}], "categories": [{"id": 1, "skeleton": [[1, 2]]}],
    ...                 "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "iscrowd": 0, "bbox": [0, 0, 2, 2],
    ...                                  "segmentation": [[0, 0, 2, 0, 2, 2]], "keypoints": [0, 0, 2, 1, 1, 2]}]}
    >>> show_annotations(coco, coco.loadAnns([1]), draw_bbox=True)
    """
    if "segmentation" not in anns[0] and "keypoints" not in anns[0]:
        if "caption" in anns[0]:
            for ann in anns:
                print(ann["caption"])
            return
        from geoiou._validation import invalid_argument

        raise invalid_argument("anns", "annotations with a segmentation, keypoints or a caption", anns[0])
    import matplotlib.pyplot as plt
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Polygon

    axes = plt.gca()
    axes.set_autoscale_on(False)
    patches, colors = [], []
    for ann in anns:
        color = (np.random.random((1, 3)) * 0.6 + 0.4).tolist()[0]
        segmentation = ann.get("segmentation")
        if isinstance(segmentation, list):
            for part in segmentation:
                patches.append(Polygon(np.reshape(part, (-1, 2))))
                colors.append(color)
        elif isinstance(segmentation, dict):
            pixels = mask_utils.decode(coco.annToRLE(ann))
            shade = CROWD_COLOR if ann.get("iscrowd") == 1 else np.random.random(3)
            image = np.ones((*pixels.shape, 3)) * shade
            axes.imshow(np.dstack((image, pixels * 0.5)))
        if isinstance(ann.get("keypoints"), list):
            _keypoints(plt, coco, ann, color)
        if draw_bbox:
            x, y, w, h = ann["bbox"]
            patches.append(Polygon(np.array([[x, y], [x, y + h], [x + w, y + h], [x + w, y]])))
            colors.append(color)
    axes.add_collection(PatchCollection(patches, facecolor=colors, linewidths=0, alpha=0.4))
    axes.add_collection(PatchCollection(patches, facecolor="none", edgecolors=colors, linewidths=2))


def _keypoints(plt: Any, coco: COCO, ann: dict[str, Any], color: list[float]) -> None:
    """The skeleton's limbs whose two ends are labelled, then the labelled points (visible ones outlined)."""
    skeleton = np.array(coco.loadCats(ann["category_id"])[0]["skeleton"]) - 1
    points = np.array(ann["keypoints"])
    x, y, v = points[0::3], points[1::3], points[2::3]
    for limb in skeleton:
        if np.all(v[limb] > 0):
            plt.plot(x[limb], y[limb], linewidth=3, color=color)
    plt.plot(x[v > 0], y[v > 0], "o", markersize=8, markerfacecolor=color, markeredgecolor="k", markeredgewidth=2)
    plt.plot(x[v > 1], y[v > 1], "o", markersize=8, markerfacecolor=color, markeredgecolor=color, markeredgewidth=2)
