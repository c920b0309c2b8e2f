"""The compiled core of geoiou (the Rust crate of ``Cargo.toml``, built into ``geoiou._core``).

Every function releases the GIL while it runs and uses the pool sized by `set_threads`. Arrays are
NumPy arrays of the dtype named (float64 unless said otherwise), C-contiguous; a kernel writes its
results into ``out`` (one value per pair). The sections follow the crate's modules.
"""

from typing import final

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

# --------------------------------------------------------------------------- threads (src/threads.rs)
def set_threads(n: int) -> None:
    """Limit the crate's loops to `n` threads (0: every core the process may use)."""

def available_threads() -> int:
    """The cores this process may use (its affinity and quota included)."""

def split_every_loop_for_tests(on: bool) -> None:
    """Cut every loop into chunks of one item on the pool whatever its size (`on`): the tests of identical bits."""

# --------------------------------------------------------------------------- pairs and formulas (src/pairs.rs)
@final
class Pairs:
    """Which pairs a kernel measures: lists ``(index_a[k], index_b[k])``, or every ``(index_a[r], index_b[c])``."""

    index_a: I64
    index_b: I64
    outer: bool
    def __init__(self, index_a: I64, index_b: I64, outer: bool = False) -> None: ...
    def __len__(self) -> int: ...
    def rows(self) -> int:
        """The iterations of a kernel's outer loop: a row of the matrix, or one pair of the lists."""
    def lists(self) -> tuple[I64, I64]:
        """The pairs as two index lists, one entry per pair."""

@final
class Formula:
    """What a kernel writes for each pair: `code` over its measure, the regions' areas, `given` per pair (GIoU)."""

    code: int
    areas_a: F64
    areas_b: F64
    given: F64
    zero_division: float
    def __init__(self, code: int, areas_a: F64, areas_b: F64, given: F64, zero_division: float = 0.0) -> None: ...

# --------------------------------------------------------------------------- formulas (src/formulas.rs)
def apply_to_measures(measures: F64, pairs: Pairs, formula: Formula, out: F64) -> None:
    """Write `formula` of the measures a kernel computed for `pairs` (one per pair) into `out`."""

def ratios(numerator: F64, denominator: F64, zero_division: float) -> F64:
    """``numerator / denominator`` elementwise, `zero_division` where the denominator is 0."""

def subtract_centre_penalties(
    centroids_a: F64, centroids_b: F64, bounds_a: F64, bounds_b: F64, pairs: Pairs, out: F64
) -> None:
    """Subtract DIoU's ``d² / c²`` of each pair from `out` (its IoU): centroids ``(n, d)``, bounds ``(n, 2d)``."""

def complete_ious(
    centroids_a: F64,
    centroids_b: F64,
    bounds_a: F64,
    bounds_b: F64,
    aspects_a: F64,
    aspects_b: F64,
    pairs: Pairs,
    out: F64,
) -> None:
    """Turn the IoU of each pair in `out` into CIoU, from the boxes' aspect angles ``atan2(w, h)``."""

# --------------------------------------------------------------------------- aligned boxes (src/aligned.rs)
def aligned_pairs(bounds_a: F64, bounds_b: F64, enclosing_box: bool, pairs: Pairs, formula: Formula, out: F64) -> None:
    """`formula` of the intersection (`enclosing_box`: the enclosing box) of each pair of bounds ``(n, 2·ndim)``."""

def signed_ious(bounds_a: F64, bounds_b: F64, pairs: Pairs, zero_division: float, out: F64) -> None:
    """Signed IoU (Simonelli et al. 2019) of each pair of bounds ``(n, 2·ndim)`` into `out`."""

def aligned_single(
    bounds_a: F64, bounds_b: F64, code: int, area_a: float, area_b: float, zero_division: float
) -> float:
    """The formula `code` of two single regions' bounds and areas (GIoU's box enclosure measured too)."""

# --------------------------------------------------------------------------- rotated boxes (src/rotated.rs)
# (the rotated-box kernels' entries)

# --------------------------------------------------------------------------- polygons (src/polygon.rs)
# (the polygon kernels' entries)

# --------------------------------------------------------------------------- GIoU hulls (src/hull.rs)
# (the hull kernel's entries)

# --------------------------------------------------------------------------- masks (src/mask.rs)
# (the mask kernels' and mask regions' entries)

# --------------------------------------------------------------------------- 3-D boxes (src/boxes3d.rs)
# (the 3-D kernels' entries)

# --------------------------------------------------------------------------- candidates (src/candidates.rs)
@final
class CandidateSearch:
    """The two sides' bounds ``(ndim, n)`` (lower and upper, `b` in the search's order) and `b`'s blocks."""

    def __init__(
        self,
        low_a: F64,
        high_a: F64,
        low_b: F64,
        high_b: F64,
        reach: F64,
        block_starts: I64,
        first_block: I64,
        stop_block: I64,
        order_b: I64,
    ) -> None: ...
    def counts(self, rows: I64) -> I64:
        """The number of candidate pairs of each of `rows` (indices of `a`), in their order."""
    def fill(self, rows: I64, counts: I64, sort_b: bool, index_a: I64, index_b: I64) -> None:
        """Write the pairs of `rows` (``counts`` each) into `index_a`, `index_b`, by row; `sort_b`: by index_b."""

def stable_by_code(order: I64, codes: I64, count: int) -> I64:
    """`order` rearranged by ``codes[order]`` (``0 <= code < count``), stably: a counting sort."""

def block_maxima(values: F64, block_starts: I64) -> F64:
    """The largest of `values` in each block ``block_starts[k] <= p < block_starts[k + 1]`` (-inf if empty)."""

def running_reach(high_x: F64, sorted_codes: I64) -> F64:
    """The running maximum of `high_x`, restarted where the code changes."""

def insertion_points(values: F64, keys: F64, after_equal: bool) -> I64:
    """``np.searchsorted(values, keys, side="right" if after_equal else "left")``, a NaN key after every value."""

def scatter(matrix: NDArray[np.float64] | NDArray[np.float32], index_a: I64, index_b: I64, values: F64) -> None:
    """``matrix[index_a[k], index_b[k]] = values[k]`` for every k (a float64 or float32 matrix)."""

# --------------------------------------------------------------------------- box checks (src/box_checks.rs)
def accepted_corners(boxes: F64, fmt: str, largest: float, smallest: float, xyxy: F64 | None, size: F64) -> bool:
    """Write the corners (None for "xyxy": the boxes are their corners) and sides of `boxes` as `fmt`; False if
    `Box` would refuse any of them (the outputs are then not to be used)."""

# --------------------------------------------------------------------------- rings (src/rings.rs)
# (the ring checks' and exterior hulls' entries)

# --------------------------------------------------------------------------- rasterizer (src/raster.rs)
# (the rasterizer's entries)
