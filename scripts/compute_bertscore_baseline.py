"""Recompute the packaged MiniLM's BERTScore rescaling baseline from the sentence pairs shipped beside it.

Thin wrapper over ``persona_metrics.commands.bertscore_baseline``; the method is
``persona_metrics.persona.bertscore_baseline``.

    python scripts/compute_bertscore_baseline.py               # the shipped pairs: reproduces the shipped file
    python scripts/compute_bertscore_baseline.py --data data   # a new pair set from the persona samples and data/
"""

from __future__ import annotations

import sys

from persona_metrics.commands import bertscore_baseline


def main(argv: list[str] | None = None) -> int:
    return bertscore_baseline.main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    raise SystemExit(main())
