"""pycocotools' polygon rasterization loop (see `geoiou.rle_rasterize`), in the compiled core: objects in parallel.

Each object (its rings, its image size) is rasterized on its own (src/raster.rs), with its own
scratch memory, and ranges of objects' runs are joined in order: the result has the same bits for
any number of threads, and the scratch memory grows with one object's boundary per thread.

Per ring, as pycocotools does it (the steps of `geoiou.rle_rasterize`'s docstring):

1. the vertices scaled by 5 and cast to int (truncation toward zero);
2. every edge, the closing one included, walked one upsampled step at a time along its longer
   axis from the end with the smaller value there, the other coordinate rounded from a double
   slope (a zero-length edge's 0 / 0 slope gives the value x86 gives a NaN cast: INT_MIN);
3. where the walked column changes between two consecutive points, the crossed column, if it is
   a pixel-centre column inside the image, marks the first pixel below the boundary there;
4. the marks toggle the mask in column-major order (a mark made twice cancels).

The rings of one object are then united.
"""

from __future__ import annotations

import numpy as np

from geoiou import _core
from geoiou._contiguous import contiguous

__all__ = ["object_runs"]


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
    return _core.object_runs(
        contiguous(xy).reshape(-1, 2),
        contiguous(ring_start, np.int64).reshape(-1),
        contiguous(object_ring, np.int64).reshape(-1),
        contiguous(sizes, np.int64).reshape(-1, 2),
    )
