"""The PerSEval paper's equations as pure functions of distance arrays: no text, no I/O, no validation.

Equation numbers are the PerSEval paper's (TMLR 2024); semantics follow the authors' reference code where it
differs from the paper (``docs/perseval.md`` §4–5 lists every decision): (1) DEGRESS of a summary,
(2) system DEGRESS and EGISES, (3) P-Acc, (4) ADP, (5) ACP, (6) DGP / EDP / PerSEval of a summary,
(7) system PerSEval. :func:`aggregate` is the one place where per-summary scores become system scores.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

# The document bootstrap (docs/perseval.md §8.1) lives with the paired tests; re-exported here.
from persona_metrics.significance import DEFAULT_BOOTSTRAP_SEED as DEFAULT_BOOTSTRAP_SEED
from persona_metrics.significance import bootstrap_interval as bootstrap_interval

# --- constants (each with its source) ------------------------------------------------------------
#: ε in the DEGRESS proportion r_jk (eq. 1); the authors' code hard-codes 1e-5.
DEGRESS_EPSILON = 1e-5
#: ε in the ADP / ACP denominators and the additive term on EDP (egises ``PersevalParams.epsilon``).
PERSEVAL_EPSILON = 1e-7
#: EDP sigmoid offset α (paper §5, eq. 6: α = 3; egises ``EDP_alpha``).
DEFAULT_ALPHA = 3.0
#: EDP sigmoid slope β (paper's reported setting 1.7; the authors' code default is 1.0).
DEFAULT_BETA = 1.7
#: ADP / ACP sigmoid offset γ (paper eq. 4–5: γ ≥ 4; egises ``ADP_alpha`` = ``ACP_alpha`` = 4).
DEFAULT_GAMMA = 4.0
#: ADP / ACP slope exponent: the paper's fixed factor 10 = 10**1 (egises ``ADP_beta`` = ``ACP_beta`` = 1).
PENALTY_SLOPE_EXPONENT = 1.0
#: P-Acc hyper-parameters of the paper's Table 8 (eq. 3): α = 0.5, β = 1.
DEFAULT_P_ACC_ALPHA = 0.5
DEFAULT_P_ACC_BETA = 1.0


# --- pure formulas ---------------------------------------------------------------------------------
def custom_sigmoid(x: np.ndarray | float, offset: float, slope_exponent: float) -> np.ndarray:
    """S(x; A, B) = 1 / (1 + 10**A · exp(−10**B · x)) (egises ``custom_sigmoid``), overflow-free.

    Written as ``expit(10**B · x − A · ln 10)``, which is the same function without overflow for large |x|.
    """
    return expit(np.power(10.0, slope_exponent) * np.asarray(x, dtype=np.float64) - offset * math.log(10.0))


def weighted_distances(pair: np.ndarray, to_doc: np.ndarray) -> np.ndarray:
    """Softmax-weighted pair distances X (or Y) of eq. (1), code semantics; one document or a stack of them.

    ``w_jk = σ(j, k) / σ(j, D)`` (0 when ``σ(j, D) = 0``), softmax over the other users ``l ≠ j`` of the
    anchor's row, times ``σ(j, k)``. The diagonal of the result is meaningless and set to 0. Every operation is
    element-wise or a reduction along the last axis, so a document's values are the same floats whether it is
    computed alone or in a stack.

    Args:
        pair: ``(n, n)`` pair distances of one document, or ``(m, n, n)`` for m documents of n users each.
        to_doc: ``(n,)`` (or ``(m, n)``) distances to the document.
    """
    n = pair.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(to_doc[..., :, None] == 0.0, 0.0, pair / to_doc[..., :, None])
    off = ~np.eye(n, dtype=bool)
    w = np.where(off, w, -np.inf)  # the anchor itself is not in the softmax (code, not paper)
    w = w - w.max(axis=-1, keepdims=True)  # stable softmax: same values, no overflow
    e = np.exp(w)
    soft = e / e.sum(axis=-1, keepdims=True)
    return np.where(off, soft * pair, 0.0)


def degress_from_weighted(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """DEGRESS of each summary (eq. 1) from the weighted distances X (references) and Y (summaries).

    Args:
        x: :func:`weighted_distances` of the references, ``(n, n)`` or ``(m, n, n)``.
        y: the same for the generated summaries.

    Returns:
        ``(n,)`` (or ``(m, n)``): ``mean over k ≠ j of (min(X_jk, Y_jk) + ε) / (max(X_jk, Y_jk) + ε)``.
    """
    n = x.shape[-1]
    r = (np.minimum(x, y) + DEGRESS_EPSILON) / (np.maximum(x, y) + DEGRESS_EPSILON)
    r = np.where(np.eye(n, dtype=bool), 0.0, r)
    return r.sum(axis=-1) / (n - 1)


def degress_scores(
    ref_pair: np.ndarray, ref_doc: np.ndarray, pred_pair: np.ndarray, pred_doc: np.ndarray
) -> np.ndarray:
    """DEGRESS of each user's summary in one document (eq. 1, authors' code semantics), or in a stack of them.

    Args:
        ref_pair: ``(n, n)`` array, ``ref_pair[j, k] = σ(u_j, u_k)`` (diagonal ignored); or ``(m, n, n)`` for m
            documents with n users each (the scorer batches documents of equal size this way).
        ref_doc: ``(n,)`` array, ``σ(u_j, D)`` (or ``(m, n)``).
        pred_pair: ``(n, n)`` array, ``σ(s_j, s_k)`` (or ``(m, n, n)``).
        pred_doc: ``(n,)`` array, ``σ(s_j, D)`` (or ``(m, n)``).

    Returns:
        ``(n,)`` array (or ``(m, n)``): ``DEGRESS(s_j) = mean over k ≠ j of (min(X_jk, Y_jk) + ε) / (max(X_jk,
        Y_jk) + ε)``. A stacked document gets the same floats as alone.

    Raises:
        ValueError: with fewer than two users (no pair exists).
    """
    n = ref_pair.shape[-1]
    if n < 2:
        raise ValueError(f"DEGRESS needs at least 2 users per document, got {n}")
    return degress_from_weighted(weighted_distances(ref_pair, ref_doc), weighted_distances(pred_pair, pred_doc))


@dataclass(frozen=True)
class Penalties:
    """ADP (per document), ACP, DGP and EDP (per summary) of one document (eq. 4–6), or of a stack of documents.

    For one document ``adp`` is a float and the others ``(n,)`` arrays; for a stack of m documents ``adp`` is an
    ``(m,)`` array and the others ``(m, n)`` (:meth:`rows` splits a stack into one :class:`Penalties` per document).
    """

    adp: float | np.ndarray
    acp: np.ndarray
    dgp: np.ndarray
    edp: np.ndarray

    def rows(self) -> list[Penalties]:
        """The penalties of each document of a stack (views of its rows)."""
        columns = (np.asarray(self.adp).tolist(), self.acp, self.dgp, self.edp)
        return [Penalties(adp, acp, dgp, edp) for adp, acp, dgp, edp in zip(*columns, strict=True)]


def edp_scores(
    accuracy: np.ndarray, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA, gamma: float = DEFAULT_GAMMA
) -> Penalties:
    """Accuracy-drop and -inconsistency penalties of one document (eq. 4, 5, 6; code semantics), or of a stack.

    Args:
        accuracy: ``(n,)`` accuracy distances ``σ(s_j, u_j)`` of the document's users; or ``(m, n)`` for m
            documents with n users each (each row's penalties are the same floats as the row alone).
        alpha: EDP sigmoid offset (paper α).
        beta: EDP sigmoid slope exponent (paper β).
        gamma: ADP / ACP sigmoid offset (paper γ).

    Returns:
        The :class:`Penalties`; ``EDP = 1 − S(ADP + ACP; α, β) + 1e-7``.
    """
    accuracy = np.asarray(accuracy, dtype=np.float64)
    d_min = accuracy.min(axis=-1, keepdims=True)
    d_mean = accuracy.mean(axis=-1, keepdims=True)
    with np.errstate(divide="ignore"):  # d_min = 1 + 1e-7 (unbounded σ) divides by 0: ±inf, then S = 0 or 1
        drop = d_min / ((1.0 - d_min) + PERSEVAL_EPSILON)
    adp = custom_sigmoid(drop, gamma, PENALTY_SLOPE_EXPONENT)
    acp = custom_sigmoid((accuracy - d_min) / ((d_mean - d_min) + PERSEVAL_EPSILON), gamma, PENALTY_SLOPE_EXPONENT)
    dgp = adp + acp
    edp = 1.0 - custom_sigmoid(dgp, alpha, beta) + PERSEVAL_EPSILON
    adp = adp[..., 0]
    return Penalties(adp=float(adp) if adp.ndim == 0 else adp, acp=acp, dgp=dgp, edp=edp)


def p_accuracy(
    accuracy_similarity: float, egises: float, alpha: float = DEFAULT_P_ACC_ALPHA, beta: float = DEFAULT_P_ACC_BETA
) -> float:
    """P-Accuracy (paper eq. 3): ``Score_Acc − α · logistic(β · EGISES)``.

    Formula only: the authors ship no code for P-Acc. ``f_sig`` is the logistic function, which matches the
    paper's worked value −0.37 for Score_Acc = 0, EGISES = 1 (α = 0.5, β = 1; Theorem 4).
    """
    return float(accuracy_similarity - alpha * expit(beta * egises))


# --- system reduction (eqs. 2 and 7) -------------------------------------------------------------------------
def document_means(per_summary: Sequence[np.ndarray]) -> np.ndarray:
    """The inner mean of eqs. 2 and 7: one value per document, the mean over its users' summaries.

    Documents with the same number of summaries are stacked and averaged along the last axis: each mean is the
    same float as ``np.mean`` of that document alone, without one numpy call per document.
    """
    by_size: dict[int, list[int]] = {}
    for i, values in enumerate(per_summary):
        by_size.setdefault(len(values), []).append(i)
    means = np.empty(len(per_summary), dtype=np.float64)
    for size, docs in by_size.items():
        stack = np.array([per_summary[i] for i in docs], dtype=np.float64).reshape(len(docs), size)
        means[docs] = stack.mean(axis=-1)
    return means


@dataclass(frozen=True)
class SystemScores:
    """System-level scores of one summarizer (eqs. 2, 3 and 7 and the two means reported next to them)."""

    degress: float
    egises: float
    perseval: float
    edp: float
    accuracy_distance: float
    accuracy_similarity: float
    p_accuracy: float


def aggregate(
    degress: Sequence[np.ndarray],
    edp: Sequence[np.ndarray],
    accuracy: Sequence[np.ndarray],
    p_acc_alpha: float = DEFAULT_P_ACC_ALPHA,
    p_acc_beta: float = DEFAULT_P_ACC_BETA,
) -> SystemScores:
    """System scores from per-document arrays of per-summary values (one array per scored document).

    * eq. 2: ``DEGRESS = mean over documents of (mean over the document's users of DEGRESS(s_ij))``;
      ``EGISES = 1 − DEGRESS``;
    * eq. 7: ``PerSEval = mean over documents of (mean over users of DEGRESS(s_ij) · EDP(s_ij))``;
    * mean EDP: averaged like PerSEval (documents first, then users);
    * accuracy distance: the flat mean of ``σ(s_ij, u_ij)`` over every scored summary (authors' code);
    * eq. 3: P-Acc from ``Score_Acc = 1 − accuracy distance`` and EGISES.
    """
    system_degress = float(document_means(degress).mean())
    egises = 1.0 - system_degress
    accuracy_distance = float(np.concatenate([np.asarray(a, dtype=np.float64) for a in accuracy]).mean())
    return SystemScores(
        degress=system_degress,
        egises=egises,
        perseval=float(document_means([d * e for d, e in zip(degress, edp, strict=True)]).mean()),
        edp=float(document_means(edp).mean()),
        accuracy_distance=accuracy_distance,
        accuracy_similarity=accuracy_similarity(accuracy_distance),
        p_accuracy=p_accuracy(accuracy_similarity(accuracy_distance), egises, p_acc_alpha, p_acc_beta),
    )


def accuracy_similarity(accuracy_distance: float) -> float:
    """``Score_Acc`` of eq. 3: one minus the mean accuracy distance."""
    return 1.0 - accuracy_distance
