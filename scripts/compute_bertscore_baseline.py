"""Recompute the packaged MiniLM's BERTScore rescaling baseline from the persona samples and ``data/``.

Thin wrapper over ``persona_metrics.commands.bertscore_baseline``; the method is
``persona_metrics.persona.bertscore_baseline``.

    python scripts/compute_bertscore_baseline.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from persona_metrics.commands import bertscore_baseline

DATA = Path(__file__).resolve().parents[1] / "data"


def main(argv: list[str] | None = None) -> int:
    return bertscore_baseline.main(["--data", str(DATA), *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
