"""The prepared-text METEOR (persona_metrics.distances.meteor) against NLTK's meteor_score called directly.

Every comparison is exact (``==`` on floats, ``array_equal`` on arrays): the library replays NLTK's alignment
and its float operations (``docs/perseval.md`` §3.5). The reference is ``nltk.translate.meteor_score`` itself:
``meteor_score`` / ``single_meteor_score`` for scores and ``align_words`` for the alignment.
"""

from __future__ import annotations

import csv
import itertools
import json
import random
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.stem.porter import PorterStemmer
from nltk.translate import meteor_score as nltk_meteor

from persona_metrics import PersonaMetricsWarning
from persona_metrics.distances import Meteor, meteor, word_tokens
from persona_metrics.resources import ensure_wordnet

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.fixture(scope="module", autouse=True)
def _wordnet() -> None:
    ensure_wordnet()  # NLTK's own meteor_score reads the same WordNet data


def nltk_sigma(pairs: list[tuple[str, str]]) -> np.ndarray:
    """σ = 1 − NLTK meteor_score([tokens(text1)], tokens(text2)), called per pair (the previous class)."""
    return np.array([1.0 - nltk_meteor.meteor_score([word_tokens(a)], word_tokens(b)) for a, b in pairs])


def assert_same_as_nltk(pairs: list[tuple[str, str]]) -> None:
    ours = Meteor().pairwise(pairs)  # a fresh object: every text prepared by the new path
    expected = nltk_sigma(pairs)
    bad = [(pairs[i], ours[i], expected[i]) for i in np.flatnonzero(ours != expected)]
    assert not bad, f"{len(bad)} of {len(pairs)} pairs differ, e.g. {bad[:3]}"


def both_orders(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [*pairs, *((b, a) for a, b in pairs)]


# --- the shipped data ---------------------------------------------------------------------------------------
def test_personalization_sample_equals_nltk() -> None:
    """Every ordered pair of summaries, every document against every summary (both orders), documents."""
    rows = [json.loads(line) for line in (DATA / "personalization_sample" / "sample.jsonl").open(encoding="utf-8")]
    docs = list(dict.fromkeys(r["document"] for r in rows))
    short = list(dict.fromkeys(t for r in rows for t in (r["reference"], *r["predictions"].values())))
    pairs = [(a, b) for a in short for b in short]
    pairs += both_orders([(d, s) for d in docs for s in short])
    pairs += [(a, b) for a in docs for b in docs]
    assert len(pairs) > 7000
    assert_same_as_nltk(pairs)


def _pens() -> tuple[dict[str, str], dict[str, list[str]]]:
    """PENS sample: news id → document (headline + " " + body), news id → its titles (headline, rewrites)."""

    def read(name: str) -> list[dict[str, str]]:
        with (DATA / "pens_sample" / name).open(encoding="utf-8", newline="") as f:
            return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))

    news = read("news.tsv")
    docs = {n["News ID"]: n["Headline"] + " " + n["News body"] for n in news}
    titles: dict[str, list[str]] = {n["News ID"]: [n["Headline"]] for n in news}
    for row in read("personalized_test.tsv"):
        for news_id, title in zip(row["posnewID"].split(","), row["rewrite_titles"].split(";;"), strict=True):
            titles[news_id].append(title)
    return docs, titles


def test_pens_sample_equals_nltk() -> None:
    """Titles against their own article and three others (both orders), titles of one article, 12 × 12 documents."""
    docs, titles = _pens()
    ids = list(docs)
    pairs: list[tuple[str, str]] = []
    for k, news_id in enumerate(ids):
        others = [ids[(k + step) % len(ids)] for step in (1, 19, 77)]
        for title in titles[news_id]:
            pairs += both_orders([(title, docs[news_id]), *((title, docs[o]) for o in others)])
        pairs += [(a, b) for a in titles[news_id] for b in titles[news_id]]
    pairs += [(docs[a], docs[b]) for a in ids[:12] for b in ids[:12]]
    assert len(pairs) > 3000
    assert_same_as_nltk(pairs)


# --- generated edge cases -----------------------------------------------------------------------------------
EDGE_TEXTS = [
    "the the the cat",  # repeated words
    "the cat the cat the",  # words in both texts several times
    "cat the cat the cat the cat",
    "The car is fast",  # synonyms (car / auto / automobile / machine / motorcar)
    "the auto is fast",
    "car auto automobile machine motorcar",
    "motorcar machine automobile auto car car",
    "a big dog barked",  # synonym and stem together
    "a large dog barks",
    "Running runners ran; they're running!",  # stems
    "runner runs ran run",
    "Heed the PARTY's commands!",  # case, punctuation, stems
    "party command heeded",
    "good good good bad bad",  # synonyms competing for the same reference positions
    "bad good bad good well full",
    "bank banks banking banked bank",
    "the bank by the river bank",
    "Straße STRASSE strasse",  # Unicode case
    "3 cats, 3 dogs and 33 birds",  # digits
    "three cats and dogs",
    "It is a guide to action which ensures that the military always obeys the commands of the party",
    "It is a guide to action that ensures that the military will forever heed Party commands",
    "word",  # single words and case differences
    "Word",
    "WORD.",
    "words",
    "!!! ... ---",  # empty after tokenization
    "   ",  # whitespace only
    "",
]


def test_edge_cases_equal_nltk() -> None:
    """Every ordered pair of the edge-case texts (itself included)."""
    assert_same_as_nltk([(a, b) for a in EDGE_TEXTS for b in EDGE_TEXTS])


def test_known_values() -> None:
    """NLTK's docstring pair (0.6944) and a synonym match (one chunk of 4: 1 − 0.5/4³)."""
    ref = meteor.prepare_tokens(word_tokens(EDGE_TEXTS[21]))
    hyp = meteor.prepare_tokens(word_tokens(EDGE_TEXTS[20]))
    assert round(meteor.single_meteor_score(ref, hyp), 4) == 0.6944
    assert Meteor()("the car is fast", "the auto is fast") == 0.5 / 4**3


# --- random token lists: alignment and score, both enumeration branches -------------------------------------
VOCAB = (
    "run running runs ran runner big large great bad badly good well car auto automobile cars machine movie film "
    "dog dogs domestic cat cats the a is be are was exist live fast quick quickly speed rapid party parties heed "
    "obey command commands order orders guide guides action act lead leads bank banks depository"
).split()


def _check(reference: list[str], hypothesis: list[str]) -> None:
    ref, hyp = meteor.prepare_tokens(reference), meteor.prepare_tokens(hypothesis)
    expected_matches = nltk_meteor.align_words(hypothesis, reference)[0] if reference and hypothesis else []
    assert meteor.align(ref, hyp) == expected_matches
    assert meteor.single_meteor_score(ref, hyp) == nltk_meteor.single_meteor_score(reference, hypothesis)


def _tokens(rng: random.Random, length: int) -> list[str]:
    return [w.upper() if rng.random() < 0.1 else w for w in (rng.choice(VOCAB) for _ in range(length))]


@pytest.mark.parametrize(("ref_max", "hyp_max"), [(12, 12), (6, 300), (300, 6), (60, 60)])
def test_random_token_lists_equal_nltk(ref_max: int, hyp_max: int) -> None:
    """Seeded random lists over a vocabulary dense in repeats, stems and synonyms; short vs long both ways
    (the two ways of enumerating synonym candidates), with NLTK's alignment compared match for match."""
    rng = random.Random(ref_max * 1000 + hyp_max)
    for _ in range(400 if max(ref_max, hyp_max) < 100 else 150):
        _check(_tokens(rng, rng.randint(0, ref_max)), _tokens(rng, rng.randint(0, hyp_max)))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(VOCAB), max_size=40), st.lists(st.sampled_from(VOCAB), max_size=40))
def test_property_equals_nltk(reference: list[str], hypothesis: list[str]) -> None:
    _check(reference, hypothesis)


def test_several_references_take_the_best() -> None:
    """meteor_score over several references is NLTK's: the best single score."""
    rng = random.Random(7)
    for _ in range(100):
        references = [_tokens(rng, rng.randint(1, 15)) for _ in range(rng.randint(1, 4))]
        hypothesis = _tokens(rng, rng.randint(1, 15))
        ours = meteor.meteor_score([meteor.prepare_tokens(r) for r in references], meteor.prepare_tokens(hypothesis))
        assert ours == nltk_meteor.meteor_score(references, hypothesis)


# --- cost: each unique word stemmed once; long calls warn once; progress bars -------------------------------
def test_each_unique_word_is_stemmed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's case: NLTK stems the whole document on every call; here each unique word once."""
    calls: list[str] = []
    original = PorterStemmer.stem

    def counting(self, word, to_lowercase=True):
        calls.append(word)
        return original(self, word, to_lowercase)

    monkeypatch.setattr(PorterStemmer, "stem", counting)
    meteor.porter_stem.cache_clear()
    try:
        document = " ".join(EDGE_TEXTS) * 200
        summaries = [t for t in EDGE_TEXTS if word_tokens(t)]
        Meteor().pairwise(both_orders([(s, document) for s in summaries]))
    finally:
        meteor.porter_stem.cache_clear()  # later tests re-stem with the real method
    unique = {w for t in EDGE_TEXTS for w in word_tokens(t)}
    assert sorted(calls) == sorted(unique)


def test_long_call_warns_once(monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = [("the cat sat", "a cat sat down"), ("a cat sat down", "the cat sat")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Meteor().pairwise(pairs)  # short: no warning
    monkeypatch.setattr(meteor, "LONG_CALL_S", -1.0)
    distance = Meteor()
    with pytest.warns(PersonaMetricsWarning, match=r"meteor: scoring 2 pairs .* will take about"):
        distance.pairwise(pairs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        distance.pairwise(pairs)  # once per distance object


def test_estimate() -> None:
    """The issue's case (50 users × a 1 M-character document) is not "long"; the estimate grows with input."""
    pair_lengths = [60] * (2 * 50 * 49 + 2 * 50)
    issue = meteor.estimate_seconds(1_000_000, pair_lengths, load_wordnet=True)
    assert issue < meteor.LONG_CALL_S
    assert meteor.estimate_seconds(100_000_000, pair_lengths, load_wordnet=False) > meteor.LONG_CALL_S
    assert meteor.estimate_seconds(0, itertools.repeat(60, 2_000_000), load_wordnet=False) > meteor.LONG_CALL_S


def test_preparation_shows_progress_bars(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def bar(iterable, *, desc, **kwargs):
        seen.append(desc)
        return iterable

    monkeypatch.setattr(meteor, "progress_bar", bar)
    meteor.prepare_texts(["the cat sat", "a dog ran"], word_tokens)
    assert seen == ["meteor: tokenizing", "meteor: stemming", "meteor: WordNet synonyms"]
