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

Floats are written by ``json`` (``repr``, shortest round-trip), so they read back bit for bit. A shard with no
document to score still writes a valid file (its header and its excluded documents). :func:`merge_states` refuses,
naming the file, states of other inputs, metrics, options or signatures, and missing or repeated shards.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from persona_metrics.personalization import PersevalParams, shard_of
from persona_metrics.personalization.formulas import Penalties
from persona_metrics.personalization.merge import merge_documents
from persona_metrics.personalization.scorer import DocumentScores, PersonalizationResult, excluded_note

#: The ``format`` field of every states header.
FORMAT = "persona-metrics-states"
#: The version of the layout above; a reader refuses another.
VERSION = 1
#: Header fields that must be equal in every shard of one run (besides ``format`` and ``version``).
SHARED_FIELDS: tuple[str, ...] = (
    "command", "metric", "input", "input_sha256", "num_items", "num_shards", "options", "systems", "boards",
)  # fmt: skip
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
    return shard, num_shards


def shard_items(keys: Sequence[Hashable], shard: int, num_shards: int) -> list[int]:
    """The positions of the items whose document (``keys[i]``) falls in shard ``shard`` (1-based) of ``num_shards``.

    >>> shard_items(["N1", "N2", "N1"], 3, 3)
    [0, 2]
    """
    return [i for i, key in enumerate(keys) if shard_of(key, num_shards) == shard - 1]


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


def _floats(line: Mapping[str, Any], name: str, size: int, where: str) -> np.ndarray:
    values = line.get(name)
    if not isinstance(values, list) or len(values) != size or not all(isinstance(v, float | int) for v in values):
        raise ValueError(f"{where}: field {name!r} must be a list of {size} numbers")
    return np.array(values, dtype=np.float64)


def _indices(line: Mapping[str, Any], where: str) -> tuple[int, ...]:
    indices = line.get("indices")
    if not isinstance(indices, list) or not indices or not all(type(i) is int and i >= 0 for i in indices):
        raise ValueError(f"{where}: field 'indices' must be a non-empty list of item positions")
    return tuple(indices)


def document_scores(line: Mapping[str, Any], where: str) -> DocumentScores:
    """A document line read back (``where`` is ``FILE:LINE`` for the errors).

    Raises:
        ValueError: a missing or malformed field (named).
    """
    indices = _indices(line, where)
    arrays = {name: _floats(line, name, len(indices), where) for name in ARRAYS}
    adp = line.get("adp")
    if not isinstance(adp, float | int) or isinstance(adp, bool):
        raise ValueError(f"{where}: field 'adp' must be a number")
    penalties = Penalties(float(adp), arrays["acp"], arrays["dgp"], arrays["edp"])
    return DocumentScores(line.get("key"), indices, arrays["degress"], arrays["accuracy"], penalties)


# --- files ---------------------------------------------------------------------------------------------------
def states_text(header: Mapping[str, Any], lines: Iterable[Mapping[str, Any]]) -> str:
    """The header (``format`` and ``version`` first), then one line per entry; strict JSON, floats round-trip."""
    first = {"format": FORMAT, "version": VERSION, **header}
    return "".join(json.dumps(row, allow_nan=False, ensure_ascii=False) + "\n" for row in (first, *lines))


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


def _check_header(header: Any, path: str) -> dict[str, Any]:
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValueError(f"{path}:1: not a states file (no header with format {FORMAT!r}); write one with --states")
    if header.get("version") != VERSION:
        raise ValueError(
            f"{path}:1: field 'version' is {header.get('version')!r}; this persona-metrics reads {VERSION}"
        )
    missing = [name for name in (*SHARED_FIELDS, "shard", "notes") if name not in header]
    if missing:
        raise ValueError(f"{path}:1: header lacks the fields {missing}")
    return header


def read_states(path: str | Path) -> States:
    """Read a states file, checking the header and that every line is a JSON object.

    Raises:
        FileNotFoundError: no such file.
        ValueError: ``FILE:LINE`` and the problem (not JSON, not a states file, another format version).
    """
    rows = []
    for lineno, text in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        try:
            rows.append((lineno, json.loads(text)))
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{lineno}: not valid JSON ({err.msg})") from err
    if not rows:
        raise ValueError(f"{path}: empty; a states file starts with its header line")
    header = _check_header(rows[0][1], str(path))
    for lineno, row in rows[1:]:
        if not isinstance(row, dict) or row.get("kind") not in ("document", "excluded"):
            raise ValueError(f"{path}:{lineno}: field 'kind' must be 'document' or 'excluded'")
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
        for name in SHARED_FIELDS:
            if states.header[name] != first.header[name]:
                raise ValueError(
                    f"{states.path}: {name} differs from {first.path}'s ({states.header[name]!r} vs "
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


def _board_documents(shards: Sequence[States], board: str, system: str) -> list[list[DocumentScores]]:
    return [
        [
            document_scores(line, f"{states.path}:{lineno}")
            for lineno, line in states.lines
            if line["kind"] == "document" and line.get("board") == board and line.get("system") == system
        ]
        for states in shards
    ]


def merge_states(shards: Sequence[States]) -> MergedStates:
    """Every (distance, system) result of the whole input, equal bit for bit to the unsharded run's.

    Raises:
        ValueError: the shards do not belong together (:func:`check_shards`), a malformed line (``FILE:LINE``
            and the field), a document in two shards, or no document with two references in the whole input.
    """
    shards = check_shards(shards)
    header = shards[0].header
    excluded, num_documents = _excluded(shards)
    results: dict[str, dict[str, PersonalizationResult]] = {}
    for board, entry in header["boards"].items():
        params = PersevalParams(**entry["params"])
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
