"""``persona-metrics merge OUT1.jsonl ...``: the states files of a sharded run, printed as the unsharded run prints.

The numbers are the library's: :func:`persona_metrics.sharding.documents.merge_states` (per document) and
:func:`persona_metrics.sharding.items.merge_item_states` (per item) rebuild every result of the whole input, and the
command that wrote the states (``score``, ``pens`` or ``cnndm``) lays them out.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from persona_metrics.commands.output import (
    InputError,
    add_format_argument,
    add_quiet_argument,
    check_quiet_format,
    command_parser,
    emit,
    input_errors,
    render_rows,
)
from persona_metrics.metric_registry import metric_spec

if TYPE_CHECKING:
    from persona_metrics.sharding.files import States

NAME = "merge"
HELP = "merge the states files of a sharded run (score/pens --shard I/N --states) and print the whole result"
DESCRIPTION = """Merge the states files of a sharded run and print exactly what the unsharded command prints: every
number, interval, p-value, note and the signature, bit for bit (docs/scaling.md section 2).

  persona-metrics score perseval FILE --shard 1/3 --states s1.jsonl     (and 2/3, 3/3: on any machines)
  persona-metrics merge s1.jsonl s2.jsonl s3.jsonl [--format table|json|csv] [-q]
    == persona-metrics score perseval FILE [--format ...] [-q]
  persona-metrics pens DIR --shard 2/4 --states p2.jsonl ...; persona-metrics merge p*.jsonl
    == persona-metrics pens DIR (the report; --format json / csv print leaderboard.json / .csv)
  persona-metrics score vert FILE --shard 1/8 --states v1.jsonl ...; persona-metrics merge v*.jsonl
  persona-metrics cnndm -n 1000 --shard 1/4 --states c1.jsonl ...; persona-metrics merge c*.jsonl

A perseval / degress / pens shard holds the documents that a stable hash (BLAKE2b) of the document id assigns to it,
so a document's users are never split; a persona_style, persona_quality, vert, summary_eval or cnndm shard holds
the I-th of N contiguous blocks of the items (articles). Files may be given in any order. The merge refuses, naming
the file, states of another input (its SHA-256 differs; the path as typed may), metric, options or signature, a
shard given twice, a missing shard, a damaged, edited, dropped or cut line (FILE:LINE: every line carries a check)
and items that no line or two lines hold; nothing is printed then (exit status 2).

examples:
  persona-metrics merge states/*.jsonl
  persona-metrics merge s3.jsonl s1.jsonl s2.jsonl --format csv
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The states files, ``--format`` and ``-q``."""
    parser.add_argument("states", nargs="+", type=Path, metavar="STATES", help="the shards' --states files")
    add_format_argument(parser, "-f", "--format")
    add_quiet_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Read and check the shards, merge them and print the report of the command that wrote them."""
    from persona_metrics.commands import pens, score
    from persona_metrics.sharding.documents import merge_states
    from persona_metrics.sharding.files import layout, read_states

    check_quiet_format(args)
    with input_errors():
        shards = [read_states(path) for path in args.states]
        if layout(shards[0].header) == "items":
            return _merge_items(shards, args)
        merged = merge_states(shards)
    if merged.header["command"] == pens.NAME:
        if args.quiet:  # it used to end in a KeyError traceback
            raise InputError("pens prints a leaderboard per distance, no single score: merge its states without -q")
        markdown, rows = pens.merged_report(merged)
        emit(render_rows(rows, args.format, markdown))
        return 0
    leaderboard = score.merged_report(merged)
    score.print_report(leaderboard, args.format, args.quiet, metric_spec(merged.header["metric"]).headline)
    return 0


def _merge_items(shards: Sequence[States], args: argparse.Namespace) -> int:
    """Merge per-item states (the per-item metrics of ``score``, ``cnndm``) and print the command's report."""
    from persona_metrics.commands import cnndm, score
    from persona_metrics.commands.per_item import merged_item_report
    from persona_metrics.sharding.items import merge_item_states

    merged = merge_item_states(shards)
    if merged.header["command"] == cnndm.NAME:
        if args.quiet:
            raise ValueError("cnndm prints no single score: merge its states without -q")
        text, notes = cnndm.merged_output(merged, args.format)
        emit(text)
        sys.stderr.writelines(f"note: {n}\n" for n in notes)
        return 0
    report = merged_item_report(merged)
    score.print_report(report, args.format, args.quiet, metric_spec(merged.header["metric"]).headline)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``persona-metrics merge`` from Python.

    Raises:
        InputError: an unreadable or malformed states file, or shards that do not belong together (file named).
    """
    return run(command_parser(NAME, DESCRIPTION, add_arguments).parse_args(argv))
