"""The validity case files: where they are, what each line must hold, and reading them with named errors.

The shipped files live in ``persona_metrics/validity/cases/`` (their formats and provenance:
``cases/README.md`` there; ``docs/validity.md``). Any folder holding files of the same names and formats can be
measured instead (``run_validity(cases_dir=...)``, ``persona-metrics validity --cases DIR``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

from persona_metrics.datasets.jsonl import check_string_fields, iter_jsonl
from persona_metrics.persona.samples import BUILTIN_PERSONAS
from persona_metrics.validation import check_text

#: The folder of the shipped case files.
CASES_DIR = Path(__file__).resolve().parent / "cases"

#: Case file name → the string fields every line must hold (non-empty).
CASE_FIELDS: Mapping[str, tuple[str, ...]] = {
    "vert.jsonl": ("id", "reference", "paraphrase", "unrelated"),
    "vert_meaning.jsonl": ("id", "reference", "paraphrase", "unrelated"),
    "coherence.jsonl": ("id", "source", "summary"),
    "completeness.jsonl": ("id", "source", "good", "one_topic"),
    "summary_checks.jsonl": ("id", "source", "summary", "bullets", "off_topic", "changed_number", "changed_name"),
    "list_prose.jsonl": ("id", "source", "summary", "bullets"),
    "style.jsonl": ("id", "persona", "genre", "text"),
    "style_summaries.jsonl": ("id", "persona", "genre", "text"),
    "off_register.jsonl": ("id", "register", "text"),
    "persona_quality.jsonl": ("id", "persona", "reference", "good", "wrong_register", "wrong_content"),
    "persona_quality_summaries.jsonl": ("id", "persona", "reference", "good", "wrong_register", "wrong_content"),
    "perseval.jsonl": ("document_id", "document", "user_id", "reference"),
}
#: The genres of ``style.jsonl``: the personas' own (finance and business news) and any other subject.
GENRES: tuple[str, ...] = ("in", "cross")


def _check_edits(row: Mapping[str, Any], where: str) -> None:
    """``edits`` of a VERT case: a non-empty list of ``{"kind": str, "text": str}`` (non-empty strings)."""
    edits = row.get("edits")
    if not isinstance(edits, list) or not edits:
        raise ValueError(f"{where}: 'edits' must be a non-empty list of {{'kind', 'text'}} objects")
    for k, edit in enumerate(edits):
        if not isinstance(edit, dict):
            raise ValueError(f"{where}: edits[{k}] must be an object with 'kind' and 'text'")
        check_string_fields(edit, ("kind", "text"), f"{where}: edits[{k}]", nonempty=("kind", "text"))
        for key in ("kind", "text"):
            check_text(edit[key], f"{where}: field edits[{k}].{key}")


def _check_genre(row: Mapping[str, Any], where: str) -> None:
    if row["genre"] not in GENRES:
        raise ValueError(f"{where}: genre = {row['genre']!r}; allowed: {list(GENRES)}")


def _check_persona(row: Mapping[str, Any], where: str) -> None:
    """``persona``: one of the shipped personas (the suite scores against them)."""
    if row["persona"] not in BUILTIN_PERSONAS:
        raise ValueError(
            f"{where}: field 'persona' = {row['persona']!r} is not a known persona; known: {list(BUILTIN_PERSONAS)}"
        )


def _check_style_case(row: Mapping[str, Any], where: str) -> None:
    _check_genre(row, where)
    _check_persona(row, where)


#: Checks beyond the string fields, per file.
_EXTRA_CHECKS: Mapping[str, Callable[[Mapping[str, Any], str], None]] = {
    "vert.jsonl": _check_edits,
    "vert_meaning.jsonl": _check_edits,
    "style.jsonl": _check_style_case,
    "style_summaries.jsonl": _check_style_case,
    "persona_quality.jsonl": _check_persona,
    "persona_quality_summaries.jsonl": _check_persona,
}


def case_path(name: str, cases_dir: str | Path | None = None) -> Path:
    """The path of case file ``name`` in ``cases_dir`` (default: the shipped folder, its files :data:`CASE_FIELDS`).

    Raises:
        ValueError: a file name the shipped folder does not have (the known ones listed).
    """
    if cases_dir is None and name not in CASE_FIELDS:
        raise ValueError(f"{name!r} is not a validity case file; known: {list(CASE_FIELDS)}")
    return Path(CASES_DIR if cases_dir is None else cases_dir) / name


def load_cases(
    name: str, cases_dir: str | Path | None = None, fields: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """Every line of case file ``name``, checked: its string ``fields`` (default: :data:`CASE_FIELDS`'), an ``id``.

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: a malformed line (``file:line`` and the field named: a missing, non-string or empty field, a
            text with a lone surrogate, an unknown persona), a repeated id, or no line.
    """
    if fields is None and name not in CASE_FIELDS:
        raise ValueError(f"{name!r} is not a validity case file; known: {list(CASE_FIELDS)}")
    path = case_path(name, cases_dir)
    fields = CASE_FIELDS[name] if fields is None else tuple(fields)
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, ...]] = set()
    for lineno, row in iter_jsonl(path):
        where = f"{path}:{lineno}"
        check_string_fields(row, fields, where, nonempty=fields)
        for field in fields:
            check_text(row[field], f"{where}: field {field!r}")
        if name in _EXTRA_CHECKS:
            _EXTRA_CHECKS[name](row, where)
        key = (row["document_id"], row["user_id"]) if name == "perseval.jsonl" else (row["id"],)
        if key in seen:
            raise ValueError(f"{where}: {'/'.join(key)} appears twice")
        seen.add(key)
        rows.append(row)
    if not rows:
        raise ValueError(f"{path}: no case (expected one JSON object per line with {list(fields)})")
    return rows


def first_cases(rows: Sequence[Mapping[str, Any]], limit: int | None, group: Callable[[Mapping], Hashable]) -> list:
    """At most ``limit`` lines of each group (``group(line)``), in file order (all of them for ``limit=None``).

    >>> rows = [{"p": "a"}, {"p": "b"}, {"p": "a"}, {"p": "a"}]
    >>> first_cases(rows, 2, lambda row: row["p"])
    [{'p': 'a'}, {'p': 'b'}, {'p': 'a'}]
    """
    if limit is None:
        return list(rows)
    counts: dict[Hashable, int] = {}
    kept = []
    for row in rows:
        key = group(row)
        if counts.get(key, 0) < limit:
            counts[key] = counts.get(key, 0) + 1
            kept.append(row)
    return kept


def first_documents(rows: Sequence[Mapping[str, Any]], limit: int | None) -> list:
    """Every line of the first ``limit`` documents of ``perseval.jsonl`` (all of them for ``limit=None``)."""
    if limit is None:
        return list(rows)
    documents = list(dict.fromkeys(row["document_id"] for row in rows))[:limit]
    return [row for row in rows if row["document_id"] in documents]


def file_digest(path: str | Path) -> str:
    """SHA-256 of a file's bytes (hex): which case files a stored measurement was made on."""
    from persona_metrics.resources import file_sha256

    return file_sha256(path)


__all__ = [
    "CASES_DIR",
    "CASE_FIELDS",
    "GENRES",
    "case_path",
    "file_digest",
    "first_cases",
    "first_documents",
    "load_cases",
]
