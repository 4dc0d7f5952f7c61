"""The evaluation dataset of a training hook: its columns, read once (a ``datasets.Dataset`` or a mapping).

The Trainer hook (:mod:`persona_metrics.integrations.hooks`) reads the side inputs a metric needs (personas,
documents, document ids) from columns of the evaluation dataset; errors name ``eval_dataset`` and the column.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from persona_metrics.validation import as_list


def column_names(dataset: Any) -> list[str]:
    """The column names of a ``datasets.Dataset`` or of a mapping of column name to list."""
    names = getattr(dataset, "column_names", None)
    if isinstance(names, Mapping):
        raise TypeError(f"eval_dataset is a DatasetDict (splits {list(names)}); pass the one evaluation split")
    if names is not None:
        return list(names)
    if isinstance(dataset, Mapping):
        return list(dataset)
    raise TypeError(
        f"eval_dataset must be a datasets.Dataset or a mapping of column name to list, got {type(dataset).__name__}"
    )


def num_rows(dataset: Any) -> int:
    """The number of rows (a mapping's columns must be of one length)."""
    if isinstance(dataset, Mapping):
        lengths = {len(v) for v in dataset.values()}
        if len(lengths) > 1:
            raise ValueError(f"eval_dataset columns have different lengths {sorted(lengths)}")
        return lengths.pop() if lengths else 0
    return len(dataset)


def read_columns(dataset: Any, mapping: Mapping[str, str]) -> dict[str, list[Any]]:
    """Read the mapped columns once: metric input name -> list of values.

    Raises:
        ValueError: no dataset, or a column it does not have (named, with the available ones).
        TypeError: a ``DatasetDict`` or anything but a ``datasets.Dataset`` or a mapping of columns.
    """
    if not mapping:
        return {}
    if dataset is None:
        raise ValueError(f"eval_dataset is required to read the columns {dict(mapping)}")
    available = column_names(dataset)
    for key, column in mapping.items():
        if column not in available:
            raise ValueError(
                f"column {column!r} (metric input {key!r}) is not in eval_dataset; available columns: {available}"
            )
    # as_list: a datasets Column is read with one slice (list(column) reads it row by row)
    return {key: as_list(dataset[column], f"eval_dataset[{column!r}]") for key, column in mapping.items()}
