"""Params passed down: each entry point takes a params object or its options, and each option is checked once.

Golden values: the same library call with the options one by one (the form every earlier release had), compared
exactly; the check counts by instrumenting ``Spec.validate``, the one place an option is checked.
"""

from __future__ import annotations

import collections

import pytest

import persona_metrics
from persona_metrics import params as P
from persona_metrics.persona.params import QualityParams, StyleParams
from persona_metrics.persona.style import score_style
from persona_metrics.personalization import PersevalParams

NOTES = ["Shares rose 4% after the report.", "Wow!! Best phone ever!!"]
PERSONAS = ["journalist", "enthusiast"]


@pytest.fixture
def validated(monkeypatch) -> collections.Counter:
    """How often each option name is checked (``Spec.validate`` calls) while the test runs."""
    counts: collections.Counter = collections.Counter()
    original = P.Spec.validate

    def counting(self, name, value):  # type: ignore[no-untyped-def]
        counts[name] += 1
        return original(self, name, value)

    monkeypatch.setattr(P.Spec, "validate", counting)
    return counts


def test_from_call_takes_either_form_and_refuses_both() -> None:
    assert PersevalParams.from_call(None, {"beta": 2.0}) == PersevalParams(beta=2.0)
    given = PersevalParams(beta=2.0)
    assert PersevalParams.from_call(given, {}) is given
    assert PersevalParams.from_call(given, {"alpha": PersevalParams.default("alpha")}) is given  # a default: not given
    with pytest.raises(TypeError, match=r"give either a PersevalParams or the options \['alpha'\], not both"):
        PersevalParams.from_call(given, {"alpha": 1.0})
    with pytest.raises(TypeError, match="params must be a PersevalParams, got StyleParams"):
        PersevalParams.from_call(StyleParams(), {})
    with pytest.raises(TypeError, match=r"unknown option\(s\) \['bta'\]"):
        PersevalParams.from_call(None, {"bta": 1.0})


def test_of_checked_builds_without_checking_again(validated) -> None:
    style = QualityParams(style_method="zscore").style
    assert style == StyleParams(method="zscore")
    validated.clear()
    assert QualityParams(style_method="zscore").style.method == "zscore"
    assert validated["method"] == 0  # the style options were checked as QualityParams' fields, once
    with pytest.raises(TypeError, match=r"unknown option\(s\) \['style_method'\]"):
        StyleParams.of_checked(style_method="jsd")


def test_score_style_takes_its_params_object() -> None:
    by_keywords = score_style(NOTES, PERSONAS, method="zscore", bootstrap=50, seed=3)
    by_object = score_style(NOTES, PERSONAS, params=StyleParams(method="zscore", bootstrap=50, seed=3))
    assert by_object.scores.tolist() == by_keywords.scores.tolist()
    assert (by_object.signature, by_object.intervals) == (by_keywords.signature, by_keywords.intervals)
    with pytest.raises(TypeError, match="not both"):
        score_style(NOTES, PERSONAS, method="zscore", params=StyleParams())


@pytest.mark.parametrize(
    ("name", "inputs", "option", "value"),
    [
        ("persona_style", {"predictions": NOTES, "personas": PERSONAS}, "method", "zscore"),
        ("perseval", {"predictions": ["a b", "c d"], "references": ["a b c", "c d e"], "documents": ["D", "D"]},
         "distance", "jsd"),
    ],
)  # fmt: skip
def test_a_module_checks_each_option_once_per_compute(validated, name, inputs, option, value) -> None:
    """The module checks the options when compute starts and passes the params objects down (it was 2–3 checks)."""
    module = persona_metrics.load(name)
    validated.clear()
    module.compute(**inputs, **{option: value})
    assert validated[option] == 1


def test_persona_quality_checks_style_method_once(validated) -> None:
    """style_method was checked three times under two names (style_method twice, method once): now once."""
    module = persona_metrics.load("persona_quality")
    validated.clear()
    module.compute(predictions=NOTES, references=NOTES, personas=PERSONAS, style_method="zscore")
    assert (validated["style_method"], validated["method"]) == (1, 0)
