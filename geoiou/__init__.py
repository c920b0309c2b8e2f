"""geoiou: exact intersection over union for boxes, rotated boxes, polygons, masks and intervals.

Every region kind implements `Region`; `iou`, `giou` and their pairwise forms work on any pair.

Examples
--------
>>> import geoiou
>>> geoiou.iou(geoiou.Box([0, 0, 10, 10]), geoiou.Polygon([(0, 0), (10, 0), (0, 10)]))
0.5
"""

from geoiou import rle
from geoiou.errors import (
    BatchIndexError,
    FormatError,
    FrozenRegionError,
    GeoIoUError,
    InvalidArgumentError,
    InvalidRegionError,
    InvalidTypeError,
    UnknownNameError,
    UnsupportedPairError,
)
from geoiou.metrics import (
    ciou,
    diou,
    enclosure_area,
    giou,
    intersection_area,
    iof,
    iou,
    pairwise_ciou,
    pairwise_diou,
    pairwise_giou,
    pairwise_intersection_area,
    pairwise_iof,
    pairwise_iou,
    union_area,
)
from geoiou.regions import Box, Box3D, Interval, Mask, OrientedBox3D, Polygon, Region, RotatedBox, RotatedBox3D
from geoiou.bev import bev_iou, pairwise_bev_iou
from geoiou.boundary import boundary_band, boundary_iou, pairwise_boundary_iou
from geoiou.signed import pairwise_siou, siou
from geoiou.sparse import Overlaps, overlaps
from geoiou.threads import get_threads, set_threads
from geoiou.threshold_score import threshold_score
from geoiou.matching import Matching, match  # noqa: E402  (after overlaps, which it builds on)

__version__ = "0.1.0"

__all__ = [
    "BatchIndexError",
    "Box",
    "Box3D",
    "FormatError",
    "FrozenRegionError",
    "GeoIoUError",
    "Interval",
    "InvalidArgumentError",
    "InvalidRegionError",
    "InvalidTypeError",
    "UnknownNameError",
    "Mask",
    "Matching",
    "OrientedBox3D",
    "Overlaps",
    "Polygon",
    "Region",
    "RotatedBox",
    "RotatedBox3D",
    "UnsupportedPairError",
    "bev_iou",
    "boundary_band",
    "boundary_iou",
    "ciou",
    "diou",
    "enclosure_area",
    "get_threads",
    "giou",
    "intersection_area",
    "iof",
    "iou",
    "match",
    "overlaps",
    "pairwise_bev_iou",
    "pairwise_boundary_iou",
    "pairwise_ciou",
    "pairwise_diou",
    "pairwise_giou",
    "pairwise_intersection_area",
    "pairwise_iof",
    "pairwise_iou",
    "pairwise_siou",
    "rle",
    "set_threads",
    "siou",
    "threshold_score",
    "union_area",
]
