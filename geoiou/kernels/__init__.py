"""Pair kernels: each module registers the kernels of its kinds in `geoiou.dispatch` on import."""

from geoiou.kernels import box, mask, polygon, rotated_pairs, union_hull  # noqa: F401  (imported to register)
