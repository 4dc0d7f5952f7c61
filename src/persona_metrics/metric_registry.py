"""The metric registry: every metric's :class:`~persona_metrics.metric_spec.MetricSpec`, by evaluate name.

Collected from the families' ``spec.py`` (floor 4) on this floor, and read by every per-metric table above it: the
engine parts and Ray, the distributed classes, the training hooks and their ``empty=`` policy, ``score``, ``merge``
and the validity runner (``docs/add_a_metric.md``). :func:`register_metric` adds a metric of another package (a
test registers a toy one); the readers look it up at call time, so it is found everywhere at once.

:func:`merge` (``persona_metrics.merge``) is the one dispatch over every registered result type: DEGRESS / PerSEval
merge their per-document states (:func:`~persona_metrics.personalization.merge_personalization`); the per-item
results merge themselves (:meth:`~persona_metrics.results.ItemResult.merge`: their items, then the bootstrap
intervals drawn again over all items with the resamples and seed the result keeps). Either way the merged result
equals the unsharded call's bit for bit (``docs/scaling.md`` §1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from persona_metrics.metric_spec import MetricSpec
from persona_metrics.persona.spec import SPECS as PERSONA
from persona_metrics.personalization import ExcludedPart, PersonalizationResult, merge_personalization
from persona_metrics.personalization.spec import SPECS as PERSONALIZATION
from persona_metrics.results import ItemResult
from persona_metrics.summary_eval.spec import SPECS as SUMMARY_EVAL
from persona_metrics.validation import check_choice
from persona_metrics.vert.spec import SPECS as VERT

#: Every registered metric, by evaluate name, in table order (the bundled ones: those of ``persona_metrics.METRICS``).
METRIC_SPECS: dict[str, MetricSpec] = {spec.name: spec for spec in (*PERSONALIZATION, *PERSONA, *VERT, *SUMMARY_EVAL)}
#: The metrics the package ships (neither replaced nor removed by :func:`register_metric` / :func:`unregister_metric`).
BUNDLED: frozenset[str] = frozenset(METRIC_SPECS)


def metric_spec(name: str, field: str = "metric") -> MetricSpec:
    """The spec of metric ``name``.

    Raises:
        ValueError: an unknown name (``field`` and the registered names named).
    """
    return METRIC_SPECS[check_choice(field, name, list(METRIC_SPECS))]


def metric_names() -> tuple[str, ...]:
    """The registered names, in table order."""
    return tuple(METRIC_SPECS)


def register_metric(spec: MetricSpec, *, replace: bool = False) -> MetricSpec:
    """Add a metric; every reader finds it from then on.

    Args:
        spec: the metric.
        replace: replace a metric of the same name that :func:`register_metric` added (a bundled one never).

    Raises:
        TypeError: not a :class:`~persona_metrics.metric_spec.MetricSpec`.
        ValueError: the name is taken (a bundled metric's, or another's without ``replace``).
    """
    if not isinstance(spec, MetricSpec):
        raise TypeError(f"spec must be a MetricSpec, got {type(spec).__name__}")
    if spec.name in BUNDLED or (spec.name in METRIC_SPECS and not replace):
        raise ValueError(f"metric {spec.name!r} is registered already; choose another name (or replace=True)")
    METRIC_SPECS[spec.name] = spec
    return spec


def unregister_metric(name: str) -> MetricSpec:
    """Remove a metric added by :func:`register_metric` and return its spec.

    Raises:
        ValueError: an unknown name, or a bundled metric's.
    """
    if name in BUNDLED:
        raise ValueError(f"metric {name!r} ships with persona-metrics; only a registered one can be removed")
    return METRIC_SPECS.pop(metric_spec(name).name)


def _item_results() -> tuple[type[ItemResult], ...]:
    """The per-item result types of the registered metrics (their specs' ``result``), in table order."""
    kinds = (spec.result for spec in METRIC_SPECS.values() if issubclass(spec.result, ItemResult))
    return tuple(dict.fromkeys(kinds))


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
    per_item = _item_results()
    names = ", ".join(t.__name__ for t in (PersonalizationResult, ExcludedPart, *per_item))
    if isinstance(results, str) or not isinstance(results, Sequence):
        raise TypeError(f"results must be a sequence of one of {names}, got {type(results).__name__}")
    if not results:
        raise ValueError("results is empty: give at least one result")
    kind = type(results[0])
    if kind not in (PersonalizationResult, ExcludedPart, *per_item):
        raise TypeError(f"results[0] must be one of {names}, got {kind.__name__}")
    if kind in (PersonalizationResult, ExcludedPart):
        return merge_personalization(results, positions)
    return kind.merge(results, positions)
