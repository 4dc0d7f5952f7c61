"""Paired tests of two personalization results on their per-document PerSEval or DEGRESS (``docs/significance.md``).

The arithmetic is :func:`persona_metrics.significance.paired_test`; this module picks the aligned per-document
arrays of two :class:`~persona_metrics.personalization.scorer.PersonalizationResult` objects.
"""

from __future__ import annotations

from persona_metrics.personalization.scorer import PersonalizationResult
from persona_metrics.significance import PairedTest, paired_test
from persona_metrics.validation import not_one_of

#: Per-document values of a personalization result the comparison can test (their means are the system scores).
PERSONALIZATION_MEASURES: tuple[str, ...] = ("perseval", "degress")


def compare_personalization(
    a: PersonalizationResult,
    b: PersonalizationResult,
    measure: str = "perseval",
    *,
    method: str = "permutation",
    n_resamples: int | None = None,
    seed: int = 0,
) -> PairedTest:
    """Paired test of two personalization results on their per-document PerSEval or DEGRESS.

    A system's PerSEval and DEGRESS are means over the scored documents of per-document means (eqs. 2 and 7),
    so the documents are the units: ``mean_a`` is ``a.perseval`` (or ``a.degress``).

    Args:
        a: system A, scored on the same documents as ``b`` (e.g. by one ``PersonalizationScorer``).
        b: system B.
        measure: ``"perseval"`` (default) or ``"degress"``.
        method: ``"permutation"`` (default) or ``"bootstrap"``.
        n_resamples: resamples; ``None`` = the method's default.
        seed: seed of the resamples.

    Returns:
        The :class:`~persona_metrics.significance.PairedTest`, units in ``a``'s document order.

    Raises:
        ValueError: an unknown ``measure`` or ``method``, or scored documents that differ (some named).
    """
    if measure not in PERSONALIZATION_MEASURES:
        raise ValueError(not_one_of("measure", measure, PERSONALIZATION_MEASURES))
    per_a, per_b = a.per_document(measure), b.per_document(measure)
    if per_a.keys() != per_b.keys():
        only_a = [k for k in per_a if k not in per_b]
        only_b = [k for k in per_b if k not in per_a]
        raise ValueError(
            f"a and b were scored on different documents: {len(only_a)} only in a (e.g. {only_a[:3]!r}), "
            f"{len(only_b)} only in b (e.g. {only_b[:3]!r}); score both on the same data"
        )
    values_b = [per_b[key] for key in per_a]
    return paired_test(list(per_a.values()), values_b, method=method, n_resamples=n_resamples, seed=seed)


__all__ = ["PERSONALIZATION_MEASURES", "compare_personalization"]
