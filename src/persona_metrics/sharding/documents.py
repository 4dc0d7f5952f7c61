"""The per-document states of a sharded DEGRESS / PerSEval / ``pens`` run, merged exactly (``docs/scaling.md`` §2).

Each shard holds the documents :func:`~persona_metrics.personalization.shard_of` gives it: one line per scored
document of each (distance, system) (:func:`~persona_metrics.personalization.states.document_line`) and one per
single-reference (excluded) document. :func:`merge_states` checks that the shards' lines tag known distances and
systems, belong to their shard and cover every item exactly once, then merges each board's documents with the
family's :func:`~persona_metrics.personalization.merge.merge_documents`: bit for bit the unsharded run's.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from persona_metrics.personalization import PersevalParams, shard_of
from persona_metrics.personalization.merge import merge_documents
from persona_metrics.personalization.scorer import DocumentScores, PersonalizationResult, excluded_note
from persona_metrics.personalization.states import document_scores, indices_of, key_of
from persona_metrics.sharding.files import States, check_shards


def board_entry(signature: str, params: PersevalParams) -> dict[str, Any]:
    """A header's ``boards`` value for one distance: the signature and the hyper-parameters."""
    return {"signature": signature, "params": dataclasses.asdict(params)}


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
                excluded.append((line.get("key"), indices_of(line, f"{states.path}:{lineno}")))
    return sorted(excluded, key=lambda entry: entry[1][0]), len(keys)


def _check_document_tags(states: States) -> None:
    """Every line's document belongs to this shard; every document line names a distance and a system of the header."""
    for lineno, line in states.lines:
        where = f"{states.path}:{lineno}"
        key = key_of(line, where)
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
            for index in indices_of(line, where):
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
