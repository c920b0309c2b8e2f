"""Temporal action proposals: average recall against the average number of proposals (AR@AN) and its AUC.

The metric of ActivityNet's proposal task (``eval_proposal.py`` of the ActivityNet challenge):

- Each video's proposals are ranked by decreasing score, and the same share of every video's
  list is kept so that the videos keep `max_proposals_per_video` proposals on average (a video
  with more proposals keeps more).
- At each of 100 budgets, 1% to 100% of the kept proposals of every video (rounded down), a
  ground-truth segment is recalled at a tIoU threshold when one of its video's first proposals
  overlaps it at least that much (no one-to-one matching: one proposal can recall several
  segments). Recall is summed over all videos, then averaged over the thresholds (0.5:0.95).
- AR@AN is that average recall when the videos keep AN proposals on average; the AUC is the
  area under the AR-AN curve (trapezoids), divided by its largest AN, in percent as ActivityNet
  prints it.

Proposals of equal score are ranked as ActivityNet's ``argsort()[::-1]`` ranks them: the later
one first. Videos are those of the ground truth; proposals of other videos are not used.

Examples
--------
>>> from geoiou.evaluation import TemporalSegments
>>> truth = TemporalSegments(video_id=["v"], label=["x"], start=[0.0], end=[10.0])
>>> proposals = TemporalSegments(video_id=["v", "v"], label=["", ""], start=[20.0, 0.0], end=[30.0, 9.0],
...                              score=[0.9, 0.5])
>>> result = evaluate_temporal_proposals(truth, proposals, max_proposals_per_video=2)
>>> result.recall_at(1), result.recall_at(2)  # the best-scored proposal misses; the second has tIoU 0.9
(0.0, 0.9)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from geoiou._validation import invalid_argument
from geoiou.evaluation.temporal import TemporalSegments, _thresholds
from geoiou.metrics import pairwise_iou
from geoiou.regions import Interval

__all__ = ["TemporalProposalResult", "evaluate_temporal_proposals"]

#: ActivityNet's proposal task averages the recall at tIoU 0.50, 0.55, ..., 0.95 and reports up to 100 per video.
DEFAULT_MAX_PROPOSALS = 100
#: The budgets, as shares of each video's kept proposals: 1%, 2%, ..., 100%.
BUDGETS = np.arange(1, 101) / 100.0


@dataclass(frozen=True, eq=False)
class TemporalProposalResult:
    """The result of `evaluate_temporal_proposals`.

    Attributes
    ----------
    tiou_thresholds : ndarray, shape (T,)
    proposals_per_video : ndarray, shape (100,)
        The average number of proposals per video at each budget (AN).
    recall : ndarray, shape (T, 100)
        Recall at each threshold and budget.
    average_recall : ndarray, shape (100,)
        Recall averaged over the thresholds (AR) at each budget.
    auc : float
        Area under the AR-AN curve divided by the largest AN, in percent (ActivityNet's number).
    num_videos, num_truths, num_proposals : int
        Videos of the ground truth, its segments, and the proposals kept on those videos.
    """

    tiou_thresholds: np.ndarray
    proposals_per_video: np.ndarray
    recall: np.ndarray
    average_recall: np.ndarray
    auc: float
    num_videos: int
    num_truths: int
    num_proposals: int

    def recall_at(self, proposals: float) -> float:
        """AR@AN: the average recall at the budget with `proposals` per video on average (AR@1, AR@100...).

        The nearest budget at or below `proposals` is used (with the default 100 per video, the
        budgets are exactly 1, 2, ..., 100).
        """
        below = np.flatnonzero(self.proposals_per_video <= proposals + 1e-9)
        if not below.size:
            raise invalid_argument(
                "proposals", f"at least {self.proposals_per_video[0]:g} proposals per video", proposals
            )
        return float(self.average_recall[below[-1]])

    def summary(self) -> str:
        """AR at 1, 5, 10 and 100 proposals per video (where reached) and the AUC, in percent."""
        lines = [
            f"Temporal proposals: {self.num_videos} videos, {self.num_truths} ground-truth segments, "
            f"{self.num_proposals} proposals kept (tIoU {self.tiou_thresholds[0]:.2f}:"
            f"{self.tiou_thresholds[-1]:.2f})"
        ]
        for proposals in (1, 5, 10, 100):
            if self.proposals_per_video[0] <= proposals + 1e-9 <= self.proposals_per_video[-1] + 1e-9:
                lines.append(f"AR@{proposals:<3d} {100 * self.recall_at(proposals):7.2f}")
        lines.append(f"AUC    {self.auc:7.2f}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values, ready for JSON (AR as fractions, the AUC in percent)."""
        names = [
            f"AR@{proposals}"
            for proposals in (1, 5, 10, 100)
            if self.proposals_per_video[0] <= proposals + 1e-9 <= self.proposals_per_video[-1] + 1e-9
        ]
        return {
            "protocol": "activitynet_proposals",
            "headline": {"AUC": self.auc, **{name: self.recall_at(int(name[3:])) for name in names}},
            "tiou_thresholds": self.tiou_thresholds.tolist(),
            "proposals_per_video": self.proposals_per_video.tolist(),
            "average_recall": self.average_recall.tolist(),
            "num_videos": self.num_videos,
            "num_truths": self.num_truths,
            "num_proposals": self.num_proposals,
        }

    def to_json(self, *, indent: int | None = None) -> str:
        """`to_dict` as a JSON string."""
        return json.dumps(self.to_dict(), indent=indent)

    def __repr__(self) -> str:
        return f"TemporalProposalResult(AUC={self.auc:.2f}, AR@max={self.average_recall[-1]:.4f})"


def evaluate_temporal_proposals(
    ground_truth: TemporalSegments,
    proposals: TemporalSegments,
    *,
    max_proposals_per_video: float = DEFAULT_MAX_PROPOSALS,
    tiou_thresholds: str | ArrayLike = "activitynet",
) -> TemporalProposalResult:
    """Average recall of temporal proposals against the average number per video (AR@AN) and its AUC.

    Parameters
    ----------
    ground_truth : TemporalSegments
        The true segments (labels are not used); its ``videos`` are the videos evaluated.
    proposals : TemporalSegments
        Scored segments (labels are not used).
    max_proposals_per_video : float, default 100
        The average number of proposals per video kept (ActivityNet's ``max_avg_nr_proposals``).
    tiou_thresholds : "activitynet", "thumos14" or array_like, default "activitynet"

    Returns
    -------
    TemporalProposalResult

    Raises
    ------
    InvalidArgumentError
        For proposals without scores, a ground truth without segments, a non-positive
        `max_proposals_per_video`, or thresholds outside [0, 1].
    """
    if not isinstance(ground_truth, TemporalSegments) or not isinstance(proposals, TemporalSegments):
        raise invalid_argument(
            "ground_truth, proposals", "TemporalSegments", f"{type(ground_truth).__name__}, {type(proposals).__name__}"
        )
    if proposals.score is None:
        raise invalid_argument("proposals", "scored (each proposal needs a 'score')", "no scores")
    if not len(ground_truth):
        raise invalid_argument("ground_truth", "at least one segment", "none")
    number = isinstance(max_proposals_per_video, (int, float, np.integer, np.floating))
    if isinstance(max_proposals_per_video, bool) or not number or not max_proposals_per_video > 0:
        raise invalid_argument("max_proposals_per_video", "a positive number", max_proposals_per_video)
    thresholds = _thresholds(tiou_thresholds)
    videos = list(dict.fromkeys(ground_truth.video_id.tolist()))  # videos with ground truth, as ActivityNet's list
    evaluated = np.isin(proposals.video_id, np.array(videos, dtype=object))
    total = int(evaluated.sum())
    # Every video keeps the same share of its ranked proposals: `max_proposals_per_video` on average.
    ratio = float(max_proposals_per_video) * len(videos) / total if total else 0.0
    overlaps, kept_total = [], 0
    for video in videos:
        truth = ground_truth.video_id == video
        truth_coords = np.column_stack([ground_truth.start[truth], ground_truth.end[truth]])
        rows = np.flatnonzero(evaluated & (proposals.video_id == video))
        if not rows.size:
            overlaps.append(np.zeros((len(truth_coords), 0)))
            continue
        ranked = rows[np.argsort(proposals.score[rows], kind="stable")[::-1]]  # ties: the later one first
        kept = ranked[: min(int(len(ranked) * ratio), len(ranked))]
        kept_total += len(kept)
        coords = np.column_stack([proposals.start[kept], proposals.end[kept]])
        overlaps.append(
            np.asarray(
                pairwise_iou(Interval(truth_coords), Interval(coords.reshape(-1, 2)), zero_division=0.0)
            ).reshape(len(truth_coords), len(kept))
        )
    shares = BUDGETS * (float(max_proposals_per_video) * len(videos) / kept_total) if kept_total else BUDGETS
    positives = sum(len(tiou) for tiou in overlaps)
    recall = np.zeros((len(thresholds), len(BUDGETS)))
    for t, threshold in enumerate(thresholds):
        for tiou in overlaps:
            if not tiou.size:  # no proposal kept in this video: nothing recalled
                continue
            reaches = tiou >= threshold
            budget = np.minimum((tiou.shape[1] * shares).astype(np.int64), tiou.shape[1])
            # Recalled at a budget: some proposal among the first `budget` reaches the threshold.
            first_hit = np.where(reaches.any(axis=1), reaches.argmax(axis=1), np.iinfo(np.int64).max)
            recall[t] += (first_hit[None, :] < budget[:, None]).sum(axis=1)
        recall[t] /= positives
    average = recall.mean(axis=0)
    per_video = shares * (kept_total / len(videos))
    area = float(np.sum((average[1:] + average[:-1]) / 2 * np.diff(per_video)))  # trapezoids, as np.trapz
    return TemporalProposalResult(
        thresholds, per_video, recall, average, 100.0 * area / float(per_video[-1]), len(videos), positives, kept_total
    )
