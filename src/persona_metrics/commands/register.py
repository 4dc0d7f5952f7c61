"""``persona-metrics register [NAME ...]``: make ``evaluate.load("NAME")`` find the bundled metrics offline."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from persona_metrics.commands.output import command_parser, emit, input_errors
from persona_metrics.integrations.registry import DEFAULT_NAMESPACE, available_metrics, modules_cache, register

NAME = "register"
HELP = "make evaluate.load('NAME') find the bundled metrics offline"
DESCRIPTION = """Copy the bundled metric scripts into evaluate's modules cache ($HF_MODULES_CACHE, default
$HF_HOME/modules), so that evaluate.load("NAME") finds them without network. Run it again after upgrading
persona-metrics or changing HF_HOME."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """NAME ... and ``--namespace``."""
    parser.add_argument("names", nargs="*", help=f"metrics to register (default: all of {list(available_metrics())})")
    parser.add_argument("--namespace", default=DEFAULT_NAMESPACE, help="evaluate-metric (bare names) or an org name")


def run(args: argparse.Namespace) -> int:
    """Register and print where each module went."""
    with input_errors():
        paths = register(args.names or None, namespace=args.namespace)
    for path in paths:
        emit(f"registered {path.parent.name.split('--', 1)[1]} -> {path}\n")
    emit(f"modules cache: {modules_cache()}\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``persona-metrics register`` from Python."""
    return run(command_parser(NAME, DESCRIPTION, add_arguments).parse_args(argv))
