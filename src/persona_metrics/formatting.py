"""The one number format: how every score a human reads is written (CLI tables and reports, plots, Spaces).

Three significant digits, scientific below 1e-4 (so 4e-05 does not read as 0), ``—`` for a missing number;
intervals and estimates with an interval in the same format; the one line of a paired comparison. JSON, CSV and
JSON lines keep full precision and do not pass through here. Pure text: nothing here computes a score.
"""

from __future__ import annotations

import math
from typing import Any

#: How a missing number (``None``, or NaN in a pandas table) reads in a table for humans.
MISSING = "—"
#: Significant digits of every score a human reads.
SIGNIFICANT_DIGITS = 3


def format_score(value: float | None) -> str:
    """A score as a human reads it, everywhere: 3 significant digits, scientific below 1e-4.

    The one number format of the markdown tables, the printed reports, the plots' labels and the Spaces'
    tables (JSON, CSV and JSON lines keep full precision). Intervals use :func:`format_interval`.

    Args:
        value: a real number; ``None`` or NaN for a missing one.

    Returns:
        ``f"{value:.3g}"`` (``"4.81e-12"``, ``"4e-05"``, ``"0.0209"``, ``"0.999"``, ``"-0.143"``), ``"0"`` for
        zero of either sign, ``"inf"`` / ``"-inf"``, and :data:`MISSING` for ``None`` or NaN.

    Raises:
        TypeError: not a real number (bools and strings refused).

    >>> [format_score(v) for v in (4.814e-12, 4e-5, 0.02091, 0.999, 0.0, -0.1428, None)]
    ['4.81e-12', '4e-05', '0.0209', '0.999', '0', '-0.143', '—']
    """
    if value is None:
        return MISSING
    if isinstance(value, bool) or (not isinstance(value, int | float) and not hasattr(value, "__float__")):
        raise TypeError(f"a score must be a real number, got {value!r}")
    number = float(value)
    if math.isnan(number):
        return MISSING
    if number == 0.0:
        return "0"
    return f"{number:.{SIGNIFICANT_DIGITS}g}"


def format_interval(low: float | None, high: float | None) -> str:
    """``[low, high]`` with both ends in :func:`format_score`'s format.

    >>> format_interval(4.433e-12, 5.192e-12)
    '[4.43e-12, 5.19e-12]'
    """
    return f"[{format_score(low)}, {format_score(high)}]"


def format_estimate(value: float | None, low: float | None = None, high: float | None = None) -> str:
    """``value [low, high]`` (:func:`format_score`, :func:`format_interval`), or the value alone without an interval.

    >>> format_estimate(0.02091, 0.004764, 0.04406), format_estimate(0.5)
    ('0.0209 [0.00476, 0.0441]', '0.5')
    """
    if low is None or high is None:
        return format_score(value)
    return f"{format_score(value)} {format_interval(low, high)}"


def comparison_text(name_a: str, name_b: str, difference: float, p_value: float, measure: str = "") -> str:
    """The one line of a paired test of A against B: ``"oracle > lead, p = 0.0001 (Δ PerSEval = 0.999)"``.

    The sign of ``difference`` picks ``>``, ``<`` or ``=``; every command that prints a comparison uses this.

    Args:
        name_a: system A.
        name_b: system B.
        difference: A's score minus B's (the tested difference).
        p_value: the test's p-value.
        measure: what was compared, shown after Δ (may be empty).

    >>> comparison_text("x", "y", -0.25, 0.375)
    'x < y, p = 0.375 (Δ = -0.25)'
    """
    relation = ">" if difference > 0 else "<" if difference < 0 else "="
    delta = f"Δ {measure} = " if measure else "Δ = "
    return f"{name_a} {relation} {name_b}, p = {format_score(p_value)} ({delta}{format_score(difference)})"


def format_cell(value: Any) -> Any:
    """A table cell for humans: floats through :func:`format_score`, ``None`` as :data:`MISSING`, else as is."""
    if value is None or (isinstance(value, float) and not isinstance(value, bool)):
        return format_score(value)
    if hasattr(value, "dtype") and getattr(value.dtype, "kind", "") == "f":  # a numpy float scalar
        return format_score(float(value))
    return value


__all__ = [
    "MISSING",
    "SIGNIFICANT_DIGITS",
    "comparison_text",
    "format_cell",
    "format_estimate",
    "format_interval",
    "format_score",
]
