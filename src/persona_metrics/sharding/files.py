"""States files: what one shard of a sharded CLI run keeps, read back and checked (``docs/scaling.md`` §2).

``persona-metrics score METRIC FILE --shard I/N --states OUT.jsonl`` (and ``pens DIR --shard I/N --states``)
scores the documents that :func:`~persona_metrics.personalization.shard_of` assigns to shard I of N and writes a
states file; ``persona-metrics merge OUT1.jsonl ...`` reads the N files back and prints what the unsharded command
prints. A states file is JSON lines:

* line 1, the header: ``format``, ``version``, ``command``, ``metric``, ``input`` (the input as it was named on
  the command line), ``input_sha256`` (a digest of the input's bytes), ``num_items`` (the whole input's size),
  ``shard`` and ``num_shards``, ``options`` (everything that shapes the output), ``systems`` (in the order the
  unsharded run scores them), ``boards`` (per distance: the signature and the hyper-parameters) and ``notes``
  (the shard's warnings other than the single-reference one, which the merge rebuilds for the whole input);
* one line per scored document of each (distance, system): ``{"kind": "document", "board", "system", "key",
  "indices", "degress", "accuracy", "adp", "acp", "dgp", "edp"}``, ``indices`` being positions in the whole input
  (:mod:`persona_metrics.personalization.states`);
* one line per single-reference (excluded) document: ``{"kind": "excluded", "key", "indices"}``.

That is the per-document layout (the metrics whose spec is ``by_document``, and ``pens``), merged by
:mod:`persona_metrics.sharding.documents`. The per-item metrics and ``cnndm`` shard their items in contiguous blocks
(:func:`shard_block`); their header has ``results`` (the result names per system) instead of ``boards``, and their
lines are per item (:mod:`persona_metrics.sharding.items`).

Every line ends with a ``check`` field: 16 hex digits of BLAKE2b over the line's number and its text before the
field (:mod:`persona_metrics.line_checks`, shared with the judge's results file); the last line is
``{"kind": "end"}``. A line edited after the shard wrote it, a line dropped, moved or added and a file cut short
are refused with ``FILE:LINE`` (:func:`read_states`). The check guards against damage and hand edits, not against
someone who recomputes it; the reader also checks every field's type and range, and the merge that the shards'
lines cover the input's items exactly once.

Floats are written by ``json`` (``repr``, shortest round-trip), so they read back bit for bit; text is written as
ASCII (JSON's escapes), so no character of a key or a note can split a line. A shard with no document to
score still writes a valid file (its header, its excluded documents and the end line). :func:`check_shards`
refuses, naming the file, states of other inputs (another SHA-256: the input's path as typed may differ), metrics,
options or signatures, and missing or repeated shards.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from persona_metrics.line_checks import checked_line, line_fault
from persona_metrics.metric_registry import METRIC_SPECS
from persona_metrics.personalization import shard_of

#: The ``format`` field of every states header.
FORMAT = "persona-metrics-states"
#: The version of the layout above; a reader refuses another (1: no line checks, no end line; 2: per-item results
#: without their bootstrap's resamples and seed; 3: SummaryEval items without consistency and the completeness
#: method).
VERSION = 4
#: Header fields that must be equal in every shard of one run (besides ``format`` and ``version``).
SHARED_FIELDS: tuple[str, ...] = (
    "command", "metric", "input_sha256", "num_items", "num_shards", "options", "systems", "boards",
)  # fmt: skip
#: The same for the per-item layout (``persona_metrics.sharding.items``): result names, not boards.
ITEM_SHARED_FIELDS: tuple[str, ...] = (*SHARED_FIELDS[:-1], "results")
#: The line kinds of each layout.
KINDS: dict[str, tuple[str, ...]] = {"documents": ("document", "excluded"), "items": ("result", "item")}


def layout(header: Mapping[str, Any]) -> str:
    """``"documents"`` (``pens`` and the metrics whose spec is ``by_document``) or ``"items"`` (the others)."""
    metric = header.get("metric")
    spec = METRIC_SPECS.get(metric) if isinstance(metric, str) else None  # a damaged header: checked later
    return "documents" if header.get("command") == "pens" or (spec is not None and spec.by_document) else "items"


def shared_fields(header: Mapping[str, Any]) -> tuple[str, ...]:
    """The header fields every shard of the run must share, for the header's layout."""
    return SHARED_FIELDS if layout(header) == "documents" else ITEM_SHARED_FIELDS


#: The most shards one run may have: a merge lists the missing ones, and no run needs more machines than this.
MAX_SHARDS = 100_000


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` → ``(I, N)``, with 1 ≤ I ≤ N.

    Raises:
        ValueError: anything else (the text named).

    >>> parse_shard("2/3")
    (2, 3)
    """
    index, sep, total = str(text).partition("/")
    if not (sep and index.strip().isdigit() and total.strip().isdigit()):
        raise ValueError(f"--shard {text!r}: expected I/N with whole numbers, e.g. 1/3")
    shard, num_shards = int(index), int(total)
    if not 1 <= shard <= num_shards:
        raise ValueError(f"--shard {text!r}: I must be from 1 to N")
    if num_shards > MAX_SHARDS:
        raise ValueError(f"--shard {text:.40}: N must be at most {MAX_SHARDS:,} (MAX_SHARDS)")
    return shard, num_shards


def shard_items(keys: Sequence[Hashable], shard: int, num_shards: int) -> list[int]:
    """The positions of the items whose document (``keys[i]``) falls in shard ``shard`` (1-based) of ``num_shards``.

    >>> shard_items(["N1", "N2", "N1"], 3, 3)
    [0, 2]
    """
    return [i for i, key in enumerate(keys) if shard_of(key, num_shards) == shard - 1]


def shard_block(num_items: int, shard: int, num_shards: int) -> range:
    """The positions of shard ``shard`` (1-based) of ``num_shards`` contiguous blocks of ``num_items`` items.

    The blocks differ in size by at most one item and cover ``0 … num_items − 1`` in order; a shard past the last
    item is empty.

    >>> [list(shard_block(5, k, 3)) for k in (1, 2, 3)]
    [[0], [1, 2], [3, 4]]
    """
    return range((shard - 1) * num_items // num_shards, shard * num_items // num_shards)


def digest(chunks: Iterable[bytes]) -> str:
    """SHA-256 (hex) of the input's bytes, file after file (each prefixed by its length, so files cannot blur)."""
    h = hashlib.sha256()
    for chunk in chunks:
        h.update(len(chunk).to_bytes(8, "big"))
        h.update(chunk)
    return h.hexdigest()


# --- files ---------------------------------------------------------------------------------------------------
#: The last line of every states file (before its check).
END: dict[str, str] = {"kind": "end"}


def seal(rows: Iterable[Mapping[str, Any]]) -> str:
    """JSON lines of ``rows`` then the end line, each ending with its ``check``; strict ASCII JSON, exact floats.

    The check covers each line's number and text (:func:`~persona_metrics.line_checks.checked_line`).
    """
    return "".join(checked_line(row, lineno) for lineno, row in enumerate((*rows, END), start=1))


def states_text(header: Mapping[str, Any], lines: Iterable[Mapping[str, Any]]) -> str:
    """The header (``format`` and ``version`` first), then one line per entry, then the end line (:func:`seal`)."""
    return seal(({"format": FORMAT, "version": VERSION, **header}, *lines))


@dataclass(frozen=True)
class States:
    """One states file read back.

    Attributes:
        path: the file, as named.
        header: its first line.
        lines: ``(line number, object)`` for every other line.
    """

    path: str
    header: dict[str, Any]
    lines: list[tuple[int, dict[str, Any]]]

    @property
    def shard(self) -> int:
        """The shard's number, 1 … ``num_shards``."""
        return int(self.header["shard"])


def _whole(value: Any, least: int) -> bool:
    return type(value) is int and value >= least


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


#: The type of each header field (``results``: the per-item layout; ``boards``: the per-document one).
HEADER_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "command": (lambda v: isinstance(v, str), "a string"),
    "metric": (lambda v: isinstance(v, str), "a string"),
    "input": (lambda v: isinstance(v, str), "a string"),
    "input_sha256": (lambda v: isinstance(v, str), "a string"),
    "num_items": (lambda v: _whole(v, 0), "a whole number"),
    "shard": (lambda v: _whole(v, 1), "a whole number from 1"),
    "num_shards": (lambda v: _whole(v, 1) and v <= MAX_SHARDS, f"a whole number from 1 to {MAX_SHARDS:,}"),
    "options": (lambda v: isinstance(v, dict), "an object"),
    "systems": (lambda v: _texts(v) and bool(v), "a non-empty list of strings"),
    "boards": (lambda v: isinstance(v, dict) and all(isinstance(b, dict) for b in v.values()), "an object"),
    "results": (lambda v: _texts(v) and bool(v), "a non-empty list of strings"),
    "notes": (_texts, "a list of strings"),
}


def _check_header(header: Any, path: str) -> dict[str, Any]:
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValueError(f"{path}:1: not a states file (no header with format {FORMAT!r}); write one with --states")
    if header.get("version") != VERSION:
        raise ValueError(
            f"{path}:1: field 'version' is {header.get('version')!r}; this persona-metrics reads {VERSION}"
        )
    missing = [name for name in (*shared_fields(header), "input", "shard", "notes") if name not in header]
    if missing:
        raise ValueError(f"{path}:1: header lacks the fields {missing}")
    for name, (ok, what) in HEADER_CHECKS.items():
        if name in header and not ok(header[name]):
            raise ValueError(f"{path}:1: field {name!r} must be {what}, got {header[name]!r:.80}")
    if header["shard"] > header["num_shards"]:
        raise ValueError(f"{path}:1: field 'shard' is {header['shard']}, past num_shards {header['num_shards']}")
    return header


def _no_constant(name: str) -> None:
    """``json.loads``'s ``parse_constant``: a states file is strict JSON (``NaN`` and ``Infinity`` are refused)."""
    raise ValueError(f"{name} is not strict JSON")


def _parsed(text: str, where: str) -> Any:
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise ValueError(f"{where}: not valid JSON ({err.msg})") from err
    except ValueError as err:
        raise ValueError(f"{where}: not valid JSON ({err})") from err


def _check_line(text: str, lineno: int, where: str) -> None:
    """The line ends with the ``check`` its number and text give (see the module's docstring)."""
    fault = line_fault(text, lineno)
    if fault == "missing":
        raise ValueError(f"{where}: no 'check' field at the end of the line; states are written by --states")
    if fault is not None:
        raise ValueError(
            f"{where}: the line does not match its check: it was edited, or a line before it was dropped, moved or "
            "added, after the shard wrote it; re-run the shard"
        )


def read_states(path: str | Path) -> States:
    """Read a states file, checking the header, every line's ``check`` and that every line is a JSON object.

    Raises:
        FileNotFoundError: no such file.
        ValueError: ``FILE:LINE`` and the problem (not JSON, not a states file, another format version, a line
            edited, dropped or added, a file cut short).
    """
    from persona_metrics.datasets.jsonl import read_text, text_lines

    texts = text_lines(read_text(path))
    rows = [(lineno, _parsed(line, f"{path}:{lineno}")) for lineno, line in enumerate(texts, start=1)]
    if not rows:
        raise ValueError(f"{path}: empty; a states file starts with its header line")
    header = rows[0][1]
    if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("version") != VERSION:
        _check_header(header, str(path))  # names what is wrong with it
    for lineno, line in enumerate(texts, start=1):
        _check_line(line, lineno, f"{path}:{lineno}")
    *rows, (last, end) = [(lineno, {k: v for k, v in row.items() if k != "check"}) for lineno, row in rows]
    if end != END:
        raise ValueError(
            f"{path}:{last}: the file ends without its end line {json.dumps(END)}: it was cut short; re-run the shard"
        )
    if not rows:
        raise ValueError(f"{path}:1: the end line stands where the header should")
    header = _check_header(rows[0][1], str(path))
    kinds = KINDS[layout(header)]
    for lineno, row in rows[1:]:
        if row.get("kind") not in kinds:
            raise ValueError(f"{path}:{lineno}: field 'kind' must be {' or '.join(map(repr, kinds))}")
    return States(str(path), header, rows[1:])


def check_shards(shards: Sequence[States]) -> list[States]:
    """The shards of one run, in shard order.

    Raises:
        ValueError: no file, a file whose header differs from the first file's (the field named), a shard given
            twice, or a missing shard (each names the file or the shard).
    """
    if not shards:
        raise ValueError("no states file given")
    first = shards[0]
    seen: dict[int, str] = {}
    for states in shards:
        for name in shared_fields(first.header):
            if states.header.get(name) != first.header[name]:
                raise ValueError(
                    f"{states.path}: {name} differs from {first.path}'s ({states.header.get(name)!r} vs "
                    f"{first.header[name]!r}); only shards of one run merge"
                )
        if states.shard in seen:
            raise ValueError(
                f"{states.path}: shard {states.shard}/{states.header['num_shards']} is also {seen[states.shard]}"
            )
        seen[states.shard] = states.path
    total = int(first.header["num_shards"])
    missing = [f"{k}/{total}" for k in range(1, total + 1) if k not in seen]
    if missing:
        raise ValueError(f"missing shards {', '.join(missing)} (got {', '.join(s.path for s in shards)})")
    return sorted(shards, key=lambda s: s.shard)
