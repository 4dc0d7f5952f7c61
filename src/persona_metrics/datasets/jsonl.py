"""JSON-lines input with errors that name the file and the line.

Used for the input file of ``persona-metrics score`` (every metric; the personalization files through
:mod:`persona_metrics.datasets.personalization`). The other command-line inputs have readers of their own
formats: the PENS TSV files, ``hyps_*.txt`` and prediction JSON lines of ``pens``
(:mod:`persona_metrics.datasets.pens`), the data files (through ``datasets``), prediction JSON lines and
``--out`` records of ``cnndm`` (:mod:`persona_metrics.datasets.cnndm`,
:mod:`persona_metrics.summary_eval.results_log`), and the article JSON files of ``pipeline``
(:mod:`persona_metrics.datasets.financial`).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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


def decode_text(data: bytes, name: str) -> str:
    r"""``data`` as UTF-8 text; ``name`` is how errors call its file.

    Raises:
        ValueError: ``FILE:LINE: not UTF-8 text`` with the byte's position in the file.

    >>> decode_text(b"ok\n\xff", "f.jsonl")
    Traceback (most recent call last):
    ...
    ValueError: f.jsonl:2: not UTF-8 text (byte 3 of the file, 0xff)
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise ValueError(
            f"{name}:{line}: not UTF-8 text (byte {err.start} of the file, 0x{data[err.start]:02x})"
        ) from err


def read_text(path: str | Path) -> str:
    """The UTF-8 text of a file (not standard input), a bad byte named ``FILE:LINE``.

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: the bytes are not UTF-8.
    """
    return decode_text(Path(path).read_bytes(), str(path))


def read_input(path: str | Path) -> str:
    """The UTF-8 text of ``path`` (``-``: standard input).

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: the bytes are not UTF-8 (``FILE:LINE`` named).
    """
    return decode_text(read_input_bytes(path), input_name(path))


def text_lines(text: str) -> list[str]:
    r"""The lines of ``text``, split at ``\n`` (a ``\r`` before it dropped) and nowhere else.

    Not :meth:`str.splitlines`, which also splits at U+2028, U+0085, ``\x0c`` and others: JSON writes those
    unescaped inside strings, and news text holds them, so a line of a file is what ends at a newline.

    >>> text_lines("a\u2028b\r\nc\n")
    ['a\u2028b', 'c']
    """
    if not text:
        return []
    return [line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")]


class _DuplicateKey(Exception):
    """A JSON object with a key given twice (``json`` would keep the last value silently)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's dict, refusing a key given twice (:class:`_DuplicateKey`)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def iter_jsonl(path: str | Path, read: Sequence[str] | None = None) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` for each non-blank line of a JSON-lines file (``-``: standard input).

    With ``read`` (every field the caller reads, optional ones included), fields outside it are warned about once,
    at the end of the file: a misspelt optional field (``doc_id`` for ``document_id``) would otherwise change the
    result without a word.

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: a line that is not valid JSON, not a JSON object or with a key given twice (``file:line``
            named).
    """
    name = input_name(path)
    known = frozenset(read or ())
    unread: list[str] = []
    lines = 0
    for lineno, line in enumerate(text_lines(read_input(path)), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line, object_pairs_hook=_unique_keys)
        except json.JSONDecodeError as err:
            raise ValueError(f"{name}:{lineno}: not valid JSON ({err.msg})") from err
        except _DuplicateKey as err:
            raise ValueError(f"{name}:{lineno}: key {err.args[0]!r} given twice in one object") from err
        if not isinstance(row, dict):
            raise ValueError(f"{name}:{lineno}: expected a JSON object, got {type(row).__name__}")
        if read is not None and (extra := row.keys() - known):
            unread += sorted(extra.difference(unread))
            lines += 1
        yield lineno, row
    if unread:
        from persona_metrics.warning import warn

        warn(f"{name}: field(s) {unread} on {lines} line(s) are not read; the fields read are {list(read or ())}")


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


def check_id_fields(row: dict, keys: Sequence[str], where: str) -> None:
    """Check that ``row`` has every key of ``keys`` with an id: a string or a whole number.

    Raises:
        ValueError: naming ``where`` (``file:line``), the field and what it holds.
    """
    missing = [k for k in keys if k not in row]
    if missing:
        raise ValueError(f"{where}: missing keys {missing}")
    for key in keys:
        if not isinstance(row[key], str | int) or isinstance(row[key], bool):
            raise ValueError(f"{where}: field {key!r} must be a string or a whole number, got {row[key]!r:.60}")


def read_string_columns(path: str | Path, keys: Sequence[str], nonempty: Sequence[str] = ()) -> dict[str, list[str]]:
    """The string fields ``keys`` of every line of a JSON-lines file (``-``: stdin), as columns (others ignored).

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: a malformed line (``file:line`` named) or no line at all.
    """
    return read_columns(path, keys, nonempty)[0]


def _check_text_lists(row: dict, keys: Sequence[str], where: str) -> None:
    """Each key of ``keys`` holds a string or a non-empty list of strings (``where``: ``file:line``)."""
    for key in keys:
        value = row.get(key)
        texts = isinstance(value, list) and value and all(isinstance(v, str) for v in value)
        if not (isinstance(value, str) or texts):
            raise ValueError(f"{where}: field {key!r} must be a string or a non-empty list of strings")


def read_columns(
    path: str | Path, keys: Sequence[str], nonempty: Sequence[str] = (), lists: Sequence[str] = ()
) -> tuple[dict[str, list], list[int]]:
    """The fields ``keys`` of every line of a JSON-lines file (``-``: stdin) as columns, and each item's line number.

    Args:
        path: the file, or ``-``.
        keys: the fields every line must have: strings, except those of ``lists``.
        nonempty: fields that must not be blank.
        lists: fields that may also hold a non-empty list of strings (VERT's several references).

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: a malformed line (``file:line`` and the field named) or no line at all.
    """
    columns: dict[str, list] = {k: [] for k in keys}
    numbers = []
    strings = [k for k in keys if k not in lists]
    for lineno, row in iter_jsonl(path, keys):
        where = f"{input_name(path)}:{lineno}"
        missing = [k for k in keys if k not in row]
        if missing:
            raise ValueError(f"{where}: missing keys {missing}")
        check_string_fields(row, strings, where, nonempty)
        _check_text_lists(row, lists, where)
        for k in keys:
            columns[k].append(row[k])
        numbers.append(lineno)
    if not numbers:
        raise ValueError(f"{input_name(path)}: no line (expected one JSON object per line with {list(keys)})")
    return columns, numbers


#: The library's input names → the JSON-lines field holding one item's value.
ITEM_FIELDS: dict[str, str] = {
    "predictions": "prediction", "references": "reference", "personas": "persona", "sources": "source",
}  # fmt: skip
_ITEM = re.compile(r"(\w+)\[(\d+)\]")


@contextmanager
def located_errors(path: str | Path, lines: Sequence[int]) -> Iterator[None]:
    """Re-raise the library's errors about one item (``predictions[3] is empty``) naming ``FILE:LINE`` and the field.

    Args:
        path: the input, as named (``-``: ``<stdin>``).
        lines: the line number of each item given to the library (``lines[3]`` for ``predictions[3]``).

    Raises:
        ValueError, TypeError: ``FILE:LINE: field 'prediction': <the library's message>``; other errors unchanged.
    """
    try:
        yield
    except (ValueError, TypeError) as err:
        found = _ITEM.match(str(err))
        if found is None or found[1] not in ITEM_FIELDS or int(found[2]) >= len(lines):
            raise
        kind = TypeError if isinstance(err, TypeError) else ValueError
        where = f"{input_name(path)}:{lines[int(found[2])]}"
        raise kind(f"{where}: field {ITEM_FIELDS[found[1]]!r}: {err}") from err
