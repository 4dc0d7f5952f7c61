"""``make bench``: every speed comparison of the project, side by side with its peer, in one table.

Each entry of :data:`BENCHES` is a bench script run in its own process with ``--rows FILE``; the script times this
library and its peer on the same inputs, checks that their values agree within the stated tolerance (exit status
non-zero otherwise) and writes its rows. This script only collects them: one row per comparison with the metric,
the size, both times, their ratio, the largest difference of values, the project side's peak memory, the floor
where one is measured, the target and whether it is met. The machine's load average is printed before and after
each bench: timings taken on a busy machine are not comparable with idle ones.

    python scripts/bench_all.py                      # all benches (make bench)
    python scripts/bench_all.py --only perseval vert # some of them
    python scripts/bench_all.py --json outputs/bench/bench.json

Data: the benches that need PENS-format data generate it first (``scripts/make_synthetic_pens.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
#: PENS-format data at full scale, and the same with a real vocabulary (the first-call bench needs words to stem):
#: directory → the arguments of scripts/make_synthetic_pens.py that make it.
PENS = ROOT / "outputs" / "synthetic_pens"
PENS_LEXICON = ROOT / "outputs" / "synthetic_pens_lexicon"
PENS_DATA = {PENS: (), PENS_LEXICON: ("--lexicon", "100000")}
#: The keys every row has (the bench scripts' ``--rows`` format).
ROW_KEYS = ("metric", "size", "project_s", "peer", "peer_s", "ratio", "max_abs_diff", "tolerance", "values_ok",
            "peak_mb", "floor_s", "target", "met")  # fmt: skip


@dataclass(frozen=True)
class Bench:
    """One bench script and its arguments (``--rows FILE`` is added)."""

    name: str
    script: str
    args: tuple[str, ...] = ()
    data: Path | None = None  # a PENS_DATA directory it reads
    env: tuple[tuple[str, str], ...] = ()  # environment variables it runs with


BENCHES = (
    Bench("perseval", "bench_perseval.py", (str(PENS_LEXICON), "--first-call"), PENS_LEXICON),
    Bench("persona_quality", "bench_quality.py"),
    Bench("bertscore", "bench_bertscore.py", (str(PENS), "--full"), PENS),
    Bench("vert", "bench_vert.py", env=(("OMP_NUM_THREADS", "1"),)),  # both sides on one thread
    Bench("summary_eval", "bench_summary_eval.py", ("-n", "1000"), env=(("OMP_NUM_THREADS", "1"),)),
)


def load_average() -> str:
    """The 1-minute load average and the number of cores."""
    return f"load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"


def ensure_pens(directory: Path) -> None:
    """Generate a PENS-format directory of :data:`PENS_DATA` if it is not there."""
    if not (directory / "personalized_test.tsv").is_file():
        command = [sys.executable, str(SCRIPTS / "make_synthetic_pens.py"), str(directory), *PENS_DATA[directory]]
        subprocess.run(command, check=True)


def run(bench: Bench) -> tuple[list[dict], int, str]:
    """Run one bench; its rows, exit status and printed output."""
    if bench.data is not None:
        ensure_pens(bench.data)
    with tempfile.TemporaryDirectory() as tmp:
        rows_path = Path(tmp) / "rows.json"
        command = [sys.executable, str(SCRIPTS / bench.script), *bench.args, "--rows", str(rows_path)]
        proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env={**os.environ, **dict(bench.env)})
        rows = json.loads(rows_path.read_text()) if rows_path.is_file() else []
    for row in rows:
        missing = [key for key in ROW_KEYS if key not in row]
        if missing:
            raise ValueError(f"{bench.script} wrote a row without {missing}: {row}")
    return rows, proc.returncode, proc.stdout + proc.stderr


def number(value: float | None, digits: str) -> str:
    """A table cell: ``value`` formatted, or a dash."""
    return "—" if value is None else format(value, digits)


def table(rows: list[dict]) -> str:
    """The collected rows as one table."""
    body = [
        [r["metric"], r["size"], number(r["project_s"], ".3f"), f"{r['peer']}: {number(r['peer_s'], '.3f')}",
         number(r["ratio"], ".1f") + "x", f"{r['max_abs_diff']:.1e} (<= {r['tolerance']:.0e})",
         number(r["peak_mb"], ".0f"), number(r["floor_s"], ".3f"), r["target"],
         ("met" if r["met"] else "MISSED") if r["values_ok"] else "VALUES DIFFER"]
        for r in rows
    ]  # fmt: skip
    headers = ["metric", "size", "project s", "peer s", "ratio", "max |Δ|", "peak MB", "floor s", "target", ""]
    return tabulate(body, headers=headers, tablefmt="github", disable_numparse=True)


def main(argv: list[str] | None = None) -> int:
    """Run the benches and print the table; non-zero when a bench failed or values differ."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="+", choices=[b.name for b in BENCHES], help="these benches only")
    parser.add_argument("--json", type=Path, help="also write the rows (with the load averages) here")
    args = parser.parse_args(argv)
    selected = [b for b in BENCHES if not args.only or b.name in args.only]
    rows: list[dict] = []
    failed: list[str] = []
    for bench in selected:
        before, start = load_average(), time.perf_counter()
        sys.stderr.write(f"[bench] {bench.name}: {bench.script} ({before})\n")
        bench_rows, status, output = run(bench)
        after = load_average()
        sys.stderr.write(output)
        sys.stderr.write(f"[bench] {bench.name}: {time.perf_counter() - start:.0f} s, exit {status} ({after})\n")
        if status != 0 or not bench_rows:
            failed.append(bench.name)
        rows += [{**row, "bench": bench.name, "load_before": before, "load_after": after} for row in bench_rows]
    sys.stdout.write(table(rows) + "\n")
    loads = sorted({f"{r['bench']}: {r['load_before']} → {r['load_after']}" for r in rows})
    sys.stdout.write("machine: " + "; ".join(loads) + "\n")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    values_ok = all(r["values_ok"] for r in rows)
    sys.stdout.write(f"value checks: {'all passed' if values_ok and not failed else 'FAILED ' + ', '.join(failed)}\n")
    return 0 if values_ok and not failed else 1


if __name__ == "__main__":
    raise SystemExit(main())
