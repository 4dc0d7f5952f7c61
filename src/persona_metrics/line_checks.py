r"""Per-line checks of the JSON-lines files the library writes and reads back (states files, judge results files).

A checked line is a JSON object written as strict ASCII JSON (:func:`json.dumps`: exact floats, no ``NaN``,
every other character escaped, so no character of a text can split a line) whose last field is ``check``: 16 hex
digits of BLAKE2b over the line's text before the field, and over the line's number too where the file's order is
part of its content (states files, ``docs/scaling.md`` §2). An append-only file whose lines are read back in any
order (the judge's results file, ``docs/summary_eval.md`` §8) checks the text alone, so a resumed run can append.

A line edited after it was written (a score changed by hand, a damaged byte), a line cut short and a line written
without the field fail the check (:func:`line_fault` says which). The check guards against damage and hand edits,
not against someone who recomputes it.

>>> line = checked_line({"score": 2})
>>> line.startswith('{"score": 2, "check": "'), len(line) == len('{"score": 2}') + CHECK_LENGTH
(True, True)
>>> line_fault(line.rstrip("\n")) is None, line_fault(line.replace("2", "3").rstrip("\n"))
(True, 'mismatch')
>>> line_fault('{"score": 2}')
'missing'
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

#: What ends every checked line: the ``check`` field (16 hex digits) and the object's closing brace.
CHECK_PREFIX = ', "check": "'
CHECK_LENGTH = len(CHECK_PREFIX) + 16 + len('"}')


def line_check(lineno: int | None, body: str) -> str:
    """The ``check`` of a line whose JSON text without the field is ``body`` (BLAKE2b, 16 hex digits).

    Args:
        lineno: the line's number (1-based) where it is part of the check, or None (the text alone).
        body: the line's JSON object without the field, ASCII.
    """
    text = body if lineno is None else f"{lineno}\n{body}"
    return hashlib.blake2b(text.encode("ascii"), digest_size=8).hexdigest()


def checked_line(row: Mapping[str, Any], lineno: int | None = None) -> str:
    """``row`` as one line (with its newline) ending with its ``check``; strict ASCII JSON, exact floats.

    Raises:
        ValueError: an empty row (a check field needs one before it), a ``NaN`` or infinite float.
    """
    if not row:
        raise ValueError("a checked line holds at least one field before its check")
    body = json.dumps(row, allow_nan=False)
    return f'{body[:-1]}{CHECK_PREFIX}{line_check(lineno, body)}"}}\n'


def line_fault(text: str, lineno: int | None = None) -> str | None:
    """Why the line ``text`` (without its newline) does not end with its ``check``, or None when it does.

    ``"missing"``: no ``check`` field at its end (cut short, or written without one); ``"mismatch"``: the check
    differs from the one its text (and number ``lineno``, where given) gives: it was edited or damaged.
    """
    head, tail = text[:-CHECK_LENGTH], text[-CHECK_LENGTH:]
    if not (tail.startswith(CHECK_PREFIX) and tail.endswith('"}')):
        return "missing"
    if not head.isascii() or tail[len(CHECK_PREFIX) : -2] != line_check(lineno, head + "}"):
        return "mismatch"
    return None


__all__ = ["CHECK_LENGTH", "CHECK_PREFIX", "checked_line", "line_check", "line_fault"]
