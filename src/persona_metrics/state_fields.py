"""What every family's states codec shares: field checks and the :class:`ItemCodec` shape (``docs/scaling.md`` §2).

A result that can be scored in parts writes itself as lines of a states file and is rebuilt from them by its
family's codec (``persona/states.py``, ``vert/states.py``, ``summary_eval/states.py``; the per-document lines of
``personalization/states.py``). A states file is user input: every field of every line is checked when read back,
and a :class:`ValueError` names ``FILE:LINE`` and the field.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from persona_metrics.signature import Signature

#: A field check: a predicate on the value and what the value must be (for the error).
FieldCheck = tuple[Callable[[Any], bool], str]


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


def text_or_null(value: Any) -> bool:
    """A string or ``null``."""
    return value is None or isinstance(value, str)


def flag(value: Any) -> bool:
    """``true`` or ``false``."""
    return isinstance(value, bool)


def whole(value: Any) -> bool:
    """A whole number in ``[0, 2**62)`` (an index or a count), not a bool."""
    return type(value) is int and 0 <= value < 2**62


def _parts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(part, str) for part in value)


def _number_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and finite(v) for k, v in value.items())


NUMBER: FieldCheck = (finite, "a number")
NUMBER_OR_NULL: FieldCheck = (lambda v: v is None or finite(v), "a number or null")
#: A score in [0, 1] (what the metric's definition allows; :data:`SLACK`).
UNIT: FieldCheck = (within(0.0, 1.0), "a number in [0, 1]")
UNIT_OR_NULL: FieldCheck = (lambda v: v is None or within(0.0, 1.0)(v), "a number in [0, 1] or null")
TEXT: FieldCheck = (lambda v: isinstance(v, str), "a string")
TEXT_OR_NULL: FieldCheck = (text_or_null, "a string or null")
FLAG: FieldCheck = (flag, "true or false")
WHOLE: FieldCheck = (whole, "a whole number")
PARTS: FieldCheck = (_parts, "a list of strings (the signature's parts)")
NUMBER_MAP: FieldCheck = (_number_map, "an object of numbers")


def one_of(values: Sequence[str]) -> FieldCheck:
    """The check of a field that holds one of ``values`` (an option's choices)."""
    return (lambda v: v in values, f"one of {list(values)}")


def check_fields(line: Mapping[str, Any], checks: Mapping[str, FieldCheck], where: str) -> None:
    """Check that ``line`` has every field of ``checks`` with a value its check accepts.

    Raises:
        ValueError: ``where`` (``FILE:LINE``), the field and what it must be.
    """
    for name, (ok, what) in checks.items():
        if name not in line:
            raise ValueError(f"{where}: field {name!r} is missing (expected {what})")
        if not ok(line[name]):
            raise ValueError(f"{where}: field {name!r} must be {what}, got {line[name]!r:.80}")


def float_or_null(value: float) -> float | None:
    """A per-item float for JSON: ``None`` for NaN (a missing judge score)."""
    return None if math.isnan(value) else float(value)


def column(items: Sequence[Mapping[str, Any]], name: str, dtype: type = np.float64) -> np.ndarray:
    """One per-item field as an array (``null`` read back as NaN)."""
    return np.array([np.nan if item[name] is None else item[name] for item in items], dtype=dtype)


def config_of(shared: Mapping[str, Any], name: str = "config") -> Signature:
    """A signature read back from its parts."""
    return Signature(tuple(shared[name]))


@dataclass(frozen=True)
class ItemCodec:
    """How one per-item result type is written as lines and rebuilt from them.

    Attributes:
        kind: the result type.
        shared: the result's fields that every item shares, as JSON (the ``result`` line).
        shared_checks: the checks of the ``result`` line's fields.
        items: one JSON object per item (the ``item`` lines, without ``kind``/``system``/``result``/``index``).
        item_checks: the checks of an item line's fields, given the ``result`` line (optional fields follow it).
        build: the result rebuilt from the ``result`` line and the item lines, in item order.
    """

    kind: type
    shared: Callable[[Any], dict[str, Any]]
    shared_checks: Mapping[str, FieldCheck]
    items: Callable[[Any], list[dict[str, Any]]]
    item_checks: Callable[[Mapping[str, Any]], dict[str, FieldCheck]]
    build: Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]]], Any]
