"""Pair kernels: each module registers the kernels of its kinds in `geoiou.dispatch` on import."""

from geoiou.kernels import box, boxes3d, mask, polygon, rotated, union_hull  # noqa: F401  (imported to register)
