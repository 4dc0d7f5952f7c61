"""``persona-metrics cnndm``: persona quality (journalist) and SummaryEval of summarizers on CNN/DailyMail."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from persona_metrics.commands.judge_options import add_judge_arguments, judge_failure, make_judge
from persona_metrics.commands.output import (
    Baseline,
    add_baseline_arguments,
    add_format_argument,
    add_micro_argument,
    add_shard_arguments,
    baseline_fields,
    baseline_heading,
    baseline_line,
    baseline_request,
    check_baseline_system,
    check_outputs,
    command_parser,
    emit,
    input_errors,
    item_rows,
    jsonl_text,
    markdown_table,
    merge_intervals,
    render_rows,
    write_text,
)
from persona_metrics.persona.spec import PERSONA_QUALITY
from persona_metrics.summary_eval.judge import OnVerdict, Verdict
from persona_metrics.summary_eval.judge_client import JudgeError
from persona_metrics.summary_eval.results_log import ResultsLog
from persona_metrics.summary_eval.rubrics import get_rubric
from persona_metrics.summary_eval.scorer import NO_JUDGE_NOTE
from persona_metrics.summary_eval.spec import SUMMARY_EVAL

if TYPE_CHECKING:
    from persona_metrics.sharding.items import MergedItems
    from persona_metrics.significance import PairedTest

NAME = "cnndm"
HELP = "persona quality (journalist) and SummaryEval of lead-3, random-3 and prediction files on CNN/DailyMail"
#: The persona CNN/DM highlights are scored against.
PERSONA = "journalist"
#: The persona_quality component ``--baseline`` compares (SummaryEval results have no paired test in the library).
BASELINE_MEASURE = "overall_quality"
#: The shipped sample (16 test articles), the default data: package data (``persona_metrics/data``), in the wheel.
SAMPLE = Path(__file__).resolve().parents[1] / "data" / "cnndm_sample" / "test.jsonl"

DESCRIPTION = """Score summarizers on CNN/DailyMail and print the mean of each component per system, with the
signatures: persona_quality for the journalist persona (against the highlights) and SummaryEval (against the
article): completeness, coherence and consistency always (offline), accuracy and overall with an LLM judge
(-m/--model, and --base-url for any OpenAI-compatible server). Without a judge the accuracy and overall columns
are empty (null in JSON) and a note says why on standard error; standard output stays clean CSV / JSON.

Every persona_quality mean comes with a 95% bootstrap interval over the articles (--bootstrap resamples, seeded
by --seed; <key>_ci_low / <key>_ci_high in JSON / CSV, "mean [low, high]" in the table).

--micro PATH also writes the per-summary (micro) scores as JSON lines: one line per (system, article) with
system, item (the article's index), id, the persona_quality components (overall_quality, content_quality,
style_similarity, rougeLsum, bertscore_f1, band), the SummaryEval scores (accuracy, completeness, coherence,
overall; null without a judge; consistency, unsupported_facts, checked_facts), signature and
summary_eval_signature.

Data (columns article, highlights, id, as abisee/cnn_dailymail 3.0.0):
  default        the shipped sample data/cnndm_sample/test.jsonl (16 articles, offline; installed with the
                 package: "persona-metrics docs --data" prints where)
  --data-files   local parquet files, or JSON-lines files with one {"article", "highlights", "id"} per line
  --hub          the test split from the Hugging Face Hub (needs network)
Systems: lead3 (first three sentences), random3 (three seeded random sentences), reference (the highlights
against themselves: a sanity row) and prediction files given with --predictions: JSON lines
{"id": "<article id>", "prediction": "<summary>"}, one per article; the file stem names the system.

--baseline SYSTEM (lead3, random3, reference or a prediction file's stem) compares every other system with SYSTEM
by the library's paired test on the per-article persona_quality overall_quality (compare_quality; --paired-test
permutation, the default, or bootstrap with the 95% interval of the difference, as sacrebleu's --paired-bs; the
library's default resamples, 10000 and 1000, seeded by --seed): one line per system under the table, and in JSON /
CSV the columns baseline, baseline_measure, baseline_test, difference_vs_baseline, ci_low_vs_baseline,
ci_high_vs_baseline and p_vs_baseline on every row (null on the baseline's own). SummaryEval is not compared: the
library has no paired test of SummaryEval results.

--shard I/N --states OUT.jsonl scores only the I-th of N contiguous blocks of the sampled articles (every shard
samples the same articles: same data, -n and --seed) and writes its per-article states instead of printing;
"persona-metrics merge" of the N files prints exactly what the unsharded run prints, intervals and signatures
included (docs/scaling.md section 2).

The judge rates with a rubric of the registry (--rubric; the default, accuracy, is the original's 0-3 scale;
coherence, consistency, fluency and relevance are G-Eval's, with --scoring weighted for G-Eval's weighting),
asks for structured output and accepts only a well-formed {"score": <on the rubric's scale>, "rationale": ...}
answer; anything else is invalid: left out of the accuracy and overall means and counted in num_invalid (a warning
shows the first one). Valid answers are cached on disk by default (<cache>/judge, where <cache> is
$PERSONA_METRICS_CACHE or ~/.cache/persona_metrics; --cache-dir elsewhere, --no-cache for none), so a rerun asks
only for what is missing. --out PATH appends one JSON line per judged item, flushed as it finishes (system, item,
id, status, accuracy, score, rationale, key and the raw answer, then a check over the line); a rerun with the same
--out reads the valid answers back, so a run that was killed or failed resumes where it stopped and ends with the
numbers of an uninterrupted run, even with --no-cache. A line edited by hand, cut short or written without a check
(by an older version) is not reused: its item is judged again, with a warning naming FILE:LINE. A judge failure
prints one line and exits with status 2; finished items stay saved. A judge that has not passed "persona-metrics
judge-check" (same model, server and rubric) gets a warning: check it first.

examples:
  persona-metrics cnndm -n 16 --seed 0
  persona-metrics cnndm --data-files test.parquet -n 1000 --format csv
  persona-metrics cnndm --predictions my_model.jsonl --format json
  persona-metrics cnndm -n 16 --baseline lead3 --paired-test bootstrap
  persona-metrics cnndm -n 8 -f csv --base-url http://127.0.0.1:8080/v1 -m smollm2 --out judged.jsonl
  persona-metrics cnndm -n 8 --base-url http://127.0.0.1:8080/v1 -m smollm2 --concurrency 1 --timeout 600
  persona-metrics cnndm -n 1000 --shard 2/4 --states c2.jsonl    (then: persona-metrics merge c1.jsonl ... c4.jsonl)

A local server that answers one request at a time wants --concurrency 1 (requests queued behind others count
against --timeout). Judge key: the environment variable named by --api-key-env (default OPENAI_API_KEY); a
--base-url on this machine (127.0.0.1, ::1, localhost) needs none (local servers run without authentication).
Credentials in --base-url (user:password@, ?key=value) are sent to the server and shown nowhere.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Sample size, seed, format, data source and prediction files."""
    parser.add_argument("-n", "--sample-size", type=int, default=None, help="articles to score (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="sampling, random3 and bootstrap seed")
    parser.add_argument(
        "--bootstrap", type=int, default=1000, help="article resamples for the 95%% intervals (0: none; default 1000)"
    )
    add_format_argument(parser, "-f", "--format")
    add_micro_argument(parser, "see above")
    parser.add_argument("--data-files", nargs="*", type=Path, default=None, help="local parquet or JSON lines")
    parser.add_argument("--hub", action="store_true", help="load the test split from the Hub (needs network)")
    parser.add_argument("--predictions", nargs="*", type=Path, default=[], help="JSON lines {id, prediction}")
    add_baseline_arguments(
        parser,
        "lead3, random3, reference or a prediction file's stem",
        "the per-article persona_quality overall_quality (SummaryEval has no paired test in the library)",
        "the library's default resamples, seeded by --seed",
    )
    add_shard_arguments(parser, "the I-th of N contiguous blocks of the sampled articles; docs/scaling.md section 2")
    judge = add_judge_arguments(parser, "SummaryEval accuracy judge (optional)", model_required=False)
    judge.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="PATH",
        help="append per-item judge results to PATH as JSON lines as they finish; a rerun resumes from them",
    )


@dataclass(frozen=True)
class Benchmark:
    """The sampled articles and every system's summaries of them, aligned."""

    articles: list[str]
    references: list[str]
    ids: list[str]
    systems: dict[str, list[str]]


def load_systems(args: argparse.Namespace) -> Benchmark:
    """The articles, the references (highlights), their ids and every system's summaries, aligned."""
    from persona_metrics.datasets.cnndm import baseline_summaries, load_cnndm, read_predictions
    from persona_metrics.significance import check_seed

    check_seed(args.seed)  # before the shuffle, which would take any integer
    ds = load_cnndm(None if args.hub else (args.data_files or [SAMPLE]), hub=args.hub)
    if args.sample_size is not None and args.sample_size < ds.num_rows:
        ds = ds.shuffle(seed=args.seed).select(range(args.sample_size))
    refs, ids = list(ds["highlights"]), [str(i) for i in ds["id"]]
    systems = baseline_summaries(list(ds["article"]), refs, seed=args.seed)
    for path in args.predictions:
        systems[path.stem] = read_predictions(path, ids)
    return Benchmark(list(ds["article"]), refs, ids, systems)


def _recorder(results: ResultsLog, system: str, ids: list[str], rows: Sequence[int]) -> OnVerdict:
    """Append one ``--out`` line per judged item of ``system`` (item ``k`` of the scored ``rows`` is ``rows[k]``)."""

    def record(item: int, verdict: Verdict) -> None:
        results.append({"system": system, "item": rows[item], "id": ids[rows[item]], **verdict.record()})

    return record


def score_results(
    bench: Benchmark,
    rows: Sequence[int],
    judge: Any = None,
    options: tuple[int, int] = (0, 0),
    results: ResultsLog | None = None,
) -> dict[str, tuple[Any, Any]]:
    """``{system: (persona_quality result, SummaryEval result)}`` over the articles at ``rows``.

    ``options`` is ``(bootstrap, seed)`` of persona_quality's intervals. With ``results``, each judged item is
    appended to it as soon as it is judged.
    """
    from persona_metrics.persona.quality import score_quality
    from persona_metrics.summary_eval import SummaryEvalScorer

    if not rows:  # a shard past the last article
        return {}
    summary_eval = SummaryEvalScorer(judge)
    articles, refs = [bench.articles[i] for i in rows], [bench.references[i] for i in rows]
    scored = {}
    for name, summaries in bench.systems.items():
        preds = [summaries[i] for i in rows]
        quality = score_quality(preds, refs, [PERSONA] * len(preds), bootstrap=options[0], seed=options[1])
        on_verdict = _recorder(results, name, bench.ids, rows) if results is not None and judge is not None else None
        scored[name] = (quality, summary_eval.score(preds, articles, on_verdict=on_verdict))
    return scored


def system_rows(scored: dict[str, tuple[Any, Any]], judged: bool) -> list[dict[str, Any]]:
    """One row per system, laid out from its two results.

    A row: name, articles, persona_quality means (with their intervals) and signature, SummaryEval means and
    signature (and ``num_invalid`` with a judge).
    """
    rows = []
    for name, (quality, se) in scored.items():
        row = {"system": name, "n": len(se), **quality.as_dict(), "signature": quality.signature}
        row |= {**se.means(), "summary_eval_signature": se.signature}
        if judged:
            row["num_invalid"] = se.num_invalid
        rows.append(row)
    return rows


def micro_rows(scored: dict[str, tuple[Any, Any]], ids: Sequence[str]) -> list[dict[str, Any]]:
    """One ``--micro`` row per (system, article): the id, every per-item value and both signatures."""
    micro = []
    for name, (quality, se) in scored.items():
        columns = {"id": list(ids), **quality.per_item(), **se.per_item()}
        micro += item_rows(columns, system=name, signature=quality.signature, summary_eval_signature=se.signature)
    return micro


def score_systems(
    bench: Benchmark, judge: Any = None, bootstrap: int = 0, seed: int = 0, results: ResultsLog | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One row per system and one micro row per (system, article), over every article of ``bench``."""
    scored = score_results(bench, range(len(bench.ids)), judge, (bootstrap, seed), results)
    return system_rows(scored, judge is not None), micro_rows(scored, bench.ids)


def _judged(
    args: argparse.Namespace, rows_of: Callable[[Benchmark], Sequence[int]]
) -> tuple[Benchmark, dict[str, tuple[Any, Any]], Any]:
    """The benchmark, the scored results of its articles at ``rows_of(benchmark)`` and the judge.

    ``--out`` is read back for the judge, then appended to as items finish.

    Raises:
        ValueError: --out without a judge, or a bad judge option.
        InputError: a judge failure (one line, saying where the finished items are).
    """
    if args.model is None and args.out is not None:
        raise ValueError("--out records the judge's per-item results: it needs a judge (-m/--model)")
    results = ResultsLog(args.out) if args.out is not None else None
    judge = make_judge(args, results.answers(get_rubric(args.rubric)) if results is not None else None)
    try:
        bench = load_systems(args)
        baseline = baseline_request(args)
        if baseline is not None:  # before the scoring
            check_baseline_system(baseline, list(bench.systems), "the CNN/DM systems")
        scored = score_results(bench, rows_of(bench), judge, (args.bootstrap, args.seed), results)
    except JudgeError as err:
        raise judge_failure(err, judge, args.out if results is not None else None) from err
    finally:
        if results is not None:
            results.close()
    return bench, scored, judge


def baseline_tests(scored: dict[str, tuple[Any, Any]], baseline: Baseline, seed: int) -> dict[str, PairedTest]:
    """``{system: test}``: the library's paired test of each other system's persona_quality against ``baseline``'s."""
    from persona_metrics.persona.comparison import compare_quality

    base = scored[baseline.system][0]
    return {
        name: compare_quality(quality, base, BASELINE_MEASURE, method=baseline.method, seed=seed)
        for name, (quality, _) in scored.items()
        if name != baseline.system
    }


def baseline_output(rows: list[dict[str, Any]], fmt: str, baseline: Baseline, tests: dict[str, PairedTest]) -> str:
    """The output with ``--baseline``: the table and one line per system under it, or the rows with the columns."""
    if fmt == "table":
        first = next(iter(tests.values()))
        lines = [baseline_heading(baseline.system, first, f"persona_quality {BASELINE_MEASURE}", "article")]
        lines += [f"- {baseline_line(name, baseline.system, t, BASELINE_MEASURE)}" for name, t in tests.items()]
        lines.append("SummaryEval is not compared: the library has no paired test of SummaryEval results.")
        return output_text(rows, fmt) + "\n" + "\n".join(lines) + "\n"
    columns = {
        name: baseline_fields(baseline.system, BASELINE_MEASURE, baseline.method, t) for name, t in tests.items()
    }
    own = baseline_fields(baseline.system, BASELINE_MEASURE, baseline.method, None)
    return output_text([{**row, **columns.get(row["system"], own)} for row in rows], fmt)


def output_text(rows: list[dict[str, Any]], fmt: str) -> str:
    """The systems' rows as a table (means with their intervals, then both signatures), JSON or CSV."""
    signatures = ("signature", "summary_eval_signature")
    shown = [merge_intervals({k: v for k, v in row.items() if k not in signatures}) for row in rows]
    table = markdown_table(shown) + "".join(f"\n\n{k}: {rows[0][k]}" for k in signatures) + "\n"
    return render_rows(rows, fmt, table)


def _notes(judged: bool) -> list[str]:
    """What standard error says after the output."""
    return [] if judged else [f"{NO_JUDGE_NOTE}; here: -m/--model (and --base-url)"]


def _input_name(args: argparse.Namespace) -> str:
    """The data as the command line named it (the same on every machine for the shipped sample)."""
    if args.hub:
        return "hub"
    return " ".join(str(path) for path in args.data_files) if args.data_files else "sample"


def shard_states(
    args: argparse.Namespace, bench: Benchmark, scored: dict[str, tuple[Any, Any]], shard: tuple[int, int]
) -> str:
    """The states file of shard ``shard = (I, N)``: every system's two results over the shard's articles."""
    import json

    from persona_metrics.sharding.files import digest, shard_block, states_text
    from persona_metrics.sharding.items import item_state_lines

    block = shard_block(len(bench.ids), *shard)
    content = json.dumps([bench.articles, bench.references, bench.ids, bench.systems]).encode("utf-8")
    lines = []
    for name, (quality, se) in scored.items():
        lines += item_state_lines(name, PERSONA_QUALITY.name, quality, block)
        lines += item_state_lines(name, SUMMARY_EVAL.name, se, block)
    header = {
        "command": NAME,
        "metric": NAME,
        "input": _input_name(args),
        "input_sha256": digest([content]),
        "num_items": len(bench.ids),
        "shard": shard[0],
        "num_shards": shard[1],
        "options": {"bootstrap": args.bootstrap, "seed": args.seed, "judged": args.model is not None},
        "systems": list(bench.systems),
        "results": [PERSONA_QUALITY.name, SUMMARY_EVAL.name],
        "notes": [],
    }
    return states_text(header, lines)


def _write_shard(args: argparse.Namespace) -> int:
    """``--shard I/N --states OUT``: score the shard's block of articles and write its states."""
    from persona_metrics.sharding.files import parse_shard, shard_block

    if args.shard is None:
        raise ValueError("--states is written by --shard I/N; give both")
    if args.states is None or args.micro is not None:
        raise ValueError("--shard needs --states OUT.jsonl and takes no --micro; see docs/scaling.md section 2")
    shard = parse_shard(args.shard)
    bench, scored, _ = _judged(args, lambda bench: shard_block(len(bench.ids), *shard))
    write_text(args.states, shard_states(args, bench, scored, shard))
    sys.stderr.write(
        f"shard {args.shard}: states written to {args.states}; merge the shards with persona-metrics merge\n"
    )
    return 0


def merged_output(merged: MergedItems, fmt: str) -> tuple[str, list[str]]:
    """The output of a merged sharded run (``persona-metrics merge``) and its notes, as the unsharded run's."""
    header = merged.header
    scored = {
        name: (merged.results[name][PERSONA_QUALITY.name], merged.results[name][SUMMARY_EVAL.name])
        for name in header["systems"]
    }
    judged = bool(header["options"]["judged"])
    return output_text(system_rows(scored, judged), fmt), _notes(judged)


def run(args: argparse.Namespace) -> int:
    """Load, score, print in the chosen format and (``--micro``) write the per-summary lines; or write a shard."""
    inputs = [*(args.data_files or []), *(args.predictions or [])]
    check_outputs({"--states": args.states, "--micro": args.micro, "--out": args.out}, inputs)
    with input_errors():
        if args.bootstrap < 0 or args.bootstrap == 1:
            raise ValueError(f"--bootstrap must be 0 (off) or at least 2 resamples, got {args.bootstrap}")
        if args.shard is not None or args.states is not None:
            if args.baseline is not None:
                raise ValueError("--baseline does not combine with --shard / --states: run it on all the articles")
            return _write_shard(args)
        baseline = baseline_request(args)
        bench, scored, judge = _judged(args, lambda bench: range(len(bench.ids)))
        rows = system_rows(scored, judge is not None)
        if args.micro is not None:
            write_text(args.micro, jsonl_text(micro_rows(scored, bench.ids)))
        if baseline is None:
            text = output_text(rows, args.format)
        else:
            text = baseline_output(rows, args.format, baseline, baseline_tests(scored, baseline, args.seed))
    emit(text)
    sys.stderr.writelines(f"note: {note}\n" for note in _notes(judge is not None))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``persona-metrics cnndm`` from Python.

    Raises:
        InputError: a missing column, a bad data file, a prediction file without every article (named), or a judge
            failure (one line).
    """
    return run(command_parser(NAME, DESCRIPTION, add_arguments).parse_args(argv))
