"""What every subcommand shares: input errors, ``--format`` / ``--option`` arguments and table / JSON / CSV text.

Rendering only lays out numbers the library computed; nothing here averages, subtracts or flattens scores. Every
number a human reads is written by :mod:`persona_metrics.formatting` (the one number format).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

# The number format lived here until it moved to persona_metrics.formatting; its names still import from here.
from persona_metrics.formatting import MISSING as MISSING
from persona_metrics.formatting import SIGNIFICANT_DIGITS as SIGNIFICANT_DIGITS
from persona_metrics.formatting import comparison_text as comparison_text
from persona_metrics.formatting import format_cell, format_estimate
from persona_metrics.formatting import format_interval as format_interval
from persona_metrics.formatting import format_score as format_score

if TYPE_CHECKING:
    from persona_metrics.significance import PairedTest

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


@dataclass(frozen=True)
class Report:
    """What a metric's scoring prints: rows for JSON / CSV, the laid-out table, notes, and the per-summary rows."""

    rows: list[dict[str, Any]]
    table: str
    notes: list[str] = field(default_factory=list)
    micro: list[dict[str, Any]] = field(default_factory=list)


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
    from persona_metrics.warning import PersonaMetricsWarning

    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PersonaMetricsWarning)
        yield notes
    notes.extend(sorted({str(w.message) for w in caught if issubclass(w.category, PersonaMetricsWarning)}))
    for w in caught:  # anything else is shown as it would have been
        if not issubclass(w.category, PersonaMetricsWarning):
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)


@contextmanager
def noted_now() -> Iterator[None]:
    """Write the library's warnings of the block at once, as ``note: …`` lines on standard error (a file's reading)."""
    with captured_notes() as notes:
        yield
    sys.stderr.writelines(f"note: {note}\n" for note in notes)


#: The one line under every personalization leaderboard that says how to read it.
LEADERBOARD_KEY = (
    "Reading it: higher PerSEval, DEGRESS and P-Acc are better, lower EGISES and accuracy distance; oracle (each "
    "user's own summary) is the ceiling; shuffled (another user's summary of the same document) is the control a "
    "personalized model must beat: it differs per user, so it is responsive but not accurate, and can rank second "
    "(as under jsd) above models that give every user the same summary (docs/perseval.md)."
)


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


#: Resamples of the paired permutation test between adjacent ranks unless ``--significance-resamples``.
DEFAULT_SIGNIFICANCE_RESAMPLES = 10_000


def add_significance_argument(parser: argparse.ArgumentParser, seeded_by: str) -> None:
    """``--significance-resamples N``: the paired permutation test between adjacently ranked systems.

    Args:
        parser: the command's parser.
        seeded_by: the option that seeds the test, for the help text.
    """
    parser.add_argument(
        "--significance-resamples",
        type=int,
        default=DEFAULT_SIGNIFICANCE_RESAMPLES,
        metavar="N",
        help="sign patterns of the paired permutation test between adjacent ranks (default %(default)s; exact "
        f"when 2**documents <= N; 0: no test); seeded by {seeded_by}",
    )


#: The tests ``--paired-test`` names: those of :func:`persona_metrics.significance.paired_test` (docs/significance.md).
PAIRED_TESTS: tuple[str, ...] = ("permutation", "bootstrap")
#: The test of ``--baseline`` unless ``--paired-test``: the permutation test, as between adjacent ranks.
DEFAULT_PAIRED_TEST = "permutation"
#: The columns ``--baseline`` adds to every system's row in JSON and CSV (``None`` on the baseline's own row).
BASELINE_COLUMNS: tuple[str, ...] = (
    "baseline",
    "baseline_measure",
    "baseline_test",
    "difference_vs_baseline",
    "ci_low_vs_baseline",
    "ci_high_vs_baseline",
    "p_vs_baseline",
)


class Baseline(NamedTuple):
    """What ``--baseline SYSTEM [--paired-test TEST]`` asks for.

    Attributes:
        system: the system every other one is compared with.
        method: the library's paired test, one of :data:`PAIRED_TESTS`.
    """

    system: str
    method: str


def add_baseline_arguments(parser: argparse.ArgumentParser, systems: str, measure: str, resamples: str) -> None:
    """``--baseline SYSTEM`` and ``--paired-test permutation|bootstrap``: every other system against SYSTEM.

    Args:
        parser: the command's parser.
        systems: which names SYSTEM may take, for the help text.
        measure: the per-unit values the test compares, for the help text.
        resamples: how many resamples, and the seed, for the help text.
    """
    parser.add_argument(
        "--baseline",
        default=None,
        metavar="SYSTEM",
        help=f"compare every other system with SYSTEM ({systems}) by the library's paired test on {measure}: one "
        f"line per system under the table, the columns {', '.join(BASELINE_COLUMNS)} in JSON / CSV; {resamples}",
    )
    parser.add_argument(
        "--paired-test",
        default=None,
        choices=PAIRED_TESTS,
        help="the test of --baseline: permutation (default; approximate randomisation, two-sided, as between "
        "adjacent ranks) or bootstrap (Koehn's paired bootstrap, as sacrebleu's --paired-bs: the 95%% interval of "
        "the difference and a one-sided p); docs/significance.md",
    )


def baseline_request(args: argparse.Namespace) -> Baseline | None:
    """The ``--baseline`` of ``args`` (``None`` without one).

    Raises:
        InputError: ``--paired-test`` without ``--baseline``.
    """
    if args.baseline is None:
        if args.paired_test is not None:
            raise InputError("--paired-test is the test of --baseline SYSTEM; give --baseline too")
        return None
    return Baseline(args.baseline, args.paired_test or DEFAULT_PAIRED_TEST)


def check_baseline_system(baseline: Baseline, systems: Sequence[str], what: str) -> None:
    """Refuse a ``--baseline`` that is not one of ``systems``, or an input with a single system.

    Args:
        baseline: the request.
        systems: the input's systems, in order.
        what: the input, for the message (``"data/x.jsonl"``).

    Raises:
        InputError: one line naming the systems there are.
    """
    if len(systems) < 2:
        raise InputError(
            f"--baseline {baseline.system}: {what} has a single system ({', '.join(systems)}); a paired comparison "
            "needs two or more"
        )
    if baseline.system not in systems:
        raise InputError(f"--baseline {baseline.system}: no such system in {what}; its systems: {', '.join(systems)}")


def baseline_fields(baseline: str, measure: str, method: str, test: PairedTest | None) -> dict[str, Any]:
    """The :data:`BASELINE_COLUMNS` of one system's row: the library's test against ``baseline`` (``None``: itself)."""
    return {
        "baseline": baseline,
        "baseline_measure": measure,
        "baseline_test": method,
        "difference_vs_baseline": None if test is None else test.difference,
        "ci_low_vs_baseline": None if test is None else test.ci_low,
        "ci_high_vs_baseline": None if test is None else test.ci_high,
        "p_vs_baseline": None if test is None else test.p_value,
    }


def baseline_heading(baseline: str, test: PairedTest, measure: str, unit: str) -> str:
    """The line above the ``--baseline`` comparisons: which test, over how many units, with which resamples and seed."""
    if test.method == "permutation":
        draws = f"exact over {test.n_resamples} sign patterns" if test.exact else f"{test.n_resamples} resamples"
        how = f"paired permutation test on per-{unit} {measure} (two-sided, {test.n_units} {unit}s, {draws}"
    else:
        how = (
            f"paired bootstrap test on per-{unit} {measure} (one-sided p, the share of resamples without the observed "
            f"sign, and the 95% interval of the difference; {test.n_units} {unit}s, {test.n_resamples} resamples"
        )
    return f"Against the baseline {baseline}: {how}, seed {test.seed}; docs/significance.md):"


def baseline_line(name: str, baseline: str, test: PairedTest, measure: str) -> str:
    """One system against the baseline: :func:`comparison_text`, then the interval of the difference if there is one.

    >>> from persona_metrics.significance import paired_bootstrap_test
    >>> baseline_line("a", "b", paired_bootstrap_test([3, 4, 5], [1, 1, 1], n_resamples=200), "X")
    'a > b, p = 0 (Δ X = 3), 95% CI of Δ [2, 4]'
    """
    line = comparison_text(name, baseline, test.difference, test.p_value, measure)
    if test.ci_low is not None and test.ci_high is not None:
        line += f", 95% CI of Δ {format_interval(test.ci_low, test.ci_high)}"
    return line


def add_micro_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """``--micro PATH``: write the per-summary (micro) scores as JSON lines.

    Args:
        parser: the command's parser.
        what: what one line holds, for the help text.
    """
    parser.add_argument(
        "--micro",
        type=Path,
        default=None,
        metavar="PATH",
        help=f"also write the per-summary (micro) scores to PATH as JSON lines: {what}",
    )


def add_shard_arguments(parser: argparse.ArgumentParser, which: str) -> None:
    """``--shard I/N`` and ``--states OUT.jsonl``: score one shard and write its states (docs/scaling.md §2).

    Args:
        parser: the command's parser.
        which: what shard I of N holds, for the help text.
    """
    parser.add_argument(
        "--shard",
        default=None,
        metavar="I/N",
        help=f"score only shard I of N ({which}) and write its states to --states instead of printing; "
        "persona-metrics merge prints the whole output",
    )
    parser.add_argument("--states", type=Path, default=None, metavar="OUT.jsonl", help="where --shard writes states")


def add_quiet_argument(parser: argparse.ArgumentParser) -> None:
    """``-q/--quiet``: print the score only (see :func:`quiet_text`)."""
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print the score only, at full precision (a leaderboard: one 'system<TAB>score' line per rank); notes "
        "go to standard error",
    )


def check_quiet_format(args: argparse.Namespace) -> None:
    """Refuse ``-q`` with ``--format json|csv``: ``-q`` prints the score only, so the format would be ignored.

    Raises:
        InputError: naming both flags.
    """
    if args.quiet and args.format != "table":
        raise InputError(f"-q prints the score only and --format {args.format} the whole report; drop one of them")


def quiet_text(rows: Sequence[Mapping[str, Any]], key: str) -> str:
    r"""``-q`` output: the ``key`` value of a single row, or ``system<TAB>value`` per row (``null`` where None).

    >>> quiet_text([{"system": "a", "vert": 0.5}], "vert")
    '0.5\n'
    >>> quiet_text([{"system": "a", "perseval": 0.5}, {"system": "b", "perseval": None}], "perseval")
    'a\t0.5\nb\tnull\n'
    """
    values = [json.dumps(plain(row.get(key))) for row in rows]
    if len(rows) == 1:
        return values[0] + "\n"
    return "".join(f"{row['system']}\t{value}\n" for row, value in zip(rows, values, strict=True))


def check_resamples_option(value: int, option: str) -> int:
    """``value`` if it is 0 (off) or positive.

    Raises:
        InputError: a negative value (the option named).
    """
    if value < 0:
        raise InputError(f"{option} must be 0 (off) or a positive number of resamples, got {value}")
    return value


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


def jsonl_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """One strict JSON object per line (full float precision, NaN as ``null``), each line ending in a newline."""
    return "".join(json.dumps(plain(row), allow_nan=False) + "\n" for row in rows)


def item_rows(columns: Mapping[str, Sequence[Any]], **fields: Any) -> list[dict[str, Any]]:
    """Per-item columns as rows: ``fields`` first (the same in every row), then ``item`` (the index), then the columns.

    Args:
        columns: ``{name: values}``, every list aligned with the items.
        **fields: constant fields of every row (``system``, ``signature``, ...).

    Raises:
        ValueError: columns of different lengths (named with their lengths).
    """
    lengths = {name: len(values) for name, values in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"per-item columns of different lengths: {lengths}")
    count = next(iter(lengths.values()), 0)
    return [{**fields, "item": i, **{name: values[i] for name, values in columns.items()}} for i in range(count)]


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8) atomically, creating the parent folders.

    :func:`~persona_metrics.resources.replace_file`: a killed run leaves the old file or the new one whole.
    """
    from persona_metrics.resources import replace_file

    replace_file(path, text, prefix=f".{path.name}.")


def check_output(option: str, out: Path, inputs: Sequence[str | Path]) -> None:
    """Refuse, before any scoring, an output path that cannot be written or that is one of the input files.

    Refused: ``-`` (standard output carries the report), a folder, a path whose nearest existing folder (the
    others are created) takes no file (a temporary file is made and removed there: a read-only or full disk, no
    permission, a file where a folder should be), and an input file by any name (a symlink, ``./``, another
    spelling).

    Raises:
        InputError: naming the option, the output and why.
    """
    if str(out) == "-":
        raise InputError(f"{option} -: standard output carries the report; give a file path")
    if out.is_dir():
        raise InputError(f"{option} {out} is a folder; give a file path")
    folder = out.resolve().parent
    while not folder.exists():
        folder = folder.parent
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        raise InputError(f"{option} {out}: cannot write in {folder} ({err.strerror}); give another path") from err
    for given in inputs:
        if str(given) == "-":
            continue
        source = Path(given)
        same = out.exists() and source.exists() and os.path.samefile(out, source)
        if same or out.resolve() == source.resolve():
            raise InputError(
                f"{option} {out} is the input file {given}: writing it would overwrite the input; give another path"
            )


def check_outputs(outputs: Mapping[str, Path | None], inputs: Sequence[str | Path]) -> None:
    """Refuse an output that cannot be written or is an input (:func:`check_output`), or that another output names.

    Args:
        outputs: option (as the user typed it, e.g. ``--states``) → its path; None for an option not given.
        inputs: the files the command reads.

    Raises:
        InputError: naming the option(s) and the path.
    """
    seen: dict[Path, str] = {}
    for option, out in outputs.items():
        if out is None:
            continue
        check_output(option, out, inputs)
        if out.resolve() in seen:
            raise InputError(f"{option} {out} is also {seen[out.resolve()]}'s file: give each output its own path")
        seen[out.resolve()] = option


def csv_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows as CSV with a header (columns in first-seen order)."""
    import pandas as pd

    return str(pd.DataFrame(list(rows)).to_csv(index=False))


def merge_intervals(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row for a human table: each ``<k>`` with ``<k>_ci_low`` / ``<k>_ci_high`` becomes one ``"<k> [95% CI]"`` cell.

    The cell is :func:`format_estimate` text; the other values are kept as they are (in order).

    >>> merge_intervals({"n": 3, "quality": 0.5, "quality_ci_low": 0.4, "quality_ci_high": 0.61})
    {'n': 3, 'quality [95% CI]': '0.5 [0.4, 0.61]'}
    """
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key.endswith(("_ci_low", "_ci_high")) and key.rsplit("_ci_", 1)[0] in row:
            continue
        if f"{key}_ci_low" in row:
            out[f"{key} [95% CI]"] = format_estimate(value, row[f"{key}_ci_low"], row.get(f"{key}_ci_high"))
        else:
            out[key] = value
    return out


def markdown_cell(value: object) -> str:
    r"""``value`` as one markdown table cell's text: ``|`` escaped, line breaks as spaces (a model's name is data).

    >>> print(markdown_cell("gen|eric\nmodel"))
    gen\|eric model
    """
    return " ".join(str(value).replace("|", "\\|").splitlines())


def markdown_row(cells: Sequence[object]) -> str:
    """One markdown table line of ``cells`` (:func:`markdown_cell` each)."""
    return "| " + " | ".join(markdown_cell(cell) for cell in cells) + " |"


def markdown_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows as a markdown table (``tabulate``'s pipe format, floats in the one number format, cells escaped)."""
    import pandas as pd

    cells = [{k: markdown_cell(format_cell(v)) for k, v in row.items()} for row in rows]
    return str(pd.DataFrame(cells).to_markdown(index=False, disable_numparse=True))


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
