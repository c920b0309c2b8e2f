"""Which Dask cluster a run uses: the one given, one at an address, the current client's, or a local one."""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Iterator

from geoiou._validation import invalid_argument

try:
    import dask
    import distributed
except ImportError as error:  # pragma: no cover - the extra is installed with the test extra
    raise ImportError("geoiou.dask needs Dask: pip install 'geoiou[dask]'") from error

__all__ = ["connected", "local_cluster"]


@contextlib.contextmanager
def connected(
    client: distributed.Client | None = None, *, workers: int | None = None, scheduler: str | None = None
) -> Iterator[distributed.Client]:
    """A `distributed.Client` for one run, closed afterwards if this started it.

    Parameters
    ----------
    client : distributed.Client, optional
        Use this client (its cluster is left running).
    workers : int, optional
        Start a `distributed.LocalCluster` of this many worker processes (one thread each) for
        the run.
    scheduler : str, optional
        The address of a running scheduler, such as ``"tcp://10.0.0.5:8786"``.

    Notes
    -----
    With none of them, the current client (``distributed.get_client()``) is used if there is
    one, else a local cluster of one worker per core.

    Examples
    --------
    >>> with connected(workers=1) as client:
    ...     client.submit(sum, [1, 2]).result()
    3
    """
    given = [
        name
        for name, value in (("client", client), ("workers", workers), ("scheduler", scheduler))
        if value is not None
    ]
    if len(given) > 1:
        raise invalid_argument(
            given[1], f"not given together with {given[0]!r} (one says which cluster to use)", "both"
        )
    if client is not None:
        yield client
        return
    if scheduler is not None:
        with distributed.Client(scheduler) as remote:
            yield remote
        return
    if workers is None:
        current = _current_client()
        if current is not None:
            yield current
            return
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise invalid_argument("workers", "a positive number of worker processes", workers)
    with local_cluster(workers) as cluster, distributed.Client(cluster) as local:
        yield local


def local_cluster(workers: int | None = None, **options: Any) -> distributed.LocalCluster:
    """A `distributed.LocalCluster` of `workers` processes of one thread each, as geoiou runs best on one.

    Dask starts its worker processes with ``MALLOC_TRIM_THRESHOLD_=65536``, which turns glibc's
    adaptive threshold off: every array over 64 KiB is then mapped and unmapped by the kernel, and
    geoiou's kernels, which work on large temporary arrays, ran 1.7x slower (the COCO evaluation
    of benchmarks/bench_dask.py: 1.8-2.2 s against 1.1-1.4 s on one worker). This cluster's
    workers keep the rest of Dask's settings (one BLAS and OpenMP thread each) but not that one.
    Its workers log only critical messages: an error in a task is raised in the caller, and the
    worker's own report of it (a traceback) would repeat it (``silence_logs`` in `options` changes that).

    Examples
    --------
    >>> with local_cluster(1) as cluster:
    ...     len(cluster.workers)
    1
    """
    environment = {
        name: value
        for name, value in dask.config.get("distributed.nanny.pre-spawn-environ").items()
        if name != "MALLOC_TRIM_THRESHOLD_"
    }
    # A task's error is raised again in the caller, with its message; the workers' own log of it ("Compute
    # Failed" and a traceback, at level ERROR) only repeats it, so the workers log only what is critical.
    settings = {
        "n_workers": workers,
        "threads_per_worker": 1,
        "processes": True,
        "dashboard_address": ":0",
        "silence_logs": logging.CRITICAL,
        **options,
    }
    with dask.config.set({"distributed.nanny.pre-spawn-environ": environment}):
        return distributed.LocalCluster(**settings)


def _current_client() -> distributed.Client | None:
    try:
        return distributed.get_client()
    except ValueError:  # no client in this process
        return None


def part_count(partitions: int | None, client: distributed.Client) -> int:
    """The parts a run is split into: `partitions` if given, else four per worker thread the client sees (a few
    parts per worker keep them all busy to the end)."""
    if partitions is not None:
        if isinstance(partitions, bool) or not isinstance(partitions, int) or partitions < 1:
            raise invalid_argument("partitions", "a positive number of parts", partitions)
        return partitions
    info: dict[str, Any] = client.scheduler_info()
    return 4 * max(1, sum(int(worker.get("nthreads", 1)) for worker in info.get("workers", {}).values()))
