"""PerSEval with BERTScore through the distributed metric class: one process against 2 gloo processes.

    python scripts/bench_distributed.py [--rows N] [--threads T]

Each side runs in fresh processes (so the first call, model load included, is what is timed, as a user meets it):
one process with T torch threads, then ``torch.distributed.run --nproc_per_node 2`` with T/2 threads each (the same
cores). Rows: the shipped PENS sample (the headline as every user's summary), ``DistributedSampler`` order in the
2-process run. The table gives the wall seconds of ``compute()`` and of the whole process, each rank's share of the
rows, and whether the results are equal (they must be, bit for bit). Machine load is printed beside it: timings on a
busy machine are not comparable with an idle one.
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


def worker(out: Path, rows: int) -> None:
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
    data = load_pens(ROOT / "data" / "pens_sample").select(range(rows))
    columns = {
        "predictions": baseline_predictions(data, "headline"),
        "references": list(data["reference"]),
        "documents": list(data["document"]),
    }
    mine = list(range(rank, rows, size))
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


def run(processes: int, threads: int, rows: int, out: Path) -> list[dict]:
    env = {**os.environ, "BENCH_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}
    script = [str(Path(__file__).resolve()), "--worker", str(out), "--rows", str(rows)]
    if processes == 1:
        cmd = [sys.executable, *script]
    else:
        cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={processes}", *script]
    subprocess.run(cmd, check=True, env=env, capture_output=True, text=True)
    return [json.loads((out / f"rank{r}.json").read_text()) for r in range(processes)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=279, help="rows of the PENS sample (default: all 279)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads in all (default 2: this machine)")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker, args.rows)
        return
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as one_dir, tempfile.TemporaryDirectory() as two_dir:
        one = run(1, args.threads, args.rows, Path(one_dir))
        two = run(2, max(1, args.threads // 2), args.rows, Path(two_dir))
    equal = all(rank["result"] == one[0]["result"] for rank in two)
    base = one[0]["compute_s"]
    print(f"PerSEval (bertscore) of {args.rows} PENS rows; load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"{'run':<28}{'compute s':>11}{'process s':>11}{'rows per rank':>16}{'speed-up':>10}")
    print(f"{'1 process, %d threads' % args.threads:<28}{base:>11.2f}{one[0]['process_s']:>11.2f}"
          f"{str([one[0]['scored']]):>16}{1.0:>10.2f}")  # fmt: skip
    slowest = max(rank["compute_s"] for rank in two)
    print(f"{'2 gloo processes, %d each' % max(1, args.threads // 2):<28}{slowest:>11.2f}"
          f"{max(r['process_s'] for r in two):>11.2f}{str([r['scored'] for r in two]):>16}{base / slowest:>10.2f}")  # fmt: skip
    print(f"results equal bit for bit on every rank: {equal}")
    if not equal:
        sys.exit(1)


if __name__ == "__main__":
    main()
