"""Lexical distances: ROUGE-L, ROUGE-SU4, BLEU-N, METEOR and Jensen-Shannon divergence.

Each text is tokenized (and stemmed, and counted) once; pairs are scored from those representations.
Orientation follows the authors' calls ``σ(text1, text2)``: text1 is the reference side (ROUGE target, BLEU /
METEOR reference), text2 the hypothesis side.
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib.metadata import version

import numpy as np

from persona_metrics.distances.base import Distance
from persona_metrics.signature import Signature

_WORD = re.compile(r"[^\W_]+")


def word_tokens(text: str) -> list[str]:
    """Lowercased alphanumeric tokens (Unicode letters and digits), used by ``bleu``, ``meteor`` and ``jsd``."""
    return _WORD.findall(text.lower())


# --- ROUGE-L ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _LcsText:
    """Token ids of a text and, for bit-parallel LCS, a bitmask of positions per token id."""

    ids: tuple[int, ...]
    masks: dict[int, int]


def lcs_length(a: _LcsText, b: _LcsText) -> int:
    """Length of the longest common subsequence, bit-parallel (Hyyrö 2004) over the longer text's bitmasks.

    ``V`` holds one bit per position of the longer text; for each token of the shorter text,
    ``U = V & M[token]; V = (V + U) | (V − U)``. The LCS length is the number of zero bits of ``V``.
    """
    if len(a.ids) < len(b.ids):
        a, b = b, a
    n = len(a.ids)
    full = (1 << n) - 1
    v = full
    masks = a.masks
    for token in b.ids:
        m = masks.get(token)
        if m:
            u = v & m
            v = ((v + u) | (v - u)) & full
    return n - v.bit_count()


class RougeL(Distance):
    """σ = 1 − ROUGE-L F1 exactly as ``rouge_score`` computes it with ``use_stemmer=True``.

    Tokens come from ``rouge_score``'s own tokenizer (lowercase, ``[^a-z0-9]+`` → space, NLTK Porter stemmer
    in its extended mode on tokens longer than 3 characters), so F1 is bit-for-bit the library's. Each text is
    tokenized once and kept as integer ids plus a position bitmask per id; the LCS of a pair is then computed
    bit-parallel (:func:`lcs_length`), and ``F = 2·LCS/(len1 + len2)`` with the library's float operations.
    A text with no token (only punctuation) is at σ = 1 from everything, itself included, as in rouge_score.
    """

    name = "rougeL"
    symmetric = True

    def __init__(self) -> None:
        super().__init__()
        self._vocab: dict[str, int] = {}

    @cached_property
    def _tokenizer(self):
        """rouge_score's own tokenizer, with its Porter stemmer memoised per word (same output, stems once)."""
        from rouge_score import tokenizers

        tokenizer = tokenizers.DefaultTokenizer(use_stemmer=True)
        stemmer = tokenizer._stemmer
        stemmer.stem = lru_cache(maxsize=1 << 20)(stemmer.stem)
        return tokenizer

    def _prepare(self, texts: Sequence[str]) -> list[_LcsText]:
        out = []
        for text in texts:
            ids = tuple(self._vocab.setdefault(tok, len(self._vocab)) for tok in self._tokenizer.tokenize(text))
            masks: dict[int, int] = {}
            for pos, token in enumerate(ids):
                masks[token] = masks.get(token, 0) | (1 << pos)
            out.append(_LcsText(ids, masks))
        return out

    def _score(self, reps_a: Sequence[_LcsText], reps_b: Sequence[_LcsText]) -> np.ndarray:
        out = np.empty(len(reps_a))
        for i, (target, prediction) in enumerate(zip(reps_a, reps_b, strict=True)):
            if not target.ids or not prediction.ids:
                out[i] = 1.0
                continue
            lcs = lcs_length(target, prediction)
            precision, recall = lcs / len(prediction.ids), lcs / len(target.ids)
            out[i] = 1.0 - (2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0)
        return out

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
    symmetric = False

    def __init__(self, max_order: int = 1) -> None:
        super().__init__()
        if isinstance(max_order, bool) or not isinstance(max_order, int) or max_order < 1:
            raise ValueError(f"bleu option max_order must be a positive int, got {max_order!r}")
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
    """

    name = "meteor"
    symmetric = False

    def _prepare(self, texts: Sequence[str]) -> list[list[str]]:
        return [word_tokens(t) for t in texts]

    def _score(self, reps_a: Sequence[list[str]], reps_b: Sequence[list[str]]) -> np.ndarray:
        from nltk.translate.meteor_score import meteor_score

        from persona_metrics.resources import ensure_wordnet

        ensure_wordnet()
        return np.array([1.0 - meteor_score([a], b) if a and b else 1.0 for a, b in zip(reps_a, reps_b, strict=True)])

    def signature(self) -> str:
        """Name, parameters, WordNet and NLTK versions."""
        return Signature.of(
            "meteor", ref="text1", alpha="0.9,beta:3,gamma:0.5", wordnet="3.0", nltk=version("nltk")
        ).text


# --- Jensen-Shannon divergence ----------------------------------------------------------------------------
class JensenShannon(Distance):
    """σ = Jensen-Shannon divergence (log base 2, no square root) of the texts' unigram distributions.

    Distributions are relative frequencies of :func:`word_tokens` (no stemming) over the union vocabulary:
    ``JSD(p, q) = ½ KL(p ‖ m) + ½ KL(q ‖ m)``, ``m = (p + q)/2``; 0 for identical distributions, 1 for
    disjoint vocabularies.
    """

    name = "jsd"
    symmetric = True

    def _prepare(self, texts: Sequence[str]) -> list[dict[str, float]]:
        out = []
        for text in texts:
            counts = Counter(word_tokens(text))
            total = sum(counts.values())
            out.append({w: c / total for w, c in counts.items()})
        return out

    def _score(self, reps_a: Sequence[dict[str, float]], reps_b: Sequence[dict[str, float]]) -> np.ndarray:
        """Only shared words need logarithms: a word in one text only contributes half its probability.

        ``JSD = ½(1 − Σ_shared p) + ½(1 − Σ_shared q) + Σ_shared ½[p log₂(2p/(p+q)) + q log₂(2q/(p+q))]``,
        so a title against a long document costs one lookup per title word.
        """
        out = np.empty(len(reps_a))
        log2 = math.log2
        for i, (p, q) in enumerate(zip(reps_a, reps_b, strict=True)):
            if not p or not q:
                out[i] = 1.0
                continue
            if p is q:  # the same text (one cached representation): exactly 0, no rounding residue
                out[i] = 0.0
                continue
            small, large = (p, q) if len(p) <= len(q) else (q, p)
            shared_small = shared_large = terms = 0.0
            for word, a in small.items():
                b = large.get(word)
                if b is not None:
                    shared_small += a
                    shared_large += b
                    terms += a * log2(2 * a / (a + b)) + b * log2(2 * b / (a + b))
            out[i] = min(1.0, max(0.0, 0.5 * ((1.0 - shared_small) + (1.0 - shared_large) + terms)))
        return out

    def signature(self) -> str:
        """Name, base and tokenization."""
        return Signature.of("jsd", "divergence", base=2, tok="lower-alnum").text
