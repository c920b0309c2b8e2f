"""Diagnostics of detection evaluations for every geometry: why a detector misses, and what it would gain.

Wrap an evaluation state in `DiagnosticsEvaluation` (or call `diagnose`): its ``update`` keeps,
beside the evaluation's own part, each prediction's overlaps with every ground truth of its image,
measured once with the overlaps the matching uses. ``compute`` gives `Diagnostics`: the evaluation's
result and, derived from its per-object table without measuring anything again,

- `Diagnostics.tide`: TIDE's error breakdown and the AP each error costs;
- `Diagnostics.confusion_matrix`: which category each object was found as, with background;
- `Diagnostics.calibration`: expected and maximum calibration error, the reliability table;
- `Diagnostics.f_beta`: precision, recall and F-beta against the score threshold;
- `Diagnostics.slices`, `Diagnostics.per_image`, `Diagnostics.label_errors`;
- `compare`: two result sets on the same ground truth, with paired bootstrap intervals.

The states merge as the evaluations' do (a training loop's batches, Dask partitions with
`geoiou.dask.evaluate`).
"""

from geoiou.diagnostics.calibration import CalibrationResult
from geoiou.diagnostics.comparison import Comparison, Difference, compare
from geoiou.diagnostics.confusion import DetectionConfusion
from geoiou.diagnostics.fbeta import FBetaCurve, FBetaResult
from geoiou.diagnostics.images import ImageScores
from geoiou.diagnostics.label_errors import LabelErrors
from geoiou.diagnostics.result import Diagnostics
from geoiou.diagnostics.state import DiagnosticsEvaluation, DiagnosticsSettings, diagnose
from geoiou.diagnostics.table import DetectionTable
from geoiou.diagnostics.tide import TideResult

__all__ = [
    "CalibrationResult",
    "Comparison",
    "DetectionConfusion",
    "DetectionTable",
    "Diagnostics",
    "DiagnosticsEvaluation",
    "DiagnosticsSettings",
    "Difference",
    "FBetaCurve",
    "FBetaResult",
    "ImageScores",
    "LabelErrors",
    "TideResult",
    "compare",
    "diagnose",
]
