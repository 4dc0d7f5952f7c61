"""SummaryEval ``completeness_method="recall_precision"`` (docs/summary_eval.md §2.1): formulas, behaviour, plumbing.

Golden values: the formula and component cases are computed by hand from the definitions (each says how; the
component case uses a fake encoder whose vectors make the cosines exact). The behavioural tests use the
development cases of ``tests/summary_fact_cases.py`` (invented articles written for this project, on which the
method was designed); the shipped validity cases, which measure it, are never read here. The default method's
values are compared with the explicit ``"original"`` and the golden pairs elsewhere (``tests/test_summary_eval.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from summary_fact_cases import CASES, variants

from persona_metrics.cli import main
from persona_metrics.summary_eval import SummaryEvalParams, score_summary_eval
from persona_metrics.summary_eval import components as C
from persona_metrics.summary_eval import formulas as F
from persona_metrics.summary_eval.scorer import SummaryEvalScorer

METHOD = "recall_precision"


# --- formulas (hand-computed) ------------------------------------------------------------------------------------
def test_graded_recall() -> None:
    assert F.graded_recall([0.9, 0.3], [3.0, 1.0]) == pytest.approx((3 * 0.9 + 1 * 0.3) / 4)  # 0.75
    assert F.graded_recall([1.2, -0.2], [1.0, 1.0]) == pytest.approx(0.5)  # clamped to 1 and 0
    assert F.graded_recall([0.5, 0.1], [0.0, 0.0]) == pytest.approx(0.3)  # no importance: the plain mean
    assert F.graded_recall([], []) == 0.0


def test_sentence_precision() -> None:
    assert F.sentence_precision([0.8, 0.1], [30, 10]) == pytest.approx((30 * 0.8 + 10 * 0.1) / 40)  # 0.625
    assert F.sentence_precision([-0.3], [5]) == 0.0  # clamped
    assert F.sentence_precision([], []) == 0.0


def test_recall_weighted_f() -> None:
    # β = 1.5, β² = 2.25: F = 3.25 · 0.75 · 0.625 / (2.25 · 0.625 + 0.75) = 1.5234375 / 2.15625
    assert F.RECALL_BETA == 1.5
    assert F.recall_precision_f(0.75, 0.625) == pytest.approx(1.5234375 / 2.15625)
    assert F.recall_precision_f(0.75, 0.625, beta=1.0) == pytest.approx(2 * 0.75 * 0.625 / 1.375)  # F1
    assert F.recall_precision_f(0.0, 0.0) == 0.0
    assert F.recall_precision_f(1.0, 1.0) == pytest.approx(1.0)
    assert F.recall_precision_f(0.0, 1.0) == 0.0


# --- the component with a fake encoder (hand-computed cosines) ---------------------------------------------------
VECTORS = {
    "Topic one.": (1.0, 0.0, 0.0),
    "Topic two.": (0.0, 1.0, 0.0),
    "Other thing.": (0.0, 0.0, 1.0),
    "Alpha beta gamma.": (1.0, 0.0, 0.0),
    "Delta.": (0.0, 0.6, 0.8),
}


def fake_embed(texts: list[str]) -> np.ndarray:
    return np.array([VECTORS[t] for t in texts], dtype=np.float64)


def test_recall_precision_completeness_by_hand() -> None:
    topics = [("Topic one.", 3.0), ("Topic two.", 1.0)]
    out = C.recall_precision_completeness(
        "Alpha beta gamma. Delta.", "Topic one. Topic two. Other thing.", topics, fake_embed
    )
    # topic one: best 1 (Alpha…); topic two: best 0.6 (Delta.): R = (3 · 1 + 1 · 0.6) / 4 = 0.9
    assert out.recall == pytest.approx(0.9)
    # Alpha… (3 words): best 1 (Topic one.); Delta. (1 word): best 0.8 (Other thing.): P = (3 + 0.8) / 4 = 0.95
    assert out.precision == pytest.approx(0.95)
    # F = 3.25 · 0.9 · 0.95 / (2.25 · 0.95 + 0.9) = 2.77875 / 3.0375
    assert out.score == pytest.approx(2.77875 / 3.0375)
    assert out.importance == pytest.approx(1.0)  # both topics at ≥ 0.4: all the importance
    assert [row[2] for row in out.topics] == pytest.approx([1.0, 0.6])
    assert [row[3] for row in out.topics] == [True, True]
    assert [s for s, _ in out.sentences] == ["Alpha beta gamma.", "Delta."]
    assert [c for _, c in out.sentences] == pytest.approx([1.0, 0.8])


def test_a_list_reads_as_its_items() -> None:
    """A summary written as a list is read item by item, as robust coherence reads it (§2.1, §3.1).

    Each marker style gives the sentences "Alpha beta gamma." and "Delta." and so the by-hand values of
    test_recall_precision_completeness_by_hand; before, Punkt read an unpunctuated list as one sentence with its
    markers in it (a vector the fake encoder does not have).
    """
    topics = [("Topic one.", 3.0), ("Topic two.", 1.0)]
    prose = C.recall_precision_completeness("Alpha beta gamma. Delta.", "Topic one. Topic two.", topics, fake_embed)
    for summary in ("- Alpha beta gamma\n- Delta", "1. Alpha beta gamma\n2. Delta", "1) Alpha beta gamma.\n2) Delta."):
        out = C.recall_precision_completeness(summary, "Topic one. Topic two.", topics, fake_embed)
        assert [s for s, _ in out.sentences] == ["Alpha beta gamma.", "Delta."], summary
        assert (out.score, out.recall, out.precision) == (prose.score, prose.recall, prose.precision), summary


def test_blank_summary_or_source_scores_zero() -> None:
    topics = [("Topic one.", 1.0)]
    for summary, source in (("", "Topic one."), ("  ", "Topic one."), ("Delta.", ""), ("Delta.", " \n")):
        out = C.recall_precision_completeness(summary, source, topics, fake_embed)
        assert (out.score, out.recall, out.precision) == (0.0, 0.0, 0.0)


def test_best_cosines_in_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(7, 4)).astype(np.float32), rng.normal(size=(3, 4)).astype(np.float32)
    whole = C.cosine_matrix(a, b).max(axis=1)
    monkeypatch.setattr(C, "BEST_COSINE_BLOCK", 2)
    assert C.best_cosines(a, b) == pytest.approx(whole, abs=1e-6)


# --- options and plumbing ----------------------------------------------------------------------------------------
def test_option_is_validated() -> None:
    assert SummaryEvalParams().completeness_method == "original"
    assert SummaryEvalParams(completeness_method=METHOD).completeness_method == METHOD
    with pytest.raises(ValueError, match="completeness_method"):
        SummaryEvalParams(completeness_method="f1")
    with pytest.raises((TypeError, ValueError), match="completeness_method"):
        score_summary_eval(["a"], ["b"], completeness_method=3)


PAIRS = [(variants(c)["good"], c.article) for c in CASES[:3]] + [("", CASES[0].article), ("One line.", "x")]


@pytest.fixture(scope="module")
def both() -> dict:
    preds, sources = [p for p, _ in PAIRS], [s for _, s in PAIRS]
    out = {m: score_summary_eval(preds, sources, completeness_method=m) for m in ("original", METHOD)}
    return out | {None: score_summary_eval(preds, sources)}


def test_default_is_the_original_unchanged(both) -> None:
    default, original = both[None], both["original"]
    assert default.completeness.tolist() == original.completeness.tolist()
    assert default.topics == original.topics
    assert all(d.precision is None and d.sentences == () for d in default.topics)
    assert "completeness_recall" not in default.per_item()
    assert "|completeness:tfidf-top10-cos0.4-r0.7-i0.3|" in default.signature
    assert default.coherence.tolist() == both[METHOD].coherence.tolist()  # coherence does not depend on it


def test_variant_result_and_per_item(both) -> None:
    result = both[METHOD]
    assert "|completeness:tfidf-top10-graded-recall-sentence-precision-f1.5-v2|" in result.signature
    per = result.per_item()
    assert per["completeness_recall"] == [d.recall for d in result.topics]
    assert per["completeness_precision"] == [d.precision for d in result.topics]
    assert per["completeness"][3] == 0.0  # the empty summary
    for d in result.topics:
        assert 0.0 <= d.score <= 1.0
        assert d.score == pytest.approx(F.recall_precision_f(d.recall, d.precision))
    assert result.completeness_method == METHOD


def test_one_encoder_call_per_scoring_call() -> None:
    scorer = SummaryEvalScorer(completeness_method=METHOD)
    calls: list[int] = []
    encode = scorer._embed
    scorer._embed = lambda texts: calls.append(len(texts)) or encode(texts)  # type: ignore[method-assign]
    scorer.score([p for p, _ in PAIRS], [s for _, s in PAIRS])
    assert len(calls) == 1


def test_evaluate_module_takes_the_option() -> None:
    import persona_metrics

    module = persona_metrics.load("summary_eval")
    out = module.compute(
        predictions=[PAIRS[0][0]], sources=[PAIRS[0][1]], completeness_method=METHOD, return_per_item=True
    )
    assert set(out["per_item"]) >= {"completeness_recall", "completeness_precision"}


# --- the development cases ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def development() -> dict:
    names = ("good", "off_topic", "truncated")
    preds = [variants(c)[n] for c in CASES for n in names]
    sources = [c.article for c in CASES for _ in names]
    return {
        m: score_summary_eval(preds, sources, completeness_method=m).completeness.reshape(-1, 3)
        for m in ("original", METHOD)
    }


def test_an_off_topic_sentence_lowers_it(development) -> None:
    """Inserting an off-topic sentence into a good summary lowers recall_precision in every case."""
    scores = development[METHOD]
    assert (scores[:, 0] > scores[:, 1]).all(), scores
    # the original's coverage of the whole summary barely notices it: a tie or higher in most cases
    assert (development["original"][:, 0] > development["original"][:, 1]).sum() < len(CASES)


def test_truncating_lowers_it(development) -> None:
    """The good summary cut to its first two thirds of words scores lower in every case."""
    scores = development[METHOD]
    assert (scores[:, 0] > scores[:, 2]).all(), scores
    assert (development["original"][:, 0] > development["original"][:, 2]).sum() < len(CASES)


# --- states: sharded scoring and merge ---------------------------------------------------------------------------
def cli(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_shards_of_the_variant_merge_to_the_whole_run(capsys, tmp_path: Path) -> None:
    from persona_metrics.sharding.files import read_states
    from persona_metrics.sharding.items import merge_item_states

    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps({"prediction": p, "source": s}) + "\n" for p, s in PAIRS), encoding="utf-8")
    command = ["score", "summary_eval", path, "-o", f"completeness_method={METHOD}"]
    paths = []
    for i in (2, 1):
        states = tmp_path / f"s{i}.jsonl"
        code, _, err = cli(capsys, *command, "--shard", f"{i}/2", "--states", states)
        assert code == 0, err
        paths.append(states)
    merged = merge_item_states([read_states(p) for p in paths]).results["pairs"]["summary_eval"]
    whole = score_summary_eval([p for p, _ in PAIRS], [s for _, s in PAIRS], completeness_method=METHOD)
    assert merged.completeness.tolist() == whole.completeness.tolist()
    assert merged.topics == whole.topics  # recall, precision and the sentences' cosines, bit for bit
    assert merged.completeness_method == METHOD
    assert cli(capsys, "merge", *paths, "--format", "json")[1] == cli(capsys, *command, "--format", "json")[1]
    # a result line naming an unknown method is refused
    import states_lines

    rows = states_lines.rows(paths[0])
    number = next(k for k, row in enumerate(rows) if row.get("kind") == "result")
    rows[number]["completeness_method"] = "f1"
    forged = states_lines.write(tmp_path / "forged.jsonl", rows)
    err = cli(capsys, "merge", forged, paths[1])[2]
    assert f"{forged}:{number + 1}: field 'completeness_method' must be one of ['original', 'recall_precision']" in err
