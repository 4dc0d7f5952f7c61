"""Score one part of an input wherever an engine runs it, and merge the parts (``docs/scaling.md`` §4, §5).

An engine (Ray Data, ``datasets.map(num_proc=N)``, a job queue) hands a worker some rows of the whole input and
their positions in it. The worker scores them with the library (:func:`score_rows`) and returns the library's
result with those positions, pickled (:func:`pack`); the driver unpickles every part and calls
:func:`persona_metrics.merge` (:func:`merge_parts`), so the numbers are those of one call over the whole input, bit
for bit. A metric whose spec is ``by_document`` (DEGRESS, PerSEval) takes parts of whole documents, the others any rows.
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

from persona_metrics.metric_registry import merge, metric_spec
from persona_metrics.metric_spec import MetricSpec
from persona_metrics.personalization import ExcludedPart, shard_of

#: The column of a packed part (one row per part: :func:`pack`).
STATE = "state"


@dataclasses.dataclass(frozen=True)
class Part:
    """One scored part of the whole input: the library's result and where its items sit in the input.

    Attributes:
        positions: the position in the whole input of each item of ``result`` (``positions[i]`` for item i).
        result: the library's result over these rows; for a DEGRESS / PerSEval part whose documents all have one
            reference, an :class:`~persona_metrics.personalization.ExcludedPart` (their counts: nothing to score
            there; one call over the whole input excludes and counts them too).
        worker: where the part was scored (the engine's task id, or empty).
    """

    positions: tuple[int, ...]
    result: Any
    worker: str = ""


def check_columns(metric: str | MetricSpec, columns: Iterable[str]) -> MetricSpec:
    """The metric's spec (:mod:`persona_metrics.metric_registry`), after checking that ``columns`` has its inputs.

    Raises:
        ValueError: an unknown metric (the known ones named) or a missing input column (named).
    """
    spec = metric if isinstance(metric, MetricSpec) else metric_spec(metric)
    given = set(columns)
    missing = [name for name in spec.inputs if name not in given]
    if missing:
        raise ValueError(f"{spec.name} needs the input columns {list(spec.inputs)}; missing {missing}")
    return spec


def document_column(columns: Iterable[str]) -> str:
    """The column that names a row's document: ``document_ids`` when present, else ``documents``."""
    return "document_ids" if "document_ids" in set(columns) else "documents"


def _in_input_order(columns: Mapping[str, Sequence[Any]], positions: Sequence[int]) -> tuple[dict, tuple[int, ...]]:
    """The rows sorted by their position in the whole input (an engine may hand them over in any order)."""
    order = sorted(range(len(positions)), key=lambda i: int(positions[i]))
    rows = {name: [values[i] for i in order] for name, values in columns.items()}
    return rows, tuple(int(positions[i]) for i in order)


def score_rows(
    metric: str | MetricSpec, columns: Mapping[str, Sequence[Any]], positions: Sequence[int], **options: Any
) -> Part:
    """Score some rows of the whole input with the library, as one part to merge.

    Args:
        metric: a registered metric's name, or its spec (a worker of another process may not have its registry).
        columns: the rows' inputs by name (the spec's inputs and row options); other columns are ignored.
        positions: each row's position in the whole input.
        **options: the library function's keyword options (``distance="rougeL"``, ``bootstrap=1000`` ...).

    Returns:
        The :class:`Part`: rows in input order, the library's result over them.

    Raises:
        ValueError: a missing column; the library's own errors for bad inputs or options.
    """
    spec = check_columns(metric, columns)
    wanted = [name for name in spec.known_columns() if name in columns]
    rows, where = _in_input_order({name: columns[name] for name in wanted}, positions)
    if spec.by_document:
        excluded = ExcludedPart.of(rows["documents"], rows.get("document_ids"))
        if excluded is not None:
            return Part(where, excluded)
    return Part(where, spec.score(rows, **options))


def pack(part: Part) -> bytes:
    """A part as bytes for an engine's table (a ``binary`` column named :data:`STATE`)."""
    return pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL)


def unpack(states: Iterable[bytes]) -> list[Part]:
    """The parts of packed states (:func:`pack`), from this library's own workers only (it is pickle).

    Raises:
        TypeError: a state that is not a packed :class:`Part`.
    """
    parts = [pickle.loads(state) for state in states]
    for p, part in enumerate(parts):
        if not isinstance(part, Part):
            raise TypeError(f"states[{p}] is a {type(part).__name__}, not a packed Part")
    return parts


def merge_parts(parts: Sequence[Part]) -> Any:
    """The result of the whole input from its scored parts (:func:`persona_metrics.merge`).

    Raises:
        ValueError: no part, or no document with two references in any DEGRESS / PerSEval part (as one call over
            the whole input says); the merge's own errors (parts that overlap or miss rows, other options).
    """
    if not parts:
        raise ValueError("no part to merge: the input had no rows")
    return merge([part.result for part in parts], positions=[part.positions for part in parts])


def score_batch(
    batch: Mapping[str, Sequence[Any]], indices: Sequence[int], *, metric: str | MetricSpec, **options: Any
) -> dict:
    """``datasets.Dataset.map(..., batched=True, with_indices=True)``: a batch scored as one packed part.

    For the per-item metrics (any rows make a part). Pass ``remove_columns=dataset.column_names``: the output has
    one row per batch, its :data:`STATE` (``docs/scaling.md`` §5).
    """
    return {STATE: [pack(score_rows(metric, batch, indices, **options))]}


def shard_rows(document_ids: Iterable[Hashable], num_shards: int) -> dict[str, list[list[int]]]:
    """``{"rows": [...]}``: the row numbers of each non-empty document shard (``shard_of``), in input order.

    A table to ``map`` over with :func:`score_shards`: each shard holds all the users of its documents.
    """
    rows: list[list[int]] = [[] for _ in range(num_shards)]
    for i, document_id in enumerate(document_ids):
        rows[shard_of(document_id, num_shards)].append(i)
    return {"rows": [shard for shard in rows if shard]}


def score_shards(
    batch: Mapping[str, Sequence[Sequence[int]]], *, data: Any, metric: str | MetricSpec, **options: Any
) -> dict:
    """``datasets.Dataset.map(..., batched=True)`` over :func:`shard_rows`: ``{STATE: [one packed part per shard]}``.

    ``batch`` is ``{"rows": [row numbers of data, per shard]}``; ``data`` the whole input, a ``datasets.Dataset``
    with the metric's input columns; ``options`` the library function's keywords (``docs/scaling.md`` §5).
    """
    return {STATE: [pack(score_rows(metric, data.select(rows)[:], rows, **options)) for rows in batch["rows"]]}
