"""3-D boxes: geoiou against the peers people use, side by side on the same data, ratios printed.

- **S3** one yaw pair per call, construction included (`iou(RotatedBox3D(...), RotatedBox3D(...))`);
  the target is 5 µs.
- **B3** 1000 x 1000 yaw boxes (a LiDAR scene: objects and predictions near them), `pairwise_iou`
  against shapely 2: the footprints as polygons, an `STRtree` for the pairs that may meet, their
  intersection areas times the overlap of their heights (construction of the polygons included,
  as a user of shapely does it); the target is 10x.
- **O3** oriented boxes (any rotation), elementwise `iou` against SciPy's `HalfspaceIntersection`
  (an interior point by `linprog`, the volume by `ConvexHull`), the independent exact method;
  reported, with the largest difference.

Run ``python benchmarks/bench_boxes3d.py`` (``--quick`` for small sizes). The machine is shared:
the load average is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import os
import time
import timeit

import numpy as np
import shapely

import geoiou


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"


def best_of(function, repeats: int) -> float:
    """The smallest of `repeats` timings of one call (after a warm-up call), in seconds."""
    function()
    return min(timeit.repeat(function, number=1, repeat=repeats))


def single_pair(calls: int) -> None:
    def one() -> float:
        return geoiou.iou(
            geoiou.RotatedBox3D([10.0, 2.0, -0.8, 3.9, 1.6, 1.5, 30.0]),
            geoiou.RotatedBox3D([10.3, 2.2, -0.7, 4.1, 1.7, 1.5, 34.0]),
        )

    one()
    per_call = min(timeit.repeat(one, number=calls, repeat=5)) / calls
    print(f"S3  one yaw pair, construction included: {per_call * 1e6:.2f} µs per call (target: at most 5 µs)")


def lidar_scene(count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Objects on a 200 m x 200 m ground (cars, pedestrians, cyclists) and predictions near each."""
    gen = np.random.default_rng(seed)
    sizes = gen.choice(np.array([[3.9, 1.6, 1.5], [0.8, 0.6, 1.7], [1.8, 0.6, 1.7]]), size=count) * gen.uniform(
        0.9, 1.1, (count, 3)
    )
    centre = np.column_stack([gen.uniform(-100, 100, (count, 2)), -1.7 + sizes[:, 2] / 2])
    truth = np.column_stack([centre, sizes, gen.uniform(-180, 180, count)])
    found = truth + np.column_stack(
        [
            gen.normal(0, 0.3, (count, 2)),
            gen.normal(0, 0.1, count),
            gen.normal(0, 0.1, (count, 3)),
            gen.normal(0, 5, count),
        ]
    )
    found[:, 3:6] = np.abs(found[:, 3:6])
    return truth, found


def shapely_bev_times_heights(truth: np.ndarray, found: np.ndarray) -> np.ndarray:
    """The peer: footprints as shapely polygons, an STRtree, intersection areas times the overlap of the heights."""

    def polygons(boxes: np.ndarray) -> np.ndarray:
        theta = np.deg2rad(boxes[:, 6])
        c, s = np.cos(theta), np.sin(theta)
        signs = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=float)
        local = signs[None] * (boxes[:, None, 3:5] / 2)
        x = boxes[:, None, 0] + c[:, None] * local[..., 0] - s[:, None] * local[..., 1]
        y = boxes[:, None, 1] + s[:, None] * local[..., 0] + c[:, None] * local[..., 1]
        return shapely.polygons(np.stack([x, y], axis=-1))

    a, b = polygons(truth), polygons(found)
    i, j = shapely.STRtree(b).query(a, predicate="intersects")
    area = shapely.area(shapely.intersection(a[i], b[j]))
    low = np.maximum(truth[i, 2] - truth[i, 5] / 2, found[j, 2] - found[j, 5] / 2)
    high = np.minimum(truth[i, 2] + truth[i, 5] / 2, found[j, 2] + found[j, 5] / 2)
    shared = area * np.maximum(high - low, 0.0)
    volume_a, volume_b = np.prod(truth[:, 3:6], axis=1), np.prod(found[:, 3:6], axis=1)
    result = np.zeros((len(truth), len(found)))
    result[i, j] = shared / (volume_a[i] + volume_b[j] - shared)
    return result


def yaw_matrix(count: int, repeats: int) -> None:
    truth, found = lidar_scene(count)
    ours = geoiou.pairwise_iou(geoiou.RotatedBox3D(truth), geoiou.RotatedBox3D(found))
    peer = shapely_bev_times_heights(truth, found)
    ours_time = best_of(lambda: geoiou.pairwise_iou(geoiou.RotatedBox3D(truth), geoiou.RotatedBox3D(found)), repeats)
    peer_time = best_of(lambda: shapely_bev_times_heights(truth, found), repeats)
    print(
        f"B3  {count} x {count} yaw boxes, pairwise_iou: geoiou {ours_time * 1e3:.2f} ms, "
        f"shapely BEV + STRtree x heights {peer_time * 1e3:.2f} ms: {peer_time / ours_time:.1f}x "
        f"(target: at least 10x); {np.count_nonzero(ours)} overlapping pairs, "
        f"max abs diff {np.abs(ours - peer).max():.2e}"
    )


def scipy_volume(a: tuple, b: tuple) -> float:
    from scipy.optimize import linprog
    from scipy.spatial import ConvexHull, HalfspaceIntersection

    rows = []
    for centre, sizes, rotation in (a, b):
        for k in range(3):
            normal = rotation[:, k]
            rows += [np.r_[normal, -(normal @ centre) - sizes[k] / 2], np.r_[-normal, (normal @ centre) - sizes[k] / 2]]
    spaces = np.array(rows)
    norms = np.linalg.norm(spaces[:, :3], axis=1)
    found = linprog(
        np.r_[0, 0, 0, -1.0],
        A_ub=np.c_[spaces[:, :3], norms],
        b_ub=-spaces[:, 3],
        bounds=[(None, None)] * 3 + [(0, None)],
    )
    if found.status != 0 or found.x[3] <= 1e-9:
        return 0.0
    return float(ConvexHull(HalfspaceIntersection(spaces, found.x[:3]).intersections).volume)


def oriented_pairs(count: int, repeats: int) -> None:
    gen = np.random.default_rng(1)
    q = gen.normal(size=(2 * count, 4))
    rotations = geoiou.OrientedBox3D.from_quaternion(np.zeros((2 * count, 3)), np.ones((2 * count, 3)), q).rotation
    centres = gen.uniform(-1, 1, (2 * count, 3))
    sizes = gen.uniform(0.5, 3, (2 * count, 3))
    a = geoiou.OrientedBox3D(centres[:count], sizes[:count], rotations[:count])
    b = geoiou.OrientedBox3D(centres[count:], sizes[count:], rotations[count:])
    ours = geoiou.intersection_area(a, b)
    parts = [(centres[k], sizes[k], rotations[k]) for k in range(2 * count)]
    start = time.perf_counter()
    peer = np.array([scipy_volume(parts[k], parts[count + k]) for k in range(count)])
    peer_time = time.perf_counter() - start
    ours_time = best_of(lambda: geoiou.iou(a, b), repeats)
    first_a, first_b = a[0], b[0]
    single = best_of(lambda: geoiou.iou(first_a, first_b), repeats)
    print(
        f"O3  {count} oriented pairs, iou: geoiou {ours_time * 1e6 / count:.2f} µs a pair in a batch, "
        f"{single * 1e6:.1f} µs for one pair alone; SciPy halfspace intersection {peer_time * 1e6 / count:.0f} µs "
        f"a pair: {peer_time / ours_time:.0f}x; largest difference of the volumes {np.abs(ours - peer).max():.2e} "
        f"(volumes up to {np.max(np.minimum(a.volume, b.volume)):.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the script, not for comparison")
    arguments = parser.parse_args()
    print(f"geoiou {geoiou.__version__}, shapely {shapely.__version__}, numpy {np.__version__}; {load()}")
    single_pair(2000 if arguments.quick else 20000)
    yaw_matrix(200 if arguments.quick else 1000, 2 if arguments.quick else 5)
    oriented_pairs(50 if arguments.quick else 1000, 2 if arguments.quick else 5)
    print(load())


if __name__ == "__main__":
    main()
