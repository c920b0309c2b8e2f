"""``geoiou eval GT PRED``: run the evaluation that matches two annotation files."""

from __future__ import annotations

import argparse

__all__ = ["register"]


def register(commands: argparse._SubParsersAction) -> None:
    """Add the ``eval`` subcommand to `commands`."""
    parser = commands.add_parser("eval", help="evaluate predictions against ground truth")
    parser.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """Evaluate; return the exit status."""
    raise NotImplementedError
