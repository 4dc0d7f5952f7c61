"""Content and overall persona quality against components computed directly with the reference libraries."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import persona_metrics
from persona_metrics.persona import quality
from persona_metrics.persona.quality import (
    BertScoreConfig,
    bertscore_baseline,
    check_weights,
    quality_band,
    score_content,
    score_quality,
    split_sentences,
)
from persona_metrics.persona.style import score_style

REFS = [
    "Harbor Foods raised its sales outlook. It will open two stores in Westfield, the company said on Tuesday.",
    "Copperfield Bank posted record profit. Its mortgage book shrank for a second quarter.",
]
PREDS = [
    "Harbor Foods lifted its outlook and plans two new Westfield stores. Shares rose 5%.",
    "Wow! Copperfield made record money! Mortgages? Down again.",
]
PERSONAS = ["journalist", "journalist"]
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def minilm() -> str:
    from persona_metrics.resources import minilm_path

    return str(minilm_path())


def _baseline_f(layer: int = 6) -> float:
    path = ROOT / "src" / "persona_metrics" / "persona" / "baselines" / "bertscore_baseline_minilm.tsv"
    with path.open() as f:
        return next(float(r["F"]) for r in csv.DictReader(f) if int(r["LAYER"]) == layer)


def _direct_components(minilm: str) -> tuple[np.ndarray, np.ndarray]:
    """ROUGE-Lsum with rouge_score on NLTK-split sentences; BERTScore with bert_score, rescaled by hand."""
    import nltk
    from bert_score import score
    from rouge_score import rouge_scorer

    from persona_metrics.resources import ensure_punkt

    ensure_punkt()
    scorer = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)
    lsum = np.array(
        [
            scorer.score("\n".join(nltk.sent_tokenize(r)), "\n".join(nltk.sent_tokenize(p)))["rougeLsum"].fmeasure
            for p, r in zip(PREDS, REFS, strict=True)
        ]
    )
    _, _, f1 = score(PREDS, REFS, model_type=minilm, num_layers=6)
    b = _baseline_f()
    return lsum, (f1.numpy() - b) / (1 - b)


def test_overall_formula_against_direct_components(minilm: str) -> None:
    """overall = 0.70 × (0.40 × ROUGE-Lsum + 0.60 × BERTScore) + 0.30 × style (methodology formulas)."""
    lsum, bs = _direct_components(minilm)
    style = score_style(PREDS, PERSONAS).scores
    res = score_quality(PREDS, REFS, PERSONAS)
    np.testing.assert_allclose(res.content.rouge_lsum, lsum, atol=1e-12)
    np.testing.assert_allclose(res.content.bertscore_f1, bs, atol=5e-5)
    np.testing.assert_allclose(res.content.content_quality, 0.40 * lsum + 0.60 * bs, atol=5e-5)
    np.testing.assert_allclose(res.overall_quality, 0.70 * (0.40 * lsum + 0.60 * bs) + 0.30 * style, atol=5e-5)
    assert res.means()["overall_quality"] == pytest.approx(float(res.overall_quality.mean()))
    assert "rescaled:" in res.signature


def test_weights_with_bleurt_are_40_30_30(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quality, "bleurt_scores", lambda p, r, c: np.array([0.9, 0.1]))
    with_bleurt = score_content(PREDS, REFS, bleurt_checkpoint="any")
    without = score_content(PREDS, REFS)
    assert with_bleurt.weights == {"rougeLsum": 0.40, "bertscore": 0.30, "bleurt": 0.30}
    assert without.weights == {"rougeLsum": 0.40, "bertscore": 0.60}
    np.testing.assert_allclose(
        with_bleurt.content_quality,
        0.4 * without.rouge_lsum + 0.3 * without.bertscore_f1 + 0.3 * np.array([0.9, 0.1]),
        atol=1e-12,
    )
    assert "bleurt:any" in with_bleurt.signature


def test_raw_bertscore_is_recorded(minilm: str) -> None:
    from bert_score import score

    res = score_content(PREDS, REFS, bertscore=BertScoreConfig(rescale=False))
    _, _, f1 = score(PREDS, REFS, model_type=minilm, num_layers=6)
    np.testing.assert_allclose(res.bertscore_f1, f1.numpy(), atol=5e-5)
    assert res.signature.count("|raw") == 1


def test_missing_baseline_is_an_error_not_raw_scores() -> None:
    with pytest.raises(FileNotFoundError, match="rescale=False"):
        bertscore_baseline(BertScoreConfig(model="some-org/model-without-baseline"), 6)
    # bert_score's own baselines are used for the hub models it knows: its file
    # rescale_baseline/en/distilbert-base-uncased.tsv, layer 5, column F
    assert bertscore_baseline(BertScoreConfig(model="distilbert-base-uncased"), 5) == 0.66620487


def test_rouge_lsum_splits_sentences_on_one_line() -> None:
    assert split_sentences("Dr. Lee spoke. Shares fell.") == "Dr. Lee spoke.\nShares fell."
    from rouge_score import rouge_scorer

    ref, pred = "Shares fell. Profit rose.", "Profit rose. Shares fell."
    newline_only = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True).score(ref, pred)["rougeLsum"]
    assert newline_only.fmeasure == 0.5  # one "sentence" each: LCS 2 of 4 tokens
    assert quality.rouge_lsum([pred], [ref])[0] == 1.0  # per-sentence union LCS: every reference token matched


@pytest.mark.parametrize(
    ("weights", "match"),
    [
        ({"rougeLsum": 0.5, "bertscore": 0.6}, "sum to 1"),
        ({"rougeLsum": 1.0}, "exactly the keys"),
        ({"rougeLsum": -0.5, "bertscore": 1.5}, r"\['rougeLsum'\] must be a finite number >= 0"),
        ({"rougeLsum": float("nan"), "bertscore": 1.0}, "finite"),
    ],
)
def test_bad_content_weights(weights: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        check_weights(weights, ("rougeLsum", "bertscore"), "content_weights")


def test_bad_overall_weights_fail_before_model_work() -> None:
    with pytest.raises(ValueError, match="overall_weights must sum to 1"):
        score_quality(PREDS, REFS, PERSONAS, overall_weights={"content": 0.9, "style": 0.3})


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"predictions": PREDS, "references": REFS[:1], "personas": PERSONAS}, ValueError, "references has 1"),
        ({"predictions": ["", PREDS[1]], "references": REFS, "personas": PERSONAS}, ValueError, r"predictions\[0\]"),
        (
            {"predictions": PREDS, "references": REFS, "personas": ["journalist", "poet"]},
            ValueError,
            r"personas\[1\] = 'poet'",
        ),
    ],
)
def test_bad_input(kwargs: dict, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        score_quality(**kwargs)


@pytest.mark.parametrize(
    ("score", "band"),
    [(0.85, "Excellent"), (0.8, "Excellent"), (0.75, "Very Good"), (0.65, "Good"), (0.55, "Fair"), (0.2, "Poor")],
)
def test_quality_bands(score: float, band: str) -> None:
    assert quality_band(score) == band


# --- BLEURT loading, on a tiny regression model created here --------------------------------------------
@pytest.fixture(scope="module")
def tiny_bleurt(tmp_path_factory) -> str:
    from conftest import save_tiny_bert

    words = ["harbor", "foods", "raised", "outlook", "bank", "profit"]
    return save_tiny_bert(tmp_path_factory.mktemp("tiny-bleurt"), words, "regression")


def test_bleurt_loads_a_local_checkpoint(tiny_bleurt: str) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    got = quality.bleurt_scores(["harbor foods raised outlook", "bank profit"], ["harbor foods", "bank"], tiny_bleurt)
    model = AutoModelForSequenceClassification.from_pretrained(tiny_bleurt).eval()
    tok = AutoTokenizer.from_pretrained(tiny_bleurt)
    with torch.no_grad():
        logits = (
            model(
                **tok(
                    ["harbor foods", "bank"],
                    ["harbor foods raised outlook", "bank profit"],
                    padding="longest",
                    return_tensors="pt",
                )
            )
            .logits.flatten()
            .numpy()
        )
    np.testing.assert_allclose(got, np.clip(logits, 0, 1), atol=1e-6)
    res = score_content(PREDS, REFS, bleurt_checkpoint=tiny_bleurt)
    assert res.bleurt is not None
    assert set(res.weights) == {"rougeLsum", "bertscore", "bleurt"}


def test_bleurt_requested_but_unavailable_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="bleurt_checkpoint"):
        score_content(PREDS, REFS, bleurt_checkpoint=str(tmp_path / "no-such-checkpoint"))


# --- the evaluate module and the pipeline -----------------------------------------------------------------
def test_module_matches_the_library() -> None:
    out = persona_metrics.load("persona_quality").compute(
        predictions=PREDS, references=REFS, personas=PERSONAS, return_per_item=True
    )
    lib = score_quality(PREDS, REFS, PERSONAS)
    for key, value in lib.means().items():
        assert out[key] == pytest.approx(value, abs=1e-12)
    assert out["bertscore_rescaled"] == 1
    assert out["per_item"]["band"] == list(lib.bands)


def test_style_method_reaches_the_style_component() -> None:
    out = persona_metrics.load("persona_quality").compute(
        predictions=PREDS, references=REFS, personas=PERSONAS, style_method="zscore", return_per_item=True
    )
    assert out["per_item"]["style_similarity"] == pytest.approx(
        score_style(PREDS, PERSONAS, method="zscore").scores.tolist(), abs=1e-15
    )


def test_module_docstring_examples_run(registered_modules: str) -> None:
    from conftest import run_module_doctests

    result = run_module_doctests("persona_quality")
    assert result.failed == 0
    assert result.attempted >= 4


def test_pipeline_on_the_shipped_sample_with_a_malformed_file(tmp_path: Path, capsys) -> None:
    from persona_metrics.commands import pipeline as script

    data = tmp_path / "data"
    shutil.copytree(ROOT / "data" / "financial_sample", data)
    (data / "zz_broken.json").write_text("{not json")
    (data / "zz_incomplete.json").write_text(json.dumps({"article_id": "x"}))
    assert script.main([str(data), "--out", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "zz_broken.json: not valid JSON" in err
    assert "zz_incomplete.json: missing keys" in err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["articles"] == 16
    assert summary["summaries"] == 48
    assert len(summary["skipped"]) == 2
    rows = list(csv.DictReader((tmp_path / "out" / "per_item.csv").open()))
    assert len(rows) == 48
    assert {r["persona"] for r in rows} == {"formal_analyst", "journalist", "enthusiast"}
    assert (tmp_path / "out" / "persona_centroids.json").is_file()
    md = (tmp_path / "out" / "aggregates.md").read_text()
    assert "## By persona" in md
    assert "## By model" in md
    means = {
        r["group"]: float(r["overall_quality_mean"])
        for r in csv.DictReader((tmp_path / "out" / "aggregates.csv").open())
        if r["by"] == "model"
    }
    assert means["model_a"] > means["model_b"]
    assert means["model_a"] > means["model_c"]
