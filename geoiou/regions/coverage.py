"""Exact per-pixel area coverage of vector regions.

Pixel model (a contract shared by the regions and all kernels): a raster of shape ``(H, W)``
with origin ``(x0, y0)`` has pixel ``(r, c)`` equal to the unit square
``[x0 + c, x0 + c + 1) x [y0 + r, y0 + r + 1)``.  The *coverage* of a region
in a pixel is the exact area of the region inside that square, so a polygon
covering half a pixel counts half.  This is not a centre-sampled
rasterization.

Polygons are handled with the signed-area accumulation used by exact font
rasterizers: every ring edge is cut at the integer grid lines into pieces that
each lie in one pixel cell; a piece deposits the area between itself and the
right border of its cell, plus its full height ``dy`` to every cell further
right (via a running sum along the row).  Summed over a closed ring this is
the exact signed area of the ring inside each pixel.  Work is confined to the
window of pixels the geometry's bounding box touches.  The accumulation is the
compiled core's (src/mask/coverage.rs), the one the Mask × Polygon kernel sums
over a mask's pixels, so a pixel's coverage here is the number that kernel adds
for it; this module finds the windows and lays the edges out for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray

from geoiou import _core
from geoiou._contiguous import contiguous

if TYPE_CHECKING:
    from geoiou._core import EdgeArrays

__all__ = ["box_coverage", "coverage_windows", "polygon_coverage", "polygon_coverage_window"]


def polygon_coverage(
    geometry: shapely.Polygon | shapely.MultiPolygon,
    shape: tuple[int, int],
    origin: tuple[float, float] = (0.0, 0.0),
) -> NDArray[np.float64]:
    """Compute the exact area of a polygonal region inside every pixel.

    Parameters
    ----------
    geometry : shapely.Polygon or shapely.MultiPolygon
        Valid polygonal region; holes allowed, parts may lie partly or
        wholly outside the canvas, may be empty.
    shape : tuple of int
        Canvas shape ``(H, W)``.
    origin : tuple of float, default (0.0, 0.0)
        Canvas origin ``(x0, y0)``; pixel ``(r, c)`` is the unit square
        ``[x0 + c, x0 + c + 1) x [y0 + r, y0 + r + 1)``.

    Returns
    -------
    coverage : ndarray of float64, shape (H, W)
        Area of ``geometry`` inside each pixel, in ``[0, 1]``.

    See Also
    --------
    polygon_coverage_window : The same values restricted to the bounding
        window of the geometry (cheaper for small geometries).

    Examples
    --------
    >>> from shapely import Polygon
    >>> polygon_coverage(Polygon([(0, 0), (1, 0), (0, 1)]), (2, 2))
    array([[0.5, 0. ],
           [0. , 0. ]])
    >>> polygon_coverage(Polygon([(0, 0), (1, 0), (0, 1)]), (1, 2),
    ...                  origin=(-0.5, 0.0))
    array([[0.375, 0.125]])

    An empty geometry covers nothing:

    >>> polygon_coverage(Polygon(), (1, 3))
    array([[0., 0., 0.]])
    """
    rows, cols, window = polygon_coverage_window(geometry, shape, origin)
    if window.shape == tuple(shape):
        return window  # the window is the whole canvas: spare a copy
    coverage = np.zeros(shape, dtype=np.float64)
    coverage[rows, cols] = window
    return coverage


def polygon_coverage_window(
    geometry: shapely.Polygon | shapely.MultiPolygon,
    shape: tuple[int, int],
    origin: tuple[float, float] = (0.0, 0.0),
) -> tuple[slice, slice, NDArray[np.float64]]:
    """Compute polygon coverage only in the canvas window the geometry touches.

    The window is the set of pixels that intersect the bounding box of the
    geometry, clipped to the canvas, so a small polygon on a big canvas
    costs little.  ``polygon_coverage(g, shape, origin)[rows, cols]`` equals
    the returned ``coverage`` and is zero outside the window.

    Parameters
    ----------
    geometry : shapely.Polygon or shapely.MultiPolygon
        Valid polygonal region; holes allowed, parts may lie partly or
        wholly outside the canvas, may be empty.
    shape : tuple of int
        Canvas shape ``(H, W)``.
    origin : tuple of float, default (0.0, 0.0)
        Canvas origin ``(x0, y0)``.

    Returns
    -------
    rows : slice
        Row range of the window in the canvas (``step`` is None).
    cols : slice
        Column range of the window in the canvas (``step`` is None).
    coverage : ndarray of float64, shape (rows.stop - rows.start, cols.stop - cols.start)
        Area of ``geometry`` inside each window pixel, in ``[0, 1]``.  When
        the geometry is empty or misses the canvas, both slices are
        ``slice(0, 0)`` and ``coverage`` has shape ``(0, 0)``.

    Examples
    --------
    >>> from shapely import box
    >>> rows, cols, coverage = polygon_coverage_window(box(1.5, 0, 3, 1), (4, 8))
    >>> rows, cols
    (slice(0, 1, None), slice(1, 3, None))
    >>> coverage
    array([[0.5, 1. ]])

    A geometry that misses the canvas gives an empty window:

    >>> polygon_coverage_window(box(10, 10, 11, 11), (4, 8))[2].shape
    (0, 0)
    """
    _require_polygonal(geometry)
    if geometry.is_empty:
        return slice(0, 0), slice(0, 0), np.zeros((0, 0), dtype=np.float64)
    x_origin, y_origin = origin
    min_x, min_y, max_x, max_y = geometry.bounds
    rows = _touched_cells(min_y - y_origin, max_y - y_origin, shape[0])
    cols = _touched_cells(min_x - x_origin, max_x - x_origin, shape[1])
    if rows.start == rows.stop or cols.start == cols.stop:
        return slice(0, 0), slice(0, 0), np.zeros((0, 0), dtype=np.float64)
    window = np.array([[rows.start, cols.start, rows.stop - rows.start, cols.stop - cols.start]], dtype=np.int64)
    coverage = np.empty((rows.stop - rows.start, cols.stop - cols.start))
    _core.polygon_coverages(
        _oriented_edges(geometry),
        np.zeros(1, dtype=np.int64),
        np.array([origin], dtype=np.float64),
        window,
        coverage.reshape(-1),
    )
    # Valid polygons give values in [0, 1]; clipping removes the ~1e-16 residue the running sum leaves in
    # cells right of a closed ring.
    return rows, cols, np.clip(coverage, 0.0, 1.0, out=coverage)


def coverage_windows(
    store: Any, geometry: NDArray[np.int64], shape: tuple[int, int], origin: tuple[float, float]
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The exact coverage of polygons ``geometry[k]`` of a polygon store (`RaggedPolygons`) on one grid, each on
    the window of pixels its bounding box touches: one call of the crate for the batch, polygons in parallel.

    Returns the windows ``(n, 4)``, ``(row0, col0, height, width)`` (empty for an empty polygon or one
    that misses the grid), and their coverages end to end, each window's pixels row by row. Values are
    not clipped (a pixel a ring only passes may hold a residue of about 1e-16).

    Examples
    --------
    >>> from geoiou import Polygon
    >>> half = Polygon.from_rings([[(0, 0), (1, 0), (0, 1)], [(5, 5), (6, 5), (6, 6)]])  # half pixels (0, 0), (5, 5)
    >>> windows, values = coverage_windows(half._store, half._index, (3, 4), (0.0, 0.0))
    >>> windows.tolist(), values.tolist()  # the second misses the grid
    ([[0, 0, 1, 1], [0, 0, 0, 0]], [0.5])
    """
    height, width = shape
    bounds = store.bounds[geometry]
    x_origin, y_origin = origin
    rows = _touched_cells_of(bounds[:, 1] - y_origin, bounds[:, 3] - y_origin, height)
    cols = _touched_cells_of(bounds[:, 0] - x_origin, bounds[:, 2] - x_origin, width)
    windows = np.column_stack([rows[0], cols[0], rows[1] - rows[0], cols[1] - cols[0]]).astype(np.int64)
    windows[(windows[:, 2] == 0) | (windows[:, 3] == 0)] = 0
    values = np.empty(int((windows[:, 2] * windows[:, 3]).sum()))
    edges = store.edges
    _core.polygon_coverages(
        (
            contiguous(edges.x0),
            contiguous(edges.y0),
            contiguous(edges.x1),
            contiguous(edges.y1),
            contiguous(edges.weight_sign),
            contiguous(edges.offsets, np.int64),
        ),
        contiguous(geometry, np.int64).reshape(-1),
        np.tile(np.asarray(origin, dtype=np.float64), (len(geometry), 1)),
        windows,
        values,
    )
    return windows, values


def _touched_cells_of(
    lo: NDArray[np.float64], hi: NDArray[np.float64], n_cells: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """`_touched_cells` of many intervals: ``(start, stop)`` arrays; NaN bounds (an empty polygon) touch none."""
    empty = ~(lo <= hi)
    lo, hi = np.where(empty, 0.0, lo), np.where(empty, 0.0, hi)
    start = np.clip(np.floor(lo), 0, n_cells)
    stop = np.clip(np.ceil(hi), start, n_cells)
    return start.astype(np.int64), stop.astype(np.int64)


def box_coverage(
    x1: ArrayLike,
    y1: ArrayLike,
    x2: ArrayLike,
    y2: ArrayLike,
    shape: tuple[int, int],
    origin: tuple[float, float] = (0.0, 0.0),
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Compute the separable coverage of axis-aligned boxes.

    The coverage of the box ``[x1, x2) x [y1, y2)`` in pixel ``(r, c)`` is
    ``row_weights[..., r] * col_weights[..., c]``: the overlap length of the
    pixel's row interval with ``[y1, y2)`` times that of its column interval
    with ``[x1, x2)``.

    Parameters
    ----------
    x1, y1, x2, y2 : float or array_like of float, shape (K,)
        Box corners; scalars for one box or equal-shape arrays for ``K``
        boxes.  Inverted or zero-width boxes cover nothing.
    shape : tuple of int
        Canvas shape ``(H, W)``.
    origin : tuple of float, default (0.0, 0.0)
        Canvas origin ``(x0, y0)``.

    Returns
    -------
    row_weights : ndarray of float64, shape (H,) or (K, H)
        Overlap length of each pixel row with ``[y1, y2)``.
    col_weights : ndarray of float64, shape (W,) or (K, W)
        Overlap length of each pixel column with ``[x1, x2)``.

    Examples
    --------
    >>> rows, cols = box_coverage(0.5, 0.0, 2.5, 1.0, (2, 3))
    >>> rows, cols
    (array([1., 0.]), array([0.5, 1. , 0.5]))
    >>> np.outer(rows, cols)
    array([[0.5, 1. , 0.5],
           [0. , 0. , 0. ]])

    Batched, including a degenerate zero-width box:

    >>> rows, cols = box_coverage([0.0, 1.0], [0.0, 0.0], [1.0, 1.0], [2.0, 2.0], (2, 2))
    >>> cols
    array([[1., 0.],
           [0., 0.]])
    """
    n_rows, n_cols = shape
    x0, y0 = origin
    row_weights = _interval_overlaps(_shifted(y1, y0), _shifted(y2, y0), n_rows)
    col_weights = _interval_overlaps(_shifted(x1, x0), _shifted(x2, x0), n_cols)
    return row_weights, col_weights


def _shifted(coordinate: ArrayLike, origin: float) -> NDArray[np.float64]:
    """Return a coordinate relative to the canvas origin, as float64."""
    return np.asarray(coordinate, dtype=np.float64) - origin


def _require_polygonal(geometry: object) -> None:
    """Raise TypeError unless ``geometry`` is a shapely (Multi)Polygon."""
    if not isinstance(geometry, (shapely.Polygon, shapely.MultiPolygon)):
        kind = type(geometry).__name__
        raise TypeError(f"expected a shapely Polygon or MultiPolygon, got {kind}")


def _interval_overlaps(lo: NDArray[np.float64], hi: NDArray[np.float64], n_cells: int) -> NDArray[np.float64]:
    """Return the overlap length of ``[lo, hi)`` with each cell ``[i, i + 1)``.

    Shape is ``lo.shape + (n_cells,)``.
    """
    cells = np.arange(n_cells, dtype=np.float64)
    overlap = np.minimum(hi[..., None], cells + 1.0) - np.maximum(lo[..., None], cells)
    result: NDArray[np.float64] = np.maximum(overlap, 0.0)
    return result


def _touched_cells(lo: float, hi: float, n_cells: int) -> slice:
    """Return the cells of ``[0, n_cells)`` whose unit interval meets ``(lo, hi)``.

    An interval that only touches a cell border selects nothing there: it
    has no area in that cell.
    """
    start = int(np.clip(np.floor(lo), 0, n_cells))
    stop = int(np.clip(np.ceil(hi), start, n_cells))
    return slice(start, stop)


def _oriented_edges(
    geometry: shapely.Polygon | shapely.MultiPolygon,
) -> EdgeArrays:
    """Every ring edge of one geometry as the crate reads a polygon store's: ``(x0, y0, x1, y1, sign, offsets)``.

    Each ring keeps its stored orientation and its edges get a sign of +-1 such that summing
    ``sign · cross(p, q)`` over the edges gives twice the area: +1 for counter-clockwise exteriors
    and clockwise holes, -1 otherwise. ``offsets`` is ``[0, edges]``: one geometry.
    """
    rings, polygon_index = shapely.get_rings(shapely.get_parts(geometry), return_index=True)
    # get_rings lists each polygon's exterior first, then its holes.
    is_exterior = np.r_[True, polygon_index[1:] != polygon_index[:-1]]
    ring_sign = np.where(is_exterior == shapely.is_ccw(rings), 1.0, -1.0)
    coords, ring_index = shapely.get_coordinates(rings, return_index=True)
    # Rings are closed (last vertex == first), so consecutive vertices of the
    # same ring are exactly its edges.
    first = np.flatnonzero(ring_index[1:] == ring_index[:-1])
    x, y = np.ascontiguousarray(coords[:, 0]), np.ascontiguousarray(coords[:, 1])
    sign = np.ascontiguousarray(ring_sign[ring_index[first]])
    return x[first], y[first], x[first + 1], y[first + 1], sign, np.array([0, len(first)], dtype=np.int64)
