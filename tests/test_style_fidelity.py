"""The ``fidelity`` style method (docs/style.md §4.8): its math against independent computations, its cache, its
errors, and its behaviour on texts written for these tests (not the development or validity texts).

Independent sources: scipy.stats.t.logpdf and scipy.stats.norm.cdf for the densities and the calibration, numpy's
unconstrained least squares for the length model where its solution is non-negative (then equal to the
non-negative one), and the equations of the module docstring written out here.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from style_cache_damage import rescored_after_damage

from persona_metrics.persona import fidelity as F
from persona_metrics.persona import score_style, style
from persona_metrics.persona.formulas import BACKGROUND_PREFIX, FIDELITY_SLICE, text_vector
from persona_metrics.persona.samples import load_persona_samples
from persona_metrics.persona.stylometry import FIDELITY_FEATURES, excerpts, fidelity_vector, raw_extras
from persona_metrics.warning import PersonaMetricsWarning

# Written for these tests: three short texts per register.
ENTHUSIAST = [
    "Okay folks, I just doubled my position in Larkspur Mills and honestly I can't stop smiling! Orders up 20%? "
    "Yes please. Who else is holding?",
    "Guys, the Harbour Hawks won again! Three in a row! I was screaming at the telly the whole second half, "
    "honestly the best night of the season.",
    "I sold half my Quillon shares today and wow, what a ride. Was it the right call? No idea, but I'm sleeping "
    "better already!",
]
JOURNALIST = [
    "Larkspur Mills said on Monday that quarterly orders rose 20% to 4.1 million units, sending its shares up 6% "
    'in early trading. "Demand held up across every region," chief executive Dana Moor said.',
    "The Harbour Hawks beat Westfield 3-1 on Saturday, their third straight win, moving them to fourth in the "
    "league table, the club said in a statement.",
    "Quillon Holdings shares fell 4% on Thursday after the company cut its annual sales forecast, citing weaker "
    "demand in Europe, according to a filing.",
]
CHAT = (
    "sam: ok see u at 5 outside the station\njo: can u bring the charger pls mine died\nsam: yep and milk?\n"
    "jo: yes semi skimmed lol\nsam: ok omw"
)


# --- stylometry -----------------------------------------------------------------------------------------------------
def test_extras_by_hand() -> None:
    text = 'I can\'t stop (really): Brindlewood rose 4.5% on Tuesday; "hi" to Mary Jones.\nThanks, guys!'
    # words: I can't stop really Brindlewood rose 4.5 on Tuesday hi to Mary Jones Thanks guys = 15
    extras = raw_extras(text)
    assert extras["contraction_rate"] == pytest.approx(1 / 15)  # can't
    assert extras["digit_rate"] == pytest.approx(1 / 15)  # 4.5
    # capitals I, Brindlewood, Tuesday, Mary, Jones, Thanks = 6, two of them open a Punkt sentence (I, Thanks)
    assert extras["capital_rate"] == pytest.approx(4 / 15)
    assert extras["bracket_rate"] == pytest.approx(100 / 15)
    assert extras["colon_rate"] == pytest.approx(200 / 15)  # ":" and ";"
    assert extras["line_break_rate"] == pytest.approx(100 / 15)
    assert extras["salutation_rate"] == pytest.approx(2 / 15)  # hi, thanks
    assert extras["casual_rate"] == pytest.approx(1 / 15)  # guys


def test_fidelity_vector_reuses_the_style_vector_and_counts_words() -> None:
    vector, words = fidelity_vector(JOURNALIST[0])
    assert vector.shape == (len(FIDELITY_FEATURES),)
    assert words == 33
    assert "type_token_ratio" not in FIDELITY_FEATURES  # its mean falls with length whatever the register
    assert text_vector(JOURNALIST[0], "x").shape == (17,)  # the other methods' vector
    full = text_vector(JOURNALIST[0], "x", fidelity=True)
    assert np.array_equal(full[FIDELITY_SLICE], vector)
    assert full[-1] == words


def test_excerpts_are_sentence_prefixes() -> None:
    text = " ".join(["One two three four five six seven eight nine ten."] * 5)  # 5 sentences of 10 words
    assert [len(e.split()) for e in excerpts(text, (15, 30, 100))] == [20, 30]


# --- the model's math against independent computations --------------------------------------------------------------
def test_length_model_is_least_squares_of_squared_deviations_on_one_over_n() -> None:
    rng = np.random.default_rng(0)
    n = rng.integers(20, 250, size=200).astype(float)
    x = rng.normal(0.5, np.sqrt(0.01 + 2.0 / n))[:, None]
    mean, between, within = F._length_model(x, n)
    squared = (x[:, 0] - x[:, 0].mean()) ** 2 * 200 / 199
    (a, b), *_ = np.linalg.lstsq(np.column_stack([np.ones(200), 1 / n]), squared, rcond=None)
    assert a > 0
    assert b > 0
    assert mean[0] == pytest.approx(x.mean())
    assert between[0] == pytest.approx(a)
    assert within[0] == pytest.approx(b)


def test_log_densities_are_student_t_with_the_length_variance() -> None:
    rng = np.random.default_rng(1)
    profiles = F.Profiles(
        mean=rng.random((3, 4)),
        between=rng.random((3, 4)) * 0.01,
        within=rng.random((3, 4)),
        floor_between=np.full(4, 0.002),
        floor_within=np.full(4, 0.05),
    )
    x, n = rng.random((2, 4)), np.array([30.0, 200.0])
    got = profiles.log_densities(x, n)
    for i in range(2):
        for c in range(3):
            var = np.maximum(profiles.between[c] + profiles.within[c] / n[i], 0.002 + 0.05 / n[i])
            expected = stats.t.logpdf(x[i], F.T_DEGREES, loc=profiles.mean[c], scale=np.sqrt(var)).sum()
            assert got[i, c] == pytest.approx(expected, rel=1e-12)


def test_evidence_against_every_other_register_and_against_the_background() -> None:
    logs = np.array([[-1.0, -3.0, -2.0, -5.0]])  # two personas, two background registers
    e = F.evidence(logs, 2)
    assert e[0, 0, 0] == pytest.approx(-1.0 - math.log(np.mean(np.exp([-3.0, -2.0, -5.0]))))
    assert e[0, 0, 1] == pytest.approx(-3.0 - math.log(np.mean(np.exp([-1.0, -2.0, -5.0]))))
    assert e[0, 1, 0] == pytest.approx(-1.0 - math.log(np.mean(np.exp([-2.0, -5.0]))))
    assert e[0, 1, 1] == pytest.approx(-3.0 - math.log(np.mean(np.exp([-2.0, -5.0]))))


def test_fidelity_is_half_own_percentile_and_half_the_background_percentiles() -> None:
    model = style.build_centroids(load_persona_samples(), None, fidelity=True).fidelity
    assert model is not None
    vector, words = fidelity_vector(ENTHUSIAST[0])
    e = model.evidence(vector, np.array([words]))[0]
    k = model.personas.index("enthusiast")
    log_n = math.log(words)
    parts = []
    for column, value in enumerate([e[0, k]] + [e[1, k]] * len(model.background)):
        a, b, s, t = model.calibration[k, column]
        sd = max(s + t * log_n, model.sd_floor[k, column])
        parts.append(stats.norm.cdf(value, loc=a + b * log_n, scale=sd))
    expected = 0.5 * parts[0] + 0.5 * np.mean(parts[1:])
    assert model.scores(vector, words)["enthusiast"] == pytest.approx(expected, rel=1e-12)


# --- the shipped model ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def scored() -> dict[str, np.ndarray]:
    texts = ENTHUSIAST + JOURNALIST + [CHAT]
    personas = ["enthusiast"] * len(texts)
    result = score_style(texts, personas, method="fidelity")
    other = score_style(texts, ["journalist"] * len(texts), method="fidelity")
    return {"enthusiast": result.scores, "journalist": other.scores, "nearest": np.array(result.nearest)}


def test_each_register_scores_high_for_its_persona_and_is_recognised(scored: dict[str, np.ndarray]) -> None:
    assert list(scored["nearest"][:6]) == ["enthusiast"] * 3 + ["journalist"] * 3
    assert all(scored["enthusiast"][:3] > 0.6)
    assert all(scored["journalist"][3:6] > 0.6)
    assert max(scored["enthusiast"][3:6]) < min(scored["enthusiast"][:3])
    assert max(scored["journalist"][:3]) < min(scored["journalist"][3:6])


def test_a_chat_message_is_low_for_every_persona() -> None:
    chat = score_style([CHAT] * 3, ["enthusiast", "formal_analyst", "journalist"], method="fidelity").scores
    assert all(chat < 0.5), chat


def test_a_prediction_under_twenty_words_is_scored_with_a_warning() -> None:
    """Documented (docs/style.md §4.8): the calibration is fitted on texts of 20 words and more."""
    with pytest.warns(
        PersonaMetricsWarning,
        match=re.escape(
            "1 of 2 predictions have fewer than 20 words (first: predictions[1]); their style evidence is weak"
        ),
    ):
        score_style([JOURNALIST[0], "see u at 5"], ["journalist"] * 2, method="fidelity")


def test_scores_are_deterministic_and_the_signature_names_the_method() -> None:
    first = score_style(JOURNALIST, ["journalist"] * 3, method="fidelity")
    again = score_style(JOURNALIST, ["journalist"] * 3, method="fidelity")
    assert first.scores.tolist() == again.scores.tolist()
    assert "|fidelity:t5,floor=0.1,background,calibrated|" in first.signature


def test_a_persona_with_one_text_has_no_fidelity_model_but_jsd_works() -> None:
    mine = {"solo": ["One text of my own, written for this test."]}
    assert score_style(["Another text."], ["solo"], method="jsd", persona_samples=mine).scores[0] > 0
    with pytest.raises(ValueError, match=re.escape("method 'fidelity' needs at least 2 texts per persona")):
        score_style(["Another text."], ["solo"], method="fidelity", persona_samples=mine)


def test_a_persona_of_the_user_is_fitted_on_its_samples_and_the_background() -> None:
    mine = {"wire": JOURNALIST, "fan": ENTHUSIAST}
    result = score_style(JOURNALIST[:1] + ENTHUSIAST[:1], ["wire", "fan"], method="fidelity", persona_samples=mine)
    assert result.scores.shape == (2,)
    assert np.all((result.scores >= 0) & (result.scores <= 1))


# --- the cache ------------------------------------------------------------------------------------------------------
def test_cache_round_trip_keeps_the_fidelity_model(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    assert style.build_centroids(load_persona_samples(), path).fidelity is None  # fitted only when asked for
    assert json.loads(path.read_text())["fidelity"] is None
    fresh = style.build_centroids(load_persona_samples(), path, fidelity=True)
    stored = json.loads(path.read_text())
    assert stored["built_with"]["fidelity"] == F.FIDELITY_SIGNATURE
    assert stored["fidelity"]["background"][0].startswith(BACKGROUND_PREFIX)
    again = style.build_centroids(load_persona_samples(), path)  # read back with the fidelity model
    assert fresh.fidelity is not None
    assert again.fidelity is not None
    assert np.array_equal(again.fidelity.calibration, fresh.fidelity.calibration)
    assert np.array_equal(again.fidelity.profiles.mean, fresh.fidelity.profiles.mean)


@pytest.mark.parametrize(
    ("damage", "redigest", "match"),
    [
        (lambda d: d["fidelity"]["calibration"][0][0].__setitem__(0, 9.0), False, "does not match its digest"),
        (lambda d: d["fidelity"]["mean"].pop(), True, "unusable"),
        (lambda d: d["fidelity"]["within"][0].__setitem__(0, -1.0), True, "unusable"),
        (lambda d: d["fidelity"]["background"].pop(), True, "unusable"),
    ],
    ids=["calibration-edited", "short-mean", "negative-variance", "missing-register"],
)
def test_a_tampered_fidelity_model_is_refused_with_a_warning(
    tmp_path: Path, damage, redigest: bool, match: str
) -> None:
    stored = rescored_after_damage(
        tmp_path / "c.json", JOURNALIST, ["journalist"] * 3, "fidelity", damage, redigest, match
    )
    assert stored["fidelity"] is not None
