"""Score the models of a personalization sample with DEGRESS / EGISES / P-Acc / PerSEval.

Input: a JSONL file, one line per (document, user):
``{"document_id", "document", "user_id", "reference", "predictions": {"<model>": "<summary>", ...}}``.
Two baselines are added: ``oracle`` (each user's own reference) and ``shuffled`` (each user gets another
user's reference of the same document: responsive but inaccurate, the EGISES paradox).

    python scripts/score_personalization.py data/personalization_sample/sample.jsonl --distance rougeL
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

from persona_metrics import PersonaMetricsWarning
from persona_metrics.distances import DEFAULT_DISTANCE, DISTANCES, get_distance
from persona_metrics.personalization import DEFAULT_BETA, score_personalization

REQUIRED = ("document_id", "document", "user_id", "reference", "predictions")


def read_sample(path: Path) -> list[dict]:
    """Read and check the JSONL rows; a malformed line is an error naming the file and line number."""
    rows = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise SystemExit(f"{path}:{lineno}: not valid JSON ({err.msg})") from err
        missing = [k for k in REQUIRED if k not in row]
        if missing:
            raise SystemExit(f"{path}:{lineno}: missing keys {missing}")
        rows.append(row)
    return rows


def systems(rows: list[dict]) -> dict[str, list[str]]:
    """Predictions per model, aligned with ``rows``, plus the oracle and shuffled baselines."""
    models = sorted({m for row in rows for m in row["predictions"]})
    out = {"oracle": [row["reference"] for row in rows]}
    for model in models:
        missing = [i for i, row in enumerate(rows) if model not in row["predictions"]]
        if missing:
            raise SystemExit(f"model {model!r} has no prediction on rows {missing[:5]}")
        out[model] = [row["predictions"][model] for row in rows]
    by_doc: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        by_doc.setdefault(row["document_id"], []).append(i)
    shuffled = list(out["oracle"])
    for idx in by_doc.values():  # rotate by one: every user of a multi-user document gets someone else's
        for src, dst in zip(idx, idx[1:] + idx[:1], strict=True):
            shuffled[dst] = rows[src]["reference"]
    out["shuffled"] = shuffled
    return out


def main(argv: list[str] | None = None) -> int:
    """Print a leaderboard (markdown or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sample", type=Path)
    parser.add_argument("--distance", default=DEFAULT_DISTANCE, choices=DISTANCES)
    parser.add_argument("--beta", type=float, default=DEFAULT_BETA)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--format", choices=("pretty", "json"), default="pretty")
    args = parser.parse_args(argv)

    rows = read_sample(args.sample)
    refs = [row["reference"] for row in rows]
    docs = [row["document"] for row in rows]
    ids = [row["document_id"] for row in rows]
    distance = get_distance(args.distance)  # one instance: texts shared by the models are prepared once
    results = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PersonaMetricsWarning)
        for name, preds in systems(rows).items():
            results[name] = score_personalization(
                preds, refs, docs, ids, distance=distance, beta=args.beta, bootstrap=args.bootstrap
            )
    notes = sorted({str(w.message) for w in caught})
    board = sorted(results.items(), key=lambda kv: -kv[1].perseval)
    if args.format == "json":
        json.dump(
            {
                name: {
                    "perseval": r.perseval,
                    "perseval_ci": r.intervals.get("perseval"),
                    "degress": r.degress,
                    "egises": r.egises,
                    "p_accuracy": r.p_accuracy,
                    "accuracy_distance": r.accuracy_distance,
                    "num_documents": r.num_documents,
                    "num_excluded_documents": r.num_excluded_documents,
                    "signature": r.signature,
                }
                for name, r in board
            },
            sys.stdout,
            indent=2,
        )
        sys.stdout.write("\n")
        return 0
    out = [
        f"# Personalization leaderboard: {args.sample} ({len(rows)} summaries per model)",
        "",
        "| model | PerSEval [95% CI] | DEGRESS | EGISES | P-Acc | accuracy distance |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in board:
        lo, hi = r.intervals.get("perseval", (float("nan"), float("nan")))
        out.append(
            f"| {name} | {r.perseval:.4g} [{lo:.4g}, {hi:.4g}] | {r.degress:.4f} | {r.egises:.4f} "
            f"| {r.p_accuracy:.4f} | {r.accuracy_distance:.4f} |"
        )
    first = board[0][1]
    out += ["", f"documents scored: {first.num_documents}, excluded (one reference): {first.num_excluded_documents}"]
    out += [f"note: {n}" for n in notes]
    out += [f"signature: {first.signature}"]
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
