"""What every subcommand shares: input errors, ``--format`` / ``--option`` arguments and table / JSON / CSV text.

Rendering only lays out numbers the library computed; nothing here averages, subtracts or flattens scores.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

#: Output formats of the commands that print a table.
FORMATS: tuple[str, ...] = ("table", "json", "csv")
#: Older spellings still accepted by ``--format``.
FORMAT_ALIASES: Mapping[str, str] = {"pretty": "table", "markdown": "table"}


class InputError(SystemExit):
    """A bad input file, option or value.

    ``persona-metrics`` prints the message and exits with status 2. Calling a command's ``main`` from Python
    raises it (a :class:`SystemExit` carrying the message, so an uncaught one prints it and exits 1).
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


@contextmanager
def input_errors(*kinds: type[Exception]) -> Iterator[None]:
    """Turn the library's ``ValueError`` and ``OSError`` (plus ``kinds``) into :class:`InputError`."""
    caught: tuple[type[Exception], ...] = (ValueError, OSError, *kinds)
    try:
        yield
    except caught as err:
        raise InputError(str(err)) from err


@contextmanager
def captured_notes() -> Iterator[list[str]]:
    """Record :class:`~persona_metrics.PersonaMetricsWarning` messages instead of printing them.

    Yields:
        A list that holds, once the block has run, the distinct messages, sorted.
    """
    from persona_metrics.validation import PersonaMetricsWarning

    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PersonaMetricsWarning)
        yield notes
    notes.extend(sorted({str(w.message) for w in caught if issubclass(w.category, PersonaMetricsWarning)}))
    for w in caught:  # anything else is shown as it would have been
        if not issubclass(w.category, PersonaMetricsWarning):
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)


# --- arguments -----------------------------------------------------------------------------------------
def command_parser(
    name: str, description: str, add_arguments: Callable[[argparse.ArgumentParser], None]
) -> argparse.ArgumentParser:
    """A parser for one command run on its own (``prog`` is ``persona-metrics NAME``)."""
    parser = argparse.ArgumentParser(
        prog=f"persona-metrics {name}", description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser)
    return parser


def _format(value: str) -> str:
    return FORMAT_ALIASES.get(value, value)


def add_format_argument(parser: argparse.ArgumentParser, *flags: str) -> None:
    """``--format table|json|csv`` (default ``table``; ``pretty`` is accepted for ``table``)."""
    parser.add_argument(
        *(flags or ("--format",)),
        dest="format",
        type=_format,
        choices=FORMATS,
        default="table",
        help="table (markdown, default), json or csv",
    )


def add_option_argument(parser: argparse.ArgumentParser) -> None:
    """``-o/--option KEY=VALUE``, repeatable; see :func:`parse_options`."""
    parser.add_argument(
        "-o",
        "--option",
        dest="options",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a metric option, repeatable; VALUE is read as JSON when it parses (1.7, 1000, true, null, "
        '{"model": "..."}), else as a string (jsd)',
    )


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """``["beta=1.7", "distance=jsd"]`` → ``{"beta": 1.7, "distance": "jsd"}`` (values as JSON when they parse).

    Raises:
        InputError: an item without ``=``, an empty key or a key given twice.
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"--option {item!r}: expected KEY=VALUE")
        if key in out:
            raise InputError(f"--option {key} is given twice")
        try:
            out[key] = json.loads(text)
        except json.JSONDecodeError:
            out[key] = text
    return out


def check_option_names(options: Mapping[str, Any], known: Sequence[str], metric: str) -> None:
    """Refuse option names ``metric`` does not take.

    Raises:
        InputError: naming the unknown options and the known ones.
    """
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise InputError(f"{metric} has no option {unknown}; known options: {', '.join(known)}")


# --- rendering -----------------------------------------------------------------------------------------
def plain(value: Any) -> Any:
    """``value`` with numpy scalars and arrays as Python objects and non-finite floats as ``None`` (valid JSON)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if hasattr(value, "tolist"):  # numpy scalar or array
        return plain(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def json_text(value: Any) -> str:
    """Indented, strict JSON (NaN as ``null``) and a final newline."""
    return json.dumps(plain(value), indent=2, allow_nan=False) + "\n"


def csv_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows as CSV with a header (columns in first-seen order)."""
    import pandas as pd

    return str(pd.DataFrame(list(rows)).to_csv(index=False))


def markdown_table(rows: Sequence[Mapping[str, Any]], floatfmt: str = ".4f") -> str:
    """The rows as a markdown table (``tabulate``'s pipe format, floats with ``floatfmt``)."""
    import pandas as pd

    return str(pd.DataFrame(list(rows)).to_markdown(index=False, floatfmt=floatfmt))


def render_rows(rows: Sequence[Mapping[str, Any]], fmt: str, table: str) -> str:
    """``table`` (already laid out) for ``fmt == "table"``, else the rows as JSON or CSV."""
    if fmt == "json":
        return json_text(list(rows))
    if fmt == "csv":
        return csv_text(rows)
    return table


def emit(text: str) -> None:
    """Write to standard output."""
    sys.stdout.write(text)
