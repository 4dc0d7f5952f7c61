"""Throughput of persona_style and persona_quality on N summaries (default 2,000), against baselines.

Inputs: the summaries of data/financial_sample cycled to N items, each made unique by a numbered suffix
sentence (so no cache can cheat). Printed side by side, each on the same inputs:

* persona_style: one batched ``score_style`` call vs. one call per summary (the cost of calling per item);
* persona_quality: one batched ``score_quality`` call vs. the reference libraries called directly the usual
  way (``rouge_score`` per item on Punkt-split sentences, ``bert_score.score`` on the whole batch with the same
  model and layer, and the style features per item), i.e. what a user would write without this library.

    python scripts/bench_quality.py -n 2000
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from persona_metrics.datasets.financial import read_article_dir, summary_items
from persona_metrics.persona.quality import score_quality
from persona_metrics.persona.style import score_style

ROOT = Path(__file__).resolve().parents[1]


def timed(fn: Callable[[], object]) -> float:
    """Wall-clock seconds of one call."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def naive_quality(preds: list[str], refs: list[str], personas: list[str]) -> None:
    """Content and style computed with the reference libraries directly."""
    import nltk
    from bert_score import score
    from rouge_score import rouge_scorer

    from persona_metrics.resources import ensure_punkt, minilm_path

    ensure_punkt()
    scorer = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)
    for p, r in zip(preds, refs, strict=True):
        scorer.score("\n".join(nltk.sent_tokenize(r)), "\n".join(nltk.sent_tokenize(p)))
    score(preds, refs, model_type=str(minilm_path()), num_layers=6, batch_size=64)
    for p, persona in zip(preds, personas, strict=True):
        score_style([p], [persona])


def main(argv: list[str] | None = None) -> int:
    """Print the timing table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--num-summaries", type=int, default=2000)
    args = parser.parse_args(argv)
    items = summary_items(read_article_dir(ROOT / "data" / "financial_sample")[0])
    n = args.num_summaries
    rows = [items.iloc[i % len(items)] for i in range(n)]
    preds = [f"{r['prediction']} Item {i} closes the note." for i, r in enumerate(rows)]
    refs = [r["reference"] for r in rows]
    personas = [r["persona"] for r in rows]

    score_quality(preds[:4], refs[:4], personas[:4])  # warm-up: model load, NLTK data, centroids
    style_batch = timed(lambda: score_style(preds, personas))
    style_items = timed(lambda: [score_style([p], [q]) for p, q in zip(preds, personas, strict=True)])
    quality_batch = timed(lambda: score_quality(preds, refs, personas))
    quality_naive = timed(lambda: naive_quality(preds, refs, personas))

    out = [
        f"# persona_style / persona_quality throughput, {n} summaries",
        "",
        "| metric | this library (s) | summaries/s | baseline (s) | baseline | speed-up |",
        "|---|---|---|---|---|---|",
        f"| persona_style | {style_batch:.2f} | {n / style_batch:.0f} | {style_items:.2f} | one call per summary "
        f"| {style_items / style_batch:.2f}x |",
        f"| persona_quality | {quality_batch:.2f} | {n / quality_batch:.0f} | {quality_naive:.2f} "
        f"| rouge_score + bert_score + style, direct | {quality_naive / quality_batch:.2f}x |",
    ]
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
