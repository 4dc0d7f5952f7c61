"""``persona-metrics docs [TOPIC]``: where the documentation installed with the package is.

The wheel carries the repository's ``docs/*.md`` and its sample data (``persona_metrics/docs``,
``persona_metrics/data``), so a message citing ``docs/scaling.md`` §2 means the file that
``persona-metrics docs scaling`` names, on any install.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from persona_metrics.commands.output import InputError, command_parser, emit
from persona_metrics.validation import not_one_of

NAME = "docs"
HELP = "print where the installed documentation is (docs/<topic>.md), or a topic's text with --text"
#: The installed documentation and sample data.
DOCS = Path(__file__).resolve().parents[1] / "docs"
DATA = Path(__file__).resolve().parents[1] / "data"

DESCRIPTION = """Print the path of the installed copy of docs/<topic>.md (the documentation that messages and
--help texts cite as docs/<topic>.md), or, without TOPIC, every topic and its path.

examples:
  persona-metrics docs                 every topic
  persona-metrics docs scaling         the path of docs/scaling.md
  persona-metrics docs scaling --text  its text
  persona-metrics docs --data          where the sample data is (data/cnndm_sample, data/pens_sample, ...)
"""


def topics() -> dict[str, Path]:
    """``{topic: path}`` of every installed ``docs/*.md``, sorted."""
    return {path.stem: path for path in sorted(DOCS.glob("*.md"))}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """TOPIC, ``--text`` and ``--data``."""
    parser.add_argument("topic", nargs="?", default=None, metavar="TOPIC", help="e.g. scaling, perseval, layout")
    parser.add_argument("--text", action="store_true", help="print the topic's text instead of its path")
    parser.add_argument("--data", action="store_true", help="print where the installed sample data is")


def run(args: argparse.Namespace) -> int:
    """Print the path (or text) of a topic, every topic, or the data folder."""
    if args.data:
        emit(f"{DATA}\n")
        return 0
    known = topics()
    if args.topic is None:
        emit("".join(f"{name}\t{path}\n" for name, path in known.items()))
        return 0
    name = args.topic.removeprefix("docs/").removesuffix(".md")
    if name not in known:
        raise InputError(not_one_of("topic", args.topic, known))
    emit(known[name].read_text(encoding="utf-8") if args.text else f"{known[name]}\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``persona-metrics docs`` from Python."""
    return run(command_parser(NAME, DESCRIPTION, add_arguments).parse_args(argv))
