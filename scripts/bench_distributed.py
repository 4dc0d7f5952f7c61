"""PerSEval with BERTScore through the distributed metric class: one process against 2 gloo processes.

    python scripts/bench_distributed.py [--pens-dir DIR] [--rows N] [--threads T]

Every run is a fresh process (or pair of processes), so each call is the first one, model load included, as a
user meets it (the embeddings of a text are cached in a process, so a second call in the same process would time
the cache, not the work). Runs: one process with T torch threads; one process with T/2 threads (what one rank had
when rank 0 scored every row); ``torch.distributed.run --nproc_per_node 2`` with T/2 threads each (the same
cores), the rows in ``DistributedSampler`` order. Data: the shipped PENS sample, or a PENS-format folder such as
``scripts/make_synthetic_pens.py`` output, the headline as every user's summary. The table gives the seconds of
``compute()`` (the slowest rank), of the whole process, each rank's share of the rows and the speed-up; the
results must be equal bit for bit. Machine load is printed beside it: timings on a busy machine say little.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def worker(out: Path, pens_dir: Path, rows: int) -> None:
    """One rank (or the only process): add this rank's rows, time compute(), write what it saw."""
    start = time.perf_counter()
    import torch
    import torch.distributed as dist

    if "RANK" in os.environ:
        dist.init_process_group("gloo")
    torch.set_num_threads(int(os.environ["BENCH_THREADS"]))
    from persona_metrics.datasets.pens import baseline_predictions, load_pens
    from persona_metrics.integrations.distributed import PersevalMetric, rank_and_size

    rank, size = rank_and_size()
    data = load_pens(pens_dir)
    data = data.select(range(min(rows, len(data))))
    columns = {
        "predictions": baseline_predictions(data, "headline"),
        "references": list(data["reference"]),
        "documents": list(data["document"]),
        "document_ids": list(data["news_id"]),
    }
    mine = list(range(rank, len(data), size))
    metric = PersevalMetric(distance="bertscore", return_per_summary=True)
    metric.update(**{k: [v[i] for i in mine] for k, v in columns.items()}, indices=mine)
    tick = time.perf_counter()
    result = metric.compute()
    done = time.perf_counter()
    record = {"result": result, "compute_s": done - tick, "process_s": done - start, "scored": metric.scored_rows}
    (out / f"rank{rank}.json").write_text(json.dumps(record))
    if size > 1:
        dist.barrier()
        dist.destroy_process_group()


def run(processes: int, threads: int, args: argparse.Namespace) -> list[dict]:
    """The records of one run (one per rank)."""
    env = {**os.environ, "BENCH_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}
    with tempfile.TemporaryDirectory() as out:
        script = [str(Path(__file__).resolve()), "--worker", out, "--pens-dir", str(args.pens_dir)]
        script += ["--rows", str(args.rows)]
        launcher = ["-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={processes}"]
        cmd = [sys.executable, *(launcher if processes > 1 else []), *script]
        subprocess.run(cmd, check=True, env=env, capture_output=True, text=True)
        return [json.loads((Path(out) / f"rank{r}.json").read_text()) for r in range(processes)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pens-dir", type=Path, default=ROOT / "data" / "pens_sample", help="PENS-format folder")
    parser.add_argument("--rows", type=int, default=10**9, help="at most this many rows (default: all)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads in all (default 2: this machine)")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker, args.pens_dir, args.rows)
        return
    half = max(1, args.threads // 2)
    load = os.getloadavg()
    runs = [
        (f"1 process, {args.threads} threads", run(1, args.threads, args)),
        (f"1 process, {half} thread(s)", run(1, half, args)),
        (f"2 gloo processes, {half} each", run(2, half, args)),
    ]
    reference = runs[0][1][0]["result"]
    equal = all(rank["result"] == reference for _, ranks in runs for rank in ranks)
    rows = runs[0][1][0]["scored"]
    print(f"PerSEval (bertscore), {rows} rows of {args.pens_dir.name}; load average before: "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; after: {os.getloadavg()[0]:.2f}")  # fmt: skip
    print(f"{'run':<28}{'compute s':>11}{'process s':>11}{'rows per rank':>16}{'speed-up':>10}")
    base = runs[0][1][0]["compute_s"]
    for name, ranks in runs:
        seconds = max(r["compute_s"] for r in ranks)
        print(f"{name:<28}{seconds:>11.2f}{max(r['process_s'] for r in ranks):>11.2f}"
              f"{[r['scored'] for r in ranks]!s:>16}{base / seconds:>10.2f}")  # fmt: skip
    print(f"speed-up: against the first row; results equal bit for bit on every rank: {equal}")
    if not equal:
        sys.exit(1)


if __name__ == "__main__":
    main()
