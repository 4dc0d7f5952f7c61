"""Rank-stability meta-evaluation (PerSEval paper §7.2) and rank disagreement between two measures.

A system score is the mean of per-document scores, so subsample leaderboards are cheap reductions over the
``(models, documents)`` matrix of per-document scores: nothing is re-scored.

Sampling: for each fraction (80/60/40/20 %), ``repeats`` seeded subsamples of documents drawn *without*
replacement (the paper says "with replacement"; the authors' script subsamples user-pair rows without
replacement, ``docs/perseval.md`` §8). ε-Spearman / ε-Kendall = the largest rank-correlation *distance*
``1 − ρ`` / ``1 − τ`` between a subsample's model ranking and the full-data ranking; bias and variance per model
are the authors' ``np.std`` / ``np.var`` of the five values (100 %, then each fraction's mean over repeats).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import kendalltau, rankdata, spearmanr

from persona_metrics.significance import check_seed

#: The paper's subsample sizes and number of repeats (§7.2).
FRACTIONS: tuple[float, ...] = (0.8, 0.6, 0.4, 0.2)
REPEATS = 10


@dataclass(frozen=True)
class Stability:
    """Stability statistics of one measure over a set of models.

    Attributes:
        fractions: the subsample fractions.
        means: ``(len(fractions), models)`` mean system score over the repeats of each fraction.
        epsilon_spearman: per fraction, ``max(1 − ρ)`` over repeats.
        epsilon_kendall: per fraction, ``max(1 − τ)`` over repeats.
        bias: per model, ``std`` of [full, fraction means...].
        variance: per model, ``var`` of the same values.
    """

    fractions: tuple[float, ...]
    means: np.ndarray
    epsilon_spearman: np.ndarray
    epsilon_kendall: np.ndarray
    bias: np.ndarray
    variance: np.ndarray

    @property
    def max_bias(self) -> float:
        """The least stable model's bias (largest over models)."""
        return float(self.bias.max())

    @property
    def max_variance(self) -> float:
        """The least stable model's variance (largest over models)."""
        return float(self.variance.max())


def _correlation(a: np.ndarray, b: np.ndarray, fn) -> float:
    """Rank correlation; 1.0 exactly for identical rankings or two constant sides, 0.0 for one constant side.

    scipy gives 1 − 1e-16 for some identical rankings; the tables would show that noise. No NaN is returned.
    """
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return 1.0 if np.ptp(a) == np.ptp(b) else 0.0
    if np.array_equal(rankdata(a), rankdata(b)):
        return 1.0
    return float(fn(a, b)[0])


def stability(
    per_document: np.ndarray, fractions: Sequence[float] = FRACTIONS, repeats: int = REPEATS, seed: int = 0
) -> Stability:
    """Rank stability of a measure from its ``(models, documents)`` per-document scores.

    Raises:
        ValueError: fewer than 2 models or documents, a fraction outside (0, 1], or a seed outside 0 to
            2**64 - 1 (TypeError: not an int).
    """
    seed = check_seed(seed)
    scores = np.asarray(per_document, dtype=np.float64)
    if scores.ndim != 2 or scores.shape[0] < 2 or scores.shape[1] < 2:
        raise ValueError(f"per_document must be (models >= 2, documents >= 2), got shape {scores.shape}")
    for f in fractions:
        if not 0 < f <= 1:
            raise ValueError(f"fractions must lie in (0, 1], got {f}")
    rng = np.random.default_rng(seed)
    full = scores.mean(axis=1)
    n_docs = scores.shape[1]
    means, eps_s, eps_k = [], [], []
    for f in fractions:
        k = max(2, round(f * n_docs))
        runs = np.array([scores[:, rng.choice(n_docs, size=k, replace=False)].mean(axis=1) for _ in range(repeats)])
        means.append(runs.mean(axis=0))
        eps_s.append(max(1.0 - _correlation(full, r, spearmanr) for r in runs))
        eps_k.append(max(1.0 - _correlation(full, r, kendalltau) for r in runs))
    table = np.vstack([full, *means])
    return Stability(
        fractions=tuple(fractions),
        means=np.array(means),
        epsilon_spearman=np.array(eps_s),
        epsilon_kendall=np.array(eps_k),
        bias=table.std(axis=0),
        variance=table.var(axis=0),
    )


def rank_disagreement(names: Sequence[str], a: Sequence[float], b: Sequence[float]) -> tuple[float, list[tuple]]:
    """Kendall τ between the rankings by ``a`` and by ``b`` and the model pairs they order differently.

    Returns:
        ``(tau, [(model_x, model_y), ...])`` where ``a`` ranks x above y but ``b`` ranks y above x.
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    flipped = [
        (names[i], names[j]) if x[i] > x[j] else (names[j], names[i])
        for i in range(len(names))
        for j in range(i + 1, len(names))
        if (x[i] - x[j]) * (y[i] - y[j]) < 0
    ]
    return _correlation(x, y, kendalltau), flipped
