"""Command line: the ``persona-metrics`` console script and its subcommands.

The commands (:data:`~persona_metrics.commands.COMMANDS`): ``score``, ``pens``, ``cnndm``, ``merge``, ``pipeline``,
``judge-check``, ``validity``, ``register``, ``list``, ``docs``.

Each subcommand lives in :mod:`persona_metrics.commands`; ``persona-metrics COMMAND --help`` says what its input
looks like. A bad input prints ``persona-metrics COMMAND: error: <message>`` (naming the file, and the line where
there is one) and exits with status 2, like a usage error.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from persona_metrics.commands import COMMANDS, command_module
from persona_metrics.commands.output import InputError
from persona_metrics.extras import MissingExtraError
from persona_metrics.resources import CacheWriteError
from persona_metrics.signature import __version__

#: What ``persona-metrics --help`` says above the commands.
DESCRIPTION = """Summary-evaluation metrics for summaries written for a particular reader.

Run "persona-metrics COMMAND --help" for what a command's input looks like. A bad input prints
"persona-metrics COMMAND: error: <message>" (naming the file, and the line where there is one) and exits with
status 2. Messages cite the documentation as docs/<topic>.md: it is installed with the package, and
"persona-metrics docs <topic>" prints where (docs/scaling.md: sharded runs and merges)."""
#: Exit status of a bad input (as argparse uses for a bad command line).
INPUT_ERROR_STATUS = 2


def build_parser() -> argparse.ArgumentParser:
    """The ``persona-metrics`` parser with one subparser per command."""
    parser = argparse.ArgumentParser(
        prog="persona-metrics", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"persona-metrics {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        module = command_module(name)
        command = sub.add_parser(
            name,
            help=module.HELP,
            description=module.DESCRIPTION,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``persona-metrics`` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.run(args))
    # a bad input, a feature without its install extra, or a cache folder that cannot take a write
    except (InputError, MissingExtraError, CacheWriteError) as err:
        sys.stderr.write(f"persona-metrics {args.command}: error: {one_line(str(err))}\n")
        return INPUT_ERROR_STATUS


def one_line(message: str) -> str:
    r"""``message`` on one line: its lines joined by a space (another library's error may span several).

    >>> one_line("We couldn't connect to 'https://huggingface.co'.\nCheck your internet connection.\n")
    "We couldn't connect to 'https://huggingface.co'. Check your internet connection."
    """
    return " ".join(line.strip() for line in message.splitlines() if line.strip())


def run_command(name: str, argv: Sequence[str] | None = None) -> int:
    """``persona-metrics NAME ARGV...`` (the rest of ``sys.argv`` when ``argv`` is ``None``): for script wrappers."""
    return main([name, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
