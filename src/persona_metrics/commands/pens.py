"""``persona-metrics pens DIR``: the PENS personalization leaderboard, its significance, rank stability and a plot."""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from persona_metrics.commands.output import (
    BASELINE_COLUMNS,
    LEADERBOARD_KEY,
    Baseline,
    InputError,
    add_baseline_arguments,
    add_shard_arguments,
    add_significance_argument,
    baseline_fields,
    baseline_heading,
    baseline_line,
    baseline_request,
    check_baseline_system,
    check_outputs,
    check_resamples_option,
    command_parser,
    csv_text,
    emit,
    input_errors,
    json_text,
    jsonl_text,
    markdown_row,
    markdown_table,
    write_text,
)
from persona_metrics.extras import require
from persona_metrics.formatting import comparison_text, format_estimate, format_score
from persona_metrics.personalization.leaderboard import (
    LEADERBOARD_BOOTSTRAP,
    Leaderboard,
    per_summary_rows,
    stability_rows,
    stability_summary_row,
)
from persona_metrics.personalization.params import DistanceChoice, PersevalParams

if TYPE_CHECKING:
    from datasets import Dataset

    from persona_metrics.personalization import PersonalizationResult

NAME = "pens"
HELP = "PENS leaderboard: DEGRESS, EGISES, P-Acc, PerSEval of baselines and prediction files, rank stability"
DESCRIPTION = """Rank summarizers on Microsoft PENS (personalized news headlines) by PerSEval, DEGRESS, EGISES,
P-Acc and accuracy, for each distance, with bootstrap 95% intervals and, for each pair of adjacently ranked
models, a paired permutation test on their per-document PerSEval ("A > B, p = ...": two-sided, the two models'
scores swapped per document with probability 1/2; exact when 2**documents <= --significance-resamples).

DIR holds the PENS test files (tab-separated, with a header line):
  news.tsv                News ID, Category, Topic, Headline, News body, Title entity, Entity content
  personalized_test.tsv   userid, clicknewsID (comma-separated history), posnewID (comma-separated),
                          rewrite_titles (;;-separated, aligned with posnewID)
One example per (user, article): the user's rewritten title is the reference, headline + " " + body the
document.

Models: the built-in baselines (oracle, headline, lead, shuffled, history) and prediction files given with
--predictions: hyps_<MODEL>.txt (one prediction per line, in the examples' order: users in file order, each
user's posnewID in order) or <MODEL>.jsonl (lines {"user_id", "news_id", "prediction"}).

With --out OUT, writes (every file carries the signature: a line in .md, a column in .csv, a field in .json and
.jsonl, the footer of the .png):
  leaderboard.md        the report printed below (numbers with 3 significant digits)
  leaderboard.csv/.json one row per (distance, model) in rank order: the scores at full precision, their
                        intervals, next_model and p_vs_next (the permutation test against the next rank)
  per_summary.jsonl     the micro scores: one line per (distance, model, scored summary) with distance, model,
                        item (the example's index), user_id, news_id, perseval, degress, edp,
                        accuracy_distance and signature (summaries of single-reference articles are not scored)
  stability.md / .csv   rank stability of PerSEval and DEGRESS over 10 seeded document subsamples per fraction
                        (80/60/40/20%): epsilon-Spearman and epsilon-Kendall per fraction
  stability_summary.csv the least stable model's bias and variance, once per (distance, measure)
  leaderboard.png       PerSEval and DEGRESS per model on a log axis with intervals, one panel per distance
                        (needs matplotlib; --no-plot to skip)
The report is printed either way.

--baseline MODEL compares every other model with MODEL (a built-in baseline or a prediction file's model) by the
library's paired test on per-document PerSEval, for each distance (compare_personalization; --paired-test
permutation, the default, or bootstrap with the 95% interval of the difference, as sacrebleu's --paired-bs;
--significance-resamples resamples, seeded by --seed): one line per (distance, model) in the report, and in
leaderboard.csv / .json the columns baseline, baseline_measure, baseline_test, difference_vs_baseline,
ci_low_vs_baseline, ci_high_vs_baseline and p_vs_baseline on every row (null on the baseline's own).

examples:
  persona-metrics pens data/pens_sample --out outputs/pens_sample --distance rougeL jsd
  persona-metrics pens data/pens_sample --baseline headline --paired-test bootstrap --no-plot
"""

#: Columns of leaderboard.csv / .json, in order.
LEADERBOARD_COLUMNS: tuple[str, ...] = (
    "distance", "rank", "model", "perseval", "perseval_ci_low", "perseval_ci_high", "degress", "degress_ci_low",
    "degress_ci_high", "egises", "p_accuracy", "accuracy_distance", "next_model", "p_vs_next", "num_documents",
    "num_excluded_documents", "signature",
)  # fmt: skip
#: The system numbers of each leaderboard row (their intervals and the document counts come with them).
SYSTEM_KEYS: tuple[str, ...] = ("perseval", "degress", "egises", "p_accuracy", "accuracy_distance")
#: The measures whose rank stability is reported.
STABILITY_MEASURES: tuple[str, ...] = ("perseval", "degress")
#: The measure the adjacent ranks are tested on.
TESTED_MEASURE = "perseval"
#: The PerSEval options with a ``--NAME`` flag: its type, default, range and help from :class:`PersevalParams`.
FLAGGED_OPTIONS: tuple[str, ...] = ("beta", "bootstrap", "seed")
#: The flags' defaults where they differ from the params' (a leaderboard's intervals; the seed of every draw).
CLI_DEFAULTS: dict[str, Any] = {"bootstrap": LEADERBOARD_BOOTSTRAP, "seed": 0}


@dataclass(frozen=True)
class DistanceBoard:
    """Everything the reports show for one distance.

    Attributes:
        distance: the distance name.
        board: the library's leaderboard: the models ranked by PerSEval, the adjacent-rank tests and (``--baseline``)
            every other model against the baseline on per-document PerSEval.
        rows: leaderboard rows (:data:`LEADERBOARD_COLUMNS`) in rank order.
        stability: one row per (measure, fraction): ε-Spearman and ε-Kendall.
        stability_summary: one row per measure: the least stable model's bias and variance.
        micro: one row per scored summary of every model.
        disagreement: the rank-disagreement line (DEGRESS vs PerSEval).
    """

    distance: str
    board: Leaderboard
    rows: list[dict[str, Any]]
    stability: list[dict[str, Any]]
    stability_summary: list[dict[str, Any]]
    micro: list[dict[str, Any]]
    disagreement: str


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """DIR, ``--out``, models, distances (the registry) and the scoring options (:data:`FLAGGED_OPTIONS`)."""
    from persona_metrics.datasets.pens import BASELINES
    from persona_metrics.distances import DISTANCES

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
    default = DistanceChoice.default("distance")
    parser.add_argument(
        "--distance",
        nargs="+",
        default=[default],
        choices=DISTANCES,  # the registry as it is when the command runs
        metavar="NAME",
        help=f"one or more of {', '.join(DISTANCES)} (default: {default})",
    )
    for name in FLAGGED_OPTIONS:
        _params_option(parser, name, "; also of the rank-stability subsamples" if name == "seed" else "")
    add_significance_argument(parser, "--seed")
    parser.add_argument("--plot", action=argparse.BooleanOptionalAction, default=True, help="write leaderboard.png")
    add_baseline_arguments(
        parser,
        "a built-in baseline or a prediction file's model",
        "per-document PerSEval, for each distance",
        "--significance-resamples resamples, seeded by --seed",
    )
    add_shard_arguments(parser, "the articles a stable hash of the news id assigns to it")


def _params_option(parser: argparse.ArgumentParser, name: str, also: str) -> None:
    """``--NAME`` for the PerSEval option ``name``: its type, default, range and help from :class:`PersevalParams`.

    The range is shown in the help and checked when the params are built, with the library's message.
    """
    spec = PersevalParams.spec(name)
    default = CLI_DEFAULTS.get(name, PersevalParams.default(name))
    allowed = f"; {spec.allowed()}" if spec.interval is not None else ""
    parser.add_argument(
        f"--{name}",
        type=int if spec.integer else type(default),
        default=default,
        help=f"{spec.help}{also} (default {default:g}{allowed})".replace("%", "%%"),
    )


def scoring_params(args: Any) -> PersevalParams:
    """The :class:`PersevalParams` of the flagged options (a bad value: the library's ``ValueError``, named)."""
    return PersevalParams(**{name: getattr(args, name) for name in FLAGGED_OPTIONS})


# --- tables of one distance -------------------------------------------------------------------------------
def _disagreement_line(distance: str, board: Leaderboard) -> str:
    """Kendall τ between the DEGRESS and PerSEval rankings, and the pairs they order differently."""
    tau, flipped = board.rank_disagreement()
    pairs = ", ".join(f"{x} > {y} by DEGRESS" for x, y in flipped) or "none"
    return (
        f"Rank agreement DEGRESS vs PerSEval ({distance}): Kendall tau {format_score(tau)}; "
        f"pairs ordered differently: {pairs}"
    )


def leaderboard_rows(distance: str, board: Leaderboard) -> list[dict[str, Any]]:
    """One row per model in rank order, every column of :data:`LEADERBOARD_COLUMNS` (``None`` where absent).

    With a baseline, the :data:`BASELINE_COLUMNS` come before ``signature``.
    """
    columns = LEADERBOARD_COLUMNS
    if board.baseline is not None:
        columns = (*LEADERBOARD_COLUMNS[:-1], *BASELINE_COLUMNS, "signature")
    rows = []
    for rank, (name, result) in enumerate(board.board, start=1):
        row: dict[str, Any] = dict.fromkeys(columns)
        row.update(distance=distance, rank=rank, model=name)
        row.update(result.as_dict(keys=SYSTEM_KEYS, signature=True))
        if name in board.next_tests:
            row["next_model"], row["p_vs_next"] = board.next_tests[name][0], board.next_tests[name][1].p_value
        if board.baseline is not None:
            test = board.baseline_tests.get(name)
            row.update(baseline_fields(board.baseline, board.measure, board.method, test))
        rows.append(row)
    return rows


def _baseline(args: Any) -> Baseline | None:
    """``--baseline`` of the command line (a merged run's options have none)."""
    return baseline_request(args) if getattr(args, "baseline", None) is not None else None


def distance_board(
    distance: str, results: Mapping[str, PersonalizationResult], ids: Mapping[str, Sequence[str]], args: Any
) -> DistanceBoard:
    """One distance's tables from its scored (or merged) results; ``args`` gives the seed and the test's resamples."""
    from persona_metrics.personalization.leaderboard import rank_systems

    baseline = _baseline(args)
    board = rank_systems(results, TESTED_MEASURE, args.significance_resamples, args.seed, *(baseline or ()))
    stab, summary = [], []
    for measure in STABILITY_MEASURES:
        st = board.stability(measure, args.seed)
        stab += stability_rows(distance, measure, st, board.signature)
        summary.append(stability_summary_row(distance, measure, st, board.signature))
    return DistanceBoard(
        distance=distance,
        board=board,
        rows=leaderboard_rows(distance, board),
        stability=stab,
        stability_summary=summary,
        micro=per_summary_rows(results, ids, "model", distance=distance),
        disagreement=_disagreement_line(distance, board),
    )


# --- the report ------------------------------------------------------------------------------------------
def _estimate(row: Mapping[str, Any], key: str) -> str:
    """A leaderboard cell: ``value [low, high]``, or the value alone without a bootstrap."""
    return format_estimate(row[key], row[f"{key}_ci_low"], row[f"{key}_ci_high"])


def _table_lines(boards: Sequence[DistanceBoard]) -> list[str]:
    """The leaderboard as markdown table lines, every distance's models in rank order."""
    lines = [
        "| distance | rank | model | PerSEval [95% CI] | DEGRESS [95% CI] | EGISES | P-Acc | accuracy distance "
        "| p vs next |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for board in boards:
        for r in board.rows:
            cells = [r["distance"], str(r["rank"]), r["model"], _estimate(r, "perseval"), _estimate(r, "degress")]
            cells += [format_score(r[k]) for k in ("egises", "p_accuracy", "accuracy_distance", "p_vs_next")]
            lines.append(markdown_row(cells))
    return [*lines, "", LEADERBOARD_KEY]


def _significance_lines(boards: Sequence[DistanceBoard], resamples: int, seed: int) -> list[str]:
    """The adjacent-rank tests, one line per pair, under a heading that says which test."""
    if not resamples:
        return ["Adjacent ranks: no significance test (--significance-resamples 0)."]
    tests = [test for board in boards for _b, test in board.board.next_tests.values()]
    if not tests:
        return []
    if tests[0].exact:
        draws = f"all {tests[0].n_resamples} sign patterns are enumerated (exact test), p = count / patterns"
    else:
        draws = f"{resamples} seeded sign patterns (seed {seed}), p = (count + 1) / ({resamples} + 1)"
    lines = [
        "## Adjacent ranks: paired permutation test on per-document PerSEval",
        "",
        f"Two-sided, over the {tests[0].n_units} scored documents: under the null hypothesis the two models' "
        "per-document PerSEval are exchangeable, so each document's pair is swapped with probability 1/2; "
        f"{draws}, count = the patterns with |mean difference| at least the observed one. See docs/significance.md.",
        "",
    ]
    for board in boards:
        lines += [
            f"- {board.distance}: {comparison_text(a, b, test.difference, test.p_value, 'PerSEval')}"
            for a, (b, test) in board.board.next_tests.items()
        ]
    return lines


def _baseline_lines(boards: Sequence[DistanceBoard], baseline: Baseline | None) -> list[str]:
    """The ``--baseline`` comparisons, one line per (distance, model), under a line that says which test."""
    if baseline is None:
        return []
    first = next(test for board in boards for test in board.board.baseline_tests.values())
    lines = ["## " + baseline_heading(baseline.system, first, "PerSEval", "document").removesuffix(":"), ""]
    for board in boards:
        lines += [
            f"- {board.distance}: {baseline_line(name, baseline.system, test, 'PerSEval')}"
            for name, test in board.board.baseline_tests.items()
        ]
    return [*lines, ""]


def stability_markdown(boards: Sequence[DistanceBoard]) -> str:
    """The two stability tables (per fraction; the least stable model once per measure) and the signatures."""
    per_fraction = [{k: v for k, v in row.items() if k != "signature"} for b in boards for row in b.stability]
    summary = [{k: v for k, v in row.items() if k != "signature"} for b in boards for row in b.stability_summary]
    return "\n".join(
        [
            "## Rank stability (10 seeded document subsamples per fraction)",
            "",
            markdown_table(per_fraction),
            "",
            "Least stable model (bias: std, variance: var of the full-data score and the four fraction means):",
            "",
            markdown_table(summary),
            "",
            *signature_lines(boards),
            "",
        ]
    )


def signature_lines(boards: Sequence[DistanceBoard]) -> list[str]:
    """``signature (rougeL): ...``, one line per distance."""
    return [f"signature ({b.distance}): {b.board.signature}" for b in boards]


def wrap_signature(line: str, width: int) -> list[str]:
    """``line`` cut after its ``|`` separators into lines of at most ``width`` characters where it can be.

    Continuation lines are indented by four spaces; a part longer than ``width`` stays whole.

    >>> wrap_signature("signature (jsd): jsd|base:2|alpha:3", 24)
    ['signature (jsd): jsd|', '    base:2|alpha:3']
    """
    lines: list[str] = []
    current = ""
    for part in re.split(r"(?<=\|)", line):
        if current.strip() and len(current) + len(part) > width:
            lines.append(current)
            current = "    "
        current += part
    return [*lines, current]


def leaderboard_markdown(boards: Sequence[DistanceBoard], header: str, args: argparse.Namespace) -> str:
    """The report: the leaderboard, the adjacent-rank tests, the rank disagreements, stability, signatures."""
    lines = [
        header,
        "",
        *_table_lines(boards),
        "",
        *_significance_lines(boards, args.significance_resamples, args.seed),
        "",
        *_baseline_lines(boards, _baseline(args)),
        *(b.disagreement for b in boards),
        "",
    ]
    return "\n".join(lines) + "\n" + stability_markdown(boards)


# --- files -----------------------------------------------------------------------------------------------
#: The files ``--out DIR`` writes.
OUT_FILES: tuple[str, ...] = (
    "leaderboard.md", "leaderboard.csv", "leaderboard.json", "per_summary.jsonl", "stability.csv",
    "stability_summary.csv", "stability.md", "leaderboard.png",
)  # fmt: skip


def write_outputs(out: Path, boards: Sequence[DistanceBoard], report: str, args: argparse.Namespace) -> None:
    """leaderboard.md / .csv / .json, per_summary.jsonl, stability.md / .csv, stability_summary.csv and the png."""
    rows = [row for b in boards for row in b.rows]
    write_text(out / "leaderboard.md", report)
    write_text(out / "leaderboard.csv", csv_text(rows))
    write_text(out / "leaderboard.json", json_text(rows))
    write_text(out / "per_summary.jsonl", jsonl_text([row for b in boards for row in b.micro]))
    write_text(out / "stability.csv", csv_text([row for b in boards for row in b.stability]))
    write_text(out / "stability_summary.csv", csv_text([row for b in boards for row in b.stability_summary]))
    write_text(out / "stability.md", stability_markdown(boards))
    if args.plot:
        plot_leaderboard(boards, out / "leaderboard.png", Path(args.pens_dir).resolve().name, args.beta)


def _draw_measure(ax: Any, rows: Sequence[Mapping[str, Any]], key: str, style: tuple[str, str, float, str]) -> None:
    """One measure of every model: a marker at its value and its interval as a segment (when computed)."""
    marker, color, offset, label = style
    ys = [rank - 1 + offset for rank in range(1, len(rows) + 1)]
    has_interval = rows[0].get(f"{key}_ci_low") is not None
    if has_interval:
        ax.hlines(ys, [r[f"{key}_ci_low"] for r in rows], [r[f"{key}_ci_high"] for r in rows], color=color, lw=2)
    label += " (95% CI)" if has_interval else ""
    ax.plot([r[key] for r in rows], ys, marker, color=color, ms=7, ls="none", label=label)


def _draw_panel(ax: Any, board: DistanceBoard, dataset: str, beta: float) -> None:
    """One distance: PerSEval and DEGRESS per model on a log axis, models in rank order, adjacent-rank p-values."""
    rows = board.rows
    _draw_measure(ax, rows, "perseval", ("o", "C0", -0.12, "PerSEval"))
    _draw_measure(ax, rows, "degress", ("D", "C1", 0.12, "DEGRESS"))
    ax.set_xscale("log")
    ax.margins(x=0.06)
    ax.set_yticks(range(len(rows)), labels=[f"{r['model']}  ({format_score(r['perseval'])})" for r in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("score (log scale); label: model (PerSEval)")
    ax.set_title(f"{dataset} · {board.distance} · β = {beta:g}", fontsize="medium")
    ax.grid(axis="x", which="major", alpha=0.3)
    if board.board.next_tests:
        ax.annotate("p vs next", xy=(1.0, -0.5), xycoords=("axes fraction", "data"), xytext=(4, 2),
                    textcoords="offset points", va="bottom", fontsize="small", color="0.3")  # fmt: skip
    for k, (_b, test) in enumerate(board.board.next_tests.values()):
        ax.annotate(
            f"p = {format_score(test.p_value)}",
            xy=(1.0, k + 0.5),
            xycoords=("axes fraction", "data"),
            xytext=(4, 0),
            textcoords="offset points",
            va="center",
            fontsize="small",
            color="0.3",
        )


#: Font size (points) of the plot's footer, the signatures.
FOOTER_POINTS = 6.5
#: Advance of one monospace character in ems (DejaVu Sans Mono, matplotlib's default monospace font: 0.602).
MONOSPACE_ADVANCE = 0.61


def plot_leaderboard(boards: Sequence[DistanceBoard], path: Path, dataset: str, beta: float) -> None:
    """PerSEval and DEGRESS per model (one panel per distance) on a log axis, with intervals and signatures.

    Models are rows in rank order, labelled with their name and PerSEval (labels never overlap); the p-value of
    each adjacent-rank test sits between the two rows, right of the panel; the legend is above the panels and
    the footer holds the signatures, wrapped at their ``|`` separators to the figure's width (:func:`wrap_signature`).
    Each panel's title names the dataset folder, the distance and β.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = max(len(b.rows) for b in boards)
    width = 7.2 * len(boards)
    columns = int(width * 72 * 0.95 / (MONOSPACE_ADVANCE * FOOTER_POINTS))  # characters the footer's width holds
    footer = [part for line in signature_lines(boards) for part in wrap_signature(line, columns)]
    height = 2.0 + 0.55 * models + 0.18 * len(footer)
    fig, axes = plt.subplots(1, len(boards), figsize=(width, height), squeeze=False)
    for ax, board in zip(axes[0], boards, strict=True):
        _draw_panel(ax, board, dataset, beta)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), frameon=False, fontsize="small")
    fig.text(
        0.01, 0.01, "\n".join(footer), fontsize=FOOTER_POINTS, family="monospace", ha="left", va="bottom", color="0.25"
    )
    fig.tight_layout(rect=(0.0, (0.12 + 0.14 * len(footer)) / height, 1.0, 1.0 - 0.3 / height), w_pad=4.0)
    fig.savefig(path, dpi=130, bbox_inches="tight", pad_inches=0.1)  # nothing drawn is cut off at the edges
    plt.close(fig)


#: The ``pens`` options a states file keeps (what shapes the report).
STATE_OPTIONS: tuple[str, ...] = ("beta", "bootstrap", "seed", "significance_resamples", "distance", "baselines")


def report_header(pens_dir: object, num_rows: int, beta: float) -> str:
    """The report's first line."""
    return f"# PENS leaderboard: {pens_dir} ({num_rows} summaries per model, beta {beta:g})"


def pens_states(ds: Dataset, models: Mapping[str, Sequence[str]], args: argparse.Namespace) -> str:
    """The states file of shard ``args.shard`` (``I/N``): every distance's per-article states of every model."""
    from persona_metrics.personalization import resolve_distance
    from persona_metrics.personalization.leaderboard import score_shard
    from persona_metrics.personalization.scorer import result_signature
    from persona_metrics.personalization.states import document_line, excluded_line
    from persona_metrics.sharding.documents import board_entry
    from persona_metrics.sharding.files import digest, parse_shard, shard_items, states_text

    shard = parse_shard(args.shard)
    keys = [str(k) for k in ds["news_id"]]
    rows = shard_items(keys, *shard)
    params = scoring_params(args)
    boards, scored_lines = {}, []
    refs, docs = list(ds["reference"]), list(ds["document"])
    for dist in args.distance:
        boards[dist] = board_entry(result_signature(resolve_distance(dist), params), params)
        alone, scored, results = score_shard(refs, docs, keys, models, rows, params, distance=dist)
        scored_lines += [document_line(dist, name, doc, scored) for name, r in results.items() for doc in r.documents]
    lines = [excluded_line(keys[i], [i]) for i in alone] + scored_lines
    files = [Path(args.pens_dir) / "news.tsv", Path(args.pens_dir) / "personalized_test.tsv", *args.predictions]
    header = {
        "command": NAME, "metric": "perseval", "input": str(args.pens_dir),
        "input_sha256": digest(Path(f).read_bytes() for f in files), "num_items": ds.num_rows,
        "shard": shard[0], "num_shards": shard[1], "options": {k: getattr(args, k) for k in STATE_OPTIONS},
        "systems": list(models), "boards": boards, "notes": [],
    }  # fmt: skip
    return states_text(header, lines)


def merged_report(merged: Any) -> tuple[str, list[dict[str, Any]]]:
    """The report of the unsharded run and its leaderboard rows, from the merged states of its shards."""
    options = merged.header["options"]
    args = argparse.Namespace(**options)
    boards = [distance_board(dist, results, {}, args) for dist, results in merged.results.items()]
    header = report_header(merged.header["input"], merged.header["num_items"], options["beta"])
    return leaderboard_markdown(boards, header, args), [row for b in boards for row in b.rows]


def run(args: argparse.Namespace) -> int:
    """Score, rank, test, write the files (with ``--out``) and print the report."""
    from persona_metrics.datasets.pens import load_models, load_pens
    from persona_metrics.personalization import PersonalizationScorer
    from persona_metrics.personalization.leaderboard import score_systems

    check_resamples_option(args.significance_resamples, "--significance-resamples")
    inputs = [Path(args.pens_dir) / "news.tsv", Path(args.pens_dir) / "personalized_test.tsv", *args.predictions]
    written = {f"--out ({name})": args.out / name for name in OUT_FILES} if args.out is not None else {}
    check_outputs({"--states": args.states, **written}, inputs)
    if args.out is not None and args.plot:  # before the scoring, not after it
        require("the pens plot (leaderboard.png; --no-plot skips it)", "matplotlib")
    with input_errors():
        ds = load_pens(args.pens_dir)
        models = load_models(ds, args.baselines, args.predictions)
    if len(models) < 2:
        raise InputError("need at least two models (baselines or prediction files) to rank")
    baseline = baseline_request(args)
    if baseline is not None:
        if args.shard is not None or args.states is not None:
            raise InputError("--baseline does not combine with --shard / --states: run it on the whole PENS folder")
        if not args.significance_resamples:
            raise InputError("--baseline needs resamples for its test: --significance-resamples N with N >= 1")
        check_baseline_system(baseline, list(models), "the PENS models")
    if args.shard is not None or args.states is not None:
        if args.shard is None or args.states is None or args.out is not None:
            raise InputError("--shard I/N and --states OUT.jsonl go together, without --out (see docs/scaling.md §2)")
        with input_errors():
            write_text(args.states, pens_states(ds, models, args))
        return 0
    boards, ids = [], {"user_id": list(ds["user_id"]), "news_id": list(ds["news_id"])}
    for dist in args.distance:  # every model scored on one scorer per distance
        with input_errors():
            scorer = PersonalizationScorer(ds["reference"], ds["document"], ds["news_id"], distance=dist)
            results = score_systems(scorer, models, scoring_params(args), desc=f"pens: scoring ({dist})")
            boards.append(distance_board(dist, results, ids, args))
    header = report_header(args.pens_dir, ds.num_rows, args.beta)
    report = leaderboard_markdown(boards, header, args)
    if args.out is not None:
        write_outputs(args.out, boards, report, args)
    emit(report)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``persona-metrics pens`` from Python.

    Raises:
        InputError: a missing or malformed PENS file or prediction file (file and line named).
    """
    return run(command_parser(NAME, DESCRIPTION, add_arguments).parse_args(argv))
