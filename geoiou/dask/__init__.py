"""geoiou beyond one machine, on Dask (``pip install 'geoiou[dask]'``).

- Evaluations: `evaluate_coco`, `evaluate_voc`, `evaluate_temporal_detection` and
  `evaluate_agreement` split their input by image (or video) into parts, update one evaluation
  state per part on the workers and merge the states: the result is exactly the one-call result.
  `evaluate_coco_files` reads result shards on the workers. `evaluate_split` splits the same way
  for any evaluation state (diagnostics too), and `evaluate` runs any state over parts you give
  (tuples, or delayed reads). Per-object rows (matches, an agreement's pairs, the diagnostics'
  table) are the inputs' rows, whatever the parts.
- Region sets: `overlaps` and `match` of two large sets (geoiou batches or dask-geopandas
  collections), spatially partitioned, each pair found once.

Every function runs on the client given, on a scheduler at an address, on a local cluster of
`workers` processes, or else on the current client (see `connected`). Regions travel to the
workers as coordinate arrays (or COCO runs), not as pickled shapely objects.
"""

from geoiou.dask.cluster import connected, local_cluster
from geoiou.dask.evaluations import (
    evaluate,
    evaluate_agreement,
    evaluate_coco,
    evaluate_coco_files,
    evaluate_split,
    evaluate_temporal_detection,
    evaluate_voc,
)
from geoiou.dask.spatial import match, overlaps

__all__ = [
    "connected",
    "evaluate",
    "evaluate_agreement",
    "evaluate_coco",
    "evaluate_coco_files",
    "evaluate_split",
    "evaluate_temporal_detection",
    "evaluate_voc",
    "local_cluster",
    "match",
    "overlaps",
]
