"""``merge(results)``: results scored on parts of one input made one, as if scored at once (``docs/scaling.md`` §1).

DEGRESS / PerSEval merge their per-document states (:func:`~persona_metrics.personalization.merge_personalization`);
the per-item metrics merge their items (:func:`~persona_metrics.merging.merge_items`) and recompute their
bootstrap intervals over the merged items with the parts' own resample count and seed (read from the signature,
which records them). Either way the merged result equals the unsharded call's bit for bit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from persona_metrics.merging import check_results, check_signatures, merge_items
from persona_metrics.persona.quality import QualityResult
from persona_metrics.persona.style import StyleResult
from persona_metrics.personalization import ExcludedPart, PersonalizationResult, merge_personalization
from persona_metrics.signature import Signature
from persona_metrics.significance import bootstrap_intervals
from persona_metrics.summary_eval.scorer import SummaryEvalResult
from persona_metrics.vert.scorer import VertResult


def _bootstrap(config: Signature) -> tuple[int, int] | None:
    """``(resamples, seed)`` from a signature's ``bootstrap:N,seed:S`` part, or None without one."""
    for part in config.parts:
        if part.startswith("bootstrap:") and ",seed:" in part:
            count, seed = part.removeprefix("bootstrap:").split(",seed:")
            return int(count), int(seed)
    return None


def _style(merged: StyleResult) -> StyleResult:
    drawn = _bootstrap(merged.config)
    if drawn is None:
        return merged
    return dataclasses.replace(merged, intervals=bootstrap_intervals({"style_similarity": merged.scores}, *drawn))


def _quality(merged: QualityResult) -> QualityResult:
    drawn = _bootstrap(merged.config)
    if drawn is None:
        return merged
    return dataclasses.replace(merged, intervals=bootstrap_intervals(merged.components(), *drawn))


#: Per-item result type → (its number of items, what it recomputes over the merged items).
PER_ITEM: dict[type, tuple[Callable[[Any], int], Callable[[Any], Any]]] = {
    StyleResult: (lambda result: len(result.scores), _style),
    QualityResult: (lambda result: len(result.overall_quality), _quality),
    VertResult: (len, lambda merged: merged),
    SummaryEvalResult: (len, lambda merged: merged),
}
#: Every result type :func:`merge` takes.
MERGEABLE: tuple[type, ...] = (PersonalizationResult, ExcludedPart, *PER_ITEM)


def merge(results: Sequence[Any], positions: Sequence[Sequence[int]] | None = None) -> Any:
    """One result from results of one metric scored on disjoint parts of one input, equal to scoring it at once.

    Args:
        results: results of one type (a :class:`PersonalizationResult`, ``StyleResult``, ``QualityResult``,
            ``VertResult`` or ``SummaryEvalResult``), scored with the same options (equal signatures).
        positions: per result, the position in the whole input of each of its items (``positions[r][i]``);
            default: the results are consecutive slices of the input, in the order given. DEGRESS / PerSEval
            parts must hold whole documents (``docs/perseval.md`` §8.3).

    Returns:
        A result of the same type over the whole input: every mean, per-item value, bootstrap interval and the
        signature as one call over the whole input gives them.

    Raises:
        TypeError: not a sequence of one mergeable result type.
        ValueError: no result, parts scored with other options, or positions that are not a permutation.

    Example:
        >>> from persona_metrics import merge
        >>> from persona_metrics.persona import score_style
        >>> texts = ["Shares rose 4% after the report.", "Wow!! Best phone ever!!", "The board met on Monday."]
        >>> personas = ["journalist", "enthusiast", "formal_analyst"]
        >>> whole = score_style(texts, personas)
        >>> parts = [score_style(texts[:2], personas[:2]), score_style(texts[2:], personas[2:])]
        >>> merge(parts).mean == whole.mean
        True
    """
    names = ", ".join(t.__name__ for t in MERGEABLE)
    if isinstance(results, str) or not isinstance(results, Sequence):
        raise TypeError(f"results must be a sequence of one of {names}, got {type(results).__name__}")
    if not results:
        raise ValueError("results is empty: give at least one result")
    kind = type(results[0])
    if kind not in MERGEABLE:
        raise TypeError(f"results[0] must be one of {names}, got {kind.__name__}")
    if kind in (PersonalizationResult, ExcludedPart):
        return merge_personalization(results, positions)
    parts = check_results(results, kind)
    size, recompute = PER_ITEM[kind]
    check_signatures(list(enumerate(parts)))
    bare = [dataclasses.replace(part, intervals={}) if hasattr(part, "intervals") else part for part in parts]
    return recompute(merge_items(bare, [size(part) for part in parts], positions))
