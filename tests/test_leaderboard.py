"""persona_metrics.personalization.leaderboard: the boards ``score perseval|degress`` and ``pens`` lay out."""

from __future__ import annotations

import pytest

from persona_metrics import PersonaMetricsWarning
from persona_metrics.personalization import PersevalParams, PersonalizationScorer, compare_personalization
from persona_metrics.personalization.leaderboard import (
    PER_SUMMARY_KEYS,
    per_summary_rows,
    rank_systems,
    score_shard,
    score_systems,
)

DOCS = ["doc one about trains"] * 3 + ["doc two about boats"] * 3 + ["doc three alone"]
IDS = ["d1", "d1", "d1", "d2", "d2", "d2", "d3"]
REFS = [
    "trains run late",
    "new rail line opens",
    "fares go up again",
    "boats sail at dawn",
    "harbour fees rise",
    "ferry strike ends",
    "nothing to compare",
]
SYSTEMS = {
    "oracle": list(REFS),
    "same": ["trains and boats"] * 7,
    "echo": [d.split()[-1] for d in DOCS],
}
PARAMS = PersevalParams(bootstrap=0, seed=3)


@pytest.fixture(scope="module")
def results() -> dict:
    with pytest.warns(PersonaMetricsWarning, match="single reference"):  # d3: excluded, with a note
        scorer = PersonalizationScorer(REFS, DOCS, IDS, distance="jsd")
    return score_systems(scorer, SYSTEMS, PARAMS)


def test_score_systems_scores_each_system_in_order(results: dict) -> None:
    assert list(results) == list(SYSTEMS)
    with pytest.warns(PersonaMetricsWarning, match="single reference"):
        scorer = PersonalizationScorer(REFS, DOCS, IDS, distance="jsd")
    assert results["same"].perseval == scorer.score(SYSTEMS["same"], params=PARAMS).perseval


@pytest.mark.parametrize("measure", ["perseval", "degress"])
def test_rank_systems_ranks_and_tests_adjacent_ranks(results: dict, measure: str) -> None:
    board = rank_systems(results, measure, 200, 5)
    assert board.ranked == sorted(results, key=lambda n: -getattr(results[n], measure))
    assert list(board.results) == list(SYSTEMS)  # scoring order kept
    assert [name for name, _ in board.board] == board.ranked
    assert board.signature == results["oracle"].signature
    (a, b), (c, d) = board.ranked[:2], board.ranked[1:]
    assert list(board.next_tests) == [a, c]
    assert board.next_tests[a][0] == b
    assert board.next_tests[c][0] == d
    expected = compare_personalization(results[a], results[b], measure, n_resamples=200, seed=5)
    assert board.next_tests[a][1] == expected
    assert board.baseline is None
    assert board.baseline_tests == {}


def test_no_resamples_no_tests(results: dict) -> None:
    assert rank_systems(results, "perseval", 0, 0).next_tests == {}


def test_baseline_tests_every_other_system_in_rank_order(results: dict) -> None:
    board = rank_systems(results, "degress", 100, 1, "same", "bootstrap")
    assert list(board.baseline_tests) == [n for n in board.ranked if n != "same"]
    expected = compare_personalization(
        results["echo"], results["same"], "degress", method="bootstrap", n_resamples=100, seed=1
    )
    assert board.baseline_tests["echo"] == expected
    assert (board.baseline, board.method) == ("same", "bootstrap")


def test_stability_and_rank_disagreement(results: dict) -> None:
    board = rank_systems(results, "perseval", 0, 0)
    st = board.stability("perseval", seed=0)
    assert st.means.shape[1] == len(SYSTEMS)
    tau, flipped = board.rank_disagreement()
    assert -1.0 <= tau <= 1.0
    assert all(pair[0] in SYSTEMS for pair in flipped)


def test_score_shard_sets_single_reference_rows_apart(results: dict) -> None:
    alone, scored, shard = score_shard(REFS, DOCS, IDS, SYSTEMS, [3, 4, 5, 6], PARAMS, distance="jsd")
    assert (alone, scored) == ([6], [3, 4, 5])
    assert list(shard) == list(SYSTEMS)
    assert [doc.key for doc in shard["echo"].documents] == ["d2"]
    assert shard["echo"].per_document("perseval")["d2"] == results["echo"].per_document("perseval")["d2"]
    assert score_shard(REFS, DOCS, IDS, SYSTEMS, [6], PARAMS, distance="jsd") == ([6], [], {})


def test_score_shard_groups_by_text_without_ids() -> None:
    alone, scored, shard = score_shard(REFS, DOCS, None, SYSTEMS, [0, 1, 2, 6], PARAMS, distance="jsd")
    assert (alone, scored) == ([6], [0, 1, 2])
    assert [doc.key for doc in shard["oracle"].documents] == [DOCS[0]]


def test_per_summary_rows(results: dict) -> None:
    rows = per_summary_rows(results, {"document_id": IDS}, "model", distance="jsd")
    assert len(rows) == 6 * len(SYSTEMS)  # the single-reference line has no row
    first = rows[0]
    assert list(first) == ["distance", "model", "item", "document_id", *PER_SUMMARY_KEYS, "signature"]
    assert (first["distance"], first["model"], first["item"], first["document_id"]) == ("jsd", "oracle", 0, "d1")
    assert first["perseval"] == results["oracle"].per_summary("perseval")[0]
    assert first["signature"] == results["oracle"].signature
