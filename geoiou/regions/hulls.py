"""The convex hull of each region of a batch, as flat vertex arrays (the input of the GIoU hull kernel).

The hulls come from shapely (GEOS) once per batch; a region only hands them over. What the
kernel derives from them (vertex order, frames, running sums) it derives and caches itself
(`ConvexHulls.derived`), so this layer knows nothing of the kernels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely

__all__ = ["ConvexHulls"]


@dataclass(frozen=True, eq=False)
class ConvexHulls:
    """Convex hulls: hull k is ``coords[offsets[k]:offsets[k + 1]]``.

    Each hull is a convex ring in either direction, closed or not (its last vertex may repeat
    its first, no other vertex repeats), a segment (two vertices), a point, or nothing (an empty
    region).

    Examples
    --------
    >>> hulls = ConvexHulls.from_shapely(np.array([shapely.box(0, 0, 1, 1), shapely.Point(2, 3)], dtype=object))
    >>> len(hulls), hulls.offsets.tolist(), hulls.coords[5].tolist()
    (2, [0, 5, 6], [2.0, 3.0])
    """

    #: Vertices ``(V, 2)``, float64, C-contiguous.
    coords: np.ndarray
    #: Where each hull starts ``(H + 1,)``, int64.
    offsets: np.ndarray
    #: Tables a kernel derives from the hulls, cached here by that kernel under its own key.
    derived: dict[str, Any] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @classmethod
    def from_shapely(cls, hulls: np.ndarray) -> ConvexHulls:
        """From a 1-D array of shapely convex hulls (Polygons, LineStrings, Points or empty geometries)."""
        coords, owner = shapely.get_coordinates(hulls, return_index=True)
        offsets = np.zeros(len(hulls) + 1, dtype=np.int64)
        np.cumsum(np.bincount(owner, minlength=len(hulls)), out=offsets[1:])
        return cls(np.ascontiguousarray(coords, dtype=np.float64), offsets)

    @classmethod
    def of_geometries(cls, geometries: np.ndarray) -> ConvexHulls:
        """The convex hulls of a 1-D array of shapely geometries."""
        return cls.from_shapely(shapely.convex_hull(geometries))
