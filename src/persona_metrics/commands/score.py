"""``persona-metrics score METRIC FILE``: one metric over a JSON-lines file, as a table, JSON or CSV."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from persona_metrics.commands.output import (
    InputError,
    add_format_argument,
    add_option_argument,
    captured_notes,
    check_option_names,
    command_parser,
    emit,
    input_errors,
    markdown_table,
    parse_options,
    render_rows,
)

if TYPE_CHECKING:
    from persona_metrics.datasets.personalization import PersonalizationSample
    from persona_metrics.personalization import PersonalizationResult

NAME = "score"
HELP = "score a JSON-lines file with one metric (perseval, degress, persona_style, persona_quality, vert)"

#: The options of a perseval / degress leaderboard (it reports PerSEval, DEGRESS and P-Acc together).
_PERSONALIZATION_OPTIONS = (
    "distance",
    "distance_options",
    "alpha",
    "beta",
    "gamma",
    "p_acc_alpha",
    "p_acc_beta",
    "bootstrap",
    "seed",
)
#: ``-o KEY=VALUE`` names per metric: as in ``evaluate.load(METRIC).compute`` (see each metric's card).
OPTIONS: dict[str, tuple[str, ...]] = {
    "perseval": _PERSONALIZATION_OPTIONS,
    "degress": _PERSONALIZATION_OPTIONS,
    "persona_style": ("method", "persona_dir", "persona_samples", "centroid_cache"),
    "persona_quality": (
        "bertscore_model",
        "bertscore_layers",
        "rescale",
        "baseline_path",
        "bleurt_checkpoint",
        "content_weights",
        "overall_weights",
        "persona_dir",
        "persona_samples",
        "style_method",
        "centroid_cache",
    ),
    "vert": ("encoder", "word_vectors", "alpha", "max_wmd", "clip_negative_sim"),
}
#: Bootstrap resamples of the perseval / degress leaderboards unless ``-o bootstrap=N`` (the library's default is 0).
DEFAULT_BOOTSTRAP = 1000


def _option_lines() -> str:
    """The option names of each metric, wrapped for ``--help``."""
    groups = {"perseval, degress": OPTIONS["perseval"]} | {
        m: OPTIONS[m] for m in ("persona_style", "persona_quality", "vert")
    }
    return "\n".join(
        textwrap.fill(", ".join(names), width=112, initial_indent=f"  {label:<19}", subsequent_indent=" " * 21)
        for label, names in groups.items()
    )


DESCRIPTION = f"""Score FILE with METRIC and print the result and its signature.

FILE is JSON lines: one JSON object per line (blank lines are skipped). What a line holds, by METRIC:

  perseval, degress  one line per (document, user):
      {{"document_id": "D1", "document": "<source text>", "user_id": "U1",
       "reference": "<the user's own summary>", "predictions": {{"<model>": "<summary for this user>", ...}}}}
    -> a leaderboard: one row per model plus two baselines, oracle (each user's own reference) and shuffled
       (another user's reference of the same document), ranked by METRIC;
    or, for one system, "prediction": "<summary>" instead of "predictions" -> one row (named after FILE).
    document and reference are required; document_id groups the lines of one document (without it, equal
    document texts do); user_id is optional. Documents with a single line have no user pair and are excluded
    (counted and noted).
  persona_style      {{"prediction": "<summary>", "persona": "journalist"}}  -> one system
  persona_quality    {{"prediction": "<summary>", "reference": "<reference summary>", "persona": "journalist"}}
    -> one system
  vert               {{"prediction": "<summary>", "reference": "<reference>"}}  -> one system
    ("reference" may be a list of references: the best-scoring one is kept)
  Personas: formal_analyst, journalist, enthusiast, or your own (-o persona_dir=DIR).

Options (-o KEY=VALUE, repeatable; named as in evaluate.load(METRIC).compute, see the metric cards):
{_option_lines()}
  bootstrap defaults to {DEFAULT_BOOTSTRAP} here (0: no intervals).

A malformed line stops with FILE:LINE and the problem (exit status 2).

examples:
  persona-metrics score perseval data/personalization_sample/sample.jsonl
  persona-metrics score degress sample.jsonl -o distance=jsd --format json
  persona-metrics score persona_quality rows.jsonl -o style_method=zscore --format csv
  persona-metrics score vert pairs.jsonl -o encoder=minilm
"""


@dataclass(frozen=True)
class Report:
    """What a metric's scoring prints: rows for JSON / CSV, the laid-out table, and notes about the data."""

    rows: list[dict[str, Any]]
    table: str
    notes: list[str] = field(default_factory=list)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """METRIC, FILE, ``--format`` and ``--option``."""
    parser.add_argument("metric", choices=tuple(OPTIONS), metavar="METRIC", help=f"one of {', '.join(OPTIONS)}")
    parser.add_argument("file", type=Path, metavar="FILE", help="JSON lines (see above for what a line holds)")
    add_format_argument(parser, "-f", "--format")
    add_option_argument(parser)


# --- perseval / degress --------------------------------------------------------------------------------
def _score_systems(
    sample: PersonalizationSample, options: Mapping[str, Any]
) -> tuple[dict[str, PersonalizationResult], list[str]]:
    """Every system of the leaderboard scored on one :class:`PersonalizationScorer`, and the data notes."""
    from persona_metrics.datasets.personalization import leaderboard_systems
    from persona_metrics.distances import DEFAULT_DISTANCE
    from persona_metrics.personalization import PersevalParams, PersonalizationScorer

    params_options = {k: v for k, v in options.items() if k not in ("distance", "distance_options")}
    params_options.setdefault("bootstrap", DEFAULT_BOOTSTRAP)
    with input_errors(TypeError):
        params = PersevalParams(**params_options)
    with captured_notes() as notes, input_errors(TypeError):
        scorer = PersonalizationScorer(
            sample.references,
            sample.documents,
            sample.document_ids,
            distance=options.get("distance", DEFAULT_DISTANCE),
            distance_options=options.get("distance_options"),
        )
        results = {name: scorer.score(preds, params=params) for name, preds in leaderboard_systems(sample).items()}
    return results, notes


def _leaderboard_table(
    path: Path, num_items: int, board: Sequence[tuple[str, PersonalizationResult]], notes: Sequence[str]
) -> str:
    """The markdown leaderboard with intervals, the document counts, the notes and the signature."""
    out = [
        f"# Personalization leaderboard: {path} ({num_items} summaries per model)",
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
    return "\n".join(out) + "\n"


def score_personalization_file(metric: str, path: Path, options: Mapping[str, Any]) -> Report:
    """The perseval / degress leaderboard of a personalization JSON-lines file, ranked by ``metric``."""
    from persona_metrics.datasets.personalization import read_personalization_jsonl

    check_option_names(options, OPTIONS[metric], metric)
    sample = read_personalization_jsonl(path)
    results, notes = _score_systems(sample, options)
    board = sorted(results.items(), key=lambda kv: -getattr(kv[1], metric))
    rows = [{"system": name, **r.as_dict(signature=True)} for name, r in board]
    return Report(rows, _leaderboard_table(path, sample.num_items, board, notes), notes)


# --- persona_style / persona_quality -------------------------------------------------------------------
def _single_table(metric: str, path: Path, row: Mapping[str, Any]) -> str:
    """One system's numbers as a markdown table, then the signature."""
    shown = {k: v for k, v in row.items() if k != "signature"}
    return f"# {metric}: {path} ({row['n']} summaries)\n\n{markdown_table([shown])}\n\nsignature: {row['signature']}\n"


def score_style_file(metric: str, path: Path, options: Mapping[str, Any]) -> Report:
    """Mean style similarity of a file of ``{prediction, persona}`` lines."""
    from persona_metrics.datasets.jsonl import read_string_columns
    from persona_metrics.persona.style import score_style

    check_option_names(options, OPTIONS[metric], metric)
    cols = read_string_columns(path, ("prediction", "persona"), nonempty=("prediction", "persona"))
    with captured_notes() as notes, input_errors(TypeError):
        result = score_style(cols["prediction"], cols["persona"], **options)
    row = {
        "system": path.stem,
        "n": len(cols["prediction"]),
        "style_similarity": result.mean,
        "signature": result.signature,
    }
    return Report([row], _single_table(metric, path, row), notes)


def _quality_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``score_quality`` keyword arguments from the persona_quality module's option names."""
    from persona_metrics.persona.quality import BertScoreConfig

    rest = dict(options)
    config = BertScoreConfig(
        model=rest.pop("bertscore_model", None),
        num_layers=rest.pop("bertscore_layers", None),
        rescale=rest.pop("rescale", True),
        baseline_path=rest.pop("baseline_path", None),
    )
    return {"bertscore": config, **rest}


def score_quality_file(metric: str, path: Path, options: Mapping[str, Any]) -> Report:
    """Mean persona quality and components of a file of ``{prediction, reference, persona}`` lines."""
    from persona_metrics.datasets.jsonl import read_string_columns
    from persona_metrics.persona.quality import score_quality

    check_option_names(options, OPTIONS[metric], metric)
    keys = ("prediction", "reference", "persona")
    cols = read_string_columns(path, keys, nonempty=keys)
    with captured_notes() as notes, input_errors(TypeError):
        result = score_quality(cols["prediction"], cols["reference"], cols["persona"], **_quality_options(options))
    row = {"system": path.stem, "n": len(cols["prediction"]), **result.means(), "signature": result.signature}
    return Report([row], _single_table(metric, path, row), notes)


def score_vert_file(metric: str, path: Path, options: Mapping[str, Any]) -> Report:
    """Mean VERT, sim and WMD of a file of ``{prediction, reference}`` lines (a reference may be a list)."""
    from persona_metrics.datasets.jsonl import iter_jsonl
    from persona_metrics.vert import score_vert

    check_option_names(options, OPTIONS[metric], metric)
    rows = []
    for lineno, row in iter_jsonl(path):
        missing = [k for k in ("prediction", "reference") if k not in row]
        if missing:
            raise ValueError(f"{path}:{lineno}: missing keys {missing}")
        rows.append(row)
    if not rows:
        raise ValueError(f"{path}: no line (expected one JSON object per line with prediction and reference)")
    with captured_notes() as notes, input_errors(TypeError):
        result = score_vert([r["prediction"] for r in rows], [r["reference"] for r in rows], **options)
    row = {"system": path.stem, "n": len(rows), **result.means(), "signature": result.signature}
    return Report([row], _single_table(metric, path, row), notes)


#: METRIC → the function scoring a file with it.
SCORERS: dict[str, Callable[[str, Path, Mapping[str, Any]], Report]] = {
    "perseval": score_personalization_file,
    "degress": score_personalization_file,
    "persona_style": score_style_file,
    "persona_quality": score_quality_file,
    "vert": score_vert_file,
}


def run(args: argparse.Namespace) -> int:
    """Score and print; notes about the data go to standard error for JSON and CSV."""
    options = parse_options(args.options)
    with input_errors():
        report = SCORERS[args.metric](args.metric, args.file, options)
    emit(render_rows(report.rows, args.format, report.table))
    if args.format != "table":
        sys.stderr.writelines(f"note: {n}\n" for n in report.notes)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``persona-metrics score`` from Python.

    Raises:
        InputError: a malformed line, an unknown option or a value the metric refuses (message names it).
    """
    return run(command_parser(NAME, DESCRIPTION, add_arguments).parse_args(argv))


__all__ = ["DESCRIPTION", "HELP", "NAME", "OPTIONS", "InputError", "Report", "add_arguments", "main", "run"]
