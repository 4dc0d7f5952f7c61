"""Persona quality (journalist persona) of summarizers on CNN/DailyMail.

Data: the shipped sample (default, offline), ``--data-files`` (local parquet or JSON lines with ``article``,
``highlights``, ``id``) or ``--hub`` (``abisee/cnn_dailymail`` 3.0.0, needs network). Systems: ``lead3``,
``random3`` (seeded), ``reference`` (the highlights against themselves: a sanity row) and prediction files
(JSON lines ``{id, prediction}``; the file stem names the system). Scores: persona_quality and its components.

    python scripts/benchmark_cnndm.py -n 16 --seed 0 -f pretty
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import pandas as pd

from persona_metrics.datasets.cnndm import lead3, load_cnndm, random3
from persona_metrics.persona.quality import score_quality

PERSONA = "journalist"
SAMPLE = Path(__file__).resolve().parents[1] / "data" / "cnndm_sample" / "test.jsonl"


def read_predictions(path: Path, ids: list[str]) -> list[str]:
    """Predictions aligned with ``ids`` from JSON lines ``{id, prediction}`` (line numbers and ids named)."""
    found: dict[str, str] = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                row = json.loads(line)
                found[str(row["id"])] = str(row["prediction"])
            except (json.JSONDecodeError, KeyError, TypeError) as err:
                raise SystemExit(f"{path}:{lineno}: expected {{id, prediction}} ({err})") from err
    missing = [i for i in ids if i not in found]
    if missing:
        raise SystemExit(f"{path}: no prediction for {len(missing)} articles, e.g. id {missing[0]}")
    return [found[i] for i in ids]


def main(argv: list[str] | None = None) -> int:
    """Print the table in the chosen format."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--sample-size", type=int, default=None, help="articles to score (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="sampling and random3 seed")
    parser.add_argument("-f", "--format", choices=("pretty", "csv", "json"), default="pretty")
    parser.add_argument("--data-files", nargs="*", type=Path, default=None)
    parser.add_argument("--hub", action="store_true", help="load the test split from the Hub (needs network)")
    parser.add_argument("--predictions", nargs="*", type=Path, default=[])
    args = parser.parse_args(argv)

    ds = load_cnndm(None if args.hub else (args.data_files or [SAMPLE]), hub=args.hub)
    if args.sample_size is not None and args.sample_size < ds.num_rows:
        ds = ds.shuffle(seed=args.seed).select(range(args.sample_size))
    articles, refs, ids = ds["article"], ds["highlights"], [str(i) for i in ds["id"]]
    rng = random.Random(args.seed)
    systems = {
        "lead3": [lead3(a) for a in articles],
        "random3": [random3(a, rng) for a in articles],
        "reference": list(refs),
    }
    for path in args.predictions:
        systems[path.stem] = read_predictions(path, ids)
    rows = []
    for name, preds in systems.items():
        result = score_quality(preds, refs, [PERSONA] * len(preds))
        rows.append({"system": name, "n": len(preds), **result.means(), "signature": result.signature})
    table = pd.DataFrame(rows)
    if args.format == "json":
        sys.stdout.write(table.to_json(orient="records", indent=2) + "\n")
    elif args.format == "csv":
        sys.stdout.write(table.to_csv(index=False))
    else:
        shown = table.drop(columns=["signature"])
        sys.stdout.write(shown.to_markdown(index=False, floatfmt=".4f") + f"\n\nsignature: {rows[0]['signature']}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
