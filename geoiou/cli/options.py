"""What several commands share: argument types and the pyplot of commands that save pictures."""

from __future__ import annotations

import argparse
from typing import Any

from geoiou.errors import InvalidArgumentError

__all__ = ["add_cluster_options", "add_reader_options", "cluster_of", "image_size", "json_value", "pyplot_for_files"]


def image_size(text: str) -> tuple[int, int]:
    """The argparse type of ``--image-size H,W``: two positive integers.

    Examples
    --------
    >>> image_size("480,640")
    (480, 640)
    """
    try:
        height, width = (int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected H,W as two integers (got {text!r})") from None
    if height < 1 or width < 1:
        raise argparse.ArgumentTypeError(f"expected a positive height and width (got {text!r})")
    return height, width


def add_reader_options(parser: argparse.ArgumentParser) -> None:
    """Add the options every command that reads annotation files has: ``--image-size`` and ``--skip-invalid``."""
    parser.add_argument("--image-size", metavar="H,W", type=image_size, default=None,
                        help="yolo: image height and width in pixels (default: keep normalised coordinates)")
    parser.add_argument("--skip-invalid", action="store_true",
                        help="skip malformed records (their count and reasons are printed) instead of failing")


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--workers N`` and ``--scheduler ADDRESS``: run on Dask (the ``dask`` extra) instead of in this process."""
    cluster = parser.add_mutually_exclusive_group()
    cluster.add_argument("--workers", metavar="N", type=_positive, default=None,
                         help="run on a local Dask cluster of N worker processes (needs geoiou[dask]); the result "
                         "is the same as without it")
    cluster.add_argument("--scheduler", metavar="ADDRESS", default=None,
                         help="run on the Dask cluster whose scheduler is at ADDRESS, e.g. tcp://10.0.0.5:8786")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number of workers (got {text!r})")
    return value


def cluster_of(arguments: argparse.Namespace) -> Any:
    """`geoiou.dask` when ``--workers`` or ``--scheduler`` asks for a cluster, else None.

    Raises `InvalidArgumentError` naming the option when Dask is not installed.
    """
    if arguments.workers is None and arguments.scheduler is None:
        return None
    try:
        import geoiou.dask
    except ImportError:
        option = "--workers" if arguments.workers is not None else "--scheduler"
        raise InvalidArgumentError(f"{option!r} needs Dask, which is not installed: pip install 'geoiou[dask]'") from None
    return geoiou.dask


def pyplot_for_files(option: str) -> Any:
    """matplotlib's pyplot with the Agg backend (a file is asked for, never a window).

    Raises `InvalidArgumentError` naming `option` (``"--picture"``) when matplotlib is not installed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InvalidArgumentError(f"{option!r} needs matplotlib, which is not installed: "
                                   "pip install 'geoiou[plot]'") from None
    return plt


def json_value(value: Any) -> Any:
    """``json.dump``'s ``default``: NumPy scalars as Python numbers, anything else as its text.

    Examples
    --------
    >>> import numpy as np
    >>> json_value(np.int64(3)), json_value(np.float32(0.5))
    (3, 0.5)
    """
    return value.item() if hasattr(value, "item") else str(value)
