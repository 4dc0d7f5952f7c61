"""Score a ``ray.data.Dataset`` on a Ray cluster with the one-process numbers (``docs/scaling.md`` §4).

Per-item metrics (``persona_style``, ``persona_quality``, ``vert``, ``summary_eval``) are scored batch by batch with
``map_batches``; DEGRESS / PerSEval by document shard (``shard_of`` of the document id) with ``groupby`` and
``map_groups`` over Ray's sort-based shuffle (:func:`_sort_shuffle`), so every document's users are scored
together. Each task returns its rows' library result with their positions in the whole input
(:mod:`~persona_metrics.integrations.parts`), and the driver merges them with :func:`persona_metrics.merge`: every
number equals one call over the whole input, bit for bit. Ray is imported only here, on use (the ``ray`` extra).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from persona_metrics.extras import require
from persona_metrics.integrations.parts import (
    STATE,
    Part,
    check_columns,
    document_column,
    merge_parts,
    pack,
    score_rows,
    unpack,
)
from persona_metrics.metric_spec import MetricSpec
from persona_metrics.personalization import shard_of
from persona_metrics.validation import check_number

if TYPE_CHECKING:
    import pyarrow as pa
    import ray.data
    from ray.data import DataContext

#: Rows per ``map_batches`` call of a per-item metric (a model is loaded once per worker, not per batch).
DEFAULT_BATCH_SIZE = 256
#: Document shards of DEGRESS / PerSEval (the blocks of the sort-based shuffle); any number gives the same result.
DEFAULT_NUM_SHARDS = 16
#: The default column of each row's position in the whole input (0 … N−1; :func:`from_columns` adds it).
POSITION = "position"
_SHARD = "_persona_metrics_shard"
#: Ray Data's shuffle that brings each document shard's rows together (:func:`_sort_shuffle` says why).
SHUFFLE_STRATEGY = "sort_shuffle_pull_based"
#: Rows per task that adds the shard column (the blocks of a dataset are bundled up to it; the task is cheap).
_SHARD_BATCH_ROWS = 4096
#: The most blocks :func:`from_columns` makes (Ray Data's default number of blocks of ``from_items``).
_MAX_BLOCKS = 200


def _require_ray() -> None:
    """Fail at once with one line naming the ``ray`` extra when Ray is not installed."""
    require("Ray Data scoring", "ray")


def _check_positions(names: Sequence[str], column: str) -> None:
    """Refuse a dataset (its column ``names``) without its column of row positions (Ray keeps no row order)."""
    if column not in names:
        raise ValueError(
            f"the dataset has no column {column!r} of each row's position in the whole input (0 … N−1): Ray Data "
            "does not keep row order, and the numbers of one process depend on it; build the dataset with "
            "from_columns, or name your own row-number column with position_column="
        )


def from_columns(
    columns: Mapping[str, Sequence[Any]], *, position_column: str = POSITION, **from_items: Any
) -> ray.data.Dataset:
    """A Ray dataset of aligned input columns, with each row's position (what :func:`score_dataset` reads).

    Args:
        columns: the metric's inputs by name (lists of equal length), e.g. ``{"predictions": [...], ...}``.
        position_column: the name of the added column of row positions 0 … N−1.
        **from_items: options of ``ray.data.from_items``; ``override_num_blocks`` is by default one block per
            ``DEFAULT_BATCH_SIZE`` rows, at most 200 (Ray's own default, 200 blocks, makes a block of each row or two
            of a small input, and a Ray task of each block).

    Raises:
        MissingExtraError: Ray is not installed.
        ValueError: columns of different lengths, or one named ``position_column``.
    """
    _require_ray()
    import ray.data

    lengths = {name: len(values) for name, values in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"the columns must have one length, got {lengths}")
    if position_column in columns:
        raise ValueError(f"{position_column!r} is the position column; rename that input column")
    count = next(iter(lengths.values()), 0)
    rows = [{position_column: i, **{name: values[i] for name, values in columns.items()}} for i in range(count)]
    # Ray's own default is 200 blocks at any size (279 rows: 200 blocks, each a task of one or two rows)
    from_items.setdefault("override_num_blocks", max(1, min(_MAX_BLOCKS, -(-count // DEFAULT_BATCH_SIZE))))
    return ray.data.from_items(rows, **from_items)


def _task_id() -> str:
    """The Ray task scoring this part."""
    import ray

    return ray.get_runtime_context().get_task_id() or ""


def _score_table(table: pa.Table, *, metric: MetricSpec, position: str, options: Mapping[str, Any]) -> pa.Table:
    """One block or group of rows scored: a one-row table holding the packed :class:`Part`."""
    import pyarrow as pa

    if table.num_rows == 0:
        return pa.table({STATE: pa.array([], type=pa.binary())})
    columns = {name: table.column(name).to_pylist() for name in table.column_names if name != position}
    part = score_rows(metric, columns, table.column(position).to_pylist(), **options)
    part = Part(part.positions, part.result, worker=_task_id())
    return pa.table({STATE: pa.array([pack(part)], type=pa.binary())})


def _add_shard(table: pa.Table, *, column: str, num_shards: int) -> pa.Table:
    """The rows with their document's shard (``shard_of``)."""
    import pyarrow as pa

    shards = [shard_of(key, num_shards) for key in table.column(column).to_pylist()]
    return table.append_column(_SHARD, pa.array(shards, type=pa.int64()))


@contextlib.contextmanager
def _sort_shuffle(context: DataContext) -> Iterator[None]:
    """``context`` (a dataset's ``DataContext``) set to :data:`SHUFFLE_STRATEGY` meanwhile, then restored.

    Ray Data's default hash shuffle (``shuffle_v2`` in Ray 2.60) runs its reduce tasks, and so the scoring fused into
    them, in a pool of worker processes of their own that Ray starts afresh for every call, each importing this
    library again: about 8 s a call on a 2-core machine whatever the size of the input. The sort-based shuffle runs
    in the cluster's ordinary, reused workers (``docs/scaling.md`` §4, "When Ray pays off"). A dataset shares its
    context with the datasets derived from it, so the caller's own setting is put back on exit.
    """
    saved = context.shuffle_strategy
    context.shuffle_strategy = SHUFFLE_STRATEGY
    try:
        yield
    finally:
        context.shuffle_strategy = saved


def score_parts(
    dataset: ray.data.Dataset,
    metric: str,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    num_shards: int = DEFAULT_NUM_SHARDS,
    position_column: str = POSITION,
    map_options: Mapping[str, Any] | None = None,
    **options: Any,
) -> list[Part]:
    """The scored parts of ``dataset`` (what :func:`score_dataset` merges), one per task's batch or shard.

    Arguments as :func:`score_dataset`.
    """
    _require_ray()
    names = dataset.columns()
    spec = check_columns(metric, names)
    check_number("batch_size", batch_size, 1, integer=True)
    check_number("num_shards", num_shards, 1, integer=True)
    _check_positions(names, position_column)
    keep = [name for name in (*spec.known_columns(), position_column) if name in names]
    dataset = dataset.select_columns(keep)
    score = functools.partial(_score_table, metric=spec, position=position_column, options=dict(options))
    remote = dict(map_options or {})
    if spec.by_document:
        # num_shards blocks before the sort: its tasks grow as blocks², and each block is one scoring task after it
        shard = functools.partial(_add_shard, column=document_column(keep), num_shards=num_shards)
        keyed = dataset.map_batches(shard, batch_size=_SHARD_BATCH_ROWS, batch_format="pyarrow")
        keyed = keyed.repartition(num_shards)
        with _sort_shuffle(keyed.context):
            scored = keyed.groupby(_SHARD).map_groups(score, batch_format="pyarrow", **remote)
            rows = scored.take_all()
    else:
        rows = dataset.map_batches(score, batch_size=batch_size, batch_format="pyarrow", **remote).take_all()
    return unpack(row[STATE] for row in rows)


def score_dataset(
    dataset: ray.data.Dataset,
    metric: str,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    num_shards: int = DEFAULT_NUM_SHARDS,
    position_column: str = POSITION,
    map_options: Mapping[str, Any] | None = None,
    **options: Any,
) -> Any:
    """The library's result for ``metric`` over a Ray dataset, scored by Ray tasks, equal to one call over it all.

    Args:
        dataset: one row per item; columns named as the metric spec's inputs (and row options: ``document_ids``).
        metric: a registered metric's name (:mod:`persona_metrics.metric_registry`).
        batch_size: rows per ``map_batches`` call of a per-item metric.
        num_shards: document shards of DEGRESS / PerSEval: the blocks of Ray's sort-based shuffle and at most as many
            scoring tasks.
        position_column: the column of each row's position in the whole input (0 … N−1): the order one process
            would score the rows in (Ray Data keeps no row order of its own; :func:`from_columns` adds it).
        map_options: Ray options of the scoring tasks (``num_cpus``, ``num_gpus``, ``concurrency`` ...).
        **options: the library function's options (``distance="jsd"``, ``bootstrap=1000``, ``seed=...`` ...).

    Returns:
        The result one process gives (the spec's result type), bit for bit.

    Raises:
        MissingExtraError: Ray is not installed (one line naming the ``ray`` extra).
        ValueError: an unknown metric, a missing input column; the library's errors for bad inputs or options.

    Example:
        >>> import ray  # doctest: +SKIP
        >>> from persona_metrics.integrations.ray_data import score_dataset  # doctest: +SKIP
        >>> rows = [{"predictions": "Wow!! Best phone ever!!", "personas": "enthusiast"}]  # doctest: +SKIP
        >>> score_dataset(ray.data.from_items(rows), "persona_style").mean  # doctest: +SKIP
    """
    parts = score_parts(
        dataset,
        metric,
        batch_size=batch_size,
        num_shards=num_shards,
        position_column=position_column,
        map_options=map_options,
        **options,
    )
    return merge_parts(parts)
