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

# --------------------------------------------------------------------------- aligned boxes (src/aligned.rs)
def aligned_pairs(bounds_a: F64, bounds_b: F64, enclosing_box: bool, pairs: Pairs, formula: Formula, out: F64) -> None:
    """`formula` of the intersection (`enclosing_box`: the enclosing box) of each pair of bounds ``(n, 2·ndim)``."""

def aligned_single(
    bounds_a: F64, bounds_b: F64, code: int, area_a: float, area_b: float, zero_division: float
) -> float:
    """The formula `code` of two single regions' bounds and areas (GIoU's box enclosure measured too)."""

# --------------------------------------------------------------------------- rotated boxes (src/rotated.rs)
# (the rotated-box kernels' entries)

# --------------------------------------------------------------------------- polygons (src/polygon.rs)
# (the polygon kernels' entries)

# --------------------------------------------------------------------------- GIoU hulls (src/hull.rs)
#: One side of a hull pass: its hulls' tables (vertices, frames, slots, guesses of `hull_tables`) and each
#: region's hull (int64).
HullSide = tuple[F64, F64, I64, NDArray[np.int32], I64]

def hull_tables(coords: F64, offsets: I64) -> tuple[F64, F64, I64, NDArray[np.int32]]:
    """The kernel's tables of the hulls ``coords[offsets[k]:offsets[k + 1]]``: vertices, frames, slots, guesses."""

def hull_pairs(side_a: HullSide, side_b: HullSide, pairs: Pairs, formula: Formula, out: F64) -> None:
    """`formula` of the area of the convex hull of each pair, region i of a side being its hull ``rows[i]``."""

def hull_walked(
    vertices_a: F64, slot_a: tuple[int, int], vertices_b: F64, slot_b: tuple[int, int], t: tuple[float, float]
) -> float:
    """Twice the hull's area of two hulls ``(start, count)`` by the walk alone (the tests), b's centre at `t`."""

# --------------------------------------------------------------------------- masks (src/mask.rs)
# (the mask kernels' and mask regions' entries)

# --------------------------------------------------------------------------- 3-D boxes (src/boxes3d.rs)
# (the 3-D kernels' entries)

# --------------------------------------------------------------------------- candidates (src/candidates.rs)
# (the candidate search's entries)

# --------------------------------------------------------------------------- box checks (src/box_checks.rs)
# (the box checks' entries)

# --------------------------------------------------------------------------- rings (src/rings.rs)
# (the ring checks' and exterior hulls' entries)

# --------------------------------------------------------------------------- rasterizer (src/raster.rs)
# (the rasterizer's entries)
