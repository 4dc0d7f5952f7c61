"""The ``persona-metrics`` command line against the library called directly, on the shipped data.

Golden source: the library functions (``score_personalization``, ``PersonalizationScorer``, ``score_style``,
``score_quality``, ``stability``); the commands only lay their numbers out.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from persona_metrics import PersonaMetricsWarning
from persona_metrics.cli import main
from persona_metrics.datasets.personalization import read_personalization_jsonl, shuffled_references
from persona_metrics.formatting import format_estimate, format_score

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "personalization_sample" / "sample.jsonl"
PENS = ROOT / "data" / "pens_sample"
CNNDM = ROOT / "data" / "cnndm_sample" / "test.jsonl"
FINANCIAL = ROOT / "data" / "financial_sample"
SYSTEM_KEYS = ("perseval", "degress", "egises", "edp", "accuracy_distance", "p_accuracy")


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def sample_rows() -> list[dict]:
    return [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def rotate_within_documents(refs: list[str], ids: list[str]) -> list[str]:
    """An independent "shuffled" baseline for the comparison: user k gets user k-1's reference."""
    out = list(refs)
    for doc in dict.fromkeys(ids):
        idx = [i for i, d in enumerate(ids) if d == doc]
        for k, i in enumerate(idx):
            out[i] = refs[idx[k - 1]]
    return out


@pytest.fixture(scope="module")
def direct_personalization() -> dict:
    """Every system of the sample scored with ``score_personalization``, as the old script did."""
    from persona_metrics.personalization import score_personalization

    rows = sample_rows()
    refs, docs, ids = [r["reference"] for r in rows], [r["document"] for r in rows], [r["document_id"] for r in rows]
    systems = {"oracle": refs, "shuffled": rotate_within_documents(refs, ids)}
    for model in sorted({m for r in rows for m in r["predictions"]}):
        systems[model] = [r["predictions"][model] for r in rows]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PersonaMetricsWarning)
        return {
            name: score_personalization(preds, refs, docs, ids, distance="rougeL", beta=1.7, bootstrap=1000)
            for name, preds in systems.items()
        }


# --- score perseval / degress --------------------------------------------------------------------------------
def test_score_perseval_json_matches_the_library(capsys, direct_personalization) -> None:
    code, out, _ = run_cli(capsys, "score", "perseval", SAMPLE, "--format", "json")
    assert code == 0
    rows = json.loads(out)
    assert [r["system"] for r in rows] == sorted(
        direct_personalization, key=lambda n: -direct_personalization[n].perseval
    )
    assert {r["system"] for r in rows} == {"oracle", "personalized", "generic", "shuffled"}
    for row in rows:
        res = direct_personalization[row["system"]]
        for key in SYSTEM_KEYS:
            assert row[key] == getattr(res, key), (row["system"], key)
        assert (row["perseval_ci_low"], row["perseval_ci_high"]) == res.intervals["perseval"]
        assert (row["num_documents"], row["num_excluded_documents"]) == (9, 1)
        assert row["signature"] == res.signature
        assert row["signature"].endswith("|persona_metrics:0.1.0")


def test_score_perseval_table_is_the_leaderboard(capsys, direct_personalization) -> None:
    from persona_metrics.personalization.comparison import compare_personalization

    code, out, _ = run_cli(capsys, "score", "perseval", SAMPLE)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"# Personalization leaderboard: {SAMPLE} (32 summaries per model)"
    ranked = sorted(direct_personalization, key=lambda n: -direct_personalization[n].perseval)
    for rank, name in enumerate(ranked, start=1):
        r = direct_personalization[name]
        test = (
            compare_personalization(r, direct_personalization[ranked[rank]], seed=12345) if rank < len(ranked) else None
        )
        cells = [
            str(rank),
            name,
            format_estimate(r.perseval, *r.intervals["perseval"]),
            format_estimate(r.degress, *r.intervals["degress"]),
            *(format_score(v) for v in (r.egises, r.p_accuracy, r.accuracy_distance)),
            format_score(test and test.p_value),
        ]
        assert "| " + " | ".join(cells) + " |" in lines
        if test is not None:  # 9 documents: the test enumerates all 2**9 sign patterns
            line = f"- {name} > {ranked[rank]}, p = {format_score(test.p_value)} (Δ PerSEval = "
            assert any(x.startswith(line) for x in lines), line
    assert any("paired permutation test on per-document PerSEval" in x and "exact over 512" in x for x in lines)
    assert "documents scored: 9, excluded (one reference): 1" in lines
    assert any(line.startswith("note: 1 of 10 documents have a single reference") for line in lines)
    assert lines[-1] == f"signature: {direct_personalization['oracle'].signature}"


def test_score_degress_ranks_by_degress_and_takes_options(capsys) -> None:
    from persona_metrics.personalization import score_personalization

    code, out, _ = run_cli(
        capsys,
        "score",
        "degress",
        SAMPLE,
        "-f",
        "csv",
        "-o",
        "distance=jsd",
        "-o",
        "bootstrap=0",
        "-o",
        "p_acc_beta=0.5",
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [float(r["degress"]) for r in rows] == sorted((float(r["degress"]) for r in rows), reverse=True)
    data = sample_rows()
    refs, docs, ids = [r["reference"] for r in data], [r["document"] for r in data], [r["document_id"] for r in data]
    preds = [r["predictions"]["personalized"] for r in data]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PersonaMetricsWarning)
        direct = score_personalization(preds, refs, docs, ids, distance="jsd", p_acc_beta=0.5)
    row = next(r for r in rows if r["system"] == "personalized")
    assert float(row["degress"]) == direct.degress
    assert float(row["p_accuracy"]) == direct.p_accuracy
    assert "perseval_ci_low" not in row
    assert row["signature"] == direct.signature


def test_score_single_prediction_field_is_one_system(capsys, tmp_path: Path, direct_personalization) -> None:
    rows = [
        {k: v for k, v in r.items() if k != "predictions"} | {"prediction": r["predictions"]["personalized"]}
        for r in sample_rows()
    ]
    path = write_jsonl(tmp_path / "mymodel.jsonl", rows)
    code, out, err = run_cli(capsys, "score", "perseval", path, "--format", "json")
    assert code == 0
    (row,) = json.loads(out)
    assert row["system"] == "mymodel"
    for key in SYSTEM_KEYS:
        assert row[key] == getattr(direct_personalization["personalized"], key)
    assert "single reference" in err  # the data note goes to stderr with --format json


def test_score_groups_by_document_text_without_ids(capsys, tmp_path: Path, direct_personalization) -> None:
    rows = [{k: v for k, v in r.items() if k != "document_id"} for r in sample_rows()]
    code, out, _ = run_cli(capsys, "score", "perseval", write_jsonl(tmp_path / "s.jsonl", rows), "-f", "json")
    assert code == 0
    by = {r["system"]: r for r in json.loads(out)}
    assert by["shuffled"]["perseval"] == direct_personalization["shuffled"].perseval


def test_score_micro_jsonl(capsys, tmp_path: Path, direct_personalization) -> None:
    micro = tmp_path / "sub" / "micro.jsonl"
    code, _, _ = run_cli(capsys, "score", "perseval", SAMPLE, "--micro", micro, "-f", "json")
    assert code == 0
    lines = [json.loads(line) for line in micro.read_text().splitlines()]
    rows = sample_rows()
    assert len(lines) == 4 * 31  # 4 systems x the 31 lines of documents with two or more references
    for x in lines:
        res = direct_personalization[x["system"]]
        for key in ("perseval", "degress", "edp", "accuracy_distance"):
            assert x[key] == res.per_summary(key)[x["item"]], key
        assert (x["document_id"], x["user_id"]) == (rows[x["item"]]["document_id"], rows[x["item"]]["user_id"])
        assert x["signature"] == res.signature


def test_score_significance_can_be_off(capsys) -> None:
    code, out, _ = run_cli(capsys, "score", "degress", SAMPLE, "-f", "json", "--significance-resamples", "0")
    assert code == 0
    assert all(r["p_vs_next"] is None and r["next_system"] is None for r in json.loads(out))


# --- score persona_style / persona_quality -------------------------------------------------------------------
@pytest.fixture(scope="module")
def financial_items() -> pd.DataFrame:
    from persona_metrics.datasets.financial import read_article_dir, summary_items

    return summary_items(read_article_dir(FINANCIAL)[0]).iloc[:6]


def test_score_persona_style_matches_the_library(capsys, tmp_path: Path, financial_items) -> None:
    from persona_metrics.persona.style import score_style

    rows = [
        {"prediction": p, "persona": q}
        for p, q in zip(financial_items.prediction, financial_items.persona, strict=True)
    ]
    path = write_jsonl(tmp_path / "style.jsonl", rows)
    code, out, _ = run_cli(capsys, "score", "persona_style", path, "-f", "json", "-o", "method=zscore")
    assert code == 0
    (row,) = json.loads(out)
    direct = score_style(list(financial_items.prediction), list(financial_items.persona), method="zscore")
    assert row["style_similarity"] == direct.mean
    assert (row["system"], row["n"], row["signature"]) == ("style", 6, direct.signature)
    code, out, _ = run_cli(capsys, "score", "persona_style", path)
    default = score_style(list(financial_items.prediction), list(financial_items.persona))
    assert out.startswith(f"# persona_style: {path} (6 summaries)")
    row_line = next(line for line in out.splitlines() if line.startswith("| style "))
    assert [cell.strip() for cell in row_line.split("|")[1:4]] == ["style", "6", format_score(default.mean)]
    assert out.endswith(f"signature: {default.signature}\n")
    micro = tmp_path / "style_micro.jsonl"
    code, out, _ = run_cli(
        capsys, "score", "persona_style", path, "-o", "bootstrap=200", "-o", "seed=1", "--micro", micro
    )
    booted = score_style(list(financial_items.prediction), list(financial_items.persona), bootstrap=200, seed=1)
    lo, hi = booted.intervals["style_similarity"]
    assert f"| {format_estimate(booted.mean, lo, hi)} " in out
    assert "style_similarity [95% CI]" in out
    lines = [json.loads(line) for line in micro.read_text().splitlines()]
    assert [x["style_similarity"] for x in lines] == booted.scores.tolist()
    assert {x["signature"] for x in lines} == {booted.signature}


def test_score_persona_quality_matches_the_library(capsys, tmp_path: Path, financial_items) -> None:
    from persona_metrics.persona.quality import score_quality

    rows = [
        {"prediction": p, "reference": r, "persona": q}
        for p, r, q in zip(financial_items.prediction, financial_items.reference, financial_items.persona, strict=True)
    ]
    path = write_jsonl(tmp_path / "quality.jsonl", rows)
    code, out, _ = run_cli(capsys, "score", "persona_quality", path, "--format", "json")
    assert code == 0
    (row,) = json.loads(out)
    direct = score_quality(
        list(financial_items.prediction), list(financial_items.reference), list(financial_items.persona)
    )
    assert {k: row[k] for k in direct.means()} == direct.means()
    assert row["signature"] == direct.signature
    code, out, _ = run_cli(capsys, "score", "persona_quality", path, "--format", "csv")
    parsed = list(csv.DictReader(io.StringIO(out)))
    assert float(parsed[0]["overall_quality"]) == direct.means()["overall_quality"]


# --- bad input -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("lines", "bad_line", "message"),
    [
        (["{not json"], 1, "not valid JSON"),
        (["GOOD", "", '{"document": "d", "predictions": {"m": "x"}}'], 3, "missing keys ['reference']"),
        (["GOOD", '{"document": "d", "reference": "r", "predictions": {}}'], 2, "no prediction for models ['m']"),
        (["GOOD", '{"document": "d", "reference": "", "predictions": {"m": "x"}}'], 2, "must not be empty"),
        (["GOOD", '["a list"]'], 2, "expected a JSON object"),
        (["GOOD", '{"document": "d", "reference": "r", "prediction": "x"}'], 2, "mixes 'prediction'"),
        (
            ["GOOD", '{"document_id": "D1", "document": "other", "reference": "r", "predictions": {"m": "x"}}'],
            2,
            "different document text than on line 1",
        ),
    ],
)
def test_malformed_line_is_exit_2_with_file_and_line(capsys, tmp_path: Path, lines, bad_line, message) -> None:
    good = '{"document_id": "D1", "document": "d", "reference": "r", "predictions": {"m": "x"}}'
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(good if line == "GOOD" else line for line in lines) + "\n")
    code, out, err = run_cli(capsys, "score", "perseval", path)
    assert code == 2
    assert out == ""
    assert f"persona-metrics score: error: {path}:{bad_line}: " in err
    assert message in err


def test_other_bad_inputs_are_exit_2(capsys, tmp_path: Path) -> None:
    style = write_jsonl(tmp_path / "style.jsonl", [{"prediction": "Shares rose.", "persona": "journalist"}, {"x": 1}])
    code, _, err = run_cli(capsys, "score", "persona_style", style)
    assert code == 2
    assert f"{style}:2: missing keys ['prediction', 'persona']" in err
    code, _, err = run_cli(capsys, "score", "perseval", SAMPLE, "-o", "colour=blue")
    assert code == 2
    assert "perseval has no option ['colour']" in err
    code, _, err = run_cli(capsys, "score", "perseval", SAMPLE, "-o", "beta=-1")
    assert (code, "beta must be in (0, 300]" in err) == (2, True)
    code, _, err = run_cli(capsys, "score", "perseval", SAMPLE, "-o", "beta")
    assert (code, "expected KEY=VALUE" in err) == (2, True)
    code, _, err = run_cli(capsys, "score", "perseval", tmp_path / "missing.jsonl")
    assert (code, "missing.jsonl" in err) == (2, True)
    code, _, err = run_cli(capsys, "pens", tmp_path)
    assert (code, "news.tsv" in err) == (2, True)
    preds = write_jsonl(tmp_path / "mine.jsonl", [{"id": "nope", "prediction": "x"}])
    code, _, err = run_cli(capsys, "cnndm", "-n", "2", "--predictions", preds)
    assert (code, f"{preds}: no prediction for 2 articles" in err) == (2, True)
    code, _, err = run_cli(capsys, "pipeline", tmp_path / "nowhere", "--out", tmp_path / "out")
    assert (code, "no *.json article files" in err) == (2, True)


# --- help ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "mentions"),
    [
        (
            "score",
            [
                '"predictions": {"<model>"',
                '"prediction": "<summary>"',
                '"persona": "journalist"',
                '"reference"',
                "--micro PATH",
                "per-summary (micro)",
                "--significance-resamples",
                "paired permutation test",
            ],
        ),
        (
            "pens",
            [
                "news.tsv",
                "personalized_test.tsv",
                "hyps_<MODEL>.txt",
                '{"user_id", "news_id", "prediction"}',
                "per_summary.jsonl",
                "micro scores",
                "user_id, news_id, perseval, degress",
                "p_vs_next",
                "--significance-resamples",
                "paired permutation test",
            ],
        ),
        (
            "cnndm",
            [
                '{"article", "highlights", "id"}',
                '{"id": "<article id>", "prediction": "<summary>"}',
                "--micro PATH",
                "per-summary (micro)",
                "--bootstrap",
            ],
        ),
        ("pipeline", ['"generated_summaries": {"<model>": "<summary>"', '"reference_summary"']),
        ("register", ["evaluate.load"]),
        ("list", ["bundled metrics"]),
    ],
)
def test_help_says_what_the_input_looks_like(capsys, command: str, mentions: list[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for text in mentions:
        assert text in out, text


def test_list_and_register(capsys) -> None:
    code, out, _ = run_cli(capsys, "list")
    from persona_metrics.integrations.registry import available_metrics

    assert (code, out.split()) == (0, list(available_metrics()))
    assert {"degress", "perseval", "persona_quality", "persona_style"} <= set(out.split())
    code, out, _ = run_cli(capsys, "register", "perseval")
    assert code == 0
    assert out.startswith("registered perseval -> ")
    code, _, err = run_cli(capsys, "register", "nope")
    assert code == 2
    assert "nope" in err


# --- pens ------------------------------------------------------------------------------------------------------
def test_pens_matches_the_library(capsys, tmp_path: Path) -> None:
    from persona_metrics.datasets.pens import BASELINES, baseline_predictions, load_pens
    from persona_metrics.personalization import PersonalizationScorer
    from persona_metrics.personalization.comparison import compare_personalization
    from persona_metrics.personalization.stability import stability

    out = tmp_path / "out"
    code, report, _ = run_cli(capsys, "pens", PENS, "--out", out, "--bootstrap", "50", "--no-plot")
    assert code == 0
    assert report == (out / "leaderboard.md").read_text()
    assert not (out / "leaderboard.png").exists()
    board = {r["model"]: r for r in csv.DictReader((out / "leaderboard.csv").open())}
    ds = load_pens(PENS)
    scorer = PersonalizationScorer(ds["reference"], ds["document"], ds["news_id"], distance="rougeL")
    results = {name: scorer.score(baseline_predictions(ds, name), beta=1.7, bootstrap=50, seed=0) for name in BASELINES}
    for name, res in results.items():
        row = board[name]
        for key in ("perseval", "degress", "egises", "p_accuracy", "accuracy_distance"):
            assert float(row[key]) == getattr(res, key), (name, key)
        assert (float(row["perseval_ci_low"]), float(row["perseval_ci_high"])) == res.intervals["perseval"]
        assert row["signature"] == res.signature
        if row["next_model"]:  # the adjacent-rank test: the library's, seeded by --seed
            test = compare_personalization(res, results[row["next_model"]], seed=0)
            assert float(row["p_vs_next"]) == test.p_value
            assert f"- rougeL: {name} > {row['next_model']}, p = {format_score(test.p_value)} (" in report
    ranks = sorted(board.values(), key=lambda r: int(r["rank"]))
    assert [float(r["perseval"]) for r in ranks] == sorted((r.perseval for r in results.values()), reverse=True)
    per_doc = np.array([list(r.per_document("perseval").values()) for r in results.values()])
    # the per-document means are the inner means of eq. 7: their mean is the system PerSEval
    assert per_doc.mean(axis=1) == pytest.approx([r.perseval for r in results.values()], abs=1e-12)
    st = stability(per_doc, seed=0)
    stab = [r for r in csv.DictReader((out / "stability.csv").open()) if r["measure"] == "perseval"]
    assert [float(r["epsilon_kendall"]) for r in stab] == st.epsilon_kendall.tolist()
    (summary,) = [r for r in csv.DictReader((out / "stability_summary.csv").open()) if r["measure"] == "perseval"]
    assert (float(summary["max_bias"]), float(summary["max_variance"])) == (st.max_bias, st.max_variance)
    assert f"signature (rougeL): {results['oracle'].signature}" in report.splitlines()


def test_pens_oracle_beats_lead(capsys, tmp_path: Path) -> None:
    """Acceptance: oracle > lead with p < 0.05 on the shipped PENS sample (rougeL), in every output of the CLI."""
    out = tmp_path / "out"
    code, report, _ = run_cli(
        capsys, "pens", PENS, "--baselines", "oracle", "lead", "--out", out, "--bootstrap", "0", "--no-plot"
    )
    assert code == 0
    line = next(x for x in report.splitlines() if x.startswith("- rougeL: oracle > lead, p = "))
    p_text = line.removeprefix("- rougeL: oracle > lead, p = ").split()[0]
    assert float(p_text) < 0.05
    assert "paired permutation test on per-document PerSEval" in report
    (oracle,) = [r for r in json.loads((out / "leaderboard.json").read_text()) if r["model"] == "oracle"]
    assert oracle["next_model"] == "lead"
    assert oracle["p_vs_next"] < 0.05
    assert format_score(oracle["p_vs_next"]) == p_text


def test_pens_without_out_only_prints(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, report, _ = run_cli(
        capsys, "pens", PENS, "--bootstrap", "0", "--baselines", "oracle", "headline", "--significance-resamples", "0"
    )
    assert code == 0
    assert report.startswith(f"# PENS leaderboard: {PENS} (279 summaries per model, beta 1.7)")
    assert "| rougeL | 1 | oracle | 0.999 | 1 | 0 | 0.75 | 0 | — |" in report  # no interval, no test
    assert "no significance test (--significance-resamples 0)" in report
    assert list(tmp_path.iterdir()) == []


def test_pens_refuses_negative_resamples(capsys) -> None:
    code, _, err = run_cli(capsys, "pens", PENS, "--significance-resamples", "-1")
    assert code == 2
    assert "--significance-resamples must be 0 (off) or a positive number" in err


def test_stability_tables_report_each_statistic_once() -> None:
    from persona_metrics.personalization.leaderboard import stability_rows, stability_summary_row
    from persona_metrics.personalization.stability import Stability

    st = Stability(
        fractions=(0.8, 0.4),
        means=np.zeros((2, 3)),
        epsilon_spearman=np.array([0.0, 0.5]),
        epsilon_kendall=np.array([0.1, 0.6]),
        bias=np.array([0.01, 0.03, 0.02]),
        variance=np.array([0.004, 0.001, 0.002]),
    )
    rows = stability_rows("jsd", "perseval", st, "sig")
    assert rows == [
        {"distance": "jsd", "measure": "perseval", "fraction": 0.8, "epsilon_spearman": 0.0, "epsilon_kendall": 0.1,
         "signature": "sig"},
        {"distance": "jsd", "measure": "perseval", "fraction": 0.4, "epsilon_spearman": 0.5, "epsilon_kendall": 0.6,
         "signature": "sig"},
    ]  # fmt: skip
    assert stability_summary_row("jsd", "perseval", st, "sig") == {
        "distance": "jsd",
        "measure": "perseval",
        "max_bias": 0.03,  # the least stable model's
        "max_variance": 0.004,
        "signature": "sig",
    }


# --- cnndm -----------------------------------------------------------------------------------------------------
def test_cnndm_matches_the_library(capsys, tmp_path: Path) -> None:
    from persona_metrics.datasets.cnndm import baseline_summaries, load_cnndm
    from persona_metrics.persona.quality import score_quality

    micro = tmp_path / "micro.jsonl"
    code, out, _ = run_cli(capsys, "cnndm", "-n", "3", "--seed", "2", "--format", "json", "--micro", micro)
    assert code == 0
    rows = {r["system"]: r for r in json.loads(out)}
    lines = [json.loads(line) for line in micro.read_text().splitlines()]
    ds = load_cnndm([CNNDM]).shuffle(seed=2).select(range(3))
    refs = list(ds["highlights"])
    for name, preds in baseline_summaries(list(ds["article"]), refs, seed=2).items():
        direct = score_quality(preds, refs, ["journalist"] * 3, bootstrap=1000, seed=2)  # --bootstrap 1000, --seed 2
        assert {k: rows[name][k] for k in direct.means()} == direct.means(), name
        for key, (lo, hi) in direct.intervals.items():  # every persona_quality mean has its interval
            assert (rows[name][f"{key}_ci_low"], rows[name][f"{key}_ci_high"]) == (lo, hi), key
        assert rows[name]["signature"] == direct.signature
        mine = [x for x in lines if x["system"] == name]
        assert [x["item"] for x in mine] == [0, 1, 2]
        assert [x["id"] for x in mine] == [str(i) for i in ds["id"]]
        assert [x["overall_quality"] for x in mine] == direct.per_item()["overall_quality"]
        assert {x["signature"] for x in mine} == {direct.signature}
        assert all(x["accuracy"] is None and x["summary_eval_signature"] for x in mine)  # no judge
    code, table, _ = run_cli(capsys, "cnndm", "-n", "3", "--seed", "2", "--bootstrap", "0")
    assert code == 0
    assert "[95% CI]" not in table


# --- pipeline --------------------------------------------------------------------------------------------------
def test_pipeline_matches_the_library(capsys, tmp_path: Path) -> None:
    from persona_metrics.datasets.financial import read_article_dir, summary_items
    from persona_metrics.persona.quality import score_quality

    out = tmp_path / "out"
    code, report, _ = run_cli(capsys, "pipeline", FINANCIAL, "--out", out, "--batch-size", "64")
    assert code == 0
    assert report == (out / "aggregates.md").read_text()
    items = summary_items(read_article_dir(FINANCIAL)[0])
    direct = score_quality(list(items.prediction), list(items.reference), list(items.persona))
    per_item = pd.read_csv(out / "per_item.csv")
    for name, values in direct.per_item().items():
        if name == "band":
            assert list(per_item[name]) == values
        else:
            assert per_item[name].tolist() == pytest.approx(values, abs=1e-12)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["means"] == pytest.approx(direct.means(), abs=1e-12)
    assert summary["signature"] == direct.signature
    aggregates = pd.read_csv(out / "aggregates.csv")
    model_a = aggregates[(aggregates["by"] == "model") & (aggregates["group"] == "model_a")].iloc[0]
    values = direct.components()["overall_quality"][(items.model == "model_a").to_numpy()]
    assert model_a["n"] == len(values) == 16
    assert model_a["overall_quality_mean"] == pytest.approx(values.mean(), abs=1e-12)
    assert model_a["overall_quality_std"] == pytest.approx(values.std(), abs=1e-12)
    assert f"| model_a | 16 | {format_score(values.mean())} ± {format_score(values.std())} |" in report


def test_pipeline_aggregate_by_hand() -> None:
    from persona_metrics.persona.pipeline import aggregate, aggregate_tables, overall_means

    per_item = pd.DataFrame({"model": ["a", "a", "b"], "sector": ["x", "y", "x"], "s": [1.0, 3.0, 5.0]})
    table = aggregate(per_item, "model", ["s"])
    assert table.to_dict("records") == [
        {"group": "a", "n": 2, "s_mean": 2.0, "s_std": 1.0, "by": "model"},
        {"group": "b", "n": 1, "s_mean": 5.0, "s_std": 0.0, "by": "model"},
    ]
    assert list(aggregate_tables(per_item, ["model", "sector"], ["s"])["by"]) == ["model", "model", "sector", "sector"]
    assert overall_means(per_item, ["s"]) == {"s": 3.0}


# --- the shuffled baseline and the PENS writer -----------------------------------------------------------------
def test_shuffled_references_rotate_within_documents() -> None:
    refs, ids = ["a1", "a2", "a3", "b1", "b2"], ["A", "A", "A", "B", "B"]
    assert shuffled_references(refs, ids) == ["a3", "a1", "a2", "b2", "b1"]
    assert shuffled_references(refs, ids) == rotate_within_documents(refs, ids)


def test_shuffled_single_reference_document_keeps_its_reference_or_the_fallback(direct_personalization) -> None:
    """Documented: a single-user document has no other user; without a fallback its item keeps its own
    reference, a value the scorer never uses (the document is excluded from every score)."""
    assert shuffled_references(["a1", "a2", "c1"], ["A", "A", "C"]) == ["a2", "a1", "c1"]
    assert shuffled_references(["a1", "a2", "c1"], ["A", "A", "C"], fallback=["h", "h", "hc"]) == ["a2", "a1", "hc"]
    sample = read_personalization_jsonl(SAMPLE)
    shuffled = shuffled_references(sample.references, sample.document_ids)
    single = [i for i, d in enumerate(sample.document_ids) if sample.document_ids.count(d) == 1]
    assert single  # D10 of the shipped sample has one user
    assert all(shuffled[i] == sample.references[i] for i in single)
    assert direct_personalization["shuffled"].per_summary("perseval")[single[0]] is None  # never scored
    with pytest.raises(ValueError, match="one entry per item"):
        shuffled_references(["a"], ["A", "B"])


def test_write_pens_round_trips_and_refuses_separators(tmp_path: Path) -> None:
    from persona_metrics.datasets.pens import load_pens, write_pens

    news = [
        ("N1", "finance", "Bank lifts outlook", "The bank raised its outlook."),
        ("N2", "sports", "Cup win", "A win."),
    ]
    users = [("U1", ["N2"], [("N1", "Bank outlook up")]), ("U2", [], [("N1", "Outlook raised"), ("N2", "Rovers win")])]
    write_pens(tmp_path, news, users)
    ds = load_pens(tmp_path)
    assert list(zip(ds["user_id"], ds["news_id"], ds["reference"], strict=True)) == [
        ("U1", "N1", "Bank outlook up"),
        ("U2", "N1", "Outlook raised"),
        ("U2", "N2", "Rovers win"),
    ]
    assert ds[0]["history"] == ["N2"]
    assert ds[0]["category"] == "finance"
    with pytest.raises(ValueError, match="';;'"):
        write_pens(tmp_path / "bad", news, [("U1", [], [("N1", "a;;b")])])
    with pytest.raises(ValueError, match=r"'\\t'"):
        write_pens(tmp_path / "bad", [("N1", "x", "a\tb", "body")], [])
    assert not (tmp_path / "bad").exists()


# --- the BERTScore baseline ------------------------------------------------------------------------------------
def test_bertscore_baseline_on_a_tiny_model(tmp_path: Path) -> None:
    from conftest import save_tiny_bert

    from persona_metrics.distances import BertScore
    from persona_metrics.persona.bertscore_baseline import (
        compute_bertscore_baseline,
        unrelated_pairs,
        write_baseline,
    )
    from persona_metrics.persona.content import bertscore_baseline
    from persona_metrics.persona.params import BertScoreConfig

    words = "the bank raised its outlook shares fell team won cup on sunday rain hit town".split()
    (tmp_path / "tiny").mkdir()
    model = save_tiny_bert(tmp_path / "tiny", words, "masked_lm", initializer_range=0.5)
    texts = [
        ("a", "The bank raised its outlook on Sunday. Shares fell on the town."),
        ("b", "The team won the cup on Sunday. Rain hit the town on Sunday."),
        ("c", "Shares fell as the bank raised its outlook."),
    ]
    pairs, n = unrelated_pairs(texts, seed=3)
    assert n == 5
    assert pairs == unrelated_pairs(texts, seed=3)[0]
    source = {s: src for src, t in texts for s in t.replace(". ", ".\n").split("\n")}
    assert pairs
    assert all(source[a] != source[b] for a, b in pairs)
    (row,) = compute_bertscore_baseline(pairs, model=model, layers=[1])
    p, r, f = BertScore(model=model, num_layers=1).precision_recall_f1(pairs)
    assert (row.layer, row.precision, row.recall, row.f1) == (1, float(p.mean()), float(r.mean()), float(f.mean()))
    path = tmp_path / "baseline.tsv"
    write_baseline([row], path, {"pairs": len(pairs)})
    assert path.read_text().splitlines()[0] == "LAYER,P,R,F"
    assert json.loads(path.with_suffix(".json").read_text()) == {"pairs": len(pairs)}
    config = BertScoreConfig(model=model, num_layers=1, baseline_path=str(path))
    assert bertscore_baseline(config, 1) == pytest.approx(row.f1, abs=1e-8)
    with pytest.raises(ValueError, match="no sentence pair"):
        compute_bertscore_baseline([], model=model, layers=[1])


# --- the installed console script ------------------------------------------------------------------------------
def test_installed_console_script_from_another_directory(tmp_path: Path, capsys) -> None:
    exe = Path(sys.executable).parent / "persona-metrics"
    assert exe.is_file(), "the package is not installed in this environment"
    env = {**os.environ, "HF_EVALUATE_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [str(exe), "score", "perseval", str(SAMPLE)], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    code, out, _ = run_cli(capsys, "score", "perseval", SAMPLE)
    assert code == 0
    assert done.stdout == out
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n")
    done = subprocess.run(
        [str(exe), "score", "perseval", "bad.jsonl"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "bad.jsonl:1: not valid JSON" in done.stderr


def test_score_vert_matches_the_library(capsys, tmp_path: Path) -> None:
    """Golden source: ``persona_metrics.vert.score_vert`` called directly on the same pairs."""
    from persona_metrics.vert import score_vert

    preds = ["Endeavour astronauts join two sections of International Space Station", "Oil prices fell"]
    refs = ["Endeavour astronauts join two segments of International Space Station", ["Crude fell", "Oil dropped"]]
    path = tmp_path / "pairs.jsonl"
    path.write_text(
        "".join(json.dumps({"prediction": p, "reference": r}) + "\n" for p, r in zip(preds, refs, strict=True))
    )
    assert main(["score", "vert", str(path), "--format", "json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    lib = score_vert(preds, refs)
    assert {k: row[k] for k in ("vert", "sim", "wmd")} == pytest.approx(lib.means(), abs=1e-15)
    assert row["signature"] == lib.signature
    path.write_text('{"prediction": "x"}\n')
    assert main(["score", "vert", str(path)]) == 2
    assert f"{path}:1: missing keys ['reference']" in capsys.readouterr().err


def test_cnndm_summary_eval_columns_without_a_judge(capsys) -> None:
    """Golden source: ``score_summary_eval`` called directly on the same articles and systems."""
    from persona_metrics.datasets.cnndm import baseline_summaries, load_cnndm
    from persona_metrics.summary_eval import score_summary_eval

    code, out, err = run_cli(capsys, "cnndm", "-n", "2", "--seed", "2", "--format", "csv")
    assert code == 0
    rows = {r["system"]: r for r in csv.DictReader(io.StringIO(out))}
    assert "accuracy and overall need an LLM judge" in err
    assert "-m/--model" in err
    ds = load_cnndm([CNNDM]).shuffle(seed=2).select(range(2))
    articles, refs = list(ds["article"]), list(ds["highlights"])
    for name, preds in baseline_summaries(articles, refs, seed=2).items():
        direct = score_summary_eval(preds, articles)
        assert rows[name]["accuracy"] == rows[name]["overall"] == ""  # no judge: empty, not 0
        assert float(rows[name]["completeness"]) == pytest.approx(direct.means()["completeness"], abs=1e-12)
        assert float(rows[name]["coherence"]) == pytest.approx(direct.means()["coherence"], abs=1e-12)
        assert rows[name]["summary_eval_signature"] == direct.signature


def test_cnndm_judge_needs_a_key_for_a_remote_server(capsys, monkeypatch) -> None:
    monkeypatch.delenv("MY_JUDGE_KEY", raising=False)
    code, _, err = run_cli(
        capsys,
        "cnndm",
        "-n",
        "1",
        "-m",
        "gpt-x",
        "--base-url",
        "https://judge.invalid/v1",
        "--api-key-env",
        "MY_JUDGE_KEY",
    )
    assert code == 2
    assert "set the environment variable MY_JUDGE_KEY (option --api-key-env)" in err
