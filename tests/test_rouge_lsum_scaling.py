"""persona_quality's ROUGE-Lsum on long texts: rouge_score's value, bit for bit, with work about linear in the length.

``rouge_score`` reads out the LCS of every (reference sentence, prediction sentence) pair, so its time grows with
the product of the sentence counts (a million characters a side: tens of minutes). The summary-level LCS here reads
out only the pairs that can change a reference sentence's union. These tests compare the values with
``rouge_score``'s own ``_summary_level_lcs`` and count the read-outs instead of timing them; the remaining worst case
(a position no LCS reaches) warns, naming the item.
"""

from __future__ import annotations

import json
import random
import signal
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rouge_score import rouge_scorer

from persona_metrics import PersonaMetricsWarning
from persona_metrics.distances import rouge_lsum as L
from persona_metrics.persona import content
from persona_metrics.persona.content import split_sentences

ROOT = Path(__file__).resolve().parents[1]


def shipped_texts() -> list[str]:
    """Articles, highlights and summaries of the shipped CNN/DM and financial samples."""
    texts: list[str] = []
    for line in (ROOT / "data" / "cnndm_sample" / "test.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts += [row["article"], row["highlights"]]
    for path in sorted((ROOT / "data" / "financial_sample").glob("article_*.json")):
        row = json.loads(path.read_text(encoding="utf-8"))
        texts += [v for v in row.values() if isinstance(v, str) and len(v) > 80]
    return texts


SENTENCES = [s for text in shipped_texts() for s in content.sent_tokenize(text) if len(s.split()) > 3]
VOCABULARY = sorted({w for s in SENTENCES for w in s.split()})


def long_text(chars: int, seed: int) -> str:
    """About ``chars`` characters of shipped sentences, 10 % of the words dropped, 20 % replaced: none repeats."""
    rng = random.Random(seed)
    out: list[str] = []
    size = 0
    while size < chars:
        words = [rng.choice(VOCABULARY) if rng.random() < 0.2 else w for w in rng.choice(SENTENCES).split()]
        sentence = " ".join(w for w in words if rng.random() > 0.1).rstrip(".") + "."
        out.append(sentence)
        size += len(sentence) + 1
    return " ".join(out)[:chars]


def rouge_score_lsum(ref_sents: list[list[str]], can_sents: list[list[str]]) -> float:
    """``rouge_score``'s summary-level LCS F of tokenized sentences (every sentence pair read out)."""
    return float(rouge_scorer._summary_level_lcs(ref_sents, can_sents).fmeasure)


def tokenized(text: str) -> list[list[str]]:
    return L.lsum_sentences(split_sentences(text))


@pytest.fixture
def read_outs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A counter of the sentence pairs :func:`summary_lcs_f1` reads out."""
    count = [0]
    read_out = L._read_out

    def counted(*args: Any) -> list[int]:
        count[0] += 1
        return read_out(*args)

    monkeypatch.setattr(L, "_read_out", counted)
    return count


# --- values: rouge_score's, bit for bit ---------------------------------------------------------------------------
def test_equals_rouge_score_on_random_token_sentences() -> None:
    """Small alphabets (many ties and repeated words), empty sentences, sentences repeated within and across sides."""
    rng = random.Random(35)
    for _ in range(3000):
        alphabet = "abcdefgh"[: rng.randint(1, 8)]

        def sentences(alphabet: str = alphabet) -> list[list[str]]:
            return [[rng.choice(alphabet) for _ in range(rng.randint(0, 10))] for _ in range(rng.randint(0, 7))]

        ref, can = sentences(), sentences()
        if can and rng.random() < 0.3:
            ref.insert(rng.randint(0, len(ref)), list(rng.choice(can)))
        if can and rng.random() < 0.3:
            can.append(list(rng.choice(can)))
        if ref and rng.random() < 0.2:
            ref.append(list(rng.choice(ref)))
        assert L.summary_lcs_f1(ref, can) == rouge_score_lsum(ref, can), (ref, can)


def test_equals_rouge_score_on_long_texts() -> None:
    """Texts of 2,000–6,000 characters from the shipped sentences, and whole shipped articles against each other."""
    texts = [long_text(chars, seed) for chars, seed in [(2000, 1), (3000, 2), (6000, 3), (6000, 4)]]
    texts += shipped_texts()[:8]
    pairs = [(p, r) for p in texts[:4] for r in texts[2:9]]
    got = content.rouge_lsum([p for p, _ in pairs], [r for _, r in pairs])
    expected = [rouge_score_lsum(tokenized(r), tokenized(p)) for p, r in pairs]
    assert got.tolist() == expected
    assert len({round(v, 9) for v in expected}) > len(pairs) // 2  # the cases differ from each other


# --- work ---------------------------------------------------------------------------------------------------------
def test_read_outs_grow_linearly_on_realistic_text(read_outs: list[int]) -> None:
    """At 40,000 and 160,000 characters a side: a few read-outs per reference sentence, not every prediction's."""
    per_sentence = []
    for chars in (40_000, 160_000):
        ref, pred = tokenized(long_text(chars, 1)), tokenized(long_text(chars, 2))
        read_outs[0] = 0
        L.summary_lcs_f1(ref, pred)
        assert read_outs[0] < 40 * len(ref) < len(ref) * len(pred) / 10, (chars, read_outs[0], len(ref), len(pred))
        per_sentence.append(read_outs[0] / len(ref))
    assert per_sentence[1] < 2 * per_sentence[0]  # 4 × the text, about 4 × the read-outs (not 16 ×)


def test_equal_sentences_are_read_out_once(read_outs: list[int]) -> None:
    """Every sentence of both sides said three times: the same read-outs as the text said once, and F = 1."""
    sentences = tokenized(long_text(20_000, 5))
    assert L.summary_lcs_f1(sentences, sentences) == 1.0
    once, read_outs[0] = read_outs[0], 0
    thrice = [s for s in sentences for _ in range(3)]
    assert L.summary_lcs_f1(thrice, thrice) == 1.0
    assert read_outs[0] == once < 3 * len(sentences)


class _Timeout(Exception):
    pass


def test_a_million_character_pair_is_scored() -> None:
    """It finishes (a few CPU-s; every pair read out: tens of minutes). The alarm is a guard, not a measurement."""

    def alarm(*_: Any) -> None:
        raise _Timeout("ROUGE-Lsum of a 1M-character pair ran over 600 s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(600)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", PersonaMetricsWarning)  # realistic text: no slow-path warning
            value = content.rouge_lsum([long_text(1_000_000, 1)], [long_text(1_000_000, 2)])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert 0.5 < value[0] < 1.0


# --- the worst case: exact, with a warning --------------------------------------------------------------------------
def worst_case(sentences: int) -> tuple[str, str]:
    """Reference sentences "The the wN." against prediction sentences "The vN.": no LCS reaches the second "the"."""
    reference = " ".join(f"The the w{i}." for i in range(sentences))
    prediction = " ".join(f"The v{i}." for i in range(sentences + 10))
    return prediction, reference


def test_the_worst_case_reads_out_every_pair_and_warns(monkeypatch: pytest.MonkeyPatch, read_outs: list[int]) -> None:
    """Every pair is read out (the product of the counts); past SLOW_READ_OUTS a warning names the item and sizes."""
    monkeypatch.setattr(L, "SLOW_READ_OUTS", 1000)
    prediction, reference = worst_case(60)
    with pytest.warns(PersonaMetricsWarning) as caught:
        got = content.rouge_lsum(["Short and fine.", prediction], ["Fine and short.", reference], ["item 0", "item 7"])
    assert read_outs[0] == 1 + 60 * 70  # the first pair: one read-out; the second: every sentence pair
    assert got[1] == rouge_score_lsum(tokenized(reference), tokenized(prediction))  # still exact
    messages = [str(w.message) for w in caught if issubclass(w.category, PersonaMetricsWarning)]
    assert len(messages) == 1  # once per pair, for the slow one only
    assert messages[0].startswith("ROUGE-Lsum of item 7 (prediction 619 characters, 70 sentences; reference")
    assert "60 sentences) has read out 1," in messages[0]
    assert "may read out up to 4,200" in messages[0]
    assert messages[0].endswith("the value stays exact (docs/style.md §6.5)")


def test_the_warning_names_the_callers_item(monkeypatch: pytest.MonkeyPatch) -> None:
    """Through score_content (BERTScore stubbed): the item's index in the input, and the reference among several."""
    monkeypatch.setattr(L, "SLOW_READ_OUTS", 1000)
    monkeypatch.setattr(
        content, "bertscore_f1", lambda p, r, c: (np.zeros(len(p)), content.Signature.of("bertscore-stub"))
    )
    prediction, reference = worst_case(60)
    with pytest.warns(PersonaMetricsWarning, match=r"^ROUGE-Lsum of item 2, reference 1 \(prediction"):
        content.score_content(["A.", "B.", prediction], ["A.", "B.", ["C.", reference]])
