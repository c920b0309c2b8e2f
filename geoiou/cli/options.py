"""What several commands share: argument types and the pyplot of commands that save pictures."""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
from collections.abc import Callable, Mapping
from typing import Any

from geoiou.errors import InvalidArgumentError

__all__ = [
    "add_cluster_options",
    "add_reader_options",
    "check_outputs",
    "cluster_of",
    "image_size",
    "json_text",
    "json_value",
    "pyplot_for_files",
    "write_outputs",
]


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
    parser.add_argument(
        "--image-size",
        metavar="H,W",
        type=image_size,
        default=None,
        help="yolo: image height and width in pixels (default: keep normalised coordinates)",
    )
    parser.add_argument(
        "--skip-invalid",
        action="store_true",
        help="skip malformed records (their count and reasons are printed) instead of failing",
    )


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--workers N`` and ``--scheduler ADDRESS``: run on Dask (the ``dask`` extra) instead of in this process."""
    cluster = parser.add_mutually_exclusive_group()
    cluster.add_argument(
        "--workers",
        metavar="N",
        type=_positive,
        default=None,
        help="run on a local Dask cluster of N worker processes (needs geoiou[dask]); the result "
        "is the same as without it",
    )
    cluster.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="run on the Dask cluster whose scheduler is at ADDRESS, e.g. tcp://10.0.0.5:8786",
    )


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
        raise InvalidArgumentError(
            f"{option!r} needs Dask, which is not installed: pip install 'geoiou[dask]'"
        ) from None
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
        raise InvalidArgumentError(
            f"{option!r} needs matplotlib, which is not installed: pip install 'geoiou[plot]'"
        ) from None
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


def json_text(document: Any, *, indent: int | None = 2) -> str:
    """`document` as valid JSON: NaN and infinities (which JSON has not) as ``null``, NumPy scalars as numbers.

    Python's encoder writes NaN as the bare word ``NaN``, which JSON readers refuse.

    Examples
    --------
    >>> json_text({"IoU": float("nan"), "values": [1.0, float("inf")]}, indent=None)
    '{"IoU": null, "values": [1.0, null]}'
    """
    return json.dumps(_finite(document), indent=indent, default=json_value, allow_nan=False)


def _finite(value: Any) -> Any:
    """`value` with every float that is not finite replaced by None (in dicts, lists and tuples)."""
    if isinstance(value, float) or (hasattr(value, "dtype") and getattr(value, "shape", None) == ()):
        number = value.item() if hasattr(value, "item") else value
        return None if isinstance(number, float) and not math.isfinite(number) else number
    if isinstance(value, Mapping):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    if hasattr(value, "tolist") and hasattr(value, "dtype"):  # a NumPy array
        return _finite(value.tolist())
    return value


def check_outputs(files: Mapping[str, str | None], folders: Mapping[str, str | None] | None = None) -> None:
    """Check, before anything is read or written, that every output the options name can be written.

    `files` maps an option (``"--json"``) to its path or None; `folders` likewise for options that
    name a folder (``"--picture"``), which may not exist yet. A picture's suffix must be one
    matplotlib writes. Raises `InvalidArgumentError` naming the first option that fails, so that a
    command writes either every output or none.
    """
    for option, path in files.items():
        if path is None:
            continue
        folder = os.path.dirname(os.path.abspath(path))
        if os.path.isdir(path):
            raise InvalidArgumentError(f"{option!r} must be a file, not a folder (got {path!r})")
        if not os.path.isdir(folder):
            raise InvalidArgumentError(
                f"{option!r} must be a file in an existing folder (got {path!r}: there is no folder {folder!r})"
            )
        if not os.access(folder, os.W_OK):
            raise InvalidArgumentError(f"{option!r} must be a file in a folder you can write to (got {path!r})")
        if option == "--pr-curve":
            _require_picture_suffix(option, path)
    for option, path in (folders or {}).items():
        if path is not None and os.path.exists(path) and not os.path.isdir(path):
            raise InvalidArgumentError(f"{option!r} must be a folder (got {path!r}, which is a file)")


def _require_picture_suffix(option: str, path: str) -> None:
    suffix = os.path.splitext(path)[1].lower().lstrip(".")
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        pyplot_for_files(option)  # raises, naming the option and the extra to install
        return
    known = sorted(FigureCanvasBase.get_supported_filetypes())
    if suffix not in known:
        raise InvalidArgumentError(
            f"{option!r} must be a picture file whose suffix matplotlib writes, one of "
            f"{', '.join('.' + kind for kind in known)} (got {path!r})"
        )


def write_outputs(writers: list[tuple[str, Callable[[str], None]]]) -> None:
    """Write every output atomically: each to a temporary file beside it, renamed into place once all are written.

    `writers` pairs each path with the function that writes it (given the temporary path, which
    keeps the suffix, so that a picture's format is still known). If any writer fails, the
    temporary files are removed and no output is left behind, old or half-written.
    """
    temporary: list[tuple[str, str]] = []
    try:
        for path, write in writers:
            folder, name = os.path.split(os.path.abspath(path))
            handle, temp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=os.path.splitext(name)[1])
            os.close(handle)
            temporary.append((temp, path))
            write(temp)
        mask = os.umask(0)
        os.umask(mask)
        for temp, path in temporary:
            os.chmod(temp, 0o666 & ~mask)  # as open() would have made it, not mkstemp's private 0o600
            os.replace(temp, path)
    except BaseException:
        for temp, _ in temporary:
            if os.path.exists(temp):
                os.remove(temp)
        raise
