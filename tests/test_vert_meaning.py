"""VERT's ``meaning_sensitive=True`` (docs/vert.md §11): preparation, ground cost, ranking, defaults untouched.

Golden sources, named at each use:

* DEV_CASES: reference / light paraphrase / meaning edit triples written for this file by the developer of the
  option (not taken from any data set, the persona samples or the validity suite), five per edit kind: swapped
  roles, a negation, changed or swapped numbers, an antonym. The option was designed on them, so the figures
  they give (``scripts/vert_meaning_dev.py`` prints them) are development figures, not a measurement;
* WORDNET: WordNet 3.0's antonym lists (``nltk.corpus.wordnet``, e.g. ``rise.v`` ↔ ``fall``), checked by hand;
* ARITHMETIC: transport costs worked out by hand from the rule in docs/vert.md §11;
* ORIGINAL: ``meaning_sensitive=False`` must give what the original code gives (tests/test_vert.py holds those
  values; here: the default is bit-identical to not passing the option).
"""

from __future__ import annotations

import numpy as np
import pytest

import persona_metrics
from persona_metrics.vert import score_vert
from persona_metrics.vert.meaning import (
    FLIP_COST,
    POSITION_TOLERANCE,
    POSITION_WEIGHT,
    are_antonyms,
    number_value,
    positioned_tokens,
    prepare_meaning_text,
)
from persona_metrics.vert.params import VertParams
from persona_metrics.vert.vectors import glove_6b_50d
from persona_metrics.vert.wmd import prepare_text, word_movers_distance

#: DEV_CASES: (kind, reference, light paraphrase, meaning edit), written for this file (see the module docstring).
DEV_CASES: tuple[tuple[str, str, str, str], ...] = (
    ("roles", "The police arrested the protester outside the city hall on Monday.",
     "The police detained the protester outside the city hall on Monday.",
     "The protester arrested the police outside the city hall on Monday."),
    ("roles", "Apple sued Samsung over the design of its smartphones.",
     "Apple sued Samsung over the styling of its phones.",
     "Samsung sued Apple over the design of its smartphones."),
    ("roles", "The striker passed the ball to the goalkeeper before halftime.",
     "The forward passed the ball to the goalkeeper before the break.",
     "The goalkeeper passed the ball to the striker before halftime."),
    ("roles", "The bank lent money to the small company last year.",
     "The bank loaned money to the small firm last year.",
     "The small company lent money to the bank last year."),
    ("roles", "Germany defeated Brazil in the semifinal of the tournament.",
     "Germany beat Brazil in the semifinal of the competition.",
     "Brazil defeated Germany in the semifinal of the tournament."),
    ("negation", "The minister will stay in office after the vote.",
     "The minister will remain in office after the ballot.",
     "The minister will not stay in office after the vote."),
    ("negation", "Doctors said the new drug was effective against the virus.",
     "Physicians said the new medicine was effective against the virus.",
     "Doctors said the new drug was not effective against the virus."),
    ("negation", "The bridge is safe for heavy trucks, engineers said.",
     "The bridge is secure for heavy lorries, engineers said.",
     "The bridge is not safe for heavy trucks, engineers said."),
    ("negation", "Investors were told the merger would go ahead.",
     "Investors were informed the merger would proceed.",
     "Investors were told the merger would never go ahead."),
    ("negation", "The company reported a profit in the third quarter.",
     "The firm reported a profit in the third quarter.",
     "The company reported no profit in the third quarter."),
    ("numbers", "The airline ordered 20 new jets with options for 30 more.",
     "The carrier ordered 20 new planes with options for 30 more.",
     "The airline ordered 30 new jets with options for 20 more."),
    ("numbers", "The storm killed 12 people and injured 40 in the region.",
     "The storm killed 12 people and hurt 40 in the area.",
     "The storm killed 40 people and injured 12 in the region."),
    ("numbers", "Sales rose 5 percent to 300 million dollars last year.",
     "Sales climbed 5 percent to 300 million dollars last year.",
     "Sales rose 8 percent to 300 million dollars last year."),
    ("numbers", "The team won 7 of its 10 games this season.",
     "The side won 7 of its 10 matches this season.",
     "The team won 3 of its 10 games this season."),
    ("numbers", "The museum opened in 1998 and closed in 2015.",
     "The museum opened in 1998 and shut in 2015.",
     "The museum opened in 2015 and closed in 1998."),
    ("antonym", "Oil prices rose sharply after the announcement.",
     "Oil prices climbed sharply after the announcement.",
     "Oil prices fell sharply after the announcement."),
    ("antonym", "The court accepted the request of the defence lawyers.",
     "The court granted the request of the defence lawyers.",
     "The court rejected the request of the defence lawyers."),
    ("antonym", "Unemployment increased in the northern provinces last year.",
     "Unemployment grew in the northern provinces last year.",
     "Unemployment decreased in the northern provinces last year."),
    ("antonym", "The senator supported the new tax law in the debate.",
     "The senator backed the new tax law in the debate.",
     "The senator opposed the new tax law in the debate."),
    ("antonym", "The patient's condition improved quickly overnight.",
     "The patient's condition got better quickly overnight.",
     "The patient's condition worsened quickly overnight."),
)  # fmt: skip
KINDS = ("roles", "negation", "numbers", "antonym")


@pytest.fixture(scope="module")
def vectors():
    return glove_6b_50d()


@pytest.fixture(scope="module")
def dev_scores() -> dict[bool, tuple[np.ndarray, np.ndarray]]:
    """VERT of the paraphrase and of the edit against the reference, original and meaning-sensitive."""
    references = [case[1] for case in DEV_CASES]
    out = {}
    for meaning in (False, True):
        paraphrase = score_vert([case[2] for case in DEV_CASES], references, meaning_sensitive=meaning).vert
        edit = score_vert([case[3] for case in DEV_CASES], references, meaning_sensitive=meaning).vert
        out[meaning] = (paraphrase, edit)
    return out


def wins(scores: tuple[np.ndarray, np.ndarray], kind: str | None = None) -> int:
    paraphrase, edit = scores
    return sum(bool(p > e) for case, p, e in zip(DEV_CASES, paraphrase, edit, strict=True) if kind in (None, case[0]))


# --- preparation ----------------------------------------------------------------------------------------------
def test_tokens_lose_edge_punctuation_and_carry_their_position_in_the_sentence() -> None:
    assert positioned_tokens("Rose 5%. It fell!") == [("rose", 0.25), ("5", 0.75), ("it", 0.25), ("fell", 0.75)]
    assert positioned_tokens("“Quoted,” (he) said") == [("quoted", 1 / 6), ("he", 0.5), ("said", 5 / 6)]
    assert positioned_tokens("  ") == []


@pytest.mark.parametrize(
    ("token", "value"),
    [("20", 20.0), ("1,200", 1200.0), ("-3.5", -3.5), (".5", 0.5), ("seven", 7.0), ("twenty", None), ("1.2.3", None)],
)
def test_number_values(token: str, value: float | None) -> None:
    assert number_value(token) == value


def test_negations_and_numbers_are_kept_other_stopwords_and_unknown_words_dropped(vectors) -> None:
    text = prepare_meaning_text("The minister didn't stay, nor will 2 of them vote. Xqzzv!", vectors)
    assert text.words == ("minister", "didn't", "stay", "nor", "2", "vote")
    assert text.kinds == ("word", "negation", "word", "negation", "number", "word")
    assert text.stopwords == ("the", "will", "of", "them")
    assert text.oov == ("xqzzv",)
    assert np.array_equal(text.values[4:5], [2.0])
    assert np.isnan(text.values[0])
    assert text.weights.tolist() == [1 / 6] * 6
    # the original drops "didn't" and "nor" as stopwords and keeps "stay," (no vector) as a token
    original = prepare_text("The minister didn't stay, nor will 2 of them vote. Xqzzv!", vectors)
    assert {"didn't", "nor"} <= set(original.stopwords)


def test_wordnet_antonyms() -> None:
    """WORDNET: rise/fall, accept/reject, increase/decrease, better/worsen are antonym lemmas; synonyms are not."""
    for a, b in [("rose", "fell"), ("accepted", "rejected"), ("increased", "decreased"), ("improved", "worsened")]:
        assert are_antonyms(a, b)
        assert are_antonyms(b, a)
    for a, b in [("rose", "climbed"), ("stay", "remain"), ("safe", "secure"), ("rose", "rose")]:
        assert not are_antonyms(a, b)


# --- ground cost ----------------------------------------------------------------------------------------------
def test_flip_costs_and_numbers_by_value(vectors) -> None:
    """ARITHMETIC: same positions, so only the content cost remains."""
    a = prepare_meaning_text("prices rose 20 not", vectors)
    b = prepare_meaning_text("prices fell 30 never", vectors)
    cost = a.ground_cost(b)
    assert np.diag(cost).tolist() == [0.0, FLIP_COST, FLIP_COST, 0.0]  # same word, antonyms, 20 ≠ 30, negations
    twenty = prepare_meaning_text("prices rose 20.0 not", vectors)
    assert a.ground_cost(twenty)[2, 2] == 0.0  # numbers compared as values
    assert cost[0, 2] == pytest.approx(FLIP_COST + POSITION_WEIGHT * (0.5 - POSITION_TOLERANCE))  # word vs number
    assert np.allclose(cost, b.ground_cost(a).T)  # symmetric


def test_moved_words_cost_beyond_the_tolerance(vectors) -> None:
    """ARITHMETIC: two words swapped in a two-word sentence each move by ½: 30 · (½ − 0.1) = 12 each, half the mass."""
    a = prepare_meaning_text("police protester", vectors)
    b = prepare_meaning_text("protester police", vectors)
    distance = word_movers_distance(a, b)
    in_place = float(np.linalg.norm(a.vectors[0] - a.vectors[1]))  # moving each word onto the other, in place
    assert distance == pytest.approx(min(in_place, POSITION_WEIGHT * (0.5 - POSITION_TOLERANCE)))
    assert word_movers_distance(a, a) == 0.0
    # the original sees the same bag of words
    assert (
        word_movers_distance(prepare_text("police protester", vectors), prepare_text("protester police", vectors)) == 0
    )


def test_the_negation_of_a_sentence_costs_its_share_of_the_flip() -> None:
    """ARITHMETIC: "not" (1 of 4 kept tokens) cannot match anything but a negation: at least FLIP_COST / 4."""
    result = score_vert(["The minister will not stay in office."], ["The minister will stay in office."],
                        meaning_sensitive=True)  # fmt: skip
    assert result.wmd[0] == 5.0  # ≥ 20 / 4 = 5: the cap
    flows = result.alignment(0).flows()
    assert sum(mass for word, _, mass, _ in flows if word == "not") == pytest.approx(0.25)
    assert all(distance >= FLIP_COST for word, _, _, distance in flows if word == "not")
    original = score_vert(["The minister will not stay in office."], ["The minister will stay in office."])
    assert original.wmd[0] == 0.0  # "not" is one of NLTK's stopwords


# --- ranking on the development cases ----------------------------------------------------------------------------
def test_dev_cases_are_twenty_five_per_kind() -> None:
    assert [case[0] for case in DEV_CASES] == [kind for kind in KINDS for _ in range(5)]
    assert len({case[1] for case in DEV_CASES}) == len(DEV_CASES)


def test_meaning_sensitive_ranks_the_paraphrase_above_the_edit(dev_scores) -> None:
    """DEV_CASES: the original prefers the paraphrase in 2 of 20; the option in 16 (docs/vert.md §11's table).

    Per kind: roles 2/5 (a swap of two similar names, Apple/Samsung, costs their vector distance in place),
    negation 5/5, numbers 5/5, antonym 4/5 (WordNet lists no antonymy for support/oppose).
    """
    assert wins(dev_scores[False]) == 2
    assert wins(dev_scores[True]) == 16
    assert [wins(dev_scores[True], kind) for kind in KINDS] == [2, 5, 5, 4]
    assert all(wins(dev_scores[True], kind) >= wins(dev_scores[False], kind) for kind in KINDS)


def test_paraphrases_score_as_before_when_nothing_moves_or_flips(dev_scores) -> None:
    """DEV_CASES: the option moves a paraphrase's VERT little (synonym swaps keep positions); the edits drop.

    Measured: paraphrases move by 0.033 on average (either way: punctuation no longer hides words), edits drop
    by 0.25 (one rises, by 0.007: "debate." now has a vector).
    """
    paraphrase, edit = (dev_scores[True][k] - dev_scores[False][k] for k in (0, 1))
    assert np.mean(np.abs(paraphrase)) < 0.05
    assert np.mean(edit) < -0.2


# --- the default is the original -------------------------------------------------------------------------------
def test_default_is_bit_identical_and_the_signature_names_the_option() -> None:
    """ORIGINAL: leaving the option out and passing False give the same bits and the same signature."""
    predictions = [case[3] for case in DEV_CASES] + [""]
    references = [case[1] for case in DEV_CASES] + ["a reference"]
    plain = score_vert(predictions, references)
    off = score_vert(predictions, references, meaning_sensitive=False)
    on = score_vert(predictions, references, meaning_sensitive=True)
    for key in ("vert", "sim", "wmd"):
        assert np.array_equal(getattr(plain, key), getattr(off, key))
    assert np.array_equal(plain.sim, on.sim)  # the option leaves the encoder alone
    assert plain.signature == off.signature
    assert "|tokens:lower-split|stopwords:nltk-english-179|oov:drop|wmd:emd-euclidean-raw-nbow|" in plain.signature
    assert "wmd:emd-meaning-flip20-pos30-tol0.1-wordnet-antonyms|" in on.signature
    assert "stopwords:nltk-english-179-keep-negations" in on.signature
    assert on.vert[-1] == plain.vert[-1] == 0.0  # an empty prediction: sim 0, WMD the cap


def test_the_option_is_a_checked_bool() -> None:
    assert VertParams().meaning_sensitive is False
    with pytest.raises(TypeError, match="meaning_sensitive must be a bool"):
        VertParams(meaning_sensitive=1)
    with pytest.raises(TypeError, match="meaning_sensitive must be a bool"):
        score_vert(["a"], ["b"], meaning_sensitive="yes")


def test_the_evaluate_module_takes_the_option() -> None:
    """The module's keyword gives the library's numbers."""
    module_vert = persona_metrics.load("vert")
    predictions, references = [DEV_CASES[10][3]], [DEV_CASES[10][1]]
    out = module_vert.compute(predictions=predictions, references=references, meaning_sensitive=True)
    assert out["vert"] == score_vert(predictions, references, meaning_sensitive=True).means()["vert"]
    assert module_vert.compute(predictions=predictions, references=references)["vert"] == pytest.approx(1.0)
