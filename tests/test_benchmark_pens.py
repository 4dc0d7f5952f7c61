"""PENS baselines, prediction readers, rank stability and the leaderboard script."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import load_script

from persona_metrics.commands import pens as pens_command
from persona_metrics.datasets.pens import baseline_predictions, load_pens, read_hyps, read_jsonl_predictions
from persona_metrics.personalization.stability import rank_disagreement, stability

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def pens_dir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("pens")
    args = ["--articles", "40", "--users", "12", "--history-articles", "20", "--body-sentences", "5"]
    assert load_script("make_synthetic_pens").main([str(path), *args]) == 0
    return path


@pytest.fixture(scope="module")
def ds(pens_dir: Path):
    return load_pens(pens_dir)


def test_non_personalized_baselines_give_every_user_the_same_text(ds) -> None:
    for name in ("headline", "lead"):
        preds = baseline_predictions(ds, name)
        by_article: dict[str, set[str]] = {}
        for news_id, p in zip(ds["news_id"], preds, strict=True):
            by_article.setdefault(news_id, set()).add(p)
        assert all(len(v) == 1 for v in by_article.values()), name
    assert baseline_predictions(ds, "headline") == ds["headline"]
    assert all(body.startswith(lead) for body, lead in zip(ds["body"], baseline_predictions(ds, "lead"), strict=True))


def test_shuffled_gives_each_user_another_users_title(ds) -> None:
    preds = baseline_predictions(ds, "shuffled")
    titles: dict[str, list[str]] = {}
    for news_id, ref in zip(ds["news_id"], ds["reference"], strict=True):
        titles.setdefault(news_id, []).append(ref)
    for news_id, ref, pred in zip(ds["news_id"], ds["reference"], preds, strict=True):
        assert pred in titles[news_id]
        if len(set(titles[news_id])) == len(titles[news_id]) > 1:
            assert pred != ref


def test_history_picks_a_body_sentence(ds) -> None:
    for body, pred in zip(ds["body"], baseline_predictions(ds, "history"), strict=True):
        assert pred in body


def test_unknown_baseline(ds) -> None:
    with pytest.raises(ValueError, match="oracle"):
        baseline_predictions(ds, "random")


def test_prediction_files(ds, tmp_path: Path) -> None:
    hyps = tmp_path / "hyps_M1.txt"
    hyps.write_text("\n".join(ds["reference"]) + "\n")
    assert read_hyps(hyps, ds.num_rows) == ds["reference"]
    hyps.write_text("\n".join(ds["reference"][1:]) + "\n")
    with pytest.raises(ValueError, match=f"{ds.num_rows - 1} lines but"):
        read_hyps(hyps, ds.num_rows)
    rows = [
        {"user_id": u, "news_id": n, "prediction": r}
        for u, n, r in zip(ds["user_id"], ds["news_id"], ds["reference"], strict=True)
    ]
    jsonl = tmp_path / "m2.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in reversed(rows)) + "\n")
    assert read_jsonl_predictions(jsonl, ds) == ds["reference"]
    jsonl.write_text("\n".join(json.dumps(r) for r in rows[1:]) + "\n")
    with pytest.raises(ValueError, match=f"no prediction for 1 examples, e.g. user {rows[0]['user_id']}"):
        read_jsonl_predictions(jsonl, ds)
    jsonl.write_text(json.dumps(rows[0]) + "\n{broken\n")
    with pytest.raises(ValueError, match=r"m2.jsonl:2: not valid JSON"):
        read_jsonl_predictions(jsonl, ds)


# --- stability: hand cases -------------------------------------------------------------------------------
def test_stability_of_constant_documents_is_perfect() -> None:
    """Each model scores the same on every document: every subsample ranks and scores like the full data."""
    per_doc = np.array([[0.9] * 6, [0.5] * 6, [0.1] * 6])
    st = stability(per_doc, repeats=4)
    assert st.epsilon_spearman.tolist() == [0.0] * 4
    assert st.epsilon_kendall.tolist() == [0.0] * 4
    np.testing.assert_allclose(st.bias, 0.0, atol=1e-15)
    np.testing.assert_allclose(st.means, [[0.9, 0.5, 0.1]] * 4)


def test_stability_bias_is_the_std_of_full_and_fraction_means() -> None:
    """Fraction 1.0: every subsample is the full set, so bias = std([m, m]) = 0; a 2-document tie-break
    case: A = [1, 0], B = [0.4, 0.4]; full means 0.5 > 0.4; all subsamples of 2 documents are the full set."""
    st = stability(np.array([[1.0, 0.0], [0.4, 0.4]]), fractions=(1.0, 0.5), repeats=3, seed=1)
    np.testing.assert_allclose(st.means, [[0.5, 0.4], [0.5, 0.4]])  # k = max(2, 1) = 2 documents
    np.testing.assert_allclose(st.bias, [0.0, 0.0], atol=1e-15)
    assert st.epsilon_kendall.tolist() == [0.0, 0.0]


def test_stability_is_seeded() -> None:
    rng = np.random.default_rng(3)
    per_doc = rng.random((4, 30))
    a, b = stability(per_doc, seed=5), stability(per_doc, seed=5)
    np.testing.assert_array_equal(a.means, b.means)
    assert a.bias.shape == (4,)


def test_rank_disagreement_by_hand() -> None:
    tau, flipped = rank_disagreement(["a", "b", "c"], [0.9, 0.5, 0.1], [0.1, 0.5, 0.9])
    assert tau == pytest.approx(-1.0)
    assert flipped == [("a", "b"), ("a", "c"), ("b", "c")]
    tau, flipped = rank_disagreement(["a", "b", "c"], [0.9, 0.5, 0.1], [0.8, 0.6, 0.2])
    assert tau == pytest.approx(1.0)
    assert flipped == []


def test_stability_rejects_bad_shapes() -> None:
    with pytest.raises(ValueError, match="models >= 2"):
        stability(np.ones((1, 5)))


# --- the leaderboard script --------------------------------------------------------------------------------
OUTPUTS = (
    "leaderboard.md",
    "leaderboard.csv",
    "leaderboard.json",
    "per_summary.jsonl",
    "stability.csv",
    "stability_summary.csv",
    "stability.md",
    "leaderboard.png",
)


@pytest.fixture(scope="module")
def leaderboard(pens_dir: Path, ds, tmp_path_factory) -> Path:
    """``persona-metrics pens`` on the synthetic PENS data with a copy of the references as a seventh model."""
    tmp = tmp_path_factory.mktemp("board")
    hyps = tmp / "hyps_copycat.txt"
    hyps.write_text("\n".join(ds["reference"]) + "\n")
    out = tmp / "out"
    args = [str(pens_dir), "--out", str(out), "--distance", "rougeL", "jsd", "--bootstrap", "50"]
    assert pens_command.main([*args, "--significance-resamples", "2000", "--predictions", str(hyps)]) == 0
    return out


def test_leaderboardload_script(leaderboard: Path) -> None:
    for name in OUTPUTS:
        assert (leaderboard / name).is_file(), name
    board = json.loads((leaderboard / "leaderboard.json").read_text())
    for dist in ("rougeL", "jsd"):
        rows = {r["model"]: r for r in board if r["distance"] == dist}
        assert set(rows) == {"oracle", "headline", "lead", "shuffled", "history", "copycat"}
        assert rows["oracle"]["perseval"] == pytest.approx(0.998991, abs=1e-6)
        assert rows["copycat"]["perseval"] == rows["oracle"]["perseval"]
        assert rows["headline"]["perseval"] < 1e-3
        assert rows["lead"]["perseval"] < 1e-3
        assert rows["shuffled"]["degress"] > 0.3
        assert rows["shuffled"]["perseval"] < 0.2
        assert rows["oracle"]["perseval_ci_low"] <= rows["oracle"]["perseval"] <= rows["oracle"]["perseval_ci_high"]
        assert rows["oracle"]["signature"].startswith(dist)
        ranked = sorted(rows.values(), key=lambda r: r["rank"])
        assert [r["perseval"] for r in ranked] == sorted((r["perseval"] for r in ranked), reverse=True)
        assert [r["next_model"] for r in ranked] == [r["model"] for r in ranked[1:]] + [None]
        assert ranked[-1]["p_vs_next"] is None
        assert all(0 < r["p_vs_next"] <= 1 for r in ranked[:-1])
    assert "Rank agreement DEGRESS vs PerSEval" in (leaderboard / "leaderboard.md").read_text()


def test_leaderboard_json_round_trips_the_csv(leaderboard: Path) -> None:
    """Every number of leaderboard.json equals the CSV's exactly (full precision in both)."""
    board = json.loads((leaderboard / "leaderboard.json").read_text())
    table = list(csv.DictReader((leaderboard / "leaderboard.csv").open()))
    assert [r["model"] for r in board] == [r["model"] for r in table]
    numbers = 0
    for record, row in zip(board, table, strict=True):
        assert list(record) == list(row) == list(pens_command.LEADERBOARD_COLUMNS)
        for key, value in record.items():
            if isinstance(value, float):
                assert float(row[key]) == value, key
                numbers += 1
            elif value is None:
                assert row[key] == "", key
            else:
                assert row[key] == str(value), key
    assert numbers > 100
    assert min(r["perseval"] for r in board) > 0  # tiny PerSEval values are not rounded to 0 in the JSON


def test_per_summary_jsonl(leaderboard: Path, ds) -> None:
    board = json.loads((leaderboard / "leaderboard.json").read_text())
    lines = [json.loads(line) for line in (leaderboard / "per_summary.jsonl").read_text().splitlines()]
    scored = {r["distance"]: r["num_documents"] for r in board}
    per_doc = {}
    for news in ds["news_id"]:
        per_doc[news] = per_doc.get(news, 0) + 1
    scored_summaries = sum(n for n in per_doc.values() if n >= 2)
    assert len(lines) == 2 * 6 * scored_summaries  # distances x models x scored summaries
    assert sum(1 for n in per_doc.values() if n >= 2) == scored["rougeL"]
    signatures = {(r["distance"], r["model"]): r["signature"] for r in board}
    for line in lines:
        assert set(line) == {"distance", "model", "item", "user_id", "news_id", "perseval", "degress", "edp",
                             "accuracy_distance", "signature"}  # fmt: skip
        assert line["signature"] == signatures[line["distance"], line["model"]]
        assert (line["user_id"], line["news_id"]) == (ds["user_id"][line["item"]], ds["news_id"][line["item"]])
    # the per-summary values average (documents first) to the leaderboard's PerSEval
    lead = [x for x in lines if x["distance"] == "jsd" and x["model"] == "lead"]
    by_doc: dict[str, list[float]] = {}
    for x in lead:
        by_doc.setdefault(x["news_id"], []).append(x["perseval"])
    system = next(r["perseval"] for r in board if r["distance"] == "jsd" and r["model"] == "lead")
    assert np.mean([np.mean(v) for v in by_doc.values()]) == pytest.approx(system, rel=1e-12)


def test_every_output_carries_the_signature(leaderboard: Path) -> None:
    board = json.loads((leaderboard / "leaderboard.json").read_text())
    signatures = {r["distance"]: r["signature"] for r in board}
    for dist, signature in signatures.items():
        line = f"signature ({dist}): {signature}"
        assert line in (leaderboard / "leaderboard.md").read_text().splitlines()
        assert line in (leaderboard / "stability.md").read_text().splitlines()
    for name in ("leaderboard.csv", "stability.csv", "stability_summary.csv"):
        rows = list(csv.DictReader((leaderboard / name).open()))
        assert {r["signature"] for r in rows} == set(signatures.values()), name
        assert all(r["signature"] == signatures[r["distance"]] for r in rows), name


def test_stability_tables_have_no_repeated_columns(leaderboard: Path) -> None:
    """The per-fraction table holds the per-fraction statistics only; bias and variance are given once."""
    per_fraction = list(csv.DictReader((leaderboard / "stability.csv").open()))
    assert list(per_fraction[0]) == ["distance", "measure", "fraction", "epsilon_spearman", "epsilon_kendall",
                                     "signature"]  # fmt: skip
    assert len(per_fraction) == 2 * 2 * 4  # distances x measures x fractions
    summary = list(csv.DictReader((leaderboard / "stability_summary.csv").open()))
    assert list(summary[0]) == ["distance", "measure", "max_bias", "max_variance", "signature"]
    assert sorted((r["distance"], r["measure"]) for r in summary) == sorted(
        {(r["distance"], r["measure"]) for r in per_fraction}
    )  # once per (distance, measure)
    assert "max_bias" in (leaderboard / "stability.md").read_text()


def test_leaderboard_png_is_an_image(leaderboard: Path) -> None:
    from PIL import Image

    with Image.open(leaderboard / "leaderboard.png") as image:
        width, height = image.size
    assert width > 1500
    assert height > 400
