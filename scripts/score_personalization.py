"""Thin wrapper: ``persona-metrics score perseval FILE [...]`` (see ``persona-metrics score --help``).

python scripts/score_personalization.py data/personalization_sample/sample.jsonl -o distance=jsd --format json
"""

from __future__ import annotations

import sys

from persona_metrics.cli import run_command


def main(argv: list[str] | None = None) -> int:
    return run_command("score", ["perseval", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
