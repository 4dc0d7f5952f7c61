"""Issue 35: one packaged ``score`` sample per metric, every line format in ``score --help``, and ``--baseline``.

Golden sources: the readers of the ``score`` formats (``persona_metrics.commands.per_item.FIELDS`` and the
personalization reader) for the help text; for ``--baseline``, the library's paired tests called directly
(``compare_personalization`` on results of ``PersonalizationScorer``, and ``paired_test`` on the per-article values
that ``cnndm --micro`` writes), whose numbers the commands must print unchanged.
"""

from __future__ import annotations

import csv
import io
import json
import re
import warnings
from pathlib import Path

import pytest

from persona_metrics import PersonaMetricsWarning
from persona_metrics.cli import main
from persona_metrics.commands.docs import DATA
from persona_metrics.formatting import comparison_text, format_interval

ROOT = Path(__file__).resolve().parents[1]
#: The metrics of ``persona-metrics score``.
METRICS = ("perseval", "degress", "persona_style", "persona_quality", "vert", "summary_eval")
#: The fields a line of each metric's file holds (those the readers take; perseval / degress: either predictions
#: or prediction).
LINE_FIELDS: dict[str, tuple[str, ...]] = {
    "perseval": ("document_id", "document", "user_id", "reference", "predictions", "prediction"),
    "degress": ("document_id", "document", "user_id", "reference", "predictions", "prediction"),
    "persona_style": ("prediction", "persona"),
    "persona_quality": ("prediction", "reference", "persona"),
    "vert": ("prediction", "reference"),
    "summary_eval": ("prediction", "source"),
}
#: What ``--baseline`` adds to every row of the JSON / CSV output, in order.
BASELINE_COLUMNS = (
    "baseline",
    "baseline_measure",
    "baseline_test",
    "difference_vs_baseline",
    "ci_low_vs_baseline",
    "ci_high_vs_baseline",
    "p_vs_baseline",
)
#: The seed and resamples of a ``score`` leaderboard's tests unless told (``-o seed``, ``--significance-resamples``).
SCORE_SEED, SCORE_RESAMPLES = 12345, 10_000


def packaged_sample(metric: str) -> Path:
    """The sample of ``metric`` inside the installed package (``persona-metrics docs --data``)."""
    return DATA / "score_samples" / f"{metric}.jsonl"


def run_cli(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def score_help(capsys) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(["score", "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


# --- item 1: a sample per metric, each format in --help --------------------------------------------------------
@pytest.mark.parametrize("metric", METRICS)
def test_score_runs_on_the_packaged_sample_of_every_metric(capsys, metric) -> None:
    """The README's ``rows.jsonl`` / ``pairs.jsonl`` did not exist and only perseval had a sample (old: exit 2,
    no such file). Each sample is small, holds the metric's fields on every line, and scores with exit status 0."""
    path = packaged_sample(metric)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert 5 <= len(lines) <= 12
    required = {f for f in LINE_FIELDS[metric] if f not in ("predictions", "prediction", "user_id", "document_id")}
    assert all(required <= set(line) for line in lines)
    code, out, err = run_cli(capsys, "score", metric, path, "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    if metric in ("perseval", "degress"):
        assert {row["system"] for row in rows} >= {"oracle", "shuffled", *lines[0]["predictions"]}
    else:
        (row,) = rows
        assert row["n"] == len(lines)


def _format_block(help_text: str, metric: str) -> str:
    """The part of ``score --help`` that says what a line of ``metric``'s file holds (up to the next metric)."""
    labels = [m for m in METRICS if m not in ("perseval", "degress")]
    label = "perseval, degress" if metric in ("perseval", "degress") else metric
    start = help_text.index(f"\n  {label}  ")
    others = [help_text.find(f"\n  {other}  ", start + 1) for other in labels if other != metric]
    ends = [i for i in [*others, help_text.find("\n  Personas:", start)] if i > start]
    return help_text[start : min(ends)]


@pytest.mark.parametrize("metric", METRICS)
def test_score_help_shows_the_line_format_of_every_metric(capsys, metric) -> None:
    """``score --help`` had no line for summary_eval (old: its block is missing). Each metric's block names every
    field its reader takes, quoted as in a JSON line; the help also says where the samples are."""
    text = score_help(capsys)
    block = _format_block(text, metric)
    for field in LINE_FIELDS[metric]:
        assert f'"{field}"' in block, (metric, field, block)
    assert "score_samples" in text
    assert "persona-metrics docs --data" in text


# --- item 2: --baseline ---------------------------------------------------------------------------------------
def _library_board(path: Path, metric: str, **params):
    """Every system of the leaderboard scored by the library directly, and a paired test on ``metric``."""
    from persona_metrics.datasets.personalization import leaderboard_systems, read_personalization_jsonl
    from persona_metrics.personalization import PersonalizationScorer

    sample = read_personalization_jsonl(path)
    scorer = PersonalizationScorer(sample.references, sample.documents, sample.document_ids)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PersonaMetricsWarning)
        return {
            name: scorer.score(preds, bootstrap=1000, seed=SCORE_SEED, **params)
            for name, preds in leaderboard_systems(sample).items()
        }


@pytest.mark.parametrize(
    ("metric", "baseline", "method", "measure"),
    [("perseval", "generic", "permutation", "PerSEval"), ("degress", "one_for_all", "bootstrap", "DEGRESS")],
)
def test_score_baseline_prints_the_library_paired_test(capsys, metric, baseline, method, measure) -> None:
    """``score --baseline SYSTEM`` (old: no such option, exit 2): each other system's line is the library's
    ``compare_personalization`` against SYSTEM, its JSON / CSV columns hold the same numbers; the rest of the output
    is what the run without --baseline prints, byte for byte."""
    from persona_metrics.personalization.comparison import compare_personalization

    path = packaged_sample(metric)
    flags = ["--baseline", baseline] + (["--paired-test", method] if method != "permutation" else [])
    code, plain_json, _ = run_cli(capsys, "score", metric, path, "--format", "json")
    assert code == 0
    code, out, err = run_cli(capsys, "score", metric, path, "--format", "json", *flags)
    assert code == 0, err
    rows = json.loads(out)
    results = _library_board(path, metric)
    expected = {
        name: compare_personalization(r, results[baseline], metric, method=method, n_resamples=SCORE_RESAMPLES,
                                      seed=SCORE_SEED)
        for name, r in results.items() if name != baseline
    }  # fmt: skip
    for row in rows:
        assert list(row)[-len(BASELINE_COLUMNS) - 1 : -1] == list(BASELINE_COLUMNS)
        assert (row["baseline"], row["baseline_measure"], row["baseline_test"]) == (baseline, metric, method)
        test = expected.get(row["system"])
        got = [row[c] for c in BASELINE_COLUMNS[3:]]
        if test is None:  # the baseline's own row
            assert got == [None] * 4
        else:
            assert got == [test.difference, test.ci_low, test.ci_high, test.p_value]
            assert (test.ci_low is None) == (method == "permutation")
    plain = json.loads(plain_json)
    assert [{k: v for k, v in row.items() if k not in BASELINE_COLUMNS} for row in rows] == plain

    code, table, _ = run_cli(capsys, "score", metric, path, *flags)
    assert code == 0
    code, plain_table, _ = run_cli(capsys, "score", metric, path)
    for name, test in expected.items():
        line = f"- {comparison_text(name, baseline, test.difference, test.p_value, measure)}"
        if test.ci_low is not None:
            line += f", 95% CI of Δ {format_interval(test.ci_low, test.ci_high)}"
        assert line + "\n" in table
    heading = next(line for line in table.splitlines() if line.startswith("Against the baseline"))
    assert f"Against the baseline {baseline}: paired {method} test on per-document {measure}" in heading
    assert f"seed {SCORE_SEED}" in heading
    section = table[table.index("\nAgainst the baseline") : table.index("\ndocuments scored:")]
    assert table.replace(section, "") == plain_table

    code, out, _ = run_cli(capsys, "score", metric, path, "--format", "csv", *flags)
    assert code == 0
    csv_rows = list(csv.DictReader(io.StringIO(out)))
    for got, row in zip(csv_rows, rows, strict=True):
        assert list(got)[-len(BASELINE_COLUMNS) - 1 : -1] == list(BASELINE_COLUMNS)
        for column in BASELINE_COLUMNS[3:]:
            assert (got[column] == "") if row[column] is None else (float(got[column]) == row[column])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["perseval", "one-system", "--baseline", "mine"], None),
        (["perseval", "perseval", "--baseline", "generik"], "--baseline generik: no such system in {path}; its "
         "systems: oracle, generic, tailored, shuffled"),
        (["vert", "vert", "--baseline", "x"], "--baseline x: a vert FILE holds one system (named after FILE), and the "
         "library has no paired comparison of vert results"),
        (["persona_style", "persona_style", "--baseline", "x"], "library has no paired comparison of persona_style"),
        (["summary_eval", "summary_eval", "--baseline", "x"], "library has no paired comparison of summary_eval"),
        (["persona_quality", "persona_quality", "--baseline", "x"], "--baseline x: a persona_quality FILE holds one "
         "system"),
        (["perseval", "perseval", "--paired-test", "bootstrap"], "--paired-test is the test of --baseline SYSTEM"),
        (["perseval", "perseval", "--baseline", "generic", "-q"], "--baseline prints comparisons and -q"),
        (["perseval", "perseval", "--baseline", "generic", "--significance-resamples", "0"], "--baseline needs "
         "resamples"),
        (["perseval", "perseval", "--baseline", "generic", "--shard", "1/2", "--states", "s.jsonl"], "--baseline does "
         "not combine with --shard"),
    ],
)  # fmt: skip
def test_score_baseline_refusals_are_one_line_with_status_2(capsys, tmp_path, args, message) -> None:
    """An unknown system, a single-system metric (saying whether the library has a paired test for it) and the
    options --baseline cannot go with: one line, exit status 2 (old: argparse's "unrecognized arguments")."""
    metric, sample, *rest = args
    if sample == "one-system":  # a perseval file of "prediction" lines: one system (no oracle, no shuffled)
        rows = [json.loads(line) for line in packaged_sample("perseval").read_text(encoding="utf-8").splitlines()]
        path = tmp_path / "mine.jsonl"
        lines = [{**{k: v for k, v in r.items() if k != "predictions"}, "prediction": r["predictions"]["tailored"]}
                 for r in rows]  # fmt: skip
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        message = "--baseline mine: {path} has a single system (mine); a paired comparison needs two or more"
    else:
        path = packaged_sample(sample)
    rest = [str(tmp_path / a) if a == "s.jsonl" else a for a in rest]
    code, out, err = run_cli(capsys, "score", metric, path, *rest)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("persona-metrics score: error: ")
    assert message.format(path=path) in err
    assert not (tmp_path / "s.jsonl").exists()


def test_pens_baseline_prints_the_library_paired_test(capsys, tmp_path) -> None:
    """``pens --baseline MODEL`` (old: no such option): one line per (distance, model) in the report and the columns
    in leaderboard.csv / .json, each the library's ``compare_personalization`` on per-document PerSEval; an unknown
    model is one line and exit status 2."""
    from persona_metrics.datasets.pens import baseline_predictions, load_pens
    from persona_metrics.personalization import PersonalizationScorer
    from persona_metrics.personalization.comparison import compare_personalization

    pens = ROOT / "data" / "pens_sample"
    out_dir = tmp_path / "out"
    args = ["pens", pens, "--bootstrap", "0", "--no-plot", "--distance", "rougeL", "jsd", "--significance-resamples"]
    code, report, err = run_cli(capsys, *args, "2000", "--baseline", "headline", "--paired-test", "bootstrap",
                                "--out", out_dir)  # fmt: skip
    assert code == 0, err
    ds = load_pens(pens)
    rows = json.loads((out_dir / "leaderboard.json").read_text(encoding="utf-8"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PersonaMetricsWarning)
        for distance in ("rougeL", "jsd"):
            scorer = PersonalizationScorer(ds["reference"], ds["document"], ds["news_id"], distance=distance)
            models = ("oracle", "headline", "lead", "shuffled", "history")
            results = {name: scorer.score(baseline_predictions(ds, name), seed=0) for name in models}
            for row in (r for r in rows if r["distance"] == distance):
                assert list(row)[-len(BASELINE_COLUMNS) - 1 : -1] == list(BASELINE_COLUMNS)
                if row["model"] == "headline":
                    assert row["p_vs_baseline"] is None
                    continue
                test = compare_personalization(results[row["model"]], results["headline"], "perseval",
                                               method="bootstrap", n_resamples=2000, seed=0)  # fmt: skip
                got = [row[c] for c in BASELINE_COLUMNS[3:]]
                assert got == [test.difference, test.ci_low, test.ci_high, test.p_value]
                line = comparison_text(row["model"], "headline", test.difference, test.p_value, "PerSEval")
                assert f"- {distance}: {line}, 95% CI of Δ {format_interval(test.ci_low, test.ci_high)}\n" in report
    assert "## Against the baseline headline: paired bootstrap test on per-document PerSEval" in report
    header = (out_dir / "leaderboard.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header.endswith(",".join(BASELINE_COLUMNS) + ",signature")

    code, out, err = run_cli(capsys, "pens", pens, "--baseline", "headlines")
    assert (code, out) == (2, "")
    assert err == (
        "persona-metrics pens: error: --baseline headlines: no such system in the PENS models; its systems: oracle, "
        "headline, lead, shuffled, history\n"
    )


def test_cnndm_baseline_prints_the_library_paired_test(capsys, tmp_path) -> None:
    """``cnndm --baseline SYSTEM`` (old: no such option): the paired test of persona_quality's per-article
    overall_quality against SYSTEM, as the library's ``paired_test`` gives it on the values ``--micro`` writes; the
    table says SummaryEval is not compared; an unknown system is one line and exit status 2. Two articles, the fewest
    on which the tests say anything (on one, the permutation p is 1 and the bootstrap interval a point)."""
    from persona_metrics.significance import paired_test

    micro = tmp_path / "micro.jsonl"
    code, out, err = run_cli(capsys, "cnndm", "-n", "2", "--bootstrap", "0", "--format", "json", "--micro", micro,
                             "--baseline", "lead3")  # fmt: skip
    assert code == 0, err
    rows = json.loads(out)
    per_item: dict[str, list[float]] = {}
    for line in micro.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        per_item.setdefault(item["system"], []).append(item["overall_quality"])
    for row in rows:
        assert list(row)[-len(BASELINE_COLUMNS) :] == list(BASELINE_COLUMNS)
        assert (row["baseline"], row["baseline_measure"], row["baseline_test"]) == (
            "lead3",
            "overall_quality",
            "permutation",
        )
        if row["system"] == "lead3":
            assert row["p_vs_baseline"] is None
            continue
        test = paired_test(per_item[row["system"]], per_item["lead3"], seed=0)
        assert row["difference_vs_baseline"] == pytest.approx(test.difference, rel=1e-12, abs=1e-15)
        assert row["p_vs_baseline"] == test.p_value
        assert row["ci_low_vs_baseline"] is None

    code, table, err = run_cli(capsys, "cnndm", "-n", "2", "--bootstrap", "0", "--baseline", "random3",
                               "--paired-test", "bootstrap")  # fmt: skip
    assert code == 0, err
    assert "Against the baseline random3: paired bootstrap test on per-article persona_quality overall_quality" in table
    assert re.search(r"^- lead3 [<>=] random3, p = .+, 95% CI of Δ \[", table, flags=re.MULTILINE)
    assert "SummaryEval is not compared: the library has no paired test of SummaryEval results." in table

    code, out, err = run_cli(capsys, "cnndm", "-n", "2", "--baseline", "lead4")
    assert (code, out) == (2, "")
    assert err == (
        "persona-metrics cnndm: error: --baseline lead4: no such system in the CNN/DM systems; its systems: lead3, "
        "random3, reference\n"
    )
