"""Persona centroids, style similarity, persona inference, and the persona_style module."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

import persona_metrics
from persona_metrics.style import (
    BUILTIN_PERSONAS,
    build_centroids,
    infer_persona,
    jensen_shannon,
    leave_one_out_accuracy,
    load_persona_samples,
    samples_hash,
    score_style,
    split_samples,
    style_band,
)
from persona_metrics.stylometry import feature_vector

NOTE = (
    "We maintain our Overweight rating, as we believe consensus estimates, which remain conservative, "
    "underestimate the operating leverage inherent in the company's recurring revenue base."
)
BLOG = "Wow, they crushed it! Sales are up 11%. Should you buy? I did!"
NEWS = "Harbor Foods raised its sales outlook on Tuesday. The grocer will open two stores, it said."


@pytest.mark.parametrize(
    ("p", "q"), [([1, 2, 3], [3, 2, 1]), ([0.2, 0.0, 0.8], [0.1, 0.5, 0.4]), ([5, 0], [0, 5]), ([1, 1], [1, 1])]
)
def test_jsd_equals_scipy_squared_base_2(p: list[float], q: list[float]) -> None:
    assert jensen_shannon(np.array(p), np.array(q)) == pytest.approx(jensenshannon(p, q, base=2) ** 2, abs=1e-12)


def test_shipped_samples() -> None:
    samples = load_persona_samples()
    assert tuple(samples) == BUILTIN_PERSONAS
    for texts in samples.values():
        assert len(texts) >= 8
        assert all(110 <= len(t.split()) <= 220 for t in texts)


def test_leave_one_out_identification_of_the_shipped_samples() -> None:
    """The metric separates personas: LOO nearest-centroid accuracy ≥ 90 % (the card reports the value)."""
    acc = leave_one_out_accuracy(load_persona_samples())
    assert acc["overall"] >= 0.90
    assert all(acc[p] >= 0.75 for p in BUILTIN_PERSONAS)


def test_own_centroid_gives_similarity_one(tmp_path: Path) -> None:
    res = score_style([NEWS], ["one_text"], persona_samples={"one_text": [NEWS]}, centroid_cache=tmp_path / "c.json")
    assert res.scores[0] == pytest.approx(1.0, abs=1e-12)
    assert res.nearest == ("one_text",)


def test_similarity_is_one_minus_jsd_to_the_centroid(tmp_path: Path) -> None:
    centroids = build_centroids(load_persona_samples(), tmp_path / "c.json")
    res = score_style([BLOG], ["journalist"], centroid_cache=tmp_path / "c.json", return_features=True)
    v, c = feature_vector(BLOG), centroids["journalist"]
    assert res.scores[0] == pytest.approx(1 - jensenshannon(v, c, base=2) ** 2, abs=1e-12)
    assert res.features[0]["exclamation_rate"] == (pytest.approx(v[5]), pytest.approx(c[5]))


def test_registers_are_recognised(tmp_path: Path) -> None:
    res = score_style([NOTE, BLOG, NEWS], ["journalist"] * 3, centroid_cache=tmp_path / "c.json")
    assert res.nearest == ("formal_analyst", "enthusiast", "journalist")


def test_centroid_cache_is_reused_and_rebuilt_when_samples_change(tmp_path: Path) -> None:
    path = tmp_path / "centroids.json"
    samples = {"a": [NOTE], "b": [BLOG]}
    build_centroids(samples, path)
    stored = json.loads(path.read_text())
    assert stored["key"] == samples_hash(samples)
    stored["centroids"]["a"] = [0.5] * 10  # a cached value is used as-is while the key matches
    path.write_text(json.dumps(stored))
    assert build_centroids(samples, path)["a"].tolist() == [0.5] * 10
    changed = {"a": [NOTE, NEWS], "b": [BLOG]}
    rebuilt = build_centroids(changed, path)
    assert json.loads(path.read_text())["key"] == samples_hash(changed)
    assert rebuilt["a"] == pytest.approx((feature_vector(NOTE) + feature_vector(NEWS)) / 2)


def test_user_persona_dir_and_kwarg(tmp_path: Path) -> None:
    (tmp_path / "pirate.txt").write_text("Arr, the ship sails at dawn! Ye be ready?\n---\nAvast! Gold ahoy, mateys!\n")
    res = score_style([BLOG], ["pirate"], persona_dir=tmp_path, centroid_cache=tmp_path / "c.json")
    assert 0 < res.scores[0] <= 1
    override = score_style(
        [BLOG], ["journalist"], persona_samples={"journalist": [BLOG]}, centroid_cache=tmp_path / "c.json"
    )
    assert override.scores[0] == pytest.approx(1.0)


def test_split_samples() -> None:
    assert split_samples("one\n---\n two \n  ---  \n\nthree\n") == ["one", "two", "three"]


@pytest.mark.parametrize(
    ("metadata", "persona"),
    [  # reference/persona_quality_methodology.md, "Automatic Persona Detection", rule by rule
        ({"prompt_type": "Equity Research Note", "author": "J. Doe"}, "formal_analyst"),
        ({"prompt_type": "Update", "author": "Senior Analyst"}, "formal_analyst"),
        ({"prompt_type": "Morning Summary", "author": "Desk"}, "journalist"),
        ({"prompt_type": "Market Brief", "author": "Desk"}, "journalist"),
        ({"prompt_type": "Market Brief", "author": "Jane Roe, PhD"}, "journalist"),  # rule 2 before rule 3
        ({"prompt_type": "Research Note", "author": "Morning Summary Desk"}, "formal_analyst"),  # rule 1 first
        ({"prompt_type": "Commentary", "author": "Jane Roe, CFA"}, "formal_analyst"),
        ({"prompt_type": "Commentary", "author": "Chief Economist"}, "formal_analyst"),
        ({"prompt_type": "Commentary", "author": "Staff"}, "journalist"),
        ({}, "journalist"),
        ({"prompt_type": "research note", "author": "analyst"}, "journalist"),  # case-sensitive, as written
        ({"prompt_type": "Research Note", "persona": "enthusiast"}, "enthusiast"),  # explicit override
    ],
)
def test_infer_persona(metadata: dict, persona: str) -> None:
    assert infer_persona(metadata) == persona


@pytest.mark.parametrize(
    ("score", "band"), [(0.95, "Excellent"), (0.9, "Excellent"), (0.85, "Good"), (0.7, "Acceptable"), (0.69, "Poor")]
)
def test_style_bands(score: float, band: str) -> None:
    assert style_band(score) == band


@pytest.mark.parametrize(
    ("predictions", "personas", "error", "match"),
    [
        ([NOTE, BLOG], ["journalist", "pirate"], ValueError, r"personas\[1\] = 'pirate'.*enthusiast"),
        ([NOTE, BLOG], ["journalist"], ValueError, "personas has 1"),
        ([NOTE, "   "], ["journalist", "journalist"], ValueError, r"predictions\[1\]"),
        ([NOTE, "?!"], ["journalist", "journalist"], ValueError, r"predictions\[1\]: text has no words"),
        ([NOTE, 3], ["journalist", "journalist"], TypeError, r"predictions\[1\]"),
    ],
)
def test_bad_input(predictions: list, personas: list, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        score_style(predictions, personas)


# --- the evaluate module ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def module():
    return persona_metrics.load("persona_style")


def test_module_matches_the_library(module) -> None:
    out = module.compute(
        predictions=[NOTE, BLOG], personas=["formal_analyst", "enthusiast"], return_nearest=True, return_features=True
    )
    lib = score_style([NOTE, BLOG], ["formal_analyst", "enthusiast"])
    assert out["scores"] == pytest.approx(lib.scores.tolist(), abs=1e-15)
    assert out["style_similarity"] == pytest.approx(lib.mean, abs=1e-15)
    assert out["nearest_persona"] == ["formal_analyst", "enthusiast"]
    assert out["bands"] == [style_band(s) for s in lib.scores]
    assert set(out["features"][0]) == set(json.loads(json.dumps(out["features"][0])))


def test_module_bad_input_names_field_and_index(module) -> None:
    with pytest.raises(ValueError, match=r"personas\[0\]"):
        module.compute(predictions=[NOTE], personas=["   "])
    with pytest.raises(ValueError, match=r"personas\[0\] = 'pirate'"):
        module.compute(predictions=[NOTE], personas=["pirate"])


def test_module_docstring_examples_run(registered_modules: str) -> None:
    from conftest import run_module_doctests

    result = run_module_doctests("persona_style")
    assert result.failed == 0
    assert result.attempted >= 4


def test_library_doctests() -> None:
    from persona_metrics import style

    assert doctest.testmod(style).failed == 0
