"""Overlaps and matching of two large region sets on a Dask cluster, spatially partitioned.

The plane is cut into a grid of cells at quantiles of the regions' lower-left corners (sampled
from every chunk), so that cells hold about equal numbers of regions. Each chunk of each side
sends every region to each cell its bounds touch (a large region goes to several); each cell
finds its pairs with the local sparse search, `geoiou.overlaps`.

Reference-point rule: a pair whose bounds overlap is kept only by the cell that holds the
lower-left corner of the intersection of their bounds, ``(max(x0_a, x0_b), max(y0_a, y0_b))``.
That point lies in both regions' bounds, so both regions were sent to its cell; it lies in exactly
one cell (cells are half-open, ``[cut_k, cut_k+1)``), so the pair is found exactly once. The pairs
of all cells, sorted, are those of `geoiou.overlaps` on the whole sets, with the same IoU values
(each is computed by the same kernel from the same two regions).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from geoiou._validation import invalid_argument, not_a_region
from geoiou.dask.cluster import connected, part_count
from geoiou.dispatch import find_kernel
from geoiou.matching import METHODS, Matching, _matching, greedy_assignment, optimal_assignment
from geoiou.regions import Polygon, Region
from geoiou.regions.ragged import ragged_arange
from geoiou.sparse import Overlaps, _planar_bounds
from geoiou.sparse import overlaps as local_overlaps

import dask
import distributed
from dask.delayed import delayed

__all__ = ["match", "overlaps"]

#: Lower-left corners each chunk contributes to place the grid's cuts.
SAMPLE_PER_CHUNK = 512


# --------------------------------------------------------------------------- chunks of a side
def _as_polygons(partition: Any) -> Polygon:
    """A dask-geopandas partition (GeoDataFrame or GeoSeries) as a geoiou Polygon batch, built on the worker."""
    geometry = getattr(partition, "geometry", partition)
    return Polygon.from_shapely(np.asarray(geometry.values, dtype=object))


def _chunks(side: Any, param: str) -> tuple[list[Any], np.ndarray, int, type]:
    """A side as chunks with the global row where each starts, its size and its kind.

    A geoiou batch is one chunk, here in the client (it is spread into the cells here, and each
    cell's regions travel once); a dask collection gives one delayed chunk per partition, turned
    into geoiou polygons and spread into cells on the workers.
    """
    if isinstance(side, Region):
        if len(side.shape) != 1:
            raise invalid_argument(param, "a 1-D batch of regions, shape (N,)", f"shape {side.shape}")
        return [side], np.zeros(1, dtype=np.int64), len(side), type(side)
    if hasattr(side, "to_delayed") and hasattr(side, "map_partitions"):  # a dask(-geopandas) collection
        lengths = np.asarray(side.map_partitions(len).compute(), dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(lengths)])
        as_polygons = delayed(_as_polygons, pure=True)
        return [as_polygons(part) for part in side.to_delayed()], starts[:-1], int(starts[-1]), Polygon
    raise not_a_region(param, side)


def _sample(region: Region, seed: int) -> np.ndarray:
    """Some lower-left corners of a chunk (finite bounds only), to place the grid."""
    corners = _planar_bounds(region)[:, :2]
    corners = corners[np.isfinite(corners).all(axis=1)]
    if len(corners) > SAMPLE_PER_CHUNK:
        corners = corners[np.random.default_rng(seed).choice(len(corners), SAMPLE_PER_CHUNK, replace=False)]
    sampled: np.ndarray = corners
    return sampled


def _grid_cuts(samples: list[np.ndarray], n_cells: int) -> tuple[np.ndarray, np.ndarray]:
    """Interior cuts along x and y: about sqrt(n_cells) columns and rows at quantiles of the sampled corners."""
    corners = np.concatenate([np.zeros((0, 2))] + samples)
    columns = max(1, int(np.sqrt(n_cells)))
    rows = max(1, n_cells // columns)
    if not len(corners):
        return np.zeros(0), np.zeros(0)
    cuts = [
        np.unique(np.quantile(corners[:, axis], np.arange(1, count) / count))
        for axis, count in ((0, columns), (1, rows))
    ]
    return cuts[0], cuts[1]


def _cell_of(values: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """Cell index along one axis: cell k is ``[cuts[k-1], cuts[k])``, the first and last unbounded."""
    return np.searchsorted(cuts, values, side="right")


def _to_cells(region: Region, start: int, cuts_x: np.ndarray, cuts_y: np.ndarray) -> list[tuple[np.ndarray, Region]]:
    """For every cell: the global rows and the regions of this chunk whose bounds touch it."""
    bounds = _planar_bounds(region)
    finite = np.flatnonzero(np.isfinite(bounds).all(axis=1))  # empty regions overlap nothing
    low_x, high_x = _cell_of(bounds[finite, 0], cuts_x), _cell_of(bounds[finite, 2], cuts_x)
    low_y, high_y = _cell_of(bounds[finite, 1], cuts_y), _cell_of(bounds[finite, 3], cuts_y)
    n_x, n_y = len(cuts_x) + 1, len(cuts_y) + 1
    # Every (region, cell) of each region's rectangle of cells.
    width, height = high_x - low_x + 1, high_y - low_y + 1
    local, owner = ragged_arange(np.zeros(len(finite), dtype=np.int64), width * height)
    cell = (low_x[owner] + local % width[owner]) * n_y + low_y[owner] + local // width[owner]
    order = np.argsort(cell, kind="stable")
    bounds_of_cell = np.searchsorted(cell[order], np.arange(n_x * n_y + 1))
    result = []
    for k in range(n_x * n_y):
        rows = finite[owner[order[bounds_of_cell[k] : bounds_of_cell[k + 1]]]]
        result.append((rows + start, region[rows]))
    return result


def _cell_pairs(
    pieces_a: list[tuple[np.ndarray, Region]],
    pieces_b: list[tuple[np.ndarray, Region]],
    cell: int,
    cuts_x: np.ndarray,
    cuts_y: np.ndarray,
    min_iou: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of one cell whose reference point lies in it: global rows of a and b, and their IoU."""
    rows_a = np.concatenate([rows for rows, _ in pieces_a])
    rows_b = np.concatenate([rows for rows, _ in pieces_b])
    if not len(rows_a) or not len(rows_b):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    a = type(pieces_a[0][1]).concatenate([region for rows, region in pieces_a if len(rows)])
    b = type(pieces_b[0][1]).concatenate([region for rows, region in pieces_b if len(rows)])
    found = local_overlaps(a, b, min_iou=min_iou)
    corner_a, corner_b = _planar_bounds(a)[found.index_a, :2], _planar_bounds(b)[found.index_b, :2]
    reference = np.maximum(corner_a, corner_b)
    n_y = len(cuts_y) + 1
    mine = _cell_of(reference[:, 0], cuts_x) * n_y + _cell_of(reference[:, 1], cuts_y) == cell
    return rows_a[found.index_a[mine]], rows_b[found.index_b[mine]], found.iou[mine]


# --------------------------------------------------------------------------- public
def overlaps(
    a: Any,
    b: Any,
    *,
    min_iou: float = 0.0,
    partitions: int | None = None,
    client: distributed.Client | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
) -> Overlaps:
    """`geoiou.overlaps` of two large sets on a Dask cluster: the same pairs, each found once, the same IoU.

    Parameters
    ----------
    a, b : Region or dask-geopandas GeoDataFrame / GeoSeries
        1-D batches of any 2-D kinds `geoiou.iou` compares, or dask collections of polygons (each
        partition becomes a geoiou Polygon on its worker; rows count the partitions in order).
    min_iou : float, default 0.0
        Keep pairs with IoU at least this.
    partitions : int, optional
        Grid cells (and chunks per side); by default four per worker thread.
    client, workers, scheduler : optional
        Which cluster (see `geoiou.dask.connected`).

    Returns
    -------
    Overlaps
        Rows of `a` and `b` and the IoU of each pair, sorted by ``(index_a, index_b)``.

    Examples
    --------
    >>> import geoiou
    >>> boxes = geoiou.Box([[0, 0, 2, 2], [1, 1, 3, 3], [10, 10, 11, 11]])
    >>> found = overlaps(boxes, boxes, workers=1)
    >>> found.index_a, found.index_b
    (array([0, 0, 1, 1, 2]), array([0, 1, 0, 1, 2]))
    """
    if isinstance(min_iou, bool) or not isinstance(min_iou, (int, float)) or not 0 <= min_iou <= 1:
        raise invalid_argument("min_iou", "a number in [0, 1]", min_iou)
    chunks_a, starts_a, size_a, kind_a = _chunks(a, "a")
    chunks_b, starts_b, size_b, kind_b = _chunks(b, "b")
    find_kernel(kind_a, kind_b)  # refuse an unsupported pair before any work
    with connected(client, workers=workers, scheduler=scheduler) as active:
        n_cells = part_count(partitions, active)
        chunks = chunks_a + chunks_b
        sample = delayed(_sample, pure=True)
        remote = [k for k, chunk in enumerate(chunks) if not isinstance(chunk, Region)]
        computed = dict(zip(remote, active.compute([sample(chunks[k], k) for k in remote], sync=True)))
        samples = [computed[k] if k in computed else _sample(chunk, k) for k, chunk in enumerate(chunks)]
        cuts_x, cuts_y = _grid_cuts(samples, n_cells)
        cells = (len(cuts_x) + 1) * (len(cuts_y) + 1)
        to_cells = delayed(_to_cells, pure=True, nout=cells)

        def spread(chunk: Any, start: int) -> Any:
            if isinstance(chunk, Region):  # spread here: each region travels once, to its own cells
                return _to_cells(chunk, start, cuts_x, cuts_y)
            return to_cells(chunk, start, cuts_x, cuts_y)

        spread_a = [spread(chunk, int(start)) for chunk, start in zip(chunks_a, starts_a)]
        spread_b = [spread(chunk, int(start)) for chunk, start in zip(chunks_b, starts_b)]
        cell_pairs = delayed(_cell_pairs, pure=True, nout=3)
        found = [
            cell_pairs(
                [pieces[k] for pieces in spread_a],
                [pieces[k] for pieces in spread_b],
                k,
                cuts_x,
                cuts_y,
                float(min_iou),
            )
            for k in range(cells)
        ]
        with dask.config.set({"distributed.admin.large-graph-warning-threshold": "4GB"}):  # regions go in the graph
            results = active.compute(found, sync=True)
    index_a, index_b, iou = (
        np.concatenate([np.zeros(0, dtype)] + [result[i] for result in results])
        for i, dtype in ((0, np.int64), (1, np.int64), (2, np.float64))
    )
    order = np.lexsort((index_b, index_a))
    return Overlaps(index_a[order], index_b[order], iou[order], (size_a, size_b))


def match(
    a: Any,
    b: Any,
    *,
    min_iou: float = 0.5,
    method: str = "greedy",
    partitions: int | None = None,
    client: distributed.Client | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
) -> Matching:
    """`geoiou.match` of two large sets: the pairs found on the cluster, the one-to-one assignment here.

    Greedy and optimal matching need every candidate pair of a connected component (regions
    linked by candidate pairs) at once; components often cross the grid's cells, so the
    assignment runs on the client over all the pairs the cells found (24 bytes a pair), where no
    component is ever cut. The result equals `geoiou.match` on the whole sets.

    Examples
    --------
    >>> import geoiou
    >>> a = geoiou.Box([[0, 0, 10, 10], [8, 0, 18, 10]])
    >>> b = geoiou.Box([[1, 0, 11, 10], [30, 30, 40, 40]])
    >>> match(a, b, workers=1).index_a
    array([0])
    """
    if method not in METHODS:
        raise invalid_argument("method", f"one of {METHODS}", method)
    found = overlaps(a, b, min_iou=min_iou, partitions=partitions, client=client, workers=workers, scheduler=scheduler)
    edges = (found.index_a, found.index_b, found.iou)
    chosen = (greedy_assignment if method == "greedy" else optimal_assignment)(*edges)
    return _matching(edges, chosen, found.shape[0], found.shape[1], float(min_iou), method)
