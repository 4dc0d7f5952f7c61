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
instead of ``|ref| × |cand|`` Python steps.

``rouge_score`` reads out every (reference sentence, candidate sentence) pair: time grows with the product of the
two sentence counts (80,000 characters a side: about 6 CPU-s; a million: 1,011 CPU-s). Here only the
pairs that can change a union are read out, which gives the same unions:

* an LCS uses only positions whose token the candidate sentence holds, so a candidate sentence can add to a
  reference sentence's union only if it holds the token of a position not yet in it. Each reference sentence
  looks its still-open tokens up in an index (token → candidate sentences holding it), rarest token first, and
  reads out those candidate sentences until every position of that token is in the union (or none is left);
* equal candidate sentences are read out once (equal pairs have equal LCSs), and so are equal reference
  sentences (their unions are equal; the hits are still counted per sentence, in order).

Realistic text then needs a few read-outs per reference sentence (5–20 measured), so the work grows about linearly
(a million characters a side: about 2–4 CPU-s with the sentence splitting, ``scripts/bench_rouge_lsum.py``,
``docs/style.md`` §6.5). The product remains the worst case: when a reference sentence's
position can never enter the union although its word is in many candidate sentences (a repeated word whose second
copy no LCS reaches, e.g. every reference sentence ``"The the …"`` against candidate sentences holding one "the"
each), every candidate sentence holding that word is still read out. After :data:`SLOW_READ_OUTS` read-outs in one
call, :func:`summary_lcs_f1` calls its ``on_slow`` hook (persona_quality warns); the value stays exact.

``tests/test_quality.py`` checks the scores against ``rouge_score`` (bit for bit) on the samples and on unicode,
multi-line and empty inputs; ``tests/test_rouge_lsum_scaling.py`` against its ``_summary_level_lcs`` on random
token sentences with ties and repeats and on long texts, and counts the read-outs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from persona_metrics.distances.fast_tokens import rouge_tokens

#: Read-outs of sentence pairs in one :func:`summary_lcs_f1` call after which its ``on_slow`` hook is called (about
#: 7 CPU-s of short sentences; 25 to 50 times what the realistic million characters a side of the bench need).
SLOW_READ_OUTS = 5_000_000


def lsum_sentences(text: str) -> list[list[str]]:
    r"""``rouge_score``'s rougeLsum sentences of ``text``: its non-empty ``"\n"`` lines, each tokenized and stemmed."""
    return [rouge_tokens(line) for line in text.split("\n") if line]


def _match_masks(can: Sequence[str]) -> dict[str, int]:
    """Token → bit mask of its positions in ``can``."""
    match: dict[str, int] = {}
    for j, token in enumerate(can):
        match[token] = match.get(token, 0) | (1 << j)
    return match


def _lcs_rows(ref: Sequence[str], can: Sequence[str], match: dict[str, int]) -> list[int]:
    """Bit-vector rows ``V_0 … V_len(ref)`` of the LCS table of ``ref`` (rows) against ``can`` (columns)."""
    full = (1 << len(can)) - 1
    rows = [full]
    v = full
    for token in ref:
        u = v & match.get(token, 0)
        v = ((v + u) | (v - u)) & full
        rows.append(v)
    return rows


def _read_out(ref: Sequence[str], can: Sequence[str], match: dict[str, int]) -> list[int]:
    """``rouge_score``'s LCS read-out of ``ref`` against ``can`` (``match``: :func:`_match_masks` of ``can``).

    The positions in ``ref``, descending.
    """
    rows = _lcs_rows(ref, can, match)
    i, j = len(ref), len(can)
    out: list[int] = []
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            out.append(i - 1)
            i -= 1
            j -= 1
        # rouge_score's lcs_table[i][j - 1] > lcs_table[i - 1][j], with t[i][j] = j - popcount(V_i & (2^j - 1))
        elif j - 1 - (rows[i] & ((1 << (j - 1)) - 1)).bit_count() > j - (rows[i - 1] & ((1 << j) - 1)).bit_count():
            j -= 1
        else:
            i -= 1
    return out


def lcs_indices(ref: Sequence[str], can: Sequence[str]) -> list[int]:
    """Positions in ``ref`` of the LCS ``rouge_score.rouge_scorer.lcs_ind(ref, can)`` reads out (ascending)."""
    if not ref or not can or set(ref).isdisjoint(can):
        return []
    return _read_out(ref, can, _match_masks(can))[::-1]


class _Candidates:
    """The candidate sentences of one call: each distinct one once, an index token → those holding it."""

    def __init__(self, can_sents: Sequence[Sequence[str]]) -> None:
        self.sentences: list[tuple[str, ...]] = list(dict.fromkeys(map(tuple, can_sents)))
        self.holding: dict[str, list[int]] = {}
        for index, can in enumerate(self.sentences):
            for token in dict.fromkeys(can):
                self.holding.setdefault(token, []).append(index)
        self._masks: dict[int, dict[str, int]] = {}
        self.read_outs = 0

    def union(self, ref: Sequence[str]) -> list[int]:
        """Sorted union over every candidate sentence of :func:`lcs_indices` ``(ref, candidate)``.

        Only candidate sentences holding the token of a position not yet in the union are read out (an LCS uses
        only positions whose token the candidate holds, so the others add nothing).
        """
        open_positions: dict[str, set[int]] = {}
        for k, token in enumerate(ref):
            if token in self.holding:
                open_positions.setdefault(token, set()).add(k)
        covered: set[int] = set()
        done: set[int] = set()
        for token in sorted(open_positions, key=lambda t: len(self.holding[t])):
            wanted = open_positions[token]
            if wanted <= covered:
                continue
            for index in self.holding[token]:
                if index in done:
                    continue
                done.add(index)
                can = self.sentences[index]
                match = self._masks.get(index)
                if match is None:
                    match = self._masks[index] = _match_masks(can)
                covered.update(_read_out(ref, can, match))
                self.read_outs += 1
                if wanted <= covered:
                    break
        return sorted(covered)


def _fmeasure(precision: float, recall: float) -> float:
    """``rouge_score.scoring.fmeasure``."""
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def summary_lcs_f1(
    ref_sents: Sequence[Sequence[str]],
    can_sents: Sequence[Sequence[str]],
    on_slow: Callable[[int], None] | None = None,
) -> float:
    """``rouge_score``'s ``_summary_level_lcs(ref_sents, can_sents).fmeasure`` (tokenized sentences).

    Args:
        ref_sents: the reference's sentences, each a list of tokens.
        can_sents: the candidate's (prediction's) sentences.
        on_slow: called once, with the number of sentence pairs read out so far, when that number reaches
            :data:`SLOW_READ_OUTS` (the computation then goes on, exact).
    """
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
    candidates = _Candidates(can_sents)
    unions: dict[tuple[str, ...], list[int]] = {}
    slow = on_slow
    hits = 0
    for ref in ref_sents:
        key = tuple(ref)
        union = unions.get(key)
        if union is None:
            union = unions[key] = candidates.union(key)
            if slow is not None and candidates.read_outs >= SLOW_READ_OUTS:
                slow(candidates.read_outs)
                slow = None
        for token in (ref[k] for k in union):
            if counts_c.get(token, 0) > 0 and counts_r.get(token, 0) > 0:
                hits += 1
                counts_c[token] -= 1
                counts_r[token] -= 1
    return _fmeasure(hits / n, hits / m)


def rouge_lsum_f1(target: str, prediction: str) -> float:
    """``RougeScorer(["rougeLsum"], use_stemmer=True).score(target, prediction)["rougeLsum"].fmeasure``."""
    return summary_lcs_f1(lsum_sentences(target), lsum_sentences(prediction))
