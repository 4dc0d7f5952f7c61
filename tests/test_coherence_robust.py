"""SummaryEval ``coherence_method="robust"``: its formulas, its behaviour on degraded summaries, the default untouched.

Golden values: the formula tables below are computed by hand from the definitions in docs/summary_eval.md §3.1
(each case says how). The behavioural tests use the development cases of ``tests/coherence_dev_cases.py``
(written for this project by the method's author, on which it was designed) and the shipped
``data/cnndm_sample``; the validity cases that measure the method are elsewhere and are not read here.
"""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import numpy as np
import pytest
from coherence_dev_cases import DEV_CASES, variants

import persona_metrics
from persona_metrics.summary_eval import SummaryEvalParams, score_summary_eval
from persona_metrics.summary_eval import components as C
from persona_metrics.summary_eval import formulas as F
from persona_metrics.summary_eval.scorer import SummaryEvalScorer

ROOT = Path(__file__).resolve().parents[1]
#: The degraded copies every good development summary must score below (robust method).
DEGRADED = ("repeated", "reversed", "rotated", "one_word")


# --- formulas (hand-computed) ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("However, margins narrowed.", 0.0),  # a connective
        ("As a result, it will cut 900 jobs.", 0.0),  # a multi-word connective
        ("The company expects the switch to cut emissions.", 0.0),  # a definite reference to an earlier name
        ("It will fly three times a week.", 0.0),  # a pronoun
        ("Its shares dropped 11 percent.", 0.0),
        ('"They were not consulted," union officials said.', 0.0),  # after an opening quote
        ("But the deal needs approval.", 0.0),
        ("Ostrava Microdevices lowered its forecast.", 1.0),  # a name: nothing before it is needed
        ("Italy's exports rose.", 1.0),  # 'it' only as a whole word
        ("Theirs is a small market.", 1.0),  # 'their' only as a whole word
        ("It's been a tough year for Halden.", 1.0),  # a contraction, not the pronoun on its own
        ("Then-chief executive Ann Lee resigned.", 1.0),  # a hyphenated compound
        ("The companys statement said nothing.", 1.0),  # 'the company' only as whole words
        ("Two people died.", 1.0),
        ("", 1.0),
    ],
)
def test_opening(sentence: str, expected: float) -> None:
    assert F.opening(sentence) == expected


def test_redundancy_novelty_and_source_order() -> None:
    cosines = np.array(
        [
            [1.0, 0.30, 0.96, 0.85],
            [0.30, 1.0, 0.20, 0.40],
            [0.96, 0.20, 1.0, 0.50],
            [0.85, 0.40, 0.50, 1.0],
        ]
    )
    # sentence 0: first (0); 1: largest earlier cosine 0.30 < 0.75 (0); 2: 0.96 >= 0.95 (1);
    # 3: largest earlier 0.85, (0.85 - 0.75) / (0.95 - 0.75) = 0.5
    assert F.redundancies(cosines) == pytest.approx([0.0, 0.0, 1.0, 0.5])
    assert F.novelty([0.0, 0.0, 1.0, 0.5]) == pytest.approx(1 - 1.5 / 4)
    assert F.novelty([]) == 1.0
    # placed at the argmax source sentence when its cosine reaches 0.4, else None
    summary_by_source = np.array([[0.9, 0.1, 0.2], [0.2, 0.39, 0.1], [0.1, 0.2, 0.8], [0.5, 0.6, 0.1]])
    assert F.source_positions(summary_by_source) == [0, None, 2, 1]
    # placed sequence 0, 2, 1: pairs (0, 2) in order, (2, 1) not: 1/2
    assert F.source_order([0, None, 2, 1]) == 0.5
    assert F.source_order([1, 1, 3]) == 1.0  # ties count as in order
    assert F.source_order([None, 4]) == 1.0  # fewer than two placed: nothing against the source's order
    assert F.source_order([]) == 1.0


def test_robust_score_from_components() -> None:
    nine = {"rouge_1": 0.5, "rouge_2": 0.25, "rouge_l": 0.5, "semantic": 0.5, "discourse": 0.4, "lexical": 1.0}
    nine |= {"readability": 0.5, "contradiction": 1.0, "length": 1.0}
    # weighted = 0.08 (0.5 + 0.25 + 0.5) + 0.4 · 0.5 + 0.25 · 0.4 + 0.08 · 1 + 0.03 · 0.5 = 0.495
    assert F.coherence_from_components(nine) == pytest.approx(0.495)
    same = nine | {"novelty": 1.0, "order": 1.0, "opening": 1.0, "ending": 1.0}
    assert F.robust_coherence_from_components(same, 3) == pytest.approx(0.495)  # nothing to charge: the original
    # novelty 0.5 halves it; order 0 keeps 1 - 0.5; a bad opening keeps 1 - 0.25
    charged = nine | {"novelty": 0.5, "order": 0.0, "opening": 0.0, "ending": 1.0}
    assert F.robust_coherence_from_components(charged, 3) == pytest.approx(0.495 * 0.5 * 0.5 * 0.75)
    # one distinct sentence: the weighted sum (1.0 on the sentence-level terms) is capped at 0.3, times length 0.4
    one = dict.fromkeys(F.COHERENCE_WEIGHTS, 1.0) | {"contradiction": 1.0, "length": 0.4}
    one |= {"novelty": 1.0, "order": 1.0, "opening": 1.0, "ending": 1.0}
    assert F.robust_coherence_from_components(one, 1) == pytest.approx(0.3 * 0.4)
    assert F.robust_coherence_from_components(one, 0) == 0.0


def test_formulas_docstring_examples_run() -> None:
    result = doctest.testmod(F)
    assert result.failed == 0
    assert result.attempted > 10


# --- the development cases -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def dev_scores() -> dict[str, dict[str, dict[str, float]]]:
    """Per development case, per variant, the robust coherence (and the original's of the good and repeated ones)."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for method, kinds in (("robust", ("good", *DEGRADED)), ("original", ("good", "repeated"))):
        keys = [(name, kind) for name, _, _ in DEV_CASES for kind in kinds]
        texts = [variants(good)[kind] for _, _, good in DEV_CASES for kind in kinds]
        sources = [article for _, article, _ in DEV_CASES for _ in kinds]
        values = score_summary_eval(texts, sources, coherence_method=method).coherence
        for (name, kind), value in zip(keys, values, strict=True):
            out.setdefault(name, {}).setdefault(kind, {})[method] = float(value)
    return out


def test_dev_cases_are_the_authors_own() -> None:
    assert len(DEV_CASES) >= 10
    assert len({name for name, _, _ in DEV_CASES}) == len(DEV_CASES)
    assert all(3 <= len(good) <= 4 for _, _, good in DEV_CASES)


@pytest.mark.parametrize("kind", DEGRADED)
def test_robust_ranks_the_good_summary_above_each_degraded_copy(dev_scores, kind: str) -> None:
    for name, scores in dev_scores.items():
        assert scores["good"]["robust"] > scores[kind]["robust"], (name, kind, scores)
        assert 0.0 <= scores[kind]["robust"] <= 1.0


def test_the_original_rewards_repeats_as_the_issue_measured(dev_scores) -> None:
    """The problem the robust method answers: every repeated summary scores above its good original."""
    assert all(s["repeated"]["original"] > s["good"]["original"] for s in dev_scores.values())


def test_repeats_are_dropped_and_charged() -> None:
    """An exact repeat of every sentence: the nine components are the good text's and the score is halved."""
    _, article, good = DEV_CASES[0]
    texts = variants(good)
    result = score_summary_eval([texts["good"], texts["repeated"]], [article] * 2, coherence_method="robust")
    good_parts, repeated_parts = result.components
    assert {k: good_parts[k] for k in C.COMPONENT_NAMES} == {k: repeated_parts[k] for k in C.COMPONENT_NAMES}
    assert (good_parts["novelty"], repeated_parts["novelty"]) == (1.0, 0.5)
    assert result.coherence[1] == pytest.approx(result.coherence[0] / 2)


def test_one_sentence_and_empty_texts() -> None:
    source = DEV_CASES[0][1]
    texts = [
        "",
        "   ",
        "Norlund.",
        "Norlund Ferries will buy four electric ships. Norlund Ferries will buy four electric ships.",
    ]
    result = score_summary_eval(texts, [source] * 4, coherence_method="robust", weights=None)
    empty, blank, word, twice = result.coherence
    assert (empty, blank) == (0.0, 0.0)
    assert word == pytest.approx(0.3 * 0.3)  # the cap times the one-word length penalty (0.3)
    # one distinct sentence (7 words: length 7/20), said twice: cap · length · novelty 0.5
    assert twice == pytest.approx(0.3 * 0.35 * 0.5)
    assert all(set(parts) == set(C.ROBUST_COMPONENT_NAMES) for parts in result.components)


# --- agreement with the original on ordinary summaries -----------------------------------------------------------
def test_agrees_with_the_original_on_the_cnndm_highlights() -> None:
    rows = [json.loads(line) for line in (ROOT / "data" / "cnndm_sample" / "test.jsonl").open(encoding="utf-8")]
    highlights, articles = [r["highlights"] for r in rows], [r["article"] for r in rows]
    original = score_summary_eval(highlights, articles)
    robust = score_summary_eval(highlights, articles, coherence_method="robust")
    charged = 0
    for mine, theirs in zip(original.components, robust.components, strict=True):
        if (theirs["novelty"], theirs["order"], theirs["opening"], theirs["ending"]) != (1.0, 1.0, 1.0, 1.0):
            charged += 1
            continue
        # nothing charged: the original's components, bit for bit, but discourse, which counts the implicit
        # relations too (robust-v3): never lower, equal when every sentence after the first has a marker
        assert {k: v for k, v in theirs.items() if k in mine and k != "discourse"} == {
            k: v for k, v in mine.items() if k != "discourse"
        }
        assert theirs["discourse"] >= mine["discourse"]
    assert charged < len(highlights)


# --- the default path, the option and its readers ----------------------------------------------------------------
def test_default_is_the_original_and_robust_says_so() -> None:
    texts = variants(DEV_CASES[1][2])
    source = DEV_CASES[1][1]
    default = score_summary_eval([texts["rotated"]], [source])
    original = score_summary_eval([texts["rotated"]], [source], coherence_method="original")
    assert default.coherence.tolist() == original.coherence.tolist() == [C.coherence(texts["rotated"], _embed())[0]]
    assert "|coherence:rouge-enhanced|" in default.signature
    assert list(default.as_dict(components=True)["components"]) == list(C.COMPONENT_NAMES)
    robust = score_summary_eval([texts["rotated"]], [source], coherence_method="robust")
    assert "|coherence:robust-v3|" in robust.signature
    assert list(robust.as_dict(components=True)["components"]) == list(C.ROBUST_COMPONENT_NAMES)


def _embed():
    return SummaryEvalScorer()._embed


def test_bad_method_is_refused_with_its_name() -> None:
    with pytest.raises(ValueError, match=r"coherence_method must be one of \['original', 'robust'\], got 'fancy'"):
        SummaryEvalParams(coherence_method="fancy")
    with pytest.raises(ValueError, match="coherence_method"):
        score_summary_eval(["a"], ["b"], coherence_method="fancy")


def test_module_takes_the_option() -> None:
    _, article, good = DEV_CASES[2]
    texts = variants(good)
    predictions = [texts["good"], texts["repeated"]]
    out = persona_metrics.load("summary_eval").compute(
        predictions=predictions, sources=[article] * 2, coherence_method="robust", return_per_item=True,
        return_components=True, return_signature=True,
    )  # fmt: skip
    library = score_summary_eval(predictions, [article] * 2, coherence_method="robust")
    assert out["per_item"]["coherence"] == library.coherence.tolist()
    assert out["components"]["novelty"] == [1.0, 0.5]
    assert "|coherence:robust-v3|" in out["signature"]
