"""Every documentation reference in the repository points to a shipped file (and section).

Docstrings, cards, scripts and tests cite ``docs/<file>.md`` (optionally ``§N``); a citation of a file that is
not in the repository, a section the file does not have, or a private design path (``specs/…``,
``reference/…``) fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = [
    *sorted((ROOT / "src").rglob("*.py")),
    *sorted((ROOT / "metrics").rglob("*.py")),
    *sorted((ROOT / "metrics").rglob("*.md")),
    *sorted((ROOT / "scripts").glob("*.py")),
    *sorted((ROOT / "spaces").rglob("app.py")),
    *sorted((ROOT / "tests").glob("*.py")),
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "README.md",
]
CITATION = re.compile(r"docs/([\w-]+\.md)(?:`{0,2})?(?:\s*§\s*(\d+(?:\.\d+)?))?")
PRIVATE = re.compile(r"\b(?:specs|reference)/[\w-]+\.(?:md|txt)")


def _citations() -> list[tuple[str, str, str | None]]:
    found = []
    for path in SCANNED:
        if path.name == "test_docs.py":
            continue
        for match in CITATION.finditer(path.read_text(encoding="utf-8")):
            found.append((str(path.relative_to(ROOT)), match.group(1), match.group(2)))
    return found


def test_there_are_citations_to_check() -> None:
    assert len(_citations()) >= 10


@pytest.mark.parametrize(("where", "doc", "section"), _citations())
def test_cited_doc_and_section_exist(where: str, doc: str, section: str | None) -> None:
    target = ROOT / "docs" / doc
    assert target.is_file(), f"{where} cites docs/{doc}, which is not in the repository"
    if section is not None:
        headings = re.findall(r"^#+\s*(\d+(?:\.\d+)?)[.\s]", target.read_text(encoding="utf-8"), flags=re.MULTILINE)
        assert section in headings, f"{where} cites docs/{doc} §{section}; its numbered sections are {headings}"


def test_no_private_design_paths_are_cited() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}: {m.group(0)}"
        for path in SCANNED
        if path.name != "test_docs.py"
        for m in PRIVATE.finditer(path.read_text(encoding="utf-8"))
    ]
    assert not offenders, offenders


def test_the_readme_says_how_a_bare_load_finds_the_modules_where_it_first_shows_one() -> None:
    """Issue 35: the first table is headed ``evaluate.load(NAME)``, which fails in a fresh process after ``pip install``
    until ``import persona_metrics`` or ``persona-metrics register`` has run once; the README says so above it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    before = readme[: readme.index("| module (`evaluate.load(NAME)`)")]
    assert "`import persona_metrics`" in before
    assert "`persona-metrics register`" in before
