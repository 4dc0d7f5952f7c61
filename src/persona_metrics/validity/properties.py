"""The metamorphic properties as pure functions: the texts each case is turned into, and the checks on their scores.

Every property is a list of checks (:class:`Check`, one per case, or per pair of cases), and a property's pass fraction
is the share of its checks that hold (:func:`tally`). An ordering ``a > b`` is strict: **a tie counts as a
failure** (a metric that cannot tell the two texts apart has not ordered them), and two scores within
:data:`TIE_TOLERANCE` of each other are a tie. Nothing here loads a model or
scores a text: the runner (:mod:`persona_metrics.validity.runner`) scores the texts these functions ask for with
the families' library functions and hands the scores back, keyed as asked.

>>> tally([Check("a > b", True), Check("a > b", False), Check("c", True)])
[('a > b', 2, 1), ('c', 1, 1)]
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: The bound under which a document's DEGRESS counts as "≈ 0" when every user gets the same summary.
DEGRESS_NEAR_ZERO = 0.05
#: Two scores closer than this are a tie. A float32 network's rounding moves a score by up to 1.2e-7 between CPU
#: kernel paths and thread counts (docs/cross_cpu.md: BERTScore 1.2e-7, SummaryEval coherence 3e-8), so a
#: smaller margin is the machine's, not the metric's: the original coherence scores a summary and its reversed
#: copy 0 to 1.2e-8 apart, and one thread or two decided the order.
TIE_TOLERANCE = 1e-6

Key = tuple[Hashable, ...]


@dataclass(frozen=True)
class Check:
    """One case (or pair of cases) of the property ``name``, and whether the property held on it."""

    name: str
    holds: bool


def higher(prop: str, a: float, b: float) -> Check:
    """``a > b`` strictly: a tie, ``a`` within :data:`TIE_TOLERANCE` of ``b``, fails.

    >>> higher("p", 0.5, 0.4).holds, higher("p", 0.5, 0.5).holds, higher("p", 0.5 + 1.2e-8, 0.5).holds
    (True, False, False)
    """
    return Check(prop, bool(a - b > TIE_TOLERANCE))


def tally(checks: Iterable[Check]) -> list[tuple[str, int, int]]:
    """``(property, cases, passed)`` per property, in order of first appearance."""
    counts: dict[str, list[int]] = {}
    for check in checks:
        count = counts.setdefault(check.name, [0, 0])
        count[0] += 1
        count[1] += int(check.holds)
    return [(prop, cases, passed) for prop, (cases, passed) in counts.items()]


# --- derived texts -------------------------------------------------------------------------------------------------
def repeated(sentences: Sequence[str]) -> str:
    """Each sentence twice in place: ``s1 s1 s2 s2 …``.

    >>> repeated(["A b.", "C d."])
    'A b. A b. C d. C d.'
    """
    return " ".join(sentence for sentence in sentences for _ in range(2))


def reversed_order(sentences: Sequence[str]) -> str:
    """The sentences in reverse order (never the identity for two or more distinct sentences).

    Raises:
        ValueError: fewer than two sentences (there is no order to change).

    >>> reversed_order(["A b.", "C d.", "E f."])
    'E f. C d. A b.'
    """
    if len(sentences) < 2:
        raise ValueError(f"a shuffled summary needs at least 2 sentences, got {len(sentences)}")
    return " ".join(reversed(sentences))


def truncated(text: str) -> str:
    """The text cut mid-sentence after about two thirds of its words (a generation that hit its length limit).

    The first ``⌊2n/3⌋`` of its ``n`` whitespace words (at least one), one fewer while the last kept word ends a
    sentence (``.``, ``!``, ``?``), so the cut is never at a sentence's end.

    Raises:
        ValueError: the text has fewer than three words (nothing to cut mid-sentence).

    >>> truncated("Sales rose. Profit fell sharply in May.")
    'Sales rose. Profit fell'
    """
    words = text.split()
    if len(words) < 3:
        raise ValueError(f"a truncated text needs at least 3 words, got {len(words)}")
    k = max(1, 2 * len(words) // 3)
    while k > 1 and words[k - 1].rstrip("\"'”’)").endswith((".", "!", "?")):
        k -= 1
    return " ".join(words[:k])


def inserted(sentences: Sequence[str], sentence: str) -> str:
    """The sentences with ``sentence`` inserted after the first half of them (``⌈n/2⌉``).

    >>> inserted(["A b.", "C d.", "E f."], "X y.")
    'A b. C d. X y. E f.'
    """
    half = (len(sentences) + 1) // 2
    return " ".join([*sentences[:half], sentence, *sentences[half:]])


def first_word(text: str) -> str:
    """The text's first word, without the punctuation around it.

    Raises:
        ValueError: the text has no word.

    >>> first_word('"Harlow Foods, the baker, grew.')
    'Harlow'
    """
    for token in text.split():
        word = token.strip(string.punctuation + "“”‘’")
        if word:
            return word
    raise ValueError(f"no word in {text[:40]!r}")


# --- VERT -----------------------------------------------------------------------------------------------------------
def vert_items(cases: Sequence[Mapping[str, Any]]) -> dict[Key, tuple[str, str]]:
    """``{(id, role): (candidate, reference)}``: the paraphrase, each meaning edit (``edit:K``), the unrelated text."""
    items: dict[Key, tuple[str, str]] = {}
    for case in cases:
        reference = case["reference"]
        items[case["id"], "paraphrase"] = (case["paraphrase"], reference)
        for k, edit in enumerate(case["edits"]):
            items[case["id"], f"edit:{k}"] = (edit["text"], reference)
        items[case["id"], "unrelated"] = (case["unrelated"], reference)
    return items


def edit_kinds(cases: Sequence[Mapping[str, Any]]) -> list[str]:
    """The meaning-edit kinds of the VERT cases, in order of first appearance."""
    return list(dict.fromkeys(edit["kind"] for case in cases for edit in case["edits"]))


def vert_checks(cases: Sequence[Mapping[str, Any]], score: Mapping[Key, float], label: str = "") -> list[Check]:
    """Paraphrase > meaning edit per kind and over all kinds, meaning edit > unrelated, paraphrase > unrelated.

    ``label`` (a case file's, e.g. ``"second set"``) is added to each property's name in brackets.
    """
    tag = f" ({label})" if label else ""
    # (kind, paraphrase, edit, unrelated) scores of every meaning edit, grouped by kind in order of appearance
    edits = [
        (edit["kind"], score[case["id"], "paraphrase"], score[case["id"], f"edit:{k}"], score[case["id"], "unrelated"])
        for case in cases
        for k, edit in enumerate(case["edits"])
    ]
    checks = [
        higher(f"paraphrase > meaning edit: {kind}{tag}", para, edited)
        for kind in edit_kinds(cases)
        for edit_kind, para, edited, _ in edits
        if edit_kind == kind
    ]
    checks += [higher(f"paraphrase > meaning edit: all kinds{tag}", para, edited) for _, para, edited, _ in edits]
    checks += [higher(f"meaning edit > unrelated{tag}", edited, unrelated) for _, _, edited, unrelated in edits]
    checks += [
        higher(f"paraphrase > unrelated{tag}", score[case["id"], "paraphrase"], score[case["id"], "unrelated"])
        for case in cases
    ]
    return checks


# --- SummaryEval -----------------------------------------------------------------------------------------------------
#: Coherence: how each good summary is spoiled, and the property's name.
COHERENCE_SPOILS: Mapping[str, str] = {
    "repeated": "coherence: good > repeated sentences",
    "shuffled": "coherence: good > reversed sentence order",
    "one_word": "coherence: good > its first word alone",
}


def coherence_items(
    cases: Sequence[Mapping[str, Any]], sentences: Mapping[str, Sequence[str]]
) -> dict[Key, tuple[str, str]]:
    """``{("coherence", id, version): (summary, source)}``: the good summary and its three spoiled versions.

    Args:
        cases: lines of ``coherence.jsonl``.
        sentences: each good summary's sentences (``{summary: [sentences]}``, the metric's own sentence splitter).
    """
    items: dict[Key, tuple[str, str]] = {}
    for case in cases:
        summary, source, split = case["summary"], case["source"], sentences[case["summary"]]
        spoiled = {"repeated": repeated(split), "shuffled": reversed_order(split), "one_word": first_word(summary)}
        items["coherence", case["id"], "good"] = (summary, source)
        items.update({("coherence", case["id"], version): (text, source) for version, text in spoiled.items()})
    return items


def completeness_items(cases: Sequence[Mapping[str, Any]]) -> dict[Key, tuple[str, str]]:
    """``{("completeness", id, version): (summary, source)}`` for the all-topic and the one-topic summary."""
    items: dict[Key, tuple[str, str]] = {}
    for case in cases:
        for version in ("good", "one_topic"):
            items["completeness", case["id"], version] = (case[version], case["source"])
    return items


def summary_eval_checks(
    coherence_cases: Sequence[Mapping[str, Any]],
    completeness_cases: Sequence[Mapping[str, Any]],
    coherence: Mapping[Key, float],
    completeness: Mapping[Key, float],
) -> list[Check]:
    """Coherence: good > repeated, good > reversed order, good > first word; completeness: good > one topic."""
    checks = [
        higher(prop, coherence["coherence", case["id"], "good"], coherence["coherence", case["id"], version])
        for version, prop in COHERENCE_SPOILS.items()
        for case in coherence_cases
    ]
    checks += [
        higher(
            "completeness: good > one topic",
            completeness["completeness", case["id"], "good"],
            completeness["completeness", case["id"], "one_topic"],
        )
        for case in completeness_cases
    ]
    return checks


def summary_check_items(
    cases: Sequence[Mapping[str, Any]], sentences: Mapping[str, Sequence[str]]
) -> dict[Key, tuple[str, str]]:
    """``{("checks", id, version): (summary, source)}`` for each version of the case's good summary (second set).

    The good summary; it repeated, in reverse order and :func:`truncated` (made here); its facts as a list
    (``bullets``); it with the case's ``off_topic`` sentence :func:`inserted`; its two one-fact copies.

    Args:
        cases: lines of ``summary_checks.jsonl``.
        sentences: each good summary's sentences (``{summary: [sentences]}``, the metric's own sentence splitter).
    """
    items: dict[Key, tuple[str, str]] = {}
    for case in cases:
        summary, split = case["summary"], sentences[case["summary"]]
        texts = {
            "good": summary,
            "repeated": repeated(split),
            "shuffled": reversed_order(split),
            "truncated": truncated(summary),
            "bullets": case["bullets"],
            "off_topic": inserted(split, case["off_topic"]),
            "changed_number": case["changed_number"],
            "changed_name": case["changed_name"],
        }
        items.update({("checks", case["id"], version): (text, case["source"]) for version, text in texts.items()})
    return items


def summary_check_checks(
    cases: Sequence[Mapping[str, Any]],
    scores: Mapping[str, Mapping[Key, float]],
    list_distance: float,
) -> list[Check]:
    """The second set's properties, each named with "(second set)".

    Args:
        cases: lines of ``summary_checks.jsonl``.
        scores: ``{"coherence" | "completeness" | "consistency": {key: value}}`` over
            :func:`summary_check_items`' keys (``consistency`` may be missing: its properties are then left out).
        list_distance: the largest ``|coherence(list) − coherence(prose)|`` that counts as "the same".
    """
    props = {
        "coherence": [
            ("repeated", "coherence: good > repeated sentences"),
            ("shuffled", "coherence: good > reversed sentence order"),
            ("truncated", "coherence: good > truncated mid-sentence"),
        ],
        "completeness": [
            ("off_topic", "completeness: good > off-topic sentence inserted"),
            ("truncated", "completeness: good > truncated mid-sentence"),
        ],
        "consistency": [
            ("changed_number", "consistency: good > one number changed"),
            ("changed_name", "consistency: good > one name changed"),
        ],
    }
    checks = []
    for field, pairs in props.items():
        if field not in scores:
            continue
        value = scores[field]
        for version, prop in pairs:
            checks += [
                higher(f"{prop} (second set)", value["checks", c["id"], "good"], value["checks", c["id"], version])
                for c in cases
            ]
    return checks + list_prose_checks(cases, scores["coherence"], list_distance, "checks", "second set")


def list_prose_items(cases: Sequence[Mapping[str, Any]]) -> dict[Key, tuple[str, str]]:
    """``{("lists", id, version): (summary, source)}`` for the prose summary (``good``) and its list (``bullets``)."""
    return {
        ("lists", case["id"], version): (case[field], case["source"])
        for case in cases
        for version, field in (("good", "summary"), ("bullets", "bullets"))
    }


def list_prose_checks(
    cases: Sequence[Mapping[str, Any]],
    coherence: Mapping[Key, float],
    list_distance: float,
    group: str = "lists",
    label: str = "third set",
) -> list[Check]:
    """``|coherence(list) − coherence(prose)| ≤ list_distance`` per case (keys ``(group, id, "bullets" | "good")``)."""
    return [
        Check(
            f"coherence: |list − prose| ≤ {list_distance:g} ({label})",
            bool(abs(coherence[group, c["id"], "bullets"] - coherence[group, c["id"], "good"]) <= list_distance),
        )
        for c in cases
    ]


# --- persona style ---------------------------------------------------------------------------------------------------
def style_checks(
    cases: Sequence[Mapping[str, Any]],
    score: Mapping[tuple[str, str], float],
    nearest: Mapping[str, str],
    texts: str = "",
) -> list[Check]:
    """Recognition (nearest persona = labelled persona) and own-persona ranking, per persona and genre.

    Args:
        cases: lines of ``style.jsonl`` or ``style_summaries.jsonl``.
        score: ``{(text id, target persona): style score}`` for every text against every persona of the cases.
        nearest: ``{text id: the persona the metric finds nearest}``.
        texts: a label for the kind of texts in the property names (``"summaries"``: ``"recognition
            (summaries): ..."``; empty: ``"recognition: ..."``).

    Own-persona ranking of target P in a genre: over every pair (a text of P, a text of another persona) of that
    genre, whether P's text scores higher against P.
    """
    kind = f" ({texts})" if texts else ""
    personas = sorted({case["persona"] for case in cases})
    checks = []
    for genre in dict.fromkeys(case["genre"] for case in cases):
        group = [case for case in cases if case["genre"] == genre]
        for persona in personas:
            checks += [
                Check(f"recognition{kind}: {persona}, {genre}-genre", nearest[case["id"]] == persona)
                for case in group
                if case["persona"] == persona
            ]
        checks += [
            Check(f"recognition{kind}: all personas, {genre}-genre", nearest[c["id"]] == c["persona"]) for c in group
        ]
        for persona in personas:
            own = [c["id"] for c in group if c["persona"] == persona]
            others = [c["id"] for c in group if c["persona"] != persona]
            prop = f"own-persona ranking{kind}: {persona}, {genre}-genre"
            checks += [higher(prop, score[a, persona], score[b, persona]) for a in own for b in others]
    return checks


def lower_quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (numpy's linear interpolation).

    >>> round(lower_quantile([0.2, 0.4, 0.6, 0.8, 1.0], 0.1), 12)
    0.28
    """
    return float(np.quantile(values, q))


#: The quantile of a persona's own summaries that every off-register text must stay below.
OFF_REGISTER_QUANTILE = 0.1


def off_register_checks(
    summaries: Sequence[Mapping[str, Any]],
    off_register: Sequence[Mapping[str, Any]],
    score: Mapping[tuple[str, str], float],
) -> list[Check]:
    """Texts in none of the personas' registers score low for every persona.

    Per persona P: each off-register text below the 10th percentile of P's own summaries against P (the property
    holds for the persona when its fraction is 1: the highest off-register score is below it), and each pair (an
    own summary of P, an off-register text) ordered own > off (the pass fraction is the AUC, a tie failing).

    Args:
        summaries: lines of ``style_summaries.jsonl``.
        off_register: lines of ``off_register.jsonl``.
        score: ``{(text id, target persona): style score}`` for every text of both against every persona.
    """
    personas = sorted({case["persona"] for case in summaries})
    checks = []
    for persona in personas:
        own = [score[c["id"], persona] for c in summaries if c["persona"] == persona]
        bound = lower_quantile(own, OFF_REGISTER_QUANTILE)
        checks += [
            Check(f"off-register below own summaries' 10th percentile: {persona}", score[o["id"], persona] < bound)
            for o in off_register
        ]
        checks += [
            higher(f"own summary > off-register (AUC): {persona}", value, score[o["id"], persona])
            for value in own
            for o in off_register
        ]
    return checks


# --- persona quality -------------------------------------------------------------------------------------------------
QUALITY_VERSIONS: tuple[str, ...] = ("good", "wrong_register", "wrong_content")


def quality_items(cases: Sequence[Mapping[str, Any]]) -> dict[Key, tuple[str, str, str]]:
    """``{(id, version): (summary, reference, persona)}`` for the good, wrong-register and wrong-content summaries."""
    return {
        (case["id"], version): (case[version], case["reference"], case["persona"])
        for case in cases
        for version in QUALITY_VERSIONS
    }


def quality_checks(cases: Sequence[Mapping[str, Any]], score: Mapping[Key, float], texts: str = "") -> list[Check]:
    """Good > wrong register, good > wrong content and good > wrong register > wrong content, per persona and all.

    ``texts`` labels the kind of cases in the property names (``"summaries"``: ``"good > wrong register
    (summaries): ..."``).
    """
    kind = f" ({texts})" if texts else ""
    personas = sorted({case["persona"] for case in cases})
    checks = []
    orders = (
        ("good > wrong register", ("good", "wrong_register")),
        ("good > wrong content", ("good", "wrong_content")),
        ("good > wrong register > wrong content", ("good", "wrong_register", "wrong_content")),
    )
    for what, versions in orders:
        for persona in [*personas, None]:
            label = persona or "all personas"
            checks += [
                Check(
                    f"{what}{kind}: {label}",
                    all(score[case["id"], a] > score[case["id"], b] for a, b in itertools.pairwise(versions)),
                )
                for case in cases
                if persona in (None, case["persona"])
            ]
    return checks


def term_gaps(
    cases: Sequence[Mapping[str, Any]],
    content: Mapping[Key, float],
    style: Mapping[Key, float],
    weights: Mapping[str, float],
) -> dict[str, dict[str, float]]:
    """How much each term of the overall score moves between a good summary and its spoiled versions.

    Per spoiled version (``wrong_register``, ``wrong_content``): the mean over the cases of ``|w_content ·
    Δcontent|`` and ``|w_style · Δstyle|`` (Δ: good minus spoiled), and the style term's share of their sum.

    >>> gaps = term_gaps([{"id": "q"}], {("q", "good"): 0.6, ("q", "wrong_register"): 0.5, ("q", "wrong_content"): 0.2},
    ...                  {("q", "good"): 0.9, ("q", "wrong_register"): 0.4, ("q", "wrong_content"): 0.9},
    ...                  {"content": 0.7, "style": 0.3})
    >>> {k: round(g["style_share"], 3) for k, g in gaps.items()}  # 0.15 / (0.07 + 0.15); 0 / (0.28 + 0)
    {'wrong_register': 0.682, 'wrong_content': 0.0}
    """
    out = {}
    for version in QUALITY_VERSIONS[1:]:
        terms = {
            term: sum(abs(weights[term] * (values[c["id"], "good"] - values[c["id"], version])) for c in cases)
            / len(cases)
            for term, values in (("content", content), ("style", style))
        }
        total = terms["content"] + terms["style"]
        out[version] = terms | {"style_share": terms["style"] / total if total else 0.0}
    return out


# --- PerSEval / DEGRESS -----------------------------------------------------------------------------------------------
def by_document(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """The lines of each document, its users in ``user_id`` order."""
    documents: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        documents.setdefault(row["document_id"], []).append(row)
    return {doc: sorted(users, key=lambda row: row["user_id"]) for doc, users in documents.items()}


def system_predictions(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Per system, one prediction per line of ``rows`` (aligned with them).

    * ``oracle``: each user's own reference;
    * ``rotated``: user *i* of a document gets user *i + 1*'s reference (the last gets the first's), users in
      ``user_id`` order;
    * ``same_for_all``: every user of a document gets its first user's reference.

    >>> rows = [{"document_id": "d", "user_id": u, "reference": u.upper()} for u in ("u2", "u1", "u3")]
    >>> system_predictions(rows)
    {'oracle': ['U2', 'U1', 'U3'], 'rotated': ['U3', 'U2', 'U1'], 'same_for_all': ['U1', 'U1', 'U1']}
    """
    rotated: dict[tuple[str, str], str] = {}
    first: dict[str, str] = {}
    for doc, users in by_document(rows).items():
        first[doc] = users[0]["reference"]
        for i, row in enumerate(users):
            rotated[doc, row["user_id"]] = users[(i + 1) % len(users)]["reference"]
    return {
        "oracle": [row["reference"] for row in rows],
        "rotated": [rotated[row["document_id"], row["user_id"]] for row in rows],
        "same_for_all": [first[row["document_id"]] for row in rows],
    }


def perseval_checks(
    perseval: Mapping[str, Mapping[Hashable, float]],
    degress: Mapping[str, Mapping[Hashable, float]],
    shuffled: Mapping[str, tuple[float, float]],
) -> list[Check]:
    """Oracle highest, rotation lowers PerSEval, same summary for all → DEGRESS < 0.05 (per document), row order.

    Args:
        perseval: ``{system: {document: PerSEval}}`` for the systems of :func:`system_predictions`.
        degress: ``{system: {document: DEGRESS}}`` likewise.
        shuffled: ``{system: (system PerSEval, system PerSEval of the rows shuffled)}``; equal means exactly.
    """
    oracle, rotated, same = perseval["oracle"], perseval["rotated"], perseval["same_for_all"]
    checks = [
        Check("oracle highest PerSEval (per document)", bool(oracle[doc] > max(rotated[doc], same[doc])))
        for doc in oracle
    ]
    checks += [higher("rotation lowers PerSEval (per document)", oracle[doc], rotated[doc]) for doc in oracle]
    checks += [
        Check(f"same summary for all: DEGRESS < {DEGRESS_NEAR_ZERO:g} (per document)", bool(value < DEGRESS_NEAR_ZERO))
        for value in degress["same_for_all"].values()
    ]
    checks += [
        Check("shuffled rows: the same system PerSEval exactly", bool(before == after))
        for before, after in shuffled.values()
    ]
    return checks


__all__ = [
    "COHERENCE_SPOILS",
    "DEGRESS_NEAR_ZERO",
    "OFF_REGISTER_QUANTILE",
    "QUALITY_VERSIONS",
    "Check",
    "by_document",
    "coherence_items",
    "completeness_items",
    "edit_kinds",
    "first_word",
    "higher",
    "lower_quantile",
    "off_register_checks",
    "perseval_checks",
    "quality_checks",
    "quality_items",
    "repeated",
    "reversed_order",
    "style_checks",
    "summary_eval_checks",
    "system_predictions",
    "tally",
    "term_gaps",
    "vert_checks",
    "vert_items",
]
