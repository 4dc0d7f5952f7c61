"""Recompute the packaged MiniLM's BERTScore rescaling baseline (``scripts/compute_bertscore_baseline.py``).

Not a ``persona-metrics`` subcommand: it rewrites ``persona_metrics/persona/baselines/bertscore_baseline_minilm.tsv``
from the sentence pairs shipped beside it (``.pairs.jsonl``, checked against the ``.json`` record), or, with
``--data``, from a new pair set drawn from the persona samples and a data folder (pairs file and record rewritten
too); the method is in :mod:`persona_metrics.persona.bertscore_baseline`.
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
LAYER,P,R,F format, layers 1-6) from unrelated sentence pairs. By default the pairs are the fixed ones shipped
beside the baseline (bertscore_baseline_minilm.pairs.jsonl, checked against the .json record), so the result
reproduces the shipped baseline and does not depend on the persona samples or data files present. With --data,
a new pair set is drawn (seeded) from the persona samples and every string of DATA/**/*.json(l), and the pairs
file and the .json record (pairs, sentences, seed, hash) are written beside the output: every rescaled
BERTScore and persona-quality number then moves."""


def default_output() -> Path:
    """The packaged baseline file (inside the source tree for an editable install)."""
    from persona_metrics.persona.content import MINILM_BASELINE_FILE

    return Path(str(importlib_resources.files("persona_metrics.persona") / "baselines" / MINILM_BASELINE_FILE))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--data``, ``--seed``, ``--out`` and ``--model``."""
    parser.add_argument(
        "--data", type=Path, default=None, help="draw new pairs from the persona samples and DATA/**/*.json(l)"
    )
    parser.add_argument("--seed", type=int, default=12345, help="pairing seed (with --data)")
    parser.add_argument("--out", type=Path, default=None, help="output .tsv (default: the packaged baseline file)")
    parser.add_argument("--model", default=None, help="local model path or Hub id (default: packaged MiniLM)")


def inputs(data: Path | None, seed: int) -> tuple[list[tuple[str, str]], dict]:
    """The pairs and their record: the shipped ones (checked), or with ``data`` a new seeded draw."""
    from persona_metrics.persona import bertscore_baseline as method

    if data is None:
        try:
            return method.read_inputs(default_output())
        except ValueError as err:
            raise InputError(str(err)) from err
    pairs, num_sentences = method.unrelated_pairs(method.shipped_texts(data), seed)
    if len(pairs) < method.MIN_PAIRS:
        raise InputError(f"only {len(pairs)} unrelated sentence pairs in the text; need at least {method.MIN_PAIRS}")
    return pairs, {
        "pairs": len(pairs),
        "sentences": num_sentences,
        "seed": seed,
        "pairs_sha256": method.pairs_digest(pairs),
    }


def run(args: argparse.Namespace) -> int:
    """Read (or, with ``--data``, draw) the pairs, compute, write the baseline, its record and pairs, print a row."""
    from persona_metrics.persona.bertscore_baseline import (
        MINILM_LAYERS,
        compute_bertscore_baseline,
        pairs_file,
        write_baseline,
        write_pairs,
    )

    pairs, record = inputs(args.data, args.seed)
    rows = compute_bertscore_baseline(pairs, model=args.model, layers=MINILM_LAYERS, progress=True)
    out = args.out or default_output()
    write_baseline(rows, out, record)
    write_pairs(pairs, pairs_file(out))
    emit(f"wrote {out} from {len(pairs)} pairs: " + json.dumps(asdict(rows[-1])) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tool from Python or a script."""
    parser = argparse.ArgumentParser(prog="compute_bertscore_baseline.py", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))
