"""JSON-lines input with errors that name the file and the line.

Used for the input file of ``persona-metrics score`` (every metric; the personalization files through
:mod:`persona_metrics.datasets.personalization`). The other command-line inputs have readers of their own
formats: the PENS TSV files, ``hyps_*.txt`` and prediction JSON lines of ``pens``
(:mod:`persona_metrics.datasets.pens`), the data files (through ``datasets``), prediction JSON lines and
``--out`` records of ``cnndm`` (:mod:`persona_metrics.datasets.cnndm`, :mod:`persona_metrics.summary_eval.judge`),
and the article JSON files of ``pipeline`` (:mod:`persona_metrics.datasets.financial`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` for each non-blank line of a JSON-lines file.

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: a line that is not valid JSON or not a JSON object (``file:line`` named).
    """
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{lineno}: not valid JSON ({err.msg})") from err
        if not isinstance(row, dict):
            raise ValueError(f"{path}:{lineno}: expected a JSON object, got {type(row).__name__}")
        yield lineno, row


def check_string_fields(row: dict, keys: Sequence[str], where: str, nonempty: Sequence[str] = ()) -> None:
    """Check that ``row`` has every key of ``keys`` with a string value (non-blank for the keys of ``nonempty``).

    Raises:
        ValueError: naming ``where`` (``file:line``) and the missing, non-string or blank keys.
    """
    missing = [k for k in keys if k not in row]
    if missing:
        raise ValueError(f"{where}: missing keys {missing}")
    wrong = [k for k in keys if not isinstance(row[k], str)]
    if wrong:
        raise ValueError(f"{where}: {wrong} must be strings")
    blank = [k for k in nonempty if not row[k].strip()]
    if blank:
        raise ValueError(f"{where}: {blank} must not be empty")


def read_string_columns(path: str | Path, keys: Sequence[str], nonempty: Sequence[str] = ()) -> dict[str, list[str]]:
    """The string fields ``keys`` of every line of a JSON-lines file, as columns (other fields are ignored).

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: a malformed line (``file:line`` named) or no line at all.
    """
    columns: dict[str, list[str]] = {k: [] for k in keys}
    for lineno, row in iter_jsonl(path):
        check_string_fields(row, keys, f"{path}:{lineno}", nonempty)
        for k in keys:
            columns[k].append(row[k])
    if not columns[keys[0]]:
        raise ValueError(f"{path}: no line (expected one JSON object per line with {list(keys)})")
    return columns
