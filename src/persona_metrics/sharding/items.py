"""States of the per-item metrics: one line per item, read back into the library's results (``docs/scaling.md`` §2).

``persona-metrics score persona_style|persona_quality|vert|summary_eval FILE --shard I/N --states OUT.jsonl`` and
``persona-metrics cnndm ... --shard I/N --states OUT.jsonl`` score a contiguous block of the input's items
(:func:`~persona_metrics.sharding.files.shard_block`) and write, after the header
(:mod:`persona_metrics.sharding.files`), for each (system, result) the shard scored:

* one ``{"kind": "result", "system", "result", ...}`` line: what every item of the result shares (the signature's
  parts as ``config``, the weights, which optional per-item fields are present);
* one ``{"kind": "item", "system", "result", "index", ...}`` line per item: ``index`` is the item's position in the
  whole input, then every per-item value of the result.

What each result writes, and how it is rebuilt, is its family's codec (the metric spec's ``codec``:
``persona/states.py``, ``vert/states.py``, ``summary_eval/states.py``); this module only frames, checks and merges.

Floats are written by ``json`` (shortest round-trip ``repr``) and read back bit for bit; a missing judge score
(NaN in the result) is ``null``. Nothing is pickled: a states file is user input, and every field of every line is
checked when it is read back (a ValueError names ``FILE:LINE`` and the field). Each shard's lines are rebuilt into
the library's result of that shard (a VERT result without the word alignments, which no printed output uses), and
the result's own ``merge`` (:class:`~persona_metrics.results.ItemResult`) puts the shards' results together: the
means, the per-item values, the bootstrap intervals (drawn again with the resamples and seed the result keeps) and
the signature are those of one call over the whole input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from persona_metrics.metric_registry import metric_spec
from persona_metrics.sharding.files import States, check_shards, shard_block
from persona_metrics.state_fields import WHOLE, ItemCodec, check_fields


def codec_of(name: str) -> ItemCodec:
    """The states codec of result ``name`` (a per-item metric's, from its spec).

    Raises:
        ValueError: an unknown metric, or one without per-item states (named).
    """
    codec = metric_spec(name, "result").codec
    if codec is None:
        raise ValueError(f"result {name!r} has no per-item states; its states are per document")
    return codec


# --- writing ---------------------------------------------------------------------------------------------------
def item_state_lines(system: str, name: str, result: Any, positions: Sequence[int]) -> list[dict[str, Any]]:
    """The ``result`` line and the ``item`` lines of one scored result; ``positions[i]``: item i's in the input.

    Raises:
        TypeError: ``result`` is not the type of ``name``'s codec.
    """
    codec = codec_of(name)
    if not isinstance(result, codec.kind):
        raise TypeError(f"result must be a {codec.kind.__name__} for {name}, got {type(result).__name__}")
    tag = {"system": system, "result": name}
    items = codec.items(result)
    return [
        {"kind": "result", **tag, **codec.shared(result)},
        *({"kind": "item", **tag, "index": positions[i], **item} for i, item in enumerate(items)),
    ]


# --- reading and merging ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MergedItems:
    """The whole input's per-item results rebuilt from its shards.

    Attributes:
        header: the first shard's header without ``shard``.
        results: ``{system: {result name: result}}``, in the header's order.
        notes: the shards' warnings, distinct and sorted.
    """

    header: dict[str, Any]
    results: dict[str, dict[str, Any]]
    notes: list[str]


def _lines_of(states: States, system: str, name: str) -> list[tuple[str, dict[str, Any]]]:
    """The shard's lines of (``system``, ``name``), each with its ``FILE:LINE``."""
    return [
        (f"{states.path}:{lineno}", line)
        for lineno, line in states.lines
        if line.get("system") == system and line.get("result") == name
    ]


def _check_tags(states: States) -> None:
    """Every line names a system and a result of the header."""
    for lineno, line in states.lines:
        for field, known in (("system", states.header["systems"]), ("result", states.header["results"])):
            if line.get(field) not in known:
                raise ValueError(
                    f"{states.path}:{lineno}: field {field!r} is {line.get(field)!r}, not one of the header's {known}"
                )


def _check_indices(states: States, items: Sequence[tuple[str, dict[str, Any]]], block: range) -> None:
    """The item lines' ``index`` fields are the shard's block of the input, in order."""
    for (where, line), expected in zip(items, block, strict=False):
        check_fields(line, {"index": WHOLE}, where)
        if line["index"] != expected:
            raise ValueError(
                f"{where}: field 'index' is {line['index']}, expected {expected} (shard {states.shard}/"
                f"{states.header['num_shards']} holds the items {block.start} to {block.stop - 1} in order)"
            )
    if len(items) != len(block):
        raise ValueError(
            f"{states.path}: {len(items)} item lines of {items[0][1]['system']!r} / {items[0][1]['result']!r}, "
            f"but shard {states.shard}/{states.header['num_shards']} holds {len(block)} items"
        )


def read_part(states: States, system: str, name: str) -> tuple[Any, list[int]] | None:
    """The shard's result of (``system``, ``name``) rebuilt, with its items' positions; None for an empty shard.

    Raises:
        ValueError: a missing, repeated or damaged line (``FILE:LINE`` and the field named).
    """
    lines = _lines_of(states, system, name)
    block = shard_block(int(states.header["num_items"]), states.shard, int(states.header["num_shards"]))
    shared = [(where, line) for where, line in lines if line["kind"] == "result"]
    items = [(where, line) for where, line in lines if line["kind"] == "item"]
    if not block:
        if lines:
            raise ValueError(f"{lines[0][0]}: shard {states.shard}/{states.header['num_shards']} holds no item")
        return None
    if len(shared) != 1:
        raise ValueError(f"{states.path}: {len(shared)} 'result' lines for {system!r} / {name!r}; expected 1")
    codec = codec_of(name)
    check_fields(shared[0][1], codec.shared_checks, shared[0][0])
    if not items:
        raise ValueError(f"{states.path}: no item line for {system!r} / {name!r}")
    _check_indices(states, items, block)
    checks = codec.item_checks(shared[0][1])
    for where, line in items:
        check_fields(line, checks, where)
    return codec.build(shared[0][1], [line for _, line in items]), list(block)


def _merge_result(shards: Sequence[States], system: str, name: str) -> Any:
    """The shards' parts of (``system``, ``name``) merged by the result's own ``merge``."""
    parts, positions, names = [], [], []
    for states in shards:
        part = read_part(states, system, name)
        if part is not None:
            parts.append(part[0])
            positions.append(part[1])
            names.append(states.path)
    for result, path in zip(parts, names, strict=True):
        if result.signature != parts[0].signature:
            raise ValueError(
                f"{path}: the {name} signature of {system!r} differs from {names[0]}'s ({result.signature!r} vs "
                f"{parts[0].signature!r}); only shards of one run merge"
            )
    if not parts:
        raise ValueError("results is empty: give at least one result")
    return type(parts[0]).merge(parts, positions)


def merge_item_states(shards: Sequence[States]) -> MergedItems:
    """Every (system, result) of the whole input, equal bit for bit to the unsharded run's.

    Raises:
        ValueError: the shards do not belong together (:func:`~persona_metrics.sharding.files.check_shards`),
            a damaged line (``FILE:LINE`` and the field), or signatures that differ (the file named).
    """
    shards = check_shards(shards)
    for states in shards:
        _check_tags(states)
    header = shards[0].header
    results = {
        system: {name: _merge_result(shards, system, name) for name in header["results"]}
        for system in header["systems"]
    }
    notes = sorted({note for states in shards for note in states.header["notes"]})
    return MergedItems({k: v for k, v in header.items() if k != "shard"}, results, notes)
