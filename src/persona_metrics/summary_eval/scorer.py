"""SummaryEval of summaries against their sources: validation, one encoder call per scoring call, a judge call per pair.

>>> from persona_metrics.summary_eval import score_summary_eval
>>> source = "Quarry Steel raised its dividend by ten percent."
>>> result = score_summary_eval(["Quarry Steel increased its dividend by ten percent."], [source])
>>> round(result.means()["completeness"], 3), round(result.means()["coherence"], 3)
(1.0, 0.396)
>>> result.as_dict()["accuracy"] is None  # no judge configured: no accuracy, no overall
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from persona_metrics.extras import require
from persona_metrics.results import ItemResult
from persona_metrics.signature import Signature, package_version
from persona_metrics.summary_eval import components as C
from persona_metrics.summary_eval import consistency as K
from persona_metrics.summary_eval import formulas as F
from persona_metrics.summary_eval.calibration import warn_if_unchecked
from persona_metrics.summary_eval.judge import Judge, OnVerdict, Verdict
from persona_metrics.summary_eval.params import SummaryEvalParams
from persona_metrics.text_services import SentenceTransformerEncoder
from persona_metrics.validation import check_texts

T = TypeVar("T")

#: The signature's ``coherence:`` value of each coherence method.
COHERENCE_SIGNATURES = {"original": "rouge-enhanced", "robust": "robust-v3"}
#: What the result says when no judge was configured.
NO_JUDGE_NOTE = (
    "accuracy and overall need an LLM judge (pass judge= / model=; docs/summary_eval.md §5); "
    "completeness and coherence are computed"
)
#: What the result says when no judge answer had a valid score (``{invalid}`` answers).
ALL_INVALID_NOTE = (
    "no judge answer had a valid score (num_invalid = {invalid}): accuracy and overall are None, not 0; the raw "
    "answers are in per_item raw_response (docs/summary_eval.md §5)"
)
#: What the result says when some judge answers were invalid.
SOME_INVALID_NOTE = (
    "accuracy and overall are means over the {valid} items with a valid judge answer; the {invalid} invalid answers "
    "(num_invalid) are left out, their per-item accuracy and overall are None"
)
#: The signature's ``completeness:`` value of each completeness method.
COMPLETENESS_SIGNATURES = {
    "original": "tfidf-top10-cos0.4-r0.7-i0.3",
    "recall_precision": "tfidf-top10-graded-recall-sentence-precision-f1.5-v2",
}
#: The signature's ``consistency:`` value: the offline fact check of ``summary_eval/consistency.py``.
CONSISTENCY_SIGNATURE = "surface-facts-v2"


@dataclass(frozen=True, eq=False)
class SummaryEvalResult(ItemResult):
    """Per-item SummaryEval scores and how they were made.

    Attributes:
        completeness: per item, topic coverage in [0, 1].
        coherence: per item, the ROUGE-enhanced coherence in [0, 1].
        accuracy: per item, the judge's score mapped to [0, 1] by its rubric (score / 3 for ``accuracy``; NaN
            where the judge's answer was invalid: :meth:`means`, :meth:`per_item` and :meth:`as_dict` leave such
            items out or show None), or None without a judge.
        overall: per item, the weighted sum of the three (NaN where accuracy is), or None without a judge.
        verdicts: per item, the judge's :class:`~persona_metrics.summary_eval.judge.Verdict` (empty without one).
        components: per item, the coherence components (nine; thirteen with ``coherence_method="robust"``).
        topics: per item, the completeness detail (topics, cosines, covered; recall and precision with
            ``completeness_method="recall_precision"``).
        consistency: per item, the share of the summary's checkable facts (figures, dates, names) that the source
            supports, in [0, 1]; 1.0 without a checkable fact (``docs/summary_eval.md`` §2.2). Never part of overall.
        consistency_detail: per item, the :class:`~persona_metrics.summary_eval.consistency.Consistency` (the facts
            checked and the unsupported ones, as written).
        weights: the overall weights.
        config: the signature parts.
        coherence_method: ``"original"`` or ``"robust"``.
        completeness_method: ``"original"`` or ``"recall_precision"``.
    """

    completeness: np.ndarray
    coherence: np.ndarray
    accuracy: np.ndarray | None
    overall: np.ndarray | None
    verdicts: tuple[Verdict, ...]
    components: tuple[dict[str, float], ...]
    topics: tuple[C.Completeness, ...]
    consistency: np.ndarray
    consistency_detail: tuple[K.Consistency, ...]
    weights: dict[str, float]
    config: Signature
    coherence_method: str = "original"
    completeness_method: str = "original"

    def __len__(self) -> int:
        return len(self.completeness)

    @property
    def num_invalid(self) -> int:
        """Judge answers that broke the contract: no score, left out of the accuracy and overall means."""
        return sum(not v.valid for v in self.verdicts)

    @property
    def note(self) -> str | None:
        """Why accuracy and overall are missing or cover fewer items (no judge, invalid answers); None otherwise."""
        if not self.verdicts:
            return NO_JUDGE_NOTE
        invalid = self.num_invalid
        if invalid == len(self):
            return ALL_INVALID_NOTE.format(invalid=invalid)
        if invalid:
            return SOME_INVALID_NOTE.format(valid=len(self) - invalid, invalid=invalid)
        return None

    def means(self) -> dict[str, float | None]:
        """``accuracy``, ``completeness``, ``coherence``, ``overall``, ``consistency``: means over the items.

        Accuracy and overall are means over the items with a valid judge answer; None without a judge or
        without any valid answer. Consistency is its own field, in no other.
        """
        return {
            "accuracy": _valid_mean(self.accuracy),
            "completeness": F.aggregate(self.completeness),
            "coherence": F.aggregate(self.coherence),
            "overall": _valid_mean(self.overall),
            "consistency": F.aggregate(self.consistency),
        }

    def per_item(self) -> dict[str, list[Any]]:
        """One list per score (``accuracy``/``overall`` None per item without a judge or with an invalid answer).

        Always ``consistency``, ``unsupported_facts`` (per item, the facts the source does not support, as
        written) and ``checked_facts`` (per item, how many distinct facts were checked). With
        ``completeness_method="recall_precision"`` also ``completeness_recall`` and ``completeness_precision``.
        With a judge also ``rationale``, ``judge_status`` (``json``, ``invalid``, ``empty-input``) and
        ``raw_response``.
        """
        out: dict[str, list[Any]] = {
            "accuracy": _items(self.accuracy, len(self)),
            "completeness": self.completeness.tolist(),
            "coherence": self.coherence.tolist(),
            "overall": _items(self.overall, len(self)),
            "consistency": self.consistency.tolist(),
            "unsupported_facts": [list(d.unsupported) for d in self.consistency_detail],
            "checked_facts": [d.checked for d in self.consistency_detail],
        }
        if self.completeness_method == "recall_precision":
            out["completeness_recall"] = [d.recall for d in self.topics]
            out["completeness_precision"] = [d.precision for d in self.topics]
        if self.verdicts:
            out["rationale"] = [v.rationale for v in self.verdicts]
            out["judge_status"] = [v.status for v in self.verdicts]
            out["raw_response"] = [v.raw for v in self.verdicts]
        return out

    def as_dict(self, per_item: bool = False, signature: bool = False, components: bool = False) -> dict[str, Any]:
        """Means, ``num_invalid`` (with a judge), :attr:`note` when set; ``per_item``, ``signature``, ``components``."""
        out: dict[str, Any] = dict(self.means())
        if self.verdicts:
            out["num_invalid"] = self.num_invalid
        if self.note is not None:
            out["note"] = self.note
        if per_item:
            out["per_item"] = self.per_item()
        if components:
            names = C.component_names(self.coherence_method)
            out["components"] = {name: [c[name] for c in self.components] for name in names}
        if signature:
            out["signature"] = self.signature
        return out


class SummaryEvalScorer:
    """SummaryEval with one configuration (the MiniLM encoder is loaded once per process and shared).

    Args:
        judge: a :class:`~persona_metrics.summary_eval.judge.Judge` for accuracy; None: completeness and
            coherence only.
        params: the options as one :class:`~persona_metrics.summary_eval.params.SummaryEvalParams`, or:
        device: torch device of the encoder.
        **options: the same one by one: ``weights`` (overall weights ``{"accuracy", "completeness",
            "coherence"}``; missing keys keep 0.6/0.25/0.15), ``encoder`` (a sentence-transformers model folder;
            None for the packaged all-MiniLM-L6-v2, the original's), ``coherence_method`` (``"original"`` or
            ``"robust"``: ``docs/summary_eval.md`` §3.1), ``completeness_method`` (``"original"`` or
            ``"recall_precision"``: §2.1).

    Raises:
        TypeError, ValueError: a bad option (named).
    """

    def __init__(
        self,
        judge: Judge | None = None,
        *,
        params: SummaryEvalParams | None = None,
        device: str | None = None,
        **options: Any,
    ) -> None:
        if judge is not None and not isinstance(judge, Judge):
            raise TypeError(f"judge must be a persona_metrics.summary_eval.Judge, got {type(judge).__name__}")
        self.params = SummaryEvalParams.from_call(params, options)
        if device is not None and not isinstance(device, str):
            raise TypeError(f"device must be a torch device name (str) or None, got {type(device).__name__}")
        require("SummaryEval's completeness and coherence", "torch", "sentence_transformers", "sklearn")
        self.judge = judge
        self.weights = self.params.overall_weights
        self.encoder = SentenceTransformerEncoder(self.params.encoder, device=device, batch_size=32)

    @property
    def config(self) -> Signature:
        """``summary_eval|completeness:…|coherence:…|sim:…|weights:…|judge:…|…``."""
        w = self.weights
        judge = self.judge.signature() if self.judge is not None else Signature.of(judge="none")
        return (
            Signature.of(
                "summary_eval",
                completeness=COMPLETENESS_SIGNATURES[self.params.completeness_method],
                coherence=COHERENCE_SIGNATURES[self.params.coherence_method],
                consistency=CONSISTENCY_SIGNATURE,
            )
            + self.encoder.signature()
            + Signature.of(weights=f"{w['accuracy']:g}/{w['completeness']:g}/{w['coherence']:g}")
            + judge
            + Signature.of(**{"rouge-score": package_version("rouge-score"), "textstat": package_version("textstat")})
        )

    def _embed(self, texts: list[str]) -> np.ndarray:
        return self.encoder.encode_each(texts)

    def _embeddings(
        self, predictions: Sequence[str], sources: Sequence[str], topics: dict[str, list[tuple[str, float]]]
    ) -> C.EmbeddingCache:
        """Every text the call embeds, each unique one encoded once in one encoder call (``docs/summary_eval.md`` §11).

        The summaries (the original completeness), the topics of each source, the sentences coherence reads, with
        the robust method each source's sentences, and with ``completeness_method="recall_precision"`` the
        sentences of each summary and each source.
        """
        method = self.params.coherence_method
        by_sentence = self.params.completeness_method == "recall_precision"
        texts = [] if by_sentence else list(dict.fromkeys(predictions))
        for prediction in dict.fromkeys(predictions):
            texts += C.coherence_sentences(prediction, method)
            if by_sentence:
                texts += C.recall_precision_sentences(prediction)
        for source in dict.fromkeys(sources):
            texts += [topic for topic, _ in topics[source]]
            if method == "robust":
                texts += C.sentences_of(source)
            if by_sentence:
                texts += C.recall_precision_sentences(source)
        return C.EmbeddingCache(self._embed, texts)

    def _completeness(
        self,
        predictions: Sequence[str],
        sources: Sequence[str],
        topics: dict[str, list[tuple[str, float]]],
        embed: C.Embed,
    ) -> tuple[C.Completeness, ...]:
        """Per item, the completeness detail by the configured method (each distinct pair scored once)."""
        if self.params.completeness_method == "original":
            return tuple(C.completeness(p, topics[s], embed) for p, s in zip(predictions, sources, strict=True))
        return per_pair(lambda p, s: C.recall_precision_completeness(p, s, topics[s], embed), predictions, sources)

    def _coherence(
        self, predictions: Sequence[str], sources: Sequence[str], embed: C.Embed
    ) -> list[tuple[float, dict[str, float]]]:
        """Per item, ``(coherence, components)``: each summary scored once (with its source for the robust method)."""
        if self.params.coherence_method == "original":
            cache = {text: C.coherence(text, embed) for text in dict.fromkeys(predictions)}
            return [cache[p] for p in predictions]
        placed = {source: C.sentence_embeddings(source, embed) for source in dict.fromkeys(sources)}
        return list(per_pair(lambda p, s: C.robust_coherence(p, placed[s], embed), predictions, sources))

    def score(
        self, predictions: Sequence[str], sources: Sequence[str], on_verdict: OnVerdict | None = None
    ) -> SummaryEvalResult:
        """Score each summary against its source.

        Args:
            predictions: the summaries (an empty one scores completeness as the original, coherence 0, accuracy 0).
            sources: the source texts, aligned with the predictions (empty allowed: accuracy 0 without a call).
            on_verdict: with a judge, called with (position, verdict) as each item is judged (to save finished
                work before the rest is done; see :meth:`~persona_metrics.summary_eval.judge.Judge.judge_many`).

        Raises:
            TypeError, ValueError: bad inputs (field and index named).
            JudgeError: the judge could not be called, or sent a malformed response.
        """
        texts = check_texts(allow_empty=("predictions", "sources"), predictions=predictions, sources=sources)
        predictions, sources = texts["predictions"], texts["sources"]
        topic_cache = {source: C.extract_topics(source) for source in dict.fromkeys(sources)}
        embed = self._embeddings(predictions, sources, topic_cache)
        scored = self._coherence(predictions, sources, embed)
        detail = self._completeness(predictions, sources, topic_cache, embed)
        completeness = np.array([d.score for d in detail], dtype=np.float64)
        facts = _consistency(predictions, sources)
        coherence = np.array([value for value, _ in scored], dtype=np.float64)
        parts = tuple(components for _, components in scored)
        verdicts: tuple[Verdict, ...] = ()
        accuracy = overall = None
        if self.judge is not None:
            warn_if_unchecked(self.judge)  # once per judge and process: no passing judge-check verdict cached
            verdicts = tuple(self.judge.judge_many(list(predictions), list(sources), on_verdict=on_verdict))
            accuracy = np.array([np.nan if v.accuracy is None else v.accuracy for v in verdicts], dtype=np.float64)
            overall = np.array(
                [
                    np.nan if np.isnan(a) else F.overall_score(a, c, h, self.weights)
                    for a, c, h in zip(accuracy, completeness, coherence, strict=True)
                ],
                dtype=np.float64,
            )
        return SummaryEvalResult(
            completeness, coherence, accuracy, overall, verdicts, parts, detail,
            consistency=np.array([d.score for d in facts], dtype=np.float64), consistency_detail=facts,
            weights=self.weights, config=self.config, coherence_method=self.params.coherence_method,
            completeness_method=self.params.completeness_method,
        )  # fmt: skip


def _consistency(predictions: Sequence[str], sources: Sequence[str]) -> tuple[K.Consistency, ...]:
    """Per item, the offline fact check (``docs/summary_eval.md`` §2.2): each source read once, each pair once."""
    evidence = {source: K.Evidence.of(source) for source in dict.fromkeys(sources)}
    return per_pair(lambda p, s: K.check(p, evidence[s]), predictions, sources)


def per_pair(score: Callable[[str, str], T], predictions: Sequence[str], sources: Sequence[str]) -> tuple[T, ...]:
    """``score(prediction, source)`` per item, each distinct pair scored once."""
    pairs = list(zip(predictions, sources, strict=True))
    scored = {pair: score(*pair) for pair in dict.fromkeys(pairs)}
    return tuple(scored[pair] for pair in pairs)


def _valid_mean(values: np.ndarray | None) -> float | None:
    """The mean over the items with a value (not NaN: an invalid judge answer); None when there is none."""
    if values is None:
        return None
    valid = values[~np.isnan(values)]
    return F.aggregate(valid) if len(valid) else None


def _items(values: np.ndarray | None, count: int) -> list[float | None]:
    """Per-item values with None for a missing one (no judge, or an invalid answer)."""
    if values is None:
        return [None] * count
    return [None if np.isnan(v) else float(v) for v in values]


def score_summary_eval(
    predictions: Sequence[str],
    sources: Sequence[str],
    *,
    judge: Judge | None = None,
    params: SummaryEvalParams | None = None,
    **options: Any,
) -> SummaryEvalResult:
    """SummaryEval: accuracy (LLM judge), completeness, coherence and their weighted overall (``docs/summary_eval.md``).

    Args:
        predictions: the summaries.
        sources: the source texts, aligned with the predictions.
        judge: the accuracy judge; None computes completeness and coherence only (accuracy/overall are None).
        params: the options as one :class:`~persona_metrics.summary_eval.params.SummaryEvalParams`, or:
        **options: the same one by one: ``weights`` (overall weights, default 0.6 / 0.25 / 0.15), ``encoder`` (a
            sentence-transformers model folder, default the packaged all-MiniLM-L6-v2), ``coherence_method``
            (``"original"``, the default, or ``"robust"``: ``docs/summary_eval.md`` §3.1), ``completeness_method``
            (``"original"``, the default, or ``"recall_precision"``: §2.1).

    The result also carries ``consistency``, the offline check of the summaries' figures and names against their
    sources (§2.2), as its own field.

    Raises:
        TypeError, ValueError: bad inputs or options (field and index named).
        JudgeError: the judge could not be called, or sent a malformed response.
    """
    return SummaryEvalScorer(judge, params=params, **options).score(predictions, sources)
