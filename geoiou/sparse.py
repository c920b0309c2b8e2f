"""Sparse overlaps: the pairs of two large sets that intersect, without a dense matrix."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from geoiou._progress import progress_steps
from geoiou._validation import not_a_region
from geoiou.dispatch import find_kernel
from geoiou.errors import InvalidArgumentError
from geoiou.metrics import iou_of_pairs
from geoiou.regions import Region

__all__ = ["Overlaps", "overlaps"]

#: Candidate pairs measured per step (a kernel call): enough work for every core, 2 MB per array.
CANDIDATE_CHUNK = 1 << 18


@dataclass(frozen=True)
class Overlaps:
    """Pairs ``(index_a[k], index_b[k])`` of two batches and their IoU ``iou[k]``, sorted by ``(index_a, index_b)``."""

    index_a: np.ndarray
    index_b: np.ndarray
    iou: np.ndarray
    shape: tuple[int, int]

    def __len__(self) -> int:
        return len(self.iou)

    def to_dense(self, fill: float = 0.0) -> np.ndarray:
        """Return the ``(N, M)`` matrix with the listed IoUs and `fill` elsewhere."""
        dense = np.full(self.shape, fill)
        dense[self.index_a, self.index_b] = self.iou
        return dense


def overlaps(a: Region, b: Region, *, min_iou: float = 0.0, progress: bool = False) -> Overlaps:
    """Return the pairs of `a` × `b` that intersect (with positive measure) and have IoU >= `min_iou`.

    Candidate pairs come from a compiled search over the bounds (strips by y, a sweep by x), so the
    cost follows the number of pairs that can overlap, not ``N × M``: two sets of 100,000 sparse
    boxes take a fraction of a second, where a dense matrix would need 80 GB.

    Parameters
    ----------
    a, b : Region
        Batches of shape ``(N,)`` and ``(M,)`` of any kinds that `iou` accepts.
    min_iou : float, default 0.0
        Keep pairs with IoU at least this; with 0.0 every pair that shares area is kept.
    progress : bool, default False
        Show a progress bar (tqdm, on stderr) over the candidate pairs: for large sets.

    Returns
    -------
    Overlaps
        Index arrays into `a` and `b` and the IoU of each pair, sorted by ``(index_a, index_b)``.

    Examples
    --------
    >>> import geoiou
    >>> boxes = geoiou.Box([[0, 0, 2, 2], [1, 1, 3, 3], [10, 10, 11, 11]])
    >>> found = geoiou.overlaps(boxes, boxes)
    >>> found.index_a, found.index_b
    (array([0, 0, 1, 1, 2]), array([0, 1, 0, 1, 2]))
    """
    if not isinstance(min_iou, (int, float)) or math.isnan(min_iou) or not 0 <= min_iou <= 1:
        raise InvalidArgumentError(f"'min_iou' must be a number in [0, 1] (got {min_iou!r})")
    for name, region in (("a", a), ("b", b)):
        if not isinstance(region, Region):
            raise not_a_region(name, region)
        if len(region.shape) != 1:
            raise InvalidArgumentError(
                f"{name!r} must be a 1-D batch of regions, shape (N,) "
                f"(got {getattr(region, 'shape', type(region).__name__)})"
            )
    find_kernel(type(a), type(b))  # refuse an unsupported pair before comparing bounds
    index_a, index_b = _candidate_pairs(a, b)
    values = np.empty(len(index_a))
    starts = range(0, len(index_a), CANDIDATE_CHUNK)
    for start in progress_steps(starts, enabled=progress, rows=len(index_a), label="overlaps", unit="pair"):
        part = slice(start, start + CANDIDATE_CHUNK)
        values[part] = iou_of_pairs(a, b, index_a[part], index_b[part])
    keep = (values > 0) & (values >= min_iou)
    return Overlaps(index_a[keep], index_b[keep], values[keep], (a.size, b.size))


def _candidate_pairs(a: Region, b: Region) -> tuple[np.ndarray, np.ndarray]:
    """Pairs whose bounds overlap with positive measure, sorted by ``(index_a, index_b)``.

    The compiled search (`geoiou.kernels.candidates`) prunes both axes of planar sets (strips by y,
    a sweep by x in each), rows on every core.
    """
    from geoiou.kernels.candidates import candidate_pairs  # the kernels load on first use, not at `import geoiou`

    width = 2 * a.ndim
    return candidate_pairs(a.bounds.reshape(a.size, width), b.bounds.reshape(b.size, width), sort_b=True)


def _planar_bounds(region: Region) -> np.ndarray:
    """Bounds as ``(xmin, ymin, xmax, ymax)``; intervals become boxes of height 1, 3-D regions their bounds seen
    from above (for `geoiou.dask`'s grid of cells in the plane).

    Empty regions have NaN bounds.
    """
    bounds = region.bounds.reshape(region.size, 2 * region.ndim)
    if region.ndim == 1:
        bounds = np.column_stack([bounds[:, 0], np.zeros(len(bounds)), bounds[:, 1], np.ones(len(bounds))])
    elif region.ndim == 3:
        bounds = bounds[:, [0, 1, 3, 4]]
    return bounds
