"""VERT's word mover's distance, step by step as the original code (``docs/vert.md`` §2).

1. lower-case the text and split it on whitespace (``text.lower().split()``: punctuation stays attached, so
   ``"station."`` is its own token, and usually out of vocabulary);
2. drop NLTK's English stopwords (:mod:`persona_metrics.vert.stopwords`);
3. drop words without a vector (out of vocabulary);
4. nBOW weights: each remaining word's count / the number of remaining tokens;
5. cost: the Euclidean distance of the **raw** word vectors (not normalised to unit length);
6. the earth mover's distance of the two weightings under that cost, solved exactly by POT's ``ot.emd2``.

This equals gensim's ``KeyedVectors.wmdistance(tokens1, tokens2, norm=False)`` (gensim 4; gensim 3.5's
``wmdistance`` without ``init_sims``, which the original called). A side without any kept word has an infinite
distance, as in gensim; VERT then caps it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field

import numpy as np
from scipy.spatial.distance import cdist

from persona_metrics.vert.stopwords import NLTK_ENGLISH_STOPWORDS
from persona_metrics.vert.vectors import WordVectors


@dataclass(frozen=True, eq=False)
class PreparedText:
    """One text as the word mover's distance sees it.

    Attributes:
        tokens: the lower-cased whitespace tokens, in order.
        kept: the tokens kept (neither stopword nor out of vocabulary), in order.
        words: the distinct kept words, in order of first appearance.
        weights: nBOW weight of each of ``words`` (count / ``len(kept)``; sums to 1).
        vectors: raw float64 vector of each of ``words``.
        stopwords: the tokens dropped as stopwords.
        oov: the tokens dropped for want of a vector.
    """

    tokens: tuple[str, ...]
    kept: tuple[str, ...]
    words: tuple[str, ...]
    weights: np.ndarray = field(repr=False)
    vectors: np.ndarray = field(repr=False)
    stopwords: tuple[str, ...] = ()
    oov: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """No word left: the distance to anything is infinite (capped by VERT)."""
        return not self.words

    def same_bag(self, other: PreparedText) -> bool:
        """Whether the two texts carry the same words with the same weights (their distance is then 0)."""
        return self.words == other.words and bool(np.array_equal(self.weights, other.weights))

    def ground_cost(self, other: PreparedText) -> np.ndarray:
        """Cost of moving each of ``words`` to each of ``other.words``: the Euclidean distance of the raw vectors."""
        return np.asarray(cdist(self.vectors, other.vectors), dtype=np.float64)


def prepare_text(
    text: str, vectors: WordVectors, stopwords: Collection[str] = NLTK_ENGLISH_STOPWORDS
) -> PreparedText:
    """Tokens, kept words, nBOW weights and raw vectors of ``text`` (steps 1–4 of the module docstring)."""
    tokens = tuple(text.lower().split())
    dropped_stop = tuple(t for t in tokens if t in stopwords)
    content = [t for t in tokens if t not in stopwords]
    kept = tuple(t for t in content if t in vectors)
    oov = tuple(t for t in content if t not in vectors)
    counts = Counter(kept)  # insertion-ordered: first appearance
    words = tuple(counts)
    weights = np.array([counts[w] / len(kept) for w in words], dtype=np.float64)
    return PreparedText(tokens, kept, words, weights, vectors.vectors(words), dropped_stop, oov)


def word_movers_distance(a: PreparedText, b: PreparedText) -> float:
    """The word mover's distance of two prepared texts (``inf`` if either has no word).

    Shortcuts that give the solver's own answer: the same bag of words is 0; a side with a single word moves
    all its mass to (or from) every word of the other side, so the distance is the weighted sum of the
    distances.
    """
    if a.empty or b.empty:
        return math.inf
    if a.same_bag(b):
        return 0.0
    cost = a.ground_cost(b)
    if len(a.words) == 1:
        return float(cost[0] @ b.weights)
    if len(b.words) == 1:
        return float(a.weights @ cost[:, 0])
    import ot

    # Both weightings sum to 1 by construction, and the dual potentials are not used: skip POT's checks.
    return float(ot.emd2(a.weights, b.weights, cost, check_marginals=False, center_dual=False))


def transport_plan(a: PreparedText, b: PreparedText) -> tuple[np.ndarray, np.ndarray, float]:
    """The optimal transport behind :func:`word_movers_distance`: ``(plan, cost, distance)``.

    ``plan[i, j]`` is the mass moved from ``a.words[i]`` to ``b.words[j]`` (rows sum to ``a.weights``, columns
    to ``b.weights``), ``cost[i, j]`` their ground cost (:meth:`PreparedText.ground_cost`), ``distance = Σ plan ·
    cost``. Empty arrays and ``inf`` when a side has no word.
    """
    if a.empty or b.empty:
        return np.zeros((len(a.words), len(b.words))), np.zeros((len(a.words), len(b.words))), math.inf
    import ot

    cost = a.ground_cost(b)
    distance, log = ot.emd2(a.weights, b.weights, cost, return_matrix=True)
    return np.asarray(log["G"], dtype=np.float64), cost, float(distance)
