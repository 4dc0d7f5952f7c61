"""PerSEval / DEGRESS speed and exactness: this library vs. a naive per-pair implementation of the same formulas.

On PENS-format data (e.g. ``scripts/make_synthetic_pens.py`` output at full scale), with synthetic model
outputs (each user's title edited in a model-specific way), for each distance:

1. **exactness and speed-up** on the first ``--naive-docs`` documents: the naive reference calls the reference
   library once per pair (``rouge_score``'s ``RougeScorer`` for rougeL, scipy's ``jensenshannon`` for jsd,
   ``bert_score`` for bertscore: one call over the subset's pairs) and the per-document formulas as they were
   before the batched code (kept verbatim below); the library scores the same documents with a fresh distance
   object. Printed: both times, the ratio and the max |diff| of per-summary PerSEval and DEGRESS, which must be 0
   (bit for bit) for rougeL and <= 1e-12 for jsd; the library's values must not depend on the input type
   (lists or ``datasets`` Columns);
2. **full scale**, inputs as lists and as ``datasets`` Columns (``ds["reference"]``, ``ds["document"]``,
   ``ds["news_id"]``): the first model (reference side + model side), a further model (reference side reused)
   and ``--models`` models in all, each time with a fresh distance object;
3. **a fresh process** (``--child``): imports, ``load_pens`` and ``--models`` models per distance, with its wall
   time, peak memory (the process's own high-water mark, ``VmHWM``) and whether nltk or torch were imported.

``--check`` runs the exactness part only (on fewer documents) and exits non-zero on a mismatch.

``--first-call`` is the call a user times: rougeL on the first ``--naive-docs`` documents (default 150), in a
fresh process per entry point (the library function ``PersonalizationScorer(...).score``, and the evaluate module:
``evaluate.load("perseval")`` then ``compute``), imports and data loading done before the clock starts; then a
second call in the same process (a new distance object: what the process keeps is the stem memo). The naive
reference runs in this process (warmed up). Times are CPU seconds of the calling process (``time.process_time``;
every side is single-threaded), wall seconds beside them; every side's per-summary values must be bit for bit the
reference's. Each side runs ``--repeat`` times (default 3: the reference in this process, each entry point in a
fresh process every time) and its fastest run counts, the usual rule for timings on a shared machine (``timeit``'s);
every run's values are checked. Use data with a real vocabulary (``make_synthetic_pens.py --lexicon``): the default
synthetic data has 153 distinct words, which hides the cost of stemming. ``--rows PATH`` writes the rows of
``make bench``.

    python scripts/make_synthetic_pens.py outputs/synthetic_pens
    python scripts/bench_perseval.py outputs/synthetic_pens --distance rougeL jsd
    python scripts/bench_perseval.py outputs/synthetic_pens --check
    python scripts/make_synthetic_pens.py outputs/synthetic_pens_lexicon --lexicon 100000
    python scripts/bench_perseval.py outputs/synthetic_pens_lexicon --first-call
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

START = time.perf_counter()

import numpy as np  # noqa: E402  (START is taken before the imports the child process reports on)
from scipy.special import expit  # noqa: E402

from persona_metrics.datasets.pens import load_pens  # noqa: E402
from persona_metrics.distances import word_tokens  # noqa: E402
from persona_metrics.personalization import PersonalizationScorer, group_documents  # noqa: E402

#: Largest |diff| allowed between the library and the naive reference, per distance (rougeL: bit for bit).
TOLERANCE = {"rougeL": 0.0, "jsd": 1e-12, "bertscore": 1e-6}


def model_outputs(references: Sequence[str], headlines: Sequence[str], model: int) -> list[str]:
    """Model ``model``'s prediction per example: the user's title minus one word plus a headline word."""
    out = []
    for ref, head in zip(references, headlines, strict=True):
        words, extra = ref.split(), head.split()
        if len(words) > 2:
            del words[model % len(words)]
        out.append(" ".join([*words, extra[model % len(extra)]]))
    return out


# --- the naive reference: per-pair library calls, per-document formulas as before the batched code ----------------
def naive_sigma(name: str) -> Callable[[list[tuple[str, str]]], np.ndarray]:
    """σ over a pair list with the reference library called per pair (bertscore: one call for the list)."""
    if name == "rougeL":
        from rouge_score import rouge_scorer

        scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
        return lambda pairs: np.array([1.0 - scorer.score(a, b)["rougeL"].fmeasure for a, b in pairs])
    if name == "jsd":
        from scipy.spatial.distance import jensenshannon

        def jsd(a: str, b: str) -> float:
            ca, cb = Counter(word_tokens(a)), Counter(word_tokens(b))
            if not ca or not cb:
                return 1.0
            vocab = sorted(ca.keys() | cb.keys())
            return float(jensenshannon([ca[w] for w in vocab], [cb[w] for w in vocab], base=2) ** 2)

        return lambda pairs: np.array([jsd(a, b) for a, b in pairs])
    if name == "bertscore":
        from bert_score import score

        from persona_metrics.resources import minilm_path

        def bs(pairs: list[tuple[str, str]]) -> np.ndarray:
            _, _, f1 = score(
                [b for _, b in pairs], [a for a, _ in pairs], model_type=str(minilm_path()), num_layers=6, batch_size=64
            )
            return 1.0 - f1.numpy().astype(np.float64)

        return bs
    raise SystemExit(f"no naive implementation for {name}")


def naive_weighted(pair: np.ndarray, to_doc: np.ndarray) -> np.ndarray:
    """X (or Y) of eq. (1) for one document, as the library computed it before batching (verbatim)."""
    n = pair.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(to_doc[:, None] == 0.0, 0.0, pair / to_doc[:, None])
    off = ~np.eye(n, dtype=bool)
    w = np.where(off, w, -np.inf)
    w = w - w.max(axis=1, keepdims=True)
    e = np.exp(w)
    soft = e / e.sum(axis=1, keepdims=True)
    return np.where(off, soft * pair, 0.0)


def naive_degress(ref_pair: np.ndarray, ref_doc: np.ndarray, pred_pair: np.ndarray, pred_doc: np.ndarray) -> np.ndarray:
    """DEGRESS of one document's summaries, per document (verbatim from before batching)."""
    n = ref_pair.shape[0]
    x, y = naive_weighted(ref_pair, ref_doc), naive_weighted(pred_pair, pred_doc)
    r = (np.minimum(x, y) + 1e-5) / (np.maximum(x, y) + 1e-5)
    np.fill_diagonal(r, 0.0)
    return r.sum(axis=1) / (n - 1)


def naive_edp(accuracy: np.ndarray, alpha: float = 3.0, beta: float = 1.7, gamma: float = 4.0) -> np.ndarray:
    """EDP of one document's summaries, per document (verbatim from before batching)."""

    def sigmoid(x: Any, offset: float, slope: float) -> np.ndarray:
        return expit(np.power(10.0, slope) * np.asarray(x, dtype=np.float64) - offset * math.log(10.0))

    d_min, d_mean = float(accuracy.min()), float(accuracy.mean())
    with np.errstate(divide="ignore"):
        drop = np.float64(d_min) / ((1.0 - d_min) + 1e-7)
    adp = float(sigmoid(drop, gamma, 1.0))
    acp = sigmoid((accuracy - d_min) / ((d_mean - d_min) + 1e-7), gamma, 1.0)
    return 1.0 - sigmoid(adp + acp, alpha, beta) + 1e-7


def naive_scores(
    preds: Sequence[str],
    refs: Sequence[str],
    docs: Sequence[str],
    ids: Sequence | None,
    sigma: Callable[[list], np.ndarray],
    beta: float = 1.7,
) -> np.ndarray:
    """Per-summary (PerSEval, DEGRESS) with every σ from the reference library, one document at a time.

    Also the reference of ``tests/test_fast_paths.py`` (there with σ from ``rouge_score`` and the former jsd loop).
    """
    out = np.full((len(preds), 2), np.nan)
    for g in group_documents(docs, ids):
        if len(g.indices) < 2:
            continue
        idx, n = list(g.indices), len(g.indices)
        mats = []
        for side in (refs, preds):
            pairs = [(side[idx[j]], side[idx[k]]) for j in range(n) for k in range(n) if j != k]
            m = np.zeros((n, n))
            m[~np.eye(n, dtype=bool)] = sigma(pairs)
            mats += [m, sigma([(side[i], g.document) for i in idx])]
        deg = naive_degress(*mats)
        out[idx, 0] = deg * naive_edp(sigma([(preds[i], refs[i]) for i in idx]), beta=beta)
        out[idx, 1] = deg
    return out


# --- the library ------------------------------------------------------------------------------------------------
def fresh(name: str) -> Any:
    """A new distance object (no cache shared with earlier runs)."""
    from persona_metrics.distances import BertScore, JensenShannon, RougeL

    return {"rougeL": RougeL, "jsd": JensenShannon, "bertscore": BertScore}[name]()


def peak_gb() -> float:
    """This process's peak resident memory in GB: ``VmHWM`` from ``/proc/self/status``.

    Not ``ru_maxrss``: Linux keeps it across ``execve``, so a child started by a large parent reports the
    parent's peak (this bench's parent holds the full corpus and ten models: 0.89 GB reported for a child at
    0.46 GB). ``ru_maxrss`` only where ``/proc`` is missing.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024**2  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, result) of one call."""
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def library_scores(preds: Sequence[str], refs: Sequence[str], docs: Sequence[str], ids: Sequence[str], name: str):
    """Per-summary (PerSEval, DEGRESS) of the library, with a fresh distance object."""
    res = PersonalizationScorer(refs, docs, ids, distance=fresh(name)).score(preds)
    return np.column_stack([res.per_summary("perseval"), res.per_summary("degress")]).astype(float)


class Data:
    """The PENS data as lists and as ``datasets`` Columns, the subset of the side-by-side part, the model outputs."""

    def __init__(self, pens_dir: Path, naive_docs: int, models: int) -> None:
        self.ds = load_pens(pens_dir)
        self.load_pens_gb = peak_gb()  # imports + load_pens
        self.refs, self.docs, self.ids, self.heads = (
            list(self.ds[c]) for c in ("reference", "document", "news_id", "headline")
        )
        self.groups = group_documents(self.docs, self.ids)
        self.sub = sorted(i for g in self.groups[:naive_docs] for i in g.indices)
        self.preds = [model_outputs(self.refs, self.heads, m) for m in range(1, models + 1)]

    def columns(self) -> tuple[Any, Any, Any]:
        """References, documents and ids as a user of ``datasets`` passes them."""
        return self.ds["reference"], self.ds["document"], self.ds["news_id"]

    def subset(self, values: Sequence[str]) -> list[str]:
        """The side-by-side subset of a column."""
        return [values[i] for i in self.sub]


def check(name: str, data: Data) -> tuple[list[str], bool]:
    """Report lines and success of the exactness checks (naive vs library; lists vs Columns) on the subset."""
    args = [data.subset(x) for x in (data.preds[0], data.refs, data.docs, data.ids)]
    sigma = naive_sigma(name)  # imports and loads outside the timings, on both sides
    sigma([("warm up", "the reference library")])
    fresh(name)("warm up", "the library")
    t_naive, naive = timed(lambda: naive_scores(*args, sigma))
    t_ours, mine = timed(lambda: library_scores(*args, name))
    diff = float(np.nanmax(np.abs(mine - naive)))
    sub_ds = data.ds.select(data.sub)
    from_columns = library_scores(args[0], sub_ds["reference"], sub_ds["document"], sub_ds["news_id"], name)
    same_inputs = np.array_equal(from_columns, mine, equal_nan=True)
    ok = diff <= TOLERANCE[name] and same_inputs and np.array_equal(np.isnan(mine), np.isnan(naive))
    lines = [
        f"side by side, {len({data.ids[i] for i in data.sub})} documents ({len(data.sub)} summaries), one model:",
        f"  naive per-pair reference {t_naive:9.3f} s",
        f"  persona-metrics          {t_ours:9.3f} s",
        f"  ratio                    {t_naive / t_ours:9.1f} x",
        f"  max |diff| of per-summary PerSEval and DEGRESS: {diff:.2e} (allowed {TOLERANCE[name]:.0e})",
        f"  Columns give the same values as lists: {same_inputs}",
        f"  exact: {'OK' if ok else 'FAILED'}",
    ]
    return lines, ok


def full_scale(name: str, data: Data, inputs: str) -> list[str]:
    """Timings at full scale with the given input type (``lists`` or ``columns``)."""
    refs, docs, ids = (data.refs, data.docs, data.ids) if inputs == "lists" else data.columns()
    t_init, scorer = timed(lambda: PersonalizationScorer(refs, docs, ids, distance=fresh(name)))
    t_first, first = timed(lambda: scorer.score(data.preds[0]))
    t_further, _ = timed(lambda: scorer.score(data.preds[1]))
    t_rest, _ = timed(lambda: [scorer.score(p) for p in data.preds[2:]])
    total = t_init + t_first + t_further + t_rest
    return [
        f"full scale, inputs as {inputs} ({len(data.refs)} summaries per model, {len(data.groups)} documents):",
        f"  first model (reference side + model side) {t_init + t_first:7.3f} s  [reference side {t_init:.3f} s]",
        f"  further model (reference side reused)     {t_further:7.3f} s",
        f"  {len(data.preds)} models in all {total:26.3f} s",
        f"  first-model PerSEval {first.perseval:.6f}, DEGRESS {first.degress:.6f}",
    ]


def child(args: argparse.Namespace) -> int:
    """The fresh-process run: load, score ``--models`` models per distance, report wall time and peak memory."""
    data = Data(args.pens_dir, 0, args.models)
    loaded_gb = peak_gb()  # load_pens and the model inputs
    start = time.perf_counter()
    for name in args.distance:
        scorer = PersonalizationScorer(data.refs, data.docs, data.ids, distance=fresh(name))
        for preds in data.preds:
            scorer.score(preds)
    report = {
        "wall_s": time.perf_counter() - START,
        "scoring_s": time.perf_counter() - start,
        "load_pens_gb": data.load_pens_gb,
        "loaded_gb": loaded_gb,
        "peak_gb": peak_gb(),
        "nltk": "nltk" in sys.modules,
        "torch": "torch" in sys.modules,
    }
    sys.stdout.write(json.dumps(report) + "\n")
    return 0


def fresh_process(args: argparse.Namespace) -> list[str]:
    """Run :func:`child` in a new interpreter and report it."""
    command = [sys.executable, __file__, str(args.pens_dir), "--child", "--models", str(args.models), "--distance"]
    start = time.perf_counter()
    out = subprocess.run([*command, *args.distance], capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - start
    report = json.loads(out.strip().splitlines()[-1])
    return [
        f"## fresh process: imports + load_pens + {args.models} models x {{{', '.join(args.distance)}}}",
        "",
        f"  wall time, interpreter start and imports included {wall:7.2f} s  (script: {report['wall_s']:.2f} s)",
        f"  scoring only ({args.models} models x {len(args.distance)} distances)        {report['scoring_s']:7.2f} s",
        f"  peak memory after imports + load_pens (VmHWM)     {report['load_pens_gb']:7.2f} GB",
        f"  peak memory with the model inputs built           {report['loaded_gb']:7.2f} GB",
        f"  peak memory (VmHWM)                               {report['peak_gb']:7.2f} GB",
        f"  imported nltk: {report['nltk']}, torch: {report['torch']}",
        "",
    ]


# --- the first call of a fresh process -------------------------------------------------------------------------
#: The ratios over the naive reference that the first-call part asks for (CPU seconds; issue 25).
FIRST_CALL_TARGETS = {"library": 250.0, "evaluate": 100.0, "library, second call": 450.0}


def cpu_timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """(CPU seconds of this process, wall seconds, result) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn()
    return time.process_time() - cpu, time.perf_counter() - wall, result


def first_call_child(args: argparse.Namespace) -> int:
    """A fresh process: two calls of one entry point on the subset; times to stdout, values to ``--values``."""
    data = Data(args.pens_dir, args.naive_docs, 1)
    preds, refs, docs, ids = (data.subset(x) for x in (data.preds[0], data.refs, data.docs, data.ids))
    if args.first_call_child == "library":

        def call() -> np.ndarray:
            return library_scores(preds, refs, docs, ids, "rougeL")

    else:
        import evaluate

        def call() -> np.ndarray:
            module = evaluate.load("perseval")
            out = module.compute(
                predictions=preds, references=refs, documents=docs, document_ids=ids, distance="rougeL",
                return_per_summary=True,
            )  # fmt: skip
            per = out["per_summary"]
            return np.array([[np.nan if v is None else v for v in per[k]] for k in ("perseval", "degress")]).T

    runs = [cpu_timed(call) for _ in range(2)]
    np.save(args.values, runs[0][2])
    sys.stdout.write(json.dumps([[cpu, wall] for cpu, wall, _ in runs]) + "\n")
    return 0


def first_call(args: argparse.Namespace) -> tuple[list[str], list[dict[str, Any]], bool]:
    """Report lines, bench rows and success of the first-call comparison."""
    data = Data(args.pens_dir, args.naive_docs, 1)
    subset = [data.subset(x) for x in (data.preds[0], data.refs, data.docs, data.ids)]
    n_docs, n_items = len(set(subset[3])), len(subset[0])
    sigma = naive_sigma("rougeL")
    sigma([("warm up", "the reference library")])
    naive_runs = [cpu_timed(lambda: naive_scores(*subset, sigma)) for _ in range(args.repeat)]
    naive = naive_runs[0][2]
    all_ok = all(np.array_equal(run[2], naive, equal_nan=True) for run in naive_runs)
    naive_cpu, naive_wall = min(run[0] for run in naive_runs), min(run[1] for run in naive_runs)
    lines = [
        f"## rougeL, the first call of a fresh process: {n_docs} documents, {n_items} summaries",
        f"   (load average {os.getloadavg()[0]:.2f}; CPU seconds, wall seconds in brackets; the fastest of "
        f"{args.repeat} runs of each side)",
        "",
        f"  naive per-pair reference (rouge_score)   {naive_cpu:8.3f} CPU-s  ({naive_wall:.3f} s)",
    ]
    rows: list[dict[str, Any]] = []
    env = {**os.environ, "HF_EVALUATE_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    for entry in ("library", "evaluate"):
        times, diff, ok = [], 0.0, True
        for _ in range(args.repeat):  # a fresh process each time
            with tempfile.TemporaryDirectory() as tmp:
                values = Path(tmp) / "values.npy"
                command = [sys.executable, __file__, str(args.pens_dir), "--naive-docs", str(args.naive_docs),
                           "--first-call-child", entry, "--values", str(values)]  # fmt: skip
                out = subprocess.run(command, capture_output=True, text=True, check=True, env=env).stdout
                times.append(json.loads(out.strip().splitlines()[-1]))
                mine = np.load(values)
            diff = max(diff, float(np.nanmax(np.abs(mine - naive))))
            ok &= diff == 0.0 and np.array_equal(np.isnan(mine), np.isnan(naive))
        (first_cpu, first_wall), (second_cpu, second_wall) = (
            (min(t[k][0] for t in times), min(t[k][1] for t in times)) for k in (0, 1)
        )
        all_ok &= ok
        for label, cpu, wall in ((entry, first_cpu, first_wall), (f"{entry}, second call", second_cpu, second_wall)):
            ratio = naive_cpu / cpu
            target = FIRST_CALL_TARGETS.get(label)
            verdict = "" if target is None else f"  (target >= {target:.0f}x: {'met' if ratio >= target else 'MISSED'})"
            lines.append(f"  {label:<40} {cpu:8.3f} CPU-s  ({wall:.3f} s)  {ratio:7.1f}x{verdict}")
            if target is not None:
                rows.append({
                    "metric": f"PerSEval rougeL, {label}" + (" (fresh process)" if "second" not in label else ""),
                    "size": f"{n_docs} documents", "project_s": cpu, "peer": "naive per-pair rouge_score",
                    "peer_s": naive_cpu, "ratio": ratio, "max_abs_diff": diff, "tolerance": 0.0,
                    "values_ok": ok, "peak_mb": None, "floor_s": None, "target": f">= {target:.0f}x",
                    "met": ok and ratio >= target,
                })  # fmt: skip
        lines.append(f"  {'':<40} values vs the reference: max |diff| {diff:.1e} ({'OK' if ok else 'FAILED'})")
    return lines, rows, all_ok


def main(argv: list[str] | None = None) -> int:
    """Print the comparison for each distance (or only check exactness with ``--check``)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pens_dir", type=Path)
    parser.add_argument("--distance", nargs="+", default=["rougeL", "jsd"], choices=["rougeL", "jsd", "bertscore"])
    parser.add_argument("--naive-docs", type=int, help="documents side by side (default 100; 20 with --check)")
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--check", action="store_true", help="exactness only; exit 1 on a mismatch")
    parser.add_argument("--first-call", action="store_true", help="the first call of a fresh process (rougeL)")
    parser.add_argument("--rows", type=Path, help="write the make-bench rows (JSON) here (with --first-call)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per side, --first-call (fastest counts)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--first-call-child", choices=["library", "evaluate"], help=argparse.SUPPRESS)
    parser.add_argument("--values", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    if args.first_call_child:
        return first_call_child(args)
    if args.first_call:
        args.naive_docs = args.naive_docs if args.naive_docs is not None else 150
        lines, rows, ok = first_call(args)
        if args.rows:
            args.rows.write_text(json.dumps(rows, indent=1) + "\n")
        sys.stdout.write("\n".join([*lines, "", "exactness: " + ("OK" if ok else "FAILED")]) + "\n")
        return 0 if ok else 1
    naive_docs = args.naive_docs if args.naive_docs is not None else (20 if args.check else 100)
    data = Data(args.pens_dir, naive_docs, 2 if args.check else args.models)
    lines = [f"# PerSEval on {args.pens_dir}: {len(data.groups)} documents, {len(data.refs)} summaries per model", ""]
    all_ok = True
    for name in args.distance:
        report, ok = check(name, data)
        all_ok &= ok
        lines += [f"## {name}", "", *report]
        if not args.check:
            lines += full_scale(name, data, "lists") + full_scale(name, data, "columns")
        lines.append("")
    if not args.check:
        lines += fresh_process(args)
    lines.append("exactness: " + ("OK" if all_ok else "FAILED"))
    sys.stdout.write("\n".join(lines) + "\n")
    return 0 if all_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
