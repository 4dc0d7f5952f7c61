"""BERTScore distance: exactness against the ``bert_score`` package, and speed, on PENS-format data.

(``docs/perseval.md`` §3.7; data from ``scripts/make_synthetic_pens.py``.)

1. **side by side** on the first ``--docs`` documents: σ of every pair of a PerSEval pass (each document's
   references pairwise and against the document, the same for a synthetic model's titles, and each title against
   its reference) from this library and from ``bert_score.score(..., batch_size=1)`` on the same model and layer
   (with batch_size=1 bert_score pads nothing: it embeds each sentence alone and matches each pair alone; its
   batched calls let padded positions count as cosine 0, which moves unrelated pairs, §3.7). Printed: max
   |σ − bert_score|, which must be <= 1e-6 (the script exits 1 otherwise). With ``--dtype bfloat16`` (or ``float64``)
   the library's float32 σ is printed beside it as well, and that dtype's difference from it;
2. **timing**: a fresh distance embeds ``--titles`` titles and ``--time-docs`` documents (seconds per 1,000
   titles, per document), pairs are scored from cached embeddings (per pair), and the first model at full scale
   is extrapolated from these: every document, the reference and prediction titles, the pairs of both passes;
3. ``--full``: the first model at full scale (``PersonalizationScorer``: reference pass, then model pass), timed,
   with the process's peak memory and the embedding cache's size at the end, beside its **floor**: the forward
   FLOPs the run needs (every embedded text once, unpadded: ``BertScore.forward_flops``) at the fp32 matmul rate
   measured here at the same torch thread count (``bench_quality.matmul_rate``: ``torch.mm`` on the MiniLM's
   feed-forward shape, best of 5; on a GPU the same product at the pass shape the library runs there, in the run's
   dtype), taken before and after the run: the floor is at the faster of the two, and both are printed.
   ``--rows PATH`` writes the row of ``make bench`` (target: within 1.3x
   the floor; the values' check is the side-by-side part);
4. ``--peer-full`` (with ``--full``; meant for a GPU): ``bert_score.score`` at its default batch size on the same
   device over every unique unordered pair of the first model's two passes (F1 is symmetric), timed, and its σ
   against this library's on the same pairs (max |Δ| printed; bert_score's padded batches move σ, §3.7).

    python scripts/make_synthetic_pens.py outputs/synthetic_pens
    python scripts/bench_bertscore.py outputs/synthetic_pens [--full] [--dtype bfloat16] [--num-threads 1]
    python scripts/bench_bertscore.py outputs/synthetic_pens --full --rows rows.json
    python scripts/bench_bertscore.py outputs/synthetic_pens --full --device cuda --peer-full   # on a GPU
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from bench_perseval import model_outputs  # this directory: the same synthetic models as the PerSEval bench
from bench_quality import matmul_rate  # this directory: the fp32 matmul rate the floors are taken at

from persona_metrics.datasets.pens import load_pens
from persona_metrics.distances import BertScore
from persona_metrics.personalization import DocumentGroup, PersonalizationScorer, group_documents

EXACT = 1e-6
#: The full run's target: at most this many times its floor (issue 25).
FLOOR_TARGET = 1.3


def pass_pairs(groups: Sequence[DocumentGroup], refs: Sequence[str], preds: Sequence[str]) -> list[tuple[str, str]]:
    """The unique pairs of a PerSEval reference pass and model pass over ``groups`` (in the scorer's order)."""
    pairs: list[tuple[str, str]] = []
    for side in (refs, preds):
        for g in groups:
            texts = [side[i] for i in g.indices]
            pairs += [(a, b) for j, a in enumerate(texts) for k, b in enumerate(texts) if j != k]
            pairs += [(a, g.document) for a in texts]
    pairs += [(preds[i], refs[i]) for g in groups for i in g.indices]
    return list(dict.fromkeys(pairs))


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, result) of one call."""
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def options(args: argparse.Namespace) -> dict[str, Any]:
    """The distance options given on the command line."""
    names = ("batch_size", "num_threads", "dtype", "cache_mb", "device")
    return {name: getattr(args, name) for name in names if getattr(args, name) is not None}


def side_by_side(pairs: list[tuple[str, str]], args: argparse.Namespace) -> tuple[list[str], float, bool, float]:
    """Report lines, seconds per scored pair (cached embeddings), whether σ is within 1e-6 of bert_score, and the
    largest float32 difference."""
    from bert_score import score

    from persona_metrics.resources import minilm_path

    dist = BertScore(**options(args))
    dist.prepare(["load the model before timing"])
    t_ours, ours = timed(lambda: dist.pairwise(pairs))
    t_pairs, _ = timed(lambda: dist.pairwise(pairs))  # every text cached: pair matching only
    refs, cands = [a for a, _ in pairs], [b for _, b in pairs]
    t_bs, (_, _, f1) = timed(
        lambda: score(cands, refs, model_type=str(minilm_path()), num_layers=dist.layer(), batch_size=1)
    )
    exact = 1.0 - f1.numpy().astype(np.float64)
    lines = [
        f"side by side, {args.docs} documents, {len(pairs)} unique pairs:",
        f"  persona-metrics {t_ours:8.2f} s   bert_score (batch_size=1) {t_bs:8.2f} s",
    ]
    if dist.dtype == "float32":
        diff = float(np.abs(ours - exact).max())
        lines.append(f"  max |sigma - bert_score| = {diff:.2e}  ({'ok' if diff <= EXACT else 'FAILED'}: <= {EXACT:g})")
        return lines, t_pairs / len(pairs), diff <= EXACT, diff
    fp32 = BertScore(**{**options(args), "dtype": "float32"}).pairwise(pairs)
    diff, err = float(np.abs(fp32 - exact).max()), np.abs(ours - fp32)
    lines += [
        f"  float32: max |sigma - bert_score| = {diff:.2e}  ({'ok' if diff <= EXACT else 'FAILED'}: <= {EXACT:g})",
        f"  {dist.dtype}: max |sigma_{dist.dtype} - sigma_fp32| = {err.max():.2e} (mean {err.mean():.2e})",
    ]
    return lines, t_pairs / len(pairs), diff <= EXACT, diff


def timing(
    titles: list[str], docs: list[str], per_pair: float, counts: dict[str, int], args: argparse.Namespace
) -> list[str]:
    """Embedding speed of a fresh distance and the extrapolated first model at full scale."""
    dist = BertScore(**options(args))
    dist.prepare(["load the model before timing"])
    t_titles, _ = timed(lambda: dist.prepare(titles))
    t_docs, _ = timed(lambda: dist.prepare(docs))
    per_title, per_doc = t_titles / len(titles), t_docs / len(docs)
    parts = {
        "documents": counts["documents"] * per_doc,
        "titles": counts["titles"] * per_title,
        "pairs": counts["pairs"] * per_pair,
    }
    total = sum(parts.values())
    return [
        f"timing (a fresh distance; options {options(args) or 'default'}):",
        f"  {len(titles)} titles: {t_titles:.2f} s = {1000 * per_title:.2f} s per 1,000 titles",
        f"  {len(docs)} documents: {t_docs:.2f} s = {per_doc:.3f} s per document",
        f"  pair matching: {1e6 * per_pair:.0f} us per pair (cached embeddings, one BLAS thread)",
        f"  first model at full scale, extrapolated with every document embedded once (a cache that keeps them, "
        f"cache_mb=4096 at full PENS): {total / 60:.1f} min = "
        + ", ".join(f"{k} ({counts[k]:,}) {v / 60:.1f} min" for k, v in parts.items()),
    ]


def full(
    refs: list[str], docs: list[str], ids: list[str], preds: list[str], args: argparse.Namespace
) -> tuple[list[str], dict[str, Any]]:
    """The first model at full scale (reference pass, then model pass) beside its floor; report lines and timings."""
    import torch

    dist = BertScore(**options(args))
    dist.prepare(["load the model before timing"])
    threads = torch.get_num_threads() if args.num_threads is None else args.num_threads
    on_gpu = str(dist.device).startswith("cuda")

    def measured_rate() -> float:
        if on_gpu:
            return matmul_rate(dist._load().batch_tokens, str(dist.device), dist.dtype)
        with_threads = torch.get_num_threads()
        torch.set_num_threads(threads)
        try:
            return matmul_rate()
        finally:
            torch.set_num_threads(with_threads)

    if on_gpu:
        kind = "fp32 (TF32 off)" if dist.dtype == "float32" else dist.dtype
        unit = f"{kind} matmul on {torch.cuda.get_device_name()}"
    else:
        unit = f"fp32 matmul on {threads} thread(s)"
    rate_before = measured_rate()
    if on_gpu:
        torch.cuda.reset_peak_memory_stats()  # the run's peak, not the rate's products
    groups = [g for g in group_documents(docs, ids) if len(g.indices) >= 2]
    texts = [g.document for g in groups] + [side[i] for side in (refs, preds) for g in groups for i in g.indices]
    needed, executed = dist.forward_flops(texts)
    load = os.getloadavg()[0]
    cpu = time.process_time()
    t_init, scorer = timed(lambda: PersonalizationScorer(refs, docs, ids, distance=dist))
    t_model, result = timed(lambda: scorer.score(preds))
    cpu = time.process_time() - cpu
    total = t_init + t_model
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    peak_gpu_gib = torch.cuda.max_memory_allocated() / 2**30 if on_gpu else 0.0
    # the machine's speed drifts over a run of minutes: the rate is taken before and after it, and the floor at
    # the faster of the two (the stricter floor); both are printed
    rate_after = measured_rate()
    rate = max(rate_before, rate_after)
    floor = needed / (rate * 1e9)
    lines = [
        f"full scale, first model ({len(refs):,} summaries, {result.num_documents:,} documents; "
        f"load {load:.2f} -> {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores):",
        f"  reference pass {t_init / 60:6.2f} min",
        f"  model pass     {t_model / 60:6.2f} min",
        f"  first model    {total / 60:6.2f} min  ({cpu / 60:.2f} CPU-min)",
        f"  floor          {floor / 60:6.2f} min  (forward FLOPs needed {needed / 1e12:.1f} T, executed "
        f"{executed / 1e12:.1f} T = {executed / needed:.3f}x, at {rate:.0f} GFLOP/s {unit}, the faster of "
        f"{rate_before:.0f} before the run and {rate_after:.0f} after it); "
        f"first model / floor = {total / floor:.2f}x (target <= {FLOOR_TARGET}x)",
        f"  PerSEval {result.perseval:.6f}, DEGRESS {result.degress:.6f}",
        f"  embedding cache at the end {dist.cached_bytes / 2**20:.0f} MiB (bound {dist.cache_mb} MiB); "
        f"peak memory of the process {peak_gb:.2f} GB"
        + (f", peak GPU memory allocated {peak_gpu_gib:.2f} GiB" if on_gpu else ""),
    ]
    where = f"{torch.cuda.get_device_name()}, {dist.dtype}" if on_gpu else f"{threads} torch threads"
    run = {"seconds": total, "floor": floor, "peak_mb": peak_gb * 1024, "where": where, "distance": dist}
    return lines, run


def peer_full(dist: BertScore, pairs: list[tuple[str, str]], first_model_s: float) -> str:
    """bert_score at its default batch size over ``pairs`` on the run's device, beside this library's σ (one line)."""
    from bert_score import score

    refs, cands = [a for a, _ in pairs], [b for _, b in pairs]
    t_bs, (_, _, f1) = timed(
        lambda: score(cands, refs, model_type=dist._path(), num_layers=dist.layer(), device=str(dist.device))
    )
    t_ours, ours = timed(lambda: dist.pairwise(pairs))
    diff = float(np.abs(ours - (1.0 - f1.numpy().astype(np.float64))).max())
    return (
        f"peer at full scale: bert_score.score (default batch size) on {dist.device}, {len(pairs):,} unique pairs "
        f"(both passes, unordered): {t_bs:.1f} s, against the first model's {first_model_s:.1f} s here = "
        f"{t_bs / first_model_s:.2f}x; max |sigma - bert_score| = {diff:.2e} "
        f"(this library's sigma of the same pairs, from its cache: {t_ours:.1f} s)"
    )


def full_counts(groups: Sequence[DocumentGroup], refs: Sequence[str], preds: Sequence[str]) -> dict[str, int]:
    """What the first model embeds and scores: documents, unique titles, unique pairs of both passes."""
    scored = [g for g in groups if len(g.indices) >= 2]
    sizes = np.array([len(g.indices) for g in scored])
    side = int((sizes * (sizes - 1) // 2 + sizes).sum())  # unordered title pairs + titles against the document
    return {
        "documents": len(scored),
        "titles": len({refs[i] for g in scored for i in g.indices} | {preds[i] for g in scored for i in g.indices}),
        "pairs": 2 * side + int(sizes.sum()),
    }


def main(argv: list[str] | None = None) -> int:
    """Print the report; 1 when σ is more than 1e-6 from bert_score."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pens_dir", type=Path)
    parser.add_argument("--docs", type=int, default=30, help="documents in the side-by-side comparison")
    parser.add_argument("--titles", type=int, default=2000, help="titles embedded for the timing")
    parser.add_argument("--time-docs", type=int, default=40, help="documents embedded for the timing")
    parser.add_argument("--full", action="store_true", help="run the first model at full scale (minutes)")
    parser.add_argument("--batch-size", type=int, help="tokens per forward pass (default 512 on CPU)")
    parser.add_argument("--num-threads", type=int, help="torch threads (default: torch's)")
    parser.add_argument("--dtype", choices=["float32", "bfloat16", "float64"])
    parser.add_argument("--cache-mb", type=int, help="embedding cache bound in MiB (default: the library's, 4096)")
    parser.add_argument("--device")
    parser.add_argument("--rows", type=Path, help="write the make-bench row (JSON) here (with --full)")
    parser.add_argument("--peer-full", action="store_true", help="with --full: bert_score over the same pairs")
    args = parser.parse_args(argv)

    ds = load_pens(args.pens_dir)
    refs, docs, ids = list(ds["reference"]), list(ds["document"]), list(ds["news_id"])
    preds = model_outputs(refs, ds["headline"], 1)
    groups = [g for g in group_documents(docs, ids) if len(g.indices) >= 2]
    lines = [f"# BERTScore on {args.pens_dir}: {len(groups):,} documents, {len(refs):,} summaries per model", ""]
    subset, per_pair, ok, diff = side_by_side(pass_pairs(groups[: args.docs], refs, preds), args)
    pool = list(dict.fromkeys(ds["reference"]))  # titles and documents beyond the side-by-side subset
    later = list(dict.fromkeys(g.document for g in groups[args.docs :]))
    counts = full_counts(groups, refs, preds)
    lines += [*subset, "", *timing(pool[-args.titles :], later[: args.time_docs], per_pair, counts, args), ""]
    if args.full:
        report, run = full(refs, docs, ids, preds, args)
        lines += [*report, ""]
        if args.peer_full:
            unordered = {frozenset(pair): pair for pair in pass_pairs(groups, refs, preds)}  # F1 is symmetric
            pairs = list(unordered.values())
            lines += [peer_full(run["distance"], pairs, run["seconds"]), ""]
        if args.rows:
            row = {
                "metric": f"BERTScore PerSEval, first model ({run['where']})",
                "size": f"full synthetic PENS ({len(groups):,} documents)", "project_s": run["seconds"],
                "peer": "FLOP floor", "peer_s": run["floor"], "ratio": run["floor"] / run["seconds"],
                "max_abs_diff": diff, "tolerance": EXACT, "values_ok": ok, "peak_mb": run["peak_mb"],
                "floor_s": run["floor"], "target": f"<= {FLOOR_TARGET}x floor",
                "met": ok and run["seconds"] <= FLOOR_TARGET * run["floor"],
            }  # fmt: skip
            args.rows.write_text(json.dumps([row], indent=1) + "\n")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
