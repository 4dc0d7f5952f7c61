"""VERT's word mover's distance, step by step as the original code (``docs/vert.md`` §2).

1. lower-case the text and split it on whitespace (``text.lower().split()``: punctuation stays attached, so
   ``"station."`` is its own token, and usually out of vocabulary);
2. drop NLTK's English stopwords (:mod:`persona_metrics.vert.stopwords`);
3. drop words without a vector (out of vocabulary);
4. nBOW weights: each remaining word's count / the number of remaining tokens;
5. cost: the Euclidean distance of the **raw** word vectors (not normalised to unit length);
6. the earth mover's distance of the two weightings under that cost, solved exactly by POT's network simplex
   (the solver of ``ot.emd2``, called without its wrapper: :func:`transport_cost`).

This equals gensim's ``KeyedVectors.wmdistance(tokens1, tokens2, norm=False)`` (gensim 4; gensim 3.5's
``wmdistance`` without ``init_sims``, which the original called). A side without any kept word has an infinite
distance, as in gensim; VERT then caps it.
"""

from __future__ import annotations

import functools
import itertools
import logging
import math
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from scipy.spatial.distance import cdist

from persona_metrics.text_services import NLTK_ENGLISH_STOPWORDS
from persona_metrics.vert.vectors import WordVectors

logger = logging.getLogger(__name__)

#: ``ot.emd2``'s default iteration limit (``numItermax``), passed to the solver as it would.
EMD_MAX_ITER = 100_000
#: The network simplex's result code for an optimal solution (``ot.lp.emd_wrap``).
EMD_OPTIMAL = 1
#: Cost cells (words × words) from which the shared-word mass is left in place before the solve: below, the
#: solve is too cheap for the reduction to pay (it breaks even near 20 × 20 words and is 5x faster at 1,000-word
#: texts; ``docs/vert.md`` §9), and the whole problem gives ``ot.emd2``'s bits.
SHARED_MASS_MIN_CELLS = 1024


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
    #: The ground cost is a metric (Euclidean): the shared-mass reduction of :func:`shared_mass_distance` holds.
    metric_cost: ClassVar[bool] = True

    @property
    def empty(self) -> bool:
        """No word left: the distance to anything is infinite (capped by VERT)."""
        return not self.words

    def same_bag(self, other: PreparedText) -> bool:
        """Whether the two texts carry the same words with the same weights (their distance is then 0)."""
        return self.words == other.words and bool(np.array_equal(self.weights, other.weights))

    def ground_cost(self, other: PreparedText) -> np.ndarray:
        """Cost of moving each of ``words`` to each of ``other.words``: the Euclidean distance of the raw vectors."""
        return euclidean(self.vectors, other.vectors)

    @functools.cached_property
    def totals(self) -> tuple[np.floating, np.ndarray]:
        """``weights.sum(0)`` and ``weights.sum(0, keepdims=True)``: the sums ``ot.emd2`` takes, once per text."""
        return self.weights.sum(0), self.weights.sum(0, keepdims=True)


def prepare_text(text: str, vectors: WordVectors, stopwords: Collection[str] = NLTK_ENGLISH_STOPWORDS) -> PreparedText:
    """Tokens, kept words, nBOW weights and raw vectors of ``text`` (steps 1–4 of the module docstring)."""
    tokens = tuple(text.lower().split())
    index = vectors.index
    dropped_stop = tuple(t for t in tokens if t in stopwords)
    content = [t for t in tokens if t not in stopwords]
    kept = tuple(t for t in content if t in index)
    oov = tuple(t for t in content if t not in index)
    counts = Counter(kept)  # insertion-ordered: first appearance
    words = tuple(counts)
    # count / len(kept), each a correctly rounded quotient of two exact integers, as in Python's float division
    weights = np.fromiter(counts.values(), dtype=np.float64, count=len(words)) / max(len(kept), 1)
    return PreparedText(tokens, kept, words, weights, vectors.vectors(words), dropped_stop, oov)


def prepare_bags(
    texts: Sequence[str], vectors: WordVectors, stopwords: Collection[str] = NLTK_ENGLISH_STOPWORDS
) -> list[PreparedText]:
    """:func:`prepare_text` of each text without the token lists (``tokens``, ``stopwords``, ``oov`` left empty).

    What the distance needs, at a fraction of the cost: the vectors of all the texts' distinct words are read
    in one gather, and each text takes its rows from that block. The scorer prepares its texts this way; an
    alignment prepares its two texts again in full.
    """
    index = vectors.index
    kept = [[t for t in text.lower().split() if t not in stopwords and t in index] for text in texts]
    counts = [Counter(k) for k in kept]
    local: dict[str, int] = {}
    for count in counts:
        for word in count:
            local.setdefault(word, len(local))
    sizes = np.fromiter(map(len, counts), dtype=np.int64, count=len(counts))
    total = int(sizes.sum())
    # every text's rows, end to end: one gather, one division (count / kept tokens, as Python's float division)
    rows = np.fromiter(map(local.__getitem__, itertools.chain.from_iterable(counts)), dtype=np.int64, count=total)
    block = vectors.vectors(list(local))[rows]
    tallies = np.fromiter(itertools.chain.from_iterable(c.values() for c in counts), dtype=np.float64, count=total)
    lengths = np.fromiter((max(len(k), 1) for k in kept), dtype=np.float64, count=len(kept))
    weights = tallies / np.repeat(lengths, sizes)
    ends = np.cumsum(sizes).tolist()
    starts = [0, *ends[:-1]]
    return [
        PreparedText((), tuple(words_kept), tuple(count), weights[start:end], block[start:end])
        for words_kept, count, start, end in zip(kept, counts, starts, ends, strict=True)
    ]


def euclidean(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``scipy.spatial.distance.cdist(a, b)`` of two float64 C-ordered arrays, by the function it calls.

    The public wrapper checks and dispatches for 7 µs per pair; ``tests/test_vert.py`` checks the bits.
    """
    function = _cdist_euclidean()
    if function is None:  # pragma: no cover - depends on the SciPy version
        return np.asarray(cdist(a, b), dtype=np.float64)
    return np.asarray(function(a, b), dtype=np.float64)


@functools.cache
def _cdist_euclidean() -> Callable[..., Any] | None:
    try:
        from scipy.spatial._distance_pybind import cdist_euclidean
    except ImportError:  # pragma: no cover - depends on the SciPy version
        logger.warning("this SciPy has no _distance_pybind.cdist_euclidean: VERT calls cdist (same values, slower)")
        return None
    return cdist_euclidean


def transport_cost(
    a: np.ndarray, b: np.ndarray, cost: np.ndarray, totals: tuple[Any, np.ndarray] | None = None
) -> float:
    """``ot.emd2(a, b, cost, check_marginals=False, center_dual=False)``: the same solver, the same value.

    POT's ``emd2`` converts and checks its arguments, picks a backend, rescales ``b`` to the mass of ``a``, calls
    the network simplex (``ot.lp.emd_wrap.emd_c``), then centres dual potentials and builds gradients that the
    distance does not use; per small pair that wrapper costs more than the solve. This calls the solver with the
    arrays ``emd2`` would pass it: float64 weights without zeros (``emd2`` would drop zero rows first), ``b``
    rescaled by the same expression, a C-ordered float64 cost, the same iteration limit and one thread; a
    solve that ends other than optimal warns as ``emd2`` does (``tests/test_vert.py`` checks the values bit for
    bit against ``ot.emd2``). POT versions without ``emd_c`` use ``ot.emd2`` itself. ``totals``: ``a.sum(0)`` and
    ``b.sum(0, keepdims=True)`` when the caller has them (the same numbers).
    """
    solver = _emd_solver()
    if solver is None:
        import ot

        return float(ot.emd2(a, b, cost, check_marginals=False, center_dual=False))
    emd_c, check_result = solver
    a_total, b_total = totals if totals is not None else (a.sum(0), b.sum(0, keepdims=True))
    b = b * a_total / b_total
    _, value, _, _, code = emd_c(a, b, cost, EMD_MAX_ITER, 1)
    if code != EMD_OPTIMAL:
        check_result(code)
    return float(value)


@functools.cache
def _emd_solver() -> tuple[Callable[..., Any], Callable[[int], Any]] | None:
    """POT's compiled network simplex and its result check, or None where this POT does not expose them."""
    try:
        from ot.lp.emd_wrap import check_result, emd_c
    except ImportError:  # pragma: no cover - depends on the POT version
        logger.warning("this POT has no ot.lp.emd_wrap.emd_c: VERT calls ot.emd2 (same values, slower)")
        return None
    return emd_c, check_result


def word_movers_distance(a: PreparedText, b: PreparedText) -> float:
    """The word mover's distance of two prepared texts (``inf`` if either has no word).

    Shortcuts that give the solver's own answer: the same bag of words is 0; a side with a single word moves
    all its mass to (or from) every word of the other side, so the distance is the weighted sum of the
    distances. From :data:`SHARED_MASS_MIN_CELLS` cost cells on (long texts), the mass on shared words stays in
    place first (:func:`shared_mass_distance`); smaller problems are solved whole, as ``ot.emd2`` would.
    """
    if a.empty or b.empty:
        return math.inf
    if a.same_bag(b):
        return 0.0
    if a.metric_cost and b.metric_cost and len(a.words) * len(b.words) >= SHARED_MASS_MIN_CELLS:
        reduced = shared_mass_distance(a, b)
        if reduced is not None:
            return reduced
    cost = a.ground_cost(b)
    if len(a.words) == 1:
        return float(cost[0] @ b.weights)
    if len(b.words) == 1:
        return float(a.weights @ cost[:, 0])
    return transport_cost(a.weights, b.weights, cost, (a.totals[0], b.totals[1]))


def shared_mass_distance(a: PreparedText, b: PreparedText) -> float | None:
    """The word mover's distance with the mass two texts put on the same word left in place (``docs/vert.md`` §2.1).

    For a metric ground cost, an optimal plan keeps ``min(a_w, b_w)`` of every shared word ``w`` where it is, so
    the distance is that of the two residual weightings (``a − min(a, b)`` and ``b − min(a, b)``, zeros dropped)
    over the words that still carry mass: an exact reduction (the proof is in the docs), solved like the full
    problem. The values agree with the full solve to float rounding (measured below 1e-15). None when the texts
    share no word.
    """
    where = {word: j for j, word in enumerate(b.words)}
    shared = [(i, where[word]) for i, word in enumerate(a.words) if word in where]
    if not shared:
        return None
    rows, cols = np.array(shared, dtype=np.int64).T
    left, right = a.weights.copy(), b.weights.copy()
    common = np.minimum(left[rows], right[cols])
    left[rows] -= common  # one of the two becomes exactly 0
    right[cols] -= common
    keep_a, keep_b = np.flatnonzero(left), np.flatnonzero(right)
    if not len(keep_a) or not len(keep_b):
        return 0.0  # equal weights on the same words: nothing moves
    left, right = left[keep_a], right[keep_b]
    cost = euclidean(a.vectors[keep_a], b.vectors[keep_b])
    if len(keep_a) == 1:
        return float(cost[0] @ right)
    if len(keep_b) == 1:
        return float(left @ cost[:, 0])
    return transport_cost(left, right, cost)


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
