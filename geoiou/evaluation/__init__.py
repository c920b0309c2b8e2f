"""Evaluations built on IoU: detection AP for any geometry, temporal action detection and
segmentation, semantic-segmentation mIoU and multi-label Jaccard."""
