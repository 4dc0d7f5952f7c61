"""The metric registry: every metric's :class:`~persona_metrics.metric_spec.MetricSpec`, by evaluate name.

Collected from the families' ``spec.py`` (floor 4) on this floor, and read by every per-metric table above it: the
engine parts and Ray, the distributed classes, the training hooks and their ``empty=`` policy, ``score``, ``merge``
and the validity runner (``docs/layout.md``, "Add a metric"). :func:`register_metric` adds a metric of another
package (a test registers a toy one); the readers look it up at call time, so it is found everywhere at once.
"""

from __future__ import annotations

from persona_metrics.metric_spec import MetricSpec
from persona_metrics.persona.spec import SPECS as PERSONA
from persona_metrics.personalization.spec import SPECS as PERSONALIZATION
from persona_metrics.summary_eval.spec import SPECS as SUMMARY_EVAL
from persona_metrics.validation import check_choice
from persona_metrics.vert.spec import SPECS as VERT

#: Every registered metric, by evaluate name, in table order (the bundled ones: those of ``persona_metrics.METRICS``).
METRIC_SPECS: dict[str, MetricSpec] = {spec.name: spec for spec in (*PERSONALIZATION, *PERSONA, *VERT, *SUMMARY_EVAL)}


def metric_spec(name: str, field: str = "metric") -> MetricSpec:
    """The spec of metric ``name``.

    Raises:
        ValueError: an unknown name (``field`` and the registered names named).
    """
    return METRIC_SPECS[check_choice(field, name, list(METRIC_SPECS))]


def metric_names(layout: str | None = None) -> tuple[str, ...]:
    """The registered names, in table order; with ``layout`` (``"documents"`` or ``"items"``) those of that layout."""
    return tuple(name for name, spec in METRIC_SPECS.items() if layout in (None, spec.layout))


def register_metric(spec: MetricSpec) -> MetricSpec:
    """Add a metric (or replace one of the same name); every reader finds it from then on.

    Raises:
        TypeError: not a :class:`~persona_metrics.metric_spec.MetricSpec`.
    """
    if not isinstance(spec, MetricSpec):
        raise TypeError(f"spec must be a MetricSpec, got {type(spec).__name__}")
    METRIC_SPECS[spec.name] = spec
    return spec


def unregister_metric(name: str) -> MetricSpec:
    """Remove a metric added by :func:`register_metric` and return its spec.

    Raises:
        ValueError: an unknown name.
    """
    return METRIC_SPECS.pop(metric_spec(name).name)
