"""Judge calibration: does a judge score a faithful summary above the same summary with one false fact?

:func:`check_judge` asks a :class:`~persona_metrics.summary_eval.judge.Judge` about a calibration set: per case a
source, a faithful summary of it, the same summary with one injected false fact (a wrong number, a wrong name or a
negation) and an off-topic summary. The shipped set (``validity/cases/judge_calibration.jsonl`` in the package,
written for the project) is the default. The :class:`CalibrationResult` says:

* **pairwise accuracy**: the fraction of cases whose faithful summary scores above its false-fact copy (a tie
  counts half; a pair with an invalid answer counts 0: the judge did not separate it), overall and per kind;
* **mean gap**: faithful minus false-fact accuracy, averaged over the pairs with two valid answers;
* **off-topic below faithful**: the same count for the off-topic summary against the faithful one;
* **invalid answers**: answers without a valid score, of all answers asked;
* **verdict**: *pass* when pairwise accuracy >= :data:`MIN_PAIRWISE_ACCURACY` (0.8) and invalid answers <=
  :data:`MAX_INVALID_FRACTION` (10 %), else *fail*.

A verdict on the shipped set is cached per (model, SHA-256 of the server URL, rubric, prompt version) under the
judge's cache folder (``cache_dir``, else ``<cache>/judge``) in ``calibration/``; the scorer
(:class:`~persona_metrics.summary_eval.scorer.SummaryEvalScorer`) warns once per process and judge when the run's
judge has no passing verdict there (:func:`warn_if_unchecked`). ``persona-metrics judge-check`` runs the check
from the shell (``docs/summary_eval.md`` §5.1).

>>> pair_separation(1.0, 0.0), pair_separation(0.5, 0.5), pair_separation(None, 0.0)
(1.0, 0.5, 0.0)
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from persona_metrics.signature import __version__
from persona_metrics.summary_eval.judge import Judge, Verdict
from persona_metrics.summary_eval.judge_cache import JudgeCache, default_cache_dir, read_json, write_json
from persona_metrics.validation import not_one_of
from persona_metrics.warning import warn

#: The kinds of injected false fact.
KINDS = ("number", "name", "negation")
#: The shipped calibration set (JSON lines, written for the project; shipped in the wheel).
SHIPPED_CASES = Path(__file__).resolve().parents[1] / "validity" / "cases" / "judge_calibration.jsonl"
#: A judge passes with at least this pairwise accuracy ...
MIN_PAIRWISE_ACCURACY = 0.8
#: ... and at most this fraction of invalid answers.
MAX_INVALID_FRACTION = 0.10
#: The folder, under the judge's cache folder, of the cached verdicts.
VERDICT_FOLDER = "calibration"

_TEXT_FIELDS = ("id", "source", "faithful", "off_topic")
#: Verdict files already warned about in this process (one warning per judge).
_WARNED: set[Path] = set()


@dataclass(frozen=True)
class CalibrationCase:
    """One case: a source, a faithful summary, its copy with one false fact (of ``kind``), an off-topic summary."""

    id: str
    source: str
    faithful: str
    false_fact: str
    kind: str
    off_topic: str


def _case(row: object, where: str) -> CalibrationCase:
    """One JSON line as a case (every field checked, named with ``where``)."""
    if not isinstance(row, dict):
        raise ValueError(f"{where}: not a JSON object")
    texts = {}
    for name in _TEXT_FIELDS:
        value = row.get(name)
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{where}: field {name} must be a non-empty string, got {type(value).__name__}")
        texts[name] = value
    false_fact = row.get("false_fact")
    if not isinstance(false_fact, dict):
        raise ValueError(f'{where}: field false_fact must be an object {{"kind": ..., "text": ...}}')
    kind, text = false_fact.get("kind"), false_fact.get("text")
    if kind not in KINDS:
        raise ValueError(not_one_of(f"{where}: field false_fact.kind", kind, KINDS))
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{where}: field false_fact.text must be a non-empty string")
    return CalibrationCase(texts["id"], texts["source"], texts["faithful"], text, kind, texts["off_topic"])


def load_cases(path: str | Path | None = None) -> tuple[CalibrationCase, ...]:
    """The cases of a JSON-lines file (default the shipped set).

    Each line: ``{"id", "source", "faithful", "false_fact": {"kind": number|name|negation, "text"}, "off_topic"}``.

    Raises:
        OSError: the file cannot be read.
        ValueError: a line that is not such an object, a repeated id, or no case (file and line named).
    """
    file = Path(path).expanduser() if path is not None else SHIPPED_CASES
    cases: list[CalibrationCase] = []
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{file}:{number}"
        try:
            row = json.loads(line)
        except ValueError as err:
            raise ValueError(f"{where}: not JSON ({err})") from err
        cases.append(_case(row, where))
        if cases[-1].id in {case.id for case in cases[:-1]}:
            raise ValueError(f"{where}: id {cases[-1].id!r} repeats an earlier line's")
    if not cases:
        raise ValueError(f"{file}: no calibration case")
    return tuple(cases)


def pair_separation(high: float | None, low: float | None) -> float:
    """1 when ``high`` > ``low``, 0.5 for a tie, 0 otherwise or when either answer was invalid (None)."""
    if high is None or low is None:
        return 0.0
    return 1.0 if high > low else 0.5 if high == low else 0.0


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


@dataclass(frozen=True)
class CaseVerdicts:
    """The judge's verdicts on one case's three summaries."""

    case: CalibrationCase
    faithful: Verdict
    false_fact: Verdict
    off_topic: Verdict


@dataclass(frozen=True)
class CalibrationResult:
    """How a judge scored a calibration set (the measures: module docstring).

    Attributes:
        judge: ``model@host`` (no credential).
        rubric: the rubric's name.
        prompt: the prompt's version.
        items: per case, the three verdicts.
    """

    judge: str
    rubric: str
    prompt: str
    items: tuple[CaseVerdicts, ...]

    def _pairwise(self, items: Sequence[CaseVerdicts]) -> float:
        return math.fsum(pair_separation(i.faithful.accuracy, i.false_fact.accuracy) for i in items) / len(items)

    @property
    def pairwise_accuracy(self) -> float:
        """Faithful above its false-fact copy, over all cases (ties half, an invalid answer 0)."""
        return self._pairwise(self.items)

    @property
    def per_kind(self) -> dict[str, float]:
        """Pairwise accuracy per kind of false fact (the kinds present, in :data:`KINDS` order)."""
        return {
            kind: self._pairwise([i for i in self.items if i.case.kind == kind])
            for kind in KINDS
            if any(i.case.kind == kind for i in self.items)
        }

    @property
    def mean_gap(self) -> float | None:
        """Faithful minus false-fact accuracy over the pairs with two valid answers; None without such a pair."""
        gaps = [
            i.faithful.accuracy - i.false_fact.accuracy
            for i in self.items
            if i.faithful.accuracy is not None and i.false_fact.accuracy is not None
        ]
        return _mean(gaps)

    @property
    def off_topic_below(self) -> float:
        """Off-topic summary below the faithful one, over all cases (ties half, an invalid answer 0)."""
        return math.fsum(pair_separation(i.faithful.accuracy, i.off_topic.accuracy) for i in self.items) / len(
            self.items
        )

    @property
    def num_answers(self) -> int:
        """Answers asked for: three per case."""
        return 3 * len(self.items)

    @property
    def num_invalid(self) -> int:
        """Answers without a valid score."""
        return sum(not v.valid for i in self.items for v in (i.faithful, i.false_fact, i.off_topic))

    @property
    def invalid_fraction(self) -> float:
        """:attr:`num_invalid` / :attr:`num_answers`."""
        return self.num_invalid / self.num_answers

    @property
    def passed(self) -> bool:
        """Pairwise accuracy >= :data:`MIN_PAIRWISE_ACCURACY` and invalid answers <= :data:`MAX_INVALID_FRACTION`."""
        return self.pairwise_accuracy >= MIN_PAIRWISE_ACCURACY and self.invalid_fraction <= MAX_INVALID_FRACTION

    @property
    def reason(self) -> str:
        """The verdict in words, with the measures it rests on."""
        accuracy, invalid = self.pairwise_accuracy, self.invalid_fraction
        failed = [
            *(
                [f"pairwise accuracy {accuracy:.3g} < {MIN_PAIRWISE_ACCURACY:g}"]
                if accuracy < MIN_PAIRWISE_ACCURACY
                else []
            ),
            *(
                [f"invalid answers {invalid:.0%} > {MAX_INVALID_FRACTION:.0%}"]
                if invalid > MAX_INVALID_FRACTION
                else []
            ),
        ]
        if failed:
            return "fail: " + "; ".join(failed)
        return f"pass: pairwise accuracy {accuracy:.3g} >= {MIN_PAIRWISE_ACCURACY:g}, invalid {invalid:.0%}"

    def as_dict(self) -> dict[str, Any]:
        """One flat row: judge, rubric, prompt, cases, the measures (per kind by name), invalid, verdict, reason."""
        return {
            "judge": self.judge,
            "rubric": self.rubric,
            "prompt": self.prompt,
            "cases": len(self.items),
            "pairwise_accuracy": self.pairwise_accuracy,
            **self.per_kind,
            "mean_gap": self.mean_gap,
            "off_topic_below": self.off_topic_below,
            "invalid": self.num_invalid,
            "answers": self.num_answers,
            "verdict": "pass" if self.passed else "fail",
            "reason": self.reason,
        }


def check_judge(judge: Judge, cases: Sequence[CalibrationCase] | None = None) -> CalibrationResult:
    """Score a calibration set with ``judge`` (default the shipped set, whose verdict is then cached).

    Args:
        judge: the judge to check, with its rubric, prompt and options.
        cases: the cases (:func:`load_cases`); None: the shipped set. A verdict on other cases is not cached.

    Raises:
        TypeError: ``judge`` is not a Judge, or a case is not a CalibrationCase (index named).
        ValueError: no case; OSError: the shipped set cannot be read.
        JudgeError: the judge could not be called.
    """
    if not isinstance(judge, Judge):
        raise TypeError(f"judge must be a persona_metrics.summary_eval.Judge, got {type(judge).__name__}")
    chosen = load_cases() if cases is None else tuple(cases)
    for index, case in enumerate(chosen):
        if not isinstance(case, CalibrationCase):
            raise TypeError(f"cases[{index}] must be a CalibrationCase, got {type(case).__name__}")
    if not chosen:
        raise ValueError("cases must hold at least one CalibrationCase")
    summaries = [text for c in chosen for text in (c.faithful, c.false_fact, c.off_topic)]
    verdicts = judge.judge_many(summaries, [c.source for c in chosen for _ in range(3)])
    items = tuple(CaseVerdicts(c, *verdicts[3 * i : 3 * i + 3]) for i, c in enumerate(chosen))
    result = CalibrationResult(f"{judge.model}@{judge.host}", judge.rubric.name, judge.prompt.version, items)
    if cases is None:
        save_verdict(judge, result)
    return result


def verdict_path(judge: Judge) -> Path:
    """Where the verdict of ``judge`` is cached: ``<cache_dir or <cache>/judge>/calibration/<key>.json``.

    The key is a SHA-256 of the model, the server URL's SHA-256, the rubric and the prompt version.
    """
    key = JudgeCache.key(
        {
            "model": judge.model,
            "base_url": judge.endpoint_digest,
            "rubric": judge.rubric.name,
            "prompt": judge.prompt.version,
        }
    )
    folder = Path(judge.options.cache_dir).expanduser() if judge.options.cache_dir is not None else default_cache_dir()
    return folder / VERDICT_FOLDER / f"{key}.json"


def save_verdict(judge: Judge, result: CalibrationResult) -> Path:
    """Cache the verdict of ``result`` for ``judge`` (atomically); returns the file."""
    path = verdict_path(judge)
    write_json(path, {"key": path.stem, "passed": result.passed, "version": __version__, **result.as_dict()})
    _WARNED.discard(path)
    return path


def cached_verdict(judge: Judge) -> dict[str, Any] | None:
    """The cached verdict of ``judge`` (``passed``, ``reason``, the measures), or None when there is none.

    An unreadable or malformed file is ignored with a warning (as if there were none).
    """
    path = verdict_path(judge)
    record = read_json(path, "judge-check verdict")
    if record is None:
        return None
    if not isinstance(record, dict) or record.get("key") != path.stem or not isinstance(record.get("passed"), bool):
        warn(f"ignoring malformed judge-check verdict {path}")
        return None
    return record


def check_command(judge: Judge) -> str:
    """The ``persona-metrics judge-check`` command line that checks ``judge`` (no credential)."""
    where = f" --base-url {judge.where}" if judge.base_url is not None else ""
    return f"persona-metrics judge-check{where} -m {judge.model} --rubric {judge.rubric.name}"


def warn_if_unchecked(judge: Judge) -> None:
    """Warn (once per process and judge) when ``judge`` has no passing verdict cached."""
    path = verdict_path(judge)
    if path in _WARNED:
        return
    record = cached_verdict(judge)
    if record is not None and record["passed"]:
        return
    _WARNED.add(path)
    state = "has never been checked" if record is None else f"failed the judge check ({record.get('reason')})"
    warn(
        f"the judge {judge.model}@{judge.host} (rubric {judge.rubric.name}, prompt {judge.prompt.version}) {state}: "
        "its accuracy may not tell a faithful summary from a false one; run "
        f"'{check_command(judge)}' (docs/summary_eval.md §5.1)"
    )
