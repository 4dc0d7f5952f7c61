"""Write the validity tables of a report into the metric cards (their "Limitations (measured)" section).

``make validity`` runs ``persona-metrics validity --json docs/validity.json`` and then this script, so the cards
show what the committed report says (tests/test_validity.py fails while a card differs from it):

    python scripts/validity_tables.py [docs/validity.json] [--check]

Each card (``metrics/<name>/README.md``) holds its table between :data:`BEGIN` and :data:`END`; the table is the
command's own markdown table of the card's metric. ``--check`` changes nothing and exits 1 when a card differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from persona_metrics.commands.output import markdown_table
from persona_metrics.validity import ValidityReport

ROOT = Path(__file__).resolve().parents[1]
#: The committed report the cards show.
REPORT = ROOT / "docs" / "validity.json"
#: Card name → (the metric whose table it shows, only the properties naming this or None for all).
CARDS: dict[str, tuple[str, str | None]] = {
    "vert": ("vert", None),
    "summary_eval": ("summary_eval", None),
    "persona_style": ("persona_style", None),
    "persona_quality": ("persona_quality", None),
    "perseval": ("perseval", None),
    "degress": ("perseval", "DEGRESS"),
}
BEGIN = "<!-- validity table: written by scripts/validity_tables.py from docs/validity.json; do not edit -->"
END = "<!-- end of validity table -->"


def card_path(card: str) -> Path:
    """``metrics/<card>/README.md``."""
    return ROOT / "metrics" / card / "README.md"


def card_table(report: ValidityReport, card: str) -> str:
    """The markdown table card ``card`` must show for ``report``."""
    metric, naming = CARDS[card]
    return markdown_table(report.table(metric, naming))


def current_table(card: str) -> str:
    """The table between the markers of a card as it is now.

    Raises:
        ValueError: the card lacks the markers.
    """
    text = card_path(card).read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise ValueError(f"{card_path(card)}: no validity table markers ({BEGIN} ... {END})")
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")


def write_table(report: ValidityReport, card: str) -> None:
    """Put the report's table between the card's markers."""
    path = card_path(card)
    current_table(card)  # the markers are there
    head, rest = path.read_text(encoding="utf-8").split(BEGIN, 1)
    path.write_text(f"{head}{BEGIN}\n{card_table(report, card)}\n{END}{rest.split(END, 1)[1]}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Rewrite (or with ``--check`` compare) every card's table; exit 1 when ``--check`` finds a difference."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", nargs="?", type=Path, default=REPORT, help="the report JSON (default: %(default)s)")
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when a card differs")
    args = parser.parse_args(argv)
    report = ValidityReport.from_dict(json.loads(args.report.read_text(encoding="utf-8")))
    stale = [card for card in CARDS if current_table(card) != card_table(report, card)]
    if not args.check:
        for card in stale:
            write_table(report, card)
    for card in stale:
        sys.stderr.write(f"{card_path(card).relative_to(ROOT)}: {'differs' if args.check else 'updated'}\n")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
