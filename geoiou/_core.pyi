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
def rotated_pairs(coords_a: F64, coords_b: F64, hull: bool, pairs: Pairs, formula: Formula, out: F64) -> None:
    """`formula` of the intersection (`hull`: the convex hull) area of each pair of rotated boxes ``(n, 5)``."""

def rotated_single(a: F64, b: F64, code: int, zero_division: float) -> float:
    """The formula `code` of two single rotated boxes ``(5,)`` (`GIOU_OF_HULL`: the hull measured too)."""

def rotated_unit_vectors(angles: F64) -> F64:
    """The kernels' unit vector ``(cos, sin)`` of each angle (degrees), ``(n, 2)``: exact at quarter turns."""

# --------------------------------------------------------------------------- polygons (src/polygon.rs)
#: A polygon store (`RaggedPolygons`' layout): vertices ``(V, 2)``, ring, part and geometry offsets, each
#: geometry's area.
PolygonStore = tuple[F64, I64, I64, I64, F64]
#: A Neumaier sum ``(total, compensation, magnitude)``.
SumParts = tuple[float, float, float]
#: Edge pairs above which the polygon pair finds the edge pairs to measure by their sorted angles.
POLYGON_SORTED_CELLS: int

def polygon_pairs(
    side_a: tuple[PolygonStore, I64], side_b: tuple[PolygonStore, I64], pairs: Pairs, formula: Formula, out: F64
) -> None:
    """`formula` of the shared area of each pair, region i of a side ``(store, geometry)`` its ``geometry[i]``."""

def polygon_single(
    store_a: PolygonStore, g_a: int, store_b: PolygonStore, g_b: int, code: int, zero_division: float
) -> float:
    """The formula `code` of the shared area of geometries `g_a` and `g_b`, the stores' areas the two areas."""

def rotated_polygon_pairs(
    boxes: F64, store: PolygonStore, geometry: I64, pairs: Pairs, formula: Formula, out: F64
) -> None:
    """`formula` of ``|box ∩ polygon|`` of each pair: rotated boxes ``(n, 5)`` against polygons ``geometry``."""

def box_polygon_pairs(boxes: F64, store: PolygonStore, geometry: I64, pairs: Pairs, formula: Formula, out: F64) -> None:
    """`formula` of ``|box ∩ polygon|`` of each pair: boxes ``(n, 4)`` ``x1, y1, x2, y2`` against polygons."""

def polygon_cell_sums(store_a: PolygonStore, g_a: int, store_b: PolygonStore, g_b: int) -> tuple[SumParts, SumParts]:
    """The sums over the edge pairs of two polygons in their pair's frame, every pair tested and by angle (tests)."""

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
U64 = NDArray[np.uint64]
#: A run table ``(starts, stops, offsets)`` (`rle.Runs`' arrays): mask m owns runs ``offsets[m]:offsets[m + 1]``.
RunArrays = tuple[I64, I64, I64]
#: Packed windows: the window table ``(M, 8)`` (`kernels.mask._window_table`) and the words.
WindowArrays = tuple[I64, U64]
#: Where each mask's window lies in the words: ``(line0, word0, stride, offsets)`` (`regions.mask._Windows`).
LayoutArrays = tuple[I64, I64, I64, I64]
#: A polygon store's edges ``(x0, y0, x1, y1, weight_sign, offsets)``, geometry g's edges ``offsets[g]:offsets[g + 1]``.
EdgeArrays = tuple[F64, F64, F64, F64, F64, I64]

def run_overlap_counts(runs_a: RunArrays, masks_a: I64, runs_b: RunArrays, masks_b: I64, out: I64) -> None:
    """Pixels true in both masks ``masks_a[k]`` and ``masks_b[k]``, counted from their runs (grids of one height)."""

def window_overlap_counts(
    windows_a: WindowArrays, masks_a: I64, windows_b: WindowArrays, masks_b: I64, out: I64
) -> None:
    """Pixels true in both masks ``masks_a[k]`` and ``masks_b[k]`` (one grid, one orientation): AND and bit count."""

def offset_grid_overlaps(
    windows_a: WindowArrays,
    masks_a: I64,
    origins_a: F64,
    windows_b: WindowArrays,
    masks_b: I64,
    origins_b: F64,
    column_major: bool,
    out: F64,
) -> None:
    """Shared area of masks on grids offset by any amount (origins ``(n, 2)``): four weighted shifted counts."""

def mask_box_areas(windows: WindowArrays, column_major: bool, masks: I64, origins: F64, boxes: F64, out: F64) -> None:
    """Area of masks ``masks[k]`` (at ``origins[k]``) inside boxes ``boxes[k]`` ``(x1, y1, x2, y2)``."""

def mask_polygon_window_areas(
    edges: EdgeArrays,
    geometry: I64,
    origins: F64,
    pair_window: I64,
    masks: I64,
    windows: WindowArrays,
    column_major: bool,
    out: F64,
) -> None:
    """Area of dense masks inside polygons, each pair's coverage on its window ``(row0, col0, height, width)``."""

def mask_polygon_run_areas(
    edges: EdgeArrays,
    geometry: I64,
    origins: F64,
    group_window: I64,
    group_start: I64,
    order: I64,
    masks: I64,
    runs: RunArrays,
    heights: I64,
    out: F64,
) -> None:
    """Area of masks held as runs inside polygons, pairs grouped by polygon and origin (``order``, ``group_start``)."""

def polygon_coverages(edges: EdgeArrays, geometry: I64, origins: F64, windows: I64, out: F64) -> None:
    """The exact coverage of polygons ``geometry[k]`` (grids at ``origins[k]``) over windows ``(row0, col0, h, w)``."""

def run_boxes(runs: RunArrays, heights: I64, boxes: I64) -> None:
    """Each mask's bounding box from its runs (each of its own height), into ``boxes`` ``(M, 4)``."""

def pack_run_windows(runs: RunArrays, heights: I64, layout: LayoutArrays, column_major: bool, words: U64) -> None:
    """Set the bits of each mask's runs in its window (zeroed `words`), along columns or along rows."""

def dense_boxes(pixels: NDArray[np.uint8], boxes: I64) -> None:
    """Each dense mask's bounding box from its pixels ``(M, H, W)`` (a byte each, nonzero: true), into ``boxes``."""

def pack_dense_windows(pixels: NDArray[np.uint8], layout: LayoutArrays, words: U64) -> None:
    """Pack each dense mask's window from its pixels ``(M, H, W)`` (a byte each) into `words`."""

def band_runs(runs: RunArrays, heights: I64, distances: I64, masks: I64) -> tuple[I64, I64, I64]:
    """The runs ``(starts, stops, offsets)`` of the band ``mask − erode(mask, d)`` of each mask ``masks[k]``."""

# --------------------------------------------------------------------------- 3-D boxes (src/boxes3d.rs)
def yaw_pairs(coords_a: F64, coords_b: F64, hull: bool, pairs: Pairs, formula: Formula, out: F64) -> None:
    """`formula` of the intersection (`hull`: the convex hull) volume of each pair of yaw boxes ``(n, 7)``."""

def oriented_pairs(coords_a: F64, coords_b: F64, hull: bool, pairs: Pairs, formula: Formula, out: F64) -> None:
    """`formula` of the intersection (`hull`: the convex hull) volume of each pair of oriented boxes ``(n, 15)``."""

def yaw_single(a: F64, b: F64, code: int, zero_division: float) -> float:
    """The formula `code` of the intersection of two single yaw boxes ``(7,)``."""

def oriented_single(a: F64, b: F64, code: int, zero_division: float) -> float:
    """The formula `code` of the intersection of two single oriented boxes ``(15,)``."""

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

def plain_box(coords: object, fmt: str, largest: float, smallest: float) -> bytes | None:
    """One box of plain Python numbers (a list or tuple of four ints and floats) as 48 bytes of corners and
    sides, checked as `accepted_corners` checks; None where `Box` would refuse it or the numbers are not plain."""

# --------------------------------------------------------------------------- rings (src/rings.rs)
#: Rings of more vertices are not tested (GEOS decides); polygons of more exterior vertices get no hull.
RING_MOST_VERTICES: int
HULL_MOST_POINTS: int

def closed_ring(vertices: F64) -> tuple[F64, float, float, bool]:
    """One ring ``(n, 2)`` closed, its signed area (the store's bits), largest coordinate (inf if not finite) and
    whether it is certainly simple."""

def ring_is_simple(vertices: F64) -> bool:
    """Whether the ring ``(n, 2)`` (not closed) is certainly simple (False: not proven; GEOS decides)."""

def exterior_hulls(coords: F64, ring_offsets: I64, part_offsets: I64, geometry_offsets: I64) -> tuple[F64, I64, bool]:
    """Each geometry's convex hull from its parts' exteriors (each part's first ring; `ConvexHulls`' coordinates and
    offsets, counter-clockwise), and whether every turn was certain (False: no hull; the caller asks shapely)."""

# --------------------------------------------------------------------------- rasterizer (src/raster.rs)
def object_runs(xy: F64, ring_start: I64, object_ring: I64, sizes: I64) -> tuple[I64, I64, I64]:
    """pycocotools' raster of each object's rings as column-major runs ``(starts, stops, offsets)``."""
