"""The validity suite: metamorphic properties of every metric, measured on hand-written cases (``docs/validity.md``).

``persona-metrics validity [METRIC]`` and ``make validity`` run it; the cards open with its tables.

* :mod:`~persona_metrics.validity.cases`: the case files (shipped in ``cases/``, formats in ``cases/README.md``);
* :mod:`~persona_metrics.validity.properties`: the spoiled texts and the checks, as pure functions;
* :mod:`~persona_metrics.validity.runner`: the methods measured per metric and :func:`run_validity`;
* :mod:`~persona_metrics.validity.report`: :class:`ValidityReport`, its JSON and its tables.

The shipped cases are measuring data: they were written blind to the metrics and are never used to tune a
method (``cases/README.md``).
"""

from persona_metrics.validity.cases import CASE_FIELDS, CASES_DIR, load_cases
from persona_metrics.validity.properties import DEGRESS_NEAR_ZERO, Check, tally
from persona_metrics.validity.report import MeasuredMethod, PropertyResult, ValidityReport
from persona_metrics.validity.runner import METHODS, METRICS, Method, method_available, run_validity

__all__ = [
    "CASES_DIR",
    "CASE_FIELDS",
    "DEGRESS_NEAR_ZERO",
    "METHODS",
    "METRICS",
    "Check",
    "MeasuredMethod",
    "Method",
    "PropertyResult",
    "ValidityReport",
    "load_cases",
    "method_available",
    "run_validity",
    "tally",
]
