"""``persona-metrics pens DIR``: the PENS personalization leaderboard, its rank stability and a plot."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from persona_metrics.commands.output import InputError, command_parser, emit, input_errors

if TYPE_CHECKING:
    import pandas as pd
    from datasets import Dataset

    from persona_metrics.personalization import PersonalizationResult
    from persona_metrics.personalization.stability import Stability

NAME = "pens"
HELP = "PENS leaderboard: DEGRESS, EGISES, P-Acc, PerSEval of baselines and prediction files, rank stability"
DESCRIPTION = """Rank summarizers on Microsoft PENS (personalized news headlines) by PerSEval, DEGRESS, EGISES,
P-Acc and accuracy, for each distance, with bootstrap 95% intervals.

DIR holds the PENS test files (tab-separated, with a header line):
  news.tsv                News ID, Category, Topic, Headline, News body, Title entity, Entity content
  personalized_test.tsv   userid, clicknewsID (comma-separated history), posnewID (comma-separated),
                          rewrite_titles (;;-separated, aligned with posnewID)
One example per (user, article): the user's rewritten title is the reference, headline + " " + body the
document.

Models: the built-in baselines (oracle, headline, lead, shuffled, history) and prediction files given with
--predictions: hyps_<MODEL>.txt (one prediction per line, in the examples' order: users in file order, each
user's posnewID in order) or <MODEL>.jsonl (lines {"user_id", "news_id", "prediction"}).

With --out OUT, writes leaderboard.md / .csv / .json, stability.md / .csv (rank stability of PerSEval and
DEGRESS over 10 seeded document subsamples at 80/60/40/20%) and leaderboard.png (PerSEval vs DEGRESS with
intervals; needs matplotlib, --no-plot to skip). The report is printed either way.

example:
  persona-metrics pens data/pens_sample --out outputs/pens_sample --distance rougeL jsd
"""

#: Columns of leaderboard.csv / .json, in order.
LEADERBOARD_COLUMNS: tuple[str, ...] = (
    "distance",
    "model",
    "perseval",
    "perseval_ci_low",
    "perseval_ci_high",
    "degress",
    "degress_ci_low",
    "degress_ci_high",
    "egises",
    "p_accuracy",
    "accuracy_distance",
    "num_documents",
    "num_excluded_documents",
    "signature",
)
#: The system numbers of each leaderboard row (their intervals and the document counts come with them).
SYSTEM_KEYS: tuple[str, ...] = ("perseval", "degress", "egises", "p_accuracy", "accuracy_distance")
#: The measures whose rank stability is reported.
STABILITY_MEASURES: tuple[str, ...] = ("perseval", "degress")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """DIR, ``--out``, models, distances and the scoring options."""
    from persona_metrics.datasets.pens import BASELINES
    from persona_metrics.distances import DISTANCES
    from persona_metrics.personalization import DEFAULT_BETA

    parser.add_argument("pens_dir", type=Path, metavar="DIR", help="folder with news.tsv and personalized_test.tsv")
    parser.add_argument("--out", type=Path, default=None, help="write the leaderboard files and the plot here")
    parser.add_argument("--predictions", type=Path, nargs="*", default=[], help="hyps_<MODEL>.txt or <MODEL>.jsonl")
    parser.add_argument(
        "--baselines",
        nargs="*",
        default=list(BASELINES),
        choices=list(BASELINES),
        metavar="NAME",
        help=f"built-in baselines to rank (default: all of {', '.join(BASELINES)})",
    )
    parser.add_argument(
        "--distance",
        nargs="+",
        default=["rougeL"],
        choices=DISTANCES,
        metavar="NAME",
        help=f"one or more of {', '.join(DISTANCES)} (default: rougeL)",
    )
    parser.add_argument("--beta", type=float, default=DEFAULT_BETA, help="EDP slope (default %(default)s)")
    parser.add_argument("--bootstrap", type=int, default=1000, help="document resamples for the intervals")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap and subsampling seed")
    parser.add_argument("--plot", action=argparse.BooleanOptionalAction, default=True, help="write leaderboard.png")


def load_models(ds: Dataset, baselines: Sequence[str], files: Sequence[Path]) -> dict[str, list[str]]:
    """Predictions per model name: the chosen baselines, then each prediction file (named by its stem)."""
    from tqdm import tqdm

    from persona_metrics.datasets.pens import baseline_predictions, read_hyps, read_jsonl_predictions

    out = {name: baseline_predictions(ds, name) for name in tqdm(baselines, desc="baselines")}
    for path in files:
        if path.suffix == ".jsonl":
            out[path.stem] = read_jsonl_predictions(path, ds)
        else:
            out[path.stem.removeprefix("hyps_")] = read_hyps(path, ds.num_rows)
    return out


def stability_rows(distance: str, measure: str, st: Stability) -> list[dict[str, Any]]:
    """One row per subsample fraction: ε-Spearman, ε-Kendall and the worst model's bias and variance.

    ``max_bias`` / ``max_variance`` are :attr:`Stability.max_bias` / :attr:`Stability.max_variance` (the least
    stable model), the same for every fraction.
    """
    return [
        {
            "distance": distance,
            "measure": measure,
            "fraction": f,
            "epsilon_spearman": st.epsilon_spearman[i],
            "epsilon_kendall": st.epsilon_kendall[i],
            "max_bias": st.max_bias,
            "max_variance": st.max_variance,
        }
        for i, f in enumerate(st.fractions)
    ]


def _disagreement_line(distance: str, results: Mapping[str, PersonalizationResult]) -> str:
    """Kendall τ between the DEGRESS and PerSEval rankings, and the pairs they order differently."""
    from persona_metrics.personalization.stability import rank_disagreement

    names = list(results)
    tau, flipped = rank_disagreement(names, [results[n].degress for n in names], [results[n].perseval for n in names])
    pairs = ", ".join(f"{x} > {y} by DEGRESS" for x, y in flipped) or "none"
    return f"Rank agreement DEGRESS vs PerSEval ({distance}): Kendall tau {tau:.3f}; pairs ordered differently: {pairs}"


def score_distance(
    ds: Dataset, models: Mapping[str, Sequence[str]], distance: str, args: argparse.Namespace
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    """Leaderboard rows, stability rows and the rank-disagreement line of every model with one distance."""
    import numpy as np
    from tqdm import tqdm

    from persona_metrics.personalization import PersonalizationScorer
    from persona_metrics.personalization.stability import stability

    scorer = PersonalizationScorer(ds["reference"], ds["document"], ds["news_id"], distance=distance)
    results = {
        name: scorer.score(preds, beta=args.beta, bootstrap=args.bootstrap, seed=args.seed)
        for name, preds in tqdm(models.items(), desc=f"scoring ({distance})")
    }
    rows = [
        {"distance": distance, "model": name, **r.as_dict(keys=SYSTEM_KEYS, signature=True)}
        for name, r in results.items()
    ]
    stab = []
    for measure in STABILITY_MEASURES:
        per_document = np.array([list(r.per_document(measure).values()) for r in results.values()])
        stab += stability_rows(distance, measure, stability(per_document, seed=args.seed))
    return rows, stab, _disagreement_line(distance, results)


def leaderboard_markdown(board: pd.DataFrame, stab: pd.DataFrame, header: str, disagreements: Sequence[str]) -> str:
    """The report: the leaderboard table, the rank disagreements and the stability table."""
    lines = [
        header,
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
        *disagreements,
        "",
        "## Rank stability (10 seeded document subsamples per fraction)",
        "",
        stab.to_markdown(index=False, floatfmt=".4f"),
        "",
    ]
    return "\n".join(lines)


def write_outputs(out: Path, board: pd.DataFrame, stab: pd.DataFrame, report: str, plot: bool) -> None:
    """leaderboard.md / .csv / .json, stability.md / .csv and, when ``plot``, leaderboard.png."""
    out.mkdir(parents=True, exist_ok=True)
    board.to_csv(out / "leaderboard.csv", index=False)
    (out / "leaderboard.json").write_text(board.to_json(orient="records", indent=2) + "\n", encoding="utf-8")
    stab.to_csv(out / "stability.csv", index=False)
    (out / "leaderboard.md").write_text(report, encoding="utf-8")
    (out / "stability.md").write_text(stab.to_markdown(index=False, floatfmt=".4f") + "\n", encoding="utf-8")
    if plot:
        plot_leaderboard(board, out / "leaderboard.png")


def plot_leaderboard(board: pd.DataFrame, path: Path) -> None:
    """PerSEval vs DEGRESS per model (one panel per distance), each with its bootstrap interval as a segment."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dists = list(dict.fromkeys(board["distance"]))
    fig, axes = plt.subplots(1, len(dists), figsize=(5 * len(dists), 4.5), squeeze=False)
    for ax, dist in zip(axes[0], dists, strict=True):
        sub = board[board["distance"] == dist]
        ax.hlines(sub.perseval, sub.degress_ci_low, sub.degress_ci_high, color="C0", alpha=0.6)
        ax.vlines(sub.degress, sub.perseval_ci_low, sub.perseval_ci_high, color="C0", alpha=0.6)
        ax.plot(sub.degress, sub.perseval, "o", color="C0")
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


def run(args: argparse.Namespace) -> int:
    """Score, rank, write the files (with ``--out``) and print the report."""
    import pandas as pd

    from persona_metrics.datasets.pens import load_pens

    with input_errors():
        ds = load_pens(args.pens_dir)
        models = load_models(ds, args.baselines, args.predictions)
    if len(models) < 2:
        raise InputError("need at least two models (baselines or prediction files) to rank")
    rows, stab_rows, disagreements = [], [], []
    for dist in args.distance:
        with input_errors():
            dist_rows, dist_stab, line = score_distance(ds, models, dist, args)
        rows += dist_rows
        stab_rows += dist_stab
        disagreements.append(line)
    board = pd.DataFrame(rows).reindex(columns=list(LEADERBOARD_COLUMNS))
    board = board.sort_values(["distance", "perseval"], ascending=[True, False])
    stab = pd.DataFrame(stab_rows)
    header = f"# PENS leaderboard: {args.pens_dir} ({ds.num_rows} summaries per model, beta {args.beta:g})"
    report = leaderboard_markdown(board, stab, header, disagreements)
    if args.out is not None:
        write_outputs(args.out, board, stab, report, args.plot)
    emit(report)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``persona-metrics pens`` from Python.

    Raises:
        InputError: a missing or malformed PENS file or prediction file (file and line named).
    """
    return run(command_parser(NAME, DESCRIPTION, add_arguments).parse_args(argv))
