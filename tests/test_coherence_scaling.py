"""SummaryEval coherence: work linear in the summary's length, values equal to the original definition, the cap.

The original scores each sentence against the other sentences joined by re-tokenizing them (quadratic in the
length) and computes ROUGE-L for every sentence pair (quadratic again): 200 sentences took about 30 CPU-s and
5,000 about hours. These tests count the work done (characters handed to the ROUGE tokenizers, LCS evaluations,
encoder calls) instead of timing it, and compare the values with a transcription of the original algorithm.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import rouge_score.tokenize
from rouge_score import rouge_scorer

from persona_metrics import PersonaMetricsWarning
from persona_metrics.distances import fast_tokens
from persona_metrics.summary_eval import components as C
from persona_metrics.summary_eval import formulas as F

WORDS = (
    "market revenue growth company shares investors analysts quarter profit margin demand supply costs prices "
    "inflation rates bank policy economy trade exports jobs wages consumers retail energy oil the a of to in and "
    "for on with by however therefore meanwhile because also but then"
).split()
MARKERS = ("However,", "Therefore,", "Meanwhile,", "Also,", "Because of this,", "Then", "", "", "", "")


def summary(n: int, seed: int = 0) -> str:
    """``n`` sentences of 6 to 25 words from a small vocabulary (repeats, markers, three end marks)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        sentence = " ".join([rng.choice(MARKERS), *(rng.choice(WORDS) for _ in range(rng.randint(6, 25)))]).strip()
        out.append(sentence[0].upper() + sentence[1:] + rng.choice(".....!?"))
    return " ".join(out)


def positive_embed(flip_first: bool = False) -> Callable[[list[str]], np.ndarray]:
    """Embeddings with non-negative entries (no negative cosine); ``flip_first``: sentence 1 is −sentence 0."""

    def embed(texts: list[str]) -> np.ndarray:
        vectors = np.random.default_rng(len(texts)).random((len(texts), 16)).astype(np.float32)
        if flip_first and len(texts) > 1:
            vectors[1] = -vectors[0]
        return vectors

    return embed


# --- work done ------------------------------------------------------------------------------------------------
N = 2000


@pytest.mark.parametrize("flip_first", [False, True], ids=["no-negative-pair", "one-opposite-sentence"])
def test_coherence_work_is_linear_in_the_number_of_sentences(monkeypatch: pytest.MonkeyPatch, flip_first: bool) -> None:
    text = summary(N)
    assert len(C.sentences_of(text)) == N
    work = {"chars": 0, "lcs": 0, "embed_calls": 0, "embedded": 0}
    budget = 2 * len(text)

    def counted(tokenize: Callable[..., Any]) -> Callable[..., Any]:
        def spy(chunk: str, *args: Any) -> Any:
            work["chars"] += len(chunk)
            if work["chars"] > budget:  # fails fast instead of running for hours
                raise AssertionError(
                    f"the ROUGE tokenizers were handed over {budget} characters for a summary of {len(text)}"
                )
            return tokenize(chunk, *args)

        return spy

    monkeypatch.setattr(rouge_score.tokenize, "tokenize", counted(rouge_score.tokenize.tokenize))
    monkeypatch.setattr(fast_tokens, "rouge_tokens", counted(fast_tokens.rouge_tokens))
    lcs = getattr(C, "_lcs", None)

    def lcs_spy(a: Any, b: Any) -> int:
        work["lcs"] += 1
        return lcs(a, b)  # type: ignore[misc]

    monkeypatch.setattr(C, "_lcs", lcs_spy, raising=False)
    embed = positive_embed(flip_first)

    def embed_spy(texts: list[str]) -> np.ndarray:
        work["embed_calls"] += 1
        work["embedded"] += len(texts)
        return embed(texts)

    value, parts = C.coherence(text, embed_spy)
    vectors = embed(C.sentences_of(text))
    negative_pairs = len(F.contradiction_candidates(C.cosine_matrix(vectors, vectors)))
    assert (negative_pairs > N // 2) is flip_first
    assert work["chars"] <= len(text)  # each sentence tokenized once
    assert work["lcs"] == N + negative_pairs  # leave-one-out ROUGE-L, then only the pairs with cos < -0.1
    assert (work["embed_calls"], work["embedded"]) == (1, N)
    assert 0 <= value <= 1
    assert (parts["contradiction"] < 1) is flip_first


# --- the values are the original's ---------------------------------------------------------------------------
def original_sentence_rouge(sentences: list[str], cosines: np.ndarray) -> dict[str, float]:
    """The original's leave-one-out ROUGE and contradiction loops, with rouge_score itself (no shortcut)."""
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    loo: dict[str, list[float]] = {"rouge1": [], "rouge2": [], "rougeL": []}
    for i, sentence in enumerate(sentences):
        scores = scorer.score(" ".join(s for j, s in enumerate(sentences) if j != i), sentence)
        for key, values in loo.items():
            values.append(scores[key].fmeasure)
    contradictions, pairs = 0.0, 0
    for i in range(len(sentences)):
        for j in range(i + 1, len(sentences)):
            pairs += 1
            rouge_l = scorer.score(sentences[i], sentences[j])["rougeL"].fmeasure
            if cosines[i][j] < -0.1 and rouge_l > 0.3:
                contradictions += 1
            elif cosines[i][j] < -0.1 * 1.5:
                contradictions += 0.5
    words = " ".join(sentences).lower().split()
    return {
        "rouge_1": F.rouge_n_coherence(loo["rouge1"], words, 1),
        "rouge_2": F.rouge_n_coherence(loo["rouge2"], words, 2),
        "rouge_l": F.rouge_l_coherence(loo["rougeL"]),
        "contradiction": max(0.0, 1.0 - contradictions / pairs),
    }


def random_embed(dim: int) -> Callable[[list[str]], np.ndarray]:
    """Random float32 embeddings of few dimensions: many pairs below the contradiction cosines."""
    return lambda texts: np.random.default_rng(len(texts)).standard_normal((len(texts), dim)).astype(np.float32)


EXACT_CASES = [
    ("generated-40", summary(40, seed=1), random_embed(2)),
    ("generated-12", summary(12, seed=2), random_embed(4)),
    ("repeats", "Same sentence here. Same sentence here. Same sentence here! Other words now.", random_embed(2)),
    ("token-less-sentences", "!!! ??? ... Rates rose. ... Rates fell sharply. !!!", random_embed(2)),
    (
        "unicode-and-digits",
        "Kelvin \u212a rose 4.2%. Καλημέρα κόσμε. İstanbul shares rose 4 2 4 2. Then 42.",
        random_embed(3),
    ),
    ("stems", "The running runners ran. Runs were running. A runner runs. Running runs run.", random_embed(2)),
]


@pytest.mark.parametrize(("text", "embed"), [c[1:] for c in EXACT_CASES], ids=[c[0] for c in EXACT_CASES])
def test_sentence_rouge_and_contradiction_equal_the_original_loops(text: str, embed: Callable[..., Any]) -> None:
    sentences = C.sentences_of(text)
    vectors = embed(sentences)
    expected = original_sentence_rouge(sentences, C.cosine_matrix(vectors, vectors))
    parts = C.coherence_components(text, embed)
    assert {name: parts[name] for name in expected} == expected  # bit for bit, not approximately


def test_the_contradiction_cases_are_exercised() -> None:
    """The cases above include pairs that count 1 and 0.5 (else the contradiction comparison would prove little)."""
    counted = [C.coherence_components(text, embed)["contradiction"] for _, text, embed in EXACT_CASES]
    assert sum(value < 1 for value in counted) >= 3


# --- the documented cap ----------------------------------------------------------------------------------------
def test_summaries_over_the_cap_are_scored_on_their_first_sentences(monkeypatch: pytest.MonkeyPatch) -> None:
    text = summary(5, seed=3)
    sentences = C.sentences_of(text)
    embed = random_embed(4)
    expected = C.coherence(" ".join(sentences[:3]), embed)
    monkeypatch.setattr(F, "MAX_COHERENCE_SENTENCES", 3, raising=False)
    with pytest.warns(PersonaMetricsWarning, match=r"5 sentences; .* first 3 \(MAX_COHERENCE_SENTENCES"):
        assert C.coherence(text, embed) == expected
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert C.coherence(" ".join(sentences[:3]), embed) == expected  # at the cap: no cut, no warning
