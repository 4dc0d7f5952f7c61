"""Scoring summarizers with DEGRESS, EGISES, P-Accuracy and PerSEval: grouping, distances, results.

:func:`score_personalization` (and :class:`PersonalizationScorer` for several models on one dataset)
validates the inputs (as plain lists), groups items into documents, asks a
:class:`~persona_metrics.distances.Distance` for every distance of a pass in **one** call on integer pair indices
(so each unique pair is computed once), applies the pure formulas of
:mod:`persona_metrics.personalization.formulas` to stacks of documents with the same number of users (the same
floats as one document at a time) and reduces them with its :func:`aggregate` (eqs. 2 and 7). The result object
gives every view a caller needs (system numbers, per summary, per document, a plain dict), so no app or script
averages scores itself. Speed and exactness: ``docs/perseval.md`` §11.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from persona_metrics.distances import DEFAULT_DISTANCE, Distance
from persona_metrics.distances.base import TextPairs
from persona_metrics.personalization.formulas import (
    Penalties,
    aggregate,
    bootstrap_interval,
    degress_from_weighted,
    document_means,
    edp_scores,
    weighted_distances,
)
from persona_metrics.personalization.params import PersevalParams, resolve_distance
from persona_metrics.signature import Signature
from persona_metrics.validation import check_ids, check_texts, not_one_of
from persona_metrics.warning import warn

logger = logging.getLogger(__name__)


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
#: Per-summary values a result can give, and where each lives on a :class:`DocumentScores`.
PER_SUMMARY_NAMES: tuple[str, ...] = ("degress", "perseval", "edp", "accuracy_distance")
#: System numbers of a :class:`PersonalizationResult` (the keys of :meth:`PersonalizationResult.as_dict`).
SYSTEM_NAMES: tuple[str, ...] = ("perseval", "degress", "egises", "edp", "accuracy_distance", "p_accuracy")


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

    def values(self, name: str) -> np.ndarray:
        """Per-summary ``degress``, ``perseval``, ``edp`` or ``accuracy_distance`` of this document."""
        return {
            "degress": lambda: self.degress,
            "perseval": lambda: self.perseval,
            "edp": lambda: self.penalties.edp,
            "accuracy_distance": lambda: self.accuracy,
        }[_check_name(name)]()


def _check_name(name: str) -> str:
    if name not in PER_SUMMARY_NAMES:
        raise ValueError(not_one_of("name", name, sorted(PER_SUMMARY_NAMES)))
    return name


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
        accuracy_similarity: ``Score_Acc`` of eq. 3, ``1 − accuracy_distance``.
        num_items: number of input items.
        num_documents: documents with ≥ 2 references (the ones scored).
        num_excluded_documents: single-reference documents left out.
        documents: per-document scores, in first-seen order.
        signature: distance signature, every hyper-parameter and the persona_metrics version.
        intervals: ``{"degress": (lo, hi), "perseval": (lo, hi)}`` when a bootstrap was asked for.
        params: the hyper-parameters the result was made with (what :func:`merge_personalization` reduces with).
    """

    degress: float
    egises: float
    perseval: float
    edp: float
    accuracy_distance: float
    p_accuracy: float
    accuracy_similarity: float
    num_items: int
    num_documents: int
    num_excluded_documents: int
    documents: tuple[DocumentScores, ...]
    signature: str
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    params: PersevalParams | None = None

    def per_summary(self, name: str) -> list[float | None]:
        """Per-item values of ``"degress"``, ``"perseval"``, ``"edp"`` or ``"accuracy_distance"``.

        Aligned with the inputs; ``None`` for items of excluded single-reference documents.
        """
        _check_name(name)
        out: list[float | None] = [None] * self.num_items
        for doc in self.documents:
            for i, v in zip(doc.indices, doc.values(name), strict=True):
                out[i] = float(v)
        return out

    def per_document(self, name: str) -> dict[Hashable, float]:
        """``{document key: mean over its users}`` of a per-summary value (the inner mean of eqs. 2 and 7).

        Only scored documents (≥ 2 references) appear, in first-seen order.
        """
        _check_name(name)
        means = document_means([doc.values(name) for doc in self.documents])
        return {doc.key: float(m) for doc, m in zip(self.documents, means, strict=True)}

    def as_dict(
        self,
        keys: Sequence[str] = SYSTEM_NAMES,
        per_summary: Sequence[str] = (),
        per_document: Sequence[str] = (),
        signature: bool = False,
    ) -> dict[str, Any]:
        """Plain numbers for evaluate, the CLI and the apps.

        Args:
            keys: system numbers to include (from :data:`SYSTEM_NAMES`); their bootstrap intervals, when
                computed, are added as ``<key>_ci_low`` / ``<key>_ci_high``.
            per_summary: per-summary lists to include under ``"per_summary"`` (aligned with the inputs).
            per_document: per-document means to include under ``"per_document"``: ``{"document": [keys],
                name: [values]}`` over the scored documents in first-seen order (the key is the document id,
                or the document text when no ids were given).
            signature: include the signature string.

        Returns:
            ``keys`` plus ``num_documents`` and ``num_excluded_documents`` (and what was asked for).
        """
        unknown = [k for k in keys if k not in SYSTEM_NAMES]
        if unknown:
            raise ValueError(f"keys {unknown} are not system scores; known: {list(SYSTEM_NAMES)}")
        out: dict[str, Any] = {k: getattr(self, k) for k in keys}
        out["num_documents"] = self.num_documents
        out["num_excluded_documents"] = self.num_excluded_documents
        for name, (lo, hi) in self.intervals.items():
            if name in keys:
                out[f"{name}_ci_low"], out[f"{name}_ci_high"] = lo, hi
        if per_summary:
            out["per_summary"] = {k: self.per_summary(k) for k in per_summary}
        if per_document:
            out["per_document"] = {"document": [doc.key for doc in self.documents]}
            out["per_document"].update({k: list(self.per_document(k).values()) for k in per_document})
        if signature:
            out["signature"] = self.signature
        return out


# --- entry point -------------------------------------------------------------------------------------
def _off_diagonal(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the ordered pairs (j, k), j ≠ k, of an n × n matrix, row-major."""
    rows, cols = np.nonzero(~np.eye(n, dtype=bool))
    return rows, cols


@dataclass(frozen=True)
class _SizeClass:
    """The scored documents with ``n`` users, stacked so the formulas run once per class, not once per document.

    Attributes:
        n: users per document.
        docs: ``(m,)`` positions of the documents in the scorer's ``groups``.
        items: ``(m, n)`` item indices, one row per document in its users' order.
        pair_at: ``(m, n·(n − 1))`` positions of the documents' user pairs in a pass (row-major off-diagonal).
        doc_at: ``(m, n)`` positions of the users' σ to the document in a pass.
        item_at: ``(m, n)`` positions of the users' accuracy σ in a model pass (after the side pairs).
    """

    n: int
    docs: np.ndarray
    items: np.ndarray
    pair_at: np.ndarray
    doc_at: np.ndarray
    item_at: np.ndarray


class _Layout:
    """Where every σ of a pass sits, built once per scorer from the grouping (integer arrays, no text tuples).

    A pass over texts ``T`` (the references, or a model's predictions) asks, document by document in first-seen
    order, for its ordered user pairs ``(T[j], T[k])`` (row-major off-diagonal) and then each ``(T[j], D)``; a
    model pass then adds each ``(prediction_i, reference_i)``, document by document. The formulas read these values
    back per size class (:meth:`split`).
    """

    def __init__(self, groups: Sequence[DocumentGroup]) -> None:
        sizes = np.array([len(g.indices) for g in groups], dtype=np.int64)
        side_at = np.cumsum(sizes * sizes) - sizes * sizes  # each document's n(n − 1) pairs, then its n to D
        item_at = np.cumsum(sizes) - sizes
        self.documents = [g.document for g in groups]
        self.items = np.fromiter((i for g in groups for i in g.indices), dtype=np.int64, count=int(sizes.sum()))
        side = int((sizes * sizes).sum())
        self.first, self.second = np.zeros(side, dtype=np.int64), np.zeros(side, dtype=np.int64)
        self.to_doc = np.zeros(side, dtype=bool)  # whether the second text of a pair is the document
        self.classes: list[_SizeClass] = []
        for n in np.unique(sizes).tolist():
            docs = np.flatnonzero(sizes == n)
            items = self.items[item_at[docs][:, None] + np.arange(n)]
            rows, cols = _off_diagonal(n)
            c = _SizeClass(
                n,
                docs,
                items,
                pair_at=side_at[docs][:, None] + np.arange(n * (n - 1)),
                doc_at=side_at[docs][:, None] + n * (n - 1) + np.arange(n),
                item_at=item_at[docs][:, None] + np.arange(n),
            )
            self.first[c.pair_at], self.second[c.pair_at] = items[:, rows], items[:, cols]
            self.first[c.doc_at], self.second[c.doc_at], self.to_doc[c.doc_at] = items, docs[:, None], True
            self.classes.append(c)

    def side_pairs(self, texts: list[str]) -> TextPairs:
        """The pairs of a pass over ``texts``: per document, its user pairs, then each text against the document."""
        second = np.where(self.to_doc, len(texts) + self.second, self.second)
        return TextPairs(texts + self.documents, self.first, second)

    def model_pairs(self, predictions: list[str], references: list[str]) -> TextPairs:
        """A model pass: :meth:`side_pairs` of the predictions, then each prediction against its reference."""
        n = len(predictions)
        return TextPairs(
            predictions + references + self.documents,
            np.concatenate((self.first, self.items)),
            np.concatenate((np.where(self.to_doc, 2 * n + self.second, self.second), n + self.items)),
        )

    def split(self, values: np.ndarray) -> Iterator[tuple[_SizeClass, np.ndarray, np.ndarray, np.ndarray]]:
        """Per class: ``(class, (m, n, n) pair σ with a zero diagonal, (m, n) σ to the document, (m, n) accuracy σ)``.

        The accuracy σ are those of a model pass (an empty ``(0, n)`` array for a reference pass).
        """
        side, accuracy = values[: len(self.first)], values[len(self.first) :]
        for c in self.classes:
            m, n = c.items.shape
            rows, cols = _off_diagonal(n)
            pair = np.zeros((m, n, n))
            pair[:, rows, cols] = side[c.pair_at]
            yield c, pair, side[c.doc_at], accuracy[c.item_at] if accuracy.size else np.zeros((0, n))


def excluded_note(num_documents: int, excluded: Sequence[Hashable]) -> str:
    """The warning about single-reference documents: their count of ``num_documents`` and the first keys.

    ``excluded`` holds the excluded documents' keys in first-seen order (the CLI's merge of sharded states
    rebuilds the unsharded note with it).
    """
    shown = ", ".join(repr(key)[:40] for key in excluded)[:130]
    return (
        f"{len(excluded)} of {num_documents} documents have a single reference and are excluded ({shown}); "
        "see num_excluded_documents"
    )


def result_signature(distance: Distance, params: PersevalParams) -> str:
    """A result's signature: the distance's, then the hyper-parameters' (also for a shard with nothing to score)."""
    return str(Signature.of(distance.signature()) + params.signature())


def _document_ids(document_ids: Sequence[Hashable] | None, num_items: int) -> list[Hashable] | None:
    """The ids as a plain list (:func:`~persona_metrics.validation.check_ids`), aligned with the items, or None."""
    ids = check_ids(document_ids)
    if ids is not None and len(ids) != num_items:
        raise ValueError(f"document_ids has {len(ids)} items but references has {num_items}")
    return ids


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
        texts = check_texts(references=references, documents=documents)  # plain lists: the hot paths index them
        self.references = texts["references"]
        self.num_items = len(self.references)
        ids = _document_ids(document_ids, self.num_items)
        self.distance = resolve_distance(distance, distance_options)
        groups = group_documents(texts["documents"], ids)
        self.groups = [g for g in groups if len(g.indices) >= 2]
        self.num_excluded_documents = len(groups) - len(self.groups)
        if not self.groups:
            raise ValueError(
                f"no document has at least 2 references (got {len(groups)} documents with one reference each); "
                "DEGRESS and PerSEval compare users of the same document"
            )
        if self.num_excluded_documents:
            warn(excluded_note(len(groups), [g.key for g in groups if len(g.indices) < 2]))
        self._layout = _Layout(self.groups)
        # The reference side, once: X of eq. (1) per size class (σ(u_j, u_k) and σ(u_j, D) in one call).
        ref_values = self.distance.pairwise(self._layout.side_pairs(self.references))
        self._ref_weighted = [weighted_distances(pair, to_doc) for _, pair, to_doc, _ in self._layout.split(ref_values)]

    def score(
        self,
        predictions: Sequence[str],
        *,
        params: PersevalParams | None = None,
        **options: Any,
    ) -> PersonalizationResult:
        """Score one summarizer's predictions (aligned with the references); see :func:`score_personalization`.

        Args:
            predictions: generated summaries; an empty string is valid (distance 1 to everything).
            params: the hyper-parameters; or give them one by one as keyword ``options`` (the fields of
                :class:`PersevalParams`), not both.
            **options: ``alpha``, ``beta``, ``gamma``, ``p_acc_alpha``, ``p_acc_beta``, ``bootstrap``, ``seed``.
        """
        params = PersevalParams.from_call(params, options)
        predictions = check_texts(allow_empty=("predictions",), predictions=predictions)["predictions"]
        n_items = len(predictions)
        if n_items != self.num_items:
            raise ValueError(f"predictions has {n_items} items but references has {self.num_items}; they must align")
        docs = self._documents(predictions, params)
        return system_result(
            docs,
            num_items=n_items,
            num_excluded_documents=self.num_excluded_documents,
            signature=result_signature(self.distance, params),
            params=params,
        )

    def _documents(self, predictions: list[str], params: PersevalParams) -> list[DocumentScores]:
        """Per scored document: DEGRESS (eq. 1), accuracy distances and penalties (eqs. 4–6).

        One distance call for the model side and the accuracy distances (generated first, reference second: the
        authors' argument order); the formulas then run once per size class on ``(m, n, n)`` stacks, which gives
        every document the same floats as computing it alone.
        """
        values = self.distance.pairwise(self._layout.model_pairs(predictions, self.references))
        docs: dict[int, DocumentScores] = {}  # by position in self.groups, filled class by class
        for (c, pair, to_doc, acc), x in zip(self._layout.split(values), self._ref_weighted, strict=True):
            deg = degress_from_weighted(x, weighted_distances(pair, to_doc))
            penalties = edp_scores(acc, params.alpha, params.beta, params.gamma)
            for position, deg_j, acc_j, pen_j in zip(c.docs.tolist(), deg, acc, penalties.rows(), strict=True):
                g = self.groups[position]
                docs[position] = DocumentScores(g.key, g.indices, deg_j, acc_j, pen_j)
        return [docs[position] for position in range(len(self.groups))]


def system_result(
    docs: Sequence[DocumentScores],
    *,
    num_items: int,
    num_excluded_documents: int,
    signature: str,
    params: PersevalParams,
) -> PersonalizationResult:
    """The result of scored documents: system numbers (eqs. 2, 3, 7) and bootstrap intervals, in ``docs``' order.

    The one place where a result's system numbers are made, for a scoring call and for a merge alike.
    """
    system = aggregate(
        [d.degress for d in docs],
        [d.penalties.edp for d in docs],
        [d.accuracy for d in docs],
        params.p_acc_alpha,
        params.p_acc_beta,
    )
    intervals: dict[str, tuple[float, float]] = {}
    if params.bootstrap:
        for name in ("degress", "perseval"):
            per_doc = document_means([d.values(name) for d in docs])
            intervals[name] = bootstrap_interval(per_doc, params.bootstrap, params.seed)
    return PersonalizationResult(
        degress=system.degress,
        egises=system.egises,
        perseval=system.perseval,
        edp=system.edp,
        accuracy_distance=system.accuracy_distance,
        p_accuracy=system.p_accuracy,
        accuracy_similarity=system.accuracy_similarity,
        num_items=num_items,
        num_documents=len(docs),
        num_excluded_documents=num_excluded_documents,
        documents=tuple(docs),
        signature=signature,
        intervals=intervals,
        params=params,
    )


def score_personalization(
    predictions: Sequence[str],
    references: Sequence[str],
    documents: Sequence[str],
    document_ids: Sequence[Hashable] | None = None,
    *,
    distance: str | Distance = DEFAULT_DISTANCE,
    distance_options: dict | None = None,
    params: PersevalParams | None = None,
    **options: Any,
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
        params: the hyper-parameters as a :class:`PersevalParams`, or:
        **options: the same one by one: ``alpha`` (EDP offset α, eq. 6, default 3), ``beta`` (EDP slope β,
            eq. 6; paper 1.7, authors' code default 1.0), ``gamma`` (ADP / ACP offset γ, eqs. 4–5, default 4),
            ``p_acc_alpha`` / ``p_acc_beta`` (P-Acc α, β, eq. 3), ``bootstrap`` (document resamples for 95 %
            intervals, 0 = none), ``seed`` (bootstrap seed).

    Returns:
        A :class:`PersonalizationResult`.

    Raises:
        TypeError: a non-string text (the message names the field and index) or a bad option type.
        ValueError: mismatched lengths, an empty reference or document, an unknown distance, a
            hyper-parameter outside its range (named), or no document with at least two references.

    Example:
        >>> from persona_metrics.personalization import score_personalization
        >>> doc = "The city council approved a new budget for parks and public transport on Tuesday."
        >>> refs = ["Council funds more parks", "Transport budget approved by council"]
        >>> res = score_personalization(refs, refs, [doc, doc])  # an oracle: each user gets their own summary
        >>> round(res.degress, 6), round(res.perseval, 6)
        (1.0, 0.998991)
    """
    params = PersevalParams.from_call(params, options)  # fail on a bad option before any distance work
    texts = check_texts(
        allow_empty=("predictions",), predictions=predictions, references=references, documents=documents
    )
    scorer = PersonalizationScorer(
        texts["references"], texts["documents"], document_ids, distance=distance, distance_options=distance_options
    )
    return scorer.score(texts["predictions"], params=params)
