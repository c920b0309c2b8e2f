"""``geoiou demo``: the worked examples of the IoU tutorials and a tour of the evaluations."""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``demo`` subcommand to `commands`."""
    parser = commands.add_parser(
        "demo",
        help="worked examples of the IoU tutorials, then a tour: one evaluation per geometry, with pictures",
        description="Compute and print the worked examples of the IoU tutorials geoiou grew from, one "
        "example per geometry, mixed-geometry examples and exact overlaps in a bundled DOTA scene; then "
        "a tour of the evaluations on the bundled dataset (COCO boxes, DOTA rotated quadrilaterals, "
        "polygons against masks, ActivityNet intervals), saving pictures of pairs, a scene and the "
        "precision-recall curves.",
    )
    parser.add_argument(
        "--output", metavar="DIR", default="geoiou-demo", help="folder for the tour's pictures (default: ./geoiou-demo)"
    )
    parser.add_argument("--no-pictures", action="store_true", help="do not draw or save pictures")
    parser.add_argument("--no-tour", action="store_true", help="only the worked examples, no tour")
    parser.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """Run the demo; return the exit status."""
    from geoiou.demo import run as run_demo

    output = None if arguments.no_pictures else Path(arguments.output)
    return run_demo(output=output, tour=not arguments.no_tour)
