"""The validity run: which methods of which metric are measured, scoring the cases with the library, the report.

:data:`METHODS` is the table of (metric, method, options): the default of each metric, its validated variants and,
for VERT, two reference scores (ROUGE-L F1 and raw BERTScore F1) measured on the same pairs. A method is measured
when its options exist in this installation (:func:`method_available` reads the family's params object), so a
variant that lands later needs only its row here. :func:`run_validity` loads the case files
(:mod:`~persona_metrics.validity.cases`), turns them into the texts each property needs and scores them with the
families' own library functions (:func:`~persona_metrics.vert.score_vert`,
:func:`~persona_metrics.summary_eval.score_summary_eval`, :func:`~persona_metrics.persona.score_style`,
:func:`~persona_metrics.persona.score_quality`, :func:`~persona_metrics.personalization.score_personalization`);
the checks are :mod:`~persona_metrics.validity.properties`' pure functions.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from persona_metrics.distances import DISTANCES, get_distance
from persona_metrics.metric_registry import METRIC_SPECS
from persona_metrics.metric_spec import resolve
from persona_metrics.params import Params
from persona_metrics.persona.params import QualityParams, StyleParams
from persona_metrics.persona.spec import PERSONA_QUALITY, PERSONA_STYLE
from persona_metrics.personalization.scorer import score_personalization
from persona_metrics.personalization.spec import DEGRESS, PERSEVAL
from persona_metrics.progress import progress_bar
from persona_metrics.signature import __version__
from persona_metrics.summary_eval.formulas import LIST_PROSE_DISTANCE
from persona_metrics.summary_eval.params import SummaryEvalParams
from persona_metrics.summary_eval.spec import SUMMARY_EVAL
from persona_metrics.validation import check_number
from persona_metrics.validity import properties as P
from persona_metrics.validity.cases import case_path, file_digest, first_cases, first_documents, load_cases
from persona_metrics.validity.report import MeasuredMethod, PropertyResult, ValidityReport, results_of
from persona_metrics.vert.params import VertParams
from persona_metrics.vert.spec import VERT

logger = logging.getLogger(__name__)

#: Seed of the row permutation of the PerSEval order-invariance property.
SHUFFLE_SEED = 0

Cases = Mapping[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class Method:
    """One measured method of a metric.

    Attributes:
        metric: the evaluate module's name.
        name: the label in the tables.
        options: keyword options of the family's library function (for a reference score: ``distance``, the
            :data:`~persona_metrics.distances.DISTANCES` name whose ``1 − σ`` is the score).
        params: the family's params object the options belong to (``None``: the options name a distance).
        role: ``"default"``, ``"variant"`` or ``"reference"``.
    """

    metric: str
    name: str
    options: Mapping[str, Any]
    params: type[Params] | None = None
    role: str = "variant"

    def measured(self) -> MeasuredMethod:
        """The method as the report records it."""
        return MeasuredMethod(self.metric, self.name, dict(self.options), self.role)


#: Every method the suite knows, per metric in table order.
METHODS: tuple[Method, ...] = (
    Method(VERT.name, "original", {}, VertParams, "default"),
    Method(VERT.name, "meaning_sensitive", {"meaning_sensitive": True}, VertParams),
    Method(VERT.name, "ROUGE-L", {"distance": "rougeL"}, role="reference"),
    Method(VERT.name, "BERTScore", {"distance": "bertscore"}, role="reference"),
    Method(SUMMARY_EVAL.name, "original", {"coherence_method": "original"}, SummaryEvalParams, "default"),
    Method(SUMMARY_EVAL.name, "robust", {"coherence_method": "robust"}, SummaryEvalParams),
    Method(
        SUMMARY_EVAL.name,
        "robust + recall_precision",
        {"coherence_method": "robust", "completeness_method": "recall_precision"},
        SummaryEvalParams,
    ),
    Method(PERSONA_STYLE.name, "jsd", {"method": "jsd"}, StyleParams, "default"),
    Method(PERSONA_STYLE.name, "zscore", {"method": "zscore"}, StyleParams),
    Method(PERSONA_STYLE.name, "posterior", {"method": "posterior"}, StyleParams),
    Method(PERSONA_STYLE.name, "fidelity", {"method": "fidelity"}, StyleParams),
    Method(PERSONA_QUALITY.name, "jsd", {"style_method": "jsd"}, QualityParams, "default"),
    Method(PERSONA_QUALITY.name, "posterior", {"style_method": "posterior"}, QualityParams),
    Method(PERSONA_QUALITY.name, "fidelity", {"style_method": "fidelity"}, QualityParams),
    Method(PERSEVAL.name, "rougeL", {"distance": "rougeL"}, role="default"),
    Method(PERSEVAL.name, "jsd", {"distance": "jsd"}),
)


def method_available(method: Method) -> bool:
    """Whether this installation has the method's options: fields of its params (a listed choice) or a distance."""
    if method.params is None:
        return method.options["distance"] in DISTANCES
    for name, value in method.options.items():
        if name not in method.params.names():
            return False
        choices = method.params.spec(name).choices
        if choices is not None and value not in choices:
            return False
    return True


#: The VERT case files and the label of their properties (the first set: none).
VERT_FILES: Mapping[str, str] = {"vert.jsonl": "", "vert_meaning.jsonl": "second set"}


# --- scoring the cases, one metric at a time --------------------------------------------------------------------
def _vert(cases: Cases, method: Method) -> list[P.Check]:
    from persona_metrics.vert import score_vert

    files = {name: cases[name] for name in VERT_FILES if name in cases}
    items = {key: pair for rows in files.values() for key, pair in P.vert_items(rows).items()}
    candidates = [candidate for candidate, _ in items.values()]
    references = [reference for _, reference in items.values()]
    if method.role == "reference":  # 1 − σ: the F1 the distance is one minus of
        distance = get_distance(method.options["distance"])
        values = 1.0 - distance.pairwise(list(zip(references, candidates, strict=True)))
    else:
        values = score_vert(candidates, references, **method.options).vert
    score = dict(zip(items, values.tolist(), strict=True))
    return [check for name, rows in files.items() for check in P.vert_checks(rows, score, VERT_FILES[name])]


def _summary_eval(cases: Cases, method: Method) -> list[P.Check]:
    from persona_metrics.summary_eval import score_summary_eval
    from persona_metrics.summary_eval.components import sentences_of

    coherence_rows, completeness_rows = cases["coherence.jsonl"], cases["completeness.jsonl"]
    checks_rows, list_rows = cases["summary_checks.jsonl"], cases["list_prose.jsonl"]
    sentences = {row["summary"]: sentences_of(row["summary"]) for row in [*coherence_rows, *checks_rows]}
    items = {
        **P.coherence_items(coherence_rows, sentences),
        **P.completeness_items(completeness_rows),
        **P.summary_check_items(checks_rows, sentences),
        **P.list_prose_items(list_rows),
    }
    result = score_summary_eval(
        [summary for summary, _ in items.values()], [source for _, source in items.values()], **method.options
    )
    scores = {
        name: dict(zip(items, getattr(result, name).tolist(), strict=True))
        for name in ("coherence", "completeness", "consistency")
    }
    checks = P.summary_eval_checks(coherence_rows, completeness_rows, scores["coherence"], scores["completeness"])
    checks += P.summary_check_checks(checks_rows, scores, LIST_PROSE_DISTANCE)
    return checks + P.list_prose_checks(list_rows, scores["coherence"], LIST_PROSE_DISTANCE)


def _style_scores(rows: Sequence[Mapping[str, Any]], personas: Sequence[str], method: Method) -> tuple[dict, dict]:
    """``{(id, persona): score}`` of every text against every persona, and ``{id: nearest persona}``."""
    from persona_metrics.persona import score_style

    pairs = [(row, persona) for row in rows for persona in personas]
    result = score_style([row["text"] for row, _ in pairs], [persona for _, persona in pairs], **method.options)
    score = {(row["id"], persona): s for (row, persona), s in zip(pairs, result.scores.tolist(), strict=True)}
    nearest = {row["id"]: str(near) for (row, _), near in zip(pairs, result.nearest, strict=True)}
    return score, nearest


def _style(cases: Cases, method: Method) -> list[P.Check]:
    full, summaries, off = cases["style.jsonl"], cases["style_summaries.jsonl"], cases["off_register.jsonl"]
    personas = sorted({row["persona"] for row in [*full, *summaries]})
    score, nearest = _style_scores([*full, *summaries, *off], personas, method)
    checks = P.style_checks(full, score, nearest) + P.style_checks(summaries, score, nearest, "summaries")
    return checks + P.off_register_checks(summaries, off, score)


#: The persona_quality case files and the label of their properties (full-length cases: none).
QUALITY_FILES: Mapping[str, str] = {"persona_quality.jsonl": "", "persona_quality_summaries.jsonl": "summaries"}


def _quality(cases: Cases, method: Method) -> list[P.Check]:
    checks = []
    for name, texts in QUALITY_FILES.items():
        overall, _, _ = _quality_scores(cases[name], method)
        checks += P.quality_checks(cases[name], overall, texts)
    return checks


def _quality_scores(rows: Sequence[Mapping[str, Any]], method: Method) -> tuple[dict, dict, dict]:
    """``{(id, version): value}`` of the overall quality, the content quality and the style of the cases' texts."""
    from persona_metrics.persona import score_quality

    items = P.quality_items(rows)
    summaries, references, personas = (list(column) for column in zip(*items.values(), strict=True))
    result = score_quality(summaries, references, personas, **method.options)
    return tuple(  # type: ignore[return-value]
        dict(zip(items, values.tolist(), strict=True))
        for values in (result.overall_quality, result.content.content_quality, result.style_similarity)
    )


def quality_term_gaps(method: str, cases_dir: str | Path | None = None) -> dict[str, dict[str, dict[str, float]]]:
    """Per persona_quality case file, :func:`~persona_metrics.validity.properties.term_gaps` of one method.

    How far the content and style terms of the overall score move between each good summary and its wrong-register
    and wrong-content versions (``docs/style.md`` §6.1: the measured share of each term).

    Raises:
        ValueError: ``method`` is not a persona_quality method of :data:`METHODS`.
    """
    from persona_metrics.persona.params import OVERALL_WEIGHTS

    known = {m.name: m for m in METHODS if m.metric == PERSONA_QUALITY.name}
    if method not in known:
        raise ValueError(f"method {method!r} is not a persona_quality method of the suite; allowed: {list(known)}")
    out = {}
    for name in QUALITY_FILES:
        rows = load_cases(name, cases_dir)
        _, content, style = _quality_scores(rows, known[method])
        out[name] = P.term_gaps(rows, content, style, OVERALL_WEIGHTS)
    return out


def _perseval(cases: Cases, method: Method) -> list[P.Check]:
    rows = cases["perseval.jsonl"]
    references = [row["reference"] for row in rows]
    documents = [row["document"] for row in rows]
    ids = [row["document_id"] for row in rows]
    order = np.random.default_rng(SHUFFLE_SEED).permutation(len(rows)).tolist()
    perseval, degress, shuffled = {}, {}, {}
    for system, predictions in P.system_predictions(rows).items():
        result = score_personalization(predictions, references, documents, ids, **method.options)
        again = score_personalization(
            *([column[i] for i in order] for column in (predictions, references, documents, ids)), **method.options
        )
        perseval[system] = result.per_document(PERSEVAL.headline)
        degress[system] = result.per_document(DEGRESS.headline)
        shuffled[system] = (result.perseval, again.perseval)
    return P.perseval_checks(perseval, degress, shuffled)


@dataclass(frozen=True)
class Suite:
    """A metric's case files, how ``limit`` groups their cases, and how one method is checked on them."""

    files: tuple[str, ...]
    check: Callable[[Cases, Method], list[P.Check]]
    group: Callable[[Mapping[str, Any]], Any] = lambda row: None
    #: The string fields of each case file that is not a shipped one (a registered metric's own suite).
    fields: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


#: Per metric (the CLI's METRIC), its suite.
SUITES: Mapping[str, Suite] = {
    VERT.name: Suite(tuple(VERT_FILES), _vert),
    SUMMARY_EVAL.name: Suite(
        ("coherence.jsonl", "completeness.jsonl", "summary_checks.jsonl", "list_prose.jsonl"), _summary_eval
    ),
    PERSONA_STYLE.name: Suite(
        ("style.jsonl", "style_summaries.jsonl", "off_register.jsonl"),
        _style,
        lambda row: (row.get("persona"), row.get("genre"), row.get("register")),
    ),
    PERSONA_QUALITY.name: Suite(tuple(QUALITY_FILES), _quality, lambda row: row["persona"]),
    PERSEVAL.name: Suite(("perseval.jsonl",), _perseval),
}
#: The metrics the shipped suite measures, in table order.
METRICS: tuple[str, ...] = tuple(SUITES)


def _suite(validity: Any) -> Suite:
    """A spec's ``validity``: a :class:`Suite`, or ``"module:name"`` of one."""
    suite: Suite = resolve(validity) if isinstance(validity, str) else validity
    return suite


def suites() -> dict[str, Suite]:
    """Per metric, its suite: the shipped ones, then each registered metric's own (its spec's ``validity``).

    A metric added with :func:`~persona_metrics.metric_registry.register_metric` brings its suite as
    :class:`Suite` (or ``"module:name"`` of one); its one method is its default (no option changed).
    """
    extra = {s.name: _suite(s.validity) for s in METRIC_SPECS.values() if s.validity and s.name not in SUITES}
    return {**SUITES, **extra}


def all_methods() -> tuple[Method, ...]:
    """Every method the runner knows: :data:`METHODS`, then the default of each metric with a suite of its own."""
    own = [name for name in suites() if name not in SUITES]
    return (*METHODS, *(Method(name, "default", {}, METRIC_SPECS[name].params[0], "default") for name in own))


def _selected(metrics: Sequence[str] | None, methods: Mapping[str, Sequence[str]] | None) -> list[Method]:
    """The methods to measure (every available one of each metric by default), checked."""
    known = suites()
    chosen = list(known if metrics is None else metrics)
    for metric in chosen:
        if metric not in known:
            raise ValueError(f"metrics: {metric!r} is not in the validity suite; allowed: {list(known)}")
    wanted = dict(methods or {})
    every = all_methods()
    for metric, names in wanted.items():
        names_known = [m.name for m in every if m.metric == metric]
        if metric not in chosen:
            raise ValueError(f"methods names {metric!r}, which is not among the metrics measured {chosen}")
        for name in names:
            if name not in names_known:
                raise ValueError(f"methods[{metric!r}]: {name!r} is not a method of the suite; allowed: {names_known}")
    selected = []
    for method in every:
        if method.metric in chosen and method.name in wanted.get(method.metric, [method.name]):
            if method.metric in wanted and not method_available(method):
                raise ValueError(
                    f"{method.metric} method {method.name!r}: this installation lacks {dict(method.options)}"
                )
            selected.append(method)
    return selected


def _load(metrics: Sequence[str], cases_dir: str | Path | None, limit: int | None) -> dict[str, list[dict[str, Any]]]:
    cases: dict[str, list[dict[str, Any]]] = {}
    known = suites()
    for metric in metrics:
        suite = known[metric]
        for name in suite.files:
            rows = load_cases(name, cases_dir, suite.fields.get(name))
            by_document = METRIC_SPECS[metric].by_document
            cases[name] = first_documents(rows, limit) if by_document else first_cases(rows, limit, suite.group)
    return cases


def run_validity(
    metrics: Sequence[str] | None = None,
    methods: Mapping[str, Sequence[str]] | None = None,
    *,
    cases_dir: str | Path | None = None,
    limit: int | None = None,
) -> ValidityReport:
    """Measure the metamorphic properties of the metrics on the validity cases (``docs/validity.md``).

    Args:
        metrics: names from :func:`suites` (default: all; the shipped ones are :data:`METRICS`).
        methods: ``{metric: [method names]}`` to measure only those (:func:`all_methods`); by default every method
            whose options this installation has (the others are listed in the report's ``skipped``).
        cases_dir: a folder of case files with the shipped names and formats (default: the shipped cases).
        limit: at most this many cases per group of each file (per persona and genre for ``style.jsonl``, per
            persona for ``persona_quality.jsonl``, documents for ``perseval.jsonl``), for a quick look; ``None``
            measures all.

    Returns:
        A :class:`~persona_metrics.validity.report.ValidityReport`.

    Raises:
        ValueError: an unknown metric or method (allowed values named), a method asked for by name whose option
            this installation lacks, a ``limit`` below 1, or a malformed case file (file and line named).
        FileNotFoundError: a case file missing from ``cases_dir``.
    """
    if limit is not None:
        limit = int(check_number("limit", limit, 1, integer=True))
    selected = _selected(metrics, methods)
    measured = [m for m in selected if method_available(m)]
    skipped = tuple(f"{m.metric} {m.name}" for m in selected if not method_available(m))
    for name in skipped:
        logger.warning("validity: %s not measured: this installation lacks its option", name)
    chosen = list(dict.fromkeys(m.metric for m in selected))
    cases = _load(chosen, cases_dir, limit)
    results: list[PropertyResult] = []
    known = suites()
    for method in progress_bar(measured, desc="validity: scoring", unit="method"):
        checks = known[method.metric].check(cases, method)
        results += results_of(method.metric, method.name, P.tally(checks))
    digests = {name: file_digest(case_path(name, cases_dir)) for name in cases}
    return ValidityReport(tuple(results), tuple(m.measured() for m in measured), digests, limit, __version__, skipped)


__all__ = [
    "METHODS",
    "METRICS",
    "QUALITY_FILES",
    "SHUFFLE_SEED",
    "SUITES",
    "Method",
    "Suite",
    "all_methods",
    "method_available",
    "quality_term_gaps",
    "run_validity",
    "suites",
]
