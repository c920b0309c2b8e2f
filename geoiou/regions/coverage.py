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
right (via a cumulative sum along the row).  Summed over a closed ring this is
the exact signed area of the ring inside each pixel.  Work is confined to the
window of pixels the geometry's bounding box touches, and edge parts above,
below or right of the canvas are never cut into pieces.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "Edges",
    "box_coverage",
    "polygon_coverage",
    "polygon_coverage_window",
    "rasterize_canvases",
]


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
    window = _window_edges(geometry, shape, origin)
    if window is None:
        return slice(0, 0), slice(0, 0), np.zeros((0, 0), dtype=np.float64)
    rows, cols, edges = window
    return rows, cols, _rasterize(edges, (rows.stop - rows.start, cols.stop - cols.start))


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


class Edges(NamedTuple):
    """Directed segments ``(x0, y0) -> (x1, y1)``, one entry per segment.

    ``weight`` (+-1) makes exterior rings add area and holes subtract it.
    ``canvas`` says which canvas (window) each segment is drawn on, when several
    are rasterized at once (`rasterize_canvases`); None means a single one.
    Separate 1-D arrays, because fancy indexing of (N, 2) arrays is several
    times slower and this module does a lot of it.
    """

    x0: NDArray[np.float64]
    y0: NDArray[np.float64]
    x1: NDArray[np.float64]
    y1: NDArray[np.float64]
    weight: NDArray[np.float64]
    canvas: NDArray[np.intp] | None = None

    def take(self, index: NDArray[np.intp] | NDArray[np.bool_] | slice) -> Edges:
        """Return the segments selected by an index or boolean mask."""
        canvas = None if self.canvas is None else self.canvas[index]
        return Edges(self.x0[index], self.y0[index], self.x1[index], self.y1[index], self.weight[index], canvas)


def _window_edges(
    geometry: shapely.Polygon | shapely.MultiPolygon,
    shape: tuple[int, int],
    origin: tuple[float, float],
) -> tuple[slice, slice, Edges] | None:
    """Return the touched window and the signed ring edges in window pixel units.

    Returns None when the geometry is empty or has no area on the canvas.
    """
    _require_polygonal(geometry)
    if geometry.is_empty:
        return None
    return _window_of_edges(_oriented_edges(geometry), geometry.bounds, shape, origin)


def _window_of_edges(
    edges: Edges, bounds: tuple[float, float, float, float], shape: tuple[int, int], origin: tuple[float, float]
) -> tuple[slice, slice, Edges] | None:
    """The window of pixels that `bounds` touch and `edges` moved into its pixel units (None if it misses the canvas).

    `edges` are a polygon's ring edges weighted as `_oriented_edges` does.
    """
    x_origin, y_origin = origin
    min_x, min_y, max_x, max_y = bounds
    rows = _touched_cells(min_y - y_origin, max_y - y_origin, shape[0])
    cols = _touched_cells(min_x - x_origin, max_x - x_origin, shape[1])
    if rows.start == rows.stop or cols.start == cols.stop:
        return None
    # Subtract the origin first, then the integer window offset, so that the
    # offset adds no rounding of its own.
    return (
        rows,
        cols,
        Edges(
            (edges.x0 - x_origin) - cols.start,
            (edges.y0 - y_origin) - rows.start,
            (edges.x1 - x_origin) - cols.start,
            (edges.y1 - y_origin) - rows.start,
            edges.weight,
        ),
    )


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


def _oriented_edges(geometry: shapely.Polygon | shapely.MultiPolygon) -> Edges:
    """Return every ring edge, weighted so that exteriors add and holes subtract.

    Instead of rebuilding oriented geometries, each ring keeps its stored
    orientation and its edges get a weight of +-1: the accumulation yields
    minus the ring's area for a counter-clockwise ring, so the weight is
    -1 for counter-clockwise exteriors and clockwise holes, +1 otherwise.
    """
    rings, polygon_index = shapely.get_rings(shapely.get_parts(geometry), return_index=True)
    # get_rings lists each polygon's exterior first, then its holes.
    is_exterior = np.r_[True, polygon_index[1:] != polygon_index[:-1]]
    ring_weight = np.where(is_exterior == shapely.is_ccw(rings), -1.0, 1.0)
    coords, ring_index = shapely.get_coordinates(rings, return_index=True)
    # Rings are closed (last vertex == first), so consecutive vertices of the
    # same ring are exactly its edges.
    first = np.flatnonzero(ring_index[1:] == ring_index[:-1])
    x, y = coords[:, 0], coords[:, 1]
    return Edges(x[first], y[first], x[first + 1], y[first + 1], ring_weight[ring_index[first]])


def _rasterize(edges: Edges, shape: tuple[int, int]) -> NDArray[np.float64]:
    """Return the coverage of signed edges (in window pixel units), shape ``(H, W)``."""
    edges = _trim_to_rows(edges, shape[0])
    return _accumulate_pieces(_split_at_grid_lines(edges, shape), shape)


def rasterize_canvases(
    edges: Edges, heights: NDArray[np.intp], widths: NDArray[np.intp]
) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """Exact coverage of many canvases at once: ``edges.canvas[k]`` says on which canvas edge k lies.

    Canvas c has ``heights[c]`` rows and ``widths[c]`` columns, and each edge is in the pixel
    units of its canvas (as `_window_of_edges` gives them). The result is one table of rows:
    canvas c's rows start at ``row_offsets[c]``, each row as wide as the widest canvas (columns
    past a canvas's width hold 0). Every step runs once for all canvases; the arithmetic of each
    canvas is the one `polygon_coverage_window` does for it alone.

    Examples
    --------
    >>> half = Edges(np.array([0.0, 1.0, 0.0]), np.array([0.0, 1.0, 1.0]), np.array([1.0, 0.0, 0.0]),
    ...              np.array([1.0, 1.0, 0.0]), -np.ones(3), np.zeros(3, dtype=np.intp))  # a half-pixel triangle
    >>> both = Edges(*(np.concatenate([values, values]) for values in half[:5]), np.array([0, 0, 0, 1, 1, 1]))
    >>> table, rows = rasterize_canvases(both, np.array([1, 1]), np.array([1, 2]))
    >>> table, rows
    (array([[0.5, 0. ],
           [0.5, 0. ]]), array([0, 1]))
    """
    heights, widths = np.asarray(heights, dtype=np.intp), np.asarray(widths, dtype=np.intp)
    row_offsets = np.concatenate([[0], np.cumsum(heights)[:-1]]).astype(np.intp)
    width = int(widths.max(initial=0))
    edges = _trim_to_rows(edges, heights[edges.canvas])
    pieces = _split_at_grid_lines(edges, (heights[edges.canvas], widths[edges.canvas]))
    coverage = _accumulate_pieces(
        pieces,
        (heights[pieces.canvas], widths[pieces.canvas]),
        table=(row_offsets[pieces.canvas], int(heights.sum()), width),
    )
    # The running sum of a row goes on past a narrower canvas's last column: those cells are not its own.
    row_width = np.repeat(widths, heights)
    coverage[np.arange(width) >= row_width[:, None]] = 0.0
    return coverage, row_offsets


def _trim_to_rows(edges: Edges, n_rows: int | NDArray[np.intp]) -> Edges:
    """Drop edges that cannot contribute and trim the rest to ``0 <= y <= H``.

    Horizontal edges add nothing (``dy = 0``), and the parts of edges above
    or below the canvas fall in rows that are discarded.  Trimming them here
    keeps huge polygons from being cut into pieces off-canvas.
    """
    y_low, y_high = np.minimum(edges.y0, edges.y1), np.maximum(edges.y0, edges.y1)
    keep = (edges.y0 != edges.y1) & (y_high > 0) & (y_low < n_rows)
    edges = edges.take(keep)
    n_rows = n_rows[keep] if isinstance(n_rows, np.ndarray) and n_rows.ndim else n_rows
    x0, y0 = _slide_into_rows(edges.x0, edges.y0, edges.x1, edges.y1, n_rows)
    x1, y1 = _slide_into_rows(edges.x1, edges.y1, edges.x0, edges.y0, n_rows)
    return Edges(x0, y0, x1, y1, edges.weight, edges.canvas)


def _slide_into_rows(
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    x_other: NDArray[np.float64],
    y_other: NDArray[np.float64],
    n_rows: int | NDArray[np.intp],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Slide endpoints ``(x, y)`` along their edge towards the other end onto ``y = 0`` or ``y = H`` if beyond.

    The move is a fraction of the edge in [0, 1], not a slope: a slope overflows for nearly
    horizontal edges. Endpoints already inside are returned bit-for-bit so vertices stay exact.
    """
    clipped_y = np.clip(y, 0.0, n_rows)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        fraction = np.clip((clipped_y - y) / (y_other - y), 0.0, 1.0)  # edges with dy = 0 were dropped
    return np.where(clipped_y != y, x + fraction * (x_other - x), x), clipped_y


def _split_at_grid_lines(edges: Edges, shape: tuple[Any, Any]) -> Edges:
    """Cut every edge at the grid lines it crosses into single-cell pieces.

    Edges are cut at vertical lines first, then each part at horizontal
    lines.  Vertical lines are only used for ``0 <= x <= W``: left of the
    canvas a piece is clamped onto ``x = 0`` (it then covers its whole row)
    and right of it a piece adds nothing to any pixel.
    """
    n_rows, n_cols = shape
    edges, (n_rows, n_cols) = _split_at_lines(edges, n_cols, (n_rows, n_cols))
    # Parts right of the canvas contribute nothing; cutting them into rows
    # would be wasted work.
    keep = np.minimum(edges.x0, edges.x1) < n_cols
    edges = edges.take(keep)
    n_rows = n_rows[keep] if isinstance(n_rows, np.ndarray) and n_rows.ndim else n_rows
    return _swap_axes(_split_at_lines(_swap_axes(edges), n_rows)[0])


def _swap_axes(edges: Edges) -> Edges:
    """Exchange x and y, so one routine can cut at both kinds of grid line."""
    return Edges(edges.y0, edges.x0, edges.y1, edges.x1, edges.weight, edges.canvas)


def _split_at_lines(
    edges: Edges, n_lines: int | NDArray[np.intp], per_edge: tuple[Any, ...] = ()
) -> tuple[Edges, tuple[Any, ...]]:
    """Cut segments where they cross the vertical lines ``x = k``, ``0 <= k <= n_lines``.

    `n_lines` is one number or one per segment; `per_edge` are more per-segment arrays (or
    numbers), returned aligned with the pieces.

    All segments are cut at once without sorting: each segment's points
    (start, crossings, end) are laid out consecutively, with the crossings
    emitted in the direction of travel, so consecutive points of a segment
    are exactly its pieces.  A crossing gets ``x = k`` exactly rather than
    interpolated, so pieces end precisely on grid lines.
    """
    first_line, n_crossings = _crossed_lines(edges.x0, edges.x1, n_lines)
    n_points = n_crossings + 2
    segment = np.repeat(np.arange(len(n_points)), n_points)
    rank = np.arange(len(segment)) - np.repeat(np.cumsum(n_points) - n_points, n_points)
    x0, y0, x1, y1 = edges.x0[segment], edges.y0[segment], edges.x1[segment], edges.y1[segment]
    crossings_before = np.where(x1 > x0, rank - 1, n_crossings[segment] - rank)
    line = (first_line[segment] + crossings_before).astype(np.float64)
    is_start, is_end = rank == 0, rank == n_points[segment] - 1
    # Endpoint slots keep their exact vertex instead of a line crossing.
    x = np.where(is_start, x0, np.where(is_end, x1, line))
    # Interpolate by the fraction of the way to the crossing, not by a slope: for a nearly
    # vertical edge the slope overflows, while the fraction stays in [0, 1]. Vertical edges
    # have no crossings, so their 0/0 is never selected.
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        fraction = np.clip((line - x0) / (x1 - x0), 0.0, 1.0)
    y = np.where(is_start, y0, np.where(is_end, y1, y0 + fraction * (y1 - y0)))
    piece = np.flatnonzero(~is_end)
    owner = segment[piece]
    canvas = None if edges.canvas is None else edges.canvas[owner]
    aligned = tuple(values[owner] if np.ndim(values) else values for values in per_edge)
    return Edges(x[piece], y[piece], x[piece + 1], y[piece + 1], edges.weight[owner], canvas), aligned


def _crossed_lines(
    a: NDArray[np.float64], b: NDArray[np.float64], n_lines: int | NDArray[np.intp]
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Return the first and the number of integers in ``[0, n_lines]`` strictly between a and b."""
    # Clip before converting to int so huge coordinates cannot overflow;
    # the integers in [0, n_lines] strictly inside (lo, hi) are unchanged.
    lo = np.clip(np.minimum(a, b), -1.0, n_lines + 1.0)
    hi = np.clip(np.maximum(a, b), -1.0, n_lines + 1.0)
    first = np.maximum(np.floor(lo).astype(np.intp) + 1, 0)
    last = np.minimum(np.ceil(hi).astype(np.intp) - 1, n_lines)
    return first, np.maximum(last - first + 1, 0)


def _accumulate_pieces(
    pieces: Edges, shape: tuple[Any, Any], table: tuple[Any, int, int] | None = None
) -> NDArray[np.float64]:
    """Deposit single-cell pieces into a row accumulator and integrate along rows.

    A piece in row ``r``, column ``c`` with signed height ``dy`` and mean x
    ``xm`` encloses ``dy * (c + 1 - xm)`` with the right border of its cell
    (the edge is linear, so its mean x gives the exact trapezoid area) and
    a full ``dy`` with every cell further right.  The second part is stored
    as ``dy * (xm - c)`` in column ``c + 1`` so a cumulative sum along the
    row hands the remaining ``dy`` to all cells right of ``c``.
    """
    n_rows, n_cols = shape
    dy = (pieces.y1 - pieces.y0) * pieces.weight
    # Clamping x to [0, W] moves pieces left of the canvas onto its left
    # border (covering the whole row) and pieces right of it to x = W.
    mean_x = np.clip(0.5 * (pieces.x0 + pieces.x1), 0.0, n_cols)
    # Clipping only matters for zero-length pieces (dy = 0) that rounding
    # put on the border; a piece at x = W lands in column W - 1 with all of
    # its height passed on to column W.
    row = np.clip(np.floor(0.5 * (pieces.y0 + pieces.y1)), 0, n_rows - 1).astype(np.intp)
    col = np.minimum(np.floor(mean_x), n_cols - 1).astype(np.intp)
    # One canvas: its own rows. Several (`table` = row offsets, total rows, width): rows of one table.
    first_row, total_rows, width = table if table is not None else (0, n_rows, n_cols)
    cell = (first_row + row) * width + col
    # What is passed on to column W would only reach cells right of the
    # canvas (and would wrap into the next row here), so it is dropped.
    passes_on = col < n_cols - 1
    accumulator = np.bincount(
        np.concatenate([cell, cell[passes_on] + 1]),
        weights=np.concatenate([dy * (col + 1 - mean_x), (dy * (mean_x - col))[passes_on]]),
        minlength=total_rows * width,
    )
    # bincount returns integers when there are no pieces at all.
    coverage = accumulator.astype(np.float64, copy=False).reshape(total_rows, width)
    np.cumsum(coverage, axis=1, out=coverage)
    # Valid polygons give values in [0, 1]; clipping removes the ~1e-16
    # residue the running sum leaves in cells right of a closed ring.
    return np.clip(coverage, 0.0, 1.0, out=coverage)
