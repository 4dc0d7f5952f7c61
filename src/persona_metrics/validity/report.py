"""What a validity run measured: one row per metric × method × property, and the views the command and cards read.

A :class:`ValidityReport` holds the rows (cases, passed, pass fraction), the methods measured per metric (with
their options and whether each is the default, a variant or a reference score), the SHA-256 of every case file
measured, and the package version. :meth:`ValidityReport.as_dict` is the JSON the command writes
(``--json PATH``) and :meth:`ValidityReport.from_dict` reads it back; :meth:`ValidityReport.table` lays out one
metric's rows as the cards' table (a property per row, a method per column). Nothing here computes a score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: The version of the JSON layout of :meth:`ValidityReport.as_dict`.
REPORT_FORMAT = 1
#: Roles of a measured method: the metric's default, a validated variant, or a reference score of another metric.
ROLES: tuple[str, ...] = ("default", "variant", "reference")


@dataclass(frozen=True)
class PropertyResult:
    """How often one property held for one method of one metric.

    Attributes:
        metric: the evaluate module's name (``"vert"``).
        method: the method's label (``"meaning_sensitive"``).
        name: the property (``"paraphrase > meaning edit: roles"``).
        cases: the cases (or pairs of cases) it was checked on.
        passed: how many of them it held on (a tie fails a strict ``>``).
    """

    metric: str
    method: str
    name: str
    cases: int
    passed: int

    @property
    def fraction(self) -> float:
        """``passed / cases``, the pass fraction."""
        return self.passed / self.cases

    def as_dict(self) -> dict[str, Any]:
        """The row with its ``fraction``."""
        return {
            "metric": self.metric,
            "method": self.method,
            "property": self.name,
            "cases": self.cases,
            "passed": self.passed,
            "fraction": self.fraction,
        }


@dataclass(frozen=True)
class MeasuredMethod:
    """A method as measured: its label, the options it passed to the library, and its role (:data:`ROLES`)."""

    metric: str
    name: str
    options: Mapping[str, Any]
    role: str

    @property
    def header(self) -> str:
        """The method's column title: ``"jsd (default)"``, ``"posterior"``, ``"ROUGE-L (reference)"``."""
        return self.name if self.role == "variant" else f"{self.name} ({self.role})"

    def as_dict(self) -> dict[str, Any]:
        """``metric``, ``method``, ``options``, ``role``."""
        return {"metric": self.metric, "method": self.name, "options": dict(self.options), "role": self.role}


@dataclass(frozen=True)
class ValidityReport:
    """The rows of a validity run and how it was made.

    Attributes:
        results: one row per metric × method × property, metrics and methods in the order measured.
        methods: the methods measured.
        case_files: ``{file name: SHA-256}`` of every case file read.
        limit: the most cases taken per group of a file (``None``: all; a limited run is a quick look, not the
            measurement the cards report).
        skipped: ``"metric method"`` of the methods whose option this installation lacks (not measured).
        version: the persona_metrics version that measured.
    """

    results: tuple[PropertyResult, ...]
    methods: tuple[MeasuredMethod, ...]
    case_files: Mapping[str, str]
    limit: int | None
    version: str
    skipped: tuple[str, ...] = field(default=())

    def metrics(self) -> list[str]:
        """The metrics measured, in order."""
        return list(dict.fromkeys(method.metric for method in self.methods))

    def rows(self, metric: str | None = None) -> list[dict[str, Any]]:
        """The rows as dicts (:meth:`PropertyResult.as_dict`), of one metric or all."""
        return [row.as_dict() for row in self.results if metric in (None, row.metric)]

    def table(self, metric: str, naming: str | None = None) -> list[dict[str, Any]]:
        """One metric's rows laid out for reading: ``property``, ``cases``, then each method's pass fraction.

        Args:
            metric: a metric measured.
            naming: only the properties whose name contains this (``"DEGRESS"``); ``None``: all.

        Raises:
            ValueError: a metric not measured, or a property checked on different numbers of cases by two methods.
        """
        if metric not in self.metrics():
            raise ValueError(f"metric {metric!r} was not measured; measured: {self.metrics()}")
        headers = {m.name: m.header for m in self.methods if m.metric == metric}
        table: dict[str, dict[str, Any]] = {}
        for row in self.results:
            if row.metric != metric or (naming is not None and naming not in row.name):
                continue
            line = table.setdefault(row.name, {"property": row.name, "cases": row.cases})
            if line["cases"] != row.cases:
                raise ValueError(
                    f"{metric} {row.name!r}: {line['cases']} cases for one method, {row.cases} for {row.method}"
                )
            line[headers[row.method]] = row.fraction
        return list(table.values())

    def as_dict(self) -> dict[str, Any]:
        """The report as plain JSON-able data (what ``persona-metrics validity --json`` writes)."""
        return {
            "format": REPORT_FORMAT,
            "version": self.version,
            "limit": self.limit,
            "case_files": dict(self.case_files),
            "methods": [method.as_dict() for method in self.methods],
            "skipped": list(self.skipped),
            "results": self.rows(),
            "note": "pass fraction = share of cases where the property holds; a tie fails a strict >",
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ValidityReport:
        """The report :meth:`as_dict` wrote.

        Raises:
            ValueError: another layout version, or a missing key (named).
        """
        if data.get("format") != REPORT_FORMAT:
            raise ValueError(f"validity report format {data.get('format')!r}; this version reads {REPORT_FORMAT}")
        missing = [k for k in ("version", "limit", "case_files", "methods", "results") if k not in data]
        if missing:
            raise ValueError(f"validity report lacks {missing}")
        results = tuple(
            PropertyResult(r["metric"], r["method"], r["property"], r["cases"], r["passed"]) for r in data["results"]
        )
        methods = tuple(MeasuredMethod(m["metric"], m["method"], m["options"], m["role"]) for m in data["methods"])
        return cls(results, methods, data["case_files"], data["limit"], data["version"], tuple(data.get("skipped", ())))


def results_of(metric: str, method: str, counts: Sequence[tuple[str, int, int]]) -> list[PropertyResult]:
    """Rows of ``(property, cases, passed)`` counts (:func:`~persona_metrics.validity.properties.tally`)."""
    return [PropertyResult(metric, method, prop, cases, passed) for prop, cases, passed in counts]


__all__ = ["REPORT_FORMAT", "ROLES", "MeasuredMethod", "PropertyResult", "ValidityReport", "results_of"]
