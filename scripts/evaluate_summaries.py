"""Evaluate generated summaries with persona quality (the methodology's "Evaluation Pipeline").

Reads one JSON file per article from DATA_DIR (format: data/financial_sample/README.md), infers each
article's target persona from its metadata, builds or loads the persona centroids
(OUT_DIR/persona_centroids.json), scores every (article, model) summary and writes:

* OUT_DIR/per_item.csv: one row per summary with every component and the interpretation band;
* OUT_DIR/aggregates.csv and OUT_DIR/aggregates.md: mean / std / n by persona, sector and model;
* OUT_DIR/summary.json: overall means, skipped files and the config signature.

Malformed files are reported by name and skipped.

    python scripts/evaluate_summaries.py data/financial_sample --out outputs/financial
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from persona_metrics.datasets.financial import aggregate, read_article_dir, summary_items
from persona_metrics.persona.quality import BertScoreConfig, score_quality

COMPONENTS = ("overall_quality", "content_quality", "style_similarity", "rougeLsum", "bertscore_f1")


def main(argv: list[str] | None = None) -> int:
    """Run the pipeline; exit 1 when no valid article is found."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    parser.add_argument("--bertscore-model", default=None, help="local path or Hub id (default: packaged MiniLM)")
    parser.add_argument("--no-rescale", action="store_true", help="report raw BERTScore")
    parser.add_argument("--bleurt-checkpoint", default=None, help="add BLEURT (local path or Hub id)")
    parser.add_argument("--persona-dir", default=None, help="directory of {persona}.txt samples to add/override")
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args(argv)

    articles, problems = read_article_dir(args.data_dir)
    for problem in problems:
        sys.stderr.write(f"skipped {problem}\n")
    if not articles:
        sys.stderr.write(f"no valid article in {args.data_dir}\n")
        return 1
    items = summary_items(articles)
    args.out.mkdir(parents=True, exist_ok=True)
    config = BertScoreConfig(model=args.bertscore_model, rescale=not args.no_rescale)
    parts, signature = [], ""
    for start in tqdm(range(0, len(items), args.batch_size), desc="scoring", unit="batch"):
        chunk = items.iloc[start : start + args.batch_size]
        result = score_quality(
            chunk["prediction"].tolist(),
            chunk["reference"].tolist(),
            chunk["persona"].tolist(),
            bertscore=config,
            bleurt_checkpoint=args.bleurt_checkpoint,
            persona_dir=args.persona_dir,
            centroid_cache=args.out / "persona_centroids.json",
        )
        columns = {
            "overall_quality": result.overall_quality,
            "content_quality": result.content.content_quality,
            "style_similarity": result.style_similarity,
            "rougeLsum": result.content.rouge_lsum,
            "bertscore_f1": result.content.bertscore_f1,
            "band": list(result.bands),
        }
        if result.content.bleurt is not None:
            columns["bleurt"] = result.content.bleurt
        parts.append(chunk.drop(columns=["prediction", "reference"]).assign(**columns))
        signature = result.signature
    per_item = pd.concat(parts, ignore_index=True)
    components = [c for c in (*COMPONENTS, "bleurt") if c in per_item]
    per_item.to_csv(args.out / "per_item.csv", index=False)
    tables = pd.concat([aggregate(per_item, by, components) for by in ("persona", "sector", "model")])
    tables.to_csv(args.out / "aggregates.csv", index=False)

    lines = [f"# Persona quality: {args.data_dir} ({len(articles)} articles, {len(per_item)} summaries)", ""]
    for by, table in tables.groupby("by", sort=False):
        lines += [f"## By {by}", "", "| " + by + " | n | " + " | ".join(components) + " |"]
        lines.append("|---|---|" + "---|" * len(components))
        for _, row in table.iterrows():
            cells = " | ".join(f"{row[c + '_mean']:.3f} ± {row[c + '_std']:.3f}" for c in components)
            lines.append(f"| {row['group']} | {row['n']} | {cells} |")
        lines.append("")
    lines += [f"Skipped files: {len(problems)}", f"Signature: `{signature}`", ""]
    report = "\n".join(lines)
    (args.out / "aggregates.md").write_text(report, encoding="utf-8")
    summary = {
        "articles": len(articles),
        "summaries": len(per_item),
        "skipped": problems,
        "means": {c: float(per_item[c].mean()) for c in components},
        "signature": signature,
    }
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    sys.stdout.write(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
