"""SummaryEval's arithmetic as pure functions (``docs/summary_eval.md`` §2–§4), constants of the original code.

Completeness and coherence follow oshea00/summaryeval @ cd0cb51 exactly, quirks included; overall is the
weighted sum of the three scores.

>>> position_weight(0, 10), position_weight(1, 10), position_weight(5, 10)
(1.5, 1.2, 1.0)
>>> length_weight(40)  # saturates at 30 words (the original README says 20)
1.5
>>> round(completeness_from_coverage([True, False], [0.3, 0.1]), 4)  # 0.7 · ½ + 0.3 · 0.75
0.575
>>> length_penalty(5), length_penalty(25)
(0.3, 1.0)
>>> round(overall_score(2 / 3, 0.8, 0.5), 4)
0.675
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence

import numpy as np

from persona_metrics.validation import check_mapping, check_number, checked_mean

#: Weights of the overall score (the original's defaults).
DEFAULT_WEIGHTS: dict[str, float] = {"accuracy": 0.6, "completeness": 0.25, "coherence": 0.15}
#: The largest weight accepted: overall is the weighted sum, not renormalised, so it lies in [0, sum of the
#: weights]; the bound keeps that sum a finite number (and no weight is meaningfully larger).
MAX_WEIGHT = 1e6
#: Number of topic sentences kept from the source.
N_TOPICS = 10
#: Coherence reads at most this many sentences of a summary (this project's bound, not the original's): a longer
#: summary is scored on its first MAX_COHERENCE_SENTENCES sentences, with a warning. The contradiction component
#: compares every sentence pair (an n × n cosine matrix: 100 MB at this bound) and leave-one-out ROUGE-L matches
#: each sentence against all the others, so without a bound time and memory grow with the square of the length.
MAX_COHERENCE_SENTENCES = 5000
#: A topic is covered when the summary's cosine with it is at least this.
COVERAGE_THRESHOLD = 0.4
#: Completeness = min(1, RECALL_WEIGHT · recall + IMPORTANCE_WEIGHT · importance share).
RECALL_WEIGHT = 0.7
IMPORTANCE_WEIGHT = 0.3
#: Weights of the coherence components (they sum to 1).
COHERENCE_WEIGHTS: dict[str, float] = {
    "rouge_1": 0.08,
    "rouge_2": 0.08,
    "rouge_l": 0.08,
    "semantic": 0.40,
    "discourse": 0.25,
    "lexical": 0.08,
    "readability": 0.03,
}
#: The PDTB discourse marker lists of the original's coherence scorer, in its category and marker order.
DISCOURSE_MARKERS: dict[str, tuple[str, ...]] = {
    "temporal": (
        "then", "next", "meanwhile", "subsequently", "previously", "earlier", "later", "finally", "eventually",
        "afterward", "before", "after", "during", "while", "until", "once", "now", "currently", "initially",
        "ultimately",
    ),
    "contingency": (
        "because", "since", "as", "therefore", "thus", "consequently", "as a result", "due to", "so", "hence",
        "accordingly", "for this reason", "given that", "in order to", "so that", "if", "unless", "provided that",
        "whereas",
    ),
    "comparison": (
        "however", "but", "nevertheless", "nonetheless", "yet", "still", "whereas", "while", "in contrast",
        "on the other hand", "conversely", "alternatively", "instead", "rather", "similarly", "likewise",
        "in the same way", "by comparison", "although", "though", "despite", "in spite of",
    ),
    "expansion": (
        "and", "also", "furthermore", "moreover", "additionally", "in addition", "besides", "for example",
        "for instance", "specifically", "in particular", "namely", "that is", "in other words", "indeed", "in fact",
        "actually",
    ),
}  # fmt: skip
_MARKER_PATTERNS = {
    category: tuple(re.compile(r"\b" + re.escape(marker) + r"\b") for marker in markers)
    for category, markers in DISCOURSE_MARKERS.items()
}


def position_weight(index: int, n_sentences: int) -> float:
    """1.5 for the first and last sentence, 1.2 in the first or last fifth, else 1.0."""
    if index == 0 or index == n_sentences - 1:
        return 1.5
    if index < n_sentences * 0.2 or index > n_sentences * 0.8:
        return 1.2
    return 1.0


def length_weight(n_words: int) -> float:
    """``min(1.5, words / 20)``: saturates at 30 words."""
    return min(1.5, n_words / 20)


def sentence_importance(index: int, n_sentences: int, tfidf_mean: float, n_words: int) -> float:
    """Position weight × TF-IDF row mean (over all vocabulary columns, zeros included) × length weight."""
    return position_weight(index, n_sentences) * tfidf_mean * length_weight(n_words)


def top_topics(
    sentences: Sequence[str], importances: Sequence[float], n_topics: int = N_TOPICS
) -> list[tuple[str, float]]:
    """The ``n_topics`` most important sentences, most important first (a stable sort: ties keep text order)."""
    ranked = list(zip(sentences, importances, strict=True))
    ranked.sort(key=lambda item: item[1], reverse=True)
    return ranked[:n_topics]


def coverage_parts(covered: Sequence[bool], importances: Sequence[float]) -> tuple[float, float]:
    """``(recall, importance share)``: the covered fraction of topics and of their total importance."""
    total = 0.0
    covered_total = 0.0
    hits = 0
    for hit, importance in zip(covered, importances, strict=True):
        total += importance
        if hit:
            hits += 1
            covered_total += importance
    recall = hits / len(importances)
    share = covered_total / total if total > 0 else 0
    return recall, share


def completeness_from_coverage(covered: Sequence[bool], importances: Sequence[float]) -> float:
    """``min(1, 0.7 · recall + 0.3 · importance share)``; 1.0 without topics."""
    if not importances:
        return 1.0
    recall, share = coverage_parts(covered, importances)
    return min(1.0, recall * RECALL_WEIGHT + share * IMPORTANCE_WEIGHT)


# --- completeness_method="recall_precision" (this project's variant, docs/summary_eval.md §2.1) -----------------
#: Allowed ``completeness_method`` values: the original's topic coverage (default) or recall and precision.
COMPLETENESS_METHODS = ("original", "recall_precision")
#: β of the F-measure of recall and precision: recall counts β² = 2.25 times as much as precision. Completeness is
#: first about coverage; precision is the guard against content the source does not have. On the development
#: cases (tests/summary_fact_cases.py) F1 (β = 1) ranks the good summary above its copy truncated to two thirds
#: by as little as 0.003; β = 1.5 raises that to 0.017 and keeps the off-topic insertion at 0.037 or more.
RECALL_BETA = 1.5


def _unit(cosine: float) -> float:
    """A cosine clamped to [0, 1] (an unrelated text's cosine can be slightly negative)."""
    return min(1.0, max(0.0, float(cosine)))


def graded_recall(best_cosines: Sequence[float], importances: Sequence[float]) -> float:
    """``R = Σ_t w_t · clamp(c_t, 0, 1) / Σ_t w_t`` over the source's topics.

    ``c_t`` is topic t's largest cosine with any summary sentence, ``w_t`` its importance (§2); with all
    importances 0 (a source of stop words only) the plain mean; 0 without topics.

    >>> graded_recall([0.9, 0.3], [3.0, 1.0])  # (3 · 0.9 + 1 · 0.3) / 4
    0.75
    >>> graded_recall([0.5, -0.1], [0.0, 0.0])  # no importance: the mean of 0.5 and 0
    0.25
    """
    if not best_cosines:
        return 0.0
    clamped = [_unit(c) for c in best_cosines]
    total = float(sum(importances))
    if total <= 0:
        return sum(clamped) / len(clamped)
    return sum(w * c for w, c in zip(importances, clamped, strict=True)) / total


def sentence_precision(best_cosines: Sequence[float], lengths: Sequence[int]) -> float:
    """``P = Σ_s n_s · clamp(c_s, 0, 1) / Σ_s n_s`` over the summary's sentences.

    ``c_s`` is sentence s's largest cosine with any source sentence, ``n_s`` its number of words (whitespace
    separated): a long off-topic sentence costs more than a short one. 0 without words.

    >>> sentence_precision([0.8, 0.1], [30, 10])  # (30 · 0.8 + 10 · 0.1) / 40
    0.625
    """
    total = sum(lengths)
    if total <= 0:
        return 0.0
    return sum(n * _unit(c) for n, c in zip(lengths, best_cosines, strict=True)) / total


def recall_precision_f(recall: float, precision: float, beta: float | None = None) -> float:
    """``F_β = (1 + β²) · R · P / (β² · P + R)`` with β = :data:`RECALL_BETA`, 0 when both are 0; in [0, 1].

    >>> round(recall_precision_f(0.75, 0.625), 6), recall_precision_f(0.0, 0.0)  # 3.25 · 0.46875 / 2.15625
    (0.706522, 0.0)
    >>> round(recall_precision_f(0.75, 0.625, beta=1.0), 6)  # F1, the harmonic mean
    0.681818
    """
    b2 = (RECALL_BETA if beta is None else beta) ** 2
    if recall + precision <= 0:
        return 0.0
    return (1 + b2) * recall * precision / (b2 * precision + recall)


def repetition_bonus(words: Sequence[str], n: int) -> float:
    """The n-gram repetition bonus in [0, 0.3]: largest at 15 % (n = 1) or 5 % (n = 2) repeated n-grams."""
    grams = {" ".join(words[i : i + n]) for i in range(len(words) - n + 1)}
    total = len(words) - n + 1
    repetition = 1.0 - len(grams) / total
    optimal = 0.15 if n == 1 else 0.05
    bonus = 1.0 - abs(repetition - optimal) / (optimal + 0.1)
    return max(0.0, min(0.3, bonus * 0.3))


def rouge_n_coherence(leave_one_out_f: Sequence[float], words: Sequence[str], n: int) -> float:
    """Mean leave-one-out ROUGE-n F1 plus the repetition bonus (when there are more than n words), in [0, 1]."""
    value = float(np.mean(leave_one_out_f)) if len(leave_one_out_f) else 0.0
    if len(words) > n:
        value = value + repetition_bonus(words, n)
    return min(1.0, max(0.0, value))


def rouge_l_coherence(leave_one_out_f: Sequence[float]) -> float:
    """``min(1, 1.5 × mean leave-one-out ROUGE-L F1)``."""
    value = float(np.mean(leave_one_out_f)) if len(leave_one_out_f) else 0.0
    return min(1.0, value * 1.5)


def semantic_coherence(consecutive_cosines: Sequence[float], rouge_l: float) -> float:
    """``0.7 · mean(max(0, cos(s_i, s_i+1))) + 0.3 · rouge_l``, clamped to [0, 1]."""
    flow = np.mean([c if c > 0 else 0 for c in consecutive_cosines])
    value = float(0.7 * flow + 0.3 * rouge_l)
    return min(1.0, max(0.0, value))


def first_marker_category(sentence: str) -> str | None:
    """The category of the first marker found (categories in order, markers in order), or None."""
    lower = sentence.lower()
    for category, patterns in _MARKER_PATTERNS.items():
        if any(pattern.search(lower) for pattern in patterns):
            return category
    return None


def discourse_parts(categories: Sequence[str | None]) -> dict[str, float]:
    """Density, diversity, consistency and ``0.4·density + 0.3·diversity + 0.3·consistency`` of a text.

    Args:
        categories: per sentence, :func:`first_marker_category` (at least two sentences).
    """
    n = len(categories)
    positions = [i for i, c in enumerate(categories) if c is not None]
    density = min(1.0, len(positions) / (n - 1)) if n > 1 else 1.0
    diversity = len({c for c in categories if c is not None}) / len(DISCOURSE_MARKERS)
    if len(positions) < 2:
        consistency = 1.0 if len(positions) == 1 else 0.5
    else:
        expected = n / len(positions)
        intervals = [positions[i + 1] - positions[i] for i in range(len(positions) - 1)]
        consistency = max(0.0, 1.0 - float(np.std(intervals)) / expected)
    overall = 0.4 * density + 0.3 * diversity + 0.3 * consistency
    return {"density": density, "diversity": diversity, "consistency": consistency, "discourse": overall}


def lexical_diversity(tokens: Sequence[str]) -> float:
    """Type-token ratio of the content tokens; windowed (width min(50, N//2), step half of it) from 10 tokens."""
    total = len(tokens)
    if total == 0:
        return 0.0
    if total < 10:
        return len(set(tokens)) / total
    width = min(50, total // 2)
    ratios = [
        len(set(tokens[i : i + width])) / len(tokens[i : i + width]) for i in range(0, total - width + 1, width // 2)
    ]
    return float(np.mean(ratios)) if ratios else len(set(tokens)) / total


def contradiction_candidates(cosines: np.ndarray) -> list[tuple[int, int]]:
    """The sentence pairs ``i < j`` (in the original's loop order) with ``cos < −0.1``: the only pairs that can count.

    A vectorised pre-selection (``cos < −0.09``, a superset whatever the array's float type) is followed by the
    original's own per-element test, so the pairs are exactly those its double loop counts, without visiting the
    others in Python.
    """
    rows, cols = np.nonzero(np.asarray(cosines) < -0.09)  # row-major: the loop's order
    return [(i, j) for i, j in zip(rows.tolist(), cols.tolist(), strict=True) if i < j and cosines[i][j] < -0.1]


def contradiction_penalty_of_pairs(
    n_sentences: int, cosines: np.ndarray, pairs: Sequence[tuple[int, int]], rouge_l: Sequence[float]
) -> float:
    """``max(0, 1 − contradictions / pairs)`` over all sentence pairs i < j, from the candidate pairs alone.

    Args:
        n_sentences: the number of sentences (all ``n(n − 1)/2`` pairs are the denominator).
        cosines: the sentences' cosine matrix.
        pairs: :func:`contradiction_candidates` of ``cosines``.
        rouge_l: ROUGE-L F1 of each candidate pair (sentence ``i`` the target, ``j`` the prediction).
    """
    contradictions = 0.0
    for (i, j), value in zip(pairs, rouge_l, strict=True):
        if cosines[i][j] < -0.1 and value > 0.3:
            contradictions += 1
        elif cosines[i][j] < -0.1 * 1.5:
            contradictions += 0.5
    total = n_sentences * (n_sentences - 1) // 2
    return 1.0 if total == 0 else max(0.0, 1.0 - contradictions / total)


def contradiction_penalty(cosines: np.ndarray, rouge_l: np.ndarray) -> float:
    """``max(0, 1 − contradictions / pairs)`` over all sentence pairs i < j.

    A pair counts 1 if ``cos < −0.1`` and its ROUGE-L F1 > 0.3, else 0.5 if ``cos < −0.15``; only pairs with
    ``cos < −0.1`` can count, so only their ROUGE-L is read (:func:`contradiction_candidates`).
    """
    pairs = contradiction_candidates(cosines)
    return contradiction_penalty_of_pairs(len(cosines), cosines, pairs, [rouge_l[i][j] for i, j in pairs])


def readability(fk_grade: float | None) -> float:
    """``clamp((20 − Flesch-Kincaid grade) / 20, 0, 1)``; 0.5 when the grade could not be computed (None)."""
    if fk_grade is None:
        return 0.5
    return max(0, min(1, (20 - fk_grade) / 20))


def length_penalty(n_words: int) -> float:
    """``max(0.3, words / 20)`` below 20 whitespace-separated words, else 1."""
    return max(0.3, n_words / 20) if n_words < 20 else 1.0


def coherence_from_components(components: Mapping[str, float]) -> float:
    """The weighted components (:data:`COHERENCE_WEIGHTS`) × contradiction × length penalty, clamped to [0, 1]."""
    value = 0.0
    for name, weight in COHERENCE_WEIGHTS.items():
        value = value + weight * components[name]
    value = value * components["contradiction"] * components["length"]
    return float(min(1.0, max(0.0, value)))


# --- coherence_method="robust" (this project's, docs/summary_eval.md §3.1) ------------------------------------
#: Allowed ``coherence_method`` values: the original's definition (default) or the robust one.
COHERENCE_METHODS = ("original", "robust")
#: A sentence whose largest cosine with an earlier sentence is at least REDUNDANT_FROM starts to count as a
#: repeat; at REDUNDANT_AT it is one. Distinct sentences of one text reach 0.68 at most (603 pairs of the
#: development summaries and articles and data/cnndm_sample), close paraphrases 0.86-0.93, copies with one detail
#: changed 0.99 (MiniLM).
REDUNDANT_FROM = 0.75
REDUNDANT_AT = 0.95
#: A summary sentence is placed in the source at its most similar source sentence when their cosine is at least
#: this (completeness's coverage cut, :data:`COVERAGE_THRESHOLD`); a sentence below it has no place in the source.
ALIGNMENT_THRESHOLD = COVERAGE_THRESHOLD
#: The share of the score that the source order decides: a summary whose every transition runs against the
#: source's order keeps 1 - ORDER_WEIGHT of it.
ORDER_WEIGHT = 0.5
#: The share of the score lost when the first sentence opens with a reference to something before it.
OPENING_WEIGHT = 0.25
#: With fewer than two distinct sentences there is no transition to judge: the weighted components (which the
#: original sets to 1.0 on five sentence-level terms) are capped at this, the top of the original's "poor" band.
ONE_SENTENCE_CAP = 0.3
#: Openings that need a predecessor: a connective or a pronoun at the start of the first sentence has nothing to
#: connect to or refer back to (lower case, matched as whole words at the start).
NEEDS_PREDECESSOR = (
    "however", "but", "yet", "still", "also", "and", "or", "nor", "moreover", "furthermore", "in addition",
    "additionally", "besides", "as a result", "therefore", "thus", "consequently", "hence", "then", "meanwhile",
    "instead", "nevertheless", "nonetheless", "in contrast", "on the other hand", "by contrast", "similarly",
    "likewise", "for example", "for instance", "in fact", "indeed", "otherwise", "even so", "after that",
    "it", "its", "they", "their", "them", "he", "she", "his", "her", "these", "those", "such", "both",
    "the company", "the firm", "the move", "the deal", "the latter", "the former", "the rest", "the same",
)  # fmt: skip
_PREDECESSOR_PATTERN = re.compile(
    r"^\W*(?:" + "|".join(re.escape(opening) for opening in NEEDS_PREDECESSOR) + r")\b(?!['’-])"
)
#: The share of the score lost when the text's last sentence is cut off (:func:`ending` 0): a summary that breaks
#: off mid-sentence keeps 1 - TRUNCATION_WEIGHT of it. Chosen on the development cases of
#: ``tests/test_coherence_structure.py``: a good prose summary cut anywhere in its second half (186 cuts) keeps
#: 0.73-1.24 of its score without this charge (a cut can raise the original's terms: fewer sentences, closer
#: neighbours); 0.3 is the smallest tenth that puts every cut at least 10 % below the good summary
#: (1.24 x 0.7 = 0.87; 0.2 would leave 0.99). Between OPENING_WEIGHT and ORDER_WEIGHT (docs/summary_eval.md §3.1).
TRUNCATION_WEIGHT = 0.3
#: The stated distance between the robust coherence of the same facts written as a list and as prose: on the
#: development cases of ``tests/test_coherence_structure.py`` the largest gap is 0.053; the suite checks this bound
#: on held-out cases (``docs/summary_eval.md`` §3.1).
LIST_PROSE_DISTANCE = 0.1
#: A sentence is complete when it ends with one of these (then possibly closing quotes, brackets or emphasis).
TERMINAL_PUNCTUATION = ".!?…"
#: What may follow the terminal punctuation of a complete sentence: closing quotes, brackets, Markdown emphasis.
CLOSING_MARKS = "\"'”’»)]}*_"
#: The discourse category the robust method gives a sentence after the first that has no marker of its own
#: (:func:`implicit_categories`). PDTB annotates an implicit relation between adjacent sentences that have no
#: connective, Expansion the most frequent: a list item stands in one to the item before it (Expansion.List), and
#: so does a plain prose sentence. Counting them in prose and lists alike makes the discourse term measure the
#: variety of the explicit connectives, not their number, so a list (no connective by form) and the same facts in
#: prose score alike (robust-v3, ``docs/summary_eval.md`` §3.1).
IMPLICIT_CATEGORY = "expansion"
#: A list item: a line that starts (after optional indentation) with a bullet (``-``, ``*``, ``+``, ``•``, ``‣``,
#: ``◦``, ``▪``, ``●``, ``–``, ``—``), a number of one or two digits followed by ``.`` or ``)`` (``1.``, ``12)``)
#: or one letter followed by ``)`` (``a)``), then white space and text. Group 1 is the indentation, group 2 the
#: item's text.
LIST_ITEM = re.compile(r"^([ \t]*)(?:[-*+•‣◦▪●–—]|\d{1,2}[.)]|[A-Za-z]\))[ \t]+(\S.*)$")


def text_blocks(text: str) -> list[tuple[str, bool]]:
    r"""The text's list items and prose paragraphs, in order: ``(text, is_item)`` (robust method only).

    A line matching :data:`LIST_ITEM` starts an item (its marker stripped); the lines right after it that are
    indented deeper than its marker continue it (a wrapped item). Every other run of non-blank lines is a prose
    paragraph, ended by a blank line or an item. A text without items is one block, itself, unchanged.

    >>> text_blocks("Key points:\n- Sales rose\n  by 5 percent\n2) Costs fell\n\nMore next week.")
    [('Key points:', False), ('Sales rose by 5 percent', True), ('Costs fell', True), ('More next week.', False)]
    >>> text_blocks("Sales rose.\nCosts fell.")
    [('Sales rose.\nCosts fell.', False)]
    """
    lines = text.splitlines()
    if not any(LIST_ITEM.match(line) for line in lines):
        return [(text, False)]
    blocks: list[tuple[list[str], bool, int]] = []  # (lines, is_item, indentation of an item's marker)
    for line in lines:
        item = LIST_ITEM.match(line)
        indent = len(line) - len(line.lstrip())
        if item:
            blocks.append(([item.group(2).strip()], True, len(item.group(1))))
        elif not line.strip():
            blocks.append(([], False, 0))  # a paragraph break
        elif blocks and blocks[-1][0] and (not blocks[-1][1] or indent > blocks[-1][2]):
            blocks[-1][0].append(line.strip())  # the paragraph or the wrapped item goes on
        else:
            blocks.append(([line.strip()], False, 0))
    return [(" ".join(parts), is_item) for parts, is_item, _ in blocks if parts]


def implicit_categories(categories: Sequence[str | None]) -> list[str | None]:
    """The robust method's discourse categories: a sentence after the first without a marker counts as expansion.

    Its relation to the sentence before it is implicit (:data:`IMPLICIT_CATEGORY`); the first sentence has no
    predecessor and keeps its category.

    >>> implicit_categories([None, None, "comparison", None])
    [None, 'expansion', 'comparison', 'expansion']
    """
    return [IMPLICIT_CATEGORY if c is None and i > 0 else c for i, c in enumerate(categories)]


def ending(sentence: str) -> float:
    """1 when the sentence ends with :data:`TERMINAL_PUNCTUATION` (then possibly :data:`CLOSING_MARKS`), else 0.

    >>> ending("Sales rose."), ending('He said "no."'), ending("Why? (Nobody knows.)"), ending("Wait…")
    (1.0, 1.0, 1.0, 1.0)
    >>> ending("Sales rose by"), ending("Sales rose,"), ending("Costs fell (in March)"), ending("")
    (0.0, 0.0, 0.0, 0.0)
    """
    return 1.0 if sentence.rstrip().rstrip(CLOSING_MARKS).endswith(tuple(TERMINAL_PUNCTUATION)) else 0.0


def as_sentence(item: str) -> str:
    """A list item as a sentence: a full stop added when it has no terminal punctuation (``,;:`` and dashes dropped).

    >>> as_sentence("Sales rose 5 percent"), as_sentence("Costs fell;"), as_sentence("Profit doubled!")
    ('Sales rose 5 percent.', 'Costs fell.', 'Profit doubled!')
    """
    if ending(item):
        return item
    return item.rstrip().rstrip(",;:-–— \t") + "."


def redundancies(cosines: np.ndarray) -> list[float]:
    """Per sentence, how much it repeats an earlier one: ``clamp((c − FROM) / (AT − FROM), 0, 1)``.

    ``c`` is the sentence's largest cosine with an earlier sentence (0 for the first), so of two copies the
    second is the repeat.

    >>> [round(r, 3) for r in redundancies(np.array([[1.0, 0.99, 0.3], [0.99, 1.0, 0.85], [0.3, 0.85, 1.0]]))]
    [0.0, 1.0, 0.5]
    """
    out = []
    for i in range(len(cosines)):
        largest = max((float(cosines[i][j]) for j in range(i)), default=0.0)
        out.append(min(1.0, max(0.0, (largest - REDUNDANT_FROM) / (REDUNDANT_AT - REDUNDANT_FROM))))
    return out


def novelty(redundancy: Sequence[float]) -> float:
    """``1 − mean redundancy``: the share of the text that says something new (1 for an empty text).

    >>> novelty([0.0, 1.0, 0.0, 1.0])  # every sentence said twice
    0.5
    """
    return 1.0 - float(np.mean(redundancy)) if len(redundancy) else 1.0


def opening(first_sentence: str) -> float:
    """0 when the first sentence opens with a word of :data:`NEEDS_PREDECESSOR`, else 1.

    >>> opening("However, margins narrowed."), opening("It will open a plant."), opening("Its shares rose.")
    (0.0, 0.0, 0.0)
    >>> opening("Brightwater's revenue rose."), opening("Italy's exports rose."), opening("Then-chief Ann Lee left.")
    (1.0, 1.0, 1.0)
    """
    return 0.0 if _PREDECESSOR_PATTERN.match(first_sentence.lower()) else 1.0


def source_positions(cosines: np.ndarray) -> list[int | None]:
    """Per summary sentence, the index of its most similar source sentence, or None below the alignment cut.

    Args:
        cosines: summary sentences × source sentences.

    >>> source_positions(np.array([[0.9, 0.2], [0.1, 0.3], [0.5, 0.7]]))
    [0, None, 1]
    """
    return [int(np.argmax(row)) if len(row) and float(np.max(row)) >= ALIGNMENT_THRESHOLD else None for row in cosines]


def source_order(positions: Sequence[int | None]) -> float:
    """The fraction of consecutive placed sentences (None skipped) in the source's order (ties count as in order).

    1.0 when fewer than two sentences are placed: nothing contradicts the source's order.

    >>> source_order([0, 2, 5]), source_order([5, 2, 0]), source_order([2, None, 5, 0]), source_order([3, None])
    (1.0, 0.0, 0.5, 1.0)
    """
    placed = [p for p in positions if p is not None]
    if len(placed) < 2:
        return 1.0
    return sum(a <= b for a, b in itertools.pairwise(placed)) / (len(placed) - 1)


def robust_coherence_from_components(components: Mapping[str, float], n_distinct: int) -> float:
    """The robust coherence: ``min(weighted, cap) × contradiction × length × novelty × charges``.

    ``charges = (1 − w_o(1 − order)) × (1 − w_a(1 − opening)) × (1 − w_t(1 − ending))``, with ``w_o``, ``w_a``
    and ``w_t`` :data:`ORDER_WEIGHT`, :data:`OPENING_WEIGHT` and :data:`TRUNCATION_WEIGHT`. ``weighted`` is the
    original's weighted sum (:data:`COHERENCE_WEIGHTS`) of the components of the text without its repeats; the
    cap, :data:`ONE_SENTENCE_CAP`, applies when it has fewer than two distinct sentences (``n_distinct``), else
    the cap is 1. An empty text (``n_distinct`` 0) scores 0.

    >>> parts = dict.fromkeys(COHERENCE_WEIGHTS, 1.0) | {"contradiction": 1.0, "length": 1.0, "ending": 1.0}
    >>> robust_coherence_from_components(parts | {"novelty": 0.5, "order": 1.0, "opening": 1.0}, 3)
    0.5
    >>> robust_coherence_from_components(parts | {"novelty": 1.0, "order": 0.0, "opening": 0.0}, 3)
    0.375
    >>> robust_coherence_from_components(parts | {"novelty": 1.0, "order": 1.0, "opening": 1.0}, 1)
    0.3
    >>> robust_coherence_from_components(parts | {"novelty": 1.0, "order": 1.0, "opening": 1.0, "ending": 0.0}, 3)
    0.7
    """
    if n_distinct == 0:
        return 0.0
    weighted = sum(weight * components[name] for name, weight in COHERENCE_WEIGHTS.items())
    value = min(weighted, ONE_SENTENCE_CAP if n_distinct < 2 else 1.0)
    value *= components["contradiction"] * components["length"] * components["novelty"]
    value *= (1 - ORDER_WEIGHT * (1 - components["order"])) * (1 - OPENING_WEIGHT * (1 - components["opening"]))
    value *= 1 - TRUNCATION_WEIGHT * (1 - components["ending"])
    return float(min(1.0, max(0.0, value)))


def check_weights(weights: Mapping[str, float] | None) -> dict[str, float]:
    """The overall weights (defaults for missing keys), validated.

    Raises:
        TypeError: not a mapping, or a weight that is not a real number.
        ValueError: an unknown key, a negative or non-finite weight, or all weights zero.
    """
    if weights is None:
        return dict(DEFAULT_WEIGHTS)
    if not isinstance(weights, Mapping):
        raise TypeError(f"weights must be a dict like {DEFAULT_WEIGHTS}, got {type(weights).__name__}")
    check_mapping("weights", weights)
    unknown = sorted(set(weights) - set(DEFAULT_WEIGHTS))
    if unknown:
        raise ValueError(f"weights has unknown keys {unknown}; allowed: {sorted(DEFAULT_WEIGHTS)}")
    out = dict(DEFAULT_WEIGHTS)
    for key, value in weights.items():
        out[key] = float(check_number(f"weights[{key!r}]", value, 0.0, MAX_WEIGHT))
    if sum(out.values()) <= 0:
        raise ValueError("weights must not all be 0")
    return out


def overall_score(
    accuracy: float, completeness: float, coherence: float, weights: Mapping[str, float] | None = None
) -> float:
    """``w_a · accuracy + w_c · completeness + w_h · coherence`` (the original: 0.6 / 0.25 / 0.15; not renormalised)."""
    w = DEFAULT_WEIGHTS if weights is None else weights
    return w["accuracy"] * accuracy + w["completeness"] * completeness + w["coherence"] * coherence


def aggregate(values: Sequence[float] | np.ndarray) -> float:
    """The corpus score: the arithmetic mean over items.

    Raises:
        ValueError: no values, or a value that is not finite.
    """
    return checked_mean(values, "items")
