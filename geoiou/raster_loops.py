"""The compiled loop of pycocotools' polygon rasterization (see `geoiou.rle_rasterize`): every object in parallel.

Each object (its rings, its image size) is rasterized on its own, with its own scratch arrays,
and writes its runs into its own stretch of the output: the result has the same bits for any
number of threads, and memory grows with one object's boundary per thread, not with the batch.

Per ring, as pycocotools does it (the steps of `geoiou.rle_rasterize`'s docstring):

1. the vertices scaled by 5 and cast to int (truncation toward zero);
2. every edge, the closing one included, walked one upsampled step at a time along its longer
   axis from the end with the smaller value there, the other coordinate rounded from a double
   slope (a zero-length edge's 0 / 0 slope gives the value x86 gives a NaN cast: INT_MIN);
3. where the walked column changes between two consecutive points, the crossed column, if it is
   a pixel-centre column inside the image, marks the first pixel below the boundary there;
4. the marks toggle the mask in column-major order (a mark made twice cancels).

The rings of one object are then united. This module is imported on first use (it loads numba).
"""

from __future__ import annotations

import numpy as np

from geoiou._compiled import PARALLEL_MIN, jit, prange, use_threads

__all__ = ["object_runs"]

#: pycocotools' upsampling factor.
SCALE = 5.0
#: What x86's ``cvttsd2si`` returns for a NaN (the C cast of a zero-length edge's slope is undefined).
INT_MIN = -(2**31)


def object_runs(
    xy: np.ndarray, ring_start: np.ndarray, object_ring: np.ndarray, sizes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column-major true runs ``[start, stop)`` of each object's raster, and each object's first run (and the end).

    Parameters
    ----------
    xy : ndarray of float64, shape (V, 2)
        The vertices of every ring, rings end to end, not closed.
    ring_start : ndarray of int64, shape (R + 1,)
        Where each ring's vertices start (and the end).
    object_ring : ndarray of int64, shape (N + 1,)
        Where each object's rings start (and the end).
    sizes : ndarray of int64, shape (N, 2)
        ``(height, width)`` of each object's image.

    Examples
    --------
    >>> import numpy as np
    >>> square = np.array([(1.0, 1.0), (4.0, 1.0), (4.0, 3.0), (1.0, 3.0)])  # covers pixels 1-3 of rows 1-2
    >>> starts, stops, offsets = object_runs(square, np.array([0, 4]), np.array([0, 1]), np.array([[4, 6]]))
    >>> starts.tolist(), stops.tolist(), offsets.tolist()  # in each of columns 1, 2, 3: rows 1 and 2
    ([5, 9, 13], [7, 11, 15], [0, 3])
    """
    bound = _walked_points(xy, ring_start, object_ring)
    capacity = np.zeros(len(bound) + 1, dtype=np.int64)
    # Runs of an object: each ring makes at most half its marks, plus one left open to the image's end.
    np.cumsum(_run_room(bound, object_ring), out=capacity[1:])
    starts, stops = np.empty(int(capacity[-1]), np.int64), np.empty(int(capacity[-1]), np.int64)
    counts = np.empty(len(bound), np.int64)
    use_threads(len(bound))
    _objects(xy, ring_start, object_ring, sizes, bound, capacity, starts, stops, counts)
    offsets = np.zeros(len(bound) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    keep = np.repeat(capacity[:-1] - offsets[:-1], counts) + np.arange(int(offsets[-1]))
    return starts[keep], stops[keep], offsets


def _run_room(bound: np.ndarray, object_ring: np.ndarray) -> np.ndarray:
    """Room for each object's runs: half its marks and one per ring (a run left open to the image's end)."""
    result: np.ndarray = bound // 2 + np.diff(object_ring) + 1
    return result


@jit(inline=True)
def _upsampled(value: float) -> int:
    """``(int)(5 * value + 0.5)``: C's cast truncates toward zero."""
    return int(SCALE * value + 0.5)


@jit
def _walked_points(xy: np.ndarray, ring_start: np.ndarray, object_ring: np.ndarray) -> np.ndarray:
    """How many points the walk of each object's rings visits (a bound on its boundary marks)."""
    n_objects = object_ring.shape[0] - 1
    points = np.zeros(n_objects, dtype=np.int64)
    for o in range(n_objects):
        for r in range(object_ring[o], object_ring[o + 1]):
            first, stop = ring_start[r], ring_start[r + 1]
            for j in range(first, stop):
                k = j + 1 if j + 1 < stop else first
                dx = abs(_upsampled(xy[k, 0]) - _upsampled(xy[j, 0]))
                dy = abs(_upsampled(xy[k, 1]) - _upsampled(xy[j, 1]))
                points[o] += max(dx, dy) + 1
    return points


@jit(inline=True)
def _ring_marks(xy: np.ndarray, first: int, stop: int, height: int, width: int, marks: np.ndarray, m: int) -> int:
    """Append the ring's boundary marks (column-major pixel positions) to ``marks[m:]``; return the new end."""
    have_previous, previous_u, previous_v = False, 0, 0
    for j in range(first, stop):
        k = j + 1 if j + 1 < stop else first
        xs, xe, ys, ye = _upsampled(xy[j, 0]), _upsampled(xy[k, 0]), _upsampled(xy[j, 1]), _upsampled(xy[k, 1])
        dx, dy = abs(xe - xs), abs(ys - ye)
        flip = (dx >= dy and xs > xe) or (dx < dy and ys > ye)
        if flip:
            xs, xe, ys, ye = xe, xs, ye, ys
        steps = dx if dx >= dy else dy
        slope = 0.0 if steps == 0 else ((ye - ys) / np.float64(dx) if dx >= dy else (xe - xs) / np.float64(dy))
        for d in range(steps + 1):
            t = steps - d if flip else d
            if dx >= dy:
                u = t + xs
                v = INT_MIN if steps == 0 else int(ys + slope * t + 0.5)
            else:
                v = t + ys
                u = int(xs + slope * t + 0.5)
            if have_previous and u != previous_u:
                column = np.float64(u if u < previous_u else u - 1)
                column = (column + 0.5) / SCALE - 0.5
                if np.floor(column) == column and column >= 0 and column <= width - 1:
                    row = (np.float64(min(v, previous_v)) + 0.5) / SCALE - 0.5
                    row = np.ceil(min(max(row, 0.0), np.float64(height)))
                    marks[m] = int(column) * height + int(row)
                    m += 1
            have_previous, previous_u, previous_v = True, u, v
    return m


@jit(inline=True)
def _toggled_runs(marks: np.ndarray, n: int, pixels: int, starts: np.ndarray, stops: np.ndarray, r: int) -> int:
    """Runs between the marks ``marks[:n]`` made an odd number of times (sorted here), from ``starts[r]`` on."""
    toggles = np.sort(marks[:n])
    is_start = True
    i = 0
    while i < n and toggles[i] < pixels:
        j = i
        while j < n and toggles[j] == toggles[i]:
            j += 1
        if (j - i) % 2 == 1:
            if is_start:
                starts[r] = toggles[i]
            else:
                stops[r] = toggles[i]
                r += 1
            is_start = not is_start
        i = j
    if not is_start:  # a run still open reaches the end of the image
        stops[r] = pixels
        r += 1
    return r


@jit(inline=True)
def _united(starts: np.ndarray, stops: np.ndarray, n: int) -> int:
    """Sort the runs ``[:n]`` by start and merge the overlapping and touching ones, in place; return how many."""
    order = np.argsort(starts[:n])
    run_starts, run_stops = starts[:n][order], stops[:n][order]
    kept = 0
    for i in range(n):
        if kept and run_starts[i] <= stops[kept - 1]:
            stops[kept - 1] = max(stops[kept - 1], run_stops[i])
        else:
            starts[kept], stops[kept] = run_starts[i], run_stops[i]
            kept += 1
    return kept


@jit(inline=True)
def _object(
    xy: np.ndarray,
    ring_start: np.ndarray,
    object_ring: np.ndarray,
    sizes: np.ndarray,
    bound: np.ndarray,
    capacity: np.ndarray,
    starts: np.ndarray,
    stops: np.ndarray,
    counts: np.ndarray,
    o: int,
) -> None:
    height, width = sizes[o, 0], sizes[o, 1]
    marks = np.empty(bound[o], np.int64)
    room = capacity[o + 1] - capacity[o]
    run_starts, run_stops = np.empty(room, np.int64), np.empty(room, np.int64)
    n_runs = 0
    for r in range(object_ring[o], object_ring[o + 1]):
        n_marks = _ring_marks(xy, ring_start[r], ring_start[r + 1], height, width, marks, 0)
        n_runs = _toggled_runs(marks, n_marks, height * width, run_starts, run_stops, n_runs)
    if object_ring[o + 1] - object_ring[o] > 1:
        n_runs = _united(run_starts, run_stops, n_runs)
    at = capacity[o]
    for i in range(n_runs):
        starts[at + i], stops[at + i] = run_starts[i], run_stops[i]
    counts[o] = n_runs


@jit(parallel=True)
def _objects(
    xy: np.ndarray,
    ring_start: np.ndarray,
    object_ring: np.ndarray,
    sizes: np.ndarray,
    bound: np.ndarray,
    capacity: np.ndarray,
    starts: np.ndarray,
    stops: np.ndarray,
    counts: np.ndarray,
) -> None:
    n = object_ring.shape[0] - 1
    if n < PARALLEL_MIN:
        for o in range(n):
            _object(xy, ring_start, object_ring, sizes, bound, capacity, starts, stops, counts, o)
    else:
        for o in prange(n):
            _object(xy, ring_start, object_ring, sizes, bound, capacity, starts, stops, counts, o)
