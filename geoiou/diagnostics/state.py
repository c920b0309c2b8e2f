"""The mergeable state of the diagnostics: an evaluation state updated with its overlaps widened, part by part.

`DiagnosticsEvaluation` wraps an evaluation state (`CocoEvaluation`, `VocEvaluation` or
`TemporalDetectionEvaluation`): each ``update`` runs that evaluation's own ``update`` with its pair
source widened (`geoiou.diagnostics.widening`) and keeps, beside the evaluation's part, what the
diagnostics read of geometry: every evaluated prediction's overlaps with every ground truth of its
image from the background threshold up, and the codes of each row. Nothing else of the regions is
kept, so the state travels as the evaluation's does (a training loop's batches, Dask partitions), and
``compute`` gives the evaluation's result and the `Diagnostics` derived from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

import numpy as np

from geoiou._validation import invalid_argument as _fail
from geoiou.diagnostics.result import Diagnostics
from geoiou.diagnostics.table import RecordedPart, detection_table
from geoiou.diagnostics.widening import WidePairs, widened
from geoiou.evaluation.coco import CocoArrays, CocoEvaluation, PairSource
from geoiou.evaluation.mergeable import MergeableEvaluation
from geoiou.evaluation.temporal import TemporalDetectionEvaluation
from geoiou.evaluation.voc import VocEvaluation

__all__ = ["DiagnosticsEvaluation", "DiagnosticsSettings", "diagnose"]

#: The evaluation states the diagnostics wrap.
Evaluation = Union[CocoEvaluation, VocEvaluation, TemporalDetectionEvaluation]
PROTOCOL_OF: dict[type, str] = {CocoEvaluation: "coco", VocEvaluation: "voc", TemporalDetectionEvaluation: "temporal"}
#: TIDE's background threshold (Bolya et al., 2020): overlaps below it are background.
BACKGROUND_THRESHOLD = 0.1


@dataclass(frozen=True)
class DiagnosticsSettings:
    """The checked settings of a `DiagnosticsEvaluation` (the wrapped evaluation's are compared by its own merge).

    ``background_threshold`` is the lowest overlap kept: every diagnostic that reads overlaps
    (TIDE's background threshold, a confusion matrix's IoU) can go down to it, not below.
    """

    protocol: str
    background_threshold: float


class _Recorder:
    """What one update's hook sees: the part's codes (from the evaluation) and its widened pairs."""

    def __init__(self, floor: float) -> None:
        self.floor = floor
        self.pairs = WidePairs.empty()
        self.part: tuple[CocoArrays, np.ndarray, np.ndarray] | None = None

    def hook(self, source: PairSource, data: CocoArrays, image_ids: np.ndarray, category_ids: np.ndarray) -> PairSource:
        self.part = (data, image_ids, category_ids)
        return widened(source, data.dt_image, data.gt_image, self.floor, self.keep)

    def keep(self, pairs: WidePairs) -> None:
        self.pairs = pairs

    def recorded(self) -> RecordedPart:
        assert self.part is not None, "the evaluation's update did not call its pair hook"
        data, image_ids, category_ids = self.part
        return RecordedPart.of(data, image_ids, category_ids, self.pairs)


class DiagnosticsEvaluation(MergeableEvaluation[Diagnostics]):
    """Diagnostics of a detection evaluation accumulated part by part: `update` per part, `merge`, `compute`.

    Parameters
    ----------
    evaluation : CocoEvaluation, VocEvaluation or TemporalDetectionEvaluation, optional
        The evaluation to run and diagnose, with its settings and no parts yet (default
        ``CocoEvaluation()``). Temporal detection's videos are the images, its labels the
        categories.
    background_threshold : float, default 0.1
        The lowest overlap the diagnostics read (TIDE's background threshold): each prediction's
        overlaps with the ground truths of its image (every category) are kept from it up.

    Notes
    -----
    ``update`` takes what the evaluation's ``update`` takes. It runs it with the candidate pairs of
    each image measured for every category at once (once each: the matching gets its own pairs out
    of them), so the evaluation's result is exactly its result without diagnostics. Parts merge as
    the evaluation's do.

    Examples
    --------
    >>> import geoiou
    >>> from geoiou.evaluation import Annotations
    >>> state = DiagnosticsEvaluation(CocoEvaluation(categories=["cat", "dog"]))
    >>> for image in (1, 2):  # a training loop's batches
    ...     truth = Annotations(image_id=image, category_id=["cat"], region=geoiou.Box([[0, 0, 10, 10]]))
    ...     label = "cat" if image == 1 else "dog"  # the second is found as the wrong category
    ...     preds = Annotations(image_id=image, category_id=[label], score=[0.9], region=geoiou.Box([[0, 0, 10, 9]]))
    ...     _ = state.update(truth, preds, images=[image])
    >>> diagnostics = state.compute()
    >>> round(diagnostics.result["AP50"], 3), diagnostics.tide().counts["classification"]
    (0.505, 1)
    """

    settings: DiagnosticsSettings

    def __init__(self, evaluation: Evaluation | None = None, *, background_threshold: float = BACKGROUND_THRESHOLD):
        evaluation = CocoEvaluation() if evaluation is None else evaluation
        protocol = PROTOCOL_OF.get(type(evaluation))
        if protocol is None:
            raise _fail(
                "evaluation",
                "a CocoEvaluation, VocEvaluation or TemporalDetectionEvaluation",
                type(evaluation).__name__,
            )
        if evaluation.num_parts:
            raise _fail("evaluation", "an evaluation state without parts (its settings)", f"{evaluation!r}")
        if not (isinstance(background_threshold, (int, float, np.number)) and 0 < background_threshold < 1):
            raise _fail("background_threshold", "a number in (0, 1)", background_threshold)
        self._evaluation: Evaluation = evaluation.empty()
        self._start(DiagnosticsSettings(protocol, float(background_threshold)))

    @property
    def evaluation(self) -> Evaluation:
        """The wrapped evaluation's settings (a state without parts)."""
        return self._evaluation

    def update(self, *args: Any, **kwargs: Any) -> DiagnosticsEvaluation:
        """Update with one part, as the wrapped evaluation's ``update`` takes it; return ``self``."""
        inner = self._evaluation.empty()
        recorder = _Recorder(self.settings.background_threshold)
        inner.pair_hook = recorder.hook
        inner.update(*args, **kwargs)
        self._parts.append((inner._parts[0], recorder.recorded()))
        return self

    def merge(self, *others: DiagnosticsEvaluation) -> DiagnosticsEvaluation:
        """A new state holding the parts of this state and then of `others` (see `MergeableEvaluation.merge`)."""
        merged = super().merge(*others)
        evaluation: Any = self._evaluation  # one of three state types: merge checks that the others are of it
        evaluation.merge(*(other._evaluation for other in others))  # refuses differing evaluation settings
        return merged

    def compute(self) -> Diagnostics:
        """The evaluation's result over every part, with the `Diagnostics` of it."""
        if not self._parts:
            raise _fail("state", "a DiagnosticsEvaluation updated with at least one part", "none")
        inner = self._evaluation.empty()
        inner._parts = [part for part, _ in self._parts]
        result = inner.compute()
        table = detection_table(
            self.settings.protocol, self._evaluation.settings, result, self._parts, self.settings.background_threshold
        )
        return Diagnostics(result, table, self._evaluation.settings)


def diagnose(
    ground_truth: Any,
    predictions: Any,
    *,
    evaluation: Evaluation | None = None,
    background_threshold: float = BACKGROUND_THRESHOLD,
    **options: Any,
) -> Diagnostics:
    """Evaluate and diagnose in one call: one `DiagnosticsEvaluation` updated once.

    Parameters
    ----------
    ground_truth, predictions
        What the evaluation's ``update`` takes (`Annotations` for COCO and VOC, segments for
        temporal detection).
    evaluation : CocoEvaluation, VocEvaluation or TemporalDetectionEvaluation, optional
        The evaluation and its settings, default ``CocoEvaluation()``.
    background_threshold : float, default 0.1
        The lowest overlap the diagnostics read.
    options
        Further arguments of the evaluation's ``update`` (``images=...``).

    Returns
    -------
    Diagnostics

    Examples
    --------
    >>> from geoiou.evaluation import TemporalDetectionEvaluation
    >>> truth = {"v1": [(0, 10, "jump"), (20, 30, "run")]}
    >>> preds = {"v1": [(0, 9, "jump", 0.9), (21, 30, "jump", 0.8)]}  # the run is found as a jump
    >>> diagnostics = diagnose(truth, preds, evaluation=TemporalDetectionEvaluation(tiou_thresholds=[0.5]))
    >>> diagnostics.tide().counts["classification"], diagnostics.tide().counts["missed"]
    (1, 0)
    """
    state = DiagnosticsEvaluation(evaluation, background_threshold=background_threshold)
    return state.update(ground_truth, predictions, **options).compute()
