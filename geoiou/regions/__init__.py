"""The region kinds: one module per geometry, all implementing `Region` (2-D, 3-D and intervals)."""

from geoiou.regions.base import Region
from geoiou.regions.box import Box
from geoiou.regions.box3d import Box3D
from geoiou.regions.interval import Interval
from geoiou.regions.mask import Mask
from geoiou.regions.oriented_box3d import OrientedBox3D
from geoiou.regions.polygon import Polygon
from geoiou.regions.rotated_box import RotatedBox
from geoiou.regions.rotated_box3d import RotatedBox3D

__all__ = ["Box", "Box3D", "Interval", "Mask", "OrientedBox3D", "Polygon", "Region", "RotatedBox", "RotatedBox3D"]
