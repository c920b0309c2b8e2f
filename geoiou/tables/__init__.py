"""The tables that readers build and evaluations consume: `Annotations` (detection), `KittiObjects` (KITTI's
labels), `PanopticMaps` (panoptic segments and their maps) and `TemporalSegments`.

They sit below both `geoiou.io` and `geoiou.evaluation`, so a reader hands over a table without
knowing the protocols that take it. Users import them from `geoiou.evaluation`.
"""

from geoiou.tables.annotations import Annotations
from geoiou.tables.kitti import KittiObjects
from geoiou.tables.panoptic import PanopticMaps
from geoiou.tables.segments import TemporalSegments

__all__ = ["Annotations", "KittiObjects", "PanopticMaps", "TemporalSegments"]
