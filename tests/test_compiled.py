"""The compiled engine: threads, identical bits for any thread count, concurrent callers, the on-disk cache."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import geoiou
from geoiou import _compiled, _core

ROOT = Path(__file__).resolve().parents[1]


def _scenes() -> dict[str, tuple[geoiou.Region, geoiou.Region]]:
    rng = np.random.default_rng(3)

    def boxes(n: int) -> np.ndarray:
        xy = rng.uniform(0, 200, (n, 2))
        return np.hstack([xy, xy + rng.uniform(5, 40, (n, 2))])

    def rotated(n: int) -> np.ndarray:
        return np.column_stack([rng.uniform(0, 200, (n, 2)), rng.uniform(5, 40, (n, 2)), rng.uniform(-90, 90, n)])

    def rotated3d(n: int) -> np.ndarray:
        return np.column_stack([rng.uniform(0, 60, (n, 3)), rng.uniform(5, 20, (n, 3)), rng.uniform(-180, 180, n)])

    masks = rng.random((12, 40, 40)) > 0.5
    return {
        "box": (geoiou.Box(boxes(300)), geoiou.Box(boxes(200))),
        "interval": (
            geoiou.Interval(np.sort(rng.uniform(0, 500, (400, 2)), axis=1)),
            geoiou.Interval(np.sort(rng.uniform(0, 500, (300, 2)), axis=1)),
        ),
        "rotated": (geoiou.RotatedBox(rotated(150)), geoiou.RotatedBox(rotated(120))),
        "polygon": (geoiou.RotatedBox(rotated(80)).to_polygon(), geoiou.Box(boxes(70)).to_polygon()),
        "mask": (geoiou.Mask(masks[:6]), geoiou.Mask(masks[6:], origin=(3.5, 2))),
        "mask_box": (geoiou.Mask(masks, origin=(0.25, 0)), geoiou.Box(boxes(70) / 5)),
        "mask_polygon": (geoiou.Mask(masks), geoiou.RotatedBox(rotated(70) / [5, 5, 1, 1, 1]).to_polygon()),
        "rotated_polygon": (geoiou.RotatedBox(rotated(80)), geoiou.Box(boxes(70)).to_polygon()),
        "box_polygon": (geoiou.Box(boxes(80)), geoiou.RotatedBox(rotated(70)).to_polygon()),
        "rotated3d": (geoiou.RotatedBox3D(rotated3d(150)), geoiou.RotatedBox3D(rotated3d(120))),
        "oriented3d": (
            geoiou.RotatedBox3D(rotated3d(60)).to_oriented_box3d(),
            geoiou.OrientedBox3D.from_quaternion(
                rng.uniform(0, 60, (50, 3)), rng.uniform(5, 20, (50, 3)), rng.normal(size=(50, 4))
            ),
        ),
    }


@pytest.fixture
def threads_restored():
    yield
    geoiou.set_threads(None)


@pytest.mark.parametrize(
    "kind", ["box", "interval", "rotated", "polygon", "mask", "mask_box", "mask_polygon", "rotated3d", "oriented3d"]
)
def test_results_are_identical_for_any_number_of_threads(kind, threads_restored):
    # Every kernel computes each pair on its own: the split of pairs among threads cannot change a bit.
    a, b = _scenes()[kind]
    metrics = (geoiou.pairwise_iou, geoiou.pairwise_giou, geoiou.pairwise_iof)
    geoiou.set_threads(1)
    one = [metric(a, b) for metric in metrics]
    geoiou.set_threads(None)
    every = [metric(a, b) for metric in metrics]
    for single_threaded, threaded in zip(one, every):
        np.testing.assert_array_equal(single_threaded, threaded)


@pytest.fixture
def every_loop_parallel(monkeypatch):
    # Every loop with more than one item runs on the pool, cut into chunks of one item (the crate's loops)
    # or in its parallel driver (numba's), however little work it has.
    monkeypatch.setattr(_compiled, "PARALLEL_WORK_NS", 0.0)
    _core.split_every_loop_for_tests(True)
    yield
    _core.split_every_loop_for_tests(False)


@pytest.mark.parametrize(
    "kind",
    [
        "box",
        "interval",
        "rotated",
        "polygon",
        "rotated_polygon",
        "box_polygon",
        "mask",
        "mask_box",
        "mask_polygon",
        "rotated3d",
        "oriented3d",
    ],
)
def test_parallel_drivers_give_the_bits_of_the_serial_ones(kind, every_loop_parallel, threads_restored):
    # One thread runs every serial driver; every core with no work threshold runs every parallel one:
    # candidates (large matrices), every pair (small ones and GIoU), elementwise lists, the formulas.
    a, b = _scenes()[kind]
    small_a, small_b = a[:15], b[:12]
    metrics = (
        lambda: geoiou.pairwise_iou(a, b),
        lambda: geoiou.pairwise_giou(a, b),
        lambda: geoiou.pairwise_iof(small_a, small_b),
        lambda: geoiou.pairwise_intersection_area(small_a, small_b),
        lambda: geoiou.iou(small_a[:, None], small_b[None, :]),
        lambda: geoiou.giou(a[: min(len(a), len(b))], b[: min(len(a), len(b))]),
        lambda: geoiou.enclosure_area(small_a[:, None], small_b[None, :]),
    )
    geoiou.set_threads(1)
    one = [metric() for metric in metrics]
    geoiou.set_threads(None)
    every = [metric() for metric in metrics]
    for single_threaded, threaded in zip(one, every):
        np.testing.assert_array_equal(single_threaded, threaded)


def test_several_python_threads_may_call_the_kernels_at_once():
    # numba's default threading layer aborts the process when two Python threads run parallel loops
    # at once (a Dask worker's threads, a user's pool); geoiou selects a thread-safe layer.
    scenes = _scenes()
    expected = {kind: geoiou.pairwise_iou(*pair) for kind, pair in scenes.items()}
    jobs = [kind for kind in scenes for _ in range(4)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda kind: geoiou.pairwise_iou(*scenes[kind]), jobs))
    for kind, result in zip(jobs, results):
        np.testing.assert_array_equal(result, expected[kind])


@pytest.mark.parametrize("value", [0, -1, 1.5, "2", True, 10_000])
def test_set_threads_refuses_what_is_not_a_thread_count(value, threads_restored):
    with pytest.raises(geoiou.InvalidArgumentError, match=r"'n' must be"):
        geoiou.set_threads(value)


def _python(code: str, **environment: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **environment}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600, cwd=str(ROOT)
    )


def test_the_environment_variable_limits_the_threads():
    done = _python("import geoiou; print(geoiou.get_threads())", GEOIOU_THREADS="1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
    refused = _python("import geoiou; geoiou.get_threads()", GEOIOU_THREADS="many")
    assert refused.returncode != 0
    assert "GEOIOU_THREADS must be a whole number of threads (got 'many')" in refused.stderr


def test_importing_geoiou_does_not_load_numba():
    # numba costs about 0.1 s to import: it is loaded by the first kernel call, not by `import geoiou`.
    done = _python("import sys, geoiou; print('numba' in sys.modules)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


#: One region of every kind and a script that runs every metric on every pair of kinds, the pairwise
#: matrices, `overlaps`, boundary IoU and the region layer's compiled work (rings, hulls, masks from
#: polygons, box checks), then prints whether numba was loaded.
EVERY_PAIR_OF_KINDS = """
import itertools, sys
import numpy as np
import geoiou

box = geoiou.Box([[0, 0, 10, 10], [5, 5, 20, 20], [1, 1, 3, 3]])
rotated = geoiou.RotatedBox([[5, 5, 10, 6, 30], [8, 8, 4, 4, 0]])
polygon = geoiou.Polygon([[0, 0], [12, 0], [6, 9]])
polygons = geoiou.Polygon.from_rings([[[0, 0], [8, 0], [8, 8], [0, 8]], [[2, 2], [9, 3], [4, 9]]])
mask = geoiou.Mask(np.arange(400).reshape(20, 20) % 3 == 0)
masks = geoiou.Mask.from_polygon(polygons, shape=(16, 16), rule="coverage")
kinds_2d = [box, rotated, polygon, polygons, mask, masks]
for a, b in itertools.product(kinds_2d, repeat=2):
    for metric in (geoiou.iou, geoiou.giou, geoiou.iof, geoiou.diou):
        metric(a[:1] if a.shape else a, b[:1] if b.shape else b)
    geoiou.pairwise_iou(a, b); geoiou.pairwise_giou(a, b)
geoiou.ciou(box, box); geoiou.siou(box, box)
geoiou.overlaps(box, box)
geoiou.boundary_iou(mask, mask)
intervals = geoiou.Interval([[0, 5], [3, 9]])
geoiou.pairwise_iou(intervals, intervals); geoiou.giou(intervals[0], intervals[1])
box3d = geoiou.Box3D([[0, 0, 0, 2, 2, 2], [1, 1, 1, 3, 3, 3]])
yaw = geoiou.RotatedBox3D([[0, 0, 0, 2, 3, 4, 30], [1, 0, 0, 2, 2, 2, 0]])
oriented = yaw.to_oriented_box3d()
for a, b in itertools.product([box3d, yaw, oriented], repeat=2):
    geoiou.pairwise_iou(a, b); geoiou.pairwise_giou(a, b); geoiou.iou(a[0], b[1])
print("numba" in sys.modules)
"""


def test_the_geometry_engine_loads_no_numba():
    # Issue 34: every metric of every pair of kinds runs in the crate; numba stays for the evaluations
    # and readers only (and leaves with them).
    done = _python(EVERY_PAIR_OF_KINDS)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_numba_loops_are_compiled_once_into_the_cache_and_loaded_from_it(tmp_path):
    # The evaluations' loops are still numba's: the cache may live anywhere numba is told (NUMBA_CACHE_DIR),
    # as for a read-only install; a second process loads the machine code instead of compiling it again.
    code = (
        "import numpy as np; from geoiou.evaluation import protocol_loops as loops; "
        "print(loops.decided(np.array([[[0, 1, 2]]], dtype=np.int8)).sum()); "
        "print(sum(sum(f.stats.cache_hits.values()) for f in vars(loops).values() if hasattr(f, 'stats')))"
    )
    first = _python(code, NUMBA_CACHE_DIR=str(tmp_path))
    assert first.returncode == 0, first.stderr
    assert list(tmp_path.rglob("*.nbi")), "no index file was written to the cache directory"
    second = _python(code, NUMBA_CACHE_DIR=str(tmp_path))
    assert second.returncode == 0, second.stderr
    total, hits = second.stdout.split()
    assert total == first.stdout.split()[0]
    assert int(hits) >= 1


def test_prefaulted_outputs_keep_their_values():
    """Touching each page of a fresh output (so that threads do not fault it in together) changes no value."""
    from geoiou._compiled import PREFAULT_BYTES, prefaulted

    rng = np.random.default_rng(0)
    for array in (np.zeros(PREFAULT_BYTES // 8 + 3), rng.random((700, 300)), np.full(PREFAULT_BYTES, 7, np.uint8)):
        before = array.copy()
        assert prefaulted(array) is array
        np.testing.assert_array_equal(array, before)
    strided = rng.random((2000, 200))[:, ::2]  # not contiguous: left as it is
    np.testing.assert_array_equal(prefaulted(strided), strided)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts the page faults of the process")
def test_prefaulted_touches_the_pages_of_a_fresh_array():
    # A copy of the touched bytes onto themselves is skipped by NumPy: the pages must really be written here.
    import resource

    from geoiou._compiled import prefaulted

    def faults() -> int:
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

    fresh = np.empty(64 << 20, dtype=np.uint8)  # mapped, not yet touched
    before = faults()
    prefaulted(fresh)
    touched = faults() - before
    before = faults()
    fresh[:: 1 << 12] = 1  # every page again: nothing left to fault in
    assert touched > 0 and faults() - before < touched


def test_on_threads_keeps_one_pool_and_gives_results_in_task_order():
    from geoiou import threads

    names = threads.on_threads(lambda k: (k, threading.current_thread().name), 4)
    assert [k for k, _ in names] == [0, 1, 2, 3]
    assert all(name.startswith("geoiou") for _, name in names)  # the pool's threads, not the caller's
    pool = threads._pool(2)
    threads.on_threads(lambda k: k, 2)
    assert threads._pool(2) is pool  # kept between calls
    assert threads.on_threads(lambda k: threading.current_thread().name, 1) == [
        threading.current_thread().name
    ]  # one task runs on the calling thread


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_on_threads_works_in_a_forked_child():
    from geoiou import threads

    threads.on_threads(lambda k: k, 2)  # the parent's pool exists before the fork
    script = (
        "import os, sys\n"
        "from geoiou import threads\n"
        "threads.on_threads(lambda k: k, 2)\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os._exit(0 if threads.on_threads(lambda k: k + 1, 2) == [1, 2] else 3)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "sys.exit(os.waitstatus_to_exitcode(status))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], timeout=60)
    assert done.returncode == 0  # the child made a pool of its own (the parent's threads are not there)
