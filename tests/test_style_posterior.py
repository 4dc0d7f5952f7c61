"""persona_style ``method="posterior"``: the persona posterior, its fit, its cache, and what it is for.

The development cases below (``DEV_CASES``) were written for this test file by its author, in the three shipped
registers, in the samples' genre (financial news about invented companies) and outside it (sports, a restaurant,
a garden, city news, a drug trial, a transfer window); they are not the persona samples, not the held-out set and
not the validity cases. The regularisation constant was chosen on the samples alone (test below), never on them.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.special import logsumexp
from style_cache_damage import rescored_after_damage

from persona_metrics.persona import style
from persona_metrics.persona.formulas import STYLE_METHODS, fit_style_model, text_vector, text_vectors
from persona_metrics.persona.params import QualityParams, StyleParams
from persona_metrics.persona.posterior import POSTERIOR_L2, fit_posterior
from persona_metrics.persona.recognition import (
    leave_one_out_accuracy,
    leave_one_out_ranking,
    leave_one_out_similarities,
    own_persona_ranking,
)
from persona_metrics.persona.samples import BUILTIN_PERSONAS, load_persona_samples, register_texts, resolve_samples
from persona_metrics.persona.style import build_centroids, score_style
from persona_metrics.persona.stylometry import REGISTER_MARKERS, STYLE_FEATURES
from persona_metrics.resources import sent_tokenize

#: Development cases (this file's own): per persona, three in the samples' genre, three outside it.
DEV_CASES = {
    "enthusiast": [
        "Kestrel Air just smashed its quarterly numbers! Revenue jumped 22% and they raised the full-year outlook "
        "again. I've held these shares since 2019 and honestly? I'm not selling a single one. Who else is riding "
        "this rocket with me?",
        "Okay, Pinehurst Bank cut its dividend and I'm annoyed! I bought it for the income, you guys. Sure, the "
        "loan book looks shaky, but did they have to slash it by half? I'm holding for now, but my patience is "
        "wearing thin!",
        "Big news, friends! Lumora finally launched its budget phone and the preorders crashed their website. "
        "I grabbed two shares this morning. Is it risky? Sure! But I love this company and I think you should "
        "take a look too.",
        "What a night at the stadium! Our Hawks came back from two goals down and won it in extra time. I was "
        "screaming so loud my voice is gone. Did you see that last save? Honestly, best match I've watched all year!",
        "I finally tried the new ramen place on Fifth Street and wow, you guys need to go! The broth is rich, the "
        "noodles are perfect, and the owner even chatted with us. We'll definitely be back next week. Who's coming?",
        "My tomatoes are finally ripe! After weeks of watering, staking and worrying, I picked the first basket "
        "this morning. They taste amazing, honestly better than anything from the store. Have you started your "
        "garden yet? Tell me what you're growing!",
    ],
    "formal_analyst": [
        "We reiterate our Outperform rating on Kestrel Air, as third-quarter results, which exceeded consensus on "
        "both revenue and margin, corroborate our thesis that disciplined capacity management and a favourable "
        "fare environment will sustain above-peer earnings growth through fiscal 2026.",
        "In our assessment, Pinehurst Bank's decision to reduce its dividend by half, while negative for "
        "income-oriented holders, reflects a prudent recalibration of capital distribution in light of "
        "deteriorating commercial real-estate credit quality; accordingly, we lower our target price to $34.",
        "Lumora's entry into the entry-level handset segment, notwithstanding considerable preorder demand, "
        "introduces margin dilution that we believe consensus underestimates; we therefore maintain our Neutral "
        "rating pending evidence of sustained component-cost reductions.",
        "The municipal transit authority's proposed fare restructuring, although intended to stabilise operating "
        "revenue, is, in our assessment, unlikely to offset structural ridership declines, and we consequently "
        "anticipate further recourse to state capital appropriations over the forecast horizon.",
        "The club's acquisition of two veteran defenders, while addressing an evident positional deficiency, "
        "constrains wage-bill flexibility considerably, and we would therefore characterise the transfer strategy "
        "as defensively oriented rather than consistent with the stated objective of sustained competitiveness.",
        "Preliminary trial results, which indicate a statistically significant reduction in hospital admissions, "
        "nevertheless warrant cautious interpretation, given the limited sample, the absence of long-term safety "
        "data and the heterogeneity of the comparator arms across participating institutions.",
    ],
    "journalist": [
        "Kestrel Air reported a 22% rise in quarterly revenue on Tuesday and raised its full-year forecast. The "
        "airline said demand for summer travel remained strong. Its shares rose 4% in early trading.",
        "Pinehurst Bank cut its quarterly dividend by half on Monday, citing rising losses on commercial property "
        "loans. The lender said it would rebuild capital over the next two years. Shares fell 7%.",
        "Lumora launched its first budget smartphone on Thursday. Heavy demand briefly took down the company's "
        "website, a spokeswoman said. The phone will sell for $199 in the United States.",
        "The Hawks beat the Rovers 3-2 after extra time on Saturday. Striker Dana Cole scored twice in the second "
        "half. The win moves the Hawks into third place in the league.",
        "A new ramen restaurant opened on Fifth Street this week. The owner, Ken Sato, said he spent two years "
        "planning the menu. The restaurant seats 40 people and is open daily from noon.",
        "City officials approved a plan on Wednesday to build 300 affordable homes near the river. Construction "
        "is expected to begin next spring. The project will cost about $85 million, the mayor's office said.",
    ],
}


#: The shipped register texts (development data of this design; their provenance is in the folder's README).
REGISTER_FILE = Path(style.__file__).parent / "register" / "register_texts.jsonl"
#: A text's vector: the 10 features, then the register markers.
VECTOR_SIZE = len(STYLE_FEATURES) + len(REGISTER_MARKERS)


@pytest.fixture(scope="module")
def samples() -> dict[str, list[str]]:
    return load_persona_samples()


def register_vectors(samples: dict[str, list[str]]) -> dict[str, list[np.ndarray]]:
    return {name: text_vectors(texts) for name, texts in register_texts(samples).items()}


@pytest.fixture(scope="module")
def model(samples: dict[str, list[str]]) -> style.StyleModel:
    return fit_style_model({name: text_vectors(texts) for name, texts in samples.items()}, register_vectors(samples))


def dev_similarities(model: style.StyleModel, method: str) -> dict[str, list[dict[str, float]]]:
    return {name: [model.similarities(v, method) for v in text_vectors(texts)] for name, texts in DEV_CASES.items()}


# --- what it is for --------------------------------------------------------------------------------------------
def test_own_persona_ranking_on_the_dev_cases(model: style.StyleModel) -> None:
    """Against each target persona its own texts outrank the others' (pairs) ≥ 0.90 with posterior, in and out of
    the samples' genre; jsd, which punishes an enthusiast text for being past the centroid, does not (0.43)."""
    methods = [m for m in STYLE_METHODS if m != "fidelity"]  # fidelity is fitted from texts: test_style_fidelity.py
    ranking = {method: own_persona_ranking(dev_similarities(model, method)) for method in methods}
    print(ranking)
    assert all(ranking["posterior"][p] >= 0.90 for p in BUILTIN_PERSONAS)
    assert ranking["jsd"]["enthusiast"] < 0.90  # the failure, reproduced on these cases
    for genre in (slice(0, 3), slice(3, 6)):  # in-genre texts only, then cross-genre only
        part = {name: sims[genre] for name, sims in dev_similarities(model, "posterior").items()}
        assert all(value >= 0.90 for value in own_persona_ranking(part).values()), genre


def test_the_dev_cases_are_recognised(model: style.StyleModel) -> None:
    for name, sims in dev_similarities(model, "posterior").items():
        assert all(max(s, key=lambda k: s[k]) == name for s in sims), name


def test_leave_one_out_recognition_and_ranking_on_the_samples(samples: dict[str, list[str]]) -> None:
    """Recognition by argmax posterior at least as good as the centroid's (jsd) per persona; ranking ≥ 0.90."""
    posterior, jsd = leave_one_out_accuracy(samples, "posterior"), leave_one_out_accuracy(samples, "jsd")
    print(posterior, jsd)
    assert all(posterior[k] >= jsd[k] for k in jsd)
    ranking = leave_one_out_ranking(samples, "posterior")
    assert all(ranking[p] >= 0.90 for p in BUILTIN_PERSONAS), ranking


def test_register_texts_left_out_story_by_story(samples: dict[str, list[str]]) -> None:
    """The design's check on its development texts: each register story (its 3 texts) left out of the fit in turn
    and classified: recognition ≥ 0.95 per persona (measured 1.00 / 1.00 / 0.97: one 44-word wire story read as an
    analyst's), and against each target its own texts outrank the others' (≥ 0.99). Fitted on the samples alone
    with the 10 features (the first design), the compact analyst notes were called journalism: recognition of the
    analyst's texts was 0.19 (printed below as ``first design``)."""
    rows = [json.loads(line) for line in REGISTER_FILE.read_text(encoding="utf-8").splitlines()]
    vectors = {name: text_vectors(texts) for name, texts in samples.items()}
    texts = text_vectors([row["text"] for row in rows])
    scored: dict[str, dict[str, list[dict[str, float]]]] = {"posterior": {}, "first design": {}}
    for story in sorted({row["story"] for row in rows}):
        rest = {
            name: [*vs, *(v for v, r in zip(texts, rows, strict=True) if r["persona"] == name and r["story"] != story)]
            for name, vs in vectors.items()
        }
        fitted = fit_posterior(rest)
        first = fit_posterior({name: [v[:10] for v in vs] for name, vs in vectors.items()}, 3.0)
        for v, row in zip(texts, rows, strict=True):
            if row["story"] == story:
                scored["posterior"].setdefault(row["persona"], []).append(fitted.probabilities(v))
                scored["first design"].setdefault(row["persona"], []).append(first.probabilities(v[:10]))
    recognised = {
        design: {name: np.mean([max(s, key=lambda k: s[k]) == name for s in sims]) for name, sims in by.items()}
        for design, by in scored.items()
    }
    print(recognised, {design: own_persona_ranking(by) for design, by in scored.items()})
    assert all(value >= 0.95 for value in recognised["posterior"].values())
    assert all(value >= 0.99 for value in own_persona_ranking(scored["posterior"]).values())
    assert recognised["first design"]["formal_analyst"] < 0.5


def test_register_texts_join_only_shipped_personas_with_their_own_samples(tmp_path: Path) -> None:
    """A persona whose samples the user replaced is fitted on those samples alone (and the cache key differs)."""
    mine = {"journalist": DEV_CASES["journalist"]}
    assert register_texts(resolve_samples(mine)) == {
        name: texts for name, texts in register_texts(load_persona_samples()).items() if name != "journalist"
    }
    own = score_style(DEV_CASES["journalist"], ["journalist"] * 6, method="posterior", persona_samples=mine,
                      centroid_cache=tmp_path / "c.json")  # fmt: skip
    expected = fit_style_model(
        {name: text_vectors(texts) for name, texts in resolve_samples(mine).items()},
        {name: text_vectors(texts) for name, texts in register_texts(resolve_samples(mine)).items()},
    )
    assert own.scores.tolist() == [expected.similarities(v, "posterior")["journalist"]
                                   for v in text_vectors(DEV_CASES["journalist"])]  # fmt: skip


def excerpt_log_loss(samples: dict[str, list[str]], l2: float, sentences: tuple[int, ...]) -> float:
    """Mean −log p(own persona) of each sample's first n sentences, the model fitted without that sample (the
    register texts always in)."""
    vectors = {name: text_vectors(texts) for name, texts in samples.items()}
    register = register_vectors(samples)
    losses = []
    for name, texts in samples.items():
        for i, text in enumerate(texts):
            rest = {
                other: [*(v for j, v in enumerate(vs) if other != name or j != i), *register[other]]
                for other, vs in vectors.items()
            }
            fitted = fit_posterior(rest, l2)
            parts = sent_tokenize(text)
            losses += [-np.log(fitted.probabilities(text_vector(" ".join(parts[:n]), "x"))[name]) for n in sentences]
    return float(np.mean(losses))


def test_the_penalty_is_the_leave_one_out_choice_on_summary_length_excerpts(samples: dict[str, list[str]]) -> None:
    """docs/style.md §4.7: over {0.3, 1, 3, 10, 30}, 1 has the lowest log-loss on 2-, 3- and 4-sentence excerpts
    (0.114, 0.105, 0.116, 0.156, 0.231)."""
    grid = (0.3, 1.0, 3.0, 10.0, 30.0)
    losses = [excerpt_log_loss(samples, l2, (2, 3, 4)) for l2 in grid]
    print(dict(zip(grid, losses, strict=True)))
    assert grid[int(np.argmin(losses))] == POSTERIOR_L2
    assert losses[grid.index(POSTERIOR_L2)] == pytest.approx(0.1048, abs=5e-4)


# --- the model ------------------------------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.0, 2.0), min_size=VECTOR_SIZE, max_size=VECTOR_SIZE))
def test_posterior_sums_to_one_over_the_personas(values: list[float]) -> None:
    probabilities = SHIPPED.similarities(np.array(values), "posterior")
    assert list(probabilities) == list(BUILTIN_PERSONAS)
    assert sum(probabilities.values()) == pytest.approx(1.0, abs=1e-12)
    assert all(0.0 <= p <= 1.0 for p in probabilities.values())


SHIPPED = fit_style_model(
    {name: text_vectors(texts) for name, texts in load_persona_samples().items()},
    register_vectors(load_persona_samples()),
)


def test_the_fit_is_deterministic_and_is_the_optimum_of_an_independent_objective(
    samples: dict[str, list[str]],
) -> None:
    """Two fits are bit-identical; the probabilities equal scipy L-BFGS's on the objective written out here
    (class-balanced cross-entropy + POSTERIOR_L2 / 2 · ‖w‖², intercepts free) to 1e-6. The journalist keeps 8 of
    its samples, so the class balance matters. Each vector is 10 features and 7 register markers (d = 17)."""
    vectors = {name: text_vectors(texts[:8] if name == "journalist" else texts) for name, texts in samples.items()}
    first, second = fit_posterior(vectors), fit_posterior(vectors)
    for name in ("mean", "scale", "weights", "intercepts"):
        assert np.array_equal(getattr(first, name), getattr(second, name)), name
    x = np.array([v[:VECTOR_SIZE] for vs in vectors.values() for v in vs])
    y = np.repeat(np.arange(3), [len(vs) for vs in vectors.values()])
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    balance = len(y) / (3 * np.bincount(y))[y]

    d = VECTOR_SIZE

    def objective(theta: np.ndarray) -> float:
        w, b = theta[: 3 * d].reshape(3, d), theta[3 * d :]
        logits = z @ w.T + b
        nll = sum(balance[i] * (logsumexp(logits[i]) - logits[i, y[i]]) for i in range(len(y)))
        return float(nll + POSTERIOR_L2 / 2 * np.sum(w**2))

    options = {"gtol": 1e-10, "ftol": 1e-15, "maxiter": 20000}
    theta = minimize(objective, np.zeros(3 * d + 3), method="L-BFGS-B", options=options).x
    for text in (*DEV_CASES["enthusiast"][:2], *DEV_CASES["journalist"][4:]):
        v = text_vector(text, "x")[:d]
        logits = theta[: 3 * d].reshape(3, d) @ ((v - x.mean(axis=0)) / x.std(axis=0)) + theta[3 * d :]
        expected = np.exp(logits - logsumexp(logits))
        assert list(first.probabilities(v).values()) == pytest.approx(expected.tolist(), abs=1e-6)


def test_one_persona_is_a_named_error() -> None:
    one = fit_style_model({"solo": text_vectors(DEV_CASES["journalist"])})
    assert one.posterior is None
    with pytest.raises(ValueError, match=r"^method 'posterior' needs a model fitted on at least 2 personas"):
        one.similarities(text_vector(DEV_CASES["journalist"][0], "x"), "posterior")
    with pytest.raises(ValueError, match=r"^method 'posterior' needs at least 2 personas"):
        fit_posterior({"solo": text_vectors(DEV_CASES["journalist"])})


def test_a_feature_constant_in_every_sample_gets_no_weight() -> None:
    """No analyst or wire text here has a question mark: question_rate carries no information, left out (no error)."""
    calm = {name: DEV_CASES[name] for name in ("formal_analyst", "journalist")}
    assert not any("?" in text for texts in calm.values() for text in texts)
    fitted = fit_posterior({name: text_vectors(texts) for name, texts in calm.items()})
    column = STYLE_FEATURES.index("question_rate")
    assert fitted.scale[column] == 1.0
    assert np.all(fitted.weights[:, column] == 0.0)


def test_user_personas_and_the_signature(tmp_path: Path) -> None:
    (tmp_path / "chef.txt").write_text("\n---\n".join(DEV_CASES["enthusiast"][3:]), encoding="utf-8")
    result = score_style(
        DEV_CASES["enthusiast"][3:] + DEV_CASES["journalist"][3:],
        ["chef"] * 6,
        method="posterior",
        persona_dir=tmp_path,
        centroid_cache=tmp_path / "c.json",
    )
    assert "|posterior:logistic+markers,l2=1,balanced,register|" in result.signature
    assert all(s > 0.5 for s in result.scores[:3])
    assert all(s < 0.5 for s in result.scores[3:])
    assert StyleParams(method="posterior").method == QualityParams(style_method="posterior").style.method


# --- the cache ------------------------------------------------------------------------------------------------
def test_cache_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    fresh = build_centroids(load_persona_samples(), path)
    stored = json.loads(path.read_text())
    assert stored["format"] == style.CACHE_FORMAT == 3
    assert stored["built_with"]["posterior"] == "logistic+markers,l2=1,balanced,register"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = build_centroids(load_persona_samples(), path)
    assert again.posterior is not None
    assert fresh.posterior is not None
    for name in ("mean", "scale", "weights", "intercepts"):
        assert np.array_equal(getattr(again.posterior, name), getattr(fresh.posterior, name)), name
    texts = DEV_CASES["enthusiast"] + DEV_CASES["journalist"]
    first = score_style(texts, ["enthusiast"] * 12, method="posterior", centroid_cache=path)
    assert first.scores.tolist() == [SHIPPED.similarities(v, "posterior")["enthusiast"] for v in text_vectors(texts)]


def _swap_weights(record: dict) -> None:
    weights = record["posterior"]["weights"]
    weights[0], weights[1] = weights[1], weights[0]


@pytest.mark.parametrize(
    ("damage", "redigest", "match"),
    [
        (_swap_weights, False, "does not match its digest"),
        (lambda d: d["posterior"]["intercepts"].__setitem__(0, 9.0), False, "does not match its digest"),
        (lambda d: d["posterior"].__setitem__("weights", [[0.0] * 10]), True, "unusable"),
        (lambda d: d["posterior"]["scale"].__setitem__(2, 0.0), True, "unusable"),
        (lambda d: d["posterior"]["personas"].pop(), True, "unusable"),
        (lambda d: d.__setitem__("posterior", None), True, "unusable"),
        (lambda d: [d.pop("format"), d.pop("posterior"), d.pop("fidelity")], True,
         r"is in format 1, not 3 \(the layout with the"),
        (lambda d: [d.__setitem__("format", 2), d.pop("fidelity")], True,
         r"is in format 2, not 3 \(the layout with the"),
        (lambda d: d.__setitem__("format", 4), True, "is in format 4, not 3"),
    ],
    ids=["weights-swapped", "intercept-edited", "short-weights", "zero-scale", "missing-persona", "no-posterior",
         "older-format", "previous-format", "newer-format"],
)  # fmt: skip
def test_a_tampered_or_older_cache_is_refused_with_a_warning(
    tmp_path: Path, damage, redigest: bool, match: str
) -> None:
    """Never read: rebuilt from the samples, with a warning naming the file (an older release's record holds
    no posterior model and carries a digest over its own fields: refused by its format, not misread)."""
    texts, personas = DEV_CASES["formal_analyst"], ["formal_analyst"] * 6
    stored = rescored_after_damage(tmp_path / "c.json", texts, personas, "posterior", damage, redigest, match)
    assert stored["posterior"] is not None


def test_leave_one_out_similarities_skip_a_persona_with_one_sample() -> None:
    sims = leave_one_out_similarities({"a": DEV_CASES["journalist"][:2], "b": DEV_CASES["enthusiast"][:1]}, "posterior")
    assert list(sims) == ["a"]
    assert len(sims["a"]) == 2
