"""What several commands share: argument types and the pyplot of commands that save pictures."""

from __future__ import annotations

import argparse
from typing import Any

from geoiou.errors import InvalidArgumentError

__all__ = ["add_reader_options", "image_size", "json_value", "pyplot_for_files"]


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
