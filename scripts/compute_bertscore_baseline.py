"""Compute the BERTScore rescaling baseline of the packaged all-MiniLM-L6-v2 (bert_score's method and format).

bert_score's baselines are the mean P / R / F of BERTScore over random pairs of *unrelated* sentences, per
layer; rescaled scores are ``(s − b) / (1 − b)``. bert_score ships none for this model, so the project
computes one from the text it ships (persona samples and data samples, all written for the project):

1. every ``*.txt`` under ``src/persona_metrics/personas`` and every string value in ``data/**/*.json(l)`` is
   split into sentences (Punkt); sentences of < 5 words are dropped (the templated PENS sample is left out);
2. sentences are de-duplicated and sorted, then shuffled with ``--seed``; each sentence is paired with the
   sentence ``len/2`` positions later in the shuffled order, and pairs from the same source text are skipped,
   so partners are unrelated;
3. for each layer 1..6: mean P, R, F over the pairs (no idf).

Output: ``src/persona_metrics/persona/baselines/bertscore_baseline_minilm.tsv`` (``LAYER,P,R,F``, bert_score's
format; layers 1–6). Rerun after changing the shipped text; the file records the
inputs' hash and the number of pairs in a sibling ``.json``.

    python scripts/compute_bertscore_baseline.py
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import random
import sys
from pathlib import Path

from tqdm import tqdm

from persona_metrics.distances import BertScore
from persona_metrics.resources import sent_tokenize

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "persona_metrics" / "persona" / "baselines" / "bertscore_baseline_minilm.tsv"


def source_texts(root: Path) -> list[tuple[str, str]]:
    """(source id, text) for every shipped text, in a fixed order."""
    texts: list[tuple[str, str]] = []
    for path in sorted((root / "src" / "persona_metrics" / "personas").glob("*.txt")):
        for i, text in enumerate(path.read_text(encoding="utf-8").split("\n---\n")):
            texts.append((f"{path.name}#{i}", text))
    for path in sorted((root / "data").rglob("*")):
        if path.suffix == ".jsonl":
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
                if line.strip():
                    texts += [(f"{path}#{i}", s) for s in _strings(json.loads(line))]
        elif path.suffix == ".json":
            texts += [(str(path), s) for s in _strings(json.loads(path.read_text(encoding="utf-8")))]
    return texts


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def main(argv: list[str] | None = None) -> int:
    """Write the baseline file and its provenance record."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    sentences: dict[str, str] = {}
    for source, text in source_texts(ROOT):
        for sent in sent_tokenize(text):
            if len(sent.split()) >= 5:
                sentences.setdefault(sent.strip(), source)
    ordered = sorted(sentences)
    random.Random(args.seed).shuffle(ordered)
    half = len(ordered) // 2
    pairs = [
        (a, b) for a, b in zip(ordered, ordered[half:] + ordered[:half], strict=True) if sentences[a] != sentences[b]
    ]
    if len(pairs) < 100:
        raise SystemExit(f"only {len(pairs)} unrelated sentence pairs in the shipped text; need at least 100")
    rows = []
    for layer in tqdm(range(1, 7), desc="layers"):
        prf = BertScore(num_layers=layer).precision_recall_f1(pairs)
        rows.append((layer, *(float(v.mean()) for v in prf)))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["LAYER", "P", "R", "F"])
        writer.writerows([(layer, f"{p:.8f}", f"{r:.8f}", f"{fs:.8f}") for layer, p, r, fs in rows])
    digest = hashlib.sha256("\n".join(f"{a}\t{b}" for a, b in pairs).encode()).hexdigest()
    record = {"pairs": len(pairs), "sentences": len(ordered), "seed": args.seed, "pairs_sha256": digest}
    args.out.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    sys.stdout.write(f"wrote {args.out} from {len(pairs)} pairs: " + json.dumps(rows[-1]) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
