"""persona-metrics: summary-evaluation metrics for summaries written for a particular reader.

The metrics ship as Hugging Face ``evaluate`` modules. Inside Python, :func:`load` is the canonical
loader (by file path: no network, no warning); after ``persona-metrics register``, plain
``evaluate.load("perseval")`` works too.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from persona_metrics.integrations.registry import available_metrics, metric_script, register
from persona_metrics.validation import PersonaMetricsWarning

try:
    __version__ = version("persona-metrics")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

#: Names of the bundled evaluate modules.
METRICS: tuple[str, ...] = available_metrics()

__all__ = ["METRICS", "PersonaMetricsWarning", "__version__", "load", "metric_script", "register"]


def load(name: str, **kwargs: Any) -> Any:
    """Load a bundled metric as an ``evaluate`` module, by the installed script's path.

    Makes no network call and logs no warning, from any working directory.

    Args:
        name: one of :data:`METRICS`.
        **kwargs: passed to ``evaluate.load`` (``config_name``, ``experiment_id``, ``keep_in_memory`` ...).

    Returns:
        The ``evaluate.EvaluationModule``.

    Raises:
        ValueError: an unknown name (the message lists the bundled metrics).
    """
    import evaluate  # heavy (seconds): imported on first use only

    return evaluate.load(str(metric_script(name)), **kwargs)
