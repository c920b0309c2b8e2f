"""`Solid`: what the 3-D kinds share (their measure is the volume; a centre and three sizes in columns 0 to 5)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from geoiou.regions.base import Region, as_measure

__all__ = ["Solid"]


class Solid(Region):
    """Base of the 3-D regions: `Box3D`, `RotatedBox3D`, `OrientedBox3D`.

    Subclasses keep one coordinate table `_coords`; unless they override `_area_array`, its
    columns 3 to 5 are the sizes along the box's own axes and columns 0 to 2 its centre.
    """

    ndim = 3
    _fields = {"_coords": 1}
    _coords: NDArray[np.float64]

    @property
    def volume(self) -> float | np.ndarray:
        """Volume of each box (the same as `area`, the measure every region has)."""
        return as_measure(self._area_array())

    @property
    def area(self) -> float | np.ndarray:
        return as_measure(self._area_array())

    def _area_array(self) -> np.ndarray:
        # (dx · dy) · dz, the order the kernels multiply in: a box contained in another has exactly this volume.
        coords = self._coords
        if coords.ndim == 1:  # one box: Python floats round as NumPy does, without its per-call costs
            return np.array(float(coords[3]) * float(coords[4]) * float(coords[5]))
        return np.asarray(coords[..., 3] * coords[..., 4] * coords[..., 5])

    @property
    def centroid(self) -> np.ndarray:
        return np.array(self._coords[..., :3])

    def _describe_one(self) -> str:
        return ", ".join(f"{v:g}" for v in self._coords)
