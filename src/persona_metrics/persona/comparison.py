"""Paired tests of two persona-quality results on the per-item values of one component (``docs/significance.md``).

The arithmetic is :func:`persona_metrics.significance.paired_test`; this module picks the aligned per-item arrays
of two :class:`~persona_metrics.persona.quality.QualityResult` objects.
"""

from __future__ import annotations

from persona_metrics.persona.quality import QualityResult
from persona_metrics.significance import PairedTest, paired_test
from persona_metrics.validation import not_one_of


def compare_quality(
    a: QualityResult,
    b: QualityResult,
    component: str = "overall_quality",
    *,
    method: str = "permutation",
    n_resamples: int | None = None,
    seed: int = 0,
) -> PairedTest:
    """Paired test of two persona-quality results on the per-item values of one component.

    Args:
        a: system A, scored on the same items (same references and personas, same order) as ``b``.
        b: system B.
        component: ``"overall_quality"`` (default) or another key of ``QualityResult.components()``.
        method: ``"permutation"`` (default) or ``"bootstrap"``.
        n_resamples: resamples; ``None`` = the method's default.
        seed: seed of the resamples.

    Returns:
        The :class:`~persona_metrics.significance.PairedTest` over the items.

    Raises:
        ValueError: an unknown component (the known ones named), different numbers of items, or a bad method.
    """
    parts_a, parts_b = a.components(), b.components()
    if component not in parts_a or component not in parts_b:
        raise ValueError(not_one_of("component", component, sorted(set(parts_a) & set(parts_b))))
    if len(parts_a[component]) != len(parts_b[component]):
        raise ValueError(
            f"a has {len(parts_a[component])} items but b has {len(parts_b[component])}; "
            "score both systems on the same items"
        )
    return paired_test(parts_a[component], parts_b[component], method=method, n_resamples=n_resamples, seed=seed)


__all__ = ["compare_quality"]
