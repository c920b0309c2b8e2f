"""``geoiou demo``: the worked examples of the IoU tutorials and a tour of the evaluations."""

from __future__ import annotations

import argparse

__all__ = ["register"]


def register(commands: argparse._SubParsersAction) -> None:
    """Add the ``demo`` subcommand to `commands`."""
    parser = commands.add_parser(
        "demo",
        help="print the tutorials' worked examples, one example per geometry, and a DOTA scene",
        description="Compute and print the worked examples of the IoU tutorials geoiou grew from, one "
        "example per geometry, mixed-geometry examples, and exact overlaps in a bundled DOTA scene.",
    )
    parser.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """Run the demo; return the exit status."""
    from geoiou.demo import run as run_demo

    return run_demo()
