"""NLTK's METEOR with each text prepared once: cost grows with unique text, not with pairs × length.

``nltk.translate.meteor_score.meteor_score`` lowercases, Porter-stems and looks up WordNet synonyms for every
word of both texts on every call, so scoring fifty summaries against a 1 M-character document stems the document
a hundred times. Here each unique text is prepared once (:func:`prepare_tokens`): its lowercased tokens, their
Porter stems, the positions of every word and every stem, and an index from each WordNet synonym to the text's
stems that have it. Each unique word is stemmed once and each unique stem looked up in WordNet once per process
(:func:`porter_stem`, :func:`wordnet_synonyms`). A pair is then aligned from those tables (:func:`align`), in
time that grows with the *shorter* text (plus the synonym candidates), and scored with NLTK's arithmetic
(:func:`single_meteor_score`).

The alignment is NLTK's, not an approximation (``docs/perseval.md`` §3.5). NLTK's ``_enum_align_words`` runs
three greedy stages, each on what the previous ones left, visiting the hypothesis words from last to first:

1. **exact**: a hypothesis word takes the last still-unmatched reference occurrence of the same word. Words do
   not compete with one another, so for every word the last ``k = min(#hyp, #ref)`` occurrences pair up in
   order (the hypothesis's last with the reference's last, ...);
2. **stem**: the same on the leftovers, keyed by the Porter stem; stems do not compete either, so per stem the
   last ``k`` leftover occurrences of each side pair up;
3. **synonym** (on the leftover *stems*, as NLTK does): a hypothesis stem ``h`` takes the last still-unmatched
   reference stem that belongs to ``synonyms(h)`` (the underscore-free lemma names of ``wordnet.synsets(h)``,
   plus ``h``). Here stems do compete, so the stage is replayed in NLTK's order: the leftover hypothesis
   positions that can match anything are visited from last to first through a heap, and a stem whose synonyms
   have no reference position left is dropped (it could not match later either: positions only disappear).

Matches are sorted by hypothesis position; chunks, precision, recall, F-mean and the fragmentation penalty are
computed with the same float operations as ``single_meteor_score``, so scores are equal bit for bit
(``tests/test_meteor.py`` compares with ``meteor_score`` called directly).
"""

from __future__ import annotations

import heapq
import itertools
import math
import sys
from collections import Counter
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from persona_metrics.progress import progress_bar
from persona_metrics.warning import warn

#: NLTK's ``meteor_score`` defaults.
ALPHA, BETA, GAMMA = 0.9, 3.0, 0.5

# Cost model of a METEOR call (seconds, measured on one core of a shared 2-core machine; used only to decide
# whether to warn that a call will be long, never for a result).
#: loading NLTK's WordNet reader, once per process
WORDNET_LOAD_S = 3.5
#: tokenizing and stemming (memoised), per character of text prepared for the first time
PREPARE_S_PER_CHAR = 2.5e-7
#: one WordNet lookup, per unique stem never looked up before
SYNONYMS_S_PER_STEM = 3.5e-4
#: scoring one pair: a fixed part, and a part per character of the shorter text
PAIR_S, PAIR_S_PER_CHAR = 2e-5, 1e-7
#: a call estimated to take longer than this warns (once per distance object), with the estimate
LONG_CALL_S = 30.0


@dataclass(frozen=True, eq=False)
class MeteorText:
    """A text prepared for METEOR (see the module docstring); built by :func:`prepare_tokens`.

    Attributes:
        tokens: the tokens after NLTK's preprocessing (``str.lower``).
        stems: the Porter stem of each token.
        word_positions: token → its positions, ascending.
        stem_positions: stem → the positions of the tokens with that stem, ascending.
        synonym_index: word → the stems of this text whose WordNet synonyms include it (a stem is its own
            synonym).
    """

    tokens: tuple[str, ...]
    stems: tuple[str, ...]
    word_positions: dict[str, list[int]]
    stem_positions: dict[str, list[int]]
    synonym_index: dict[str, list[str]]


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()  # meteor_score's default: NLTK_EXTENSIONS mode


@lru_cache(maxsize=1 << 20)
def porter_stem(word: str) -> str:
    """``PorterStemmer().stem(word)``, meteor_score's default stemmer, memoised per word."""
    return str(_stemmer().stem(word))


@lru_cache(maxsize=1)
def _wordnet() -> Any:
    from nltk.corpus import wordnet

    from persona_metrics.resources import ensure_wordnet

    ensure_wordnet()
    return wordnet


@lru_cache(maxsize=1 << 20)
def wordnet_synonyms(stem: str) -> frozenset[str]:
    """The synonym set NLTK's synonym stage builds for a hypothesis word, memoised per word.

    The lemma names without ``_`` of every synset of ``wordnet.synsets(stem)``, plus ``stem`` itself
    (``_enum_wordnetsyn_match``).
    """
    names = (lemma.name() for synset in _wordnet().synsets(stem) for lemma in synset.lemmas())
    return frozenset(name for name in names if name.find("_") < 0) | {stem}


def wordnet_loaded() -> bool:
    """Whether NLTK's WordNet reader is already loaded in this process (the first lookup costs seconds)."""
    corpus = sys.modules.get("nltk.corpus")
    reader = getattr(corpus, "wordnet", None) if corpus is not None else None
    return reader is not None and type(reader).__name__ != "LazyCorpusLoader"


def prepare_tokens(tokens: Iterable[str]) -> MeteorText:
    """Prepare one text's tokens: lowercase (NLTK's ``preprocess``), stems, position tables, synonym index.

    Args:
        tokens: the text's tokens, as they would be passed to ``meteor_score``.

    Returns:
        The :class:`MeteorText`.
    """
    words = tuple(map(str.lower, tokens))
    stem_of = {word: porter_stem(word) for word in dict.fromkeys(words)}
    stems = tuple(stem_of[word] for word in words)
    word_positions: dict[str, list[int]] = {}
    stem_positions: dict[str, list[int]] = {}
    for pos, (word, stem) in enumerate(zip(words, stems, strict=True)):
        word_positions.setdefault(word, []).append(pos)
        stem_positions.setdefault(stem, []).append(pos)
    synonym_index: dict[str, list[str]] = {}
    for stem in stem_positions:
        for synonym in wordnet_synonyms(stem):
            synonym_index.setdefault(synonym, []).append(stem)
    return MeteorText(words, stems, word_positions, stem_positions, synonym_index)


def prepare_texts(texts: Sequence[str], tokenize: Callable[[str], list[str]]) -> list[MeteorText]:
    """Prepare many texts: tokenize, then stem each new word and look up each new stem once (progress bars).

    Args:
        texts: the texts (non-empty, each once).
        tokenize: text → tokens (the distance's tokenizer).

    Returns:
        One :class:`MeteorText` per text.
    """
    from persona_metrics.resources import ensure_wordnet

    ensure_wordnet()  # every call, as before: cheap once built, and it follows a changed cache directory
    token_lists = [tokenize(text) for text in progress_bar(texts, desc="meteor: tokenizing", unit="text")]
    words = dict.fromkeys(word.lower() for tokens in token_lists for word in tokens)
    stems = dict.fromkeys(porter_stem(word) for word in progress_bar(words, desc="meteor: stemming", unit="word"))
    for stem in progress_bar(stems, desc="meteor: WordNet synonyms", unit="word"):
        wordnet_synonyms(stem)
    return [prepare_tokens(tokens) for tokens in token_lists]


def _last_free(positions: list[int], used: set[int], count: int) -> list[int]:
    """The last ``count`` entries of ``positions`` that are not in ``used``, ascending."""
    out: list[int] = []
    i = len(positions) - 1
    while len(out) < count:
        if positions[i] not in used:
            out.append(positions[i])
        i -= 1
    out.reverse()
    return out


class _Alignment:
    """NLTK's three-stage greedy alignment of one (reference, hypothesis) pair, from prepared texts."""

    def __init__(self, reference: MeteorText, hypothesis: MeteorText) -> None:
        self.ref, self.hyp = reference, hypothesis
        self.matches: list[tuple[int, int]] = []  # (hypothesis position, reference position)
        self.used_hyp: set[int] = set()
        self.used_ref: set[int] = set()
        self.taken: Counter[str] = Counter()  # per stem: positions matched on each side (the same on both)

    def _pair(self, hyp_positions: list[int], ref_positions: list[int], stem: str) -> None:
        self.matches.extend(zip(hyp_positions, ref_positions, strict=True))
        self.used_hyp.update(hyp_positions)
        self.used_ref.update(ref_positions)
        self.taken[stem] += len(hyp_positions)

    def exact(self) -> None:
        """Stage 1: per word, the last ``min(#hyp, #ref)`` occurrences of each side pair up in order."""
        hyp, ref = self.hyp.word_positions, self.ref.word_positions
        for word in hyp if len(hyp) <= len(ref) else ref:
            hyp_pos, ref_pos = hyp.get(word), ref.get(word)
            if hyp_pos and ref_pos:
                k = min(len(hyp_pos), len(ref_pos))
                self._pair(hyp_pos[-k:], ref_pos[-k:], porter_stem(word))

    def stem(self) -> None:
        """Stage 2: per stem, the last ``min`` leftover occurrences of each side pair up in order."""
        hyp, ref = self.hyp.stem_positions, self.ref.stem_positions
        for stem in hyp if len(hyp) <= len(ref) else ref:
            hyp_pos, ref_pos = hyp.get(stem), ref.get(stem)
            if hyp_pos and ref_pos:
                k = min(len(hyp_pos), len(ref_pos)) - self.taken[stem]
                if k > 0:
                    self._pair(_last_free(hyp_pos, self.used_hyp, k), _last_free(ref_pos, self.used_ref, k), stem)

    def _left(self, positions: dict[str, list[int]], stem: str) -> bool:
        return len(positions.get(stem, ())) > self.taken[stem]

    def _candidates(self) -> dict[str, list[str]]:
        """Leftover hypothesis stem → the leftover reference stems among its synonyms (non-empty lists only).

        Enumerated from the shorter side: through the hypothesis's synonym index when the reference is
        shorter, through the synonyms of the hypothesis's leftover stems otherwise (same result).
        """
        hyp, ref = self.hyp.stem_positions, self.ref.stem_positions
        targets: dict[str, list[str]] = {}
        if len(self.ref.tokens) < len(self.hyp.tokens):
            for r in ref:
                if self._left(ref, r):
                    for h in self.hyp.synonym_index.get(r, ()):
                        if self._left(hyp, h):
                            targets.setdefault(h, []).append(r)
        else:
            for h in hyp:
                if self._left(hyp, h):
                    found = [r for r in wordnet_synonyms(h) if self._left(ref, r)]
                    if found:
                        targets[h] = found
        return targets

    def synonym(self) -> None:
        """Stage 3: leftover hypothesis positions from last to first take the last free synonym position."""
        targets = self._candidates()
        if not targets:
            return
        hyp_cursor: dict[str, int] = {}
        ref_cursor: dict[str, int] = {}
        heap: list[tuple[int, str]] = []
        for h in targets:
            self._push(heap, hyp_cursor, h, len(self.hyp.stem_positions[h]) - 1)
        while heap:
            neg_pos, h = heapq.heappop(heap)
            best, best_stem = -1, ""
            for r in targets[h]:
                j = self._ref_top(ref_cursor, r)
                if j > best:
                    best, best_stem = j, r
            if best < 0:
                continue  # nothing left among h's synonyms, now or later: h is done
            self.matches.append((-neg_pos, best))
            self.used_ref.add(best)
            ref_cursor[best_stem] -= 1
            self._push(heap, hyp_cursor, h, hyp_cursor[h] - 1)

    def _push(self, heap: list[tuple[int, str]], cursor: dict[str, int], h: str, i: int) -> None:
        positions = self.hyp.stem_positions[h]
        while i >= 0 and positions[i] in self.used_hyp:
            i -= 1
        cursor[h] = i
        if i >= 0:
            heapq.heappush(heap, (-positions[i], h))

    def _ref_top(self, cursor: dict[str, int], r: str) -> int:
        positions = self.ref.stem_positions[r]
        i = cursor.get(r, len(positions) - 1)
        while i >= 0 and positions[i] in self.used_ref:
            i -= 1
        cursor[r] = i
        return positions[i] if i >= 0 else -1


def align(reference: MeteorText, hypothesis: MeteorText) -> list[tuple[int, int]]:
    """NLTK's alignment (``_enum_align_words``) of two prepared texts.

    Returns:
        The ``(hypothesis position, reference position)`` matches, sorted by hypothesis position.
    """
    alignment = _Alignment(reference, hypothesis)
    alignment.exact()
    alignment.stem()
    alignment.synonym()
    return sorted(alignment.matches)


def count_chunks(matches: Sequence[tuple[int, int]]) -> int:
    """NLTK's ``_count_chunks``: 1 + the number of breaks between consecutive matches."""
    return 1 + sum(1 for (h0, r0), (h1, r1) in itertools.pairwise(matches) if not (h1 == h0 + 1 and r1 == r0 + 1))


def single_meteor_score(
    reference: MeteorText,
    hypothesis: MeteorText,
    alpha: float = ALPHA,
    beta: float = BETA,
    gamma: float = GAMMA,
) -> float:
    """``nltk.translate.meteor_score.single_meteor_score`` on prepared texts, with NLTK's float operations."""
    matches = align(reference, hypothesis)
    matches_count = len(matches)
    translation_length, reference_length = len(hypothesis.tokens), len(reference.tokens)
    try:
        precision = float(matches_count) / translation_length
        recall = float(matches_count) / reference_length
        fmean = (precision * recall) / (alpha * precision + (1 - alpha) * recall)
        chunk_count = float(count_chunks(matches))
        frag_frac = chunk_count / matches_count
    except ZeroDivisionError:
        return 0.0
    penalty = gamma * frag_frac**beta
    return (1 - penalty) * fmean


def meteor_score(references: Sequence[MeteorText], hypothesis: MeteorText) -> float:
    """``nltk.translate.meteor_score.meteor_score``: the best single score over the references."""
    return max(single_meteor_score(reference, hypothesis) for reference in references)


def estimate_seconds(new_chars: int, shorter_chars: Iterable[int], *, load_wordnet: bool) -> float:
    """A rough duration of a METEOR call (for the long-call warning only), from the cost model above.

    Args:
        new_chars: characters of the texts not prepared yet.
        shorter_chars: per unique pair, the length of its shorter text.
        load_wordnet: whether WordNet still has to be loaded.

    New unique stems are estimated with Heaps' law (about ``30·√tokens`` for English, 6 characters a token).
    """
    tokens = new_chars / 6
    stems = min(tokens, 30 * math.sqrt(tokens))
    seconds = WORDNET_LOAD_S if load_wordnet else 0.0
    seconds += new_chars * PREPARE_S_PER_CHAR + stems * SYNONYMS_S_PER_STEM
    return seconds + sum(PAIR_S + n * PAIR_S_PER_CHAR for n in shorter_chars)


def warn_if_long(pairs: Sequence[tuple[str, str]], prepared: Container[str]) -> bool:
    """Warn when a METEOR call over ``pairs`` is estimated to take longer than :data:`LONG_CALL_S`.

    Args:
        pairs: the call's ordered ``(text1, text2)`` pairs (any sequence of pairs; repeated pairs are counted
            as often as they occur, so the estimate errs on the long side).
        prepared: the texts already prepared (the distance's cache).

    Returns:
        Whether a warning was issued.
    """
    texts = {text for pair in pairs for text in pair}
    new_chars = sum(len(text) for text in texts if text not in prepared and text and not text.isspace())
    shorter = (min(len(a), len(b)) for a, b in pairs)
    seconds = estimate_seconds(new_chars, shorter, load_wordnet=not wordnet_loaded())
    if seconds <= LONG_CALL_S:
        return False
    warn(
        f"meteor: scoring {len(pairs):,} pairs with {new_chars:,} characters of new text will take about "
        f"{seconds:,.0f} s (each new word is stemmed and looked up in WordNet once, each pair aligned once); "
        "set PERSONA_METRICS_PROGRESS=1 to see progress"
    )
    return True
