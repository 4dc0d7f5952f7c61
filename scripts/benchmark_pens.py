"""Thin wrapper: ``persona-metrics pens`` (see ``persona-metrics pens --help``).

python scripts/benchmark_pens.py data/pens_sample --out outputs/pens_sample --distance rougeL jsd
"""

from __future__ import annotations

from persona_metrics.cli import run_command


def main(argv: list[str] | None = None) -> int:
    return run_command("pens", argv)


if __name__ == "__main__":
    raise SystemExit(main())
