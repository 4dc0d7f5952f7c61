r"""ROUGE-Lsum F1 exactly as ``rouge_score`` computes it, with the project's fast tokenizer and a bit-parallel LCS.

``rouge_score.rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True).score(target, prediction)`` splits both
texts on ``"\n"`` (empty lines dropped), tokenizes each line
(:func:`~persona_metrics.distances.fast_tokens.rouge_tokens` gives the same tokens), and scores the summary-level
LCS (ROUGE paper §3.2, as in ROUGE 1.5.5): for each reference sentence the union of the LCS token positions against
every candidate sentence, each union token counted as a hit while both texts still have an unused copy of it;
``P = hits / n``, ``R = hits / m``, ``F = 2PR / (P + R)``.

Which LCS ``rouge_score`` takes matters for the union, so its read-out is kept step for step: from the end of both
sentences, a match is taken, else the candidate moves back when ``t[i][j-1] > t[i-1][j]``, else the reference does.
Only the table is computed differently: row ``i`` of ``rouge_score``'s table ``t`` is held as one Python int
(Hyyrö's bit-vector LCS; bit ``j`` is set where the row does not grow at column ``j+1``), so
``t[i][j] = j − popcount(V_i & (2^j − 1))``: the same integers, in ``O(|ref|)`` big-int operations per pair
instead of ``|ref| × |cand|`` Python steps. ``tests/test_quality.py`` checks the scores against ``rouge_score``
(bit for bit) on the samples and on unicode, multi-line and empty inputs.
"""

from __future__ import annotations

from collections.abc import Sequence

from persona_metrics.distances.fast_tokens import rouge_tokens


def lsum_sentences(text: str) -> list[list[str]]:
    r"""``rouge_score``'s rougeLsum sentences of ``text``: its non-empty ``"\n"`` lines, each tokenized and stemmed."""
    return [rouge_tokens(line) for line in text.split("\n") if line]


def _lcs_rows(ref: Sequence[str], can: Sequence[str]) -> list[int]:
    """Bit-vector rows ``V_0 … V_len(ref)`` of the LCS table of ``ref`` (rows) against ``can`` (columns)."""
    full = (1 << len(can)) - 1
    match: dict[str, int] = {}
    for j, token in enumerate(can):
        match[token] = match.get(token, 0) | (1 << j)
    rows = [full]
    v = full
    for token in ref:
        u = v & match.get(token, 0)
        v = ((v + u) | (v - u)) & full
        rows.append(v)
    return rows


def lcs_indices(ref: Sequence[str], can: Sequence[str]) -> list[int]:
    """Positions in ``ref`` of the LCS ``rouge_score.rouge_scorer.lcs_ind(ref, can)`` reads out (ascending)."""
    if not ref or not can or set(ref).isdisjoint(can):
        return []
    rows = _lcs_rows(ref, can)

    def table(i: int, j: int) -> int:  # rouge_score's lcs_table[i][j]
        return j - (rows[i] & ((1 << j) - 1)).bit_count()

    i, j = len(ref), len(can)
    out: list[int] = []
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            out.append(i - 1)
            i -= 1
            j -= 1
        elif table(i, j - 1) > table(i - 1, j):
            j -= 1
        else:
            i -= 1
    out.reverse()
    return out


def _fmeasure(precision: float, recall: float) -> float:
    """``rouge_score.scoring.fmeasure``."""
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def summary_lcs_f1(ref_sents: Sequence[Sequence[str]], can_sents: Sequence[Sequence[str]]) -> float:
    """``rouge_score``'s ``_summary_level_lcs(ref_sents, can_sents).fmeasure`` (tokenized sentences)."""
    if not ref_sents or not can_sents:
        return 0.0
    m = sum(map(len, ref_sents))
    n = sum(map(len, can_sents))
    if not n or not m:
        return 0.0
    counts_r: dict[str, int] = {}
    counts_c: dict[str, int] = {}
    for sent, counts in [(s, counts_r) for s in ref_sents] + [(s, counts_c) for s in can_sents]:
        for token in sent:
            counts[token] = counts.get(token, 0) + 1
    hits = 0
    for ref in ref_sents:
        union = sorted(set().union(*(lcs_indices(ref, can) for can in can_sents)))
        for token in (ref[k] for k in union):
            if counts_c.get(token, 0) > 0 and counts_r.get(token, 0) > 0:
                hits += 1
                counts_c[token] -= 1
                counts_r[token] -= 1
    return _fmeasure(hits / n, hits / m)


def rouge_lsum_f1(target: str, prediction: str) -> float:
    """``RougeScorer(["rougeLsum"], use_stemmer=True).score(target, prediction)["rougeLsum"].fmeasure``."""
    return summary_lcs_f1(lsum_sentences(target), lsum_sentences(prediction))
