"""The 10 stylometric features on hand-counted sentences (counts written next to each value)."""

from __future__ import annotations

import pytest

from persona_metrics.persona import stylometry
from persona_metrics.persona.stylometry import STYLE_FEATURES, feature_vector, raw_features

# Words (12): We sold the shares and the bank rose Why did it fall.
# Sentences (Punkt, 2): "We sold the shares, and the bank rose!" / "Why did it fall?"
TEXT = "We sold the shares, and the bank rose! Why did it fall?"
HAND = {
    "function_word_rate": 5 / 12,  # the, and, the, why, did
    "avg_sentence_length": 12 / 2,
    "type_token_ratio": 11 / 12,  # "the" twice
    "comma_rate": 1 * 100 / 12,
    "period_rate": 0.0,
    "exclamation_rate": 1 * 100 / 12,
    "question_rate": 1 * 100 / 12,
    "pronoun_rate": 2 / 12,  # we, it
    "avg_word_length": 41 / 12,  # 2+4+3+6+3+3+4+4+3+3+2+4
}
# Words (6), sentences (3), periods (3): "Profit rose. Costs fell. Shares gained."
TEXT2 = "Profit rose. Costs fell. Shares gained."
HAND2 = {"avg_sentence_length": 2.0, "period_rate": 50.0, "type_token_ratio": 1.0, "pronoun_rate": 0.0}


@pytest.mark.parametrize("name", sorted(HAND))
def test_features_match_hand_counts(name: str) -> None:
    assert raw_features(TEXT)[name] == pytest.approx(HAND[name], abs=1e-12)


@pytest.mark.parametrize("name", sorted(HAND2))
def test_more_hand_counts(name: str) -> None:
    assert raw_features(TEXT2)[name] == pytest.approx(HAND2[name], abs=1e-12)


def test_flesch_kincaid_equals_textstat_where_the_sentence_definitions_agree() -> None:
    """textstat called directly on the offline-recipe sentence pair (2 sentences, 19 words, 32 syllables: 7.99)."""
    import textstat

    text = (
        "The quick brown fox jumps over the lazy dog. Readability formulas estimate how hard a passage is to "
        "understand."
    )
    assert raw_features(text)["flesch_kincaid_grade"] == pytest.approx(textstat.flesch_kincaid_grade(text), abs=1e-12)
    assert raw_features(text)["flesch_kincaid_grade"] == pytest.approx(7.9887, abs=1e-4)


# One Punkt sentence of 16 words; the decimal points and the thousands comma belong to numbers.
DECIMALS = "Revenue rose 4.5 percent to 35.10 billion dollars on 1,200 new contracts, the company said Tuesday."
# Syllables by hand (CMUdict): Re-ve-nue 3, rose 1, per-cent 2, to 1, bil-lion 2, dol-lars 2, on 1, new 1,
# con-tracts 2, the 1, com-pa-ny 3, said 1, Tues-day 2 = 22, plus the three numbers as textstat counts them.
HAND_DECIMALS = {"avg_sentence_length": 16.0, "period_rate": 100 / 16, "comma_rate": 100 / 16}


@pytest.mark.parametrize("name", sorted(HAND_DECIMALS))
def test_numbers_are_words_not_sentence_ends(name: str) -> None:
    assert stylometry.words(DECIMALS)[2:6] == ["4.5", "percent", "to", "35.10"]
    assert raw_features(DECIMALS)[name] == pytest.approx(HAND_DECIMALS[name], abs=1e-12)


def test_flesch_kincaid_by_hand_on_a_sentence_with_numbers() -> None:
    """Kincaid et al. (1975): 0.39 · 16/1 + 11.8 · syllables/16 − 15.59 (textstat would count 4 sentences)."""
    n_syllables = 22 + sum(stylometry.syllables(n) for n in ("4.5", "35.10", "1,200"))
    expected = 0.39 * 16 / 1 + 11.8 * n_syllables / 16 - 15.59
    assert raw_features(DECIMALS)["flesch_kincaid_grade"] == pytest.approx(expected, abs=1e-12)


def test_apostrophes_stay_inside_words() -> None:
    assert stylometry.words("We're sure the company's plan works") == [
        "We're",
        "sure",
        "the",
        "company's",
        "plan",
        "works",
    ]


def test_vector_is_raw_over_named_scales() -> None:
    raw, vec = raw_features(TEXT), feature_vector(TEXT)
    assert len(vec) == len(STYLE_FEATURES) == 10
    assert vec[1] == pytest.approx(raw["avg_sentence_length"] / stylometry.SENTENCE_LENGTH_SCALE)
    assert vec[3] == pytest.approx(raw["comma_rate"] / stylometry.PUNCTUATION_RATE_SCALE)
    assert vec[8] == pytest.approx(max(0.0, raw["flesch_kincaid_grade"]) / stylometry.FK_GRADE_SCALE)
    assert vec[9] == pytest.approx(raw["avg_word_length"] / stylometry.WORD_LENGTH_SCALE)
    assert (vec >= 0).all()


@pytest.mark.parametrize(("text", "error"), [("", ValueError), ("  ...  ", ValueError), (None, TypeError)])
def test_text_without_words_is_refused(text: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="text"):
        raw_features(text)  # type: ignore[arg-type]


def test_module_doctests() -> None:
    import doctest

    assert doctest.testmod(stylometry).failed == 0


# Register markers, hand-counted. Words (20): I think we said you were right but analysts told
# us “we may see risk” on Monday and I'm sure.
MARKER_TEXT = "I think we said you were right, but analysts told us “we may see risk” on Monday, and I'm sure."
MARKER_HAND = {
    "first_singular_rate": 2 * 100 / 20,  # I, I'm
    "first_plural_rate": 3 * 100 / 20,  # we, us, we
    "second_person_rate": 1 * 100 / 20,  # you
    "reporting_rate": 2 * 100 / 20,  # said, told
    "quotation_rate": 2 * 100 / 20,  # “ ”
    "stance_rate": 3 * 100 / 20,  # may, see, risk
    "weekday_rate": 1 * 100 / 20,  # Monday
}


@pytest.mark.parametrize("name", stylometry.REGISTER_MARKERS)
def test_register_markers_match_hand_counts(name: str) -> None:
    assert len(stylometry.words(MARKER_TEXT)) == 20
    assert stylometry.raw_markers(MARKER_TEXT)[name] == pytest.approx(MARKER_HAND[name], abs=1e-12)


def test_style_vector_is_the_feature_vector_then_the_markers() -> None:
    """The methodology's 10 values bit for bit (what centroids and jsd read), then markers / 10."""
    vec = stylometry.style_vector(MARKER_TEXT)
    assert vec[:10].tolist() == feature_vector(MARKER_TEXT).tolist()
    assert vec[10:].tolist() == pytest.approx([MARKER_HAND[n] / 10 for n in stylometry.REGISTER_MARKERS], abs=1e-12)
    with pytest.raises(ValueError, match="no words"):
        stylometry.raw_markers("...")
