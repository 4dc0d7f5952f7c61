"""Style fidelity (``method="fidelity"``): graded, open-set and length-aware, as pure math (``docs/style.md`` §4.8).

A register is modelled feature by feature (:data:`~persona_metrics.persona.stylometry.FIDELITY_FEATURES`, each a
mean over a text's words or sentences) with a **length model**: a text of ``n`` words written in register ``c``
has feature ``k`` distributed around the register's mean ``μ_ck`` with variance

```
v_ck(n) = β_ck + ω_ck / n          β: how much texts of the register differ; ω / n: the sampling noise of a
                                    mean over n words (one "!" in 30 words is a rate of 3.3 per 100)
```

(both fitted per register by non-negative least squares of the squared deviations on ``1/n``), floored at
:data:`VARIANCE_FLOOR` times the same model fitted on all texts pooled, and read through a Student-t density with
:data:`T_DEGREES` degrees of freedom, so that one extreme feature costs a bounded amount. The registers are the
personas and a **background** of texts in none of their registers (``persona/register/background_texts.jsonl``).

For a target persona ``P`` two log-likelihood ratios (equal weights inside each mean)::

    E_P(x) = log f_P(x | n) − log mean_{c ≠ P} f_c(x | n)        P against every other register (personas, background)
    B_P(x) = log f_P(x | n) − log mean_{b ∈ background} f_b(x | n)    P against the background registers alone

and its **fidelity** is where they fall among texts of the same length::

    fidelity_P(x) = ½ · F_P(E_P | n) + ½ · mean_b G_P,b(B_P | n)

``F_P(· | n)`` is the distribution of ``E_P`` over ``P``'s own texts of ``n`` words, ``G_P,b(· | n)`` that of
``B_P`` over the texts of background register ``b``: normals whose mean and standard deviation are linear in
``log n``, fitted on the training texts and their sentence-prefix excerpts, each scored by a model fitted without it
(cross-fitting, :data:`FOLDS` folds; ``½`` is :data:`OWN_WEIGHT`). So fidelity is the share of a reference
population of texts of this length, half the target's own texts and half texts in no persona's register, that read
less like the target than this one. The target's own texts score about 0.5–1 (median 0.74 on the development
texts), another persona's about 0.1–0.5 (it is below the target's own texts and, being far from the target, low
among the background's too), texts in none of the registers about 0–0.5, at every length.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls
from scipy.special import gammaln, logsumexp, ndtr

#: Degrees of freedom of each feature's Student-t density (heavy tails: one extreme feature costs a bounded
#: amount, as with ``zscore``'s per-feature averaging).
T_DEGREES = 5.0
#: A register's variance of a feature is at least this share of the pooled variance at the same length (a
#: feature a register never shows, an analyst's "!", would otherwise have variance 0).
VARIANCE_FLOOR = 0.1
#: Cross-fitting folds of the calibration (stories kept together).
FOLDS = 10
#: Sentence-prefix excerpts of each training text: the shortest prefix of at least this many words, for each
#: length here shorter than the text.
EXCERPT_WORDS: tuple[int, ...] = (30, 60, 100)
#: The share of the persona's own texts in the reference population (the rest: texts in no persona's register).
OWN_WEIGHT = 0.5
#: The shortest texts the calibration is fitted on are about this long (the excerpts' first length, the shortest
#: development texts): a prediction with fewer words is scored, with a warning, from weak evidence.
MIN_WORDS = 20
#: The smallest standard deviation a calibration normal may have, as a share of its pooled residual spread.
SD_FLOOR = 0.25
#: The model and its constants as the signature names them and the cache records them.
FIDELITY_SIGNATURE = f"t{T_DEGREES:g},floor={VARIANCE_FLOOR:g},background,calibrated"


@dataclass(frozen=True)
class Profiles:
    """Per register (rows: the personas in order, then the background) the length model of every feature.

    Attributes:
        mean: ``(registers, features)`` means ``μ``.
        between: ``(registers, features)`` between-text variances ``β``.
        within: ``(registers, features)`` sampling-variance coefficients ``ω`` (variance ``ω / n`` at ``n``
            words).
        floor_between / floor_within: ``(features,)`` the pooled model times :data:`VARIANCE_FLOOR`.
    """

    mean: np.ndarray
    between: np.ndarray
    within: np.ndarray
    floor_between: np.ndarray
    floor_within: np.ndarray

    def log_densities(self, x: np.ndarray, n: np.ndarray) -> np.ndarray:
        """``(texts, registers)`` log densities of feature rows ``x`` of texts of ``n`` words."""
        inv = 1.0 / np.asarray(n, dtype=np.float64)[:, None, None]
        var = np.maximum(self.between + self.within * inv, self.floor_between + self.floor_within * inv)
        z2 = (x[:, None, :] - self.mean) ** 2 / var
        nu = T_DEGREES
        const = gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * math.log(nu * math.pi)
        return np.sum(const - 0.5 * np.log(var) - (nu + 1) / 2 * np.log1p(z2 / nu), axis=2)


def _length_model(x: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, ``β`` and ``ω`` of texts ``x`` (rows) of ``n`` words: squared deviations regressed on ``[1, 1/n]``."""
    mean = x.mean(axis=0)
    m = len(x)
    squared = (x - mean) ** 2 * (m / max(m - 1, 1))
    design = np.column_stack([np.ones(m), 1.0 / n])
    coefficients = np.array([nnls(design, squared[:, k])[0] for k in range(x.shape[1])])
    return mean, coefficients[:, 0], coefficients[:, 1]


def fit_profiles(x: np.ndarray, n: np.ndarray, labels: np.ndarray, registers: int) -> Profiles:
    """The :class:`Profiles` of feature rows ``x`` (``n`` words each) labelled ``0 … registers − 1``."""
    fits = [_length_model(x[labels == c], n[labels == c]) for c in range(registers)]
    _, pooled_between, pooled_within = _length_model(x, n)
    return Profiles(
        np.array([f[0] for f in fits]),
        np.array([f[1] for f in fits]),
        np.array([f[2] for f in fits]),
        VARIANCE_FLOOR * pooled_between,
        VARIANCE_FLOOR * pooled_within,
    )


def evidence(log_densities: np.ndarray, personas: int) -> np.ndarray:
    """``(texts, 2, personas)`` evidence from ``(texts, registers)`` log densities (the personas first).

    ``[:, 0, P]``: ``E_P``, persona ``P`` against every other register; ``[:, 1, P]``: ``B_P``, against the
    background registers alone (equal weights).
    """
    registers = log_densities.shape[1]
    out = np.empty((log_densities.shape[0], 2, personas))
    background = logsumexp(log_densities[:, personas:], axis=1) - math.log(registers - personas)
    for p in range(personas):
        others = np.delete(log_densities, p, axis=1)
        out[:, 0, p] = log_densities[:, p] - (logsumexp(others, axis=1) - math.log(registers - 1))
        out[:, 1, p] = log_densities[:, p] - background
    return out


@dataclass(frozen=True)
class FidelityModel:
    """A fitted fidelity model: the registers' length models and the calibration of each persona's evidence.

    Attributes:
        personas: the personas, in the order of the first rows of the profiles.
        background: the background registers, in the order of the profiles' last rows.
        profiles: the length models (:class:`Profiles`).
        calibration: ``(personas, 1 + background registers, 4)``: for target persona ``P``, ``(a, b, s, t)`` of the
            normal ``N(a + b · log n, max(s + t · log n, floor))`` that ``E_P`` follows over ``P``'s own texts of
            ``n`` words (column 0) and that ``B_P`` follows over each background register's texts (columns 1…).
        sd_floor: ``(personas, 1 + background registers)``: the floor of each normal's standard deviation.
    """

    personas: tuple[str, ...]
    background: tuple[str, ...]
    profiles: Profiles
    calibration: np.ndarray
    sd_floor: np.ndarray

    def evidence(self, x: np.ndarray, n: np.ndarray) -> np.ndarray:
        """``(texts, 2, personas)`` evidence (:func:`evidence`) of feature rows ``x`` of texts of ``n`` words."""
        return evidence(self.profiles.log_densities(np.atleast_2d(x), np.atleast_1d(n)), len(self.personas))

    def fidelity(self, x: np.ndarray, n: np.ndarray) -> np.ndarray:
        """``(texts, personas)`` fidelity of feature rows ``x`` of texts of ``n`` words to every persona."""
        n = np.atleast_1d(np.asarray(n, dtype=np.float64))
        e = self.evidence(x, n)
        log_n = np.log(n)[:, None, None]
        a, b, s, t = (self.calibration[..., i] for i in range(4))
        sd = np.maximum(s + t * log_n, self.sd_floor)
        values = np.concatenate([e[:, 0, :, None], np.repeat(e[:, 1, :, None], len(self.background), axis=2)], axis=2)
        f = ndtr((values - (a + b * log_n)) / sd)
        return OWN_WEIGHT * f[:, :, 0] + (1.0 - OWN_WEIGHT) * f[:, :, 1:].mean(axis=2)

    def scores(self, x: np.ndarray, n: int) -> dict[str, float]:
        """``{persona: fidelity}`` of one text's feature row ``x`` of ``n`` words."""
        return dict(zip(self.personas, self.fidelity(x[None, :], np.array([n]))[0].tolist(), strict=True))


def _folds(groups: Sequence[str], labels: np.ndarray) -> tuple[np.ndarray, int]:
    """Fold of each row and the number of folds (``min(FOLDS, fewest groups of a register)``).

    Within each register its texts' groups, in sorted order, are dealt round-robin, so that every register has
    texts in every fold.
    """
    per_register = [sorted({g for g, label in zip(groups, labels, strict=True) if label == c}) for c in set(labels)]
    count = min(FOLDS, *(len(g) for g in per_register))
    rank = {(c, g): i % count for c, names in zip(set(labels), per_register, strict=True) for i, g in enumerate(names)}
    return np.array([rank[label, g] for g, label in zip(groups, labels, strict=True)]), count


def _normal_line(e: np.ndarray, log_n: np.ndarray) -> tuple[float, float, float, float, float]:
    """``(a, b, s, t, floor)``: least-squares lines of ``e`` and of ``√(π/2)·|residual|`` on ``log n``."""
    design = np.column_stack([np.ones_like(log_n), log_n])
    (a, b), *_ = np.linalg.lstsq(design, e, rcond=None)
    residual = np.abs(e - design @ np.array([a, b])) * math.sqrt(math.pi / 2)
    (s, t), *_ = np.linalg.lstsq(design, residual, rcond=None)
    return float(a), float(b), float(s), float(t), SD_FLOOR * float(residual.mean())


def fit_fidelity(
    texts: Mapping[str, Sequence[tuple[np.ndarray, int, str]]],
    background: Mapping[str, Sequence[tuple[np.ndarray, int, str]]],
) -> FidelityModel:
    """The fidelity model of ``{persona: [(features, words, group)]}`` and ``{background register: [rows]}``.

    Each row is one text or one of its excerpts (:data:`EXCERPT_WORDS`); ``group`` names the text, so that a text
    and its excerpts fall in one cross-fitting fold.

    Raises:
        ValueError: a persona or background register with fewer than two texts (the calibration leaves each out).
    """
    personas = tuple(texts)
    classes = {**texts, **background}
    if len(classes) != len(texts) + len(background):
        raise ValueError(f"method 'fidelity': a persona has a background register's name: {sorted(texts)}")
    few = [name for name, rows in classes.items() if len({r[2] for r in rows}) < 2]
    if few:
        raise ValueError(
            f"method 'fidelity' needs at least 2 texts per persona (its calibration scores each text by a model "
            f"fitted without it); {few} have fewer"
        )
    rows = [row for name in classes for row in classes[name]]
    labels = np.repeat(np.arange(len(classes)), [len(classes[name]) for name in classes])
    x = np.array([row[0] for row in rows])
    n = np.array([row[1] for row in rows], dtype=np.float64)
    registers = len(classes)
    folds, count = _folds([row[2] for row in rows], labels)
    held_out = np.empty((len(rows), 2, len(personas)))
    for fold in range(count):
        test = folds == fold
        profiles = fit_profiles(x[~test], n[~test], labels[~test], registers)
        held_out[test] = evidence(profiles.log_densities(x[test], n[test]), len(personas))
    k = len(personas)
    calibration = np.empty((k, 1 + len(background), 4))
    floor = np.empty((k, 1 + len(background)))
    for p in range(k):
        for column, (c, kind) in enumerate([(p, 0), *((k + b, 1) for b in range(len(background)))]):
            a, b_, s, t, low = _normal_line(held_out[labels == c, kind, p], np.log(n[labels == c]))
            calibration[p, column], floor[p, column] = (a, b_, s, t), low
    return FidelityModel(personas, tuple(background), fit_profiles(x, n, labels, registers), calibration, floor)


__all__ = [
    "EXCERPT_WORDS",
    "FIDELITY_SIGNATURE",
    "FOLDS",
    "MIN_WORDS",
    "SD_FLOOR",
    "T_DEGREES",
    "VARIANCE_FLOOR",
    "FidelityModel",
    "Profiles",
    "evidence",
    "fit_fidelity",
    "fit_profiles",
]
