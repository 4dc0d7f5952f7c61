"""DEGRESS, EGISES, P-Accuracy, ADP / ACP / DGP / EDP and PerSEval.

Semantics follow the authors' reference code (``egises`` package, see ``specs/perseval.md`` §4–5),
which differs from the PerSEval paper (TMLR) in a few places; every difference is listed in the metric
cards. Equation numbers refer to the paper: (1) DEGRESS of a summary, (2) system DEGRESS and
EGISES, (3) P-Acc, (4) ADP, (5) ACP, (6) DGP / EDP / PerSEval of a summary, (7) system PerSEval.

The module has two layers:

* pure formulas over per-document distance arrays (:func:`degress_scores`, :func:`edp_scores`,
  :func:`p_accuracy`), no I/O and no text;
* :func:`score_personalization`, which validates the inputs, groups items into documents, asks a
  :class:`~persona_metrics.distances.Distance` for every distance in **one** call (so each unique pair
  is computed once), applies the formulas and aggregates documents first, then users (eq. 7 order).
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit

from persona_metrics.distances import DEFAULT_DISTANCE, Distance, get_distance
from persona_metrics.validation import PersonaMetricsWarning, check_text_fields

logger = logging.getLogger(__name__)

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
#: Seed of the document bootstrap when none is given (any fixed value; recorded in the signature).
DEFAULT_BOOTSTRAP_SEED = 12345


# --- pure formulas ---------------------------------------------------------------------------------
def custom_sigmoid(x: np.ndarray | float, offset: float, slope_exponent: float) -> np.ndarray:
    """S(x; A, B) = 1 / (1 + 10**A · exp(−10**B · x)) (egises ``custom_sigmoid``), overflow-free.

    Written as ``expit(10**B · x − A · ln 10)``, which is the same function without overflow for large |x|.
    """
    return expit(np.power(10.0, slope_exponent) * np.asarray(x, dtype=np.float64) - offset * math.log(10.0))


def _proportional_weights(pair: np.ndarray, to_doc: np.ndarray) -> np.ndarray:
    """Softmax-weighted pair distances X (or Y) of eq. (1), code semantics.

    ``w_jk = σ(j, k) / σ(j, D)`` (0 when ``σ(j, D) = 0``), softmax over the other users ``l ≠ j`` of the
    anchor's row, times ``σ(j, k)``. The diagonal of the result is meaningless and set to 0.
    """
    n = pair.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(to_doc[:, None] == 0.0, 0.0, pair / to_doc[:, None])
    off = ~np.eye(n, dtype=bool)
    w = np.where(off, w, -np.inf)  # the anchor itself is not in the softmax (code, not paper)
    w = w - w.max(axis=1, keepdims=True)  # stable softmax: same values, no overflow
    e = np.exp(w)
    soft = e / e.sum(axis=1, keepdims=True)
    return np.where(off, soft * pair, 0.0)


def degress_scores(
    ref_pair: np.ndarray, ref_doc: np.ndarray, pred_pair: np.ndarray, pred_doc: np.ndarray
) -> np.ndarray:
    """DEGRESS of each user's summary in one document (eq. 1, authors' code semantics).

    Args:
        ref_pair: ``(n, n)`` array, ``ref_pair[j, k] = σ(u_j, u_k)`` (diagonal ignored).
        ref_doc: ``(n,)`` array, ``σ(u_j, D)``.
        pred_pair: ``(n, n)`` array, ``σ(s_j, s_k)``.
        pred_doc: ``(n,)`` array, ``σ(s_j, D)``.

    Returns:
        ``(n,)`` array: ``DEGRESS(s_j) = mean over k ≠ j of (min(X_jk, Y_jk) + ε) / (max(X_jk, Y_jk) + ε)``.

    Raises:
        ValueError: with fewer than two users (no pair exists).
    """
    n = ref_pair.shape[0]
    if n < 2:
        raise ValueError(f"DEGRESS needs at least 2 users per document, got {n}")
    x = _proportional_weights(ref_pair, ref_doc)
    y = _proportional_weights(pred_pair, pred_doc)
    r = (np.minimum(x, y) + DEGRESS_EPSILON) / (np.maximum(x, y) + DEGRESS_EPSILON)
    np.fill_diagonal(r, 0.0)
    return r.sum(axis=1) / (n - 1)


@dataclass(frozen=True)
class Penalties:
    """ADP (per document), ACP, DGP and EDP (per summary) of one document (eq. 4–6)."""

    adp: float
    acp: np.ndarray
    dgp: np.ndarray
    edp: np.ndarray


def edp_scores(
    accuracy: np.ndarray, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA, gamma: float = DEFAULT_GAMMA
) -> Penalties:
    """Accuracy-drop and -inconsistency penalties of one document (eq. 4, 5, 6; code semantics).

    Args:
        accuracy: ``(n,)`` accuracy distances ``σ(s_j, u_j)`` of the document's users.
        alpha: EDP sigmoid offset (paper α).
        beta: EDP sigmoid slope exponent (paper β).
        gamma: ADP / ACP sigmoid offset (paper γ).

    Returns:
        The :class:`Penalties`; ``EDP = 1 − S(ADP + ACP; α, β) + 1e-7``.
    """
    d_min = float(accuracy.min())
    d_mean = float(accuracy.mean())
    with np.errstate(divide="ignore"):  # d_min = 1 + 1e-7 (unbounded σ) divides by 0: ±inf, then S = 0 or 1
        drop = np.float64(d_min) / ((1.0 - d_min) + PERSEVAL_EPSILON)
    adp = float(custom_sigmoid(drop, gamma, PENALTY_SLOPE_EXPONENT))
    acp = custom_sigmoid((accuracy - d_min) / ((d_mean - d_min) + PERSEVAL_EPSILON), gamma, PENALTY_SLOPE_EXPONENT)
    dgp = adp + acp
    edp = 1.0 - custom_sigmoid(dgp, alpha, beta) + PERSEVAL_EPSILON
    return Penalties(adp=adp, acp=acp, dgp=dgp, edp=edp)


def p_accuracy(
    accuracy_similarity: float, egises: float, alpha: float = DEFAULT_P_ACC_ALPHA, beta: float = DEFAULT_P_ACC_BETA
) -> float:
    """P-Accuracy (paper eq. 3): ``Score_Acc − α · logistic(β · EGISES)``.

    Formula only: the authors ship no code for P-Acc. ``f_sig`` is the logistic function, which matches the
    paper's worked value −0.37 for Score_Acc = 0, EGISES = 1 (α = 0.5, β = 1; Theorem 4).
    """
    return float(accuracy_similarity - alpha * expit(beta * egises))


# --- grouping ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DocumentGroup:
    """The items of one document: their input indices and the shared document text."""

    key: Hashable
    document: str
    indices: tuple[int, ...]


def group_documents(documents: Sequence[str], document_ids: Sequence[Hashable] | None = None) -> list[DocumentGroup]:
    """Group item indices by ``document_ids`` (if given) or by equal document text, in first-seen order.

    Raises:
        ValueError: if one id is given two different document texts.
    """
    keys: Sequence[Hashable] = documents if document_ids is None else document_ids
    order: dict[Hashable, list[int]] = {}
    for i, key in enumerate(keys):
        order.setdefault(key, []).append(i)
    groups = []
    for key, idx in order.items():
        text = documents[idx[0]]
        for i in idx[1:]:
            if documents[i] != text:
                raise ValueError(
                    f"document_ids[{i}] = {key!r} is also used at index {idx[0]} with a different document text; "
                    "one id must name one document"
                )
        groups.append(DocumentGroup(key=key, document=text, indices=tuple(idx)))
    return groups


# --- results -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DocumentScores:
    """Scores of one document with at least two references."""

    key: Hashable
    indices: tuple[int, ...]
    degress: np.ndarray
    accuracy: np.ndarray
    penalties: Penalties

    @property
    def perseval(self) -> np.ndarray:
        """PerSEval of each summary (eq. 6): DEGRESS × EDP."""
        return self.degress * self.penalties.edp


@dataclass(frozen=True)
class PersonalizationResult:
    """System-level scores, per-document details and how they were made.

    Attributes:
        degress: system DEGRESS (eq. 2), mean over documents of the mean over their users.
        egises: ``1 − degress`` (lower is better).
        perseval: system PerSEval (eq. 7), documents first, then users.
        edp: mean EDP, averaged like PerSEval.
        accuracy_distance: flat mean of ``σ(s_ij, u_ij)`` over every scored summary (lower is better).
        p_accuracy: P-Acc (eq. 3) from ``1 − accuracy_distance`` and ``egises``.
        num_items: number of input items.
        num_documents: documents with ≥ 2 references (the ones scored).
        num_excluded_documents: single-reference documents left out.
        documents: per-document scores, in first-seen order.
        intervals: ``{"degress": (lo, hi), "perseval": (lo, hi)}`` when a bootstrap was asked for.
        signature: distance signature and every hyper-parameter.
    """

    degress: float
    egises: float
    perseval: float
    edp: float
    accuracy_distance: float
    p_accuracy: float
    num_items: int
    num_documents: int
    num_excluded_documents: int
    documents: tuple[DocumentScores, ...]
    signature: str
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)

    def per_summary(self, name: str) -> list[float | None]:
        """Per-item values of ``"degress"``, ``"perseval"``, ``"edp"`` or ``"accuracy_distance"``.

        Aligned with the inputs; ``None`` for items of excluded single-reference documents.
        """
        getters = {
            "degress": lambda d: d.degress,
            "perseval": lambda d: d.perseval,
            "edp": lambda d: d.penalties.edp,
            "accuracy_distance": lambda d: d.accuracy,
        }
        if name not in getters:
            raise ValueError(f"name must be one of {sorted(getters)}, got {name!r}")
        out: list[float | None] = [None] * self.num_items
        for doc in self.documents:
            for i, v in zip(doc.indices, getters[name](doc), strict=True):
                out[i] = float(v)
        return out


# --- entry point -------------------------------------------------------------------------------------
def _check_number(name: str, value: object, minimum: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TypeError(f"{name} must be a finite number, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return float(value)


def resolve_distance(distance: str | Distance, distance_options: dict | None = None) -> Distance:
    """A :class:`Distance` from a registry name (with options) or an instance."""
    if isinstance(distance, Distance):
        if distance_options:
            raise ValueError("distance_options can only be used with a distance name, not a Distance instance")
        return distance
    if not isinstance(distance, str):
        raise TypeError(f"distance must be a name (str) or a Distance instance, got {type(distance).__name__}")
    return get_distance(distance, **(distance_options or {}))


def _off_diagonal(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the ordered pairs (j, k), j ≠ k, of an n × n matrix, row-major."""
    rows, cols = np.nonzero(~np.eye(n, dtype=bool))
    return rows, cols


def _bootstrap(per_doc: np.ndarray, n: int, seed: int) -> tuple[float, float]:
    """95 % percentile interval of the mean of ``per_doc`` under resampling of documents with replacement."""
    rng = np.random.default_rng(seed)
    means = per_doc[rng.integers(0, len(per_doc), size=(n, len(per_doc)))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(lo), float(hi)


class PersonalizationScorer:
    """Scores summarizers on one dataset, computing the model-independent distances once.

    The reference side (``σ(u_j, u_k)`` and ``σ(u_j, D)``) depends only on the dataset, so scoring N models
    on the same references costs one reference pass plus N model passes. Each pass makes one
    :meth:`Distance.pairwise` call, in which each unique pair is scored once.

    Args:
        references: the users' own summaries (non-empty).
        documents: source documents (non-empty); equal texts form one document unless ``document_ids``.
        document_ids: optional explicit grouping, one hashable id per item.
        distance: a name from :data:`persona_metrics.distances.DISTANCES` or a ``Distance`` instance.
        distance_options: keyword options for the named distance (e.g. ``{"model": "..."}``).

    Raises:
        TypeError: a non-string text or id (the message names the field and index).
        ValueError: mismatched lengths, an empty reference or document, an unknown distance, or no
            document with at least two references.
    """

    def __init__(
        self,
        references: Sequence[str],
        documents: Sequence[str],
        document_ids: Sequence[Hashable] | None = None,
        *,
        distance: str | Distance = DEFAULT_DISTANCE,
        distance_options: dict | None = None,
    ) -> None:
        self.num_items = check_text_fields(references=references, documents=documents)
        if document_ids is not None:
            if isinstance(document_ids, str) or not isinstance(document_ids, Sequence):
                raise TypeError(f"document_ids must be a list, got {type(document_ids).__name__}")
            if len(document_ids) != self.num_items:
                raise ValueError(f"document_ids has {len(document_ids)} items but references has {self.num_items}")
            for i, key in enumerate(document_ids):
                if not isinstance(key, Hashable) or key is None:
                    raise TypeError(f"document_ids[{i}] must be a hashable id (str or int), got {key!r}")
        self.distance = resolve_distance(distance, distance_options)
        self.references = list(references)
        groups = group_documents(documents, document_ids)
        self.groups = [g for g in groups if len(g.indices) >= 2]
        self.num_excluded_documents = len(groups) - len(self.groups)
        if not self.groups:
            raise ValueError(
                f"no document has at least 2 references (got {len(groups)} documents with one reference each); "
                "DEGRESS and PerSEval compare users of the same document"
            )
        if self.num_excluded_documents:
            shown = ", ".join(repr(g.key)[:40] for g in groups if len(g.indices) < 2)[:130]
            warnings.warn(
                f"{self.num_excluded_documents} of {len(groups)} documents have a single reference and are "
                f"excluded ({shown}); see num_excluded_documents",
                PersonaMetricsWarning,
                stacklevel=2,
            )
        self._ref_side = self._side(self.references)

    def _side(self, texts: Sequence[str]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per scored document: the ``(n, n)`` pair distances (zero diagonal) and the ``(n,)`` document distances."""
        pairs: list[tuple[str, str]] = []
        for g in self.groups:
            rows, cols = _off_diagonal(len(g.indices))
            pairs += [(texts[g.indices[j]], texts[g.indices[k]]) for j, k in zip(rows, cols, strict=True)]
            pairs += [(texts[i], g.document) for i in g.indices]
        values = self.distance.pairwise(pairs)
        out, pos = [], 0
        for g in self.groups:
            n = len(g.indices)
            rows, cols = _off_diagonal(n)
            pair = np.zeros((n, n))
            pair[rows, cols] = values[pos : pos + n * (n - 1)]
            pos += n * (n - 1)
            out.append((pair, values[pos : pos + n]))
            pos += n
        return out

    def score(
        self,
        predictions: Sequence[str],
        *,
        alpha: float = DEFAULT_ALPHA,
        beta: float = DEFAULT_BETA,
        gamma: float = DEFAULT_GAMMA,
        p_acc_alpha: float = DEFAULT_P_ACC_ALPHA,
        p_acc_beta: float = DEFAULT_P_ACC_BETA,
        bootstrap: int = 0,
        seed: int = DEFAULT_BOOTSTRAP_SEED,
    ) -> PersonalizationResult:
        """Score one summarizer's predictions (aligned with the references); see :func:`score_personalization`."""
        n_items = check_text_fields(allow_empty=("predictions",), predictions=predictions)
        if n_items != self.num_items:
            raise ValueError(f"predictions has {n_items} items but references has {self.num_items}; they must align")
        for name, value in (
            ("alpha", alpha),
            ("beta", beta),
            ("gamma", gamma),
            ("p_acc_alpha", p_acc_alpha),
            ("p_acc_beta", p_acc_beta),
        ):
            _check_number(name, value)
        if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 0 or bootstrap == 1:
            raise ValueError(f"bootstrap must be 0 (off) or an int >= 2 (resamples), got {bootstrap!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be an int, got {seed!r}")

        pred_side = self._side(predictions)
        # Accuracy distances: generated first, reference second (the authors' argument order).
        acc_values = self.distance.pairwise(
            [(predictions[i], self.references[i]) for g in self.groups for i in g.indices]
        )
        docs: list[DocumentScores] = []
        pos = 0
        for g, (ref_pair, ref_doc), (pred_pair, pred_doc) in zip(self.groups, self._ref_side, pred_side, strict=True):
            acc = acc_values[pos : pos + len(g.indices)]
            pos += len(g.indices)
            deg = degress_scores(ref_pair, ref_doc, pred_pair, pred_doc)
            docs.append(DocumentScores(g.key, g.indices, deg, acc, edp_scores(acc, alpha, beta, gamma)))

        doc_degress = np.array([d.degress.mean() for d in docs])
        doc_perseval = np.array([d.perseval.mean() for d in docs])
        degress = float(doc_degress.mean())
        egises = 1.0 - degress
        accuracy_distance = float(acc_values.mean())
        intervals: dict[str, tuple[float, float]] = {}
        if bootstrap:
            intervals["degress"] = _bootstrap(doc_degress, bootstrap, seed)
            intervals["perseval"] = _bootstrap(doc_perseval, bootstrap, seed)
        signature = (
            f"{self.distance.signature()}|alpha:{alpha:g}|beta:{beta:g}|gamma:{gamma:g}"
            f"|p_acc:{p_acc_alpha:g},{p_acc_beta:g}"
            + (f"|bootstrap:{bootstrap},seed:{seed}" if bootstrap else "")
            + f"|persona_metrics:{_version()}"
        )
        return PersonalizationResult(
            degress=degress,
            egises=egises,
            perseval=float(doc_perseval.mean()),
            edp=float(np.mean([d.penalties.edp.mean() for d in docs])),
            accuracy_distance=accuracy_distance,
            p_accuracy=p_accuracy(1.0 - accuracy_distance, egises, p_acc_alpha, p_acc_beta),
            num_items=n_items,
            num_documents=len(docs),
            num_excluded_documents=self.num_excluded_documents,
            documents=tuple(docs),
            signature=signature,
            intervals=intervals,
        )


def score_personalization(
    predictions: Sequence[str],
    references: Sequence[str],
    documents: Sequence[str],
    document_ids: Sequence[Hashable] | None = None,
    *,
    distance: str | Distance = DEFAULT_DISTANCE,
    distance_options: dict | None = None,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
    gamma: float = DEFAULT_GAMMA,
    p_acc_alpha: float = DEFAULT_P_ACC_ALPHA,
    p_acc_beta: float = DEFAULT_P_ACC_BETA,
    bootstrap: int = 0,
    seed: int = DEFAULT_BOOTSTRAP_SEED,
) -> PersonalizationResult:
    """DEGRESS, EGISES, P-Acc and PerSEval of one summarizer.

    Each item is one (user, document): ``predictions[i]`` is the model's summary generated for that user,
    ``references[i]`` the user's own summary, ``documents[i]`` the source text (items with equal document
    text, or equal ``document_ids`` when given, form one document). Documents with a single reference have
    no user pair: they are excluded with a :class:`PersonaMetricsWarning` and counted. To score several
    models on the same data, use :class:`PersonalizationScorer` (the reference side is computed once).

    Args:
        predictions: generated summaries; an empty string is valid (distance 1 to everything).
        references: the users' own summaries (non-empty).
        documents: source documents (non-empty).
        document_ids: optional explicit grouping, one hashable id per item.
        distance: a name from :data:`persona_metrics.distances.DISTANCES` or a ``Distance`` instance.
        distance_options: keyword options for the named distance (e.g. ``{"model": "..."}``).
        alpha: EDP offset α (eq. 6).
        beta: EDP slope β (eq. 6); paper 1.7, authors' code default 1.0.
        gamma: ADP / ACP offset γ (eq. 4–5).
        p_acc_alpha: P-Acc α (eq. 3).
        p_acc_beta: P-Acc β (eq. 3).
        bootstrap: number of document resamples for 95 % intervals (0 = none).
        seed: bootstrap seed.

    Returns:
        A :class:`PersonalizationResult`.

    Raises:
        TypeError: a non-string text (the message names the field and index) or a bad option type.
        ValueError: mismatched lengths, an empty reference or document, an unknown distance, or no
            document with at least two references.

    Example:
        >>> from persona_metrics.personalization import score_personalization
        >>> doc = "The city council approved a new budget for parks and public transport on Tuesday."
        >>> refs = ["Council funds more parks", "Transport budget approved by council"]
        >>> res = score_personalization(refs, refs, [doc, doc])  # an oracle: each user gets their own summary
        >>> round(res.degress, 6), round(res.perseval, 6)
        (1.0, 0.998991)
    """
    check_text_fields(allow_empty=("predictions",), predictions=predictions, references=references, documents=documents)
    scorer = PersonalizationScorer(
        references, documents, document_ids, distance=distance, distance_options=distance_options
    )
    return scorer.score(
        predictions,
        alpha=alpha,
        beta=beta,
        gamma=gamma,
        p_acc_alpha=p_acc_alpha,
        p_acc_beta=p_acc_beta,
        bootstrap=bootstrap,
        seed=seed,
    )


def _version() -> str:
    from persona_metrics import __version__

    return __version__
