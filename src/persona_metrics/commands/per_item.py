"""``persona-metrics score`` for the per-item metrics (those whose spec is not ``by_document``).

Each reads its JSON-lines file (:func:`read_items`), scores rows of it with the library (:func:`score_rows`) and
lays the library's result out as one system's report (:func:`item_report`). A sharded run (``--shard I/N --states
OUT.jsonl``) scores the contiguous block of items of its shard and writes the result's per-item values
(:func:`item_states`); ``persona-metrics merge`` merges the shards' results (each result's own ``merge``) and
lays them out with the same :func:`item_report` (:func:`merged_item_report`), so it prints what the unsharded run
prints, byte for byte (``docs/scaling.md`` §2). No arithmetic on scores here: means, intervals and per-item values
are the result's.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from persona_metrics.commands.output import (
    Report,
    captured_notes,
    input_errors,
    item_rows,
    markdown_table,
    merge_intervals,
    noted_now,
)
from persona_metrics.metric_registry import metric_spec

if TYPE_CHECKING:
    from persona_metrics.sharding.items import MergedItems


@dataclass(frozen=True)
class Items:
    """The items of an input file.

    Attributes:
        path: the file as named (``-``: standard input).
        columns: ``{field: one value per item}``.
        lines: the line number of each item (blank lines are skipped, so item ``i`` is not always line ``i + 1``).
    """

    path: Path
    columns: dict[str, list]
    lines: list[int]

    def __len__(self) -> int:
        return len(self.lines)

    def rows(self, positions: Sequence[int]) -> dict[str, list]:
        """The columns of the items at ``positions``."""
        return {name: [values[i] for i in positions] for name, values in self.columns.items()}


def read_items(metric: str, path: Path) -> Items:
    """The items of a per-item metric's file, each line checked.

    Raises:
        FileNotFoundError: no such file.
        ValueError: a malformed line (``FILE:LINE`` and the field named) or an empty file.
    """
    from persona_metrics.datasets.jsonl import read_columns

    spec = metric_spec(metric)
    fields = [spec.field_of(name) for name in spec.inputs]
    lists = [spec.field_of(name) for name in spec.list_inputs]
    # A blank prediction is the library's to judge, so that ``-o empty=zero`` scores it 0 as the module does; the
    # other fields must not be blank unless they may hold a list (the library checks those, named FILE:LINE).
    nonempty = [field for field in fields[1:] if field not in lists]
    columns, lines = read_columns(path, fields, nonempty, lists)
    return Items(path, columns, lines)


def score_rows(
    metric: str, items: Items, rows: Sequence[int], options: Mapping[str, Any], judge: Any = None
) -> tuple[Any, list[str]]:
    """The library's result over the items at ``rows``, and the warnings it gave.

    Raises:
        InputError: a value the library refuses, named ``FILE:LINE`` and the field when it is one item's; a
            judge failure (one line, saying that the judge cache keeps the items it finished).
    """
    from persona_metrics.commands.judge_options import judge_failure
    from persona_metrics.datasets.jsonl import located_errors
    from persona_metrics.summary_eval.judge_client import JudgeError

    spec = metric_spec(metric)
    lines = [items.lines[i] for i in rows]
    columns = items.rows(rows)
    keywords = {} if judge is None else {"judge": judge}
    try:
        with captured_notes() as notes, input_errors(TypeError), located_errors(items.path, lines):
            (params,) = spec.make_params(options)  # a per-item metric's one params class, given as params=
            result = spec.score({name: columns[spec.field_of(name)] for name in spec.inputs}, params=params, **keywords)
    except JudgeError as err:
        raise judge_failure(err, judge) from err
    return result, notes


def single_table(metric: str, path: Path, row: Mapping[str, Any]) -> str:
    """One system's numbers as a markdown table (intervals next to their means), then the signature."""
    shown = merge_intervals({k: v for k, v in row.items() if k != "signature"})
    return f"# {metric}: {path} ({row['n']} summaries)\n\n{markdown_table([shown])}\n\nsignature: {row['signature']}\n"


def item_report(metric: str, path: Path, result: Any, notes: Sequence[str], judged: bool = False) -> Report:
    """The report of a per-item metric's result over a whole file (scored at once, or merged from shards).

    Args:
        metric: the metric.
        path: the input as named (its stem names the system).
        result: the library's result over every item of the file.
        notes: the scoring's warnings.
        judged: the metric was scored with a judge (the result's note without one says how to give one).
    """
    means, columns = result.summary(), result.per_item()
    size = len(next(iter(columns.values())))
    row = {"system": path.stem, "n": size, **means, "signature": result.signature}
    notes = list(notes)
    if result.note is not None:
        notes.append(result.note if judged else f"{result.note}; here: -m/--model (and --base-url)")
    micro = item_rows(columns, system=path.stem, signature=result.signature)
    return Report([row], single_table(metric, path, row), notes, micro)


def _judge(args: argparse.Namespace) -> Any:
    """The judge of a metric that takes one (its spec's ``judged``): None without ``-m``, and for the others."""
    from persona_metrics.commands.judge_options import make_judge

    return make_judge(args) if metric_spec(args.metric).judged else None


def score_item_file(args: argparse.Namespace, options: Mapping[str, Any]) -> Report:
    """The report of ``args.metric`` over every item of ``args.file``."""
    with noted_now():
        items = read_items(args.metric, args.file)
    judge = _judge(args)
    result, notes = score_rows(args.metric, items, range(len(items)), options, judge)
    return item_report(args.metric, Path(args.file), result, notes, judge is not None)


def item_states(args: argparse.Namespace, options: Mapping[str, Any], shard: tuple[int, int]) -> str:
    """The states file of shard ``shard = (I, N)`` of a per-item metric's run (``docs/scaling.md`` §2).

    The shard scores the I-th of N contiguous blocks of the file's items
    (:func:`~persona_metrics.sharding.files.shard_block`); a shard past the last item writes its header only.
    """
    from persona_metrics.datasets.jsonl import read_input_bytes
    from persona_metrics.sharding.files import digest, shard_block, states_text
    from persona_metrics.sharding.items import item_state_lines

    with noted_now():
        items = read_items(args.metric, args.file)
    judge = _judge(args)
    block = shard_block(len(items), *shard)
    system = Path(args.file).stem
    lines: list[dict[str, Any]] = []
    notes: list[str] = []
    if block:
        result, notes = score_rows(args.metric, items, block, options, judge)
        lines = item_state_lines(system, args.metric, result, block)
    header = {
        "command": "score",
        "metric": args.metric,
        "input": str(args.file),
        "input_sha256": digest([read_input_bytes(args.file)]),
        "num_items": len(items),
        "shard": shard[0],
        "num_shards": shard[1],
        "options": {"options": dict(options), "judged": judge is not None},
        "systems": [system],
        "results": [args.metric],
        "notes": notes,
    }
    return states_text(header, lines)


def merged_item_report(merged: MergedItems) -> Report:
    """The report of a merged sharded run of a per-item metric, as the unsharded ``score`` prints it."""
    header = merged.header
    (system,) = header["systems"]
    result = merged.results[system][header["metric"]]
    return item_report(header["metric"], Path(header["input"]), result, merged.notes, header["options"]["judged"])
