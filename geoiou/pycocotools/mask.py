"""``pycocotools.mask`` on geoiou's RLE codec: the same functions, the same RLE strings byte for byte.

``encode``, ``decode``, ``area``, ``toBbox``, ``iou``, ``merge`` and ``frPyObjects`` take and give
what pycocotools' take and give: ``{"size": [h, w], "counts": bytes}`` dicts, ``uint8`` masks in
Fortran order, ``uint32`` areas, ``float64`` boxes ``[x, y, w, h]`` and IoU matrices ``(m, n)`` in
Fortran order (``[]`` when a side is empty). The strings are those pycocotools writes (its
polygon rasterizer is `geoiou.rle_rasterize`'s port).

Differences: inputs pycocotools refuses are taken where their meaning is plain (masks of any
memory order and of bool or 0/1 numbers, uncompressed RLE counts wherever an RLE is read, a
bounding-box list in ``frPyObjects``); malformed input raises a `geoiou.errors` class that
subclasses the builtin pycocotools raises there, with a message naming what was wrong.

Examples
--------
>>> import numpy as np
>>> from geoiou.pycocotools import mask
>>> pixels = np.zeros((5, 6), dtype=np.uint8)
>>> pixels[1:3, 2:5] = 1
>>> rle = mask.encode(np.asfortranarray(pixels))
>>> rle
{'size': [5, 6], 'counts': b';230004'}
>>> int(mask.area(rle)), mask.toBbox(rle).tolist()
(6, [2.0, 1.0, 3.0, 2.0])
>>> mask.iou([rle], [rle], [0])
array([[1.]])
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from geoiou import rle as coco_rle
from geoiou._validation import invalid_argument
from geoiou.errors import InvalidTypeError, MismatchError
from geoiou.evaluation.overlaps import region_pairs
from geoiou.regions import Box, Mask, Region
from geoiou.pycocotools.tables import detection_regions
from geoiou.rle_rasterize import coco_compat_parts_runs

__all__ = ["area", "decode", "encode", "frPyObjects", "iou", "merge", "toBbox"]

RLE = dict[str, Any]
#: What pycocotools' merge returns for no RLE or RLEs of different sizes.
_EMPTY_RLE_SIZE = [0, 0]


def encode(bimask: np.ndarray) -> RLE | list[RLE]:
    """Encode a binary mask ``(h, w)`` as one compressed RLE, or masks ``(h, w, n)`` as a list of them.

    Examples
    --------
    >>> import numpy as np
    >>> encode(np.eye(3, dtype=np.uint8))
    {'size': [3, 3], 'counts': b'013000'}
    >>> encode(np.zeros((2, 2, 2), dtype=np.uint8))
    [{'size': [2, 2], 'counts': b'4'}, {'size': [2, 2], 'counts': b'4'}]
    """
    array = np.asarray(bimask)
    if array.ndim == 2:
        return coco_rle.encode(array)
    if array.ndim == 3:
        return coco_rle.encode_batch(np.moveaxis(array, 2, 0))
    raise invalid_argument("bimask", "a binary mask (h, w) or masks (h, w, n)", f"shape {array.shape}")


def decode(rleObjs: RLE | Sequence[RLE]) -> np.ndarray:  # noqa: N803 - pycocotools' name
    """Decode one RLE into ``(h, w)`` or a list of RLEs of one size into ``(h, w, n)``; uint8, Fortran order.

    Examples
    --------
    >>> decode({"size": [2, 3], "counts": b"231"})
    array([[0, 1, 1],
           [0, 1, 0]], dtype=uint8)
    >>> decode([{"size": [1, 2], "counts": b"02"}]).shape
    (1, 2, 1)
    """
    if isinstance(rleObjs, dict):
        return np.asfortranarray(coco_rle.decode(rleObjs).astype(np.uint8))
    stacked = coco_rle.decode_batch(_rle_list(rleObjs, "rleObjs"))
    return np.asfortranarray(np.moveaxis(stacked, 0, 2).astype(np.uint8))


def area(rleObjs: RLE | Sequence[RLE]) -> np.uint32 | np.ndarray:  # noqa: N803 - pycocotools' name
    """The true pixels of one RLE (a ``uint32``) or of each RLE of a list (a ``uint32`` array).

    Examples
    --------
    >>> area({"size": [2, 3], "counts": b"231"}), area([{"size": [2, 2], "counts": b"4"}])
    (np.uint32(3), array([0], dtype=uint32))
    """
    if isinstance(rleObjs, dict):
        one: np.uint32 = np.uint32(int(coco_rle.to_runs(rleObjs).pixel_counts()[0]))
        return one
    areas: np.ndarray = coco_rle.to_runs(_rle_list(rleObjs, "rleObjs")).pixel_counts().astype(np.uint32)
    return areas


def toBbox(rleObjs: RLE | Sequence[RLE]) -> np.ndarray:  # noqa: N802, N803 - pycocotools' names
    """The bounding box ``[x, y, w, h]`` of one RLE, or ``(n, 4)`` of a list, as pycocotools computes it.

    Examples
    --------
    >>> toBbox({"size": [2, 3], "counts": b"231"}).tolist()
    [1.0, 0.0, 2.0, 2.0]
    >>> toBbox([{"size": [2, 2], "counts": b"4"}]).tolist()  # no true pixel
    [[0.0, 0.0, 0.0, 0.0]]
    """
    single = isinstance(rleObjs, dict)
    rles: list[RLE] = [rleObjs] if isinstance(rleObjs, dict) else _rle_list(rleObjs, "rleObjs")
    coco_rle.to_runs(rles)  # validates the RLEs (sizes, counts) with messages naming the faulty one
    boxes = counts_bboxes([raw_counts(rle) for rle in rles], np.array([rle["size"] for rle in rles]))
    return boxes[0] if single else boxes


def raw_counts(rle: RLE) -> np.ndarray:
    """The run lengths of an RLE as written (compressed strings decompressed), empty runs included.

    Examples
    --------
    >>> raw_counts({"size": [2, 3], "counts": b"231"}), raw_counts({"size": [1, 3], "counts": [1, 0, 2]})
    (array([2, 3, 1]), array([1, 0, 2]))
    """
    counts = rle["counts"]
    if isinstance(counts, (bytes, str)):
        return coco_rle.decompress(counts)
    return np.asarray(counts, dtype=np.int64).reshape(-1)


def iou(dt: Any, gt: Any, pyiscrowd: Sequence[Any]) -> np.ndarray | list[Any]:
    """IoU of every (dt, gt) pair: ``(m, n)``, Fortran order, ``[]`` when a side is empty.

    `dt` and `gt` are both lists of RLEs, or both boxes ``[x, y, w, h]`` (a list of lists or an
    ``(n, 4)`` array). A crowd ground truth (``pyiscrowd[j]`` true) is compared by intersection
    over the dt's own area. RLEs of different sizes give -1 where their boxes overlap.

    The values are `evaluate_coco`'s overlaps (the kernels' intersections): boxes keep their sides
    as written and masks are held as COCO runs, so the arithmetic is pycocotools' (``w * h`` areas,
    integer pixel counts, ``i / (a + b - i)``) and so are the bits.

    Examples
    --------
    >>> iou([[0, 0, 2, 2]], [[1, 1, 2, 2], [0, 0, 1, 1]], [0, 1])  # 1/7; the crowd one: 1 of the dt's 4
    array([[0.14285714, 0.25      ]])
    >>> iou([], [[0, 0, 1, 1]], [0])
    []
    """
    dt_kind, gt_kind = _iou_kind(dt, "dt"), _iou_kind(gt, "gt")
    if dt_kind != gt_kind and len(dt) and len(gt):
        raise InvalidTypeError(
            f"'dt' and 'gt' must be of one type, both lists of RLEs or both boxes (got {dt_kind} and {gt_kind})"
        )
    m, n = len(dt), len(gt)
    if m == 0 or n == 0:
        return []
    crowd = np.asarray(pyiscrowd, dtype=np.uint8).reshape(-1).astype(bool)
    if len(crowd) != n:
        raise MismatchError(f"'pyiscrowd' must have one flag per gt, {n} (got {len(crowd)})")
    if dt_kind == "boxes":
        return np.asfortranarray(_overlaps(Box(_boxes(dt, "dt"), fmt="xywh"), Box(_boxes(gt, "gt"), fmt="xywh"), crowd))
    values = _overlaps(Mask.from_rle(list(dt)), Mask.from_rle(list(gt)), crowd)
    # pycocotools compares masks of one size only: -1 where masks of two sizes have boxes (its toBbox) that meet.
    dt_sizes, gt_sizes = np.array([r["size"] for r in dt]), np.array([r["size"] for r in gt])
    mismatched = (dt_sizes[:, None, :] != gt_sizes[None, :, :]).any(axis=2)
    if mismatched.any():
        boxes_meet = _overlaps(Box(toBbox(list(dt)), fmt="xywh"), Box(toBbox(list(gt)), fmt="xywh"), crowd) > 0
        values[mismatched] = np.where(boxes_meet[mismatched], -1.0, 0.0)
    return np.asfortranarray(values)


def _overlaps(dt: Region, gt: Region, crowd: np.ndarray) -> np.ndarray:
    """IoU of every pair, IoF (over the dt) against crowd ground truths: `evaluate_coco`'s pair source, whose
    arithmetic is pycocotools' (`geoiou.pairwise_iou` caps an intersection at the areas, which pycocotools' corner
    arithmetic can exceed by a rounding); pairs whose bounds do not meet share nothing and are 0."""
    m, n = len(dt), len(gt)
    source = region_pairs(detection_regions([dt], np.zeros(m, np.int64), "dt"),
                          detection_regions([gt], np.zeros(n, np.int64), "gt"))  # fmt: skip
    found = source(np.arange(m), np.arange(n), np.zeros(m, np.int64), np.zeros(n, np.int64), crowd, -np.inf)
    values = np.zeros((m, n))
    values[np.repeat(np.arange(m), np.diff(found.pair_start)), found.pair_gt] = found.value
    return values


def _iou_kind(value: Any, param: str) -> str:
    if isinstance(value, np.ndarray):
        return "boxes"
    if isinstance(value, (list, tuple)):
        if len(value) and isinstance(value[0], dict):
            return "RLEs"
        return "boxes"
    raise InvalidTypeError(f"{param!r} must be a list of RLEs, a list of boxes or an (n, 4) array (got {value!r})")


def _boxes(value: Any, param: str) -> np.ndarray:
    boxes = np.asarray(value, dtype=np.float64)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise invalid_argument(param, "boxes [x, y, w, h], shape (n, 4)", f"shape {boxes.shape}")
    return boxes


def merge(rleObjs: Sequence[RLE], intersect: bool | int = False) -> RLE:  # noqa: N803 - pycocotools' name
    """One RLE of the union (or with `intersect`, the intersection) of RLEs of one size.

    As pycocotools, a single RLE is returned as it was written, and no RLE, or RLEs of different
    sizes, give the empty RLE ``{"size": [0, 0], "counts": b""}``.

    Examples
    --------
    >>> a, b = {"size": [2, 2], "counts": b"13"}, {"size": [2, 2], "counts": b"211"}
    >>> merge([a, b]), merge([a, b], intersect=True)
    ({'size': [2, 2], 'counts': b'13'}, {'size': [2, 2], 'counts': b'211'})
    """
    rles = _rle_list(rleObjs, "rleObjs")
    runs = coco_rle.to_runs(rles)
    if len(rles) == 0 or (runs.sizes != runs.sizes[0]).any():
        return {"size": list(_EMPTY_RLE_SIZE), "counts": b""}
    size = [int(n) for n in runs.sizes[0]]
    if len(rles) == 1:
        return {"size": size, "counts": coco_rle.compress(raw_counts(rles[0]))}
    return {"size": size, "counts": coco_rle.compress_runs(_merged(runs, bool(intersect)), [0])[0]}


def _merged(runs: coco_rle.Runs, intersect: bool) -> coco_rle.Runs:
    """The runs of the union (or intersection) of all masks of `runs`, as one mask."""
    positions = np.concatenate([runs.starts, runs.stops])
    steps = np.concatenate([np.ones(len(runs.starts), np.int64), -np.ones(len(runs.stops), np.int64)])
    order = np.argsort(positions, kind="stable")
    positions, depth = positions[order], np.cumsum(steps[order])
    # One entry per distinct position: the depth after every run starting or stopping there.
    last = np.r_[positions[1:] != positions[:-1], True][: len(positions)]
    positions, depth = positions[last], depth[last]
    inside = depth >= (len(runs.sizes) if intersect else 1)
    change = np.flatnonzero(inside != np.r_[False, inside[:-1]])
    boundaries = positions[change]
    starts, stops = boundaries[0::2], boundaries[1::2]
    return coco_rle.Runs(runs.sizes[:1], starts, stops, np.array([0, len(starts)], dtype=np.int64))


def frPyObjects(pyobj: Any, h: int, w: int) -> RLE | list[RLE]:  # noqa: N802 - pycocotools' name
    """RLEs of polygons, boxes or uncompressed RLEs on an ``h x w`` image, as pycocotools rasterizes them.

    A list of polygons (flat ``[x1, y1, x2, y2, ...]``) gives one RLE per polygon; boxes
    (an ``(n, 4)`` array or a list of ``[x, y, w, h]``) one per box, rasterized as their polygon;
    uncompressed RLE dicts their compressed form. A single polygon, box or RLE dict gives one RLE.
    As in pycocotools, a list is read as boxes when its first item has 4 numbers.

    Examples
    --------
    >>> frPyObjects([[1, 1, 4, 1, 4, 3, 1, 3]], 5, 6)
    [{'size': [5, 6], 'counts': b'6230009'}]
    >>> frPyObjects({"size": [5, 6], "counts": [7, 2, 3, 2, 3, 2, 11]}, 5, 6)
    {'size': [5, 6], 'counts': b'7230008'}
    """
    if isinstance(pyobj, dict):
        return _recompressed([pyobj])[0]
    if isinstance(pyobj, np.ndarray):
        return _rasterized([_box_ring(box) for box in _boxes(pyobj, "pyobj")], h, w)
    if not isinstance(pyobj, (list, tuple)) or not len(pyobj):
        raise InvalidTypeError(f"'pyobj' must be polygons, boxes or RLE dicts (got {pyobj!r})")
    first = pyobj[0]
    if isinstance(first, dict):
        return _recompressed(list(pyobj))
    if np.ndim(first) == 0:  # one object, written flat
        return frPyObjects([pyobj], h, w)[0]  # type: ignore[index]
    if len(first) == 4:
        return _rasterized([_box_ring(box) for box in _boxes(pyobj, "pyobj")], h, w)
    return _rasterized([np.asarray(ring, dtype=np.float64) for ring in pyobj], h, w)


def _box_ring(box: np.ndarray) -> np.ndarray:
    """The box ``[x, y, w, h]`` as the polygon pycocotools' ``rleFrBbox`` rasterizes."""
    x, y, width, height = box
    return np.array([x, y, x, y + height, x + width, y + height, x + width, y])


def _rasterized(rings: list[np.ndarray], h: int, w: int) -> list[RLE]:
    """One compressed RLE per flat ring, each rasterized alone by pycocotools' scan conversion."""
    vertices = [ring[: len(ring) // 2 * 2].reshape(-1, 2) for ring in rings]
    lengths = np.array([len(v) for v in vertices], dtype=np.int64)
    sizes = np.tile([int(h), int(w)], (len(rings), 1))
    runs = coco_compat_parts_runs(
        np.concatenate(vertices) if vertices else np.zeros((0, 2)), lengths, np.ones(len(rings), np.int64), sizes
    )
    strings = coco_rle.compress_runs(runs, np.arange(len(rings)))
    return [{"size": [int(h), int(w)], "counts": string} for string in strings]


def _recompressed(rles: list[RLE]) -> list[RLE]:
    """The RLEs with their counts compressed as written (uncompressed counts are not made canonical first)."""
    coco_rle.to_runs(rles)  # validates them, naming the faulty one
    return [{"size": [int(n) for n in rle["size"]], "counts": coco_rle.compress(raw_counts(rle))} for rle in rles]


def _rle_list(value: Any, param: str) -> list[RLE]:
    if isinstance(value, (list, tuple)):
        return list(value)
    raise InvalidTypeError(f"{param!r} must be an RLE dict or a list of them (got {type(value).__name__})")


def counts_bboxes(counts: list[np.ndarray], sizes: np.ndarray) -> np.ndarray:
    """pycocotools' ``rleToBbox`` of uncompressed counts: ``(n, 4)`` float64 ``[x, y, w, h]``, quirks included.

    The box of the true pixels (a run that goes on into a later column covers whole columns, so
    the box then spans the full height); zeros for fewer than two counts. Counts that hold no true
    pixel give what pycocotools' unsigned arithmetic gives: ``[w, h, (1 - w) % 2**32, (1 - h) % 2**32]``.

    Examples
    --------
    >>> counts_bboxes([np.array([7, 2, 3, 2, 3, 2, 11]), np.array([30]), np.array([1, 0, 29])],
    ...               np.array([[5, 6], [5, 6], [5, 6]]))
    array([[1.00000000e+00, 2.00000000e+00, 3.00000000e+00, 2.00000000e+00],
           [0.00000000e+00, 0.00000000e+00, 0.00000000e+00, 0.00000000e+00],
           [6.00000000e+00, 5.00000000e+00, 4.29496729e+09, 4.29496729e+09]])
    """
    sizes = np.asarray(sizes, dtype=np.int64).reshape(-1, 2)
    result = np.zeros((len(counts), 4))
    lengths = np.array([len(c) // 2 * 2 for c in counts], dtype=np.int64)
    if not lengths.any():
        return result
    kept = np.concatenate([np.asarray(c, dtype=np.int64)[:n] for c, n in zip(counts, lengths)])
    owner = np.repeat(np.arange(len(counts)), lengths)
    has = lengths > 0
    before = np.zeros(len(counts), dtype=np.int64)  # the counts of the RLEs before each one, summed
    before[has] = (np.cumsum(kept) - kept)[(np.cumsum(lengths) - lengths)[has]]
    first = np.cumsum(kept) - kept - np.repeat(before, lengths)  # the pixel where each run starts
    true_run = (np.arange(len(kept)) - np.repeat(np.cumsum(lengths) - lengths, lengths)) % 2 == 1
    true_run &= kept > 0  # empty true runs mark no pixel
    run_owner, run_start = owner[true_run], first[true_run]
    run_end = run_start + kept[true_run] - 1
    height = sizes[run_owner, 0]
    x_start, x_end = run_start // height, run_end // height
    y = np.concatenate([run_start % height, run_end % height])
    low_x, high_x = _reduce_by(np.concatenate([x_start, x_end]), np.tile(run_owner, 2), len(counts))
    low_y, high_y = _reduce_by(y, np.tile(run_owner, 2), len(counts))
    # A true run whose last pixel is in a later column than its first covers whole columns.
    spans = np.zeros(len(counts), dtype=bool)
    np.logical_or.at(spans, run_owner, x_end > x_start)
    low_y = np.where(spans, 0, low_y)
    high_y = np.where(spans, sizes[:, 0] - 1, high_y)
    found = np.zeros(len(counts), dtype=bool)
    found[run_owner] = True
    boxes = np.column_stack([low_x, low_y, high_x - low_x + 1, high_y - low_y + 1]).astype(np.float64)
    # No true pixel: pycocotools' start values (w, h) with unsigned sizes 0 - start + 1.
    unsigned = np.column_stack([sizes[:, 1], sizes[:, 0], (1 - sizes[:, 1]) % 2**32, (1 - sizes[:, 0]) % 2**32])
    result[has] = np.where(found[:, None], boxes, unsigned.astype(np.float64))[has]
    return result


def _reduce_by(values: np.ndarray, owner: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Minimum and maximum of `values` per owner (0 for owners without values)."""
    low = np.full(n, np.iinfo(np.int64).max)
    high = np.full(n, np.iinfo(np.int64).min)
    np.minimum.at(low, owner, values)
    np.maximum.at(high, owner, values)
    return np.where(high >= low, low, 0), np.where(high >= low, high, 0)
