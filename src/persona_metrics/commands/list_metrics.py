"""``persona-metrics list``: the bundled metrics, one name per line."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from persona_metrics.commands.output import command_parser, emit
from persona_metrics.integrations.registry import available_metrics

NAME = "list"
HELP = "list the bundled metrics"
DESCRIPTION = "Print the names of the bundled metrics (what evaluate.load and persona-metrics score take)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No arguments."""


def run(args: argparse.Namespace) -> int:
    """Print the names."""
    emit("\n".join(available_metrics()) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``persona-metrics list`` from Python."""
    return run(command_parser(NAME, DESCRIPTION, add_arguments).parse_args(argv))
