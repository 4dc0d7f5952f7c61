"""Thin wrapper: ``persona-metrics pipeline`` (see ``persona-metrics pipeline --help``).

python scripts/evaluate_summaries.py data/financial_sample --out outputs/financial_sample
"""

from __future__ import annotations

from persona_metrics.cli import run_command


def main(argv: list[str] | None = None) -> int:
    return run_command("pipeline", argv)


if __name__ == "__main__":
    raise SystemExit(main())
