"""Lexical distances: ROUGE-L, ROUGE-SU4, BLEU-N, METEOR and Jensen-Shannon divergence.

Each text is tokenized (and stemmed, and counted) once; pairs are scored from those representations.
Orientation follows the authors' calls ``σ(text1, text2)``: text1 is the reference side (ROUGE target, BLEU /
METEOR reference), text2 the hypothesis side.
"""

from __future__ import annotations

import itertools
import math
import re
import sys
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cached_property, lru_cache
from importlib.metadata import version
from itertools import chain
from typing import Any

import numpy as np

from persona_metrics.distances.base import Distance
from persona_metrics.distances.fast_tokens import STEMS, rouge_raw_tokens, rouge_tokens, word_token_bytes
from persona_metrics.signature import Signature
from persona_metrics.validation import out_of_range

_WORD = re.compile(r"[^\W_]+")


def word_tokens(text: str) -> list[str]:
    """Lowercased alphanumeric tokens (Unicode letters and digits), used by ``bleu``, ``meteor`` and ``jsd``."""
    return _WORD.findall(text.lower())


# --- ROUGE-L ---------------------------------------------------------------------------------------------
class _TokenChars(dict[bytes, str]):
    """Raw token → one character naming its stem (code point = the stem's id), ``""`` for a token rouge_score drops.

    A text becomes the string of its tokens' characters (:meth:`text`), which ``rapidfuzz`` compares code point by
    code point. An id past :attr:`last_char` (more distinct stems than code points) has no character and its raw
    token no entry: such a text becomes a list of ids (:meth:`ids`), which ``rapidfuzz`` compares with strings by
    the same numbers. Only equality of ids matters to the LCS, so one map serves the whole process
    (:data:`_CHARS`); a lock keeps two threads from giving one id to two stems (an entry, once written, never
    changes, so lookups need no lock).
    """

    last_char = 0x10FFFF

    def __init__(self) -> None:
        super().__init__()
        self.vocab: dict[str, int] = {}
        self.lock = threading.Lock()

    def text(self, raw: list[bytes]) -> str | None:
        """The string of a text's raw tokens; ``None`` while one of them has no entry (new, or past the last id)."""
        try:
            return "".join(map(self.__getitem__, raw))
        except KeyError:
            return None

    def add(self, raws: Iterable[bytes]) -> None:
        """Give the new raw tokens their characters (ids in order of first appearance), stems looked up together."""
        new = [raw for raw in dict.fromkeys(raws) if raw not in self]  # ids in order of first appearance
        if not new:
            return
        STEMS.fill(new)
        tokens = list(map(STEMS.__getitem__, new))
        with self.lock:
            vocab = self.vocab
            fresh = [token for token in dict.fromkeys(tokens) if token and token not in vocab]
            vocab.update(zip(fresh, range(len(vocab), len(vocab) + len(fresh)), strict=True))
            if len(vocab) - 1 <= self.last_char and all(tokens):  # the usual case, without a loop in Python
                self.update(zip(new, map(chr, map(vocab.__getitem__, tokens)), strict=True))
                return
            for raw, token in zip(new, tokens, strict=True):  # a dropped token, or ids past the last character
                if not token or vocab[token] <= self.last_char:  # past it: no entry (the text is a list of ids)
                    self[raw] = chr(vocab[token]) if token else ""

    def ids(self, raw: list[bytes]) -> list[int]:
        """The stem ids of a text's raw tokens (the list form of its representation; every token added)."""
        vocab = self.vocab
        return [vocab[token] for token in map(STEMS.__getitem__, raw) if token]


#: The process's raw token → character map (shared by every ``RougeL``, like the stems' memo).
_CHARS = _TokenChars()


def rouge_l_distances(lcs: np.ndarray, len_a: np.ndarray, len_b: np.ndarray) -> np.ndarray:
    """``1 − F`` of ROUGE-L from LCS lengths and token counts, with rouge_score's float operations element-wise.

    ``P = LCS/len_b`` (text2 is the prediction), ``R = LCS/len_a``, ``F = 2·P·R/(P + R)`` (0 when ``P + R = 0``):
    IEEE operations in the same order as ``rouge_score.scoring.fmeasure``, so each value is bit for bit its own.
    """
    lcs = np.asarray(lcs, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision, recall = lcs / len_b, lcs / len_a
        f = 2 * precision * recall / (precision + recall)
    return 1.0 - np.where(lcs > 0, f, 0.0)


class RougeL(Distance):
    """σ = 1 − ROUGE-L F1 exactly as ``rouge_score`` computes it with ``use_stemmer=True``.

    Tokens are ``rouge_score``'s (lowercase, ``[^a-z0-9]+`` → space, NLTK Porter stemmer in its extended mode on
    tokens longer than 3 characters), produced by the exact equivalent
    :func:`~persona_metrics.distances.fast_tokens.rouge_raw_tokens` plus a stem memoised per raw token, from the
    shipped table of NLTK's stems or NLTK's own Porter code (loaded without importing nltk). Each text is kept as a
    string with one character per token (the character's code point is the stem's id), so the LCS of a batch of
    pairs is one call to ``rapidfuzz``'s exact bit-parallel ``LCSseq`` (:func:`rapidfuzz.process.cpdist`), and
    ``F = 2·P·R/(P + R)`` is computed with rouge_score's float operations (:func:`rouge_l_distances`): bit for bit
    the library's value. A text with no token (only punctuation) is at σ = 1 from everything, itself included, as
    in rouge_score.
    """

    name = "rougeL"
    description = "1 − ROUGE-L F1, `rouge_score` with Porter stemming"
    source = "same (σ rounded to 5 d.p. there)"
    symmetric = True

    def __init__(self) -> None:
        super().__init__()
        self._chars = _CHARS

    def tokens(self, text: str) -> list[str]:
        """``rouge_score``'s tokens of ``text`` (stemmed)."""
        return rouge_tokens(text)

    def _prepare(self, texts: Sequence[str]) -> list[str | list[int]]:
        chars = self._chars
        raws = [rouge_raw_tokens(text) for text in texts]
        out: list[str | list[int] | None] = list(map(chars.text, raws))  # texts of known words only: done
        new = [i for i, rep in enumerate(out) if rep is None]
        if new:
            chars.add(itertools.chain.from_iterable(raws[i] for i in new))  # their stems: one table search
            for i in new:  # None again: a stem id past the last code point, this text as a list of ids
                out[i] = rep if (rep := chars.text(raws[i])) is not None else chars.ids(raws[i])
        return out  # type: ignore[return-value]  # no None left

    def _score(self, reps_a: Sequence[str | list[int]], reps_b: Sequence[str | list[int]]) -> np.ndarray:
        from rapidfuzz import process
        from rapidfuzz.distance import LCSseq

        lcs = process.cpdist(reps_a, reps_b, scorer=LCSseq.similarity, processor=None, dtype=np.int64, workers=1)
        len_a = np.fromiter(map(len, reps_a), dtype=np.float64, count=len(reps_a))
        len_b = np.fromiter(map(len, reps_b), dtype=np.float64, count=len(reps_b))
        return rouge_l_distances(lcs, len_a, len_b)

    def signature(self) -> str:
        """Name, stemmer and library version."""
        return Signature.of("rougeL", stem="porter-ext", rouge_score=version("rouge-score")).text


# --- ROUGE-SU4 -------------------------------------------------------------------------------------------
class RougeSU4(Distance):
    """σ = 1 − ROUGE-SU4 F1 as ROUGE-1.5.5 (and ``rouge-metric``'s ``PyRouge(rouge_su=True, skip_gap=4)``).

    Preprocessing as ROUGE-1.5.5 ``-m``: lowercase, ``[^a-z0-9]`` → space, the *original* Porter algorithm on
    tokens longer than 3 characters. Grams: skip-bigrams ``(t_i, t_j)`` with ``0 < j − i ≤ 5`` (gap ≤ 4) plus
    the unigrams of every token but the last (ROUGE-1.5.5's behaviour); clipped counts; F1 with α = 0.5.

    Orientation: text1 is the reference and text2 the hypothesis, i.e. σ(a, b) corresponds to
    ``PyRouge(...).evaluate_tokenized([[tokens(b)]], [[[tokens(a)]]])`` (hypotheses first, references second):
    recall is over text1's grams, precision over text2's. F1 is symmetric under that swap, so σ is symmetric.

    A text with a single token has no gram at all (no skip-bigram, and its only unigram is the last token), so
    ROUGE-1.5.5 and PyRouge give F = 0 and σ = 1 even against itself; identical texts of ≥ 2 tokens give 0.
    """

    name = "rougeSU4"
    description = "1 − ROUGE-SU4 F1 (skip-bigrams, gap ≤ 4, plus unigrams), ROUGE-1.5.5 preprocessing"
    source = "their code counts only contiguous 5-grams (a bug)"
    symmetric = True
    skip_gap = 4

    @cached_property
    def _stemmer(self):
        from nltk.stem.porter import PorterStemmer

        stemmer = PorterStemmer(mode=PorterStemmer.ORIGINAL_ALGORITHM)
        stemmer.stem = lru_cache(maxsize=1 << 20)(stemmer.stem)  # each word stemmed once
        return stemmer

    def tokens(self, text: str) -> list[str]:
        """ROUGE-1.5.5 tokens of ``text`` (lowercased, non-alphanumerics removed, long tokens stemmed)."""
        raw = re.sub(r"[^a-z0-9]+", " ", text.lower()).split()
        return [self._stemmer.stem(t) if len(t) > 3 else t for t in raw]

    def _prepare(self, texts: Sequence[str]) -> list[tuple[Counter, int]]:
        out = []
        for text in texts:
            toks = self.tokens(text)
            grams: Counter = Counter()
            for lo in range(len(toks)):
                for hi in range(lo + 1, min(len(toks), lo + self.skip_gap + 2)):
                    grams[(toks[lo], toks[hi])] += 1
            grams.update((t,) for t in toks[:-1])
            out.append((grams, sum(grams.values())))
        return out

    def _score(self, reps_a: Sequence[tuple[Counter, int]], reps_b: Sequence[tuple[Counter, int]]) -> np.ndarray:
        out = np.empty(len(reps_a))
        for i, ((ref, ref_total), (hyp, hyp_total)) in enumerate(zip(reps_a, reps_b, strict=True)):
            if not ref_total or not hyp_total:
                out[i] = 1.0
                continue
            small, large = (ref, hyp) if len(ref) < len(hyp) else (hyp, ref)
            match = sum(min(c, large[g]) for g, c in small.items() if g in large)
            precision, recall = match / hyp_total, match / ref_total
            f = recall * precision / (0.5 * recall + 0.5 * precision) if match else 0.0
            out[i] = 1.0 - f
        return out

    def signature(self) -> str:
        """Name, skip distance, unigrams and stemmer."""
        fields = Signature.of("rougeSU4", skip=4, unigrams=True, stem="porter-original")
        return (fields + Signature.of("rouge-1.5.5")).text


# --- BLEU --------------------------------------------------------------------------------------------------
#: Largest BLEU n-gram order accepted: each order counts every n-gram of every text (BLEU-4 is the usual top).
MAX_BLEU_ORDER = 16


class Bleu(Distance):
    """σ = 1 − sentence BLEU-N with NLTK's semantics (uniform weights, brevity penalty, no smoothing).

    text1 is the reference, text2 the hypothesis (the authors' order). Tokens: :func:`word_tokens`.
    Natively computed from each text's n-gram counts, with NLTK's arithmetic (``sentence_bleu([ref], hyp,
    weights=(1/N,)*N)``): modified precisions ``p_n = clipped matches / max(1, #hyp n-grams)``, brevity penalty
    ``exp(1 − r/c)`` when the hypothesis is not longer than the reference.
    As in NLTK, no unigram match gives BLEU = 0, and a higher order without a match contributes
    ``log(sys.float_info.min)`` (so BLEU ≈ 1e-77 for N = 4, σ = 1 to double precision).
    Consequently identical texts give σ = 0 only when they have at least N tokens; an identical pair shorter
    than N tokens (no N-gram) gives σ = 1.0, exactly like the authors' BLEU-4.

    Args:
        max_order: N; 1 is the paper's BLEU-1 (default), 4 the authors' code.
    """

    name = "bleu"
    description = "1 − sentence BLEU-N (`max_order`, default 1 = the paper's BLEU-1), a = reference"
    source = "BLEU-4, unsmoothed (`max_order=4` reproduces it)"
    symmetric = False

    def __init__(self, max_order: int = 1) -> None:
        super().__init__()
        if isinstance(max_order, bool) or not isinstance(max_order, int) or not 1 <= max_order <= MAX_BLEU_ORDER:
            raise ValueError(out_of_range("bleu option max_order", max_order, 1, MAX_BLEU_ORDER, what="an int"))
        self.max_order = max_order

    def _prepare(self, texts: Sequence[str]) -> list[tuple[int, list[Counter]]]:
        out = []
        for text in texts:
            toks = word_tokens(text)
            grams = [
                Counter(tuple(toks[i : i + n]) for i in range(len(toks) - n + 1)) for n in range(1, self.max_order + 1)
            ]
            out.append((len(toks), grams))
        return out

    def _score(self, reps_a: Sequence, reps_b: Sequence) -> np.ndarray:
        out = np.empty(len(reps_a))
        weight = 1.0 / self.max_order
        for i, ((ref_len, ref), (hyp_len, hyp)) in enumerate(zip(reps_a, reps_b, strict=True)):
            matches = [sum(min(c, ref[n][g]) for g, c in hyp[n].items() if g in ref[n]) for n in range(self.max_order)]
            if hyp_len == 0 or matches[0] == 0:  # NLTK: no unigram match (or no hypothesis) → BLEU = 0
                out[i] = 1.0
                continue
            logs = [
                weight * math.log(m / max(1, hyp_len - n) if m else sys.float_info.min) for n, m in enumerate(matches)
            ]
            bp = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
            out[i] = 1.0 - bp * math.exp(math.fsum(logs))
        return out

    def signature(self) -> str:
        """Name, order, smoothing and tokenization."""
        return Signature.of("bleu", order=self.max_order, ref="text1", smooth="none", tok="lower-alnum").text


# --- METEOR ------------------------------------------------------------------------------------------------
class Meteor(Distance):
    """σ = 1 − NLTK METEOR (α = 0.9, β = 3, γ = 0.5; exact, Porter-stem, WordNet-synonym stages).

    ``1 − nltk.translate.meteor_score.meteor_score([tokens(text1)], tokens(text2))``: text1 is the reference,
    text2 the hypothesis (the authors' order); tokens: :func:`word_tokens`; WordNet 3.0 built offline by
    :func:`persona_metrics.resources.ensure_wordnet` (the English synonym stage needs no ``omw-1.4``).
    Identical n-token texts give σ = 0.5/n³, not 0 (METEOR's fragmentation penalty).

    Computed by :mod:`persona_metrics.distances.meteor`: each unique text is lowercased, stemmed and indexed
    once (each unique word stemmed and looked up in WordNet once), and each pair is aligned from those tables
    in NLTK's greedy order, so values equal ``meteor_score``'s bit for bit while a long document costs once,
    not once per pair. A call estimated to take long warns once (with the estimate) and shows progress bars.
    """

    name = "meteor"
    description = "1 − NLTK METEOR (WordNet 3.0 offline), a = reference"
    source = "same formula; tokens differ (below)"
    symmetric = False

    def __init__(self) -> None:
        super().__init__()
        self._warned = False

    def pairwise(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """σ for every ordered pair (:meth:`Distance.pairwise`), warning once if the call will be long."""
        from persona_metrics.distances.meteor import warn_if_long

        if not self._warned and pairs:
            self._warned = warn_if_long(pairs, self._cache)
        return super().pairwise(pairs)

    def _prepare(self, texts: Sequence[str]) -> list:
        from persona_metrics.distances.meteor import prepare_texts

        return prepare_texts(texts, word_tokens)

    def _score(self, reps_a: Sequence, reps_b: Sequence) -> np.ndarray:
        from persona_metrics.distances.meteor import single_meteor_score

        return np.array(
            [
                1.0 - single_meteor_score(a, b) if a.tokens and b.tokens else 1.0
                for a, b in zip(reps_a, reps_b, strict=True)
            ]
        )

    def signature(self) -> str:
        """Name, parameters, WordNet and NLTK versions."""
        return Signature.of(
            "meteor", ref="text1", alpha="0.9,beta:3,gamma:0.5", wordnet="3.0", nltk=version("nltk")
        ).text


# --- Jensen-Shannon divergence ----------------------------------------------------------------------------
class _Vocabulary(dict[bytes, int]):
    """Word → column number, numbered in order of first appearance."""

    def __missing__(self, word: bytes) -> int:
        self[word] = column = len(self)
        return column


#: A text with more tokens than this is counted with ``Counter`` (cheaper per token); shorter ones by sorting.
_LONG_TEXT_TOKENS = 64
#: Distinct words of a batch of texts: ``(row, column, count, rank of first occurrence in its text)``.
_Words = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _words_by_sorting(tokens: list[list[bytes]], rows: np.ndarray, vocab: _Vocabulary) -> _Words:
    """The distinct words of short texts: every token's column, sorted by (row, column), runs counted."""
    lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    columns = np.fromiter(map(vocab.__getitem__, chain.from_iterable(tokens)), dtype=np.int64, count=lengths.sum())
    if not columns.size:
        return columns, columns, columns, columns
    row = np.repeat(rows, lengths)
    order = np.argsort((row << 32) | columns, kind="stable")  # stable: a run starts at its first occurrence
    row, columns = row[order], columns[order]
    starts = np.flatnonzero(np.concatenate(([True], (row[1:] != row[:-1]) | (columns[1:] != columns[:-1]))))
    position = order[starts] - np.repeat(np.cumsum(lengths) - lengths, lengths)[order[starts]]
    return row[starts], columns[starts], np.diff(np.append(starts, len(order))), position


def _words_by_counter(counters: list[Counter[bytes]], rows: np.ndarray, vocab: _Vocabulary) -> _Words:
    """The distinct words of long texts, from their ``Counter`` (keys in order of first occurrence)."""
    sizes = np.fromiter(map(len, counters), dtype=np.int64, count=len(counters))
    columns = np.fromiter(map(vocab.__getitem__, chain.from_iterable(counters)), dtype=np.int64, count=sizes.sum())
    counts = np.fromiter(chain.from_iterable(c.values() for c in counters), dtype=np.int64, count=sizes.sum())
    rank = np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    return np.repeat(rows, sizes), columns, counts, rank


class _Distributions:
    """The unigram distributions of prepared texts, one row each of a sparse matrix (scipy.sparse CSR).

    Row ``i`` holds ``count/total`` for each distinct word of text ``i`` (the division ``Counter`` values over their
    sum would give). Two copies share the row layout: words in order of first occurrence in the text (the order a
    ``Counter`` iterates, which fixes the order of the sums) and words in column order (for binary-search lookups).
    Texts are appended in batches; the matrices are rebuilt when next needed.
    """

    def __init__(self) -> None:
        self.vocab = _Vocabulary()
        self._blocks: list[tuple[np.ndarray, ...]] = []  # (row lengths, columns and probabilities in both orders)
        self.rows = 0
        self._matrices: tuple[Any, Any] | None = None

    def add(self, texts: Sequence[str]) -> list[int]:
        """Append the distributions of ``texts`` (:func:`word_tokens` counts); return their row numbers."""
        short: list[list[bytes]] = []
        counted: list[Counter[bytes]] = []  # long texts are counted one by one (their tokens are not all kept)
        totals = np.empty(len(texts), dtype=np.int64)
        for i, text in enumerate(texts):
            tokens = word_token_bytes(text)
            totals[i] = len(tokens)
            if len(tokens) > _LONG_TEXT_TOKENS:
                counted.append(Counter(tokens))
            else:
                short.append(tokens)
        is_long = totals > _LONG_TEXT_TOKENS
        parts = (
            _words_by_sorting(short, np.flatnonzero(~is_long), self.vocab),
            _words_by_counter(counted, np.flatnonzero(is_long), self.vocab),
        )
        row, columns, counts, rank = (np.concatenate(field) for field in zip(*parts, strict=True))
        probability = counts.astype(np.float64) / totals[row].astype(np.float64)
        in_text = np.argsort((row << 32) | rank)  # row by row, words in order of first occurrence
        by_column = np.argsort((row << 32) | columns)  # row by row, words in column order
        lengths = np.bincount(row, minlength=len(texts))
        columns = columns.astype(np.int32)  # scipy's index type below 2**31 words
        self._blocks.append(
            (lengths, columns[in_text], probability[in_text], columns[by_column], probability[by_column])
        )
        first = self.rows
        self.rows += len(texts)
        self._matrices = None
        return list(range(first, self.rows))

    def matrices(self) -> tuple[Any, Any]:
        """All rows as two ``csr_array`` (rows × vocabulary): words in text order, and in column order."""
        from scipy import sparse

        if self._matrices is None:
            merged = tuple(np.concatenate(field) for field in zip(*self._blocks, strict=True))
            self._blocks = [merged]  # one copy of the rows, shared with the matrices
            lengths, *fields = merged
            indptr = np.concatenate(([0], np.cumsum(lengths)))
            shape = (self.rows, len(self.vocab))
            in_text = sparse.csr_array((fields[1], fields[0], indptr), shape=shape)
            by_column = sparse.csr_array((fields[3], fields[2], indptr), shape=shape)
            by_column.has_sorted_indices = True
            self._matrices = (in_text, by_column)
        return self._matrices

    def jsd(self, rows_a: np.ndarray, rows_b: np.ndarray) -> np.ndarray:
        """JSD (base 2) of row pairs, vectorised: only the words of the smaller row are looked up in the other.

        ``JSD = ½(1 − Σ_shared p) + ½(1 − Σ_shared q) + Σ_shared ½[p log₂(2p/(p+q)) + q log₂(2q/(p+q))]``: a word in
        one text only contributes half its probability, so a title against a long document costs one binary search
        per title word (scipy's CSR element lookup). As in a loop over the smaller text's ``Counter`` (the first
        text on a tie), the sums run over its words in order of first occurrence: a pair's value does not depend on
        the other pairs or on what was prepared before.
        """
        in_text, by_column = self.matrices()
        nnz = np.diff(in_text.indptr)
        swap = nnz[rows_a] > nnz[rows_b]
        small, large = np.where(swap, rows_b, rows_a), np.where(swap, rows_a, rows_b)
        words = in_text[small]
        pair = np.repeat(np.arange(len(small)), np.diff(words.indptr))
        other = np.asarray(by_column[large[pair], words.indices]).ravel() if pair.size else np.zeros(0)
        shared = other > 0.0
        p, q, k = words.data[shared], other[shared], pair[shared]
        s = p + q
        terms = np.bincount(k, p * np.log2(2 * p / s) + q * np.log2(2 * q / s), minlength=len(small))
        sum_p = np.bincount(k, p, minlength=len(small))
        sum_q = np.bincount(k, q, minlength=len(small))
        out = np.minimum(1.0, np.maximum(0.0, 0.5 * ((1.0 - sum_p) + (1.0 - sum_q) + terms)))
        out[rows_a == rows_b] = 0.0  # the same text: exactly 0, no rounding residue
        out[(nnz[small] == 0) | (nnz[large] == 0)] = 1.0  # a text without a word (even against itself)
        return out


class JensenShannon(Distance):
    """σ = Jensen-Shannon divergence (log base 2, no square root) of the texts' unigram distributions.

    Distributions are relative frequencies of :func:`word_tokens` (no stemming) over the union vocabulary:
    ``JSD(p, q) = ½ KL(p ‖ m) + ½ KL(q ‖ m)``, ``m = (p + q)/2``; 0 for identical distributions, 1 for
    disjoint vocabularies. Each text is tokenized once (:func:`~persona_metrics.distances.fast_tokens.word_token_bytes`)
    and counted into a row of a sparse matrix; a batch of pairs is scored in a few vectorised operations on it.
    """

    name = "jsd"
    description = "Jensen-Shannon divergence (base 2, no square root) of unigram distributions"
    source = "same formula (rounded to 4 d.p.); tokens differ (below)"
    symmetric = True

    def __init__(self) -> None:
        super().__init__()
        self._rows = _Distributions()

    def _prepare(self, texts: Sequence[str]) -> list[int]:
        return self._rows.add(texts)

    def _score(self, reps_a: Sequence[int], reps_b: Sequence[int]) -> np.ndarray:
        return self._rows.jsd(np.asarray(reps_a, dtype=np.int64), np.asarray(reps_b, dtype=np.int64))

    def clear_cache(self) -> None:
        """Forget every prepared text (and its row)."""
        super().clear_cache()
        self._rows = _Distributions()

    def signature(self) -> str:
        """Name, base and tokenization."""
        return Signature.of("jsd", "divergence", base=2, tok="lower-alnum").text
