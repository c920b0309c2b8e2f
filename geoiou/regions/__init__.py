"""The region kinds: one module per geometry, all implementing `Region`."""

from geoiou.regions.base import Region
from geoiou.regions.box import Box
from geoiou.regions.interval import Interval
from geoiou.regions.mask import Mask
from geoiou.regions.polygon import Polygon
from geoiou.regions.rotated_box import RotatedBox

__all__ = ["Box", "Interval", "Mask", "Polygon", "Region", "RotatedBox"]
