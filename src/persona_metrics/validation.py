"""Input checks shared by every entry point (library functions and evaluate modules)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


class PersonaMetricsWarning(UserWarning):
    """Warnings about data the metrics handle in a documented but noteworthy way."""


def check_text_fields(allow_empty: Iterable[str] = (), **fields: object) -> int:
    """Check that every field is a list of strings, all of the same length.

    Args:
        allow_empty: names of the fields whose items may be empty or whitespace-only.
        **fields: ``name=list_of_strings``, in the order they should be reported.

    Returns:
        The common length.

    Raises:
        TypeError: a field that is not a list/tuple of strings; the message names the field and index.
        ValueError: lengths differ, there are no items, or a field that must not be empty has an empty item.
    """
    allowed = set(allow_empty)
    length: int | None = None
    first = ""
    for name, values in fields.items():
        if isinstance(values, str | bytes) or not isinstance(values, Sequence):
            raise TypeError(f"{name} must be a list of strings, got {type(values).__name__}")
        if length is None:
            length, first = len(values), name
        elif len(values) != length:
            raise ValueError(f"{name} has {len(values)} items but {first} has {length}; they must align")
        for i, value in enumerate(values):
            if not isinstance(value, str):
                raise TypeError(f"{name}[{i}] must be a string, got {type(value).__name__}: {value!r:.60}")
            if name not in allowed and not value.strip():
                raise ValueError(f"{name}[{i}] is empty (empty or whitespace-only text)")
    if not length:
        raise ValueError(f"no items to score: {first or 'inputs'} is empty")
    return length
