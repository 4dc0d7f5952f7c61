"""Ray Data scoring against one process, rows by rows: where Ray stops losing (``docs/scaling.md`` §4).

    python scripts/bench_ray_crossover.py [--metrics perseval,persona_quality] [--rows 279,2000,20000,200000]
        [--model-rows 279,2000] [--cpus N] [--timeout S]

Data: the shipped PENS sample (279 rows, the headline as every user's summary) replicated to N rows: copy k > 0
of a row has the document id ``ID-rk`` and " rk" appended to its texts, so no text repeats and the per-text caches
of one process give it no free work. ``perseval`` (rougeL) is the cheap metric, scored by document shard;
``persona_quality`` (ROUGE-Lsum + BERTScore + style, the personas cycled) is the model-bound one, scored in batches
(``--model-rows``: it is slow on CPUs); ``persona_style`` and ``degress`` may be named too.

Every cell is a fresh process (pair): the inputs are built first (not timed); "first" is what a user waits for in
a new process: the library's call in one process, or ``import ray`` + ``ray.init`` + ``from_columns`` +
``score_dataset`` on a local Ray cluster of ``--cpus`` CPUs (default: all of them). "warm" is a second call in the
same process on other rows of the same size (the texts tagged anew, so no cache answers): imports, models and Ray
workers already up. Ratio: Ray's time over one process's (below 1: Ray wins). "equal": the Ray result equals the
one-process result field by field, floats with ``==`` (the merge is exact, so anything else is a bug). Machine
load is printed beside it: timings on a busy machine say little.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import math
import os
import pickle
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MODEL_METRICS = {"persona_quality"}


def columns(metric: str, rows: int, tag: str) -> dict[str, list[str]]:
    """The PENS sample replicated to ``rows`` rows, texts and ids made distinct per copy (``tag`` per call)."""
    from persona_metrics.datasets.pens import baseline_predictions, load_pens
    from persona_metrics.persona import BUILTIN_PERSONAS

    data = load_pens(ROOT / "data" / "pens_sample")
    base = {
        "predictions": baseline_predictions(data, "headline"),
        "references": list(data["reference"]),
        "documents": list(data["document"]),
        "document_ids": list(data["news_id"]),
    }
    size = len(base["predictions"])
    out: dict[str, list[str]] = {name: [] for name in base}
    for i in range(rows):
        copy, j = divmod(i, size)
        suffix = f" {tag}{copy}" if copy or tag else ""
        for name in ("predictions", "references", "documents"):
            out[name].append(base[name][j] + suffix)
        out["document_ids"].append(base["document_ids"][j] + (f"-{tag}r{copy}" if copy or tag else ""))
    if metric in ("perseval", "degress"):
        return out
    personas = [BUILTIN_PERSONAS[i % len(BUILTIN_PERSONAS)] for i in range(rows)]
    if metric == "persona_style":
        return {"predictions": out["predictions"], "personas": personas}
    return {"predictions": out["predictions"], "references": out["references"], "personas": personas}


def one_process(metric: str, data: dict[str, list[str]]) -> Any:
    """The library's one call over all rows (the function the Ray tasks call on their parts)."""
    from persona_metrics.metric_registry import metric_spec

    return metric_spec(metric).score(data)


def worker(mode: str, metric: str, rows: int, cpus: int, out: Path) -> None:
    """One cell: build the inputs, time the first and the warm call, pickle the first result."""
    warnings.simplefilter("ignore")  # the copies' single-reference documents: the same warning on both sides
    first_data, warm_data = columns(metric, rows, ""), columns(metric, rows, "w")
    timings: dict[str, float] = {}
    if mode == "one":
        start = time.perf_counter()
        result = one_process(metric, first_data)
        timings["first"] = time.perf_counter() - start
        start = time.perf_counter()
        one_process(metric, warm_data)
        timings["warm"] = time.perf_counter() - start
    else:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        start = time.perf_counter()
        import ray
        import ray.data

        from persona_metrics.integrations.ray_data import from_columns, score_dataset

        level = logging.ERROR
        ray.init(address="local", num_cpus=cpus, include_dashboard=False, logging_level=level, log_to_driver=False)
        ray.data.DataContext.get_current().enable_progress_bars = False
        logging.getLogger("ray.data").setLevel(logging.ERROR)
        timings["init"] = time.perf_counter() - start
        result = score_dataset(from_columns(first_data), metric)
        timings["first"] = time.perf_counter() - start
        start = time.perf_counter()
        score_dataset(from_columns(warm_data), metric)
        timings["warm"] = time.perf_counter() - start
        ray.shutdown()
    (out / "result.pickle").write_bytes(pickle.dumps((timings, result)))


def cell(mode: str, metric: str, rows: int, cpus: int, timeout: float) -> tuple[dict[str, float], Any] | None:
    """One fresh process's timings and result, or None when it ran past ``timeout`` seconds."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", mode, metric, str(rows), str(cpus), out]
        try:
            subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        except subprocess.CalledProcessError as error:
            sys.exit(f"{mode} {metric} {rows} rows failed:\n{error.stderr[-3000:]}")
        return pickle.loads((Path(out) / "result.pickle").read_bytes())


def same(a: Any, b: Any) -> bool:
    """``a`` and ``b`` hold the same values field by field: floats ``==`` (NaN where NaN), arrays element-wise."""
    import numpy as np

    if type(a) is not type(b):
        return False
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        fields = [f.name for f in dataclasses.fields(a) if f.compare]
        return all(same(getattr(a, name), getattr(b, name)) for name in fields)
    if isinstance(a, np.ndarray):
        kind = a.dtype.kind == "f"
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=kind))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[key], b[key]) for key in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return bool(a == b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--metrics", default="perseval,persona_quality", help="comma-separated metric names")
    parser.add_argument("--rows", default="279,2000,20000,200000", help="row counts of the cheap metrics")
    parser.add_argument("--model-rows", default="279,2000", help="row counts of persona_quality")
    parser.add_argument("--cpus", type=int, default=os.cpu_count() or 1, help="CPUs of the local Ray cluster")
    parser.add_argument("--timeout", type=float, default=900, help="seconds a cell may run (then: skipped)")
    parser.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        mode, metric, rows, cpus, out = args.worker
        worker(mode, metric, int(rows), int(cpus), Path(out))
        return
    import ray

    load = os.getloadavg()
    print(f"{os.cpu_count()} cores, Ray {ray.__version__} on {args.cpus} CPUs; load average before: "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")  # fmt: skip
    head = f"{'metric':<16}{'rows':>8}{'1 proc first':>14}{'Ray first':>11}{'(init)':>8}{'ratio':>8}"
    print(f"{head}{'1 proc warm':>13}{'Ray warm':>10}{'ratio':>8}{'load':>6}  equal")
    failed = False
    for metric in args.metrics.split(","):
        sizes = args.model_rows if metric in MODEL_METRICS else args.rows
        for rows in map(int, sizes.split(",")):
            before = os.getloadavg()[0]
            alone = cell("one", metric, rows, args.cpus, args.timeout)
            spread = cell("ray", metric, rows, args.cpus, args.timeout)
            if alone is None or spread is None:
                print(f"{metric:<16}{rows:>8}  past --timeout {args.timeout:.0f} s; larger sizes skipped")
                break
            (one, result), (ray_s, ray_result) = alone, spread
            equal = same(ray_result, result)
            failed |= not equal
            print(f"{metric:<16}{rows:>8}{one['first']:>14.2f}{ray_s['first']:>11.2f}{ray_s['init']:>8.2f}"
                  f"{ray_s['first'] / one['first']:>8.1f}{one['warm']:>13.2f}{ray_s['warm']:>10.2f}"
                  f"{ray_s['warm'] / one['warm']:>8.1f}{before:>6.1f}  {equal}", flush=True)  # fmt: skip
    print(f"load average after: {os.getloadavg()[0]:.2f}; ratio = Ray / one process (below 1: Ray is faster)")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
