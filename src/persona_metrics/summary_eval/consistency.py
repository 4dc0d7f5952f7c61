"""SummaryEval's offline consistency check: the share of a summary's checkable facts that its source supports.

A *checkable fact* is a figure or a name written in the summary: a number (digits, "1,400", "2.4bn", "$2,400m",
number words such as "seven" or "twenty-five"), a percentage, a date ("March 3, 2025", "3 March", "March 2025",
"2025-03-03"), a year, or a named entity found by a capitalised-token heuristic (no model: spaCy and its
pipelines are not installed here, and nothing is downloaded). Each is normalised, so that "$2.4bn",
"2.4 billion dollars", "$2,400m" and "2.4bn" are one value, "12%", "12 percent" and "12 per cent" one percentage,
"seven" and "7" one number, "March 3, 2025" and "3 March 2025" one date (``docs/summary_eval.md`` §2.2).

``consistency = supported / checkable`` over the summary's distinct facts; **1.0 when the summary has no
checkable fact** (nothing it states can be checked this way, so nothing is counted against it). The check sees
only surface figures and names: a reversed relation ("A bought B" for "B bought A"), a paraphrased or computed
fact, or a negation is not seen.

>>> source = ("Valtro Group said on March 3, 2025 that revenue rose 12 percent to 2.4 billion dollars. "
...           "Chief executive Dana Ortiz said seven plants would close.")
>>> check("Valtro's revenue rose 12% to $2,400m, Ortiz said on 3 March 2025; 7 plants will close.", source)
Consistency(score=1.0, checked=6, unsupported=())
>>> check("Valtro's revenue rose 13% to $2.4bn, Dana Morales said.", source)
Consistency(score=0.5, checked=4, unsupported=('13%', 'Dana Morales'))
>>> check("Revenue rose sharply.", source)  # no checkable fact: 1.0
Consistency(score=1.0, checked=0, unsupported=())
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from persona_metrics.summary_eval.formulas import LIST_ITEM
from persona_metrics.text_services import MONTH_NAMES, NLTK_ENGLISH_STOPWORDS, WEEKDAY_NAMES

# --- the vocabulary ----------------------------------------------------------------------------------------------
#: Scale words after a number ("2.4 billion").
SCALE_WORDS: dict[str, float] = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
#: Scale suffixes written against the number ("2.4bn", "$5m", "$50k"); "bn", "mn", "mln", "tn" and "trn" may
#: also follow a space ("2.4 bn"). "m" is read as million (news style), never as metres. In capitals ("$2.4B",
#: "$5M", "$3BN") only after a currency: "5M" alone may be a product or a size and is no fact.
SCALE_SUFFIXES: dict[str, float] = {
    "k": 1e3, "m": 1e6, "mn": 1e6, "mln": 1e6, "b": 1e9, "bn": 1e9, "t": 1e12, "tn": 1e12, "trn": 1e12,
}  # fmt: skip
#: Number words read as numbers. "one" only inside a compound ("one hundred", "one million"): on its own it is a
#: pronoun or a determiner far more often than a figure.
UNIT_WORDS: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19,
}  # fmt: skip
TENS_WORDS: dict[str, int] = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
#: Ordinals and fractions: a number word hyphenated to one of them ("twenty-fifth", "two-thirds") is no number.
ORDINAL_WORDS: frozenset[str] = frozenset(
    """
    first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth
    sixteenth seventeenth eighteenth nineteenth twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth
    ninetieth hundredth thousandth millionth billionth half halves quarter
    """.split()
)
#: Month names (capitalised, as written in dates) and their numbers; abbreviations may carry a full stop.
MONTHS: dict[str, int] = {name: k + 1 for k, name in enumerate(MONTH_NAMES)} | {
    "Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "Jun": 6, "Jul": 7, "Aug": 8, "Sep": 9, "Sept": 9, "Oct": 10, "Nov": 11,
    "Dec": 12,
}  # fmt: skip
#: Capitalised words that are never entities: months, weekdays (time, checked as dates when they carry a day or
#: year) and generic acronyms of business news.
NOT_ENTITIES: frozenset[str] = frozenset(
    {m.lower() for m in MONTHS}
    | {day.lower() for day in WEEKDAY_NAMES}
    | {"ceo", "cfo", "coo", "cto", "ipo", "gdp", "ai", "ev", "evs", "tv", "pm", "am", "ok", "q1", "q2", "q3", "q4"}
)
#: Words that open sentences without naming anything, besides NLTK's 179 English stop words: connectives and
#: references (the discourse markers of the coherence score and its list of openings that need a predecessor),
#: and common openers of news sentences. A capitalised word at a sentence start is an entity only when it is
#: in neither list and is not written in lower case anywhere in the summary or its source.
COMMON_OPENERS: frozenset[str] = frozenset(
    """
    however meanwhile moreover furthermore additionally also therefore thus consequently hence then next later
    finally eventually previously earlier initially ultimately currently now still yet instead nevertheless
    nonetheless similarly likewise indeed overall altogether separately elsewhere despite although though while
    whereas because since after before during until once unless if when where whether as so but and or nor
    for in on at by from with without within about above below under over among between into onto upon
    the a an this that these those it its they their them he she his her we our you your i there here such both
    each every all some many most much more less few several other another any no none not only even just
    analysts investors officials executives shares sales revenue profit profits prices costs demand output
    earnings growth workers customers residents experts critics officers police lawmakers regulators
    according asked speaking last first second third new top major total annual quarterly full half net
    amid amidst unlike like following including excluding citing using regarding concerning considering given via
    against across along beyond toward towards besides except throughout alongside behind beside barring pending
    chief executive president chairman director spokesman spokeswoman spokesperson minister mayor governor
    company companies group firm bank government city state country market markets report reports
    """.split()
)
#: Titles and forms of address: dropped from a name's words ("Chief Executive Dana Ortiz" is checked as Dana
#: Ortiz), so that a source writing "CEO Dana Ortiz" or "Ms Ortiz" still supports it.
TITLE_WORDS: frozenset[str] = frozenset(
    """
    chief executive officer president vice chairman chairwoman chair director minister prime secretary mayor
    governor senator judge general manager founder spokesman spokeswoman spokesperson mr mrs ms dr prof sir
    sen rep gov gen
    """.split()
)
#: Abbreviated titles whose full stop ends no sentence ("Mr. Jones": Jones does not open a sentence).
ABBREVIATED_TITLES: frozenset[str] = frozenset("Mr Mrs Ms Dr Prof St Gen Sen Rep Gov".split())
_CONNECTORS = frozenset({"of", "&", "de", "du", "van", "von", "der", "la", "le", "del", "da"})
#: What may stand between two capitalised words of one name: spaces (never a line break), a hyphen, or a connector
#: between spaces.
_JOIN = re.compile(r"[^\S\r\n]+|-|[^\S\r\n]+(?:" + "|".join(sorted(_CONNECTORS)) + r")[^\S\r\n]+")

# --- the patterns ------------------------------------------------------------------------------------------------
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
#: Date patterns, tried in this order (the first match of a stretch of text wins): month day, year; day month
#: year; month year; month day; day month; ISO year-month-day.
_DATE_PATTERNS = tuple(
    re.compile(p)
    for p in (
        rf"\b{_MONTH}\s+{_DAY}(?:,\s*|\s+){_YEAR}\b",
        rf"(?<![\w.,]){_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b",
        rf"\b{_MONTH},?\s+{_YEAR}\b",
        rf"\b{_MONTH}\s+{_DAY}\b(?!,?\s*(?!\d{{1,3}}(?:,\d{{3}})+\b)\d)",  # "2,000" after it is no year
        rf"(?<![\w.,]){_DAY}\s+(?:of\s+)?{_MONTH}(?![\w])",
        r"(?<![\w.,-])(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})(?![\w-])",
    )
)
#: A percent sign or word after a number ("12%", "12 per cent", "3 percentage points").
_PERCENT = r"\s?%|\s+(?:percent|per\s+cent|pct|percentage\s+points?)\b"
_CURRENCY = r"(?:[A-Z]{0,2}\$|€|£|¥|(?:USD|EUR|GBP|JPY|CHF|CAD|AUD)\s?)"
_NUMBER = re.compile(
    rf"(?<![\w.,])(?P<sign>[-−](?=\d))?(?P<cur>{_CURRENCY})?(?P<int>\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.(?P<dec>\d+))?"
    r"(?:(?P<suffix>k|m|mn|mln|bn|b|tn|trn|t)\b|(?(cur)(?P<upper>K|M|MN|MLN|BN|B|TN|TRN|T)\b|(?!))"
    r"|\s(?P<spaced>bn|mn|mln|trn|tn)\b|\s+(?P<scale>thousand|million|billion|trillion)\b)?"
    rf"(?P<pct>{_PERCENT})?"
    r"(?![A-Za-z0-9])"
)
_PERCENT_AFTER = re.compile(_PERCENT)
#: Between the two numbers of a range ("3 to 4 million", "5-10%", "5–10%").
_RANGE = re.compile(r"\s*[-–]\s*|\s+to\s+")
_NUMERAL = "|".join(sorted(UNIT_WORDS.keys() | TENS_WORDS.keys() | SCALE_WORDS.keys() | {"hundred"}))
#: A run of number words joined by spaces or hyphens, "and" after "hundred" or a scale word before a unit or tens
#: word ("two hundred and fifty"); not hyphenated to an ordinal or a fraction ("twenty-fifth", "two-thirds").
_NUMBER_WORDS = re.compile(
    rf"(?<![\w-])(?:{_NUMERAL})(?:(?:\s+|-|(?:(?<=hundred)|(?<=thousand)|(?<=million)|(?<=billion)|(?<=trillion))"
    rf"\s+and\s+(?=(?:{'|'.join(sorted(UNIT_WORDS.keys() | TENS_WORDS.keys()))})\b))(?:{_NUMERAL}))*\b"
    rf"(?!-(?:{'|'.join(sorted(ORDINAL_WORDS))})s?\b)",
    re.IGNORECASE,
)
#: Word tokens: dotted acronyms ("U.S.") or letters (any script) and digits with an optional apostrophe part
#: ("Valtro's", "García").
_WORD = re.compile(r"(?:[^\W\d_]\.){2,}|[^\W_]+(?:['’][^\W\d_]+)?")
#: What may stand between a sentence break and the sentence's first word (quotes, brackets, Markdown's # and *).
_OPENING_MARKS = " \t\"'“‘([#*"


@dataclass(frozen=True)
class Fact:
    """One checkable fact of a text.

    Attributes:
        kind: ``"number"`` (a year too), ``"percent"``, ``"date"`` or ``"entity"``.
        text: as written.
        value: a number or percentage's value (scale applied: "$2.4bn" is 2.4e9).
        unit: the place value of its last written digit, scale applied ("2.4bn": 1e8, "1,400": 1): a source
            value within half of it supports the figure (the summary rounded it).
        date: ``(year, month, day)``, year or day None when not written.
        tokens: an entity's words, lower case, without possessive ("Valtro's" is ``valtro``).
    """

    kind: str
    text: str
    value: float = 0.0
    unit: float = 1.0
    date: tuple[int | None, int, int | None] | None = None
    tokens: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[object, ...]:
        """What makes two facts one (the kind and the normalised value)."""
        if self.kind == "entity":
            return (self.kind, self.tokens)
        if self.kind == "date":
            return (self.kind, self.date)
        return (self.kind, self.value)


@dataclass(frozen=True)
class Consistency:
    """The consistency check of one summary.

    Attributes:
        score: supported / checkable facts, in [0, 1]; 1.0 without a checkable fact.
        checked: the number of distinct checkable facts.
        unsupported: the facts the source does not support, as written in the summary, in text order.
    """

    score: float
    checked: int
    unsupported: tuple[str, ...]


# --- normalisation -----------------------------------------------------------------------------------------------
def normalise_word(word: str) -> str:
    """Lower case, a possessive ending and the dots of an acronym removed.

    >>> normalise_word("Valtro's"), normalise_word("Norlund’s"), normalise_word("U.S."), normalise_word("O'Brien")
    ('valtro', 'norlund', 'us', "o'brien")
    """
    lower = word.lower().replace("’", "'")
    if lower.endswith("'s"):
        lower = lower[:-2]
    return lower.replace(".", "")


def number_value(integer: str, decimals: str | None = None, scale: float = 1.0) -> tuple[float, float]:
    """``(value, unit)`` of a written number: thousands commas dropped, the scale applied.

    >>> number_value("1,400"), number_value("2", "4", 1e9), number_value("2,400", None, 1e6)
    ((1400.0, 1.0), (2400000000.0, 100000000.0), (2400000000.0, 1000000.0))
    """
    digits = integer.replace(",", "")
    places = len(decimals) if decimals else 0
    value = float(f"{digits}.{decimals}") if decimals else float(digits)
    return value * scale, 10.0**-places * scale


def words_value(words: Sequence[str]) -> tuple[float, float] | None:
    """``(value, unit)`` of a run of number words ("twenty-five", "two hundred", "seven million"), or None.

    >>> words_value(["seven"]), words_value(["twenty-five"]), words_value(["two", "hundred", "thousand"])
    ((7.0, 1.0), (25.0, 1.0), (200000.0, 1000.0))
    >>> words_value(["one"]) is None, words_value(["one", "million"])
    (True, (1000000.0, 1000000.0))
    """
    total, current, unit, seen = 0.0, 0.0, 1.0, False
    for word in words:
        for part in word.lower().split("-"):
            if part in UNIT_WORDS:
                current += UNIT_WORDS[part]
            elif part in TENS_WORDS:
                current += TENS_WORDS[part]
            elif part == "hundred":
                current = max(current, 1.0) * 100
            elif part in SCALE_WORDS:
                total += max(current, 1.0) * SCALE_WORDS[part]
                unit = SCALE_WORDS[part]
                current = 0.0
            else:
                return None
            seen = True
    value = total + current
    if not seen or (len(words) == 1 and words[0].lower() == "one"):
        return None
    return value, (1.0 if current else unit)


# --- extraction --------------------------------------------------------------------------------------------------
def _dates(text: str) -> tuple[list[tuple[int, Fact]], list[tuple[int, int]]]:
    """The dates of ``text`` (with their start) and the spans they take."""
    found: list[tuple[int, Fact]] = []
    spans: list[tuple[int, int]] = []
    taken = bytearray(len(text))  # 1 where an earlier date lies
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            if any(taken[match.start() : match.end()]):
                continue
            parts = match.groupdict()
            month = int(parts["month"]) if parts["month"].isdigit() else MONTHS[parts["month"]]
            day = int(parts["day"]) if parts.get("day") else None
            year = int(parts["year"]) if parts.get("year") else None
            if not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
                continue
            found.append((match.start(), Fact("date", match.group(0), date=(year, month, day))))
            spans.append(match.span())
            taken[match.start() : match.end()] = b"\x01" * (match.end() - match.start())
    return found, spans


def _masked(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with the spans blanked (offsets kept)."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _scale(match: re.Match[str]) -> float:
    """The scale that a number's suffix or scale word gives it (1.0 without one)."""
    suffix = match["suffix"] or match["upper"] or match["spaced"]
    return SCALE_SUFFIXES[suffix.lower()] if suffix else SCALE_WORDS[match["scale"]] if match["scale"] else 1.0


def _numbers(text: str) -> tuple[list[tuple[int, Fact]], list[tuple[int, int]]]:
    """The written numbers and percentages of ``text`` (dates already blanked).

    A leading minus sign counts. In a range "A to B", "A-B" or "A–B" whose A has neither scale nor percent, A takes
    B's ("3 to 4 million": 3e6; "5-10%": 5%), unless A is a four-digit whole number (a year: "in 2024 to 5m").
    """
    found: list[tuple[int, Fact]] = []
    spans: list[tuple[int, int]] = []
    matches = list(_NUMBER.finditer(text))
    for k, match in enumerate(matches):
        after = matches[k + 1] if k + 1 < len(matches) else None
        scale, percent = _scale(match), match["pct"]
        bare = scale == 1.0 and not percent and (len(match["int"]) != 4 or match["dec"])
        if bare and after and _RANGE.fullmatch(text, match.end(), after.start()):
            scale, percent = _scale(after), after["pct"]
        value, unit = number_value(match["int"], match["dec"], scale)
        kind = "percent" if percent else "number"
        found.append((match.start(), Fact(kind, match.group(0).strip(), -value if match["sign"] else value, unit)))
        spans.append(match.span())
    return found, spans


def _number_words(text: str) -> tuple[list[tuple[int, Fact]], list[tuple[int, int]]]:
    """Runs of number words (:data:`_NUMBER_WORDS`), with a following percent sign or word.

    A run hyphenated to another word is still read ("seven-year": 7); a run that opens with a scale word or
    "hundred" ("a million") is not.
    """
    found: list[tuple[int, Fact]] = []
    spans: list[tuple[int, int]] = []
    for match in _NUMBER_WORDS.finditer(text):
        words = [w for w in re.split(r"[\s-]+", match.group(0).lower()) if w != "and"]
        parsed = words_value(words)
        if parsed is None or words[0] in SCALE_WORDS or words[0] == "hundred":
            continue
        percent = _PERCENT_AFTER.match(text, match.end())
        end = percent.end() if percent else match.end()
        found.append((match.start(), Fact("percent" if percent else "number", text[match.start() : end], *parsed)))
        spans.append((match.start(), end))
    return found, spans


def _at_sentence_start(text: str, start: int) -> bool:
    """Whether ``start`` opens a sentence.

    Only spaces, opening quotes, brackets, ``#`` or ``*`` stand between it and the text's start, a line break or a
    ``.``, ``!``, ``?``, ``:`` or ``;``; a ``.`` after an abbreviated title (:data:`ABBREVIATED_TITLES`) ends none.

    >>> _at_sentence_start('He left. "Valtro', 10), _at_sentence_start("Sales at Valtro", 9)
    (True, False)
    >>> _at_sentence_start("## Valtro", 3), _at_sentence_start("Mr. Jones", 4)
    (True, False)
    """
    i = start
    while i > 0 and text[i - 1] in _OPENING_MARKS:
        i -= 1
    if i == 0 or text[i - 1] in "!?:;\n":
        return True
    j = i - 1
    while j > 0 and text[j - 1].isalnum():
        j -= 1
    return text[i - 1] == "." and text[j : i - 1] not in ABBREVIATED_TITLES


def _entities(text: str, masked: str, common: frozenset[str], names: frozenset[str]) -> list[tuple[int, Fact]]:
    """Runs of capitalised words that are not common words: the entities of ``text``.

    The words are read in ``masked`` (``text`` with its figures blanked), joined over a space, a hyphen or a
    connector ("of", "&", "de", …), never over a line break; sentence starts are read in ``text``. A word at a
    sentence start is dropped, and joins no name ("Following Valtro's" is Valtro's), when it is common
    (:data:`COMMON_OPENERS`, NLTK's stop words, ``common``); alone (not joined to another capitalised word) it
    counts only when possessive ("Valtro's") or among ``names``, the words written capitalised inside a sentence:
    "Fishing groups object" names nothing, "Halden recalled" names Halden when the source writes "shares of
    Halden".
    """
    runs: list[list[re.Match[str]]] = [[]]
    opening: set[int] = set()
    for match in _WORD.finditer(masked):
        word = match.group(0)
        lower = normalise_word(word)
        capitalised = word[0].isupper() and len(lower) > 1 and lower not in NOT_ENTITIES
        if capitalised and _at_sentence_start(text, match.start()):
            capitalised = lower not in common and lower not in NLTK_ENGLISH_STOPWORDS and lower not in COMMON_OPENERS
            opening.add(match.start())
        if not capitalised:
            if lower not in _CONNECTORS and runs[-1]:
                runs.append([])
            continue
        if runs[-1] and not _JOIN.fullmatch(masked[runs[-1][-1].end() : match.start()]):
            runs.append([])
        runs[-1].append(match)
    found = []
    for run in runs:
        if len(run) == 1 and run[0].start() in opening:
            word = run[0].group(0).replace("’", "'")
            if not word.lower().endswith("'s") and normalise_word(word) not in names:
                continue
        named = [m for m in run if normalise_word(m.group(0)) not in TITLE_WORDS]
        if named:
            tokens = tuple(normalise_word(m.group(0)) for m in named)
            found.append((named[0].start(), Fact("entity", text[named[0].start() : named[-1].end()], tokens=tokens)))
    return found


def lower_case_words(text: str) -> frozenset[str]:
    """The words written in lower case in ``text`` (a capitalised word among them is a common word there)."""
    return frozenset(w for w in (m.group(0) for m in _WORD.finditer(text)) if w.islower())


def inner_names(text: str) -> frozenset[str]:
    """The words written capitalised inside a sentence of ``text`` (not at its start), normalised.

    >>> sorted(inner_names("Fishing groups in Marrow Bay object. Shares of Halden's unit fell."))
    ['bay', 'halden', 'marrow']
    """
    return frozenset(
        normalise_word(m.group(0))
        for m in _WORD.finditer(text)
        if m.group(0)[0].isupper() and not _at_sentence_start(text, m.start())
    )


def facts(text: str, common: Iterable[str] = (), names: Iterable[str] = ()) -> list[Fact]:
    """The distinct checkable facts of ``text``, in text order.

    Args:
        text: the text.
        common: more words (lower case) that are not entities at a sentence start (the source's lower-case words).
        names: more words (normalised) written capitalised inside a sentence (the source's :func:`inner_names`).

    An entity whose words all belong to another entity of the text ("Ortiz" after "Dana Ortiz") is that one.

    >>> [(f.kind, f.text) for f in facts("On March 3, 2025 Valtro's sales rose 12 per cent to $2.4bn in Ohio.")]
    [('date', 'March 3, 2025'), ('entity', "Valtro's"), ('percent', '12 per cent'), ('number', '$2.4bn'), \
('entity', 'Ohio')]
    >>> [f.text for f in facts("Dana Ortiz, chief of Bank of Erlen, said Ortiz would hire twenty-five people.")]
    ['Dana Ortiz', 'Bank of Erlen', 'twenty-five']
    >>> [f.text for f in facts("Fishing groups object. Halden fell.")]
    []
    >>> [f.text for f in facts("Halden fell.", names=["halden"])]  # the source writes it inside a sentence
    ['Halden']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    text = without_list_markers(text)
    figures, rest = _figures(text)
    common = frozenset(common) | lower_case_words(text)
    entities = _entities(text, rest, common, frozenset(names) | inner_names(text))
    found = sorted([*figures, *entities], key=lambda item: item[0])
    longer = _within_longer_names([f.tokens for _, f in entities])
    out: list[Fact] = []
    seen: set[tuple[object, ...]] = set()
    for _, fact in found:
        if fact.kind == "entity" and frozenset(fact.tokens) in longer:
            continue
        if fact.key not in seen:
            seen.add(fact.key)
            out.append(fact)
    return out


def without_list_markers(text: str) -> str:
    r"""``text`` with the marker of each list item blanked (offsets kept): "1.", "2)", "-", "•" are no facts.

    The markers are those of :data:`~persona_metrics.summary_eval.formulas.LIST_ITEM`.

    >>> without_list_markers("1. Sales rose 5%.\n- Costs fell.")
    '   Sales rose 5%.\n  Costs fell.'
    """
    spans, offset = [], 0
    for line in text.splitlines(keepends=True):
        if item := LIST_ITEM.match(line):
            spans.append((offset + item.end(1), offset + item.start(2)))
        offset += len(line)
    return _masked(text, spans)


def _figures(text: str) -> tuple[list[tuple[int, Fact]], str]:
    """The dates, numbers, percentages and number words of ``text`` (with their starts), and the text without them."""
    dates, spans = _dates(text)
    rest = _masked(text, spans)
    numbers, number_spans = _numbers(rest)
    rest = _masked(rest, number_spans)
    words, word_spans = _number_words(rest)
    return [*dates, *numbers, *words], _masked(rest, word_spans)


def _within_longer_names(names: Sequence[tuple[str, ...]]) -> set[frozenset[str]]:
    """The names (as word sets) whose words all belong to a name with more words, through an index by word."""
    keys = list(dict.fromkeys(frozenset(n) for n in names if n))
    by_word: dict[str, set[int]] = {}
    for k, words in enumerate(keys):
        for word in words:
            by_word.setdefault(word, set()).add(k)
    inner = set()
    for words in keys:
        holders = set.intersection(*(by_word[w] for w in words))
        if any(len(keys[k]) > len(words) for k in holders):
            inner.add(words)
    return inner


# --- support -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Evidence:
    """What a source offers to support facts.

    Attributes:
        numbers: the values of its numbers (its years and its dates' years included).
        percents: the values of its percentages.
        dates: its dates ``(year, month, day)``.
        words: every word of it, normalised (:func:`normalise_word`), the parts of hyphenated words too.
        lower: its words written in lower case (:func:`lower_case_words`): common words, never an entity at a
            summary's sentence start.
        names: its words written capitalised inside a sentence (:func:`inner_names`): a summary sentence may
            open with one of them alone and it is still a name.
    """

    numbers: tuple[float, ...]
    percents: tuple[float, ...]
    dates: tuple[tuple[int | None, int, int | None], ...]
    words: frozenset[str]
    lower: frozenset[str]
    names: frozenset[str]

    @classmethod
    def of(cls, source: str) -> Evidence:
        """The evidence of a source text."""
        if not isinstance(source, str):
            raise TypeError(f"source must be a string, got {type(source).__name__}")
        source = without_list_markers(source)
        found = [fact for _, fact in _figures(source)[0]]
        dates = tuple(f.date for f in found if f.date is not None)
        numbers = [f.value for f in found if f.kind == "number"] + [float(d[0]) for d in dates if d[0] is not None]
        percents = tuple(f.value for f in found if f.kind == "percent")
        words = frozenset(normalise_word(m.group(0)) for m in _WORD.finditer(source))
        return cls(tuple(numbers), percents, dates, words, lower_case_words(source), inner_names(source))


def _close(value: float, unit: float, candidates: Iterable[float]) -> bool:
    """A candidate equal to ``value`` or within half its ``unit`` (the summary rounded a more precise figure).

    A value beyond a float's range (``inf``) is close to nothing: two such numbers cannot be told apart.
    """
    return math.isfinite(value) and any(
        math.isclose(c, value, rel_tol=1e-9) or abs(c - value) <= unit / 2 * (1 + 1e-9) for c in candidates
    )


def supported(fact: Fact, evidence: Evidence) -> bool:
    """Whether the source's evidence supports the fact.

    * number: a source number of the same value, or within half the unit of its last digit ("$2.4bn" for
      "$2,430m"); a percentage likewise by a source percentage;
    * date: a source date of the same month, the same day when the fact has one, and the same year when the fact
      has one (a source date without a year is then supported when the year is among the source's numbers);
    * entity: every word of it among the source's words, case-insensitively, possessives dropped (a surname alone
      is supported by the full name).

    >>> evidence = Evidence.of("Dana Ortiz said on 3 March 2025 that sales fell 4.6 percent to 1,400 units.")
    >>> [supported(f, evidence) for f in facts("On March 3 Ortiz said sales fell 5% to 1400 units in 2025.")]
    [True, True, True, True, True]
    >>> [supported(f, evidence) for f in facts("On March 4 Lee said sales fell 4% to 1500 units.")]
    [False, False, False, False]
    """
    if fact.kind == "entity":
        return all(token in evidence.words for token in fact.tokens)
    if fact.date is not None:  # a date fact (the only kind with a date)
        year, month, day = fact.date
        for y, m, d in evidence.dates:
            if m != month or (day is not None and d != day):
                continue
            if year is None or y == year or (y is None and float(year) in evidence.numbers):
                return True
        return False
    pool = evidence.percents if fact.kind == "percent" else evidence.numbers
    return _close(fact.value, fact.unit, pool)


def consistency_score(n_supported: int, n_checked: int) -> float:
    """``supported / checkable``; 1.0 when nothing is checkable.

    >>> consistency_score(3, 4), consistency_score(0, 0)
    (0.75, 1.0)
    """
    return n_supported / n_checked if n_checked else 1.0


def check(summary: str, source: str | Evidence) -> Consistency:
    """The consistency of ``summary`` against ``source`` (a text, or its :class:`Evidence` to reuse it).

    Raises:
        TypeError: ``summary`` or ``source`` is not a string.
    """
    if not isinstance(summary, str):
        raise TypeError(f"summary must be a string, got {type(summary).__name__}")
    evidence = source if isinstance(source, Evidence) else Evidence.of(source)
    found = facts(summary, evidence.lower, evidence.names)
    unsupported = tuple(f.text for f in found if not supported(f, evidence))
    return Consistency(consistency_score(len(found) - len(unsupported), len(found)), len(found), unsupported)
