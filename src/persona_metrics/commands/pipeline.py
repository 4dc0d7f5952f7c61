"""``persona-metrics pipeline DIR --out OUT``: the persona-quality batch pipeline over article JSON files.

The methodology's "Evaluation Pipeline": every generated summary scored, then aggregated by persona, sector and
model (the scoring and the reductions are :mod:`persona_metrics.persona.pipeline`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from persona_metrics.commands.output import InputError, command_parser, emit, input_errors, markdown_row
from persona_metrics.formatting import format_score

if TYPE_CHECKING:
    import pandas as pd

NAME = "pipeline"
HELP = "persona quality of every generated summary in a folder of article JSON files, aggregated"
#: The grouping columns of the aggregate tables, in report order.
GROUPINGS: tuple[str, ...] = ("persona", "sector", "model")

DESCRIPTION = """Score every generated summary of DIR with persona quality against the article's reference and
its target persona, and aggregate by persona, sector and model.

DIR holds one JSON file per article (*.json; format: data/financial_sample/README.md):
  {"article_id": "...", "title": "...", "article": "...", "reference_summary": "...",
   "metadata": {"prompt_type": "...", "author": "...", "sector": "...", ...},
   "generated_summaries": {"<model>": "<summary>", ...}}
The target persona is inferred from the metadata. Malformed files are reported by name on standard error and
skipped; with no valid article the command ends with one error line (exit status 2).

Writes to OUT: per_item.csv (one row per summary: ids, persona, sector, model, every component, the band),
aggregates.csv and aggregates.md (mean / std / n by persona, sector and model), summary.json (overall means,
skipped files, the signature) and persona_centroids.json (the centroid cache). Prints aggregates.md.

example:
  persona-metrics pipeline data/financial_sample --out outputs/financial_sample
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """DIR, ``--out`` and the scoring options."""
    parser.add_argument("data_dir", type=Path, metavar="DIR", help="folder of article JSON files")
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    parser.add_argument("--bertscore-model", default=None, help="local path or Hub id (default: packaged MiniLM)")
    parser.add_argument("--no-rescale", action="store_true", help="report raw BERTScore")
    parser.add_argument("--bleurt-checkpoint", default=None, help="add BLEURT (local path or Hub id)")
    parser.add_argument("--persona-dir", default=None, help="directory of {persona}.txt samples to add/override")
    parser.add_argument("--batch-size", type=int, default=32, help="summaries per scoring call")


def report_markdown(tables: pd.DataFrame, columns: Sequence[str], header: str, footer: Sequence[str]) -> str:
    """aggregates.md: one ``mean ± std`` table per grouping, between ``header`` and ``footer`` lines."""
    lines = [header, ""]
    for by, table in tables.groupby("by", sort=False):
        lines += [f"## By {by}", "", "| " + str(by) + " | n | " + " | ".join(columns) + " |"]
        lines.append("|---|---|" + "---|" * len(columns))
        for _, row in table.iterrows():
            cells = [f"{format_score(row[c + '_mean'])} ± {format_score(row[c + '_std'])}" for c in columns]
            lines.append(markdown_row([row["group"], row["n"], *cells]))
        lines.append("")
    return "\n".join([*lines, *footer, ""])


def run(args: argparse.Namespace) -> int:
    """Read, score, aggregate, write the files and print the report.

    Raises:
        InputError: no valid article (the skipped files are named on standard error first).
    """
    from persona_metrics.datasets.financial import read_article_dir, summary_items
    from persona_metrics.persona.params import BertScoreConfig
    from persona_metrics.persona.pipeline import aggregate_tables, overall_means, score_columns, score_items

    with input_errors():
        articles, problems = read_article_dir(args.data_dir)
    sys.stderr.writelines(f"skipped {problem}\n" for problem in problems)
    if not articles:
        raise InputError(f"no valid article in {args.data_dir} ({len(problems)} files skipped, each named above)")
    args.out.mkdir(parents=True, exist_ok=True)
    with input_errors():
        per_item, signature = score_items(
            summary_items(articles),
            bertscore=BertScoreConfig(model=args.bertscore_model, rescale=not args.no_rescale),
            bleurt_checkpoint=args.bleurt_checkpoint,
            persona_dir=args.persona_dir,
            centroid_cache=args.out / "persona_centroids.json",
            batch_size=args.batch_size,
        )
    columns = score_columns(per_item)
    per_item.to_csv(args.out / "per_item.csv", index=False)
    tables = aggregate_tables(per_item, GROUPINGS, columns)
    tables.to_csv(args.out / "aggregates.csv", index=False)
    header = f"# Persona quality: {args.data_dir} ({len(articles)} articles, {len(per_item)} summaries)"
    report = report_markdown(tables, columns, header, [f"Skipped files: {len(problems)}", f"Signature: `{signature}`"])
    (args.out / "aggregates.md").write_text(report, encoding="utf-8")
    summary = {
        "articles": len(articles),
        "summaries": len(per_item),
        "skipped": problems,
        "means": overall_means(per_item, columns),
        "signature": signature,
    }
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    emit(report)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``persona-metrics pipeline`` from Python.

    Raises:
        InputError: DIR has no ``*.json`` file, or a value the scoring refuses (named).
    """
    return run(command_parser(NAME, DESCRIPTION, add_arguments).parse_args(argv))
