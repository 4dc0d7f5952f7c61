"""``persona-metrics validity [METRIC ...]``: the shipped validity suite, one table per metric (docs/validity.md)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from persona_metrics.commands.output import (
    InputError,
    add_format_argument,
    command_parser,
    csv_text,
    emit,
    input_errors,
    json_text,
    markdown_table,
    write_text,
)
from persona_metrics.validity import DEGRESS_NEAR_ZERO, METHODS, METRICS, ValidityReport, run_validity

NAME = "validity"
#: The methods of each metric, as the help lists them.
METHODS_TEXT = "\n".join(
    f"  {metric:<16} {', '.join(m.name for m in METHODS if m.metric == metric)}" for metric in METRICS
)
HELP = "measure each metric's metamorphic properties on the shipped hand-written cases (one table per metric)"

DESCRIPTION = f"""Measure whether each metric behaves as its name promises, on hand-written cases shipped with the
package (written blind to the metrics; never used to tune them). One table per metric: a property per row, the
share of cases where it holds per method (the default, each validated variant, and for VERT two reference scores).
A tie counts as a failure of a strict ">".

  vert             paraphrase > meaning edit (per edit kind and overall), meaning edit > unrelated,
                   paraphrase > unrelated; ROUGE-L F1 and raw BERTScore F1 on the same pairs
  summary_eval     coherence: good > repeated sentences (s1 s1 s2 s2 ...), good > reversed order,
                   good > its first word alone; completeness: good > one-topic summary
  persona_style    recognition (nearest persona = labelled one) and own-persona ranking, per persona,
                   in-genre and cross-genre, on full texts and on summaries; off-register texts below
                   each persona's own summaries (10th percentile, and the AUC)
  persona_quality  good > wrong register, good > wrong content, good > wrong register > wrong content,
                   per persona, on full-length and summary cases
  perseval         oracle highest, rotation lowers PerSEval (per document), same summary for all users:
                   DEGRESS < {DEGRESS_NEAR_ZERO:g} (per document), shuffled rows give the same system PerSEval exactly

METRIC is one of the metrics below (default: all); their methods (-m NAME, with one METRIC; the first is
the default; ROUGE-L and BERTScore are reference scores of other metrics):
{METHODS_TEXT}

The full run takes several minutes (models load once); --limit N takes at most N cases per group for a quick look.

examples:
  persona-metrics validity
  persona-metrics validity vert -m original -m meaning_sensitive
  persona-metrics validity --json validity.json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """METRIC..., ``-m/--method``, ``--json``, ``--cases``, ``--limit`` and ``-f/--format``."""
    parser.add_argument("metrics", nargs="*", metavar="METRIC", help="the metrics to measure (default: all; see above)")
    parser.add_argument(
        "-m", "--method", dest="methods", action="append", metavar="NAME", help="measure only this method (repeatable)"
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the report as JSON to PATH")
    parser.add_argument("--cases", type=Path, metavar="DIR", help="a folder of case files in the shipped formats")
    parser.add_argument("--limit", type=int, metavar="N", help="at most N cases per group of each file (quick look)")
    add_format_argument(parser, "-f", "--format")


def report_text(report: ValidityReport) -> str:
    """One markdown table per metric under its name, then the methods not measured, if any."""
    parts = [f"## {metric}\n\n{markdown_table(report.table(metric))}\n" for metric in report.metrics()]
    if report.limit is not None:
        parts.append(f"(at most {report.limit} cases per group: a quick look, not the full measurement)\n")
    if report.skipped:
        parts.append(f"not measured (this installation lacks the option): {', '.join(report.skipped)}\n")
    return "\n".join(parts)


def run(args: argparse.Namespace) -> int:
    """Run the suite, print the tables (or JSON / CSV) and write the JSON report when asked."""
    metrics: list[str] = args.metrics
    if args.methods and len(metrics) != 1:
        raise InputError("-m/--method needs exactly one METRIC (the methods are named per metric)")
    methods = {metrics[0]: args.methods} if args.methods else None
    with input_errors():
        report = run_validity(metrics or None, methods, cases_dir=args.cases, limit=args.limit)
    if args.json is not None:
        write_text(args.json, json_text(report.as_dict()))
    if args.format == "json":
        emit(json_text(report.as_dict()))
    elif args.format == "csv":
        emit(csv_text(report.rows()))
    else:
        emit(report_text(report))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``persona-metrics validity`` from Python."""
    return run(command_parser(NAME, DESCRIPTION, add_arguments).parse_args(argv))
