"""`PanopticMaps`: panoptic segmentations as COCO's panoptic format holds them, what readers build and PQ takes.

Per image, a map of segment ids (a PNG's colours ``R + 256 G + 256² B``, or integer ids; 0 is void,
unlabelled) and, per segment, its id, category and crowd flag (COCO's ``segments_info``). The maps
are loaded one image at a time when the evaluation reads them (a reader hands a loader of its PNG
files), so a dataset of any size is never held at once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from geoiou._validation import invalid_argument as _fail

__all__ = ["MAX_SEGMENT_ID", "PanopticMaps"]

#: Segment ids are colours of 8-bit RGB pixels: below 256³ (0 is void).
MAX_SEGMENT_ID = 256**3 - 1

#: What loads an image's map: ``load(k)`` for the k-th image, an (H, W) integer array of ids or (H, W, 3) uint8 RGB.
MapLoader = Callable[[int], np.ndarray]


class PanopticMaps:
    """Images' maps of segment ids and their segments' categories (COCO panoptic ``annotations``).

    Parameters
    ----------
    image_id : array_like of int or str, shape (I,)
        The images, each once.
    maps : sequence of array_like, or callable
        Each image's map in `image_id`'s order: ``(H, W)`` integer segment ids or ``(H, W, 3)``
        uint8 RGB (id ``R + 256 G + 256² B``, COCO's PNG colours); or ``load(k)`` returning the k-th.
    segment_image, segment_id, category_id : array_like, shape (S,)
        Each segment's image, id (unique within its image, positive: 0 is void) and category.
    iscrowd : array_like of bool, shape (S,), optional
        Crowd regions (ground truth only): never matched; a prediction mostly on one is not a
        false positive.
    area : array_like of float, shape (S,), optional
        The ground truth's ``area`` field, which panopticapi uses for a ground truth segment in
        place of its pixel count; by default the pixels of the map.
    categories : sequence of dict, optional
        COCO's ``categories`` (``id``, ``name``, ``isthing``), for the evaluation's things and stuff.
    sources : sequence of str, optional
        What each map was read from, for messages (file names).

    Examples
    --------
    >>> import numpy as np
    >>> ids = np.array([[1, 1, 2], [1, 2, 2]])
    >>> maps = PanopticMaps([7], [ids], segment_image=[7, 7], segment_id=[1, 2], category_id=[3, 4])
    >>> len(maps), maps.segment_start.tolist(), maps.load(0).shape
    (1, [0, 2], (2, 3))
    """

    def __init__(
        self,
        image_id: ArrayLike,
        maps: Sequence[ArrayLike] | MapLoader,
        *,
        segment_image: ArrayLike,
        segment_id: ArrayLike,
        category_id: ArrayLike,
        iscrowd: ArrayLike | None = None,
        area: ArrayLike | None = None,
        categories: Sequence[Mapping[str, Any]] | None = None,
        sources: Sequence[str] | None = None,
    ) -> None:
        self.image_id = _ids(image_id, "image_id")
        if len(np.unique(self.image_id)) != len(self.image_id):
            raise _fail("image_id", "each image once", "an image listed twice")
        n = len(self.image_id)
        if callable(maps):
            self._loader: MapLoader = maps
        else:
            given = list(maps)
            if len(given) != n:
                raise _fail("maps", f"one map per image ({n})", f"{len(given)} maps")
            self._loader = lambda k: np.asarray(given[k])
        self.sources = list(sources) if sources is not None else [f"image {i!r}" for i in self.image_id.tolist()]
        image = _positions(self.image_id, _ids(segment_image, "segment_image"), "segment_image")
        count = len(image)
        ids = _ids(segment_id, "segment_id", count)
        if ids.dtype.kind == "U" or ((ids < 1) | (ids > MAX_SEGMENT_ID)).any():
            raise _fail("segment_id", f"integers in [1, {MAX_SEGMENT_ID}] (0 is void)", _first_bad(ids))
        order = np.argsort(image, kind="stable")  # by image, each image's segments in their given order
        self.segment_id = ids[order]
        self.category_id = _ids(category_id, "category_id", count)[order]
        self.iscrowd = _flags(iscrowd, count)[order]
        self.area = None if area is None else np.asarray(area, dtype=np.float64).reshape(count)[order]
        self.segment_start = np.searchsorted(image[order], np.arange(n + 1)).astype(np.int64)
        key = image[order].astype(np.int64) * (MAX_SEGMENT_ID + 1) + self.segment_id
        if len(np.unique(key)) != count:
            raise _fail("segment_id", "ids unique within each image", "an id given twice in one image")
        self.categories = None if categories is None else [dict(c) for c in categories]

    def __len__(self) -> int:
        return len(self.image_id)

    def __repr__(self) -> str:
        return f"<PanopticMaps: {len(self)} images, {len(self.segment_id)} segments>"

    def load(self, k: int) -> np.ndarray:
        """The k-th image's map as loaded: ``(H, W)`` ids or ``(H, W, 3)`` RGB."""
        return self._loader(k)

    @property
    def is_thing(self) -> dict[Any, bool] | None:
        """``{category_id: isthing}`` from `categories`, or None when they were not given."""
        if self.categories is None:
            return None
        return {c["id"]: bool(c.get("isthing", 0)) for c in self.categories}


def _ids(value: Any, param: str, count: int | None = None) -> np.ndarray:
    array = np.asarray(value)
    if array.size == 0:
        array = array.astype(np.int64).reshape(0)
    if array.ndim != 1 or (count is not None and len(array) != count) or array.dtype.kind not in "iuU":
        expected = "a 1-D array of integer or string ids" + (f" of length {count}" if count is not None else "")
        raise _fail(param, expected, f"shape {array.shape}, dtype {array.dtype}")
    return array.astype(np.int64) if array.dtype.kind in "iu" else array


def _flags(value: Any, count: int) -> np.ndarray:
    if value is None:
        return np.zeros(count, dtype=bool)
    array = np.asarray(value)
    if array.shape != (count,) or not np.isin(array, (0, 1)).all():
        raise _fail("iscrowd", f"{count} flags, 0 or 1", value)
    return array.astype(bool)


def _positions(ids: np.ndarray, values: np.ndarray, param: str) -> np.ndarray:
    order = np.argsort(ids, kind="stable")
    found = np.minimum(np.searchsorted(ids[order], values), max(len(ids) - 1, 0))
    known = len(ids) > 0 and ids[order][found] == values
    if not np.all(known):
        bad = values[np.flatnonzero(~np.asarray(known, dtype=bool) | np.zeros(len(values), bool))[0]]
        raise _fail(param, "ids of the listed images", bad.item())
    return order[found].astype(np.int64)


def _first_bad(ids: np.ndarray) -> Any:
    if ids.dtype.kind == "U":
        return "string ids"
    return ids[(ids < 1) | (ids > MAX_SEGMENT_ID)][0].item()
