"""The ``geoiou`` command line: ``geoiou iou``, ``eval``, ``report``, ``compare`` and ``demo``.

Each subcommand lives in its own module with a ``register(commands)`` that adds its parser and
sets the function that runs it. Errors the user can fix (a malformed file, a bad literal, an
unknown format) end the command with one line on stderr and exit status 1; ``--traceback`` shows
the whole traceback instead.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from geoiou import __version__
from geoiou.cli import compare_command, demo_command, eval_command, iou_command, report_command
from geoiou.errors import GeoIoUError

__all__ = ["build_parser", "main"]

#: Exit status of a command that failed on its input (argparse itself exits with 2 on bad usage).
EXIT_BAD_INPUT = 1

#: Errors that describe the user's input, not a fault of geoiou: one line, no traceback.
USER_ERRORS = (GeoIoUError, OSError, json.JSONDecodeError, UnicodeDecodeError)


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``geoiou`` command."""
    parser = argparse.ArgumentParser(
        prog="geoiou",
        description="Exact intersection over union for boxes, rotated boxes, polygons, masks and intervals, "
        "and the evaluations built on it (COCO and VOC/DOTA detection AP, ActivityNet temporal mAP).",
        epilog="Run 'geoiou COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--traceback", action="store_true", help="show the full traceback when a command fails")
    parser.add_argument("--version", action="version", version=f"geoiou {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (iou_command, eval_command, report_command, compare_command, demo_command):
        module.register(commands)
    for command in commands.choices.values():  # also after the command: `geoiou eval GT PRED --traceback`
        command.add_argument(
            "--traceback",
            action="store_true",
            default=argparse.SUPPRESS,
            help="show the full traceback when the command fails",
        )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line with `argv` (default: the process arguments); return the exit status.

    Examples
    --------
    >>> main(["iou", "box:0,0,10,10", "box:5,0,15,10"])
    IoU           0.333333
    GIoU          0.333333
    intersection  50
    union         150
    enclosure     150 (enclosing box)
    0
    """
    parser = build_parser()
    arguments = parser.parse_args(argv)
    if arguments.command is None:
        parser.print_help()
        return 2
    try:
        status: int = arguments.run(arguments)
        return status
    except BrokenPipeError:
        # The reader of our output went away (`geoiou eval ... | head`): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except USER_ERRORS as error:
        if arguments.traceback:
            raise
        print(f"geoiou {arguments.command}: error: {_one_line(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"geoiou {arguments.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # an input no check foresaw, or a fault of geoiou: still one line, not a traceback
        if arguments.traceback:
            raise
        print(
            f"geoiou {arguments.command}: error: {type(error).__name__}: {_one_line(error)} (unexpected; rerun "
            "with --traceback to see where, and please report it)",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT


def _one_line(error: BaseException) -> str:
    text = str(error) if not isinstance(error, OSError) or not error.filename else f"{error.strerror}: {error.filename}"
    return " ".join(text.split())
