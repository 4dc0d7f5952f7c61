"""The one number format (``persona_metrics.formatting``): scores, intervals, estimates and the comparison line.

Golden texts are Python's own ``format(value, ".3g")`` written out by hand (``"4.81e-12"``, ``"0.0209"``), with the
format's documented exceptions: ``"0"`` for zero of either sign and ``"—"`` for a missing number.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from persona_metrics import formatting
from persona_metrics.commands import output
from persona_metrics.formatting import comparison_text, format_cell, format_estimate, format_interval, format_score
from persona_metrics.significance import PairedTest, paired_bootstrap_test, paired_permutation_test


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (4.8e-12, "4.8e-12"),
        (4.8137e-12, "4.81e-12"),
        (4e-5, "4e-05"),
        (0.0001, "0.0001"),
        (1 / 10001, "0.0001"),
        (0.020906, "0.0209"),
        (0.999, "0.999"),
        (0.99899, "0.999"),
        (1.0, "1"),
        (0.0, "0"),
        (-0.0, "0"),
        (-0.1428, "-0.143"),
        (-4.8e-12, "-4.8e-12"),
        (12.3456, "12.3"),
        (np.float64(0.5), "0.5"),
        (3, "3"),
        (None, "—"),
        (float("nan"), "—"),
        (float("inf"), "inf"),
    ],
)
def test_format_score(value, text: str) -> None:
    assert format_score(value) == text


def test_format_interval_and_estimate() -> None:
    assert format_interval(4.433e-12, 5.192e-12) == "[4.43e-12, 5.19e-12]"
    assert format_estimate(0.02091, 0.004764, 0.04406) == "0.0209 [0.00476, 0.0441]"
    assert format_estimate(-0.5) == "-0.5"
    with pytest.raises(TypeError, match="a score must be a real number"):
        format_score("0.5")
    with pytest.raises(TypeError, match="a score must be a real number"):
        format_score(True)


def test_comparison_text_is_the_one_line_of_a_paired_test() -> None:
    """Hand-checked lines; the sign of the difference picks the relation, the p-value is in the one format."""
    exact = paired_permutation_test([4, 2, 5, 1], [1, 1, 3, 2])  # p = 6/16 (tests/test_significance.py by hand)
    assert comparison_text("x", "y", exact.difference, exact.p_value) == "x > y, p = 0.375 (Δ = 1.25)"
    sampled = PairedTest(0.999, 4.8e-12, 0.999, 1 / 10001, None, None, "permutation", 64, 10000, 0)
    line = comparison_text("oracle", "lead", sampled.difference, sampled.p_value, "PerSEval")
    assert line == "oracle > lead, p = 0.0001 (Δ PerSEval = 0.999)"
    boot = paired_bootstrap_test([1, 1, 3, 2], [4, 2, 5, 1], n_resamples=100)
    assert comparison_text("B", "A", boot.difference, boot.p_value).startswith("B < A, p = ")
    assert comparison_text("a", "a", 0.0, 1.0) == "a = a, p = 1 (Δ = 0)"


def test_format_cell() -> None:
    assert [format_cell(v) for v in (0.02091, np.float32(0.5), None, "lead", 3)] == ["0.0209", "0.5", "—", "lead", 3]


@pytest.mark.parametrize(
    "name", ["MISSING", "SIGNIFICANT_DIGITS", "comparison_text", "format_cell", "format_estimate", "format_interval",
             "format_score"],
)  # fmt: skip
def test_number_format_names_still_import_from_commands_output(name: str) -> None:
    """They lived in commands/output.py before persona_metrics.formatting; old imports keep working."""
    assert getattr(output, name) is getattr(formatting, name)


@pytest.mark.parametrize("module", [formatting, output], ids=lambda m: m.__name__)
def test_docstring_examples_run(module) -> None:
    result = doctest.testmod(module)
    assert result.failed == 0
    assert result.attempted > 0
