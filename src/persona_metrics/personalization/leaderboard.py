"""Leaderboards of DEGRESS / PerSEval: systems scored on one input, ranked by a measure, and the tests between them.

What ``persona-metrics score perseval|degress`` and ``persona-metrics pens`` (one board per distance) share; the
commands only lay the boards out:

* :func:`score_systems`: every system scored on one :class:`~persona_metrics.personalization.PersonalizationScorer`
  (the reference side is computed once per distance);
* :func:`score_shard`: the same on the rows of one shard (``--shard I/N``), those of single-reference documents set
  apart;
* :func:`rank_systems`: scored or merged results ranked by a measure, each rank compared with the next and every
  system with a baseline by :func:`~persona_metrics.personalization.comparison.compare_personalization`: a
  :class:`Leaderboard`, which also gives the board's rank stability and the DEGRESS / PerSEval rank disagreement;
* the rows the commands print or write: :func:`per_summary_rows` (the micro scores), :func:`stability_rows` and
  :func:`stability_summary_row`.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from persona_metrics.personalization.comparison import compare_personalization
from persona_metrics.personalization.scorer import PersonalizationResult, PersonalizationScorer
from persona_metrics.progress import progress_bar

if TYPE_CHECKING:
    from persona_metrics.personalization.params import PersevalParams
    from persona_metrics.personalization.stability import Stability
    from persona_metrics.significance import PairedTest

#: Bootstrap resamples of a leaderboard's intervals unless asked otherwise (the library's default is 0: none).
LEADERBOARD_BOOTSTRAP = 1000
#: The per-summary values of a leaderboard's micro rows (:func:`per_summary_rows`).
PER_SUMMARY_KEYS: tuple[str, ...] = ("perseval", "degress", "edp", "accuracy_distance")


@dataclass(frozen=True)
class Leaderboard:
    """Systems scored with one distance, ranked by ``measure``, and the paired tests between them.

    Attributes:
        measure: the measure of the ranking and of every test (``"perseval"``, ``"degress"``, ...).
        results: ``{system: result}`` in scoring order.
        ranked: the systems best first (ties keep the scoring order).
        next_tests: ``{system: (next system, test)}`` for each pair of adjacent ranks (empty without resamples).
        baseline: the system every other one is compared with, or None.
        method: the paired test of the baseline comparisons (``"permutation"`` or ``"bootstrap"``).
        baseline_tests: ``{system: test}`` of every other system against ``baseline``, in rank order.
    """

    measure: str
    results: dict[str, PersonalizationResult]
    ranked: list[str]
    next_tests: dict[str, tuple[str, PairedTest]]
    baseline: str | None = None
    method: str = "permutation"
    baseline_tests: dict[str, PairedTest] = field(default_factory=dict)

    @property
    def board(self) -> list[tuple[str, PersonalizationResult]]:
        """``(system, result)`` best first."""
        return [(name, self.results[name]) for name in self.ranked]

    @property
    def signature(self) -> str:
        """The results' signature (one distance and one set of params: the same for every system)."""
        return self.results[self.ranked[0]].signature

    def stability(self, measure: str, seed: int) -> Stability:
        """Rank stability of ``measure`` under seeded document subsampling (PerSEval paper §7.2)."""
        import numpy as np

        from persona_metrics.personalization.stability import stability

        per_document = np.array([list(r.per_document(measure).values()) for r in self.results.values()])
        return stability(per_document, seed=seed)

    def rank_disagreement(self) -> tuple[float, list[tuple]]:
        """Kendall τ between the DEGRESS and PerSEval rankings and the pairs they order differently."""
        from persona_metrics.personalization.stability import rank_disagreement

        names = list(self.results)
        degress, perseval = [self.results[n].degress for n in names], [self.results[n].perseval for n in names]
        return rank_disagreement(names, degress, perseval)


def score_systems(
    scorer: PersonalizationScorer,
    systems: Mapping[str, Sequence[str]],
    params: PersevalParams,
    desc: str | None = None,
) -> dict[str, PersonalizationResult]:
    """``{system: result}``: each system's predictions scored on ``scorer`` with ``params``, in the order given.

    Args:
        scorer: the scorer of the input (one distance).
        systems: ``{system: predictions}``, aligned with the scorer's references.
        params: the hyper-parameters.
        desc: the label of a progress bar over the systems (:func:`~persona_metrics.progress.progress_bar`), or
            None for none.
    """
    items = systems.items() if desc is None else progress_bar(systems.items(), desc=desc)
    return {name: scorer.score(predictions, params=params) for name, predictions in items}


def score_shard(
    references: Sequence[str],
    documents: Sequence[str],
    document_ids: Sequence[Hashable] | None,
    systems: Mapping[str, Sequence[str]],
    rows: Sequence[int],
    params: PersevalParams,
    **distance: Any,
) -> tuple[list[int], list[int], dict[str, PersonalizationResult]]:
    """The ``rows`` of one shard: those of single-reference documents, the scored ones, every system's results on them.

    Documents are grouped by ``document_ids`` (by their text without); a shard holds whole documents
    (:func:`~persona_metrics.personalization.merge.shard_of`), so a document's references are counted over the
    whole input. The results are empty when no row is scored.

    Args:
        references: the users' own summaries of the whole input.
        documents: the documents, aligned.
        document_ids: the document ids, aligned, or None.
        systems: ``{system: predictions}`` of the whole input.
        rows: the shard's rows, in order.
        params: the hyper-parameters.
        **distance: the scorer's ``distance`` and ``distance_options``.
    """
    keys: Sequence[Hashable] = document_ids if document_ids is not None else documents
    counts = Counter(keys)
    alone = [i for i in rows if counts[keys[i]] < 2]
    scored = [i for i in rows if counts[keys[i]] >= 2]
    if not scored:
        return alone, scored, {}
    ids = None if document_ids is None else [keys[i] for i in scored]
    scorer = PersonalizationScorer([references[i] for i in scored], [documents[i] for i in scored], ids, **distance)
    results = {name: scorer.score([preds[i] for i in scored], params=params) for name, preds in systems.items()}
    return alone, scored, results


def rank_systems(
    results: Mapping[str, PersonalizationResult],
    measure: str,
    resamples: int,
    seed: int,
    baseline: str | None = None,
    method: str = "permutation",
) -> Leaderboard:
    """The leaderboard of scored (or merged) ``results``, best first by ``measure``.

    Each rank is compared with the next by the paired permutation test on the per-document values of ``measure``
    (``resamples`` 0: no test); with ``baseline``, every other system is compared with it by ``method``, with the
    same resamples and ``seed``.

    Args:
        results: ``{system: result}`` in scoring order (one distance, one set of params).
        measure: the ranking's measure (a name of
            :data:`~persona_metrics.personalization.comparison.PERSONALIZATION_MEASURES`).
        resamples: the tests' resamples.
        seed: the tests' seed.
        baseline: a system of ``results``, or None.
        method: the baseline comparisons' paired test.
    """
    ranked = sorted(results, key=lambda name: -getattr(results[name], measure))
    pairs = itertools.pairwise(ranked) if resamples else ()
    next_tests = {
        a: (b, compare_personalization(results[a], results[b], measure, n_resamples=resamples, seed=seed))
        for a, b in pairs
    }
    against: dict[str, PairedTest] = {}
    if baseline is not None:
        base = results[baseline]
        against = {
            name: compare_personalization(results[name], base, measure, method=method, n_resamples=resamples, seed=seed)
            for name in ranked
            if name != baseline
        }
    return Leaderboard(measure, dict(results), ranked, next_tests, baseline, method, against)


def per_summary_rows(
    results: Mapping[str, PersonalizationResult], ids: Mapping[str, Sequence[Any]], system: str, **fixed: Any
) -> list[dict[str, Any]]:
    """One row per (system, scored summary), systems in the order of ``results``.

    A row holds ``fixed``, the system's name under the key ``system``, ``item`` (the summary's index), the ``ids``
    columns at that index, the :data:`PER_SUMMARY_KEYS` values and the signature. Summaries of single-reference
    documents are not scored and have no row.
    """
    rows = []
    for name, result in results.items():
        values = {key: result.per_summary(key) for key in PER_SUMMARY_KEYS}
        for i, perseval in enumerate(values["perseval"]):
            if perseval is not None:
                row = {
                    **fixed,
                    system: name,
                    "item": i,
                    **{column: column_ids[i] for column, column_ids in ids.items()},
                }
                rows.append({**row, **{key: values[key][i] for key in PER_SUMMARY_KEYS}, "signature": result.signature})
    return rows


def stability_rows(distance: str, measure: str, st: Stability, signature: str = "") -> list[dict[str, Any]]:
    """One row per subsample fraction: ε-Spearman and ε-Kendall (the fraction-dependent statistics)."""
    return [
        {
            "distance": distance,
            "measure": measure,
            "fraction": f,
            "epsilon_spearman": float(st.epsilon_spearman[i]),
            "epsilon_kendall": float(st.epsilon_kendall[i]),
            "signature": signature,
        }
        for i, f in enumerate(st.fractions)
    ]


def stability_summary_row(distance: str, measure: str, st: Stability, signature: str = "") -> dict[str, Any]:
    """The fraction-independent statistics, once: :attr:`Stability.max_bias` and :attr:`Stability.max_variance`.

    Both are the least stable model's (largest over models) std and variance of the full-data score and the four
    fraction means.
    """
    return {
        "distance": distance,
        "measure": measure,
        "max_bias": st.max_bias,
        "max_variance": st.max_variance,
        "signature": signature,
    }


__all__ = [
    "LEADERBOARD_BOOTSTRAP",
    "PER_SUMMARY_KEYS",
    "Leaderboard",
    "per_summary_rows",
    "rank_systems",
    "score_shard",
    "score_systems",
    "stability_rows",
    "stability_summary_row",
]
