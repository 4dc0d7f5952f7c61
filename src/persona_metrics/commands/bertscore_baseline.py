"""Recompute the packaged MiniLM's BERTScore rescaling baseline (``scripts/compute_bertscore_baseline.py``).

Not a ``persona-metrics`` subcommand: it rewrites ``persona_metrics/persona/baselines/bertscore_baseline_minilm.tsv``
(and its ``.json`` provenance record) from the persona samples and a data folder; the method is in
:mod:`persona_metrics.persona.bertscore_baseline`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import asdict
from importlib import resources as importlib_resources
from pathlib import Path

from persona_metrics.commands.output import InputError, emit

DESCRIPTION = """Compute the BERTScore rescaling baseline of the packaged all-MiniLM-L6-v2 (bert_score's method and
LAYER,P,R,F format, layers 1-6) from unrelated sentence pairs of the shipped text: the persona samples and every
string of DATA/**/*.json(l). Writes the .tsv and a .json record of the inputs (pairs, sentences, seed, hash).
Rerun after changing the shipped text."""


def default_output() -> Path:
    """The packaged baseline file (inside the source tree for an editable install)."""
    from persona_metrics.persona.quality import MINILM_BASELINE_FILE

    return Path(str(importlib_resources.files("persona_metrics.persona") / "baselines" / MINILM_BASELINE_FILE))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--data``, ``--seed``, ``--out`` and ``--model``."""
    parser.add_argument("--data", type=Path, default=None, help="folder searched for *.json / *.jsonl text")
    parser.add_argument("--seed", type=int, default=12345, help="pairing seed")
    parser.add_argument("--out", type=Path, default=None, help="output .tsv (default: the packaged baseline file)")
    parser.add_argument("--model", default=None, help="local model path or Hub id (default: packaged MiniLM)")


def run(args: argparse.Namespace) -> int:
    """Pair, compute, write and print the last layer's row."""
    from persona_metrics.persona.bertscore_baseline import (
        MIN_PAIRS,
        MINILM_LAYERS,
        compute_bertscore_baseline,
        pairs_digest,
        shipped_texts,
        unrelated_pairs,
        write_baseline,
    )

    pairs, num_sentences = unrelated_pairs(shipped_texts(args.data), args.seed)
    if len(pairs) < MIN_PAIRS:
        raise InputError(f"only {len(pairs)} unrelated sentence pairs in the shipped text; need at least {MIN_PAIRS}")
    rows = compute_bertscore_baseline(pairs, model=args.model, layers=MINILM_LAYERS, progress=True)
    out = args.out or default_output()
    record = {"pairs": len(pairs), "sentences": num_sentences, "seed": args.seed, "pairs_sha256": pairs_digest(pairs)}
    write_baseline(rows, out, record)
    emit(f"wrote {out} from {len(pairs)} pairs: " + json.dumps(asdict(rows[-1])) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tool from Python or a script."""
    parser = argparse.ArgumentParser(prog="compute_bertscore_baseline.py", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))
