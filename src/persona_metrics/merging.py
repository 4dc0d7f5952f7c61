"""Merging per-item results scored on parts of one input: the items back in input order (``docs/scaling.md`` §1).

A per-item metric's result (persona style and quality, VERT, SummaryEval) is a frozen dataclass whose fields are
either per item (an array or a tuple with one entry per item, or a nested result of the same kind), or settings
that every part must share (the signature, the weights). :func:`merge_items` puts the parts' items at their
positions in the whole input and checks that the settings agree; the system numbers are means over the items, so
computed on the merged arrays they are the unsharded call's, bit for bit. The result's own ``merge``
(:class:`persona_metrics.results.ItemResult`, through :func:`persona_metrics.merge`) then adds what it recomputes
from its items (bootstrap intervals). The checks are shared with DEGRESS / PerSEval's merge of per-document
results (:func:`~persona_metrics.personalization.merge_personalization`): :func:`check_results` (a non-empty
sequence of the result type), :func:`check_signatures` (parts scored with the same options, equal signatures) and
:func:`check_positions` (each part's items' positions in the whole input, a permutation).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

from persona_metrics.signature import Signature

R = TypeVar("R")


def check_positions(sizes: Sequence[int], positions: Sequence[Sequence[int]] | None) -> list[list[int]]:
    """Each part's items' positions in the whole input, checked (default: consecutive slices, in order).

    Args:
        sizes: the number of items of each part.
        positions: ``positions[r][i]``, the position of item i of part r; together a permutation of ``0 … N−1``.

    Raises:
        ValueError: a count that does not match, or positions that are not a permutation (named).
    """
    if positions is None:
        starts = np.cumsum([0, *sizes]).tolist()
        return [list(range(starts[r], starts[r + 1])) for r in range(len(sizes))]
    if len(positions) != len(sizes):
        raise ValueError(f"positions has {len(positions)} entries but results has {len(sizes)}")
    out = []
    for r, (where, size) in enumerate(zip(positions, sizes, strict=True)):
        where = [int(p) for p in where]
        if len(where) != size:
            raise ValueError(f"positions[{r}] has {len(where)} positions but results[{r}] has {size} items")
        out.append(where)
    total = sum(sizes)
    if sorted(p for where in out for p in where) != list(range(total)):
        raise ValueError(f"positions must be a permutation of 0 … {total - 1} (the whole input's items)")
    return out


def check_results(results: object, kind: type | tuple[type, ...]) -> list[Any]:
    """``results`` as a list of at least one ``kind``; a TypeError / ValueError naming the bad index otherwise."""
    name = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
    if isinstance(results, kind) or not isinstance(results, Sequence):
        raise TypeError(f"results must be a sequence of {name}, got {type(results).__name__}")
    if not results:
        raise ValueError(f"results is empty: give at least one {name}")
    for r, result in enumerate(results):
        if not isinstance(result, kind):
            raise TypeError(f"results[{r}] must be a {name}, got {type(result).__name__}")
    return list(results)


def check_signatures(results: Sequence[tuple[int, Any]]) -> None:
    """Refuse parts scored with other options: ``(index, result)`` pairs whose ``signature`` must all be equal.

    Raises:
        ValueError: the first part whose signature differs from the first one's (both indices named).
    """
    first, head = results[0]
    for r, result in results:
        if result.signature != head.signature:
            raise ValueError(
                f"results[{r}] was scored as {result.signature!r}, results[{first}] as {head.signature!r}; "
                "only results of the same options merge"
            )


def _equal(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))  # type: ignore[arg-type]
    return bool(a == b)


def _merge_field(name: str, values: list[Any], order: np.ndarray, n: int) -> Any:
    """One field of the merged result: per-item values put in input order (``order``), or the shared value."""
    first = values[0]
    if all(v is None for v in values):
        return None
    if any(v is None for v in values):
        raise ValueError(f"results disagree on {name}: present in some parts, None in others")
    if dataclasses.is_dataclass(first) and not isinstance(first, type) and not isinstance(first, Signature):
        return _merge(values, order, n, name)  # a nested result (its per-item fields joined); a signature is shared
    if isinstance(first, np.ndarray) and first.ndim >= 1:
        return np.concatenate(values)[order]
    if isinstance(first, (tuple, list)) and sum(len(v) for v in values) == n:
        joined = [item for value in values for item in value]
        return [joined[i] for i in order] if isinstance(first, list) else tuple(joined[i] for i in order)
    for r, value in enumerate(values):
        if not _equal(value, first):
            raise ValueError(f"results[{r}].{name} = {value!r} differs from results[0].{name} = {first!r}")
    return first


def _merge(results: Sequence[R], order: np.ndarray, n: int, where: str = "") -> R:
    changes = {}
    for field in dataclasses.fields(results[0]):  # type: ignore[arg-type]
        if not field.compare:  # declared not part of what the result is (e.g. a helper callable): the first part's
            continue
        name = f"{where}.{field.name}" if where else field.name
        changes[field.name] = _merge_field(name, [getattr(r, field.name) for r in results], order, n)
    return dataclasses.replace(results[0], **changes)  # type: ignore[type-var]


def merge_items(
    results: Sequence[R], sizes: Sequence[int], positions: Sequence[Sequence[int]] | None, *, empty: str = "empty"
) -> R:
    """The parts' per-item results as one result over the whole input, items in input order.

    Per-item fields (arrays, tuples and lists with one entry per item, nested results) are joined and put in input
    order; every other field must be equal in all parts (a ValueError names the part and the field), except
    fields declared ``compare=False`` (not part of what the result is), which are the first part's. The field
    named ``empty`` (positions of empty predictions) is mapped to positions in the whole input.

    Args:
        results: the parts' results, of one dataclass type.
        sizes: the number of items of each part.
        positions: as :func:`check_positions`.
        empty: the name of the field holding positions of empty items (skipped when the type has none).
    """
    where = check_positions(sizes, positions)
    n = sum(sizes)
    placed = np.empty(n, dtype=np.int64)  # placed[k] = position in the whole input of the k-th joined item
    placed[:] = [p for part in where for p in part]
    order = np.argsort(placed, kind="stable")  # joined items in input order
    names = {field.name for field in dataclasses.fields(results[0])}  # type: ignore[arg-type]
    skipped = {empty} & names
    merged = _merge([dataclasses.replace(r, **{k: () for k in skipped}) for r in results], order, n)  # type: ignore[type-var]
    if skipped:
        blank = sorted(where[r][i] for r, result in enumerate(results) for i in getattr(result, empty))
        merged = dataclasses.replace(merged, **{empty: tuple(blank)})  # type: ignore[type-var]
    return merged
