"""PENS personalization leaderboard: DEGRESS, EGISES, P-Acc, PerSEval and accuracy for every model x distance.

Models: built-in offline baselines (oracle, headline, lead, shuffled, history; see
``persona_metrics.datasets.pens.BASELINES``) and prediction files (``hyps_<MODEL>.txt``, one line per test
example in file order, or JSONL ``{user_id, news_id, prediction}``). Writes to OUT_DIR:

* ``leaderboard.md`` / ``.csv`` / ``.json`` (with bootstrap 95 % intervals and config signatures);
* ``stability.md`` / ``.csv``: rank stability of PerSEval and DEGRESS over 10 seeded document subsamples at
  80/60/40/20 % (ε-Spearman, ε-Kendall, bias, variance), and the DEGRESS-vs-PerSEval rank disagreement;
* ``leaderboard.png``: PerSEval vs DEGRESS per model with intervals (needs matplotlib).

    python scripts/benchmark_pens.py data/pens_sample --out outputs/pens --distance rougeL jsd
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from persona_metrics.datasets.pens import BASELINES, baseline_predictions, load_pens, read_hyps, read_jsonl_predictions
from persona_metrics.distances import DISTANCES
from persona_metrics.personalization import DEFAULT_BETA, PersonalizationScorer
from persona_metrics.personalization.stability import rank_disagreement, stability


def systems(ds, baselines: list[str], files: list[Path]) -> dict[str, list[str]]:
    """Predictions per model name: the chosen baselines, then each prediction file."""
    out = {name: baseline_predictions(ds, name) for name in tqdm(baselines, desc="baselines")}
    for path in files:
        if path.suffix == ".jsonl":
            out[path.stem] = read_jsonl_predictions(path, ds)
        else:
            out[path.stem.removeprefix("hyps_")] = read_hyps(path, ds.num_rows)
    return out


def main(argv: list[str] | None = None) -> int:
    """Score, rank and write the leaderboard files; print the leaderboard."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pens_dir", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--predictions", type=Path, nargs="*", default=[])
    parser.add_argument("--baselines", nargs="*", default=list(BASELINES), choices=list(BASELINES))
    parser.add_argument("--distance", nargs="+", default=["rougeL"], choices=DISTANCES)
    parser.add_argument("--beta", type=float, default=DEFAULT_BETA)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args(argv)

    ds = load_pens(args.pens_dir)
    models = systems(ds, args.baselines, args.predictions)
    if len(models) < 2:
        raise SystemExit("need at least two models (baselines or prediction files) to rank")
    args.out.mkdir(parents=True, exist_ok=True)
    rows, md, stab_rows = [], [], []
    for dist in args.distance:
        scorer = PersonalizationScorer(ds["reference"], ds["document"], ds["news_id"], distance=dist)
        results = {
            name: scorer.score(preds, beta=args.beta, bootstrap=args.bootstrap, seed=args.seed)
            for name, preds in tqdm(models.items(), desc=f"scoring ({dist})")
        }
        names = list(results)
        for name, r in results.items():
            rows.append(
                {
                    "distance": dist,
                    "model": name,
                    "perseval": r.perseval,
                    "perseval_ci_low": r.intervals.get("perseval", (np.nan,))[0],
                    "perseval_ci_high": r.intervals.get("perseval", (np.nan, np.nan))[1],
                    "degress": r.degress,
                    "degress_ci_low": r.intervals.get("degress", (np.nan,))[0],
                    "degress_ci_high": r.intervals.get("degress", (np.nan, np.nan))[1],
                    "egises": r.egises,
                    "p_accuracy": r.p_accuracy,
                    "accuracy_distance": r.accuracy_distance,
                    "num_documents": r.num_documents,
                    "num_excluded_documents": r.num_excluded_documents,
                    "signature": r.signature,
                }
            )
        tau, flipped = rank_disagreement(
            names, [results[n].degress for n in names], [results[n].perseval for n in names]
        )
        for measure in ("perseval", "degress"):
            per_doc = np.array([[getattr(d, measure).mean() for d in results[n].documents] for n in names])
            st = stability(per_doc, seed=args.seed)
            for i, f in enumerate(st.fractions):
                stab_rows.append(
                    {
                        "distance": dist,
                        "measure": measure,
                        "fraction": f,
                        "epsilon_spearman": st.epsilon_spearman[i],
                        "epsilon_kendall": st.epsilon_kendall[i],
                        "max_bias": float(st.bias.max()),
                        "max_variance": float(st.variance.max()),
                    }
                )
        md += [
            f"Rank agreement DEGRESS vs PerSEval ({dist}): Kendall tau {tau:.3f}; "
            f"pairs ordered differently: {', '.join(f'{x} > {y} by DEGRESS' for x, y in flipped) or 'none'}"
        ]

    board = pd.DataFrame(rows).sort_values(["distance", "perseval"], ascending=[True, False])
    board.to_csv(args.out / "leaderboard.csv", index=False)
    (args.out / "leaderboard.json").write_text(board.to_json(orient="records", indent=2) + "\n", encoding="utf-8")
    stab = pd.DataFrame(stab_rows)
    stab.to_csv(args.out / "stability.csv", index=False)
    lines = [
        f"# PENS leaderboard: {args.pens_dir} ({ds.num_rows} summaries per model, beta {args.beta:g})",
        "",
        "| distance | model | PerSEval [95% CI] | DEGRESS | EGISES | P-Acc | accuracy distance |",
        "|---|---|---|---|---|---|---|",
    ]
    for _, r in board.iterrows():
        lines.append(
            f"| {r.distance} | {r.model} | {r.perseval:.4g} [{r.perseval_ci_low:.4g}, {r.perseval_ci_high:.4g}] "
            f"| {r.degress:.4f} | {r.egises:.4f} | {r.p_accuracy:.4f} | {r.accuracy_distance:.4f} |"
        )
    lines += [
        "",
        *md,
        "",
        "## Rank stability (10 seeded document subsamples per fraction)",
        "",
        stab.to_markdown(index=False, floatfmt=".4f"),
        "",
    ]
    report = "\n".join(lines)
    (args.out / "leaderboard.md").write_text(report, encoding="utf-8")
    (args.out / "stability.md").write_text(stab.to_markdown(index=False, floatfmt=".4f") + "\n", encoding="utf-8")
    if args.plot:
        plot(board, args.out / "leaderboard.png")
    sys.stdout.write(report)
    return 0


def plot(board: pd.DataFrame, path: Path) -> None:
    """PerSEval vs DEGRESS per model (one panel per distance), with bootstrap intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dists = list(dict.fromkeys(board["distance"]))
    fig, axes = plt.subplots(1, len(dists), figsize=(5 * len(dists), 4.5), squeeze=False)
    for ax, dist in zip(axes[0], dists, strict=True):
        sub = board[board["distance"] == dist]
        xerr = np.abs(np.vstack([sub.degress - sub.degress_ci_low, sub.degress_ci_high - sub.degress]))
        yerr = np.abs(np.vstack([sub.perseval - sub.perseval_ci_low, sub.perseval_ci_high - sub.perseval]))
        ax.errorbar(sub.degress, sub.perseval, xerr=np.nan_to_num(xerr), yerr=np.nan_to_num(yerr), fmt="o", capsize=3)
        for _, r in sub.iterrows():
            ax.annotate(r.model, (r.degress, r.perseval), textcoords="offset points", xytext=(5, 5))
        ax.set(
            xlabel="DEGRESS (responsiveness)",
            ylabel="PerSEval (personalization)",
            title=dist,
            xlim=(-0.05, 1.05),
            ylim=(-0.05, 1.05),
        )
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
