"""States files: what one shard of a sharded CLI run keeps, and their exact merge (``docs/scaling.md`` §2).

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
  "indices", "degress", "accuracy", "adp", "acp", "dgp", "edp"}``, ``indices`` being positions in the whole input;
* one line per single-reference (excluded) document: ``{"kind": "excluded", "key", "indices"}``.

That is the per-document layout (``perseval``, ``degress``, ``pens``). The per-item metrics (``persona_style``,
``persona_quality``, ``vert``, ``summary_eval``) and ``cnndm`` shard their items in contiguous blocks
(:func:`shard_block`); their header has ``results`` (the result names per system) instead of ``boards``, and their
lines are per item (:mod:`persona_metrics.integrations.item_states`).

Every line ends with a ``check`` field: 16 hex digits of BLAKE2b over the line's number and its text before the
field (:mod:`persona_metrics.line_checks`, shared with the judge's results file); the last line is
``{"kind": "end"}``. A line edited after the shard wrote it, a line dropped, moved or added and a file cut short
are refused with ``FILE:LINE`` (:func:`read_states`). The check guards against damage and hand edits, not against
someone who recomputes it; the reader also checks every field's type and range, and :func:`merge_states` that the
shards' lines cover the input's items exactly once.

Floats are written by ``json`` (``repr``, shortest round-trip), so they read back bit for bit; text is written as
ASCII (JSON's escapes), so no character of a key or a note can split a line. A shard with no document to
score still writes a valid file (its header, its excluded documents and the end line). :func:`merge_states`
refuses, naming the file, states of other inputs (another SHA-256: the input's path as typed may differ),
metrics, options or signatures, and missing or repeated shards.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from persona_metrics.line_checks import checked_line, line_fault
from persona_metrics.personalization import PersevalParams, shard_of
from persona_metrics.personalization.formulas import Penalties
from persona_metrics.personalization.merge import merge_documents
from persona_metrics.personalization.scorer import DocumentScores, PersonalizationResult, excluded_note

#: The ``format`` field of every states header.
FORMAT = "persona-metrics-states"
#: The version of the layout above; a reader refuses another (1: no line checks, no end line).
VERSION = 2
#: Header fields that must be equal in every shard of one run (besides ``format`` and ``version``).
SHARED_FIELDS: tuple[str, ...] = (
    "command", "metric", "input_sha256", "num_items", "num_shards", "options", "systems", "boards",
)  # fmt: skip
#: The same for the per-item layout (``persona_metrics.integrations.item_states``): result names, not boards.
ITEM_SHARED_FIELDS: tuple[str, ...] = (*SHARED_FIELDS[:-1], "results")
#: The metrics whose states are per document (``pens`` too); every other run's states are per item.
DOCUMENT_METRICS: tuple[str, ...] = ("perseval", "degress")
#: The line kinds of each layout.
KINDS: dict[str, tuple[str, ...]] = {"documents": ("document", "excluded"), "items": ("result", "item")}


def layout(header: Mapping[str, Any]) -> str:
    """``"documents"`` (perseval / degress, ``pens``: per-document states) or ``"items"`` (the per-item metrics)."""
    if header.get("command") == "pens" or header.get("metric") in DOCUMENT_METRICS:
        return "documents"
    return "items"


def shared_fields(header: Mapping[str, Any]) -> tuple[str, ...]:
    """The header fields every shard of the run must share, for the header's layout."""
    return SHARED_FIELDS if layout(header) == "documents" else ITEM_SHARED_FIELDS


#: The most shards one run may have: a merge lists the missing ones, and no run needs more machines than this.
MAX_SHARDS = 100_000
#: The per-summary arrays of a document line.
ARRAYS: tuple[str, ...] = ("degress", "accuracy", "acp", "dgp", "edp")


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


def board_entry(signature: str, params: PersevalParams) -> dict[str, Any]:
    """A header's ``boards`` value for one distance: the signature and the hyper-parameters."""
    return {"signature": signature, "params": dataclasses.asdict(params)}


# --- lines ---------------------------------------------------------------------------------------------------
def document_line(board: str, system: str, doc: DocumentScores, positions: Sequence[int]) -> dict[str, Any]:
    """One scored document of a shard as a line; ``positions[i]`` is the whole input's position of shard item i."""
    pen = doc.penalties
    arrays = {"degress": doc.degress, "accuracy": doc.accuracy, "acp": pen.acp, "dgp": pen.dgp, "edp": pen.edp}
    return {
        "kind": "document",
        "board": board,
        "system": system,
        "key": doc.key,
        "indices": [positions[i] for i in doc.indices],
        **{name: np.asarray(values, dtype=np.float64).tolist() for name, values in arrays.items()},
        "adp": float(pen.adp),
    }


def excluded_line(key: Hashable, indices: Sequence[int]) -> dict[str, Any]:
    """One single-reference (excluded) document as a line, ``indices`` in the whole input."""
    return {"kind": "excluded", "key": key, "indices": list(indices)}


def finite(value: Any) -> bool:
    """A JSON number (not a bool) that is a finite float: ``10**400`` is not."""
    if isinstance(value, bool) or not isinstance(value, float | int):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


#: Slack on the ends of a range, for the rounding of the arithmetic that made a value.
SLACK = 1e-6


def within(low: float, high: float) -> Callable[[Any], bool]:
    """A check: a finite number in ``[low, high]`` (give ``±inf`` for an open end), with :data:`SLACK`."""
    return lambda value: finite(value) and low - SLACK <= value <= high + SLACK


#: The range of each per-summary array and of ``adp`` (eqs. 1 and 4–6): DEGRESS, ACP and ADP lie in [0, 1], DGP
#: = ADP + ACP in [0, 2], EDP = 1 − S + 1e-7 in [0, 1 + 1e-7]; the accuracy distance has no upper bound.
DOCUMENT_RANGES: dict[str, tuple[float, float]] = {
    "degress": (0.0, 1.0), "accuracy": (-math.inf, math.inf), "acp": (0.0, 1.0), "dgp": (0.0, 2.0),
    "edp": (0.0, 1.0), "adp": (0.0, 1.0),
}  # fmt: skip


def _range_text(name: str) -> str:
    low, high = DOCUMENT_RANGES[name]
    return "finite numbers" if math.isinf(low) else f"numbers in [{low:g}, {high:g}]"


def _floats(line: Mapping[str, Any], name: str, size: int, where: str) -> np.ndarray:
    values = line.get(name)
    ok = within(*DOCUMENT_RANGES[name])
    if not isinstance(values, list) or len(values) != size or not all(ok(v) for v in values):
        raise ValueError(f"{where}: field {name!r} must be a list of {size} {_range_text(name)}, got {values!r:.80}")
    return np.array(values, dtype=np.float64)


def _indices(line: Mapping[str, Any], where: str) -> tuple[int, ...]:
    indices = line.get("indices")
    if not isinstance(indices, list) or not indices or not all(type(i) is int and i >= 0 for i in indices):
        raise ValueError(f"{where}: field 'indices' must be a non-empty list of item positions")
    return tuple(indices)


def _key(line: Mapping[str, Any], where: str) -> str | int:
    """A document line's ``key``: the document id or text the input grouped by (a string or a whole number)."""
    key = line.get("key")
    if isinstance(key, bool) or not isinstance(key, str | int) or not finite(key if isinstance(key, int) else 0):
        raise ValueError(f"{where}: field 'key' must be a string or a whole number (a document), got {key!r:.80}")
    return key


def document_scores(line: Mapping[str, Any], where: str) -> DocumentScores:
    """A document line read back (``where`` is ``FILE:LINE`` for the errors).

    Raises:
        ValueError: a missing or malformed field (named).
    """
    key, indices = _key(line, where), _indices(line, where)
    arrays = {name: _floats(line, name, len(indices), where) for name in ARRAYS}
    adp: Any = line.get("adp")
    if not within(*DOCUMENT_RANGES["adp"])(adp):
        raise ValueError(f"{where}: field 'adp' must be a number in [0, 1], got {adp!r:.80}")
    penalties = Penalties(float(adp), arrays["acp"], arrays["dgp"], arrays["edp"])
    return DocumentScores(key, indices, arrays["degress"], arrays["accuracy"], penalties)


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


# --- the merge -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MergedStates:
    """The whole input's results rebuilt from its shards.

    Attributes:
        header: the first shard's header (what every shard shares, and the options to print with).
        results: ``{distance: {system: result}}``, systems in the unsharded run's order.
        notes: the warnings the unsharded run gives, distinct and sorted.
    """

    header: dict[str, Any]
    results: dict[str, dict[str, PersonalizationResult]]
    notes: list[str]


def _excluded(shards: Sequence[States]) -> tuple[list[tuple[Hashable, tuple[int, ...]]], int]:
    """The excluded documents of all shards in first-seen order, and the number of documents of the input."""
    excluded, keys = [], set()
    for states in shards:
        for lineno, line in states.lines:
            keys.add(json.dumps(line.get("key")))
            if line["kind"] == "excluded":
                excluded.append((line.get("key"), _indices(line, f"{states.path}:{lineno}")))
    return sorted(excluded, key=lambda entry: entry[1][0]), len(keys)


def _check_document_tags(states: States) -> None:
    """Every line's document belongs to this shard; every document line names a distance and a system of the header."""
    for lineno, line in states.lines:
        where = f"{states.path}:{lineno}"
        key = _key(line, where)
        if shard_of(key, states.header["num_shards"]) != states.shard - 1:
            raise ValueError(
                f"{where}: document {key!r:.80} belongs to shard {shard_of(key, states.header['num_shards']) + 1}/"
                f"{states.header['num_shards']}, not to this file's {states.shard}"
            )
        if line["kind"] != "document":
            continue
        for field, known in (("board", list(states.header["boards"])), ("system", states.header["systems"])):
            if line.get(field) not in known:
                raise ValueError(
                    f"{where}: field {field!r} is {line.get(field)!r:.80}, not one of the header's {known}"
                )


def _check_coverage(shards: Sequence[States], board: str, system: str) -> None:
    """The shards' lines of (``board``, ``system``) and their excluded documents hold every item once.

    Raises:
        ValueError: an item in two lines (both named), a position past the input, or items in no line.
    """
    num_items = int(shards[0].header["num_items"])
    seen: dict[int, str] = {}
    for states in shards:
        for lineno, line in states.lines:
            if line["kind"] == "document" and (line.get("board"), line.get("system")) != (board, system):
                continue
            where = f"{states.path}:{lineno}"
            for index in _indices(line, where):
                if index >= num_items:
                    raise ValueError(f"{where}: item {index} is past the input's {num_items} items")
                if index in seen:
                    raise ValueError(f"{where}: item {index} is also in {seen[index]}; a line was repeated")
                seen[index] = where
    if len(seen) != num_items:
        missing = list(itertools.islice((i for i in range(num_items) if i not in seen), 10))
        more = " …" if num_items - len(seen) > len(missing) else ""
        raise ValueError(
            f"{', '.join(s.path for s in shards)}: {num_items - len(seen)} of the {num_items} items ({missing}{more}) "
            f"are in no line for {board!r} / {system!r}: the shards are incomplete; re-run them"
        )


def _board_documents(shards: Sequence[States], board: str, system: str) -> list[list[DocumentScores]]:
    return [
        [
            document_scores(line, f"{states.path}:{lineno}")
            for lineno, line in states.lines
            if line["kind"] == "document" and line.get("board") == board and line.get("system") == system
        ]
        for states in shards
    ]


def _board_params(entry: Mapping[str, Any], where: str) -> PersevalParams:
    """The hyper-parameters of one ``boards`` entry of a header, checked.

    Raises:
        ValueError: no signature string, or parameters that are not PerSEval's (``where`` and the field named).
    """
    if not isinstance(entry.get("signature"), str) or not isinstance(entry.get("params"), dict):
        raise ValueError(f"{where}: field 'boards' must map each distance to {{signature, params}}")
    try:
        return PersevalParams(**entry["params"])
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where}: field 'boards': {err}") from err


def merge_states(shards: Sequence[States]) -> MergedStates:
    """Every (distance, system) result of the whole input, equal bit for bit to the unsharded run's.

    Raises:
        ValueError: the shards do not belong together (:func:`check_shards`), a malformed line (``FILE:LINE``
            and the field), a document in two shards, or no document with two references in the whole input.
    """
    shards = check_shards(shards)
    for states in shards:
        _check_document_tags(states)
    header = shards[0].header
    for board in header["boards"]:
        for system in header["systems"]:
            _check_coverage(shards, board, system)
    excluded, num_documents = _excluded(shards)
    results: dict[str, dict[str, PersonalizationResult]] = {}
    for board, entry in header["boards"].items():
        params = _board_params(entry, f"{shards[0].path}:1")
        results[board] = {
            system: merge_documents(
                _board_documents(shards, board, system),
                num_items=int(header["num_items"]),
                num_excluded_documents=len(excluded),
                signature=entry["signature"],
                params=params,
                names=[s.path for s in shards],
            )
            for system in header["systems"]
        }
    notes = {note for s in shards for note in s.header["notes"]}
    if excluded:
        notes.add(excluded_note(num_documents, [key for key, _ in excluded]))
    return MergedStates({k: v for k, v in header.items() if k != "shard"}, results, sorted(notes))
