"""`KittiObjects`: the columns of KITTI object labels (ground truth or results), which the KITTI protocol takes.

A KITTI label line is ``type truncated occluded alpha x1 y1 x2 y2 h w l x y z ry`` and a result
line adds a ``score``: the class name, the truncation (0 to 1), the occlusion level (0 fully
visible, 1 partly, 2 largely occluded, 3 unknown), the observation angle, the 2-D box in the image
(pixels), the 3-D size and the bottom centre in the rectified camera frame, and the yaw about the
camera's y axis. ``DontCare`` rows mark image regions where objects were not labelled. The reader
(`geoiou.io.read_kitti_labels`) builds this table and `geoiou.evaluation.evaluate_kitti` takes it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from geoiou._validation import invalid_argument as _fail
from geoiou.errors import FrozenRegionError
from geoiou.regions import Box, RotatedBox3D

__all__ = ["KittiObjects"]


def _column(value: Any, param: str, n: int, trailing: tuple[int, ...] = ()) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64)
    if array.shape != (n, *trailing):
        raise _fail(param, f"an array of shape {(n, *trailing)}", f"shape {array.shape}")
    if not np.isfinite(array).all():
        row = int(np.argwhere(~np.isfinite(array))[0][0])
        raise _fail(param, "finite numbers", f"{array[row].tolist()} at row {row}")
    array.flags.writeable = False
    return array


class KittiObjects:
    """The objects of KITTI label files: one row per line of every image's file.

    Parameters
    ----------
    image_id : array_like of str, shape (N,)
        The image of each object (the file stem: ``"000123"``).
    type : array_like of str, shape (N,)
        KITTI's class names (``Car``, ``Van``, ``Pedestrian``, ``Person_sitting``, ``Cyclist``,
        ``DontCare``, ...).
    truncated, occluded, alpha : array_like, shape (N,)
        As in the label files (results may write anything there: the protocol does not read them
        for predictions).
    bbox : array_like, shape (N, 4)
        The 2-D box in the image, ``x1 y1 x2 y2`` in pixels.
    dimensions : array_like, shape (N, 3)
        ``h w l`` in metres.
    location : array_like, shape (N, 3)
        ``x y z``, the bottom centre in the rectified camera frame.
    rotation_y : array_like, shape (N,)
        ``ry`` in radians.
    score : array_like, shape (N,), optional
        The confidence of each result; absent for ground truth.
    images : sequence of str, optional
        Every image of the set, including those without a line (default: those with one).

    Examples
    --------
    >>> objects = KittiObjects(image_id=["000000"], type=["Car"], truncated=[0.0], occluded=[0], alpha=[-1.5],
    ...                        bbox=[[100, 150, 300, 250]], dimensions=[[1.5, 1.6, 3.9]], location=[[2, 1.7, 20]],
    ...                        rotation_y=[0.0])
    >>> len(objects), objects.boxes3d.volume
    (1, array([9.36]))
    """

    __slots__ = (
        "image_id",
        "type",
        "truncated",
        "occluded",
        "alpha",
        "bbox",
        "dimensions",
        "location",
        "rotation_y",
        "score",
        "images",
    )
    image_id: np.ndarray
    type: np.ndarray
    truncated: np.ndarray
    occluded: np.ndarray
    alpha: np.ndarray
    bbox: np.ndarray
    dimensions: np.ndarray
    location: np.ndarray
    rotation_y: np.ndarray
    score: np.ndarray | None
    images: tuple[str, ...]

    def __init__(
        self,
        *,
        image_id: ArrayLike,
        type: ArrayLike,  # noqa: A002  (KITTI's own name for the class)
        truncated: ArrayLike,
        occluded: ArrayLike,
        alpha: ArrayLike,
        bbox: ArrayLike,
        dimensions: ArrayLike,
        location: ArrayLike,
        rotation_y: ArrayLike,
        score: ArrayLike | None = None,
        images: Any = None,
    ) -> None:
        ids = np.asarray(image_id).astype(str)
        n = len(ids)
        names = np.asarray(type).astype(str)
        if ids.shape != (n,) or names.shape != (n,):
            raise _fail("type", f"one class name per row, shape ({n},)", f"shape {names.shape}")
        columns: dict[str, Any] = {
            "image_id": ids,
            "type": names,
            "truncated": _column(truncated, "truncated", n),
            "occluded": _column(occluded, "occluded", n),
            "alpha": _column(alpha, "alpha", n),
            "bbox": _column(bbox, "bbox", n, (4,)),
            "dimensions": _column(dimensions, "dimensions", n, (3,)),
            "location": _column(location, "location", n, (3,)),
            "rotation_y": _column(rotation_y, "rotation_y", n),
            "score": None if score is None else _column(score, "score", n),
            "images": tuple(sorted(set(ids.tolist()) | set(map(str, images or ())))),
        }
        for name, value in columns.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenRegionError(f"KittiObjects is immutable: build a new table instead of setting {name!r}")

    def __len__(self) -> int:
        return len(self.image_id)

    @property
    def dontcare(self) -> np.ndarray:
        """Where the row is a ``DontCare`` region (any case)."""
        flags: np.ndarray = np.char.lower(self.type) == "dontcare"
        return flags

    @property
    def boxes3d(self) -> RotatedBox3D:
        """The 3-D boxes in geoiou's z-up frame (`RotatedBox3D.from_kitti_camera`).

        A negative size is read as 0: KITTI writes ``-1 -1 -1`` (and a location of ``-1000``) for
        rows without a 3-D box (``DontCare``, results of a 2-D detector), which then share no volume.
        """
        sizes = np.maximum(self.dimensions, 0.0)
        labels = np.concatenate([sizes, self.location, self.rotation_y[:, None]], axis=1)
        return RotatedBox3D.from_kitti_camera(labels)

    @property
    def boxes2d(self) -> Box:
        """The 2-D boxes in the image (``x1 y1 x2 y2`` pixels; a box written inside out is read as flat at x1, y1)."""
        low = self.bbox[:, :2]
        return Box(np.concatenate([low, np.maximum(self.bbox[:, 2:], low)], axis=1))

    def take(self, rows: np.ndarray) -> KittiObjects:
        """The table of `rows` (the images kept)."""
        return KittiObjects(
            image_id=self.image_id[rows],
            type=self.type[rows],
            truncated=self.truncated[rows],
            occluded=self.occluded[rows],
            alpha=self.alpha[rows],
            bbox=self.bbox[rows],
            dimensions=self.dimensions[rows],
            location=self.location[rows],
            rotation_y=self.rotation_y[rows],
            score=None if self.score is None else self.score[rows],
            images=self.images,
        )
