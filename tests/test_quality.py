"""Content and overall persona quality against components computed directly with the reference libraries."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import persona_metrics
from persona_metrics.persona import content
from persona_metrics.persona.content import bertscore_baseline, score_content, split_sentences
from persona_metrics.persona.params import BertScoreConfig, QualityParams, StyleParams, check_weights
from persona_metrics.persona.quality import quality_band, score_quality
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
    monkeypatch.setattr(content, "bleurt_scores", lambda p, r, c: np.array([0.9, 0.1]))
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
    assert content.rouge_lsum([pred], [ref])[0] == 1.0  # per-sentence union LCS: every reference token matched


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


#: Bad options and their errors: the messages of check_quality_options / BertScoreConfig at a7730ab (the style
#: options under their persona_quality names), except centroid_cache's, unnamed there.
BAD_QUALITY_OPTIONS = [
    ({"style_method": "cosine"}, ValueError, r"^style_method = 'cosine' is not a style method"),
    ({"content_weights": {"rougeLsum": 1.0}}, ValueError, r"^content_weights must have exactly the keys"),
    ({"content_weights": {"rougeLsum": 0.5, "bertscore": 0.5}, "bleurt_checkpoint": "x"}, ValueError,
     r"^content_weights must have exactly the keys \['bertscore', 'bleurt', 'rougeLsum'\]"),
    ({"overall_weights": {"content": 1.0}}, ValueError, r"^overall_weights must have exactly the keys"),
    ({"bleurt_checkpoint": ""}, ValueError, r"^bleurt_checkpoint is empty; give a path$"),
    ({"empty": "skip"}, ValueError, r"^empty must be one of \['zero', 'error'\], got 'skip'$"),
    ({"bootstrap": -2}, ValueError, r"^bootstrap must be 0 \(off\) or an int from 2"),
    ({"persona_dir": "/no/such/dir"}, FileNotFoundError, r"^persona_dir '/no/such/dir' is not a directory$"),
    ({"centroid_cache": 5}, TypeError, r"^centroid_cache must be a path"),
]  # fmt: skip


@pytest.mark.parametrize(("options", "error", "match"), BAD_QUALITY_OPTIONS)
def test_bad_quality_options_fail_alike_in_the_params_and_the_scorer(options: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        QualityParams(**options)
    with pytest.raises(error, match=match):  # before any model work
        score_quality(PREDS, REFS, PERSONAS, **options)


def test_quality_params_share_the_style_options_and_the_bertscore_settings() -> None:
    """QualityParams' style fields are StyleParams' (method as style_method); its first four are BertScoreConfig's."""
    shared = {"style_method": "method"} | {n: n for n in ("persona_samples", "persona_dir", "centroid_cache", "empty")}
    for name, style_name in shared.items():
        assert QualityParams.spec(name) == StyleParams.spec(style_name)
        assert QualityParams.default(name) == StyleParams.default(style_name)
    params = QualityParams(style_method="zscore", bertscore_layers=4, rescale=False, bootstrap=100)
    assert params.style == StyleParams(method="zscore")  # the quality result draws its own bootstrap
    assert params.bertscore == BertScoreConfig(num_layers=4, rescale=False)
    with pytest.raises(TypeError, match=r"^bertscore_layers must be an int, got float: 2\.5$"):
        BertScoreConfig(num_layers=2.5)  # type: ignore[arg-type]


#: What ``rescale=False`` with a ``baseline_path`` says (the baseline would be read by nothing).
BASELINE_WITHOUT_RESCALE = "baseline_path is used only with rescale=True, got rescale=False; drop one of them"


def test_a_baseline_path_without_rescaling_is_refused_everywhere(tmp_path: Path, capsys) -> None:
    """Before: the file was ignored, the scores raw and the signature said ``raw``, with exit status 0."""
    from persona_metrics.cli import main

    base = tmp_path / "base.csv"
    base.write_text("LAYER,P,R,F\n6,0.1,0.1,0.1\n", encoding="utf-8")
    refused = {"rescale": False, "baseline_path": str(base)}
    exactly = f"^{re.escape(BASELINE_WITHOUT_RESCALE)}$"
    with pytest.raises(ValueError, match=exactly):
        QualityParams(**refused)
    with pytest.raises(ValueError, match=exactly):
        BertScoreConfig(rescale=False, baseline_path=str(base))
    with pytest.raises(ValueError, match=exactly):  # the evaluate module
        persona_metrics.load("persona_quality").compute(
            predictions=PREDS, references=REFS, personas=PERSONAS, **refused
        )
    sample = ROOT / "data" / "score_samples" / "persona_quality.jsonl"
    code = main(["score", "persona_quality", str(sample), "-o", f"baseline_path={base}", "-o", "rescale=false", "-q"])
    assert (code, *capsys.readouterr()) == (2, "", f"persona-metrics score: error: {BASELINE_WITHOUT_RESCALE}\n")
    # each alone, and the defaults, are as before
    assert QualityParams().bertscore == BertScoreConfig() == BertScoreConfig(None, None, True, None)
    assert QualityParams(rescale=False).bertscore == BertScoreConfig(rescale=False, baseline_path=None)
    assert QualityParams(baseline_path=str(base)).bertscore == BertScoreConfig(rescale=True, baseline_path=str(base))


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

    got = content.bleurt_scores(["harbor foods raised outlook", "bank profit"], ["harbor foods", "bank"], tiny_bleurt)
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


@pytest.mark.parametrize("method", ["zscore", "posterior"])
def test_style_method_reaches_the_style_component(method: str) -> None:
    out = persona_metrics.load("persona_quality").compute(
        predictions=PREDS, references=REFS, personas=PERSONAS, style_method=method, return_per_item=True
    )
    assert out["per_item"]["style_similarity"] == pytest.approx(
        score_style(PREDS, PERSONAS, method=method).scores.tolist(), abs=1e-15
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
    assert "zz_broken.json:1: not valid JSON" in err
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


# --- several references per prediction ---------------------------------------------------------------------
OTHER_REF = "Westfield council approved a new bus lane on Main Street after a two-year debate."


def _lsum(prediction: str, reference: str) -> float:
    """ROUGE-Lsum F1 with rouge_score directly, on NLTK Punkt sentences."""
    import nltk
    from rouge_score import rouge_scorer

    from persona_metrics.resources import ensure_punkt

    ensure_punkt()
    scorer = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)
    target, pred = "\n".join(nltk.sent_tokenize(reference)), "\n".join(nltk.sent_tokenize(prediction))
    return scorer.score(target, pred)["rougeLsum"].fmeasure


def test_a_one_reference_list_gives_exactly_the_single_string_result() -> None:
    single = score_quality(PREDS, REFS, PERSONAS)
    listed = score_quality(PREDS, [[REFS[0]], REFS[1]], PERSONAS)  # mixed forms
    for name, values in single.components().items():
        np.testing.assert_array_equal(listed.components()[name], values, err_msg=name)
    assert listed.bands == single.bands
    assert listed.signature == single.signature
    assert listed.content.reference_index.tolist() == [0, 0]


def test_a_duplicate_of_the_best_reference_equals_the_single_best() -> None:
    single = score_content(PREDS, REFS)
    several = score_content(PREDS, [[OTHER_REF, REFS[0], REFS[0]], [REFS[1], REFS[1]]])
    assert several.reference_index.tolist() == [1, 0]  # the first of the tied best
    np.testing.assert_array_equal(several.rouge_lsum, single.rouge_lsum)
    np.testing.assert_allclose(several.bertscore_f1, single.bertscore_f1, atol=1e-6)
    np.testing.assert_allclose(several.content_quality, single.content_quality, atol=1e-6)


def test_the_kept_reference_has_the_highest_content_quality() -> None:
    refs = [[OTHER_REF, REFS[0]], [REFS[1], OTHER_REF, REFS[0]]]
    several = score_content(PREDS, refs)
    for i, candidates in enumerate(refs):
        each = [float(score_content([PREDS[i]], [r]).content_quality[0]) for r in candidates]
        assert several.content_quality[i] == pytest.approx(max(each), abs=1e-6)
        assert several.reference_index[i] == int(np.argmax(each))
        # golden ROUGE-Lsum of the kept reference, with rouge_score directly
        assert several.rouge_lsum[i] == _lsum(PREDS[i], candidates[several.reference_index[i]])


def test_with_all_weight_on_rouge_the_pick_is_rouge_scores_best() -> None:
    """Then the combined choice is evaluate's rouge choice: max over the references of rouge_score's value."""
    refs = [[OTHER_REF, REFS[0], REFS[1]], [REFS[0], REFS[1]]]
    res = score_content(PREDS, refs, weights={"rougeLsum": 1.0, "bertscore": 0.0})
    for i, candidates in enumerate(refs):
        assert res.rouge_lsum[i] == max(_lsum(PREDS[i], r) for r in candidates)
    np.testing.assert_array_equal(res.content_quality, res.rouge_lsum)


def test_the_best_is_chosen_on_the_combined_score_not_per_component(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reference better on ROUGE but worse on BERTScore loses when the weighted content score says so."""
    close, paraphrase = REFS[0], "A grocer is expanding in a suburb."
    fake_f1 = {close: 0.10, paraphrase: 0.90}  # BERTScore F1 by reference (stubbed)

    def stub(predictions, references, config):
        return np.array([fake_f1[r] for r in references]), content.Signature.of("bertscore-stub")

    monkeypatch.setattr(content, "bertscore_f1", stub)
    res = score_content([PREDS[0]], [[close, paraphrase]])
    lsum_close, lsum_para = _lsum(PREDS[0], close), _lsum(PREDS[0], paraphrase)
    assert lsum_close > lsum_para  # the per-component best for ROUGE would be `close`
    assert 0.4 * lsum_para + 0.6 * 0.90 > 0.4 * lsum_close + 0.6 * 0.10
    assert res.reference_index.tolist() == [1]
    assert res.rouge_lsum[0] == lsum_para  # every component from the kept reference
    assert res.bertscore_f1[0] == 0.90
    assert res.content_quality[0] == pytest.approx(0.4 * lsum_para + 0.6 * 0.90, abs=1e-12)


def test_the_module_takes_lists_of_references() -> None:
    refs = [[OTHER_REF, REFS[0]], REFS[1]]
    out = persona_metrics.load("persona_quality").compute(
        predictions=PREDS, references=refs, personas=PERSONAS, return_per_item=True
    )
    lib = score_quality(PREDS, refs, PERSONAS)
    expected = lib.per_item()
    assert out["per_item"].pop("band") == expected.pop("band")
    for key, value in expected.items():
        assert out["per_item"][key] == pytest.approx(value, abs=1e-12), key
    assert out["overall_quality"] == pytest.approx(lib.means()["overall_quality"], abs=1e-12)


@pytest.mark.parametrize(
    ("references", "error", "match"),
    [
        ([[], REFS[1]], ValueError, r"references\[0\] is an empty list of references"),
        ([REFS[0], [REFS[1], 3]], TypeError, r"references\[1\]\[1\] must be a string"),
        ([REFS[0], [REFS[1], "  "]], ValueError, r"references\[1\]\[1\] is empty"),
        ([REFS[0], 7], TypeError, r"references\[1\] must be a string or a list of strings"),
        ([[REFS[0]]], ValueError, "references has 1 items but predictions has 2"),
    ],
)
def test_bad_reference_lists_name_the_field_and_index(references: list, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        score_quality(PREDS, references, PERSONAS)
    with pytest.raises(error, match=match):
        score_content(PREDS, references)
    with pytest.raises(error, match=match):
        persona_metrics.load("persona_quality").compute(predictions=PREDS, references=references, personas=PERSONAS)


# --- ROUGE-Lsum through the project's tokenizer and a bit-parallel LCS: rouge_score's value, bit for bit --------
#: Texts that exercise rouge_score's Lsum path: line splitting (empty lines, "\r", lines without a token),
#: non-ASCII letters (dropped by rouge_score's tokenizer), characters that lowercase to ASCII (Kelvin sign, dotted
#: capital I), digits, repeated tokens (the hit counts), stemming (runs / running / ran).
LSUM_TEXTS = [
    "",
    "   ",
    "!!! ???",
    "The cat sat on the mat.\nThe cat ran.",
    "The cat sat.\n\n\nOn the mat the cat sat.\n",
    "Running runs ran; the runner is running.\r\nRuns!",
    "Café prices in Zürich rose 4.5% — naïve analysts were surprised.",
    "KELVIN 300\u212a and \u0130stanbul: \u00df \u00e9t\u00e9 \u4e2d\u6587 tokens",
    "the the the cat the the mat",
    "cat the mat the the the the",
    "12 3 456 7.8 9,000 and 12 more",
    "Dr. Lee spoke. Shares fell 3%. Profit rose. Dr. Lee left.",
    "Mortgages? Down again. Wow! Record money! Copperfield made record money.",
    "\ud800 lone surrogate line\nand a second line",
]


def _rouge_score_lsum(target: str, prediction: str) -> float:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True).score(target, prediction)["rougeLsum"].fmeasure


def test_fast_lsum_equals_rouge_score_on_tricky_texts() -> None:
    """Every ordered pair of LSUM_TEXTS, the texts as given (split on "\\n" only): rouge_score's F, bit for bit."""
    from persona_metrics.distances.rouge_lsum import rouge_lsum_f1

    for target in LSUM_TEXTS:
        for prediction in LSUM_TEXTS:
            assert rouge_lsum_f1(target, prediction) == _rouge_score_lsum(target, prediction), (target, prediction)


def test_fast_lsum_equals_rouge_score_on_the_samples() -> None:
    """persona quality's ROUGE-Lsum (Punkt-split) on the financial sample, every reference against every prediction."""
    from persona_metrics.datasets.financial import read_article_dir, summary_items

    items = summary_items(read_article_dir(ROOT / "data" / "financial_sample")[0])
    preds = list(items.prediction)[:12]
    refs = list(dict.fromkeys(items.reference))[:6]
    pairs = [(p, r) for p in preds + REFS for r in refs + PREDS]
    got = content.rouge_lsum([p for p, _ in pairs], [r for _, r in pairs])
    expected = [_rouge_score_lsum(split_sentences(r), split_sentences(p)) for p, r in pairs]
    assert got.tolist() == expected
    assert len({round(v, 6) for v in expected}) > 20  # the cases differ from each other


def test_lcs_indices_are_rouge_scores_read_out() -> None:
    """The LCS positions (which drive the union) equal rouge_score's lcs_ind on random token lists with ties."""
    import random

    from rouge_score.rouge_scorer import lcs_ind

    from persona_metrics.distances.rouge_lsum import lcs_indices

    rng = random.Random(7)
    for _ in range(3000):
        ref = [rng.choice("abcd") for _ in range(rng.randint(0, 14))]
        can = [rng.choice("abcde") for _ in range(rng.randint(0, 14))]
        assert lcs_indices(ref, can) == lcs_ind(ref, can), (ref, can)


# --- BERTScore in persona quality: one text per forward pass -------------------------------------------------
def test_quality_bertscore_matches_bert_score_side_by_side(minilm: str) -> None:
    """Raw F1 against bert_score.score(batch_size=1) on the same machine: within 1e-6 (docs/perseval.md §3.7)."""
    from bert_score import score

    from persona_metrics.datasets.financial import read_article_dir, summary_items

    items = summary_items(read_article_dir(ROOT / "data" / "financial_sample")[0]).iloc[:24]
    preds, refs = [*items.prediction, *PREDS], [*items.reference, *REFS]
    res = score_content(preds, refs, bertscore=BertScoreConfig(rescale=False))
    _, _, f1 = score(preds, refs, model_type=minilm, num_layers=6, batch_size=1)
    np.testing.assert_allclose(res.bertscore_f1, f1.numpy().astype(np.float64), rtol=0, atol=1e-6)


def test_quality_bertscore_embeds_each_text_once_in_the_counted_passes(monkeypatch) -> None:
    """Each unique text once (the references repeat), in the block-pass chunks ``_block_chunks`` predicts; the FLOP
    account (``forward_flops``) is what those chunks execute: the needed FLOPs plus the linear layers' padded rows,
    fewer than ``BLOCK_ROWS`` per chunk."""
    from persona_metrics.distances import block_pass
    from persona_metrics.distances.passes import BLOCK_ROWS, _block_chunks, encoder_flops

    dist = content.quality_bertscore(BertScoreConfig())
    chunks: list[list[int]] = []
    block = block_pass._block_hidden

    def spy(model, chunk):  # type: ignore[no-untyped-def]
        chunks.append([len(ids) for ids in chunk])
        return block(model, chunk)

    monkeypatch.setattr(block_pass, "_block_hidden", spy)
    dist.clear_cache()
    preds = [f"{PREDS[i % 2]} Item {i}." for i in range(7)]
    score_content(preds, [REFS[0]] * 7)
    unique = [*preds, REFS[0]]
    lengths = dist.token_lengths(unique)
    assert dist._load().blocks
    expected = [[lengths[i] for i in chunk] for chunk in _block_chunks(lengths, dist._load().batch_tokens)]
    assert sorted(chunks) == sorted(expected)
    needed, executed = dist.forward_flops(unique + preds)
    layers, hidden, inter = sizes = dist.flop_sizes()
    assert needed == sum(encoder_flops(1, n, *sizes) for n in lengths)
    padded = sum(-(-sum(chunk) // BLOCK_ROWS) * BLOCK_ROWS - sum(chunk) for chunk in expected)
    assert 0 <= padded < BLOCK_ROWS * len(expected)
    assert executed == needed + 2 * layers * padded * (4 * hidden * hidden + 2 * hidden * inter)


def test_encoder_flops_by_hand() -> None:
    """2 × layers × rows × L × (4H² + 2HI + 2LH): MiniLM-L6 (H 384, I 1536) on a (3, 10) input."""
    from persona_metrics.distances.passes import encoder_flops, pass_shapes

    assert encoder_flops(3, 10, 6, 384, 1536) == 2 * 6 * 3 * 10 * (4 * 384**2 + 2 * 384 * 1536 + 2 * 10 * 384)
    assert pass_shapes([5, 5, 5, 9], 10) == [(2, 5), (2, 5), (1, 9)]
    assert pass_shapes([5, 5, 5, 9], 1) == [(1, 5), (1, 5), (1, 5), (1, 9)]


def test_block_pass_flops_by_hand() -> None:
    """Texts of 9, 5, 5, 120 and 120 tokens in chunks of 10 tokens, by length: [5, 5] holds 10 tokens and the 9 still
    fits in its 128 padded rows (19 tokens); each 120 would not fit beside the chunk before it (139 and 240 > 128),
    so each closes one. Each chunk's linear layers on 128 rows, attention 4 × layers × L² × H per text."""
    from persona_metrics.distances.passes import _block_chunks, block_pass_flops

    lengths = [9, 5, 5, 120, 120]
    assert _block_chunks(lengths, 10) == [[1, 2, 0], [3], [4]]
    assert _block_chunks(lengths[:3], 10) == [[1, 2, 0]]
    linear = 2 * 6 * 128 * (4 * 384**2 + 2 * 384 * 1536)
    attention = 4 * 6 * 384 * (5**2 + 5**2 + 9**2 + 2 * 120**2)
    assert block_pass_flops(lengths, 10, 6, 384, 1536) == 3 * linear + attention
