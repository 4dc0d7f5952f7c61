"""Throughput of VERT on N pairs (default 10,000) against a straightforward per-pair loop.

Inputs: the sentences of data/cnndm_sample (articles and highlights) and data/personalization_sample
(references) as references, cycled to N pairs; each prediction is its reference with one to three words
replaced by words of other sentences, one word dropped and the pair's number appended, so every pair is
different (no cache can cheat). Printed side by side, on the same pairs and the same models:

* this library: one ``score_vert`` call (defaults: WordLlama, packaged GloVe 6B 50d);
* the baseline a user would write from the original code: per pair, the NLTK-stopword filter, gensim's
  ``KeyedVectors.wmdistance(norm=False)`` capped at 5, WordLlama on each text, the cosine and the formula.

Model and vector loading is done once before either is timed. The script also prints the largest difference
between the two sets of per-pair values (they must agree).

    python scripts/bench_vert.py -n 10000
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from persona_metrics.vert import score_vert
from persona_metrics.vert.encoders import _wordllama_model
from persona_metrics.vert.stopwords import NLTK_ENGLISH_STOPWORDS
from persona_metrics.vert.vectors import glove_6b_50d

ROOT = Path(__file__).resolve().parents[1]


def sentences() -> list[str]:
    """The sentences of the shipped CNN/DM and personalization samples."""
    texts = []
    for line in (ROOT / "data" / "cnndm_sample" / "test.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        texts += [record["article"], record["highlights"]]
    for line in (ROOT / "data" / "personalization_sample" / "sample.jsonl").read_text(encoding="utf-8").splitlines():
        texts.append(json.loads(line)["reference"])
    out = [s.strip() for t in texts for s in re.split(r"(?<=[.!?])\s+", t)]
    return sorted({s for s in out if len(s.split()) >= 5})


def make_pairs(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """``n`` (prediction, reference) pairs, each prediction a perturbed copy of its reference."""
    rng = random.Random(seed)
    pool = sentences()
    vocabulary = sorted({w for s in pool for w in s.split()})
    predictions, references = [], []
    for i in range(n):
        reference = pool[i % len(pool)]
        words = reference.split()
        for _ in range(rng.randint(1, 3)):
            words[rng.randrange(len(words))] = rng.choice(vocabulary)
        del words[rng.randrange(len(words))]
        predictions.append(" ".join([*words, str(i)]))
        references.append(reference)
    return predictions, references


def naive(predictions: list[str], references: list[str], kv: Any, model: Any) -> np.ndarray:
    """Per pair: gensim WMD on the filtered tokens (capped at 5), WordLlama per text, cosine, formula."""
    out = np.empty(len(predictions))
    for i, (p, r) in enumerate(zip(predictions, references, strict=True)):
        tokens_p = [w for w in p.lower().split() if w not in NLTK_ENGLISH_STOPWORDS]
        tokens_r = [w for w in r.lower().split() if w not in NLTK_ENGLISH_STOPWORDS]
        wmd = min(kv.wmdistance(tokens_p, tokens_r, norm=False), 5.0)
        a = model.embed([p])[0].astype(np.float64)
        b = model.embed([r])[0].astype(np.float64)
        sim = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
        out[i] = 0.5 * (1.0 + sim - wmd / 5.0)
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the timing table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--num-pairs", type=int, default=10_000)
    args = parser.parse_args(argv)
    logging.getLogger("gensim").setLevel(logging.WARNING)  # gensim logs every Dictionary it builds at INFO
    from gensim.models import KeyedVectors

    predictions, references = make_pairs(args.num_pairs)
    n = len(predictions)
    vectors = glove_6b_50d()
    kv = KeyedVectors(vectors.dim, count=len(vectors))
    kv.add_vectors(list(vectors.index), np.asarray(vectors.matrix))
    model = _wordllama_model()
    score_vert(predictions[:4], references[:4])  # warm-up: vectors, encoder

    start = time.perf_counter()
    result = score_vert(predictions, references)
    library = time.perf_counter() - start
    start = time.perf_counter()
    baseline = naive(predictions, references, kv, model)
    loop = time.perf_counter() - start

    difference = float(np.max(np.abs(result.vert - baseline)))
    unique = len(set(zip(predictions, references, strict=True)))
    out = [
        f"# VERT throughput, {n} pairs ({unique} unique), WordLlama + GloVe 6B 50d",
        "",
        "| implementation | seconds | pairs/s |",
        "|---|---|---|",
        f"| persona_metrics.vert.score_vert (one call) | {library:.2f} | {n / library:,.0f} |",
        f"| per-pair loop: gensim wmdistance(norm=False) + WordLlama per text | {loop:.2f} | {n / loop:,.0f} |",
        "",
        f"speed-up: {loop / library:.2f}x; largest per-pair |VERT difference|: {difference:.2e}; "
        f"mean VERT {result.means()['vert']:.6f} vs {float(baseline.mean()):.6f}",
    ]
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
