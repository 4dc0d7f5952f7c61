"""``persona-metrics cnndm``: persona quality (journalist persona) of summarizers on CNN/DailyMail."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from persona_metrics.commands.output import (
    add_format_argument,
    command_parser,
    emit,
    input_errors,
    markdown_table,
    render_rows,
)

NAME = "cnndm"
HELP = "persona quality (journalist) of lead-3, random-3 and prediction files on CNN/DailyMail"
#: The persona CNN/DM highlights are scored against.
PERSONA = "journalist"
#: The shipped sample (16 test articles), the default data.
SAMPLE = Path(__file__).resolve().parents[3] / "data" / "cnndm_sample" / "test.jsonl"

DESCRIPTION = """Score summarizers on CNN/DailyMail with persona_quality for the journalist persona and print the
mean of each component per system, with the signature.

Data (columns article, highlights, id, as abisee/cnn_dailymail 3.0.0):
  default        the shipped sample data/cnndm_sample/test.jsonl (16 articles, offline)
  --data-files   local parquet files, or JSON-lines files with one {"article", "highlights", "id"} per line
  --hub          the test split from the Hugging Face Hub (needs network)
Systems: lead3 (first three sentences), random3 (three seeded random sentences), reference (the highlights
against themselves: a sanity row) and prediction files given with --predictions: JSON lines
{"id": "<article id>", "prediction": "<summary>"}, one per article; the file stem names the system.

examples:
  persona-metrics cnndm -n 16 --seed 0
  persona-metrics cnndm --data-files test.parquet -n 1000 --format csv
  persona-metrics cnndm --predictions my_model.jsonl --format json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Sample size, seed, format, data source and prediction files."""
    parser.add_argument("-n", "--sample-size", type=int, default=None, help="articles to score (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="sampling and random3 seed")
    add_format_argument(parser, "-f", "--format")
    parser.add_argument("--data-files", nargs="*", type=Path, default=None, help="local parquet or JSON lines")
    parser.add_argument("--hub", action="store_true", help="load the test split from the Hub (needs network)")
    parser.add_argument("--predictions", nargs="*", type=Path, default=[], help="JSON lines {id, prediction}")


def load_systems(args: argparse.Namespace) -> tuple[list[str], dict[str, list[str]]]:
    """The references (highlights) and every system's summaries, aligned."""
    from persona_metrics.datasets.cnndm import baseline_summaries, load_cnndm, read_predictions

    ds = load_cnndm(None if args.hub else (args.data_files or [SAMPLE]), hub=args.hub)
    if args.sample_size is not None and args.sample_size < ds.num_rows:
        ds = ds.shuffle(seed=args.seed).select(range(args.sample_size))
    refs, ids = list(ds["highlights"]), [str(i) for i in ds["id"]]
    systems = baseline_summaries(list(ds["article"]), refs, seed=args.seed)
    for path in args.predictions:
        systems[path.stem] = read_predictions(path, ids)
    return refs, systems


def score_systems(refs: Sequence[str], systems: dict[str, list[str]]) -> list[dict[str, Any]]:
    """One row per system: its name, the number of articles, the mean of each component and the signature."""
    from persona_metrics.persona.quality import score_quality

    rows = []
    for name, preds in systems.items():
        result = score_quality(preds, refs, [PERSONA] * len(preds))
        rows.append({"system": name, "n": len(preds), **result.means(), "signature": result.signature})
    return rows


def run(args: argparse.Namespace) -> int:
    """Load, score and print in the chosen format."""
    with input_errors():
        refs, systems = load_systems(args)
        rows = score_systems(refs, systems)
    shown = [{k: v for k, v in row.items() if k != "signature"} for row in rows]
    table = markdown_table(shown) + f"\n\nsignature: {rows[0]['signature']}\n"
    emit(render_rows(rows, args.format, table))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``persona-metrics cnndm`` from Python.

    Raises:
        InputError: a missing column, a bad data file or a prediction file without every article (named).
    """
    return run(command_parser(NAME, DESCRIPTION, add_arguments).parse_args(argv))
