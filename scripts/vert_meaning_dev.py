"""VERT's ``meaning_sensitive`` option against the original, ROUGE-L and raw BERTScore on the development cases.

The cases are ``DEV_CASES`` of tests/test_vert_meaning.py: 20 reference / light paraphrase / meaning edit triples
written for the option (five per edit kind: swapped roles, a negation, changed or swapped numbers, an antonym).
The option was designed on them: these are development figures, not a measurement. Per kind and overall, the
fraction of cases whose paraphrase scores strictly above its edit, for

* VERT as published (WordLlama + GloVe 6B 50d), and with ``meaning_sensitive=True`` (WordLlama, then MiniLM);
* ROUGE-L F (rouge-score, Porter stemmer) and raw BERTScore F1 (``persona_metrics`` BertScore: the packaged
  all-MiniLM-L6-v2, layer 6, no idf, no rescaling).

Then, per method, "edit > unrelated": each edit against the reference of case i + n/2 + 1 (another kind and
another story: the second batch tells each of its stories once per kind), which a relatedness score should still
rank below the edit. And a sanity check on the shipped CNN/DM sample: each
highlight against its own article's lead (first three sentences) and against the next article's, the fraction
where its own scores higher, and the Pearson correlation of the two VERT variants on the matched pairs.

    python scripts/vert_meaning_dev.py [--json OUT.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
Scorer = Callable[[Sequence[str], Sequence[str]], np.ndarray]


def dev_cases() -> tuple[tuple[str, str, str, str], ...]:
    """``DEV_CASES`` of tests/test_vert_meaning.py (kind, reference, paraphrase, edit)."""
    spec = importlib.util.spec_from_file_location("test_vert_meaning", ROOT / "tests" / "test_vert_meaning.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.DEV_CASES


def scorers() -> dict[str, Scorer]:
    """Method name → ``f(candidates, references) -> scores``, higher = closer."""
    from rouge_score import rouge_scorer

    from persona_metrics.distances.bertscore import BertScore
    from persona_metrics.vert import score_vert

    rouge = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    bertscore = BertScore()

    def vert(**options: Any) -> Scorer:
        return lambda candidates, references: score_vert(list(candidates), list(references), **options).vert

    return {
        "VERT (original)": vert(),
        "VERT meaning_sensitive": vert(meaning_sensitive=True),
        "VERT meaning_sensitive, minilm": vert(meaning_sensitive=True, encoder="minilm"),
        "ROUGE-L F": lambda c, r: np.array(
            [rouge.score(ref, cand)["rougeL"].fmeasure for cand, ref in zip(c, r, strict=True)]
        ),
        "BERTScore F1": lambda c, r: bertscore.precision_recall_f1(list(zip(r, c, strict=True)))[2],
    }


def ranking_table(cases: Sequence[tuple[str, str, str, str]], methods: dict[str, Scorer]) -> dict[str, dict]:
    """Per method: per kind and overall, the fraction of paraphrase > edit; and the fraction of edit > unrelated."""
    kinds = list(dict.fromkeys(case[0] for case in cases))
    references = [case[1] for case in cases]
    shift = len(cases) // 2 + 1  # n/2 would pair a second-batch edit with its own story's reference
    unrelated = references[shift:] + references[:shift]
    table = {}
    for name, score in methods.items():
        paraphrase = score([case[2] for case in cases], references)
        edit = score([case[3] for case in cases], references)
        apart = score([case[3] for case in cases], unrelated)
        wins = paraphrase > edit
        row = {
            kind: float(np.mean([w for w, case in zip(wins, cases, strict=True) if case[0] == kind])) for kind in kinds
        }
        row["overall"] = float(np.mean(wins))
        row["edit > unrelated"] = float(np.mean(edit > apart))
        table[name] = row
    return table


def cnndm_sanity(methods: dict[str, Scorer]) -> dict[str, Any]:
    """Own article's lead vs the next article's lead, per highlight, for the two VERT variants."""
    from persona_metrics.resources import sent_tokenize

    rows = [json.loads(line) for line in (ROOT / "data/cnndm_sample/test.jsonl").read_text().splitlines()]
    highlights = [row["highlights"].replace("\n", " ") for row in rows]
    leads = [" ".join(sent_tokenize(row["article"])[:3]) for row in rows]
    others = leads[1:] + leads[:1]
    out: dict[str, Any] = {}
    matched = {}
    for name in ("VERT (original)", "VERT meaning_sensitive"):
        own, other = methods[name](highlights, leads), methods[name](highlights, others)
        matched[name] = own
        out[name] = {"own > other": float(np.mean(own > other)), "mean own": float(np.mean(own))}
    out["pearson"] = float(np.corrcoef(matched["VERT (original)"], matched["VERT meaning_sensitive"])[0, 1])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    cases = dev_cases()
    methods = scorers()
    table = ranking_table(cases, methods)
    columns = list(next(iter(table.values())))
    print(f"paraphrase > edit on {len(cases)} development cases (fraction per kind), and edit > unrelated")
    print(f"| method | {' | '.join(columns)} |")
    print("|---" * (len(columns) + 1) + "|")
    for name, row in table.items():
        print(f"| {name} | {' | '.join(f'{row[c]:.2f}' for c in columns)} |")
    sanity = cnndm_sanity(methods)
    print(f"\nCNN/DM sample: highlight vs its own lead > vs the next article's lead; Pearson {sanity['pearson']:.3f}")
    for name in ("VERT (original)", "VERT meaning_sensitive"):
        print(f"  {name}: {sanity[name]['own > other']:.2f} (mean own {sanity[name]['mean own']:.3f})")
    if args.json:
        args.json.write_text(json.dumps({"dev_cases": table, "cnndm_sample": sanity}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
