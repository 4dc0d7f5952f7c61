"""Thin wrapper: ``persona-metrics cnndm`` (see ``persona-metrics cnndm --help``).

python scripts/benchmark_cnndm.py -n 16 --seed 0 --format table
"""

from __future__ import annotations

from persona_metrics.cli import run_command


def main(argv: list[str] | None = None) -> int:
    return run_command("cnndm", argv)


if __name__ == "__main__":
    raise SystemExit(main())
