"""The 10 stylometric features of the persona-quality methodology (persona_style card), pure functions of text.

The 7 register markers at the end of this module are this project's: ``method="posterior"`` adds them to the
10 (:func:`style_vector`); ``method="fidelity"`` reads its own 24 features (:func:`fidelity_vector`).

Definitions used throughout:

* **words**: a number with decimal or thousands separators (``4.5``, ``1,200``), or a maximal run of
  letters/digits with an internal apostrophe kept (``we're``, ``company's``);
* **sentences**: NLTK Punkt sentences (offline punkt_tab, :func:`persona_metrics.resources.sent_tokenize`);
* rates "per 100 words" count the character in the raw text and divide by the word count; a period or comma
  between two digits (``4.5``, ``1,200``) is part of a number, not punctuation, and is not counted;
* **Flesch-Kincaid grade**: ``0.39 · words/sentences + 11.8 · syllables/words − 15.59`` (Kincaid et al. 1975)
  on these words and sentences, syllables per word from textstat with CMUdict. (textstat's own grade splits
  sentences at every period, so ``4.5`` or ``U.S.`` would end a sentence and lower the grade of financial
  text by several grades.)

:func:`raw_features` gives the human-readable values; :func:`feature_vector` divides each by a named scale
so all ten live on comparable [0, ~1] ranges before they are treated as a distribution (the scales are the
only free choices; each has its reason next to it).
"""

from __future__ import annotations

import functools
import re

import numpy as np

from persona_metrics.resources import ensure_cmudict, sent_tokenize

#: Feature names, in vector order (the methodology's table order).
STYLE_FEATURES: tuple[str, ...] = (
    "function_word_rate",
    "avg_sentence_length",
    "type_token_ratio",
    "comma_rate",
    "period_rate",
    "exclamation_rate",
    "question_rate",
    "pronoun_rate",
    "flesch_kincaid_grade",
    "avg_word_length",
)
#: Version of the feature definitions; part of every signature and of the centroid cache key.
FEATURE_SET_VERSION = "2"

# Scales (raw value / scale → normalised value):
#: 50 words is the long end of professional sentences (analysts average 25–35), so lengths map to ~[0, 1].
SENTENCE_LENGTH_SCALE = 50.0
#: 10 marks per 100 words is an extreme density for any punctuation mark, so rates map to ~[0, 1].
PUNCTUATION_RATE_SCALE = 10.0
#: Grade 20 is beyond post-graduate text (the methodology's formal analyst is 14+).
FK_GRADE_SCALE = 20.0
#: 10 characters per word is far above English prose (typical 4–6).
WORD_LENGTH_SCALE = 10.0

#: Function words: articles, determiners, prepositions, conjunctions, auxiliary and modal verbs, and common
#: adverbial particles (a standard closed-class list; pronouns are counted separately, see PRONOUNS).
FUNCTION_WORDS: frozenset[str] = frozenset(
    """
    a an the this that these those some any each every either neither no all both few many much more most
    other another such what which whose whichever whatever
    about above across after against along amid among around as at before behind below beneath beside besides
    between beyond by despite down during except for from in inside into like near of off on onto out outside
    over past per since than through throughout till to toward towards under underneath unlike until up upon
    versus via with within without
    and but or nor so yet because although though while whereas if unless whether once whenever where wherever
    when how why then also however therefore thus hence moreover furthermore nevertheless
    am is are was were be been being have has had having do does did doing will would shall should can could
    may might must ought
    not very too quite rather just only even still already again there here
    """.split()
)
#: Personal and possessive pronouns (first, second and third person; subject, object, possessive, reflexive).
PRONOUNS: frozenset[str] = frozenset(
    """
    i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his himself she her
    hers herself it its itself they them their theirs themselves
    """.split()
)

_WORD = re.compile(r"\d+(?:[.,]\d+)+|[^\W_]+(?:['’][^\W_]+)*")
_IN_NUMBER = re.compile(r"(?<=\d)[.,](?=\d)")
#: Flesch-Kincaid grade-level coefficients (Kincaid, Fishburne, Rogers & Chissom 1975, eq. for the grade).
FK_SENTENCE_WEIGHT, FK_SYLLABLE_WEIGHT, FK_INTERCEPT = 0.39, 11.8, -15.59


def words(text: str) -> list[str]:
    """The words of ``text`` (letters/digits with internal apostrophes), as written."""
    return _WORD.findall(text)


def is_wordless(text: str) -> bool:
    """Whether ``text`` has no word (empty, whitespace-only or only punctuation: ``"!!!"``).

    Style features are undefined for such a text: the style scorers refuse it, or score it 0 with ``empty="zero"``.
    """
    return not words(text)


def _check(text: object) -> str:
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    if is_wordless(text):
        raise ValueError("text has no words: style features are undefined for an empty text")
    return text


@functools.lru_cache(maxsize=16)
def sentences(text: str) -> tuple[str, ...]:
    """The Punkt sentences of ``text`` that hold a word (kept for the last few texts).

    The features of one text (:func:`raw_features`, :func:`raw_extras`, :func:`excerpts`) split it once.
    """
    return tuple(s for s in sent_tokenize(text) if words(s))


@functools.lru_cache(maxsize=65536)
def syllables(word: str) -> int:
    """Syllables of one word: textstat's count, CMUdict first (pinned offline, see resources)."""
    import textstat

    ensure_cmudict()
    return int(textstat.syllable_count(word))


def flesch_kincaid_grade(n_words: int, n_sentences: int, n_syllables: int) -> float:
    """Flesch-Kincaid grade level from the three counts (Kincaid et al. 1975).

    >>> round(flesch_kincaid_grade(19, 2, 32), 2)  # "The quick brown fox ... to understand." (2 sentences)
    7.99
    """
    return FK_SENTENCE_WEIGHT * n_words / n_sentences + FK_SYLLABLE_WEIGHT * n_syllables / n_words + FK_INTERCEPT


def raw_features(text: str) -> dict[str, float]:
    """The 10 features in their natural units.

    Raises:
        TypeError: ``text`` is not a string.
        ValueError: ``text`` has no words.
    """
    _check(text)
    toks = words(text)
    lower = [t.lower().replace("’", "'") for t in toks]
    n = len(toks)
    n_sentences = max(1, len(sentences(text)))
    per100 = 100.0 / n
    in_number = _IN_NUMBER.findall(text)
    return {
        "function_word_rate": sum(t in FUNCTION_WORDS for t in lower) / n,
        "avg_sentence_length": n / n_sentences,
        "type_token_ratio": len(set(lower)) / n,
        "comma_rate": (text.count(",") - in_number.count(",")) * per100,
        "period_rate": (text.count(".") - in_number.count(".")) * per100,
        "exclamation_rate": text.count("!") * per100,
        "question_rate": text.count("?") * per100,
        "pronoun_rate": sum(t in PRONOUNS for t in lower) / n,
        "flesch_kincaid_grade": flesch_kincaid_grade(n, n_sentences, sum(syllables(t) for t in lower)),
        "avg_word_length": sum(len(t) for t in toks) / n,
    }


_SCALES = {
    "avg_sentence_length": SENTENCE_LENGTH_SCALE,
    "comma_rate": PUNCTUATION_RATE_SCALE,
    "period_rate": PUNCTUATION_RATE_SCALE,
    "exclamation_rate": PUNCTUATION_RATE_SCALE,
    "question_rate": PUNCTUATION_RATE_SCALE,
    "flesch_kincaid_grade": FK_GRADE_SCALE,
    "avg_word_length": WORD_LENGTH_SCALE,
}


def normalise(raw: dict[str, float]) -> np.ndarray:
    """Raw features → the non-negative normalised vector (rates and ratios as they are; others / scale).

    A negative Flesch-Kincaid grade (possible for very simple text) is clipped to 0.
    """
    return np.array([max(0.0, raw[name]) / _SCALES.get(name, 1.0) for name in STYLE_FEATURES])


def feature_vector(text: str) -> np.ndarray:
    """The normalised 10-vector of ``text`` (order :data:`STYLE_FEATURES`)."""
    return normalise(raw_features(text))


# --- register markers (the ``posterior`` method's features beyond the 10) ------------------------------------------
#: Register markers, in vector order after :data:`STYLE_FEATURES`: per 100 words, how often a text speaks as
#: "I", as an institutional "we", to "you", attributes speech, quotes, takes a hedged analytical stance, and anchors
#: events to a day (``docs/style.md`` §4.7). ``method="posterior"`` and ``fidelity`` use them; the methodology's 10
#: features, their centroids and the ``jsd`` / ``zscore`` methods are unchanged.
REGISTER_MARKERS: tuple[str, ...] = (
    "first_singular_rate",
    "first_plural_rate",
    "second_person_rate",
    "reporting_rate",
    "quotation_rate",
    "stance_rate",
    "weekday_rate",
)
#: The word lists of the word-counting markers (lowercased words, ``’`` read as ``'``).
MARKER_WORDS: dict[str, frozenset[str]] = {
    "first_singular_rate": frozenset("i me my mine myself i'm i've i'd i'll".split()),
    "first_plural_rate": frozenset("we us our ours ourselves we're we've we'd we'll".split()),
    "second_person_rate": frozenset("you your yours yourself yourselves you're you've you'd you'll".split()),
    "reporting_rate": frozenset("said says told according added stated".split()),
    "stance_rate": frozenset(
        "view expect expects expected likely unlikely risk risks appear appears could may might believe estimate "
        "estimates assume assumption see caution".split()
    ),
    "weekday_rate": frozenset("monday tuesday wednesday thursday friday saturday sunday yesterday".split()),
}
#: Quotation marks counted by ``quotation_rate`` (straight and curly double quotes).
QUOTATION_MARKS = ('"', "\u201c", "\u201d")


def raw_markers(text: str) -> dict[str, float]:
    """The register markers of ``text`` in their natural unit (occurrences per 100 words).

    Raises:
        TypeError: ``text`` is not a string.
        ValueError: ``text`` has no words.
    """
    _check(text)
    lower = [t.lower().replace("’", "'") for t in words(text)]
    per100 = 100.0 / len(lower)
    counts = {name: sum(t in listed for t in lower) for name, listed in MARKER_WORDS.items()}
    counts["quotation_rate"] = sum(text.count(mark) for mark in QUOTATION_MARKS)
    return {name: counts[name] * per100 for name in REGISTER_MARKERS}


def style_vector(text: str) -> np.ndarray:
    """The 10 normalised features of ``text`` followed by its 7 register markers (rates / 10 per 100 words).

    The first 10 values are :func:`feature_vector`'s, bit for bit; the markers use the punctuation rates' scale.
    """
    markers = raw_markers(text)
    return np.concatenate(
        [feature_vector(text), np.array([markers[name] / PUNCTUATION_RATE_SCALE for name in REGISTER_MARKERS])]
    )


# --- the ``fidelity`` method's features ----------------------------------------------------------------------------
#: Features the ``fidelity`` method reads (``docs/style.md`` §4.8), in vector order: the methodology's features but
#: ``type_token_ratio`` (its value falls with length whatever the register: 0.8 at 30 words, 0.6 at 200), the 7
#: register markers, then 8 marks of the registers that are none of the personas (chat, legal, academic, recipes …):
#: contractions, tokens holding a digit, capitalised words inside a sentence, brackets, colons and semicolons, line
#: breaks, salutations and casual words. Every one is a mean over the text's words or sentences, which is what the
#: method's length model assumes.
FIDELITY_EXTRAS: tuple[str, ...] = (
    "contraction_rate",
    "digit_rate",
    "capital_rate",
    "bracket_rate",
    "colon_rate",
    "line_break_rate",
    "salutation_rate",
    "casual_rate",
)
FIDELITY_FEATURES: tuple[str, ...] = (
    *(name for name in STYLE_FEATURES if name != "type_token_ratio"),
    *REGISTER_MARKERS,
    *FIDELITY_EXTRAS,
)
#: Word endings and words counted by ``contraction_rate`` (lowercased, ``’`` read as ``'``).
CONTRACTION_ENDINGS: tuple[str, ...] = ("n't", "'re", "'ve", "'ll", "'d", "'m")
CONTRACTION_WORDS: frozenset[str] = frozenset("it's that's there's what's he's she's let's here's who's".split())
#: Words of a letter or a message's opening and closing (``salutation_rate``) and of casual speech
#: (``casual_rate``: interjections, address to a group, spoken intensifiers).
SALUTATION_WORDS: frozenset[str] = frozenset("hi hello hey dear thanks thank please regards cheers sincerely".split())
CASUAL_WORDS: frozenset[str] = frozenset(
    "ok okay yeah yep nope wow lol omg guys folks honestly literally totally seriously basically super "
    "awesome amazing crazy huge gonna wanna".split()
)


def raw_extras(text: str) -> dict[str, float]:
    """The 8 extra marks of :data:`FIDELITY_EXTRAS` in their natural units.

    ``contraction_rate``, ``digit_rate``, ``capital_rate`` (a capitalised word that opens a Punkt sentence is not
    counted), ``salutation_rate`` and ``casual_rate`` are shares of the words; ``bracket_rate`` (``(`` and ``[``),
    ``colon_rate`` (``:`` and ``;``) and ``line_break_rate`` (line breaks inside the stripped text) are per 100
    words.

    Raises:
        TypeError: ``text`` is not a string.
        ValueError: ``text`` has no words.
    """
    _check(text)
    toks = words(text)
    n = len(toks)
    lower = [t.lower().replace("’", "'") for t in toks]
    openers = sum(1 for s in sentences(text) if words(s)[0][:1].isupper())
    capitals = sum(1 for t in toks if t[:1].isupper())
    return {
        "contraction_rate": sum(t.endswith(CONTRACTION_ENDINGS) or t in CONTRACTION_WORDS for t in lower) / n,
        "digit_rate": sum(any(c.isdigit() for c in t) for t in toks) / n,
        "capital_rate": max(0, capitals - openers) / n,
        "bracket_rate": (text.count("(") + text.count("[")) * 100.0 / n,
        "colon_rate": (text.count(":") + text.count(";")) * 100.0 / n,
        "line_break_rate": len(text.strip().splitlines()[1:]) * 100.0 / n,
        "salutation_rate": sum(t in SALUTATION_WORDS for t in lower) / n,
        "casual_rate": sum(t in CASUAL_WORDS for t in lower) / n,
    }


def fidelity_vector(text: str, style: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """The ``fidelity`` method's features of ``text`` (order :data:`FIDELITY_FEATURES`) and its number of words.

    The methodology's features as :func:`feature_vector` normalises them (``type_token_ratio`` left out), the
    register markers as :func:`style_vector` scales them, the shares of :func:`raw_extras` as they are and its
    per-100-word rates divided by 10 like the punctuation rates. ``style``: the text's :func:`style_vector`, when
    already computed.
    """
    style = style_vector(text) if style is None else style
    extras = raw_extras(text)
    per100 = {"bracket_rate", "colon_rate", "line_break_rate"}
    values = [
        v for name, v in zip((*STYLE_FEATURES, *REGISTER_MARKERS), style, strict=True) if name != "type_token_ratio"
    ]
    values += [extras[name] / (PUNCTUATION_RATE_SCALE if name in per100 else 1.0) for name in FIDELITY_EXTRAS]
    return np.array(values, dtype=np.float64), len(words(text))


def excerpts(text: str, lengths: tuple[int, ...]) -> list[str]:
    """Sentence-prefix excerpts of ``text``, each once: per length, the shortest prefix of at least that many words.

    Prefixes are of Punkt sentences; one as long as the whole text is left out.

    >>> excerpts("One two three. Four five six. Seven eight.", (2, 4, 9))
    ['One two three.', 'One two three. Four five six.']
    """
    parts = sentences(text)
    total = len(words(text))
    out: list[str] = []
    for length in lengths:
        count, prefix = 0, []
        for sentence in parts:
            prefix.append(sentence)
            count += len(words(sentence))
            if count >= length:
                break
        if count >= length and count < total and " ".join(prefix) not in out:
            out.append(" ".join(prefix))
    return out
