"""PerSEval / DEGRESS speed: this library vs. a naive per-pair implementation of the same formulas.

On PENS-format data (e.g. ``scripts/make_synthetic_pens.py`` output at full scale), with synthetic model
outputs (each user's title edited in a model-specific way):

1. **side by side** on the first ``--naive-docs`` documents: the naive implementation calls the reference
   library once per distance (``rouge_score`` for rougeL, scipy for jsd, ``bert_score`` for bertscore: one call
   over the subset's pairs), then the same formula functions; this library scores the same documents with a
   fresh distance object. Printed: both times, the ratio, and the max absolute difference of per-summary
   PerSEval and DEGRESS (must be <= 1e-9 for the lexical distances);
2. **full scale**: the first model (reference side + model side), a second model (reusing the reference side),
   and ``--models`` models in all, with the process's peak memory.

    python scripts/make_synthetic_pens.py outputs/synthetic_pens
    python scripts/bench_perseval.py outputs/synthetic_pens --distance rougeL jsd
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from persona_metrics.datasets.pens import load_pens
from persona_metrics.distances import get_distance, word_tokens
from persona_metrics.distances.lexical import JensenShannon, RougeL
from persona_metrics.distances.neural import BertScore
from persona_metrics.personalization import PersonalizationScorer, degress_scores, edp_scores, group_documents


def model_outputs(references: Sequence[str], headlines: Sequence[str], model: int) -> list[str]:
    """Model ``model``'s prediction per example: the user's title minus one word plus a headline word."""
    out = []
    for ref, head in zip(references, headlines, strict=True):
        words, extra = ref.split(), head.split()
        if len(words) > 2:
            del words[model % len(words)]
        out.append(" ".join([*words, extra[model % len(extra)]]))
    return out


def naive_sigma(name: str) -> Callable[[list[tuple[str, str]]], np.ndarray]:
    """σ over a pair list with the reference library called per pair (bertscore: one call for the list)."""
    if name == "rougeL":
        from rouge_score import rouge_scorer

        scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
        return lambda pairs: np.array([1.0 - scorer.score(a, b)["rougeL"].fmeasure for a, b in pairs])
    if name == "jsd":
        from scipy.spatial.distance import jensenshannon

        def jsd(a: str, b: str) -> float:
            ca, cb = Counter(word_tokens(a)), Counter(word_tokens(b))
            vocab = sorted(ca.keys() | cb.keys())
            return float(jensenshannon([ca[w] for w in vocab], [cb[w] for w in vocab], base=2) ** 2)

        return lambda pairs: np.array([jsd(a, b) for a, b in pairs])
    if name == "bertscore":
        from bert_score import score

        from persona_metrics.resources import minilm_path

        def bs(pairs: list[tuple[str, str]]) -> np.ndarray:
            _, _, f1 = score(
                [b for _, b in pairs], [a for a, _ in pairs], model_type=str(minilm_path()), num_layers=6, batch_size=64
            )
            return 1.0 - f1.numpy().astype(np.float64)

        return bs
    raise SystemExit(f"no naive implementation for {name}")


def naive_scores(preds: list[str], refs: list[str], docs: list[str], ids: list[str], name: str) -> np.ndarray:
    """Per-summary (PerSEval, DEGRESS) with every σ from the reference library, formulas as the library's."""
    sigma = naive_sigma(name)
    out = np.full((len(preds), 2), np.nan)
    for g in group_documents(docs, ids):
        if len(g.indices) < 2:
            continue
        idx, n = list(g.indices), len(g.indices)
        mats = []
        for side in (refs, preds):
            pairs = [(side[idx[j]], side[idx[k]]) for j in range(n) for k in range(n) if j != k]
            m = np.zeros((n, n))
            m[~np.eye(n, dtype=bool)] = sigma(pairs)
            mats += [m, sigma([(side[i], g.document) for i in idx])]
        acc = sigma([(preds[i], refs[i]) for i in idx])
        deg = degress_scores(*mats)
        out[idx, 0] = deg * edp_scores(acc).edp
        out[idx, 1] = deg
    return out


def fresh(name: str):
    """A new distance object (no cache shared with earlier runs)."""
    return {"rougeL": RougeL, "jsd": JensenShannon, "bertscore": BertScore}[name]()


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    """(seconds, result) of one call."""
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def bench(
    name: str,
    refs: list[str],
    docs: list[str],
    ids: list[str],
    heads: list[str],
    sub: list[int],
    args: argparse.Namespace,
) -> list[str]:
    """The report lines of one distance."""
    get_distance(name)  # load models and NLTK data before timing
    preds = model_outputs(refs, heads, 1)
    s_preds, s_refs, s_docs, s_ids = ([x[i] for i in sub] for x in (preds, refs, docs, ids))
    t_naive, naive = timed(lambda: naive_scores(s_preds, s_refs, s_docs, s_ids, name))
    t_ours, res = timed(lambda: PersonalizationScorer(s_refs, s_docs, s_ids, distance=fresh(name)).score(s_preds))
    mine = np.column_stack([res.per_summary("perseval"), res.per_summary("degress")]).astype(float)
    diff = float(np.nanmax(np.abs(mine - naive)))
    lines = [
        f"## {name}",
        "",
        f"side by side, {args.naive_docs} documents ({len(sub)} summaries):",
        f"  naive per-pair  {t_naive:9.2f} s",
        f"  persona-metrics {t_ours:9.2f} s",
        f"  speed-up        {t_naive / t_ours:9.1f} x",
        f"  max |diff| of per-summary PerSEval and DEGRESS: {diff:.2e}",
    ]
    if args.full:
        t_init, scorer = timed(lambda: PersonalizationScorer(refs, docs, ids, distance=fresh(name)))
        t_first, first = timed(lambda: scorer.score(model_outputs(refs, heads, 1)))
        t_second, _ = timed(lambda: scorer.score(model_outputs(refs, heads, 2)))
        t_rest, _ = timed(lambda: [scorer.score(model_outputs(refs, heads, m)) for m in range(3, args.models + 1)])
        peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
        total = t_init + t_first + t_second + t_rest
        lines += [
            f"full scale ({len(refs)} summaries):",
            f"  first model (reference side + model side) {t_init + t_first:8.2f} s  [reference side {t_init:.2f} s]",
            f"  second model (reference side reused)      {t_second:8.2f} s",
            f"  {args.models} models in all {total:8.2f} s",
            f"  first-model PerSEval {first.perseval:.6f}, DEGRESS {first.degress:.6f}",
            f"  peak memory of this process so far: {peak_gb:.2f} GB",
        ]
    return [*lines, ""]


def main(argv: list[str] | None = None) -> int:
    """Print the comparison for each distance."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pens_dir", type=Path)
    parser.add_argument("--distance", nargs="+", default=["rougeL", "jsd"], choices=["rougeL", "jsd", "bertscore"])
    parser.add_argument("--naive-docs", type=int, default=200, help="documents in the side-by-side comparison")
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--full", action=argparse.BooleanOptionalAction, default=True, help="full-scale runs")
    args = parser.parse_args(argv)

    ds = load_pens(args.pens_dir)
    refs, docs, ids, heads = ds["reference"], ds["document"], ds["news_id"], ds["headline"]
    groups = group_documents(docs, ids)
    sub = sorted(i for g in groups[: args.naive_docs] for i in g.indices)
    lines = [f"# PerSEval speed on {args.pens_dir}: {len(groups)} documents, {len(refs)} summaries per model", ""]
    for name in args.distance:
        lines += bench(name, refs, docs, ids, heads, sub, args)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
