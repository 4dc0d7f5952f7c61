"""persona-metrics: summary-evaluation metrics for summaries written for a particular reader.

The metrics ship as Hugging Face ``evaluate`` modules. Inside Python, :func:`load` is the canonical
loader (by file path: no network, no warning). ``import persona_metrics`` also registers the modules in
evaluate's modules cache (once per version; a few milliseconds when already done), so plain
``evaluate.load("perseval")`` works afterwards, in this process and in later ones. Set the environment variable
``PERSONA_METRICS_NO_AUTO_REGISTER=1`` to skip that (then run ``persona-metrics register`` yourself).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from persona_metrics.integrations.registry import available_metrics, load, metric_script, modules_cache, register
from persona_metrics.signature import __version__
from persona_metrics.warning import PersonaMetricsWarning, warn

#: Names of the bundled evaluate modules.
METRICS: tuple[str, ...] = available_metrics()

__all__ = ["METRICS", "PersonaMetricsWarning", "__version__", "load", "merge", "metric_script", "register"]


def merge(results: Sequence[Any], positions: Sequence[Sequence[int]] | None = None) -> Any:
    """One result from results scored on parts of one input, bit for bit the unsharded call's.

    See :func:`persona_metrics.metric_registry.merge` (imported on first use: ``import persona_metrics`` stays
    light).
    """
    from persona_metrics.metric_registry import merge as merge_results

    return merge_results(results, positions)


#: Environment variable that turns off the registration at import (any value but "" and "0").
NO_AUTO_REGISTER = "PERSONA_METRICS_NO_AUTO_REGISTER"


def _auto_register() -> None:
    """Register the bundled modules for bare-name ``evaluate.load`` unless :data:`NO_AUTO_REGISTER` is set.

    A cache that cannot be written (read-only home) is reported with a warning, not an import error.
    """
    if os.environ.get(NO_AUTO_REGISTER, "").strip() not in ("", "0"):
        return
    try:
        register()
    except OSError as err:
        warn(
            f"could not register the persona-metrics evaluate modules in {modules_cache()} ({err}); "
            f'evaluate.load("perseval") by bare name will not find them. Use persona_metrics.load("perseval"), '
            f"or fix the cache and run `persona-metrics register`; set {NO_AUTO_REGISTER}=1 to skip this step"
        )


_auto_register()
