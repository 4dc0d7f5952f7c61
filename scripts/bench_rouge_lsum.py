"""persona_quality's ROUGE-Lsum on long texts: every sentence pair read out (before) against the pruned read-out (now).

One prediction/reference pair per size (characters a side). The texts are sentences of the shipped samples
(data/cnndm_sample, data/financial_sample, data/pens_sample), each drawn at random with 10 % of its words dropped and
20 % replaced by another word of the samples, so no sentence repeats (``--kind samples``); ``--kind zipf`` draws
sentences of 5–39 words from a Zipf(1) vocabulary of 50,000 words instead (more rare words, fewer shared ones).

Both sides run ``persona_metrics.persona.content.rouge_lsum([prediction], [reference])`` (Punkt split, the project's
tokenizer and stemmer, the same per-call caches); *before* replaces only its summary-level LCS by the one this
project shipped until the pruning: :func:`~persona_metrics.distances.rouge_lsum.lcs_indices` of every (reference
sentence, prediction sentence) pair, as ``rouge_score`` does. Each side and size runs in a fresh process: the
*first* call (stems, Punkt's model and the caches still cold) and the best of ``--warm`` further calls, in process
CPU seconds. The pairs read out are counted. The two values must be equal floats (exit 1 otherwise).

Above ``--old-max`` characters the *before* side is not run (its time grows with the product of the sentence
counts: tens of minutes at a million characters); its read-outs are still counted (the sentence pairs).

    python scripts/bench_rouge_lsum.py                             # 10k, 20k, 40k, 80k, 200k, 1M; before up to 80k
    python scripts/bench_rouge_lsum.py --kind zipf --old-max 200000
    python scripts/bench_rouge_lsum.py --sizes 1000000 --old-max 1000000 --warm 0
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def sample_sentences() -> list[str]:
    """The sentences (of more than three words) of the shipped CNN/DM, financial and PENS samples."""
    texts: list[str] = []
    for line in (ROOT / "data" / "cnndm_sample" / "test.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts += [row["article"], row["highlights"]]
    for path in sorted((ROOT / "data" / "financial_sample").glob("article_*.json")):
        texts.append(json.loads(path.read_text(encoding="utf-8"))["article"])
    with open(ROOT / "data" / "pens_sample" / "news.tsv", encoding="utf-8", newline="") as f:
        texts += [row["News body"] for row in csv.DictReader(f, delimiter="\t")]
    from persona_metrics.resources import sent_tokenize

    return [s for text in texts for s in sent_tokenize(text) if len(s.split()) > 3]


def samples_text(chars: int, seed: int) -> str:
    """About ``chars`` characters of sample sentences, each with words dropped and replaced (see the module)."""
    sentences = sample_sentences()
    vocabulary = sorted({w for s in sentences for w in s.split()})
    rng = random.Random(seed)
    out: list[str] = []
    size = 0
    while size < chars:
        words = [rng.choice(vocabulary) if rng.random() < 0.2 else w for w in rng.choice(sentences).split()]
        sentence = " ".join(w for w in words if rng.random() > 0.1).rstrip(".") + "."
        out.append(sentence)
        size += len(sentence) + 1
    return " ".join(out)[:chars]


def zipf_text(chars: int, seed: int, vocabulary: int = 50_000) -> str:
    """About ``chars`` characters of sentences of 5–39 words ``w<rank>`` drawn with probability ∝ 1 / rank."""
    import numpy as np

    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, vocabulary + 1)
    weights /= weights.sum()
    out: list[str] = []
    size = 0
    while size < chars:
        ranks = rng.choice(vocabulary, size=int(rng.integers(5, 40)), p=weights)
        sentence = " ".join(f"w{r}" for r in ranks).capitalize() + "."
        out.append(sentence)
        size += len(sentence) + 1
    return " ".join(out)[:chars]


KINDS: dict[str, Callable[[int, int], str]] = {"samples": samples_text, "zipf": zipf_text}


def every_pair_lcs_f1(ref_sents: Sequence[Sequence[str]], can_sents: Sequence[Sequence[str]], *_: Any) -> float:
    """The summary-level LCS as shipped before the pruning: the union over every candidate sentence, per sentence."""
    from persona_metrics.distances.rouge_lsum import _fmeasure, lcs_indices

    if not ref_sents or not can_sents:
        return 0.0
    m, n = sum(map(len, ref_sents)), sum(map(len, can_sents))
    if not n or not m:
        return 0.0
    counts_r: dict[str, int] = {}
    counts_c: dict[str, int] = {}
    for sent, counts in [(s, counts_r) for s in ref_sents] + [(s, counts_c) for s in can_sents]:
        for token in sent:
            counts[token] = counts.get(token, 0) + 1
    hits = 0
    for ref in ref_sents:
        for token in (ref[k] for k in sorted(set().union(*(lcs_indices(ref, can) for can in can_sents)))):
            if counts_c.get(token, 0) > 0 and counts_r.get(token, 0) > 0:
                hits += 1
                counts_c[token] -= 1
                counts_r[token] -= 1
    return _fmeasure(hits / n, hits / m)


def child(side: str, kind: str, chars: int, warm: int) -> None:
    """One side at one size in this (fresh) process: prints a JSON line of the timings, value and read-outs."""
    from persona_metrics.distances import rouge_lsum as lsum_module
    from persona_metrics.persona import content

    prediction, reference = KINDS[kind](chars, 1), KINDS[kind](chars, 2)
    sentences = [len(lsum_module.lsum_sentences(content.split_sentences(t))) for t in (prediction, reference)]
    read_outs = [0]
    if side == "before":
        content.summary_lcs_f1 = every_pair_lcs_f1  # type: ignore[assignment]
    else:
        read_out = lsum_module._read_out

        def counted(*args: Any) -> list[int]:
            read_outs[0] += 1
            return read_out(*args)

        lsum_module._read_out = counted  # type: ignore[assignment]
    times = []
    value = None
    for _ in range(1 + warm):
        read_outs[0] = 0
        start = time.process_time()
        value = float(content.rouge_lsum([prediction], [reference])[0])
        times.append(time.process_time() - start)
    pairs = read_outs[0] if side == "now" else sentences[0] * sentences[1]
    print(json.dumps({"first": times[0], "warm": min(times[1:], default=None), "value": value, "pairs": pairs}))


def run_child(side: str, kind: str, chars: int, warm: int) -> dict[str, Any]:
    """:func:`child` in a fresh interpreter."""
    args = [sys.executable, __file__, "--child", side, "--kind", kind, "--sizes", str(chars), "--warm", str(warm)]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def run_child_pairs(kind: str, chars: int) -> int:
    """The sentence pairs every-pair read-out would take (the product of the sentence counts), without running it."""
    from persona_metrics.distances.rouge_lsum import lsum_sentences
    from persona_metrics.persona.content import split_sentences

    prediction, reference = KINDS[kind](chars, 1), KINDS[kind](chars, 2)
    return len(lsum_sentences(split_sentences(prediction))) * len(lsum_sentences(split_sentences(reference)))


def seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def ratio(before: float | None, now: float | None) -> str:
    if before is None or not now:
        return "—"
    return f"{before / now:.1f}×" if before < 100 * now else f"{before / now:,.0f}×"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,20000,40000,80000,200000,1000000", help="characters a side")
    parser.add_argument("--kind", choices=sorted(KINDS), default="samples")
    parser.add_argument("--warm", type=int, default=2, help="warm calls after the first (best one shown)")
    parser.add_argument("--old-max", type=int, default=80_000, help="largest size the every-pair side runs at")
    parser.add_argument("--child", choices=("before", "now"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.child:
        child(args.child, args.kind, sizes[0], args.warm)
        return 0
    print(f"ROUGE-Lsum of one pair, {args.kind} text; process CPU seconds, each side and size in a fresh process")
    print(
        "| characters | sentence pairs: before / read out now | first call: before / now / ratio "
        "| warm call: before / now / ratio | equal |"
    )
    print("|---|---|---|---|---|")
    failed = False
    for chars in sizes:
        now = run_child("now", args.kind, chars, args.warm)
        before = run_child("before", args.kind, chars, args.warm) if chars <= args.old_max else None
        equal = "not run" if before is None else str(before["value"] == now["value"])
        failed |= equal == "False"
        b_first = None if before is None else before["first"]
        b_warm = None if before is None else before["warm"]
        pairs = run_child_pairs(args.kind, chars) if before is None else before["pairs"]
        print(
            f"| {chars:,} | {pairs:,} / {now['pairs']:,} "
            f"| {seconds(b_first)} / {seconds(now['first'])} / {ratio(b_first, now['first'])} "
            f"| {seconds(b_warm)} / {seconds(now['warm'])} / {ratio(b_warm, now['warm'])} | {equal} |",
            flush=True,
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
