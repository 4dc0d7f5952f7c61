"""SummaryEval: accuracy (LLM judge), completeness (topic coverage) and coherence (ROUGE-enhanced) of summaries.

A port of oshea00/summaryeval @ cd0cb51 (MIT); ``overall = 0.6·accuracy + 0.25·completeness + 0.15·coherence``
(``docs/summary_eval.md``):

* :mod:`~persona_metrics.summary_eval.formulas`: the arithmetic (pure functions, ``aggregate``);
* :mod:`~persona_metrics.summary_eval.components`: sentences, TF-IDF topics, ROUGE, embeddings, readability;
* :mod:`~persona_metrics.summary_eval.params`: the judge's and the scorer's options (validated, frozen);
* :mod:`~persona_metrics.summary_eval.rubrics`: the judge's rubrics (prompt, scale, parser), a registry by name;
* :mod:`~persona_metrics.summary_eval.redaction`: credentials never shown;
* :mod:`~persona_metrics.summary_eval.judge`: the judge (:class:`Judge`, :class:`Verdict`); its ``openai`` client
  (:mod:`~persona_metrics.summary_eval.judge_client`, :class:`JudgeError`), its answer cache
  (:mod:`~persona_metrics.summary_eval.judge_cache`) and its ``--out`` results file
  (:mod:`~persona_metrics.summary_eval.results_log`);
* :mod:`~persona_metrics.summary_eval.calibration`: :func:`check_judge`, the judge calibration check;
* :mod:`~persona_metrics.summary_eval.scorer`: :func:`score_summary_eval`, :class:`SummaryEvalResult`.
"""

from persona_metrics.summary_eval.calibration import CalibrationResult, check_judge, load_cases
from persona_metrics.summary_eval.formulas import DEFAULT_WEIGHTS, aggregate, overall_score
from persona_metrics.summary_eval.judge import Judge, Verdict
from persona_metrics.summary_eval.judge_client import JudgeError
from persona_metrics.summary_eval.params import JudgeOptions, SummaryEvalParams
from persona_metrics.summary_eval.rubrics import DEFAULT_PROMPT, RUBRICS, JudgePrompt, Rubric, parse_answer
from persona_metrics.summary_eval.scorer import NO_JUDGE_NOTE, SummaryEvalResult, SummaryEvalScorer, score_summary_eval

__all__ = [
    "DEFAULT_PROMPT",
    "DEFAULT_WEIGHTS",
    "NO_JUDGE_NOTE",
    "RUBRICS",
    "CalibrationResult",
    "Judge",
    "JudgeError",
    "JudgeOptions",
    "JudgePrompt",
    "Rubric",
    "SummaryEvalParams",
    "SummaryEvalResult",
    "SummaryEvalScorer",
    "Verdict",
    "aggregate",
    "check_judge",
    "load_cases",
    "overall_score",
    "parse_answer",
    "score_summary_eval",
]
