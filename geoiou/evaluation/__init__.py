"""Evaluations built on IoU: detection AP for any geometry (and KITTI's 3-D protocol), agreement of two annotation sets,
temporal action detection and segmentation, semantic-segmentation mIoU and multi-label Jaccard.

The tables the evaluations take (`Annotations`, `TemporalSegments`) live in `geoiou.tables` and the
pycocotools rasterizer in `geoiou.rle_rasterize`, below both the evaluations and the readers of
`geoiou.io`; they are imported from here.
"""

from geoiou.evaluation.action_segmentation import (
    ActionSegmentationEvaluation,
    ActionSegmentationResult,
    edit_score,
    evaluate_action_segmentation,
    frame_segments,
)
from geoiou.evaluation.agreement import AgreementEvaluation, AgreementResult, evaluate_agreement
from geoiou.evaluation.coco import CocoEvaluation, evaluate_coco
from geoiou.evaluation.federated import FederatedLabels
from geoiou.evaluation.kitti import KittiEvaluation, KittiResult, evaluate_kitti
from geoiou.evaluation.matches import ObjectMatches
from geoiou.evaluation.mergeable import MergeableEvaluation, merge_states
from geoiou.evaluation.multilabel import JaccardEvaluation, jaccard
from geoiou.evaluation.panoptic import PanopticEvaluation, PanopticResult, evaluate_panoptic
from geoiou.evaluation.results import CocoResult, VocResult
from geoiou.evaluation.voc import VocEvaluation, evaluate_voc
from geoiou.evaluation.proposals import TemporalProposalResult, evaluate_temporal_proposals
from geoiou.evaluation.semantic import ConfusionMatrix, SemanticSegmentationResult, semantic_iou
from geoiou.evaluation.temporal import (
    ACTIVITYNET_TIOU_THRESHOLDS,
    THUMOS14_TIOU_THRESHOLDS,
    TemporalDetectionEvaluation,
    TemporalDetectionResult,
    evaluate_temporal_detection,
)
from geoiou.rle_rasterize import coco_compat_rasterize
from geoiou.tables import Annotations, KittiObjects, PanopticMaps, TemporalSegments

__all__ = [
    "ActionSegmentationEvaluation",
    "ACTIVITYNET_TIOU_THRESHOLDS",
    "THUMOS14_TIOU_THRESHOLDS",
    "ActionSegmentationResult",
    "AgreementEvaluation",
    "AgreementResult",
    "Annotations",
    "CocoEvaluation",
    "CocoResult",
    "FederatedLabels",
    "ConfusionMatrix",
    "MergeableEvaluation",
    "JaccardEvaluation",
    "KittiEvaluation",
    "KittiObjects",
    "KittiResult",
    "ObjectMatches",
    "PanopticEvaluation",
    "PanopticMaps",
    "PanopticResult",
    "SemanticSegmentationResult",
    "TemporalDetectionEvaluation",
    "TemporalDetectionResult",
    "TemporalProposalResult",
    "TemporalSegments",
    "VocEvaluation",
    "VocResult",
    "coco_compat_rasterize",
    "edit_score",
    "evaluate_agreement",
    "evaluate_action_segmentation",
    "evaluate_coco",
    "evaluate_kitti",
    "evaluate_panoptic",
    "evaluate_temporal_detection",
    "evaluate_temporal_proposals",
    "evaluate_voc",
    "frame_segments",
    "jaccard",
    "merge_states",
    "semantic_iou",
]
