"""Paired significance tests and bootstrap intervals (``persona_metrics.significance``, docs/significance.md).

Golden sources: hand enumeration of sign patterns (written out below), ``scipy.stats.permutation_test`` for the
exact case, hand arguments for the bootstrap (every difference positive, a two-unit case with a known law),
and the old inline implementation of the document bootstrap for ``bootstrap_interval``.
"""

from __future__ import annotations

import itertools
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import permutation_test

from persona_metrics import PersonaMetricsWarning
from persona_metrics.persona.comparison import compare_quality
from persona_metrics.personalization.comparison import compare_personalization
from persona_metrics.significance import (
    bootstrap_interval,
    bootstrap_intervals,
    paired_bootstrap_test,
    paired_permutation_test,
    paired_test,
)

ROOT = Path(__file__).resolve().parents[1]
PENS = ROOT / "data" / "pens_sample"

# --- the permutation test by hand ----------------------------------------------------------------------------
# A = (4, 2, 5, 1), B = (1, 1, 3, 2): d = A − B = (3, 1, 2, −1), observed sum 5 (mean 1.25).
# Flipping signs gives the 16 sums ±3 ±1 ±2 ±1 (the sign of the last −1 is a flip like any other):
#   +3+1+2+1 = 7   +3+1+2−1 = 5   +3+1−2+1 = 3   +3+1−2−1 = 1
#   +3−1+2+1 = 5   +3−1+2−1 = 3   +3−1−2+1 = 1   +3−1−2−1 = −1
#   −3+1+2+1 = 1   −3+1+2−1 = −1  −3+1−2+1 = −3  −3+1−2−1 = −5
#   −3−1+2+1 = −1  −3−1+2−1 = −3  −3−1−2+1 = −5  −3−1−2−1 = −7
# |sum| >= 5 for 7, 5, 5, −5, −5, −7: 6 patterns of 16, so the exact two-sided p = 6/16 = 0.375.
TOY_A = [4.0, 2.0, 5.0, 1.0]
TOY_B = [1.0, 1.0, 3.0, 2.0]


def test_exact_permutation_p_by_hand() -> None:
    test = paired_permutation_test(TOY_A, TOY_B)  # 2**4 = 16 <= 10000: every pattern enumerated
    assert test.exact
    assert test.n_resamples == 16
    assert test.p_value == 6 / 16 == 0.375
    assert (test.mean_a, test.mean_b, test.difference) == (3.0, 1.75, 1.25)
    assert test.ci_low is None
    assert test.ci_high is None
    assert test.method == "permutation"
    assert test.n_units == 4


def test_exact_permutation_p_matches_scipy() -> None:
    """An independent implementation: scipy's exact paired permutation test of the mean difference."""
    rng = np.random.default_rng(7)
    for n in (3, 5, 8, 11):
        a, b = rng.random(n), rng.random(n)
        ours = paired_permutation_test(a, b).p_value
        theirs = permutation_test(
            (a, b), lambda x, y: np.mean(x - y), permutation_type="samples", n_resamples=np.inf
        ).pvalue
        assert ours == pytest.approx(theirs, abs=1e-12), n


def test_sampled_permutation_p_is_count_plus_one_over_draws_plus_one() -> None:
    """20 differences of +1: only the all-+ and all-− patterns (probability 2 / 2**20) reach |mean| = 1, so with
    1000 draws the count is 0 and p = (0 + 1) / (1000 + 1)."""
    test = paired_permutation_test(np.ones(20), np.zeros(20), n_resamples=1000, seed=3)
    assert not test.exact
    assert test.n_resamples == 1000
    assert test.p_value == 1 / 1001


def test_sampled_permutation_p_is_close_to_the_exact_one() -> None:
    rng = np.random.default_rng(11)
    a, b = rng.random(12), rng.random(12)
    exact = paired_permutation_test(a, b, n_resamples=4096).p_value  # 2**12 = 4096: exact
    sampled = paired_permutation_test(a, b, n_resamples=4095, seed=5).p_value  # one short of exact: sampled
    assert abs(exact - sampled) < 0.03


# --- the bootstrap test by hand ------------------------------------------------------------------------------
def test_bootstrap_all_differences_positive_gives_p_zero() -> None:
    """Every d_i > 0, so every resample mean is > 0: no resample lacks the observed sign."""
    test = paired_bootstrap_test([3.0, 4.0, 5.0, 9.0], [1.0, 1.0, 1.0, 1.0], n_resamples=500, seed=1)
    assert test.p_value == 0.0
    assert test.difference == 4.25
    assert 2.0 <= test.ci_low <= test.difference <= test.ci_high <= 8.0  # resample means of d = (2, 3, 4, 8)
    assert test.method == "bootstrap"
    assert test.n_resamples == 500
    assert not test.exact


def test_bootstrap_two_units_by_hand() -> None:
    """d = (2, −1), observed mean 0.5 > 0. A resample is two draws: (2, 2) → 2, (2, −1) or (−1, 2) → 0.5,
    (−1, −1) → −1, so P(mean <= 0) = 1/4: p is a binomial share around 0.25 (sd 0.0068 for 4000 draws)."""
    test = paired_bootstrap_test([2.0, -1.0], [0.0, 0.0], n_resamples=4000, seed=2)
    assert test.p_value == pytest.approx(0.25, abs=0.03)
    assert (test.ci_low, test.ci_high) == (-1.0, 2.0)
    negative = paired_bootstrap_test([-2.0, 1.0], [0.0, 0.0], n_resamples=4000, seed=2)
    assert negative.p_value == test.p_value  # the mirror case counts resamples >= 0
    assert negative.difference == -0.5


def test_bootstrap_interval_of_the_difference_is_the_one_system_interval_of_d() -> None:
    rng = np.random.default_rng(4)
    a, b = rng.random(30), rng.random(30)
    test = paired_bootstrap_test(a, b, n_resamples=300, seed=9)
    assert (test.ci_low, test.ci_high) == bootstrap_interval(a - b, 300, 9)


# --- a system against itself -----------------------------------------------------------------------------
@pytest.mark.parametrize("n", [4, 40])
def test_a_system_against_itself_has_p_one(n: int) -> None:
    values = np.random.default_rng(n).random(n)
    permutation = paired_permutation_test(values, values)
    assert permutation.p_value == 1.0
    assert permutation.exact == (n == 4)
    bootstrap = paired_bootstrap_test(values, values)
    assert bootstrap.p_value == 1.0
    assert bootstrap.difference == 0.0
    assert (bootstrap.ci_low, bootstrap.ci_high) == (0.0, 0.0)


def test_ties_within_rounding_count_as_extreme() -> None:
    """Differences of ±0.1 summing to zero in exact arithmetic: every pattern is at least as extreme."""
    a = [0.1, 0.2, 0.3, 0.4, 0.5] * 4
    b = [0.2, 0.1, 0.4, 0.3, 0.5] * 4
    assert paired_permutation_test(a, b, n_resamples=500).p_value == 1.0


# --- seeds ----------------------------------------------------------------------------------------------------
def test_same_seed_same_p_and_interval() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.random(50), rng.random(50) + 0.05
    assert paired_permutation_test(a, b, seed=3) == paired_permutation_test(a, b, seed=3)
    assert paired_bootstrap_test(a, b, seed=3) == paired_bootstrap_test(a, b, seed=3)
    assert bootstrap_interval(a, 200, 3) == bootstrap_interval(a, 200, 3)
    draws = {paired_permutation_test(a, b, n_resamples=200, seed=s).p_value for s in range(5)}
    assert len(draws) > 1  # the seed matters when the test is sampled


def test_paired_test_by_name() -> None:
    assert paired_test(TOY_A, TOY_B) == paired_permutation_test(TOY_A, TOY_B)
    assert paired_test(TOY_A, TOY_B, method="bootstrap", seed=1) == paired_bootstrap_test(TOY_A, TOY_B, seed=1)
    with pytest.raises(ValueError, match="method must be one of"):
        paired_test(TOY_A, TOY_B, method="t-test")


# --- the result object ------------------------------------------------------------------------------------
def test_as_dict() -> None:
    test = paired_permutation_test(TOY_A, TOY_B)
    assert test.as_dict() == {
        "mean_a": 3.0,
        "mean_b": 1.75,
        "difference": 1.25,
        "p_value": 0.375,
        "ci_low": None,
        "ci_high": None,
        "method": "permutation",
        "n_units": 4,
        "n_resamples": 16,
        "seed": 0,
        "exact": True,
    }
    boot = paired_bootstrap_test(TOY_B, TOY_A, n_resamples=100).as_dict()
    assert (boot["method"], boot["difference"], boot["exact"]) == ("bootstrap", -1.25, False)
    assert boot["ci_low"] <= -1.25 <= boot["ci_high"]


# --- bad input ------------------------------------------------------------------------------------------------
BAD = [
    (([1.0, 2.0], [1.0]), {}, ValueError, "a has 2 units but b has 1"),
    (([], []), {}, ValueError, "a has no unit"),
    (([1.0, 2.0, 3.0], [1.0, 2.0, math.nan]), {}, ValueError, r"b\[2\] is not finite"),
    (([1.0, math.inf], [1.0, 2.0]), {}, ValueError, r"a\[1\] is not finite"),
    (([[1.0, 2.0]], [[1.0, 2.0]]), {}, ValueError, "a must be one-dimensional"),
    (("12", [1.0, 2.0]), {}, TypeError, "a must be a sequence of numbers"),
    ((["x", "y"], [1.0, 2.0]), {}, TypeError, "a must hold real numbers"),
    (([1.0], [2.0]), {"n_resamples": 0}, ValueError, r"n_resamples must be an int from 1 to 100,000,000"),
    (([1.0], [2.0]), {"n_resamples": 10**40}, ValueError, r"from 1 to 100,000,000 \(MAX_TEST_RESAMPLES\)"),
    (([1.0], [2.0]), {"n_resamples": True}, TypeError, "n_resamples must be an int"),
    (([1.0], [2.0]), {"n_resamples": 10.0}, TypeError, "n_resamples must be an int"),
    (([1.0], [2.0]), {"seed": "1"}, TypeError, "seed must be an int"),
]


@pytest.mark.parametrize("test_fn", [paired_permutation_test, paired_bootstrap_test])
@pytest.mark.parametrize(("args", "kwargs", "error", "message"), BAD)
def test_bad_input_names_the_argument(test_fn, args, kwargs, error, message) -> None:
    with pytest.raises(error, match=message):
        test_fn(*args, **kwargs)


def test_bootstrap_interval_bad_input() -> None:
    with pytest.raises(ValueError, match=r"values\[1\] is not finite"):
        bootstrap_interval([0.5, math.nan], 10, 0)
    with pytest.raises(ValueError, match=r"n_resamples must be an int from 1 to 100,000,000 \(MAX_TEST_RESAMPLES\)"):
        bootstrap_interval([0.5], 0, 0)
    with pytest.raises(ValueError, match="the columns must cover the same units"):
        bootstrap_intervals({"a": [1.0, 2.0], "b": [1.0]}, 10, 0)
    with pytest.raises(ValueError, match=r"b: values\[0\] is not finite"):
        bootstrap_intervals({"a": [1.0], "b": [math.nan]}, 10, 0)


# --- bootstrap_interval is the old document bootstrap -----------------------------------------------------------
def _old_bootstrap_interval(per_document: np.ndarray, n: int, seed: int) -> tuple[float, float]:
    """The implementation that lived in ``personalization.formulas`` before the move, verbatim."""
    rng = np.random.default_rng(seed)
    means = per_document[rng.integers(0, len(per_document), size=(n, len(per_document)))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(lo), float(hi)


def test_bootstrap_interval_values_did_not_change() -> None:
    from persona_metrics.personalization import bootstrap_interval as reexported

    assert reexported is bootstrap_interval
    rng = np.random.default_rng(1)
    for size, n, seed in itertools.product((1, 2, 57), (2, 1000), (0, 12345)):
        values = rng.random(size)
        assert bootstrap_interval(values, n, seed) == _old_bootstrap_interval(values, n, seed)


# --- the library's results ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pens_results():
    from persona_metrics.datasets.pens import baseline_predictions, load_pens
    from persona_metrics.personalization import PersonalizationScorer

    ds = load_pens(PENS)
    scorer = PersonalizationScorer(ds["reference"], ds["document"], ds["news_id"], distance="rougeL")
    return ds, {name: scorer.score(baseline_predictions(ds, name)) for name in ("oracle", "lead", "headline")}


def test_oracle_beats_lead_on_the_pens_sample(pens_results) -> None:
    _, results = pens_results
    oracle, lead = results["oracle"], results["lead"]
    test = compare_personalization(oracle, lead)  # PerSEval, permutation, 10000 resamples
    assert test.p_value < 0.05
    assert test.p_value == 1 / 10001  # no sign pattern of the 64 documents reaches the observed difference
    assert (test.mean_a, test.mean_b) == (oracle.perseval, lead.perseval)  # the system scores, exactly
    assert test.n_units == oracle.num_documents == 64
    degress = compare_personalization(oracle, lead, "degress", method="bootstrap", seed=4)
    assert degress.p_value == 0.0
    assert degress.mean_a == oracle.degress
    assert compare_personalization(oracle, oracle).p_value == 1.0


def test_compare_personalization_needs_the_same_documents(pens_results) -> None:
    from persona_metrics.personalization import score_personalization

    ds, results = pens_results
    keep = [i for i, news in enumerate(ds["news_id"]) if news != ds["news_id"][0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PersonaMetricsWarning)
        other = score_personalization(
            [ds["reference"][i] for i in keep],
            [ds["reference"][i] for i in keep],
            [ds["document"][i] for i in keep],
            [ds["news_id"][i] for i in keep],
        )
    with pytest.raises(ValueError, match=rf"1 only in a \(e.g. \['{ds['news_id'][0]}'\]\), 0 only in b"):
        compare_personalization(results["oracle"], other)
    with pytest.raises(ValueError, match="measure must be one of"):
        compare_personalization(results["oracle"], results["lead"], "egises")


# --- persona quality and style: intervals and comparisons ------------------------------------------------------
REF = "Harbor Foods raised its sales outlook and will open two stores, the company said on Tuesday."
GOOD = [
    "Harbor Foods raised its outlook and plans two new stores, the grocer said on Tuesday.",
    "Harbor Foods lifted its sales forecast on Tuesday and will open two stores.",
    "The grocer Harbor Foods raised its outlook; two stores will open, it said.",
    "Harbor Foods said on Tuesday it raised its sales outlook and will add two stores.",
]
HYPE = [
    "Wow, Harbor Foods rocks! More stores! Buy now?",
    "Huge news!!! Harbor Foods is crushing it!",
    "Grocery stocks? Harbor Foods, baby! To the moon!",
    "OMG two stores!! Who's excited? I am!",
]


@pytest.fixture(scope="module")
def quality_results():
    from persona_metrics.persona.quality import score_quality

    personas = ["journalist"] * 4
    good = score_quality(GOOD, [REF] * 4, personas, bootstrap=200, seed=5)
    hype = score_quality(HYPE, [REF] * 4, personas)
    return good, hype


def test_quality_intervals(quality_results) -> None:
    good, hype = quality_results
    assert set(good.intervals) == set(good.components())
    for name, values in good.components().items():
        assert good.intervals[name] == bootstrap_interval(values, 200, 5)  # every component, same resamples
        lo, hi = good.intervals[name]
        assert lo <= float(values.mean()) <= hi
    out = good.as_dict()
    assert out["overall_quality_ci_low"] == good.intervals["overall_quality"][0]
    assert list(out)[:3] == ["overall_quality", "overall_quality_ci_low", "overall_quality_ci_high"]
    assert good.signature.endswith("|bootstrap:200,seed:5|persona_metrics:0.1.0")
    assert hype.intervals == {}
    assert "overall_quality_ci_low" not in hype.as_dict()
    assert good.with_bootstrap(0) is good


def test_compare_quality(quality_results) -> None:
    good, hype = quality_results
    test = compare_quality(good, hype)
    assert test.exact
    assert test.n_resamples == 16
    assert test.mean_a == good.means()["overall_quality"]
    assert test.p_value == 2 / 16  # every item's difference is positive: only the all-+ and all-− patterns
    assert compare_quality(good, good, "style_similarity").p_value == 1.0
    with pytest.raises(ValueError, match="component must be one of"):
        compare_quality(good, hype, "bleurt")


def test_quality_and_style_bootstrap_options_are_checked() -> None:
    from persona_metrics.persona.quality import score_quality
    from persona_metrics.persona.style import score_style

    with pytest.raises(ValueError, match="bootstrap must be 0"):
        score_quality(GOOD[:1], [REF], ["journalist"], bootstrap=1)
    with pytest.raises(TypeError, match="seed must be an int"):
        score_style(GOOD[:1], ["journalist"], bootstrap=10, seed="x")


def test_style_interval() -> None:
    from persona_metrics.persona.style import score_style

    result = score_style(GOOD + HYPE, ["journalist"] * 8, bootstrap=300, seed=2)
    assert result.intervals == {"style_similarity": bootstrap_interval(result.scores, 300, 2)}
    out = result.as_dict(signature=True)
    assert (out["style_similarity_ci_low"], out["style_similarity_ci_high"]) == result.intervals["style_similarity"]
    assert "bootstrap:300,seed:2" in out["signature"]
    assert "style_similarity_ci_low" not in score_style(GOOD, ["journalist"] * 4).as_dict()


def test_evaluate_modules_return_intervals() -> None:
    import persona_metrics
    from persona_metrics.persona.quality import score_quality
    from persona_metrics.persona.style import score_style

    style = persona_metrics.load("persona_style")
    out = style.compute(predictions=GOOD, personas=["journalist"] * 4, bootstrap=100, seed=8)
    direct = score_style(GOOD, ["journalist"] * 4, bootstrap=100, seed=8)
    assert (out["style_similarity_ci_low"], out["style_similarity_ci_high"]) == direct.intervals["style_similarity"]
    assert "style_similarity_ci_low" not in style.compute(predictions=GOOD, personas=["journalist"] * 4)
    quality = persona_metrics.load("persona_quality")
    out = quality.compute(predictions=GOOD, references=[REF] * 4, personas=["journalist"] * 4, bootstrap=100, seed=8)
    direct = score_quality(GOOD, [REF] * 4, ["journalist"] * 4, bootstrap=100, seed=8)
    for name, (lo, hi) in direct.intervals.items():
        assert (out[f"{name}_ci_low"], out[f"{name}_ci_high"]) == (lo, hi), name


def test_docstring_examples_run() -> None:
    import doctest

    from persona_metrics import significance

    result = doctest.testmod(significance)
    assert result.failed == 0
    assert result.attempted > 0
