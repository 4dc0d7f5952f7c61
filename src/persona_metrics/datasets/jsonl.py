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
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

#: The file name that means standard input.
STDIN = "-"
#: What errors call standard input.
STDIN_NAME = "<stdin>"
_stdin: tuple[object, bytes] | None = None  # (the stream, its bytes): standard input is read once per stream


def input_name(path: str | Path) -> str:
    """How messages name an input: the path as given, or ``<stdin>`` for ``-``."""
    return STDIN_NAME if str(path) == STDIN else str(path)


def read_input_bytes(path: str | Path) -> bytes:
    """The bytes of ``path``, or of standard input for ``-`` (read once; later calls get the same bytes).

    Raises:
        FileNotFoundError: the file does not exist.
    """
    global _stdin
    if str(path) != STDIN:
        return Path(path).read_bytes()
    if _stdin is None or _stdin[0] is not sys.stdin:
        buffer = getattr(sys.stdin, "buffer", None)
        data = buffer.read() if buffer is not None else sys.stdin.read().encode("utf-8")
        _stdin = (sys.stdin, data)
    return _stdin[1]


def read_input(path: str | Path) -> str:
    """The UTF-8 text of ``path`` (``-``: standard input).

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: the bytes are not UTF-8 (the input named).
    """
    try:
        return read_input_bytes(path).decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{input_name(path)}: not UTF-8 text (byte {err.start})") from err


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` for each non-blank line of a JSON-lines file (``-``: standard input).

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: a line that is not valid JSON or not a JSON object (``file:line`` named).
    """
    name = input_name(path)
    for lineno, line in enumerate(read_input(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{name}:{lineno}: not valid JSON ({err.msg})") from err
        if not isinstance(row, dict):
            raise ValueError(f"{name}:{lineno}: expected a JSON object, got {type(row).__name__}")
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
    """The string fields ``keys`` of every line of a JSON-lines file (``-``: stdin), as columns (others ignored).

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: a malformed line (``file:line`` named) or no line at all.
    """
    columns: dict[str, list[str]] = {k: [] for k in keys}
    for lineno, row in iter_jsonl(path):
        check_string_fields(row, keys, f"{input_name(path)}:{lineno}", nonempty)
        for k in keys:
            columns[k].append(row[k])
    if not columns[keys[0]]:
        raise ValueError(f"{input_name(path)}: no line (expected one JSON object per line with {list(keys)})")
    return columns
