"""``persona-metrics judge-check``: does a judge score faithful summaries above their one-false-fact copies?"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from persona_metrics.commands.judge_options import add_judge_arguments, make_judge
from persona_metrics.commands.output import (
    InputError,
    add_format_argument,
    command_parser,
    emit,
    input_errors,
    markdown_table,
    render_rows,
)
from persona_metrics.summary_eval.calibration import (
    MAX_INVALID_FRACTION,
    MIN_PAIRWISE_ACCURACY,
    check_judge,
    load_cases,
    verdict_path,
)
from persona_metrics.summary_eval.judge_client import JudgeError

NAME = "judge-check"
HELP = "check that a judge scores faithful summaries above their one-false-fact copies (a cached verdict)"
#: Exit status of a judge that fails the check (a bad input or a judge failure exits with 2).
FAIL_STATUS = 1

DESCRIPTION = f"""Ask a judge (-m/--model, --base-url for any OpenAI-compatible server) to rate the shipped calibration
set: per case a source, a faithful summary, the same summary with one false fact (a wrong number, a
wrong name or a negation) and an off-topic summary, written for the project. Prints one row:

  pairwise_accuracy  faithful scored above its false-fact copy (a tie counts half, an invalid answer 0)
  number, name, negation   the same per kind of false fact
  mean_gap           faithful minus false-fact accuracy, over the pairs with two valid answers
  off_topic_below    off-topic scored below faithful (ties half, an invalid answer 0)
  invalid / answers  answers without a valid score / answers asked (three per case)
  verdict            pass when pairwise_accuracy >= {MIN_PAIRWISE_ACCURACY:g} and invalid <= {MAX_INVALID_FRACTION:.0%}

The verdict is cached per (model, server URL, rubric, prompt version) under the judge cache folder
(--cache-dir, default <cache>/judge) in calibration/; SummaryEval (the summary_eval module, persona-metrics cnndm)
warns once when its judge has no passing verdict there. --cases PATH checks a set of your own (the same JSON lines:
{{"id", "source", "faithful", "false_fact": {{"kind": "number"|"name"|"negation", "text"}}, "off_topic"}}); its
verdict is not cached. Exit status: 0 pass, {FAIL_STATUS} fail, 2 a bad input or a judge failure.

The judge flags are cnndm's: valid answers are cached in the judge cache folder (--no-cache for none), the key is
read from the variable named by --api-key-env, and a --base-url on this machine needs none. A local server that
answers one request at a time wants --concurrency 1.

examples:
  persona-metrics judge-check --base-url http://127.0.0.1:8080/v1 -m smollm2 --concurrency 1
  persona-metrics judge-check -m gpt-4o --rubric consistency --scoring weighted -f json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``-f/--format``, ``--cases`` and the judge's flags."""
    add_format_argument(parser, "-f", "--format")
    parser.add_argument(
        "--cases",
        type=Path,
        default=None,
        metavar="PATH",
        help="a calibration set of your own (JSON lines, see above); default the shipped set",
    )
    add_judge_arguments(parser, "the judge to check", model_required=True)


def run(args: argparse.Namespace) -> int:
    """Check the judge, print the row in the chosen format and say where the verdict was cached."""
    with input_errors():
        judge = make_judge(args)
        cases = load_cases(args.cases) if args.cases is not None else None
        try:
            result = check_judge(judge, cases)
        except JudgeError as err:
            raise InputError(str(err)) from err
    row = result.as_dict()
    table = markdown_table([{k: v for k, v in row.items() if k != "reason"}]) + f"\n\nverdict: {result.reason}\n"
    emit(render_rows([row], args.format, table))
    if cases is None:
        sys.stderr.write(f"verdict cached in {verdict_path(judge)}\n")
    return 0 if result.passed else FAIL_STATUS


def main(argv: Sequence[str] | None = None) -> int:
    """``persona-metrics judge-check`` from Python.

    Raises:
        InputError: a bad calibration file (line named), a bad judge option, or a judge failure (one line).
    """
    return run(command_parser(NAME, DESCRIPTION, add_arguments).parse_args(argv))
