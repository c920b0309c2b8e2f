"""What panoptic quality reads of a part: every segment of both sides, and the areas their pairs share.

Two sources give the same table (`SegmentOverlaps`):

- **maps** (`maps_overlaps`, COCO panoptic PNGs or id arrays): one compiled pass per image counts
  the pixels of every (ground truth, prediction) pair of labels (`panoptic_loops`), as
  panopticapi's ``np.unique`` of the combined ids does; a prediction's void overlap is its pixels
  on ground-truth id 0. A ground truth's area is its ``area`` field when given (panopticapi reads
  the JSON's), else its pixels; a prediction's is its pixels.
- **regions** (`region_overlaps`, segments as masks, RLE or polygons in `Annotations`): the pairs
  of one image whose bounds meet are found by the detection engine's compiled sweep and measured by
  the exact kernels, so polygons give exact areas (vector PQ, no raster). A panoptic map's
  segments do not overlap, so a prediction's void overlap is its area less what the ground-truth
  segments of its image cover of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geoiou._validation import invalid_argument as _fail
from geoiou.grouped_overlaps import RowBlocks, pair_intersections
from geoiou.tables.annotations import Annotations
from geoiou.tables.panoptic import PanopticMaps

__all__ = ["SegmentOverlaps", "maps_overlaps", "region_overlaps"]


@dataclass(frozen=True)
class SegmentOverlaps:
    """The segments of a part's images and the areas their pairs share.

    Ground truths ``gt_*`` and predictions ``dt_*`` by row, images as codes into `image_ids`;
    pairs ``(pair_gt[k], pair_dt[k])`` of one image with ``pair_area[k] > 0``; ``dt_void`` each
    prediction's area on the ground truth's void.
    """

    image_ids: np.ndarray
    gt_image: np.ndarray
    gt_category: np.ndarray
    gt_crowd: np.ndarray
    gt_area: np.ndarray
    dt_image: np.ndarray
    dt_category: np.ndarray
    dt_area: np.ndarray
    dt_void: np.ndarray
    pair_gt: np.ndarray
    pair_dt: np.ndarray
    pair_area: np.ndarray


def maps_overlaps(truth: PanopticMaps, predicted: PanopticMaps) -> SegmentOverlaps:
    """The overlaps of the maps of every ground-truth image with its prediction's (panopticapi's ``pq_compute``).

    Raises
    ------
    InvalidArgumentError
        If a ground-truth image has no prediction, two maps of an image differ in size, or a
        predicted map and its segments disagree (an id in one and not the other).

    Examples
    --------
    >>> truth = PanopticMaps([1], [np.array([[1, 1, 0, 2]])], segment_image=[1, 1], segment_id=[1, 2],
    ...                      category_id=[5, 6])
    >>> predicted = PanopticMaps([1], [np.array([[3, 3, 3, 4]])], segment_image=[1, 1], segment_id=[3, 4],
    ...                          category_id=[5, 6])
    >>> found = maps_overlaps(truth, predicted)
    >>> found.pair_gt.tolist(), found.pair_dt.tolist(), found.pair_area.tolist(), found.dt_void.tolist()
    ([0, 1], [0, 1], [2.0, 1.0], [1.0, 0.0])
    """
    from geoiou.evaluation.panoptic_loops import count_label_pairs  # compiled: loaded on first use

    partner = _partners(truth.image_id, predicted.image_id)
    matrices = []
    for k, j in enumerate(partner.tolist()):
        gt_pixels, dt_pixels = _pixels(truth, k), _pixels(predicted, j)
        if gt_pixels.shape[:2] != dt_pixels.shape[:2]:
            raise _fail(
                "predictions",
                f"a map of the ground truth's size {gt_pixels.shape[:2]} for {truth.sources[k]}",
                f"{dt_pixels.shape[:2]} in {predicted.sources[j]}",
            )
        gt_ids = truth.segment_id[truth.segment_start[k] : truth.segment_start[k + 1]]
        dt_ids = predicted.segment_id[predicted.segment_start[j] : predicted.segment_start[j + 1]]
        counts = count_label_pairs(_flat(gt_pixels), _flat(dt_pixels), gt_ids, dt_ids)
        if counts[:, -1].any():
            raise _fail(
                "predictions",
                f"segments listed for every id in the map of {predicted.sources[j]}",
                f"the unlisted ids {_unlisted(dt_pixels, dt_ids)}",
            )
        matrices.append(counts)
    return _from_counts(truth, predicted, partner, matrices)


def _partners(truth_ids: np.ndarray, predicted_ids: np.ndarray) -> np.ndarray:
    """The prediction's position of each ground-truth image (predictions of other images are not read)."""
    order = np.argsort(predicted_ids, kind="stable")
    at = np.minimum(np.searchsorted(predicted_ids[order], truth_ids), max(len(order) - 1, 0))
    found = (predicted_ids[order][at] == truth_ids) if len(order) else np.zeros(len(truth_ids), bool)
    if not found.all():
        missing = truth_ids[np.flatnonzero(~found)[0]].item()
        raise _fail("predictions", "a prediction for every ground-truth image", f"none for image {missing!r}")
    return order[at].astype(np.int64)


def _pixels(maps: PanopticMaps, k: int) -> np.ndarray:
    pixels = maps.load(k)
    if not (pixels.ndim == 2 and pixels.dtype.kind in "iu") and not (
        pixels.ndim == 3 and pixels.shape[2] == 3 and pixels.dtype == np.uint8
    ):
        raise _fail(
            "maps", "(H, W) integer ids or (H, W, 3) uint8 RGB", f"{pixels.dtype} {pixels.shape} for {maps.sources[k]}"
        )
    return pixels


def _flat(pixels: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(pixels).reshape(pixels.shape[0] * pixels.shape[1], -1)


def _unlisted(pixels: np.ndarray, listed: np.ndarray) -> list[int]:
    flat = _flat(pixels).astype(np.int64)
    ids = np.unique(flat[:, 0] + 256 * flat[:, 1] + 65536 * flat[:, 2] if flat.shape[1] == 3 else flat[:, 0])
    return [int(i) for i in ids[(ids != 0) & ~np.isin(ids, listed)][:5]]


def _from_counts(
    truth: PanopticMaps, predicted: PanopticMaps, partner: np.ndarray, matrices: list[np.ndarray]
) -> SegmentOverlaps:
    """The table from each image's label counts, all images at once (labels 0 void, 1..n segments, n + 1 other)."""
    n_images = len(matrices)
    rows = np.array([m.shape[0] for m in matrices], dtype=np.int64)
    cols = np.array([m.shape[1] for m in matrices], dtype=np.int64)
    flat = np.concatenate([m.ravel() for m in matrices]) if matrices else np.zeros(0, np.int64)
    sizes = rows * cols
    image = np.repeat(np.arange(n_images), sizes)
    local = np.arange(len(flat)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    g, p = local // cols[image], local % cols[image]
    gt_segment = (g >= 1) & (g <= rows[image] - 2)
    dt_segment = (p >= 1) & (p <= cols[image] - 2)
    # Rows of the evaluated segments: the ground truth's all, the predictions' of the partner images, in order.
    dt_first = predicted.segment_start[partner]
    dt_count = np.diff(predicted.segment_start)[partner]
    dt_start = np.cumsum(dt_count) - dt_count
    gt_row = truth.segment_start[image] + g - 1
    dt_row = dt_start[image] + p - 1
    n_gt, n_dt = len(truth.segment_id), int(dt_count.sum())
    weights = flat.astype(np.float64)
    dt_area = np.bincount(dt_row[dt_segment], weights[dt_segment], minlength=n_dt)
    void = dt_segment & (g == 0)
    dt_void = np.bincount(dt_row[void], weights[void], minlength=n_dt)
    gt_pixels = np.bincount(gt_row[gt_segment], weights[gt_segment], minlength=n_gt)
    dt_source = np.repeat(dt_first - dt_start, dt_count) + np.arange(n_dt)  # rows in `predicted`
    _require_drawn(predicted, dt_area, dt_source, np.repeat(partner, dt_count))
    pair = gt_segment & dt_segment & (flat > 0)
    gt_image = np.repeat(np.arange(n_images), np.diff(truth.segment_start))
    return SegmentOverlaps(
        image_ids=truth.image_id,
        gt_image=gt_image,
        gt_category=truth.category_id,
        gt_crowd=truth.iscrowd,
        gt_area=gt_pixels if truth.area is None else truth.area,
        dt_image=np.repeat(np.arange(n_images), dt_count),
        dt_category=predicted.category_id[dt_source],
        dt_area=dt_area,
        dt_void=dt_void,
        pair_gt=gt_row[pair],
        pair_dt=dt_row[pair],
        pair_area=weights[pair],
    )


def _require_drawn(predicted: PanopticMaps, area: np.ndarray, source: np.ndarray, image: np.ndarray) -> None:
    """Refuse a listed prediction that no pixel of its map carries (panopticapi refuses it too)."""
    empty = np.flatnonzero(area == 0)
    if len(empty):
        k = int(empty[0])
        raise _fail(
            "predictions",
            "segments whose ids appear in their map",
            f"segment {int(predicted.segment_id[source[k]])} not in {predicted.sources[image[k]]}",
        )


def region_overlaps(truth: Annotations, predicted: Annotations, images: np.ndarray | None = None) -> SegmentOverlaps:
    """The overlaps of segments given as regions (masks, polygons), measured exactly, by image.

    `images` lists the evaluated images (default: the ground truth's); a prediction on another
    image is refused.

    Examples
    --------
    >>> import geoiou
    >>> truth = Annotations(image_id=[1, 1], category_id=[5, 6],
    ...                     region=geoiou.Polygon.from_rings([[(0, 0), (2, 0), (2, 2), (0, 2)],
    ...                                                       [(2, 0), (4, 0), (4, 2), (2, 2)]]))
    >>> predicted = Annotations(image_id=[1], category_id=[5], region=geoiou.Box([[0, 0, 3, 3]]))
    >>> found = region_overlaps(truth, predicted)
    >>> found.pair_gt.tolist(), found.pair_area.tolist(), found.dt_void.tolist()  # 9 - 4 - 2 on no segment
    ([0, 1], [4.0, 2.0], [3.0])
    """
    from geoiou.evaluation.protocol_loops import GroupCandidates  # compiled: loaded on first use

    image_ids = np.unique(truth.image_id if images is None else np.asarray(images))
    gt_image, dt_image = _codes(image_ids, truth.image_id, "ground_truth"), _codes(image_ids, predicted.image_id)
    gt_rows, dt_rows = RowBlocks(list(truth.regions)), RowBlocks(list(predicted.regions))
    gt_order, dt_order = np.argsort(gt_image, kind="stable"), np.argsort(dt_image, kind="stable")
    found = GroupCandidates(
        dt_rows.bounds()[dt_order], dt_image[dt_order], gt_rows.bounds()[gt_order], gt_image[gt_order]
    )
    dt, gt = found.of_predictions(0, len(dt_order))
    dt, gt = dt_order[dt], gt_order[gt]
    shared = pair_intersections(gt_rows, dt_rows, gt, dt)
    keep = shared > 0
    gt, dt, shared = gt[keep], dt[keep], shared[keep]
    dt_area = dt_rows.areas()
    covered = np.bincount(dt, shared, minlength=len(dt_area))
    _require_apart(covered, dt_area, predicted, image_ids[dt_image] if len(dt_image) else dt_image)
    flags = truth.iscrowd if truth.iscrowd is not None else np.zeros(len(gt_image), bool)
    return SegmentOverlaps(
        image_ids=image_ids,
        gt_image=gt_image,
        gt_category=np.asarray(truth.category_id),
        gt_crowd=np.asarray(flags, dtype=bool),
        gt_area=gt_rows.areas(),
        dt_image=dt_image,
        dt_category=np.asarray(predicted.category_id),
        dt_area=dt_area,
        dt_void=np.maximum(dt_area - covered, 0.0),
        pair_gt=gt,
        pair_dt=dt,
        pair_area=shared,
    )


def _codes(image_ids: np.ndarray, values: np.ndarray, side: str = "predictions") -> np.ndarray:
    at = np.minimum(np.searchsorted(image_ids, values), max(len(image_ids) - 1, 0))
    known = image_ids[at] == values if len(image_ids) else np.zeros(len(values), bool)
    if not known.all():
        bad = values[np.flatnonzero(~known)[0]].item()
        raise _fail(f"{side}.image_id", "one of the evaluated images (list them in 'images')", bad)
    return at.astype(np.int64)


def _require_apart(covered: np.ndarray, area: np.ndarray, predicted: Annotations, image: np.ndarray) -> None:
    """Refuse ground-truth segments that overlap: they would cover more of a prediction than it has."""
    over = np.flatnonzero(covered > area * (1 + 1e-9) + 1e-12)
    if len(over):
        k = int(over[0])
        raise _fail(
            "ground_truth",
            "segments that do not overlap (a panoptic map)",
            f"segments of image {image[k].item()!r} covering {covered[k]:g} of prediction row {k} (area {area[k]:g})",
        )
