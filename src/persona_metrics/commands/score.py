"""``persona-metrics score METRIC FILE``: one metric over a JSON-lines file, as a table, JSON or CSV."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from persona_metrics.commands.output import (
    DEFAULT_SIGNIFICANCE_RESAMPLES,
    LEADERBOARD_KEY,
    Baseline,
    InputError,
    Report,
    add_baseline_arguments,
    add_format_argument,
    add_micro_argument,
    add_option_argument,
    add_quiet_argument,
    add_shard_arguments,
    add_significance_argument,
    baseline_fields,
    baseline_heading,
    baseline_line,
    baseline_request,
    captured_notes,
    check_baseline_system,
    check_option_names,
    check_output,
    check_quiet_format,
    check_resamples_option,
    command_parser,
    emit,
    input_errors,
    jsonl_text,
    markdown_row,
    noted_now,
    parse_options,
    quiet_text,
    render_rows,
    write_text,
)
from persona_metrics.formatting import comparison_text, format_estimate, format_score
from persona_metrics.metric_registry import metric_names, metric_spec
from persona_metrics.params import Params, option_names
from persona_metrics.persona.samples import BUILTIN_PERSONAS
from persona_metrics.persona.spec import PERSONA_QUALITY
from persona_metrics.personalization.leaderboard import (
    LEADERBOARD_BOOTSTRAP,
    Leaderboard,
    per_summary_rows,
    rank_systems,
)
from persona_metrics.personalization.params import DistanceChoice, PersevalParams
from persona_metrics.personalization.spec import DEGRESS, PERSEVAL

if TYPE_CHECKING:
    from persona_metrics.datasets.personalization import PersonalizationSample
    from persona_metrics.personalization import PersonalizationResult
    from persona_metrics.sharding.documents import MergedStates

NAME = "score"
HELP = f"score a JSON-lines file with one metric ({', '.join(metric_names())})"


def params_of(metric: str) -> tuple[type[Params], ...]:
    """The params classes behind the metric's ``-o KEY=VALUE`` options: its spec's (its evaluate module's).

    A perseval / degress leaderboard reports PerSEval, DEGRESS and P-Acc together, so both take every field.
    """
    return metric_spec(metric).params


def options_of(metric: str) -> tuple[str, ...]:
    """``-o KEY=VALUE`` names of the metric: as in ``evaluate.load(METRIC).compute`` (see each metric's card)."""
    return option_names(params_of(metric))


#: Bootstrap resamples of the perseval / degress leaderboards unless ``-o bootstrap=N`` (the library's default is 0).
DEFAULT_BOOTSTRAP = LEADERBOARD_BOOTSTRAP


def cli_defaults(metric: str) -> dict[str, Any]:
    """The options whose default here differs from the params' (``--help`` shows these): a leaderboard's bootstrap."""
    return {"bootstrap": DEFAULT_BOOTSTRAP} if metric_spec(metric).by_document else {}


def _option_lines() -> str:
    """Each metric's options for ``--help``: one line per option (default, allowed values, help) from its params.

    Metrics with the same params share one group (perseval, degress).
    """
    groups: dict[tuple[type[Params], ...], list[str]] = {}
    for metric in metric_names():
        groups.setdefault(params_of(metric), []).append(metric)
    lines = []
    for metrics in groups.values():
        lines.append(f"  {', '.join(metrics)}:")
        helps = [line for params in params_of(metrics[0]) for line in params.help_lines(cli_defaults(metrics[0]))]
        lines += [
            textwrap.fill(h, 112, initial_indent="    ", subsequent_indent="      ", break_on_hyphens=False)
            for h in helps
        ]
    return "\n".join(lines)


DESCRIPTION = f"""Score FILE with METRIC and print the result and its signature.

FILE is JSON lines: one JSON object per line (blank lines are skipped). What a line holds, by METRIC:

  perseval, degress  one line per (document, user):
      {{"document_id": "D1", "document": "<source text>", "user_id": "U1",
       "reference": "<the user's own summary>", "predictions": {{"<model>": "<summary for this user>", ...}}}}
    -> a leaderboard: one row per model plus two baselines, oracle (each user's own reference) and shuffled
       (another user's reference of the same document), ranked by METRIC (so no model may be named oracle or
       shuffled);
    or, for one system, "prediction": "<summary>" instead of "predictions" -> one row (named after FILE).
    document and reference are required; document_id groups the lines of one document (without it, equal
    document texts do); user_id is optional. Documents with a single line have no user pair and are excluded
    (counted and noted). Each pair of adjacent ranks is compared by a paired permutation test on the
    per-document values of METRIC ("A > B, p = ...", two-sided; --significance-resamples sign patterns,
    seeded by -o seed; next_system and p_vs_next in JSON / CSV).
  persona_style      {{"prediction": "<summary>", "persona": "journalist"}}  -> one system
  persona_quality    {{"prediction": "<summary>", "reference": "<reference summary>", "persona": "journalist"}}
    -> one system
  vert               {{"prediction": "<summary>", "reference": "<reference>"}}  -> one system
    ("reference" may be a list of references: the best-scoring one is kept)
  summary_eval       {{"prediction": "<summary>", "source": "<the text it summarises>"}}  -> one system
    (completeness, coherence and consistency offline; accuracy and overall with a judge: -m/--model, --base-url)
  Personas: {", ".join(BUILTIN_PERSONAS)} (the files of the shipped persona folder), or your own: a folder of
    NAME.txt sample files (-o persona_dir=DIR).

Options (-o KEY=VALUE, repeatable; named as in evaluate.load(METRIC).compute, see the metric cards):
{_option_lines()}
  bootstrap defaults to {DEFAULT_BOOTSTRAP} here for perseval / degress (0 in the library and the modules; 0: no
  intervals).

--micro PATH writes the per-summary (micro) scores as JSON lines, each with the signature:
  item is the line's index among FILE's non-blank lines, from 0 (error messages give FILE:LINE, blank lines counted)
  perseval, degress  one line per (system, scored line): system, item, document_id,
                     user_id, perseval, degress, edp, accuracy_distance, signature
  persona_style      one line per line of FILE: system, item, style_similarity, signature
  persona_quality    one line per line of FILE: system, item, every component, band, signature
  vert               one line per line of FILE: system, item, vert, sim, wmd, signature
  summary_eval       one line per line of FILE: system, item, accuracy, completeness, coherence, overall (null
                     without a judge; rationale with one), consistency, unsupported_facts, checked_facts
                     (completeness_recall, completeness_precision by the recall_precision method), signature

A malformed line stops with FILE:LINE, the field and the problem (exit status 2); so does a value the metric
refuses on one line (an unknown persona, a reference without words).

--shard I/N --states OUT.jsonl scores one shard and writes its states instead of printing; persona-metrics merge
of the N states files prints exactly what the unsharded run prints (docs/scaling.md section 2). perseval and
degress shard by document (a stable hash of the document id); the other metrics take the I-th of N contiguous
blocks of items.

--baseline SYSTEM (perseval, degress: a model of a file of "predictions" lines, oracle or shuffled; a file of
"prediction" lines holds one system) compares every other system with SYSTEM by the library's paired test on the
per-document values of METRIC (compare_personalization): one line per system under the table ("A > B, p = ...
(Delta ...)", with --paired-test bootstrap also the 95% interval of the difference, as sacrebleu's --paired-bs),
and in JSON / CSV the columns baseline, baseline_measure, baseline_test, difference_vs_baseline,
ci_low_vs_baseline, ci_high_vs_baseline, p_vs_baseline on every row (null on the baseline's own).
--significance-resamples and -o seed set its resamples and seed (docs/significance.md). The other metrics score
one system per FILE and have no --baseline (persona_quality's comparison, compare_quality, is persona-metrics
cnndm --baseline; persona_style, vert and summary_eval have no paired comparison in the library).

Samples, one per metric in the formats above, are installed with the package: data/score_samples/METRIC.jsonl in
a clone, "$(persona-metrics docs --data)/score_samples/METRIC.jsonl" anywhere.

examples:
  persona-metrics score perseval data/score_samples/perseval.jsonl
  persona-metrics score degress data/score_samples/degress.jsonl -o distance=jsd --format json
  persona-metrics score degress data/score_samples/degress.jsonl --baseline one_for_all --paired-test bootstrap
  persona-metrics score persona_style data/score_samples/persona_style.jsonl -o method=fidelity
  persona-metrics score persona_quality data/score_samples/persona_quality.jsonl -o style_method=zscore --format csv
  persona-metrics score vert data/score_samples/vert.jsonl -o encoder=minilm
  persona-metrics score summary_eval data/score_samples/summary_eval.jsonl -m MODEL --base-url URL
  persona-metrics score vert "$(persona-metrics docs --data)/score_samples/vert.jsonl"    (from an installed wheel)
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """METRIC, FILE, ``--format``, ``-q``, ``--option``, ``--significance-resamples``, ``--micro``, shard, judge."""
    from persona_metrics.commands.judge_options import add_judge_arguments

    names = metric_names()
    parser.add_argument("metric", choices=names, metavar="METRIC", help=f"one of {', '.join(names)}")
    parser.add_argument("file", type=Path, metavar="FILE", help="JSON lines (what a line holds: above); - reads stdin")
    add_format_argument(parser, "-f", "--format")
    add_quiet_argument(parser)
    add_option_argument(parser)
    add_significance_argument(parser, "-o seed (perseval, degress)")
    add_micro_argument(parser, "see above")
    add_baseline_arguments(
        parser,
        "perseval, degress: a model of FILE, oracle or shuffled",
        "the per-document values of METRIC",
        "--significance-resamples resamples, seeded by -o seed",
    )
    add_shard_arguments(
        parser,
        "perseval, degress: the documents a stable hash of the document id assigns to it; the other metrics: the "
        "I-th of N contiguous blocks of items",
    )
    add_judge_arguments(
        parser, "summary_eval accuracy judge (optional; without one accuracy and overall are null)", False
    )


# --- perseval / degress --------------------------------------------------------------------------------
#: What a personalization metric's table calls its measures.
MEASURE_LABELS: dict[str, str] = {PERSEVAL.headline: "PerSEval", DEGRESS.headline: "DEGRESS"}


def _score_systems(
    sample: PersonalizationSample, options: Mapping[str, Any]
) -> tuple[dict[str, PersonalizationResult], list[str], int]:
    """Every system of the leaderboard scored on one :class:`PersonalizationScorer`, the data notes and the seed."""
    from persona_metrics.datasets.personalization import leaderboard_systems
    from persona_metrics.personalization import PersonalizationScorer
    from persona_metrics.personalization.leaderboard import score_systems

    distance, params_options = DistanceChoice.split(options)
    params_options.setdefault("bootstrap", DEFAULT_BOOTSTRAP)
    with input_errors(TypeError):
        params = PersevalParams(**params_options)
    with captured_notes() as notes, input_errors(TypeError):
        scorer = PersonalizationScorer(sample.references, sample.documents, sample.document_ids, **distance)
        results = score_systems(scorer, leaderboard_systems(sample), params)
    return results, notes, params.seed


def _leaderboard_table(path: str, num_items: int, leaderboard: Leaderboard) -> list[str]:
    """The markdown leaderboard lines: intervals, p-values against the next rank, the adjacent-rank tests."""
    board, tests, metric = leaderboard.board, leaderboard.next_tests, leaderboard.measure
    out = [
        f"# Personalization leaderboard: {path} ({num_items} summaries per model)",
        "",
        "| rank | model | PerSEval [95% CI] | DEGRESS [95% CI] | EGISES | P-Acc | accuracy distance | p vs next |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for rank, (name, r) in enumerate(board, start=1):
        cells = [str(rank), name, format_estimate(r.perseval, *r.intervals.get(PERSEVAL.headline, (None, None)))]
        cells.append(format_estimate(r.degress, *r.intervals.get(DEGRESS.headline, (None, None))))
        cells += [format_score(v) for v in (r.egises, r.p_accuracy, r.accuracy_distance)]
        cells.append(format_score(tests[name][1].p_value if name in tests else None))
        out.append(markdown_row(cells))
    out += ["", LEADERBOARD_KEY]
    if tests:
        test = next(iter(tests.values()))[1]
        draws = f"exact over {test.n_resamples} sign patterns" if test.exact else f"{test.n_resamples} resamples"
        out += [
            "",
            f"Adjacent ranks: paired permutation test on per-document {MEASURE_LABELS[metric]} (two-sided, "
            f"{test.n_units} documents, {draws}, seed {test.seed}; docs/significance.md):",
        ]
        out += [
            f"- {comparison_text(a, b, t.difference, t.p_value, MEASURE_LABELS[metric])}" for a, (b, t) in tests.items()
        ]
    return out


def score_personalization_file(
    metric: str,
    path: Path,
    options: Mapping[str, Any],
    significance_resamples: int = DEFAULT_SIGNIFICANCE_RESAMPLES,
    baseline: Baseline | None = None,
) -> Report:
    """The perseval / degress leaderboard of a personalization JSON-lines file, ranked by ``metric``.

    Each pair of adjacent ranks is compared with
    :func:`persona_metrics.personalization.comparison.compare_personalization` on the per-document values of
    ``metric`` (``significance_resamples`` 0: no test), seeded by the ``seed`` option; with ``baseline``, every other
    system is compared with the baseline system by the same function (its ``method``, the same resamples and seed).

    Raises:
        InputError: a ``baseline`` that names no system of the leaderboard.
    """
    from persona_metrics.datasets.personalization import leaderboard_systems, read_personalization_jsonl

    check_option_names(options, options_of(metric), metric)
    with noted_now():
        sample = read_personalization_jsonl(path)
    if baseline is not None:  # before the scoring
        check_baseline_system(baseline, list(leaderboard_systems(sample)), str(path))
    results, notes, seed = _score_systems(sample, options)
    board = rank_systems(results, metric, significance_resamples, seed, *(baseline or ()))
    report = personalization_report(str(path), sample.num_items, board, notes)
    ids: dict[str, Sequence[str | None]] = {
        "document_id": sample.document_ids or [None] * sample.num_items,
        "user_id": sample.user_ids,
    }
    return replace(report, micro=per_summary_rows(dict(board.board), ids, "system"))


def _baseline_section(board: Leaderboard) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """The table's lines of the baseline comparisons, and the JSON / CSV columns of every system's row."""
    label, tests, baseline = MEASURE_LABELS[board.measure], board.baseline_tests, str(board.baseline)
    lines = ["", baseline_heading(baseline, next(iter(tests.values())), label, "document")]
    lines += [f"- {baseline_line(name, baseline, t, label)}" for name, t in tests.items()]
    fields = {name: baseline_fields(baseline, board.measure, board.method, t) for name, t in tests.items()}
    return lines, fields


def personalization_report(path: str, num_items: int, board: Leaderboard, notes: list[str]) -> Report:
    """The leaderboard of scored (or merged) results: rows, the table, the notes (no per-summary rows).

    Args:
        path: the input as named on the command line.
        num_items: the input's lines.
        board: the library's leaderboard (ranked by ``perseval`` or ``degress``, its tests; a baseline's comparisons:
            lines under the tests, columns in every row).
        notes: the scoring's warnings.
    """
    metric, baseline = board.measure, board.baseline
    lines: list[str] = []
    fields: dict[str, dict[str, Any]] = {}
    if baseline is not None:
        lines, fields = _baseline_section(board)
    rows = []
    for name, r in board.board:
        nxt = board.next_tests.get(name)
        row = {"system": name, **r.as_dict(), "next_system": nxt and nxt[0], "p_vs_next": nxt and nxt[1].p_value}
        if baseline is not None:
            row |= fields.get(name) or baseline_fields(baseline, metric, board.method, None)
        rows.append({**row, "signature": r.signature})
    first = board.board[0][1]
    lines = [*_leaderboard_table(path, num_items, board), *lines]
    lines += ["", f"documents scored: {first.num_documents}, excluded (one reference): {first.num_excluded_documents}"]
    lines += [f"note: {n}" for n in notes]
    lines += [f"signature: {first.signature}"]
    return Report(rows, "\n".join(lines) + "\n", notes)


def _shard_lines(
    sample: PersonalizationSample, rows: list[int], scorer_args: tuple[dict[str, Any], PersevalParams], board: str
) -> list[dict[str, Any]]:
    """The states lines of the shard's ``rows``: each single-reference document, then every system's documents.

    Without a scored row, the header and the excluded documents still make a valid file.
    """
    from persona_metrics.datasets.personalization import leaderboard_systems
    from persona_metrics.personalization.leaderboard import score_shard
    from persona_metrics.personalization.states import document_line, excluded_line

    keys: Sequence[str] = sample.document_ids if sample.document_ids is not None else sample.documents
    distance, params = scorer_args
    systems = leaderboard_systems(sample)
    alone, scored, results = score_shard(
        sample.references, sample.documents, sample.document_ids, systems, rows, params, **distance
    )
    lines = [excluded_line(keys[i], [i]) for i in alone]
    return lines + [document_line(board, name, doc, scored) for name, r in results.items() for doc in r.documents]


def personalization_states(
    metric: str, path: Path, options: Mapping[str, Any], significance_resamples: int, shard: tuple[int, int]
) -> str:
    """The states file of shard ``shard = (I, N)`` of a perseval / degress leaderboard (``docs/scaling.md`` §2).

    The shard holds the documents :func:`~persona_metrics.personalization.shard_of` gives it (all users of a
    document together); ``persona-metrics merge`` of the N files prints what the unsharded run prints.
    """
    from persona_metrics.datasets.jsonl import read_input_bytes
    from persona_metrics.datasets.personalization import leaderboard_systems, read_personalization_jsonl
    from persona_metrics.personalization.scorer import result_signature
    from persona_metrics.sharding.documents import board_entry
    from persona_metrics.sharding.files import digest, shard_items, states_text

    check_option_names(options, options_of(metric), metric)
    with noted_now():
        sample = read_personalization_jsonl(path)
    keys = sample.document_ids if sample.document_ids is not None else sample.documents
    distance, params_options = DistanceChoice.split(options)
    params_options.setdefault("bootstrap", DEFAULT_BOOTSTRAP)
    with captured_notes() as notes, input_errors(TypeError):
        params = PersevalParams(**params_options)
        board = DistanceChoice(**distance).resolve()
        lines = _shard_lines(sample, shard_items(keys, *shard), (distance, params), board.name)
    header = {
        "command": NAME,
        "metric": metric,
        "input": str(path),
        "input_sha256": digest([read_input_bytes(path)]),
        "num_items": sample.num_items,
        "shard": shard[0],
        "num_shards": shard[1],
        "options": {"options": dict(options), "significance_resamples": significance_resamples},
        "systems": list(leaderboard_systems(sample)),
        "boards": {board.name: board_entry(result_signature(board, params), params)},
        "notes": notes,
    }
    return states_text(header, lines)


def merged_report(merged: MergedStates) -> Report:
    """The leaderboard of a merged sharded run (``persona-metrics merge``), as the unsharded run prints it."""
    header = merged.header
    (results,) = merged.results.values()
    seed = next(iter(results.values())).params
    test = (seed.seed if seed is not None else 0, int(header["options"]["significance_resamples"]))
    board = rank_systems(results, header["metric"], test[1], test[0])
    return personalization_report(header["input"], header["num_items"], board, merged.notes)


def _write_shard(args: argparse.Namespace, options: Mapping[str, Any], resamples: int) -> int:
    """``--shard I/N --states OUT``: write the shard's states (nothing on standard output but one line saying where)."""
    from persona_metrics.commands.per_item import item_states
    from persona_metrics.sharding.files import parse_shard

    if args.states is None or args.micro is not None:
        raise InputError("--shard needs --states OUT.jsonl and takes no --micro; see docs/scaling.md section 2")
    check_option_names(options, options_of(args.metric), args.metric)
    check_output("--states", args.states, [args.file])
    with input_errors():
        shard = parse_shard(args.shard)
        if metric_spec(args.metric).by_document:
            text = personalization_states(args.metric, args.file, options, resamples, shard)
        else:
            text = item_states(args, options, shard)
        write_text(args.states, text)
    sys.stderr.write(
        f"shard {args.shard}: states written to {args.states}; merge the shards with persona-metrics merge\n"
    )
    return 0


def score_file(
    args: argparse.Namespace, options: Mapping[str, Any], resamples: int, baseline: Baseline | None = None
) -> Report:
    """The report of ``args.metric`` on ``args.file`` (``baseline``: perseval / degress only, see :func:`run`)."""
    from persona_metrics.commands.per_item import score_item_file

    if metric_spec(args.metric).by_document:
        return score_personalization_file(args.metric, args.file, options, resamples, baseline)
    check_option_names(options, options_of(args.metric), args.metric)
    return score_item_file(args, options)


def no_baseline(metric: str) -> str | None:
    """Why ``--baseline`` is refused for a per-item metric (None for a leaderboard, which takes one).

    Each scores one system per file, and only persona_quality has a paired comparison in the library.
    """
    if metric_spec(metric).by_document:
        return None
    if metric == PERSONA_QUALITY.name:
        return (
            "a persona_quality FILE holds one system (named after FILE); its paired comparison "
            "(persona_metrics.persona.compare_quality) is persona-metrics cnndm --baseline, or the library on two "
            "results"
        )
    return (
        f"a {metric} FILE holds one system (named after FILE), and the library has no paired comparison of "
        f"{metric} results (compare_personalization: perseval, degress; compare_quality: persona_quality)"
    )


def check_baseline_args(args: argparse.Namespace, baseline: Baseline, resamples: int) -> None:
    """Refuse a ``--baseline`` the run cannot honour (one line each, exit status 2).

    Raises:
        InputError: a per-item metric (:func:`no_baseline`), ``--shard`` (states files keep no comparison),
            ``-q`` (the score only) or ``--significance-resamples 0``.
    """
    refused = no_baseline(args.metric)
    if refused is not None:
        raise InputError(f"--baseline {baseline.system}: {refused}")
    if args.shard is not None or args.states is not None:
        raise InputError("--baseline does not combine with --shard / --states: run it on the whole FILE")
    if args.quiet:
        raise InputError("--baseline prints comparisons and -q the scores only; drop one of them")
    if not resamples:
        raise InputError("--baseline needs resamples for its test: --significance-resamples N with N >= 1")


def check_flags_read(args: argparse.Namespace) -> None:
    """Refuse a flag this run would ignore (one line, exit status 2), before anything is scored.

    Raises:
        InputError: judge flags for a metric without a judge; ``--significance-resamples`` for a metric without a
            leaderboard; ``-q`` without the judge its headline needs; ``-q`` with ``--format``
            (:func:`check_quiet_format`); ``-q`` or ``--format`` with ``--shard`` (it prints nothing: ``merge`` does).
    """
    from persona_metrics.commands.judge_options import judge_flags_given

    spec = metric_spec(args.metric)
    if not spec.judged and (given := judge_flags_given(args)):
        raise InputError(f"{', '.join(given)}: judge options, and {args.metric} has no judge (summary_eval has)")
    if not spec.by_document and args.significance_resamples != DEFAULT_SIGNIFICANCE_RESAMPLES:
        raise InputError(
            f"--significance-resamples: the test between adjacent ranks of a leaderboard (perseval, degress); "
            f"{args.metric} has no leaderboard"
        )
    if args.quiet and spec.judged and args.model is None:
        raise InputError(
            f"-q prints {args.metric}'s {spec.headline}, which needs a judge (-m/--model); without one, drop -q "
            "for the table of the offline scores"
        )
    if args.shard is not None and (args.quiet or args.format != "table"):
        raise InputError("--shard writes states and prints no scores: give -q / --format to persona-metrics merge")
    check_quiet_format(args)


def run(args: argparse.Namespace) -> int:
    """Score, print and (``--micro``) write the per-summary lines; notes go to standard error for JSON and CSV."""
    check_flags_read(args)
    options = parse_options(args.options)
    resamples = check_resamples_option(args.significance_resamples, "--significance-resamples")
    baseline = baseline_request(args)
    if baseline is not None:
        check_baseline_args(args, baseline, resamples)
    if args.shard is not None or args.states is not None:
        if args.shard is None:
            raise InputError("--states is written by --shard I/N; give both")
        return _write_shard(args, options, resamples)
    if args.micro is not None:
        check_output("--micro", args.micro, [args.file])
    with input_errors():
        report = score_file(args, options, resamples, baseline)
        if args.micro is not None:
            write_text(args.micro, jsonl_text(report.micro))
    print_report(report, args.format, args.quiet, metric_spec(args.metric).headline)
    return 0


def print_report(report: Report, fmt: str, quiet: bool, headline: str) -> None:
    """The report on standard output (``quiet``: the ``headline`` score only), its notes on standard error.

    The table carries its notes; JSON, CSV and ``-q`` keep standard output clean, so the notes go to standard error.
    """
    if quiet:
        emit(quiet_text(report.rows, headline))
    else:
        emit(render_rows(report.rows, fmt, report.table))
    if quiet or fmt != "table":
        sys.stderr.writelines(f"note: {n}\n" for n in report.notes)


def main(argv: Sequence[str] | None = None) -> int:
    """``persona-metrics score`` from Python.

    Raises:
        InputError: a malformed line, an unknown option or a value the metric refuses (message names it).
    """
    return run(command_parser(NAME, DESCRIPTION, add_arguments).parse_args(argv))


__all__ = ["DESCRIPTION", "HELP", "NAME", "InputError", "Report", "add_arguments", "main", "options_of", "run"]
