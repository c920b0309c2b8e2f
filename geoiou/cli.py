"""The ``geoiou`` command line."""

from __future__ import annotations

import argparse
import sys

__all__ = ["main"]


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``geoiou`` command."""
    parser = argparse.ArgumentParser(
        prog="geoiou",
        description="Exact intersection over union for boxes, rotated boxes, polygons, masks and intervals.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser(
        "demo",
        help="print the tutorials' worked examples, one example per geometry, and a DOTA scene",
        description="Compute and print the worked examples of the IoU tutorials geoiou grew from, one "
        "example per geometry, mixed-geometry examples, and exact overlaps in a bundled DOTA scene.",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line with `argv` (default: the process arguments); return the exit status."""
    parser = build_parser()
    arguments = parser.parse_args(argv)
    if arguments.command == "demo":
        from geoiou.demo import run

        return run()
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
