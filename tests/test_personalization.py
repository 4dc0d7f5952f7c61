"""DEGRESS / EGISES / P-Acc / PerSEval.

Golden values come from (a) hand calculations written out below with the paper's equation numbers
((1) DEGRESS of a summary, (2) system DEGRESS / EGISES, (3) P-Acc, (4) ADP, (5) ACP, (6) EDP / PerSEval,
(7) system PerSEval) on the authors' code semantics of ``docs/perseval.md`` §4–5, (b) the closed-form
sanity values of ``docs/perseval.md`` §5 and §7, and (c) a loop-by-loop transcription of the authors'
code (``egises/models.py``) kept independent of the vectorised implementation.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from persona_metrics import PersonaMetricsWarning
from persona_metrics.distances import Distance
from persona_metrics.personalization import (
    custom_sigmoid,
    degress_scores,
    edp_scores,
    p_accuracy,
    score_personalization,
)


class TableDistance(Distance):
    """σ looked up in a table of ordered pairs: lets a test fix every distance by hand."""

    name = "table"
    symmetric = False

    def __init__(self, table: dict[tuple[str, str], float]) -> None:
        super().__init__()
        self.table = table
        self.prepared: list[str] = []
        self.scored: list[tuple[str, str]] = []

    def _prepare(self, texts: Sequence[str]) -> list[str]:
        self.prepared += list(texts)
        return list(texts)

    def _score(self, reps_a: Sequence[str], reps_b: Sequence[str]) -> np.ndarray:
        self.scored += list(zip(reps_a, reps_b, strict=True))
        return np.array([self.table[(a, b)] for a, b in zip(reps_a, reps_b, strict=True)])


def S(x: float, a: float, b: float) -> float:
    return 1.0 / (1.0 + 10**a * math.exp(-(10**b) * x))


# --- (a) hand-computed cases ---------------------------------------------------------------------------
def _two_user_table() -> dict[tuple[str, str], float]:
    t = {("uA", "uB"): 0.6, ("uB", "uA"): 0.6, ("sA", "sB"): 0.3, ("sB", "sA"): 0.3}
    t |= {("uA", "D"): 0.8, ("uB", "D"): 0.9, ("sA", "D"): 0.7, ("sB", "D"): 0.5}
    t |= {("sA", "uA"): 0.2, ("sB", "uB"): 0.4}
    return t


def test_two_users_by_hand() -> None:
    """n = 2: the softmax of eq. (1) is 1, so X = σ(uA, uB) = 0.6 and Y = σ(sA, sB) = 0.3."""
    res = score_personalization(["sA", "sB"], ["uA", "uB"], ["D", "D"], distance=TableDistance(_two_user_table()))
    r = (0.3 + 1e-5) / (0.6 + 1e-5)  # eq. (1), one pair per anchor
    assert res.per_summary("degress") == pytest.approx([r, r], abs=1e-15)
    assert res.degress == pytest.approx(r, abs=1e-15)  # eq. (2)
    assert res.egises == pytest.approx(1 - r, abs=1e-15)
    # eq. (4): d_min = 0.2, ADP = S(0.2 / (0.8 + 1e-7); 4, 1)
    adp = S(0.2 / (0.8 + 1e-7), 4, 1)
    # eq. (5): d_mean = 0.3; ACP_A = S(0), ACP_B = S(0.2 / (0.1 + 1e-7))
    acp = [S(0.0, 4, 1), S(0.2 / (0.1 + 1e-7), 4, 1)]
    # eq. (6): EDP = 1 − S(ADP + ACP; 3, 1.7) + 1e-7; PerSEval = DEGRESS · EDP
    edp = [1 - S(adp + c, 3, 1.7) + 1e-7 for c in acp]
    assert res.per_summary("edp") == pytest.approx(edp, abs=1e-15)
    assert res.per_summary("perseval") == pytest.approx([r * e for e in edp], abs=1e-15)
    assert res.perseval == pytest.approx(r * (edp[0] + edp[1]) / 2, abs=1e-15)  # eq. (7)
    assert res.accuracy_distance == pytest.approx(0.3, abs=1e-15)
    # eq. (3): P-Acc = (1 − 0.3) − 0.5 · logistic(1 · EGISES)
    assert res.p_accuracy == pytest.approx(0.7 - 0.5 / (1 + math.exp(-(1 - r))), abs=1e-15)


def test_three_users_softmax_by_hand() -> None:
    """n = 3: the softmax of eq. (1) runs over the *other* users of the anchor, weights σ(j,k)/σ(j,D)."""
    u = {("u1", "u2"): 0.5, ("u1", "u3"): 0.9, ("u2", "u3"): 0.4}
    s = {("s1", "s2"): 0.2, ("s1", "s3"): 0.6, ("s2", "s3"): 0.7}
    t = {**u, **s, **{(b, a): v for (a, b), v in (u | s).items()}}
    to_doc = {"u1": 0.95, "u2": 0.8, "u3": 0.9, "s1": 0.85, "s2": 0.75, "s3": 0.5}
    t |= {(k, "D"): v for k, v in to_doc.items()}  # no (x, x) entries: the diagonal is never asked for
    t |= {("s1", "u1"): 0.3, ("s2", "u2"): 0.3, ("s3", "u3"): 0.6}
    res = score_personalization(["s1", "s2", "s3"], ["u1", "u2", "u3"], ["D"] * 3, distance=TableDistance(t), beta=1.0)

    def xy(side: str, j: int, k: int) -> float:
        others = [m for m in (1, 2, 3) if m != j]
        w = {m: t[(f"{side}{j}", f"{side}{m}")] / to_doc[f"{side}{j}"] for m in others}
        return math.exp(w[k]) / sum(math.exp(v) for v in w.values()) * t[(f"{side}{j}", f"{side}{k}")]

    expected = []
    for j in (1, 2, 3):
        rs = [
            (min(xy("u", j, k), xy("s", j, k)) + 1e-5) / (max(xy("u", j, k), xy("s", j, k)) + 1e-5)
            for k in (1, 2, 3)
            if k != j
        ]
        expected.append(sum(rs) / 2)  # averaged over the n − 1 other users (code, not paper)
    assert res.per_summary("degress") == pytest.approx(expected, abs=1e-15)
    acc = [0.3, 0.3, 0.6]
    adp = S(0.3 / (0.7 + 1e-7), 4, 1)
    edp = [1 - S(adp + S((a - 0.3) / (0.4 - 0.3 + 1e-7), 4, 1), 3, 1.0) + 1e-7 for a in acc]
    assert res.per_summary("edp") == pytest.approx(edp, abs=1e-15)
    assert res.perseval == pytest.approx(sum(d * e for d, e in zip(expected, edp, strict=True)) / 3, abs=1e-15)


def test_zero_distance_to_document_gives_zero_weight() -> None:
    """σ(u_j, D) = 0 → w := 0 for that anchor (``divide_with_exception``), a uniform softmax."""
    t = _two_user_table() | {("uA", "D"): 0.0}
    res = score_personalization(["sA", "sB"], ["uA", "uB"], ["D", "D"], distance=TableDistance(t))
    r = (0.3 + 1e-5) / (0.6 + 1e-5)
    assert res.per_summary("degress") == pytest.approx([r, r], abs=1e-15)


# --- (b) closed forms --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("beta", "edp_max"),
    [(1.0, 0.998999), (1.7, 0.998991)],  # docs/perseval.md §5 "EDP_max"
)
def test_edp_max(beta: float, edp_max: float) -> None:
    pen = edp_scores(np.zeros(3), beta=beta)
    assert pen.adp == pytest.approx(9.9990001e-05, rel=1e-7)  # S(0; 4, 1) = 1 / (1 + 10^4)
    assert pen.edp == pytest.approx([edp_max] * 3, abs=5e-7)


@pytest.mark.parametrize(("beta", "edp"), [(1.0, 0.0434), (1.7, 1e-7)])  # docs/perseval.md §7, d_min = 1
def test_edp_when_every_summary_is_maximally_wrong(beta: float, edp: float) -> None:
    pen = edp_scores(np.ones(4), beta=beta)
    assert pen.adp == pytest.approx(1.0)
    assert pen.edp == pytest.approx([edp] * 4, abs=5e-5 if beta == 1.0 else 1e-9)


def test_adp_crosses_half_near_0479() -> None:
    """ADP = 0.5 at d/(1 − d) = ln(10^4)/10 (docs/perseval.md §5), i.e. d ≈ 0.4795."""
    ratio = math.log(1e4) / 10
    assert float(custom_sigmoid(ratio, 4, 1)) == pytest.approx(0.5, abs=1e-12)
    assert ratio / (1 + ratio) == pytest.approx(0.4795, abs=1e-4)


def test_custom_sigmoid_does_not_overflow() -> None:
    assert float(custom_sigmoid(-1e6, 4, 1)) == 0.0
    assert float(custom_sigmoid(1e6, 4, 1)) == 1.0


def test_p_accuracy_theorem_4_value() -> None:
    """Paper Theorem 4: Score_Acc = 0, EGISES = 1, α = 0.5, β = 1 → P-Acc = −0.37 (eq. 3, logistic f_sig)."""
    assert p_accuracy(0.0, 1.0) == pytest.approx(-0.37, abs=5e-3)


def test_degress_needs_two_users() -> None:
    with pytest.raises(ValueError, match="at least 2 users"):
        degress_scores(np.zeros((1, 1)), np.ones(1), np.zeros((1, 1)), np.ones(1))


# --- (c) against a literal transcription of the authors' loops ------------------------------------------
def reference_degress(ru: np.ndarray, rd: np.ndarray, su: np.ndarray, sd: np.ndarray) -> list[float]:
    """Per-summary DEGRESS written as the egises code computes it: rows (j, k), j ≠ k, no vectorisation."""
    n = len(rd)

    def weighted(pair: np.ndarray, doc: np.ndarray, j: int, k: int) -> float:
        w = {m: (0.0 if doc[j] == 0 else pair[j, m] / doc[j]) for m in range(n) if m != j}
        return math.exp(w[k]) / sum(math.exp(v) for v in w.values()) * pair[j, k]

    out = []
    for j in range(n):
        rows = []
        for k in range(n):
            if k == j:
                continue
            x, y = weighted(ru, rd, j, k), weighted(su, sd, j, k)
            rows.append((min(x, y) + 1e-5) / (max(x, y) + 1e-5))
        out.append(sum(rows) / len(rows))
    return out


# Distances of 0 or >= 0.01: smaller non-zero ones overflow exp() in the literal transcription (and in the
# authors' code); the vectorised softmax is stable there, see test_tiny_document_distance_is_stable.
unit = st.one_of(st.just(0.0), st.floats(0.01, 1.0, allow_nan=False))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6).flatmap(lambda n: st.lists(unit, min_size=2 * n * n + 2 * n, max_size=2 * n * n + 2 * n)))
def test_degress_matches_loop_transcription(values: list[float]) -> None:
    n = int((-2 + math.sqrt(4 + 8 * len(values))) / 4)
    v = np.array(values)
    ru, su = v[: n * n].reshape(n, n), v[n * n : 2 * n * n].reshape(n, n)
    rd, sd = v[2 * n * n : 2 * n * n + n], v[2 * n * n + n :]
    got = degress_scores(ru, rd, su, sd)
    assert got == pytest.approx(reference_degress(ru, rd, su, sd), abs=1e-12)
    assert np.all((got > 0) & (got <= 1))


def test_tiny_document_distance_is_stable() -> None:
    """σ(u, D) = 1e-300 makes the weights 1e299: the stable softmax puts all mass on the largest, no NaN."""
    pair = np.array([[0.0, 0.5, 0.9], [0.5, 0.0, 0.4], [0.9, 0.4, 0.0]])
    got = degress_scores(pair, np.full(3, 1e-300), pair, np.full(3, 1e-300))
    assert np.all(np.isfinite(got))
    assert got == pytest.approx([1.0, 1.0, 1.0])


# --- properties on real text with the default rougeL distance -------------------------------------------
DOCS = {
    "d1": (
        "Northwind Rail will cut weekend fares by a fifth from March, the operator said, after ridership on "
        "its coastal line fell for a third straight quarter and rival bus services expanded.",
        [
            "Northwind Rail slashes weekend fares by twenty percent",
            "Falling coastal ridership pushes Northwind to cheaper tickets",
            "Bus competition forces rail operator into fare cuts",
        ],
    ),
    "d2": (
        "Copperfield Bank posted record quarterly profit as higher interest rates lifted lending margins, "
        "while its mortgage book shrank and it set aside more money for bad loans.",
        [
            "Copperfield Bank profit hits record on wider margins",
            "Mortgage lending shrinks at Copperfield despite record results",
            "Copperfield raises bad loan provisions amid rate squeeze",
            "Rate rises deliver bumper quarter for Copperfield shareholders",
        ],
    ),
    "d3": (
        "The town of Eastbrook approved a solar farm on former quarry land, promising forty construction "
        "jobs and lower power bills for the school district within two years.",
        [
            "Eastbrook quarry site to host new solar farm",
            "Solar project brings forty building jobs to Eastbrook",
        ],
    ),
}


def _flatten(predict: dict[str, list[str]]) -> tuple[list[str], list[str], list[str]]:
    preds, refs, docs = [], [], []
    for key, (doc, users) in DOCS.items():
        preds += predict[key]
        refs += users
        docs += [doc] * len(users)
    return preds, refs, docs


@pytest.mark.parametrize(("beta", "expected"), [(1.7, 0.998991), (1.0, 0.998999)])
def test_oracle(beta: float, expected: float) -> None:
    """Generated = own reference: X = Y → DEGRESS = 1; zero accuracy distances → PerSEval = EDP_max."""
    preds, refs, docs = _flatten({k: users for k, (_, users) in DOCS.items()})
    res = score_personalization(preds, refs, docs, beta=beta)
    assert res.degress == 1.0
    assert res.egises == 0.0
    assert res.accuracy_distance == 0.0
    assert res.perseval == pytest.approx(expected, abs=5e-7)


def test_same_summary_for_everyone() -> None:
    """Y = 0 for every pair → r ≈ 1e-5 / X → DEGRESS ≈ 2e-5 (docs/perseval.md §7)."""
    preds, refs, docs = _flatten({k: [users[0]] * len(users) for k, (_, users) in DOCS.items()})
    res = score_personalization(preds, refs, docs)
    assert 5e-6 < res.degress < 5e-5
    assert res.perseval < res.degress


def test_permuted_references_show_the_egises_paradox() -> None:
    """Each user gets another user's reference: as diverse as the users (high DEGRESS), but inaccurate."""
    preds, refs, docs = _flatten({k: users[1:] + users[:1] for k, (_, users) in DOCS.items()})
    res = score_personalization(preds, refs, docs)
    assert res.degress > 0.6
    assert res.perseval < 0.05


def test_input_order_invariance() -> None:
    preds, refs, docs = _flatten({k: users[1:] + users[:1] for k, (_, users) in DOCS.items()})
    base = score_personalization(preds, refs, docs)
    order = list(range(len(preds)))
    random.Random(7).shuffle(order)
    shuffled = score_personalization([preds[i] for i in order], [refs[i] for i in order], [docs[i] for i in order])
    for name in ("degress", "perseval", "edp", "accuracy_distance", "p_accuracy"):
        assert getattr(shuffled, name) == pytest.approx(getattr(base, name), abs=1e-12)
    per = base.per_summary("perseval")
    assert shuffled.per_summary("perseval") == pytest.approx([per[i] for i in order], abs=1e-12)


def test_each_unique_pair_scored_once() -> None:
    """One call to the distance; every unique ordered pair scored once, every unique text prepared once."""
    t = _two_user_table()
    dist = TableDistance(t)
    score_personalization(
        ["sA", "sB", "sA", "sB"],
        ["uA", "uB", "uA", "uB"],
        ["D", "D", "D", "D"],
        document_ids=[1, 1, 2, 2],
        distance=dist,
    )
    assert len(dist.scored) == len(set(dist.scored))
    assert sorted(dist.prepared) == sorted({"uA", "uB", "sA", "sB", "D"})
    # Two documents with the same texts: their σ(·, D) and pair work is not repeated.
    assert ("uA", "D") in dist.scored


# --- degenerate but valid input -------------------------------------------------------------------------
def test_single_reference_documents_are_excluded_with_a_warning() -> None:
    preds, refs, docs = _flatten({k: users for k, (_, users) in DOCS.items()})
    lone = "A one-off article that only one user summarized."
    with pytest.warns(PersonaMetricsWarning, match="1 of 4 documents have a single reference"):
        res = score_personalization([*preds, "x"], [*refs, "y"], [*docs, lone])
    assert res.num_documents == 3
    assert res.num_excluded_documents == 1
    assert res.per_summary("perseval")[-1] is None
    assert res.perseval == pytest.approx(score_personalization(preds, refs, docs).perseval, abs=1e-15)


def test_empty_prediction_is_at_distance_one() -> None:
    """An empty summary means the model said nothing: σ = 1 to everything (documented behaviour)."""
    preds, refs, docs = _flatten({k: users for k, (_, users) in DOCS.items()})
    preds[0] = ""
    res = score_personalization(preds, refs, docs)
    assert res.per_summary("accuracy_distance")[0] == 1.0
    assert math.isfinite(res.perseval)
    assert res.perseval < 0.9


def test_bootstrap_interval_is_seeded_and_brackets_the_estimate() -> None:
    preds, refs, docs = _flatten({k: users[1:] + users[:1] for k, (_, users) in DOCS.items()})
    a = score_personalization(preds, refs, docs, bootstrap=200, seed=3)
    b = score_personalization(preds, refs, docs, bootstrap=200, seed=3)
    assert a.intervals == b.intervals
    lo, hi = a.intervals["degress"]
    assert lo <= a.degress <= hi
    assert "bootstrap:200,seed:3" in a.signature


# --- bad input ------------------------------------------------------------------------------------------
BAD_INPUTS = [
    ({"predictions": ["a", "b"], "references": ["a"], "documents": ["d", "d"]}, ValueError, "references has 1"),
    ({"predictions": ["a", 3], "references": ["a", "b"], "documents": ["d", "d"]}, TypeError, r"predictions\[1\]"),
    (
        {"predictions": ["a", "b"], "references": ["a", " "], "documents": ["d", "d"]},
        ValueError,
        r"references\[1\] is empty",
    ),
    (
        {"predictions": ["a", "b"], "references": ["a", "b"], "documents": ["d", ""]},
        ValueError,
        r"documents\[1\] is empty",
    ),
    ({"predictions": [], "references": [], "documents": []}, ValueError, "no items"),
    ({"predictions": "ab", "references": ["a", "b"], "documents": ["d", "d"]}, TypeError, "predictions must be a list"),
    (
        {"predictions": ["a", "b"], "references": ["a", "b"], "documents": ["d", "e"]},
        ValueError,
        "no document has at least 2 references",
    ),
    (
        {"predictions": ["a", "b"], "references": ["a", "b"], "documents": ["d", "d"], "distance": "rouge"},
        ValueError,
        "rougeL",
    ),
    (
        {"predictions": ["a", "b"], "references": ["a", "b"], "documents": ["d", "e"], "document_ids": [1, 1]},
        ValueError,
        r"document_ids\[1\]",
    ),
    (
        {"predictions": ["a", "b"], "references": ["a", "b"], "documents": ["d", "d"], "document_ids": [1]},
        ValueError,
        "document_ids has 1",
    ),
    (
        {"predictions": ["a", "b"], "references": ["a", "b"], "documents": ["d", "d"], "bootstrap": -1},
        ValueError,
        "bootstrap",
    ),
    (
        {"predictions": ["a", "b"], "references": ["a", "b"], "documents": ["d", "d"], "beta": float("nan")},
        ValueError,
        "beta must be a finite number, got nan",
    ),
]


@pytest.mark.parametrize(("kwargs", "error", "match"), BAD_INPUTS)
def test_bad_input(kwargs: dict, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        score_personalization(**kwargs)


# --- hyper-parameters: one validated object, ranges from the paper --------------------------------------------
@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"beta": 0.0}, ValueError, r"beta must be in \(0, 300\], got 0"),
        ({"beta": -1}, ValueError, r"beta must be in \(0, 300\], got -1"),
        ({"alpha": -3.0}, ValueError, "alpha must be in"),
        ({"gamma": 0}, ValueError, "gamma must be in"),
        ({"p_acc_alpha": 0.0}, ValueError, r"p_acc_alpha must be in \(0, 1\], got 0.0"),
        ({"p_acc_alpha": 1.5}, ValueError, r"p_acc_alpha must be in \(0, 1\]"),
        ({"p_acc_beta": -0.1}, ValueError, r"p_acc_beta must be in \[0, 1\]"),
        ({"p_acc_beta": True}, TypeError, "p_acc_beta must be a finite number"),
        ({"alpha": "3"}, TypeError, "alpha must be a finite number"),
        ({"bootstrap": 1}, ValueError, "bootstrap must be 0"),
        ({"seed": 1.5}, TypeError, "seed must be an int"),
        ({"betta": 1.0}, TypeError, r"unknown option\(s\) \['betta'\]"),
    ],
)
def test_params_are_checked_before_any_distance_work(options: dict, error: type[Exception], match: str) -> None:
    dist = TableDistance(_two_user_table())
    with pytest.raises(error, match=match):
        score_personalization(["sA", "sB"], ["uA", "uB"], ["D", "D"], distance=dist, **options)
    assert dist.scored == []  # nothing was computed


def test_params_object_equals_keyword_options() -> None:
    from persona_metrics.personalization import PersevalParams

    dist = TableDistance(_two_user_table())
    a = score_personalization(["sA", "sB"], ["uA", "uB"], ["D", "D"], distance=dist, beta=1.0, p_acc_alpha=1.0)
    b = score_personalization(
        ["sA", "sB"], ["uA", "uB"], ["D", "D"], distance=dist, params=PersevalParams(beta=1.0, p_acc_alpha=1.0)
    )
    assert a.as_dict(per_summary=("perseval",), signature=True) == b.as_dict(per_summary=("perseval",), signature=True)
    with pytest.raises(TypeError, match="not both"):
        score_personalization(["sA"], ["uA"], ["D"], params=PersevalParams(), beta=1.0)


# --- the system reduction and the result views --------------------------------------------------------------
def test_aggregate_is_documents_first_then_users() -> None:
    """Eqs. 2 and 7 by hand on two documents of 2 and 3 users (unequal sizes: a flat mean would differ)."""
    from persona_metrics.personalization import aggregate

    degress = [np.array([0.2, 0.4]), np.array([0.9, 0.6, 0.3])]
    edp = [np.array([1.0, 0.5]), np.array([0.5, 0.5, 1.0])]
    accuracy = [np.array([0.1, 0.3]), np.array([0.2, 0.2, 0.5])]
    system = aggregate(degress, edp, accuracy, p_acc_alpha=0.5, p_acc_beta=1.0)
    assert system.degress == pytest.approx((0.3 + 0.6) / 2, abs=1e-15)  # eq. 2
    assert system.egises == pytest.approx(1 - 0.45, abs=1e-15)
    assert system.perseval == pytest.approx(((0.2 + 0.2) / 2 + (0.45 + 0.3 + 0.3) / 3) / 2, abs=1e-15)  # eq. 7
    assert system.edp == pytest.approx((0.75 + 2 / 3) / 2, abs=1e-15)
    assert system.accuracy_distance == pytest.approx(1.3 / 5, abs=1e-15)  # flat over the 5 summaries
    assert system.accuracy_similarity == pytest.approx(1 - 0.26, abs=1e-15)
    assert system.p_accuracy == pytest.approx(0.74 - 0.5 / (1 + math.exp(-0.55)), abs=1e-15)  # eq. 3


def test_per_document_and_as_dict_views() -> None:
    preds, refs, docs = _flatten({k: users[1:] + users[:1] for k, (_, users) in DOCS.items()})
    res = score_personalization(preds, refs, docs, bootstrap=50, seed=3)
    per_doc = res.per_document("perseval")
    assert list(per_doc) == [doc for doc, _ in DOCS.values()]  # first-seen order, keyed by document text
    per_summary = res.per_summary("perseval")
    for doc, value in per_doc.items():  # the mean over the document's users
        assert value == pytest.approx(np.mean([v for v, d in zip(per_summary, docs, strict=True) if d == doc]))
    assert np.mean(list(per_doc.values())) == pytest.approx(res.perseval, abs=1e-15)  # eq. 7
    out = res.as_dict(keys=("perseval", "degress"), per_summary=("edp",), per_document=("degress",), signature=True)
    assert out["perseval"] == res.perseval
    assert out["perseval_ci_low"] <= res.perseval <= out["perseval_ci_high"]
    assert out["per_summary"]["edp"] == res.per_summary("edp")
    assert out["per_document"] == {"document": list(per_doc), "degress": list(res.per_document("degress").values())}
    assert out["signature"] == res.signature
    with pytest.raises(ValueError, match="not system scores"):
        res.as_dict(keys=("rouge",))
    with pytest.raises(ValueError, match="name must be one of"):
        res.per_document("rouge")


def test_signature_ends_with_the_version() -> None:
    import persona_metrics

    res = score_personalization(["sA", "sB"], ["uA", "uB"], ["D", "D"], distance=TableDistance(_two_user_table()))
    assert res.signature == f"table|alpha:3|beta:1.7|gamma:4|p_acc:0.5,1|persona_metrics:{persona_metrics.__version__}"


def test_identical_rankings_give_exactly_zero_epsilon() -> None:
    # scipy gives 1 - spearmanr = 1.1e-16 for 5 identically ranked models (and 1 - kendalltau = 1.1e-16): the
    # stability tables showed 1.11e-16 instead of 0
    from scipy.stats import kendalltau, spearmanr

    from persona_metrics.personalization.stability import stability

    ranks = np.arange(5.0)
    assert 1.0 - spearmanr(ranks, ranks + 0.5)[0] > 0.0  # the noise this guards against
    assert 1.0 - kendalltau(ranks, ranks)[0] > 0.0
    per_document = np.array([[9.0, 8.5, 9.5], [7.0, 6.5, 7.5], [5.0, 4.5, 5.5], [3.0, 2.5, 3.5], [1.0, 0.5, 1.5]])
    st = stability(per_document, fractions=(0.7,), repeats=3, seed=0)
    assert st.epsilon_spearman.tolist() == [0.0]
    assert st.epsilon_kendall.tolist() == [0.0]


# --- the leaderboard's built-in baselines own their names ------------------------------------------------------
SCORE_SAMPLE = Path(__file__).resolve().parents[1] / "data" / "score_samples" / "perseval.jsonl"


def _renamed_sample(tmp_path: Path, name: str) -> Path:
    """The shipped perseval sample with its model ``generic`` named ``name`` (on every line)."""
    path = tmp_path / f"{name}.jsonl"
    path.write_text(SCORE_SAMPLE.read_text(encoding="utf-8").replace('"generic"', json.dumps(name)), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["oracle", "shuffled"])
@pytest.mark.parametrize("metric", ["perseval", "degress"])
def test_a_model_named_like_a_baseline_is_refused_naming_line_field_and_the_reserved_names(
    capsys, tmp_path: Path, name: str, metric: str
) -> None:
    """Before: the model replaced the oracle (or the shuffled baseline replaced it); three rows, exit 0."""
    from persona_metrics.cli import main
    from persona_metrics.datasets.personalization import read_personalization_jsonl

    path = _renamed_sample(tmp_path, name)
    message = (
        f"{path}:1: field 'predictions': model name {name!r} is reserved for a built-in baseline (the reserved "
        "names are ['oracle', 'shuffled']); rename the model"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        read_personalization_jsonl(path)
    assert main(["score", metric, str(path), "-q"]) == 2
    assert capsys.readouterr()[:] == ("", f"persona-metrics score: error: {message}\n")
    assert main(["score", metric, str(path), "--shard", "1/3", "--states", str(tmp_path / "s1.jsonl")]) == 2
    assert capsys.readouterr()[:] == ("", f"persona-metrics score: error: {message}\n")
    assert not (tmp_path / "s1.jsonl").exists()


def test_leaderboard_systems_refuses_a_sample_whose_model_has_a_baseline_name() -> None:
    from persona_metrics.datasets.personalization import PersonalizationSample, leaderboard_systems

    columns = {"documents": ["d", "d"], "references": ["r1", "r2"], "document_ids": None, "user_ids": ["", ""]}
    sample = PersonalizationSample(**columns, predictions={"m": ["a", "b"], "shuffled": ["b", "a"]})
    message = (
        "sample.predictions: model name 'shuffled' is reserved for a built-in baseline (the reserved names are "
        "['oracle', 'shuffled']); rename the model"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        leaderboard_systems(sample)
    fine = PersonalizationSample(**columns, predictions={"m": ["a", "b"]})
    assert leaderboard_systems(fine) == {"oracle": ["r1", "r2"], "m": ["a", "b"], "shuffled": ["r2", "r1"]}
    # a one-system file adds no baseline, so nothing clashes: the file's name is its system's
    single = PersonalizationSample(**columns, predictions={"oracle": ["a", "b"]}, single=True)
    assert leaderboard_systems(single) == {"oracle": ["a", "b"]}
