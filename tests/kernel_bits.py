"""A recorded corpus of region pairs of every kind and what every metric gave them, to the bit.

The corpus was recorded from the numba engine before the kernels moved to the Rust crate
(`python tests/kernel_bits.py --record`, which writes ``tests/data/kernel_bits.npz``), so that
`tests/kernels/test_recorded_bits.py` holds the crate to the same bits: the numba kernels are
gone, their numbers stay. It holds the inputs (so nothing depends on a random stream) and the
outputs of each metric for each pair of kinds, elementwise and pairwise, the single-pair path,
`overlaps`, boundary IoU and pycocotools' rasterizer.

The suites: seeded random regions around the origin, and regions built where published
implementations go wrong (identical and nested regions, shared edges and corners, quarter turns
and nearly parallel boxes, zero-area regions, sizes down to 1e-9, offsets of 1e6 to 1e15), each
placed so that the kinds of one scene overlap each other.

Import as ``from kernel_bits import ...`` (pytest puts ``tests/`` on the path).
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path
from typing import Any, Callable

import numpy as np

import geoiou

__all__ = ["CORPUS", "KINDS_2D", "KINDS_3D", "computed", "load", "regions_of", "same_bits"]

CORPUS = Path(__file__).resolve().parent / "data" / "kernel_bits.npz"
KINDS_2D = ("box", "rotated", "polygon", "mask", "rle_mask")
KINDS_3D = ("box3d", "rotated3d", "oriented3d")

#: Where each scene lies: the regions of a scene overlap one another, scenes far apart test the frames.
SCENES = ((0.0, 0.0), (1.0e6, -3.0e6), (4.0e10, 1.0e10), (-2.0e15, 1.0e15))
SCENE_SIZE = 100.0


# --------------------------------------------------------------------------- the inputs
def _boxes(rng: np.random.Generator) -> np.ndarray:
    """xyxy boxes: random, identical, nested, touching, sharing edges, zero-area and tiny, in every scene."""
    rows = []
    for ox, oy in SCENES:
        xy = rng.uniform(0, SCENE_SIZE, (14, 2))
        size = rng.uniform(2, 40, (14, 2))
        rows += [np.hstack([xy, xy + size]) + [ox, oy, ox, oy]]
        base = np.array([10.0, 10.0, 50.0, 30.0]) + [ox, oy, ox, oy]
        rows += [
            np.array(
                [
                    base,
                    base,  # identical
                    base + [5, 5, -5, -5],  # nested
                    base + [40, 0, 40, 0],  # touching along an edge
                    base + [40, 20, 40, 20],  # touching at a corner
                    base + [0, 10, 0, 10],  # sharing the x extent
                    base + [20, 0, 20, 0],  # half over
                    [base[0], base[1], base[0], base[3]],  # zero width
                    [base[0] + 3, base[1] + 3, base[0] + 3 + 1e-9, base[1] + 3 + 1e-9],  # tiny
                ]
            )
        ]
    return np.concatenate(rows)


def _rotated(rng: np.random.Generator) -> np.ndarray:
    """cx, cy, w, h, angle: random angles, quarter turns, nearly parallel, identical, flat, tiny, far."""
    rows = []
    for ox, oy in SCENES:
        centre = rng.uniform(10, 90, (14, 2))
        rows += [np.column_stack([centre, rng.uniform(2, 40, (14, 2)), rng.uniform(-180, 180, 14)]) + [ox, oy, 0, 0, 0]]
        c = [30.0 + ox, 20.0 + oy]
        rows += [
            np.array(
                [
                    [*c, 40, 20, 30],
                    [*c, 40, 20, 30],  # identical
                    [*c, 40, 20, 30 + 1e-12],  # nearly parallel
                    [*c, 20, 40, 120],  # the same region a quarter turn on
                    [*c, 40, 20, 210],  # half a turn on
                    [*c, 40, 20, -330],  # a whole turn back
                    [c[0] + 40, c[1], 40, 20, 0],  # sharing an edge with the next
                    [*c, 40, 20, 0],
                    [*c, 40, 20, 90],
                    [*c, 20, 10, 30],  # nested
                    [*c, 0, 20, 45],  # flat
                    [c[0] + 1, c[1] + 1, 1e-9, 2e-9, 17],  # tiny
                    [*c, 40, 20, 45],
                    [c[0] + 1e-7, c[1], 40, 20, 45],  # nearly the same
                ]
            )
        ]
    return np.concatenate(rows)


def _star(rng: np.random.Generator, centre: np.ndarray, vertices: int, radius: float) -> np.ndarray:
    """A star-shaped ring around `centre` (valid: one vertex in each of `vertices` equal sectors, no gap of half
    a turn), closed, counter-clockwise."""
    angles = (np.arange(vertices) + rng.uniform(0.2, 0.8, vertices)) * (2 * np.pi / vertices)
    radii = radius * rng.uniform(0.4, 1.0, vertices)
    ring = centre + np.column_stack([radii * np.cos(angles), radii * np.sin(angles)])
    return np.vstack([ring, ring[:1]])


def _polygons(rng: np.random.Generator) -> list[Any]:
    """Polygons as shapely-free rings: stars, boxes' outlines, squares with holes, two-part polygons, grids."""
    import shapely

    polygons: list[Any] = []
    for ox, oy in SCENES:
        shift = np.array([ox, oy])
        for k in range(10):
            polygons.append(shapely.Polygon(_star(rng, rng.uniform(20, 80, 2) + shift, int(rng.integers(4, 30)), 25)))
        square = np.array([[10, 10], [50, 10], [50, 50], [10, 50], [10, 10]], dtype=float)
        hole = np.array([[20, 20], [20, 40], [40, 40], [40, 20], [20, 20]], dtype=float)
        polygons += [
            shapely.Polygon(square + shift),
            shapely.Polygon(square + shift),  # identical
            shapely.Polygon(square + shift, [hole + shift]),  # with a hole
            shapely.Polygon(square[::-1] + shift + [40, 0]),  # clockwise, sharing an edge
            shapely.Polygon(hole + shift),  # the hole itself
            shapely.MultiPolygon(
                [shapely.Polygon(square * 0.5 + shift), shapely.Polygon(square * 0.5 + shift + [40, 40])]
            ),
            shapely.Polygon(np.array([[0, 0], [64, 0], [64, 1], [0, 1]], dtype=float) + shift + [0, 30]),  # a sliver
        ]
    return polygons


def _masks(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Dense masks on one 48×48 grid and their origins: random blobs, full, empty, one pixel, offsets."""
    count = 18
    masks = np.zeros((count, 48, 48), dtype=bool)
    for k in range(12):
        rows, cols = np.ogrid[:48, :48]
        cy, cx, r = rng.uniform(10, 38), rng.uniform(10, 38), rng.uniform(4, 18)
        masks[k] = (rows - cy) ** 2 + (cols - cx) ** 2 <= r * r
        masks[k] &= rng.random((48, 48)) > 0.1
    masks[12] = True
    masks[14, 20, 20] = True
    masks[15, 5:30, 10:12] = True
    masks[16] = rng.random((48, 48)) > 0.5
    masks[17, 0:48:2] = True
    origins = np.zeros((count, 2))
    origins[[1, 5, 9]] = [[0.5, 0.25], [3.0, 2.0], [0.75, 0.0]]  # offset grids, whole and fractional
    return masks, origins


def _intervals(rng: np.random.Generator) -> np.ndarray:
    starts = rng.uniform(0, 100, 40)
    random = np.column_stack([starts, starts + rng.uniform(0, 30, 40)])
    special = np.array(
        [[10, 20], [10, 20], [20, 30], [15, 15], [0, 100], [12, 18], [1e15, 1e15 + 4], [1e15 + 2, 1e15 + 8]]
    )
    return np.concatenate([random, special])


def _boxes3d(rng: np.random.Generator) -> np.ndarray:
    low = rng.uniform(0, 40, (24, 3))
    random = np.hstack([low, low + rng.uniform(1, 20, (24, 3))])
    base = np.array([5.0, 5, 5, 15, 25, 10])
    special = np.array([base, base, base + [2, 2, 2, -2, -2, -2], base + [10, 0, 0, 10, 0, 0], base + [1e9] * 6])
    return np.concatenate([random, special])


def _rotated3d(rng: np.random.Generator) -> np.ndarray:
    random = np.column_stack([rng.uniform(10, 40, (24, 3)), rng.uniform(2, 20, (24, 3)), rng.uniform(-180, 180, 24)])
    c = [20.0, 20.0, 5.0]
    special = np.array(
        [[*c, 10, 6, 4, 30], [*c, 10, 6, 4, 30], [*c, 6, 10, 4, 120], [*c, 10, 6, 4, 30 + 1e-12], [*c, 4, 3, 2, 30],
         [c[0] + 1e7, c[1], c[2], 10, 6, 4, 30], [c[0] + 1e7, c[1] + 2, c[2], 10, 6, 4, 75]]
    )  # fmt: skip
    return np.concatenate([random, special])


def _oriented3d(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    centres = rng.uniform(10, 40, (24, 3))
    sizes = rng.uniform(2, 20, (24, 3))
    quaternions = rng.normal(size=(24, 4))
    rotations = geoiou.OrientedBox3D.from_quaternion(centres, sizes, quaternions).rotation
    yaw = geoiou.RotatedBox3D(_rotated3d(np.random.default_rng(5))[-7:]).to_oriented_box3d()
    return (
        np.concatenate([centres, yaw.centre, centres[:3]]),
        np.concatenate([sizes, yaw.sizes, sizes[:3] * 0.5]),
        np.concatenate([rotations, yaw.rotation, rotations[:3]]),
    )


def recorded_inputs(seed: int = 2026) -> dict[str, np.ndarray]:
    """The corpus's inputs as arrays (what the npz file stores)."""
    import shapely

    rng = np.random.default_rng(seed)
    as_multi = [p if isinstance(p, shapely.MultiPolygon) else shapely.MultiPolygon([p]) for p in _polygons(rng)]
    coords, (rings, parts, geometries) = shapely.to_ragged_array(np.array(as_multi, dtype=object))[1:]
    masks, origins = _masks(rng)
    centres, sizes, rotations = _oriented3d(rng)
    return {
        "box": _boxes(rng),
        "rotated": _rotated(rng),
        "polygon_coords": np.asarray(coords, dtype=np.float64),
        "polygon_rings": np.asarray(rings),
        "polygon_parts": np.asarray(parts),
        "polygon_geometries": np.asarray(geometries),
        "mask": masks,
        "mask_origin": origins,
        "interval": _intervals(rng),
        "box3d": _boxes3d(rng),
        "rotated3d": _rotated3d(rng),
        "oriented3d_centre": centres,
        "oriented3d_sizes": sizes,
        "oriented3d_rotation": rotations,
    }


def regions_of(inputs: dict[str, np.ndarray]) -> dict[str, geoiou.Region]:
    """The regions of each kind, built from the stored arrays."""
    masks, origins = inputs["mask"], inputs["mask_origin"]
    dense = geoiou.Mask.stack([geoiou.Mask(m, origin=o) for m, o in zip(masks, origins)])
    held_as_runs = geoiou.Mask.from_rle(geoiou.rle.encode_batch(masks))  # one grid: their runs are walked
    return {
        "box": geoiou.Box(inputs["box"]),
        "rotated": geoiou.RotatedBox(inputs["rotated"]),
        "polygon": geoiou.Polygon.from_ragged(
            inputs["polygon_coords"], inputs["polygon_rings"], inputs["polygon_parts"], inputs["polygon_geometries"]
        ),
        "mask": dense,
        "rle_mask": held_as_runs,
        "interval": geoiou.Interval(inputs["interval"]),
        "box3d": geoiou.Box3D(inputs["box3d"]),
        "rotated3d": geoiou.RotatedBox3D(inputs["rotated3d"]),
        "oriented3d": geoiou.OrientedBox3D(
            inputs["oriented3d_centre"], inputs["oriented3d_sizes"], inputs["oriented3d_rotation"]
        ),
    }


# --------------------------------------------------------------------------- the outputs
Metric = Callable[[geoiou.Region, geoiou.Region], Any]


def _metrics(kind_a: str, kind_b: str) -> dict[str, Metric]:
    """What is recorded for a pair of kinds: every metric, pairwise and elementwise, and single pairs."""
    metrics: dict[str, Metric] = {
        "pairwise_iou": geoiou.pairwise_iou,
        "pairwise_iof": geoiou.pairwise_iof,
        "pairwise_intersection": geoiou.pairwise_intersection_area,
        "pairwise_giou": geoiou.pairwise_giou,
        "iou": lambda a, b: geoiou.iou(*_zipped(a, b)),
        "giou": lambda a, b: geoiou.giou(*_zipped(a, b)),
        "union": lambda a, b: geoiou.union_area(*_zipped(a, b)),
        "enclosure": lambda a, b: geoiou.enclosure_area(*_zipped(a, b)),
        "single": _singles,
        "overlaps": _overlaps,
    }
    if kind_a not in ("mask", "rle_mask") and kind_b not in ("mask", "rle_mask"):
        metrics["diou"] = lambda a, b: geoiou.diou(*_zipped(a, b))
    if kind_a in ("box", "interval", "box3d") and kind_a == kind_b:
        metrics["pairwise_giou_hull"] = lambda a, b: geoiou.pairwise_giou(a, b, enclosure="hull")
    if kind_a == kind_b == "box":
        metrics["ciou"] = lambda a, b: geoiou.ciou(*_zipped(a, b))
    if kind_a == kind_b and kind_a in ("box", "interval"):
        metrics["siou"] = lambda a, b: geoiou.siou(*_zipped(a, b))
        metrics["pairwise_siou"] = geoiou.pairwise_siou
    return metrics


def _zipped(a: geoiou.Region, b: geoiou.Region) -> tuple[geoiou.Region, geoiou.Region]:
    """Region k of `a` with region k of `b`, and with `b`'s region k + 1 further on: every region meets twice."""
    n = min(a.size, b.size)
    index_a = np.concatenate([np.arange(n), np.arange(n)])
    index_b = np.concatenate([np.arange(n), (np.arange(n) + 1) % b.size])
    return a[index_a], b[index_b]


def _singles(a: geoiou.Region, b: geoiou.Region) -> np.ndarray:
    """iou, giou, iof, intersection and union of single regions (the single-pair entries), a few pairs."""
    values = []
    for i, j in itertools.islice(zip(range(a.size), itertools.cycle(range(b.size))), 0, None, 3):
        one_a, one_b = a[i], b[j]
        values += [
            geoiou.iou(one_a, one_b),
            geoiou.giou(one_a, one_b),
            geoiou.iof(one_a, one_b),
            geoiou.intersection_area(one_a, one_b),
            geoiou.union_area(one_a, one_b),
        ]
    return np.array(values, dtype=np.float64)


def _overlaps(a: geoiou.Region, b: geoiou.Region) -> np.ndarray:
    found = geoiou.overlaps(a, b, min_iou=0.05)
    return np.concatenate([found.index_a.astype(np.float64), found.index_b.astype(np.float64), found.iou])


def _extras(regions: dict[str, geoiou.Region], inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The region layer's compiled work seen from outside: bands, boundary IoU, rasterized polygons' runs."""
    near = regions["polygon"][:10]
    masks = regions["mask"]
    outputs = {
        "boundary_iou/mask/mask": geoiou.pairwise_boundary_iou(masks, masks, distance=2),
        "boundary_iou/rle_mask/rle_mask": geoiou.pairwise_boundary_iou(regions["rle_mask"], regions["rle_mask"]),
        "boundary_iou/polygon/polygon": geoiou.pairwise_boundary_iou(near, near, distance=3),
        "boundary_iou/polygon/mask": geoiou.pairwise_boundary_iou(near, masks, distance=2),
    }
    rings = [inputs["polygon_coords"][s:e] for s, e in itertools.pairwise(inputs["polygon_rings"][:40])]
    from geoiou.rle_rasterize import coco_compat_counts

    counts = [np.asarray(coco_compat_counts([ring], 80, 90), dtype=np.float64) for ring in rings if ring.max() < 1e3]
    outputs["rasterized_counts"] = np.concatenate(counts)
    return outputs


def computed(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every recorded output, keyed ``metric/kind_a/kind_b``, as float64 arrays."""
    regions = regions_of(inputs)
    outputs: dict[str, np.ndarray] = {}
    families = [KINDS_2D, ("interval",), KINDS_3D]
    for family in families:
        for kind_a, kind_b in itertools.product(family, repeat=2):
            for name, metric in _metrics(kind_a, kind_b).items():
                value = np.asarray(metric(regions[kind_a], regions[kind_b]), dtype=np.float64)
                outputs[f"{name}/{kind_a}/{kind_b}"] = value
    outputs.update(_extras(regions, inputs))
    return outputs


def record(path: Path = CORPUS) -> None:
    """Write the corpus (inputs and outputs) to `path`; outputs recorded before are kept as they were (a metric
    added later is recorded from the engine of its day, the others stay the numba engine's)."""
    inputs, kept = load(path) if path.exists() else (recorded_inputs(), {})
    outputs = computed(inputs)
    outputs.update(kept)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        path, **{f"input:{k}": v for k, v in inputs.items()}, **{f"output:{k}": v for k, v in outputs.items()}
    )
    print(f"{path}: {len(inputs)} inputs, {len(outputs)} outputs, {sum(v.size for v in outputs.values())} values")


def same_bits(expected: np.ndarray, got: np.ndarray) -> bool:
    """Whether two float64 arrays hold the same bits (signed zeros and NaNs included)."""
    got = np.ascontiguousarray(got, dtype=np.float64)
    return expected.shape == got.shape and np.array_equal(expected.view(np.uint64), got.view(np.uint64))


def load(path: Path = CORPUS) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The recorded inputs and outputs."""
    with np.load(path) as stored:
        inputs = {k.split(":", 1)[1]: stored[k] for k in stored.files if k.startswith("input:")}
        outputs = {k.split(":", 1)[1]: stored[k] for k in stored.files if k.startswith("output:")}
    return inputs, outputs


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--record", action="store_true", help="write tests/data/kernel_bits.npz")
    if parser.parse_args().record:
        record()
    else:
        inputs, expected = load()
        got = computed(inputs)
        differ = [k for k in expected if not same_bits(expected[k], got[k])]
        print(f"{len(expected) - len(differ)} of {len(expected)} outputs have the recorded bits; differ: {differ}")
