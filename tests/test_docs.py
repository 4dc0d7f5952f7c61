"""Every documentation reference in the repository points to a shipped file (and section).

Docstrings, cards, scripts and tests cite ``docs/<file>.md`` (optionally ``§N``); a citation of a file that is
not in the repository, a section the file does not have, or a private design path (``specs/…``,
``reference/…``) fails here.
"""

from __future__ import annotations

import re
import shlex
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


#: Options whose paths a command writes (``merge`` reads its positional ``states``; ``score`` writes ``--states``).
WRITTEN = frozenset({"out", "states", "micro", "json", "cache_dir"})
#: How the README names the installed data folder (``persona-metrics docs --data``) in a command.
INSTALLED_DATA = "$(persona-metrics docs --data)"


def _readme_command_lines() -> list[tuple[int, list[str]]]:
    """``(block, arguments)`` of every ``persona-metrics`` command in the README's bash blocks, in order.

    Continued lines are joined, comments dropped, ``$(persona-metrics docs --data)`` replaced by the installed data
    folder, and a ``cat FILE | persona-metrics ...`` pipe gives FILE as an input of the command (``-`` stands for it).
    """
    from persona_metrics.commands.docs import DATA

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    out = []
    for block, text in enumerate(re.findall(r"```bash\n(.*?)```", readme, flags=re.DOTALL)):
        for line in text.replace("\\\n", " ").splitlines():
            tokens = shlex.split(line.replace(INSTALLED_DATA, str(DATA)), comments=True)
            piped: list[str] = []
            while "|" in tokens:
                cut = tokens.index("|")
                if tokens[0] == "cat":
                    piped += tokens[1:cut]
                tokens = tokens[cut + 1 :]
            if tokens and tokens[0] == "persona-metrics":
                out.append((block, [*tokens[1:], *(["--piped", *piped] if piped else [])]))
    return out


def _paths(namespace: object, names: frozenset[str], keep: bool) -> list[Path]:
    """The paths among the parsed arguments whose option is (``keep``) or is not in ``names``."""
    found = []
    for name, value in vars(namespace).items():
        if (name in names) == keep:
            values = value if isinstance(value, list) else [value]
            found += [v for v in values if isinstance(v, Path) and str(v) != "-"]
    return found


def test_every_file_the_readme_passes_to_persona_metrics_exists() -> None:
    """Issue 35: the README's commands read ``rows.jsonl``, ``pairs.jsonl``, ``sample.jsonl`` and ``test.parquet``,
    which do not exist. Every command line of the README's bash blocks parses with the real ``persona-metrics``
    parser, and every path it reads (not the ones it writes) is in the repository, in the installed data folder
    (``persona-metrics docs --data``), or written by an earlier command of the same block."""
    from persona_metrics.cli import build_parser

    parser = build_parser()
    commands = _readme_command_lines()
    assert len(commands) >= 25
    written: dict[int, set[Path]] = {}
    missing = []
    for block, argv in commands:
        piped = argv[argv.index("--piped") + 1 :] if "--piped" in argv else []
        argv = argv[: argv.index("--piped")] if piped else argv
        namespace = parser.parse_args(argv)
        outputs = WRITTEN - ({"states"} if namespace.command == "merge" else set())
        made = written.setdefault(block, set())
        for path in [*_paths(namespace, outputs, keep=False), *map(Path, piped)]:
            if not (ROOT / path).exists() and path not in made:
                missing.append(f"persona-metrics {' '.join(argv)}: {path}")
        made.update(_paths(namespace, outputs, keep=True))
    assert not missing, missing
    scored = {argv[1] for _, argv in commands if argv[0] == "score"}
    assert scored == {"perseval", "degress", "persona_style", "persona_quality", "vert", "summary_eval"}
