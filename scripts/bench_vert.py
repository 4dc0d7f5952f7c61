"""VERT against the seed's approach (gensim ``wmdistance`` + WordLlama per pair), side by side, values checked.

Three sizes (``docs/vert.md`` §9):

* ``-n`` pairs (default 10,000) of sentences: the sentences of data/cnndm_sample (articles and highlights) and
  data/personalization_sample (references) as references, cycled; each prediction is its reference with one to
  three words replaced by words of other sentences, one word dropped and the pair's number appended, so every
  pair is different (no cache can cheat);
* ``--long-pairs`` pairs (default 60) of ``--long-words``-word texts (default 1,000): references made by
  concatenating consecutive sample sentences, one reference per four pairs; each prediction is its reference
  with one word in eight replaced by a word of another sentence, one word dropped and the pair's number
  appended (the same recipe at length);
* ``--memory-pairs`` pairs (default 100,000; 0 skips it): peak memory (``VmHWM``) of a fresh process that loads
  the models, scores the pairs in one call and reports its peak, twice: as installed (POT imports torch when
  torch is installed) and with POT's torch backend off (``POT_BACKEND_DISABLE_PYTORCH=1``, what an install
  without torch takes). The seed's loop would take minutes at this size, so the row has no peer timing; its
  values are checked on the first ``-n`` pairs (the same pairs as the first row) against the seed's values.

Printed side by side, on the same pairs and the same models: this library (one ``score_vert`` call, defaults:
WordLlama, packaged GloVe 6B 50d) and the seed's approach (per pair: the NLTK-stopword filter, gensim's
``KeyedVectors.wmdistance(norm=False)`` capped at 5, WordLlama's ``embed`` on each text, the cosine and the
formula). Model loading is done before either is timed; each side runs ``--repeat`` times (default 3, in turns)
and its fastest run counts, the usual rule for timings on a shared machine. Wall seconds are the rows' figures;
the CPU seconds of this process are printed beside them (the development machine is shared, and the library's
one short call suffers more from a burst of other work than the seed's long loop). Exit status 1 when a per-pair
VERT differs by more than 1e-9.

    python scripts/bench_vert.py                      # all three sizes (about 2 minutes here)
    python scripts/bench_vert.py -n 2000 --long-pairs 12 --memory-pairs 0 --rows rows.json
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from persona_metrics.vert import score_vert
from persona_metrics.vert.encoders import _wordllama_model
from persona_metrics.vert.stopwords import NLTK_ENGLISH_STOPWORDS
from persona_metrics.vert.vectors import glove_6b_50d

ROOT = Path(__file__).resolve().parents[1]
#: Largest per-pair |VERT difference| accepted against the seed's approach.
TOLERANCE = 1e-9
#: Peak memory target of the memory row: 0.5 GiB, in MiB (``VmHWM`` counts KiB).
PEAK_TARGET_MB = 512.0


def sentences() -> list[str]:
    """The sentences of the shipped CNN/DM and personalization samples."""
    texts = []
    for line in (ROOT / "data" / "cnndm_sample" / "test.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        texts += [record["article"], record["highlights"]]
    for line in (ROOT / "data" / "personalization_sample" / "sample.jsonl").read_text(encoding="utf-8").splitlines():
        texts.append(json.loads(line)["reference"])
    out = [s.strip() for t in texts for s in re.split(r"(?<=[.!?])\s+", t)]
    return sorted({s for s in out if len(s.split()) >= 5})


def perturb(reference: str, replaced: int, number: int, vocabulary: list[str], rng: random.Random) -> str:
    """``reference`` with ``replaced`` words replaced by vocabulary words, one dropped, ``number`` appended."""
    words = reference.split()
    for _ in range(replaced):
        words[rng.randrange(len(words))] = rng.choice(vocabulary)
    del words[rng.randrange(len(words))]
    return " ".join([*words, str(number)])


def make_pairs(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """``n`` (prediction, reference) pairs, each prediction a perturbed copy of its reference."""
    rng = random.Random(seed)
    pool = sentences()
    vocabulary = sorted({w for s in pool for w in s.split()})
    predictions, references = [], []
    for i in range(n):
        reference = pool[i % len(pool)]
        predictions.append(perturb(reference, rng.randint(1, 3), i, vocabulary, rng))
        references.append(reference)
    return predictions, references


def make_long_pairs(n: int, words: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """``n`` pairs of ``words``-word texts: consecutive sample sentences, one reference per four pairs."""
    rng = random.Random(seed)
    pool = sentences()
    rng.shuffle(pool)
    vocabulary = sorted({w for s in pool for w in s.split()})
    references: list[str] = []
    start = 0
    for _ in range(max(1, n // 4)):
        text: list[str] = []
        while len(text) < words:
            text += pool[start % len(pool)].split()
            start += 1
        references.append(" ".join(text))
    predictions, refs = [], []
    for i in range(n):
        reference = references[i % len(references)]
        predictions.append(perturb(reference, len(reference.split()) // 8, i, vocabulary, rng))
        refs.append(reference)
    return predictions, refs


def seed_approach(predictions: list[str], references: list[str], kv: Any, model: Any) -> np.ndarray:
    """Per pair: gensim WMD on the filtered tokens (capped at 5), WordLlama per text, cosine, formula."""
    out = np.empty(len(predictions))
    for i, (p, r) in enumerate(zip(predictions, references, strict=True)):
        tokens_p = [w for w in p.lower().split() if w not in NLTK_ENGLISH_STOPWORDS]
        tokens_r = [w for w in r.lower().split() if w not in NLTK_ENGLISH_STOPWORDS]
        wmd = min(kv.wmdistance(tokens_p, tokens_r, norm=False), 5.0)
        a = model.embed([p])[0].astype(np.float64)
        b = model.embed([r])[0].astype(np.float64)
        sim = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
        out[i] = 0.5 * (1.0 + sim - wmd / 5.0)
    return out


def peak_mb() -> float:
    """This process's peak resident memory (``VmHWM``), MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def memory_child(n: int, check: int) -> int:
    """In a fresh process: load the models, score ``n`` pairs, print peaks, time and the first values (JSON)."""
    predictions, references = make_pairs(n)
    score_vert(predictions[:4], references[:4])  # loads vectors, encoder and POT
    baseline = peak_mb()
    start = time.perf_counter()
    result = score_vert(predictions, references)
    seconds = time.perf_counter() - start
    record = {"baseline_mb": baseline, "peak_mb": peak_mb(), "seconds": seconds, "vert": result.vert[:check].tolist()}
    sys.stdout.write(json.dumps(record) + "\n")
    return 0


def row(metric: str, size: str, project_s: float, peer: str, peer_s: float, diff: float, **extra: Any) -> dict:
    """One row of the ``--rows`` file (the keys ``make bench`` reads)."""
    ratio = peer_s / project_s if peer_s > 0 else 0.0
    out = {
        "metric": metric,
        "size": size,
        "project_s": project_s,
        "peer": peer,
        "peer_s": peer_s,
        "ratio": ratio,
        "max_abs_diff": diff,
        "tolerance": TOLERANCE,
        "values_ok": diff <= TOLERANCE,
        "peak_mb": extra.get("peak_mb"),
        "floor_s": None,
        "target": extra["target"],
        "met": bool(extra["met"]) and diff <= TOLERANCE,
    }
    return out


def side_by_side(
    predictions: list[str], references: list[str], kv: Any, model: Any, repeat: int = 1
) -> tuple[float, float, Any]:
    """Wall seconds of the library and of the seed's approach on the same pairs (each the fastest of ``repeat``
    runs, taken in turns), both value arrays (every run's must equal the first's), CPU seconds."""
    runs: dict[str, list[tuple[float, float, np.ndarray]]] = {"library": [], "seed": []}
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        values = score_vert(predictions, references).vert
        runs["library"].append((time.perf_counter() - start, time.process_time() - cpu, values))
        start, cpu = time.perf_counter(), time.process_time()
        values = seed_approach(predictions, references, kv, model)
        runs["seed"].append((time.perf_counter() - start, time.process_time() - cpu, values))
    for side in runs.values():
        if not all(np.array_equal(run[2], side[0][2]) for run in side):
            raise RuntimeError("a repeated run gave other values")
    (library, library_cpu), (loop, loop_cpu) = (
        (min(run[0] for run in side), min(run[1] for run in side)) for side in runs.values()
    )
    return library, loop, (runs["library"][0][2], runs["seed"][0][2], library_cpu, loop_cpu)


def run_memory(n: int, check: int, torch_backend: bool) -> dict:
    """The memory child's record (a fresh process)."""
    env = dict(os.environ)
    if not torch_backend:
        env["POT_BACKEND_DISABLE_PYTORCH"] = "1"
    done = subprocess.run(
        [sys.executable, __file__, "--memory-child", str(n), "--check", str(check)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    """Print the table; write ``--rows``; exit 1 when a value check fails."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--num-pairs", type=int, default=10_000)
    parser.add_argument("--long-pairs", type=int, default=60)
    parser.add_argument("--long-words", type=int, default=1000)
    parser.add_argument("--memory-pairs", type=int, default=100_000)
    parser.add_argument("--rows", type=Path, help="write the rows for make bench (JSON list) to this path")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each timed side (the fastest counts)")
    parser.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--check", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        return memory_child(args.memory_child, args.check)
    logging.getLogger("gensim").setLevel(logging.WARNING)  # gensim logs every Dictionary it builds at INFO
    from gensim.models import KeyedVectors

    vectors = glove_6b_50d()
    kv = KeyedVectors(vectors.dim, count=len(vectors))
    kv.add_vectors(list(vectors.index), np.asarray(vectors.matrix))
    model = _wordllama_model()
    score_vert(["a warm-up pair of words"], ["the warm-up reference words"])  # vectors, encoder, POT
    seed_approach(["a warm-up pair of words"], ["the warm-up reference words"], kv, model)
    peer = "seed approach: per pair gensim wmdistance(norm=False) + WordLlama embed per text"
    rows, lines = [], []
    load = "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())

    def compare(size: str, label: str, preds: list[str], refs: list[str], target: float) -> np.ndarray:
        """One side-by-side row (library vs the seed's approach); the seed's values."""
        library, loop, (ours, theirs, cpu, loop_cpu) = side_by_side(preds, refs, kv, model, args.repeat)
        diff = float(np.max(np.abs(ours - theirs)))
        met = loop / library >= target
        rows.append(row("vert", size, library, peer, loop, diff, target=f">= {target:g}x", met=met))
        lines.append(
            f"| {label} | {library:.2f} ({cpu:.2f}) | {loop:.2f} ({loop_cpu:.2f}) | {loop / library:.1f}x "
            f"({loop_cpu / cpu:.1f}x) | {diff:.1e} | - |"
        )
        return theirs

    size = f"{args.num_pairs:,} pairs"
    theirs = compare(size, f"{size} (sentences)", *make_pairs(args.num_pairs), 10)
    if args.long_pairs:
        size = f"{args.long_pairs} pairs of {args.long_words:,}-word texts"
        compare(size, size, *make_long_pairs(args.long_pairs, args.long_words), 3)

    if args.memory_pairs:
        check = min(args.num_pairs, args.memory_pairs)
        for torch_backend in (True, False):
            record = run_memory(args.memory_pairs, check, torch_backend)
            mem_diff = float(np.max(np.abs(np.asarray(record["vert"]) - theirs[:check])))
            label = "POT with torch backend" if torch_backend else "POT_BACKEND_DISABLE_PYTORCH=1"
            size = f"{args.memory_pairs:,} pairs, peak memory ({label})"
            note = (
                f"none: the seed loop is not run at {args.memory_pairs:,} pairs (minutes); values checked on the "
                f"first {check:,} pairs against the seed's; baseline with the models loaded "
                f"{record['baseline_mb']:.0f} MiB"
            )
            peak = float(record["peak_mb"])
            rows.append(
                row("vert", size, record["seconds"], note, 0.0, mem_diff, peak_mb=peak,
                    target=f"peak <= 0.5 GiB ({PEAK_TARGET_MB:.0f} MiB)", met=peak <= PEAK_TARGET_MB)
            )  # fmt: skip
            lines.append(
                f"| {size} | {record['seconds']:.2f} | - | - | {mem_diff:.1e} | {peak:.0f} MiB "
                f"(models loaded: {record['baseline_mb']:.0f} MiB) |"
            )

    out = [
        f"# VERT against the seed's approach (WordLlama + GloVe 6B 50d); {load}",
        "",
        "| size | library s (CPU s) | seed approach s (CPU s) | speed-up (CPU) | max abs VERT diff | peak VmHWM |",
        "|---|---|---|---|---|---|",
        *lines,
        "",
        f"tolerance {TOLERANCE:g}; end: load average " + "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg()),
    ]
    sys.stdout.write("\n".join(out) + "\n")
    if args.rows:
        args.rows.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0 if all(r["values_ok"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
