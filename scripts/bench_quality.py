"""Throughput of persona_quality (and persona_style) against the reference libraries, with values and FLOPs checked.

Inputs: the summaries of data/financial_sample cycled to N items, each prediction made unique by a numbered suffix
sentence (so no cache can cheat; the references repeat, as they do in practice). For each size, side by side in
this process, both on ``--threads`` torch threads (default 1: the machine is shared):

* **project**: one ``score_quality(preds, refs, personas)`` call, with the BERTScore embedding cache emptied first;
* **peer**: the reference libraries called directly the usual way: ``rouge_score`` (rougeLsum, Porter stemming) per
  item on NLTK-split sentences, a ``bert_score.BERTScorer`` built before the timing (same model and layer,
  ``batch_size=64``, its F1 rescaled with the same baseline) on the whole batch, and ``score_style`` per item.

Checked: the per-item ROUGE-Lsum and style (must be equal, 0 difference) and the rescaled BERTScore F1 (max |Δ|
must be <= 1e-6, the documented agreement with bert_score; ``docs/perseval.md`` §3.7); exit 1 otherwise.

FLOPs (``persona_metrics.distances.passes.encoder_flops``: the projections, feed-forward and attention products of
the blocks run): *needed* is one unpadded pass per unique text, *executed* what each side ran (bert_score: its
length-sorted, padded batches of 64, rebuilt here from its sorting rule). The floor is the needed FLOPs at the
fp32 matmul rate measured here (``torch.mm`` on 512×384 @ 384×1536, the MiniLM's feed-forward at 512 tokens,
best of 5) times the threads.

Rows (``--rows PATH``, for ``make bench``): one per size; ``peak_mb`` is the process's peak RSS read right after
the project's call (it includes the earlier sizes' peaks); the target is "executed FLOPs <= 1.2x needed" at
fewer than 2,000 items and ">= 2x peer and <= 1.5x floor" from 2,000 on.

    python scripts/bench_quality.py                      # sizes 10, 100, 2,000
    python scripts/bench_quality.py --sizes 10,100 --rows rows.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from persona_metrics.datasets.financial import read_article_dir, summary_items
from persona_metrics.distances.bertscore import BERTSCORE_CPU_BATCH_TOKENS
from persona_metrics.distances.passes import encoder_flops, fixed_shape_flops
from persona_metrics.persona.content import bertscore_baseline, quality_bertscore
from persona_metrics.persona.params import BertScoreConfig
from persona_metrics.persona.quality import score_quality
from persona_metrics.persona.style import score_style
from persona_metrics.resources import minilm_path

ROOT = Path(__file__).resolve().parents[1]
TOLERANCE = 1e-6
PEER = "rouge_score per item + bert_score.BERTScorer (batch 64) + score_style per item"


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall seconds, process CPU seconds, result) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def matmul_rate(rows: int = 512, device: str = "cpu", dtype: str = "float32") -> float:
    """GFLOP/s of ``torch.mm`` on the MiniLM's feed-forward shape ``(rows, 384) @ (384, 1536)``, best of 5.

    On the CPU: float32 at the current torch thread count, 20 products a timing. On a GPU: ``dtype`` (float32 with
    TF32 off, torch's default and the library's float32, or autocast's bfloat16), 50 products a timing after a
    warm-up, each timing synchronised.
    """
    import torch

    gpu = device.startswith("cuda")
    kind = {"bfloat16": torch.bfloat16, "float64": torch.float64}.get(dtype, torch.float32)
    a = torch.randn(rows, 384, device=device, dtype=kind)
    b = torch.randn(384, 1536, device=device, dtype=kind)
    repeats = 50 if gpu else 20
    for _ in range(10 if gpu else 0):
        torch.mm(a, b)
    best = float("inf")
    for _ in range(5):
        if gpu:
            torch.cuda.synchronize(device)
        start = time.perf_counter()
        for _ in range(repeats):
            torch.mm(a, b)
        if gpu:
            torch.cuda.synchronize(device)
        best = min(best, time.perf_counter() - start)
    return 2 * rows * 384 * 1536 * repeats / best / 1e9


def inputs(n: int) -> tuple[list[str], list[str], list[str]]:
    """Predictions, references and personas of ``n`` items."""
    items = summary_items(read_article_dir(ROOT / "data" / "financial_sample")[0])
    rows = [items.iloc[i % len(items)] for i in range(n)]
    preds = [f"{r['prediction']} Item {i} closes the note." for i, r in enumerate(rows)]
    return preds, [r["reference"] for r in rows], [r["persona"] for r in rows]


class Peer:
    """The reference libraries, loaded once (as a user scoring several batches would)."""

    def __init__(self, model: str, layers: int) -> None:
        """Build rouge_score's scorer and bert_score's scorer (model loaded here, not in the timing)."""
        from bert_score import BERTScorer
        from rouge_score import rouge_scorer

        from persona_metrics.resources import ensure_punkt

        ensure_punkt()
        self.rouge = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)
        self.bert = BERTScorer(
            model_type=model,
            num_layers=layers,
            batch_size=64,
        )
        # bert_score reads a baseline file by row position, which the project's one-row file does not have: the
        # peer rescales its F1 with the same F baseline by hand, as bert_score would: (F - b) / (1 - b)
        self.base = bertscore_baseline(BertScoreConfig(), layers)
        self.parts: dict[str, float] = {}  # seconds of each library in the last call

    def __call__(self, preds: list[str], refs: list[str], personas: list[str]) -> dict[str, np.ndarray]:
        """Per-item ROUGE-Lsum, rescaled BERTScore F1 and style, each library called directly."""
        import nltk

        start = time.perf_counter()
        lsum = [
            self.rouge.score("\n".join(nltk.sent_tokenize(r)), "\n".join(nltk.sent_tokenize(p)))["rougeLsum"].fmeasure
            for p, r in zip(preds, refs, strict=True)
        ]
        self.parts = {"rouge_score": time.perf_counter() - start}
        _, _, f1 = self.bert.score(preds, refs)
        self.parts["bert_score"] = time.perf_counter() - start - sum(self.parts.values())
        style = [score_style([p], [q]).scores[0] for p, q in zip(preds, personas, strict=True)]
        self.parts["style per item"] = time.perf_counter() - start - sum(self.parts.values())
        rescaled = (f1.numpy().astype(np.float64) - self.base) / (1.0 - self.base)
        return {"rougeLsum": np.array(lsum), "bertscore_f1": rescaled, "style": np.array(style)}


def peer_executed_flops(texts: list[str], lengths: dict[str, int], sizes: tuple[int, int, int]) -> int:
    """FLOPs of bert_score's passes: unique texts sorted by word count (longest first), 64 a batch, padded."""
    ordered = sorted(set(texts), key=lambda x: len(x.split(" ")), reverse=True)
    batches = [ordered[i : i + 64] for i in range(0, len(ordered), 64)]
    return sum(encoder_flops(len(b), max(lengths[t] for t in b), *sizes) for b in batches)


def run_size(n: int, peer: Peer, rate: float, threads: int) -> tuple[list[str], dict[str, Any]]:
    """Report lines and the bench row of one size."""
    preds, refs, personas = inputs(n)
    dist = quality_bertscore(BertScoreConfig())
    dist.clear_cache()
    wall, cpu, result = timed(lambda: score_quality(preds, refs, personas))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    peer_wall, peer_cpu, theirs = timed(lambda: peer(preds, refs, personas))
    ours = {
        "rougeLsum": result.content.rouge_lsum,
        "bertscore_f1": result.content.bertscore_f1,
        "style": result.style_similarity,
    }
    diffs = {k: float(np.abs(ours[k] - theirs[k]).max()) for k in ours}
    ok = diffs["rougeLsum"] == 0.0 and diffs["style"] == 0.0 and diffs["bertscore_f1"] <= TOLERANCE
    unique = list(dict.fromkeys(preds + refs))
    lengths = dict(zip(unique, dist.token_lengths(unique), strict=True))
    needed, executed = dist.forward_flops(unique)
    peer_flops = peer_executed_flops(preds + refs, lengths, dist.flop_sizes())
    # what the 512-token fixed-shape passes (the CPU path before block passes; other models' path) would run
    fixed = fixed_shape_flops([lengths[t] for t in unique], BERTSCORE_CPU_BATCH_TOKENS, *dist.flop_sizes())
    floor = needed / (rate * 1e9 * threads)
    ratio = peer_wall / wall
    if n >= 2000:
        target, met = ">= 2x peer and <= 1.5x floor", ratio >= 2.0 and wall <= 1.5 * floor
    else:
        target, met = "executed FLOPs <= 1.2x needed", executed <= 1.2 * needed
    lines = [
        f"{n:,} items ({len(unique):,} unique texts, {sum(lengths.values()):,} tokens):",
        f"  persona_quality {wall:7.2f} s (cpu {cpu:6.2f} s)   peer {peer_wall:7.2f} s (cpu {peer_cpu:6.2f} s)   "
        f"ratio {ratio:.2f}x",
        f"  forward FLOPs: needed {needed / 1e9:.1f} G; executed: project {executed / 1e9:.1f} G "
        f"({executed / needed:.3f}x), bert_score {peer_flops / 1e9:.1f} G ({peer_flops / needed:.3f}x); "
        f"512-token fixed-shape passes would have run {fixed / needed:.3f}x",
        "  peer parts: " + ", ".join(f"{k} {v:.2f} s" for k, v in peer.parts.items()),
        f"  floor {floor:.2f} s (needed FLOPs at {rate:.0f} GFLOP/s x {threads} thread(s)); project "
        f"{wall / floor:.2f}x floor",
        "  max |diff| vs peer: "
        + ", ".join(f"{k} {v:.2e}" for k, v in diffs.items())
        + f"  ({'ok' if ok else 'FAILED'}: ROUGE-Lsum and style equal, BERTScore <= {TOLERANCE:g})",
        f"  target {target}: {'met' if met else 'NOT met'}; load {os.getloadavg()[0]:.2f}",
    ]
    row = {
        "metric": "persona_quality",
        "size": f"{n:,} items",
        "project_s": wall,
        "peer": PEER,
        "peer_s": peer_wall,
        "ratio": ratio,
        "max_abs_diff": max(diffs.values()),
        "tolerance": TOLERANCE,
        "values_ok": ok,
        "peak_mb": peak_mb,
        "floor_s": floor,
        "target": target,
        "met": met,
    }
    return lines, row


def main(argv: list[str] | None = None) -> int:
    """Print the report (and write ``--rows``); 1 when a value check fails."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10,100,2000", help="comma-separated item counts (default 10,100,2000)")
    parser.add_argument("-n", "--num-summaries", type=int, help="one size only (overrides --sizes)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads, both sides (default 1)")
    parser.add_argument("--rows", type=Path, help="write the bench rows (JSON list) here")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    sizes = [args.num_summaries] if args.num_summaries else [int(s) for s in args.sizes.split(",")]
    dist = quality_bertscore(BertScoreConfig())
    peer = Peer(str(minilm_path()), dist.layer())
    preds, refs, personas = inputs(4)
    score_quality(preds, refs, personas)  # warm-up: model load, NLTK data, centroids
    peer(preds, refs, personas)
    rate = matmul_rate()
    lines = [
        f"# persona_quality vs the reference libraries; torch threads {args.threads}; fp32 matmul {rate:.0f} GFLOP/s "
        f"per {args.threads} thread(s); load {os.getloadavg()}",
        "",
    ]
    rows, ok = [], True
    for n in sizes:
        report, row = run_size(n, peer, rate, args.threads)
        lines += [*report, ""]
        rows.append(row)
        ok = ok and row["values_ok"]
    sys.stdout.write("\n".join(lines) + "\n")
    if args.rows:
        args.rows.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
