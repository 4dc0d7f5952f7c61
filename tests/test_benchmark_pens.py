"""PENS baselines, prediction readers, rank stability and the leaderboard script."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from persona_metrics.commands import pens as pens_command
from persona_metrics.datasets.pens import baseline_predictions, load_pens, read_hyps, read_jsonl_predictions
from persona_metrics.personalization.stability import rank_disagreement, stability

ROOT = Path(__file__).resolve().parents[1]


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pens_dir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("pens")
    args = ["--articles", "40", "--users", "12", "--history-articles", "20", "--body-sentences", "5"]
    assert _script("make_synthetic_pens").main([str(path), *args]) == 0
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
    with pytest.raises(ValueError, match=r"m2.jsonl:2: expected"):
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
def test_leaderboard_script(pens_dir: Path, ds, tmp_path: Path) -> None:
    hyps = tmp_path / "hyps_copycat.txt"
    hyps.write_text("\n".join(ds["reference"]) + "\n")
    out = tmp_path / "out"
    code = pens_command.main(
        [
            str(pens_dir),
            "--out",
            str(out),
            "--distance",
            "rougeL",
            "jsd",
            "--bootstrap",
            "50",
            "--predictions",
            str(hyps),
        ]
    )
    assert code == 0
    for name in (
        "leaderboard.md",
        "leaderboard.csv",
        "leaderboard.json",
        "stability.csv",
        "stability.md",
        "leaderboard.png",
    ):
        assert (out / name).is_file(), name
    board = json.loads((out / "leaderboard.json").read_text())
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
    assert "Rank agreement DEGRESS vs PerSEval" in (out / "leaderboard.md").read_text()
