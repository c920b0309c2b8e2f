"""Readers (and writers) of annotation files; each returns geoiou regions or evaluation inputs.

| format | read | gives |
|---|---|---|
| COCO instances | `read_coco` | `Annotations` of boxes or polygons/masks |
| COCO results | `read_coco_results`, `write_coco_results` | scored `Annotations` |
| DOTA labels | `read_dota`, `read_dota_folder`, `write_dota` | polygons, classes, difficult flags |
| DOTA Task1 results | `read_dota_task1`, `write_dota_task1` | scored `Annotations` |
| YOLO / YOLO-OBB | `read_yolo`, `read_yolo_folder` | boxes or polygons, normalised or pixels |
| KITTI object labels and results | `read_kitti_labels` | `KittiObjects` (3-D boxes, image boxes, difficulty columns) |
| ActivityNet JSON | `read_activitynet`, `write_activitynet_results` | `TemporalSegments` |
| THUMOS14 annotations | `read_thumos14` | `TemporalSegments` (and the ambiguous ones apart) |
| MS-TCN frame labels | `read_mstcn_labels`, `read_mstcn_mapping` | ``{video: labels}`` for action segmentation |
| GeoJSON, WKT | `read_geojson`, `read_wkt`, `parse_wkt` | polygons with properties |
| literals | `parse_region` | ``box:0,0,10,10`` and the like |

Every reader names the file, the line or record and what was wrong in a `geoiou.FormatError`;
with ``skip_invalid=True`` it skips malformed records instead and says how many and why in the
result's `ReadReport`.
"""

from geoiou.io.activitynet import ActivityNetFile, read_activitynet, write_activitynet_results
from geoiou.io.coco_panoptic import read_coco_panoptic
from geoiou.io.coco import CocoDataset, CocoPredictions, read_coco, read_coco_results, write_coco_results
from geoiou.io.dota import DotaObjects, read_dota, read_dota_folder, read_dota_task1, write_dota, write_dota_task1
from geoiou.io.folders import LabelSet
from geoiou.io.geo import GeoFeatures, parse_wkt, read_geojson, read_wkt
from geoiou.io.kitti import read_kitti_labels
from geoiou.io.literals import parse_region
from geoiou.io.mstcn import MstcnLabels, read_mstcn_labels, read_mstcn_mapping
from geoiou.io.report import ReadReport, SkippedRecord
from geoiou.io.thumos import ThumosAnnotations, read_thumos14
from geoiou.io.yolo import YoloObjects, read_yolo, read_yolo_folder

__all__ = [
    "read_coco_panoptic",
    "ActivityNetFile",
    "CocoDataset",
    "CocoPredictions",
    "DotaObjects",
    "GeoFeatures",
    "LabelSet",
    "MstcnLabels",
    "ReadReport",
    "SkippedRecord",
    "ThumosAnnotations",
    "YoloObjects",
    "parse_region",
    "parse_wkt",
    "read_activitynet",
    "read_coco",
    "read_coco_results",
    "read_dota",
    "read_dota_folder",
    "read_dota_task1",
    "read_geojson",
    "read_kitti_labels",
    "read_mstcn_labels",
    "read_mstcn_mapping",
    "read_thumos14",
    "read_wkt",
    "read_yolo",
    "read_yolo_folder",
    "write_dota",
    "write_dota_task1",
    "write_activitynet_results",
    "write_coco_results",
]
